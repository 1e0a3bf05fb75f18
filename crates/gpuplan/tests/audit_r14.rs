//! Audit r14: each test runs the CLI as a user does and asserts the property the finding broke.

mod common;
use common::{stderr, write_temp};

const TAG: &str = "audit-r14";

/// Exit `code` with every phrase of `phrases` present (`!phrase`: absent).
fn refused(args: &[&str], code: i32, phrases: &[&str]) -> std::process::Output {
    common::assert_refused(TAG, args, code, phrases)
}

/// DeepSeek-V3's HF config.json (deepseek-ai/DeepSeek-V3 @main), the keys gpuplan reads.
fn deepseek_v3() -> serde_json::Value {
    serde_json::json!({
        "architectures": ["DeepseekV3ForCausalLM"], "model_type": "deepseek_v3",
        "hidden_size": 7168, "intermediate_size": 18432, "moe_intermediate_size": 2048,
        "num_hidden_layers": 61, "num_attention_heads": 128, "num_key_value_heads": 128,
        "n_routed_experts": 256, "n_shared_experts": 1, "num_experts_per_tok": 8,
        "first_k_dense_replace": 3, "moe_layer_freq": 1, "topk_method": "noaux_tc",
        "kv_lora_rank": 512, "q_lora_rank": 1536, "qk_nope_head_dim": 128,
        "qk_rope_head_dim": 64, "v_head_dim": 128, "vocab_size": 129280,
        "max_position_embeddings": 163840, "num_nextn_predict_layers": 1,
        "tie_word_embeddings": false, "torch_dtype": "bfloat16",
        "rope_scaling": {"type": "yarn", "factor": 40, "original_max_position_embeddings": 4096,
                         "beta_fast": 32, "beta_slow": 1, "mscale": 1.0, "mscale_all_dim": 1.0},
        "quantization_config": {"quant_method": "fp8", "fmt": "e4m3",
                                "weight_block_size": [128, 128], "activation_scheme": "dynamic"}
    })
}

/// Moonlight-16B-A3B's config.json (moonshotai/Moonlight-16B-A3B): the DeepSeek-V3 architecture
/// (`model_type` deepseek_v3) released in bf16, without `quantization_config`.
const MOONLIGHT: &str = r#"{"architectures":["DeepseekV3ForCausalLM"],"model_type":"deepseek_v3",
 "hidden_size":2048,"intermediate_size":11264,"moe_intermediate_size":1408,"num_hidden_layers":27,
 "num_attention_heads":16,"num_key_value_heads":16,"n_shared_experts":2,"n_routed_experts":64,
 "num_experts_per_tok":6,"first_k_dense_replace":1,"moe_layer_freq":1,"kv_lora_rank":512,
 "q_lora_rank":null,"qk_nope_head_dim":128,"qk_rope_head_dim":64,"v_head_dim":128,
 "vocab_size":163840,"max_position_embeddings":8192,"torch_dtype":"bfloat16",
 "tie_word_embeddings":false,"topk_method":"noaux_tc","num_nextn_predict_layers":0}"#;

/// Phi-3-medium-4k-instruct's config.json (microsoft/Phi-3-medium-4k-instruct): 40 query heads,
/// 10 KV heads.
const PHI3_MEDIUM: &str = r#"{"architectures":["Phi3ForCausalLM"],"model_type":"phi3",
 "hidden_size":5120,"intermediate_size":17920,"max_position_embeddings":4096,
 "num_attention_heads":40,"num_hidden_layers":40,"num_key_value_heads":10,
 "original_max_position_embeddings":4096,"rope_scaling":null,"sliding_window":2047,
 "tie_word_embeddings":false,"torch_dtype":"bfloat16","vocab_size":32064,"rope_theta":10000.0}"#;

/// #1: a DeepSeek-V3 config with `"kv_lora_rank": null` (or without it) was read as a 128-head
/// MHA model with head_dim 56 (7168 / 128) and sized, exit 0: DeepSeek-V2/V3 attention is always
/// MLA, so the rank is required.
#[test]
fn a_deepseek_config_without_its_mla_rank_is_refused() {
    let mut cfg = deepseek_v3();
    cfg["kv_lora_rank"] = serde_json::Value::Null;
    let null = write_temp(TAG, "ds-null.json", &cfg.to_string());
    cfg.as_object_mut().unwrap().remove("kv_lora_rank");
    let absent = write_temp(TAG, "ds-absent.json", &cfg.to_string());
    for f in [&null, &absent] {
        let path = f.to_str().unwrap();
        let serve = [
            "estimate",
            "--model-config",
            path,
            "--task",
            "inference",
            "--gpu",
            "H200",
            "--gpus-per-node",
            "8",
            "--tp",
            "8",
        ];
        refused(&serve, 2, &["kv_lora_rank", "missing", "!head_dim 56"]);
        refused(&["models", "show", "--config", path], 2, &["kv_lora_rank"]);
    }
    // With the rank it is MLA, as before.
    let ok = write_temp(TAG, "ds-ok.json", &deepseek_v3().to_string());
    let o = common::run(TAG, &["models", "show", "--config", ok.to_str().unwrap()]);
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    let text = common::one_line(&o);
    assert!(
        text.contains("MLA (q_lora_rank 1536, kv_lora_rank 512"),
        "{text}"
    );
    for f in [null, absent, ok] {
        let _ = std::fs::remove_file(f);
    }
}

/// `estimate`'s serving title ("NAME: serving with FMT weights, ..."), after checking the run
/// succeeded with `phrases` present (`!phrase`: absent) in its output.
fn serving_title(args: &[&str], phrases: &[&str]) -> String {
    let o = common::run(TAG, args);
    common::assert_exit_phrases(&o, 0, phrases);
    let text = common::stdout(&o);
    text.lines()
        .find(|l| l.contains(": serving with "))
        .unwrap_or_else(|| panic!("no title in {text}"))
        .to_string()
}

/// #2: every `deepseek_v3` model was sized with FP8 weights, "the format the checkpoint ships in
/// (its config's quantization_config)", also a config without `quantization_config` (Moonlight,
/// bf16 conversions of V3): the stored format is read from the config alone.
#[test]
fn a_deepseek_v3_config_without_quantization_config_is_sixteen_bit() {
    let moon = write_temp(TAG, "moonlight.json", MOONLIGHT);
    let args = [
        "estimate",
        "--model-config",
        moon.to_str().unwrap(),
        "--task",
        "inference",
        "--gpu",
        "H100",
    ];
    let title = serving_title(&args, &["!ships in", "!quantization_config"]);
    assert!(title.contains("serving with bf16 weights"), "{title}");
    // DeepSeek-V3 as released (config or preset) stays FP8, as shipped.
    let ds = write_temp(TAG, "ds-fp8.json", &deepseek_v3().to_string());
    let ds_path = ds.to_str().unwrap();
    for model in [["--model-config", ds_path], ["-m", "DeepSeek-V3"]] {
        let mut a = vec!["estimate"];
        a.extend(model);
        a.extend(["--task", "inference", "--gpu", "H200"]);
        a.extend(["--gpus-per-node", "8", "--tp", "8"]);
        let title = serving_title(&a, &["the format the checkpoint ships in"]);
        assert!(title.contains("serving with fp8 weights"), "{a:?}: {title}");
    }
    let _ = std::fs::remove_file(moon);
    let _ = std::fs::remove_file(ds);
}

/// #3: TP sizes whose split of the KV heads vLLM asserts against (Qwen2.5-7B's 4 KV heads at TP
/// 7; Phi-3-medium's 10 at TP 4, vllm-project/vllm issue #5951) were sized by `estimate` and
/// ranked by `plan`.
#[test]
fn a_tp_that_does_not_split_the_kv_heads_is_refused_and_not_planned() {
    refused(
        &[
            "estimate",
            "-m",
            "Qwen2.5-7B",
            "--task",
            "inference",
            "--gpu",
            "H100",
            "--gpus-per-node",
            "7",
            "--tp",
            "7",
        ],
        2,
        &["`tp`", "KV heads (4)", "try 1, 2, 4"],
    );
    let phi = write_temp(TAG, "phi3-medium.json", PHI3_MEDIUM);
    let phi_path = phi.to_str().unwrap();
    refused(
        &[
            "estimate",
            "--model-config",
            phi_path,
            "--task",
            "inference",
            "--gpu",
            "A100",
            "--gpus-per-node",
            "4",
            "--tp",
            "4",
        ],
        2,
        &["`tp`", "KV heads (10)", "try 1, 2, 5, 10"],
    );
    // More ranks than KV heads, each head on several: runs (Llama-3.1-8B's 8 at TP 16).
    let o = common::run(
        TAG,
        &[
            "estimate",
            "-m",
            "Llama-3.1-8B",
            "--task",
            "inference",
            "--gpu",
            "H100",
            "--gpus-per-node",
            "8",
            "--nodes",
            "2",
            "--tp",
            "16",
        ],
    );
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    let v = common::plan_json(
        TAG,
        &[
            "--model-config",
            phi_path,
            "--task",
            "inference",
            "--rate",
            "20",
            "--provider",
            "alibaba",
            "--weights",
            "bf16",
        ],
    );
    let plans = v["outcome"]["plans"].as_array().unwrap();
    assert!(!plans.is_empty());
    for p in plans {
        let tp = p["serve"]["tp"].as_u64().unwrap();
        assert!([1, 2].contains(&tp), "TP {tp} planned for 10 KV heads");
    }
    let _ = std::fs::remove_file(phi);
}

/// #4: two `export --to DIR` runs at once (different plans, no --force) both said "exported",
/// the second's files replacing the first's: without --force a file is only ever created, so
/// one run writes its whole bundle and the others are refused with nothing of theirs left.
#[test]
fn concurrent_exports_into_one_folder_leave_one_whole_bundle() {
    let v = common::plan_json(
        TAG,
        &["-m", "Qwen2.5-7B", "--task", "lora", "--tokens", "1e8"],
    );
    let plans = v["outcome"]["plans"].as_array().unwrap();
    assert!(plans.len() >= 4, "{} plans", plans.len());
    let plan = write_temp(TAG, "plan.json", &v.to_string());
    let dir = common::temp_path(TAG, "bundle");
    let _ = std::fs::remove_dir_all(&dir);
    let (plan_s, dir_s) = (plan.to_str().unwrap(), dir.to_str().unwrap());
    let outs: Vec<std::process::Output> = std::thread::scope(|s| {
        let runs: Vec<_> = ["1", "2", "3", "4"]
            .into_iter()
            .map(|pick| {
                s.spawn(move || {
                    common::run(TAG, &["export", plan_s, "--to", dir_s, "--pick", pick])
                })
            })
            .collect();
        runs.into_iter().map(|h| h.join().unwrap()).collect()
    });
    let won: Vec<usize> = (0..4)
        .filter(|i| outs[*i].status.code() == Some(0))
        .collect();
    assert_eq!(won.len(), 1, "runs that said exported: {won:?}");
    for (i, o) in outs.iter().enumerate() {
        if i != won[0] {
            common::assert_exit_phrases(o, 2, &["already exist", "--force"]);
        }
    }
    // The folder is the winner's bundle: its instance type in the README, no temporaries.
    let inst = plans[won[0]]["instance"]["id"]
        .as_str()
        .unwrap()
        .to_string();
    let readme = std::fs::read_to_string(dir.join("README.txt")).unwrap();
    assert!(readme.contains(&inst), "{inst} not in {readme}");
    for e in std::fs::read_dir(&dir).unwrap() {
        let name = e.unwrap().file_name().to_string_lossy().into_owned();
        assert!(!name.contains(".tmp-"), "{name} left in the bundle");
    }
    let _ = std::fs::remove_dir_all(dir);
    let _ = std::fs::remove_file(plan);
}

/// #5: a workload file with its `[training]` table twice read in Chinese "表头无效; 重复的键
/// `training` in document root": toml's "in document root" was not among the translated phrases.
#[test]
fn a_duplicated_table_reads_in_chinese() {
    let text = "model = \"Qwen2.5-7B\"\nkind = \"training\"\n[training]\ntask = \"lora\"\n\
                tokens = 1e8\n[training]\ntask = \"full\"\n";
    let f = write_temp(TAG, "dup-table.toml", text);
    let args = [
        "estimate",
        "--workload",
        f.to_str().unwrap(),
        "--gpu",
        "A100",
    ];
    refused(&args, 2, &["duplicate key `training` in document root"]);
    let mut zh = args.to_vec();
    zh.extend(["--lang", "zh"]);
    let o = refused(&zh, 2, &["`training`，位于文件顶层", "!document root"]);
    assert!(
        common::english_sentences(&stderr(&o)).is_empty(),
        "{}",
        stderr(&o)
    );
    let _ = std::fs::remove_file(f);
}

/// #6: a 1000-token LoRA job (0.3 h of the 1-GPU type, its monthly row "0.3 h") read "break-even
/// at 480 h of use per month …; this job uses 0 h" in the cost table and the advice: below one
/// hour the hours keep two significant digits; from one hour whole hours, as before.
#[test]
fn a_job_under_an_hour_does_not_use_zero_hours() {
    let base = [
        "plan",
        "-m",
        "Qwen2.5-0.5B",
        "--task",
        "lora",
        "--tokens",
        "1000",
        "--provider",
        "alibaba",
        "--wide",
    ];
    for lang in ["en", "zh"] {
        let mut args = base.to_vec();
        args.extend(["--lang", lang]);
        let o = common::run_cols(TAG, "250", &args);
        assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
        let text = common::stdout(&o);
        let (note, zero) = match lang {
            "en" => ("this job uses ", "this job uses 0 h"),
            _ => ("本任务使用 ", "本任务使用 0 小时"),
        };
        assert!(text.contains(note), "{text}");
        assert!(!text.contains(zero), "{text}");
        let used = text.split(note).nth(1).unwrap();
        let figure: f64 = used.split(' ').next().unwrap().parse().unwrap();
        assert!(figure > 0.0 && figure < 1.0, "{used}");
    }
}
