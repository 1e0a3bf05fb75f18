//! Structure-aware fuzzing of every parser that reads user or provider data, on stable Rust:
//! proptest generates inputs (mutated seeds: real files with values replaced by hostile ones,
//! plus byte-level damage), and every input is pushed through the parser and on into the code
//! that consumes what it returns. The property is "no panic, no non-finite number out": errors are
//! fine, crashes are not.
//!
//! CI runs a short smoke of each target. A long run, as recorded in docs/reliability.md:
//! `GPUPLAN_FUZZ_SECS=600 cargo test --release -p gpuplan-core --test fuzz -- --test-threads 1`
//! (each target runs for that many seconds).

use gpuplan_core::catalog::import::{import_alibaba, import_huawei, import_tencent, ImportContext};
use gpuplan_core::catalog::validate::validate_file;
use gpuplan_core::catalog::{parse_catalog_file, Catalog, Origin};
use gpuplan_core::constants::Tunables;
use gpuplan_core::hardware::{find_gpu, ClusterSpec, InterLink};
use gpuplan_core::job::{estimate_inference, estimate_training, model_summary, parse_workload};
use gpuplan_core::model::parse_hf_config;
use gpuplan_core::units::Bandwidth;
use gpuplan_core::workload::{InferenceSetup, TrainingSetup};
use proptest::prelude::*;
use proptest::test_runner::{Config, TestCaseError, TestRunner};
use serde_json::{json, Value};
use std::sync::atomic::{AtomicU64, Ordering};
use std::time::{Duration, Instant};

/// Inputs the parser accepted (and the consumers then ran on), per process: reported by long runs
/// so a target that only exercises the parser's error path is noticed.
static ACCEPTED: AtomicU64 = AtomicU64::new(0);

fn accepted() {
    ACCEPTED.fetch_add(1, Ordering::Relaxed);
}

/// Values that break parsers and arithmetic.
fn nasty_json() -> impl Strategy<Value = Value> {
    prop_oneof![
        // Plausible values, so that inputs also pass validation and reach the estimators.
        4 => (1u64..100_000).prop_map(|x| json!(x)),
        2 => (1u64..129).prop_map(|x| json!(x)),
        1 => Just(json!(0)),
        1 => Just(json!(-1)),
        1 => Just(json!(-4)),
        1 => Just(json!(1)),
        1 => Just(json!(3)),
        1 => Just(json!(u64::MAX)),
        1 => Just(json!(i64::MIN)),
        1 => Just(json!(1e308)),
        1 => Just(json!(-1e308)),
        1 => Just(json!(5e-324)),
        1 => Just(json!(0.5)),
        1 => Just(json!("8")),
        1 => Just(json!("NaN")),
        1 => Just(json!("inf")),
        1 => Just(json!("-1")),
        1 => Just(json!("")),
        1 => Just(json!("\u{1b}[31mred")),
        1 => Just(json!(null)),
        1 => Just(json!(true)),
        1 => Just(json!([])),
        1 => Just(json!({})),
        1 => Just(json!([1, 2])),
        1 => any::<i64>().prop_map(|x| json!(x)),
        1 => any::<u32>().prop_map(|x| json!(x)),
        1 => (-1e12f64..1e12).prop_map(|x| json!(x)),
        1 => "[a-zA-Z0-9 .:_-]{0,12}".prop_map(|s| json!(s)),
    ]
}

/// Number of nodes of a JSON tree, in pre-order.
fn count(v: &Value) -> usize {
    1 + match v {
        Value::Array(a) => a.iter().map(count).sum(),
        Value::Object(o) => o.values().map(count).sum(),
        _ => 0,
    }
}

/// Replace the `n`-th node (pre-order) with `new`; returns whether it was found.
fn replace_nth(v: &mut Value, n: &mut usize, new: &Value) -> bool {
    if *n == 0 {
        *v = new.clone();
        return true;
    }
    *n -= 1;
    match v {
        Value::Array(a) => a.iter_mut().any(|x| replace_nth(x, n, new)),
        Value::Object(o) => o.values_mut().any(|x| replace_nth(x, n, new)),
        _ => false,
    }
}

/// A mutation: which node (as a fraction of the tree) gets which value.
fn mutations() -> impl Strategy<Value = Vec<(f64, Value)>> {
    prop::collection::vec((0.0f64..1.0, nasty_json()), 1..4)
}

fn mutate(seed: &Value, muts: &[(f64, Value)]) -> Value {
    let mut v = seed.clone();
    for (at, new) in muts {
        let total = count(&v);
        let mut n = ((*at * total as f64) as usize).min(total.saturating_sub(1));
        replace_nth(&mut v, &mut n, new);
    }
    v
}

/// Byte-level damage to a text: truncate, insert or flip characters.
fn damage() -> impl Strategy<Value = Vec<(f64, u8, u8)>> {
    // Mostly undamaged, so most inputs reach the consumers; a quarter test the parsers' error paths.
    prop_oneof![
        3 => Just(Vec::new()),
        1 => prop::collection::vec((0.0f64..1.0, 0u8..3, any::<u8>()), 1..4),
    ]
}

fn apply_damage(text: &str, d: &[(f64, u8, u8)]) -> String {
    let mut b = text.as_bytes().to_vec();
    for (at, op, byte) in d {
        let i = ((*at * b.len() as f64) as usize).min(b.len());
        match op {
            0 => b.truncate(i),
            1 => b.insert(i, *byte),
            _ => {
                if i < b.len() {
                    b[i] = *byte;
                }
            }
        }
    }
    String::from_utf8_lossy(&b).into_owned()
}

/// How long a target runs: `GPUPLAN_FUZZ_SECS` seconds, or a short smoke (CI).
fn run_target<S: Strategy>(
    name: &str,
    smoke_cases: u32,
    strategy: S,
    test: impl Fn(S::Value) -> Result<(), TestCaseError>,
) where
    S::Value: std::fmt::Debug,
{
    let secs: u64 = std::env::var("GPUPLAN_FUZZ_SECS")
        .ok()
        .and_then(|s| s.parse().ok())
        .unwrap_or(0);
    let start = Instant::now();
    let mut total = 0u64;
    let accepted_before = ACCEPTED.load(Ordering::Relaxed);
    loop {
        let cases = if secs == 0 { smoke_cases } else { 2000 };
        let mut runner = TestRunner::new(Config {
            cases,
            failure_persistence: None,
            ..Config::default()
        });
        if let Err(e) = runner.run(&strategy, &test) {
            panic!("fuzz target {name} failed after {total} inputs: {e}");
        }
        total += u64::from(cases);
        if start.elapsed() >= Duration::from_secs(secs) {
            break;
        }
    }
    if secs > 0 {
        eprintln!(
            "fuzz target {name}: {total} inputs in {:.0} s, {} accepted by the parser and run through its consumers, no failure",
            start.elapsed().as_secs_f64(),
            ACCEPTED.load(Ordering::Relaxed) - accepted_before
        );
    }
}

fn small_cluster() -> ClusterSpec {
    let gpu = find_gpu("a100-80g").expect("built-in GPU");
    ClusterSpec::new(
        gpu,
        8,
        2,
        InterLink::Rdma,
        Bandwidth::from_gbit_per_s(800.0),
    )
    .expect("valid cluster")
}

fn finite_json(v: &Value) -> bool {
    // serde_json writes a non-finite f64 as null; a number that is present must be finite.
    match v {
        Value::Number(n) => n.as_f64().is_none_or(f64::is_finite),
        Value::Array(a) => a.iter().all(finite_json),
        Value::Object(o) => o.values().all(finite_json),
        _ => true,
    }
}

const LLAMA_CONFIG: &str = r#"{"architectures":["LlamaForCausalLM"],"model_type":"llama",
"hidden_size":4096,"intermediate_size":14336,"num_attention_heads":32,"num_key_value_heads":8,
"num_hidden_layers":32,"vocab_size":128256,"max_position_embeddings":131072,
"rms_norm_eps":1e-5,"tie_word_embeddings":false,"torch_dtype":"bfloat16"}"#;
const MOE_CONFIG: &str = r#"{"architectures":["MixtralForCausalLM"],"model_type":"mixtral",
"hidden_size":4096,"intermediate_size":14336,"num_attention_heads":32,"num_key_value_heads":8,
"num_hidden_layers":32,"vocab_size":32000,"num_local_experts":8,"num_experts_per_tok":2,
"max_position_embeddings":32768}"#;
const GPT2_CONFIG: &str = r#"{"model_type":"gpt2","n_embd":768,"n_head":12,"n_layer":12,
"n_positions":1024,"vocab_size":50257}"#;

fn exercise_model(text: &str) -> Result<(), TestCaseError> {
    let Ok(m) = parse_hf_config("fuzz", text) else {
        return Ok(());
    };
    accepted();
    let s = model_summary(&m);
    prop_assert!(
        s.params.active <= s.params.total,
        "active > total: {:?}",
        s.params
    );
    let c = small_cluster();
    let tun = Tunables::default();
    let t = TrainingSetup {
        tokens: Some(1e6),
        ..TrainingSetup::default()
    };
    if let Ok(e) = estimate_training(&m, &t, &c, &tun) {
        let v = serde_json::to_value(&e).map_err(|e| TestCaseError::fail(e.to_string()))?;
        prop_assert!(finite_json(&v));
    }
    if let Ok(e) = estimate_inference(&m, &InferenceSetup::default(), &c, &tun) {
        let v = serde_json::to_value(&e).map_err(|e| TestCaseError::fail(e.to_string()))?;
        prop_assert!(finite_json(&v));
    }
    Ok(())
}

#[test]
fn fuzz_hf_config() {
    let seeds: Vec<Value> = [LLAMA_CONFIG, MOE_CONFIG, GPT2_CONFIG]
        .iter()
        .map(|t| serde_json::from_str(t).expect("seed parses"))
        .collect();
    let strategy = (0usize..seeds.len(), mutations(), damage());
    run_target("hf_config", 256, strategy, |(i, muts, dmg)| {
        let v = mutate(&seeds[i], &muts);
        let text = apply_damage(&v.to_string(), &dmg);
        exercise_model(&text)
    });
}

const WORKLOAD_SEED: &str = r#"
model = "Qwen2.5-7B"
kind = "training"
global_batch = 64

[training]
task = "lora"
seq_len = 2048
tokens = 1e8
micro_batch = 1
grad_accum = 8

[hardware]
gpu = "a100-80g"
gpus_per_node = 8
nodes = 1

[serve]
input_tokens = 1000
output_tokens = 300
rate_rps = 2.0
gpu_memory_utilization = 0.9

[constraints]
max_nodes = 4
deadline_hours = 24.0
budget_cny = 5000.0
restart_minutes = 10.0
"#;

/// TOML value text for a hostile value.
fn nasty_toml() -> impl Strategy<Value = String> {
    prop_oneof![
        4 => (1u64..100_000).prop_map(|x| x.to_string()),
        2 => (1u64..129).prop_map(|x| x.to_string()),
        1 => Just("nan".to_string()),
        1 => Just("-nan".to_string()),
        1 => Just("inf".to_string()),
        1 => Just("-inf".to_string()),
        1 => Just("-1".to_string()),
        1 => Just("0".to_string()),
        1 => Just("9223372036854775807".to_string()),
        1 => Just("1e308".to_string()),
        1 => Just("-1e308".to_string()),
        1 => Just("\"8\"".to_string()),
        1 => Just("\"\"".to_string()),
        1 => Just("[]".to_string()),
        1 => Just("{}".to_string()),
        1 => Just("true".to_string()),
        1 => any::<i64>().prop_map(|x| x.to_string()),
        1 => (-1e9f64..1e9).prop_map(|x| format!("{x:e}")),
    ]
}

/// Replace the value of the k-th `key = value` line.
fn replace_values(text: &str, muts: &[(f64, String)]) -> String {
    let mut lines: Vec<String> = text.lines().map(str::to_string).collect();
    let kv: Vec<usize> = lines
        .iter()
        .enumerate()
        .filter(|(_, l)| l.contains(" = "))
        .map(|(i, _)| i)
        .collect();
    for (at, val) in muts {
        if kv.is_empty() {
            break;
        }
        let i = kv[((*at * kv.len() as f64) as usize).min(kv.len() - 1)];
        if let Some((k, _)) = lines[i].split_once(" = ") {
            lines[i] = format!("{k} = {val}");
        }
    }
    lines.join("\n")
}

/// `parse_workload` reads the typed workload from its one parse, the TOML table (refactor23):
/// where it accepts a file, the text read typed gives the same values (what the JSON writes;
/// `-0` and 0 compare equal).
fn same_as_the_text_read_typed(
    text: &str,
    w: &gpuplan_core::job::WorkloadFile,
) -> Result<(), TestCaseError> {
    let typed = toml::from_str::<gpuplan_core::job::WorkloadFile>(text)
        .map_err(|e| TestCaseError::fail(format!("the text does not read typed: {e}")))?;
    let json = |w: &gpuplan_core::job::WorkloadFile| serde_json::to_value(w).ok();
    prop_assert_eq!(json(&typed), json(w));
    Ok(())
}

#[test]
fn fuzz_workload_toml() {
    let strategy = (
        prop::collection::vec((0.0f64..1.0, nasty_toml()), 1..5),
        damage(),
    );
    run_target("workload_toml", 256, strategy, |(muts, dmg)| {
        let text = apply_damage(&replace_values(WORKLOAD_SEED, &muts), &dmg);
        let Ok(w) = parse_workload("fuzz.toml", &text) else {
            return Ok(());
        };
        same_as_the_text_read_typed(&text, &w)?;
        accepted();
        let tun = w.tunables.clone().unwrap_or_default();
        if tun.validate().is_err() {
            return Ok(());
        }
        let Ok(c) = w.hardware.clone().unwrap_or_default().cluster() else {
            return Ok(());
        };
        let Ok(p) = gpuplan_core::model::find_preset("Qwen2.5-7B") else {
            return Ok(());
        };
        if let Some(t) = &w.training {
            if let Ok(e) = estimate_training(&p.model, t, &c, &tun) {
                let v = serde_json::to_value(&e).map_err(|e| TestCaseError::fail(e.to_string()))?;
                prop_assert!(finite_json(&v));
            }
        }
        Ok(())
    });
}

fn builtin_catalog_seed() -> String {
    // A few real rows of each kind, from the built-in catalog files.
    let cat = Catalog::builtin().expect("built-in catalog");
    let f = gpuplan_core::catalog::CatalogFile {
        instance: cat.instances.iter().take(6).cloned().collect(),
        price: cat.prices.iter().take(6).cloned().collect(),
        storage: cat.storage.iter().take(3).cloned().collect(),
        gpu: cat.gpus.iter().take(2).cloned().collect(),
        ..Default::default()
    };
    toml::to_string(&f).expect("catalog serializes")
}

#[test]
fn fuzz_catalog_toml() {
    let seed = builtin_catalog_seed();
    let base = Catalog::builtin().expect("built-in catalog");
    let strategy = (
        prop::collection::vec((0.0f64..1.0, nasty_toml()), 1..6),
        damage(),
    );
    run_target("catalog_toml", 128, strategy, |(muts, dmg)| {
        let text = apply_damage(&replace_values(&seed, &muts), &dmg);
        let Ok(f) = parse_catalog_file("fuzz.toml", &text) else {
            return Ok(());
        };
        accepted();
        let _ = validate_file("fuzz.toml", &f, &base);
        let mut cat = base.clone();
        cat.merge(f, Origin::User("fuzz.toml".into()), "fuzz.toml");
        let v = serde_json::to_value(&cat).map_err(|e| TestCaseError::fail(e.to_string()))?;
        let _ = v;
        Ok(())
    });
}

fn fixture(name: &str) -> Value {
    let p = std::path::Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("tests/fixtures")
        .join(name);
    let text = std::fs::read_to_string(p).expect("fixture readable");
    serde_json::from_str(&text).expect("fixture parses")
}

type Importer =
    fn(
        &[(String, String)],
        &ImportContext,
        &Catalog,
    ) -> Result<gpuplan_core::catalog::import::ImportResult, gpuplan_core::error::CoreError>;

fn fuzz_provider(name: &str, seeds: &[&str], import: Importer, ctx: ImportContext) {
    let seeds: Vec<Value> = seeds.iter().map(|s| fixture(s)).collect();
    let base = Catalog::builtin().expect("built-in catalog");
    let strategy = (0usize..seeds.len(), mutations(), damage());
    run_target(name, 128, strategy, |(i, muts, dmg)| {
        let v = mutate(&seeds[i], &muts);
        let text = apply_damage(&v.to_string(), &dmg);
        let Ok(r) = import(&[("fuzz.json".into(), text)], &ctx, &base) else {
            return Ok(());
        };
        accepted();
        // What an import returns is written to the user's catalog: it must serialize and
        // parse back.
        let out = toml::to_string(&r.file).map_err(|e| TestCaseError::fail(e.to_string()))?;
        prop_assert!(parse_catalog_file("round trip", &out).is_ok(), "{out}");
        Ok(())
    });
}

fn ctx() -> ImportContext {
    ImportContext {
        region: Some("cn-hangzhou".into()),
        today: "2026-12-03".into(),
        price_instance: Some("ecs.gn7i-c8g1.2xlarge".into()),
        price_billing: None,
    }
}

#[test]
fn fuzz_alibaba_json() {
    fuzz_provider(
        "alibaba_json",
        &[
            "alibaba-describe-instance-types-page1.json",
            "alibaba-describe-price.json",
            "alibaba-describe-spot-price-history.json",
        ],
        import_alibaba,
        ctx(),
    );
}

#[test]
fn fuzz_huawei_json() {
    fuzz_provider(
        "huawei_json",
        &["huawei-list-flavors.json"],
        import_huawei,
        ctx(),
    );
}

#[test]
fn fuzz_tencent_json() {
    fuzz_provider(
        "tencent_json",
        &["tencent-describe-zone-instance-config-infos.json"],
        import_tencent,
        ctx(),
    );
}
