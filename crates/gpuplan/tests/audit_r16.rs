//! Audit r16: each test runs the CLI (or the API) as a user does and asserts the property the
//! finding broke. Findings and inputs: docs/notes/notes-audit-r16.md; sweep family `r16`.

mod common;
use common::write_temp;
use serde_json::json;

const TAG: &str = "audit-r16";

/// Exit `code` with every phrase of `phrases` present (`!phrase`: absent).
fn refused(args: &[&str], code: i32, phrases: &[&str]) -> std::process::Output {
    common::assert_refused(TAG, args, code, phrases)
}

fn serve_72b(tp: &str, weights: &str) -> Vec<String> {
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
    ]
    .iter()
    .map(|s| s.to_string())
    .collect()
}

fn args(v: &[String]) -> Vec<&str> {
    v.iter().map(String::as_str).collect()
}

/// #1: Qwen2.5-72B's down_proj reads 29568 inputs; at TP 2 each rank's slice is 14784, which
/// group 128 does not divide (vLLM: "The input size is not aligned with the quantized weight
/// shape", issues #13640 and #21695). Before: sized at every TP. Now: TP 1 and the per-channel
/// label load; TP 2 and 8 are refused naming `tp`, the slice, the TPs that load and Qwen's
/// padded release.
#[test]
fn an_int4_group_must_divide_each_ranks_slice() {
    for (tp, slice) in [("2", "14784"), ("8", "3696")] {
        refused(
            &args(&serve_72b(tp, "int4-g128")),
            2,
            &["`tp`", slice, "29568", "use TP 1", "29696", "!panicked"],
        );
    }
    refused(&args(&serve_72b("1", "int4-g128")), 0, &["int4-g128"]);
    // Review r16 #2: the per-channel label (group = hidden) and group 64 (which divides 14784)
    // are refused too: Marlin needs each rank's slice to be a multiple of 128 ("is not divisible
    // by min_thread_k = 128", the Qwen2.5-VL-72B-AWQ TP 2 report), and no group is suggested.
    for (tp, w) in [("8", "int4-g8192"), ("2", "int4-g64")] {
        refused(
            &args(&serve_72b(tp, w)),
            2,
            &["`tp`", "min_thread_k = 128", "use TP 1", "!one of"],
        );
    }
    // A group that fails at TP 1 already is the format's error, naming `weights`.
    refused(
        &args(&serve_72b("2", "int4-g7")),
        2,
        &["`weights`", "!`tp`"],
    );
}

/// Qwen/Qwen2.5-72B-Instruct-AWQ's config.json: the FFN padded to 29696 loads at TP 8.
fn qwen25_72b_awq() -> serde_json::Value {
    json!({"architectures": ["Qwen2ForCausalLM"], "hidden_size": 8192,
      "intermediate_size": 29696, "max_position_embeddings": 32768, "model_type": "qwen2",
      "num_attention_heads": 64, "num_hidden_layers": 80, "num_key_value_heads": 8,
      "quantization_config": {"bits": 4, "group_size": 128, "quant_method": "awq",
        "version": "gemm", "zero_point": true},
      "tie_word_embeddings": false, "vocab_size": 152064})
}

/// Qwen/Qwen1.5-MoE-A2.7B's config.json: the shared expert's down_proj reads 5632 inputs,
/// 704 per rank at TP 8 (not a multiple of 128), 1408 at TP 4.
fn qwen15_moe() -> serde_json::Value {
    json!({"architectures": ["Qwen2MoeForCausalLM"], "decoder_sparse_step": 1,
      "hidden_size": 2048, "intermediate_size": 5632, "max_position_embeddings": 8192,
      "model_type": "qwen2_moe", "moe_intermediate_size": 1408, "num_attention_heads": 16,
      "num_experts": 60, "num_experts_per_tok": 4, "num_hidden_layers": 24,
      "num_key_value_heads": 16, "shared_expert_intermediate_size": 5632,
      "tie_word_embeddings": false, "vocab_size": 151936})
}

#[test]
fn padded_checkpoints_load_and_shared_experts_are_checked_per_rank() {
    let awq = write_temp(TAG, "awq.json", &qwen25_72b_awq().to_string());
    let awq = awq.to_str().unwrap();
    let base = [
        "estimate",
        "--model-config",
        awq,
        "--task",
        "inference",
        "--gpu",
        "A100",
    ];
    refused(
        &[&base[..], &["--gpus-per-node", "8", "--tp", "8"]].concat(),
        0,
        &["int4-g128"],
    );
    let moe = write_temp(TAG, "moe.json", &qwen15_moe().to_string());
    let moe = moe.to_str().unwrap();
    let base = [
        "estimate",
        "--model-config",
        moe,
        "--task",
        "inference",
        "--gpu",
        "A100",
        "--gpus-per-node",
        "8",
        "--weights",
        "int4-g128",
    ];
    refused(&[&base[..], &["--tp", "4"]].concat(), 0, &[]);
    refused(
        &[&base[..], &["--tp", "8"]].concat(),
        2,
        &["`tp`", "5632", "704", "TP 1, 2, 4"],
    );
}

/// The plan search drops the TPs the group refuses: every Qwen2.5-72B int4-g128 plan is TP 1.
#[test]
fn the_plan_search_offers_int4_only_at_the_tps_that_load() {
    let v = common::plan_json(
        TAG,
        &[
            "-m",
            "Qwen2.5-72B",
            "--task",
            "inference",
            "--provider",
            "alibaba",
            "--weights",
            "int4-g128",
            "--rate",
            "1",
        ],
    );
    let ps = common::plans(&v);
    assert!(!ps.is_empty(), "{v}");
    for p in ps {
        let tp = p["serve"]["tp"].as_u64().unwrap();
        assert_eq!(tp, 1, "{p}");
    }
}

/// #2: the API read a POST body as JSON under any content-type (text/plain, a form, none):
/// a "simple request" any web page can make a browser send to the loopback server. Now 415
/// naming `content-type` and the header to send; JSON with parameters or another case passes.
#[test]
fn the_api_reads_only_json_bodies() {
    let s = common::Server::start();
    let body = r#"{"model": "Qwen2.5-7B", "kind": "inference", "inference": {"tp": 1}, "hardware": {"gpu": "A100"}}"#;
    let send = |ct: Option<&str>| {
        let mut r = ureq::post(&format!("{}/api/v1/estimate", s.base));
        if let Some(ct) = ct {
            r = r.set("content-type", ct);
        }
        let resp = match r.send_string(body) {
            Ok(r) => r,
            Err(ureq::Error::Status(_, r)) => r,
            Err(e) => panic!("{e}"),
        };
        let st = resp.status();
        let v: serde_json::Value = serde_json::from_str(&resp.into_string().unwrap()).unwrap();
        (st, v)
    };
    for ct in [
        Some("text/plain"),
        Some("application/x-www-form-urlencoded"),
        Some("multipart/form-data; boundary=x"),
        None,
    ] {
        let (st, v) = send(ct);
        assert_eq!(st, 415, "{ct:?}: {v}");
        assert_eq!(v["error"]["field"], "content-type", "{v}");
        let m = v["error"]["message"].as_str().unwrap();
        assert!(m.contains("application/json"), "{m}");
    }
    for ct in [
        "application/json",
        "application/json; charset=utf-8",
        "Application/JSON",
    ] {
        let (st, v) = send(Some(ct));
        assert_eq!(st, 200, "{ct}: {v}");
    }
    let plan = ureq::post(&format!("{}/api/v1/plan?lang=zh", s.base))
        .set("content-type", "text/plain")
        .send_string(body);
    let Err(ureq::Error::Status(415, r)) = plan else {
        panic!("plan under text/plain")
    };
    let v: serde_json::Value = serde_json::from_str(&r.into_string().unwrap()).unwrap();
    assert!(
        v["error"]["message"].as_str().unwrap().contains("请求头"),
        "{v}"
    );
}

/// #3: a config.json saved with a UTF-8 byte-order mark (Windows editors) was "not valid JSON
/// at line 1 column 1", while a workload TOML with one read. Every input file, and an API body,
/// now reads past it; a comment is still refused naming the JSON position (and, since stop 35,
/// that comments are not JSON: tests/fix_r16.rs).
#[test]
fn a_byte_order_mark_is_read_past() {
    let cfg = json!({"model_type": "llama", "hidden_size": 4096, "num_hidden_layers": 32,
      "num_attention_heads": 32, "num_key_value_heads": 8, "vocab_size": 128256,
      "intermediate_size": 14336, "max_position_embeddings": 8192, "torch_dtype": "bfloat16"});
    let bom = write_temp(TAG, "bom.json", &format!("\u{feff}{cfg}"));
    let args = [
        "estimate",
        "--model-config",
        bom.to_str().unwrap(),
        "--task",
        "inference",
    ];
    refused(&[&args[..], &["--gpu", "A100"]].concat(), 0, &["KV"]);
    let commented = write_temp(TAG, "comment.json", &format!("// exported\n{cfg}"));
    let args = [
        "estimate",
        "--model-config",
        commented.to_str().unwrap(),
        "--task",
        "inference",
    ];
    refused(
        &[&args[..], &["--gpu", "A100"]].concat(),
        2,
        &["not valid JSON", "line 1"],
    );
    let plan = write_temp(TAG, "plan-wl.toml", "\u{feff}model = \"Qwen2.5-7B\"\nkind = \"training\"\n[training]\ntask = \"lora\"\ntokens = 1e8\n");
    refused(
        &[
            "estimate",
            "--workload",
            plan.to_str().unwrap(),
            "--gpu",
            "A100",
        ],
        0,
        &["LoRA"],
    );
    let s = common::Server::start();
    let body = format!(
        "\u{feff}{}",
        r#"{"model": "Qwen2.5-7B", "kind": "inference", "inference": {"tp": 1}, "hardware": {"gpu": "A100"}}"#
    );
    let (st, v) = common::post(&format!("{}/api/v1/estimate", s.base), &body);
    assert_eq!(st, 200, "{v}");
}

/// #4: range errors whose fix text had no catalog entry were English under `--lang zh`
/// (`--first-stage-layers 0`, `--set <efficiency>=5`, diffusion `--steps 0`, a workload's
/// `nccl_version`, `optimizer_foreach_buffers`). [`refused`] runs each again in Chinese and
/// fails on an English sentence.
#[test]
fn range_errors_are_translated() {
    let pp = [
        "estimate",
        "-m",
        "Llama-3.1-8B",
        "--task",
        "full",
        "--gpu",
        "H100",
        "--gpus-per-node",
        "8",
        "--pp",
        "4",
    ];
    refused(
        &[&pp[..], &["--first-stage-layers", "0"]].concat(),
        2,
        &["first_stage_layers"],
    );
    let lora = [
        "estimate",
        "-m",
        "Qwen2.5-7B",
        "--task",
        "lora",
        "--gpu",
        "A100",
    ];
    refused(
        &[&lora[..], &["--set", "train_efficiency_ampere=5"]].concat(),
        2,
        &["0.001"],
    );
    let sd = [
        "plan",
        "-m",
        "SDXL-UNet",
        "--task",
        "inference",
        "--provider",
        "alibaba",
    ];
    refused(
        &[&sd[..], &["--steps", "0"]].concat(),
        2,
        &["steps", "10000"],
    );
    for (key, value) in [
        ("nccl_version", "\"two\""),
        ("optimizer_foreach_buffers", "3"),
    ] {
        let text = format!(
            "model = \"Qwen2.5-7B\"\nkind = \"training\"\n[training]\ntask = \"full\"\ntokens = 1e8\n{key} = {value}\n"
        );
        let w = write_temp(TAG, &format!("{key}.toml"), &text);
        refused(
            &[
                "estimate",
                "--workload",
                w.to_str().unwrap(),
                "--gpu",
                "A100",
            ],
            2,
            &[key],
        );
    }
}
