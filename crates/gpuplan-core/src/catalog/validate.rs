//! `gpuplan catalog validate`: schema (by parsing), units, cross-references, duplicates, prices,
//! provenance. The built-in catalog must produce no errors (a test and CI check it).

use super::{Catalog, CatalogFile, PriceKind};
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
    pub message: String,
}

struct Out<'a> {
    file: &'a str,
    findings: Vec<Finding>,
}

impl Out<'_> {
    fn err(&mut self, location: String, message: impl Into<String>) {
        self.findings.push(Finding {
            severity: Severity::Error,
            file: self.file.to_string(),
            location,
            message: message.into(),
        });
    }
    fn warn(&mut self, location: String, message: impl Into<String>) {
        self.findings.push(Finding {
            severity: Severity::Warning,
            file: self.file.to_string(),
            location,
            message: message.into(),
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

/// Check one file against the merged catalog it will be part of (for cross-references).
pub fn validate_file(file: &str, f: &CatalogFile, merged: &Catalog) -> Vec<Finding> {
    let mut o = Out {
        file,
        findings: Vec::new(),
    };
    let mut seen = HashSet::new();
    for g in &f.gpu {
        let loc = format!("gpu \"{}\"", g.id);
        if !seen.insert(format!("gpu:{}", g.id)) {
            o.err(loc.clone(), "duplicate gpu id in this file");
        }
        match g.memory_gib {
            Some(m) if m > 1024.0 => o.err(format!("{loc} memory_gib"), format!("{m} GiB per device looks like MiB: give memory_gib in GiB (e.g. 80 for an 80 GB card)")),
            Some(m) if m <= 0.0 => o.err(format!("{loc} memory_gib"), "must be positive"),
            _ => {}
        }
        if g.source.trim().is_empty() || !valid_date(&g.as_of) {
            o.err(
                loc.clone(),
                "every row needs a non-empty source and an as_of date (YYYY-MM or YYYY-MM-DD)",
            );
        }
        if !["confirmed", "likely", "unverified"].contains(&g.confidence.as_str()) {
            o.err(
                format!("{loc} confidence"),
                "must be confirmed, likely or unverified",
            );
        }
    }
    for i in &f.instance {
        let loc = format!("instance \"{}\"", i.id);
        if !seen.insert(format!("instance:{:?}:{}", i.provider, i.id)) {
            o.err(loc.clone(), "duplicate instance id in this file");
        }
        if i.source.trim().is_empty() || !valid_date(&i.as_of) {
            o.err(
                loc.clone(),
                "needs a non-empty source and an as_of date (YYYY-MM or YYYY-MM-DD)",
            );
        }
        if !(i.gpu_count > 0.0 && i.gpu_count <= 64.0) {
            o.err(
                format!("{loc} gpu_count"),
                format!(
                    "{} is not a GPU count (fractions below 1 mark vGPU slices)",
                    i.gpu_count
                ),
            );
        }
        if i.gpu_count < 1.0 && !i.vgpu {
            o.err(
                format!("{loc} vgpu"),
                "a fractional gpu_count is a vGPU slice: set vgpu = true",
            );
        }
        if let Some(v) = i.vcpu {
            if v == 0 || v > 1024 {
                o.err(format!("{loc} vcpu"), format!("{v} vCPUs is out of range"));
            }
        }
        if let Some(r) = i.ram_gib {
            if r <= 0.0 {
                o.err(format!("{loc} ram_gib"), "must be positive");
            } else if r > 32_768.0 {
                o.err(
                    format!("{loc} ram_gib"),
                    format!("{r} GiB looks like MiB: give ram_gib in GiB"),
                );
            }
        }
        if !i.gpu_is_mapped() {
            o.warn(format!("{loc} gpu"), format!("chip `{}` is not mapped to a catalog GPU: add a gpu_aliases entry; the instance is kept out of planning", i.gpu.trim_start_matches("unknown:")));
            continue;
        }
        match merged.gpu(&i.gpu) {
            None => o.err(
                format!("{loc} gpu"),
                format!(
                    "`{}` is not in the GPU table (`gpuplan catalog gpus`)",
                    i.gpu
                ),
            ),
            Some(g) => {
                if let (Some(m), Some(chip)) = (i.gpu_memory_gib, g.memory_gib) {
                    if m > 1024.0 {
                        o.err(format!("{loc} gpu_memory_gib"), format!("{m} looks like MiB: the field is GiB per GPU (the chip has {chip} GiB)"));
                    } else if i.vgpu {
                        if m > chip * 1.01 {
                            o.err(
                                format!("{loc} gpu_memory_gib"),
                                format!("a vGPU slice of {m} GiB exceeds the chip's {chip} GiB"),
                            );
                        }
                    } else if (m - chip).abs() > 0.1 * chip {
                        o.err(format!("{loc} gpu_memory_gib"), format!("{m} GiB per GPU does not match {} ({chip} GiB); if this is the total, divide by gpu_count", g.name));
                    }
                }
            }
        }
    }
    for (n, p) in f.price.iter().enumerate() {
        let loc = format!(
            "price[{n}] \"{}\" {} {}",
            p.instance,
            p.region,
            p.billing.name()
        );
        if !seen.insert(format!("price:{}:{}:{:?}", p.instance, p.region, p.billing)) {
            o.err(
                loc.clone(),
                "duplicate price (same instance, region and billing) in this file",
            );
        }
        if !(p.cny.is_finite() && p.cny > 0.0) {
            o.err(format!("{loc} cny"), format!("{} is not a price: zero or negative prices are never valid (leave the price out when unknown)", p.cny));
        }
        if p.source.trim().is_empty() || !valid_date(&p.as_of) {
            o.err(loc.clone(), "needs a non-empty source and an as_of date");
        }
        if p.kind == PriceKind::Estimate && p.method.as_deref().is_none_or(|m| m.trim().is_empty())
        {
            o.err(
                format!("{loc} method"),
                "an estimate must say how it was derived (method = \"...\")",
            );
        }
        if !merged.instances.iter().any(|i| i.id == p.instance) {
            o.err(
                format!("{loc} instance"),
                format!("no instance `{}` in the catalog", p.instance),
            );
        }
    }
    for s in &f.storage {
        let loc = format!("storage \"{}\"", s.id);
        if !seen.insert(format!("storage:{}", s.id)) {
            o.err(loc.clone(), "duplicate storage id in this file");
        }
        if s.throughput_max_mbs <= 0.0
            || s.throughput_base_mbs < 0.0
            || s.throughput_per_gib_mbs < 0.0
        {
            o.err(loc.clone(), "throughput figures must be positive (MB/s)");
        }
        if s.source.trim().is_empty() || !valid_date(&s.as_of) {
            o.err(loc.clone(), "needs a non-empty source and an as_of date");
        }
        if let Some(pr) = s.price_cny_per_gib_month {
            if pr <= 0.0 {
                o.err(
                    format!("{loc} price_cny_per_gib_month"),
                    "zero or negative prices are never valid",
                );
            }
        }
    }
    for (raw, id) in &f.gpu_aliases {
        if merged.gpu(id).is_none() {
            o.err(
                format!("gpu_aliases \"{raw}\""),
                format!("maps to `{id}`, which is not in the GPU table"),
            );
        }
    }
    o.findings
}

#[cfg(test)]
mod tests {
    use super::super::{parse_catalog_file, Catalog, Origin};
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
        assert!(
            f.iter().any(|x| x.message.contains("zero or negative")),
            "{f:?}"
        );
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
}
