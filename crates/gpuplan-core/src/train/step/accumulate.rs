//! Autograd's own gradient accumulation over the micro-batches of a step (docs/methodology.md
//! §Step time, "Gradient accumulation in `.grad`").
//!
//! Where no hook of the engine takes a micro-batch's weight gradient away and no fused GEMM
//! writes it into a buffer of its own, autograd's `AccumulateGrad` node receives the gradient
//! the weight-gradient GEMM produced and accumulates it into `param.grad`
//! (torch/csrc/autograd/functions/accumulate_grad.h @035290b7 `accumulateGrad`): on the first
//! micro-batch after `zero_grad(set_to_none=True)` `.grad` is undefined and the new tensor is
//! stolen, no copy (lines 121-135, `update_grad(new_grad.detach())`); from the second on `.grad`
//! is defined and, outside double backward, `variable_grad += new_grad` runs in place (lines
//! 179-217): one element-wise kernel that reads both gradients and writes one, in `.grad`'s
//! dtype. So a step of m micro-batches pays m − 1 such passes over every trainable parameter of
//! the device, on the compute stream inside each backward.

use super::Ctx;
use crate::compute::{ChipRates, ComputeParts};
use crate::workload::{Framework, Precision, TrainingSetup};

/// Element accesses of the in-place add `variable_grad += new_grad`: two reads, one write.
pub(crate) const ACCUMULATE_ACCESSES: f64 = 3.0;

/// Bytes per element of the `.grad` that autograd accumulates into across micro-batches, or
/// `None` where something else takes each micro-batch's gradient:
/// - the `megatron` profile without DeepSpeed's engine: Megatron's weight-gradient GEMM writes
///   `main_grad` itself (gradient-accumulation fusion) or its DDP hook adds `.grad` into it
///   (`main_grad_add_seconds`, charged there);
/// - DeepSpeed (`deepspeed`, either profile) under ZeRO-2/3, or ZeRO-0/1 with its gradient
///   reduction overlapped (`overlap_comm`): the engine's hooks on each gradient accumulator copy
///   the gradient into its buckets and drop `.grad` (DeepSpeed v0.6.1
///   runtime/zero/stage_1_and_2.py lines 475-476: `if self.partition_gradients or
///   self.overlap_comm: self.create_reduce_and_remove_grad_hooks()`), so autograd always steals;
/// - DeepSpeed's `BF16_Optimizer` (`fp32_grad_pass`), which adds each micro-batch's gradient into
///   its fp32 buffer and frees `.grad` itself (charged by its own pass);
/// - torch FSDP (`zero` ≥ 2 without DeepSpeed): its post-backward hook reduce-scatters the
///   unsharded gradient and keeps only the shard (the shard's add, 1/dp of this, is not charged).
///
/// It applies to DDP or a single device under the eager profiles (`zero = 0`: accelerate/HF
/// Trainer, torchtune and Lightning skip the reduction with `no_sync` and autograd accumulates;
/// without `no_sync` DDP's reducer still reads the accumulated `.grad`), in the gradients' dtype
/// of the setup ([`crate::train::effective_state_bytes`]: fp32 under torch.autocast's fp32
/// parameters, `autocast`; 16-bit otherwise), and to DeepSpeed's
/// ZeRO-0/1 engine without `overlap_comm` (16-bit module parameters, 4 B under fp32). A DeepSpeed
/// stack that also turns off the megatron profile's gradient-accumulation fusion is charged by
/// `main_grad_add_seconds` alone.
pub(crate) fn autograd_grad_bytes(setup: &TrainingSetup) -> Option<f64> {
    let p = &setup.parallel;
    if p.fp32_grad_pass {
        return None;
    }
    if setup.deepspeed {
        let hooks = p.zero >= 2 || p.grad_overlap(setup.framework);
        let main_grad_add = setup.framework == Framework::Megatron && !setup.megatron_fused_wgrad();
        return (!hooks && !main_grad_add).then_some(match setup.precision {
            Precision::Fp32 => 4.0,
            _ => 2.0,
        });
    }
    if setup.framework == Framework::Megatron || p.zero > 0 {
        return None;
    }
    Some(crate::train::effective_state_bytes(setup).grads)
}

/// Autograd's in-place `.grad` additions of one step on a device of the slowest pipeline stage,
/// spread over its micro-batches (seconds per micro-batch: (m − 1)/m of one pass over the
/// device's trainable parameters, [`ACCUMULATE_ACCESSES`] × [`autograd_grad_bytes`] each, at the
/// element-wise streaming bandwidth). Inside every backward, so the pipeline bubble's
/// micro-batches carry it as well. Zero with one micro-batch or where it does not apply.
pub(super) fn autograd_accumulate_seconds(x: &Ctx, parts: &ComputeParts, r: &ChipRates) -> f64 {
    let m = x.m_micro;
    if m <= 1.0 {
        return 0.0;
    }
    let (Some(bytes), Some(bw)) = (autograd_grad_bytes(x.setup), r.memory) else {
        return 0.0;
    };
    let params = slowest_stage_trainable(x, parts);
    params * ACCUMULATE_ACCESSES * bytes / bw.0.max(1.0) * ((m - 1.0) / m)
}

/// Trainable parameters held by a device of the slowest pipeline stage (before ZeRO: `.grad`
/// is whole under ZeRO-0/1 and DDP).
fn slowest_stage_trainable(x: &Ctx, parts: &ComputeParts) -> f64 {
    crate::train::trainable_of(x.b, x.setup, super::slowest_stage_params(x, parts))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::workload::TrainTask;

    fn setup(framework: Framework, zero: u8, deepspeed: bool) -> TrainingSetup {
        let mut s = TrainingSetup {
            framework,
            deepspeed,
            task: TrainTask::Pretrain,
            grad_accum: 4,
            ..TrainingSetup::default()
        };
        s.parallel.zero = zero;
        s
    }

    #[test]
    fn ddp_accumulates_in_the_parameter_dtype() {
        let s = setup(Framework::HuggingFace, 0, false);
        // 16-bit weights (the profile's default without `autocast`): 16-bit `.grad`.
        assert_eq!(autograd_grad_bytes(&s), Some(2.0));
        // torch.autocast keeps fp32 parameters, so `.grad` is fp32.
        let mut amp = s.clone();
        amp.autocast = true;
        assert_eq!(autograd_grad_bytes(&amp), Some(4.0));
        let mut pure = s.clone();
        pure.precision = Precision::PureBf16;
        assert_eq!(autograd_grad_bytes(&pure), Some(2.0));
    }

    #[test]
    fn hooks_and_fused_buffers_take_the_gradient() {
        // Megatron's main_grad, torch FSDP, DeepSpeed ZeRO-2/3.
        let none = |f, zero, ds| autograd_grad_bytes(&setup(f, zero, ds)).is_none();
        assert!(none(Framework::Megatron, 1, false));
        assert!(none(Framework::HuggingFace, 3, false));
        assert!(none(Framework::HuggingFace, 2, true));
        assert!(none(Framework::Megatron, 3, true));
        // DeepSpeed ZeRO-1 with overlap_comm (the eager profile's default overlap) registers hooks.
        assert!(none(Framework::HuggingFace, 1, true));
        // BF16_Optimizer's own pass.
        let mut bf16 = setup(Framework::Megatron, 1, true);
        bf16.parallel.fp32_grad_pass = true;
        assert_eq!(autograd_grad_bytes(&bf16), None);
        // The unfused main-gradient add is charged by main_grad_add_seconds alone.
        let mut unfused = setup(Framework::Megatron, 1, true);
        unfused.gradient_accumulation_fusion = Some(false);
        assert_eq!(autograd_grad_bytes(&unfused), None);
    }

    #[test]
    fn deepspeed_zero1_without_overlap_comm_accumulates_16_bit_grads() {
        let mut s = setup(Framework::Megatron, 1, true);
        s.precision = Precision::AmpFp16;
        assert_eq!(autograd_grad_bytes(&s), Some(2.0));
        let mut hf = setup(Framework::HuggingFace, 1, true);
        hf.parallel.overlap_grad_reduce = Some(false);
        assert_eq!(autograd_grad_bytes(&hf), Some(2.0));
    }
}
