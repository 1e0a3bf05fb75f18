//! gpuplan's HuggingFace activation profile against exact saved-tensor counts of real HF models
//! (tools/measure_activations.py → validation/activations-measured.json, bf16, CPU).

use gpuplan_core::model::parse_hf_config;
use gpuplan_core::train::layer_activation;
use gpuplan_core::workload::{AttentionImpl, Framework, TrainingSetup};

fn measured(file: &str) -> serde_json::Value {
    let p = format!("{}/../../validation/{file}", env!("CARGO_MANIFEST_DIR"));
    serde_json::from_str(&std::fs::read_to_string(p).unwrap()).unwrap()
}

/// Both measurements: 256 tokens and 512 (`tools/measure_activations.py 512`).
const FILES: [&str; 2] = [
    "activations-measured.json",
    "activations-measured-s512.json",
];

#[test]
fn hf_profile_matches_saved_tensor_counts() {
    for file in FILES {
        profile_matches(&measured(file));
    }
}

/// GPT-2's bytes beyond its LayerNorm inputs, linear inputs and attention tensors are a per-token
/// term under SDPA (the fused `c_attn` storage the saved query keeps and the K, V copies,
/// `fused_qkv_kept`), not a per-score one: the SDPA layer keeps the same bytes per token at 512
/// tokens as at 256 (a per-score term would grow with a·s). Eager keeps c B per score and not
/// the 4h copies: its excess over SDPA is 2·a·s − 4h per token (a·s = 4h at 256, 8h at 512), ×3.
#[test]
fn gpt2_extra_is_per_token_not_per_score() {
    let per_token = |d: &serde_json::Value, case: &str| {
        let tokens = d["batch"].as_f64().unwrap() * d["seq"].as_f64().unwrap();
        d["cases"][case]["per_layer_bytes"].as_f64().unwrap() / tokens
    };
    let (a, b) = (measured(FILES[0]), measured(FILES[1]));
    assert_eq!(
        (a["seq"].as_u64(), b["seq"].as_u64()),
        (Some(256), Some(512))
    );
    let (sdpa256, sdpa512) = (
        per_token(&a, "gpt2-tiny-sdpa"),
        per_token(&b, "gpt2-tiny-sdpa"),
    );
    assert!(
        (sdpa512 / sdpa256 - 1.0).abs() < 1e-3,
        "{sdpa256} vs {sdpa512}"
    );
    let eager =
        |d: &serde_json::Value| per_token(d, "gpt2-tiny-eager") - per_token(d, "gpt2-tiny-sdpa");
    let ratio = eager(&b) / eager(&a);
    assert!((ratio - 3.0).abs() < 0.05, "eager excess ×{ratio}");
    // 384 wide, 6 heads: 60.08h per token at both lengths. Were the 4h beyond the LayerNorm
    // inputs a per-score term (1 B per score in bf16, a·s = 4h at 256 tokens), the 512-token
    // layer would keep 64.08h.
    let h = 384.0;
    assert!((sdpa512 / h - 60.08).abs() < 0.01, "{} h", sdpa512 / h);
}

fn profile_matches(data: &serde_json::Value) {
    let tokens = data["batch"].as_f64().unwrap() * data["seq"].as_f64().unwrap();
    let seq = data["seq"].as_u64().unwrap();
    let cases = data["cases"].as_object().unwrap();
    assert!(cases.len() >= 8);
    let mut report = Vec::new();
    for (name, c) in cases {
        let mut cfg = c["config"].clone();
        let layers_key = if cfg["model_type"] == "gpt2" {
            "n_layer"
        } else {
            "num_hidden_layers"
        };
        cfg[layers_key] = serde_json::json!(1);
        let m = parse_hf_config(name, &cfg.to_string()).unwrap();
        let t = m.transformer().unwrap();
        let setup = TrainingSetup {
            framework: Framework::HuggingFace,
            attention: if c["attn_implementation"] == "eager" {
                AttentionImpl::Eager
            } else {
                AttentionImpl::Flash
            },
            // The measured batch: GPT-2's eager query is a view on the fused c_attn storage
            // only at a micro-batch of one (train.rs `fused_qkv_kept`).
            micro_batch: data["batch"].as_u64().unwrap(),
            seq_len: seq,
            ..Default::default()
        };
        let la = layer_activation(t, seq, &setup);
        let predicted = la.replicated + la.sharded + la.scores;
        let measured = c["per_layer_bytes"].as_f64().unwrap() / tokens;
        let err = predicted / measured - 1.0;
        report.push(format!(
            "{name}: predicted {predicted:.0} B/token/layer, measured {measured:.0} ({:+.1}%)",
            err * 100.0
        ));
        // Every model within 2% (GPT-2's eager-score term is fitted on these rows and on
        // validation/peak-measured.json: in-sample for GPT-2 eager; its LayerNorm input and
        // fused c_attn storage are read from the saved tensors).
        assert!(err.abs() < 0.02, "{}", report.join("\n"));
    }
    println!("{}", report.join("\n"));
}

/// The presets given by totals carry the measured figures, and the measurement reproduces the
/// published ones (ResNet-50: torchvision's 4.09 GMAC = 8.18 GFLOPs; SDXL UNet: 2.6B params).
#[test]
fn opaque_presets_match_their_measurements() {
    use gpuplan_core::model::{find_preset, Architecture};
    let p = format!(
        "{}/../../validation/opaque-measured.json",
        env!("CARGO_MANIFEST_DIR")
    );
    let data: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(p).unwrap()).unwrap();
    let m = &data["models"];
    let resnet_flops = m["ResNet-50"]["forward_flops_per_sample"].as_f64().unwrap();
    assert!(
        (resnet_flops / 8.18e9 - 1.0).abs() < 0.001,
        "{resnet_flops}"
    );
    assert_eq!(m["ResNet-50"]["params"].as_u64(), Some(25_557_032));
    let sdxl_params = m["SDXL-UNet"]["params"].as_f64().unwrap();
    assert!((sdxl_params / 2.6e9 - 1.0).abs() < 0.02, "{sdxl_params}");
    for name in ["ResNet-50", "SDXL-UNet"] {
        let Architecture::Opaque(o) = &find_preset(name).unwrap().model.architecture else {
            panic!("{name}")
        };
        assert_eq!(
            o.activation_bytes_per_sample,
            m[name]["activation_bytes_per_sample"].as_f64()
        );
        assert!(o.forward_flops_per_sample.is_finite());
    }
}

/// BERT (post-LN, separate q/k/v projections) under SDPA: each LayerNorm saves its input alone,
/// so the layer keeps 32h per token in bf16 at 256 and 512 tokens
/// (tools/measure_bert_layernorm.py → validation/bert-layernorm-measured.json), as the profile
/// charges; the 4h per LayerNorm fitted on GPT-2 before round 10 gave 36h (+12%). BERT's eager
/// path is not pinned: its bf16 softmax keeps c B per score, where the profile charges 6.
#[test]
fn bert_layernorm_saves_its_input() {
    let data = measured("bert-layernorm-measured.json");
    let c = &data["config"];
    let mut cfg = c.clone();
    cfg["model_type"] = serde_json::json!("bert");
    cfg["num_hidden_layers"] = serde_json::json!(1);
    let m = parse_hf_config("bert-tiny", &cfg.to_string()).unwrap();
    let t = m.transformer().unwrap();
    for seq in [256u64, 512] {
        let setup = TrainingSetup {
            framework: Framework::HuggingFace,
            attention: AttentionImpl::Flash,
            seq_len: seq,
            ..Default::default()
        };
        let la = layer_activation(t, seq, &setup);
        let predicted = la.replicated + la.sharded + la.scores;
        let tokens = data["batch"].as_f64().unwrap() * seq as f64;
        let key = format!("sdpa-s{seq}");
        let measured = data["per_layer_bytes"][key.as_str()].as_f64().unwrap() / tokens;
        let err = predicted / measured - 1.0;
        assert!(
            err.abs() < 0.02,
            "BERT s{seq}: {predicted} vs {measured} B/token ({err:+.3})"
        );
    }
}
