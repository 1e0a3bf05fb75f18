//! Advice rules: the seed articles' checklist made quantitative. Each rule has an id, a
//! severity, a condition evaluated on the computed plan, and text in English and Chinese. Where
//! the articles were wrong, the rule says what is true instead (docs/advice.md lists them all).

use super::{ChipFamily, Job, Plan, PlanRequest};
use crate::catalog::{Billing, InstanceLink, PriceKind, StorageKind};
use crate::i18n::{names, Lang, Msg, Text};
use serde::Serialize;

#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum Severity {
    Info,
    Warn,
    Critical,
}

/// One advice line of a plan. Its text is kept as the catalog message (id and arguments) and
/// rendered only when shown: a search advises hundreds of plans, a user reads a few.
/// Serialises as `{id, severity, en, zh}` (docs/json-schema.md), rendered then.
#[derive(Clone, Debug, PartialEq)]
pub struct Advice {
    pub id: &'static str,
    pub severity: Severity,
    text: AdviceText,
}

#[derive(Clone, Debug, PartialEq)]
enum AdviceText {
    /// A catalog message, rendered on demand.
    Msg(Msg),
    /// Text already rendered in both languages.
    Text(Text),
}

impl Advice {
    /// An advice from a catalog message (locales/*/advice.ftl), rendered when shown.
    pub fn new(id: &'static str, severity: Severity, m: Msg) -> Advice {
        Advice {
            id,
            severity,
            text: AdviceText::Msg(m),
        }
    }

    /// An advice whose text is already known in both languages.
    pub fn from_text(id: &'static str, severity: Severity, text: Text) -> Advice {
        Advice {
            id,
            severity,
            text: AdviceText::Text(text),
        }
    }

    /// The text in `lang`.
    pub fn text(&self, lang: Lang) -> std::borrow::Cow<'_, str> {
        match &self.text {
            AdviceText::Msg(m) => std::borrow::Cow::Owned(m.render(lang)),
            AdviceText::Text(t) => std::borrow::Cow::Borrowed(t.get(lang)),
        }
    }

    /// The English text.
    pub fn en(&self) -> std::borrow::Cow<'_, str> {
        self.text(Lang::En)
    }

    /// The Chinese text.
    pub fn zh(&self) -> std::borrow::Cow<'_, str> {
        self.text(Lang::Zh)
    }
}

impl Serialize for Advice {
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        use serde::ser::SerializeStruct;
        let mut st = s.serialize_struct("Advice", 4)?;
        st.serialize_field("id", self.id)?;
        st.serialize_field("severity", &self.severity)?;
        st.serialize_field("en", &*self.en())?;
        st.serialize_field("zh", &*self.zh())?;
        st.end()
    }
}

/// An advice from a catalog message (locales/*/advice.ftl).
fn a(id: &'static str, severity: Severity, m: Msg) -> Advice {
    Advice::new(id, severity, m)
}

fn f0(x: f64) -> String {
    format!("{x:.0}")
}
fn f1(x: f64) -> String {
    format!("{x:.1}")
}
fn f2(x: f64) -> String {
    format!("{x:.2}")
}
fn yes(b: bool) -> &'static str {
    if b {
        "yes"
    } else {
        "no"
    }
}

/// Every rule id with a one-line description (for docs and tests).
pub const RULES: &[(&str, &str)] = &[
    (
        "multi-node-without-rdma",
        "multi-node training over TCP: the communication share it costs",
    ),
    (
        "tp-over-pcie",
        "tensor parallelism across GPUs linked only by PCIe",
    ),
    (
        "litgpt-bf16-mixed",
        "LitGPT PEFT in bf16-mixed (its default): fp32 base and saved bf16 weight casts; bf16-true needs neither",
    ),
    (
        "zero3-over-slow-link",
        "ZeRO-3/FSDP gathers over PCIe or TCP",
    ),
    (
        "nvlink-needed",
        "the model needs TP or heavy DP and the GPUs lack NVLink",
    ),
    (
        "placement",
        "same zone / VPC / subnet and topology-aware placement for multi-node jobs",
    ),
    (
        "topology-check",
        "check the GPU topology with nvidia-smi topo -m (Ascend: npu-smi info -t topo)",
    ),
    (
        "storage-class",
        "storage class from the required read throughput and checkpoint writes",
    ),
    (
        "host-cpu-ratio",
        "vCPUs per GPU against the articles' 1:4 rule and the decode need",
    ),
    (
        "host-ram-ratio",
        "host RAM against 1.5–2× total GPU memory (and offload needs)",
    ),
    (
        "image-decode-cores",
        "host cores needed for image decode/augmentation",
    ),
    (
        "vendor-image",
        "vendor GPU/AI images with matching driver, CUDA and NCCL (Ascend: driver/firmware, CANN, torch_npu or MindSpore, HCCL)",
    ),
    (
        "ascend-migration",
        "Ascend needs CANN + torch_npu or MindSpore and a migration effort",
    ),
    (
        "big-card-small-inference",
        "training-class GPUs for small inference: cost per request vs T4/A10",
    ),
    (
        "consumer-gpu",
        "consumer GPUs' licence and compliance caveats",
    ),
    (
        "stock-fallbacks",
        "two or three fallback plans on other families or providers",
    ),
    (
        "first-hour",
        "what to watch in the first hour and what to change",
    ),
    ("auto-release", "release machines when the job ends"),
    (
        "filing-duty",
        "filing duty for public generative-AI services in China",
    ),
    (
        "spot-checkpoint",
        "spot only for interruptible jobs, with the checkpoint interval",
    ),
    (
        "subscription-break-even",
        "monthly subscription vs on-demand break-even",
    ),
    ("quantization", "quantization when it changes the answer"),
    (
        "memory-headroom",
        "little memory headroom left on the device",
    ),
    (
        "price-provenance",
        "where the price comes from (list / user / estimate) and its date",
    ),
    (
        "unverified-facts",
        "the plan rests on catalog facts marked likely or unverified",
    ),
    (
        "storage-tiering",
        "hot/cold split: the dataset on object storage with a smaller file-system cache, when cheaper",
    ),
    (
        "autoscaling",
        "serving replicas: load, peak headroom, availability floor, what to autoscale on",
    ),
    (
        "poor-plan-hints",
        "a communication-bound or low-MFU top plan: what would change it, with the estimated gain",
    ),
    (
        "region-undocumented",
        "--region asked but the type's regions are not documented: check availability there",
    ),
    (
        "price-other-region",
        "the price comes from another region than the one asked: a labelled estimate",
    ),
    (
        "access-restricted",
        "the family needs an invitation, application/whitelist, ticket or sales contact",
    ),
    (
        "stock-reported",
        "the provider's stock API (imported) reported the type low on stock; sold-out types are not planned",
    ),
];

fn pct(x: f64) -> String {
    format!("{:.0}%", x * 100.0)
}

/// The hot/cold storage split and what it saves per month.
fn tiering(t: &super::money::Tiered, s: &super::money::StorageChoice) -> Advice {
    let split = t.object_monthly_cny + t.cache_monthly_cny;
    let whole = s.monthly_cny.unwrap_or(split);
    a(
        "storage-tiering",
        Severity::Info,
        Msg::new("adv-storage-tiering")
            .arg("object_gib", f0(t.object_gib))
            .arg("object", names::storage_arg(&t.object_id, &t.object))
            .arg("object_cny", f0(t.object_monthly_cny))
            .arg("cache_gib", f0(t.cache_gib))
            .arg("cache", names::storage_arg(&t.cache_id, &t.cache))
            .arg("cache_cny", f0(t.cache_monthly_cny))
            .arg("split", f0(split))
            .arg("whole", f0(whole))
            .arg("whole_gib", f0(s.capacity_gib))
            .arg("class", names::storage_arg(&s.class.id, &s.class.name)),
    )
}

/// Replicas to run and how to scale them.
fn autoscaling(s: &super::ServeDetail, job: &super::ServeJob) -> Advice {
    let floor = s.replicas_for_rate.max(job.min_replicas.max(1));
    let single = job.min_replicas <= 1;
    a(
        "autoscaling",
        if single {
            Severity::Warn
        } else {
            Severity::Info
        },
        Msg::new("adv-autoscaling")
            .arg("needed", s.replicas_for_rate)
            .arg("rps", f2(s.requests_per_second_per_replica))
            .arg("replicas", s.replicas)
            .arg("peak", f2(job.peak_factor))
            .arg("min", job.min_replicas)
            .arg("single", yes(single))
            .arg("range", yes(s.replicas > floor))
            .arg("floor", floor),
    )
}

/// Training rules: communication, storage, host cores, spot, memory, first hour, release.
fn training(p: &Plan, req: &PlanRequest, t: &super::TrainDetail, out: &mut Vec<Advice>) {
    let i = &p.instance;
    let gpus_per_node = p.cluster.gpus_per_node;
    let ascend = ChipFamily::of(&p.gpu) == ChipFamily::Ascend;
    let nvlink = has_nvlink(i);
    let st = &t.step;
    let share = |x: f64| x / st.step.0;
    let dp_share = share(st.dp_comm_exposed.0);
    if p.nodes > 1 && !i.rdma.is_rdma() {
        let total = st.dp_comm_total.0 / st.step.0;
        out.push(a(
            "multi-node-without-rdma",
            if dp_share > 0.15 {
                Severity::Critical
            } else {
                Severity::Warn
            },
            Msg::new("adv-multi-node-without-rdma")
                .arg("nodes", p.nodes)
                .arg("bw", p.cluster.inter_bandwidth.to_string())
                .arg("comm", st.dp_comm_total.to_string())
                .arg("share", pct(total))
                .arg("exposed", st.dp_comm_exposed.to_string())
                .arg("exposed_share", pct(dp_share)),
        ));
    }
    if t.setup.parallel.tp > 1 && !nvlink {
        out.push(a(
            "tp-over-pcie",
            Severity::Warn,
            Msg::new("adv-tp-over-pcie")
                .arg("tp", t.setup.parallel.tp)
                .arg("share", pct(share(st.tp_comm.0))),
        ));
    }
    if t.setup.framework == crate::workload::Framework::LitGpt
        && t.setup.task.is_peft()
        && t.setup.autocast_on()
    {
        let bytes = |name: &str| {
            t.memory
                .items
                .iter()
                .filter(|i| i.name == name)
                .map(|i| i.bytes.0)
                .sum::<f64>()
        };
        let copies = bytes("autocast weight copies");
        let base = bytes("base weights (frozen)");
        if copies > 0.0 {
            out.push(a(
                "litgpt-bf16-mixed",
                Severity::Info,
                Msg::new("adv-litgpt-bf16-mixed")
                    .arg("copies", crate::units::Bytes(copies).to_string())
                    .arg(
                        "saved",
                        crate::units::Bytes(copies + base / 2.0).to_string(),
                    ),
            ));
        }
    }
    if t.setup.parallel.zero == 3
        && (!nvlink || (p.nodes > 1 && !i.rdma.is_rdma()))
        && dp_share > 0.05
    {
        out.push(a(
            "zero3-over-slow-link",
            Severity::Warn,
            Msg::new("adv-zero3-over-slow-link")
                .arg("link", st.dp_link.to_string())
                .arg("share", pct(dp_share)),
        ));
    }
    if !nvlink && gpus_per_node > 1 && t.setup.parallel.tp == 1 && dp_share > 0.2 {
        out.push(a(
            "nvlink-needed",
            Severity::Warn,
            Msg::new("adv-nvlink-needed")
                .arg("share", pct(dp_share))
                .arg("gpus", gpus_per_node),
        ));
    }
    if let Some(s) = &t.storage {
        out.push(a(
            "storage-class",
            Severity::Info,
            Msg::new("adv-storage-class")
                .arg("read", t.data.read_bandwidth.to_string())
                .arg("why", s.why.as_str())
                .arg("class", names::storage_arg(&s.class.id, &s.class.name))
                .arg("cap_gib", f0(s.capacity_gib))
                .arg("ckpt_gib", f1(t.data.checkpoint_size.gib()))
                .arg("write_s", f0(s.checkpoint_write_s))
                .arg("mbs", f0(s.throughput_mbs))
                .arg("object", yes(s.class.kind == StorageKind::Object)),
        ));
        if let Some(tier) = &s.tiered {
            out.push(tiering(tier, s));
        }
    }
    if let Some(cores) = t.data.cpu_cores_for_decode {
        let have = i.vcpu.map(|v| v as f64 * p.nodes as f64);
        // Short when the CPUs capped the plan (its rate is then exactly what they decode).
        let short = have.is_some_and(|h| h < cores) || t.step.bottleneck == "host-cpu";
        out.push(a(
            "image-decode-cores",
            if short {
                Severity::Critical
            } else {
                Severity::Info
            },
            Msg::new("adv-image-decode-cores")
                .arg("rate", f0(t.data.samples_per_second))
                .arg("cores", f0(cores.ceil()))
                .arg("per_core", req.tunables.image_decode_per_core)
                .arg(
                    "have",
                    match have {
                        Some(_) if short => "short",
                        Some(_) => "enough",
                        None => "unknown",
                    },
                )
                .arg("vcpus", f0(have.unwrap_or(0.0))),
        ));
    }
    if let Some(sp) = &t.spot {
        let m = if req.constraints.interruptible {
            Msg::new("adv-spot-fits")
                .arg("preemptions", f1(sp.expected_preemptions))
                .arg("rate", format!("{:.3}", req.constraints.preemption_rate))
                .arg("interval_min", f0(sp.checkpoint_interval_s / 60.0))
                .arg("write_s", f0(sp.checkpoint_write_s))
                .arg("overhead", format!("{:+.1}", sp.overhead_fraction * 100.0))
                .arg("cny", f0(sp.expected_cny))
        } else {
            Msg::new("adv-spot-not-interruptible").arg("cny", f0(sp.expected_cny))
        };
        out.push(a("spot-checkpoint", Severity::Info, m));
    }
    let need = t.memory.device_total.gib();
    let have = p.gpu.memory_gib.unwrap_or(0.0);
    if have > 0.0 && need / have > 0.92 {
        out.push(a(
            "memory-headroom",
            Severity::Warn,
            Msg::new("adv-memory-headroom")
                .arg("left", f1(have - need))
                .arg("have", f0(have)),
        ));
    }
    let mindspore = req.constraints.framework == super::SoftwareFramework::Mindspore;
    out.push(a(
        "first-hour",
        Severity::Info,
        Msg::new("adv-first-hour")
            .arg("rate", f0(t.step.tokens_per_second_per_gpu))
            .arg("unit", work_unit(req))
            .arg("mfu", pct(t.step.mfu))
            .arg("gib", f1(need))
            .arg("ascend", yes(ascend))
            .arg("framework", if mindspore { "mindspore" } else { "other" }),
    ));
    out.push(a(
        "auto-release",
        Severity::Info,
        Msg::new("adv-auto-release").arg("hours", f1(p.hours)),
    ));
}

/// The unit of work (tokens, images, samples) in both languages.
fn work_unit(req: &PlanRequest) -> crate::i18n::Arg {
    let (en, zh) = crate::chip::work_unit(&req.model);
    crate::i18n::Arg::PerLang {
        en: en.to_string(),
        zh: zh.to_string(),
    }
}

fn has_nvlink(i: &crate::catalog::Instance) -> bool {
    matches!(
        i.intra_link,
        Some(InstanceLink::Nvlink | InstanceLink::Nvswitch | InstanceLink::Hccs)
    )
}

/// Serving rules: replicas and autoscaling, the filing duty, one server per GPU.
fn serving(p: &Plan, req: &PlanRequest, s: &super::ServeDetail, out: &mut Vec<Advice>) {
    if let Job::Serve(job) = &req.job {
        out.push(autoscaling(s, job));
        if job.public_generative
            && req
                .model
                .transformer()
                .is_some_and(|t| t.structure != crate::model::Structure::EncoderOnly)
        {
            out.push(a(
                "filing-duty",
                Severity::Info,
                Msg::new("adv-filing-duty"),
            ));
        }
    }
    let gpus_per_node = p.cluster.gpus_per_node;
    if p.total_gpus > 0.0 && gpus_per_node > 1 && s.tp == 1 {
        out.push(a(
            "placement",
            Severity::Info,
            Msg::new("adv-placement-serve")
                .arg("replicas", s.replicas)
                .arg("gpus", gpus_per_node),
        ));
    }
}

/// Hardware rules: placement, topology, host CPU and RAM, the chip's software stack.
fn hardware(p: &Plan, req: &PlanRequest, out: &mut Vec<Advice>) {
    let i = &p.instance;
    let gpus_per_node = p.cluster.gpus_per_node;
    let ascend = ChipFamily::of(&p.gpu) == ChipFamily::Ascend;
    let nvlink = has_nvlink(i);
    if p.nodes > 1 && p.train.is_some() {
        out.push(a(
            "placement",
            Severity::Info,
            Msg::new("adv-placement-train").arg("ascend", yes(ascend)),
        ));
    }
    if gpus_per_node > 1 {
        let id = if ascend {
            "adv-topology-check-ascend"
        } else {
            "adv-topology-check-nvidia"
        };
        out.push(a(
            "topology-check",
            Severity::Info,
            Msg::new(id)
                .arg("id", i.id.as_str())
                .arg("nvlink", yes(nvlink)),
        ));
    }
    if let Some(v) = i.vcpu {
        let per = v as f64 / p.cluster.gpus_per_node as f64;
        if per < 4.0 {
            out.push(a(
                "host-cpu-ratio",
                Severity::Warn,
                Msg::new("adv-host-cpu-ratio").arg("per", f1(per)),
            ));
        }
    }
    if let (Some(ram), Some(gmem)) = (i.ram_gib, i.total_gpu_memory_gib()) {
        let offload = p
            .train
            .as_ref()
            .map(|t| t.memory.cpu_offload.gib() * p.cluster.gpus_per_node as f64)
            .unwrap_or(0.0);
        if ram < 1.5 * gmem || ram < offload * 1.2 {
            out.push(a(
                "host-ram-ratio",
                Severity::Warn,
                Msg::new("adv-host-ram-ratio")
                    .arg("ram", f0(ram))
                    .arg("gmem", f0(gmem))
                    .arg(
                        "offload",
                        if offload > 0.0 {
                            f0(offload)
                        } else {
                            "none".into()
                        },
                    )
                    .arg("train", yes(p.train.is_some())),
            ));
        }
    }
    software(p, req, out);
    if p.gpu.consumer {
        out.push(a(
            "consumer-gpu",
            Severity::Warn,
            Msg::new("adv-consumer-gpu"),
        ));
    }
}

/// The chip's software stack: Ascend migration and images, ROCm, CUDA images.
fn software(p: &Plan, req: &PlanRequest, out: &mut Vec<Advice>) {
    use super::SoftwareFramework as F;
    match ChipFamily::of(&p.gpu) {
        ChipFamily::Ascend => {
            let fw = match req.constraints.framework {
                F::Mindspore => "mindspore",
                F::Pytorch => "pytorch",
                _ => "other",
            };
            out.push(a(
                "ascend-migration",
                Severity::Warn,
                Msg::new("adv-ascend-migration").arg("framework", fw),
            ));
            let stack = if fw == "mindspore" {
                "MindSpore"
            } else {
                "torch_npu"
            };
            out.push(a(
                "vendor-image",
                Severity::Info,
                Msg::new("adv-vendor-image-ascend").arg("fw", stack),
            ));
        }
        ChipFamily::Amd => out.push(a(
            "vendor-image",
            Severity::Info,
            Msg::new("adv-vendor-image-amd"),
        )),
        ChipFamily::Nvidia => out.push(a(
            "vendor-image",
            Severity::Info,
            Msg::new("adv-vendor-image-nvidia"),
        )),
    }
}

/// Price rules: provenance, break-even, region, access and stock.
fn pricing(p: &Plan, req: &PlanRequest, out: &mut Vec<Advice>) {
    let i = &p.instance;
    if let Some(ch) = &p.chosen {
        out.push(a(
            "price-provenance",
            if ch.price.kind == PriceKind::Estimate {
                Severity::Warn
            } else {
                Severity::Info
            },
            Msg::new("adv-price-provenance")
                .arg("kind", serde_word(&ch.price.kind))
                .arg("billing", names::billing(ch.billing))
                .arg("cny", f2(ch.price.cny))
                .arg("region", ch.price.region.as_str())
                .arg("as_of", ch.price.as_of.as_str())
                .arg(
                    "method",
                    match &ch.price.method {
                        Some(m) => crate::i18n::Arg::PerLang {
                            en: m.clone(),
                            zh: ch.price.method_zh.clone().unwrap_or_else(|| m.clone()),
                        },
                        None => "none".into(),
                    },
                ),
        ));
        if let Some(m) = p.costs.iter().find(|c| c.billing == Billing::Monthly) {
            if let (Some(en), Some(zh)) = (&m.note, &m.note_zh) {
                out.push(a(
                    "subscription-break-even",
                    Severity::Info,
                    Msg::new("adv-subscription-break-even").arg(
                        "note",
                        crate::i18n::Arg::PerLang {
                            en: en.clone(),
                            zh: zh.clone(),
                        },
                    ),
                ));
            }
        }
    } else {
        out.push(a(
            "price-provenance",
            Severity::Warn,
            Msg::new("adv-price-unknown"),
        ));
    }
    let asked = &req.constraints.regions;
    if !asked.is_empty() && i.regions.is_empty() {
        out.push(a(
            "region-undocumented",
            Severity::Warn,
            Msg::new("adv-region-undocumented")
                .arg("id", i.id.as_str())
                .arg("regions", asked.join(" / ")),
        ));
    }
    if let Some(ch) = &p.chosen {
        if !asked.is_empty()
            && !asked
                .iter()
                .any(|r| super::money::same_region(r, &ch.price.region))
        {
            out.push(a(
                "price-other-region",
                Severity::Warn,
                Msg::new("adv-price-other-region")
                    .arg("from", ch.price.region.as_str())
                    .arg("regions", asked.join(" / "))
                    .arg("cny", f2(ch.price.cny))
                    .arg("as_of", ch.price.as_of.as_str()),
            ));
        }
    }
    access_and_stock(p, out);
}

fn serde_word<T: Serialize>(v: &T) -> String {
    serde_json::to_value(v)
        .ok()
        .and_then(|x| x.as_str().map(str::to_string))
        .unwrap_or_default()
}

fn access_and_stock(p: &Plan, out: &mut Vec<Advice>) {
    let i = &p.instance;
    if let Some(acc) = i.access {
        let note: crate::i18n::Arg = match i.access_note.as_deref() {
            Some(n) => n.into(),
            None => Msg::new("adv-access-note-default").into(),
        };
        out.push(a(
            "access-restricted",
            Severity::Warn,
            Msg::new("adv-access-restricted")
                .arg("id", i.id.as_str())
                .arg("family", i.family.as_str())
                .arg("access", names::access(acc))
                .arg("note", note),
        ));
    }
    if i.stock == Some(crate::catalog::Stock::Low) {
        let detail: crate::i18n::Arg = match i.notes.as_deref() {
            Some(n) => n.into(),
            None => Msg::new("adv-stock-no-detail").into(),
        };
        out.push(a(
            "stock-reported",
            Severity::Warn,
            Msg::new("adv-stock-reported")
                .arg("id", i.id.as_str())
                .arg("detail", detail),
        ));
    }
    if !matches!(i.confidence, crate::catalog::Confidence::Confirmed)
        || p.gpu.confidence != "confirmed"
    {
        out.push(a(
            "unverified-facts",
            Severity::Info,
            Msg::new("adv-unverified-facts")
                .arg("instance", names::confidence(i.confidence))
                .arg("chip", names::confidence_word(&p.gpu.confidence)),
        ));
    }
}

pub fn evaluate(p: &Plan, req: &PlanRequest) -> Vec<Advice> {
    let mut out = Vec::new();
    if let Some(t) = &p.train {
        training(p, req, t, &mut out);
    }
    if let Some(s) = &p.serve {
        serving(p, req, s, &mut out);
    }
    hardware(p, req, &mut out);
    pricing(p, req, &mut out);
    out.sort_by_key(|x| std::cmp::Reverse(x.severity));
    out
}

/// Stock fallbacks: for the top plan, the best plans on other families or providers; and for
/// serving on training-class GPUs, the cost per request of the best T4/A10-class plan.
pub fn add_fallbacks(plans: &mut [Plan]) {
    if plans.is_empty() {
        return;
    }
    stock_fallbacks(plans);
    quantization(plans);
    big_card_small_inference(plans);
}

fn stock_fallbacks(plans: &mut [Plan]) {
    let top_family = plans[0].instance.family.clone();
    let top_provider = plans[0].instance.provider;
    let mut seen = vec![top_family];
    let mut picks = Vec::new();
    for p in plans.iter().skip(1) {
        if seen.contains(&p.instance.family) {
            continue;
        }
        seen.push(p.instance.family.clone());
        picks.push(
            Msg::new("adv-fallback")
                .arg("nodes", p.nodes)
                .arg("id", p.instance.id.as_str())
                .arg("provider", names::provider(p.instance.provider))
                .arg("other", yes(p.instance.provider != top_provider))
                .arg("hours", hours_arg(p.hours))
                .arg(
                    "cost",
                    p.chosen
                        .as_ref()
                        .map(|c| format!("¥{:.0}", c.cny))
                        .unwrap_or_else(|| "none".into()),
                ),
        );
        if picks.len() == 3 {
            break;
        }
    }
    if picks.is_empty() {
        return;
    }
    let list = |l: Lang| {
        picks
            .iter()
            .map(|m| m.render(l))
            .collect::<Vec<_>>()
            .join(&crate::i18n::text(l, "adv-fallback-sep"))
    };
    let m = Msg::new("adv-stock-fallbacks")
        .arg("id", plans[0].instance.id.as_str())
        .arg(
            "list",
            crate::i18n::Arg::PerLang {
                en: list(Lang::En),
                zh: list(Lang::Zh),
            },
        );
    plans[0]
        .advice
        .push(a("stock-fallbacks", Severity::Info, m));
}

/// Hours as shown in tables (`80.1 h` / `80.1 小时`).
fn hours_arg(h: f64) -> Msg {
    Msg::new("unit-hours").arg("h", f1(h))
}

/// Quantization, when it changes the answer: compare the best bf16 plan with the top plan.
fn quantization(plans: &mut [Plan]) {
    let Some(top) = plans[0].serve.as_ref() else {
        return;
    };
    let cost = |p: &Plan| p.chosen.as_ref().map(|c| c.cny);
    let is16 = |w: crate::workload::WeightFormat| {
        matches!(
            w,
            crate::workload::WeightFormat::Bf16 | crate::workload::WeightFormat::Fp16
        )
    };
    // A checkpoint's own format (DeepSeek-V3/R1 in FP8) is not a quantization of the model.
    let unq = |s: &super::ServeDetail| is16(s.weights) || s.weights_native;
    let best16 = plans.iter().find(|p| p.serve.as_ref().is_some_and(unq));
    let bestq = plans
        .iter()
        .find(|p| p.serve.as_ref().is_some_and(|s| !unq(s)));
    let top_w = top.weights;
    // "bf16", or the checkpoint's own format ("fp8 (native)").
    let base = |p: &Plan| match p.serve.as_ref() {
        Some(s) if s.weights_native => {
            Msg::new("adv-weights-native").arg("weights", s.weights.name())
        }
        Some(s) => Msg::raw(&s.weights.name()),
        None => Msg::raw(""),
    };
    let msg = match (unq(top), best16, bestq) {
        (false, Some(b), _) => match (cost(&plans[0]), cost(b)) {
            (Some(x), Some(y)) => Some((
                Severity::Info,
                Msg::new("adv-quantization-changes")
                    .arg("weights", top_w.name())
                    .arg("base", base(b))
                    .arg("cny", f0(x))
                    .arg("nodes", b.nodes)
                    .arg("id", b.instance.id.as_str())
                    .arg("other", f0(y))
                    .arg("ratio", f1(y / x)),
            )),
            _ => None,
        },
        (false, None, _) => Some((
            Severity::Warn,
            Msg::new("adv-quantization-only").arg("weights", top_w.name()),
        )),
        (true, _, Some(q)) => match (cost(&plans[0]), cost(q)) {
            (Some(x), Some(y)) if y < 0.8 * x => {
                let w = q
                    .serve
                    .as_ref()
                    .map(|s| s.weights.name())
                    .unwrap_or_default();
                Some((
                    Severity::Info,
                    Msg::new("adv-quantization-would-cut")
                        .arg("weights", w)
                        .arg("other", f0(y))
                        .arg("nodes", q.nodes)
                        .arg("id", q.instance.id.as_str())
                        .arg("pct", f0((1.0 - y / x) * 100.0)),
                ))
            }
            _ => None,
        },
        _ => None,
    };
    if let Some((sev, m)) = msg {
        plans[0].advice.push(a("quantization", sev, m));
    }
}

/// Big training cards for small inference.
fn big_card_small_inference(plans: &mut [Plan]) {
    let small = |g: &str| ["t4", "a10", "l4", "l20", "a30"].contains(&g);
    let big = |g: &str| g.starts_with("a100") || g.starts_with("a800") || g.starts_with("h");
    let small_model = plans[0]
        .serve
        .as_ref()
        .is_some_and(|s| s.memory.weights.gib() * (s.tp as f64) < 40.0);
    if !(big(&plans[0].gpu.id) && small_model) {
        return;
    }
    let Some(alt) = plans.iter().find(|p| small(&p.gpu.id) && p.serve.is_some()) else {
        return;
    };
    let (top, other) = (
        plans[0].serve.as_ref().and_then(|s| s.cost_per_1k_requests),
        alt.serve.as_ref().and_then(|s| s.cost_per_1k_requests),
    );
    if let (Some(t), Some(o)) = (top, other) {
        let m = Msg::new("adv-big-card-small-inference")
            .arg("gpu", plans[0].gpu.name.as_str())
            .arg("cost", format!("{t:.3}"))
            .arg("nodes", alt.nodes)
            .arg("id", alt.instance.id.as_str())
            .arg("other", format!("{o:.3}"));
        let sev = if o < t {
            Severity::Warn
        } else {
            Severity::Info
        };
        plans[0].advice.push(a("big-card-small-inference", sev, m));
    }
}

#[cfg(test)]
mod tests {
    use super::{Advice, Severity, RULES};
    use crate::i18n::{Lang, Msg, Text};

    #[test]
    fn lazy_advice_renders_and_serialises_as_the_eager_text() {
        let m = Msg::new("adv-auto-release").arg("hours", "80.1");
        let eager = Text::from(m.clone());
        let lazy = Advice::new("auto-release", Severity::Info, m);
        assert_eq!(lazy.text(Lang::En), eager.en);
        assert_eq!(lazy.text(Lang::Zh), eager.zh);
        assert_ne!(eager.en, eager.zh, "both languages rendered");
        let json = serde_json::to_string(&lazy).unwrap();
        let q = |t: &str| serde_json::to_string(t).unwrap();
        let want = format!(
            r#"{{"id":"auto-release","severity":"info","en":{},"zh":{}}}"#,
            q(&eager.en),
            q(&eager.zh)
        );
        assert_eq!(json, want, "same fields, same order");
        let fixed = Advice::from_text("auto-release", Severity::Info, eager.clone());
        assert_eq!(serde_json::to_string(&fixed).unwrap(), want);
    }

    #[test]
    fn every_rule_is_documented() {
        let doc = include_str!("../../../../docs/advice.md");
        for (id, _) in RULES {
            assert!(
                doc.contains(&format!("`{id}`")),
                "docs/advice.md lacks rule {id}"
            );
        }
        let src = concat!(include_str!("advice.rs"), include_str!("hints.rs"));
        for (id, _) in RULES {
            // Each documented rule is emitted somewhere.
            assert!(
                src.matches(&format!("\"{id}\"")).count() >= 2,
                "rule {id} is listed but never emitted"
            );
        }
    }
}
