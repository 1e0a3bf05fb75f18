//! The nine planner scenarios of the `gpuplan plan` issue, run as a user runs them (the binary,
//! JSON output), each asserting the named property rather than a frozen number; plus snapshots
//! of the zh and en tables for scenarios 1 and 4.

mod common;
use common::plans;

use serde_json::Value;
use std::process::{Command, Output};

fn run(args: &[&str]) -> Output {
    let cfg = common::scratch().join(format!("gpuplan-plan-{}", std::process::id()));
    common::output_checked(
        Command::new(env!("CARGO_BIN_EXE_gpuplan"))
            .env("GPUPLAN_TODAY", "2026-12-03")
            .env("GPUPLAN_CONFIG_DIR", &cfg)
            .env("COLUMNS", "220")
            .args(args),
    )
}

fn plan_json(args: &[&str]) -> (Option<i32>, Value) {
    let mut a = vec!["plan", "--format", "json"];
    a.extend_from_slice(args);
    let o = run(&a);
    let v: Value = serde_json::from_slice(&o.stdout)
        .unwrap_or_else(|e| panic!("{e}: {}", String::from_utf8_lossy(&o.stderr)));
    (o.status.code(), v)
}

fn gpus_per_node(p: &Value) -> u64 {
    p["cluster"]["gpus_per_node"].as_u64().unwrap()
}

fn advice_ids(p: &Value) -> Vec<String> {
    p["advice"]
        .as_array()
        .unwrap()
        .iter()
        .map(|a| a["id"].as_str().unwrap().to_string())
        .collect()
}

const S1: &[&str] = common::SCENARIOS[0].1;
const S4: &[&str] = common::SCENARIOS[3].1;

#[test]
fn s1_lora_7b_fits_a_small_node() {
    let (code, v) = plan_json(S1);
    assert_eq!(code, Some(0));
    let ps = plans(&v);
    let top = &ps[0];
    assert_eq!(top["nodes"], 1, "single node");
    assert!(
        gpus_per_node(top) <= 2,
        "at most 2 GPUs: {}",
        top["instance"]["id"]
    );
    for p in ps.iter().take(3) {
        assert!(
            gpus_per_node(p) < 8,
            "no 8-GPU node in the top 3: {}",
            p["instance"]["id"]
        );
        assert!(p["hours"].as_f64().unwrap() <= 24.0);
        assert_eq!(p["instance"]["provider"], "alibaba");
    }
}

#[test]
fn s2_full_finetune_8b_needs_more_than_one_gpu_and_says_why() {
    let (code, v) = plan_json(common::SCENARIOS[1].1);
    assert_eq!(code, Some(0));
    for p in plans(&v).iter().take(5) {
        assert!(
            p["total_gpus"].as_f64().unwrap() > 1.0,
            "no single-GPU plan: {}",
            p["instance"]["id"]
        );
    }
    let top = &plans(&v)[0];
    let zero = top["train"]["setup"]["parallel"]["zero"].as_u64().unwrap();
    assert!(zero >= 1, "the plan states a ZeRO stage");
    // The text report explains why one 80 GB card does not fit.
    let o = run(&[
        "plan",
        "-m",
        "Llama-3.1-8B",
        "--task",
        "full",
        "--seq-len",
        "4096",
        "--tokens",
        "1e9",
    ]);
    let text = String::from_utf8_lossy(&o.stdout);
    assert!(
        text.contains("Why not one GPU") && text.contains(&format!("ZeRO-{zero}")),
        "{text}"
    );
}

#[test]
fn s3_pretrain_13b_goes_multi_node_with_nvlink_and_rdma() {
    let (code, v) = plan_json(&[common::SCENARIOS[2].1, &["--top", "20"]].concat());
    assert_eq!(code, Some(0));
    let ps = plans(&v);
    let top = &ps[0];
    assert!(top["nodes"].as_u64().unwrap() > 1);
    assert_eq!(gpus_per_node(top), 8);
    assert!(["nvlink", "nvswitch"].contains(&top["instance"]["intra_link"].as_str().unwrap()));
    let rdma =
        |p: &Value| ["erdma", "roce", "ib"].contains(&p["instance"]["rdma"].as_str().unwrap());
    // The cheapest plan may go without RDMA when it still meets the deadline (Tencent's 16 ×
    // GT4.41XLARGE948 over TCP, monthly, 618 h of the 720: the 8-node eRDMA plan at 719.4 h fell
    // past the deadline when the loss's traffic over the logits was timed); it then says why
    // (below), and a multi-node NVLink plan with RDMA is among the next ones.
    assert!(
        rdma(top)
            || ps.iter().take(3).any(|p| {
                rdma(p)
                    && p["nodes"].as_u64().unwrap() > 1
                    && ["nvlink", "nvswitch"]
                        .contains(&p["instance"]["intra_link"].as_str().unwrap())
            }),
        "{}",
        top["instance"]["id"]
    );
    let mut compared = 0;
    for p in ps
        .iter()
        .filter(|p| p["nodes"].as_u64().unwrap() > 1 && !rdma(p))
    {
        assert!(
            advice_ids(p).contains(&"multi-node-without-rdma".to_string()),
            "a plan without RDMA says why"
        );
        // Like for like: the same chip and node count with RDMA is faster.
        if let Some(r) = ps
            .iter()
            .find(|r| rdma(r) && r["nodes"] == p["nodes"] && r["gpu"]["id"] == p["gpu"]["id"])
        {
            assert!(
                p["hours"].as_f64().unwrap() > r["hours"].as_f64().unwrap(),
                "{} vs {}",
                p["instance"]["id"],
                r["instance"]["id"]
            );
            compared += 1;
        }
    }
    assert!(compared > 0);
}

#[test]
fn s4_serve_70b_uses_tp_over_nvlink_or_quantization_and_shows_costs() {
    let (code, v) = plan_json(S4);
    assert_eq!(code, Some(0));
    let top = &plans(&v)[0];
    let s = &top["serve"];
    let quantized = s["weights"]["format"] != "bf16";
    let tp_nvlink = s["tp"].as_u64().unwrap() > 1
        && ["nvlink", "nvswitch"].contains(&top["instance"]["intra_link"].as_str().unwrap_or(""));
    assert!(quantized || tp_nvlink, "{s}");
    assert!(
        s["latency"]["ttft"].as_f64().unwrap() < 2.0
            && s["latency"]["time_per_token"].as_f64().unwrap() < 0.06
    );
    assert!(s["cost_per_million_tokens"].as_f64().unwrap() > 0.0);
    assert!(
        top["chosen"]["cny"].as_f64().unwrap() > 0.0,
        "cost per month"
    );
}

#[test]
fn s5_resnet50_imagenet_states_storage_and_cpu_needs() {
    let (code, v) = plan_json(&[common::SCENARIOS[4].1, &["--top", "400"]].concat());
    assert_eq!(code, Some(0));
    let ps = plans(&v);
    let top = &ps[0];
    assert!(top["train"]["data"]["read_bandwidth"].as_f64().unwrap() > 0.0);
    assert!(
        top["train"]["data"]["cpu_cores_for_decode"]
            .as_f64()
            .unwrap()
            > 0.0
    );
    assert!(
        advice_ids(top).contains(&"storage-class".to_string())
            && advice_ids(top).contains(&"image-decode-cores".to_string())
    );
    // Candidates with too few vCPUs are flagged.
    let flagged = ps
        .iter()
        .filter(|p| {
            p["advice"]
                .as_array()
                .unwrap()
                .iter()
                .any(|a| a["id"] == "image-decode-cores" && a["severity"] == "critical")
        })
        .count();
    assert!(flagged > 0, "some candidate is CPU-starved and flagged");
}

#[test]
fn s6_bert_serving_prefers_t4_a10_class() {
    let (code, v) = plan_json(&[common::SCENARIOS[5].1, &["--top", "50"]].concat());
    assert_eq!(code, Some(0));
    let ps = plans(&v);
    let small = |p: &Value| ["t4", "a10"].contains(&p["gpu"]["id"].as_str().unwrap());
    let big = |p: &Value| {
        let g = p["gpu"]["id"].as_str().unwrap();
        g.starts_with("a100") || g.starts_with("h")
    };
    assert!(small(&ps[0]), "top is {}", ps[0]["gpu"]["id"]);
    let first_small = ps.iter().position(small).unwrap();
    if let Some(first_big) = ps.iter().position(big) {
        assert!(first_small < first_big);
    }
}

#[test]
fn s7_ascend_only_with_mindspore_and_never_for_cuda_pytorch() {
    let (code, v) = plan_json(common::SCENARIOS[6].1);
    assert_eq!(code, Some(0));
    let top = &plans(&v)[0];
    assert_eq!(top["instance"]["provider"], "huawei");
    assert_eq!(top["gpu"]["vendor"], "huawei");
    assert!(advice_ids(top).contains(&"ascend-migration".to_string()));
    let (_, v) = plan_json(&[
        "-m",
        "Llama-2-13B",
        "--task",
        "lora",
        "--tokens",
        "1e8",
        "--framework",
        "pytorch",
        "--top",
        "500",
    ]);
    assert!(
        plans(&v).iter().all(|p| p["gpu"]["vendor"] != "huawei"),
        "no Ascend plan without --chips ascend"
    );
}

#[test]
fn s8_spot_only_when_interruptible() {
    let base = [
        "-m",
        "Qwen2.5-1.5B",
        "--task",
        "pretrain",
        "--tokens",
        "2e10",
        "--seq-len",
        "2048",
        "--top",
        "50",
    ];
    let mut with = base.to_vec();
    with.push("--interruptible");
    let (_, v) = plan_json(&with);
    let top = &plans(&v)[0];
    assert_eq!(top["chosen"]["billing"], "spot");
    let sp = &top["train"]["spot"];
    assert!(
        sp["checkpoint_interval_s"].as_f64().unwrap() > 0.0
            && sp["overhead_fraction"].as_f64().unwrap() > 0.0
    );
    let (_, v) = plan_json(&base);
    assert!(
        plans(&v).iter().all(|p| p["chosen"]["billing"] != "spot"),
        "never spot without --interruptible"
    );
}

const S9: &[&str] = common::SCENARIOS[8].1;

#[test]
fn s9_budget_too_small_explains_and_exits_4() {
    let mut a = vec!["plan"];
    a.extend_from_slice(S9);
    let o = run(&a);
    assert_eq!(o.status.code(), Some(4));
    let text = String::from_utf8_lossy(&o.stdout);
    // The spot figure is given when the cheapest plan's type has a spot or on-demand price.
    assert!(text.contains("over the ¥1000 budget"), "{text}");
    let (code, v) = plan_json(S9);
    assert_eq!(code, Some(4));
    assert!(v["outcome"]["rejected"]
        .as_array()
        .unwrap()
        .iter()
        .any(|b| b["constraint"] == "budget"));
}

#[test]
fn snapshots_zh_and_en() {
    for (name, args) in [("s1", S1), ("s4", S4)] {
        for lang in ["en", "zh"] {
            let mut a = vec!["plan", "--lang", lang, "--top", "3"];
            a.extend_from_slice(args);
            let o = run(&a);
            assert_eq!(o.status.code(), Some(0));
            insta::assert_snapshot!(
                format!("plan_{name}_{lang}"),
                String::from_utf8_lossy(&o.stdout)
            );
        }
    }
}

/// Issue 8 item 2: every explanation names a real difference or says the plans tie; never
/// "X beats X", never "sooner (0.3 h vs 0.3 h)".
#[test]
fn explanations_compare_different_plans_on_shown_values() {
    let cases: &[&[&str]] = &[
        &["-m", "Llama-2-70B", "--task", "qlora", "--tokens", "1e8"],
        &[
            "-m",
            "Qwen2.5-7B",
            "--task",
            "lora",
            "--tokens",
            "1e8",
            "--provider",
            "tencent",
        ],
        &[
            "-m",
            "Qwen2.5-7B",
            "--task",
            "lora",
            "--tokens",
            "1e8",
            "--provider",
            "huawei",
            "--chips",
            "ascend",
        ],
        &[
            "-m",
            "Qwen2.5-7B",
            "--task",
            "lora",
            "--tokens",
            "1e8",
            "--optimize",
            "time",
        ],
    ];
    for args in cases {
        for lang in ["en", "zh"] {
            let mut a = vec!["plan", "--explain", "--top", "8", "--lang", lang];
            a.extend_from_slice(args);
            let o = run(&a);
            let out = String::from_utf8_lossy(&o.stdout);
            for line in out
                .lines()
                .filter(|l| l.contains(" beats ") || l.contains(" 优于 "))
            {
                let (lhs, rest) = line
                    .split_once(" beats ")
                    .or_else(|| line.split_once(" 优于 "))
                    .unwrap();
                let rhs = rest.split([':', '：']).next().unwrap();
                assert_ne!(lhs.trim_start_matches("- "), rhs, "self-comparison: {line}");
                // "(A vs B)" / "（A，后者 B）" pairs must show different values.
                for (open, sep) in [("(", " vs "), ("(", "; the other "), ("（", "，后者 ")] {
                    for seg in line.split(open).skip(1) {
                        let inner = seg.split([')', '）']).next().unwrap();
                        if let Some((x, y)) = inner.split_once(sep) {
                            assert_ne!(x.trim(), y.trim(), "equal values compared: {line}");
                        }
                    }
                }
            }
        }
    }
}

/// Issue 8 item 2: without prices, a 128-GPU plan never outranks a one-node plan. (On Tencent the
/// smallest is 4 × T4: 2 × T4 needs 15.6 GiB per GPU, over the 14.8 GiB CUDA sees of a T4's
/// 15360 MiB.)
#[test]
fn unpriced_providers_pick_a_small_plan() {
    for provider in ["tencent", "huawei"] {
        let mut args = vec![
            "-m",
            "Qwen2.5-7B",
            "--task",
            "lora",
            "--tokens",
            "1e8",
            "--provider",
            provider,
        ];
        if provider == "huawei" {
            args.extend_from_slice(&["--chips", "nvidia,ascend"]);
        }
        let (code, v) = plan_json(&args);
        assert_eq!(code, Some(0), "{provider}: {v}");
        let top = &plans(&v)[0];
        let gpus = top["total_gpus"].as_f64().unwrap();
        assert!(gpus <= 4.0, "{provider}: top plan uses {gpus} GPUs");
        assert_eq!(top["nodes"].as_f64(), Some(1.0), "{provider}: {top}");
    }
}

/// Issue 8 item 3: the data path is a constraint. A ResNet-50 job reading 3 MB samples cannot be
/// fed through one node's NIC at the GPUs' rate: the plan says it is input- or network-bound,
/// the storage holds the 28 TiB dataset, and storage is either priced into the total or said to
/// be left out.
#[test]
fn data_path_binds_and_storage_holds_the_dataset() {
    let (code, v) = plan_json(&[
        "-m",
        "ResNet-50",
        "--task",
        "pretrain",
        "--samples",
        "1e7",
        "--epochs",
        "10",
        "--bytes-per-sample",
        "3000000",
        "--provider",
        "alibaba",
        "--max-nodes",
        "1",
    ]);
    assert_eq!(code, Some(0), "{v}");
    for p in plans(&v) {
        let t = &p["train"];
        let bottleneck = t["step"]["bottleneck"].as_str().unwrap();
        let read = t["data"]["read_bandwidth"].as_f64().unwrap();
        let nic_gbit = p["instance"]["network_gbit"].as_f64().unwrap_or(10.0);
        if read > nic_gbit * 1e9 / 8.0 * 1.01 {
            panic!("plan reads {read} B/s through a {nic_gbit} Gbit/s NIC: {p}");
        }
        let st = &t["storage"];
        if !st.is_null() {
            let cap = st["capacity_gib"].as_f64().unwrap();
            assert!(
                cap >= 1e7 * 3e6 / (1u64 << 30) as f64,
                "{cap} GiB < dataset"
            );
        }
        let _ = bottleneck;
    }
    let top = &plans(&v)[0];
    let b = top["train"]["step"]["bottleneck"].as_str().unwrap();
    assert!(
        ["network", "input", "host-cpu"].contains(&b),
        "one node cannot read 3 MB images at the GPUs' rate: bottleneck {b}"
    );
}

/// Issue 8 item 8: a communication-bound or low-MFU top plan says what would change it, with a
/// gain of at least 10% that the numbers in the hint bear out.
#[test]
fn poor_top_plan_gets_hints_with_gains() {
    let (code, v) = plan_json(&[
        "-m",
        "Llama-3.1-8B",
        "--task",
        "full",
        "--tokens",
        "1e9",
        "--optimize",
        "time",
    ]);
    assert_eq!(code, Some(0), "{v}");
    let top = &plans(&v)[0];
    let step = &top["train"]["step"];
    let poor = step["bottleneck"]
        .as_str()
        .unwrap()
        .ends_with("communication")
        || step["mfu"].as_f64().unwrap() < 0.25;
    let hint = top["advice"]
        .as_array()
        .unwrap()
        .iter()
        .find(|a| a["id"] == "poor-plan-hints");
    if !poor {
        assert!(hint.is_none());
        return;
    }
    let en = hint.expect("a poor top plan gets hints")["en"]
        .as_str()
        .unwrap()
        .to_string();
    // "(A h instead of B h)": A < 0.9 B.
    for seg in en.split('(').skip(1) {
        if let Some((a, rest)) = seg.split_once(" h instead of ") {
            let b = rest.split(' ').next().unwrap();
            let (a, b): (f64, f64) = (a.parse().unwrap(), b.parse().unwrap());
            assert!(a <= 0.9 * b + 0.05, "{en}");
        }
    }
}

/// Issue 8 item 7: serving that runs in production — at least two replicas unless the user says
/// otherwise, headroom for peaks, autoscaling advice; BERT/Whisper are not offered int4.
#[test]
fn serving_plans_have_replicas_headroom_and_no_int4_for_encoders() {
    let (code, v) = plan_json(&[
        "-m",
        "Qwen2.5-7B",
        "--task",
        "inference",
        "--rate",
        "0.1",
        "--top",
        "50",
    ]);
    assert_eq!(code, Some(0), "{v}");
    for p in plans(&v) {
        let s = &p["serve"];
        assert!(s["replicas"].as_u64().unwrap() >= 2, "{s}");
        assert!(p["advice"]
            .as_array()
            .unwrap()
            .iter()
            .any(|a| a["id"] == "autoscaling"));
    }
    let (_, one) = plan_json(&[
        "-m",
        "Qwen2.5-7B",
        "--task",
        "inference",
        "--rate",
        "0.1",
        "--min-replicas",
        "1",
    ]);
    assert_eq!(plans(&one)[0]["serve"]["replicas"], 1);
    // Peak headroom: 1.25× by default, more with --peak-factor.
    let (_, peak) = plan_json(&[
        "-m",
        "Qwen2.5-7B",
        "--task",
        "inference",
        "--rate",
        "40",
        "--peak-factor",
        "3",
    ]);
    let s = &plans(&peak)[0]["serve"];
    let per = s["requests_per_second_per_replica"].as_f64().unwrap();
    assert!(
        s["replicas"].as_u64().unwrap() as f64 * per >= 40.0 * 3.0 * 0.999,
        "{s}"
    );
    for model in ["BERT-base-uncased", "Whisper-large-v3"] {
        let (code, v) = plan_json(&[
            "-m",
            model,
            "--task",
            "inference",
            "--rate",
            "20",
            "--input-tokens",
            "128",
            "--output-tokens",
            "16",
            "--top",
            "200",
        ]);
        assert_eq!(code, Some(0), "{model}: {v}");
        for p in plans(&v) {
            let w = p["serve"]["weights"].to_string();
            assert!(!w.contains("int4"), "{model} offered {w}");
        }
    }
}

/// Every plan's GPUs together hold at least the mixed-precision Adam states (16 B/param): the
/// real-world floor before activations (ZeRO paper §3).
fn assert_states_fit_physically(args: &[&str], params: f64) -> Vec<Value> {
    let mut a = vec!["--top", "200"];
    a.extend_from_slice(args);
    let (_, v) = plan_json(&a);
    let ps = plans(&v).clone();
    for p in &ps {
        let gib = p["gpu"]["memory_gib"].as_f64().unwrap();
        let n = p["total_gpus"].as_f64().unwrap();
        assert!(
            n * gib * 1_073_741_824.0 >= params * 16.0,
            "{} × {} cannot hold {:.0} GB of states",
            n,
            p["gpu"]["id"],
            params * 16.0 / 1e9
        );
    }
    ps
}

#[test]
fn moe_full_finetune_does_not_fit_where_its_states_cannot() {
    // Mixtral-8x7B: 46.7B params, ≈ 750 GB of states: never 8 × A100-40GB (320 GB).
    let ps = assert_states_fit_physically(
        &[
            "-m",
            "Mixtral-8x7B",
            "--task",
            "full",
            "--tokens",
            "5e8",
            "--profile",
            "megatron",
        ],
        46.7e9,
    );
    assert!(!ps.is_empty());
    assert!(!ps
        .iter()
        .any(|p| p["gpu"]["id"] == "a100-40g" && p["total_gpus"].as_f64().unwrap() <= 8.0));
}

#[test]
fn moe_pretraining_235b_needs_at_least_47_a100_80g() {
    let ps = assert_states_fit_physically(
        &[
            "-m",
            "Qwen3-235B-A22B",
            "--task",
            "pretrain",
            "--tokens",
            "1e11",
        ],
        235e9,
    );
    for p in &ps {
        if p["gpu"]["id"] == "a100-80g" {
            assert!(p["total_gpus"].as_f64().unwrap() >= 47.0);
        }
    }
}

/// The default profile's MoE plan names the stack that runs its EP layout: DeepSpeed-MoE's
/// caveat ("expert parallelism (EP …") or, since round 8, Megatron-Core's ("… is
/// Megatron-Core's"); here Megatron-Core's PP 2 · EP 8 wins (before: the eager `EP8 ZeRO-1` at
/// TP 1 · PP 1).
#[test]
fn default_profile_uses_expert_parallelism_for_moe_full_finetune() {
    let (code, v) = plan_json(&["-m", "Mixtral-8x7B", "--task", "full", "--tokens", "5e8"]);
    assert_eq!(code, Some(0));
    let top = &plans(&v)[0];
    assert!(
        top["train"]["setup"]["parallel"]["ep"].as_u64().unwrap() > 1,
        "EP chosen: {}",
        top["train"]["setup"]["parallel"]
    );
    let mfu = top["train"]["step"]["mfu"].as_f64().unwrap();
    assert!(mfu > 0.05, "MFU {mfu}");
    assert!(
        top["caveats"].as_array().unwrap().iter().any(|c| {
            let c = c.as_str().unwrap();
            c.contains("expert parallelism (EP") || c.contains("is Megatron-Core's")
        }),
        "{}",
        top["caveats"]
    );
    assert!(
        plans(&v)
            .iter()
            .all(|p| launchable_by_named_stack("full", &p["train"]["setup"])),
        "{}",
        top["train"]["setup"]
    );
}

#[test]
fn t4_and_v100_plans_train_in_fp16_without_flash_attention() {
    let (code, v) = plan_json(&[
        "-m",
        "BERT-base-uncased",
        "--task",
        "full",
        "--tokens",
        "1e8",
        "--seq-len",
        "512",
        "--top",
        "200",
    ]);
    assert_eq!(code, Some(0));
    let old: Vec<&Value> = plans(&v)
        .iter()
        .filter(|p| {
            ["t4", "v100-sxm2-32g", "v100-sxm2-16g"].contains(&p["gpu"]["id"].as_str().unwrap())
        })
        .collect();
    assert!(!old.is_empty(), "T4/V100 plans offered");
    for p in old {
        let s = &p["train"]["setup"];
        assert_eq!(s["precision"], "amp_fp16", "{}", p["gpu"]["id"]);
        assert_eq!(s["attention"], "mem_efficient");
        assert!(p["caveats"]
            .as_array()
            .unwrap()
            .iter()
            .any(|c| c.as_str().unwrap().contains("no bf16")));
    }
    // Card class: a power-limited PCIe A10 is planned below the SXM A100's efficiency.
    let eff = |id: &str| {
        plans(&v)
            .iter()
            .find(|p| p["gpu"]["id"] == id)
            .map(|p| p["train"]["step"]["efficiency_used"].as_f64().unwrap())
            .unwrap()
    };
    assert!(eff("a10") < 0.8 * eff("a100-80g"));
}

const BERT_BF16: &[&str] = &[
    "-m",
    "BERT-base-uncased",
    "--task",
    "full",
    "--tokens",
    "1e8",
    "--precision",
    "amp_bf16",
    "--top",
    "200",
];

fn precision_lines(v: &Value) -> Vec<String> {
    v["outcome"]["rejected"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|b| b["constraint"] == "precision")
        .map(|b| b["message_en"].as_str().unwrap().to_string())
        .collect()
}

#[test]
fn explicit_bf16_skips_chips_without_it_with_a_reason() {
    // Named with --gpu: the chip's reason.
    let (_, v) = plan_json(&[BERT_BF16, &["--gpu", "t4", "--gpu", "a10"]].concat());
    assert!(!plans(&v).iter().any(|p| p["gpu"]["id"] == "t4"));
    let rej = precision_lines(&v);
    assert!(
        rej.iter()
            .any(|m| m.starts_with("t4 skipped") && m.contains("bf16")),
        "{rej:?}"
    );
}

/// Not named: the chips without bf16 (t4, v100, p40, …) are one line, not one reason per GPU the
/// user never asked about.
#[test]
fn unnamed_skipped_chips_are_one_line() {
    let (_, v) = plan_json(BERT_BF16);
    assert!(!plans(&v).iter().any(|p| p["gpu"]["id"] == "t4"));
    let rej = precision_lines(&v);
    assert_eq!(rej.len(), 1, "{rej:?}");
    assert!(!rej[0].contains(" skipped:"), "{rej:?}");
    for gpu in ["t4", "p40", "v100"] {
        assert!(rej[0].contains(gpu), "{gpu}: {rej:?}");
    }
    assert!(rej[0].contains("--gpu"), "{rej:?}");
}

#[test]
fn image_models_report_samples_not_tokens_or_sequence_length() {
    let o = run(&[
        "plan",
        "-m",
        "ResNet-50",
        "--task",
        "pretrain",
        "--samples",
        "1.28e6",
        "--epochs",
        "90",
        "--provider",
        "alibaba",
        "--top",
        "2",
    ]);
    let text = String::from_utf8_lossy(&o.stdout);
    assert!(
        !text.contains("tokens/s") && !text.contains("seq 2048"),
        "{text}"
    );
    assert!(text.contains("samples/s"), "{text}");
    // ImageNet-90 on one A10 takes more than a day (ResNet-50 reaches ~20% of the tensor peak).
    let (_, v) = plan_json(&[
        "-m",
        "ResNet-50",
        "--task",
        "pretrain",
        "--samples",
        "1.28e6",
        "--epochs",
        "90",
        "--provider",
        "alibaba",
        "--top",
        "200",
    ]);
    let a10 = plans(&v)
        .iter()
        .find(|p| p["gpu"]["id"] == "a10" && p["total_gpus"] == 1.0)
        .unwrap();
    assert!(a10["hours"].as_f64().unwrap() > 24.0);
    assert!(a10["train"]["step"]["mfu"].as_f64().unwrap() < 0.25);
}

/// Whether the stack a plan names launches its layout (round 8, plan::train `point_stacks`):
/// Megatron-Core runs TP/PP/CP/EP at ZeRO ≤ 1; the `hugging_face` stack runs EP only as
/// DeepSpeed-MoE (TP = PP = CP = 1, ZeRO ≤ 2) and TP/PP only for pretraining at EP 1
/// (torchtitan-style); ZeRO-3 with EP is run by neither.
fn launchable_by_named_stack(task: &str, setup: &Value) -> bool {
    let par = &setup["parallel"];
    let n = |k: &str| par[k].as_u64().unwrap_or(1);
    let (mp, ep, zero) = (n("tp") * n("pp") * n("cp"), n("ep"), n("zero"));
    match setup["framework"].as_str().unwrap() {
        "megatron" => zero <= 1,
        "hugging_face" if ep > 1 => mp == 1 && zero <= 2,
        "hugging_face" => mp == 1 || task == "pretrain",
        _ => ep == 1,
    }
}

/// DeepSeek-V3 LoRA under the default profile (round 8): its 61 layers split over PP 4 as
/// Megatron-Core's 16 + 16 + 16 + 13 (`--decoder-last-pipeline-num-layers 13`) keep EP inside a
/// node, so the top plan is a PP + EP layout labelled `megatron`, compute-bound. Before, the
/// default profile searched MoE at TP 1 · PP 1 only: 8 nodes at EP 64, ZeRO-0, EP-comm-bound at
/// MFU 4.1%. Every listed plan is launchable by the stack it names.
#[test]
fn default_profile_moe_lora_takes_a_pipeline_and_expert_parallel_megatron_layout() {
    let (code, v) = plan_json(&[
        "-m",
        "DeepSeek-V3",
        "--task",
        "lora",
        "--tokens",
        "1e8",
        "--top",
        "20",
    ]);
    assert_eq!(code, Some(0));
    let top = &plans(&v)[0];
    let setup = &top["train"]["setup"];
    let par = &setup["parallel"];
    assert_eq!(setup["framework"], "megatron", "{setup}");
    assert!(par["pp"].as_u64().unwrap() > 1, "{par}");
    assert!(par["ep"].as_u64().unwrap() > 1, "{par}");
    assert!(par["last_stage_layers"].as_u64().is_some(), "{par}");
    let mfu = top["train"]["step"]["mfu"].as_f64().unwrap();
    assert!(mfu > 0.15, "MFU {mfu}");
    assert!(
        top["caveats"]
            .as_array()
            .unwrap()
            .iter()
            .any(|c| c.as_str().unwrap().contains("Megatron-Core's")),
        "{}",
        top["caveats"]
    );
    for p in plans(&v) {
        let s = &p["train"]["setup"];
        assert!(launchable_by_named_stack("lora", s), "{s}");
    }
}

/// No default-profile MoE plan lists a layout its named stack cannot launch (round 8: before,
/// Mixtral pretraining listed `TP1 PP2 EP8 ZeRO-1` under the eager profile, and ZeRO-2 beside
/// TP/PP with EP was searched), and both stacks appear where each wins somewhere. The default
/// profile is the one not named (trust r9 #2: an explicit `--profile hugging_face` searches the
/// eager stack only; tests/trust_r9.rs).
#[test]
fn default_profile_moe_plans_are_launchable_by_the_stack_they_name() {
    let mut stacks = std::collections::BTreeSet::new();
    for (model, task, tokens, profile) in [
        ("Mixtral-8x7B", "pretrain", "1e10", "hugging_face"),
        ("Qwen3-235B-A22B", "full", "1e8", "hugging_face"),
        ("Qwen3-30B-A3B", "lora", "1e8", "hugging_face"),
        // QLoRA has no Megatron stack: its plans are the eager ones (ZeRO-3/FSDP or DeepSpeed-MoE).
        // Since round 8's SM contention charges ZeRO-3's overlapped gathers, the eager stacks no
        // longer reach the top 30 of the three jobs above.
        ("Qwen3-30B-A3B", "qlora", "1e8", "hugging_face"),
        // Under `megatron` an MoE model's ZeRO-2/3 (Megatron-DeepSpeed's) is no longer searched:
        // its #1 was TP 4 · ZeRO-3.
        ("Qwen3-30B-A3B", "full", "1e8", "megatron"),
    ] {
        let mut args = vec![
            "-m", model, "--task", task, "--tokens", tokens, "--top", "30",
        ];
        if profile != "hugging_face" {
            args.extend(["--profile", profile]);
        }
        let (code, v) = plan_json(&args);
        assert_eq!(code, Some(0), "{model} {task}");
        for p in plans(&v) {
            let s = &p["train"]["setup"];
            assert!(launchable_by_named_stack(task, s), "{model} {task}: {s}");
            if profile == "hugging_face" {
                stacks.insert(s["framework"].as_str().unwrap().to_string());
            }
        }
    }
    assert!(
        stacks.contains("megatron") && stacks.contains("hugging_face"),
        "{stacks:?}"
    );
}

#[test]
fn serving_on_turing_and_volta_uses_fp16_not_bf16() {
    let (_, v) = plan_json(&[
        "-m",
        "Qwen2.5-7B",
        "--task",
        "inference",
        "--rate",
        "2",
        "--top",
        "300",
    ]);
    let old: Vec<&Value> = plans(&v)
        .iter()
        .filter(|p| p["gpu"]["id"] == "t4" || p["gpu"]["id"] == "v100-sxm2-32g")
        .collect();
    assert!(old
        .iter()
        .any(|p| p["serve"]["weights"]["format"] == "fp16"));
    assert!(!old
        .iter()
        .any(|p| p["serve"]["weights"]["format"] == "bf16"));
}

#[test]
fn fp8_is_planned_only_on_chips_with_fp8() {
    let (_, v) = plan_json(&[
        "-m",
        "Llama-3.1-8B",
        "--task",
        "full",
        "--tokens",
        "1e9",
        "--precision",
        "fp8",
        "--top",
        "300",
    ]);
    assert!(!plans(&v).is_empty(), "FP8 chips (H20, L20) are offered");
    for p in plans(&v) {
        let id = p["gpu"]["id"].as_str().unwrap();
        assert!(
            [
                "h100",
                "h800",
                "h20",
                "h200",
                "l20",
                "l40s",
                "l4",
                "rtx-4090",
                "alibaba-bl"
            ]
            .iter()
            .any(|x| id.starts_with(x)),
            "fp8 planned on {id}"
        );
    }
    let rej = precision_lines(&v);
    assert!(rej.len() == 1 && rej[0].contains("a100-80g"), "{rej:?}");
}

/// Issue 8 item 3: object storage is proposed for a large cold dataset when the split is cheaper,
/// with both monthly costs, and the split really is cheaper.
#[test]
fn large_dataset_gets_a_cheaper_object_storage_split() {
    let (code, v) = plan_json(
        &[
            common::RESNET_IMAGENET,
            &["--dataset-size", "30TB", "--provider", "alibaba"],
        ]
        .concat(),
    );
    assert_eq!(code, Some(0), "{v}");
    let top = &plans(&v)[0];
    let st = &top["train"]["storage"];
    let tier = &st["tiered"];
    assert!(
        !tier.is_null(),
        "no tiering for 30 TB on a file system: {st}"
    );
    let split =
        tier["object_monthly_cny"].as_f64().unwrap() + tier["cache_monthly_cny"].as_f64().unwrap();
    assert!(split < st["monthly_cny"].as_f64().unwrap() * 0.9);
    assert!(tier["object_gib"].as_f64().unwrap() >= 30e12 / 1073741824.0 - 1.0);
    assert!(advice_ids(top).contains(&"storage-tiering".to_string()));
}

/// Issue 8 item 2: the `--explain` lines, pinned in both languages (no self-comparison, no
/// equal-value "sooner"; `explanations_compare_different_plans_on_shown_values` checks the rule).
#[test]
fn explain_snapshots_zh_and_en() {
    for lang in ["en", "zh"] {
        let o = run(&[
            "plan",
            "-m",
            "Llama-2-70B",
            "--task",
            "qlora",
            "--tokens",
            "1e8",
            "--explain",
            "--top",
            "5",
            "--lang",
            lang,
        ]);
        assert_eq!(o.status.code(), Some(0));
        let out = String::from_utf8_lossy(&o.stdout);
        let at = out
            .find("why each plan beats the next")
            .or_else(|| out.find("各方案排序理由"))
            .expect("an explanation section");
        insta::assert_snapshot!(format!("explain_{lang}"), &out[at..]);
    }
}

/// Issue 13: the Chinese output of the nine scenarios (tables, advice, caveats, explanations,
/// the notes on stderr) has no English sentence left.
#[test]
fn zh_output_of_the_nine_scenarios_is_chinese() {
    let mut found = Vec::new();
    for (i, (_, args)) in common::SCENARIOS.iter().enumerate() {
        let mut a = vec!["plan", "--lang", "zh", "--explain", "--top", "5"];
        a.extend_from_slice(args);
        let o = run(&a);
        let text = format!(
            "{}\n{}",
            String::from_utf8_lossy(&o.stdout),
            String::from_utf8_lossy(&o.stderr)
        );
        assert!(
            !text.contains("{$"),
            "s{}: unresolved argument: {text}",
            i + 1
        );
        for s in common::english_sentences(&text) {
            found.push(format!("s{}: {s}", i + 1));
        }
    }
    assert!(
        found.is_empty(),
        "English left in zh output:\n{}",
        found.join("\n")
    );
}

/// Issue 10: `estimate --instance` applies the planner's host-CPU ceiling (one function,
/// `train::host_decode_cap`, with the catalog's vCPUs): a plan the host CPUs bind, re-estimated
/// on its instance and node count, gives the same images/s and names the same bottleneck.
#[test]
fn estimate_on_a_plans_instance_applies_the_same_host_ceiling() {
    let (code, v) = plan_json(
        &[
            common::RESNET_IMAGENET,
            &["--provider", "alibaba", "--top", "400"],
        ]
        .concat(),
    );
    assert_eq!(code, Some(0));
    let p = plans(&v)
        .iter()
        .find(|p| p["train"]["step"]["bottleneck"] == "host-cpu")
        .expect("some plan is bound by its host CPUs");
    let id = p["instance"]["id"].as_str().unwrap();
    let nodes = p["nodes"].as_u64().unwrap().to_string();
    let mb = p["train"]["setup"]["micro_batch"]
        .as_u64()
        .unwrap()
        .to_string();
    let o = run(&[
        "estimate",
        "--format",
        "json",
        "-m",
        "ResNet-50",
        "--task",
        "pretrain",
        "--instance",
        id,
        "--nodes",
        &nodes,
        "--micro-batch",
        &mb,
    ]);
    assert_eq!(
        o.status.code(),
        Some(0),
        "{}",
        String::from_utf8_lossy(&o.stderr)
    );
    let e: Value = serde_json::from_slice(&o.stdout).unwrap();
    let want = p["train"]["step"]["tokens_per_second"].as_f64().unwrap();
    let got = e["estimate"]["step"]["tokens_per_second"].as_f64().unwrap();
    assert!(
        (got - want).abs() < 1e-6 * want,
        "{id}: estimate {got}, plan {want}"
    );
    assert_eq!(e["estimate"]["step"]["bottleneck"], "host-cpu");
    let vcpu = p["instance"]["vcpu"].as_u64().unwrap();
    assert_eq!(e["hardware"]["host_vcpus"].as_u64(), Some(vcpu));
}

/// Issue 10: the planner's host ceiling is compared in samples/s. A ViT counts 197 tokens per
/// 224² image; comparing the ceiling (images/s) with tokens/s, as before, capped every ViT plan
/// at 1/197 of its rate (MFU ~0.3%). A plan the host binds runs at vCPUs × nodes × 150 images/s.
#[test]
fn vit_plans_take_the_host_ceiling_in_images() {
    let dir = common::scratch().join(format!("gpuplan-vit-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let cfg = dir.join("config.json");
    std::fs::write(
        &cfg,
        r#"{"model_type": "vit", "hidden_size": 768, "num_hidden_layers": 12,
            "num_attention_heads": 12, "intermediate_size": 3072, "image_size": 224,
            "patch_size": 16, "num_labels": 1000}"#,
    )
    .unwrap();
    let (code, v) = plan_json(&[
        "--model-config",
        cfg.to_str().unwrap(),
        "--task",
        "pretrain",
        "--samples",
        "1.28e6",
        "--epochs",
        "10",
        "--provider",
        "alibaba",
        "--top",
        "100",
    ]);
    std::fs::remove_dir_all(&dir).ok();
    assert_eq!(code, Some(0), "{v}");
    for p in plans(&v) {
        let st = &p["train"]["step"];
        assert!(
            st["mfu"].as_f64().unwrap() > 0.05,
            "{}: {st}",
            p["instance"]["id"]
        );
        if st["bottleneck"] == "host-cpu" {
            let images = st["tokens_per_second"].as_f64().unwrap() / 197.0;
            let cap =
                p["instance"]["vcpu"].as_f64().unwrap() * p["nodes"].as_f64().unwrap() * 150.0;
            assert!(
                (images / cap - 1.0).abs() < 1e-6,
                "{images} images/s vs {cap}"
            );
        }
    }
}

/// A serving plan keeps its latency promise under the load it was sized for: at the most
/// requests per second per replica it claims, the TPOT a user sees while the replica also
/// prefills other prompts (D / (1 − r·P), re-derived here from the plan's unloaded figures) is
/// within `--tpot`, the loaded TTFT it reports at its peak rate is within `--ttft`, so is the
/// TTFT re-derived at the most it claims (with the wait for a free batch slot), and the
/// replicas carry the peak below capacity. Before the loaded model the plans were sized at
/// D ≤ target and a rate at full capacity, where the loaded TPOT is D + b·P/O, over the target
/// whenever D was near it: the first assertion failed. Before the slot wait the TTFT at a rate
/// near capacity left out the wait for one of the b slots, unbounded there.
#[test]
fn serving_plans_meet_their_targets_under_load() {
    for engine in ["vllm", "sglang", "trtllm"] {
        for (rate, ttft, tpot) in [(5.0, 1.0, 0.05), (20.0, 0.5, 0.03)] {
            let (r, f, t) = (rate.to_string(), ttft.to_string(), tpot.to_string());
            let (_, v) = plan_json(&[
                "-m",
                "Qwen2.5-7B",
                "--task",
                "inference",
                "--engine",
                engine,
                "--rate",
                &r,
                "--ttft",
                &f,
                "--tpot",
                &t,
                "--top",
                "50",
            ]);
            let ps = plans(&v);
            assert!(!ps.is_empty(), "{engine} {rate}: no plan");
            for s in ps.iter().map(|p| &p["serve"]) {
                let rps = s["requests_per_second_per_replica"].as_f64().unwrap();
                let (p, d) = (
                    s["latency"]["ttft"].as_f64().unwrap(),
                    s["latency"]["time_per_token"].as_f64().unwrap(),
                );
                assert!(d / (1.0 - rps * p) <= tpot * (1.0 + 1e-9), "{engine}: {s}");
                let load = &s["load"];
                assert!(
                    load["time_per_token"].as_f64().unwrap() <= tpot * (1.0 + 1e-9),
                    "{s}"
                );
                assert!(load["ttft"].as_f64().unwrap() <= ttft * (1.0 + 1e-9), "{s}");
                assert!(load["time_per_token"].as_f64().unwrap() >= d, "{s}");
                let replicas = s["replicas"].as_f64().unwrap();
                assert!(replicas * rps >= rate * 1.25 * (1.0 - 1e-9), "{s}");
                assert!(load["utilisation"].as_f64().unwrap() < 1.0, "{s}");
                // At the most it claims per replica, the TTFT (slot wait included) re-derived
                // from the plan's own unloaded figures is within `--ttft` too.
                let r = replica_of(&v, s);
                let at_max = r.at(rps).expect("the claimed rate is below capacity");
                assert!(at_max.ttft.0 <= ttft * (1.0 + 1e-9), "{engine}: {at_max:?}");
            }
        }
    }
}

/// The replica a serving plan's JSON describes (unloaded prefill and decode step, batch, prompt
/// and output lengths, prefill placement), to re-derive its loaded figures.
fn replica_of(v: &Value, s: &Value) -> gpuplan_core::plan::load::Replica {
    use gpuplan_core::plan::load::{PrefillMixing, Replica};
    let job = &v["request"]["job"];
    let mix = &s["load"]["mixing"];
    let mixing = match mix["kind"].as_str().unwrap() {
        "chunked" => PrefillMixing::Chunked {
            budget: mix["budget"].as_u64().unwrap(),
        },
        "whole" => PrefillMixing::Whole,
        _ => PrefillMixing::Paused,
    };
    Replica {
        prefill: s["latency"]["ttft"].as_f64().unwrap(),
        step: s["latency"]["time_per_token"].as_f64().unwrap(),
        input: job["input_tokens"].as_u64().unwrap(),
        output: job["output_tokens"].as_u64().unwrap(),
        batch: s["batch_per_replica"].as_u64().unwrap(),
        mixing,
    }
}

/// Every loaded figure a serving plan reports is a finite number (the JSON has no null where a
/// queue's mean would be infinite), the TTFT is its three terms, and the replica is never run at
/// its capacity, where the wait for a free batch slot is unbounded: with no `--ttft` the rate is
/// the one where that wait is `SLOT_WAIT_SHARE` of the first-token service (at the peak, at most
/// that). Before the slot wait, a plan with no target ran its replicas at 100% of capacity at the
/// peak and reported a finite TTFT there.
#[test]
fn serving_plans_stay_below_capacity_without_a_ttft_target() {
    use gpuplan_core::plan::load::SLOT_WAIT_SHARE;
    for (model, rate) in [("Qwen2.5-7B", "20"), ("Llama-3.1-8B", "5")] {
        let (_, v) = plan_json(&[
            "-m",
            model,
            "--task",
            "inference",
            "--rate",
            rate,
            "--top",
            "20",
        ]);
        let ps = plans(&v);
        assert!(!ps.is_empty(), "{model}: no plan");
        for s in ps.iter().map(|p| &p["serve"]) {
            let load = &s["load"];
            for key in [
                "rate_rps",
                "capacity_rps",
                "utilisation",
                "prefill_share",
                "time_per_token",
                "ttft",
                "ttft_queue",
                "ttft_slot_wait",
            ] {
                assert!(load[key].as_f64().is_some_and(f64::is_finite), "{key}: {s}");
            }
            let f = |k: &str| load[k].as_f64().unwrap();
            assert!(f("utilisation") < 1.0, "{s}");
            let r = replica_of(&v, s);
            let max = r.at(s["requests_per_second_per_replica"].as_f64().unwrap());
            let max = max.expect("the claimed rate is below capacity");
            let service = max.ttft.0 - max.ttft_slot_wait.0 - max.ttft_queue.0;
            let slot = r.unloaded_slot_time();
            let share = max.ttft_slot_wait.0 / slot;
            assert!((share - SLOT_WAIT_SHARE).abs() < 1e-6, "{share}: {s}");
            assert!(
                f("ttft_slot_wait") <= SLOT_WAIT_SHARE * slot * (1.0 + 1e-9),
                "{s}"
            );
            let terms = f("ttft_slot_wait") + f("ttft_queue") + service;
            assert!((f("ttft") - terms).abs() <= 1e-9 * terms, "{s}");
        }
    }
}

/// A 2,048-GPU pretraining plan pays for its interruptions (`failure_rate_per_gpu_hour`, Llama 3's
/// 419 in 54 days on 16,384 GPUs): λ = GPUs × rate, every mode's hours × (1 + overhead), and the
/// same plan with the rate at 0 has no failures and the hours before them.
#[test]
fn large_pretraining_pays_for_interruptions_in_hours_and_cost() {
    let args = [
        "-m",
        "Llama-3.1-70B",
        "--task",
        "pretrain",
        "--tokens",
        "2e12",
        "--max-nodes",
        "256",
        "--deadline",
        "80d",
        "--profile",
        "megatron",
        "--top",
        "1",
        // Plan audit r22: without a stated interval the plan checkpoints at Daly's optimum, which
        // the failure rate itself moves (λ = 0: once, at the end), so the two runs would pay
        // different stalls; stated, both pay the same hourly ones and differ by the overhead.
        "--set",
        "checkpoint_interval_hours=1",
    ];
    let (code, with) = plan_json(&args);
    let (code0, without) =
        plan_json(&[&args[..], &["--set", "failure_rate_per_gpu_hour=0"]].concat());
    assert_eq!((code, code0), (Some(0), Some(0)));
    let (p, p0) = (&plans(&with)[0], &plans(&without)[0]);
    assert_eq!(
        (&p["instance"]["id"], &p["nodes"]),
        (&p0["instance"]["id"], &p0["nodes"])
    );
    assert!(p0["train"].get("failures").is_none());
    let f = &p["train"]["failures"];
    let gpus = p["total_gpus"].as_f64().unwrap();
    assert!(gpus >= 1024.0, "{gpus}");
    let per_day = f["per_day"].as_f64().unwrap();
    assert!((per_day - gpus * 419.0 / (54.0 * 16384.0)).abs() < 1e-9 * per_day);
    let ovh = f["overhead_fraction"].as_f64().unwrap();
    assert!(ovh > 0.01 && ovh < 0.1, "{ovh}");
    let od = |v: &Value| -> f64 {
        let c = v["costs"].as_array().unwrap();
        let od = c.iter().find(|c| c["billing"] == "on_demand").unwrap();
        od["hours"].as_f64().unwrap()
    };
    let ratio = od(p) / od(p0);
    assert!((ratio - (1.0 + ovh)).abs() < 1e-9, "{ratio} vs 1 + {ovh}");
    assert!(p["hours"].as_f64().unwrap() > p0["hours"].as_f64().unwrap());
    // 256 nodes × 0.02 preemptions per node-hour: since the storage is chosen for its checkpoint
    // writes (audit r7 #4, ~49 s a write), Daly's exact overhead is large but finite (> 100%), so
    // spot keeps a row, priced at its expected hours.
    let costs = p["costs"].as_array().unwrap();
    let spot = costs.iter().find(|c| c["billing"] == "spot").unwrap();
    let s_ovh = p["train"]["spot"]["overhead_fraction"].as_f64().unwrap();
    assert!(s_ovh > 1.0 && s_ovh < 10.0, "{s_ovh}");
    let s_hours = spot["hours"].as_f64().unwrap();
    assert!((s_hours / p["train"]["spot"]["expected_hours"].as_f64().unwrap() - 1.0).abs() < 1e-9);
    // At 0.05 preemptions per node-hour (12.8 an hour on 256 nodes) it runs away: no spot row,
    // and a caveat says why.
    let (code, fast) = plan_json(&[&args[..], &["--preemption-rate", "0.05"]].concat());
    assert_eq!(code, Some(0));
    let p = &plans(&fast)[0];
    let costs = p["costs"].as_array().unwrap();
    assert!(costs.iter().all(|c| c["billing"] != "spot") && p["train"]["spot"].is_null());
    let cav = p["caveats"].to_string();
    assert!(
        cav.contains("spot left out: 12.800 preemptions an hour (256 nodes"),
        "{cav}"
    );
}

/// no plan, and the refusal names the failure rate (never a price built on a runaway figure).
#[test]
fn a_runaway_failure_rate_is_refused_by_name() {
    let (code, v) = plan_json(&[
        "-m",
        "Llama-3.1-70B",
        "--task",
        "pretrain",
        "--tokens",
        "2e12",
        "--max-nodes",
        "256",
        "--deadline",
        "80d",
        "--profile",
        "megatron",
        "--set",
        "failure_rate_per_gpu_hour=0.01",
    ]);
    assert_eq!(code, Some(4));
    assert!(plans(&v).is_empty());
    let rejected = v["outcome"]["rejected"].as_array().unwrap();
    let why = rejected
        .iter()
        .find(|r| r["constraint"] == "interruptions")
        .expect("the interruptions are named");
    let en = why["message_en"].as_str().unwrap();
    assert!(en.contains("failures a day") && en.contains("too many GPUs for the failure rate"));
    assert!(why["message_zh"].as_str().unwrap().contains("故障"));
}
