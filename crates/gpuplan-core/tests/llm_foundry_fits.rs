//! Issue 9: a published throughput row proves its configuration ran, so the memory model must
//! not call it impossible. Every llm-foundry throughput row (scripts/train/benchmarking/README.md,
//! cases/mpt*.toml by tools/gen_cases.py) is estimated with its own setup (micro-batch, sequence
//! length, activation checkpointing, FSDP FULL_SHARD, GPU) and checked against its GPU's usable
//! memory. Before MPT's own modules were modelled (flash-attn's xentropy loss, exact GELU,
//! LPLayerNorm) 117 of these rows had a modelled peak allocation above the GPU's memory (MPT-760M
//! on an A100 80GB: 130.9 GiB) and 138 did not fit once the allocator reserve was added.

use gpuplan_core::job::estimate_training;
use gpuplan_core::validation::{parse_case, workload_model, CaseKind};

/// Rows whose peak allocation fits but whose `needed per device` (+10% allocator reserve,
/// tunable `fragmentation`, + CUDA context + NCCL buffers) is above the usable memory, with the
/// shortfall in GiB. The 10% reserve is a planning allowance, not a measured one. The H100 FP8
/// rows fit since Transformer Engine's saved FP8 tensors are modelled (train.rs
/// `te_fp8_layer`): MPT-3B at 8k tokens needs 71.0 GiB of 78.9 (79.1 before, 0.20 short).
/// MPT-1B on 32 A100-40GB (4 nodes) fits since NCCL's channels come from its topology search
/// (train/nccl_search.rs: 16 coll channels across nodes, where the old table kept the node's
/// 24): it needs 39.37 GiB of 39.44 (0.12 short before). None is short today.
const SHORT_WITH_RESERVE: &[(&str, f64)] = &[];

const GIB: f64 = 1024.0 * 1024.0 * 1024.0;

/// (id, peak allocated GiB, needed per device GiB, usable GiB) of every llm-foundry row.
fn rows() -> Vec<(String, f64, f64, f64)> {
    let dir = format!("{}/../../cases", env!("CARGO_MANIFEST_DIR"));
    let mut out = Vec::new();
    for e in std::fs::read_dir(dir).unwrap() {
        let p = e.unwrap().path();
        if p.extension().is_none_or(|x| x != "toml") {
            continue;
        }
        let text = std::fs::read_to_string(&p).unwrap();
        let case = parse_case(&p.display().to_string(), &text).unwrap();
        if case.kind != CaseKind::TrainThroughput || !case.source.contains("mosaicml/llm-foundry") {
            continue;
        }
        let w = &case.workload;
        let m = workload_model(w, &case.id).unwrap();
        let cluster = w.hardware.clone().unwrap_or_default().cluster().unwrap();
        let tun = w.tunables.clone().unwrap_or_default();
        let setup = w.training.clone().unwrap_or_default();
        let est = estimate_training(&m, &setup, &cluster, &tun).unwrap();
        let usable = cluster.gpu.visible_memory().unwrap().0 / GIB;
        out.push((
            case.id,
            est.memory.peak_allocated.0 / GIB,
            est.memory.device_total.0 / GIB,
            usable,
        ));
    }
    out.sort_by(|a, b| a.0.cmp(&b.0));
    out
}

#[test]
fn every_published_llm_foundry_row_fits_its_gpu() {
    let rows = rows();
    // 216 rows of the table (A100 40GB/80GB, H100; 125M to 70B), all with a training workload.
    assert_eq!(rows.len(), 216, "llm-foundry throughput rows");
    let mut failures = Vec::new();
    for (id, peak, needed, usable) in &rows {
        if peak > usable {
            failures.push(format!(
                "{id}: peak allocated {peak:.2} GiB > {usable:.2} GiB"
            ));
        }
        let short = SHORT_WITH_RESERVE.iter().find(|(s, _)| s == id);
        match short {
            None if needed > usable => failures.push(format!(
                "{id}: needed {needed:.2} GiB > {usable:.2} GiB (not a listed gap)"
            )),
            Some((_, gap)) if !(needed > usable && needed - usable <= *gap + 0.005) => failures
                .push(format!(
                    "{id}: listed {gap} GiB short, now needs {needed:.2} of {usable:.2} GiB"
                )),
            _ => {}
        }
    }
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}

/// Transformer Engine v0.10's `te.Linear` under FP8 (llm-foundry `fc_type: te`) saves the FP8
/// transpose of its input instead of the 16-bit input and the FP8 transpose of its weight
/// (train.rs `te_fp8_layer`, `te_weight_t_per_token`): against the same run in bf16, per layer
/// −h (q/k/v input) −h (MLP input) −4h (down-projection input, 1 B × 4h instead of 2 B) +h (the
/// output projection's FP8 input transpose) bytes per token, and +12h² bytes of weight transposes.
#[test]
fn te_fp8_linears_save_fp8_transposes() {
    let dir = format!("{}/../../cases", env!("CARGO_MANIFEST_DIR"));
    let p = format!("{dir}/mpt3b-h100-fp8-8gpu-s8192.toml");
    let case = parse_case(&p, &std::fs::read_to_string(&p).unwrap()).unwrap();
    let w = &case.workload;
    let m = workload_model(w, &case.id).unwrap();
    let cluster = w.hardware.clone().unwrap_or_default().cluster().unwrap();
    let tun = w.tunables.clone().unwrap_or_default();
    let fp8 = w.training.clone().unwrap_or_default();
    let mut bf16 = fp8.clone();
    bf16.precision = gpuplan_core::workload::Precision::AmpBf16;
    let acts = |s| {
        let est = estimate_training(&m, s, &cluster, &tun).unwrap();
        let a = est.memory.items.iter().find(|i| i.name == "activations");
        a.map(|i| i.bytes.0).unwrap()
    };
    let (h, layers, tokens) = (2560.0, 32.0, 3.0 * 8192.0);
    let expected = layers * (-5.0 * h * tokens + 12.0 * h * h);
    let got = acts(&fp8) - acts(&bf16);
    assert!(
        (got - expected).abs() < 1e-6 * expected.abs(),
        "fp8 − bf16 activations {got} B, expected {expected} B"
    );
}
