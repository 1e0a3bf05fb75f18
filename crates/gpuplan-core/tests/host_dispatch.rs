//! Issue 10: the host's dispatch time of an eager training micro-batch (`train::dispatch`).
//! The op table must be the counts tools/measure_dispatch.py took on CPU
//! (validation/dispatch-measured.json), and the step must take max(GPU, host) per micro-batch
//! only where the loop is a counted one.

use gpuplan_core::constants::Tunables;
use gpuplan_core::model::ModelSpec;
use gpuplan_core::train::dispatch::{ops_per_micro_batch, LayerOps, HF_LLAMA, QWEN_V1};
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

fn per_layer(data: &Value, row: &str) -> (f64, f64) {
    let mb = &data["stacks"][row]["micro_batch"];
    let n = |k: &str| {
        mb[k]["top_ops"]
            .as_f64()
            .unwrap_or_else(|| panic!("{row}: {k}"))
    };
    (n("per_layer"), n("fixed"))
}

#[test]
fn the_op_table_is_the_measured_count() {
    let data: Value = serde_json::from_str(&read("validation/dispatch-measured.json")).unwrap();
    for (stack, adapters, prefix) in STACKS {
        for (ops, rc) in [
            (stack.no_recompute, ""),
            (stack.full_recompute, "_recompute"),
        ] {
            let LayerOps {
                full,
                frozen,
                per_adapter,
                fixed_full,
                fixed_lora,
            } = ops;
            let full_row = per_layer(&data, &format!("{prefix}_full{rc}"));
            assert_eq!((full, fixed_full), full_row, "{prefix}_full{rc}");
            let lora = per_layer(&data, &format!("{prefix}_lora{rc}"));
            assert_eq!(
                (frozen + adapters * per_adapter, fixed_lora),
                lora,
                "{prefix}_lora{rc}"
            );
            // One adapter a layer: the frozen base and one increment (the per-adapter count is
            // the same for every adapted linear, so the two rows give it).
            let one = per_layer(&data, &format!("{prefix}_lora1{rc}"));
            assert_eq!(frozen + per_adapter, one.0, "{prefix}_lora1{rc}");
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
/// ops a micro-batch; at 8 µs that is 88.8 ms, far above the GPU's few tens of ms, so each
/// micro-batch takes the host's time and the host CPU is the bottleneck.
#[test]
fn a_short_qwen_lora_micro_batch_waits_for_the_host() {
    let (m, s, c) = case("t-qwen1-18b-lora-s256-a100");
    let b = gpuplan_core::model::param_breakdown(&m);
    let (stack, ops) = ops_per_micro_batch(&m, &b, &s).unwrap();
    assert_eq!(stack.name, "qwen1");
    assert_eq!(ops, 55.0 + 24.0 * (265.0 + 5.0 * 39.0));
    let st = step(&m, &s, &c);
    let h = st.host_dispatch.as_ref().unwrap();
    let micro = s.grad_accum as f64;
    let gpu = (st.compute.0 - st.optimizer.0) / micro;
    let host = ops * Tunables::default().host_op_seconds;
    assert!(host > 2.0 * gpu, "host {host} s, GPU {gpu} s");
    assert!((h.exposed_s.0 - micro * (host - gpu)).abs() < 1e-12);
    assert!((st.step.0 - (st.compute.0 + h.exposed_s.0)).abs() < 1e-12);
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
