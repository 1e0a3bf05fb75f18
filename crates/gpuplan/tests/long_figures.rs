//! Very long jobs read in years and T, in every text renderer and both languages; JSON keeps the
//! raw SI numbers (a 10¹⁶-token job read "575381.1 days" and "10000000.00B tokens").

mod common;

use std::process::Command;

fn run(args: &[&str]) -> String {
    let dir = common::scratch().join(format!("gpuplan-long-{}", std::process::id()));
    let out = Command::new(env!("CARGO_BIN_EXE_gpuplan"))
        .env("GPUPLAN_TODAY", common::TODAY)
        .env("GPUPLAN_CONFIG_DIR", dir)
        .env("COLUMNS", "200")
        .args(args)
        .output()
        .unwrap();
    String::from_utf8_lossy(&out.stdout).into_owned()
}

const JOB: &[&str] = &[
    "-m",
    "Llama-3.1-8B",
    "--task",
    "pretrain",
    "--tokens",
    "1e16",
];

#[test]
fn estimate_and_plan_show_years_and_t_in_both_languages() {
    for cmd in [
        vec!["estimate", "--gpu", "A100"],
        vec!["plan", "--max-nodes", "1"],
    ] {
        for (lang, years) in [("en", " years"), ("zh", " 年")] {
            for format in ["table", "markdown"] {
                let mut a = cmd.clone();
                a.extend_from_slice(JOB);
                a.extend_from_slice(&["--lang", lang, "--format", format]);
                let text = run(&a);
                assert!(text.contains("10000.00T tokens"), "{a:?}: {text}");
                assert!(text.contains(years), "{a:?}: {text}");
                assert!(
                    !text.contains("000.00B") && !text.contains(" days"),
                    "{a:?}"
                );
            }
        }
    }
}

#[test]
fn json_keeps_raw_numbers() {
    let mut a = vec!["plan", "--max-nodes", "1", "--format", "json"];
    a.extend_from_slice(JOB);
    let v: serde_json::Value = serde_json::from_str(&run(&a)).unwrap();
    let top = &v["outcome"]["plans"][0];
    assert!(top["hours"].as_f64().unwrap() > 365.0 * 24.0);
    assert_eq!(v["request"]["job"]["setup"]["tokens"], 1e16);
}
