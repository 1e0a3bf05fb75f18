//! The published cases of a plan's model (cases/*.toml, embedded by build.rs): how many of them
//! are recorded known deviations, for the `published-misses` caveat (expert r16 #5). A plan whose
//! model's own published runs are mostly misses of this model says so, whatever the mechanism
//! the model lacks; the caveat goes away by itself when the rows come into band (their
//! `known_deviation` is removed, as tests/accuracy.rs requires).

use crate::workload::WeightFormat;

include!(concat!(env!("OUT_DIR"), "/published_cases.rs"));

/// The published rows of one model and kind (and GPU, when given): how many, and the ids of
/// those that are recorded known deviations.
#[derive(Debug, PartialEq)]
pub struct Rows {
    pub n: usize,
    pub misses: Vec<&'static str>,
}

/// Which rows of a model and kind to count: on one GPU, and (serving) in one weight class.
#[derive(Clone, Copy, Debug, Default)]
pub struct Filter<'a> {
    pub gpu: Option<&'a str>,
    pub weights: Option<&'static str>,
}

/// The class a serving case's weight `format` (empty: the model's own 16-bit weights) falls
/// in: the kernels that read them differ by class (16-bit GEMV, FP8, int8 or int4 weight-only
/// Marlin-class kernels, MXFP4).
pub fn weight_class(format: &str) -> &'static str {
    match format {
        "" | "bf16" | "fp16" | "fp32" => "16-bit",
        "fp8" => "fp8",
        "int8" => "int8",
        "int4" => "int4",
        "mxfp4" => "mxfp4",
        _ => "other",
    }
}

/// [`weight_class`] of a plan's weights.
pub fn plan_weight_class(w: &WeightFormat) -> &'static str {
    match w {
        WeightFormat::Fp32 | WeightFormat::Bf16 | WeightFormat::Fp16 => "16-bit",
        WeightFormat::Fp8 => "fp8",
        WeightFormat::Int8 => "int8",
        WeightFormat::Int4 { .. } => "int4",
        WeightFormat::Mxfp4 => "mxfp4",
        _ => "other",
    }
}

/// Whether the published cases were embedded: `false` for a build without the repository's
/// cases/ (a packaged crate), where [`rows`] finds none for any model, so no plan can be said to
/// be checked or unchecked by them (audit r17 #5: an explicit state, not an empty list taken
/// for "no misses").
pub fn embedded() -> bool {
    CASES_PRESENT
}

/// One embedded case: (id, kind, model, gpu, serving weight format, known deviation).
type Case = (
    &'static str,
    &'static str,
    &'static str,
    &'static str,
    &'static str,
    bool,
);

/// The rows of `model`'s cases of `kind` (a case file's `kind`) that pass `f`.
pub fn rows(model: &str, kind: &str, f: Filter) -> Rows {
    rows_in(CASES, model, kind, f)
}

/// [`rows`] over `cases`.
fn rows_in(cases: &'static [Case], model: &str, kind: &str, f: Filter) -> Rows {
    let of = cases.iter().filter(|c| {
        c.1 == kind
            && c.2 == model
            && f.gpu.is_none_or(|g| g == c.3)
            && f.weights.is_none_or(|w| w == weight_class(c.4))
    });
    let n = of.clone().count();
    let misses = of.filter(|c| c.5).map(|c| c.0).collect();
    Rows { n, misses }
}

impl Rows {
    /// Most of the rows (more than half) are recorded misses: gpuplan's figures for this model
    /// are not checked by its published runs. A majority is no fitted threshold: a model whose
    /// runs are mostly misses is unchecked whatever their number (1 of 2 is not "mostly").
    pub fn mostly_missed(&self) -> bool {
        2 * self.misses.len() > self.n
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Without cases/ (a packaged crate) nothing is embedded, the state says so, and no model's
    /// rows are counted or called mostly missed: no panic, no caveat (audit r17 #5).
    #[test]
    fn no_cases_is_a_stated_empty_state() {
        let dir = concat!(env!("CARGO_MANIFEST_DIR"), "/../../cases");
        assert_eq!(embedded(), std::path::Path::new(dir).is_dir());
        let none = rows_in(&[], "Qwen2.5-7B", "infer_latency", Filter::default());
        assert_eq!(none.n, 0);
        assert!(!none.mostly_missed());
        if !embedded() {
            assert!(CASES.is_empty());
        }
    }

    /// The build script read every case file: as many rows, and as many recorded misses, as
    /// `cases/*.toml` holds; Qwen3-30B-A3B's Megatron-Bridge rows are found by model and kind.
    /// Skipped (and said so) only where the build had no cases/ to read
    /// ([`no_cases_is_a_stated_empty_state`]); with the data present it checks all of it.
    #[test]
    fn the_cases_are_embedded() {
        if !embedded() {
            eprintln!("cases/ absent at build time: nothing embedded to check");
            return;
        }
        let dir = concat!(env!("CARGO_MANIFEST_DIR"), "/../../cases");
        let files: Vec<String> = std::fs::read_dir(dir)
            .expect("cases/ was present at build time")
            .flatten()
            .filter(|e| e.path().extension().is_some_and(|x| x == "toml"))
            .map(|e| std::fs::read_to_string(e.path()).unwrap())
            .collect();
        assert_eq!(CASES.len(), files.len());
        let missed = |t: &&String| t.lines().any(|l| l.starts_with("known_deviation = "));
        assert_eq!(
            CASES.iter().filter(|c| c.5).count(),
            files.iter().filter(missed).count()
        );
        assert!(CASES.iter().all(|c| !c.0.is_empty() && !c.1.is_empty()));
        let r = rows("Qwen3-30B-A3B", "train_throughput", Filter::default());
        assert!(r.n >= 7, "{r:?}");
        // Llama-3.1-8B's training rows are mostly in band.
        assert!(!rows("Llama-3.1-8B", "train_throughput", Filter::default()).mostly_missed());
        assert_eq!(
            rows("no-such-model", "train_throughput", Filter::default()).n,
            0
        );
        // Serving by weight class: Qwen2.5-7B's 4-bit batch-1 rows on the A100 (vLLM 0.6.3
        // Marlin) are misses, its bf16 row is in band.
        let on = |w| Filter {
            gpu: Some("a100-80g"),
            weights: Some(w),
        };
        assert!(rows("Qwen2.5-7B", "infer_latency", on("int4")).mostly_missed());
        let bf16 = rows("Qwen2.5-7B", "infer_latency", on("16-bit"));
        assert!(bf16.n >= 1 && !bf16.mostly_missed(), "{bf16:?}");
        // Half is not most: 1 of 2 does not fire.
        let half = Rows {
            n: 2,
            misses: vec!["a"],
        };
        assert!(!half.mostly_missed());
        assert!(Rows {
            n: 1,
            misses: vec!["a"]
        }
        .mostly_missed());
        assert!(!Rows {
            n: 0,
            misses: vec![]
        }
        .mostly_missed());
        assert!(!rows("no-such-model", "train_throughput", Filter::default()).mostly_missed());
    }
}
