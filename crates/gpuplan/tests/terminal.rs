//! Issue 13: what a user sees on an ordinary terminal, as insta snapshots. `plan`, `estimate`,
//! `catalog instances` and three error messages in English and Chinese at 80 columns, where no
//! line may be wider than 80 display columns (a CJK character counts two), and `plan` at 120
//! columns in both languages. Each snapshot holds stdout, then stderr after a `--- stderr` line.

mod common;

use std::process::Command;

/// The README's example job, explained.
fn plan() -> Vec<&'static str> {
    [common::README_PLAN, &["--explain"]].concat()
}

const ESTIMATE: &[&str] = &[
    "estimate",
    "--model",
    "Llama-3.1-8B",
    "--task",
    "lora",
    "--gpu",
    "a100-80g",
    "--tokens",
    "1e8",
];

const CATALOG: &[&str] = &["catalog", "instances", "--gpu", "a100"];

/// Three kinds of error: a name the catalog lacks, a value out of range (core validation) and a
/// value clap refuses.
const ERRORS: &[(&str, &[&str])] = &[
    (
        "error_unknown_model",
        &["plan", "--model", "Qwen2.5-7", "--task", "lora"],
    ),
    (
        "error_out_of_range",
        &["plan", "--model", "Qwen2.5-7B", "--max-nodes", "100000"],
    ),
    (
        "error_not_a_number",
        &["estimate", "--model", "Qwen2.5-7B", "--seq-len", "2k4"],
    ),
];

fn run(columns: usize, lang: &str, args: &[&str]) -> (Option<i32>, String) {
    let cfg = std::env::temp_dir().join(format!("gpuplan-terminal-{}", std::process::id()));
    let o = Command::new(env!("CARGO_BIN_EXE_gpuplan"))
        .env("GPUPLAN_TODAY", "2026-12-03")
        .env("GPUPLAN_CONFIG_DIR", &cfg)
        .env("COLUMNS", columns.to_string())
        .env_remove("LANG")
        .env_remove("LC_ALL")
        .env_remove("LC_MESSAGES")
        .args(["--lang", lang])
        .args(args)
        .output()
        .unwrap();
    let text = format!(
        "{}--- stderr\n{}",
        String::from_utf8_lossy(&o.stdout),
        String::from_utf8_lossy(&o.stderr)
    );
    (o.status.code(), text)
}

/// Lines wider than `columns` display columns, with their widths.
fn too_wide(text: &str, columns: usize) -> Vec<String> {
    text.lines()
        .map(|l| (unicode_width::UnicodeWidthStr::width(l), l))
        .filter(|(w, _)| *w > columns)
        .map(|(w, l)| format!("{w}: {l}"))
        .collect()
}

/// Runs `args` at `columns` in `lang`, checks the exit code and that no line is wider than the
/// terminal, and snapshots the output as `{name}_{lang}_{columns}`.
fn check_fits(name: &str, lang: &str, columns: usize, args: &[&str], want: i32) {
    let (code, text) = run(columns, lang, args);
    assert_eq!(code, Some(want), "{name} {lang}: {text}");
    let wide = too_wide(&text, columns);
    assert!(
        wide.is_empty(),
        "{name} {lang} at {columns} columns:\n{}",
        wide.join("\n")
    );
    insta::assert_snapshot!(format!("{name}_{lang}_{columns}"), text);
}

#[test]
fn plan_estimate_and_catalog_fit_80_columns_in_both_languages() {
    for lang in ["en", "zh"] {
        let plan = plan();
        for (name, args) in [
            ("plan", plan.as_slice()),
            ("estimate", ESTIMATE),
            ("catalog_instances", CATALOG),
        ] {
            check_fits(name, lang, 80, args, 0);
        }
    }
}

#[test]
fn errors_fit_80_columns_in_both_languages() {
    for lang in ["en", "zh"] {
        for (name, args) in ERRORS {
            check_fits(name, lang, 80, args, 2);
        }
    }
}

#[test]
fn plan_at_120_columns_in_both_languages() {
    for lang in ["en", "zh"] {
        check_fits("plan", lang, 120, &plan(), 0);
    }
}

/// `--help` of the two main commands and the root fits 80 columns in both languages, and the
/// Chinese help is Chinese (headings, defaults and every flag's text from help.ftl).
#[test]
fn help_fits_80_columns_and_is_chinese_under_zh() {
    for lang in ["en", "zh"] {
        for (name, args) in [
            ("help_plan", &["plan", "--help"][..]),
            ("help_estimate", &["estimate", "--help"][..]),
            ("help_root", &["--help"][..]),
        ] {
            check_fits(name, lang, 80, args, 0);
            if lang == "zh" {
                let (_, text) = run(80, lang, args);
                let english = common::english_sentences(&text);
                assert!(
                    english.is_empty(),
                    "{name}: English in zh help: {english:#?}"
                );
            }
        }
    }
}
