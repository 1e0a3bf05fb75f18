//! Audit r10 (notes/audit-r10.md): each test runs the CLI as a user does and asserts the property
//! the finding broke (the r9 leftovers first, numbered as in notes/audit-r9.md).

mod common;
use common::{all_text, stderr, stdout};
use std::path::PathBuf;
use std::process::Output;

fn run(args: &[&str]) -> Output {
    common::run("audit-r10", args)
}

fn workload(name: &str, text: &str) -> PathBuf {
    common::write_temp("audit-r10", name, text)
}

/// r9 #14: a full fine-tune of Llama-3.1-8B on one A100 with the optimizer in backward is short
/// by 51.8 GiB, of which the optimizer states and master weights are 89.8 GiB and activations
/// 12.3; the advice began with `--recompute full` (at most 12 GiB). Levers are now ordered by
/// what they can save, each with that figure, and the first one alone covers the shortfall.
#[test]
fn the_to_fit_advice_starts_with_what_overflows() {
    let args = [
        "estimate",
        "-m",
        "Llama-3.1-8B",
        "--task",
        "full",
        "--gpu",
        "A100",
        "--optimizer-in-backward",
        "--chunked-loss",
    ];
    let o = run(&args);
    assert_eq!(o.status.code(), Some(3), "{}", stderr(&o));
    let t = all_text(&o);
    assert!(
        t.contains("To fit, try --offload-optimizer (up to 89.7 GiB), --optimizer adam_w8bit"),
        "{t}"
    );
    let zh = all_text(&run(&[&args[..], &["--lang", "zh"]].concat()));
    assert!(
        zh.contains("可试 --offload-optimizer（最多省 89.7 GiB）")
            || zh.contains("可试 --offload-optimizer (最多省 89.7 GiB)"),
        "{zh}"
    );
}

/// r9 #19: at 60 columns the plan table's `bottleneck` header broke as `bottlen` over `eck`;
/// a terminal too narrow for the word gets the short header.
#[test]
fn a_narrow_plan_table_keeps_its_header_words_whole() {
    let o = common::run_cols(
        "audit-r10",
        "60",
        &[
            "plan",
            "-m",
            "Qwen2.5-7B",
            "--task",
            "lora",
            "--tokens",
            "1e8",
        ],
    );
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    let out = stdout(&o);
    for line in out.lines() {
        assert!(
            !line.contains("bottlen") || line.contains("bottleneck"),
            "{out}"
        );
    }
    assert!(out.contains("bound"), "{out}");
    let wide = common::run_cols(
        "audit-r10",
        "200",
        &[
            "plan",
            "-m",
            "Qwen2.5-7B",
            "--task",
            "lora",
            "--tokens",
            "1e8",
        ],
    );
    assert!(stdout(&wide).contains("bottleneck"), "{}", stdout(&wide));
}

/// r9 #21: SDXL at 0.5 req/s listed the same 6 × A10 fleet in bf16 and in int8 at the same cost
/// and rate, both starred; the int8 row's extra free memory holds nothing (no KV cache). It is
/// now folded into the bf16 row.
#[test]
fn a_lossier_image_model_row_that_buys_nothing_is_folded() {
    let v = common::plan_json(
        "audit-r10",
        &["-m", "SDXL-UNet", "--task", "inference", "--rate", "0.5"],
    );
    let plans = common::plans(&v);
    assert!(!plans.is_empty(), "{v}");
    let key = |p: &serde_json::Value| {
        (
            p["instance"]["id"].as_str().unwrap_or("").to_string(),
            p["nodes"].as_u64(),
            p["serve"]["replicas"].as_u64(),
        )
    };
    let cost = |p: &serde_json::Value| p["costs"][0]["cny"].as_f64().unwrap_or(f64::NAN);
    for (i, a) in plans.iter().enumerate() {
        for b in &plans[i + 1..] {
            let same_cost = (cost(a) - cost(b)).abs() < 1.0;
            assert!(
                !(key(a) == key(b) && same_cost),
                "{} and {} at the same cost",
                a["serve"]["weights"],
                b["serve"]["weights"]
            );
        }
    }
}

/// r9 #24: a latency target no type meets was refused without a figure; the refusal now says
/// the fastest first token and output token any type reaches.
#[test]
fn an_impossible_latency_refusal_gives_the_best_figures() {
    let args = [
        "plan",
        "-m",
        "Qwen2.5-7B",
        "--task",
        "inference",
        "--rate",
        "1",
        "--ttft",
        "0.01",
        "--tpot",
        "0.001",
    ];
    let o = run(&args);
    assert_eq!(o.status.code(), Some(4), "{}", all_text(&o));
    let t = all_text(&o);
    assert!(
        t.contains("the fastest first token any type reaches is"),
        "{t}"
    );
    assert!(t.contains(" ms ("), "{t}");
    let zh = all_text(&run(&[&args[..], &["--lang", "zh"]].concat()));
    assert!(zh.contains("最短首 token 时间为"), "{zh}");
}

/// r9 #23 (rest): `estimate --workload` with `[training]` and `[serve]` estimated the training
/// job and ignored `[serve]` without a word.
#[test]
fn an_estimate_says_it_ignores_the_serve_table() {
    let f = workload(
        "two.toml",
        "model = \"Qwen2.5-7B\"\n[serve]\nrate_rps = 5\n[training]\ntask = \"lora\"\ntokens = 1e8\n\n[hardware]\ngpu = \"A100\"\n",
    );
    let f = f.to_str().unwrap();
    let o = run(&["estimate", "--workload", f]);
    let e = stderr(&o).replace("\n  ", " ");
    assert!(
        e.contains(
            "`[serve]` table is read by `plan` only: `estimate` estimates the `[training]` job"
        ),
        "{e}"
    );
    let zh = stderr(&run(&["estimate", "--workload", f, "--lang", "zh"]));
    assert!(zh.contains("只由 `plan` 读取"), "{zh}");
}

/// The step table's "how" column in Chinese read `312.0 TFLOP/s peak × 0.7
/// (train_efficiency_ampere)`, `2 × all-reduce / layer / pass` and `ring K/V − attention`.
#[test]
fn the_step_how_column_is_chinese_under_zh() {
    let o = common::run_cols(
        "audit-r10",
        "250",
        &[
            "--wide",
            "estimate",
            "-m",
            "Qwen2.5-7B",
            "--task",
            "full",
            "--gpu",
            "A100",
            "--gpus-per-node",
            "8",
            "--zero",
            "3",
            "--cp",
            "2",
            "--seq-len",
            "32768",
            "--recompute",
            "full",
            "--lang",
            "zh",
        ],
    );
    let out = stdout(&o);
    assert!(
        out.contains("Ampere 矩阵乘效率 train_efficiency_ampere"),
        "{out}"
    );
    for english in ["peak", "ring K/V", "layer / pass"] {
        assert!(!out.contains(english), "{english}: {out}");
    }
}

/// An int8 serving bundle ran `vllm serve --quantization int8_per_channel_weight_only`, vLLM's
/// online shorthand that quantizes MoE experts only ("INT8 weight-only on MoE; linear stays
/// unquantized", vllm/config/quantization.py): Qwen2.5-7B would load 16-bit weights, twice the
/// memory planned. The bundle now sets no flag and asks for an 8-bit checkpoint.
#[test]
fn an_int8_serving_bundle_does_not_use_the_moe_only_flag() {
    let dir = common::scratch().join(format!("gpuplan-audit-r10-{}-int8", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    let o = run(&[
        "plan",
        "-m",
        "Qwen2.5-7B",
        "--task",
        "inference",
        "--rate",
        "5",
        "--weights",
        "int8",
        "--export",
        dir.to_str().unwrap(),
    ]);
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    let sh = std::fs::read_to_string(dir.join("serve-vllm.sh")).unwrap();
    assert!(
        !sh.contains("--quantization int8_per_channel_weight_only"),
        "{sh}"
    );
    assert!(sh.contains("8-bit weight-only checkpoint"), "{sh}");
}

/// DeepSeek-R1 at 1 req/s listed 2 × ebmgn8v (16 × H20) in its shipped FP8 and again in int8 (a
/// re-quantization of the FP8 checkpoint) at the same cost and memory, as plans 2 and 3; the
/// int8 row is folded into the FP8 one.
#[test]
fn a_requantized_twin_of_the_shipped_format_is_folded() {
    let v = common::plan_json(
        "audit-r10",
        &["-m", "DeepSeek-R1", "--task", "inference", "--rate", "1"],
    );
    let plans = common::plans(&v);
    let key = |p: &serde_json::Value| {
        (
            p["instance"]["id"].as_str().unwrap_or("").to_string(),
            p["nodes"].as_u64(),
        )
    };
    for (i, a) in plans.iter().enumerate() {
        for b in &plans[i + 1..] {
            let formats = (
                a["serve"]["weights"]["format"].as_str(),
                b["serve"]["weights"]["format"].as_str(),
            );
            assert!(
                !(key(a) == key(b) && formats == (Some("fp8"), Some("int8"))),
                "{:?}: fp8 and int8 on the same fleet",
                key(a)
            );
        }
    }
}

/// The serving table names the 4-bit format `int4-g128`; `--weights int4-g128` copied from it
/// was refused ("use bf16, fp16, fp8, int8 or int4"). And `task = "full"` in a workload file
/// (as `--task full` spells it) was refused with "unknown variant".
#[test]
fn names_the_output_prints_are_accepted_back() {
    let o = run(&[
        "plan",
        "-m",
        "Qwen2.5-7B",
        "--task",
        "inference",
        "--rate",
        "2",
        "--weights",
        "int4-g128",
    ]);
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    assert!(stdout(&o).contains("int4-g128"), "{}", stdout(&o));
    let f = workload(
        "full.toml",
        "model = \"Qwen2.5-7B\"\n[training]\ntask = \"full\"\ntokens = 1e8\n",
    );
    let o = run(&["plan", "--workload", f.to_str().unwrap()]);
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    assert!(stdout(&o).contains("full fine-tune"), "{}", stdout(&o));
}

/// `--gpu a10` planned on A100s (the ids `a100-…` start with `a10`), and `catalog instances
/// --gpu h20` listed H200s: a query that names a GPU exactly means that GPU alone.
#[test]
fn a_gpu_named_exactly_is_that_gpu_alone() {
    let v = common::plan_json(
        "audit-r10",
        &[
            "-m",
            "Qwen2.5-7B",
            "--task",
            "lora",
            "--tokens",
            "1e8",
            "--gpu",
            "a10",
        ],
    );
    let plans = common::plans(&v);
    assert!(!plans.is_empty(), "{v}");
    for p in plans {
        assert_eq!(
            p["gpu"]["id"].as_str(),
            Some("a10"),
            "{}",
            p["instance"]["id"]
        );
    }
    let o = run(&["catalog", "instances", "--gpu", "h20", "--format", "json"]);
    let v: serde_json::Value = serde_json::from_slice(&o.stdout).unwrap();
    let list = v["instances"].as_array().unwrap();
    assert!(!list.is_empty(), "{v}");
    for i in list {
        assert_eq!(i["instance"]["gpu"].as_str(), Some("h20"), "{i}");
    }
    // A prefix still selects a family of GPUs.
    let o = run(&["catalog", "instances", "--gpu", "A100", "--format", "json"]);
    let v: serde_json::Value = serde_json::from_slice(&o.stdout).unwrap();
    let ids: std::collections::BTreeSet<&str> = v["instances"]
        .as_array()
        .unwrap()
        .iter()
        .filter_map(|i| i["instance"]["gpu"].as_str())
        .collect();
    assert!(
        ids.contains("a100-40g") && ids.contains("a100-80g"),
        "{ids:?}"
    );
}

/// Round 10 review of audit r9 #22: the MLA + MoE small-batch warning reached `estimate`'s stderr
/// only; a serving plan at one request now carries it as the plan's caveat (text, JSON), en/zh,
/// and a plan at batch ≥ 8 does not.
#[test]
fn mla_moe_plans_below_batch_8_carry_the_caveat() {
    let base = [
        "plan",
        "-m",
        "DeepSeek-V3",
        "--task",
        "inference",
        "--concurrency",
    ];
    let one = run(&[&base[..], &["1", "--format", "json"]].concat());
    assert!(one.status.success(), "{}", stderr(&one));
    let json: serde_json::Value = serde_json::from_slice(&one.stdout).expect("json");
    let caveats = json["outcome"]["plans"][0]["caveats"].to_string();
    assert!(caveats.contains("validated batch 8–64"), "{caveats}");
    let zh = run(&[&base[..], &["1", "--lang", "zh"]].concat());
    assert!(
        all_text(&zh).contains("已验证的批大小 8–64"),
        "{}",
        all_text(&zh)
    );
    let many = run(&[&base[..], &["64", "--format", "json"]].concat());
    assert!(many.status.success(), "{}", stderr(&many));
    assert!(!stdout(&many).contains("validated batch 8–64"));
}

/// Audit r10 #7: the hint that would change the answer ("--profile megatron: about 69% less
/// time") was appended after the top plan's sorted advice, the last of 14 lines. It now goes first
/// among the advice of its severity.
#[test]
fn what_would_change_the_answer_comes_before_the_tips() {
    let args = [
        "plan",
        "-m",
        "Llama-3.1-70B",
        "--task",
        "full",
        "--tokens",
        "1e9",
        "--format",
        "json",
    ];
    let o = run(&args);
    assert!(o.status.success(), "{}", stderr(&o));
    let json: serde_json::Value = serde_json::from_slice(&o.stdout).expect("json");
    let advice = json["outcome"]["plans"][0]["advice"]
        .as_array()
        .expect("advice");
    let ids: Vec<&str> = advice.iter().filter_map(|a| a["id"].as_str()).collect();
    let sev: Vec<&str> = advice
        .iter()
        .filter_map(|a| a["severity"].as_str())
        .collect();
    let hint = ids
        .iter()
        .position(|i| *i == "poor-plan-hints")
        .expect("hint");
    let first_of_its_kind = sev.iter().position(|s| *s == sev[hint]).expect("severity");
    assert_eq!(hint, first_of_its_kind, "{ids:?} {sev:?}");
    assert!(advice[hint]["en"]
        .as_str()
        .unwrap_or("")
        .contains("--profile megatron"));
}
