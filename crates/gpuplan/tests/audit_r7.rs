//! Audit r7 (notes/audit-r7.md), training-plan findings: an expert-parallel layout is searched
//! only with the ZeRO stages its stack runs (#5). Each test runs the CLI as a user does and
//! asserts the property.

mod common;
use serde_json::Value;
use std::process::{Command, Output};

fn run(args: &[&str]) -> Output {
    let cfg = std::env::temp_dir().join(format!("gpuplan-audit-r7-{}", std::process::id()));
    common::output_checked(
        Command::new(env!("CARGO_BIN_EXE_gpuplan"))
            .env("GPUPLAN_CONFIG_DIR", &cfg)
            .env("COLUMNS", "80")
            .args(args),
    )
}

fn plan_json(args: &[&str]) -> Value {
    let mut all = vec!["plan", "--format", "json", "--top", "100"];
    all.extend_from_slice(args);
    let o = run(&all);
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    serde_json::from_slice(&o.stdout)
        .unwrap_or_else(|e| panic!("{e}: {}", String::from_utf8_lossy(&o.stderr)))
}

/// (EP, ZeRO) of every plan.
fn ep_zero(v: &Value) -> Vec<(u64, u64)> {
    v["outcome"]["plans"]
        .as_array()
        .unwrap()
        .iter()
        .map(|p| {
            let par = &p["train"]["setup"]["parallel"];
            (par["ep"].as_u64().unwrap(), par["zero"].as_u64().unwrap())
        })
        .collect()
}

/// #5: Qwen3-30B-A3B full fine-tune ranked `DP8 EP2 ZeRO-3` first (its LoRA plan too), which
/// DeepSpeed refuses ("MoE not supported with Stage 3") and Megatron-Core cannot run. Now EP ≥ 2
/// comes with ZeRO ≤ 2 (DeepSpeed-MoE) under the default profile and ZeRO ≤ 1 (Megatron's
/// distributed optimizer) under `megatron`; a workload stating both keeps them.
#[test]
fn expert_parallel_plans_use_only_the_zero_stages_their_stack_runs() {
    for (task, profile, most) in [
        ("full", "hugging_face", 2),
        ("lora", "hugging_face", 2),
        ("full", "megatron", 1),
    ] {
        let v = plan_json(&[
            "-m",
            "Qwen3-30B-A3B",
            "--task",
            task,
            "--tokens",
            "1e9",
            "--provider",
            "alibaba",
            "--profile",
            profile,
        ]);
        let all = ep_zero(&v);
        assert!(!all.is_empty(), "{task} {profile}");
        assert!(
            all.iter().any(|&(ep, _)| ep >= 2),
            "{task} {profile}: no EP plan left: {all:?}"
        );
        for (ep, zero) in all {
            assert!(
                ep < 2 || zero <= most,
                "{task} {profile}: EP {ep} ZeRO-{zero}"
            );
        }
    }
}
