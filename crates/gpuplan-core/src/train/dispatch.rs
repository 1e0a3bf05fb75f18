//! The host's dispatch time of an eager training micro-batch (issue 10): in eager PyTorch the
//! host issues every op one by one (Python, the dispatcher, the autograd engine, the CUDA launch)
//! while the GPU runs what it was given; the CUDA stream lets the host run ahead, so a
//! micro-batch takes max(the GPU's time, the host's time). The host's time is the ops that launch
//! a kernel × `Tunables::host_op_seconds` (a CUDA measurement), the ops that launch nothing
//! (views, metadata, allocations) × `Tunables::host_view_seconds`, and the time outside the ops
//! (Python around them, the autograd engine's per-node work, nn.Module calls).
//!
//! Nothing is fitted: tools/measure_dispatch.py runs the stacks below on CPU under torch.profiler
//! and counts the top-level aten ops of one micro-batch (forward with the loss, a reentrant
//! checkpoint's replay, backward) and which of them launch a kernel, per layer and outside the
//! layers (validation/dispatch-measured.json); tools/measure_host_costs.py times the same loops on
//! this project's CPU and takes the ops' own time off (validation/host-costs-measured.json);
//! tests/host_dispatch.rs checks this table against both.
//! Only the stacks counted are modelled, on NVIDIA GPUs: the HF profile (eager, not compiled) on one device
//! (TP, PP and CP 1, dense layers) of Qwen (v1)'s remote code or HF's Llama code (which Mistral's
//! and Qwen2's copy), with no recompute or full (reentrant) recompute, full fine-tuning or LoRA.
//! Everything else keeps the GPU-only step. DeepSpeed ZeRO-3's per-module fetch/release and
//! gradient hooks are added where measured (`zero3_hooks`: tools/measure_zero3_hooks.py,
//! validation/zero3-hooks-measured.json). Not counted: the optimizer step (once per step:
//! about 10-30 `_foreach` ops and a Python loop over the tensors), ZeRO-3 hooks elsewhere (LoRA,
//! one rank), FSDP's per-module hooks, bitsandbytes' QLoRA dequantization, the
//! Trainer's own per-step Python (docs/methodology.md, "Host dispatch floor").

use crate::constants::Tunables;
use crate::hardware::GpuSpec;
use crate::model::{ModelSpec, ParamBreakdown};
use crate::units::Seconds;
use crate::workload::{Framework, Recompute, TrainTask, TrainingSetup};
use serde::Serialize;

/// A layer's quantity per micro-batch under one recompute choice (top-level ops, launching ops,
/// or seconds outside the ops), and the model's outside the layers (embedding, final norm, LM
/// head, loss), from validation/dispatch-measured.json and validation/host-costs-measured.json.
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

/// One recompute choice of a counted stack: the top-level ops, those of them that launch a kernel
/// on CUDA (the rest make a view or metadata, or allocate: measure_dispatch.py's `VIEW_OPS`), and
/// the host's seconds outside the ops (Python around them, the autograd engine's per-node work,
/// the module machinery; tools/measure_host_costs.py on this project's CPU,
/// validation/host-costs-measured.json `outside`).
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct LoopCost {
    pub ops: LayerOps,
    pub launch: LayerOps,
    pub outside_s: LayerOps,
    /// What DeepSpeed ZeRO-3 adds to this loop with every linear trained.
    pub zero3: Zero3Host,
}

/// One counted stack: its loop without and with full (reentrant) recompute.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct StackOps {
    pub name: &'static str,
    pub no_recompute: LoopCost,
    pub full_recompute: LoopCost,
}

/// What DeepSpeed ZeRO-3 adds to a micro-batch on the host, each as (per layer, outside the
/// layers): the module hooks that fetch and release every submodule's partitioned parameters in
/// the forward, the reentrant checkpoint's replay (where recomputed) and the backward
/// (runtime/zero/parameter_offload.py `_register_hooks_recursively`, partitioned_param_coordinator.py
/// `fetch_sub_module` / `release_sub_module`), the gradient hooks that fill the reduce bucket
/// (stage3.py `reduce_partition_and_remove_grads`) and the engine's per-micro-batch `step()`.
/// Measured with DeepSpeed 0.11.1's engine on CPU, 2 ranks over gloo, every linear trained, the
/// collectives replaced by no-ops (their transfer is the DP phase's):
/// tools/measure_zero3_hooks.py, validation/zero3-hooks-measured.json (DeepSpeed run − the same
/// loop without it, 3 layers − 1 layer over 2).
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Zero3Host {
    /// Top-level aten ops the hooks dispatch (flattening, views of the gathered buffer, the
    /// bucket's copies).
    pub ops: (f64, f64),
    /// Of them, those that launch a kernel on CUDA (measure_dispatch.py's rule).
    pub launch: (f64, f64),
    /// All-gather and reduce-scatter calls: each one NCCL launch on the host, priced as a
    /// launching op (an assumption: no source times an NCCL call's host cost).
    pub collectives: (f64, f64),
    /// CPU seconds outside the ops (the hooks' Python), tools/measure_host_costs.py's method.
    pub outside_s: (f64, f64),
}

const fn layer(full: f64, frozen: f64, per_adapter: f64, fixed: (f64, f64)) -> LayerOps {
    LayerOps {
        full,
        frozen,
        per_adapter,
        fixed_full: fixed.0,
        fixed_lora: fixed.1,
    }
}

/// Qwen (v1) remote code @e7a368b, bf16 weights under bf16 autocast, PEFT 0.6.2 fp32 adapters
/// (torch 2.1.2 CPU count: qwen1_* rows of validation/dispatch-measured.json). Per adapter:
/// (5-adapter row − 1-adapter row) ÷ 4; frozen base: 1-adapter row − one adapter. Seconds outside
/// the ops: the same rows of validation/host-costs-measured.json, rounded to 0.1 µs.
pub const QWEN_V1: StackOps = StackOps {
    name: "qwen1",
    no_recompute: LoopCost {
        ops: layer(218.0, 191.0, 32.0, (65.0, 27.0)),
        launch: layer(121.0, 116.0, 17.0, (38.0, 12.0)),
        outside_s: layer(436.8e-6, 408.0e-6, 74.8e-6, (413.3e-6, 591.4e-6)),
        // validation/zero3-hooks-measured.json `stacks.qwen1_no_recompute`.
        zero3: Zero3Host {
            ops: (168.0, 68.0),
            launch: (26.0, 15.0),
            collectives: (13.0, 4.0),
            outside_s: (2179.4e-6, 1052.7e-6),
        },
    },
    full_recompute: LoopCost {
        ops: layer(292.0, 265.0, 39.0, (65.0, 55.0)),
        launch: layer(166.0, 161.0, 23.0, (38.0, 34.0)),
        outside_s: layer(945.5e-6, 995.4e-6, 118.6e-6, (452.4e-6, 284.3e-6)),
        // validation/zero3-hooks-measured.json `stacks.qwen1` (Qwen's remote code @c9bdb95).
        zero3: Zero3Host {
            ops: (198.0, 68.0),
            launch: (26.0, 15.0),
            collectives: (13.0, 4.0),
            outside_s: (2831.8e-6, 1164.1e-6),
        },
    },
};

/// transformers 4.35.2's LlamaForCausalLM (eager attention), the same settings (llama_* rows;
/// per adapter: (7-adapter row − 1-adapter row) ÷ 6).
pub const HF_LLAMA: StackOps = StackOps {
    name: "llama",
    no_recompute: LoopCost {
        ops: layer(219.0, 176.0, 32.0, (69.0, 7.0)),
        launch: layer(125.0, 114.0, 17.0, (44.0, 5.0)),
        outside_s: layer(499.9e-6, 452.3e-6, 84.6e-6, (356.8e-6, 321.9e-6)),
        // validation/zero3-hooks-measured.json `stacks.llama_no_recompute`.
        zero3: Zero3Host {
            ops: (207.0, 62.0),
            launch: (35.0, 13.0),
            collectives: (16.0, 4.0),
            outside_s: (2506.7e-6, 1115.1e-6),
        },
    },
    full_recompute: LoopCost {
        ops: layer(289.0, 246.0, 39.0, (69.0, 59.0)),
        launch: layer(171.0, 160.0, 23.0, (44.0, 40.0)),
        outside_s: layer(952.4e-6, 847.9e-6, 153.3e-6, (402.1e-6, 237.9e-6)),
        // validation/zero3-hooks-measured.json `stacks.llama`.
        zero3: Zero3Host {
            ops: (239.0, 62.0),
            launch: (35.0, 13.0),
            collectives: (16.0, 4.0),
            outside_s: (3444.2e-6, 795.1e-6),
        },
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
    /// Of them, those that launch a kernel on CUDA (the rest make views or metadata).
    pub launch_ops_per_micro_batch: f64,
    /// Host time per launching op (`host_op_seconds`).
    pub per_op_s: f64,
    /// Host time per op that launches nothing (`host_view_seconds`).
    pub per_view_s: f64,
    /// Host time per micro-batch outside the ops: Python around them, the autograd engine's
    /// per-node work, nn.Module calls (measured on CPU, `LoopCost::outside_s`).
    pub outside_s: f64,
    /// Of the host's time per micro-batch, DeepSpeed ZeRO-3's hooks (where they are modelled:
    /// `zero3_hooks`); absent otherwise.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub zero3_s: Option<f64>,
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
            .count() as u64
            + u64::from(super::router_adapter(t, g).is_some());
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
        // The counted loops ran HF's own loss ops; llm.c's one fused classifier kernel replaces
        // them, so such a step is not one of them (review r16 #5).
        && !setup.fused_classifier
        && p.tp == 1
        && p.pp == 1
        && p.cp <= 1
        && b.expert_params() == 0
        // A text-only decoder: a vision tower, M-RoPE or cross-attention layers (Qwen2-VL, LLaVA,
        // mllama read as their text model_type) were not counted (review r15 #2).
        && m.transformer().is_some_and(|t| t.vision.is_none() && t.extras.is_empty())
}

/// One micro-batch's total of a per-layer table: the fixed part and every layer's.
fn per_micro_batch(t: &LayerOps, layers: f64, adapters: Option<f64>) -> f64 {
    match adapters {
        Some(a) => t.fixed_lora + layers * (t.frozen + a * t.per_adapter),
        None => t.fixed_full + layers * t.full,
    }
}

/// One micro-batch of a counted loop: (top-level ops, launching ops, seconds outside the ops).
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct MicroBatchHost {
    pub ops: f64,
    pub launch: f64,
    pub outside_s: f64,
}

/// What the host does per micro-batch, and the stack counted; `None` where the step is not a
/// counted eager loop.
pub fn ops_per_micro_batch(
    m: &ModelSpec,
    b: &ParamBreakdown,
    setup: &TrainingSetup,
) -> Option<(&'static StackOps, MicroBatchHost)> {
    let stack = stack_of(m.model_type())?;
    if !counted(m, b, setup) {
        return None;
    }
    let c = match setup.recompute {
        Recompute::Full => stack.full_recompute,
        _ => stack.no_recompute,
    };
    let layers = m.transformer()?.total_layers() as f64;
    let adapters = (setup.task == TrainTask::Lora).then(|| adapters_per_layer(b, setup));
    let host = MicroBatchHost {
        ops: per_micro_batch(&c.ops, layers, adapters),
        launch: per_micro_batch(&c.launch, layers, adapters),
        outside_s: per_micro_batch(&c.outside_s, layers, adapters).max(0.0),
    };
    Some((stack, host))
}

/// DeepSpeed ZeRO-3's host work per micro-batch, where it was measured: DeepSpeed's engine
/// (`deepspeed = true`) at ZeRO stage 3 partitioning over `dp` ≥ 2 ranks (one rank takes
/// DeepSpeed's no-gather path, another code path), every linear trained, no or full (reentrant)
/// recompute; `None` elsewhere (LoRA under ZeRO-3: not measured, not charged). The collectives
/// count as launching ops.
pub fn zero3_hooks(
    stack: &StackOps,
    m: &ModelSpec,
    setup: &TrainingSetup,
    dp: u64,
) -> Option<MicroBatchHost> {
    let measured = setup.deepspeed && setup.parallel.zero == 3 && dp >= 2 && !setup.task.is_peft();
    let z = match setup.recompute {
        Recompute::Full => &stack.full_recompute.zero3,
        Recompute::None => &stack.no_recompute.zero3,
        _ => return None,
    };
    if !measured {
        return None;
    }
    let layers = m.transformer()?.total_layers() as f64;
    let total = |(per, fixed): (f64, f64)| fixed + layers * per;
    Some(MicroBatchHost {
        ops: total(z.ops) + total(z.collectives),
        launch: total(z.launch) + total(z.collectives),
        outside_s: total(z.outside_s).max(0.0),
    })
}

/// The host's seconds for one micro-batch: launching ops at `host_op_seconds`, the others at
/// `host_view_seconds`, and the time outside the ops.
pub fn micro_batch_seconds(h: &MicroBatchHost, tun: &Tunables) -> f64 {
    h.launch * tun.host_op_seconds + (h.ops - h.launch) * tun.host_view_seconds + h.outside_s
}

/// The host's side of a step of `micro_batches` micro-batches whose GPU time is `gpu_micro`
/// seconds each on `gpu`, ZeRO partitioned over `dp` ranks: `None` where the step is not a
/// counted eager loop, or not on CUDA (the per-op cost is a CUDA measurement; torch_npu's task
/// queue has its own, unpublished).
pub fn host_dispatch(
    m: &ModelSpec,
    b: &ParamBreakdown,
    (setup, gpu, dp): (&TrainingSetup, &GpuSpec, u64),
    tun: &Tunables,
    (micro_batches, gpu_micro): (f64, f64),
) -> Option<HostDispatch> {
    if gpu.vendor != "nvidia" {
        return None;
    }
    let (stack, h) = ops_per_micro_batch(m, b, setup)?;
    let z = zero3_hooks(stack, m, setup, dp);
    let zero3_s = z.as_ref().map(|z| micro_batch_seconds(z, tun));
    let host_micro = micro_batch_seconds(&h, tun) + zero3_s.unwrap_or(0.0);
    let (zo, zl, zs) = z.map_or((0.0, 0.0, 0.0), |z| (z.ops, z.launch, z.outside_s));
    Some(HostDispatch {
        stack: stack.name,
        ops_per_micro_batch: h.ops + zo,
        launch_ops_per_micro_batch: h.launch + zl,
        per_op_s: tun.host_op_seconds,
        per_view_s: tun.host_view_seconds,
        outside_s: h.outside_s + zs,
        zero3_s,
        host_s: Seconds(host_micro * micro_batches),
        exposed_s: Seconds((host_micro - gpu_micro).max(0.0) * micro_batches),
    })
}
