//! The catalog: accelerators, cloud instance types, prices and storage classes, every row with
//! `source`, `as_of` and `confidence`; built-in TOML data merged with user files.
//!
//! Pure: files are parsed from strings handed in by the caller (the CLI reads them and writes
//! user catalogs atomically). Merge order: built-in, then user files in the order given; a later
//! row with the same key replaces an earlier one and is marked with its origin.

pub mod import;
mod index;
pub mod regions;
mod rows;
pub mod validate;

use crate::error::{close_names, CoreError};
use crate::hardware::{builtin_gpus, GpuSpec};
use serde::{Deserialize, Serialize};

#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
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
    /// How the type can be bought, where the provider's docs restrict it (invitational preview,
    /// application/whitelist, support ticket, contact sales). `None` = no restriction documented.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub access: Option<Access>,
    /// What the source says about the restriction (quoted or paraphrased).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub access_note: Option<String>,
    pub notes: Option<String>,
    pub source: String,
    pub as_of: String,
    pub confidence: Confidence,
    #[serde(default, skip_serializing_if = "Origin::is_builtin")]
    pub origin: Origin,
}

/// A documented restriction on buying an instance type.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Access {
    /// Invitational preview / invite-only: apply to the provider first.
    Invitation,
    /// Application or whitelist needed (申请/白名单).
    Application,
    /// A support ticket is needed to buy it.
    Ticket,
    /// Only in some regions; the provider says to contact sales.
    ContactSales,
}

impl Access {
    pub fn name(self) -> &'static str {
        match self {
            Access::Invitation => "invitation",
            Access::Application => "application",
            Access::Ticket => "ticket",
            Access::ContactSales => "contact sales",
        }
    }
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
    /// Also spelled `on-demand`, as on the command line.
    #[serde(alias = "on-demand")]
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
    /// `method` in Chinese, for the estimates gpuplan derives itself (not read from files).
    #[serde(skip)]
    pub method_zh: Option<String>,
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
    /// Throughput by capacity tier, `[[from_gib, mbs], …]`: from `from_gib` GiB bought the
    /// class delivers `mbs` (Alibaba Extreme NAS: 150 MB/s from 100 GiB … 1,200 from 8 TiB).
    /// The tier reached counts beside `base + per_gib × C`, the larger of the two.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub throughput_tiers: Vec<[f64; 2]>,
    pub throughput_max_mbs: f64,
    /// Most one client (node) reads or writes, MB/s, where the provider publishes a per-client
    /// limit below the file system's (Tencent CFS: 300 MiB/s Standard, 500 MiB/s
    /// High-Performance): `nodes` clients get at most `nodes ×` this.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub client_max_mbs: Option<f64>,
    /// Throughput and bill follow the PROVISIONED (bought) capacity, so buying more capacity
    /// buys speed (block volumes, CPFS, SFS Turbo, CFS Turbo, Extreme NAS). When false the
    /// throughput follows the data actually stored and the bill the used capacity (general NAS,
    /// general CFS, object storage): a larger size cannot be bought for speed.
    #[serde(default, skip_serializing)]
    pub provisioned: bool,
    /// Sourced write cap (MB/s) where it is lower than `throughput_max_mbs` (a read figure).
    #[serde(default, skip_serializing)]
    pub write_max_mbs: Option<f64>,
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
    /// With tiers, the larger of that and the tier `capacity_gib` reaches.
    pub fn throughput_mbs(&self, capacity_gib: f64) -> f64 {
        let t = self.throughput_base_mbs + self.throughput_per_gib_mbs * capacity_gib;
        t.max(self.tier_mbs(capacity_gib))
            .max(self.throughput_floor_mbs.unwrap_or(0.0))
            .min(self.throughput_max_mbs)
    }
    /// The throughput of the highest tier `capacity_gib` reaches (0 below every tier).
    fn tier_mbs(&self, capacity_gib: f64) -> f64 {
        self.throughput_tiers
            .iter()
            .filter(|[from, _]| *from <= capacity_gib)
            .map(|[_, mbs]| *mbs)
            .fold(0.0, f64::max)
    }
    /// Throughput `clients` nodes get together at `capacity_gib`: no more than the per-client
    /// limit each ([`StorageClass::client_max_mbs`]).
    pub fn throughput_for(&self, capacity_gib: f64, clients: u64) -> f64 {
        let per_client = self
            .client_max_mbs
            .map_or(f64::INFINITY, |c| c * clients as f64);
        self.throughput_mbs(capacity_gib).min(per_client)
    }
    /// Write throughput in MB/s at `capacity_gib`: the throughput, no faster than the write cap.
    pub fn write_mbs(&self, capacity_gib: f64) -> f64 {
        let t = self.throughput_mbs(capacity_gib);
        self.write_max_mbs.map_or(t, |w| t.min(w))
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
        // The smallest tier that reaches `mbs`, where the linear part does not reach it first.
        let tier = self
            .throughput_tiers
            .iter()
            .filter(|[_, t]| *t >= mbs)
            .map(|[from, _]| from.max(min_c))
            .fold(f64::INFINITY, f64::min);
        if self.throughput_per_gib_mbs <= 0.0 {
            return match self.max_capacity_gib {
                _ if !tier.is_finite() => None,
                Some(mx) if tier > mx => None,
                _ => Some(tier.ceil()),
            };
        }
        let c = ((mbs - self.throughput_base_mbs) / self.throughput_per_gib_mbs)
            .max(min_c)
            .min(tier);
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
    /// The verdict in Chinese (`catalog show NAME --lang zh`); the English one where absent.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub verdict_zh: Option<String>,
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

/// Parse a whole catalog file strictly (every row must deserialize). Used for the built-in files
/// and for re-reading what an import is about to write. Errors give the line, column and key, never
/// the text of the line (the file may not be a catalog at all).
pub fn parse_catalog_file(what: &str, text: &str) -> Result<CatalogFile, CoreError> {
    toml::from_str(text).map_err(|e| toml_error(what, text, &e))
}

/// Parse a user catalog row by row: a syntax error fails the whole file (with its position), but a
/// row that does not deserialize (wrong type, unknown field, negative `vcpu`) becomes an error
/// finding naming the row and field, and the other rows are kept.
pub fn parse_catalog_rows(
    what: &str,
    text: &str,
) -> Result<(CatalogFile, Vec<validate::Finding>), CoreError> {
    let table: toml::Table = text.parse().map_err(|e| toml_error(what, text, &e))?;
    Ok(rows::split(what, table))
}

/// A TOML error as `line L, column C (key `k`): message`, without the offending line's text.
pub fn toml_error(what: &str, text: &str, e: &toml::de::Error) -> CoreError {
    let message = rows::sanitize(e.message().trim_end());
    let Some(span) = e.span() else {
        return CoreError::Parse {
            what: what.to_string(),
            message,
        };
    };
    let at = span.start.min(text.len());
    let before = text.get(..at).unwrap_or("");
    let line = before.matches('\n').count() + 1;
    let line_start = before.rfind('\n').map_or(0, |n| n + 1);
    let column = before.get(line_start..).map_or(0, |l| l.chars().count()) + 1;
    let key = text
        .get(line_start..)
        .and_then(|l| l.lines().next())
        .and_then(rows::key_of_line)
        .map(|k| format!(" (key `{k}`)"))
        .unwrap_or_default();
    CoreError::Parse {
        what: what.to_string(),
        message: format!("line {line}, column {column}{key}: {message}"),
    }
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

/// The most GPUs one instance type may have (a validation bound, also applied to estimates).
pub const MAX_GPU_COUNT: f64 = 64.0;

/// A price or cost that may be used: positive and finite.
pub fn sane_money(cny: f64) -> bool {
    cny.is_finite() && cny > 0.0
}

/// Whether an instance's price may be spread per GPU: whole GPUs, a valid count.
pub(crate) fn estimate_base(i: &Instance) -> bool {
    !i.vgpu && i.gpu_is_mapped() && i.gpu_count >= 1.0 && i.gpu_count <= MAX_GPU_COUNT
}

/// The merged catalog. Change it through [`Catalog::merge`] / [`Catalog::merge_validated`] (which
/// keep the id indexes current); after editing the vectors directly, call [`Catalog::reindex`]
/// (lookups stay correct without it, only slower).
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
    #[serde(skip)]
    ix: index::Index,
}

impl Catalog {
    /// The built-in catalog alone.
    pub fn builtin() -> Result<Catalog, CoreError> {
        let mut c = Catalog {
            gpus: builtin_gpus()?.to_vec(),
            files: vec!["data/gpus.toml".into()],
            ..Default::default()
        };
        c.reindex();
        for (name, text) in BUILTIN_FILES {
            c.merge(
                parse_catalog_file(&format!("built-in {name}"), text)?,
                Origin::Builtin,
                name,
            );
        }
        Ok(c)
    }

    /// Rebuild the id indexes (after editing the row vectors directly).
    pub fn reindex(&mut self) {
        self.ix = index::Index::build(self);
    }

    fn ensure_index(&mut self) {
        if !self.ix.fresh(self) {
            self.reindex();
        }
        self.ix.per_chip = Default::default();
    }

    /// Merge a file over this catalog without checking it (built-in files, which CI validates):
    /// same-key rows are replaced in place, new rows appended.
    pub fn merge(&mut self, f: CatalogFile, origin: Origin, label: &str) {
        self.files.push(label.to_string());
        self.merge_gpus(f.gpu);
        self.merge_instances(f.instance, &origin);
        self.merge_prices(f.price, &origin);
        self.merge_storage(f.storage);
        self.wrong.extend(f.wrong);
        self.hidden_families.extend(f.hide_families);
        self.gpu_aliases.extend(f.gpu_aliases);
    }

    /// Merge a user file row by row, keeping only rows that pass [`validate`]: returns the
    /// findings (errors name the rows left out). Rows are checked against the catalog as it
    /// stands, so an instance may use a GPU row of the same file.
    pub fn merge_validated(
        &mut self,
        f: CatalogFile,
        origin: Origin,
        label: &str,
    ) -> Vec<validate::Finding> {
        validate::merge_checked(self, f, origin, label)
    }

    pub(crate) fn merge_gpus(&mut self, rows: Vec<GpuSpec>) {
        self.ensure_index();
        for g in rows {
            let hit = self.ix.gpu.get(&g.id).copied();
            if hit.is_some_and(|n| self.gpus.get(n).is_none_or(|x| x.id != g.id)) {
                self.reindex(); // a row was edited in place: trust the vector, not the index
            }
            match self.ix.gpu.get(&g.id).copied() {
                Some(n) => self.gpus[n] = g,
                None => {
                    self.ix.gpu.insert(g.id.clone(), self.gpus.len());
                    self.gpus.push(g);
                }
            }
        }
        self.ix.n_gpu = self.gpus.len();
    }

    pub(crate) fn merge_instances(&mut self, rows: Vec<Instance>, origin: &Origin) {
        self.ensure_index();
        for mut i in rows {
            i.origin = origin.clone();
            let key = (i.provider, i.id.clone());
            let hit = self.ix.inst.get(&key).copied();
            if hit.is_some_and(|n| {
                self.instances
                    .get(n)
                    .is_none_or(|x| (x.provider, &x.id) != (i.provider, &i.id))
            }) {
                self.reindex();
            }
            match self.ix.inst.get(&key).copied() {
                Some(n) => self.instances[n] = i,
                None => {
                    let n = self.instances.len();
                    self.ix.add_instance(n, i.provider, &i.id);
                    self.instances.push(i);
                }
            }
        }
        self.ix.n_inst = self.instances.len();
    }

    pub(crate) fn merge_prices(&mut self, rows: Vec<Price>, origin: &Origin) {
        self.ensure_index();
        for mut p in rows {
            p.origin = origin.clone();
            let key = (p.instance.clone(), p.region.clone(), p.billing);
            let hit = self.ix.price.get(&key).copied();
            if hit.is_some_and(|n| {
                self.prices.get(n).is_none_or(|x| {
                    (&x.instance, &x.region, x.billing) != (&p.instance, &p.region, p.billing)
                })
            }) {
                self.reindex();
            }
            match self.ix.price.get(&key).copied() {
                Some(n) => self.prices[n] = p,
                None => {
                    let n = self.prices.len();
                    self.ix.add_price(n, key);
                    self.prices.push(p);
                }
            }
        }
        self.ix.n_price = self.prices.len();
    }

    pub(crate) fn merge_storage(&mut self, rows: Vec<StorageClass>) {
        self.ensure_index();
        for s in rows {
            let hit = self.ix.storage.get(&s.id).copied();
            if hit.is_some_and(|n| self.storage.get(n).is_none_or(|x| x.id != s.id)) {
                self.reindex();
            }
            match self.ix.storage.get(&s.id).copied() {
                Some(n) => self.storage[n] = s,
                None => {
                    self.ix.storage.insert(s.id.clone(), self.storage.len());
                    self.storage.push(s);
                }
            }
        }
        self.ix.n_storage = self.storage.len();
    }

    pub fn gpu(&self, id: &str) -> Option<&GpuSpec> {
        if self.ix.fresh(self) {
            let hit = self.ix.gpu.get(id).and_then(|&n| self.gpus.get(n));
            if let Some(g) = hit.filter(|g| g.id == id) {
                return Some(g);
            }
            hit?;
        }
        self.gpus.iter().find(|g| g.id == id)
    }

    /// The first instance row with this exact id (any provider).
    pub fn instance(&self, id: &str) -> Option<&Instance> {
        if self.ix.fresh(self) {
            let hit = self
                .ix
                .inst_first
                .get(id)
                .and_then(|&n| self.instances.get(n));
            if let Some(i) = hit.filter(|i| i.id == id) {
                return Some(i);
            }
            hit?;
        }
        self.instances.iter().find(|i| i.id == id)
    }

    /// Instances not hidden by a user file.
    pub fn visible_instances(&self) -> impl Iterator<Item = &Instance> {
        let hidden: std::collections::HashSet<String> = self
            .hidden_families
            .iter()
            .map(|f| f.to_lowercase())
            .collect();
        self.instances
            .iter()
            .filter(move |i| hidden.is_empty() || !hidden.contains(&i.family.to_lowercase()))
    }

    /// Prices of one instance, in catalog order.
    pub fn prices_for<'a>(&'a self, instance: &'a str) -> impl Iterator<Item = &'a Price> + 'a {
        let fresh = self.ix.fresh(self);
        let fast = fresh
            .then(|| self.ix.prices_of.get(instance))
            .flatten()
            .into_iter()
            .flat_map(move |v| v.iter().filter_map(move |&n| self.prices.get(n)));
        let slow = (!fresh).then(|| self.prices.iter()).into_iter().flatten();
        fast.chain(slow).filter(move |p| p.instance == instance)
    }

    /// The price to use for `instance` under `billing`: a user price if any, else list, else an
    /// estimate derived from the same chip's per-GPU list rate at the same provider (method in the
    /// returned price). `region` narrows the choice when given. Prices that are not a positive,
    /// finite amount are never used (user rows are validated at load; this guards the rest).
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
            .filter(|p| sane_money(p.cny))
            .min_by_key(|p| rank(p))
            .cloned();
        direct.or_else(|| self.estimate_price(inst, billing, region))
    }

    /// The inputs of the per-GPU estimate, built once per catalog state (see [`index::EstimateInputs`]).
    fn estimate_inputs(&self) -> std::borrow::Cow<'_, index::EstimateInputs> {
        if self.ix.fresh(self) {
            std::borrow::Cow::Borrowed(
                self.ix
                    .per_chip
                    .get_or_init(|| index::EstimateInputs::build(self)),
            )
        } else {
            std::borrow::Cow::Owned(index::EstimateInputs::build(self))
        }
    }

    /// Per-GPU rate of a listed same-chip instance at the same provider (the one with the
    /// closest GPU count, then the cheapest per GPU), × this instance's GPU count. Only positive,
    /// finite prices of whole-GPU types with a valid count are spread.
    fn estimate_price(
        &self,
        inst: &Instance,
        billing: Billing,
        region: Option<&str>,
    ) -> Option<Price> {
        if inst.vgpu || !(inst.gpu_count >= 1.0 && inst.gpu_count <= MAX_GPU_COUNT) {
            return None;
        }
        let inputs = self.estimate_inputs();
        let best = inputs
            .get(&(inst.provider, inst.gpu.clone(), billing))?
            .iter()
            .filter(|c| region.is_none_or(|r| c.region == r))
            .min_by(|a, b| {
                let d = |c: &index::EstimateInput| (c.gpu_count - inst.gpu_count).abs();
                d(a).total_cmp(&d(b))
                    .then(a.rate.total_cmp(&b.rate))
                    .then(a.row.cmp(&b.row))
            })?;
        let from = self.prices.get(best.row)?;
        let (rate, n) = (best.rate, best.gpu_count);
        let cny = rate * inst.gpu_count;
        if !sane_money(cny) {
            return None;
        }
        let method = crate::i18n::Text::from(
            crate::i18n::Msg::new("price-per-gpu-estimate")
                .arg("gpus", format!("{}", inst.gpu_count))
                .arg("from", from.instance.as_str())
                .arg("cny", format!("{:.2}", from.cny))
                .arg("n", format!("{n}")),
        );
        Some(Price {
            instance: inst.id.clone(),
            provider: inst.provider,
            region: from.region.clone(),
            billing,
            cny,
            kind: PriceKind::Estimate,
            as_of: from.as_of.clone(),
            source: from.source.clone(),
            confidence: Some(Confidence::Unverified),
            method: Some(method.en),
            method_zh: Some(method.zh),
            origin: Origin::Builtin,
        })
    }

    /// Find an instance by id (case-insensitive) — or explain a known-wrong name.
    pub fn find_instance(&self, id: &str) -> Result<&Instance, CoreError> {
        let hit = if self.ix.fresh(self) {
            self.ix
                .inst_lower
                .get(&id.to_ascii_lowercase())
                .and_then(|&n| self.instances.get(n))
                .filter(|i| i.id.eq_ignore_ascii_case(id))
        } else {
            self.instances
                .iter()
                .find(|i| i.id.eq_ignore_ascii_case(id))
        };
        if let Some(i) = hit {
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
                name: id.to_string(),
                suggestions: vec![],
                note: Some(Box::new(crate::i18n::Text {
                    en: w.verdict.clone(),
                    zh: w.verdict_zh.clone().unwrap_or_else(|| w.verdict.clone()),
                })),
            });
        }
        Err(CoreError::Unknown {
            kind: "instance type".into(),
            name: id.to_string(),
            suggestions: close_names(id, self.instances.iter().map(|i| i.id.as_str())),
            note: None,
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

    /// Plan audit r22 #1: the classes with only a published maximum had a throughput of 0 and
    /// were never sized. Extreme NAS follows its capacity tiers; Tencent's general CFS classes
    /// give the recommended figure at any size, High-Performance no more than 500 MiB/s per
    /// client; CFS Turbo its recommended 10 GiB/s from its smallest purchase.
    #[test]
    fn tiered_and_flat_storage_classes_have_a_throughput() {
        let c = Catalog::builtin().unwrap();
        let class = |id: &str| c.storage.iter().find(|s| s.id == id).unwrap();
        let nas = class("alibaba-nas-extreme");
        for (gib, mbs) in [
            (100.0, 150.0),
            (499.0, 150.0),
            (500.0, 300.0),
            (2048.0, 600.0),
            (5000.0, 900.0),
            (8192.0, 1200.0),
            (200_000.0, 1200.0),
        ] {
            assert_eq!(nas.throughput_mbs(gib), mbs, "{gib} GiB");
        }
        assert_eq!(nas.throughput_mbs(50.0), 0.0);
        assert_eq!(nas.capacity_for_throughput(100.0), Some(100.0));
        assert_eq!(nas.capacity_for_throughput(301.0), Some(2048.0));
        assert_eq!(nas.capacity_for_throughput(1200.0), Some(8192.0));
        assert_eq!(nas.capacity_for_throughput(1201.0), None);
        let std = class("tencent-cfs-standard");
        assert!((std.throughput_for(1.0, 4) - 240.0 * 1.048576).abs() < 1e-9);
        let hp = class("tencent-cfs-hp");
        assert!((hp.throughput_for(10.0, 1) - 500.0 * 1.048576).abs() < 1e-9);
        assert!((hp.throughput_for(10.0, 2) - 800.0 * 1.048576).abs() < 1e-9);
        let turbo = class("tencent-cfs-turbo");
        assert_eq!(turbo.capacity_for_throughput(5000.0), Some(20480.0));
        assert!((turbo.throughput_for(20480.0, 16) - 10240.0 * 1.048576).abs() < 1e-9);
        // A class with no tiers and no formula still reaches nothing.
        let mut bare = std.clone();
        bare.throughput_base_mbs = 0.0;
        assert_eq!(bare.throughput_mbs(1e6), 0.0);
        assert_eq!(bare.capacity_for_throughput(10.0), None);
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

    #[test]
    fn a_bad_price_is_never_spread_per_gpu() {
        let mut c = Catalog::builtin().unwrap();
        // Corrupt every A10 list price directly (as unvalidated data would be).
        for (n, p) in c.prices.iter_mut().enumerate() {
            if p.instance.starts_with("ecs.gn7i") {
                p.cny = [f64::NAN, -5.0, 0.0, f64::INFINITY][n % 4];
            }
        }
        let i = c.find_instance("ecs.gn7i-8x.32xlarge").unwrap().clone();
        for b in [Billing::OnDemand, Billing::Monthly, Billing::Spot] {
            if let Some(p) = c.best_price(&i, b, None) {
                assert!(sane_money(p.cny), "{p:?}");
            }
        }
        let direct = c.find_instance("ecs.gn7i-c8g1.2xlarge").unwrap().clone();
        assert!(c
            .best_price(&direct, Billing::OnDemand, None)
            .is_none_or(|p| sane_money(p.cny)));
    }

    #[test]
    fn lookups_stay_correct_when_the_vectors_are_edited_directly() {
        let mut c = Catalog::builtin().unwrap();
        let mut extra = c.instances[0].clone();
        extra.id = "added.directly".into();
        c.instances.push(extra);
        assert!(c.find_instance("ADDED.directly").is_ok());
        assert!(c.instance("added.directly").is_some());
        c.gpus[0].id = "renamed".into();
        assert!(c.gpu("renamed").is_some());
        c.reindex();
        assert!(c.find_instance("added.directly").is_ok() && c.gpu("renamed").is_some());
        // An id changed in place, then a merge with the old id: the renamed row is not replaced.
        let old = c.instances[5].id.clone();
        c.instances[5].id = "moved".into();
        let mut back = c.instances[5].clone();
        back.id = old.clone();
        let n = c.instances.len();
        c.merge(
            CatalogFile {
                instance: vec![back],
                ..Default::default()
            },
            Origin::Builtin,
            "x",
        );
        assert_eq!(c.instances[5].id, "moved");
        assert_eq!(c.instances.len(), n + 1);
        assert!(c.find_instance(&old).is_ok() && c.find_instance("moved").is_ok());
    }

    #[test]
    fn merge_replaces_in_place_and_appends_in_order() {
        let mut c = Catalog::builtin().unwrap();
        let n = c.instances.len();
        let mut a = c.instances[3].clone();
        a.notes = Some("replaced".into());
        let mut b = c.instances[3].clone();
        b.id = "new.one".into();
        let f = CatalogFile {
            instance: vec![a, b],
            ..Default::default()
        };
        c.merge(f, Origin::User("u".into()), "u");
        assert_eq!(c.instances.len(), n + 1);
        assert_eq!(c.instances[3].notes.as_deref(), Some("replaced"));
        assert_eq!(c.instances[n].id, "new.one");
    }
}
