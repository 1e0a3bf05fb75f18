//! `gpuplan prices` listing, `--by-gpu`, price ages in plans, `plan --max-price-age`, and the
//! issue-12 scenario: once prices are fetched, a plan on `--provider tencent` and on
//! `--provider huawei` ranks by ¥ (fetched-fixture catalogs written as `prices fetch` writes them).

mod common;
use gpuplan_core::catalog::{
    Billing, Catalog, CatalogFile, Confidence, Origin, Price, PriceKind, Provider,
};
use std::path::{Path, PathBuf};
use std::process::{Command, Output};

fn tmpdir(tag: &str) -> PathBuf {
    let d = common::scratch().join(format!(
        "gpuplan-prices-{tag}-{}-{}",
        std::process::id(),
        std::time::SystemTime::now()
            .duration_since(std::time::UNIX_EPOCH)
            .map(|d| d.as_nanos())
            .unwrap_or(0)
    ));
    std::fs::create_dir_all(d.join("catalog")).unwrap();
    d
}

fn today() -> String {
    let secs = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map(|d| d.as_secs() as i64)
        .unwrap_or(0);
    gpuplan_core::signing::UtcTime::from_unix(secs).date()
}

fn run(dir: &Path, args: &[&str]) -> Output {
    common::output_checked(
        Command::new(env!("CARGO_BIN_EXE_gpuplan"))
            .args(args)
            .env("GPUPLAN_CONFIG_DIR", dir),
    )
}

/// A fetched-price file as `prices fetch` writes it: on-demand `api` prices for every GPU type of
/// `p`, `per_gpu` CNY per GPU-hour.
fn write_fetched(dir: &Path, p: Provider, region: &str, per_gpu: f64) {
    let cat = Catalog::builtin().unwrap();
    let mut f = CatalogFile::default();
    for i in cat
        .instances
        .iter()
        .filter(|i| i.provider == p && i.gpu_count >= 1.0 && i.gpu_is_mapped())
    {
        f.price.push(Price {
            instance: i.id.clone(),
            provider: p,
            region: region.into(),
            billing: Billing::OnDemand,
            cny: (per_gpu * i.gpu_count * 100.0).round() / 100.0,
            kind: PriceKind::Api,
            as_of: today(),
            source: format!("fixture API {region} (fetched {}T00:00:00Z)", today()),
            confidence: Some(Confidence::Confirmed),
            method: None,
            method_zh: None,
            origin: Origin::Builtin,
        });
    }
    let text = toml::to_string(&f).unwrap();
    std::fs::write(
        dir.join("catalog")
            .join(format!("prices-{}.toml", p.name())),
        text,
    )
    .unwrap();
}

fn json(o: &Output) -> serde_json::Value {
    assert!(
        o.status.success() || o.status.code() == Some(4),
        "{}",
        String::from_utf8_lossy(&o.stderr)
    );
    serde_json::from_slice(&o.stdout).unwrap()
}

const JOB: &[&str] = &[
    "plan",
    "--model",
    "Qwen2.5-7B",
    "--task",
    "lora",
    "--seq-len",
    "2048",
    "--tokens",
    "1e8",
    "--format",
    "json",
    "--top",
    "5",
];

#[test]
fn fetched_prices_rank_tencent_and_huawei_plans_by_cny() {
    let dir = tmpdir("scenario");
    write_fetched(&dir, Provider::Tencent, "ap-guangzhou", 9.0);
    write_fetched(&dir, Provider::Huawei, "cn-north-4", 11.0);
    for provider in ["tencent", "huawei"] {
        let mut args = JOB.to_vec();
        args.extend(["--provider", provider]);
        let v = json(&run(&dir, &args));
        let plans = v["outcome"]["plans"].as_array().unwrap();
        assert!(!plans.is_empty(), "{provider}: no plan");
        let top = &plans[0]["chosen"];
        assert_eq!(top["price"]["kind"], "api", "{provider}: {top}");
        assert_eq!(top["price"]["provider"], provider);
        // Ranked by ¥: the priced plans' costs never decrease down the list.
        let costs: Vec<f64> = plans
            .iter()
            .filter_map(|p| p["chosen"]["cny"].as_f64())
            .collect();
        assert!(costs.len() >= 2, "{provider}: {costs:?}");
        assert!(
            costs.windows(2).all(|w| w[0] <= w[1] + 1e-9),
            "{provider}: {costs:?}"
        );
        // Fresh prices: age 0, no stale warning.
        let ages = v["price_ages"].as_array().unwrap();
        assert_eq!(ages[0]["age_days"], 0);
    }
    // --by-gpu compares the same chip across providers, per GPU-hour.
    let v = json(&run(
        &dir,
        &["prices", "--by-gpu", "--gpu", "t4", "--format", "json"],
    ));
    let rows = v["by_gpu"].as_array().unwrap();
    let t4: Vec<_> = rows.iter().filter(|r| r["gpu"] == "t4").collect();
    assert!(t4.len() >= 2, "{rows:?}");
    assert_eq!(t4[0]["provider"], "tencent");
    assert!((t4[0]["cny_per_gpu_hour"].as_f64().unwrap() - 9.0).abs() < 0.01);
    assert_eq!(t4[0]["vs_cheapest"], 1.0);
    assert!(t4[1]["vs_cheapest"].as_f64().unwrap() > 1.0);
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn old_prices_warn_with_the_refresh_command_and_max_price_age_drops_them() {
    let dir = tmpdir("age");
    let mut args = JOB.to_vec();
    args.extend(["--provider", "alibaba", "--region", "cn-shanghai"]);
    let o = run(&dir, &args);
    let err = String::from_utf8_lossy(&o.stderr);
    assert!(
        err.contains("days old (as of 2023-06)")
            && err.contains("refresh it with `gpuplan prices fetch alibaba --instance ecs.")
            && err.contains("--region cn-shanghai --billing"),
        "{err}"
    );
    let v = json(&o);
    assert!(v["price_ages"][0]["age_days"].as_i64().unwrap() > 90);
    // --max-price-age drops the 2023 prices: no plan is priced, and the note says how many.
    args.extend(["--max-price-age", "30d"]);
    let o = run(&dir, &args);
    let err = String::from_utf8_lossy(&o.stderr);
    assert!(err.contains("older than 30 days are ignored"), "{err}");
    let v = json(&o);
    assert!(v["outcome"]["plans"][0]["chosen"].is_null());
    // A bad value names the flag and the fix, exit 2.
    let mut bad = JOB.to_vec();
    bad.extend(["--max-price-age", "soon"]);
    let o = run(&dir, &bad);
    assert_eq!(o.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&o.stderr).contains("--max-price-age `soon`: give days"));
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn prices_lists_kind_region_and_age() {
    let dir = tmpdir("list");
    let o = run(
        &dir,
        &["prices", "--provider", "tencent", "--format", "csv"],
    );
    assert!(o.status.success());
    let csv = String::from_utf8_lossy(&o.stdout);
    assert!(csv.starts_with("provider,instance,gpu,gpu_count,region,billing,cny,cny_per_gpu_hour,kind,as_of,age_days,source"));
    assert!(
        csv.lines().any(|l| l
            .starts_with("tencent,GT4.4XLARGE96,a100-40g,1,unspecified,monthly,12948,")
            && l.contains(",list,2026-06-15,")),
        "{csv}"
    );
    let o = run(
        &dir,
        &["prices", "--billing", "spot", "--provider", "huawei"],
    );
    assert!(o.status.success());
    assert!(String::from_utf8_lossy(&o.stderr).contains("prices fetch"));
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn fetch_dry_run_lists_the_tasks_and_checks_the_types() {
    let dir = tmpdir("dry");
    let o = run(
        &dir,
        &[
            "prices",
            "fetch",
            "tencent",
            "--family",
            "GN7",
            "--region",
            "ap-guangzhou",
            "--billing",
            "on-demand,spot",
            "--dry-run",
        ],
    );
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    let out = String::from_utf8_lossy(&o.stdout);
    assert!(
        out.contains("GN7.2XLARGE32 ap-guangzhou on-demand"),
        "{out}"
    );
    assert!(out.contains("GN7.2XLARGE32 ap-guangzhou spot"), "{out}");
    assert!(out.lines().all(|l| l.starts_with("GN7.")), "{out}");
    assert!(!dir.join("catalog/prices-tencent.toml").exists());
    // A type of another provider, and an unknown family: exit 2, naming the fix.
    let o = run(
        &dir,
        &[
            "prices",
            "fetch",
            "tencent",
            "--instance",
            "ecs.gn7i-c8g1.2xlarge",
            "--dry-run",
        ],
    );
    assert_eq!(o.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&o.stderr).contains("belongs to alibaba, not tencent"));
    let o = run(
        &dir,
        &["prices", "fetch", "huawei", "--family", "nope", "--dry-run"],
    );
    assert_eq!(o.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&o.stderr).contains("--family nope"));
    let o = run(
        &dir,
        &[
            "prices",
            "fetch",
            "huawei",
            "--endpoint",
            "bss.example.com",
            "--dry-run",
        ],
    );
    assert_eq!(o.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&o.stderr).contains("https://"));
    let _ = std::fs::remove_dir_all(&dir);
}
