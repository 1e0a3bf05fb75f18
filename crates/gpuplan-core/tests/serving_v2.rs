//! Serving mechanisms of issue 11: MoE decode reads the experts its batch routes to, prefill has a
//! weight-read floor and a fixed engine overhead, TP all-reduce latency grows with the ring over
//! PCIe, FP8 is derated like training.

use gpuplan_core::constants::Tunables;
use gpuplan_core::hardware::find_gpu;
use gpuplan_core::infer::{allreduce_latency, experts_touched, latency};
use gpuplan_core::model::find_preset;
use gpuplan_core::workload::{InferenceSetup, KvDtype, WeightFormat};

fn setup(batch: u64, tp: u64, weights: WeightFormat) -> InferenceSetup {
    InferenceSetup {
        batch,
        tp,
        weights,
        kv_dtype: KvDtype::Bf16,
        input_tokens: 512,
        output_tokens: 128,
        ..InferenceSetup::default()
    }
}

#[test]
fn experts_touched_follows_the_occupancy_formula() {
    // One token touches exactly k experts; many tokens touch nearly all.
    assert!((experts_touched(8, 2, 1.0) - 2.0).abs() < 1e-9);
    assert!(experts_touched(8, 2, 64.0) > 7.99);
    // DeepSeek-V3: 256 experts, top-8. At batch 32: 256·(1 − (1 − 8/256)^32) = 256·(1 − 0.3620) ≈ 163.3.
    let x = experts_touched(256, 8, 32.0);
    assert!((x - 163.3).abs() < 0.1, "{x}");
}

#[test]
fn moe_decode_at_batch_reads_nearly_every_expert() {
    let m = &find_preset("Mixtral-8x7B").expect("preset").model;
    let gpu = find_gpu("a100-80g").expect("gpu");
    let tun = Tunables::default();
    let one = latency(m, &setup(1, 2, WeightFormat::Bf16), gpu, &tun).expect("latency");
    let many = latency(m, &setup(64, 2, WeightFormat::Bf16), gpu, &tun).expect("latency");
    // At batch 1 two of eight experts are read; at 64 all eight: the step reads ~3.4× the
    // bytes (46.7B total vs 12.9B active), far more than the KV of 64 short sequences adds.
    let ratio = many.time_per_token.0 / one.time_per_token.0;
    assert!(ratio > 2.5, "TPOT ratio batch 64 / batch 1 = {ratio}");
}

#[test]
fn prefill_has_a_weight_read_floor_and_overhead() {
    let m = &find_preset("Llama-3.1-8B").expect("preset").model;
    let gpu = find_gpu("a100-80g").expect("gpu");
    let tun = Tunables::default();
    let mut s = setup(1, 1, WeightFormat::Bf16);
    s.input_tokens = 1;
    let l = latency(m, &s, gpu, &tun).expect("latency");
    // Reading 16 GB at 2 TB/s × 0.8 takes ~10 ms: a 1-token prompt cannot be faster.
    let bw = gpu.memory_bandwidth().expect("bw").0 * tun.decode_bandwidth_efficiency;
    let floor = 16.06e9 / bw + tun.engine_prefill_overhead_s;
    assert!(
        l.ttft.0 >= floor * 0.98,
        "ttft {} < floor {floor}",
        l.ttft.0
    );
}

#[test]
fn tp_allreduce_latency_grows_with_the_ring_over_pcie_only() {
    let tun = Tunables::default();
    let pcie = find_gpu("a10").expect("gpu");
    let nvl = find_gpu("a100-80g").expect("gpu");
    assert_eq!(allreduce_latency(pcie, 1, &tun), 0.0);
    assert!(allreduce_latency(pcie, 8, &tun) > 3.0 * allreduce_latency(pcie, 2, &tun));
    assert_eq!(
        allreduce_latency(nvl, 8, &tun),
        allreduce_latency(nvl, 2, &tun)
    );
}

#[test]
fn fp8_decode_at_large_batch_is_derated_like_training() {
    let m = &find_preset("Llama-2-7B").expect("preset").model;
    let gpu = find_gpu("h100-sxm").expect("gpu");
    let tun = Tunables::default();
    let s8 = latency(m, &setup(768, 1, WeightFormat::Fp8), gpu, &tun).expect("fp8");
    let s16 = latency(m, &setup(768, 1, WeightFormat::Bf16), gpu, &tun).expect("bf16");
    // FP8's peak is 2× bf16's, derated by fp8_efficiency_ratio (0.6): 1.2× faster when compute-bound.
    let speedup = s16.time_per_token.0 / s8.time_per_token.0;
    assert!(speedup < 1.5, "{speedup}");
}

// ---- Engine rules (issue 11 item 1) ----

use gpuplan_core::infer::{
    serving_memory, setup_weight_bytes, sglang_default_mem_fraction, solve, weight_bytes, SolveFor,
};
use gpuplan_core::units::Bytes;
use gpuplan_core::workload::Engine;

fn engine_setup(engine: Engine) -> InferenceSetup {
    InferenceSetup {
        engine,
        input_tokens: 1000,
        output_tokens: 300,
        ..InferenceSetup::default()
    }
}

#[test]
fn each_engine_applies_its_own_rule() {
    let m = &find_preset("Llama-3.1-8B").expect("preset").model;
    let gpu = find_gpu("a100-80g").expect("gpu");
    let tun = Tunables::default();
    let visible = gpu.visible_memory().expect("memory");
    let ctx = Bytes::from_gib(tun.cuda_context_gib);
    let w = weight_bytes(m, WeightFormat::Bf16, 1);
    // vLLM V1: util × visible − weights − activation at 2048 profile tokens (A100 default) − non-torch.
    let v = serving_memory(m, &engine_setup(Engine::Vllm), gpu, &tun).expect("vllm");
    assert_eq!(v.profile_tokens, 2048);
    let want = visible * 0.9 - w - v.activation_peak - Bytes::from_gib(tun.vllm_non_torch_gib);
    assert!(
        (v.kv_pool.0 - want.0).abs() < 1.0,
        "{} vs {}",
        v.kv_pool,
        want
    );
    // SGLang: 0.88 × (visible − context) − weights, no activation term.
    let s = serving_memory(m, &engine_setup(Engine::Sglang), gpu, &tun).expect("sglang");
    assert_eq!(s.activation_peak.0, 0.0);
    let want = (visible - ctx) * 0.88 - w;
    assert!((s.kv_pool.0 - want.0).abs() < 1.0);
    assert_eq!(s.block_tokens, 1, "SGLang pages hold one token");
    // TensorRT-LLM: 0.9 × what weights and the max_num_tokens activations leave.
    let t = serving_memory(m, &engine_setup(Engine::Trtllm), gpu, &tun).expect("trtllm");
    assert_eq!(t.profile_tokens, 8192);
    let want = (visible - ctx - w - t.activation_peak) * 0.9;
    assert!((t.kv_pool.0 - want.0).abs() < 1.0);
    // Static: exactly batch × max_model_len tokens, whatever memory is left.
    let st = serving_memory(
        m,
        &InferenceSetup {
            batch: 4,
            ..engine_setup(Engine::Static)
        },
        gpu,
        &tun,
    )
    .expect("static");
    assert_eq!(st.kv_tokens, 4 * st.max_model_len);
    assert!(st.fits);
}

#[test]
fn sglang_default_fraction_falls_with_tp_and_static_cache_can_overflow() {
    assert_eq!(sglang_default_mem_fraction(1), 0.88);
    assert_eq!(sglang_default_mem_fraction(8), 0.81);
    let m = &find_preset("Llama-3.1-8B").expect("preset").model;
    let gpu = find_gpu("a10").expect("gpu");
    let tun = Tunables::default();
    // 256 sequences × 8192 tokens × 128 KiB = 256 GiB: far beyond a 24 GB card.
    let s = InferenceSetup {
        batch: 256,
        max_model_len: Some(8192),
        ..engine_setup(Engine::Static)
    };
    let mem = serving_memory(m, &s, gpu, &tun).expect("static");
    assert!(!mem.fits);
    assert!(mem.kv_shortfall.gib() > 200.0, "{}", mem.kv_shortfall);
    assert_eq!(mem.kv_pool.0, 0.0);
}

#[test]
fn fp8_keeps_embeddings_16bit_and_kept_layers_add_bytes() {
    let m = &find_preset("Llama-3.1-8B").expect("preset").model;
    let fp8 = weight_bytes(m, WeightFormat::Fp8, 1).gib();
    // 6.98B linears at 1 byte + 1.05B embedding/head/norm parameters at 2 bytes ≈ 8.46 GiB.
    assert!((8.3..8.6).contains(&fp8), "{fp8}");
    let s = InferenceSetup {
        weights: WeightFormat::Fp8,
        keep_16bit_layers: [1, 1],
        ..InferenceSetup::default()
    };
    let kept = setup_weight_bytes(m, &s).gib();
    // Two of 32 layers at 2 bytes: + 6.98B/16 bytes ≈ +0.41 GiB.
    assert!((kept - fp8 - 0.406).abs() < 0.02, "{kept} vs {fp8}");
    let bad = InferenceSetup {
        keep_16bit_layers: [30, 3],
        ..s
    };
    assert!(bad.validate_for(m).is_err());
}

// ---- Solve-for answers (item 4) ----

#[test]
fn solve_max_batch_is_the_boundary_of_what_fits() {
    let m = &find_preset("Llama-3.1-8B").expect("preset").model;
    let gpu = find_gpu("a100-80g").expect("gpu");
    let tun = Tunables::default();
    let s = InferenceSetup {
        input_tokens: 2000,
        output_tokens: 500,
        ..InferenceSetup::default()
    };
    let a = solve(m, &s, gpu, &tun, SolveFor::MaxBatch).expect("solve");
    assert_eq!(a.context, 2500);
    assert_eq!(a.binding, "kv_pool");
    let pool = serving_memory(
        m,
        &InferenceSetup {
            max_model_len: Some(2500),
            ..s.clone()
        },
        gpu,
        &tun,
    )
    .expect("mem");
    assert_eq!(a.batch, pool.kv_tokens / 2500);
}

#[test]
fn solve_max_context_and_throughput_respect_their_limits() {
    let m = &find_preset("Llama-3.1-8B").expect("preset").model;
    let gpu = find_gpu("a100-80g").expect("gpu");
    let tun = Tunables::default();
    let s = InferenceSetup {
        batch: 16,
        ..InferenceSetup::default()
    };
    let c = solve(m, &s, gpu, &tun, SolveFor::MaxContext).expect("ctx");
    assert_eq!(c.binding, "kv_pool");
    // One token more no longer fits 16 sequences; the answer itself does.
    let fits = |l: u64| {
        let mem = serving_memory(
            m,
            &InferenceSetup {
                max_model_len: Some(l),
                ..s.clone()
            },
            gpu,
            &tun,
        )
        .expect("mem");
        mem.kv_tokens / l >= 16
    };
    assert!(fits(c.context) && !fits(c.context + 1));
    // One sequence: the model's context binds (131072 tokens of KV = 16 GiB fit).
    let one = solve(
        m,
        &InferenceSetup {
            batch: 1,
            ..s.clone()
        },
        gpu,
        &tun,
        SolveFor::MaxContext,
    )
    .expect("ctx1");
    assert_eq!(one.binding, "model_context");
    // Throughput within 30 ms per token: TPOT at the answer is within the target, one more is not.
    let t = solve(m, &s, gpu, &tun, SolveFor::MaxThroughput { tpot_s: 0.03 }).expect("thr");
    let tpot = t.time_per_token.expect("tpot").0;
    assert!(tpot <= 0.03, "{tpot}");
    if t.binding == "tpot_target" {
        let next = latency(
            m,
            &InferenceSetup {
                batch: t.batch + 1,
                max_model_len: Some(t.context),
                ..s.clone()
            },
            gpu,
            &tun,
        )
        .expect("lat");
        assert!(next.time_per_token.0 > 0.03);
    }
    // An unreachable target says so instead of inventing a batch.
    let none = solve(m, &s, gpu, &tun, SolveFor::MaxThroughput { tpot_s: 0.001 }).expect("none");
    assert_eq!((none.batch, none.binding), (0, "tpot_target"));
}

proptest::proptest! {
    #![proptest_config(proptest::prelude::ProptestConfig::with_cases(24))]
    /// For every engine, the pool is finite and never negative, and whatever it reports as
    /// fitting holds at least one max_model_len sequence.
    #[test]
    fn engine_pools_are_finite_and_consistent(e in 0usize..4, tp in 0usize..3, mml in 1u64..200_000, util in 0.05f64..1.0) {
        let engine = [Engine::Vllm, Engine::Sglang, Engine::Trtllm, Engine::Static][e];
        let m = &find_preset("Qwen2.5-7B").expect("preset").model;
        let gpu = find_gpu("h100-sxm").expect("gpu");
        let s = InferenceSetup {
            engine,
            tp: [1, 2, 4][tp],
            max_model_len: Some(mml),
            gpu_memory_utilization: util,
            mem_fraction_static: Some(util),
            free_gpu_memory_fraction: Some(util),
            ..InferenceSetup::default()
        };
        let mem = serving_memory(m, &s, gpu, &Tunables::default()).expect("mem");
        proptest::prop_assert!(mem.kv_pool.0.is_finite() && mem.kv_pool.0 >= 0.0);
        proptest::prop_assert!(mem.kv_shortfall.0 >= 0.0);
        if mem.fits {
            proptest::prop_assert!(mem.kv_tokens >= mml);
        }
    }
}
