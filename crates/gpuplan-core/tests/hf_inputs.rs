//! config.json import never panics, and whatever it accepts can be counted without integer
//! overflow (tests run with overflow checks on, so an overflow here is a panic).

use gpuplan_core::model::{param_breakdown, parse_hf_config};
use proptest::prelude::*;
use serde_json::{json, Map, Value};

const KEYS: &[&str] = &[
    "hidden_size",
    "num_hidden_layers",
    "num_attention_heads",
    "num_key_value_heads",
    "vocab_size",
    "intermediate_size",
    "max_position_embeddings",
    "head_dim",
    "num_local_experts",
    "num_experts_per_tok",
    "moe_intermediate_size",
    "n_shared_experts",
    "first_k_dense_replace",
    "kv_lora_rank",
    "q_lora_rank",
    "qk_nope_head_dim",
    "qk_rope_head_dim",
    "v_head_dim",
    "n_embd",
    "n_layer",
    "n_head",
    "n_inner",
    "multi_query",
    "patch_size",
    "image_size",
    "num_channels",
    "type_vocab_size",
];

fn value() -> impl Strategy<Value = Value> {
    prop_oneof![
        4 => prop_oneof![Just(1u64), Just(2), Just(8), Just(64), Just(128), Just(4096)].prop_map(Value::from),
        2 => (0u64..2_000_000).prop_map(Value::from),
        1 => prop_oneof![Just(0u64), Just(u64::MAX), Just(1 << 32), Just(1 << 40), Just(10_000), Just(1_000_000)].prop_map(Value::from),
        1 => prop_oneof![Just(-1.0f64), Just(1.5), Just(1e300), Just(4096.0)].prop_map(|f| json!(f)),
        1 => prop_oneof![Just(json!("8")), Just(json!(true)), Just(Value::Null), Just(json!([1]))],
    ]
}

/// Valid configs of a few families; the strategy overrides random keys of one of them.
fn bases() -> Vec<Value> {
    let llama = json!({"model_type": "llama", "hidden_size": 4096, "num_hidden_layers": 32,
        "num_attention_heads": 32, "num_key_value_heads": 8, "vocab_size": 128256,
        "intermediate_size": 14336, "max_position_embeddings": 8192});
    let mut mixtral = llama.clone();
    mixtral["model_type"] = json!("mixtral");
    mixtral["num_local_experts"] = json!(8);
    mixtral["num_experts_per_tok"] = json!(2);
    let mut ds = mixtral.clone();
    ds["model_type"] = json!("deepseek_v3");
    for (k, v) in [
        ("kv_lora_rank", 512),
        ("q_lora_rank", 1536),
        ("qk_nope_head_dim", 128),
        ("qk_rope_head_dim", 64),
        ("v_head_dim", 128),
        ("moe_intermediate_size", 2048),
        ("n_shared_experts", 1),
        ("first_k_dense_replace", 3),
    ] {
        ds[k] = json!(v);
    }
    vec![
        llama,
        mixtral,
        ds,
        json!({"model_type": "gpt2", "n_embd": 768, "n_layer": 12, "n_head": 12, "vocab_size": 50257}),
        json!({"model_type": "gpt_bigcode", "n_embd": 6144, "n_layer": 40, "n_head": 48,
            "n_inner": 24576, "vocab_size": 49152, "n_positions": 8192, "multi_query": true}),
        json!({"model_type": "vit", "hidden_size": 1024, "num_hidden_layers": 24,
            "num_attention_heads": 16, "intermediate_size": 4096}),
        json!({"model_type": "bert", "hidden_size": 768, "num_hidden_layers": 12,
            "num_attention_heads": 12, "intermediate_size": 3072, "vocab_size": 30522}),
    ]
}

fn config() -> impl Strategy<Value = String> {
    let n = bases().len();
    (0..n, prop::collection::vec((0..KEYS.len(), value()), 0..4)).prop_map(|(base, kv)| {
        let mut m: Map<String, Value> = bases()[base].as_object().cloned().unwrap_or_default();
        for (k, v) in kv {
            m.insert(KEYS[k].into(), v);
        }
        Value::Object(m).to_string()
    })
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 2000, failure_persistence: None, ..ProptestConfig::default() })]

    #[test]
    fn import_never_panics_and_accepted_configs_count_without_overflow(text in config()) {
        let r = parse_hf_config("fuzz", &text);
        if let Err(e) = &r {
            let msg = e.to_string();
            prop_assert!(msg.contains("invalid") || msg.contains("missing"), "{text}: {msg}");
        }
        if let Ok(m) = r {
            let b = param_breakdown(&m);
            prop_assert!(b.total > 0 && b.total as f64 <= 2e15, "{text}: {}", b.total);
            let _ = b.linear_params();
            let _ = b.active_linear_params();
        }
    }
}

/// `vision_config` keys of the multimodal families (model/hf.rs vision_shape).
const VISION_KEYS: &[&str] = &[
    "hidden_size",
    "embed_dim",
    "num_hidden_layers",
    "depth",
    "num_global_layers",
    "intermediate_size",
    "mlp_ratio",
    "patch_size",
    "spatial_merge_size",
    "temporal_patch_size",
    "image_size",
    "num_channels",
    "in_chans",
    "out_hidden_size",
    "vision_output_dim",
    "max_num_tiles",
    "max_aspect_ratio_id",
    "num_attention_heads",
    "num_heads",
];

/// A LLaVA (CLIP), a LLaVA-NeXT, a Qwen2-VL and an mllama config.
fn multimodal_bases() -> Vec<Value> {
    let text = json!({"model_type": "llama", "hidden_size": 4096, "num_hidden_layers": 32,
        "num_attention_heads": 32, "num_key_value_heads": 8, "vocab_size": 32064,
        "intermediate_size": 11008, "max_position_embeddings": 8192});
    let clip = json!({"model_type": "clip_vision_model", "hidden_size": 1024, "image_size": 336,
        "intermediate_size": 4096, "num_attention_heads": 16, "num_hidden_layers": 24, "patch_size": 14});
    let mut mtext = text.clone();
    mtext["model_type"] = json!("mllama_text_model");
    mtext["num_hidden_layers"] = json!(40);
    mtext["cross_attention_layers"] = json!([3, 8, 13, 18, 23, 28, 33, 38]);
    vec![
        json!({"model_type": "llava", "text_config": text, "vision_config": clip}),
        json!({"model_type": "llava_next", "text_config": text, "vision_config": clip}),
        json!({"model_type": "qwen2_vl", "hidden_size": 3584, "num_hidden_layers": 28,
            "num_attention_heads": 28, "num_key_value_heads": 4, "vocab_size": 152064,
            "intermediate_size": 18944, "max_position_embeddings": 32768,
            "vision_config": {"depth": 32, "embed_dim": 1280, "hidden_size": 3584, "mlp_ratio": 4,
                "num_heads": 16, "in_chans": 3, "patch_size": 14, "spatial_merge_size": 2,
                "temporal_patch_size": 2}}),
        json!({"model_type": "mllama", "text_config": mtext, "vision_config": {"hidden_size": 1280,
            "image_size": 560, "patch_size": 14, "num_hidden_layers": 32, "num_global_layers": 8,
            "num_attention_heads": 16, "intermediate_size": 5120, "max_num_tiles": 4,
            "vision_output_dim": 7680}}),
    ]
}

fn multimodal_config() -> impl Strategy<Value = String> {
    let n = multimodal_bases().len();
    (
        0..n,
        prop::collection::vec((0..VISION_KEYS.len(), value()), 0..4),
    )
        .prop_map(|(base, kv)| {
            let mut c = multimodal_bases()[base].clone();
            for (k, v) in kv {
                c["vision_config"][VISION_KEYS[k]] = v;
            }
            c.to_string()
        })
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 1000, failure_persistence: None, ..ProptestConfig::default() })]

    /// Random vision_config values (0, u64::MAX, 1e300, -1, strings, null, arrays) never panic:
    /// a refusal says invalid or missing, an accepted config counts its parameters without
    /// overflow and gives a finite token count for any image size (1 px to 10^5 px a side).
    #[test]
    fn multimodal_import_never_panics(text in multimodal_config(),
                                      w in 1u64..100_000, h in 1u64..100_000) {
        let r = parse_hf_config("fuzz", &text);
        if let Err(e) = &r {
            let msg = e.to_string();
            prop_assert!(msg.contains("invalid") || msg.contains("missing"), "{text}: {msg}");
        }
        if let Ok(m) = r {
            let b = param_breakdown(&m);
            prop_assert!(b.total > 0 && b.total as f64 <= 2e15, "{text}: {}", b.total);
            let v = m.transformer().and_then(|t| t.vision.as_deref());
            prop_assert!(v.is_some(), "{text}: no vision encoder");
            if let Some(v) = v {
                let tokens = v.image_tokens(w, h) as f64 * v.kv_layer_share;
                prop_assert!(tokens.is_finite() && tokens >= 0.0, "{text}: {tokens}");
                prop_assert!((0.0..=1.0).contains(&v.kv_layer_share), "{text}");
            }
        }
    }
}
