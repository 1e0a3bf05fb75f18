//! Model descriptions: architecture shapes, parameter counts, presets and HF import.

pub mod hf;
pub mod params;
pub mod presets;
pub mod quant;
pub mod spec;

pub use hf::parse_hf_config;
pub use params::{
    param_breakdown, param_breakdown_shared, transformer_params, LayerGroup, Linear, ParamBreakdown,
};
pub use presets::{find_preset, presets, Preset};
pub use spec::*;

#[cfg(test)]
mod tests {
    use super::*;

    fn count(name: &str) -> ParamBreakdown {
        let p = find_preset(name).unwrap_or_else(|e| panic!("{e}"));
        param_breakdown(&p.model)
    }

    /// Exact HF safetensors counts (model-configs.json `params_total_basis = hf_safetensors_metadata`)
    /// must be reproduced to the parameter.
    #[test]
    fn exact_safetensors_counts_are_reproduced() {
        for p in presets().unwrap() {
            if p.params_basis != "hf_safetensors_metadata" {
                continue;
            }
            let want = p.model.params_published.unwrap();
            let got = param_breakdown(&p.model).total;
            // T5-base's checkpoint stores one extra relative-attention table (384 values), see
            // model-configs.md gotcha 13; everything else must match exactly.
            let slack = if p.model.name == "T5-base" { 384 } else { 0 };
            assert!(
                want.abs_diff(got) <= slack,
                "{}: computed {got}, published {want}",
                p.model.name
            );
        }
    }

    /// Every preset's computed count is within 2% of its published count (card figures are rounded;
    /// BERT-large's "340M" vs 335.1M computed is the widest, 1.4%).
    #[test]
    fn every_transformer_preset_is_close_to_its_published_count() {
        for p in presets().unwrap() {
            let Some(want) = p.model.params_published else {
                continue;
            };
            let got = param_breakdown(&p.model).total as f64;
            let err = (got - want as f64).abs() / want as f64;
            assert!(
                err < 0.02,
                "{}: computed {got}, published {want} ({:.2}%)",
                p.model.name,
                err * 100.0
            );
        }
    }

    #[test]
    fn moe_active_parameters_match_published() {
        let q = count("Qwen3-30B-A3B");
        assert_eq!(q.total, 30_532_122_624);
        assert_eq!(q.active, 3_353_032_704);
        let q = count("Qwen3-235B-A22B");
        assert_eq!(q.active, 22_190_763_520);
        let m = count("Mixtral-8x7B");
        assert_eq!(m.total, 46_702_792_704);
        assert_eq!(m.active, 12_879_925_248);
        // DeepSeek-V3: 671.03B total / 37.55B active without the MTP module (model-configs.md #6).
        let d = count("DeepSeek-V3");
        assert!(
            (d.total as f64 / 671.03e9 - 1.0).abs() < 0.001,
            "{}",
            d.total
        );
        assert!(
            (d.active as f64 / 37.55e9 - 1.0).abs() < 0.002,
            "{}",
            d.active
        );
    }

    #[test]
    fn llama_31_8b_breakdown() {
        let b = count("Llama-3.1-8B");
        assert_eq!(b.total, 8_030_261_248);
        assert_eq!(b.embedding, 128_256 * 4096);
        assert_eq!(b.lm_head, 128_256 * 4096);
        assert_eq!(b.groups[0].params_per_layer(), 218_112_000);
    }

    #[test]
    fn qwen3_uses_head_dim_not_hidden_over_heads() {
        let p = find_preset("Qwen3-32B").unwrap();
        let t = p.model.transformer().unwrap();
        assert_eq!(t.head_dim, 128);
        assert_eq!(t.q_width(), 8192);
        assert_eq!(param_breakdown(&p.model).total, 32_762_123_264);
    }

    #[test]
    fn lookup_is_forgiving_and_suggests() {
        assert_eq!(
            find_preset("meta-llama/Llama-2-7b-hf").unwrap().model.name,
            "Llama-2-7B"
        );
        assert_eq!(
            find_preset("qwen2.5-7b-instruct").unwrap().model.name,
            "Qwen2.5-7B"
        );
        let e = find_preset("Llama-3-8B").unwrap_err().to_string();
        assert!(
            e.contains("did you mean") && e.contains("Llama-3.1-8B"),
            "{e}"
        );
    }

    #[test]
    fn at_least_thirty_presets_each_with_a_source() {
        let all = presets().unwrap();
        assert!(all.len() >= 30);
        for p in all {
            assert!(
                !p.model.sources.is_empty(),
                "{} has no source",
                p.model.name
            );
        }
    }

    #[test]
    fn missing_fields_are_all_named() {
        let e = parse_hf_config("x", r#"{"model_type":"llama","hidden_size":4096}"#).unwrap_err();
        let m = e.to_string();
        for f in [
            "num_hidden_layers",
            "num_attention_heads",
            "vocab_size",
            "intermediate_size",
        ] {
            assert!(m.contains(f), "{m}");
        }
    }

    #[test]
    fn unknown_model_type_imports_with_a_warning() {
        let m = parse_hf_config(
            "mystery",
            r#"{"model_type":"mystery","hidden_size":1024,"num_hidden_layers":4,"num_attention_heads":8,
                "vocab_size":1000,"intermediate_size":4096,"max_position_embeddings":2048}"#,
        )
        .unwrap();
        assert_eq!(m.warnings.len(), 1);
        assert!(m.warnings[0].contains("mystery"));
    }

    /// Families without a preset, checked against their model cards' totals (Gemma-7B "8.54B",
    /// Phi-3-mini "3.8B"): the arithmetic reproduces the exact checkpoint counts.
    #[test]
    fn gemma_and_phi3_configs_import() {
        let g = parse_hf_config(
            "gemma-7b",
            r#"{"model_type":"gemma","hidden_size":3072,"intermediate_size":24576,"num_hidden_layers":28,
                "num_attention_heads":16,"num_key_value_heads":16,"head_dim":256,"vocab_size":256000,
                "max_position_embeddings":8192,"hidden_act":"gelu"}"#,
        )
        .unwrap();
        assert!(g.warnings.is_empty());
        assert_eq!(param_breakdown(&g).total, 8_537_680_896);
        let p = parse_hf_config(
            "phi-3-mini",
            r#"{"model_type":"phi3","hidden_size":3072,"intermediate_size":8192,"num_hidden_layers":32,
                "num_attention_heads":32,"num_key_value_heads":32,"vocab_size":32064,
                "max_position_embeddings":4096,"tie_word_embeddings":false}"#,
        )
        .unwrap();
        assert_eq!(param_breakdown(&p).total, 3_821_079_552);
    }

    /// DeepSeek-V2-Lite: MLA without q compression, 64 experts + 2 shared, one dense layer; the
    /// model card gives 15.7B total / 2.4B activated.
    #[test]
    fn deepseek_v2_lite_imports() {
        let m = parse_hf_config(
            "DeepSeek-V2-Lite",
            r#"{"model_type":"deepseek_v2","hidden_size":2048,"intermediate_size":10944,"moe_intermediate_size":1408,
                "num_hidden_layers":27,"num_attention_heads":16,"num_key_value_heads":16,"n_routed_experts":64,
                "n_shared_experts":2,"num_experts_per_tok":6,"first_k_dense_replace":1,"q_lora_rank":null,
                "kv_lora_rank":512,"qk_nope_head_dim":128,"qk_rope_head_dim":64,"v_head_dim":128,
                "vocab_size":102400,"max_position_embeddings":163840,"tie_word_embeddings":false}"#,
        )
        .unwrap();
        let b = param_breakdown(&m);
        assert!((b.total as f64 / 15.7e9 - 1.0).abs() < 0.01, "{}", b.total);
        // FIXME: computed active parameters are 2.66B against the card's "2.4B activated"; the card
        // does not say what it counts (without the 0.42B of embeddings it would be 2.24B), while the
        // same rule matches DeepSeek-V3's 37B within 1.5%. Not asserted until the definition is known.
        assert!(b.active < b.total / 5);
    }

    #[test]
    fn bad_json_reports_line() {
        let e = parse_hf_config("x", "{\n \"a\": 1,\n oops }")
            .unwrap_err()
            .to_string();
        assert!(e.contains("line 3"), "{e}");
    }

    #[test]
    fn kv_heads_must_divide_heads() {
        let e = parse_hf_config(
            "x",
            r#"{"model_type":"llama","hidden_size":1024,"num_hidden_layers":4,"num_attention_heads":8,
                "num_key_value_heads":3,"vocab_size":1000,"intermediate_size":4096}"#,
        )
        .unwrap_err()
        .to_string();
        assert!(e.contains("num_key_value_heads"), "{e}");
    }
}
