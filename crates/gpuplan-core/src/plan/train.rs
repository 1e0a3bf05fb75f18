//! Training search: for each instance type and node count, the parallelism (TP inside a node,
//! PP, DP, ZeRO stage, recompute, micro-batch) that fits memory and is fastest; then time,
//! cost under each billing mode, storage and the constraints.

use super::money::{
    choose_storage, costs, costs_at, Checkpointing, InstancePrices, StorageChoice, StorageNeed,
    HOURS_PER_MONTH,
};
use super::{
    instance_cluster, BillingCost, Binding, Plan, PlanRequest, SearchMode, SearchWork, TrainDetail,
};
use crate::catalog::{Catalog, Instance};
use crate::compute::memo::ComputeMemo;
use crate::constants::Tunables;
use crate::error::CoreError;
use crate::hardware::{ClusterSpec, GpuSpec};
use crate::i18n::{Msg, Text};
use crate::model::Architecture;
use crate::pipeline::uneven_last_stage;
use crate::train::DataPath;
use crate::train::{
    bind_host_cap, cap_step, comm_buffer_bytes, data_path, host_decode_cap, job_tokens,
    same_comm_buffers, training_memory, training_memory_lean, training_memory_need,
    training_step_lean, training_step_validated, StepPrologue, StepTime, TrainingMemory,
};
use crate::units::Bytes;
use crate::workload::{AttentionImpl, Framework, Recompute, TrainTask, TrainingSetup};

/// The best configuration found for one cluster.
#[derive(Clone)]
pub struct Best {
    pub setup: TrainingSetup,
    /// Explained in full once per rung and memory pass, shared by every plan it answers.
    pub memory: std::sync::Arc<TrainingMemory>,
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
pub(crate) const FALLBACK_WRITE_BYTES_PER_S: f64 = 100e6;

/// The input path as a constraint: host decode (image models), the nodes' network and the
/// storage class's throughput each cap the samples per second; the storage is sized for the
/// dataset. Returns the storage chosen; caps `step` and says why in `caveats`.
fn input_limits(
    req: &PlanRequest,
    cat: &Catalog,
    inst: &Instance,
    nodes: u64,
    (data, writes): (&DataPath, WriteCost),
    step: &mut StepTime,
    caveats: &mut Vec<Text>,
) -> Option<StorageChoice> {
    let unit = if req.model.transformer().is_some() {
        "tokens"
    } else {
        "samples"
    };
    // `data` was computed for the uncapped throughput.
    let uncapped = step.tokens_per_second.max(f64::MIN_POSITIVE);
    // The estimator's ceiling (`host_vcpus`), here with the instance's catalog vCPUs; compared
    // in samples (`data` holds the uncapped rate).
    let demand = data.samples_per_second;
    let vcpus = inst.vcpu.map(u64::from);
    if let Some(cap) = host_decode_cap(&req.model, vcpus, nodes, &req.tunables)
        .and_then(|cap| bind_host_cap(step, cap, demand))
    {
        caveats.push(
            Msg::new("cav-host-cpu-cap")
                .arg("cap", format!("{cap:.0}"))
                .arg("vcpu", inst.vcpu.unwrap_or(0))
                .arg("nodes", nodes)
                .arg("per_core", req.tunables.image_decode_per_core)
                .arg("gpus", format!("{demand:.0}"))
                .into(),
        );
    }
    // Read rate after the host cap, in bytes/s over all nodes.
    let demand = data.read_bandwidth.0 * (step.tokens_per_second / uncapped);
    let nic = inst.network_gbit.unwrap_or(ASSUMED_NIC_GBIT) * 1e9 / 8.0 * nodes as f64;
    let need = StorageNeed {
        read: demand.min(nic),
        checkpoint: data.checkpoint_size,
        dataset: data.dataset_size,
        nic,
        hours: writes.hours,
        stall_cny_per_write_s: writes.cny_per_write_s,
        nodes,
    };
    let storage = choose_storage(cat, inst, nodes, &need);
    let storage_bps = storage
        .as_ref()
        .map_or(f64::INFINITY, |s| s.throughput_mbs * 1e6);
    let supply = nic.min(storage_bps);
    if demand > supply * 1.001 && demand > 0.0 {
        let what = if storage_bps < nic {
            "input"
        } else {
            "network"
        };
        caveats.push(
            Msg::new("cav-input-bound")
                .arg("limit", what)
                .arg("supply", crate::units::Bandwidth(supply).to_string())
                .arg("demand", crate::units::Bandwidth(demand).to_string())
                .arg(
                    "rate",
                    format!("{:.0}", step.tokens_per_second * supply / demand),
                )
                .arg("unit", unit)
                .into(),
        );
        cap_step(step, supply / demand, what);
    }
    storage
}

/// Network bandwidth assumed when a type's is not documented, Gbit/s (as in `instance_cluster`).
const ASSUMED_NIC_GBIT: f64 = 10.0;

/// What a checkpoint's write time costs the job, for the storage choice: the compute hours the
/// storage is rented for and the GPU money one second of write time stalls over the whole job.
#[derive(Clone, Copy)]
struct WriteCost {
    hours: f64,
    cny_per_write_s: f64,
}

impl WriteCost {
    /// `compute_hours` of steps on the cluster priced `prices` (or the catalog's): what one more
    /// second of checkpoint write costs the job at the billing it will be charged (review r7 #1:
    /// spot included, whose row only exists with a checkpoint, at spot's own Daly interval).
    /// Where spot is the billing chosen: the chord of its total between a write at the NICs'
    /// rate w and 2w, each with its own stall hours and Daly overhead. Otherwise the chosen
    /// billing's average price per hour × the stall hours one second adds (0 where unpriced).
    fn of(
        req: &PlanRequest,
        (cat, inst, nodes): (&Catalog, &Instance, u64),
        prices: Option<&InstancePrices>,
        (compute_hours, data, gpus): (f64, &DataPath, f64),
    ) -> WriteCost {
        let c = &req.constraints;
        let tun = &req.tunables;
        // The exhaustive reference search prices no site ahead (`site_outcomes`): price it here
        // as the shared search does, so both value a write second the same way (plan audit r22:
        // with the interval following the write, the chord and the average price now differ).
        let own;
        let prices = match prices {
            Some(p) => Some(p),
            None => {
                own = InstancePrices::of(cat, inst, c, tun, true);
                Some(&own)
            }
        };
        let nic = inst.network_gbit.unwrap_or(ASSUMED_NIC_GBIT) * 1e9 / 8.0 * nodes as f64;
        let w = data.checkpoint_size.0 / nic;
        let total = |p: &InstancePrices, w: f64| {
            let interval = checkpoint_interval_s(compute_hours, w, gpus, tun);
            let stall_h = checkpoint_stall_hours(compute_hours, w, interval, tun);
            let paid = stall_h / compute_hours.max(1e-12);
            let ck = checkpointing(data, (w, paid, interval), gpus, tun);
            let hours = compute_hours + stall_h + tun.startup_hours;
            super::money::costs_at_lean(p, nodes, hours, c, Some(ck)).1
        };
        // Spot only: its hours grow with the write through Daly's overhead. A subscription's
        // total is flat inside a month (a zero chord), so the others keep the average price.
        let spot = |p: &InstancePrices, w: f64| {
            total(p, w)
                .filter(|x| x.billing == crate::catalog::Billing::Spot)
                .map(|x| x.cny)
        };
        // Spot is chosen only for an interruptible job of a type with a spot price (`choose`
        // allows spot rows only then, and only `spot_row` makes one): otherwise no chord, and
        // the two costings are not made (tested: `spot_is_chosen_only_when_allowed_and_priced`).
        let spot_chosen = |p: &&InstancePrices| c.interruptible && p.has_spot();
        let chord = prices.filter(spot_chosen).and_then(|p| {
            let (a, b) = (spot(p, w)?, spot(p, 2.0 * w)?);
            (w > 0.0 && b.is_finite()).then(|| ((b - a) / w).max(0.0))
        });
        let cny_per_write_s = chord.unwrap_or_else(|| {
            let (_, chosen, _) = match prices {
                Some(p) => super::money::costs_at_lean(p, nodes, compute_hours, c, None),
                None => costs(cat, inst, nodes, compute_hours, c, tun, None),
            };
            let per_hour = chosen.map_or(0.0, |x| x.cny / x.hours.max(1e-9));
            let interval = checkpoint_interval_s(compute_hours, w, gpus, tun);
            checkpoint_stall_hours(compute_hours, 1.0, interval, tun) * per_hour
        });
        WriteCost {
            hours: compute_hours,
            cny_per_write_s,
        }
    }
}

/// Hours the job stalls writing checkpoints: one every `interval_s` ([`checkpoint_interval_s`]),
/// each stalling for its write time × `checkpoint_stall_fraction`.
fn checkpoint_stall_hours(
    compute_hours: f64,
    write_s: f64,
    interval_s: f64,
    tun: &Tunables,
) -> f64 {
    let n = (compute_hours * 3600.0 / interval_s.max(1.0)).floor();
    n * write_s * tun.checkpoint_stall_fraction / 3600.0
}

/// Seconds between the checkpoints a plan's hours pay (plan audit r22 #2): the user's
/// `checkpoint_interval_hours` where the workload or `--set` gives it; otherwise the interval
/// the plan advises, Daly's (2006) optimum ([`super::money::daly_interval_s`]) for this
/// write's stall δ (`write_s` × `checkpoint_stall_fraction`) and the job's failure rate λ
/// (`gpus` × `failure_rate_per_gpu_hour`), no shorter than one write (at least 1 s) and no
/// longer than the job's compute hours. Until stop 41 the hours paid one write per configured
/// hour even where Daly's optimum was many hours (a node of 8 GPUs: λ ≈ 1/5,700 h).
pub(crate) fn checkpoint_interval_s(
    compute_hours: f64,
    write_s: f64,
    gpus: f64,
    tun: &Tunables,
) -> f64 {
    match tun.checkpoint_interval_hours {
        Some(hours) => hours * 3600.0,
        None => daly_checkpoint_s(compute_hours, write_s, gpus, tun),
    }
}

/// Daly's optimum interval for a plan ([`checkpoint_interval_s`] where the user gives none).
fn daly_checkpoint_s(compute_hours: f64, write_s: f64, gpus: f64, tun: &Tunables) -> f64 {
    let delta = (write_s * tun.checkpoint_stall_fraction).max(0.0);
    let rate = gpus * tun.failure_rate_per_gpu_hour / 3600.0;
    let floor = write_s.max(1.0);
    let cap = (compute_hours * 3600.0).max(floor);
    let tau = super::money::daly_interval_s(delta, rate, floor, cap);
    if tau.is_finite() && tau > 0.0 {
        tau
    } else {
        cap
    }
}

/// The plan's checkpoint interval, Daly's optimum, and what each costs over `compute_hours` in
/// Daly's model (stalls and the work lost to failures, restarts included).
fn schedule(
    compute_hours: f64,
    write_s: f64,
    (interval_s, gpus): (f64, f64),
    tun: &Tunables,
) -> super::money::CheckpointSchedule {
    let daly_s = daly_checkpoint_s(compute_hours, write_s, gpus, tun);
    let delta = (write_s * tun.checkpoint_stall_fraction).max(0.0);
    let rate = gpus * tun.failure_rate_per_gpu_hour / 3600.0;
    let restart = tun.failure_restart_minutes * 60.0;
    let cost = |tau: f64| compute_hours * super::money::daly_overhead(delta, tau, rate, restart);
    super::money::CheckpointSchedule {
        interval_s,
        daly_s,
        given: tun.checkpoint_interval_hours.is_some(),
        cost_h: cost(interval_s),
        daly_cost_h: cost(daly_s),
    }
}

/// Why a site has no plan when its checkpoint stalls alone are more than
/// [`super::money::MAX_INTERRUPTION_OVERHEAD`] times its compute (review r7 #4: an interval far
/// shorter than one write), bounded like the interruptions.
fn stalls_beyond_bound(stall_h: f64, compute_h: f64, write_s: f64, interval_s: f64) -> Option<Msg> {
    let bound = super::money::MAX_INTERRUPTION_OVERHEAD;
    (stall_h > bound * compute_h).then(|| {
        Msg::new("bind-stalls-beyond-bound")
            .arg("write_s", format!("{write_s:.0}"))
            .arg("interval", format!("{:.0}", interval_s / 60.0))
            .arg("max", format!("{:.0}", bound + 1.0))
    })
}

/// The job's checkpoints and interruptions: `write_s` per checkpoint, stalling × the stall
/// fraction, one every `interval_s` ([`checkpoint_interval_s`]) in its hours already; `gpus` ×
/// `failure_rate_per_gpu_hour` interruptions, each `failure_restart_minutes` to restart.
fn checkpointing(
    data: &DataPath,
    (write_s, paid_share, interval_s): (f64, f64, f64),
    gpus: f64,
    tun: &Tunables,
) -> Checkpointing {
    Checkpointing {
        paid_share,
        size: data.checkpoint_size,
        write_bps: data.checkpoint_size.0 / write_s.max(1e-9),
        stall_s: write_s * tun.checkpoint_stall_fraction,
        base_interval_s: interval_s,
        failure_rate_per_s: gpus * tun.failure_rate_per_gpu_hour / 3600.0,
        failure_restart_s: tun.failure_restart_minutes * 60.0,
    }
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

/// One point of the parallelism search space before the micro-batch is chosen. A new search
/// dimension is a field here, a loop in [`search_space`] and a line in [`Point::configure`].
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Point {
    pub tp: u64,
    pub pp: u64,
    /// Context-parallel degree (ring attention; 1 unless a sequence is at least 32k tokens).
    pub cp: u64,
    /// Virtual pipeline stages per device (interleaved 1F1B).
    pub vp: u64,
    pub ep: u64,
    pub zero: u8,
    pub recompute: Recompute,
    /// Data-parallel degree: the cluster's GPUs over TP × PP.
    pub dp: u64,
    /// The stack that runs the point, whose memory and time it is timed with: the profile's
    /// framework, or for an MoE model under the default profile the stack that launches the
    /// layout ([`moe_stacks`]).
    pub stack: Framework,
    /// How the layers split over the stages when PP does not divide them ([`stage_splits`]).
    pub split: StageSplit,
}

/// A point's pipeline split when PP does not divide the layers.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum StageSplit {
    /// The setup's (even, rounded up, or what the workload states).
    Setup,
    /// Megatron-Core `--decoder-last-pipeline-num-layers` k ([`uneven_last_stage`]).
    Last(u64),
    /// Megatron-Core's `--account-for-embedding-in-pipeline-split` /
    /// `--account-for-loss-in-pipeline-split` ([`accounted_split`]).
    Accounted { embedding: bool, loss: bool },
}

impl std::hash::Hash for Point {
    fn hash<H: std::hash::Hasher>(&self, h: &mut H) {
        (
            self.tp,
            self.pp,
            self.cp,
            self.vp,
            self.ep,
            self.zero,
            self.recompute as u8,
            self.dp,
            self.stack as u8,
            self.split,
        )
            .hash(h);
    }
}

impl Point {
    /// The setup this point runs at micro-batch `mb`, keeping the global batch.
    fn configure(&self, base: &TrainingSetup, mb: u64, global_batch: u64) -> TrainingSetup {
        let mut s = base.clone();
        if self.stack != base.framework {
            s.framework = self.stack;
            s.lora = std::mem::take(&mut s.lora).fused_for(self.stack);
        }
        s.parallel.tp = self.tp;
        s.parallel.pp = self.pp;
        s.parallel.zero = self.zero;
        s.parallel.ep = self.ep;
        match self.split {
            StageSplit::Setup => {}
            StageSplit::Last(k) => s.parallel.last_stage_layers = Some(k),
            StageSplit::Accounted { embedding, loss } => {
                s.parallel.account_for_embedding_in_pipeline_split = embedding;
                s.parallel.account_for_loss_in_pipeline_split = loss;
            }
        }
        s.parallel.sequence_parallel = self.tp > 1 && self.stack == Framework::Megatron;
        s.parallel.cp = self.cp;
        s.parallel.virtual_stages = self.vp;
        propose_overlap(&mut s);
        s.recompute = self.recompute;
        s.micro_batch = mb;
        s.grad_accum = global_batch.div_ceil(mb * self.dp).max(1);
        s
    }
}

/// The search space on one cluster, in search order: TP × PP × EP × ZeRO × recompute (the
/// micro-batch is searched per point by [`fits`]). Of the cluster it reads only the chip, the GPUs
/// per node, the node count and the intra-node bandwidth (`Work::fit_for` keys on these).
pub fn search_space(req: &PlanRequest, base: &TrainingSetup, c: &ClusterSpec) -> Vec<Point> {
    let total = c.total_gpus();
    let shape = Shape::of(req);
    let pin = pins(req);
    let d = Degrees::of(req, base, c, &shape, &pin);
    let litgpt = base.framework == Framework::LitGpt;
    let mut out = Vec::new();
    for &tp in &d.tps {
        for (&pp, &cp) in d.pps.iter().flat_map(|p| d.cps.iter().map(move |c| (p, c))) {
            let mp = tp * pp * cp;
            if mp > total || !total.is_multiple_of(mp) {
                continue;
            }
            let dp = total / mp;
            let vp = virtual_stages(base.framework, &pin, base, pp, shape.layers);
            for ep in expert_degrees(base, &pin, shape.experts, dp * tp) {
                for &zero in zero_choices(base, &pin, dp) {
                    let layout = Layout { mp, pp, ep, zero };
                    for &stack in point_stacks(base, &pin, shape.experts, layout) {
                        let vp = if stack == base.framework {
                            vp
                        } else {
                            virtual_stages(stack, &pin, base, pp, shape.layers)
                        };
                        let splits = stage_splits(base, &pin, stack, (pp, vp), shape.layers);
                        for (&recompute, split) in d
                            .rcs
                            .iter()
                            .flat_map(|r| splits.iter().flatten().map(move |s| (r, *s)))
                        {
                            // LitGPT has no expert or context parallelism either.
                            if litgpt
                                && (ep != 1
                                    || cp != 1
                                    || !litgpt_strategy(base.task, dp, zero, recompute))
                            {
                                continue;
                            }
                            out.push(Point {
                                tp,
                                pp,
                                cp,
                                vp,
                                ep,
                                zero,
                                recompute,
                                dp,
                                stack,
                                split,
                            });
                        }
                    }
                }
            }
        }
    }
    out
}

/// What of the model's shape bounds the degrees: heads (TP), layers (PP, VP) and experts (EP).
struct Shape {
    heads: u64,
    layers: u64,
    experts: u64,
}

impl Shape {
    fn of(req: &PlanRequest) -> Shape {
        match &req.model.architecture {
            Architecture::Transformer(t) => Shape {
                heads: t.heads,
                layers: t.total_layers(),
                experts: t.moe.map(|e| e.experts).unwrap_or(1),
            },
            Architecture::Opaque(_) => Shape {
                heads: 1,
                layers: 1,
                experts: 1,
            },
        }
    }
}

/// The TP, PP, CP degrees and recompute modes a cluster is searched over (the ZeRO stage and EP
/// depend on the point: [`zero_choices`], [`expert_degrees`]).
struct Degrees<'a> {
    tps: Vec<u64>,
    pps: Vec<u64>,
    cps: Vec<u64>,
    rcs: &'a [Recompute],
}

impl<'a> Degrees<'a> {
    fn of(
        req: &PlanRequest,
        base: &'a TrainingSetup,
        c: &ClusterSpec,
        shape: &Shape,
        pin: &super::TrainPins,
    ) -> Degrees<'a> {
        // Model parallelism is what Megatron-style stacks do (and what pretraining uses); HF
        // Trainer / PEFT jobs shard with ZeRO/FSDP only. TP stays inside a node and on
        // NVLink-class links. LitGPT shards with FSDP only (its finetune/pretrain scripts take no
        // TP/PP arguments).
        // An MoE model under the default profile also gets Megatron-Core's layouts
        // ([`point_stacks`]).
        let model_parallel = base.framework == Framework::Megatron
            || (base.task == TrainTask::Pretrain && base.framework != Framework::LitGpt)
            || moe_union(base, pin, shape.experts);
        let nvlink = tp_links(c);
        // A degree the workload states is kept (TP still inside a node), whatever the profile.
        // TP splits the query and the KV heads as Megatron-Core and torchtitan do (review r14 #1).
        let kv_replicated = base.parallel.kv_heads_replicated;
        let tp_ok = |tp: &u64| {
            *tp <= c.gpus_per_node
                && shape.heads.is_multiple_of(*tp)
                && req
                    .model
                    .transformer()
                    .is_none_or(|t| crate::infer::train_tp_splits_attention(t, *tp, kv_replicated))
        };
        let tps = if pin.tp {
            vec![base.parallel.tp].into_iter().filter(tp_ok).collect()
        } else {
            [1, 2, 4, 8]
                .into_iter()
                // llm.c's fused classifier runs on one rank's whole vocabulary (review r16 #5).
                .filter(|tp| {
                    *tp == 1 || (model_parallel && nvlink && tp_ok(tp) && !base.fused_classifier)
                })
                .collect()
        };
        // Megatron-Core also splits layers that PP does not divide ([`uneven_last_stage`]).
        let megatron = base.framework == Framework::Megatron || moe_union(base, pin, shape.experts);
        // llm.c (the fused classifier's only home) parallelizes over data only (audit r17 #1).
        let llmc = base.fused_classifier;
        let pps = pinned_or(pin.pp || llmc, base.parallel.pp, || {
            [1, 2, 4, 8, 16]
                .into_iter()
                .filter(|&pp| {
                    pp == 1
                        || (model_parallel
                            && (shape.layers.is_multiple_of(pp)
                                || (megatron
                                    && (uneven_last_stage(shape.layers, pp).is_some()
                                        || accounted_split(shape.layers, (pp, 1)).is_some()))))
                })
                .collect()
        });
        // Context parallelism for long sequences (issue 10): ring attention over up to 8 ranks
        // from 16k tokens a sequence, where activations of a whole sequence crowd one device
        // (NeMo's llama3_8b_16k recipe runs `context_parallelism=2` at 16,384 tokens,
        // nemo/collections/llm/recipes/llama3_8b_16k.py @0189a3b3; 32k until stop 35, when
        // Qwen2.5-14B full fine-tuning on 8 L20 found a CP 4 plan at 32k tokens and none at 16k).
        // Below 16k only where nothing fits without it ([`retry_with_cp`]).
        let long = base.seq_len >= CP_MIN_SEQ || pin.cp_for_memory;
        let cps = pinned_or(pin.cp || llmc, base.parallel.cp, || {
            match req.model.architecture {
                Architecture::Transformer(_) if long => [1, 2, 4, 8]
                    .into_iter()
                    // The retry's CP 1 points are the first search's, which fitted nothing.
                    .filter(|cp| *cp > 1 || !pin.cp_for_memory)
                    .filter(|cp| crate::workload::cp_splits_sequence(base.seq_len, *cp))
                    // Megatron's CP is Transformer Engine's, which has no attention backend
                    // below compute capability 8.0 (audit r18 #6).
                    .filter(|cp| *cp == 1 || crate::chip::te_context_parallel_runs(base, &c.gpu))
                    .collect(),
                _ => vec![1],
            }
        });
        Degrees {
            tps,
            pps,
            cps,
            rcs: recompute_choices(base, pin),
        }
    }
}

/// The shortest sequence the search splits with context parallelism: NeMo's 16k recipe
/// (`llama3_8b_16k`, @0189a3b3) is the shortest of its recipes that sets `context_parallelism`.
const CP_MIN_SEQ: u64 = 16_384;

/// Whether `c`'s links inside a node carry tensor parallelism: NVLink class, over 64 GB/s.
fn tp_links(c: &ClusterSpec) -> bool {
    c.gpu.intra_link.is_nvlink_class() && c.intra_bandwidth.gb_per_s() > 64.0
}

/// All that [`search_space`] reads of a cluster: GPUs per node, nodes (the total) and
/// [`tp_links`]. Clusters of other chips and links with the same facts have the same space for
/// the same setup (test `search_space_reads_only_its_cluster_facts`).
fn space_facts(c: &ClusterSpec) -> SpaceFacts {
    (
        c.gpus_per_node,
        c.nodes,
        tp_links(c),
        crate::chip::te_fused_attention(&c.gpu),
    )
}

/// [`space_facts`]: GPUs per node, nodes, [`tp_links`], and whether Transformer Engine's CP runs
/// on the chip ([`crate::chip::te_fused_attention`]).
type SpaceFacts = (u64, u64, bool, bool);

/// The recompute modes searched: the stated one, LitGPT's two strategies, or the framework's.
fn recompute_choices<'a>(base: &'a TrainingSetup, pin: &super::TrainPins) -> &'a [Recompute] {
    if pin.recompute {
        std::slice::from_ref(&base.recompute)
    } else if base.framework == Framework::LitGpt {
        // LitGPT has no recompute switch: its strategy follows from the device count.
        &[Recompute::None, Recompute::Full]
    } else if base.attention == AttentionImpl::Eager {
        &[Recompute::None, Recompute::Selective, Recompute::Full]
    } else {
        &[Recompute::None, Recompute::Full]
    }
}

/// Virtual pipeline stages: Megatron-Core's interleaved schedule with 2 virtual stages when the
/// layers split evenly into pp × 2 chunks and the workload did not choose (a smaller bubble).
fn virtual_stages(
    stack: Framework,
    pin: &super::TrainPins,
    base: &TrainingSetup,
    pp: u64,
    layers: u64,
) -> u64 {
    if !pin.virtual_stages
        && stack == Framework::Megatron
        && pp > 1
        && base.parallel.virtual_stages == 1
        && layers.is_multiple_of(pp * 2)
    {
        2
    } else {
        base.parallel.virtual_stages
    }
}

/// ZeRO stages searched at a data-parallel degree: the stated one, none without data parallelism,
/// 1 under llm.c's fused classifier, 0/3 for PEFT (DDP or FSDP), 1/2/3 otherwise.
fn zero_choices<'a>(base: &'a TrainingSetup, pin: &super::TrainPins, dp: u64) -> &'a [u8] {
    if pin.zero {
        std::slice::from_ref(&base.parallel.zero)
    } else if dp == 1 {
        &[0]
    } else if base.fused_classifier {
        // llm.c's -z takes 0 or 1 (llmc/zero.cuh `set_zero_configs`); ZeRO-1 holds less.
        &[1]
    } else if base.task.is_peft() {
        &[0, 3]
    } else {
        &[1, 2, 3]
    }
}

/// Megatron-Core's embedding/loss accounting when it makes `layers` split over `pp` stages of
/// `vp` chunks each: both counted when L + 2 divides (Megatron-Bridge's Llama 3.1 405B recipe,
/// `account_for_embedding_in_pipeline_split` and `account_for_loss_in_pipeline_split` True:
/// 126 + 2 = 128 layers over PP 8 × VP 8; recipes/llama/llama3.py @0aec3a7f lines 321-322), else
/// the loss alone when L + 1 does (the head's stage is the one the LM head slows). `None`: neither.
pub fn accounted_split(layers: u64, (pp, vp): (u64, u64)) -> Option<StageSplit> {
    let fits = |n: u64| pp >= 2 && n.is_multiple_of(pp) && (n / pp).is_multiple_of(vp.max(1));
    if layers.is_multiple_of(pp) {
        None
    } else if fits(layers + 2) {
        Some(StageSplit::Accounted {
            embedding: true,
            loss: true,
        })
    } else if fits(layers + 1) {
        Some(StageSplit::Accounted {
            embedding: false,
            loss: true,
        })
    } else {
        None
    }
}

/// The splits a point's stack may run at `pp` stages: the setup's (even, or the workload's stated
/// first/last stage or accounting, or a stated PP); where PP does not divide the layers only
/// Megatron-Core is searched, with its uneven last stage ([`uneven_last_stage`]) and, where it
/// divides, its embedding/loss accounting ([`accounted_split`]), and the step model picks. Empty:
/// the stack cannot split them.
fn stage_splits(
    base: &TrainingSetup,
    pin: &super::TrainPins,
    stack: Framework,
    (pp, vp): (u64, u64),
    layers: u64,
) -> [Option<StageSplit>; 2] {
    let bp = &base.parallel;
    let stated = bp.last_stage_layers.is_some()
        || bp.first_stage_layers.is_some()
        || bp.account_for_embedding_in_pipeline_split
        || bp.account_for_loss_in_pipeline_split;
    if pin.pp || pp < 2 || layers.is_multiple_of(pp) || stated {
        return [Some(StageSplit::Setup), None];
    }
    if stack != Framework::Megatron {
        return [None, None];
    }
    [
        // Interleaved, Megatron-Core needs every stage's layers to split over the chunks.
        uneven_last_stage(layers, pp)
            .filter(|&k| {
                k.is_multiple_of(vp.max(1)) && layers.div_ceil(pp).is_multiple_of(vp.max(1))
            })
            .map(StageSplit::Last),
        accounted_split(layers, (pp, vp)),
    ]
}

/// A layout's model-parallel degree (TP × PP × CP), pipeline stages, expert-parallel degree and
/// ZeRO stage.
#[derive(Clone, Copy)]
struct Layout {
    mp: u64,
    pp: u64,
    ep: u64,
    zero: u8,
}

/// Whether the request searches the union of the MoE stacks: an MoE model under the default
/// (`hugging_face`) profile (round 8), the stack not named by the user (`--profile`,
/// `--deepspeed` or the workload's `framework` / `deepspeed`: trust r9 #2, an explicit
/// `hugging_face` listed Megatron-Core plans).
fn moe_union(base: &TrainingSetup, pin: &super::TrainPins, experts: u64) -> bool {
    experts > 1 && base.framework == Framework::HuggingFace && !pin.framework && !base.deepspeed
}

/// The stacks that launch a layout, each searched with its own memory and time (round 8). Under
/// the default profile an MoE model gets the union of what the real stacks run (docs/methodology.md
/// §Training search has the table and sources):
/// - HF Transformers with DeepSpeed ZeRO 0-3 or FSDP (LLaMA-Factory, ms-swift, TRL), TP = PP =
///   CP = EP = 1: experts are ordinary parameters, ZeRO-3 gathers all of a layer's experts;
/// - DeepSpeed-MoE, EP > 1 with TP = PP = CP = 1 and ZeRO ≤ 2 (deepspeed/runtime/engine.py
///   @38327e07: `assert not self.has_moe_layers, "MoE not supported with Stage 3"`; its
///   pipeline engine runs bf16 at ZeRO-1 only, runtime/pipe/engine.py `_exec_reduce_grads`:
///   `raise NotImplementedError("PP+BF16 only work for ZeRO Stage 1")`; TP beside it is
///   Megatron-DeepSpeed's, which the export does not write), timed as the eager HF modules;
/// - Megatron-Core (LoRA: ms-swift's Megatron backend, Megatron-Bridge PEFT), TP/PP/CP/EP with
///   ZeRO ≤ 1 (`--use-distributed-optimizer`; no ZeRO-2/3), timed with the `megatron` profile;
/// - torchtitan-style DTensor TP/PP with FSDP for pretraining at EP = 1 (the `hugging_face`
///   profile's pretraining layouts, unchanged).
///
/// No QLoRA stack runs Megatron-Core. Other profiles keep their framework with
/// [`ep_stack_runs_zero`]. A workload that states both EP and the ZeRO stage keeps them.
fn point_stacks<'a>(
    base: &'a TrainingSetup,
    pin: &super::TrainPins,
    experts: u64,
    l: Layout,
) -> &'a [Framework] {
    const HF: &[Framework] = &[Framework::HuggingFace];
    const MEGATRON: &[Framework] = &[Framework::Megatron];
    const BOTH: &[Framework] = &[Framework::HuggingFace, Framework::Megatron];
    if profile_refuses_zero(base, pin, l) || qlora_refuses_ep(base, pin, l) {
        return &[];
    }
    if !moe_union(base, pin, experts) {
        if !named_stack_runs_ep(base, pin, l) {
            return &[];
        }
        return if ep_stack_runs_zero(base, pin, l.ep, l.zero) {
            std::slice::from_ref(&base.framework)
        } else {
            &[]
        };
    }
    let stated = pin.tp || pin.pp || pin.cp;
    let hf = if l.mp == 1 {
        l.ep == 1 || l.zero <= 2
    } else {
        l.ep == 1 && (base.task == TrainTask::Pretrain || stated)
    };
    let megatron = base.task != TrainTask::Qlora && l.zero <= 1 && (l.mp > 1 || l.ep > 1);
    match (hf, megatron) {
        (true, true) => BOTH,
        (true, false) => HF,
        (false, true) => MEGATRON,
        (false, false) if pin.ep && pin.zero => HF,
        (false, false) => &[],
    }
}

/// Plan audit r22 #3: no stack runs QLoRA's 4-bit experts under expert parallelism, so a QLoRA
/// layout with EP > 1 is not searched (a workload that states EP keeps it):
/// - DeepSpeed's EP for a Hugging Face model is AutoEP, which repacks each layer's experts into
///   one grouped tensor from their `.weight.data` (deepspeed/moe/ep_repack.py @edaa7221
///   `_repack_module_list`: `w1_list.append(w1_param.data.clone())` … `w1 =
///   torch.stack(w1_list)  # [E_local, ffn_hidden, hidden]`): a bitsandbytes `Linear4bit`'s
///   weight is its packed uint8 bytes, whose quantization state the copy leaves behind, so the
///   grouped experts cannot be 4-bit; the older `deepspeed.moe.layer.MoE` deep-copies an expert
///   module the user builds (deepspeed/moe/experts.py @edaa7221 `copy.deepcopy(expert)`), which
///   neither PEFT nor any fine-tuning launcher (LLaMA-Factory, ms-swift, TRL) builds around a
///   quantized checkpoint;
/// - Megatron-Core, the other EP stack, runs no QLoRA (see [`point_stacks`]).
///
/// QLoRA MoE plans therefore keep every expert on every data-parallel rank (EP = 1), as
/// PEFT/bitsandbytes run them.
fn qlora_refuses_ep(base: &TrainingSetup, pin: &super::TrainPins, l: Layout) -> bool {
    base.task == TrainTask::Qlora && l.ep > 1 && !pin.ep
}

/// Whether the profile's launchers do not run the layout's ZeRO stage as planned:
/// - `megatron`, ZeRO-2/3 at any pipeline size (expert r17 #1). Megatron-LM shards with its
///   distributed optimizer, ZeRO-1 (`--use-distributed-optimizer`, what the export writes).
///   Its other sharding paths are not what this profile models: torch FSDP2 refuses pipeline
///   stages (megatron/training/arguments.py @core_v0.15.0 l.636-637: `assert
///   args.pipeline_model_parallel_size == 1, '--use-torch-fsdp2 is not supported with pipeline
///   parallelism'`), and Megatron-FSDP (`--use-megatron-fsdp` with
///   `--data-parallel-sharding-strategy {no_shard, optim, optim_grads, optim_grads_params}`,
///   l.2674-2679) needs `--ckpt-format fsdp_dtensor` and `CUDA_DEVICE_MAX_CONNECTIONS` other
///   than 1 (l.715-719), and beside TP or CP before Blackwell Megatron warns against it (l.938-946:
///   "Try not to using them together since they require different CUDA_MAX_CONNECTIONS settings
///   ... sequence parallelism requires setting the environment variable
///   CUDA_DEVICE_MAX_CONNECTIONS to 1"); its own communication buffers (`--fsdp-double-buffer`,
///   `--suggested-communication-unit-size`) are not in the memory model. Until stop 36 a TP 2 ZeRO-3 plan was listed whose megatron_args.sh
///   ran ZeRO-1 with "memory is higher than planned". An MoE model's ZeRO-2/3 under this
///   profile would be Megatron-DeepSpeed's, whose DeepSpeed-MoE layers refuse stage 3;
/// - `deepspeed`, ZeRO-2/3 beside pipeline stages: DeepSpeed's pipeline engine
///   (deepspeed/runtime/pipe/engine.py @38327e07 l.77-78: `assert self.zero_optimization_stage()
///   < ZeroStageEnum.gradients, "ZeRO-2 and ZeRO-3 are incompatible with pipeline parallelism"`).
///
/// The default profile's pipelines are torchtitan's, which run FSDP beside PP. A workload that
/// states the ZeRO stage keeps it (Meta's Llama 3 405B ran FSDP ZeRO-2 beside PP 16 on its own
/// stack, arXiv 2407.21783 §3.3.2; `estimate` says Megatron-LM would not launch it).
fn profile_refuses_zero(base: &TrainingSetup, pin: &super::TrainPins, l: Layout) -> bool {
    if l.zero <= 1 || pin.zero {
        return false;
    }
    base.framework == Framework::Megatron || (l.pp > 1 && base.deepspeed)
}

/// The caveat of an estimate whose stated layout runs PP > 1 beside ZeRO-2/3 under the
/// `megatron` profile, which Megatron-LM does not launch ([`pipeline_refuses_zero`]); `None`
/// otherwise. Not a refusal: the layout is real elsewhere (Meta's Llama 3 stack) and the
/// profile then stands for fused kernels; DeepSpeed's refusal is the workload's
/// (`TrainingSetup::validate`).
pub fn megatron_pipeline_zero_caveat(setup: &TrainingSetup) -> Option<crate::i18n::Msg> {
    let p = &setup.parallel;
    (setup.framework == Framework::Megatron && p.pp > 1 && p.zero > 1).then(|| {
        crate::i18n::Msg::new("cav-megatron-pp-zero")
            .arg("pp", p.pp)
            .arg("zero", u64::from(p.zero))
    })
}

/// Whether a named eager stack runs the layout's expert parallelism (trust r9 #2): under
/// `hugging_face` EP is DeepSpeed-MoE's, with TP = PP = CP = 1 (Megatron-DeepSpeed's TP beside
/// it is not exported, as in the default profile's union); LitGPT has no expert parallelism
/// (litgpt @00af8b0d: no EP argument). A workload that states EP with the model-parallel
/// degrees keeps them.
fn named_stack_runs_ep(base: &TrainingSetup, pin: &super::TrainPins, l: Layout) -> bool {
    if l.ep <= 1 || (pin.ep && (pin.tp || pin.pp || pin.cp || l.mp == 1)) {
        return true;
    }
    match base.framework {
        Framework::HuggingFace => l.mp == 1,
        Framework::LitGpt => false,
        Framework::Megatron => true,
    }
}

/// Whether the profile's stack runs expert parallelism beside ZeRO stage `zero` (audit r7 #5),
/// outside the default profile's MoE union ([`point_stacks`]): Megatron-Core shards only the
/// optimizer states (`--use-distributed-optimizer`, ZeRO-1) and has no ZeRO-3; the other
/// profiles have no EP (LitGPT) or no MoE model to split. A workload that states both EP and the
/// ZeRO stage keeps them.
fn ep_stack_runs_zero(base: &TrainingSetup, pin: &super::TrainPins, ep: u64, zero: u8) -> bool {
    if ep <= 1 || (pin.ep && pin.zero) {
        return true;
    }
    let most = if base.framework == Framework::Megatron {
        1
    } else {
        2
    };
    zero <= most
}

/// Expert parallelism for MoE models: experts split over up to dp × tp ranks, for every task and
/// profile (DeepSpeed-MoE, Megatron-Core, torchtitan and Megatron-based LoRA stacks run EP);
/// without it ZeRO-3 gathers every expert each micro-batch. A stated EP is kept when it divides.
fn expert_degrees(
    base: &TrainingSetup,
    pin: &super::TrainPins,
    experts: u64,
    ranks: u64,
) -> Vec<u64> {
    let free = [1, 2, 4, 8, 16, 32, 64];
    let eps: &[u64] = if pin.ep {
        std::slice::from_ref(&base.parallel.ep)
    } else {
        &free
    };
    eps.iter()
        .copied()
        .filter(|ep| {
            (*ep == 1 && !pin.ep)
                || (*ep > 0 && experts.is_multiple_of(*ep) && ranks.is_multiple_of(*ep))
        })
        .collect()
}

/// The one sharding and recompute choice LitGPT's scripts make for a device count (litgpt
/// @00af8b0d `finetune/lora.py` l.141-153, `finetune/full.py` l.99-106, `finetune/adapter.py`
/// l.117-123: more than one device → `FSDPStrategy(auto_wrap_policy={Block},
/// activation_checkpointing_policy={Block})`, FULL_SHARD with every Block checkpointed, else
/// `"auto"`: one device, no sharding, no checkpointing; `pretrain.py` l.134-135: FSDP
/// `HYBRID_SHARD` without checkpointing, modelled as ZeRO-3, which shards over every rank where
/// HYBRID_SHARD shards inside a node only). No flag of those scripts changes either choice.
/// The caveat of an estimate with the `litgpt` profile whose sharding or checkpointing is not the
/// one LitGPT's scripts choose for its device count ([`litgpt_strategy`]); `None` otherwise.
pub fn litgpt_strategy_caveat(setup: &TrainingSetup, total_gpus: u64) -> Option<crate::i18n::Msg> {
    let dp = total_gpus / (setup.parallel.tp * setup.parallel.pp).max(1);
    if setup.framework != Framework::LitGpt
        || litgpt_strategy(setup.task, dp, setup.parallel.zero, setup.recompute)
    {
        return None;
    }
    let (zero, recompute) = match (dp > 1, setup.task) {
        (false, _) => (0, "none"),
        (true, TrainTask::Pretrain) => (3, "none"),
        (true, _) => (3, "full"),
    };
    Some(
        crate::i18n::Msg::new("cav-litgpt-strategy")
            .arg("gpus", total_gpus.to_string())
            .arg("zero", zero.to_string())
            .arg("recompute", recompute),
    )
}

/// A pipeline size the workload pins is checked as `estimate` checks it (review r16b): under
/// Megatron-Core a pinned pp that does not divide the layers, with no stage sizes stated, is
/// refused naming `parallel.pp` and the fix, not answered with "no plan keeps it". An unpinned pp
/// is the search's to choose ([`stage_splits`] gives Megatron its stated uneven splits).
fn check_pinned_split(req: &PlanRequest, setup: &TrainingSetup) -> Result<(), CoreError> {
    match req.model.transformer() {
        Some(t) if pins(req).pp => {
            crate::pipeline::check(t.total_layers(), &setup.parallel, setup.framework)
        }
        _ => Ok(()),
    }
}

/// The dimensions the request's workload fixes (none for serving).
fn pins(req: &PlanRequest) -> super::TrainPins {
    match &req.job {
        super::Job::Train { pins, .. } => *pins,
        super::Job::Serve(_) => super::TrainPins::default(),
    }
}

/// `[value]` when the workload fixes it, else the planner's candidates.
fn pinned_or(pin: bool, value: u64, free: impl FnOnce() -> Vec<u64>) -> Vec<u64> {
    if pin {
        vec![value]
    } else {
        free()
    }
}

fn litgpt_strategy(task: TrainTask, dp: u64, zero: u8, recompute: Recompute) -> bool {
    match (dp > 1, task) {
        (false, _) => zero == 0 && recompute == Recompute::None,
        (true, TrainTask::Pretrain) => zero == 3 && recompute == Recompute::None,
        (true, _) => zero == 3 && recompute == Recompute::Full,
    }
}

/// One micro-batch of one point: the configuration and its memory, lean (bytes without the words,
/// [`training_memory_lean`]; `None`: not estimable).
/// One configuration of a ladder and the device memory it needs (`None`: not estimable). Only
/// the total is kept: the lean estimate is dropped where it is computed (on the worker), and the
/// configuration a time pass keeps is explained again in full.
pub type Rung = std::sync::Arc<(TrainingSetup, Option<Bytes>)>;

/// A rung on one cluster: the (possibly shared) rung and its memory need on that cluster (a
/// shared ladder's need plus the cluster's communication buffers, `with_comm`).
pub type Fit = (Rung, Option<Bytes>);

/// The configurations of a search space that fit memory on a cluster: per point, the largest
/// fitting micro-batch (under PP every fitting one) with its memory, in search order.
#[derive(Clone)]
pub struct Fits {
    pub fit: Vec<Fit>,
    /// The least memory any evaluated configuration needed (for "why it does not fit"); `None`
    /// when every point fitted or none could be evaluated.
    pub least: Option<Shortfall>,
    /// What the cluster's GPU has.
    pub have: Bytes,
    /// The setup searched (named by the shortfall when nothing was evaluated).
    pub base: TrainingSetup,
    /// Configurations whose memory was evaluated (as if this cluster were searched alone).
    pub evaluated: u64,
}

impl Fits {
    fn new(base: &TrainingSetup, c: &ClusterSpec) -> Fits {
        Fits {
            fit: Vec::new(),
            least: None,
            have: c.gpu.visible_memory().unwrap_or(Bytes(0.0)),
            base: base.clone(),
            evaluated: 0,
        }
    }

    /// Whether a configuration needing `need` leaves the margin on this cluster's GPU.
    fn clear(&self, need: Bytes) -> bool {
        super::clear_of_error(need.0, self.have.0)
    }

    /// The least memory any configuration needed, or "infinitely much" when none was evaluated.
    pub fn shortfall(&self) -> Shortfall {
        self.least.clone().unwrap_or_else(|| Shortfall {
            need: Bytes(f64::INFINITY),
            have: self.have,
            setup: self.base.clone(),
        })
    }

    /// One point's micro-batches in increasing order, stopping at the first that does not fit:
    /// activation memory grows with the micro-batch, so no larger one fits either. Keeps the
    /// largest that fits; under pipeline parallelism every one that fits, for the time pass to
    /// choose: the global batch fixed, a larger micro-batch means fewer micro-batches and a
    /// larger bubble ((p − 1)/(m·v)). Keeping only the largest made more memory slower: 72B
    /// Megatron TP8 PP8×v2 on 8 × 8 A100-80GB took mb16×4 (29.3 h) where the 40 GB nodes, held
    /// to mb2×32, took 17.8 h.
    ///
    /// Without PP it also keeps the largest micro-batch clear of the memory model's error
    /// ([`super::clear_of_error`]) where the largest that fits is not: the time pass prefers it
    /// (audit r8 #1: 70B LoRA on 8 × A100-40GB took micro-batch 2 at 0.0 GiB free over
    /// micro-batch 1 at 6.1 GiB free for 3.1% more tokens/s).
    fn climb(&mut self, rungs: impl Iterator<Item = Fit>) {
        let mut fit = None;
        for rung in rungs {
            self.evaluated += 1;
            let Some(need) = rung.1 else { break };
            if need.0 <= self.have.0 {
                let clear = |r: &Fit| r.1.is_some_and(|n| self.clear(n));
                if rung.0 .0.parallel.pp > 1 || (fit.as_ref().is_some_and(clear) && !clear(&rung)) {
                    self.fit.extend(fit.take());
                }
                fit = Some(rung);
                continue;
            }
            if self.least.as_ref().is_none_or(|l| need.0 < l.need.0) {
                self.least = Some(Shortfall {
                    need,
                    have: self.have,
                    setup: rung.0 .0.clone(),
                });
            }
            break;
        }
        self.fit.extend(fit);
    }
}

/// Micro-batches the search tries, in increasing order.
fn micro_batches(req: &PlanRequest) -> &'static [u64] {
    match req.model.architecture {
        Architecture::Transformer(_) => &[1, 2, 4, 8, 16],
        Architecture::Opaque(_) => &[1, 2, 4, 8, 16, 32, 64, 128, 256],
    }
}

/// A point's rungs, computed as they are consumed; micro-batch × DP never exceeds the user's
/// global batch. With `net`, each need leaves out `c`'s communication buffers
/// ([`training_memory_need`]: a shared ladder's, to which every cluster adds its own).
fn rungs<'a>(
    req: &'a PlanRequest,
    base: &'a TrainingSetup,
    global_batch: u64,
    point: Point,
    (c, net): (&'a ClusterSpec, bool),
) -> impl Iterator<Item = Rung> + 'a {
    let mbs = if pins(req).micro_batch {
        vec![base.micro_batch]
    } else {
        micro_batches(req).to_vec()
    };
    mbs.into_iter()
        .take_while(move |&mb| mb == 1 || mb * point.dp <= global_batch.max(point.dp))
        .map(move |mb| {
            let mut s = point.configure(base, mb, global_batch);
            if pins(req).sequence_parallel {
                s.parallel.sequence_parallel = base.parallel.sequence_parallel;
            }
            s
        })
        // The optimizer in backward runs without gradient accumulation (torchtune refuses the
        // pair; `TrainingSetup::validate`): only the micro-batches that take the global batch in
        // one pass.
        .filter(move |s| !base.optimizer_in_backward || s.grad_accum <= 1)
        .map(move |s| {
            let need = if net {
                training_memory_need(&req.model, &s, c, &req.tunables).ok()
            } else {
                training_memory_lean(&req.model, &s, c, &req.tunables)
                    .ok()
                    .map(|m| m.device_total)
            };
            std::sync::Arc::new((s, need))
        })
}

/// Memory pass of the search on one cluster, every rung computed (the reference).
pub fn fits(req: &PlanRequest, base: &TrainingSetup, global_batch: u64, c: &ClusterSpec) -> Fits {
    let mut out = Fits::new(base, c);
    for point in search_space(req, base, c) {
        out.climb(rungs(req, base, global_batch, point, (c, false)).map(|r| {
            let need = r.1;
            (r, need)
        }));
    }
    out
}

/// A point's rungs up to the first one that no GPU of `most` bytes holds: every rung a climb on
/// a GPU with at most `most` bytes consumes.
fn ladder(
    req: &PlanRequest,
    base: &TrainingSetup,
    global_batch: u64,
    point: Point,
    c: &ClusterSpec,
    most: f64,
) -> Vec<Rung> {
    let mut out: Vec<Rung> = Vec::new();
    // Net of the communication buffers, which each cluster adds for itself (`with_comm`).
    for rung in rungs(req, base, global_batch, point, (c, true)) {
        // Stop where the largest GPU stops (a NaN need stops every climb): buffers only add.
        let held = rung.1.is_some_and(|need| need.0 <= most);
        out.push(rung);
        if !held {
            break;
        }
    }
    out
}

/// A shared ladder's rungs on cluster `c`: each rung itself (shared, not copied) and its need
/// with `c`'s communication buffers added. The buffers read of a setup only what
/// [`same_comm_buffers`] compares (the rungs of one ladder differ in their micro-batch, the
/// ladders of one memory pass often only in recompute), so they are computed once per such
/// setup on `c` (`known`: the buffers of the setups seen so far on `c`, in the order seen).
fn with_comm<'a>(
    req: &'a PlanRequest,
    ladder: &'a [Rung],
    c: &'a ClusterSpec,
    known: &'a mut Vec<(Rung, f64)>,
) -> impl Iterator<Item = Fit> + 'a {
    ladder.iter().map(move |rung| {
        let s = &rung.0;
        // The last one seen first: the rungs of one ladder share it.
        let comm = match known.iter().rev().find(|(k, _)| same_comm_buffers(&k.0, s)) {
            Some(&(_, comm)) => comm,
            None => {
                let comm = comm_buffer_bytes(s, c, &req.tunables);
                known.push((rung.clone(), comm));
                comm
            }
        };
        (rung.clone(), rung.1.map(|n| Bytes(n.0 + comm)))
    })
}

/// A time pass's counters: steps timed, the rungs' full memory estimates, the rungs' step
/// prologues ([`Pass`]; unread without the memo).
type Timing<'t> = (
    &'t mut u64,
    &'t mut Vec<Option<std::sync::Arc<TrainingMemory>>>,
    &'t mut [Option<StepPrologue>],
);

/// Time pass of the search: the fastest of the fitting configurations on this cluster (the first
/// in search order unless a later one is > 0.01% faster), or the smallest shortfall. The request's
/// tunables must have been validated (`validate_request`, or [`best_config`]).
///
/// `bounds[k]` (where given) bounds the tokens/s of rung k from above on this cluster: a rung
/// whose bound is not > 0.01% above the best so far cannot become the best and is not timed
/// (exact: it skips only rungs the search would have passed over). Returns the bounds the timed
/// rungs give for every cluster of the same chip and shape ([`step_bound`]). `memo`: the
/// search's remembered micro-batch compute (none in the reference search).
fn fastest(
    req: &PlanRequest,
    (fits, memo): (&Fits, Option<&ComputeMemo>),
    c: &ClusterSpec,
    bounds: &[Option<f64>],
    (steps, explained, slots): Timing,
) -> (Result<Best, Box<Shortfall>>, Vec<Option<f64>>) {
    // Rungs clear of the memory model's error first; the others only when none of those gives a
    // step (audit r8 #1). Both passes keep the first in search order unless a later one is
    // faster, so the reference and the bounded search take the same rung.
    let clear: Vec<bool> = fits
        .fit
        .iter()
        .map(|r| r.1.is_some_and(|n| fits.clear(n)))
        .collect();
    let mut found = vec![None; fits.fit.len()];
    let mut best = None;
    for pass in [true, false] {
        let ks = (0..fits.fit.len()).filter(|&k| clear[k] == pass);
        let timing = (&mut *steps, &mut found[..], &mut *slots);
        best = fastest_of(req, (fits, memo), c, (bounds, ks), timing);
        if best.is_some() {
            break;
        }
    }
    let best = best.and_then(|(k, lean_step)| {
        let setup = &fits.fit[k].0 .0;
        // Rungs and steps are compared lean (numbers only); the kept configuration is explained
        // in full (same numbers: tests `lean_memory_has_the_same_bytes` and
        // `lean_step_has_the_same_numbers`).
        // Memory does not depend on the links: one full estimate per rung serves every cluster
        // of this memory pass (`explained`, indexed like the rungs).
        if explained.len() < fits.fit.len() {
            explained.resize(fits.fit.len(), None);
        }
        let memory = match &explained[k] {
            Some(m) => m.clone(),
            None => {
                // (The lean estimate again if the full one fails: what the rung held before
                // it kept only the total.)
                let m = training_memory(&req.model, setup, c, &req.tunables)
                    .or_else(|_| training_memory_lean(&req.model, setup, c, &req.tunables))
                    .ok()?;
                let m = std::sync::Arc::new(m);
                explained[k] = Some(m.clone());
                m
            }
        };
        *steps += 1;
        let (m, tun) = (&req.model, &req.tunables);
        let step = match memo {
            Some(memo) => crate::train::training_step_validated_memo(m, setup, (c, tun), memo),
            None => training_step_validated(m, setup, c, tun),
        };
        let step = step.unwrap_or(lean_step);
        Some(Best {
            setup: setup.clone(),
            memory,
            step,
        })
    });
    (best.ok_or_else(|| Box::new(fits.shortfall())), found)
}

/// The fastest of rungs `ks` (in search order: a later one must be > 0.01% faster), skipping
/// those whose bound (`bounds[k]`) cannot beat the best so far; records in `found[k]` the bound
/// each timed rung gives.
fn fastest_of(
    req: &PlanRequest,
    (fits, memo): (&Fits, Option<&ComputeMemo>),
    c: &ClusterSpec,
    (bounds, ks): (&[Option<f64>], impl Iterator<Item = usize>),
    (steps, found, slots): (&mut u64, &mut [Option<f64>], &mut [Option<StepPrologue>]),
) -> Option<(usize, StepTime)> {
    let mut best: Option<(usize, StepTime)> = None;
    for k in ks {
        let (rung, Some(_)) = &fits.fit[k] else {
            continue;
        };
        let s = &rung.0;
        let beats = |tps: f64| {
            best.as_ref()
                .is_none_or(|(_, b)| tps > b.tokens_per_second * 1.0001)
        };
        if bounds
            .get(k)
            .copied()
            .flatten()
            .is_some_and(|ub| !beats(ub))
        {
            continue;
        }
        *steps += 1;
        let beat = best.as_ref().map(|(_, b)| b.tokens_per_second * 1.0001);
        // (No slot for this rung: an empty one, left unread.)
        let mut spare = None;
        let slot = slots.get_mut(k).unwrap_or(&mut spare);
        let step = match time_rung(req, (s, c), (memo, beat), slot) {
            Some(Ok(step)) => step,
            // Stopped at its bound, which cannot beat the best: what its full step would bound.
            Some(Err(bound)) => {
                found[k] = Some(bound);
                continue;
            }
            None => continue,
        };
        found[k] = step_bound(&step);
        if beats(step.tokens_per_second) {
            best = Some((k, step));
        }
    }
    best
}

/// The lean step of rung `s` on `c`; `None` where it cannot be estimated. With the memo and a
/// best so far (`beat`: the tokens/s a rung must exceed), a rung whose own bound ([`step_bound`],
/// compute and bubble only) is not above `beat` stops there: `Err(bound)`, the bound its full
/// step gives (communication only adds), and it could not have become the best; one whose bound
/// is above `beat` but whose timed tokens/s is not stops before its step is built, with the same
/// `Err(bound)` (`found` records what `step_bound` of the built step would).
fn time_rung(
    req: &PlanRequest,
    (s, c): (&TrainingSetup, &ClusterSpec),
    (memo, beat): (Option<&ComputeMemo>, Option<f64>),
    slot: &mut Option<StepPrologue>,
) -> Option<Result<StepTime, f64>> {
    let (m, tun) = (&req.model, &req.tunables);
    let lean = match (memo, beat) {
        // No sourced peak for this chip and precision: the step is an error whatever else
        // holds (`step_time` fails on it), so none is built (its message formatted) to be
        // dropped here. Shared search only; the reference makes the call.
        (Some(_), _) if crate::train::training_peak(c, s.precision).is_none() => return None,
        (Some(memo), beat) => {
            crate::train::training_step_lean_slot(m, s, (c, tun), (memo, beat), slot)
        }
        (None, _) => training_step_lean(m, s, c, tun).map(Ok),
    };
    lean.ok()
}

/// An upper bound on a configuration's tokens/s on every cluster with this one's chip and GPU
/// count, whatever its links and node shape (GPUs per node × nodes): the step is compute +
/// pipeline bubble (which depend on the chip, the setup and the data-parallel degree, not on the
/// links nor the shape) plus communication terms that are never negative, so tokens per step ÷
/// (compute + bubble) is never exceeded (float rounding is monotone, so the bound holds bit for
/// bit). Tested: `step_floor_ignores_links` in tests/search_equivalence.rs.
pub fn step_bound(step: &StepTime) -> Option<f64> {
    let floor = step.compute.0 + step.pipeline_bubble.0;
    (floor > 0.0 && step.step.0 >= floor).then(|| step.tokens_per_step / floor)
}

/// Search one cluster. Returns the fastest fitting configuration, or the smallest shortfall.
pub fn best_config(
    req: &PlanRequest,
    base: &TrainingSetup,
    global_batch: u64,
    c: &ClusterSpec,
    evaluated: &mut u64,
) -> Result<Best, Box<Shortfall>> {
    let f = fits(req, base, global_batch, c);
    *evaluated += f.evaluated;
    // Invalid tunables: no step time can be estimated, as `training_step` would say.
    if req.tunables.validate().is_err() {
        return Err(Box::new(f.shortfall()));
    }
    fastest(req, (&f, None), c, &[], (&mut 0, &mut Vec::new(), &mut [])).0
}

/// Overlap options the search proposes for Megatron-Core where the user left them unset (issue
/// 10): the DP/TP communication overlaps NeMo's recipes switch on (`overlap_grad_reduce`,
/// `overlap_param_gather`, `tp_comm_overlap`); other frameworks keep their defaults. (The
/// interleaved schedule is a search dimension, [`Point::vp`].)
fn propose_overlap(s: &mut TrainingSetup) {
    if s.framework != Framework::Megatron {
        return;
    }
    let p = &mut s.parallel;
    p.overlap_grad_reduce = p.overlap_grad_reduce.or(Some(true));
    p.overlap_param_gather = p.overlap_param_gather.or(Some(true));
    if p.tp > 1 {
        p.tp_comm_overlap = p.tp_comm_overlap.or(Some(true));
    }
}

/// The recomputation of a configuration in words (`full recomputation`, `全量重计算`), not the
/// Rust name (`ZeRO-3 Full recompute` in the no-fit refusal); a mode without a message reads as
/// typed on the command line.
fn recompute_word(r: crate::workload::Recompute) -> Msg {
    let w = serde_json::to_value(r)
        .ok()
        .and_then(|v| v.as_str().map(str::to_string))
        .unwrap_or_default();
    let id = format!("recompute-{w}");
    if crate::i18n::has_message(crate::i18n::Lang::En, &id) {
        Msg::new(id)
    } else {
        Msg::raw(&w)
    }
}

/// What the chosen configuration asks of the training stack: an eager EP layout is
/// DeepSpeed-MoE's; a layout the default profile's MoE union gave Megatron-Core says so
/// ([`point_stacks`]), since the profile asked for was another.
fn stack_caveats(s: &TrainingSetup, asked: Option<Framework>) -> Vec<Text> {
    let mut v = Vec::new();
    let p = &s.parallel;
    if p.ep > 1 && s.framework.is_eager() {
        let mp = p.tp.max(1) * p.pp.max(1) * p.cp.max(1);
        let m = Msg::new("cav-ep-stack").arg("ep", p.ep);
        v.push(m.arg("zero", u64::from(p.zero)).arg("mp", mp).into());
    }
    if asked.is_some_and(|a| a != s.framework) && s.framework == Framework::Megatron {
        let m = Msg::new("cav-stack-megatron")
            .arg("tp", p.tp)
            .arg("pp", p.pp)
            .arg("ep", p.ep)
            .arg("zero", u64::from(p.zero));
        v.push(m.arg("peft", s.task.is_peft().to_string()).into());
    }
    v
}

/// The profile a training request asked for (`None` for serving).
fn asked_framework(req: &PlanRequest) -> Option<Framework> {
    match &req.job {
        super::Job::Train { setup, .. } => Some(setup.framework),
        super::Job::Serve(_) => None,
    }
}

/// The global batch a plan runs when it is larger than the one asked for (or the default): each
/// data-parallel rank takes at least one micro-batch, so DP 128 runs 128 sequences a step where
/// 64 were asked for, and the accumulation rounds up. The optimisation changes (learning rate,
/// number of steps), so the plan says so.
fn global_batch_raised(s: &TrainingSetup, dp: u64, want: u64) -> Option<Text> {
    let runs = s.micro_batch * s.grad_accum * dp.max(1);
    (runs > want).then(|| {
        Msg::new("cav-global-batch-raised")
            .arg("runs", runs)
            .arg("want", want)
            .arg("dp", dp)
            .arg("mb", s.micro_batch)
            .arg("accum", s.grad_accum)
            .into()
    })
}

/// The global batch (sequences or samples per optimizer step) a plan runs when none is given.
pub fn default_global_batch(setup: &TrainingSetup, is_opaque: bool) -> u64 {
    match (setup.task, is_opaque) {
        (_, true) => 1024,
        (TrainTask::Pretrain, false) => 1024,
        _ => 64,
    }
}

/// A training job as the planner receives it.
pub struct TrainJob<'a> {
    pub setup: &'a TrainingSetup,
    pub global_batch: Option<u64>,
    /// The user chose the precision: chips without it are skipped, not switched.
    pub precision_pinned: bool,
}

/// Chips the job's pinned precision (or attention) cannot run on: with the reason, once each,
/// when the user named the GPUs (`--gpu`); else one line naming them (a P40 without bf16 is no
/// reason a budget refusal should give to someone who never asked about it).
fn reject_chips(skipped: &[Skipped], named: bool, rejected: &mut Vec<Binding>) {
    let mut once: Vec<&Skipped> = Vec::new();
    for s in skipped {
        if !once.iter().any(|o| o.0 == s.0) {
            once.push(s);
        }
    }
    let Some(first) = once.first() else {
        return;
    };
    if !named {
        let gpus: Vec<&str> = once.iter().map(|(g, ..)| g.as_str()).collect();
        // The field the refusals share (audit r18: a Megatron CP refusal was tagged `precision`).
        let field = if once.iter().all(|o| o.1 == first.1) {
            chip_field(&first.1)
        } else {
            "precision"
        };
        rejected.push(Binding::msg(
            field,
            Msg::new("bind-chips-skipped")
                .arg("n", gpus.len())
                .arg("gpus", crate::error::names_or_none(&gpus)),
        ));
        return;
    }
    for (gpu, field, why) in once {
        rejected.push(Binding::msg(
            chip_field(field),
            Msg::new("bind-chip-skipped").arg("gpu", gpu.as_str()).arg(
                "why",
                crate::i18n::Arg::PerLang {
                    en: why.en.clone(),
                    zh: why.zh.clone(),
                },
            ),
        ));
    }
}

/// A chip whose setup has no sourced peak FLOP/s cannot be timed, so no plan can come from it:
/// skipped with that reason, not searched for memory and then reported as "no configuration fits
/// memory" (review r17b: the A30/A40/L4/P100 types of the bench fit memory at smaller
/// configurations and were dropped untimed; the refusal named the largest one tried).
fn timeable(gpu: &GpuSpec, setup: &TrainingSetup) -> Result<(), CoreError> {
    match crate::train::chip_training_peak(gpu, setup.precision) {
        Some(_) => Ok(()),
        None => Err(CoreError::invalid_msg(
            "gpu",
            &gpu.id,
            Msg::new("fix-no-peak-for-precision"),
        )),
    }
}

/// The field a chip's refusal names ([`crate::chip::check_support`]), as a binding constraint.
fn chip_field(field: &str) -> &'static str {
    match field {
        "attention" => "attention",
        "parallel.cp" => "parallel.cp",
        "gpu" => "gpu",
        _ => "precision",
    }
}

/// Where one (instance type, node count) of the search stands: its cluster and which shared
/// memory pass ([`Fits`]) and time pass ([`fastest`]) answer it.
struct Site<'a> {
    inst: &'a Instance,
    /// Index of the candidate (instance type) in the search's list.
    cand: usize,
    gpu: &'a GpuSpec,
    /// Index into the chips' adapted setups.
    chip: usize,
    nodes: u64,
    cluster: ClusterSpec,
    assumed: Option<Text>,
    fit: usize,
    time: usize,
}

/// What device memory reads of a cluster besides its GPU count and its communication buffers:
/// the software stack. The buffers (NCCL's, sized by the GPUs per node, the chip's links and,
/// across nodes, the network, train/nccl.rs) are taken out of a shared ladder's needs and added per cluster
/// ([`comm_buffer_bytes`], `with_comm`): shared with them, a 1 × 8 A100-40GB plan took the
/// ladder of 8 × 1 (0.5 GiB less NCCL buffer) and showed micro-batch 2 at 39.46 GiB of 39.44
/// (audit r8 #1); keyed on them, the ladders were no longer shared between node shapes and the
/// bench's 13B search evaluated 4.5 times the memory.
pub fn memory_facts(c: &ClusterSpec) -> &str {
    &c.gpu.stack
}

/// A node's network as NCCL's channel search reads it: bandwidth bits and link type
/// (`train/nccl_search.rs`); [`Work::net_class_of`] maps it to the channel counts it gives.
type NetKey = (u64, u8);

/// A chip's setup after `chip::adapt`, or why the job cannot run on it: the field the refusal
/// names (`precision`, `attention`, `parallel.cp`) and its message.
type ChipSetup = Result<(TrainingSetup, Vec<Text>), (String, Text)>;

/// A chip the job cannot run on: its id, the field named and the reason ([`reject_chips`]).
type Skipped = (String, String, Text);

/// A memory pass over the sites that share its chip, cluster shape and search space: one ladder
/// per point (empty in the reference mode, where the pass computes every rung itself).
struct FitJob {
    chip: usize,
    cluster: ClusterSpec,
    ladders: Vec<usize>,
}

/// One point's micro-batch ladder, shared by every cluster whose chips run the same adapted setup
/// on the same software stack with the same number of GPUs: memory depends on the cluster only
/// through those (tested: `memory_depends_on_setup_stack_and_gpu_count_only` in
/// tests/search_equivalence.rs); TP stays inside a node by the search space. Climbed up to the
/// largest GPU memory of those chips (`most`), it holds every rung any of them would evaluate.
struct LadderJob {
    class: usize,
    point: Point,
    cluster: ClusterSpec,
    most: f64,
}

/// The distinct work the sites need: memory ladders (shared across chips and cluster shapes),
/// memory passes per (chip, cluster shape, search space) and one time pass per distinct cluster.
/// Instance types of different providers and regions with the same GPU, node shape and links
/// share all of it. `share = false` gives every site its own passes, each computing every rung
/// (the reference).
#[derive(Default)]
struct Work {
    /// Distinct adapted setups.
    classes: Vec<TrainingSetup>,
    stacks: Vec<String>,
    ladders: Vec<LadderJob>,
    ladder_keys: rustc_hash::FxHashMap<(usize, usize, u64, Point), usize>,
    /// The ladders of a whole space: (setup, stack, GPUs, space) → each point's ladder.
    ladder_sets: rustc_hash::FxHashMap<(usize, usize, u64, usize), Vec<usize>>,
    fit_jobs: Vec<FitJob>,
    /// Memory passes by (chip, GPUs per node, nodes, network class across nodes (0: one
    /// node), search space).
    fit_keys: rustc_hash::FxHashMap<(usize, u64, u64, usize, usize), usize>,
    /// Network classes by (chip, GPUs per node, network): bandwidth bits, link.
    net_class: rustc_hash::FxHashMap<(usize, u64, NetKey), usize>,
    /// Network classes (1, 2, …) interned by the NCCL channel counts they give.
    net_classes: rustc_hash::FxHashMap<Vec<u64>, usize>,
    /// Distinct search spaces, and each by its content.
    spaces: Vec<Vec<Point>>,
    space_ids: rustc_hash::FxHashMap<Vec<Point>, usize>,
    /// The search space of (adapted setup, [`space_facts`]): all that [`search_space`] reads.
    space_of: rustc_hash::FxHashMap<(usize, SpaceFacts), usize>,
    /// Each chip's adapted setup, as an index into `classes`.
    chip_class: rustc_hash::FxHashMap<usize, usize>,
    time_jobs: Vec<(usize, ClusterSpec)>,
    time_keys: rustc_hash::FxHashMap<(usize, u64, u64), Vec<usize>>,
}

impl Work {
    /// The cluster's network as NCCL's device memory reads it: nodes whose channel counts agree
    /// (`nccl::network_channels`) share a class, so their memory passes are shared.
    fn net_class_of(&mut self, chip: usize, c: &ClusterSpec) -> usize {
        let node = (
            chip,
            c.gpus_per_node,
            (c.inter_bandwidth.0.to_bits(), c.inter_link as u8),
        );
        if let Some(&i) = self.net_class.get(&node) {
            return i;
        }
        let counts = crate::train::nccl::network_channels(c);
        let next = self.net_classes.len() + 1;
        let i = *self.net_classes.entry(counts).or_insert(next);
        self.net_class.insert(node, i);
        i
    }
    fn class_of(&mut self, setup: &TrainingSetup) -> usize {
        self.classes
            .iter()
            .position(|s| s == setup)
            .unwrap_or_else(|| {
                self.classes.push(setup.clone());
                self.classes.len() - 1
            })
    }
    fn stack_of(&mut self, c: &ClusterSpec) -> usize {
        let stack = memory_facts(c);
        match self.stacks.iter().position(|s| s == stack) {
            Some(i) => i,
            None => {
                self.stacks.push(stack.to_string());
                self.stacks.len() - 1
            }
        }
    }
    /// The ladder of `point` for setup `class` on the stack `stack` (`stack_of(c)`) of `c`.
    fn ladder_for(
        &mut self,
        (class, stack): (usize, usize),
        point: Point,
        c: &ClusterSpec,
    ) -> usize {
        let have = c.gpu.visible_memory().unwrap_or(Bytes(0.0)).0;
        let key = (class, stack, c.total_gpus(), point);
        if let Some(&i) = self.ladder_keys.get(&key) {
            self.ladders[i].most = self.ladders[i].most.max(have);
            return i;
        }
        self.ladders.push(LadderJob {
            class,
            point,
            cluster: c.clone(),
            most: have,
        });
        self.ladder_keys.insert(key, self.ladders.len() - 1);
        self.ladders.len() - 1
    }
    fn fit_for(
        &mut self,
        req: &PlanRequest,
        (chip, setup): (usize, &TrainingSetup),
        c: &ClusterSpec,
        share: bool,
    ) -> usize {
        if !share {
            self.fit_jobs.push(FitJob {
                chip,
                cluster: c.clone(),
                ladders: Vec::new(),
            });
            return self.fit_jobs.len() - 1;
        }
        // The space once per (adapted setup, cluster facts it reads), interned by content:
        // sites share a memory pass exactly when their chip, shape and space are the same.
        let class = match self.chip_class.get(&chip) {
            Some(&class) => class,
            None => {
                let class = self.class_of(setup);
                self.chip_class.insert(chip, class);
                class
            }
        };
        let shape = (class, space_facts(c));
        let space = match self.space_of.get(&shape) {
            Some(&i) => i,
            None => {
                let points = search_space(req, setup, c);
                let next = self.spaces.len();
                let i = *self.space_ids.entry(points.clone()).or_insert(next);
                if i == next {
                    self.spaces.push(points);
                }
                self.space_of.insert(shape, i);
                i
            }
        };
        // Across nodes NCCL's channels (the buffers) also read the network: keyed on the
        // channel counts it gives (`nccl::network_channels`), worked out once per node type.
        let net = if c.nodes > 1 {
            self.net_class_of(chip, c)
        } else {
            0
        };
        let key = (chip, c.gpus_per_node, c.nodes, net, space);
        if let Some(&i) = self.fit_keys.get(&key) {
            return i;
        }
        let stack = self.stack_of(c);
        let set = (class, stack, c.total_gpus(), space);
        let ladders = match self.ladder_sets.get(&set) {
            // Every point's ladder is there (`ladder_for` would only raise the memory to reach).
            Some(ids) => {
                let have = c.gpu.visible_memory().unwrap_or(Bytes(0.0)).0;
                for &i in ids {
                    self.ladders[i].most = self.ladders[i].most.max(have);
                }
                ids.clone()
            }
            None => {
                let points = self.spaces[space].clone();
                let ids: Vec<usize> = points
                    .iter()
                    .map(|p| self.ladder_for((class, stack), *p, c))
                    .collect();
                self.ladder_sets.insert(set, ids.clone());
                ids
            }
        };
        self.fit_jobs.push(FitJob {
            chip,
            cluster: c.clone(),
            ladders,
        });
        self.fit_keys.insert(key, self.fit_jobs.len() - 1);
        self.fit_jobs.len() - 1
    }
    fn time_for(&mut self, fit: usize, c: &ClusterSpec, share: bool) -> usize {
        let key = (
            fit,
            c.intra_bandwidth.0.to_bits(),
            c.inter_bandwidth.0.to_bits(),
        );
        let same = self.time_keys.entry(key).or_default();
        // The hash key narrows; the whole cluster decides (a field added later is never ignored).
        if let Some(&i) = same
            .iter()
            .find(|&&i| share && same_cluster(&self.time_jobs[i].1, c))
        {
            return i;
        }
        self.time_jobs.push((fit, c.clone()));
        same.push(self.time_jobs.len() - 1);
        self.time_jobs.len() - 1
    }
}

/// `a == b`, the chips compared by address first (`sites` gives every cluster of one chip row
/// the same copy). The pattern names every field, so one added later must be compared here.
fn same_cluster(a: &ClusterSpec, b: &ClusterSpec) -> bool {
    let ClusterSpec {
        gpu,
        gpus_per_node,
        nodes,
        intra_bandwidth,
        inter_link,
        inter_bandwidth,
        host_vcpus,
        host_not_x86,
    } = a;
    (std::sync::Arc::ptr_eq(gpu, &b.gpu) || **gpu == *b.gpu)
        && *gpus_per_node == b.gpus_per_node
        && *nodes == b.nodes
        && *intra_bandwidth == b.intra_bandwidth
        && *inter_link == b.inter_link
        && *inter_bandwidth == b.inter_bandwidth
        && *host_vcpus == b.host_vcpus
        && *host_not_x86 == b.host_not_x86
}

/// `f` over `items` on all cores (the calling thread and `threads - 1` scoped threads taking
/// items in turn), results in item order. The caller works too: a ~20 ms search makes six of
/// these calls, and each spawned thread's start and join is on the critical path.
pub(crate) fn par_map<T: Sync, R: Send>(
    items: &[T],
    threads: usize,
    f: impl Fn(&T) -> R + Sync,
) -> Vec<R> {
    par_map_with(items, threads, |_: &mut (), item| f(item))
}

/// [`par_map`] where each worker (the calling thread and each helper) has a scratch `S` of its
/// own, made once by `S::default()` and passed to `f` for every item the worker takes: buffers
/// that keep their allocations from one item to the next. `f` must leave nothing in it that
/// its result depends on for the next item (the items are taken in no fixed order).
pub(crate) fn par_map_with<T: Sync, R: Send, S: Default>(
    items: &[T],
    threads: usize,
    f: impl Fn(&mut S, &T) -> R + Sync,
) -> Vec<R> {
    let threads = threads.min(items.len());
    if threads <= 1 {
        let mut scratch = S::default();
        return items.iter().map(|item| f(&mut scratch, item)).collect();
    }
    let next = std::sync::atomic::AtomicUsize::new(0);
    let take_in_turn = || {
        // Its even share at once (a result can be large: grown lists copied them).
        let mut out = Vec::with_capacity(items.len().div_ceil(threads));
        let mut scratch = S::default();
        loop {
            let i = next.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
            let Some(item) = items.get(i) else { break };
            out.push((i, f(&mut scratch, item)));
        }
        out
    };
    let mut done: Vec<(usize, R)> = std::thread::scope(|scope| {
        let helpers: Vec<_> = (1..threads).map(|_| scope.spawn(take_in_turn)).collect();
        let mut done = take_in_turn();
        for h in helpers {
            done.extend(h.join().unwrap_or_else(|e| std::panic::resume_unwind(e)));
        }
        done
    });
    done.sort_by_key(|(i, _)| *i);
    done.into_iter().map(|(_, r)| r).collect()
}

/// Drops `garbage` on a thread of its own, off the caller's critical path: freeing a search's
/// passes (thousands of allocations) takes ~1 ms of one core, which a second core does while
/// this one ranks the plans. With one thread, or where no thread can be started, it is dropped
/// here. Nothing is read back from it, so the answer cannot depend on when it finishes.
pub(crate) fn drop_aside<G: Send + 'static>(threads: usize, garbage: G) {
    if threads > 1 {
        // A thread that cannot start drops its closure, and `garbage` with it, here.
        let _detached = std::thread::Builder::new().spawn(move || drop(garbage));
    }
}

/// Threads for the search: the machine's cores (1 in the reference mode).
pub(crate) fn search_threads(mode: SearchMode) -> usize {
    match mode {
        SearchMode::Exhaustive => 1,
        SearchMode::Shared => std::thread::available_parallelism().map_or(1, |n| n.get()),
    }
}

/// The chips' adapted setups (one per distinct GPU row) and the sites of the search.
fn sites<'a>(
    req: &PlanRequest,
    job: &TrainJob,
    cands: &[(&'a Instance, &'a GpuSpec)],
    share: bool,
    work: &mut Work,
) -> (Vec<ChipSetup>, Vec<Site<'a>>, Vec<Skipped>) {
    // One shared copy of each chip row for all its instance types' clusters: clusters of one
    // chip hold the same object, so the time passes' prologues ([`Known`]) and the cluster
    // comparisons of `Work::time_for` see the same chip by its address first.
    let mut chips: Vec<(*const GpuSpec, ChipSetup, std::sync::Arc<GpuSpec>)> = Vec::new();
    let node_choices = node_counts(req.constraints.max_nodes);
    // Sized first: a site holds its cluster, and a growing list copied them at every doubling.
    let mut out = Vec::with_capacity(cands.len() * node_choices.len());
    let mut skipped = Vec::new();
    for (cand, &(inst, gpu)) in cands.iter().enumerate() {
        let chip = match chips.iter().position(|(g, ..)| std::ptr::eq(*g, gpu)) {
            Some(i) => i,
            None => {
                let (setup, notes) = crate::chip::adapt(
                    &req.model,
                    job.setup,
                    gpu,
                    crate::chip::Pinned {
                        precision: job.precision_pinned,
                        attention: false,
                    },
                );
                let ok = crate::chip::check_support(&req.model, &setup, gpu)
                    .and_then(|()| timeable(gpu, &setup))
                    .map(|()| (setup, notes))
                    .map_err(|e| {
                        let field = e.field().unwrap_or("precision").to_string();
                        (field, e.message().into())
                    });
                chips.push((gpu, ok, std::sync::Arc::new(gpu.clone())));
                chips.len() - 1
            }
        };
        let setup = match &chips[chip].1 {
            Ok((s, _)) => s,
            Err((field, e)) => {
                skipped.push((gpu.id.clone(), field.clone(), e.clone()));
                continue;
            }
        };
        let shared_gpu = &chips[chip].2;
        for &nodes in &node_choices {
            let Ok((cluster, assumed)) = instance_cluster(inst, shared_gpu, nodes) else {
                continue;
            };
            let fit = work.fit_for(req, (chip, setup), &cluster, share);
            let time = work.time_for(fit, &cluster, share);
            out.push(Site {
                inst,
                cand,
                gpu,
                chip,
                nodes,
                cluster,
                assumed,
                fit,
                time,
            });
        }
    }
    (chips.into_iter().map(|(_, s, _)| s).collect(), out, skipped)
}

/// What one site (instance type × node count) of the search gives, before the constraints
/// that compare sites with each other.
enum Outcome {
    /// Not searched: its chip cannot run the job.
    Skip,
    /// Nothing fits memory: configurations evaluated and the smallest shortfall.
    Short(u64, Box<Shortfall>),
    /// Fits, but takes longer than the deadline (hours).
    OverDeadline(u64, f64),
    /// Fits, but has no price in the chosen mode to check against the budget (and what it costs
    /// on demand, where that has a price and meets the deadline).
    Unpriced(u64, Option<f64>),
    /// Fits, but costs more than the budget (chosen ¥, and the cheaper modes the user did not
    /// choose).
    OverBudget(u64, f64, OtherModes),
    /// Fits, but its interruptions would stretch it past `MAX_INTERRUPTION_OVERHEAD`: why.
    Interrupted(u64, Box<Msg>),
    Plan(Box<Plan>),
}

/// The plan of one site from its memory and time passes, or why there is none: its caveats, its
/// storage and data path, its hours with checkpoints and interruptions, its costs, the
/// constraints' checks, then the plan.
fn site_outcome(
    req: &PlanRequest,
    cat: &Catalog,
    (tokens, gb): (f64, u64),
    site: &Site,
    chips: &[ChipSetup],
    (fit_results, time_results): (&[Option<Fits>], &[Option<Timed>]),
    prices: &[Option<InstancePrices>],
) -> Outcome {
    let chip_notes = match &chips[site.chip] {
        Ok((_, notes)) => notes,
        Err(_) => return Outcome::Skip,
    };
    let (Some(fitted), Some((found, _))) = (&fit_results[site.fit], &time_results[site.time])
    else {
        return Outcome::Skip;
    };
    let evaluated = fitted.evaluated;
    // Borrowed: the setup and memory are copied into the plan only once it passes the checks.
    let best = match found {
        Ok(b) => b,
        Err(short) => return Outcome::Short(evaluated, short.clone()),
    };
    let mut caveats = site_caveats(req, site, chip_notes, best, gb);
    let mut step = best.step.clone();
    let price = prices[site.cand].as_ref();
    let (storage, data, compute_hours) = site_storage(
        req,
        cat,
        site,
        price,
        best,
        tokens,
        (&mut step, &mut caveats),
    );
    let job = (&data, storage.as_ref(), compute_hours);
    let timing = match site_timing(req, site, job, &mut caveats) {
        Ok(t) => t,
        Err(why) => return Outcome::Interrupted(evaluated, Box::new(why)),
    };
    let priced = site_costs(req, cat, site, price, &timing, storage, &mut caveats);
    if let Some(miss) = site_misses(&req.constraints, evaluated, &priced) {
        return miss;
    }
    let plan = site_plan(site, best, (step, data), priced, caveats, evaluated);
    Outcome::Plan(Box::new(plan))
}

/// The plan of a site that passed every check.
fn site_plan(
    site: &Site,
    best: &Best,
    (step, data): (StepTime, DataPath),
    priced: SitePriced,
    caveats: Vec<Text>,
    evaluated: u64,
) -> Plan {
    let train = TrainDetail {
        setup: best.setup.clone(),
        memory: best.memory.clone(),
        step,
        data,
        storage: priced.storage,
        spot: priced.spot,
        failures: priced.failures,
        checkpoints: priced.checkpoints,
        evaluated,
    };
    Plan {
        instance: site.inst.clone(),
        gpu: site.cluster.gpu.clone(),
        usable_memory_gib: site.gpu.visible_memory().map(|b| b.gib()),
        nodes: site.nodes,
        total_gpus: site.cluster.total_gpus() as f64,
        cluster: site.cluster.clone(),
        network_assumed: site.assumed.as_ref().map(|t| t.en.clone()),
        train: Some(train),
        serve: None,
        hours: priced
            .chosen
            .as_ref()
            .map(|x| x.hours)
            .unwrap_or(priced.run_hours),
        costs: priced.costs,
        chosen: priced.chosen,
        caveats,
        advice: Vec::new(),
        also: Vec::new(),
    }
}

/// A site's caveats before its input path: the network assumed, the chip's notes, the stack's,
/// a raised global batch, a lower-bound memory figure and a non-transformer's efficiency.
fn site_caveats(
    req: &PlanRequest,
    site: &Site,
    chip_notes: &[Text],
    best: &Best,
    gb: u64,
) -> Vec<Text> {
    let mut caveats: Vec<Text> = site.assumed.iter().cloned().collect();
    caveats.extend(chip_notes.iter().cloned());
    caveats.extend(stack_caveats(&best.setup, asked_framework(req)));
    caveats.extend(global_batch_raised(
        &best.setup,
        best.memory.data_parallel,
        gb,
    ));
    if let Some(act) = best
        .memory
        .items
        .iter()
        .find(|x| x.name == "activations" && x.basis.en.starts_with("UNKNOWN"))
    {
        caveats.push(
            Msg::new("cav-memory-lower-bound")
                .arg("basis", act.basis.en.trim_start_matches("UNKNOWN: "))
                .into(),
        );
    }
    caveats.extend(margin_caveat(site.gpu, best));
    if req.model.transformer().is_none() {
        caveats.push(
            Msg::new("cav-cnn-efficiency")
                .arg("name", best.step.efficiency_name.as_str())
                .arg("pct", format!("{:.0}", best.step.efficiency_used * 100.0))
                .into(),
        );
    }
    caveats
}

/// A plan whose free memory is inside the memory model's error: the search takes one only when
/// no configuration of its cluster has the margin ([`fastest`]), so it says so and names the
/// micro-batch to fall back on (audit r8 #1).
fn margin_caveat(gpu: &GpuSpec, best: &Best) -> Option<Text> {
    let have = gpu.visible_memory()?;
    let need = best.memory.device_total;
    if super::clear_of_error(need.0, have.0) {
        return None;
    }
    let mb = best.setup.micro_batch;
    Some(
        Msg::new("cav-memory-margin")
            .arg(
                "free",
                format!("{:.1}", Bytes((have.0 - need.0).max(0.0)).gib()),
            )
            .arg("have", format!("{:.1}", have.gib()))
            .arg(
                "pct",
                format!("{:.1}", super::MEMORY_MARGIN_FRACTION * 100.0),
            )
            .arg("mb", mb)
            .arg("smaller", (mb / 2).max(1))
            .into(),
    )
}

/// A site's storage, chosen for what the GPUs demand of the input path and what a second of
/// checkpoint write costs; `step` capped where the input path is short (said in `caveats`).
/// Returns the storage, the data path at the capped rate and the compute hours.
fn site_storage(
    req: &PlanRequest,
    cat: &Catalog,
    site: &Site,
    price: Option<&InstancePrices>,
    best: &Best,
    tokens: f64,
    (step, caveats): (&mut StepTime, &mut Vec<Text>),
) -> (Option<StorageChoice>, DataPath, f64) {
    // What the GPUs demand from the input pipeline (before any cap).
    let data = data_path(&req.model, &best.setup, step, &req.tunables);
    // At least one optimizer step, as `train::training_totals` (audit r12 #1).
    let tokens = tokens.max(step.tokens_per_step);
    let uncapped_hours = tokens / step.tokens_per_second / 3600.0;
    let at = (cat, site.inst, site.nodes);
    let gpus = site.cluster.total_gpus() as f64;
    let writes = WriteCost::of(req, at, price, (uncapped_hours, &data, gpus));
    let (inst, nodes) = (site.inst, site.nodes);
    let storage = input_limits(req, cat, inst, nodes, (&data, writes), step, caveats);
    // What the pipeline then really reads, at the capped rate.
    let data = data_path(&req.model, &best.setup, step, &req.tunables);
    let compute_hours = tokens / step.tokens_per_second / 3600.0;
    (storage, data, compute_hours)
}

/// A site's hours before billing: compute, its checkpoint stalls and start-up, and with the
/// failures of every mode.
struct SiteTiming {
    checkpoints: super::money::CheckpointSchedule,
    hours: f64,
    run_hours: f64,
    ck: Checkpointing,
    failures: super::money::FailurePlan,
}

/// The site's hours with its checkpoint stalls and failures, or why they put it past the bound
/// (stalls, failures, or spot's preemptions under `--billing spot`).
fn site_timing(
    req: &PlanRequest,
    site: &Site,
    (data, storage, compute_hours): (&DataPath, Option<&StorageChoice>, f64),
    caveats: &mut Vec<Text>,
) -> Result<SiteTiming, Msg> {
    let write_s = storage
        .map(|s| s.checkpoint_write_s)
        .unwrap_or(data.checkpoint_size.0 / FALLBACK_WRITE_BYTES_PER_S);
    let gpus = site.cluster.total_gpus() as f64;
    let interval = checkpoint_interval_s(compute_hours, write_s, gpus, &req.tunables);
    let stall_h = checkpoint_stall_hours(compute_hours, write_s, interval, &req.tunables);
    if let Some(why) = stalls_beyond_bound(stall_h, compute_hours, write_s, interval) {
        return Err(why);
    }
    let hours = compute_hours + stall_h + req.tunables.startup_hours;
    let paid = stall_h / compute_hours.max(1e-12);
    let ck = checkpointing(data, (write_s, paid, interval), gpus, &req.tunables);
    let failures = ck.failures();
    let c = &req.constraints;
    if let Some(why) = interruptions_beyond_bound(&ck, &failures, site.nodes, c, caveats) {
        return Err(why);
    }
    // The hours with interruptions (`costs_at` stretches every mode's hours the same way).
    let run_hours = hours * (1.0 + failures.overhead_fraction);
    let checkpoints = schedule(compute_hours, write_s, (interval, gpus), &req.tunables);
    Ok(SiteTiming {
        checkpoints,
        hours,
        run_hours,
        ck,
        failures,
    })
}

/// A site's costs under every billing, the one chosen, spot's plan, the storage with its cost
/// added, and the hours of a plan without a price.
struct SitePriced {
    checkpoints: super::money::CheckpointSchedule,
    costs: Vec<BillingCost>,
    chosen: Option<BillingCost>,
    spot: Option<super::money::SpotPlan>,
    storage: Option<StorageChoice>,
    run_hours: f64,
    failures: Option<super::money::FailurePlan>,
}

fn site_costs(
    req: &PlanRequest,
    cat: &Catalog,
    site: &Site,
    price: Option<&InstancePrices>,
    t: &SiteTiming,
    storage: Option<StorageChoice>,
    caveats: &mut Vec<Text>,
) -> SitePriced {
    let (c, nodes) = (&req.constraints, site.nodes);
    let checkpoint = Some(t.ck);
    let (mut costs_v, mut chosen, spot) = match price {
        Some(p) => costs_at(p, nodes, t.hours, c, checkpoint),
        None => costs(cat, site.inst, nodes, t.hours, c, &req.tunables, checkpoint),
    };
    let run_hours = match &chosen {
        None => unpriced_hours(&t.ck, nodes, c, (t.hours, t.run_hours), caveats),
        Some(_) => t.run_hours,
    };
    let storage = storage.map(|mut s| {
        add_storage_cost(&mut s, &mut costs_v, &mut chosen);
        s
    });
    SitePriced {
        checkpoints: t.checkpoints.clone(),
        costs: costs_v,
        chosen,
        spot,
        storage,
        run_hours,
        failures: (t.ck.failure_rate_per_s > 0.0).then_some(t.failures.clone()),
    }
}

/// Why a priced site is no plan: past the deadline, no price to check the budget against, or
/// over the budget (with spot's cost, for the refusal to name).
fn site_misses(c: &super::Constraints, evaluated: u64, p: &SitePriced) -> Option<Outcome> {
    if let Some(d) = c.deadline_hours {
        // The chosen mode's hours: spot's expected hours stretch by its preemptions.
        let hours = p
            .chosen
            .as_ref()
            .map_or(p.run_hours, |x| x.hours.max(p.run_hours));
        if hours > d {
            return Some(Outcome::OverDeadline(evaluated, hours));
        }
    }
    if c.budget_cny.is_some() && p.chosen.is_none() {
        // Nothing to compare on-demand with: any on-demand price in time is named (review r16 #7).
        let on_demand = OtherModes::of(p, f64::INFINITY, c.deadline_hours).on_demand;
        return Some(Outcome::Unpriced(evaluated, on_demand));
    }
    let (b, ch) = c.budget_cny.zip(p.chosen.as_ref())?;
    (ch.cny > b).then(|| {
        let other = OtherModes::of(p, ch.cny, c.deadline_hours);
        Outcome::OverBudget(evaluated, ch.cny, other)
    })
}

/// What a site over the budget would cost in the modes a refusal names beside the chosen one:
/// spot (if the job tolerates interruption) and on-demand, when the user's `--billing` chose a
/// dearer mode (expert r16 q26: a 3.9-day job under `--billing monthly` pays a whole month,
/// ¥121386 against a ¥30000 budget, while on-demand costs ¥25859, and the refusal named spot only).
#[derive(Clone, Copy, Debug, Default)]
struct OtherModes {
    spot: Option<f64>,
    on_demand: Option<f64>,
}

impl OtherModes {
    /// `chosen`: the chosen mode's ¥; on-demand counts only where it is cheaper and its hours
    /// meet the deadline.
    fn of(p: &SitePriced, chosen: f64, deadline: Option<f64>) -> OtherModes {
        let mode = |b: crate::catalog::Billing| p.costs.iter().find(|x| x.billing == b);
        let in_time = |h: f64| deadline.is_none_or(|d| h.max(p.run_hours) <= d);
        OtherModes {
            spot: mode(crate::catalog::Billing::Spot).map(|x| x.cny),
            on_demand: mode(crate::catalog::Billing::OnDemand)
                .filter(|x| x.cny < chosen && in_time(x.hours))
                .map(|x| x.cny),
        }
    }
}

/// Why a site has no plan when its interruptions put the job past
/// [`super::money::MAX_INTERRUPTION_OVERHEAD`]: the failures of every mode, or spot's preemptions
/// where spot is the billing asked for (otherwise spot's row is left out with a caveat).
fn interruptions_beyond_bound(
    ck: &Checkpointing,
    failures: &super::money::FailurePlan,
    nodes: u64,
    c: &super::Constraints,
    caveats: &mut Vec<Text>,
) -> Option<Msg> {
    // Written only where a message says it (most sites pass: no format per site).
    let max = || format!("{:.0}", super::money::MAX_INTERRUPTION_OVERHEAD + 1.0);
    if failures.absurd() {
        return Some(
            Msg::new("bind-failures-beyond-bound")
                .arg("per_day", format!("{:.1}", failures.per_day))
                .arg("restart", format!("{:.0}", ck.failure_restart_s / 60.0))
                .arg("max", max()),
        );
    }
    let per_hour = super::money::spot_beyond_bound(ck, nodes, c)?;
    let m = Msg::new("spot-beyond-bound")
        .arg("per_hour", format!("{per_hour:.3}"))
        .arg("nodes", nodes)
        .arg("restart", format!("{:.0}", c.restart_minutes))
        .arg("max", max());
    if c.billing == super::BillingChoice::Spot {
        return Some(m);
    }
    caveats.push(m.into());
    None
}

/// The hours of a plan with no price: under `--billing spot` its spot preemptions are in them,
/// as in every priced plan's spot row (review r7 #6: an unpriced plan listed its uninterrupted
/// time beside priced plans stretched by spot, and so ranked as if preemptions spared it), with
/// a caveat naming the overhead; otherwise the failures' `run_hours`. A spot overhead past the
/// bound never gets here (`interruptions_beyond_bound` refuses the site first).
fn unpriced_hours(
    ck: &Checkpointing,
    nodes: u64,
    c: &super::Constraints,
    (hours, run_hours): (f64, f64),
    caveats: &mut Vec<Text>,
) -> f64 {
    if !(c.billing == super::BillingChoice::Spot && c.interruptible) {
        return run_hours;
    }
    let (tau, ovh) = super::money::spot_overhead_of(ck, nodes, c);
    caveats.push(
        Msg::new("cav-unpriced-spot")
            .arg(
                "per_hour",
                format!("{:.3}", c.preemption_rate * nodes as f64),
            )
            .arg("nodes", nodes)
            .arg("interval", format!("{:.0}", tau / 60.0))
            .arg("overhead", format!("{:.1}", ovh * 100.0))
            .into(),
    );
    hours * (1.0 + ovh)
}

/// Plans left out for having no price to check the budget against: under `--billing X` the
/// type has no X price (not "no known price": it may well have another mode's).
fn unpriced_msg(n: usize, billing: super::BillingChoice) -> Msg {
    use crate::catalog::Billing;
    let forced = match billing {
        super::BillingChoice::Auto => None,
        super::BillingChoice::OnDemand => Some(Billing::OnDemand),
        super::BillingChoice::Monthly => Some(Billing::Monthly),
        super::BillingChoice::Spot => Some(Billing::Spot),
    };
    match forced {
        None => Msg::new("bind-unpriced-left-out").arg("n", n),
        Some(b) => Msg::new("bind-unpriced-billing-left-out")
            .arg("n", n)
            .arg("billing", crate::i18n::names::billing(b)),
    }
}

/// The time passes, one task per group (`groups`: the time passes of the memory passes of one
/// chip and GPU count, those of one memory pass together): the first cluster of a memory pass
/// is timed with the bounds the group knows and bounds the others (same chip and GPU count,
/// other node shapes, links or NCCL channel counts). Per group: (time pass, its answer, steps
/// timed) and the full memory estimates made. The groups are handed out largest first (by
/// rungs to time), so that a large one started last does not leave the other cores idle; each
/// group's answers go to its own time passes, whatever the order. `memo` (shared search only)
/// serves every group's micro-batch compute and the kept configurations' full steps: a
/// configuration recurs on other links, node counts and instance types of its chip.
fn time_passes(
    req: &PlanRequest,
    work: &Work,
    (groups, memo): (&[Vec<usize>], Option<&ComputeMemo>),
    fit_results: &[Option<Fits>],
    threads: usize,
) -> Vec<GroupTimes> {
    let rungs = |group: &[usize]| -> usize {
        let fits = group.iter().map(|&t| &fit_results[work.time_jobs[t].0]);
        fits.flatten().map(|f| f.fit.len()).sum()
    };
    let mut order: Vec<&[usize]> = groups.iter().map(|g| &g[..]).collect();
    order.sort_by_cached_key(|g| std::cmp::Reverse(rungs(g)));
    // A worker's pass and what it knows are emptied for each group (`Known::forget`; `close`
    // ends the pass), and keep their allocations from one group to the next.
    par_map_with(
        &order,
        threads,
        |(pass, known): &mut (Pass, Known), group| {
            known.forget();
            let mut out = Vec::new();
            let mut full = 0;
            for &t in group.iter() {
                let (fit, cluster) = &work.time_jobs[t];
                let Some(f) = &fit_results[*fit] else {
                    continue;
                };
                if pass.fit != Some(*fit) {
                    full += pass.close(fit_results, Some(&mut *known));
                    pass.open(*fit, f, cluster, known);
                }
                known.check(cluster, pass);
                let mut steps = 0;
                let timed = (&mut steps, &mut pass.explained, &mut pass.slots[..]);
                let (found, b) = fastest(req, (f, memo), cluster, &pass.bounds, timed);
                // Every timed rung's bound holds on every cluster of this chip and shape.
                for (have, new) in pass.bounds.iter_mut().zip(b) {
                    *have = have.or(new);
                }
                out.push((t, found, steps));
            }
            // (The group's last memory pass: nothing after it reads what it knows.)
            full += pass.close(fit_results, None);
            (out, full)
        },
    )
}

/// One memory pass's state in a time-pass group: its rungs' bounds ([`step_bound`]) and step
/// prologues (`train::training_step_lean_slot`), indexed like its rungs, and the kept
/// configurations' full memory estimates (these read the NCCL buffers, so they are the pass's own).
#[derive(Default)]
struct Pass {
    fit: Option<usize>,
    bounds: Vec<Option<f64>>,
    slots: Vec<Option<StepPrologue>>,
    explained: Vec<Option<std::sync::Arc<TrainingMemory>>>,
}

impl Pass {
    /// Starts memory pass `fit` (`f`) on cluster `c` with what the group knows of its rungs.
    fn open(&mut self, fit: usize, f: &Fits, c: &ClusterSpec, known: &mut Known) {
        known.on_cluster(c);
        self.fit = Some(fit);
        // Refilled in place: the lists of the pass before keep their allocations.
        self.bounds.clear();
        self.slots.clear();
        if known.rungs.is_empty() {
            self.bounds.resize(f.fit.len(), None);
            self.slots.resize(f.fit.len(), None);
        } else {
            for (bound, slot) in f.fit.iter().map(|r| known.of(&r.0)) {
                self.bounds.push(bound);
                self.slots.push(slot);
            }
        }
    }

    /// Ends the open memory pass (if any): its rungs' bounds and prologues go to `known` where
    /// given. Returns the full memory estimates it made.
    fn close(&mut self, fits: &[Option<Fits>], known: Option<&mut Known>) -> u64 {
        let Some(f) = self.fit.take().and_then(|i| fits[i].as_ref()) else {
            return 0;
        };
        if let Some(known) = known {
            known.rungs.reserve(f.fit.len());
            for (k, r) in f.fit.iter().enumerate() {
                let slot = self.slots.get(k).copied().flatten();
                known.keep(&r.0, (self.bounds.get(k).copied().flatten(), slot));
            }
        }
        let full = self.explained.iter().flatten().count() as u64;
        self.explained.clear();
        full
    }
}

/// What a time-pass group knows of its rungs across memory passes, by the rung's address (the
/// ladders are shared by GPU count: one configuration of a point is one [`Rung`] in every
/// memory pass of the group that holds it): the bound a timed rung gives and its step
/// prologue. Both read the model, the setup, the chip and the GPU count only, not the links,
/// the NCCL buffers nor the node shape that set the group's memory passes apart (the one check
/// that reads the shape is redone on a prologue from another shape:
/// `train::training_step_lean_slot`); kept only while the clusters have the chip (equal, if not
/// the same object) and GPU count they were computed on.
#[derive(Default)]
struct Known {
    on: Option<(std::sync::Arc<GpuSpec>, u64)>,
    rungs: rustc_hash::FxHashMap<usize, (Option<f64>, Option<StepPrologue>)>,
}

impl Known {
    /// Knows nothing, as [`Known::default`], keeping the map's allocation.
    fn forget(&mut self) {
        self.on = None;
        self.rungs.clear();
    }

    /// Whether cluster `c` has the chip and GPU count of what is known.
    fn holds_for(&self, c: &ClusterSpec) -> bool {
        self.on.as_ref().is_some_and(|(g, total)| {
            *total == c.total_gpus() && (std::sync::Arc::ptr_eq(g, &c.gpu) || **g == *c.gpu)
        })
    }

    /// Forgets everything unless `c` has the chip and GPU count it was computed on.
    fn on_cluster(&mut self, c: &ClusterSpec) {
        if !self.holds_for(c) {
            self.rungs.clear();
            self.on = Some((c.gpu.clone(), c.total_gpus()));
        }
    }

    /// Before timing on `c`: if `c` has another chip or GPU count (not within one memory pass,
    /// whose clusters share both), the open pass's bounds and prologues are forgotten too.
    fn check(&mut self, c: &ClusterSpec, pass: &mut Pass) {
        if !self.holds_for(c) {
            self.on_cluster(c);
            pass.bounds.iter_mut().for_each(|b| *b = None);
            pass.slots.iter_mut().for_each(|s| *s = None);
        }
    }

    fn of(&self, rung: &Rung) -> (Option<f64>, Option<StepPrologue>) {
        let key = std::sync::Arc::as_ptr(rung) as usize;
        self.rungs.get(&key).copied().unwrap_or((None, None))
    }

    fn keep(&mut self, rung: &Rung, (bound, slot): (Option<f64>, Option<StepPrologue>)) {
        let key = std::sync::Arc::as_ptr(rung) as usize;
        let have = self.rungs.entry(key).or_insert((None, None));
        have.0 = have.0.or(bound);
        have.1 = have.1.or(slot);
    }
}

/// One memory pass's time passes: (time pass, its answer, steps timed), and the full memory
/// estimates made.
type GroupTimes = (Vec<(usize, Result<Best, Box<Shortfall>>, u64)>, u64);

/// A time pass's answer and the step evaluations it made.
type Timed = (Result<Best, Box<Shortfall>>, u64);

/// What the passes used on the way (ladders, groups, the compute memo's entries), to be freed.
type Spent = Box<dyn Send>;

pub fn search(
    req: &PlanRequest,
    job: &TrainJob,
    cands: &[(&Instance, &GpuSpec)],
    cat: &Catalog,
    rejected: &mut Vec<Binding>,
    (mode, work_done): (SearchMode, &mut SearchWork),
) -> Result<(Vec<Plan>, u64), CoreError> {
    let (setup, global_batch) = (job.setup, job.global_batch);
    setup.validate()?;
    // Once here instead of in every step-time estimate.
    req.tunables.validate()?;
    let tokens = job_tokens(&req.model, setup).ok_or_else(|| {
        CoreError::invalid_msg(
            "training.tokens",
            crate::error::MISSING,
            Msg::new("fix-say-how-much-data"),
        )
    })?;
    check_pinned_split(req, setup)?;
    let is_opaque = req.model.transformer().is_none();
    let gb = global_batch.unwrap_or_else(|| default_global_batch(setup, is_opaque));
    let (sites, outcomes, skipped_chips) =
        site_outcomes(req, job, cands, cat, (tokens, gb), (mode, work_done));
    let sized = (tokens, gb);
    let outcomes = retry_with_cp(
        req,
        job,
        (cands, cat),
        sized,
        (mode, work_done),
        (&sites, outcomes),
    );
    // Sized first: a plan is several KB, and a growing list would copy them at every doubling.
    let found = outcomes.iter().filter(|o| matches!(o, Outcome::Plan(_)));
    let mut plans = Vec::with_capacity(found.count());
    let mut misses = Misses::default();
    for (site, outcome) in sites.iter().zip(outcomes) {
        if let Some(p) = misses.add(site, outcome) {
            plans.push(p);
        }
    }
    reject_chips(&skipped_chips, req.constraints.gpus_named, rejected);
    if misses.unpriced > 0 {
        rejected.push(Binding::msg(
            "budget",
            unpriced_msg(misses.unpriced, req.constraints.billing),
        ));
    }
    let evaluated_total = misses.evaluated;
    if plans.is_empty() {
        misses.explain(req, rejected);
    } else {
        misses.beside_plans(rejected);
    }
    Ok((plans, evaluated_total))
}

/// Every site of the search over `cands` and its outcome (in site order), and the chips that
/// cannot run the job.
fn site_outcomes<'a>(
    req: &PlanRequest,
    job: &TrainJob,
    cands: &[(&'a Instance, &'a GpuSpec)],
    cat: &Catalog,
    (tokens, gb): (f64, u64),
    (mode, work_done): (SearchMode, &mut SearchWork),
) -> (Vec<Site<'a>>, Vec<Outcome>, Vec<Skipped>) {
    let share = mode == SearchMode::Shared;
    let mut work = Work::default();
    let (chips, sites, skipped_chips) = sites(req, job, cands, share, &mut work);
    let threads = search_threads(mode);
    let (fit_results, time_results, spent) =
        run_passes(req, &work, &chips, (gb, share, threads), work_done);
    // Prices once per instance type with a fitting configuration, for all its node counts (the
    // reference: per site).
    let mut priced: Vec<Option<&Instance>> = vec![None; cands.len()];
    for site in sites.iter().filter(|_| share) {
        if matches!(&time_results[site.time], Some((Ok(_), _))) {
            priced[site.cand] = Some(site.inst);
        }
    }
    let c = &req.constraints;
    let prices = par_map(&priced, threads, |inst| {
        inst.map(|i| InstancePrices::of(cat, i, c, &req.tunables, true))
    });
    // Each site on its own (all cores), then folded in site order.
    let outcomes = par_map(&sites, threads, |site| {
        let passes = (&fit_results[..], &time_results[..]);
        site_outcome(req, cat, (tokens, gb), site, &chips, passes, &prices)
    });
    drop_aside(threads, (fit_results, time_results, prices, work, spent));
    (sites, outcomes, skipped_chips)
}

/// Whether a search that found nothing to fit on some instance type tries context parallelism
/// there below [`CP_MIN_SEQ`]: a transformer whose CP the workload does not state, at a
/// sequence CP's load-balanced split divides (Megatron-Core and TE split each sequence into
/// 2 × cp chunks), under a stack that has CP (LitGPT has none; llm.c's fused classifier pins
/// CP 1 in the search's degrees, so a retry would only search the same points again).
fn cp_retry_applies(req: &PlanRequest, setup: &TrainingSetup) -> bool {
    let pin = pins(req);
    req.model.transformer().is_some()
        && !pin.cp
        && !pin.cp_for_memory
        && setup.seq_len < CP_MIN_SEQ
        && crate::workload::cp_splits_sequence(setup.seq_len, 2)
        && setup.framework != Framework::LitGpt
        && !setup.fused_classifier
}

/// Stop 35's leftover (CP search): CP is searched from [`CP_MIN_SEQ`] tokens, where NeMo's
/// recipes start it, but its memory reason holds at any length: it splits the activations and
/// the logits of a sequence over the CP ranks. A Qwen2.5-14B full fine-tune at 8k tokens on one
/// node of L20s found no plan, and one at 16k (with CP 2). So when no site of any type fits
/// memory without CP (every site `Short`: the search would answer "no plan"), the instance types
/// are searched again with CP allowed, and their sites take that search's outcomes (a type that
/// fits only on more nodes without CP is not offered CP on fewer: said in methodology.md).
/// The 4k pretraining bench rarely reaches the second search.
fn retry_with_cp(
    req: &PlanRequest,
    job: &TrainJob,
    (cands, cat): (&[(&Instance, &GpuSpec)], &Catalog),
    sizes: (f64, u64),
    (mode, work_done): (SearchMode, &mut SearchWork),
    (sites, mut outcomes): (&[Site], Vec<Outcome>),
) -> Vec<Outcome> {
    // A last resort: below CP_MIN_SEQ, CP is tried only when no type fits without it. Where some
    // type fits, the second search cost the 4k pretraining bench 45% more step evaluations
    // (24 near-miss types on 24-100 GB cards re-searched, none fitting with CP) for no plan:
    // all 24 were untimeable (no sourced peak), which `timeable` now skips before any search.
    let fits_somewhere = outcomes
        .iter()
        .any(|o| !matches!(o, Outcome::Short(..) | Outcome::Skip));
    if fits_somewhere || !cp_retry_applies(req, job.setup) {
        return outcomes;
    }
    // Per type: every site short (`Some`, with its closest miss and that site's cluster), or not.
    // (After the gate above no site fits, so `Some(None)` is not reached today; kept so the
    // per-type rule stays right if the gate is widened again.)
    let mut short: Vec<Option<Option<(&Shortfall, &ClusterSpec)>>> = vec![None; cands.len()];
    for (site, o) in sites.iter().zip(&outcomes) {
        let s = &mut short[site.cand];
        match o {
            Outcome::Skip => {}
            Outcome::Short(_, miss) => {
                let closer = match s {
                    Some(Some((m, _))) => miss.need.0 < m.need.0,
                    Some(None) => false,
                    None => true,
                };
                if closer {
                    *s = Some(Some((&**miss, &site.cluster)));
                }
            }
            _ => *s = Some(None),
        }
    }
    // CP of degree k takes k GPUs of one site: the most a type's largest site allows.
    let mut most_gpus = vec![0u64; cands.len()];
    for site in sites {
        let g = &mut most_gpus[site.cand];
        *g = (*g).max(site.cluster.total_gpus());
    }
    let retry: Vec<(&Instance, &GpuSpec)> = cands
        .iter()
        .zip(&short)
        .zip(&most_gpus)
        .filter(|((_, s), &gpus)| {
            s.flatten()
                .is_some_and(|(m, c)| cp_could_fit(req, m, c, gpus))
        })
        .map(|((c, _), _)| *c)
        .collect();
    if retry.is_empty() {
        return outcomes;
    }
    let mut alt = req.clone();
    if let super::Job::Train { pins, .. } = &mut alt.job {
        pins.cp_for_memory = true;
    }
    let (again, found, _) = site_outcomes(&alt, job, &retry, cat, sizes, (mode, work_done));
    for (site, o) in again.iter().zip(found) {
        let same = |s: &&Site| std::ptr::eq(s.inst, site.inst) && s.nodes == site.nodes;
        let Some(i) = sites.iter().position(|s| same(&s)) else {
            continue;
        };
        // A CP miss replaces the CP-free one only where it comes closer.
        let closer = match (&outcomes[i], &o) {
            (Outcome::Short(_, was), Outcome::Short(_, now)) => now.need.0 < was.need.0,
            _ => true,
        };
        if closer {
            outcomes[i] = o;
        }
    }
    outcomes
}

/// The largest CP degree the search tries.
const CP_MAX: f64 = 8.0;

/// Whether CP could bring a type's closest miss within its GPU: CP at degree k splits at most the
/// activations and the logits and loss of that configuration by k (its ranks come out of DP, so
/// nothing else shrinks), with the allocator's share of them, and k is at most [`CP_MAX`] and the
/// GPUs of the type's largest site (`most_gpus`: one-GPU types that fit nowhere get no CP
/// search). An upper bound on the saving: a type it rules out gets no CP plan from the second
/// search either, which is not run for it. Nor is it run for a type whose chip has no sourced
/// peak for the setup's precision ([`crate::train::training_peak`]): no step of it can be
/// timed, with CP or without, so its "closest miss" is only the largest configuration its
/// memory pass tried (smaller ones fit memory and were dropped untimed). That was every one of
/// the 24 near-miss types the 4k pretraining bench let through before this check (review r17
/// #6: gn7s A30, g7 A40, pi5e L4, p1 P100, ebmgn9g's unnamed Blackwell, Tencent's PNV6: no
/// `tflops` in data/gpus.toml; `estimate` on ebmgn9g × 64 at TP 1 PP 1 ZeRO-3 micro-batch 1
/// needs 8.0 of 47.3 GiB and answers "time: not estimated"), and why the CP search fitted none
/// of them. The second search still runs only when no type fits at all ([`retry_with_cp`]).
fn cp_could_fit(req: &PlanRequest, miss: &Shortfall, c: &ClusterSpec, most_gpus: u64) -> bool {
    let k = CP_MAX.min(most_gpus as f64);
    // (A chip without a sourced peak never gets here: `timeable` skips it before any memory pass,
    // so its sites are `Outcome::Skip`, never a shortfall.)
    if k < 2.0 {
        return false;
    }
    let Ok(m) = crate::train::training_memory(&req.model, &miss.setup, c, &req.tunables) else {
        return false;
    };
    let split: f64 = m
        .items
        .iter()
        .filter(|i| i.name == "activations" || i.name == "logits + loss")
        .map(|i| i.bytes.0)
        .sum();
    let reserve = m.device_total.0 / m.peak_allocated.0.max(1.0);
    let saving = split * (1.0 - 1.0 / k) * reserve.max(1.0);
    m.device_total.0 - saving <= miss.have.0
}

/// The memory passes (ladders shared between clusters, or one `fits` per cluster) and the time
/// passes of a search, with the work they did added to `work_done`, and what they used on the
/// way (the ladders, the compute memo), for the caller to free.
fn run_passes(
    req: &PlanRequest,
    work: &Work,
    chips: &[ChipSetup],
    (gb, share, threads): (u64, bool, usize),
    work_done: &mut SearchWork,
) -> (Vec<Option<Fits>>, Vec<Option<Timed>>, Spent) {
    let ladders = par_map(&work.ladders, threads, |l| {
        ladder(req, &work.classes[l.class], gb, l.point, &l.cluster, l.most)
    });
    let fit_results = par_map(&work.fit_jobs, threads, |job| {
        let base = chips[job.chip].as_ref().ok()?;
        if !share {
            return Some(fits(req, &base.0, gb, &job.cluster));
        }
        let mut f = Fits::new(&base.0, &job.cluster);
        let mut known = Vec::new();
        for &l in &job.ladders {
            f.climb(with_comm(req, &ladders[l], &job.cluster, &mut known));
        }
        Some(f)
    });
    let groups = time_groups(work, share);
    let memo = req
        .model
        .transformer()
        .filter(|_| share)
        .map(ComputeMemo::new);
    let timed = time_passes(req, work, (&groups, memo.as_ref()), &fit_results, threads);
    let mut time_results: Vec<Option<Timed>> = (0..work.time_jobs.len()).map(|_| None).collect();
    for (out, full) in timed {
        work_done.memory += full;
        for (t, found, steps) in out {
            time_results[t] = Some((found, steps));
        }
    }
    work_done.memory += if share {
        ladders.iter().map(|l| l.len() as u64).sum::<u64>()
    } else {
        fit_results
            .iter()
            .flatten()
            .map(|f| f.evaluated)
            .sum::<u64>()
    };
    work_done.step += time_results.iter().flatten().map(|(_, n)| n).sum::<u64>();
    let spent = (ladders, groups, memo.map(ComputeMemo::into_entries));
    (fit_results, time_results, Box::new(spent))
}

/// The time passes grouped by chip and GPU count (shared search; the reference: by memory
/// pass), each memory pass's together and in order: the memory passes of one group differ only
/// in the node shape (GPUs per node × nodes), the NCCL channel counts across nodes and the
/// search space, and share the bounds and step prologues of the rungs they have in common
/// ([`Known`]).
fn time_groups(work: &Work, share: bool) -> Vec<Vec<usize>> {
    let mut by_fit: Vec<Vec<usize>> = vec![Vec::new(); work.fit_jobs.len()];
    for (t, (fit, _)) in work.time_jobs.iter().enumerate() {
        by_fit[*fit].push(t);
    }
    if !share {
        return by_fit;
    }
    let mut groups: Vec<Vec<usize>> = Vec::new();
    let mut index = rustc_hash::FxHashMap::default();
    for (job, ts) in work.fit_jobs.iter().zip(by_fit) {
        let c = &job.cluster;
        let key = (job.chip, c.total_gpus());
        let g = *index.entry(key).or_insert_with(|| {
            groups.push(Vec::new());
            groups.len() - 1
        });
        groups[g].extend(ts);
    }
    groups
}

/// What the sites without a plan came closest to, folded in site order: the smallest memory
/// shortfall, the fastest over the deadline, the cheapest over the budget, the unpriced count.
#[derive(Default)]
struct Misses {
    evaluated: u64,
    closest_fail: Option<(String, Box<Shortfall>)>,
    fastest_over_deadline: Option<(String, f64)>,
    cheapest_over_budget: Option<(String, f64, Option<f64>)>,
    /// The cheapest on-demand cost among the sites refused for the budget: over it in a chosen
    /// mode (the user's `--billing`) dearer than on-demand, or with no price in that mode
    /// ([`OtherModes`]; review r16 #7: those were left out, so the line could name a dearer site).
    cheapest_on_demand: Option<(String, f64)>,
    /// The first site whose interruptions put it past the bound, and why.
    interrupted: Option<(String, Box<Msg>)>,
    /// How many sites their interruptions refused.
    interrupted_n: usize,
    unpriced: usize,
    any_fit: bool,
    /// Sites that met the deadline and were refused for the budget (priced over it, or no price
    /// to check it against): the deadline does not bind then (audit r9 #1).
    met_deadline: bool,
}

impl Misses {
    /// Fold one site's outcome; its plan, when it has one.
    fn add(&mut self, site: &Site, outcome: Outcome) -> Option<Plan> {
        let what = || format!("{} × {}", site.nodes, site.inst.id);
        match outcome {
            Outcome::Skip => {}
            Outcome::Short(evaluated, short) => {
                self.evaluated += evaluated;
                let ratio = |s: &Shortfall| s.need.0 / s.have.0;
                if self
                    .closest_fail
                    .as_ref()
                    .is_none_or(|(_, s)| ratio(&short) < ratio(s))
                {
                    self.closest_fail = Some((what(), short));
                }
            }
            Outcome::OverDeadline(evaluated, hours) => {
                self.evaluated += evaluated;
                self.any_fit = true;
                if self
                    .fastest_over_deadline
                    .as_ref()
                    .is_none_or(|(_, h)| hours < *h)
                {
                    self.fastest_over_deadline = Some((what(), hours));
                }
            }
            Outcome::Unpriced(evaluated, on_demand) => {
                self.evaluated += evaluated;
                self.any_fit = true;
                self.met_deadline = true;
                self.unpriced += 1;
                self.fold_on_demand(&what, on_demand);
            }
            Outcome::OverBudget(evaluated, cny, other) => {
                self.evaluated += evaluated;
                self.any_fit = true;
                self.met_deadline = true;
                self.fold_on_demand(&what, other.on_demand);
                let spot_cost = other.spot;
                if self
                    .cheapest_over_budget
                    .as_ref()
                    .is_none_or(|(_, x, _)| cny < *x)
                {
                    self.cheapest_over_budget = Some((what(), cny, spot_cost));
                }
            }
            Outcome::Interrupted(evaluated, why) => {
                self.evaluated += evaluated;
                self.any_fit = true;
                self.interrupted_n += 1;
                self.interrupted.get_or_insert((what(), why));
            }
            Outcome::Plan(p) => {
                self.evaluated += p.train.as_ref().map_or(0, |t| t.evaluated);
                self.any_fit = true;
                return Some(*p);
            }
        }
        None
    }

    /// Keep `on_demand` (a site's on-demand ¥, where named) if it is the cheapest so far.
    fn fold_on_demand(&mut self, what: &dyn Fn() -> String, on_demand: Option<f64>) {
        if let Some(od) = on_demand {
            if self
                .cheapest_on_demand
                .as_ref()
                .is_none_or(|(_, x)| od < *x)
            {
                self.cheapest_on_demand = Some((what(), od));
            }
        }
    }

    /// Beside a list of plans, the sites their interruptions refused (review r7 #6: with
    /// `--billing spot` every priced plan could be refused for spot's overhead while unpriced
    /// plans were listed, and nothing said so): how many, the first and why. The deadline and
    /// budget misses stay unsaid there (the listed plans meet both).
    fn beside_plans(self, rejected: &mut Vec<Binding>) {
        if let Some((what, why)) = self.interrupted {
            rejected.push(Binding::msg(
                "interruptions",
                Msg::new("bind-interruptions-beside")
                    .arg("n", self.interrupted_n)
                    .arg("what", what.as_str())
                    .arg("why", *why),
            ));
        }
    }

    /// Why no site gave a plan: the closest memory shortfall (when nothing fitted), the fastest
    /// site over the deadline and the cheapest over the budget.
    fn explain(self, req: &PlanRequest, rejected: &mut Vec<Binding>) {
        let c = &req.constraints;
        // Nothing evaluated because the workload's fixed settings left no layout: those
        // settings are named instead (`blame_pins`), not an infinite need.
        let evaluated = |s: &Shortfall| s.need.0.is_finite() || pins(req).is_empty();
        let any_fit = self.any_fit;
        if let Some((what, s)) = self.closest_fail.filter(|(_, s)| !any_fit && evaluated(s)) {
            rejected.push(Binding::msg(
                "memory",
                Msg::new("bind-no-fit")
                    .arg("what", what.as_str())
                    .arg("layout", layout_words(&s.setup.parallel))
                    .arg("recompute", recompute_word(s.setup.recompute))
                    .arg("mb", s.setup.micro_batch)
                    .arg("need", format!("{:.1}", s.need.gib()))
                    .arg("have", format!("{:.0}", s.have.gib())),
            ));
        }
        if let Some((what, why)) = self.interrupted {
            rejected.push(Binding::msg(
                "interruptions",
                Msg::new("bind-interruptions")
                    .arg("what", what.as_str())
                    .arg("why", *why),
            ));
        }
        // Sites past the deadline matter only when no site met it: otherwise the fastest of them
        // is not the fastest plan, and more nodes or time would change nothing (audit r9 #1:
        // "the fastest plan takes 1.0 h, over the 1.0 h deadline" while 68 plans met it).
        let deadline_binds = !self.met_deadline;
        if let (Some((what, h)), Some(d), true) =
            (self.fastest_over_deadline, c.deadline_hours, deadline_binds)
        {
            rejected.push(Binding::msg(
                "deadline",
                // In the plan table's units: a 55-day plan against a 30-day deadline read
                // "1331.8 h, over the 720.0 h deadline".
                Msg::new("bind-over-deadline")
                    .arg("what", what.as_str())
                    .arg("h", super::advice::duration_arg(h))
                    .arg("d", super::advice::duration_arg(d))
                    .arg("over", crate::units::gap_msg(h - d)),
            ));
        }
        let on_demand = self.cheapest_on_demand;
        if let (Some((what, x, spot)), Some(b)) = (self.cheapest_over_budget, c.budget_cny) {
            rejected.push(Binding::msg(
                "budget",
                // The budget's refusals all met the deadline: under one, the cheapest is the
                // cheapest within it, not overall.
                match c.deadline_hours {
                    Some(d) => Msg::new("bind-over-budget-deadline")
                        .arg("d", super::advice::duration_arg(d)),
                    None => Msg::new("bind-over-budget"),
                }
                .arg("what", what.as_str())
                .arg("x", crate::units::cny_figure(x))
                .arg("b", crate::units::cny_figure(b))
                .arg("over", crate::units::cny_figure(x - b))
                .arg(
                    "spot",
                    spot.map(crate::units::cny_figure)
                        .unwrap_or_else(|| "none".into()),
                ),
            ));
        }
        // Also where every site in time had no price in the chosen mode (nothing over the budget).
        if let (Some((od_what, od)), Some(b)) = (on_demand, c.budget_cny) {
            rejected.push(Binding::msg(
                "billing",
                Msg::new("bind-budget-on-demand")
                    .arg("what", od_what.as_str())
                    .arg("x", crate::units::cny_figure(od))
                    .arg("within", if od <= b { "yes" } else { "no" }),
            ));
        }
    }
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

/// A parallel layout in language-neutral words: `TP 1 PP 1 EP 64 ZeRO-3` (EP, CP and virtual
/// stages only where they are used).
pub(super) fn layout_words(p: &crate::workload::Parallelism) -> String {
    let mut w = format!("TP {} PP {}", p.tp, p.pp);
    if p.virtual_stages > 1 {
        w.push_str(&format!("×v{}", p.virtual_stages));
    }
    if p.cp > 1 {
        w.push_str(&format!(" CP {}", p.cp));
    }
    if p.ep > 1 {
        w.push_str(&format!(" EP {}", p.ep));
    }
    w.push_str(&format!(" ZeRO-{}", p.zero));
    w
}

#[cfg(test)]
mod stack_tests {
    use super::{accounted_split, stage_splits, uneven_last_stage, StageSplit};

    /// Megatron-Core's uneven split: ⌈L/pp⌉ on every stage but the last, the rest (≥ 1) last.
    #[test]
    fn uneven_last_stage_takes_the_rest_of_the_layers() {
        // DeepSeek-V3 (61 layers; the slime config's PP 8 → 5 last), Qwen3-235B-A22B (94).
        assert_eq!(uneven_last_stage(61, 4), Some(13));
        assert_eq!(uneven_last_stage(61, 8), Some(5));
        assert_eq!(uneven_last_stage(61, 16), Some(1));
        assert_eq!(uneven_last_stage(94, 8), Some(10));
        // Even splits keep the setup's; 10 layers over 8 stages leave nothing for the last.
        assert_eq!(uneven_last_stage(32, 4), None);
        assert_eq!(uneven_last_stage(10, 8), None);
        assert_eq!(uneven_last_stage(61, 1), None);
    }

    /// Megatron-Core's accounting split where L + 2 (both counted) or L + 1 (the loss) divides.
    #[test]
    fn accounted_split_where_embedding_and_loss_make_the_layers_divide() {
        let both = StageSplit::Accounted {
            embedding: true,
            loss: true,
        };
        let loss = StageSplit::Accounted {
            embedding: false,
            loss: true,
        };
        // Llama 3.1 405B: 126 + 2 = 128 over PP 16 (and over PP 8 × VP 8, the recipe's).
        assert_eq!(accounted_split(126, (16, 1)), Some(both));
        assert_eq!(accounted_split(126, (8, 8)), Some(both));
        assert_eq!(accounted_split(126, (8, 32)), None);
        // DeepSeek-V3's 61 layers: 62 over PP 2, nothing over 4, 8 or 16.
        assert_eq!(accounted_split(61, (2, 1)), Some(loss));
        assert_eq!(accounted_split(61, (8, 1)), None);
        // Divisible layers need no accounting.
        assert_eq!(accounted_split(32, (4, 1)), None);
    }

    /// Only Megatron-Core is searched at a PP that does not divide the layers, with both of its
    /// splits; a stated split is kept.
    #[test]
    fn megatron_points_take_both_uneven_splits() {
        use crate::workload::{Framework, TrainingSetup};
        let base = TrainingSetup::default();
        let pin = crate::plan::TrainPins::default();
        let both = StageSplit::Accounted {
            embedding: true,
            loss: true,
        };
        assert_eq!(
            stage_splits(&base, &pin, Framework::Megatron, (16, 1), 126),
            [Some(StageSplit::Last(6)), Some(both)]
        );
        assert_eq!(
            stage_splits(&base, &pin, Framework::HuggingFace, (16, 1), 126),
            [None, None]
        );
        // 30 layers over PP 16: only the accounting split builds (2 a stage, 1 on the ends).
        assert_eq!(
            stage_splits(&base, &pin, Framework::Megatron, (16, 1), 30),
            [None, Some(both)]
        );
        let mut stated = base.clone();
        stated.parallel.first_stage_layers = Some(6);
        assert_eq!(
            stage_splits(&stated, &pin, Framework::Megatron, (16, 1), 126),
            [Some(StageSplit::Setup), None]
        );
    }
}

#[cfg(test)]
mod ladder_tests {
    use super::*;
    use crate::catalog::Catalog;
    use crate::hardware::InterLink;
    use crate::plan::{Constraints, Job, Objective};
    use crate::units::Bandwidth;
    use crate::workload::TrainTask;

    /// The shared ladders' needs on another cluster, with the buffers sized once per run of
    /// rungs (`with_comm`, `ladder`), are the reference's, bit for bit: each rung's net need
    /// plus `comm_buffer_bytes` of that rung on that cluster, and the net need plus the buffers
    /// on the ladder's own cluster the rung's own lean estimate there (not that estimate less
    /// the buffers, which can differ from the net sum in the last bit). Dense, MoE and LoRA
    /// workloads, four chips, four shapes of 8 and 16 GPUs, every point of each search space.
    #[test]
    fn ladder_buffers_are_the_per_rung_buffers() {
        let cat = Catalog::builtin().unwrap();
        let cluster = |gpu: &str, per: u64, nodes: u64| {
            let net = Bandwidth::from_gbit_per_s(400.0);
            ClusterSpec::new(cat.gpu(gpu).unwrap(), per, nodes, InterLink::Rdma, net).unwrap()
        };
        let mut rungs_checked = 0;
        for (base, req) in dense_moe_lora_requests() {
            for (total, shapes) in [(8, [(8, 1), (1, 8)]), (16, [(8, 2), (4, 4)])] {
                let (per, nodes) = shapes[0];
                let c = cluster("h100-sxm", per, nodes);
                for point in search_space(&req, &base, &c) {
                    let ladder = ladder(&req, &base, 512, point, &c, f64::INFINITY);
                    for (gpu, (per, nodes)) in [
                        ("h100-sxm", shapes[1]),
                        ("a100-80g", shapes[0]),
                        ("l40s", shapes[1]),
                        ("h800", shapes[0]),
                    ] {
                        let other = cluster(gpu, per, nodes);
                        assert_eq!(other.total_gpus(), total);
                        let fits: Vec<Fit> =
                            with_comm(&req, &ladder, &other, &mut Vec::new()).collect();
                        assert_eq!(fits.len(), ladder.len());
                        for (fit, rung) in fits.iter().zip(&ladder) {
                            assert!(std::sync::Arc::ptr_eq(&fit.0, rung), "shared, not copied");
                            let comm = comm_buffer_bytes(&rung.0, &other, &req.tunables);
                            let reference = rung.1.map(|n| (n.0 + comm).to_bits());
                            assert_eq!(fit.1.map(|n| n.0.to_bits()), reference);
                            let own = training_memory_lean(&req.model, &rung.0, &c, &req.tunables)
                                .ok()
                                .map(|m| m.device_total.0.to_bits());
                            let back = rung.1.map(|n| {
                                (n.0 + comm_buffer_bytes(&rung.0, &c, &req.tunables)).to_bits()
                            });
                            assert_eq!(back, own);
                            rungs_checked += 1;
                        }
                    }
                }
            }
        }
        assert!(rungs_checked > 100, "{rungs_checked} rungs");
    }

    /// Dense pretraining (Llama-2-13B), MoE pretraining (Qwen3-30B-A3B) and LoRA (Qwen2.5-7B)
    /// at 4096 tokens: each setup and its cost-objective plan request.
    fn dense_moe_lora_requests() -> Vec<(TrainingSetup, PlanRequest)> {
        [
            ("Llama-2-13B", TrainTask::Pretrain),
            ("Qwen3-30B-A3B", TrainTask::Pretrain),
            ("Qwen2.5-7B", TrainTask::Lora),
        ]
        .into_iter()
        .map(|(model, task)| {
            let base = TrainingSetup {
                task,
                seq_len: 4096,
                tokens: Some(1e9),
                ..Default::default()
            };
            let req = PlanRequest {
                model: crate::model::find_preset(model).unwrap().model.clone(),
                job: Job::Train {
                    setup: base.clone(),
                    global_batch: None,
                    precision_pinned: false,
                    pins: Default::default(),
                },
                constraints: Constraints::default(),
                objective: Objective::Cost,
                tunables: Tunables::default(),
            };
            (base, req)
        })
        .collect()
    }

    /// `Work::fit_for` keys the search space by the adapted setup and [`space_facts`]: every
    /// catalog instance type's cluster at 1 to 64 nodes (other chips, link kinds and
    /// bandwidths, host CPUs) gives, for one setup, the space of the first cluster seen with
    /// its facts. Dense pretraining (TP/PP searched), MoE pretraining and LoRA.
    #[test]
    fn search_space_reads_only_its_cluster_facts() {
        let cat = Catalog::builtin().unwrap();
        let (mut compared, mut nvlink_shapes) = (0, 0);
        for (base, req) in dense_moe_lora_requests() {
            let mut first: std::collections::HashMap<SpaceFacts, Vec<Point>> = Default::default();
            for inst in &cat.instances {
                let Some(gpu) = cat.gpu(&inst.gpu) else {
                    continue;
                };
                let gpu = std::sync::Arc::new(gpu.clone());
                for nodes in node_counts(64) {
                    let Ok((c, _)) = crate::plan::instance_cluster(inst, &gpu, nodes) else {
                        continue;
                    };
                    let space = search_space(&req, &base, &c);
                    match first.entry(space_facts(&c)) {
                        std::collections::hash_map::Entry::Occupied(e) => {
                            assert_eq!(e.get(), &space, "{} × {nodes}", inst.id);
                            compared += 1;
                        }
                        std::collections::hash_map::Entry::Vacant(e) => {
                            nvlink_shapes += usize::from(e.key().2);
                            e.insert(space);
                        }
                    }
                }
            }
        }
        assert!(compared > 1000, "{compared} clusters compared");
        assert!(nvlink_shapes > 10, "{nvlink_shapes} shapes with TP links");
    }
}

#[cfg(test)]
mod cp_retry_tests {
    use super::*;
    use crate::plan::{Constraints, Job, Objective};
    use crate::workload::TrainTask;

    fn request(setup: &TrainingSetup) -> PlanRequest {
        PlanRequest {
            model: crate::model::find_preset("Llama-3.1-8B")
                .unwrap()
                .model
                .clone(),
            job: Job::Train {
                setup: setup.clone(),
                global_batch: None,
                precision_pinned: false,
                pins: Default::default(),
            },
            constraints: Constraints::default(),
            objective: Objective::Cost,
            tunables: Tunables::default(),
        }
    }

    /// Review r17 fixes #3 and #4: the retry with CP takes sequences that CP 2's 2 × 2 chunks
    /// divide, and not llm.c's fused classifier, whose search pins CP 1 (a retry would search
    /// the same points again).
    #[test]
    fn cp_retry_needs_four_chunks_and_not_llmc() {
        let s = TrainingSetup {
            task: TrainTask::Pretrain,
            seq_len: 8192,
            ..Default::default()
        };
        assert!(cp_retry_applies(&request(&s), &s));
        let odd = TrainingSetup {
            seq_len: 8190,
            ..s.clone()
        };
        assert!(!cp_retry_applies(&request(&odd), &odd));
        let llmc = TrainingSetup {
            fused_classifier: true,
            ..s.clone()
        };
        assert!(!cp_retry_applies(&request(&llmc), &llmc));
    }
}

#[cfg(test)]
mod checkpoint_interval_tests {
    use super::*;

    /// Plan audit r22 #2: without a stated interval the hours pay Daly's optimum for the write
    /// and the failure rate, longer than an hour for one 8-GPU node and a 60 s write (λ ≈
    /// 8 × 2.2e-5 per hour), and never past the job; a stated interval is paid as stated, and
    /// its cost in Daly's model is never below the optimum's.
    #[test]
    fn the_hours_pay_dalys_interval_unless_the_user_gives_one() {
        let tun = Tunables::default();
        assert_eq!(tun.checkpoint_interval_hours, None);
        let (compute_h, write_s, gpus) = (200.0, 60.0, 8.0);
        let tau = checkpoint_interval_s(compute_h, write_s, gpus, &tun);
        let rate = gpus * tun.failure_rate_per_gpu_hour / 3600.0;
        let want = super::super::money::daly_interval_s(60.0, rate, 60.0, compute_h * 3600.0);
        assert_eq!(tau, want);
        assert!(tau > 3600.0 && tau < compute_h * 3600.0, "{tau}");
        // Fewer checkpoints than one an hour: the stall hours fall by τ / 1 h.
        let daly_h = checkpoint_stall_hours(compute_h, write_s, tau, &tun);
        let hourly_h = checkpoint_stall_hours(compute_h, write_s, 3600.0, &tun);
        assert!(daly_h < hourly_h / 2.0, "{daly_h} {hourly_h}");
        // A job shorter than the optimum checkpoints once, at its end.
        let short = checkpoint_interval_s(2.0, write_s, gpus, &tun);
        assert_eq!(short, 7200.0);
        // The user's interval is paid as given, and costs more than Daly's in Daly's model.
        let mut given = Tunables::default();
        given.set("checkpoint_interval_hours", 1.0).unwrap();
        assert_eq!(
            given.checkpoint_interval_hours,
            Some(1.0),
            "the default, stated"
        );
        given.set("fragmentation", 0.05).unwrap();
        assert_eq!(
            given.checkpoint_interval_hours,
            Some(1.0),
            "kept by a later --set"
        );
        assert_eq!(
            checkpoint_interval_s(compute_h, write_s, gpus, &given),
            3600.0
        );
        let k = schedule(compute_h, write_s, (3600.0, gpus), &given);
        assert!(k.given && k.daly_s == tau, "{k:?}");
        assert!(k.cost_h > k.daly_cost_h && k.daly_cost_h > 0.0, "{k:?}");
        // 200 writes of 60 s at the hour: 3.3 h of stalls alone.
        assert!(k.cost_h > 200.0 * 60.0 / 3600.0, "{k:?}");
    }
}
