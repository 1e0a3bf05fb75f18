//! Audit r7 (notes/audit-r7.md), the user-facing findings fixed on wt-fix2: checkpoint stalls in
//! the storage choice and advice (#4), auto-release on prepaid plans (#10), negative numbers on
//! the command line (#9), serving fleets over --max-nodes (#11), the Tencent export's region
//! (#13), serde's Rust words in workload and API errors (#15, #23) and the refresh command's
//! region (#16). Each test runs the CLI as a user does and asserts the property.

mod common;
use common::{advice, plans};
use serde_json::Value;
use std::process::Output;

fn run(args: &[&str]) -> Output {
    common::run("audit-r7", args)
}

fn plan_json(args: &[&str]) -> Value {
    common::plan_json("audit-r7", args)
}

/// The hourly checkpoint stall, as the plan's hours count it: the storage's write time, or the
/// 100 MB/s fallback where the provider has no storage class in the catalog.
fn write_s(p: &Value) -> f64 {
    let t = &p["train"];
    t["storage"]["checkpoint_write_s"]
        .as_f64()
        .unwrap_or_else(|| t["data"]["checkpoint_size"].as_f64().unwrap() / 100e6)
}

/// The advice fires on exactly the plans whose stall, one per interval the hours pay
/// (`train.checkpoints.interval_s`: Daly's optimum, or the user's since plan audit r22), is over
/// 10% of the time.
fn stalls_named_iff_over_a_tenth(v: &Value) -> usize {
    let mut named = 0;
    for p in plans(v) {
        let w = write_s(p);
        let every = p["train"]["checkpoints"]["interval_s"].as_f64().unwrap();
        let share = w / (every + w);
        let long = p["hours"].as_f64().unwrap() * 3600.0 >= every + w;
        let fired = advice(p, "checkpoint-stalls").is_some();
        assert_eq!(fired, long && share > 0.10, "{share} {}", p["advice"]);
        named += usize::from(fired);
    }
    named
}

/// #4: the 70B full fine-tune wrote a 920 GiB checkpoint for 1840 s every hour to the cheapest
/// NAS (chosen by its read rate only), a third of the job's hours, and nothing said so. The
/// storage is now chosen for rent + the GPU time its writes stall, and a plan whose stalls still
/// exceed 10% of its time says so (en and zh).
#[test]
fn checkpoint_stalls_choose_the_storage_and_are_named_when_large() {
    let job = ["-m", "Llama-3.1-70B", "--task", "full", "--tokens", "1e9"];
    let mut a = job.to_vec();
    a.extend_from_slice(&["--provider", "alibaba"]);
    let v = plan_json(&a);
    let top = &plans(&v)[0];
    let st = &top["train"]["storage"];
    assert!(write_s(top) < 1840.0 / 3.0, "{st}");
    // Review r7 #2: a general-purpose NAS (throughput follows the data stored, billed on used
    // capacity) is never bought past the data and the three checkpoints it stores.
    let gib = |b: &Value| b.as_f64().unwrap() / 1024f64.powi(3);
    let hold = gib(&top["train"]["data"]["dataset_size"])
        + 3.0 * gib(&top["train"]["data"]["checkpoint_size"]);
    assert_eq!(st["class"]["id"], "alibaba-nas-performance", "{st}");
    assert!(
        st["capacity_gib"].as_f64().unwrap() <= hold.ceil() + 1.0,
        "{st} {hold}"
    );
    // 66 h of steps (63 h before round 8 charged the overlapped ZeRO-3 traffic's NCCL CTAs to
    // compute, train/contention.rs: 1.39 s of a 31.1 s step): the stalls are a few hours (8.2 h of
    // 74.4), not 32.
    assert!(top["hours"].as_f64().unwrap() < 76.0, "{}", top["hours"]);
    stalls_named_iff_over_a_tenth(&v);
    // Unpriced GPUs (nothing to weigh the stalls against) keep the slow NAS: named at the hourly
    // interval this audit planned with (plan audit r22: stated now; at Daly's 57-hour optimum for
    // 16 GPUs the same 1840 s writes are under 1% of the time, and not named).
    let mut a = job.to_vec();
    a.extend_from_slice(&["--max-nodes", "2", "--set", "checkpoint_interval_hours=1"]);
    let v = plan_json(&a);
    assert!(stalls_named_iff_over_a_tenth(&v) > 0);
    let m = advice(&plans(&v)[0], "checkpoint-stalls").unwrap();
    let (en, zh) = (m["en"].as_str().unwrap(), m["zh"].as_str().unwrap());
    assert!(en.contains("1840 s") && en.contains("--async-save"), "{en}");
    assert!(zh.contains("1840 秒") && zh.contains("异步保存"), "{zh}");
    // Tencent (plan audit r22: a CFS class is now sized, 839 MB/s, where the 100 MB/s fallback
    // was assumed), at the hourly interval.
    let mut a = job.to_vec();
    a.extend_from_slice(&[
        "--provider",
        "tencent",
        "--set",
        "checkpoint_interval_hours=1",
    ]);
    assert!(stalls_named_iff_over_a_tenth(&plan_json(&a)) > 0);
}

/// #10: a plan billed by whole prepaid months was told to set an auto-release time (releasing
/// early saves nothing); pay-as-you-go and spot plans keep the advice.
#[test]
fn auto_release_only_on_plans_billed_by_use() {
    let v = plan_json(&[
        "-m",
        "Qwen2.5-7B",
        "--task",
        "lora",
        "--tokens",
        "1e8",
        "--provider",
        "alibaba",
        "--billing",
        "monthly",
    ]);
    assert!(!plans(&v).is_empty());
    for p in plans(&v) {
        assert_eq!(p["chosen"]["billing"], "monthly", "{}", p["chosen"]);
        assert!(advice(p, "auto-release").is_none(), "{}", p["advice"]);
    }
    let v = plan_json(&["-m", "Qwen2.5-7B", "--task", "lora", "--tokens", "1e8"]);
    for p in plans(&v) {
        let by_use = p["chosen"]["billing"] != "monthly" || !p["chosen"]["mix"].is_null();
        assert_eq!(
            advice(p, "auto-release").is_some(),
            by_use,
            "{}",
            p["chosen"]
        );
    }
}

/// #9: `--tokens -1e8` and `--budget -5` gave clap's "unexpected argument '-1'", naming neither
/// the flag nor its range; now the value reaches the flag's check (en and zh).
#[test]
fn negative_numbers_reach_the_flags_own_check() {
    let base = ["plan", "-m", "Qwen2.5-7B", "--task", "lora"];
    for (flag, value, said) in [
        ("--tokens", "-1e8", "positive"),
        ("--budget", "-5", "budget"),
        ("--deadline", "-3", "deadline"),
        ("--dataset-size", "-3TB", "dataset"),
        ("--max-nodes", "-2", "--max-nodes"),
    ] {
        for lang in ["en", "zh"] {
            let mut a = base.to_vec();
            a.extend_from_slice(&[flag, value, "--lang", lang]);
            if flag != "--tokens" {
                a.extend_from_slice(&["--tokens", "1e8"]);
            }
            let o = run(&a);
            let err = String::from_utf8_lossy(&o.stderr);
            assert_eq!(o.status.code(), Some(2), "{flag} {lang}: {err}");
            assert!(!err.contains("unexpected argument"), "{flag}: {err}");
            assert!(!err.contains("无法识别的参数"), "{flag}: {err}");
            assert!(
                err.contains(said) || err.contains(flag),
                "{flag} {lang}: {err}"
            );
        }
    }
}

/// #11: `--min-replicas 1000` planned 125 nodes under the line "at most 16 nodes (--max-nodes)".
/// A serving fleet now keeps to --max-nodes, and when none can, the refusal names the flag and
/// the nodes needed.
#[test]
fn serving_fleets_keep_to_max_nodes() {
    let v = plan_json(&["-m", "Qwen2.5-7B", "--task", "inference", "--rate", "10"]);
    for p in plans(&v) {
        assert!(p["nodes"].as_u64().unwrap() <= 16, "{}", p["nodes"]);
    }
    let o = run(&[
        "plan",
        "--format",
        "json",
        "-m",
        "Qwen2.5-7B",
        "--task",
        "inference",
        "--rate",
        "10",
        "--min-replicas",
        "1000",
    ]);
    assert!(!o.status.success());
    let v: Value = serde_json::from_slice(&o.stdout).unwrap();
    assert!(plans(&v).is_empty(), "{}", plans(&v)[0]["nodes"]);
    let why = v["outcome"]["rejected"].to_string();
    assert!(
        why.contains("--max-nodes") && why.contains("more than 16 nodes"),
        "{why}"
    );
    let v = plan_json(&[
        "-m",
        "Qwen2.5-7B",
        "--task",
        "inference",
        "--rate",
        "10",
        "--min-replicas",
        "1000",
        "--max-nodes",
        "200",
    ]);
    let n = plans(&v)[0]["nodes"].as_u64().unwrap();
    assert!(n > 16 && n <= 200, "{n}");
}

/// #13: the Tencent bundle passed the literal `unspecified` to tccli as the region. A plan whose
/// price has no region now exports a required REGION (the script stops until it is set) and the
/// README says how to set it.
#[test]
fn tencent_export_requires_a_region_instead_of_a_fake_one() {
    let dir = common::scratch().join(format!("gpuplan-r7-tencent-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    let d = dir.to_str().unwrap();
    let o = run(&[
        "plan",
        "-m",
        "Qwen2.5-32B",
        "--task",
        "lora",
        "--tokens",
        "2e8",
        "--provider",
        "tencent",
        "--export",
        d,
    ]);
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    let sh = std::fs::read_to_string(dir.join("cloud/create-instances.sh")).unwrap();
    assert!(!sh.contains("unspecified"), "{sh}");
    assert!(sh.contains("REGION=\"${REGION:?set REGION"), "{sh}");
    let readme = std::fs::read_to_string(dir.join("README.txt")).unwrap();
    assert!(
        readme.contains("REGION=<region id> bash cloud/create-instances.sh"),
        "{readme}"
    );
    // With --region the script carries it (overridable).
    let _ = std::fs::remove_dir_all(&dir);
    let o = run(&[
        "plan",
        "-m",
        "Qwen2.5-32B",
        "--task",
        "lora",
        "--tokens",
        "2e8",
        "--provider",
        "tencent",
        "--region",
        "ap-beijing",
        "--export",
        d,
    ]);
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    let sh = std::fs::read_to_string(dir.join("cloud/create-instances.sh")).unwrap();
    assert!(sh.contains("REGION=\"${REGION:-ap-beijing}\""), "{sh}");
    let _ = std::fs::remove_dir_all(&dir);
}

/// #15: workload-file type errors said "expected u64" / "应为 u64" and "string" in Chinese; now
/// the expected kind is in words, with the fix for a quoted number.
#[test]
fn workload_type_errors_speak_words_not_rust() {
    let dir = common::scratch().join(format!("gpuplan-r7-wl-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let head = "model = \"Qwen2.5-7B\"\nkind = \"training\"\n[training]\ntask = \"lora\"\n";
    for (name, body, en, zh) in [
        (
            "neg",
            "micro_batch = -2\ntokens = 1e8\n",
            "expected a whole number (1 or more)",
            "应为正整数",
        ),
        (
            "quoted",
            "seq_len = \"2048\"\ntokens = 1e8\n",
            "write the number without quotes",
            "数字不要加引号",
        ),
        (
            "dl",
            "tokens = 1e8\n[constraints]\ndeadline_hours = \"24h\"\n",
            "expected a number",
            "应为数字",
        ),
    ] {
        let f = dir.join(format!("{name}.toml"));
        std::fs::write(&f, format!("{head}{body}")).unwrap();
        let f = f.to_str().unwrap();
        let o = run(&["plan", "--workload", f]);
        let err = String::from_utf8_lossy(&o.stderr).replace("\n  ", " ");
        assert_eq!(o.status.code(), Some(2), "{err}");
        assert!(
            err.contains(en) && !err.contains("u64") && !err.contains("f64"),
            "{err}"
        );
        let o = run(&["plan", "--workload", f, "--lang", "zh"]);
        let err = String::from_utf8_lossy(&o.stderr).replace("\n  ", "");
        assert!(err.contains(zh) && !err.contains("string"), "{err}");
    }
    let _ = std::fs::remove_dir_all(&dir);
}

/// (status, JSON body) of one API request; 4xx answers too.
fn call(method: &str, url: &str, body: Option<&str>) -> (u16, Value) {
    let req = ureq::request(method, url).set("content-type", "application/json");
    let r = match body {
        Some(b) => req.send_string(b),
        None => req.call(),
    };
    let resp = match r {
        Ok(r) => r,
        Err(ureq::Error::Status(_, r)) => r,
        Err(e) => panic!("{method} {url}: {e}"),
    };
    let status = resp.status();
    (
        status,
        serde_json::from_str(&resp.into_string().unwrap()).unwrap(),
    )
}

/// #15/#23 on the API: a bad body type said "取值错误：整数 `-5`，应为 u64"; a bad query parameter
/// (`?deadline=5min`, now a valid five minutes: `5weeks` here) came with `field: null`; a bad
/// `provider` listed no valid values.
#[test]
fn api_errors_name_the_parameter_in_words() {
    let s = common::Server::start();
    let body =
        r#"{"model": "Qwen2.5-7B", "training": {"task": "lora", "seq_len": -5, "tokens": 1e8}}"#;
    let (st, v) = call(
        "POST",
        &format!("{}/api/v1/plan?lang=zh", s.base),
        Some(body),
    );
    let e = &v["error"];
    assert_eq!(
        (st, e["field"].as_str()),
        (400, Some("training.seq_len")),
        "{v}"
    );
    let m = e["message"].as_str().unwrap();
    assert!(m.contains("应为正整数") && !m.contains("u64"), "{m}");
    let body = r#"{"model": "Qwen2.5-7B", "training": {"task": "lora", "tokens": 1e8}}"#;
    let (st, v) = call(
        "POST",
        &format!("{}/api/v1/plan?deadline=5weeks", s.base),
        Some(body),
    );
    assert_eq!(
        (st, v["error"]["field"].as_str()),
        (400, Some("deadline")),
        "{v}"
    );
    let (st, v) = call(
        "GET",
        &format!("{}/api/v1/catalog/instances?provider=huaweii", s.base),
        None,
    );
    let m = v["error"]["message"].as_str().unwrap();
    assert_eq!(
        (st, v["error"]["field"].as_str()),
        (400, Some("provider")),
        "{v}"
    );
    assert!(
        m.contains("alibaba") && m.contains("huawei") && m.contains("tencent"),
        "{m}"
    );
}

/// #16: the refresh command for a cn-beijing plan priced from cn-shanghai named cn-shanghai;
/// refreshing Shanghai's price does not give Beijing's.
#[test]
fn refresh_command_names_the_region_asked() {
    let v = plan_json(&[
        "-m",
        "Qwen2.5-14B",
        "--task",
        "lora",
        "--tokens",
        "1e8",
        "--region",
        "cn-beijing",
    ]);
    let ages = v["price_ages"].as_array().expect("price_ages");
    assert!(!ages.is_empty());
    for a in ages {
        let cmd = a["refresh"].as_str().unwrap();
        assert!(cmd.contains("--region cn-beijing"), "{a}");
    }
}

/// Review r7 #4: `--set checkpoint_interval_hours=1e-9` gave a 4142-year plan. The tunable is
/// bounded (one minute to a year, the key named), and a site whose stalls alone exceed
/// MAX_INTERRUPTION_OVERHEAD × its compute has no plan, with the way out.
#[test]
fn a_hostile_checkpoint_interval_is_refused_not_planned() {
    let job = [
        "plan",
        "-m",
        "Llama-3.1-8B",
        "--task",
        "full",
        "--tokens",
        "1B",
    ];
    let mut a = job.to_vec();
    a.extend_from_slice(&["--set", "checkpoint_interval_hours=1e-9"]);
    let o = run(&a);
    assert!(!o.status.success());
    let err = String::from_utf8_lossy(&o.stderr);
    assert!(
        err.contains("checkpoint_interval_hours") && err.contains("8760"),
        "{err}"
    );
    // One minute is accepted, but Tencent's CFS High-Performance (839 MB/s; until plan audit r22
    // the 100 MB/s fallback, 9878 s) writes a 920 GiB checkpoint in 1177 s: 1177 s every 1.2 min
    // is 16× the compute, past the bound (11×).
    let v = run(&[
        "plan",
        "-m",
        "Llama-3.1-70B",
        "--task",
        "full",
        "--tokens",
        "1e9",
        "--provider",
        "tencent",
        "--set",
        "checkpoint_interval_hours=0.02",
    ]);
    let out = String::from_utf8_lossy(&v.stdout);
    assert!(out.contains("NO PLAN"), "{out}");
    assert!(
        out.contains("stalls training 1177 s") && out.contains("11×"),
        "{out}"
    );
}

/// Review r7 #1: under `--billing spot` the storage was chosen with no stall price (the spot row
/// only exists with a checkpoint), so forced spot paid 3.6× auto's spot row for the same plan
/// (¥2,450,389 against ¥679,538). The write second is now priced at the billing charged, spot's
/// Daly interval included: the same instance's spot cost is the same either way.
#[test]
fn forced_spot_costs_what_autos_spot_row_costs() {
    let job = [
        "-m",
        "Llama-2-70B",
        "--task",
        "full",
        "--tokens",
        "20B",
        "--interruptible",
        "--preemption-rate",
        "0.5",
        "--gpu",
        "a100-80g",
        "--max-nodes",
        "4",
    ];
    let spot_of = |extra: &[&str]| {
        let mut a = job.to_vec();
        a.extend_from_slice(extra);
        let v = plan_json(&a);
        let p = plans(&v)
            .iter()
            .find(|p| p["instance"]["id"] == "ecs.ebmgn7ex.32xlarge" && p["nodes"] == 4)
            .cloned()
            .expect("4 × ebmgn7ex");
        let row = p["costs"]
            .as_array()
            .unwrap()
            .iter()
            .find(|c| c["billing"] == "spot")
            .cloned();
        (
            row.expect("spot row")["cny"].as_f64().unwrap(),
            p["train"]["storage"]["class"]["id"].clone(),
        )
    };
    let (auto, auto_st) = spot_of(&[]);
    let (forced, forced_st) = spot_of(&["--billing", "spot"]);
    assert_eq!(auto_st, forced_st);
    assert!((forced - auto).abs() <= auto * 1e-6, "{forced} vs {auto}");
}
