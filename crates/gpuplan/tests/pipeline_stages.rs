//! Issue 10 item 5 (stop 34): uneven pipeline stages. A stated first stage (Megatron-Core
//! `--decoder-first-pipeline-num-layers`) and Megatron-Core's embedding/loss accounting
//! (`--account-for-embedding-in-pipeline-split`, `--account-for-loss-in-pipeline-split`) in
//! estimate, plan and the export, refused where Megatron-Core refuses them.

mod common;
use common::{assert_refused, plan_json, plans, run, write_temp};
use serde_json::Value;

const TAG: &str = "pipeline-stages";

/// `estimate -m Llama-3.1-8B --profile megatron` (32 layers, ZeRO-1, 4096 tokens) on 8 H100s with
/// `extra`, as JSON; it must fit (exit 0).
fn estimate(extra: &[&str]) -> Value {
    let mut args = vec![
        "estimate",
        "-m",
        "Llama-3.1-8B",
        "--task",
        "pretrain",
        "--profile",
        "megatron",
        "--gpu",
        "h100-sxm",
        "--gpus-per-node",
        "8",
        "--micro-batch",
        "1",
        "--grad-accum",
        "16",
        "--zero",
        "1",
        "--seq-len",
        "4096",
        "--format",
        "json",
    ];
    args.extend_from_slice(extra);
    let o = run(TAG, &args);
    assert!(
        o.status.success(),
        "{:?}: {}{}",
        o.status,
        String::from_utf8_lossy(&o.stderr),
        String::from_utf8_lossy(&o.stdout)
    );
    serde_json::from_slice(&o.stdout).unwrap()
}

/// A first stage of 5 leaves 27 layers, 9 on each of the other three stages: the estimate reports
/// the split, the second stage (9 layers × 3 micro-batches in flight against 5 × 4) holds the
/// most saved activations and the last (9 layers + LM head) is the slowest and heaviest.
#[test]
fn estimate_reports_the_stated_first_stage() {
    let v = estimate(&["--pp", "4", "--first-stage-layers", "5"]);
    let e = &v["estimate"];
    let pipe = &e["memory"]["pipeline"];
    assert_eq!(pipe["layers"]["first"], 5, "{pipe}");
    assert_eq!(pipe["layers"]["middle"], 9, "{pipe}");
    assert_eq!(pipe["layers"]["last"], 9, "{pipe}");
    assert_eq!(pipe["heaviest_activations"], "middle", "{pipe}");
    assert_eq!(pipe["heaviest_weights"], "last", "{pipe}");
    assert_eq!(e["step"]["compute_parts"]["slowest_stage"], "last");
    assert_eq!(v["setup"]["parallel"]["first_stage_layers"], 5);
    // The even split: 8 layers everywhere, stage 0 holds the activation peak.
    let even = estimate(&["--pp", "4"]);
    let pipe = &even["estimate"]["memory"]["pipeline"];
    assert_eq!(pipe["layers"]["first"], 8, "{pipe}");
    assert_eq!(pipe["heaviest_activations"], "first", "{pipe}");
    // The lighter first stage lowers the saved activations (9 × 3 < 8 × 4 layer-micro-batches).
    let acts = |v: &Value| {
        v["estimate"]["memory"]["items"]
            .as_array()
            .unwrap()
            .iter()
            .filter(|i| i["name"].as_str().unwrap().contains("activations"))
            .map(|i| i["bytes"].as_f64().unwrap())
            .sum::<f64>()
    };
    assert!(acts(&v) < acts(&even), "{} vs {}", acts(&v), acts(&even));
    // No pipeline, no report.
    let flat = estimate(&["--pp", "1", "--tp", "4"]);
    assert!(flat["estimate"]["memory"].get("pipeline").is_none());
}

/// Both switches at PP 2: (32 + 2) / 2 = 17 a stage, 16 transformer layers on each.
#[test]
fn estimate_counts_the_embedding_and_loss_as_layers() {
    let v = estimate(&[
        "--pp",
        "2",
        "--account-for-embedding-in-pipeline-split",
        "--account-for-loss-in-pipeline-split",
    ]);
    let pipe = &v["estimate"]["memory"]["pipeline"];
    assert_eq!(pipe["layers"]["first"], 16, "{pipe}");
    assert_eq!(pipe["layers"]["last"], 16, "{pipe}");
    assert!(pipe["layers"].get("middle").is_none(), "{pipe}");
    assert_eq!(
        v["setup"]["parallel"]["account_for_loss_in_pipeline_split"],
        true
    );
}

/// What Megatron-Core refuses exits 2 naming the key and the fix (checked again in Chinese).
#[test]
fn splits_megatron_cannot_build_are_refused() {
    let base = [
        "estimate",
        "-m",
        "Llama-3.1-8B",
        "--task",
        "pretrain",
        "--profile",
        "megatron",
        "--gpu",
        "h100-sxm",
        "--gpus-per-node",
        "8",
    ];
    let with = |extra: &[&'static str]| -> Vec<&'static str> { [&base[..], extra].concat() };
    // 32 − 6 = 26 layers do not split over 3 stages; 5 (27 = 3 × 9) is the nearest that does.
    assert_refused(
        TAG,
        &with(&["--pp", "4", "--first-stage-layers", "6"]),
        2,
        &[
            "parallel.first_stage_layers",
            "26",
            "nearest size that does is 5",
        ],
    );
    // 32 + 1 does not divide over PP 4.
    assert_refused(
        TAG,
        &with(&["--pp", "4", "--account-for-loss-in-pipeline-split"]),
        2,
        &["parallel.account_for_loss_in_pipeline_split", "33"],
    );
    // Never beside a stated stage.
    assert_refused(
        TAG,
        &with(&[
            "--pp",
            "2",
            "--first-stage-layers",
            "16",
            "--account-for-embedding-in-pipeline-split",
        ]),
        2,
        &[
            "parallel.account_for_embedding_in_pipeline_split",
            "Megatron-Core refuses",
        ],
    );
    // Interleaved: a stated stage must hold a multiple of the virtual stages.
    assert_refused(
        TAG,
        &with(&[
            "--pp",
            "4",
            "--virtual-stages",
            "2",
            "--first-stage-layers",
            "5",
        ]),
        2,
        &["parallel.first_stage_layers", "multiple of 2"],
    );
    // The switches are Megatron-Core's.
    let mut hf = with(&["--pp", "2", "--account-for-loss-in-pipeline-split"]);
    hf[6] = "hugging_face";
    assert_refused(
        TAG,
        &hf,
        2,
        &["parallel.account_for_loss_in_pipeline_split", "framework"],
    );
    // A first stage must leave a layer to every other stage, on any stack.
    assert_refused(
        TAG,
        &with(&["--pp", "4", "--first-stage-layers", "30"]),
        2,
        &["parallel.first_stage_layers"],
    );
}

/// Llama 3.1 405B (126 layers) under Megatron-Core at PP 16: the plan reports its stages, every
/// listed split is one Megatron-Core builds (the uneven last stage 15 × 8 + 6, or the recipe's
/// accounting 7 | 8 × 14 | 7), and the export carries the flags of a stated accounting split.
#[test]
fn plan_reports_and_exports_uneven_stages() {
    let v = plan_json(
        TAG,
        &[
            "-m",
            "Llama-3.1-405B",
            "--profile",
            "megatron",
            "--task",
            "pretrain",
            "--tokens",
            "1e11",
        ],
    );
    let listed = plans(&v);
    assert!(!listed.is_empty());
    for p in listed {
        let par = &p["train"]["setup"]["parallel"];
        let Some(pipe) = p["train"]["memory"].get("pipeline") else {
            continue;
        };
        let l = &pipe["layers"];
        let n = |k: &str| l[k].as_u64().unwrap_or(0);
        let pp = par["pp"].as_u64().unwrap();
        let middle = if pp > 2 { n("middle") * (pp - 2) } else { 0 };
        assert_eq!(n("first") + middle + n("last"), 126, "{par} {pipe}");
    }
    let w = write_temp(
        TAG,
        "accounted.toml",
        "model = \"Llama-3.1-405B\"\n[training]\ntask = \"pretrain\"\nframework = \"megatron\"\n\
         tokens = 1e11\n[training.parallel]\ntp = 8\npp = 16\n\
         account_for_embedding_in_pipeline_split = true\naccount_for_loss_in_pipeline_split = true\n",
    );
    let w = w.to_str().unwrap();
    let v = plan_json(TAG, &["-w", w]);
    let top = &plans(&v)[0];
    let pipe = &top["train"]["memory"]["pipeline"]["layers"];
    assert_eq!(
        (
            pipe["first"].as_u64(),
            pipe["middle"].as_u64(),
            pipe["last"].as_u64()
        ),
        (Some(7), Some(8), Some(7)),
        "{pipe}"
    );
    let dir = common::scratch().join("accounted-export");
    let d = dir.to_str().unwrap();
    let o = run(TAG, &["plan", "-w", w, "--pick", "1", "--export", d]);
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    let args = std::fs::read_to_string(dir.join("megatron_args.sh")).unwrap_or_default();
    for want in [
        "--account-for-embedding-in-pipeline-split",
        "--account-for-loss-in-pipeline-split",
        "--pipeline-model-parallel-size 16",
    ] {
        assert!(args.contains(want), "{want}: {args}");
    }
    assert!(
        !args.contains("--decoder-last-pipeline-num-layers"),
        "{args}"
    );
}
