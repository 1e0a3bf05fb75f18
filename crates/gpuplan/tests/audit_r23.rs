//! Audit r23: each test runs the CLI (or `gpuplan serve`) as a user does and asserts the property
//! the finding broke. Findings and inputs: docs/notes/notes-audit-r23.md. A refusal run through
//! `common::assert_refused` is run again in Chinese (no English sentence left).

mod common;

const TAG: &str = "audit-r23";

/// A Llama-3.1-8B-shaped `config.json` with `extra` keys (JSON members, comma-separated).
fn config(extra: &str) -> String {
    let base = r#""model_type": "llama", "hidden_size": 4096, "num_hidden_layers": 32,
        "num_attention_heads": 32, "num_key_value_heads": 8, "vocab_size": 128256,
        "intermediate_size": 14336, "max_position_embeddings": 8192"#;
    if extra.is_empty() {
        format!("{{{base}}}")
    } else {
        format!("{{{base}, {extra}}}")
    }
}

/// `models show --config` of `config(extra)`.
fn show(name: &str, extra: &str) -> (String, std::process::Output) {
    let f = common::write_temp(TAG, name, &config(extra));
    let f = f.display().to_string();
    let o = common::run(TAG, &["models", "show", "--config", &f]);
    (f, o)
}

/// A1: a config with 0 or 1 routed experts and a top-k of 2 was sized as a dense model in
/// silence (the expert count was read only when above 1). A top-k above the count is refused
/// naming the top-k key and the count's key, under each of the three count spellings (en, zh).
#[test]
fn a_top_k_above_zero_or_one_expert_is_refused_naming_both_keys() {
    for key in ["num_local_experts", "num_experts", "n_routed_experts"] {
        for n in [0, 1] {
            let extra = format!(r#""{key}": {n}, "num_experts_per_tok": 2"#);
            let f = common::write_temp(TAG, &format!("{key}-{n}.json"), &config(&extra));
            let f = f.display().to_string();
            common::assert_refused(
                TAG,
                &["models", "show", "--config", &f],
                2,
                &[
                    "num_experts_per_tok",
                    &format!("`{key}` = {n}"),
                    "routed experts",
                ],
            );
            // The estimate refuses it too (no dense answer).
            let o = common::run(
                TAG,
                &[
                    "estimate",
                    "--model-config",
                    &f,
                    "--task",
                    "lora",
                    "--gpu",
                    "A100",
                ],
            );
            assert_eq!(o.status.code(), Some(2), "{}", common::all_text(&o));
        }
    }
}

/// A1: one expert that every token takes (top-k 1, or no top-k) is a dense MLP: sized dense, as
/// before, now with a note that says so (en and zh); 0 experts is a dense model without a note.
#[test]
fn one_expert_with_top_k_one_is_sized_dense_with_a_note() {
    let dense = common::stdout(&show("dense.json", "").1);
    for extra in [
        r#""num_local_experts": 1, "num_experts_per_tok": 1"#,
        r#""num_experts": 1"#,
    ] {
        let (f, o) = show("one.json", extra);
        assert_eq!(o.status.code(), Some(0), "{}", common::all_text(&o));
        let err = common::all_text(&o);
        assert!(
            err.contains("dense MLP") && err.contains("= 14336"),
            "{err}"
        );
        // The same parameters as the dense config.
        assert_eq!(common::stdout(&o), dense.replace("dense", "one"));
        let zh = common::run(TAG, &["--lang", "zh", "models", "show", "--config", &f]);
        let err = common::all_text(&zh);
        assert!(err.contains("稠密 MLP"), "{err}");
        assert!(
            common::english_sentences(&common::stderr(&zh)).is_empty(),
            "{err}"
        );
    }
    let (_, o) = show("zero.json", r#""num_experts": 0"#);
    assert_eq!(o.status.code(), Some(0), "{}", common::all_text(&o));
    assert!(!common::all_text(&o).contains("dense MLP"));
}

/// A1: a mixture of experts written in keys gpuplan does not read (Hunyuan's `moe_topk`, ERNIE
/// 4.5's `moe_num_experts` / `moe_k`, Step-3's `moe_top_k`, or `num_experts_per_tok` with no
/// count) was sized dense in silence; it is refused naming the key and the keys to give (en, zh).
#[test]
fn a_moe_without_an_expert_count_gpuplan_reads_is_refused() {
    for (key, v) in [
        ("moe_topk", "8"),
        ("moe_top_k", "4"),
        ("moe_k", "8"),
        ("moe_num_experts", "64"),
        ("num_experts_per_tok", "2"),
        ("moe_topk", "[8]"),
    ] {
        let extra = format!(r#""{key}": {v}"#);
        let f = common::write_temp(TAG, &format!("{key}.json"), &config(&extra));
        let f = f.display().to_string();
        common::assert_refused(
            TAG,
            &["models", "show", "--config", &f],
            2,
            &[&format!("`{key}`"), "num_local_experts", "dense"],
        );
    }
    // A top-k of 1 with no count, or 0, keeps the dense reading.
    for extra in [r#""num_experts_per_tok": 1"#, r#""moe_k": 0"#] {
        let (_, o) = show("k1.json", extra);
        assert_eq!(o.status.code(), Some(0), "{}", common::all_text(&o));
    }
}

/// The OpenAPI document's schema of a workload body, with its components, for `jsonschema`.
fn body_schema(doc: &serde_json::Value) -> jsonschema::Validator {
    let schema = serde_json::json!({
        "$ref": "#/components/schemas/WorkloadFile",
        "components": doc["components"].clone(),
    });
    jsonschema::validator_for(&schema).expect("the body schema compiles")
}

/// A2: the OpenAPI document gave `weights` as a format table only while the API takes the
/// weight words as strings too (audit r22 #1). Both forms now validate against the document's
/// body schema, a word naming no format does not, and the API answers the valid ones.
#[test]
fn the_openapi_schema_takes_the_weight_words_and_tables_the_api_reads() {
    let s = common::Server::start();
    let text = ureq::get(&format!("{}/api/v1/openapi.json", s.base))
        .call()
        .unwrap()
        .into_string()
        .unwrap();
    let doc: serde_json::Value = serde_json::from_str(&text).unwrap();
    let v = body_schema(&doc);
    let inference = |w: serde_json::Value| {
        serde_json::json!({"model": "Qwen2.5-7B", "kind": "inference",
            "hardware": {"gpu": "A100"}, "inference": {"weights": w}})
    };
    let serve = |w: serde_json::Value| {
        serde_json::json!({"model": "Qwen2.5-7B", "serve": {"rate_rps": 1.0, "weights": w},
            "constraints": {"providers": ["alibaba"]}})
    };
    let url = |ep: &str| format!("{}/api/v1/{ep}", s.base);
    let good_inference = [
        serde_json::json!("awq"),
        serde_json::json!(" Int8 "),
        serde_json::json!("fp32"),
        serde_json::json!("int4-g64"),
        serde_json::json!({"format": "int4", "group": 128}),
        serde_json::json!({"format": "fp8"}),
    ];
    for w in good_inference {
        let body = inference(w.clone());
        let errs: Vec<String> = v.iter_errors(&body).map(|e| e.to_string()).collect();
        assert!(errs.is_empty(), "{w}: {errs:?}");
        let (st, a) = common::post(&url("estimate"), &body.to_string());
        assert_eq!(st, 200, "{w}: {a}");
    }
    for w in [
        serde_json::json!(["awq", {"format": "fp8"}]),
        serde_json::json!([" GPTQ "]),
    ] {
        let body = serve(w.clone());
        let errs: Vec<String> = v.iter_errors(&body).map(|e| e.to_string()).collect();
        assert!(errs.is_empty(), "{w}: {errs:?}");
        let (st, a) = common::post(&url("plan"), &body.to_string());
        assert_eq!(st, 200, "{w}: {a}");
    }
    // What the parser refuses, the schema refuses: a word naming no format, fp32 in a serving
    // list, a number.
    for body in [
        inference(serde_json::json!("q4_k")),
        inference(serde_json::json!(5)),
        serve(serde_json::json!(["fp32"])),
        serve(serde_json::json!("awq")),
    ] {
        assert!(!v.is_valid(&body), "{body}");
        let ep = if body.get("serve").is_some() {
            "plan"
        } else {
            "estimate"
        };
        let (st, a) = common::post(&url(ep), &body.to_string());
        assert_eq!(st, 400, "{body}: {a}");
    }
}

/// B (api23): a body declared over the 1 MiB the server read before its 413 was answered with
/// the connection closed under the client (a 10 MB body: "broken pipe", no answer to read).
/// Bodies up to 16 MiB are now read frame by frame and dropped, and the 413 JSON error arrives;
/// the server answers the next request.
#[test]
fn a_ten_megabyte_body_reads_the_413() {
    let s = common::Server::start();
    let url = format!("{}/api/v1/plan", s.base);
    let big = format!(
        r#"{{"model": "Qwen2.5-7B", "pad": "{}"}}"#,
        "x".repeat(10 << 20)
    );
    let (st, v) = common::post(&url, &big);
    assert_eq!(st, 413, "{v}");
    assert_eq!(v["kind"], "error", "{v}");
    let (st, v) = common::post(
        &url,
        r#"{"model": "Qwen2.5-0.5B", "training": {"task": "lora", "tokens": 1e7}}"#,
    );
    assert_eq!(st, 200, "{v}");
}

/// C (q12): an int8 serving answer on a T4 under vLLM carried the int4 note's aside "(an AWQ
/// int4 checkpoint: vLLM's AWQ GEMM kernel, from 7.5)": int8 has no AWQ checkpoint. Its note
/// names GPTQ's 8-bit kernel alone (en, zh); the int4 note keeps the aside.
#[test]
fn an_int8_answer_below_marlin_names_no_awq_checkpoint() {
    let args = |w: &'static str| {
        vec![
            "estimate",
            "-m",
            "Qwen2.5-7B",
            "--task",
            "inference",
            "--gpu",
            "t4",
            "--engine",
            "vllm",
            "--weights",
            w,
        ]
    };
    let o = common::run(TAG, &args("int8"));
    let text = common::all_text(&o);
    assert_eq!(o.status.code(), Some(0), "{text}");
    assert!(text.contains("8-bit exllama"), "{text}");
    assert!(!text.contains("AWQ"), "{text}");
    let mut zh = vec!["--lang", "zh"];
    zh.extend(args("int8"));
    let text = common::all_text(&common::run(TAG, &zh));
    assert!(
        text.contains("8 位 exllama") && !text.contains("AWQ"),
        "{text}"
    );
    let text = common::all_text(&common::run(TAG, &args("int4")));
    assert!(text.contains("an AWQ int4 checkpoint"), "{text}");
}

/// B (api23): a query parameter the route does not take, or a choice it does not offer, listed
/// the accepted names bare ("可选值为 cost, time, balanced"), an English run in a zh answer. The
/// names are now code (`` `cost` ``), in both languages.
#[test]
fn query_errors_list_the_accepted_names_as_code() {
    let s = common::Server::start();
    let body = r#"{"model": "Qwen2.5-0.5B", "training": {"task": "lora", "tokens": 1e7}}"#;
    for (q, name) in [("optimize=fast", "`balanced`"), ("explain=2", "`top`")] {
        for lang in ["en", "zh"] {
            let url = format!("{}/api/v1/plan?{q}&lang={lang}", s.base);
            let (st, v) = common::post(&url, body);
            assert_eq!(st, 400, "{v}");
            let m = v["error"]["message"].as_str().unwrap_or_default();
            assert!(m.contains(name), "{m}");
            if lang == "zh" {
                assert!(common::english_sentences(m).is_empty(), "{m}");
            }
        }
    }
    let url = format!("{}/api/v1/prices?provider=zz&lang=zh", s.base);
    let (st, v) = ureq::get(&url)
        .call()
        .map(|r| (r.status(), r.into_string().unwrap()))
        .unwrap_or_else(|e| match e {
            ureq::Error::Status(c, r) => (c, r.into_string().unwrap()),
            e => panic!("{e}"),
        });
    assert_eq!(st, 400, "{v}");
    assert!(v.contains("`alibaba`"), "{v}");
}
