//! Stop 35 fixes of the r16 expert review (#4) and audit ("Not done"/"Noticed"): plans only in
//! layouts the profile's launchers run, quantized repo names, zh for case-file errors, `//`
//! comments in config.json. notes: /work/notes/full-fixE.md.

mod common;
use common::{assert_refused, plan_json, plans, run, write_temp};
use serde_json::Value;

const TAG: &str = "fix-r16";

/// (PP, ZeRO stage) of every plan of a `plan --format json` answer.
fn layouts(v: &Value) -> Vec<(u64, u64)> {
    plans(v)
        .iter()
        .map(|p| {
            let par = &p["train"]["setup"]["parallel"];
            (
                par["pp"].as_u64().unwrap_or(0),
                par["zero"].as_u64().unwrap_or(0),
            )
        })
        .collect()
}

/// #1 (expert r16 #4): `--profile megatron` listed PP × ZeRO-3 layouts (q20: 16 × snt9b.8
/// PP 2 ZeRO-3, whose export launches Megatron-LM's distributed optimizer, ZeRO-1). Megatron-LM
/// runs ZeRO-1 beside pipeline stages, and DeepSpeed's pipeline engine refuses ZeRO-2/3: the
/// search offers neither under the `megatron` profile or `--deepspeed`, and still offers
/// pipelines at ZeRO ≤ 1.
#[test]
fn megatron_and_deepspeed_plans_run_no_pipeline_beside_zero_2_or_3() {
    let base = [
        "-m",
        "Llama-3.1-70B",
        "--task",
        "pretrain",
        "--tokens",
        "1e10",
        "--gpu",
        "h100",
    ];
    for stack in [&["--profile", "megatron"][..], &["--deepspeed"][..]] {
        let v = plan_json(TAG, &[&base[..], stack].concat());
        let l = layouts(&v);
        assert!(!l.is_empty(), "{stack:?}: no plans");
        assert!(
            l.iter().all(|&(pp, zero)| pp == 1 || zero <= 1),
            "{stack:?}: {l:?}"
        );
        if stack[0] == "--profile" {
            assert!(l.iter().any(|&(pp, _)| pp > 1), "{stack:?}: {l:?}");
        }
    }
    // q20: the only layout that fitted was PP 2 × ZeRO-3; now no plan, and no such layout named.
    let o = run(
        TAG,
        &[
            "plan",
            "-m",
            "Qwen2.5-72B",
            "--task",
            "full",
            "--tokens",
            "5e9",
            "--seq-len",
            "8192",
            "--provider",
            "huawei",
            "--chips",
            "ascend",
            "--deadline",
            "14d",
            "--profile",
            "megatron",
        ],
    );
    assert_eq!(o.status.code(), Some(4), "{}", common::all_text(&o));
}

const PP2: [&str; 14] = [
    "estimate",
    "-m",
    "Llama-3.1-8B",
    "--task",
    "pretrain",
    "--gpu",
    "h100",
    "--gpus-per-node",
    "8",
    "--nodes",
    "1",
    "--pp",
    "2",
    "--zero",
];

/// #1: a stated PP 2 × ZeRO-3 under `--deepspeed` is refused naming `parallel.zero` and the fix
/// (DeepSpeed's pipeline engine asserts ZeRO < 2); ZeRO-1 is estimated. Under `megatron` it is
/// estimated with a note that Megatron-LM does not launch it (the layout is real on other
/// stacks: Meta's Llama 3 405B ran FSDP ZeRO-2 beside PP 16, cases t-llama3-paper-405b-*).
#[test]
fn a_stated_pipeline_beside_zero3_is_refused_or_noted() {
    let ds = [&PP2[..], &["3", "--deepspeed"]].concat();
    assert_refused(
        TAG,
        &ds,
        2,
        &[
            "parallel.zero",
            "incompatible with pipeline parallelism",
            "parallel.zero = 1",
        ],
    );
    let o = run(TAG, &[&PP2[..], &["1", "--deepspeed"]].concat());
    assert_eq!(o.status.code(), Some(0), "{}", common::all_text(&o));
    for (lang, phrase) in [
        ("en", "Megatron-LM does not launch ZeRO-3"),
        ("zh", "ZeRO-1"),
    ] {
        let o = run(
            TAG,
            &[&PP2[..], &["3", "--profile", "megatron", "--lang", lang]].concat(),
        );
        common::assert_exit_phrases(&o, 0, &[phrase, "--zero 1"]);
    }
    let o = run(TAG, &[&PP2[..], &["1", "--profile", "megatron"]].concat());
    common::assert_exit_phrases(&o, 0, &["!Megatron-LM does not launch"]);
}

/// #1: the API refuses the DeepSpeed layout as the CLI does (400 naming the field).
#[test]
fn the_api_refuses_a_deepspeed_pipeline_beside_zero3() {
    let s = common::Server::start();
    let body = r#"{"model": "Llama-3.1-8B", "kind": "training",
        "training": {"task": "pretrain", "deepspeed": true, "parallel": {"pp": 2, "zero": 3}},
        "hardware": {"gpu": "h100", "gpus_per_node": 8, "nodes": 1}}"#;
    let (st, v) = common::post(&format!("{}/api/v1/estimate", s.base), body);
    assert_eq!(st, 400, "{v}");
    assert!(v.to_string().contains("parallel.zero"), "{v}");
}

/// #2: a quantized repo name is refused (presets are 16-bit) and the refusal says how to size
/// it: the preset with `--weights`, or the checkpoint's config.json; bitsandbytes only the latter.
#[test]
fn quantized_repo_names_point_to_weights_and_model_config() {
    let est = |m: &str, lang: &str| {
        run(
            TAG,
            &[
                "estimate",
                "-m",
                m,
                "--task",
                "inference",
                "--gpu",
                "a100",
                "--lang",
                lang,
            ],
        )
    };
    for (name, preset, weights) in [
        ("Qwen/Qwen2.5-72B-Instruct-AWQ", "Qwen2.5-72B", "awq"),
        ("Qwen/Qwen2.5-7B-Instruct-GPTQ-Int4", "Qwen2.5-7B", "gptq"),
        ("Qwen2.5-7B-FP8", "Qwen2.5-7B", "fp8"),
    ] {
        let m = format!("-m {preset}");
        let w = format!("--weights {weights}");
        common::assert_exit_phrases(&est(name, "en"), 2, &[&m, &w, "--model-config"]);
        common::assert_exit_phrases(&est(name, "zh"), 2, &[&m, &w, "--model-config", "量化"]);
    }
    let o = est("unsloth/Qwen2.5-7B-bnb-4bit", "en");
    common::assert_exit_phrases(&o, 2, &["bitsandbytes", "--model-config", "!--weights"]);
    // A plain unknown name is unchanged.
    let o = est("Qwen2.5-7Bx", "en");
    common::assert_exit_phrases(&o, 2, &["did you mean", "!quantized"]);
}

/// #4: a config.json with `//` comments said "not valid JSON at line 1 column 1"; it now says
/// comments are not JSON (en, zh).
#[test]
fn a_commented_config_json_is_named_as_comments() {
    let real = r#"{"architectures": ["LlamaForCausalLM"], "model_type": "llama",
  "hidden_size": 4096, "intermediate_size": 14336, "num_attention_heads": 32,
  "num_key_value_heads": 8, "num_hidden_layers": 32, "vocab_size": 128256,
  "max_position_embeddings": 131072, "torch_dtype": "bfloat16"}"#;
    // The same file without a comment is read (the refusal is the comment's).
    let plain = write_temp(TAG, "plain.json", real);
    let plain = plain.to_str().unwrap_or_default();
    let o = run(
        TAG,
        &[
            "estimate",
            "--model-config",
            plain,
            "--task",
            "inference",
            "--gpu",
            "a100",
        ],
    );
    assert_eq!(o.status.code(), Some(0), "{}", common::all_text(&o));
    for (name, text) in [
        ("lead.json", format!("// saved from the hub\n{real}")),
        ("inline.json", real.replacen(',', ", // a note\n", 1)),
    ] {
        let p = write_temp(TAG, name, &text);
        let p = p.to_str().unwrap_or_default();
        let args = [
            "estimate",
            "--model-config",
            p,
            "--task",
            "inference",
            "--gpu",
            "a100",
        ];
        let o = assert_refused(TAG, &args, 2, &["comments are not JSON", "config.json"]);
        drop(o);
        let zh = run(TAG, &[&args[..], &["--lang", "zh"]].concat());
        common::assert_exit_phrases(&zh, 2, &["注释"]);
    }
}
