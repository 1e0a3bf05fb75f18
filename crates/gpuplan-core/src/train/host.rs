//! The host CPUs as a ceiling on image training (issue 10): JPEG decoding and augmentation run on
//! the host (PyTorch DataLoader workers, DALI's CPU backend), so a node feeds its GPUs at most
//! `vCPUs × image_decode_per_core` samples per second. One function serves the planner (the
//! catalog instance's vCPUs) and the estimator (`[hardware] host_vcpus`), so both apply the same
//! ceiling to the same host.
//!
//! The unit is the vCPU, i.e. the hardware thread (what a cloud catalog lists and `nproc`
//! counts): a node with 2 × 64 cores and SMT has 256. The rate `image_decode_per_core` is an
//! assumption (150 per vCPU), not a measured or fitted value: no published per-core or
//! per-thread rate of the ResNet-50 training pipeline (decode + random-resized crop + flip) was
//! found (docs/methodology.md, "Host CPU ceiling").

use super::StepTime;
use crate::constants::Tunables;
use crate::model::{Architecture, ModelSpec};
use crate::workload::TrainingSetup;

/// Models whose samples are images decoded and augmented on the host: the ResNet presets and ViT.
pub fn decodes_images_on_host(m: &ModelSpec) -> bool {
    matches!(&m.architecture, Architecture::Opaque(o) if o.model_type == "resnet")
        || m.model_type() == "vit"
}

/// Samples per second of a throughput in tokens per second: a sample is a token for opaque
/// models (CNNs), `seq_len` tokens for transformers.
pub fn samples_per_second(m: &ModelSpec, setup: &TrainingSetup, tokens_per_second: f64) -> f64 {
    if m.transformer().is_none() {
        tokens_per_second
    } else {
        tokens_per_second / setup.seq_len.max(1) as f64
    }
}

/// Samples per second the hosts can decode and augment: vCPUs per node × nodes ×
/// `image_decode_per_core`. `None` for a model that decodes no images or an unknown host.
pub fn host_decode_cap(
    m: &ModelSpec,
    vcpus_per_node: Option<u64>,
    nodes: u64,
    tun: &Tunables,
) -> Option<f64> {
    if !decodes_images_on_host(m) {
        return None;
    }
    vcpus_per_node.map(|v| v as f64 * nodes as f64 * tun.image_decode_per_core)
}

/// Scale a step's throughput by `ratio` (< 1) because something outside the GPUs binds.
pub fn cap_step(step: &mut StepTime, ratio: f64, bottleneck: &'static str) {
    step.tokens_per_second *= ratio;
    step.tokens_per_second_per_gpu *= ratio;
    step.mfu *= ratio;
    step.hfu *= ratio;
    step.model_tflops_per_gpu *= ratio;
    step.hardware_tflops_per_gpu *= ratio;
    step.step = step.step / ratio;
    step.bottleneck = bottleneck;
}

/// Apply the host ceiling to a step: when the hosts decode fewer samples per second than the
/// GPUs consume, the step stretches to the hosts' rate and the bottleneck is `host-cpu`.
/// Returns the ceiling (samples/s) when it binds.
pub fn apply_host_decode_cap(
    m: &ModelSpec,
    setup: &TrainingSetup,
    step: &mut StepTime,
    vcpus_per_node: Option<u64>,
    nodes: u64,
    tun: &Tunables,
) -> Option<f64> {
    let cap = host_decode_cap(m, vcpus_per_node, nodes, tun)?;
    let demand = samples_per_second(m, setup, step.tokens_per_second);
    bind_host_cap(step, cap, demand)
}

/// The comparison both the estimator ([`apply_host_decode_cap`]) and the planner make: when the
/// hosts' `cap` (samples/s) is below the GPUs' `demand` (samples/s), stretch the step to the
/// hosts' rate (bottleneck `host-cpu`) and return the ceiling.
pub fn bind_host_cap(step: &mut StepTime, cap: f64, demand: f64) -> Option<f64> {
    (cap < demand).then(|| {
        cap_step(step, cap / demand, "host-cpu");
        cap
    })
}
