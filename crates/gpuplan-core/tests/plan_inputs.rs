//! For random valid inputs the planner never panics, never refuses a valid request, and every plan
//! it produces has finite, non-negative cost and hours (issue 7: "never crash, never lie").

use gpuplan_core::catalog::{Catalog, Provider};
use gpuplan_core::constants::Tunables;
use gpuplan_core::model::{presets, Architecture};
use gpuplan_core::plan::{plan, Constraints, Job, Objective, PlanRequest, ServeJob};
use gpuplan_core::workload::{TrainTask, TrainingSetup};
use proptest::prelude::*;
use std::sync::OnceLock;

fn catalog() -> &'static Catalog {
    static C: OnceLock<Catalog> = OnceLock::new();
    C.get_or_init(|| Catalog::builtin().unwrap_or_else(|e| panic!("{e}")))
}

#[derive(Debug, Clone)]
struct Input {
    preset: usize,
    task: usize,
    seq_len: u64,
    tokens: f64,
    max_nodes: u64,
    objective: Objective,
    provider: Provider,
    rate: f64,
}

fn input() -> impl Strategy<Value = Input> {
    let n = presets().map(|p| p.len()).unwrap_or(1);
    (
        0..n,
        0usize..5,
        prop_oneof![Just(128u64), Just(512), Just(2048), Just(4096), 1u64..8192],
        prop_oneof![Just(1e5), Just(1e8), Just(3e11), 1e4f64..1e13],
        prop_oneof![Just(1u64), Just(16), Just(4096), 1u64..4097],
        prop_oneof![
            Just(Objective::Cost),
            Just(Objective::Time),
            Just(Objective::Balanced)
        ],
        prop_oneof![
            Just(Provider::Alibaba),
            Just(Provider::Huawei),
            Just(Provider::Tencent)
        ],
        0.01f64..100.0,
    )
        .prop_map(
            |(preset, task, seq_len, tokens, max_nodes, objective, provider, rate)| Input {
                preset,
                task,
                seq_len,
                tokens,
                max_nodes,
                objective,
                provider,
                rate,
            },
        )
}

/// The request for an input, kept valid: no LoRA on models without linears, prompts within the
/// model's context.
fn request(i: &Input) -> PlanRequest {
    let p = &presets().unwrap_or_else(|e| panic!("{e}"))[i.preset];
    let opaque = matches!(p.model.architecture, Architecture::Opaque(_));
    let task = [
        TrainTask::Pretrain,
        TrainTask::FullFinetune,
        TrainTask::Lora,
        TrainTask::Qlora,
    ]
    .get(i.task)
    .copied();
    let job = match (task, p.model.transformer()) {
        (None, Some(t)) => {
            let input = (i.seq_len).min(t.max_context.saturating_sub(64)).max(1);
            Job::Serve(ServeJob {
                input_tokens: input,
                output_tokens: 64.min(t.max_context.saturating_sub(input)).max(1),
                rate_rps: Some(i.rate),
                ..ServeJob::default()
            })
        }
        (task, _) => {
            let task = match task {
                Some(t) if !(opaque && t.is_peft()) => t,
                _ => TrainTask::FullFinetune,
            };
            Job::Train {
                setup: TrainingSetup {
                    task,
                    seq_len: i.seq_len,
                    tokens: Some(i.tokens),
                    ..TrainingSetup::default()
                },
                global_batch: None,
                precision_pinned: false,
                pins: Default::default(),
            }
        }
    };
    PlanRequest {
        model: p.model.clone(),
        job,
        constraints: Constraints {
            providers: vec![i.provider],
            max_nodes: i.max_nodes,
            ..Constraints::default()
        },
        objective: i.objective,
        tunables: Tunables::default(),
    }
}

fn sane(x: f64) -> bool {
    x.is_finite() && x >= 0.0
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 100, failure_persistence: None, ..ProptestConfig::default() })]

    #[test]
    fn every_plan_from_valid_input_has_finite_non_negative_cost_and_hours(i in input()) {
        let req = request(&i);
        let out = plan(&req, catalog());
        prop_assert!(out.is_ok(), "{i:?}: {:?}", out.err());
        let out = out.unwrap_or_else(|e| panic!("{e}"));
        for p in &out.plans {
            prop_assert!(sane(p.hours) && sane(p.total_gpus), "{i:?}: {} hours {}", p.instance.id, p.hours);
            for c in p.costs.iter().chain(p.chosen.iter()) {
                prop_assert!(sane(c.cny) && sane(c.hours) && sane(c.price.cny), "{i:?}: {} {:?}", p.instance.id, c);
            }
        }
    }
}
