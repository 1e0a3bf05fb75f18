//! Inputs that would otherwise be dropped or misread without a word (audit r6): a flag of the
//! other task, `--epochs` beside `--tokens`, a `--gpu` / `--family` the catalog does not know, a
//! serving flag a non-generating model has no use for, an image model without a sample size.
//! Each is bad input (exit 2) naming the flag and the fix.

use crate::cli::{EstimateArgs, JobArgs, PlanArgs};
use crate::render::fail;
use anyhow::Result;
use gpuplan_core::i18n::Msg;
use gpuplan_core::model::{Architecture, ModelSpec};
use gpuplan_core::workload::{TrainingSetup, MAX_EPOCHS};

/// The first flag given that only a training job reads (shared by `plan` and `estimate`).
fn job_training_flag(j: &JobArgs) -> Option<&'static str> {
    [
        (j.seq_len.is_some(), "--seq-len"),
        (j.attention_span.is_some(), "--attention-span"),
        (j.tokens.is_some(), "--tokens"),
        (j.samples.is_some(), "--samples"),
        (j.epochs.is_some(), "--epochs"),
        (j.precision.is_some(), "--precision"),
        (j.optimizer.is_some(), "--optimizer"),
        (j.profile.is_some(), "--profile"),
        (j.lora_rank.is_some(), "--lora-rank"),
        (j.lora_targets.is_some(), "--lora-targets"),
        (j.lora_dropout.is_some(), "--lora-dropout"),
        (j.adapter_dtype.is_some(), "--adapter-dtype"),
        (j.autocast, "--autocast"),
        (j.optimizer_in_backward, "--optimizer-in-backward"),
        (j.chunked_loss, "--chunked-loss"),
        (j.paged_optimizer, "--paged-optimizer"),
        (j.activation_offload, "--activation-offload"),
        (j.gradient_as_bucket_view, "--gradient-as-bucket-view"),
        (j.persistent_grads, "--persistent-grads"),
        (j.nccl_version.is_some(), "--nccl-version"),
        (j.deepspeed, "--deepspeed"),
        (j.bnb_saves_inputs, "--bnb-saves-inputs"),
        (j.quantized_lm_head, "--quantized-lm-head"),
        (j.keeps_previous_graph, "--keeps-previous-graph"),
        (j.bf16_chunked_loss, "--bf16-chunked-loss"),
        (j.compiled_loss, "--compiled-loss"),
    ]
    .into_iter()
    .find_map(|(given, flag)| given.then_some(flag))
}

fn training_flag_error(flag: &str) -> anyhow::Error {
    fail(Msg::new("cli-err-training-flag").arg("flag", flag))
}

/// `plan --task inference` with a flag only training reads.
pub fn plan_serving_only(a: &PlanArgs) -> Result<()> {
    let flag = job_training_flag(&a.job).or_else(|| {
        [
            (a.global_batch.is_some(), "--global-batch"),
            (a.bytes_per_sample.is_some(), "--bytes-per-sample"),
            (a.dataset_size.is_some(), "--dataset-size"),
        ]
        .into_iter()
        .find_map(|(given, flag)| given.then_some(flag))
    });
    flag.map_or(Ok(()), |f| Err(training_flag_error(f)))
}

/// `estimate`: a serving flag on a training job, or a training flag on a serving one.
pub fn estimate_task_flags(a: &EstimateArgs, serving: bool) -> Result<()> {
    if serving {
        let flag = job_training_flag(&a.job).or_else(|| estimate_layout_flag(a));
        flag.map_or(Ok(()), |f| Err(training_flag_error(f)))?;
        // A TPOT target is read by `--solve max-throughput` only: elsewhere it would be ignored.
        let solves_throughput = a.solve == Some(crate::cli::SolveArg::MaxThroughput);
        if a.tpot.is_some() && !solves_throughput {
            return Err(fail(Msg::new("cli-err-tpot-without-solve")));
        }
        return Ok(());
    }
    let j = &a.job;
    let flag = [
        (a.batch.is_some(), "--batch"),
        (a.weights.is_some(), "--weights"),
        (a.kv_dtype.is_some(), "--kv-dtype"),
        (a.max_model_len.is_some(), "--max-model-len"),
        (
            a.gpu_memory_utilization.is_some(),
            "--gpu-memory-utilization",
        ),
        (a.mem_fraction_static.is_some(), "--mem-fraction-static"),
        (
            a.free_gpu_memory_fraction.is_some(),
            "--free-gpu-memory-fraction",
        ),
        (a.engine_version.is_some(), "--engine-version"),
        (
            a.max_num_batched_tokens.is_some(),
            "--max-num-batched-tokens",
        ),
        (a.max_num_seqs.is_some(), "--max-num-seqs"),
        (a.images_per_request.is_some(), "--images-per-request"),
        (a.image_size.is_some(), "--image-size"),
        (a.tpot.is_some(), "--tpot"),
        (j.input_tokens.is_some(), "--input-tokens"),
        (j.output_tokens.is_some(), "--output-tokens"),
        (j.engine.is_some(), "--engine"),
    ]
    .into_iter()
    .find_map(|(given, flag)| given.then_some(flag));
    flag.map_or(Ok(()), |f| {
        Err(fail(
            Msg::new("cli-err-serving-flag-estimate").arg("flag", f),
        ))
    })
}

/// The first layout or step flag of `estimate` that only a training job reads.
fn estimate_layout_flag(a: &EstimateArgs) -> Option<&'static str> {
    [
        (a.micro_batch.is_some(), "--micro-batch"),
        (a.grad_accum.is_some(), "--grad-accum"),
        (a.global_batch.is_some(), "--global-batch"),
        (a.zero.is_some(), "--zero"),
        (a.pp.is_some(), "--pp"),
        (a.ep.is_some(), "--ep"),
        (a.cp.is_some(), "--cp"),
        (a.virtual_stages.is_some(), "--virtual-stages"),
        (a.last_stage_layers.is_some(), "--last-stage-layers"),
        (a.first_stage_layers.is_some(), "--first-stage-layers"),
        (
            a.account_for_embedding_in_pipeline_split,
            "--account-for-embedding-in-pipeline-split",
        ),
        (
            a.account_for_loss_in_pipeline_split,
            "--account-for-loss-in-pipeline-split",
        ),
        (a.recompute.is_some(), "--recompute"),
        (a.offload_optimizer, "--offload-optimizer"),
        (a.offload_params, "--offload-params"),
        (a.sequence_parallel, "--sequence-parallel"),
        (a.grad_all_reduce, "--grad-all-reduce"),
        (a.moe_a2a_overlap.is_some(), "--moe-a2a-overlap"),
        (a.moe_dispatcher.is_some(), "--moe-dispatcher"),
    ]
    .into_iter()
    .find_map(|(given, flag)| given.then_some(flag))
}

/// The range of `--epochs`, as `TrainingSetup::validate` states it.
const EPOCHS_RANGE: &str = "passes over the samples, a positive number up to 1e6";

/// `--epochs` counts passes over `--samples`; beside `--tokens` (which wins) it was dropped, and
/// `--tokens` with `--samples` dropped the samples.
pub fn amounts(j: &JobArgs, t: &TrainingSetup) -> Result<()> {
    if j.tokens.is_some() && j.samples.is_some() {
        return Err(fail(Msg::new("cli-err-tokens-and-samples")));
    }
    match (j.epochs, t.tokens, t.samples) {
        // Out of range first (audit r20 #4): NaN, inf, 1e300 or -1 epochs were echoed in the fix
        // ("--tokens NaN", "--tokens -10000000", a 300-digit count).
        (Some(e), Some(_), None) if !(e.is_finite() && e > 0.0 && e <= MAX_EPOCHS) => {
            Err(gpuplan_core::error::CoreError::invalid("epochs", e, EPOCHS_RANGE).into())
        }
        (Some(e), Some(tokens), None) => Err(fail(
            Msg::new("cli-err-epochs-with-tokens")
                .arg("e", e)
                .arg("tokens", gpuplan_core::units::format_count(tokens))
                .arg("total", gpuplan_core::units::format_count(tokens * e)),
        )),
        _ => Ok(()),
    }
}

/// A model described by its totals (image models) without a stored size per sample: the data
/// path and the storage would be sized for 0 bytes.
pub fn sample_size_known(m: &ModelSpec, t: &TrainingSetup) -> Result<()> {
    if t.task.is_peft() {
        // LoRA on an image model is refused later, with its own reason (no linear layers).
        return Ok(());
    }
    match &m.architecture {
        Architecture::Opaque(o) if o.sample_bytes.is_none() && t.bytes_per_sample.is_none() => {
            Err(fail(
                Msg::new("cli-err-sample-bytes-unknown")
                    .arg("model", m.name.as_str())
                    .arg("input", o.reference_input.as_str()),
            ))
        }
        _ => Ok(()),
    }
}

/// Serving flags a model that answers with one forward pass has no use for: `--tpot` (no
/// generated tokens), and for image models `--output-tokens` and `--input-tokens` too. An
/// encoder keeps `--output-tokens` (scenario s6 gives BERT `--output-tokens 1`: "none").
pub fn serving_flags_fit(a: &PlanArgs, m: &ModelSpec) -> Result<()> {
    use super::plan::{serve_kind, ServeKind};
    let kind = serve_kind(m);
    if kind == ServeKind::Decoder {
        return Ok(());
    }
    let flag = [
        (a.tpot.is_some(), "--tpot"),
        (
            kind == ServeKind::Opaque && a.job.output_tokens.is_some(),
            "--output-tokens",
        ),
        (
            kind == ServeKind::Opaque && a.job.input_tokens.is_some(),
            "--input-tokens",
        ),
    ]
    .into_iter()
    .find_map(|(given, flag)| given.then_some(flag));
    flag.map_or(Ok(()), |f| {
        Err(fail(
            Msg::new("cli-err-serve-flag-kind")
                .arg("flag", f)
                .arg("model", m.name.as_str())
                .arg("kind", kind.key()),
        ))
    })
}

/// The `--chips` word of a chip family.
fn chips_word(f: gpuplan_core::plan::ChipFamily) -> &'static str {
    use gpuplan_core::plan::ChipFamily;
    match f {
        ChipFamily::Nvidia => "nvidia",
        ChipFamily::Ascend => "ascend",
        ChipFamily::Amd => "amd",
    }
}

/// `--gpu` values the search could not plan: chips that `--chips` (default nvidia) leaves out
/// (`--gpu 910B` alone), or that no instance type of the catalog carries (`--gpu MI300X`). Both
/// ended in "no instance type matches the provider, region and chip filters", exit 4, naming
/// neither the flag nor the fix (audit r13 #8).
pub fn named_gpus_plannable(
    cat: &gpuplan_core::catalog::Catalog,
    a: &PlanArgs,
    chips: &[gpuplan_core::plan::ChipFamily],
) -> Result<()> {
    use gpuplan_core::plan::ChipFamily;
    for g in &a.gpus {
        let carried: Vec<&gpuplan_core::hardware::GpuSpec> = cat
            .gpus
            .iter()
            .filter(|x| super::catalog::gpu_query_matches(cat, &x.id, g))
            .filter(|x| cat.visible_instances().any(|i| i.gpu == x.id))
            .collect();
        if carried.is_empty() {
            return Err(fail(
                Msg::new("cli-err-gpu-no-instance").arg("value", g.as_str()),
            ));
        }
        if carried.iter().any(|x| chips.contains(&ChipFamily::of(x))) {
            continue;
        }
        let mut families: Vec<&str> = carried
            .iter()
            .map(|x| chips_word(ChipFamily::of(x)))
            .collect();
        families.sort_unstable();
        families.dedup();
        let asked: Vec<&str> = chips.iter().map(|c| chips_word(*c)).collect();
        let mut wanted = asked.clone();
        wanted.extend(families.iter().filter(|f| !asked.contains(f)));
        return Err(fail(
            Msg::new("cli-err-gpu-chips")
                .arg("value", g.as_str())
                .arg("families", families.join(", "))
                .arg("chips", asked.join(","))
                .arg("wanted", wanted.join(",")),
        ));
    }
    Ok(())
}

/// `--gpu` and `--family` values that match nothing in the catalog: bad input naming the value
/// and what exists, instead of an empty search ("no candidate instance type", exit 4).
pub fn filter_values_exist(cat: &gpuplan_core::catalog::Catalog, a: &PlanArgs) -> Result<()> {
    for g in &a.gpus {
        if g.trim().is_empty() {
            // An empty prefix matched every accelerator: the filter was silently ignored
            // (audit r12 #2).
            return Err(gpuplan_core::CoreError::invalid(
                "--gpu",
                "\"\"",
                "an accelerator id or name prefix, e.g. A100 (`gpuplan catalog gpus` lists them)",
            )
            .into());
        }
        super::catalog::check_gpu_known(cat, "--gpu", Some(g))?;
    }
    for f in &a.families {
        if !cat
            .instances
            .iter()
            .any(|i| i.family.eq_ignore_ascii_case(f))
        {
            let families: std::collections::BTreeSet<&str> =
                cat.instances.iter().map(|i| i.family.as_str()).collect();
            let close = gpuplan_core::error::close_names(f, families.into_iter());
            return Err(fail(
                Msg::new("cli-err-unknown-family")
                    .arg("value", f.as_str())
                    .arg("close", gpuplan_core::error::names_or_none(&close)),
            ));
        }
    }
    Ok(())
}
