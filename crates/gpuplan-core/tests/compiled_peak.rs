//! The liveness timeline under torch.compile against one whole training step of tiny HF models
//! on CPU (tools/measure_compiled.py → validation/compiled-peak-measured.json: Inductor over
//! `model.forward`, the eager loss outside it; torch.profiler allocation events and saved-tensor
//! hooks), as tests/measured_peak.rs holds the eager rows.

use gpuplan_core::constants::Tunables;
use gpuplan_core::hardware::{find_gpu, ClusterSpec, InterLink};
use gpuplan_core::model::parse_hf_config;
use gpuplan_core::train::{training_memory, TrainingMemory};
use gpuplan_core::units::Bandwidth;
use gpuplan_core::workload::{
    AdapterDtype, AttentionImpl, BaseWeights, LoraConfig, Precision, Recompute, TrainTask,
    TrainingSetup,
};
use serde_json::Value;

fn predict(row: &Value, batch: u64, seq: u64) -> TrainingMemory {
    let mut cfg = row["config"].clone();
    cfg["num_hidden_layers"] = row["layers"].clone();
    let m = parse_hf_config("tiny", &cfg.to_string()).unwrap();
    let c = ClusterSpec::new(
        find_gpu("H100-SXM-80G").unwrap(),
        1,
        1,
        InterLink::Rdma,
        Bandwidth::from_gbit_per_s(400.0),
    )
    .unwrap();
    let lora = &row["lora"];
    let mut setup = TrainingSetup {
        task: if lora.is_null() {
            TrainTask::FullFinetune
        } else {
            TrainTask::Lora
        },
        precision: Precision::PureBf16,
        compiled: true,
        optimizer_foreach: true,
        attention: AttentionImpl::Flash,
        recompute: if row["checkpointing"].as_bool().unwrap() {
            Recompute::Full
        } else {
            Recompute::None
        },
        micro_batch: batch,
        seq_len: seq,
        // PEFT's default: fp32 adapters (autocast_adapter_dtype).
        adapter_dtype: AdapterDtype::Fp32,
        lora: if lora.is_null() {
            LoraConfig::default()
        } else {
            LoraConfig {
                rank: lora["rank"].as_u64().unwrap(),
                targets: serde_json::from_value(lora["targets"].clone()).unwrap(),
                base: Some(BaseWeights::Bf16),
                dropout: lora["dropout"].as_f64().unwrap(),
                ..Default::default()
            }
        },
        ..Default::default()
    };
    setup.lora = setup.lora.resolved_for(&m);
    training_memory(&m, &setup, &c, &Tunables::default()).unwrap()
}

#[test]
fn compiled_timeline_matches_measured_steps() {
    let p = concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/../../validation/compiled-peak-measured.json"
    );
    let data: Value = serde_json::from_str(&std::fs::read_to_string(p).unwrap()).unwrap();
    let (b, s) = (
        data["batch"].as_u64().unwrap(),
        data["seq"].as_u64().unwrap(),
    );
    let rows = data["rows"].as_array().unwrap();
    assert_eq!(rows.len(), 16, "the grid of tools/measure_compiled.py");
    let mut report = String::new();
    let mut worst: f64 = 0.0;
    for r in rows {
        let m = predict(r, b, s);
        let name = format!(
            "{} ckpt={} lora={}",
            r["model"].as_str().unwrap(),
            r["checkpointing"],
            r["lora"]["targets"].as_array().map_or(0, Vec::len)
        );
        let peak = m.peak_allocated.0 / r["peak_bytes"].as_f64().unwrap() - 1.0;
        let saved =
            m.saved_after_forward.0 / r["saved_after_forward_bytes"].as_f64().unwrap() - 1.0;
        let fwd = m
            .timeline
            .phases
            .iter()
            .find(|p| p.phase == "forward")
            .unwrap()
            .total
            .0
            / r["live_after_forward_bytes"].as_f64().unwrap()
            - 1.0;
        report += &format!(
            "{name:28} peak {:+6.2}%  saved {:+6.2}%  end of forward {:+6.2}%\n",
            peak * 100.0,
            saved * 100.0,
            fwd * 100.0
        );
        if r["model"] == "llama_v256" {
            // The 256-token vocabulary rows, where the layers' backward is the peak: the saved
            // sets within 5% (a few tens of KB: the rotary tables), and the peak held as a
            // regression band at today's measured gap — the CPU Inductor backward of a compiled
            // layer (fp32 LoRA adapters above all) peaks 3–23% above the eager working set the
            // model keeps for it; CUDA's is not measured (docs/methodology.md).
            // Issue 9's 2% rule covers the eager/SDPA grid (tests/measured_peak.rs), not these
            // four peaks: inside a compiled backward the allocations are the generated kernels'
            // buffers (Inductor's fusion and buffer reuse, C++ on CPU, Triton on CUDA), so the
            // CPU bytes are not the GPU's and this band is a regression check, not accuracy.
            assert!(saved.abs() <= 0.05 && fwd.abs() <= 0.05, "{name}\n{report}");
            assert!((-0.25..=0.05).contains(&peak), "{name}: peak\n{report}");
        } else {
            worst = worst.max(peak.abs()).max(saved.abs()).max(fwd.abs());
        }
    }
    println!("{report}");
    assert!(worst <= 0.02, "beyond 2%:\n{report}");
}

/// The compiled saved set is smaller than the eager one (the norms' fp32 copies, SiLU's output
/// and the residual sums recomputed) and leaves fp32 training, autocast and eager attention on
/// the eager accounting.
#[test]
fn compile_shrinks_the_saved_set_only_where_measured() {
    use gpuplan_core::model::find_preset;
    use gpuplan_core::train::compiled_layer_applies;
    let m = &find_preset("Llama-3.1-8B").unwrap().model;
    let t = m.transformer().unwrap();
    let c = ClusterSpec::new(
        find_gpu("H100-SXM-80G").unwrap(),
        1,
        1,
        InterLink::Rdma,
        Bandwidth::from_gbit_per_s(400.0),
    )
    .unwrap();
    let base = TrainingSetup {
        task: TrainTask::FullFinetune,
        precision: Precision::PureBf16,
        attention: AttentionImpl::Flash,
        recompute: Recompute::None,
        micro_batch: 1,
        seq_len: 2048,
        ..Default::default()
    };
    let saved = |s: &TrainingSetup| {
        training_memory(m, s, &c, &Tunables::default())
            .unwrap()
            .saved_after_forward
            .0
    };
    let compiled = TrainingSetup {
        compiled: true,
        ..base.clone()
    };
    assert!(compiled_layer_applies(t, &compiled));
    assert!(saved(&compiled) < 0.9 * saved(&base));
    for other in [
        TrainingSetup {
            precision: Precision::Fp32,
            ..compiled.clone()
        },
        TrainingSetup {
            attention: AttentionImpl::Eager,
            ..compiled.clone()
        },
    ] {
        assert!(!compiled_layer_applies(t, &other));
    }
}

/// `lora.dropout = 0` (torchtune's LoRALinear: `nn.Identity`): no dropout masks — one byte per
/// element of every adapted input on CUDA — and nothing else changes; a probability outside
/// [0, 1) is an error naming the field.
#[test]
fn lora_dropout_zero_saves_no_masks() {
    use gpuplan_core::model::find_preset;
    let m = &find_preset("Llama-3.1-8B").unwrap().model;
    let c = ClusterSpec::new(
        find_gpu("H100-SXM-80G").unwrap(),
        1,
        1,
        InterLink::Rdma,
        Bandwidth::from_gbit_per_s(400.0),
    )
    .unwrap();
    let with = |p: f64| TrainingSetup {
        task: TrainTask::Lora,
        precision: Precision::PureBf16,
        attention: AttentionImpl::Flash,
        micro_batch: 1,
        seq_len: 1024,
        lora: LoraConfig {
            rank: 8,
            targets: vec!["q_proj".into(), "v_proj".into()],
            dropout: p,
            ..Default::default()
        },
        ..Default::default()
    };
    let saved = |p: f64| {
        training_memory(m, &with(p), &c, &Tunables::default())
            .unwrap()
            .saved_after_forward
            .0
    };
    // q_proj and v_proj read one input (h = 4096) in each of 32 layers; layer 0's adapters see
    // an input without gradient and keep no mask either (PEFT without checkpointing).
    let masks = Tunables::default().lora_dropout_mask_bytes * 2.0 * 4096.0 * 1024.0 * 31.0;
    let got = saved(0.05) - saved(0.0);
    assert!((got - masks).abs() / masks < 1e-9, "{got} vs {masks}");
    for bad in [1.0, -0.1, f64::NAN] {
        let e = training_memory(m, &with(bad), &c, &Tunables::default()).unwrap_err();
        assert!(e.to_string().contains("lora.dropout"), "{e}");
    }
}
