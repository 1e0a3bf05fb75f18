//! `gpuplan accuracy`: run every case in `cases/` and report the error of each. Its Markdown
//! output is docs/accuracy.md (a test checks the file is up to date).

use super::accuracy_refit::Refit;
use crate::cli::Format;
use crate::render;
use anyhow::{Context, Result};
use gpuplan_core::i18n::{text, Lang, Msg};
use gpuplan_core::validation::{evaluate, parse_case, Case, CaseOutcome, HoursBasis};
use std::path::Path;

include!(concat!(env!("OUT_DIR"), "/cases.rs"));

/// The cases built into the binary, with their outcomes (evaluated).
fn embedded_cases() -> Result<(Vec<Case>, Vec<CaseOutcome>)> {
    EMBEDDED_CASES
        .iter()
        .map(|(name, text)| {
            let case = parse_case(&format!("cases/{name}"), text)?;
            let o = evaluate(&case).with_context(|| {
                render::Localized(Msg::new("acc-err-case").arg("path", format!("cases/{name}")))
            })?;
            Ok((case, o))
        })
        .collect::<Result<Vec<_>>>()
        .map(|v| v.into_iter().unzip())
}

/// The cases of `dir`, with their outcomes.
fn load_cases(dir: &Path) -> Result<(Vec<Case>, Vec<CaseOutcome>)> {
    // The reason in the user's language (audit r12 #9: "Not a directory (os error 20)" in zh).
    let unreadable = |e: std::io::Error| {
        render::fail(
            Msg::new("acc-err-cases-folder-why")
                .arg("path", dir.display().to_string())
                .arg("why", super::io_reason(&e)),
        )
    };
    let mut files: Vec<_> = std::fs::read_dir(dir)
        .map_err(unreadable)?
        .filter_map(|e| e.ok().map(|e| e.path()))
        .filter(|p| p.extension().is_some_and(|x| x == "toml"))
        .collect();
    files.sort();
    // An empty folder (or one without case files) would print empty tables and exit 0, as if
    // every case had passed.
    if files.is_empty() {
        return Err(render::fail(
            Msg::new("acc-err-no-cases").arg("path", dir.display().to_string()),
        ));
    }
    files
        .iter()
        .map(|p| {
            let text = super::read_input(p, "case file")?;
            let case = parse_case(&p.display().to_string(), &text)?;
            let o = evaluate(&case).with_context(|| {
                render::Localized(Msg::new("acc-err-case").arg("path", p.display().to_string()))
            })?;
            Ok((case, o))
        })
        .collect::<Result<Vec<_>>>()
        .map(|v| v.into_iter().unzip())
}

fn status(o: &CaseOutcome, l: Lang) -> String {
    text(
        l,
        match (o.within, o.known_deviation.is_some()) {
            (true, false) => "acc-status-ok",
            (false, true) => "acc-status-known-miss",
            (true, true) => "acc-status-fixed",
            (false, false) => "acc-status-out",
        },
    )
}

/// The report's column headers in `l` (catalog ids `acc-h-*`).
pub(crate) fn headers(l: Lang, ids: &[&str]) -> Vec<String> {
    ids.iter()
        .map(|id| text(l, &format!("acc-h-{id}")))
        .collect()
}

fn band(o: &CaseOutcome) -> String {
    format!("{:+.0}%…{:+.0}%", o.band.0 * 100.0, o.band.1 * 100.0)
}

pub use gpuplan_core::validation::source_group;

pub(crate) fn median(mut v: Vec<f64>) -> Option<f64> {
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

pub(crate) fn pct(x: Option<f64>) -> String {
    x.map_or("–".into(), |x| format!("{:.1}%", x * 100.0))
}

fn abs_errors<'a>(v: impl Iterator<Item = &'a CaseOutcome>) -> Vec<f64> {
    v.map(|o| o.error.abs()).collect()
}

pub(crate) fn mean(v: &[f64]) -> Option<f64> {
    (!v.is_empty()).then(|| v.iter().sum::<f64>() / v.len() as f64)
}

/// Per kind of case: counts and in-sample / out-of-sample median and mean |error|.
fn by_kind(out: &[CaseOutcome], l: Lang) -> (Vec<String>, Vec<Vec<String>>) {
    let header = headers(
        l,
        &[
            "kind",
            "cases",
            "within",
            "known-misses",
            "in-sample",
            "oos-n",
            "oos-median",
            "oos-mean",
        ],
    );
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

/// The training-time cases (throughput and GPU-hours) and their sources, sorted, once each.
pub(crate) fn training_by_source(out: &[CaseOutcome]) -> (Vec<&CaseOutcome>, Vec<String>) {
    use gpuplan_core::validation::CaseKind;
    let train: Vec<&CaseOutcome> = out
        .iter()
        .filter(|o| matches!(o.kind, CaseKind::TrainThroughput | CaseKind::TrainTime))
        .collect();
    let mut groups: Vec<String> = train.iter().map(|o| source_group(&o.id)).collect();
    groups.sort();
    groups.dedup();
    (train, groups)
}

/// Leave-one-source-out: per publication, the error of its training-time cases and whether any
/// constant was fitted on it. A source no constant was fitted on is held out entirely, so its
/// error is a leave-one-source-out figure; for a source that calibrated a constant it would need
/// a refit without it, which this report does not do (marked "no: fits …").
fn by_source(out: &[CaseOutcome], l: Lang) -> (Vec<String>, Vec<Vec<String>>, String) {
    let (train, groups) = training_by_source(out);
    let header = headers(
        l,
        &[
            "source",
            "training-cases",
            "within",
            "median",
            "mean",
            "held-out",
        ],
    );
    let mut held = Vec::new();
    let rows = groups
        .iter()
        .map(|g| {
            let (row, held_errors) = source_row(g, &train, l);
            held.extend(held_errors);
            row
        })
        .collect();
    let fitted: std::collections::BTreeSet<_> = train
        .iter()
        .filter(|o| o.in_sample.is_some())
        .map(|o| source_group(&o.id))
        .collect();
    let line = Msg::new("acc-loso")
        .arg("sources", groups.len() - fitted.len())
        .arg("cases", held.len())
        .arg("median", pct(median(held.clone())))
        .arg("mean", pct(mean(&held)))
        .render(l);
    (header, rows, line)
}

/// One source's row: its training cases, how many are within their band, median and mean
/// |error|, and whether it is held out (no constant fitted on it); with its |errors| when held
/// out (empty otherwise).
fn source_row(g: &str, train: &[&CaseOutcome], l: Lang) -> (Vec<String>, Vec<f64>) {
    let of: Vec<_> = train
        .iter()
        .copied()
        .filter(|o| source_group(&o.id) == g)
        .collect();
    let mut fits: Vec<String> = of
        .iter()
        .filter_map(|o| o.in_sample.as_deref())
        .flat_map(|f| f.split(", ").map(str::to_string))
        .collect();
    fits.sort();
    fits.dedup();
    let errs = abs_errors(of.iter().copied());
    let held_out = if fits.is_empty() {
        text(l, "acc-held-yes")
    } else {
        Msg::new("acc-held-no")
            .arg("fits", fits.join(", "))
            .render(l)
    };
    let row = vec![
        g.to_string(),
        of.len().to_string(),
        of.iter().filter(|o| o.within).count().to_string(),
        pct(median(errs.clone())),
        pct(mean(&errs)),
        held_out,
    ];
    (row, if fits.is_empty() { errs } else { Vec::new() })
}

/// The report in `lang`; the Markdown report (docs/accuracy.md) is in English unless `--lang`
/// asks otherwise (`lang_flag`), so that regenerating the doc does not depend on `$LANG`.
pub fn run(dir: Option<&Path>, format: Format, lang: Lang, lang_flag: Option<Lang>) -> Result<u8> {
    let l = match format {
        Format::Markdown => lang_flag.unwrap_or(Lang::En),
        _ => lang,
    };
    let (cases, out) = match dir {
        Some(d) => load_cases(d)?,
        None => embedded_cases()?,
    };
    match format {
        Format::Json => outln!(
            "{}",
            render::json("accuracy", &serde_json::json!({ "cases": out }))?
        ),
        Format::Markdown => {
            let refit = super::accuracy_refit::Refit::of(&cases)?;
            out!("{}", markdown_report(&out, &refit, l))
        }
        _ => {
            let refit = super::accuracy_refit::Refit::of(&cases)?;
            let t = table_report(&out, &refit, l);
            out!("{}", render::fit(&t, render::width()))
        }
    }
    Ok(0)
}

/// The case table's header and rows: each case's metric, numbers, error, band and status.
fn case_table(out: &[CaseOutcome], l: Lang) -> (Vec<String>, Vec<Vec<String>>) {
    let header = headers(
        l,
        &[
            "case",
            "kind",
            "metric",
            "published",
            "predicted",
            "error",
            "band",
            "status",
            "in-sample-for",
        ],
    );
    let rows = out
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
                status(o, l),
                o.in_sample.clone().unwrap_or_default(),
            ]
        })
        .collect();
    (header, rows)
}

/// GPU-hours (out of sample) by what the source's hours count (issue 10's target is the
/// steady-state figure): its `steady_state` quote, `[elapsed]`, or neither.
fn hours_split(out: &[CaseOutcome], l: Lang) -> String {
    let of = |b: HoursBasis| {
        abs_errors(
            out.iter()
                .filter(|o| o.in_sample.is_none() && o.hours_basis == Some(b)),
        )
    };
    let (steady, elapsed, unstated) = (
        of(HoursBasis::Steady),
        of(HoursBasis::Elapsed),
        of(HoursBasis::Unstated),
    );
    Msg::new("acc-hours-split")
        .arg("steady_n", steady.len())
        .arg("steady", pct(median(steady)))
        .arg("elapsed_n", elapsed.len())
        .arg("elapsed", pct(median(elapsed)))
        .arg("unstated_n", unstated.len())
        .arg("unstated", pct(median(unstated)))
        .render(l)
}

/// Cases within their band, all and out of sample, with the mean absolute errors.
fn summary(out: &[CaseOutcome], l: Lang) -> String {
    let ok = out.iter().filter(|o| o.within).count();
    let oos: Vec<_> = out.iter().filter(|o| o.in_sample.is_none()).collect();
    let oos_ok = oos.iter().filter(|o| o.within).count();
    let mean_abs = |v: &[&CaseOutcome]| {
        v.iter().map(|o| o.error.abs()).sum::<f64>() / v.len().max(1) as f64 * 100.0
    };
    Msg::new("acc-summary")
        .arg("ok", ok)
        .arg("n", out.len())
        .arg("oos_ok", oos_ok)
        .arg("oos", oos.len())
        .arg(
            "mean_all",
            format!("{:.1}%", mean_abs(&out.iter().collect::<Vec<_>>())),
        )
        .arg("mean_oos", format!("{:.1}%", mean_abs(&oos)))
        .render(l)
}

/// `accuracy --format markdown` (docs/accuracy.md): intro, summary, by kind, by source (with
/// the leave-one-source-out line), every case, and the known deviations.
fn markdown_report(out: &[CaseOutcome], refit: &Refit, l: Lang) -> String {
    let t = |id: &str| text(l, id);
    let (header, rows) = case_table(out, l);
    let (kh, kr) = by_kind(out, l);
    let (sh, sr, loso) = by_source(out, l);
    let mut s = format!(
        "{}\n\n{}\n{}\n{}\n{}\n{}\n\n{}\n\n",
        t("acc-md-title"),
        t("acc-md-generated"),
        t("acc-md-cases-1"),
        t("acc-md-cases-2"),
        t("acc-md-cases-3"),
        t("acc-md-in-sample"),
        summary(out, l)
    );
    s.push_str(&format!("{}\n\n", t("acc-md-by-kind")));
    s.push_str(&render::markdown(&refs(&kh), &kr));
    s.push_str(&format!("\n{}\n", hours_split(out, l)));
    s.push_str(&format!(
        "\n{}\n\n{}\n",
        t("acc-md-serving-plans"),
        t("acc-md-serving-plans-body")
    ));
    s.push_str(&format!(
        "\n{}\n\n{}\n{}\n\n{loso}\n\n",
        t("acc-md-by-source"),
        t("acc-md-held-1"),
        t("acc-md-held-2")
    ));
    s.push_str(&render::markdown(&refs(&sh), &sr));
    s.push_str(&refit.markdown(out, l));
    s.push_str(&format!("\n{}\n\n", t("acc-md-cases")));
    s.push_str(&render::markdown(&refs(&header), &rows));
    let misses: Vec<_> = out.iter().filter(|o| o.known_deviation.is_some()).collect();
    if !misses.is_empty() {
        s.push_str(&format!("\n{}\n\n", t("acc-md-misses")));
        for o in misses {
            s.push_str(&format!(
                "- `{}`: {}\n",
                o.id,
                o.known_deviation.clone().unwrap_or_default()
            ));
        }
    }
    s
}

/// `accuracy` as terminal tables: every case, by kind, by source, the summary and the
/// leave-one-source-out line.
fn table_report(out: &[CaseOutcome], refit: &Refit, l: Lang) -> String {
    let (header, rows) = case_table(out, l);
    let (kh, kr) = by_kind(out, l);
    let (sh, sr, loso) = by_source(out, l);
    format!(
        "{}\n{}\n{}\n{}\n{}\n{loso}\n{}",
        render::table(&refs(&header), &rows),
        render::table(&refs(&kh), &kr),
        hours_split(out, l),
        render::table(&refs(&sh), &sr),
        summary(out, l),
        refit.tables(out, l)
    )
}

pub(crate) fn refs(v: &[String]) -> Vec<&str> {
    v.iter().map(String::as_str).collect()
}
