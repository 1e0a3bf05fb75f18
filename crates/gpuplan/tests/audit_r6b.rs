//! Audit r6 (notes/audit-r6.md), the findings left open by the auditor's branch: an unknown
//! `--region` (#6), image/encoder serving priced in tokens and its T4 caveat (#2), autoscaling
//! advice speaking of a load nobody stated (#7) and `estimate`'s memory table without the phase
//! of its peak (#11). Each test runs the CLI as a user does and asserts the property.

mod common;
use common::plans;
use serde_json::Value;
use std::process::Output;

const TAG: &str = "audit-r6b";

fn run(args: &[&str]) -> Output {
    common::run(TAG, args)
}

fn plan_json(args: &[&str]) -> Value {
    common::plan_json(TAG, args)
}

fn advice_en<'a>(p: &'a Value, id: &str) -> Option<&'a str> {
    p["advice"].as_array()?.iter().find(|a| a["id"] == id)?["en"].as_str()
}

/// A ResNet-50 or BERT service has no generated tokens and no KV cache: its JSON carried
/// `cost_per_million_tokens` (of a made-up 1000+300-token prompt) and a T4 plan said "weights
/// and KV cache in fp16 (… vLLM needs --dtype half)". Now such plans are priced per 1k requests
/// only and the T4 caveat speaks of weights and activations; a decoder keeps both.
#[test]
fn image_and_encoder_serving_is_priced_per_request_without_a_kv_cache_caveat() {
    for model in ["ResNet-50", "BERT-base-uncased"] {
        let v = plan_json(&["-m", model, "--task", "inference", "--rate", "100"]);
        assert!(!plans(&v).is_empty(), "{model}");
        for p in plans(&v) {
            let s = &p["serve"];
            assert!(s["cost_per_million_tokens"].is_null(), "{model}: {s}");
            // Unpriced types have neither figure.
            let priced = !p["chosen"].is_null();
            let k = s["cost_per_1k_requests"].as_f64();
            assert_eq!(k.is_some_and(|k| k > 0.0), priced, "{model}: {s}");
            let cav = p["caveats"].to_string();
            assert!(
                !cav.contains("KV cache") && !cav.contains("--dtype half"),
                "{cav}"
            );
        }
        let t4 = plan_json(&[
            "-m",
            model,
            "--task",
            "inference",
            "--rate",
            "100",
            "--gpu",
            "t4",
            "--weights",
            "bf16",
        ]);
        let cav = plans(&t4)[0]["caveats"].to_string();
        assert!(
            cav.contains("weights and activations run in fp16"),
            "{model}: {cav}"
        );
    }
    let v = plan_json(&[
        "-m",
        "Qwen2.5-7B",
        "--task",
        "inference",
        "--rate",
        "5",
        "--gpu",
        "t4",
        "--weights",
        "bf16",
    ]);
    let p = &plans(&v)[0];
    assert!(p["serve"]["cost_per_million_tokens"].as_f64().unwrap() > 0.0);
    assert!(p["caveats"].to_string().contains("KV cache in fp16"));
}

/// `plan --task inference --ttft 1` with no `--rate`/`--concurrency` advised "Replicas: the
/// stated load needs 1": no load was stated. The advice now says none was given; with a rate it
/// still gives the count the load needs. ResNet's advice does not tell it to watch a KV cache.
#[test]
fn autoscaling_advice_does_not_invent_a_stated_load() {
    let serve = ["-m", "Qwen2.5-7B", "--task", "inference", "--ttft", "1"];
    let v = plan_json(&serve);
    let a = advice_en(&plans(&v)[0], "autoscaling").unwrap();
    assert!(
        !a.contains("stated load") && a.contains("no load was given (--rate/--concurrency)"),
        "{a}"
    );
    let v = plan_json(&[&serve[..], &["--rate", "10"]].concat());
    let a = advice_en(&plans(&v)[0], "autoscaling").unwrap();
    assert!(a.contains("the stated load needs"), "{a}");
    assert!(a.contains("gpu_cache_usage_perc"), "{a}");
    let v = plan_json(&["-m", "ResNet-50", "--task", "inference", "--rate", "100"]);
    let a = advice_en(&plans(&v)[0], "autoscaling").unwrap();
    assert!(!a.contains("KV") && a.contains("request latency"), "{a}");
}

/// The first message on stderr, its wrapped lines (indented) joined.
fn first_message(err: &str) -> String {
    let mut lines = err.lines();
    let mut out = lines.next().unwrap_or("").to_string();
    for l in lines.take_while(|l| l.starts_with(' ')) {
        out.push(' ');
        out.push_str(l.trim());
    }
    out
}

const LORA: [&str; 7] = [
    "plan",
    "-m",
    "Qwen2.5-7B",
    "--task",
    "lora",
    "--tokens",
    "1e8",
];

/// `--region mars-1` / `cn-shangai` were planned as cn-shanghai with only "price from
/// cn-shanghai, used for …" deep in the advice. The catalog has no complete region list to refuse
/// them by (Alibaba and Huawei types name no regions), so the plan goes on, but the first line
/// on stderr says the region is unknown, lists the known ones, the nearest spelling and where
/// the prices come from. A region the catalog names (or the same city under another provider's
/// spelling) is not warned.
#[test]
fn an_unknown_region_is_named_first_with_the_known_ones_and_the_nearest_spelling() {
    let o = run(&[&LORA[..], &["--region", "cn-shangai"]].concat());
    assert!(o.status.success());
    let err = String::from_utf8_lossy(&o.stderr);
    let first = first_message(&err);
    assert!(
        first.starts_with(
            "warning: region cn-shangai is not in gpuplan's catalog (did you mean cn-shanghai"
        ) && first.contains("; known: ap-bangkok, ")
            && first.contains("Prices are from cn-shanghai"),
        "{err}"
    );
    let o = run(&[&LORA[..], &["--region", "mars-1", "--lang", "zh"]].concat());
    let err = String::from_utf8_lossy(&o.stderr);
    assert!(
        err.contains("区域 mars-1 不在 gpuplan 的目录中") && !err.contains("是否想输入"),
        "{err}"
    );
    for known in [
        &["--region", "cn-shanghai"][..],
        &["--region", "cn-beijing"],
        &["--region", "ap-singapore", "--provider", "tencent"],
    ] {
        let o = run(&[&LORA[..], known].concat());
        let err = String::from_utf8_lossy(&o.stderr);
        assert!(
            !err.contains("not in gpuplan's catalog"),
            "{known:?}: {err}"
        );
    }
}

/// `estimate … Qwen2.5-72B --task full` on 4 × ebmgn7ex listed "activations 0.00" under a
/// plain "memory per device" title while its timeline showed 61.84 GiB of saved activations:
/// the table is the peak, the optimizer step, where they are freed. The title now names that
/// phase, as `plan`'s does, and it is the phase the timeline marks as the peak.
#[test]
fn estimate_memory_table_names_the_phase_of_its_peak() {
    let args = [
        "estimate",
        "-m",
        "Qwen2.5-72B",
        "--task",
        "full",
        "--instance",
        "ecs.ebmgn7ex.32xlarge",
        "--nodes",
        "4",
        "--tokens",
        "1e9",
    ];
    // ZeRO-0 does not fit (exit 1, "does not fit"): the table is printed all the same.
    let o = run(&args);
    let out = String::from_utf8_lossy(&o.stdout).replace("\n  ", " ");
    assert!(
        out.contains("at the peak of the step (optimizer step"),
        "{out}"
    );
    let o = run(&[&args[..], &["--lang", "zh"]].concat());
    let out = String::from_utf8_lossy(&o.stdout).replace("\n  ", "");
    assert!(out.contains("取一步中的峰值时刻（"), "{out}");
}

/// `models show GLM-4-9B --lang zh` ran its architecture line past 80 columns, and a GLM source
/// read "code-index file id 8873357857", which no user can open (eight more cited another such
/// id). Every line of `models show` now fits the width, and every source names a repository,
/// path and commit or a URL.
#[test]
fn models_show_fits_the_width_and_cites_sources_a_user_can_open() {
    for lang in ["en", "zh"] {
        let o = run(&["models", "show", "GLM-4-9B", "--lang", lang]);
        assert!(o.status.success());
        let out = String::from_utf8_lossy(&o.stdout);
        for line in out.lines() {
            let w = unicode_width::UnicodeWidthStr::width(line);
            assert!(w <= 80, "{lang}: {w} columns: {line}");
        }
        let joined = out.replace("\n  ", " ");
        assert!(
            joined.contains("My-LLaMA-Factory cuda_docker_run/README.md @1259722b"),
            "{out}"
        );
    }
    let data = include_str!("../../gpuplan-core/data/models.toml");
    assert!(!data.contains("code-index file id"));
}

/// Review r6 #9: the expert all-to-all settings were accepted and ignored on an inference
/// estimate, on a dense model and at EP 1. Each is refused (exit 2) naming the flag or key.
#[test]
fn expert_all_to_all_settings_without_expert_parallelism_are_refused() {
    common::assert_refused(
        TAG,
        &[
            "estimate",
            "-m",
            "Qwen2.5-7B",
            "--task",
            "inference",
            "--gpu",
            "A100",
            "--moe-dispatcher",
            "deepep",
        ],
        2,
        &["--moe-dispatcher"],
    );
    for (model, flag, value) in [
        ("Qwen2.5-7B", "--moe-a2a-overlap", "true"),
        ("Qwen3-30B-A3B", "--moe-dispatcher", "deepep"),
    ] {
        let args = [
            "estimate", "-m", model, "--task", "full", "--gpu", "H100", "--tokens", "1e8", flag,
            value,
        ];
        common::assert_refused(TAG, &args, 2, &["ep ≥ 2"]);
    }
}
