//! Id indexes over the catalog's row vectors, so merges and lookups are O(1) per row at 100,000
//! rows. The vectors stay the source of truth (and stay `pub`): every hit is checked against the
//! row it points at, and an index built for a different number of rows is not trusted (lookups
//! then fall back to a scan), so code that edits the vectors directly stays correct.

use super::{estimate_base, sane_money, Billing, Catalog, PriceKind, Provider};
use std::collections::HashMap;
use std::sync::OnceLock;

pub(super) type PriceKey = (String, String, Billing);

#[derive(Clone, Debug, Default)]
pub(super) struct Index {
    pub gpu: HashMap<String, usize>,
    pub n_gpu: usize,
    /// Merge key (provider, id) → row.
    pub inst: HashMap<(Provider, String), usize>,
    /// Exact id → first row with it; lowercase id → first row (for `find_instance`).
    pub inst_first: HashMap<String, usize>,
    pub inst_lower: HashMap<String, usize>,
    pub n_inst: usize,
    /// Merge key (instance, region, billing) → row; instance → its rows in order.
    pub price: HashMap<PriceKey, usize>,
    pub prices_of: HashMap<String, Vec<usize>>,
    pub n_price: usize,
    pub storage: HashMap<String, usize>,
    pub n_storage: usize,
    /// The inputs of the per-GPU estimate. Built on first use, dropped by every merge.
    pub per_chip: OnceLock<EstimateInputs>,
}

impl Index {
    pub fn build(c: &Catalog) -> Index {
        let mut ix = Index::default();
        for (n, g) in c.gpus.iter().enumerate() {
            ix.gpu.entry(g.id.clone()).or_insert(n);
        }
        for (n, i) in c.instances.iter().enumerate() {
            ix.add_instance(n, i.provider, &i.id);
        }
        for (n, p) in c.prices.iter().enumerate() {
            ix.add_price(n, (p.instance.clone(), p.region.clone(), p.billing));
        }
        for (n, s) in c.storage.iter().enumerate() {
            ix.storage.entry(s.id.clone()).or_insert(n);
        }
        ix.n_gpu = c.gpus.len();
        ix.n_inst = c.instances.len();
        ix.n_price = c.prices.len();
        ix.n_storage = c.storage.len();
        ix
    }

    pub fn add_instance(&mut self, n: usize, provider: Provider, id: &str) {
        self.inst.entry((provider, id.to_string())).or_insert(n);
        self.inst_first.entry(id.to_string()).or_insert(n);
        self.inst_lower.entry(id.to_ascii_lowercase()).or_insert(n);
    }

    pub fn add_price(&mut self, n: usize, key: PriceKey) {
        self.prices_of.entry(key.0.clone()).or_default().push(n);
        self.price.entry(key).or_insert(n);
    }

    /// Whether the index was built for vectors of these lengths.
    pub fn fresh(&self, c: &Catalog) -> bool {
        self.n_gpu == c.gpus.len()
            && self.n_inst == c.instances.len()
            && self.n_price == c.prices.len()
            && self.n_storage == c.storage.len()
    }
}

/// One price an estimate may be derived from: the cheapest per-GPU rate (then the first row) for
/// one (provider, chip, billing, GPU count, region).
#[derive(Clone, Debug)]
pub(super) struct EstimateInput {
    pub gpu_count: f64,
    pub region: String,
    pub rate: f64,
    pub row: usize,
}

/// (provider, chip, billing) → the few distinct (GPU count, region) candidates, so an estimate
/// costs O(distinct counts × regions) instead of a scan of every price.
#[derive(Clone, Debug, Default)]
pub(super) struct EstimateInputs(HashMap<(Provider, String, Billing), Vec<EstimateInput>>);

impl EstimateInputs {
    pub fn build(c: &Catalog) -> EstimateInputs {
        let mut best: HashMap<(Provider, String, Billing, u64, String), EstimateInput> =
            HashMap::new();
        for (row, p) in c.prices.iter().enumerate() {
            if p.kind == PriceKind::Estimate || !sane_money(p.cny) {
                continue;
            }
            let Some(o) = c.instance(&p.instance).filter(|o| estimate_base(o)) else {
                continue;
            };
            let rate = p.cny / o.gpu_count;
            let key = (
                p.provider,
                o.gpu.clone(),
                p.billing,
                o.gpu_count.to_bits(),
                p.region.clone(),
            );
            let cand = EstimateInput {
                gpu_count: o.gpu_count,
                region: p.region.clone(),
                rate,
                row,
            };
            best.entry(key)
                .and_modify(|b| {
                    if rate < b.rate {
                        *b = cand.clone();
                    }
                })
                .or_insert(cand);
        }
        let mut m: HashMap<(Provider, String, Billing), Vec<EstimateInput>> = HashMap::new();
        for ((prov, chip, billing, _, _), c) in best {
            m.entry((prov, chip, billing)).or_default().push(c);
        }
        EstimateInputs(m)
    }

    pub fn get(&self, key: &(Provider, String, Billing)) -> Option<&Vec<EstimateInput>> {
        self.0.get(key)
    }
}
