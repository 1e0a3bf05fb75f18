//! Issue 13: what a user sees on an ordinary terminal, as insta snapshots. `plan`, `estimate`,
//! `catalog instances` and four error messages in English and Chinese at 80 columns, where no
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

/// Four kinds of error: a name the catalog lacks, a value out of range (core validation), a
/// value clap refuses and a number given with a suffix (2k: 2000 or 2048?).
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
    (
        "error_suffix",
        &["plan", "--model", "Qwen2.5-7B", "--seq-len", "2k"],
    ),
];

fn run(columns: usize, lang: &str, args: &[&str]) -> (Option<i32>, String) {
    let cfg = common::scratch().join(format!("gpuplan-terminal-{}", std::process::id()));
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

/// The cells of the first table in `text` after its header rule: one `Vec` per printed line.
fn first_table_lines(text: &str) -> Vec<Vec<String>> {
    text.lines()
        .skip_while(|l| !l.starts_with('╞'))
        .skip(1)
        .take_while(|l| l.starts_with('│'))
        .map(|l| {
            l.trim_matches('│')
                .split('┆')
                .map(|c| c.trim().to_string())
                .collect()
        })
        .collect()
}

/// Audit r3: at 80 columns a 1T-token 70B pretraining plan printed its ¥17,504,706 total as
/// `¥175047` over `06`, and a 10.2 h time as `10.2` over `h`. A figure never wraps: a continuation
/// line of the plan table has no figure in the time, ¥ and free columns, and a total of a million
/// or more is shortened (`¥17.5M`, `¥1750万`).
#[test]
fn plan_table_never_splits_a_figure_at_80_columns() {
    let big = [
        "plan",
        "-m",
        "Llama-3.1-70B",
        "--task",
        "pretrain",
        "--tokens",
        "1e12",
        "--max-nodes",
        "64",
        "--profile",
        "megatron",
    ];
    let moe = [
        "plan",
        "-m",
        "DeepSeek-V3",
        "--task",
        "lora",
        "--tokens",
        "1e8",
    ];
    // A 25-character GPU id (128×alibaba-blackwell-72g): the ids wrap, the figures do not.
    let long_id = [
        "plan",
        "-m",
        "Qwen2.5-14B",
        "--task",
        "full",
        "--tokens",
        "2e9",
        "--deadline",
        "12h",
    ];
    for lang in ["en", "zh"] {
        for args in [&big[..], &moe[..], &long_id[..]] {
            let (code, text) = run(80, lang, args);
            assert_eq!(code, Some(0), "{text}");
            assert!(too_wide(&text, 80).is_empty(), "{text}");
            let lines = first_table_lines(&text);
            assert!(lines.len() >= 3, "{text}");
            for cells in &lines {
                assert_eq!(cells.len(), 7, "{cells:?}");
                if cells[0].is_empty() {
                    for c in &cells[3..6] {
                        assert!(!c.bytes().any(|b| b.is_ascii_digit()), "split: {text}");
                    }
                } else {
                    let cost = &cells[4];
                    if cost == "no price" || cost == "无价格" {
                        continue;
                    }
                    let digits = cost.trim_start_matches('¥').trim_end_matches(['M', '万']);
                    assert!(
                        cost.starts_with('¥') && digits.parse::<f64>().is_ok(),
                        "{cost}"
                    );
                    assert!(digits.len() <= 6, "{cost}: not shortened");
                }
            }
        }
        // The big plan's total (¥17-18M with today's model) is shortened, not printed in full.
        let (_, text) = run(80, lang, &big);
        let short = |w: &str| {
            let d = w.trim_start_matches('¥');
            let (num, unit) = if lang == "en" {
                (d.trim_end_matches('M'), d.ends_with('M'))
            } else {
                (d.trim_end_matches('万'), d.ends_with('万'))
            };
            w.starts_with('¥') && unit && num.parse::<f64>().is_ok_and(|x| x >= 10.0)
        };
        assert!(
            text.split(|c: char| c.is_whitespace() || c == '┆' || c == '│')
                .any(short),
            "{text}"
        );
    }
}

/// Audit r3: a Tencent price transcribed without its region printed the catalog's sentinel
/// (`estimate (unspecified, 2026-06-15 …)`, in Chinese too: `估算价（unspecified，…）`). The
/// region reads as a sentence in the reader's language.
#[test]
fn a_price_without_a_region_says_so_in_both_languages() {
    let args = [
        "plan",
        "-m",
        "Qwen2.5-7B",
        "--task",
        "inference",
        "--rate",
        "5",
        "--provider",
        "tencent",
    ];
    for (lang, want) in [("en", "region not stated"), ("zh", "未注明地域")] {
        let (code, text) = run(200, lang, &args);
        assert_eq!(code, Some(0), "{text}");
        assert!(!text.contains("unspecified"), "{text}");
        assert!(text.contains(want), "{text}");
    }
}

/// Audit r3: `gpuplan models` at 80 columns squeezed nine columns to six characters each
/// (`Qwen2.` over `5-0.5B`, `671.03` over `B`). A narrow terminal gets the model, params, active,
/// heads/kv and context columns with names and figures whole, and a note on what was left out.
#[test]
fn models_list_is_readable_at_80_columns() {
    for (lang, note) in [("en", "Narrow terminal"), ("zh", "终端较窄")] {
        let (code, text) = run(80, lang, &["models"]);
        assert_eq!(code, Some(0), "{text}");
        assert!(too_wide(&text, 80).is_empty(), "{text}");
        for whole in [
            "DeepSeek-R1-Distill-Qwen-32B",
            "Qwen2.5-0.5B",
            "671.03B",
            "131072",
        ] {
            assert!(text.contains(whole), "{whole} split:\n{text}");
        }
        assert!(text.contains(note), "{text}");
    }
    let (_, wide) = run(200, "en", &["models"]);
    assert!(
        wide.contains("published") && !wide.contains("Narrow terminal"),
        "{wide}"
    );
}

/// Audit r5: in Chinese at 80 columns the ids split (`1×ecs.ebmgn7e.32xlarg` over `e`,
/// `2×modelarts.snt9b` over `.8`); audit r7 #18: in English too (`2×ecs.ebmgn7ex.32` over
/// `xlarge`, `16×alibaba-blackwe` over `ll-72g`), and the Chinese bottleneck split inside a word
/// (`显存带` over `宽`, `DP` over `通信`). An id that must wrap breaks only after a `.`, `-` or `×`,
/// so each line is a whole piece of it; a Chinese bottleneck name is never split.
#[test]
fn plan_tables_break_ids_only_at_dots_and_keep_chinese_words_whole_at_80_columns() {
    let cases: [(&str, &[&str]); 6] = [
        (
            "zh",
            &[
                "plan",
                "-m",
                "Qwen2.5-14B",
                "--task",
                "full",
                "--tokens",
                "1e9",
                "--deadline",
                "48h",
            ],
        ),
        (
            "zh",
            &[
                "plan",
                "-m",
                "Qwen2.5-7B",
                "--task",
                "full",
                "--tokens",
                "1e9",
                "--chips",
                "ascend",
            ],
        ),
        (
            "zh",
            &[
                "plan",
                "-m",
                "DeepSeek-V3",
                "--task",
                "lora",
                "--tokens",
                "1e8",
            ],
        ),
        (
            "en",
            &[
                "plan",
                "-m",
                "Yi-34B",
                "--task",
                "full",
                "--tokens",
                "5e8",
                "--max-nodes",
                "2",
            ],
        ),
        (
            "zh",
            &[
                "plan",
                "-m",
                "Llama-3.1-70B",
                "--task",
                "full",
                "--tokens",
                "1e9",
                "--interruptible",
            ],
        ),
        (
            "zh",
            &[
                "plan",
                "-m",
                "DeepSeek-V3",
                "--task",
                "inference",
                "--concurrency",
                "64",
                "--chips",
                "nvidia,ascend",
            ],
        ),
    ];
    for (lang, args) in cases {
        let (code, text) = run(80, lang, args);
        assert_eq!(code, Some(0), "{text}");
        assert!(too_wide(&text, 80).is_empty(), "{text}");
        let lines = first_table_lines(&text);
        assert!(lines.len() >= 3, "{text}");
        let serve = args.contains(&"inference");
        // The GPU cell of a serving plan has the weight format on its second line.
        let id_cols: &[usize] = if serve { &[1] } else { &[1, 2] };
        for pair in lines.windows(2) {
            let (prev, cont) = (&pair[0], &pair[1]);
            if !cont[0].is_empty() {
                continue;
            }
            for &k in id_cols {
                if !cont[k].is_empty() {
                    assert!(prev[k].ends_with(['.', '-', '×']), "id split: {text}");
                }
            }
            if lang == "zh" {
                let last = cont.len() - 1;
                assert!(cont[last].is_empty(), "bottleneck split: {text}");
            }
        }
    }
}

/// The header of the first table in `text`: its lines between the top border and the rule.
fn first_table_header(text: &str) -> Vec<&str> {
    text.lines()
        .skip_while(|l| !l.starts_with('┌'))
        .skip(1)
        .take_while(|l| !l.starts_with('╞'))
        .collect()
}

/// A plan that takes years (`1174.2 years`, `1174.2 年`) widens the time column: at 80 columns
/// the header `bottleneck` was split over `bottlen` / `eck`. Header words stay whole (each plan
/// header is one word, so the header is one line); the ids wrap instead, the figures do not.
#[test]
fn a_years_long_plan_keeps_its_header_words_whole_at_80_columns() {
    let args = [
        "plan",
        "-m",
        "Llama-3.1-70B",
        "--task",
        "pretrain",
        "--tokens",
        "1e13",
        "--max-nodes",
        "2",
    ];
    for lang in ["en", "zh"] {
        let (code, text) = run(80, lang, &args);
        assert_eq!(code, Some(0), "{text}");
        assert!(too_wide(&text, 80).is_empty(), "{text}");
        let years = if lang == "en" { " years" } else { " 年" };
        assert!(text.contains(years), "{text}");
        let header = first_table_header(&text);
        assert_eq!(header.len(), 1, "a header word wrapped:\n{text}");
        for cells in first_table_lines(&text) {
            if cells[0].is_empty() {
                for c in &cells[3..6] {
                    assert!(!c.bytes().any(|b| b.is_ascii_digit()), "split: {text}");
                }
            }
        }
        insta::assert_snapshot!(format!("plan_years_{lang}_80"), text);
    }
}
