//! Audit r7 (notes/audit-r7.md), the text and listing findings: compact totals that hid the
//! difference deciding the rank (#19), years-long plans without a word (#14), dominated plans
//! without a reason (#21), Chinese listings with English data (#22) and small wrong-flag errors
//! (#24). Each test runs the CLI as a user does and asserts the property.

mod common;
use common::{stderr, stdout};
use std::process::Output;

fn run(args: &[&str]) -> Output {
    common::run("audit-r7-text", args)
}

/// The ¥ cells of the first table, in rank order.
fn cost_cells(text: &str) -> Vec<String> {
    text.lines()
        .skip_while(|l| !l.starts_with('╞'))
        .skip(1)
        .take_while(|l| l.starts_with('│'))
        .filter_map(|l| {
            let cells: Vec<&str> = l.trim_matches('│').split('┆').map(str::trim).collect();
            (!cells[0].is_empty()).then(|| cells[4].to_string())
        })
        .collect()
}

/// #19: `¥1.7M` over `¥1.7M` for ¥1,657,344 and ¥1,731,256 made plan 1 look dominated (same ¥,
/// 60% slower). Every compact total keeps three significant digits, so two totals that differ
/// by more than 1% never print alike, in English and in Chinese.
#[test]
fn compact_totals_keep_three_significant_digits() {
    let args = [
        "plan",
        "-m",
        "Llama-2-13B",
        "--task",
        "pretrain",
        "--tokens",
        "3e11",
        "--seq-len",
        "4096",
        "--deadline",
        "30d",
    ];
    for lang in ["en", "zh"] {
        let mut all = vec!["--lang", lang];
        all.extend_from_slice(&args);
        let o = run(&all);
        assert!(o.status.success(), "{}", stderr(&o));
        let text = stdout(&o);
        let mut json_args = all.clone();
        json_args.extend_from_slice(&["--format", "json"]);
        let v: serde_json::Value = serde_json::from_slice(&run(&json_args).stdout).unwrap();
        let totals: Vec<f64> = v["outcome"]["plans"]
            .as_array()
            .unwrap()
            .iter()
            .filter_map(|p| p["chosen"]["cny"].as_f64())
            .collect();
        let cells = cost_cells(&text);
        assert!(cells.len() >= 2 && totals.len() >= 2, "{text}");
        for (cell, total) in cells.iter().zip(&totals) {
            let (num, unit) = if lang == "en" {
                (cell.trim_start_matches('¥').trim_end_matches('M'), 1e6)
            } else {
                (cell.trim_start_matches('¥').trim_end_matches('万'), 1e4)
            };
            let shown: f64 = num.parse().unwrap_or_else(|_| panic!("{cell}: {text}"));
            assert!(*total >= 1e6, "{total}");
            // Three significant digits: within 0.5% of the JSON total.
            assert!(
                (shown * unit / total - 1.0).abs() < 0.005,
                "{cell} vs {total}"
            );
        }
        for (i, a) in totals.iter().enumerate().take(cells.len()) {
            for (j, b) in totals.iter().enumerate().take(cells.len()) {
                if (a / b - 1.0).abs() > 0.01 {
                    assert_ne!(cells[i], cells[j], "{text}");
                }
            }
        }
    }
}

/// #24: `--framework megatron` answered "unknown variant `megatron`, expected one of `pytorch`…";
/// the user means the Megatron training profile, and the error says so, in both languages.
#[test]
fn framework_megatron_points_to_the_profile() {
    for (lang, want) in [
        ("en", "--profile megatron"),
        ("zh", "请用 --profile megatron"),
    ] {
        let o = run(&[
            "--lang",
            lang,
            "plan",
            "-m",
            "Qwen2.5-7B",
            "--task",
            "lora",
            "--framework",
            "megatron",
        ]);
        assert_eq!(o.status.code(), Some(2), "{}", stderr(&o));
        let flat = stderr(&o).replace("\n  ", " ");
        assert!(flat.contains(want), "{}", stderr(&o));
        assert!(!stderr(&o).contains("unknown variant"), "{}", stderr(&o));
    }
}

/// #24: `--deadline 5min` and `90m` were refused; minutes are the natural unit of a short job.
#[test]
fn deadline_takes_minutes() {
    for (arg, hours) in [
        ("90m", 1.5),
        ("5min", 5.0 / 60.0),
        ("90 min", 1.5),
        ("2h", 2.0),
    ] {
        let o = run(&[
            "plan",
            "-m",
            "Qwen2.5-0.5B",
            "--task",
            "lora",
            "--tokens",
            "1e6",
            "--deadline",
            arg,
            "--format",
            "json",
        ]);
        assert_ne!(o.status.code(), Some(2), "{arg}: {}", stderr(&o));
        let v: serde_json::Value = serde_json::from_slice(&o.stdout).unwrap();
        let got = v["request"]["constraints"]["deadline_hours"]
            .as_f64()
            .unwrap();
        assert!((got - hours).abs() < 1e-9, "{arg}: {got}");
    }
    let o = run(&[
        "plan",
        "-m",
        "Qwen2.5-0.5B",
        "--task",
        "lora",
        "--deadline",
        "5mo",
    ]);
    assert_eq!(o.status.code(), Some(2), "{}", stderr(&o));
    assert!(stderr(&o).contains("90m"), "{}", stderr(&o));
}

/// #24: "warning: plans 2 also use prices older than 90 days": one other plan is "plan 2 also
/// uses".
#[test]
fn one_other_stale_plan_is_singular() {
    let o = run(&[
        "plan",
        "-m",
        "Llama-3.1-70B",
        "--task",
        "pretrain",
        "--tokens",
        "1.5e13",
        "--top",
        "2",
    ]);
    assert!(o.status.success(), "{}", stderr(&o));
    let err = stderr(&o);
    assert!(!err.contains("plans 2 also"), "{err}");
    assert!(err.contains("plan 2 also uses prices"), "{err}");
}

/// #22: `prices --by-gpu --lang zh` printed the provider `alibaba` and the billing `on-demand`
/// (the plan tables say 阿里云 / 按量付费); `catalog show gn8v --lang zh` named the related
/// families' provider `alibaba` and gave the catalog's English purchase note unmarked.
#[test]
fn chinese_listings_use_the_plan_tables_names() {
    for args in [&["prices", "--by-gpu"][..], &["prices"][..]] {
        let mut all = vec!["--lang", "zh"];
        all.extend_from_slice(args);
        let o = run(&all);
        assert!(o.status.success(), "{}", stderr(&o));
        let t = stdout(&o);
        // At 80 columns `prices` leaves the provider out (the id says it); `--by-gpu` keeps it.
        let by_gpu = args.contains(&"--by-gpu");
        assert!(
            t.contains("按量付费") && (!by_gpu || t.contains("阿里云")),
            "{t}"
        );
        for english in ["alibaba ", "on-demand", "monthly"] {
            let cells = t.split(['┆', '│']).map(str::trim);
            assert!(
                !cells.clone().any(|c| c == english.trim()),
                "{english}: {t}"
            );
        }
    }
    let o = run(&["--lang", "zh", "catalog", "show", "gn8v"]);
    assert!(o.status.success(), "{}", stderr(&o));
    let t = stdout(&o);
    assert!(t.contains("ebmgn8v (阿里云, h20)"), "{t}");
    assert!(!t.contains("(alibaba"), "{t}");
    assert!(t.contains("英文原文：Alibaba: only in some regions"), "{t}");
    // English keeps the ids that --provider and --billing take.
    let o = run(&["prices", "--by-gpu"]);
    assert!(stdout(&o).contains("┆alibaba "), "{}", stdout(&o));
}

/// #14: an 11-year 70B pretraining plan got no word. Past a year, the text says how many nodes
/// would finish it within a year at plan 1's own throughput per node (nodes × hours / 8766,
/// rounded up) and names --max-nodes; a plan within a year gets no such line.
#[test]
fn a_years_long_plan_says_how_many_nodes_would_finish_it_in_a_year() {
    let args = [
        "plan",
        "-m",
        "Llama-3.1-70B",
        "--task",
        "pretrain",
        "--tokens",
        "1.5e13",
    ];
    let mut json = args.to_vec();
    json.extend_from_slice(&["--format", "json"]);
    let v: serde_json::Value = serde_json::from_slice(&run(&json).stdout).unwrap();
    let p = &v["outcome"]["plans"][0];
    let (nodes, hours) = (p["nodes"].as_f64().unwrap(), p["hours"].as_f64().unwrap());
    assert!(hours > 8766.0, "{hours}");
    let need = (nodes * hours / 8766.0).ceil();
    for (lang, want) in [
        (
            "en",
            format!("needs at least ~{need} nodes instead of {nodes}"),
        ),
        (
            "zh",
            format!("一年内完成至少需要约 {need} 个节点（现为 {nodes} 个"),
        ),
    ] {
        let mut all = vec!["--lang", lang];
        all.extend_from_slice(&args);
        let o = run(&all);
        // Wrapped lines joined; spaces dropped (a Chinese line may break at one).
        let bare = |t: &str| t.split_whitespace().collect::<String>();
        let flat = bare(&stdout(&o));
        assert!(flat.contains(&bare(&want)), "{want}: {}", stdout(&o));
        assert!(flat.contains("--max-nodes（当前16）") || flat.contains("--max-nodes(now16)"));
    }
    let o = run(&[
        "plan",
        "-m",
        "Qwen2.5-0.5B",
        "--task",
        "lora",
        "--tokens",
        "1e6",
    ]);
    assert!(!stdout(&o).contains("within a year"), "{}", stdout(&o));
}

/// #21: a listed plan both slower and dearer than a plan above it had no word. The note names
/// exactly the shown plans that some plan above beats on both hours and ¥ (from the JSON).
#[test]
fn dominated_plans_are_named_with_the_plan_that_beats_them() {
    for args in [
        &[
            "plan",
            "-m",
            "DeepSeek-V3",
            "--task",
            "lora",
            "--tokens",
            "1e8",
        ][..],
        &[
            "plan",
            "-m",
            "Llama-3.1-70B",
            "--task",
            "full",
            "--tokens",
            "1e9",
        ][..],
        &[
            "plan",
            "-m",
            "Qwen2.5-7B",
            "--task",
            "lora",
            "--tokens",
            "1e8",
        ][..],
    ] {
        let mut json = args.to_vec();
        json.extend_from_slice(&["--format", "json", "--top", "5"]);
        let v: serde_json::Value = serde_json::from_slice(&run(&json).stdout).unwrap();
        let plans: Vec<(f64, Option<f64>)> = v["outcome"]["plans"].as_array().unwrap()[..5]
            .iter()
            .map(|p| (p["hours"].as_f64().unwrap(), p["chosen"]["cny"].as_f64()))
            .collect();
        let mut want = Vec::new();
        for (i, (h, c)) in plans.iter().enumerate() {
            let beaten =
                |(qh, qc): &(f64, Option<f64>)| c.zip(*qc).is_some_and(|(c, qc)| qc < c) && qh < h;
            if let Some(j) = plans[..i].iter().position(beaten) {
                want.push(format!("plan {} (than plan {}", i + 1, j + 1));
            }
        }
        let text = stdout(&run(args)).replace("\n  ", " ");
        for w in &want {
            assert!(text.contains(w), "{w}: {text}");
        }
        assert_eq!(text.matches("(than plan").count(), want.len(), "{text}");
        assert_eq!(
            text.contains("slower and dearer"),
            !want.is_empty(),
            "{text}"
        );
    }
}
