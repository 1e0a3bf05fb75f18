//! Review r15 ("would an expert sign the top plan?"): what an ordinary user types, read the way
//! they mean it. notes: /work/notes/expert-r15.md.

mod common;
use common::{all_text, assert_refused, plan_json, plans, run, stderr};
use serde_json::Value;

const TAG: &str = "expert-r15";

/// A batch-1 chat on two A10s, with the latency targets given as `ttft`, `tpot`.
fn chat(ttft: &str, tpot: &str) -> Vec<String> {
    [
        "-m",
        "Qwen2.5-7B",
        "--task",
        "inference",
        "--concurrency",
        "1",
        "--gpu",
        "A10",
        "--ttft",
        ttft,
        "--tpot",
        tpot,
    ]
    .map(String::from)
    .to_vec()
}

fn strs(v: &[String]) -> Vec<&str> {
    v.iter().map(String::as_str).collect()
}

/// #1: `--tpot 25ms` and `--ttft 500ms`, the way SLOs are written, were refused ("without a
/// unit"); they now read as the seconds the job stores, and give the same plans.
#[test]
fn latency_targets_take_units() {
    let with_units = plan_json(TAG, &strs(&chat("500ms", "25ms")));
    let in_seconds = plan_json(TAG, &strs(&chat("0.5", "0.025")));
    let job = &with_units["request"]["job"];
    assert_eq!(job["ttft_s"].as_f64(), Some(0.5), "{job}");
    assert_eq!(job["tpot_s"].as_f64(), Some(0.025), "{job}");
    assert_eq!(with_units["outcome"], in_seconds["outcome"]);
    assert!(!plans(&with_units).is_empty());
    let s2 = plan_json(TAG, &strs(&chat("2s", "0.025")));
    assert_eq!(s2["request"]["job"]["ttft_s"].as_f64(), Some(2.0));
    // A word is still refused, naming the flag and the units it takes.
    let mut bad = vec!["plan".to_string()];
    bad.extend(chat("fast", "0.025"));
    assert_refused(TAG, &strs(&bad), 2, &["--ttft `fast`", "50ms, 2s"]);
}

/// #1: a plain `--tpot 25` is 25 seconds per token; the plan runs at it (the header says
/// "TPOT < 25 s") and now warns, in the user's language, how to write milliseconds. A target
/// below a second is not warned about.
#[test]
fn a_tpot_of_seconds_warns_it_may_mean_milliseconds() {
    for (lang, phrase) in [
        ("en", "if you meant milliseconds, write --tpot 25ms"),
        ("zh", "如果指的是毫秒，请写 --tpot 25ms"),
    ] {
        let mut args = vec!["plan".to_string(), "--lang".into(), lang.into()];
        args.extend(chat("2", "25"));
        let o = run(TAG, &strs(&args));
        assert!(o.status.success(), "{}", stderr(&o));
        assert!(all_text(&o).contains(phrase), "{}", stderr(&o));
    }
    let mut args = vec!["plan".to_string()];
    args.extend(chat("2", "0.025"));
    let o = run(TAG, &strs(&args));
    assert!(!stderr(&o).contains("--tpot 0.025 is"), "{}", stderr(&o));
}

fn top_weights(v: &Value) -> Vec<String> {
    plans(v)
        .iter()
        .map(|p| p["serve"]["weights"]["format"].to_string())
        .collect()
}

/// #2: `plan --weights awq` (or `gptq`, or `INT8`) was refused while `estimate --weights awq`
/// took it: both now read the same words. AWQ/GPTQ are int4 at group 128.
#[test]
fn plan_reads_the_weight_words_estimate_reads() {
    let base = [
        "-m",
        "Qwen2.5-32B",
        "--task",
        "inference",
        "--rate",
        "2",
        "--provider",
        "tencent",
        "--weights",
    ];
    let int4 = plan_json(TAG, &[&base[..], &["int4"]].concat());
    for w in ["GPTQ", "int4-g128"] {
        let v = plan_json(TAG, &[&base[..], &[w]].concat());
        assert_eq!(v["outcome"], int4["outcome"], "--weights {w}");
    }
    // `awq` is the same int4 where vLLM loads AWQ, from compute capability 7.5 (audit r20 #2:
    // it was planned on Tencent's V100s too, which load GPTQ but not AWQ).
    // The advice differs (stock fallbacks name other plans), the plans' sizing does not.
    let awq = plan_json(TAG, &[&base[..], &["awq"]].concat());
    let sized = |p: &Value| {
        let keys = ["instance", "nodes", "serve", "costs", "hours"];
        keys.map(|k| p[k].clone())
    };
    let turing = |p: &&Value| {
        p["gpu"]["compute_capability"]
            .as_u64()
            .is_none_or(|c| c >= 75)
    };
    let from_turing: Vec<_> = plans(&int4).iter().filter(turing).map(sized).collect();
    assert!(
        from_turing.len() < plans(&int4).len(),
        "no V100 plan to drop"
    );
    let awq_plans: Vec<_> = plans(&awq).iter().map(sized).collect();
    assert_eq!(awq_plans, from_turing);
    let int8 = plan_json(TAG, &[&base[..], &["INT8"]].concat());
    assert!(top_weights(&int8).iter().all(|w| w.contains("int8")));
    assert_refused(
        TAG,
        &[&["plan"][..], &base[..], &["q4"]].concat(),
        2,
        &["--weights `q4`", "also awq, gptq"],
    );
}

/// #3 (review r14's leftover): the subscription note of a job longer than a month said "this
/// job uses 730 h", which reads as the whole job; it now says how many days it runs.
#[test]
fn a_job_longer_than_a_month_is_not_730_hours() {
    let v = plan_json(
        TAG,
        &[
            "-m",
            "Llama-2-70B",
            "--task",
            "pretrain",
            "--tokens",
            "1e12",
            "--seq-len",
            "4096",
            "--deadline",
            "120d",
            "--max-nodes",
            "64",
        ],
    );
    let mut seen = 0;
    for p in plans(&v) {
        let hours = p["hours"].as_f64().unwrap_or(0.0);
        for c in p["costs"].as_array().into_iter().flatten() {
            // The pure subscription's row (the mixed rows carry their own notes).
            let Some(note) = c["note"].as_str().filter(|n| n.starts_with("break-even")) else {
                continue;
            };
            assert!(!note.contains("uses 730 h"), "{note}");
            if hours > 730.0 {
                seen += 1;
                assert!(note.contains(" d without a break"), "{note}");
            }
        }
    }
    assert!(seen > 0, "no plan over a month with a monthly row");
}
