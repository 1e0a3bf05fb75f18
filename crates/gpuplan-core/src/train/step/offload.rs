//! Host offload's share of the step: what crosses the GPU's PCIe link to the host and how much
//! of it compute hides (docs/methodology.md §Step time, "Host offload"). The host CPU's
//! optimizer step is not timed on its own: no published CPU-Adam rate or host memory bandwidth is
//! in the catalog. The step keeps the device's bandwidth-bound optimizer time in its place (the
//! same bytes read and written; host DRAM is slower than HBM, so a floor), and an offloaded step
//! is a lower bound.

use super::Ctx;
use crate::units::{transfer_time, Bandwidth, Bytes, Seconds};
use serde::Serialize;

/// Bytes per parameter of the gradient partition DeepSpeed copies to the host: fp32
/// (`fp32_grad_tensor.copy_(grad_buffer.to(dtype=self.master_weights_and_grads_dtype))`,
/// deepspeed/runtime/zero/stage3.py @007cca6a `partition_grads`, converted on the device).
const GRAD_TO_HOST_BYTES: f64 = 4.0;
/// Bytes per parameter of the updated 16-bit parameter partition copied back to the device.
const PARAM_TO_DEVICE_BYTES: f64 = 2.0;

/// Host offload in one step, per device. Each `*_exposed` is the part compute does not hide.
#[derive(Clone, Debug, Default, PartialEq, Serialize)]
pub struct OffloadTime {
    /// One-direction host link the transfers cross; `None`: not in the catalog, nothing timed.
    pub host_link: Option<Bandwidth>,
    /// The optimizer's gradient partition, device → host (in the last micro-batch's backward).
    pub grads_to_host: Seconds,
    pub grads_to_host_exposed: Seconds,
    /// The updated 16-bit parameter partition, host → device, after the host step (exposed).
    pub params_to_device: Seconds,
    /// Parameter offload: every gather's shard read from host memory, all micro-batches.
    pub param_fetch: Seconds,
    pub param_fetch_exposed: Seconds,
    /// Activation offload: saved activations to the host in forward, all micro-batches ...
    pub activations_to_host: Seconds,
    pub activations_to_host_exposed: Seconds,
    /// ... and back in backward, on the critical path (torchtune waits for each copy).
    pub activations_to_device: Seconds,
    /// What the step pays: the sum of the exposed parts.
    pub exposed: Seconds,
}

/// Whether the optimizer steps on the host: `offload_optimizer`, or PEFT under parameter
/// offload (the adapters, their gradients and states live on the host: `train::peft_states`).
pub(super) fn host_optimizer(x: &Ctx) -> bool {
    let p = x.p;
    p.offload_optimizer || (x.setup.task.is_peft() && p.offload_params)
}

/// The offload phase, `None` without any offload. `micro`: one micro-batch's compute;
/// `dp_hidden`: data-parallel communication already hidden behind compute in the step.
pub(super) fn offload_phase(x: &Ctx, micro: Seconds, dp_hidden: Seconds) -> Option<OffloadTime> {
    let setup = x.setup;
    let host_opt = host_optimizer(x);
    if !host_opt && !x.p.offload_params && !setup.activation_offload {
        return None;
    }
    let Some(link) = x.c.gpu.host_link_bandwidth() else {
        return Some(OffloadTime::default());
    };
    let mut o = OffloadTime {
        host_link: Some(link),
        ..OffloadTime::default()
    };
    if host_opt {
        optimizer_transfers(x, link, (micro, dp_hidden), &mut o);
    }
    if x.p.offload_params && x.p.zero >= 3 {
        param_fetches(x, link, (micro, dp_hidden), &mut o);
    }
    if setup.activation_offload {
        activation_transfers(x, link, micro, &mut o);
    }
    o.exposed = o.grads_to_host_exposed
        + o.params_to_device
        + o.param_fetch_exposed
        + o.activations_to_host_exposed
        + o.activations_to_device;
    Some(o)
}

fn secs(bytes: f64, link: Bandwidth) -> Seconds {
    transfer_time(Bytes(bytes), link)
}

/// The optimizer's partition on this device: trainable parameters, over the data-parallel
/// ranks under ZeRO (as `optimizer_seconds` counts them).
fn optimizer_shard(x: &Ctx) -> f64 {
    let on_device = x.dev.total();
    let trainable = if x.setup.task.is_peft() {
        crate::train::peft_trainable_params(x.b, &x.setup.lora) / x.b.total.max(1) as f64
            * on_device
    } else {
        on_device
    };
    if x.setup.parallel.zero >= 1 {
        trainable / x.dp.max(1) as f64
    } else {
        trainable
    }
}

/// ZeRO-Offload: the gradient partition leaves during the last micro-batch's backward on
/// DeepSpeed's reduce stream (only at the accumulation boundary), so it hides behind the
/// backward time the data-parallel reductions leave free; the updated 16-bit partition comes
/// back after the host step, exposed (no delayed parameter update by default). Under parameter
/// offload the updated parameters stay on the host: nothing comes back here.
fn optimizer_transfers(
    x: &Ctx,
    link: Bandwidth,
    (micro, dp_hidden): (Seconds, Seconds),
    o: &mut OffloadTime,
) {
    let shard = optimizer_shard(x);
    // FSDP's CPUOffload (parameter offload outside DeepSpeed) copies the sharded gradient in
    // its stored dtype (FSDP1 `_offload_grad`, FSDP2 `foreach_reduce`), DeepSpeed in fp32.
    let fsdp = x.p.offload_params && !x.setup.zero3_by_deepspeed();
    let per_param = if fsdp {
        crate::train::effective_state_bytes(x.setup).grads
    } else {
        GRAD_TO_HOST_BYTES
    };
    o.grads_to_host = secs(shard * per_param, link);
    let backward = micro * (2.0 / 3.0);
    let free = (backward - dp_hidden * (1.0 / x.m_micro)).max(Seconds(0.0));
    o.grads_to_host_exposed = (o.grads_to_host - free).max(Seconds(0.0));
    if !x.p.offload_params {
        o.params_to_device = secs(shard * PARAM_TO_DEVICE_BYTES, link);
    }
}

/// Parameter offload: each gather first copies the rank's shard host → device, in series with
/// the all-gathers on the same stream (DeepSpeed's fetch, FSDP's unshard), so both share the
/// compute the prefetch hides them behind; what exceeds it is exposed.
fn param_fetches(
    x: &Ctx,
    link: Bandwidth,
    (micro, dp_hidden): (Seconds, Seconds),
    o: &mut OffloadTime,
) {
    let weights = crate::train::effective_state_bytes(x.setup).weights;
    let shard = x.dev.total() / (x.dp * x.p.cp.max(1)).max(1) as f64 * weights;
    let passes = super::gather_passes(x.b, x.setup);
    o.param_fetch = secs(shard * passes * x.m_micro, link);
    let window = micro * x.m_micro;
    let free = (window - dp_hidden).max(Seconds(0.0));
    // The stream's all-gathers take their hidden share of the window first; their own
    // exposure is already in the step (dp_total − dp_hidden).
    o.param_fetch_exposed = (o.param_fetch - free).max(Seconds(0.0));
}

/// Activation offload (torchtune `OffloadActivations`, use_streams): each saved tensor is copied
/// to the host on a second stream during forward (hidden behind the forward), and brought back
/// in backward only when autograd asks for it, the compute stream waiting for the copy
/// (`self.s0.wait_stream(self.s1)`): exposed.
fn activation_transfers(x: &Ctx, link: Bandwidth, micro: Seconds, o: &mut OffloadTime) {
    let Ok(acts) = crate::train::activation_bytes(x.m, x.b, x.setup, x.tun, false) else {
        return;
    };
    let in_flight = x.p.pp.min(x.setup.grad_accum).max(1) as f64;
    let per_micro = acts.offloaded / in_flight;
    let one_way = secs(per_micro, link);
    let forward = micro * (1.0 / 3.0);
    o.activations_to_host = one_way * x.m_micro;
    o.activations_to_host_exposed = (one_way - forward).max(Seconds(0.0)) * x.m_micro;
    o.activations_to_device = one_way * x.m_micro;
}
