//! Audit r15: each test runs the CLI (or the API) as a user does and asserts the property the
//! finding broke. Findings and inputs: docs/notes/notes-audit-r15.md; sweep family `r15`.

mod common;
use common::{post, write_temp};
use serde_json::json;

const TAG: &str = "audit-r15";

/// Exit `code` with every phrase of `phrases` present (`!phrase`: absent).
fn refused(args: &[&str], code: i32, phrases: &[&str]) -> std::process::Output {
    common::assert_refused(TAG, args, code, phrases)
}

/// Qwen/Qwen3-Next-80B-A3B-Instruct's config.json (the keys that mark its layers): 48 layers, of
/// which every fourth is full attention and the rest Gated DeltaNet linear attention.
fn qwen3_next() -> serde_json::Value {
    json!({"architectures": ["Qwen3NextForCausalLM"], "model_type": "qwen3_next",
      "decoder_sparse_step": 1, "full_attention_interval": 4, "head_dim": 256,
      "hidden_size": 2048, "intermediate_size": 5120, "linear_conv_kernel_dim": 4,
      "linear_key_head_dim": 128, "linear_num_key_heads": 16, "linear_num_value_heads": 32,
      "linear_value_head_dim": 128, "max_position_embeddings": 262144, "mlp_only_layers": [],
      "moe_intermediate_size": 512, "num_attention_heads": 16, "num_experts": 512,
      "num_experts_per_tok": 10, "num_hidden_layers": 48, "num_key_value_heads": 2,
      "partial_rotary_factor": 0.25, "shared_expert_intermediate_size": 512,
      "tie_word_embeddings": false, "torch_dtype": "bfloat16", "vocab_size": 151936})
}

/// Llama-4-Scout-17B-16E's config.json (meta-llama): the language model in `text_config`.
fn llama4_scout() -> serde_json::Value {
    json!({"architectures": ["Llama4ForConditionalGeneration"], "model_type": "llama4",
      "text_config": {"attention_chunk_size": 8192, "head_dim": 128, "hidden_size": 5120,
        "interleave_moe_layer_step": 1, "intermediate_size": 8192,
        "intermediate_size_mlp": 16384, "max_position_embeddings": 10485760,
        "model_type": "llama4_text", "num_attention_heads": 40, "num_experts_per_tok": 1,
        "num_hidden_layers": 48, "num_key_value_heads": 8, "num_local_experts": 16,
        "vocab_size": 202048},
      "vision_config": {"hidden_size": 1408, "image_size": 336, "intermediate_size": 5632,
        "model_type": "llama4_vision_model", "num_attention_heads": 16,
        "num_hidden_layers": 34, "patch_size": 14, "vision_output_dim": 4096},
      "torch_dtype": "bfloat16"})
}

/// DeepSeek-V3.2-Exp's config.json: DeepSeek-V3's keys plus the sparse-attention indexer's.
fn deepseek_v32() -> serde_json::Value {
    json!({"architectures": ["DeepseekV32ForCausalLM"], "model_type": "deepseek_v32",
      "hidden_size": 7168, "intermediate_size": 18432, "moe_intermediate_size": 2048,
      "num_hidden_layers": 61, "num_attention_heads": 128, "num_key_value_heads": 128,
      "n_routed_experts": 256, "n_shared_experts": 1, "num_experts_per_tok": 8,
      "first_k_dense_replace": 3, "kv_lora_rank": 512, "q_lora_rank": 1536,
      "qk_nope_head_dim": 128, "qk_rope_head_dim": 64, "v_head_dim": 128, "vocab_size": 129280,
      "max_position_embeddings": 163840, "index_head_dim": 128, "index_n_heads": 64,
      "index_topk": 2048, "torch_dtype": "bfloat16"})
}

/// zai-org/GLM-4.5's config.json (`glm4_moe`, one MTP layer).
fn glm45() -> serde_json::Value {
    json!({"architectures": ["Glm4MoeForCausalLM"], "model_type": "glm4_moe",
      "attention_bias": true, "first_k_dense_replace": 3, "head_dim": 128, "hidden_size": 5120,
      "intermediate_size": 12288, "max_position_embeddings": 131072,
      "moe_intermediate_size": 1536, "n_routed_experts": 160, "n_shared_experts": 1,
      "num_attention_heads": 96, "num_experts_per_tok": 8, "num_hidden_layers": 92,
      "num_key_value_heads": 8, "num_nextn_predict_layers": 1, "partial_rotary_factor": 0.5,
      "tie_word_embeddings": false, "torch_dtype": "bfloat16", "vocab_size": 151552})
}

fn write_json(name: &str, v: &serde_json::Value) -> std::path::PathBuf {
    write_temp(TAG, name, &v.to_string())
}

/// #1: configs whose layers are not softmax attention + MLP/MoE were sized as if they were
/// (Qwen3-Next, MiniMax, RecurrentGemma, Llama 4, DeepSeek-V3.2: exit 0 behind a generic
/// warning), or refused asking for a key that would not make them estimable (Mamba, RWKV:
/// "missing `num_attention_heads`"). Each is refused naming the key or model_type that marks it.
#[test]
fn layers_gpuplan_does_not_model_are_refused_naming_their_key() {
    let mamba = json!({"model_type": "mamba", "hidden_size": 2560, "num_hidden_layers": 64,
        "state_size": 16, "vocab_size": 50280});
    let rwkv = json!({"model_type": "rwkv", "hidden_size": 2560, "num_hidden_layers": 32,
        "attention_hidden_size": 2560, "vocab_size": 50277});
    let minimax = json!({"model_type": "minimax", "hidden_size": 6144,
        "intermediate_size": 9216, "num_hidden_layers": 80, "num_attention_heads": 64,
        "num_key_value_heads": 8, "vocab_size": 200064, "attn_type_list": [0, 1]});
    let rgemma = json!({"model_type": "recurrent_gemma", "hidden_size": 2560,
        "intermediate_size": 15360, "num_hidden_layers": 26, "num_attention_heads": 10,
        "vocab_size": 256000, "block_types": ["recurrent", "recurrent", "attention"]});
    let cases = [
        (
            "qwen3-next.json",
            qwen3_next(),
            "`linear_num_value_heads`",
            "linear-attention",
        ),
        (
            "minimax.json",
            minimax,
            "`attn_type_list`",
            "linear-attention",
        ),
        ("rgemma.json", rgemma, "`block_types`", "recurrent layers"),
        ("mamba.json", mamba, "`model_type` = mamba", "state-space"),
        ("rwkv.json", rwkv, "`model_type` = rwkv", "recurrent layers"),
        (
            "ds-v32.json",
            deepseek_v32(),
            "`index_topk`",
            "Sparse Attention",
        ),
        (
            "scout.json",
            llama4_scout(),
            "`model_type` = llama4",
            "chunked local attention",
        ),
    ];
    for (name, cfg, key, kind) in cases {
        let f = write_json(name, &cfg);
        let path = f.to_str().unwrap();
        let phrases = [key, kind, "cannot be estimated", "!num_attention_heads`:"];
        refused(&["models", "show", "--config", path], 2, &phrases);
        let serve = ["estimate", "--model-config", path, "--task", "inference"];
        refused(&[&serve[..], &["--gpu", "H100"]].concat(), 2, &[key]);
        let _ = std::fs::remove_file(f);
    }
    // Without `model_type`, the keys alone.
    let mut bare = qwen3_next();
    bare.as_object_mut().unwrap().remove("model_type");
    let f = write_json("qwen3-next-bare.json", &bare);
    let plan = [
        "plan",
        "--model-config",
        f.to_str().unwrap(),
        "--task",
        "inference",
    ];
    refused(&plan, 2, &["`linear_num_value_heads`"]);
    let _ = std::fs::remove_file(f);
}

/// #3: GLM-4.5 (`glm4_moe`, full attention) is still sized; its MTP layer is noted as not
/// counted, as DeepSeek's is (the note was given to MLA configs only).
#[test]
fn glm45_is_sized_and_its_mtp_layer_noted() {
    let f = write_json("glm45.json", &glm45());
    let o = common::run(TAG, &["models", "show", "--config", f.to_str().unwrap()]);
    common::assert_exit_phrases(&o, 0, &["multi-token-prediction layer(s)", "352.80B"]);
    let _ = std::fs::remove_file(f);
}

/// #2: google/gemma-3-4b-it as published leaves `vocab_size` and the head counts of its
/// `text_config` to transformers' defaults; the message named them as top-level keys.
#[test]
fn a_multimodal_configs_missing_keys_are_named_in_text_config() {
    let gemma3 = json!({"architectures": ["Gemma3ForConditionalGeneration"],
        "model_type": "gemma3", "mm_tokens_per_image": 256,
        "text_config": {"hidden_size": 2560, "intermediate_size": 10240,
            "model_type": "gemma3_text", "num_hidden_layers": 34, "sliding_window": 1024},
        "vision_config": {"hidden_size": 1152, "image_size": 896, "intermediate_size": 4304,
            "model_type": "siglip_vision_model", "num_attention_heads": 16,
            "num_hidden_layers": 27, "patch_size": 14},
        "torch_dtype": "bfloat16"});
    let f = write_json("gemma3.json", &gemma3);
    let args = ["models", "show", "--config", f.to_str().unwrap()];
    refused(
        &args,
        2,
        &[
            "`text_config.num_attention_heads`",
            "`text_config.vocab_size`",
        ],
    );
    let _ = std::fs::remove_file(f);
}

/// #4: `"quant_method": 8` was reported as missing although present.
#[test]
fn a_numeric_quant_method_is_invalid_not_missing() {
    let llama = json!({"model_type": "llama", "hidden_size": 4096, "intermediate_size": 14336,
        "num_hidden_layers": 32, "num_attention_heads": 32, "num_key_value_heads": 8,
        "vocab_size": 128256, "quantization_config": {"quant_method": 8}});
    let f = write_json("qm8.json", &llama);
    let args = ["models", "show", "--config", f.to_str().unwrap()];
    let phrases = [
        "invalid `quantization_config.quant_method` = 8",
        "a string",
        "!missing",
    ];
    refused(&args, 2, &phrases);
    let _ = std::fs::remove_file(f);
}

/// #5: a table written as a list was read by position: `training = []` a default full
/// fine-tune, `parallel = [2]` TP 2 (exit 0); `[[training]]` got toml's "wanted exactly 1
/// element" without a key, in English under zh.
#[test]
fn a_table_given_as_a_list_is_refused_naming_it() {
    let head = "model = \"Qwen2.5-7B\"\nkind = \"training\"\n";
    let files = [
        (
            "[[training]]\ntask = \"lora\"\ntokens = 1e8\n",
            "`training`",
        ),
        ("training = []\n", "`training`"),
        ("training = [\"lora\"]\n", "`training`"),
        (
            "[training]\ntask = \"lora\"\ntokens = 1e8\nparallel = [2]\n",
            "`training.parallel`",
        ),
        (
            "[training]\ntask = \"lora\"\ntokens = 1e8\nlora = [8]\n",
            "`training.lora`",
        ),
        (
            "[training]\ntask = \"lora\"\ntokens = 1e8\n[[constraints]]\n",
            "`constraints`",
        ),
    ];
    for (i, (body, key)) in files.iter().enumerate() {
        let f = write_temp(TAG, &format!("list-{i}.toml"), &format!("{head}{body}"));
        let p = f.to_str().unwrap();
        let phrases = [key, "not a list", "!wanted exactly"];
        refused(&["estimate", "--workload", p, "--gpu", "A100"], 2, &phrases);
        refused(&["plan", "--workload", p], 2, &phrases);
        let _ = std::fs::remove_file(f);
    }
}

/// #7: `model = ""` / `-m ""` got "unknown model ``; did you mean BERT-base-uncased, …"
/// (alphabetical, not nearest).
#[test]
fn an_empty_model_name_is_refused_without_suggestions() {
    let f = write_temp(
        TAG,
        "empty-model.toml",
        "model = \"\"\nkind = \"training\"\n",
    );
    let p = f.to_str().unwrap();
    let phrases = ["invalid `model` = \"", "an empty name", "!did you mean"];
    refused(&["estimate", "--workload", p, "--gpu", "A100"], 2, &phrases);
    refused(&["plan", "-m", "", "--task", "lora"], 2, &phrases);
    refused(
        &["estimate", "-m", " ", "--task", "lora", "--gpu", "A100"],
        2,
        &phrases,
    );
    let _ = std::fs::remove_file(f);
}

/// #8: `partial_rotary_factor` 2 or "x" passed silently; a fraction in (0, 1] is read.
#[test]
fn a_rotary_fraction_out_of_range_is_refused() {
    let phi = |v: serde_json::Value| {
        json!({"model_type": "phi3", "hidden_size": 3072, "intermediate_size": 8192,
            "num_hidden_layers": 32, "num_attention_heads": 24, "num_key_value_heads": 8,
            "vocab_size": 200064, "partial_rotary_factor": v})
    };
    for (i, bad) in [json!(2), json!(-1), json!(0), json!("x")]
        .into_iter()
        .enumerate()
    {
        let f = write_json(&format!("prf-{i}.json"), &phi(bad));
        let args = ["models", "show", "--config", f.to_str().unwrap()];
        refused(&args, 2, &["`partial_rotary_factor`", "at most 1"]);
        let _ = std::fs::remove_file(f);
    }
    let f = write_json("prf-ok.json", &phi(json!(0.75)));
    let o = common::run(TAG, &["models", "show", "--config", f.to_str().unwrap()]);
    assert_eq!(o.status.code(), Some(0), "{}", common::stderr(&o));
    let _ = std::fs::remove_file(f);
}

/// #10: `--weights int4-g0` (and a group over the limit) was refused without the range.
#[test]
fn an_int4_group_out_of_range_names_the_range() {
    for g in ["int4-g0", "int4-g99999999999999999999"] {
        let est = ["estimate", "-m", "Qwen2.5-7B", "--task", "inference"];
        refused(
            &[&est[..], &["--gpu", "A100", "--weights", g]].concat(),
            2,
            &["N from 1 to 1048576"],
        );
        let plan = ["plan", "-m", "Qwen2.5-7B", "--task", "inference"];
        refused(
            &[&plan[..], &["--weights", g]].concat(),
            2,
            &["N from 1 to 1048576"],
        );
    }
}

/// #5, #6, #7 and #9 through the API: a body that is JSON but no object got serde's "invalid
/// length 0, expected struct WorkloadFile with 12 elements"; a table given as a list was read
/// by position (`"constraints": []` planned, 200); the empty-model message's "--model-config"
/// became "`model`-config".
#[test]
fn the_api_refuses_the_same_shapes_naming_them() {
    let s = common::Server::start();
    let url = format!("{}/api/v1/plan", s.base);
    for (body, what) in [("[]", "`array`"), ("\"x\"", "`string`"), ("3", "`number`")] {
        let (st, v) = post(&url, body);
        assert_eq!(st, 400, "{body}: {v}");
        let m = v["error"]["message"].as_str().unwrap();
        assert!(m.contains(what) && m.contains("not an object"), "{m}");
    }
    let train = r#""model": "Qwen2.5-7B", "kind": "training""#;
    for (rest, field) in [
        (r#""training": ["lora"]"#, "training"),
        (
            r#""training": {"task": "lora", "tokens": 1e8}, "constraints": []"#,
            "constraints",
        ),
        (
            r#""training": {"task": "lora", "tokens": 1e8, "parallel": [2]}"#,
            "training.parallel",
        ),
    ] {
        let body = format!("{{{train}, {rest}}}");
        let (st, v) = post(&url, &body);
        assert_eq!(st, 400, "{body}: {v}");
        assert_eq!(v["error"]["field"], field, "{v}");
    }
    let body = r#"{"model": "", "kind": "training", "training": {"task": "lora", "tokens": 1e8}}"#;
    let (st, v) = post(&url, body);
    assert_eq!(st, 400, "{v}");
    assert_eq!(v["error"]["field"], "model", "{v}");
    let m = v["error"]["message"].as_str().unwrap();
    // The API names the body key `config` where the CLI says --model-config (tests/fix_r15.rs).
    assert!(
        m.contains("`config`") && !m.contains("`model`-config") && !m.contains("--model"),
        "{m}"
    );
}
