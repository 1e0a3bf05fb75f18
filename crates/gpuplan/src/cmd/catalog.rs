//! `gpuplan catalog gpus | instances | show | validate | import`.

use super::{
    config_dir, load_catalog, load_catalog_except, load_catalog_quiet, merge_user_file, printable,
    read_catalog_file, user_files, write_atomic, CatalogOpts,
};
use crate::cli::{BillingArg, CatalogAction, Format, InstanceFilterArgs, ListFormat, ProviderArg};
use crate::render;
use anyhow::{Context, Result};
use gpuplan_core::catalog::import::ImportContext;
use gpuplan_core::catalog::validate::{validate_file, Severity};
use gpuplan_core::catalog::{
    Billing, Catalog, CatalogFile, Instance, InstanceLink, Origin, Price, PriceKind, Provider,
};
use gpuplan_core::i18n::{Lang, Msg};

pub fn run(action: CatalogAction, opts: &CatalogOpts) -> Result<u8> {
    match action {
        CatalogAction::Gpus { format } => gpus(&load_catalog(opts)?, format, opts.wide),
        CatalogAction::Instances(f) => instances(&load_catalog(opts)?, &f, opts),
        CatalogAction::Show { id, format } => show(&load_catalog(opts)?, &id, format),
        CatalogAction::Validate { files, format } => validate(opts, &files, format),
        CatalogAction::Import {
            provider,
            files,
            region,
            instance,
            billing,
            dry_run,
        } => import(opts, provider, &files, region, instance, billing, dry_run),
    }
}

fn opt(v: Option<f64>) -> String {
    v.map(|x| format!("{x}")).unwrap_or_else(|| "–".into())
}

fn provider(p: ProviderArg) -> Provider {
    match p {
        ProviderArg::Alibaba => Provider::Alibaba,
        ProviderArg::Huawei => Provider::Huawei,
        ProviderArg::Tencent => Provider::Tencent,
    }
}

pub fn billing(b: BillingArg) -> Billing {
    match b {
        BillingArg::OnDemand => Billing::OnDemand,
        BillingArg::Monthly => Billing::Monthly,
        BillingArg::Spot => Billing::Spot,
    }
}

/// The body of the `gpus` JSON document, shared with `gpuplan serve`.
pub fn gpus_json(c: &Catalog) -> serde_json::Value {
    serde_json::json!({ "gpus": c.gpus })
}

fn gpus(c: &Catalog, format: Format, wide: bool) -> Result<u8> {
    if format == Format::Json {
        outln!("{}", render::json("gpus", &gpus_json(c))?);
        return Ok(0);
    }
    let header = render::header(
        "gpus-col",
        &[
            "id",
            "name",
            "GiB",
            "GB/s",
            "tflops",
            "fp8",
            "link",
            "link-gbs",
            "stack",
            "confidence",
            "as-of",
        ],
    );
    let header: Vec<&str> = header.iter().map(String::as_str).collect();
    let rows: Vec<Vec<String>> = c
        .gpus
        .iter()
        .map(|g| {
            vec![
                g.id.clone(),
                gpuplan_core::i18n::gpu_name(&g.name, render::lang()),
                opt(g.memory_gib),
                opt(g.memory_bandwidth_gbs),
                opt(g.tflops.bf16.filter(|x| *x > 0.0).or(g.tflops.fp16)),
                opt(g.tflops.fp8),
                g.intra_link.name().to_string(),
                opt(g.intra_link_gbs),
                g.stack.clone(),
                g.confidence.clone(),
                g.as_of.clone(),
            ]
        })
        .collect();
    match format {
        Format::Markdown => out!("{}", render::markdown(&header, &rows)),
        // Narrow terminals: the id stays whole; the name, date, stack, confidence and the link
        // columns are left out, in that order, until the figures fit.
        _ => outln!(
            "{}",
            render::table_fit(&header, &rows, &[0], &[1, 10, 8, 9, 7, 6], wide)
        ),
    }
    outln!(
        "{}",
        render::wrap(
            &gpuplan_core::i18n::text(render::lang(), "gpus-legend"),
            render::width(),
            ""
        )
    );
    Ok(0)
}

fn gpu_matches(c: &Catalog, inst: &Instance, q: &str) -> bool {
    gpu_query_matches(c, &inst.gpu, q)
}

/// Whether GPU `id` answers a `--gpu` query: the GPU itself when the query names one exactly (id
/// or name, `nvidia-` optional: `a10` is the A10 alone), else every id starting with the query
/// and every name containing it (`A100` matches a100-40g and a100-80g). Audit r10: `--gpu a10`
/// planned on A100s, whose ids start with `a10`.
pub fn gpu_query_matches(c: &Catalog, id: &str, q: &str) -> bool {
    let norm = |s: &str| s.to_lowercase().replace(' ', "-");
    let q = norm(q);
    let q = q.trim_start_matches("nvidia-");
    let exact = |gid: &str, name: &str| {
        gid.to_lowercase() == q || norm(name).trim_start_matches("nvidia-") == q
    };
    if c.gpus.iter().any(|g| exact(&g.id, &g.name)) {
        return id.to_lowercase() == q || c.gpu(id).is_some_and(|g| exact(&g.id, &g.name));
    }
    id.to_lowercase().starts_with(q) || c.gpu(id).is_some_and(|g| norm(&g.name).contains(q))
}

/// Refuses a `--gpu` value that no accelerator of the catalog answers (see
/// [`gpu_query_matches`]), naming the known ids: `catalog instances --gpu zzz` printed an empty
/// table and `prices --gpu zzz` "no prices match", exit 0, where `plan` refused the same value
/// (audit r13 #1). `flag` names the value as the user wrote it (`--gpu`, the API's `gpu`).
pub fn check_gpu_known(c: &Catalog, flag: &str, q: Option<&str>) -> Result<()> {
    let Some(q) = q else { return Ok(()) };
    if c.gpus.iter().any(|g| gpu_query_matches(c, &g.id, q)) {
        return Ok(());
    }
    let ids: Vec<&str> = c.gpus.iter().map(|g| g.id.as_str()).collect();
    Err(render::fail(
        Msg::new("cli-err-unknown-gpu")
            .arg("flag", flag)
            .arg("value", q)
            .arg("list", ids.join(", ")),
    ))
}

/// Refuses a `--region` that no instance type or price row of the catalog names: the filter
/// keeps only those, so it could list nothing (`catalog instances --region zzz` printed an empty
/// table, exit 0: audit r13 #6). `plan` only warns, because it plans the types that name no
/// region as sold anywhere (catalog::regions).
pub fn check_region_known(c: &Catalog, flag: &str, r: Option<&str>) -> Result<()> {
    let Some(r) = r else { return Ok(()) };
    let named = c.instances.iter().any(|i| i.regions.iter().any(|x| x == r))
        || c.prices.iter().any(|p| p.region == r);
    if named {
        return Ok(());
    }
    let known = gpuplan_core::catalog::regions::known_regions(c, &[]);
    let close = gpuplan_core::error::close_names(r, known.iter().map(String::as_str));
    Err(render::fail(
        Msg::new("cli-err-unknown-region")
            .arg("flag", flag)
            .arg("value", r)
            .arg("known", known.join(", "))
            .arg("close", gpuplan_core::error::names_or_none(&close)),
    ))
}

fn link_name(i: &Instance) -> &'static str {
    match i.intra_link {
        Some(InstanceLink::Nvswitch) => "NVSwitch",
        Some(InstanceLink::Nvlink) => "NVLink",
        Some(InstanceLink::Hccs) => "HCCS",
        Some(InstanceLink::Pcie) => "PCIe",
        Some(InstanceLink::Vgpu) => "vGPU",
        None => "–",
    }
}

fn price_label(p: &Price) -> String {
    let kind = match p.kind {
        PriceKind::List => "list",
        PriceKind::User => "user",
        PriceKind::Estimate => "estimate",
        PriceKind::Api => "api",
    };
    format!(
        "¥{:.2} ({kind}, {}, {}{})",
        p.cny,
        p.region,
        p.as_of,
        super::prices::age_label(&p.as_of, Lang::En)
    )
}

fn filtered<'a>(c: &'a Catalog, f: &InstanceFilterArgs) -> Vec<(&'a Instance, Option<Price>)> {
    let b = billing(f.billing);
    c.visible_instances()
        .filter(|i| f.provider.is_empty() || f.provider.iter().any(|p| provider(*p) == i.provider))
        .filter(|i| f.vgpu || !i.vgpu)
        .filter(|i| f.gpu.as_deref().is_none_or(|q| gpu_matches(c, i, q)))
        .filter(|i| f.gpus.is_none_or(|n| (i.gpu_count - n).abs() < 1e-9))
        .filter(|i| {
            f.min_gpu_memory
                .is_none_or(|m| i.gpu_memory_gib.is_some_and(|g| g >= m))
        })
        .filter(|i| !f.rdma || i.rdma.is_rdma())
        .filter(|i| {
            !f.nvlink
                || matches!(
                    i.intra_link,
                    Some(InstanceLink::Nvlink | InstanceLink::Nvswitch | InstanceLink::Hccs)
                )
        })
        .map(|i| (i, c.best_price(i, b, f.region.as_deref())))
        .filter(|(i, p)| {
            f.region.as_deref().is_none_or(|r| {
                i.regions.iter().any(|x| x == r) || p.as_ref().is_some_and(|p| p.region == r)
            })
        })
        .filter(|(_, p)| {
            f.max_price
                .is_none_or(|m| p.as_ref().is_some_and(|p| p.cny <= m))
        })
        .collect()
}

/// Most GPUs an instance type carries, for the `--gpus` filter's range.
const MAX_FILTER_GPUS: f64 = 1024.0;
/// Most GiB per GPU the `--min-gpu-memory` filter takes (no accelerator comes near).
const MAX_FILTER_GPU_GIB: f64 = 10_000.0;
/// Most CNY the `--max-price` filter takes: the `--budget` ceiling.
const MAX_FILTER_PRICE: f64 = 1e12;

/// The numeric filters' ranges. NaN, an infinity, 0 GPUs or a price of 0 select nothing, and an
/// empty list would read as "no instance type matches": they are refused, naming the flag (exit 2;
/// HTTP 400 on `/api/v1/catalog/instances`).
pub fn check_filter(f: &InstanceFilterArgs) -> Result<(), gpuplan_core::CoreError> {
    check_filter_named(f, &|flag| format!("--{flag}"))
}

/// [`check_filter`] with each value named by `name` (the CLI's `--max-price`, the API's query key
/// as the request wrote it: audit r9 #17).
pub fn check_filter_named(
    f: &InstanceFilterArgs,
    name: &dyn Fn(&str) -> String,
) -> Result<(), gpuplan_core::CoreError> {
    use gpuplan_core::error::check_range;
    check_filter_words(f, name)?;
    if let Some(n) = f.gpus {
        let fix =
            "GPUs per instance type, more than 0 and at most 1024 (e.g. 8; vGPU slices: 0.25)";
        if n <= 0.0 {
            return Err(gpuplan_core::CoreError::invalid(&name("gpus"), n, fix));
        }
        check_range(&name("gpus"), n, 0.0, MAX_FILTER_GPUS, fix)?;
    }
    if let Some(g) = f.min_gpu_memory {
        let fix = "GiB per GPU, 0 to 10000 (e.g. 80)";
        check_range(&name("min-gpu-memory"), g, 0.0, MAX_FILTER_GPU_GIB, fix)?;
    }
    if let Some(p) = f.max_price {
        let fix = "CNY per hour (per month with --billing monthly), more than 0 and at most 1e12";
        if p <= 0.0 {
            return Err(gpuplan_core::CoreError::invalid(&name("max-price"), p, fix));
        }
        check_range(&name("max-price"), p, 0.0, MAX_FILTER_PRICE, fix)?;
    }
    Ok(())
}

/// `--gpu ""` listed every instance type and `--region ""` none (audit r12 #2): an empty value
/// is refused, naming the flag.
fn check_filter_words(
    f: &InstanceFilterArgs,
    name: &dyn Fn(&str) -> String,
) -> Result<(), gpuplan_core::CoreError> {
    let words = [
        (
            "gpu",
            f.gpu.as_deref(),
            "an accelerator id or name prefix, e.g. A100 (`gpuplan catalog gpus` lists them)",
        ),
        (
            "region",
            f.region.as_deref(),
            "a region id, e.g. cn-shanghai (leave the flag out for every region)",
        ),
    ];
    for (flag, value, fix) in words {
        if value.is_some_and(|v| v.trim().is_empty()) {
            return Err(gpuplan_core::CoreError::invalid(&name(flag), "\"\"", fix));
        }
    }
    Ok(())
}

/// The body of the `instances` JSON document, shared with `gpuplan serve`.
pub fn instances_json(c: &Catalog, f: &InstanceFilterArgs) -> serde_json::Value {
    let v: Vec<_> = filtered(c, f)
        .iter()
        .map(|(i, p)| serde_json::json!({ "instance": i, "price": p }))
        .collect();
    serde_json::json!({ "billing": billing(f.billing).name(), "instances": v })
}

fn instances(c: &Catalog, f: &InstanceFilterArgs, opts: &CatalogOpts) -> Result<u8> {
    check_filter(f)?;
    check_gpu_known(c, "--gpu", f.gpu.as_deref())?;
    check_region_known(c, "--region", f.region.as_deref())?;
    if f.format == ListFormat::Json {
        outln!("{}", render::json("instances", &instances_json(c, f))?);
        return Ok(0);
    }
    let rows = filtered(c, f);
    let price_col = format!("{} price", billing(f.billing).name());
    let header = [
        "id",
        "provider",
        "GPU",
        "GiB/GPU",
        "vCPU",
        "RAM GiB",
        "net Gbit/s",
        "RDMA",
        "GPU link",
        price_col.as_str(),
        "confidence",
        "origin",
    ];
    match f.format {
        ListFormat::Csv => out!("{}", csv_text(&header, full_rows(&rows))),
        ListFormat::Markdown => out!("{}", render::markdown(&header, &full_rows(&rows))),
        _ => {
            let l = opts.lang;
            let bill = billing(f.billing);
            if opts.wide {
                outln!("{}", wide_instances(&rows, bill, l));
            } else {
                outln!("{}", compact_instances(&rows, bill, l));
            }
            let legend = Msg::new("cat-instances-legend")
                .arg("n", rows.len())
                .arg("billing", gpuplan_core::i18n::names::billing(bill));
            outln!("{}", render::wrap(&legend.render(l), render::width(), ""));
        }
    }
    Ok(0)
}

/// Every column of each instance row (CSV, Markdown and `--wide`), provider and words in English.
fn full_rows(rows: &[(&Instance, Option<Price>)]) -> Vec<Vec<String>> {
    rows.iter()
        .map(|(i, p)| {
            vec![
                i.id.clone(),
                i.provider.name().to_string(),
                format!("{} × {}", format_count(i.gpu_count), i.gpu),
                opt(i.gpu_memory_gib),
                i.vcpu.map(|v| v.to_string()).unwrap_or_else(|| "–".into()),
                opt(i.ram_gib),
                opt(i.network_gbit),
                format!("{:?}", i.rdma).to_lowercase(),
                link_name(i).to_string(),
                p.as_ref().map(price_label).unwrap_or_else(|| "–".into()),
                format!("{:?}", i.confidence).to_lowercase(),
                match &i.origin {
                    Origin::Builtin => "built-in".into(),
                    Origin::User(f) => format!("user: {}", printable(f)),
                },
            ]
        })
        .collect()
}

/// A header row and the rows as CSV, each cell escaped (`csv_field`).
fn csv_text(header: &[&str], table: Vec<Vec<String>>) -> String {
    let mut w = String::new();
    for r in std::iter::once(header.iter().map(|s| s.to_string()).collect::<Vec<_>>()).chain(table)
    {
        w.push_str(&r.iter().map(|c| csv_field(c)).collect::<Vec<_>>().join(","));
        w.push('\n');
    }
    w
}

/// The `--wide` instance table: every column, headers and provider in `l`.
fn wide_instances(
    rows: &[(&Instance, Option<Price>)],
    bill: Billing,
    l: gpuplan_core::i18n::Lang,
) -> String {
    let t = |id: &str| gpuplan_core::i18n::text(l, id);
    let mut h: Vec<String> = [
        "cat-col-id",
        "plan-col-provider",
        "GPU",
        "plan-col-mem",
        "vCPU",
        "cat-col-ram",
        "cat-col-net",
        "RDMA",
        "cat-col-link",
    ]
    .iter()
    .map(|k| {
        if k.contains("-col-") {
            t(k)
        } else {
            k.to_string()
        }
    })
    .collect();
    let bill = gpuplan_core::i18n::names::billing(bill).render(l);
    h.push(Msg::new("cat-col-price").arg("billing", bill).render(l));
    h.push(t("cat-col-confidence"));
    h.push(t("cat-col-origin"));
    let h: Vec<&str> = h.iter().map(String::as_str).collect();
    let table: Vec<Vec<String>> = full_rows(rows)
        .into_iter()
        .zip(rows.iter())
        .map(|(mut r, (i, _))| {
            r[1] = gpuplan_core::i18n::names::provider(i.provider).render(l);
            r
        })
        .collect();
    render::table(&h, &table)
}

/// The compact instance table: id, provider, GPUs, memory, vCPU, RDMA and price.
fn compact_instances(
    rows: &[(&Instance, Option<Price>)],
    bill: Billing,
    l: gpuplan_core::i18n::Lang,
) -> String {
    let t = |id: &str| gpuplan_core::i18n::text(l, id);
    let bill = gpuplan_core::i18n::names::billing(bill).render(l);
    let h = [
        t("cat-col-id"),
        t("plan-col-provider"),
        "GPU".to_string(),
        t("plan-col-mem"),
        "vCPU".to_string(),
        "RDMA".to_string(),
        Msg::new("cat-col-price-short")
            .arg("billing", bill)
            .render(l),
    ];
    let h: Vec<&str> = h.iter().map(String::as_str).collect();
    let compact: Vec<Vec<String>> = rows
        .iter()
        .map(|(i, p)| {
            vec![
                i.id.clone(),
                gpuplan_core::i18n::names::provider(i.provider).render(l),
                format!("{}×{}", format_count(i.gpu_count), i.gpu),
                opt(i.gpu_memory_gib),
                i.vcpu.map(|v| v.to_string()).unwrap_or_else(|| "–".into()),
                rdma_mark(i.rdma),
                p.as_ref()
                    .map(|p| format!("¥{:.2}", p.cny))
                    .unwrap_or_else(|| "–".into()),
            ]
        })
        .collect();
    // Too narrow for every column with whole ids and header words (80 columns: `provide` over
    // `r`, `Gi/B/GP/U`): vCPUs, then the memory per GPU (most GPU ids carry it) are left out,
    // with a note; `--wide` shows them.
    render::table_fit(&h, &compact, &[0, 2], &[4, 3], false)
}

/// RDMA in the compact table: ✓, ? when unknown, – when absent.
fn rdma_mark(r: gpuplan_core::catalog::RdmaKind) -> String {
    match r {
        _ if r.is_rdma() => "✓".into(),
        gpuplan_core::catalog::RdmaKind::Unknown => "?".into(),
        _ => "–".into(),
    }
}

fn format_count(n: f64) -> String {
    if n.fract() == 0.0 {
        format!("{n:.0}")
    } else {
        format!("{n:.3}")
    }
}

/// One CSV cell: a cell a spreadsheet would run as a formula (starting with `=`, `+`, `-`, `@`,
/// tab or carriage return) gets a leading `'`; cells with commas, quotes or line breaks are quoted
/// with inner quotes doubled.
pub fn csv_field(s: &str) -> String {
    let s = if s.starts_with(['=', '+', '-', '@', '\t', '\r']) {
        format!("'{s}")
    } else {
        s.to_string()
    };
    if s.contains([',', '"', '\n', '\r']) {
        format!("\"{}\"", s.replace('"', "\"\""))
    } else {
        s
    }
}

fn show(c: &Catalog, id: &str, format: Format) -> Result<u8> {
    if let Some(g) = c.gpus.iter().find(|g| g.id.eq_ignore_ascii_case(id)) {
        outln!(
            "{}",
            if format == Format::Json {
                render::json("gpu", g)?
            } else {
                toml::to_string_pretty(g)?
            }
        );
        return Ok(0);
    }
    if !c.instances.iter().any(|i| i.id.eq_ignore_ascii_case(id)) {
        if let Some(code) = family_or_error(c, id, format)? {
            return Ok(code);
        }
    }
    let i = c.find_instance(id)?;
    let prices: Vec<Price> = [Billing::OnDemand, Billing::Monthly, Billing::Spot]
        .iter()
        .filter_map(|b| c.best_price(i, *b, None))
        .collect();
    if format == Format::Json {
        let all: Vec<_> = c.prices_for(&i.id).collect();
        let body = serde_json::json!({ "instance": i, "prices": prices, "all_prices": all });
        outln!("{}", render::json("instance", &body)?);
        return Ok(0);
    }
    out!("{}", instance_text(c, i, prices)?);
    Ok(0)
}

/// A query that is no instance id: the family it names (shown), an error with similar
/// families, or `None` when the catalog still resolves it (an alias).
fn family_or_error(c: &Catalog, id: &str, format: Format) -> Result<Option<u8>> {
    let fam: Vec<&Instance> = c
        .visible_instances()
        .filter(|i| i.family.eq_ignore_ascii_case(id))
        .collect();
    if !fam.is_empty() {
        return show_families(c, id, &fam, format).map(Some);
    }
    let Err(e) = c.find_instance(id) else {
        return Ok(None);
    };
    let hints = family_hints(c, id);
    if hints.is_empty() || e.to_string().contains("wrong") {
        return Err(e.into());
    }
    Err(crate::render::fail(
        gpuplan_core::i18n::Msg::new("cli-err-similar-families")
            .arg("error", e.message())
            .arg("hints", hints),
    ))
}

/// One instance type as text: its TOML, its chip, regions, access and best prices.
fn instance_text(c: &Catalog, i: &Instance, prices: Vec<Price>) -> Result<String> {
    let toml_text = format!("{}\n", toml::to_string_pretty(i)?.trim_end());
    let mut out = String::new();
    if let Some(g) = c.gpu(&i.gpu) {
        let m = Msg::new("catalog-gpu-line")
            .arg("name", gpuplan_core::i18n::names::gpu_arg(&g.name))
            .arg("mem", opt(g.memory_gib))
            .arg("bw", opt(g.memory_bandwidth_gbs))
            .arg("tflops", opt(g.tflops.bf16.or(g.tflops.fp16)))
            .arg(
                "confidence",
                gpuplan_core::i18n::names::confidence_word(&g.confidence),
            )
            .arg("as_of", g.as_of.as_str());
        out.push_str(&format!("{}\n", m.render(render::lang())));
    } else if !i.gpu_is_mapped() {
        let m = Msg::new("catalog-gpu-unmapped").arg("gpu", i.gpu.as_str());
        out.push_str(&format!("{}\n", m.render(render::lang())));
    }
    out.push_str(&format!("{}\n", regions_line(i)));
    if let Some(a) = i.access {
        out.push_str(&format!("{}\n", access_line(a, i.access_note.as_deref())));
    }
    if prices.is_empty() {
        let m = Msg::new("catalog-prices-none").render(render::lang());
        out.push_str(&format!("{m}\n"));
    }
    for p in prices {
        out.push_str(&price_lines(&p, render::lang()));
    }
    // The TOML record stays as it is (it reads back); the sentences fit the terminal.
    Ok(toml_text + &render::fit(&out, render::width()))
}

/// A price of `catalog show INSTANCE`: billing, amount, kind, region, date and age, the method
/// of an estimate, and its source, in the reader's language.
fn price_lines(p: &Price, l: Lang) -> String {
    use gpuplan_core::i18n::names;
    let mut line = Msg::new("catalog-price-line")
        .arg("billing", names::billing(p.billing))
        .arg("cny", format!("{:.2}", p.cny))
        .arg("kind", names::price_kind(p.kind))
        .arg("region", names::price_region(&p.region))
        .arg("as_of", p.as_of.as_str())
        .arg("age", super::prices::age_label(&p.as_of, l))
        .render(l);
    if let Some(m) = &p.method {
        line.push_str(
            &Msg::new("catalog-price-method")
                .arg("method", m.as_str())
                .render(l),
        );
    }
    let source = Msg::new("catalog-price-source").arg("source", p.source.as_str());
    format!("{line}\n{}\n", source.render(l))
}

fn validate(opts: &CatalogOpts, files: &[std::path::PathBuf], format: Format) -> Result<u8> {
    let (findings, names) = validation_findings(opts, files)?;
    let errors = findings
        .iter()
        .filter(|f| f.severity == Severity::Error)
        .count();
    if format == Format::Json {
        outln!(
            "{}",
            render::json(
                "validation",
                &serde_json::json!({ "files": names, "errors": errors, "findings": findings })
            )?
        );
    } else {
        out!(
            "{}",
            render::fit(
                &findings_text(&findings, names.len(), errors),
                render::width()
            )
        );
    }
    Ok(if errors > 0 { 1 } else { 0 })
}

/// The findings of the files checked, with their names: the built-in files and the user
/// catalogs, or the files given (merged over the catalog in turn).
fn validation_findings(
    opts: &CatalogOpts,
    files: &[std::path::PathBuf],
) -> Result<(Vec<gpuplan_core::catalog::validate::Finding>, Vec<String>)> {
    let mut findings = Vec::new();
    let mut names = Vec::new();
    let mut cat = if files.is_empty() {
        let cat = Catalog::builtin()?;
        for (name, f) in gpuplan_core::catalog::builtin_files()? {
            findings.extend(validate_file(&name, &f, &cat));
            names.push(name);
        }
        cat
    } else {
        load_catalog_quiet(opts, files)?.0
    };
    let targets = if files.is_empty() {
        user_files(opts)?
    } else {
        files.to_vec()
    };
    for p in &targets {
        findings.extend(merge_user_file(&mut cat, p)?);
        names.push(p.display().to_string());
    }
    Ok((findings, names))
}

/// One line per finding (error or warning, file, location, text), then the summary.
fn findings_text(
    findings: &[gpuplan_core::catalog::validate::Finding],
    files: usize,
    errors: usize,
) -> String {
    let l = render::lang();
    let mut out = String::new();
    for f in findings {
        let prefix = if f.severity == Severity::Error {
            "error-prefix"
        } else {
            "warning-prefix"
        };
        out.push_str(&format!(
            "{}{} {}: {}\n",
            gpuplan_core::i18n::text(l, prefix),
            printable(&f.file),
            printable(&f.location),
            printable(&render::finding_text(f, l))
        ));
    }
    let summary = Msg::new("validate-summary")
        .arg("files", files)
        .arg("errors", errors)
        .arg("warnings", findings.len() - errors);
    out.push_str(&format!("{}\n", summary.render(l)));
    out
}

fn today() -> String {
    let secs = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map(|d| i64::try_from(d.as_secs()).unwrap_or(0))
        .unwrap_or(0);
    gpuplan_core::signing::UtcTime::from_unix(secs).date()
}

fn import(
    opts: &CatalogOpts,
    p: ProviderArg,
    files: &[std::path::PathBuf],
    region: Option<String>,
    instance: Option<String>,
    bill: Option<BillingArg>,
    dry_run: bool,
) -> Result<u8> {
    let docs = read_responses(files)?;
    let ctx = ImportContext {
        region,
        today: today(),
        price_instance: instance,
        price_billing: bill.map(billing),
    };
    let dir = config_dir()
        .context("no config directory: set GPUPLAN_CONFIG_DIR or HOME")?
        .join("catalog");
    let target = dir.join(format!("imported-{}.toml", provider(p).name()));
    let mut cat = load_catalog_except(opts, std::slice::from_ref(&target))?;
    // Read, merge and write under the lock, so a concurrent import cannot lose these rows.
    let _lock = if dry_run {
        None
    } else {
        Some(super::userfiles::lock(&target)?)
    };
    let old = read_previous_import(&mut cat, &target)?;
    let r = gpuplan_core::catalog::import::import(provider(p), &docs, &ctx, &cat)?;
    warn_import(&r);
    let (n_i, n_p, n_out) = (r.file.instance.len(), r.file.price.len(), r.left_out.len());
    // Valid responses without one GPU type or price (`{"flavors": []}`, CPU flavors only) said
    // "imported 0 instance type(s)", exit 0 (audit r13 #2; r12 #3 caught alibaba `[]`). Rows
    // skipped with a warning (prices not in CNY, withdrawn flavors) keep that answer: the
    // warnings above say why nothing was imported.
    if n_i + n_p == 0 && (n_out > 0 || r.warnings.is_empty()) {
        let id = if n_out > 0 {
            "import-err-nothing"
        } else {
            "import-err-empty"
        };
        return Err(crate::render::fail(
            Msg::new(id)
                .arg("n", n_out)
                .arg("provider", provider_arg(provider(p)))
                .arg("api", listing_call(p))
                .arg("file", target.display().to_string()),
        ));
    }
    let text = import_text(provider(p), &ctx.today, merge_import(old, r.file))?;
    let l = render::lang();
    let done = |id: &'static str| {
        Msg::new(id)
            .arg("instances", n_i)
            .arg("prices", n_p)
            .arg("file", target.display().to_string())
            .arg("out", n_out)
            .render(l)
    };
    if dry_run {
        out!("{text}");
        eprintln!("{}", done("import-dry-run"));
    } else {
        write_atomic(&target, &text)?;
        eprintln!("{}", done("import-done"));
    }
    Ok(0)
}

/// The API call whose response lists a provider's GPU instance types (what
/// `gpuplan_core::catalog::import` reads).
fn listing_call(p: ProviderArg) -> &'static str {
    match p {
        ProviderArg::Alibaba => "DescribeInstanceTypes",
        ProviderArg::Huawei => "ListFlavors",
        ProviderArg::Tencent => "DescribeZoneInstanceConfigInfos",
    }
}

/// The provider responses to import: (file name, text) each.
fn read_responses(files: &[std::path::PathBuf]) -> Result<Vec<(String, String)>> {
    files
        .iter()
        .map(|f| {
            Ok((
                f.display().to_string(),
                super::read_input(f, "provider response")?,
            ))
        })
        .collect()
}

/// The import's warnings and the rows it left out, on stderr.
fn warn_import(r: &gpuplan_core::catalog::import::ImportResult) {
    for w in &r.warnings {
        crate::render::warn(w.clone());
    }
    for l in &r.left_out {
        crate::render::warn(
            Msg::new("import-left-out")
                .arg("what", render::parser_text(&printable(l), render::lang())),
        );
    }
}

fn regions_line(i: &Instance) -> String {
    let m = if i.regions.is_empty() {
        Msg::new("catalog-regions-none")
    } else {
        Msg::new("catalog-regions").arg("list", i.regions.join(", "))
    };
    m.render(render::lang())
}

/// A provider by its catalog id in English (`tencent`, as `--provider` takes it) and by its
/// name in Chinese (腾讯云).
fn provider_arg(p: Provider) -> gpuplan_core::i18n::Arg {
    gpuplan_core::i18n::Arg::PerLang {
        en: p.name().to_string(),
        zh: gpuplan_core::i18n::names::provider(p).render(gpuplan_core::i18n::Lang::Zh),
    }
}

/// The access line: how the family is ordered, and the catalog's note (or the default).
/// The catalog's own note exists in English only and says so in Chinese (`英文原文`, audit r7
/// #22); the default note is translated.
fn access_line(a: gpuplan_core::catalog::Access, note: Option<&str>) -> String {
    let m = match note {
        Some(n) => Msg::new("catalog-access-english-note").arg("note", n),
        None => Msg::new("catalog-access").arg("note", Msg::new("adv-access-note-default")),
    };
    m.arg("access", gpuplan_core::i18n::names::access(a))
        .render(render::lang())
}

/// Families whose name is close to `q`, with provider and chip: "gn6i (alibaba, t4)".
fn family_hints(c: &Catalog, q: &str) -> String {
    let mut fams: Vec<(String, &Instance)> = Vec::new();
    for i in c.visible_instances() {
        if !fams
            .iter()
            .any(|(f, x)| *f == i.family && x.provider == i.provider)
        {
            fams.push((i.family.clone(), i));
        }
    }
    let names = gpuplan_core::error::close_names(q, fams.iter().map(|(f, _)| f.as_str()));
    let mut out: Vec<String> = Vec::new();
    for n in names.iter().take(4) {
        for (f, i) in fams.iter().filter(|(f, _)| f == n) {
            let s = format!("{f} ({}, {})", i.provider.name(), i.gpu);
            if !out.contains(&s) {
                out.push(s);
            }
        }
    }
    out.join(", ")
}

/// `catalog show FAMILY`: every family of that name, per provider (Alibaba gn8 is not Tencent
/// GN8), with its sizes, regions, access and sources, plus any wrong-name verdict for the name.
fn show_families(c: &Catalog, q: &str, fam: &[&Instance], format: Format) -> Result<u8> {
    let mut providers: Vec<Provider> = fam.iter().map(|i| i.provider).collect();
    providers.sort();
    providers.dedup();
    let key = q.to_lowercase();
    let wrong: Vec<_> = c
        .wrong
        .iter()
        .filter(|w| w.name.to_lowercase() == key)
        .filter(|w| w.provider.is_none_or(|p| !providers.contains(&p)))
        .collect();
    let of =
        |p: &Provider| -> Vec<&&Instance> { fam.iter().filter(|i| i.provider == *p).collect() };
    if format == Format::Json {
        let groups: Vec<serde_json::Value> = providers
            .iter()
            .map(|p| {
                let rows = of(p);
                serde_json::json!({ "provider": p, "family": rows[0].family, "instances": rows })
            })
            .collect();
        let body = serde_json::json!({ "query": q, "families": groups, "wrong_names": wrong });
        outln!("{}", render::json("family", &body)?);
        return Ok(0);
    }
    for p in &providers {
        out!(
            "{}",
            render::fit(&family_block(c, *p, &of(p)), render::width())
        );
    }
    let related = related_families(c, &key);
    let l = render::lang();
    if !related.is_empty() {
        let sep = gpuplan_core::i18n::text(l, "plan-list-sep");
        let m = Msg::new("catalog-related").arg("list", related.join(&sep));
        outln!("{}", render::fit(&m.render(l), render::width()));
    }
    for w in wrong {
        let m = match w.provider {
            Some(p) => Msg::new("catalog-wrong-note-provider").arg("provider", provider_arg(p)),
            None => Msg::new("catalog-wrong-note"),
        };
        let m = m
            .arg("name", w.name.as_str())
            .arg("verdict", w.verdict.as_str());
        outln!("{}", render::fit(&m.render(l), render::width()));
    }
    Ok(0)
}

/// One provider's types of a family: chip, each type, regions, access and source, in the
/// reader's language (audit r5: `catalog show GN8 --lang zh` was all English, with the
/// confidence as Rust's `Confirmed`).
fn family_block(c: &Catalog, p: Provider, rows: &[&&Instance]) -> String {
    let l = render::lang();
    let first = rows[0];
    let chip = c
        .gpu(&first.gpu)
        .map(|g| {
            let name = gpuplan_core::i18n::gpu_name(&g.name, l);
            format!("{name} ({} GiB)", opt(g.memory_gib))
        })
        .unwrap_or_else(|| first.gpu.clone());
    let head = Msg::new("catalog-family-head")
        .arg("family", first.family.as_str())
        .arg("provider", provider_arg(p))
        .arg("n", rows.len())
        .arg("chip", chip);
    let mut out = format!("{}\n", head.render(l));
    for i in rows {
        let row = Msg::new("catalog-family-row")
            .arg("id", i.id.as_str())
            .arg("gpus", i.gpu_count.to_string())
            .arg("gpu", i.gpu.as_str())
            .arg(
                "vcpu",
                i.vcpu.map(|v| v.to_string()).unwrap_or_else(|| "–".into()),
            )
            .arg("ram", opt(i.ram_gib))
            .arg("net", opt(i.network_gbit))
            .arg("vgpu", if i.vgpu { "yes" } else { "no" });
        out.push_str(&format!("  {}\n", row.render(l)));
    }
    let mut lists: Vec<&Vec<String>> = rows.iter().map(|i| &i.regions).collect();
    lists.dedup();
    if lists.len() == 1 {
        out.push_str(&format!("  {}\n", regions_line(first)));
    } else {
        for i in rows {
            out.push_str(&format!("  {}: {}\n", i.id, regions_line(i)));
        }
    }
    if let Some(a) = first.access {
        out.push_str(&format!(
            "  {}\n",
            access_line(a, first.access_note.as_deref())
        ));
    }
    let source = Msg::new("catalog-source")
        .arg("source", first.source.as_str())
        .arg("as_of", first.as_of.as_str())
        .arg(
            "confidence",
            gpuplan_core::i18n::names::confidence(first.confidence),
        );
    out.push_str(&format!("  {}\n", source.render(l)));
    out
}

/// Other families whose name starts with `key` (or is `ebm` + `key`), once each.
fn related_families(c: &Catalog, key: &str) -> Vec<String> {
    let mut related: Vec<String> = Vec::new();
    for i in c.visible_instances() {
        let f = i.family.to_lowercase();
        // In Chinese the provider by the name the plan tables use (`阿里云`, not `alibaba`; audit
        // r7 #22); English keeps the id, as the family heading does.
        let l = render::lang();
        let provider = if l.is_zh() {
            gpuplan_core::i18n::names::provider(i.provider).render(l)
        } else {
            i.provider.name().to_string()
        };
        let s = format!("{} ({provider}, {})", i.family, i.gpu);
        if f != key
            && (f.starts_with(key) || f.strip_prefix("ebm") == Some(key))
            && !related.contains(&s)
        {
            related.push(s);
        }
    }
    related
}

/// The valid rows of the file a previous import wrote (merged into `cat`, so new rows may refer
/// to them); invalid rows are reported and will not be written back.
fn read_previous_import(cat: &mut Catalog, target: &std::path::Path) -> Result<CatalogFile> {
    if !target.exists() {
        return Ok(CatalogFile::default());
    }
    let (f, mut findings) = read_catalog_file(target).with_context(|| {
        crate::render::Localized(
            gpuplan_core::i18n::Msg::new("cli-ctx-import-unreadable")
                .arg("path", target.display().to_string()),
        )
    })?;
    let label = target.display().to_string();
    let (kept, more) =
        gpuplan_core::catalog::validate::merge_keeping(cat, f, Origin::User(label.clone()), &label);
    findings.extend(more);
    super::warn_rows(&findings, "cli-warn-row-left-out");
    Ok(kept)
}

/// Previous rows with the new ones over them (same key replaced in place, others appended).
fn merge_import(mut merged: CatalogFile, new: CatalogFile) -> CatalogFile {
    use std::collections::HashMap;
    let mut at: HashMap<(Provider, String), usize> = merged
        .instance
        .iter()
        .enumerate()
        .map(|(n, i)| ((i.provider, i.id.clone()), n))
        .collect();
    for mut i in new.instance {
        i.origin = Origin::Builtin; // not written: the origin is the file itself
        match at.get(&(i.provider, i.id.clone())) {
            Some(&n) => merged.instance[n] = i,
            None => {
                at.insert((i.provider, i.id.clone()), merged.instance.len());
                merged.instance.push(i);
            }
        }
    }
    let mut at: HashMap<(String, String, Billing), usize> = merged
        .price
        .iter()
        .enumerate()
        .map(|(n, p)| ((p.instance.clone(), p.region.clone(), p.billing), n))
        .collect();
    for mut pr in new.price {
        pr.origin = Origin::Builtin;
        let key = (pr.instance.clone(), pr.region.clone(), pr.billing);
        match at.get(&key) {
            Some(&n) => merged.price[n] = pr,
            None => {
                at.insert(key, merged.price.len());
                merged.price.push(pr);
            }
        }
    }
    merged
}

/// The file an import writes: a header saying it is generated, then the rows; re-parsed before it
/// is written, so gpuplan never writes a file it could not read back.
fn import_text(p: Provider, today: &str, mut f: CatalogFile) -> Result<String> {
    for i in &mut f.instance {
        i.origin = Origin::Builtin;
    }
    for pr in &mut f.price {
        pr.origin = Origin::Builtin;
    }
    let text = format!(
        "# Generated by `gpuplan catalog import` (last: {} on {today}). Rows here override the\n\
         # built-in catalog. Hand edits are kept only as rows: comments and formatting in this file\n\
         # are rewritten by the next import, and rows that do not validate are left out.\n{}",
        p.name(),
        toml::to_string(&f).context("cannot serialise the imported catalog")?
    );
    gpuplan_core::catalog::parse_catalog_file("imported catalog", &text)?;
    Ok(text)
}

#[cfg(test)]
mod tests {
    use super::csv_field;

    #[test]
    fn csv_cells_are_never_formulas_and_quotes_are_escaped() {
        assert_eq!(csv_field("=HYPERLINK(\"x\")"), "\"'=HYPERLINK(\"\"x\"\")\"");
        assert_eq!(csv_field("+1"), "'+1");
        assert_eq!(csv_field("-5"), "'-5");
        assert_eq!(csv_field("@SUM(A1)"), "'@SUM(A1)");
        assert_eq!(csv_field("a,b"), "\"a,b\"");
        assert_eq!(csv_field("say \"hi\""), "\"say \"\"hi\"\"\"");
        assert_eq!(csv_field("ecs.gn7i"), "ecs.gn7i");
        assert_eq!(csv_field("–"), "–");
    }
}
