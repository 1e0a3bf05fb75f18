//! The catalog: accelerators, cloud instance types, prices and storage classes, every row with
//! `source`, `as_of` and `confidence`; built-in TOML data merged with user files.
//!
//! Pure: files are parsed from strings handed in by the caller (the CLI reads them and writes
//! user catalogs atomically). Merge order: built-in, then user files in the order given; a later
//! row with the same key replaces an earlier one and is marked with its origin.

pub mod import;
pub mod validate;

use crate::error::{close_names, CoreError};
use crate::hardware::{builtin_gpus, GpuSpec};
use serde::{Deserialize, Serialize};

#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Provider {
    Alibaba,
    Huawei,
    Tencent,
}

impl Provider {
    pub fn name(self) -> &'static str {
        match self {
            Provider::Alibaba => "alibaba",
            Provider::Huawei => "huawei",
            Provider::Tencent => "tencent",
        }
    }
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum RdmaKind {
    None,
    /// Alibaba elastic RDMA interface (ERI).
    Erdma,
    Roce,
    Ib,
    /// Not documented.
    Unknown,
}

impl RdmaKind {
    pub fn is_rdma(self) -> bool {
        matches!(self, RdmaKind::Erdma | RdmaKind::Roce | RdmaKind::Ib)
    }
}

/// How the GPUs of one instance reach each other.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum InstanceLink {
    Pcie,
    Nvlink,
    Nvswitch,
    Hccs,
    /// A vGPU slice: no peer link.
    Vgpu,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Confidence {
    Confirmed,
    Likely,
    Unverified,
}

/// Where a row came from.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize, Default)]
#[serde(rename_all = "snake_case", tag = "kind", content = "file")]
pub enum Origin {
    #[default]
    Builtin,
    User(String),
}

impl Origin {
    pub fn is_builtin(&self) -> bool {
        *self == Origin::Builtin
    }
}

/// Stock as a provider reports it (imports only).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Stock {
    Available,
    Low,
    SoldOut,
}

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Instance {
    pub id: String,
    pub provider: Provider,
    pub family: String,
    /// An id of the accelerator table, or `unknown:<raw name>` for chips not yet mapped (kept out
    /// of planning until the user maps them).
    pub gpu: String,
    /// Fractional for vGPU slices.
    pub gpu_count: f64,
    /// Per GPU (per slice for vGPU), GiB.
    pub gpu_memory_gib: Option<f64>,
    pub vcpu: Option<u32>,
    pub ram_gib: Option<f64>,
    /// Baseline (or maximum, see notes) VPC bandwidth, Gbit/s.
    pub network_gbit: Option<f64>,
    pub rdma: RdmaKind,
    pub rdma_gbit: Option<f64>,
    pub intra_link: Option<InstanceLink>,
    pub cpu: Option<String>,
    pub local_nvme_gib: Option<f64>,
    #[serde(default)]
    pub bare_metal: bool,
    #[serde(default)]
    pub vgpu: bool,
    #[serde(default)]
    pub regions: Vec<String>,
    pub stock: Option<Stock>,
    pub notes: Option<String>,
    pub source: String,
    pub as_of: String,
    pub confidence: Confidence,
    #[serde(default, skip_serializing_if = "Origin::is_builtin")]
    pub origin: Origin,
}

impl Instance {
    pub fn gpu_is_mapped(&self) -> bool {
        !self.gpu.starts_with("unknown:")
    }
    pub fn total_gpu_memory_gib(&self) -> Option<f64> {
        self.gpu_memory_gib
            .map(|m| if self.vgpu { m } else { m * self.gpu_count })
    }
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Billing {
    OnDemand,
    Monthly,
    Spot,
}

impl Billing {
    pub fn name(self) -> &'static str {
        match self {
            Billing::OnDemand => "on-demand",
            Billing::Monthly => "monthly",
            Billing::Spot => "spot",
        }
    }
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum PriceKind {
    /// Published by the provider (or a dated transcription of its console).
    List,
    /// Imported from the user's account or typed by the user (e.g. a negotiated discount).
    User,
    /// Derived by the documented method in `method`.
    Estimate,
    /// Fetched from the provider's price API with the user's credentials (`gpuplan prices
    /// fetch`); `source` names the API and region, `as_of` the fetch date.
    Api,
}

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Price {
    pub instance: String,
    pub provider: Provider,
    pub region: String,
    pub billing: Billing,
    /// CNY per instance-hour (on-demand, spot) or per instance-month (monthly).
    pub cny: f64,
    pub kind: PriceKind,
    pub as_of: String,
    pub source: String,
    pub confidence: Option<Confidence>,
    /// For estimates: how the number was derived.
    pub method: Option<String>,
    #[serde(default, skip_serializing_if = "Origin::is_builtin")]
    pub origin: Origin,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum StorageKind {
    Block,
    File,
    Object,
}

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct StorageClass {
    pub id: String,
    pub provider: Provider,
    pub name: String,
    pub kind: StorageKind,
    pub api_value: Option<String>,
    /// Shared by many nodes (file and object storage).
    #[serde(default)]
    pub shared: bool,
    pub min_capacity_gib: Option<f64>,
    pub max_capacity_gib: Option<f64>,
    #[serde(default)]
    pub throughput_base_mbs: f64,
    #[serde(default)]
    pub throughput_per_gib_mbs: f64,
    pub throughput_floor_mbs: Option<f64>,
    pub throughput_max_mbs: f64,
    pub iops_base: Option<f64>,
    pub iops_per_gib: Option<f64>,
    pub iops_max: Option<f64>,
    pub price_cny_per_gib_month: Option<f64>,
    pub price_note: Option<String>,
    pub notes: Option<String>,
    pub source: String,
    pub as_of: String,
    pub confidence: Confidence,
}

impl StorageClass {
    /// Throughput in MB/s at `capacity_gib`: clamp(base + per_gib × C, floor, max).
    pub fn throughput_mbs(&self, capacity_gib: f64) -> f64 {
        let t = self.throughput_base_mbs + self.throughput_per_gib_mbs * capacity_gib;
        t.max(self.throughput_floor_mbs.unwrap_or(0.0))
            .min(self.throughput_max_mbs)
    }
    /// Smallest capacity (GiB) that reaches `mbs`, if the class can reach it at all.
    pub fn capacity_for_throughput(&self, mbs: f64) -> Option<f64> {
        if mbs > self.throughput_max_mbs {
            return None;
        }
        let min_c = self.min_capacity_gib.unwrap_or(0.0);
        if self.throughput_mbs(min_c) >= mbs {
            return Some(min_c);
        }
        if self.throughput_per_gib_mbs <= 0.0 {
            return None;
        }
        let c = ((mbs - self.throughput_base_mbs) / self.throughput_per_gib_mbs).max(min_c);
        match self.max_capacity_gib {
            Some(mx) if c > mx => None,
            _ => Some(c.ceil()),
        }
    }
}

/// A name from the blog posts that is wrong, with what is true instead.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct WrongName {
    pub name: String,
    pub provider: Option<Provider>,
    pub verdict: String,
    pub confidence: Confidence,
}

/// One catalog file: any subset of the tables. Built-in files and user files share the format.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct CatalogFile {
    #[serde(default)]
    pub gpu: Vec<GpuSpec>,
    #[serde(default)]
    pub instance: Vec<Instance>,
    #[serde(default)]
    pub price: Vec<Price>,
    #[serde(default)]
    pub storage: Vec<StorageClass>,
    #[serde(default)]
    pub wrong: Vec<WrongName>,
    /// Families to hide from listings and planning (user files).
    #[serde(default)]
    pub hide_families: Vec<String>,
    /// Raw chip names → accelerator ids, for importers (user files): `"NVIDIA A10" = "a10"`.
    #[serde(default)]
    pub gpu_aliases: std::collections::BTreeMap<String, String>,
}

pub fn parse_catalog_file(what: &str, text: &str) -> Result<CatalogFile, CoreError> {
    toml::from_str(text).map_err(|e| CoreError::Parse {
        what: what.to_string(),
        message: e.to_string().trim_end().to_string(),
    })
}

const BUILTIN_FILES: &[(&str, &str)] = &[
    (
        "data/catalog/alibaba.toml",
        include_str!("../../data/catalog/alibaba.toml"),
    ),
    (
        "data/catalog/huawei.toml",
        include_str!("../../data/catalog/huawei.toml"),
    ),
    (
        "data/catalog/tencent.toml",
        include_str!("../../data/catalog/tencent.toml"),
    ),
    (
        "data/catalog/prices.toml",
        include_str!("../../data/catalog/prices.toml"),
    ),
    (
        "data/catalog/storage.toml",
        include_str!("../../data/catalog/storage.toml"),
    ),
    (
        "data/catalog/wrong-names.toml",
        include_str!("../../data/catalog/wrong-names.toml"),
    ),
];

/// The built-in catalog files, parsed (for `catalog validate`).
pub fn builtin_files() -> Result<Vec<(String, CatalogFile)>, CoreError> {
    BUILTIN_FILES
        .iter()
        .map(|(n, t)| {
            Ok((
                format!("built-in {n}"),
                parse_catalog_file(&format!("built-in {n}"), t)?,
            ))
        })
        .collect()
}

/// The merged catalog.
#[derive(Clone, Debug, Default, Serialize)]
pub struct Catalog {
    pub gpus: Vec<GpuSpec>,
    pub instances: Vec<Instance>,
    pub prices: Vec<Price>,
    pub storage: Vec<StorageClass>,
    pub wrong: Vec<WrongName>,
    pub hidden_families: Vec<String>,
    pub gpu_aliases: std::collections::BTreeMap<String, String>,
    /// Files merged in, in order (built-in first).
    pub files: Vec<String>,
}

impl Catalog {
    /// The built-in catalog alone.
    pub fn builtin() -> Result<Catalog, CoreError> {
        let mut c = Catalog {
            gpus: builtin_gpus()?.to_vec(),
            files: vec!["data/gpus.toml".into()],
            ..Default::default()
        };
        for (name, text) in BUILTIN_FILES {
            c.merge(
                parse_catalog_file(&format!("built-in {name}"), text)?,
                Origin::Builtin,
                name,
            );
        }
        Ok(c)
    }

    /// Merge a file over this catalog: same-key rows are replaced, new rows appended.
    pub fn merge(&mut self, f: CatalogFile, origin: Origin, label: &str) {
        self.files.push(label.to_string());
        for g in f.gpu {
            match self.gpus.iter_mut().find(|x| x.id == g.id) {
                Some(x) => *x = g,
                None => self.gpus.push(g),
            }
        }
        for mut i in f.instance {
            i.origin = origin.clone();
            match self
                .instances
                .iter_mut()
                .find(|x| x.id == i.id && x.provider == i.provider)
            {
                Some(x) => *x = i,
                None => self.instances.push(i),
            }
        }
        for mut p in f.price {
            p.origin = origin.clone();
            match self.prices.iter_mut().find(|x| {
                x.instance == p.instance && x.region == p.region && x.billing == p.billing
            }) {
                Some(x) => *x = p,
                None => self.prices.push(p),
            }
        }
        for s in f.storage {
            match self.storage.iter_mut().find(|x| x.id == s.id) {
                Some(x) => *x = s,
                None => self.storage.push(s),
            }
        }
        self.wrong.extend(f.wrong);
        self.hidden_families.extend(f.hide_families);
        self.gpu_aliases.extend(f.gpu_aliases);
    }

    pub fn gpu(&self, id: &str) -> Option<&GpuSpec> {
        self.gpus.iter().find(|g| g.id == id)
    }

    /// Instances not hidden by a user file.
    pub fn visible_instances(&self) -> impl Iterator<Item = &Instance> {
        self.instances.iter().filter(|i| {
            !self
                .hidden_families
                .iter()
                .any(|f| f.eq_ignore_ascii_case(&i.family))
        })
    }

    /// Prices of one instance, user prices first.
    pub fn prices_for<'a>(&'a self, instance: &'a str) -> impl Iterator<Item = &'a Price> + 'a {
        self.prices.iter().filter(move |p| p.instance == instance)
    }

    /// The price to use for `instance` under `billing`: a user price if any, else list, else an
    /// estimate derived from the same chip's per-GPU list rate at the same provider (method in the
    /// returned price). `region` narrows the choice when given.
    pub fn best_price(
        &self,
        inst: &Instance,
        billing: Billing,
        region: Option<&str>,
    ) -> Option<Price> {
        let rank = |p: &Price| match p.kind {
            PriceKind::User => 0,
            PriceKind::Api => 1,
            PriceKind::List => 2,
            PriceKind::Estimate => 3,
        };
        let direct = self
            .prices_for(&inst.id)
            .filter(|p| p.billing == billing && region.is_none_or(|r| p.region == r))
            .min_by_key(|p| rank(p))
            .cloned();
        direct.or_else(|| self.estimate_price(inst, billing, region))
    }

    /// Per-GPU rate of a listed same-chip instance at the same provider (the one with the
    /// closest GPU count, then the cheapest per GPU), × this instance's GPU count.
    fn estimate_price(
        &self,
        inst: &Instance,
        billing: Billing,
        region: Option<&str>,
    ) -> Option<Price> {
        if inst.vgpu || inst.gpu_count <= 0.0 {
            return None;
        }
        let (_, rate, from, n) = self
            .prices
            .iter()
            .filter(|p| {
                p.billing == billing
                    && p.provider == inst.provider
                    && p.kind != PriceKind::Estimate
                    && region.is_none_or(|r| p.region == r)
            })
            .filter_map(|p| {
                let other = self.instances.iter().find(|i| i.id == p.instance)?;
                (other.gpu == inst.gpu && !other.vgpu && other.gpu_count >= 1.0).then(|| {
                    (
                        (other.gpu_count - inst.gpu_count).abs(),
                        p.cny / other.gpu_count,
                        p,
                        other.gpu_count,
                    )
                })
            })
            .min_by(|a, b| a.0.total_cmp(&b.0).then(a.1.total_cmp(&b.1)))?;
        Some(Price {
            instance: inst.id.clone(),
            provider: inst.provider,
            region: from.region.clone(),
            billing,
            cny: rate * inst.gpu_count,
            kind: PriceKind::Estimate,
            as_of: from.as_of.clone(),
            source: from.source.clone(),
            confidence: Some(Confidence::Unverified),
            method: Some(format!(
                "{} GPU(s) × the per-GPU rate of {} (¥{:.2} for {} GPU(s)), the listed same-chip type with the closest GPU count; CPU, RAM and network differences are ignored",
                inst.gpu_count, from.instance, from.cny, n
            )),
            origin: Origin::Builtin,
        })
    }

    /// Find an instance by id (case-insensitive) — or explain a known-wrong name.
    pub fn find_instance(&self, id: &str) -> Result<&Instance, CoreError> {
        if let Some(i) = self
            .instances
            .iter()
            .find(|i| i.id.eq_ignore_ascii_case(id))
        {
            return Ok(i);
        }
        let key = id.to_lowercase();
        if let Some(w) = self.wrong.iter().find(|w| {
            key == w.name.to_lowercase()
                || key.starts_with(&format!("{}-", w.name.to_lowercase()))
                || key.starts_with(&format!("{}.", w.name.to_lowercase()))
        }) {
            return Err(CoreError::Unknown {
                kind: "instance type (this name circulates in blog posts but is wrong)".into(),
                name: format!("{id}: {}", w.verdict),
                suggestions: vec![],
            });
        }
        Err(CoreError::Unknown {
            kind: "instance type".into(),
            name: id.to_string(),
            suggestions: close_names(id, self.instances.iter().map(|i| i.id.as_str())),
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn builtin_catalog_loads_all_providers() {
        let c = Catalog::builtin().unwrap();
        for p in [Provider::Alibaba, Provider::Huawei, Provider::Tencent] {
            assert!(
                c.instances.iter().filter(|i| i.provider == p).count() >= 20,
                "{p:?}"
            );
        }
        assert!(c.prices.iter().all(|p| p.kind == PriceKind::List));
        // Tencent's built-in prices are dated third-party transcriptions, marked unverified.
        let tencent: Vec<_> = c
            .prices
            .iter()
            .filter(|p| p.provider == Provider::Tencent)
            .collect();
        assert!(tencent.len() >= 2);
        assert!(tencent
            .iter()
            .all(|p| p.confidence == Some(Confidence::Unverified) && p.as_of.len() == 10));
        assert!(c.prices.iter().all(|p| p.provider != Provider::Huawei));
        assert!(c.storage.len() >= 20);
    }

    #[test]
    fn fictional_names_are_absent_and_explained() {
        let c = Catalog::builtin().unwrap();
        for name in [
            "ecs.gn7i",
            "ecs.in3",
            "ecs.turing",
            "ecs.gn8i-c16g1.4xlarge",
            "gn9e",
            "g8i",
            "g8a",
        ] {
            assert!(
                c.instances.iter().all(|i| !i.id.eq_ignore_ascii_case(name)),
                "{name} must not be an instance"
            );
            let e = c.find_instance(name).unwrap_err().to_string();
            assert!(e.contains("wrong"), "{name}: {e}");
        }
        // gn8i's verdict points at the real family.
        assert!(c
            .find_instance("ecs.gn8i-c16g1.4xlarge")
            .unwrap_err()
            .to_string()
            .contains("gn8is"));
    }

    #[test]
    fn storage_formula_and_inverse() {
        let c = Catalog::builtin().unwrap();
        let pl1 = c
            .storage
            .iter()
            .find(|s| s.id == "alibaba-essd-pl1")
            .unwrap();
        assert_eq!(pl1.throughput_mbs(100.0), 170.0);
        assert_eq!(pl1.throughput_mbs(10_000.0), 350.0);
        assert_eq!(pl1.capacity_for_throughput(350.0), Some(460.0));
        assert_eq!(pl1.capacity_for_throughput(400.0), None);
        let turbo = c
            .storage
            .iter()
            .find(|s| s.id == "huawei-sfs-turbo-250")
            .unwrap();
        // The doc's own example: 6 TiB × 250 = 1,500 MB/s.
        assert!((turbo.throughput_mbs(6.0 * 1024.0) - 1500.0).abs() < 1e-6);
    }

    #[test]
    fn estimates_say_how_they_were_made() {
        let c = Catalog::builtin().unwrap();
        let i = c.find_instance("ecs.gn7i-c32g1.16xlarge").unwrap();
        assert_eq!(
            c.best_price(i, Billing::OnDemand, None).unwrap().kind,
            PriceKind::List
        );
        let i = c.find_instance("ecs.gn7i-8x.32xlarge").unwrap();
        let p = c.best_price(i, Billing::OnDemand, None).unwrap();
        assert_eq!(p.kind, PriceKind::Estimate);
        assert!(p.method.unwrap().contains("per-GPU rate"));
        // The 8-GPU A10 type is estimated from the listed 4-GPU type, not the 1-GPU one.
        assert!((p.cny - 2.0 * 53.23).abs() < 0.01, "{}", p.cny);
        // No Tencent price exists, so no estimate is invented.
        let t = c.find_instance("GT4.41XLARGE948").unwrap();
        assert!(c.best_price(t, Billing::OnDemand, None).is_none());
    }
}
