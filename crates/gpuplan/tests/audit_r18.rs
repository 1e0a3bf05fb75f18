//! Audit r18: each test runs the CLI as a user does and asserts the property the finding broke.
//! Findings and inputs: docs/notes/notes-audit-r18.md; sweep family `r18`. A refusal run through
//! `common::assert_refused` is run again in Chinese (no English sentence left).

mod common;
use common::write_temp;

const TAG: &str = "audit-r18";

/// Exit `code` with every phrase of `phrases` present (`!phrase`: absent).
fn refused(args: &[&str], code: i32, phrases: &[&str]) -> std::process::Output {
    common::assert_refused(TAG, args, code, phrases)
}

/// `estimate` of Llama-3.1-8B served with `weights` under `engine` on one `gpu`.
fn serve8b<'a>(gpu: &'a str, weights: &'a str, engine: &'a str) -> Vec<&'a str> {
    let mut v = common::serving("estimate", ["-m", "Llama-3.1-8B"], gpu, engine);
    v.extend(["--weights", weights]);
    v
}

/// #1: int4 per engine and chip. vLLM/SGLang load GPTQ from compute capability 6.0 (exllama;
/// AWQ from 7.5, Marlin from 8.0), TensorRT-LLM's AWQ/GPTQ GEMMs need 7.5, the static engine's
/// tinygemm 8.0. Before: every combination was estimated at Marlin's speed. Now what cannot load
/// is refused naming `weights`, the minimum and a fix; what loads below 8.0 under vLLM/SGLang says
/// its speed is unverified.
#[test]
fn int4_loads_only_where_the_engine_has_a_kernel() {
    for (gpu, engine, min) in [
        ("v100", "trtllm", "7.5"),
        ("v100", "static", "8.0"),
        ("t4", "static", "8.0"),
        ("p100", "trtllm", "7.5"),
    ] {
        refused(
            &serve8b(gpu, "int4-g128", engine),
            2,
            &["`weights`", "no int4 kernel", min, "!panicked"],
        );
    }
    // (p100, vllm) left this list in audit r19 #4: vLLM does not start below compute
    // capability 7.0, so the estimate refuses `engine` before the weights (audit_r19.rs).
    for (gpu, engine) in [("v100", "vllm"), ("t4", "sglang")] {
        let o = refused(&serve8b(gpu, "int4-g128", engine), 0, &["exllama"]);
        assert!(common::all_text(&o).contains("unverified"));
    }
    // TensorRT-LLM on a T4 (7.5) loads; Marlin's chips get no note.
    refused(&serve8b("t4", "int4-g128", "trtllm"), 0, &["!exllama"]);
    refused(&serve8b("a100", "int4-g128", "vllm"), 0, &["!exllama"]);
    // int8 weight-only under vLLM below 8.0: the same kernel note.
    refused(&serve8b("t4", "int8", "vllm"), 0, &["exllama"]);
}

/// #1, plan side: the search offers no int4 where the engine has no kernel, and says when the
/// int4 it offers runs a kernel of unverified speed.
#[test]
fn the_serving_search_offers_int4_only_where_it_loads() {
    let llama = ["-m", "Llama-3.1-8B"];
    let v = common::plan_json(TAG, &common::serving_flags(llama, "v100", "trtllm"));
    common::assert_no_plan_serves(&v, "int4");
    let v = common::plan_json(TAG, &common::serving_flags(llama, "v100", "vllm"));
    let int4: Vec<_> = common::plans(&v)
        .iter()
        .filter(|p| p["serve"]["weights"]["format"] == "int4")
        .collect();
    assert!(!int4.is_empty(), "{v}");
    for p in int4 {
        assert!(p["caveats"].to_string().contains("exllama"), "{p}");
    }
    // Asked for int4 where nothing loads it: the binding names the minimum.
    let mut args = common::serving("plan", llama, "v100", "static");
    args.extend(["--weights", "int4-g128"]);
    refused(&args, 4, &["int4 kernel", "8.0"]);
}

/// #2: TensorRT-LLM's fine-grained int4 GEMMs take groups of 64 and 128 only
/// (fpA_intB_gemm_template.h); per-channel stays allowed.
#[test]
fn trtllm_takes_int4_groups_of_64_and_128() {
    for g in ["int4-g32", "int4-g256"] {
        refused(
            &serve8b("h100", g, "trtllm"),
            2,
            &["`weights`", "64 or 128", "fine grained"],
        );
    }
    for g in ["int4-g64", "int4-g128", "int4-g4096"] {
        refused(&serve8b("h100", g, "trtllm"), 0, &["!64 or 128"]);
    }
    // vLLM keeps its own group rule (group 32 loads there).
    refused(&serve8b("h100", "int4-g32", "vllm"), 0, &["!64 or 128"]);
}

/// #3: an unknown model names its fix: the preset list and how to give a config.
#[test]
fn an_unknown_model_names_the_fix() {
    for name in ["xyzzy", "Lama-3.1-8B"] {
        refused(
            &["estimate", "-m", name],
            2,
            &[
                "unknown model",
                "gpuplan models",
                "--model-config",
                "model_config",
            ],
        );
    }
    // A close misspelling still lists the nearest presets.
    refused(&["estimate", "-m", "Lama-3.1-8B"], 2, &["Llama-3.1-8B"]);
}

/// #4: Megatron-Core builds an interleaved split only when each rank's layers divide by the
/// virtual stages (`get_num_layers_to_build`), or under a layout: the estimate says which layout
/// it assumed, and the Megatron export does not silently pass VP 3 over 32 layers at PP 4.
#[test]
fn an_uneven_interleaved_split_names_megatrons_layout() {
    let base = [
        "estimate",
        "-m",
        "Llama-3.1-8B",
        "--task",
        "pretrain",
        "--gpu",
        "h100",
        "--gpus-per-node",
        "8",
        "--profile",
        "megatron",
        "--pp",
        "4",
        "--virtual-stages",
    ];
    let mut uneven = base.to_vec();
    uneven.push("3");
    refused(
        &uneven,
        0,
        &[
            "--pipeline-model-parallel-layout",
            "should be divisible by vp_size",
        ],
    );
    let mut even = base.to_vec();
    even.push("2");
    refused(&even, 0, &["!--pipeline-model-parallel-layout"]);
}

/// #5: a TOML date where a number goes names the key, the type found and the type expected, in
/// words (not serde's "map"), and in Chinese under zh with no English comma left.
#[test]
fn a_toml_date_for_a_number_reads_as_a_date() {
    let w = write_temp(
        TAG,
        "date.toml",
        "kind = \"training\"\nmodel = \"Llama-3.1-8B\"\n[training]\ntokens = 1979-05-27\n\
         [hardware]\ngpu = \"h100\"\n",
    );
    let w = w.to_str().unwrap();
    refused(
        &["estimate", "-w", w],
        2,
        &[
            "training.tokens",
            "TOML date-time",
            "expected a number",
            "!map",
        ],
    );
    let o = common::run(TAG, &["--lang", "zh", "estimate", "-w", w]);
    let text = common::all_text(&o);
    assert!(
        text.contains("日期时间") && text.contains("，应为数字"),
        "{text}"
    );
    assert!(!text.contains(", 应为"), "{text}");
}

/// #6: Megatron's context parallelism is Transformer Engine's attention, which has no backend
/// for it below compute capability 8.0; torch's ring (other stacks) runs the memory-efficient
/// kernel there. The estimate refuses `parallel.cp`; the plan search offers no CP there.
#[test]
fn megatron_cp_needs_te_attention() {
    let args = |gpu: &'static str, profile: &'static str| {
        vec![
            "estimate",
            "-m",
            "Qwen2.5-0.5B",
            "--task",
            "full",
            "--gpu",
            gpu,
            "--gpus-per-node",
            "8",
            "--cp",
            "2",
            "--profile",
            profile,
        ]
    };
    for gpu in ["v100", "t4"] {
        refused(
            &args(gpu, "megatron"),
            2,
            &["`parallel.cp`", "Transformer Engine", "8.0"],
        );
        refused(&args(gpu, "hugging_face"), 0, &["CP 2"]);
    }
    refused(&args("a100", "megatron"), 0, &["CP 2"]);
    // A pinned CP on V100 under Megatron is no plan, naming the key.
    let w = write_temp(
        TAG,
        "cp.toml",
        "kind = \"training\"\nmodel = \"Llama-3.1-8B\"\n[training]\ntask = \"full_finetune\"\n\
         framework = \"megatron\"\nseq_len = 32768\ntokens = 1e8\n[training.parallel]\ncp = 2\n",
    );
    refused(
        &["plan", "-w", w.to_str().unwrap(), "--gpu", "v100"],
        4,
        &["parallel.cp", "Transformer Engine"],
    );
}

/// Review r17b (refactor18's lead): a chip with no sourced peak FLOP/s for the precision cannot be
/// timed, so the training search skips it with that reason. Before: `plan --gpu a30` searched its
/// memory and answered "no configuration fits memory" naming the largest configuration tried,
/// though smaller ones fit (`estimate` on one A30 fits and says "time: not estimated").
#[test]
fn an_untimeable_chip_is_skipped_for_that_reason() {
    let base = [
        "plan",
        "-m",
        "Qwen2.5-7B",
        "--task",
        "lora",
        "--seq-len",
        "2048",
        "--tokens",
        "1e8",
    ];
    let named: Vec<&str> = base.iter().copied().chain(["--gpu", "a30"]).collect();
    refused(
        &named,
        4,
        &["no sourced peak FLOP/s", "!no configuration fits memory"],
    );
    let family: Vec<&str> = base.iter().copied().chain(["--family", "gn7s"]).collect();
    refused(
        &family,
        4,
        &["no sourced peak FLOP/s", "!no configuration fits memory"],
    );
}
