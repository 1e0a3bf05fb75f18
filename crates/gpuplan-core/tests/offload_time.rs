//! Audit r9 #6: host offload costs step time (train/step/offload.rs): the optimizer's PCIe
//! transfers (ZeRO-Offload), parameter fetches from the host (ZeRO-3 offload_param / FSDP
//! CPUOffload) and activation offload (torchtune OffloadActivations), over the GPU's PCIe x16
//! host link, one direction.

use gpuplan_core::constants::Tunables;
use gpuplan_core::hardware::{find_gpu, ClusterSpec, InterLink};
use gpuplan_core::model::{find_preset, ModelSpec};
use gpuplan_core::train::{training_memory, training_step, StepTime};
use gpuplan_core::units::Bandwidth;
use gpuplan_core::workload::*;

fn model(name: &str) -> ModelSpec {
    find_preset(name).unwrap().model.clone()
}

fn cluster(gpu: &str, per_node: u64) -> ClusterSpec {
    ClusterSpec::new(
        find_gpu(gpu).unwrap(),
        per_node,
        1,
        InterLink::Rdma,
        Bandwidth::from_gbit_per_s(800.0),
    )
    .unwrap()
}

fn full_zero3(seq_len: u64) -> TrainingSetup {
    let mut s = TrainingSetup {
        task: TrainTask::FullFinetune,
        seq_len,
        ..Default::default()
    };
    s.parallel.zero = 3;
    s
}

fn step(m: &ModelSpec, s: &TrainingSetup, c: &ClusterSpec) -> StepTime {
    training_step(m, s, c, &Tunables::default()).unwrap()
}

fn close(a: f64, b: f64) -> bool {
    (a - b).abs() <= 1e-9 * a.abs().max(b.abs()).max(1e-9)
}

#[test]
fn no_offload_no_offload_phase() {
    let st = step(
        &model("Llama-3.1-8B"),
        &full_zero3(2048),
        &cluster("a100-80g", 8),
    );
    assert!(st.offload.is_none());
    let json = serde_json::to_string(&st).unwrap();
    assert!(!json.contains("offload"), "non-offload JSON gains no key");
}

#[test]
fn zero_offload_pays_the_parameter_copy_back() {
    let (m, c) = (model("Llama-3.1-8B"), cluster("a100-80g", 8));
    let base = step(&m, &full_zero3(2048), &c);
    let mut s = full_zero3(2048);
    s.parallel.offload_optimizer = true;
    let st = step(&m, &s, &c);
    let o = st.offload.clone().unwrap();
    // A100 SXM's host link: PCIe Gen4 x16, 64 GB/s both ways, 32 GB/s one way.
    assert_eq!(o.host_link, Some(Bandwidth::from_gb_per_s(32.0)));
    // Hand check: 8.03e9 parameters over 8 ranks ≈ 1.0037e9 each; fp32 gradients 4 B → 4.01 GB
    // / 32 GB/s = 125.5 ms; 16-bit parameters 2 B back → 62.7 ms.
    assert!((o.grads_to_host.0 - 0.1254728).abs() < 1e-6, "{:?}", o);
    assert!((o.params_to_device.0 - 0.0627364).abs() < 1e-6, "{:?}", o);
    assert!(close(o.grads_to_host.0, 2.0 * o.params_to_device.0));
    // The step grows by exactly the exposed transfers; nothing else moves.
    assert!(o.exposed.0 > 0.0);
    assert!(close(st.step.0 - base.step.0, o.exposed.0));
    assert!(close(
        o.exposed.0,
        o.grads_to_host_exposed.0 + o.params_to_device.0
    ));
    assert_eq!(st.compute, base.compute);
    assert_eq!(st.dp_comm_exposed, base.dp_comm_exposed);
}

#[test]
fn parameter_offload_reads_every_gathered_shard_from_the_host() {
    let (m, c) = (model("Llama-3.1-8B"), cluster("a100-80g", 8));
    for seq in [2048, 128] {
        let base = step(&m, &full_zero3(seq), &c);
        let mut s = full_zero3(seq);
        s.parallel.offload_optimizer = true;
        s.parallel.offload_params = true;
        let st = step(&m, &s, &c);
        let o = st.offload.clone().unwrap();
        // FSDP-style: two gathers per micro-batch of the 16-bit shard: 2 × 2 B × 1.0037e9.
        assert!((o.param_fetch.0 - 0.1254728).abs() < 1e-6, "{:?}", o);
        // Updated parameters stay on the host: nothing copied back after the step.
        assert_eq!(o.params_to_device.0, 0.0);
        assert!(o.param_fetch_exposed.0 <= o.param_fetch.0);
        assert!(close(st.step.0 - base.step.0, o.exposed.0));
    }
    // A short sequence leaves too little compute to hide the fetches.
    let mut s = full_zero3(128);
    s.parallel.offload_params = true;
    let o = step(&m, &s, &c).offload.unwrap();
    assert!(o.param_fetch_exposed.0 > 0.0, "{:?}", o);
}

#[test]
fn activation_offload_moves_the_host_bytes_both_ways() {
    let (m, c) = (model("Llama-3.1-8B"), cluster("a10", 1));
    let mut s = TrainingSetup {
        task: TrainTask::Lora,
        seq_len: 2048,
        ..Default::default()
    };
    let base = step(&m, &s, &c);
    s.activation_offload = true;
    let st = step(&m, &s, &c);
    let o = st.offload.clone().unwrap();
    let host = training_memory(&m, &s, &c, &Tunables::default())
        .unwrap()
        .cpu_offload;
    // The bytes the memory side puts on the host, over PCIe Gen4 one way (32 GB/s), each way.
    assert!(close(o.activations_to_device.0, host.0 / 32e9), "{:?}", o);
    assert!(close(o.activations_to_host.0, o.activations_to_device.0));
    // The copy back in backward is waited for; the copy out hides behind the forward (1/3).
    let forward = (base.compute.0 - base.optimizer.0) / 3.0;
    assert!(close(
        o.activations_to_host_exposed.0,
        (o.activations_to_host.0 - forward).max(0.0)
    ));
    assert!(close(st.step.0 - base.step.0, o.exposed.0));
    assert!(st.step.0 > base.step.0 + o.activations_to_device.0 * 0.999);
}

#[test]
fn no_catalogued_host_link_times_nothing() {
    // MI300X (Infinity Fabric): no host link in the catalog.
    let (m, c) = (model("Llama-3.1-8B"), cluster("mi300x", 8));
    let base = step(&m, &full_zero3(2048), &c);
    let mut s = full_zero3(2048);
    s.parallel.offload_optimizer = true;
    let st = step(&m, &s, &c);
    let o = st.offload.unwrap();
    assert_eq!(o.host_link, None);
    assert_eq!(o.exposed.0, 0.0);
    assert_eq!(st.step, base.step);
}

/// The per-core rates of validation/host-adam-measured.json (median, one thread).
const DS_PER_CORE: f64 = 1.030e9;
const TORCH_FUSED_FP32_PER_CORE: f64 = 0.918e9;
const TORCH_FUSED_BF16_PER_CORE: f64 = 1.264e9;
const TORCH_FOREACH_FP32_PER_CORE: f64 = 0.2194e9;

fn with_host(mut c: ClusterSpec, vcpus: u64) -> ClusterSpec {
    c.host_vcpus = Some(vcpus);
    c
}

#[test]
fn deepspeed_host_step_needs_the_hosts_vcpus() {
    let m = model("Llama-3.1-8B");
    let mut s = full_zero3(2048);
    s.parallel.offload_optimizer = true;
    // DeepSpeed's launcher leaves each rank's OpenMP on the whole host: no vCPUs, no timing.
    let plain = step(&m, &s, &cluster("a100-80g", 8));
    assert!(plain.offload.as_ref().unwrap().host_step.is_none());
    let json = serde_json::to_string(&plain).unwrap();
    assert!(!json.contains("host_step"), "untimed: no key");
    // 128 vCPUs = 64 physical cores over 8 ranks: 8 cores each. 1.0037e9 parameters per rank.
    let st = step(&m, &s, &with_host(cluster("a100-80g", 8), 128));
    let o = st.offload.clone().unwrap();
    let h = o.host_step.clone().unwrap();
    assert_eq!(h.implementation, "deepspeed_cpu_adam");
    assert!(close(h.cores, 8.0), "{h:?}");
    assert!(close(h.seconds.0, h.params / (8.0 * DS_PER_CORE)), "{h:?}");
    assert!((h.seconds.0 - 0.1218).abs() < 1e-3, "{h:?}");
    // It takes the device optimizer's place in the step: only the excess is added.
    assert!(close(h.exposed.0, (h.seconds.0 - st.optimizer.0).max(0.0)));
    assert!(close(st.step.0 - plain.step.0, h.exposed.0), "{st:?}");
    assert!(close(
        o.exposed.0,
        o.grads_to_host_exposed.0 + o.params_to_device.0 + h.exposed.0
    ));
    // Half the vCPUs: twice the host step.
    let half = step(&m, &s, &with_host(cluster("a100-80g", 8), 64));
    let h2 = half.offload.unwrap().host_step.unwrap();
    assert!(close(h2.seconds.0, 2.0 * h.seconds.0));
}

#[test]
fn torchrun_caps_each_fsdp_rank_at_one_thread() {
    let (m, c) = (model("Llama-3.1-8B"), cluster("a100-80g", 8));
    let mut s = full_zero3(2048);
    s.parallel.offload_optimizer = true;
    s.parallel.offload_params = true;
    // torchrun's OMP_NUM_THREADS=1 with 8 processes: one core each, host size unknown or large.
    for c in [c.clone(), with_host(c.clone(), 256)] {
        let h = step(&m, &s, &c).offload.unwrap().host_step.unwrap();
        assert_eq!(h.implementation, "torch_adamw_fused");
        assert!(close(h.cores, 1.0), "{h:?}");
        assert!(close(h.seconds.0, h.params / TORCH_FUSED_FP32_PER_CORE));
    }
    // Fewer cores than ranks: the share.
    let h = step(&m, &s, &with_host(c.clone(), 8))
        .offload
        .unwrap()
        .host_step
        .unwrap();
    assert!(close(h.cores, 0.5), "{h:?}");
    // Pure bf16 keeps bf16 states: the bf16 rate.
    s.precision = Precision::PureBf16;
    let h = step(&m, &s, &c).offload.unwrap().host_step.unwrap();
    assert!(close(h.seconds.0, h.params / TORCH_FUSED_BF16_PER_CORE));
    // One process per node: torchrun sets nothing, the threads span the host; not known.
    let one = step(&m, &s, &cluster("a100-80g", 1));
    assert!(one.offload.unwrap().host_step.is_none());
}

/// The rates above (and offload.rs's constants, which the two tests before pin through the step)
/// are the one-thread medians of the committed measurement, to 4 significant figures.
#[test]
fn host_rates_are_the_committed_measurement() {
    let path = concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/../../validation/host-adam-measured.json"
    );
    let text = std::fs::read_to_string(path).unwrap();
    let v: serde_json::Value = serde_json::from_str(&text).unwrap();
    for (row, rate) in [
        ("ds_cpuadam_fp32@1t", DS_PER_CORE),
        ("torch_fused_fp32@1t", TORCH_FUSED_FP32_PER_CORE),
        ("torch_fused_bf16@1t", TORCH_FUSED_BF16_PER_CORE),
        ("torch_foreach_fp32@1t", TORCH_FOREACH_FP32_PER_CORE),
    ] {
        let median = v["results"][row]["per_core_params_per_s"]["median"]
            .as_f64()
            .unwrap();
        assert!(
            (median / rate - 1.0).abs() < 5e-4,
            "{row}: {median} vs {rate}"
        );
    }
}

/// Review r17 #1: torchtune's distributed recipes under `fsdp_cpu_offload` call
/// `training.set_torch_num_threads()` (`os.cpu_count() // GPUs` threads per rank), overriding
/// torchrun's one thread: the rank steps on its share of the host's cores, known only with
/// `host_vcpus`.
#[test]
fn torchtune_fsdp_offload_uses_the_ranks_share_of_the_host() {
    let (m, c) = (model("Llama-3.1-8B"), cluster("a100-80g", 8));
    let mut s = full_zero3(2048);
    s.parallel.offload_optimizer = true;
    s.parallel.offload_params = true;
    s.parallel.fsdp_offload_all_cores = true;
    // Host unknown: no thread count, no timing (torchrun's one-thread floor does not apply).
    assert!(step(&m, &s, &c).offload.unwrap().host_step.is_none());
    // 256 vCPUs // 8 ranks = 32 threads = 16 physical cores.
    let h = step(&m, &s, &with_host(c.clone(), 256))
        .offload
        .unwrap()
        .host_step
        .unwrap();
    assert!(close(h.cores, 16.0), "{h:?}");
    assert!(close(
        h.seconds.0,
        h.params / (16.0 * TORCH_FUSED_FP32_PER_CORE)
    ));
    // 100 vCPUs // 8 = 12 threads: 6 cores (integer division, as os.cpu_count() // n).
    let h = step(&m, &s, &with_host(c.clone(), 100))
        .offload
        .unwrap()
        .host_step
        .unwrap();
    assert!(close(h.cores, 6.0), "{h:?}");
    // Fewer vCPUs than ranks: one thread each, on a quarter of a core.
    let h = step(&m, &s, &with_host(c.clone(), 4))
        .offload
        .unwrap()
        .host_step
        .unwrap();
    assert!(close(h.cores, 0.25), "{h:?}");
}

#[test]
fn torchtune_thread_override_needs_fsdp_offload() {
    let m = model("Llama-3.1-8B");
    let mut s = full_zero3(2048);
    s.parallel.fsdp_offload_all_cores = true;
    let e = training_step(&m, &s, &cluster("a100-80g", 8), &Tunables::default()).unwrap_err();
    assert!(e.to_string().contains("fsdp_offload_all_cores"), "{e}");
    s.parallel.offload_params = true;
    s.deepspeed = true;
    assert!(training_step(&m, &s, &cluster("a100-80g", 8), &Tunables::default()).is_err());
}

/// Review r17 #2: the host rate follows `optimizer_foreach`; optimizers other than AdamW have
/// no measured host rate and are not timed.
#[test]
fn host_step_follows_the_optimizer() {
    let m = model("Llama-3.1-8B");
    let c = with_host(cluster("a100-80g", 8), 128);
    let mut s = full_zero3(2048);
    s.parallel.offload_optimizer = true;
    s.parallel.offload_params = true;
    s.optimizer_foreach = true;
    let h = step(&m, &s, &c).offload.unwrap().host_step.unwrap();
    assert_eq!(h.implementation, "torch_adamw_foreach");
    assert!(close(h.seconds.0, h.params / TORCH_FOREACH_FP32_PER_CORE));
    // No bf16 foreach rate was measured: untimed.
    s.precision = Precision::PureBf16;
    assert!(step(&m, &s, &c).offload.unwrap().host_step.is_none());
    s.precision = TrainingSetup::default().precision;
    s.optimizer_foreach = false;
    for opt in [Optimizer::SgdMomentum, Optimizer::Adafactor] {
        s.optimizer = opt;
        let st = step(&m, &s, &c);
        assert!(st.offload.unwrap().host_step.is_none(), "{opt:?}");
    }
    // DeepSpeed's CPU Adam ignores torch's foreach switch.
    let mut d = full_zero3(2048);
    d.parallel.offload_optimizer = true;
    d.optimizer_foreach = true;
    let h = step(&m, &d, &c).offload.unwrap().host_step.unwrap();
    assert_eq!(h.implementation, "deepspeed_cpu_adam");
}

/// Review r17 #4: the per-core rates are an x86 measurement; a host the catalog names as
/// not x86 (Kunpeng 920, aarch64) is not timed.
#[test]
fn non_x86_host_is_not_timed() {
    let m = model("Llama-3.1-8B");
    let mut s = full_zero3(2048);
    s.parallel.offload_optimizer = true;
    let mut c = with_host(cluster("a100-80g", 8), 192);
    assert!(step(&m, &s, &c).offload.unwrap().host_step.is_some());
    c.host_not_x86 = true;
    assert!(step(&m, &s, &c).offload.unwrap().host_step.is_none());
}

/// Review r17 #3: `plan` and `estimate --instance` time the host step on the same host: the
/// instance's cluster carries its catalog vCPUs and whether its CPU is x86.
#[test]
fn instance_cluster_carries_the_catalog_host() {
    let cat = gpuplan_core::catalog::Catalog::builtin().unwrap();
    for (id, x86) in [
        ("ecs.gn7e-c16g1.32xlarge", true),
        ("modelarts.snt9b.8", false),
    ] {
        let inst = cat.find_instance(id).unwrap();
        let gpu = std::sync::Arc::new(find_gpu(&inst.gpu).unwrap().clone());
        let (c, _) = gpuplan_core::plan::instance_cluster(inst, &gpu, 1).unwrap();
        assert_eq!(c.host_vcpus, inst.vcpu.map(u64::from), "{id}");
        assert!(c.host_vcpus.is_some(), "{id}");
        assert_eq!(c.host_not_x86, !x86, "{id}");
    }
}
