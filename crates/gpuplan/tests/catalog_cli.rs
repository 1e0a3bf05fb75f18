//! `gpuplan catalog …` as a user runs it: filters, merge order, imports, validation, snapshots.

mod common;
use common::stdout;
use std::path::{Path, PathBuf};
use std::process::{Command, Output};

fn root() -> &'static Path {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .parent()
        .and_then(Path::parent)
        .unwrap()
}

fn fixture(name: &str) -> PathBuf {
    root().join("crates/gpuplan-core/tests/fixtures").join(name)
}

fn tmpdir(tag: &str) -> PathBuf {
    let d = common::scratch().join(format!("gpuplan-catalog-{}-{tag}", std::process::id()));
    let _ = std::fs::remove_dir_all(&d);
    std::fs::create_dir_all(&d).unwrap();
    d
}

/// Run with an isolated config directory.
fn run(cfg: &Path, args: &[&str]) -> Output {
    common::output_checked(
        Command::new(env!("CARGO_BIN_EXE_gpuplan"))
            .env("GPUPLAN_TODAY", "2026-12-03")
            .env("GPUPLAN_CONFIG_DIR", cfg)
            .env("COLUMNS", "250")
            .args(args),
    )
}

fn ids(o: &Output) -> Vec<String> {
    let v: serde_json::Value = serde_json::from_slice(&o.stdout).unwrap();
    v["instances"]
        .as_array()
        .unwrap()
        .iter()
        .map(|x| x["instance"]["id"].as_str().unwrap().to_string())
        .collect()
}

#[test]
fn snapshot_a100_instances() {
    let cfg = tmpdir("snap");
    let o = run(&cfg, &["catalog", "instances", "--gpu", "A100"]);
    assert!(o.status.success());
    insta::assert_snapshot!("catalog_instances_gpu_a100", stdout(&o));
}

#[test]
fn each_filter_narrows_the_list() {
    let cfg = tmpdir("filters");
    let j = |extra: &[&str]| {
        let mut a = vec!["catalog", "instances", "--format", "json"];
        a.extend_from_slice(extra);
        ids(&run(&cfg, &a))
    };
    let all = j(&[]);
    let ali = j(&["--provider", "alibaba"]);
    assert!(ali.len() < all.len() && ali.iter().all(|i| i.starts_with("ecs.")));
    assert!(j(&["--provider", "tencent"])
        .iter()
        .all(|i| !i.starts_with("ecs.")));
    assert!(j(&["--gpu", "l20"])
        .iter()
        .all(|i| i.contains("gn8i") || i.contains("PNV5b")));
    assert!(j(&["--gpus", "8"])
        .iter()
        .all(|i| !i.contains("c8g1.2xlarge")));
    let big = j(&["--min-gpu-memory", "80"]);
    assert!(
        big.contains(&"ecs.gn8v-8x.48xlarge".to_string())
            && !big.iter().any(|i| i.starts_with("ecs.gn7i"))
    );
    let rdma = j(&["--rdma"]);
    assert!(
        !rdma.is_empty()
            && rdma.iter().all(|i| i.contains("gn8")
                || i.contains("gn9")
                || i.contains("ebmgn7ex")
                || i.contains("HCC")
                || i.contains("snt9b")),
        "{rdma:?}"
    );
    let nv = j(&["--nvlink"]);
    assert!(nv
        .iter()
        .all(|i| !i.starts_with("ecs.gn7i") && !i.starts_with("ecs.gn6i")));
    let cheap = j(&["--max-price", "15"]);
    assert!(
        !cheap.is_empty() && cheap.iter().all(|i| i.starts_with("ecs.")),
        "only Alibaba has prices: {cheap:?}"
    );
    assert!(j(&["--region", "cn-shanghai"]).len() >= 30);
    assert!(
        j(&["--vgpu"]).len() > all.len(),
        "vGPU slices appear only when asked"
    );
    let spot = run(
        &cfg,
        &[
            "catalog",
            "instances",
            "--billing",
            "spot",
            "--max-price",
            "100",
            "--format",
            "json",
        ],
    );
    assert!(
        ids(&spot).is_empty(),
        "no spot prices are built in, so none can be under a cap"
    );
}

#[test]
fn csv_has_a_header_and_a_row_per_instance() {
    let cfg = tmpdir("csv");
    let o = run(
        &cfg,
        &["catalog", "instances", "--gpu", "t4", "--format", "csv"],
    );
    let text = stdout(&o);
    let mut lines = text.lines();
    assert!(lines.next().unwrap().starts_with("id,provider,GPU"));
    assert!(lines.count() >= 10);
}

#[test]
fn user_catalog_overrides_prices_adds_rows_and_hides_families() {
    let cfg = tmpdir("merge");
    std::fs::create_dir_all(cfg.join("catalog")).unwrap();
    std::fs::write(
        cfg.join("catalog/mine.toml"),
        r#"hide_families = ["gn6v"]

[[price]]
instance = "ecs.gn7i-c8g1.2xlarge"
provider = "alibaba"
region = "cn-shanghai"
billing = "on_demand"
cny = 6.5
kind = "user"
as_of = "2026-11-01"
source = "our negotiated rate"

[[instance]]
id = "ecs.gn7i-custom"
provider = "alibaba"
family = "gn7i"
gpu = "a10"
gpu_count = 2
gpu_memory_gib = 24
rdma = "none"
source = "sales quote"
as_of = "2026-11"
confidence = "likely"
"#,
    )
    .unwrap();
    let o = run(
        &cfg,
        &["catalog", "instances", "--gpu", "a10", "--format", "json"],
    );
    let v: serde_json::Value = serde_json::from_slice(&o.stdout).unwrap();
    let rows = v["instances"].as_array().unwrap();
    let c8 = rows
        .iter()
        .find(|r| r["instance"]["id"] == "ecs.gn7i-c8g1.2xlarge")
        .unwrap();
    assert_eq!(c8["price"]["cny"], 6.5);
    assert_eq!(c8["price"]["kind"], "user");
    assert!(c8["price"]["origin"]["file"]
        .as_str()
        .unwrap()
        .ends_with("mine.toml"));
    assert!(rows
        .iter()
        .any(|r| r["instance"]["id"] == "ecs.gn7i-custom"));
    let all = ids(&run(&cfg, &["catalog", "instances", "--format", "json"]));
    assert!(
        !all.iter().any(|i| i.starts_with("ecs.gn6v")),
        "hidden family"
    );
    // --catalog FILE merges last; --no-user-catalog ignores the config dir.
    let ignore = ids(&run(
        &cfg,
        &[
            "catalog",
            "instances",
            "--no-user-catalog",
            "--format",
            "json",
        ],
    ));
    assert!(ignore.iter().any(|i| i.starts_with("ecs.gn6v")));
}

#[test]
fn import_writes_atomically_and_bad_input_leaves_the_catalog_untouched() {
    let cfg = tmpdir("import");
    let p1 = fixture("alibaba-describe-instance-types-page1.json");
    let p2 = fixture("alibaba-describe-instance-types-page2.json");
    let o = run(
        &cfg,
        &[
            "catalog",
            "import",
            "alibaba",
            p1.to_str().unwrap(),
            p2.to_str().unwrap(),
            "--region",
            "cn-shanghai",
        ],
    );
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    let target = cfg.join("catalog/imported-alibaba.toml");
    let before = std::fs::read_to_string(&target).unwrap();
    assert!(before.contains("ecs.gn8is-8x.32xlarge"));
    assert!(
        String::from_utf8_lossy(&o.stderr).contains("NVIDIA G49"),
        "unknown chip warned"
    );
    // The imported rows show up, marked as user rows, and the unknown chip validates as a warning.
    let v = run(&cfg, &["catalog", "validate", target.to_str().unwrap()]);
    assert!(v.status.success(), "{}", stdout(&v));
    // A truncated response fails with its file name and changes nothing.
    let cut = cfg.join("cut.json");
    let full = std::fs::read_to_string(&p2).unwrap();
    std::fs::write(&cut, &full[..full.len() / 3]).unwrap();
    let bad = run(
        &cfg,
        &["catalog", "import", "alibaba", cut.to_str().unwrap()],
    );
    assert_eq!(bad.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&bad.stderr).contains("truncated"));
    assert_eq!(std::fs::read_to_string(&target).unwrap(), before);
    // Spot prices merge into the same file.
    let spot = fixture("alibaba-describe-spot-price-history.json");
    assert!(run(
        &cfg,
        &[
            "catalog",
            "import",
            "alibaba",
            spot.to_str().unwrap(),
            "--region",
            "cn-shanghai"
        ]
    )
    .status
    .success());
    let s = run(&cfg, &["catalog", "show", "ecs.gn7i-c8g1.2xlarge"]);
    assert!(
        stdout(&s).contains("price spot: ¥2.10 (user"),
        "{}",
        stdout(&s)
    );
    // No temporary files are left behind.
    let leftovers: Vec<_> = std::fs::read_dir(cfg.join("catalog"))
        .unwrap()
        .filter_map(|e| e.ok())
        .filter(|e| e.file_name().to_string_lossy().contains(".tmp-"))
        .collect();
    assert!(leftovers.is_empty());
}

#[test]
fn validate_reports_unit_and_cross_reference_errors_with_exit_1() {
    let cfg = tmpdir("validate");
    let f = cfg.join("bad.toml");
    std::fs::write(
        &f,
        "[[instance]]\nid = \"x\"\nprovider = \"tencent\"\nfamily = \"x\"\ngpu = \"a100-80g\"\ngpu_count = 8\ngpu_memory_gib = 81920\nrdma = \"none\"\nsource = \"s\"\nas_of = \"2026-11\"\nconfidence = \"likely\"\n",
    )
    .unwrap();
    let o = run(&cfg, &["catalog", "validate", f.to_str().unwrap()]);
    assert_eq!(o.status.code(), Some(1));
    assert!(stdout(&o).contains("looks like MiB"), "{}", stdout(&o));
    let built_in = run(&cfg, &["catalog", "validate"]);
    assert_eq!(built_in.status.code(), Some(0), "{}", stdout(&built_in));
    // A row of the wrong type is an error finding naming the row and field.
    let broken = cfg.join("broken.toml");
    std::fs::write(&broken, "[[instance]]\nid = 3\n").unwrap();
    let o = run(&cfg, &["catalog", "validate", broken.to_str().unwrap()]);
    assert_eq!(o.status.code(), Some(1));
    assert!(stdout(&o).contains("instance[0] id"), "{}", stdout(&o));
    // A file that is not TOML fails with its position, not its text.
    std::fs::write(&broken, "api_key = AKIA-not-toml\n").unwrap();
    let o = run(&cfg, &["catalog", "validate", broken.to_str().unwrap()]);
    assert_eq!(o.status.code(), Some(2));
    assert!(!String::from_utf8_lossy(&o.stderr).contains("AKIA"));
    assert!(
        String::from_utf8_lossy(&o.stderr).contains("line"),
        "{}",
        String::from_utf8_lossy(&o.stderr)
    );
}

#[test]
fn wrong_names_are_explained() {
    let cfg = tmpdir("wrong");
    for name in ["ecs.gn7i", "ecs.turing", "g8i"] {
        let o = run(&cfg, &["catalog", "show", name]);
        assert_eq!(o.status.code(), Some(2));
        assert!(
            String::from_utf8_lossy(&o.stderr).contains("wrong"),
            "{name}"
        );
    }
}

/// Issue 13: the documented one-file user catalog (docs/examples/my-catalog.toml) is valid, and
/// `billing = "on-demand"` and `billing = "on_demand"` (like `--billing on-demand|on_demand`)
/// are the same billing.
#[test]
fn documented_example_catalog_is_valid_and_both_on_demand_spellings_apply() {
    let example = concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/../../docs/examples/my-catalog.toml"
    );
    let text = std::fs::read_to_string(example).unwrap();
    assert!(text.contains("billing = \"on-demand\"") && text.contains("billing = \"on_demand\""));
    let cfg = tmpdir("example");
    let o = run(&cfg, &["catalog", "validate", example]);
    assert_eq!(o.status.code(), Some(0), "{}", stdout(&o));
    assert!(
        stdout(&o).contains("0 error(s), 0 warning(s)"),
        "{}",
        stdout(&o)
    );
    for spelling in ["on-demand", "on_demand"] {
        let o = run(
            &cfg,
            &[
                "catalog",
                "instances",
                "--catalog",
                example,
                "--gpu",
                "a10",
                "--billing",
                spelling,
                "--format",
                "json",
            ],
        );
        assert_eq!(o.status.code(), Some(0), "{spelling}");
        let v: serde_json::Value = serde_json::from_slice(&o.stdout).unwrap();
        let rows = v["instances"].as_array().unwrap();
        let price = |id: &str| {
            rows.iter()
                .find(|r| r["instance"]["id"] == id)
                .map(|r| (r["price"]["cny"].clone(), r["price"]["kind"].clone()))
        };
        // "on-demand" in the file, and "on_demand" for the added type.
        assert_eq!(
            price("ecs.gn7i-c8g1.2xlarge"),
            Some((serde_json::json!(6.5), serde_json::json!("user"))),
            "{spelling}"
        );
        assert_eq!(
            price("ecs.gn7i-custom"),
            Some((serde_json::json!(12.0), serde_json::json!("user"))),
            "{spelling}"
        );
    }
}
