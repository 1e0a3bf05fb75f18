//! What torch FSDP keeps gathered beyond the shards, without pipeline parallelism: the root unit
//! for the whole step and two wrapped units (the current one and one prefetched), each in the
//! dtype it is stored and all-gathered in.
//!
//! Root unit. FSDP1 does not free the root's gathered flat parameter after forward
//! (torch/distributed/fsdp/_runtime_utils.py `_post_forward_reshard`, torch v2.3.0:
//! `free_unsharded_flat_param = not state._is_root and ...`, "Do not free the root's parameters
//! in the post-forward for `FULL_SHARD`"); FSDP2 clears the root's post-forward reshard
//! (torch/distributed/_composable/fsdp/_fsdp_state.py `_lazy_init`, torch v2.4-v2.6: "For the
//! root, do not reshard after forward since for training, the parameters would be freed and
//! all-gathered immediately", `self._fsdp_param_group.post_forward_mesh_info = None`, whatever
//! `reshard_after_forward` the caller gave; torchtitan @9dec370 passes `True` for the root). Both
//! reshard the root only in the final backward callback. The root holds the parameters no wrapped
//! child holds: embedding, final norm and LM head when only the layers are wrapped (torchtitan
//! `apply_fsdp`, torchtune `shard_model` with `_is_layer_name`, accelerate's
//! `TRANSFORMER_BASED_WRAP`), the final norm alone when the embedding and head are wrapped too
//! ([`crate::workload::Parallelism::fsdp_wrap_embeddings`]).
//!
//! Prefetch depth. FSDP1 with `backward_prefetch=BACKWARD_PRE` (the default) all-gathers the next
//! unit before the current unit's gradient computation, and `limit_all_gathers` (default on)
//! bounds the all-gathers that run ahead of the frees (torch/distributed/fsdp/_limiter_utils.py
//! `_FreeEventQueue`: `_max_num_inflight_all_gathers = 2`); FSDP2 prefetches one unit in backward
//! (torch/distributed/_composable/fsdp/_fsdp_param_group.py `_backward_prefetch`: the group at
//! `curr_index - 1` of the post-forward order) and in forward issues the next unit's all-gather
//! as the current one computes. Two units while a unit computes.
//!
//! FSDP2's third buffer in forward. `FSDPParamGroup.wait_for_unshard` (pytorch/pytorch
//! torch/distributed/_composable/fsdp/_fsdp_param_group.py @012c62d6, and unchanged in this
//! respect at torch/distributed/fsdp/_fully_shard/_fsdp_param_group.py @002a76fb) keeps each forward unit's
//! all-gather output in `comm_ctx.all_gather_state` ("Defer free to allow for overlap of this
//! copy-out with next all-gather collective") and, at the next unit's unshard, binds it to a local
//! (`if prev_all_gather_state := self.comm_ctx.all_gather_state:`) before clearing the field
//! ("free the all-gather result"): the local holds the previous output until the function returns,
//! after `foreach_all_gather_copy_out` has allocated the next unit's unsharded parameters beside
//! the next unit's all-gather output. At that copy-out the root, the previous unit's all-gather
//! output and the next unit's output and parameters are live: root + 3 units beside the layer
//! inputs saved so far, no layer's working set ([`held_in_forward`]). At the first layer the
//! previous output is the root's (the root unshards first, in the same way), so that moment holds
//! 2 · root + 2 units beside no saved layer. In backward (`PRE_BACKWARD`) the output is freed
//! right after its copy-out and before the next prefetch (`_backward_prefetch` after
//! `wait_for_unshard`): two units. FSDP1's `FullyShardedDataParallel` all-gathers into the flat
//! parameter's padded unsharded storage directly (`FlatParamHandle._all_gather_flat_param`): two.
//! Measured on CPU for torchtune's LoRA recipe (tools/measure_torchtune_lora.py,
//! tests/measured_torchtune_fsdp2.rs): root + 3 units at each later forward unshard, 2 · root + 2
//! units at the first. The measurement's backward shows a third unit at each prefetch as well: that
//! one is gloo's, whose CPU all-gather (`ProcessGroupGloo` `AsyncAllgatherWork::allgather`:
//! `flatOutputTensor = newLikeFlat(outputs[0])`, then copied into the output) allocates a
//! unit-sized temporary that NCCL's all-gather into the output tensor does not. Not modelled:
//! FSDP1's rate limiter lets the caching allocator hold freed blocks of two units whose frees
//! have not run yet (reserved, not allocated, memory).
//!
//! Storage dtype. A unit is gathered in the dtype its flat parameter holds: the mixed-precision
//! `param_dtype` (16 bit) for trained weights; for a frozen bitsandbytes 4-bit base stored in a
//! bf16 container (`bnb_4bit_quant_storage=bfloat16`) the packed 4-bit bytes, 0.5 B per weight,
//! the quantisation constants staying whole on every GPU; torchao's `NF4Tensor` under FSDP2
//! (torchtune QLoRA) all-gathers its packed data with its scalers (`fsdp_pre_all_gather`).

use crate::layout::WeightSplit;
use crate::model::ParamBreakdown;
use crate::workload::{BaseWeights, Precision, TrainingSetup};

/// Units FSDP keeps gathered besides the root: the current one and one prefetched.
pub(super) const GATHERED_UNITS: f64 = 2.0;

/// Whether torch FSDP (FSDP1 or FSDP2) shards the model, rather than DeepSpeed ZeRO-3
/// (`deepspeed`, or Megatron-DeepSpeed), and without pipeline parallelism.
pub(super) fn applies(setup: &TrainingSetup) -> bool {
    !setup.zero3_by_deepspeed() && setup.parallel.pp == 1
}

/// FSDP2 (`fully_shard`) rather than FSDP1: `parallel.fsdp_version = 2`, or context
/// parallelism under an eager profile (torch's `context_parallel` runs on DTensor, which only
/// FSDP2 shards: accelerate's docs/source/concept_guides/context_parallelism.md @fb80e025,
/// "context parallelism only works if you use FullyShardedDataParallelPlugin or --use-fsdp with
/// version set to 2"; torchtitan is FSDP2 throughout).
pub(super) fn fsdp2(setup: &TrainingSetup) -> bool {
    let p = &setup.parallel;
    applies(setup) && (p.fsdp_version == 2 || (p.cp > 1 && setup.framework.is_eager()))
}

/// What FSDP2 holds beside the root and two units at a forward unshard (the module docs): the
/// previous unit's all-gather output, `[at the first layer, at a later layer]` = `[root, unit]`
/// from [`units`]; zero under FSDP1.
pub(super) fn held_in_forward(setup: &TrainingSetup, root: f64, unit: f64) -> [f64; 2] {
    if fsdp2(setup) {
        [root, unit]
    } else {
        [0.0; 2]
    }
}

/// Bytes per gathered parameter: (layer linear weights, everything else).
pub(super) fn gathered_bytes(setup: &TrainingSetup) -> (f64, f64) {
    let full = if setup.precision == Precision::Fp32 {
        4.0
    } else {
        2.0
    };
    if !setup.task.is_peft() {
        return (full, full);
    }
    let other = super::saved_module_bytes(setup);
    let linear = match setup.base_weights() {
        BaseWeights::Nf4 | BaseWeights::Nf4NoDq if setup.bnb_quant_state_replicated => 0.5,
        b => b.bits() / 8.0,
    };
    (linear, other)
}

/// Bytes of the largest wrapped transformer layer one device gathers, as `split` holds it,
/// linears at `linear` bytes and the rest at `other`.
pub(super) fn layer_unit_bytes(
    b: &ParamBreakdown,
    split: &WeightSplit,
    linear: f64,
    other: f64,
) -> f64 {
    b.groups
        .iter()
        .map(|g| split.layer_bytes(g, linear, other))
        .fold(0.0, f64::max)
}

/// Gathered bytes of the root unit and of the largest other unit (a layer, or the embedding or
/// head when they are wrapped on their own).
pub(super) fn units(setup: &TrainingSetup, b: &ParamBreakdown) -> (f64, f64) {
    let p = setup.parallel;
    let tp = p.tp as f64;
    let (linear, other) = gathered_bytes(setup);
    let layer = layer_unit_bytes(b, &WeightSplit::training(setup), linear, other);
    let ends = (b.embedding + b.stem + b.lm_head) as f64 / tp * other;
    let norms = b.final_norms as f64 * other;
    if p.fsdp_wrap_embeddings {
        let own = (b.embedding.max(b.lm_head) as f64 / tp * other).max(layer);
        (norms, own)
    } else {
        (ends + norms, layer)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::{param_breakdown, presets};
    use crate::workload::{LoraConfig, TrainTask};

    fn breakdown(name: &str) -> ParamBreakdown {
        let all = presets().expect("presets");
        let p = all.iter().find(|p| p.model.name == name).expect("preset");
        param_breakdown(&p.model)
    }

    fn setup(task: TrainTask) -> TrainingSetup {
        let mut s = TrainingSetup {
            task,
            precision: Precision::AmpBf16,
            lora: LoraConfig::default(),
            ..TrainingSetup::default()
        };
        s.parallel.zero = 3;
        s
    }

    /// Llama-2-70B under QLoRA with bf16 quant storage: the root is embedding, final norm and head
    /// (2 × 32000 × 8192 + 8192 = 524M, 1.05 GB in bf16); a layer (856M, 855.6M of linears) is
    /// gathered at 0.5 B a linear weight, 0.43 GB.
    #[test]
    fn qlora_bnb_units_gather_packed_four_bit_and_the_root_in_bf16() {
        let b = breakdown("Llama-2-70B");
        let mut s = setup(TrainTask::Qlora);
        s.bnb_quant_state_replicated = true;
        let (root, layer) = units(&s, &b);
        assert!((root / 1e9 - 1.048).abs() < 0.001, "{root}");
        assert!((layer / 1e9 - 0.428).abs() < 0.001, "{layer}");
        // The constants sharded with the weights (torchao NF4): 4.127 bits.
        s.bnb_quant_state_replicated = false;
        let (_, nf4) = units(&s, &b);
        assert!(
            (nf4 / layer - 4.127 / 4.0).abs() < 0.001,
            "{nf4} vs {layer}"
        );
    }

    /// Llama-3.1-8B trained in full: the root (two 525M tables and the norm) is 2.1 GB in bf16,
    /// a layer (218M) 0.44 GB; with the tables wrapped on their own the root is the final norm and
    /// the largest unit a table.
    #[test]
    fn wrapping_the_embedding_and_head_leaves_the_norm_at_the_root() {
        let b = breakdown("Llama-3.1-8B");
        let mut s = setup(TrainTask::FullFinetune);
        let (root, layer) = units(&s, &b);
        assert!((root / 1e9 - 2.101).abs() < 0.001, "{root}");
        assert!((layer / 1e9 - 0.436).abs() < 0.001, "{layer}");
        s.parallel.fsdp_wrap_embeddings = true;
        let (root, unit) = units(&s, &b);
        assert_eq!(root, 4096.0 * 2.0);
        assert_eq!(unit, 128_256.0 * 4096.0 * 2.0);
    }

    /// FSDP2 holds the previous unit's all-gather output at a forward unshard; FSDP1 does not,
    /// and context parallelism under the eager profile is FSDP2 whatever the key says.
    #[test]
    fn only_fsdp2_holds_a_previous_output() {
        let mut s = setup(TrainTask::FullFinetune);
        assert_eq!(held_in_forward(&s, 3.0, 2.0), [0.0; 2]);
        s.parallel.fsdp_version = 2;
        assert_eq!(held_in_forward(&s, 3.0, 2.0), [3.0, 2.0]);
        s.parallel.fsdp_version = 1;
        s.parallel.cp = 2;
        assert!(fsdp2(&s));
        s.deepspeed = true;
        assert!(!fsdp2(&s));
    }

    #[test]
    fn deepspeed_and_pipeline_stages_keep_their_own_rules() {
        let mut s = setup(TrainTask::FullFinetune);
        assert!(applies(&s));
        s.deepspeed = true;
        assert!(!applies(&s));
        s.deepspeed = false;
        s.parallel.pp = 2;
        assert!(!applies(&s));
    }
}
