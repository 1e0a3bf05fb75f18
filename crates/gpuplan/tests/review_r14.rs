//! Review r14 findings #2–#7 (task wt-fixB), each checked through the binary.

mod common;
use common::{assert_exit_phrases, output_checked, run};

/// #4: a k/M suffix on a decimal flag is refused without the "2000 or 2048" hint, which only
/// makes sense where a whole number is read; a whole-number flag keeps it.
#[test]
fn the_suffix_hint_speaks_only_on_whole_number_flags() {
    let decimal: [&[&str]; 3] = [
        &[
            "estimate",
            "-m",
            "Qwen2.5-7B",
            "--task",
            "inference",
            "--gpu-memory-utilization",
            "1k",
        ],
        &[
            "plan",
            "-m",
            "Qwen2.5-7B",
            "--task",
            "inference",
            "--tpot",
            "1k",
        ],
        &[
            "plan",
            "-m",
            "Qwen2.5-7B",
            "--task",
            "inference",
            "--rate",
            "1M",
        ],
    ];
    for args in decimal {
        let o = run("r14fixb-suffix", args);
        // "give a number …"; `--tpot` reads "give a time …" since review r15 (it takes ms/s).
        assert_exit_phrases(&o, 2, &["give a ", "!in full", "!1024", "!1048576"]);
    }
    let o = run(
        "r14fixb-suffix",
        &["plan", "-m", "Qwen2.5-7B", "--seq-len", "1k"],
    );
    assert_exit_phrases(&o, 2, &["write 1000 or 1024 in full"]);
}

/// `gpuplan --no-user-catalog prices ARGS` with `GPUPLAN_TODAY=today`, parsed.
fn prices_json(today: &str, args: &[&str]) -> serde_json::Value {
    let o = output_checked(
        std::process::Command::new(env!("CARGO_BIN_EXE_gpuplan"))
            .env("GPUPLAN_TODAY", today)
            .env_remove("LANG")
            .env_remove("LC_ALL")
            .env_remove("LC_MESSAGES")
            .args(["--no-user-catalog", "prices", "--format", "json"])
            .args(args),
    );
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    serde_json::from_slice(&o.stdout).unwrap()
}

/// #5: `prices` counts ages to `GPUPLAN_TODAY`, as every other table does: a year later, every
/// dated price is 365 days older (before, both runs read the system clock and agreed).
#[test]
fn prices_ages_follow_gpuplan_today() {
    let ages = |today| {
        let v = prices_json(today, &["--gpu", "A10"]);
        v["prices"]
            .as_array()
            .unwrap()
            .iter()
            .map(|r| r["age_days"].as_i64())
            .collect::<Vec<_>>()
    };
    let (a, b) = (ages("2030-01-01"), ages("2031-01-01"));
    assert!(!a.is_empty());
    for (x, y) in a.iter().zip(&b) {
        if let (Some(x), Some(y)) = (x, y) {
            assert_eq!(y - x, 365, "{a:?} {b:?}");
        }
    }
    assert!(a.iter().any(Option::is_some));
}

/// `estimate -m Qwen2.5-7B --task inference` on seven H100s at TP 7 (4 KV heads) with ENGINE.
fn tp7_with(engine: &str) -> std::process::Output {
    run(
        "r14fixb-tp",
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
            "--engine",
            engine,
        ],
    )
}

/// #7: the TP refusal names the engine actually used: vLLM's rule under vLLM, and under
/// `--engine static`/`trtllm` says the model applies that rule to them, not that vLLM requires it.
#[test]
fn the_tp_refusal_names_the_engine_in_use() {
    assert_exit_phrases(
        &tp7_with("vllm"),
        2,
        &["KV heads (4)", "as vLLM's attention layers require"],
    );
    assert_exit_phrases(
        &tp7_with("sglang"),
        2,
        &["as SGLang's attention layers require"],
    );
    for engine in ["static", "trtllm"] {
        let o = tp7_with(engine);
        let applied = format!("applies to --engine {engine} as well");
        assert_exit_phrases(
            &o,
            2,
            &[
                "KV heads (4)",
                &applied,
                "!as vLLM's attention layers require",
            ],
        );
    }
}

const BNB4: &str = "../gpuplan-core/tests/fixtures/hf-quantized/llama-3-8b-bnb-4bit.json";

/// The bitsandbytes fixture with a GPTQ int4 `quantization_config` of group 32 instead.
fn gptq_g32() -> String {
    let text = std::fs::read_to_string(BNB4).expect("fixture");
    let mut v: serde_json::Value = serde_json::from_str(&text).expect("json");
    v["quantization_config"] =
        serde_json::json!({"quant_method": "gptq", "bits": 4, "group_size": 32});
    let p = common::write_temp("r14fixb", "gptq-g32.json", &v.to_string());
    p.to_str().expect("path").to_string()
}

/// The weight labels of a serving plan's table of 20 (`serving: … (LABEL weights)`), one per plan
/// detailed.
fn plan_weights(config: &str, extra: &[&str]) -> Vec<String> {
    let mut args = vec![
        "plan",
        "--model-config",
        config,
        "--task",
        "inference",
        "--rate",
        "1",
        "--top",
        "20",
    ];
    args.extend_from_slice(extra);
    let o = run("r14fixb-w", &args);
    assert_eq!(o.status.code(), Some(0), "{}", common::stderr(&o));
    common::stdout(&o)
        .lines()
        .filter(|l| l.trim_start().starts_with("serving: "))
        .filter_map(|l| {
            l.split(" (")
                .nth(1)?
                .split(" weights)")
                .next()
                .map(str::to_string)
        })
        .collect()
}

/// #6: every weights label `plan` prints is read back by `plan --weights` and `estimate
/// --weights`: `int4-g32` (a GPTQ checkpoint of group 32; only `int4-g128` was) and
/// `bnb-4bit-dq` (a bitsandbytes checkpoint's stored format; accepted by neither).
#[test]
fn every_weights_label_plan_prints_is_accepted() {
    let g32 = gptq_g32();
    for (config, label) in [(g32.as_str(), "int4-g32"), (BNB4, "bnb-4bit-dq")] {
        let printed = plan_weights(config, &[]);
        assert!(printed.iter().any(|w| w == label), "{label}: {printed:?}");
        let again = plan_weights(config, &["--weights", label]);
        assert!(
            !again.is_empty() && again.iter().all(|w| w == label),
            "{again:?}"
        );
        let o = run(
            "r14fixb-w",
            &[
                "estimate",
                "--model-config",
                config,
                "--task",
                "inference",
                "--gpu",
                "a10",
                "--weights",
                label,
            ],
        );
        assert_exit_phrases(&o, 0, &[&format!("serving with {label} weights")]);
    }
    // A bitsandbytes label on a model stored otherwise names what it stores and the fix.
    let o = run(
        "r14fixb-w",
        &[
            "plan",
            "-m",
            "Qwen2.5-7B",
            "--task",
            "inference",
            "--weights",
            "bnb-4bit",
        ],
    );
    assert_exit_phrases(
        &o,
        2,
        &[
            "--weights `bnb-4bit`",
            "Qwen2.5-7B stores bf16",
            "--model-config",
        ],
    );
    let o = run(
        "r14fixb-w",
        &[
            "estimate",
            "-m",
            "Qwen2.5-7B",
            "--task",
            "inference",
            "--weights",
            "int4-g0",
        ],
    );
    assert_exit_phrases(&o, 2, &["--weights `int4-g0`", "int4-g<N>"]);
}

/// One 910B4 instance whose chip has no sourced memory bandwidth (a user catalog row over the
/// built-in one).
const NO_BANDWIDTH: &str = "[[gpu]]\n\
id = \"ascend-910b4\"\n\
name = \"Huawei Ascend 910B4 (32 GB)\"\n\
vendor = \"huawei\"\n\
memory_gib = 32\n\
visible_memory_gib = 29.49\n\
tflops = { fp16 = 280, bf16 = 245.8 }\n\
intra_link = \"hccs\"\n\
intra_link_gbs = 56\n\
stack = \"cann\"\n\
dtypes = [\"fp32\", \"fp16\", \"bf16\", \"int8\"]\n\
flash_attention = true\n\
source = \"test: no bandwidth\"\n\
as_of = \"2026-12\"\n\
confidence = \"unverified\"\n\
\n\
[[instance]]\n\
id = \"x.910b4\"\n\
provider = \"huawei\"\n\
family = \"xa\"\n\
gpu = \"ascend-910b4\"\n\
gpu_count = 1\n\
gpu_memory_gib = 32\n\
rdma = \"none\"\n\
source = \"test: one 910B4\"\n\
as_of = \"2026-11\"\n\
confidence = \"likely\"\n\
";

/// #3: under the `no-memory-bandwidth` refusal memory is not what refused, so no vLLM fit advice
/// follows it (before: "closest configuration … vLLM would start …" under it, at 90000+1000
/// tokens of Llama-3.1-8B on one 910B4).
#[test]
fn fit_advice_follows_only_a_memory_refusal() {
    let cat = common::write_temp("r14fixb", "no-bandwidth.toml", NO_BANDWIDTH);
    let o = run(
        "r14fixb-bw",
        &[
            "plan",
            "-m",
            "Llama-3.1-8B",
            "--task",
            "inference",
            "--rate",
            "1",
            "--no-user-catalog",
            "--catalog",
            cat.to_str().unwrap(),
            "--chips",
            "ascend",
            "--family",
            "xa",
            "--weights",
            "bf16",
            "--input-tokens",
            "90000",
            "--output-tokens",
            "1000",
        ],
    );
    assert_exit_phrases(
        &o,
        4,
        &[
            "no sourced memory bandwidth",
            "!closest configuration",
            "!vLLM would start",
        ],
    );
}
