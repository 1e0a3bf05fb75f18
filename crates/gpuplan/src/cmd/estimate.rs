//! `gpuplan estimate`: one job on one hardware description.

use super::{apply_sets, apply_training_flags, parse_word, read_workload, resolve_model};
use crate::cli::{EstimateArgs, Format, TaskArg};
use crate::exit;
use crate::render::{self, gib};
use anyhow::{Context, Result};
use gpuplan_core::constants::Tunables;
use gpuplan_core::job::{
    estimate_inference, estimate_training, model_summary, HardwareInput, InferenceEstimate,
    JobKind, TrainingEstimate, WorkloadFile,
};
use gpuplan_core::units::{format_count, Bandwidth, Seconds};
use gpuplan_core::workload::{InferenceSetup, TrainingSetup, WeightFormat};
use serde_json::json;

/// Everything resolved from file + flags.
struct Request {
    file: WorkloadFile,
    kind: JobKind,
    global_batch: Option<u64>,
    training: TrainingSetup,
    inference: InferenceSetup,
    hardware: HardwareInput,
    tunables: Tunables,
}

fn parse_weights(s: &str) -> Result<WeightFormat> {
    Ok(match s.to_lowercase().as_str() {
        "fp32" => WeightFormat::Fp32,
        "bf16" => WeightFormat::Bf16,
        "fp16" => WeightFormat::Fp16,
        "fp8" => WeightFormat::Fp8,
        "int8" => WeightFormat::Int8,
        "int4" | "awq" | "gptq" => WeightFormat::Int4 { group: 128 },
        other => match other.parse::<f64>() {
            Ok(bits) => WeightFormat::Bits { bits_per_weight: bits },
            Err(_) => anyhow::bail!("invalid --weights `{s}`: use fp32, bf16, fp16, fp8, int8, int4, or bits per weight such as 4.5 (GGUF Q4_K)"),
        },
    })
}

fn resolve(a: &EstimateArgs) -> Result<Request> {
    let j = &a.job;
    let file = read_workload(j)?;
    let mut training = file.training.clone().unwrap_or_default();
    let mut inference = file.inference.clone().unwrap_or_default();
    let mut hardware = file.hardware.clone().unwrap_or_default();
    let mut tunables = file.tunables.clone().unwrap_or_default();
    let mut kind = file
        .kind
        .unwrap_or(if file.inference.is_some() && file.training.is_none() {
            JobKind::Inference
        } else {
            JobKind::Training
        });
    match j.task {
        Some(TaskArg::Inference) => kind = JobKind::Inference,
        Some(_) => kind = JobKind::Training,
        None => {}
    }
    apply_training_flags(&mut training, j)?;
    // Hardware.
    if let Some(g) = &a.gpu {
        hardware.gpu = g.clone();
    }
    if let Some(n) = a.gpus_per_node {
        hardware.gpus_per_node = n;
    }
    if let Some(n) = a.nodes {
        hardware.nodes = n;
    }
    if let Some(l) = &a.inter_link {
        hardware.inter_link = parse_word("inter-link", l)?;
    }
    if let Some(g) = a.inter_gbit {
        hardware.inter_gbit = g;
    }
    // Training.
    let t = &mut training;
    macro_rules! set {
        ($flag:expr => $dst:expr) => {
            if let Some(v) = $flag {
                $dst = v;
            }
        };
    }
    set!(a.micro_batch => t.micro_batch);
    set!(a.grad_accum => t.grad_accum);
    set!(a.zero => t.parallel.zero);
    set!(a.tp => t.parallel.tp);
    set!(a.pp => t.parallel.pp);
    set!(a.ep => t.parallel.ep);
    t.parallel.sequence_parallel |= a.sequence_parallel;
    t.parallel.offload_optimizer |= a.offload_optimizer;
    t.parallel.offload_params |= a.offload_params;
    set!(a.cp => t.parallel.cp);
    set!(a.virtual_stages => t.parallel.virtual_stages);
    if a.last_stage_layers.is_some() {
        t.parallel.last_stage_layers = a.last_stage_layers;
    }
    if a.tp_comm_overlap.is_some() {
        t.parallel.tp_comm_overlap = a.tp_comm_overlap;
    }
    if a.overlap_grad_reduce.is_some() {
        t.parallel.overlap_grad_reduce = a.overlap_grad_reduce;
    }
    if a.overlap_param_gather.is_some() {
        t.parallel.overlap_param_gather = a.overlap_param_gather;
    }
    t.compiled |= a.compiled;
    if let Some(v) = &a.recompute {
        t.recompute = parse_word("recompute", v)?;
    }
    if let Some(v) = &a.attention {
        t.attention = parse_word("attention", v)?;
    }
    // Inference.
    let i = &mut inference;
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
    if a.max_model_len.is_some() {
        i.max_model_len = a.max_model_len;
    }
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

pub fn run(a: EstimateArgs, opts: &super::CatalogOpts) -> Result<u8> {
    let mut r = resolve(&a)?;
    let model = resolve_model(&a.job, &r.file)?;
    if r.kind == JobKind::Training {
        let explicit = a.job.seq_len.is_some()
            || r.training.seq_len != gpuplan_core::workload::DEFAULT_SEQ_LEN;
        if let Some(note) = gpuplan_core::workload::fit_seq_len(&mut r.training, &model, explicit)?
        {
            eprintln!("note: {note}");
        }
    }
    for w in &model.warnings {
        eprintln!("warning: {w}");
    }
    let cluster = match &a.instance {
        Some(id) => {
            let cat = super::load_catalog(opts)?;
            let inst = cat.find_instance(id)?;
            if !inst.gpu_is_mapped() || inst.vgpu {
                anyhow::bail!("instance `{id}` has an unmapped GPU or is a vGPU slice: estimate on --gpu instead");
            }
            let gpu = cat
                .gpu(&inst.gpu)
                .with_context(|| format!("GPU `{}` of `{id}` is not in the GPU table", inst.gpu))?;
            let (c, assumed) = gpuplan_core::plan::instance_cluster(inst, gpu, r.hardware.nodes)?;
            if let Some(note) = assumed {
                eprintln!("note: {note}");
            }
            c
        }
        None => match r.hardware.cluster() {
            Ok(c) => c,
            // Not a built-in accelerator: one from a user catalog or --catalog FILE.
            Err(e) => {
                let cat = super::load_catalog(opts)?;
                match cat
                    .gpus
                    .iter()
                    .find(|g| g.id.eq_ignore_ascii_case(&r.hardware.gpu))
                {
                    Some(g) => r.hardware.cluster_on(g)?,
                    None => return Err(e.into()),
                }
            }
        },
    };
    match r.kind {
        JobKind::Training => {
            // Switch what the chip cannot run (bf16 on Turing/Volta, FlashAttention-2) unless the
            // flag chose it; a chosen one the chip lacks is an error naming the field.
            let pinned = gpuplan_core::chip::Pinned {
                precision: a.job.precision.is_some(),
                attention: a.attention.is_some(),
            };
            let (t, notes) = gpuplan_core::chip::adapt(&model, &r.training, &cluster.gpu, pinned);
            for n in notes {
                eprintln!("note: {n}");
            }
            r.training = t;
            if let Some(g) = r.global_batch {
                r.training.grad_accum =
                    gpuplan_core::train::grad_accum_for_global(g, &r.training, &cluster)?;
            }
            let e = estimate_training(&model, &r.training, &cluster, &r.tunables)?;
            match a.format {
                Format::Json => outln!(
                    "{}",
                    render::json(
                        "training_estimate",
                        &json!({
                            "model": model_summary(&model), "setup": r.training, "hardware": cluster,
                            "tunables": r.tunables, "estimate": e
                        })
                    )?
                ),
                f => out!(
                    "{}",
                    training_report(&model, &r, &cluster, &e, f == Format::Markdown)
                ),
            }
            Ok(if e.fits { 0 } else { exit::DOES_NOT_FIT })
        }
        JobKind::Inference => {
            let e = estimate_inference(&model, &r.inference, &cluster, &r.tunables)?;
            match a.format {
                Format::Json => outln!(
                    "{}",
                    render::json(
                        "inference_estimate",
                        &json!({
                            "model": model_summary(&model), "setup": r.inference, "hardware": cluster,
                            "tunables": r.tunables, "estimate": e
                        })
                    )?
                ),
                f => out!(
                    "{}",
                    inference_report(&model.name, &r, &e, f == Format::Markdown)
                ),
            }
            Ok(if e.memory.fits { 0 } else { exit::DOES_NOT_FIT })
        }
    }
}

/// The step's liveness timeline: live GiB per phase by component, the peak marked.
fn timeline_block(m: &gpuplan_core::train::TrainingMemory, md: bool) -> String {
    let tl = &m.timeline;
    let rows: Vec<Vec<String>> = tl
        .phases
        .iter()
        .enumerate()
        .map(|(i, p)| {
            let parts = p
                .components
                .iter()
                .map(|(n, b)| format!("{n} {:.2}", b.gib()))
                .collect::<Vec<_>>()
                .join(", ");
            let mark = if i == tl.peak_index { " ← peak" } else { "" };
            vec![format!("{}{mark}", p.phase), gib(p.total), parts]
        })
        .collect();
    format!(
        "\nstep timeline (live allocated GiB; saved after forward {})\n{}",
        gib(m.saved_after_forward),
        render::block(md, &["phase", "GiB", "live by component (GiB)"], &rows)
    )
}

fn pct(x: f64) -> String {
    format!("{:.1}%", x * 100.0)
}

fn training_report(
    model: &gpuplan_core::model::ModelSpec,
    r: &Request,
    c: &gpuplan_core::hardware::ClusterSpec,
    e: &TrainingEstimate,
    md: bool,
) -> String {
    let (name, (unit, _)) = (&model.name, gpuplan_core::chip::work_unit(model));
    let s = &r.training;
    let p = &s.parallel;
    // CNN/UNet jobs have no sequence length.
    let seq = if model.transformer().is_some() {
        format!("seq {} × ", s.seq_len)
    } else {
        String::new()
    };
    let mut out = format!(
        "{name}: {:?}, {:?}, {:?}, {seq}micro-batch {} × accum {}, {:?} recompute, {:?} attention, {:?} profile\n\
         hardware: {} × {} {} ({} inside, {} {} between nodes); TP {} PP {} DP {} EP {} ZeRO-{}{}{}\n\n",
        s.task, s.precision, s.optimizer, s.micro_batch, s.grad_accum, s.recompute, s.attention, s.framework,
        c.nodes, c.gpus_per_node, c.gpu.name, c.intra_bandwidth, c.inter_link.name(), c.inter_bandwidth,
        p.tp, p.pp, e.memory.data_parallel, p.ep, p.zero,
        if p.offload_optimizer { " +optimizer offload" } else { "" },
        if p.offload_params { " +param offload" } else { "" },
    );
    let mut rows: Vec<Vec<String>> = e
        .memory
        .items
        .iter()
        .map(|i| vec![i.name.to_string(), gib(i.bytes), i.basis.clone()])
        .collect();
    rows.push(vec![
        "peak allocated (torch)".into(),
        gib(e.memory.peak_allocated),
        String::new(),
    ]);
    rows.push(vec![
        "needed per device".into(),
        gib(e.memory.device_total),
        match c.gpu.memory_gib {
            None => format!(
                "{} has no sourced memory size: cannot say whether it fits",
                c.gpu.name
            ),
            Some(m) if e.fits => format!("{m} GiB on {} → fits", c.gpu.name),
            Some(m) => format!(
                "{m} GiB on {} → DOES NOT FIT (short by {:.1} GiB)",
                c.gpu.name,
                e.memory.device_total.gib() - m
            ),
        },
    ]);
    if e.memory.cpu_offload.0 > 0.0 {
        rows.push(vec![
            "host RAM for offload (per GPU)".into(),
            gib(e.memory.cpu_offload),
            String::new(),
        ]);
    }
    out.push_str(&format!(
        "memory per device ({} params, {} trainable)\n",
        format_count(e.memory.params_per_device),
        format_count(e.memory.trainable_params_per_device)
    ));
    out.push_str(&render::block(md, &["component", "GiB", "how"], &rows));
    out.push_str(&timeline_block(&e.memory, md));
    match &e.step {
        Some(st) => {
            let share = |x: Seconds| pct(x.0 / st.step.0);
            let rows = vec![
                vec![
                    "compute".into(),
                    format!("{}", st.compute),
                    share(st.compute),
                    format!(
                        "{} peak × {} ({})",
                        st.peak, st.efficiency_used, st.efficiency_name
                    ),
                ],
                vec![
                    "pipeline bubble".into(),
                    format!("{}", st.pipeline_bubble),
                    share(st.pipeline_bubble),
                    format!(
                        "(p−1)/(v·m) with p={}, v={}, m={}",
                        p.pp, p.virtual_stages, s.grad_accum
                    ),
                ],
                vec![
                    "tensor-parallel comm (exposed)".into(),
                    format!("{}", st.tp_comm),
                    share(st.tp_comm),
                    if st.tp_comm_overlapped.0 > 0.0 {
                        format!(
                            "{} hidden behind GEMMs (TP-comm overlap)",
                            st.tp_comm_overlapped
                        )
                    } else {
                        "all-reduces per layer and pass, not overlapped".into()
                    },
                ],
                vec![
                    "context-parallel K/V (exposed)".into(),
                    format!("{}", st.cp_comm),
                    share(st.cp_comm),
                    "ring attention, overlapped with attention compute".into(),
                ],
                vec![
                    "data-parallel comm (exposed)".into(),
                    format!("{}", st.dp_comm_exposed),
                    share(st.dp_comm_exposed),
                    format!("{} total over {}", st.dp_comm_total, st.dp_link),
                ],
                vec![
                    "pipeline p2p".into(),
                    format!("{}", st.pp_comm),
                    share(st.pp_comm),
                    String::new(),
                ],
                vec![
                    "expert all-to-all".into(),
                    format!("{}", st.ep_comm),
                    share(st.ep_comm),
                    String::new(),
                ],
                vec![
                    "step".into(),
                    format!("{}", st.step),
                    "100%".into(),
                    format!("bottleneck: {}", st.bottleneck),
                ],
            ];
            out.push_str("time per optimizer step\n");
            out.push_str(&render::block(md, &["part", "time", "share", "how"], &rows));
            out.push_str(&format!(
                "throughput: {:.0} {unit}/s ({:.0} per GPU), MFU {} (HFU {}); {:.0} TFLOP/s per GPU in model FLOPs, {:.0} in hardware FLOPs (with recompute)\n",
                st.tokens_per_second,
                st.tokens_per_second_per_gpu,
                pct(st.mfu),
                pct(st.hfu),
                st.model_tflops_per_gpu,
                st.hardware_tflops_per_gpu
            ));
            if !st.collectives.is_empty() {
                let rows: Vec<Vec<String>> = st
                    .collectives
                    .iter()
                    .map(|c| {
                        vec![
                            c.kind.to_string(),
                            c.collective.clone(),
                            c.link.clone(),
                            if c.effective_bandwidth.0 > 0.0 {
                                format!("{}", c.effective_bandwidth)
                            } else {
                                "–".into()
                            },
                            format!("{}", c.total),
                            format!("{}", c.overlapped),
                        ]
                    })
                    .collect();
                out.push_str("collectives per optimizer step\n");
                out.push_str(&render::block(
                    md,
                    &[
                        "kind",
                        "collective",
                        "link",
                        "effective bandwidth",
                        "time",
                        "overlapped",
                    ],
                    &rows,
                ));
            }
        }
        None => out.push_str(&format!(
            "time: not estimated: {}\n",
            e.step_unavailable.clone().unwrap_or_default()
        )),
    }
    if let Some(t) = &e.totals {
        out.push_str(&format!(
            "job: {} {unit} in {:.0} steps: {} wall-clock, {:.0} GPU-hours ({:.2e} model FLOPs)\n",
            format_count(t.tokens),
            t.steps,
            t.wall_time,
            t.gpu_hours,
            t.total_flops.0
        ));
    } else {
        out.push_str(
            "job: give --tokens (or --samples and --epochs) for wall-clock time and GPU-hours\n",
        );
    }
    if let Some(d) = &e.data_path {
        out.push_str(&format!(
            "data: {:.1} samples/s → read {}{}; checkpoint {} (weights {}), write at 1 GB/s: {}\n",
            d.samples_per_second,
            d.read_bandwidth,
            d.cpu_cores_for_decode
                .map(|c| format!(", ~{:.0} host CPU cores for decode/augment", c.ceil()))
                .unwrap_or_default(),
            d.checkpoint_size,
            d.weights_size,
            gpuplan_core::units::transfer_time(d.checkpoint_size, Bandwidth::from_gb_per_s(1.0))
        ));
    }
    out
}

/// The KV pool row; a pool below zero is shown as 0 with the shortfall, never as negative memory.
fn kv_pool_row(m: &gpuplan_core::infer::ServingMemory) -> Vec<String> {
    let per = format!(
        "{} B/token/GPU ({} KV heads per GPU)",
        m.kv_per_token.per_device.0, m.kv_per_token.heads_per_device
    );
    if m.kv_shortfall.0 <= 0.0 {
        vec!["KV pool".into(), gib(m.kv_pool), per]
    } else {
        vec![
            "KV pool".into(),
            "0.00".into(),
            format!(
                "none: the budget is short by {:.2} GiB; {per}",
                m.kv_shortfall.gib()
            ),
        ]
    }
}

fn inference_report(name: &str, r: &Request, e: &InferenceEstimate, md: bool) -> String {
    let s = &r.inference;
    let m = &e.memory;
    let mut out = format!(
        "{name}: serve with {} weights, {:?} KV cache, TP {}, gpu_memory_utilization {}, max_model_len {}\n\n",
        s.weights.name(),
        s.kv_dtype,
        s.tp,
        s.gpu_memory_utilization,
        m.max_model_len
    );
    let rows = vec![
        vec![
            "budget (util × visible total)".into(),
            gib(m.budget),
            String::new(),
        ],
        vec![
            "weights".into(),
            gib(m.weights),
            format!("{} bits/weight on linears", s.weights.bits()),
        ],
        vec![
            "activation peak (profile run)".into(),
            gib(m.activation_peak),
            "max_num_batched_tokens × per-token MLP workspace".into(),
        ],
        vec![
            "non-torch + CUDA graphs".into(),
            gib(m.non_torch + m.cudagraph),
            "tunables vllm_non_torch_gib, vllm_cudagraph_gib".into(),
        ],
        kv_pool_row(m),
    ];
    out.push_str("memory per GPU (vLLM sizing)\n");
    out.push_str(&render::block(md, &["component", "GiB", "how"], &rows));
    out.push_str(&format!(
        "KV capacity: {} blocks × {} = {} tokens; max concurrency at max_model_len: {:.2}; {} requests of {}+{} tokens at once; longest context at batch {}: {}\n",
        m.blocks, s.block_size, m.kv_tokens, m.max_concurrency_at_max_len, m.max_concurrent_requests, s.input_tokens, s.output_tokens, s.batch, m.max_context_at_batch
    ));
    if let Some(p) = &m.problem {
        out.push_str(&format!("PROBLEM: {p}\n"));
    }
    match &e.latency {
        Some(l) => out.push_str(&format!(
            "latency: TTFT {} for {} prompt tokens; {} per output token at batch {} ({:.0} tokens/s, {}; ridge batch ≈ {:.0})\n",
            l.ttft,
            s.input_tokens,
            l.time_per_token,
            s.batch,
            l.decode_tokens_per_second,
            if l.decode_bandwidth_bound { "bandwidth-bound" } else { "compute-bound" },
            l.ridge_batch
        )),
        None => out.push_str(&format!("latency: not estimated: {}\n", e.latency_unavailable.clone().unwrap_or_default())),
    }
    out
}
