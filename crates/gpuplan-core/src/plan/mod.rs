//! The planner: which instance type, how many, with which parallelism, how long and how much —
//! searched over the whole catalog, ranked, explained, with advice rules evaluated on the
//! computed facts. Pure: the catalog and the request come in, a [`PlanOutcome`] goes out.

pub mod advice;
pub mod hints;
pub mod inputs;
pub mod load;
pub mod money;
pub mod periods;
pub mod pins;
pub mod published;
pub mod serve;
pub mod train;

#[cfg(test)]
mod fold_reference;

pub use inputs::{check_plans, validate_request};
pub use pins::TrainPins;

use crate::catalog::{Billing, Catalog, Instance, InstanceLink, Price, Provider, RdmaKind};
use crate::constants::Tunables;
use crate::error::CoreError;
use crate::hardware::{ClusterSpec, GpuSpec, InterLink};
use crate::infer::{Latency, ServingMemory};
use crate::model::ModelSpec;
use crate::train::{DataPath, StepTime, TrainingMemory};
use crate::units::Bandwidth;
use crate::workload::{KvDtype, TrainingSetup, WeightFormat};
use serde::{Deserialize, Serialize};

/// Version of the plan JSON document (docs/json-schema.md).
pub const PLAN_SCHEMA_VERSION: u32 = 1;

#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
#[serde(rename_all = "snake_case")]
pub enum SoftwareFramework {
    Pytorch,
    Tensorflow,
    Jax,
    Mindspore,
    Paddlepaddle,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
#[serde(rename_all = "snake_case")]
pub enum ChipFamily {
    Nvidia,
    Ascend,
    Amd,
}

impl ChipFamily {
    pub fn of(g: &GpuSpec) -> ChipFamily {
        match g.vendor.as_str() {
            "huawei" => ChipFamily::Ascend,
            "amd" => ChipFamily::Amd,
            _ => ChipFamily::Nvidia,
        }
    }
    /// Whether a framework runs on this chip family, and with what caveat.
    pub fn runs(self, fw: SoftwareFramework) -> Result<Option<&'static str>, &'static str> {
        use SoftwareFramework::*;
        match (self, fw) {
            (ChipFamily::Nvidia, _) => Ok(None),
            (ChipFamily::Ascend, Mindspore) => Ok(None),
            (ChipFamily::Ascend, Pytorch) => Ok(Some("PyTorch on Ascend needs the torch_npu adapter and CANN; CUDA-only code must be ported")),
            (ChipFamily::Ascend, Paddlepaddle) => Ok(Some("PaddlePaddle on Ascend runs through its custom-device (NPU) plugin")),
            (ChipFamily::Ascend, _) => Err("TensorFlow and JAX have no maintained Ascend backend for training"),
            (ChipFamily::Amd, Pytorch | Tensorflow | Jax) => Ok(Some("needs the ROCm builds of the framework")),
            (ChipFamily::Amd, _) => Err("MindSpore and PaddlePaddle training on AMD Instinct is not supported upstream"),
        }
    }
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
#[serde(rename_all = "snake_case")]
pub enum BillingChoice {
    Auto,
    OnDemand,
    Monthly,
    Spot,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
#[serde(rename_all = "snake_case")]
pub enum Objective {
    Cost,
    Time,
    Balanced,
}

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
#[serde(deny_unknown_fields, default)]
pub struct Constraints {
    pub providers: Vec<Provider>,
    pub regions: Vec<String>,
    pub chips: Vec<ChipFamily>,
    pub framework: SoftwareFramework,
    /// Hours.
    pub deadline_hours: Option<f64>,
    /// CNY for the whole job (training) or per month (serving).
    pub budget_cny: Option<f64>,
    pub max_nodes: u64,
    pub billing: BillingChoice,
    /// Whether the job survives preemption (checkpoints and resumes).
    pub interruptible: bool,
    /// Preemptions per node-hour for spot instances (default 0.02, see docs/methodology.md).
    pub preemption_rate: f64,
    /// Minutes to get a replacement node and resume after a preemption.
    pub restart_minutes: f64,
    /// Hours per month the user expects to keep using the machines after this job (for the
    /// subscription break-even).
    pub reuse_hours_per_month: f64,
    /// The user named the GPUs to search (`gpuplan plan --gpu`): a chip the job cannot run on is
    /// then listed with its reason; otherwise the skipped chips are summed up in one line. Not a
    /// workload key (the catalog is filtered by the CLI before the search).
    #[serde(skip)]
    pub gpus_named: bool,
}

impl Default for Constraints {
    fn default() -> Self {
        Constraints {
            providers: vec![],
            regions: vec![],
            chips: vec![ChipFamily::Nvidia],
            framework: SoftwareFramework::Pytorch,
            deadline_hours: None,
            budget_cny: None,
            max_nodes: 16,
            billing: BillingChoice::Auto,
            interruptible: false,
            preemption_rate: 0.02,
            restart_minutes: 10.0,
            reuse_hours_per_month: 0.0,
            gpus_named: false,
        }
    }
}

/// A serving job.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
#[serde(deny_unknown_fields, default)]
pub struct ServeJob {
    /// Weight formats to consider; empty = bf16 plus fp8/int8/int4 alternatives. Words
    /// `--weights` takes or format tables (`workload::weight_words_or_tables`).
    #[serde(deserialize_with = "crate::workload::weight_words_or_tables")]
    #[cfg_attr(
        feature = "openapi",
        schema(schema_with = crate::workload::serve_weights_schema)
    )]
    pub weights: Vec<WeightFormat>,
    pub kv_dtype: KvDtype,
    pub input_tokens: u64,
    pub output_tokens: u64,
    /// Requests per second to sustain.
    pub rate_rps: Option<f64>,
    /// Or a fixed number of concurrent requests.
    pub concurrency: Option<u64>,
    /// Time-to-first-token target, seconds.
    pub ttft_s: Option<f64>,
    /// Time-per-output-token target, seconds.
    pub tpot_s: Option<f64>,
    pub gpu_memory_utilization: f64,
    /// The serving engine whose KV-pool rule sizes each replica (default vLLM).
    pub engine: crate::workload::Engine,
    /// Whether the service is public and generative (for the filing-duty advice).
    pub public_generative: bool,
    /// Fewest replicas, for availability: one replica is a single point of failure (a node
    /// failure or a rolling upgrade takes the service down). Default 2.
    pub min_replicas: u64,
    /// Peak rate as a multiple of `rate_rps` (or `concurrency`) that the replicas must carry.
    /// Default 1.25: capacity for 25% over the stated rate, the headroom of an autoscaler that
    /// targets 80% utilisation.
    pub peak_factor: f64,
    /// Denoising steps per generated image (diffusion models only; default: the pipeline's,
    /// data/models.toml `[model.opaque.denoising]`).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub steps: Option<u64>,
    /// Classifier-free guidance of a diffusion model (default: the pipeline's, on for SDXL):
    /// `off` runs one network sample per step, as SDXL-Turbo (guidance_scale 0.0) and LCM UNets
    /// (`time_cond_proj_dim` set) do — diffusers' `do_classifier_free_guidance` is
    /// `guidance_scale > 1 and unet.config.time_cond_proj_dim is None`.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub guidance: Option<Guidance>,
    /// The int4 asked for is AWQ (`plan --weights awq`, not `gptq`/`int4`): vLLM and SGLang
    /// load AWQ only from compute capability 7.5 (`infer::AWQ_MIN_CC`), so the search offers it
    /// nowhere below (audit r20 #2). Set by the CLI from the word; not a workload key.
    #[serde(skip)]
    pub awq: bool,
}

/// Classifier-free guidance of a diffusion model's sampling loop (`--guidance`, `[serve]
/// guidance`).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
#[serde(rename_all = "snake_case")]
pub enum Guidance {
    /// The conditional and unconditional latents batched: 2 network samples per step.
    On,
    /// guidance_scale ≤ 1 (or a distilled UNet): 1 network sample per step.
    Off,
}

/// Default fewest serving replicas (availability).
pub const DEFAULT_MIN_REPLICAS: u64 = 2;
/// Default peak factor: replicas sized for 1.25× the stated rate (80% target utilisation).
pub const DEFAULT_PEAK_FACTOR: f64 = 1.25;

impl Default for ServeJob {
    fn default() -> Self {
        ServeJob {
            weights: vec![],
            kv_dtype: KvDtype::Bf16,
            input_tokens: 1000,
            output_tokens: 300,
            rate_rps: None,
            concurrency: None,
            ttft_s: None,
            tpot_s: None,
            gpu_memory_utilization: 0.9,
            engine: crate::workload::Engine::Vllm,
            public_generative: true,
            min_replicas: DEFAULT_MIN_REPLICAS,
            peak_factor: DEFAULT_PEAK_FACTOR,
            steps: None,
            guidance: None,
            awq: false,
        }
    }
}

// One `Job` is built per request and read in place (never collected or moved in bulk), so the
// training variant's size (the whole TrainingSetup inline) costs nothing; boxing it would only add
// indirection at every `Job::Train { setup, .. }` match.
#[allow(clippy::large_enum_variant)]
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case", tag = "kind")]
pub enum Job {
    Train {
        setup: TrainingSetup,
        /// Sequences per optimizer step; default 1024 for pretraining, 64 for fine-tuning.
        global_batch: Option<u64>,
        /// The user chose the precision: chips that cannot run it are skipped (with a reason in
        /// `rejected`) instead of switched to a format they support (bf16 → fp16 AMP).
        #[serde(default)]
        precision_pinned: bool,
        /// The `[training]` keys the workload states: the search keeps their values and chooses
        /// only the other dimensions ([`TrainPins`]).
        #[serde(default, skip_serializing_if = "TrainPins::is_empty")]
        pins: TrainPins,
    },
    Serve(ServeJob),
}

#[derive(Clone, Debug)]
pub struct PlanRequest {
    pub model: ModelSpec,
    pub job: Job,
    pub constraints: Constraints,
    pub objective: Objective,
    pub tunables: Tunables,
}

/// Cost of one plan under one billing mode.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct BillingCost {
    pub billing: Billing,
    /// Total CNY for the job (training) or per month (serving).
    pub cny: f64,
    /// Wall-clock hours under this mode (spot includes expected preemption overhead).
    pub hours: f64,
    pub price: Price,
    pub note: Option<String>,
    pub note_zh: Option<String>,
    /// Months subscribed per node (monthly and mixed billing): a period the provider's API
    /// accepts ([`periods`]), which may be longer than the job (an 11-month job buys 12 at
    /// Alibaba).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub months: Option<u64>,
    /// A mix of billing modes ([`money::mixed`]): whole months subscribed and the rest of the
    /// job pay-as-you-go (or spot); `billing` is then `Monthly`, the subscription bought first.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub mix: Option<BillingMix>,
}

/// Whole billing periods subscribed per node, the remainder under another mode.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct BillingMix {
    /// Whole months subscribed (per node), at least one.
    pub months: u64,
    /// Subscription part of the total, CNY.
    pub months_cny: f64,
    /// The remainder's mode: on-demand, or spot for an interruptible job.
    pub remainder_billing: Billing,
    /// Wall-clock hours run under the remainder's mode (spot: with its expected overhead).
    pub remainder_hours: f64,
    pub remainder_cny: f64,
}

impl BillingCost {
    /// The mode's name in the user's language: "monthly", or "2 months monthly + 14 d on-demand".
    pub fn label(&self) -> crate::i18n::Msg {
        let Some(m) = &self.mix else {
            return crate::i18n::names::billing(self.billing);
        };
        let days = m.remainder_hours >= 24.0;
        let rest = if days {
            m.remainder_hours / 24.0
        } else {
            m.remainder_hours
        };
        crate::i18n::Msg::new("billing-mix")
            .arg("months", m.months)
            .arg(
                "rest",
                if rest >= 10.0 {
                    format!("{rest:.0}")
                } else {
                    format!("{rest:.1}")
                },
            )
            .arg("unit", if days { "d" } else { "h" })
            .arg(
                "rest_billing",
                crate::i18n::names::billing(m.remainder_billing),
            )
    }
}

/// What the plan runs: instance × nodes and, for training, the chosen parallelism.
#[derive(Clone, Debug, Serialize)]
pub struct Plan {
    pub instance: Instance,
    /// The chip row, shared with `cluster.gpu`.
    pub gpu: std::sync::Arc<GpuSpec>,
    /// What CUDA reports as total on one GPU ([`GpuSpec::visible_memory`]), GiB: the capacity
    /// the memory feasibility and the headroom are measured against.
    pub usable_memory_gib: Option<f64>,
    pub nodes: u64,
    pub total_gpus: f64,
    pub cluster: ClusterSpec,
    pub network_assumed: Option<String>,
    pub train: Option<TrainDetail>,
    pub serve: Option<ServeDetail>,
    pub costs: Vec<BillingCost>,
    /// The mode the plan recommends (cheapest allowed by the constraints).
    pub chosen: Option<BillingCost>,
    pub hours: f64,
    pub caveats: Vec<crate::i18n::Text>,
    pub advice: Vec<advice::Advice>,
    /// Near-duplicates folded into this plan: other instance types of the same provider with the
    /// same accelerator and count whose time and cost are within the ranking's tie band
    /// (`nodes × id`, best first).
    pub also: Vec<String>,
}

#[derive(Clone, Debug, Serialize)]
pub struct TrainDetail {
    pub setup: TrainingSetup,
    /// Shared by the plans whose sites one time pass answered (identical clusters of other
    /// instance types, providers or regions); serialised as the memory itself.
    pub memory: std::sync::Arc<TrainingMemory>,
    pub step: StepTime,
    pub data: DataPath,
    pub storage: Option<money::StorageChoice>,
    pub spot: Option<money::SpotPlan>,
    /// Hardware and software interruptions and what they add to every mode's hours (absent when
    /// `failure_rate_per_gpu_hour` is 0).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub failures: Option<money::FailurePlan>,
    /// The checkpoint interval the hours pay and Daly's optimum beside it.
    pub checkpoints: money::CheckpointSchedule,
    /// Configurations evaluated for this instance × node count.
    pub evaluated: u64,
}

#[derive(Clone, Debug, Serialize)]
pub struct ServeDetail {
    pub weights: WeightFormat,
    /// The weights are the checkpoint's own format (DeepSeek-V3/R1 in FP8): no quantization step.
    pub weights_native: bool,
    pub tp: u64,
    pub replicas: u64,
    pub batch_per_replica: u64,
    pub memory: ServingMemory,
    pub latency: Latency,
    /// The most requests per second one replica takes with its loaded TPOT and TTFT within the
    /// targets (its capacity at the batch when no target is set).
    pub requests_per_second_per_replica: f64,
    /// The replica's TPOT, TTFT and utilisation at the plan's peak rate per replica (decoders;
    /// None for encoder-only and opaque models), see [`load`].
    pub load: Option<load::ServeLoad>,
    /// Replicas the stated rate needs without the peak headroom and the availability floor: the
    /// autoscaler's floor when `min_replicas` allows.
    pub replicas_for_rate: u64,
    pub cost_per_million_tokens: Option<f64>,
    pub cost_per_1k_requests: Option<f64>,
    /// A speech-recognition model's request (Whisper: 30 s of audio, 1500 encoder positions, a
    /// 4-token decoder prompt); None for text and image models.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub asr: Option<crate::infer::AsrRequest>,
    /// ¥ per hour of audio transcribed: the month's cost over requests × audio seconds (speech
    /// models only; they have no cost per million tokens).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub cost_per_audio_hour: Option<f64>,
}

/// Why no plan came out, or what limited the ones that did.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct Binding {
    pub constraint: &'static str,
    pub message_en: String,
    pub message_zh: String,
}

impl Binding {
    /// A binding constraint whose message is catalog message `m` (both languages from it).
    pub fn msg(constraint: &'static str, m: crate::i18n::Msg) -> Binding {
        let t = crate::i18n::Text::from(m);
        Binding {
            constraint,
            message_en: t.en,
            message_zh: t.zh,
        }
    }

    /// This binding with `lines` under it, each on its own line indented by its count of
    /// spaces (a list, and a list under an item).
    pub fn with_lines(mut self, lines: &[(usize, crate::i18n::Msg)]) -> Binding {
        for (indent, m) in lines {
            let t = crate::i18n::Text::from(m.clone());
            let pad = " ".repeat(*indent);
            self.message_en.push_str(&format!("\n{pad}{}", t.en));
            self.message_zh.push_str(&format!("\n{pad}{}", t.zh));
        }
        self
    }
}

#[derive(Clone, Debug, Serialize)]
pub struct SearchStats {
    pub instance_types: usize,
    pub candidates: usize,
    /// Configurations searched over all (instance type, node count) pairs, each counted as if
    /// searched alone (the same in every [`SearchMode`]).
    pub configurations: u64,
    /// What the search really computed after sharing (for the benchmarks; not in the JSON).
    #[serde(skip)]
    pub work: SearchWork,
}

/// Evaluations the training search really ran: memory estimates and step-time estimates.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct SearchWork {
    pub memory: u64,
    pub step: u64,
}

#[derive(Clone, Debug, Serialize)]
pub struct PlanOutcome {
    pub schema_version: u32,
    pub plans: Vec<Plan>,
    /// Indices into `plans` on the cost-vs-time Pareto frontier.
    pub pareto: Vec<usize>,
    pub rejected: Vec<Binding>,
    pub stats: SearchStats,
    /// How many plans, from the top, carry their per-plan advice: all of them from [`plan`] and
    /// [`plan_with`], the first `shown` from [`plan_shown`] (not part of the JSON document).
    #[serde(skip)]
    pub advised: usize,
}

/// The cluster an instance type gives: GPUs per node, the GPU link, and the network.
pub fn instance_cluster(
    inst: &Instance,
    gpu: &std::sync::Arc<GpuSpec>,
    nodes: u64,
) -> Result<(ClusterSpec, Option<crate::i18n::Text>), CoreError> {
    let per_node = inst.gpu_count.round().max(1.0) as u64;
    let (link, gbit, mut assumed) = inter_node(inst, gpu, nodes);
    let mut c = ClusterSpec::shared(
        gpu.clone(),
        per_node,
        nodes,
        link,
        Bandwidth::from_gbit_per_s(gbit),
    )?;
    // An instance whose GPUs sit on PCIe gets the PCIe bandwidth even if the chip has NVLink.
    if matches!(inst.intra_link, Some(InstanceLink::Pcie) | None)
        && gpu.intra_link.is_nvlink_class()
        && per_node > 1
    {
        c.intra_bandwidth = Bandwidth::from_gb_per_s(32.0);
        assumed = with_caveat(assumed, crate::i18n::Msg::new("cav-pcie-assumed"));
    }
    // The host the estimator times the host optimizer step on (`estimate --instance` gets the
    // same). The image-decode ceiling reads the catalog vCPUs in `plan::train::input_limits`;
    // the step itself does not apply it, so it is not applied twice.
    c.host_vcpus = inst.vcpu.map(u64::from);
    c.host_not_x86 = inst.cpu.as_deref().is_some_and(|cpu| !is_x86_cpu(cpu));
    Ok((c, assumed))
}

/// Whether a catalog `cpu` names an x86 part (Intel Xeon, AMD EPYC); anything else (the
/// catalog's "ARM (aarch64)" Kunpeng hosts) is not.
fn is_x86_cpu(cpu: &str) -> bool {
    let c = cpu.to_ascii_lowercase();
    ["intel", "xeon", "amd", "epyc", "x86"]
        .iter()
        .any(|k| c.contains(k))
}

/// `prev` with caveat `m` appended.
fn with_caveat(prev: Option<crate::i18n::Text>, m: crate::i18n::Msg) -> Option<crate::i18n::Text> {
    let t = crate::i18n::Text::from(m);
    Some(match prev {
        Some(p) => p.and(t),
        None => t,
    })
}

/// The network between an instance type's nodes: the link, its Gbit/s and what was assumed. The
/// network is assumed (and said so) only where a plan crosses it: on one node "RDMA not
/// documented: assumed TCP" is noise on the README's own example.
fn inter_node(
    inst: &Instance,
    gpu: &GpuSpec,
    nodes: u64,
) -> (InterLink, f64, Option<crate::i18n::Text>) {
    use crate::i18n::Msg;
    let crosses = nodes > 1;
    let (link, mut assumed) = match inst.rdma {
        RdmaKind::Erdma => (InterLink::Erdma, None),
        RdmaKind::Roce | RdmaKind::Ib => (InterLink::Rdma, None),
        RdmaKind::None => (InterLink::Tcp, None),
        // Ascend clusters run HCCL over the NPUs' own RoCE ports where the flavor has them; none
        // of the stored sources documents them per flavor, so TCP stays the bound.
        RdmaKind::Unknown => {
            let m = if gpu.stack == "cann" {
                "cav-roce-unknown-ascend"
            } else {
                "cav-rdma-unknown"
            };
            let said = crosses.then(|| crate::i18n::Text::from(Msg::new(m)));
            (InterLink::Tcp, said)
        }
    };
    let gbit = match (inst.rdma.is_rdma(), inst.rdma_gbit, inst.network_gbit) {
        (true, Some(r), _) => {
            assumed = unverified_rdma(assumed, inst, r, nodes);
            r
        }
        (_, _, Some(n)) => n,
        _ => {
            if crosses {
                assumed = with_caveat(assumed, Msg::new("cav-network-unknown"));
            }
            10.0
        }
    };
    (link, gbit, assumed)
}

/// An RDMA bandwidth on an `unverified` catalog row (a third-party observation, e.g. ModelArts
/// Snt9B's 8 × 200 Gbit/s RoCE ports) is used, and a plan that crosses nodes says so.
fn unverified_rdma(
    prev: Option<crate::i18n::Text>,
    inst: &Instance,
    gbit: f64,
    nodes: u64,
) -> Option<crate::i18n::Text> {
    if nodes < 2 || inst.confidence != crate::catalog::Confidence::Unverified {
        return prev;
    }
    with_caveat(
        prev,
        crate::i18n::Msg::new("cav-rdma-unverified").arg("gbit", gbit),
    )
}

/// Candidate instance types for the request: mapped, full-GPU, allowed provider/region/chip.
pub fn candidates<'a>(
    cat: &'a Catalog,
    c: &Constraints,
    rejected: &mut Vec<Binding>,
) -> Vec<(&'a Instance, &'a GpuSpec)> {
    let mut out = Vec::new();
    let mut framework_blocked = Vec::new();
    let mut region_blocked = 0usize;
    let mut sold_out = 0usize;
    for i in cat.visible_instances() {
        if i.vgpu || !i.gpu_is_mapped() || i.gpu_count < 1.0 {
            continue;
        }
        if !c.providers.is_empty() && !c.providers.contains(&i.provider) {
            continue;
        }
        // Regions: a type whose documented region list misses every requested region is not
        // sold there (unless a price is listed there); an empty list means "not documented",
        // which keeps the type with the `region-undocumented` advice.
        if !c.regions.is_empty() && !i.regions.is_empty() {
            let asked = |r: &str| c.regions.iter().any(|x| money::same_region(x, r));
            let sold = i.regions.iter().any(|r| asked(r))
                || cat.prices_for(&i.id).any(|p| asked(&p.region));
            if !sold {
                region_blocked += 1;
                continue;
            }
        }
        // A type the provider's stock API reported sold out (imported user catalogs) is not
        // offered; a low one is, with the `stock-reported` advice.
        if i.stock == Some(crate::catalog::Stock::SoldOut) {
            sold_out += 1;
            continue;
        }
        let Some(g) = cat.gpu(&i.gpu) else { continue };
        if g.memory_gib.is_none() {
            continue;
        }
        let fam = ChipFamily::of(g);
        if !c.chips.contains(&fam) {
            continue;
        }
        if let Err(why) = fam.runs(c.framework) {
            framework_blocked.push(why);
            continue;
        }
        out.push((i, g));
    }
    if out.is_empty() {
        use crate::i18n::Msg;
        let why = match framework_blocked.first() {
            // A fixed sentence of `ChipFamily::runs`, in the catalog as a `fix-*` message.
            Some(w) => crate::i18n::fixed_text(w).unwrap_or_else(|| Msg::raw(w)),
            None if region_blocked > 0 => Msg::new("bind-why-regions")
                .arg("n", region_blocked)
                .arg("regions", c.regions.join(", ")),
            None if sold_out > 0 => Msg::new("bind-why-sold-out"),
            None => Msg::new("bind-why-no-match"),
        };
        rejected.push(Binding::msg(
            "candidates",
            Msg::new("bind-no-candidates").arg("why", why),
        ));
    }
    out
}

/// How the training search evaluates its space. Both give the same plans (tested:
/// `tests/search_equivalence.rs`); `Exhaustive` is the reference the shared search is checked by.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Default)]
pub enum SearchMode {
    /// Each memory pass shared by the clusters with the same GPU, shape and search space, each
    /// time pass by identical clusters, on all cores.
    #[default]
    Shared,
    /// Every (instance type, node count) searched from scratch on one thread.
    Exhaustive,
}

/// Entry point.
pub fn plan(req: &PlanRequest, cat: &Catalog) -> Result<PlanOutcome, CoreError> {
    plan_with(req, cat, SearchMode::Shared)
}

/// [`plan`] for a caller that shows only the first `shown` plans (the CLI's and the API's
/// `--top N`): the per-plan advice rules run for those plans only, and `advice` is empty on the
/// plans after them (`PlanOutcome::advised` says how many carry it). Everything else — the plans,
/// their order and numbers, the Pareto front, the rejections and the list advice on the top plan
/// (fallbacks and hints, which read the whole ranked list) — is what [`plan`] gives (tested:
/// `shown_plans_carry_the_advice_of_the_full_outcome` in tests/search_equivalence.rs). At least
/// the top plan is advised.
pub fn plan_shown(
    req: &PlanRequest,
    cat: &Catalog,
    shown: usize,
) -> Result<PlanOutcome, CoreError> {
    plan_advising(req, cat, SearchMode::Shared, shown.max(1))
}

/// [`plan`] with a chosen search mode.
pub fn plan_with(
    req: &PlanRequest,
    cat: &Catalog,
    mode: SearchMode,
) -> Result<PlanOutcome, CoreError> {
    plan_advising(req, cat, mode, usize::MAX)
}

/// The search, ranking and Pareto front, with the per-plan advice of the first `shown` plans.
fn plan_advising(
    req: &PlanRequest,
    cat: &Catalog,
    mode: SearchMode,
    shown: usize,
) -> Result<PlanOutcome, CoreError> {
    let resolved = validate_request(req)?;
    let req = &resolved;
    let mut rejected = Vec::new();
    let mut work = SearchWork::default();
    let cands = candidates(cat, &req.constraints, &mut rejected);
    let (mut plans, configurations) = match &req.job {
        Job::Train { .. } => train_search(req, &cands, cat, &mut rejected, (mode, &mut work))?,
        Job::Serve(s) => serve::search(req, s, &cands, cat, &mut rejected)?,
    };
    if plans.is_empty() {
        rejected.extend(blame_pins(req, &cands, cat, mode)?);
        rejected.extend(megatron_alternative(req, &cands, cat, mode)?);
    }
    check_plans(req, &plans)?;
    let threads = train::search_threads(mode);
    train::drop_aside(threads, rank_and_fold_out(&mut plans, req.objective));
    let pareto = pareto_front(&plans);
    // Advice per plan, independent of the others: on all cores (one thread in the reference).
    let advised = shown.min(plans.len());
    let advice = train::par_map(&plans[..advised], threads, |p| advice::evaluate(p, req));
    for (p, a) in plans.iter_mut().zip(advice) {
        p.advice = a;
    }
    advice::add_fallbacks(&mut plans);
    // The list-wide hints say what would change the answer: each goes first among the top plan's
    // advice of its severity (it was appended after the sorted list, so "--profile megatron:
    // about 69% less time" came after the storage and console tips; audit r10 #7).
    let hints = [
        advice::long_job_no_deadline(&plans, req),
        hints::poor_plan_hint(&plans, req),
    ];
    if let Some(top) = plans.first_mut() {
        for h in hints.into_iter().flatten().rev() {
            let at = top.advice.iter().position(|a| a.severity <= h.severity);
            top.advice.insert(at.unwrap_or(top.advice.len()), h);
        }
    }
    Ok(PlanOutcome {
        schema_version: PLAN_SCHEMA_VERSION,
        stats: SearchStats {
            instance_types: cat.instances.len(),
            candidates: cands.len(),
            configurations,
            work,
        },
        plans,
        pareto,
        rejected,
        advised,
    })
}

/// The training search of a request whose job is training (no plans otherwise).
fn train_search(
    req: &PlanRequest,
    cands: &[(&Instance, &GpuSpec)],
    cat: &Catalog,
    rejected: &mut Vec<Binding>,
    mode: (SearchMode, &mut SearchWork),
) -> Result<(Vec<Plan>, u64), CoreError> {
    let Job::Train {
        setup,
        global_batch,
        precision_pinned,
        ..
    } = &req.job
    else {
        return Ok((Vec::new(), 0));
    };
    let job = train::TrainJob {
        setup,
        global_batch: *global_batch,
        precision_pinned: *precision_pinned,
    };
    train::search(req, &job, cands, cat, rejected, mode)
}

/// No plan under the default profile, whose fine-tuning stacks (HF Trainer, PEFT) shard with
/// ZeRO/FSDP only: the same search under `--profile megatron` (Megatron-Core's TP × PP; on
/// Ascend MindSpeed-LLM, Megatron-Core's port), named when it finds plans (expert r16 q20:
/// Qwen2.5-72B full fine-tuning at 8k tokens on 910B4 answered "NO PLAN: no configuration fits
/// memory" while `--profile megatron` lists 16 × modelarts.snt9b.8 at PP 2 with ZeRO-3, a layout
/// no Megatron stack launches, so that one is not named). Not for QLoRA (no stack runs it on
/// Megatron-Core) nor a stack the user named.
fn megatron_alternative(
    req: &PlanRequest,
    cands: &[(&Instance, &GpuSpec)],
    cat: &Catalog,
    mode: SearchMode,
) -> Result<Option<Binding>, CoreError> {
    use crate::workload::{Framework, TrainTask};
    let Job::Train { setup, pins, .. } = &req.job else {
        return Ok(None);
    };
    if setup.framework != Framework::HuggingFace || setup.task == TrainTask::Qlora || pins.framework
    {
        return Ok(None);
    }
    let mut alt = req.clone();
    if let Job::Train { setup, .. } = &mut alt.job {
        setup.framework = Framework::Megatron;
    }
    let mut ignored = Vec::new();
    let mut work = SearchWork::default();
    let (mut plans, _) = train_search(&alt, cands, cat, &mut ignored, (mode, &mut work))?;
    drop(rank_and_fold_out(&mut plans, alt.objective));
    // Only layouts the bundle launches as planned: Megatron-Core's distributed optimizer is
    // ZeRO-1, and `export`'s megatron_args.sh runs ZeRO-2/3 plans with it, keeping gradients and
    // parameters replicated ("memory is higher than planned", export/train.rs). Neither torch
    // FSDP2 under Megatron-LM nor DeepSpeed's pipeline engine runs ZeRO-2/3 beside pipeline
    // stages either (megatron/training/arguments.py: "--use-torch-fsdp2 is not supported with
    // pipeline parallelism"). Review r16 #1: `pp == 1 || zero <= 1` named TP 2 ZeRO-3 plans
    // whose own export would not fit. The `megatron` profile's search no longer lists PP x
    // ZeRO-2/3 layouts at all, nor (expert r17 #1) ZeRO-2/3 at any PP
    // (train.rs `profile_refuses_zero`).
    let launched = |p: &&Plan| p.train.as_ref().is_some_and(|t| t.setup.parallel.zero <= 1);
    let n = plans.iter().filter(launched).count();
    let Some((p, t)) = plans
        .iter()
        .find(launched)
        .and_then(|p| Some((p, p.train.as_ref()?)))
    else {
        return Ok(None);
    };
    let cost = p
        .chosen
        .as_ref()
        .map_or_else(|| "none".to_string(), |c| crate::units::cny_figure(c.cny));
    Ok(Some(Binding::msg(
        "profile",
        crate::i18n::Msg::new("bind-megatron-fits")
            .arg("n", n)
            .arg("what", format!("{} × {}", p.nodes, p.instance.id))
            .arg("layout", train::layout_words(&t.setup.parallel))
            .arg("h", advice::duration_arg(p.hours))
            .arg("cost", cost),
    )))
}

/// No plan under the settings the workload fixes ([`TrainPins`]): the fixed keys whose release
/// alone gives a plan, or all of them together when none alone does; nothing when the search
/// finds no plan without them either (another constraint binds).
///
/// One search without pins, then one per key only where its answer is not known yet: a plan of
/// the free search that keeps every other fixed setting is a plan of that key's search too (same
/// site; its configuration is in that search space, whose fastest configuration is no slower,
/// so it meets the deadline and budget too), and with one key that search is the free one.
/// Same answers as searching every key ([`tests::blame_is_the_reference_blame`]).
fn blame_pins(
    req: &PlanRequest,
    cands: &[(&Instance, &GpuSpec)],
    cat: &Catalog,
    mode: SearchMode,
) -> Result<Vec<Binding>, CoreError> {
    let Job::Train { pins, setup, .. } = &req.job else {
        return Ok(Vec::new());
    };
    let keys = pins.keys();
    if keys.is_empty() {
        return Ok(Vec::new());
    }
    // The stack the user named stays named (it is no search dimension to blame).
    let unpinned = TrainPins {
        framework: pins.framework,
        ..TrainPins::default()
    };
    let free = pinned_search(req, cands, cat, mode, unpinned)?;
    if free.is_empty() {
        return Ok(Vec::new());
    }
    let mut alone = Vec::new();
    for k in &keys {
        let rest = pins.without(k);
        let kept = free
            .iter()
            .filter_map(|p| p.train.as_ref())
            .any(|t| keeps(rest, setup, &t.setup));
        if kept || !pinned_search(req, cands, cat, mode, rest)?.is_empty() {
            alone.push(vec![*k]);
        }
    }
    Ok(pin_bindings(alone, keys))
}

/// The training search's plans with `pins` in place of the workload's.
fn pinned_search(
    req: &PlanRequest,
    cands: &[(&Instance, &GpuSpec)],
    cat: &Catalog,
    mode: SearchMode,
    p: TrainPins,
) -> Result<Vec<Plan>, CoreError> {
    let mut r = req.clone();
    if let Job::Train { pins, .. } = &mut r.job {
        *pins = p;
    }
    let out = train_search(
        &r,
        cands,
        cat,
        &mut Vec::new(),
        (mode, &mut SearchWork::default()),
    )?;
    Ok(out.0)
}

/// Whether `s` keeps every setting `pins` fixes at the workload's value in `base`.
fn keeps(pins: TrainPins, base: &TrainingSetup, s: &TrainingSetup) -> bool {
    let (b, p) = (&base.parallel, &s.parallel);
    [
        (pins.tp, b.tp == p.tp),
        (pins.pp, b.pp == p.pp),
        (pins.cp, b.cp == p.cp),
        (pins.ep, b.ep == p.ep),
        (pins.zero, b.zero == p.zero),
        (pins.micro_batch, base.micro_batch == s.micro_batch),
        (pins.recompute, base.recompute == s.recompute),
        (
            pins.sequence_parallel,
            b.sequence_parallel == p.sequence_parallel,
        ),
        (pins.virtual_stages, b.virtual_stages == p.virtual_stages),
    ]
    .iter()
    .all(|&(pinned, same)| !pinned || same)
}

/// One binding per key released alone, or one naming `keys` together when none alone does.
fn pin_bindings(mut alone: Vec<Vec<&'static str>>, keys: Vec<&'static str>) -> Vec<Binding> {
    if alone.is_empty() {
        alone.push(keys);
    }
    alone
        .into_iter()
        .map(|named| {
            Binding::msg(
                named[0],
                crate::i18n::Msg::new("bind-pinned")
                    .arg("keys", named.join(", "))
                    .arg("n", named.len()),
            )
        })
        .collect()
}

fn plan_cost(p: &Plan) -> Option<f64> {
    p.chosen
        .as_ref()
        .map(|c| c.cny)
        .filter(|c| c.is_finite() && *c >= 0.0)
}

/// Relative width of a tie: keys within 0.5% of the cheapest key of their group count as a tie,
/// which the faster plan (then the one with fewer GPUs) wins.
pub const RANK_TIE_FRACTION: f64 = 0.005;

/// Free memory a training plan keeps, as a fraction of its modelled peak, to count as clear of
/// the memory model's error: the training-memory model's out-of-sample median |error|, 4.1% over
/// 95 cases (docs/accuracy.md, "By kind": `TrainMemory | 95 | 82 | 13 | 0, – | 95 | 4.1% | 6.6%`;
/// 4.2% before stop 40 sized the interleaved torchtitan 405B row's first rank by torchtitan's
/// split, 15 layers not 16, and 4.1% before round 10 charged torch's LayerNorm its input alone;
/// median and mean; no case is fitted; tests/ranking.rs reads the row and fails on a drift). A plan with less free ([`thin_margin`]) is kept — at the median error it
/// fits as often as not, and for the largest models every plan is tight — but within a tie window
/// it ranks after the plans that have the margin (audit r7 #7).
pub const MEMORY_MARGIN_FRACTION: f64 = 0.041;

/// Whether a training plan's free memory is under [`MEMORY_MARGIN_FRACTION`] of its peak
/// (serving plans size their KV pool to the memory left: never thin).
pub fn thin_margin(p: &Plan) -> bool {
    let (Some(t), Some(have)) = (p.train.as_ref(), p.usable_memory_gib) else {
        return false;
    };
    !clear_of_error(
        t.memory.device_total.0,
        crate::units::Bytes::from_gib(have).0,
    )
}

/// Whether `have` bytes leave at least [`MEMORY_MARGIN_FRACTION`] of `need` free: a
/// configuration clear of the memory model's error (the search prefers these, audit r8 #1).
pub fn clear_of_error(need: f64, have: f64) -> bool {
    have - need >= MEMORY_MARGIN_FRACTION * need
}

/// What a plan is ranked by. Ordered field by field; every field is totally ordered, so sorting by
/// it never violates the sort's contract, whatever the numbers (NaN and ±inf included: a
/// non-finite or negative key is put in the last class instead of being compared).
#[derive(Clone, Debug, PartialEq, Eq, PartialOrd, Ord)]
pub struct RankKey {
    /// 0: ranked by money; 1: no price known, ranked by GPU-hours; 2: a key that is not a finite,
    /// non-negative number (never shown: the planner refuses such plans before ranking).
    pub class: u8,
    /// Tie group: consecutive keys (in exact order) within [`RANK_TIE_FRACTION`] of the group's
    /// first key share a number; groups are numbered in increasing key order.
    pub bucket: i64,
    /// 1 when the plan's free memory is inside the memory model's error ([`thin_margin`]): inside
    /// a tie group such plans follow the ones with the margin.
    pub thin: u8,
    /// Wall-clock hours, then the number of GPUs, then the exact key, as totally ordered bits.
    pub hours: TotalF64,
    pub gpus: TotalF64,
    /// Bits given up by quantization ([`RankInput::lossy`]): an expert serves int8 over int4
    /// when they cost the same.
    pub lossy: u8,
    pub exact: TotalF64,
    pub id: String,
}

/// An `f64` ordered by `f64::total_cmp`.
#[derive(Clone, Copy, Debug)]
pub struct TotalF64(pub f64);
impl PartialEq for TotalF64 {
    fn eq(&self, o: &Self) -> bool {
        self.0.total_cmp(&o.0).is_eq()
    }
}
impl Eq for TotalF64 {}
impl PartialOrd for TotalF64 {
    fn partial_cmp(&self, o: &Self) -> Option<std::cmp::Ordering> {
        Some(self.cmp(o))
    }
}
impl Ord for TotalF64 {
    fn cmp(&self, o: &Self) -> std::cmp::Ordering {
        self.0.total_cmp(&o.0)
    }
}

/// The inputs of a rank key: cost (None = no price known), hours and GPUs of one plan.
#[derive(Clone, Debug)]
pub struct RankInput<'a> {
    pub cost: Option<f64>,
    pub hours: f64,
    pub gpus: f64,
    /// Bits of precision a serving plan's weights give up against the checkpoint (0: none, or
    /// training); at equal cost and time the less quantized plan ranks first.
    pub lossy: u8,
    /// Free memory under the memory model's error ([`thin_margin`]).
    pub thin: bool,
    pub id: &'a str,
}

/// Rank keys for a list of plans under an objective (the balanced objective needs the best cost
/// and the best time over the whole list).
pub fn rank_keys(items: &[RankInput<'_>], obj: Objective) -> Vec<RankKey> {
    let ok = |x: f64| x.is_finite() && x >= 0.0;
    let min_cost = items
        .iter()
        .filter_map(|i| i.cost.filter(|c| ok(*c) && *c > 0.0))
        .fold(f64::INFINITY, f64::min);
    let min_time = items
        .iter()
        .map(|i| i.hours)
        .filter(|h| ok(*h) && *h > 0.0)
        .fold(f64::INFINITY, f64::min);
    let mut keys: Vec<RankKey> = items
        .iter()
        .map(|i| {
            let gpu_hours = i.hours * i.gpus;
            let (class, value) = match (obj, i.cost) {
                (Objective::Time, _) => (0, i.hours),
                (Objective::Cost, Some(c)) => (0, c),
                // Without a price, GPU-hours is what the user will pay for: never speed alone.
                (Objective::Cost, None) => (1, gpu_hours),
                // Geometric mean of the ratios to the best cost and the best time.
                (Objective::Balanced, Some(c)) => (0, (c / min_cost * i.hours / min_time).sqrt()),
                (Objective::Balanced, None) => (1, gpu_hours),
            };
            let sane = ok(value) && ok(i.hours) && ok(i.gpus);
            let class = if sane { class } else { 2 };
            RankKey {
                class,
                bucket: 0,
                thin: u8::from(i.thin),
                hours: TotalF64(i.hours),
                gpus: TotalF64(i.gpus),
                lossy: i.lossy,
                exact: TotalF64(value),
                id: i.id.to_string(),
            }
        })
        .collect();
    assign_tie_groups(&mut keys);
    keys
}

/// Number the tie groups: in exact-key order, a group starts at a key and takes every following
/// key of the same class within [`RANK_TIE_FRACTION`] of it. Anchoring at the group's first key
/// (not chaining neighbour to neighbour) keeps a group at most 0.5% wide.
fn assign_tie_groups(keys: &mut [RankKey]) {
    let mut order: Vec<usize> = (0..keys.len()).collect();
    order.sort_by(|a, b| {
        let (x, y) = (&keys[*a], &keys[*b]);
        (x.class, x.exact, x.hours, x.gpus, &x.id).cmp(&(y.class, y.exact, y.hours, y.gpus, &y.id))
    });
    let mut group = 0i64;
    let mut anchor: Option<(u8, f64)> = None;
    for i in order {
        let (class, v) = (keys[i].class, keys[i].exact.0);
        let same = anchor
            .is_some_and(|(c, a)| c == class && class < 2 && v <= a + RANK_TIE_FRACTION * a.abs());
        if !same {
            group += 1;
            anchor = Some((class, v));
        }
        keys[i].bucket = group;
    }
}

/// The indices of `plans` in rank order ([`rank`]).
fn rank_order(plans: &[Plan], obj: Objective) -> Vec<usize> {
    let inputs: Vec<RankInput<'_>> = plans
        .iter()
        .map(|p| RankInput {
            cost: plan_cost(p),
            hours: p.hours,
            gpus: p.total_gpus,
            lossy: p.serve.as_ref().map_or(0, lossy_bits),
            thin: thin_margin(p),
            id: &p.instance.id,
        })
        .collect();
    let keys = rank_keys(&inputs, obj);
    // A job shorter than a month billed a whole month (no hourly price) ranks after the plans of
    // its class, whatever the objective, where any plan has an hourly price (trust r9 #6).
    let hourly = plans.iter().any(hourly_priced);
    let whole_month: Vec<bool> = plans
        .iter()
        .map(|p| hourly && whole_month_only(p))
        .collect();
    // Sort the indices (stable, as sorting the plans themselves would be), then move each plan
    // once: a plan is a few kilobytes, and moving it at every comparison dominated the ranking.
    let mut order: Vec<usize> = (0..keys.len()).collect();
    order.sort_by(|&a, &b| {
        let (ka, kb) = (&keys[a], &keys[b]);
        (ka.class, whole_month[a], ka).cmp(&(kb.class, whole_month[b], kb))
    });
    order
}

/// Whether a plan is priced by the hour (on-demand or spot) under its chosen mode or another.
fn hourly_priced(p: &Plan) -> bool {
    p.chosen.is_some() && p.costs.iter().any(|c| c.billing != Billing::Monthly)
}

/// A training plan shorter than a month whose only price is a subscription: it pays a whole
/// month for hours of use (Tencent's monthly-only rows: Qwen3-235B-A22B full, 8.2 h, ¥1.66M).
/// Its cost row says so (`billing-monthly-only`); [`rank_order`] puts it after the plans with
/// an hourly price.
pub fn whole_month_only(p: &Plan) -> bool {
    p.train.is_some()
        && p.hours < money::HOURS_PER_MONTH
        && p.chosen
            .as_ref()
            .is_some_and(|c| c.billing == Billing::Monthly)
        && !p.costs.iter().any(|c| c.billing != Billing::Monthly)
}

/// Order plans by the objective. Plans without a known price sort after priced ones for cost and
/// are ranked among themselves by GPU-hours.
pub fn rank(plans: &mut Vec<Plan>, obj: Objective) {
    let order = rank_order(plans, obj);
    let mut slots: Vec<Option<Plan>> = plans.drain(..).map(Some).collect();
    plans.extend(order.into_iter().filter_map(|i| slots[i].take()));
}

/// [`rank`] then [`collapse_near_duplicates`], each plan moved once into the ranked, folded list
/// (the planner's path; test `rank_and_fold_is_rank_then_the_reference_fold` in
/// plan/fold_reference.rs compares it with an independent fold).
pub fn rank_and_fold(plans: &mut Vec<Plan>, obj: Objective) {
    drop(rank_and_fold_out(plans, obj));
}

/// [`rank_and_fold`], handing back the plans folded into others (for the caller to free).
/// Both steps work within `plans`' own allocation: a second list of plans (a plan is several
/// KB; 412 of them in the 64-node pretraining scenario) was fresh memory for every search
/// (docs/performance.md, stop 41).
fn rank_and_fold_out(plans: &mut Vec<Plan>, obj: Objective) -> Vec<Plan> {
    let order = rank_order(plans, obj);
    permute(plans, &order);
    fold_in_place(plans)
}

/// Puts `plans` in `order` (`plans[j]` becomes the old `plans[order[j]]`; `order` is a
/// permutation) by swapping along the permutation's cycles: position `at` holds the cycle's
/// first plan until it takes the plan it needs from `order[at]`, which then holds it.
fn permute<T>(plans: &mut [T], order: &[usize]) {
    let mut placed = vec![false; order.len()];
    for start in 0..order.len() {
        let mut at = start;
        while !placed[at] {
            placed[at] = true;
            let from = order[at];
            if from == start {
                break;
            }
            plans.swap(at, from);
            at = from;
        }
    }
}

/// Folds a ranked list (best first) within itself: the plans that are no near-duplicate of a
/// better one move to the front in rank order (`plans[..kept]`), each near-duplicate is named in
/// the `also` of the first kept plan it duplicates ([`fold_one`]) and stays behind them; those
/// are returned. The independent reference is `fold_reference::fold_into` (tests only).
fn fold_in_place(plans: &mut Vec<Plan>) -> Vec<Plan> {
    // Kept plans by what a near-duplicate must share (provider, accelerator, count), in kept
    // order: the first match in its bucket is the first match among all kept plans.
    let mut buckets: std::collections::HashMap<(Provider, String, u64), Vec<usize>> =
        std::collections::HashMap::new();
    let mut kept = 0;
    for r in 0..plans.len() {
        let (head, tail) = plans.split_at_mut(r);
        let p = &mut tail[0];
        let key = (
            p.instance.provider,
            p.gpu.id.clone(),
            p.total_gpus.to_bits(),
        );
        let bucket = buckets.entry(key).or_default();
        match bucket.iter().copied().find(|&i| {
            near_duplicate(&head[i], p) || lossier_twin(&head[i], p) || lossier_twin(p, &head[i])
        }) {
            Some(i) => fold_one(&mut head[i], p),
            None => {
                bucket.push(kept);
                plans.swap(kept, r);
                kept += 1;
            }
        }
    }
    plans.split_off(kept)
}

/// The step of [`fold_in_place`] for a near-duplicate `p` of the kept plan `k`, in place: `k`
/// becomes the plan shown (it may take `p`'s place), `p` the one named beside it.
///
/// The shipped-format plan is shown in place of a copy of its weights on the same fleet for the
/// same money ([`native_shown`]). Of two training plans that are the same answer, the one on
/// fewer nodes is shown and the other named beside it: the same GPUs in one box need no network
/// between them and one machine to launch (audit r9 #7: Qwen3-30B-A3B LoRA listed PP 2 over two
/// single-A100 VMs on 8 Gbit/s TCP with the 2-A100 NVLink box as "same answer as plan 1", ahead
/// of it by ¥0.05).
fn fold_one(k: &mut Plan, p: &mut Plan) {
    if lossier_twin(p, k) {
        native_shown(k, p);
    } else if k.train.is_some() && p.nodes < k.nodes {
        shown_instead(k, p);
    }
    let name = also_name(k, p);
    if !k.also.contains(&name) {
        k.also.push(name);
    }
}

/// How a folded plan `p` is named beside the kept `k`: "N × instance", with its format where
/// the two differ in it.
fn also_name(k: &Plan, p: &Plan) -> String {
    let name = format!("{} × {}", p.nodes, p.instance.id);
    // A lossier twin on the same machines is told apart by its format.
    match (&k.serve, &p.serve) {
        (Some(x), Some(y)) if x.weights != y.weights => format!("{name} {}", y.weights.name()),
        _ => name,
    }
}

/// `kept` and `p` trade places: `p`'s plan takes the rank and the names folded so far, the plan
/// it replaces is named beside it (a copy of the shipped weights is named beside the shipped
/// row, review r12 #1).
fn shown_instead(kept: &mut Plan, p: &mut Plan) {
    std::mem::swap(kept, p);
    std::mem::swap(&mut kept.also, &mut p.also);
    p.also.clear();
}

/// The shipped-format plan `p` is shown in place of `kept`, a copy of its weights on the same
/// fleet for the same money; the names folded into `kept` with its own format so far get that
/// format written beside them, as they now differ from the row shown.
fn native_shown(kept: &mut Plan, p: &mut Plan) {
    mark_format(kept);
    shown_instead(kept, p);
}

impl ServeDetail {
    /// Serving weights as the model ships them: bf16/fp16, or the checkpoint's own format
    /// (DeepSeek-V3/R1 in FP8 is not a quantization of the model).
    pub fn unquantized(&self) -> bool {
        use crate::workload::WeightFormat as W;
        matches!(self.weights, W::Bf16 | W::Fp16) || self.weights_native
    }
}

/// Bits a serving plan's weights give up against the checkpoint: 0 when
/// [`ServeDetail::unquantized`], else 16 − the format's bits (fp8/int8 8, int4 ~12).
pub fn lossy_bits(s: &ServeDetail) -> u8 {
    if s.unquantized() {
        return 0;
    }
    (16.0 - s.weights.bits()).clamp(0.0, 16.0).round() as u8
}

/// Relative time difference under which two otherwise identical plans are the same answer.
pub const DUPLICATE_TIME_FRACTION: f64 = 0.01;

/// Whether `b` is the same answer as `a` for the user: same provider, accelerator and number of
/// accelerators, time within [`DUPLICATE_TIME_FRACTION`], cost within [`RANK_TIE_FRACTION`] (or
/// both unpriced).
fn near_duplicate(a: &Plan, b: &Plan) -> bool {
    let close = |x: f64, y: f64, f: f64| (x - y).abs() <= f * x.abs().max(y.abs());
    let cost = match (plan_cost(a), plan_cost(b)) {
        (Some(x), Some(y)) => close(x, y, RANK_TIE_FRACTION),
        (None, None) => true,
        _ => false,
    };
    let same_serving = match (&a.serve, &b.serve) {
        (Some(x), Some(y)) => x.weights == y.weights && x.tp == y.tp && x.replicas == y.replicas,
        (None, None) => true,
        _ => false,
    };
    a.instance.id != b.instance.id
        && same_serving
        && a.instance.provider == b.instance.provider
        && a.gpu.id == b.gpu.id
        && a.total_gpus == b.total_gpus
        && close(a.hours, b.hours, DUPLICATE_TIME_FRACTION)
        && cost
}

/// Whether serving plan `b` is `a` with a lossier weight format and nothing gained: the same
/// fleet (provider, accelerator and count, TP, replicas; the instance type may differ, as for
/// [`near_duplicate`]), cost within [`RANK_TIE_FRACTION`] and the same memory left per GPU at
/// the table's 0.1 GiB, or memory left that nothing uses ([`idle_memory`]). The lossier rows bought nothing (audit r8 #14: Qwen2.5-7B
/// at 5 req/s listed 2 × gn7i in int8 and in int4-g128 at ¥9151 and 3.8 GiB free each).
fn lossier_twin(a: &Plan, b: &Plan) -> bool {
    let (Some(x), Some(y)) = (&a.serve, &b.serve) else {
        return false;
    };
    let free = |p: &Plan, s: &ServeDetail| {
        let used = (s.memory.weights + s.memory.kv_pool).gib();
        p.usable_memory_gib
            .map(|h| format!("{:.1}", (h - used).max(0.0)))
    };
    let cost = match (plan_cost(a), plan_cost(b)) {
        (Some(p), Some(q)) => (p - q).abs() <= RANK_TIE_FRACTION * p.abs().max(q.abs()),
        (None, None) => true,
        _ => false,
    };
    a.instance.provider == b.instance.provider
        && a.gpu.id == b.gpu.id
        && a.total_gpus == b.total_gpus
        && (x.tp, x.replicas) == (y.tp, y.replicas)
        && lossier(x, y)
        && (free(a, x) == free(b, y) || idle_memory(x, y))
        && cost
}

/// Whether `y`'s weights are lossier than `x`'s: fewer bits, or any copy (re-quantized or
/// dequantized) of a checkpoint `x` serves as shipped (audit r10: DeepSeek-R1 on 16 × H20 listed
/// its native FP8 and an int8 re-quantization of it at the same cost and memory, the second a loss
/// for nothing). The shipped format is never lossier than a copy of it with more bits: a bf16
/// dequantization of an MXFP4 checkpoint holds nothing the checkpoint does not (review r12 #1:
/// gpt-oss-20b folded its shipped MXFP4 row under its own bf16 twin).
fn lossier(x: &ServeDetail, y: &ServeDetail) -> bool {
    if x.weights_native != y.weights_native {
        return x.weights_native;
    }
    y.weights.bits() < x.weights.bits()
}

/// Whether the memory a lossier format frees on a model without a KV cache (a UNet, a CNN) buys
/// nothing: nothing grows into it, and the replica serves no more requests per second (audit r9
/// #21: SDXL at 0.5 req/s listed 6 × A10 in bf16 and in int8 at ¥27454 each, both starred, the
/// int8 row with 2.5 GiB more idle memory).
fn idle_memory(x: &ServeDetail, y: &ServeDetail) -> bool {
    let no_kv = x.memory.kv_pool.0 == 0.0 && y.memory.kv_pool.0 == 0.0;
    let (p, q) = (
        x.requests_per_second_per_replica,
        y.requests_per_second_per_replica,
    );
    no_kv && q <= p * (1.0 + RANK_TIE_FRACTION)
}

/// Fold near-duplicates (e.g. two sizes of one family giving the same 8 GPUs for the same time and
/// money) into the better-ranked plan's `also` list. Keeps the ranking order: `plans` must be
/// ranked ([`rank`]); [`rank_and_fold`] does both.
pub fn collapse_near_duplicates(plans: &mut Vec<Plan>) {
    drop(fold_in_place(plans));
}

/// The names folded into `kept` with its own format so far get that format written beside them.
fn mark_format(kept: &mut Plan) {
    if let Some(s) = &kept.serve {
        let format = s.weights.name();
        for name in &mut kept.also {
            // "N × instance" names a plan in the shown row's format; "N × instance format" another.
            if name.split_whitespace().count() == 3 {
                *name = format!("{name} {format}");
            }
        }
    }
}

/// Plans not dominated in (cost, time).
pub fn pareto_front(plans: &[Plan]) -> Vec<usize> {
    let pts: Vec<(usize, f64, f64)> = plans
        .iter()
        .enumerate()
        .filter_map(|(i, p)| plan_cost(p).map(|c| (i, c, p.hours)))
        .collect();
    let mut front = pareto_indices(&pts);
    front.sort_by(|a, b| plans[*a].hours.total_cmp(&plans[*b].hours));
    front
}

/// The points (index, cost, hours) not dominated by another: none is at most as expensive and
/// strictly faster, or strictly cheaper and at most as slow. Sort by cost, then sweep keeping the
/// best time of the strictly cheaper points: O(n log n) instead of comparing every pair (a
/// 100,000-row catalog gives ~500,000 plans).
pub fn pareto_indices(pts: &[(usize, f64, f64)]) -> Vec<usize> {
    let mut sorted: Vec<&(usize, f64, f64)> = pts.iter().collect();
    sorted.sort_by(|a, b| a.1.total_cmp(&b.1).then(a.2.total_cmp(&b.2)));
    let mut front = Vec::new();
    let mut best_cheaper = f64::INFINITY;
    let mut i = 0;
    while i < sorted.len() {
        // One group of equal cost; the first has the group's least hours.
        let cost = sorted[i].1;
        let group_min = sorted[i].2;
        let mut j = i;
        while j < sorted.len() && sorted[j].1.total_cmp(&cost).is_eq() {
            let h = sorted[j].2;
            if h.total_cmp(&group_min).is_eq() && best_cheaper > h {
                front.push(sorted[j].0);
            }
            j += 1;
        }
        best_cheaper = best_cheaper.min(group_min);
        i = j;
    }
    front
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::workload::{Framework, Recompute, TrainTask};

    /// `permute` puts every item where `order` says, for every permutation of up to 6 items
    /// (all cycle shapes: fixed points, swaps, one long cycle) and for a few longer ones.
    #[test]
    fn permute_is_indexing_by_the_order() {
        fn each(n: usize, mut f: impl FnMut(&[usize])) {
            // Heap's algorithm over 0..n.
            let mut a: Vec<usize> = (0..n).collect();
            let mut c = vec![0; n];
            f(&a);
            let mut i = 0;
            while i < n {
                if c[i] < i {
                    a.swap(if i % 2 == 0 { 0 } else { c[i] }, i);
                    f(&a);
                    c[i] += 1;
                    i = 0;
                } else {
                    c[i] = 0;
                    i += 1;
                }
            }
        }
        let check = |order: &[usize]| {
            let items: Vec<String> = (0..order.len()).map(|i| format!("p{i}")).collect();
            let mut moved = items.clone();
            permute(&mut moved, order);
            let want: Vec<String> = order.iter().map(|&i| items[i].clone()).collect();
            assert_eq!(moved, want, "order {order:?}");
        };
        for n in 0..=6 {
            each(n, check);
        }
        for n in [50, 412] {
            // A fixed pseudo-random permutation (Fisher-Yates with an LCG).
            let mut order: Vec<usize> = (0..n).collect();
            let mut x: u64 = 12345;
            for i in (1..n).rev() {
                x = x
                    .wrapping_mul(6364136223846793005)
                    .wrapping_add(1442695040888963407);
                order.swap(i, (x >> 33) as usize % (i + 1));
            }
            check(&order);
        }
    }

    /// The blame as it was before its shortcuts: the free search, then one search per key.
    fn reference(
        req: &PlanRequest,
        cands: &[(&Instance, &GpuSpec)],
        cat: &Catalog,
    ) -> Result<Vec<Binding>, CoreError> {
        let Job::Train { pins, .. } = &req.job else {
            return Ok(Vec::new());
        };
        let mode = SearchMode::Shared;
        let feasible = |p| pinned_search(req, cands, cat, mode, p).map(|v| !v.is_empty());
        let keys = pins.keys();
        if keys.is_empty() || !feasible(TrainPins::default())? {
            return Ok(Vec::new());
        }
        let mut alone = Vec::new();
        for k in &keys {
            if feasible(pins.without(k))? {
                alone.push(vec![*k]);
            }
        }
        Ok(pin_bindings(alone, keys))
    }

    fn request(model: &str, setup: TrainingSetup, pins: TrainPins) -> PlanRequest {
        let req = PlanRequest {
            model: crate::model::find_preset(model).unwrap().model.clone(),
            job: Job::Train {
                setup,
                global_batch: None,
                precision_pinned: false,
                pins,
            },
            constraints: Constraints::default(),
            objective: Objective::Cost,
            tunables: Tunables::default(),
        };
        validate_request(&req).unwrap()
    }

    /// Infeasible pinned workloads (tests/plan_pins.rs's): the blame names exactly the keys the
    /// reference names, in its order.
    #[test]
    fn blame_is_the_reference_blame() {
        let cat = Catalog::builtin().unwrap();
        let cands = candidates(&cat, &Constraints::default(), &mut Vec::new());
        let megatron = |tp: u64, pp: u64| {
            let mut s = TrainingSetup {
                task: TrainTask::Pretrain,
                framework: Framework::Megatron,
                tokens: Some(1e10),
                ..Default::default()
            };
            (s.parallel.tp, s.parallel.pp, s.parallel.zero) = (tp, pp, 1);
            // Review r16b: Megatron-Core refuses PP 5 of 32 layers unstated; 7 × 4 + 4 builds.
            if pp == 5 {
                s.parallel.last_stage_layers = Some(4);
            }
            s
        };
        let mut big = TrainingSetup {
            task: TrainTask::Pretrain,
            tokens: Some(1e10),
            micro_batch: 16,
            recompute: Recompute::None,
            ..Default::default()
        };
        big.parallel.zero = 0;
        let pins = |tp, pp, zero, micro_batch, recompute| TrainPins {
            tp,
            pp,
            zero,
            micro_batch,
            recompute,
            ..Default::default()
        };
        let cases = [
            // 70B at micro-batch 16 without recompute: either of the two released gives plans;
            // since expert r17 releasing the ZeRO stage does too (ZeRO-3 with CP 8, which the
            // search tries below 16k tokens on types where nothing fits without it).
            (
                "Llama-3.1-70B",
                big,
                pins(false, false, true, true, true),
                vec![
                    "training.parallel.zero",
                    "training.micro_batch",
                    "training.recompute",
                ],
            ),
            // 32 layers in 5 stages, ZeRO-1 fixed too: the stages are to blame.
            (
                "Llama-3.1-8B",
                megatron(1, 5),
                pins(false, true, true, false, false),
                vec!["training.parallel.pp"],
            ),
            // One key: its search is the free one. (TP 16 splits Llama-2-7B's 32 heads and 32 KV
            // heads but no node has 16 GPUs; TP 3 is refused as an input since audit r9 #5, TP 16
            // on Llama-3.1-8B's 8 KV heads since review r14 #1.)
            (
                "Llama-2-7B",
                megatron(16, 1),
                pins(true, false, false, false, false),
                vec!["training.parallel.tp"],
            ),
            // Neither of TP 16 and PP 5 alone: both named together.
            (
                "Llama-2-7B",
                megatron(16, 5),
                pins(true, true, false, false, false),
                vec!["training.parallel.tp"],
            ),
        ];
        for (model, setup, p, named) in cases {
            let together = setup.parallel.pp == 5 && setup.parallel.tp == 16;
            let req = request(model, setup, p);
            assert!(pinned_search(&req, &cands, &cat, SearchMode::Shared, p)
                .unwrap()
                .is_empty());
            let got = blame_pins(&req, &cands, &cat, SearchMode::Shared).unwrap();
            assert_eq!(got, reference(&req, &cands, &cat).unwrap(), "{model}");
            let keys: Vec<&str> = got.iter().map(|b| b.constraint).collect();
            assert_eq!(keys, named, "{model}");
            if together {
                assert!(
                    got[0].message_en.contains("training.parallel.pp"),
                    "{got:?}"
                );
            }
        }
    }
}
