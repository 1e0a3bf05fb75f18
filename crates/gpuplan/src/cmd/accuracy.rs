//! `gpuplan accuracy`: run every case in `cases/` and report the error of each. Its Markdown
//! output is docs/accuracy.md (a test checks the file is up to date).

use crate::cli::Format;
use crate::render;
use anyhow::{Context, Result};
use gpuplan_core::validation::{evaluate, parse_case, CaseOutcome};
use std::path::Path;

include!(concat!(env!("OUT_DIR"), "/cases.rs"));

/// The cases built into the binary, evaluated.
pub fn embedded_outcomes() -> Result<Vec<CaseOutcome>> {
    EMBEDDED_CASES
        .iter()
        .map(|(name, text)| {
            let case = parse_case(&format!("cases/{name}"), text)?;
            evaluate(&case).with_context(|| format!("case cases/{name}"))
        })
        .collect()
}

pub fn load_outcomes(dir: &Path) -> Result<Vec<CaseOutcome>> {
    let mut files: Vec<_> = std::fs::read_dir(dir)
        .with_context(|| format!("cannot read the cases folder {}", dir.display()))?
        .filter_map(|e| e.ok().map(|e| e.path()))
        .filter(|p| p.extension().is_some_and(|x| x == "toml"))
        .collect();
    files.sort();
    files
        .iter()
        .map(|p| {
            let text = super::read_input(p, "case file")?;
            let case = parse_case(&p.display().to_string(), &text)?;
            evaluate(&case).with_context(|| format!("case {}", p.display()))
        })
        .collect()
}

fn status(o: &CaseOutcome) -> &'static str {
    match (o.within, o.known_deviation.is_some()) {
        (true, false) => "ok",
        (false, true) => "known miss",
        (true, true) => "FIXED? (remove known_deviation)",
        (false, false) => "OUT OF BAND",
    }
}

fn band(o: &CaseOutcome) -> String {
    format!("{:+.0}%…{:+.0}%", o.band.0 * 100.0, o.band.1 * 100.0)
}

/// The publication a case comes from, read from its id: `t-<source>-…` for the issue-10 cases
/// (`t-card-<model>` per model card), llm-foundry for the `mpt…` rows, else the id's first word.
pub fn source_group(id: &str) -> String {
    let mut words = id.split('-');
    let first = words.next().unwrap_or_default();
    if first == "t" {
        let second = words.next().unwrap_or_default();
        if second == "card" {
            return format!("t-card-{}", words.next().unwrap_or_default());
        }
        return format!("t-{second}");
    }
    if first.starts_with("mpt") {
        return "llm-foundry".into();
    }
    first.to_string()
}

fn median(mut v: Vec<f64>) -> Option<f64> {
    if v.is_empty() {
        return None;
    }
    v.sort_by(f64::total_cmp);
    let n = v.len();
    Some(if n % 2 == 1 {
        v[n / 2]
    } else {
        (v[n / 2 - 1] + v[n / 2]) / 2.0
    })
}

fn pct(x: Option<f64>) -> String {
    x.map_or("–".into(), |x| format!("{:.1}%", x * 100.0))
}

fn abs_errors<'a>(v: impl Iterator<Item = &'a CaseOutcome>) -> Vec<f64> {
    v.map(|o| o.error.abs()).collect()
}

fn mean(v: &[f64]) -> Option<f64> {
    (!v.is_empty()).then(|| v.iter().sum::<f64>() / v.len() as f64)
}

/// Per kind of case: counts and in-sample / out-of-sample median and mean |error|.
fn by_kind(out: &[CaseOutcome]) -> (Vec<&'static str>, Vec<Vec<String>>) {
    let header = vec![
        "kind",
        "cases",
        "within band",
        "known misses",
        "in-sample (n, median abs error)",
        "out-of-sample n",
        "out-of-sample median abs error",
        "out-of-sample mean abs error",
    ];
    let mut kinds: Vec<_> = out.iter().map(|o| format!("{:?}", o.kind)).collect();
    kinds.sort();
    kinds.dedup();
    let rows = kinds
        .iter()
        .map(|k| {
            let of: Vec<_> = out
                .iter()
                .filter(|o| &format!("{:?}", o.kind) == k)
                .collect();
            let ins = abs_errors(of.iter().copied().filter(|o| o.in_sample.is_some()));
            let oos = abs_errors(of.iter().copied().filter(|o| o.in_sample.is_none()));
            vec![
                k.clone(),
                of.len().to_string(),
                of.iter().filter(|o| o.within).count().to_string(),
                of.iter()
                    .filter(|o| o.known_deviation.is_some())
                    .count()
                    .to_string(),
                format!("{}, {}", ins.len(), pct(median(ins.clone()))),
                oos.len().to_string(),
                pct(median(oos.clone())),
                pct(mean(&oos)),
            ]
        })
        .collect();
    (header, rows)
}

/// Leave-one-source-out: per publication, the error of its training-time cases and whether any
/// constant was fitted on it. A source no constant was fitted on is held out entirely, so its
/// error is a leave-one-source-out figure; for a source that calibrated a constant it would need
/// a refit without it, which this report does not do (marked "no: fits …").
fn by_source(out: &[CaseOutcome]) -> (Vec<&'static str>, Vec<Vec<String>>, String) {
    use gpuplan_core::validation::CaseKind;
    let train: Vec<_> = out
        .iter()
        .filter(|o| matches!(o.kind, CaseKind::TrainThroughput | CaseKind::TrainTime))
        .collect();
    let mut groups: Vec<String> = train.iter().map(|o| source_group(&o.id)).collect();
    groups.sort();
    groups.dedup();
    let header = vec![
        "source",
        "training cases",
        "within band",
        "median abs error",
        "mean abs error",
        "held out (no constant fitted on it)",
    ];
    let mut held = Vec::new();
    let rows = groups
        .iter()
        .map(|g| {
            let of: Vec<_> = train
                .iter()
                .copied()
                .filter(|o| &source_group(&o.id) == g)
                .collect();
            let mut fits: Vec<String> = of
                .iter()
                .filter_map(|o| o.in_sample.as_deref())
                .flat_map(|f| f.split(", ").map(str::to_string))
                .collect();
            fits.sort();
            fits.dedup();
            let errs = abs_errors(of.iter().copied());
            if fits.is_empty() {
                held.extend(errs.iter().copied());
            }
            vec![
                g.clone(),
                of.len().to_string(),
                of.iter().filter(|o| o.within).count().to_string(),
                pct(median(errs.clone())),
                pct(mean(&errs)),
                if fits.is_empty() {
                    "yes".into()
                } else {
                    format!("no: fits {}", fits.join(", "))
                },
            ]
        })
        .collect();
    let line = format!(
        "Leave-one-source-out (training throughput and GPU-hours of the {} held-out sources, {} cases): median |error| {}, mean {}.",
        groups.len() - {
            let fitted: std::collections::BTreeSet<_> = train
                .iter()
                .filter(|o| o.in_sample.is_some())
                .map(|o| source_group(&o.id))
                .collect();
            fitted.len()
        },
        held.len(),
        pct(median(held.clone())),
        pct(mean(&held))
    );
    (header, rows, line)
}

pub fn run(dir: Option<&Path>, format: Format) -> Result<u8> {
    let out = match dir {
        Some(d) => load_outcomes(d)?,
        None => embedded_outcomes()?,
    };
    if format == Format::Json {
        outln!(
            "{}",
            render::json("accuracy", &serde_json::json!({ "cases": out }))?
        );
        return Ok(0);
    }
    let header = [
        "case",
        "kind",
        "metric",
        "published",
        "predicted",
        "error",
        "band",
        "status",
        "in-sample for",
    ];
    let rows: Vec<Vec<String>> = out
        .iter()
        .map(|o| {
            vec![
                o.id.clone(),
                format!("{:?}", o.kind),
                format!("{} ({})", o.metric, o.unit),
                format!("{:.4}", o.published)
                    .trim_end_matches('0')
                    .trim_end_matches('.')
                    .to_string(),
                format!("{:.2}", o.predicted),
                format!("{:+.1}%", o.error * 100.0),
                band(o),
                status(o).to_string(),
                o.in_sample.clone().unwrap_or_default(),
            ]
        })
        .collect();
    let n = out.len();
    let ok = out.iter().filter(|o| o.within).count();
    let oos: Vec<_> = out.iter().filter(|o| o.in_sample.is_none()).collect();
    let oos_ok = oos.iter().filter(|o| o.within).count();
    let mean_abs = |v: &[&CaseOutcome]| {
        v.iter().map(|o| o.error.abs()).sum::<f64>() / v.len().max(1) as f64 * 100.0
    };
    let summary = format!(
        "{ok} of {n} cases within their band; out-of-sample {oos_ok} of {}; mean |error| {:.1}% (all), {:.1}% (out-of-sample).",
        oos.len(),
        mean_abs(&out.iter().collect::<Vec<_>>()),
        mean_abs(&oos)
    );
    match format {
        Format::Markdown => {
            outln!("# Accuracy against published numbers\n");
            outln!("Generated by `gpuplan accuracy --format markdown > docs/accuracy.md`; do not edit by hand.");
            outln!("Cases: `cases/*.toml` (converted from shared/reference/public-benchmarks.jsonl by tools/gen_cases.py, and the");
            outln!("`t-…` training cases from cases/sources/t.jsonl by tools/gen_cases_t.py;");
            outln!("what was not converted and why: cases/SKIPPED.md). Tolerance bands per kind are in docs/methodology.md §Validation.");
            outln!("A case marked *in-sample* was used to calibrate the named constant, so it does not validate it.\n");
            outln!("{summary}\n");
            let (kh, kr) = by_kind(&out);
            outln!("## By kind: in-sample and out-of-sample\n");
            out!("{}", render::markdown(&kh, &kr));
            let (sh, sr, loso) = by_source(&out);
            outln!("\n## By source (leave-one-source-out)\n");
            outln!("A source no constant was fitted on is held out entirely: its error is a leave-one-source-out figure.");
            outln!("For a source that calibrated a constant that figure would need a refit without it, which is not done here.\n");
            outln!("{loso}\n");
            out!("{}", render::markdown(&sh, &sr));
            outln!("\n## Cases\n");
            out!("{}", render::markdown(&header, &rows));
            let misses: Vec<_> = out.iter().filter(|o| o.known_deviation.is_some()).collect();
            if !misses.is_empty() {
                outln!("\n## Known misses\n");
                for o in misses {
                    outln!(
                        "- `{}`: {}",
                        o.id,
                        o.known_deviation.clone().unwrap_or_default()
                    );
                }
            }
        }
        _ => {
            outln!("{}", render::table(&header, &rows));
            let (kh, kr) = by_kind(&out);
            outln!("{}", render::table(&kh, &kr));
            let (sh, sr, loso) = by_source(&out);
            outln!("{}", render::table(&sh, &sr));
            outln!("{summary}");
            outln!("{loso}");
        }
    }
    Ok(0)
}
