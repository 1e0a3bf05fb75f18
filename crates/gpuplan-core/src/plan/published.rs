//! The published cases of a plan's model (cases/*.toml, embedded by build.rs): how many of them
//! are recorded known deviations, for the `published-misses` caveat (expert r16 #5). A plan whose
//! model's own published runs are mostly misses of this model says so, whatever the mechanism
//! the model lacks; the caveat goes away by itself when the rows come into band (their
//! `known_deviation` is removed, as tests/accuracy.rs requires).

include!(concat!(env!("OUT_DIR"), "/published_cases.rs"));

/// The published rows of one model and kind (and GPU, when given): how many, and the ids of
/// those that are recorded known deviations.
#[derive(Debug, PartialEq)]
pub struct Rows {
    pub n: usize,
    pub misses: Vec<&'static str>,
}

/// The rows of `model`'s cases of `kind` (a case file's `kind`), on `gpu` when given.
pub fn rows(model: &str, kind: &str, gpu: Option<&str>) -> Rows {
    let of = CASES
        .iter()
        .filter(|(_, k, m, g, _)| *k == kind && *m == model && gpu.is_none_or(|x| x == *g));
    let n = of.clone().count();
    let misses = of.filter(|c| c.4).map(|c| c.0).collect();
    Rows { n, misses }
}

impl Rows {
    /// Most of the rows (at least half, at least one) are recorded misses: the model's figures
    /// for this model are not checked by its published runs. Half is no fitted threshold: a
    /// model whose runs are mostly misses is unchecked whatever their number.
    pub fn mostly_missed(&self) -> bool {
        !self.misses.is_empty() && 2 * self.misses.len() >= self.n
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The build script read every case file: as many rows, and as many recorded misses, as
    /// `cases/*.toml` holds; Qwen3-30B-A3B's Megatron-Bridge rows are found by model and kind.
    #[test]
    fn the_cases_are_embedded() {
        let dir = concat!(env!("CARGO_MANIFEST_DIR"), "/../../cases");
        let files: Vec<String> = std::fs::read_dir(dir)
            .unwrap()
            .flatten()
            .filter(|e| e.path().extension().is_some_and(|x| x == "toml"))
            .map(|e| std::fs::read_to_string(e.path()).unwrap())
            .collect();
        assert_eq!(CASES.len(), files.len());
        let missed = |t: &&String| t.lines().any(|l| l.starts_with("known_deviation = "));
        assert_eq!(
            CASES.iter().filter(|c| c.4).count(),
            files.iter().filter(missed).count()
        );
        assert!(CASES.iter().all(|c| !c.0.is_empty() && !c.1.is_empty()));
        let r = rows("Qwen3-30B-A3B", "train_throughput", None);
        assert!(r.n >= 7, "{r:?}");
        // Llama-3.1-8B's training rows are mostly in band.
        assert!(!rows("Llama-3.1-8B", "train_throughput", None).mostly_missed());
        assert_eq!(rows("no-such-model", "train_throughput", None).n, 0);
        assert!(!rows("no-such-model", "train_throughput", None).mostly_missed());
    }
}
