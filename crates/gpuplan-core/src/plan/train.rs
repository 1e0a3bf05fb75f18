//! Training search: for each instance type and node count, the parallelism (TP inside a node,
//! PP, DP, ZeRO stage, recompute, micro-batch) that fits memory and is fastest; then time,
//! cost under each billing mode, storage and the constraints.

use super::money::{choose_storage, costs, StorageChoice, StorageNeed, HOURS_PER_MONTH};
use super::{instance_cluster, BillingCost, Binding, Plan, PlanRequest, TrainDetail};
use crate::catalog::{Catalog, Instance};
use crate::constants::Tunables;
use crate::error::CoreError;
use crate::hardware::{ClusterSpec, GpuSpec};
use crate::model::Architecture;
use crate::train::DataPath;
use crate::train::{
    data_path, job_tokens, training_memory, training_step, StepTime, TrainingMemory,
};
use crate::units::Bytes;
use crate::workload::{AttentionImpl, Recompute, TrainTask, TrainingSetup};

/// The best configuration found for one cluster.
#[derive(Clone)]
pub struct Best {
    pub setup: TrainingSetup,
    pub memory: TrainingMemory,
    pub step: StepTime,
}

/// The least memory any configuration needs on this cluster (for "why it does not fit").
#[derive(Clone)]
pub struct Shortfall {
    pub need: Bytes,
    pub have: Bytes,
    pub setup: TrainingSetup,
}

fn node_counts(max: u64) -> Vec<u64> {
    let mut v = vec![1];
    while *v.last().unwrap_or(&1) * 2 <= max.max(1) {
        let n = v.last().copied().unwrap_or(1) * 2;
        v.push(n);
    }
    v
}

/// Write rate assumed for checkpoints when the provider has no storage class in the catalog
/// (bytes/s): 100 MB/s, a single cloud disk's order of magnitude.
const FALLBACK_WRITE_BYTES_PER_S: f64 = 100e6;

/// Scale a step's throughput by `ratio` (< 1) because something outside the GPUs binds.
fn cap_step(step: &mut StepTime, ratio: f64, bottleneck: &'static str) {
    step.tokens_per_second *= ratio;
    step.tokens_per_second_per_gpu *= ratio;
    step.mfu *= ratio;
    step.hfu *= ratio;
    step.step = step.step / ratio;
    step.bottleneck = bottleneck;
}

/// The input path as a constraint: host decode (image models), the nodes' network and the
/// storage class's throughput each cap the samples per second; the storage is sized for the
/// dataset. Returns the storage chosen; caps `step` and says why in `caveats`.
fn input_limits(
    req: &PlanRequest,
    cat: &Catalog,
    inst: &Instance,
    nodes: u64,
    data: &DataPath,
    step: &mut StepTime,
    caveats: &mut Vec<String>,
) -> Option<StorageChoice> {
    let unit = if req.model.transformer().is_some() {
        "tokens/s"
    } else {
        "samples/s"
    };
    // `data` was computed for the uncapped throughput.
    let uncapped = step.tokens_per_second.max(f64::MIN_POSITIVE);
    if let Some(cap) = decode_cap(req, inst, nodes) {
        if cap < step.tokens_per_second {
            caveats.push(format!(
                "host CPUs cap the input pipeline at {:.0} samples/s ({} vCPU × {} nodes × {} img/s/core) below the GPUs' {:.0}: decode on GPU (DALI) or pick more vCPUs",
                cap,
                inst.vcpu.unwrap_or(0),
                nodes,
                req.tunables.image_decode_per_core,
                step.tokens_per_second
            ));
            cap_step(step, cap / step.tokens_per_second, "host-cpu");
        }
    }
    // Read rate after the host cap, in bytes/s over all nodes.
    let demand = data.read_bandwidth.0 * (step.tokens_per_second / uncapped);
    let nic = inst.network_gbit.unwrap_or(ASSUMED_NIC_GBIT) * 1e9 / 8.0 * nodes as f64;
    let need = StorageNeed {
        read: demand.min(nic),
        checkpoint: data.checkpoint_size,
        dataset: data.dataset_size,
    };
    let storage = choose_storage(cat, inst, nodes, &need);
    let storage_bps = storage
        .as_ref()
        .map_or(f64::INFINITY, |s| s.throughput_mbs * 1e6);
    let supply = nic.min(storage_bps);
    if demand > supply * 1.001 && demand > 0.0 {
        let (what, limit) = if storage_bps < nic {
            ("input", "the storage class")
        } else {
            ("network", "the nodes' network")
        };
        caveats.push(format!(
            "{limit} delivers {} of the {} the GPUs could read: input-bound at {:.0} {unit}",
            crate::units::Bandwidth(supply),
            crate::units::Bandwidth(demand),
            step.tokens_per_second * supply / demand
        ));
        cap_step(step, supply / demand, what);
    }
    storage
}

/// Network bandwidth assumed when a type's is not documented, Gbit/s (as in `instance_cluster`).
const ASSUMED_NIC_GBIT: f64 = 10.0;

/// Hours the job stalls writing checkpoints: one every `checkpoint_interval_hours`, each
/// stalling for its write time × `checkpoint_stall_fraction`.
fn checkpoint_stall_hours(compute_hours: f64, write_s: f64, tun: &Tunables) -> f64 {
    let n = (compute_hours / tun.checkpoint_interval_hours).floor();
    n * write_s * tun.checkpoint_stall_fraction / 3600.0
}

/// Add the storage rented for the job's duration to every billing mode's total.
fn add_storage_cost(
    s: &mut StorageChoice,
    costs_v: &mut [BillingCost],
    chosen: &mut Option<BillingCost>,
) {
    let Some(monthly) = s.monthly_cny else {
        return;
    };
    for c in costs_v.iter_mut().chain(chosen.iter_mut()) {
        c.cny += monthly * c.hours / HOURS_PER_MONTH;
    }
    s.job_cny = chosen.as_ref().map(|c| monthly * c.hours / HOURS_PER_MONTH);
}

/// Search one cluster. Returns the fastest fitting configuration, or the smallest shortfall.
pub fn best_config(
    req: &PlanRequest,
    base: &TrainingSetup,
    global_batch: u64,
    c: &ClusterSpec,
    evaluated: &mut u64,
) -> Result<Best, Box<Shortfall>> {
    let m = &req.model;
    let tun = &req.tunables;
    let total = c.total_gpus();
    let (heads, layers, experts) = match &m.architecture {
        Architecture::Transformer(t) => (
            t.heads,
            t.total_layers(),
            t.moe.map(|e| e.experts).unwrap_or(1),
        ),
        Architecture::Opaque(_) => (1, 1, 1),
    };
    // Model parallelism is what Megatron-style stacks do (and what pretraining uses); HF Trainer /
    // PEFT jobs shard with ZeRO/FSDP only. TP stays inside a node and on NVLink-class links.
    let model_parallel =
        base.framework == crate::workload::Framework::Megatron || base.task == TrainTask::Pretrain;
    let nvlink = c.gpu.intra_link.is_nvlink_class() && c.intra_bandwidth.gb_per_s() > 64.0;
    let tps: Vec<u64> = [1, 2, 4, 8]
        .into_iter()
        .filter(|tp| {
            *tp == 1
                || (model_parallel && nvlink && *tp <= c.gpus_per_node && heads.is_multiple_of(*tp))
        })
        .collect();
    let pps: Vec<u64> = [1, 2, 4, 8, 16]
        .into_iter()
        .filter(|pp| *pp == 1 || (model_parallel && layers.is_multiple_of(*pp)))
        .collect();
    // Context parallelism for long sequences (issue 10): ring attention over up to 8 ranks when a
    // sequence is at least 32k tokens, where activations of a whole sequence crowd one device.
    let cps: Vec<u64> = match m.architecture {
        Architecture::Transformer(_) if base.seq_len >= 32_768 => [1, 2, 4, 8]
            .into_iter()
            .filter(|cp| base.seq_len.is_multiple_of(*cp))
            .collect(),
        _ => vec![1],
    };
    let mbs: &[u64] = match m.architecture {
        Architecture::Transformer(_) => &[1, 2, 4, 8, 16],
        Architecture::Opaque(_) => &[1, 2, 4, 8, 16, 32, 64, 128, 256],
    };
    let rcs: Vec<Recompute> = if base.attention == AttentionImpl::Eager {
        vec![Recompute::None, Recompute::Selective, Recompute::Full]
    } else {
        vec![Recompute::None, Recompute::Full]
    };
    let gpu_mem = c.gpu.memory().unwrap_or(Bytes(0.0));
    let mut best: Option<Best> = None;
    let mut least: Option<Shortfall> = None;
    for &tp in &tps {
        for (&pp, &cp) in pps.iter().flat_map(|p| cps.iter().map(move |c| (p, c))) {
            let mp = tp * pp * cp;
            if mp > total || !total.is_multiple_of(mp) {
                continue;
            }
            let dp = total / mp;
            let zeros: Vec<u8> = if dp == 1 {
                vec![0]
            } else if base.task.is_peft() {
                vec![0, 3]
            } else {
                vec![1, 2, 3]
            };
            // Expert parallelism for MoE models: experts split over up to dp × tp ranks, for every
            // task and profile (DeepSpeed-MoE, Megatron-Core, torchtitan and Megatron-based LoRA
            // stacks run EP); without it ZeRO-3 gathers every expert each micro-batch.
            let eps: Vec<u64> = [1, 2, 4, 8, 16, 32, 64]
                .into_iter()
                .filter(|ep| {
                    *ep == 1 || (experts.is_multiple_of(*ep) && (dp * tp).is_multiple_of(*ep))
                })
                .collect();
            for (&ep, &zero) in eps.iter().flat_map(|e| zeros.iter().map(move |z| (e, z))) {
                for &rc in &rcs {
                    let mut fit: Option<(TrainingSetup, TrainingMemory)> = None;
                    for &mb in mbs {
                        // Keep the user's global batch: micro-batch × DP may not exceed it.
                        if mb > 1 && mb * dp > global_batch.max(dp) {
                            break;
                        }
                        let mut s = base.clone();
                        s.parallel.tp = tp;
                        s.parallel.pp = pp;
                        s.parallel.zero = zero;
                        s.parallel.ep = ep;
                        s.parallel.sequence_parallel =
                            tp > 1 && base.framework == crate::workload::Framework::Megatron;
                        s.parallel.cp = cp;
                        propose_overlap(&mut s, layers);
                        s.recompute = rc;
                        s.micro_batch = mb;
                        s.grad_accum = global_batch.div_ceil(mb * dp).max(1);
                        *evaluated += 1;
                        let Ok(mem) = training_memory(m, &s, c, tun) else {
                            break;
                        };
                        if mem.device_total.0 <= gpu_mem.0 {
                            fit = Some((s, mem));
                        } else {
                            if least.as_ref().is_none_or(|l| mem.device_total.0 < l.need.0) {
                                least = Some(Shortfall {
                                    need: mem.device_total,
                                    have: gpu_mem,
                                    setup: s,
                                });
                            }
                            break;
                        }
                    }
                    if let Some((s, mem)) = fit {
                        let Ok(step) = training_step(m, &s, c, tun) else {
                            continue;
                        };
                        let better = best.as_ref().is_none_or(|b| {
                            step.tokens_per_second > b.step.tokens_per_second * 1.0001
                        });
                        if better {
                            best = Some(Best {
                                setup: s,
                                memory: mem,
                                step,
                            });
                        }
                    }
                }
            }
        }
    }
    best.ok_or_else(|| {
        Box::new(least.unwrap_or(Shortfall {
            need: Bytes(f64::INFINITY),
            have: gpu_mem,
            setup: base.clone(),
        }))
    })
}

/// Schedule and overlap options the search proposes for Megatron-Core where they help and the
/// user left them unset (issue 10): the interleaved 1F1B schedule with 2 virtual stages when
/// the layers split evenly into pp × 2 chunks (a smaller bubble), and the DP/TP communication
/// overlaps NeMo's recipes switch on (`overlap_grad_reduce`, `overlap_param_gather`,
/// `tp_comm_overlap`); other frameworks keep their defaults.
fn propose_overlap(s: &mut TrainingSetup, layers: u64) {
    if s.framework != crate::workload::Framework::Megatron {
        return;
    }
    let p = &mut s.parallel;
    if p.pp > 1 && p.virtual_stages == 1 && layers.is_multiple_of(p.pp * 2) {
        p.virtual_stages = 2;
    }
    p.overlap_grad_reduce = p.overlap_grad_reduce.or(Some(true));
    p.overlap_param_gather = p.overlap_param_gather.or(Some(true));
    if p.tp > 1 {
        p.tp_comm_overlap = p.tp_comm_overlap.or(Some(true));
    }
}

/// What the chosen configuration asks of the training stack.
fn stack_caveats(s: &TrainingSetup) -> Vec<String> {
    let mut v = Vec::new();
    if s.parallel.ep > 1 && s.framework == crate::workload::Framework::HuggingFace {
        v.push(format!(
            "expert parallelism (EP {}) needs an MoE-aware stack: DeepSpeed-MoE, Megatron-Core or torchtitan (LoRA: a Megatron-based trainer such as ms-swift's Megatron backend); HF Trainer with FSDP alone gathers every expert",
            s.parallel.ep
        ));
    }
    v
}

fn default_global_batch(setup: &TrainingSetup, is_opaque: bool) -> u64 {
    match (setup.task, is_opaque) {
        (_, true) => 1024,
        (TrainTask::Pretrain, false) => 1024,
        _ => 64,
    }
}

/// Host decode capacity for image models: samples/s the CPUs can prepare.
fn decode_cap(req: &PlanRequest, inst: &Instance, nodes: u64) -> Option<f64> {
    let image = matches!(&req.model.architecture, Architecture::Opaque(o) if o.model_type == "resnet")
        || req.model.model_type() == "vit";
    if !image {
        return None;
    }
    inst.vcpu
        .map(|v| v as f64 * nodes as f64 * req.tunables.image_decode_per_core)
}

/// A training job as the planner receives it.
pub struct TrainJob<'a> {
    pub setup: &'a TrainingSetup,
    pub global_batch: Option<u64>,
    /// The user chose the precision: chips without it are skipped, not switched.
    pub precision_pinned: bool,
}

/// Chips the job's pinned precision (or attention) cannot run on, with the reason, once each.
fn reject_chips(skipped: &[(String, String)], rejected: &mut Vec<Binding>) {
    let mut seen: Vec<&str> = Vec::new();
    for (gpu, why) in skipped {
        if seen.contains(&gpu.as_str()) {
            continue;
        }
        seen.push(gpu);
        rejected.push(Binding {
            constraint: "precision",
            message_en: format!("{gpu} skipped: {why}"),
            message_zh: format!("{gpu} 已跳过：该芯片不支持所选精度或注意力实现（{why}）"),
        });
    }
}

/// Search results per (cluster, setup): instance types of different providers and regions with
/// the same GPU, node shape and links give the same configurations, so each is searched once.
type Memo = std::collections::HashMap<String, (Result<Best, Box<Shortfall>>, u64)>;

/// `best_config`, computed once per distinct cluster and setup; the count of configurations is
/// reported as if searched again, so the plan's "configurations evaluated" does not change.
fn cached_best(
    memo: &mut Memo,
    req: &PlanRequest,
    setup: &TrainingSetup,
    gb: u64,
    cluster: &ClusterSpec,
) -> (Result<Best, Box<Shortfall>>, u64) {
    let key = format!("{cluster:?}|{setup:?}|{gb}");
    if let Some((found, n)) = memo.get(&key) {
        return (found.clone(), *n);
    }
    let mut evaluated = 0;
    let found = best_config(req, setup, gb, cluster, &mut evaluated);
    memo.insert(key, (found.clone(), evaluated));
    (found, evaluated)
}

pub fn search(
    req: &PlanRequest,
    job: &TrainJob,
    cands: &[(&Instance, &GpuSpec)],
    cat: &Catalog,
    rejected: &mut Vec<Binding>,
) -> Result<(Vec<Plan>, u64), CoreError> {
    let (setup, global_batch) = (job.setup, job.global_batch);
    setup.validate()?;
    let tokens = job_tokens(&req.model, setup).ok_or_else(|| {
        CoreError::invalid(
            "training.tokens",
            "(missing)",
            "say how much data: --tokens N, or --samples N with --epochs E",
        )
    })?;
    let is_opaque = req.model.transformer().is_none();
    let gb = global_batch.unwrap_or_else(|| default_global_batch(setup, is_opaque));
    let mut plans = Vec::new();
    let mut evaluated_total = 0u64;
    let mut closest_fail: Option<(String, Box<Shortfall>)> = None;
    let mut fastest_over_deadline: Option<(String, f64)> = None;
    let mut cheapest_over_budget: Option<(String, f64, Option<f64>)> = None;
    let mut unpriced = 0usize;
    let mut any_fit = false;
    let c = &req.constraints;
    let mut skipped_chips: Vec<(String, String)> = Vec::new();
    let mut memo = Memo::new();
    for (inst, gpu) in cands {
        let (chip_setup, chip_notes) = crate::chip::adapt(
            &req.model,
            setup,
            gpu,
            crate::chip::Pinned {
                precision: job.precision_pinned,
                attention: false,
            },
        );
        if let Err(e) = crate::chip::check_support(&req.model, &chip_setup, gpu) {
            skipped_chips.push((gpu.id.clone(), e.to_string()));
            continue;
        }
        let setup = &chip_setup;
        for nodes in node_counts(c.max_nodes) {
            let Ok((cluster, assumed)) = instance_cluster(inst, gpu, nodes) else {
                continue;
            };
            let (found, evaluated) = cached_best(&mut memo, req, setup, gb, &cluster);
            let best = match found {
                Ok(b) => b,
                Err(short) => {
                    evaluated_total += evaluated;
                    if closest_fail
                        .as_ref()
                        .is_none_or(|(_, s)| short.need.0 / short.have.0 < s.need.0 / s.have.0)
                    {
                        closest_fail = Some((format!("{} × {}", nodes, inst.id), short));
                    }
                    continue;
                }
            };
            evaluated_total += evaluated;
            any_fit = true;
            let mut step = best.step;
            let network_assumed = assumed.clone();
            let mut caveats: Vec<String> = assumed.into_iter().collect();
            caveats.extend(chip_notes.iter().cloned());
            caveats.extend(stack_caveats(&best.setup));
            if let Some(act) = best
                .memory
                .items
                .iter()
                .find(|x| x.name == "activations" && x.basis.starts_with("UNKNOWN"))
            {
                caveats.push(format!(
                    "memory is a lower bound: {}",
                    act.basis.trim_start_matches("UNKNOWN: ")
                ));
            }
            if req.model.transformer().is_none() {
                caveats.push(format!(
                    "throughput uses {} = {:.0}% of peak (convolutional/UNet training reaches far less than transformer GEMMs); measure the first epoch",
                    step.efficiency_name,
                    step.efficiency_used * 100.0
                ));
            }
            // What the GPUs demand from the input pipeline (before any cap).
            let data = data_path(&req.model, &best.setup, &step, &req.tunables);
            let storage = input_limits(req, cat, inst, nodes, &data, &mut step, &mut caveats);
            // What the pipeline then really reads, at the capped rate.
            let data = data_path(&req.model, &best.setup, &step, &req.tunables);
            let compute_hours = tokens / step.tokens_per_second / 3600.0;
            let write_s = storage
                .as_ref()
                .map(|s| s.checkpoint_write_s)
                .unwrap_or(data.checkpoint_size.0 / FALLBACK_WRITE_BYTES_PER_S);
            let stall_h = checkpoint_stall_hours(compute_hours, write_s, &req.tunables);
            let hours = compute_hours + stall_h + req.tunables.startup_hours;
            let (mut costs_v, mut chosen, spot) = costs(
                cat,
                inst,
                nodes,
                hours,
                c,
                &req.tunables,
                Some((
                    data.checkpoint_size,
                    data.checkpoint_size.0 / write_s.max(1e-9),
                )),
            );
            let storage = storage.map(|mut s| {
                add_storage_cost(&mut s, &mut costs_v, &mut chosen);
                s
            });
            if let Some(d) = c.deadline_hours {
                if hours > d {
                    if fastest_over_deadline
                        .as_ref()
                        .is_none_or(|(_, h)| hours < *h)
                    {
                        fastest_over_deadline = Some((format!("{nodes} × {}", inst.id), hours));
                    }
                    continue;
                }
            }
            if c.budget_cny.is_some() && chosen.is_none() {
                unpriced += 1;
                continue;
            }
            if let (Some(b), Some(ch)) = (c.budget_cny, &chosen) {
                if ch.cny > b {
                    let spot_cost = costs_v
                        .iter()
                        .find(|x| x.billing == crate::catalog::Billing::Spot)
                        .map(|x| x.cny);
                    if cheapest_over_budget
                        .as_ref()
                        .is_none_or(|(_, x, _)| ch.cny < *x)
                    {
                        cheapest_over_budget =
                            Some((format!("{nodes} × {}", inst.id), ch.cny, spot_cost));
                    }
                    continue;
                }
            }
            let total_gpus = cluster.total_gpus() as f64;
            plans.push(Plan {
                instance: (*inst).clone(),
                gpu: (*gpu).clone(),
                nodes,
                total_gpus,
                cluster,
                network_assumed,
                train: Some(TrainDetail {
                    setup: best.setup,
                    memory: best.memory,
                    step,
                    data,
                    storage,
                    spot,
                    evaluated,
                }),
                serve: None,
                hours: chosen.as_ref().map(|x| x.hours).unwrap_or(hours),
                costs: costs_v,
                chosen,
                caveats,
                advice: Vec::new(),
                also: Vec::new(),
            });
        }
    }
    reject_chips(&skipped_chips, rejected);
    if unpriced > 0 {
        rejected.push(Binding {
            constraint: "budget",
            message_en: format!("{unpriced} plan(s) on types with no known price were left out: they cannot be checked against the budget (import prices with `gpuplan catalog import`)"),
            message_zh: format!("{unpriced} 个方案的规格没有已知价格，无法核对预算，已排除（可用 gpuplan catalog import 导入价格）"),
        });
    }
    if plans.is_empty() {
        if let Some((what, s)) = closest_fail.filter(|_| !any_fit) {
            rejected.push(Binding {
                constraint: "memory",
                message_en: format!(
                    "no configuration fits memory: the closest, {what} with TP {} PP {} ZeRO-{} {:?} recompute at micro-batch {}, needs {:.1} GiB per GPU of {:.0} GiB",
                    s.setup.parallel.tp, s.setup.parallel.pp, s.setup.parallel.zero, s.setup.recompute, s.setup.micro_batch, s.need.gib(), s.have.gib()
                ),
                message_zh: format!("没有任何配置能放进显存：最接近的 {what}（TP {} PP {} ZeRO-{}）每卡需要 {:.1} GiB，可用 {:.0} GiB", s.setup.parallel.tp, s.setup.parallel.pp, s.setup.parallel.zero, s.need.gib(), s.have.gib()),
            });
        }
        if let (Some((what, h)), Some(d)) = (fastest_over_deadline, c.deadline_hours) {
            rejected.push(Binding {
                constraint: "deadline",
                message_en: format!("the fastest plan, {what}, takes {h:.1} h, over the {d:.1} h deadline by {:.1} h: allow more nodes (--max-nodes) or more time", h - d),
                message_zh: format!("最快的方案 {what} 需要 {h:.1} 小时，超出 {d:.1} 小时的期限 {:.1} 小时：放宽节点数（--max-nodes）或期限", h - d),
            });
        }
        if let (Some((what, x, spot)), Some(b)) = (cheapest_over_budget, c.budget_cny) {
            rejected.push(Binding {
                constraint: "budget",
                message_en: format!(
                    "cheapest plan {what} costs ¥{x:.0}, over the ¥{b:.0} budget by ¥{:.0}{}",
                    x - b,
                    spot.map(|s| format!("; with spot (if the job tolerates interruption: --interruptible) it is ¥{s:.0}")).unwrap_or_default()
                ),
                message_zh: format!(
                    "最便宜的方案 {what} 需 ¥{x:.0}，超出预算 ¥{b:.0} 共 ¥{:.0}{}",
                    x - b,
                    spot.map(|s| format!("；若任务可中断，使用抢占式实例约 ¥{s:.0}")).unwrap_or_default()
                ),
            });
        }
    }
    Ok((plans, evaluated_total))
}

/// Memory of the most frugal single-GPU configuration on this chip, to explain why a plan needs
/// more than one GPU.
pub fn single_gpu_need(req: &PlanRequest, setup: &TrainingSetup, gpu: &GpuSpec) -> Option<Bytes> {
    let c = ClusterSpec::new(
        gpu,
        1,
        1,
        crate::hardware::InterLink::Tcp,
        crate::units::Bandwidth::from_gbit_per_s(10.0),
    )
    .ok()?;
    let mut s = setup.clone();
    s.parallel = Default::default();
    s.recompute = Recompute::Full;
    s.micro_batch = 1;
    training_memory(&req.model, &s, &c, &req.tunables)
        .ok()
        .map(|m| m.device_total)
}
