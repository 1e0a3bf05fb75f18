//! The `litgpt` framework profile against LitGPT's own LoRA loop, measured on CPU
//! (tools/measure_litgpt.py → validation/litgpt-measured.json for litgpt @00af8b0d and
//! validation/litgpt-old-measured.json for lit-gpt @8641822), its LoRA loop in bf16-true and
//! bf16-mixed and its full fine-tuning loop: every phase of the step, the validation pass, the peak and the
//! saved-after-forward bytes, each within 2%.

use gpuplan_core::constants::Tunables;
use gpuplan_core::hardware::{find_gpu, ClusterSpec, InterLink};
use gpuplan_core::model::parse_hf_config;
use gpuplan_core::train::{training_memory, TrainingMemory};
use gpuplan_core::units::Bandwidth;
use gpuplan_core::workload::{
    AdapterDtype, AttentionImpl, BaseWeights, Framework, LoraConfig, Precision, Recompute,
    TrainTask, TrainingSetup,
};
use serde_json::{json, Value};

fn predict(row: &Value, old: bool) -> TrainingMemory {
    let c = &row["config"];
    let cfg = json!({
        "model_type": "llama",
        "hidden_size": c["n_embd"],
        "num_hidden_layers": c["n_layer"],
        "num_attention_heads": c["n_head"],
        "num_key_value_heads": c["n_query_groups"],
        "intermediate_size": c["intermediate_size"],
        "vocab_size": c["padded_vocab_size"],
        "max_position_embeddings": c["block_size"],
        "rope_theta": c["rope_base"],
        "tie_word_embeddings": false,
    });
    let m = parse_hf_config("tiny", &cfg.to_string()).unwrap();
    let mut targets = vec!["q_proj".to_string(), "v_proj".to_string()];
    if c["lora_key"].as_bool() == Some(true) {
        targets.push("k_proj".into());
    }
    let full = row["task"] == "full";
    // Fabric "bf16-mixed": fp32 parameters and LoRA adapters, the forward under autocast (the
    // `litgpt` framework implies both from the mixed precision).
    let mixed = row["precision"] == "bf16-mixed";
    let mut setup = TrainingSetup {
        task: if full {
            TrainTask::FullFinetune
        } else {
            TrainTask::Lora
        },
        // torch.optim.AdamW on CPU tensors runs its for-loop path (no foreach temporary).
        optimizer_foreach: false,
        framework: Framework::LitGpt,
        precision: if mixed {
            Precision::AmpBf16
        } else {
            Precision::PureBf16
        },
        adapter_dtype: if mixed {
            AdapterDtype::Fp32
        } else {
            AdapterDtype::Bf16
        },
        attention: AttentionImpl::Flash,
        // More than one device: FSDP with every Block checkpointed (measured unsharded).
        recompute: if row["checkpointing"].as_bool() == Some(true) {
            Recompute::Full
        } else {
            Recompute::None
        },
        micro_batch: row["micro_batch"].as_u64().unwrap(),
        seq_len: row["seq"].as_u64().unwrap(),
        grad_accum: 2,
        rmsnorm_fp32: Some(!old),
        lora: if full {
            LoraConfig::default()
        } else {
            LoraConfig {
                rank: c["lora_r"].as_u64().unwrap(),
                targets,
                base: (!mixed).then_some(BaseWeights::Bf16),
                ..Default::default()
            }
        },
        ..Default::default()
    };
    if !full {
        setup.lora = setup.lora.resolved_for(&m);
    }
    let cl = ClusterSpec::new(
        find_gpu("H100-SXM-80G").unwrap(),
        1,
        1,
        InterLink::Rdma,
        Bandwidth::from_gbit_per_s(400.0),
    )
    .unwrap();
    // CPU: `F.dropout` saves its noise in the input dtype (bf16: 2 B; fp32 under autocast, whose
    // norm outputs stay fp32: 4 B), not CUDA's bool mask.
    let tun = Tunables {
        lora_dropout_mask_bytes: if mixed { 4.0 } else { 2.0 },
        ..Tunables::default()
    };
    training_memory(&m, &setup, &cl, &tun).unwrap()
}

/// (label, predicted, measured) for every compared quantity of every row of one file.
fn comparisons(file: &str, old: bool) -> Vec<(String, f64, f64)> {
    let p = format!("{}/../../validation/{file}", env!("CARGO_MANIFEST_DIR"));
    let data: Value = serde_json::from_str(&std::fs::read_to_string(p).unwrap()).unwrap();
    let mut out = Vec::new();
    for r in data["rows"].as_array().unwrap() {
        let name = format!(
            "{} {} {} {} s{} b{}{}",
            data["package"].as_str().unwrap(),
            r["task"].as_str().unwrap(),
            r["precision"].as_str().unwrap(),
            r["shape"].as_str().unwrap(),
            r["seq"],
            r["micro_batch"],
            if r["checkpointing"].as_bool() == Some(true) {
                " ckpt"
            } else {
                ""
            }
        );
        let m = predict(r, old);
        let t = &m.timeline;
        let phase = |p: &str| {
            t.phases
                .iter()
                .filter(|x| x.phase == p || x.phase.starts_with(&format!("{p}:")))
                .map(|x| x.total.0)
                .fold(0.0, f64::max)
        };
        let measured = &r["optimizer_step"]["phase_peaks"];
        let val = r["validate"]["peak_bytes"].as_f64().unwrap();
        let train = r["optimizer_step"]["peak_bytes"].as_f64().unwrap();
        for (label, ours, theirs) in [
            (
                "forward",
                phase("forward"),
                measured["forward"].as_f64().unwrap(),
            ),
            ("loss", phase("loss"), measured["loss"].as_f64().unwrap()),
            (
                "backward",
                phase("backward"),
                measured["backward"].as_f64().unwrap(),
            ),
            ("validation", phase("validation"), val),
            ("peak", m.peak_allocated.0, train.max(val)),
            (
                "saved after forward",
                m.saved_after_forward.0,
                r["saved_after_forward_bytes"].as_f64().unwrap(),
            ),
        ] {
            out.push((format!("{name} {label}"), ours, theirs));
        }
        assert_eq!(
            m.trainable_params_per_device,
            r["trainable_params"].as_f64().unwrap(),
            "{name}: trainable parameters"
        );
    }
    out
}

#[test]
fn litgpt_profile_matches_measured_loop() {
    let rows: Vec<_> = comparisons("litgpt-measured.json", false)
        .into_iter()
        .chain(comparisons("litgpt-old-measured.json", true))
        .collect();
    assert_eq!(
        rows.len(),
        2 * 15 * 6,
        "the grid of tools/measure_litgpt.py"
    );
    let report: String = rows
        .iter()
        .map(|(n, a, b)| {
            format!(
                "{n:40} {:+6.2}%  ({a:.0} vs {b:.0})\n",
                (a / b - 1.0) * 100.0
            )
        })
        .collect();
    println!("{report}");
    for (name, ours, theirs) in &rows {
        let err = ours / theirs - 1.0;
        assert!(err.abs() <= 0.02, "{name}: {:+.2}%\n{report}", err * 100.0);
    }
}
