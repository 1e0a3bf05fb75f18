//! Audit r19: each test runs the CLI as a user does and asserts the property the finding broke.
//! Findings and inputs: docs/notes/notes-audit-r19.md; sweep family `r19` in
//! tools/hostile_sweep.py. A refusal run through `common::assert_refused` is run again in
//! Chinese (no English sentence left).

mod common;
use common::write_temp;

const TAG: &str = "audit-r19";

/// Exit `code` with every phrase of `phrases` present (`!phrase`: absent).
fn refused(args: &[&str], code: i32, phrases: &[&str]) -> std::process::Output {
    common::assert_refused(TAG, args, code, phrases)
}

/// A Llama-3.1-8B config.json stored as 4-bit `method` (awq or gptq), group 128.
fn int4_config(method: &str, bits: u32) -> String {
    format!(
        r#"{{"architectures": ["LlamaForCausalLM"], "hidden_size": 4096,
        "intermediate_size": 14336, "max_position_embeddings": 131072, "model_type": "llama",
        "num_attention_heads": 32, "num_hidden_layers": 32, "num_key_value_heads": 8,
        "vocab_size": 128256, "tie_word_embeddings": false,
        "quantization_config": {{"bits": {bits}, "group_size": 128, "quant_method": "{method}",
        "zero_point": true, "desc_act": false, "sym": true}}}}"#
    )
}

fn serve_config<'a>(config: &'a str, gpu: &'a str, engine: &'a str) -> Vec<&'a str> {
    common::serving("estimate", ["--model-config", config], gpu, engine)
}

/// `plan` of a LoRA fine-tune of Qwen2.5-0.5B over 1e7 tokens on Alibaba's instances, `extra`
/// after.
fn small_lora_plan<'a>(extra: &[&'a str]) -> Vec<&'a str> {
    let mut v = vec![
        "plan",
        "-m",
        "Qwen2.5-0.5B",
        "--task",
        "lora",
        "--tokens",
        "1e7",
        "--provider",
        "alibaba",
    ];
    v.extend_from_slice(extra);
    v
}

/// #1: vLLM and SGLang load AWQ from compute capability 7.5 (`AWQConfig.get_min_capability()`
/// = 75), GPTQ from 6.0. Before: an AWQ checkpoint on a V100 was sized "int4-g128, the format
/// the checkpoint ships in, as vllm loads it", which vLLM refuses at load.
#[test]
fn an_awq_checkpoint_loads_from_turing_a_gptq_one_on_volta() {
    let awq = write_temp(TAG, "awq.json", &int4_config("awq", 4));
    let awq = awq.to_str().unwrap();
    let gptq = write_temp(TAG, "gptq.json", &int4_config("gptq", 4));
    let gptq = gptq.to_str().unwrap();
    // As shipped, unless the weights are chosen: 16-bit on a V100 with a note naming GPTQ.
    refused(
        &serve_config(awq, "v100", "vllm"),
        0,
        &[
            "as AWQ",
            "7.5",
            "--weights gptq",
            "serving with fp16 weights",
        ],
    );
    refused(
        &serve_config(awq, "t4", "vllm"),
        0,
        &["as vllm loads it", "!as AWQ"],
    );
    refused(
        &serve_config(gptq, "v100", "vllm"),
        0,
        &["as vllm loads it", "exllama", "!as AWQ"],
    );
    // The stored int4 asked for by name on a V100: refused naming `weights` and the fix.
    let mut named = serve_config(awq, "v100", "vllm");
    named.extend(["--weights", "int4-g128"]);
    refused(&named, 2, &["`weights`", "AWQ", "7.5", "GPTQ"]);
    // `--weights awq` names AWQ; `gptq` and `int4` load on Volta (exllama).
    for (w, code) in [("awq", 2), ("gptq", 0), ("int4", 0)] {
        let mut args = common::serving("estimate", ["-m", "Llama-3.1-8B"], "v100", "vllm");
        args.extend(["--weights", w]);
        let phrases: &[&str] = if code == 2 {
            &["`weights`", "7.5"]
        } else {
            &["exllama"]
        };
        refused(&args, code, phrases);
    }
    // The search offers the AWQ checkpoint's int4 nowhere below 7.5.
    let flags = common::serving_flags(["--model-config", awq], "v100", "vllm");
    common::assert_no_plan_serves(&common::plan_json(TAG, &flags), "int4");
}

/// #1: AWQ stores 4-bit weights only (`AWQConfig.__init__` raises otherwise): an 8-bit AWQ
/// config was read as an int8 checkpoint.
#[test]
fn an_awq_config_of_eight_bits_is_refused() {
    let awq8 = write_temp(TAG, "awq8.json", &int4_config("awq", 8));
    refused(
        &serve_config(awq8.to_str().unwrap(), "a100", "vllm"),
        2,
        &["quantization_config.bits", "4-bit"],
    );
}

/// #2 and #4: the bundle of an int4 plan on a V100 passed `--quantization awq` to vLLM (refused
/// below 7.5) and carried an SGLang script (SGLang does not start below 7.5). Now vLLM serves a
/// GPTQ checkpoint and no SGLang script is written; a T4 bundle keeps both, AWQ.
#[test]
fn a_volta_int4_bundle_serves_gptq_under_vllm_only() {
    let dir = common::scratch().join("v100-int4");
    let int4_on = |gpu: &'static str, dir: &std::path::Path| {
        let mut args = common::serving("plan", ["-m", "Llama-3.1-8B"], gpu, "vllm");
        args.extend(["--weights", "int4", "--export", dir.to_str().unwrap()]);
        refused(&args, 0, &[]);
    };
    int4_on("v100", &dir);
    let vllm = std::fs::read_to_string(dir.join("serve-vllm.sh")).unwrap();
    assert!(vllm.contains("--quantization gptq"), "{vllm}");
    assert!(!vllm.contains("--quantization awq"), "{vllm}");
    assert!(!dir.join("serve-sglang.sh").exists());
    let dir = common::scratch().join("t4-int4");
    int4_on("t4", &dir);
    let vllm = std::fs::read_to_string(dir.join("serve-vllm.sh")).unwrap();
    assert!(vllm.contains("--quantization awq"), "{vllm}");
    assert!(dir.join("serve-sglang.sh").exists());
}

/// #4: vLLM starts from compute capability 7.0 (its installation requirements), SGLang from 7.5
/// ("SGLang only supports sm75 and above.", model_runner.py). Before: SGLang on a V100 and vLLM
/// on a P100/P40 were estimated (and audit r18 asserted vLLM's exllama int4 on a P100).
#[test]
fn serving_engines_start_only_from_their_compute_capability() {
    let qwen = ["-m", "Qwen2.5-0.5B"];
    let args = |gpu, engine| common::serving("estimate", qwen, gpu, engine);
    for (gpu, engine, min) in [
        ("v100", "sglang", "7.5"),
        ("p100", "sglang", "7.5"),
        ("p100", "vllm", "7.0"),
        ("p40", "vllm", "7.0"),
    ] {
        refused(
            &args(gpu, engine),
            2,
            &["`engine`", min, "compute capability"],
        );
    }
    for (gpu, engine) in [("v100", "vllm"), ("t4", "sglang"), ("a100", "sglang")] {
        refused(&args(gpu, engine), 0, &[]);
    }
    // The search: SGLang on V100 instances only is no plan, naming the engine's floor.
    refused(
        &common::serving("plan", qwen, "v100", "sglang"),
        4,
        &["sglang", "7.5"],
    );
}

/// #3: a negative zero passed the ≥ 0 checks and was printed as a negative figure: the
/// fragmentation row read "-0.00 ┆ -0% of allocated" (JSON `"bytes": -0.0`), the spot advice
/// "expected -0.0 preemptions (rate -0.000/node-hour)".
#[test]
fn a_negative_zero_reads_as_zero() {
    let w = write_temp(
        TAG,
        "negzero.toml",
        "kind = \"training\"\nmodel = \"Qwen2.5-0.5B\"\n[training]\ntask = \"lora\"\n\
         tokens = 1e7\n[training.lora]\ndropout = -0.0\n[hardware]\ngpu = \"a100\"\n\
         [tunables]\nfragmentation = -0.0\n",
    );
    let w = w.to_str().unwrap();
    refused(&["estimate", "-w", w, "--wide"], 0, &["!-0%", "!-0.00"]);
    let o = common::run(TAG, &["estimate", "-w", w, "--format", "json"]);
    let text = common::stdout(&o);
    assert!(!text.contains("-0.0"), "{text}");
    let o = common::run(
        TAG,
        &[
            "estimate",
            "-m",
            "Qwen2.5-0.5B",
            "--task",
            "lora",
            "--gpu",
            "a100",
            "--set",
            "fragmentation=-0",
            "--format",
            "json",
        ],
    );
    assert!(!common::stdout(&o).contains("-0.0"));
    refused(
        &small_lora_plan(&["--preemption-rate=-0", "--reuse-hours=-0"]),
        0,
        &["!-0.0 preemptions", "!rate -0"],
    );
}

/// #3, every key: a `-0` is read as 0 where numbers are parsed (the workload file, the API's
/// body, every number flag), so a key the first mend did not list reads 0 too: the file's
/// `[inference] gpu_memory_utilization` and the `--budget` flag echoed "-0" in their refusals.
#[test]
fn a_negative_zero_on_any_key_reads_as_zero() {
    let w = write_temp(
        TAG,
        "negzero-any.toml",
        "kind = \"inference\"\nmodel = \"Qwen2.5-0.5B\"\n[inference]\n\
         gpu_memory_utilization = -0.0\n[hardware]\ngpu = \"a100\"\n",
    );
    let w = w.to_str().unwrap();
    refused(
        &["estimate", "-w", w],
        2,
        &["gpu_memory_utilization", "= 0:", "!= -0"],
    );
    refused(
        &small_lora_plan(&["--budget=-0"]),
        2,
        &["budget_cny", "= 0:", "!= -0"],
    );
}
