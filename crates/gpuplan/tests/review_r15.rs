//! Review r15 (a read-only review of stop 34's merged change): a stated first + last pipeline stage
//! outside Megatron dropped or double-counted layers (MFU 148%); the host dispatch floor reached
//! multimodal configs whose vision tower was never counted; the heaviest-activation stage ignored
//! the last stage.

mod common;
use common::{assert_refused, run, stdout};
use serde_json::Value;

const TAG: &str = "review-r15";

/// `estimate -m Llama-2-7B --task full` on A100-80G at PP `pp` with `extra`.
fn llama7b_pp(pp: &str, extra: &[&str]) -> Vec<String> {
    let mut a: Vec<String> = [
        "estimate",
        "-m",
        "Llama-2-7B",
        "--task",
        "full",
        "--gpu",
        "a100-80g",
        "--gpus-per-node",
        "8",
        "--pp",
        pp,
    ]
    .iter()
    .map(|s| s.to_string())
    .collect();
    a.extend(extra.iter().map(|s| s.to_string()));
    a
}

/// #1: under the default (non-Megatron) profile, 2 + 2 of 32 layers at PP 2 modelled 4 layers and
/// printed MFU 148%; 30 + 30 counted 60. Both are refused naming the field and the count.
#[test]
fn stated_stages_must_cover_the_layers_once() {
    for (first, last, taken) in [("2", "2", "4"), ("30", "30", "60")] {
        let a = llama7b_pp(
            "2",
            &["--first-stage-layers", first, "--last-stage-layers", last],
        );
        let a: Vec<&str> = a.iter().map(String::as_str).collect();
        assert_refused(
            TAG,
            &a,
            2,
            &["parallel.first_stage_layers", taken, "32", "exactly 32"],
        );
    }
    // PP 4 with 16 + 16: the two middle stages would be empty.
    let a = llama7b_pp(
        "4",
        &["--first-stage-layers", "16", "--last-stage-layers", "16"],
    );
    let a: Vec<&str> = a.iter().map(String::as_str).collect();
    assert_refused(
        TAG,
        &a,
        2,
        &["parallel.first_stage_layers", "2 other stages"],
    );
    // A split that covers the layers once still runs: 15 + 17 at PP 2.
    let a = llama7b_pp(
        "2",
        &["--first-stage-layers", "15", "--last-stage-layers", "17"],
    );
    let a: Vec<&str> = a.iter().map(String::as_str).collect();
    let o = run(TAG, &a);
    assert_eq!(o.status.code(), Some(0), "{}", stdout(&o));
}

/// #2: a Qwen2-VL config reads as text model_type `qwen2`, but its vision tower and M-RoPE were
/// never counted: no host dispatch floor for it.
#[test]
fn multimodal_configs_get_no_counted_dispatch_floor() {
    let cfg = concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/../gpuplan-core/tests/fixtures/hf-multimodal/qwen2-vl-7b.config.json"
    );
    let o = run(
        TAG,
        &[
            "estimate",
            "--model-config",
            cfg,
            "--task",
            "lora",
            "--gpu",
            "a100-80g",
            "--seq-len",
            "256",
            "--micro-batch",
            "1",
            "--format",
            "json",
        ],
    );
    assert_eq!(o.status.code(), Some(0), "{}", stdout(&o));
    let v: Value = serde_json::from_str(&stdout(&o)).unwrap();
    let step = &v["estimate"]["step"];
    assert!(step.is_object(), "{v}");
    assert!(
        step.get("host_dispatch").is_none_or(Value::is_null),
        "{}",
        step["host_dispatch"]
    );
    assert_ne!(step["bottleneck"], "host-cpu", "{step}");
}

/// #3: a 1-layer first stage and a 29-layer last one at PP 4: the last stage holds the most saved
/// activations (29 layers × 1 micro-batch in flight against 1 × 4).
#[test]
fn heaviest_activation_stage_can_be_the_last() {
    let o = run(
        TAG,
        &[
            "estimate",
            "-m",
            "Llama-2-7B",
            "--profile",
            "megatron",
            "--task",
            "pretrain",
            "--gpu",
            "h100-sxm",
            "--gpus-per-node",
            "8",
            "--pp",
            "4",
            "--first-stage-layers",
            "1",
            "--last-stage-layers",
            "29",
            "--global-batch",
            "64",
            "--micro-batch",
            "1",
            "--seq-len",
            "4096",
            "--format",
            "json",
        ],
    );
    let text = stdout(&o);
    // Exit 3: 29 of 32 layers with their Adam states do not fit one H100; the estimate is
    // still written.
    assert_eq!(o.status.code(), Some(3), "{text}");
    let v: Value = serde_json::from_str(&text).unwrap();
    let p = &v["estimate"]["memory"]["pipeline"];
    assert_eq!(p["heaviest_activations"], "last", "{p}");
}
