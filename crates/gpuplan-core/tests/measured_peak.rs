//! The liveness-timeline model against the measured peak of one whole training step of tiny HF
//! models on CPU (tools/measure_peak.py → validation/peak-measured.json: torch.profiler
//! allocation events, saved-tensor hooks).

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

fn setup_for(row: &Value, batch: u64, seq: u64) -> TrainingSetup {
    let dtype = row["dtype"].as_str().unwrap();
    let lora = &row["lora"];
    TrainingSetup {
        task: if lora.is_null() {
            TrainTask::FullFinetune
        } else {
            TrainTask::Lora
        },
        precision: match dtype {
            "fp32" => Precision::Fp32,
            "bf16" => Precision::PureBf16,
            _ => Precision::AmpBf16,
        },
        autocast: dtype == "autocast-bf16",
        optimizer_foreach: true,
        attention: if row["attn_implementation"] == "eager" {
            AttentionImpl::Eager
        } else {
            AttentionImpl::Flash
        },
        recompute: if row["checkpointing"].as_bool().unwrap() {
            Recompute::Full
        } else {
            Recompute::None
        },
        micro_batch: batch,
        seq_len: seq,
        lora: if lora.is_null() {
            LoraConfig::default()
        } else {
            LoraConfig {
                rank: lora["rank"].as_u64().unwrap(),
                targets: serde_json::from_value(lora["targets"].clone()).unwrap(),
                base: Some(if dtype == "bf16" {
                    BaseWeights::Bf16
                } else {
                    BaseWeights::Fp32
                }),
                dropout: lora["dropout"].as_f64().unwrap(),
                ..Default::default()
            }
        },
        ..Default::default()
    }
}

fn predict(row: &Value, batch: u64, seq: u64) -> TrainingMemory {
    let mut cfg = row["config"].clone();
    let key = if cfg["model_type"] == "gpt2" {
        "n_layer"
    } else {
        "num_hidden_layers"
    };
    cfg[key] = row["layers"].clone();
    let m = parse_hf_config("tiny", &cfg.to_string()).unwrap();
    let c = ClusterSpec::new(
        find_gpu("H100-SXM-80G").unwrap(),
        1,
        1,
        InterLink::Rdma,
        Bandwidth::from_gbit_per_s(400.0),
    )
    .unwrap();
    // CPU rows: `F.dropout` saves its float noise (fp32 adapters: 4 B), not CUDA's bool mask.
    let tun = Tunables {
        lora_dropout_mask_bytes: 4.0,
        ..Tunables::default()
    };
    let mut setup = setup_for(row, batch, seq);
    setup.lora = setup.lora.resolved_for(&m);
    training_memory(&m, &setup, &c, &tun).unwrap()
}

/// The row's batch and sequence length: its own (the second shape's rows carry them), else the
/// header's.
fn shape(data: &Value, r: &Value) -> (u64, u64) {
    let get = |k: &str| r[k].as_u64().or(data[k].as_u64()).unwrap();
    (get("batch"), get("seq"))
}

fn row_name(data: &Value, r: &Value) -> String {
    let (b, s) = shape(data, r);
    // The rows at a narrower width than the model's usual 256 (`grid_narrow`) say so.
    let cfg = &r["config"];
    let width = cfg["hidden_size"].as_u64().or(cfg["n_embd"].as_u64());
    let narrow = match width {
        Some(h) if h != 256 => format!(" h{h}"),
        _ => String::new(),
    };
    format!(
        "{} {} {} ckpt={} lora={} {b}x{s}x{}L{narrow}",
        r["model"].as_str().unwrap(),
        r["dtype"].as_str().unwrap(),
        r["attn_implementation"].as_str().unwrap(),
        r["checkpointing"],
        !r["lora"].is_null(),
        r["layers"]
    )
}

fn measured() -> Value {
    let p = format!(
        "{}/../../validation/peak-measured.json",
        env!("CARGO_MANIFEST_DIR")
    );
    serde_json::from_str(&std::fs::read_to_string(p).unwrap()).unwrap()
}

/// Relative errors (peak, saved-after-forward) and the predicted peak phase, per row.
fn errors() -> Vec<(String, f64, f64, String, String)> {
    let data = measured();
    data["rows"]
        .as_array()
        .unwrap()
        .iter()
        .map(|r| {
            let (b, s) = shape(&data, r);
            let m = predict(r, b, s);
            // PEFT's trainable parameters exactly (GPT-2's fused c_attn: one adapter).
            if !r["lora"].is_null() {
                assert_eq!(
                    m.trainable_params_per_device,
                    r["trainable_params"].as_f64().unwrap(),
                    "{}: trainable parameters",
                    row_name(&data, r)
                );
            }
            let peak = m.peak_allocated.0 / r["peak_bytes"].as_f64().unwrap() - 1.0;
            let saved =
                m.saved_after_forward.0 / r["saved_after_forward_bytes"].as_f64().unwrap() - 1.0;
            (
                row_name(&data, r),
                peak,
                saved,
                m.phase_at_peak.to_string(),
                r["phase_at_peak"].as_str().unwrap().to_string(),
            )
        })
        .collect()
}

#[test]
fn timeline_matches_measured_peaks() {
    let rows = errors();
    let mut report = String::new();
    for (name, peak, saved, phase, measured_phase) in &rows {
        report += &format!(
            "{name:56} peak {:+6.1}%  saved {:+6.1}%  phase {phase} (measured {measured_phase})\n",
            peak * 100.0,
            saved * 100.0
        );
    }
    println!("{report}");
    // 62 rows at batch 2 x 256 tokens x 2 layers, 10 more (Qwen2 checkpointing/LoRA, Mixtral
    // LoRA), 18 at batch 1 x 1024 tokens x 4 layers; 25 more at the first shape from issue 9's
    // acceptance audit (docs/notes/issue9-audit.md): the 9 SDPA combinations the grid lacked
    // (GPT-2 and Mixtral LoRA with checkpointing, Qwen2 and Mixtral autocast with checkpointing)
    // and eager attention with checkpointing and with LoRA on all four models; 20 more at the
    // first shape (stop 40, `grid_completion`): eager attention under autocast with
    // checkpointing or LoRA, and eager with LoRA and checkpointing in every dtype — every one of
    // the 96 combinations of {Llama, Qwen2, GPT-2, Mixtral} x {fp32, bf16, autocast} x {eager,
    // SDPA} x checkpointing x LoRA is measured; and 4 at h = 192 != s (`grid_narrow`: Llama and
    // GPT-2 fp32 eager with LoRA and with checkpointing), where the mechanisms of the eager LoRA
    // and eager checkpointing rows are told apart by size.
    assert_eq!(rows.len(), 139, "the grid of tools/measure_peak.py");
    for (name, peak, saved, phase, measured_phase) in &rows {
        // "backward: loss" etc. against the profiler's record_function range.
        let coarse = phase.split(':').next().unwrap().replace(" step", "");
        assert_eq!(&coarse, measured_phase, "{name}: phase\n{report}");
        assert!(
            peak.abs() <= TOLERANCE,
            "{name}: peak {:+.1}%\n{report}",
            peak * 100.0
        );
        assert!(
            saved.abs() <= TOLERANCE,
            "{name}: saved {:+.1}%\n{report}",
            saved * 100.0
        );
    }
}

/// Every row: 2% on the peak and on the saved-after-forward bytes (issue 9). Until stop 40 five
/// rows were held at 3% on the saved bytes (docs/notes/issue9-audit.md §1): fp32 eager attention
/// with LoRA (one attention output per layer too many: train.rs `eager_attention_output_unsaved`)
/// and GPT-2 fp32 eager with checkpointing (the 4-D mask its checkpoint saves:
/// `checkpointed_eager_mask`), both read per tensor with saved-tensor hooks.
const TOLERANCE: f64 = 0.02;

/// The loss phase against the profiler's peak inside its range (`phase_peaks_bytes`): what the
/// timeline holds live before backward — the saved activations, the logits and loss buffers, and
/// under autocast with full checkpointing the cast cache of the trainable weights (2.4% of the
/// phase on the Llama row, −0.1% with it). 2% on every row. The forward phase is reported, not
/// asserted: the timeline holds its end state, and the peak inside the range also has the last
/// op's temporaries (bf16 RMSNorm upcasts and the like: up to −10% of the phase on these rows,
/// never the step's peak).
#[test]
fn loss_phase_matches_measured_phase_peaks() {
    let data = measured();
    let mut report = String::new();
    let mut worst: f64 = 0.0;
    for r in data["rows"].as_array().unwrap() {
        let (b, s) = shape(&data, r);
        let m = predict(r, b, s);
        let phase = |name: &str| {
            m.timeline
                .phases
                .iter()
                .find(|p| p.phase == name)
                .map(|p| p.total.0)
                .unwrap()
        };
        let measured = |name: &str| r["phase_peaks_bytes"][name].as_f64().unwrap();
        let fwd = phase("forward") / measured("forward") - 1.0;
        let loss = phase("loss") / measured("loss") - 1.0;
        worst = worst.max(loss.abs());
        report += &format!(
            "{:56} forward {:+6.1}%  loss {:+6.1}%\n",
            row_name(&data, r),
            fwd * 100.0,
            loss * 100.0
        );
    }
    println!("{report}");
    assert!(worst <= 0.02, "loss phase {:.1}%\n{report}", worst * 100.0);
}

/// Qwen-1's own code under finetune.py's LoRA step (tools/measure_qwen1.py →
/// validation/qwen1-measured.json: Qwen/Qwen-7B modeling_qwen.py @e7a368b, PEFT 0.6.2, the 1.8B
/// shapes at 1 and 2 layers on CPU): the 1.8B LoRA case's own workload, cut to the measured
/// layers and length, allocates what the code allocates (2%, as every row above), peak at
/// log_softmax's backward ("backward: loss"). So the case's remaining miss is outside the bytes
/// torch allocates (its known_deviation). PEFT 0.6.2's adapters are fp32: 4 B a parameter.
#[test]
fn qwen1_lora_case_matches_its_code() {
    use gpuplan_core::validation::{parse_case, workload_model};
    let root = concat!(env!("CARGO_MANIFEST_DIR"), "/../..");
    let read = |p: &str| std::fs::read_to_string(format!("{root}/{p}")).unwrap();
    let case = parse_case("qwen", &read("cases/mem-qwen1-18b-lora-s256.toml")).unwrap();
    let data: Value = serde_json::from_str(&read("validation/qwen1-measured.json")).unwrap();
    let rows = data["rows"].as_array().unwrap();
    assert_eq!(rows.len(), 3, "1 x 256, 1 x 512, 2 x 256");
    // CPU rows: `F.dropout` saves its float noise, not CUDA's bool mask.
    let tun = Tunables {
        lora_dropout_mask_bytes: 4.0,
        ..Tunables::default()
    };
    for r in rows {
        let mut w = case.workload.clone();
        w.config.as_mut().unwrap()["num_hidden_layers"] = r["layers"].clone();
        let m = workload_model(&w, "qwen").unwrap();
        let mut setup = w.training.clone().unwrap();
        setup.seq_len = r["seq"].as_u64().unwrap();
        setup.lora = setup.lora.resolved_for(&m);
        let c = w.hardware.clone().unwrap().cluster().unwrap();
        let e = training_memory(&m, &setup, &c, &tun).unwrap();
        let name = format!("{} layers x {} tokens", r["layers"], r["seq"]);
        assert_eq!(
            e.trainable_params_per_device,
            r["trainable_params"].as_f64().unwrap(),
            "{name}: PEFT's adapters on c_attn, c_proj, w1, w2"
        );
        // PEFT 0.6.2 keeps the adapters in fp32 (4 B a gradient): the case must say so.
        assert_eq!(
            r["grad_bytes"].as_f64().unwrap(),
            4.0 * e.trainable_params_per_device,
            "{name}: fp32 adapters"
        );
        assert_eq!(setup.adapter_dtype, AdapterDtype::Fp32, "{name}");
        let err = e.peak_allocated.0 / r["peak_bytes"].as_f64().unwrap() - 1.0;
        assert!(err.abs() <= 0.02, "{name}: peak {:+.2}%", err * 100.0);
        assert_eq!(e.phase_at_peak.to_string(), "backward: loss", "{name}");
        assert_eq!(
            r["op_at_peak"], "aten::_log_softmax_backward_data",
            "{name}"
        );
    }
}
