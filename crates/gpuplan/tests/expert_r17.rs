//! Review r17 ("would an expert sign the top plan?"): stop 35's leftovers and what an ordinary
//! user types, read the way they mean it. notes: /work/notes/expert-r17.md.

mod common;
use common::run;
use serde_json::Value;

const TAG: &str = "expert-r17";

/// The parallel layout of a plan's training setup.
fn parallel(p: &Value) -> &Value {
    &p["train"]["setup"]["parallel"]
}

/// #1 (closing35, Megatron profile): `--profile megatron` listed TP × ZeRO-2/3 layouts at PP 1,
/// whose export runs Megatron-LM's distributed optimizer (ZeRO-1) and says "memory is higher than
/// planned". The profile now searches ZeRO ≤ 1 only (Megatron-FSDP, `--use-megatron-fsdp`, is
/// not what it models: train.rs `profile_refuses_zero`). Qwen2.5-7B listed TP 1 ZeRO-2 and
/// ZeRO-3 plans among its first 50 at stop 35.
#[test]
fn the_megatron_profile_lists_no_zero_2_or_3_layout() {
    let v = common::plan_json(
        TAG,
        &[
            "-m",
            "Qwen2.5-7B",
            "--task",
            "full",
            "--tokens",
            "1e9",
            "--seq-len",
            "4096",
            "--profile",
            "megatron",
        ],
    );
    let ps = common::plans(&v);
    assert!(ps.len() > 10, "{v}");
    for p in ps {
        assert!(parallel(p)["zero"].as_u64() <= Some(1), "{}", parallel(p));
    }
    // A stated ZeRO stage is the user's: it is kept (estimate's note says Megatron-LM runs
    // ZeRO-1), not refused.
    let toml = "model = \"Qwen2.5-7B\"\n[training]\ntask = \"full_finetune\"\ntokens = 1e9\n\
                seq_len = 4096\nframework = \"megatron\"\n[training.parallel]\nzero = 3\n";
    let w = common::write_temp(TAG, "megatron-zero3.toml", toml);
    let pinned = common::plan_json(TAG, &["-w", w.to_str().expect("path")]);
    for p in common::plans(&pinned) {
        assert_eq!(parallel(p)["zero"], 3, "{}", parallel(p));
    }
}

const L20_14B: [&str; 10] = [
    "-m",
    "Qwen2.5-14B",
    "--task",
    "full",
    "--tokens",
    "5e8",
    "--gpu",
    "l20",
    "--max-nodes",
    "1",
];

/// #2 (closing35, CP search): a Qwen2.5-14B full fine-tune on one node of L20s found no plan at
/// 8k tokens and a CP 2 one at 16k, since CP was searched from 16k only. An instance type on
/// which nothing fits without CP is now searched again with CP: at 8k the node runs CP 2.
#[test]
fn a_job_that_fits_nowhere_without_cp_is_offered_cp_below_16k() {
    let v = common::plan_json(TAG, &[&L20_14B[..], &["--seq-len", "8192"]].concat());
    let ps = common::plans(&v);
    assert!(!ps.is_empty(), "{v}");
    for p in ps {
        assert!(parallel(p)["cp"].as_u64() >= Some(2), "{}", parallel(p));
    }
    // Where a layout fits without CP, the type keeps it: a node of eight 80 GB A100s holds the
    // 8k job with ZeRO-3 (types of one or two of them fit nowhere without CP and are retried).
    let big = common::plan_json(
        TAG,
        &[
            &L20_14B[..7],
            &["a100-80g", "--max-nodes", "1", "--seq-len", "8192"],
        ]
        .concat(),
    );
    let eight: Vec<&Value> = common::plans(&big)
        .iter()
        .filter(|p| p["cluster"]["gpus_per_node"] == 8)
        .collect();
    assert!(!eight.is_empty(), "{big}");
    for p in eight {
        assert_eq!(parallel(p)["cp"], 1, "{}", parallel(p));
    }
}

/// Two types of one family with eight H100s: one at Alibaba priced monthly and (dearly) on
/// demand, one at Huawei priced on demand only, ten times cheaper (another provider, so that no
/// monthly price is estimated for it from a same-chip type: `Catalog::estimate_price`).
fn two_priced_types() -> String {
    let inst = |id: &str, provider: &str| {
        format!(
            "[[instance]]\nid = \"{id}\"\nprovider = \"{provider}\"\nfamily = \"xr17\"\n\
             gpu = \"h100-sxm\"\ngpu_count = 8\ngpu_memory_gib = 80\nrdma = \"none\"\n\
             intra_link = \"nvswitch\"\nsource = \"test\"\nas_of = \"2026-11\"\n\
             confidence = \"likely\"\n\n"
        )
    };
    let price = |id: &str, (provider, region): (&str, &str), billing: &str, cny: f64| {
        format!(
            "[[price]]\ninstance = \"{id}\"\nprovider = \"{provider}\"\nregion = \"{region}\"\n\
             billing = \"{billing}\"\ncny = {cny}\nkind = \"user\"\nas_of = \"2026-11-01\"\n\
             source = \"test\"\n\n"
        )
    };
    let ali = ("alibaba", "cn-shanghai");
    [
        inst("x.r17.monthly", "alibaba"),
        inst("x.r17.hourly", "huawei"),
        price("x.r17.monthly", ali, "on_demand", 400.0),
        price("x.r17.monthly", ali, "monthly", 200000.0),
        price("x.r17.hourly", ("huawei", "cn-north-4"), "on_demand", 40.0),
    ]
    .concat()
}

/// #3 (review r16 #7): under `--billing monthly` a budget refusal names what the job costs on
/// demand. Types with no monthly price were left out of that line, so it named the dearer type
/// that had one (¥400/h: "1 × x.r17.monthly costs ¥113") and not the cheapest on-demand plan
/// (¥40/h, no monthly price: ¥11).
#[test]
fn the_on_demand_line_names_the_cheapest_priced_on_demand_plan() {
    let cat = common::write_temp(TAG, "two-types.toml", &two_priced_types());
    let o = run(
        TAG,
        &[
            "plan",
            "--format",
            "json",
            "--catalog",
            cat.to_str().expect("path"),
            "--family",
            "xr17",
            "-m",
            "Qwen2.5-7B",
            "--task",
            "lora",
            "--tokens",
            "1e7",
            "--billing",
            "monthly",
            "--budget",
            "5000",
        ],
    );
    assert_eq!(o.status.code(), Some(4), "{}", common::stderr(&o));
    let v: Value = serde_json::from_slice(&o.stdout).expect("json");
    let lines: Vec<&str> = v["outcome"]["rejected"]
        .as_array()
        .expect("rejected")
        .iter()
        .filter(|b| b["constraint"] == "billing")
        .filter_map(|b| b["message_en"].as_str())
        .collect();
    assert_eq!(lines.len(), 1, "{v}");
    assert!(lines[0].contains("x.r17.hourly"), "{}", lines[0]);
    assert!(lines[0].ends_with("within the budget"), "{}", lines[0]);
}

/// #4 (closing35, 910B4): the catalog had HCCS at 56 GB/s for the 32 GB 910B, which Huawei's
/// msmodeling profiles only as a PCIe part (ATLAS_800_A2_280T_32G_PCIE: one PCIe tier of 8
/// devices, 64 GB/s a direction). The ModelArts Snt9B nodes now link their NPUs over PCIe Gen5,
/// so a training plan there runs no TP and its data-parallel traffic moves at PCIe's rate.
#[test]
fn the_910b4_nodes_link_over_pcie() {
    let v = common::plan_json(
        TAG,
        &[
            "-m",
            "Qwen2.5-14B",
            "--task",
            "full",
            "--tokens",
            "1e8",
            "--gpu",
            "910b4",
            "--chips",
            "ascend",
        ],
    );
    let ps = common::plans(&v);
    assert!(!ps.is_empty(), "{v}");
    for p in ps {
        assert_eq!(
            p["cluster"]["gpu"]["intra_link"], "pcie5",
            "{}",
            p["cluster"]
        );
        assert_eq!(parallel(p)["tp"], 1, "{}", parallel(p));
        if p["cluster"]["gpus_per_node"].as_u64() > Some(1) {
            assert_eq!(p["cluster"]["intra_bandwidth"], 64e9, "{}", p["cluster"]);
        }
    }
}

/// #5 (q22): a serving fleet of one-NPU nodes (2 × modelarts.snt9b.1, a TP 1 replica on each)
/// said that RoCE between the nodes is not documented and HCCL was assumed over TCP, of a
/// network no replica crosses (a replica never spans nodes). Only what one node assumes is said.
#[test]
fn a_serving_fleet_says_nothing_of_a_network_its_replicas_do_not_cross() {
    let v = common::plan_json(
        TAG,
        &[
            "-m",
            "Qwen2.5-14B",
            "--task",
            "inference",
            "--rate",
            "2",
            "--input-tokens",
            "1000",
            "--output-tokens",
            "300",
            "--gpu",
            "910b4",
            "--chips",
            "ascend",
        ],
    );
    let ps = common::plans(&v);
    assert!(ps.iter().any(|p| p["nodes"].as_u64() > Some(1)), "{v}");
    for p in ps {
        let said = p["network_assumed"].as_str().unwrap_or_default();
        assert!(!said.contains("TCP"), "{}: {said}", p["instance"]["id"]);
    }
}

/// #6 (q07): Llama-3.1-8B full fine-tuning at 32k tokens held 47.0 of 73.4 GiB per GPU in the
/// logits and loss (HF Transformers' full-vocabulary fp32 logits) and no advice said how HF stacks
/// avoid it. `loss-memory` names Liger's fused linear cross-entropy and `--chunked-loss`; a plan
/// with the chunked loss stated gets no such line.
#[test]
fn a_plan_whose_logits_dominate_memory_names_the_fused_loss() {
    let q07 = [
        "-m",
        "Llama-3.1-8B",
        "--task",
        "full",
        "--seq-len",
        "32768",
        "--tokens",
        "1e9",
        "--deadline",
        "5d",
    ];
    let v = common::plan_json(TAG, &q07);
    let top = &common::plans(&v)[0];
    let a = common::advice(top, "loss-memory").unwrap_or_else(|| panic!("{top}"));
    let (en, zh) = (a["en"].as_str().unwrap(), a["zh"].as_str().unwrap());
    assert!(
        en.contains("enable_liger_kernel") && en.contains("--chunked-loss"),
        "{en}"
    );
    assert!(
        zh.contains("enable_liger_kernel") && zh.contains("分块"),
        "{zh}"
    );
    let chunked = common::plan_json(TAG, &[&q07[..], &["--chunked-loss"]].concat());
    for p in common::plans(&chunked) {
        assert!(common::advice(p, "loss-memory").is_none(), "{p}");
    }
}
