//! Inference estimates: weights by format, KV cache, the serving engine's KV pool (sized the way
//! vLLM sizes it), concurrency, and prefill/decode latency from a roofline.
//!
//! Sources: KV bytes per token (HF blog llama31.md; DeepSeek-V2 paper §2.1 for MLA); vLLM's
//! `kv = util × total − peak_torch − non_torch` (vLLM issue #10517 logs, `gpu_worker.py`
//! `determine_available_memory`); decode as bandwidth-bound until the ridge point (kipply's
//! inference arithmetic, llm-analysis); see docs/methodology.md §Inference.

use crate::constants::Tunables;
use crate::error::CoreError;
use crate::hardware::{ComputeDtype, GpuSpec};
use crate::model::{param_breakdown, AttentionKind, MlpKind, ModelSpec, TransformerSpec};
use crate::units::{compute_time, transfer_time, Bytes, FlopRate, Flops, Seconds};
use crate::workload::{InferenceSetup, WeightFormat};
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
pub fn weight_bytes(m: &ModelSpec, format: WeightFormat, tp: u64) -> Bytes {
    let b = param_breakdown(m);
    let linears = b.linear_params() as f64;
    let rest = b.total as f64 - linears;
    let bits = format.bits();
    let rest_bits = if format.keeps_embeddings_16bit() {
        16.0
    } else {
        bits
    };
    Bytes((linears * bits + rest * rest_bits) / 8.0 / tp as f64)
}

/// Peak activation of the serving engine's profiling forward pass over `tokens` tokens: at the
/// MLP the live tensors are the gate‖up output (2·2f), the activation output (2f) and about three
/// hidden-size buffers (residual, normed input, output: 6h). For Llama-3.1-8B this gives 110.6 KB
/// per token against the 109.8 KB per token between the 20k and 29k vLLM logs (cases
/// vllm-llama31-8b-rtx3090-*).
pub fn activation_peak(t: &TransformerSpec, tokens: u64, tp: u64) -> Bytes {
    let f = t.ffn_for_activation() as f64 / tp as f64;
    let h = t.hidden as f64;
    let mlp = match t.mlp {
        MlpKind::Gated => 6.0 * f,
        MlpKind::Plain => 4.0 * f,
    };
    let attn = 2.0 * (t.q_width() + 2 * t.kv_width()) as f64 / tp as f64;
    Bytes(tokens as f64 * (mlp.max(attn) + 6.0 * h))
}

#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct ServingMemory {
    pub weights: Bytes,
    pub activation_peak: Bytes,
    pub non_torch: Bytes,
    pub cudagraph: Bytes,
    /// util × visible total.
    pub budget: Bytes,
    /// Never negative: when the rest does not fit, 0 and the shortfall below.
    pub kv_pool: Bytes,
    /// How far weights + activations + runtime exceed the budget (0 when they fit).
    pub kv_shortfall: Bytes,
    pub kv_per_token: KvPerToken,
    pub blocks: u64,
    pub kv_tokens: u64,
    pub max_model_len: u64,
    /// vLLM's "Maximum concurrency for max_model_len tokens per request".
    pub max_concurrency_at_max_len: f64,
    /// Sequences of `input + output` tokens that fit at once.
    pub max_concurrent_requests: u64,
    /// Longest context one sequence can have at the requested batch.
    pub max_context_at_batch: u64,
    /// Whether the engine would start (vLLM refuses when max_model_len > kv_tokens).
    pub fits: bool,
    pub problem: Option<String>,
}

/// Size the KV pool the way vLLM does (see module docs).
pub fn serving_memory(
    m: &ModelSpec,
    s: &InferenceSetup,
    gpu: &GpuSpec,
    tun: &Tunables,
) -> Result<ServingMemory, CoreError> {
    s.validate()?;
    let t = m.transformer().ok_or_else(|| {
        CoreError::invalid(
            "model",
            &m.name,
            "KV-cache sizing needs a transformer; this model is given by totals",
        )
    })?;
    if !t.heads.is_multiple_of(s.tp) {
        return Err(CoreError::invalid_msg(
            "tp",
            s.tp,
            crate::i18n::Msg::new("fix-tp-divides-heads-serve").arg("heads", t.heads),
        ));
    }
    // Default: what the workload needs (prompt + output, rounded up to whole KV blocks), not the
    // model's full context, whose profile pass would silently eat a large share of the pool.
    let max_model_len = s.max_model_len.unwrap_or_else(|| {
        (s.input_tokens.saturating_add(s.output_tokens))
            .div_ceil(s.block_size.max(1))
            .saturating_mul(s.block_size.max(1))
            .clamp(1, t.max_context.max(1))
    });
    let profile_tokens = s.max_num_batched_tokens.unwrap_or(max_model_len);
    let weights = weight_bytes(m, s.weights, s.tp);
    let act = activation_peak(t, profile_tokens, s.tp);
    let nccl = if s.tp > 1 { tun.nccl_buffers_gib } else { 0.0 };
    let non_torch = Bytes::from_gib(tun.vllm_non_torch_gib + nccl);
    let cudagraph = Bytes::from_gib(tun.vllm_cudagraph_gib);
    let visible = gpu.visible_memory().ok_or_else(|| {
        CoreError::invalid(
            "gpu",
            &gpu.id,
            "no sourced memory size for this chip; add memory_gib in a user catalog",
        )
    })?;
    let budget = visible * s.gpu_memory_utilization;
    let kv_pool = budget - weights - act - non_torch - cudagraph;
    let kv = kv_per_token(t, s.kv_dtype.bytes(), s.tp);
    let block_bytes = kv.per_device.0 * s.block_size as f64;
    let blocks = if kv_pool.0 > 0.0 {
        (kv_pool.0 / block_bytes).floor() as u64
    } else {
        0
    };
    let kv_tokens = blocks * s.block_size;
    let per_request = s.input_tokens + s.output_tokens;
    let problem = if kv_pool.0 <= 0.0 {
        Some(format!(
            "weights ({weights}) + activation peak ({act}) + runtime ({non_torch}) exceed {:.0}% of the GPU ({}): use more GPUs (tp), a quantised format, or a shorter max_model_len",
            s.gpu_memory_utilization * 100.0,
            visible
        ))
    } else if kv_tokens < max_model_len {
        Some(format!("KV pool holds {kv_tokens} tokens, fewer than max_model_len {max_model_len}: vLLM refuses to start; lower max_model_len or add memory"))
    } else {
        None
    };
    Ok(ServingMemory {
        weights,
        activation_peak: act,
        non_torch,
        cudagraph,
        budget,
        kv_pool: Bytes(kv_pool.0.max(0.0)),
        kv_shortfall: Bytes((-kv_pool.0).max(0.0)),
        kv_per_token: kv,
        blocks,
        kv_tokens,
        max_model_len,
        max_concurrency_at_max_len: kv_tokens as f64 / max_model_len as f64,
        max_concurrent_requests: kv_tokens / per_request.max(1),
        max_context_at_batch: kv_tokens / s.batch,
        fits: problem.is_none(),
        problem,
    })
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

fn compute_dtype(format: WeightFormat) -> ComputeDtype {
    match format {
        WeightFormat::Fp32 => ComputeDtype::Tf32,
        WeightFormat::Fp8 => ComputeDtype::Fp8,
        _ => ComputeDtype::Bf16,
    }
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
    let routed = param_breakdown(m).expert_params() as f64 * format.bits() / 8.0 / tp as f64;
    let share = experts_touched(moe.experts, moe.experts_per_token, tokens) / moe.experts as f64;
    (full - routed).max(0.0) + routed * share
}

/// Latency of one all-reduce of a small message among `tp` GPUs of one node: one-shot
/// (vLLM/TRT-LLM custom all-reduce) on NVLink-class links; a ring of 2(tp−1) steps over PCIe,
/// each step costing `tp_allreduce_latency_s`.
pub fn allreduce_latency(gpu: &GpuSpec, tp: u64, tun: &Tunables) -> f64 {
    if tp <= 1 {
        0.0
    } else if gpu.intra_link.is_nvlink_class() {
        tun.tp_allreduce_latency_s
    } else {
        tun.tp_allreduce_latency_s * 2.0 * (tp - 1) as f64
    }
}

/// Share of the nominal peak a format's GEMMs reach relative to bf16: FP8 reaches a smaller
/// fraction of its (twice as high) peak — the same `fp8_efficiency_ratio` training uses.
fn dtype_derate(format: WeightFormat, tun: &Tunables) -> f64 {
    if compute_dtype(format) == ComputeDtype::Fp8 {
        tun.fp8_efficiency_ratio
    } else {
        1.0
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
    let peak = gpu
        .peak(compute_dtype(s.weights))
        .or_else(|| gpu.peak_half())
        .ok_or_else(|| {
            CoreError::invalid(
                "gpu",
                &gpu.id,
                "no sourced peak FLOP/s; latency cannot be estimated",
            )
        })?;
    let bw = gpu.memory_bandwidth().ok_or_else(|| {
        CoreError::invalid(
            "gpu",
            &gpu.id,
            "no sourced memory bandwidth; decode latency cannot be estimated",
        )
    })?;
    let b = param_breakdown(m);
    let linear_active = b.active_linear_params() as f64;
    let head = (t.vocab * t.hidden) as f64;
    let tp = s.tp as f64;
    let layers = t.decoder_layers() as f64;
    let n = s.input_tokens as f64;
    // Prefill: 2·N per token over the prompt + causal attention (½ of 4·L·n²·q_width).
    let prefill_flops =
        2.0 * linear_active * n + 2.0 * head + 2.0 * layers * n * n * t.q_width() as f64;
    let comm_lat = Seconds(allreduce_latency(gpu, s.tp, tun) * 2.0 * layers);
    // TP in prefill: 2 all-reduces per layer of n·h 16-bit activations over the intra-node link.
    let prefill_comm = |tokens: f64| match gpu.intra_link_bandwidth() {
        Some(bw) if s.tp > 1 => {
            let bytes = 2.0 * (tp - 1.0) / tp * tokens * t.hidden as f64 * 2.0;
            transfer_time(Bytes(bytes), bw * tun.collective_efficiency) * (2.0 * layers)
        }
        _ => Seconds(0.0),
    };
    let eff = tun.prefill_efficiency * dtype_derate(s.weights, tun);
    let full_weights = weight_bytes(m, s.weights, s.tp).0;
    // A prefill reads every weight it touches at least once: its floor, plus the engine's fixed
    // per-step overhead (scheduling, sampling, launches; no CUDA graph for prefill).
    let prefill_time = |tokens: f64| {
        let floor = transfer_time(
            Bytes(weights_read(m, full_weights, s.weights, s.tp, tokens)),
            bw * tun.decode_bandwidth_efficiency,
        );
        compute_time(Flops(prefill_flops * tokens / n.max(1.0) / tp), peak * eff).max(floor)
            + Seconds(tun.engine_prefill_overhead_s)
            + comm_lat
            + prefill_comm(tokens)
    };
    let ttft = prefill_time(n);
    let batch_prefill = prefill_time(n * s.batch as f64);
    // Decode: read the active weights once per step plus each sequence's KV, or compute 2·N·B.
    let batch = s.batch as f64;
    let ctx = (s.input_tokens + s.output_tokens / 2) as f64;
    let kv = kv_per_token(t, s.kv_dtype.bytes(), s.tp);
    // MoE: a decode step at batch B reads the experts its B tokens route to, not only k.
    let step_weight_bytes = weights_read(m, full_weights, s.weights, s.tp, batch);
    let read = Bytes(step_weight_bytes + batch * ctx * kv.per_device.0);
    let t_mem = transfer_time(read, bw * tun.decode_bandwidth_efficiency);
    let t_cmp = compute_time(Flops(2.0 * (linear_active + head) * batch / tp), peak * eff);
    let per_token = t_mem.max(t_cmp) + comm_lat;
    Ok(Latency {
        ttft,
        batch_prefill,
        time_per_token: per_token,
        decode_tokens_per_second: batch / per_token.0,
        decode_bandwidth_bound: t_mem.0 >= t_cmp.0,
        ridge_batch: peak.0 / bw.0 * (s.weights.bits() / 8.0) / 2.0,
        peak,
    })
}
