//! `plan` keeps the `[training]` settings a workload states (parallel degrees, ZeRO stage,
//! micro-batch, recompute) and searches only the others; a setting no plan can keep is refused
//! (exit 4) naming its key; a plan's own `setup` read back as a workload gives the same plan; the
//! API treats a JSON body as the CLI treats the file.

mod common;
use common::plans;

use serde_json::Value;
use std::process::Command;

const BASE: &str =
    "model = \"Llama-3.1-8B\"\n[training]\ntask = \"pretrain\"\nframework = \"megatron\"\ntokens = 1e10\n";

/// [`BASE`] with an MHA model (Llama-2-7B: 32 heads, 32 KV heads), whose KV heads TP 16 splits:
/// Llama-3.1-8B's 8 KV heads do not split over 16 ranks, an input error since review r14 #1.
const MHA_BASE: &str =
    "model = \"Llama-2-7B\"\n[training]\ntask = \"pretrain\"\nframework = \"megatron\"\ntokens = 1e10\n";

/// (exit code, JSON document, stdout+stderr text) of `plan -w FILE` with `text` as the file.
fn plan(name: &str, text: &str, extra: &[&str]) -> (Option<i32>, Value) {
    let dir = common::scratch().join(format!("gpuplan-pins-{}-{name}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let w = dir.join("w.toml");
    std::fs::write(&w, text).unwrap();
    let out = Command::new(env!("CARGO_BIN_EXE_gpuplan"))
        .env("GPUPLAN_TODAY", common::TODAY)
        .env("GPUPLAN_CONFIG_DIR", dir.join("cfg"))
        .args(["plan", "--format", "json", "--top", "30", "-w"])
        .arg(&w)
        .args(extra)
        .output()
        .unwrap();
    let v = serde_json::from_slice(&out.stdout)
        .unwrap_or_else(|e| panic!("{e}: {}", String::from_utf8_lossy(&out.stderr)));
    (out.status.code(), v)
}

/// Every plan of the workload `BASE` + `extra` has `pointer` = `want` in its setup, and there is
/// at least one plan.
fn honoured(name: &str, extra: &str, pointer: &str, want: Value) {
    let (code, v) = plan(name, &format!("{BASE}{extra}"), &[]);
    assert_eq!(code, Some(0), "{v}");
    assert!(!plans(&v).is_empty());
    for p in plans(&v) {
        let got = &p["train"]["setup"].pointer(pointer).cloned();
        assert_eq!(
            got.as_ref(),
            Some(&want),
            "{} {}",
            p["instance"]["id"],
            pointer
        );
    }
}

#[test]
fn fixed_zero_is_kept_in_every_plan() {
    honoured(
        "zero",
        "[training.parallel]\nzero = 3\n",
        "/parallel/zero",
        3.into(),
    );
}

#[test]
fn fixed_tp_is_kept_in_every_plan() {
    honoured(
        "tp",
        "[training.parallel]\ntp = 2\n",
        "/parallel/tp",
        2.into(),
    );
}

#[test]
fn fixed_pp_is_kept_in_every_plan() {
    honoured(
        "pp",
        "[training.parallel]\npp = 2\n",
        "/parallel/pp",
        2.into(),
    );
}

#[test]
fn fixed_cp_is_kept_in_every_plan() {
    // 32k-token sequences: the search would otherwise choose CP itself.
    let long = "seq_len = 32768\n[training.parallel]\ncp = 1\n";
    honoured("cp1", long, "/parallel/cp", 1.into());
    honoured(
        "cp2",
        "[training.parallel]\ncp = 2\n",
        "/parallel/cp",
        2.into(),
    );
}

#[test]
fn fixed_micro_batch_is_kept_in_every_plan() {
    honoured("mb", "micro_batch = 2\n", "/micro_batch", 2.into());
}

#[test]
fn fixed_recompute_is_kept_in_every_plan() {
    honoured("rc", "recompute = \"full\"\n", "/recompute", "full".into());
}

#[test]
fn fixed_sequence_parallel_and_virtual_stages_are_kept() {
    // Megatron with TP 2 turns sequence parallelism on and with PP 2 interleaves 2 virtual stages
    // when free; written, each is kept.
    let sp = "[training.parallel]\ntp = 2\nsequence_parallel = false\n";
    honoured("sp", sp, "/parallel/sequence_parallel", false.into());
    let vp = "[training.parallel]\npp = 2\nvirtual_stages = 1\n";
    honoured("vp", vp, "/parallel/virtual_stages", 1.into());
}

#[test]
fn a_free_search_still_varies_what_is_not_fixed() {
    // Without the keys the planner chooses: the same job's plans are not all ZeRO-3 / mb 2.
    let (code, v) = plan("free", BASE, &[]);
    assert_eq!(code, Some(0));
    let setups: Vec<&Value> = plans(&v).iter().map(|p| &p["train"]["setup"]).collect();
    assert!(
        setups.iter().any(|s| s["parallel"]["zero"] != 3),
        "{setups:?}"
    );
    assert!(setups.iter().any(|s| s["parallel"]["tp"] != 2));
    assert!(setups
        .iter()
        .any(|s| s["parallel"]["sequence_parallel"] == true));
    assert!(setups.iter().any(|s| s["parallel"]["virtual_stages"] == 2));
}

/// The no-plan answer to workload `text` names `key` among the bindings (exit 4).
fn refused(name: &str, text: &str, key: &str) {
    let (code, v) = plan(name, text, &[]);
    assert_eq!(code, Some(4), "{v}");
    assert!(plans(&v).is_empty());
    let rejected = v["outcome"]["rejected"].as_array().unwrap();
    assert!(
        rejected
            .iter()
            .any(|b| b["constraint"] == key && b["message_en"].as_str().unwrap().contains(key)),
        "{rejected:?}"
    );
}

#[test]
fn an_infeasible_fixed_setting_is_refused_naming_its_key() {
    // TP 16 splits the 32 heads and KV heads, but no node of the catalog has 16 GPUs. (TP 3,
    // which splits no head count, is refused as an input since audit r9 #5: exit 2 naming the
    // heads; so is TP 16 on 8 KV heads since review r14 #1.)
    let tp16 = format!("{MHA_BASE}[training.parallel]\ntp = 16\n");
    refused("tp16", &tp16, "training.parallel.tp");
    // 32 layers do not split into 5 stages (the ZeRO stage is fixed too): under the default
    // Megatron profile an input error since review r16b (Megatron-Core's even split), exit 2
    // naming the key.
    let pp5 = format!("{BASE}[training.parallel]\npp = 5\nzero = 1\n");
    let (code, v) = plan("pp5", &pp5, &[]);
    assert_eq!(code, Some(2), "{v}");
    // 70B at micro-batch 16 without recomputation fits no GPU of the catalog; either key
    // released alone gives plans, so each is named.
    let mb16 = "model = \"Llama-3.1-70B\"\n[training]\ntask = \"pretrain\"\ntokens = 1e10\nmicro_batch = 16\nrecompute = \"none\"\n[training.parallel]\nzero = 0\n";
    refused("mb16", mb16, "training.micro_batch");
    refused("rc16", mb16, "training.recompute");
}

#[test]
fn the_table_names_the_key_in_both_languages() {
    let dir = common::scratch().join(format!("gpuplan-pins-{}-txt", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let w = dir.join("w.toml");
    std::fs::write(&w, format!("{MHA_BASE}[training.parallel]\ntp = 16\n")).unwrap();
    for lang in ["en", "zh"] {
        let out = Command::new(env!("CARGO_BIN_EXE_gpuplan"))
            .env("GPUPLAN_TODAY", common::TODAY)
            .env("GPUPLAN_CONFIG_DIR", dir.join("cfg"))
            .args(["plan", "--lang", lang, "-w"])
            .arg(&w)
            .output()
            .unwrap();
        assert_eq!(out.status.code(), Some(4));
        let text = String::from_utf8_lossy(&out.stdout);
        assert!(text.contains("[training.parallel.tp]"), "{text}");
        assert!(!text.contains("inf GiB"), "{text}");
    }
}

/// JSON with its nulls removed (TOML has none).
fn strip_nulls(v: &mut Value) {
    match v {
        Value::Object(m) => {
            m.retain(|_, x| !x.is_null());
            m.values_mut().for_each(strip_nulls);
        }
        Value::Array(a) => a.iter_mut().for_each(strip_nulls),
        _ => {}
    }
}

#[test]
fn a_plans_setup_read_back_gives_the_same_plan() {
    let (code, v) = plan("rb0", BASE, &[]);
    assert_eq!(code, Some(0));
    let top = &plans(&v)[0];
    let mut setup = top["train"]["setup"].clone();
    strip_nulls(&mut setup);
    let file = serde_json::json!({ "model": "Llama-3.1-8B", "training": setup });
    let text = toml::to_string(&file).unwrap();
    let (code, again) = plan("rb1", &text, &[]);
    assert_eq!(code, Some(0), "{text}");
    let top2 = &plans(&again)[0];
    for k in ["instance", "nodes", "hours"] {
        assert_eq!(top2[k], top[k], "{k}");
    }
    assert_eq!(top2["train"]["setup"], top["train"]["setup"]);
}

#[test]
fn the_api_keeps_the_bodys_settings_as_the_cli_keeps_the_files() {
    let s = common::Server::start();
    let body = r#"{"model": "Llama-3.1-8B", "training": {"task": "pretrain", "framework": "megatron", "tokens": 1e10, "parallel": {"zero": 3}}}"#;
    let resp = ureq::post(&format!("{}/api/v1/plan?top=30", s.base))
        .set("content-type", "application/json")
        .send_string(body)
        .unwrap();
    let api: Value = serde_json::from_str(&resp.into_string().unwrap()).unwrap();
    let (_, cli) = plan(
        "api",
        &format!("{BASE}[training.parallel]\nzero = 3\n"),
        &["--no-user-catalog"],
    );
    assert!(!plans(&api).is_empty());
    assert!(plans(&api)
        .iter()
        .all(|p| p["train"]["setup"]["parallel"]["zero"] == 3));
    assert_eq!(api["outcome"]["plans"], cli["outcome"]["plans"]);
}
