//! `gpuplan accuracy`'s refit section: each calibrated training constant's rule on its in-sample
//! rows, and the fitted sources held out with their constants refit on the other sources
//! (gpuplan-core `refit`), with the leave-one-source-out figure over every source.

use super::accuracy::{headers, mean, median, pct, refs};
use crate::render;
use anyhow::Result;
use gpuplan_core::i18n::{text, Lang, Msg};
use gpuplan_core::refit::{
    in_sample_fits, leave_source_out, training_rows, InSampleFit, SourceRefit,
};
use gpuplan_core::validation::{source_group, Case, CaseOutcome};

/// The refit results of one set of cases.
pub struct Refit {
    rules: Vec<InSampleFit>,
    sources: Vec<SourceRefit>,
}

impl Refit {
    pub fn of(cases: &[Case]) -> Result<Refit> {
        let rows = training_rows(cases)?;
        Ok(Refit {
            rules: in_sample_fits(&rows)?,
            sources: leave_source_out(&rows)?,
        })
    }

    /// The two tables (rules, refit sources) and the overall line, as Markdown.
    pub fn markdown(&self, out: &[CaseOutcome], l: Lang) -> String {
        let (rh, rr) = self.rules_table(l);
        let (sh, sr) = self.sources_table(l);
        format!(
            "\n{}\n\n{}\n{}\n\n{}\n{}\n\n{}\n\n{}\n",
            text(l, "acc-md-refit"),
            text(l, "acc-md-refit-1"),
            text(l, "acc-md-refit-2"),
            render::markdown(&refs(&rh), &rr),
            text(l, "acc-md-refit-3"),
            self.overall(out, l),
            render::markdown(&refs(&sh), &sr),
        )
    }

    /// The same as terminal tables.
    pub fn tables(&self, out: &[CaseOutcome], l: Lang) -> String {
        let (rh, rr) = self.rules_table(l);
        let (sh, sr) = self.sources_table(l);
        format!(
            "{}\n{}\n{}\n",
            render::table(&refs(&rh), &rr),
            render::table(&refs(&sh), &sr),
            self.overall(out, l)
        )
    }

    fn rules_table(&self, l: Lang) -> (Vec<String>, Vec<Vec<String>>) {
        let header = headers(l, &["constant", "value", "rule-in-sample", "rule-agrees"]);
        let rows = self
            .rules
            .iter()
            .map(|f| {
                let agrees = f.fitted.is_some_and(|v| (v - f.today).abs() <= f.rounding);
                vec![
                    f.name.to_string(),
                    format!("{}", f.today),
                    fitted_cell(f.fitted, f.rows, l),
                    Msg::new(if agrees {
                        "acc-rule-agrees"
                    } else {
                        "acc-rule-stale"
                    })
                    .arg("rounding", format!("{}", f.rounding))
                    .render(l),
                ]
            })
            .collect();
        (header, rows)
    }

    fn sources_table(&self, l: Lang) -> (Vec<String>, Vec<Vec<String>>) {
        let header = headers(
            l,
            &[
                "source",
                "refit",
                "held-cases",
                "median",
                "mean",
                "not-refit",
            ],
        );
        let rows = self
            .sources
            .iter()
            .map(|s| {
                let abs: Vec<f64> = s.errors.iter().map(|e| e.abs()).collect();
                vec![
                    s.source.clone(),
                    constants_cell(s, l),
                    abs.len().to_string(),
                    pct(median(abs.clone())),
                    pct(mean(&abs)),
                    s.not_refit.to_string(),
                ]
            })
            .collect();
        (header, rows)
    }

    /// Leave-one-source-out over every source: the sources no constant was fitted on as they
    /// are, the fitted ones with their constants refit.
    fn overall(&self, out: &[CaseOutcome], l: Lang) -> String {
        let fitted: Vec<&str> = self.sources.iter().map(|s| s.source.as_str()).collect();
        let (train, groups) = super::accuracy::training_by_source(out);
        let mut all: Vec<f64> = train
            .iter()
            .filter(|o| !fitted.contains(&source_group(&o.id).as_str()))
            .map(|o| o.error.abs())
            .collect();
        all.extend(
            self.sources
                .iter()
                .flat_map(|s| s.errors.iter().map(|e| e.abs())),
        );
        Msg::new("acc-loso-all")
            .arg("sources", groups.len())
            .arg("fitted", fitted.len())
            .arg("cases", all.len())
            .arg("median", pct(median(all.clone())))
            .arg("mean", pct(mean(&all)))
            .arg(
                "left",
                self.sources.iter().map(|s| s.not_refit).sum::<usize>(),
            )
            .render(l)
    }
}

fn fitted_cell(v: Option<f64>, rows: usize, l: Lang) -> String {
    match v {
        Some(v) => Msg::new("acc-rule-value")
            .arg("value", format!("{v:.3}"))
            .arg("rows", rows)
            .render(l),
        None => Msg::new("acc-rule-none").arg("rows", rows).render(l),
    }
}

/// Each refit constant: today's value → the refit one, on how many rows of other sources.
fn constants_cell(s: &SourceRefit, l: Lang) -> String {
    s.constants
        .iter()
        .map(|c| match c.refit {
            Some(v) => Msg::new("acc-refit-one")
                .arg("name", c.name)
                .arg("today", format!("{}", c.today))
                .arg("refit", format!("{v:.3}"))
                .arg("rows", c.rows)
                .render(l),
            None => Msg::new("acc-refit-none")
                .arg("name", c.name)
                .arg("rows", c.rows)
                .render(l),
        })
        .collect::<Vec<_>>()
        .join("; ")
}
