//! The fitting rules of the calibrated training constants, as code, and the leave-one-source-out
//! refit they make possible (docs/methodology.md §Validation, "Refitting the fitted sources").
//!
//! Six training constants were fitted on published cases ([`FITTED`]). Each one's rule is the
//! one its doc comment in constants.rs states: the value at which the estimate's signed median
//! error over its fitting rows is zero ([`Rule::MedianZero`]), or, for `tp_overlap_fraction`, at
//! which the predicted speed-up of a TP-overlap pair equals the published one
//! ([`Rule::PairSpeedup`]). [`in_sample_fits`] applies each rule to the rows marked in-sample for
//! it (tests/refit_rules.rs checks it gives today's value within its stated rounding);
//! [`leave_source_out`] applies it to the rows of the same kind from every *other* source and
//! evaluates the held-out source with the refit values. Pure code: the caller gives the cases.

use crate::constants::Tunables;
use crate::error::CoreError;
use crate::validation::{evaluate, source_group, Case, CaseKind};

/// How a constant's value follows from its fitting rows.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Rule {
    /// The signed median of predicted/published − 1 over the rows is zero (the mean of the two
    /// middle values when their number is even).
    MedianZero,
    /// Over pairs of rows that differ only in `tp_comm_overlap`, the median of predicted
    /// speed-up / published speed-up − 1 is zero.
    PairSpeedup,
}

/// One calibrated constant: its name (a [`Tunables`] field), its rule, the half-unit of the last
/// digit its value is stated to (the rule must give today's value within it), and which rows are
/// of its kind.
#[derive(Clone, Copy, Debug)]
pub struct Fitted {
    pub name: &'static str,
    pub rule: Rule,
    pub rounding: f64,
    /// Only 16-bit rows: a row whose estimate also reads an FP8 GEMM ratio is of another kind
    /// (the Hopper efficiency was fitted on the bf16 rows; the FP8 rows fit the ratio on top).
    pub sixteen_bit_only: bool,
}

/// The FP8 GEMM ratios (a row reading one is an FP8 row).
const FP8_RATIOS: [&str; 2] = ["fp8_train_gemm_ratio", "fp8_gemm_ratio_current"];

/// The calibrated training constants, in the order they are fitted: the Hopper efficiency before
/// the FP8 ratios that multiply it. constants.rs marks these *calibrated*/*fitted*; its other
/// fitted values are serving constants (`prefill_efficiency`, `decode_bandwidth_efficiency`,
/// `layer_overhead_s`, `vllm_non_torch_gib`), outside the training leave-one-source-out table.
pub const FITTED: [Fitted; 6] = [
    // "median in-sample error ≈ 0 over the MosaicML FSDP A100 rows marked in-sample" (0.70).
    Fitted {
        name: "train_efficiency_ampere",
        rule: Rule::MedianZero,
        rounding: 0.005,
        sixteen_bit_only: true,
    },
    // "Same for Hopper ... on the MosaicML FSDP H100 bf16 rows marked in-sample" (0.55).
    Fitted {
        name: "train_efficiency_hopper",
        rule: Rule::MedianZero,
        rounding: 0.005,
        sixteen_bit_only: true,
    },
    // ResNet-50 on one A100 (0.20).
    Fitted {
        name: "train_efficiency_cnn",
        rule: Rule::MedianZero,
        rounding: 0.005,
        sixteen_bit_only: true,
    },
    // "Calibrated (0.77) on mpt3b-h100-fp8-8gpu-s2048".
    Fitted {
        name: "fp8_train_gemm_ratio",
        rule: Rule::MedianZero,
        rounding: 0.005,
        sixteen_bit_only: false,
    },
    // "on NeMo 24.07's 11 FP8 pretraining rows ..., signed median error 0" (0.92; 0.90 since stop 41).
    Fitted {
        name: "fp8_gemm_ratio_current",
        rule: Rule::MedianZero,
        rounding: 0.005,
        sixteen_bit_only: false,
    },
    // "0.4: the pair's 1.092 speedup" on torchtitan's vanilla-TP / async-TP pair (one digit).
    Fitted {
        name: "tp_overlap_fraction",
        rule: Rule::PairSpeedup,
        rounding: 0.05,
        sixteen_bit_only: false,
    },
];

/// Bisection steps: the bracket [`BRACKET`] narrows to 1e-9 of its width, far below any stated
/// rounding.
const BISECTION_STEPS: usize = 30;
/// The range every efficiency and ratio may take (`Tunables::validate`: 0.001–1), less the
/// bottom where estimates lose meaning.
const BRACKET: (f64, f64) = (0.01, 1.0);
/// Relative step by which a constant is moved to see whether a row's estimate reads it.
const PROBE_STEP: f64 = 0.05;
/// Smallest relative change of an estimate that counts as reading the constant (estimates are
/// deterministic, so any change shows).
const READ_TOLERANCE: f64 = 1e-9;

/// Values set on top of each case's own tunables.
pub type Values = Vec<(&'static str, f64)>;

fn with_values(case: &Case, values: &[(&'static str, f64)]) -> Result<Case, CoreError> {
    let mut c = case.clone();
    let mut t = c.workload.tunables.take().unwrap_or_default();
    for (name, v) in values {
        t.set(name, *v)?;
    }
    c.workload.tunables = Some(t);
    Ok(c)
}

/// The case's signed error with `values` set.
fn error_with(case: &Case, values: &[(&'static str, f64)]) -> Result<f64, CoreError> {
    Ok(evaluate(&with_values(case, values)?)?.error)
}

/// The case's prediction with `values` set.
fn predicted_with(case: &Case, values: &[(&'static str, f64)]) -> Result<f64, CoreError> {
    Ok(evaluate(&with_values(case, values)?)?.predicted)
}

/// The value of `name` in the case's own tunables (today's default unless the case sets it).
fn own_value(case: &Case, name: &str) -> f64 {
    let t = case.workload.tunables.clone().unwrap_or_default();
    value_of(&t, name)
}

/// A constant's value in `t` by name.
pub fn value_of(t: &Tunables, name: &str) -> f64 {
    serde_json::to_value(t)
        .ok()
        .and_then(|v| v.get(name).and_then(serde_json::Value::as_f64))
        .unwrap_or(f64::NAN)
}

/// Which of [`FITTED`] the case's estimate reads: moving the constant moves the estimate.
pub fn reads(case: &Case) -> Result<[bool; 6], CoreError> {
    let base = evaluate(case)?.predicted;
    let mut out = [false; 6];
    for (i, f) in FITTED.iter().enumerate() {
        let v = own_value(case, f.name) * (1.0 - PROBE_STEP);
        let p = predicted_with(case, &[(f.name, v)])?;
        out[i] = ((p - base) / base).abs() > READ_TOLERANCE;
    }
    Ok(out)
}

fn index_of(name: &str) -> usize {
    FITTED.iter().position(|f| f.name == name).unwrap_or(0)
}

/// Whether a row with these reads is of `f`'s kind: a training-throughput row that reads `f`
/// (the same chip generation for the per-generation efficiencies, the same FP8 kernel
/// generation for the ratios, a CNN for the CNN figure, TP overlap under torch for the overlap
/// share), 16-bit where `f` says so.
pub fn same_kind(f: &Fitted, kind: CaseKind, r: &[bool; 6]) -> bool {
    kind == CaseKind::TrainThroughput
        && r[index_of(f.name)]
        && !(f.sixteen_bit_only && FP8_RATIOS.iter().any(|n| r[index_of(n)]))
}

/// A row and its partner without TP overlap (for [`Rule::PairSpeedup`]).
type Pair<'a> = (&'a Case, &'a Case);

/// Pairs among `pool`: each row of `rows` with a row of `pool` from the same source whose
/// workload is the same but for `tp_comm_overlap = false`.
fn pairs<'a>(rows: &[&'a Case], pool: &[&'a Case]) -> Vec<Pair<'a>> {
    rows.iter()
        .filter_map(|&with| {
            if !with.workload.training.as_ref()?.parallel.tp_overlap() {
                return None;
            }
            let want = without_overlap(with)?;
            let without = pool.iter().find(|c| {
                c.kind == with.kind
                    && c.metric == with.metric
                    && c.workload
                        .training
                        .as_ref()
                        .is_some_and(|t| !t.parallel.tp_overlap())
                    && source_group(&c.id) == source_group(&with.id)
                    && without_overlap(c).as_ref() == Some(&want)
            })?;
            Some((with, *without))
        })
        .collect()
}

/// The case's workload with the TP-overlap option cleared (unset reads as off).
fn without_overlap(c: &Case) -> Option<crate::job::WorkloadFile> {
    let mut w = c.workload.clone();
    w.training.as_mut()?.parallel.tp_comm_overlap = None;
    Some(w)
}

fn median(mut v: Vec<f64>) -> f64 {
    v.sort_by(f64::total_cmp);
    let n = v.len();
    if n % 2 == 1 {
        v[n / 2]
    } else {
        (v[n / 2 - 1] + v[n / 2]) / 2.0
    }
}

/// The statistic the rule drives to zero at `x`, with `base` set too.
fn residual(f: &Fitted, rows: &Rows, base: &Values, x: f64) -> Result<f64, CoreError> {
    let mut vals = base.clone();
    vals.push((f.name, x));
    let v = match rows {
        Rows::Single(rows) => rows
            .iter()
            .map(|c| error_with(c, &vals))
            .collect::<Result<Vec<_>, _>>()?,
        Rows::Pairs(pairs) => pairs
            .iter()
            .map(|(with, without)| {
                let predicted = predicted_with(with, &vals)? / predicted_with(without, &vals)?;
                Ok(predicted / (with.published / without.published) - 1.0)
            })
            .collect::<Result<Vec<_>, CoreError>>()?,
    };
    Ok(median(v))
}

/// The rows a rule is applied to.
enum Rows<'a> {
    Single(Vec<&'a Case>),
    Pairs(Vec<Pair<'a>>),
}

impl Rows<'_> {
    /// The cases the rule rests on (two per pair).
    fn len(&self) -> usize {
        match self {
            Rows::Single(v) => v.len(),
            Rows::Pairs(v) => 2 * v.len(),
        }
    }
}

/// Bisection of the rule's statistic over [`BRACKET`]; `None` when it does not change sign
/// there (no value in range satisfies the rule).
fn solve(f: &Fitted, rows: &Rows, base: &Values) -> Result<Option<f64>, CoreError> {
    let (mut lo, mut hi) = BRACKET;
    let (r_lo, r_hi) = (residual(f, rows, base, lo)?, residual(f, rows, base, hi)?);
    if r_lo.signum() == r_hi.signum() {
        return Ok(None);
    }
    let rising = r_hi > r_lo;
    for _ in 0..BISECTION_STEPS {
        let mid = 0.5 * (lo + hi);
        let r = residual(f, rows, base, mid)?;
        if (r > 0.0) == rising {
            hi = mid;
        } else {
            lo = mid;
        }
    }
    Ok(Some(0.5 * (lo + hi)))
}

/// A case with which of [`FITTED`] its estimate reads.
pub struct Row<'a> {
    pub case: &'a Case,
    pub reads: [bool; 6],
}

/// The training cases with their reads (other kinds are not part of the refit).
pub fn training_rows(cases: &[Case]) -> Result<Vec<Row<'_>>, CoreError> {
    cases
        .iter()
        .filter(|c| matches!(c.kind, CaseKind::TrainThroughput | CaseKind::TrainTime))
        .map(|c| {
            Ok(Row {
                case: c,
                reads: reads(c)?,
            })
        })
        .collect()
}

/// `f`'s rule applied to the rows of its kind among `rows`, with `base` set: the value and the
/// number of rows (pairs) it rests on; value `None` when there are no such rows or no value in
/// range satisfies the rule.
fn fit_on(f: &Fitted, rows: &[&Row], base: &Values) -> Result<(Option<f64>, usize), CoreError> {
    let kind: Vec<&Case> = rows
        .iter()
        .filter(|r| same_kind(f, r.case.kind, &r.reads))
        .map(|r| r.case)
        .collect();
    let rows = match f.rule {
        Rule::MedianZero => Rows::Single(kind),
        Rule::PairSpeedup => {
            let pool: Vec<&Case> = rows.iter().map(|r| r.case).collect();
            Rows::Pairs(pairs(&kind, &pool))
        }
    };
    if rows.len() == 0 {
        return Ok((None, 0));
    }
    Ok((solve(f, &rows, base)?, rows.len()))
}

/// One constant's rule on the rows marked in-sample for it.
#[derive(Clone, Debug)]
pub struct InSampleFit {
    pub name: &'static str,
    pub today: f64,
    pub fitted: Option<f64>,
    pub rows: usize,
    pub rounding: f64,
}

/// Every rule of [`FITTED`] on its in-sample rows, in order (each fit sees the earlier ones'
/// values as today's, so the FP8 ratios sit on today's Hopper efficiency).
pub fn in_sample_fits(rows: &[Row]) -> Result<Vec<InSampleFit>, CoreError> {
    let today = Tunables::default();
    FITTED
        .iter()
        .map(|f| {
            let marked: Vec<&Row> = rows
                .iter()
                .filter(|r| {
                    r.case
                        .in_sample
                        .as_deref()
                        .is_some_and(|s| s.split(", ").any(|n| n == f.name))
                })
                .collect();
            let (fitted, n) = fit_on(f, &marked, &Vec::new())?;
            Ok(InSampleFit {
                name: f.name,
                today: value_of(&today, f.name),
                fitted,
                rows: n,
                rounding: f.rounding,
            })
        })
        .collect()
}

/// One constant refit without the held-out source.
#[derive(Clone, Debug)]
pub struct ConstantRefit {
    pub name: &'static str,
    pub today: f64,
    /// `None`: no other source has rows of its kind (or none satisfies the rule in range).
    pub refit: Option<f64>,
    /// Rows of other sources it was refit on (two per pair for the overlap share).
    pub rows: usize,
}

/// A fitted source held out: its constants refit on the other sources, and the signed errors of
/// its training cases evaluated with the refit values.
#[derive(Clone, Debug)]
pub struct SourceRefit {
    pub source: String,
    pub constants: Vec<ConstantRefit>,
    /// Signed errors of the source's training cases under the refit values.
    pub errors: Vec<f64>,
    /// The source's training cases left out because their estimate reads a constant that could
    /// not be refit (their error would still rest on the source's own fit).
    pub not_refit: usize,
}

/// The fitted sources: those with a training case marked in-sample for a constant of
/// [`FITTED`], with those constants in [`FITTED`]'s order.
fn fitted_sources(rows: &[Row]) -> Vec<(String, Vec<&'static Fitted>)> {
    let mut out: Vec<(String, Vec<&'static Fitted>)> = Vec::new();
    for r in rows {
        let Some(marks) = r.case.in_sample.as_deref() else {
            continue;
        };
        let g = source_group(&r.case.id);
        let pos = match out.iter().position(|(s, _)| *s == g) {
            Some(p) => p,
            None => {
                out.push((g, Vec::new()));
                out.len() - 1
            }
        };
        for f in FITTED
            .iter()
            .filter(|f| marks.split(", ").any(|n| n == f.name))
        {
            if !out[pos].1.iter().any(|x| x.name == f.name) {
                out[pos].1.push(f);
            }
        }
    }
    for (_, fs) in &mut out {
        fs.sort_by_key(|f| index_of(f.name));
    }
    out.sort_by(|a, b| a.0.cmp(&b.0));
    out
}

/// Leave-one-source-out for every fitted source: its constants refit by their rules on the rows
/// of their kind from all other sources (in [`FITTED`]'s order, each fit on top of the earlier
/// refit values), then its training cases evaluated with the refit values.
pub fn leave_source_out(rows: &[Row]) -> Result<Vec<SourceRefit>, CoreError> {
    fitted_sources(rows)
        .into_iter()
        .map(|(source, fs)| refit_source(rows, source, &fs))
        .collect()
}

fn refit_source(rows: &[Row], source: String, fs: &[&Fitted]) -> Result<SourceRefit, CoreError> {
    let others: Vec<&Row> = rows
        .iter()
        .filter(|r| source_group(&r.case.id) != source)
        .collect();
    let mut values: Values = Vec::new();
    let mut unrefit: Vec<usize> = Vec::new();
    let mut constants = Vec::new();
    for f in fs {
        let (refit, n) = fit_on(f, &others, &values)?;
        match refit {
            Some(v) => values.push((f.name, v)),
            None => unrefit.push(index_of(f.name)),
        }
        constants.push(ConstantRefit {
            name: f.name,
            today: value_of(&Tunables::default(), f.name),
            refit,
            rows: n,
        });
    }
    let own: Vec<&Row> = rows
        .iter()
        .filter(|r| source_group(&r.case.id) == source)
        .collect();
    let (kept, left): (Vec<&Row>, Vec<&Row>) = own
        .into_iter()
        .partition(|r| !unrefit.iter().any(|&i| r.reads[i]));
    let errors = kept
        .iter()
        .map(|r| error_with(r.case, &values))
        .collect::<Result<Vec<_>, _>>()?;
    Ok(SourceRefit {
        source,
        constants,
        errors,
        not_refit: left.len(),
    })
}
