//! Review r14 #1: training TP was checked against the query heads only. Megatron-Core splits the
//! KV groups with `divide(num_query_groups, tp)` and torchtitan views whole KV heads per rank, so
//! a TP that does not divide the KV heads fails at start-up; BigCode's Megatron fork, which copies
//! its one multi-query KV head to every rank, states it with `parallel.kv_heads_replicated`.

mod common;
use common::{stderr, write_temp};

const TAG: &str = "review-r14-train-tp";

/// Every plan's training TP for `args` (`plan --format json --top 100`).
fn planned_tps(args: &[&str]) -> Vec<u64> {
    let v = common::plan_json(TAG, args);
    let plans = common::plans(&v);
    assert!(!plans.is_empty(), "no plan for {args:?}");
    plans
        .iter()
        .map(|p| p["train"]["setup"]["parallel"]["tp"].as_u64().unwrap())
        .collect()
}

/// The plans the review listed put TP 4 on GLM-4-9B's 2 KV groups and TP 8 on the Qwen3 MoE
/// models' 4 KV heads: no listed plan may split a KV head.
#[test]
fn plans_never_split_a_kv_head() {
    let cases: [(&[&str], u64); 3] = [
        (
            &[
                "-m",
                "GLM-4-9B",
                "--task",
                "full",
                "--tokens",
                "1e9",
                "--seq-len",
                "4096",
                "--profile",
                "megatron",
            ],
            2,
        ),
        (
            &[
                "-m",
                "Qwen3-30B-A3B",
                "--task",
                "pretrain",
                "--tokens",
                "1e10",
                "--seq-len",
                "4096",
            ],
            4,
        ),
        (
            &[
                "-m",
                "Qwen3-235B-A22B",
                "--task",
                "pretrain",
                "--tokens",
                "1e10",
                "--seq-len",
                "4096",
                "--profile",
                "megatron",
            ],
            4,
        ),
    ];
    for (args, kv) in cases {
        let tps = planned_tps(args);
        for tp in &tps {
            assert!(
                kv.is_multiple_of(*tp),
                "TP {tp} planned on {kv} KV heads: {args:?}"
            );
        }
        // TP is still searched where the KV heads allow it.
        assert!(tps.iter().any(|tp| *tp > 1), "{args:?}: {tps:?}");
    }
}

/// `estimate` and a pinned `plan` degree refuse the split and list the sizes that work.
#[test]
fn a_stated_tp_that_splits_a_kv_head_is_refused() {
    common::assert_refused(
        TAG,
        &[
            "estimate",
            "-m",
            "Qwen2.5-3B",
            "--profile",
            "megatron",
            "--gpu",
            "H100",
            "--gpus-per-node",
            "8",
            "--tp",
            "8",
        ],
        2,
        &["`parallel.tp`", "KV heads (2)", "try 1, 2"],
    );
    let w = write_temp(
        TAG,
        "pinned-tp.toml",
        "model = \"Qwen2.5-3B\"\nkind = \"training\"\n[training]\ntask = \"pretrain\"\n\
         framework = \"megatron\"\ntokens = 1e9\n[training.parallel]\ntp = 8\n",
    );
    common::assert_refused(
        TAG,
        &["plan", "-w", w.to_str().unwrap()],
        2,
        &["`training.parallel.tp`", "KV heads (2)", "try 1, 2"],
    );
    let _ = std::fs::remove_file(w);
}

/// StarCoderBase's layout (one multi-query KV head, TP 4 in BigCode's Megatron fork): refused
/// under Megatron-Core's rule, sized when the workload states the fork's replication.
#[test]
fn a_replicated_kv_head_runs_at_any_tp() {
    let workload = |replicated: bool| {
        format!(
            "kind = \"training\"\n[config]\nmodel_type = \"gpt_bigcode\"\nn_embd = 6144\n\
             n_layer = 40\nn_head = 48\nvocab_size = 49152\nn_positions = 8192\n\
             n_inner = 24576\nmulti_query = true\n[training]\ntask = \"pretrain\"\n\
             precision = \"amp_bf16\"\nframework = \"megatron\"\nseq_len = 8192\n\
             tokens = 1e9\n[training.parallel]\ntp = 4\npp = 4\nzero = 1\n\
             kv_heads_replicated = {replicated}\n[hardware]\ngpu = \"a100-80g\"\n\
             gpus_per_node = 8\nnodes = 2\n"
        )
    };
    let split = write_temp(TAG, "starcoder-split.toml", &workload(false));
    common::assert_refused(
        TAG,
        &["estimate", "-w", split.to_str().unwrap()],
        2,
        &[
            "`parallel.tp`",
            "KV heads (1)",
            "kv_heads_replicated",
            "try 1",
        ],
    );
    let copied = write_temp(TAG, "starcoder-copied.toml", &workload(true));
    let o = common::run(TAG, &["estimate", "-w", copied.to_str().unwrap()]);
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    let _ = std::fs::remove_file(split);
    let _ = std::fs::remove_file(copied);
}
