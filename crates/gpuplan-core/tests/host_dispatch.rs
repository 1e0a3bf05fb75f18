//! Issue 10: the host's dispatch time of an eager training micro-batch (`train::dispatch`).
//! The op table must be the counts tools/measure_dispatch.py took on CPU
//! (validation/dispatch-measured.json), and the step must take max(GPU, host) per micro-batch
//! only where the loop is a counted one.

use gpuplan_core::constants::Tunables;
use gpuplan_core::model::ModelSpec;
use gpuplan_core::train::dispatch::{
    micro_batch_seconds, ops_per_micro_batch, zero3_hooks, LayerOps, HF_LLAMA, QWEN_V1,
};
use gpuplan_core::train::{training_step, StepTime};
use gpuplan_core::validation::{parse_case, workload_model};
use gpuplan_core::workload::{Framework, Recompute, TrainingSetup};
use serde_json::Value;

fn root() -> &'static str {
    concat!(env!("CARGO_MANIFEST_DIR"), "/../..")
}

fn read(p: &str) -> String {
    std::fs::read_to_string(format!("{}/{p}", root())).unwrap()
}

/// (stack's table, its full all-linear LoRA adapters a layer, the JSON rows' prefix).
const STACKS: [(&gpuplan_core::train::dispatch::StackOps, f64, &str); 2] =
    [(&QWEN_V1, 5.0, "qwen1"), (&HF_LLAMA, 7.0, "llama")];

/// (per layer, fixed) of one count (`top_ops`, `launch_ops`) of a row of dispatch-measured.json.
fn per_layer(data: &Value, row: &str, key: &str) -> (f64, f64) {
    let mb = &data["stacks"][row]["micro_batch"];
    let n = |k: &str| {
        mb[k][key]
            .as_f64()
            .unwrap_or_else(|| panic!("{row}: {k}.{key}"))
    };
    (n("per_layer"), n("fixed"))
}

/// (per layer, fixed) seconds outside the ops of a row of host-costs-measured.json.
fn outside(data: &Value, row: &str) -> (f64, f64) {
    let o = &data["outside"][row];
    let n = |k: &str| o[k].as_f64().unwrap_or_else(|| panic!("{row}: {k}"));
    (n("outside_per_layer_s"), n("outside_fixed_s"))
}

/// One table (ops, launching ops or seconds outside) against its three measured rows (every
/// linear trained, all-linear LoRA, one adapter): the frozen base and per-adapter increment are
/// what the two LoRA rows give (the per-adapter cost is the same for every adapted linear).
fn check_table(t: &LayerOps, adapters: f64, rows: [(f64, f64); 3], tol: f64, what: &str) {
    let close = |a: f64, b: f64| (a - b).abs() <= tol;
    let [full, lora, one] = rows;
    assert!(
        close(t.full, full.0) && close(t.fixed_full, full.1),
        "{what} full: {t:?} {full:?}"
    );
    let lora_t = t.frozen + adapters * t.per_adapter;
    assert!(
        close(lora_t, lora.0) && close(t.fixed_lora, lora.1),
        "{what} lora: {t:?} {lora:?}"
    );
    assert!(
        close(t.frozen + t.per_adapter, one.0),
        "{what} lora1: {t:?} {one:?}"
    );
}

#[test]
fn the_op_table_is_the_measured_count() {
    let data: Value = serde_json::from_str(&read("validation/dispatch-measured.json")).unwrap();
    let secs: Value = serde_json::from_str(&read("validation/host-costs-measured.json")).unwrap();
    for (stack, adapters, prefix) in STACKS {
        for (c, rc) in [
            (stack.no_recompute, ""),
            (stack.full_recompute, "_recompute"),
        ] {
            let rows = |f: &dyn Fn(&str) -> (f64, f64)| {
                ["full", "lora", "lora1"].map(|k| f(&format!("{prefix}_{k}{rc}")))
            };
            let what = format!("{prefix}{rc}");
            check_table(
                &c.ops,
                adapters,
                rows(&|r| per_layer(&data, r, "top_ops")),
                0.0,
                &what,
            );
            let launch = rows(&|r| per_layer(&data, r, "launch_ops"));
            check_table(&c.launch, adapters, launch, 0.0, &what);
            // Seconds rounded to 0.1 µs in the table; the LoRA row sums 5-7 adapters.
            check_table(
                &c.outside_s,
                adapters,
                rows(&|r| outside(&secs, r)),
                1e-6,
                &what,
            );
        }
    }
}

/// The case's model and setup (targets resolved as the estimator resolves them) and cluster.
fn case(
    id: &str,
) -> (
    ModelSpec,
    TrainingSetup,
    gpuplan_core::hardware::ClusterSpec,
) {
    let c = parse_case(id, &read(&format!("cases/{id}.toml"))).unwrap();
    let w = c.workload;
    let m = workload_model(&w, id).unwrap();
    let mut s = w.training.clone().unwrap();
    s.lora = s.lora.resolved_for(&m);
    (m, s, w.hardware.clone().unwrap().cluster().unwrap())
}

fn step(m: &ModelSpec, s: &TrainingSetup, c: &gpuplan_core::hardware::ClusterSpec) -> StepTime {
    training_step(m, s, c, &Tunables::default()).unwrap()
}

/// Qwen-1.8B LoRA at 256 tokens (Qwen's README speed table): 55 + 24 × (265 + 5 × 39) = 11,095
/// ops a micro-batch, 34 + 24 × (161 + 5 × 23) = 6,658 of them launching a kernel; with the views
/// and the measured time outside the ops that is about 0.1 s, far above the GPU's few tens of ms,
/// so each micro-batch takes the host's time and the host CPU is the bottleneck.
#[test]
fn a_short_qwen_lora_micro_batch_waits_for_the_host() {
    let (m, s, c) = case("t-qwen1-18b-lora-s256-a100");
    let b = gpuplan_core::model::param_breakdown(&m);
    let (stack, h) = ops_per_micro_batch(&m, &b, &s).unwrap();
    assert_eq!(stack.name, "qwen1");
    assert_eq!(h.ops, 55.0 + 24.0 * (265.0 + 5.0 * 39.0));
    assert_eq!(h.launch, 34.0 + 24.0 * (161.0 + 5.0 * 23.0));
    let o = &stack.full_recompute.outside_s;
    let outside = o.fixed_lora + 24.0 * (o.frozen + 5.0 * o.per_adapter);
    assert!((h.outside_s - outside).abs() < 1e-12 && outside > 0.0);
    let st = step(&m, &s, &c);
    let d = st.host_dispatch.as_ref().unwrap();
    let micro = s.grad_accum as f64;
    let gpu = (st.compute.0 - st.optimizer.0) / micro;
    let tun = Tunables::default();
    let host =
        h.launch * tun.host_op_seconds + (h.ops - h.launch) * tun.host_view_seconds + outside;
    assert!((micro_batch_seconds(&h, &tun) - host).abs() < 1e-12);
    assert!(host > 2.0 * gpu, "host {host} s, GPU {gpu} s");
    assert!((d.exposed_s.0 - micro * (host - gpu)).abs() < 1e-12);
    assert!((st.step.0 - (st.compute.0 + d.exposed_s.0)).abs() < 1e-12);
    assert_eq!(st.bottleneck, "host-cpu");
}

/// At 8192 tokens the GPU's time hides the same host work: the step is the GPU's, bit for bit
/// the step with a free host.
#[test]
fn a_long_micro_batch_hides_the_host() {
    let (m, s, c) = case("t-qwen1-18b-lora-s8192-a100");
    let st = step(&m, &s, &c);
    assert_eq!(st.host_dispatch.as_ref().unwrap().exposed_s.0, 0.0);
    let free = Tunables {
        host_op_seconds: 0.0,
        ..Tunables::default()
    };
    let st0 = training_step(&m, &s, &c, &free).unwrap();
    assert_eq!(st.step, st0.step);
    assert_eq!(st.bottleneck, "compute");
}

/// Loops that were not counted keep the GPU-only step: Megatron, torch.compile, selective
/// recompute, tensor parallelism, and a model whose code was not counted.
#[test]
fn uncounted_loops_have_no_host_dispatch() {
    let (m, s, c) = case("t-qwen1-18b-lora-s256-a100");
    let b = gpuplan_core::model::param_breakdown(&m);
    let variants: [(&str, TrainingSetup); 3] = [
        (
            "megatron",
            TrainingSetup {
                framework: Framework::Megatron,
                ..s.clone()
            },
        ),
        (
            "compiled",
            TrainingSetup {
                compiled: true,
                ..s.clone()
            },
        ),
        (
            "selective",
            TrainingSetup {
                recompute: Recompute::Selective,
                ..s.clone()
            },
        ),
    ];
    for (name, v) in variants {
        assert!(ops_per_micro_batch(&m, &b, &v).is_none(), "{name}");
    }
    let st = step(&m, &s, &c);
    assert!(st.host_dispatch.is_some());
    // The same loop on an Ascend NPU: the per-op cost is a CUDA measurement.
    let npu = gpuplan_core::job::HardwareInput {
        gpu: "ascend-910b".into(),
        gpus_per_node: 1,
        nodes: 1,
        ..Default::default()
    };
    assert!(step(&m, &s, &npu.cluster().unwrap())
        .host_dispatch
        .is_none());
    let mut gpt2 = s.clone();
    gpt2.lora.targets = vec!["all-linear".into()];
    let g = gpuplan_core::model::find_preset("GPT-2")
        .unwrap()
        .model
        .clone();
    let gb = gpuplan_core::model::param_breakdown(&g);
    assert!(ops_per_micro_batch(&g, &gb, &gpt2).is_none(), "gpt2");
}

/// The ZeRO-3 tables are validation/zero3-hooks-measured.json's DeepSpeed − plain figures
/// (tools/measure_zero3_hooks.py, 2 ranks, the median of 4 runs), outside seconds rounded to 0.1 µs.
#[test]
fn the_zero3_table_is_the_measured_one() {
    let data: Value = serde_json::from_str(&read("validation/zero3-hooks-measured.json")).unwrap();
    assert_eq!(data["world_size"].as_u64(), Some(2));
    assert_eq!(data["deepspeed"].as_str(), Some("0.11.1"));
    for (stack, prefix) in [(&QWEN_V1, "qwen1"), (&HF_LLAMA, "llama")] {
        for (c, rc) in [
            (stack.full_recompute, ""),
            (stack.no_recompute, "_no_recompute"),
        ] {
            let name = format!("{prefix}{rc}");
            let row = &data["stacks"][&name];
            assert_eq!(row["runs"].as_u64(), Some(4), "{name}");
            let get = |part: &str, k: &str| {
                row[part][k]
                    .as_f64()
                    .unwrap_or_else(|| panic!("{name}: {part}.{k}"))
            };
            let pair = |k: &str| (get("zero3_per_layer", k), get("zero3_fixed", k));
            let z = &c.zero3;
            assert_eq!(z.ops, pair("top_ops"), "{name} ops");
            assert_eq!(z.launch, pair("launch_ops"), "{name} launch");
            assert_eq!(
                z.collectives,
                pair("collective_calls"),
                "{name} collectives"
            );
            let (per, fixed) = pair("outside_s");
            assert!(
                (z.outside_s.0 - per).abs() <= 1e-7 && (z.outside_s.1 - fixed).abs() <= 1e-7,
                "{name} outside {:?} vs ({per}, {fixed})",
                z.outside_s
            );
        }
    }
}

/// Qwen-7B full fine-tuning on 2 A100s under DeepSpeed ZeRO-3 (Qwen's README speed table): the
/// host's time a micro-batch is the counted loop plus the measured hooks, 32 layers of them, and
/// nothing of them where the run is not the measured one (ZeRO-2, LoRA, one rank, FSDP); without
/// recompute the no-recompute loop's own hooks (no replay: fewer).
#[test]
fn zero3_adds_its_hooks_to_the_host() {
    let (m, s, c) = case("t-qwen1-7b-full-s256-2xa100");
    let b = gpuplan_core::model::param_breakdown(&m);
    let z = zero3_hooks(&QWEN_V1, &m, &s, 2).unwrap();
    let q = &QWEN_V1.full_recompute.zero3;
    let total = |(per, fixed): (f64, f64)| fixed + 32.0 * per;
    assert_eq!(z.ops, total(q.ops) + total(q.collectives));
    assert_eq!(z.launch, total(q.launch) + total(q.collectives));
    assert!((z.outside_s - total(q.outside_s)).abs() < 1e-12);
    let tun = Tunables::default();
    let (_, base) = ops_per_micro_batch(&m, &b, &s).unwrap();
    let st = step(&m, &s, &c);
    let d = st.host_dispatch.as_ref().unwrap();
    let micro = s.grad_accum as f64;
    let host = micro_batch_seconds(&base, &tun) + micro_batch_seconds(&z, &tun);
    assert!((d.host_s.0 - micro * host).abs() < 1e-9);
    assert_eq!(d.zero3_s, Some(micro_batch_seconds(&z, &tun)));
    let mut zero2 = s.clone();
    zero2.parallel.zero = 2;
    assert!(zero3_hooks(&QWEN_V1, &m, &zero2, 2).is_none());
    assert!(zero3_hooks(&QWEN_V1, &m, &s, 1).is_none());
    let mut lora = s.clone();
    lora.task = gpuplan_core::workload::TrainTask::Lora;
    assert!(zero3_hooks(&QWEN_V1, &m, &lora, 2).is_none());
    let mut fsdp = s.clone();
    fsdp.deepspeed = false;
    assert!(zero3_hooks(&QWEN_V1, &m, &fsdp, 2).is_none());
    let mut plain = s.clone();
    plain.recompute = Recompute::None;
    let nr = zero3_hooks(&QWEN_V1, &m, &plain, 2).unwrap();
    let q0 = &QWEN_V1.no_recompute.zero3;
    assert_eq!(nr.ops, total(q0.ops) + total(q0.collectives));
    assert!(nr.outside_s < z.outside_s, "the replay's hooks are gone");
    let mut selective = s.clone();
    selective.recompute = Recompute::Selective;
    assert!(zero3_hooks(&QWEN_V1, &m, &selective, 2).is_none());
}
