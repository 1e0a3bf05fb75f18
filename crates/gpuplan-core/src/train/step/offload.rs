//! Host offload's share of the step: what crosses the GPU's PCIe link to the host and how much
//! of it compute hides (docs/methodology.md §Step time, "Host offload"), and the host CPU's
//! optimizer step where its cores are known (the launcher's thread cap, or `[hardware]
//! host_vcpus`): the rank's partition over its cores at a per-core rate measured on a server CPU
//! (validation/host-adam-measured.json). No host memory bandwidth is in the catalog, so cores are
//! taken to scale without a bandwidth ceiling: the host step is a floor. Where the cores are not
//! known the host step is not timed and the step keeps the device's bandwidth-bound optimizer
//! time in its place (a floor as well).

use super::Ctx;
use crate::units::{transfer_time, Bandwidth, Bytes, Seconds};
use serde::Serialize;

/// Bytes per parameter of the gradient partition DeepSpeed copies to the host: fp32
/// (`fp32_grad_tensor.copy_(grad_buffer.to(dtype=self.master_weights_and_grads_dtype))`,
/// deepspeed/runtime/zero/stage3.py @007cca6a `partition_grads`, converted on the device).
const GRAD_TO_HOST_BYTES: f64 = 4.0;
/// Bytes per parameter of the updated 16-bit parameter partition copied back to the device.
const PARAM_TO_DEVICE_BYTES: f64 = 2.0;

/// vCPUs per physical core: a cloud vCPU is one hyper-thread, two per core on the x86 instances
/// GPU hosts use (AWS EC2 User Guide, "CPU options": "Each thread is represented as a virtual CPU
/// (vCPU) on the instance ... an m5.xlarge instance type has two CPU cores and two threads per
/// core by default—four vCPUs in total"). AdamW is memory-bound: the second thread of a core is
/// not counted as a core.
const VCPUS_PER_CORE: f64 = 2.0;
/// Parameters one physical core steps per second, DeepSpeedCPUAdam (AVX512 build, adamw_mode)
/// over fp32 master parameters, fp32 gradients and fp32 states (DeepSpeed 0.19.8; the 16-bit copy
/// is cast on the device, not timed here): `ds_cpuadam_fp32@1t`, 1.030e9, the median of 5 steps
/// over 64M parameters by process CPU time (validation/host-adam-measured.json: Intel Xeon,
/// family 6 model 207, AVX-512, tools/measure_host_adam.py). A rate of this VM's core, taken
/// for the hosts of published runs whose CPU is not stated: an assumption.
const DS_CPU_ADAM_PER_CORE: f64 = 1.030e9;
/// torch.optim.AdamW(fused=True) on CPU tensors, per core, fp32 parameters, gradients and
/// states (`torch_fused_fp32@1t`, 0.918e9, same file and statistic).
const TORCH_FUSED_FP32_PER_CORE: f64 = 0.918e9;
/// The same with bf16 parameters, gradients and states (pure bf16: torchtune's `dtype: bf16`
/// makes the states as `zeros_like(param)`): `torch_fused_bf16@1t`, 1.264e9.
const TORCH_FUSED_BF16_PER_CORE: f64 = 1.264e9;
/// torch.optim.AdamW(foreach=True) on CPU tensors, per core, fp32 (`torch_foreach_fp32@1t`,
/// 0.2194e9, same file and statistic): the rate under `optimizer_foreach`. With no `foreach`
/// or `fused` argument torch steps CPU tensors one by one (`torch_default_fp32@1t`, 0.243e9, 11%
/// faster); no bf16 foreach rate was measured, so pure bf16 under foreach is left untimed.
const TORCH_FOREACH_FP32_PER_CORE: f64 = 0.2194e9;

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
    /// The host CPU's optimizer step over this rank's partition, on the critical path between
    /// backward and the copy back (no delayed update); `None`: the host's vCPUs are not known.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub host_step: Option<HostStep>,
    /// What the step pays: the sum of the exposed parts.
    pub exposed: Seconds,
}

/// The host optimizer step of one rank.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct HostStep {
    /// `deepspeed_cpu_adam` or `torch_adamw_fused`.
    pub implementation: &'static str,
    /// Physical cores this rank's optimizer runs on (`host_cores`).
    pub cores: f64,
    /// Parameters this rank's optimizer steps on the host.
    pub params: f64,
    pub seconds: Seconds,
    /// What the step pays beyond the device-optimizer time already in the step's compute.
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
/// `optimizer`: the device optimizer time the step's compute already holds.
pub(super) fn offload_phase(
    x: &Ctx,
    (micro, dp_hidden): (Seconds, Seconds),
    optimizer: Seconds,
) -> Option<OffloadTime> {
    let setup = x.setup;
    let host_opt = host_optimizer(x);
    if !host_opt && !x.p.offload_params && !setup.activation_offload {
        return None;
    }
    let host_step = host_opt.then(|| host_step(x, optimizer)).flatten();
    let Some(link) = x.c.gpu.host_link_bandwidth() else {
        let exposed = host_step.as_ref().map_or(Seconds(0.0), |h| h.exposed);
        return Some(OffloadTime {
            host_step,
            exposed,
            ..OffloadTime::default()
        });
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
    if let Some(h) = host_step {
        o.exposed += h.exposed;
        o.host_step = Some(h);
    }
    Some(o)
}

/// The host optimizer step, `None` where its cores or its rate are not known. FSDP's CPU
/// offload (parameter offload outside DeepSpeed) steps with torch's AdamW (fused, as torchtune's
/// CPU-offload rows state, or foreach under `optimizer_foreach`), DeepSpeed with
/// DeepSpeedCPUAdam; it replaces the device step the compute holds, so what exceeds that is
/// exposed. Only AdamW's rates were measured, on x86: other optimizers and non-x86 hosts are
/// not timed.
fn host_step(x: &Ctx, optimizer: Seconds) -> Option<HostStep> {
    if x.setup.optimizer != crate::workload::Optimizer::AdamW || x.c.host_not_x86 {
        return None;
    }
    let torch = x.p.offload_params && !x.setup.zero3_by_deepspeed();
    let cores = host_cores(x, torch)?;
    let (implementation, rate) = host_rate(x, torch)?;
    let params = optimizer_shard(x);
    let seconds = Seconds(params / (cores * rate));
    Some(HostStep {
        implementation,
        cores,
        params,
        seconds,
        exposed: (seconds - optimizer).max(Seconds(0.0)),
    })
}

/// The implementation and its per-core rate; `None` where none was measured.
fn host_rate(x: &Ctx, torch: bool) -> Option<(&'static str, f64)> {
    use crate::workload::Precision::PureBf16;
    Some(
        match (torch, x.setup.optimizer_foreach, x.setup.precision) {
            (false, _, _) => ("deepspeed_cpu_adam", DS_CPU_ADAM_PER_CORE),
            (true, true, PureBf16) => return None,
            (true, true, _) => ("torch_adamw_foreach", TORCH_FOREACH_FP32_PER_CORE),
            (true, false, PureBf16) => ("torch_adamw_fused", TORCH_FUSED_BF16_PER_CORE),
            (true, false, _) => ("torch_adamw_fused", TORCH_FUSED_FP32_PER_CORE),
        },
    )
}

/// Physical cores one rank's optimizer runs on. The node's ranks share its cores evenly
/// (`host_vcpus` ÷ [`VCPUS_PER_CORE`] ÷ GPUs per node). torch's launchers cap each process at
/// one thread with more than one process per node: torchrun sets `OMP_NUM_THREADS=1` where it is
/// unset and `nproc_per_node > 1` (torch/distributed/run.py, torch 2.15.0 l.980-992: "Setting
/// OMP_NUM_THREADS environment variable for each process to be 1 in default"; accelerate's
/// launch, `num_cpu_threads_per_process` defaulting to 1, does the same), so a torch rank gets
/// one core even where the host's vCPUs are not known. torchtune's distributed recipes under
/// `fsdp_cpu_offload` override it (`fsdp_offload_all_cores`): `training.set_torch_num_threads()`
/// gives each rank `os.cpu_count() // torch.cuda.device_count()` threads (torchtune
/// torchtune/training/_distributed.py @bd2a0fc7c; @30b8519e8 divided by the world size, the same
/// on one node), the rank's share of the host: it needs `host_vcpus`. DeepSpeed's launcher sets
/// the thread count only under `--bind_cores_to_rank` (deepspeed/launcher/launch.py 0.19.8
/// l.219-221), else each rank's OpenMP spans the host: its share needs `host_vcpus`.
fn host_cores(x: &Ctx, torch_launch: bool) -> Option<f64> {
    let ranks = x.c.gpus_per_node.max(1);
    let share =
        x.c.host_vcpus
            .map(|v| (v as f64 / VCPUS_PER_CORE / ranks as f64).max(f64::MIN_POSITIVE));
    if torch_launch && x.p.fsdp_offload_all_cores {
        // `os.cpu_count() // ranks` threads, on no more than the rank's share of the cores.
        let threads = |v: u64| (v / ranks).max(1) as f64;
        return x
            .c
            .host_vcpus
            .zip(share)
            .map(|(v, s)| (threads(v) / VCPUS_PER_CORE).min(s));
    }
    match (torch_launch && ranks > 1, share) {
        (true, Some(s)) => Some(s.min(1.0)),
        (true, None) => Some(1.0),
        (false, s) => s,
    }
}

fn secs(bytes: f64, link: Bandwidth) -> Seconds {
    transfer_time(Bytes(bytes), link)
}

/// The optimizer's partition on this device: trainable parameters, over the data-parallel
/// ranks under ZeRO (as `optimizer_seconds` counts them).
fn optimizer_shard(x: &Ctx) -> f64 {
    let trainable = crate::train::trainable_of(x.b, x.setup, x.dev.total());
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
