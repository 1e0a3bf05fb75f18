//! `estimate` shows the memory timeline of one training step (phase → live GiB by component, the
//! peak marked) in table, Markdown and JSON (issue 9): snapshots of the three, and the properties
//! each must hold whatever the numbers.

use serde_json::Value;
use std::process::Command;

const JOB: &[&str] = &[
    "estimate",
    "-m",
    "Llama-3.1-8B",
    "--task",
    "lora",
    "--gpu",
    "a100-80g",
    "--seq-len",
    "2048",
    "--micro-batch",
    "2",
];

fn run(format: &str) -> String {
    let cfg = tempfile::Builder::new()
        .prefix("gpuplan-est-tl-")
        .tempdir()
        .unwrap();
    let o = Command::new(env!("CARGO_BIN_EXE_gpuplan"))
        .env("GPUPLAN_TODAY", "2026-12-03")
        .env("GPUPLAN_CONFIG_DIR", cfg.path())
        .env("COLUMNS", "220")
        .args(JOB)
        .args(["--format", format])
        .output()
        .unwrap();
    assert_eq!(
        o.status.code(),
        Some(0),
        "{}",
        String::from_utf8_lossy(&o.stderr)
    );
    String::from_utf8(o.stdout).unwrap()
}

/// The timeline block of a table/Markdown output: from its heading to the next blank line.
fn timeline_block(out: &str) -> String {
    let start = out.find("step timeline").expect("a step timeline");
    out[start..]
        .split("\n\n")
        .next()
        .unwrap()
        .lines()
        .take_while(|l| !l.starts_with("time per optimizer step"))
        .collect::<Vec<_>>()
        .join("\n")
}

#[test]
fn table_timeline_marks_the_peak() {
    let block = timeline_block(&run("table"));
    assert_eq!(block.matches("← peak").count(), 1, "{block}");
    insta::assert_snapshot!("estimate_timeline_table", block);
}

#[test]
fn markdown_timeline_marks_the_peak() {
    let block = timeline_block(&run("markdown"));
    assert_eq!(block.matches("← peak").count(), 1, "{block}");
    assert!(block.contains("| phase"), "{block}");
    insta::assert_snapshot!("estimate_timeline_markdown", block);
}

#[test]
fn json_timeline_has_phases_components_and_the_peak() {
    let v: Value = serde_json::from_str(&run("json")).unwrap();
    let m = &v["estimate"]["memory"];
    let tl = &m["timeline"];
    let phases = tl["phases"].as_array().unwrap();
    let peak = tl["peak_index"].as_u64().unwrap() as usize;
    assert!(phases.len() >= 5);
    // The peak phase has the most live bytes and is the estimate's peak allocated.
    let totals: Vec<f64> = phases
        .iter()
        .map(|p| p["total"].as_f64().unwrap())
        .collect();
    assert!(totals.iter().all(|t| *t <= totals[peak]));
    assert_eq!(totals[peak], m["peak_allocated"].as_f64().unwrap());
    assert_eq!(phases[peak]["phase"], m["phase_at_peak"]);
    // Every phase's components sum to its total.
    for p in phases {
        let sum: f64 = p["components"]
            .as_array()
            .unwrap()
            .iter()
            .map(|c| c[1].as_f64().unwrap())
            .sum();
        assert!((sum - p["total"].as_f64().unwrap()).abs() < 1.0, "{p}");
    }
    insta::assert_snapshot!(
        "estimate_timeline_json",
        serde_json::to_string_pretty(tl).unwrap()
    );
}

fn plan(args: &[&str]) -> String {
    let cfg = tempfile::Builder::new()
        .prefix("gpuplan-plan-tl-")
        .tempdir()
        .unwrap();
    let o = Command::new(env!("CARGO_BIN_EXE_gpuplan"))
        .env("GPUPLAN_TODAY", "2026-12-03")
        .env("GPUPLAN_CONFIG_DIR", cfg.path())
        .env("COLUMNS", "220")
        .args([
            "plan",
            "-m",
            "Llama-3.1-8B",
            "--task",
            "lora",
            "--tokens",
            "1e8",
            "--provider",
            "alibaba",
            "--top",
            "1",
        ])
        .args(args)
        .output()
        .unwrap();
    assert_eq!(
        o.status.code(),
        Some(0),
        "{}",
        String::from_utf8_lossy(&o.stderr)
    );
    String::from_utf8(o.stdout).unwrap()
}

/// `plan` says in which phase of the step the memory peak occurs: in its JSON (the timeline's
/// peak phase) and in the plan detail, in words from the catalog in both languages.
#[test]
fn plan_names_the_phase_of_the_memory_peak() {
    let v: Value = serde_json::from_str(&plan(&["--format", "json"])).unwrap();
    let m = &v["outcome"]["plans"][0]["train"]["memory"];
    let tl = &m["timeline"];
    let peak = tl["peak_index"].as_u64().unwrap() as usize;
    let phase = m["phase_at_peak"].as_str().unwrap();
    assert_eq!(tl["phases"][peak]["phase"].as_str(), Some(phase));
    assert_eq!(
        phase, "backward: loss",
        "this LoRA job peaks at the loss backward"
    );
    // The title's total is the device total the table sums to, not the allocated peak alone.
    let total = format!(
        "{:.2}",
        m["device_total"].as_f64().unwrap() / (1u64 << 30) as f64
    );
    let en = plan(&["--lang", "en"]);
    assert!(
        en.contains(&format!("{total} GiB at the peak (backward: loss;")),
        "{en}"
    );
    let zh = plan(&["--lang", "zh"]);
    assert!(
        zh.contains(&format!("峰值 {total} GiB（阶段 反向：损失")),
        "{zh}"
    );
}
