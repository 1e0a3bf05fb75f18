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
