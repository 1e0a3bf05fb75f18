//! Audit r17: each test runs the CLI (or the API) as a user does and asserts the property the
//! finding broke. Findings and inputs: docs/notes/notes-audit-r17.md; sweep family `r17`. A refusal run
//! through `common::assert_refused` is run again in Chinese (no English sentence left).

mod common;
use common::write_temp;
use serde_json::Value;

const TAG: &str = "audit-r17";

/// Exit `code` with every phrase of `phrases` present (`!phrase`: absent).
fn refused(args: &[&str], code: i32, phrases: &[&str]) -> std::process::Output {
    common::assert_refused(TAG, args, code, phrases)
}

/// Llama-3.1-8B full fine-tuning on one node of 8 H100 under `framework`, with `extra` keys
/// (training keys, then `[training.parallel]` keys after a `[training.parallel]` line).
fn llama8b(framework: &str, extra: &str) -> String {
    format!(
        "kind = \"training\"\nmodel = \"Llama-3.1-8B\"\n[training]\ntask = \"full_finetune\"\n\
         precision = \"amp_bf16\"\nframework = \"{framework}\"\nmicro_batch = 4\nseq_len = 2048\n\
         recompute = \"full\"\ntokens = 1000000.0\n{extra}\n[hardware]\ngpu = \"h100\"\n\
         gpus_per_node = 8\nnodes = 1\n"
    )
}

/// #1: llm.c's fused classifier exists only inside llm.c, which is data parallel with ZeRO 0/1
/// (train_gpt2.cu @f1e2ace6 takes no pipeline, context or expert degree; llmc/zero.cuh: "Zero
/// Stage2 and Stage3 are not yet supported") and writes its own fused kernels (the megatron
/// profile). Before: PP 2, ZeRO-3, CP 2 and the eager profiles were estimated, and `plan` ranked
/// PP 2 × VP 2 and ZeRO-2/3 layouts first. Now each is refused naming its field.
#[test]
fn the_fused_classifier_takes_only_what_llm_c_runs() {
    for (name, fw, extra, field) in [
        (
            "hf",
            "hugging_face",
            "fused_classifier = true",
            "`framework`",
        ),
        ("litgpt", "litgpt", "fused_classifier = true", "`framework`"),
        (
            "pp",
            "megatron",
            "fused_classifier = true\n[training.parallel]\npp = 2",
            "`parallel.pp`",
        ),
        (
            "zero3",
            "megatron",
            "fused_classifier = true\n[training.parallel]\nzero = 3",
            "`parallel.zero`",
        ),
        (
            "cp",
            "megatron",
            "fused_classifier = true\n[training.parallel]\ncp = 2",
            "`parallel.cp`",
        ),
        (
            "offload",
            "megatron",
            "fused_classifier = true\n[training.parallel]\nzero = 1\noffload_optimizer = true",
            "`parallel.offload_optimizer`",
        ),
    ] {
        let w = write_temp(TAG, &format!("fc-{name}.toml"), &llama8b(fw, extra));
        let w = w.to_str().unwrap();
        refused(
            &["estimate", "-w", w],
            2,
            &[field, "fused_classifier", "llm.c", "!panicked"],
        );
        refused(&["plan", "-w", w], 2, &[field, "fused_classifier"]);
    }
    // ZeRO-1 over data parallelism is llm.c's own layout: estimated.
    let w = write_temp(
        TAG,
        "fc-ok.toml",
        &llama8b(
            "megatron",
            "fused_classifier = true\n[training.parallel]\nzero = 1",
        ),
    );
    refused(&["estimate", "-w", w.to_str().unwrap()], 0, &["ZeRO-1"]);
    // The plan search offers llm.c's layouts only: no PP, no CP, ZeRO 0 or 1.
    let w = write_temp(
        TAG,
        "fc-plan.toml",
        &llama8b("megatron", "fused_classifier = true"),
    );
    let v = common::plan_json(TAG, &["-w", w.to_str().unwrap()]);
    let plans = common::plans(&v);
    assert!(!plans.is_empty(), "{v}");
    for p in plans {
        let par = &p["train"]["setup"]["parallel"];
        assert_eq!(par["pp"], 1, "{par}");
        assert_eq!(par["cp"], 1, "{par}");
        assert!(par["zero"].as_u64().unwrap() <= 1, "{par}");
    }
}

fn serve_72b(tp: &str, weights: &str, engine: &str) -> Vec<String> {
    [
        "estimate",
        "-m",
        "Qwen2.5-72B",
        "--task",
        "inference",
        "--gpu",
        "A100",
        "--gpus-per-node",
        "8",
        "--tp",
        tp,
        "--weights",
        weights,
        "--engine",
        engine,
    ]
    .iter()
    .map(|s| s.to_string())
    .collect()
}

fn args(v: &[String]) -> Vec<&str> {
    v.iter().map(String::as_str).collect()
}

/// #2: the int4 rule is applied per engine. The group must divide each rank's slice under every
/// engine (TensorRT-LLM's quantize.py fails on the split: NVIDIA/TensorRT-LLM#1636, #2445), but
/// Marlin's 128-wide k tile is vLLM's and SGLang's kernel only. Before: group 64 at TP 2 on
/// Qwen2.5-72B (14784 = 64 × 231, not a multiple of 128) was refused for TensorRT-LLM too,
/// quoting vLLM.
#[test]
fn the_int4_rule_is_the_engines_own() {
    for engine in ["vllm", "sglang"] {
        refused(
            &args(&serve_72b("2", "int4-g64", engine)),
            2,
            &["`tp`", "min_thread_k = 128", "14784"],
        );
    }
    refused(
        &args(&serve_72b("2", "int4-g64", "sglang")),
        2,
        &["SGLang's int4 loaders"],
    );
    for engine in ["trtllm", "static"] {
        refused(&args(&serve_72b("2", "int4-g64", engine)), 0, &["int4-g64"]);
    }
    // Group 128 does not divide 14784 (115.5 groups): every engine refuses, each in its words.
    refused(
        &args(&serve_72b("2", "int4-g128", "trtllm")),
        2,
        &["`tp`", "TensorRT-LLM", "#1636", "!min_thread_k", "!vLLM"],
    );
    refused(
        &args(&serve_72b("2", "int4-g128", "static")),
        2,
        &["`tp`", "no engine loads", "!min_thread_k"],
    );
}

/// #3: a step that cannot be timed (no sourced peak FLOP/s for the chip) gave its reason in
/// English inside Chinese output (`estimate`) and inside `accuracy`'s error, and a case that
/// states its tokens was "not computable: no token count". Now both languages, and the reason
/// is the step's.
#[test]
fn an_untimed_step_says_why_in_the_users_language() {
    let o = common::run(
        TAG,
        &[
            "--lang",
            "zh",
            "estimate",
            "-m",
            "Qwen2.5-0.5B",
            "--task",
            "lora",
            "--gpu",
            "mi210",
        ],
    );
    let text = common::stdout(&o);
    assert!(text.contains("时间：未估算：该芯片"), "{text}");
    assert!(!text.contains("no sourced peak"), "{text}");
    let dir = common::scratch().join("audit-r17-cases");
    std::fs::create_dir_all(&dir).unwrap();
    let case = std::fs::read_to_string(concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/../../cases/t-llmc-gpt2-124m-gpu-hours.toml"
    ))
    .unwrap()
    .replace("gpu = \"a100-80g\"", "gpu = \"ascend-310\"")
    .replace("\"amp_bf16\"", "\"amp_fp16\"")
    .replace("attention = \"flash\"", "attention = \"eager\"");
    std::fs::write(dir.join("x.toml"), case).unwrap();
    let d = dir.to_str().unwrap();
    let o = refused(
        &["accuracy", "--cases", d],
        2,
        &[
            "not computable",
            "no sourced peak FLOP/s",
            "!no token count",
        ],
    );
    drop(o);
    let o = common::run(TAG, &["--lang", "zh", "accuracy", "--cases", d]);
    let err = common::stderr(&o);
    let _ = std::fs::remove_dir_all(&dir);
    assert_eq!(o.status.code(), Some(2), "{err}");
    assert!(err.contains("无法计算：该芯片"), "{err}");
    assert!(common::english_sentences(&err).is_empty(), "{err}");
}

/// #3: the API's JSON errors whose serde_json text has no " at line" suffix left ("number out of
/// range", "EOF while parsing a value") stayed English in a Chinese answer.
#[test]
fn the_apis_json_errors_answer_in_the_requests_language() {
    let s = common::Server::start();
    let url = format!("{}/api/v1/estimate?lang=zh", s.base);
    for (body, zh) in [
        (
            r#"{"model": "Qwen2.5-7B", "training": {"micro_batch": 1e309}}"#,
            "数值超出范围",
        ),
        (r#"{"model":"#, "解析值时文件意外结束"),
        (r#"{"model": "Qwen2.5-7B" "kind": 1}"#, "应为 `,` 或 `}`"),
        (r#"{"model": tru}"#, "应为 true、false 或 null"),
    ] {
        let (st, v) = common::post(&url, body);
        assert_eq!(st, 400, "{v}");
        let m = v["error"]["message"].as_str().unwrap();
        assert!(m.contains(zh), "{body}: {m}");
        assert!(common::english_sentences(m).is_empty(), "{body}: {m}");
    }
}

/// Qwen2.5-3B (36 layers) full fine-tuning under `hugging_face` at PP 8 on one node of H100s,
/// with `extra` parallel keys.
fn qwen3b_pp8(extra: &str) -> String {
    format!(
        "model = \"Qwen2.5-3B\"\nkind = \"training\"\n[training]\ntask = \"full_finetune\"\n\
         precision = \"amp_bf16\"\nframework = \"hugging_face\"\ntokens = 1e8\n\
         [training.parallel]\npp = 8\n{extra}\n[hardware]\ngpu = \"h100\"\ngpus_per_node = 8\n"
    )
}

/// #4: another stack's pp that does not divide the layers was sized ⌈L/pp⌉ on every stage
/// (5/5/5 for 36 over 8: 40 layers). Now refused naming `parallel.pp`, the pp values that
/// divide and torchtitan's default split (4 | 5 × 4, 4 × 2 | 4), which is estimated once stated
/// and reports the 36 layers.
#[test]
fn another_stacks_uneven_pp_states_its_split() {
    let w = write_temp(TAG, "pp8.toml", &qwen3b_pp8(""));
    let w = w.to_str().unwrap();
    refused(
        &["estimate", "-w", w],
        2,
        &[
            "`parallel.pp` = 8",
            "2, 3, 4, 6, 9, 12, 18, 36",
            "first_stage_layers = 4",
            "last_stage_layers = 4",
            "torchtitan",
        ],
    );
    refused(&["plan", "-w", w], 2, &["`parallel.pp` = 8"]);
    let w = write_temp(
        TAG,
        "pp8-split.toml",
        &qwen3b_pp8("first_stage_layers = 4\nlast_stage_layers = 4"),
    );
    let o = common::run(
        TAG,
        &["estimate", "-w", w.to_str().unwrap(), "--format", "json"],
    );
    assert!(
        matches!(o.status.code(), Some(0 | 3)),
        "{}",
        common::all_text(&o)
    );
    let v: Value = serde_json::from_slice(&o.stdout).unwrap();
    let layers = &v["estimate"]["memory"]["pipeline"]["layers"];
    assert_eq!(layers["first"], 4, "{layers}");
    assert_eq!(layers["last"], 4, "{layers}");
    assert_eq!(layers["middle"], 5, "{layers}");
    assert_eq!(layers["total"], 36, "{layers}");
}

/// #6: `optimizer_foreach_buffers = 2` (PyTorch 2.0's foreach AdamW) beside the default fused
/// AdamW changed nothing and was accepted. Now refused naming the key and `optimizer_foreach`.
#[test]
fn foreach_buffers_need_the_foreach_step() {
    let base = "kind = \"training\"\nmodel = \"Qwen2.5-7B\"\n[training]\ntask = \"full\"\n\
                optimizer_foreach_buffers = 2\n";
    let w = write_temp(TAG, "foreach.toml", base);
    refused(
        &["estimate", "-w", w.to_str().unwrap(), "--gpu", "A100"],
        2,
        &[
            "`optimizer_foreach_buffers` = 2",
            "optimizer_foreach = true",
        ],
    );
    let w = write_temp(
        TAG,
        "foreach-on.toml",
        &format!("{base}optimizer_foreach = true\n"),
    );
    let o = common::run(
        TAG,
        &["estimate", "-w", w.to_str().unwrap(), "--gpu", "A100"],
    );
    assert!(
        matches!(o.status.code(), Some(0 | 3)),
        "{}",
        common::all_text(&o)
    );
}
