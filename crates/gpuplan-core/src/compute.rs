//! Shape-aware compute time of one micro-batch on the slowest device (issue 10, item 1).
//!
//! Instead of `FLOPs ÷ (peak × one efficiency)`, a transformer micro-batch is timed as the sum of
//! - every linear's three GEMMs (forward, activation gradient, weight gradient), each from its
//!   (M, N, K) on one tensor-parallel shard: `max(2MNK ÷ (peak × η_gemm × q), bytes ÷ (BW × η_bw))`
//!   with `q` the tile and wave quantization on the chip's SM count and the split-K factor a
//!   short GEMM runs with ([`gemm_kernels`]; a roofline per GEMM);
//! - attention at its own kernel's efficiency (FlashAttention) or as batched GEMMs plus the
//!   materialised s×s softmax/dropout traffic (eager);
//! - element-wise operations (norms, residual adds, activation functions, rotary, dropout),
//!   bandwidth-bound from the bytes they read and write.
//!
//! The optimizer step (bandwidth-bound, once per step) is [`optimizer_time`]. MFU stays an output
//! of `train::training_step`. Every constant is named in `constants::Tunables` or below with its
//! source.

use crate::constants::Tunables;
use crate::hardware::GpuSpec;
use crate::layout::WeightSplit;
use crate::model::{MlpKind, ParamBreakdown, Positional, Structure, TransformerSpec};
use crate::units::{Bandwidth, FlopRate};
use crate::workload::{AttentionImpl, Parallelism, Recompute, TrainingSetup};
use serde::Serialize;

pub mod memo;
pub mod moe;

/// Output tile edge of the tensor-core GEMM kernels assumed for quantization (cuBLAS/CUTLASS
/// 128×128 and 128×256 tiles are the common training choices; NVIDIA's "Matrix Multiplication
/// Background" guide uses 128×128 in its tile/wave-quantization examples).
pub const GEMM_TILE: u64 = 128;

/// FlashAttention's backward pass does 2.5× its forward FLOPs (5 matmuls against 2; FlashAttention-2
/// paper, arXiv 2307.08691 §4 counts it so when reporting backward TFLOP/s).
pub const FLASH_BACKWARD_RATIO: f64 = 2.5;

/// Causal attention computes the pairs at or below the diagonal, half the s×s of a full count
/// (FlashAttention skips the blocks above it; model FLOPs, `training_flops_per_token`, count the
/// same half: NeMo's `attention_flops_calculator` counts the causal mask's s(s+1)/2 nonzeros).
pub const CAUSAL_WORK_FRACTION: f64 = 0.5;

/// Bytes an eager softmax moves per score element: forward reads and writes the 2-byte scores once
/// (scale, mask and softmax fused, as Megatron's fused kernels do); backward reads y and dy and
/// writes dx. Dropout adds one read + write + a 1-byte mask each way.
const SOFTMAX_BYTES_FWD: f64 = 4.0;
const SOFTMAX_BYTES_BWD: f64 = 6.0;
const DROPOUT_BYTES: f64 = 5.0;
/// Bytes per score element of Hugging Face's unfused eager attention chain (no `torch.compile`),
/// as the modeling files write it: `attn_weights = torch.matmul(q, kᵀ) / math.sqrt(head_dim)`
/// (a scale kernel: read + write), `attn_weights + attention_mask` (read scores + mask, write),
/// `softmax` (read + write): 3 kernels, 7 score-sized 2-byte transfers forward
/// (huggingface.co/baichuan-inc/Baichuan2-13B-Chat modeling_baichuan.py @c6f8592a
/// `BaichuanAttention.forward`, vendored in intel-analytics/ipex-llm
/// python/llm/src/bigdl/llm/transformers/models/baichuan2.py; transformers 4.34.1
/// models/llama/modeling_llama.py `LlamaAttention.forward` has the same scale, add and
/// softmax). Backward: softmax's (read y and dy, write dx) and the scale's (read + write); the
/// mask add passes its gradient through. Model-specific extras (Baichuan2's `torch.max` clamp
/// after the add, Llama's fp32 softmax upcast) are not counted.
const HF_EAGER_SOFTMAX_BYTES_FWD: f64 = 14.0;
const HF_EAGER_SOFTMAX_BYTES_BWD: f64 = 10.0;
/// Bytes per score element that an unfused scale and bias add add to Megatron's fused chain
/// (`unfused_score_bias`, ModelLink's ALiBi core attention, modellink/model/transformer.py
/// @ba10f5fd line 613): forward, `bmm(q, kᵀ) * (1 / norm_factor)` reads and writes the 2-byte
/// scores and `+ beta * alibi` reads them again (the [b·heads, 1, s] bias is broadcast, a row per
/// head) and writes the sum: 8; backward, the add passes its gradient through and the scale reads
/// and writes it: 4.
const UNFUSED_BIAS_BYTES_FWD: f64 = 8.0;
const UNFUSED_BIAS_BYTES_BWD: f64 = 4.0;
/// Bytes per element of q and of k that the same path copies before its score GEMM: `q_trans =
/// query_layer.transpose(0, 1).contiguous()` and `k_trans = key_layer.transpose(0,
/// 1).transpose(1, 2).contiguous()` (line 611-612) read and write each 2-byte element once per
/// forward pass. Their backward (a clone's: the gradient passes through) is not counted.
const UNFUSED_BIAS_QK_COPY_BYTES: f64 = 4.0;

/// The rates one device computes at.
#[derive(Clone, Copy, Debug)]
pub struct ChipRates {
    /// GEMM peak × η_gemm (the calibrated `train_efficiency_*` product).
    pub gemm: FlopRate,
    /// Attention kernel rate: half-precision peak × attention efficiency.
    pub attention: FlopRate,
    /// Achievable memory bandwidth, `None` when the chip has no sourced bandwidth.
    pub memory: Option<Bandwidth>,
    /// Streaming multiprocessors (wave quantization); `None`: no wave quantization.
    pub sms: Option<u64>,
    /// Bytes per activation element (2 for 16-bit training, 4 for fp32, 1 for FP8 GEMM inputs).
    pub act_bytes: f64,
    /// Element-wise ops run as separate eager PyTorch kernels (the `huggingface` framework
    /// without `torch.compile`): RMSNorm, rotary and SwiGLU written in Python move the bytes of
    /// every intermediate ([`EAGER_RMSNORM_BYTES`] …). Off: fused kernels (Megatron/TE, Apex,
    /// Inductor under `torch.compile`).
    pub eager_elementwise: bool,
    /// Bytes moved per GEMM-input element to cast it to FP8 ([`FP8_CAST_BYTES`] in FP8
    /// training, 0 otherwise).
    pub cast_bytes: f64,
    /// Each GEMM runs the tile shape and split-K factor that run it fastest
    /// ([`AUTOTUNED_TILES`], [`gemm_kernels`]): engines that time their tactics per shape
    /// (serving). Off: the fixed [`GEMM_TILE`] square, split along K only below one wave.
    pub autotuned: bool,
}

/// Bytes per element of an eager PyTorch RMSNorm forward (`x.float()`, `pow(2)`, `mean`,
/// `x * rsqrt`, `type_as`, `* weight`, as in HF Transformers' LlamaRMSNorm and torchtitan's
/// default `rmsnorm`): read 2 + write 4, read 4 + write 4, read 4, read 4 + write 4, read 4 +
/// write 2, read 2 + write 2 = 36 B, against 4 B (read + write 2 B) for a fused kernel.
pub const EAGER_RMSNORM_BYTES: f64 = 36.0;
/// Bytes per element of q and k for eager rotary embeddings (upcast to fp32 or complex: read 2 +
/// write 4; the complex/rotate-half multiply: read 4 + 4 (the table) + write 4; back to 16 bit:
/// read 4 + write 2) = 24 B, against 4 B fused.
pub const EAGER_ROTARY_BYTES: f64 = 24.0;
/// Bytes per FFN element of an eager SwiGLU (`silu(gate)`: read 2 + write 2; `* up`: read 2 + 2,
/// write 2) = 10 B, against 6 B fused (read gate and up, write the product).
pub const EAGER_SWIGLU_BYTES: f64 = 10.0;

/// FP8 training (Transformer Engine) casts every GEMM input before the GEMM: read the 16-bit
/// tensor (2 B), write its FP8 copy (1 B) and, for the backward GEMMs that need the other
/// layout on Hopper, a transposed FP8 copy (1 B): 4 bytes per element of the activation input
/// (forward) and of the output gradient (backward), bandwidth-bound. The weight casts are
/// counted once per micro-batch the same way.
pub const FP8_CAST_BYTES: f64 = 4.0;

/// GPU time of one kernel beyond the bytes it streams (launch ramp, a single-thread body or a
/// wave's tail), seconds: the shortest FP8 quantize kernels timed on an H100 take 2.9-3.4 us
/// for one row of 896-7,168 elements (vllm-project/vllm pull request 25427, 2025-09-22, H100
/// benchmark of `bench_per_token_quant_fp8.py`: 2.88 us Torch compiled, 3.26 us CUDA, 2.94 us
/// Triton at hidden 896, batch 1). A measured floor, not fitted to any case.
pub const SMALL_KERNEL_SECONDS: f64 = 3.0e-6;

/// Kernels one per-tensor current-scaling quantize launches (Transformer Engine
/// `Float8CurrentScalingQuantizer::quantize_impl`, transformer_engine/pytorch/csrc/quantizer.cpp
/// @71bbefbf (TE 2.14, NeMo 26.04) lines 876-895: `nvte_compute_amax_with_config`, which first
/// runs `zero_amax_kernel<<<1, 1>>>` and then the amax reduction (common/recipe/
/// current_scaling.cu lines 75, 97-107), `nvte_compute_scale_from_amax`
/// (`compute_scale_from_amax_kernel<<<1, 1>>>`, line 258) and `nvte_quantize_v2`): 4.
pub const CURRENT_SCALING_QUANTIZE_KERNELS: f64 = 4.0;

/// Compute time of one micro-batch on the slowest device, by kind of work.
#[derive(Clone, Copy, Debug, Default, PartialEq, Serialize)]
pub struct ComputeParts {
    pub gemm_s: f64,
    pub attention_s: f64,
    pub elementwise_s: f64,
    /// One layer's attention kernels in one forward pass of one micro-batch (all ring rounds
    /// under context parallelism): what a ring round's transfer can hide behind. Not a part of
    /// the split (inside `attention_s`), so not in the JSON.
    #[serde(skip)]
    pub attention_fwd_layer_s: f64,
    /// One layer's compute (forward and backward) for one micro-batch, the layers' mean: what
    /// the EP all-to-all overlap pairs with (train/step.rs `ep_phase`). Not in the JSON.
    #[serde(skip)]
    pub layer_s: f64,
    /// The routed experts' GEMMs (forward, backward and weight gradients) of one MoE layer for
    /// one micro-batch: the part of `layer_s` between dispatch and combine. Not in the JSON.
    #[serde(skip)]
    pub expert_layer_s: f64,
    /// One average layer's forward GEMM seconds for one micro-batch, by the linears each TP
    /// collective of the layer runs beside ([`TpPair`]: attention input, attention output, MLP
    /// input, MLP output): what TP-comm overlap can hide a collective behind
    /// (train/step.rs `tp_phase`). Not in the JSON.
    #[serde(skip)]
    pub tp_pair_gemm_s: [f64; 4],
    /// The pipeline stage these seconds are of (the slowest; absent at pp = 1).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub slowest_stage: Option<crate::pipeline::Stage>,
}

impl ComputeParts {
    pub fn total(&self) -> f64 {
        self.gemm_s + self.attention_s + self.elementwise_s
    }
}

/// The linears a layer's TP collectives run beside under TP-comm overlap, one collective per
/// pass each (with sequence parallelism): the all-gather before the column-parallel q/k/v
/// (forward) and the reduce-scatter of their input gradient beside their weight-gradient GEMM
/// (backward); the reduce-scatter after the row-parallel output projection (forward) and the
/// all-gather of its output gradient beside its input-gradient GEMM (backward); the MLP's
/// input and output linears the same way.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum TpPair {
    AttentionIn = 0,
    AttentionOut = 1,
    MlpIn = 2,
    MlpOut = 3,
}

impl TpPair {
    /// The pair linear `name` belongs to: the row-parallel ones by their output, the MLP's
    /// inputs by name, every other linear (q/k/v, MLA's projections, cross-attention's) the
    /// attention's input.
    pub fn of(name: &str) -> TpPair {
        match name {
            "o_proj" | "cross_o_proj" => TpPair::AttentionOut,
            "gate_proj" | "up_proj" | "fc1" => TpPair::MlpIn,
            "down_proj" | "fc2" => TpPair::MlpOut,
            _ => TpPair::AttentionIn,
        }
    }
}

/// Share of the tensor cores a GEMM's output tiles keep busy with the fixed [`GEMM_TILE`]
/// square (training's GEMMs): tile quantization (partial edge tiles) times wave quantization
/// (the last wave of tiles over the SMs runs part-empty). Fewer tiles than SMs are not charged
/// a part-empty wave: cuBLAS's choice for them (split-K or smaller tiles, its heuristics are not
/// published) is taken to fill the chip. Serving engines' kernels: [`gemm_kernels`].
pub fn quantization(m: u64, n: u64, sms: Option<u64>) -> f64 {
    let fixed = GemmKernel {
        tile: (GEMM_TILE, GEMM_TILE),
        split_k: 1,
    };
    let tiles = m.div_ceil(GEMM_TILE).saturating_mul(n.div_ceil(GEMM_TILE));
    let sms = sms.filter(|&s| tiles >= s);
    fixed.quantization(m, n, 1, sms)
}

/// Largest split-K factor a GEMM kernel takes: TensorRT-LLM's CUTLASS GEMM runners pass
/// `SPLIT_K_LIMIT = 7` to their heuristic (NVIDIA/TensorRT-LLM
/// cpp/tensorrt_llm/kernels/cutlass_kernels/int8_gemm/int8_gemm.h @b777bd64, and the
/// weight-only fpA_intB runner), which tries every factor 1..=7 per tile
/// (cpp/tensorrt_llm/kernels/cutlass_kernels/cutlass_heuristic.cpp
/// `estimate_best_config_from_occupancies`).
pub const SPLIT_K_LIMIT: u64 = 7;

/// Depth of one CTA main-loop step along K: "All tile sizes have a k_tile of 64"
/// (cutlass_heuristic.cpp `is_valid_split_k_factor`); a split shorter than one step is not a
/// kernel.
pub const SPLIT_K_MIN_DEPTH: u64 = 64;

/// Output columns per SM from which the heuristic splits no more: `max_split_k = n >=
/// multi_processor_count * 256 ? 1 : split_k_limit` (cutlass_heuristic.cpp).
pub const SPLIT_K_MAX_COLUMNS_PER_SM: u64 = 256;

/// One GEMM kernel configuration: its output tile (rows, columns) and its split-K factor.
/// Split-K runs `split_k` CTAs per output tile, each over K / `split_k`, and sums them
/// serially through the output (`SplitKStyle::SPLIT_K_SERIAL`, the only style TensorRT-LLM's
/// heuristic picks; CUTLASS's `GemmSplitKSerial`: each slice after the first waits on the
/// tile's semaphore, reads the partial output, adds its own and writes it back).
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct GemmKernel {
    pub tile: (u64, u64),
    pub split_k: u64,
}

impl GemmKernel {
    /// Share of the tensor cores its CTAs keep busy on a GEMM with an m×n output: tile
    /// quantization (partial edge tiles) times wave quantization over `sms` SMs (tiles ×
    /// `split_k` CTAs, one per SM at a time; the last wave runs part-empty, as does a single
    /// wave with fewer CTAs than SMs: NVIDIA's "Matrix Multiplication Background User's
    /// Guide", §"Wave Quantization").
    /// `groups` GEMMs of that shape in one launch (a grouped MoE GEMM) share the waves.
    pub fn quantization(&self, m: u64, n: u64, groups: u64, sms: Option<u64>) -> f64 {
        if m == 0 || n == 0 {
            return 1.0;
        }
        let (tm, tn) = (m.div_ceil(self.tile.0), n.div_ceil(self.tile.1));
        // A serving batch's prefill can hold 10^13 rows: past u64, quantization is negligible.
        let padded = [tn, self.tile.0, self.tile.1]
            .iter()
            .try_fold(tm, |acc, &x| acc.checked_mul(x));
        let (Some(area), Some(padded)) = (m.checked_mul(n), padded) else {
            return 1.0;
        };
        let tile_q = area as f64 / (padded as f64);
        let ctas = (tm * tn).checked_mul(self.split_k.saturating_mul(groups.max(1)));
        let wave_q = match (sms, ctas) {
            (Some(s), Some(ctas)) if s > 0 => ctas as f64 / (ctas.div_ceil(s) * s) as f64,
            _ => 1.0,
        };
        tile_q * wave_q
    }

    /// Bytes the serial split-K's partial sums add to an m×n output of `out_bytes` elements:
    /// each slice after the first reads and writes the output tile once. Charged at DRAM
    /// bandwidth, an upper bound (an output of a few MB can stay in L2).
    pub fn partial_bytes(&self, m: u64, n: u64, out_bytes: f64) -> f64 {
        self.split_k.saturating_sub(1) as f64 * 2.0 * m as f64 * n as f64 * out_bytes
    }
}

/// The kernels a serving engine chooses among for a GEMM (m, n, k): every tile of
/// [`AUTOTUNED_TILES`] with every split-K factor TensorRT-LLM's heuristic tries
/// (1..=[`SPLIT_K_LIMIT`], none past [`SPLIT_K_MAX_COLUMNS_PER_SM`] columns per SM, each split
/// at least [`SPLIT_K_MIN_DEPTH`] deep); a grouped (MoE) GEMM is not split (the MoE GEMM runner
/// of FasterTransformer and TensorRT-LLM: `split_k_limit = 1; // MoE GEMM does not support
/// split-k.`, moe_gemm_kernels_template.h).
pub fn gemm_kernels(
    n: u64,
    k: u64,
    sms: Option<u64>,
    grouped: bool,
) -> impl Iterator<Item = GemmKernel> {
    let max_split = match sms {
        Some(s) if !grouped && s > 0 && n < s.saturating_mul(SPLIT_K_MAX_COLUMNS_PER_SM) => {
            SPLIT_K_LIMIT.min(k / SPLIT_K_MIN_DEPTH).max(1)
        }
        _ => 1,
    };
    AUTOTUNED_TILES
        .iter()
        .flat_map(move |&tile| (1..=max_split).map(move |split_k| GemmKernel { tile, split_k }))
}

/// Output tiles (rows × columns) an engine that picks its GEMM kernel per shape chooses among:
/// the tensor-core threadblock shapes with 64 to 256 rows of TensorRT-LLM's CUTLASS
/// configurations (`CutlassTileConfig`: CtaShape64x128, 128x64, 128x128, 128x256, 256x128;
/// cpp/tensorrt_llm/cutlass_extensions/include/cutlass_extensions/gemm_configs.h @b35ac1b6).
/// Serving engines choose a GEMM kernel per problem shape (cuBLAS's heuristics take the
/// shape; FasterTransformer times its GEMM configurations per shape; TensorRT's auto-tuner
/// times tactics, at an optimization profile's kOPT shape), so the configuration (tile and
/// split-K factor, [`gemm_kernels`]) that runs fastest is charged; per-tile efficiency is taken
/// as equal across them.
pub const AUTOTUNED_TILES: [(u64, u64); 5] =
    [(128, 128), (64, 128), (128, 64), (128, 256), (256, 128)];

/// Seconds of one GEMM C[m×n] = A[m×k]·B[k×n]: the slower of its compute and its memory traffic.
pub fn gemm_seconds(m: u64, n: u64, k: u64, r: &ChipRates) -> f64 {
    let bytes = r.act_bytes * (m * k + k * n + m * n) as f64;
    gemm_roofline(Shape::one(m, n, k), bytes, r)
}

/// [`gemm_seconds`] with the k×n operand (a weight) stored at `weight_bytes` per element, as a
/// serving engine's FP8 or weight-only-quantised linears are; the activations stay at
/// `act_bytes`.
pub fn gemm_seconds_weights(m: u64, n: u64, k: u64, weight_bytes: f64, r: &ChipRates) -> f64 {
    weights_roofline(Shape::one(m, n, k), weight_bytes, r)
}

/// [`gemm_seconds_weights`] for `groups` GEMMs of one shape run as one grouped GEMM (a MoE
/// layer's experts: TensorRT-LLM's MoE GEMM and vLLM's fused MoE launch every expert's tiles
/// together, so they share the waves). `groups` may be fractional (the expected experts a
/// batch touches): FLOPs and bytes scale with it, the CTAs with its ceiling.
pub fn gemm_seconds_grouped(
    groups: f64,
    m: u64,
    n: u64,
    k: u64,
    weight_bytes: f64,
    r: &ChipRates,
) -> f64 {
    let shape = Shape {
        m,
        n,
        k,
        groups,
        grouped: true,
    };
    weights_roofline(shape, weight_bytes, r)
}

/// [`gemm_roofline`] with the weight operand at `weight_bytes` per element.
fn weights_roofline(g: Shape, weight_bytes: f64, r: &ChipRates) -> f64 {
    let (mf, nf, kf) = (g.m as f64, g.n as f64, g.k as f64);
    let bytes = g.groups * (r.act_bytes * (mf * kf + mf * nf) + weight_bytes * (kf * nf));
    gemm_roofline(g, bytes, r)
}

/// A GEMM's shape: `groups` GEMMs of (m, n, k), one grouped launch when `grouped`.
#[derive(Clone, Copy)]
struct Shape {
    m: u64,
    n: u64,
    k: u64,
    groups: f64,
    grouped: bool,
}

impl Shape {
    fn one(m: u64, n: u64, k: u64) -> Self {
        Shape {
            m,
            n,
            k,
            groups: 1.0,
            grouped: false,
        }
    }
}

/// The slower of a GEMM's compute at the quantized rate and its `bytes` over the bandwidth; for
/// an autotuned engine the fastest of its kernels ([`gemm_kernels`]), whose split-K partial
/// sums add to the bytes.
fn gemm_roofline(g: Shape, bytes: f64, r: &ChipRates) -> f64 {
    let flops = 2.0 * g.groups * g.m as f64 * g.n as f64 * g.k as f64;
    let time = |q: f64, traffic: f64| {
        let t_compute = if r.gemm.0 > 0.0 {
            flops / (r.gemm.0 * q)
        } else {
            f64::INFINITY
        };
        t_compute.max(r.memory.map_or(0.0, |bw| traffic / bw.0.max(1.0)))
    };
    if !r.autotuned {
        return time(quantization(g.m, g.n, r.sms), bytes);
    }
    let groups = g.groups.ceil().max(1.0) as u64;
    gemm_kernels(g.n, g.k, r.sms, g.grouped)
        .map(|kernel| {
            let q = kernel.quantization(g.m, g.n, groups, r.sms);
            let partial = g.groups * kernel.partial_bytes(g.m, g.n, r.act_bytes);
            time(q, bytes + partial)
        })
        .fold(f64::INFINITY, f64::min)
}

/// Which FP8 casts a linear pays, as shares of [`FP8_CAST_BYTES`] per element.
#[derive(Clone, Copy, Debug)]
struct Casts {
    /// Of the activation input (0: fused into the LayerNorm that feeds it).
    input: f64,
    /// Of the output gradient.
    grad: f64,
    /// Of the weight, per micro-batch (1/m: cast once per optimizer step and cached).
    weight: f64,
}

const EXPLICIT_CASTS: Casts = Casts {
    input: 1.0,
    grad: 1.0,
    weight: 1.0,
};

/// The FP8 casts of one linear. Delayed scaling under Megatron-Core's Transformer Engine layers:
/// the linears fed by a norm (fused q/k/v, fc1 or gate+up) are `TELayerNormColumnParallelLinear`
/// (TE `LayerNormLinear`: the norm writes the FP8 input itself), and every TE linear is called
/// with `is_first_microbatch`, so its FP8 weight copy is cast on the first micro-batch of a step
/// and reused (NVIDIA/Megatron-LM megatron/core/transformer/custom_layers/transformer_engine.py,
/// `TELinear.forward`); other stacks (llm-foundry's `te.Linear` swaps) cast every input and
/// weight per micro-batch. Tensorwise scaling: see [`tensorwise_casts`].
fn fp8_casts(setup: &TrainingSetup, t: &TransformerSpec, name: &str, d_in: u64) -> Casts {
    let megatron = setup.framework == crate::workload::Framework::Megatron;
    let norm_input = d_in == t.hidden && !crate::layout::is_row_parallel(name);
    let norm_fed = megatron && norm_input;
    let weight = if megatron {
        1.0 / setup.grad_accum.max(1) as f64
    } else {
        1.0
    };
    match setup.fp8_scaling {
        crate::workload::Fp8Scaling::Delayed if megatron => Casts {
            input: if norm_fed { 0.0 } else { 1.0 },
            grad: 1.0,
            weight,
        },
        crate::workload::Fp8Scaling::Delayed => EXPLICIT_CASTS,
        crate::workload::Fp8Scaling::Tensorwise if megatron => {
            let mut c = tensorwise_casts(true, norm_fed, weight);
            if norm_fed {
                // One LayerNormLinear per fused module quantizes its norm output once for all
                // its outputs: linear_qkv (q, k, v) and fc1 (gate and up when gated).
                c.input /= input_users(name);
            }
            if norm_fed && setup.parallel.sequence_parallel {
                // The LayerNorm quantizes its sequence-parallel shard before the FP8 all-gather
                // (module/layernorm_linear.py @d0067d0d lines 280-310: `with_quantized_norm`,
                // `gather_along_first_dim(ln_out, tp_group, quantizer=quantizer)`).
                c.input /= setup.parallel.tp.max(1) as f64;
            }
            c
        }
        crate::workload::Fp8Scaling::Tensorwise => {
            let mut c = tensorwise_casts(false, false, weight);
            let tp = setup.parallel.tp.max(1);
            if tp > 1 && norm_input {
                // torchao's `PrepareFloat8ModuleInput` (torchtitan's float8 TP plan for the attention
                // and feed-forward inputs) casts the sequence-parallel shard once before the float8
                // all-gather, for every float8 user of that input (q/k/v: 3, gate/up: 2), and the
                // linears, handed a float8 input, do not cast it again in backward
                // (float8_tensor_parallel.py @36027d82 lines 172-178; float8_linear.py lines 179-181;
                // torchtitan parallelize_llama.py @ba246978 lines 152-196).
                c.input =
                    (AMAX_PASS_SHARE + 3.0 / FP8_CAST_BYTES) / (tp as f64 * input_users(name));
            }
            c
        }
    }
}

/// The linears that read one norm output: q, k and v (Megatron's linear_qkv, torchao's attention
/// input) and gate and up (fc1, the feed-forward input); each of them carries its share of the one
/// cast that input gets.
fn input_users(name: &str) -> f64 {
    match name {
        "q_proj" | "k_proj" | "v_proj" => 3.0,
        "gate_proj" | "up_proj" => 2.0,
        _ => 1.0,
    }
}

/// Bytes per element of the amax pass that per-tensor current scaling runs over a 16-bit tensor
/// before casting it (read 2 B), as a share of [`FP8_CAST_BYTES`].
const AMAX_PASS_SHARE: f64 = 2.0 / FP8_CAST_BYTES;

/// Casts under per-tensor current scaling. Transformer Engine's `Float8CurrentScalingQuantizer`
/// computes the amax over its input before quantizing it (`nvte_compute_amax` then
/// `nvte_quantize_v2`: transformer_engine/pytorch/csrc/quantizer.cpp @d0067d0d lines 980-1028),
/// and its LayerNorm computes the norm and its amax in 16 bit, then quantizes
/// (`FUSED_NORM_AMAX_FP8`, csrc/extensions/normalization.cpp lines 90-118), so a norm-fed input
/// pays a plain cast's bytes (write and read 16 bit, write FP8) and every other input and
/// gradient the amax pass on top. torchao's float8 linear (tensorwise) takes
/// `torch.max(torch.abs(x))` before each cast (torchao/float8/float8_utils.py @36027d82 l.65),
/// saves the 16-bit input and weight and casts them again in backward, and casts the output
/// gradient twice, once per layout (float8_linear.py lines 45, 56, 73, 113, 131, 167, 185):
/// input 2 × (2 + 3) B, weight the same per micro-batch, gradient 2 + 3 + 3 B (one amax for
/// both of its casts, Inductor merging the identical reduction: assumption).
fn tensorwise_casts(megatron: bool, norm_fed: bool, weight: f64) -> Casts {
    let amax_cast = AMAX_PASS_SHARE + 3.0 / FP8_CAST_BYTES;
    if megatron {
        Casts {
            input: if norm_fed { 1.0 } else { 1.0 + AMAX_PASS_SHARE },
            grad: 1.0 + AMAX_PASS_SHARE,
            weight,
        }
    } else {
        Casts {
            input: 2.0 * amax_cast,
            grad: AMAX_PASS_SHARE + 6.0 / FP8_CAST_BYTES,
            weight: 2.0 * amax_cast,
        }
    }
}

/// The FP8 casts of one linear ([`fp8_casts`]), with a routed expert's input under Megatron-Core
/// quantized by its grouped fc1 rather than by a fused norm ([`routed_expert_input_cast`]).
fn linear_casts(setup: &TrainingSetup, t: &TransformerSpec, l: &crate::model::Linear) -> Casts {
    let mut c = fp8_casts(setup, t, l.name, l.d_in);
    if l.copies > 1 && setup.framework == crate::workload::Framework::Megatron {
        let per_cast = match setup.fp8_scaling {
            crate::workload::Fp8Scaling::Tensorwise => 1.0 + AMAX_PASS_SHARE,
            crate::workload::Fp8Scaling::Delayed => 1.0,
        };
        c.input = routed_expert_input_cast(l.name) * per_cast;
    }
    c
}

/// Fixed GPU seconds of one routed expert's FP8 quantizes per micro-batch under Megatron-Core
/// with per-tensor current scaling (`fp8_scaling = "tensorwise"`, Megatron-Bridge's `fp8_cs`).
/// `TEGroupedMLP`'s fc1 and fc2 are Transformer Engine `GroupedLinear`s, which quantize their
/// input in forward and their output gradient in backward with one `tex.split_quantize` over
/// the local experts' row splits (module/grouped_linear.py @71bbefbf lines 151-156 and
/// 356-366); `split_quantize` has a fused multi-tensor kernel for delayed scaling only ('Note:
/// Currently only have fused kernel for FP8 delayed scaling', csrc/extensions/cast.cpp
/// @71bbefbf line 271; the same at v2.9 line 117, v2.12 line 119 and at 4220403e, the TE of
/// Megatron-Bridge v0.5.0), so current scaling quantizes every expert's split on its own:
/// [`CURRENT_SCALING_QUANTIZE_KERNELS`] kernels each, at [`SMALL_KERNEL_SECONDS`] beyond the
/// bytes the casts already count. Counted on the linear that carries its grouped linear's
/// input cast ([`routed_expert_input_cast`]: fc1 on `gate_proj`, fc2 on `down_proj`): one
/// input quantize per forward pass and one gradient quantize. Delayed scaling's one fused kernel
/// per grouped linear and the 16-bit paths pay none.
fn expert_quantize_seconds(setup: &TrainingSetup, l: &crate::model::Linear, r: &ChipRates) -> f64 {
    let per_expert_quantize = r.cast_bytes > 0.0
        && l.copies > 1
        && setup.framework == crate::workload::Framework::Megatron
        && setup.fp8_scaling == crate::workload::Fp8Scaling::Tensorwise
        && routed_expert_input_cast(l.name) > 0.0;
    if !per_expert_quantize {
        return 0.0;
    }
    (forward_passes(setup) + 1.0) * CURRENT_SCALING_QUANTIZE_KERNELS * SMALL_KERNEL_SECONDS
}

/// Input casts of a routed expert's linear under Megatron-Core: an MoE layer's pre-MLP norm is a
/// separate norm module (`pre_mlp_layernorm=backend.layer_norm() if num_experts else
/// IdentityOp`, megatron/core/models/gpt/gpt_layer_specs.py @d98e8a64), not a LayerNormLinear,
/// and the dispatcher permutes its 16-bit output, so `TEGroupedMLP`'s fc1 (Transformer Engine
/// `GroupedLinear`) quantizes the routed rows itself (megatron/core/transformer/moe/experts.py,
/// same commit); gate and up are one fc1 there (`ffn_hidden_size * 2` when gated), reading one
/// input (counted on `gate_proj`).
fn routed_expert_input_cast(name: &str) -> f64 {
    if name == "up_proj" {
        0.0
    } else {
        1.0
    }
}

/// Forward, activation-gradient and weight-gradient GEMMs of one linear on one TP shard, with
/// `tokens` rows. Column-parallel (d_out ≥ d_in) splits N, row-parallel splits K.
fn linear_seconds(tokens: u64, d_in: u64, d_out: u64, tp: u64, frozen: bool, r: &ChipRates) -> f64 {
    linear_parts_cast(tokens, d_in, d_out, tp, frozen, EXPLICIT_CASTS, r).1
}

/// [`linear_seconds`] with the casts `casts` and its forward GEMM beside it: (forward GEMM, all
/// of it).
fn linear_parts_cast(
    tokens: u64,
    d_in: u64,
    d_out: u64,
    tp: u64,
    frozen: bool,
    casts: Casts,
    r: &ChipRates,
) -> (f64, f64) {
    let (k, n) = if d_out >= d_in {
        (d_in, d_out.div_ceil(tp))
    } else {
        (d_in.div_ceil(tp), d_out)
    };
    let fwd = gemm_seconds(tokens, n, k, r);
    let dgrad = gemm_seconds(tokens, k, n, r);
    let cast = r.memory.map_or(0.0, |bw| {
        r.cast_bytes
            * ((tokens * k) as f64 * casts.input
                + (tokens * n) as f64 * casts.grad
                + (k * n) as f64 * casts.weight)
            / bw.0.max(1.0)
    });
    let wgrad = if frozen {
        0.0
    } else {
        gemm_seconds(k, n, tokens, r)
    };
    (fwd, fwd + dgrad + wgrad + cast)
}

/// The rates of the 16-bit GEMMs that FP8 training leaves in 16 bit (adapters, the output
/// layer): the FP8 rate is twice the 16-bit one on every chip with FP8 tensor cores, and no casts.
fn sixteen_bit(r: &ChipRates) -> ChipRates {
    let mut a16 = *r;
    a16.act_bytes = r.act_bytes.max(2.0);
    if r.cast_bytes > 0.0 {
        a16.gemm = FlopRate(r.gemm.0 / 2.0);
    }
    a16.cast_bytes = 0.0;
    a16
}

/// Forward, activation-gradient and weight-gradient GEMMs of one LoRA adapter (A: d_in → r,
/// B: r → d_out; Hu et al. 2021) next to a frozen linear with `tokens` rows, plus the two adds
/// that join it to the base path (B's output into the base output in forward, A's input gradient
/// into the base input gradient in backward: read 2, write 1 element each). The adapters run in
/// 16 bit even in FP8 training (Transformer Engine casts only the base GEMMs): their rank-r GEMMs
/// are memory-bound at common ranks, so the roofline charges the re-read of the b·s·h input and
/// the write of the b·s·d_out output, the mechanism a flat PEFT efficiency factor stood for.
/// `shared_input`: A is shared with the other projections of a fused q/k/v module (GPT-2
/// `c_attn`), so only B is counted here. The larger dimension is split over TP as the base is.
/// `pass`: the element-wise bytes of PEFT's forward around the adapter ([`peft_adapter_pass`]),
/// charged once for the forward and once for the backward, which moves as many.
#[allow(clippy::too_many_arguments)]
fn adapter_seconds(
    tokens: u64,
    d_in: u64,
    d_out: u64,
    rank: u64,
    tp: u64,
    shared_input: bool,
    pass: AdapterPass,
    r: &ChipRates,
) -> f64 {
    let (d_in, d_out) = if d_out >= d_in {
        (d_in, d_out.div_ceil(tp))
    } else {
        (d_in.div_ceil(tp), d_out)
    };
    let a16 = sixteen_bit(r);
    let rank = rank.max(1);
    let three = |m: u64, n: u64, k: u64| {
        gemm_seconds(m, n, k, &a16) + gemm_seconds(m, k, n, &a16) + gemm_seconds(k, n, m, &a16)
    };
    let a = if shared_input {
        0.0
    } else {
        three(tokens, rank, d_in)
    };
    let b = three(tokens, d_out, rank);
    let d_in_read = if shared_input { 0 } else { d_in };
    let adds = r.memory.map_or(0.0, |bw| {
        let join = 3.0 * a16.act_bytes * (d_out + d_in_read) as f64;
        let around = 2.0 * (pass.per_in * d_in_read as f64 + pass.per_out * d_out as f64);
        tokens as f64 * (join + around) / bw.0.max(1.0)
    });
    a + b + adds
}

/// Bytes per element that PEFT's LoRA forward moves around one adapter's GEMMs, besides the add
/// that joins it to the base output: per input element (`per_in`) and per output element
/// (`per_out`) of one forward pass. PEFT's `lora.Linear.forward` (v0.5.0 src/peft/tuners/lora.py
/// l.893-917; v0.6.2 src/peft/tuners/lora/layer.py l.300-323, the same ops) runs
/// `x = x.to(lora_A.weight.dtype)` then `result += lora_B(lora_A(dropout(x))) * scaling`:
/// - the cast of the 16-bit input to the adapter dtype where they differ (fp32 adapters, PEFT's
///   default): read `a`, write `p` bytes;
/// - the dropout, where `lora_dropout > 0` (`nn.Dropout`, CUDA's fused `native_dropout`): read
///   `p`, write `p` and a 1-byte mask;
/// - `lora_A`'s input cast back to the activations' 16 bit for its GEMM (autocast's `linear` in
///   bf16, as [`adapter_seconds`] times it) where the adapters are wider: read `p`, write `a`;
/// - `* scaling` on `lora_B`'s output: read and write `a` per output element.
///
/// Each op's backward moves as many bytes (the casts' backward casts the gradient back, dropout's
/// multiplies it by the saved mask: read `p` + 1, write `p`; the scaling's multiplies it again),
/// so a recomputed forward and the backward each pay one more pass. torchtune's `LoRALinear` is
/// the same with bf16 adapters and `lora_dropout: 0.0`: the scaling alone. Zero outside eager
/// PyTorch LoRA (`hugging_face`, not compiled, not QLoRA, whose bitsandbytes layer casts only
/// without autocast): Megatron's and LitGPT's adapters keep the GEMMs and the joining add.
pub fn peft_adapter_pass(setup: &TrainingSetup, act_bytes: f64) -> AdapterPass {
    let eager_peft = setup.framework == crate::workload::Framework::HuggingFace
        && !setup.compiled
        && setup.task == crate::workload::TrainTask::Lora;
    if !eager_peft {
        return AdapterPass::default();
    }
    let (a, p) = (act_bytes, setup.adapter_dtype.bytes());
    let cast_in = if p != a { a + p } else { 0.0 };
    let dropout = if setup.lora.dropout > 0.0 {
        2.0 * p + LORA_DROPOUT_MASK_BYTES
    } else {
        0.0
    };
    let cast_gemm = if p > a { p + a } else { 0.0 };
    AdapterPass {
        per_in: cast_in + dropout + cast_gemm,
        per_out: 2.0 * a,
    }
}

/// CUDA's `native_dropout` keeps its mask as 1-byte booleans (aten/src/ATen/native/cuda/
/// Dropout.cu); the mask of [`DROPOUT_BYTES`].
const LORA_DROPOUT_MASK_BYTES: f64 = 1.0;

/// Element-wise bytes of one forward pass around a LoRA adapter ([`peft_adapter_pass`]).
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct AdapterPass {
    /// Bytes per element of the adapter's input.
    pub per_in: f64,
    /// Bytes per element of its output.
    pub per_out: f64,
}

/// Forward GEMM seconds that torchtitan's per-op SAC runs again in backward, on one TP shard: its
/// policy saves every odd-numbered `aten.mm` of the layer's forward and marks the rest
/// recompute ("Saves output of all compute ops, except every second mm",
/// torchtitan/models/llama3/parallelize_llama.py @820504e lines 254-268), and backward needs
/// all but the layer's last one (its output only feeds the residual add that leaves the
/// layer). In torchtitan's order (wq, wk, wv, wo, w1, w3, w2: models/llama3/model.py lines 238
/// and 302, same commit) that is wk, wo and w3 — 36.5% of Llama 3 8B's forward matmul FLOPs,
/// not half. `linears` is the layer's dense linears in forward order (`model::params`).
pub fn op_sac_recomputed_forward(
    linears: &[crate::model::Linear],
    tokens: u64,
    split: &WeightSplit,
    r: &ChipRates,
) -> f64 {
    let last = linears.len().saturating_sub(1);
    linears
        .iter()
        .enumerate()
        .filter(|(i, _)| i % 2 == 1 && *i != last)
        .map(|(_, l)| {
            let d = split.linear(l);
            gemm_seconds(tokens, d.d_out, d.d_in, r)
        })
        .sum()
}

/// Bytes one dequantization of a frozen 4-bit (NF4) base weight moves, per weight; `None` for
/// a 16-bit or int8 base. Neither QLoRA stack multiplies in 4 bit: bitsandbytes' `MatMul4Bit`
/// runs `F.linear(A, F.dequantize_4bit(B, quant_state).to(A.dtype).t())` in forward and
/// `torch.matmul(grad_output, F.dequantize_4bit(B, ctx.state).to(grad_output.dtype).t())` for
/// the input gradient (bitsandbytes/autograd/_functions.py @0.43.x, `MatMul4Bit.forward` /
/// `.backward`; `dequantize_4bit` in bitsandbytes/functional.py launches the blockwise NF4
/// dequantization kernel into a new 16-bit tensor), and torchao's `LinearNF4` does the same with
/// `F.linear(input, weight.to(input.dtype))` / `grad_output @ weight.to(grad_output.dtype)`
/// (torchao/dtypes/nf4tensor.py, `LinearNF4`, `get_original_weight`; torchtune's
/// `FrozenNF4Linear` and `LoRALinear(quantize_base=True)` call `linear_nf4`). The kernel reads
/// the packed weight and its quantisation constants (`BaseWeights::bits`: 4.127 bits with double
/// quantisation, 4.5 without) and writes the 16-bit copy (2 B), which the GEMM then reads as a
/// 16-bit weight (already in [`gemm_seconds`]). Under LitGPT the copy is fp16 (Lightning
/// quantizes from fp16, lightning/fabric/plugins/precision/bitsandbytes.py @b19c3a9 l.335, as the
/// memory model's `dequant_transient` has it) and `.to(A.dtype)` casts it to bf16: read 2 B,
/// write 2 B more. This is the fused-kernel floor: bitsandbytes' nested absmax dequantization
/// (8-bit absmax → fp32 before the main kernel) and torchao's eager unpacking chain move more.
pub fn dequant_bytes_per_weight(setup: &TrainingSetup) -> Option<f64> {
    let cast = if setup.framework == crate::workload::Framework::LitGpt {
        4.0
    } else {
        0.0
    };
    dequantizes_4bit_base(setup).then(|| setup.base_weights().bits() / 8.0 + 2.0 + cast)
}

/// Whether the frozen base's linears are 4-bit (NF4) weights dequantized to 16 bit before each
/// matmul (QLoRA): the step time's dequantization traffic ([`dequant_bytes_per_weight`]) and the
/// memory model's dequantized copy (`train::dequant_transient`) both apply exactly then.
pub fn dequantizes_4bit_base(setup: &TrainingSetup) -> bool {
    use crate::workload::BaseWeights;
    setup.task.is_peft()
        && matches!(
            setup.base_weights(),
            BaseWeights::Nf4 | BaseWeights::Nf4NoDq
        )
}

/// Dequantizations of each 4-bit layer weight per micro-batch: forward, the input-gradient
/// GEMM in backward (a frozen base has no weight-gradient GEMM), and the recomputed forward
/// (full checkpointing reruns every layer forward; per-op SAC outside torchtitan's dense layout
/// reruns about half of the matmuls, as the GEMM count takes it). Selective (attention-core)
/// recompute reruns no linear.
fn dequant_passes(recompute: Recompute) -> f64 {
    2.0 + match recompute {
        Recompute::Full => 1.0,
        Recompute::SelectiveOp => 0.5,
        Recompute::None | Recompute::Selective => 0.0,
    }
}

/// Forward passes of the attention kernel per micro-batch: 2 when backward reruns it (full
/// recompute, or selective recompute of the attention core), else 1 (per-op SAC saves SDPA's
/// output). Shared by the attention time, torch's CP ring and Megatron's CP transfers.
pub(crate) fn attention_forward_passes(recompute: Recompute) -> f64 {
    if matches!(recompute, Recompute::Full | Recompute::Selective) {
        2.0
    } else {
        1.0
    }
}

/// MLP activation elements per token, averaged over the layers: a dense layer's `ffn`; an MoE
/// layer's k routed experts and its shared experts, `expert_ffn` wide each (the activation runs
/// on every routed copy of the token: `TEGroupedMLP` applies it to fc1's output of the permuted
/// rows, megatron/core/transformer/moe/experts.py @d98e8a64).
fn mlp_activation_width(b: &ParamBreakdown, t: &TransformerSpec) -> f64 {
    let layers = b.groups.iter().map(|g| g.count).sum::<u64>().max(1) as f64;
    let width = |moe_group: bool| match t.moe {
        Some(m) if moe_group => (m.experts_per_token + m.shared_experts) * m.expert_ffn,
        _ => t.ffn,
    };
    b.groups
        .iter()
        .map(|g| width(g.linears.iter().any(|l| l.copies > 1)) as f64 * g.count as f64)
        .sum::<f64>()
        / layers
}

/// Forward passes counted in the micro-batch (1, or 2 with full recompute).
fn forward_passes(setup: &TrainingSetup) -> f64 {
    if matches!(setup.recompute, Recompute::Full | Recompute::SelectiveOp) {
        2.0
    } else {
        1.0
    }
}

/// Element-wise bytes per token per layer, forward only, split into the part that tensor
/// parallelism divides (MLP activation, rotary on the local heads) and the part it replicates
/// unless sequence parallelism is on (norms, residual adds, dropout on b·s·h). `ffn`: the MLP
/// activation width per token ([`mlp_activation_width`]).
fn elementwise_bytes_fwd(
    t: &TransformerSpec,
    p: &Parallelism,
    act: f64,
    eager: bool,
    ffn: f64,
) -> f64 {
    let h = t.hidden as f64;
    let eager_rms = eager && t.norm == crate::model::NormKind::RmsNorm;
    // Two norms (read + write h; eager RMSNorm: its intermediates) and two residual adds
    // (read 2h, write h).
    let norm = if eager_rms {
        EAGER_RMSNORM_BYTES / act
    } else {
        2.0
    };
    let mut replicated = 2.0 * norm * h + 2.0 * 3.0 * h;
    if t.dropout {
        // Attention-output and MLP-output dropout: read + write + 1-byte mask (in 2-byte units).
        replicated += 2.0 * 2.5 * h;
    }
    let f = ffn;
    let mut split = match t.mlp {
        MlpKind::Gated if eager_rms => EAGER_SWIGLU_BYTES / act * f,
        MlpKind::Gated => 3.0 * f, // read gate and up, write the product
        MlpKind::Plain => 2.0 * f, // read and write the activation
    };
    if matches!(t.positional, Positional::Rotary) {
        let per = if eager_rms {
            EAGER_ROTARY_BYTES / act
        } else {
            2.0
        };
        split += per * (t.q_width() + t.kv_width()) as f64;
    }
    let rep = if p.sequence_parallel {
        replicated / p.tp as f64
    } else {
        replicated
    };
    act * (rep + split / p.tp as f64)
}

/// Attention seconds of one layer for one micro-batch on one TP shard: the kernels, and under
/// torch's context parallelism the ring's bookkeeping outside them (fp32 merge and gradient
/// accumulation, [`crate::ring::Ring::bookkeeping_bytes`]).
fn attention_seconds(t: &TransformerSpec, setup: &TrainingSetup, r: &ChipRates, tp: u64) -> f64 {
    let (_, total) = attention_kernel_seconds(t, setup, r, tp);
    let ring = torch_ring(t, setup, tp).map_or(0.0, |ring| {
        r.memory
            .map_or(0.0, |bw| ring.bookkeeping_bytes() / bw.0.max(1.0))
    });
    total + ring
}

/// torch's `context_parallel` ring of one layer on one rank (every framework but Megatron's, whose
/// CP is Transformer Engine's), `None` without context parallelism or with eager attention (torch
/// shards only the flash / efficient SDPA ops). K and V reach SDPA at the query-head count:
/// torchtitan and HF expand GQA heads with `repeat_kv` before the call.
pub fn torch_ring(
    t: &TransformerSpec,
    setup: &TrainingSetup,
    tp: u64,
) -> Option<crate::ring::Ring> {
    let cp = setup.parallel.cp.max(1);
    let flash = matches!(
        setup.attention,
        AttentionImpl::Flash | AttentionImpl::MemEfficient
    );
    if cp <= 1 || !flash || setup.framework == crate::workload::Framework::Megatron {
        return None;
    }
    let local = setup.micro_batch as f64 * (setup.seq_len / cp).max(1) as f64;
    let width = t.q_width() as f64 / tp.max(1) as f64;
    Some(crate::ring::Ring {
        cp,
        q_elems: local * width,
        kv_elems: local * width,
        fwd_passes: attention_forward_passes(setup.recompute),
        traced: setup.compiled,
    })
}

/// Attention kernels of one average layer for one micro-batch on one TP shard: (one forward
/// pass, the whole step's forward passes + backward). Under eager attention the first is the
/// total over (forward passes + 2), an even split that the softmax traffic does not follow; only
/// torch's CP ring reads it, and the ring needs flash / efficient SDPA, so it is unused there.
/// Encoder-decoders average their stacks ([`stack_attention_shapes`]).
fn attention_kernel_seconds(
    t: &TransformerSpec,
    setup: &TrainingSetup,
    r: &ChipRates,
    tp: u64,
) -> (f64, f64) {
    let layers = t.total_layers().max(1) as f64;
    stack_attention_shapes(t, setup)
        .iter()
        .map(|&(count, shape)| {
            let (one, all) = attention_shape_seconds(t, setup, r, tp, shape);
            (one * count / layers, all * count / layers)
        })
        .fold((0.0, 0.0), |a, b| (a.0 + b.0, a.1 + b.1))
}

/// Query-key pairs per (decoder) token the model's attention computes, summed over the layers:
/// the pairs of [`stack_attention_shapes`] over the sequence. A causal call over `keys` tokens
/// computes [`TransformerSpec::mean_causal_pairs`] (n²/2 on a full layer, n·w − w²/2 on a
/// windowed one), so each query sees `pairs / keys` keys; a bidirectional call sees
/// [`TransformerSpec::mean_attended_keys`]. The attention kernel's time charges the same pairs
/// (flash skips the masked blocks; eager computes the whole window and is charged all of it),
/// so FLOPs counted from these never exceed the work the step time pays for.
pub fn attention_pairs_per_token(t: &TransformerSpec, setup: &TrainingSetup) -> f64 {
    let s = setup.seq_len.max(1) as f64;
    stack_attention_shapes(t, setup)
        .iter()
        .map(|&(count, shape)| count * shape.queries as f64 * keys_per_query(t, shape))
        .sum::<f64>()
        / s
}

/// Keys one query of `shape` attends on average over the layers (see
/// [`attention_pairs_per_token`]).
fn keys_per_query(t: &TransformerSpec, shape: AttentionShape) -> f64 {
    let keys = shape.keys as f64;
    if keys <= 0.0 {
        return 0.0;
    }
    if shape.causal {
        t.mean_causal_pairs(keys) / keys
    } else {
        t.mean_attended_keys(keys)
    }
}

/// One attention call's shape: query positions, keys per query, and whether it is causal.
#[derive(Clone, Copy)]
struct AttentionShape {
    queries: u64,
    keys: u64,
    causal: bool,
}

/// (layers, attention call) pairs of the model's stacks: every layer of a decoder-only model
/// attends causally over the sequence (or its window), an encoder bidirectionally; an
/// encoder-decoder's encoder attends bidirectionally over its positions
/// ([`TransformerSpec::encoder_len`]: Whisper's fixed 1500, else the sequence), and each decoder
/// layer attends causally over its own tokens and bidirectionally over the encoder's output
/// (cross-attention, HF `encoder_attn`).
fn stack_attention_shapes(
    t: &TransformerSpec,
    setup: &TrainingSetup,
) -> Vec<(f64, AttentionShape)> {
    let (s, keys) = (setup.seq_len, setup.attended_keys());
    let own = |causal| AttentionShape {
        queries: s,
        keys,
        causal,
    };
    match t.structure {
        Structure::DecoderOnly => vec![(t.layers as f64, own(true))],
        Structure::EncoderOnly => vec![(t.layers as f64, own(false))],
        Structure::EncoderDecoder { decoder_layers } => {
            let enc = t.encoder_len(s);
            let enc_keys = if t.encoder_positions.is_some() {
                enc
            } else {
                keys
            };
            let encoder = AttentionShape {
                queries: enc,
                keys: enc_keys,
                causal: false,
            };
            let cross = AttentionShape {
                queries: s,
                keys: enc,
                causal: false,
            };
            let d = decoder_layers as f64;
            vec![(t.layers as f64, encoder), (d, own(true)), (d, cross)]
        }
    }
}

/// [`attention_kernel_seconds`] of one attention call of `shape`.
fn attention_shape_seconds(
    t: &TransformerSpec,
    setup: &TrainingSetup,
    r: &ChipRates,
    tp: u64,
    shape: AttentionShape,
) -> (f64, f64) {
    // Context parallelism: each rank holds seq_len / cp queries and attends over all keys
    // (ring attention, load-balanced causal chunks: 1/cp of the whole causal work each).
    let s_q = shape.queries as f64 / setup.parallel.cp.max(1) as f64;
    let b = setup.micro_batch as f64;
    let heads = (t.heads as f64 / tp as f64).max(1.0);
    let q_width = t.q_width() as f64 / tp as f64;
    // Keys per query: the sliding window, the packed documents' span, else the sequence.
    let keys = shape.keys as f64;
    // Sliding layers see the window, full-attention layers every key: the layers' mean.
    let window = t.mean_attended_keys(keys);
    // QKᵀ and AV: 4·b·s·window·q_width FLOPs forward (full count).
    let fwd_flops = 4.0 * b * s_q * window * q_width;
    let fwd_passes = attention_forward_passes(setup.recompute);
    match setup.attention {
        AttentionImpl::Flash | AttentionImpl::MemEfficient => {
            // Causal: the blocks at or below the diagonal, n²/2 pairs on a full layer and
            // n·w − w²/2 on a windowed one once n > w (each query sees nearly the whole
            // window, not half of it): the layers' mean pairs over the full count's.
            let causal = if shape.causal && keys > 0.0 && window > 0.0 {
                t.mean_causal_pairs(keys) / (keys * window)
            } else {
                1.0
            };
            let pass = fwd_flops * causal / r.attention.0.max(1.0);
            (pass, pass * (fwd_passes + FLASH_BACKWARD_RATIO))
        }
        AttentionImpl::Eager => {
            let scores = b * heads * s_q * window;
            let gemm = eager_score_gemms_seconds(fwd_flops, scores, r) * (fwd_passes + 2.0);
            let drop = if t.dropout { DROPOUT_BYTES } else { 0.0 };
            let (fwd, bwd) = if r.eager_elementwise {
                (HF_EAGER_SOFTMAX_BYTES_FWD, HF_EAGER_SOFTMAX_BYTES_BWD)
            } else if setup.unfused_score_bias {
                (
                    SOFTMAX_BYTES_FWD + UNFUSED_BIAS_BYTES_FWD,
                    SOFTMAX_BYTES_BWD + UNFUSED_BIAS_BYTES_BWD,
                )
            } else {
                (SOFTMAX_BYTES_FWD, SOFTMAX_BYTES_BWD)
            };
            let copies = if setup.unfused_score_bias && !r.eager_elementwise {
                // ModelLink's `q_trans`/`k_trans` `.contiguous()` copies (K expanded to every
                // head before the core attention): read + write each forward pass.
                UNFUSED_BIAS_QK_COPY_BYTES * b * (s_q + keys) * q_width * fwd_passes
            } else {
                0.0
            };
            let bytes = scores * ((fwd + drop) * fwd_passes + bwd + drop) + copies;
            let total = gemm + r.memory.map_or(0.0, |bw| bytes / bw.0.max(1.0));
            (total / (fwd_passes + 2.0), total)
        }
    }
}

/// Seconds of one forward pass's two batched score GEMMs (QKᵀ, then probabilities × V) under
/// eager attention, on a roofline: each writes or reads the whole score matrix (`scores`
/// elements at the activation width, at least 2 bytes) against `2·scores·head_dim` FLOPs, an
/// arithmetic intensity of head_dim FLOP per byte at 2 bytes (128 at head_dim 128), under the
/// ridge of a chip whose GEMM rate outruns its memory (H800: 989 × 0.55 = 544 TFLOP/s over
/// 0.8 × 3.35 TB/s, about 200 FLOP per byte; A100-80GB: 218 over 1.63, about 134). The backward's four
/// GEMMs are the same shapes (dP = dO·Vᵀ writes, dV = Pᵀ·dO, dQ = dS·K and dK = dSᵀ·Q read the
/// score matrix): twice this.
fn eager_score_gemms_seconds(fwd_flops: f64, scores: f64, r: &ChipRates) -> f64 {
    let compute = fwd_flops / r.gemm.0.max(1.0);
    let bytes = 2.0 * scores * r.act_bytes.max(2.0);
    r.memory
        .map_or(compute, |bw| compute.max(bytes / bw.0.max(1.0)))
}

/// Layers on the slowest pipeline stage: ⌈L/pp⌉ (uneven stages when L is not divisible by pp;
/// Megatron and DeepSpeed give the remainder to some stages).
pub fn layers_on_slowest_stage(layers: u64, pp: u64) -> u64 {
    layers.div_ceil(pp.max(1))
}

/// Compute time of one micro-batch on the slowest device of a transformer model: the slowest
/// pipeline stage (the last one runs the LM head next to its layers; see
/// [`crate::pipeline::StageLayers`]).
/// With context parallelism a device holds seq_len / cp tokens of each sequence. Linears of MoE
/// experts run with the tokens routed to each expert.
pub fn micro_batch_compute(
    b: &ParamBreakdown,
    t: &TransformerSpec,
    setup: &TrainingSetup,
    r: &ChipRates,
) -> ComputeParts {
    let p = setup.parallel;
    let mb = MicroBatch {
        t,
        setup,
        r,
        split: WeightSplit::training(setup),
        tokens: setup.micro_batch * (setup.seq_len / p.cp.max(1)).max(1),
        frozen: setup.task.is_peft(),
        dequant: dequant_bytes_per_weight(setup),
    };
    let total_layers: u64 = b.groups.iter().map(|g| g.count).sum::<u64>().max(1);
    // One layer on average (all layers / L), then scaled to the slowest stage.
    let (gemm_s, moe_memory_s, tp_pair_gemm_s) = mb.layer_gemm_seconds(b, total_layers);
    let layer = ComputeParts {
        gemm_s,
        attention_s: attention_seconds(t, setup, r, p.tp),
        elementwise_s: mb.layer_elementwise_seconds(b, total_layers, moe_memory_s),
        ..ComputeParts::default()
    };
    let (head, head_dequant) = mb.head_seconds();
    // The first stage's embedding lookup is a gather (no GEMM): only the last stage's LM head
    // and loss add to its layers ([`crate::pipeline`]).
    let split = crate::pipeline::StageLayers::of(total_layers, &p);
    let (other, last) = (split.most_before_last(), split.last);
    let per = layer.total();
    let on_last = (other as f64) * per <= last as f64 * per + head + head_dequant;
    let n = if on_last { last } else { other } as f64;
    ComputeParts {
        gemm_s: layer.gemm_s * n + if on_last { head } else { 0.0 },
        attention_s: layer.attention_s * n,
        elementwise_s: layer.elementwise_s * n + if on_last { head_dequant } else { 0.0 },
        attention_fwd_layer_s: attention_kernel_seconds(t, setup, r, p.tp).0,
        layer_s: per,
        expert_layer_s: mb.expert_seconds(b),
        tp_pair_gemm_s,
        slowest_stage: (p.pp > 1).then(|| split.slowest(on_last)),
    }
}

/// What every phase of [`micro_batch_compute`] reads: the layer split, the device's tokens per
/// micro-batch, whether the base is frozen and the 4-bit dequantization bytes per weight.
struct MicroBatch<'a> {
    t: &'a TransformerSpec,
    setup: &'a TrainingSetup,
    r: &'a ChipRates,
    split: WeightSplit,
    tokens: u64,
    frozen: bool,
    dequant: Option<f64>,
}

impl MicroBatch<'_> {
    /// GEMM seconds of one average layer: every group's linears, LoRA adapters, MoE router
    /// ([`moe::layer_seconds`]) and per-op SAC's recomputed matmuls weighted by its share of the
    /// layers, then the recompute's forward again; and the MoE dispatcher's bandwidth-bound
    /// seconds beside them; and the forward GEMM seconds of the layer's linears by [`TpPair`]
    /// (the groups weighted by their share of the layers, routed experts over their local copies
    /// as [`Self::linears_seconds`] runs them), timed in the same pass.
    fn layer_gemm_seconds(&self, b: &ParamBreakdown, total_layers: u64) -> (f64, f64, [f64; 4]) {
        let op_sac = crate::train::op_sac_applies(self.t, self.setup);
        let (mut gemm_s, mut moe_memory_s) = (0.0, 0.0);
        let mut tp_pair = [0.0; 4];
        for g in &b.groups {
            let weigh = |seconds: f64| seconds * g.count as f64 / total_layers as f64;
            if self.frozen {
                gemm_s += weigh(self.adapter_seconds(g));
            }
            let share = g.count as f64 / total_layers as f64;
            gemm_s += weigh(self.linears_seconds(g, share, &mut tp_pair));
            if let Some(m) = self
                .t
                .moe
                .filter(|_| g.linears.iter().any(|l| l.copies > 1))
            {
                let passes = forward_passes(self.setup);
                let (gemm, memory) =
                    moe::layer_seconds(self.t, &m, self.setup, self.tokens, passes, self.r);
                gemm_s += weigh(gemm);
                moe_memory_s += weigh(memory);
            }
            if op_sac {
                let again = op_sac_recomputed_forward(&g.linears, self.tokens, &self.split, self.r);
                gemm_s += weigh(again);
            }
        }
        // Recompute repeats every forward GEMM (one third of the three).
        let frozen = self.frozen;
        let gemm_s = match self.setup.recompute {
            Recompute::Full => gemm_s * if frozen { 1.5 } else { 4.0 / 3.0 },
            // Per-op SAC outside torchtitan's dense layout (MoE, MLA, PEFT): every other forward
            // matmul, taken as half of the forward GEMMs again.
            Recompute::SelectiveOp if !op_sac => gemm_s * if frozen { 1.25 } else { 7.0 / 6.0 },
            _ => gemm_s,
        };
        (gemm_s, moe_memory_s, tp_pair)
    }

    /// The routed experts' linears (those held in several copies) of one MoE layer, as the
    /// device runs them: its local experts over the tokens routed to them.
    fn expert_seconds(&self, b: &ParamBreakdown) -> f64 {
        let split = &self.split;
        let routed = |l: &&crate::model::Linear| l.copies > 1;
        b.groups
            .iter()
            .map(|g| {
                g.linears
                    .iter()
                    .filter(routed)
                    .map(|l| {
                        let d = split.linear(l);
                        let casts = linear_casts(self.setup, self.t, l);
                        let rows = split.rows(l, self.tokens);
                        let one =
                            linear_parts_cast(rows, d.d_in, d.d_out, 1, self.frozen, casts, self.r)
                                .1
                                + expert_quantize_seconds(self.setup, l, self.r);
                        d.copies as f64 * one
                    })
                    .sum::<f64>()
            })
            .fold(0.0, f64::max)
    }

    /// One layer of `g`'s linears, each as the device holds it (`WeightSplit::linear`); routed
    /// experts run their local copies over the tokens routed to them (`WeightSplit::rows`), so
    /// per-device FLOPs equal the dense-active ones. Each linear's forward GEMM, times `share`
    /// (the group's share of the layers), is added to its [`TpPair`] slot of `tp_pair`.
    fn linears_seconds(
        &self,
        g: &crate::model::LayerGroup,
        share: f64,
        tp_pair: &mut [f64; 4],
    ) -> f64 {
        let (setup, split) = (self.setup, &self.split);
        let mut total = 0.0;
        for l in &g.linears {
            let d = split.linear(l);
            let casts = linear_casts(setup, self.t, l);
            let rows = split.rows(l, self.linear_tokens(g, l));
            let (fwd, all) =
                linear_parts_cast(rows, d.d_in, d.d_out, 1, self.frozen, casts, self.r);
            tp_pair[TpPair::of(l.name) as usize] += fwd * d.copies as f64 * share;
            let one = all + expert_quantize_seconds(setup, l, self.r);
            total += d.copies as f64 * one;
        }
        total
    }

    /// Rows linear `l` of group `g` runs over in this micro-batch: the device's tokens, scaled to
    /// the encoder's positions for an encoder layer or a cross-attention K/V projection
    /// ([`TransformerSpec::linear_len`]).
    fn linear_tokens(&self, g: &crate::model::LayerGroup, l: &crate::model::Linear) -> u64 {
        let s = self.setup.seq_len.max(1);
        let len = self.t.linear_len(g.name, l.name, s);
        if len == s {
            return self.tokens;
        }
        let wide = u128::from(self.tokens) * u128::from(len) / u128::from(s);
        u64::try_from(wide).unwrap_or(u64::MAX).max(1)
    }

    /// Token rows of one average layer's element-wise ops: the device's tokens, an
    /// encoder-decoder's encoder layers at the encoder's positions.
    fn layer_tokens(&self) -> f64 {
        self.tokens as f64 * self.t.mean_layer_len(self.setup.seq_len)
    }

    /// One layer of `g`'s LoRA adapters, on the same shards.
    fn adapter_seconds(&self, g: &crate::model::LayerGroup) -> f64 {
        let (lora, split) = (&self.setup.lora, &self.split);
        let pass = peft_adapter_pass(self.setup, sixteen_bit(self.r).act_bytes);
        g.linears
            .iter()
            .filter(|l| crate::train::is_target(&lora.targets, l))
            .map(|l| {
                let shared = crate::train::shares_adapter_input(&lora.targets, l);
                let d = split.linear(l);
                let rows = split.rows(l, self.linear_tokens(g, l));
                let one =
                    adapter_seconds(rows, d.d_in, d.d_out, lora.rank, 1, shared, pass, self.r);
                d.copies as f64 * one
            })
            .sum()
    }

    /// Element-wise seconds of one average layer: the MoE dispatcher's `moe_s`, its activation
    /// traffic in forward, backward and any recomputed forward, and QLoRA's dequantization of
    /// every 4-bit layer weight before each of its matmuls.
    fn layer_elementwise_seconds(&self, b: &ParamBreakdown, total_layers: u64, moe_s: f64) -> f64 {
        let (setup, r) = (self.setup, self.r);
        let ffn = mlp_activation_width(b, self.t);
        let fwd_bytes = elementwise_bytes_fwd(
            self.t,
            &setup.parallel,
            r.act_bytes.max(2.0),
            r.eager_elementwise,
            ffn,
        ) * self.layer_tokens();
        // Backward of an element-wise op reads the saved input and the output gradient and
        // writes the input gradient: about twice its forward traffic. torch.compile fuses part of
        // it away.
        let passes = forward_passes(setup) + 2.0;
        let dequant_layer = self.dequant.map_or(0.0, |bytes| {
            let weights: f64 = b
                .groups
                .iter()
                .map(|g| self.split.layer_bytes(g, 1.0, 0.0) * g.count as f64)
                .sum();
            weights / total_layers as f64 * bytes * dequant_passes(setup.recompute)
        });
        moe_s
            + r.memory.map_or(0.0, |bw| {
                (fwd_bytes * passes + dequant_layer) / bw.0.max(1.0)
            })
    }

    /// The LM head on the last stage: (forward, dgrad and, if trained, wgrad GEMMs; a 4-bit
    /// head's dequantization).
    fn head_seconds(&self) -> (f64, f64) {
        let (t, setup, r) = (self.t, self.setup, self.r);
        let tp = setup.parallel.tp;
        let head = if t.vocab > 0 && t.structure != Structure::EncoderOnly {
            // The output layer stays in 16 bit under FP8 training in every FP8 stack of the
            // cases: Megatron-Core's is a plain `tensor_parallel.ColumnParallelLinear`, not a TE
            // module; llm-foundry swaps only its `fc_type: te` linears to TE (scripts/train/
            // benchmarking/submit_benchmarks.py sets it for H100 FP8) and computes tied-embedding
            // logits as `self.transformer.wte(out, True)`, i.e. `F.linear(input, self.weight)`
            // (llmfoundry/models/mpt/modeling_mpt.py, layers/custom_embedding.py
            // `SharedEmbedding`, mosaicml/llm-foundry @8c8dd48f); torchtitan's float8 converter
            // swaps every linear but the head (`module_filter_fn=lambda mod, fqn: fqn !=
            // "output"`). `sixteen_bit` is the identity outside FP8 training.
            let head_rates = sixteen_bit(r);
            linear_seconds(self.tokens, t.hidden, t.vocab, tp, self.frozen, &head_rates)
        } else {
            0.0
        };
        // A 4-bit LM head (LitGPT's QLoRA) is dequantized for its forward and its input
        // gradient; it sits outside the checkpointed layers, so it is not recomputed.
        let head_dequant = match (self.dequant, r.memory) {
            (Some(bytes), Some(bw)) if head > 0.0 && setup.lm_head_quantized() => {
                (t.hidden * t.vocab.div_ceil(tp)) as f64 * bytes * 2.0 / bw.0.max(1.0)
            }
            _ => 0.0,
        };
        let loss = match r.memory {
            Some(bw) if head > 0.0 => {
                let logits = self.tokens as f64 * t.vocab.div_ceil(tp) as f64;
                let c = r.act_bytes.max(2.0);
                let metrics = setup.logit_metrics as f64 * metric_bytes_per_logit(c);
                logits * (loss_bytes_per_logit(setup, c) + metrics) / bw.0.max(1.0)
            }
            _ => 0.0,
        };
        (head, head_dequant + loss)
    }
}

/// Passes over the `c`-byte logits of a fused classifier ([`TrainingSetup::fused_classifier`]),
/// forward and backward together, as llm.c's `fused_classifier_kernel5` makes them (karpathy/llm.c
/// llmc/fused_classifier.cuh @f1e2ace6): `prepare_softmax_blockwide3` reads the row once
/// (`load128`, online max and sum of exponentials, l.19-63); the kernel reads it a second time
/// ("this is the 2nd read of logits", l.98-100) and writes the gradient over it
/// (`store128cs(logits + idx * P + ...)`, l.112): two reads and one write. The second read may
/// hit L2 (the source says "hopefully still in cache"); it is counted at HBM, as written. The
/// LM head's backward GEMMs then read that gradient (counted with the GEMMs).
pub const FUSED_CLASSIFIER_PASSES: f64 = 3.0;

/// HBM bytes the loss moves per logit (token × vocabulary entry on the device) in forward and
/// backward together, the logits in `c`-byte floats (the head's 16-bit output, or fp32). Every
/// op streams the whole logits row (50k-256k entries), so it runs at memory bandwidth; per token
/// it is V·bytes against the layers' 6·P FLOPs, a share that is largest for small models with a
/// large vocabulary and short sequences. `up` is an fp32 upcast (c read, 4 written) or nothing.
/// - torch `F.cross_entropy` on fp32 logits (HF `ForCausalLMLoss` calls `logits.float()`,
///   torchtune and torchtitan likewise): upcast `up`; `log_softmax` 4 + 4; backward:
///   `nll_loss_backward`'s zero-filled fp32 gradient 4, `_log_softmax_backward_data` 4 + 4 read,
///   4 written; the upcast's backward `up` again: 36 B in bf16 (24 in fp32).
/// - Megatron-Core's fused vocab-parallel cross-entropy (megatron/core/fusions/
///   fused_cross_entropy.py @d98e8a64), the default of NeMo 2.0's `GPTConfig` and
///   Megatron-Bridge's `GPTProvider` (`cross_entropy_loss_fusion: bool = True`): four
///   `jit_fuser` regions, each streaming the row once: the fp32 upcast with the max `up`, the
///   shift and `exp` 4 + 4, the normalisation 4 + 4, and backward's gradient read 4 and written
///   in 16 bit c: 28 B in bf16. The unfused path ([`TrainingSetup::cross_entropy_loss_fusion`]
///   `= false`: Megatron-Core up to 0.7, which has no fused loss, and Megatron-LM's own default
///   since, `cross_entropy_loss_fusion: bool = False` in core_v0.8.0
///   megatron/core/model_parallel_config.py) is [`megatron_unfused_loss_bytes`]: 52 B in bf16.
///   A setup that does not say so gets the fused path; the Megatron-LM paper rows (GPT 1.7B-1T,
///   vocab 51,200, 2021 code) state the unfused one, under one point slower.
/// - a fused classifier (llm.c, [`FUSED_CLASSIFIER_PASSES`]): 3c, before any other loss option.
/// - LitGPT's bf16 `F.cross_entropy` without upcast: `log_softmax` c + c, zero-filled gradient c,
///   `_log_softmax_backward_data` 2c read, c written: 6c.
/// - flash-attn's fused xentropy kernel ([`TrainingSetup::fused_cross_entropy`]; Apex's
///   `cunn_SoftMaxXEntropyForward` reads the row for the max and again for the sum of
///   exponentials, `cunn_SoftMaxXEntropyBackward` reads it and writes the gradient) and a
///   torch.compile'd loss (taken as the same single fused reduction): 4c. flash-attn's later
///   Triton kernel (flash_attn/ops/triton/cross_entropy.py @058ad35a) streams the row once in
///   the forward (online max and sum of exponentials) and once in the backward (read, gradient
///   written): 3c; not used: no case with this loss (llm-foundry's MPT rows) states a 2.x
///   version, and llm-foundry's benchmark script (scripts/train/benchmarking/
///   submit_benchmarks.py @b2a43a147, PR #543) installs flash-attn 1.0.7.
pub(crate) fn loss_bytes_per_logit(setup: &TrainingSetup, c: f64) -> f64 {
    let up = if c < 4.0 { c + 4.0 } else { 0.0 };
    if setup.fused_classifier {
        FUSED_CLASSIFIER_PASSES * c
    } else if setup.fused_cross_entropy || setup.loss_compiled() {
        4.0 * c
    } else if setup.uses_bf16_chunked_loss() {
        6.0 * c
    } else if setup.framework == crate::workload::Framework::Megatron {
        if setup.megatron_fused_loss() {
            up + 20.0 + c
        } else {
            megatron_unfused_loss_bytes(c)
        }
    } else {
        2.0 * up + 24.0
    }
}

/// HBM bytes per logit of Megatron-Core's unfused vocab-parallel cross-entropy over `c`-byte
/// logits, forward and backward, as core_v0.6.0 writes it (the release ModelLink's README checks
/// out, `git checkout core_r0.6.0`): the caller's `.float()` copy (c read, 4 written; legacy
/// `post_language_model_processing` and `LanguageModule.compute_language_model_loss` both call
/// `vocab_parallel_cross_entropy(logits.float(), labels)`), then in
/// megatron/core/tensor_parallel/cross_entropy.py `_VocabParallelCrossEntropy.forward`:
/// `torch.max` (read 4), the out-of-place `vocab_parallel_logits - logits_max` (4 + 4),
/// `torch.exp(..., out=)` (4 + 4), `sum` (read 4) and `exp_logits.div_` (4 + 4); `backward`:
/// `grad_input.mul_(grad_output)` (4 + 4), and the upcast's backward casts the gradient back
/// (4 read, c written). Per-token gathers of the target logit are left out. MindSpeed's
/// replacement forward, which ModelLink registers over it (modellink/patchs/megatron_patch.py
/// @ba10f5fd `vocab_parallel_cross_entropy_forward`, Ascend/MindSpeed
/// mindspeed/core/tensor_parallel/cross_entropy.py @a899e95a), changes only the target mask
/// (`masked_target *= ~target_mask`), a per-token op. 52 B in bf16, 40 B on fp32 logits.
pub fn megatron_unfused_loss_bytes(c: f64) -> f64 {
    let (up, back) = if c < 4.0 {
        (c + 4.0, 4.0 + c)
    } else {
        (0.0, 0.0)
    };
    let forward = 4.0 + 8.0 + 8.0 + 4.0 + 8.0;
    let backward = 8.0;
    up + forward + backward + back
}

/// HBM bytes one forward-only cross-entropy metric over the logits moves per logit
/// ([`TrainingSetup::logit_metrics`]), the logits in `c`-byte floats. Composer updates its train
/// metrics inside the precision context (`_eval_train_metrics` under `_get_precision_context`,
/// composer/trainer/trainer.py @v0.13.4 l.2075-2077), and under autocast `cross_entropy` and
/// `log_softmax` run in fp32 (PyTorch's AMP op reference, "CUDA Ops that can autocast to
/// float32": "cross_entropy", "log_softmax", "nll_loss"), so 16-bit logits are first copied to
/// fp32 (c read, 4 written); then `log_softmax` reads and writes the fp32 row (4 + 4), counted
/// as [`loss_bytes_per_logit`] counts it (one read per pass); `nll_loss` reads one entry per
/// token. 6 + 8 = 14 B in bf16, 8 B on fp32 logits.
pub fn metric_bytes_per_logit(c: f64) -> f64 {
    let up = if c < 4.0 { c + 4.0 } else { 0.0 };
    up + 8.0
}

/// Bytes the optimizer step reads and writes per trainable parameter on the device. AdamW with
/// fp32 master weights: read weight, gradient, m, v (4 B each), write weight, m, v (4 B each) and
/// the 16-bit copy (2 B): 30 B. 8-bit Adam: 4+2+1+1 read, 4+1+1+2 written: 16 B. SGD with
/// momentum: 4+2+4 read, 4+4+2 written: 20 B. Adafactor: weight and gradient plus factored
/// states: 4+2 read, 4+2 written: 12 B.
pub fn optimizer_bytes_per_param(o: crate::workload::Optimizer) -> f64 {
    use crate::workload::Optimizer::*;
    match o {
        AdamW => 30.0,
        AdamW8bit => 16.0,
        SgdMomentum => 20.0,
        Adafactor => 12.0,
    }
}

/// Bytes per parameter of DeepSpeed `BF16_Optimizer`'s gradient pass after every micro-batch's
/// backward (`parallel.fp32_grad_pass`): `hp_grad.data.add_(lp.grad.data.to(hp_grad.dtype)
/// .view(hp_grad.shape))` (deepspeed/runtime/bf16_optimizer.py `update_hp_grads`,
/// microsoft/DeepSpeed @56c52238) is two kernels — the cast reads the bf16 gradient (2 B) and
/// writes an fp32 temporary (4 B); the in-place add reads the fp32 gradient and the temporary
/// (4 + 4 B) and writes the gradient (4 B): 18 B, counted at HBM as written.
pub const FP32_GRAD_PASS_BYTES: f64 = 18.0;

/// HBM bytes of DeepSpeed `BF16_Optimizer`'s once-a-step passes outside the optimizer's own
/// kernel (`parallel.fp32_grad_pass`), for `grads` fp32 gradient elements the device holds (its
/// whole gradient: not partitioned) and `shard` elements of its ZeRO-1 partition, `dp`
/// data-parallel ranks (microsoft/DeepSpeed @56c52238). The pipeline engine's gradient all-reduce
/// (`_bf16_reduce_grads` → engine.py `allreduce_bucket` l.2063-2088, `communication_data_type`
/// bf16 by default under bf16, l.712-721) casts each fp32 bucket to bf16 (read 4, write 2 B),
/// averages it after the all-reduce where dp > 1 (`mul_(predivide / world)`, the default
/// `prescale_gradients = false`: read and write 2 + 2 B) and copies it back (read 2, write 4 B);
/// `BF16_Optimizer.step` reads every fp32 gradient for the norm (`get_global_norm_of_tensors`: 4 B;
/// clipping's `mul_` runs only when the norm exceeds the clip, not charged), copies the updated
/// fp32 partition into the bf16 one (`update_lp_params`: the fp32 read, 4 B per partition
/// element; its 2 B bf16 write is [`optimizer_bytes_per_param`]'s 16-bit copy) and zeroes the
/// fp32 gradient (`clear_hp_grads`: `zero_()`, 4 B written). 20 B per gradient element (24 where
/// dp > 1) and 4 B per partition element, at HBM as written.
pub fn bf16_optimizer_step_bytes(grads: f64, shard: f64, dp: u64) -> f64 {
    let scale = if dp > 1 { 4.0 } else { 0.0 };
    grads * (6.0 + 6.0 + 4.0 + 4.0 + scale) + shard * 4.0
}

/// Bytes per trainable parameter of the 16-bit gradient DeepSpeed `BF16_Optimizer` leaves beside
/// its fp32 gradient (`parallel.fp32_grad_pass`): autograd writes each bf16 parameter's `.grad`
/// in backward, `update_hp_grads(clear_lp_grads=False)` adds it into the fp32 gradient and
/// keeps it, and it is freed only by `clear_lp_grads()` at the start of the next micro-batch's
/// backward (which then writes it again) or by the optimizer's `zero_grad` after the step
/// (deepspeed/runtime/pipe/engine.py `_exec_backward_pass`, bf16_optimizer.py @56c52238): one
/// bf16 element, 2 B, per trainable parameter the device holds, unsharded by its ZeRO-1.
pub const FP32_GRAD_PASS_LP_GRAD_BYTES: f64 = 2.0;

/// The rates of a chip for a training setup.
pub fn chip_rates(
    g: &GpuSpec,
    setup: &TrainingSetup,
    gemm_peak: FlopRate,
    gemm_eff: f64,
    tun: &Tunables,
) -> ChipRates {
    let is_hopper = ["h100", "h800", "h20", "h200"]
        .iter()
        .any(|p| g.id.starts_with(p));
    let attn_eff = if is_hopper && setup.framework == crate::workload::Framework::Megatron {
        tun.attention_efficiency_hopper_te
    } else if is_hopper {
        tun.attention_efficiency_hopper
    } else {
        tun.attention_efficiency_other
    };
    // FlashAttention runs in 16-bit even in FP8 training (Transformer Engine keeps attention in
    // bf16), so its peak is the half-precision one.
    let half = g.peak_half().unwrap_or(gemm_peak);
    let card = gemm_eff_card_factor(g, tun);
    let act_bytes = match setup.precision {
        crate::workload::Precision::Fp32 => 4.0,
        _ => 2.0,
    };
    ChipRates {
        gemm: gemm_peak * gemm_eff,
        attention: half * (attn_eff * card),
        memory: g
            .memory_bandwidth()
            .map(|bw| bw * tun.elementwise_bandwidth_efficiency),
        sms: g.sm_count,
        act_bytes,
        cast_bytes: if setup.precision == crate::workload::Precision::Fp8
            && g.supports(crate::hardware::ComputeDtype::Fp8)
        {
            FP8_CAST_BYTES
        } else {
            0.0
        },
        eager_elementwise: !setup.compiled && setup.framework.is_eager(),
        autotuned: false,
    }
}

/// The card-class factor (power-limited/PCIe) also slows the attention kernels.
fn gemm_eff_card_factor(g: &GpuSpec, tun: &Tunables) -> f64 {
    crate::chip::card_factor_value(g, tun)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A chip of `flops` for GEMMs and attention and `memory` B/s (none: compute only), 16-bit
    /// activations, no SM count, the fixed 128 × 128 tile, fused element-wise work, no casts.
    /// Attention work of a hybrid model: GPT-OSS-20B (openai/gpt-oss-20b config.json: 24 layers,
    /// 12 sliding over 128 keys, 12 full) at 8192 tokens does (12·128 + 12·8192)/(24·8192) of the
    /// all-full key span, and causal FlashAttention computes the pairs at or below the diagonal
    /// within it (n·w − w²/2 on a sliding layer, n²/2 on a full one; review r11 #3: it charged a
    /// sliding layer half its window). Training and recomputation alike.
    #[test]
    fn sliding_layers_see_the_window_full_layers_every_key() {
        let oss = include_str!("../tests/fixtures/hf-windowed/gpt-oss-20b.json");
        let attn = |json: &str| {
            let m = crate::model::parse_hf_config("oss", json).expect("config");
            let s = TrainingSetup {
                seq_len: 8192,
                ..TrainingSetup::default()
            };
            attention_seconds(m.transformer().unwrap(), &s, &rates(1e14, Some(1e12)), 1)
        };
        let hybrid = attn(oss);
        let types = oss.find("\"layer_types\"").unwrap();
        let end = oss[types..].find(']').unwrap() + types + 2;
        let every = attn(&format!("{}{}", &oss[..types], &oss[end..]));
        let none = attn(&oss.replace("\"sliding_window\": 128", "\"sliding_window\": null"));
        // Causal pairs: n²/2 on a full layer, n·w − w²/2 on a sliding one (n > w).
        let (n, w) = (8192.0_f64, 128.0_f64);
        let (full, windowed) = (n * n / 2.0, n * w - w * w / 2.0);
        let expect = (12.0 * windowed + 12.0 * full) / (24.0 * full);
        assert!((hybrid / none - expect).abs() < 1e-12, "{}", hybrid / none);
        assert!(
            (every / none - windowed / full).abs() < 1e-12,
            "{}",
            every / none
        );
    }

    fn rates(flops: f64, memory: Option<f64>) -> ChipRates {
        ChipRates {
            gemm: FlopRate(flops),
            attention: FlopRate(flops),
            memory: memory.map(Bandwidth),
            sms: None,
            act_bytes: 2.0,
            eager_elementwise: false,
            cast_bytes: 0.0,
            autotuned: false,
        }
    }

    fn llama31_8b() -> crate::model::ModelSpec {
        crate::model::find_preset("Llama-3.1-8B")
            .unwrap()
            .model
            .clone()
    }

    /// Dense layers split over `tp` ranks.
    fn tp_split(tp: u64) -> WeightSplit {
        let p = Parallelism {
            tp,
            ..Parallelism::default()
        };
        WeightSplit::new(&p, crate::layout::ExpertTp::Whole)
    }

    /// Llama 3 8B (h 4096, 8 KV heads of 128, SwiGLU 14336): per-op SAC runs wk, wo and w3
    /// again — (1024 + 4096 + 14336) / (4096 + 2 × 1024 + 4096 + 3 × 14336) = 36.5% of the
    /// forward matmuls; a plain MLP's last linear (fc2) is not rerun.
    #[test]
    fn op_sac_reruns_wk_wo_and_w3() {
        let r = rates(1e15, None);
        let lin = |name, d_in, d_out| crate::model::Linear {
            name,
            d_in,
            d_out,
            copies: 1,
            active_copies: 1,
        };
        let (h, kv, f) = (4096, 1024, 14336);
        let gated = [
            lin("q_proj", h, h),
            lin("k_proj", h, kv),
            lin("v_proj", h, kv),
            lin("o_proj", h, h),
            lin("gate_proj", h, f),
            lin("up_proj", h, f),
            lin("down_proj", f, h),
        ];
        let fwd: f64 = gated
            .iter()
            .map(|l| gemm_seconds(8192, l.d_out, l.d_in, &r))
            .sum();
        let again = op_sac_recomputed_forward(&gated, 8192, &tp_split(1), &r);
        let share = (kv + h + f) as f64 / (2 * h + 2 * kv + 3 * f) as f64;
        assert!((again / fwd - share).abs() < 1e-12);
        assert!((share - 0.365).abs() < 1e-3, "{share}");
        // TP splits the same GEMMs: the share stays.
        let again8 = op_sac_recomputed_forward(&gated, 8192, &tp_split(8), &r);
        assert!((again8 * 8.0 - again).abs() / again < 1e-12);
        let plain = [
            lin("q_proj", h, h),
            lin("k_proj", h, h),
            lin("v_proj", h, h),
            lin("o_proj", h, h),
            lin("fc1", h, 4 * h),
            lin("fc2", 4 * h, h),
        ];
        let rerun = op_sac_recomputed_forward(&plain, 8192, &tp_split(1), &r);
        let k_and_o = 2.0 * gemm_seconds(8192, h, h, &r);
        assert!((rerun - k_and_o).abs() / k_and_o < 1e-12);
    }

    /// torch's ring runs for every framework but Megatron (Transformer Engine's CP), only with
    /// the flash / efficient SDPA ops, and moves K and V at the query-head count (`repeat_kv`
    /// before SDPA): Llama 3.1 8B's 8 KV heads reach the ring as 32.
    #[test]
    fn torch_ring_moves_expanded_kv_outside_megatron() {
        let m = crate::model::find_preset("Llama-3.1-8B")
            .unwrap()
            .model
            .clone();
        let t = m.transformer().unwrap();
        let mut s = TrainingSetup {
            seq_len: 131072,
            attention: AttentionImpl::Flash,
            recompute: Recompute::Full,
            compiled: true,
            ..TrainingSetup::default()
        };
        s.parallel.cp = 4;
        let ring = torch_ring(t, &s, 1).unwrap();
        assert_eq!(ring.q_elems, 32768.0 * 4096.0);
        assert_eq!(ring.kv_elems, ring.q_elems);
        assert_eq!(ring.fwd_passes, 2.0);
        assert!(ring.traced);
        // TP 2 halves the heads of each rank.
        assert_eq!(torch_ring(t, &s, 2).unwrap().q_elems, ring.q_elems / 2.0);
        s.framework = crate::workload::Framework::Megatron;
        assert!(torch_ring(t, &s, 1).is_none());
        s.framework = crate::workload::Framework::HuggingFace;
        s.attention = AttentionImpl::Eager;
        assert!(torch_ring(t, &s, 1).is_none());
        s.attention = AttentionImpl::Flash;
        s.parallel.cp = 1;
        assert!(torch_ring(t, &s, 1).is_none());
    }

    /// Eager attention's score GEMMs run on a roofline: at head_dim 128 and 2-byte scores they
    /// do 128 FLOP per byte of the score matrix, so a chip whose GEMM rate over its bandwidth
    /// is above 128 waits on memory, one below it on FLOPs. HF's unfused chain (no compile)
    /// moves 14 + 10 bytes per score where fused kernels move 4 + 6.
    #[test]
    fn eager_score_gemms_follow_the_roofline_and_hf_moves_more() {
        let t = llama31_8b();
        let t = t.transformer().unwrap();
        let s = TrainingSetup {
            seq_len: 2048,
            attention: AttentionImpl::Eager,
            recompute: Recompute::None,
            ..TrainingSetup::default()
        };
        let shape = AttentionShape {
            queries: 2048,
            keys: 2048,
            causal: true,
        };
        let scores = 32.0 * 2048.0 * 2048.0;
        let fwd_flops = 4.0 * scores * 128.0;
        // Ridge 200 FLOP/B (> 128): memory-bound, 2 × 2 B per score and pass.
        let hopper = rates(200e12, Some(1e12));
        let one = eager_score_gemms_seconds(fwd_flops, scores, &hopper);
        assert!((one - 4.0 * scores / 1e12).abs() / one < 1e-12);
        // Ridge 100 FLOP/B (< 128): compute-bound.
        let ampere = rates(100e12, Some(1e12));
        let one = eager_score_gemms_seconds(fwd_flops, scores, &ampere);
        assert!((one - fwd_flops / 100e12).abs() / one < 1e-12);
        // The whole pass: 3 GEMM passes (forward + 2 backward) and the softmax chain's bytes.
        let (_, fused) = attention_shape_seconds(t, &s, &hopper, 1, shape);
        let mut hf = hopper;
        hf.eager_elementwise = true;
        let (_, unfused) = attention_shape_seconds(t, &s, &hf, 1, shape);
        let extra = scores * ((14.0 - 4.0) + (10.0 - 6.0)) / 1e12;
        assert!(((unfused - fused) - extra).abs() / extra < 1e-9);
        assert!((fused - (3.0 * 4.0 * scores + 10.0 * scores) / 1e12).abs() / fused < 1e-9);
        // ModelLink's ALiBi chain (`unfused_score_bias`): the scale and the bias add, 8 + 4
        // bytes per score on top of the fused softmax.
        let alibi = TrainingSetup {
            unfused_score_bias: true,
            ..s.clone()
        };
        let (_, biased) = attention_shape_seconds(t, &alibi, &hopper, 1, shape);
        // ...and the contiguous copies of q and k (4096 × 2048 elements each, 4 B).
        let extra = (scores * (8.0 + 4.0) + 4.0 * 2.0 * 2048.0 * 4096.0) / 1e12;
        assert!(((biased - fused) - extra).abs() / extra < 1e-9);
    }

    /// The MLP activation runs on every routed copy: Mixtral-8x7B (top-2 of 8, 14,336 wide)
    /// activates 2 × 14,336 per token, DeepSeek-V3 (3 dense layers of 18,432, then 58 MoE
    /// layers of top-8 + 1 shared expert, 2,048 wide) 18,432 in both kinds.
    #[test]
    fn mlp_activation_runs_on_every_routed_copy() {
        let width = |name: &str| {
            let m = crate::model::find_preset(name).unwrap().model.clone();
            let b = crate::model::param_breakdown(&m);
            mlp_activation_width(&b, m.transformer().unwrap())
        };
        assert_eq!(width("Mixtral-8x7B"), 2.0 * 14336.0);
        assert_eq!(width("DeepSeek-V3"), 18432.0);
        assert_eq!(width("Llama-3.1-8B"), 14336.0);
    }

    /// Megatron-Core's grouped experts under FP8 current scaling launch 4 quantize kernels per
    /// local expert for their input (per forward pass) and their output gradient, charged on the
    /// linear carrying the grouped linear's input cast (fc1 on gate_proj, fc2 on down_proj);
    /// delayed scaling's fused multi-tensor cast, 16-bit training, dense linears and other
    /// frameworks pay none.
    #[test]
    fn current_scaling_quantizes_each_expert_on_its_own() {
        use crate::workload::{Fp8Scaling, Framework, Precision};
        let expert = |name: &'static str, copies: u64| crate::model::Linear {
            name,
            d_in: 2048,
            d_out: 768,
            copies,
            active_copies: copies.min(8),
        };
        let mut s = TrainingSetup {
            framework: Framework::Megatron,
            precision: Precision::Fp8,
            fp8_scaling: Fp8Scaling::Tensorwise,
            ..TrainingSetup::default()
        };
        let mut r = rates(1e15, Some(3e12));
        r.cast_bytes = FP8_CAST_BYTES;
        let each = CURRENT_SCALING_QUANTIZE_KERNELS * SMALL_KERNEL_SECONDS;
        assert_eq!(
            expert_quantize_seconds(&s, &expert("gate_proj", 128), &r),
            2.0 * each
        );
        assert_eq!(
            expert_quantize_seconds(&s, &expert("down_proj", 128), &r),
            2.0 * each
        );
        assert_eq!(
            expert_quantize_seconds(&s, &expert("up_proj", 128), &r),
            0.0
        );
        assert_eq!(
            expert_quantize_seconds(&s, &expert("gate_proj", 1), &r),
            0.0
        );
        s.recompute = Recompute::Full;
        assert_eq!(
            expert_quantize_seconds(&s, &expert("gate_proj", 128), &r),
            3.0 * each
        );
        s.fp8_scaling = Fp8Scaling::Delayed;
        assert_eq!(
            expert_quantize_seconds(&s, &expert("gate_proj", 128), &r),
            0.0
        );
        s.fp8_scaling = Fp8Scaling::Tensorwise;
        s.framework = Framework::HuggingFace;
        assert_eq!(
            expert_quantize_seconds(&s, &expert("gate_proj", 128), &r),
            0.0
        );
        s.framework = Framework::Megatron;
        r.cast_bytes = 0.0;
        assert_eq!(
            expert_quantize_seconds(&s, &expert("gate_proj", 128), &r),
            0.0
        );
    }

    #[test]
    fn quantization_penalises_partial_waves_and_tiles() {
        // 108 tiles on 108 SMs: one full wave.
        assert!((quantization(128 * 12, 128 * 9, Some(108)) - 1.0).abs() < 1e-12);
        // 109 tiles: the second wave holds one tile.
        let q = quantization(128 * 109, 128, Some(108));
        assert!((q - 109.0 / 216.0).abs() < 1e-12);
        // Half a tile on the N edge.
        assert!((quantization(128, 64, None) - 0.5).abs() < 1e-12);
    }

    /// An autotuned engine's best quantization over its kernels (tile and split-K factor).
    fn best_q(m: u64, n: u64, k: u64, groups: u64) -> f64 {
        gemm_kernels(n, k, Some(108), groups > 1)
            .map(|g| g.quantization(m, n, groups, Some(108)))
            .fold(0.0, f64::max)
    }

    /// Below one wave a serving GEMM is split along K: Llama-2-70B's q/k/v on a TP 4 shard at a
    /// 128-token prompt (M 128, N 2560, K 8192) is 20 tiles of 128 × 128 on the A100's 108
    /// SMs, 20/108 of one wave unsplit; split 5 ways it runs 100 CTAs in one wave (100/108),
    /// the best of splits 1..=7 and the five tiles. A split needs 64 K per slice.
    #[test]
    fn short_gemms_split_k_up_to_the_limit() {
        assert!((best_q(128, 2560, 8192, 1) - 100.0 / 108.0).abs() < 1e-12);
        // K = 128: two slices of 64 at most; 40 tiles of 64 × 128, 80 CTAs.
        assert!((best_q(128, 2560, 128, 1) - 80.0 / 108.0).abs() < 1e-12);
        // Past 256 columns per SM (27,648 on 108 SMs) nothing is split.
        assert!(gemm_kernels(27_648, 8192, Some(108), false).all(|g| g.split_k == 1));
        assert!(gemm_kernels(27_647, 8192, Some(108), false).any(|g| g.split_k == 7));
        // A grouped (MoE) GEMM is not split: 6 experts of 100 rows × 1024 columns share the
        // waves, 6 × 16 = 96 tiles of 128 × 64 (or 64 × 128 with 100 rows padded to 128).
        assert!(gemm_kernels(1024, 4096, Some(108), true).all(|g| g.split_k == 1));
        let grouped = best_q(100, 1024, 4096, 6);
        assert!(
            (grouped - 100.0 / 128.0 * 96.0 / 108.0).abs() < 1e-12,
            "{grouped}"
        );
        // The serial split's partial sums: 4 slices after the first read and write the output.
        let g = GemmKernel {
            tile: (128, 128),
            split_k: 5,
        };
        assert_eq!(
            g.partial_bytes(128, 2560, 2.0),
            4.0 * 2.0 * 128.0 * 2560.0 * 2.0
        );
    }

    /// The engine takes the fastest kernel: compute-bound (no bandwidth), the best-filling
    /// split; with a bandwidth, a split whose partial sums cost more than its fill gains is
    /// not taken.
    #[test]
    fn autotuned_gemm_takes_its_fastest_kernel() {
        let r = ChipRates {
            sms: Some(108),
            autotuned: true,
            ..rates(1e14, None)
        };
        let flops = 2.0 * 128.0 * 2560.0 * 8192.0;
        let t = gemm_seconds(128, 2560, 8192, &r);
        assert!((t - flops / (1e14 * 100.0 / 108.0)).abs() / t < 1e-12);
        // Bandwidth-bound (a slow chip's compute is no limit): no split, the plain bytes.
        let fast = ChipRates {
            memory: Some(Bandwidth(1e12)),
            ..ChipRates {
                gemm: FlopRate(1e18),
                ..r
            }
        };
        let bytes = 2.0 * (128.0 * 8192.0 + 8192.0 * 2560.0 + 128.0 * 2560.0);
        let t = gemm_seconds(128, 2560, 8192, &fast);
        assert!((t - bytes / 1e12).abs() / t < 1e-12);
    }

    #[test]
    fn small_gemms_are_memory_bound() {
        let r = ChipRates {
            attention: FlopRate(300e12),
            sms: Some(132),
            ..rates(500e12, Some(2.5e12))
        };
        // A 16-row GEMM against a 4096×4096 weight: weight traffic dominates.
        let t = gemm_seconds(16, 4096, 4096, &r);
        let mem = 2.0 * (16.0 * 4096.0 * 2.0 + 4096.0 * 4096.0) / 2.5e12;
        assert!((t - mem).abs() / mem < 1e-9);
        // A large square GEMM is compute-bound.
        let big = gemm_seconds(8192, 8192, 8192, &r);
        // 64 × 64 = 4096 tiles on 132 SMs: 32 waves, the last one 4096 − 31·132 = 4 short.
        let q = 4096.0 / (32.0 * 132.0);
        assert!((big - 2.0 * 8192f64.powi(3) / (500e12 * q)).abs() / big < 1e-9);
    }

    #[test]
    fn autotuned_tiles_fill_the_chip() {
        let one = |m: u64, n: u64, tile: (u64, u64)| {
            GemmKernel { tile, split_k: 1 }.quantization(m, n, 1, Some(108))
        };
        // FasterTransformer GPT-13B's 512-token prefill, attention output (5120 × 5120) on an
        // A100 (108 SMs): 4 × 40 = 160 tiles of 128 × 128 run in two waves, the second 52 short
        // (160/216 = 0.74); 64 × 128 tiles make 8 × 40 = 320, three waves of 108 less 4
        // (320/324 = 0.988), as do the 80 tiles of 256 × 128 split 4 ways: the best.
        assert!((one(512, 5120, (128, 128)) - 160.0 / 216.0).abs() < 1e-12);
        assert!((one(512, 5120, (64, 128)) - 320.0 / 324.0).abs() < 1e-12);
        assert!((best_q(512, 5120, 5120, 1) - 320.0 / 324.0).abs() < 1e-12);
        // 2048 rows of a 5120-wide output: 32 × 40 = 1280 tiles of 64 × 128 (1280/1296); split
        // 7 ways, 8960 CTAs in 83 waves of 108 less 4 (8960/8964): the best fill, which the
        // time roofline weighs against its partial sums.
        let wide = best_q(2048, 5120, 5120, 1);
        assert!((wide - 8960.0 / 8964.0).abs() < 1e-12, "{wide}");
        // Under one wave the split fills the chip: a 128-token prompt on Llama-2-7B's o_proj
        // (4096 × 4096): 64 tiles of 128 × 64 split 5 ways, 320 CTAs in three waves (320/324),
        // where unsplit they leave 44 of 108 SMs idle.
        assert!((one(128, 4096, (128, 64)) - 64.0 / 108.0).abs() < 1e-12);
        assert!((best_q(128, 4096, 4096, 1) - 320.0 / 324.0).abs() < 1e-12);
        // Training's fixed tile keeps its rule: fewer tiles than SMs are not charged a wave.
        assert_eq!(quantization(128, 4096, Some(108)), 1.0);
    }

    #[test]
    fn quantised_weights_read_their_own_bytes() {
        let r = ChipRates {
            autotuned: true,
            ..rates(1e18, Some(1e12))
        };
        // One FP8 weight (1 B per element) against 16-bit activations.
        let t = gemm_seconds_weights(128, 4096, 4096, 1.0, &r);
        let bytes = 2.0 * (128.0 * 4096.0 * 2.0) + 4096.0 * 4096.0;
        assert!((t - bytes / 1e12).abs() / t < 1e-12);
    }

    /// QLoRA pays, over LoRA on the same adapters, one fused dequantization per 4-bit layer weight
    /// and pass: Llama 3.1 8B's 6.98B layer weights × (4.127/8 + 2) B × 3 passes under full
    /// recompute (2 without) over the bandwidth, and nothing in the GEMMs; a 4-bit LM head
    /// (LitGPT) adds its own two.
    #[test]
    fn qlora_dequantizes_every_layer_weight_once_per_pass() {
        use crate::workload::TrainTask;
        let m = llama31_8b();
        let t = m.transformer().unwrap();
        let b = crate::model::param_breakdown(&m);
        let r = rates(1e14, Some(1e12));
        let mut s = TrainingSetup {
            task: TrainTask::Lora,
            micro_batch: 2,
            seq_len: 2048,
            recompute: Recompute::Full,
            ..TrainingSetup::default()
        };
        // Eager PEFT LoRA pays its element-wise pass around each adapter (peft_adapter_pass),
        // which QLoRA's bitsandbytes layer does not: LoRA's adapter time is the longer.
        let eager_lora = micro_batch_compute(&b, t, &s, &r);
        s.task = TrainTask::Qlora;
        let eager_qlora = micro_batch_compute(&b, t, &s, &r);
        assert!(eager_lora.gemm_s > eager_qlora.gemm_s);
        // Compiled, neither pays that pass: the two differ by the dequantization alone.
        s.compiled = true;
        s.task = TrainTask::Lora;
        let lora = micro_batch_compute(&b, t, &s, &r);
        s.task = TrainTask::Qlora;
        let qlora = micro_batch_compute(&b, t, &s, &r);
        let per_layer = 2.0 * 4096.0 * 4096.0 + 2.0 * 4096.0 * 1024.0 + 3.0 * 4096.0 * 14336.0;
        let weights = 32.0 * per_layer;
        assert_eq!(weights, 6_979_321_856.0);
        let bytes = 4.127 / 8.0 + 2.0;
        let extra = qlora.elementwise_s - lora.elementwise_s;
        assert!(
            (extra - weights * bytes * 3.0 / 1e12).abs() < 1e-9,
            "{extra}"
        );
        assert_eq!(qlora.gemm_s, lora.gemm_s);
        s.recompute = Recompute::None;
        s.task = TrainTask::Lora;
        let lora = micro_batch_compute(&b, t, &s, &r);
        s.task = TrainTask::Qlora;
        let qlora = micro_batch_compute(&b, t, &s, &r);
        let extra = qlora.elementwise_s - lora.elementwise_s;
        assert!(
            (extra - weights * bytes * 2.0 / 1e12).abs() < 1e-9,
            "{extra}"
        );
        s.quantized_lm_head = Some(true);
        let head = micro_batch_compute(&b, t, &s, &r).elementwise_s - qlora.elementwise_s;
        let head_weights = 4096.0 * 128_256.0;
        assert!(
            (head - head_weights * bytes * 2.0 / 1e12).abs() < 1e-9,
            "{head}"
        );
        // LitGPT's fp16 copy is cast to bf16 (read 2 B, write 2 B); a 16-bit base pays nothing.
        s.framework = crate::workload::Framework::LitGpt;
        assert_eq!(dequant_bytes_per_weight(&s), Some(bytes + 4.0));
        s.task = TrainTask::Lora;
        assert_eq!(dequant_bytes_per_weight(&s), None);
    }

    /// The loss streams the logits at memory bandwidth: per logit 36 B under HF's fp32
    /// `F.cross_entropy` (24 B in fp32 training, no upcast), 28 B under Megatron-Core's fused
    /// vocab-parallel loss, 12 B for LitGPT's bf16 loss and 8 B for flash-attn's fused xentropy
    /// kernel (llm-foundry); on the last stage only, once per micro-batch, over the TP shard of
    /// the vocabulary, and nothing without an LM head.
    /// Megatron-Core core_v0.6.0's unfused loss: `.float()` 2 + 4, max 4, subtract 4 + 4, exp
    /// 4 + 4, sum 4, div_ 4 + 4, backward mul_ 4 + 4, cast back 4 + 2; the fused default stays 28.
    #[test]
    fn megatron_unfused_loss_counts_core_v060s_passes() {
        assert_eq!(megatron_unfused_loss_bytes(2.0), 52.0);
        assert_eq!(megatron_unfused_loss_bytes(4.0), 40.0);
        let fused = TrainingSetup {
            framework: crate::workload::Framework::Megatron,
            ..TrainingSetup::default()
        };
        let unfused = TrainingSetup {
            cross_entropy_loss_fusion: Some(false),
            ..fused.clone()
        };
        assert_eq!(loss_bytes_per_logit(&fused, 2.0), 28.0);
        assert_eq!(loss_bytes_per_logit(&unfused, 2.0), 52.0);
        // Another loss option still takes precedence over the framework's own.
        let classifier = TrainingSetup {
            fused_classifier: true,
            ..unfused.clone()
        };
        assert_eq!(loss_bytes_per_logit(&classifier, 2.0), 6.0);
    }

    #[test]
    fn the_loss_streams_the_logits_at_memory_bandwidth() {
        use crate::workload::Framework;
        let m = llama31_8b();
        let t = m.transformer().unwrap();
        let b = crate::model::param_breakdown(&m);
        let r = rates(1e14, Some(1e12));
        let mut s = TrainingSetup {
            micro_batch: 2,
            seq_len: 2048,
            ..TrainingSetup::default()
        };
        assert_eq!(loss_bytes_per_logit(&s, 2.0), 36.0);
        assert_eq!(loss_bytes_per_logit(&s, 4.0), 24.0);
        let hf = micro_batch_compute(&b, t, &s, &r);
        s.fused_cross_entropy = true;
        assert_eq!(loss_bytes_per_logit(&s, 2.0), 8.0);
        let fused = micro_batch_compute(&b, t, &s, &r);
        let logits = 4096.0 * 128_256.0;
        let saved = hf.elementwise_s - fused.elementwise_s;
        assert!((saved - logits * 28.0 / 1e12).abs() < 1e-12, "{saved}");
        assert_eq!(hf.gemm_s, fused.gemm_s);
        s.fused_cross_entropy = false;
        s.framework = Framework::Megatron;
        assert_eq!(loss_bytes_per_logit(&s, 2.0), 28.0);
        s.framework = Framework::LitGpt;
        assert_eq!(loss_bytes_per_logit(&s, 2.0), 12.0);
        // TP 4 streams a quarter of the vocabulary on each rank.
        s.framework = Framework::HuggingFace;
        s.parallel.tp = 4;
        let tp4 = micro_batch_compute(&b, t, &s, &r);
        s.fused_cross_entropy = true;
        let tp4_fused = micro_batch_compute(&b, t, &s, &r);
        let saved4 = tp4.elementwise_s - tp4_fused.elementwise_s;
        assert!((saved4 * 4.0 - saved).abs() < 1e-12, "{saved4}");
    }

    /// llm.c's fused classifier (`fused_classifier`): two reads and one in-place write of the
    /// 16-bit logits, 6 B per logit in bf16 (12 B on fp32 logits), before the framework's own
    /// loss and any other loss option; the LM head's GEMMs do not move.
    #[test]
    fn a_fused_classifier_streams_the_logits_three_times() {
        use crate::workload::Framework;
        let m = llama31_8b();
        let t = m.transformer().unwrap();
        let b = crate::model::param_breakdown(&m);
        let r = rates(1e14, Some(1e12));
        let mut s = TrainingSetup {
            micro_batch: 2,
            seq_len: 2048,
            framework: Framework::Megatron,
            ..TrainingSetup::default()
        };
        let megatron = micro_batch_compute(&b, t, &s, &r);
        s.fused_classifier = true;
        assert_eq!(loss_bytes_per_logit(&s, 2.0), 6.0);
        assert_eq!(loss_bytes_per_logit(&s, 4.0), 12.0);
        let fused = micro_batch_compute(&b, t, &s, &r);
        let logits = 4096.0 * 128_256.0;
        let saved = megatron.elementwise_s - fused.elementwise_s;
        assert!((saved - logits * 22.0 / 1e12).abs() < 1e-12, "{saved}");
        assert_eq!(megatron.gemm_s, fused.gemm_s);
        assert_eq!(megatron.attention_s, fused.attention_s);
        s.fused_cross_entropy = true;
        s.chunked_loss = true;
        s.framework = Framework::HuggingFace;
        assert_eq!(loss_bytes_per_logit(&s, 2.0), 6.0);
    }

    /// Composer's train metrics (`logit_metrics`) each stream the logits once more, forward
    /// only: the fp32 autocast copy (2 read + 4 written) and `log_softmax` (4 + 4) = 14 B per
    /// logit in bf16, 8 B on fp32 logits; two metrics add 28 B per token x vocabulary entry to
    /// the fused loss's 8 B, element-wise time only (no GEMM).
    #[test]
    fn train_metrics_stream_the_logits_once_more_each() {
        assert_eq!(metric_bytes_per_logit(2.0), 14.0);
        assert_eq!(metric_bytes_per_logit(4.0), 8.0);
        let m = llama31_8b();
        let t = m.transformer().unwrap();
        let b = crate::model::param_breakdown(&m);
        let r = rates(1e14, Some(1e12));
        let mut s = TrainingSetup {
            micro_batch: 2,
            seq_len: 2048,
            fused_cross_entropy: true,
            ..TrainingSetup::default()
        };
        let plain = micro_batch_compute(&b, t, &s, &r);
        s.logit_metrics = 2;
        let two = micro_batch_compute(&b, t, &s, &r);
        let added = two.elementwise_s - plain.elementwise_s;
        let logits = 4096.0 * 128_256.0;
        assert!((added - logits * 28.0 / 1e12).abs() < 1e-12, "{added}");
        assert_eq!(two.gemm_s, plain.gemm_s);
        assert_eq!(two.attention_s, plain.attention_s);
    }

    #[test]
    fn uneven_stages_round_up() {
        assert_eq!(layers_on_slowest_stage(30, 4), 8);
        assert_eq!(layers_on_slowest_stage(32, 4), 8);
        assert_eq!(layers_on_slowest_stage(5, 1), 5);
    }
}
