//! Step time of one optimizer step, phase by phase: compute (shape-aware, `crate::compute`), the
//! pipeline bubble, tensor-, context-, data-, pipeline- and expert-parallel communication (NCCL's
//! cost model, `crate::comm`), what overlap hides, and the totals (rates, MFU/HFU, bottleneck).
//! Sources per phase are in docs/methodology.md §Training time.

use super::{check_parallelism, flops_per_token, trainable_of, trainable_share, training_peak};
use crate::comm::{CollectiveUse, Group};
use crate::compute::memo::ComputeMemo;
use crate::compute::{ChipRates, ComputeParts};
use crate::constants::Tunables;
use crate::error::CoreError;
use crate::hardware::ClusterSpec;
use crate::layout::{self, DeviceParams, WeightSplit};
use crate::model::{param_breakdown_shared, ModelSpec, ParamBreakdown, TransformerSpec};
use crate::units::{compute_time, transfer_time, Bandwidth, Bytes, FlopRate, Flops, Seconds};
use crate::workload::{
    parse_release, Framework, MoeDispatcher, Parallelism, ParamSync, Recompute, TrainingSetup,
};
use serde::Serialize;

mod accumulate;
mod offload;
pub use offload::{HostStep, OffloadTime};

/// Time of one optimizer step and its parts.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct StepTime {
    /// Compute of all micro-batches plus the optimizer step, on the slowest device.
    pub compute: Seconds,
    /// One micro-batch's compute by kind of work (GEMMs, attention, element-wise); zero for
    /// models given by totals (CNNs, UNets), which keep the FLOPs ÷ (peak × efficiency) path.
    pub compute_parts: ComputeParts,
    /// The optimizer step, bandwidth-bound (included in `compute`), with DeepSpeed
    /// BF16_Optimizer's once-a-step gradient passes where `parallel.fp32_grad_pass` is on.
    pub optimizer: Seconds,
    /// DeepSpeed `BF16_Optimizer`'s fp32 gradient pass of one micro-batch on the slowest stage
    /// (`parallel.fp32_grad_pass`), included in `compute` and the bubble; absent when off.
    #[serde(skip_serializing_if = "is_zero_seconds")]
    pub fp32_grad_pass: Seconds,
    pub pipeline_bubble: Seconds,
    /// Tensor-parallel communication left exposed (after TP-comm overlap, when on).
    pub tp_comm: Seconds,
    /// Tensor-parallel communication hidden behind GEMMs (`tp_comm_overlap`).
    pub tp_comm_overlapped: Seconds,
    /// Context-parallel K/V exchange left after overlap with attention.
    pub cp_comm: Seconds,
    pub dp_comm_total: Seconds,
    /// Data-parallel communication left after overlap with backward.
    pub dp_comm_exposed: Seconds,
    /// Compute lost to the SMs the overlapped data-parallel collectives occupy (one NCCL CTA per
    /// channel: `train::contention`); part of `step`, not of `compute`.
    pub comm_contention: Seconds,
    pub pp_comm: Seconds,
    pub ep_comm: Seconds,
    /// Host offload's PCIe transfers (optimizer, parameter, activation offload), where any
    /// offload is on: `offload.exposed` is part of `step` (`train::step::offload`).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub offload: Option<OffloadTime>,
    /// The host's dispatch of an eager loop's ops, where it is modelled (`train::dispatch`):
    /// `exposed_s`, what the GPU waits for the host, is part of `step`.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub host_dispatch: Option<super::dispatch::HostDispatch>,
    pub step: Seconds,
    pub tokens_per_step: f64,
    pub tokens_per_second: f64,
    pub tokens_per_second_per_gpu: f64,
    /// Model FLOPs utilisation: model FLOPs/s ÷ (GPUs × peak).
    pub mfu: f64,
    /// Hardware FLOPs utilisation (counts recompute).
    pub hfu: f64,
    /// Achieved TFLOP/s per GPU counting model FLOPs (6·N per token + attention; no recompute).
    pub model_tflops_per_gpu: f64,
    /// Achieved TFLOP/s per GPU counting hardware FLOPs (with recompute).
    pub hardware_tflops_per_gpu: f64,
    /// Every collective family of the step: bytes, effective bandwidth, time and overlap.
    pub collectives: Vec<CollectiveUse>,
    pub efficiency_used: f64,
    /// The named constants whose product is `efficiency_used`.
    pub efficiency_name: String,
    pub peak: FlopRate,
    /// Slowest link the data-parallel ring crosses, one direction.
    pub dp_bandwidth: Bandwidth,
    pub dp_link: crate::i18n::Text,
    /// What dominates the step: compute, tp-communication, dp-communication, pipeline-bubble,
    /// host-offload, host-cpu (the host's dispatch of an eager loop, or its image decode).
    pub bottleneck: &'static str,
}

/// The optimizer step: every trainable parameter shard on the device read and written once
/// (`compute::optimizer_bytes_per_param`), bandwidth-bound; under DeepSpeed BF16_Optimizer
/// (`parallel.fp32_grad_pass`) with its once-a-step passes over the whole fp32 gradient
/// (`compute::bf16_optimizer_step_bytes`: the all-reduce's casts, the norm, the zeroing).
/// `on_device`: the most loaded device's parameters before ZeRO ([`super::params_on_device`]).
fn optimizer_seconds(
    b: &ParamBreakdown,
    setup: &TrainingSetup,
    (dp, on_device): (u64, f64),
    r: &ChipRates,
) -> Seconds {
    let trainable = trainable_of(b, setup, on_device);
    let shard = if setup.parallel.zero >= 1 {
        trainable / dp.max(1) as f64
    } else {
        trainable
    };
    let mut bytes = shard * crate::compute::optimizer_bytes_per_param(setup.optimizer);
    if setup.parallel.fp32_grad_pass {
        bytes += crate::compute::bf16_optimizer_step_bytes(trainable, shard, dp);
    }
    r.memory
        .map_or(Seconds(0.0), |bw| transfer_time(Bytes(bytes), bw))
}

/// Whose parameters a per-micro-batch gradient pass runs over (before ZeRO: every such pass
/// reads the device's whole gradient).
#[derive(Clone, Copy, Debug, PartialEq)]
enum GradParams {
    /// The most loaded device ([`Ctx::dev`]), as the optimizer step counts it.
    MostLoaded,
    /// A device of the pipeline stage whose micro-batch is the slowest
    /// ([`ComputeParts::slowest_stage`]), as the micro-batch's compute counts it.
    SlowestStage,
}

/// One element-wise pass after a micro-batch's backward that adds each trainable parameter's
/// 16-bit gradient into a 32-bit one, `per_param` bytes each at the chip's streaming bandwidth,
/// over the device `source` names: Megatron's unfused main-gradient add
/// ([`main_grad_add_seconds`]) and DeepSpeed BF16_Optimizer's fp32 gradient pass
/// ([`fp32_grad_pass_seconds`]). Zero on a chip without a memory bandwidth.
fn grad_add_seconds(
    x: &Ctx,
    parts: &ComputeParts,
    (source, per_param): (GradParams, f64),
    r: &ChipRates,
) -> Seconds {
    let on_device = match source {
        GradParams::MostLoaded => x.dev.total(),
        GradParams::SlowestStage => slowest_stage_params(x, parts),
    };
    let bytes = trainable_of(x.b, x.setup, on_device) * per_param;
    Seconds(r.memory.map_or(0.0, |bw| bytes / bw.0.max(1.0)))
}

/// Parameters held by a device of the slowest pipeline stage (before ZeRO): the base of the
/// per-micro-batch gradient passes ([`grad_add_seconds`], autograd's `.grad` add in
/// `accumulate.rs`).
fn slowest_stage_params(x: &Ctx, parts: &ComputeParts) -> f64 {
    let pp = x.p.pp.max(1);
    let stage = match parts.slowest_stage {
        Some(crate::pipeline::Stage::Middle) => 1.min(pp - 1),
        Some(crate::pipeline::Stage::Last) => pp - 1,
        _ => 0,
    };
    let split = WeightSplit::training(x.setup);
    layout::stage_params(x.b, &x.p, &split, x.dp, stage).total()
}

/// Megatron without gradient-accumulation fusion (`gradient_accumulation_fusion = false`,
/// `--no-gradient-accumulation-fusion`): after each micro-batch's backward, the DDP hook adds
/// every parameter's separate 16-bit weight gradient into the main-gradient buffer
/// (megatron/core/distributed/distributed_data_parallel.py @core_v0.6.0 `_make_param_hook`:
/// `param.main_grad.add_(param.grad.data)`; with the fusion, `LinearWithGradAccumulationAnd
/// AsyncCommunication.backward` has the weight-gradient GEMM accumulate into `main_grad`
/// itself through `fused_weight_gradient_mlp_cuda`). Per trainable parameter on the device and
/// micro-batch: the gradient read (activation width) and the main gradient read and written
/// (`main_grads` width), at memory bandwidth ([`grad_add_seconds`] over the most loaded device).
/// With the fusion nothing is charged (the embedding's and norms' own adds, which the hook makes
/// either way, are not counted), except on Ascend with 16-bit main gradients: MindSpeed stands
/// in for Megatron's `fused_weight_gradient_mlp_cuda.wgrad_gemm_accum_fp16` with
/// `npu_matmul_add_fp16` (mindspeed/features_manager/megatron_basic/requirements_basic.py
/// @028de58c l.79), which is no fused operator but `grad_weight = grad_output.t().matmul(
/// total_input)` then `grad.add_(grad_weight)` (mindspeed/ops/npu_matmul_add.py @028de58c
/// l.68-80; so since f10ab27a, 2024-11-14, which replaced a `RuntimeError`): the same add of a
/// 16-bit weight gradient into the main gradient. Its fp32 twin `npu_matmul_add_fp32` is a
/// fused matmul-add operator (ATB `MatmulAdd`), charged nothing.
fn main_grad_add_seconds(x: &Ctx, parts: &ComputeParts, r: &ChipRates) -> Seconds {
    let setup = x.setup;
    let main_grads = setup.main_grads.unwrap_or_default();
    let mindspeed_16 = x.c.gpu.vendor == "huawei" && main_grads == crate::workload::MainGrads::Bf16;
    let adds = !setup.megatron_fused_wgrad() || mindspeed_16;
    if setup.framework != crate::workload::Framework::Megatron || !adds {
        return Seconds(0.0);
    }
    let per_param = r.act_bytes.max(2.0) + 2.0 * main_grads.bytes();
    grad_add_seconds(x, parts, (GradParams::MostLoaded, per_param), r)
}

/// DeepSpeed ZeRO-3's all-gathers in one micro-batch on the slowest pipeline stage (ZeRO-3 run
/// by DeepSpeed: `framework = megatron`, Megatron-DeepSpeed, or `deepspeed` under the
/// `huggingface` profile; otherwise FSDP): tensor by tensor, with the reuse-distance and
/// persistence rules and full recompute's third forward ([`super::zero3::deepspeed_fetches`]);
/// the first layer group's linears stand for every layer and the embedding for the (tied) output
/// head, each as the device holds it ([`WeightSplit::linear`]: DeepSpeed partitions the TP
/// shard, and only the local experts).
fn deepspeed_fetches(b: &ParamBreakdown, setup: &TrainingSetup) -> Option<super::zero3::Fetches> {
    if !setup.zero3_by_deepspeed() {
        return None;
    }
    let g = b.groups.first().filter(|g| !g.linears.is_empty())?;
    let layers: u64 = b.groups.iter().map(|g| g.count).sum();
    let stage = crate::compute::layers_on_slowest_stage(layers, setup.parallel.pp);
    let split = WeightSplit::training(setup);
    let linears: Vec<f64> = g.linears.iter().map(|l| split.linear(l).params).collect();
    let head = b.embedding.max(b.lm_head) as f64 / split.tp as f64;
    let full = setup.recompute == Recompute::Full;
    Some(super::zero3::deepspeed_fetches(&linears, stage, head, full))
}

/// Ring latency of ZeRO-3's per-layer gathers and reduce-scatters in one micro-batch on the
/// slowest pipeline stage. FSDP (the `huggingface` framework) gathers one flat parameter per
/// layer for forward and backward and reduce-scatters it; Megatron-DeepSpeed gathers each weight
/// tensor as [`deepspeed_fetches`] counts and reduce-scatters each weight's gradient plus one
/// collective for a layer's small parameters.
fn zero3_latency(
    b: &ParamBreakdown,
    setup: &TrainingSetup,
    fetches: Option<&super::zero3::Fetches>,
    g: Group,
    tun: &Tunables,
) -> Seconds {
    let layers: u64 = b.groups.iter().map(|g| g.count).sum();
    let stage = crate::compute::layers_on_slowest_stage(layers, setup.parallel.pp);
    let n = match fetches {
        Some(f) => {
            let tensors = b.groups.first().map_or(1, |g| g.linears.len() as u64 + 1);
            f.gathers + (stage * tensors) as f64
        }
        None => crate::comm::zero3_collectives_per_micro(stage, 1),
    };
    crate::comm::nccl_latency(crate::comm::Collective::AllGather, g, tun).0 * n
}

/// How a framework fills its gradient buckets, walking the gradients in backward order (the
/// reverse of the parameters): a bucket of `cap` elements (the first one `first`) either closes
/// once it holds at least `cap` (`close_after`: PyTorch DDP's `compute_bucket_assignment_by_size`,
/// torch/csrc/distributed/c10d/reducer.cpp v2.5.0, first bucket `kDefaultFirstBucketBytes` =
/// 1 MiB and then `bucket_cap_mb` = 25 MiB, reducer.hpp L29-L42; Megatron-Core's
/// `_compute_default_per_buffer_param_layout`, megatron/core/distributed/param_and_grad_buffer.py
/// @d98e8a64 lines 980-992, `params[::-1]`, closing at `>= bucket_size`), or is flushed before a
/// tensor that would overflow it (DeepSpeed ZeRO-1/2 `reduce_independent_p_g_buckets_and_remove_grads`,
/// stage_1_and_2.py: `elements_in_ipg_bucket + param.numel() > reduce_bucket_size`; InternEvo
/// `_store_and_try_reduce_grads_by_bucket`, hybrid_zero_optim.py @fa7337b line 331).
#[derive(Clone, Copy, Debug, PartialEq)]
struct BucketRule {
    first: f64,
    cap: f64,
    close_after: bool,
}

/// The bucket rule of the workload: its `grad_bucket_elements` (InternEvo), else PyTorch DDP's
/// 1 MiB + 25 MiB (ZeRO-0 outside Megatron), DeepSpeed's reduce bucket (ZeRO-1/2),
/// Megatron-Core's max(40M, 1M·dp) parameters.
fn bucket_rule(setup: &TrainingSetup, dp: u64, tun: &Tunables) -> BucketRule {
    if let Some(e) = setup.parallel.grad_bucket_elements {
        let cap = e.get() as f64;
        return BucketRule {
            first: cap,
            cap,
            close_after: false,
        };
    }
    let (first, cap, close_after) = match (setup.framework, setup.parallel.zero) {
        (Framework::Megatron, _) => {
            let cap = (tun.megatron_bucket_min_mparams)
                .max(tun.megatron_bucket_mparams_per_rank * dp as f64)
                * 1e6;
            (cap, cap, true)
        }
        (_, 0) => {
            // DDP sizes its buckets in bytes of the reduced gradients' dtype.
            let bpe = reduced_grad_bytes(setup);
            (
                DDP_FIRST_BUCKET_BYTES / bpe,
                tun.dp_bucket_mib * 1_048_576.0 / bpe,
                true,
            )
        }
        _ => {
            let cap = tun.deepspeed_bucket_melements * 1e6;
            (cap, cap, false)
        }
    };
    BucketRule {
        first,
        cap,
        close_after,
    }
}

/// PyTorch DDP's first bucket, `kDefaultFirstBucketBytes = int(1024 * 1024)`
/// (torch/csrc/distributed/c10d/reducer.hpp v2.5.0 L29): the gradients produced first are
/// reduced early, in a small bucket, before the 25 MiB ones.
const DDP_FIRST_BUCKET_BYTES: f64 = 1_048_576.0;

/// Gradient buckets per step, each one collective (the rule's cap over the gradients).
fn dp_buckets(grad_params: f64, setup: &TrainingSetup, dp: u64, tun: &Tunables) -> f64 {
    let per_bucket = bucket_rule(setup, dp, tun).cap;
    (grad_params / per_bucket.max(1.0)).ceil().max(1.0)
}

fn ring_allreduce(bytes: f64, n: u64, bw: Bandwidth, eff: f64) -> Seconds {
    if n <= 1 {
        return Seconds(0.0);
    }
    let v = 2.0 * (n - 1) as f64 / n as f64 * bytes;
    transfer_time(Bytes(v), bw * eff)
}

/// Step time from a per-device roofline plus communication (see module docs).
pub fn training_step(
    m: &ModelSpec,
    setup: &TrainingSetup,
    c: &ClusterSpec,
    tun: &Tunables,
) -> Result<StepTime, CoreError> {
    tun.validate()?;
    training_step_validated(m, setup, c, tun)
}

/// [`training_step`] with tunables the caller has validated (the planner validates them once per
/// request instead of once per configuration).
pub fn training_step_validated(
    m: &ModelSpec,
    setup: &TrainingSetup,
    c: &ClusterSpec,
    tun: &Tunables,
) -> Result<StepTime, CoreError> {
    step_time(m, setup, c, tun, (true, None))
}

/// [`training_step_validated`] with the micro-batch compute taken from `memo` where it has
/// these inputs (the same numbers and words: `compute::memo`). For the planner's kept
/// configurations, explained in full.
pub fn training_step_validated_memo(
    m: &ModelSpec,
    setup: &TrainingSetup,
    (c, tun): (&ClusterSpec, &Tunables),
    memo: &ComputeMemo,
) -> Result<StepTime, CoreError> {
    step_time(m, setup, c, tun, (true, Some(memo)))
}

/// [`training_step_validated`] without the words: the same seconds, rates and bytes bit for bit
/// (tested: `lean_step_has_the_same_numbers` in tests/search_equivalence.rs), but the collectives'
/// and links' descriptions empty. For searches that compare step times and explain the
/// configuration they keep in full.
pub fn training_step_lean(
    m: &ModelSpec,
    setup: &TrainingSetup,
    c: &ClusterSpec,
    tun: &Tunables,
) -> Result<StepTime, CoreError> {
    step_time(m, setup, c, tun, (false, None))
}

/// [`training_step_lean`] with the micro-batch compute taken from `memo` where it has these
/// inputs (the same numbers: `compute::memo`). For the planner's time passes.
pub fn training_step_lean_memo(
    m: &ModelSpec,
    setup: &TrainingSetup,
    c: &ClusterSpec,
    tun: &Tunables,
    memo: &ComputeMemo,
) -> Result<StepTime, CoreError> {
    step_time(m, setup, c, tun, (false, Some(memo)))
}

/// What every phase of the step reads: the job, the cluster, and the shapes derived once.
struct Ctx<'a> {
    m: &'a ModelSpec,
    setup: &'a TrainingSetup,
    c: &'a ClusterSpec,
    tun: &'a Tunables,
    explain: bool,
    /// Micro-batch compute already computed for this model (the planner's), if any.
    memo: Option<&'a ComputeMemo<'a>>,
    b: &'a ParamBreakdown,
    p: Parallelism,
    /// Data-parallel size.
    dp: u64,
    /// The most loaded device's parameters before ZeRO (over `dp`): what the optimizer step
    /// and the DP traffic both read, computed once.
    dev: DeviceParams,
    /// Micro-batches per step (gradient accumulation).
    m_micro: f64,
    tokens_per_micro: f64,
    /// A micro-batch's tokens on one context-parallel rank.
    local_tokens: f64,
    /// Layers of the slowest pipeline stage.
    stage_max: f64,
    intra: Bandwidth,
    /// NCCL's achieved fraction of a link's bandwidth.
    eff_net: f64,
}

impl<'a> Ctx<'a> {
    /// The context of one step: its model, setup, cluster and tunables, its words, the
    /// parameter breakdown, and its data-parallel size and most loaded device.
    fn new(
        (m, setup, c, tun): (
            &'a ModelSpec,
            &'a TrainingSetup,
            &'a ClusterSpec,
            &'a Tunables,
        ),
        (explain, memo): (bool, Option<&'a ComputeMemo<'a>>),
        b: &'a ParamBreakdown,
        (dp, dev): (u64, DeviceParams),
    ) -> Self {
        let p = setup.parallel;
        let tokens_per_micro = match m.transformer() {
            Some(_) => (setup.micro_batch * setup.seq_len) as f64,
            None => setup.micro_batch as f64,
        };
        let stage_max = match m.transformer() {
            Some(t) => crate::pipeline::StageLayers::of(t.total_layers(), &p).most() as f64,
            None => 0.0,
        };
        Ctx {
            m,
            setup,
            c,
            tun,
            explain,
            memo,
            b,
            p,
            dp,
            dev,
            m_micro: setup.grad_accum as f64,
            tokens_per_micro,
            local_tokens: tokens_per_micro / p.cp.max(1) as f64,
            stage_max,
            intra: c.intra_bandwidth,
            eff_net: tun.collective_efficiency,
        }
    }

    /// `ranks` devices `stride` apart (TP ranks are adjacent; DP ranks tp·pp·cp apart).
    fn group(&self, ranks: u64, stride: u64) -> Group {
        let c = self.c;
        let intra = if c.gpu.intra_link.is_nvlink_class()
            || c.gpu.intra_link == crate::hardware::IntraLink::InfinityFabric
        {
            crate::comm::IntraClass::NvLink
        } else {
            crate::comm::IntraClass::Pcie
        };
        let per_node = (c.gpus_per_node / stride.max(1)).max(1);
        Group {
            ranks,
            nodes: ranks.div_ceil(per_node).max(1),
            intra,
            nccl: self.setup.nccl_version.as_deref().and_then(parse_release),
        }
    }

    fn transformer(&self) -> Option<&TransformerSpec> {
        self.m.transformer()
    }
}

/// What [`compute_phase`] gives: all micro-batches plus the optimizer step, one micro-batch's
/// parts, the optimizer step alone and BF16_Optimizer's fp32 gradient pass of one micro-batch
/// (in `total`; zero when off, and for models given by totals).
#[derive(Clone, Copy, Debug, PartialEq)]
struct ComputeDone {
    total: Seconds,
    parts: ComputeParts,
    optimizer: Seconds,
    grad_pass: Seconds,
}

/// Compute of all micro-batches plus the optimizer step, its per-micro-batch parts, and the
/// optimizer step alone. Transformers: shape-aware (`compute::micro_batch_compute`); models given
/// by totals: FLOPs ÷ (peak × efficiency) over the tp × pp devices.
fn compute_phase(x: &Ctx, hardware_flops: Flops, peak: FlopRate, eff: f64) -> ComputeDone {
    match x.transformer() {
        Some(t) => {
            let r = crate::compute::chip_rates(&x.c.gpu, x.setup, peak, eff, x.tun);
            let mut parts = match x.memo {
                Some(memo) => memo.get(x.b, t, x.setup, &r),
                None => crate::compute::micro_batch_compute(x.b, t, x.setup, &r),
            };
            parts.elementwise_s += main_grad_add_seconds(x, &parts, &r).0;
            parts.elementwise_s += accumulate::autograd_accumulate_seconds(x, &parts, &r);
            let optimizer = optimizer_seconds(x.b, x.setup, (x.dp, x.dev.total()), &r);
            let grad_pass = fp32_grad_pass_seconds(x, &parts, &r);
            ComputeDone {
                total: Seconds((parts.total() + grad_pass.0) * x.m_micro) + optimizer,
                parts,
                optimizer,
                grad_pass,
            }
        }
        None => {
            let mp = (x.p.tp * x.p.pp) as f64;
            let flops = Flops(hardware_flops.0 * x.tokens_per_micro * x.m_micro / mp);
            ComputeDone {
                total: compute_time(flops, peak * eff),
                parts: ComputeParts::default(),
                optimizer: Seconds(0.0),
                grad_pass: Seconds(0.0),
            }
        }
    }
}

/// DeepSpeed `BF16_Optimizer`'s fp32 gradient pass after each micro-batch's backward
/// (`parallel.fp32_grad_pass`) on a device of the slowest pipeline stage: every trainable
/// parameter the device holds, [`crate::compute::FP32_GRAD_PASS_BYTES`] each, at the chip's
/// streaming bandwidth ([`grad_add_seconds`] over the slowest stage). It runs on the compute
/// stream before the stage hands its input gradient on (`PipelineEngine._exec_backward_pass`),
/// so it lengthens every micro-batch the pipeline runs, the bubble's included. Zero when off.
fn fp32_grad_pass_seconds(x: &Ctx, parts: &ComputeParts, r: &ChipRates) -> Seconds {
    if !x.p.fp32_grad_pass {
        return Seconds(0.0);
    }
    let per_param = crate::compute::FP32_GRAD_PASS_BYTES;
    grad_add_seconds(x, parts, (GradParams::SlowestStage, per_param), r)
}

fn is_zero_seconds(s: &Seconds) -> bool {
    s.0 == 0.0
}

/// Interleaved 1F1B (v virtual stages per device) shrinks the bubble to (p−1)/(v·m)
/// (Narayanan et al. 2021 §2.2.2); v = 1 is plain 1F1B.
fn pipeline_bubble(x: &Ctx, compute: Seconds, optimizer: Seconds) -> Seconds {
    let v = x.p.virtual_stages.max(1) as f64;
    let bubble_frac = (x.p.pp as f64 - 1.0) / (v * x.m_micro);
    (compute - optimizer) * bubble_frac
}

/// TP: 2 all-reduces of b·s·h per layer in each forward pass (1 for GPT-NeoX's parallel block:
/// [`tp_forward_reduces`]; recompute repeats them: [`tp_forward_passes`]) and 2 in backward (Megatron; SP's all-gather + reduce-scatter moves the same bytes; 3 under
/// Megatron's SP, whose backward all-gathers the column-parallel inputs again), 2-byte
/// activations, each paying NCCL's latency over the TP ranks. With TP-comm overlap
/// (Megatron-Core --tp-comm-overlap, torchtitan async TP) it hides behind the GEMMs.
/// A layer reduces the activations of the positions it runs: an encoder-decoder's encoder layers
/// those of the encoder (Whisper: 1500 per sample whatever the decoder's `seq_len`), so the
/// stage's average layer is [`TransformerSpec::mean_layer_len`] of the decoder's tokens, as the
/// compute phase counts it (bandwidth time is linear in the bytes: exact in sum at PP 1).
/// Under Megatron's sequence parallelism the backward all-gathers each column-parallel input
/// again ([`tp_backward_regathers`]) and, without TP-comm overlap, hides its async collectives
/// behind their GEMMs ([`tp_async_hidden`]), at the compute those NCCL kernels take
/// ([`tp_contention`]). Returns (total, hidden, contention).
fn tp_phase(
    x: &Ctx,
    parts: &ComputeParts,
    collectives: &mut Vec<CollectiveUse>,
) -> (Seconds, Seconds, Seconds) {
    let (p, tun, explain) = (x.p, x.tun, x.explain);
    let Some(t) = x.transformer().filter(|_| p.tp > 1) else {
        return (Seconds(0.0), Seconds(0.0), Seconds(0.0));
    };
    let fwd_passes = tp_forward_passes(x.setup.recompute, p.sequence_parallel);
    let bytes = x.local_tokens * t.mean_layer_len(x.setup.seq_len) * t.hidden as f64 * 2.0;
    let (lat, algo) = tp_pair_latency(x.group(p.tp, 1), p.sequence_parallel, tun);
    let per = ring_allreduce(bytes, p.tp, x.intra, x.eff_net) + lat;
    let fwd = tp_forward_reduces(x.setup.framework, t, p.sequence_parallel);
    let regathers = tp_backward_regathers(x.setup.framework, p.sequence_parallel);
    let bwd = 2.0 + 0.5 * regathers;
    let count = (fwd * fwd_passes + bwd) * x.stage_max * x.m_micro * tp_block_share(x, t);
    let total = per * count;
    let (hidden, contention) = if p.tp_overlap() {
        let share = tp_overlap_share(x.setup.framework, fwd_passes, tun.tp_overlap_fraction);
        let passes = (fwd_passes, regathers);
        let paired = tp_paired_hidden(x, t, parts, per * 0.5 * share, passes);
        let gemm = Seconds(parts.gemm_s * x.m_micro);
        ((total * share).min(paired).min(gemm), Seconds(0.0))
    } else {
        let hidden = tp_async_hidden(x, t, parts, per).min(total);
        (hidden, tp_contention(x, hidden))
    };
    collectives.push(CollectiveUse {
        kind: "tp",
        collective: if p.sequence_parallel {
            why_msg!(explain, crate::i18n::Msg::new("step-tp-collective-sp"))
        } else {
            why_msg!(
                explain,
                crate::i18n::Msg::new("step-tp-collective").arg("algo", algo)
            )
        },
        link: why_msg!(
            explain,
            crate::i18n::Msg::new("step-link-inside").arg("link", x.c.gpu.intra_link.name())
        ),
        effective_bandwidth: x.intra * x.eff_net,
        bytes_per_step: Bytes(
            crate::comm::ring_volume(crate::comm::Collective::AllReduce, bytes, p.tp) * count,
        ),
        total,
        overlapped: hidden,
    });
    (total, hidden, contention)
}

/// The most TP-comm overlap hides in a step: each collective of a layer runs beside one GEMM
/// ([`crate::compute::TpPair`]), so it hides at most that GEMM's time. Ascend MC2 (ModelLink
/// @ba10f5fd modellink/core/tensor_parallel/ascend_turbo/mc2_linears_seq_parallel.py: the
/// forward all-gather fused with the column-parallel matmul, `npu_all_gather_base_mm`, and the
/// reduce-scatter with the row-parallel one, `npu_mm_reduce_scatter_base`; backward the
/// row-parallel output gradient's all-gather fused with its input-gradient matmul, the
/// column-parallel input-gradient reduce-scatter launched async beside the weight-gradient
/// matmul) and Transformer Engine's userbuffers (ring-exchange and pipelined overlaps inside the
/// GEMM they feed, bulk overlaps beside the dgrad/wgrad GEMM of the same linear) pair them alike.
/// `hidable` is one collective's hidable seconds (its time × the overlap share); per pass and
/// layer each pair hides min(hidable, its forward GEMM time) — a weight- or input-gradient GEMM
/// has the forward's shape. The backward's re-gathers of the column-parallel inputs
/// ([`tp_backward_regathers`]: MC2's async all-gather, TE's `bulk` qkv/fc1 dgrad overlap) each
/// hide behind that linear's input-gradient GEMM, while its reduce-scatter takes the weight
/// gradient's. Under the `allgather` MoE dispatcher the MoE layers' MLP pairs are
/// the dispatcher's ([`tp_block_share`]).
fn tp_paired_hidden(
    x: &Ctx,
    t: &TransformerSpec,
    parts: &ComputeParts,
    hidable: Seconds,
    (fwd_passes, regathers): (f64, f64),
) -> Seconds {
    let mlp_keep = tp_mlp_keep(x, t);
    let g = &parts.tp_pair_gemm_s;
    let layer = paired_hidden_per_pass(g, hidable.0, mlp_keep) * (fwd_passes + 1.0)
        + 0.5 * regathers * paired_inputs(g, hidable.0, mlp_keep);
    Seconds(layer * x.stage_max * x.m_micro)
}

/// The MLP pair's share of the layers ([`tp_block_share`]: under the `allgather` MoE
/// dispatcher the MoE layers' MLP collectives are the dispatcher's).
fn tp_mlp_keep(x: &Ctx, t: &TransformerSpec) -> f64 {
    (2.0 * tp_block_share(x, t) - 1.0).clamp(0.0, 1.0)
}

/// One layer's seconds hidden by the column-parallel input pairs (q/k/v and the MLP's input)
/// when each hides one collective of `hidable` seconds behind a GEMM of its forward's shape.
fn paired_inputs(g: &[f64; 4], hidable: f64, mlp_keep: f64) -> f64 {
    let pair = |s: f64| hidable.min(s).max(0.0);
    pair(g[0]) + mlp_keep * pair(g[2])
}

/// Column-parallel inputs a layer's backward all-gathers again under sequence parallelism (the
/// forward saved each shard, not the gathered input its weight gradient needs): 2 (q/k/v and
/// the MLP's input) under Megatron (`LinearWithGradAccumulationAndAsyncCommunication.backward`,
/// megatron/core/tensor_parallel/layers.py @core_r0.8.0 lines 442-452; Transformer Engine's
/// `_LayerNormLinear.backward` v1.8 @3ec998e9 layernorm_linear.py line 444, `_Linear` alike;
/// Ascend MC2 ModelLink @ba10f5fd mc2_linears_seq_parallel.py lines 69-80), 0 for torch's
/// DTensor sequence parallelism (torchtitan: autograd saves the gathered input of the `mm`;
/// a selective recompute's re-gather is [`tp_forward_passes`]'s) and without it.
pub(crate) fn tp_backward_regathers(framework: Framework, sequence_parallel: bool) -> f64 {
    if framework == Framework::Megatron && sequence_parallel {
        2.0
    } else {
        0.0
    }
}

/// TP seconds Megatron hides without TP-comm overlap: a column-parallel linear's backward
/// launches the all-gather of its saved input shard (async) before its input-gradient GEMM and
/// the reduce-scatter of that gradient (async) before its weight-gradient GEMM
/// (megatron/core/tensor_parallel/layers.py @core_r0.8.0 lines 450-489: "we rely on
/// CUDA_DEVICE_MAX_CONNECTIONS=1 to ensure that the gather is scheduled before the input
/// gradient computation", which megatron/training/arguments.py lines 476-480 require under
/// sequence parallelism; TE v1.8 layernorm_linear.py lines 437-568 and ModelLink's MC2 alike),
/// so each hides at most behind that GEMM (a GEMM of the forward's shape). The row-parallel
/// linears' output-gradient all-gathers and every forward collective run on the compute
/// stream's order: exposed. Zero for the other frameworks (DTensor's collectives are waited
/// where their output is used).
fn tp_async_hidden(x: &Ctx, t: &TransformerSpec, parts: &ComputeParts, per: Seconds) -> Seconds {
    if x.setup.framework != Framework::Megatron || !x.p.sequence_parallel {
        return Seconds(0.0);
    }
    // The all-gather beside the dgrad GEMM and the reduce-scatter beside the wgrad GEMM: one
    // collective (half an all-reduce unit) each, per column-parallel input and layer.
    let one = 2.0 * paired_inputs(&parts.tp_pair_gemm_s, per.0 * 0.5, tp_mlp_keep(x, t));
    Seconds(one * x.stage_max * x.m_micro)
}

/// Compute the async TP collectives take from the GEMMs they run beside: plain NCCL kernels
/// (not userbuffers' own SMs), so [`super::contention`]'s rule as for the data-parallel ones:
/// their hidden time × NCCL's CTAs over the TP group ÷ the chip's SMs. Zero under TP-comm
/// overlap and without SMs on record.
fn tp_contention(x: &Ctx, async_hidden: Seconds) -> Seconds {
    if async_hidden.0 <= 0.0 {
        return Seconds(0.0);
    }
    nccl_lost_compute(x, x.group(x.p.tp, 1), async_hidden)
}

/// One layer's and pass's TP seconds hidden by pair: min(`hidable`, the pair's forward GEMM
/// seconds `g`) for the attention's two pairs, and for the MLP's two the share `mlp_keep` of the
/// layers whose MLP pair is a TP pair.
fn paired_hidden_per_pass(g: &[f64; 4], hidable: f64, mlp_keep: f64) -> f64 {
    let pair = |s: f64| hidable.min(s).max(0.0);
    pair(g[0]) + pair(g[1]) + mlp_keep * (pair(g[2]) + pair(g[3]))
}

/// Share of the layers' TP collectives (attention block and MLP block, one pair each) that run
/// as TP collectives: all of them, but under Megatron-Core's `allgather` MoE dispatcher the MoE
/// layers' MLP pair is part of the dispatcher's TP × EP all-gather and reduce-scatter
/// ([`allgather_phase`]; the experts' linears skip their own TP communication,
/// `explicit_expert_comm` in tensor_parallel/layers.py @core_r0.6.0), so half of each MoE layer's
/// pairs leave the TP phase.
fn tp_block_share(x: &Ctx, t: &TransformerSpec) -> f64 {
    match t.moe.filter(|_| x.p.moe_dispatcher.gathers() && x.p.ep > 1) {
        Some(moe) if t.layers > 0 => {
            let moe_layers = t.layers.saturating_sub(moe.dense_layers) as f64;
            1.0 - 0.5 * moe_layers / t.layers as f64
        }
        _ => 1.0,
    }
}

/// NCCL's latency of one TP all-reduce, or under sequence parallelism of the all-gather and
/// reduce-scatter that replace it (Megatron's `gather_from_sequence_parallel_region` /
/// `reduce_scatter_to_sequence_parallel_region`): two collectives, each paying its own ring
/// latency, p − 1 steps and the base (tuning.cc @v2.14.3-1 lines 115-123), so one base latency
/// more than the all-reduce. Returns the latency and the algorithm (ring or tree).
fn tp_pair_latency(g: Group, sequence_parallel: bool, tun: &Tunables) -> (Seconds, &'static str) {
    use crate::comm::{nccl_latency, Collective};
    if sequence_parallel {
        let ag = nccl_latency(Collective::AllGather, g, tun).0;
        let rs = nccl_latency(Collective::ReduceScatter, g, tun).0;
        (ag + rs, "ring")
    } else {
        // "tree" or "ring": the TP group has more than one rank (tp_phase returns before).
        nccl_latency(Collective::AllReduce, g, tun)
    }
}

/// TP all-reduces in a layer's forward pass: 2 (Megatron: after the row-parallel attention output
/// and MLP output), or 1 for GPT-NeoX's parallel block trained with the GPT-NeoX library
/// (framework `megatron`, its Megatron derivative; no sequence parallelism): with
/// `gpt_j_residual` the attention and MLP output layers are built with `parallel_output=True` and
/// `output = residual + self.reduce(output)` reduces their sum once ("we can do a single
/// allreduce after we add mlp / attn outputs", megatron/model/transformer.py
/// `ParallelTransformerLayer`, EleutherAI/gpt-neox). The backward keeps its 2: each
/// column-parallel input (attention's and the MLP's, from their own layernorms) all-reduces its
/// gradient (`copy_to_model_parallel_region`).
pub(crate) fn tp_forward_reduces(
    framework: Framework,
    t: &crate::model::TransformerSpec,
    sequence_parallel: bool,
) -> f64 {
    let neox = t.parallel_block == crate::model::ParallelBlock::NeoX;
    if framework == Framework::Megatron && neox && !sequence_parallel {
        1.0
    } else {
        2.0
    }
}

/// Forward passes of a layer's TP collectives, in units of the forward's 2 all-reduces (4
/// all-gather/reduce-scatter units with sequence parallelism): 1, plus what the backward's
/// recompute repeats. Full recompute repeats the whole forward. torchtitan's per-op SAC
/// ([`Recompute::SelectiveOp`]) saves the outputs of the ops in `_save_list` — every other `mm`,
/// SDPA and `_c10d_functional.reduce_scatter_tensor` — and marks every other op
/// `PREFER_RECOMPUTE` (torchtitan/models/llama3/parallelize_llama.py @820504e lines 218-268), which
/// torch.compile's partitioner treats as must-recompute (torch/_functorch/partitioners.py
/// `must_recompute` returns true for MUST_RECOMPUTE and PREFER_RECOMPUTE, pytorch @c28ba8e5);
/// eager SAC re-runs them alike. So with sequence parallelism the two all-gathers in front of
/// the column-parallel q/k/v and w1/w3 run again in backward (their outputs, s·h wide, are not
/// saved; the wgrad of those linears needs them) while the two reduce-scatters after wo and w2
/// do not: half a forward pass. Without sequence parallelism the all-reduces are not in the
/// list and the even-numbered wo that feeds one is recomputed: a whole pass.
pub(crate) fn tp_forward_passes(recompute: Recompute, sequence_parallel: bool) -> f64 {
    match recompute {
        Recompute::Full => 2.0,
        Recompute::SelectiveOp if sequence_parallel => 1.5,
        Recompute::SelectiveOp => 2.0,
        _ => 1.0,
    }
}

/// Chunks Transformer Engine's `pipeline` overlap splits a GEMM into (`num_splits`, default 4 for
/// that method: TE v1.8 transformer_engine/pytorch/module/base.py `initialize_ub`, lines 231 and
/// 260); the reduce-scatter of the last chunk has no GEMM left to hide behind.
const TE_UB_PIPELINE_SPLITS: f64 = 4.0;

/// Share of the TP traffic that TP-comm overlap hides (before the cap at the GEMM time).
///
/// Megatron-Core's `--tp-comm-overlap` (NeMo's `tp_comm_overlap`; Megatron requires sequence
/// parallelism for it) is Transformer Engine's userbuffers overlap, whose default methods (TE
/// v1.8 @3ec998e9 base.py lines 99-102, the same in v1.7; NeMo 24.07 ships TE 1.8.0.dev0) are `ring_exchange` for the all-gathers
/// before qkv/fc1 in forward and for proj/fc2 dgrad (each GEMM chunk runs while the next
/// rank's chunk arrives), `bulk` for qkv/fc1 dgrad and wgrad (the collective runs beside a whole
/// other GEMM), and `pipeline` only for the reduce-scatters after proj and fc2 in forward: the
/// GEMM is cut into [`TE_UB_PIPELINE_SPLITS`] chunks, each chunk's reduce-scatter overlapping
/// the next chunk's GEMM, so the last chunk's (1/4 of it) stays exposed. Counted in the
/// all-gather/reduce-scatter units of [`tp_phase`] (4 per layer and pass: 2 all-reduces):
/// each forward pass exposes 2 × 1/4 of a unit, backward none. Torch's async TP (torchtitan)
/// keeps the calibrated `tp_overlap_fraction`. Not modelled: the SMs the pipelined
/// reduce-scatter takes from the concurrent GEMM (16 by default). Megatron's backward runs 6
/// collectives a layer ([`tp_backward_regathers`]), all hidden.
pub(crate) fn tp_overlap_share(framework: Framework, fwd_passes: f64, async_tp: f64) -> f64 {
    match framework {
        Framework::Megatron => {
            let exposed = fwd_passes * 2.0 / TE_UB_PIPELINE_SPLITS;
            let backward = 4.0 + tp_backward_regathers(framework, true);
            1.0 - exposed / (4.0 * fwd_passes + backward)
        }
        Framework::HuggingFace | Framework::LitGpt => async_tp,
    }
}

/// Context-parallel rings that share one node's NICs, `None` while a ring's TP × CP ranks fit in
/// a node (NVLink). A node holds cp_in_node = min(cp, gpus_per_node / tp) ranks of each ring (CP
/// ranks are TP ranks apart), so gpus_per_node / cp_in_node rings cross its boundary at once
/// (torchtitan's 405B TP 8 × CP 8: eight rings, one NIC each).
fn cp_rings_per_node(tp: u64, cp: u64, gpus_per_node: u64) -> Option<u64> {
    let gpn = gpus_per_node.max(1);
    if tp.max(1) * cp.max(1) <= gpn {
        return None;
    }
    let cp_in_node = cp.max(1).min((gpn / tp.max(1)).max(1));
    Some((gpn / cp_in_node).max(1))
}

/// The link one context-parallel ring gets, and whether it crosses nodes.
fn cp_link(x: &Ctx) -> (Bandwidth, bool) {
    match cp_rings_per_node(x.p.tp, x.p.cp, x.c.gpus_per_node) {
        None => (x.intra, false),
        Some(rings) => (x.c.inter_bandwidth.min(x.intra) / rings as f64, true),
    }
}

/// CP (ring attention), exposed time. torch's `context_parallel` (every framework but Megatron):
/// per round, [`crate::ring::Ring::exposed_comm_seconds`] — the K/V all-gather hidden behind
/// round 0 only and fp32 dK/dV sends behind the next backward round, or nothing hidden when
/// torch.compile traces the ring. Megatron (Transformer Engine's P2P ring): per layer and pass,
/// cp − 1 K/V chunks of b·(s/cp)·2·kv_width/tp travel around the ring (backward also returns
/// dK/dV: twice), each overlapped with the attention block it feeds.
fn cp_phase(x: &Ctx, parts: &ComputeParts, collectives: &mut Vec<CollectiveUse>) -> Seconds {
    let (p, c, explain) = (x.p, x.c, x.explain);
    let cp = p.cp.max(1);
    let Some(t) = x.transformer().filter(|_| cp > 1) else {
        return Seconds(0.0);
    };
    let (link, crosses_nodes) = cp_link(x);
    let bw = link * x.eff_net;
    let layers = x.stage_max * x.m_micro;
    let (bytes, total, hidden) = match crate::compute::torch_ring(t, x.setup, p.tp) {
        Some(ring) => {
            let bytes = ring.transfer_bytes() * layers;
            let total = transfer_time(Bytes(bytes), bw);
            let exposed = ring.exposed_comm_seconds(bw.0, parts.attention_fwd_layer_s) * layers;
            (bytes, total, total - Seconds(exposed.min(total.0)))
        }
        None => {
            let chunk = x.local_tokens * 2.0 * t.kv_width() as f64 / p.tp as f64 * 2.0;
            let attn_passes = crate::compute::attention_forward_passes(x.setup.recompute);
            let bytes = chunk * (cp - 1) as f64 * (attn_passes + 2.0) * layers;
            let total = transfer_time(Bytes(bytes), bw);
            let hidden = total.min(Seconds(parts.attention_s * x.m_micro));
            (bytes, total, hidden)
        }
    };
    collectives.push(CollectiveUse {
        kind: "cp",
        collective: why_msg!(explain, crate::i18n::Msg::new("step-cp-collective")),
        link: if crosses_nodes {
            why_msg!(
                explain,
                crate::i18n::Msg::new("step-link-between").arg("link", c.inter_link.name())
            )
        } else {
            why_msg!(
                explain,
                crate::i18n::Msg::new("step-link-inside").arg("link", c.gpu.intra_link.name())
            )
        },
        effective_bandwidth: bw,
        bytes_per_step: Bytes(bytes),
        total,
        overlapped: hidden,
    });
    total - hidden
}

/// The data-parallel ring's path: the slowest link it crosses (NIC between nodes, else the
/// intra-node link), its words, and the bandwidth one ring gets. Hierarchical path: inside a
/// node the ring runs over NVLink/PCIe; across nodes every GPU of a node runs its own ring over
/// the node's shared NICs, so the node boundary carries k rings, k = model-parallel ranks per
/// node.
fn dp_path(x: &Ctx, dpc: u64) -> (Bandwidth, crate::i18n::Text) {
    let (p, c, explain, intra) = (x.p, x.c, x.explain, x.intra);
    let cp = p.cp.max(1);
    let spans_nodes = p.tp * p.pp * dpc > c.gpus_per_node;
    // The node's NICs carry one ring per model-parallel rank on the node; the ring runs at the
    // slower of that share and the intra-node link (a node whose NICs outrun its NVLink per ring
    // is bound by the NVLink; one whose NICs equal it, by the NICs).
    let share = (p.tp * p.pp * cp).min(c.gpus_per_node).max(1) as f64;
    let nic = c.inter_bandwidth / share;
    if dpc > 1 && spans_nodes && nic.0 <= intra.0 {
        let inter = c.inter_bandwidth;
        let words = why_msg!(
            explain,
            crate::i18n::Msg::new("step-dp-link-between")
                .arg("link", c.inter_link.name())
                .arg("bw", inter.to_string())
        );
        (nic, words)
    } else {
        let words = why_msg!(
            explain,
            crate::i18n::Msg::new("step-dp-link-inside")
                .arg("link", c.gpu.intra_link.name())
                .arg("bw", intra.to_string())
        );
        (intra, words)
    }
}

/// The data-parallel traffic of the device: its dense parameters over the DP × CP ranks and its
/// experts over expert-DP, with the trainable share (LoRA adapters are spread like the weights
/// they adapt).
struct DpVolume {
    dev: DeviceParams,
    dpc: u64,
    train_frac: f64,
    /// Bytes per reduced gradient ([`reduced_grad_bytes`]).
    grad_bpp: f64,
}

impl DpVolume {
    /// Ring volume (d−1)/d × bytes, dense parameters over DP and experts over expert-DP.
    fn over_groups(&self, bytes_per_param: f64) -> f64 {
        let ring = |d: u64| {
            if d > 1 {
                (d - 1) as f64 / d as f64
            } else {
                0.0
            }
        };
        bytes_per_param
            * (self.dev.dense * ring(self.dpc) + self.dev.expert * ring(self.dev.expert_group))
    }

    fn grad_volume(&self) -> f64 {
        self.over_groups(self.grad_bpp * self.train_frac)
    }
    /// The 16-bit parameters ZeRO-1/2 all-gather after the step.
    fn param_volume(&self) -> f64 {
        self.over_groups(2.0 * self.train_frac)
    }
    /// The same parameters broadcast shard by shard: a ring broadcast carries its whole message
    /// over every link of the chain (NCCL's bus bandwidth equals its algorithm bandwidth for a
    /// broadcast), so the group's parameters cross each link once, not (d−1)/d of them.
    fn broadcast_volume(&self) -> f64 {
        let whole = |d: u64| if d > 1 { 1.0 } else { 0.0 };
        2.0 * self.train_frac
            * (self.dev.dense * whole(self.dpc) + self.dev.expert * whole(self.dev.expert_group))
    }
}

/// Parameter tensors of the model as gpuplan counts them: each layer's linear weights and two
/// norms (when the layer has small parameters), the embedding, stem, final norm and head. For a
/// Llama-type layer that is 7 + 2 = 9, as many as InternLM's layer holds (Wqkv weight and bias,
/// out_proj weight and bias, w1/w2/w3, norm1, norm2: internlm/model/modeling_internlm.py and
/// multi_head_attention.py @77766933).
fn param_tensors(b: &ParamBreakdown) -> u64 {
    let layers: u64 = b
        .groups
        .iter()
        .map(|g| g.count * (g.linears.len() as u64 + if g.small_params > 0 { 2 } else { 0 }))
        .sum();
    let one = |n: u64| u64::from(n > 0);
    layers + one(b.embedding) + one(b.stem) + one(b.final_norms) + one(b.lm_head)
}

/// InternEvo's parameter hand-back after the step (`zero1_broadcast = "per_rank"`): its
/// HybridZeroOptimizer gives whole tensors to the zero1 ranks (`_partition_param_list`: largest
/// first, each to the least-loaded rank, so a rank owns at least one tensor while tensors last),
/// and `broadcast_params` issues one async `dist.broadcast` per rank that owns parameters, all on
/// the group's one communicator — NCCL runs them one after another — and waits for them all
/// before the step ends (internlm/solver/optimizer/hybrid_zero_optim.py @77766933 lines
/// 803-830, the same at @c628a8c8 line 809). Each broadcast pays the ring chain's latency over
/// the whole group ([`crate::comm::broadcast_chain_latency`]). Returns the broadcasts and their
/// latency; none for the all-gather.
fn per_rank_broadcasts(x: &Ctx, group: Group) -> (u64, Seconds) {
    let p = x.p;
    if p.zero1_broadcast != ParamSync::PerRank || group.ranks <= 1 || !(1..=2).contains(&p.zero) {
        return (0, Seconds(0.0));
    }
    let n = group.ranks.min(param_tensors(x.b));
    (
        n,
        crate::comm::broadcast_chain_latency(group, x.tun) * n as f64,
    )
}

/// Ring passes of one step's DDP / ZeRO-1/2 traffic: (gradient, parameter). Gradients: a
/// reduce-scatter (ZeRO-1/2) or an all-reduce (DDP; a sharded optimizer that all-reduces,
/// `grad_all_reduce`) — twice the ring volume; parameters: ZeRO-1/2's all-gather.
fn dp_passes(p: &Parallelism) -> (f64, f64) {
    let grad = if p.zero >= 1 && !p.grad_all_reduce {
        1.0
    } else {
        2.0
    };
    (grad, if p.zero >= 1 { 1.0 } else { 0.0 })
}

/// Bytes per device of one step's DDP / ZeRO-1/2 traffic: (gradients, parameters), the
/// parameters broadcast whole where InternEvo hands them back rank by rank.
fn dp_volumes(p: &Parallelism, vol: &DpVolume) -> (f64, f64) {
    let (grad_passes, param_passes) = dp_passes(p);
    let params = if p.zero1_broadcast == ParamSync::PerRank {
        vol.broadcast_volume()
    } else {
        vol.param_volume()
    };
    (grad_passes * vol.grad_volume(), param_passes * params)
}

/// A data-parallel collective `id` (`locales/*/step.ftl`) with its NCCL algorithm and buckets.
fn dp_collective_msg(id: &'static str, algo: &str, buckets: f64) -> crate::i18n::Msg {
    crate::i18n::Msg::new(id)
        .arg("algo", algo.to_string())
        .arg("buckets", format!("{buckets:.0}"))
}

/// One step's data-parallel communication: total, hidden behind compute, and in words.
struct DpComm {
    total: Seconds,
    hidden: Seconds,
    what: crate::i18n::Text,
    /// The bytes' effective bandwidth: NCCL's achieved share of the path, less where the
    /// gradient all-reduce runs as a tree ([`bucket_algorithm`]).
    bandwidth: Bandwidth,
}

/// Passes of parameter all-gathers per micro-batch: FSDP 2 (forward, backward; its recompute
/// runs inside the unit's backward, parameters gathered); DeepSpeed ZeRO-3 as
/// [`deepspeed_fetches`] counts (up to 3 with full recompute).
fn gather_passes(b: &ParamBreakdown, setup: &TrainingSetup) -> f64 {
    passes_of(deepspeed_fetches(b, setup).as_ref())
}

fn passes_of(fetches: Option<&super::zero3::Fetches>) -> f64 {
    fetches.map_or(2.0, |f| f.passes())
}

/// ZeRO-3/FSDP: parameters are all-gathered for forward and again for backward in every
/// micro-batch ([`gather_passes`]), gradients reduce-scattered: 3 × (d−1)/d × 2P per
/// micro-batch (ZeRO §7), plus NCCL's ring latency per collective; prefetch hides them behind
/// compute.
fn zero3_comm(x: &Ctx, vol: &DpVolume, bw: Bandwidth, group: Group, compute: Seconds) -> DpComm {
    let (setup, tun, m_micro) = (x.setup, x.tun, x.m_micro);
    let base_bpp = if setup.task.is_peft() {
        setup.base_weights().bits() / 8.0
    } else {
        2.0
    };
    // One fetch trace serves the gather volume, the collective count and the wording.
    let fetches = deepspeed_fetches(x.b, setup);
    let passes = passes_of(fetches.as_ref());
    let gathers = transfer_time(
        Bytes(passes * vol.over_groups(base_bpp) * m_micro),
        bw * x.eff_net,
    );
    let rs = transfer_time(Bytes(vol.grad_volume() * m_micro), bw * x.eff_net);
    let lat = zero3_latency(x.b, setup, fetches.as_ref(), group, tun) * m_micro;
    let total = gathers + rs + lat;
    let hidden = if x.p.param_overlap(setup.framework) {
        total.min(compute * tun.dp_overlap)
    } else if x.p.grad_overlap(setup.framework) {
        rs.min(compute * (2.0 / 3.0) * tun.dp_overlap)
    } else {
        Seconds(0.0)
    };
    let floor = zero3_exposed_floor(x.b, x.p.pp, gathers / passes.max(1.0), rs + lat);
    let hidden = hidden.min((total - floor).max(Seconds(0.0)));
    DpComm {
        total,
        hidden,
        bandwidth: bw * x.eff_net,
        what: if fetches.is_some() {
            why_msg!(
                x.explain,
                crate::i18n::Msg::new("step-zero3-deepspeed").arg("passes", format!("{passes:.2}"))
            )
        } else {
            why_msg!(x.explain, crate::i18n::Msg::new("step-zero3-fsdp"))
        },
    }
}

/// What ZeRO-3/FSDP cannot hide in a micro-batch: the first unit's all-gather, which forward
/// waits for before any compute, and the last unit's reduce-scatter, issued after the final
/// backward computation (torch FSDP's root unit is gathered first and reduced last:
/// `_lazy_init` / the final backward callback; DeepSpeed's first fetch and last reduce alike).
/// The unit is the largest one FSDP wraps (a layer, or the root's embedding/head); a model
/// without layers (the CNN presets) is one unit, so nothing of its traffic overlaps. `one_pass`
/// is one all-gather pass of the micro-batches, `rest` the reduce-scatters and latencies. Under
/// pipeline parallelism the device gathers its stage's share (about 1/pp of the model), so the
/// unit is that much larger a part of it.
fn zero3_exposed_floor(b: &ParamBreakdown, pp: u64, one_pass: Seconds, rest: Seconds) -> Seconds {
    let unit = b.largest_layer();
    let stage = b.total as f64 / pp.max(1) as f64;
    let share = if unit == 0 || b.total == 0 {
        1.0
    } else {
        (unit as f64 / stage).min(1.0)
    };
    (one_pass + rest) * share
}

/// Megatron's interleaved 1F1B synchronises data-parallel state per model chunk (Megatron-Core
/// core_v0.8.0 @baf94af3 megatron/core/pipeline_parallel/schedules.py
/// `forward_backward_pipelining_with_interleaving`): a chunk's gradient reduction is launched
/// when its last micro-batch's backward is done (lines 778-805; the cool-down runs chunks
/// v−1 … 0, p chunk-steps apart), the parameter all-gathers of chunks 0 and 1 at the step's
/// start (lines 668-670) and chunk k's (k ≥ 2) at chunk k−1's first micro-batch (lines 723-734).
/// So each chunk's collective (1/v of the volume) overlaps the other chunks' compute, and only the
/// chunk reduced last (chunk 0's gradients) or gathered first (chunks 0 and 1's parameters) keeps
/// the overlap with its own micro-batch that v = 1 has. Other frameworks and v = 1: one chunk.
struct ModelChunks {
    /// Model chunks per device (virtual pipeline stages).
    v: f64,
    /// Pipeline stages: chunk-steps between two chunks' last backward (or first forward).
    p: f64,
}

impl ModelChunks {
    fn of(x: &Ctx) -> Self {
        let interleaved = x.setup.framework == Framework::Megatron && x.p.pp > 1;
        let v = if interleaved {
            x.p.virtual_stages.max(1) as f64
        } else {
            1.0
        };
        ModelChunks {
            v,
            p: x.p.pp as f64,
        }
    }

    /// Gradient reduction hidden: chunks v−1 … 1 behind the other chunks' cool-down backward
    /// (p chunk-steps of 1/v of a micro-batch's backward each), chunk 0 behind its own, bucket
    /// by bucket ([`GradBuckets::hidden`]: its last bucket stays exposed).
    fn hidden_grads(&self, grads: Seconds, micro_backward: Seconds, last: &GradBuckets) -> Seconds {
        let (v, p) = (self.v, self.p);
        let early = (grads * ((v - 1.0) / v)).min(micro_backward * (p * (v - 1.0) / v));
        early + last.hidden(grads * (1.0 / v), micro_backward * (1.0 / v))
    }

    /// Parameter all-gather hidden: chunks 2 … v−1 behind the forward of the chunk before (p
    /// chunk-steps), chunks 0 and 1 behind the step's first forward chunk-steps.
    fn hidden_params(&self, params: Seconds, micro_forward: Seconds) -> Seconds {
        let (v, p) = (self.v, self.p);
        let first = v.min(2.0) / v;
        let later = (v - 2.0).max(0.0) / v;
        (params * later).min(micro_forward * (p * later))
            + (params * first).min(micro_forward * first)
    }
}

/// The gradient buckets of the model chunk reduced last (the device's whole model without
/// interleaving), in the order they are reduced: the gradients in backward order at an even
/// rate, the embedding last and whole (the first module of the forward, so its gradient is
/// complete last, and no framework splits a tensor between buckets).
struct GradBuckets {
    rule: BucketRule,
    /// Gradient elements of the chunk ...
    params: f64,
    /// ... of which the embedding's (0 where the chunk does not hold it or it is frozen).
    embedding: f64,
    /// Collective latency each bucket pays (its share of the reduction's).
    latency: Seconds,
    /// `grad_bucket_sync`: the device is drained before each bucket's reduction is issued.
    synced: bool,
}

impl GradBuckets {
    /// The buckets as runs of (count, elements each): the first bucket, the full ones, what is
    /// left before the embedding, and the last one (the embedding, with that leftover where the
    /// rule lets them share a bucket).
    fn runs(&self) -> [(f64, f64); 4] {
        let r = self.rule;
        let emb = self.embedding.clamp(0.0, self.params);
        let fluid = self.params - emb;
        let first = r.first.min(fluid);
        let full = ((fluid - first) / r.cap.max(1.0)).floor();
        let left = (fluid - first - full * r.cap).max(0.0);
        let (tail, last) = if emb <= 0.0 || r.close_after || left + emb <= r.cap {
            (0.0, left + emb)
        } else {
            (left, emb)
        };
        let one = |s: f64| if s > 0.0 { 1.0 } else { 0.0 };
        [
            (one(first), first),
            (full, r.cap),
            (one(tail), tail),
            (one(last), last),
        ]
    }

    /// The part of the chunk's gradient reduction `reduce` (all buckets, latency included) hidden
    /// behind its backward `window`. Bucket k is ready when the backward has produced it; without
    /// `synced` its reduction starts at max(ready, end of reduction k−1) on the one communication
    /// stream; with it the host blocks in `torch.cuda.synchronize()` until the backward so far and
    /// reduction k−1 are done, so reduction k starts max(b_k, a_{k−1}) after reduction k−1 and the
    /// next backward only then (InternEvo @fa7337b `_reduce_and_copy` line 405; for equal buckets
    /// both end at b + (n−1)·max(a, b) + a). What runs past the window is exposed: at least the
    /// last bucket's reduction.
    fn hidden(&self, reduce: Seconds, window: Seconds) -> Seconds {
        let runs = self.runs();
        let n: f64 = runs.iter().map(|r| r.0).sum();
        if n <= 0.0 || self.params <= 0.0 {
            return Seconds(0.0);
        }
        let lat = (self.latency * n).min(reduce);
        let (per_elem, lat_each) = ((reduce - lat).0 / self.params, lat.0 / n);
        let b_per_elem = window.0 / self.params;
        // Backward produced so far; end (or, synced, start) of the last reduction; its time.
        let (mut c, mut end, mut start, mut a_prev) = (0.0, 0.0, 0.0, 0.0);
        for (m, s) in runs.into_iter().filter(|r| r.0 > 0.0) {
            let (a, b) = (per_elem * s + lat_each, b_per_elem * s);
            if self.synced {
                start += b.max(a_prev) + (m - 1.0) * b.max(a);
                (a_prev, end) = (a, start + a);
            } else {
                end = (end + m * a).max(c + b + m * a).max(c + m * b + a);
            }
            c += m * b;
        }
        (reduce - Seconds((end - window.0).max(0.0))).max(Seconds(0.0))
    }
}

/// NCCL's bus bandwidth of the tree against the ring's, `busBw*.92` (src/graph/tuning.cc
/// @v2.14.3-1 line 134; the same from v2.10.3-1 to v2.18).
const NCCL_TREE_BW: f64 = 0.92;
/// NCCL's "Plateau effect of ring": a multi-node Simple all-reduce of at least nRanks/16 × 64 KiB
/// pays 1.9 × the ring's latency (tuning.cc @v2.14.3-1 lines 303-304, the NCCL of PyTorch
/// 1.13-2.0; 1.4 on compute capability 8.0+ from v2.18, not modelled).
const NCCL_RING_PLATEAU: f64 = 1.9;

/// NCCL's algorithm for one gradient bucket and what it costs: the latency each bucket pays, the
/// factor on the ring's bandwidth time and the name. A multi-node all-reduce is timed as NCCL's
/// `ncclTopoGetAlgoTime` does — latency + bytes / algorithm bandwidth, the ring's latency with
/// its plateau, the tree's bandwidth .92 of the ring's bus bandwidth at an algorithm ratio of .5
/// (the ring's n / 2(n−1), tuning.cc line 148) — and the faster one is taken; the tree's
/// per-channel cap (`perChMaxTreeBw`) is not modelled. `ring` is the bucket's ring time and
/// bytes. A reduce-scatter (and one node) pays its own ring latency, p − 1 steps: NCCL's tuning
/// table holds latencies per collective and gives reduce-scatter and all-gather the ring only
/// (tuning.cc @v2.14.3-1 lines 115-123: `nsteps = ... nRanks-1`, `if (coll != ncclFuncAllReduce
/// && a != NCCL_ALGO_RING) continue`).
fn bucket_algorithm(
    group: Group,
    coll: crate::comm::Collective,
    (ring, bytes): (Seconds, f64),
    tun: &Tunables,
) -> (Seconds, f64, &'static str) {
    let (lat, algo) = crate::comm::nccl_latency(coll, group, tun);
    let (ring_lat, tree_lat) = crate::comm::nccl_ring_tree_latency(coll, group, tun);
    let Some(tree_lat) = tree_lat else {
        return (lat, 1.0, algo);
    };
    let n = group.ranks as f64;
    let plateau = if bytes >= n / 16.0 * 65536.0 {
        NCCL_RING_PLATEAU
    } else {
        1.0
    };
    let ring_lat = ring_lat * plateau;
    let tree_bw = n / (2.0 * (n - 1.0)) / (0.5 * NCCL_TREE_BW);
    if (tree_lat + ring * tree_bw).0 < (ring_lat + ring).0 {
        (tree_lat, tree_bw, "tree")
    } else {
        (ring_lat, 1.0, "ring")
    }
}

/// The all-gather latency of one bucket of ZeRO-1/2's parameter hand-back (none without it, or
/// where InternEvo broadcasts rank by rank): Megatron's distributed optimizer all-gathers bucket
/// by bucket (`start_param_sync`), DeepSpeed's `all_gather_dp_groups` in shards of
/// `allgather_bucket_size` (deepspeed/runtime/utils.py @v0.11.1 lines 940-968; its default equals
/// the reduce bucket), so one all-gather per gradient bucket, each paying NCCL's all-gather ring
/// latency.
fn param_gather_latency(x: &Ctx, group: Group, param_v: f64) -> Seconds {
    if param_v <= 0.0 || x.p.zero1_broadcast == ParamSync::PerRank {
        return Seconds(0.0);
    }
    crate::comm::nccl_latency(crate::comm::Collective::AllGather, group, x.tun).0
}

/// DDP / ZeRO-1/2: one gradient all-reduce per step (ZeRO-1/2: reduce-scatter + all-gather of
/// the same volume), in buckets that each pay NCCL's latency (ring or tree, whichever is
/// faster). The gradient half overlaps the last micro-batch's backward (≈ 2/3 of its compute)
/// with --overlap-grad-reduce / DDP buckets; ZeRO-1/2's parameter all-gather (the other half)
/// the next step's first forward with --overlap-param-gather.
fn allreduce_comm(
    x: &Ctx,
    vol: &DpVolume,
    bw: Bandwidth,
    group: Group,
    compute: Seconds,
) -> DpComm {
    let (p, setup, tun, m_micro, explain) = (x.p, x.setup, x.tun, x.m_micro, x.explain);
    let grad_bytes = vol.dev.dense * 2.0 * vol.train_frac;
    let buckets = dp_buckets(grad_bytes / 2.0, setup, vol.dpc, tun);
    let (grad_v, param_v) = dp_volumes(&p, vol);
    let coll = if dp_passes(&p).0 > 1.0 {
        crate::comm::Collective::AllReduce
    } else {
        crate::comm::Collective::ReduceScatter
    };
    let ring_bucket = transfer_time(Bytes(grad_v / buckets), bw * x.eff_net);
    let (lat1, tree_bw, algo) = bucket_algorithm(
        group,
        coll,
        (ring_bucket, grad_bytes / 2.0 * vol.grad_bpp / buckets),
        tun,
    );
    let lat1 = if vol.dpc > 1 { lat1 } else { Seconds(0.0) };
    let gather_lat = param_gather_latency(x, group, param_v) * buckets;
    let bandwidth = if grad_v + param_v > 0.0 {
        bw * x.eff_net * ((grad_v + param_v) / (grad_v * tree_bw + param_v))
    } else {
        bw * x.eff_net
    };
    let grad_v = grad_v * tree_bw;
    let (bcasts, bcast_lat) = per_rank_broadcasts(x, group);
    let grad_part = transfer_time(Bytes(grad_v), bw * x.eff_net) + lat1 * buckets;
    let param_part = transfer_time(Bytes(param_v), bw * x.eff_net) + gather_lat + bcast_lat;
    let total = grad_part + param_part;
    let micro = compute * (1.0 / m_micro) * tun.dp_overlap;
    let chunks = ModelChunks::of(x);
    let hide_grad = if p.grad_overlap(setup.framework) {
        let last = GradBuckets {
            rule: bucket_rule(setup, vol.dpc, tun),
            params: grad_bytes / 2.0 / chunks.v,
            embedding: if setup.task.is_peft() {
                0.0
            } else {
                x.b.embedding as f64 / p.tp.max(1) as f64
            },
            latency: lat1,
            synced: p.grad_bucket_sync,
        };
        chunks.hidden_grads(grad_part, micro * (2.0 / 3.0), &last)
    } else {
        Seconds(0.0)
    };
    let hide_param = if p.param_overlap(setup.framework) {
        chunks.hidden_params(param_part, micro * (1.0 / 3.0))
    } else {
        Seconds(0.0)
    };
    let what = if bcasts > 0 {
        let grads = if p.grad_all_reduce {
            "all-reduce"
        } else {
            "reduce-scatter"
        };
        why_msg!(
            explain,
            crate::i18n::Msg::new("step-dp-broadcasts")
                .arg("grads", grads)
                .arg("algo", algo)
                .arg("buckets", format!("{buckets:.0}"))
                .arg("bcasts", bcasts.to_string())
        )
    } else if p.grad_all_reduce && p.zero >= 1 {
        why_msg!(explain, dp_collective_msg("step-dp-ar-ag", algo, buckets))
    } else if p.zero >= 1 {
        why_msg!(explain, dp_collective_msg("step-dp-rs-ag", algo, buckets))
    } else {
        why_msg!(explain, dp_collective_msg("step-dp-ar", algo, buckets))
    };
    DpComm {
        total,
        hidden: hide_grad + hide_param,
        what,
        bandwidth,
    }
}

/// The data-parallel phase's results the step reports.
struct DpPhase {
    total: Seconds,
    exposed: Seconds,
    bandwidth: Bandwidth,
    link: crate::i18n::Text,
}

/// Bytes per gradient element the data-parallel reduction moves: 4 under `grad_reduce_fp32`;
/// else, for DDP and ZeRO-1/2 outside Megatron, the dtype the gradients are stored in, as the
/// memory model counts them — PyTorch DDP's reducer builds its buckets from the parameters'
/// gradients in their own dtype (torch/csrc/distributed/c10d/reducer.cpp @00413201
/// `compute_bucket_assignment_by_size`: `BucketKey(tensor.scalar_type(), tensor.device())`, the
/// size limit in bytes, `tensor.numel() * tensor.element_size()`), so fp32 training and torch.autocast over fp32 weights (HF Trainer /
/// Accelerate without DeepSpeed, `autocast`) all-reduce 4 B per parameter; 2 otherwise (16-bit
/// weights, PEFT adapters and ZeRO-3 as before).
fn reduced_grad_bytes(setup: &TrainingSetup) -> f64 {
    let p = &setup.parallel;
    if p.grad_reduce_fp32 {
        4.0
    } else if setup.framework == Framework::Megatron || p.zero >= 3 || setup.task.is_peft() {
        2.0
    } else {
        super::effective_state_bytes(setup).grads
    }
}

/// DP: gradients (and for ZeRO-3, parameters) of the trainable weights on the device, 2 bytes
/// each, over the data-parallel × context-parallel ranks (both hold the same weights).
fn dp_phase(x: &Ctx, compute: Seconds, collectives: &mut Vec<CollectiveUse>) -> DpPhase {
    let p = x.p;
    let cp = p.cp.max(1);
    let dpc = x.dp * cp;
    let train_frac = trainable_share(x.b, x.setup);
    let vol = DpVolume {
        dev: x.dev,
        dpc,
        train_frac,
        grad_bpp: reduced_grad_bytes(x.setup),
    };
    let (bw, link) = dp_path(x, dpc);
    let group = x.group(dpc, p.tp * p.pp * cp);
    let DpComm {
        total,
        hidden,
        what,
        bandwidth,
    } = if p.zero >= 3 {
        zero3_comm(x, &vol, bw, group, compute)
    } else {
        allreduce_comm(x, &vol, bw, group, compute)
    };
    let hidden = hidden.min(total);
    let exposed = (total - hidden).max(Seconds(0.0));
    if dpc > 1 {
        let (per_micro, bytes) = if p.zero >= 3 {
            (
                x.m_micro,
                gather_passes(x.b, x.setup) * vol.over_groups(2.0) + vol.grad_volume(),
            )
        } else {
            let (grad_v, param_v) = dp_volumes(&p, &vol);
            (1.0, grad_v + param_v)
        };
        collectives.push(CollectiveUse {
            kind: "dp",
            collective: what,
            link: link.clone(),
            effective_bandwidth: bandwidth,
            bytes_per_step: Bytes(bytes * per_micro),
            total,
            overlapped: hidden,
        });
    }
    DpPhase {
        total,
        exposed,
        bandwidth: bw,
        link,
    }
}

/// PP: each micro-batch's activations (b·s·h/tp, 2 bytes) cross every stage boundary forward
/// and their gradients backward; interleaving sends each micro-batch across v·(p−1) boundaries
/// instead of p−1. Returns the time with the bytes one device sends and the link that sets it.
fn pp_phase(x: &Ctx) -> PpPhase {
    let (p, c) = (x.p, x.c);
    let Some(t) = x.transformer().filter(|_| p.pp > 1) else {
        return PpPhase::default();
    };
    // All GPUs of a node on a stage boundary send at once (the stage's TP × DP × CP ranks on the
    // node), so each gets its share of the node's inter-node bandwidth, as in `dp_path`.
    let act = x.tokens_per_micro * t.hidden as f64 * 2.0 / p.tp as f64;
    let (link, name) = if p.tp * p.pp > c.gpus_per_node {
        let senders = (p.tp * x.dp * p.cp.max(1)).min(c.gpus_per_node);
        let name = why_msg!(
            x.explain,
            crate::i18n::Msg::new("step-pp-link-between")
                .arg("link", c.inter_link.name())
                .arg("senders", senders.to_string())
        );
        (c.inter_bandwidth.min(x.intra) / senders as f64, name)
    } else {
        (
            x.intra,
            why_msg!(
                x.explain,
                crate::i18n::Msg::new("step-link-inside").arg("link", c.gpu.intra_link.name())
            ),
        )
    };
    let v = p.virtual_stages.max(1) as f64;
    let bytes = Bytes(2.0 * act * x.m_micro * v);
    PpPhase {
        total: transfer_time(bytes, link * x.eff_net),
        bytes,
        bandwidth: link * x.eff_net,
        link: name,
    }
}

/// The pipeline sends of a step: their time, the bytes each device sends and the link that sets
/// the time.
#[derive(Clone, Debug, Default)]
struct PpPhase {
    total: Seconds,
    bytes: Bytes,
    bandwidth: Bandwidth,
    link: crate::i18n::Text,
}

/// EP: dispatch + combine, forward and backward: 4 all-to-alls per MoE layer of the stage and
/// micro-batch ([`ep_alltoall_seconds`]), all exposed, or under Megatron-Core's EP all-to-all
/// overlap only what the other micro-batch's compute does not hide ([`ep_overlapped_seconds`]).
fn ep_phase(x: &Ctx, parts: &ComputeParts) -> EpPhase {
    let (p, c) = (x.p, x.c);
    let none = EpPhase::default();
    let Some((t, moe)) = x.transformer().and_then(|t| t.moe.map(|moe| (t, moe))) else {
        return none;
    };
    if p.ep <= 1 {
        return none;
    }
    let moe_layers = (t.layers - moe.dense_layers) as f64 / p.pp as f64;
    let routed = crate::compute::moe::routed_tokens(x.setup, x.local_tokens as u64) as f64;
    let token_bytes = routed * t.hidden as f64 * 2.0;
    let links = EpLinks {
        intra: x.intra * x.eff_net,
        // The GPU's share of the node's NICs, no more than its own link can feed (review r6 #5:
        // min(node NICs, GPU link) / GPUs mixed a per-node and a per-GPU rate).
        nic: (c.inter_bandwidth / c.gpus_per_node.max(1) as f64).min(x.intra) * x.eff_net,
    };
    if p.moe_dispatcher.gathers() {
        return allgather_phase(x, token_bytes, 4.0 * moe_layers * x.m_micro, links);
    }
    let stride = ep_rank_stride(x.setup);
    let group = EpGroup {
        ep: p.ep,
        on_node: p.ep.min((c.gpus_per_node / stride).max(1)),
        experts: moe.experts,
        top_k: moe.experts_per_token,
    };
    let (intra_copies, inter_copies) = ep_copies(group, p.moe_dispatcher);
    let one = ep_alltoall_seconds(token_bytes, group, p.moe_dispatcher, links);
    let passes = 4.0 * moe_layers * x.m_micro;
    let total = passes * one;
    let off_node = token_bytes * inter_copies / links.nic.0.max(1.0)
        >= token_bytes * intra_copies / links.intra.0.max(1.0);
    let (bandwidth, link) = if off_node {
        let share = why_msg!(
            x.explain,
            crate::i18n::Msg::new("step-ep-link-between")
                .arg("link", c.inter_link.name())
                .arg("on_node", group.on_node.to_string())
                .arg("ep", group.ep.to_string())
        );
        (links.nic, share)
    } else {
        let on = why_msg!(
            x.explain,
            crate::i18n::Msg::new("step-link-inside").arg("link", c.gpu.intra_link.name())
        );
        (links.intra, on)
    };
    let hidden = if p.moe_a2a_overlap {
        (total - ep_overlapped_seconds(x, parts, one, moe_layers)).max(0.0)
    } else {
        0.0
    };
    EpPhase {
        total: Seconds(total),
        hidden: Seconds(hidden),
        bytes: Bytes(passes * token_bytes * (intra_copies + inter_copies)),
        bandwidth,
        link,
    }
}

/// Megatron-Core's `allgather` dispatcher (megatron/core/transformer/moe/token_dispatcher.py
/// @core_v0.6.0 `MoEAllGatherTokenDispatcher`; MindSpeed's async variant @2b0edd2 issues the same
/// collectives and waits for them before the local gather): per MoE layer and micro-batch the
/// forward all-gathers the hidden states of the TP × EP group (`gather_from_sequence_parallel_
/// region_to_moe`) and reduce-scatters the expert output back (`reduce_scatter_to_sequence_
/// parallel_region_from_moe`); the backward runs the reverse pair (tensor_parallel/mappings.py:
/// the gather's backward is a reduce-scatter and the reverse). Each moves the group's other
/// `tp·ep − 1` shards of `token_bytes` (a rank's routed tokens × h × 2 B) per rank, `passes` of
/// them a step, none hidden. The group is `tp·ep` consecutive ranks (parallel_state.py
/// @core_v0.6.0 'TPxEP Group': `range(start_rank, end_rank)`): on one node the node's link, else
/// a ring through the rank's share of the NICs as well.
fn allgather_phase(x: &Ctx, token_bytes: f64, passes: f64, links: EpLinks) -> EpPhase {
    let group = x.p.tp.max(1) * x.p.ep.max(1);
    let bytes = passes * token_bytes * (group - 1) as f64;
    let on_node = group <= x.c.gpus_per_node.max(1);
    let (bandwidth, link) = if on_node {
        let on = why_msg!(
            x.explain,
            crate::i18n::Msg::new("step-link-inside").arg("link", x.c.gpu.intra_link.name())
        );
        (links.intra, on)
    } else {
        let between = why_msg!(
            x.explain,
            crate::i18n::Msg::new("step-ep-link-between")
                .arg("link", x.c.inter_link.name())
                .arg("on_node", x.c.gpus_per_node.min(group).to_string())
                .arg("ep", group.to_string())
        );
        (Bandwidth(links.intra.0.min(links.nic.0)), between)
    };
    EpPhase {
        total: Seconds(bytes / bandwidth.0.max(1.0)),
        hidden: Seconds(0.0),
        bytes: Bytes(bytes),
        bandwidth,
        link,
    }
}

/// The expert all-to-all of a step: its time, the part hidden behind compute, the bytes each
/// device sends and the link that sets the time.
#[derive(Clone, Debug, Default)]
struct EpPhase {
    total: Seconds,
    hidden: Seconds,
    bytes: Bytes,
    bandwidth: Bandwidth,
    link: crate::i18n::Text,
}

/// How many ranks apart a rank's expert-parallel peers sit (ranks fill a node in order).
/// Megatron-Core builds the expert groups with `RankGenerator(tp=expert_tensor_parallel_size,
/// ep=expert_model_parallel_size, dp=expert_data_parallel_size, pp=..., cp=1, order=order)`,
/// default order `tp-cp-ep-dp-pp` (megatron/core/parallel_state.py @d98e8a64
/// `initialize_model_parallel`), and the expert TP size defaults to TP ([`WeightSplit`]): EP
/// peers are ETP apart, so TP 8 with the default ETP puts each EP peer on another node of 8.
/// DeepSpeed-MoE strides the model-parallel degree (deepspeed/utils/groups.py @38327e07
/// `_get_expert_parallel_ranks`: "model_degree = 2 ... expert_parallel_group = [0,2,4,6],
/// [8,10,12,14]"). torchtitan folds TP into EP when ETP = 1 (`ep = dp_shard_in_ep * cp * tp`)
/// and puts EP outside TP when ETP = TP: ETP apart as well.
fn ep_rank_stride(setup: &TrainingSetup) -> u64 {
    let megatron_deepspeed = setup.framework == Framework::Megatron && setup.parallel.zero >= 3;
    if setup.deepspeed || megatron_deepspeed {
        setup.parallel.tp.max(1)
    } else {
        WeightSplit::training(setup).etp.max(1)
    }
}

/// An expert-parallel group: `ep` ranks, `on_node` of them on each node (Megatron-Core builds
/// the expert groups in the default order `tp-cp-ep-dp-pp` with tp = the expert-TP size and
/// cp = 1, megatron/core/parallel_state.py @d98e8a64 `initialize_model_parallel`:
/// `expert_decoder_rank_generator`, `expert_order`, so a rank's EP peers are `etp` apart and
/// min(ep, gpus_per_node / etp) of the group share its node), holding `experts` routed experts,
/// `top_k` of them per token.
#[derive(Clone, Copy, Debug)]
struct EpGroup {
    ep: u64,
    on_node: u64,
    experts: u64,
    top_k: u64,
}

/// The two links an expert-parallel rank's all-to-all uses: NVLink/PCIe to the peers on its node,
/// and its share of the node's NICs to the others (every GPU of the node sends across at once).
#[derive(Clone, Copy, Debug)]
struct EpLinks {
    intra: Bandwidth,
    nic: Bandwidth,
}

/// Seconds of one dispatch (or combine) of a rank's `token_bytes` (its routed tokens × h × 2 B)
/// under balanced routing. The on-node and off-node parts run concurrently (NCCL's grouped
/// send/recv, DeepEP's one kernel): the slower one sets the time.
/// - `alltoall`: every routed copy goes to its expert's rank, 1/ep of the copies to each peer.
/// - DeepEP/HybridEP: a token goes once to each remote node holding any of its experts, over
///   the NIC to the GPU of the same local index there, which forwards it over NVLink once to
///   each rank of its node holding any of them; on the own node once to each such rank.
///   DeepEP's dispatch layout counts a token once per destination RDMA rank (node) and once per
///   NVLink rank, not per expert (deepseek-ai/DeepEP csrc/kernels/internode.cu @008e399e
///   `notify_dispatch`: `total_count += (is_token_in_rank_uint64 != 0)`,
///   `per_nvl_rank_count[j] += is_token_in_rank_values[j]`; `SourceMeta` carries the
///   token's NVLink-rank bits with its single RDMA copy).
fn ep_alltoall_seconds(token_bytes: f64, g: EpGroup, d: MoeDispatcher, l: EpLinks) -> f64 {
    let (intra_copies, inter_copies) = ep_copies(g, d);
    let intra = token_bytes * intra_copies / l.intra.0.max(1.0);
    let inter = token_bytes * inter_copies / l.nic.0.max(1.0);
    intra.max(inter)
}

/// Copies of each of a rank's tokens one dispatch sends (on-node, off-node), as
/// [`ep_alltoall_seconds`] describes; (0, 0) without expert parallelism.
fn ep_copies(g: EpGroup, d: MoeDispatcher) -> (f64, f64) {
    if g.ep <= 1 {
        return (0.0, 0.0);
    }
    let (ep, on_node) = (g.ep as f64, g.on_node as f64);
    let nodes = (ep / on_node).max(1.0);
    if d.dedups() {
        let per_rank = g.experts / g.ep;
        let p_rank = hit_probability(g.experts, per_rank, g.top_k);
        let p_node = hit_probability(g.experts, per_rank * g.on_node, g.top_k);
        // Own node: the other ranks hit; each remote node hit arrives once and is forwarded
        // to the ranks hit there but the receiving one: per rank (nodes − 1)(on_node − 1)·p_rank
        // by symmetry.
        let intra = nodes * (on_node - 1.0) * p_rank;
        (intra, (nodes - 1.0) * p_node)
    } else {
        let k = g.top_k as f64;
        (k * (on_node - 1.0) / ep, k * (ep - on_node) / ep)
    }
}

/// Chance that a token's `k` distinct experts (uniform routing: k drawn without replacement from
/// `experts`) include at least one of a given `held` of them: 1 − C(experts − held, k) /
/// C(experts, k).
fn hit_probability(experts: u64, held: u64, k: u64) -> f64 {
    if held >= experts {
        return 1.0;
    }
    let miss = (0..k.min(experts)).fold(1.0, |acc, i| {
        let free = experts.saturating_sub(held + i) as f64;
        acc * free / (experts - i) as f64
    });
    1.0 - miss
}

/// Exposed all-to-all seconds of a step under Megatron-Core's combined 1F1B
/// (`--overlap-moe-expert-parallel-comm`, megatron/core/pipeline_parallel/combined_1f1b.py and
/// models/common/model_chunk_schedule_plan.py @d98e8a64): after warm-up, the forward of one
/// (micro-batch, model chunk) runs layer by layer beside the backward of another
/// ([`ep_exposed_per_pair`]). The warm-up forwards and the cool-down backwards run alone, with
/// all 4 all-to-alls exposed: one under PP = 1 ("The forward step for the first microbatch is
/// executed alone"), and with interleaving 2(p − r − 1) + (v − 1)·g + 1 on rank r
/// (schedules.py `get_pp_rank_microbatches`: "we schedule one extra micro-batch forward step
/// before the 1f1b stages"; g = `microbatch_group_size_per_vp_stage`, default PP), taken at the
/// ranks' mean (p − 1) + (v − 1)·p + 1.
fn ep_overlapped_seconds(x: &Ctx, parts: &ComputeParts, one: f64, moe_layers: f64) -> f64 {
    let (pp, v) = (x.p.pp as f64, x.p.virtual_stages.max(1) as f64);
    let chunks = x.m_micro * v;
    let warmup = if x.p.pp > 1 {
        (pp - 1.0) + (v - 1.0) * pp + 1.0
    } else {
        1.0
    };
    let pairs = (chunks - warmup).clamp(0.0, chunks);
    let pair = ep_exposed_per_pair(one, parts.layer_s, parts.expert_layer_s);
    moe_layers / v * (pairs * pair + (chunks - pairs) * 4.0 * one)
}

/// Exposed all-to-all of one layer of a forward/backward pair, from the per-layer schedule
/// (model_chunk_schedule_plan.py `TransformerLayerSchedulePlan.run` @d98e8a64: "comm_stream:
/// combine_bwd | dispatch_fwd->dispatch_bwd | combine_fwd", "comp_stream: pre_dispatch_fwd |
/// mlp_bwd->mlp_bwd_dw->mlp_fwd | pre_dispatch_bwd"): the backward's combine hides behind the
/// forward's attention block, the two dispatches behind both passes' expert GEMMs (weight
/// gradients included: `--delay-wgrad-compute`), the forward's combine behind the backward's
/// attention block. The attention block is the layer's compute less the experts, split 1 : 2
/// between forward and backward (the backward's two GEMMs per forward GEMM).
fn ep_exposed_per_pair(a2a: f64, layer: f64, experts: f64) -> f64 {
    let attention = (layer - experts).max(0.0);
    let (attn_fwd, attn_bwd) = (attention / 3.0, attention * 2.0 / 3.0);
    (a2a - attn_fwd).max(0.0) + (2.0 * a2a - experts).max(0.0) + (a2a - attn_bwd).max(0.0)
}

/// Megatron's interleaved schedule overlaps the stage-to-stage sends and receives with the
/// forward and backward chunks (`overlap_p2p_comm`, on by default: `--no-overlap-p2p-communication`
/// turns it off, and it is forced off without virtual stages; Megatron-Core core_v0.8.0
/// megatron/training/arguments.py lines 274 and 1405-1407): hidden behind the compute. Plain 1F1B
/// (and other frameworks' schedules) wait for each transfer.
fn pp_overlap(x: &Ctx, total: Seconds, compute: Seconds) -> Seconds {
    let interleaved = x.setup.framework == Framework::Megatron && x.p.virtual_stages > 1;
    if interleaved {
        total.min(compute)
    } else {
        Seconds(0.0)
    }
}

/// The point-to-point phases' entries in the collectives list: the pipeline sends and the expert
/// all-to-all, each with the bytes one device sends per step and the link that sets its time.
fn push_p2p(
    x: &Ctx,
    (pp, pp_hidden): (PpPhase, Seconds),
    ep: EpPhase,
    collectives: &mut Vec<CollectiveUse>,
) {
    let explain = x.explain;
    if pp.total.0 > 0.0 {
        collectives.push(CollectiveUse {
            kind: "pp",
            collective: why_msg!(explain, crate::i18n::Msg::new("step-pp-collective")),
            link: pp.link,
            effective_bandwidth: pp.bandwidth,
            bytes_per_step: pp.bytes,
            total: pp.total,
            overlapped: pp_hidden,
        });
    }
    if ep.total.0 > 0.0 {
        collectives.push(CollectiveUse {
            kind: "ep",
            collective: why_msg!(explain, crate::i18n::Msg::new("step-ep-collective")),
            link: ep.link,
            effective_bandwidth: ep.bandwidth,
            bytes_per_step: ep.bytes,
            total: ep.total,
            overlapped: ep.hidden,
        });
    }
}

/// Compute the overlapped data-parallel collectives take from the step: their hidden time ×
/// NCCL's CTAs ÷ the chip's SMs ([`super::contention`]).
fn dp_contention(x: &Ctx, dp: &DpPhase) -> Seconds {
    let p = x.p;
    let cp = p.cp.max(1);
    let g = x.group(x.dp * cp, p.tp * p.pp * cp);
    nccl_lost_compute(x, g, dp.total - dp.exposed)
}

/// Compute NCCL's kernels for group `g` take from the GEMMs they run beside for `hidden`
/// seconds ([`super::contention`]): × their CTAs ([`super::contention::nccl_ctas`], one NIC per
/// GPU up to 8) ÷ the chip's SMs. Shared by the data-parallel and the async TP collectives.
fn nccl_lost_compute(x: &Ctx, g: Group, hidden: Seconds) -> Seconds {
    let c = x.c;
    let nic_gbs = c.inter_bandwidth.0 / 1e9 / c.gpus_per_node.clamp(1, 8) as f64;
    let ctas = super::contention::nccl_ctas(&c.gpu, g, c.gpus_per_node, nic_gbs);
    Seconds(super::contention::lost_compute(
        hidden.0,
        ctas,
        c.gpu.sm_count,
    ))
}

/// Compute the overlapped expert all-to-all takes from the step: its hidden time × the SMs its
/// kernels hold ÷ the chip's SMs ([`super::contention`]), for the dispatchers whose kernels hold a
/// set number of SMs ([`super::contention::ep_kernel_sms`]).
fn ep_contention(x: &Ctx, hidden: &Seconds) -> Seconds {
    match super::contention::ep_kernel_sms(x.p.moe_dispatcher) {
        Some(sms) => Seconds(super::contention::lost_compute(
            hidden.0,
            sms,
            x.c.gpu.sm_count,
        )),
        None => Seconds(0.0),
    }
}

/// The largest exposed part of the step names its bottleneck (compute on a tie or when all are
/// zero).
fn bottleneck(st: &StepTime) -> &'static str {
    let parts = [
        ("compute", st.compute.0 + st.comm_contention.0),
        ("pipeline-bubble", st.pipeline_bubble.0),
        ("tp-communication", st.tp_comm.0),
        ("cp-communication", st.cp_comm.0),
        ("dp-communication", st.dp_comm_exposed.0),
        ("ep-communication", st.ep_comm.0),
        (
            "host-offload",
            st.offload.as_ref().map_or(0.0, |o| o.exposed.0),
        ),
        // Where the host's dispatch binds, its lane (every micro-batch's ops, then the
        // optimizer step) is longer than the GPU's compute.
        (
            "host-cpu",
            st.host_dispatch
                .as_ref()
                .filter(|h| h.exposed_s.0 > 0.0)
                .map_or(0.0, |h| h.host_s.0 + st.optimizer.0),
        ),
    ];
    parts
        .iter()
        .fold(
            ("compute", 0.0),
            |acc, x| if x.1 > acc.1 { *x } else { acc },
        )
        .0
}

/// [`training_step_lean_memo`] that stops where the step cannot beat `cutoff` tokens/s: where
/// its bound tokens per step ÷ (compute + pipeline bubble), which no communication can raise
/// (`plan::train::step_bound`, the same number), is not above `cutoff`, `Ok(Err(bound))`
/// without the communication phases; where the bound is above it but the step's tokens/s is
/// not, `Ok(Err(bound))` too, the step timed but not built (where `step_bound` gives a bound);
/// otherwise `Ok(Ok(step))`, the same step bit for bit (tested:
/// `cut_steps_are_the_steps_or_their_bound` in tests/search_equivalence.rs).
pub fn training_step_lean_below(
    m: &ModelSpec,
    setup: &TrainingSetup,
    c: &ClusterSpec,
    tun: &Tunables,
    (memo, cutoff): (&ComputeMemo, f64),
) -> Result<Result<StepTime, f64>, CoreError> {
    step_time_below(
        m,
        setup,
        (c, tun),
        (false, Some(memo)),
        (Some(cutoff), None),
    )
}

fn step_time(
    m: &ModelSpec,
    setup: &TrainingSetup,
    c: &ClusterSpec,
    tun: &Tunables,
    (explain, memo): (bool, Option<&ComputeMemo>),
) -> Result<StepTime, CoreError> {
    match step_time_below(m, setup, (c, tun), (explain, memo), (None, None))? {
        Ok(step) => Ok(step),
        // Only a cutoff stops a step; none was given.
        Err(bound) => Err(CoreError::invalid(
            "step",
            bound,
            "a step stopped below a cutoff that was not given",
        )),
    }
}

/// What a step reads before its phases that depends on its model, setup, chip and GPU count
/// only, not on the links nor on how the GPUs are split into nodes: the same on every cluster
/// of one time pass's group. Of its checks only `check_parallelism` reads the node shape (TP
/// inside a node, attention heads per node), so a prologue read on a cluster of another shape
/// is taken only after that check passes there with the same data-parallel size.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct StepPrologue {
    /// GPUs per node of the cluster it was computed on.
    per_node: u64,
    /// Data-parallel size.
    dp: u64,
    peak: FlopRate,
    /// The efficiency's share.
    eff: f64,
    fl: super::TokenFlops,
    /// The most loaded device's parameters before ZeRO.
    dev: DeviceParams,
    /// The compute phase ([`compute_phase`]) and the pipeline bubble: functions of the same
    /// inputs and the values above, not of the links.
    compute: (ComputeDone, Seconds),
}

/// The checks of a step, in the order their errors are reported, and what they give: the
/// data-parallel size, the peak and the efficiency's share (`train_efficiency`'s, unnamed).
fn step_checks(
    m: &ModelSpec,
    setup: &TrainingSetup,
    c: &ClusterSpec,
    tun: &Tunables,
) -> Result<(u64, FlopRate, f64), CoreError> {
    setup.validate()?;
    crate::chip::check_support(m, setup, &c.gpu)?;
    let dp = check_parallelism(m, setup, c)?;
    let peak = training_peak(c, setup.precision).ok_or_else(|| {
        CoreError::invalid("gpu", &c.gpu.id, "no sourced peak FLOP/s for this chip and precision; time cannot be estimated (memory still can)")
    })?;
    let eff = crate::chip::train_efficiency_value(m, setup, &c.gpu, tun);
    Ok((dp, peak, eff))
}

/// [`step_checks`]' values with the FLOPs per token and the most loaded device's parameters.
fn step_shares(
    m: &ModelSpec,
    setup: &TrainingSetup,
    b: &ParamBreakdown,
    dp: u64,
) -> Result<(super::TokenFlops, DeviceParams), CoreError> {
    Ok((
        flops_per_token(m, b, setup)?,
        layout::most_loaded(b, &setup.parallel, &WeightSplit::training(setup), dp),
    ))
}

/// [`training_step_lean_below`] (without a cutoff: [`training_step_lean_memo`]) that takes its
/// prologue from `slot` where it holds one and leaves it there otherwise. `slot` must be empty
/// or hold what a step of this model, setup and tunables gave on a cluster of this chip and
/// total GPU count, in any node shape (the planner's time passes: one slot per rung and memory
/// pass). The same steps bit for bit, the same error where the shape's check fails (tested:
/// `prologue_slots_give_the_same_steps` in tests/search_equivalence.rs).
pub fn training_step_lean_slot(
    m: &ModelSpec,
    setup: &TrainingSetup,
    (c, tun): (&ClusterSpec, &Tunables),
    (memo, cutoff): (&ComputeMemo, Option<f64>),
    slot: &mut Option<StepPrologue>,
) -> Result<Result<StepTime, f64>, CoreError> {
    step_time_below(
        m,
        setup,
        (c, tun),
        (false, Some(memo)),
        (cutoff, Some(slot)),
    )
}

/// The compute phase and the pipeline bubble: the prologue's where `known` holds it, else
/// computed and, where a `slot` is given, stored there with the rest of the prologue.
fn compute_and_bubble(
    x: &Ctx,
    (peak, eff, fl): (FlopRate, f64, super::TokenFlops),
    known: Option<StepPrologue>,
    slot: Option<&mut Option<StepPrologue>>,
) -> (ComputeDone, Seconds) {
    if let Some(k) = known {
        return k.compute;
    }
    let phase = compute_phase(x, fl.hardware, peak, eff);
    let bubble = pipeline_bubble(x, phase.total, phase.optimizer);
    let done = (phase, bubble);
    if let Some(slot) = slot {
        *slot = Some(StepPrologue {
            per_node: x.c.gpus_per_node,
            dp: x.dp,
            peak,
            eff,
            fl,
            dev: x.dev,
            compute: done,
        });
    }
    done
}

/// The collective families a step lists at most: `tp`, `cp`, `dp`, `pp`, `ep` (one entry each).
const COLLECTIVE_FAMILIES: usize = 5;

/// [`step_time`], stopped when `cutoff` is given and the step cannot beat it: after the compute
/// and the bubble where the bound tokens per step ÷ (compute + bubble) is not above it, or after
/// the communication where the step's own tokens/s is not (its bound not below the step), before
/// the step is built: `Ok(Err(bound))`.
fn step_time_below(
    m: &ModelSpec,
    setup: &TrainingSetup,
    (c, tun): (&ClusterSpec, &Tunables),
    (explain, memo): (bool, Option<&ComputeMemo>),
    (cutoff, slot): (Option<f64>, Option<&mut Option<StepPrologue>>),
) -> Result<Result<StepTime, f64>, CoreError> {
    // A step of this setup on a cluster of this chip and GPU count already passed the checks:
    // its prologue (`slot`, the time pass's, where given) is theirs; from another node shape,
    // once the one check that reads the shape passes here too ([`StepPrologue`]).
    let known = match slot.as_deref().copied().flatten() {
        Some(k) if k.per_node != c.gpus_per_node => {
            (check_parallelism(m, setup, c)? == k.dp).then_some(k)
        }
        k => k,
    };
    let (dp, peak, eff) = match known {
        Some(k) => (k.dp, k.peak, k.eff),
        None => step_checks(m, setup, c, tun)?,
    };
    // Lean steps leave the efficiency's name empty, as their other words.
    let eff_name = if explain {
        crate::chip::train_efficiency(m, setup, &c.gpu, tun).1
    } else {
        String::new()
    };
    let shared;
    let b = match memo.and_then(|memo| memo.breakdown_of(m)) {
        Some(b) => b,
        None => {
            shared = param_breakdown_shared(m);
            &*shared
        }
    };
    let (fl, dev) = match known {
        Some(k) => (k.fl, k.dev),
        None => step_shares(m, setup, b, dp)?,
    };
    let x = Ctx::new((m, setup, c, tun), (explain, memo), b, (dp, dev));
    let (phase, bubble) = compute_and_bubble(&x, (peak, eff, fl), known, slot);
    let (compute, compute_parts, optimizer) = (phase.total, phase.parts, phase.optimizer);
    let tokens_per_step = x.tokens_per_micro * x.m_micro * x.dp as f64;
    let floor = compute.0 + bubble.0;
    if let Some(cut) = cutoff.filter(|_| floor > 0.0) {
        let bound = tokens_per_step / floor;
        // Not above the cutoff (a NaN bound included, as the search's `beats` reads it).
        if bound.partial_cmp(&cut) != Some(std::cmp::Ordering::Greater) {
            return Ok(Err(bound));
        }
    }
    // At most one family each (TP, CP, DP, PP, EP): sized at once, never grown. A grown list
    // (4 → 8 entries, over 1 KiB) took glibc's large-chunk path on every step that reached it.
    let mut collectives = Vec::with_capacity(COLLECTIVE_FAMILIES);
    let (tp_total, tp_hidden, tp_lost) = tp_phase(&x, &compute_parts, &mut collectives);
    let cp_comm = cp_phase(&x, &compute_parts, &mut collectives);
    let dp = dp_phase(&x, compute, &mut collectives);
    let pp = pp_phase(&x);
    let pp_total = pp.total;
    let pp_hidden = pp_overlap(&x, pp_total, compute);
    let pp_comm = pp_total - pp_hidden;
    let ep = ep_phase(&x, &compute_parts);
    let ep_comm = ep.total - ep.hidden;
    let ep_hidden = ep.hidden;
    push_p2p(&x, (pp, pp_hidden), ep, &mut collectives);
    let tp_comm = tp_total - tp_hidden;
    let lost = dp_contention(&x, &dp) + ep_contention(&x, &ep_hidden) + tp_lost;
    let contention = lost.min(compute);
    let micro = (compute - optimizer) * (1.0 / x.m_micro);
    let offload = offload::offload_phase(&x, (micro, dp.total - dp.exposed), optimizer);
    let host = offload.as_ref().map_or(Seconds(0.0), |o| o.exposed);
    let host_dispatch =
        super::dispatch::host_dispatch(m, b, (setup, &c.gpu, x.dp), tun, (x.m_micro, micro.0));
    let waits = host_dispatch.as_ref().map_or(Seconds(0.0), |h| h.exposed_s);
    let step = compute + bubble + tp_comm + cp_comm + dp.exposed + pp_comm + ep_comm + contention;
    let step = step + host + waits;
    let tps = tokens_per_step / step.0;
    // Timed in full and still not above the cutoff: stopped with its bound, as where the bound
    // itself is not above it (the bound `step_bound` would give this step: compute and bubble
    // above zero and not above the step), without building the step it cannot replace.
    if let Some(cut) = cutoff.filter(|_| floor > 0.0 && step.0 >= floor) {
        if tps.partial_cmp(&cut) != Some(std::cmp::Ordering::Greater) {
            return Ok(Err(tokens_per_step / floor));
        }
    }
    let n = c.total_gpus() as f64;
    let mut st = StepTime {
        compute,
        fp32_grad_pass: phase.grad_pass,
        compute_parts,
        optimizer,
        pipeline_bubble: bubble,
        tp_comm,
        tp_comm_overlapped: tp_hidden,
        cp_comm,
        dp_comm_total: dp.total,
        dp_comm_exposed: dp.exposed,
        comm_contention: contention,
        pp_comm,
        ep_comm,
        offload,
        host_dispatch,
        step,
        tokens_per_step,
        tokens_per_second: tps,
        tokens_per_second_per_gpu: tps / n,
        mfu: fl.model.0 * tps / (n * peak.0),
        hfu: fl.hardware.0 * tps / (n * peak.0),
        model_tflops_per_gpu: fl.model.0 * tps / n / 1e12,
        hardware_tflops_per_gpu: fl.hardware.0 * tps / n / 1e12,
        collectives,
        efficiency_used: eff,
        efficiency_name: eff_name,
        peak,
        dp_bandwidth: dp.bandwidth,
        dp_link: dp.link,
        bottleneck: "compute",
    };
    st.bottleneck = bottleneck(&st);
    Ok(Ok(st))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn buckets(
        first: f64,
        cap: f64,
        close_after: bool,
        params: f64,
        embedding: f64,
    ) -> GradBuckets {
        GradBuckets {
            rule: BucketRule {
                first,
                cap,
                close_after,
            },
            params,
            embedding,
            latency: Seconds(0.0),
            synced: false,
        }
    }

    /// NCCL's choice for a 1 GiB bucket (0.057 s on the ring's bandwidth) with the default
    /// tunables and NCCL 2.12-2.22's 2·nodes network steps. 1024 ranks on 128 nodes: ring latency
    /// 8.4 + (2046 − 256)·3.4 + 256·9.6 = 8552 µs, ×1.9 plateau = 16.25 ms, so 73.2 ms; tree
    /// 2·(7·28 + 7·50) = 1092 µs + 57 ms × 1024/2046/0.46 = 63.1 ms: the tree. 256 ranks on 32
    /// nodes: ring 8.4 + 446·3.4 + 64·9.6 = 2139.2 µs, × 1.9 = 4.06 ms, plus 57 = 61.1 ms against
    /// the tree's 0.89 + 62.2 = 63.1 ms: the ring. A reduce-scatter has no tree and no plateau:
    /// its own ring latency, 8.4 + 896·3.4 + 127·9.6 = 4274 µs. NCCL 2.23's 2·(nodes − 1) steps
    /// take 2·(9.6 − 3.4) µs off the all-reduce's ring.
    #[test]
    fn nccl_takes_the_tree_for_large_buckets_at_scale() {
        use crate::comm::Collective::{AllReduce, ReduceScatter};
        let t = Tunables::default();
        let g = |ranks, nodes| Group {
            ranks,
            nodes,
            intra: crate::comm::IntraClass::NvLink,
            nccl: None,
        };
        let gib = (Seconds(0.057), 1_073_741_824.0);
        let (lat, f, algo) = bucket_algorithm(g(1024, 128), AllReduce, gib, &t);
        assert_eq!(algo, "tree");
        assert!((lat.0 - 1092e-6).abs() < 1e-12, "{lat:?}");
        assert!((f - 1024.0 / 2046.0 / 0.46).abs() < 1e-12);
        let (lat, f, algo) = bucket_algorithm(g(256, 32), AllReduce, gib, &t);
        assert_eq!((algo, f), ("ring", 1.0));
        assert!((lat.0 - 2139.2e-6 * 1.9).abs() < 1e-12, "{lat:?}");
        let (lat, f, algo) = bucket_algorithm(g(1024, 128), ReduceScatter, gib, &t);
        assert_eq!((algo, f), ("ring", 1.0));
        assert!((lat.0 - 4274e-6).abs() < 1e-12, "{lat:?}");
        let v223 = Group {
            nccl: Some([2, 23, 4]),
            ..g(256, 32)
        };
        let (lat, _, _) = bucket_algorithm(v223, AllReduce, gib, &t);
        assert!(
            (lat.0 - (2139.2e-6 - 2.0 * 6.2e-6) * 1.9).abs() < 1e-12,
            "{lat:?}"
        );
    }

    /// Review r7 #5's check: n = 2 buckets, reduction a = 1 and backward b = 2 each. The backward
    /// ends at 4; reductions run 2→3 and 4→5, so the step runs 1 past the window and 1 of the
    /// 2 is hidden — the last bucket's reduction is exposed with or without the synchronize, and
    /// b + (n−1)·max(a, b) + a = 5 both ways. With a = 3 > b = 2: 2→5, 5→8, 4 exposed, 2 hidden
    /// ((n−1)·min(a, b)).
    #[test]
    fn bucket_pipeline_exposes_the_last_bucket() {
        let mut g = buckets(1.0, 1.0, false, 2.0, 0.0);
        assert_eq!(g.runs(), [(1.0, 1.0), (1.0, 1.0), (0.0, 0.0), (0.0, 0.0)]);
        assert_eq!(g.hidden(Seconds(2.0), Seconds(4.0)), Seconds(1.0));
        assert_eq!(g.hidden(Seconds(6.0), Seconds(4.0)), Seconds(2.0));
        g.synced = true;
        assert_eq!(g.hidden(Seconds(2.0), Seconds(4.0)), Seconds(1.0));
        assert_eq!(g.hidden(Seconds(6.0), Seconds(4.0)), Seconds(2.0));
        // One bucket: its reduction starts when the backward ends, nothing hidden.
        let one = buckets(10.0, 10.0, true, 2.0, 0.0);
        assert_eq!(one.hidden(Seconds(2.0), Seconds(4.0)), Seconds(0.0));
        // A per-bucket latency of 0.5 out of a reduction of 2 (bandwidth 1, 0.5 per bucket):
        // a = 0.5·1 + 0.5 = 1 each, the same schedule.
        let mut lat = buckets(1.0, 1.0, false, 2.0, 0.0);
        lat.latency = Seconds(0.5);
        assert_eq!(lat.hidden(Seconds(2.0), Seconds(4.0)), Seconds(1.0));
    }

    /// Synchronised and queued schedules part where the sync holds a backward back: buckets of
    /// 2, 1 and 3 elements (flush-before, cap 2, the 3 the embedding), reduction 2 and backward
    /// 1 per element (a = 4, 2, 6; b = 2, 1, 3; window 6). Queued: reductions 2→6, 6→8 (ready at
    /// 3) and 8→14 (ready at 6): 8 past the window, 4 of 12 hidden. Synchronised: the third
    /// bucket's backward waits for the sync that waits for reduction 1 (until 6), so it is ready
    /// at 9, not 6; its reduction runs 9→15: 3 hidden.
    #[test]
    fn synchronised_buckets_hold_the_backward_back() {
        let mut g = buckets(2.0, 2.0, false, 6.0, 3.0);
        assert_eq!(g.runs(), [(1.0, 2.0), (0.0, 2.0), (1.0, 1.0), (1.0, 3.0)]);
        assert_eq!(g.hidden(Seconds(12.0), Seconds(6.0)), Seconds(4.0));
        g.synced = true;
        assert_eq!(g.hidden(Seconds(12.0), Seconds(6.0)), Seconds(3.0));
    }

    /// The embedding is reduced last and whole: DDP and Megatron-Core close a bucket after the
    /// tensor that fills it, so the leftover and the embedding share the last bucket; DeepSpeed
    /// and InternEvo flush before a tensor that would overflow, so the embedding is a bucket of
    /// its own. 10 elements, 3 of them the embedding, cap 4 (first 1 under DDP's rule):
    /// close-after 1 + 4 + (2 + 3) = 3 buckets; flush-before 4 + (3 left) + 3 = 3 buckets; with
    /// 1 left (params 8) flush-before puts 1 + 3 in one.
    #[test]
    fn the_embedding_closes_the_last_bucket() {
        let ddp = buckets(1.0, 4.0, true, 10.0, 3.0);
        assert_eq!(ddp.runs(), [(1.0, 1.0), (1.0, 4.0), (0.0, 0.0), (1.0, 5.0)]);
        let ds = buckets(4.0, 4.0, false, 10.0, 3.0);
        assert_eq!(ds.runs(), [(1.0, 4.0), (0.0, 4.0), (1.0, 3.0), (1.0, 3.0)]);
        let fits = buckets(4.0, 4.0, false, 8.0, 3.0);
        assert_eq!(
            fits.runs(),
            [(1.0, 4.0), (0.0, 4.0), (0.0, 0.0), (1.0, 4.0)]
        );
        // a = b = 1 per element, window 10. DDP: reductions 1→2, 5→9, 10→15: the last bucket's
        // 5 exposed. DeepSpeed: 4→8, 8→11 (ready at 7), 11→14 (ready at 10): its last 3 and the
        // 1 the queue could not absorb, 6 of 10 hidden.
        assert_eq!(ddp.hidden(Seconds(10.0), Seconds(10.0)), Seconds(5.0));
        assert_eq!(ds.hidden(Seconds(10.0), Seconds(10.0)), Seconds(6.0));
    }

    /// The first gathered unit's share of the device's traffic: the largest unit over the model
    /// (the embedding of Llama-3.1-8B, ~7%), over the stage's shard under PP (pp × larger, at most
    /// all of it), and all of it for a model with no layers.
    #[test]
    fn zero3_floor_is_the_first_and_last_units_share_of_the_stage() {
        let m = crate::model::find_preset("Llama-3.1-8B")
            .expect("preset")
            .model
            .clone();
        let b = crate::model::param_breakdown(&m);
        let share = b.largest_layer() as f64 / b.total as f64;
        assert!(share > 0.05 && share < 0.1, "{share}");
        let (one, rest) = (Seconds(2.0), Seconds(1.0));
        let f1 = zero3_exposed_floor(&b, 1, one, rest).0;
        let f4 = zero3_exposed_floor(&b, 4, one, rest).0;
        assert!((f1 - 3.0 * share).abs() < 1e-12, "{f1}");
        assert!((f4 - 12.0 * share).abs() < 1e-12, "{f4}");
        assert_eq!(zero3_exposed_floor(&b, 64, one, rest).0, 3.0);
    }

    /// TE userbuffers expose only the last of the 4 pipelined chunks of the 2 forward
    /// reduce-scatters: 0.5 of the 10 collectives of a layer (4 forward + 6 backward with the
    /// re-gathers), 1.0 of 14 with full recompute; torchtitan's async TP keeps the calibrated
    /// share.
    #[test]
    fn te_userbuffers_hide_all_but_the_last_pipelined_chunk() {
        let share = |f, passes| tp_overlap_share(f, passes, 0.4);
        assert!((share(Framework::Megatron, 1.0) - 0.95).abs() < 1e-12);
        assert!((share(Framework::Megatron, 2.0) - (1.0 - 1.0 / 14.0)).abs() < 1e-12);
        assert_eq!(share(Framework::HuggingFace, 1.0), 0.4);
        assert_eq!(share(Framework::LitGpt, 2.0), 0.4);
    }

    /// Each TP collective hides at most behind its paired GEMM: a collective of 1.6 ms beside
    /// q/k/v (1.1 ms) and the output projection (0.74 ms) exposes the difference, the MLP's
    /// longer GEMMs hide it whole; without an MLP pair (MoE under the allgather dispatcher) only
    /// the attention's two count.
    #[test]
    fn tp_overlap_hides_each_collective_behind_its_own_gemm() {
        let g = [1.1, 0.74, 5.2, 2.6];
        let hidden = paired_hidden_per_pass(&g, 1.6, 1.0);
        assert!(
            (hidden - (1.1 + 0.74 + 1.6 + 1.6)).abs() < 1e-12,
            "{hidden}"
        );
        let attention_only = paired_hidden_per_pass(&g, 1.6, 0.0);
        assert!((attention_only - 1.84).abs() < 1e-12, "{attention_only}");
        assert_eq!(paired_hidden_per_pass(&g, 0.5, 1.0), 2.0);
    }

    /// TP collectives of a layer's backward under sequence parallelism, per framework: Megatron
    /// (Megatron-LM's local linears, Transformer Engine's under NeMo / Megatron-Bridge, ModelLink
    /// with or without MC2) saves each column-parallel input's shard and all-gathers it again
    /// beside the input-gradient GEMM: 4 row-parallel/reduce-scatter collectives + 2 = 6 (3
    /// all-reduce units); torchtitan's DTensor saves the gathered input: 4 (2 units). Without
    /// sequence parallelism nothing is re-gathered.
    #[test]
    fn megatron_sequence_parallel_backward_regathers_its_column_inputs() {
        let units = |f, sp| 2.0 + 0.5 * tp_backward_regathers(f, sp);
        assert_eq!(units(Framework::Megatron, true), 3.0);
        assert_eq!(units(Framework::Megatron, false), 2.0);
        assert_eq!(units(Framework::HuggingFace, true), 2.0);
        assert_eq!(units(Framework::LitGpt, true), 2.0);
    }

    /// Without TP-comm overlap each async backward collective of a column-parallel input (the
    /// re-gather beside the dgrad GEMM, the reduce-scatter beside the wgrad GEMM) hides at most
    /// behind its own GEMM, of the forward's shape: 0.8 ms collectives hide whole beside q/k/v
    /// (1.1 ms) and the MLP input (5.2 ms), 1.6 ms ones expose q/k/v's difference; the row-parallel
    /// outputs' pairs hide nothing here.
    #[test]
    fn async_backward_collectives_hide_behind_their_own_gemm() {
        let g = [1.1, 0.74, 5.2, 2.6];
        assert!((paired_inputs(&g, 0.8, 1.0) - 1.6).abs() < 1e-12);
        assert!((paired_inputs(&g, 1.6, 1.0) - 2.7).abs() < 1e-12);
        assert!((paired_inputs(&g, 1.6, 0.0) - 1.1).abs() < 1e-12);
        assert_eq!(paired_inputs(&g, -1.0, 1.0), 0.0);
    }

    /// The linears a TP collective pairs with: q/k/v (and MLA's, cross-attention's) the
    /// attention's input, the row-parallel projections the outputs, the MLP's by name.
    #[test]
    fn linears_pair_by_name() {
        use crate::compute::TpPair;
        for (name, pair) in [
            ("q_proj", TpPair::AttentionIn),
            ("kv_a_proj_with_mqa", TpPair::AttentionIn),
            ("o_proj", TpPair::AttentionOut),
            ("cross_o_proj", TpPair::AttentionOut),
            ("gate_proj", TpPair::MlpIn),
            ("fc1", TpPair::MlpIn),
            ("down_proj", TpPair::MlpOut),
            ("fc2", TpPair::MlpOut),
        ] {
            assert_eq!(TpPair::of(name), pair, "{name}");
        }
    }

    /// torchtitan's per-op SAC re-runs the all-gathers (not saved) but not the reduce-scatters
    /// (saved) of sequence parallelism: 10 of 8 units per layer; all-reduces without SP are not
    /// saved: 12, as full recompute; `selective` keeps the TP collectives' outputs: 8.
    #[test]
    fn op_sac_repeats_the_sequence_parallel_all_gathers_only() {
        let units = |r, sp| 4.0 * (tp_forward_passes(r, sp) + 1.0);
        assert_eq!(units(Recompute::SelectiveOp, true), 10.0);
        assert_eq!(units(Recompute::SelectiveOp, false), 12.0);
        assert_eq!(units(Recompute::Full, true), 12.0);
        assert_eq!(units(Recompute::Selective, true), 8.0);
        assert_eq!(units(Recompute::None, false), 8.0);
    }

    /// A ring inside a node runs over NVLink; across nodes the node's NICs are shared by every
    /// ring crossing at once: TP 8 × CP 8 (torchtitan's 405B) puts one rank of each of 8 rings
    /// on a node, TP 2 × CP 8 four ranks of each of 2 rings, TP 1 × CP 16 eight of one.
    #[test]
    fn cp_rings_share_the_node_nics() {
        assert_eq!(cp_rings_per_node(1, 8, 8), None);
        assert_eq!(cp_rings_per_node(4, 2, 8), None);
        assert_eq!(cp_rings_per_node(8, 8, 8), Some(8));
        assert_eq!(cp_rings_per_node(8, 2, 8), Some(8));
        assert_eq!(cp_rings_per_node(2, 8, 8), Some(2));
        assert_eq!(cp_rings_per_node(1, 16, 8), Some(1));
    }

    /// One chunk (v = 1) is the old overlap: the last micro-batch's backward for gradients (in
    /// two equal buckets here, so (n−1)·min(a, b) of it: a = 5, b = 0.5 → 0.5; a = 0.25 → 0.25),
    /// the first one's forward for parameters. With v chunks only chunk 0's gradient reduction
    /// (1/v) and chunks 0-1's gathers (2/v) are limited by their own micro-batch; the rest hide
    /// behind the other chunks' p chunk-steps each.
    #[test]
    fn interleaved_chunks_overlap_their_collectives_with_the_other_chunks() {
        let two = buckets(1.0, 1.0, false, 2.0, 0.0);
        let one = ModelChunks { v: 1.0, p: 8.0 };
        let (comm, micro) = (Seconds(10.0), Seconds(1.0));
        assert_eq!(one.hidden_grads(comm, micro, &two).0, 0.5);
        assert_eq!(one.hidden_params(comm, micro).0, 1.0);
        assert_eq!(one.hidden_grads(Seconds(0.5), micro, &two).0, 0.25);
        let six = ModelChunks { v: 6.0, p: 8.0 };
        // Gradients: 5/6 of 10 s within 8 × 5/6 s of cool-down, + chunk 0's two buckets of
        // a = 5/6, b = 1/12: 1/12.
        let g = six.hidden_grads(comm, micro, &two).0;
        assert!((g - (8.0 * 5.0 / 6.0 + 1.0 / 12.0)).abs() < 1e-12, "{g}");
        // Parameters: 4/6 of 10 s within 8 × 4/6 s, + min(2/6 × 10, 2/6).
        let h = six.hidden_params(comm, micro).0;
        assert!((h - (8.0 * 4.0 / 6.0 + 2.0 / 6.0)).abs() < 1e-12, "{h}");
        // Never more than the collective itself.
        assert!(six.hidden_grads(Seconds(0.3), micro, &two).0 <= 0.3 + 1e-12);
        assert!(six.hidden_params(Seconds(0.3), micro).0 <= 0.3 + 1e-12);
    }

    /// EP 8 on one node of 8: 7/8 of the copies over NVLink; EP 32 over 4 nodes: 7/32 over NVLink
    /// and 24/32 over the GPU's NIC share, the slower part sets the time; ETP 2 halves the EP
    /// peers a node holds.
    #[test]
    fn ep_alltoall_splits_on_and_off_node_peers() {
        let l = EpLinks {
            intra: Bandwidth(400e9),
            nic: Bandwidth(50e9),
        };
        let g = |ep, on_node| EpGroup {
            ep,
            on_node,
            experts: 128,
            top_k: 8,
        };
        // A rank's routed copies: 32 MB = 4 MB of tokens × top-8.
        let (b, a2a) = (32e6, MoeDispatcher::AllToAll);
        assert_eq!(ep_alltoall_seconds(b / 8.0, g(1, 1), a2a, l), 0.0);
        let one_node = ep_alltoall_seconds(b / 8.0, g(8, 8), a2a, l);
        assert!(
            (one_node - b * 7.0 / 8.0 / 400e9).abs() < 1e-15,
            "{one_node}"
        );
        let four = ep_alltoall_seconds(b / 8.0, g(32, 8), a2a, l);
        assert!((four - b * 24.0 / 32.0 / 50e9).abs() < 1e-15, "{four}");
        // ETP 2: EP peers 2 apart, 4 of the 8 on the node.
        let etp2 = ep_alltoall_seconds(b / 8.0, g(8, 4), a2a, l);
        assert!((etp2 - b * 4.0 / 8.0 / 50e9).abs() < 1e-15, "{etp2}");
    }

    /// DeepEP/HybridEP send a token once per remote node and once per rank, not per expert:
    /// EP 16 over 2 nodes, 128 experts, top-8: the other node's 64 experts are hit with
    /// 1 − C(64,8)/C(128,8) ≈ 0.9969, one copy over the NIC against alltoall's 4.
    #[test]
    fn dedup_dispatchers_send_once_per_node_and_rank() {
        assert_eq!(hit_probability(128, 128, 8), 1.0);
        assert!((hit_probability(128, 16, 1) - 0.125).abs() < 1e-12);
        let miss: f64 = (0..8)
            .map(|i| (64.0 - i as f64) / (128.0 - i as f64))
            .product();
        assert!((hit_probability(128, 64, 8) - (1.0 - miss)).abs() < 1e-12);
        let l = EpLinks {
            intra: Bandwidth(1e30),
            nic: Bandwidth(50e9),
        };
        let g = EpGroup {
            ep: 16,
            on_node: 8,
            experts: 128,
            top_k: 8,
        };
        let tok = 4e6;
        let a2a = ep_alltoall_seconds(tok, g, MoeDispatcher::AllToAll, l);
        let deep = ep_alltoall_seconds(tok, g, MoeDispatcher::HybridEp, l);
        assert!((a2a - tok * 4.0 / 50e9).abs() < 1e-12, "{a2a}");
        assert!((deep - tok * (1.0 - miss) / 50e9).abs() < 1e-12, "{deep}");
    }

    /// One layer of a forward/backward pair: each window exposes only its excess.
    #[test]
    fn overlapped_pair_exposes_each_windows_excess() {
        // Compute hides everything: attention 3 ms (1 fwd, 2 bwd), experts 4 ms, a2a 1 ms.
        assert_eq!(ep_exposed_per_pair(1.0, 7.0, 4.0), 0.0);
        // a2a 3 ms: combine_bwd 3 − 1, dispatches 6 − 4, combine_fwd 3 − 2.
        assert!((ep_exposed_per_pair(3.0, 7.0, 4.0) - 5.0).abs() < 1e-12);
        // Never more than the 4 all-to-alls.
        assert!(ep_exposed_per_pair(3.0, 0.0, 0.0) <= 12.0);
    }

    /// Whisper's encoder layers all-reduce the activations of the encoder's 1500 positions, not
    /// of the decoder's `seq_len`. TP 2, micro-batch 1, seq_len 448, one micro-batch, no
    /// recompute: 4 all-reduces per layer (2 forward, 2 backward) of positions × d_model 1280 ×
    /// 2 bytes, ring volume 2(n − 1)/n = 1 message at TP 2, over 32 encoder and 32 decoder
    /// layers: 4 × (32 × 1500 + 32 × 448) × 2560 = 638,320,640 B (all 64 layers at the decoder's
    /// 448 positions gave 4 × 64 × 448 × 2560 = 293,601,280 B).
    #[test]
    fn whisper_encoder_layers_reduce_the_encoders_positions() {
        let m = crate::model::find_preset("Whisper-large-v3")
            .expect("preset")
            .model
            .clone();
        let mut setup = TrainingSetup {
            seq_len: 448,
            micro_batch: 1,
            grad_accum: 1,
            ..TrainingSetup::default()
        };
        setup.parallel.tp = 2;
        let c = crate::job::HardwareInput {
            gpus_per_node: 2,
            ..crate::job::HardwareInput::default()
        }
        .cluster()
        .expect("cluster");
        let s = training_step(&m, &setup, &c, &Tunables::default()).expect("step");
        let tp = s.collectives.iter().find(|u| u.kind == "tp").expect("tp");
        assert_eq!(tp.bytes_per_step.0, 638_320_640.0);
    }

    /// DDP all-reduces the gradients in their stored dtype: 4 B under torch.autocast over fp32
    /// weights (HF Trainer without DeepSpeed) and in fp32 training, 2 B with 16-bit weights; the
    /// step's DP bytes double with them (Llama-2-7B, 8 GPUs: 2·7/8 × 4 B per parameter).
    #[test]
    fn ddp_reduces_gradients_in_their_stored_dtype() {
        let m = crate::model::find_preset("Llama-2-7B")
            .expect("preset")
            .model
            .clone();
        let c = crate::job::HardwareInput {
            gpus_per_node: 8,
            ..crate::job::HardwareInput::default()
        }
        .cluster()
        .expect("cluster");
        let dp_bytes = |setup: &TrainingSetup| {
            let s = training_step(&m, setup, &c, &Tunables::default()).expect("step");
            let dp = s.collectives.iter().find(|u| u.kind == "dp").expect("dp");
            dp.bytes_per_step.0
        };
        let mixed = TrainingSetup::default();
        let autocast = TrainingSetup {
            autocast: true,
            ..TrainingSetup::default()
        };
        let fp32 = TrainingSetup {
            precision: crate::workload::Precision::Fp32,
            ..TrainingSetup::default()
        };
        let megatron = TrainingSetup {
            framework: Framework::Megatron,
            ..autocast.clone()
        };
        assert_eq!(reduced_grad_bytes(&mixed), 2.0);
        assert_eq!(reduced_grad_bytes(&autocast), 4.0);
        assert_eq!(reduced_grad_bytes(&fp32), 4.0);
        assert_eq!(reduced_grad_bytes(&megatron), 2.0);
        let params = m
            .transformer()
            .map(|_| dp_bytes(&mixed) / (2.0 * 2.0 * 7.0 / 8.0));
        assert!(params.is_some_and(|p| p > 6.5e9 && p < 7.0e9), "{params:?}");
        assert_eq!(dp_bytes(&autocast), 2.0 * dp_bytes(&mixed));
        assert_eq!(dp_bytes(&fp32), 2.0 * dp_bytes(&mixed));
    }
}
