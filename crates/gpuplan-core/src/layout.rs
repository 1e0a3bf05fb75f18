//! Where the parameters live: the share of dense and expert parameters one device holds under a
//! TP × PP × EP × ZeRO layout, and over which group ZeRO shards each share.
//!
//! The model follows Megatron-Core's MoE layout ("MoE parallel folding", Liu et al. 2025,
//! arXiv 2504.14960, and `megatron/core/parallel_state.py`) and DeepSpeed-MoE (Rajbhandari et
//! al. 2022, arXiv 2201.05596, `deepspeed/utils/groups.py`):
//!
//! - dense (non-expert) parameters are split over TP ranks inside a PP stage and replicated over
//!   the DP ranks; ZeRO shards their states over the data-parallel group (size DP);
//! - routed-expert parameters are split over EP ranks (and, without EP, over the TP ranks:
//!   expert-TP = TP; with EP, expert-TP = 1, DeepSpeed's and Megatron's default for EP > 1); the
//!   ranks holding the same expert shard form the *expert-data-parallel* group of size
//!   EDP = TP·DP / (EP·ETP) (Megatron `expert_data_parallel_size`; DeepSpeed
//!   `_get_expert_data_parallel_group`, world / EP with TP = 1), and ZeRO / the distributed
//!   optimizer shards expert states over that group only — never over DP a second time.
//!
//! Byte conservation follows: over all devices, each state sums to the model total when ZeRO
//! shards it, and to DP × dense + EDP × experts when it is replicated (property test
//! `tests/layout_conservation.rs`).

use crate::model::ParamBreakdown;
use crate::workload::Parallelism;
use serde::Serialize;

/// Parameters of one device before ZeRO, and the groups ZeRO shards them over.
#[derive(Clone, Copy, Debug, PartialEq, Serialize)]
pub struct DeviceParams {
    /// Non-expert parameters on the device (after TP and PP).
    pub dense: f64,
    /// Routed-expert parameters on the device (after EP, expert-TP and PP).
    pub expert: f64,
    /// ZeRO group of the dense parameters: the data-parallel size.
    pub dense_group: u64,
    /// ZeRO group of the expert parameters: the expert-data-parallel size.
    pub expert_group: u64,
}

impl DeviceParams {
    /// Parameters before any ZeRO sharding.
    pub fn total(&self) -> f64 {
        self.dense + self.expert
    }
    /// Parameters of a state that ZeRO shards (`sharded`) or replicates.
    pub fn after_zero(&self, sharded: bool) -> f64 {
        if sharded {
            self.dense / self.dense_group as f64 + self.expert / self.expert_group as f64
        } else {
            self.total()
        }
    }
}

/// Expert tensor-parallel size: experts are split over TP only when EP is 1.
pub fn expert_tp(p: &Parallelism) -> u64 {
    if p.ep > 1 {
        1
    } else {
        p.tp
    }
}

/// Expert-data-parallel size TP·DP / (EP·ETP), or `None` when EP·ETP does not divide TP·DP.
pub fn expert_data_parallel(p: &Parallelism, dp: u64) -> Option<u64> {
    let ranks = p.tp * dp;
    let shard = p.ep * expert_tp(p);
    (shard > 0 && ranks.is_multiple_of(shard)).then(|| ranks / shard)
}

/// What one device of PP stage `stage` holds (stages 0..pp; layers split evenly, the embedding
/// on the first stage, the LM head — or the tied embedding's copy — on the last).
pub fn stage_params(b: &ParamBreakdown, p: &Parallelism, dp: u64, stage: u64) -> DeviceParams {
    let experts = b.expert_params() as f64;
    stage_params_of(b, experts, b.layer_params() as f64 - experts, p, dp, stage)
}

/// [`stage_params`] with the breakdown's expert and dense layer sums already taken.
fn stage_params_of(
    b: &ParamBreakdown,
    experts: f64,
    layers_dense: f64,
    p: &Parallelism,
    dp: u64,
    stage: u64,
) -> DeviceParams {
    let (tp, pp) = (p.tp as f64, p.pp as f64);
    let shard = (p.ep * expert_tp(p)) as f64;
    let mut dense = layers_dense / tp / pp;
    let first = stage == 0;
    let last = stage + 1 == p.pp;
    if first {
        dense += b.embedding as f64 / tp + b.stem as f64;
    }
    if last {
        // A tied head needs its own copy of the embedding on the last stage when PP > 1.
        let head = if b.lm_head > 0 || p.pp == 1 {
            b.lm_head
        } else {
            b.embedding
        };
        dense += head as f64 / tp + b.final_norms as f64;
    }
    DeviceParams {
        dense,
        expert: experts / shard / pp,
        dense_group: dp.max(1),
        expert_group: expert_data_parallel(p, dp).unwrap_or(1).max(1),
    }
}

/// The most loaded device (the stage holding the most parameters).
pub fn most_loaded(b: &ParamBreakdown, p: &Parallelism, dp: u64) -> DeviceParams {
    let experts = b.expert_params() as f64;
    let dense = b.layer_params() as f64 - experts;
    let of = |s: u64| stage_params_of(b, experts, dense, p, dp, s);
    // Only the first and last stages differ from the others: stage 1 stands for every middle
    // stage (the first of equals wins, as over all stages in order).
    let pp = p.pp.max(1);
    let stages = [0, 1.min(pp - 1), pp - 1];
    stages
        .into_iter()
        .map(of)
        .fold(None::<DeviceParams>, |acc, d| match acc {
            Some(a) if a.total() >= d.total() => Some(a),
            _ => Some(d),
        })
        .unwrap_or_else(|| of(0))
}
