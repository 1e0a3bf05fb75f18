//! Audit r13: each test runs the CLI as a user does and asserts the property the finding broke.

mod common;
use common::{stderr, stdout, write_temp};

const TAG: &str = "audit-r13";

/// Exit `code` with every phrase of `phrases` present (`!phrase`: absent).
fn refused(args: &[&str], code: i32, phrases: &[&str]) -> std::process::Output {
    common::assert_refused(TAG, args, code, phrases)
}

/// #1: `catalog instances --gpu zzz` printed an empty table and `prices --gpu zzz` "no prices
/// match", exit 0, where `plan --gpu zzz` refused the value naming the known ids.
#[test]
fn a_gpu_filter_that_matches_no_accelerator_is_refused_everywhere() {
    let known = ["--gpu zzz", "known ids", "a100-80g"];
    refused(&["catalog", "instances", "--gpu", "zzz"], 2, &known);
    refused(
        &["catalog", "instances", "--format", "json", "--gpu", "zzz"],
        2,
        &known,
    );
    refused(&["prices", "--gpu", "zzz"], 2, &known);
    refused(&["prices", "--by-gpu", "--gpu", "zzz"], 2, &known);
    refused(
        &["plan", "-m", "Qwen2.5-7B", "--task", "lora", "--gpu", "zzz"],
        2,
        &known,
    );
    // A prefix or name that matches still lists its types.
    for q in ["A100", "a10", "910B", "nvidia h100"] {
        let o = common::run(TAG, &["catalog", "instances", "--gpu", q]);
        assert_eq!(o.status.code(), Some(0), "{q}: {}", stderr(&o));
        assert!(!stdout(&o).contains("\n0 instance types"), "{q}");
    }
}

/// #6: `catalog instances --region zzz` printed an empty table, exit 0: no row of the catalog
/// names that region, so the filter can list nothing.
#[test]
fn a_region_filter_no_row_names_is_refused() {
    refused(
        &["catalog", "instances", "--region", "zzz"],
        2,
        &["--region zzz", "known", "cn-shanghai", "without --region"],
    );
    refused(
        &["catalog", "instances", "--region", "cn-shangai"],
        2,
        &["did you mean cn-shanghai"],
    );
    for r in ["cn-shanghai", "ap-guangzhou"] {
        let o = common::run(TAG, &["catalog", "instances", "--region", r]);
        assert_eq!(o.status.code(), Some(0), "{r}: {}", stderr(&o));
        assert!(!stdout(&o).contains("\n0 instance types"), "{r}");
    }
}

/// #2: valid Huawei, Tencent and Alibaba responses that list no GPU type (an empty list, CPU
/// flavors only) said "imported 0 instance type(s)", exit 0, and wrote an empty import file.
#[test]
fn an_import_without_one_gpu_type_is_refused() {
    let cpu_flavor = r#"{"flavors":[{"name":"c7.large.2","vcpus":"2","ram":4096,
        "os_extra_specs":{"ecs:performancetype":"computingv3"}}]}"#;
    let cases = [
        (
            "huawei",
            "hw-empty.json",
            r#"{"flavors":[]}"#,
            "ListFlavors",
        ),
        ("huawei", "hw-cpu.json", cpu_flavor, "ListFlavors"),
        (
            "tencent",
            "tc-empty.json",
            r#"{"Response":{"InstanceTypeQuotaSet":[]}}"#,
            "DescribeZoneInstanceConfigInfos",
        ),
        (
            "alibaba",
            "ali-empty.json",
            r#"{"InstanceTypes":{"InstanceType":[]}}"#,
            "DescribeInstanceTypes",
        ),
    ];
    let cfg = common::scratch().join(format!("gpuplan-{TAG}-{}", std::process::id()));
    for (provider, name, body, api) in cases {
        let f = write_temp(TAG, name, body);
        let path = f.to_str().unwrap();
        for dry in [false, true] {
            let mut args = vec!["catalog", "import", provider, path];
            if dry {
                args.push("--dry-run");
            }
            refused(&args, 2, &["nothing to import", api, "is unchanged"]);
        }
        let written = cfg
            .join("catalog")
            .join(format!("imported-{provider}.toml"));
        assert!(!written.exists(), "{} was written", written.display());
        let _ = std::fs::remove_file(f);
    }
}

/// The number before " GPU-hours" in `estimate`'s job line.
fn gpu_hours_shown(text: &str) -> f64 {
    let before = text.split(" GPU-hours").next().unwrap();
    let word = before.rsplit(' ').next().unwrap();
    word.parse()
        .unwrap_or_else(|e| panic!("{e}: {word:?} in {text}"))
}

/// #3: a 1000-token job on one A100 (one step, ~0.1 s) read "job: 1.0K tokens in 1 steps: 60.7 ms
/// wall-clock, 0 GPU-hours": the GPU-hours keep two significant digits, one step is singular.
#[test]
fn a_tiny_job_shows_its_gpu_hours() {
    let base = [
        "estimate",
        "-m",
        "Qwen2.5-0.5B",
        "--task",
        "lora",
        "--gpu",
        "A100",
    ];
    for tokens in ["1000", "1e6", "1e9"] {
        let mut args = base.to_vec();
        args.extend(["--tokens", tokens]);
        let o = common::run(TAG, &args);
        assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
        let text = common::one_line(&o);
        let shown = gpu_hours_shown(&text);
        args.extend(["--format", "json"]);
        let v: serde_json::Value = serde_json::from_slice(&common::run(TAG, &args).stdout).unwrap();
        let h = v["estimate"]["totals"]["gpu_hours"].as_f64().unwrap();
        assert!(h > 0.0 && shown > 0.0, "{tokens}: {h} shown as {shown}");
        // Two significant digits below 100, whole hours above.
        let tol = if h >= 100.0 { 0.5 } else { 0.05 * h };
        assert!((shown - h).abs() <= tol, "{tokens}: {h} shown as {shown}");
        assert!(!text.contains(" 1 steps"), "{text}");
    }
}

/// #4: `--set layer_overhead_s` at or above 155 µs was refused for every command, also for
/// training, which never reads it: it is refused where the decode latency reads it.
#[test]
fn layer_overhead_is_checked_only_where_serving_reads_it() {
    let set = ["--set", "layer_overhead_s=1e-3"];
    let train: &[&[&str]] = &[
        &[
            "estimate",
            "-m",
            "Qwen2.5-7B",
            "--task",
            "lora",
            "--gpu",
            "A100",
        ],
        &[
            "plan",
            "-m",
            "Qwen2.5-7B",
            "--task",
            "lora",
            "--tokens",
            "1e8",
            "--format",
            "json",
        ],
    ];
    for args in train {
        let mut a = args.to_vec();
        a.extend(set);
        let o = common::run(TAG, &a);
        assert_eq!(o.status.code(), Some(0), "{a:?}: {}", stderr(&o));
    }
    let serve: &[&[&str]] = &[
        &[
            "estimate",
            "-m",
            "Qwen2.5-7B",
            "--task",
            "inference",
            "--gpu",
            "A100",
        ],
        &[
            "plan",
            "-m",
            "Qwen2.5-7B",
            "--task",
            "inference",
            "--rate",
            "2",
        ],
    ];
    for args in serve {
        let mut a = args.to_vec();
        a.extend(set);
        refused(&a, 2, &["layer_overhead_s", "155 µs"]);
    }
}

/// #5: `--tokens 0.5`, `--samples 1e-3` and 1000 samples × 1e-9 epochs were taken and read
/// "job: 0 tokens in 1 steps": a job is at least one token or sample.
#[test]
fn a_job_below_one_token_or_sample_is_refused() {
    let llm = [
        "estimate",
        "-m",
        "Qwen2.5-7B",
        "--task",
        "lora",
        "--gpu",
        "A100",
    ];
    let cnn = [
        "estimate",
        "-m",
        "ResNet-50",
        "--task",
        "pretrain",
        "--gpu",
        "A100",
    ];
    let cases: [(&[&str], &[&str], &[&str]); 5] = [
        (&llm, &["--tokens", "0.5"], &["`tokens`", "at least 1"]),
        (&llm, &["--tokens", "1e-5"], &["`tokens`", "at least 1"]),
        (
            &cnn,
            &["--samples", "1e-3", "--epochs", "1"],
            &["`samples`", "at least 1"],
        ),
        (
            &cnn,
            &["--samples", "1000", "--epochs", "1e-9"],
            &["`epochs`", "samples × epochs"],
        ),
        (
            &["plan", "-m", "Qwen2.5-7B", "--task", "lora"],
            &["--tokens", "0.1"],
            &["`tokens`", "at least 1"],
        ),
    ];
    for (base, extra, phrases) in cases {
        let mut a = base.to_vec();
        a.extend(extra);
        refused(&a, 2, phrases);
    }
    // One token, one sample, half an epoch of 1000 samples: still jobs.
    for (base, extra) in [
        (&llm[..], &["--tokens", "1"][..]),
        (&cnn[..], &["--samples", "1", "--epochs", "1"][..]),
        (&cnn[..], &["--samples", "1000", "--epochs", "0.5"][..]),
    ] {
        let mut a = base.to_vec();
        a.extend(extra);
        let o = common::run(TAG, &a);
        assert_eq!(o.status.code(), Some(0), "{a:?}: {}", stderr(&o));
    }
}

/// #7: a plan document whose `hours` is out of range was refused with its bound printed in full,
/// "(0, 1797693134862315700000…]" (309 digits).
#[test]
fn an_export_range_error_shows_a_readable_bound() {
    let mut v = common::plan_json(
        TAG,
        &["-m", "Qwen2.5-0.5B", "--task", "lora", "--tokens", "1e6"],
    );
    v["outcome"]["plans"][0]["hours"] = serde_json::json!(-5.0);
    let f = write_temp(TAG, "negative-hours.json", &v.to_string());
    let out = common::temp_path(TAG, "negative-hours-bundle");
    let o = refused(
        &["export", f.to_str().unwrap(), "--to", out.to_str().unwrap()],
        2,
        &["outcome.plans[0].hours", "-5", "(0, ∞]"],
    );
    assert!(stderr(&o).len() < 200, "{}", stderr(&o));
    assert!(!out.exists(), "the bundle was written");
    let _ = std::fs::remove_file(f);
}

/// #8: `plan --gpu 910B` (the default `--chips nvidia`), `--gpu H100 --chips ascend` and `--gpu
/// MI300X` (no instance type carries it) all ended in "no instance type matches the provider,
/// region and chip filters", exit 4, naming neither the flag nor the fix.
#[test]
fn a_gpu_the_chip_filter_or_the_catalog_rules_out_is_refused() {
    let plan = [
        "plan",
        "-m",
        "Qwen2.5-7B",
        "--task",
        "lora",
        "--tokens",
        "1e8",
    ];
    let cases: [(&[&str], &[&str]); 3] = [
        (
            &["--gpu", "910B"],
            &["--gpu 910B", "ascend", "--chips nvidia,ascend"],
        ),
        (
            &["--gpu", "H100", "--chips", "ascend"],
            &["--gpu H100", "nvidia", "--chips ascend,nvidia"],
        ),
        (
            &["--gpu", "MI300X", "--chips", "amd"],
            &["--gpu MI300X", "no instance type in the catalog carries"],
        ),
    ];
    for (extra, phrases) in cases {
        let mut a = plan.to_vec();
        a.extend(extra);
        refused(&a, 2, phrases);
    }
    // With the chip family allowed the search runs.
    let mut a = plan.to_vec();
    a.extend(["--gpu", "910B", "--chips", "ascend", "--format", "json"]);
    let o = common::run(TAG, &a);
    assert!(matches!(o.status.code(), Some(0)), "{}", stderr(&o));
}

/// #9: `chips = []` in a workload file (or the API's `constraints.chips`) allowed no chip family:
/// every search ended "no candidate instance type", exit 4, naming no field.
#[test]
fn an_empty_chip_list_is_refused() {
    let w = write_temp(
        TAG,
        "no-chips.toml",
        "model = \"Qwen2.5-7B\"\n[training]\ntask = \"lora\"\ntokens = 1e8\n\
         [constraints]\nchips = []\n",
    );
    refused(
        &["plan", "-w", w.to_str().unwrap()],
        2,
        &[
            "chips",
            "nvidia, ascend, amd",
            "!no candidate instance type",
        ],
    );
    let _ = std::fs::remove_file(w);
}

/// #10: a plan below ¥1 (a 1000-token LoRA job on a spot A10) read "¥0" in the table, and the
/// README plan's storage "¥0 for the job": below ¥1 two significant digits are shown.
#[test]
fn a_plan_below_one_yuan_shows_its_cost() {
    let args = [
        "-m",
        "Qwen2.5-0.5B",
        "--task",
        "lora",
        "--tokens",
        "1000",
        "--billing",
        "spot",
        "--interruptible",
    ];
    let v = common::plan_json(TAG, &args);
    let cny = common::plans(&v)[0]["chosen"]["cny"].as_f64().unwrap();
    assert!(
        cny > 0.0 && cny < 1.0,
        "plan 1 costs ¥{cny}: not the case this test is for"
    );
    let o = common::run(TAG, &[&["plan", "--top", "1"][..], &args].concat());
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    let out = stdout(&o);
    let row = out.lines().find(|l| l.starts_with("│1")).unwrap();
    let shown = format!("¥{}", gpuplan_core::units::cny_figure(cny));
    assert!(
        shown.starts_with("¥0.") && row.contains(&shown),
        "{shown} not in {row}"
    );
    let readme = common::run(TAG, common::README_PLAN);
    let text = common::one_line(&readme);
    assert!(!text.contains(": ¥0 for the job"), "{text}");
}

/// #11: `plan --pick 2` (or `--force`) without `--export` was accepted and did nothing.
#[test]
fn pick_and_force_need_export() {
    let plan = [
        "plan",
        "-m",
        "Qwen2.5-7B",
        "--task",
        "lora",
        "--tokens",
        "1e8",
    ];
    for extra in [&["--pick", "2"][..], &["--force"][..]] {
        refused(&[&plan[..], extra].concat(), 2, &["--export"]);
    }
}

/// #12: `plan --export FILE` where FILE is a regular file read "cannot write FILE (nothing of the
/// bundle was replaced): File exists (os error 17)": the folder of the bundle is a file.
#[cfg(unix)]
#[test]
fn exporting_into_a_file_says_it_is_not_a_folder() {
    let f = write_temp(TAG, "not-a-folder.txt", "keep me\n");
    let path = f.to_str().unwrap();
    refused(
        &[
            "plan",
            "-m",
            "Qwen2.5-0.5B",
            "--task",
            "lora",
            "--tokens",
            "1e6",
            "--export",
            path,
        ],
        2,
        &["cannot write", "Not a directory", "!File exists"],
    );
    assert_eq!(std::fs::read_to_string(&f).unwrap(), "keep me\n");
    let _ = std::fs::remove_file(f);
}
