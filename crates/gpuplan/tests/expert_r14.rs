//! Review r14 ("would an expert sign the top plan?"): the advice an expert would give on the
//! plans of ordinary questions, checked as properties of the listed plans (the JSON answer), not
//! frozen numbers. notes: /work/notes/expert-r14.md.

mod common;
use common::{advice, plan_json, plans};
use serde_json::Value;

const TAG: &str = "expert-r14";

/// Llama-3.1-70B at 10 req/s (plan_scenarios s4) and a reasoning distill with long outputs: both
/// sized to a TPOT target the replica meets under its peak load by less than `LATENCY_MARGIN` (15% since stop 33).
const SERVE_CLOSE: &[&[&str]] = &[
    &[
        "-m",
        "Llama-3.1-70B",
        "--task",
        "inference",
        "--rate",
        "10",
        "--input-tokens",
        "1000",
        "--output-tokens",
        "300",
        "--ttft",
        "2",
        "--tpot",
        "0.06",
    ],
    &[
        "-m",
        "DeepSeek-R1-Distill-Qwen-14B",
        "--task",
        "inference",
        "--rate",
        "2",
        "--input-tokens",
        "500",
        "--output-tokens",
        "2000",
        "--ttft",
        "2",
        "--tpot",
        "0.04",
    ],
];

/// Share of a target inside which `latency-margin` must speak.
const LATENCY_MARGIN: f64 = gpuplan_core::plan::advice::LATENCY_MARGIN;

fn f(v: &Value) -> f64 {
    v.as_f64().unwrap_or_else(|| panic!("not a number: {v}"))
}

/// #1: the latency margin is judged on the TPOT the plan was sized by, the one under its peak
/// load, not the unloaded figure (59.0 ms of 60 under load, 21.9 ms unloaded, got no warning).
#[test]
fn latency_margin_reads_the_loaded_latency() {
    let mut warned = 0;
    for args in SERVE_CLOSE {
        let v = plan_json(TAG, args);
        let target = args[args.len() - 1].parse::<f64>().unwrap();
        for p in plans(&v).iter().filter(|p| p["advice"].is_array()) {
            let loaded = f(&p["serve"]["load"]["time_per_token"]);
            let close = loaded <= target && loaded > target * (1.0 - LATENCY_MARGIN);
            let said = advice(p, "latency-margin");
            assert_eq!(
                close,
                said.is_some(),
                "loaded TPOT {loaded} of {target}: {}",
                p["instance"]["id"]
            );
            if let Some(a) = said {
                warned += 1;
                let en = a["en"].as_str().unwrap();
                assert!(en.contains("under the plan's peak load"), "{en}");
                assert!(en.contains(&format!("{:.1} ms", loaded * 1e3)), "{en}");
            }
        }
    }
    assert!(
        warned > 0,
        "no plan of these questions sits within the margin"
    );
}

/// Llama-2-13B pretraining, 300B tokens in 30 days (plan_scenarios s3's job with a deadline).
const PRETRAIN_30D: &[&str] = &[
    "-m",
    "Llama-2-13B",
    "--task",
    "pretrain",
    "--tokens",
    "3e11",
    "--seq-len",
    "4096",
    "--deadline",
    "30d",
];

/// Qwen2.5-1.5B pretraining, 100B tokens in 14 days: the top plan leaves more than the margin.
const PRETRAIN_14D: &[&str] = &[
    "-m",
    "Qwen2.5-1.5B",
    "--task",
    "pretrain",
    "--tokens",
    "1e11",
    "--seq-len",
    "4096",
    "--deadline",
    "14d",
];

fn spot_hours(p: &Value) -> Option<f64> {
    p["costs"]
        .as_array()?
        .iter()
        .find(|c| c["billing"] == "spot")
        .map(|c| f(&c["hours"]))
}

/// #2: spot whose preemptions stretch the job past `--deadline` is no option, and the advice
/// says so instead of quoting its cost ("spot would cost about ¥324016" for a 30.4-day run under
/// a 30-day deadline).
#[test]
fn spot_advice_never_quotes_a_run_past_the_deadline() {
    let deadline = 30.0 * 24.0;
    let mut late = 0;
    for interruptible in [false, true] {
        let mut args = PRETRAIN_30D.to_vec();
        if interruptible {
            args.push("--interruptible");
        }
        let v = plan_json(TAG, &args);
        for p in plans(&v).iter().filter(|p| p["advice"].is_array()) {
            let (Some(hours), Some(a)) = (spot_hours(p), advice(p, "spot-checkpoint")) else {
                continue;
            };
            let en = a["en"].as_str().unwrap();
            if hours > deadline {
                late += 1;
                assert!(en.contains("past the --deadline of 30.0 d"), "{en}");
                assert!(
                    !en.contains('¥'),
                    "a cost for a run past the deadline: {en}"
                );
                assert!(a["zh"].as_str().unwrap().contains("超过 --deadline"));
            } else {
                assert!(!en.contains("past the --deadline"), "{en}");
            }
        }
    }
    assert!(late > 0, "no listed plan's spot run misses the deadline");
}

/// #4: a training plan that meets `--deadline` by less than the whole-run time's typical error
/// (`DEADLINE_MARGIN`, 15%) is told so; one with more slack is not.
#[test]
fn deadline_margin_speaks_only_inside_the_margin() {
    let mut counts = [0, 0];
    for (args, days) in [(PRETRAIN_30D, 30.0), (PRETRAIN_14D, 14.0)] {
        let v = plan_json(TAG, args);
        let d = days * 24.0;
        for p in plans(&v).iter().filter(|p| p["advice"].is_array()) {
            let hours = p["chosen"]["hours"].as_f64().unwrap_or(f(&p["hours"]));
            let close =
                hours <= d && hours > d * (1.0 - gpuplan_core::plan::advice::DEADLINE_MARGIN);
            let said = advice(p, "deadline-margin").is_some();
            assert_eq!(close, said, "{hours} h of {d}: {}", p["instance"]["id"]);
            counts[usize::from(said)] += 1;
        }
    }
    assert!(counts[0] > 0 && counts[1] > 0, "{counts:?}");
}

/// #3: the weight format as `plan` names it (`int4-g128`) is what `estimate --weights` takes.
#[test]
fn estimate_takes_the_weight_format_plan_prints() {
    let run = |w: &str| {
        let o = common::run(
            TAG,
            &[
                "estimate",
                "-m",
                "Llama-3.1-70B",
                "--task",
                "inference",
                "--gpu",
                "A100-40G",
                "--gpus-per-node",
                "4",
                "--tp",
                "4",
                "--weights",
                w,
                "--format",
                "json",
            ],
        );
        assert!(o.status.success(), "{w}: {}", common::stderr(&o));
        common::stdout(&o)
    };
    assert_eq!(run("int4-g128"), run("int4"));
}

/// Qwen2.5-7B full fine-tuning at 32k tokens: the top plan is context-parallel under FSDP.
const LONG_CONTEXT: &[&str] = &[
    "-m",
    "Qwen2.5-7B",
    "--task",
    "full",
    "--seq-len",
    "32768",
    "--tokens",
    "2e8",
    "--deadline",
    "5d",
];

/// #5: a context-parallel ZeRO-3 plan of the default profile (torch's context_parallel ring
/// under FSDP, as it was timed) is launched by Accelerate's FSDP2 with `parallelism_config`, not
/// by Megatron-LM, whose distributed optimizer holds ZeRO-1 only (85.6 GiB where the plan needs
/// 69.9 on an 80 GB A100).
#[test]
fn a_context_parallel_fsdp_plan_launches_with_accelerate_fsdp2() {
    let v = plan_json(TAG, LONG_CONTEXT);
    let top = &plans(&v)[0];
    let par = &top["train"]["setup"]["parallel"];
    let (cp, zero) = (par["cp"].as_u64().unwrap(), par["zero"].as_u64().unwrap());
    assert!(
        cp > 1 && par["tp"] == 1 && par["pp"] == 1 && par["ep"] == 1 && zero >= 2,
        "the question no longer plans CP under FSDP: {par}"
    );
    let gpus = f(&top["total_gpus"]) as u64;
    let dir = common::temp_path(TAG, "cp-bundle");
    let _ = std::fs::remove_dir_all(&dir);
    let mut args = vec!["plan", "--pick", "1", "--export", dir.to_str().unwrap()];
    args.extend_from_slice(LONG_CONTEXT);
    let o = common::run(TAG, &args);
    assert!(o.status.success(), "{}", common::stderr(&o));
    let read = |name: &str| {
        std::fs::read_to_string(dir.join(name)).unwrap_or_else(|e| panic!("{name}: {e}"))
    };
    let yaml = read("accelerate_fsdp.yaml");
    for want in [
        "fsdp_version: 2".to_string(),
        format!("fsdp_reshard_after_forward: {}", zero == 3),
        format!("parallelism_config_cp_size: {cp}"),
        format!("parallelism_config_dp_shard_size: {}", gpus / cp),
        "attn_implementation=\"sdpa\"".to_string(),
    ] {
        assert!(yaml.contains(&want), "{want} missing:\n{yaml}");
    }
    assert!(!yaml.contains("fsdp_sharding_strategy"), "{yaml}");
    assert!(
        read("launch.sh").contains("LAUNCHER=\"${LAUNCHER:-fsdp}\""),
        "default launcher"
    );
    let _ = std::fs::remove_dir_all(&dir);
}
