//! The nine planner scenarios of the `gpuplan plan` issue, run as a user runs them (the binary,
//! JSON output), each asserting the named property rather than a frozen number; plus snapshots
//! of the zh and en tables for scenarios 1 and 4.

use serde_json::Value;
use std::process::{Command, Output};

fn run(args: &[&str]) -> Output {
    let cfg = std::env::temp_dir().join(format!("gpuplan-plan-{}", std::process::id()));
    Command::new(env!("CARGO_BIN_EXE_gpuplan"))
        .env("GPUPLAN_CONFIG_DIR", &cfg)
        .env("COLUMNS", "220")
        .args(args)
        .output()
        .unwrap()
}

fn plan_json(args: &[&str]) -> (Option<i32>, Value) {
    let mut a = vec!["plan", "--format", "json"];
    a.extend_from_slice(args);
    let o = run(&a);
    let v: Value = serde_json::from_slice(&o.stdout)
        .unwrap_or_else(|e| panic!("{e}: {}", String::from_utf8_lossy(&o.stderr)));
    (o.status.code(), v)
}

fn plans(v: &Value) -> &Vec<Value> {
    v["outcome"]["plans"].as_array().unwrap()
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

const S1: &[&str] = &[
    "-m",
    "Qwen2.5-7B",
    "--task",
    "lora",
    "--seq-len",
    "2048",
    "--tokens",
    "1e8",
    "--provider",
    "alibaba",
    "--deadline",
    "24h",
];
const S4: &[&str] = &[
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
];

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
    let (code, v) = plan_json(&[
        "-m",
        "Llama-3.1-8B",
        "--task",
        "full",
        "--seq-len",
        "4096",
        "--tokens",
        "1e9",
    ]);
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
    let (code, v) = plan_json(&[
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
        "--chips",
        "nvidia",
        "--top",
        "20",
    ]);
    assert_eq!(code, Some(0));
    let ps = plans(&v);
    let top = &ps[0];
    assert!(top["nodes"].as_u64().unwrap() > 1);
    assert_eq!(gpus_per_node(top), 8);
    assert!(["nvlink", "nvswitch"].contains(&top["instance"]["intra_link"].as_str().unwrap()));
    assert!(
        ["erdma", "roce", "ib"].contains(&top["instance"]["rdma"].as_str().unwrap()),
        "{}",
        top["instance"]["id"]
    );
    let rdma =
        |p: &Value| ["erdma", "roce", "ib"].contains(&p["instance"]["rdma"].as_str().unwrap());
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
    let (code, v) = plan_json(&[
        "-m",
        "ResNet-50",
        "--task",
        "pretrain",
        "--samples",
        "1281167",
        "--epochs",
        "90",
        "--deadline",
        "24h",
        "--top",
        "400",
    ]);
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
    let (code, v) = plan_json(&[
        "-m",
        "BERT-base-uncased",
        "--task",
        "inference",
        "--rate",
        "200",
        "--input-tokens",
        "128",
        "--output-tokens",
        "1",
        "--top",
        "50",
    ]);
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
    let (code, v) = plan_json(&[
        "-m",
        "Llama-2-13B",
        "--task",
        "lora",
        "--tokens",
        "1e8",
        "--chips",
        "ascend",
        "--framework",
        "mindspore",
    ]);
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

const S9: &[&str] = &[
    "-m",
    "Llama-2-13B",
    "--task",
    "pretrain",
    "--tokens",
    "3e11",
    "--seq-len",
    "4096",
    "--budget",
    "1000",
];

#[test]
fn s9_budget_too_small_explains_and_exits_4() {
    let mut a = vec!["plan"];
    a.extend_from_slice(S9);
    let o = run(&a);
    assert_eq!(o.status.code(), Some(4));
    let text = String::from_utf8_lossy(&o.stdout);
    assert!(
        text.contains("over the ¥1000 budget") && text.contains("with spot"),
        "{text}"
    );
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
                for (open, sep) in [("(", " vs "), ("（", "，后者 ")] {
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

/// Issue 8 item 2: without prices, a 128-GPU plan never outranks a 1–2 GPU plan.
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
        assert!(gpus <= 2.0, "{provider}: top plan uses {gpus} GPUs");
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
