//! What would change a poor top plan: when it is communication-bound or its MFU is low, re-run the
//! search on the same cluster with one thing changed (a larger global batch, Megatron-style TP/PP)
//! or look for the same accelerator on an RDMA type, and say each estimated gain.

use super::advice::{Advice, Severity};
use super::train::best_config;
use super::{Job, Plan, PlanRequest};
use crate::i18n::Text;
use crate::workload::{Framework, TrainingSetup};

/// MFU under which a plan is called poor. Assumption: well-run dense transformer training on
/// NVIDIA data-centre GPUs reaches 35–55% MFU (estimation.md §1.5); under 25% something other
/// than the GEMMs dominates.
pub const LOW_MFU: f64 = 0.25;
/// Gain under which a hint is not worth a line: 10% less time.
pub const MIN_GAIN: f64 = 0.10;

/// One alternative and what it gives.
struct Alternative {
    en: String,
    zh: String,
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
                en: format!("--global-batch {bigger} (4× more samples per step hides gradient sync; retune the learning rate)"),
                zh: format!("--global-batch {bigger}（每步样本数 ×4，可掩盖梯度同步；需重新调学习率）"),
                hours: h,
            });
        }
    }
    if setup.framework != Framework::Megatron && !setup.task.is_peft() {
        let mut m = setup.clone();
        m.framework = Framework::Megatron;
        if let Some(h) = rerun(p, req, &m, gb) {
            out.push(Alternative {
                en: "--profile megatron (tensor/pipeline parallelism instead of ZeRO alone)".into(),
                zh: "--profile megatron（张量/流水线并行，而非仅用 ZeRO）".into(),
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
                en: format!("an RDMA type: {} × {}", q.nodes, q.instance.id),
                zh: format!("支持 RDMA 的规格：{} × {}", q.nodes, q.instance.id),
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
    let why_en = if comm_bound {
        format!("communication-bound ({})", t.step.bottleneck)
    } else {
        format!("at MFU {:.0}%", t.step.mfu * 100.0)
    };
    let why_zh = if comm_bound {
        "受通信限制".to_string()
    } else {
        format!("MFU 仅 {:.0}%", t.step.mfu * 100.0)
    };
    let en = gains
        .iter()
        .map(|(a, g)| {
            format!(
                "{}: about {:.0}% less time ({:.1} h instead of {:.1} h)",
                a.en,
                g * 100.0,
                a.hours,
                p.hours
            )
        })
        .collect::<Vec<_>>()
        .join("; ");
    let zh = gains
        .iter()
        .map(|(a, g)| {
            format!(
                "{}：时间约减少 {:.0}%（{:.1} 小时，原 {:.1} 小时）",
                a.zh,
                g * 100.0,
                a.hours,
                p.hours
            )
        })
        .collect::<Vec<_>>()
        .join("；");
    Some(Advice::from_text(
        "poor-plan-hints",
        Severity::Warn,
        Text {
            en: format!("The top plan is {why_en}. What would change it: {en}."),
            zh: format!("首选方案{why_zh}。可改进：{zh}。"),
        },
    ))
}
