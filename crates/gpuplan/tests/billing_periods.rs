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
            .env("GPUPLAN_CONFIG_DIR", common::scratch())
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
    let dir = common::scratch().join(format!("gpuplan-periods-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    common::output_checked(
        Command::new(env!("CARGO_BIN_EXE_gpuplan"))
            .env("GPUPLAN_CONFIG_DIR", common::scratch())
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

fn run_plan(args: &[&str]) -> std::process::Output {
    Command::new(env!("CARGO_BIN_EXE_gpuplan"))
        .env("GPUPLAN_CONFIG_DIR", common::scratch())
        .arg("plan")
        .args(args)
        .output()
        .unwrap()
}

/// Review r7 #2: `--billing monthly` for a job longer than the longest period the provider
/// accepts (Tencent: 60 months). A ≈ 5.5-year and a ≈ 103-year job buy consecutive accepted
/// periods (60 × N + what is left, by the same rule), are priced — with a budget they fit, not
/// "unpriced" — and their export buys the first period and names the renewals.
#[test]
fn a_job_past_the_longest_period_buys_consecutive_periods_within_a_budget() {
    for (tokens, years) in [("4.5e12", 5.0), ("8.5e13", 100.0)] {
        let base = [
            "-m",
            "Llama-3.1-8B",
            "--task",
            "pretrain",
            "--tokens",
            tokens,
            "--max-nodes",
            "1",
            "--billing",
            "monthly",
            "--top",
            "1",
        ];
        let o = run_plan(&[&base[..], &["--format", "json"]].concat());
        let v: Value = serde_json::from_slice(&o.stdout).unwrap();
        let p = &v["outcome"]["plans"][0];
        let ch = &p["chosen"];
        let provider: Provider = serde_json::from_value(p["instance"]["provider"].clone()).unwrap();
        let ps = periods::of(provider).unwrap();
        let longest = *ps.months().last().unwrap();
        let hours = p["hours"].as_f64().unwrap();
        assert!(
            hours > years * 8760.0 && hours > longest as f64 * 730.0,
            "{hours}"
        );
        let months = ch["months"].as_u64().unwrap();
        assert_eq!(
            months,
            (hours / 730.0).ceil() as u64,
            "exact cover: 1 month is accepted"
        );
        let parts = ps.consecutive(months);
        assert!(parts.iter().all(|(m, _)| ps.spell(*m).is_some()) && parts[0].0 == longest);
        let list: Vec<String> = parts.iter().map(|(m, k)| format!("{k} × {m}")).collect();
        let list = list.join(" + ");
        assert!(ch["note"]
            .as_str()
            .unwrap()
            .contains(&format!("bought as {list} months")));
        // A budget the monthly price fits keeps the plan (it was dropped as "unpriced").
        let cny = ch["cny"].as_f64().unwrap();
        let budget = format!("{:.0}", cny * 1.01);
        let o = run_plan(&[&base[..], &["--format", "json", "--budget", &budget]].concat());
        let b: Value = serde_json::from_slice(&o.stdout).unwrap();
        assert_eq!(
            b["outcome"]["plans"][0]["chosen"]["cny"].as_f64(),
            Some(cny),
            "{b}"
        );
        let dir = common::scratch().join(format!("gpuplan-long-{}-{tokens}", std::process::id()));
        let _ = std::fs::remove_dir_all(&dir);
        let o = run_plan(
            &[
                &base[..],
                &["--pick", "1", "--export", dir.to_str().unwrap()],
            ]
            .concat(),
        );
        assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
        let script = std::fs::read_to_string(dir.join("cloud/create-instances.sh")).unwrap();
        let _ = std::fs::remove_dir_all(&dir);
        assert!(
            script.contains(&format!(
                "as consecutive periods {list}: this command buys the first {longest}-month period"
            )),
            "{script}"
        );
    }
}

/// A plan past the export's 1e7 h (2,282 years: 2 nodes, 70B, 2 × 10¹³ tokens) is refused by its
/// length, never clamped or written. (Plan audit r22 #2: 10¹³ tokens took 1,207 years with a
/// 920 GiB checkpoint paid every hour; at Daly's 29-hour optimum they take 1,141 years, 9.995e6 h,
/// just under the export's bound, so the job was doubled.)
#[test]
fn the_export_refuses_a_plan_longer_than_it_writes_by_its_length() {
    let dir = common::scratch().join(format!("gpuplan-too-long-{}", std::process::id()));
    let o = run_plan(&[
        "-m",
        "Llama-3.1-70B",
        "--task",
        "pretrain",
        "--tokens",
        "2e13",
        "--max-nodes",
        "2",
        "--pick",
        "1",
        "--export",
        dir.to_str().unwrap(),
    ]);
    let err = String::from_utf8_lossy(&o.stderr);
    assert!(!o.status.success() && !dir.join("cloud").exists(), "{err}");
    assert!(
        err.contains("the plan runs") && err.contains("years), longer than the 10000000 h"),
        "{err}"
    );
}
