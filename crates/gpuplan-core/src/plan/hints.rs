//! What would change a poor top plan: when it is communication-bound or its MFU is low, re-run the
//! search on the same cluster with one thing changed (a larger global batch, Megatron-style TP/PP)
//! or look for the same accelerator on an RDMA type, and say each estimated gain.

use super::advice::{Advice, Severity};
use super::train::best_config;
use super::{Job, Plan, PlanRequest};
use crate::i18n::{names, Arg, Lang, Msg};
use crate::workload::{Framework, TrainingSetup};

/// MFU under which a plan is called poor. Assumption: well-run dense transformer training on
/// NVIDIA data-centre GPUs reaches 35–55% MFU (estimation.md §1.5); under 25% something other
/// than the GEMMs dominates.
pub const LOW_MFU: f64 = 0.25;
/// Gain under which a hint is not worth a line: 10% less time.
pub const MIN_GAIN: f64 = 0.10;

/// One alternative (a catalog message, `hint-alt-*`) and what it gives.
struct Alternative {
    what: Msg,
    hours: f64,
}

/// Hours of the job at another throughput, keeping the fixed start-up time.
fn rescale_hours(p: &Plan, req: &PlanRequest, old_tps: f64, new_tps: f64) -> f64 {
    let fixed = req.tunables.startup_hours;
    (p.hours - fixed).max(0.0) * old_tps / new_tps + fixed
}

/// Re-run the configuration search on the top plan's cluster with a changed setup.
fn rerun(p: &Plan, req: &PlanRequest, setup: &TrainingSetup, global_batch: u64) -> Option<f64> {
    let mut evaluated = 0;
    let best = best_config(req, setup, global_batch, &p.cluster, &mut evaluated).ok()?;
    let old = p.train.as_ref()?.step.tokens_per_second;
    Some(rescale_hours(p, req, old, best.step.tokens_per_second))
}

fn alternatives(p: &Plan, plans: &[Plan], req: &PlanRequest) -> Vec<Alternative> {
    let Some(t) = &p.train else { return vec![] };
    let Job::Train { setup, .. } = &req.job else {
        return vec![];
    };
    let mut out = Vec::new();
    let gb = t.setup.micro_batch * t.setup.grad_accum * t.memory.data_parallel;
    let comm_bound = t.step.bottleneck.ends_with("communication");
    if comm_bound && t.memory.data_parallel > 1 {
        let bigger = gb.saturating_mul(4);
        if let Some(h) = rerun(p, req, setup, bigger) {
            out.push(Alternative {
                what: Msg::new("hint-alt-global-batch").arg("batch", bigger),
                hours: h,
            });
        }
    }
    if setup.framework != Framework::Megatron && !setup.task.is_peft() {
        let mut m = setup.clone();
        m.framework = Framework::Megatron;
        if let Some(h) = rerun(p, req, &m, gb) {
            out.push(Alternative {
                what: Msg::new("hint-alt-megatron"),
                hours: h,
            });
        }
    }
    if p.nodes > 1 && !p.instance.rdma.is_rdma() {
        let rdma = plans.iter().filter(|q| {
            q.gpu.id == p.gpu.id && q.instance.rdma.is_rdma() && q.total_gpus >= p.total_gpus
        });
        if let Some(q) = rdma.min_by(|a, b| a.hours.total_cmp(&b.hours)) {
            out.push(Alternative {
                what: Msg::new("hint-alt-rdma")
                    .arg("nodes", q.nodes)
                    .arg("id", q.instance.id.as_str()),
                hours: q.hours,
            });
        }
    }
    out
}

/// The hint for the top plan, if it is poor and something would change it by [`MIN_GAIN`].
pub fn poor_plan_hint(plans: &[Plan], req: &PlanRequest) -> Option<Advice> {
    let p = plans.first()?;
    let t = p.train.as_ref()?;
    let comm_bound = t.step.bottleneck.ends_with("communication");
    if !(comm_bound || t.step.mfu < LOW_MFU) {
        return None;
    }
    let gains: Vec<(Alternative, f64)> = alternatives(p, plans, req)
        .into_iter()
        .map(|a| {
            let g = 1.0 - a.hours / p.hours;
            (a, g)
        })
        .filter(|(_, g)| g.is_finite() && *g >= MIN_GAIN)
        .collect();
    if gains.is_empty() {
        return None;
    }
    let why = if comm_bound {
        Msg::new("hint-why-comm").arg("bottleneck", names::bottleneck(t.step.bottleneck))
    } else {
        Msg::new("hint-why-mfu").arg("mfu", format!("{:.0}", t.step.mfu * 100.0))
    };
    let gain = |(a, g): &(Alternative, f64)| {
        Msg::new("hint-gain")
            .arg("what", a.what.clone())
            .arg("pct", (g * 100.0).round())
            .arg("hours", format!("{:.1}", a.hours))
            .arg("old", format!("{:.1}", p.hours))
    };
    let list = |l: Lang| {
        gains
            .iter()
            .map(|x| gain(x).render(l))
            .collect::<Vec<_>>()
            .join(&crate::i18n::text(l, "adv-fallback-sep"))
    };
    let m = Msg::new("hint-poor-plan").arg("why", why).arg(
        "list",
        Arg::PerLang {
            en: list(Lang::En),
            zh: list(Lang::Zh),
        },
    );
    Some(Advice::new("poor-plan-hints", Severity::Warn, m))
}
