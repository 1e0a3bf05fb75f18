//! Audit r22 (plans an expert would sign, third round): storage classes with a published figure
//! but no formula, the checkpoint interval the hours pay, and QLoRA under expert parallelism.
//! Each test runs `plan` as a user does and asserts the property a top answer broke. The
//! questions and the verdicts: docs/notes/notes-plans22.md.

mod common;

use serde_json::Value;

const TAG: &str = "plan-audit-r22";

/// The listed plans' storage class ids (None where no class was sized).
fn storage_id(p: &Value) -> Option<&str> {
    p["train"]["storage"]["class"]["id"].as_str()
}

/// #1: pretraining on 2 TB of tokenized data on Tencent Cloud needs several nodes, which read
/// and write a shared file system. Every shared Tencent class had only a maximum in the catalog,
/// so none was sized and the plan wrote its checkpoints at an assumed 100 MB/s. Now the plan
/// sizes a CFS class at the figure Tencent recommends, and the checkpoint time follows it.
#[test]
fn multi_node_tencent_plans_size_a_cfs_class() {
    let v = common::plan_json(
        TAG,
        &[
            "-m",
            "Qwen2.5-7B",
            "--task",
            "pretrain",
            "--tokens",
            "300B",
            "--seq-len",
            "4096",
            "--dataset-size",
            "2TB",
            "--provider",
            "tencent",
            "--deadline",
            "30d",
        ],
    );
    let multi: Vec<&Value> = common::plans(&v)
        .iter()
        .filter(|p| p["nodes"].as_u64().unwrap_or(0) > 1)
        .collect();
    assert!(!multi.is_empty(), "no multi-node plan");
    for p in multi {
        let id = storage_id(p).unwrap_or_else(|| panic!("no storage: {}", p["train"]));
        assert!(id.starts_with("tencent-cfs"), "{id}");
        let s = &p["train"]["storage"];
        let tp = s["throughput_mbs"].as_f64().unwrap();
        let max = s["class"]["throughput_max_mbs"].as_f64().unwrap();
        assert!(tp > 100.0 && tp <= max, "{s}");
        // The checkpoint is written at the class's rate (or the NICs'), never the fallback.
        let ckpt = p["train"]["data"]["checkpoint_size"].as_f64().unwrap();
        let write_s = s["checkpoint_write_s"].as_f64().unwrap();
        assert!(write_s <= ckpt / (tp * 1e6) * 1.0001 + 1e-9, "{s}");
        assert!(write_s < ckpt / 100e6, "{s}");
        if let Some(a) = common::advice(p, "checkpoint-stalls") {
            assert!(!a.to_string().contains("assumed"), "{a}");
        }
    }
}

/// #1 on Huawei (SFS Turbo, sized by its per-TiB formula before this stop too) and Alibaba
/// (Extreme NAS now has its capacity tiers): the multi-node plans of a 2 TB pretraining job
/// all size a shared class, never object storage.
#[test]
fn multi_node_plans_size_a_shared_file_system_on_every_provider() {
    for provider in ["huawei", "alibaba"] {
        let v = common::plan_json(
            TAG,
            &[
                "-m",
                "Llama-3.1-8B",
                "--task",
                "pretrain",
                "--tokens",
                "200B",
                "--dataset-size",
                "2TB",
                "--provider",
                provider,
                "--deadline",
                "30d",
            ],
        );
        for p in common::plans(&v) {
            if p["nodes"].as_u64().unwrap_or(0) < 2 {
                continue;
            }
            let s = &p["train"]["storage"];
            assert!(!s.is_null(), "{provider}: {}", p["instance"]["id"]);
            assert_eq!(s["class"]["shared"], true, "{s}");
            assert_ne!(s["class"]["kind"], "object", "{s}");
        }
    }
}

/// #2: the hours pay the checkpoint interval the plan advises. Without a stated interval that
/// is Daly's optimum for the plan's write and failure rate (`train.checkpoints`); with
/// `--set checkpoint_interval_hours=1` it is the hour, and the `checkpoint-interval` advice says
/// what the hour costs against Daly's optimum, in both languages.
#[test]
fn the_hours_pay_the_advised_interval_or_the_users() {
    let args = [
        "-m",
        "Llama-3.1-70B",
        "--task",
        "full",
        "--tokens",
        "300M",
        "--provider",
        "alibaba",
    ];
    let v = common::plan_json(TAG, &args);
    let top = &common::plans(&v)[0];
    let k = &top["train"]["checkpoints"];
    assert_eq!(k["given"], false, "{k}");
    assert_eq!(k["interval_s"], k["daly_s"], "{k}");
    assert!(common::advice(top, "checkpoint-interval").is_none());
    let mut with = args.to_vec();
    with.extend(["--set", "checkpoint_interval_hours=1"]);
    let w = common::plan_json(TAG, &with);
    let same = common::plans(&w)
        .iter()
        .find(|p| p["instance"]["id"] == top["instance"]["id"] && p["nodes"] == top["nodes"])
        .expect("the same site planned with the stated interval");
    let k1 = &same["train"]["checkpoints"];
    assert_eq!(k1["given"], true, "{k1}");
    assert_eq!(k1["interval_s"], 3600.0, "{k1}");
    assert!(k1["cost_h"].as_f64() >= k1["daly_cost_h"].as_f64(), "{k1}");
    // Daly's optimum is longer than the hour here, so the stated hour pays more stalls.
    assert!(k["interval_s"].as_f64().unwrap() > 3600.0, "{k}");
    assert!(
        same["hours"].as_f64().unwrap() > top["hours"].as_f64().unwrap(),
        "{} vs {}",
        same["hours"],
        top["hours"]
    );
    let a = common::advice(same, "checkpoint-interval")
        .expect("the stated interval is costed")
        .to_string();
    assert!(a.contains("Daly's optimum"), "{a}");
    assert!(a.contains("Daly 最优间隔"), "{a}");
}

/// #3 (plan audit r21 q04): QLoRA of an MoE model ranked DeepSpeed-MoE expert parallelism on
/// T4s first. No stack runs bitsandbytes 4-bit experts under EP (DeepSpeed's AutoEP repacks the
/// experts' `.weight.data` into one grouped tensor; Megatron-Core has no QLoRA), so no QLoRA
/// plan has EP > 1, and a T4 plan computes in fp16 (T4 has no bf16).
#[test]
fn qlora_moe_plans_run_no_expert_parallelism() {
    let v = common::plan_json(
        TAG,
        &[
            "-m",
            "Qwen3-30B-A3B",
            "--task",
            "qlora",
            "--tokens",
            "50M",
            "--seq-len",
            "4096",
            "--provider",
            "tencent",
            "--lang",
            "zh",
        ],
    );
    for p in common::plans(&v) {
        let setup = &p["train"]["setup"];
        assert_eq!(setup["parallel"]["ep"], 1, "{}", p["instance"]["id"]);
        if p["gpu"]["id"] == "t4" {
            let prec = setup["precision"].as_str().unwrap_or("");
            assert!(!prec.contains("bf16"), "{prec}");
        }
    }
}

/// #1, its consequence: every Tencent class is unpriced, so the fastest write won, and a one-node
/// LoRA fine-tune (2 GPUs to 4, a few GiB of checkpoints) was given CFS Turbo's smallest
/// purchase, 20 TiB. Unpriced, a class whose smallest purchase exceeds what the job stores now
/// ranks after those sized to the job.
#[test]
fn a_small_tencent_job_is_not_sold_twenty_tebibytes() {
    let v = common::plan_json(
        TAG,
        &[
            "-m",
            "Qwen2.5-7B",
            "--task",
            "lora",
            "--tokens",
            "100M",
            "--provider",
            "tencent",
        ],
    );
    let top = &common::plans(&v)[0];
    assert_eq!(top["nodes"], 1, "{}", top["instance"]["id"]);
    let s = &top["train"]["storage"];
    assert_ne!(storage_id(top), Some("tencent-cfs-turbo"), "{s}");
    assert!(s["capacity_gib"].as_f64().unwrap() < 1000.0, "{s}");
}
