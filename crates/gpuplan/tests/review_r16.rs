//! Review r16 #2-#5 (a read-only review of stop 35's merged change): Marlin's k tile under TP for
//! int4 checkpoints; llm.c's fused classifier against LitGPT's chunked loss, the LM head's
//! backward and the setups llm.c does not run.

mod common;
use common::{run, write_temp};
use serde_json::Value;

const TAG: &str = "review-r16";

fn refused(args: &[&str], code: i32, phrases: &[&str]) -> std::process::Output {
    common::assert_refused(TAG, args, code, phrases)
}

/// #2: `-m Qwen2.5-72B --weights int4-g64 --tp 2` was sized although each rank's 14784-wide
/// down_proj slice is not a multiple of Marlin's 128 ("Weight input_size_per_partition = 14784
/// is not divisible by min_thread_k = 128", the Qwen2.5-VL-72B-AWQ TP 2 report); the g128 TP 2
/// refusal suggested int4-g32/g64/g8192, which hit the same error.
#[test]
fn marlin_needs_each_ranks_slice_in_tiles_of_128() {
    let serve = |tp: &'static str, w: &'static str| {
        [
            "estimate",
            "-m",
            "Qwen2.5-72B",
            "--task",
            "inference",
            "--gpu",
            "H100",
            "--gpus-per-node",
            "8",
            "--tp",
            tp,
            "--weights",
            w,
        ]
    };
    for w in ["int4-g32", "int4-g64", "int4-g128", "int4-g8192"] {
        refused(
            &serve("2", w),
            2,
            &[
                "`tp`",
                "14784",
                "min_thread_k = 128",
                "use TP 1",
                "!one of",
                "!panicked",
            ],
        );
    }
    refused(&serve("1", "int4-g64"), 0, &[]);
    // Llama-3.1-70B's 28672-wide down_proj is 3584 = 128 × 28 per rank at TP 8.
    let mut llama = serve("8", "int4-g64");
    llama[2] = "Llama-3.1-70B";
    refused(&llama, 0, &[]);
}

/// Llama-3.1-8B, batch 4 × 2048 on one H100, full fine-tune under `framework`, with `extra`
/// training keys.
fn llama8b(framework: &str, extra: &str) -> String {
    format!(
        r#"
kind = "training"
model = "Llama-3.1-8B"
[training]
task = "full_finetune"
precision = "amp_bf16"
framework = "{framework}"
micro_batch = 4
seq_len = 2048
grad_accum = 1
recompute = "full"
tokens = 1000000.0
{extra}
[hardware]
gpu = "h100"
gpus_per_node = 8
nodes = 1
"#
    )
}

fn timeline(name: &str, text: &str) -> Value {
    let w = write_temp(TAG, name, text);
    let o = run(
        TAG,
        &["estimate", "-w", w.to_str().unwrap(), "--format", "json"],
    );
    // Exit 3 where the layout does not fit: the timeline is still reported.
    assert!(
        matches!(o.status.code(), Some(0 | 3)),
        "{}",
        common::all_text(&o)
    );
    let v: Value = serde_json::from_slice(&o.stdout).unwrap();
    v["estimate"]["memory"]["timeline"].clone()
}

fn component(tl: &Value, phase: &str, name: &str) -> f64 {
    let p = tl["phases"]
        .as_array()
        .unwrap()
        .iter()
        .find(|p| p["phase"] == phase)
        .unwrap_or_else(|| panic!("no {phase} in {tl}"));
    p["components"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|c| c[0] == name)
        .map(|c| c[1].as_f64().unwrap())
        .sum()
}

/// #3 and #4: under `framework = "litgpt"` the fused classifier's logits were counted twice
/// (LitGPT's chunk loop holding them and the in-place gradient beside them, 1.96 + 1.96 GiB
/// at the LM head's backward); under any framework the LM head's backward dropped the in-place
/// buffer. Now both frameworks carry the one 16-bit buffer there and no held logits.
/// Audit r17 #1: the kernel is llm.c's alone, so `litgpt` and `hugging_face` (eager PyTorch
/// modules llm.c does not have) are refused beside it (tests/audit_r17.rs); `megatron` stays.
#[test]
fn the_fused_classifier_buffer_is_counted_once_through_the_lm_head() {
    let logits = 2.0 * 4.0 * 2048.0 * 128256.0;
    let fw = "megatron";
    let tl = timeline(
        &format!("{fw}.toml"),
        &llama8b(fw, "fused_classifier = true"),
    );
    let held = component(&tl, "backward: LM head", "logits");
    let grad = component(&tl, "backward: LM head", "logits gradient");
    assert_eq!(held, 0.0, "{fw}: {tl}");
    assert!((grad - logits).abs() < 1.0, "{fw}: {grad} vs {logits}");
}

/// #5: a setup llm.c does not run with its classifier is refused naming the field (exit 2),
/// by `estimate` and `plan` alike.
#[test]
fn the_fused_classifier_is_refused_beside_what_llm_c_does_not_run() {
    for (name, extra, field) in [
        (
            "tp",
            "fused_classifier = true\n[training.parallel]\ntp = 2",
            "parallel.tp",
        ),
        (
            "chunked",
            "fused_classifier = true\nchunked_loss = true",
            "chunked_loss",
        ),
        (
            "xent",
            "fused_classifier = true\nfused_cross_entropy = true",
            "fused_cross_entropy",
        ),
    ] {
        let w = write_temp(TAG, &format!("{name}.toml"), &llama8b("megatron", extra));
        let w = w.to_str().unwrap();
        refused(
            &["estimate", "-w", w],
            2,
            &[field, "fused_classifier", "!panicked"],
        );
        refused(&["plan", "-w", w], 2, &[field, "fused_classifier"]);
    }
    let lora = llama8b("megatron", "fused_classifier = true").replace("full_finetune", "lora");
    let w = write_temp(TAG, "lora.toml", &lora);
    refused(
        &["estimate", "-w", w.to_str().unwrap()],
        2,
        &["task", "LoRA"],
    );
}
