//! `gpuplan plan`: the main job. Reads the workload (flags / TOML), searches the catalog, renders
//! the ranked plans in English or Chinese, as a table, Markdown or JSON.

use super::{
    apply_sets, apply_training_flags, load_catalog, parse_word, read_workload, resolve_model,
    CatalogOpts,
};
use crate::cli::{Format, Lang, OptimizeArg, PlanArgs, ProviderArg, TaskArg};
use crate::render;
use anyhow::{Context, Result};
use gpuplan_core::catalog::{Billing, PriceKind, Provider};
use gpuplan_core::plan::advice::Severity;
use gpuplan_core::plan::{
    plan, BillingChoice, ChipFamily, Job, Objective, Plan, PlanOutcome, PlanRequest, ServeJob,
    SoftwareFramework,
};
use gpuplan_core::units::format_count;
use gpuplan_core::workload::{TrainTask, TrainingSetup, WeightFormat};

/// Exit code when no plan satisfies the constraints (README.md).
pub const NO_PLAN: u8 = 4;

fn lang(a: Option<Lang>) -> Lang {
    a.unwrap_or_else(|| {
        let l = std::env::var("LC_ALL")
            .or_else(|_| std::env::var("LANG"))
            .unwrap_or_default();
        if l.to_lowercase().starts_with("zh") {
            Lang::Zh
        } else {
            Lang::En
        }
    })
}

fn parse_hours(s: &str) -> Result<f64> {
    let t = s.trim().to_lowercase();
    let (num, mult) = if let Some(x) = t.strip_suffix('d') {
        (x, 24.0)
    } else if let Some(x) = t.strip_suffix('h') {
        (x, 1.0)
    } else {
        (t.as_str(), 1.0)
    };
    let v: f64 = num
        .trim()
        .parse()
        .with_context(|| format!("--deadline `{s}`: expected hours (24), or 24h / 30d"))?;
    // The range (more than 0, at most 10 years) is checked by Constraints::validate.
    Ok(v * mult)
}

/// A size with an optional unit: `30TB`, `500GiB`, `1.5e12` (bytes). Decimal units are powers of
/// 1000 (as storage is sold), binary units (KiB…PiB) powers of 1024.
fn parse_size(s: &str) -> Result<f64> {
    let t = s.trim().to_lowercase();
    let units: [(&str, f64); 11] = [
        ("pib", 1024f64.powi(5)),
        ("tib", 1024f64.powi(4)),
        ("gib", 1024f64.powi(3)),
        ("mib", 1024f64.powi(2)),
        ("kib", 1024.0),
        ("pb", 1e15),
        ("tb", 1e12),
        ("gb", 1e9),
        ("mb", 1e6),
        ("kb", 1e3),
        ("b", 1.0),
    ];
    let (num, mult) = units
        .iter()
        .find_map(|(u, m)| t.strip_suffix(u).map(|n| (n, *m)))
        .unwrap_or((t.as_str(), 1.0));
    let v: f64 = num.trim().parse().with_context(|| {
        format!("--dataset-size `{s}`: expected a size such as 30TB, 500GiB or 1.5e12 (bytes)")
    })?;
    let bytes = v * mult;
    if !(bytes.is_finite() && bytes > 0.0 && bytes <= MAX_DATASET_BYTES) {
        anyhow::bail!("--dataset-size `{s}`: must be a positive size up to 1 EB");
    }
    Ok(bytes)
}

/// When the user set no token counts, shorten the default prompt (1000 + 300) to what the model
/// reads: encoders take only an input of at most their context (BERT 512, one output "token");
/// decoders keep input + output within the context.
fn fit_default_prompt(
    s: &mut ServeJob,
    model: &gpuplan_core::model::ModelSpec,
    j: &crate::cli::JobArgs,
    from_file: bool,
) -> Option<String> {
    if from_file || j.input_tokens.is_some() || j.output_tokens.is_some() {
        return None;
    }
    let t = model.transformer()?;
    let ctx = t.max_context;
    let encoder = t.structure == gpuplan_core::model::Structure::EncoderOnly;
    if encoder {
        s.output_tokens = 1;
    }
    let room = if encoder {
        ctx
    } else {
        ctx.saturating_sub(s.output_tokens)
    };
    if s.input_tokens <= room || room == 0 {
        return encoder.then(|| format!("serving {}: one forward per request of {} input tokens (set --input-tokens to change it)", model.name, s.input_tokens));
    }
    s.input_tokens = room;
    Some(format!(
        "default prompt shortened to {room} input tokens to fit {}'s {ctx}-token context (set --input-tokens/--output-tokens to change it)",
        model.name
    ))
}

/// Most serving replicas accepted as a floor.
const MAX_REPLICAS: u64 = 10_000;

/// Largest dataset accepted (1 EB): beyond any storage class sold.
const MAX_DATASET_BYTES: f64 = 1e18;

fn build_request(a: &PlanArgs) -> Result<PlanRequest> {
    let j = &a.job;
    let file = read_workload(j)?;
    let model = resolve_model(j, &file)?;
    let mut tun = file.tunables.clone().unwrap_or_default();
    apply_sets(&mut tun, &j.set)?;
    let mut c = file.constraints.clone().unwrap_or_default();
    if !a.provider.is_empty() {
        c.providers = a
            .provider
            .iter()
            .map(|p| match p {
                ProviderArg::Alibaba => Provider::Alibaba,
                ProviderArg::Huawei => Provider::Huawei,
                ProviderArg::Tencent => Provider::Tencent,
            })
            .collect();
    }
    if !a.region.is_empty() {
        c.regions = a.region.clone();
    }
    if let Some(ch) = &a.chips {
        c.chips = ch
            .split(',')
            .map(|x| parse_word::<ChipFamily>("chips", x.trim()))
            .collect::<Result<_>>()?;
    }
    if let Some(f) = &a.framework {
        c.framework = parse_word::<SoftwareFramework>("framework", f)?;
    }
    if let Some(d) = &a.deadline {
        c.deadline_hours = Some(parse_hours(d)?);
    }
    if a.budget.is_some() {
        c.budget_cny = a.budget;
    }
    if let Some(n) = a.max_nodes {
        c.max_nodes = n;
    }
    if let Some(b) = &a.billing {
        c.billing = parse_word::<BillingChoice>("billing", &b.replace('-', "_"))?;
    }
    c.interruptible |= a.interruptible;
    if let Some(r) = a.preemption_rate {
        c.preemption_rate = r;
    }
    if let Some(r) = a.reuse_hours {
        c.reuse_hours_per_month = r;
    }
    c.validate()?;
    check_top(a.top)?;
    if c.billing == BillingChoice::Spot && !c.interruptible {
        anyhow::bail!("--billing spot needs --interruptible: spot instances are reclaimed, so the job must checkpoint and resume");
    }
    let serve_task = matches!(j.task, Some(TaskArg::Inference))
        || (j.task.is_none() && file.serve.is_some() && file.training.is_none());
    if !serve_task {
        if let Some(flag) = serving_flag(a) {
            anyhow::bail!("{flag} is a serving flag: add --task inference (or remove {flag} to plan training)");
        }
    }
    let job = if serve_task {
        let mut s = file.serve.clone().unwrap_or_else(ServeJob::default);
        if let Some(x) = a.rate {
            s.rate_rps = Some(x);
        }
        if let Some(x) = a.concurrency {
            s.concurrency = Some(x);
        }
        if let Some(x) = j.input_tokens {
            s.input_tokens = x;
        }
        if let Some(x) = j.output_tokens {
            s.output_tokens = x;
        }
        if let Some(note) = fit_default_prompt(&mut s, &model, j, file.serve.is_some()) {
            eprintln!("note: {note}");
        }
        if let Some(x) = a.ttft {
            s.ttft_s = Some(x);
        }
        if let Some(x) = a.tpot {
            s.tpot_s = Some(x);
        }
        if let Some(x) = a.min_replicas {
            s.min_replicas = x;
        }
        if let Some(x) = a.peak_factor {
            s.peak_factor = x;
        }
        if !(1..=MAX_REPLICAS).contains(&s.min_replicas) {
            anyhow::bail!(
                "min_replicas {}: give 1 to {MAX_REPLICAS} (--min-replicas or [serve] min_replicas)",
                s.min_replicas
            );
        }
        if !(s.peak_factor.is_finite() && (1.0..=100.0).contains(&s.peak_factor)) {
            anyhow::bail!(
                "peak_factor {}: give a multiple of the stated load from 1 to 100, e.g. 1.5 (--peak-factor or [serve] peak_factor)",
                s.peak_factor
            );
        }
        if let Some(w) = &a.weights {
            s.weights = w
                .split(',')
                .map(|x| match x.trim() {
                    "bf16" => Ok(WeightFormat::Bf16),
                    "fp16" => Ok(WeightFormat::Fp16),
                    "fp8" => Ok(WeightFormat::Fp8),
                    "int8" => Ok(WeightFormat::Int8),
                    "int4" => Ok(WeightFormat::Int4 { group: 128 }),
                    o => Err(anyhow::anyhow!(
                        "--weights `{o}`: use bf16, fp16, fp8, int8 or int4"
                    )),
                })
                .collect::<Result<_>>()?;
        }
        Job::Serve(s)
    } else {
        let mut t: TrainingSetup = file.training.clone().unwrap_or_default();
        apply_training_flags(&mut t, j)?;
        if a.bytes_per_sample.is_some() {
            t.bytes_per_sample = a.bytes_per_sample;
        }
        if let Some(d) = &a.dataset_size {
            t.dataset_bytes = Some(parse_size(d)?);
        }
        let explicit = j.seq_len.is_some() || t.seq_len != gpuplan_core::workload::DEFAULT_SEQ_LEN;
        if let Some(note) = gpuplan_core::workload::fit_seq_len(&mut t, &model, explicit)? {
            eprintln!("note: {note}");
        }
        Job::Train {
            setup: t,
            global_batch: a.global_batch.or(file.global_batch),
            precision_pinned: j.precision.is_some(),
        }
    };
    let objective = match a.optimize {
        OptimizeArg::Cost => file.objective.unwrap_or(Objective::Cost),
        OptimizeArg::Time => Objective::Time,
        OptimizeArg::Balanced => Objective::Balanced,
    };
    Ok(PlanRequest {
        model,
        job,
        constraints: c,
        objective,
        tunables: tun,
    })
}

/// Most plans `--top` may show.
pub const MAX_TOP: usize = 1000;

fn check_top(top: usize) -> Result<()> {
    if !(1..=MAX_TOP).contains(&top) {
        anyhow::bail!("invalid --top {top}: plans to show, 1–{MAX_TOP}");
    }
    Ok(())
}

/// The first serving-only flag given, for the "add --task inference" hint.
fn serving_flag(a: &PlanArgs) -> Option<&'static str> {
    [
        (a.rate.is_some(), "--rate"),
        (a.concurrency.is_some(), "--concurrency"),
        (a.ttft.is_some(), "--ttft"),
        (a.tpot.is_some(), "--tpot"),
        (a.weights.is_some(), "--weights"),
        (a.job.input_tokens.is_some(), "--input-tokens"),
        (a.job.output_tokens.is_some(), "--output-tokens"),
    ]
    .into_iter()
    .find_map(|(given, flag)| given.then_some(flag))
}

pub fn run(a: PlanArgs, opts: &CatalogOpts) -> Result<u8> {
    let req = build_request(&a)?;
    for w in &req.model.warnings {
        eprintln!("warning: {w}");
    }
    let mut cat = load_catalog(opts)?;
    let today = super::prices::today_secs();
    if let Some(s) = &a.max_price_age {
        let max = super::prices::parse_age_days(s)?;
        let before = cat.prices.len();
        cat.prices
            .retain(|p| super::prices::age_days(&p.as_of, today).is_some_and(|d| d <= max));
        let dropped = before - cat.prices.len();
        if dropped > 0 {
            eprintln!(
                "note: --max-price-age {s}: {dropped} price(s) older than {max} days are ignored"
            );
        }
    }
    let out = plan(&req, &cat)?;
    let ages = super::prices::plan_price_ages(&out.plans, a.top.max(1), today);
    for w in super::prices::stale_warnings(&ages) {
        eprintln!("warning: {w}");
    }
    let l = lang(a.lang);
    match a.format {
        Format::Json => outln!(
            "{}",
            render::json(
                "plan",
                &serde_json::json!({ "request": request_json(&req), "outcome": trimmed(&out, a.top), "price_ages": ages })
            )?
        ),
        f => out!(
            "{}",
            report(&req, &out, a.top, a.explain, l, f == Format::Markdown)
        ),
    }
    Ok(if out.plans.is_empty() { NO_PLAN } else { 0 })
}

fn request_json(r: &PlanRequest) -> serde_json::Value {
    serde_json::json!({ "model": r.model.name, "job": r.job, "constraints": r.constraints, "objective": r.objective, "tunables": r.tunables })
}

fn trimmed(o: &PlanOutcome, top: usize) -> serde_json::Value {
    serde_json::json!({
        "plans": o.plans.iter().take(top.max(1)).collect::<Vec<_>>(),
        "pareto": o.pareto.iter().filter(|i| **i < top.max(1)).collect::<Vec<_>>(),
        "total_plans": o.plans.len(),
        "rejected": o.rejected,
        "stats": o.stats,
    })
}

struct T {
    zh: bool,
}

impl T {
    fn s<'a>(&self, en: &'a str, zh: &'a str) -> &'a str {
        if self.zh {
            zh
        } else {
            en
        }
    }
}

fn billing_name(b: Billing, t: &T) -> &'static str {
    match (b, t.zh) {
        (Billing::OnDemand, false) => "on-demand",
        (Billing::Monthly, false) => "monthly",
        (Billing::Spot, false) => "spot",
        (Billing::OnDemand, true) => "按量",
        (Billing::Monthly, true) => "包月",
        (Billing::Spot, true) => "抢占式",
    }
}

fn kind_name(k: PriceKind, t: &T) -> &'static str {
    match (k, t.zh) {
        (PriceKind::List, false) => "list",
        (PriceKind::User, false) => "user",
        (PriceKind::Estimate, false) => "estimate",
        (PriceKind::List, true) => "公开价",
        (PriceKind::User, true) => "自有价",
        (PriceKind::Estimate, true) => "估算",
        (PriceKind::Api, false) => "api",
        (PriceKind::Api, true) => "接口价",
    }
}

fn hours(h: f64, t: &T) -> String {
    if h >= 72.0 {
        format!("{:.1} {}", h / 24.0, t.s("d", "天"))
    } else {
        format!("{h:.1} {}", t.s("h", "小时"))
    }
}

fn config(p: &Plan, t: &T) -> String {
    if let Some(x) = &p.train {
        let s = &x.setup;
        format!(
            "TP{} PP{}{} DP{}{}{} ZeRO-{} {}mb{}×{}",
            s.parallel.tp,
            s.parallel.pp,
            if s.parallel.virtual_stages > 1 {
                format!("×v{}", s.parallel.virtual_stages)
            } else {
                String::new()
            },
            x.memory.data_parallel,
            if s.parallel.cp > 1 {
                format!(" CP{}", s.parallel.cp)
            } else {
                String::new()
            },
            if s.parallel.ep > 1 {
                format!(" EP{}", s.parallel.ep)
            } else {
                String::new()
            },
            s.parallel.zero,
            match s.recompute {
                gpuplan_core::workload::Recompute::Full => t.s("recompute ", "重计算 "),
                gpuplan_core::workload::Recompute::Selective =>
                    t.s("sel-recompute ", "选择性重计算 "),
                gpuplan_core::workload::Recompute::SelectiveOp =>
                    t.s("op-recompute ", "逐算子重计算 "),
                gpuplan_core::workload::Recompute::None => "",
            },
            s.micro_batch,
            s.grad_accum
        )
    } else if let Some(s) = &p.serve {
        format!(
            "{} TP{} × {} {} {}",
            s.weights.name(),
            s.tp,
            s.replicas,
            t.s("replicas, batch", "副本，批"),
            s.batch_per_replica
        )
    } else {
        String::new()
    }
}

fn cost(p: &Plan, t: &T, serve: bool) -> String {
    match &p.chosen {
        Some(c) => format!(
            "¥{:.0}{} ({}, {} {})",
            c.cny,
            if serve { t.s("/month", "/月") } else { "" },
            billing_name(c.billing, t),
            kind_name(c.price.kind, t),
            c.price.as_of
        ),
        None => t.s("no price known", "无已知价格").to_string(),
    }
}

fn mem_label(name: &str, t: &T) -> String {
    if !t.zh {
        return name.to_string();
    }
    match name {
        "weights" => "权重",
        "gradients" => "梯度",
        "optimizer states + master weights" => "优化器状态 + 主权重",
        "base weights (frozen)" => "基座权重（冻结）",
        "LoRA adapters + grads + optimizer" => "LoRA 适配器 + 梯度 + 优化器",
        "ZeRO-3 gather buffers" => "ZeRO-3 聚合缓冲",
        "activations" => "激活值",
        "logits + loss" => "logits + 损失",
        "layer working set" => "单层反向工作集",
        "autocast weight copies" => "autocast 权重副本",
        "optimizer temporaries" => "优化器临时缓冲",
        "allocator fragmentation" => "显存碎片",
        "CUDA context" => "CUDA 上下文",
        "CANN runtime context" => "CANN 运行时上下文",
        "NCCL buffers" => "NCCL 缓冲",
        "HCCL buffers" => "HCCL 缓冲",
        other => other,
    }
    .to_string()
}

fn report(
    req: &PlanRequest,
    o: &PlanOutcome,
    top: usize,
    explain: bool,
    l: Lang,
    md: bool,
) -> String {
    let t = T { zh: l == Lang::Zh };
    let serve = matches!(req.job, Job::Serve(_));
    let tab = |h: &[&str], rows: &[Vec<String>]| render::block(md, h, rows);
    let mut out = String::new();
    let what = match &req.job {
        Job::Train { setup, .. } => format!(
            "{} {}, {}{} {}",
            req.model.name,
            match (setup.task, t.zh) {
                (TrainTask::Pretrain, false) => "pretraining",
                (TrainTask::FullFinetune, false) => "full fine-tune",
                (TrainTask::Lora, false) => "LoRA",
                (TrainTask::Qlora, false) => "QLoRA",
                (TrainTask::Pretrain, true) => "预训练",
                (TrainTask::FullFinetune, true) => "全参微调",
                (TrainTask::Lora, true) => "LoRA 微调",
                (TrainTask::Qlora, true) => "QLoRA 微调",
            },
            // CNN/UNet jobs have no sequence length.
            if req.model.transformer().is_some() {
                format!("{} {}, ", t.s("seq", "序列长度"), setup.seq_len)
            } else {
                String::new()
            },
            gpuplan_core::train::job_tokens(&req.model, setup)
                .map(format_count)
                .unwrap_or_else(|| "?".into()),
            if req.model.transformer().is_some() {
                "tokens"
            } else {
                t.s("samples", "样本")
            }
        ),
        Job::Serve(s) => format!(
            "{} {}, {}+{} tokens{}{}",
            req.model.name,
            t.s("serving", "推理服务"),
            s.input_tokens,
            s.output_tokens,
            s.rate_rps
                .map(|r| format!(", {r} req/s"))
                .unwrap_or_default(),
            s.ttft_s
                .map(|x| format!(", TTFT < {x} s"))
                .unwrap_or_default()
        ),
    };
    out.push_str(&format!(
        "{}: {what}\n{}\n\n",
        t.s("gpuplan plan", "gpuplan 方案"),
        if t.zh {
            format!(
                "搜索了 {} 个实例规格中的 {} 个候选，评估 {} 种配置，共 {} 个可行方案",
                o.stats.instance_types,
                o.stats.candidates,
                o.stats.configurations,
                o.plans.len()
            )
        } else {
            format!(
                "searched {} candidates of {} instance types, {} configurations, {} feasible plans",
                o.stats.candidates,
                o.stats.instance_types,
                o.stats.configurations,
                o.plans.len()
            )
        }
    ));
    if o.plans.is_empty() {
        out.push_str(t.s(
            "NO PLAN satisfies the constraints.\n",
            "没有满足约束的方案。\n",
        ));
        for b in &o.rejected {
            out.push_str(&format!(
                "- {} [{}]\n",
                if t.zh { &b.message_zh } else { &b.message_en },
                b.constraint
            ));
        }
        return out;
    }
    let header: Vec<&str> = vec![
        "#",
        t.s("plan", "方案"),
        t.s("provider", "云厂商"),
        "GPU",
        t.s("time", "时长"),
        t.s("cost", "费用"),
        t.s("parallelism / serving", "并行 / 部署"),
        t.s("GiB/GPU", "每卡显存"),
        t.s("bottleneck", "瓶颈"),
    ];
    let rows: Vec<Vec<String>> = o
        .plans
        .iter()
        .take(top.max(1))
        .enumerate()
        .map(|(i, p)| {
            let mem = p
                .train
                .as_ref()
                .map(|x| x.memory.device_total.gib())
                .or(p
                    .serve
                    .as_ref()
                    .map(|s| (s.memory.weights + s.memory.kv_pool).gib()))
                .unwrap_or(0.0);
            vec![
                format!("{}{}", i + 1, if o.pareto.contains(&i) { "*" } else { "" }),
                format!("{} × {}", p.nodes, p.instance.id),
                p.instance.provider.name().to_string(),
                format!("{} × {}", p.total_gpus, p.gpu.id),
                if serve {
                    t.s("per month", "按月").to_string()
                } else {
                    hours(p.hours, &t)
                },
                cost(p, &t, serve),
                config(p, &t),
                format!("{mem:.1}/{:.0}", p.gpu.memory_gib.unwrap_or(0.0)),
                bottleneck_name(
                    p.train
                        .as_ref()
                        .map(|x| x.step.bottleneck)
                        .or(p.serve.as_ref().map(|s| {
                            if s.latency.decode_bandwidth_bound {
                                "memory-bandwidth"
                            } else {
                                "compute"
                            }
                        }))
                        .unwrap_or(""),
                    &t,
                ),
            ]
        })
        .collect();
    out.push_str(&tab(&header, &rows));
    for (i, p) in o.plans.iter().take(top.max(1)).enumerate() {
        if !p.also.is_empty() {
            let also = p.also.join(t.s(", ", "、"));
            out.push_str(&if t.zh {
                format!("与方案 {} 相同：{also}\n", i + 1)
            } else {
                format!("same answer as plan {}: {also}\n", i + 1)
            });
        }
    }
    if o.plans.iter().take(top.max(1)).any(|p| p.chosen.is_none()) {
        out.push_str(t.s(
            "plans without a known price are ranked after priced ones, by GPU-hours (import prices: `gpuplan catalog import`)\n",
            "无已知价格的方案排在有价格的方案之后，按卡时排序（导入价格：gpuplan catalog import）\n",
        ));
    }
    out.push_str(t.s(
        "* = on the cost-vs-time Pareto frontier\n\n",
        "* = 位于费用-时间帕累托前沿\n\n",
    ));
    let p = &o.plans[0];
    out.push_str(&format!(
        "{} 1: {} × {} ({})\n",
        t.s("Plan", "方案"),
        p.nodes,
        p.instance.id,
        p.gpu.name
    ));
    for c in &p.caveats {
        out.push_str(&format!("  ! {c}\n"));
    }
    if let Some(x) = &p.train {
        let rows: Vec<Vec<String>> = x
            .memory
            .items
            .iter()
            .map(|i| {
                vec![
                    mem_label(i.name, &t),
                    format!("{:.2}", i.bytes.gib()),
                    i.basis.clone(),
                ]
            })
            .collect();
        out.push_str(&format!(
            "{} ({} {}, {:.2} GiB)\n",
            t.s("memory per GPU", "每卡显存"),
            t.s("peak in", "峰值阶段"),
            x.memory.phase_at_peak,
            x.memory.peak_allocated.gib()
        ));
        out.push_str(&tab(
            &[t.s("component", "组成"), "GiB", t.s("how", "计算方式")],
            &rows,
        ));
        if p.total_gpus > 1.0 {
            if let Some(need) = gpuplan_core::plan::train::single_gpu_need(req, &x.setup, &p.gpu) {
                let have = p.gpu.memory_gib.unwrap_or(0.0);
                if need.gib() > have {
                    out.push_str(&if t.zh {
                        format!("为什么不是单卡：一张 {} 即使全量重计算、micro-batch 1 也需要 {:.1} GiB，超过 {have:.0} GiB；ZeRO-{} 切分到 {} 张卡后每卡 {:.1} GiB。\n", p.gpu.name, need.gib(), x.setup.parallel.zero, p.total_gpus, x.memory.device_total.gib())
                    } else {
                        format!("Why not one GPU: on one {} this job needs {:.1} GiB even with full recompute at micro-batch 1, over its {have:.0} GiB; ZeRO-{} over {} GPUs brings it to {:.1} GiB per GPU.\n", p.gpu.name, need.gib(), x.setup.parallel.zero, p.total_gpus, x.memory.device_total.gib())
                    });
                }
            }
        }
        let st = &x.step;
        let share = |v: f64| format!("{:.1}%", v / st.step.0 * 100.0);
        let rows = vec![
            vec![
                t.s("compute", "计算").into(),
                format!("{}", st.compute),
                share(st.compute.0),
            ],
            vec![
                t.s("pipeline bubble", "流水线气泡").into(),
                format!("{}", st.pipeline_bubble),
                share(st.pipeline_bubble.0),
            ],
            vec![
                t.s("tensor-parallel comm", "张量并行通信").into(),
                format!("{}", st.tp_comm),
                share(st.tp_comm.0),
            ],
            vec![
                t.s("data-parallel comm (exposed)", "数据并行通信（未重叠）")
                    .into(),
                format!("{}", st.dp_comm_exposed),
                share(st.dp_comm_exposed.0),
            ],
            vec![
                t.s(
                    "pipeline p2p + expert all-to-all",
                    "流水线点对点 + 专家 all-to-all",
                )
                .into(),
                format!("{}", st.pp_comm + st.ep_comm),
                share(st.pp_comm.0 + st.ep_comm.0),
            ],
            vec![
                t.s("step", "每步").into(),
                format!("{}", st.step),
                "100%".into(),
            ],
        ];
        out.push_str(&format!("{}\n", t.s("time per step", "每步时间")));
        out.push_str(&tab(
            &[
                t.s("part", "组成"),
                t.s("time", "时间"),
                t.s("share", "占比"),
            ],
            &rows,
        ));
        let (unit_en, unit_zh) = gpuplan_core::chip::work_unit(&req.model);
        out.push_str(&if t.zh {
            format!("吞吐 {:.0} {unit_zh}/s（每卡 {:.0}），MFU {:.1}%；数据读取 {}，检查点 {}\n", st.tokens_per_second, st.tokens_per_second_per_gpu, st.mfu * 100.0, x.data.read_bandwidth, x.data.checkpoint_size)
        } else {
            format!("throughput {:.0} {unit_en}/s ({:.0} per GPU), MFU {:.1}%; data read {}, checkpoint {}\n", st.tokens_per_second, st.tokens_per_second_per_gpu, st.mfu * 100.0, x.data.read_bandwidth, x.data.checkpoint_size)
        });
    }
    if let Some(s) = &p.serve {
        out.push_str(&if t.zh {
            format!(
                "部署：{} 个副本 × TP{}（{} 权重），每副本批大小 {}、{:.2} 请求/秒；TTFT {}，每 token {}；每副本权重 {:.1} GiB、KV 池 {:.1} GiB（{} tokens）\n",
                s.replicas, s.tp, s.weights.name(), s.batch_per_replica, s.requests_per_second_per_replica, s.latency.ttft, s.latency.time_per_token, s.memory.weights.gib(), s.memory.kv_pool.gib(), s.memory.kv_tokens
            )
        } else {
            format!(
                "serving: {} replica(s) × TP{} ({} weights), batch {} per replica at {:.2} req/s each; TTFT {}, {} per output token; {:.1} GiB weights and a {:.1} GiB KV pool ({} tokens) per GPU\n",
                s.replicas, s.tp, s.weights.name(), s.batch_per_replica, s.requests_per_second_per_replica, s.latency.ttft, s.latency.time_per_token, s.memory.weights.gib(), s.memory.kv_pool.gib(), s.memory.kv_tokens
            )
        });
        if let (Some(m), Some(k)) = (s.cost_per_million_tokens, s.cost_per_1k_requests) {
            out.push_str(&if t.zh {
                format!("每百万 token ¥{m:.2}，每千次请求 ¥{k:.3}\n")
            } else {
                format!("¥{m:.2} per million tokens, ¥{k:.3} per 1k requests\n")
            });
        }
    }
    if !p.costs.is_empty() {
        let rows: Vec<Vec<String>> = p
            .costs
            .iter()
            .map(|c| {
                vec![
                    billing_name(c.billing, &t).into(),
                    format!("¥{:.0}", c.cny),
                    hours(c.hours, &t),
                    format!(
                        "¥{:.2} {} ({}, {}{})",
                        c.price.cny,
                        kind_name(c.price.kind, &t),
                        c.price.region,
                        c.price.as_of,
                        super::prices::age_label(&c.price.as_of, t.zh)
                    ),
                    if t.zh {
                        c.note_zh.clone()
                    } else {
                        c.note.clone()
                    }
                    .unwrap_or_default(),
                ]
            })
            .collect();
        out.push_str(&format!(
            "{}\n",
            t.s("cost by billing mode", "各计费方式费用")
        ));
        out.push_str(&tab(
            &[
                t.s("billing", "计费"),
                t.s("total", "总价"),
                t.s("time", "时长"),
                t.s("unit price", "单价"),
                t.s("note", "说明"),
            ],
            &rows,
        ));
    }
    if let Some(st) = p.train.as_ref().and_then(|x| x.storage.as_ref()) {
        out.push_str(&storage_line(st, &t));
    }
    out.push_str(&format!("{}\n", t.s("advice", "建议")));
    for adv in &p.advice {
        let mark = match adv.severity {
            Severity::Critical => "!!",
            Severity::Warn => "! ",
            Severity::Info => "- ",
        };
        out.push_str(&format!(
            "{mark} [{}] {}\n",
            adv.id,
            if t.zh { &adv.zh } else { &adv.en }
        ));
    }
    if explain {
        out.push_str(&format!(
            "\n{}\n",
            t.s("why each plan beats the next", "各方案排序理由")
        ));
        let shown: Vec<&Plan> = o.plans.iter().take(top.max(1)).collect();
        for w in shown.windows(2) {
            out.push_str(&format!("- {}\n", why(w[0], w[1], req.objective, &t)));
        }
    }
    out
}

fn bottleneck_name(b: &str, t: &T) -> String {
    if !t.zh {
        return b.to_string();
    }
    match b {
        "compute" => "计算",
        "pipeline-bubble" => "流水线气泡",
        "tp-communication" => "张量并行通信",
        "dp-communication" => "数据并行通信",
        "ep-communication" => "专家并行通信",
        "host-cpu" => "主机 CPU",
        "memory-bandwidth" => "显存带宽",
        other => other,
    }
    .to_string()
}

/// One sentence on why `a` ranks above `b`. Every comparison is made on the values as shown
/// (rounded), so it never says "sooner (0.3 h vs 0.3 h)": equal shown values are a tie.
fn why(a: &Plan, b: &Plan, obj: Objective, t: &T) -> String {
    let name = |p: &Plan| {
        let n = format!("{} × {}", p.nodes, p.instance.id);
        if a.nodes == b.nodes && a.instance.id == b.instance.id {
            format!("{n} ({})", p.instance.provider.name())
        } else {
            n
        }
    };
    let mut parts = Vec::new();
    if let Some(x) = cost_difference(a, b, t) {
        parts.push(x);
    }
    if let Some(x) = time_difference(a, b, t) {
        parts.push(x);
    }
    if a.total_gpus < b.total_gpus {
        parts.push(if t.zh {
            format!("用 {} 张卡，后者 {} 张", a.total_gpus, b.total_gpus)
        } else {
            let unit = if a.total_gpus == 1.0 { "GPU" } else { "GPUs" };
            format!("uses {} {unit} instead of {}", a.total_gpus, b.total_gpus)
        });
    }
    if let Some(x) = comm_difference(a, b, t) {
        parts.push(x);
    }
    if parts.is_empty() {
        parts.push(match obj {
            Objective::Cost => t
                .s(
                    "ties on cost and time as shown; ordered by the exact values, then fewer GPUs",
                    "显示的费用和时长相同；按精确值和卡数排序",
                )
                .to_string(),
            _ => t
                .s(
                    "ties as shown; ordered by the exact values, then fewer GPUs",
                    "显示的数值相同；按精确值和卡数排序",
                )
                .to_string(),
        });
    }
    let (na, nb) = (name(a), name(b));
    if t.zh {
        format!("{na} 优于 {nb}：{}", parts.join("；"))
    } else {
        format!("{na} beats {nb}: {}", parts.join("; "))
    }
}

fn cost_difference(a: &Plan, b: &Plan, t: &T) -> Option<String> {
    let (ca, cb) = (
        a.chosen.as_ref().map(|c| c.cny),
        b.chosen.as_ref().map(|c| c.cny),
    );
    match (ca, cb) {
        (Some(x), Some(y)) => {
            let (sx, sy) = (format!("¥{x:.0}"), format!("¥{y:.0}"));
            let pct = (1.0 - x / y) * 100.0;
            (sx != sy && y > x && pct >= 0.5).then(|| {
                if t.zh {
                    format!("便宜 {pct:.0}%（{sx}，后者 {sy}）")
                } else {
                    format!("costs {pct:.0}% less ({sx} vs {sy})")
                }
            })
        }
        (Some(_), None) => Some(
            t.s(
                "has a known price (the other is ranked by GPU-hours)",
                "有已知价格（后者无价格，按卡时排序）",
            )
            .to_string(),
        ),
        (None, None) => {
            let (ga, gb) = (a.hours * a.total_gpus, b.hours * b.total_gpus);
            let (sa, sb) = (format!("{ga:.1}"), format!("{gb:.1}"));
            (sa != sb && ga < gb).then(|| {
                if t.zh {
                    format!("无价格，按卡时：{sa} 卡时，后者 {sb}")
                } else {
                    format!("no price known: fewer GPU-hours ({sa} vs {sb})")
                }
            })
        }
        (None, Some(_)) => None,
    }
}

fn time_difference(a: &Plan, b: &Plan, t: &T) -> Option<String> {
    let (sa, sb) = (hours(a.hours, t), hours(b.hours, t));
    let pct = (1.0 - a.hours / b.hours) * 100.0;
    (sa != sb && b.hours > a.hours && pct >= 0.5).then(|| {
        if t.zh {
            format!("快 {pct:.0}%（{sa}，后者 {sb}）")
        } else {
            format!("finishes {pct:.0}% sooner ({sa} vs {sb})")
        }
    })
}

fn comm_difference(a: &Plan, b: &Plan, t: &T) -> Option<String> {
    let (xa, xb) = (a.train.as_ref()?, b.train.as_ref()?);
    let sa = (xa.step.tp_comm.0 + xa.step.dp_comm_exposed.0) / xa.step.step.0;
    let sb = (xb.step.tp_comm.0 + xb.step.dp_comm_exposed.0) / xb.step.step.0;
    (sb > sa + 0.05).then(|| {
        if t.zh {
            format!(
                "后者每步 {:.0}% 的时间在通信（{}）",
                sb * 100.0,
                xb.step.dp_link
            )
        } else {
            format!(
                "the other spends {:.0}% of each step communicating over {}",
                sb * 100.0,
                xb.step.dp_link
            )
        }
    })
}

/// The storage rented with the plan and whether its cost is in the totals.
fn storage_line(st: &gpuplan_core::plan::money::StorageChoice, t: &T) -> String {
    let name = &st.class.name;
    let cap = st.capacity_gib;
    match (st.job_cny, t.zh) {
        (Some(c), false) => format!(
            "storage: {name}, {cap:.0} GiB: ¥{c:.0} for the job, included in the totals above\n"
        ),
        (Some(c), true) => format!("存储：{name}，{cap:.0} GiB：本任务 ¥{c:.0}，已计入上方总价\n"),
        (None, false) => format!(
            "storage: {name}, {cap:.0} GiB: no price known, NOT included in the totals above\n"
        ),
        (None, true) => format!("存储：{name}，{cap:.0} GiB：无已知价格，未计入上方总价\n"),
    }
}
