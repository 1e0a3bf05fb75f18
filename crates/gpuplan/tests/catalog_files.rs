//! User catalog files under stress (issue 7): invalid rows are skipped with a warning, imports
//! validate what they write, concurrent imports keep both, a killed import never leaves a partial
//! file, links and permissions survive, unreadable directories are errors.

mod common;
use common::stdout as out;
use std::path::{Path, PathBuf};
use std::process::{Command, Output, Stdio};
use std::time::Duration;

/// A config folder for one test, removed when the test ends (the scratch folder, `tempfile`).
fn tmpdir(tag: &str) -> PathBuf {
    let d = common::scratch().join(format!("files-{tag}"));
    std::fs::create_dir_all(&d).unwrap();
    d
}

/// stderr with wrapped lines joined: counts and phrases do not depend on where a long path
/// (the temp directory's) makes a warning wrap.
fn err(o: &Output) -> String {
    common::stderr(o)
        .replace("\n    ", " ")
        .replace("\n  ", " ")
}

fn fixture(name: &str) -> String {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../gpuplan-core/tests/fixtures")
        .join(name)
        .display()
        .to_string()
}

fn cmd(cfg: &Path, args: &[&str]) -> Command {
    let mut c = Command::new(env!("CARGO_BIN_EXE_gpuplan"));
    c.env("GPUPLAN_CONFIG_DIR", cfg)
        .env("COLUMNS", "250")
        .args(args);
    c
}

fn run(cfg: &Path, args: &[&str]) -> Output {
    common::output_checked(&mut cmd(cfg, args))
}

const ROW: &str = "[[instance]]\nid = \"ID\"\nprovider = \"alibaba\"\nfamily = \"x\"\ngpu = \"a10\"\ngpu_count = COUNT\ngpu_memory_gib = 24\nrdma = \"none\"\nsource = \"quote\"\nas_of = \"2026-11\"\nconfidence = \"likely\"\n";

fn row(id: &str, count: &str) -> String {
    ROW.replace("ID", id).replace("COUNT", count)
}

#[test]
fn invalid_user_rows_are_skipped_with_one_warning_each() {
    let cfg = tmpdir("skip");
    std::fs::create_dir_all(cfg.join("catalog")).unwrap();
    let text = format!(
        "{}{}{}[[price]]\ninstance = \"ecs.gn7i-c8g1.2xlarge\"\nprovider = \"alibaba\"\nregion = \"cn-shanghai\"\nbilling = \"on_demand\"\ncny = -970\nkind = \"user\"\nas_of = \"2026-11\"\nsource = \"typo\"\n",
        row("x.good", "1"),
        row("x.many", "1000"),
        row("x.nan", "nan"),
    );
    std::fs::write(cfg.join("catalog/x.toml"), text).unwrap();
    let o = run(
        &cfg,
        &["catalog", "instances", "--gpu", "a10", "--format", "json"],
    );
    assert!(o.status.success(), "{}", err(&o));
    let e = err(&o);
    assert!(
        e.contains("x.toml: instance \"x.many\" gpu_count: 1000 is not a GPU count")
            && e.contains("row skipped"),
        "{e}"
    );
    assert_eq!(e.matches("row skipped").count(), 3, "{e}");
    // A row with several bad fields gets one warning.
    std::fs::write(
        cfg.join("catalog/x.toml"),
        row("x.two", "1000").replace("gpu_memory_gib = 24", "gpu_memory_gib = -1"),
    )
    .unwrap();
    let o2 = run(&cfg, &["catalog", "instances", "--format", "json"]);
    let e2 = err(&o2);
    assert_eq!(e2.matches("row skipped").count(), 1, "{e2}");
    assert!(e2.contains("(and 1 more problem in this row)"), "{e2}");
    assert!(!e.contains("NaN"), "{e}");
    let v: serde_json::Value = serde_json::from_slice(&o.stdout).unwrap();
    let rows = v["instances"].as_array().unwrap();
    let ids: Vec<&str> = rows
        .iter()
        .filter_map(|r| r["instance"]["id"].as_str())
        .collect();
    assert!(ids.contains(&"x.good") && !ids.contains(&"x.many") && !ids.contains(&"x.nan"));
    let c8 = rows
        .iter()
        .find(|r| r["instance"]["id"] == "ecs.gn7i-c8g1.2xlarge")
        .unwrap();
    assert!(
        c8["price"]["cny"].as_f64().unwrap() > 0.0,
        "the negative price is not used"
    );
}

#[test]
fn plan_never_uses_a_skipped_row() {
    let cfg = tmpdir("plan");
    let f = cfg.join("cheap.toml");
    std::fs::write(
        &f,
        "[[price]]\ninstance = \"ecs.gn7i-c8g1.2xlarge\"\nprovider = \"alibaba\"\nregion = \"cn-shanghai\"\nbilling = \"on_demand\"\ncny = -970\nkind = \"user\"\nas_of = \"2026-11\"\nsource = \"typo\"\n",
    )
    .unwrap();
    let o = run(
        &cfg,
        &[
            "plan",
            "-m",
            "Qwen2.5-7B",
            "--task",
            "lora",
            "--tokens",
            "1e7",
            "--catalog",
            f.to_str().unwrap(),
            "--format",
            "json",
        ],
    );
    assert!(o.status.success(), "{}", err(&o));
    assert!(err(&o).contains("cny: -970 is not a price"), "{}", err(&o));
    assert!(!out(&o).contains("-970"));
}

#[test]
fn empty_config_dir_variable_is_unset_and_bad_dirs_are_errors() {
    let home = tmpdir("home");
    let cat = home.join(".config/gpuplan/catalog");
    std::fs::create_dir_all(&cat).unwrap();
    std::fs::write(cat.join("mine.toml"), row("x.home", "1")).unwrap();
    let o = Command::new(env!("CARGO_BIN_EXE_gpuplan"))
        .env("GPUPLAN_CONFIG_DIR", "")
        .env("XDG_CONFIG_HOME", "")
        .env("HOME", &home)
        .args(["catalog", "show", "x.home"])
        .output()
        .unwrap();
    assert!(o.status.success(), "{}", err(&o));
    // The catalog directory is a file.
    let cfg = tmpdir("notdir");
    std::fs::write(cfg.join("catalog"), "oops").unwrap();
    let o = run(&cfg, &["catalog", "instances"]);
    assert_eq!(o.status.code(), Some(2));
    assert!(err(&o).contains("not a directory"), "{}", err(&o));
    // Unreadable (skipped when running as root, which reads anything).
    #[cfg(unix)]
    {
        use std::os::unix::fs::PermissionsExt;
        let cfg = tmpdir("noperm");
        let d = cfg.join("catalog");
        std::fs::create_dir_all(&d).unwrap();
        std::fs::set_permissions(&d, std::fs::Permissions::from_mode(0o000)).unwrap();
        if std::fs::read_dir(&d).is_err() {
            let o = run(&cfg, &["catalog", "instances"]);
            assert_eq!(o.status.code(), Some(2));
            assert!(
                err(&o).contains("cannot read the user catalog directory"),
                "{}",
                err(&o)
            );
        }
        std::fs::set_permissions(&d, std::fs::Permissions::from_mode(0o755)).unwrap();
    }
}

fn write_json(dir: &Path, name: &str, text: &str) -> String {
    let p = dir.join(name);
    std::fs::write(&p, text).unwrap();
    p.display().to_string()
}

#[test]
fn import_leaves_out_bad_rows_with_their_json_path() {
    let cfg = tmpdir("badimport");
    let doc = r#"{"InstanceTypes":{"InstanceType":[
      {"InstanceTypeId":"ecs.ok","InstanceTypeFamily":"ecs.gn7i","GPUAmount":1,"GPUSpec":"NVIDIA A10","GPUMemorySize":24,"CpuCoreCount":8,"MemorySize":30},
      {"InstanceTypeId":"ecs.neg","GPUAmount":-1,"GPUSpec":"NVIDIA A10"},
      {"InstanceTypeId":"ecs.nan","GPUAmount":"NaN","GPUSpec":"NVIDIA A10"},
      {"InstanceTypeId":"ecs.cpu","GPUAmount":1,"GPUSpec":"NVIDIA A10","CpuCoreCount":-8},
      {"InstanceTypeId":"ecs.big","GPUAmount":1e300,"GPUSpec":"NVIDIA A10"}
    ]}}"#;
    let f = write_json(&cfg, "types.json", doc);
    let o = run(
        &cfg,
        &[
            "catalog",
            "import",
            "alibaba",
            &f,
            "--region",
            "cn-shanghai",
        ],
    );
    assert!(o.status.success(), "{}", err(&o));
    let e = err(&o);
    for path in [
        "$.InstanceTypes.InstanceType[1].GPUAmount",
        "$.InstanceTypes.InstanceType[2].GPUAmount",
        "$.InstanceTypes.InstanceType[3].CpuCoreCount",
        "$.InstanceTypes.InstanceType[4].GPUAmount",
    ] {
        assert!(e.contains(path), "{path}: {e}");
    }
    assert!(e.contains("4 invalid row(s) left out"), "{e}");
    assert!(!e.to_lowercase().contains("nan "), "{e}");
    let written = std::fs::read_to_string(cfg.join("catalog/imported-alibaba.toml")).unwrap();
    assert!(written.starts_with("# Generated by `gpuplan catalog import`"));
    assert!(
        written.contains("ecs.ok") && !written.contains("ecs.neg") && !written.contains("ecs.cpu")
    );
    let v = run(&cfg, &["catalog", "validate"]);
    assert_eq!(v.status.code(), Some(0), "{}", out(&v));
    // Every row invalid: nothing is written, exit 2.
    let spot = r#"{"Currency":"CNY","SpotPrices":{"SpotPriceType":[
      {"InstanceType":"ecs.ok","ZoneId":"cn-shanghai-l","Timestamp":"2026-12-01T06:00:00Z","SpotPrice":-2.1},
      {"InstanceType":"ecs.ok","ZoneId":"cn-shanghai-m","Timestamp":"2026-12-01T06:00:00Z","SpotPrice":"inf"}]}}"#;
    let f = write_json(&cfg, "spot.json", spot);
    let o = run(&cfg, &["catalog", "import", "alibaba", &f]);
    assert_eq!(o.status.code(), Some(2), "{}", err(&o));
    assert!(
        err(&o).contains("$.SpotPrices.SpotPriceType[0].SpotPrice"),
        "{}",
        err(&o)
    );
    assert!(err(&o).contains("nothing imported"), "{}", err(&o));
    assert_eq!(
        std::fs::read_to_string(cfg.join("catalog/imported-alibaba.toml")).unwrap(),
        written
    );
}

#[test]
fn huawei_gpu_counts_that_are_not_counts_are_left_out() {
    let cfg = tmpdir("huawei");
    let flavor = |name: &str, alias: &str| {
        format!(
            r#"{{"name":"{name}","vcpus":"8","ram":65536,"os_extra_specs":{{"ecs:performancetype":"gpu","pci_passthrough:alias":"{alias}"}}}}"#
        )
    };
    let doc = format!(
        r#"{{"flavors":[{},{},{},{},{}]}}"#,
        flavor("p.ok", "nvidia-t4:1"),
        flavor("p.zero", "nvidia-t4:0"),
        flavor("p.neg", "nvidia-t4:-4"),
        flavor("p.nan", "nvidia-t4:nan"),
        flavor("p.word", "nvidia-t4:lots"),
    );
    let f = write_json(&cfg, "flavors.json", &doc);
    let o = run(
        &cfg,
        &["catalog", "import", "huawei", &f, "--region", "cn-north-4"],
    );
    assert!(o.status.success(), "{}", err(&o));
    for n in 1..=4 {
        let path = format!("$.flavors[{n}].os_extra_specs.pci_passthrough:alias");
        assert!(err(&o).contains(&path), "{path}: {}", err(&o));
    }
    let written = std::fs::read_to_string(cfg.join("catalog/imported-huawei.toml")).unwrap();
    assert!(written.contains("p.ok") && !written.contains("p.zero") && !written.contains("p.nan"));
}

#[cfg(unix)]
#[test]
fn reimport_keeps_permissions_and_symlinks() {
    use std::os::unix::fs::PermissionsExt;
    let cfg = tmpdir("link");
    let real_dir = cfg.join("elsewhere");
    std::fs::create_dir_all(&real_dir).unwrap();
    std::fs::create_dir_all(cfg.join("catalog")).unwrap();
    let real = real_dir.join("ali.toml");
    std::fs::write(&real, "").unwrap();
    std::fs::set_permissions(&real, std::fs::Permissions::from_mode(0o640)).unwrap();
    let link = cfg.join("catalog/imported-alibaba.toml");
    std::os::unix::fs::symlink(&real, &link).unwrap();
    let p1 = fixture("alibaba-describe-instance-types-page1.json");
    let o = run(
        &cfg,
        &[
            "catalog",
            "import",
            "alibaba",
            &p1,
            "--region",
            "cn-shanghai",
        ],
    );
    assert!(o.status.success(), "{}", err(&o));
    assert!(std::fs::symlink_metadata(&link)
        .unwrap()
        .file_type()
        .is_symlink());
    assert!(std::fs::read_to_string(&real)
        .unwrap()
        .contains("ecs.gn7i-c8g1.2xlarge"));
    assert_eq!(
        std::fs::metadata(&real).unwrap().permissions().mode() & 0o777,
        0o640
    );
}

fn temps(dir: &Path) -> Vec<String> {
    std::fs::read_dir(dir)
        .map(|rd| {
            rd.flatten()
                .map(|e| e.file_name().to_string_lossy().to_string())
                .filter(|n| n.contains(".tmp"))
                .collect()
        })
        .unwrap_or_default()
}

#[test]
fn two_concurrent_imports_keep_both() {
    let cfg = tmpdir("concurrent");
    let types = fixture("alibaba-describe-instance-types-page1.json");
    let spot = fixture("alibaba-describe-spot-price-history.json");
    for round in 0..6 {
        let _ = std::fs::remove_dir_all(cfg.join("catalog"));
        let a = cmd(
            &cfg,
            &[
                "catalog",
                "import",
                "alibaba",
                &types,
                "--region",
                "cn-shanghai",
            ],
        )
        .stderr(Stdio::null())
        .spawn()
        .unwrap();
        let b = cmd(
            &cfg,
            &[
                "catalog",
                "import",
                "alibaba",
                &spot,
                "--region",
                "cn-shanghai",
            ],
        )
        .stderr(Stdio::null())
        .spawn()
        .unwrap();
        for mut c in [a, b] {
            assert!(c.wait().unwrap().success());
        }
        let text = std::fs::read_to_string(cfg.join("catalog/imported-alibaba.toml")).unwrap();
        assert!(
            text.contains("[[instance]]") && text.contains("billing = \"spot\""),
            "round {round}: one import was lost:\n{text}"
        );
        assert!(temps(&cfg.join("catalog")).is_empty());
    }
}

#[test]
fn killing_an_import_never_leaves_a_partial_file() {
    let cfg = tmpdir("kill");
    let p1 = fixture("alibaba-describe-instance-types-page1.json");
    let p2 = fixture("alibaba-describe-instance-types-page2.json");
    let target = cfg.join("catalog/imported-alibaba.toml");
    let import = |files: &[&str]| {
        let mut a = vec!["catalog", "import", "alibaba"];
        a.extend_from_slice(files);
        a.extend_from_slice(&["--region", "cn-shanghai"]);
        a.into_iter().map(String::from).collect::<Vec<_>>()
    };
    let old_args = import(&[&p1]);
    let new_args = import(&[&p1, &p2]);
    assert!(run(&cfg, &argv(&old_args)).status.success());
    let old = std::fs::read_to_string(&target).unwrap();
    assert!(run(&cfg, &argv(&new_args)).status.success());
    let new = std::fs::read_to_string(&target).unwrap();
    assert_ne!(old, new);
    let mut seed: u64 = 0x9e37_79b9_7f4a_7c15 ^ u64::from(std::process::id());
    for i in 0..30 {
        // Alternate between the two versions so each kill may interrupt a real change.
        std::fs::write(&target, if i % 2 == 0 { &old } else { &new }).unwrap();
        seed = seed.wrapping_mul(6_364_136_223_846_793_005).wrapping_add(1);
        let delay = Duration::from_micros((seed >> 33) % 40_000);
        let mut child = cmd(&cfg, &argv(&new_args))
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            .spawn()
            .unwrap();
        std::thread::sleep(delay);
        let _ = child.kill();
        let _ = child.wait();
        let now = std::fs::read_to_string(&target).unwrap();
        assert!(
            now == old || now == new,
            "iteration {i}: partial file:\n{now}"
        );
        gpuplan_core_parses(&now);
        assert!(
            temps(&cfg.join("catalog")).len() <= 1,
            "{:?}",
            temps(&cfg.join("catalog"))
        );
    }
    assert!(run(&cfg, &argv(&new_args)).status.success());
    assert_eq!(std::fs::read_to_string(&target).unwrap(), new);
    assert!(
        temps(&cfg.join("catalog")).is_empty(),
        "stale temp files are cleaned"
    );
}

fn argv(v: &[String]) -> Vec<&str> {
    v.iter().map(String::as_str).collect()
}

fn gpuplan_core_parses(text: &str) {
    let v: Result<toml::Table, _> = text.parse();
    assert!(v.is_ok(), "does not parse:\n{text}");
}
