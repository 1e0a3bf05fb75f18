//! `gpuplan catalog gpus | instances | show | validate | import`.

use super::{
    config_dir, load_catalog, read_catalog_file, user_catalog_files, write_atomic, CatalogOpts,
};
use crate::cli::{BillingArg, CatalogAction, Format, InstanceFilterArgs, ListFormat, ProviderArg};
use crate::render;
use anyhow::{Context, Result};
use gpuplan_core::catalog::import::{import_alibaba, import_huawei, import_tencent, ImportContext};
use gpuplan_core::catalog::validate::{validate_file, Severity};
use gpuplan_core::catalog::{
    Billing, Catalog, CatalogFile, Instance, InstanceLink, Origin, Price, PriceKind, Provider,
};

pub fn run(action: CatalogAction, opts: &CatalogOpts) -> Result<u8> {
    match action {
        CatalogAction::Gpus { format } => gpus(&load_catalog(opts)?, format),
        CatalogAction::Instances(f) => instances(&load_catalog(opts)?, &f),
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

fn gpus(c: &Catalog, format: Format) -> Result<u8> {
    if format == Format::Json {
        outln!(
            "{}",
            render::json("gpus", &serde_json::json!({ "gpus": c.gpus }))?
        );
        return Ok(0);
    }
    let header = [
        "id",
        "name",
        "GiB",
        "GB/s",
        "bf16/fp16 TFLOPS",
        "fp8",
        "link",
        "link GB/s",
        "stack",
        "confidence",
        "as of",
    ];
    let rows: Vec<Vec<String>> = c
        .gpus
        .iter()
        .map(|g| {
            vec![
                g.id.clone(),
                g.name.clone(),
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
        _ => outln!("{}", render::table(&header, &rows)),
    }
    outln!("– = not sourced (left out rather than guessed). Sources: `gpuplan catalog gpus --format json`.");
    Ok(0)
}

fn gpu_matches(c: &Catalog, inst: &Instance, q: &str) -> bool {
    let q = q.to_lowercase().replace(' ', "-");
    let q = q.trim_start_matches("nvidia-");
    inst.gpu.to_lowercase().starts_with(q)
        || c.gpu(&inst.gpu)
            .is_some_and(|g| g.name.to_lowercase().replace(' ', "-").contains(q))
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
    format!("¥{:.2} ({kind}, {}, {})", p.cny, p.region, p.as_of)
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

fn instances(c: &Catalog, f: &InstanceFilterArgs) -> Result<u8> {
    let rows = filtered(c, f);
    if f.format == ListFormat::Json {
        let v: Vec<_> = rows
            .iter()
            .map(|(i, p)| serde_json::json!({ "instance": i, "price": p }))
            .collect();
        outln!(
            "{}",
            render::json(
                "instances",
                &serde_json::json!({ "billing": billing(f.billing).name(), "instances": v })
            )?
        );
        return Ok(0);
    }
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
        &format!("{} price", billing(f.billing).name()),
        "confidence",
        "origin",
    ];
    let table: Vec<Vec<String>> = rows
        .iter()
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
                    Origin::User(f) => format!("user: {f}"),
                },
            ]
        })
        .collect();
    let header: Vec<&str> = header.to_vec();
    match f.format {
        ListFormat::Csv => {
            let mut w = String::new();
            for r in std::iter::once(header.iter().map(|s| s.to_string()).collect::<Vec<_>>())
                .chain(table)
            {
                w.push_str(&r.iter().map(|c| csv_field(c)).collect::<Vec<_>>().join(","));
                w.push('\n');
            }
            out!("{w}");
        }
        ListFormat::Markdown => out!("{}", render::markdown(&header, &table)),
        _ => {
            outln!("{}", render::table(&header, &table));
            outln!("{} instance types. Prices: list = published, user = yours, estimate = derived (see `catalog show`). – = not sourced.", rows.len());
        }
    }
    Ok(0)
}

fn format_count(n: f64) -> String {
    if n.fract() == 0.0 {
        format!("{n:.0}")
    } else {
        format!("{n:.3}")
    }
}

fn csv_field(s: &str) -> String {
    if s.contains([',', '"', '\n']) {
        format!("\"{}\"", s.replace('"', "\"\""))
    } else {
        s.to_string()
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
    let i = c.find_instance(id)?;
    let prices: Vec<Price> = [Billing::OnDemand, Billing::Monthly, Billing::Spot]
        .iter()
        .filter_map(|b| c.best_price(i, *b, None))
        .collect();
    if format == Format::Json {
        outln!(
            "{}",
            render::json(
                "instance",
                &serde_json::json!({ "instance": i, "prices": prices, "all_prices": c.prices_for(&i.id).collect::<Vec<_>>() })
            )?
        );
        return Ok(0);
    }
    outln!("{}", toml::to_string_pretty(i)?.trim_end());
    if let Some(g) = c.gpu(&i.gpu) {
        outln!(
            "gpu: {} ({} GiB, {} GB/s, {} TFLOPS bf16/fp16; {}, {})",
            g.name,
            opt(g.memory_gib),
            opt(g.memory_bandwidth_gbs),
            opt(g.tflops.bf16.or(g.tflops.fp16)),
            g.confidence,
            g.as_of
        );
    } else if !i.gpu_is_mapped() {
        outln!(
            "gpu: NOT MAPPED ({}); add `[gpu_aliases]` to a user catalog to plan with it",
            i.gpu
        );
    }
    if prices.is_empty() {
        outln!("prices: none known (no list price was found for this type; import yours with `gpuplan catalog import`)");
    }
    for p in prices {
        outln!(
            "price {}: {}{}",
            p.billing.name(),
            price_label(&p),
            p.method
                .map(|m| format!(" — method: {m}"))
                .unwrap_or_default()
        );
        outln!("  source: {}", p.source);
    }
    Ok(0)
}

fn validate(opts: &CatalogOpts, files: &[std::path::PathBuf], format: Format) -> Result<u8> {
    let merged = load_catalog(opts)?;
    let mut findings = Vec::new();
    let targets: Vec<(String, CatalogFile)> = if files.is_empty() {
        let mut v = gpuplan_core::catalog::builtin_files()?;
        for p in user_catalog_files()
            .into_iter()
            .filter(|_| !opts.no_user)
            .chain(opts.extra.iter().cloned())
        {
            v.push((p.display().to_string(), read_catalog_file(&p)?));
        }
        v
    } else {
        files
            .iter()
            .map(|p| Ok((p.display().to_string(), read_catalog_file(p)?)))
            .collect::<Result<_>>()?
    };
    let mut merged = merged;
    for (name, f) in &targets {
        if files.iter().any(|p| p.display().to_string() == *name) {
            merged.merge(f.clone(), Origin::User(name.clone()), name);
        }
    }
    for (name, f) in &targets {
        findings.extend(validate_file(name, f, &merged));
    }
    let errors = findings
        .iter()
        .filter(|f| f.severity == Severity::Error)
        .count();
    if format == Format::Json {
        outln!(
            "{}",
            render::json(
                "validation",
                &serde_json::json!({ "files": targets.iter().map(|t| &t.0).collect::<Vec<_>>(), "errors": errors, "findings": findings })
            )?
        );
    } else {
        for f in &findings {
            outln!(
                "{}: {} {}: {}",
                if f.severity == Severity::Error {
                    "error"
                } else {
                    "warning"
                },
                f.file,
                f.location,
                f.message
            );
        }
        outln!(
            "{} file(s) checked: {errors} error(s), {} warning(s)",
            targets.len(),
            findings.len() - errors
        );
    }
    Ok(if errors > 0 { 1 } else { 0 })
}

fn today() -> String {
    // Days since the Unix epoch → civil date (Howard Hinnant's days_from_civil inverse).
    let secs = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map(|d| d.as_secs())
        .unwrap_or(0);
    let z = (secs / 86_400) as i64 + 719_468;
    let era = z.div_euclid(146_097);
    let doe = z - era * 146_097;
    let yoe = (doe - doe / 1460 + doe / 36_524 - doe / 146_096) / 365;
    let doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    let mp = (5 * doy + 2) / 153;
    let d = doy - (153 * mp + 2) / 5 + 1;
    let m = if mp < 10 { mp + 3 } else { mp - 9 };
    let y = yoe + era * 400 + i64::from(m <= 2);
    format!("{y:04}-{m:02}-{d:02}")
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
    let cat = load_catalog(opts)?;
    let docs: Vec<(String, String)> = files
        .iter()
        .map(|f| {
            Ok((
                f.display().to_string(),
                super::read_input(f, "provider response")?,
            ))
        })
        .collect::<Result<_>>()?;
    let ctx = ImportContext {
        region,
        today: today(),
        price_instance: instance,
        price_billing: bill.map(billing),
    };
    let r = match p {
        ProviderArg::Alibaba => import_alibaba(&docs, &ctx, &cat)?,
        ProviderArg::Huawei => import_huawei(&docs, &ctx, &cat)?,
        ProviderArg::Tencent => import_tencent(&docs, &ctx, &cat)?,
    };
    for w in &r.warnings {
        eprintln!("warning: {w}");
    }
    let dir = config_dir()
        .context("no config directory: set GPUPLAN_CONFIG_DIR or HOME")?
        .join("catalog");
    let target = dir.join(format!("imported-{}.toml", provider(p).name()));
    // Merge into the existing imported file: same keys replaced, others kept.
    let mut merged = if target.exists() {
        read_catalog_file(&target)?
    } else {
        CatalogFile::default()
    };
    let (n_i, n_p) = (r.file.instance.len(), r.file.price.len());
    for mut i in r.file.instance {
        i.origin = Origin::Builtin; // not written: the origin is the file itself
        match merged
            .instance
            .iter_mut()
            .find(|x| x.id == i.id && x.provider == i.provider)
        {
            Some(x) => *x = i,
            None => merged.instance.push(i),
        }
    }
    for mut pr in r.file.price {
        pr.origin = Origin::Builtin;
        match merged
            .price
            .iter_mut()
            .find(|x| x.instance == pr.instance && x.region == pr.region && x.billing == pr.billing)
        {
            Some(x) => *x = pr,
            None => merged.price.push(pr),
        }
    }
    let text = format!(
        "# Imported by `gpuplan catalog import {}` on {}. Rows here override the built-in catalog.\n{}",
        provider(p).name(),
        ctx.today,
        toml::to_string(&merged).context("cannot serialise the imported catalog")?
    );
    // Re-parse before writing: never write a file gpuplan could not read back.
    gpuplan_core::catalog::parse_catalog_file("imported catalog", &text)?;
    if dry_run {
        out!("{text}");
        eprintln!(
            "dry run: {n_i} instance type(s), {n_p} price(s) would be written to {}",
            target.display()
        );
    } else {
        write_atomic(&target, &text)?;
        eprintln!(
            "imported {n_i} instance type(s) and {n_p} price(s) into {}",
            target.display()
        );
    }
    Ok(0)
}
