//! Audit r12: each test runs the CLI as a user does and asserts the property the finding broke.

mod common;
use common::{stderr, stdout};
use std::process::Output;

const TAG: &str = "audit-r12";

fn run(args: &[&str]) -> Output {
    common::run(TAG, args)
}

fn json(o: &Output) -> serde_json::Value {
    assert_eq!(o.status.code(), Some(0), "{}", stderr(o));
    serde_json::from_slice(&o.stdout).unwrap_or_else(|e| panic!("{e}: {}", stderr(o)))
}

/// Exit 2 with every fragment in the output (see `common::assert_exit_phrases`).
fn refused(o: &Output, fragments: &[&str]) {
    common::assert_exit_phrases(o, 2, fragments);
}

/// #1: `--tokens 100` (below one step of 16,384 tokens) read "job: 100 tokens in 1 steps: 4.5 ms
/// wall-clock" where one step takes 733.6 ms: a job runs at least one step.
#[test]
fn a_job_below_one_step_takes_one_step() {
    let base = [
        "estimate",
        "-m",
        "Llama-3.1-8B",
        "--task",
        "full",
        "--gpu",
        "A100",
        "--gpus-per-node",
        "8",
        "--format",
        "json",
        "--tokens",
    ];
    let est = |tokens: &str| {
        let mut a = base.to_vec();
        a.push(tokens);
        let o = run(&a);
        // Exit 3: the full fine-tune does not fit the A100's memory; the times are still given.
        assert_eq!(o.status.code(), Some(3), "{}", stderr(&o));
        let v: serde_json::Value = serde_json::from_slice(&o.stdout).unwrap();
        v["estimate"].clone()
    };
    let tiny = est("100");
    let step = tiny["step"]["step"].as_f64().unwrap();
    let wall = tiny["totals"]["wall_time"].as_f64().unwrap();
    assert_eq!(tiny["totals"]["steps"].as_f64(), Some(1.0));
    assert!(wall >= step * 0.999, "wall {wall} s < one step {step} s");
    // At or above one step the time is still tokens ÷ rate.
    let big = est("1e9");
    let rate = big["step"]["tokens_per_second"].as_f64().unwrap();
    let wall = big["totals"]["wall_time"].as_f64().unwrap();
    assert!(
        (wall - 1e9 / rate).abs() <= 1e-9 * wall,
        "{wall} vs {}",
        1e9 / rate
    );
}

/// #2: empty filter values were ignored (`catalog instances --gpu ""` listed everything, `plan
/// --gpu ""` planned every GPU) or selected nothing silently (`--region ""`).
#[test]
fn empty_filter_values_are_refused() {
    let cases: [(&[&str], &str); 7] = [
        (&["catalog", "instances", "--gpu", ""], "--gpu"),
        (&["prices", "--gpu", ""], "--gpu"),
        (&["prices", "--by-gpu", "--gpu", " "], "--gpu"),
        (&["catalog", "instances", "--region", " "], "--region"),
        (
            &["catalog", "instances", "--format", "json", "--region", ""],
            "--region",
        ),
        (
            &[
                "plan",
                "-m",
                "Qwen2.5-7B",
                "--task",
                "lora",
                "--tokens",
                "1e8",
                "--gpu",
                "",
            ],
            "--gpu",
        ),
        (
            &[
                "plan",
                "-m",
                "Qwen2.5-7B",
                "--task",
                "lora",
                "--tokens",
                "1e8",
                "--region",
                "",
            ],
            "regions",
        ),
    ];
    for (args, field) in cases {
        refused(&run(args), &[field, "e.g."]);
        let mut zh = args.to_vec();
        zh.extend(["--lang", "zh"]);
        refused(&run(&zh), &[field, "例如"]);
    }
    // A workload file's empty region is refused the same way.
    let w = common::write_temp(
        TAG,
        "region.toml",
        "model = \"Qwen2.5-7B\"\n[training]\ntask = \"lora\"\ntokens = 1e8\n[constraints]\nregions = [\"\"]\n",
    );
    refused(&run(&["plan", "-w", w.to_str().unwrap()]), &["regions"]);
}

/// #3: `catalog import alibaba` of `[]` said "imported 0 instance type(s)" (exit 0).
#[test]
fn an_empty_import_is_refused() {
    let f = common::write_temp(TAG, "empty.json", "[]");
    let o = run(&["catalog", "import", "alibaba", f.to_str().unwrap()]);
    refused(&o, &["empty.json", "empty array"]);
    let o = run(&[
        "catalog",
        "import",
        "alibaba",
        f.to_str().unwrap(),
        "--lang",
        "zh",
    ]);
    refused(&o, &["空数组", "!empty array"]);
}

/// #5: the SGLang and TensorRT-LLM titles named vLLM's gpu_memory_utilization.
#[test]
fn the_serving_title_names_the_engines_own_fraction() {
    let title = |engine: &str| {
        let o = common::run_cols(
            TAG,
            "250",
            &[
                "estimate",
                "-m",
                "Qwen2.5-7B",
                "--task",
                "inference",
                "--gpu",
                "A100",
                "--engine",
                engine,
            ],
        );
        assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
        stdout(&o).lines().next().unwrap_or_default().to_string()
    };
    let sglang = title("sglang");
    assert!(sglang.contains("mem_fraction_static 0.88"), "{sglang}");
    let trt = title("trtllm");
    assert!(trt.contains("free_gpu_memory_fraction 0.9"), "{trt}");
    let stat = title("static");
    for t in [&sglang, &trt, &stat] {
        assert!(!t.contains("gpu_memory_utilization"), "{t}");
    }
    assert!(title("vllm").contains("gpu_memory_utilization 0.9"));
}

/// #6: `--set layer_overhead_s` at or above 155 µs left torchao's int4 row no streaming time and
/// the static engine's int4 decode silently ran at bf16 speed.
#[test]
fn a_layer_overhead_longer_than_a_measured_token_is_refused() {
    let base = [
        "estimate",
        "-m",
        "Qwen2.5-7B",
        "--task",
        "inference",
        "--gpu",
        "A100",
        "--engine",
        "static",
        "--weights",
        "int4",
        "--set",
    ];
    let with = |v: &str| {
        let mut a = base.to_vec();
        let set = format!("layer_overhead_s={v}");
        a.push(&set);
        run(&a)
    };
    refused(&with("160e-6"), &["layer_overhead_s", "155 µs"]);
    refused(&with("1"), &["layer_overhead_s"]);
    assert_eq!(with("150e-6").status.code(), Some(0));
}

/// #7: `--weights fp8` on Ascend 910B was sized as 8-bit storage; no engine loads FP8 there.
#[test]
fn fp8_weights_are_refused_where_they_do_not_load() {
    let est = |gpu: &str| {
        run(&[
            "estimate",
            "-m",
            "Qwen2.5-7B",
            "--task",
            "inference",
            "--gpu",
            gpu,
            "--weights",
            "fp8",
        ])
    };
    refused(&est("910B"), &["weights", "ascend-910b", "int8"]);
    refused(&est("V100"), &["weights", "FP8"]);
    // TensorRT-LLM lists no FP8 on Ampere (no Marlin path there).
    let trt = run(&[
        "estimate",
        "-m",
        "Qwen2.5-7B",
        "--task",
        "inference",
        "--gpu",
        "A100",
        "--weights",
        "fp8",
        "--engine",
        "trtllm",
    ]);
    refused(&trt, &["weights", "trtllm"]);
    // Ampere loads FP8 as W8A16 under vLLM (FP8 Marlin), Hopper computes in FP8.
    assert_eq!(
        est("A100").status.code(),
        Some(0),
        "{}",
        stderr(&est("A100"))
    );
    assert_eq!(est("H100").status.code(), Some(0));
    // The search sizes no FP8 weights on Ascend.
    let v = common::plan_json(
        TAG,
        &[
            "-m",
            "Qwen2.5-7B",
            "--task",
            "inference",
            "--rate",
            "2",
            "--weights",
            "fp8,int8",
            "--chips",
            "ascend",
        ],
    );
    let o = run(&[
        "plan",
        "-m",
        "Qwen2.5-7B",
        "--task",
        "inference",
        "--rate",
        "5",
        "--weights",
        "fp8",
        "--chips",
        "ascend",
    ]);
    common::assert_exit_phrases(
        &o,
        4,
        &["loads FP8 weights", "[weights]", "!holds the weights"],
    );
    let plans = common::plans(&v);
    assert!(!plans.is_empty());
    for p in plans {
        assert_eq!(
            p["serve"]["weights"]["format"], "int8",
            "{}",
            p["gpu"]["id"]
        );
    }
}

/// #4: the old-price note of `prices` ended mid-sentence ("`gpuplan prices fetch PROVIDER` gets
/// today's").
#[test]
fn the_old_price_note_is_a_whole_sentence() {
    let o = common::run_dated(TAG, &["prices"]);
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    let e = stderr(&o).replace("\n  ", " ");
    assert!(
        e.contains("gets today's prices with your credentials"),
        "{e}"
    );
}

/// Display columns of `s` (CJK characters take two).
fn columns(s: &str) -> usize {
    s.chars()
        .map(|c| {
            if ('\u{2e80}'..='\u{ffef}').contains(&c) {
                2
            } else {
                1
            }
        })
        .sum()
}

/// #8: at 60 columns the plan table was 77 wide and the model list 70: the columns that do not
/// fit are left out and named. (Plan audit r22: with checkpoints at Daly's interval the 1e9-token
/// English table's wrapped plan names fit 60 columns whole, so both cases plan 3e9 tokens, whose
/// cells are wider.)
#[test]
fn plan_and_model_tables_fit_60_columns() {
    let cases: [(&[&str], &str); 4] = [
        (
            &[
                "plan",
                "-m",
                "Mixtral-8x7B",
                "--task",
                "full",
                "--tokens",
                "3e9",
                "--chips",
                "nvidia,ascend",
            ],
            "Left out at this width: bottleneck",
        ),
        (
            &[
                "plan",
                "-m",
                "Mixtral-8x7B",
                "--task",
                "full",
                "--tokens",
                "3e9",
                "--lang",
                "zh",
            ],
            "省略的列：瓶颈",
        ),
        (&["models"], "Also left out at this width: context"),
        (&["models", "--lang", "zh"], "还省略了：上下文"),
    ];
    for (args, dropped) in cases {
        let o = common::run_cols(TAG, "60", args);
        assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
        let out = stdout(&o);
        let wide: Vec<&str> = out.lines().filter(|l| columns(l) > 60).collect();
        assert!(wide.is_empty(), "{args:?}: {wide:#?}");
        let joined = out.replace("\n  ", " ");
        assert!(
            joined.contains(dropped),
            "{args:?} does not name {dropped}: {out}"
        );
    }
    // At 120 columns nothing is left out.
    let o = common::run_cols(
        TAG,
        "120",
        &[
            "plan",
            "-m",
            "Mixtral-8x7B",
            "--task",
            "full",
            "--tokens",
            "1e9",
        ],
    );
    assert!(
        !stdout(&o).contains("Left out at this width"),
        "{}",
        stdout(&o)
    );
}

/// #9: `accuracy --cases /dev/null --lang zh` read "无法读取案例文件夹 /dev/null：Not a directory
/// (os error 20)".
#[test]
fn a_cases_path_that_is_no_folder_reads_in_chinese() {
    let o = run(&["accuracy", "--cases", "/dev/null", "--lang", "zh"]);
    refused(&o, &["/dev/null", "不是目录", "!Not a directory"]);
    refused(
        &run(&["accuracy", "--cases", "/dev/null"]),
        &["Not a directory"],
    );
}

/// #10: a small model's KV pool read "longest context at batch 1: 6009632" (Qwen2.5-0.5B, whose
/// context is 32768; `--solve max-context` answers 32768 for the same setup).
#[test]
fn the_longest_context_is_within_the_models() {
    let o = run(&[
        "estimate",
        "-m",
        "Qwen2.5-0.5B",
        "--task",
        "inference",
        "--gpu",
        "A100",
        "--format",
        "json",
    ]);
    let v = json(&o);
    let kv_tokens = v["estimate"]["memory"]["kv_tokens"].as_u64().unwrap();
    assert!(
        kv_tokens > 32768,
        "the pool is larger than the context: {kv_tokens}"
    );
    assert_eq!(
        v["estimate"]["memory"]["max_context_at_batch"].as_u64(),
        Some(32768)
    );
}

/// #11: the static engine's default length read "1000 + 300 tokens rounded up to whole
/// 1312-token blocks": vLLM's 16-token rounding, where gpt-fast sizes its cache to a multiple of 8.
#[test]
fn the_static_engine_rounds_its_length_to_eight() {
    let args = [
        "estimate",
        "-m",
        "Qwen2.5-7B",
        "--task",
        "inference",
        "--gpu",
        "A100",
        "--engine",
        "static",
    ];
    let o = common::run_cols(TAG, "250", &args);
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    let out = stdout(&o);
    assert!(
        out.contains("max_model_len 1304 (default): the workload's 1000 + 300 tokens rounded up to a multiple of 8"),
        "{out}"
    );
    let mut zh = args.to_vec();
    zh.extend(["--lang", "zh"]);
    let out = stdout(&common::run_cols(TAG, "250", &zh));
    assert!(
        out.contains("向上取整到 8 的倍数（gpt-fast 的静态 KV 缓存）"),
        "{out}"
    );
    // vLLM keeps its 16-token blocks.
    let out = stdout(&common::run_cols(TAG, "250", &args[..7]));
    assert!(
        out.contains("max_model_len 1312 (default)") && out.contains("whole 16-token blocks"),
        "{out}"
    );
}

const OSS_20B: &str = "../gpuplan-core/tests/fixtures/hf-quantized/gpt-oss-20b.json";

/// Review r12 #1: the shipped MXFP4 row of gpt-oss-20b was folded under its own bf16
/// dequantization ("same answer as plan 3: 2 × ecs.gn7e-c16g1.4xlarge mxfp4" with plan 3 in
/// bf16): a copy with more bits is never better than the shipped checkpoint, so a bf16 row never
/// names an MXFP4 twin.
#[test]
fn the_shipped_mxfp4_row_is_not_folded_under_its_bf16_copy() {
    let o = run(&[
        "plan",
        "--model-config",
        OSS_20B,
        "--task",
        "inference",
        "--rate",
        "0.2",
        "--gpu",
        "a100",
        "--wide",
    ]);
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    let out = stdout(&o);
    let bf16_rows: Vec<String> = out
        .lines()
        .filter(|l| l.starts_with('│') && l.contains("bf16 TP"))
        .filter_map(|l| l.split('│').nth(1))
        .map(|n| {
            n.split('┆')
                .next()
                .unwrap_or("")
                .trim_end_matches('*')
                .trim()
                .to_string()
        })
        .collect();
    for n in bf16_rows {
        let head = format!("same answer as plan {n}:");
        if let Some(line) = out.lines().find(|l| l.starts_with(&head)) {
            assert!(!line.contains("mxfp4"), "{line}\n{out}");
        }
    }
    assert!(out.contains("mxfp4 TP1"), "{out}");
}

/// Review r12 #2: `--weights mxfp4` on a model without routed experts sized every weight 16-bit
/// under an "mxfp4" title; it is refused naming `weights`, by `estimate` and by `plan`.
#[test]
fn mxfp4_on_a_dense_model_is_refused() {
    let base = [
        "-m",
        "Llama-3.1-8B",
        "--task",
        "inference",
        "--weights",
        "mxfp4",
        "--gpu",
        "h100",
    ];
    let est = run(&[&["estimate"][..], &base].concat());
    refused(&est, &["weights", "mxfp4", "routed experts"]);
    let plan = run(&[&["plan", "--rate", "1"][..], &base].concat());
    refused(&plan, &["weights", "mxfp4", "routed experts"]);
}

/// Review r12 #3: `estimate` and `plan` took an FP8 checkpoint as stored only on chips with FP8
/// units, while the engine rule (`infer::fp8_weights_run_on`) loads it on Ampere through vLLM's
/// FP8 Marlin; where it does not load (the static engine) the 16-bit sizing was silent.
#[test]
fn an_fp8_checkpoint_follows_the_engine_rule() {
    let est = |engine: &str| {
        let o = run(&[
            "estimate",
            "-m",
            "DeepSeek-V3",
            "--task",
            "inference",
            "--gpu",
            "a100-80g",
            "--engine",
            engine,
        ]);
        stderr(&o)
    };
    let vllm = est("vllm");
    assert!(
        vllm.contains("weights: fp8") && vllm.contains("as vllm loads it"),
        "{vllm}"
    );
    let stat = est("static");
    assert!(
        stat.contains("ships fp8") && stat.contains("sized at 16 bits"),
        "{stat}"
    );
}

/// Review r12 #4: `--weights mxfp4` on V100s (no MXFP4 kernel before compute capability 8.0)
/// read "no instance type holds the weights [memory]"; the format not running is the reason.
#[test]
fn mxfp4_where_no_chip_runs_it_names_the_format() {
    let o = run(&[
        "plan",
        "-m",
        "Mixtral-8x7B",
        "--task",
        "inference",
        "--rate",
        "1",
        "--weights",
        "mxfp4",
        "--gpu",
        "v100",
    ]);
    common::assert_exit_phrases(
        &o,
        4,
        &["runs mxfp4 weights", "[weights]", "!holds the weights"],
    );
}
