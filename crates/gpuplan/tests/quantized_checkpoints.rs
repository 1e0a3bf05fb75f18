//! Checkpoints stored below 16 bits through the CLI, as a user runs them: a bitsandbytes 4-bit
//! checkpoint (the shape of unsloth/llama-3-8b-bnb-4bit, tests/fixtures/hf-quantized/README.md)
//! and checkpoints whose `quant_method` gpuplan does not read (review r12 #6: both were refused
//! for every task; before that they were sized at 16 bits silently).

mod common;
use common::{stderr, stdout};
use std::process::Output;

const TAG: &str = "quantized-checkpoints";
const BNB4: &str = "../gpuplan-core/tests/fixtures/hf-quantized/llama-3-8b-bnb-4bit.json";

fn run(args: &[&str]) -> Output {
    common::run(TAG, args)
}

fn json(o: &Output) -> serde_json::Value {
    assert_eq!(o.status.code(), Some(0), "{}", stderr(o));
    serde_json::from_slice(&o.stdout).unwrap_or_else(|e| panic!("{e}: {}", stderr(o)))
}

/// The fixture with its `quantization_config` replaced (`None`: removed), written under the
/// test's own temporary folder.
fn variant(name: &str, qc: Option<serde_json::Value>) -> std::path::PathBuf {
    let text = std::fs::read_to_string(BNB4).expect("fixture");
    let mut v: serde_json::Value = serde_json::from_str(&text).expect("json");
    let obj = v.as_object_mut().expect("object");
    match qc {
        Some(q) => obj.insert("quantization_config".into(), q),
        None => obj.remove("quantization_config"),
    };
    common::write_temp(TAG, &format!("{name}.json"), &v.to_string())
}

fn base_bytes(model_config: &str) -> f64 {
    let o = run(&[
        "estimate",
        "--model-config",
        model_config,
        "--task",
        "qlora",
        "--gpu",
        "a100-80g",
        "--format",
        "json",
    ]);
    let v = json(&o);
    let items = v["estimate"]["memory"]["items"].as_array().expect("items");
    let base = items.iter().find(|i| i["name"] == "base weights (frozen)");
    base.and_then(|i| i["bytes"].as_f64()).expect("base item")
}

/// QLoRA on the bnb-4bit checkpoint runs (it was refused) and its frozen base is the NF4
/// double-quant base QLoRA builds from the 16-bit model, byte for byte; the note says so.
#[test]
fn qlora_on_a_bnb_4bit_checkpoint_sizes_the_base_as_stored() {
    let plain = variant("plain", None);
    let sixteen = base_bytes(plain.to_str().expect("path"));
    let stored = base_bytes(BNB4);
    assert_eq!(stored, sixteen);
    let o = run(&[
        "estimate",
        "--model-config",
        BNB4,
        "--task",
        "qlora",
        "--gpu",
        "a100-80g",
    ]);
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    let e = stderr(&o);
    assert!(e.contains("bnb-4bit-dq") && e.contains("4.127 bits"), "{e}");
    // Without double quantisation the stored base is 4.5 bits: larger than the default NF4's.
    let no_dq = variant(
        "no-dq",
        Some(
            serde_json::json!({"quant_method": "bitsandbytes", "load_in_4bit": true,
            "bnb_4bit_quant_type": "nf4", "bnb_4bit_use_double_quant": false}),
        ),
    );
    assert!(base_bytes(no_dq.to_str().expect("path")) > stored);
    // Decoder layers kept 16-bit by `llm_int8_skip_modules` are not modelled: a note names them.
    let skip = variant(
        "skip",
        Some(
            serde_json::json!({"quant_method": "bitsandbytes", "load_in_4bit": true,
            "bnb_4bit_use_double_quant": true,
            "llm_int8_skip_modules": ["lm_head", "model.layers.1.mlp"]}),
        ),
    );
    let skip = skip.to_str().expect("path");
    let o = run(&[
        "estimate",
        "--model-config",
        skip,
        "--task",
        "qlora",
        "--gpu",
        "a100-80g",
    ]);
    let e = stderr(&o);
    assert!(
        e.contains("model.layers.1.mlp") && e.contains("under-estimated"),
        "{e}"
    );
}

/// `plan` names the 16-bit skipped modules only where its search loads the checkpoint as stored:
/// vLLM on a CUDA chip does; TensorRT-LLM does not load bitsandbytes (it serves a dequantized
/// copy), nor does any engine on Ascend (task wt-polish14 #5: the note was printed for both).
#[test]
fn plan_names_the_skipped_modules_only_where_an_engine_loads_bnb() {
    let skip = variant(
        "plan-skip",
        Some(
            serde_json::json!({"quant_method": "bitsandbytes", "load_in_4bit": true,
            "bnb_4bit_quant_storage": "uint8",
            "llm_int8_skip_modules": ["lm_head", "model.layers.1.mlp"]}),
        ),
    );
    let skip = skip.to_str().expect("path");
    let plan = |extra: &[&str]| {
        let mut args = vec![
            "plan",
            "--model-config",
            skip,
            "--task",
            "inference",
            "--rate",
            "1",
        ];
        args.extend_from_slice(extra);
        stderr(&run(&args))
    };
    let vllm = plan(&["--engine", "vllm"]);
    assert!(vllm.contains("model.layers.1.mlp"), "{vllm}");
    for extra in [&["--engine", "trtllm"][..], &["--chips", "ascend"][..]] {
        let e = plan(extra);
        assert!(!e.contains("model.layers.1.mlp"), "{extra:?}: {e}");
    }
}

/// vLLM serves the checkpoint as stored (BitsAndBytesConfig, compute capability 7.0 and up);
/// TensorRT-LLM does not load it, so its estimate sizes a dequantized 16-bit copy and says so.
#[test]
fn vllm_serves_the_bnb_checkpoint_as_stored() {
    let o = run(&[
        "estimate",
        "--model-config",
        BNB4,
        "--task",
        "inference",
        "--gpu",
        "t4",
    ]);
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    assert!(stdout(&o).contains("bnb-4bit-dq weights"), "{}", stdout(&o));
    let o = run(&[
        "estimate",
        "--model-config",
        BNB4,
        "--task",
        "inference",
        "--gpu",
        "a100-80g",
        "--engine",
        "trtllm",
    ]);
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    assert!(stdout(&o).contains("bf16 weights"), "{}", stdout(&o));
    assert!(stderr(&o).contains("bnb-4bit-dq"), "{}", stderr(&o));
    // `plan` offers the stored format under vLLM, and only the 16-bit copy under TensorRT-LLM.
    let plan = |engine: &str| {
        let o = run(&[
            "plan",
            "--model-config",
            BNB4,
            "--task",
            "inference",
            "--engine",
            engine,
            "--gpu",
            "a100",
            "--format",
            "json",
        ]);
        json(&o).to_string()
    };
    assert!(plan("vllm").contains("\"format\":\"bnb4\""));
    let trt = plan("trtllm");
    assert!(
        !trt.contains("\"bnb4\"") && trt.contains("\"format\":\"bf16\""),
        "{trt}"
    );
}

/// A `quant_method` gpuplan does not read: training proceeds with a note naming it; serving is
/// refused (exit 2) naming `quantization_config.quant_method`, by `estimate` and `plan`, in both
/// languages, until `--weights` says what is served.
#[test]
fn an_unread_method_trains_with_a_note_and_serving_needs_weights() {
    let hqq = variant(
        "hqq",
        Some(serde_json::json!({"quant_method": "hqq",
            "quant_config": {"weight_quant_params": {"nbits": 4, "group_size": 64}}})),
    );
    let hqq = hqq.to_str().expect("path");
    let o = run(&[
        "estimate",
        "--model-config",
        hqq,
        "--task",
        "lora",
        "--gpu",
        "a100-80g",
    ]);
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    let e = stderr(&o);
    assert!(e.contains("quant_method is hqq"), "{e}");
    for args in [
        vec![
            "estimate",
            "--model-config",
            hqq,
            "--task",
            "inference",
            "--gpu",
            "a100-80g",
        ],
        vec!["plan", "--model-config", hqq, "--task", "inference"],
        vec![
            "--lang",
            "zh",
            "plan",
            "--model-config",
            hqq,
            "--task",
            "inference",
        ],
    ] {
        let o = run(&args);
        let e = stderr(&o);
        assert_eq!(o.status.code(), Some(2), "{args:?}: {e}");
        assert!(
            e.contains("quantization_config.quant_method") && e.contains("hqq"),
            "{e}"
        );
        assert!(e.contains("--weights"), "{e}");
    }
    let o = run(&[
        "estimate",
        "--model-config",
        hqq,
        "--task",
        "inference",
        "--gpu",
        "a100-80g",
        "--weights",
        "bf16",
    ]);
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
}

/// Review r13 #3: a workload file's `[inference] weights = { format = "bf16" }` states the format as
/// `--weights bf16` does (it read as "not given", being the default), so `estimate -w` serves the
/// unread checkpoint dequantized; without the key it is refused; `plan` names its own table,
/// `[serve] weights`.
#[test]
fn a_workload_files_bf16_weights_serve_an_unread_checkpoint() {
    let hqq = variant(
        "hqq-w",
        Some(serde_json::json!({"quant_method": "hqq",
            "quant_config": {"weight_quant_params": {"nbits": 4, "group_size": 64}}})),
    );
    let path = hqq.to_str().expect("path").replace('\\', "/");
    let file = |name: &str, weights: &str| {
        let text = format!(
            "kind = \"inference\"\nmodel_config = \"{path}\"\n[inference]\ninput_tokens = 512\n{weights}"
        );
        common::write_temp(TAG, name, &text)
    };
    let stated = file("hqq-bf16.toml", "weights = { format = \"bf16\" }\n");
    let o = run(&[
        "estimate",
        "-w",
        stated.to_str().expect("path"),
        "--gpu",
        "a100-80g",
    ]);
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    let unstated = file("hqq-none.toml", "");
    let o = run(&[
        "estimate",
        "-w",
        unstated.to_str().expect("path"),
        "--gpu",
        "a100-80g",
    ]);
    let e = stderr(&o);
    assert_eq!(o.status.code(), Some(2), "{e}");
    assert!(e.contains("[inference] weights"), "{e}");
    let hqq = hqq.to_str().expect("path");
    for lang in ["en", "zh"] {
        let o = run(&[
            "--lang",
            lang,
            "plan",
            "--model-config",
            hqq,
            "--task",
            "inference",
        ]);
        let e = stderr(&o);
        assert_eq!(o.status.code(), Some(2), "{e}");
        assert!(e.contains("[serve]") && !e.contains("[inference]"), "{e}");
    }
}
