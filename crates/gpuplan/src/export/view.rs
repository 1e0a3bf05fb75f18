//! The plan as the exporters see it: the fields they need, read from the plan JSON document
//! (`gpuplan plan --format json`, docs/json-schema.md) and checked. Both `plan --export` and
//! `export PLAN.json` go through here, so a saved plan and a fresh one give the same bundle.
//! Every string that reaches a shell script or a manifest is checked against a safe alphabet:
//! a hand-edited JSON cannot inject shell or YAML.

use crate::render::fail;
use anyhow::Result;
use gpuplan_core::i18n::Msg;
use serde_json::Value;

/// A catalog message naming one field of the plan document.
fn field_msg(id: &'static str, field: &str) -> Msg {
    Msg::new(id).arg("field", field)
}

/// The plan JSON schema versions the exporters read.
pub const SUPPORTED_SCHEMA_VERSIONS: &[u64] = &[1];

#[derive(Clone, Debug, PartialEq)]
pub struct PlanView {
    /// 1-based rank of the plan in the document.
    pub rank: usize,
    pub model: String,
    pub provider: String,
    pub instance: String,
    pub family: String,
    pub gpu_id: String,
    pub gpu_name: String,
    /// `nvidia` | `huawei` | `amd`.
    pub vendor: String,
    pub gpus_per_node: u64,
    pub nodes: u64,
    /// The instance's RDMA kind: `erdma` | `roce` | `ib` | `none` | `unknown`.
    pub rdma: String,
    /// The link the plan assumed between nodes: `erdma` | `rdma` | `tcp`.
    pub inter_link: String,
    /// Region of the chosen price, else the first `--region`; `None` when neither is known.
    pub region: Option<String>,
    /// `on_demand` | `monthly` | `spot`; `None` when no price is known.
    pub billing: Option<String>,
    /// What a monthly plan subscribes (a mixed billing's subscription too); `None` for
    /// on-demand, spot and unpriced plans.
    pub subscription: Option<Subscription>,
    pub hours: f64,
    /// `pytorch` | `mindspore` | … (`--framework`).
    pub software: String,
    pub train: Option<TrainView>,
    pub serve: Option<ServeView>,
}

/// One subscription per node, a period the provider's API accepts, and what the plan priced
/// after it.
#[derive(Clone, Debug, PartialEq)]
pub struct Subscription {
    /// Months per node (`chosen.months`; plans from before that field: the mix's months, else
    /// the months covering the job, `Periods::covering_months`).
    pub months: u64,
    /// `months` as consecutive accepted periods, (period, how many), longest first
    /// (`Periods::consecutive`): one entry `(months, 1)` for a single period. The create command
    /// buys the first; the script says which renewals follow.
    pub parts: Vec<(u64, u64)>,
    /// A mixed billing's remainder (`chosen.mix`); `None` for a pure subscription.
    pub rest: Option<Remainder>,
}

/// The part of a mixed billing after the subscription, as the plan priced it.
#[derive(Clone, Debug, PartialEq)]
pub struct Remainder {
    /// `on_demand` | `spot`.
    pub billing: String,
    /// Wall-clock hours after the subscription (spot: with its expected overhead).
    pub hours: f64,
    pub cny: f64,
    /// The subscription's part, all nodes.
    pub months_cny: f64,
}

#[derive(Clone, Debug, PartialEq)]
pub struct TrainView {
    pub task: String,
    pub precision: String,
    pub optimizer: String,
    pub framework: String,
    pub tp: u64,
    pub pp: u64,
    pub ep: u64,
    pub sequence_parallel: bool,
    /// Interleaved-schedule chunks per pipeline rank, context-parallel degree and the last
    /// stage's layer count (uneven split) the plan was timed with; older plans lack them (1, 1,
    /// even).
    pub virtual_stages: u64,
    pub cp: u64,
    pub last_stage_layers: Option<u64>,
    pub first_stage_layers: Option<u64>,
    pub account_for_embedding_in_pipeline_split: bool,
    pub account_for_loss_in_pipeline_split: bool,
    /// The model's layers the pipeline split covers (`memory.pipeline.layers.total`; absent at
    /// pp = 1 and in plans from before it was written).
    pub layers: Option<u64>,
    /// Whether the model routes tokens to experts (`memory.routed_experts` present): a MoE plan
    /// names its token dispatcher even at EP 1.
    pub moe: bool,
    /// The communication overlaps the plan was timed with (the search switches NeMo's on for
    /// Megatron-Core, `propose_overlap`); absent: off, Megatron-LM's defaults.
    pub overlap_grad_reduce: bool,
    pub overlap_param_gather: bool,
    pub tp_comm_overlap: bool,
    /// The MoE all-to-all overlap and token dispatcher the plan was timed with
    /// (`setup.parallel.moe_a2a_overlap`, `moe_dispatcher`); absent: off and `alltoall`.
    pub moe_a2a_overlap: bool,
    pub moe_dispatcher: String,
    /// The expert tensor-parallel size the plan's memory and step time assumed
    /// (`setup.parallel.etp` where given, else gpuplan-core `WeightSplit::training`: TP without
    /// EP; with EP, TP under Megatron-Core and 1 — whole experts — under DeepSpeed-MoE and the
    /// default profile).
    pub etp: u64,
    /// The InternEvo parallel keys the plan was timed with (`setup.parallel.zero1_broadcast`,
    /// `grad_bucket_elements`, `grad_bucket_sync`); absent: all-gather, the framework's
    /// buckets, off.
    pub zero1_broadcast: String,
    pub grad_bucket_elements: Option<u64>,
    pub grad_bucket_sync: bool,
    /// The plan's memory assumed FSDP2 (`setup.parallel.fsdp_version = 2`; absent: 1, FSDP1).
    pub fsdp2: bool,
    /// Megatron FP8's parameters and main-gradient dtype the plan's memory assumed
    /// (`setup.fp8_params`, `setup.main_grads`); absent: 16-bit parameters, fp32 (the
    /// frameworks' defaults).
    pub fp8_params: bool,
    pub main_grads_bf16: bool,
    /// `setup.optimizer_dtype = "bf16"` (megatron profile): the plan's memory counted the Adam
    /// master weights and moments at 2 B each (apex DistributedFusedAdam `dtype`).
    pub optimizer_bf16: bool,
    /// The loss and weight-gradient paths a `megatron` plan was estimated with
    /// (`setup.cross_entropy_loss_fusion`, `setup.gradient_accumulation_fusion`; absent: true,
    /// gpuplan-core `TrainingSetup::megatron_fused_loss` / `megatron_fused_wgrad`). False for
    /// the fused loss of a plan of another profile, whose loss is the framework's own.
    pub megatron_fused_loss: bool,
    pub megatron_fused_wgrad: bool,
    pub zero: u64,
    pub offload_optimizer: bool,
    pub offload_params: bool,
    pub recompute: String,
    pub attention: String,
    pub micro_batch: u64,
    pub grad_accum: u64,
    pub seq_len: u64,
    /// LoRA rank, targets (HF linear names or `all-linear`) and base format (`nf4`, `nf4_no_dq`,
    /// `int8`, `bf16`, `fp32`; `None`: the precision's) under PEFT.
    pub lora_rank: Option<u64>,
    pub lora_targets: Vec<String>,
    pub lora_base: Option<String>,
    /// LoRA dropout probability (`setup.lora.dropout`; older plans lack it).
    pub lora_dropout: Option<f64>,
    /// Tokens the plan trains on (`setup.tokens`), when given.
    pub tokens: Option<f64>,
    pub storage: Option<StorageView>,
    pub interruptible: bool,
    /// The checkpoint interval of the billing the plan's hours and ¥ used: spot's
    /// (`train.spot`, its preemptions and failures) for a spot plan, the failures'
    /// (`train.failures`) for on-demand, monthly and mixed plans; `None` where the plan has none
    /// (no interruption model: `failure_rate_per_gpu_hour = 0` off spot).
    pub checkpoint_interval_s: Option<f64>,
    /// Which one [`TrainView::checkpoint_interval_s`] is.
    pub checkpoint_basis: Option<CheckpointBasis>,
    /// Seconds per optimizer step (the plan's `train.step.step`).
    pub step_s: f64,
}

/// Where the exported checkpoint interval comes from.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum CheckpointBasis {
    /// Spot's interval (its preemptions added to the failures), for a spot plan.
    Spot,
    /// The failures' interval, for on-demand, monthly and mixed plans.
    Failures,
}

impl TrainView {
    /// Optimizer steps between checkpoints at the plan's interval (at least 1).
    pub fn checkpoint_steps(&self) -> Option<u64> {
        self.checkpoint_interval_s
            .map(|i| (i / self.step_s).floor().max(1.0) as u64)
    }
}

impl TrainView {
    pub fn data_parallel(&self, total_gpus: u64) -> u64 {
        (total_gpus / (self.tp * self.pp * self.cp)).max(1)
    }
    /// Whether the layout needs Megatron-LM's arguments: TP, PP, CP (audit r9 #2: a CP 8 plan
    /// was exported to DeepSpeed, which has no context parallelism and counts every rank as
    /// data-parallel, so its batch check stops the run) or EP, or the megatron profile.
    pub fn model_parallel(&self) -> bool {
        self.tp > 1 || self.pp > 1 || self.cp > 1 || self.ep > 1 || self.framework == "megatron"
    }
}

#[derive(Clone, Debug, PartialEq)]
pub struct StorageView {
    pub id: String,
    pub name: String,
    /// `file` | `object` | `block` | …
    pub kind: String,
    pub shared: bool,
    pub capacity_gib: f64,
}

#[derive(Clone, Debug, PartialEq)]
pub struct ServeView {
    /// `bf16` | `fp16` | `fp32` | `fp8` | `int8` | `int4` | `bits`.
    pub weights: String,
    pub tp: u64,
    pub replicas: u64,
    pub replicas_for_rate: u64,
    pub min_replicas: u64,
    pub batch_per_replica: u64,
    /// Requests per second one replica sustains (the plan's figure).
    pub rps_per_replica: f64,
    pub max_model_len: u64,
    pub gpu_memory_utilization: f64,
    pub kv_dtype: String,
    /// Requests each replica holds in its slots at the plan's peak load (Little's law on
    /// `serve.load`: rate × time in a slot); `None` where the plan has no load (no decoder).
    pub running_at_peak: Option<f64>,
    /// The chip has no bf16 (Turing T4, Volta V100: the plan's `gpu.dtypes` lacks it): the
    /// engine runs activations and the KV cache in fp16 whatever the weight format.
    pub half_only: bool,
    /// The chip is CUDA below AWQ's compute capability (`gpuplan_core::infer::AWQ_MIN_CC`, 7.5:
    /// Volta V100, Pascal P100, read from the plan's `gpu.compute_capability`): vLLM loads no AWQ
    /// there (`AWQConfig.get_min_capability()` = 75), only GPTQ (60), so int4 is served from a
    /// GPTQ checkpoint.
    pub below_awq_cc: bool,
    /// The chip is CUDA below SGLang's start floor (`gpuplan_core::infer::engine_min_cc`, 7.5):
    /// SGLang does not start there at all, so no SGLang script is written.
    pub below_sglang_cc: bool,
    /// The chip is a Huawei Ascend NPU (the plan's `gpu.vendor`): vLLM runs there through the
    /// vllm-ascend plugin and SGLang through its Ascend build, both reading quantized weights
    /// from ModelSlim checkpoints, not AWQ/GPTQ (audit r20 #3).
    pub ascend: bool,
}

impl PlanView {
    pub fn total_gpus(&self) -> u64 {
        self.gpus_per_node * self.nodes
    }
    pub fn ascend(&self) -> bool {
        self.vendor == "huawei"
    }
    /// A name usable as a Kubernetes object name and a file name (RFC 1123 label, ≤ 63).
    pub fn slug(&self) -> String {
        let raw = format!("gpuplan-{}-{}", self.model, self.instance).to_ascii_lowercase();
        let mut s: String = raw
            .chars()
            .map(|c| if c.is_ascii_alphanumeric() { c } else { '-' })
            .collect();
        while s.contains("--") {
            s = s.replace("--", "-");
        }
        s.truncate(63);
        s.trim_end_matches('-').to_string()
    }
    /// One line naming the plan, for file headers.
    pub fn title(&self) -> String {
        self.title_in(gpuplan_core::i18n::Lang::En)
    }

    /// The provider as the README names it: under zh its Chinese name (阿里云), under en the
    /// document's id as the scripts' headers write it (audit r22 #2: the zh README read "alibaba").
    fn provider_in(&self, l: gpuplan_core::i18n::Lang) -> gpuplan_core::i18n::Arg {
        let p = serde_json::from_value::<gpuplan_core::catalog::Provider>(Value::String(
            self.provider.clone(),
        ));
        match p {
            Ok(p) if l == gpuplan_core::i18n::Lang::Zh => {
                gpuplan_core::i18n::names::provider(p).into()
            }
            _ => self.provider.as_str().into(),
        }
    }

    /// [`Self::title`] in `l` (the README's; the scripts' headers stay English).
    pub fn title_in(&self, l: gpuplan_core::i18n::Lang) -> String {
        let billing = match self.billing.as_deref() {
            Some(b) => gpuplan_core::i18n::Arg::from(b),
            None => gpuplan_core::i18n::Msg::new("export-title-no-price").into(),
        };
        gpuplan_core::i18n::Msg::new("export-title")
            .arg("rank", self.rank.to_string())
            .arg("model", self.model.as_str())
            .arg(
                "job",
                if self.serve.is_some() {
                    "serving"
                } else {
                    "training"
                },
            )
            .arg("nodes", self.nodes.to_string())
            .arg("instance", self.instance.as_str())
            .arg("provider", self.provider_in(l))
            .arg("gpu", gpuplan_core::i18n::gpu_name(&self.gpu_name, l))
            .arg("per_node", self.gpus_per_node.to_string())
            .arg("billing", billing)
            .render(l)
    }
}

/// The `pick`-th plan (1-based) of a plan JSON document.
pub fn from_document(doc: &Value, pick: usize) -> Result<PlanView> {
    check_envelope(doc)?;
    let plans = doc
        .pointer("/outcome/plans")
        .and_then(Value::as_array)
        .ok_or_else(|| fail(Msg::new("export-no-plans-key")))?;
    if plans.is_empty() {
        return Err(fail(Msg::new("export-no-plan")));
    }
    if pick == 0 || pick > plans.len() {
        return Err(fail(
            Msg::new("export-pick")
                .arg("pick", pick as u64)
                .arg("n", plans.len() as u64),
        ));
    }
    let p = &plans[pick - 1];
    let at = |path: &str| format!("outcome.plans[{}].{}", pick - 1, path.replace('/', "."));
    let s = |path: &str| -> Result<String> { ident(p, path, &at(path)) };
    let n = |path: &str, max: u64| -> Result<u64> { count(p, path, max, &at(path)) };
    let present = |k: &str| p.get(k).is_some_and(|v| !v.is_null());
    if present("train") == present("serve") {
        return Err(fail(
            Msg::new("export-train-xor-serve")
                .arg("at", at("").trim_end_matches('.'))
                .arg("has", if present("train") { "both" } else { "neither" }),
        ));
    }
    let request = doc
        .get("request")
        .ok_or_else(|| fail(field_msg("export-field-missing", "request")))?;
    let view = PlanView {
        rank: pick,
        model: ident(request, "model", "request.model")?,
        provider: s("instance/provider")?,
        instance: s("instance/id")?,
        family: s("instance/family")?,
        gpu_id: s("gpu/id")?,
        gpu_name: text(p, "gpu/name", &at("gpu/name"))?,
        vendor: s("gpu/vendor")?,
        gpus_per_node: n("cluster/gpus_per_node", 64)?,
        nodes: n("nodes", 4096)?,
        rdma: s("instance/rdma")?,
        inter_link: s("cluster/inter_link")?,
        region: region(p, request)?,
        billing: optional_ident(p, "chosen/billing", &at("chosen.billing"))?,
        subscription: None,
        hours: hours(p, &at("hours"))?,
        software: ident(
            request,
            "constraints/framework",
            "request.constraints.framework",
        )?,
        train: match p.get("train") {
            Some(t) if !t.is_null() => Some(train_view(t, request, p, &at("train"))?),
            _ => None,
        },
        serve: match p.get("serve") {
            Some(v) if !v.is_null() => Some(serve_view(
                v,
                request,
                chip_flags(p, CcFloors::today()),
                &at("serve"),
            )?),
            _ => None,
        },
    };
    check_layout(&view, &at("train.setup.parallel.tp"))?;
    let subscription = subscription(p, &view, &at)?;
    Ok(PlanView {
        subscription,
        ..view
    })
}

/// A monthly plan's subscription, checked against the periods the provider's API accepts
/// (gpuplan_core::plan::periods): a hand-edited or older plan cannot put a period the API
/// refuses into the create command.
fn subscription(
    p: &Value,
    v: &PlanView,
    at: &dyn Fn(&str) -> String,
) -> Result<Option<Subscription>> {
    if v.billing.as_deref() != Some("monthly") {
        return Ok(None);
    }
    let rest = match get(p, "chosen/mix") {
        Some(m) if !m.is_null() => Some(Remainder {
            billing: ident(m, "remainder_billing", &at("chosen/mix/remainder_billing"))?,
            hours: positive(
                m,
                "remainder_hours",
                MAX_EXPORT_HOURS,
                &at("chosen/mix/remainder_hours"),
            )?,
            cny: non_negative(m, "remainder_cny", &at("chosen/mix/remainder_cny"))?,
            months_cny: non_negative(m, "months_cny", &at("chosen/mix/months_cny"))?,
        }),
        _ => None,
    };
    let periods = serde_json::from_value(Value::String(v.provider.clone()))
        .ok()
        .and_then(gpuplan_core::plan::periods::of);
    let most = (MAX_EXPORT_HOURS / 730.0).ceil() as u64 + 60;
    let months = match optional_count(p, "chosen/months", most, at)? {
        Some(m) => Some(m),
        None => match optional_count(p, "chosen/mix/months", most, at)? {
            Some(m) => Some(m),
            None => periods.and_then(|ps| ps.covering_months(v.hours)),
        },
    };
    // One accepted period, or (a pure subscription past the longest) consecutive ones.
    let parts = |m: u64| match periods {
        None => Some(vec![(m, 1)]),
        Some(ps) if ps.spell(m).is_some() => Some(vec![(m, 1)]),
        Some(ps) if ps.months().last().is_some_and(|&l| m > l) => Some(ps.consecutive(m)),
        Some(_) => None,
    };
    match months.map(|m| (m, parts(m))) {
        Some((m, Some(parts))) => Ok(Some(Subscription {
            months: m,
            parts,
            rest,
        })),
        _ => Err(fail(
            field_msg("export-field-period", &at("chosen/months"))
                .arg("value", months.map_or("none".into(), |m| m.to_string()))
                .arg("provider", v.provider.clone())
                .arg(
                    "allowed",
                    periods.map_or(String::new(), |ps| {
                        ps.months()
                            .iter()
                            .map(u64::to_string)
                            .collect::<Vec<_>>()
                            .join(", ")
                    }),
                ),
        )),
    }
}

/// A money amount: finite and ≥ 0.
fn non_negative(v: &Value, path: &str, field: &str) -> Result<f64> {
    let x = get(v, path)
        .and_then(Value::as_f64)
        .ok_or_else(|| fail(field_msg("export-field-not-number", field)))?;
    if !(x.is_finite() && x >= 0.0) {
        return Err(fail(
            field_msg("export-field-number-range", field)
                .arg("value", gpuplan_core::error::show_value(x.to_string()))
                .arg("max", "∞"),
        ));
    }
    Ok(x)
}

/// A training plan's TP × PP must divide its GPUs (the planner only emits such layouts): a
/// hand-edited `tp = 3` on one GPU wrote `--tensor-model-parallel-size 3` with "DP 1" into
/// megatron_args.sh, a bundle that cannot start.
fn check_layout(v: &PlanView, field: &str) -> Result<()> {
    let Some(t) = &v.train else {
        return Ok(());
    };
    let mp = t.tp.saturating_mul(t.pp).saturating_mul(t.cp);
    if mp == 0 || !v.total_gpus().is_multiple_of(mp) {
        return Err(fail(
            field_msg("export-field-layout", field)
                .arg("tp", t.tp)
                .arg("pp", t.pp)
                .arg("cp", t.cp)
                .arg("gpus", v.total_gpus()),
        ));
    }
    Ok(())
}

fn check_envelope(doc: &Value) -> Result<()> {
    let kind = doc.get("kind").and_then(Value::as_str);
    if kind != Some("plan") {
        return Err(fail(
            Msg::new("export-not-plan").arg("kind", kind.unwrap_or("missing")),
        ));
    }
    match doc.get("schema_version").and_then(Value::as_u64) {
        Some(v) if SUPPORTED_SCHEMA_VERSIONS.contains(&v) => Ok(()),
        Some(v) => Err(fail(
            Msg::new("export-schema-unsupported")
                .arg("v", v.to_string())
                .arg("version", env!("CARGO_PKG_VERSION"))
                .arg("supported", format!("{SUPPORTED_SCHEMA_VERSIONS:?}")),
        )),
        None => Err(fail(field_msg("export-field-not-number", "schema_version"))),
    }
}

/// The checkpoint interval of the billing the plan chose (`chosen.billing`; a plan without a
/// price: on-demand's, the failures'), and which one it is.
fn checkpoint_interval(
    t: &Value,
    plan: &Value,
    f: &dyn Fn(&str) -> String,
) -> Result<(Option<f64>, Option<CheckpointBasis>)> {
    let spot = get(plan, "chosen/billing").and_then(Value::as_str) == Some("spot");
    let (path, basis) = if spot {
        ("spot/checkpoint_interval_s", CheckpointBasis::Spot)
    } else {
        ("failures/checkpoint_interval_s", CheckpointBasis::Failures)
    };
    match get(t, path) {
        Some(v) if !v.is_null() => Ok((Some(positive(t, path, 1e9, &f(path))?), Some(basis))),
        _ => Ok((None, None)),
    }
}

fn train_view(t: &Value, request: &Value, plan: &Value, at: &str) -> Result<TrainView> {
    let f = |path: &str| format!("{at}.{}", path.replace('/', "."));
    let s = |path: &str| ident(t, path, &f(path));
    let n = |path: &str, max: u64| count(t, path, max, &f(path));
    let b = |path: &str| flag(t, path, &f(path));
    let zero = count_from(t, "setup/parallel/zero", 0, 3, &f("setup/parallel/zero"))?;
    let storage = match t.get("storage") {
        Some(st) if !st.is_null() => Some(StorageView {
            id: ident(st, "class/id", &format!("{at}.storage.class.id"))?,
            name: text(st, "class/name", &format!("{at}.storage.class.name"))?,
            kind: ident(st, "class/kind", &format!("{at}.storage.class.kind"))?,
            shared: flag(st, "class/shared", &format!("{at}.storage.class.shared"))?,
            capacity_gib: positive(
                st,
                "capacity_gib",
                1e9,
                &format!("{at}.storage.capacity_gib"),
            )?,
        }),
        _ => None,
    };
    let (checkpoint_interval_s, checkpoint_basis) = checkpoint_interval(t, plan, &f)?;
    let megatron = get(t, "setup/framework").and_then(Value::as_str) == Some("megatron");
    Ok(TrainView {
        task: s("setup/task")?,
        precision: s("setup/precision")?,
        optimizer: s("setup/optimizer")?,
        framework: s("setup/framework")?,
        tp: n("setup/parallel/tp", 1024)?,
        pp: n("setup/parallel/pp", 1024)?,
        ep: n("setup/parallel/ep", 1024)?,
        sequence_parallel: b("setup/parallel/sequence_parallel")?,
        virtual_stages: optional_count(t, "setup/parallel/virtual_stages", 1024, &f)?.unwrap_or(1),
        cp: optional_count(t, "setup/parallel/cp", 1024, &f)?.unwrap_or(1),
        last_stage_layers: optional_count(t, "setup/parallel/last_stage_layers", 1 << 16, &f)?,
        first_stage_layers: optional_count(t, "setup/parallel/first_stage_layers", 1 << 16, &f)?,
        account_for_embedding_in_pipeline_split: optional_flag(
            t,
            "setup/parallel/account_for_embedding_in_pipeline_split",
            &f,
        )?,
        account_for_loss_in_pipeline_split: optional_flag(
            t,
            "setup/parallel/account_for_loss_in_pipeline_split",
            &f,
        )?,
        layers: optional_count(t, "memory/pipeline/layers/total", 1 << 16, &f)?,
        moe: optional_count(t, "memory/routed_experts", 1 << 20, &f)?.is_some(),
        overlap_grad_reduce: optional_flag(t, "setup/parallel/overlap_grad_reduce", &f)?,
        overlap_param_gather: optional_flag(t, "setup/parallel/overlap_param_gather", &f)?,
        tp_comm_overlap: optional_flag(t, "setup/parallel/tp_comm_overlap", &f)?,
        moe_a2a_overlap: optional_flag(t, "setup/parallel/moe_a2a_overlap", &f)?,
        moe_dispatcher: optional_ident(
            t,
            "setup/parallel/moe_dispatcher",
            &f("setup/parallel/moe_dispatcher"),
        )?
        .unwrap_or_else(|| "alltoall".into()),
        etp: expert_tp(t, &f)?,
        zero1_broadcast: optional_ident(
            t,
            "setup/parallel/zero1_broadcast",
            &f("setup/parallel/zero1_broadcast"),
        )?
        .unwrap_or_else(|| "all_gather".into()),
        grad_bucket_elements: optional_count(
            t,
            "setup/parallel/grad_bucket_elements",
            u64::MAX,
            &f,
        )?,
        grad_bucket_sync: optional_flag(t, "setup/parallel/grad_bucket_sync", &f)?,
        fsdp2: optional_count(t, "setup/parallel/fsdp_version", 2, &f)? == Some(2),
        fp8_params: optional_flag(t, "setup/fp8_params", &f)?,
        main_grads_bf16: optional_ident(t, "setup/main_grads", &f("setup/main_grads"))?
            .is_some_and(|g| g == "bf16"),
        optimizer_bf16: optional_ident(t, "setup/optimizer_dtype", &f("setup/optimizer_dtype"))?
            .is_some_and(|d| d == "bf16"),
        megatron_fused_loss: megatron
            && optional_flag_or(t, "setup/cross_entropy_loss_fusion", true, &f)?,
        megatron_fused_wgrad: optional_flag_or(t, "setup/gradient_accumulation_fusion", true, &f)?,
        zero,
        offload_optimizer: b("setup/parallel/offload_optimizer")?,
        offload_params: b("setup/parallel/offload_params")?,
        recompute: s("setup/recompute")?,
        attention: s("setup/attention")?,
        micro_batch: n("setup/micro_batch", 1 << 20)?,
        grad_accum: n("setup/grad_accum", 1 << 20)?,
        seq_len: n("setup/seq_len", 1 << 24)?,
        // Older or hand-made plans may lack the LoRA block: only LitGPT's config reads it.
        lora_rank: match get(t, "setup/lora/rank") {
            None | Some(Value::Null) => None,
            Some(_) => Some(n("setup/lora/rank", 1 << 16)?),
        },
        // The estimator's fused q/k/v marker (GPT-2 `c_attn`, Megatron's `linear_qkv`) is no module
        // name: plans now carry it as `fused_qkv`, and plans written before still list it among
        // the targets, where it is left out (the bundle's configs take the targets the user named).
        lora_targets: match get(t, "setup/lora/targets") {
            None | Some(Value::Null) => Vec::new(),
            Some(Value::Array(a)) => a
                .iter()
                .enumerate()
                .filter(|(_, v)| v.as_str() != Some(gpuplan_core::workload::FUSED_QKV))
                .map(|(i, v)| match v.as_str() {
                    Some(x) => Ok(safe(x, &f(&format!("setup/lora/targets/{i}")))?.to_string()),
                    None => Err(fail(field_msg(
                        "export-field-not-string",
                        &f(&format!("setup/lora/targets/{i}")),
                    ))),
                })
                .collect::<Result<Vec<_>>>()?,
            _ => {
                return Err(fail(field_msg(
                    "export-field-not-string",
                    &f("setup/lora/targets"),
                )))
            }
        },
        lora_base: optional_ident(t, "setup/lora/base", &f("setup/lora/base"))?,
        lora_dropout: match get(t, "setup/lora/dropout") {
            None | Some(Value::Null) => None,
            Some(_) => Some(probability(
                t,
                "setup/lora/dropout",
                &f("setup/lora/dropout"),
            )?),
        },
        tokens: match get(t, "setup/tokens") {
            None | Some(Value::Null) => None,
            Some(_) => Some(positive(t, "setup/tokens", 1e16, &f("setup/tokens"))?),
        },
        storage,
        interruptible: flag(
            request,
            "constraints/interruptible",
            "request.constraints.interruptible",
        )?,
        checkpoint_interval_s,
        checkpoint_basis,
        step_s: positive(t, "step/step", 1e9, &f("step/step"))?,
    })
}

/// The expert tensor-parallel size the plan assumed: the rule of gpuplan-core's memory and step
/// time (`WeightSplit::training`: Megatron-Core below ZeRO-3 without DeepSpeed splits each expert
/// over ETP = TP, every other stack keeps whole experts), on the plan's own keys.
fn expert_tp(t: &Value, f: &dyn Fn(&str) -> String) -> Result<u64> {
    use gpuplan_core::layout::{ExpertTp, WeightSplit};
    let mut p = gpuplan_core::workload::Parallelism {
        tp: count(t, "setup/parallel/tp", 1024, &f("setup/parallel/tp"))?,
        ep: count(t, "setup/parallel/ep", 1024, &f("setup/parallel/ep"))?,
        ..Default::default()
    };
    p.etp = optional_count(t, "setup/parallel/etp", 1024, f)?.and_then(std::num::NonZeroU64::new);
    let zero = count_from(t, "setup/parallel/zero", 0, 3, &f("setup/parallel/zero"))?;
    let megatron_core = get(t, "setup/framework").and_then(Value::as_str) == Some("megatron")
        && !optional_flag(t, "setup/deepspeed", f)?
        && zero < 3;
    let rule = if megatron_core {
        ExpertTp::Megatron
    } else {
        ExpertTp::Whole
    };
    Ok(WeightSplit::new(&p, rule).etp)
}

/// Whether the plan's chip lacks bf16 (its `gpu.dtypes` list names no `bf16`); a plan without
/// the list (hand-made, older) is taken to have it, as every chip since Ampere does.
fn half_only(p: &Value) -> bool {
    get(p, "gpu/dtypes")
        .and_then(Value::as_array)
        .is_some_and(|d| !d.iter().any(|x| x.as_str() == Some("bf16")))
}

/// Whether a plan's CUDA chip is below compute capability `min` (none: no floor); a plan
/// without the figure is taken to meet it.
fn cuda_below(p: &Value, min: Option<u32>) -> bool {
    let cuda = get(p, "gpu/stack").and_then(Value::as_str) == Some("cuda");
    let cc = get(p, "gpu/compute_capability").and_then(Value::as_u64);
    cuda && cc.zip(min).is_some_and(|(cc, min)| cc < u64::from(min))
}

/// The compute-capability floors the serving scripts read, each from its own rule: AWQ's load
/// floor and SGLang's start floor (7.5 both today, two facts).
#[derive(Clone, Copy, Debug, PartialEq)]
pub(crate) struct CcFloors {
    pub awq: Option<u32>,
    pub sglang: Option<u32>,
}

impl CcFloors {
    pub(crate) fn today() -> CcFloors {
        CcFloors {
            awq: Some(gpuplan_core::infer::AWQ_MIN_CC),
            sglang: gpuplan_core::infer::engine_min_cc(gpuplan_core::workload::Engine::Sglang),
        }
    }
}

/// The chip facts the serving scripts read: [`half_only`], below AWQ's floor, below SGLang's,
/// an Ascend NPU.
#[derive(Clone, Copy, Debug, PartialEq)]
pub(crate) struct ChipFlags {
    pub half_only: bool,
    pub below_awq_cc: bool,
    pub below_sglang_cc: bool,
    pub ascend: bool,
}

pub(crate) fn chip_flags(p: &Value, floors: CcFloors) -> ChipFlags {
    ChipFlags {
        half_only: half_only(p),
        below_awq_cc: cuda_below(p, floors.awq),
        below_sglang_cc: cuda_below(p, floors.sglang),
        ascend: get(p, "gpu/vendor").and_then(Value::as_str) == Some("huawei"),
    }
}

fn serve_view(v: &Value, request: &Value, chip: ChipFlags, at: &str) -> Result<ServeView> {
    let f = |path: &str| format!("{at}.{}", path.replace('/', "."));
    let n = |path: &str, max: u64| count(v, path, max, &f(path));
    let job = |path: &str| format!("request.job.{path}");
    let util = positive(
        request,
        "job/gpu_memory_utilization",
        1.0,
        &job("gpu_memory_utilization"),
    )?;
    Ok(ServeView {
        weights: ident(v, "weights/format", &f("weights/format"))?,
        tp: n("tp", 1024)?,
        replicas: n("replicas", 1 << 20)?,
        replicas_for_rate: n("replicas_for_rate", 1 << 20)?,
        min_replicas: count(request, "job/min_replicas", 1 << 20, &job("min_replicas"))?,
        batch_per_replica: n("batch_per_replica", 1 << 24)?,
        rps_per_replica: positive(
            v,
            "requests_per_second_per_replica",
            1e9,
            &f("requests_per_second_per_replica"),
        )?,
        max_model_len: n("memory/max_model_len", 1 << 24)?,
        gpu_memory_utilization: util,
        kv_dtype: ident(request, "job/kv_dtype", &job("kv_dtype"))?,
        running_at_peak: running_at_peak(v, request),
        half_only: chip.half_only,
        below_awq_cc: chip.below_awq_cc,
        below_sglang_cc: chip.below_sglang_cc,
        ascend: chip.ascend,
    })
}

/// Little's law on the plan's loaded figures: rate × (the first-token service + output tokens ×
/// the loaded time per token), the requests in slots per replica at the peak. `None` when any
/// figure is missing or not a finite non-negative number (an old or hand-made plan).
fn running_at_peak(v: &Value, request: &Value) -> Option<f64> {
    let x = |p: &str| {
        get(v, p)
            .and_then(Value::as_f64)
            .filter(|x| x.is_finite() && *x >= 0.0)
    };
    let out = get(request, "job/output_tokens").and_then(Value::as_f64)?;
    let service = x("load/ttft")? - x("load/ttft_slot_wait")? - x("load/ttft_queue")?;
    let n = x("load/rate_rps")? * (service.max(0.0) + out * x("load/time_per_token")?);
    n.is_finite().then_some(n)
}

/// The price's region, else the first one asked; a price for no stated region ("unspecified",
/// Tencent's monthly rows) is no region: the scripts then require one instead of passing a fake.
fn region(p: &Value, request: &Value) -> Result<Option<String>> {
    if let Some(r) = optional_ident(p, "chosen/price/region", "chosen.price.region")? {
        if r != "unspecified" {
            return Ok(Some(r));
        }
    }
    match request
        .pointer("/constraints/regions/0")
        .and_then(Value::as_str)
    {
        Some(r) => Ok(Some(safe(r, "request.constraints.regions[0]")?.to_string())),
        None => Ok(None),
    }
}

fn get<'a>(v: &'a Value, path: &str) -> Option<&'a Value> {
    v.pointer(&format!("/{path}"))
}

/// Characters allowed in identifiers that reach scripts and manifests unquoted.
fn safe<'a>(s: &'a str, field: &str) -> Result<&'a str> {
    let ok = !s.is_empty()
        && s.len() <= 128
        && s.chars()
            .all(|c| c.is_ascii_alphanumeric() || matches!(c, '.' | '_' | '-' | '/'));
    if !ok {
        return Err(fail(
            field_msg("export-field-not-ident", field).arg("value", format!("{s:?}")),
        ));
    }
    Ok(s)
}

fn ident(v: &Value, path: &str, field: &str) -> Result<String> {
    let s = get(v, path)
        .and_then(Value::as_str)
        .ok_or_else(|| fail(field_msg("export-field-not-string", field)))?;
    Ok(safe(s, field)?.to_string())
}

fn optional_ident(v: &Value, path: &str, field: &str) -> Result<Option<String>> {
    match get(v, path) {
        None | Some(Value::Null) => Ok(None),
        Some(Value::String(s)) => Ok(Some(safe(s, field)?.to_string())),
        Some(_) => Err(fail(field_msg("export-field-not-string", field))),
    }
}

/// Free text (a display name) for comments: printable, no control characters, no quotes.
fn text(v: &Value, path: &str, field: &str) -> Result<String> {
    let s = get(v, path)
        .and_then(Value::as_str)
        .ok_or_else(|| fail(field_msg("export-field-not-string", field)))?;
    if s.len() > 200
        || s.chars()
            .any(|c| c.is_control() || matches!(c, '"' | '\'' | '`' | '$' | '\\'))
    {
        return Err(fail(field_msg("export-field-unsafe-text", field)));
    }
    Ok(s.to_string())
}

fn count(v: &Value, path: &str, max: u64, field: &str) -> Result<u64> {
    count_from(v, path, 1, max, field)
}

fn count_from(v: &Value, path: &str, min: u64, max: u64, field: &str) -> Result<u64> {
    let n = get(v, path)
        .and_then(Value::as_u64)
        .ok_or_else(|| fail(field_msg("export-field-not-count", field)))?;
    if n < min || n > max {
        return Err(fail(
            field_msg("export-field-count-range", field)
                .arg("value", n.to_string())
                .arg("min", min.to_string())
                .arg("max", max.to_string()),
        ));
    }
    Ok(n)
}

/// A count that older or hand-made plans may leave out (absent or null: `None`).
fn optional_count(
    v: &Value,
    path: &str,
    max: u64,
    field: &dyn Fn(&str) -> String,
) -> Result<Option<u64>> {
    match get(v, path) {
        Some(x) if !x.is_null() => count(v, path, max, &field(path)).map(Some),
        _ => Ok(None),
    }
}

/// A flag that older or hand-made plans may leave out (absent or null: off).
fn optional_flag(v: &Value, path: &str, field: &dyn Fn(&str) -> String) -> Result<bool> {
    match get(v, path) {
        Some(x) if !x.is_null() => flag(v, path, &field(path)),
        _ => Ok(false),
    }
}

/// [`optional_flag`] with the default an absent key stands for.
fn optional_flag_or(
    v: &Value,
    path: &str,
    default: bool,
    field: &dyn Fn(&str) -> String,
) -> Result<bool> {
    match get(v, path) {
        Some(x) if !x.is_null() => flag(v, path, &field(path)),
        _ => Ok(default),
    }
}

fn flag(v: &Value, path: &str, field: &str) -> Result<bool> {
    get(v, path)
        .and_then(Value::as_bool)
        .ok_or_else(|| fail(field_msg("export-field-not-bool", field)))
}

fn positive(v: &Value, path: &str, max: f64, field: &str) -> Result<f64> {
    let x = get(v, path)
        .and_then(Value::as_f64)
        .ok_or_else(|| fail(field_msg("export-field-not-number", field)))?;
    if !(x.is_finite() && x > 0.0 && x <= max) {
        return Err(fail(
            field_msg("export-field-number-range", field)
                .arg("value", gpuplan_core::error::show_value(x.to_string()))
                .arg("max", bound_text(max)),
        ));
    }
    Ok(x)
}

/// An upper bound for [`positive`]'s message: `∞` for `f64::MAX` (a plan's hours printed as 309
/// digits, audit r13 #7), from 10⁶ in exponent form (`1e9`).
fn bound_text(max: f64) -> String {
    if max >= f64::MAX {
        "∞".into()
    } else if max >= 1e6 {
        format!("{max:e}")
    } else {
        max.to_string()
    }
}

/// A probability in [0, 1) (`max` shown in the message as 1).
fn probability(v: &Value, path: &str, field: &str) -> Result<f64> {
    let x = get(v, path)
        .and_then(Value::as_f64)
        .ok_or_else(|| fail(field_msg("export-field-not-number", field)))?;
    if !(x.is_finite() && (0.0..1.0).contains(&x)) {
        return Err(fail(
            field_msg("export-field-number-range", field)
                .arg("value", gpuplan_core::error::show_value(x.to_string()))
                .arg("max", "1"),
        ));
    }
    Ok(x)
}

/// The longest plan the export writes, hours (≈ 1,141 years). Not a provider's limit: a plan
/// past it is a planning figure, not a deployment, and is refused by its length rather than
/// written into a create command.
pub const MAX_EXPORT_HOURS: f64 = 1e7;

/// The plan's wall-clock hours: finite, > 0 and at most [`MAX_EXPORT_HOURS`], the refusal
/// naming the plan's length.
fn hours(p: &Value, field: &str) -> Result<f64> {
    let h = positive(p, "hours", f64::MAX, field)?;
    if h > MAX_EXPORT_HOURS {
        return Err(fail(
            field_msg("export-plan-too-long", field)
                .arg("hours", format!("{h:.0}"))
                .arg("years", format!("{:.1}", h / 8760.0))
                .arg("max", format!("{MAX_EXPORT_HOURS:.0}"))
                .arg("max_years", format!("{:.0}", MAX_EXPORT_HOURS / 8760.0)),
        ));
    }
    Ok(h)
}
