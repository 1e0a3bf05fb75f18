//! Bench binary (no harness): a user catalog of 10,000 and 100,000 generated rows (an instance
//! and a user price each) merged with validation, then lookups and a plan search over it.
//! Run: `cargo bench -p gpuplan-core --bench catalog_scale`. Timing is reported, never asserted.
//! The plan search runs at 10,000 rows; at 100,000 only with `GPUPLAN_BENCH_FULL=1` (it then
//! produces ~500,000 plans, and the plan module's Pareto front, not the catalog, dominates).

use gpuplan_core::catalog::{
    Billing, Catalog, CatalogFile, Confidence, Instance, Origin, Price, PriceKind, Provider,
    RdmaKind,
};
use gpuplan_core::constants::Tunables;
use gpuplan_core::model::find_preset;
use gpuplan_core::plan::{pareto_front, plan, Constraints, Job, Objective, PlanRequest};
use gpuplan_core::workload::{TrainTask, TrainingSetup};
use std::time::Instant;

const CHIPS: &[(&str, f64)] = &[
    ("a10", 24.0),
    ("l20", 48.0),
    ("h20", 96.0),
    ("a100-80g", 80.0),
];

fn generated(n: usize) -> CatalogFile {
    let mut f = CatalogFile::default();
    for k in 0..n {
        let (gpu, mem) = CHIPS[k % CHIPS.len()];
        let count = [1.0, 2.0, 4.0, 8.0][(k / CHIPS.len()) % 4];
        let id = format!("gen.{gpu}-{k}");
        f.instance.push(Instance {
            id: id.clone(),
            provider: Provider::Alibaba,
            family: format!("gen{}", k % 50),
            gpu: gpu.into(),
            gpu_count: count,
            gpu_memory_gib: Some(mem),
            vcpu: Some(8 * count as u32),
            ram_gib: Some(32.0 * count),
            network_gbit: Some(16.0),
            rdma: RdmaKind::None,
            rdma_gbit: None,
            intra_link: None,
            cpu: None,
            local_nvme_gib: None,
            bare_metal: false,
            vgpu: false,
            regions: vec!["cn-shanghai".into()],
            access: None,
            access_note: None,
            stock: None,
            notes: None,
            source: "generated".into(),
            as_of: "2026-12".into(),
            confidence: Confidence::Likely,
            origin: Origin::Builtin,
        });
        f.price.push(Price {
            instance: id,
            provider: Provider::Alibaba,
            region: "cn-shanghai".into(),
            billing: Billing::OnDemand,
            cny: 6.0 * count + (k % 97) as f64 * 0.01,
            kind: PriceKind::User,
            as_of: "2026-12".into(),
            source: "generated".into(),
            confidence: None,
            method: None,
            method_zh: None,
            origin: Origin::Builtin,
        });
    }
    f
}

fn ms(t: Instant) -> f64 {
    t.elapsed().as_secs_f64() * 1e3
}

fn main() {
    let req = PlanRequest {
        model: find_preset("Qwen2.5-7B").expect("preset").model.clone(),
        job: Job::Train {
            setup: TrainingSetup {
                task: TrainTask::Lora,
                seq_len: 2048,
                tokens: Some(1e8),
                ..Default::default()
            },
            global_batch: None,
            precision_pinned: false,
            pins: Default::default(),
        },
        constraints: Constraints::default(),
        objective: Objective::Cost,
        tunables: Tunables::default(),
    };
    println!(
        "{:>8} {:>12} {:>14} {:>22} {:>10} {:>8}",
        "rows", "merge ms", "lookups ms", "plan ms", "cands", "plans"
    );
    for n in [10_000, 100_000] {
        let f = generated(n);
        let mut cat = Catalog::builtin().expect("built-in catalog");
        let t = Instant::now();
        let findings = cat.merge_validated(f, Origin::User("gen.toml".into()), "gen.toml");
        let merge = ms(t);
        assert!(
            findings.is_empty(),
            "{:?}",
            &findings[..findings.len().min(3)]
        );
        // What planning asks of the catalog per candidate: its GPU and a price per billing.
        let t = Instant::now();
        let mut priced = 0usize;
        for i in &cat.instances {
            assert!(cat.gpu(&i.gpu).is_some() || !i.gpu_is_mapped());
            for b in [Billing::Spot, Billing::OnDemand, Billing::Monthly] {
                priced += usize::from(cat.best_price(i, b, None).is_some());
            }
            priced += usize::from(cat.find_instance(&i.id).is_ok());
        }
        let lookups = ms(t);
        let full = std::env::var_os("GPUPLAN_BENCH_FULL").is_some();
        let (plan_ms, cands, plans) = if n <= 10_000 || full {
            let t = Instant::now();
            let out = plan(&req, &cat).expect("plan");
            let total = ms(t);
            // The share of plan::pareto_front (quadratic in the number of plans).
            let t = Instant::now();
            let _ = pareto_front(&out.plans);
            let pf = ms(t);
            (
                format!("{total:.1} (pareto {pf:.0})"),
                out.stats.candidates,
                out.plans.len(),
            )
        } else {
            ("(skipped)".into(), 0, 0)
        };
        println!(
            "{:>8} {:>12.1} {:>14.1} {:>22} {:>10} {:>8}   ({priced} lookups answered)",
            n, merge, lookups, plan_ms, cands, plans
        );
    }
}
