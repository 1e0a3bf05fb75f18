//! `gpuplan catalog validate`: schema (by parsing), units, cross-references, duplicates, prices,
//! provenance. The built-in catalog must produce no errors (a test and CI check it).

use super::{
    sane_money, Catalog, CatalogFile, Instance, Origin, Price, PriceKind, StorageClass,
    MAX_GPU_COUNT,
};
use crate::hardware::GpuSpec;
use serde::Serialize;
use std::collections::HashSet;

#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum Severity {
    Error,
    Warning,
}

#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct Finding {
    pub severity: Severity,
    pub file: String,
    /// Which row and field: `instance "ecs.gn7i-c8g1.2xlarge" gpu_memory_gib`.
    pub location: String,
    /// What is wrong and the fix, in English (the JSON field).
    pub message: String,
    /// The same in Chinese, where the finding comes from a catalog message (else the English).
    #[serde(skip)]
    pub message_zh: String,
    /// The row the finding is about (`instance[3]`: table and index in the file), when it is about
    /// one row; several findings may share it (one row, several bad fields).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub row: Option<String>,
}

struct Out<'a> {
    file: &'a str,
    findings: Vec<Finding>,
    errors: usize,
}

impl Finding {
    /// The message in `l`.
    pub fn message_in(&self, l: crate::i18n::Lang) -> &str {
        match l {
            crate::i18n::Lang::Zh if !self.message_zh.is_empty() => &self.message_zh,
            _ => &self.message,
        }
    }
}

/// A fixed English sentence (same text in both languages) in the user's language when the
/// catalog has it as a `fix-*` message.
fn translated(t: crate::i18n::Text) -> crate::i18n::Text {
    match crate::i18n::fixed_text(&t.en) {
        Some(m) if t.en == t.zh => m.into(),
        _ => t,
    }
}

impl Out<'_> {
    fn err(&mut self, location: String, message: impl Into<crate::i18n::Text>) {
        self.errors += 1;
        let t = translated(message.into());
        self.findings.push(Finding {
            severity: Severity::Error,
            file: self.file.to_string(),
            location,
            message: t.en,
            message_zh: t.zh,
            row: None,
        });
    }
    fn errors(&self) -> usize {
        self.errors
    }
    fn warn(&mut self, location: String, message: impl Into<crate::i18n::Text>) {
        let t = translated(message.into());
        self.findings.push(Finding {
            severity: Severity::Warning,
            file: self.file.to_string(),
            location,
            message: t.en,
            message_zh: t.zh,
            row: None,
        });
    }
}

fn valid_date(s: &str) -> bool {
    let parts: Vec<&str> = s.split('-').collect();
    let num = |p: &str, n: usize| p.len() == n && p.chars().all(|c| c.is_ascii_digit());
    match parts.as_slice() {
        [y, m] => num(y, 4) && num(m, 2),
        [y, m, d] => num(y, 4) && num(m, 2) && num(d, 2),
        _ => false,
    }
}

/// A number as messages show it: never `NaN` or `inf` (which read as a value), exponent notation
/// for huge or tiny magnitudes.
pub fn show_num(x: f64) -> String {
    if x.is_nan() {
        "not a number".into()
    } else if x.is_infinite() {
        if x > 0.0 {
            "an infinite value"
        } else {
            "a negative infinite value"
        }
        .into()
    } else if x != 0.0 && !(1e-4..1e9).contains(&x.abs()) {
        format!("{x:e}")
    } else {
        format!("{x}")
    }
}

impl Out<'_> {
    fn provenance(&mut self, loc: &str, source: &str, as_of: &str) {
        if source.trim().is_empty() || !valid_date(as_of) {
            self.err(
                loc.to_string(),
                "needs a non-empty source and an as_of date (YYYY-MM or YYYY-MM-DD)",
            );
        }
    }
    fn id(&mut self, loc: &str, field: &str, id: &str) {
        if id.trim().is_empty() {
            let fix = match field {
                "region" | "instance" | "gpu" | "name" => field,
                _ => "id",
            };
            self.err(
                format!("{loc} {field}"),
                crate::i18n::Msg::new(format!("finding-empty-{fix}")).arg("field", field),
            );
        } else if id.chars().any(char::is_control) {
            self.err(
                format!("{loc} {field}"),
                "contains control characters: use printable text",
            );
        }
    }
    /// `Some(x)` must be finite and above `min` (or at least `min` when `zero_ok`).
    fn num(&mut self, loc: &str, field: &str, v: Option<f64>, zero_ok: bool, unit: &str) {
        let Some(x) = v else { return };
        let ok = x.is_finite() && (x > 0.0 || (zero_ok && x == 0.0));
        if !ok {
            self.err(
                format!("{loc} {field}"),
                crate::i18n::Msg::new(if zero_ok {
                    "finding-not-zero-or-positive"
                } else {
                    "finding-not-positive"
                })
                .arg("value", show_num(x))
                .arg("unit", unit),
            );
        }
    }
    fn dup(&mut self, seen: &mut HashSet<String>, key: String, loc: &str, what: &str) -> bool {
        if seen.insert(key) {
            return false;
        }
        self.err(
            loc.to_string(),
            crate::i18n::Msg::new("finding-duplicate").arg("what", what),
        );
        true
    }
}

fn check_gpu(o: &mut Out, g: &GpuSpec) {
    let loc = format!("gpu {:?}", g.id);
    o.id(&loc, "id", &g.id);
    o.id(&loc, "name", &g.name);
    o.num(&loc, "memory_gib", g.memory_gib, false, "GiB");
    o.num(
        &loc,
        "visible_memory_gib",
        g.visible_memory_gib,
        false,
        "GiB",
    );
    o.num(
        &loc,
        "reported_memory_mib",
        g.reported_memory_mib,
        false,
        "MiB",
    );
    if let (Some(r), Some(m)) = (g.reported_memory_mib, g.memory_gib) {
        if r / 1024.0 > m {
            o.err(
                format!("{loc} reported_memory_mib"),
                format!(
                    "{} MiB exceeds memory_gib ({} GiB = {} MiB)",
                    show_num(r),
                    show_num(m),
                    show_num(m * 1024.0)
                ),
            );
        }
    }
    match g.memory_gib {
        Some(m) if m.is_finite() && m > 1024.0 => o.err(
            format!("{loc} memory_gib"),
            crate::i18n::Msg::new("finding-memory-mib").arg("value", show_num(m)),
        ),
        None => o.err(
            format!("{loc} memory_gib"),
            "not given: memory per device (GiB) is needed to plan with this accelerator",
        ),
        _ => {}
    }
    if let (Some(v), Some(m)) = (g.visible_memory_gib, g.memory_gib) {
        if v > m {
            o.err(
                format!("{loc} visible_memory_gib"),
                format!(
                    "{} GiB exceeds memory_gib ({} GiB)",
                    show_num(v),
                    show_num(m)
                ),
            );
        }
    }
    o.num(
        &loc,
        "memory_bandwidth_gbs",
        g.memory_bandwidth_gbs,
        false,
        "GB/s",
    );
    o.num(&loc, "intra_link_gbs", g.intra_link_gbs, false, "GB/s");
    o.num(&loc, "tdp_w", g.tdp_w, false, "watts");
    let t = &g.tflops;
    for (name, v) in [
        ("fp32", t.fp32),
        ("tf32", t.tf32),
        ("fp16", t.fp16),
        ("bf16", t.bf16),
        ("fp8", t.fp8),
        ("int8", t.int8),
    ] {
        let field = format!("tflops.{name}");
        o.num(&loc, &field, v, true, "TFLOP/s (0 = not supported)");
        if v.is_some_and(|x| x.is_finite() && x > 100_000.0) {
            o.err(
                format!("{loc} {field}"),
                format!(
                    "{} TFLOP/s is not a per-device peak: give TFLOP/s, not GFLOP/s",
                    show_num(v.unwrap_or_default())
                ),
            );
        }
    }
    if ![t.bf16, t.fp16]
        .iter()
        .flatten()
        .any(|x| x.is_finite() && *x > 0.0)
    {
        o.err(format!("{loc} tflops"), "no bf16 or fp16 peak: give tflops.bf16 or tflops.fp16 (dense TFLOP/s), needed to estimate times with this accelerator");
    }
    if !["nvidia", "huawei", "amd"].contains(&g.vendor.as_str()) {
        o.warn(
            format!("{loc} vendor"),
            format!(
                "`{}` is not nvidia, huawei or amd: planned as an NVIDIA (CUDA) device",
                g.vendor
            ),
        );
    }
    o.provenance(&loc, &g.source, &g.as_of);
    if !["confirmed", "likely", "unverified"].contains(&g.confidence.as_str()) {
        o.err(
            format!("{loc} confidence"),
            "must be confirmed, likely or unverified",
        );
    }
}

fn check_instance(o: &mut Out, i: &Instance, cat: &Catalog) {
    let loc = format!("instance {:?}", i.id);
    o.id(&loc, "id", &i.id);
    o.id(&loc, "gpu", &i.gpu);
    o.provenance(&loc, &i.source, &i.as_of);
    let n = i.gpu_count;
    if !(n > 0.0 && n <= MAX_GPU_COUNT) {
        o.err(
            format!("{loc} gpu_count"),
            crate::i18n::Msg::new("finding-gpu-count")
                .arg("value", show_num(n))
                .arg("max", MAX_GPU_COUNT),
        );
    } else if n > 1.0 && n.fract() != 0.0 {
        o.err(
            format!("{loc} gpu_count"),
            crate::i18n::Msg::new("finding-gpu-count-fraction").arg("value", show_num(n)),
        );
    } else if n < 1.0 && !i.vgpu {
        o.err(
            format!("{loc} vgpu"),
            "a fractional gpu_count is a vGPU slice: set vgpu = true",
        );
    }
    if let Some(v) = i.vcpu {
        if v == 0 || v > 1024 {
            o.err(
                format!("{loc} vcpu"),
                crate::i18n::Msg::new("finding-vcpu-range").arg("value", v),
            );
        }
    }
    o.num(
        &loc,
        "gpu_memory_gib",
        i.gpu_memory_gib,
        false,
        "GiB per GPU",
    );
    o.num(&loc, "ram_gib", i.ram_gib, false, "GiB");
    if let Some(r) = i.ram_gib.filter(|r| r.is_finite() && *r > 32_768.0) {
        o.err(
            format!("{loc} ram_gib"),
            crate::i18n::Msg::new("finding-ram-mib").arg("value", show_num(r)),
        );
    }
    for (field, v) in [("network_gbit", i.network_gbit), ("rdma_gbit", i.rdma_gbit)] {
        o.num(&loc, field, v, false, "Gbit/s");
        if let Some(x) = v.filter(|x| x.is_finite() && *x > 10_000.0) {
            o.err(
                format!("{loc} {field}"),
                format!("{} Gbit/s looks like Mbit/s: give Gbit/s", show_num(x)),
            );
        }
    }
    o.num(&loc, "local_nvme_gib", i.local_nvme_gib, true, "GiB");
    if !i.gpu_is_mapped() {
        o.warn(
            format!("{loc} gpu"),
            crate::i18n::Msg::new("finding-gpu-unmapped")
                .arg("chip", i.gpu.trim_start_matches("unknown:")),
        );
        return;
    }
    let Some(g) = cat.gpu(&i.gpu) else {
        o.err(
            format!("{loc} gpu"),
            crate::i18n::Msg::new("finding-gpu-unknown").arg("gpu", i.gpu.as_str()),
        );
        return;
    };
    let (Some(m), Some(chip)) = (
        i.gpu_memory_gib.filter(|m| m.is_finite() && *m > 0.0),
        g.memory_gib,
    ) else {
        return;
    };
    if m > 1024.0 {
        o.err(
            format!("{loc} gpu_memory_gib"),
            crate::i18n::Msg::new("finding-gpu-memory-mib")
                .arg("value", show_num(m))
                .arg("chip", show_num(chip)),
        );
    } else if i.vgpu {
        if m > chip * 1.01 {
            o.err(
                format!("{loc} gpu_memory_gib"),
                format!(
                    "a vGPU slice of {} GiB exceeds the chip's {chip} GiB",
                    show_num(m)
                ),
            );
        }
    } else if (m - chip).abs() > 0.1 * chip {
        o.err(format!("{loc} gpu_memory_gib"), format!("{} GiB per GPU does not match {} ({chip} GiB); if this is the total, divide by gpu_count", show_num(m), g.name));
    }
}

fn check_price(o: &mut Out, n: usize, p: &Price, cat: &Catalog) {
    let loc = format!(
        "price[{n}] {:?} {} {}",
        p.instance,
        p.region,
        p.billing.name()
    );
    o.id(&loc, "instance", &p.instance);
    o.id(&loc, "region", &p.region);
    if !sane_money(p.cny) {
        o.err(
            format!("{loc} cny"),
            crate::i18n::Msg::new("finding-not-a-price").arg("value", show_num(p.cny)),
        );
    } else if p.cny > 1e9 {
        o.err(
            format!("{loc} cny"),
            crate::i18n::Msg::new("finding-price-implausible").arg("value", show_num(p.cny)),
        );
    }
    o.provenance(&loc, &p.source, &p.as_of);
    if p.kind == PriceKind::Estimate && p.method.as_deref().is_none_or(|m| m.trim().is_empty()) {
        o.err(
            format!("{loc} method"),
            "an estimate must say how it was derived (method = \"...\")",
        );
    }
    match cat.instance(&p.instance) {
        None => o.err(
            format!("{loc} instance"),
            crate::i18n::Msg::new("finding-price-no-instance").arg("id", p.instance.as_str()),
        ),
        Some(i)
            if i.provider != p.provider
                && !cat
                    .instances
                    .iter()
                    .any(|x| x.id == p.instance && x.provider == p.provider) =>
        {
            o.err(
                format!("{loc} provider"),
                crate::i18n::Msg::new("finding-price-provider")
                    .arg("id", p.instance.as_str())
                    .arg("owner", i.provider.name())
                    .arg("asked", p.provider.name()),
            )
        }
        Some(_) => {}
    }
}

fn check_storage(o: &mut Out, s: &StorageClass) {
    let loc = format!("storage {:?}", s.id);
    o.id(&loc, "id", &s.id);
    o.num(
        &loc,
        "throughput_max_mbs",
        Some(s.throughput_max_mbs),
        false,
        "MB/s",
    );
    o.num(
        &loc,
        "throughput_base_mbs",
        Some(s.throughput_base_mbs),
        true,
        "MB/s",
    );
    o.num(
        &loc,
        "throughput_per_gib_mbs",
        Some(s.throughput_per_gib_mbs),
        true,
        "MB/s per GiB",
    );
    o.num(
        &loc,
        "throughput_floor_mbs",
        s.throughput_floor_mbs,
        true,
        "MB/s",
    );
    for [from, mbs] in &s.throughput_tiers {
        o.num(&loc, "throughput_tiers", Some(*from), true, "GiB");
        o.num(&loc, "throughput_tiers", Some(*mbs), false, "MB/s");
    }
    o.num(&loc, "client_max_mbs", s.client_max_mbs, false, "MB/s");
    o.num(&loc, "min_capacity_gib", s.min_capacity_gib, false, "GiB");
    o.num(&loc, "max_capacity_gib", s.max_capacity_gib, false, "GiB");
    if let (Some(a), Some(b)) = (s.min_capacity_gib, s.max_capacity_gib) {
        if a > b {
            o.err(
                format!("{loc} min_capacity_gib"),
                "exceeds max_capacity_gib",
            );
        }
    }
    o.num(&loc, "iops_base", s.iops_base, true, "IOPS");
    o.num(&loc, "iops_per_gib", s.iops_per_gib, true, "IOPS per GiB");
    o.num(&loc, "iops_max", s.iops_max, false, "IOPS");
    if let Some(pr) = s.price_cny_per_gib_month {
        if !sane_money(pr) {
            o.err(
                format!("{loc} price_cny_per_gib_month"),
                crate::i18n::Msg::new("finding-storage-price").arg("value", show_num(pr)),
            );
        }
    }
    o.provenance(&loc, &s.source, &s.as_of);
}

/// Merge `f` into `cat` row by row (see [`Catalog::merge_validated`]): GPUs and aliases first,
/// then instances, prices and storage, each checked against the catalog as it stands.
pub fn merge_checked(
    cat: &mut Catalog,
    f: CatalogFile,
    origin: Origin,
    label: &str,
) -> Vec<Finding> {
    merge_inner(cat, f, origin, label, None)
}

/// Like [`merge_checked`], and also returns a copy of the rows that passed (what a rewrite of the
/// file may keep).
pub fn merge_keeping(
    cat: &mut Catalog,
    f: CatalogFile,
    origin: Origin,
    label: &str,
) -> (CatalogFile, Vec<Finding>) {
    let mut kept = CatalogFile::default();
    let findings = merge_inner(cat, f, origin, label, Some(&mut kept));
    (kept, findings)
}

fn merge_inner(
    cat: &mut Catalog,
    f: CatalogFile,
    origin: Origin,
    label: &str,
    mut kept: Option<&mut CatalogFile>,
) -> Vec<Finding> {
    let mut m = Rows {
        o: Out {
            file: label,
            findings: Vec::new(),
            errors: 0,
        },
        seen: HashSet::new(),
    };
    cat.files.push(label.to_string());
    let gpus = m.keep("gpu", f.gpu, |m, _, g| {
        m.dup_row(format!("gpu:{}", g.id), format!("gpu {:?}", g.id), "gpu id")
            .map(|()| check_gpu(&mut m.o, g))
    });
    copy(&mut kept, |k| k.gpu.clone_from(&gpus));
    cat.merge_gpus(gpus);
    let aliases = m.aliases(f.gpu_aliases, cat);
    copy(&mut kept, |k| k.gpu_aliases.clone_from(&aliases));
    cat.gpu_aliases.extend(aliases);
    let instances = m.keep("instance", f.instance, |m, _, i| {
        let key = format!("instance:{:?}:{}", i.provider, i.id);
        m.dup_row(key, format!("instance {:?}", i.id), "instance id")
            .map(|()| check_instance(&mut m.o, i, cat))
    });
    copy(&mut kept, |k| k.instance.clone_from(&instances));
    cat.merge_instances(instances, &origin);
    let prices = m.keep("price", f.price, |m, n, p| {
        let key = format!("price:{}:{}:{:?}", p.instance, p.region, p.billing);
        let loc = format!(
            "price[{n}] {:?} {} {}",
            p.instance,
            p.region,
            p.billing.name()
        );
        m.dup_row(key, loc, "price (same instance, region and billing)")
            .map(|()| check_price(&mut m.o, n, p, cat))
    });
    copy(&mut kept, |k| k.price.clone_from(&prices));
    cat.merge_prices(prices, &origin);
    let storage = m.keep("storage", f.storage, |m, _, s| {
        m.dup_row(
            format!("storage:{}", s.id),
            format!("storage {:?}", s.id),
            "storage id",
        )
        .map(|()| check_storage(&mut m.o, s))
    });
    copy(&mut kept, |k| k.storage.clone_from(&storage));
    cat.merge_storage(storage);
    let wrong = m.keep("wrong", f.wrong, |m, _, w| {
        let ok = !w.name.trim().is_empty();
        if !ok {
            m.o.err("wrong".into(), "a wrong-name row needs a non-empty name");
        }
        ok.then_some(())
    });
    copy(&mut kept, |k| {
        k.wrong.clone_from(&wrong);
        k.hide_families.clone_from(&f.hide_families);
    });
    cat.wrong.extend(wrong);
    cat.hidden_families.extend(f.hide_families);
    m.o.findings
}

fn copy(kept: &mut Option<&mut CatalogFile>, f: impl FnOnce(&mut CatalogFile)) {
    if let Some(k) = kept.as_deref_mut() {
        f(k);
    }
}

/// Findings of one file being merged, and the keys seen in it (for duplicates).
struct Rows<'a> {
    o: Out<'a>,
    seen: HashSet<String>,
}

impl Rows<'_> {
    /// `Some(())` when `key` is new in this file; otherwise a duplicate error at `loc`.
    fn dup_row(&mut self, key: String, loc: String, what: &str) -> Option<()> {
        let dup = self.o.dup(&mut self.seen, key, &loc, what);
        (!dup).then_some(())
    }

    /// The rows for which `check` returns `Some` and adds no error finding.
    fn keep<T>(
        &mut self,
        table: &str,
        rows: Vec<T>,
        mut check: impl FnMut(&mut Self, usize, &T) -> Option<()>,
    ) -> Vec<T> {
        let mut out = Vec::with_capacity(rows.len());
        for (n, r) in rows.into_iter().enumerate() {
            let (before, first) = (self.o.errors(), self.o.findings.len());
            let ok = check(self, n, &r).is_some() && self.o.errors() == before;
            for f in &mut self.o.findings[first..] {
                f.row = Some(format!("{table}[{n}]"));
            }
            if ok {
                out.push(r);
            }
        }
        out
    }

    fn aliases(
        &mut self,
        aliases: std::collections::BTreeMap<String, String>,
        cat: &Catalog,
    ) -> std::collections::BTreeMap<String, String> {
        let mut out = std::collections::BTreeMap::new();
        for (raw, id) in aliases {
            let loc = format!("gpu_aliases {raw:?}");
            if raw.trim().is_empty() {
                self.o.err(loc, "the raw chip name is empty");
            } else if cat.gpu(&id).is_none() {
                self.o.err(
                    loc,
                    crate::i18n::Msg::new("finding-alias-unknown").arg("id", id.as_str()),
                );
            } else {
                out.insert(raw, id);
            }
        }
        out
    }
}

/// Check one file against the catalog it is merged into (for cross-references): the findings of
/// merging it into a copy of `merged`.
pub fn validate_file(file: &str, f: &CatalogFile, merged: &Catalog) -> Vec<Finding> {
    let mut c = merged.clone();
    merge_checked(&mut c, f.clone(), Origin::User(file.to_string()), file)
}

#[cfg(test)]
mod tests {
    use super::super::{parse_catalog_file, parse_catalog_rows, Catalog, Origin};
    use super::*;

    fn check(text: &str) -> Vec<Finding> {
        let f = parse_catalog_file("t.toml", text).unwrap();
        let mut merged = Catalog::builtin().unwrap();
        merged.merge(f.clone(), Origin::User("t.toml".into()), "t.toml");
        validate_file("t.toml", &f, &merged)
    }

    const ROW: &str = "[[instance]]\nid = \"x.1\"\nprovider = \"alibaba\"\nfamily = \"x\"\ngpu = \"a10\"\ngpu_count = 1\ngpu_memory_gib = 24\nvcpu = 8\nram_gib = 32\nrdma = \"none\"\nsource = \"me\"\nas_of = \"2026-11\"\nconfidence = \"likely\"\n";

    #[test]
    fn a_good_row_passes() {
        assert!(check(ROW).is_empty(), "{:?}", check(ROW));
    }

    #[test]
    fn memory_in_mib_is_caught() {
        let f = check(&ROW.replace("gpu_memory_gib = 24", "gpu_memory_gib = 24576"));
        assert!(
            f.iter().any(|x| x.message.contains("looks like MiB")),
            "{f:?}"
        );
    }

    #[test]
    fn total_memory_instead_of_per_gpu_is_caught() {
        let f = check(&ROW.replace(
            "gpu_count = 1\ngpu_memory_gib = 24",
            "gpu_count = 2\ngpu_memory_gib = 48",
        ));
        assert!(
            f.iter().any(|x| x.message.contains("divide by gpu_count")),
            "{f:?}"
        );
    }

    #[test]
    fn unknown_gpu_duplicates_prices_and_provenance() {
        let f = check(&ROW.replace("gpu = \"a10\"", "gpu = \"a11\""));
        assert!(f
            .iter()
            .any(|x| x.location.ends_with("gpu") && x.severity == Severity::Error));
        let f = check(&format!("{ROW}{ROW}"));
        assert!(f.iter().any(|x| x.message.contains("duplicate")));
        let f = check(&ROW.replace("source = \"me\"", "source = \"\""));
        assert!(f.iter().any(|x| x.message.contains("source")));
        let price = "[[price]]\ninstance = \"x.1\"\nprovider = \"alibaba\"\nregion = \"cn-shanghai\"\nbilling = \"on_demand\"\ncny = 0\nkind = \"user\"\nas_of = \"2026-11\"\nsource = \"quote\"\n";
        let f = check(&format!("{ROW}{price}"));
        assert!(f.iter().any(|x| x.message.contains("never valid")), "{f:?}");
        let f = check(&format!(
            "{ROW}{}",
            price
                .replace("cny = 0", "cny = 5")
                .replace("kind = \"user\"", "kind = \"estimate\"")
        ));
        assert!(f.iter().any(|x| x.message.contains("method")), "{f:?}");
    }

    #[test]
    fn unmapped_chip_is_a_warning_not_an_error() {
        let f = check(&ROW.replace("gpu = \"a10\"", "gpu = \"unknown:NVIDIA X9\""));
        assert!(f.iter().all(|x| x.severity == Severity::Warning) && !f.is_empty());
    }

    fn errors_at(text: &str) -> Vec<String> {
        check(text)
            .into_iter()
            .filter(|f| f.severity == Severity::Error)
            .map(|f| format!("{}: {}", f.location, f.message))
            .collect()
    }

    const GPU: &str = "[[gpu]]\nid = \"rtx4090\"\nname = \"RTX 4090\"\nvendor = \"nvidia\"\nmemory_gib = 24\nmemory_bandwidth_gbs = 1008\ntflops = { bf16 = 165, fp16 = 165 }\nintra_link = \"pcie4\"\nstack = \"cuda\"\nconsumer = true\nsource = \"datasheet\"\nas_of = \"2026-01\"\nconfidence = \"likely\"\n";

    #[test]
    fn non_numbers_and_bad_ranges_are_errors_that_never_print_nan() {
        let cases = [
            (
                GPU.replace("memory_gib = 24", "memory_gib = nan"),
                "memory_gib",
            ),
            (GPU.replace("bf16 = 165", "bf16 = -1"), "tflops.bf16"),
            (GPU.replace("bf16 = 165", "bf16 = nan"), "tflops.bf16"),
            (GPU.replace("= 1008", "= 0"), "memory_bandwidth_gbs"),
            (GPU.replace("= 1008", "= -inf"), "memory_bandwidth_gbs"),
            (GPU.replace("id = \"rtx4090\"", "id = \"\""), "id"),
            (
                ROW.replace("gpu_count = 1", "gpu_count = 1000"),
                "gpu_count",
            ),
            (ROW.replace("gpu_count = 1", "gpu_count = inf"), "gpu_count"),
            (ROW.replace("gpu_count = 1", "gpu_count = nan"), "gpu_count"),
            (ROW.replace("gpu_count = 1", "gpu_count = 2.5"), "gpu_count"),
            (
                ROW.replace("gpu_memory_gib = 24", "gpu_memory_gib = nan"),
                "gpu_memory_gib",
            ),
            (ROW.replace("ram_gib = 32", "ram_gib = -32"), "ram_gib"),
            (ROW.replace("vcpu = 8", "vcpu = 0"), "vcpu"),
            (ROW.replace("id = \"x.1\"", "id = \" \""), "id"),
            (format!("{ROW}network_gbit = nan\n"), "network_gbit"),
        ];
        for (text, field) in cases {
            let e = errors_at(&text);
            assert!(e.iter().any(|x| x.contains(field)), "{field}: {e:?}");
            assert!(
                e.iter().all(|x| !x.contains("NaN") && !x.contains("inf ")),
                "{e:?}"
            );
        }
    }

    #[test]
    fn storage_and_price_non_numbers_are_errors() {
        let st = "[[storage]]\nid = \"s\"\nprovider = \"alibaba\"\nname = \"S\"\nkind = \"block\"\nthroughput_max_mbs = 350\nthroughput_base_mbs = 120\nthroughput_per_gib_mbs = 0.5\nprice_cny_per_gib_month = 1\nsource = \"doc\"\nas_of = \"2026-01\"\nconfidence = \"likely\"\n";
        assert!(errors_at(st).is_empty(), "{:?}", errors_at(st));
        for (a, b) in [
            (
                "price_cny_per_gib_month = 1",
                "price_cny_per_gib_month = nan",
            ),
            (
                "throughput_per_gib_mbs = 0.5",
                "throughput_per_gib_mbs = nan",
            ),
            ("throughput_max_mbs = 350", "throughput_max_mbs = inf"),
            ("throughput_base_mbs = 120", "throughput_base_mbs = -1"),
            // Plan audit r22 #1: the tier and per-client keys are checked like the others.
            (
                "throughput_base_mbs = 120",
                "throughput_base_mbs = 120\nthroughput_tiers = [[100, nan]]",
            ),
            (
                "throughput_base_mbs = 120",
                "throughput_base_mbs = 120\nthroughput_tiers = [[-1, 150]]",
            ),
            (
                "throughput_base_mbs = 120",
                "throughput_base_mbs = 120\nclient_max_mbs = 0",
            ),
        ] {
            let e = errors_at(&st.replace(a, b));
            assert!(!e.is_empty(), "{b}");
        }
        let price = "[[price]]\ninstance = \"x.1\"\nprovider = \"alibaba\"\nregion = \"cn-shanghai\"\nbilling = \"on_demand\"\ncny = 5\nkind = \"user\"\nas_of = \"2026-11\"\nsource = \"quote\"\n";
        for bad in ["cny = nan", "cny = inf", "cny = -5", "cny = 0"] {
            let e = errors_at(&format!("{ROW}{}", price.replace("cny = 5", bad)));
            assert!(e.iter().any(|x| x.contains(" cny")), "{bad}: {e:?}");
        }
    }

    #[test]
    fn a_user_gpu_row_with_an_instance_and_a_price_is_accepted() {
        let text = format!(
            "{GPU}{}[[price]]\ninstance = \"x.1\"\nprovider = \"alibaba\"\nregion = \"cn-shanghai\"\nbilling = \"on_demand\"\ncny = 5\nkind = \"user\"\nas_of = \"2026-11\"\nsource = \"quote\"\n",
            ROW.replace("gpu = \"a10\"", "gpu = \"rtx4090\"")
        );
        assert!(errors_at(&text).is_empty(), "{:?}", errors_at(&text));
        let (f, rows) = parse_catalog_rows("t.toml", &text).unwrap();
        assert!(rows.is_empty());
        let mut c = Catalog::builtin().unwrap();
        let found = c.merge_validated(f, Origin::User("t.toml".into()), "t.toml");
        assert!(found.iter().all(|f| f.severity != Severity::Error));
        let i = c.find_instance("x.1").unwrap();
        assert!(c.gpu(&i.gpu).is_some());
        assert!(c
            .best_price(i, crate::catalog::Billing::OnDemand, None)
            .is_some());
        // Without its GPU row, the instance is rejected with a reason, not dropped silently.
        let bad = text.replace("id = \"rtx4090\"", "id = \"rtx4090x\"");
        let e = errors_at(&bad);
        assert!(
            e.iter().any(|x| x.contains("not in the GPU table")),
            "{e:?}"
        );
    }

    #[test]
    fn bad_rows_are_skipped_and_good_rows_kept() {
        let text = format!(
            "{ROW}{}{}",
            ROW.replace("x.1", "x.2").replace("vcpu = 8", "vcpu = -4"),
            ROW.replace("x.1", "x.3")
                .replace("gpu_count = 1", "gpu_count = 1000")
        );
        let (f, rows) = parse_catalog_rows("t.toml", &text).unwrap();
        assert_eq!(rows.len(), 1, "{rows:?}");
        assert!(rows[0].location.contains("\"x.2\" vcpu"), "{rows:?}");
        let mut c = Catalog::builtin().unwrap();
        let found = c.merge_validated(f, Origin::User("t.toml".into()), "t.toml");
        assert!(found
            .iter()
            .any(|f| f.location == "instance \"x.3\" gpu_count"));
        assert!(c.find_instance("x.1").is_ok());
        assert!(c.find_instance("x.2").is_err() && c.find_instance("x.3").is_err());
    }

    #[test]
    fn parse_errors_give_the_position_and_key_not_the_line() {
        let e = parse_catalog_rows("secret.txt", "user = \"me\"\npassword = hunter2\n")
            .unwrap_err()
            .to_string();
        assert!(e.contains("line 2") && e.contains("password"), "{e}");
        assert!(!e.contains("hunter2"), "{e}");
        let (_, rows) = parse_catalog_rows("x.toml", "token = \"s3cr3t\"\n").unwrap();
        assert!(!format!("{rows:?}").contains("s3cr3t"));
    }

    #[test]
    fn the_built_in_catalog_validates_clean() {
        let merged = Catalog::builtin().unwrap();
        for (name, f) in crate::catalog::builtin_files().unwrap() {
            let e: Vec<_> = validate_file(&name, &f, &merged)
                .into_iter()
                .filter(|f| f.severity == Severity::Error)
                .collect();
            assert!(e.is_empty(), "{e:?}");
        }
    }

    #[test]
    fn a_user_gpu_that_cannot_be_planned_is_rejected_with_the_reason() {
        let e = errors_at(&GPU.replace("memory_gib = 24\n", ""));
        assert!(
            e.iter().any(|x| x.contains("memory_gib: not given")),
            "{e:?}"
        );
        let e = errors_at(&GPU.replace("tflops = { bf16 = 165, fp16 = 165 }\n", ""));
        assert!(
            e.iter().any(|x| x.contains("no bf16 or fp16 peak")),
            "{e:?}"
        );
        // A T4-like chip: no bf16, fp16 only, is fine.
        let t4 = GPU.replace("bf16 = 165, fp16 = 165", "bf16 = 0, fp16 = 65");
        assert!(errors_at(&t4).is_empty(), "{:?}", errors_at(&t4));
    }
}
