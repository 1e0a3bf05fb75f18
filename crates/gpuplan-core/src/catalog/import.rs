//! Importers for the providers' own API responses (shapes in shared/reference/catalog-facts.md §4
//! and prices-storage.md §2): Alibaba `DescribeInstanceTypes` (+ `DescribeSpotPriceHistory`,
//! `DescribePrice`), Huawei `ListFlavors` (with `os_extra_specs`), Tencent
//! `DescribeZoneInstanceConfigInfos` (with `Price` and `StatusCategory`).
//!
//! Pure: the caller passes the documents' text and a context (region, today's date); the result
//! is a [`CatalogFile`] of user rows plus warnings, which the CLI writes atomically.

use super::{
    Billing, Catalog, CatalogFile, Confidence, Instance, InstanceLink, Origin, Price, PriceKind,
    Provider, RdmaKind, Stock,
};
use crate::error::CoreError;
use serde_json::Value;

/// What the response itself does not say.
#[derive(Clone, Debug, Default)]
pub struct ImportContext {
    /// Region the responses were fetched for (Alibaba/Huawei responses do not repeat it).
    pub region: Option<String>,
    /// Today's date (YYYY-MM-DD), stamped on imported rows.
    pub today: String,
    /// For Alibaba `DescribePrice`: the instance type and billing the request asked for.
    pub price_instance: Option<String>,
    pub price_billing: Option<Billing>,
}

#[derive(Clone, Debug, Default)]
pub struct ImportResult {
    pub file: CatalogFile,
    pub warnings: Vec<String>,
}

/// Raw chip names the providers use → accelerator ids. Ambiguous names (V100, A100) are resolved
/// by the per-GPU memory. Users extend it with `[gpu_aliases]` in a user catalog.
fn builtin_alias(raw: &str, mem_gib: Option<f64>) -> Option<&'static str> {
    let k = raw.to_lowercase().replace(['_', ' '], "-");
    let k = k.trim_start_matches("nvidia-").trim_start_matches("tesla-");
    let big = |threshold: f64| mem_gib.is_some_and(|m| m > threshold);
    Some(match k {
        "a10" | "a10-24g" => "a10",
        "t4" => "t4",
        "a30" => "a30",
        "a40" => "a40",
        "l20" => "l20",
        "l40s" => "l40s",
        "l4" => "l4",
        "h20" => "h20",
        "h800" => "h800",
        "h200" => "h200",
        "a800" => "a800-80g",
        "p40" => "p40",
        "p100" => "p100",
        "v100" | "v100-sxm2" | "v100-nvlink" => {
            if big(20.0) {
                "v100-sxm2-32g"
            } else {
                "v100-sxm2-16g"
            }
        }
        "v100-pcie" => {
            if big(20.0) {
                "v100-pcie-32g"
            } else {
                "v100-pcie-16g"
            }
        }
        "a100" | "a100-sxm4" | "a100-nvlink" => {
            if big(60.0) {
                "a100-80g"
            } else if mem_gib.is_some() {
                "a100-40g"
            } else {
                return None;
            }
        }
        "h100" | "h100-sxm" => "h100-sxm",
        "ascend-910b" | "ascend910b" | "ascend-snt9b" => "ascend-910b",
        "ascend-310" | "ascend310" => "ascend-310",
        "ascend-310p" | "ascend310p" => "ascend-310p",
        _ => return None,
    })
}

fn resolve_gpu(
    cat: &Catalog,
    raw: &str,
    mem: Option<f64>,
    warnings: &mut Vec<String>,
    ctx_id: &str,
) -> String {
    if let Some(id) = cat.gpu_aliases.get(raw) {
        return id.clone();
    }
    if let Some(id) = builtin_alias(raw, mem) {
        return id.to_string();
    }
    if cat.gpu(raw).is_some() {
        return raw.to_string();
    }
    warnings.push(format!(
        "{ctx_id}: GPU `{raw}` is not known; imported as `unknown:{raw}` and kept out of planning. Map it with a user catalog line `[gpu_aliases]` \"{raw}\" = \"<gpu id>\""
    ));
    format!("unknown:{raw}")
}

fn parse_json(what: &str, text: &str) -> Result<Value, CoreError> {
    serde_json::from_str(text).map_err(|e| CoreError::Parse {
        what: what.to_string(),
        message: if e.is_eof() {
            format!(
                "the response is truncated (ends at line {} column {}): fetch it again",
                e.line(),
                e.column()
            )
        } else {
            format!(
                "not valid JSON at line {} column {}: {e}",
                e.line(),
                e.column()
            )
        },
    })
}

/// Typed accessors that report the JSON path of a field of the wrong type.
struct At<'a> {
    v: &'a Value,
    path: String,
    what: &'a str,
}

impl<'a> At<'a> {
    fn new(v: &'a Value, path: &str, what: &'a str) -> At<'a> {
        At {
            v,
            path: path.to_string(),
            what,
        }
    }
    fn bad(&self, key: &str, want: &str) -> CoreError {
        CoreError::Parse {
            what: self.what.to_string(),
            message: format!(
                "{}.{key}: expected {want}, found {}",
                self.path,
                self.v
                    .get(key)
                    .map(|x| x.to_string())
                    .unwrap_or_else(|| "nothing".into())
            ),
        }
    }
    fn opt_f64(&self, key: &str) -> Result<Option<f64>, CoreError> {
        match self.v.get(key) {
            None | Some(Value::Null) => Ok(None),
            Some(Value::Number(n)) => Ok(n.as_f64()),
            Some(Value::String(s)) if s.trim().is_empty() => Ok(None),
            Some(Value::String(s)) => s
                .trim()
                .parse()
                .map(Some)
                .map_err(|_| self.bad(key, "a number")),
            Some(_) => Err(self.bad(key, "a number")),
        }
    }
    fn f64(&self, key: &str) -> Result<f64, CoreError> {
        self.opt_f64(key)?.ok_or_else(|| self.bad(key, "a number"))
    }
    fn opt_str(&self, key: &str) -> Result<Option<&'a str>, CoreError> {
        match self.v.get(key) {
            None | Some(Value::Null) => Ok(None),
            Some(Value::String(s)) => Ok(Some(s.as_str())),
            Some(_) => Err(self.bad(key, "a string")),
        }
    }
    fn str(&self, key: &str) -> Result<&'a str, CoreError> {
        self.opt_str(key)?.ok_or_else(|| self.bad(key, "a string"))
    }
    fn array(&self, path: &[&str]) -> Result<Vec<(String, &'a Value)>, CoreError> {
        let mut cur = self.v;
        let mut p = self.path.clone();
        for k in path {
            p = format!("{p}.{k}");
            cur = match cur.get(*k) {
                Some(x) => x,
                None => return Ok(Vec::new()),
            };
        }
        match cur {
            Value::Array(a) => Ok(a
                .iter()
                .enumerate()
                .map(|(i, x)| (format!("{p}[{i}]"), x))
                .collect()),
            Value::Null => Ok(Vec::new()),
            _ => Err(CoreError::Parse {
                what: self.what.to_string(),
                message: format!("{p}: expected an array"),
            }),
        }
    }
}

fn imported(provider: &str, api: &str, file: &str) -> String {
    format!("imported from {file} ({provider} {api})")
}

/// A price imported from the user's own account.
fn user_price(
    instance: &str,
    provider: Provider,
    region: String,
    billing: Billing,
    cny: f64,
    as_of: String,
    source: String,
) -> Price {
    Price {
        instance: instance.to_string(),
        provider,
        region,
        billing,
        cny,
        kind: PriceKind::User,
        as_of,
        source,
        confidence: Some(Confidence::Confirmed),
        method: None,
        origin: Origin::User(String::new()),
    }
}

fn instance(
    id: &str,
    provider: Provider,
    family: &str,
    gpu: String,
    count: f64,
    mem: Option<f64>,
    (source, today): (String, &str),
) -> Instance {
    Instance {
        id: id.to_string(),
        provider,
        family: family.to_string(),
        gpu,
        gpu_count: count,
        gpu_memory_gib: mem,
        vcpu: None,
        ram_gib: None,
        network_gbit: None,
        rdma: RdmaKind::Unknown,
        rdma_gbit: None,
        intra_link: None,
        cpu: None,
        local_nvme_gib: None,
        bare_metal: false,
        vgpu: count < 1.0,
        regions: Vec::new(),
        access: None,
        access_note: None,
        stock: None,
        notes: None,
        source,
        as_of: today.to_string(),
        confidence: Confidence::Confirmed,
        origin: Origin::User(String::new()),
    }
}

/// Alibaba: `DescribeInstanceTypes` pages (an object or an array of page objects),
/// `DescribeSpotPriceHistory`, or `DescribePrice` (needs `price_instance` + `price_billing`).
pub fn import_alibaba(
    docs: &[(String, String)],
    ctx: &ImportContext,
    cat: &Catalog,
) -> Result<ImportResult, CoreError> {
    let mut r = ImportResult::default();
    let mut last_token: Option<(String, String)> = None;
    for (name, text) in docs {
        let v = parse_json(name, text)?;
        let pages: Vec<&Value> = match &v {
            Value::Array(a) => a.iter().collect(),
            other => vec![other],
        };
        for (pi, page) in pages.iter().enumerate() {
            let at = At::new(page, if pages.len() > 1 { "$[page]" } else { "$" }, name);
            if page.get("InstanceTypes").is_some() {
                last_token = at
                    .opt_str("NextToken")?
                    .filter(|t| !t.is_empty())
                    .map(|t| (name.clone(), t.to_string()));
                for (path, it) in at.array(&["InstanceTypes", "InstanceType"])? {
                    let a = At::new(it, &path, name);
                    let id = a.str("InstanceTypeId")?;
                    let gpus = a.opt_f64("GPUAmount")?.unwrap_or(0.0);
                    let spec = a.opt_str("GPUSpec")?.unwrap_or("");
                    if gpus <= 0.0 || spec.is_empty() {
                        continue; // a CPU type
                    }
                    let mem = a.opt_f64("GPUMemorySize")?;
                    let gpu = resolve_gpu(cat, spec, mem, &mut r.warnings, id);
                    // vGPU types report a slice of the chip's memory: count the fraction.
                    let chip = cat.gpu(&gpu).and_then(|g| g.memory_gib);
                    let count = match (mem, chip) {
                        (Some(m), Some(c)) if m < 0.9 * c => gpus * m / c,
                        _ => gpus,
                    };
                    let family = a
                        .opt_str("InstanceTypeFamily")?
                        .unwrap_or("")
                        .trim_start_matches("ecs.")
                        .to_string();
                    let mut i = instance(
                        id,
                        Provider::Alibaba,
                        &family,
                        gpu,
                        count,
                        mem,
                        (
                            imported("Alibaba", "DescribeInstanceTypes", name),
                            &ctx.today,
                        ),
                    );
                    i.vcpu = a.opt_f64("CpuCoreCount")?.map(|x| x as u32);
                    i.ram_gib = a.opt_f64("MemorySize")?;
                    // Kbit/s → Gbit/s.
                    i.network_gbit = a.opt_f64("InstanceBandwidthRx")?.map(|k| k / 1e6);
                    i.rdma = if a.opt_f64("EriQuantity")?.unwrap_or(0.0) > 0.0 {
                        RdmaKind::Erdma
                    } else {
                        RdmaKind::Unknown
                    };
                    i.cpu = a.opt_str("PhysicalProcessorModel")?.map(str::to_string);
                    i.local_nvme_gib = a.opt_f64("LocalStorageCapacity")?.filter(|x| *x > 0.0);
                    i.bare_metal = a
                        .opt_str("InstanceCategory")?
                        .is_some_and(|c| c.contains("Bare Metal"))
                        || family.starts_with("ebm");
                    if i.vgpu {
                        i.intra_link = Some(InstanceLink::Vgpu);
                    }
                    i.regions = ctx.region.iter().cloned().collect();
                    r.file.instance.push(i);
                }
            } else if page.get("SpotPrices").is_some() {
                let currency = at.opt_str("Currency")?.unwrap_or("CNY");
                if currency != "CNY" {
                    r.warnings.push(format!(
                        "{name}: prices are in {currency}, not CNY; skipped"
                    ));
                    continue;
                }
                // Keep the latest sample per instance type and zone's region.
                let mut latest: std::collections::BTreeMap<String, (String, f64, String)> =
                    Default::default();
                for (path, sp) in at.array(&["SpotPrices", "SpotPriceType"])? {
                    let a = At::new(sp, &path, name);
                    let it = a.str("InstanceType")?.to_string();
                    let ts = a.opt_str("Timestamp")?.unwrap_or("").to_string();
                    let zone = a.opt_str("ZoneId")?.unwrap_or("");
                    let region = ctx.region.clone().unwrap_or_else(|| zone_to_region(zone));
                    let price = a.f64("SpotPrice")?;
                    let e = latest.entry(format!("{it}|{region}")).or_insert((
                        ts.clone(),
                        price,
                        region.clone(),
                    ));
                    if ts >= e.0 {
                        *e = (ts, price, region);
                    }
                }
                for (key, (ts, price, region)) in latest {
                    let it = key.split('|').next().unwrap_or_default().to_string();
                    let as_of = ts
                        .get(..10)
                        .filter(|d| d.len() == 10)
                        .unwrap_or(&ctx.today)
                        .to_string();
                    let source =
                        imported("Alibaba", "DescribeSpotPriceHistory (latest sample)", name);
                    r.file.price.push(user_price(
                        &it,
                        Provider::Alibaba,
                        region,
                        Billing::Spot,
                        price,
                        as_of,
                        source,
                    ));
                }
            } else if page.get("PriceInfo").is_some() {
                let (Some(inst), Some(billing)) = (&ctx.price_instance, ctx.price_billing) else {
                    return Err(CoreError::invalid("--instance/--billing", "(missing)", "a DescribePrice response does not name the instance: pass --instance TYPE and --billing on-demand|monthly|spot"));
                };
                let p = At::new(&page["PriceInfo"]["Price"], "$.PriceInfo.Price", name);
                let currency = p.opt_str("Currency")?.unwrap_or("CNY");
                if currency != "CNY" {
                    return Err(CoreError::Parse {
                        what: name.clone(),
                        message: format!(
                            "$.PriceInfo.Price.Currency is {currency}; gpuplan stores CNY"
                        ),
                    });
                }
                let region = ctx.region.clone().unwrap_or_else(|| "unknown".into());
                let source = imported("Alibaba", "DescribePrice TradePrice", name);
                r.file.price.push(user_price(
                    inst,
                    Provider::Alibaba,
                    region,
                    billing,
                    p.f64("TradePrice")?,
                    ctx.today.clone(),
                    source,
                ));
            } else {
                return Err(CoreError::Parse {
                    what: name.clone(),
                    message: format!("page {pi}: not a DescribeInstanceTypes, DescribeSpotPriceHistory or DescribePrice response (no InstanceTypes / SpotPrices / PriceInfo)"),
                });
            }
        }
    }
    if let Some((file, token)) = last_token {
        r.warnings.push(format!("{file}: the last page has NextToken `{token}`: more instance types exist; call DescribeInstanceTypes again with NextToken and import all pages together"));
    }
    Ok(r)
}

fn zone_to_region(zone: &str) -> String {
    // cn-hangzhou-g → cn-hangzhou; ap-guangzhou-3 → ap-guangzhou.
    match zone.rsplit_once('-') {
        Some((head, tail)) if tail.len() <= 2 => head.to_string(),
        _ => zone.to_string(),
    }
}

/// Huawei: `ListFlavors` (`{"flavors":[…]}`), GPU/Ascend flavors only.
pub fn import_huawei(
    docs: &[(String, String)],
    ctx: &ImportContext,
    cat: &Catalog,
) -> Result<ImportResult, CoreError> {
    let mut r = ImportResult::default();
    for (name, text) in docs {
        let v = parse_json(name, text)?;
        if v.get("flavors").is_none() {
            return Err(CoreError::Parse {
                what: name.clone(),
                message: "$.flavors missing: not a ListFlavors response".into(),
            });
        }
        let at = At::new(&v, "$", name);
        for (path, fl) in at.array(&["flavors"])? {
            let a = At::new(fl, &path, name);
            let id = a.str("name")?;
            let specs = fl.get("os_extra_specs").cloned().unwrap_or(Value::Null);
            let s = At::new(&specs, &format!("{path}.os_extra_specs"), name);
            let perf = s
                .opt_str("ecs:performancetype")?
                .or(s.opt_str("hws:performancetype")?)
                .unwrap_or("");
            let alias = s.opt_str("pci_passthrough:alias")?;
            if !(perf == "gpu" || perf == "ascend" || alias.is_some()) {
                continue;
            }
            let status = s.opt_str("cond:operation:status")?.unwrap_or("normal");
            if status == "abandon" {
                r.warnings
                    .push(format!("{id}: status `abandon` (withdrawn); skipped"));
                continue;
            }
            // "nvidia-a10:1" → (nvidia-a10, 1); several aliases are comma-separated.
            let (raw, count) = match alias
                .and_then(|al| al.split(',').next())
                .and_then(|x| x.rsplit_once(':'))
            {
                Some((n, c)) => (n.trim().to_string(), c.trim().parse::<f64>().unwrap_or(1.0)),
                None => (s.opt_str("info:gpu:name")?.unwrap_or(perf).to_string(), 1.0),
            };
            let gpu = resolve_gpu(cat, &raw, None, &mut r.warnings, id);
            let mem = cat.gpu(&gpu).and_then(|g| g.memory_gib);
            let family = id.split('.').next().unwrap_or(id);
            let mut i = instance(
                id,
                Provider::Huawei,
                family,
                gpu,
                count,
                mem,
                (imported("Huawei", "ListFlavors", name), &ctx.today),
            );
            i.vgpu = false;
            i.vcpu = a.opt_f64("vcpus")?.map(|x| x as u32);
            // ram is MiB.
            i.ram_gib = a.opt_f64("ram")?.map(|m| m / 1024.0);
            // quota:max_rate is Mbit/s.
            i.network_gbit = s.opt_f64("quota:max_rate")?.map(|m| m / 1000.0);
            i.stock = match status {
                "sellout" => Some(Stock::SoldOut),
                _ => Some(Stock::Available),
            };
            if let Some(az) = s.opt_str("cond:operation:az")? {
                i.notes = Some(format!("availability zones: {az}"));
            }
            i.regions = ctx.region.iter().cloned().collect();
            r.file.instance.push(i);
        }
    }
    Ok(r)
}

/// Tencent families whose GPU the official pages name (catalog-facts.md §2.2).
fn tencent_family_gpu(family: &str) -> Option<&'static str> {
    Some(match family {
        "GT4" => "a100-40g",
        "GN10X" | "GN10Xp" => "v100-sxm2-32g",
        "PNV4" => "a10",
        "GN7" | "GN7vw" | "GI3X" | "GN7vi" => "t4",
        "GN8" => "p40",
        _ => return None,
    })
}

/// Tencent: `DescribeZoneInstanceConfigInfos` (`{"Response":{"InstanceTypeQuotaSet":[…]}}`), one
/// instance row per type (zones merged), prices per charge type.
pub fn import_tencent(
    docs: &[(String, String)],
    ctx: &ImportContext,
    cat: &Catalog,
) -> Result<ImportResult, CoreError> {
    let mut r = ImportResult::default();
    for (name, text) in docs {
        let v = parse_json(name, text)?;
        let Some(resp) = v.get("Response") else {
            return Err(CoreError::Parse {
                what: name.clone(),
                message: "$.Response missing: not a DescribeZoneInstanceConfigInfos response"
                    .into(),
            });
        };
        if let Some(err) = resp.get("Error") {
            return Err(CoreError::Parse {
                what: name.clone(),
                message: format!("the response is an API error: {err}"),
            });
        }
        let at = At::new(resp, "$.Response", name);
        for (path, q) in at.array(&["InstanceTypeQuotaSet"])? {
            let a = At::new(q, &path, name);
            let id = a.str("InstanceType")?;
            let count = a.opt_f64("GpuCount")?.unwrap_or(0.0);
            if count <= 0.0 {
                continue;
            }
            let family = a
                .opt_str("InstanceFamily")?
                .unwrap_or_else(|| id.split('.').next().unwrap_or(id));
            let zone = a.opt_str("Zone")?.unwrap_or("");
            let region = zone_to_region(zone);
            let stock = match (a.opt_str("Status")?, a.opt_str("StatusCategory")?) {
                (Some("SOLD_OUT"), _) | (_, Some("WithoutStock")) => Stock::SoldOut,
                (_, Some("UnderStock")) => Stock::Low,
                _ => Stock::Available,
            };
            let gpu = match tencent_family_gpu(family) {
                Some(g) => g.to_string(),
                None => {
                    // "8 * NVIDIA V100"-style remarks (unverified format) or the Gpu field.
                    let remark = a.opt_str("Remark")?.unwrap_or("");
                    let raw = remark
                        .split('*')
                        .nth(1)
                        .map(str::trim)
                        .filter(|x| !x.is_empty())
                        .unwrap_or(family);
                    resolve_gpu(cat, raw, None, &mut r.warnings, id)
                }
            };
            let chip = cat.gpu(&gpu).and_then(|g| g.memory_gib);
            let mem = chip.map(|c| if count < 1.0 { c * count } else { c });
            if !r.file.instance.iter().any(|i| i.id == id) {
                let mut i = instance(
                    id,
                    Provider::Tencent,
                    family,
                    gpu,
                    count,
                    mem,
                    (
                        imported("Tencent", "DescribeZoneInstanceConfigInfos", name),
                        &ctx.today,
                    ),
                );
                i.vcpu = a.opt_f64("Cpu")?.map(|x| x as u32);
                i.ram_gib = a.opt_f64("Memory")?;
                i.network_gbit = a.opt_f64("InstanceBandwidth")?;
                if i.vgpu {
                    i.intra_link = Some(InstanceLink::Vgpu);
                }
                i.stock = Some(stock);
                r.file.instance.push(i);
            }
            if let Some(i) = r.file.instance.iter_mut().find(|i| i.id == id) {
                if !i.regions.contains(&region) && !region.is_empty() {
                    i.regions.push(region.clone());
                }
                let note = format!("{zone}: {stock:?}");
                i.notes = Some(match i.notes.take() {
                    Some(n) => format!("{n}; {note}"),
                    None => note,
                });
                // The type is available if any zone has stock.
                if stock == Stock::Available || i.stock == Some(Stock::SoldOut) {
                    i.stock = Some(stock);
                }
            }
            let billing = match a.opt_str("InstanceChargeType")? {
                Some("POSTPAID_BY_HOUR") => Some(Billing::OnDemand),
                Some("SPOTPAID") => Some(Billing::Spot),
                Some("PREPAID") => Some(Billing::Monthly),
                _ => None,
            };
            if let (Some(billing), Some(p)) = (billing, q.get("Price")) {
                let pa = At::new(p, &format!("{path}.Price"), name);
                let cny = match billing {
                    Billing::Monthly => pa
                        .opt_f64("DiscountPrice")?
                        .or(pa.opt_f64("OriginalPrice")?),
                    _ => pa
                        .opt_f64("UnitPriceDiscount")?
                        .or(pa.opt_f64("UnitPrice")?),
                };
                if let Some(cny) = cny.filter(|c| *c > 0.0) {
                    if !r
                        .file
                        .price
                        .iter()
                        .any(|x| x.instance == id && x.region == region && x.billing == billing)
                    {
                        let source =
                            imported("Tencent", "DescribeZoneInstanceConfigInfos Price", name);
                        r.file.price.push(user_price(
                            id,
                            Provider::Tencent,
                            region.clone(),
                            billing,
                            cny,
                            ctx.today.clone(),
                            source,
                        ));
                    }
                }
            }
        }
    }
    Ok(r)
}
