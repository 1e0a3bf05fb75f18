//! Audit r7 (notes/audit-r7.md) findings on serving plans. Each test runs the CLI as a user does
//! and asserts the property.

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

fn plans(v: &Value) -> &Vec<Value> {
    v["outcome"]["plans"].as_array().unwrap()
}

/// #1: `--concurrency 16` on 2 replicas of 52 slots was planned as a Poisson queue at 96% of
/// capacity, "1.49 s waiting for one of the 52 batch slots". A concurrency is a closed load:
/// each replica holds C × peak / replicas requests, none waits for a slot while they fit, and the
/// rate follows from them (Little's law), far below the open-load capacity.
#[test]
fn a_concurrency_is_a_closed_load_without_invented_slot_waits() {
    for (model, c, extra) in [
        ("Qwen2.5-7B", 16u64, vec!["--provider", "alibaba"]),
        (
            "DeepSeek-R1-Distill-Qwen-32B",
            32,
            vec!["--output-tokens", "4000"],
        ),
    ] {
        let cs = c.to_string();
        let mut args = vec!["-m", model, "--task", "inference", "--concurrency", &cs];
        args.extend(extra);
        let v = plan_json(&args);
        assert!(!plans(&v).is_empty(), "{model}");
        for p in plans(&v) {
            let s = &p["serve"];
            let (replicas, slots) = (
                s["replicas"].as_f64().unwrap(),
                s["batch_per_replica"].as_f64().unwrap(),
            );
            let l = &s["load"];
            let in_flight = l["in_flight"].as_f64().unwrap_or_else(|| panic!("{l}"));
            assert!((in_flight - c as f64 * 1.25 / replicas).abs() < 1e-9, "{s}");
            assert!(in_flight <= slots, "{s}");
            assert_eq!(l["ttft_slot_wait"].as_f64(), Some(0.0), "{model}: {l}");
            assert_eq!(l["ttft_queue"].as_f64(), Some(0.0), "{model}: {l}");
            // Little's law: rate × time in the system = requests in flight.
            let (rate, ttft, tpot) = (
                l["rate_rps"].as_f64().unwrap(),
                l["ttft"].as_f64().unwrap(),
                l["time_per_token"].as_f64().unwrap(),
            );
            let out: f64 = if model == "Qwen2.5-7B" { 300.0 } else { 4000.0 };
            let little = rate * (ttft + out * tpot);
            assert!(
                (little - in_flight).abs() < 0.02 * in_flight,
                "{little} vs {in_flight}: {l}"
            );
        }
    }
}
