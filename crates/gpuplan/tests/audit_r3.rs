//! Audit r3 (notes/audit-r3.md): advice that said false things on multi-node plans. Each test
//! runs the CLI as a user does and asserts the property, not a frozen number.

mod common;
use common::advice;
use serde_json::Value;

fn plan_json(args: &[&str]) -> Value {
    let o = common::run(
        "audit-r3",
        &[&["plan", "--format", "json", "--top", "100"], args].concat(),
    );
    serde_json::from_slice(&o.stdout)
        .unwrap_or_else(|e| panic!("{e}: {}", String::from_utf8_lossy(&o.stderr)))
}

/// `plan -m Llama-3.1-70B --task full --tokens 2e9 --deadline 3d`: the top plan (16 nodes over
/// eRDMA, ZeRO-3) said "37% of the step is gradient traffic between the 8 GPUs over PCIe; an
/// NVLink/NVSwitch type would cut it several-fold" — the 37% waits on the NIC between nodes,
/// which NVLink does not shorten — and its Chinese ZeRO-3 advice read "经 eRDMA between nodes".
/// Where ZeRO-3's traffic crosses the nodes' network, no NVLink advice is given, and the link
/// is named in the reader's language.
#[test]
fn nvlink_advice_only_where_traffic_waits_inside_the_node() {
    let v = plan_json(&[
        "-m",
        "Llama-3.1-70B",
        "--task",
        "full",
        "--tokens",
        "2e9",
        "--deadline",
        "3d",
    ]);
    let plans = v["outcome"]["plans"].as_array().unwrap();
    let mut across = 0;
    for p in plans {
        let Some(z) = advice(p, "zero3-over-slow-link") else {
            continue;
        };
        let (en, zh) = (z["en"].as_str().unwrap(), z["zh"].as_str().unwrap());
        assert!(!zh.contains("between") && !zh.contains("inside"), "{zh}");
        if en.contains("between nodes") {
            across += 1;
            assert!(zh.contains("节点间"), "{zh}");
            assert!(advice(p, "nvlink-needed").is_none(), "{p}");
        }
    }
    assert!(across > 0, "no plan exercised ZeRO-3 across nodes: {v}");
}

/// `plan -m Llama-3.1-8B --task pretrain --tokens 1e12 --max-nodes 64` ranked one 8-GPU node for
/// 432 days first with no word that 8 nodes finish in 58 days for +38%. Without `--deadline`, a
/// top training plan over 30 days names the fastest plan within 1.5× its cost and half its time;
/// with a deadline, or on a short job, nothing is added.
#[test]
fn a_months_long_cheapest_plan_names_a_faster_one() {
    let long = [
        "-m",
        "Llama-3.1-8B",
        "--task",
        "pretrain",
        "--tokens",
        "1e12",
        "--max-nodes",
        "64",
    ];
    let v = plan_json(&long);
    let plans = v["outcome"]["plans"].as_array().unwrap();
    let top = &plans[0];
    let hint = advice(top, "long-job-no-deadline").expect("long-job-no-deadline on the top plan");
    assert!(top["hours"].as_f64().unwrap() > 720.0);
    let zh = hint["zh"].as_str().unwrap();
    assert!(zh.contains("天") && zh.contains("--deadline"), "{zh}");
    // The named plan exists in the list, at most half the time and 1.5× the cost.
    let en = hint["en"].as_str().unwrap();
    let cost = |p: &Value| p["chosen"]["cny"].as_f64().unwrap();
    let named = plans
        .iter()
        .find(|p| {
            let id = p["instance"]["id"].as_str().unwrap();
            en.contains(&format!("{} × {id} finishes", p["nodes"]))
        })
        .unwrap_or_else(|| panic!("named plan not in the list: {en}"));
    assert!(named["hours"].as_f64().unwrap() <= top["hours"].as_f64().unwrap() / 2.0);
    assert!(cost(named) <= cost(top) * 1.5);
    let with_deadline = plan_json(&[&long[..], &["--deadline", "30d"]].concat());
    for p in with_deadline["outcome"]["plans"].as_array().unwrap() {
        assert!(advice(p, "long-job-no-deadline").is_none());
    }
    let short = plan_json(&["-m", "Qwen2.5-7B", "--task", "lora", "--tokens", "1e8"]);
    assert!(advice(&short["outcome"]["plans"][0], "long-job-no-deadline").is_none());
}

/// `plan -m Llama-3.1-8B --task lora --tokens 5e7 --provider tencent`: only subscription prices
/// are known for Tencent, so an 8.3 h job cost ¥10000 (a month) and a 4-node 45.6 h plan cost the
/// same, with no word why. A short training plan priced by whole months says so and how to get
/// the pay-as-you-go price; a plan with an on-demand price does not.
#[test]
fn a_short_job_on_a_monthly_only_price_says_so() {
    let v = plan_json(&[
        "-m",
        "Llama-3.1-8B",
        "--task",
        "lora",
        "--tokens",
        "5e7",
        "--provider",
        "tencent",
    ]);
    let top = &v["outcome"]["plans"][0];
    assert_eq!(top["chosen"]["billing"], "monthly", "{top}");
    let m = advice(top, "monthly-price-only").expect("monthly-price-only");
    assert!(
        m["en"].as_str().unwrap().contains("--billing on-demand"),
        "{m}"
    );
    assert!(m["zh"].as_str().unwrap().contains("按整月计费"), "{m}");
    let ali = plan_json(&[
        "-m",
        "Llama-3.1-8B",
        "--task",
        "lora",
        "--tokens",
        "5e7",
        "--provider",
        "alibaba",
    ]);
    assert!(advice(&ali["outcome"]["plans"][0], "monthly-price-only").is_none());
}

/// Serving stock fallbacks read "(Alibaba Cloud, 730.0 h, ¥6696)" — a month as hours and a
/// monthly price without its unit — and a 432-day job's release advice "after ~10364.6 h". A
/// serving fallback shows its price per month; durations of 72 h and more are in days.
#[test]
fn fallbacks_and_release_use_the_plans_units() {
    let serve = plan_json(&["-m", "Qwen2.5-7B", "--task", "inference", "--rate", "5"]);
    let f = advice(&serve["outcome"]["plans"][0], "stock-fallbacks").expect("fallbacks");
    let (en, zh) = (f["en"].as_str().unwrap(), f["zh"].as_str().unwrap());
    assert!(en.contains("/month") && !en.contains("730.0 h"), "{en}");
    assert!(zh.contains("/月") && !zh.contains("730.0 小时"), "{zh}");
    // 3e11 tokens: about 130 days on the cheapest plan; 1e12 tokens: 432 days, past a year.
    let release = |tokens: &str| {
        let long = plan_json(&[
            "-m",
            "Llama-3.1-8B",
            "--task",
            "pretrain",
            "--tokens",
            tokens,
        ]);
        // The first plan that rents by the hour: a plan prepaid by the month has no release
        // advice (advice.rs `auto_release`); since round 8's SM contention the 3e11 top plan is one.
        long["outcome"]["plans"]
            .as_array()
            .unwrap()
            .iter()
            .find_map(|p| advice(p, "auto-release"))
            .expect("auto-release")
            .clone()
    };
    let r = release("3e11");
    let en = r["en"].as_str().unwrap();
    assert!(en.contains(" d:") && !en.contains(" h:"), "{en}");
    assert!(r["zh"].as_str().unwrap().contains("天结束"), "{r}");
    let r = release("1e12");
    let en = r["en"].as_str().unwrap();
    assert!(en.contains(" years:") && !en.contains(" d:"), "{en}");
    assert!(r["zh"].as_str().unwrap().contains("年结束"), "{r}");
}

/// "! RDMA not documented for this type: assumed TCP" stood under every one-node plan (the
/// README's own example), where no traffic crosses the nodes' network. The network caveats are
/// given only to plans with more than one node; those keep them.
#[test]
fn network_caveats_only_on_plans_that_cross_nodes() {
    let v = plan_json(&["-m", "Qwen2.5-32B", "--task", "full", "--tokens", "5e8"]);
    let (mut one, mut many) = (0, 0);
    for p in v["outcome"]["plans"].as_array().unwrap() {
        if p["instance"]["rdma"] != "unknown" {
            continue;
        }
        let said = p["caveats"].as_array().unwrap().iter().any(|c| {
            c.as_str()
                .unwrap_or_default()
                .contains("RDMA not documented")
        });
        if p["nodes"] == 1 {
            one += 1;
            assert!(!said, "{p}");
        } else {
            many += 1;
            assert!(said, "{p}");
        }
    }
    assert!(one > 0 && many > 0, "both kinds exercised: {one} / {many}");
}

/// `plan -m Qwen2.5-7B --task lora --tokens 1e8 --optimize time` put an unpriced Huawei plan
/// first and then said "plans without a known price are ranked after priced ones". Under time
/// ranking the note says how plans are really ordered; under cost ranking it is unchanged.
#[test]
fn unpriced_note_matches_the_order_shown() {
    let text = |extra: &[&str]| {
        let base = ["plan", "--lang", "en", "-m", "Qwen2.5-7B", "--task", "lora"];
        let o = common::run_cols(
            "audit-r3",
            "300",
            &[&base[..], &["--tokens", "1e8"], extra].concat(),
        );
        String::from_utf8_lossy(&o.stdout).into_owned()
    };
    let time = text(&["--optimize", "time"]);
    assert!(
        time.contains("no price"),
        "an unpriced plan is shown: {time}"
    );
    assert!(!time.contains("ranked after priced ones"), "{time}");
    assert!(time.contains("ranked by time, priced or not"), "{time}");
    let cost = text(&["--provider", "huawei"]);
    assert!(cost.contains("ranked after priced ones"), "{cost}");
}

/// `--explain --lang zh` said "后者每步 79% 的时间在通信（eRDMA between nodes (20.0 GB/s)）": the
/// link came from the step model's English words. It is named from the catalog in zh.
#[test]
fn explain_names_the_link_in_chinese() {
    let o = common::run_cols(
        "audit-r3",
        "300",
        &[
            "plan",
            "--lang",
            "zh",
            "--explain",
            "-m",
            "Llama-3.1-70B",
            "--task",
            "full",
            "--tokens",
            "2e9",
            "--provider",
            "alibaba",
        ],
    );
    let text = String::from_utf8_lossy(&o.stdout);
    assert!(text.contains("节点间的"), "{text}");
    assert!(
        !text.contains("between nodes") && !text.contains("inside the node"),
        "{text}"
    );
}

/// `plan -m Qwen2.5-72B --task full --tokens 1e9 --profile megatron --region cn-beijing`: 8 × 8
/// A100-80GB (ecs.ebmgn7e) took 29.3 h at TP8 PP8×v2 mb16×4 while 8 × 8 A100-40GB (ecs.ebmgn7,
/// also without RDMA) took 17.8 h at mb2×32: the search kept only the largest micro-batch that
/// fits, and under PP fewer micro-batches mean a larger bubble. More memory must not make the
/// same cluster shape slower.
#[test]
fn more_memory_is_not_slower_under_pipeline_parallelism() {
    let v = plan_json(&[
        "-m",
        "Qwen2.5-72B",
        "--task",
        "full",
        "--tokens",
        "1e9",
        "--profile",
        "megatron",
        "--region",
        "cn-beijing",
    ]);
    let hours = |id: &str| {
        v["outcome"]["plans"]
            .as_array()
            .unwrap()
            .iter()
            .find(|p| p["nodes"] == 8 && p["instance"]["id"] == id)
            .and_then(|p| p["hours"].as_f64())
            .unwrap_or_else(|| panic!("no 8-node {id} plan"))
    };
    let (big, small) = (hours("ecs.ebmgn7e.32xlarge"), hours("ecs.ebmgn7.26xlarge"));
    assert!(
        big <= small * 1.02,
        "80 GB {big:.1} h vs 40 GB {small:.1} h"
    );
}

/// A budget refusal listed "p40 skipped: invalid `precision` = AmpBf16" — the Rust name of the
/// value, not what the user types. The value is spelled as on the command line (`amp_bf16`).
#[test]
fn skipped_chip_reason_spells_the_precision_as_typed() {
    let v = plan_json(&[
        "-m",
        "DeepSeek-R1-Distill-Qwen-32B",
        "--task",
        "lora",
        "--tokens",
        "5e7",
        "--budget",
        "200",
        // Named: the reason is listed (unnamed chips are one line without reasons).
        "--gpu",
        "p40",
        "--gpu",
        "a100",
    ]);
    let why = v["outcome"]["rejected"].to_string();
    assert!(
        why.contains("amp_bf16") && !why.contains("AmpBf16"),
        "{why}"
    );
}

/// `plan -m Qwen2.5-32B --task full --tokens 5e8 --deadline 10h`: the 128-GPU top plan ran DP128
/// × micro-batch 1 = 128 sequences a step where the fine-tune default is 64, and only the
/// "Defaults" line showed 128 as if it were the default. A plan whose global batch exceeds the
/// one asked for says so; one that keeps it does not.
#[test]
fn a_raised_global_batch_is_a_caveat() {
    let v = plan_json(&[
        "-m",
        "Qwen2.5-32B",
        "--task",
        "full",
        "--tokens",
        "5e8",
        "--deadline",
        "10h",
    ]);
    let (mut raised, mut kept) = (0, 0);
    for p in v["outcome"]["plans"].as_array().unwrap() {
        let t = &p["train"];
        let runs = t["setup"]["micro_batch"].as_u64().unwrap()
            * t["setup"]["grad_accum"].as_u64().unwrap()
            * t["memory"]["data_parallel"].as_u64().unwrap();
        let said = p["caveats"]
            .as_array()
            .unwrap()
            .iter()
            .any(|c| c.as_str().unwrap_or_default().starts_with("global batch"));
        assert_eq!(said, runs > 64, "{runs}: {p}");
        if runs > 64 {
            raised += 1
        } else {
            kept += 1
        }
    }
    assert!(raised > 0 && kept > 0, "{raised} / {kept}");
}

/// `plan -m Llama-3.1-70B --task inference --rate 3 --weights bf16`: the top replica (4 × A100,
/// TP4, batch 256) claimed 13.1 req/s while one 1000-token prefill took 0.207 s — 2.7 s of
/// prefill in every second — and a T4 claimed 3.51 req/s of 0.327 s prefills. One replica's
/// GPUs run every request's prefill and the batch's decode steps: per second, rate × TTFT +
/// rate × output / batch × TPOT cannot exceed one second.
#[test]
fn a_replica_is_not_busier_than_one_second_per_second() {
    for args in [
        &["-m", "Llama-3.1-70B", "--rate", "3", "--weights", "bf16"][..],
        &[
            "-m",
            "Qwen2.5-7B",
            "--rate",
            "5",
            "--ttft",
            "1",
            "--tpot",
            "0.05",
        ][..],
    ] {
        let p = plan_json(&[&["--task", "inference"][..], args].concat());
        let plans = p["outcome"]["plans"].as_array().expect("plans");
        assert!(!plans.is_empty(), "{args:?}: no plan");
        for s in plans.iter().map(|pl| &pl["serve"]) {
            let rps = s["requests_per_second_per_replica"].as_f64().unwrap();
            let batch = s["batch_per_replica"].as_f64().unwrap();
            let (ttft, tpot) = (
                s["latency"]["ttft"].as_f64().unwrap(),
                s["latency"]["time_per_token"].as_f64().unwrap(),
            );
            let busy = rps * ttft + rps * 300.0 / batch * tpot;
            assert!(busy <= 1.0 + 1e-9, "{args:?}: busy {busy:.3} s/s in {s}");
        }
    }
}

/// `plan -m Qwen3-235B-A22B --task inference --rate 2 --weights bf16 --provider tencent` (470 GB
/// of bf16 weights; Tencent's largest node is 8 × A100-40G) answered "no instance type meets the
/// latency targets …: relax --ttft/--tpot" to a user who set no latency target. With no target
/// the refusal is memory, and it says so in both languages; with a target the old reason stays.
#[test]
fn a_serving_refusal_without_targets_names_memory() {
    let base = [
        "--task",
        "inference",
        "-m",
        "Qwen3-235B-A22B",
        "--rate",
        "2",
        "--weights",
        "bf16",
        "--provider",
        "tencent",
    ];
    let p = plan_json(&base);
    let r = &p["outcome"]["rejected"][0];
    assert_eq!(r["constraint"], "memory", "{r}");
    assert!(!r["message_en"].as_str().unwrap().contains("--ttft"), "{r}");
    assert!(r["message_zh"].as_str().unwrap().contains("显存"), "{r}");
    let p = plan_json(&[&base[..], &["--tpot", "0.05"]].concat());
    assert_eq!(
        p["outcome"]["rejected"][0]["constraint"],
        "latency-or-memory"
    );
}
