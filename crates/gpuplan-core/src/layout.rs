//! Where the parameters live: the share of dense and expert parameters one device holds under a
//! TP × PP × EP × ZeRO layout, and over which group ZeRO shards each share.
//!
//! The model follows Megatron-Core's MoE layout ("MoE parallel folding", Liu et al. 2025,
//! arXiv 2504.14960, and `megatron/core/parallel_state.py`) and DeepSpeed-MoE (Rajbhandari et
//! al. 2022, arXiv 2201.05596, `deepspeed/utils/groups.py`):
//!
//! - dense (non-expert) parameters are split over TP ranks inside a PP stage and replicated over
//!   the DP ranks; ZeRO shards their states over the data-parallel group (size DP);
//! - routed-expert parameters are split over EP ranks whole, and each expert over the
//!   expert-TP (ETP) ranks: ETP = TP without EP in every stack; with EP, ETP = TP under
//!   Megatron-Core (its default `expert_tensor_parallel_size`) and 1 under DeepSpeed-MoE,
//!   torchtitan and the serving engines' EP ([`ExpertTp`], [`WeightSplit`]); the
//!   ranks holding the same expert shard form the *expert-data-parallel* group of size
//!   EDP = TP·DP / (EP·ETP) (Megatron `expert_data_parallel_size`; DeepSpeed
//!   `_get_expert_data_parallel_group`, world / EP with TP = 1), and ZeRO / the distributed
//!   optimizer shards expert states over that group only — never over DP a second time.
//!
//! Byte conservation follows: over all devices, each state sums to the model total when ZeRO
//! shards it, and to DP × dense + EDP × experts when it is replicated (property test
//! `tests/layout_conservation.rs`).

use crate::model::{LayerGroup, Linear, ParamBreakdown};
use crate::workload::{Framework, Parallelism, TrainingSetup};
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

/// Which rule sets a routed expert's tensor-parallel size (expert-TP, ETP) when EP > 1.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ExpertTp {
    /// Megatron-Core: each expert's linears split over ETP = TP (`ModelParallelConfig.
    /// expert_tensor_parallel_size`: "Default is None, which will be set to the value of
    /// tensor_model_parallel_size", `__post_init__`: `if self.expert_tensor_parallel_size is None:
    /// self.expert_tensor_parallel_size = self.tensor_model_parallel_size`;
    /// megatron/core/model_parallel_config.py @d98e8a64, and megatron/training/arguments.py the
    /// same; the experts' linears use `pg_collection.expt_tp`, moe/experts.py).
    Megatron,
    /// Whole experts on each device (ETP = 1): DeepSpeed-MoE (`MoE(...,
    /// enable_expert_tensor_parallelism: bool = False)`, deepspeed/moe/layer.py @38327e07; the
    /// non-expert TP ranks' duplicate tokens are dropped before the all-to-all, sharded_moe.py
    /// `MOELayer.forward`: "for not tensor-parallel expert, drop duplicate tokens"), torchtitan
    /// (`expert_tensor_parallel_degree` 1) and vLLM/SGLang's expert parallelism
    /// (`FusedMoEParallelConfig.make`: with `enable_expert_parallel` the experts are split over
    /// EP = DP × TP and `tp_size=1`).
    Whole,
}

/// How the weights of a layer split over one device's parallel groups: dense linears over TP,
/// routed experts over EP (whole experts) and each expert over ETP. Every place that asks how much
/// of a layer's weights one device holds (memory, FSDP units, ZeRO-3 gathers, GEMM shapes,
/// 4-bit dequantization) asks this.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct WeightSplit {
    /// Tensor-parallel size of the dense linears.
    pub tp: u64,
    /// Expert-parallel size: routed experts are divided over it whole.
    pub ep: u64,
    /// Expert tensor-parallel size: each routed expert's linears split over it.
    pub etp: u64,
}

/// One device's share of one linear of a layer: `copies` local copies (its routed experts, 1 for
/// a dense linear), each a `d_in × d_out` shard, and `params` its weights (unrounded).
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct LinearShard {
    pub copies: u64,
    pub d_in: u64,
    pub d_out: u64,
    pub params: f64,
}

/// Row-parallel linears of Megatron-style tensor parallelism (Megatron `RowParallelLinear`, vLLM
/// `RowParallelLinear`, TensorRT-LLM `RowLinear`, vLLM's fused-MoE `w2`): the attention output
/// and the MLP down projections split their input dimension; every other linear its output.
pub fn is_row_parallel(name: &str) -> bool {
    matches!(name, "o_proj" | "cross_o_proj" | "down_proj" | "fc2")
}

impl WeightSplit {
    /// Under `p`: its `etp` where given (Megatron-Core's `expert_tensor_parallel_size`, which
    /// Megatron-Bridge's MoE recipes set to 1); else without EP every stack splits the experts
    /// like the dense MLP (ETP = TP), and with EP `rule` says.
    pub fn new(p: &Parallelism, rule: ExpertTp) -> WeightSplit {
        let tp = p.tp.max(1);
        let default = match rule {
            _ if p.ep <= 1 => tp,
            ExpertTp::Megatron => tp,
            ExpertTp::Whole => 1,
        };
        let etp = p.etp.map_or(default, std::num::NonZeroU64::get);
        WeightSplit {
            tp,
            ep: p.ep.max(1),
            etp,
        }
    }

    /// A training setup's split: Megatron-Core's (framework `megatron` below ZeRO-3, which the
    /// model takes as Megatron-DeepSpeed) or whole experts (DeepSpeed-MoE, torch stacks).
    pub fn training(setup: &TrainingSetup) -> WeightSplit {
        let megatron_core =
            setup.framework == Framework::Megatron && !setup.deepspeed && setup.parallel.zero < 3;
        let rule = if megatron_core {
            ExpertTp::Megatron
        } else {
            ExpertTp::Whole
        };
        WeightSplit::new(&setup.parallel, rule)
    }

    /// A serving engine at tensor parallelism `tp` without expert parallelism: vLLM's
    /// `FusedMoEParallelConfig.make` keeps `tp_size` for the experts unless
    /// `enable_expert_parallel` (not modelled) is set.
    pub fn serving(tp: u64) -> WeightSplit {
        let tp = tp.max(1);
        WeightSplit { tp, ep: 1, etp: tp }
    }

    /// Ways a routed expert's weights are divided: EP × ETP.
    pub fn expert_ways(&self) -> u64 {
        self.ep * self.etp
    }

    /// One device's share of linear `l`: a dense linear split over TP, a routed expert's copies
    /// divided over EP and each split over ETP, by column or row ([`is_row_parallel`]).
    pub fn linear(&self, l: &Linear) -> LinearShard {
        let (copies, ways, split) = if l.copies > 1 {
            (l.copies.div_ceil(self.ep), self.expert_ways(), self.etp)
        } else {
            (1, self.tp, self.tp)
        };
        let (d_in, d_out) = if is_row_parallel(l.name) {
            (l.d_in.div_ceil(split), l.d_out)
        } else {
            (l.d_in, l.d_out.div_ceil(split))
        };
        LinearShard {
            copies,
            d_in,
            d_out,
            params: l.params() as f64 / ways as f64,
        }
    }

    /// Rows each local routed expert of `l` runs for a device's `tokens`: the tokens × top-k
    /// routed to the EP group's experts, evenly (tokens × k × EP / E), divided over the TP ranks
    /// that hold the same tokens unless ETP splits the expert instead (DeepSpeed's
    /// `drop_tokens`); `tokens` for a dense linear. In 128 bits: tokens × k × EP × ETP of the
    /// largest accepted inputs passes 64.
    pub fn rows(&self, l: &Linear, tokens: u64) -> u64 {
        if l.copies <= 1 {
            return tokens;
        }
        let wide = |x: u64| u128::from(x);
        let routed = wide(tokens) * wide(l.active_copies) * wide(self.ep) * wide(self.etp);
        let rows = routed.div_ceil(wide(l.copies) * wide(self.tp)).max(1);
        u64::try_from(rows).unwrap_or(u64::MAX)
    }

    /// Weights one device holds of one layer of `g`: linears at `linear` bytes each (dense over
    /// TP, experts over EP × ETP) and the rest (norms, biases, router) at `other`, over TP.
    pub fn layer_bytes(&self, g: &LayerGroup, linear: f64, other: f64) -> f64 {
        let lin: f64 = g.linears.iter().map(|l| self.linear(l).params).sum();
        lin * linear + g.small_params as f64 * other / self.tp as f64
    }

    /// Expert-data-parallel size TP·DP / (EP·ETP), or `None` when EP·ETP does not divide TP·DP.
    pub fn expert_data_parallel(&self, dp: u64) -> Option<u64> {
        let ranks = self.tp * dp;
        let shard = self.expert_ways();
        (shard > 0 && ranks.is_multiple_of(shard)).then(|| ranks / shard)
    }
}

/// What one device of PP stage `stage` holds (stages 0..pp; layers split evenly, the embedding
/// on the first stage, the LM head — or the tied embedding's copy — on the last), its layers'
/// weights split as `split` says.
pub fn stage_params(
    b: &ParamBreakdown,
    p: &Parallelism,
    split: &WeightSplit,
    dp: u64,
    stage: u64,
) -> DeviceParams {
    let experts = b.expert_params() as f64;
    let dense = b.layer_params() as f64 - experts;
    stage_params_of(b, (experts, dense), p, split, dp, stage)
}

/// [`stage_params`] with the breakdown's (expert, dense) layer sums already taken.
fn stage_params_of(
    b: &ParamBreakdown,
    (experts, layers_dense): (f64, f64),
    p: &Parallelism,
    split: &WeightSplit,
    dp: u64,
    stage: u64,
) -> DeviceParams {
    let tp = split.tp as f64;
    let shard = split.expert_ways() as f64;
    let first = stage == 0;
    let last = stage + 1 == p.pp;
    let share = stage_share(b, p, stage);
    let mut dense = layers_dense / tp * share;
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
        expert: experts / shard * share,
        dense_group: dp.max(1),
        expert_group: split.expert_data_parallel(dp).unwrap_or(1).max(1),
    }
}

/// The share of the layers on a stage: 1/pp, or the stage's layers over the model's when the
/// split states a first/last stage or counts the embedding/loss ([`crate::pipeline`]; a middle
/// stage's share is the mean of the layers left).
fn stage_share(b: &ParamBreakdown, p: &Parallelism, stage: u64) -> f64 {
    let layers: u64 = b.groups.iter().map(|g| g.count).sum();
    let split = crate::pipeline::StageLayers::of(layers, p);
    split.share(split.stage(stage))
}

/// The most loaded device (the stage holding the most parameters).
pub fn most_loaded(
    b: &ParamBreakdown,
    p: &Parallelism,
    split: &WeightSplit,
    dp: u64,
) -> DeviceParams {
    most_loaded_stage(b, p, split, dp).1
}

/// The stage [`most_loaded`] picks (0..pp), with what one of its devices holds.
pub fn most_loaded_stage(
    b: &ParamBreakdown,
    p: &Parallelism,
    split: &WeightSplit,
    dp: u64,
) -> (u64, DeviceParams) {
    let experts = b.expert_params() as f64;
    let dense = b.layer_params() as f64 - experts;
    let of = |s: u64| (s, stage_params_of(b, (experts, dense), p, split, dp, s));
    // Only the first and last stages differ from the others: stage 1 stands for every middle
    // stage (the first of equals wins, as over all stages in order).
    let pp = p.pp.max(1);
    let stages = [0, 1.min(pp - 1), pp - 1];
    stages
        .into_iter()
        .map(of)
        .fold(None::<(u64, DeviceParams)>, |acc, d| match acc {
            Some(a) if a.1.total() >= d.1.total() => Some(a),
            _ => Some(d),
        })
        .unwrap_or_else(|| of(0))
}

/// The layers' linear (GEMM) weights, dense and routed-expert, on a device of the stage
/// [`most_loaded`] picks: what Transformer Engine runs in FP8 (embedding, LM head, norms and
/// routers stay 16-bit), split by TP / EP × ETP and that stage's share of the layers.
pub fn most_loaded_linears(
    b: &ParamBreakdown,
    p: &Parallelism,
    split: &WeightSplit,
    dp: u64,
) -> f64 {
    let (stage, _) = most_loaded_stage(b, p, split, dp);
    let experts = b.expert_params() as f64;
    let dense = b.linear_params() as f64 - experts;
    let share = stage_share(b, p, stage);
    (dense / split.tp as f64 + experts / split.expert_ways() as f64) * share
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::{find_preset, param_breakdown};

    fn mixtral_layer() -> LayerGroup {
        let m = &find_preset("Mixtral-8x7B").expect("preset").model;
        param_breakdown(m).groups[0].clone()
    }

    fn parallel(tp: u64, ep: u64) -> Parallelism {
        Parallelism {
            tp,
            ep,
            ..Parallelism::default()
        }
    }

    /// Without EP every rule splits each expert over TP; with EP Megatron-Core keeps ETP = TP and
    /// the whole-expert stacks drop it to 1; serving has no EP.
    #[test]
    fn expert_tp_follows_the_stack() {
        let etp = |tp, ep, rule| WeightSplit::new(&parallel(tp, ep), rule).etp;
        assert_eq!(etp(4, 1, ExpertTp::Whole), 4);
        assert_eq!(etp(4, 1, ExpertTp::Megatron), 4);
        assert_eq!(etp(4, 8, ExpertTp::Megatron), 4);
        assert_eq!(etp(4, 8, ExpertTp::Whole), 1);
        assert_eq!(
            WeightSplit::serving(4),
            WeightSplit {
                tp: 4,
                ep: 1,
                etp: 4
            }
        );
        // Megatron-Bridge's MoE recipes set expert_tensor_parallel_size = 1 explicitly.
        let explicit = Parallelism {
            etp: std::num::NonZeroU64::new(1),
            ..parallel(2, 32)
        };
        assert_eq!(WeightSplit::new(&explicit, ExpertTp::Megatron).etp, 1);
        let mut s = TrainingSetup {
            framework: Framework::Megatron,
            ..TrainingSetup::default()
        };
        s.parallel = parallel(2, 4);
        assert_eq!(WeightSplit::training(&s).etp, 2);
        s.parallel.zero = 3; // Megatron-DeepSpeed
        assert_eq!(WeightSplit::training(&s).etp, 1);
        s.framework = Framework::HuggingFace;
        s.parallel.zero = 0;
        assert_eq!(WeightSplit::training(&s).etp, 1);
    }

    /// The shard shapes the GEMMs run on hold exactly the weights the memory model counts, and the
    /// routed rows keep each device's expert FLOPs at tokens × k / TP of the whole layer's, for
    /// every rule: the time and memory of a plan read one split.
    #[test]
    fn shapes_weights_and_rows_agree() {
        let g = mixtral_layer();
        let tokens = 4096;
        for (tp, ep) in [(1, 1), (2, 1), (8, 1), (2, 4), (4, 8), (1, 8)] {
            for rule in [ExpertTp::Megatron, ExpertTp::Whole] {
                let w = WeightSplit::new(&parallel(tp, ep), rule);
                let shapes: f64 = g
                    .linears
                    .iter()
                    .map(|l| {
                        let d = w.linear(l);
                        (d.copies * d.d_in * d.d_out) as f64
                    })
                    .sum();
                let held = w.layer_bytes(&g, 1.0, 0.0);
                assert!(
                    (shapes - held).abs() <= 1e-12 * held,
                    "{w:?}: {shapes} vs {held}"
                );
                for l in g.linears.iter().filter(|l| l.copies > 1) {
                    let d = w.linear(l);
                    let flops = (d.copies * w.rows(l, tokens) * d.d_in * d.d_out) as f64;
                    let want = (tokens * l.active_copies * l.d_in * l.d_out) as f64 / tp as f64;
                    assert!((flops - want).abs() <= 1e-9 * want, "{w:?} {}", l.name);
                }
            }
        }
    }

    /// The largest accepted micro-batch × sequence with EP and ETP at their caps routes its rows
    /// without overflow.
    #[test]
    fn routed_rows_do_not_overflow() {
        let g = mixtral_layer();
        let expert = g.linears.iter().find(|l| l.copies > 1).expect("an expert");
        let w = WeightSplit {
            tp: 1,
            ep: 65_536,
            etp: 65_536,
        };
        let rows = w.rows(expert, 65_536 * 16_777_216);
        assert!(rows > 1 << 62, "{rows}");
    }

    /// Column-parallel linears split their output, row-parallel ones their input.
    #[test]
    fn row_parallel_linears_split_their_input() {
        let w = WeightSplit::serving(4);
        let g = mixtral_layer();
        for l in &g.linears {
            let d = w.linear(l);
            if matches!(l.name, "o_proj" | "down_proj") {
                assert_eq!((d.d_in, d.d_out), (l.d_in / 4, l.d_out), "{}", l.name);
            } else {
                assert_eq!((d.d_in, d.d_out), (l.d_in, l.d_out / 4), "{}", l.name);
            }
        }
    }
}
