//! The CLI as a user runs it: exit codes, JSON shape, error messages.

mod common;
use std::path::PathBuf;
use std::process::{Command, Output};

fn gpuplan(args: &[&str]) -> Output {
    // An empty config directory: the user's own catalogs never leak into tests.
    common::run_unsized("cli-cfg", args)
}

fn tmp(name: &str, content: &str) -> PathBuf {
    let dir = common::scratch().join(format!("gpuplan-cli-{}-{name}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let p = dir.join(name);
    std::fs::write(&p, content).unwrap();
    p
}

#[test]
fn estimate_json_has_schema_and_breakdown() {
    let o = gpuplan(&[
        "estimate",
        "-m",
        "Qwen2.5-7B",
        "--task",
        "lora",
        "--gpu",
        "A100",
        "--seq-len",
        "2048",
        "--recompute",
        "full",
        "--tokens",
        "1e8",
        "--format",
        "json",
    ]);
    assert_eq!(
        o.status.code(),
        Some(0),
        "{}",
        String::from_utf8_lossy(&o.stderr)
    );
    let v: serde_json::Value = serde_json::from_slice(&o.stdout).unwrap();
    assert_eq!(v["schema_version"], 1);
    assert_eq!(v["kind"], "training_estimate");
    let items = v["estimate"]["memory"]["items"].as_array().unwrap();
    assert!(items.iter().any(|i| i["name"] == "logits + loss"));
    assert!(v["estimate"]["totals"]["gpu_hours"].as_f64().unwrap() > 0.0);
}

#[test]
fn tp_that_does_not_divide_heads_is_a_usage_error() {
    let o = gpuplan(&[
        "estimate",
        "-m",
        "Qwen2.5-7B",
        "--gpu",
        "A100",
        "--gpus-per-node",
        "8",
        "--tp",
        "8",
    ]);
    assert_eq!(o.status.code(), Some(2));
    let err = String::from_utf8_lossy(&o.stderr);
    assert!(err.contains("parallel.tp") && err.contains("28"), "{err}");
}

#[test]
fn a_job_that_does_not_fit_exits_3_and_says_by_how_much() {
    let o = gpuplan(&[
        "estimate",
        "-m",
        "Llama-3.1-8B",
        "--task",
        "full",
        "--gpu",
        "A100",
        "--seq-len",
        "4096",
    ]);
    assert_eq!(o.status.code(), Some(3));
    assert!(String::from_utf8_lossy(&o.stdout).contains("DOES NOT FIT"));
}

#[test]
fn unknown_model_suggests_presets() {
    let o = gpuplan(&["estimate", "-m", "llama-3.1-8"]);
    assert_eq!(o.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&o.stderr).contains("Llama-3.1-8B"));
}

#[test]
fn config_json_import_warns_on_unknown_type_and_names_missing_fields() {
    let good = tmp(
        "config.json",
        r#"{"model_type":"newfamily","hidden_size":2048,"num_hidden_layers":16,"num_attention_heads":16,
            "num_key_value_heads":4,"intermediate_size":8192,"vocab_size":64000,"max_position_embeddings":8192}"#,
    );
    let o = gpuplan(&[
        "models",
        "show",
        "--config",
        good.parent().unwrap().to_str().unwrap(),
    ]);
    assert_eq!(
        o.status.code(),
        Some(0),
        "{}",
        String::from_utf8_lossy(&o.stderr)
    );
    assert!(String::from_utf8_lossy(&o.stderr).contains("newfamily"));
    let bad = tmp("bad.json", r#"{"model_type":"llama","hidden_size":2048}"#);
    let o = gpuplan(&["models", "show", "--config", bad.to_str().unwrap()]);
    assert_eq!(o.status.code(), Some(2));
    let err = String::from_utf8_lossy(&o.stderr);
    assert!(
        err.contains("num_hidden_layers") && err.contains("vocab_size"),
        "{err}"
    );
}

#[test]
fn workload_file_typo_names_the_key_and_flags_override() {
    let bad = tmp(
        "bad.toml",
        "model = \"Llama-3.1-8B\"\n[training]\nsequence_length = 4096\n",
    );
    let o = gpuplan(&["estimate", "-w", bad.to_str().unwrap()]);
    assert_eq!(o.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&o.stderr).contains("sequence_length"));
    let good = tmp(
        "good.toml",
        "model = \"Llama-3.1-8B\"\nkind = \"training\"\n[training]\ntask = \"qlora\"\nseq_len = 2048\nrecompute = \"full\"\n[hardware]\ngpu = \"l20\"\n",
    );
    let o = gpuplan(&[
        "estimate",
        "-w",
        good.to_str().unwrap(),
        "--seq-len",
        "1024",
        "--format",
        "json",
    ]);
    assert_eq!(
        o.status.code(),
        Some(0),
        "{}",
        String::from_utf8_lossy(&o.stderr)
    );
    let v: serde_json::Value = serde_json::from_slice(&o.stdout).unwrap();
    assert_eq!(v["setup"]["seq_len"], 1024);
    assert_eq!(v["setup"]["task"], "qlora");
}

#[test]
fn inference_reports_kv_capacity() {
    let o = gpuplan(&[
        "estimate",
        "-m",
        "Llama-3.1-8B",
        "--task",
        "inference",
        "--gpu",
        "rtx-3090",
        "--max-model-len",
        "20000",
        // The log is vLLM V0 without chunked prefill: its profile run was max_model_len tokens.
        "--max-num-batched-tokens",
        "20000",
        // Its log line is v0.6.4's, which charges all memory outside torch (0.35 GiB there).
        "--engine-version",
        "0.6.4",
        "--format",
        "json",
    ]);
    assert_eq!(
        o.status.code(),
        Some(0),
        "{}",
        String::from_utf8_lossy(&o.stderr)
    );
    let v: serde_json::Value = serde_json::from_slice(&o.stdout).unwrap();
    let blocks = v["estimate"]["memory"]["blocks"].as_f64().unwrap();
    assert!((blocks - 1952.0).abs() / 1952.0 < 0.05, "{blocks}");
}

#[test]
fn set_overrides_a_constant_and_rejects_unknown_names() {
    let o = gpuplan(&[
        "estimate",
        "-m",
        "Qwen2.5-0.5B",
        "--gpu",
        "t4",
        "--set",
        "fragmentaton=0.1",
    ]);
    assert_eq!(o.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&o.stderr).contains("fragmentation"));
}

#[test]
fn estimate_on_a_catalog_instance() {
    let o = gpuplan(&[
        "estimate",
        "-m",
        "Llama-3.1-8B",
        "--task",
        "full",
        "--instance",
        "ecs.gn7e-c16g1.32xlarge",
        "--zero",
        "3",
        "--seq-len",
        "2048",
        "--format",
        "json",
    ]);
    assert_eq!(
        o.status.code(),
        Some(0),
        "{}",
        String::from_utf8_lossy(&o.stderr)
    );
    let v: serde_json::Value = serde_json::from_slice(&o.stdout).unwrap();
    assert_eq!(v["hardware"]["gpus_per_node"], 8);
    assert_eq!(v["hardware"]["gpu"]["id"], "a100-80g");
    let o = gpuplan(&[
        "estimate",
        "-m",
        "Llama-3.1-8B",
        "--instance",
        "ecs.gn8i-c16g1.4xlarge",
    ]);
    assert_eq!(o.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&o.stderr).contains("gn8is"));
}

/// Issue 8 item 10: `estimate --gpu` sees accelerators defined in a `--catalog` file.
#[test]
fn estimate_gpu_from_a_user_catalog() {
    let cat = tmp(
        "gpu-cat.toml",
        r#"
[[gpu]]
id = "my-card-48g"
name = "My Card 48GB"
vendor = "nvidia"
memory_gib = 48
memory_bandwidth_gbs = 864
tflops = { fp16 = 181, bf16 = 181 }
intra_link = "pcie4"
intra_link_gbs = 32
stack = "cuda"
source = "test fixture"
as_of = "2026-12"
confidence = "unverified"
"#,
    );
    let o = gpuplan(&[
        "--catalog",
        cat.to_str().unwrap(),
        "estimate",
        "-m",
        "Qwen2.5-7B",
        "--task",
        "lora",
        "--gpu",
        "my-card-48g",
        "--tokens",
        "1e7",
    ]);
    let err = String::from_utf8_lossy(&o.stderr);
    assert!(
        matches!(o.status.code(), Some(0) | Some(3)),
        "exit {:?}: {err}",
        o.status.code()
    );
    assert!(
        String::from_utf8_lossy(&o.stdout).contains("My Card"),
        "{err}"
    );
}

#[test]
fn bf16_on_a_chip_without_it_is_rejected_or_switched() {
    let bin = env!("CARGO_BIN_EXE_gpuplan");
    let base = [
        "estimate",
        "-m",
        "Qwen2.5-0.5B",
        "--task",
        "full",
        "--gpu",
        "t4",
    ];
    let o = std::process::Command::new(bin)
        .args(base)
        .args(["--precision", "amp_bf16"])
        .output()
        .unwrap();
    assert_eq!(o.status.code(), Some(2));
    let err = String::from_utf8_lossy(&o.stderr);
    assert!(
        err.contains("`precision`") && err.contains("Turing"),
        "{err}"
    );
    // Without the flag the estimate switches to fp16 AMP and says so (in words, issue 13).
    let o = std::process::Command::new(bin)
        .args(base)
        .args(["--lang", "en"])
        .output()
        .unwrap();
    let out = String::from_utf8_lossy(&o.stdout);
    assert!(
        out.contains("fp16 mixed precision") && out.contains("memory-efficient attention"),
        "{out}"
    );
    assert!(
        !out.contains("AmpFp16") && !out.contains("MemEfficient"),
        "{out}"
    );
    assert!(String::from_utf8_lossy(&o.stderr).contains("no bf16"));
}

/// Run gpuplan through `sh -c` with the given redirections; returns (exit code, stderr).
#[cfg(unix)]
fn gpuplan_sh(redirect: &str, args: &str) -> (i32, String) {
    let cfg = common::scratch().join(format!("gpuplan-cli-cfg-{}", std::process::id()));
    let o = Command::new("sh")
        .arg("-c")
        .arg(format!("\"$0\" {args} {redirect}"))
        .arg(env!("CARGO_BIN_EXE_gpuplan"))
        .env("GPUPLAN_CONFIG_DIR", cfg)
        .output()
        .unwrap();
    (
        o.status.code().unwrap_or(-1),
        String::from_utf8_lossy(&o.stderr).to_string(),
    )
}

#[cfg(unix)]
#[test]
fn a_closed_stderr_never_panics() {
    // An error and a warning with stderr closed: exit 2 (bad input), not 101 (panic).
    let (code, _) = gpuplan_sh("2>&-", "plan -m NoSuchModel");
    assert_eq!(code, 2);
    let (code, _) = gpuplan_sh("2>&- >/dev/null", "models");
    assert_eq!(code, 0);
}

#[cfg(target_os = "linux")]
#[test]
fn a_failed_stdout_write_is_exit_5_and_a_closed_pipe_is_exit_0() {
    let (code, err) = gpuplan_sh(">/dev/full", "models");
    assert_eq!(code, 5, "{err}");
    assert!(err.contains("cannot write output"), "{err}");
    // The reader goes away before gpuplan writes: a quiet exit 0, like `| head`.
    let (code, err) = gpuplan_sh(
        "| (exec 0<&-; sleep 0)",
        "plan -m Qwen2.5-7B --task lora --tokens 1e8",
    );
    assert!(code == 0, "{code} {err}");
    assert!(!err.contains("panicked"), "{err}");
}

#[test]
fn json_error_object_matches_the_documented_shape() {
    let o = gpuplan(&[
        "plan",
        "-m",
        "Qwen2.5-7B",
        "--max-nodes",
        "100000",
        "--format",
        "json",
    ]);
    assert_eq!(o.status.code(), Some(2));
    let v: serde_json::Value = serde_json::from_slice(&o.stdout).unwrap();
    assert_eq!(v["schema_version"], 1);
    assert_eq!(v["kind"], "error");
    assert_eq!(v["error"]["code"], 2);
    assert_eq!(v["error"]["kind"], "bad_input");
    assert_eq!(v["error"]["field"], "max_nodes");
    assert!(v["error"]["message"].as_str().unwrap().contains("4096"));
    // The human message still goes to stderr.
    assert!(String::from_utf8_lossy(&o.stderr).contains("max_nodes"));
}

/// A learned position table bounds the sequence: GPT-2 at an explicit 2048 is bad input; the
/// default is shortened to the table (BERT 512, ViT 197) and said so.
#[test]
fn seq_len_fits_learned_position_tables() {
    let o = gpuplan(&[
        "estimate",
        "-m",
        "GPT-2",
        "--task",
        "full",
        "--gpu",
        "a10",
        "--seq-len",
        "2048",
    ]);
    assert_eq!(o.status.code(), Some(2));
    let err = String::from_utf8_lossy(&o.stderr);
    assert!(err.contains("seq_len") && err.contains("1024"), "{err}");
    for (model, n) in [("BERT-base-uncased", "512"), ("ViT-L/16", "197")] {
        let o = gpuplan(&[
            "estimate",
            "-m",
            model,
            "--task",
            "full",
            "--gpu",
            "a10",
            "--samples",
            "1e5",
        ]);
        let err = String::from_utf8_lossy(&o.stderr);
        assert!(err.contains(&format!("seq_len {n}")), "{model}: {err}");
    }
}

/// Serving an encoder with the default prompt (1000 + 300 tokens) fits the prompt to the model
/// instead of failing: BERT reads 512 tokens, one forward per request.
#[test]
fn default_prompt_fits_the_model_context() {
    let o = gpuplan(&[
        "plan",
        "-m",
        "BERT-base-uncased",
        "--task",
        "inference",
        "--rate",
        "50",
    ]);
    assert_eq!(
        o.status.code(),
        Some(0),
        "{}",
        String::from_utf8_lossy(&o.stderr)
    );
    assert!(String::from_utf8_lossy(&o.stderr).contains("512 input tokens"));
    // An explicit prompt beyond the context is still bad input.
    let o = gpuplan(&[
        "plan",
        "-m",
        "BERT-base-uncased",
        "--task",
        "inference",
        "--rate",
        "50",
        "--input-tokens",
        "1000",
    ]);
    assert_eq!(o.status.code(), Some(2));
}

/// A serving estimate that does not fit reports a KV shortfall, never a negative pool or any other
/// negative number in its JSON.
#[test]
fn serving_estimate_json_has_no_negative_numbers() {
    let o = gpuplan(&[
        "estimate",
        "-m",
        "Llama-3.1-70B",
        "--task",
        "inference",
        "--gpu",
        "a10",
        "--format",
        "json",
    ]);
    assert_eq!(o.status.code(), Some(3));
    let v: serde_json::Value = serde_json::from_slice(&o.stdout).unwrap();
    fn walk(v: &serde_json::Value, path: &str, bad: &mut Vec<String>) {
        match v {
            serde_json::Value::Number(n) if n.as_f64().is_some_and(|x| x < 0.0) => {
                bad.push(format!("{path} = {n}"))
            }
            serde_json::Value::Array(a) => {
                for (i, x) in a.iter().enumerate() {
                    walk(x, &format!("{path}[{i}]"), bad);
                }
            }
            serde_json::Value::Object(o) => {
                for (k, x) in o {
                    walk(x, &format!("{path}.{k}"), bad);
                }
            }
            _ => {}
        }
    }
    let mut bad = Vec::new();
    walk(&v, "$", &mut bad);
    assert!(bad.is_empty(), "{bad:?}");
    assert!(v["estimate"]["memory"]["kv_shortfall"].as_f64().unwrap() > 0.0);
}

/// Issue 11: `estimate --solve` speaks the user's language (catalog messages, en + zh), its
/// errors too; the JSON answer keeps the English explanation.
#[test]
fn solve_answers_in_both_languages() {
    let args = [
        "estimate",
        "--task",
        "inference",
        "-m",
        "Llama-3.1-8B",
        "--gpu",
        "a100-80g",
        "--solve",
        "max-throughput",
        "--tpot",
        "0.02",
    ];
    let en = gpuplan(&args);
    assert_eq!(en.status.code(), Some(0));
    let en = String::from_utf8_lossy(&en.stdout).to_string();
    assert!(
        en.contains("binding constraint") && en.contains("TPOT target"),
        "{en}"
    );
    let mut zh_args = vec!["--lang", "zh"];
    zh_args.extend_from_slice(&args);
    let zh = gpuplan(&zh_args);
    assert_eq!(zh.status.code(), Some(0));
    let zh = String::from_utf8_lossy(&zh.stdout).to_string();
    assert!(zh.contains("约束条件") && zh.contains("原因"), "{zh}");
    for word in [
        "binding",
        "quantity",
        "concurrent",
        "sequences",
        "evaluations",
        "within",
    ] {
        assert!(
            !zh.contains(word),
            "English `{word}` in the zh answer:\n{zh}"
        );
    }
    // The missing target is bad input (exit 2), named in the user's language.
    let o = gpuplan(&[
        "--lang",
        "zh",
        "estimate",
        "--task",
        "inference",
        "-m",
        "Llama-3.1-8B",
        "--gpu",
        "a100-80g",
        "--solve",
        "max-throughput",
    ]);
    assert_eq!(o.status.code(), Some(2));
    let err = String::from_utf8_lossy(&o.stderr);
    assert!(err.contains("--tpot") && err.contains("需要"), "{err}");
}

/// Issue 11: an unreachable `--tpot` is a constraint that cannot be met (exit 4, as `plan` with
/// no plan), not "does not fit in memory" (exit 3, README's exit codes); a model that leaves no
/// KV pool still exits 3.
#[test]
fn solve_exit_codes_separate_an_unmet_target_from_memory() {
    let solve = |model: &str, gpu: &str, tpot: &str| {
        gpuplan(&[
            "estimate",
            "--task",
            "inference",
            "-m",
            model,
            "--gpu",
            gpu,
            "--solve",
            "max-throughput",
            "--tpot",
            tpot,
            "--format",
            "json",
        ])
    };
    let o = solve("Llama-3.1-8B", "a100-80g", "0.0001");
    assert_eq!(
        o.status.code(),
        Some(4),
        "{}",
        String::from_utf8_lossy(&o.stderr)
    );
    let v: serde_json::Value = serde_json::from_slice(&o.stdout).unwrap();
    assert_eq!(v["answer"]["binding"], "tpot_target");
    assert_eq!(v["answer"]["batch"], 0);
    let o = solve("Llama-3.1-8B", "a100-80g", "0.05");
    assert_eq!(o.status.code(), Some(0));
    let o = solve("Llama-3.1-70B", "t4", "0.05");
    assert_eq!(
        o.status.code(),
        Some(3),
        "{}",
        String::from_utf8_lossy(&o.stdout)
    );
}

/// Issue 10's interface: `--global-batch` sets the accumulation in `estimate` (or names the
/// divisor), the JSON reports TFLOP/s in both conventions and every collective's effective
/// bandwidth and overlapped time, and the options are flags.
#[test]
fn estimate_takes_the_global_batch_and_reports_collectives() {
    let base = [
        "estimate",
        "-m",
        "Llama-2-13B",
        "--task",
        "pretrain",
        "--gpu",
        "h100-sxm",
        "--gpus-per-node",
        "8",
        "--nodes",
        "2",
        "--tp",
        "4",
        "--pp",
        "2",
        "--virtual-stages",
        "2",
        "--tp-comm-overlap",
        "true",
        "--overlap-grad-reduce",
        "true",
        "--recompute",
        "full",
    ];
    let mut args = base.to_vec();
    args.extend(["--global-batch", "64", "--format", "json"]);
    let o = gpuplan(&args);
    let v: serde_json::Value = serde_json::from_slice(&o.stdout).unwrap();
    // 16 GPUs / (TP 4 × PP 2) = DP 2; 64 sequences of micro-batch 1 → 32 micro-batches.
    assert_eq!(v["setup"]["grad_accum"], 32, "{v}");
    let st = &v["estimate"]["step"];
    let (model, hw) = (
        st["model_tflops_per_gpu"].as_f64().unwrap(),
        st["hardware_tflops_per_gpu"].as_f64().unwrap(),
    );
    assert!(
        model > 0.0 && hw > model,
        "full recompute adds hardware FLOPs"
    );
    let cols = st["collectives"].as_array().unwrap();
    let tp = cols.iter().find(|c| c["kind"] == "tp").unwrap();
    assert!(tp["effective_bandwidth"].as_f64().unwrap() > 0.0);
    assert!(tp["overlapped"].as_f64().unwrap() > 0.0);
    assert!(tp["overlapped"].as_f64().unwrap() <= tp["total"].as_f64().unwrap());
    // A global batch the data-parallel size does not divide: exit 2 naming the field.
    let mut bad = base.to_vec();
    bad.extend(["--global-batch", "63"]);
    let o = gpuplan(&bad);
    assert_eq!(o.status.code(), Some(2));
    let err = String::from_utf8_lossy(&o.stderr);
    assert!(err.contains("global_batch"), "{err}");
    // The table names the schedule.
    let o = gpuplan(&base);
    assert!(String::from_utf8_lossy(&o.stdout).contains("VP 2"));
}

/// Round 7 export task #5: the pipeline entry of step.collectives reports the bytes one device
/// sends per step and the link bandwidth that times them (it reported 0 and 0). Llama-2-13B
/// (h 5120) at TP 4 × PP 2 on 8-GPU nodes: a stage boundary is inside the node (NVLink). By hand:
/// each micro-batch sends its activations forward and their gradients back, b·s·h/tp × 2 bytes
/// each way, across v = 2 interleaved chunks, for all 32 micro-batches.
#[test]
fn the_pipeline_entry_reports_its_bytes_and_bandwidth() {
    let o = gpuplan(&[
        "estimate",
        "-m",
        "Llama-2-13B",
        "--task",
        "pretrain",
        "--gpu",
        "h100-sxm",
        "--gpus-per-node",
        "8",
        "--nodes",
        "2",
        "--tp",
        "4",
        "--pp",
        "2",
        "--virtual-stages",
        "2",
        "--global-batch",
        "64",
        "--format",
        "json",
    ]);
    let v: serde_json::Value = serde_json::from_slice(&o.stdout).unwrap();
    let (seq, mb, accum) = (
        v["setup"]["seq_len"].as_f64().unwrap(),
        v["setup"]["micro_batch"].as_f64().unwrap(),
        v["setup"]["grad_accum"].as_f64().unwrap(),
    );
    let cols = v["estimate"]["step"]["collectives"].as_array().unwrap();
    let pp = cols.iter().find(|c| c["kind"] == "pp").unwrap();
    let want = 2.0 * (mb * seq * 5120.0 * 2.0 / 4.0) * accum * 2.0;
    let bytes = pp["bytes_per_step"].as_f64().unwrap();
    assert!((bytes - want).abs() < 1e-9 * want, "{bytes} {want}: {pp}");
    let bw = pp["effective_bandwidth"].as_f64().unwrap();
    let tp = cols.iter().find(|c| c["kind"] == "tp").unwrap();
    // Inside the node: the same NVLink rate the TP entry uses.
    assert_eq!(bw, tp["effective_bandwidth"].as_f64().unwrap(), "{pp}");
    let total = pp["total"].as_f64().unwrap();
    assert!((total - bytes / bw).abs() < 1e-9 * total, "{pp}");
    assert!(
        pp["link"].as_str().unwrap().contains("inside the node"),
        "{pp}"
    );
}

/// Issue 11 item 7: a defaulted max_model_len is stated as what the workload needs; a given one
/// is not called a default.
#[test]
fn default_max_model_len_is_stated() {
    let base = [
        "estimate",
        "--task",
        "inference",
        "-m",
        "Llama-3.1-8B",
        "--gpu",
        "a100-80g",
        "--input-tokens",
        "1000",
        "--output-tokens",
        "300",
    ];
    let o = gpuplan(&base);
    assert_eq!(o.status.code(), Some(0));
    let text = String::from_utf8_lossy(&o.stdout).to_string();
    assert!(
        text.contains("max_model_len 1312 (default)") && text.contains("1000 + 300"),
        "{text}"
    );
    let mut given = base.to_vec();
    given.extend_from_slice(&["--max-model-len", "4096"]);
    let o = gpuplan(&given);
    let text = String::from_utf8_lossy(&o.stdout).to_string();
    assert!(
        text.contains("max_model_len 4096") && !text.contains("(default)"),
        "{text}"
    );
}

/// Issue 11 item 6: a serving plan on T4 (no bf16) runs fp16 weights and says so.
#[test]
fn serving_plans_on_t4_are_fp16_and_say_so() {
    let o = gpuplan(&[
        "plan",
        "-m",
        "BERT-base-uncased",
        "--task",
        "inference",
        "--rate",
        "200",
        "--input-tokens",
        "128",
        "--output-tokens",
        "1",
        "--gpu",
        "t4",
        "--top",
        "1",
        "--format",
        "json",
    ]);
    assert_eq!(o.status.code(), Some(0));
    let v: serde_json::Value = serde_json::from_slice(&o.stdout).unwrap();
    let p = &v["outcome"]["plans"][0];
    assert_eq!(p["serve"]["weights"]["format"], "fp16");
    assert!(
        p["caveats"]
            .as_array()
            .unwrap()
            .iter()
            .any(|c| c.as_str().unwrap_or("").contains("no bf16")),
        "{}",
        p["caveats"]
    );
}

/// `gpuplan help plan --lang zh` (clap's help subcommand takes no flags): the language flag is
/// honoured wherever it stands, and a `help` that is a flag's value is left alone.
#[test]
fn help_subcommand_takes_the_language_flag() {
    for args in [
        &["help", "plan", "--lang", "zh"][..],
        &["help", "--lang=zh", "plan"][..],
        &["--lang", "zh", "help", "plan"][..],
    ] {
        let o = gpuplan(args);
        assert!(
            o.status.success(),
            "{args:?}: {}",
            String::from_utf8_lossy(&o.stderr)
        );
        let out = String::from_utf8_lossy(&o.stdout);
        assert!(out.contains("用法：gpuplan plan"), "{args:?}: {out}");
    }
    let o = gpuplan(&["plan", "--model", "help", "--lang", "en"]);
    assert_eq!(o.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&o.stderr).contains("help"));
}

/// A context over a core error is shown, and the error once: `case PATH: invalid `metric` …`.
#[test]
fn error_context_is_kept_and_the_cause_shown_once() {
    let dir = common::scratch().join(format!("gpuplan-cli-badcase-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let case = std::fs::read_to_string(
        std::path::Path::new(env!("CARGO_MANIFEST_DIR"))
            .join("../../cases/llama1-7b-gpu-hours.toml"),
    )
    .unwrap()
    .replace("metric = \"gpu_hours\"", "metric = \"bogus\"");
    std::fs::write(dir.join("bad.toml"), case).unwrap();
    for (lang, ctx) in [("en", "case "), ("zh", "案例 ")] {
        let o = gpuplan(&["accuracy", "--cases", dir.to_str().unwrap(), "--lang", lang]);
        assert_eq!(o.status.code(), Some(2));
        let err = String::from_utf8_lossy(&o.stderr);
        assert!(err.contains(ctx), "{err}");
        assert_eq!(err.matches("bogus").count(), 1, "{err}");
    }
}

/// LitGPT PEFT in its default bf16-mixed gets the bf16-true advice; in bf16-true it does not.
#[test]
fn litgpt_mixed_precision_is_advised_against() {
    let run = |precision: &[&str]| {
        let mut args = vec![
            "plan",
            "-m",
            "Llama-3.1-8B",
            "--task",
            "lora",
            "--profile",
            "litgpt",
            "--seq-len",
            "512",
            "--tokens",
            "1e8",
            "--format",
            "json",
            "--top",
            "3",
        ];
        args.extend_from_slice(precision);
        let o = gpuplan(&args);
        assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
        String::from_utf8_lossy(&o.stdout).contains("\"litgpt-bf16-mixed\"")
    };
    assert!(
        run(&[]),
        "bf16-mixed (the default amp_bf16) is advised against"
    );
    assert!(
        !run(&["--precision", "pure_bf16"]),
        "bf16-true needs no such advice"
    );
}

/// `estimate --profile litgpt` on a layout LitGPT's scripts do not run (they shard and
/// checkpoint by device count) says so and names the layout they run; that layout gets no note.
#[test]
fn litgpt_estimate_names_the_layout_litgpt_runs() {
    let run = |extra: &[&str]| {
        let mut args = vec![
            "estimate",
            "-m",
            "Llama-3.1-8B",
            "--task",
            "lora",
            "--profile",
            "litgpt",
            "--gpu",
            "a100-80g",
        ];
        args.extend_from_slice(extra);
        let o = gpuplan(&args);
        // 0: fits, 3: estimated but does not fit (bf16-mixed keeps an fp32 base).
        assert!(
            matches!(o.status.code(), Some(0 | 3)),
            "{}",
            String::from_utf8_lossy(&o.stderr)
        );
        String::from_utf8_lossy(&o.stderr).to_string()
    };
    let four = run(&["--gpus-per-node", "4"]);
    assert!(
        four.contains("LitGPT does not run this layout")
            && four.contains("--zero 3 --recompute full"),
        "{four}"
    );
    assert!(
        !run(&["--gpus-per-node", "4", "--zero", "3", "--recompute", "full"])
            .contains("LitGPT does not")
    );
    assert!(run(&["--recompute", "full"]).contains("--zero 0 --recompute none"));
    assert!(!run(&[]).contains("LitGPT does not"));
}

/// `--grad-all-reduce`: a ZeRO-1 optimizer that all-reduces whole gradients (DeepSpeed's
/// BF16_Optimizer) says so in the DP collective and moves half as much again.
#[test]
fn grad_all_reduce_is_a_flag_and_names_its_collective() {
    let base = [
        "estimate",
        "-m",
        "Llama-2-13B",
        "--task",
        "pretrain",
        "--gpu",
        "a100-80g",
        "--gpus-per-node",
        "8",
        "--nodes",
        "4",
        "--tp",
        "4",
        "--pp",
        "2",
        "--zero",
        "1",
        "--format",
        "json",
    ];
    let dp = |extra: &[&str]| {
        let mut args = base.to_vec();
        args.extend(extra);
        let o = gpuplan(&args);
        assert_eq!(
            o.status.code(),
            Some(0),
            "{}",
            String::from_utf8_lossy(&o.stderr)
        );
        let v: serde_json::Value = serde_json::from_slice(&o.stdout).unwrap();
        let c = v["estimate"]["step"]["collectives"]
            .as_array()
            .unwrap()
            .iter()
            .find(|c| c["kind"] == "dp")
            .cloned()
            .unwrap();
        (
            c["collective"].as_str().unwrap().to_string(),
            c["bytes_per_step"].as_f64().unwrap(),
        )
    };
    let (rs, rs_bytes) = dp(&[]);
    let (ar, ar_bytes) = dp(&["--grad-all-reduce"]);
    assert!(rs.starts_with("reduce-scatter + all-gather"), "{rs}");
    assert!(ar.starts_with("all-reduce + all-gather"), "{ar}");
    assert!(
        (ar_bytes / rs_bytes - 1.5).abs() < 1e-9,
        "{ar_bytes} {rs_bytes}"
    );
}

/// `--nccl-version` picks NCCL's era: 2.19 connects 6 MiB NVLink SHARP buffers at init
/// (16 × 2 × 6 MiB × 8 = 1536 MiB on 8 × H100), 2.22 sizes them at 1 MiB (256 MiB); the ring
/// and tree (24 channels × 24 MiB = 576 MiB) are the same (train/nccl.rs).
#[test]
fn nccl_version_sets_the_nccl_buffers() {
    let nccl = |version: &str| {
        let o = gpuplan(&[
            "estimate",
            "-m",
            "Llama-3.1-8B",
            "--task",
            "full",
            "--gpu",
            "h100-sxm",
            "--gpus-per-node",
            "8",
            "--zero",
            "3",
            "--tokens",
            "1e8",
            "--nccl-version",
            version,
            "--format",
            "json",
        ]);
        assert_eq!(
            o.status.code(),
            Some(0),
            "{}",
            String::from_utf8_lossy(&o.stderr)
        );
        let v: serde_json::Value = serde_json::from_slice(&o.stdout).unwrap();
        let items = v["estimate"]["memory"]["items"].as_array().unwrap().clone();
        let item = items.iter().find(|i| i["name"] == "NCCL buffers").unwrap();
        item["bytes"].as_f64().unwrap() / 1048576.0
    };
    assert_eq!(nccl("2.19.3"), 576.0 + 1536.0);
    assert_eq!(nccl("2.22.3"), 576.0 + 256.0);
    let bad = gpuplan(&[
        "estimate",
        "-m",
        "Llama-3.1-8B",
        "--gpu",
        "h100-sxm",
        "--nccl-version",
        "x",
    ]);
    assert_ne!(bad.status.code(), Some(0));
}
