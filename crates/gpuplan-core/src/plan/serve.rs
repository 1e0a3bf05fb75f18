//! Serving search: per instance type, weight format and TP degree, the largest decode batch that
//! meets the latency targets and fits the KV pool; then replicas for the request rate, cost per
//! month and per million tokens.

use super::load::{PrefillMixing, Replica, ServeLoad};
use super::money::{costs, HOURS_PER_MONTH};
use super::{instance_cluster, Binding, Plan, PlanRequest, ServeDetail, ServeJob};
use crate::catalog::{Catalog, Instance};
use crate::error::CoreError;
use crate::hardware::{ComputeDtype, GpuSpec};
use crate::infer::{latency, serving_memory, vllm_default_batched_tokens, weight_bytes};
use crate::model::{param_breakdown, Architecture, Structure};
use crate::units::{compute_time, transfer_time, Bytes, Flops, Seconds};
use crate::workload::{Engine, InferenceSetup, WeightFormat};

/// vLLM's default `max_num_seqs` on most GPUs (and the cap used for the other engines).
pub const MAX_NUM_SEQS: u64 = 256;

/// Most sequences the engine schedules at once by default (see
/// [`crate::infer::engine_max_num_seqs`]).
pub fn max_num_seqs(engine: Engine, gpu: &GpuSpec) -> u64 {
    crate::infer::engine_max_num_seqs(engine, gpu)
}

/// Weight formats to size on this chip. 16-bit weights are fp16 on chips without bf16 (Turing,
/// Volta: vLLM casts bf16 checkpoints to fp16 there, same bytes); FP8 only where the chip has it
/// (data/gpus.toml `dtypes`). Weight-only int4 (GPTQ/AWQ) is a decoder-LLM technique: encoders
/// (BERT), speech and encoder-decoder models (Whisper, T5) and CNNs are not offered it unless the
/// user asks for it with `--weights`.
fn formats(job: &ServeJob, gpu: &GpuSpec, model: &crate::model::ModelSpec) -> Vec<WeightFormat> {
    let half = |f: WeightFormat| match f {
        WeightFormat::Bf16 if !gpu.supports(ComputeDtype::Bf16) => WeightFormat::Fp16,
        f => f,
    };
    if !job.weights.is_empty() {
        // A format the engine does not load on the chip is not sized: FP8 on Ascend 910B or
        // before Ampere (audit r12 #7), MXFP4 without its kernels (review r12 #4).
        return job
            .weights
            .iter()
            .filter(|f| crate::infer::model_format_runs(model, job.engine, **f, gpu))
            // `--weights awq`: AWQ's int4 only where vLLM/SGLang load AWQ (audit r20 #2).
            .filter(|f| !job.awq || crate::infer::named_awq_runs(job.engine, **f, gpu))
            // MXFP4 on a model without routed experts would be 16-bit under its name (review r12 #2).
            .filter(|f| crate::infer::check_format_on_model(model, **f, job.engine).is_ok())
            .map(|f| half(*f))
            .collect();
    }
    let llm = model
        .transformer()
        .is_some_and(|t| t.structure == Structure::DecoderOnly);
    let mut v = vec![half(WeightFormat::Bf16)];
    if gpu.supports(ComputeDtype::Fp8) {
        v.push(WeightFormat::Fp8);
    }
    v.push(WeightFormat::Int8);
    // Int4 only where the engine has an int4 kernel for the chip (audit r18 #1: a V100 was
    // offered TensorRT-LLM's and the static engine's int4, which have no kernel below 7.5 / 8.0).
    let int4 = WeightFormat::Int4 { group: 128 };
    if llm && crate::infer::model_format_runs(model, job.engine, int4, gpu) {
        v.push(int4);
    }
    match crate::infer::native_format(model) {
        // An AWQ checkpoint's stored int4 only where vLLM/SGLang load AWQ (audit r19 #1).
        Some(n) => shipped_formats(v, n, job.engine, gpu)
            .into_iter()
            .filter(|f| crate::infer::model_format_runs(model, job.engine, *f, gpu))
            .collect(),
        None => v,
    }
}

/// The formats a checkpoint stored in `native` is offered in: as stored where the engine runs
/// it on the chip ([`crate::infer::format_runs`]: gpt-oss's MXFP4 on vLLM from Ampere), 16-bit
/// (dequantized), and the formats with fewer bits than the stored one. A format with more bits
/// than the checkpoint and fewer than 16 would be a lossy copy larger than what ships (FP8 or
/// int8 of an MXFP4 checkpoint), and is not offered.
fn shipped_formats(
    v: Vec<WeightFormat>,
    native: WeightFormat,
    engine: crate::workload::Engine,
    gpu: &GpuSpec,
) -> Vec<WeightFormat> {
    let mut v: Vec<WeightFormat> = v
        .into_iter()
        .filter(|f| f.bits() >= 16.0 || f.bits() <= native.bits())
        .collect();
    // FP8 is in `v` where the chip has FP8 units; the stored format is added where the engine
    // loads it (FP8 as W8A16 through FP8 Marlin on Ampere, review r12 #3).
    if !v.contains(&native) && crate::infer::format_runs(engine, native, gpu) {
        v.insert(1, native);
    }
    v
}

/// Replicas for the rate (without headroom) and for the plan (peak headroom and availability).
fn replica_counts(job: &ServeJob, rps_per_replica: f64, batch: u64) -> (u64, u64) {
    let for_load = |factor: f64| -> u64 {
        let need = match (job.rate_rps, job.concurrency) {
            (Some(r), _) => r * factor / rps_per_replica,
            (None, Some(k)) => (k as f64 * factor / batch.max(1) as f64).ceil(),
            (None, None) => 1.0,
        };
        // Bounded: the caller rejects more replicas than the node limit allows.
        need.ceil().clamp(1.0, u32::MAX as f64) as u64
    };
    let base = for_load(1.0);
    (base, for_load(job.peak_factor).max(job.min_replicas.max(1)))
}

struct Sized {
    weights: WeightFormat,
    tp: u64,
    batch: u64,
    /// The most requests per second one replica takes with its loaded TPOT and TTFT within the
    /// targets (its capacity when no target binds).
    rps: f64,
    memory: crate::infer::ServingMemory,
    latency: crate::infer::Latency,
    /// The replica's timings for the loaded figures (decoders only).
    replica: Option<Replica>,
    /// The engine setup the replica was timed with (decoders only), to time a closed load's
    /// smaller running batch.
    setup: Option<InferenceSetup>,
}

/// Whether the job states a closed load (`--concurrency` without `--rate`).
fn closed_load(job: &ServeJob) -> Option<f64> {
    job.rate_rps
        .is_none()
        .then_some(job.concurrency)
        .flatten()
        .map(|c| c as f64)
}

/// Requests per second one replica at its batch carries within the targets. Open load (`--rate`):
/// the highest Poisson rate whose loaded TPOT and TTFT meet them ([`Replica::max_rate`]). Closed
/// load (`--concurrency`): the rate its requests in flight complete (Little's law,
/// [`Replica::closed`]), with the targets checked at the load that really runs — the peak
/// concurrency over the replicas these slots need ([`closed_in_flight`]), not the full slots
/// (review r7 #8) —; 0 when their TPOT or TTFT misses.
fn replica_rate(job: &ServeJob, r: &Replica) -> f64 {
    let Some(k) = closed_load(job) else {
        return r.max_rate(job.tpot_s, job.ttft_s);
    };
    r.closed(closed_in_flight(job, k, r.batch), r.batch, r.capacity())
        .filter(|l| {
            job.tpot_s.is_none_or(|t| l.time_per_token.0 <= t)
                && job.ttft_s.is_none_or(|t| l.ttft.0 <= t)
        })
        .map_or(0.0, |l| l.rate_rps)
}

/// Replicas a closed load of `concurrency` (before the peak factor) needs at `slots` each: the
/// peak concurrency over the slots, at least `--min-replicas` ([`replica_counts`]' rule).
fn closed_replicas(job: &ServeJob, concurrency: f64, slots: u64) -> u64 {
    let need = (concurrency * job.peak_factor / slots.max(1) as f64).ceil();
    (need.clamp(1.0, u32::MAX as f64) as u64).max(job.min_replicas.max(1))
}

/// Requests each replica holds under a closed load: the peak concurrency C·peak over the R
/// replicas `slots` need, min(C·peak/R, slots) — at most the slots, since R ≥ C·peak/slots.
fn closed_in_flight(job: &ServeJob, concurrency: f64, slots: u64) -> f64 {
    let r = closed_replicas(job, concurrency, slots) as f64;
    (concurrency * job.peak_factor / r).min(slots.max(1) as f64)
}

/// The batch a closed load runs when each replica may hold up to `slots`: ⌈C·peak/R⌉ — fewer
/// slots than that give more replicas, more give nothing (no more requests exist).
fn closed_running(job: &ServeJob, concurrency: f64, slots: u64) -> u64 {
    let n = closed_in_flight(job, concurrency, slots).ceil() as u64;
    n.clamp(1, slots.max(1))
}

/// The decode batch of a closed load (review r7 #8; until then the batch with the most requests
/// per second at full slots, which `--concurrency 1 --tpot 0.02` set at 7 slots while 0.6
/// requests per replica ran). Each replica runs n(b) = [`closed_running`] of b allowed slots;
/// n(b) and the requests in flight never fall as b grows (fewer replicas), so whether the targets
/// hold is a prefix of 1..=cap: bisect for its largest b (at most ⌈C·peak / --min-replicas⌉,
/// past which nothing changes), then the replica runs n(b) — the fewest replicas, each sized at
/// the batch it runs. None when even one request per replica misses the targets.
fn closed_batch(
    job: &ServeJob,
    concurrency: f64,
    cap: u64,
    try_batch: &mut impl FnMut(u64) -> Result<Option<Sized>, CoreError>,
) -> Result<Option<Sized>, CoreError> {
    let most = (concurrency * job.peak_factor / job.min_replicas.max(1) as f64).ceil();
    let hi_bound = cap.min(most.clamp(1.0, u32::MAX as f64) as u64).max(1);
    let mut at = |b: u64| try_batch(closed_running(job, concurrency, b));
    // `best` is always the result at `lo`, the largest batch known to hold the targets.
    let Some(mut best) = at(1)? else {
        return Ok(None);
    };
    let (mut lo, mut hi) = (1, hi_bound);
    while lo < hi {
        let mid = lo + (hi - lo).div_ceil(2);
        match at(mid)? {
            Some(s) => (lo, best) = (mid, s),
            None => hi = mid - 1,
        }
    }
    Ok(Some(best))
}

/// A closed load of `concurrency` requests over `replicas`: each replica holds C/R of them,
/// running min(C/R, slots) at once, its decode step timed at that batch (not at the slots).
fn closed_replica_load(
    req: &PlanRequest,
    gpu: &GpuSpec,
    s: &Sized,
    replicas: u64,
    concurrency: f64,
) -> Option<ServeLoad> {
    let (setup, full) = (s.setup.as_ref()?, s.replica?);
    let in_flight = concurrency / replicas.max(1) as f64;
    let n = (in_flight.ceil() as u64).clamp(1, s.batch.max(1));
    let at = InferenceSetup {
        batch: n,
        ..setup.clone()
    };
    let l = latency(&req.model, &at, gpu, &req.tunables).ok()?;
    let r = Replica {
        prefill: l.ttft.0,
        step: l.time_per_token.0,
        batch: n,
        ..full
    };
    r.closed(in_flight, s.batch, full.capacity())
}

/// One request on a decoder replica of `tp` GPUs in format `fmt`, with the engine's own
/// defaults (profile tokens, memory fraction), as `estimate` uses them.
fn decoder_setup(job: &ServeJob, fmt: WeightFormat, tp: u64) -> InferenceSetup {
    InferenceSetup {
        weights: fmt,
        kv_dtype: job.kv_dtype,
        tp,
        engine: job.engine,
        gpu_memory_utilization: job.gpu_memory_utilization,
        max_model_len: Some(job.input_tokens + job.output_tokens),
        batch: 1,
        input_tokens: job.input_tokens,
        output_tokens: job.output_tokens,
        ..InferenceSetup::default()
    }
}

/// The fastest first token and the fastest output token any candidate's replica reaches at batch
/// 1 with the model in memory, each with where (`a100-80g int4-g128 TP 4`): the figures a refusal
/// for latency gives (audit r9 #24). None for models without a decoder or when nothing fits.
fn best_latency(
    req: &PlanRequest,
    job: &ServeJob,
    cands: &[(&Instance, &GpuSpec)],
) -> Option<((f64, String), (f64, String))> {
    let t = req.model.transformer()?;
    let mut best: Option<((f64, String), (f64, String))> = None;
    for &(inst, gpu) in cands {
        for fmt in formats(job, gpu, &req.model) {
            for tp in [1, 2, 4, 8] {
                if tp as f64 > inst.gpu_count.round() || !crate::infer::tp_splits_attention(t, tp) {
                    continue;
                }
                let s = decoder_setup(job, fmt, tp);
                let fits = serving_memory(&req.model, &s, gpu, &req.tunables).is_ok_and(|m| m.fits);
                let Some(l) = fits
                    .then(|| latency(&req.model, &s, gpu, &req.tunables).ok())
                    .flatten()
                else {
                    continue;
                };
                let at = format!("{} {} TP {tp}", gpu.id, fmt.name());
                let b = best.get_or_insert((
                    (f64::INFINITY, String::new()),
                    (f64::INFINITY, String::new()),
                ));
                if l.ttft.0 < b.0 .0 {
                    b.0 = (l.ttft.0, at.clone());
                }
                if l.time_per_token.0 < b.1 .0 {
                    b.1 = (l.time_per_token.0, at);
                }
            }
        }
    }
    best
}

/// Autoregressive transformer on one replica of `tp` GPUs.
fn size_decoder(
    req: &PlanRequest,
    job: &ServeJob,
    gpu: &GpuSpec,
    fmt: WeightFormat,
    tp: u64,
    evaluated: &mut u64,
) -> Result<Option<Sized>, CoreError> {
    let tun = &req.tunables;
    if !crate::infer::engine_runs_on(job.engine, gpu) {
        return Ok(None);
    }
    let base = decoder_setup(job, fmt, tp);
    *evaluated += 1;
    let mem = serving_memory(&req.model, &base, gpu, tun)?;
    if !mem.fits {
        return Ok(None);
    }
    let cap = if job.engine == Engine::Static {
        MAX_NUM_SEQS
    } else {
        mem.max_concurrent_requests
            .min(max_num_seqs(job.engine, gpu))
    };
    if cap == 0 {
        return Ok(None);
    }
    let first = latency(&req.model, &base, gpu, tun)?;
    if job.ttft_s.is_some_and(|t| first.ttft.0 > t) {
        return Ok(None);
    }
    // One batch size: None when it misses the TPOT target (or, static cache, memory).
    let mut try_batch = |b: u64| -> Result<Option<Sized>, CoreError> {
        *evaluated += 1;
        let s = InferenceSetup {
            batch: b,
            ..base.clone()
        };
        // A static cache is sized for the batch: each batch is its own memory check.
        let mem_b = if job.engine == Engine::Static {
            let m = serving_memory(&req.model, &s, gpu, tun)?;
            if !m.fits {
                return Ok(None);
            }
            m
        } else {
            mem.clone()
        };
        let l = latency(&req.model, &s, gpu, tun)?;
        let replica = Replica {
            prefill: l.ttft.0,
            step: l.time_per_token.0,
            input: job.input_tokens,
            output: job.output_tokens,
            batch: b,
            mixing: PrefillMixing::of(job.engine, vllm_default_batched_tokens(gpu)),
        };
        let rps = replica_rate(job, &replica);
        Ok((rps > 0.0).then_some(Sized {
            weights: fmt,
            tp,
            batch: b,
            rps,
            memory: mem_b,
            latency: l,
            replica: Some(replica),
            setup: Some(s),
        }))
    };
    match closed_load(job) {
        Some(k) => closed_batch(job, k, cap, &mut try_batch),
        None => best_batch(cap, &mut try_batch),
    }
}

/// The batch whose replica takes the most requests per second within the targets: the peak of
/// [`peak_batch`], since that rate rises with the batch while the slots limit it (the capacity
/// grows with b; without a TTFT target, the slot-wait share) and falls once the decode step does
/// (the TPOT bound and the first-token service grow with the batch's step).
fn best_batch(
    cap: u64,
    try_batch: &mut impl FnMut(u64) -> Result<Option<Sized>, CoreError>,
) -> Result<Option<Sized>, CoreError> {
    peak_batch(cap, try_batch, |s| s.rps)
}

/// Requests per second each replica carries at the peak (`peak_factor` × the stated rate over
/// the replicas), at most `max_rps`; `max_rps` itself when the job states no rate.
fn load_rate(job: &ServeJob, max_rps: f64, replicas: u64) -> f64 {
    job.rate_rps
        .map_or(max_rps, |r| r * job.peak_factor / replicas.max(1) as f64)
        .min(max_rps)
}

/// The batch in 1..=cap where `rate` (0 for a refused batch) peaks, for a rate that rises and then
/// falls with the batch: bisection on "the next batch takes more" (true below the peak, false
/// from it on), two tries per halving; the batch it ends on was tried in the last step and is not
/// tried again. A refused batch (TPOT, first-token service or a static cache's memory, which only
/// get harder with the batch) counts as rate 0 and so lies past the peak. A rate that is flat or
/// dips between batches (⌈input / (budget − b)⌉ riding steps stepping up) may stop the bisection
/// at a local peak. Until 2026-12 the search found the largest batch at which the rate was the
/// capacity and compared it with the next one; with the wait for a slot in the TTFT the rate
/// never reaches the capacity, so that test no longer marks the rising side.
fn peak_batch<T>(
    cap: u64,
    try_batch: &mut impl FnMut(u64) -> Result<Option<T>, CoreError>,
    rate: impl Fn(&T) -> f64,
) -> Result<Option<T>, CoreError> {
    let rate_of = |s: &Option<T>| s.as_ref().map_or(0.0, &rate);
    let (mut lo, mut hi) = (1, cap.max(1));
    // The result at the bound that moved last: the answer when the bisection ends on it.
    let mut kept = None;
    while lo < hi {
        let mid = lo + (hi - lo) / 2;
        let (at_mid, at_next) = (try_batch(mid)?, try_batch(mid + 1)?);
        if rate_of(&at_mid) < rate_of(&at_next) {
            lo = mid + 1;
            kept = Some((lo, at_next));
        } else {
            hi = mid;
            kept = Some((hi, at_mid));
        }
    }
    match kept {
        Some((b, s)) if b == lo => Ok(s),
        _ => try_batch(lo),
    }
}

/// Encoder-only transformers (BERT) and opaque models: one forward per request, batched.
fn size_encoder(
    req: &PlanRequest,
    job: &ServeJob,
    gpu: &GpuSpec,
    fmt: WeightFormat,
    evaluated: &mut u64,
) -> Option<(u64, f64, Seconds, Bytes)> {
    let tun = &req.tunables;
    // Weight-only int8 computes at the 16-bit peak (until r7 it took the int8 peak: an SDXL
    // UNet on a T4 ran at 84.5 TFLOP/s, above the card's 65 TFLOP/s fp16).
    let peak = gpu
        .peak(crate::infer::compute_dtype(fmt))
        .or_else(|| gpu.peak_half())?;
    let bw = gpu.memory_bandwidth()?;
    let (flops_per_req, wbytes) = match &req.model.architecture {
        Architecture::Opaque(o) => (
            o.forward_flops_per_sample * samples_per_request(o, job),
            Bytes(o.params as f64 * fmt.bits() / 8.0),
        ),
        Architecture::Transformer(t) => {
            let n = param_breakdown(&req.model).active as f64;
            let s = job.input_tokens as f64;
            (
                2.0 * n * s + 4.0 * (t.layers as f64) * s * s * t.q_width() as f64,
                weight_bytes(&req.model, fmt, 1),
            )
        }
    };
    if !flops_per_req.is_finite() {
        return None;
    }
    let mem = gpu.visible_memory()?;
    if wbytes.0 > mem.0 * job.gpu_memory_utilization {
        return None;
    }
    let time = |b: u64| {
        compute_time(
            Flops(flops_per_req * b as f64),
            peak * tun.prefill_efficiency,
        )
        .max(transfer_time(wbytes, bw * tun.decode_bandwidth_efficiency))
    };
    // Without --ttft: 100 ms, or a request's own time alone where that is longer (an image's
    // denoising loop): batching may not make a request slower than it is by itself.
    let target = job.ttft_s.unwrap_or(time(1).0.max(0.1));
    let mut best = None;
    let mut b = 1u64;
    while b <= 512 {
        *evaluated += 1;
        let t = time(b);
        if t.0 > target {
            break;
        }
        best = Some((b, b as f64 / t.0, t, wbytes));
        b *= 2;
    }
    best
}

/// Network samples one request runs: 1 for a model answered by one forward pass; for a diffusion
/// model, steps (`--steps`, else the pipeline's default) × samples per step ([`step_samples`]).
pub fn samples_per_request(o: &crate::model::OpaqueSpec, job: &ServeJob) -> f64 {
    o.denoising.map_or(1.0, |d| {
        (job.steps.unwrap_or(d.default_steps) * step_samples(&d, job)) as f64
    })
}

/// Network samples per denoising step: 2 under classifier-free guidance (the conditional and
/// unconditional latents batched), 1 without (`--guidance off`); the pipeline's by default.
pub fn step_samples(d: &crate::model::Denoising, job: &ServeJob) -> u64 {
    match job.guidance {
        Some(super::Guidance::On) => 2,
        Some(super::Guidance::Off) => 1,
        None => d.samples_per_step,
    }
}

/// What one image costs in network samples, and whether the steps and guidance are the
/// pipeline's defaults or the user's (review r7 #9: `--steps 1` read "1 denoising steps …
/// StableDiffusionXLPipeline defaults").
fn denoising_caveat(d: &crate::model::Denoising, job: &ServeJob) -> crate::i18n::Msg {
    let set = job.steps.is_some() || job.guidance.is_some();
    crate::i18n::Msg::new("cav-serve-denoising")
        .arg("steps", job.steps.unwrap_or(d.default_steps))
        .arg("samples", step_samples(d, job))
        .arg("origin", if set { "set" } else { "default" })
        .arg("default_steps", d.default_steps)
        .arg("default_samples", d.samples_per_step)
}

pub fn search(
    req: &PlanRequest,
    job: &ServeJob,
    cands: &[(&Instance, &GpuSpec)],
    cat: &Catalog,
    rejected: &mut Vec<Binding>,
) -> Result<(Vec<Plan>, u64), CoreError> {
    crate::infer::check_checkpoint_read(&req.model, !job.weights.is_empty(), "serve")?;
    let mut plans = Vec::new();
    let mut evaluated = 0u64;
    let mut misses = ServeMisses::default();
    for &(inst, gpu) in cands {
        for fmt in formats(job, gpu, &req.model) {
            let Some(s) = size_format(req, job, (inst, gpu), fmt, &mut evaluated) else {
                continue;
            };
            let Some(fleet) = fleet(req, job, (inst, gpu), &s, &mut misses) else {
                continue;
            };
            plans.extend(fleet_plan(
                req,
                job,
                (inst, gpu),
                cat,
                s,
                fleet,
                &mut misses,
            ));
        }
    }
    if plans.is_empty() {
        rejected.push(misses.explain(req, job, cands));
    }
    Ok((plans, evaluated))
}

/// Whether the model decodes tokens (a decoder or an encoder-decoder), sized per TP degree.
fn is_decoder(m: &crate::model::ModelSpec) -> bool {
    m.transformer()
        .is_some_and(|t| t.structure != Structure::EncoderOnly)
}

/// The best replica of one weight format on one instance type: per TP degree that fits a node
/// and divides the heads (decoders; 1 otherwise), the most requests per second per GPU.
fn size_format(
    req: &PlanRequest,
    job: &ServeJob,
    (inst, gpu): (&Instance, &GpuSpec),
    fmt: WeightFormat,
    evaluated: &mut u64,
) -> Option<Sized> {
    let decoder = is_decoder(&req.model);
    let per_node = inst.gpu_count.round() as u64;
    let tps: Vec<u64> = match req.model.transformer().filter(|_| decoder) {
        Some(t) => [1, 2, 4, 8]
            .into_iter()
            .filter(|tp| *tp <= per_node && crate::infer::tp_splits_attention(t, *tp))
            .collect(),
        None => vec![1],
    };
    // The smallest TP that fits is usually the cheapest; keep the best per format.
    let mut chosen: Option<Sized> = None;
    for tp in tps {
        let sized = if decoder {
            size_decoder(req, job, gpu, fmt, tp, evaluated).unwrap_or_default()
        } else {
            size_encoder(req, job, gpu, fmt, evaluated)
                .map(|x| encoder_sized(req, job, gpu, fmt, x))
        };
        let Some(s) = sized else { continue };
        // Compare per GPU.
        if chosen
            .as_ref()
            .is_none_or(|b| s.rps / s.tp as f64 > b.rps / b.tp as f64)
        {
            chosen = Some(s);
        }
    }
    chosen
}

/// An encoder's or opaque model's replica ([`size_encoder`]'s batch, rate, time and weight
/// bytes) in the decoders' terms: no KV cache, the batch's time as every latency.
fn encoder_sized(
    req: &PlanRequest,
    job: &ServeJob,
    gpu: &GpuSpec,
    fmt: WeightFormat,
    (b, rps, t, w): (u64, f64, Seconds, Bytes),
) -> Sized {
    Sized {
        weights: fmt,
        tp: 1,
        batch: b,
        rps,
        memory: crate::infer::ServingMemory {
            engine: job.engine,
            rule: crate::i18n::Msg::new("serve-rule-encoder").into(),
            block_tokens: 0,
            profile_tokens: 0,
            weights: w,
            activation_peak: Bytes(0.0),
            non_torch: Bytes::from_gib(req.tunables.cuda_context_gib),
            cudagraph: Bytes(0.0),
            budget: gpu.visible_memory().unwrap_or(Bytes(0.0)) * job.gpu_memory_utilization,
            kv_pool: Bytes(0.0),
            kv_shortfall: Bytes(0.0),
            kv_per_token: crate::infer::KvPerToken {
                total: Bytes(0.0),
                per_device: Bytes(0.0),
                heads_per_device: 0,
            },
            blocks: 0,
            kv_tokens: 0,
            max_model_len: job.input_tokens,
            max_concurrency_at_max_len: b as f64,
            max_concurrent_requests: b,
            max_context_at_batch: job.input_tokens,
            fits: true,
            problem: None,
            fit_advice: None,
        },
        latency: crate::infer::Latency {
            ttft: t,
            batch_prefill: t,
            time_per_token: t,
            decode_tokens_per_second: rps,
            decode_bandwidth_bound: false,
            ridge_batch: 0.0,
            peak: gpu.peak_half().unwrap_or_default(),
        },
        replica: None,
        setup: None,
    }
}

/// What kept a serving search's fleets out, for the refusal when none is left: the cheapest
/// over the budget, and the fewest nodes a fleet over `--max-nodes` needed (the type, its nodes).
#[derive(Default)]
struct ServeMisses {
    over_budget: Option<(String, f64)>,
    over_nodes: Option<(String, u64)>,
}

impl ServeMisses {
    /// Why no serving plan: the cheapest fleet over the budget, else the smallest over
    /// `--max-nodes`, else no configuration fitted ([`no_fit`]).
    fn explain(
        self,
        req: &PlanRequest,
        job: &ServeJob,
        cands: &[(&Instance, &GpuSpec)],
    ) -> Binding {
        let c = &req.constraints;
        if let Some((what, x)) = self.over_budget {
            return Binding::msg(
                "budget",
                crate::i18n::Msg::new("bind-serve-over-budget")
                    .arg("what", what.as_str())
                    .arg("x", crate::units::cny_figure(x))
                    .arg("b", crate::units::cny_figure(c.budget_cny.unwrap_or(0.0)))
                    .arg(
                        "over",
                        crate::units::cny_figure(x - c.budget_cny.unwrap_or(0.0)),
                    ),
            );
        }
        if let Some((what, n)) = self.over_nodes {
            return Binding::msg(
                "max_nodes",
                crate::i18n::Msg::new("bind-serve-over-max-nodes")
                    .arg("what", what.as_str())
                    .arg("n", n)
                    .arg("max", c.max_nodes),
            );
        }
        if let Some(b) = stack_binding(job, cands) {
            return b;
        }
        let no_target = is_decoder(&req.model) && job.ttft_s.is_none() && job.tpot_s.is_none();
        let best = if no_target || !is_decoder(&req.model) {
            None
        } else {
            best_latency(req, job, cands)
        };
        let why = no_fit(cands, no_target, best);
        // Only a refusal by memory gets the settings that would start vLLM: under
        // `no-memory-bandwidth` memory is not what refused (review r14 #3).
        if why.constraint != "memory" {
            return why;
        }
        match vllm_fit_advice(req, job, cands) {
            Some(advice) => why.with_lines(&advice),
            None => why,
        }
    }
}

/// For a vLLM search refused by memory: the first configuration of the search (instance type,
/// weight format, TP degree, in its order) that vLLM would start with one setting changed
/// ([`crate::infer::fit_advice`], the advice `estimate` gives), as lines: where, then the
/// advice worded for `plan` ([`crate::infer::PLAN_ADVICE`]: the request's tokens, the `[serve]
/// gpu_memory_utilization` key, vLLM's max_num_seqs as a launch setting the plan does not size;
/// review r14 #3: it named `estimate`'s flags). None when no setting starts any.
fn vllm_fit_advice(
    req: &PlanRequest,
    job: &ServeJob,
    cands: &[(&Instance, &GpuSpec)],
) -> Option<Vec<(usize, crate::i18n::Msg)>> {
    let t = req.model.transformer()?;
    if job.engine != Engine::Vllm {
        return None;
    }
    let tun = &req.tunables;
    for &(inst, gpu) in cands {
        for fmt in formats(job, gpu, &req.model) {
            let tps = [1, 2, 4, 8].into_iter().filter(|tp| {
                *tp as f64 <= inst.gpu_count.round() && crate::infer::tp_splits_attention(t, *tp)
            });
            for tp in tps {
                let s = decoder_setup(job, fmt, tp);
                let Ok(mem) = serving_memory(&req.model, &s, gpu, tun) else {
                    continue;
                };
                let Some(a) = crate::infer::fit_advice(&req.model, &s, gpu, tun, &mem) else {
                    continue;
                };
                let at = crate::i18n::Msg::new("bind-serve-advice-at")
                    .arg("at", format!("{} {} TP {tp}", gpu.id, fmt.name()));
                let ids = &crate::infer::PLAN_ADVICE;
                let advice = crate::infer::advice_msgs(ids, &a, &s, gpu, mem.max_model_len);
                // The place and the heading under the refusal, the settings under the heading.
                let lines = std::iter::once(at)
                    .chain(advice)
                    .enumerate()
                    .map(|(i, m)| (if i < 2 { 2 } else { 4 }, m));
                return Some(lines.collect());
            }
        }
    }
    None
}

/// No candidate runs the engine (TensorRT-LLM off NVIDIA), or no candidate loads any of the weight
/// formats asked for (FP8, MXFP4: [`crate::infer::format_runs`]) (audit r12 #7: "no instance type holds the weights" was
/// said of Ascend 910B, which has the memory but no FP8 path).
fn stack_binding(job: &ServeJob, cands: &[(&Instance, &GpuSpec)]) -> Option<Binding> {
    use crate::i18n::Msg;
    if cands.is_empty() {
        return None;
    }
    let runs = |g: &GpuSpec| crate::infer::engine_runs_on(job.engine, g);
    if !cands.iter().any(|(_, g)| runs(g)) {
        let cuda = cands.iter().any(|(_, g)| g.stack == "cuda");
        let m = match crate::infer::engine_min_cc(job.engine) {
            // vLLM below 7.0, SGLang below 7.5 (audit r19 #4).
            Some(min) if cuda => Msg::new("bind-serve-engine-min-cc")
                .arg("n", cands.len())
                .arg("engine", job.engine.name())
                .arg("min", crate::infer::cc_text(min)),
            _ => Msg::new("bind-serve-engine-nvidia-only").arg("n", cands.len()),
        };
        return Some(Binding::msg("engine", m));
    }
    let loads = |g: &GpuSpec| {
        let on = |w: &WeightFormat| {
            crate::infer::format_runs(job.engine, *w, g)
                && (!job.awq || crate::infer::named_awq_runs(job.engine, *w, g))
        };
        job.weights.iter().any(on)
    };
    if job.weights.is_empty() || cands.iter().any(|(_, g)| loads(g)) {
        return None;
    }
    let m = if job.weights.iter().all(|w| *w == WeightFormat::Fp8) {
        Msg::new("bind-serve-fp8-nowhere").arg("n", cands.len())
    } else if job
        .weights
        .iter()
        .all(|w| matches!(w, WeightFormat::Int4 { .. }))
    {
        let min = crate::infer::int4_min_cc(job.engine);
        let key = if job.awq && crate::infer::AWQ_MIN_CC > min {
            // `--weights awq` (audit r20 #2): the AWQ kernel's floor, not GPTQ's.
            "bind-serve-awq-nowhere"
        } else {
            "bind-serve-int4-nowhere"
        };
        Msg::new(key)
            .arg("n", cands.len())
            .arg("engine", job.engine.name())
            .arg("min", crate::infer::cc_text(min))
    } else {
        // MXFP4 on chips without its kernels (review r12 #4: V100 read "no instance type holds
        // the weights").
        let names: Vec<String> = job.weights.iter().map(|w| w.name()).collect();
        Msg::new("bind-serve-format-nowhere")
            .arg("n", cands.len())
            .arg("weights", names.join(", "))
            .arg("engine", job.engine.name())
    };
    Some(Binding::msg("weights", m))
}

/// The replicas a sized replica needs and the instances that hold them.
struct Fleet {
    replicas_for_rate: u64,
    replicas: u64,
    nodes: u64,
    cluster: crate::hardware::ClusterSpec,
    assumed: Option<crate::i18n::Text>,
}

/// The fleet for replica `s`: the replicas for the load and the plan ([`replica_counts`]), the
/// instances that hold them — bounded by `--max-nodes` like a training cluster (a fleet over it
/// is noted in `misses`) — and their cluster.
fn fleet(
    req: &PlanRequest,
    job: &ServeJob,
    (inst, gpu): (&Instance, &GpuSpec),
    s: &Sized,
    misses: &mut ServeMisses,
) -> Option<Fleet> {
    let per_node = inst.gpu_count.round() as u64;
    let (replicas_for_rate, replicas) = replica_counts(job, s.rps, s.batch);
    let replicas_per_node = (per_node / s.tp).max(1);
    let nodes = replicas.div_ceil(replicas_per_node);
    if nodes > req.constraints.max_nodes.max(1) {
        if misses.over_nodes.as_ref().is_none_or(|(_, n)| nodes < *n) {
            misses.over_nodes = Some((inst.id.clone(), nodes));
        }
        return None;
    }
    let shared_gpu = std::sync::Arc::new(gpu.clone());
    let (cluster, _) = instance_cluster(inst, &shared_gpu, nodes).ok()?;
    // A replica never spans nodes (TP ≤ GPUs per node): the fleet's nodes share no traffic, so
    // only what one node assumes is said (expert r17: 2 × modelarts.snt9b.1, one TP 1 replica
    // each, said "RoCE not documented: HCCL assumed over TCP" of a network nothing crosses).
    let (_, assumed) = instance_cluster(inst, &shared_gpu, 1).ok()?;
    Some(Fleet {
        replicas_for_rate,
        replicas,
        nodes,
        cluster,
        assumed,
    })
}

/// The plan of a fleet, priced per month, or None over the budget (noted in `misses`) or
/// without a price to check it against.
fn fleet_plan(
    req: &PlanRequest,
    job: &ServeJob,
    (inst, gpu): (&Instance, &GpuSpec),
    cat: &Catalog,
    s: Sized,
    fleet: Fleet,
    misses: &mut ServeMisses,
) -> Option<Plan> {
    let c = &req.constraints;
    let nodes = fleet.nodes;
    let (costs_v, chosen_cost, _) =
        costs(cat, inst, nodes, HOURS_PER_MONTH, c, &req.tunables, None);
    let (load, served_rps) = fleet_load(req, job, gpu, &s, fleet.replicas);
    let unit = unit_costs(req, job, chosen_cost.as_ref(), served_rps);
    if c.budget_cny.is_some() && chosen_cost.is_none() {
        return None;
    }
    if let (Some(b), Some(ch)) = (c.budget_cny, &chosen_cost) {
        if ch.cny > b {
            if misses.over_budget.as_ref().is_none_or(|(_, x)| ch.cny < *x) {
                misses.over_budget = Some((format!("{nodes} × {}", inst.id), ch.cny));
            }
            return None;
        }
    }
    let network_assumed = fleet.assumed.as_ref().map(|t| t.en.clone());
    let caveats = serve_caveats(req, job, gpu, &s, fleet.assumed);
    Some(Plan {
        instance: inst.clone(),
        gpu: fleet.cluster.gpu.clone(),
        usable_memory_gib: gpu.visible_memory().map(|b| b.gib()),
        nodes,
        total_gpus: fleet.cluster.total_gpus() as f64,
        cluster: fleet.cluster,
        network_assumed,
        train: None,
        serve: Some(serve_detail(
            req,
            s,
            (fleet.replicas, fleet.replicas_for_rate),
            load,
            unit,
        )),
        hours: HOURS_PER_MONTH,
        costs: costs_v,
        chosen: chosen_cost,
        caveats,
        advice: Vec::new(),
        also: Vec::new(),
    })
}

/// The load each replica carries and the requests per second the fleet serves. Open load: at
/// the peak rate over the replicas, serving the stated rate; closed: at the peak concurrency,
/// serving what the stated concurrency completes ([`closed_replica_load`]). The replica's rate
/// × the replicas where neither is known.
fn fleet_load(
    req: &PlanRequest,
    job: &ServeJob,
    gpu: &GpuSpec,
    s: &Sized,
    replicas: u64,
) -> (Option<ServeLoad>, f64) {
    let (load, served_rps) = match closed_load(job) {
        Some(c) => {
            let at = |k: f64| closed_replica_load(req, gpu, s, replicas, k);
            let served = at(c).map(|l| l.rate_rps * replicas as f64);
            (at(c * job.peak_factor), served)
        }
        None => {
            let load = s
                .replica
                .and_then(|r| r.at(load_rate(job, s.rps, replicas)));
            (load, job.rate_rps)
        }
    };
    (load, served_rps.unwrap_or(s.rps * replicas as f64))
}

/// A fleet's unit costs at the monthly price: per million tokens, per 1k requests, per hour of
/// audio, and the speech request's shape.
struct UnitCosts {
    per_m: Option<f64>,
    per_k_req: Option<f64>,
    per_audio_h: Option<f64>,
    asr: Option<crate::infer::AsrRequest>,
}

fn unit_costs(
    req: &PlanRequest,
    job: &ServeJob,
    chosen_cost: Option<&super::BillingCost>,
    served_rps: f64,
) -> UnitCosts {
    let tokens_per_month =
        served_rps * (job.input_tokens + job.output_tokens) as f64 * HOURS_PER_MONTH * 3600.0;
    // Per million tokens only where requests are answered in generated tokens: an image model
    // or an encoder (one forward pass per request) is priced per request alone. A speech model
    // is priced per hour of audio transcribed (each request one window), not per token: its
    // tokens are the transcript's, not what the buyer sends.
    let asr = req.model.transformer().and_then(crate::infer::asr_request);
    let per_m = chosen_cost
        .filter(|_| has_kv_cache(&req.model) && asr.is_none())
        .map(|x| x.cny / tokens_per_month * 1e6);
    let per_audio_h = chosen_cost
        .zip(asr)
        .map(|(x, a)| x.cny / (served_rps * a.audio_seconds * HOURS_PER_MONTH));
    let per_k_req = chosen_cost.map(|x| x.cny / (served_rps * HOURS_PER_MONTH * 3600.0) * 1e3);
    UnitCosts {
        per_m,
        per_k_req,
        per_audio_h,
        asr,
    }
}

/// A serving plan's caveats: the network assumed, a diffusion model's sampling loop, and fp16
/// weights on a chip without bf16.
fn serve_caveats(
    req: &PlanRequest,
    job: &ServeJob,
    gpu: &GpuSpec,
    s: &Sized,
    assumed: Option<crate::i18n::Text>,
) -> Vec<crate::i18n::Text> {
    let mut caveats: Vec<crate::i18n::Text> = assumed.into_iter().collect();
    if let Architecture::Opaque(o) = &req.model.architecture {
        if let Some(d) = o.denoising {
            caveats.push(denoising_caveat(&d, job).into());
        }
    }
    // 16-bit weights on a chip without bf16 (T4, V100) are fp16: say so.
    if s.weights == WeightFormat::Fp16 && !gpu.supports(ComputeDtype::Bf16) {
        let id = if has_kv_cache(&req.model) {
            "cav-serve-no-bf16"
        } else {
            "cav-serve-no-bf16-no-kv"
        };
        let m = crate::i18n::Msg::new(id)
            .arg("gpu", gpu.id.as_str())
            .arg("engine", job.engine.name());
        caveats.push(m.into());
    }
    caveats.extend(crate::infer::engine_unlisted_note(job.engine, gpu).map(Into::into));
    // Weight-only int4/int8 below Marlin's 8.0 runs another kernel, whose speed is unverified.
    if let Some(m) = crate::infer::weight_only_kernel_note(job.engine, s.weights, gpu) {
        caveats.push(m.into());
    }
    if mla_moe_below_validated_batch(&req.model, s.batch) {
        let m = crate::i18n::Msg::new("cav-serve-mla-moe-small-batch").arg("batch", s.batch);
        caveats.push(m.into());
    }
    caveats.extend(dequantized_caveat(&req.model, s.weights));
    caveats
}

/// A 16-bit plan of a checkpoint that ships in fewer bits (gpt-oss's MXFP4, an int4 release)
/// serves a dequantized copy: say so, with the stored format.
fn dequantized_caveat(
    model: &crate::model::ModelSpec,
    weights: WeightFormat,
) -> Option<crate::i18n::Text> {
    let native = crate::infer::native_format(model)?;
    (weights.bits() >= 16.0 && native.bits() < 16.0).then(|| {
        crate::i18n::Msg::new("cav-serve-dequantized")
            .arg("native", native.name())
            .arg("weights", weights.name())
            .into()
    })
}

/// An MLA + MoE model (DeepSeek-V3/R1) decoding below batch 8 is outside the range its serving
/// cases validate (audit r9 #22: at one request the published rate is ~4× slower than the
/// model, unexplained; docs/methodology.md, kernels per layer). `estimate` notes the same.
pub fn mla_moe_below_validated_batch(model: &crate::model::ModelSpec, batch: u64) -> bool {
    model.transformer().is_some_and(|t| {
        matches!(t.attention, crate::model::AttentionKind::Mla(_)) && t.moe.is_some() && batch < 8
    })
}

/// The serving detail of a fleet: the replica's layout, memory and latency, the load it
/// carries, (replicas, replicas for the stated load) and the unit costs.
fn serve_detail(
    req: &PlanRequest,
    s: Sized,
    (replicas, replicas_for_rate): (u64, u64),
    load: Option<ServeLoad>,
    unit: UnitCosts,
) -> ServeDetail {
    ServeDetail {
        weights: s.weights,
        weights_native: crate::infer::native_format(&req.model) == Some(s.weights),
        tp: s.tp,
        replicas,
        batch_per_replica: s.batch,
        memory: s.memory,
        latency: s.latency,
        requests_per_second_per_replica: s.rps,
        load,
        replicas_for_rate,
        cost_per_million_tokens: unit.per_m,
        cost_per_1k_requests: unit.per_k_req,
        asr: unit.asr,
        cost_per_audio_hour: unit.per_audio_h,
    }
}

/// Why no serving plan was found when no budget was the cause. Serving latency (decode reads the
/// weights and the KV cache each token) needs the chip's memory bandwidth: where no candidate's
/// chip has a sourced one (the Ascend 910B4 of ModelArts Snt9B), every configuration is dropped
/// before any latency target is looked at, and the answer names the missing fact instead of
/// telling the user to relax targets they may not have set.
///
/// A decoder asked with no `--ttft`/`--tpot` is refused only by memory (weights + one request's
/// KV within the engine's budget on at most one node's GPUs), so the answer says that instead of
/// telling the user to relax targets they did not set.
///
/// With targets set, the refusal gives the best TTFT and TPOT any type reached (`best`).
fn no_fit(
    cands: &[(&Instance, &GpuSpec)],
    no_target: bool,
    best: Option<((f64, String), (f64, String))>,
) -> Binding {
    if !cands.is_empty() && cands.iter().all(|(_, g)| g.memory_bandwidth().is_none()) {
        let mut unknown: Vec<&str> = cands.iter().map(|(_, g)| g.id.as_str()).collect();
        unknown.sort_unstable();
        unknown.dedup();
        return Binding::msg(
            "no-memory-bandwidth",
            crate::i18n::Msg::new("bind-serve-no-bandwidth").arg("gpus", unknown.join(", ")),
        );
    }
    if no_target {
        return Binding::msg("memory", crate::i18n::Msg::new("bind-serve-no-memory"));
    }
    let m = match best {
        Some(((ttft, ttft_at), (tpot, tpot_at))) => crate::i18n::Msg::new("bind-serve-no-fit-best")
            .arg("ttft", format!("{:.3}", ttft))
            .arg("ttft_at", ttft_at)
            .arg("tpot", format!("{:.1}", tpot * 1e3))
            .arg("tpot_at", tpot_at),
        None => crate::i18n::Msg::new("bind-serve-no-fit"),
    };
    Binding::msg("latency-or-memory", m)
}

/// Whether the model answers a request by generating tokens with a KV cache (decoders and
/// encoder-decoders); an encoder (BERT, ViT) or an image model (ResNet, UNet) runs one forward
/// pass per request and has neither a KV cache nor output tokens to price.
pub(super) fn has_kv_cache(m: &crate::model::ModelSpec) -> bool {
    m.transformer()
        .is_some_and(|t| t.structure != crate::model::Structure::EncoderOnly)
}

#[cfg(test)]
mod batch_search_tests {
    use super::peak_batch;

    /// The batch the search returns for a rate peaking at `peak` (rising to it, falling after,
    /// refused past `refused`), and how many batches were tried.
    fn search(cap: u64, peak: u64, refused: u64) -> (Option<u64>, u64) {
        let mut tried = 0;
        let rate = |b: u64| 1.0 / (1.0 + (b as f64 - peak as f64).abs());
        let found = peak_batch(
            cap,
            &mut |b| {
                tried += 1;
                assert!((1..=cap).contains(&b), "batch {b} outside 1..={cap}");
                Ok((b <= refused).then_some(b))
            },
            |b| rate(*b),
        )
        .unwrap();
        (found, tried)
    }

    #[test]
    fn finds_the_peak_batch_for_any_peak_and_limit() {
        for cap in [1, 2, 3, 7, 64, 100, 256] {
            for peak in 1..=cap + 2 {
                for refused in [0, 1, peak / 2, peak, cap + 2] {
                    let (found, tried) = search(cap, peak, refused);
                    // The peak within the batches that are not refused (none: no batch).
                    let want = (refused >= 1).then_some(peak.min(refused).min(cap));
                    assert_eq!(
                        found, want,
                        "cap {cap}, peak {peak}, refused past {refused}"
                    );
                    // Two tries per halving (one for a single batch): never a linear scan.
                    let halvings = 64 - (cap.max(2) - 1).leading_zeros() as u64;
                    assert!(tried <= 2 * halvings, "{tried} tries for cap {cap}");
                }
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::hardware::find_gpu;

    fn standard() -> Vec<WeightFormat> {
        vec![
            WeightFormat::Bf16,
            WeightFormat::Fp8,
            WeightFormat::Int8,
            WeightFormat::Int4 { group: 128 },
        ]
    }

    /// An MXFP4 checkpoint is offered as stored where the engine runs it, 16-bit, and int4 g128
    /// (4.16 bits, fewer than its 4.25); FP8 and int8 (more bits, still lossy) are not. An FP8
    /// checkpoint (DeepSeek-V3) keeps every format, and FP8 only where the chip has it.
    #[test]
    fn a_shipped_checkpoint_is_offered_as_stored_and_dequantized() {
        let h100 = find_gpu("h100-sxm").expect("gpu");
        let v100 = find_gpu("v100-sxm2-32g").expect("gpu");
        let mx = WeightFormat::Mxfp4;
        let int4 = WeightFormat::Int4 { group: 128 };
        assert_eq!(
            shipped_formats(standard(), mx, Engine::Vllm, h100),
            vec![WeightFormat::Bf16, mx, int4]
        );
        assert_eq!(
            shipped_formats(standard(), mx, Engine::Vllm, v100),
            vec![WeightFormat::Bf16, int4]
        );
        assert_eq!(
            shipped_formats(standard(), WeightFormat::Fp8, Engine::Vllm, h100),
            standard()
        );
        let no_fp8 = vec![WeightFormat::Bf16, WeightFormat::Int8, int4];
        assert_eq!(
            shipped_formats(no_fp8.clone(), WeightFormat::Fp8, Engine::Vllm, v100),
            no_fp8
        );
        // An A100 has no FP8 units, but vLLM loads an FP8 checkpoint there as W8A16 (FP8
        // Marlin): it is offered as stored (review r12 #3); the static engine has no such path.
        let a100 = find_gpu("a100-80g").expect("gpu");
        let fp8 = WeightFormat::Fp8;
        assert_eq!(
            shipped_formats(no_fp8.clone(), fp8, Engine::Vllm, a100),
            vec![WeightFormat::Bf16, fp8, WeightFormat::Int8, int4]
        );
        assert_eq!(
            shipped_formats(no_fp8.clone(), fp8, Engine::Static, a100),
            no_fp8
        );
    }
}
