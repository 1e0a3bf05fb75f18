//! `gpuplan prices` (list prices with kind, region and age; `--by-gpu` compares chips across
//! providers) and `gpuplan prices fetch PROVIDER` (the providers' price APIs → a user catalog).

use super::{config_dir, load_catalog, read_catalog_file, write_atomic, CatalogOpts};
use crate::cli::{FetchArgs, PriceFormat, PricesAction, PricesArgs, PricesListArgs, ProviderArg};
use crate::creds;
use crate::fetch::{self, Client, FetchSpec, Policy, Task};
use crate::render;
use anyhow::{Context, Result};
use gpuplan_core::catalog::{
    Billing, Catalog, CatalogFile, Instance, Origin, Price, PriceKind, Provider,
};
use gpuplan_core::i18n::{Lang, Msg};
use gpuplan_core::plan::money::HOURS_PER_MONTH;
use gpuplan_core::signing::{days_from_civil, UtcTime};
use serde::Serialize;

pub fn run(args: PricesArgs, opts: &CatalogOpts) -> Result<u8> {
    match args.action {
        Some(PricesAction::Fetch(f)) => fetch_cmd(*f, opts),
        None => list(&load_catalog(opts)?, &args.list, opts.wide),
    }
}

fn provider(p: ProviderArg) -> Provider {
    match p {
        ProviderArg::Alibaba => Provider::Alibaba,
        ProviderArg::Huawei => Provider::Huawei,
        ProviderArg::Tencent => Provider::Tencent,
    }
}

fn now_secs() -> i64 {
    std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map(|d| d.as_secs() as i64)
        .unwrap_or(0)
}

/// Whole days from `as_of` to today; `None` when `as_of` is not a date.
pub fn age_days(as_of: &str, today_secs: i64) -> Option<i64> {
    days_from_civil(as_of).map(|d| (today_secs.div_euclid(86_400) - d).max(0))
}

pub fn kind_name(k: PriceKind) -> &'static str {
    match k {
        PriceKind::List => "list",
        PriceKind::User => "user",
        PriceKind::Estimate => "estimate",
        PriceKind::Api => "api",
    }
}

/// CNY per GPU-hour (monthly prices spread over 730 hours).
pub fn per_gpu_hour(p: &Price, inst: &Instance) -> Option<f64> {
    if inst.gpu_count <= 0.0 {
        return None;
    }
    let hourly = match p.billing {
        Billing::Monthly => p.cny / HOURS_PER_MONTH,
        _ => p.cny,
    };
    Some(hourly / inst.gpu_count)
}

#[derive(Serialize)]
struct Row<'a> {
    provider: &'static str,
    instance: &'a str,
    gpu: &'a str,
    gpu_count: f64,
    region: &'a str,
    billing: &'static str,
    cny: f64,
    cny_per_gpu_hour: Option<f64>,
    kind: &'static str,
    as_of: &'a str,
    age_days: Option<i64>,
    source: &'a str,
}

fn gpu_matches(c: &Catalog, inst: &Instance, q: &str) -> bool {
    super::catalog::gpu_query_matches(c, &inst.gpu, q)
}

fn rows<'a>(c: &'a Catalog, f: &PricesListArgs, today: i64) -> Vec<Row<'a>> {
    let providers: Vec<Provider> = f.provider.iter().map(|p| provider(*p)).collect();
    let billing = f.billing.map(super::catalog::billing);
    let mut out: Vec<Row> = c
        .prices
        .iter()
        .filter(|p| providers.is_empty() || providers.contains(&p.provider))
        .filter(|p| billing.is_none_or(|b| p.billing == b))
        .filter_map(|p| {
            let inst = c
                .instances
                .iter()
                .find(|i| i.id == p.instance && i.provider == p.provider)?;
            if let Some(q) = &f.gpu {
                if !gpu_matches(c, inst, q) {
                    return None;
                }
            }
            Some(Row {
                provider: p.provider.name(),
                instance: &p.instance,
                gpu: &inst.gpu,
                gpu_count: inst.gpu_count,
                region: &p.region,
                billing: p.billing.name(),
                cny: p.cny,
                cny_per_gpu_hour: per_gpu_hour(p, inst),
                kind: kind_name(p.kind),
                as_of: &p.as_of,
                age_days: age_days(&p.as_of, today),
                source: &p.source,
            })
        })
        .collect();
    out.sort_by(|a, b| {
        (a.provider, a.instance, a.region, a.billing)
            .cmp(&(b.provider, b.instance, b.region, b.billing))
    });
    out
}

fn money(x: f64) -> String {
    format!("{x:.2}")
}

fn age(a: Option<i64>) -> String {
    a.map(|d| format!("{d} d")).unwrap_or_else(|| "?".into())
}

fn csv_field(s: &str) -> String {
    if s.contains([',', '"', '\n']) {
        format!("\"{}\"", s.replace('"', "\"\""))
    } else {
        s.to_string()
    }
}

/// The body of the `prices` JSON document (the list, not `--by-gpu`), shared with
/// `gpuplan serve`.
pub fn list_json(c: &Catalog, f: &PricesListArgs) -> serde_json::Value {
    rows_json(&rows(c, f, today_secs()))
}

fn rows_json(rows: &[Row]) -> serde_json::Value {
    serde_json::json!({ "prices": rows })
}

/// `--gpu ""` matched every price: the filter was silently ignored (audit r12 #2).
/// `field` names it as the user wrote it (`--gpu`, the API's `gpu`).
pub fn check_gpu_word(field: &str, gpu: Option<&str>) -> Result<(), gpuplan_core::CoreError> {
    match gpu {
        Some(g) if g.trim().is_empty() => Err(gpuplan_core::CoreError::invalid(
            field,
            "\"\"",
            "an accelerator id or name prefix, e.g. A100 (`gpuplan catalog gpus` lists them)",
        )),
        _ => Ok(()),
    }
}

fn list(c: &Catalog, f: &PricesListArgs, wide: bool) -> Result<u8> {
    check_gpu_word("--gpu", f.gpu.as_deref())?;
    super::catalog::check_gpu_known(c, "--gpu", f.gpu.as_deref())?;
    let today = today_secs();
    if f.by_gpu {
        return by_gpu(c, f, today, wide);
    }
    let rows = rows(c, f, today);
    match f.format {
        PriceFormat::Json => {
            outln!("{}", render::json("prices", &rows_json(&rows))?);
        }
        PriceFormat::Csv => out!("{}", list_csv(&rows)),
        PriceFormat::Table => {
            if rows.is_empty() {
                eprintln!(
                    "{}",
                    gpuplan_core::i18n::text(crate::render::lang(), "prices-none")
                );
                return Ok(0);
            }
            outln!("{}", list_table(&rows, wide));
            let old = rows
                .iter()
                .filter(|r| r.age_days.is_some_and(|d| d > 90))
                .count();
            if old > 0 {
                crate::render::note(gpuplan_core::i18n::Msg::new("prices-old-note").arg("n", old));
            }
        }
    }
    Ok(0)
}

/// `prices --format csv`: a header line, then one line per price.
fn list_csv(rows: &[Row]) -> String {
    let mut s = "provider,instance,gpu,gpu_count,region,billing,cny,cny_per_gpu_hour,kind,as_of,age_days,source\n".to_string();
    for r in rows {
        s.push_str(&format!(
            "{},{},{},{},{},{},{},{},{},{},{},{}\n",
            r.provider,
            csv_field(r.instance),
            csv_field(r.gpu),
            r.gpu_count,
            csv_field(r.region),
            r.billing,
            r.cny,
            r.cny_per_gpu_hour
                .map(|x| format!("{x:.4}"))
                .unwrap_or_default(),
            r.kind,
            r.as_of,
            r.age_days.map(|x| x.to_string()).unwrap_or_default(),
            csv_field(r.source)
        ));
    }
    s
}

/// `prices` as a table.
fn list_table(rows: &[Row], wide: bool) -> String {
    let keys = [
        "provider",
        "instance",
        "gpu",
        "region",
        "billing",
        "¥",
        "per-gpu-hour",
        "kind",
        "as-of",
        "age",
    ];
    let t: Vec<Vec<String>> = rows
        .iter()
        .map(|r| {
            vec![
                name_cell("provider", r.provider),
                r.instance.into(),
                format!("{}×{}", r.gpu_count, r.gpu),
                r.region.into(),
                name_cell("billing", r.billing),
                money(r.cny),
                r.cny_per_gpu_hour.map(money).unwrap_or_else(|| "–".into()),
                name_cell("price-kind", r.kind),
                r.as_of.into(),
                age(r.age_days),
            ]
        })
        .collect();
    // Narrow terminals: the instance id and the GPUs stay whole; the date (the age says it),
    // the provider (the id says it), then the GPUs, the region and the kind are left out.
    prices_table(&keys, &t, &[1, 2], &[8, 0, 2, 3, 7], wide)
}

#[derive(Serialize)]
struct GpuRow<'a> {
    gpu: &'a str,
    provider: &'static str,
    cny_per_gpu_hour: f64,
    instance: &'a str,
    region: &'a str,
    billing: &'static str,
    kind: &'static str,
    age_days: Option<i64>,
    /// This provider's price relative to the cheapest provider for the chip.
    vs_cheapest: f64,
}

/// The cheapest per-GPU-hour price of each chip at each provider.
fn by_gpu(c: &Catalog, f: &PricesListArgs, today: i64, wide: bool) -> Result<u8> {
    let billing = f.billing.unwrap_or(crate::cli::BillingArg::OnDemand);
    let f2 = PricesListArgs {
        provider: f.provider.clone(),
        gpu: f.gpu.clone(),
        billing: Some(billing),
        by_gpu: false,
        format: f.format,
    };
    let rows = rows(c, &f2, today);
    let out = cheapest_per_gpu(&rows);
    match f.format {
        PriceFormat::Json => {
            let body = serde_json::json!({ "billing": billing_name(billing), "by_gpu": out });
            outln!("{}", render::json("prices-by-gpu", &body)?);
        }
        PriceFormat::Csv => out!("{}", by_gpu_csv(&out)),
        PriceFormat::Table => {
            if out.is_empty() {
                eprintln!(
                    "{}",
                    Msg::new("prices-none-billing")
                        .arg("billing", billing_name(billing))
                        .render(crate::render::lang())
                );
                return Ok(0);
            }
            outln!("{}", by_gpu_table(&out, wide));
        }
    }
    Ok(0)
}

/// The cheapest priced row per (GPU, provider), with its ratio to the GPU's cheapest; sorted by
/// GPU, then price.
fn cheapest_per_gpu<'a>(rows: &'a [Row<'a>]) -> Vec<GpuRow<'a>> {
    let mut best: std::collections::BTreeMap<(&str, &str), &Row> = Default::default();
    for r in rows.iter().filter(|r| !r.gpu.starts_with("unknown:")) {
        let Some(x) = r.cny_per_gpu_hour else {
            continue;
        };
        let e = best.entry((r.gpu, r.provider)).or_insert(r);
        if e.cny_per_gpu_hour.is_some_and(|y| x < y) {
            *e = r;
        }
    }
    let mut out: Vec<GpuRow> = best
        .values()
        .map(|r| GpuRow {
            gpu: r.gpu,
            provider: r.provider,
            cny_per_gpu_hour: r.cny_per_gpu_hour.unwrap_or(f64::NAN),
            instance: r.instance,
            region: r.region,
            billing: r.billing,
            kind: r.kind,
            age_days: r.age_days,
            vs_cheapest: 1.0,
        })
        .collect();
    let mins: std::collections::BTreeMap<&str, f64> =
        out.iter().fold(Default::default(), |mut m, r| {
            let e = m.entry(r.gpu).or_insert(f64::INFINITY);
            *e = e.min(r.cny_per_gpu_hour);
            m
        });
    for r in &mut out {
        r.vs_cheapest = r.cny_per_gpu_hour / mins[r.gpu];
    }
    out.sort_by(|a, b| {
        a.gpu
            .cmp(b.gpu)
            .then(a.cny_per_gpu_hour.total_cmp(&b.cny_per_gpu_hour))
    });
    out
}

/// `prices --by-gpu --format csv`: a header line, then one line per row.
fn by_gpu_csv(out: &[GpuRow]) -> String {
    let mut s = "gpu,provider,cny_per_gpu_hour,vs_cheapest,instance,region,billing,kind,age_days\n"
        .to_string();
    for r in out {
        s.push_str(&format!(
            "{},{},{:.4},{:.3},{},{},{},{},{}\n",
            csv_field(r.gpu),
            r.provider,
            r.cny_per_gpu_hour,
            r.vs_cheapest,
            csv_field(r.instance),
            csv_field(r.region),
            r.billing,
            r.kind,
            r.age_days.map(|x| x.to_string()).unwrap_or_default()
        ));
    }
    s
}

/// A provider, billing or price-kind id (`alibaba`, `on-demand`, `list`) as the plan tables name
/// it in Chinese (`阿里云`, `按量付费`, `公开价`; audit r7 #22). English keeps the id that
/// `--provider` and `--billing` take.
fn name_cell(prefix: &str, id: &str) -> String {
    let l = render::lang();
    let key = format!("{prefix}-{}", id.replace('-', "_"));
    if l.is_zh() && gpuplan_core::i18n::has_message(l, &key) {
        gpuplan_core::i18n::text(l, &key)
    } else {
        id.to_string()
    }
}

/// A table whose headers are the `prices-col-*` messages of `keys`.
fn prices_table(
    keys: &[&str],
    rows: &[Vec<String>],
    keep: &[usize],
    drop_order: &[usize],
    wide: bool,
) -> String {
    let header = render::header("prices-col", keys);
    let header: Vec<&str> = header.iter().map(String::as_str).collect();
    render::table_fit(&header, rows, keep, drop_order, wide)
}

/// `prices --by-gpu` as a table.
fn by_gpu_table(out: &[GpuRow], wide: bool) -> String {
    let keys = [
        "gpu",
        "provider",
        "per-gpu-hour",
        "vs-cheapest",
        "instance",
        "region",
        "billing",
        "kind",
        "age",
    ];
    let t: Vec<Vec<String>> = out
        .iter()
        .map(|r| {
            vec![
                r.gpu.into(),
                name_cell("provider", r.provider),
                money(r.cny_per_gpu_hour),
                format!("×{:.2}", r.vs_cheapest),
                r.instance.into(),
                r.region.into(),
                name_cell("billing", r.billing),
                name_cell("price-kind", r.kind),
                age(r.age_days),
            ]
        })
        .collect();
    prices_table(&keys, &t, &[0, 4], &[8, 5, 7, 6], wide)
}

fn billing_name(b: crate::cli::BillingArg) -> &'static str {
    super::catalog::billing(b).name()
}

/// Default region per provider when neither `--region` nor the catalog names one.
fn default_region(p: Provider) -> &'static str {
    match p {
        Provider::Alibaba => "cn-hangzhou",
        Provider::Tencent => "ap-guangzhou",
        Provider::Huawei => "cn-north-4",
    }
}

/// The tasks: the chosen types × regions × billings.
fn plan_tasks(c: &Catalog, p: Provider, a: &FetchArgs) -> Result<Vec<Task>> {
    let mut types: Vec<&Instance> = Vec::new();
    if !a.instances.is_empty() {
        for id in &a.instances {
            let i = c.find_instance(id).with_context(|| "--instance")?;
            if i.provider != p {
                return Err(crate::render::fail(
                    gpuplan_core::i18n::Msg::new("prices-err-instance-provider")
                        .arg("id", id.as_str())
                        .arg("owner", i.provider.name())
                        .arg("asked", p.name()),
                ));
            }
            types.push(i);
        }
    } else {
        types = c
            .visible_instances()
            .filter(|i| i.provider == p && i.gpu_count > 0.0)
            .filter(|i| {
                a.families.is_empty()
                    || a.families
                        .iter()
                        .any(|f| f.trim_start_matches("ecs.").eq_ignore_ascii_case(&i.family))
            })
            .collect();
        if types.is_empty() {
            return Err(crate::render::fail(
                gpuplan_core::i18n::Msg::new("prices-err-family")
                    .arg("family", a.families.join(","))
                    .arg("provider", p.name()),
            ));
        }
    }
    let mut billings: Vec<Billing> = Vec::new();
    for b in &a.billing {
        let b = super::catalog::billing(*b);
        if !billings.contains(&b) {
            billings.push(b);
        }
    }
    let mut tasks = Vec::new();
    for i in types {
        let regions: Vec<String> = if !a.regions.is_empty() {
            a.regions.clone()
        } else if !i.regions.is_empty() {
            i.regions.clone()
        } else {
            vec![default_region(p).to_string()]
        };
        for r in regions {
            for b in &billings {
                tasks.push(Task {
                    instance: i.id.clone(),
                    region: r.clone(),
                    billing: *b,
                });
            }
        }
    }
    Ok(tasks)
}

pub fn prices_file(p: Provider) -> Result<std::path::PathBuf> {
    Ok(config_dir()
        .context("no config directory: set GPUPLAN_CONFIG_DIR or HOME")?
        .join("catalog")
        .join(format!("prices-{}.toml", p.name())))
}

/// Most retries of one request, and the longest timeout, accepted (a day of waiting at most).
const MAX_RETRIES: u32 = 100;
const MAX_TIMEOUT_S: u64 = 3600;

/// `--max-rps` positive and finite (at most 1000), `--retries` 0–100, `--timeout` 1–3600 s.
fn check_fetch_policy(a: &FetchArgs) -> Result<()> {
    let fail = |id: &'static str, flag: &'static str, value: String| {
        crate::render::fail(
            Msg::new(id)
                .arg("flag", flag)
                .arg("value", gpuplan_core::error::show_value(value)),
        )
    };
    if !(a.max_rps > 0.0 && a.max_rps <= 1000.0) {
        return Err(fail(
            "fetch-err-max-rps",
            "--max-rps",
            a.max_rps.to_string(),
        ));
    }
    if a.retries > MAX_RETRIES {
        return Err(fail(
            "fetch-err-retries",
            "--retries",
            a.retries.to_string(),
        ));
    }
    if !(1..=MAX_TIMEOUT_S).contains(&a.timeout) {
        return Err(fail(
            "fetch-err-timeout",
            "--timeout",
            a.timeout.to_string(),
        ));
    }
    Ok(())
}

fn fetch_cmd(a: FetchArgs, opts: &CatalogOpts) -> Result<u8> {
    let p = provider(a.provider);
    check_fetch_policy(&a)?;
    if let Some(e) = &a.endpoint {
        fetch::split_endpoint(e).map_err(|m| anyhow::anyhow!(m))?;
    }
    let cat = load_catalog(opts)?;
    let tasks = plan_tasks(&cat, p, &a)?;
    let target = prices_file(p)?;
    // Held from the read to the write, so a concurrent fetch or import cannot lose rows.
    let _lock = if a.dry_run {
        None
    } else {
        Some(super::userfiles::lock(&target)?)
    };
    // Read the existing file first: a file gpuplan cannot read is never overwritten.
    let existing = read_existing_prices(&target)?;
    if a.dry_run {
        dry_run(p, &tasks, &target);
        return Ok(0);
    }
    let creds = load_creds(p)?;
    let now = now_secs();
    let spec = FetchSpec {
        endpoint: a.endpoint.clone(),
        zones: a.zones.clone(),
        image: a.image.clone(),
        now,
    };
    let mut fetcher = fetch::make_fetcher(p, creds, spec);
    let mut client = Client::new(fetch_policy(&a));
    let outcome = run_with_progress(fetcher.as_mut(), &mut client, &tasks);
    let (n_ok, n_fail) = (outcome.prices.len(), outcome.failed.len());
    if n_ok > 0 {
        let merged = merge_prices(existing, outcome.prices);
        write_prices(p, now, &merged, &target)?;
        crate::render::note(
            Msg::new("fetch-done")
                .arg("n", n_ok as u64)
                .arg("provider", p.name())
                .arg("sent", client.sent as u64)
                .arg("path", target.display().to_string()),
        );
    }
    if n_fail > 0 {
        report_failures(&outcome.failed, tasks.len(), n_ok);
        return Ok(crate::exit::PARTIAL);
    }
    Ok(0)
}

/// `--dry-run`: the requests that would be sent, and where their prices would be written.
fn dry_run(p: Provider, tasks: &[Task], target: &std::path::Path) {
    for t in tasks {
        outln!("{}", t.label());
    }
    crate::render::note(
        Msg::new("fetch-dry-run")
            .arg("n", tasks.len() as u64)
            .arg("provider", p.name())
            .arg("path", target.display().to_string()),
    );
}

/// The provider's credentials, with their warnings and the masked id and source on stderr.
fn load_creds(p: Provider) -> Result<creds::Credentials> {
    let mut warnings = Vec::new();
    let creds = creds::load(p, &creds::Sources::real(), &mut warnings)?;
    for w in &warnings {
        crate::render::warn(Msg::raw(w));
    }
    crate::render::note(
        Msg::new("fetch-using-credentials")
            .arg("provider", p.name())
            .arg("id", creds::mask(&creds.id))
            .arg("source", creds.source.to_string()),
    );
    Ok(creds)
}

/// The failed requests on stderr, saying whether anything was written.
fn report_failures(failed: &[(Task, fetch::ApiError)], sent: usize, n_ok: usize) {
    let id = if n_ok == 0 {
        "fetch-failed-none-written"
    } else {
        "fetch-failed"
    };
    crate::render::warn(
        Msg::new(id)
            .arg("n", failed.len() as u64)
            .arg("total", sent as u64),
    );
    for (t, e) in failed {
        eprintln!("  {}: {e}", t.label());
    }
}

/// The price file a previous fetch wrote (empty when there is none); its bad rows are reported
/// and left out, a file that cannot be read is an error.
fn read_existing_prices(target: &std::path::Path) -> Result<CatalogFile> {
    if !target.exists() {
        return Ok(CatalogFile::default());
    }
    let (f, findings) = read_catalog_file(target).with_context(|| {
        format!(
            "the existing price file {} cannot be read, so nothing was fetched: fix or move it",
            target.display()
        )
    })?;
    super::warn_rows(&findings, "cli-warn-row-left-out");
    Ok(f)
}

/// Retries, rate and timeout of the flags (tests shorten the backoff; not a user setting).
fn fetch_policy(a: &FetchArgs) -> Policy {
    let mut policy = Policy {
        retries: a.retries,
        max_rps: a.max_rps,
        timeout: std::time::Duration::from_secs(a.timeout),
        ..Policy::default()
    };
    if let Some(ms) = std::env::var("GPUPLAN_FETCH_BACKOFF_MS")
        .ok()
        .and_then(|v| v.parse::<u64>().ok())
    {
        policy.backoff_base = std::time::Duration::from_millis(ms);
        policy.backoff_cap = std::time::Duration::from_millis(ms * 8);
    }
    policy
}

/// Every task sent, with a progress bar on a terminal.
fn run_with_progress(
    fetcher: &mut dyn fetch::Fetcher,
    client: &mut Client,
    tasks: &[Task],
) -> fetch::Outcome {
    let bar = progress(tasks.len());
    let outcome = fetch::run_tasks(fetcher, client, tasks, &mut |t, _ok| {
        if let Some(b) = &bar {
            b.set_message(t.label());
            b.inc(1);
        }
    });
    if let Some(b) = &bar {
        b.finish_and_clear();
    }
    outcome
}

/// The fetched prices over the existing file: a row of the same instance, region and billing
/// is replaced, others are added.
fn merge_prices(existing: CatalogFile, prices: Vec<Price>) -> CatalogFile {
    let mut merged = existing;
    for mut pr in prices {
        pr.origin = Origin::Builtin; // not written: the origin is the file itself
        match merged
            .price
            .iter_mut()
            .find(|x| x.instance == pr.instance && x.region == pr.region && x.billing == pr.billing)
        {
            Some(x) => *x = pr,
            None => merged.price.push(pr),
        }
    }
    merged
}

/// The merged price file, checked to parse back, written atomically.
fn write_prices(
    p: Provider,
    now: i64,
    merged: &CatalogFile,
    target: &std::path::Path,
) -> Result<()> {
    let text = format!(
        "# Written by `gpuplan prices fetch {}`; last run {}. Rows here override the built-in prices.\n{}",
        p.name(),
        UtcTime::from_unix(now).rfc3339(),
        toml::to_string(merged).context("cannot serialise the price catalog")?
    );
    gpuplan_core::catalog::parse_catalog_file("fetched price catalog", &text)?;
    write_atomic(target, &text)?;
    Ok(())
}

fn progress(n: usize) -> Option<indicatif::ProgressBar> {
    use std::io::IsTerminal;
    if n < 2 || !std::io::stderr().is_terminal() {
        return None;
    }
    let b = indicatif::ProgressBar::new(n as u64);
    if let Ok(style) = indicatif::ProgressStyle::with_template(
        "{bar:30} {pos}/{len} (type × region × billing) ETA {eta} {msg}",
    ) {
        b.set_style(style);
    }
    Some(b)
}

/// Today for price ages, Unix seconds: `$GPUPLAN_TODAY` (YYYY-MM-DD) when set — for
/// reproducible output, as the snapshot tests use — else the system clock. An invalid value
/// is refused before any command runs ([`check_today`]).
pub fn today_secs() -> i64 {
    env_today()
        .ok()
        .flatten()
        .map(|days| days * 86_400)
        .unwrap_or_else(now_secs)
}

/// Refuses an invalid `$GPUPLAN_TODAY` (exit 2, naming the variable, the value and the
/// format): a mistyped date would otherwise fall back to the clock unnoticed and age every
/// price by the wrong number of days. Called once before a command runs.
pub fn check_today() -> Result<()> {
    env_today().map(|_| ())
}

/// `$GPUPLAN_TODAY` in days since 1970-01-01: `None` when unset or empty, an error when it
/// is not a calendar date written YYYY-MM-DD.
fn env_today() -> Result<Option<i64>> {
    let value = match std::env::var("GPUPLAN_TODAY") {
        Err(std::env::VarError::NotPresent) => return Ok(None),
        Err(std::env::VarError::NotUnicode(v)) => v.to_string_lossy().into_owned(),
        Ok(v) if v.trim().is_empty() => return Ok(None),
        Ok(v) => v,
    };
    strict_day(value.trim())
        .map(Some)
        .ok_or_else(|| render::fail(Msg::new("cli-err-today").arg("value", value)))
}

/// Days since 1970-01-01 of a date written exactly YYYY-MM-DD that exists in the calendar
/// (`2026-02-30` and `2026-13-01` do not).
fn strict_day(s: &str) -> Option<i64> {
    let days = days_from_civil(s).filter(|_| s.len() == 10)?;
    (UtcTime::from_unix(days * 86_400).date() == s).then_some(days)
}

/// "1281 d old" / "1281 天前" for a price's `as_of`, or nothing when it is not a date.
pub fn age_label(as_of: &str, lang: Lang) -> String {
    match age_days(as_of, today_secs()) {
        Some(d) => Msg::new("price-age").arg("days", d).render(lang),
        None => String::new(),
    }
}

/// `30d`, `30` (days), `4w` (weeks) → days.
pub fn parse_age_days(s: &str) -> Result<i64> {
    let t = s.trim().to_ascii_lowercase();
    let (num, mult) = if let Some(n) = t.strip_suffix('d') {
        (n, 1)
    } else if let Some(n) = t.strip_suffix('w') {
        (n, 7)
    } else {
        (t.as_str(), 1)
    };
    match num.trim().parse::<i64>() {
        Ok(n) if n >= 0 => Ok(n * mult),
        _ => Err(crate::render::fail(
            Msg::new("cli-err-max-price-age").arg("value", s),
        )),
    }
}

/// Prices older than this get a warning in plans.
pub const STALE_DAYS: i64 = 90;

/// The age of each shown plan's chosen price.
#[derive(Serialize, Debug, Clone)]
pub struct PlanPriceAge {
    pub rank: usize,
    pub instance: String,
    pub provider: &'static str,
    pub region: String,
    pub billing: &'static str,
    pub kind: &'static str,
    pub as_of: String,
    pub age_days: Option<i64>,
    /// The command that refreshes this price.
    pub refresh: String,
}

pub fn refresh_command(p: &Price) -> String {
    let mut c = format!(
        "gpuplan prices fetch {} --instance {}",
        p.provider.name(),
        p.instance
    );
    if p.region != "unspecified" && !p.region.is_empty() {
        c.push_str(&format!(" --region {}", p.region));
    }
    c.push_str(&format!(" --billing {}", p.billing.name()));
    c
}

/// The price ages of the top plans, each with the command that refreshes its price: for the
/// region the user asked (`regions`, the first one) when the price came from another region —
/// refreshing Shanghai's price does not give Beijing's.
pub fn plan_price_ages(
    plans: &[gpuplan_core::plan::Plan],
    top: usize,
    today: i64,
    regions: &[String],
) -> Vec<PlanPriceAge> {
    let asked = |price_region: &str| {
        let here = regions.is_empty()
            || regions
                .iter()
                .any(|r| gpuplan_core::plan::money::same_region(r, price_region));
        (!here).then(|| regions[0].clone())
    };
    plans
        .iter()
        .take(top)
        .enumerate()
        .filter_map(|(n, p)| {
            let c = p.chosen.as_ref()?;
            Some(PlanPriceAge {
                rank: n + 1,
                instance: p.instance.id.clone(),
                provider: p.instance.provider.name(),
                region: c.price.region.clone(),
                billing: c.billing.name(),
                kind: kind_name(c.price.kind),
                as_of: c.price.as_of.clone(),
                age_days: age_days(&c.price.as_of, today),
                refresh: refresh_command(&Price {
                    instance: p.instance.id.clone(),
                    billing: c.billing,
                    region: asked(&c.price.region).unwrap_or_else(|| c.price.region.clone()),
                    ..c.price.clone()
                }),
            })
        })
        .collect()
}

/// One warning for the best-ranked plan with a stale price (with the command that refreshes it),
/// and one line counting the others, so a table of old list prices does not bury the output.
pub fn stale_warnings(ages: &[PlanPriceAge], lang: Lang) -> Vec<Msg> {
    let stale: Vec<&PlanPriceAge> = ages
        .iter()
        .filter(|a| a.age_days.is_some_and(|d| d > STALE_DAYS))
        .collect();
    let Some(first) = stale.first() else {
        return Vec::new();
    };
    let mut out = vec![Msg::new("prices-stale-first")
        .arg("rank", first.rank)
        .arg("kind", Msg::new(format!("price-kind-{}", first.kind)))
        .arg(
            "billing",
            Msg::new(format!("billing-{}", first.billing.replace('-', "_"))),
        )
        .arg("instance", first.instance.as_str())
        .arg("days", first.age_days.unwrap_or_default())
        .arg("as_of", first.as_of.as_str())
        .arg("refresh", first.refresh.as_str())];
    if stale.len() > 1 {
        let ranks: Vec<String> = stale[1..].iter().map(|a| a.rank.to_string()).collect();
        out.push(
            Msg::new("prices-stale-others")
                .arg(
                    "ranks",
                    ranks.join(&gpuplan_core::i18n::text(lang, "plan-list-sep")),
                )
                .arg("days", STALE_DAYS)
                .arg("count", ranks.len()),
        );
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn today_must_be_a_calendar_date_written_yyyy_mm_dd() {
        assert_eq!(strict_day("2026-12-03"), days_from_civil("2026-12-03"));
        assert_eq!(strict_day("2024-02-29"), days_from_civil("2024-02-29"));
        for bad in [
            "2026-13-01",
            "2026-02-30",
            "2025-02-29",
            "yesterday",
            "2026-12",
            "2026-12-03x",
            "26-12-03",
        ] {
            assert_eq!(strict_day(bad), None, "{bad}");
        }
    }

    #[test]
    fn ages_parse_and_count_whole_days() {
        assert_eq!(parse_age_days("30d").unwrap(), 30);
        assert_eq!(parse_age_days("4w").unwrap(), 28);
        assert_eq!(parse_age_days(" 7 ").unwrap(), 7);
        assert!(parse_age_days("-1d").is_err());
        assert!(parse_age_days("a month").is_err());
        // 2019-02-25 16:44:25 UTC.
        assert_eq!(age_days("2019-02-20", 1_551_113_065), Some(5));
        assert_eq!(age_days("2019-02", 1_551_113_065), Some(24));
        assert_eq!(age_days("2030-01-01", 1_551_113_065), Some(0));
        assert_eq!(age_days("unknown", 1_551_113_065), None);
    }
}
