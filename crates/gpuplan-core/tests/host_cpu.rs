//! Issue 10: the host CPUs as a ceiling on image training in the estimator (`[hardware]
//! host_vcpus`), the same ceiling the planner applies with an instance's catalog vCPUs
//! (`train::host_decode_cap`, one function for both).

use gpuplan_core::constants::Tunables;
use gpuplan_core::job::{estimate_training, HardwareInput, TrainingEstimate};
use gpuplan_core::model::find_preset;
use gpuplan_core::train::host_decode_cap;
use gpuplan_core::workload::{Optimizer, Precision, TrainTask, TrainingSetup};

fn resnet_setup() -> TrainingSetup {
    TrainingSetup {
        task: TrainTask::Pretrain,
        precision: Precision::AmpFp16,
        optimizer: Optimizer::SgdMomentum,
        micro_batch: 256,
        ..TrainingSetup::default()
    }
}

fn estimate(model: &str, s: &TrainingSetup, nodes: u64, host: Option<u64>) -> TrainingEstimate {
    let m = &find_preset(model).unwrap().model;
    let hw = HardwareInput {
        gpu: "a100-80g".into(),
        gpus_per_node: 8,
        nodes,
        host_vcpus: host,
        ..HardwareInput::default()
    };
    estimate_training(m, s, &hw.cluster().unwrap(), &Tunables::default()).unwrap()
}

/// 16 vCPUs feed 16 × 150 = 2,400 images/s, far below 8 A100s' ~20k: the step stretches to the
/// host's rate, every rate scales by the same ratio, and the bottleneck is the host CPU.
#[test]
fn a_small_host_caps_resnet_and_names_the_host_cpu() {
    let s = resnet_setup();
    let free = estimate("ResNet-50", &s, 1, None).step.unwrap();
    let capped_e = estimate("ResNet-50", &s, 1, Some(16));
    let capped = capped_e.step.as_ref().unwrap();
    let per_vcpu = Tunables::default().image_decode_per_core;
    assert!(
        free.tokens_per_second > 16.0 * per_vcpu * 2.0,
        "{}",
        free.tokens_per_second
    );
    assert!((capped.tokens_per_second - 16.0 * per_vcpu).abs() < 1e-6);
    assert_eq!(capped.bottleneck, "host-cpu");
    assert_ne!(free.bottleneck, "host-cpu");
    let ratio = capped.tokens_per_second / free.tokens_per_second;
    for (c, f) in [
        (capped.mfu, free.mfu),
        (capped.hfu, free.hfu),
        (
            capped.tokens_per_second_per_gpu,
            free.tokens_per_second_per_gpu,
        ),
        (capped.model_tflops_per_gpu, free.model_tflops_per_gpu),
        (free.step.0, capped.step.0),
    ] {
        assert!((c / f - ratio).abs() < 1e-9, "{c} / {f} vs {ratio}");
    }
    // The data path is computed from the capped rate: it needs exactly the 16 vCPUs it has.
    let d = capped_e.data_path.unwrap();
    assert!((d.cpu_cores_for_decode.unwrap() - 16.0).abs() < 1e-9);
}

/// The ceiling scales with nodes (vCPUs are per node), does not bind when the host is large
/// (a DGX A100's 256 vCPUs: 38,400 images/s at 150 per vCPU), and ignores models that decode no
/// images.
#[test]
fn the_ceiling_is_per_node_and_only_for_image_models() {
    let s = resnet_setup();
    let two = estimate("ResNet-50", &s, 2, Some(16)).step.unwrap();
    let per_vcpu = Tunables::default().image_decode_per_core;
    assert!((two.tokens_per_second - 2.0 * 16.0 * per_vcpu).abs() < 1e-6);
    let free = estimate("ResNet-50", &s, 1, None).step.unwrap();
    let dgx = estimate("ResNet-50", &s, 1, Some(256)).step.unwrap();
    assert_eq!(dgx.tokens_per_second, free.tokens_per_second);
    let llm = TrainingSetup {
        task: TrainTask::Lora,
        seq_len: 1024,
        ..TrainingSetup::default()
    };
    let a = estimate("Qwen2.5-0.5B", &llm, 1, Some(1)).step.unwrap();
    let b = estimate("Qwen2.5-0.5B", &llm, 1, None).step.unwrap();
    assert_eq!(a.tokens_per_second, b.tokens_per_second);
    // One vCPU changes nothing for an LLM. (Its bottleneck can still be the host CPU, but from
    // the dispatch of its eager loop, `train::dispatch`, whatever the vCPUs: a 0.5B model's
    // 1,024-token micro-batch is shorter on an A100 than the host's 9,607 ops, 73 ms: 5,597
    // launching ones at 8 µs, the rest at 0.7 µs, and 25 ms outside the ops.)
    assert_eq!(a.bottleneck, b.bottleneck);
    assert!(a.bottleneck != "host-cpu" || a.host_dispatch.is_some_and(|h| h.exposed_s.0 > 0.0));
}

/// Plan and estimate apply one ceiling: the planner's `host_decode_cap` with an instance's vCPUs
/// is the estimator's capped throughput on a host with as many vCPUs.
#[test]
fn plan_and_estimate_share_the_ceiling() {
    let m = &find_preset("ResNet-50").unwrap().model;
    let tun = Tunables::default();
    for (vcpus, nodes) in [(8u64, 1u64), (16, 2), (32, 4)] {
        let cap = host_decode_cap(m, Some(vcpus), nodes, &tun).unwrap();
        let st = estimate("ResNet-50", &resnet_setup(), nodes, Some(vcpus))
            .step
            .unwrap();
        assert_eq!(st.bottleneck, "host-cpu");
        assert!(
            (st.tokens_per_second - cap).abs() < 1e-6 * cap,
            "{vcpus} × {nodes}"
        );
    }
    let llama = &find_preset("Qwen2.5-0.5B").unwrap().model;
    assert_eq!(host_decode_cap(llama, Some(8), 1, &tun), None);
    assert_eq!(host_decode_cap(m, None, 1, &tun), None);
}

/// 0 vCPUs or an absurd count is refused, naming the key.
#[test]
fn host_vcpus_is_checked() {
    for bad in [0u64, 65_537, u64::MAX] {
        let hw = HardwareInput {
            host_vcpus: Some(bad),
            ..HardwareInput::default()
        };
        let e = hw.cluster().unwrap_err().to_string();
        assert!(e.contains("host_vcpus"), "{e}");
    }
}

fn resnet_case(id: &str, per_vcpu: Option<f64>) -> gpuplan_core::validation::CaseOutcome {
    use gpuplan_core::validation::{evaluate, parse_case};
    let path = format!("{}/../../cases/{id}.toml", env!("CARGO_MANIFEST_DIR"));
    let mut case = parse_case(&path, &std::fs::read_to_string(&path).unwrap()).unwrap();
    if let Some(r) = per_vcpu {
        let t = case.workload.tunables.get_or_insert_with(Tunables::default);
        t.image_decode_per_core = r;
    }
    evaluate(&case).unwrap()
}

/// The DeepLearningExamples ResNet-50 rows carry their DGX hosts (DGX A100: 256 vCPUs, DGX-1:
/// 80). At the assumed 150 images/s per vCPU the ceiling binds on none of them (the rows are
/// unchanged). The finding recorded in the A100 8-GPU row's known deviation: no single rate per
/// vCPU fits both 8-GPU rows. The A100 row enters its band only at <= 77.9 per vCPU, where the
/// DGX-1 row falls below its band (it needs >= 83.2).
#[test]
fn no_single_host_rate_explains_both_dgx_rows() {
    for id in [
        "dle-resnet50-a100-80g-amp-1gpu",
        "dle-resnet50-a100-80g-amp-8gpu",
        "dle-resnet50-v100-16g-amp-1gpu",
        "dle-resnet50-v100-16g-amp-8gpu",
        "dle-resnet50-v100-32g-amp-1gpu",
    ] {
        let o = resnet_case(id, None);
        let free = resnet_case(id, Some(1e6));
        assert_eq!(
            o.predicted, free.predicted,
            "{id}: the ceiling binds at 150/vCPU"
        );
    }
    let a100 = resnet_case("dle-resnet50-a100-80g-amp-8gpu", Some(77.9));
    let v100 = resnet_case("dle-resnet50-v100-16g-amp-8gpu", Some(77.9));
    assert!(a100.within, "A100 at 77.9/vCPU: {:+.3}", a100.error);
    assert!(!v100.within, "DGX-1 at 77.9/vCPU: {:+.3}", v100.error);
    let v100_ok = resnet_case("dle-resnet50-v100-16g-amp-8gpu", Some(83.3));
    let a100_miss = resnet_case("dle-resnet50-a100-80g-amp-8gpu", Some(83.3));
    assert!(v100_ok.within && !a100_miss.within);
}
