//! Audit r22: each test runs the CLI (or `gpuplan serve`) as a user does and asserts the property
//! the finding broke. Findings and inputs: docs/notes/notes-audit-r22.md. A refusal run through
//! `common::assert_refused` is run again in Chinese (no English sentence left).

mod common;

const TAG: &str = "audit-r22";

/// Exit `code` with every phrase of `phrases` present (`!phrase`: absent).
fn refused(args: &[&str], code: i32, phrases: &[&str]) -> std::process::Output {
    common::assert_refused(TAG, args, code, phrases)
}

/// A serving body for `/api/v1/estimate`: Llama-3.1-8B under vLLM on `gpu` with `weights`.
fn serving_body(gpu: &str, weights: &str) -> String {
    format!(
        r#"{{"model": "Llama-3.1-8B", "kind": "inference", "inference": {{"engine": "vllm", "weights": {weights}}}, "hardware": {{"gpu": "{gpu}"}}}}"#
    )
}

/// #1: the JSON API refused `"weights": "awq"` ("invalid type: string … expected a weight format
/// table") where `--weights awq` and a workload file take it. The same words now read the same in
/// the body: AWQ keeps its 7.5 floor on a V100, `gptq` loads there, the answer on a T4 is the
/// CLI's, and a word naming no format is refused naming `inference.weights` and the words (en, zh).
#[test]
fn the_api_reads_the_weight_words_the_flag_takes() {
    let s = common::Server::start();
    let url = format!("{}/api/v1/estimate", s.base);
    for w in [r#""awq""#, r#""AWQ""#, r#"" Awq ""#] {
        let (st, v) = common::post(&url, &serving_body("v100", w));
        assert_eq!(st, 400, "{w}: {v}");
        let m = v["error"]["message"].as_str().unwrap_or_default();
        assert!(m.contains("7.5") && m.contains("GPTQ"), "{w}: {m}");
        let (st, v) = common::post(&url, &serving_body("t4", w));
        assert_eq!(st, 200, "{w}: {v}");
        assert!(v.to_string().contains(r#""group":128"#), "{v}");
    }
    for w in [
        r#""gptq""#,
        r#""int4""#,
        r#""INT4-G128""#,
        r#""int8""#,
        r#""fp32""#,
    ] {
        let (st, v) = common::post(&url, &serving_body("v100", w));
        assert_eq!(st, 200, "{w}: {v}");
    }
    // The API's answer is the CLI's for the same words in a workload file.
    let text = "kind = \"inference\"\nmodel = \"Llama-3.1-8B\"\n[inference]\nengine = \"vllm\"\n\
                weights = \"awq\"\n[hardware]\ngpu = \"t4\"\n";
    let f = common::write_temp(TAG, "awq-t4.toml", text);
    let f = f.display().to_string();
    let o = common::run_dated(
        TAG,
        &[
            "estimate",
            "-w",
            &f,
            "--format",
            "json",
            "--no-user-catalog",
        ],
    );
    assert_eq!(o.status.code(), Some(0), "{}", common::stderr(&o));
    let cli: serde_json::Value = serde_json::from_slice(&o.stdout).unwrap();
    let (_, api) = common::post(&url, &serving_body("t4", r#""awq""#));
    assert_eq!(api["estimate"], cli["estimate"]);
    // Words naming no format: the key and the words, in the request's language.
    for w in [r#""int4-awq""#, r#""q4_k""#, r#""""#] {
        let (st, v) = common::post(&url, &serving_body("a100", w));
        assert_eq!(st, 400, "{w}: {v}");
        assert_eq!(v["error"]["field"], "inference.weights", "{v}");
        let m = v["error"]["message"].as_str().unwrap_or_default();
        assert!(
            m.contains("awq, gptq") && !m.contains("invalid type"),
            "{m}"
        );
        let zh = format!("{url}?lang=zh");
        let (st, v) = common::post(&zh, &serving_body("a100", w));
        assert_eq!(st, 400, "{w}: {v}");
        let m = v["error"]["message"].as_str().unwrap_or_default();
        assert!(common::english_sentences(m).is_empty(), "{m}");
    }
}

/// #1: `/api/v1/plan` reads `"serve": {"weights": ["awq"]}` as `[serve] weights = ["awq"]` in a
/// workload file: the same plans (AWQ's floor kept), and an unknown word names `serve.weights`.
#[test]
fn the_api_plans_awq_as_a_workload_file_does() {
    let s = common::Server::start();
    let url = format!("{}/api/v1/plan?top=100", s.base);
    let body = r#"{"model": "Llama-3.1-8B", "serve": {"engine": "vllm", "rate_rps": 1.0, "weights": ["awq"]}, "constraints": {"providers": ["alibaba"]}}"#;
    let (st, api) = common::post(&url, body);
    assert_eq!(st, 200, "{api}");
    let text = "model = \"Llama-3.1-8B\"\n[serve]\nengine = \"vllm\"\nrate_rps = 1.0\n\
                weights = [\"awq\"]\n[constraints]\nproviders = [\"alibaba\"]\n";
    let f = common::write_temp(TAG, "awq-plan.toml", text);
    let f = f.display().to_string();
    let args = [
        "plan",
        "-w",
        &f,
        "--format",
        "json",
        "--top",
        "100",
        "--no-user-catalog",
    ];
    let o = common::run_dated(TAG, &args);
    assert_eq!(o.status.code(), Some(0), "{}", common::stderr(&o));
    let cli: serde_json::Value = serde_json::from_slice(&o.stdout).unwrap();
    assert_eq!(api["outcome"]["plans"], cli["outcome"]["plans"]);
    assert!(!common::plans(&cli).is_empty());
    let bad = r#"{"model": "Llama-3.1-8B", "serve": {"rate_rps": 1.0, "weights": ["int4-awq"]}}"#;
    let (st, v) = common::post(&url, bad);
    assert_eq!(st, 400, "{v}");
    assert_eq!(v["error"]["field"], "serve.weights", "{v}");
}

/// #3: a workload file whose weight word was rewritten lost the line and column of a later parse
/// error in the same file ("invalid type: string …" with no place). The file is now read from its
/// text: the error names its line (en) and 第 N 行 (zh).
#[test]
fn an_error_after_a_weight_word_keeps_its_line() {
    let text = "kind = \"inference\"\nmodel = \"Llama-3.1-8B\"\n[inference]\nengine = \"vllm\"\n\
                weights = \"awq\"\nbatch = \"many\"\n[hardware]\ngpu = \"t4\"\n";
    let f = common::write_temp(TAG, "awq-then-bad.toml", text);
    let f = f.display().to_string();
    refused(&["estimate", "-w", &f], 2, &["line 6", "batch"]);
    let o = common::run(TAG, &["--lang", "zh", "estimate", "-w", &f]);
    assert_eq!(o.status.code(), Some(2));
    assert!(
        common::stderr(&o).contains("第 6 行"),
        "{}",
        common::stderr(&o)
    );
    // The same in `[serve] weights`.
    let text =
        "model = \"Llama-3.1-8B\"\n[serve]\nweights = [\"awq\", \"fp8\"]\nrate_rps = \"x\"\n";
    let f = common::write_temp(TAG, "serve-then-bad.toml", text);
    let f = f.display().to_string();
    refused(&["plan", "-w", &f], 2, &["line 4", "rate_rps"]);
}

/// #2: advice, notes and refusals that name a chip kept its English qualifier under `--lang zh`
/// ("Huawei Ascend 310P (Atlas 300I Duo, per chip)"): the chip reads as `catalog gpus` reads it.
#[test]
fn chip_names_in_notes_and_refusals_read_in_chinese() {
    let args = [
        "--lang",
        "zh",
        "estimate",
        "-m",
        "Qwen2.5-0.5B",
        "--gpu",
        "ascend-310p",
        "--task",
        "lora",
        "--tokens",
        "1e7",
        "--precision",
        "amp_bf16",
    ];
    let o = common::run(TAG, &args);
    let err = common::stderr(&o);
    assert_eq!(o.status.code(), Some(2), "{err}");
    assert!(
        err.contains("每颗芯片") && !err.contains("per chip"),
        "{err}"
    );
    assert!(common::english_sentences(&err).is_empty(), "{err}");
    // The same chip planned: its no-bf16 caveat names it in Chinese.
    let o = common::run_cols(
        TAG,
        "400",
        &[
            "--lang",
            "zh",
            "plan",
            "-m",
            "Qwen2.5-0.5B",
            "--gpu",
            "ascend-310p",
            "--task",
            "lora",
            "--tokens",
            "1e7",
        ],
    );
    let all = common::all_text(&o);
    assert!(!all.contains("per chip"), "{all}");
}

/// #4: `estimate --task qlora` assumed no recomputation where an HF QLoRA script recomputes:
/// PEFT's `prepare_model_for_kbit_training(model, use_gradient_checkpointing=True, …)` turns
/// gradient checkpointing on. Under the `hugging_face` profile it is now full recomputation with a
/// note; `--recompute none` or the file's `recompute` keep the stated choice; LitGPT keeps none.
#[test]
fn qlora_recomputes_by_default_under_hugging_face() {
    let base = [
        "estimate",
        "-m",
        "Llama-3.1-8B",
        "--gpu",
        "a100",
        "--task",
        "qlora",
        "--tokens",
        "1e7",
        "--format",
        "json",
    ];
    let recompute = |extra: &[&str]| {
        let mut args = base.to_vec();
        args.extend_from_slice(extra);
        let o = common::run(TAG, &args);
        assert_eq!(o.status.code(), Some(0), "{}", common::stderr(&o));
        let v: serde_json::Value = serde_json::from_slice(&o.stdout).unwrap();
        let r = v["setup"]["recompute"].clone();
        (r, common::stderr(&o))
    };
    let (r, err) = recompute(&[]);
    assert_eq!(r, "full", "{err}");
    assert!(err.contains("prepare_model_for_kbit_training"), "{err}");
    let (r, err) = recompute(&["--recompute", "none"]);
    assert_eq!(r, "none");
    assert!(!err.contains("prepare_model_for_kbit_training"), "{err}");
    let (r, _) = recompute(&["--profile", "litgpt"]);
    assert_eq!(r, "none");
    // A file that states `recompute` keeps it.
    let text = "model = \"Llama-3.1-8B\"\nkind = \"training\"\n[training]\ntask = \"qlora\"\n\
                recompute = \"none\"\ntokens = 1e7\n[hardware]\ngpu = \"a100\"\n";
    let f = common::write_temp(TAG, "qlora-none.toml", text);
    let f = f.display().to_string();
    let o = common::run(TAG, &["estimate", "-w", &f, "--format", "json"]);
    assert_eq!(o.status.code(), Some(0), "{}", common::stderr(&o));
    let v: serde_json::Value = serde_json::from_slice(&o.stdout).unwrap();
    assert_eq!(v["setup"]["recompute"], "none");
    // The note in Chinese.
    let mut zh = vec!["--lang", "zh"];
    zh.extend_from_slice(&base);
    let o = common::run(TAG, &zh);
    let err = common::stderr(&o);
    assert!(err.contains("梯度检查点"), "{err}");
    assert!(common::english_sentences(&err).is_empty(), "{err}");
}

/// Sweep r22: `--lang ZH` / `--lang En` were refused ("invalid value 'ZH' for '--lang'") where
/// the locale variables are read in any case; the flag now reads any case too, clap's own errors
/// included.
#[test]
fn the_language_flag_reads_any_case() {
    let o = common::run(
        TAG,
        &[
            "--lang",
            "ZH",
            "estimate",
            "-m",
            "Qwen2.5-0.5B",
            "--gpu",
            "a100",
        ],
    );
    assert_eq!(o.status.code(), Some(0), "{}", common::stderr(&o));
    assert!(
        common::stdout(&o).contains("显存"),
        "{}",
        common::stdout(&o)
    );
    let o = common::run(TAG, &["--lang=Zh", "estimate", "--no-such-flag"]);
    assert_eq!(o.status.code(), Some(2));
    assert!(
        common::english_sentences(&common::stderr(&o)).is_empty(),
        "{}",
        common::stderr(&o)
    );
    refused(&["--lang", "xx", "models"], 2, &["--lang", "en", "zh"]);
}

/// Sweep r22: `--seq-len 1000000000` printed "note: … kept at 1000000000 as given" and then
/// refused that very value (`seq_len`, 1–16777216), in estimate and plan. The refusal now comes
/// alone.
#[test]
fn a_sequence_past_every_range_is_refused_without_a_note_keeping_it() {
    for cmd in [
        vec!["estimate", "--gpu", "a100"],
        vec!["plan", "--provider", "alibaba"],
    ] {
        let mut args = cmd.clone();
        args.extend([
            "-m",
            "Llama-3.1-8B",
            "--task",
            "lora",
            "--seq-len",
            "1000000000",
            "--tokens",
            "1e9",
        ]);
        refused(&args, 2, &["`seq_len`", "16777216", "!kept at"]);
    }
}
