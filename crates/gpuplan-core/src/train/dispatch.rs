//! The host's dispatch time of an eager training micro-batch (issue 10): in eager PyTorch the
//! host issues every op one by one (Python, the dispatcher, the autograd engine, the CUDA launch)
//! while the GPU runs what it was given; the CUDA stream lets the host run ahead, so a
//! micro-batch takes max(the GPU's time, the host's time). The host's time is the ops it
//! dispatches × `Tunables::host_op_seconds`.
//!
//! The ops are counted, not fitted: tools/measure_dispatch.py runs the stacks below on CPU under
//! torch.profiler and counts the top-level aten ops of one micro-batch (forward with the loss,
//! a reentrant checkpoint's replay, backward), per layer and outside the layers
//! (validation/dispatch-measured.json; tests/host_dispatch.rs checks this table against it).
//! Only the stacks counted are modelled, on NVIDIA GPUs: the HF profile (eager, not compiled) on one device
//! (TP, PP and CP 1, dense layers) of Qwen (v1)'s remote code or HF's Llama code (which Mistral's
//! and Qwen2's copy), with no recompute or full (reentrant) recompute, full fine-tuning or LoRA.
//! Everything else keeps the GPU-only step. Not counted: the optimizer step (once per step:
//! about 10-30 `_foreach` ops), DeepSpeed's and FSDP's per-module hooks, bitsandbytes' QLoRA
//! dequantization, the Trainer's own per-step Python (docs/methodology.md, "Host dispatch floor").

use crate::constants::Tunables;
use crate::hardware::GpuSpec;
use crate::model::{ModelSpec, ParamBreakdown};
use crate::units::Seconds;
use crate::workload::{Framework, Recompute, TrainTask, TrainingSetup};
use serde::Serialize;

/// A layer's top-level ops per micro-batch under one recompute choice, and the model's outside
/// the layers (embedding, final norm, LM head, loss), from validation/dispatch-measured.json.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct LayerOps {
    /// Every linear trained (full fine-tuning, pretraining).
    pub full: f64,
    /// Linears frozen, before any adapter (the LoRA base).
    pub frozen: f64,
    /// Ops one PEFT LoRA adapter adds (dropout, A, B, scale, add, autocast casts; their backward).
    pub per_adapter: f64,
    /// Outside the layers, full fine-tuning.
    pub fixed_full: f64,
    /// Outside the layers under LoRA (the counted all-linear adapters; the first layer's missing
    /// input gradient without `enable_input_require_grads` is in here, so it can be negative).
    pub fixed_lora: f64,
}

/// One counted stack: its ops without and with full (reentrant) recompute.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct StackOps {
    pub name: &'static str,
    pub no_recompute: LayerOps,
    pub full_recompute: LayerOps,
}

/// Qwen (v1) remote code @e7a368b, bf16 weights under bf16 autocast, PEFT 0.6.2 fp32 adapters
/// (torch 2.1.2 CPU count: qwen1_* rows of validation/dispatch-measured.json). Per adapter:
/// (5-adapter row − 1-adapter row) ÷ 4; frozen base: 1-adapter row − one adapter.
pub const QWEN_V1: StackOps = StackOps {
    name: "qwen1",
    no_recompute: LayerOps {
        full: 218.0,
        frozen: 191.0,
        per_adapter: 32.0,
        fixed_full: 65.0,
        fixed_lora: 27.0,
    },
    full_recompute: LayerOps {
        full: 292.0,
        frozen: 265.0,
        per_adapter: 39.0,
        fixed_full: 65.0,
        fixed_lora: 55.0,
    },
};

/// transformers 4.35.2's LlamaForCausalLM (eager attention), the same settings (llama_* rows;
/// per adapter: (7-adapter row − 1-adapter row) ÷ 6).
pub const HF_LLAMA: StackOps = StackOps {
    name: "llama",
    no_recompute: LayerOps {
        full: 219.0,
        frozen: 176.0,
        per_adapter: 32.0,
        fixed_full: 69.0,
        fixed_lora: 7.0,
    },
    full_recompute: LayerOps {
        full: 289.0,
        frozen: 246.0,
        per_adapter: 39.0,
        fixed_full: 69.0,
        fixed_lora: 59.0,
    },
};

/// The counted stack a model's code is, by `model_type`: Qwen (v1)'s remote code, or HF's Llama
/// code (Mistral's and Qwen2's modeling files are marked "Copied from ... llama" layer by layer).
pub fn stack_of(model_type: &str) -> Option<&'static StackOps> {
    match model_type {
        "qwen" => Some(&QWEN_V1),
        "llama" | "mistral" | "qwen2" => Some(&HF_LLAMA),
        _ => None,
    }
}

/// The host's side of one micro-batch, where it is modelled.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct HostDispatch {
    /// The counted stack (`qwen1`, `llama`).
    pub stack: &'static str,
    /// Top-level ops the host dispatches per micro-batch.
    pub ops_per_micro_batch: f64,
    /// Host time per op (`host_op_seconds`).
    pub per_op_s: f64,
    /// The host's time for all micro-batches of the step.
    pub host_s: Seconds,
    /// What of it the GPU waits for: Σ max(0, host − GPU) per micro-batch; part of the step.
    pub exposed_s: Seconds,
}

/// LoRA adapters per layer: the adapted linears, one adapter per fused q/k/v module.
fn adapters_per_layer(b: &ParamBreakdown, setup: &TrainingSetup) -> f64 {
    let t = &setup.lora.targets;
    let (mut adapters, mut layers) = (0u64, 0u64);
    for g in &b.groups {
        let n = g
            .linears
            .iter()
            .filter(|l| super::is_target(t, l) && !super::shares_adapter_input(t, l))
            .count() as u64;
        adapters += n * g.count;
        layers += g.count;
    }
    adapters as f64 / layers.max(1) as f64
}

/// Whether the step is one of the counted eager loops (module doc).
fn counted(m: &ModelSpec, b: &ParamBreakdown, setup: &TrainingSetup) -> bool {
    let p = &setup.parallel;
    setup.framework == Framework::HuggingFace
        && !setup.compiled
        && matches!(setup.recompute, Recompute::None | Recompute::Full)
        && setup.task != TrainTask::Qlora
        && p.tp == 1
        && p.pp == 1
        && p.cp <= 1
        && b.expert_params() == 0
        // A text-only decoder: a vision tower, M-RoPE or cross-attention layers (Qwen2-VL, LLaVA,
        // mllama read as their text model_type) were not counted (review r15 #2).
        && m.transformer().is_some_and(|t| t.vision.is_none() && t.extras.is_empty())
}

/// Top-level ops the host dispatches per micro-batch, and the stack counted; `None` where the
/// step is not a counted eager loop.
pub fn ops_per_micro_batch(
    m: &ModelSpec,
    b: &ParamBreakdown,
    setup: &TrainingSetup,
) -> Option<(&'static StackOps, f64)> {
    let stack = stack_of(m.model_type())?;
    if !counted(m, b, setup) {
        return None;
    }
    let ops = match setup.recompute {
        Recompute::Full => stack.full_recompute,
        _ => stack.no_recompute,
    };
    let layers = m.transformer()?.total_layers() as f64;
    let n = if setup.task == TrainTask::Lora {
        ops.fixed_lora + layers * (ops.frozen + adapters_per_layer(b, setup) * ops.per_adapter)
    } else {
        ops.fixed_full + layers * ops.full
    };
    Some((stack, n))
}

/// The host's side of a step of `micro_batches` micro-batches whose GPU time is `gpu_micro`
/// seconds each on `gpu`: `None` where the step is not a counted eager loop, or not on CUDA (the
/// per-op cost is a CUDA measurement; torch_npu's task queue has its own, unpublished).
pub fn host_dispatch(
    m: &ModelSpec,
    b: &ParamBreakdown,
    (setup, gpu): (&TrainingSetup, &GpuSpec),
    tun: &Tunables,
    (micro_batches, gpu_micro): (f64, f64),
) -> Option<HostDispatch> {
    if gpu.vendor != "nvidia" {
        return None;
    }
    let (stack, ops) = ops_per_micro_batch(m, b, setup)?;
    let host_micro = ops * tun.host_op_seconds;
    Some(HostDispatch {
        stack: stack.name,
        ops_per_micro_batch: ops,
        per_op_s: tun.host_op_seconds,
        host_s: Seconds(host_micro * micro_batches),
        exposed_s: Seconds((host_micro - gpu_micro).max(0.0) * micro_batches),
    })
}
