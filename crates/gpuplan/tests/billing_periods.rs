//! Subscriptions are bought only in the periods the provider's API accepts
//! (crates/gpuplan-core/data/catalog/periods.toml): a plan's pure monthly row buys the shortest
//! accepted period that covers the job, a mix the longest accepted period that ends before it,
//! and the export writes that period with the remainder the plan priced after it.

mod common;
use gpuplan_core::catalog::Provider;
use gpuplan_core::plan::periods;
use serde_json::Value;
use std::process::Command;

const ARGS: [&str; 8] = [
    "-m",
    "Llama-3.1-8B",
    "--task",
    "pretrain",
    "--tokens",
    "8e12",
    "--deadline",
    "400d",
];

fn plan_json() -> Value {
    let o = common::output_checked(
        Command::new(env!("CARGO_BIN_EXE_gpuplan"))
            .env("GPUPLAN_CONFIG_DIR", std::env::temp_dir())
            .args(["plan", "--format", "json", "--top", "20"])
            .args(ARGS),
    );
    serde_json::from_slice(&o.stdout).unwrap()
}

#[test]
fn monthly_and_mixed_rows_buy_only_accepted_periods() {
    let accepted = periods::of(Provider::Alibaba).unwrap().months();
    let v = plan_json();
    let plans = v["outcome"]["plans"].as_array().unwrap();
    let mut refused_month_counts = 0;
    for p in plans
        .iter()
        .filter(|p| p["instance"]["provider"] == "alibaba")
    {
        let hours = p["hours"].as_f64().unwrap();
        let need = (hours / 730.0).ceil() as u64;
        refused_month_counts += usize::from(!accepted.contains(&need));
        for c in p["costs"].as_array().unwrap() {
            let Some(m) = c["months"].as_u64() else {
                continue;
            };
            assert!(accepted.contains(&m), "{m} months: {c}");
            let want = if c.get("mix").is_some() {
                accepted.iter().rev().find(|&&a| (a as f64) * 730.0 < hours)
            } else {
                accepted.iter().find(|&&a| a >= need)
            };
            assert_eq!(Some(&m), want, "{hours} h: {c}");
        }
    }
    // The scenario exercises the rule: some plan runs a month count the API refuses (10, 11, 13…).
    assert!(refused_month_counts > 0, "no plan needs a refused period");
}

#[test]
fn the_export_subscribes_the_plan_period_and_states_the_priced_remainder() {
    let v = plan_json();
    let plans = v["outcome"]["plans"].as_array().unwrap();
    let (i, p) = plans
        .iter()
        .enumerate()
        .find(|(_, p)| p["chosen"].get("mix").is_some())
        .expect("a mixed plan");
    let mix = &p["chosen"]["mix"];
    let dir = std::env::temp_dir().join(format!("gpuplan-periods-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    common::output_checked(
        Command::new(env!("CARGO_BIN_EXE_gpuplan"))
            .env("GPUPLAN_CONFIG_DIR", std::env::temp_dir())
            .args(["plan", "--top", "20", "--pick", &(i + 1).to_string()])
            .args(["--export", dir.to_str().unwrap()])
            .args(ARGS),
    );
    let script = std::fs::read_to_string(dir.join("cloud/create-instances.sh")).unwrap();
    let _ = std::fs::remove_dir_all(&dir);
    let months = mix["months"].as_u64().unwrap();
    assert!(script.contains(&format!("--Period {months} ")), "{script}");
    let rest_h = mix["remainder_hours"].as_f64().unwrap();
    let rest_cny = mix["remainder_cny"].as_f64().unwrap();
    let months_cny = mix["months_cny"].as_f64().unwrap();
    for part in [
        format!("{months} month(s) subscribed here per node (¥{months_cny:.0}"),
        format!(
            "remaining {rest_h:.0} h ({:.1} d) on-demand at ¥{rest_cny:.0}",
            rest_h / 24.0
        ),
    ] {
        assert!(script.contains(&part), "{part}\n{script}");
    }
}
