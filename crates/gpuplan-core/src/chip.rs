//! What a chip runs and how efficiently: the precision and attention kernels a training job can
//! use on it (`dtypes` / `flash_attention` in data/gpus.toml, from the vendors' architecture
//! whitepapers), and the achievable share of its peak by chip generation, card class (SXM vs
//! PCIe, power limit), workload type (transformer, CNN, diffusion UNet) and task (PEFT).
//! Every factor is a named [`Tunables`] field with its source (docs/methodology.md).

use crate::constants::Tunables;
use crate::error::CoreError;
use crate::hardware::{ComputeDtype, GpuSpec};
use crate::model::{Architecture, ModelSpec};
use crate::workload::{AttentionImpl, Precision, TrainingSetup};

/// The dtype a training precision computes its GEMMs in (`None`: fp32/tf32, every chip).
fn compute_dtype(p: Precision) -> Option<ComputeDtype> {
    match p {
        Precision::AmpBf16 | Precision::PureBf16 => Some(ComputeDtype::Bf16),
        Precision::AmpFp16 => Some(ComputeDtype::Fp16),
        Precision::Fp8 => Some(ComputeDtype::Fp8),
        Precision::Fp32 => None,
    }
}

/// Whether the chip runs the setup's precision and attention kernel; the error names the field.
pub fn check_support(m: &ModelSpec, s: &TrainingSetup, g: &GpuSpec) -> Result<(), CoreError> {
    if let Some(d) = compute_dtype(s.precision).filter(|d| !g.supports(*d)) {
        let alt = if g.supports(ComputeDtype::Bf16) {
            "amp_bf16"
        } else if g.supports(ComputeDtype::Fp16) {
            "amp_fp16"
        } else {
            "fp32"
        };
        // The source's first clause names the document (e.g. "NVIDIA Turing GPU Architecture
        // whitepaper (2018)"); the rest stays in data/gpus.toml.
        let why = g
            .capability_source
            .as_deref()
            .and_then(|x| x.split(':').next())
            .unwrap_or("no sourced peak");
        return Err(CoreError::invalid_msg(
            "precision",
            // The spelling the user types (`amp_bf16`), not the Rust name (`AmpBf16`).
            serde_json::to_value(s.precision)
                .ok()
                .and_then(|v| v.as_str().map(str::to_string))
                .unwrap_or_else(|| format!("{:?}", s.precision)),
            crate::i18n::Msg::new("fix-chip-lacks-precision")
                .arg("gpu", crate::i18n::names::gpu_arg(&g.name))
                .arg("dtype", d.name())
                .arg("source", why)
                .arg("alt", alt),
        ));
    }
    if m.transformer().is_some() && s.parallel.cp > 1 && !te_context_parallel_runs(s, g) {
        return Err(CoreError::invalid_msg(
            "parallel.cp",
            s.parallel.cp,
            crate::i18n::Msg::new("fix-cp-te-chip")
                .arg("gpu", crate::i18n::names::gpu_arg(&g.name)),
        ));
    }
    if m.transformer().is_some() && s.attention == AttentionImpl::Flash && !g.has_flash_attention()
    {
        return Err(CoreError::invalid_msg(
            "attention",
            "flash",
            crate::i18n::Msg::new("fix-chip-lacks-flash")
                .arg("gpu", crate::i18n::names::gpu_arg(&g.name)),
        ));
    }
    Ok(())
}

/// Whether Megatron's context parallelism runs on `g`: Megatron-Core's CP is Transformer
/// Engine's `DotProductAttention`, whose backend filter turns off FlashAttention and
/// FusedAttention (cuDNN) below compute capability 8.0 ("Disabling FusedAttention as it
/// requires compute capability sm80+") and UnfusedDotProductAttention under CP ("Disabling
/// UnfusedDotProductAttention as it does not support context parallelism";
/// transformer_engine/pytorch/attention/dot_product_attention/utils.py `get_attention_backend`),
/// so a V100 or T4 has no attention backend for it (audit r18 #6). torch's `context_parallel`
/// (every other stack, compute.rs `torch_ring`) also shards the memory-efficient SDPA op
/// (`_scaled_dot_product_ring_efficient_attention`), which runs there. Chips off CUDA or of
/// unstated capability keep the earlier answer.
pub fn te_context_parallel_runs(s: &TrainingSetup, g: &GpuSpec) -> bool {
    s.framework != crate::workload::Framework::Megatron || te_fused_attention(g)
}

/// Whether Transformer Engine has a flash or fused (cuDNN) attention backend on `g`: CUDA
/// compute capability 8.0 or later ([`te_context_parallel_runs`]).
pub fn te_fused_attention(g: &GpuSpec) -> bool {
    g.stack != "cuda" || g.compute_capability.is_none_or(|cc| cc >= 80)
}

/// Which choices the user made explicitly (and so must not be switched).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Pinned {
    pub precision: bool,
    pub attention: bool,
}

/// The setup switched to what the chip runs, with one note per change: bf16 → fp16 AMP (loss
/// scaling) on chips without bf16, FlashAttention-2 → PyTorch SDPA memory-efficient attention on
/// chips without it. Pinned choices are left alone (the caller rejects the chip instead).
pub fn adapt(
    m: &ModelSpec,
    s: &TrainingSetup,
    g: &GpuSpec,
    pinned: Pinned,
) -> (TrainingSetup, Vec<crate::i18n::Text>) {
    let mut out = s.clone();
    let mut notes = Vec::new();
    let bf16 = matches!(s.precision, Precision::AmpBf16 | Precision::PureBf16);
    if !pinned.precision
        && bf16
        && !g.supports(ComputeDtype::Bf16)
        && g.supports(ComputeDtype::Fp16)
    {
        out.precision = Precision::AmpFp16;
        notes.push(
            crate::i18n::Msg::new("cav-no-bf16")
                .arg("gpu", crate::i18n::names::gpu_arg(&g.name))
                .into(),
        );
    }
    if !pinned.attention
        && m.transformer().is_some()
        && s.attention == AttentionImpl::Flash
        && !g.has_flash_attention()
    {
        out.attention = AttentionImpl::MemEfficient;
        notes.push(
            crate::i18n::Msg::new("cav-no-flash")
                .arg("gpu", crate::i18n::names::gpu_arg(&g.name))
                .into(),
        );
    }
    // Without a sourced memory bandwidth every bandwidth-bound term of a transformer's step is 0
    // (compute.rs ChipRates::memory is None): the step is a lower bound, and the plan says so.
    if m.transformer().is_some() && g.memory_bandwidth().is_none() {
        notes.push(
            crate::i18n::Msg::new("cav-no-memory-bandwidth")
                .arg("gpu", crate::i18n::names::gpu_arg(&g.name))
                .into(),
        );
    }
    (out, notes)
}

/// The kind of network, for its achievable efficiency.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum WorkloadKind {
    Transformer,
    /// Convolutional networks (ResNet): memory-bound BN/ReLU and small-channel convolutions.
    Cnn,
    /// Diffusion UNets: convolutions at high resolution, attention at low.
    DiffusionUnet,
}

impl WorkloadKind {
    pub fn of(m: &ModelSpec) -> WorkloadKind {
        match &m.architecture {
            Architecture::Transformer(_) => WorkloadKind::Transformer,
            Architecture::Opaque(o) if o.model_type.contains("unet") => WorkloadKind::DiffusionUnet,
            Architecture::Opaque(_) => WorkloadKind::Cnn,
        }
    }
}

/// Share of peak by chip generation for transformer GEMMs, with the constant's name.
fn generation_base(g: &GpuSpec, tun: &Tunables) -> (f64, &'static str) {
    let id = g.id.as_str();
    if ["h100", "h800", "h20", "h200"]
        .iter()
        .any(|p| id.starts_with(p))
    {
        (tun.train_efficiency_hopper, "train_efficiency_hopper")
    } else if ["a100", "a800", "a10", "a30", "a40"]
        .iter()
        .any(|p| id.starts_with(p))
    {
        (tun.train_efficiency_ampere, "train_efficiency_ampere")
    } else {
        (tun.train_efficiency_other, "train_efficiency_other")
    }
}

/// Card-class factor: power-limited cards (≤ `low_power_max_tdp_w`) and PCIe cards sustain lower
/// clocks under tensor load than the SXM/OAM parts the base efficiencies were fitted on.
fn card_factor(g: &GpuSpec, tun: &Tunables) -> (f64, &'static str) {
    let pcie = !g.intra_link.is_nvlink_class()
        && g.intra_link != crate::hardware::IntraLink::InfinityFabric;
    match g.tdp_w {
        Some(w) if w <= tun.low_power_max_tdp_w => {
            (tun.card_factor_low_power, "card_factor_low_power")
        }
        _ if pcie => (tun.card_factor_pcie, "card_factor_pcie"),
        _ => (1.0, ""),
    }
}

/// The card-class factor alone (1 for SXM/OAM parts).
pub fn card_factor_value(g: &GpuSpec, tun: &Tunables) -> f64 {
    card_factor(g, tun).0
}

/// Achievable share of peak for a training job, and the product of named constants it is.
pub fn train_efficiency(
    m: &ModelSpec,
    s: &TrainingSetup,
    g: &GpuSpec,
    tun: &Tunables,
) -> (f64, String) {
    let (eff, names, n) = efficiency_factors(m, s, g, tun);
    (eff, names[..n].join(" × "))
}

/// [`train_efficiency`]'s share alone, without joining the names (the planner's lean steps).
pub fn train_efficiency_value(
    m: &ModelSpec,
    s: &TrainingSetup,
    g: &GpuSpec,
    tun: &Tunables,
) -> f64 {
    efficiency_factors(m, s, g, tun).0
}

/// The share and the names of its factors (the first `n` of the array).
fn efficiency_factors(
    m: &ModelSpec,
    s: &TrainingSetup,
    g: &GpuSpec,
    tun: &Tunables,
) -> (f64, [&'static str; 4], usize) {
    let (base, base_name) = match WorkloadKind::of(m) {
        WorkloadKind::Transformer => generation_base(g, tun),
        WorkloadKind::Cnn => (tun.train_efficiency_cnn, "train_efficiency_cnn"),
        WorkloadKind::DiffusionUnet => (tun.train_efficiency_unet, "train_efficiency_unet"),
    };
    let mut eff = base;
    // At most four names, joined once (this runs for every configuration the planner times).
    let mut names: [&str; 4] = [base_name, "", "", ""];
    let mut n = 1;
    let (card, card_name) = card_factor(g, tun);
    if card < 1.0 || !card_name.is_empty() {
        eff *= card;
        names[n] = card_name;
        n += 1;
    }
    // Transformers time each LoRA adapter's GEMMs next to its frozen linear (compute.rs
    // `adapter_seconds`); models given by totals keep the flat factor.
    if s.task.is_peft() && WorkloadKind::of(m) != WorkloadKind::Transformer {
        eff *= tun.peft_efficiency_factor;
        names[n] = "peft_efficiency_factor";
        n += 1;
    }
    if s.precision == Precision::Fp8 && g.supports(ComputeDtype::Fp8) {
        let (ratio, name) = s.fp8_kernels.gemm_ratio(tun);
        eff *= ratio;
        names[n] = name;
        n += 1;
    }
    (eff.min(1.0), names, n)
}

/// What the throughput counts, in English and Chinese: tokens for transformers, samples (images)
/// for the CNN/UNet models given by totals, where the estimators' "token" is one sample.
pub fn work_unit(m: &ModelSpec) -> (&'static str, &'static str) {
    match WorkloadKind::of(m) {
        WorkloadKind::Transformer => ("tokens", "tokens"),
        WorkloadKind::Cnn | WorkloadKind::DiffusionUnet => ("samples", "样本"),
    }
}
