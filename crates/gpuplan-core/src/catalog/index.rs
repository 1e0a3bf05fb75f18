//! Id indexes over the catalog's row vectors, so merges and lookups are O(1) per row at 100,000
//! rows. The vectors stay the source of truth (and stay `pub`): every hit is checked against the
//! row it points at, and an index built for a different number of rows is not trusted (lookups
//! then fall back to a scan), so code that edits the vectors directly stays correct.

use super::{Billing, Catalog, Provider};
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
    /// (provider, chip) → rows of list/user prices of full-GPU instances with that chip: the
    /// inputs of the per-GPU estimate. Built on first use, dropped by every merge.
    pub per_chip: OnceLock<HashMap<(Provider, String), Vec<usize>>>,
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
