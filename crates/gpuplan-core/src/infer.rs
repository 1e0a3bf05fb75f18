//! Inference estimates: weights by format, KV cache, the serving engine's KV pool (sized the way
//! vLLM sizes it), concurrency, and prefill/decode latency from a roofline.
//!
//! Sources: KV bytes per token (HF blog llama31.md; DeepSeek-V2 paper §2.1 for MLA); vLLM's
//! `kv = util × total − peak_torch − non_torch` (vLLM issue #10517 logs, `gpu_worker.py`
//! `determine_available_memory`); decode as bandwidth-bound until the ridge point (kipply's
//! inference arithmetic, llm-analysis); see docs/methodology.md §Inference.

use crate::compute::{gemm_seconds_grouped, gemm_seconds_weights, ChipRates};
use crate::constants::Tunables;
use crate::error::CoreError;
use crate::hardware::{ComputeDtype, GpuSpec};
use crate::i18n::{Msg, Text};
use crate::layout::WeightSplit;
use crate::model::{
    param_breakdown, AttentionKind, Linear, MlaSpec, MlpKind, ModelSpec, MoeSpec, ParallelBlock,
    ParamBreakdown, Structure, TransformerSpec,
};
use crate::units::{compute_time, transfer_time, Bandwidth, Bytes, FlopRate, Flops, Seconds};
use crate::workload::{
    parse_release, DecodeKvReads, Engine, InferenceSetup, KvDtype, TpAllReduce, VllmProfiler,
    WeightFormat,
};
use serde::Serialize;

/// KV-cache bytes per token, for the whole model and for one TP rank.
#[derive(Clone, Copy, Debug, PartialEq, Serialize)]
pub struct KvPerToken {
    pub total: Bytes,
    pub per_device: Bytes,
    /// KV heads each TP rank holds (replicated when kv_heads < tp); 1 latent "head" for MLA.
    pub heads_per_device: u64,
}

/// `2 · L · a_kv · d_h · bytes` (K and V); MLA caches `kv_lora_rank + qk_rope_head_dim` values per
/// layer without the factor 2 and replicates them on every TP rank. KV heads are split over TP
/// and replicated when there are fewer heads than ranks (vLLM `get_num_kv_heads`: max(1, a_kv/t)).
pub fn kv_per_token(t: &TransformerSpec, kv_bytes: f64, tp: u64) -> KvPerToken {
    let layers = t.decoder_layers() as f64;
    match t.attention {
        AttentionKind::Mla(m) => {
            let b = layers * (m.kv_lora_rank + m.qk_rope_head_dim) as f64 * kv_bytes;
            KvPerToken {
                total: Bytes(b),
                per_device: Bytes(b),
                heads_per_device: 1,
            }
        }
        AttentionKind::Standard => {
            let per_head = 2.0 * layers * t.head_dim as f64 * kv_bytes;
            let heads_per_device = (t.kv_heads / tp).max(1);
            KvPerToken {
                total: Bytes(per_head * t.kv_heads as f64),
                per_device: Bytes(per_head * heads_per_device as f64),
                heads_per_device,
            }
        }
    }
}

/// Weight bytes on one TP rank for a storage format. Quantised int formats apply to the layer
/// linears; embeddings, norms and the LM head stay 16-bit (AWQ/GPTQ/bitsandbytes defaults).
/// The MoE routers are whole on every rank (see [`router_params`]).
pub fn weight_bytes(m: &ModelSpec, format: WeightFormat, tp: u64) -> Bytes {
    let b = param_breakdown(m);
    let linears = quantized_params(&b, format) as f64;
    let rest = b.total as f64 - linears;
    let bits = format.bits();
    let rest_bits = if format.keeps_embeddings_16bit() {
        16.0
    } else {
        bits
    };
    let tp = tp.max(1) as f64;
    let replicated = router_params(m) as f64 * rest_bits / 8.0 * (1.0 - 1.0 / tp);
    Bytes((linears * bits + rest * rest_bits) / 8.0 / tp + replicated)
}

/// The parameters a format quantizes: the routed experts for MXFP4
/// ([`WeightFormat::routed_experts_only`]), every layer linear for the other formats.
pub fn quantized_params(b: &ParamBreakdown, format: WeightFormat) -> u64 {
    if format.routed_experts_only() {
        b.expert_params()
    } else {
        b.linear_params()
    }
}

/// Router weights of the MoE layers (`mlp.gate`, hidden × experts each), counted with the
/// layers' small parameters. The engines keep them whole and unquantised on every TP rank:
/// vLLM builds them as `ReplicatedLinear(hidden, experts, quant_config=None)`
/// (vllm/model_executor/models/qwen3_moe.py, qwen2_moe.py, mixtral.py, deepseek_v2.py,
/// v0.9–v0.10), and an FP8 checkpoint such as Qwen3-235B-A22B-FP8 stores them in bf16.
pub fn router_params(m: &ModelSpec) -> u64 {
    let Some(moe) = m.transformer().and_then(|t| t.moe) else {
        return 0;
    };
    let Some(t) = m.transformer() else {
        return 0;
    };
    let layers: u64 = param_breakdown(m)
        .groups
        .iter()
        .filter(|g| g.name == "moe")
        .map(|g| g.count)
        .sum();
    layers * (t.hidden * moe.experts + if moe.router_bias { moe.experts } else { 0 })
}

/// What the images of one request add: LLM tokens, KV tokens, encoder work and activations.
#[derive(Clone, Copy, Debug, Default, PartialEq, Serialize)]
pub struct ImageLoad {
    /// Tokens the images add to the prompt (the model's image-token rule × images).
    pub tokens: u64,
    /// Of those, tokens that hold KV (mllama: only in its cross-attention layers).
    pub kv_tokens: u64,
    /// Encoder FLOPs for the request's images: 2 · encoder params · patches + full attention
    /// 4 · layers · patches² · width per image.
    pub encoder_flops: f64,
    /// Encoder activation of the profile run over one request's images (same per-token rule as
    /// the text activation, at the encoder's widths).
    pub encoder_activation: Bytes,
}

pub fn image_load(t: &TransformerSpec, s: &InferenceSetup) -> ImageLoad {
    let Some(v) = t.vision.as_deref().filter(|_| s.images_per_request > 0) else {
        return ImageLoad::default();
    };
    let per_image = v.image_tokens(s.image_size[0], s.image_size[1]);
    let n = s.images_per_request;
    let patches = (per_image * v.patches_per_token) as f64;
    let d = v.hidden as f64;
    let per_token = if v.gated { 6.0 } else { 4.0 } * v.ffn as f64 + 6.0 * d;
    ImageLoad {
        tokens: per_image * n,
        kv_tokens: (per_image as f64 * v.kv_layer_share * n as f64).round() as u64,
        encoder_flops: n as f64
            * (2.0 * v.params as f64 * patches + 4.0 * v.layers as f64 * patches * patches * d),
        encoder_activation: Bytes(patches * n as f64 * per_token),
    }
}

/// Peak activation of the serving engine's profiling forward pass over `tokens` tokens: at the
/// MLP the live tensors are the gate‖up output (2·2f), the activation output (2f) and about three
/// hidden-size buffers (residual, normed input, output: 6h). For Llama-3.1-8B this gives 110.6 KB
/// per token against the 109.8 KB per token between the 20k and 29k vLLM logs (cases
/// vllm-llama31-8b-rtx3090-*).
///
/// MoE layers run the fused-MoE kernel instead (vLLM `fused_experts_impl`,
/// vllm/model_executor/layers/fused_moe/fused_moe.py @000d145): per token and routed expert it
/// allocates `cache13` of max(N, K) (gate‖up output N = 2·f_e/t, reused for the down output of
/// width K = h) and `cache2` of N/2, in the activation dtype; a shared expert runs as a dense MLP
/// before it and keeps its h-wide output. Dense leading layers (DeepSeek) keep the dense rule.
pub fn activation_peak(t: &TransformerSpec, tokens: u64, tp: u64) -> Bytes {
    let etp = WeightSplit::serving(tp).etp as f64;
    let tp = tp as f64;
    let h = t.hidden as f64;
    let dense = |f: f64| match t.mlp {
        MlpKind::Gated => 6.0 * f,
        MlpKind::Plain => 4.0 * f,
    };
    let mlp = match t.moe {
        Some(moe) => {
            let fe = moe.expert_ffn as f64 / etp;
            let n = match t.mlp {
                MlpKind::Gated => 2.0 * fe,
                MlpKind::Plain => fe,
            };
            let k = moe.experts_per_token as f64;
            let routed = 2.0 * k * (n.max(h) + fe);
            let shared = moe.shared_experts as f64;
            let moe_layer = if shared > 0.0 {
                routed.max(dense(shared * fe)) + 2.0 * h
            } else {
                routed
            };
            if moe.dense_layers > 0 {
                moe_layer.max(dense(t.ffn as f64 / tp))
            } else {
                moe_layer
            }
        }
        None => dense(t.ffn_for_activation() as f64 / tp),
    };
    let attn = 2.0 * (t.q_width() + 2 * t.kv_width()) as f64 / tp;
    Bytes(tokens as f64 * (mlp.max(attn) + 6.0 * h))
}

/// Bytes per logit of vLLM V1's sampler warm-up in the profile run (PyTorch top-k/top-p path,
/// FlashInfer not installed): the bf16 logits (2) and their fp32 copy (4, `sampler.py`
/// `logits.to(torch.float32)`), then `logits.sort(dim=-1)` (`topk_topp_sampler.py`): sorted
/// values (4) and int64 indices (8), and inside PyTorch's segmented sort (`SortStable.cu`) the
/// int64 reverse indices (8) and CUB's spare key/value buffers (4 + 8), all through the caching
/// allocator: 38. vLLM v0.9.0–v0.10.0 `gpu_model_runner.py` `profile_run` →
/// `_dummy_sampler_run` (top_p 0.9, top_k vocab − 1).
pub const VLLM_SAMPLER_BYTES_PER_LOGIT: f64 = 38.0;

/// Peak of vLLM V1's dummy sampler run inside the profiled window: `min(max_num_seqs, tokens)`
/// requests, each with the full vocabulary (the logits are all-gathered on every TP rank), plus
/// the profile batch's bf16 hidden states. vLLM charges the larger of this and the forward peak.
/// For Qwen3-235B (vocab 151,936) at 1024 sequences this is 5.6 GiB per GPU, against 0.7 GiB for
/// its 8192-token forward (case s-vllm-kv-qwen3-235b-fp8-h100-tp4).
pub fn vllm_sampler_peak(t: &TransformerSpec, tokens: u64, max_num_seqs: u64) -> Bytes {
    let requests = max_num_seqs.min(tokens) as f64;
    Bytes(
        requests * t.vocab as f64 * VLLM_SAMPLER_BYTES_PER_LOGIT
            + 2.0 * tokens as f64 * t.hidden as f64,
    )
}

/// v0.2.5–v0.6.3 ([`VllmProfiler::FreeMemory`]): what the `init − free` peak charges beyond
/// torch's allocated peak, GiB. PR #2031 (vLLM, Dec 2023), which introduced the rule, measured it
/// on Llama-2-7B, TP 1, A100-80GB: "Current main: # GPU blocks: 7449 / This PR: # GPU blocks:
/// 7351", 98 blocks × 16 tokens × 512 KiB = 0.766 GiB (the caching allocator's reserve above the
/// allocated peak and the memory outside torch, CUDA context included in that release's
/// `total − free`). One measurement: in-sample for case vllm-llama2-7b-a100-80g-tp1.
pub const VLLM_FREE_MEMORY_OVERHEAD_GIB: f64 = 0.766;

/// v0.6.5 and later ([`VllmProfiler::NonTorchGrowth`]): growth of memory outside torch between
/// the instance's creation and the end of the profile run at TP 1 (cuBLAS/cuBLASLt handles,
/// kernel modules loaded on first use), GiB. PR #12126 (vLLM, Jan 2025) on an H100-80GB:
/// "non_torch_memory takes 0.16GiB" (no case uses that log). NCCL comes on top at TP > 1.
pub const VLLM_NON_TORCH_GROWTH_GIB: f64 = 0.16;

/// Memory outside the weights and the profile run's torch peak that the setup's vLLM release
/// charges, GiB, before NCCL (see [`VllmProfiler`]).
pub fn vllm_non_torch_gib(s: &InferenceSetup, tun: &Tunables) -> f64 {
    match s.vllm_profiler() {
        VllmProfiler::FreeMemory => VLLM_FREE_MEMORY_OVERHEAD_GIB,
        VllmProfiler::NonTorchTotal => tun.vllm_non_torch_gib,
        VllmProfiler::NonTorchGrowth => VLLM_NON_TORCH_GROWTH_GIB,
    }
}

/// One NVLS buffer: `NCCL_NVLS_CHUNKSIZE` (128 KiB) × `NCCL_STEPS` (8), bytes (nvls.cc
/// `ncclNvlsBufferSetup`: `buffSize = nvlsStepSize * NCCL_STEPS`, v2.22.3-1 on).
pub const NCCL_NVLS_BUFFER_BYTES: f64 = 128.0 * 1024.0 * 8.0;
/// First vLLM release on torch 2.7, whose wheels pin nvidia-nccl-cu12 2.26.2 (NCCL ≥ 2.22's NVLS
/// sizing). Earlier torch builds carry NCCL 2.20.5/2.21.5, whose NVLS buffers scale with the
/// ring's channel count (`comm->nChannels × 2 × (buffSize + 2 MiB)`): not modelled.
pub const VLLM_FIRST_NCCL_2_26: [u64; 3] = [0, 9, 0];

// NCCL's NVLink SHARP (NVLS) buffers per GPU that the engine's TP communicators hold when vLLM
// measures its memory are charged inside each communicator by [`vllm_nccl_gib`], with
// `train::nccl::nvls_bytes`'s rule. NCCL turns NVLS on by itself (`NCCL_NVLS_ENABLE` default 2:
// on where the driver reports multicast support) for a communicator over more than two GPUs
// (`ncclNvlsInit`: `gpuCount <= 2` returns), and every rank maps `nvlsTotalSize = nChannels × 2 ×
// buffSize × nHeads` of its own physical memory (`nvlsAllocateMem` → `cuMemCreate(ucsize)`),
// one head per GPU (vLLM issue #9699's 8 × H200 log: "nHeads 8 … nvlsPerRankSize 301989888
// nvlsTotalSize 2415919104", NCCL 2.20's larger buffers). vLLM sets `NCCL_CUMEM_ENABLE=0`
// (vllm/__init__.py, later vllm/env_override.py unless multi-node NVLink's IMEX channels exist),
// so NCCL connects at init rather than at the first collective; either way the pynccl TP
// communicator holds them before the profile run ends (its all-reduces of the profile batch
// exceed custom all-reduce's 8 MiB): 128 MiB at TP 4 on H100 per communicator. SGLang sets
// `NCCL_NVLS_ENABLE` from `enable_nccl_nvls` (default off) and is charged `nccl_buffers_gib`;
// TensorRT-LLM and the static engines likewise (their NCCL release and NVLS use were not
// checked).

/// NCCL communicators of vLLM's TP group alive when V1 (0.9.0 and later: torch 2.7, NCCL 2.26)
/// measures its memory: the pynccl communicator (`CudaCommunicator`,
/// vllm/distributed/device_communicators/cuda_communicator.py @v0.9.2 l.50, @v0.10.0 the same;
/// the EP group makes none: "ep does not use pynccl", l.34) and torch's ProcessGroupNCCL for the
/// TP device group, which the profile run's logits all-gather creates (V1 `use_all_gather`,
/// vllm/platforms/interface.py @v0.9.2 l.477 → base_device_communicator.py l.129
/// `dist.all_gather_into_tensor(..., group=self.device_group)`). Both come after the start-up
/// snapshot (gpu_worker.py @v0.9.2 l.140 vs l.158), so both are in the non-torch growth.
pub const VLLM_V1_TP_COMMUNICATORS: f64 = 2.0;

/// NCCL memory per GPU that the setup's vLLM release charges, GiB. From 0.9.0 (with TP > 1):
/// [`VLLM_V1_TP_COMMUNICATORS`] communicators, each connecting its rings, trees and NVLS at
/// init because vLLM sets `NCCL_CUMEM_ENABLE=0` (vllm/env_override.py @v0.9.2 l.32), sized
/// from NCCL's source (`train::nccl::node_communicator_bytes`). Earlier releases: the
/// `nccl_buffers_gib` assumption (their groups were not read at source).
pub fn vllm_nccl_gib(s: &InferenceSetup, gpu: &GpuSpec, tun: &Tunables) -> f64 {
    if s.tp <= 1 {
        return 0.0;
    }
    let v1 = s
        .engine_version
        .as_deref()
        .and_then(parse_release)
        .is_none_or(|v| v >= VLLM_FIRST_NCCL_2_26);
    if !v1 {
        return tun.nccl_buffers_gib;
    }
    let one = crate::train::nccl::node_communicator_bytes(gpu, s.tp);
    Bytes(VLLM_V1_TP_COMMUNICATORS * one).gib()
}

#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct ServingMemory {
    /// The engine whose rule sized the pool.
    pub engine: Engine,
    /// The rule in one line (the engine's formula, with its source in docs/methodology.md), in
    /// both languages (JSON: the English text).
    pub rule: Text,
    pub weights: Bytes,
    pub activation_peak: Bytes,
    /// Runtime memory the rule charges inside its budget (vLLM: non-torch growth; static:
    /// CUDA context + NCCL).
    pub non_torch: Bytes,
    pub cudagraph: Bytes,
    /// What the rule sizes against: vLLM util × visible; SGLang mem_fraction_static × free
    /// after init; TensorRT-LLM the free memory after loading; static the whole visible memory.
    pub budget: Bytes,
    /// Never negative: when the rest does not fit, 0 and the shortfall below.
    pub kv_pool: Bytes,
    /// How far weights + activations + runtime exceed the budget (0 when they fit).
    pub kv_shortfall: Bytes,
    pub kv_per_token: KvPerToken,
    /// Pool pages (vLLM/TensorRT-LLM blocks of `block_size` tokens; SGLang pages of 1 token;
    /// static: one slot of `max_model_len` per sequence).
    pub blocks: u64,
    pub block_tokens: u64,
    pub kv_tokens: u64,
    pub max_model_len: u64,
    /// Tokens of the profile forward pass whose activations were charged (0: none).
    pub profile_tokens: u64,
    /// vLLM's "Maximum concurrency for max_model_len tokens per request".
    pub max_concurrency_at_max_len: f64,
    /// Sequences of `input + output` tokens that fit at once.
    pub max_concurrent_requests: u64,
    /// Longest context one sequence can have at the requested batch.
    pub max_context_at_batch: u64,
    /// Whether the engine would start (vLLM refuses when max_model_len > kv_tokens).
    pub fits: bool,
    pub problem: Option<Text>,
    /// Where vLLM refuses the setup: the settings that would start it on the same GPUs
    /// ([`fit_advice`]; filled by `job::estimate_inference`, None elsewhere).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub fit_advice: Option<FitAdvice>,
}

/// What an expert changes when vLLM refuses a setup whose weights load: each field, by the same
/// estimate, the one setting that alone makes it start (None: no value of it does).
#[derive(Clone, Copy, Debug, PartialEq, Serialize)]
pub struct FitAdvice {
    /// Longest `max_model_len` (a multiple of the KV block) that starts at this
    /// `gpu_memory_utilization` and `max_num_seqs`.
    pub max_model_len: Option<u64>,
    /// Most `max_num_seqs` at which the asked `max_model_len` starts: fewer sequences shrink the
    /// profile run's sampler warm-up (min(max_num_seqs, max_num_batched_tokens) rows of logits).
    pub max_num_seqs: Option<u64>,
    /// Least `gpu_memory_utilization` (in hundredths, at most 1) at which the asked setup starts.
    pub gpu_memory_utilization: Option<f64>,
}

/// First vLLM release whose hybrid KV cache manager gives a model's sliding-window layers
/// their own block groups, holding only the window's blocks (earlier releases, and
/// `--disable-hybrid-kv-cache-manager`, allocate every token on every layer). UNVERIFIED: v0.10.0
/// is an assumption between two sourced points: v0.8.3's notes add V1's native sliding window
/// (#14097), which still "regard[s] as global-attention-only" a model with both kinds of layer,
/// and vLLM's hybrid KV cache manager design doc describes the manager "as it was in v0.10.1"
/// (vllm PR #54738). `engine_version` between them may be charged either way.
pub const VLLM_FIRST_HYBRID_KV: [u64; 3] = [0, 10, 0];

/// Whether vLLM's hybrid KV cache manager splits this model's layers into sliding and full
/// groups: a vLLM from [`VLLM_FIRST_HYBRID_KV`] (or unspecified, the current one) and a model
/// with both kinds of layer.
pub fn vllm_hybrid_kv(t: &TransformerSpec, s: &InferenceSetup) -> bool {
    let (layers, windowed) = (t.decoder_layers(), t.windowed_layers());
    let release = s.engine_version.as_deref().and_then(parse_release);
    s.engine == Engine::Vllm
        && release.is_none_or(|v| v >= VLLM_FIRST_HYBRID_KV)
        && windowed > 0
        && windowed < layers
}

/// The share of the full `kv_per_token` bytes one request of `len` tokens takes under vLLM's
/// hybrid KV cache manager, which gives sliding layers their own block groups. `reserved`: what
/// vLLM sizes and reports ("Maximum concurrency", the start-up check), vllm/v1/kv_cache_interface.py
/// @001cabc1 `SlidingWindowSpec.max_memory_usage_bytes`: a sliding layer reserves
/// `cdiv(min(sliding_window − 1 + max_num_batched_tokens, max_model_len), block_size) + 1`
/// blocks, a full layer `cdiv(max_model_len, block_size)`. Otherwise the blocks a decoding
/// request holds: its last `sliding_window` tokens + 1 block on a sliding layer
/// (`SlidingWindowManager.remove_skipped_blocks` frees the rest), every token on a full one.
/// 1 where every layer or none slides (one KV group: the pool as without windows), for SGLang,
/// TensorRT-LLM and static engines (not modelled: charged every token on every layer) and for
/// vLLM before [`VLLM_FIRST_HYBRID_KV`].
pub fn hybrid_kv_share(
    t: &TransformerSpec,
    s: &InferenceSetup,
    gpu: &GpuSpec,
    len: u64,
    reserved: bool,
) -> f64 {
    if !vllm_hybrid_kv(t, s) {
        return 1.0;
    }
    let (layers, windowed) = (t.decoder_layers(), t.windowed_layers());
    let window = t.sliding_window.unwrap_or(0);
    let held = if reserved {
        let batched = s
            .max_num_batched_tokens
            .unwrap_or_else(|| vllm_default_batched_tokens(gpu));
        window.saturating_sub(1).saturating_add(batched)
    } else {
        window
    };
    let bs = s.block_size.max(1);
    let len = len.max(1);
    let full_blocks = len.div_ceil(bs);
    let window_blocks = if reserved {
        held.min(len).div_ceil(bs) + 1
    } else if len <= window {
        // A request no longer than the window holds all its tokens, as on a full layer.
        full_blocks
    } else {
        // The window's last tokens straddle one more block than they fill.
        window.saturating_sub(1).div_ceil(bs) + 1
    };
    let full = (layers - windowed) * full_blocks;
    (full + windowed * window_blocks) as f64 / (layers * full_blocks) as f64
}

/// vLLM V1's default `max_num_batched_tokens` for `vllm serve` (EngineArgs.get_batch_defaults,
/// vllm/engine/arg_utils.py): 8192 on GPUs of 70 GiB or more that are not A100s, else 2048.
pub fn vllm_default_batched_tokens(gpu: &GpuSpec) -> u64 {
    let big = gpu.memory().is_some_and(|m| m.gib() >= 70.0);
    if big && !gpu.id.to_lowercase().contains("a100") {
        8192
    } else {
        2048
    }
}

/// SGLang's default `mem_fraction_static` by TP degree (ServerArgs.__post_init__,
/// python/sglang/srt/server_args.py, v0.4 series).
pub fn sglang_default_mem_fraction(tp: u64) -> f64 {
    match tp {
        t if t >= 16 => 0.79,
        t if t >= 8 => 0.81,
        t if t >= 4 => 0.85,
        t if t >= 2 => 0.87,
        _ => 0.88,
    }
}

/// TensorRT-LLM's default `max_num_tokens` (the activation buffers of an engine are sized at
/// build time for it) and `KvCacheConfig.free_gpu_memory_fraction`.
pub const TRTLLM_DEFAULT_MAX_NUM_TOKENS: u64 = 8192;
pub const TRTLLM_DEFAULT_FREE_FRACTION: f64 = 0.9;

/// Parameters of the attention projections (q/k/v/o, MLA's q_a/q_b/kv_a/kv_b, cross-attention).
fn attention_linear_params(m: &ModelSpec) -> u64 {
    let attn = |n: &str| {
        n.ends_with("q_proj")
            || n.ends_with("k_proj")
            || n.ends_with("v_proj")
            || n.ends_with("o_proj")
            || n.starts_with("q_a_proj")
            || n.starts_with("q_b_proj")
            || n.starts_with("kv_a_proj")
            || n.starts_with("kv_b_proj")
    };
    param_breakdown(m)
        .groups
        .iter()
        .map(|g| {
            g.count
                * g.linears
                    .iter()
                    .filter(|l| attn(l.name))
                    .map(|l| l.params())
                    .sum::<u64>()
        })
        .sum()
}

/// Weight bytes on one TP rank for the setup: its format, with the attention projections
/// (`keep_16bit_attention`) and `keep_16bit_layers` decoder layers at 16 bits (their share of the
/// remaining layer linears, layers taken as equal in size). Meta's Llama-3.1-405B FP8 recipe
/// keeps attention and the first and last layers in bf16 (Llama 3 paper, arXiv 2407.21783 §6.2).
pub fn setup_weight_bytes(m: &ModelSpec, s: &InferenceSetup) -> Bytes {
    let full = weight_bytes(m, s.weights, s.tp);
    let kept = s.keep_16bit_layers[0].saturating_add(s.keep_16bit_layers[1]);
    let Some(t) = m.transformer() else {
        return full;
    };
    if (kept == 0 && !s.keep_16bit_attention) || s.weights.bits() >= 16.0 || t.decoder_layers() == 0
    {
        return full;
    }
    let linears = quantized_params(&param_breakdown(m), s.weights) as f64;
    // MXFP4 keeps attention 16-bit already.
    let attn = if s.keep_16bit_attention && !s.weights.routed_experts_only() {
        attention_linear_params(m) as f64
    } else {
        0.0
    };
    let share = kept.min(t.decoder_layers()) as f64 / t.decoder_layers() as f64;
    let at16 = (attn + share * (linears - attn)) / s.tp as f64;
    full + Bytes(at16 * (16.0 - s.weights.bits()) / 8.0)
}

/// vLLM's Marlin MXFP4 MoE kernel needs, per expert linear, `n % 256 == 0` and `k % 128 == 0`:
/// `Mxfp4MoEMethod.create_weights` (vllm/model_executor/layers/quantization/mxfp4.py, read at
/// vllm-project/vllm@007d5005, the `Mxfp4Backend.MARLIN` branch) allocates the experts with
/// `hidden_size = round_up(hidden_size, 256)` and
/// `intermediate_size_per_partition_after_pad = round_up(intermediate_size_per_partition, 128)`,
/// zero-filled, before loading; the padded tensors stay resident (`prepare_moe_fp4_layer_for_marlin`
/// repacks them at the same size).
pub const VLLM_MARLIN_MXFP4_HIDDEN_ALIGN: u64 = 256;
/// See [`VLLM_MARLIN_MXFP4_HIDDEN_ALIGN`]: the per-partition expert FFN width's multiple.
pub const VLLM_MARLIN_MXFP4_FFN_ALIGN: u64 = 128;
/// First compute capability with native FP4 (Blackwell, sm100). Below it vLLM serves MXFP4 by
/// Marlin's weight-only FP4 path: "Your GPU does not have native support for FP4 computation but
/// FP4 quantization is being used. Weight-only FP4 compression will be used leveraging the Marlin
/// kernel." (marlin_utils_fp4.py, logged on an H100 under v0.10.1, vllm-project/vllm#23278).
pub const NATIVE_FP4_MIN_CC: u32 = 100;
/// First compute capability of vLLM's Triton MXFP4 MoE backend (OpenAI's `triton_kernels`
/// `matmul_ogs`): `get_mxfp4_backend` (mxfp4.py @007d5005) picks it when `triton_kernels` imports,
/// torch ≥ 2.8 and `(9, 0) <= capability < (11, 0)`, unless `VLLM_MXFP4_USE_MARLIN` is set
/// (not modelled); below 9.0 it is always Marlin.
pub const TRITON_MXFP4_MIN_CC: u32 = 90;
/// First vLLM release that installs `triton_kernels` with vLLM, so that Hopper gets the Triton
/// backend out of the box: vllm-project/vllm#27370 ("[Misc] Add triton_kernels dependency",
/// merged 2025-10-22, pinned to triton v3.5.0: "On hopper, both commands defaults to using the
/// Triton implementation for Mxfp4"), after v0.11.0 (2025-10-02). UNVERIFIED between two logged
/// points: v0.10.1 loads by Marlin on an H100 (vllm#23278, its Marlin warning) and v0.14.1 by
/// Triton ("[mxfp4.py:165] Using Triton backend", vllm#33155). Before it the Triton branch existed
/// but needed a hand-installed `triton_kernels` (vllm#26582, v0.11.0).
pub const VLLM_FIRST_TRITON_MXFP4: [u64; 3] = [0, 11, 1];
/// The Triton backend's per-partition expert FFN multiple (`create_weights`' last branch,
/// `round_up(intermediate_size_per_partition, 64)`, mxfp4.py @007d5005); hidden is not padded.
pub const VLLM_TRITON_MXFP4_FFN_ALIGN: u64 = 64;
/// triton_kernels' Hopper value swizzle (`HopperMXValueLayout.swizzle_data`, mma_version 3,
/// tensor_details/layout_details/hopper_value.py, the `mx_axis` version, read in the code index;
/// vLLM pins the triton v3.5.0 tag, whose copy was not compared) pads each expert weight's output
/// rows to 16 (warp tile 2 × threads 4 × Scott's trick 2) and its packed input bytes to 32
/// (k tile 4 × warp tile 2 × threads 4), i.e. 64 FP4 values.
pub const TRITON_HOPPER_VALUE_ROW_ALIGN: u64 = 16;
/// See [`TRITON_HOPPER_VALUE_ROW_ALIGN`]: the input width's multiple in FP4 values.
pub const TRITON_HOPPER_VALUE_K_ALIGN: u64 = 64;
/// triton_kernels' Hopper scale swizzle (`HopperMXScaleLayout.swizzle_data`, hopper_scale.py):
/// `SWIZZLE_ALIGN_M = 2 * num_warps * 2 * 8` rows with vLLM's `num_warps = 8` (mxfp4.py @007d5005
/// `process_weights_after_loading`, TRITON branch, non-batched MoE), and the scale columns to 2.
pub const TRITON_HOPPER_SCALE_ROW_ALIGN: u64 = 256;
/// See [`TRITON_HOPPER_SCALE_ROW_ALIGN`]: `SWIZZLE_ALIGN_K`.
pub const TRITON_HOPPER_SCALE_COL_ALIGN: u64 = 2;
/// Elements per MXFP4 scale (OCP MX v1.0 block).
pub const MXFP4_BLOCK: u64 = 32;

/// vLLM's MXFP4 MoE backend for the routed experts (`Mxfp4Backend`, mxfp4.py @007d5005).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum VllmMxfp4Backend {
    /// Marlin's weight-only FP4 kernel: every CUDA chip below 9.0, and Hopper before
    /// [`VLLM_FIRST_TRITON_MXFP4`].
    Marlin,
    /// OpenAI's triton_kernels `matmul_ogs`: Hopper from [`VLLM_FIRST_TRITON_MXFP4`].
    Triton,
    /// Blackwell's FlashInfer paths (native FP4). Their layouts (`SM100_FI_MXFP4_BF16` pads both
    /// widths to 256) are not modelled: charged as stored.
    Native,
}

/// Which backend vLLM serves this setup's MXFP4 experts with on `gpu` (None: not vLLM, not
/// MXFP4, or a chip without a compute capability).
pub fn vllm_mxfp4_backend(s: &InferenceSetup, gpu: &GpuSpec) -> Option<VllmMxfp4Backend> {
    if s.engine != Engine::Vllm || s.weights != WeightFormat::Mxfp4 {
        return None;
    }
    let cc = gpu.compute_capability?;
    let release = s.engine_version.as_deref().and_then(parse_release);
    let triton_shipped = release.is_none_or(|v| v >= VLLM_FIRST_TRITON_MXFP4);
    Some(match cc {
        cc if cc >= NATIVE_FP4_MIN_CC => VllmMxfp4Backend::Native,
        cc if cc >= TRITON_MXFP4_MIN_CC && triton_shipped => VllmMxfp4Backend::Triton,
        _ => VllmMxfp4Backend::Marlin,
    })
}

/// Bytes one rank's routed MXFP4 experts take beyond their stored size under vLLM's backend:
/// `resident` what stays allocated after loading, `read` what the MoE kernel streams more than
/// the stored experts when it reads all of them.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct Mxfp4Extra {
    pub resident: Bytes,
    pub read: Bytes,
}

/// Bytes of one expert (gate‖up `2f × h` and down `h × f`, `f` per partition) under a backend,
/// as (resident, read).
fn expert_bytes(backend: VllmMxfp4Backend, h: u64, f: u64, bits: f64) -> (f64, f64) {
    let stored = 3.0 * (h * f) as f64 * bits / 8.0;
    match backend {
        VllmMxfp4Backend::Native => (stored, stored),
        VllmMxfp4Backend::Marlin => {
            let hp = h.next_multiple_of(VLLM_MARLIN_MXFP4_HIDDEN_ALIGN);
            let fp = f.next_multiple_of(VLLM_MARLIN_MXFP4_FFN_ALIGN);
            let padded = stored * (hp * fp) as f64 / (h * f) as f64;
            (padded, padded)
        }
        VllmMxfp4Backend::Triton => triton_expert_bytes(h, f),
    }
}

/// The Triton backend's expert (mxfp4.py @007d5005 `process_weights_after_loading`, TRITON):
/// `_swizzle_mxfp4` makes swizzled copies of the weights and the scales; the old weights are
/// deleted (`del layer.w13_weight`) but the unswizzled scales stay registered on the layer
/// (`w13_weight_scale`, `w2_weight_scale`), so the scales are resident twice. The kernel reads
/// the swizzled weights and scales.
fn triton_expert_bytes(h: u64, f: u64) -> (f64, f64) {
    let f = f.next_multiple_of(VLLM_TRITON_MXFP4_FFN_ALIGN);
    let rows = |n: u64| n.next_multiple_of(TRITON_HOPPER_VALUE_ROW_ALIGN);
    let cols = |k: u64| k.next_multiple_of(TRITON_HOPPER_VALUE_K_ALIGN);
    let values = (2 * f * cols(h) + rows(h) * cols(f)) as f64 / 2.0;
    let blocks = |k: u64| k.div_ceil(MXFP4_BLOCK);
    let scales = (2 * f * blocks(h) + h * blocks(f)) as f64;
    let srows = |n: u64| n.next_multiple_of(TRITON_HOPPER_SCALE_ROW_ALIGN);
    let scols = |k: u64| blocks(k).next_multiple_of(TRITON_HOPPER_SCALE_COL_ALIGN);
    let swizzled = (srows(2 * f) * scols(h) + srows(h) * scols(f)) as f64;
    (values + scales + swizzled, values + swizzled)
}

/// Bytes vLLM's MXFP4 backend adds to one rank's routed experts ([`vllm_mxfp4_backend`]; zero
/// unless vLLM serves an MXFP4 checkpoint). Marlin: the stored bytes times
/// `round_up(h, 256)·round_up(f/etp, 128) / (h·f/etp)`, resident and read (gpt-oss-120b:
/// 3072·2944 / 2880² = 1.0904, +5.13 GiB on 56.73 GiB of experts; v0.10.1 logs 65.97 GiB,
/// vllm#23278). Triton on Hopper ([`triton_expert_bytes`]): gpt-oss-120b's widths need no
/// value padding; the swizzled scales (rows to 256: 5760 → 5888, 2880 → 3072) add 3.46 GiB
/// resident beside the kept originals, 0.12 GiB read (v0.14.1 logs 64.38 GiB, vllm#33155).
pub fn vllm_mxfp4_extra(m: &ModelSpec, s: &InferenceSetup, gpu: &GpuSpec) -> Mxfp4Extra {
    let Some(backend) = vllm_mxfp4_backend(s, gpu) else {
        return Mxfp4Extra::default();
    };
    let Some((h, moe)) = m
        .transformer()
        .and_then(|t| t.moe.map(|moe| (t.hidden, moe)))
    else {
        return Mxfp4Extra::default();
    };
    let f = moe.expert_ffn / WeightSplit::serving(s.tp).etp.max(1);
    if h == 0 || f == 0 {
        return Mxfp4Extra::default();
    }
    let bits = s.weights.bits();
    let experts = param_breakdown(m).expert_params() as f64 / s.tp.max(1) as f64;
    let stored_one = 3.0 * (h * f) as f64 * bits / 8.0;
    let count = experts * bits / 8.0 / stored_one;
    let (resident, read) = expert_bytes(backend, h, f, bits);
    Mxfp4Extra {
        resident: Bytes(count * (resident - stored_one)),
        read: Bytes(count * (read - stored_one)),
    }
}

/// The resident part of [`vllm_mxfp4_extra`]: what vLLM's "Model loading took" adds to the
/// checkpoint's bytes on one rank.
pub fn vllm_mxfp4_padding(m: &ModelSpec, s: &InferenceSetup, gpu: &GpuSpec) -> Bytes {
    vllm_mxfp4_extra(m, s, gpu).resident
}

/// The pieces one engine rule charges (see [`serving_memory`]).
struct Charged {
    rule: Text,
    budget: Bytes,
    act: Bytes,
    non_torch: Bytes,
    cudagraph: Bytes,
    profile_tokens: u64,
    /// Bytes left for the KV cache (may be negative).
    kv: f64,
}

fn engine_charge(
    t: &TransformerSpec,
    s: &InferenceSetup,
    gpu: &GpuSpec,
    tun: &Tunables,
    visible: Bytes,
    weights: Bytes,
    static_kv: f64,
) -> Charged {
    let nccl = if s.tp > 1 { tun.nccl_buffers_gib } else { 0.0 };
    let context = Bytes::from_gib(tun.cuda_context_gib + nccl);
    match s.engine {
        Engine::Vllm => {
            let tokens = s
                .max_num_batched_tokens
                .unwrap_or_else(|| vllm_default_batched_tokens(gpu));
            let seqs = s
                .max_num_seqs
                .unwrap_or_else(|| engine_max_num_seqs(s.engine, gpu));
            // The profile run's torch peak: its forward pass, or the sampler warm-up after it.
            let act = Bytes(
                activation_peak(t, tokens, s.tp)
                    .0
                    .max(vllm_sampler_peak(t, tokens, seqs).0),
            );
            let nccl = vllm_nccl_gib(s, gpu, tun);
            let non_torch = Bytes::from_gib(vllm_non_torch_gib(s, tun) + nccl);
            let cudagraph = Bytes::from_gib(tun.vllm_cudagraph_gib);
            let budget = visible * s.gpu_memory_utilization;
            Charged {
                rule: Msg::new("serve-rule-vllm")
                    .arg("util", s.gpu_memory_utilization.to_string())
                    .arg("tokens", tokens)
                    .arg("release", s.vllm_profiler().key())
                    .into(),
                kv: (budget - weights - act - non_torch - cudagraph).0,
                budget,
                act,
                non_torch,
                cudagraph,
                profile_tokens: tokens,
            }
        }
        Engine::Sglang => {
            let f = s
                .mem_fraction_static
                .unwrap_or_else(|| sglang_default_mem_fraction(s.tp));
            let budget = (visible - context) * f;
            Charged {
                rule: Msg::new("serve-rule-sglang").arg("f", f.to_string()).into(),
                kv: (budget - weights).0,
                budget,
                act: Bytes(0.0),
                non_torch: Bytes(0.0),
                cudagraph: Bytes(0.0),
                profile_tokens: 0,
            }
        }
        Engine::Trtllm => {
            let tokens = s
                .max_num_batched_tokens
                .unwrap_or(TRTLLM_DEFAULT_MAX_NUM_TOKENS);
            let f = s
                .free_gpu_memory_fraction
                .unwrap_or(TRTLLM_DEFAULT_FREE_FRACTION);
            let act = activation_peak(t, tokens, s.tp);
            let free = visible - context - weights - act;
            Charged {
                rule: Msg::new("serve-rule-trtllm")
                    .arg("f", f.to_string())
                    .arg("tokens", tokens)
                    .into(),
                kv: free.0 * f,
                budget: visible - context,
                act,
                non_torch: Bytes(0.0),
                cudagraph: Bytes(0.0),
                profile_tokens: tokens,
            }
        }
        Engine::Static => {
            let tokens = s.batch.saturating_mul(s.input_tokens);
            let act = activation_peak(t, tokens, s.tp);
            let want = static_kv;
            let spare = (visible - weights - act - context).0;
            Charged {
                rule: Msg::new("serve-rule-static").arg("batch", s.batch).into(),
                // The cache is exactly what was asked for; the shortfall is what does not fit.
                kv: if spare >= want { want } else { spare - want },
                budget: visible,
                act,
                non_torch: context,
                cudagraph: Bytes(0.0),
                profile_tokens: tokens,
            }
        }
    }
}

/// Size the KV pool the way the setup's engine does (see module docs and
/// docs/methodology.md §Serving engines).
/// Whether `engine` runs on `gpu`'s software stack: TensorRT-LLM builds CUDA engines for NVIDIA
/// GPUs only ("TensorRT-LLM … on NVIDIA GPUs", NVIDIA/TensorRT-LLM README; no ROCm or CANN
/// backend); vLLM, SGLang and static batching have CUDA, ROCm and Ascend (CANN) backends. On
/// CUDA, vLLM and SGLang start only from [`engine_min_cc`] (audit r19 #4).
pub fn engine_runs_on(engine: Engine, gpu: &GpuSpec) -> bool {
    (engine != Engine::Trtllm || gpu.stack == "cuda") && engine_cc_runs(engine, gpu)
}

/// A compute capability as users write it: 75 → "7.5" (the catalog stores major × 10 + minor).
pub fn cc_text(cc: u32) -> String {
    format!("{}.{}", cc / 10, cc % 10)
}

/// Lowest CUDA compute capability `engine` starts on, where a source states one: vLLM "GPU:
/// compute capability 7.0 or higher (e.g., V100, T4, RTX20xx, A100, L4, H100, etc.)" (its
/// installation requirements, docs.vllm.ai v0.3.3 through v0.14.0; CMakeLists.txt
/// `CUDA_SUPPORTED_ARCHS` starts at 7.0); SGLang below 8.0 switches to float16 and then raises
/// "SGLang only supports sm75 and above." when the minor capability is below 5
/// (python/sglang/srt/model_executor/model_runner.py `load_model`, the same check since the
/// v0.2 series; its quickstart: "sm75 and above"). `None`: no floor stated (TensorRT-LLM's
/// int4 and FP8 floors are per format, the static engine is plain PyTorch). TensorRT-LLM's
/// architecture lists (audit r20 #3, docs/notes/notes-audit-r20.md): README.md v0.5.0 "is
/// expected to work on GPUs based on the Volta, Turing, Ampere, Hopper and Ada Lovelace
/// architectures", Pascal in no list; docs/source/reference/support-matrix.md @03dad6287acb
/// (TensorRT 10.9 era) lists Ampere and later, an unlisted architecture having "community
/// support" only. Neither is a refusal by the engine; Pascal is not refused here yet.
pub fn engine_min_cc(engine: Engine) -> Option<u32> {
    match engine {
        Engine::Vllm => Some(70),
        Engine::Sglang => Some(75),
        Engine::Trtllm | Engine::Static => None,
    }
}

/// TensorRT-LLM on a CUDA chip below Volta (Pascal): in no architecture list NVIDIA publishes
/// (README.md v0.5.0: "expected to work on GPUs based on the Volta, Turing, Ampere, Hopper and Ada
/// Lovelace architectures"; docs/source/reference/support-matrix.md @03dad6287acb: Ampere and
/// later), and refused by no source either ([`engine_min_cc`]): said, not refused (audit r21 #2).
pub fn engine_unlisted_note(engine: Engine, gpu: &GpuSpec) -> Option<crate::i18n::Msg> {
    let cc = gpu.compute_capability.filter(|cc| *cc < 70)?;
    (engine == Engine::Trtllm && gpu.stack == "cuda").then(|| {
        crate::i18n::Msg::new("cav-serve-trtllm-unlisted")
            .arg("gpu", gpu.id.as_str())
            .arg("cc", cc_text(cc))
    })
}

/// Whether `gpu` meets [`engine_min_cc`] (a chip off CUDA, or of unstated capability, does).
fn engine_cc_runs(engine: Engine, gpu: &GpuSpec) -> bool {
    let below = |cc: u32| engine_min_cc(engine).is_some_and(|min| cc < min);
    gpu.stack != "cuda" || !gpu.compute_capability.is_some_and(below)
}

/// The static engine's KV cache length is a multiple of 8 (gpt-fast model.py @24428d7
/// `setup_caches`: `max_seq_length = find_multiple(max_seq_length, 8)`), not of vLLM's 16-token
/// block (audit r12 #11: 1000 + 300 tokens read "rounded up to whole 1312-token blocks").
pub const STATIC_SEQ_MULTIPLE: u64 = 8;

/// Whether `engine` loads FP8 weights on `gpu`: where the chip computes in FP8, and with vLLM or
/// SGLang on CUDA GPUs of compute capability 8.0 and above as weight-only W8A16 ("FP8 models will
/// run on compute capability > 8.0 (Ampere) as weight-only W8A16, utilizing FP8 Marlin",
/// docs.vllm.ai v0.5.5 quantization/fp8; a CUDA part of unstated capability counts when it has
/// bf16, as Ampere on). TensorRT-LLM lists FP8 for Ada and Hopper only (its support matrix,
/// 0.18.2: "Ampere (SM80, SM86) - FP32, FP16, BF16, INT8, INT4"); the static engine (gpt-fast)
/// has no Marlin path. Not on Ascend 910B: SGLang's Ascend quantization table marks FP8 (MXFP8)
/// "x" on A2 and A3, Ascend 950 only; vllm-ascend's ModelSlim schemes are int8/int4 (audit r12
/// #7).
pub fn fp8_weights_run_on(engine: Engine, gpu: &GpuSpec) -> bool {
    use crate::hardware::ComputeDtype;
    let marlin = matches!(engine, Engine::Vllm | Engine::Sglang)
        && gpu.stack == "cuda"
        && gpu
            .compute_capability
            .map_or(gpu.supports(ComputeDtype::Bf16), |c| c >= 80);
    gpu.supports(ComputeDtype::Fp8) || marlin
}

/// The engine starts on `gpu`: its compute-capability floor ([`engine_min_cc`]) and its stack
/// ([`engine_runs_on`]), each refused naming `engine`. The CLI calls it before any note on how
/// the engine would run there (audit r20 #1: SGLang on a V100 printed vLLM's `--dtype half` note
/// before the refusal).
pub fn check_engine_runs(engine: Engine, gpu: &GpuSpec) -> Result<(), CoreError> {
    use crate::i18n::Msg;
    if !engine_cc_runs(engine, gpu) {
        let cc = gpu.compute_capability.unwrap_or(0);
        let min = engine_min_cc(engine).unwrap_or(0);
        let fix = Msg::new("fix-engine-min-cc")
            .arg("engine", engine.name())
            .arg("gpu", gpu.id.as_str())
            .arg("cc", cc_text(cc))
            .arg("min", cc_text(min));
        return Err(CoreError::invalid_msg("engine", engine.name(), fix));
    }
    if !engine_runs_on(engine, gpu) {
        let fix = Msg::new("fix-engine-nvidia-only").arg("gpu", gpu.id.as_str());
        return Err(CoreError::invalid_msg("engine", engine.name(), fix));
    }
    Ok(())
}

/// The engine and weight format run on `gpu` ([`engine_runs_on`], [`format_runs`]; FP8 with its
/// own message, [`fp8_weights_run_on`]).
fn check_runs_on(s: &InferenceSetup, gpu: &GpuSpec) -> Result<(), CoreError> {
    use crate::i18n::Msg;
    check_engine_runs(s.engine, gpu)?;
    if s.weights == WeightFormat::Fp8 && !fp8_weights_run_on(s.engine, gpu) {
        let fix = Msg::new("fix-fp8-weights-chip")
            .arg("gpu", gpu.id.as_str())
            .arg("engine", s.engine.name());
        return Err(CoreError::invalid_msg("weights", "fp8", fix));
    }
    if matches!(s.weights, WeightFormat::Int4 { .. }) && !int4_runs(s.engine, gpu) {
        return Err(int4_chip_refused(s, gpu));
    }
    if !format_runs(s.engine, s.weights, gpu) {
        let fix = Msg::new("fix-weights-format-runs")
            .arg("engine", s.engine.name())
            .arg("gpu", gpu.id.as_str());
        return Err(CoreError::invalid_msg("weights", s.weights.name(), fix));
    }
    Ok(())
}

/// A format that quantizes the routed experts only (MXFP4, [`WeightFormat::routed_experts_only`])
/// needs a model with routed experts: on a dense model it would size every weight 16-bit under
/// an MXFP4 title (review r12 #2).
pub fn check_format_on_model(
    m: &ModelSpec,
    format: WeightFormat,
    engine: Engine,
) -> Result<(), CoreError> {
    if format.routed_experts_only() && param_breakdown(m).expert_params() == 0 {
        let fix = crate::i18n::Msg::new("fix-weights-experts-only").arg("model", m.name.as_str());
        return Err(CoreError::invalid_msg("weights", format.name(), fix));
    }
    check_int4_group(m, format, 1, engine)
}

/// One quantized linear's input as the loader sees it: its width, whether tensor parallelism
/// splits it (row-parallel), and whether it runs the Marlin dense kernel (every linear but a
/// routed expert, which takes the fused-MoE path).
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
struct LinearInput {
    width: u64,
    split: bool,
    marlin: bool,
}

impl LinearInput {
    fn dense(width: u64, split: bool) -> Self {
        Self {
            width,
            split,
            marlin: true,
        }
    }

    /// The input one of `tp` ranks reads, or `None` when `tp` does not divide a split width.
    fn per_rank(self, tp: u64) -> Option<u64> {
        let tp = if self.split { tp.max(1) } else { 1 };
        self.width.is_multiple_of(tp).then(|| self.width / tp)
    }
}

/// The inputs of the decoder's quantized linears. Column-parallel linears read their whole
/// input on every rank: q/k/v, gate/up and the router read `hidden`; MLA's q_b_proj and
/// kv_b_proj read their LoRA ranks. Row-parallel linears read a 1/TP slice
/// (vllm/model_executor/layers/linear.py `RowParallelLinear`: `input_size_per_partition =
/// divide(input_size, tp_size)`): o_proj reads the heads' concatenated values, down_proj the
/// dense FFN width, and the shared experts' down_proj their summed width as the config states
/// it ([`MoeSpec::shared_width`]; vLLM's deepseek_v2.py / qwen2_moe.py build the shared experts
/// as one MLP with a `RowParallelLinear` down_proj). A routed expert's down_proj reads
/// `expert_ffn` and is listed whole and outside the Marlin dense rule: vLLM's fused-MoE path
/// falls back to moe_wna16.py, which halves a group that does not divide the per-rank width
/// (down to 32) rather than refusing. Embeddings and the LM head stay 16-bit
/// ([`WeightFormat::keeps_embeddings_16bit`]); a vision tower is not listed (AWQ/GPTQ releases
/// of vision-language models keep it 16-bit or are refused by `hf.rs`).
fn linear_inputs(t: &TransformerSpec) -> Vec<LinearInput> {
    let d = LinearInput::dense;
    let mut w = vec![d(t.hidden, false)];
    match &t.attention {
        AttentionKind::Mla(mla) => {
            w.push(d(t.heads * mla.v_head_dim, true));
            w.push(d(mla.kv_lora_rank, false));
            w.extend(mla.q_lora_rank.map(|r| d(r, false)));
        }
        _ => w.push(d(t.heads * t.head_dim, true)),
    }
    match &t.moe {
        Some(moe) => {
            w.push(LinearInput {
                width: moe.expert_ffn,
                split: false,
                marlin: false,
            });
            w.push(d(moe.shared_width(), true));
            if moe.dense_layers > 0 {
                w.push(d(t.ffn, true));
            }
        }
        None => w.push(d(t.ffn, true)),
    }
    w.retain(|x| x.width > 0);
    w.sort_unstable();
    w.dedup();
    w
}

/// vLLM's Marlin int4 kernels' smallest k tile: `GPTQ_MARLIN_MIN_THREAD_K = 128`
/// (vllm/model_executor/layers/quantization/utils/marlin_utils.py, v0.6.x through current).
/// `verify_marlin_supports_shape` raises for any `input_size_per_partition % 128 != 0` whatever
/// the group, per-channel included: "Weight input_size_per_partition = 14784 is not divisible
/// by min_thread_k = 128. Consider reducing tensor_parallel_size or running with --quantization
/// gptq." (Qwen2.5-VL-72B-Instruct-AWQ at TP 2; vllm-project/vllm#9913, v0.6.3.post1, 10944 on
/// DeepSeek-Coder-V2-Lite at TP 1).
const MARLIN_MIN_THREAD_K: u64 = 128;

/// Whether one rank's input passes the loader at `tp`: the group divides it (not checked for a
/// per-channel checkpoint, Marlin's `group_size < input_size`), and a Marlin linear's slice is a
/// multiple of [`MARLIN_MIN_THREAD_K`].
fn int4_input_fits(x: LinearInput, group: u64, per_channel: bool, tp: u64) -> bool {
    x.per_rank(tp).is_some_and(|per| {
        (per_channel || per.is_multiple_of(group))
            && (!x.marlin || per.is_multiple_of(MARLIN_MIN_THREAD_K))
    })
}

/// The group part of [`int4_input_fits`] alone, for every input.
fn int4_groups_fit(inputs: &[LinearInput], group: u64, tp: u64) -> bool {
    inputs
        .iter()
        .all(|x| x.per_rank(tp).is_some_and(|per| per.is_multiple_of(group)))
}

/// Whether every input passes the loader at `tp` under `group` ([`int4_input_fits`]).
fn int4_all_fit(inputs: &[LinearInput], group: u64, per_channel: bool, tp: u64) -> bool {
    inputs
        .iter()
        .all(|x| int4_input_fits(*x, group, per_channel, tp))
}

/// Groups tried around a refused one when naming the valid groups near it.
const INT4_GROUPS_LISTED: [u64; 5] = [32, 64, 128, 256, 512];

/// An int4 group must divide the input each rank's slice of every quantized linear reads:
/// vLLM's GPTQ and AWQ loaders refuse a layer whose `input_size_per_partition % group_size != 0`
/// ("The input size is not aligned with the quantized weight shape. This can be caused by too
/// large tensor parallel size.", vllm/model_executor/layers/quantization/gptq.py and awq.py
/// `create_weights`), and the Marlin kernels alike (utils/marlin_utils.py
/// `verify_marlin_supports_shape`: `group_size < input_size and input_size_per_partition %
/// group_size != 0` raises "Consider reducing tensor_parallel_size"). So `int4-g7` on
/// Qwen2.5-7B (down_proj reads 18944) names a checkpoint no engine loads (audit r15), and
/// Qwen2.5-72B's down_proj (29568 inputs) at group 128 loads at TP 1 only: 29568 / 2 = 14784 is
/// not a multiple of 128 (vllm-project/vllm issue #21695 and #13640; Qwen's 72B AWQ/GPTQ
/// releases pad the width to 29696 for this, QwenLM/Qwen3-VL issue #230) (audit r16 #1). The
/// group equal to `hidden` is the label of a per-channel checkpoint (`group_size` -1: one scale
/// per output row over its whole input, model/quant.rs `int_format`; Marlin's
/// `group_size < input_size` exempts it from the group rule). Whatever the group, Marlin also
/// needs every rank's slice to be a multiple of [`MARLIN_MIN_THREAD_K`] (review r16 #2): vLLM
/// 0.6.x refuses to load such a layer; later releases log "Layer '...' is not supported by
/// AWQMarlin. Falling back to unoptimized AWQ kernels." (awq_marlin.py `get_quant_method`,
/// `check_marlin_supports_layer`) and run it on a kernel whose speed this estimate does not
/// model (its int4 decode is Marlin's), so both are refused. A group that fails at TP 1 names
/// `weights`; one that fails only at `tp` names `tp`.
///
/// Per engine (audit r17 #2): the group rule binds every engine, since a group split over two
/// ranks has no scale on either. vLLM's and SGLang's loaders are quoted above (SGLang runs the
/// same AWQ-Marlin check: "Weight input_size_per_partition = 14784 is not divisible by
/// min_thread_k = 128", sgl-project/sglang#3571); TensorRT-LLM's `quantize.py --qformat
/// int4_awq --tp_size N` fails on the same split (NVIDIA/TensorRT-LLM#1636, Llama-2-7B's 11008
/// at TP 4, labelled "not a bug"; #2445, Qwen2-72B at TP 4 with block size 128 or 64), and the
/// static reference engine stands for no loader of its own. Marlin's k tile is vLLM's and
/// SGLang's kernel alone ([`engine_runs_marlin`]); TensorRT-LLM's int4 GEMMs are its own.
pub fn check_int4_group(
    m: &ModelSpec,
    format: WeightFormat,
    tp: u64,
    engine: Engine,
) -> Result<(), CoreError> {
    let (WeightFormat::Int4 { group }, Some(t)) = (format, m.transformer()) else {
        return Ok(());
    };
    // A group out of range is the format's own error (`WeightFormat::validate` names `group`).
    if !(1..=crate::workload::MAX_QUANT_GROUP).contains(&group) {
        return Ok(());
    }
    let per_channel = group == t.hidden;
    if engine == Engine::Trtllm && !per_channel && !TRTLLM_INT4_GROUPS.contains(&group) {
        let fix = Msg::new("fix-weights-int4-trtllm-group").arg("hidden", t.hidden.to_string());
        return Err(CoreError::invalid_msg("weights", format.name(), fix));
    }
    let mut inputs = linear_inputs(t);
    if !engine_runs_marlin(engine) {
        inputs.iter_mut().for_each(|x| x.marlin = false);
    }
    if !per_channel && !int4_groups_fit(&inputs, group, 1) {
        return Err(int4_group_refused(m, t, &inputs, group, engine));
    }
    if int4_all_fit(&inputs, group, per_channel, tp) {
        return Ok(());
    }
    let field_tp = tp > 1 && int4_all_fit(&inputs, group, per_channel, 1);
    Err(int4_group_tp_refused(
        m,
        t,
        &inputs,
        (group, tp, engine),
        field_tp,
    ))
}

/// The groups TensorRT-LLM's fine-grained int4 GEMMs take: "Only group size 64 and 128 supported
/// for fine grained kernels." (NVIDIA/TensorRT-LLM
/// cpp/tensorrt_llm/kernels/cutlass_kernels/fpA_intB_gemm/fpA_intB_gemm_template.h, the
/// `isFinegrained(QuantOp)` branch of the runner's dispatch). Per-channel int4 is not
/// fine-grained (`PER_COLUMN_SCALE_ONLY`) and stays allowed.
pub const TRTLLM_INT4_GROUPS: [u64; 2] = [64, 128];

/// Whether `engine` runs a dense int4 linear on vLLM's Marlin kernels (and so needs
/// [`MARLIN_MIN_THREAD_K`]): vLLM and SGLang, which imports vLLM's AWQ/GPTQ-Marlin methods.
fn engine_runs_marlin(engine: Engine) -> bool {
    matches!(engine, Engine::Vllm | Engine::Sglang)
}

/// The refusal of a group that does not divide some linear's whole input.
fn int4_group_refused(
    m: &ModelSpec,
    t: &TransformerSpec,
    inputs: &[LinearInput],
    group: u64,
    engine: Engine,
) -> CoreError {
    let bad = inputs
        .iter()
        .find(|x| !x.width.is_multiple_of(group))
        .map(|x| x.width);
    let valid: Vec<String> = INT4_GROUPS_LISTED
        .iter()
        .filter(|g| int4_all_fit(inputs, **g, false, 1))
        .map(|g| format!("int4-g{g}"))
        .chain(int4_all_fit(inputs, t.hidden, true, 1).then(|| format!("int4-g{}", t.hidden)))
        .collect();
    let fix = Msg::new("fix-weights-int4-group")
        .arg("engine", engine.name())
        .arg("model", m.name.as_str())
        .arg("width", bad.unwrap_or(t.hidden).to_string())
        .arg("group", group.to_string())
        .arg("hidden", t.hidden.to_string())
        .arg("valid", valid.join(", "));
    CoreError::invalid_msg("weights", WeightFormat::Int4 { group }.name(), fix)
}

/// The refusal of a setup some rank's slice of which the loader refuses at `tp` (the group or
/// Marlin's k tile): names `tp` when TP 1 loads it (else `weights`), the slice, the sizes that
/// load and the groups (per-channel included) that load at `tp`.
fn int4_group_tp_refused(
    m: &ModelSpec,
    t: &TransformerSpec,
    inputs: &[LinearInput],
    (group, tp, engine): (u64, u64, Engine),
    field_tp: bool,
) -> CoreError {
    let per_channel = group == t.hidden;
    let width = inputs
        .iter()
        .find(|x| !int4_input_fits(**x, group, per_channel, tp))
        .map_or(t.ffn, |x| x.width);
    let split = inputs.iter().any(|x| x.width == width && x.split);
    let slice = match (split, width.is_multiple_of(tp.max(1))) {
        (false, _) => width.to_string(),
        (true, true) => (width / tp.max(1)).to_string(),
        (true, false) => format!("{:.2}", width as f64 / tp as f64),
    };
    let tps: Vec<String> = (1..=TP_TRIED_UP_TO)
        .filter(|n| tp_splits_attention(t, *n) && int4_all_fit(inputs, group, per_channel, *n))
        .map(|n| n.to_string())
        .collect();
    let groups: Vec<String> = INT4_GROUPS_LISTED
        .iter()
        .filter(|g| int4_all_fit(inputs, **g, false, tp))
        .map(|g| format!("int4-g{g}"))
        .chain(int4_all_fit(inputs, t.hidden, true, tp).then(|| format!("int4-g{}", t.hidden)))
        .collect();
    let fix = Msg::new("fix-tp-int4-group")
        .arg("engine", engine.name())
        .arg("model", m.name.as_str())
        .arg("width", width.to_string())
        .arg("tp", tp.to_string())
        .arg("slice", slice)
        .arg("group", group.to_string())
        .arg("tps", tps.len())
        .arg("tplist", tps.join(", "))
        .arg("groups", groups.len())
        .arg("valid", groups.join(", "))
        .arg("hidden", t.hidden.to_string());
    if field_tp {
        CoreError::invalid_msg("tp", tp, fix)
    } else {
        CoreError::invalid_msg("weights", WeightFormat::Int4 { group }.name(), fix)
    }
}

/// Largest tensor-parallel size [`check_tp_splits_attention`] lists as an alternative.
const TP_TRIED_UP_TO: u64 = 16;

/// Whether a serving engine splits the decoder's attention over `tp` ranks: the query heads
/// divide by `tp`, and the KV heads divide by it (split across ranks) or divide it (replicated).
/// vLLM's attention layers assert exactly this (vllm/model_executor/models/llama.py
/// `LlamaAttention.__init__`: `total_num_kv_heads % tp_size == 0` when there are at least `tp`
/// KV heads, else `tp_size % total_num_kv_heads == 0`; qwen2.py, phi3 via llama.py and SGLang's
/// copies alike): Phi-3-medium (40 heads, 10 KV heads) fails at TP 4 (vllm-project/vllm issue
/// #5951), Llama 3 70B (8 KV heads) runs at TP 16 with each KV head on two ranks. MLA keeps one
/// latent per token on every rank (`kv_per_token`), so only its query heads count.
pub fn tp_splits_attention(t: &TransformerSpec, tp: u64) -> bool {
    let tp = tp.max(1);
    let kv = t.kv_heads.max(1);
    let kv_ok = matches!(t.attention, AttentionKind::Mla(_))
        || if kv >= tp {
            kv.is_multiple_of(tp)
        } else {
            tp.is_multiple_of(kv)
        };
    t.heads.is_multiple_of(tp) && kv_ok
}

/// [`tp_splits_attention`] as a refusal naming `tp`, the head counts and the sizes that work
/// (audit r14 #3: TP 7 on Qwen2.5-7B's 4 KV heads was sized, vLLM asserts at start-up), and the
/// engine: the rule is sourced for vLLM and SGLang; for the others the message says it is applied
/// to them too rather than crediting it to vLLM (review r14 #7).
pub fn check_tp_splits_attention(
    t: &TransformerSpec,
    tp: u64,
    engine: Engine,
) -> Result<(), CoreError> {
    if tp_splits_attention(t, tp) {
        return Ok(());
    }
    let works: Vec<String> = (1..=TP_TRIED_UP_TO)
        .filter(|n| tp_splits_attention(t, *n))
        .map(|n| n.to_string())
        .collect();
    Err(CoreError::invalid_msg(
        "tp",
        tp,
        crate::i18n::Msg::new("fix-tp-divides-heads-serve")
            .arg("engine", engine.name())
            .arg("heads", t.heads)
            .arg("kv", t.kv_heads)
            .arg("try", works.join(", ")),
    ))
}

/// Whether a training stack splits the decoder's attention over `tp` ranks. The stacks the
/// planner lays out with TP > 1 both need whole KV heads on every rank:
/// - Megatron-Core (`framework = "megatron"`, core_v0.15.0 megatron/core/transformer/attention.py
///   `Attention.__init__`: `num_query_groups_per_partition = divide(config.num_query_groups,
///   world_size)`, and `divide` asserts divisibility; modelscope/ms-swift issue #8219 logs
///   "num_query_groups (2) must be a multiple of tensor_model_parallel_size (8)");
/// - torchtitan-style DTensor TP (`framework = "huggingface"` with TP > 1: pytorch/torchtitan
///   @6404b932 torchtitan/models/llama3/model/model.py `Attention.forward`: `wk`/`wv` are
///   column-sharded, their outputs viewed as `(bs, seqlen, -1, head_dim)` and repeated by the
///   global `n_rep = n_heads // n_kv_heads`, so a rank holding part of one KV head has no whole
///   head to view; no replication path).
///
/// LitGPT has no TP. MLA has no KV groups to split (one latent per token; the DeepSeek configs
/// leave Megatron-Core's `num_query_groups` at the head count), so only its query heads count.
/// `kv_replicated` is a stack that keeps every KV head on every TP rank
/// (`parallel.kv_heads_replicated`, BigCode's Megatron-LM fork under multi-query attention): its
/// KV heads then need only divide `tp` or be a multiple of it, as vLLM's rule
/// ([`tp_splits_attention`]).
pub fn train_tp_splits_attention(t: &TransformerSpec, tp: u64, kv_replicated: bool) -> bool {
    let tp = tp.max(1);
    if kv_replicated || matches!(t.attention, AttentionKind::Mla(_)) {
        return tp_splits_attention(t, tp);
    }
    t.heads.is_multiple_of(tp) && t.kv_heads.max(1).is_multiple_of(tp)
}

/// [`train_tp_splits_attention`] as a refusal of `field`, naming the head counts and the TP sizes
/// up to `max_tp` that work (review r14 #1: GLM-4-9B's 2 KV groups at TP 4 under Megatron-Core).
pub fn check_train_tp_splits_attention(
    t: &TransformerSpec,
    field: &str,
    tp: u64,
    kv_replicated: bool,
    max_tp: u64,
) -> Result<(), CoreError> {
    if train_tp_splits_attention(t, tp, kv_replicated) {
        return Ok(());
    }
    let works: Vec<String> = (1..=max_tp.max(1))
        .filter(|n| train_tp_splits_attention(t, *n, kv_replicated))
        .map(|n| n.to_string())
        .collect();
    Err(CoreError::invalid_msg(
        field,
        tp,
        crate::i18n::Msg::new("fix-tp-divides-heads-train")
            .arg("heads", t.heads)
            .arg("kv", t.kv_heads)
            .arg("try", works.join(", ")),
    ))
}

pub fn serving_memory(
    m: &ModelSpec,
    s: &InferenceSetup,
    gpu: &GpuSpec,
    tun: &Tunables,
) -> Result<ServingMemory, CoreError> {
    s.validate()?;
    check_runs_on(s, gpu)?;
    check_awq_checkpoint(m, s, gpu)?;
    check_format_on_model(m, s.weights, s.engine)?;
    let t = m.transformer().ok_or_else(|| {
        CoreError::invalid(
            "model",
            &m.name,
            "KV-cache sizing needs a transformer; this model is given by totals",
        )
    })?;
    check_tp_splits_attention(t, s.tp, s.engine)?;
    check_int4_group(m, s.weights, s.tp, s.engine)?;
    // Default: what the workload needs (prompt + output, rounded up to whole KV blocks), not the
    // model's full context, whose profile pass would silently eat a large share of the pool.
    let img = image_load(t, s);
    // Rounded to the engine's KV block: SGLang pages one token (its `block_tokens` below).
    let round_to = match s.engine {
        Engine::Sglang => 1,
        Engine::Static => STATIC_SEQ_MULTIPLE,
        _ => s.block_size.max(1),
    };
    let max_model_len = s.max_model_len.unwrap_or_else(|| {
        (s.input_tokens
            .saturating_add(s.output_tokens)
            .saturating_add(img.kv_tokens))
        .div_ceil(round_to)
        .saturating_mul(round_to)
        .clamp(1, t.max_context.max(1))
    });
    let weights = setup_weight_bytes(m, s) + vllm_mxfp4_padding(m, s, gpu);
    let visible = gpu.visible_memory().ok_or_else(|| {
        CoreError::invalid(
            "gpu",
            &gpu.id,
            "no sourced memory size for this chip; add memory_gib in a user catalog",
        )
    })?;
    let kv = kv_per_token(t, s.kv_dtype.bytes(), s.tp);
    // A fixed-length encoder's cross-attention K/V is cached per request like as many tokens.
    let cross = t.cross_kv_positions();
    let static_kv = s.batch as f64 * (max_model_len + cross) as f64 * kv.per_device.0;
    let mut c = engine_charge(t, s, gpu, tun, visible, weights, static_kv);
    // The profile run (vLLM, TensorRT-LLM's build-time buffers) also encodes one request's images.
    if matches!(s.engine, Engine::Vllm | Engine::Trtllm) && img.encoder_activation.0 > 0.0 {
        let extra = img.encoder_activation;
        c.act += extra;
        c.kv -= match s.engine {
            Engine::Trtllm => {
                extra.0
                    * s.free_gpu_memory_fraction
                        .unwrap_or(TRTLLM_DEFAULT_FREE_FRACTION)
            }
            _ => extra.0,
        };
    }
    let block_tokens = match s.engine {
        Engine::Sglang => 1,
        Engine::Static => max_model_len,
        _ => s.block_size,
    };
    // vLLM's hybrid manager gives every layer the pool's `blocks` pages (its "GPU KV cache
    // size" is blocks × block size, as without windows); a sliding layer's requests hold fewer
    // of them, which raises the concurrency and lowers the start-up need (`share`), not the pool.
    let share = hybrid_kv_share(t, s, gpu, max_model_len, true);
    let block_bytes = kv.per_device.0 * block_tokens as f64;
    let blocks = if c.kv > 0.0 && s.engine == Engine::Static {
        s.batch
    } else if c.kv > 0.0 {
        (c.kv / block_bytes).floor().min(u64::MAX as f64 / 2.0) as u64
    } else {
        0
    };
    let kv_tokens = blocks.saturating_mul(block_tokens);
    let per_request = s.input_tokens + s.output_tokens + img.kv_tokens + cross;
    let problem = if c.kv <= 0.0 {
        Some(
            Msg::new("serve-problem-no-kv")
                .arg("weights", weights.to_string())
                .arg("act", c.act.to_string())
                .arg("runtime", c.non_torch.to_string())
                .arg("engine", s.engine.name())
                .arg("budget", c.budget.to_string())
                .into(),
        )
    } else if (kv_tokens as f64) < (max_model_len + cross) as f64 * share {
        Some(
            Msg::new("serve-problem-short-pool")
                .arg("tokens", kv_tokens)
                .arg("len", max_model_len)
                .into(),
        )
    } else {
        None
    };
    Ok(ServingMemory {
        engine: s.engine,
        rule: c.rule,
        weights,
        activation_peak: c.act,
        non_torch: c.non_torch,
        cudagraph: c.cudagraph,
        budget: c.budget,
        kv_pool: Bytes(c.kv.max(0.0)),
        kv_shortfall: Bytes((-c.kv).max(0.0)),
        kv_per_token: kv,
        blocks,
        block_tokens,
        kv_tokens,
        max_model_len,
        profile_tokens: c.profile_tokens,
        max_concurrency_at_max_len: kv_tokens as f64 / (max_model_len as f64 * share),
        max_concurrent_requests: match s.engine {
            Engine::Static => blocks.min(s.batch),
            _ => concurrent_requests(t, s, gpu, &kv, c.kv, per_request, kv_tokens),
        },
        // No sequence outgrows the model's context, however large the pool (audit r12 #10: a
        // 0.5B model's pool read "longest context at batch 1: 6009632" where `--solve
        // max-context` answers its 32768).
        max_context_at_batch: (kv_tokens / s.batch).min(t.max_context.max(1)),
        fits: problem.is_none(),
        problem,
        fit_advice: None,
    })
}

/// Whether `s` starts on `gpu` by [`serving_memory`].
fn starts(m: &ModelSpec, s: &InferenceSetup, gpu: &GpuSpec, tun: &Tunables) -> bool {
    serving_memory(m, s, gpu, tun).is_ok_and(|r| r.fits)
}

/// Largest `k` in `lo..=hi` with `ok(k)`, for a predicate true up to some point and false after
/// (None if `ok(lo)` is false).
fn last_true(lo: u64, hi: u64, ok: impl Fn(u64) -> bool) -> Option<u64> {
    if lo > hi || !ok(lo) {
        return None;
    }
    let (mut good, mut bad) = (lo, hi + 1);
    while bad - good > 1 {
        let mid = good + (bad - good) / 2;
        if ok(mid) {
            good = mid;
        } else {
            bad = mid;
        }
    }
    Some(good)
}

/// Hundredths of `gpu_memory_utilization`: the least above the asked one at which vLLM starts.
const UTILIZATION_STEPS: u64 = 100;

/// The settings that start a vLLM setup gpuplan refuses ([`FitAdvice`]), each searched alone
/// with the others as asked. None for other engines, a setup that fits, or one that starts at
/// none of them.
pub fn fit_advice(
    m: &ModelSpec,
    s: &InferenceSetup,
    gpu: &GpuSpec,
    tun: &Tunables,
    r: &ServingMemory,
) -> Option<FitAdvice> {
    if r.fits || s.engine != Engine::Vllm {
        return None;
    }
    let block = s.block_size.max(1);
    // No shorter length than one request (`check_max_model_len` refuses it): from the blocks
    // that hold one.
    let request = m.transformer().map_or_else(
        || s.input_tokens.saturating_add(s.output_tokens),
        |t| s.request_tokens(t),
    );
    let first = request.div_ceil(block).max(1);
    let len = last_true(first, r.max_model_len.saturating_sub(1) / block, |k| {
        let t = InferenceSetup {
            max_model_len: Some(k * block),
            ..s.clone()
        };
        starts(m, &t, gpu, tun)
    })
    .map(|k| k * block);
    let at_len = InferenceSetup {
        max_model_len: Some(r.max_model_len),
        ..s.clone()
    };
    let asked = s
        .max_num_seqs
        .unwrap_or_else(|| engine_max_num_seqs(s.engine, gpu));
    let seqs = last_true(1, asked.saturating_sub(1), |n| {
        let t = InferenceSetup {
            max_num_seqs: Some(n),
            ..at_len.clone()
        };
        starts(m, &t, gpu, tun)
    });
    let util = least_utilization(m, &at_len, gpu, tun);
    let a = FitAdvice {
        max_model_len: len,
        max_num_seqs: seqs,
        gpu_memory_utilization: util,
    };
    (len.is_some() || seqs.is_some() || util.is_some()).then_some(a)
}

/// The catalog messages one [`FitAdvice`] is told in: `estimate` names its flags
/// ([`ESTIMATE_ADVICE`]), `plan` the request's tokens, the `[serve]` key and vLLM's launch
/// setting it does not size ([`PLAN_ADVICE`]).
pub struct AdviceIds {
    pub head: &'static str,
    pub len: &'static str,
    pub seqs: &'static str,
    pub util: &'static str,
}

pub const ESTIMATE_ADVICE: AdviceIds = AdviceIds {
    head: "est-serve-advice-head",
    len: "est-serve-advice-len",
    seqs: "est-serve-advice-seqs",
    util: "est-serve-advice-util",
};

pub const PLAN_ADVICE: AdviceIds = AdviceIds {
    head: "plan-serve-advice-head",
    len: "plan-serve-advice-len",
    seqs: "plan-serve-advice-seqs",
    util: "plan-serve-advice-util",
};

/// [`advice_msgs`] in `estimate`'s words.
pub fn fit_advice_msgs(
    a: &FitAdvice,
    s: &InferenceSetup,
    gpu: &GpuSpec,
    max_model_len: u64,
) -> Vec<crate::i18n::Msg> {
    advice_msgs(&ESTIMATE_ADVICE, a, s, gpu, max_model_len)
}

/// A heading, then one line per setting of `a` that would start the engine, in `ids`' words.
pub fn advice_msgs(
    ids: &AdviceIds,
    a: &FitAdvice,
    s: &InferenceSetup,
    gpu: &GpuSpec,
    max_model_len: u64,
) -> Vec<crate::i18n::Msg> {
    use crate::i18n::Msg;
    let seqs = s
        .max_num_seqs
        .unwrap_or_else(|| engine_max_num_seqs(s.engine, gpu));
    let util = format!("{:.2}", s.gpu_memory_utilization);
    let mut lines = vec![Msg::new(ids.head)];
    if let Some(len) = a.max_model_len {
        lines.push(
            Msg::new(ids.len)
                .arg("len", len)
                .arg("util", util.as_str())
                .arg("seqs", seqs),
        );
    }
    if let Some(n) = a.max_num_seqs {
        lines.push(Msg::new(ids.seqs).arg("seqs", n).arg("len", max_model_len));
    }
    if let Some(u) = a.gpu_memory_utilization {
        lines.push(Msg::new(ids.util).arg("util", format!("{u:.2}")));
    }
    lines
}

/// The least `gpu_memory_utilization` in hundredths above the asked one (at most 1) at which
/// `s` starts.
fn least_utilization(
    m: &ModelSpec,
    s: &InferenceSetup,
    gpu: &GpuSpec,
    tun: &Tunables,
) -> Option<f64> {
    let steps = UTILIZATION_STEPS as f64;
    let from = (s.gpu_memory_utilization * steps).floor() as u64 + 1;
    let with = |k: u64| InferenceSetup {
        gpu_memory_utilization: k as f64 / steps,
        ..s.clone()
    };
    // Starting is monotone in the utilization: search the last hundredth that does not start.
    let top = UTILIZATION_STEPS;
    if from > top || !starts(m, &with(top), gpu, tun) {
        return None;
    }
    let below = last_true(from, top, |k| !starts(m, &with(k), gpu, tun));
    Some(below.map_or(from, |k| k + 1) as f64 / steps)
}

/// Requests of `per_request` tokens the pool holds at once: its tokens over the request's, or,
/// under vLLM's hybrid KV cache manager, its bytes over what one decoding request holds
/// ([`hybrid_kv_share`], not reserved).
fn concurrent_requests(
    t: &TransformerSpec,
    s: &InferenceSetup,
    gpu: &GpuSpec,
    kv: &KvPerToken,
    pool: f64,
    per_request: u64,
    kv_tokens: u64,
) -> u64 {
    if !vllm_hybrid_kv(t, s) || pool <= 0.0 {
        return kv_tokens / per_request.max(1);
    }
    let share = hybrid_kv_share(t, s, gpu, per_request, false);
    let held = per_request.max(1).div_ceil(s.block_size.max(1)) * s.block_size.max(1);
    (pool / (held as f64 * kv.per_device.0 * share)).floor() as u64
}

#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct Latency {
    /// Time to first token for one request (prefill of `input_tokens`).
    pub ttft: Seconds,
    /// Prefill of the whole batch (static batching: every request's prompt at once).
    pub batch_prefill: Seconds,
    /// Time per output token at the requested batch.
    pub time_per_token: Seconds,
    /// Output tokens per second across the batch.
    pub decode_tokens_per_second: f64,
    /// Whether decode at this batch is limited by memory bandwidth (true) or compute.
    pub decode_bandwidth_bound: bool,
    /// Batch at which decode turns compute-bound (peak ÷ bandwidth, in tokens).
    pub ridge_batch: f64,
    pub peak: FlopRate,
}

/// The dtype a format's GEMMs run in: FP8 weights with FP8 activations (W8A8) at the FP8 peak;
/// weight-only int8/int4 (W8A16/W4A16: GPTQ/AWQ/bitsandbytes dequantise to 16 bits before the
/// matmul) and 16-bit weights at the 16-bit peak, never the int8 one.
pub(crate) fn compute_dtype(format: WeightFormat) -> ComputeDtype {
    match format {
        WeightFormat::Fp32 => ComputeDtype::Tf32,
        WeightFormat::Fp8 => ComputeDtype::Fp8,
        _ => ComputeDtype::Bf16,
    }
}

/// 16-bit on chips without bf16 (Turing T4, Volta V100): vLLM refuses bf16 there
/// (vllm/v1/worker/gpu_worker.py `_check_if_gpu_supports_dtype`: "Bfloat16 is only supported on
/// GPUs with compute capability of at least 8.0 … use float16 instead … --dtype=half"). A default
/// bf16 becomes fp16 with a note (same bytes); an explicitly chosen bf16 is an error naming the
/// field, as in vLLM.
pub fn adapt_half(
    s: &InferenceSetup,
    gpu: &GpuSpec,
    weights_pinned: bool,
) -> Result<(InferenceSetup, Option<crate::i18n::Text>), CoreError> {
    use crate::i18n::Msg;
    if gpu.supports(ComputeDtype::Bf16) {
        return Ok((s.clone(), None));
    }
    if s.weights != WeightFormat::Bf16 {
        // Quantized (or fp16/fp32) weights: the engine's activations and a 16-bit KV cache
        // still take the checkpoint's bf16, which the chip lacks; they run in fp16 (audit r9
        // #3: "int8 weights, bf16 KV cache" on a T4).
        let quantized = !matches!(s.weights, WeightFormat::Fp16 | WeightFormat::Fp32);
        if !quantized || s.kv_dtype != crate::workload::KvDtype::Bf16 {
            return Ok((s.clone(), None));
        }
        let mut out = s.clone();
        out.kv_dtype = crate::workload::KvDtype::Fp16;
        let note = Msg::new("cav-serve-no-bf16-quantized")
            .arg("gpu", gpu.id.as_str())
            .arg("weights", s.weights.name())
            .arg("engine", s.engine.name());
        return Ok((out, Some(note.into())));
    }
    if weights_pinned {
        return Err(CoreError::invalid_msg(
            "weights",
            "bf16",
            Msg::new("fix-serve-no-bf16").arg("gpu", gpu.id.as_str()),
        ));
    }
    let mut out = s.clone();
    out.weights = WeightFormat::Fp16;
    if out.kv_dtype == crate::workload::KvDtype::Bf16 {
        out.kv_dtype = crate::workload::KvDtype::Fp16;
    }
    let note = Msg::new("cav-serve-no-bf16")
        .arg("gpu", gpu.id.as_str())
        .arg("engine", s.engine.name());
    Ok((out, Some(note.into())))
}

/// The format a model's released checkpoint is stored in when it is not 16-bit, from its config's
/// `quantization_config` (model/quant.rs, [`ModelSpec::checkpoint`]): DeepSeek-V3 and R1 ship FP8
/// e4m3 weights with 128×128 block scales (their HF configs, copied into the presets; the
/// DeepSeek-V3 report §3.3 FP8 training), gpt-oss MXFP4, other FP8 and int4/int8 releases. Serving
/// them as stored is not a quantization of the model, so no quality warning applies.
/// Not the `model_type`: a `deepseek_v3` config without `quantization_config` is a 16-bit
/// checkpoint (Moonlight-16B-A3B, bf16 conversions of V3), sized FP8 before audit r14 #2.
pub fn native_format(m: &ModelSpec) -> Option<WeightFormat> {
    m.checkpoint
}

/// Serving a checkpoint whose `quantization_config.quant_method` gpuplan does not read
/// ([`ModelSpec::checkpoint_unread`]) needs the format to serve given (`weights_given`): sized at
/// 16 bits by default it would be a silent wrong answer, so it is refused naming the key and the
/// workload `table` whose `weights` says it (`inference` for `estimate`, `serve` for `plan`).
pub fn check_checkpoint_read(
    m: &ModelSpec,
    weights_given: bool,
    table: &str,
) -> Result<(), CoreError> {
    match &m.checkpoint_unread {
        Some(method) if !weights_given => Err(CoreError::invalid_msg(
            "quantization_config.quant_method",
            method,
            crate::i18n::Msg::new("fix-serve-unread-checkpoint")
                .arg("known", crate::model::quant::KNOWN_METHODS.join(", "))
                .arg("table", table),
        )),
        _ => Ok(()),
    }
}

/// Lowest CUDA compute capability at which vLLM serves an MXFP4 checkpoint:
/// `Mxfp4Config.get_min_capability()` returns 80 (vllm/model_executor/layers/quantization/mxfp4.py
/// on main; Ampere runs the Marlin/Triton MXFP4 MoE backends, W4A16); the first release with
/// gpt-oss returned 90 (Hopper and newer).
pub const VLLM_MXFP4_MIN_CC: u32 = 80;
/// Lowest compute capability gpuplan lets SGLang and TensorRT-LLM serve MXFP4 at: Hopper, the
/// oldest architecture their gpt-oss guides serve (SGLang's mxfp4.py picks its Triton-kernels
/// MoE backend on Hopper; TensorRT-LLM's gpt-oss deployment guide runs H100/H200/B200). Ampere
/// support there is not verified, so it is not offered.
pub const OTHER_ENGINES_MXFP4_MIN_CC: u32 = 90;

/// Whether `engine` loads weights stored in `format` on `gpu` as stored: the one rule `estimate`
/// and `plan` both use (review r12 #3: they had checked the chip's FP8 units only, so an FP8
/// checkpoint on an A100 under vLLM was sized 16-bit though vLLM loads it). FP8 by
/// [`fp8_weights_run_on`] (FP8 units, or W8A16 FP8 Marlin); MXFP4 by vLLM from compute capability
/// 8.0, SGLang and TensorRT-LLM from 9.0, on CUDA chips, and not by the static engine
/// (gpt-fast/torchao has no MXFP4 kernel); the other formats by the chip's dtypes (plan/serve.rs
/// `formats`). Where it does not run, the checkpoint is served dequantized to 16 bits (as
/// transformers' `Mxfp4HfQuantizer` does without its kernels), twice the expert bytes and more.
pub fn format_runs(engine: Engine, format: WeightFormat, gpu: &GpuSpec) -> bool {
    match format {
        WeightFormat::Fp8 => return fp8_weights_run_on(engine, gpu),
        WeightFormat::Mxfp4 => {}
        WeightFormat::Bnb4 { .. } | WeightFormat::Bnb8 { .. } => {
            return bitsandbytes_runs(engine, format, gpu)
        }
        WeightFormat::Int4 { .. } => return int4_runs(engine, gpu),
        _ => return true,
    }
    let min = match engine {
        Engine::Vllm => VLLM_MXFP4_MIN_CC,
        Engine::Sglang | Engine::Trtllm => OTHER_ENGINES_MXFP4_MIN_CC,
        Engine::Static => return false,
    };
    gpu.stack == "cuda" && gpu.compute_capability.is_some_and(|cc| cc >= min)
}

/// Lowest compute capability of vLLM's Marlin int4/int8 kernels (`GPTQMarlinConfig` /
/// `AWQMarlinConfig.get_min_capability()` return 80 through the releases the engine profiles
/// name; vllm-project/vllm#29901, merged for early-2026 releases and documented by #34319 on
/// 2026-02-11, lowers them to 75). Below it vLLM and SGLang run GPTQ on its exllama kernel
/// (`GPTQConfig.get_min_capability()` = 60, vllm/model_executor/layers/quantization/gptq.py) and
/// AWQ on its own GEMM kernel (`AWQConfig.get_min_capability()` = 75, "The AWQ kernel only
/// supports Turing or newer GPUs", vllm awq.py; SGLang srt/layers/quantization/awq.py the same).
pub const MARLIN_MIN_CC: u32 = 80;
/// Lowest compute capability at which vLLM loads a GPTQ int4 checkpoint (its exllama kernel):
/// `GPTQConfig.get_min_capability()` returns 60 (vllm quantization/gptq.py). An AWQ checkpoint
/// needs 75 (`AWQConfig`): a V100 (7.0) loads GPTQ, not AWQ. SGLang imports or adapts the same
/// methods (its awq.py returns 75); its GPTQ floor is taken as vLLM's (not read).
pub const GPTQ_MIN_CC: u32 = 60;
/// Lowest compute capability at which vLLM and SGLang load an AWQ checkpoint:
/// `AWQConfig.get_min_capability()` returns 75, "The AWQ kernel only supports Turing or newer
/// GPUs" (vllm/model_executor/layers/quantization/awq.py @000796ac; SGLang
/// srt/layers/quantization/awq.py the same), and vLLM's loader raises "The quantization method
/// awq is not supported for the current GPU. Minimum capability: 75" below it. GPTQ's `GPTQConfig`
/// returns 60 in both (vLLM gptq.py; SGLang python/sglang/srt/layers/quantization/gptq.py
/// @006d0961 `get_min_capability`): on a V100 (7.0) a GPTQ checkpoint loads, an AWQ one does not
/// (audit r19 #1).
pub const AWQ_MIN_CC: u32 = 75;
/// Lowest compute capability at which TensorRT-LLM runs grouped int4 (AWQ/GPTQ) weight-only
/// GEMMs: its support matrix (TensorRT 10.3 era): "INT4 AWQ and GPTQ are not supported on SM <
/// 75" (the first README said < 80). Per-channel int4 runs on Volta there; gpuplan's int4
/// format does not tell the two apart at this rule, so Volta is refused for both (stated).
pub const TRTLLM_INT4_MIN_CC: u32 = 75;
/// Lowest compute capability of the static engine's int4 kernel: torch's tinygemm
/// `_weight_int4pack_mm` (gpt-fast / torchao int4wo) is compiled only for
/// `CUDA_VERSION >= 12000 && __CUDA_ARCH__ >= 800` (pytorch aten/src/ATen/native/cuda/int4mm.cu,
/// its first `#if`); below it the op has no kernel.
pub const TINYGEMM_MIN_CC: u32 = 80;

/// Lowest compute capability at which `engine` loads weight-only int4 on a CUDA GPU.
pub fn int4_min_cc(engine: Engine) -> u32 {
    match engine {
        Engine::Vllm | Engine::Sglang => GPTQ_MIN_CC,
        Engine::Trtllm => TRTLLM_INT4_MIN_CC,
        Engine::Static => TINYGEMM_MIN_CC,
    }
}

/// Whether `m`'s checkpoint is AWQ served as stored ([`ModelSpec::checkpoint_awq`], `format` its
/// stored int4) under vLLM or SGLang on a CUDA chip below [`AWQ_MIN_CC`], which neither loads.
/// TensorRT-LLM's own floor (7.5) and the static engine's (8.0) are [`int4_min_cc`]'s.
fn awq_below_turing(m: &ModelSpec, engine: Engine, format: WeightFormat, gpu: &GpuSpec) -> bool {
    m.checkpoint_awq && m.checkpoint == Some(format) && !awq_loads(engine, gpu)
}

/// Whether `engine` loads an AWQ checkpoint on `gpu`: vLLM and SGLang from [`AWQ_MIN_CC`] on
/// CUDA (a chip of unstated capability is taken to load it); the other engines' int4 floors are
/// [`int4_min_cc`]'s.
fn awq_loads(engine: Engine, gpu: &GpuSpec) -> bool {
    !matches!(engine, Engine::Vllm | Engine::Sglang)
        || gpu.stack != "cuda"
        || gpu.compute_capability.is_none_or(|cc| cc >= AWQ_MIN_CC)
}

/// Whether `format`, asked for as AWQ (`plan --weights awq`), loads under `engine` on `gpu`:
/// its int4 needs [`AWQ_MIN_CC`] under vLLM and SGLang; other formats are unaffected.
pub fn named_awq_runs(engine: Engine, format: WeightFormat, gpu: &GpuSpec) -> bool {
    !matches!(format, WeightFormat::Int4 { .. }) || awq_loads(engine, gpu)
}

/// `--weights awq`: an AWQ int4 checkpoint served by `s.engine` on `gpu`, refused naming
/// `weights` where vLLM/SGLang have no AWQ kernel ([`AWQ_MIN_CC`]); `gptq` and `int4` load there.
pub fn check_awq_named(s: &InferenceSetup, gpu: &GpuSpec) -> Result<(), CoreError> {
    let int4 = matches!(s.weights, WeightFormat::Int4 { .. });
    if !int4 || awq_loads(s.engine, gpu) {
        return Ok(());
    }
    Err(awq_refused(s, gpu))
}

fn awq_refused(s: &InferenceSetup, gpu: &GpuSpec) -> CoreError {
    let cc = gpu.compute_capability.unwrap_or(0);
    let fix = crate::i18n::Msg::new("fix-weights-awq-chip")
        .arg("engine", s.engine.name())
        .arg("gpu", gpu.id.as_str())
        .arg("cc", cc_text(cc));
    CoreError::invalid_msg("weights", s.weights.name(), fix)
}

/// [`format_runs`] for `m`'s checkpoint: an AWQ checkpoint as stored needs [`AWQ_MIN_CC`] under
/// vLLM and SGLang, where a GPTQ one of the same bits loads from 6.0.
pub fn model_format_runs(
    m: &ModelSpec,
    engine: Engine,
    format: WeightFormat,
    gpu: &GpuSpec,
) -> bool {
    format_runs(engine, format, gpu) && !awq_below_turing(m, engine, format, gpu)
}

/// The refusal of an AWQ checkpoint served as stored where vLLM/SGLang have no AWQ kernel
/// ([`awq_below_turing`]), naming `weights` and the fixes: a GPTQ release, or a 7.5 chip.
fn check_awq_checkpoint(m: &ModelSpec, s: &InferenceSetup, gpu: &GpuSpec) -> Result<(), CoreError> {
    if awq_below_turing(m, s.engine, s.weights, gpu) {
        return Err(awq_refused(s, gpu));
    }
    Ok(())
}

/// Whether `engine` loads weight-only int4 on `gpu` ([`int4_min_cc`]); a chip off CUDA or of
/// unstated capability keeps the earlier answer (loads).
fn int4_runs(engine: Engine, gpu: &GpuSpec) -> bool {
    gpu.stack != "cuda"
        || gpu
            .compute_capability
            .is_none_or(|cc| cc >= int4_min_cc(engine))
}

/// The note of an int4 or int8 weight-only setup that vLLM or SGLang serves below
/// [`MARLIN_MIN_CC`]: it runs GPTQ's exllama kernel (AWQ's GEMM kernel from 7.5), not Marlin,
/// whose near-ideal bandwidth [`dequant_bandwidth_ratio`] assumes; no source measures those
/// kernels against the 16-bit GEMV on such a chip, so the decode time is marked unverified.
pub fn weight_only_kernel_note(
    engine: Engine,
    format: WeightFormat,
    gpu: &GpuSpec,
) -> Option<crate::i18n::Msg> {
    let quantized = matches!(format, WeightFormat::Int4 { .. } | WeightFormat::Int8);
    let cc = gpu.compute_capability.filter(|_| gpu.stack == "cuda")?;
    let below = matches!(engine, Engine::Vllm | Engine::Sglang) && cc < MARLIN_MIN_CC;
    // int8 has no AWQ checkpoint: its note names GPTQ's 8-bit kernel alone (audit r23 C: the
    // int4 note's "an AWQ int4 checkpoint" aside was printed on int8 plans). vLLM's GPTQConfig
    // takes 2/3/4/8-bit weights (model_executor/layers/quantization/gptq.py), run by `gptq_gemm`.
    let id = match format {
        WeightFormat::Int8 => "cav-serve-int8-not-marlin",
        _ => "cav-serve-int4-not-marlin",
    };
    (quantized && below).then(|| {
        crate::i18n::Msg::new(id)
            .arg("gpu", gpu.id.as_str())
            .arg("cc", cc_text(cc))
            .arg("weights", format.name())
            .arg("engine", engine.name())
    })
}

/// The refusal of int4 weights on a chip the engine has no int4 kernel for ([`int4_runs`]).
fn int4_chip_refused(s: &InferenceSetup, gpu: &GpuSpec) -> CoreError {
    let cc = gpu.compute_capability.unwrap_or(0);
    let fix = crate::i18n::Msg::new("fix-weights-int4-chip")
        .arg("engine", s.engine.name())
        .arg("gpu", gpu.id.as_str())
        .arg("cc", cc_text(cc))
        .arg("min", cc_text(int4_min_cc(s.engine)));
    CoreError::invalid_msg("weights", s.weights.name(), fix)
}

/// Lowest compute capability at which vLLM and SGLang load a bitsandbytes checkpoint:
/// `BitsAndBytesConfig.get_min_capability()` returns 70 in both (vllm
/// model_executor/layers/quantization/bitsandbytes.py @01f5395f; sglang
/// srt/layers/quantization/bitsandbytes.py @50e143a6, adapted from vLLM's).
pub const BNB_MIN_CC: u32 = 70;

/// Whether `engine` loads a bitsandbytes checkpoint ([`WeightFormat::Bnb4`] / [`WeightFormat::Bnb8`])
/// as stored on `gpu`: vLLM and SGLang (`--quantization bitsandbytes`, their `BitsAndBytesConfig`:
/// linears and fused MoE, CUDA from compute capability [`BNB_MIN_CC`]; a 4-bit checkpoint only
/// with uint8 `bnb_4bit_quant_storage`, which their constructors require). TensorRT-LLM does not
/// ("can not support that for now", NVIDIA/TensorRT-LLM#2472 on an unsloth bnb-4bit checkpoint;
/// its checkpoint converters read no bitsandbytes state), nor the static engine (gpt-fast /
/// torchao load 16-bit weights and quantize them themselves).
fn bitsandbytes_runs(engine: Engine, format: WeightFormat, gpu: &GpuSpec) -> bool {
    let packed = !matches!(
        format,
        WeightFormat::Bnb4 {
            packed_uint8: false,
            ..
        }
    );
    matches!(engine, Engine::Vllm | Engine::Sglang)
        && packed
        && gpu.stack == "cuda"
        && gpu.compute_capability.is_some_and(|cc| cc >= BNB_MIN_CC)
}

/// Expected distinct routed experts one MoE layer reads for `tokens` tokens routed top-k of E
/// uniformly: E·(1 − (1 − k/E)^tokens). At a few dozen tokens nearly every expert is read.
pub fn experts_touched(experts: u64, top_k: u64, tokens: f64) -> f64 {
    let e = experts.max(1) as f64;
    let k = (top_k as f64).min(e);
    e * (1.0 - (1.0 - k / e).powf(tokens.max(1.0)))
}

/// Weight bytes one forward over `tokens` tokens reads on one TP rank: everything except the
/// routed experts, plus the routed experts those tokens touch (all of them for dense models).
pub fn weights_read(m: &ModelSpec, full: f64, format: WeightFormat, tp: u64, tokens: f64) -> f64 {
    let Some(moe) = m.transformer().and_then(|t| t.moe) else {
        return full;
    };
    let ways = WeightSplit::serving(tp).expert_ways() as f64;
    let routed = param_breakdown(m).expert_params() as f64 * format.bits() / 8.0 / ways;
    let share = experts_touched(moe.experts, moe.experts_per_token, tokens) / moe.experts as f64;
    (full - routed).max(0.0) + routed * share
}

/// Share of the routed experts a step of `tokens` tokens touches (1 without routed experts).
fn routed_share(m: &ModelSpec, tokens: f64) -> f64 {
    m.transformer().and_then(|t| t.moe).map_or(1.0, |moe| {
        experts_touched(moe.experts, moe.experts_per_token, tokens) / moe.experts.max(1) as f64
    })
}

/// One row of torchao's quantization README @03d01adc ("CUDA backend | NVIDIA-A100-80GB GPU",
/// batch 1, torch.compile): decode tokens per second and the model size it divides into the
/// "Memory Bandwidth (GB/s)" column (GB, embeddings excluded: bf16 13.21 GB on Llama-2-7B).
#[derive(Clone, Copy, Debug)]
pub struct TorchaoRow {
    pub tokens_per_s: f64,
    pub model_gb: f64,
}

/// Decoder layers of the two models torchao measured (Llama-2-7B and Llama-3-8B: 32 each).
pub const TORCHAO_LAYERS: f64 = 32.0;
/// (bf16, int8wo) rows: Llama-2-7B 107.38 tok/s at 13.21 GB, 170.83 at 6.62; Llama-3-8B 95.64 at
/// 15.01, 153.03 at 7.52.
pub const TORCHAO_INT8WO: [(TorchaoRow, TorchaoRow); 2] = [
    (torchao(107.38, 13.21), torchao(170.83, 6.62)),
    (torchao(95.64, 15.01), torchao(153.03, 7.52)),
];
/// (bf16, int4wo-64) rows: Llama-2-7B 201.14 tok/s at 3.74 GB, Llama-3-8B 180.80 at 4.22 (the
/// sizes count tinygemm's bf16 scale and zero per group of 64: 4.5 bits per weight).
pub const TORCHAO_INT4WO: [(TorchaoRow, TorchaoRow); 2] = [
    (torchao(107.38, 13.21), torchao(201.14, 3.74)),
    (torchao(95.64, 15.01), torchao(180.80, 4.22)),
];

const fn torchao(tokens_per_s: f64, model_gb: f64) -> TorchaoRow {
    TorchaoRow {
        tokens_per_s,
        model_gb,
    }
}

/// Effective bandwidth of the static engine's weight-only kernels relative to its bf16 GEMV at
/// batch 1 (gpt-fast / torchao: int8 `F.linear(x, w.to(x.dtype)) * scales` under torch.compile,
/// the dequantisation fused into the reduction; int4 tinygemm `aten._weight_int4pack_mm`),
/// from torchao's A100 rows (`rows`: bf16 and quantised of each model), per byte streamed.
/// torchao's GB/s column is model bytes × tokens/s, so a token's time there also holds the
/// step's fixed time, which [`latency`] charges on its own (`layer_overhead_s` per layer, the
/// same in both formats): it is taken out of each row's time before the bytes are divided in,
/// else the quantised rows' shorter steps would carry it twice. At the default 32 µs: int8wo
/// 0.86 (0.80 end to end), int4wo-64 0.59 (0.53 end to end). The mean over the two models;
/// measured kernels of another source, not fitted on a case (gpt-fast's rows stay out of sample).
pub fn static_wo_bandwidth_ratio(rows: &[(TorchaoRow, TorchaoRow)], tun: &Tunables) -> f64 {
    let fixed = tun.layer_overhead_s * TORCHAO_LAYERS;
    let per_gb =
        |r: &TorchaoRow| (1.0 / r.tokens_per_s - fixed).max(f64::MIN_POSITIVE) / r.model_gb;
    let ratios: Vec<f64> = rows.iter().map(|(b, q)| per_gb(b) / per_gb(q)).collect();
    ratios.iter().sum::<f64>() / ratios.len().max(1) as f64
}

/// The largest `layer_overhead_s` the torchao rows leave room for: the shortest measured token
/// time over its [`TORCHAO_LAYERS`] layers (int4wo-64 Llama-2-7B on A100: 1/201.14 s / 32 =
/// 155 µs). At or above it [`static_wo_bandwidth_ratio`] has no streaming time left in that row:
/// the ratio came out at or above 1 and the static engine's int4 decode silently ran at bf16
/// speed (audit r12 #6), so [`Tunables::validate`] refuses such a value.
pub fn max_layer_overhead_s() -> f64 {
    TORCHAO_INT8WO
        .iter()
        .chain(TORCHAO_INT4WO.iter())
        .flat_map(|(b, q)| [b, q])
        .map(|r| 1.0 / (r.tokens_per_s * TORCHAO_LAYERS))
        .fold(f64::INFINITY, f64::min)
}

/// Share of the 16-bit GEMV's effective bandwidth an engine's weight-only kernels reach at
/// decode. The static engine's (gpt-fast/torchao) dequantise inside a torch.compile'd or tinygemm
/// GEMV: [`static_wo_bandwidth_ratio`]. vLLM and SGLang run GPTQ/AWQ int4 and W8A16 through
/// Marlin, which "can deliver close to ideal (4x) speedups up to batchsizes of 16-32 tokens"
/// (IST-DASLab/marlin README: the ideal 3.87x at group 128, i.e. the 16-bit kernel's bandwidth):
/// 1. TensorRT-LLM's weight-only kernels: not measured here, taken as 1 (unverified).
pub fn dequant_bandwidth_ratio(engine: Engine, format: WeightFormat, tun: &Tunables) -> f64 {
    match (engine, format) {
        (Engine::Static, WeightFormat::Int8) => static_wo_bandwidth_ratio(&TORCHAO_INT8WO, tun),
        (Engine::Static, WeightFormat::Int4 { .. }) => {
            static_wo_bandwidth_ratio(&TORCHAO_INT4WO, tun)
        }
        _ => 1.0,
    }
}

/// Bits per weight the static engine's int4 kernel streams: tinygemm keeps a bf16 scale and a
/// bf16 zero per group (gpt-fast quantize.py @0f925b5 `WeightOnlyInt4Linear`: `scales_and_zeros`
/// of shape (in_features // groupsize, out_features, 2), bfloat16), 4 + 32/g bits, where
/// [`WeightFormat::bits`] counts AutoAWQ/GPTQ's 16-bit scale + 4-bit zero (4 + 20/g).
pub const TINYGEMM_GROUP_BITS: f64 = 32.0;

/// Bits a 16-bit copy of one weight moves when bitsandbytes dequantizes a 4-bit weight before
/// its GEMM: the dequantize kernel writes it (16) and the GEMM reads it back (16).
pub const BNB4_DEQUANT_COPY_BITS: f64 = 32.0;

/// The quantised linears' bits streamed per weight relative to [`WeightFormat::bits`], for a
/// forward over `rows` tokens. A bitsandbytes 4-bit linear under vLLM / SGLang calls
/// `bitsandbytes.matmul_4bit` (their `_apply_bnb_4bit`), which streams the 4-bit weight through
/// `gemv_4bit` only for one row (`A.numel() == A.shape[-1]`) and otherwise runs `MatMul4Bit`:
/// `dequantize_4bit` to a 16-bit tensor, then `torch.nn.functional.linear` (bitsandbytes 0.49.2
/// autograd/_functions.py lines 313-315 and 389-401): the 4-bit read plus
/// [`BNB4_DEQUANT_COPY_BITS`]. Not checked against a measured case.
fn streamed_bits_factor(engine: Engine, format: WeightFormat, rows: u64) -> f64 {
    match (engine, format) {
        (Engine::Static, WeightFormat::Int4 { group }) => {
            (4.0 + TINYGEMM_GROUP_BITS / group.max(1) as f64) / format.bits()
        }
        (Engine::Vllm | Engine::Sglang, WeightFormat::Bnb4 { .. }) if rows > 1 => {
            (format.bits() + BNB4_DEQUANT_COPY_BITS) / format.bits()
        }
        _ => 1.0,
    }
}

/// Factor from the bytes of weights a forward over `rows` tokens reads to the 16-bit kernels'
/// equivalent: the quantised layer linears (their share of the weights) cost
/// `1 / dequant_bandwidth_ratio` times the bytes their kernel streams ([`streamed_bits_factor`]
/// of their size).
fn weight_read_factor(
    b: &ParamBreakdown,
    s: &InferenceSetup,
    full: f64,
    rows: u64,
    tun: &Tunables,
) -> f64 {
    let ratio = dequant_bandwidth_ratio(s.engine, s.weights, tun);
    let streamed = streamed_bits_factor(s.engine, s.weights, rows);
    if (ratio >= 1.0 && streamed == 1.0) || full <= 0.0 {
        return 1.0;
    }
    let quantised = b.linear_params() as f64 * s.weights.bits() / 8.0;
    let share = (quantised / s.tp.max(1) as f64 / full).clamp(0.0, 1.0);
    1.0 + share * (streamed / ratio.min(1.0) - 1.0)
}

/// Latency of one all-reduce of a small message among `tp` GPUs of one node: one-shot
/// (vLLM/TRT-LLM custom all-reduce) on NVLink-class links; a ring of 2(tp−1) steps over PCIe,
/// each step costing `tp_allreduce_latency_s`. With `tp_allreduce = nccl`, NCCL's own latency
/// model (`comm::nccl_latency`, tuning.cc: the ring's base latency + 2(tp−1) hops of the link's).
pub fn allreduce_latency(gpu: &GpuSpec, s: &InferenceSetup, tun: &Tunables) -> f64 {
    let tp = s.tp;
    if tp <= 1 {
        return 0.0;
    }
    let nvlink = gpu.intra_link.is_nvlink_class();
    if s.tp_allreduce == TpAllReduce::Nccl {
        use crate::comm::{nccl_latency, Collective, Group, IntraClass};
        let intra = if nvlink {
            IntraClass::NvLink
        } else {
            IntraClass::Pcie
        };
        let g = Group {
            ranks: tp,
            nodes: 1,
            intra,
            nccl: None,
        };
        nccl_latency(Collective::AllReduce, g, tun).0 .0
    } else if nvlink {
        tun.tp_allreduce_latency_s
    } else {
        tun.tp_allreduce_latency_s * 2.0 * (tp - 1) as f64
    }
}

/// TP all-reduces of a layer's hidden state per forward step. Megatron-style layers reduce the
/// row-parallel attention output and MLP output apart: 2. Falcon's parallel block
/// (`parallel_attn` / `new_decoder_architecture`) adds both branches before one reduce in the
/// engines whose source says so: TensorRT-LLM builds its attention and MLP without a TP group
/// ("Not to apply allreduce inside the Attention/MLP layers. allreduce applies after those
/// layer.") and all-reduces `mlp + attention` once (tensorrt_llm/models/falcon/model.py
/// `FalconDecoderLayer` @138f96d4, the commit of the v0.6.1 performance tables), and vLLM builds
/// the dense and dense_4h_to_h `RowParallelLinear`s with `reduce_results=False` and calls
/// `tensor_model_parallel_all_reduce` on their sum (vllm/model_executor/models/falcon.py
/// `reduce_row_parallel_results = not (new_decoder_architecture or parallel_attn)`). TensorRT-LLM
/// before v0.6 (`engine_version` below 0.6: the FalconDecoderLayer of the v0.5-era source passes
/// its `tp_group` to Attention and MLP, whose row-parallel dense layers each all-reduce, and adds
/// the reduced outputs), SGLang and the static engine keep 2 (no Falcon path read for the last
/// two). GPT-NeoX's parallel block ([`ParallelBlock::NeoX`]) keeps 2: TensorRT-LLM's
/// GPTNeoXDecoderLayer passes `tp_group` to Attention and MLP and adds the reduced outputs.
pub fn tp_allreduces_per_layer(t: &TransformerSpec, s: &InferenceSetup) -> f64 {
    let release = s.engine_version.as_deref().and_then(parse_release);
    let trtllm_fused = release.is_none_or(|v| v >= TRTLLM_FIRST_FALCON_ONE_REDUCE);
    let falcon = t.parallel_block == ParallelBlock::Falcon;
    match s.engine {
        Engine::Trtllm if falcon && trtllm_fused => 1.0,
        Engine::Vllm if falcon => 1.0,
        _ => 2.0,
    }
}

/// First TensorRT-LLM release line whose Falcon reduces the parallel block once (the v0.6.1
/// tables' commit 138f96d4 does; the v0.5-era FalconDecoderLayer does not).
pub const TRTLLM_FIRST_FALCON_ONE_REDUCE: [u64; 3] = [0, 6, 0];

/// KV-cache bytes the generation-phase attention loads per cached byte on one TP rank. Grouped
/// kernels load each KV head once (1). TensorRT-LLM's masked multi-head attention kernel runs one
/// thread block per (sequence, query head) and each block loads the cache of its KV head
/// `hi_kv = hi / qhead_per_kv` (cpp/tensorrt_llm/kernels/decoderMaskedMultiheadAttention/
/// decoderMaskedMultiheadAttentionTemplate.h; "The different kernels assign a threadblock for B x H
/// pair", H the query heads): a GQA model's KV head is loaded once per query head of its group,
/// i.e. query heads ÷ KV heads per rank (8 for Llama-2-70B at any TP up to 8). MLA caches one
/// latent per token: 1.
pub fn decode_kv_load_factor(t: &TransformerSpec, s: &InferenceSetup) -> f64 {
    match (s.decode_kv_reads, t.attention) {
        (DecodeKvReads::PerQueryHead, AttentionKind::Standard) => {
            let kv = kv_per_token(t, 1.0, s.tp).heads_per_device.max(1);
            let q = (t.heads / s.tp.max(1)).max(1);
            (q as f64 / kv as f64).max(1.0)
        }
        _ => 1.0,
    }
}

/// Share of the nominal peak a format's GEMMs reach relative to bf16: FP8 GEMMs reach a smaller
/// fraction of their (twice as high) peak — the ratio of the engine's FP8 kernel generation, the
/// one training's FP8 GEMMs use (the engines fuse the activation quantisation, so no cast is
/// timed apart).
fn dtype_derate(s: &InferenceSetup, tun: &Tunables) -> f64 {
    if compute_dtype(s.weights) == ComputeDtype::Fp8 {
        s.fp8_kernels.gemm_ratio(tun).0
    } else {
        1.0
    }
}

/// First TensorRT-LLM release with an FP8 context FMHA: docs/source/release-notes.md, "TensorRT-LLM
/// Release 0.9.0": "[Experimental] Added support for FP8 FMHA". Before it the GPT attention
/// plugin builds its context FMHA runner for fp16 or bf16 only (gptAttentionCommon.cpp
/// `initialize`: `DATA_TYPE_FP16` / `DATA_TYPE_BF16`, else "GPTAttentionPlugin received wrong
/// data type"), so the v0.5/v0.6.1 FP8 engines (`--enable_fp8 --fp8_kv_cache`) run FP8 GEMMs
/// beside a 16-bit context attention.
pub const TRTLLM_FIRST_FP8_CONTEXT_FMHA: [u64; 3] = [0, 9, 0];

/// Whether a prefill's attention (QKᵀ and PV) runs on FP8 tensor cores. Only beside an FP8 KV
/// cache: TensorRT-LLM enables its FP8 context FMHA with an FP8 cache (tensorrt_llm/commands/
/// build.py: "FP8 Context FMHA is enabled by default to support FP8 Paged Context FMHA", and
/// disables it without one: "must be used together with fp8 KV Cache") from
/// [`TRTLLM_FIRST_FP8_CONTEXT_FMHA`] on; vLLM and SGLang quantise attention's inputs only for an
/// FP8 cache. FP8 weights with a 16-bit cache run 16-bit attention, as FP8 training does
/// (`ChipRates::attention`: the half-precision peak). No `engine_version`: the current engine.
fn fp8_prefill_attention(s: &InferenceSetup) -> bool {
    if compute_dtype(s.weights) != ComputeDtype::Fp8 || s.kv_dtype != KvDtype::Fp8 {
        return false;
    }
    let release = s.engine_version.as_deref().and_then(parse_release);
    match s.engine {
        Engine::Trtllm => release.is_none_or(|v| v >= TRTLLM_FIRST_FP8_CONTEXT_FMHA),
        _ => true,
    }
}

/// The rate of a prefill's attention FLOPs: the GEMMs' (`gemm`, the format's peak × `eff`) when
/// the attention runs in FP8 ([`fp8_prefill_attention`]) or the format is not FP8, else the
/// chip's 16-bit peak × `prefill_efficiency` (no FP8 derate).
fn prefill_attention_rate(
    gpu: &GpuSpec,
    s: &InferenceSetup,
    gemm: FlopRate,
    tun: &Tunables,
) -> FlopRate {
    if compute_dtype(s.weights) != ComputeDtype::Fp8 || fp8_prefill_attention(s) {
        return gemm;
    }
    gpu.peak_half()
        .map_or(gemm, |half| half * tun.prefill_efficiency)
}

/// The chip's rates a serving step runs at: the format's peak (or the 16-bit one) and the memory
/// bandwidth; a chip without either is bad input naming the GPU.
fn chip_rates(gpu: &GpuSpec, s: &InferenceSetup) -> Result<(FlopRate, Bandwidth), CoreError> {
    let peak = gpu
        .peak(compute_dtype(s.weights))
        .or_else(|| gpu.peak_half())
        .ok_or_else(|| {
            CoreError::invalid_msg("gpu", &gpu.id, Msg::new("fix-gpu-no-peak-latency"))
        })?;
    let bw = gpu.memory_bandwidth().ok_or_else(|| {
        CoreError::invalid_msg("gpu", &gpu.id, Msg::new("fix-gpu-no-bandwidth-latency"))
    })?;
    Ok((peak, bw))
}

/// The GEMMs a serving engine runs for one layer's linears: q/k/v fused into one GEMM by every
/// engine (vLLM/SGLang `QKVParallelLinear`, TensorRT-LLM's `Attention.qkv`, gpt-fast's `wqkv`),
/// gate and up fused by vLLM and SGLang (`MergedColumnParallelLinear` gate_up_proj) but not by
/// TensorRT-LLM's `GatedMLP` without `--use_fused_mlp` (its `fc` and `gate` linears) nor gpt-fast
/// (`w1`, `w3`).
pub fn engine_gemms(linears: &[Linear], engine: Engine) -> Vec<Linear> {
    let fuse_gate_up = matches!(engine, Engine::Vllm | Engine::Sglang);
    let mut out: Vec<Linear> = Vec::with_capacity(linears.len());
    for l in linears {
        let joins = |prev: &Linear| {
            prev.d_in == l.d_in
                && prev.copies == l.copies
                && match (prev.name, l.name) {
                    ("q_proj" | "qkv_proj", "k_proj" | "v_proj") => true,
                    ("cross_q_proj" | "cross_qkv_proj", "cross_k_proj" | "cross_v_proj") => true,
                    ("gate_proj", "up_proj") => fuse_gate_up,
                    _ => false,
                }
        };
        match out.last_mut() {
            Some(prev) if joins(prev) => {
                prev.d_out += l.d_out;
                prev.name = match prev.name {
                    "q_proj" | "qkv_proj" => "qkv_proj",
                    "cross_q_proj" | "cross_qkv_proj" => "cross_qkv_proj",
                    _ => "gate_up_proj",
                };
            }
            _ => out.push(l.clone()),
        }
    }
    out
}

/// What the prefill and decode steps of one setup share: the model's sizes, the chip's rates and
/// the per-step costs that do not depend on the tokens.
struct Steps<'a> {
    m: &'a ModelSpec,
    t: &'a TransformerSpec,
    s: &'a InferenceSetup,
    gpu: &'a GpuSpec,
    tun: &'a Tunables,
    peak: FlopRate,
    bw: Bandwidth,
    linear_active: f64,
    /// The decode linears that are not routed experts ([`decode_dense_linear_params`]): the ones
    /// whose GEMMs [`decode_token_rows`] pads.
    linear_dense: f64,
    head: f64,
    layers: f64,
    /// GEMM efficiency: `prefill_efficiency` × the format's derate.
    eff: f64,
    /// Weight bytes a decode step streams on one rank (all but the input embedding table,
    /// [`embedding_table_bytes`]), and the factor to the 16-bit kernels' equivalent reads.
    decode_weights: f64,
    /// Bytes the MXFP4 MoE kernel reads beyond one rank's stored experts when it reads them all
    /// ([`vllm_mxfp4_extra`]), and the ratio of its expert bytes to the stored ones.
    expert_read_extra: f64,
    expert_read_ratio: f64,
    read_factor: f64,
    /// Latency of the step's TP all-reduces (`tp_allreduces_per_layer` per layer) and the
    /// layers' fixed GPU time (`layer_overhead_s` per dense layer's worth of kernels,
    /// [`layer_kernel_units`]), paid by every prefill and decode step.
    comm_lat: Seconds,
    layer_lat: Seconds,
    /// The model's linears, the shared GEMM model's rates for them (compute.rs) and the bytes
    /// per weight element the step reads (all weights of a rank over its parameters, times
    /// `read_factor`).
    b: ParamBreakdown,
    gemm_rates: ChipRates,
    weight_bytes: f64,
}

impl Steps<'_> {
    /// Bandwidth term of TP's all-reduces (`tp_allreduces_per_layer` per layer) of `tokens`·h
    /// 16-bit activations over the
    /// intra-node link (ring volume 2(t−1)/t of the message): a prefill's prompt tokens, or a
    /// decode step's batch (at batch 480 on Llama-3.1-70B, 480 × 8192 × 2 B = 7.9 MB per
    /// all-reduce, whose bytes the latency term alone did not charge).
    fn tp_comm(&self, tokens: f64) -> Seconds {
        let tp = self.s.tp as f64;
        match self.gpu.intra_link_bandwidth() {
            Some(bw) if self.s.tp > 1 => {
                let bytes = 2.0 * (tp - 1.0) / tp * tokens * self.t.hidden as f64 * 2.0;
                transfer_time(Bytes(bytes), bw * self.tun.collective_efficiency)
                    * (tp_allreduces_per_layer(self.t, self.s) * self.layers)
            }
            _ => Seconds(0.0),
        }
    }

    /// A prefill of `seqs` prompts of `n` tokens each: every linear of every layer as its own
    /// GEMM on this rank's shard, timed by the shared GEMM model (`compute::gemm_seconds_weights`:
    /// the slower of its FLOPs at the tile- and wave-quantized rate and its weight and activation
    /// bytes over the bandwidth), the LM head over the last token of each prompt, the attention
    /// FLOPs (`attention_flops` per prompt) at the attention rate ([`prefill_attention_rate`]),
    /// the vision encoder's (`image_flops` per prompt) at the GEMM rate, plus the engine's
    /// fixed per-step overhead (scheduling, sampling, launches; no CUDA graph for prefill) and TP.
    fn prefill(&self, n: f64, seqs: f64, attention_flops: f64, image_flops: f64) -> Seconds {
        let tokens = (n * seqs).round().max(1.0);
        let rows = tokens as u64;
        let mut gemms = 0.0;
        // A fixed-length encoder and the cross-attention K/V run over its positions.
        let enc_rows = self.t.encoder_len(n.round() as u64) as f64 * seqs.max(1.0);
        for g in &self.b.groups {
            let per_layer: f64 = engine_gemms(&g.linears, self.s.engine)
                .iter()
                .map(|l| match self.t.reads_encoder(g.name, l.name) {
                    true => self.linear_seconds(l, enc_rows as u64, enc_rows),
                    false => self.linear_seconds(l, rows, tokens),
                })
                .sum();
            gemms += per_layer * g.count as f64;
        }
        let tp = self.s.tp.max(1);
        if self.t.vocab > 0 {
            let head = (self.t.vocab.div_ceil(tp), self.t.hidden);
            gemms += gemm_seconds_weights(
                seqs.max(1.0) as u64,
                head.0,
                head.1,
                self.weight_bytes,
                &self.gemm_rates,
            );
        }
        let per_rank = seqs / tp as f64;
        let other = compute_time(Flops(attention_flops * per_rank), self.gemm_rates.attention)
            + compute_time(Flops(image_flops * per_rank), self.gemm_rates.gemm);
        Seconds(gemms)
            + other
            + Seconds(self.tun.engine_prefill_overhead_s)
            + self.comm_lat
            + self.layer_lat
            + self.tp_comm(tokens)
    }

    /// Seconds of one linear over `rows` tokens on this rank, its shard as the engine's TP holds
    /// it ([`WeightSplit::serving`]: column-parallel linears split their output, row-parallel
    /// ones their input, each routed expert too). Routed experts run as one grouped GEMM over
    /// the experts the tokens touch, each over its share (their tiles share the waves).
    fn linear_seconds(&self, l: &Linear, rows: u64, tokens: f64) -> f64 {
        let d = WeightSplit::serving(self.s.tp).linear(l);
        // MXFP4 holds the routed experts only; the other linears stream 16-bit weights.
        let bytes = match (self.s.weights.routed_experts_only(), l.copies > 1) {
            (true, true) => self.s.weights.bits() / 8.0 * self.expert_read_ratio,
            (true, false) => 2.0,
            (false, _) => self.weight_bytes,
        };
        let one = |m: u64| gemm_seconds_weights(m, d.d_out, d.d_in, bytes, &self.gemm_rates);
        if l.copies <= 1 {
            return one(rows);
        }
        let touched = experts_touched(l.copies, l.active_copies, tokens).max(1.0);
        let per_expert = (tokens * l.active_copies as f64 / touched).ceil().max(1.0);
        let (m, n, k) = (per_expert as u64, d.d_out, d.d_in);
        gemm_seconds_grouped(touched, m, n, k, bytes, &self.gemm_rates)
    }

    /// One decode step at `batch` sequences of `ctx` cached tokens, in its two phases. The
    /// GEMMs read the weights the batch's tokens touch (MoE: the experts they route to) or
    /// compute 2·N·B, whichever takes longer; the attention kernels then load each sequence's
    /// KV cache. They are separate kernels on one stream, so the KV loads add to the GEMMs'
    /// time rather than hide behind their compute (at batch 1 both phases stream bytes and the
    /// sum is the step's bytes over the bandwidth).
    fn decode(&self, batch: f64, ctx: f64) -> DecodeStep {
        let (t, s, tun) = (self.t, self.s, self.tun);
        let bw = self.bw * tun.decode_bandwidth_efficiency;
        let weights = (weights_read(self.m, self.decode_weights, s.weights, s.tp, batch)
            + self.expert_read_extra * routed_share(self.m, batch))
            * self.read_factor
            * decode_weight_share(&self.b, t);
        let kv =
            kv_per_token(t, s.kv_dtype.bytes(), s.tp).per_device.0 * decode_kv_load_factor(t, s);
        let flops = Flops(2.0 * (self.linear_active + self.head) * batch / s.tp as f64);
        let ctx = ctx + t.cross_kv_positions() as f64;
        DecodeStep {
            weights: transfer_time(Bytes(weights), bw),
            gemm: compute_time(flops, self.peak * self.eff),
            padded: self.padded_rows_seconds(batch, bw),
            // Sliding layers load only their window's keys, full layers every one.
            kv: transfer_time(Bytes(batch * t.mean_attended_keys(ctx) * kv), bw),
        }
    }

    /// Seconds the padded token rows of the dense linears' GEMMs ([`decode_token_rows`]: SGLang's
    /// FP8 tile, Marlin's) add to a decode step: their tensor-core work over `rows` rows at the
    /// GEMM rate, less the time the same kernels spend streaming their weights (which the step's
    /// weight reads already count). Zero where the chip computes the padded tile faster than it
    /// reads the weights (every chip in the catalog but the H20: its FP8 peak over its
    /// bandwidth, 296 TFLOPS ÷ 4.0 TB/s, is 74 FLOP per byte, below the FP8 tile's 2 × 64 = 128
    /// FLOP per FP8 weight byte; its 16-bit 37 FLOP per byte is below Marlin's 61 per int4 byte).
    fn padded_rows_seconds(&self, batch: f64, bw: Bandwidth) -> Seconds {
        let rows = decode_token_rows(self.s, self.gpu, batch);
        if rows <= batch || self.linear_dense <= 0.0 {
            return Seconds(0.0);
        }
        let tp = self.s.tp.max(1) as f64;
        let rate = self.peak * self.eff;
        let compute = |r: f64| compute_time(Flops(2.0 * self.linear_dense * r / tp), rate).0;
        let bytes = Bytes(self.linear_dense * self.s.weights.bits() / 8.0 / tp);
        // The step already pays the larger of the weight reads and the batch's own GEMM work
        // (`DecodeStep::time`'s max): the padded rows add only what exceeds both, so a batch
        // that is compute-bound by itself pays its padding rows, not the tile twice.
        let paid = transfer_time(bytes, bw).0.max(compute(batch));
        Seconds((compute(rows) - paid).max(0.0))
    }
}

/// Token rows of the M-tile in which SGLang's FP8 linears compute a decode step's tokens: read
/// from SGLang's source ([`fp8_token_rows`]), not fitted (no case is in-sample for it).
pub const FP8_TOKEN_TILE: f64 = 64.0;

/// Rows an FP8 linear's tensor cores compute for `batch` tokens (stop 41, the H20's batch-1
/// decode). SGLang tiles the token dimension of its FP8 GEMMs by 64 rows and computes the whole
/// tile: the block-FP8 Triton kernel `_w8a8_block_fp8_matmul`
/// (python/sglang/srt/layers/quantization/fp8_kernel.py) loads `tl.arange(0, BLOCK_SIZE_M)`
/// token rows (`% M`, so at M = 1 the one row 64 times) and multiplies them all with `tl.dot`,
/// only masking the store; its default config is `"BLOCK_SIZE_M": 64`, and the tuned H20 table
/// of Qwen3-32B's QKV shape holds 64 at M = 1 too (configs/N=10240,K=5120,
/// device_name=NVIDIA_H20,dtype=fp8_w8a8,block_shape=[128, 128].json @1f4eca79). SGLang's per-channel FP8 CUTLASS
/// path used a 64-row tile "for all small-M paths … for M=1 only 1/64 of the M dim is real work, the rest is
/// padding-compute" (sgl-project/sglang PR #25532, 2026-05, which added swap-AB for that path
/// only). On most chips the padded tile is free (the GEMM streams its weights slower than it
/// computes 64 rows); the H20's FP8 tensor cores run at 296 TFLOPS against 4.0 TB/s, so there
/// the padded work bounds the kernel (DeepGEMM PR #192 measures it on the H20: a 32-row grouped
/// FP8 GEMM in 64-row tiles at 117 TFLOPS and 1,862 GB/s, 3,100 GB/s once swap-AB drops the
/// padding, while on an H100 swap-AB gains nothing, 2,836 → 2,725 GB/s). Routed experts are
/// left out: the fused-MoE kernel's M-tile at M = 1 comes from per-shape tables not read here.
/// Other engines and formats: `batch` (their kernels' decode tiles are not sourced).
pub fn fp8_token_rows(s: &InferenceSetup, batch: f64) -> f64 {
    if s.engine == Engine::Sglang && compute_dtype(s.weights) == ComputeDtype::Fp8 {
        whole_tiles(batch, FP8_TOKEN_TILE)
    } else {
        batch
    }
}

/// `batch` rounded up to whole tiles of `tile` rows (at least one).
fn whole_tiles(batch: f64, tile: f64) -> f64 {
    (batch / tile).ceil().max(1.0) * tile
}

/// Token rows of the M-tile of Marlin's weight-only GEMM (stop 42, quant23): read from its
/// source, not fitted (no case is in-sample for it).
pub const MARLIN_TOKEN_TILE: f64 = 16.0;

/// Rows the tensor cores of a Marlin int4/int8 linear compute for `batch` tokens (stop 42).
/// vLLM and SGLang (which imports vLLM's AWQ-/GPTQ-Marlin methods) run AWQ and GPTQ int4 and
/// W8A16 int8 through Marlin from compute capability 8.0 ([`MARLIN_MIN_CC`]). Marlin computes
/// the tokens in blocks of 16 rows, `tot_m_blocks = ceildiv(tot_m, 16)`, one block
/// (`thread_m_blocks` = 1) up to 16 tokens, each a `mma.sync` m16n8k16 over the whole block
/// with the weights dequantised to 16 bits on the CUDA cores just before it
/// (IST-DASLab/marlin marlin/marlin_cuda_kernel.cu @0f102e11, `marlin_cuda` and `mma`; vLLM's
/// csrc/quantization/gptq_marlin copy keeps `m_blocks = div_ceil(prob_m, 16)`, read in a copy
/// derived from it, not at a release tag). At M = 1 that is 2 × 16 = 32 FLOP per weight, 61
/// FLOP per byte of a group-128 int4 weight: free wherever the chip's 16-bit GEMM rate over
/// its streaming bandwidth is above that (A100 312 TFLOPS / 2.04 TB/s), bound on the H20 (148
/// TFLOPS / 4.0 TB/s). The dequantisation (a few integer and half2 instructions per weight,
/// once per weight at M ≤ 16) is not charged. Routed experts are left out (the fused Marlin MoE
/// kernel's tiles are not read here), as for [`fp8_token_rows`]. Other engines, formats and
/// chips: `batch`.
pub fn marlin_token_rows(s: &InferenceSetup, gpu: &GpuSpec, batch: f64) -> f64 {
    let marlin_format = matches!(s.weights, WeightFormat::Int4 { .. } | WeightFormat::Int8);
    let marlin_chip =
        gpu.stack == "cuda" && gpu.compute_capability.is_some_and(|cc| cc >= MARLIN_MIN_CC);
    if marlin_format && marlin_chip && engine_runs_marlin(s.engine) {
        whole_tiles(batch, MARLIN_TOKEN_TILE)
    } else {
        batch
    }
}

/// Rows a decode step's dense linears compute for `batch` tokens: the engine's kernel tile
/// where one is sourced ([`fp8_token_rows`], [`marlin_token_rows`]), else `batch`.
pub fn decode_token_rows(s: &InferenceSetup, gpu: &GpuSpec, batch: f64) -> f64 {
    fp8_token_rows(s, batch).max(marlin_token_rows(s, gpu, batch))
}

/// Bytes of the input embedding table on one rank that a decode step does not stream: the lookup
/// gathers its batch's rows (`F.embedding` in gpt-fast and torchao, vLLM's
/// `VocabParallelEmbedding` on each rank's vocabulary shard), a few KB, not the V·h table. A tied
/// table is the LM head as well and is read in full; the untied LM head always is.
fn embedding_table_bytes(b: &ParamBreakdown, s: &InferenceSetup) -> f64 {
    if b.lm_head == 0 {
        return 0.0;
    }
    let bits = if s.weights.keeps_embeddings_16bit() {
        16.0
    } else {
        s.weights.bits()
    };
    b.embedding as f64 * bits / 8.0 / s.tp.max(1) as f64
}

/// The phases of one decode step: weight reads and GEMM compute (overlapped: the GEMMs stream
/// the weights), then the attention kernels' KV loads.
struct DecodeStep {
    weights: Seconds,
    gemm: Seconds,
    /// What the padded rows of SGLang's FP8 GEMMs and of Marlin's add beyond their weight reads
    /// and the batch's own GEMM work ([`decode_token_rows`]): at batch 1 zero but on the H20; at
    /// larger batches the rows up to the next whole tile where the step is compute-bound.
    padded: Seconds,
    kv: Seconds,
}

impl DecodeStep {
    fn time(&self) -> Seconds {
        self.weights.max(self.gemm) + self.padded + self.kv
    }

    fn bandwidth_bound(&self) -> bool {
        self.weights.0 + self.kv.0 >= self.gemm.0 + self.padded.0
    }
}

/// The shared GEMM model's rates (compute.rs) for a serving step: the format's peak × serving's
/// GEMM efficiency, the bandwidth × `decode_bandwidth_efficiency`, the chip's SMs for wave
/// quantization and 16-bit activations (the engines' FP8 GEMMs write 16-bit outputs).
fn serving_gemm_rates(
    gpu: &GpuSpec,
    gemm: FlopRate,
    attention: FlopRate,
    memory: Bandwidth,
) -> ChipRates {
    ChipRates {
        gemm,
        attention,
        memory: Some(memory),
        sms: gpu.sm_count,
        act_bytes: 2.0,
        eager_elementwise: false,
        cast_bytes: 0.0,
        autotuned: true,
    }
}

/// Prefill and decode latency on `tp` GPUs of `gpu` joined by a link of `link_latency` per
/// all-reduce (see [`Tunables::tp_allreduce_latency_s`]).
pub fn latency(
    m: &ModelSpec,
    s: &InferenceSetup,
    gpu: &GpuSpec,
    tun: &Tunables,
) -> Result<Latency, CoreError> {
    s.validate()?;
    let t = m
        .transformer()
        .ok_or_else(|| CoreError::invalid("model", &m.name, "latency needs a transformer"))?;
    let (peak, bw) = chip_rates(gpu, s)?;
    let b = param_breakdown(m);
    let full_weights = setup_weight_bytes(m, s).0;
    let layers = t.decoder_layers() as f64;
    let eff = tun.prefill_efficiency * dtype_derate(s, tun);
    let read_factor = weight_read_factor(&b, s, full_weights, s.input_tokens, tun);
    let decode_weights = (full_weights - embedding_table_bytes(&b, s)).max(0.0);
    // What vLLM's MXFP4 backend pads or swizzles, the MoE kernel streams too.
    let expert_read_extra = vllm_mxfp4_extra(m, s, gpu).read.0;
    let stored_experts = b.expert_params() as f64 * s.weights.bits() / 8.0 / s.tp.max(1) as f64;
    let rank_params = (b.total as f64 / s.tp.max(1) as f64).max(1.0);
    let steps = Steps {
        m,
        t,
        s,
        gpu,
        tun,
        peak,
        bw,
        linear_active: decode_linear_params(&b, t),
        linear_dense: decode_dense_linear_params(&b, t),
        head: (t.vocab * t.hidden) as f64,
        layers,
        eff,
        decode_weights,
        expert_read_extra,
        expert_read_ratio: 1.0 + expert_read_extra / stored_experts.max(1.0),
        read_factor: weight_read_factor(&b, s, decode_weights, s.batch, tun),
        comm_lat: Seconds(allreduce_latency(gpu, s, tun) * tp_allreduces_per_layer(t, s) * layers),
        layer_lat: Seconds(tun.layer_overhead_s * step_kernel_units(t, s)),
        weight_bytes: full_weights * read_factor / rank_params,
        gemm_rates: serving_gemm_rates(
            gpu,
            peak * eff,
            prefill_attention_rate(gpu, s, peak * eff, tun),
            bw * tun.decode_bandwidth_efficiency,
        ),
        b,
    };
    let img = image_load(t, s);
    let n = (s.input_tokens + img.kv_tokens) as f64;
    // Prefill beyond the linears: causal attention (4·L·q_width per query-key pair, n²/2 pairs
    // on a full layer, about n·window on a sliding one), an encoder-decoder's encoder and
    // cross-attention ([`encoder_attention_flops`]); the vision encoder over the request's
    // images apart (its linears, at the GEMM rate).
    let attention_flops =
        4.0 * layers * t.mean_causal_pairs(n) * t.q_width() as f64 + encoder_attention_flops(t, n);
    let batch = s.batch as f64;
    let ctx = (s.input_tokens + img.kv_tokens + s.output_tokens / 2) as f64;
    let step = steps.decode(batch, ctx);
    let per_token = step.time() + steps.comm_lat + steps.tp_comm(batch) + steps.layer_lat;
    Ok(Latency {
        ttft: steps.prefill(n, 1.0, attention_flops, img.encoder_flops),
        batch_prefill: steps.prefill(n, batch, attention_flops, img.encoder_flops),
        time_per_token: per_token,
        decode_tokens_per_second: batch / per_token.0,
        decode_bandwidth_bound: step.bandwidth_bound(),
        ridge_batch: peak.0 / bw.0 * (s.weights.bits() / 8.0) / 2.0,
        peak,
    })
}

/// Kernels of a dense decoder layer's attention block at a decode step: the input norm, the fused
/// QKV GEMM, rotary, the KV-cache write, attention and the output projection (the residual adds
/// fused into the norms). With [`DENSE_MLP_KERNELS`], the ~10 kernels `layer_overhead_s` was
/// fitted on.
pub const DENSE_ATTENTION_KERNELS: f64 = 6.0;
/// Kernels of a dense MLP block: the post-attention norm, gate‖up (or fc), the activation, down.
pub const DENSE_MLP_KERNELS: f64 = 4.0;

/// Kernels of MLA's absorbed decode path (SGLang python/sglang/srt/models/deepseek_v2.py
/// @00114aef `forward_absorb_prepare` / `forward_absorb_core`): the input norm, the fused
/// q_a‖kv_a GEMM (`fused_qkv_a_proj_with_mqa`), `q_a_layernorm`, `kv_a_layernorm`, `q_b_proj`,
/// the W_UK bmm, rotary, the latent KV write, attention, the W_UV bmm and `o_proj`: 11; without
/// q compression (`q_proj`, `kv_a_proj_with_mqa`, no `q_a_layernorm`, no `q_b_proj`) 10. The
/// block-FP8 activation quantisations each FP8 GEMM and bmm launches before it
/// (`per_token_group_quant_fp8`, `per_tensor_quant_mla_fp8`) are not counted.
fn mla_kernels(mla: &MlaSpec) -> f64 {
    if mla.q_lora_rank.is_some() {
        11.0
    } else {
        10.0
    }
}

/// Kernels of a tensor-parallel MoE block (same file, `DeepseekV2MoE.forward_normal`, and the
/// fused Triton MoE it calls): the post-attention norm, the router GEMM, the top-k selection,
/// `moe_align_block_size`, the gate‖up grouped GEMM, the activation, the down grouped GEMM and
/// the sum over each token's experts: 8; shared experts add their gate‖up, activation and down
/// (`shared_experts`, a dense MLP) and the add of both outputs: 12.
fn moe_kernels(moe: &MoeSpec) -> f64 {
    if moe.shared_experts > 0 {
        12.0
    } else {
        8.0
    }
}

/// The decoder layers' fixed GPU time in units of a dense layer's (`layer_overhead_s` each):
/// each layer counts its kernels ÷ the dense layer's 10. A dense standard layer is 1, so every
/// dense model keeps L; DeepSeek-V3's MLA + shared-expert MoE layer runs 23 kernels (2.3), its
/// three leading dense layers 15 (1.5): 137.9 for 61 layers instead of 61.
pub fn layer_kernel_units(t: &TransformerSpec) -> f64 {
    let attention = match t.attention {
        AttentionKind::Mla(mla) => mla_kernels(&mla),
        AttentionKind::Standard => DENSE_ATTENTION_KERNELS,
    };
    let dense = DENSE_ATTENTION_KERNELS + DENSE_MLP_KERNELS;
    let layers = t.decoder_layers() as f64;
    let unit = |mlp: f64| (attention + mlp) / dense;
    match t.moe {
        Some(moe) => {
            let dense_layers = (moe.dense_layers as f64).min(layers);
            dense_layers * unit(DENSE_MLP_KERNELS)
                + (layers - dense_layers) * unit(moe_kernels(&moe))
        }
        None => layers * unit(DENSE_MLP_KERNELS),
    }
}

/// Last SGLang release whose GPTQ/AWQ MoE layers run vLLM's `fused_marlin_moe`: SGLang's
/// python/sglang/srt/layers/quantization/gptq.py @ce22720e gives every `FusedMoE` layer
/// `GPTQMarlinMoEMethod`, whose `apply` calls `torch.ops.vllm.fused_marlin_moe` ("TODO: re-enable
/// after SGLang syncs with vllm >= 0.7.3" over the moe_wna16 branch), and the Qwen3 speed
/// benchmark states "vLLM 0.7.2 (Required by SGLang for AWQ quantization)" beside SGLang
/// 0.4.6.post1. Which SGLang release first left that path was not read: later ones are charged
/// the grouped kernel.
pub const SGLANG_LAST_VLLM_MARLIN_MOE: [u64; 3] = [0, 4, 6];

/// First vLLM release taken to run GPTQ/AWQ MoE layers through `moe_wna16_marlin_gemm`, which
/// "process[es] all moe blocks in parallel" in one launch (vllm PR #14447, opened 2025-03-07,
/// after v0.7.3, whose release tag a downstream PR links on 2025-02-22: ModelCloud/GPTQModel
/// #1332). UNVERIFIED: that the PR first shipped in v0.8.0 is an assumption; every release up to
/// v0.7.3 predates it.
pub const VLLM_FIRST_MOE_WNA16_MARLIN: [u64; 3] = [0, 8, 0];

/// Whether this setup's MoE layers run the old Marlin MoE kernel, which launches one Marlin GEMM
/// per expert: vllm csrc/moe/marlin_moe_ops.cu @00adeed5 (`marlin_mm_moe`: `compute_expert_offsets`, then
/// `for (int expert_idx = 0; expert_idx < num_experts; ++expert_idx)` launching the kernel over
/// all SMs for each expert, with or without tokens), called twice per layer (gate‖up, then down)
/// by `fused_marlin_moe` (vllm/model_executor/layers/fused_moe/fused_marlin_moe.py, two
/// `torch.ops._moe_C.marlin_gemm_moe` calls). GPTQ/AWQ int4 or int8 weights (the kernel's
/// `uint4b8`/`uint8b128` types) on an MoE model, under vLLM before
/// [`VLLM_FIRST_MOE_WNA16_MARLIN`] or SGLang up to [`SGLANG_LAST_VLLM_MARLIN_MOE`], stated by
/// `engine_version` (without one, the current engines: the grouped kernel).
pub fn per_expert_marlin_moe(t: &TransformerSpec, s: &InferenceSetup) -> bool {
    let quantised = matches!(s.weights, WeightFormat::Int4 { .. } | WeightFormat::Int8);
    let Some(release) = s.engine_version.as_deref().and_then(parse_release) else {
        return false;
    };
    let old = match s.engine {
        Engine::Vllm => release < VLLM_FIRST_MOE_WNA16_MARLIN,
        Engine::Sglang => release <= SGLANG_LAST_VLLM_MARLIN_MOE,
        _ => false,
    };
    t.moe.is_some() && quantised && old
}

/// Kernels an MoE layer launches beyond [`moe_kernels`] under [`per_expert_marlin_moe`]: each of
/// the two grouped GEMMs becomes `compute_expert_offsets` + one Marlin launch per expert, so
/// 2 × (E + 1) kernels in place of 2, i.e. 2E more. At batch 1 all but the token's k experts
/// find no rows and stream nothing, so each costs the per-kernel fixed time
/// (`layer_overhead_s` ÷ the dense layer's 10) and no bytes.
fn per_expert_marlin_extra_kernels(moe: &MoeSpec) -> f64 {
    2.0 * moe.experts as f64
}

/// The layers' fixed GPU time of one forward step in dense-layer units: [`layer_kernel_units`]
/// plus, under [`per_expert_marlin_moe`], the per-expert launches of every MoE layer.
pub fn step_kernel_units(t: &TransformerSpec, s: &InferenceSetup) -> f64 {
    let base = layer_kernel_units(t);
    match t.moe {
        Some(moe) if per_expert_marlin_moe(t, s) => {
            let moe_layers = (t.decoder_layers() as f64 - moe.dense_layers as f64).max(0.0);
            let dense = DENSE_ATTENTION_KERNELS + DENSE_MLP_KERNELS;
            base + moe_layers * per_expert_marlin_extra_kernels(&moe) / dense
        }
        _ => base,
    }
}

/// Linear parameters a decode step runs per token: all active ones but an encoder-decoder's
/// encoder layers and cross-attention K/V projections, which run once per request in prefill.
fn decode_linear_params(b: &ParamBreakdown, t: &TransformerSpec) -> f64 {
    decode_params_where(b, t, |_| true)
}

/// The decode linear parameters ([`decode_linear_params`]) outside the routed experts: attention,
/// dense MLPs and shared experts, one copy each.
fn decode_dense_linear_params(b: &ParamBreakdown, t: &TransformerSpec) -> f64 {
    decode_params_where(b, t, |l| l.copies <= 1)
}

/// Active parameters of the decode step's linears ([`decode_linear_params`]) that `keep` selects.
fn decode_params_where(
    b: &ParamBreakdown,
    t: &TransformerSpec,
    keep: impl Fn(&Linear) -> bool,
) -> f64 {
    b.groups
        .iter()
        .map(|g| {
            let per_layer: u64 = g
                .linears
                .iter()
                .filter(|l| keep(l) && !t.reads_encoder(g.name, l.name))
                .map(Linear::active_params)
                .sum();
            (g.count * per_layer) as f64
        })
        .sum()
}

/// Share of the weights a decode step reads: all but an encoder-decoder's encoder (its layers and
/// conv/patch stem) and the decoder's cross-attention K/V projections, which only the prefill runs.
/// By parameter count: the encoder's weights share the decoder's format.
pub fn decode_weight_share(b: &ParamBreakdown, t: &TransformerSpec) -> f64 {
    if !matches!(t.structure, Structure::EncoderDecoder { .. }) || b.total == 0 {
        return 1.0;
    }
    let prefill_only: u64 = b
        .groups
        .iter()
        .map(|g| {
            let linears: u64 = g
                .linears
                .iter()
                .filter(|l| t.reads_encoder(g.name, l.name))
                .map(Linear::params)
                .sum();
            let small = if g.name == "encoder" {
                g.small_params
            } else {
                0
            };
            g.count * (linears + small)
        })
        .sum();
    1.0 - (prefill_only + b.stem) as f64 / b.total as f64
}

/// Attention FLOPs of an encoder-decoder's prefill beyond the decoder's causal self-attention,
/// for a decoder prompt of `n` tokens: the encoder's bidirectional attention over its positions
/// (4·L_enc·e²·q_width) and each decoder layer's cross-attention over them (4·L_dec·n·e·q_width).
fn encoder_attention_flops(t: &TransformerSpec, n: f64) -> f64 {
    let Structure::EncoderDecoder { decoder_layers } = t.structure else {
        return 0.0;
    };
    let e = t.encoder_len(n.round() as u64) as f64;
    4.0 * t.q_width() as f64 * (t.layers as f64 * e * e + decoder_layers as f64 * n * e)
}

/// Most sequences the engine schedules at once by default: vLLM V1 `vllm serve` 1024 on GPUs of
/// 70 GiB or more other than A100 and 256 elsewhere (EngineArgs.get_batch_defaults,
/// vllm/engine/arg_utils.py); 256 for the other engines (an assumed cap: SGLang sizes
/// `max_running_requests` from its pool, TensorRT-LLM's `max_batch_size` is a build option).
pub fn engine_max_num_seqs(engine: Engine, gpu: &GpuSpec) -> u64 {
    match engine {
        Engine::Vllm if vllm_default_batched_tokens(gpu) == 8192 => 1024,
        _ => 256,
    }
}

/// A serving question answered in one call (`estimate --solve`).
#[derive(Clone, Copy, Debug, PartialEq, Serialize)]
#[serde(rename_all = "snake_case", tag = "question")]
pub enum SolveFor {
    /// Longest context (tokens per sequence) at `batch` concurrent sequences.
    MaxContext,
    /// Most concurrent sequences at `max_model_len` (default input + output) tokens each.
    MaxBatch,
    /// Highest output tokens/s within a time-per-output-token target.
    MaxThroughput { tpot_s: f64 },
}

impl SolveFor {
    pub fn label(self) -> crate::i18n::Msg {
        use crate::i18n::Msg;
        match self {
            SolveFor::MaxContext => Msg::new("solve-q-max-context"),
            SolveFor::MaxBatch => Msg::new("solve-q-max-batch"),
            SolveFor::MaxThroughput { tpot_s } => {
                Msg::new("solve-q-max-throughput").arg("ms", ms_text(tpot_s))
            }
        }
    }
}

/// The answer with the constraint that stops it going further.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct Solved {
    pub question: SolveFor,
    /// Tokens per sequence at the answer.
    pub context: u64,
    /// Concurrent sequences at the answer.
    pub batch: u64,
    /// Time per output token and output tokens/s at the answer (when latency is computable).
    pub time_per_token: Option<Seconds>,
    pub output_tokens_per_second: Option<f64>,
    /// What binds: `kv_pool`, `model_context`, `max_num_seqs`, `tpot_target`, `memory`.
    pub binding: &'static str,
    /// Why the answer stops there, in both languages (JSON: the English text).
    pub explanation: crate::i18n::Text,
    /// Estimator calls the answer took.
    pub evaluations: u64,
}

/// Largest `x` in `[lo, hi]` with `ok(x)`, given `ok(lo)` and `ok` monotone (true then false).
pub(crate) fn bisect_max(
    lo: u64,
    hi: u64,
    mut ok: impl FnMut(u64) -> Result<bool, CoreError>,
) -> Result<u64, CoreError> {
    let (mut lo, mut hi) = (lo, hi);
    while lo < hi {
        let mid = lo + (hi - lo).div_ceil(2);
        if ok(mid)? {
            lo = mid;
        } else {
            hi = mid - 1;
        }
    }
    Ok(lo)
}

/// Whether `batch` sequences of `context` tokens fit the engine's pool.
fn holds(
    m: &ModelSpec,
    s: &InferenceSetup,
    gpu: &GpuSpec,
    tun: &Tunables,
    context: u64,
    batch: u64,
) -> Result<bool, CoreError> {
    let probe = InferenceSetup {
        max_model_len: Some(context),
        batch,
        ..s.clone()
    };
    let mem = serving_memory(m, &probe, gpu, tun)?;
    Ok(mem.fits && mem.kv_tokens / context.max(1) >= batch)
}

/// Seconds as milliseconds for a message: one decimal from 1 ms, else three significant digits
/// (a 1 µs TPOT target reads 0.00100 ms, not 0.0 ms).
fn ms_text(s: f64) -> String {
    let ms = s * 1e3;
    if !(ms > 0.0 && ms < 1.0) {
        return format!("{ms:.1}");
    }
    let decimals = (2.0 - ms.log10().floor()).clamp(1.0, 9.0) as usize;
    format!("{ms:.decimals$}")
}

/// Answer `q` for the setup: bisection over the context or the batch on the same estimators
/// `estimate` uses (memory is monotone in both; time per token grows with the batch).
pub fn solve(
    m: &ModelSpec,
    s: &InferenceSetup,
    gpu: &GpuSpec,
    tun: &Tunables,
    q: SolveFor,
) -> Result<Solved, CoreError> {
    s.validate()?;
    let t = m
        .transformer()
        .ok_or_else(|| CoreError::invalid("model", &m.name, "--solve needs a transformer"))?;
    let mut evals = 0u64;
    let ctx_limit = t.max_context.max(1);
    let context = s
        .max_model_len
        .unwrap_or(s.input_tokens.saturating_add(s.output_tokens))
        .clamp(1, ctx_limit);
    use crate::i18n::Msg;
    let none_fit = |what: Msg| Solved {
        question: q,
        context: 0,
        batch: 0,
        time_per_token: None,
        output_tokens_per_second: None,
        binding: "memory",
        explanation: what.into(),
        evaluations: 0,
    };
    let seq_cap = s
        .max_num_seqs
        .unwrap_or_else(|| engine_max_num_seqs(s.engine, gpu));
    let (context, batch, mut binding, mut why) = match q {
        SolveFor::MaxContext => {
            let batch = s.batch;
            let mut ok = |l| {
                evals += 1;
                holds(m, s, gpu, tun, l, batch)
            };
            if !ok(1)? {
                return Ok(none_fit(Msg::new("solve-why-no-pool").arg("batch", batch)));
            }
            let best = bisect_max(1, ctx_limit, ok)?;
            if best == ctx_limit {
                (
                    best,
                    batch,
                    "model_context",
                    Msg::new("solve-why-model-context").arg("limit", ctx_limit),
                )
            } else {
                (
                    best,
                    batch,
                    "kv_pool",
                    Msg::new("solve-why-kv-context")
                        .arg("batch", batch)
                        .arg("tokens", best + 1),
                )
            }
        }
        SolveFor::MaxBatch | SolveFor::MaxThroughput { .. } => {
            let mut ok = |b| {
                evals += 1;
                holds(m, s, gpu, tun, context, b)
            };
            if !ok(1)? {
                return Ok(none_fit(
                    Msg::new("solve-why-one-too-long").arg("context", context),
                ));
            }
            let hi = if s.engine == Engine::Static {
                crate::workload::MAX_BATCH
            } else {
                seq_cap
            };
            let best = bisect_max(1, hi, ok)?;
            if best == seq_cap && s.engine != Engine::Static {
                (
                    context,
                    best,
                    "max_num_seqs",
                    Msg::new("solve-why-max-num-seqs").arg("cap", seq_cap),
                )
            } else {
                (
                    context,
                    best,
                    "kv_pool",
                    Msg::new("solve-why-kv-batch")
                        .arg("n", best + 1)
                        .arg("context", context),
                )
            }
        }
    };
    let probe = |b: u64| InferenceSetup {
        max_model_len: Some(context),
        batch: b,
        input_tokens: s.input_tokens.min(context),
        output_tokens: context.saturating_sub(s.input_tokens.min(context)).max(1),
        ..s.clone()
    };
    let mut batch = batch;
    if let SolveFor::MaxThroughput { tpot_s } = q {
        let tpot = |b: u64| latency(m, &probe(b), gpu, tun).map(|l| l.time_per_token.0);
        evals += 1;
        if tpot(1)? > tpot_s {
            let mut out = none_fit(
                Msg::new("solve-why-tpot-one")
                    .arg("ms", ms_text(tpot(1)?))
                    .arg("target", ms_text(tpot_s)),
            );
            out.binding = "tpot_target";
            out.evaluations = evals;
            return Ok(out);
        }
        if tpot(batch)? > tpot_s {
            batch = bisect_max(1, batch, |b| {
                evals += 1;
                Ok(tpot(b)? <= tpot_s)
            })?;
            binding = "tpot_target";
            why = Msg::new("solve-why-tpot")
                .arg("n", batch + 1)
                .arg("target", format!("{:.1}", tpot_s * 1e3));
        }
    }
    let lat = latency(m, &probe(batch), gpu, tun).ok();
    Ok(Solved {
        question: q,
        context,
        batch,
        time_per_token: lat.as_ref().map(|l| l.time_per_token),
        output_tokens_per_second: lat.as_ref().map(|l| l.decode_tokens_per_second),
        binding,
        explanation: why.into(),
        evaluations: evals,
    })
}

/// What one request to a speech-recognition encoder-decoder (Whisper: a fixed-length audio
/// encoder) is: a window of audio the encoder always runs in full, a decoder prompt of special
/// tokens, and the transcript's tokens.
#[derive(Clone, Copy, Debug, PartialEq, Serialize)]
pub struct AsrRequest {
    /// Seconds of audio per request: the encoder's positions × 20 ms. openai/whisper
    /// `whisper/audio.py`: `HOP_LENGTH = 160` at `SAMPLE_RATE = 16000` (10 ms per mel frame),
    /// `N_SAMPLES_PER_TOKEN = HOP_LENGTH * 2` ("the initial convolutions has stride 2"), so
    /// 1500 positions = `CHUNK_LENGTH = 30` s.
    pub audio_seconds: f64,
    /// Encoder positions run per request (1500).
    pub encoder_positions: u64,
    /// Decoder prompt: `<|startoftranscript|><|lang|><|transcribe|><|notimestamps|>`, 4 tokens
    /// (openai/whisper `whisper/decoding.py` DecodingTask: `sot_sequence_including_notimestamps`;
    /// HF transformers `models/whisper/tokenization_whisper.py` `prefix_tokens`: bos, language,
    /// task, and `<|notimestamps|>` unless timestamps are predicted).
    pub prompt_tokens: u64,
    /// Default transcript tokens: the most one 30-s window decodes, `n_text_ctx // 2` (openai/whisper
    /// `whisper/decoding.py`: `self.sample_len = options.sample_len or model.dims.n_text_ctx // 2`;
    /// 224 for Whisper's 448-token decoder). An upper bound: real speech is usually shorter.
    pub default_output_tokens: u64,
}

/// Seconds of audio per encoder position (openai/whisper `whisper/audio.py`: 160-sample hop at
/// 16 kHz, conv stride 2: "20ms per audio token").
pub const ASR_SECONDS_PER_POSITION: f64 = 0.02;

/// The request of a speech-recognition model: an encoder-decoder whose encoder runs a fixed
/// number of positions (`TransformerSpec::encoder_positions`, set for Whisper only). None for
/// text models (T5's encoder runs the prompt's length).
pub fn asr_request(t: &TransformerSpec) -> Option<AsrRequest> {
    if !matches!(t.structure, Structure::EncoderDecoder { .. }) {
        return None;
    }
    let e = t.encoder_positions?;
    Some(AsrRequest {
        audio_seconds: e as f64 * ASR_SECONDS_PER_POSITION,
        encoder_positions: e,
        prompt_tokens: 4,
        default_output_tokens: (t.max_context / 2).max(1),
    })
}

#[cfg(test)]
mod train_tp_tests {
    use super::train_tp_splits_attention;
    use crate::model::presets::find_preset;

    fn spec(name: &str) -> crate::model::TransformerSpec {
        find_preset(name)
            .unwrap()
            .model
            .transformer()
            .unwrap()
            .clone()
    }

    /// Megatron-Core / torchtitan: TP divides the query and the KV heads; a stack that copies
    /// the KV heads needs only vLLM's divide-or-multiple rule; MLA counts the query heads only.
    #[test]
    fn training_tp_splits_whole_kv_heads() {
        let glm = spec("GLM-4-9B"); // 32 heads, 2 KV groups
        assert_eq!((glm.heads, glm.kv_heads), (32, 2));
        let ok: Vec<u64> = (1..=8)
            .filter(|tp| train_tp_splits_attention(&glm, *tp, false))
            .collect();
        assert_eq!(ok, [1, 2]);
        // Replicated: TP 4 and 8 keep each of the 2 KV heads whole on 2 and 4 ranks.
        let ok: Vec<u64> = (1..=8)
            .filter(|tp| train_tp_splits_attention(&glm, *tp, true))
            .collect();
        assert_eq!(ok, [1, 2, 4, 8]);
        let mut mqa = glm.clone();
        mqa.kv_heads = 1;
        assert!(!train_tp_splits_attention(&mqa, 4, false));
        assert!(train_tp_splits_attention(&mqa, 4, true));
        let v3 = spec("DeepSeek-V3");
        assert!(matches!(v3.attention, crate::model::AttentionKind::Mla(_)));
        assert!(train_tp_splits_attention(&v3, 8, false));
        assert!(!train_tp_splits_attention(&v3, 3, false));
    }
}

#[cfg(test)]
mod int4_group_tests {
    use crate::model::presets::{find_preset, presets};
    use crate::workload::{Engine, WeightFormat};

    /// vLLM's rule (the default engine): the group and Marlin's k tile.
    fn check_int4_group(
        m: &crate::model::ModelSpec,
        w: WeightFormat,
        tp: u64,
    ) -> Result<(), crate::error::CoreError> {
        super::check_int4_group(m, w, tp, Engine::Vllm)
    }

    fn check(name: &str, group: u64) -> Result<(), crate::error::CoreError> {
        check_int4_group(
            &find_preset(name).unwrap().model,
            WeightFormat::Int4 { group },
            1,
        )
    }

    /// Qwen2.5-7B: hidden 3584, down_proj 18944 = 2^8 × 74: 7 divides neither input; 128 and
    /// 512 divide both; its hidden is the per-channel label and is kept.
    #[test]
    fn a_group_must_divide_every_input_but_per_channel_is_kept() {
        let e = check("Qwen2.5-7B", 7).unwrap_err();
        assert_eq!(e.field(), Some("weights"));
        let en = e.message().render(crate::i18n::Lang::En);
        assert!(en.contains("18944") && en.contains("int4-g128"), "{en}");
        for g in [32, 64, 128, 512, 3584] {
            assert!(check("Qwen2.5-7B", g).is_ok(), "{g}");
        }
        // 3584 = 2^9 × 7 and 18944 = 2^8 × 74: 1024 divides neither.
        assert!(check("Qwen2.5-7B", 1024).is_err());
        // MLA's ranks are inputs too: DeepSeek-V3's kv_lora_rank 512 refuses group 1024.
        assert!(check("DeepSeek-V3", 128).is_ok());
        assert!(check("DeepSeek-V3", 1024).is_err());
        // Out of range is `WeightFormat::validate`'s error, naming `group` and the range.
        assert!(check("Qwen2.5-7B", 0).is_ok());
    }

    /// Under TP the row-parallel inputs are split (audit r16): Qwen2.5-72B's down_proj reads
    /// 29568 = 128 × 231, so group 128 loads at TP 1 only (14784 per rank at TP 2), naming `tp`.
    /// Marlin's k tile (128) refuses 14784 whatever the group (review r16 #2, the Qwen2.5-VL-72B
    /// AWQ TP 2 report): group 64 and the per-channel label (8192) load at TP 1 only too, and
    /// the TP 2 refusal suggests no other group. Llama-3.1-70B's 28672 = 128 × 224 loads at TP 8
    /// (3584 = 128 × 28 per rank), per-channel included.
    #[test]
    fn under_tp_each_ranks_slice_must_divide_into_groups_and_marlin_tiles() {
        let m = &find_preset("Qwen2.5-72B").unwrap().model;
        let g = |group, tp| check_int4_group(m, WeightFormat::Int4 { group }, tp);
        for group in [64, 128, 8192] {
            assert!(g(group, 1).is_ok(), "{group}");
            for tp in [2, 4, 8] {
                let e = g(group, tp).unwrap_err();
                assert_eq!(e.field(), Some("tp"), "{group} {tp}");
                let en = e.message().render(crate::i18n::Lang::En);
                assert!(en.contains("29568") && en.contains("use TP 1,"), "{en}");
                assert!(!en.contains("one of"), "no group loads at TP {tp}: {en}");
            }
        }
        let zh = g(128, 2)
            .unwrap_err()
            .message()
            .render(crate::i18n::Lang::Zh);
        assert!(zh.contains("14784") && zh.contains("128"), "{zh}");
        assert_eq!(g(7, 2).unwrap_err().field(), Some("weights"));
        let llama = &find_preset("Llama-3.1-70B").unwrap().model;
        for group in [32, 64, 128, 8192] {
            assert!(check_int4_group(llama, WeightFormat::Int4 { group }, 8).is_ok());
        }
    }

    /// Marlin's k tile binds at TP 1 too: a config whose dense FFN is 10944 wide
    /// (DeepSeek-Coder-V2-Lite, vllm-project/vllm#9913 on v0.6.3.post1) takes group 64 by the
    /// group rule (10944 = 64 × 171) but not Marlin's 128, so it is refused naming `weights`.
    #[test]
    fn marlin_k_tile_binds_at_tp_1() {
        let mut m = find_preset("Llama-3.1-8B").unwrap().model.clone();
        let crate::model::spec::Architecture::Transformer(t) = &mut m.architecture else {
            panic!("a transformer preset");
        };
        t.ffn = 10944;
        let e = check_int4_group(&m, WeightFormat::Int4 { group: 64 }, 1).unwrap_err();
        assert_eq!(e.field(), Some("weights"));
        let en = e.message().render(crate::i18n::Lang::En);
        assert!(
            en.contains("10944") && en.contains("min_thread_k = 128"),
            "{en}"
        );
    }

    /// AWQ/GPTQ's usual group 128 divides every preset's linear inputs, so the plan search,
    /// which drops a format [`super::check_format_on_model`] refuses, still offers int4-g128
    /// on every preset (a config.json with, say, a 29568-wide FFN at group 256 would not).
    #[test]
    fn every_preset_takes_group_128() {
        let bad: Vec<&str> = presets()
            .unwrap()
            .iter()
            .filter(|p| check_int4_group(&p.model, WeightFormat::Int4 { group: 128 }, 1).is_err())
            .map(|p| p.model.name.as_str())
            .collect();
        assert!(bad.is_empty(), "{bad:?}");
    }
}
