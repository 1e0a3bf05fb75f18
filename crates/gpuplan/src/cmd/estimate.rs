//! `gpuplan estimate`: one job on one hardware description.

use super::{apply_sets, apply_training_flags, parse_word, read_workload, resolve_model};
use crate::cli::{EstimateArgs, Format, SolveArg, TaskArg};
use crate::exit;
use crate::render::{self, gib};
use anyhow::{Context, Result};
use gpuplan_core::constants::Tunables;
use gpuplan_core::hardware::ClusterSpec;
use gpuplan_core::i18n::Msg;
use gpuplan_core::job::{
    estimate_inference, estimate_training, model_summary, HardwareInput, InferenceEstimate,
    JobKind, TrainingEstimate, WorkloadFile,
};
use gpuplan_core::model::ModelSpec;
use gpuplan_core::units::{format_count, Bandwidth, Seconds};
use gpuplan_core::workload::{InferenceSetup, TrainingSetup, WeightFormat};
use serde_json::json;

/// Everything resolved from file + flags.
pub struct Request {
    file: WorkloadFile,
    kind: JobKind,
    global_batch: Option<u64>,
    training: TrainingSetup,
    inference: InferenceSetup,
    hardware: HardwareInput,
    tunables: Tunables,
}

/// `note: …` on stderr in `lang`.
fn note_line(lang: gpuplan_core::i18n::Lang, text: &str) {
    eprintln!("{}{text}", gpuplan_core::i18n::text(lang, "note-prefix"));
}

fn parse_weights(s: &str) -> Result<WeightFormat> {
    let w = s.to_lowercase();
    Ok(match w.as_str() {
        "fp32" => WeightFormat::Fp32,
        // Read against the model's checkpoint once it is known ([`stored_weights`]).
        l if super::is_bnb_label(l) => WeightFormat::Bf16,
        other => labelled_or_bits(s, other)?,
    })
}

/// The words `plan` reads too ([`super::named_weights`]: `int4-g<N>` as `plan` prints it,
/// review r14 #3 and #6), else bits per weight (GGUF's 4.5).
fn labelled_or_bits(given: &str, w: &str) -> Result<WeightFormat> {
    if let Some(f) = super::named_weights(w) {
        return Ok(f);
    }
    match w.parse::<f64>() {
        Ok(bits) => Ok(WeightFormat::Bits {
            bits_per_weight: bits,
        }),
        Err(_) => Err(crate::render::fail(
            Msg::new("cli-err-weights-estimate")
                .arg("value", given)
                .arg("max", gpuplan_core::workload::MAX_QUANT_GROUP),
        )),
    }
}

/// `--weights bnb-4bit`/`bnb-4bit-dq`/`bnb-8bit` (labels `plan` prints) as the model's stored
/// bitsandbytes format ([`super::stored_bnb`]); any other value was set by [`parse_weights`].
fn stored_weights(a: &EstimateArgs, r: &mut Request, model: &ModelSpec) -> Result<()> {
    match a.weights.as_deref().map(str::to_lowercase) {
        Some(w) if super::is_bnb_label(&w) => {
            r.inference.weights = super::stored_bnb(&w, model)?;
            Ok(())
        }
        _ => Ok(()),
    }
}

/// Set `$dst` to the flag's value when the flag was given.
macro_rules! set {
    ($flag:expr => $dst:expr) => {
        if let Some(v) = $flag {
            $dst = v;
        }
    };
}

/// Set an optional `$dst` when the flag was given (keeping the file's value otherwise).
macro_rules! set_opt {
    ($flag:expr => $dst:expr) => {
        if $flag.is_some() {
            $dst = $flag;
        }
    };
}

fn resolve(a: &EstimateArgs, file: WorkloadFile) -> Result<Request> {
    let j = &a.job;
    let mut training = file.training.clone().unwrap_or_default();
    let mut inference = file.inference.clone().unwrap_or_default();
    let mut hardware = file.hardware.clone().unwrap_or_default();
    let mut tunables = file.tunables.clone().unwrap_or_default();
    let kind = job_kind(&file, j.task);
    apply_training_flags(&mut training, j)?;
    apply_hardware_flags(a, &mut hardware)?;
    apply_layout_flags(a, &mut training)?;
    apply_inference_flags(a, &mut inference)?;
    apply_sets(&mut tunables, &j.set)?;
    let global_batch = a.global_batch.or(file.global_batch);
    Ok(Request {
        file,
        kind,
        global_batch,
        training,
        inference,
        hardware,
        tunables,
    })
}

/// Training or inference: `--task`, else the file's `kind`, else inference when the file has
/// only an `[inference]` table.
fn job_kind(file: &WorkloadFile, task: Option<TaskArg>) -> JobKind {
    match task {
        Some(TaskArg::Inference) => JobKind::Inference,
        Some(_) => JobKind::Training,
        None => file
            .kind
            .unwrap_or(if file.inference.is_some() && file.training.is_none() {
                JobKind::Inference
            } else {
                JobKind::Training
            }),
    }
}

/// `--gpu`, `--gpus-per-node`, `--nodes`, `--inter-link`, `--inter-gbit`, `--host-vcpus`.
fn apply_hardware_flags(a: &EstimateArgs, hw: &mut HardwareInput) -> Result<()> {
    if let Some(g) = &a.gpu {
        hw.gpu = g.clone();
    }
    set!(a.gpus_per_node => hw.gpus_per_node);
    set!(a.nodes => hw.nodes);
    if let Some(l) = &a.inter_link {
        hw.inter_link = parse_word("inter-link", l)?;
    }
    set!(a.inter_gbit => hw.inter_gbit);
    set_opt!(a.host_vcpus => hw.host_vcpus);
    Ok(())
}

/// The training step's batch, parallel layout, overlap, compile, recompute and attention flags.
fn apply_layout_flags(a: &EstimateArgs, t: &mut TrainingSetup) -> Result<()> {
    set!(a.micro_batch => t.micro_batch);
    set!(a.grad_accum => t.grad_accum);
    let p = &mut t.parallel;
    set!(a.zero => p.zero);
    set!(a.tp => p.tp);
    set!(a.pp => p.pp);
    set!(a.ep => p.ep);
    p.sequence_parallel |= a.sequence_parallel;
    p.offload_optimizer |= a.offload_optimizer;
    p.offload_params |= a.offload_params;
    set!(a.cp => p.cp);
    set!(a.virtual_stages => p.virtual_stages);
    set_opt!(a.last_stage_layers => p.last_stage_layers);
    set_opt!(a.first_stage_layers => p.first_stage_layers);
    p.account_for_embedding_in_pipeline_split |= a.account_for_embedding_in_pipeline_split;
    p.account_for_loss_in_pipeline_split |= a.account_for_loss_in_pipeline_split;
    set_opt!(a.tp_comm_overlap => p.tp_comm_overlap);
    set_opt!(a.overlap_grad_reduce => p.overlap_grad_reduce);
    set_opt!(a.overlap_param_gather => p.overlap_param_gather);
    if let Some(v) = a.moe_a2a_overlap {
        p.moe_a2a_overlap = v;
    }
    if let Some(v) = &a.moe_dispatcher {
        p.moe_dispatcher = parse_word("moe-dispatcher", v)?;
    }
    p.grad_all_reduce |= a.grad_all_reduce;
    t.compiled |= a.compiled;
    if let Some(v) = &a.recompute {
        t.recompute = parse_word("recompute", v)?;
    }
    if let Some(v) = &a.attention {
        t.attention = parse_word("attention", v)?;
    }
    Ok(())
}

/// The serving flags: weights, KV type, TP, batch, tokens, engine and its memory knobs, images.
fn apply_inference_flags(a: &EstimateArgs, i: &mut InferenceSetup) -> Result<()> {
    let j = &a.job;
    if let Some(w) = &a.weights {
        i.weights = parse_weights(w)?;
    }
    if let Some(v) = &a.kv_dtype {
        i.kv_dtype = parse_word("kv-dtype", v)?;
    }
    set!(a.tp => i.tp);
    set!(a.batch => i.batch);
    set!(j.input_tokens => i.input_tokens);
    set!(j.output_tokens => i.output_tokens);
    set!(a.gpu_memory_utilization => i.gpu_memory_utilization);
    if let Some(e) = &j.engine {
        i.engine = parse_word("engine", e)?;
    }
    set_opt!(a.mem_fraction_static => i.mem_fraction_static);
    set_opt!(a.free_gpu_memory_fraction => i.free_gpu_memory_fraction);
    if a.engine_version.is_some() {
        i.engine_version.clone_from(&a.engine_version);
    }
    set_opt!(a.max_num_batched_tokens => i.max_num_batched_tokens);
    set_opt!(a.max_num_seqs => i.max_num_seqs);
    set!(a.images_per_request => i.images_per_request);
    if let Some(sz) = &a.image_size {
        i.image_size = parse_image_size(sz)?;
    }
    set_opt!(a.max_model_len => i.max_model_len);
    Ok(())
}

/// `--image-size WIDTHxHEIGHT` in pixels.
fn parse_image_size(sz: &str) -> Result<[u64; 2]> {
    let bad = || crate::render::fail(Msg::new("cli-err-image-size").arg("value", sz));
    let lower = sz.to_lowercase();
    let (w, h) = lower.split_once('x').ok_or_else(bad)?;
    Ok([
        w.trim().parse().map_err(|_| bad())?,
        h.trim().parse().map_err(|_| bad())?,
    ])
}

pub fn run(a: EstimateArgs, opts: &super::CatalogOpts) -> Result<u8> {
    let file = read_workload(&a.job)?;
    serve_table_warning(&file, a.job.task, opts.lang);
    let x = compute(&a, file, opts.lang, &|| super::load_catalog(opts))?;
    match a.format {
        Format::Json => {
            let (kind, body) = estimate_json(&x);
            outln!("{}", render::json(kind, &body)?)
        }
        f => {
            let look = look(opts, f);
            // Markdown lines are not bound to the terminal; text lines wider than it wrap.
            let w = if look.md { None } else { render::width() };
            match &x {
                Estimated::Training {
                    model,
                    r,
                    cluster,
                    e,
                } => {
                    out!(
                        "{}",
                        render::fit(&training_report(model, r, cluster, e, &look), w)
                    )
                }
                Estimated::Inference {
                    model,
                    r,
                    e,
                    cluster,
                } => {
                    let mut text = inference_report(&model.name, r, e, &look);
                    if let Some(m) = batch_over_capacity(r, cluster, e) {
                        text.push_str(&format!("{}\n", m.render(look.lang)));
                    }
                    if let Some(tp) = fitting_tp(model, r, cluster, e) {
                        let m = Msg::new("est-serve-fits-at-tp")
                            .arg("tp", tp)
                            .arg("gpus", cluster.nodes * cluster.gpus_per_node);
                        text.push_str(&format!("{}\n", m.render(look.lang)));
                    }
                    text.push_str(&fit_advice_lines(r, cluster, e, look.lang));
                    out!("{}", render::fit(&text, w))
                }
                Estimated::Solved {
                    model,
                    r,
                    cluster,
                    s,
                } => out!(
                    "{}",
                    render::fit(&solve_report(model, r, cluster, s, &look), w)
                ),
            }
        }
    }
    Ok(x.exit_code())
}

/// QLoRA under the `hugging_face` profile recomputes by default, as PEFT's
/// `prepare_model_for_kbit_training` does (`TrainingSetup::peft_kbit_recompute`), when neither
/// `--recompute` nor the file's `recompute` states it; a note says so (audit r22 #4).
fn qlora_recompute_default(a: &EstimateArgs, r: &mut Request, lang: gpuplan_core::i18n::Lang) {
    let stated = a.recompute.is_some() || r.file.pins.recompute;
    if stated || !r.training.peft_kbit_recompute() {
        return;
    }
    r.training.recompute = gpuplan_core::workload::Recompute::Full;
    note_line(lang, &Msg::new("cli-note-qlora-recompute").render(lang));
}

/// One estimate, with what it was computed from.
pub enum Estimated {
    Training {
        model: ModelSpec,
        r: Box<Request>,
        cluster: ClusterSpec,
        e: Box<TrainingEstimate>,
    },
    Inference {
        model: ModelSpec,
        r: Box<Request>,
        cluster: ClusterSpec,
        e: Box<InferenceEstimate>,
    },
    /// `--solve`: one serving question answered.
    Solved {
        model: ModelSpec,
        r: Box<Request>,
        cluster: ClusterSpec,
        s: Box<gpuplan_core::infer::Solved>,
    },
}

impl Estimated {
    /// Whether the job fits the device's memory.
    pub fn fits(&self) -> bool {
        match self {
            Estimated::Training { e, .. } => e.fits,
            Estimated::Inference { e, .. } => e.memory.fits,
            Estimated::Solved { s, .. } => s.batch > 0,
        }
    }
    /// README's exit codes: 0; 3 when the job does not fit the memory; 4 when it fits but no
    /// batch meets `--solve max-throughput`'s `--tpot` target (a constraint that cannot be met,
    /// as `plan`'s 4), not 3.
    pub fn exit_code(&self) -> u8 {
        match self {
            Estimated::Solved { s, .. } if s.batch == 0 && s.binding == "tpot_target" => {
                exit::UNMET
            }
            _ if self.fits() => 0,
            _ => exit::DOES_NOT_FIT,
        }
    }
}

/// A workload's `[serve]` table is `plan`'s: `estimate` estimates `[training]` or `[inference]`
/// and ignored `[serve]` without a word (audit r9 #23; `POST /api/v1/estimate` refuses it).
fn serve_table_warning(file: &WorkloadFile, task: Option<TaskArg>, lang: gpuplan_core::i18n::Lang) {
    if file.serve.is_none() {
        return;
    }
    let job = if job_kind(file, task) == JobKind::Inference {
        "inference"
    } else {
        "training"
    };
    let m = Msg::new("cli-warn-estimate-serve").arg("job", job);
    eprintln!(
        "{}{}",
        gpuplan_core::i18n::text(lang, "warning-prefix"),
        m.render(lang)
    );
}

/// The estimate of flags `a` over a workload already read (`gpuplan serve` passes the body of
/// `POST /api/v1/estimate`); `catalog` is called only when the hardware names a catalog row.
pub fn compute(
    a: &EstimateArgs,
    file: WorkloadFile,
    lang: gpuplan_core::i18n::Lang,
    catalog: &dyn Fn() -> Result<gpuplan_core::catalog::Catalog>,
) -> Result<Estimated> {
    let mut r = resolve(a, file)?;
    super::inputs::estimate_task_flags(a, r.kind == JobKind::Inference)?;
    let model = resolve_model(&a.job, &r.file)?;
    stored_weights(a, &mut r, &model)?;
    if r.kind == JobKind::Training {
        qlora_recompute_default(a, &mut r, lang);
        let explicit = a.job.seq_len.is_some()
            || r.training.seq_len != gpuplan_core::workload::DEFAULT_SEQ_LEN;
        if let Some(note) = gpuplan_core::workload::fit_seq_len(&mut r.training, &model, explicit)?
        {
            note_line(lang, &note.render(lang));
        }
        gpuplan_core::train::adopt_checkpoint_base(&mut r.training, &model);
    }
    // Whisper's note on training units (decoder tokens per sample) is not about serving.
    let serving = r.kind == JobKind::Inference;
    for w in &model.warnings {
        if !(serving && w.starts_with(gpuplan_core::model::hf::WHISPER_UNITS_PREFIX)) {
            crate::render::model_warning(w);
        }
    }
    // Serving: after the served format is settled (`adapt_inference`).
    let base = !serving && gpuplan_core::train::base_from_checkpoint(&model, &r.training);
    if let Some(m) = gpuplan_core::model::quant::skipped_linears_note(&model, base) {
        note_line(lang, &m.render(lang));
    }
    let note = gpuplan_core::train::dequantized_checkpoint(&model, &r.training);
    if let Some(m) = note.filter(|_| !serving) {
        note_line(lang, &m.render(lang));
    }
    // An image model has no KV cache nor tokens: `plan` serves it per image, the KV-cache
    // sizing here would refuse it after a vLLM note (audit r8 #17).
    if serving && model.transformer().is_none() {
        let unit = Msg::new(if is_diffusion(&model) {
            "est-unit-image-generated"
        } else {
            "est-unit-forward-pass"
        });
        return Err(crate::render::fail(
            Msg::new("cli-err-estimate-opaque-serving")
                .arg("model", model.name.as_str())
                .arg("unit", unit),
        ));
    }
    let cluster = match &a.instance {
        Some(id) => instance_cluster(id, &r, lang, catalog)?,
        None => hardware_cluster(&r, catalog)?,
    };
    if matches!(r.kind, JobKind::Training) && a.solve.is_some() {
        return Err(crate::render::fail(Msg::new("cli-err-solve-training")));
    }
    match r.kind {
        JobKind::Training => {
            let e = train_on(a, &model, &mut r, &cluster, lang)?;
            Ok(Estimated::Training {
                model,
                r: Box::new(r),
                cluster,
                e: Box::new(e),
            })
        }
        JobKind::Inference if a.solve.is_some() => {
            adapt_inference(a, &mut r, &model, &cluster, lang)?;
            let s = solve_question(a, &model, &r, &cluster)?;
            Ok(Estimated::Solved {
                model,
                r: Box::new(r),
                cluster,
                s: Box::new(s),
            })
        }
        JobKind::Inference => {
            adapt_inference(a, &mut r, &model, &cluster, lang)?;
            let e = serve_at_fitting_tp(a, &model, &mut r, &cluster, lang)?;
            mla_moe_small_batch_note(&model, &r, lang);
            Ok(Estimated::Inference {
                model,
                r: Box::new(r),
                cluster,
                e: Box::new(e),
            })
        }
    }
}

/// Whether `m` is given by totals with a denoising loop (SDXL): a request is one generated image.
fn is_diffusion(m: &ModelSpec) -> bool {
    matches!(&m.architecture, gpuplan_core::model::Architecture::Opaque(o) if o.denoising.is_some())
}

/// The cluster of `--instance ID` (with `--nodes`), from the catalog; the layout it assumed is
/// noted on stderr.
fn instance_cluster(
    id: &str,
    r: &Request,
    lang: gpuplan_core::i18n::Lang,
    catalog: &dyn Fn() -> Result<gpuplan_core::catalog::Catalog>,
) -> Result<ClusterSpec> {
    let cat = catalog()?;
    let inst = cat.find_instance(id)?;
    if !inst.gpu_is_mapped() || inst.vgpu {
        return Err(crate::render::fail(
            Msg::new("cli-err-instance-unmapped").arg("id", id),
        ));
    }
    let gpu = cat.gpu(&inst.gpu).with_context(|| {
        crate::render::Localized(
            gpuplan_core::i18n::Msg::new("cli-ctx-gpu-not-in-table")
                .arg("gpu", inst.gpu.as_str())
                .arg("id", id),
        )
    })?;
    let (mut c, assumed) = gpuplan_core::plan::instance_cluster(
        inst,
        &std::sync::Arc::new(gpu.clone()),
        r.hardware.nodes,
    )?;
    // `instance_cluster` holds the catalog vCPUs (as the planner uses them); a given count wins.
    if let Some(v) = r.hardware.host_vcpus {
        c.host_vcpus = Some(gpuplan_core::job::check_host_vcpus(v)?);
    }
    if let Some(note) = assumed {
        note_line(lang, note.get(lang));
    }
    Ok(c)
}

/// The cluster of `--gpu` and its layout: a built-in accelerator, else one from a user catalog
/// or `--catalog FILE`.
fn hardware_cluster(
    r: &Request,
    catalog: &dyn Fn() -> Result<gpuplan_core::catalog::Catalog>,
) -> Result<ClusterSpec> {
    let e = match r.hardware.cluster() {
        Ok(c) => return Ok(c),
        Err(e) => e,
    };
    let cat = catalog()?;
    match cat
        .gpus
        .iter()
        .find(|g| g.id.eq_ignore_ascii_case(&r.hardware.gpu))
    {
        Some(g) => Ok(r.hardware.cluster_on(g)?),
        None => Err(e.into()),
    }
}

/// The training estimate on `cluster`, after adapting the setup to the chip (notes on stderr)
/// and deriving gradient accumulation from `--global-batch`.
fn train_on(
    a: &EstimateArgs,
    model: &ModelSpec,
    r: &mut Request,
    cluster: &ClusterSpec,
    lang: gpuplan_core::i18n::Lang,
) -> Result<TrainingEstimate> {
    // Switch what the chip cannot run (bf16 on Turing/Volta, FlashAttention-2) unless the
    // flag chose it; a chosen one the chip lacks is an error naming the field.
    let pinned = gpuplan_core::chip::Pinned {
        precision: a.job.precision.is_some(),
        attention: a.attention.is_some(),
    };
    let (t, notes) = gpuplan_core::chip::adapt(model, &r.training, &cluster.gpu, pinned);
    for n in notes {
        note_line(lang, n.get(lang));
    }
    r.training = t;
    if let Some(n) =
        gpuplan_core::plan::train::litgpt_strategy_caveat(&r.training, cluster.total_gpus())
    {
        note_line(lang, gpuplan_core::i18n::Text::from(n).get(lang));
    }
    if let Some(n) = model.transformer().and_then(|t| {
        gpuplan_core::pipeline::megatron_vp_layout_note(
            t.total_layers(),
            &r.training.parallel,
            r.training.framework,
        )
    }) {
        note_line(lang, &n.render(lang));
    }
    if let Some(n) = gpuplan_core::plan::train::megatron_pipeline_zero_caveat(&r.training) {
        note_line(lang, gpuplan_core::i18n::Text::from(n).get(lang));
    }
    if let Some(g) = r.global_batch {
        r.training.grad_accum =
            gpuplan_core::train::grad_accum_for_global(g, &r.training, cluster)?;
    }
    Ok(estimate_training(model, &r.training, cluster, &r.tunables)?)
}

/// The kind and body of the estimate's JSON document (docs/json-schema.md), shared with
/// `gpuplan serve`.
pub fn estimate_json(x: &Estimated) -> (&'static str, serde_json::Value) {
    match x {
        Estimated::Training {
            model,
            r,
            cluster,
            e,
        } => (
            "training_estimate",
            json!({
                "model": model_summary(model), "setup": r.training, "hardware": cluster,
                "tunables": r.tunables, "estimate": e
            }),
        ),
        Estimated::Inference {
            model,
            r,
            cluster,
            e,
        } => (
            "inference_estimate",
            json!({
                "model": model_summary(model), "setup": r.inference, "hardware": cluster,
                "tunables": r.tunables, "estimate": e
            }),
        ),
        Estimated::Solved {
            model,
            r,
            cluster,
            s,
        } => (
            "serving_solve",
            json!({"model": model_summary(model), "setup": r.inference, "hardware": cluster, "answer": s}),
        ),
    }
}

/// The step's liveness timeline: live GiB per phase by component, the peak marked; phase and
/// component names from the catalog (`memory.ftl`).
fn timeline_block(m: &gpuplan_core::train::TrainingMemory, look: &Look) -> String {
    let l = look.lang;
    let t = |id: &str| gpuplan_core::i18n::text(l, id);
    let tl = &m.timeline;
    let sep = t("est-timeline-sep");
    let rows: Vec<Vec<String>> = tl
        .phases
        .iter()
        .enumerate()
        .map(|(i, p)| {
            // Components below the table's 0.01 GiB resolution (LitGPT's rotary buffers at
            // short contexts) stay in the JSON, not in the text.
            let parts = p
                .components
                .iter()
                .filter(|(_, b)| b.gib() >= 0.005)
                .map(|(n, b)| format!("{} {:.2}", super::plan::mem_label(n, l), b.gib()))
                .collect::<Vec<_>>()
                .join(&sep);
            let phase = super::plan::phase_label(p.phase, l);
            let name = if i == tl.peak_index {
                format!("{phase} {}", t("est-timeline-peak"))
            } else {
                phase
            };
            vec![name, gib(p.total), parts]
        })
        .collect();
    format!(
        "\n{}\n{}",
        Msg::new("est-timeline-title")
            .arg("saved", gib(m.saved_after_forward))
            .render(l),
        render::block(
            look.md,
            &[
                t("est-timeline-col-phase").as_str(),
                "GiB",
                t("est-timeline-col-live").as_str(),
            ],
            &rows
        )
    )
}

fn pct(x: f64) -> String {
    format!("{:.1}%", x * 100.0)
}

fn look(opts: &super::CatalogOpts, f: Format) -> Look {
    Look {
        lang: opts.lang,
        md: f == Format::Markdown,
        wide: opts.wide,
    }
}

/// Presentation of an estimate: language, Markdown, full table.
struct Look {
    lang: gpuplan_core::i18n::Lang,
    md: bool,
    wide: bool,
}

/// A training choice in words (`precision-amp_bf16` → "bf16 mixed precision (AMP)").
fn word<T: serde::Serialize>(prefix: &str, v: &T) -> Msg {
    let w = serde_json::to_value(v)
        .ok()
        .and_then(|x| x.as_str().map(str::to_string))
        .unwrap_or_default();
    let id = format!("{prefix}-{w}");
    if gpuplan_core::i18n::has_message(gpuplan_core::i18n::Lang::En, &id) {
        Msg::new(id)
    } else {
        Msg::raw(&w)
    }
}

fn task_word(t: gpuplan_core::workload::TrainTask) -> Msg {
    use gpuplan_core::workload::TrainTask;
    Msg::new(match t {
        TrainTask::Pretrain => "task-pretrain",
        TrainTask::FullFinetune => "task-full_finetune",
        TrainTask::Lora => "task-lora",
        TrainTask::Qlora => "task-qlora",
    })
}

/// A table whose last column ("how") is shown only with `--wide`.
fn how_table(look: &Look, header: &[String], rows: Vec<Vec<String>>) -> String {
    let keep = if look.wide {
        header.len()
    } else {
        header.len() - 1
    };
    let h: Vec<&str> = header[..keep].iter().map(String::as_str).collect();
    let rows: Vec<Vec<String>> = rows
        .into_iter()
        .map(|mut r| {
            r.truncate(keep);
            r
        })
        .collect();
    render::block(look.md, &h, &rows)
}

/// Every collective family of the step: its effective bandwidth, time per step and the part
/// hidden behind compute (the algorithm and link in the "how" column, shown with --wide).
fn collectives_table(st: &gpuplan_core::train::StepTime, look: &Look) -> String {
    let l = look.lang;
    let t = |id: &str| gpuplan_core::i18n::text(l, id);
    let rows: Vec<Vec<String>> = st
        .collectives
        .iter()
        .map(|c| {
            vec![
                t(&format!("est-coll-{}", c.kind)),
                if c.effective_bandwidth.0 > 0.0 {
                    c.effective_bandwidth.to_string()
                } else {
                    "–".into()
                },
                c.total.to_string(),
                c.overlapped.to_string(),
                format!(
                    "{}{}{}",
                    c.collective.get(l),
                    t("plan-list-sep"),
                    c.link.get(l)
                ),
            ]
        })
        .collect();
    let h = [
        t("est-coll-col-kind"),
        t("est-coll-col-bandwidth"),
        t("plan-col-time"),
        t("est-coll-col-overlapped"),
        t("plan-col-how"),
    ];
    format!("{}\n{}", t("est-coll-title"), how_table(look, &h, rows))
}

/// The unit of work (tokens, images, samples) in `l`.
fn work_unit(model: &ModelSpec, l: gpuplan_core::i18n::Lang) -> &'static str {
    let (en, zh) = gpuplan_core::chip::work_unit(model);
    if l.is_zh() {
        zh
    } else {
        en
    }
}

/// Under a text report: `--wide` adds the "how" column (nothing in Markdown or with `--wide`).
fn legend(look: &Look) -> String {
    if look.wide || look.md {
        return String::new();
    }
    format!(
        "{}\n",
        gpuplan_core::i18n::text(look.lang, "est-legend-wide")
    )
}

/// The expert all-to-all's total and the part Megatron-Core's EP overlap hides (only shown when
/// something is hidden).
fn ep_how(st: &gpuplan_core::train::StepTime) -> String {
    st.collectives
        .iter()
        .find(|c| c.kind == "ep" && c.overlapped.0 > 0.0)
        .map(|c| format!("{} − {}", c.total, c.overlapped))
        .unwrap_or_default()
}

/// The host-offload rows: each offload's exposed PCIe time and what it moves. `vcpus`: the
/// host's vCPUs are known (an untimed host step then lacks a measured rate, not the host).
fn offload_rows(
    o: &gpuplan_core::train::OffloadTime,
    row: &dyn Fn(&str, Seconds, String) -> Vec<String>,
    (l, vcpus): (gpuplan_core::i18n::Lang, bool),
) -> Vec<Vec<String>> {
    let Some(link) = o.host_link else {
        let how = Msg::new("est-offload-untimed-how").render(l);
        let mut rows = vec![row("est-step-offload-untimed", Seconds(0.0), how)];
        rows.extend(host_step_row(o, row, l));
        return rows;
    };
    let mut rows = Vec::new();
    if o.grads_to_host.0 > 0.0 || o.params_to_device.0 > 0.0 {
        let how = Msg::new("est-offload-optimizer-how")
            .arg("grads", o.grads_to_host.to_string())
            .arg("exposed", o.grads_to_host_exposed.to_string())
            .arg("params", o.params_to_device.to_string())
            .arg("link", link.to_string())
            .render(l);
        let t = o.grads_to_host_exposed + o.params_to_device;
        rows.push(row("est-step-offload-optimizer", t, how));
        if o.host_step.is_none() {
            let id = if vcpus {
                "est-offload-host-unrated-how"
            } else {
                "est-offload-host-untimed-how"
            };
            let how = Msg::new(id).render(l);
            rows.push(row("est-step-offload-host-step", Seconds(0.0), how));
        }
    }
    rows.extend(host_step_row(o, row, l));
    if o.param_fetch.0 > 0.0 {
        let how = Msg::new("est-offload-params-how")
            .arg("fetch", o.param_fetch.to_string())
            .render(l);
        rows.push(row("est-step-offload-params", o.param_fetch_exposed, how));
    }
    if o.activations_to_host.0 > 0.0 {
        let how = Msg::new("est-offload-activations-how")
            .arg("out", o.activations_to_host.to_string())
            .arg("exposed", o.activations_to_host_exposed.to_string())
            .arg("back", o.activations_to_device.to_string())
            .arg("link", link.to_string())
            .render(l);
        let t = o.activations_to_host_exposed + o.activations_to_device;
        rows.push(row("est-step-offload-activations", t, how));
    }
    rows
}

/// The host CPU's optimizer step, where it is timed (`[hardware] host_vcpus` known).
fn host_step_row(
    o: &gpuplan_core::train::OffloadTime,
    row: &dyn Fn(&str, Seconds, String) -> Vec<String>,
    l: gpuplan_core::i18n::Lang,
) -> Option<Vec<String>> {
    let h = o.host_step.as_ref()?;
    let how = Msg::new("est-offload-host-step-how")
        .arg("impl", h.implementation)
        .arg("params", format!("{:.3e}", h.params))
        .arg("cores", format!("{:.1}", h.cores))
        .arg("secs", h.seconds.to_string())
        .render(l);
    Some(row("est-step-offload-host-step", h.exposed, how))
}

/// A table label with a note after it: `label (note)` / `label（note）`.
fn label_note(label: &str, note: &str, l: gpuplan_core::i18n::Lang) -> String {
    Msg::new("est-label-note")
        .arg("label", label)
        .arg("note", note)
        .render(l)
}

/// The training report: setup, memory table, liveness timeline, step time, job and data path.
fn training_report(
    model: &ModelSpec,
    r: &Request,
    c: &ClusterSpec,
    e: &TrainingEstimate,
    look: &Look,
) -> String {
    let l = look.lang;
    let mut out = training_header(model, r, c, e, l);
    out.push_str(&memory_section(c, e, look));
    if let Some(hint) = no_fit_hint(r, c, e) {
        out.push_str(&format!(
            "{}\n",
            render::wrap(&hint.render(l), render::width(), "  ")
        ));
    }
    out.push_str(&timeline_block(&e.memory, look));
    match &e.step {
        Some(st) => out.push_str(&step_section(model, (r, c), st, look)),
        None => out.push_str(&format!(
            "{}\n",
            Msg::new("est-time-unavailable")
                .arg("why", e.step_unavailable.as_ref().map_or("", |t| t.get(l)),)
                .render(l)
        )),
    }
    out.push_str(&job_line(model, e, l));
    if let Some(d) = &e.data_path {
        // An image model without a stored size per sample reads "0.0 KB/s": say it is unknown.
        let unknown = matches!(&model.architecture,
            gpuplan_core::model::Architecture::Opaque(o) if o.sample_bytes.is_none())
            && r.training.bytes_per_sample.is_none();
        out.push_str(&data_line(d, unknown, l));
    }
    out.push_str(&legend(look));
    out
}

/// The report's first lines: the job, the accounting profile and the hardware, each wrapped.
fn training_header(
    model: &ModelSpec,
    r: &Request,
    c: &ClusterSpec,
    e: &TrainingEstimate,
    l: gpuplan_core::i18n::Lang,
) -> String {
    let wrap = |m: Msg| render::wrap(&m.render(l), render::width(), "  ");
    let acct = gpuplan_core::i18n::text(l, &format!("acct-{}", e.memory.accounting));
    format!(
        "{}\n{}\n{}\n\n",
        wrap(training_title(model, &r.training)),
        wrap(Msg::new("est-accounting").arg("profile", acct)),
        wrap(training_hardware(&r.training, c, e, l)),
    )
}

/// The job in words: model, task, precision, optimizer, sequence, batch, recompute, attention.
fn training_title(model: &ModelSpec, s: &TrainingSetup) -> Msg {
    // CNN/UNet jobs have no sequence length.
    let seq = if model.transformer().is_some() {
        s.seq_len.to_string()
    } else {
        "none".into()
    };
    Msg::new("est-train-title")
        .arg("model", model.name.as_str())
        .arg("task", task_word(s.task))
        .arg("precision", word("precision", &s.precision))
        .arg("optimizer", word("optimizer", &s.optimizer))
        .arg("seq", seq)
        .arg("mb", s.micro_batch)
        .arg("ga", s.grad_accum)
        .arg("recompute", word("recompute", &s.recompute))
        .arg("attention", word("attention", &s.attention))
        .arg("profile", word("framework", &s.framework))
}

/// The hardware and its parallel layout.
fn training_hardware(
    s: &TrainingSetup,
    c: &ClusterSpec,
    e: &TrainingEstimate,
    l: gpuplan_core::i18n::Lang,
) -> Msg {
    let p = &s.parallel;
    Msg::new("est-hardware")
        .arg("nodes", c.nodes)
        .arg("per", c.gpus_per_node)
        .arg("gpu", gpuplan_core::i18n::gpu_name(&c.gpu.name, l))
        .arg("intra", c.intra_bandwidth.to_string())
        .arg("link", c.inter_link.name())
        .arg("inter", c.inter_bandwidth.to_string())
        // One node has no link between nodes to describe (audit r9 #20).
        .arg("one", if c.nodes == 1 { "yes" } else { "no" })
        .arg("tp", p.tp)
        .arg("pp", p.pp)
        .arg("dp", e.memory.data_parallel)
        .arg("ep", p.ep)
        .arg("sched", schedule_suffix(p))
        .arg("zero", p.zero)
        .arg("offload", offload_words(p, l))
}

/// Context parallelism and the interleaved schedule, only where they run (` CP 2 VP 4`).
fn schedule_suffix(p: &gpuplan_core::workload::Parallelism) -> String {
    let mut s = String::new();
    if p.cp > 1 {
        s.push_str(&format!(" CP {}", p.cp));
    }
    if p.virtual_stages > 1 {
        s.push_str(&format!(" VP {}", p.virtual_stages));
    }
    s
}

/// What is offloaded to the host, in `l` (empty when nothing is).
fn offload_words(p: &gpuplan_core::workload::Parallelism, l: gpuplan_core::i18n::Lang) -> String {
    let t = |on: bool, id: &str| {
        if on {
            gpuplan_core::i18n::text(l, id)
        } else {
            String::new()
        }
    };
    format!(
        "{}{}",
        t(p.offload_optimizer, "est-offload-optimizer"),
        t(p.offload_params, "est-offload-params")
    )
}

/// A training job that does not fit: the levers of this command the user left unpulled, each
/// with the most it can save (the memory rows it acts on), largest first, then more devices and
/// `gpuplan plan`. Audit r5: the README's LoRA on one A10 printed "DOES NOT FIT" and nothing to
/// do about it. Audit r9 #14: the levers ignored what overflows (recomputation first for a full
/// fine-tune short by 51.8 GiB of which the optimizer states were 89.8 GiB).
fn no_fit_hint(r: &Request, c: &ClusterSpec, e: &TrainingEstimate) -> Option<Msg> {
    if e.fits || c.gpu.visible_memory().is_none() {
        return None;
    }
    let mut levers = memory_levers(r, c, e);
    levers.sort_by(|a, b| b.1.total_cmp(&a.1));
    let say = |sep: &str, up_to: &dyn Fn(&str) -> String| {
        let mut v: Vec<String> = levers
            .iter()
            .map(|(flag, gib)| format!("{flag} ({})", up_to(&format!("{gib:.1}"))))
            .collect();
        v.push("--gpus-per-node / --nodes".into());
        v.join(sep)
    };
    Some(Msg::new("est-no-fit-hint").arg(
        "levers",
        gpuplan_core::i18n::Arg::PerLang {
            en: say(", ", &|g| format!("up to {g} GiB")),
            zh: say("、", &|g| format!("最多省 {g} GiB")),
        },
    ))
}

/// The estimate's unpulled memory levers and the most each saves in GiB (an upper bound from the
/// rows it acts on): full recomputation frees the saved activations, micro-batch 1 all but one
/// sequence's, ZeRO-3 all but 1/N of the model states, optimizer offload the optimizer states,
/// an 8-bit AdamW the moments' share of them ([`state_bytes`]: 2 × 1 byte instead of 2 × 4, or
/// 2 × 2 in pure bf16; the master copy stays), QLoRA three quarters of LoRA's 16-bit frozen
/// weights. Levers that save nothing here are left out.
///
/// [`state_bytes`]: gpuplan_core::train::state_bytes
fn memory_levers(r: &Request, c: &ClusterSpec, e: &TrainingEstimate) -> Vec<(&'static str, f64)> {
    use gpuplan_core::workload::{Optimizer, Recompute};
    let s = &r.training;
    let row = |name: &str| -> f64 {
        e.memory
            .items
            .iter()
            .filter(|i| i.name == name)
            .map(|i| i.bytes.gib())
            .sum()
    };
    let acts = row("activations");
    let states = row("optimizer states + master weights");
    let model = row("weights") + row("base weights (frozen)") + row("gradients") + states;
    let devices = (c.nodes * c.gpus_per_node) as f64;
    let mut levers = vec![];
    if s.recompute != Recompute::Full && acts > 0.0 {
        levers.push(("--recompute full", acts));
    }
    if s.micro_batch > 1 && acts > 0.0 {
        levers.push(("--micro-batch 1", acts * (1.0 - 1.0 / s.micro_batch as f64)));
    }
    if devices > 1.0 && s.parallel.zero < 3 && model > 0.0 {
        levers.push(("--zero 3", model * (1.0 - 1.0 / devices)));
    }
    if !s.parallel.offload_optimizer && states > 0.0 {
        levers.push(("--offload-optimizer", states));
        if s.optimizer == Optimizer::AdamW {
            let b = |o| gpuplan_core::train::state_bytes(s.precision, o, s.framework);
            let (now, bit8) = (b(Optimizer::AdamW), b(Optimizer::AdamW8bit));
            let share = (now.optimizer - bit8.optimizer) / (now.optimizer + now.master);
            levers.push(("--optimizer adam_w8bit", states * share));
        }
    }
    // LoRA over 16-bit frozen weights: QLoRA stores them in NF4 (bitsandbytes, with double
    // quantization: `BaseWeights::Nf4`).
    let base = row("base weights (frozen)");
    if s.task == gpuplan_core::workload::TrainTask::Lora && base > 0.0 {
        let nf4 = gpuplan_core::workload::BaseWeights::Nf4.bits();
        levers.push(("--task qlora", base * (1.0 - nf4 / 16.0)));
    }
    levers.retain(|(_, gib)| *gib >= 0.05);
    levers
}

/// Whether the job fits the device's memory, in words.
fn fit_verdict(c: &ClusterSpec, e: &TrainingEstimate, l: gpuplan_core::i18n::Lang) -> Msg {
    let name = gpuplan_core::i18n::gpu_name(&c.gpu.name, l);
    let gpu = name.as_str();
    match c
        .gpu
        .visible_memory()
        .map(|b| (b.gib() * 100.0).round() / 100.0)
    {
        None => Msg::new("est-no-memory").arg("gpu", gpu),
        Some(m) if e.fits => Msg::new("est-fits").arg("have", m).arg("gpu", gpu),
        Some(m) => Msg::new("est-does-not-fit")
            .arg("have", m)
            .arg("gpu", gpu)
            .arg("short", format!("{:.1}", e.memory.device_total.gib() - m)),
    }
}

/// The memory table's rows: every component, the peak, the total with its fit verdict (kept
/// in the label when the "how" column is hidden) and the host RAM offload takes.
fn memory_rows(c: &ClusterSpec, e: &TrainingEstimate, look: &Look) -> Vec<Vec<String>> {
    let l = look.lang;
    let t = |id: &str| gpuplan_core::i18n::text(l, id);
    let m = &e.memory;
    let mut rows: Vec<Vec<String>> = m
        .items
        .iter()
        .map(|i| {
            vec![
                super::plan::mem_label(i.name, l),
                gib(i.bytes),
                i.basis.get(l).to_string(),
            ]
        })
        .collect();
    rows.push(vec![
        t("est-peak-allocated"),
        gib(m.peak_allocated),
        String::new(),
    ]);
    let verdict = fit_verdict(c, e, l).render(l);
    let needed = if look.wide {
        t("est-needed")
    } else {
        label_note(&t("est-needed"), &verdict, l)
    };
    rows.push(vec![needed, gib(m.device_total), verdict]);
    if m.cpu_offload.0 > 0.0 {
        rows.push(vec![
            t("est-offload-ram"),
            gib(m.cpu_offload),
            String::new(),
        ]);
    }
    rows
}

/// The memory title and table.
fn memory_section(c: &ClusterSpec, e: &TrainingEstimate, look: &Look) -> String {
    let l = look.lang;
    let t = |id: &str| gpuplan_core::i18n::text(l, id);
    // The components are those live at the peak (audit r6 #11: "activations 0.00" at an
    // optimizer-step peak read as an error without the phase).
    let title = Msg::new("est-mem-title")
        .arg("params", format_count(e.memory.params_per_device))
        .arg(
            "trainable",
            format_count(e.memory.trainable_params_per_device),
        )
        .arg("phase", super::plan::phase_label(e.memory.phase_at_peak, l))
        .render(l);
    let h = [
        t("plan-col-component"),
        "GiB".to_string(),
        t("plan-col-how"),
    ];
    format!("{title}\n{}", how_table(look, &h, memory_rows(c, e, look)))
}

/// The efficiency's factors (`train_efficiency_ampere × card_factor_pcie`, the tunables' names,
/// which `--set` takes) each with what it is in `l` (`eff-*` in estimate.ftl).
fn efficiency_words(names: &str, l: gpuplan_core::i18n::Lang) -> String {
    names
        .split(" × ")
        .filter(|n| !n.is_empty())
        .map(|n| {
            let id = format!("eff-{n}");
            if gpuplan_core::i18n::has_message(l, &id) {
                format!("{} {n}", gpuplan_core::i18n::text(l, &id))
            } else {
                n.to_string()
            }
        })
        .collect::<Vec<_>>()
        .join(" × ")
}

/// The step-time rows: compute, bubble, each communication and the step with its bottleneck.
fn step_rows(
    st: &gpuplan_core::train::StepTime,
    (s, c): (&TrainingSetup, &ClusterSpec),
    l: gpuplan_core::i18n::Lang,
) -> Vec<Vec<String>> {
    let t = |id: &str| gpuplan_core::i18n::text(l, id);
    let p = &s.parallel;
    let row =
        |id: &str, x: Seconds, how: String| vec![t(id), x.to_string(), pct(x.0 / st.step.0), how];
    // A product of ratios (0.55 × 0.77) prints its float noise (0.42350000000000004): 4 digits.
    let compute = Msg::new("est-how-compute")
        .arg("peak", st.peak.to_string())
        .arg("eff", (st.efficiency_used * 1e4).round() / 1e4)
        .arg("names", efficiency_words(&st.efficiency_name, l))
        .render(l);
    // DeepSpeed BF16_Optimizer's per-micro-batch gradient pass, inside compute, where on.
    let compute = if st.fp32_grad_pass.0 > 0.0 {
        let pass = Msg::new("est-how-fp32-grad-pass")
            .arg("s", st.fp32_grad_pass.to_string())
            .render(l);
        format!("{compute}{pass}")
    } else {
        compute
    };
    let bubble = format!(
        "(p−1)/(v·m), p={}, v={}, m={}",
        p.pp, p.virtual_stages, s.grad_accum
    );
    let tp = Msg::new("est-how-tp")
        .arg("hidden", st.tp_comm_overlapped.to_string())
        .render(l);
    let bottleneck = Msg::new("est-col-bottleneck")
        .arg("b", super::plan::bottleneck_label(st.bottleneck, l))
        .render(l);
    let mut rows = vec![
        row("plan-step-compute", st.compute, compute),
        row("plan-step-bubble", st.pipeline_bubble, bubble),
        row("est-step-tp", st.tp_comm, tp),
    ];
    // The context-parallel row only where context parallelism runs.
    if p.cp > 1 {
        rows.push(row("est-step-cp", st.cp_comm, t("est-how-cp")));
    }
    rows.extend([
        row(
            "plan-step-dp",
            st.dp_comm_exposed,
            format!("{} / {}", st.dp_comm_total, st.dp_link.get(l)),
        ),
        row("est-step-p2p", st.pp_comm, String::new()),
        row("est-step-ep", st.ep_comm, ep_how(st)),
    ]);
    // Compute lost to the SMs of the overlapped data-parallel collectives, where any overlap.
    if st.comm_contention.0 > 0.0 {
        rows.push(row(
            "est-step-contention",
            st.comm_contention,
            String::new(),
        ));
    }
    if let Some(o) = &st.offload {
        rows.extend(offload_rows(o, &row, (l, c.host_vcpus.is_some())));
    }
    // The host's dispatch of an eager loop, where modelled: what the GPU waits for it.
    let dispatch = st
        .host_dispatch
        .as_ref()
        .map_or(Seconds(0.0), |h| h.exposed_s);
    if let Some(h) = st.host_dispatch.as_ref().filter(|h| h.exposed_s.0 > 0.0) {
        let us = |s: f64| (s * 1e7).round() / 10.0;
        let how = Msg::new("est-how-dispatch")
            .arg("ops", h.launch_ops_per_micro_batch.round())
            .arg("us", us(h.per_op_s))
            .arg(
                "views",
                (h.ops_per_micro_batch - h.launch_ops_per_micro_batch).round(),
            )
            .arg("vus", us(h.per_view_s))
            .arg("outside", Seconds(h.outside_s).to_string())
            .arg("host", h.host_s.to_string())
            .arg("stack", h.stack)
            .render(l);
        let how = match h.zero3_s {
            Some(z) => Msg::new("est-how-dispatch-zero3")
                .arg("how", how)
                .arg("zero3", Seconds(z).to_string())
                .render(l),
            None => how,
        };
        rows.push(row("est-step-dispatch", h.exposed_s, how));
    }
    // The host-CPU ceiling stretches the step beyond its GPU parts: the rest is input wait.
    let decode_wait = st.bottleneck == "host-cpu" && st.host_dispatch.is_none();
    if decode_wait {
        let gpu = dispatch
            + st.offload.as_ref().map_or(Seconds(0.0), |o| o.exposed)
            + st.compute
            + st.pipeline_bubble
            + st.tp_comm
            + st.cp_comm
            + st.dp_comm_exposed
            + st.comm_contention
            + st.pp_comm
            + st.ep_comm;
        rows.push(row("est-step-host", st.step - gpu, String::new()));
    }
    rows.extend([vec![
        label_note(&t("plan-step-step"), &bottleneck, l),
        st.step.to_string(),
        "100%".into(),
        String::new(),
    ]]);
    rows
}

/// The step-time title and table, the throughput line and the collectives table.
fn step_section(
    model: &ModelSpec,
    (r, c): (&Request, &ClusterSpec),
    st: &gpuplan_core::train::StepTime,
    look: &Look,
) -> String {
    let l = look.lang;
    let t = |id: &str| gpuplan_core::i18n::text(l, id);
    let h = [
        t("plan-col-part"),
        t("plan-col-time"),
        t("plan-col-share"),
        t("plan-col-how"),
    ];
    let throughput = Msg::new("est-throughput")
        .arg("rate", format!("{:.0}", st.tokens_per_second))
        .arg("unit", work_unit(model, l))
        .arg("per", format!("{:.0}", st.tokens_per_second_per_gpu))
        .arg("mfu", pct(st.mfu))
        .arg("hfu", pct(st.hfu))
        .arg("model_tf", format!("{:.0}", st.model_tflops_per_gpu))
        .arg("hw_tf", format!("{:.0}", st.hardware_tflops_per_gpu))
        .render(l);
    let mut out = format!(
        "{}\n{}{throughput}\n",
        t("est-step-title"),
        how_table(look, &h, step_rows(st, (&r.training, c), l))
    );
    if !st.collectives.is_empty() {
        out.push_str(&collectives_table(st, look));
    }
    out
}

/// A job's wall time: from 2 h in the catalogs' hours, days or years (both languages), shorter
/// as seconds or minutes.
fn wall_words(t: Seconds, l: gpuplan_core::i18n::Lang) -> String {
    if t.0.is_finite() && t.0 >= 7200.0 {
        gpuplan_core::units::duration_msg(t.0 / 3600.0).render(l)
    } else {
        t.to_string()
    }
}

/// The whole job: amount of work, steps, wall time, GPU-hours and FLOPs.
fn job_line(model: &ModelSpec, e: &TrainingEstimate, l: gpuplan_core::i18n::Lang) -> String {
    match &e.totals {
        Some(tt) => format!(
            "{}\n",
            Msg::new("est-job")
                .arg("amount", format_count(tt.tokens))
                .arg("unit", work_unit(model, l))
                .arg("steps", gpuplan_core::units::format_whole(tt.steps))
                .arg("step_count", tt.steps)
                .arg("wall", wall_words(tt.wall_time, l))
                .arg(
                    "gpu_hours",
                    gpuplan_core::units::format_gpu_hours(tt.gpu_hours)
                )
                .arg("flops", format!("{:.2e}", tt.total_flops.0))
                .render(l)
        ),
        None => format!("{}\n", gpuplan_core::i18n::text(l, "est-job-missing")),
    }
}

/// The data path: sample rate, read bandwidth, decode cores, checkpoint and its write time.
fn data_line(
    d: &gpuplan_core::train::DataPath,
    read_unknown: bool,
    l: gpuplan_core::i18n::Lang,
) -> String {
    let read = if read_unknown {
        gpuplan_core::i18n::text(l, "est-read-unknown")
    } else {
        d.read_bandwidth.to_string()
    };
    let cores = d
        .cpu_cores_for_decode
        .map(|c| format!("{:.0}", c.ceil()))
        .unwrap_or_else(|| "none".into());
    let write =
        gpuplan_core::units::transfer_time(d.checkpoint_size, Bandwidth::from_gb_per_s(1.0));
    format!(
        "{}\n",
        Msg::new("est-data")
            .arg("rate", format!("{:.1}", d.samples_per_second))
            .arg("read", read)
            .arg("cores", cores)
            .arg("ckpt", d.checkpoint_size.to_string())
            .arg("weights", d.weights_size.to_string())
            .arg("write", write.to_string())
            .render(l)
    )
}

/// bf16 on a chip without it: fp16 with a note, or an error when the weights were chosen.
fn adapt_inference(
    a: &EstimateArgs,
    r: &mut Request,
    model: &ModelSpec,
    cluster: &ClusterSpec,
    lang: gpuplan_core::i18n::Lang,
) -> Result<()> {
    // Stated by the flag or the file's key, bf16 included (review r13 #3: a stated bf16 read as
    // "not given", so an unread checkpoint could not be served dequantized from a file).
    let pinned = a.weights.is_some() || r.file.inference_weights_given;
    // The engine's own floor first: no note on how it would run where it does not start
    // (audit r20 #1).
    gpuplan_core::infer::check_engine_runs(r.inference.engine, &cluster.gpu)?;
    gpuplan_core::infer::check_checkpoint_read(model, pinned, "inference")?;
    if !pinned {
        shipped_weights(r, model, cluster, lang);
    }
    let as_stored = model.checkpoint == Some(r.inference.weights);
    if let Some(m) = gpuplan_core::model::quant::skipped_linears_note(model, as_stored) {
        note_line(lang, &m.render(lang));
    }
    // `--weights awq`, or an AWQ checkpoint served as stored, names AWQ, which vLLM/SGLang load
    // only from 7.5 (audit r19 #1): refused before the notes on how it would run.
    // A file's `weights = "awq"` as the flag (audit r21 #1); the flag, when given, decides.
    let named = match a.weights.as_deref() {
        Some(w) => w.trim().eq_ignore_ascii_case("awq"),
        None => r.file.inference_weights_awq,
    };
    let stored = model.checkpoint_awq && model.checkpoint == Some(r.inference.weights);
    if named || stored {
        gpuplan_core::infer::check_awq_named(&r.inference, &cluster.gpu)?;
    }
    let (s, note) = gpuplan_core::infer::adapt_half(&r.inference, &cluster.gpu, pinned)?;
    if let Some(n) = note {
        note_line(lang, n.get(lang));
    }
    if let Some(m) = gpuplan_core::infer::engine_unlisted_note(s.engine, &cluster.gpu) {
        note_line(lang, &m.render(lang));
    }
    let kernel = gpuplan_core::infer::weight_only_kernel_note(s.engine, s.weights, &cluster.gpu);
    if let Some(m) = kernel {
        note_line(lang, &m.render(lang));
    }
    r.inference = s;
    // The default prompt fitted to the model's context, as `plan` does (a file's or a flag's
    // token counts are the user's and stay as given).
    let given =
        a.job.input_tokens.is_some() || a.job.output_tokens.is_some() || r.file.inference.is_some();
    if !given {
        let i = &mut r.inference;
        if let Some(n) = gpuplan_core::workload::fit_default_prompt(
            &mut i.input_tokens,
            &mut i.output_tokens,
            model,
            i.max_model_len,
        ) {
            note_line(lang, &n.render(lang));
        }
    }
    Ok(())
}

/// Unless the weights were chosen, a model whose checkpoint ships in another format than 16-bit
/// (DeepSeek-V3/R1: FP8, their configs' `quantization_config`, `infer::native_format`) is sized as
/// shipped on a chip with FP8, as vLLM loads it by default and `plan` serves it (audit r7 #12:
/// the estimate sized DeepSeek-V3 in bf16, 1250 GiB). Without FP8 on the chip the 16-bit default
/// stays, as `plan` offers no FP8 there.
fn shipped_weights(
    r: &mut Request,
    model: &ModelSpec,
    cluster: &ClusterSpec,
    lang: gpuplan_core::i18n::Lang,
) {
    let Some(native) = gpuplan_core::infer::native_format(model) else {
        return;
    };
    if r.inference.weights != WeightFormat::Bf16 {
        return;
    }
    let engine = r.inference.engine;
    if gpuplan_core::infer::model_format_runs(model, engine, native, &cluster.gpu) {
        r.inference.weights = native;
        let m = Msg::new("est-serve-shipped-weights")
            .arg("weights", native.name())
            .arg("engine", engine.name());
        note_line(lang, &m.render(lang));
    } else {
        // Not silent: the 16-bit sizing is a dequantized copy (MXFP4 on a chip or engine
        // without its kernels, `infer::format_runs`; FP8 where the engine loads none,
        // `infer::fp8_weights_run_on`, review r12 #3).
        // An AWQ checkpoint where vLLM/SGLang have no AWQ kernel (below 7.5, audit r19 #1): its
        // own note names the GPTQ release that loads there.
        let awq = gpuplan_core::infer::format_runs(engine, native, &cluster.gpu);
        let key = if native == WeightFormat::Fp8 {
            "est-serve-dequantized-fp8"
        } else if awq {
            "est-serve-dequantized-awq"
        } else {
            "est-serve-dequantized"
        };
        let m = Msg::new(key)
            .arg("weights", native.name())
            .arg("engine", engine.name())
            .arg("gpu", cluster.gpu.id.as_str());
        note_line(lang, &m.render(lang));
    }
}

/// An MLA + MoE model (DeepSeek-V3/R1) decoding below batch 8 is outside the range its serving
/// cases validate (audit r9 #22): SGLang v0.5.7's DeepSeek-R1 on 8 × H200 at batch 8–64 is within
/// 18%, but the one published single-request rate (vLLM 0.13, DeepSeek-V3.2 on 8 × H20, 30
/// tokens/s) is ~4× slower than the model and unexplained (docs/methodology.md, kernels per layer).
fn mla_moe_small_batch_note(model: &ModelSpec, r: &Request, lang: gpuplan_core::i18n::Lang) {
    if gpuplan_core::plan::serve::mla_moe_below_validated_batch(model, r.inference.batch) {
        let m = Msg::new("est-serve-mla-moe-small-batch").arg("batch", r.inference.batch);
        note_line(lang, &m.render(lang));
    }
}

/// Whether the serving TP is the default one (neither `--tp` nor the workload file set it).
fn tp_unset(a: &EstimateArgs, r: &Request) -> bool {
    a.tp.is_none() && r.file.inference.as_ref().is_none_or(|i| i.tp == 1)
}

/// A serving estimate at the default TP that does not fit: the smallest TP within the GPUs
/// given at which it fits ([`fitting_tp`]), with a note (audit r7 #12: DeepSeek-V3 on 16 H20
/// ran TP 1 and printed latencies for weights that do not load).
fn serve_at_fitting_tp(
    a: &EstimateArgs,
    model: &ModelSpec,
    r: &mut Request,
    cluster: &ClusterSpec,
    lang: gpuplan_core::i18n::Lang,
) -> Result<InferenceEstimate> {
    let e = estimate_inference(model, &r.inference, cluster, &r.tunables)?;
    if !tp_unset(a, r) {
        return Ok(e);
    }
    let Some(tp) = fitting_tp(model, r, cluster, &e) else {
        return Ok(e);
    };
    r.inference.tp = tp;
    let gpus = cluster.nodes * cluster.gpus_per_node;
    let m = Msg::new("est-serve-auto-tp")
        .arg("tp", tp)
        .arg("gpus", gpus);
    note_line(lang, &m.render(lang));
    Ok(estimate_inference(
        model,
        &r.inference,
        cluster,
        &r.tunables,
    )?)
}

/// `estimate --solve`: the question of the flags, answered by the core.
fn solve_question(
    a: &EstimateArgs,
    model: &ModelSpec,
    r: &Request,
    cluster: &ClusterSpec,
) -> Result<gpuplan_core::infer::Solved> {
    use gpuplan_core::infer::{solve, SolveFor};
    let q = match a.solve {
        Some(SolveArg::MaxContext) => SolveFor::MaxContext,
        Some(SolveArg::MaxBatch) => SolveFor::MaxBatch,
        Some(SolveArg::MaxThroughput) => match a.tpot {
            Some(t) if t.is_finite() && t > 0.0 && t <= 3600.0 => {
                SolveFor::MaxThroughput { tpot_s: t }
            }
            Some(t) => {
                return Err(crate::render::fail(
                    Msg::new("cli-err-solve-tpot-range")
                        .arg("value", gpuplan_core::error::show_value(t.to_string())),
                ))
            }
            None => return Err(crate::render::fail(Msg::new("cli-err-solve-needs-tpot"))),
        },
        None => {
            return Err(crate::render::fail(Msg::new(
                "cli-err-solve-needs-question",
            )))
        }
    };
    r.inference.validate_for(model)?;
    Ok(solve(model, &r.inference, &cluster.gpu, &r.tunables, q)?)
}

/// The answer of `--solve` as a table, with its binding constraint, in the user's language.
fn solve_report(
    model: &ModelSpec,
    r: &Request,
    cluster: &ClusterSpec,
    s: &gpuplan_core::infer::Solved,
    look: &Look,
) -> String {
    let l = look.lang;
    let t = |id: &str| gpuplan_core::i18n::text(l, id);
    let ms = |x: Option<Seconds>| {
        x.map(|x| format!("{:.2}", x.millis()))
            .unwrap_or_else(|| t("solve-na"))
    };
    let tps = s
        .output_tokens_per_second
        .map(|x| format!("{x:.0}"))
        .unwrap_or_else(|| t("solve-na"));
    let rows = vec![
        vec![t("solve-row-context"), s.context.to_string()],
        vec![t("solve-row-batch"), s.batch.to_string()],
        vec![t("solve-row-tpot"), ms(s.time_per_token)],
        vec![t("solve-row-tps"), tps],
        vec![
            t("solve-row-binding"),
            Msg::new("solve-binding").arg("b", s.binding).render(l),
        ],
        vec![t("solve-row-why"), s.explanation.get(l).to_string()],
    ];
    let title = Msg::new("solve-title")
        .arg("model", model.name.as_str())
        .arg("question", s.question.label())
        .arg("gpu", cluster.gpu.id.as_str())
        .arg("tp", r.inference.tp)
        .arg("engine", r.inference.engine.name())
        .arg("evals", s.evaluations)
        .render(l);
    let (q, v) = (t("solve-col-quantity"), t("solve-col-value"));
    format!(
        "{title}\n{}",
        render::block(look.md, &[q.as_str(), v.as_str()], &rows)
    )
}

/// The KV pool row; a pool below zero is shown as 0 with the shortfall, never as negative memory.
fn kv_pool_row(m: &gpuplan_core::infer::ServingMemory, l: gpuplan_core::i18n::Lang) -> Vec<String> {
    let name = gpuplan_core::i18n::text(l, "est-serve-kv-pool");
    let per = Msg::new("est-serve-how-kv")
        .arg("bytes", m.kv_per_token.per_device.0.to_string())
        .arg("heads", m.kv_per_token.heads_per_device)
        .render(l);
    if m.kv_shortfall.0 <= 0.0 {
        vec![name, gib(m.kv_pool), per]
    } else {
        vec![
            name,
            "0.00".into(),
            Msg::new("est-serve-kv-none")
                .arg("gib", format!("{:.2}", m.kv_shortfall.gib()))
                .arg("per", per)
                .render(l),
        ]
    }
}

fn budget_how(e: gpuplan_core::workload::Engine) -> &'static str {
    use gpuplan_core::workload::Engine;
    match e {
        Engine::Vllm => "est-serve-how-budget-vllm",
        Engine::Sglang => "est-serve-how-budget-sglang",
        Engine::Trtllm => "est-serve-how-budget-trtllm",
        Engine::Static => "est-serve-how-budget-static",
    }
}

/// The serving report: setup, memory table, KV pool, problems and latency.
/// A serving estimate that does not fit: the smallest larger TP (dividing the heads, within the
/// GPUs given) at which the same setup fits, by the same estimate. Audit r5: `estimate -m
/// Llama-3.1-70B --task inference --gpu h100-sxm --gpus-per-node 8` ran TP 1 (vLLM's default)
/// and said "use more GPUs (tp)" with 8 GPUs on the command line and no number.
fn fitting_tp(
    model: &ModelSpec,
    r: &Request,
    cluster: &ClusterSpec,
    e: &InferenceEstimate,
) -> Option<u64> {
    let heads = model.transformer()?.heads;
    if e.memory.fits {
        return None;
    }
    let gpus = cluster.nodes * cluster.gpus_per_node;
    (r.inference.tp + 1..=gpus)
        .filter(|tp| heads.is_multiple_of(*tp))
        .find(|tp| {
            let mut s = r.inference.clone();
            s.tp = *tp;
            estimate_inference(model, &s, cluster, &r.tunables).is_ok_and(|x| x.memory.fits)
        })
}

/// What would start a setup vLLM refuses ([`gpuplan_core::infer::fit_advice`]): one line per
/// setting that alone makes it start, under a heading; empty where there is none.
fn fit_advice_lines(
    r: &Request,
    cluster: &ClusterSpec,
    e: &InferenceEstimate,
    lang: gpuplan_core::i18n::Lang,
) -> String {
    let Some(a) = &e.memory.fit_advice else {
        return String::new();
    };
    let lines =
        gpuplan_core::infer::fit_advice_msgs(a, &r.inference, &cluster.gpu, e.memory.max_model_len);
    let items: Vec<String> = lines.iter().map(|m| m.render(lang)).collect();
    format!("{}\n", items.join("\n  "))
}

/// A `--batch` the engine cannot hold at once (more than its `max_num_seqs`, or more requests
/// of input + output tokens than the KV pool holds): the latency line is for a batch that never
/// runs, so say what would and how to ask for it (audit r11 #8). Static batching (a fixed batch,
/// the pool sized for it) and a pool that does not fit (already a PROBLEM) are left alone.
fn batch_over_capacity(r: &Request, cluster: &ClusterSpec, e: &InferenceEstimate) -> Option<Msg> {
    let s = &r.inference;
    let m = &e.memory;
    if s.engine == gpuplan_core::workload::Engine::Static || !m.fits {
        return None;
    }
    let seqs = s
        .max_num_seqs
        .unwrap_or_else(|| gpuplan_core::infer::engine_max_num_seqs(s.engine, &cluster.gpu));
    let held = seqs.min(m.max_concurrent_requests);
    (s.batch > held).then(|| {
        Msg::new("est-serve-batch-over")
            .arg("batch", s.batch)
            .arg("held", held)
            .arg("seqs", seqs)
            .arg("kv", m.max_concurrent_requests)
    })
}

fn inference_report(name: &str, r: &Request, e: &InferenceEstimate, look: &Look) -> String {
    let l = look.lang;
    let (s, m) = (&r.inference, &e.memory);
    let para = |text: String| format!("{}\n", render::wrap(&text, render::width(), "  "));
    let mut out = inference_header(name, s, m, l);
    out.push_str(&serving_memory_section(s, m, look));
    out.push_str(&para(kv_capacity(s, m).render(l)));
    if let Some(p) = &m.problem {
        out.push_str(&para(
            Msg::new("est-serve-problem").arg("p", p.get(l)).render(l),
        ));
    }
    out.push_str(&para(latency_line(s, e, l)));
    out.push_str(&legend(look));
    out
}

/// What the default max_model_len was rounded up to: the KV block, or for the static engine
/// (one block of the whole length) gpt-fast's multiple of 8.
fn default_len_multiple(s: &InferenceSetup, m: &gpuplan_core::infer::ServingMemory) -> u64 {
    match s.engine {
        gpuplan_core::workload::Engine::Static => gpuplan_core::infer::STATIC_SEQ_MULTIPLE,
        _ => m.block_tokens,
    }
}

/// The memory fraction the engine itself reads (the title names its own parameter: SGLang's
/// mem_fraction_static, TensorRT-LLM's free_gpu_memory_fraction, not vLLM's
/// gpu_memory_utilization, audit r12 #5); the static engine has none.
fn engine_fraction(s: &InferenceSetup) -> f64 {
    use gpuplan_core::infer::{sglang_default_mem_fraction, TRTLLM_DEFAULT_FREE_FRACTION};
    use gpuplan_core::workload::Engine;
    match s.engine {
        Engine::Sglang => s
            .mem_fraction_static
            .unwrap_or_else(|| sglang_default_mem_fraction(s.tp)),
        Engine::Trtllm => s
            .free_gpu_memory_fraction
            .unwrap_or(TRTLLM_DEFAULT_FREE_FRACTION),
        Engine::Vllm | Engine::Static => s.gpu_memory_utilization,
    }
}

/// The serving setup (wrapped), the engine's memory rule, the default context when it was not
/// asked for, and the images per request; then a blank line.
fn inference_header(
    name: &str,
    s: &InferenceSetup,
    m: &gpuplan_core::infer::ServingMemory,
    l: gpuplan_core::i18n::Lang,
) -> String {
    let title = Msg::new("est-serve-title")
        .arg("model", name)
        .arg("weights", s.weights.name())
        .arg("kv", word("kv", &s.kv_dtype))
        .arg("tp", s.tp)
        .arg("util", engine_fraction(s).to_string())
        .arg("engine", s.engine.name())
        .arg("len", m.max_model_len);
    let mut lines = vec![
        render::wrap(&title.render(l), render::width(), "  "),
        Msg::new("est-serve-rule")
            .arg("rule", m.rule.get(l))
            .render(l),
    ];
    if s.max_model_len.is_none() {
        // The default is what the workload needs, not the model's full context: say so.
        let mml = Msg::new("est-serve-mml-default")
            .arg("len", m.max_model_len)
            .arg("input", s.input_tokens)
            .arg("output", s.output_tokens)
            .arg("block", default_len_multiple(s, m))
            .arg("engine", s.engine.name());
        lines.push(mml.render(l));
    }
    if s.images_per_request > 0 {
        let images = Msg::new("est-serve-images")
            .arg("n", s.images_per_request)
            .arg("w", s.image_size[0])
            .arg("h", s.image_size[1]);
        lines.push(images.render(l));
    }
    format!("{}\n\n", lines.join("\n"))
}

/// The serving memory title and table: budget, weights, activation, non-torch, KV pool.
fn serving_memory_section(
    s: &InferenceSetup,
    m: &gpuplan_core::infer::ServingMemory,
    look: &Look,
) -> String {
    let l = look.lang;
    let t = |id: &str| gpuplan_core::i18n::text(l, id);
    let mut pool = kv_pool_row(m, l);
    if m.kv_shortfall.0 > 0.0 && !look.wide {
        let short = Msg::new("est-serve-kv-short")
            .arg("gib", format!("{:.2}", m.kv_shortfall.gib()))
            .render(l);
        pool[0] = format!("{} ({short})", pool[0]);
    }
    let weights_how = Msg::new("est-serve-how-weights").arg("bits", s.weights.bits().to_string());
    let activation_how = Msg::new("est-serve-how-activation").arg("tokens", m.profile_tokens);
    let rows = vec![
        vec![
            t("est-serve-budget"),
            gib(m.budget),
            t(budget_how(s.engine)),
        ],
        vec![
            t("est-serve-weights"),
            gib(m.weights),
            weights_how.render(l),
        ],
        vec![
            t("est-serve-activation"),
            gib(m.activation_peak),
            activation_how.render(l),
        ],
        vec![
            t("est-serve-non-torch"),
            gib(m.non_torch + m.cudagraph),
            t("est-serve-how-non-torch"),
        ],
        pool,
    ];
    let title = Msg::new("est-serve-mem-title")
        .arg("engine", s.engine.name())
        .render(l);
    let h = [
        t("plan-col-component"),
        "GiB".to_string(),
        t("plan-col-how"),
    ];
    format!("{title}\n{}", how_table(look, &h, rows))
}

/// The KV pool's capacity: blocks, tokens, concurrency at full length and at the batch.
fn kv_capacity(s: &InferenceSetup, m: &gpuplan_core::infer::ServingMemory) -> Msg {
    Msg::new("est-serve-kv")
        .arg("blocks", m.blocks)
        .arg("block", m.block_tokens)
        .arg("tokens", m.kv_tokens)
        .arg("conc", format!("{:.2}", m.max_concurrency_at_max_len))
        .arg("reqs", m.max_concurrent_requests)
        .arg("input", s.input_tokens)
        .arg("output", s.output_tokens)
        .arg("batch", s.batch)
        .arg("ctx", m.max_context_at_batch)
}

/// Time to first token and per token with what bounds the decode; or why there is none.
fn latency_line(s: &InferenceSetup, e: &InferenceEstimate, l: gpuplan_core::i18n::Lang) -> String {
    let Some(x) = &e.latency else {
        let why = e
            .latency_unavailable
            .as_ref()
            .map(|t| t.get(l).to_string())
            .unwrap_or_default();
        return Msg::new("est-serve-latency-unavailable")
            .arg("why", why)
            .render(l);
    };
    let bound = if x.decode_bandwidth_bound {
        "bandwidth"
    } else {
        "compute"
    };
    Msg::new("est-serve-latency")
        .arg("ttft", x.ttft.to_string())
        .arg("input", s.input_tokens)
        .arg("tpot", x.time_per_token.to_string())
        .arg("batch", s.batch)
        .arg("rate", format!("{:.0}", x.decode_tokens_per_second))
        .arg("bound", bound)
        .arg("ridge", format!("{:.0}", x.ridge_batch))
        .render(l)
}
