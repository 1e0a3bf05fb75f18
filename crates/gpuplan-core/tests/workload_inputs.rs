//! Workload files with random values in every numeric key: parsing and validation never panic,
//! every refusal names a key or field, and what is accepted estimates to finite, non-negative
//! numbers (tests run with overflow checks on).

use gpuplan_core::error::CoreError;
use gpuplan_core::job::{estimate_inference, estimate_training, parse_workload};
use gpuplan_core::model::find_preset;
use proptest::prelude::*;

const KEYS: &[(&str, &str)] = &[
    ("training", "micro_batch"),
    ("training", "seq_len"),
    ("training", "grad_accum"),
    ("training", "tokens"),
    ("training", "samples"),
    ("training", "epochs"),
    ("training.parallel", "zero"),
    ("training.lora", "rank"),
    ("inference", "batch"),
    ("inference", "input_tokens"),
    ("inference", "output_tokens"),
    ("inference", "max_model_len"),
    ("inference", "gpu_memory_utilization"),
    ("hardware", "gpus_per_node"),
    ("hardware", "nodes"),
    ("hardware", "inter_gbit"),
    ("tunables", "fragmentation"),
    ("tunables", "startup_hours"),
    ("tunables", "prefill_efficiency"),
];

fn value() -> impl Strategy<Value = &'static str> {
    prop_oneof![
        Just("nan"),
        Just("inf"),
        Just("-1"),
        Just("0"),
        Just("1"),
        Just("8"),
        Just("0.5"),
        Just("4096"),
        Just("1e8"),
        Just("1e400"),
        Just("18446744073709551615"),
        Just("9223372036854775807"),
        Just("\"abc\""),
    ]
}

fn workload() -> impl Strategy<Value = (bool, String)> {
    (
        any::<bool>(),
        prop::collection::vec((0..KEYS.len(), value()), 1..4),
    )
        .prop_map(|(inference, kv)| {
            let mut tables: Vec<(String, Vec<String>)> = vec![
                ("training".into(), vec!["task = \"lora\"".into()]),
                ("hardware".into(), vec!["gpu = \"A100\"".into()]),
            ];
            for (k, v) in kv {
                let (table, key) = KEYS[k];
                let line = format!("{key} = {v}");
                match tables.iter_mut().find(|(t, _)| t == table) {
                    Some((_, lines))
                        if !lines.iter().any(|l| l.starts_with(&format!("{key} "))) =>
                    {
                        lines.push(line)
                    }
                    Some(_) => {}
                    None => tables.push((table.into(), vec![line])),
                }
            }
            let mut text = String::from("model = \"Qwen2.5-0.5B\"\n");
            for (t, lines) in tables {
                text.push_str(&format!("[{t}]\n{}\n", lines.join("\n")));
            }
            (inference, text)
        })
}

fn names_something(e: &CoreError) -> bool {
    match e {
        CoreError::InvalidField { field, .. } => !field.is_empty(),
        CoreError::Parse { message, .. } => message.contains("line") || message.contains("key"),
        _ => true,
    }
}

fn sane(x: f64) -> bool {
    x.is_finite() && x >= 0.0
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 500, failure_persistence: None, ..ProptestConfig::default() })]

    #[test]
    fn random_workload_values_never_panic_and_estimates_stay_finite((inference, text) in workload()) {
        let model = &find_preset("Qwen2.5-0.5B").map_err(|e| TestCaseError::fail(e.to_string()))?.model;
        let w = match parse_workload("w.toml", &text) {
            Ok(w) => w,
            Err(e) => {
                prop_assert!(names_something(&e), "{text}: {e}");
                return Ok(());
            }
        };
        let tun = w.tunables.clone().unwrap_or_default();
        let cluster = match w.hardware.clone().unwrap_or_default().cluster() {
            Ok(c) => c,
            Err(e) => {
                prop_assert!(names_something(&e), "{text}: {e}");
                return Ok(());
            }
        };
        if inference {
            let s = w.inference.clone().unwrap_or_default();
            match estimate_inference(model, &s, &cluster, &tun) {
                Ok(e) => prop_assert!(sane(e.memory.weights.0), "{text}"),
                Err(e) => prop_assert!(names_something(&e), "{text}: {e}"),
            }
        } else {
            let s = w.training.clone().unwrap_or_default();
            match estimate_training(model, &s, &cluster, &tun) {
                Ok(e) => {
                    prop_assert!(sane(e.memory.device_total.0), "{text}");
                    if let Some(t) = e.totals {
                        prop_assert!(sane(t.gpu_hours) && sane(t.wall_time.0), "{text}");
                    }
                }
                Err(e) => prop_assert!(names_something(&e), "{text}: {e}"),
            }
        }
    }
}
