//! The shared search (memory passes shared across clusters, time passes across identical
//! clusters, all cores) gives exactly the plans of the exhaustive reference search (every
//! instance type × node count searched from scratch on one thread): the whole plan outcome —
//! every plan's instance, nodes, parallelism, memory, time, cost, advice, the Pareto front, the
//! rejections and the configuration count — compared as JSON (issue 10).

use gpuplan_core::catalog::{Catalog, Provider};
use gpuplan_core::compute::memo::ComputeMemo;
use gpuplan_core::constants::Tunables;
use gpuplan_core::hardware::{ClusterSpec, GpuSpec, InterLink};
use gpuplan_core::model::find_preset;
use gpuplan_core::plan::train::{memory_facts, step_bound};
use gpuplan_core::plan::{
    plan, plan_shown, plan_with, ChipFamily, Constraints, Job, Objective, PlanRequest, SearchMode,
    ServeJob, SoftwareFramework,
};
use gpuplan_core::train::{
    comm_buffer_bytes, same_comm_buffers, training_memory, training_memory_lean,
    training_memory_need, training_step, training_step_lean, training_step_lean_below,
    training_step_lean_slot,
};
use gpuplan_core::units::Bandwidth;
use gpuplan_core::workload::{
    AttentionImpl, Framework, Precision, Recompute, TrainTask, TrainingSetup,
};
use proptest::prelude::*;

/// The built-in catalog, parsed once for all cases.
fn builtin() -> &'static Catalog {
    static CAT: std::sync::OnceLock<Catalog> = std::sync::OnceLock::new();
    CAT.get_or_init(|| Catalog::builtin().expect("catalog"))
}

fn request(model: &str, setup: TrainingSetup, gb: Option<u64>, c: Constraints) -> PlanRequest {
    PlanRequest {
        model: find_preset(model).expect("preset").model.clone(),
        job: Job::Train {
            setup,
            global_batch: gb,
            precision_pinned: false,
            pins: Default::default(),
        },
        constraints: c,
        objective: Objective::Cost,
        tunables: Tunables::default(),
    }
}

fn setup(task: TrainTask, seq_len: u64, tokens: f64) -> TrainingSetup {
    TrainingSetup {
        task,
        seq_len,
        tokens: Some(tokens),
        ..Default::default()
    }
}

/// Both searches on one request: identical outcomes (or identical errors); returns the number of
/// plans and the memory evaluations of (shared, exhaustive).
fn same_answers(req: &PlanRequest, cat: &Catalog) -> (usize, u64, u64) {
    let fast = plan_with(req, cat, SearchMode::Shared);
    let slow = plan_with(req, cat, SearchMode::Exhaustive);
    match (fast, slow) {
        (Ok(f), Ok(s)) => {
            let (jf, js) = (
                serde_json::to_value(&f).expect("json"),
                serde_json::to_value(&s).expect("json"),
            );
            if jf != js {
                for (a, b) in f.plans.iter().zip(&s.plans) {
                    assert_eq!(
                        serde_json::to_value(a).expect("json"),
                        serde_json::to_value(b).expect("json"),
                        "first differing plan"
                    );
                }
                panic!("outcomes differ outside the plans");
            }
            assert!(f.stats.work.memory <= s.stats.work.memory);
            assert!(f.stats.work.step <= s.stats.work.step);
            (f.plans.len(), f.stats.work.memory, s.stats.work.memory)
        }
        (Err(a), Err(b)) => {
            assert_eq!(a.to_string(), b.to_string());
            (0, 0, 0)
        }
        (a, b) => panic!(
            "one search failed: shared {:?}, exhaustive {:?}",
            a.err(),
            b.err()
        ),
    }
}

#[test]
fn bench_and_cli_scenarios_give_the_same_plans() {
    let cat = builtin();
    for req in &scenarios() {
        let (plans, shared, exhaustive) = same_answers(req, cat);
        assert!(
            plans > 0 && shared < exhaustive,
            "{}: {plans} plans, memory evaluations {shared} shared vs {exhaustive}",
            req.model.name
        );
    }
}

/// `plan_shown(n)` is `plan` with the per-plan advice of the plans after the n-th left out: the
/// first n plans (at least one) are identical as JSON, advice included; the others are identical
/// but for their empty advice; the Pareto front, rejections and statistics are the same.
#[test]
fn shown_plans_carry_the_advice_of_the_full_outcome() {
    let cat = builtin();
    let mut reqs = scenarios();
    reqs.push(PlanRequest {
        model: find_preset("Llama-3.1-70B").expect("preset").model.clone(),
        job: Job::Serve(ServeJob {
            rate_rps: Some(10.0),
            tpot_s: Some(0.06),
            ..Default::default()
        }),
        constraints: Constraints::default(),
        objective: Objective::Cost,
        tunables: Tunables::default(),
    });
    // Plans after the fifth that carry advice in the full outcome (so some is left out below).
    let mut left_out = 0;
    for req in &reqs {
        let full = plan(req, cat).expect("plan");
        assert_eq!(full.advised, full.plans.len());
        left_out += full
            .plans
            .iter()
            .skip(5)
            .filter(|p| !p.advice.is_empty())
            .count();
        for shown in [0, 1, 5, full.plans.len() + 1] {
            let part = plan_shown(req, cat, shown).expect("plan");
            let advised = shown.max(1).min(full.plans.len());
            assert_eq!(part.advised, advised);
            assert_eq!(part.plans.len(), full.plans.len());
            for (i, (a, b)) in part.plans.iter().zip(&full.plans).enumerate() {
                let mut want = serde_json::to_value(b).expect("json");
                if i >= advised {
                    assert!(a.advice.is_empty(), "plan {i} of {shown} shown has advice");
                    want["advice"] = serde_json::json!([]);
                }
                assert_eq!(serde_json::to_value(a).expect("json"), want, "plan {i}");
            }
            let rest = |o: &gpuplan_core::plan::PlanOutcome| {
                let mut v = serde_json::to_value(o).expect("json");
                v["plans"] = serde_json::Value::Null;
                v
            };
            assert_eq!(rest(&part), rest(&full));
        }
    }
    assert!(left_out > 100, "{left_out} advised plans after the fifth");
}

/// The bench's and the CLI's training scenarios (tests above).
fn scenarios() -> Vec<PlanRequest> {
    let nodes = |n| Constraints {
        max_nodes: n,
        ..Default::default()
    };
    [
        request(
            "Qwen2.5-7B",
            setup(TrainTask::Lora, 2048, 1e8),
            None,
            Constraints::default(),
        ),
        request(
            "Llama-3.1-8B",
            setup(TrainTask::FullFinetune, 4096, 1e9),
            None,
            Constraints::default(),
        ),
        // The CLI's `plan -m Llama-2-13B --task pretrain --tokens 3e11 --seq-len 4096
        // --deadline 30d` (at most 16 nodes, to keep the debug-build reference short).
        request(
            "Llama-2-13B",
            setup(TrainTask::Pretrain, 4096, 3e11),
            None,
            Constraints {
                deadline_hours: Some(720.0),
                ..nodes(16)
            },
        ),
        request(
            "Mixtral-8x7B",
            setup(TrainTask::Pretrain, 4096, 1e11),
            None,
            nodes(8),
        ),
        request(
            "ResNet-50",
            TrainingSetup {
                task: TrainTask::Pretrain,
                samples: Some(1.28e6),
                epochs: Some(2.0),
                ..Default::default()
            },
            None,
            Constraints::default(),
        ),
        // Ascend with MindSpore, a budget, spot allowed.
        request(
            "Qwen2.5-7B",
            setup(TrainTask::FullFinetune, 2048, 5e8),
            Some(128),
            Constraints {
                chips: vec![ChipFamily::Ascend, ChipFamily::Nvidia],
                framework: SoftwareFramework::Mindspore,
                budget_cny: Some(5000.0),
                interruptible: true,
                ..Default::default()
            },
        ),
        // Eager attention (selective recompute in the space), Megatron profile, fp16.
        request(
            "Llama-2-7B",
            TrainingSetup {
                attention: AttentionImpl::Eager,
                framework: Framework::Megatron,
                precision: Precision::AmpFp16,
                ..setup(TrainTask::FullFinetune, 2048, 1e9)
            },
            Some(256),
            Constraints {
                providers: vec![Provider::Tencent],
                ..nodes(8)
            },
        ),
    ]
    .into()
}

fn model() -> impl Strategy<Value = &'static str> {
    prop_oneof![
        Just("Qwen2.5-0.5B"),
        Just("Qwen2.5-7B"),
        Just("Llama-2-13B"),
        Just("Qwen3-30B-A3B"),
        Just("BERT-base-uncased"),
        Just("ViT-L/16"),
        Just("SDXL-UNet"),
    ]
}

fn task() -> impl Strategy<Value = TrainTask> {
    prop_oneof![
        Just(TrainTask::Pretrain),
        Just(TrainTask::FullFinetune),
        Just(TrainTask::Lora),
        Just(TrainTask::Qlora),
    ]
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(12))]

    /// Random requests on one provider's part of the catalog: the same plans either way.
    #[test]
    fn random_requests_give_the_same_plans(
        model in model(),
        task in task(),
        seq in prop::sample::select(vec![512u64, 2048, 8192]),
        gb in prop::option::of(prop::sample::select(vec![1u64, 16, 96, 1024])),
        max_nodes in prop::sample::select(vec![1u64, 2, 8]),
        provider in prop::sample::select(vec![Provider::Alibaba, Provider::Huawei, Provider::Tencent]),
        megatron in any::<bool>(),
        eager in any::<bool>(),
        objective in prop::sample::select(vec![Objective::Cost, Objective::Time, Objective::Balanced]),
        deadline in prop::option::of(1.0f64..2000.0),
    ) {
        let cat = builtin();
        let mut req = request(
            model,
            TrainingSetup {
                framework: if megatron { Framework::Megatron } else { Framework::HuggingFace },
                attention: if eager { AttentionImpl::Eager } else { AttentionImpl::Flash },
                ..setup(task, seq, 1e9)
            },
            gb,
            Constraints {
                providers: vec![provider],
                max_nodes,
                deadline_hours: deadline,
                ..Default::default()
            },
        );
        req.objective = objective;
        same_answers(&req, cat);
    }
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(300))]

    /// What the shared ladders rely on to size the communication buffers once per run of rungs
    /// (`plan::train::with_comm`, `ladder`): `comm_buffer_bytes` reads of a setup only what
    /// `same_comm_buffers` compares (parallelism, NCCL release). Two setups equal there and
    /// different in everything else a ladder's rungs or the search's classes vary (micro-batch,
    /// accumulation, recompute, task, precision, framework, sequence, LoRA) give the same bytes,
    /// bit for bit, on clusters of every stack, chip and shape; a different parallelism or
    /// release is compared again (not assumed equal).
    #[test]
    fn comm_buffers_read_only_parallelism_and_release(
        tp in prop::sample::select(vec![1u64, 2, 4, 8]),
        pp in prop::sample::select(vec![1u64, 2, 4]),
        ep in prop::sample::select(vec![1u64, 2, 8]),
        cp in prop::sample::select(vec![1u64, 2]),
        zero in 0u8..=3,
        release in prop::sample::select(vec![None, Some("2.19.3"), Some("2.22.3")]),
        a in (task(), prop::sample::select(vec![1u64, 2, 16]), 1u64..40, any::<bool>()),
        b in (task(), prop::sample::select(vec![1u64, 4, 8]), 1u64..40, any::<bool>()),
        chip in 0usize..1000,
        per in prop::sample::select(vec![1u64, 2, 4, 8]),
        nodes in prop::sample::select(vec![1u64, 2, 8]),
    ) {
        let cat = builtin();
        let g = &cat.gpus[chip % cat.gpus.len()];
        let Ok(c) = ClusterSpec::new(g, per, nodes, InterLink::Rdma, Bandwidth::from_gbit_per_s(400.0))
        else {
            return Ok(());
        };
        let side = |(task, mb, accum, megatron): (TrainTask, u64, u64, bool)| {
            let mut s = setup(task, if megatron { 4096 } else { 2048 }, 1e9);
            s.parallel.tp = tp;
            s.parallel.pp = pp;
            s.parallel.ep = ep;
            s.parallel.cp = cp;
            s.parallel.zero = zero;
            s.nccl_version = release.map(str::to_string);
            s.micro_batch = mb;
            s.grad_accum = accum;
            s.recompute = if megatron { Recompute::Full } else { Recompute::None };
            s.precision = if megatron { Precision::AmpBf16 } else { Precision::PureBf16 };
            s.framework = if megatron { Framework::Megatron } else { Framework::HuggingFace };
            if megatron {
                s.lora.rank = 64;
            }
            s
        };
        let (sa, mut sb) = (side(a), side(b));
        let tun = Tunables::default();
        prop_assert!(same_comm_buffers(&sa, &sb));
        let bytes = |s: &TrainingSetup| comm_buffer_bytes(s, &c, &tun).to_bits();
        prop_assert_eq!(bytes(&sa), bytes(&sb));
        // Not the same where the parallelism or the release differs.
        sb.parallel.tp = tp * 2;
        prop_assert!(!same_comm_buffers(&sa, &sb));
        let mut sc = sa.clone();
        sc.nccl_version = Some("2.18.1".into());
        prop_assert_eq!(same_comm_buffers(&sa, &sc), sa.nccl_version == sc.nccl_version);
    }
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(300))]

    /// What the shared search relies on: a configuration's memory depends on the cluster only
    /// through the number of GPUs, the software stack (`plan::train::memory_facts`) and the
    /// communication buffers (`train::comm_buffer_bytes`: NCCL's, sized by the GPUs per node and
    /// the chip's links), which the search adds per cluster to a shared ladder — not the chip
    /// model, its memory size or the network. (Shared with the buffers inside, 8 × 1 and 1 × 8
    /// GPUs took one ladder with 48 vs 576 MiB of NCCL buffers: audit r8 #1.)
    #[test]
    fn memory_depends_on_setup_stack_and_gpu_count_only(
        model in model(),
        task in task(),
        tp in prop::sample::select(vec![1u64, 2, 4, 8]),
        pp in prop::sample::select(vec![1u64, 2, 4]),
        ep in prop::sample::select(vec![1u64, 2, 8]),
        zero in 0u8..=3,
        recompute in prop::sample::select(vec![Recompute::None, Recompute::Selective, Recompute::Full]),
        mb in prop::sample::select(vec![1u64, 2, 16]),
        total in prop::sample::select(vec![8u64, 16, 64]),
        chips in (0usize..64, 0usize..64),
        per_node in (0usize..4, 0usize..4),
        links in prop::sample::select(vec![
            (InterLink::Rdma, 400.0, InterLink::Tcp, 10.0),
            (InterLink::Erdma, 160.0, InterLink::Rdma, 3200.0),
        ]),
    ) {
        let cat = builtin();
        let cuda: Vec<&GpuSpec> = cat.gpus.iter().filter(|g| g.stack == "cuda").collect();
        let m = &find_preset(model).expect("preset").model;
        let mut s = setup(task, 2048, 1e9);
        s.parallel.tp = tp;
        s.parallel.pp = pp;
        s.parallel.ep = ep;
        s.parallel.zero = zero;
        s.recompute = recompute;
        s.micro_batch = mb;
        let shapes: Vec<u64> = [1u64, 2, 4, 8].into_iter().filter(|n| *n >= tp).collect();
        let cluster = |chip: usize, shape: usize, link: InterLink, gbit: f64| {
            let per = shapes[shape % shapes.len()];
            let g = cuda[chip % cuda.len()];
            ClusterSpec::new(g, per, total / per, link, Bandwidth::from_gbit_per_s(gbit))
                .expect("cluster")
        };
        let a = cluster(chips.0, per_node.0, links.0, links.1);
        let mut b = cluster(chips.1, per_node.1, links.2, links.3);
        b.intra_bandwidth = Bandwidth::from_gb_per_s(32.0);
        if memory_facts(&a) != memory_facts(&b) {
            // Another chip of the same stack with a's NCCL facts and shape: only the chip's
            // name, memory and compute, and the network, differ.
            let mut g = GpuSpec::clone(&b.gpu);
            g.intra_link = a.gpu.intra_link;
            g.intra_link_gbs = a.gpu.intra_link_gbs;
            g.nvswitch_sharp = a.gpu.nvswitch_sharp;
            g.consumer = a.gpu.consumer;
            let per = a.gpus_per_node;
            b = ClusterSpec::new(&g, per, total / per, links.2, Bandwidth::from_gbit_per_s(links.3))
                .expect("cluster");
        }
        prop_assert_eq!(memory_facts(&a), memory_facts(&b));
        let tun = Tunables::default();
        let (ma, mb_) = (training_memory(m, &s, &a, &tun), training_memory(m, &s, &b, &tun));
        prop_assert_eq!(ma.is_ok(), mb_.is_ok());
        if let (Ok(x), Ok(y)) = (ma, mb_) {
            // The search adds each cluster's communication buffers to a shared need.
            let net = |m: &gpuplan_core::train::TrainingMemory, c: &ClusterSpec| {
                m.device_total.0 - comm_buffer_bytes(&s, c, &tun)
            };
            prop_assert_eq!(x.peak_allocated, y.peak_allocated);
            prop_assert!((net(&x, &a) - net(&y, &b)).abs() <= 1e-6 * net(&x, &a).abs());
        }
    }
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(300))]

    /// What the time pass's bound relies on (`plan::train::step_bound`): on clusters with the same
    /// chip and GPU count but any links and node shape (GPUs per node × nodes), compute and
    /// pipeline bubble are the same bit for bit and the communication only adds, so tokens per
    /// step ÷ (compute + bubble) of one bounds the tokens/s of every other — with and without
    /// TP/DP overlap. In the same shape both run or neither does; in another shape a TP wider
    /// than its nodes fails there.
    #[test]
    fn step_floor_ignores_links(
        model in model(),
        task in task(),
        tp in prop::sample::select(vec![1u64, 2, 4, 8]),
        pp in prop::sample::select(vec![1u64, 2, 4]),
        ep in prop::sample::select(vec![1u64, 2, 8]),
        zero in 0u8..=3,
        recompute in prop::sample::select(vec![Recompute::None, Recompute::Selective, Recompute::Full]),
        mb in prop::sample::select(vec![1u64, 2, 16]),
        accum in prop::sample::select(vec![1u64, 4, 32]),
        nodes in prop::sample::select(vec![1u64, 2, 8, 64]),
        chip in 0usize..64,
        per_node in prop::sample::select(vec![1u64, 2, 4, 8]),
        other_per_node in prop::sample::select(vec![1u64, 2, 4, 8]),
        overlap in (any::<Option<bool>>(), any::<Option<bool>>(), any::<Option<bool>>()),
        megatron in any::<bool>(),
        links in prop::sample::select(vec![
            (InterLink::Rdma, 3200.0, 900.0, InterLink::Tcp, 10.0, 32.0),
            (InterLink::Erdma, 160.0, 32.0, InterLink::Rdma, 400.0, 600.0),
            (InterLink::Tcp, 25.0, 400.0, InterLink::Tcp, 100.0, 16.0),
        ]),
    ) {
        let cat = builtin();
        let g = &cat.gpus[chip % cat.gpus.len()];
        let m = &find_preset(model).expect("preset").model;
        let mut s = setup(task, 2048, 1e9);
        s.framework = if megatron { Framework::Megatron } else { Framework::HuggingFace };
        s.parallel.tp = tp.min(per_node);
        s.parallel.pp = pp;
        s.parallel.ep = ep;
        s.parallel.zero = zero;
        s.parallel.tp_comm_overlap = overlap.0;
        s.parallel.overlap_grad_reduce = overlap.1;
        s.parallel.overlap_param_gather = overlap.2;
        s.recompute = recompute;
        s.micro_batch = mb;
        s.grad_accum = accum;
        // The other cluster in another shape of the same GPU count where one divides it.
        let total = per_node * nodes;
        let per_b = if total % other_per_node == 0 { other_per_node } else { per_node };
        let cluster = |per: u64, link: InterLink, gbit: f64, intra: f64| {
            let bw = Bandwidth::from_gbit_per_s(gbit);
            let mut c = ClusterSpec::new(g, per, total / per, link, bw).expect("cluster");
            c.intra_bandwidth = Bandwidth::from_gb_per_s(intra);
            c
        };
        let a = cluster(per_node, links.0, links.1, links.2);
        let b = cluster(per_b, links.3, links.4, links.5);
        let tun = Tunables::default();
        let (sa, sb) = (training_step(m, &s, &a, &tun), training_step(m, &s, &b, &tun));
        if per_b == per_node {
            prop_assert_eq!(sa.is_ok(), sb.is_ok());
        }
        if let (Ok(x), Ok(y)) = (sa, sb) {
            prop_assert_eq!(x.compute.0.to_bits(), y.compute.0.to_bits());
            prop_assert_eq!(x.pipeline_bubble.0.to_bits(), y.pipeline_bubble.0.to_bits());
            for (p, q) in [(&x, &y), (&y, &x)] {
                let bound = step_bound(p);
                prop_assert!(bound.is_some(), "a step with compute has a bound");
                prop_assert!(bound.is_some_and(|ub| q.tokens_per_second <= ub),
                    "{} tokens/s above the bound {:?}", q.tokens_per_second, bound);
            }
        }
    }
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(300))]

    /// What the search's ladders rely on: the lean memory estimate (no words) has the same bytes
    /// as the full one, bit for bit — totals, peak, timeline, every item with bytes — and fails
    /// exactly when the full one fails.
    #[test]
    fn lean_memory_has_the_same_bytes(
        model in model(),
        task in task(),
        tp in prop::sample::select(vec![1u64, 2, 4, 8]),
        pp in prop::sample::select(vec![1u64, 2, 4]),
        ep in prop::sample::select(vec![1u64, 2, 8]),
        zero in 0u8..=3,
        recompute in prop::sample::select(vec![Recompute::None, Recompute::Selective, Recompute::Full]),
        mb in prop::sample::select(vec![1u64, 2, 16]),
        total in prop::sample::select(vec![1u64, 8, 64]),
        chip in 0usize..64,
        flags in (any::<bool>(), any::<bool>(), any::<bool>(), any::<bool>(), any::<bool>()),
    ) {
        let cat = builtin();
        let g = &cat.gpus[chip % cat.gpus.len()];
        let m = &find_preset(model).expect("preset").model;
        let mut s = setup(task, 2048, 1e9);
        s.framework = if flags.0 { Framework::Megatron } else { Framework::HuggingFace };
        s.parallel.tp = tp;
        s.parallel.pp = pp;
        s.parallel.ep = ep;
        s.parallel.zero = zero;
        s.parallel.offload_optimizer = flags.1;
        s.autocast = flags.2;
        s.chunked_loss = flags.3;
        s.activation_offload = flags.4;
        s.recompute = recompute;
        s.micro_batch = mb;
        let per_node = total.min(8);
        let c = ClusterSpec::new(g, per_node, total / per_node, InterLink::Rdma,
            Bandwidth::from_gbit_per_s(400.0)).expect("cluster");
        let tun = Tunables::default();
        match (training_memory(m, &s, &c, &tun), training_memory_lean(m, &s, &c, &tun)) {
            (Ok(full), Ok(lean)) => {
                prop_assert_eq!(full.device_total.0.to_bits(), lean.device_total.0.to_bits());
                prop_assert_eq!(full.peak_allocated.0.to_bits(), lean.peak_allocated.0.to_bits());
                prop_assert_eq!(full.phase_at_peak, lean.phase_at_peak);
                prop_assert_eq!(&full.timeline, &lean.timeline);
                prop_assert_eq!(full.cpu_offload.0.to_bits(), lean.cpu_offload.0.to_bits());
                let bytes = |m: &gpuplan_core::train::TrainingMemory| -> Vec<(&'static str, u64)> {
                    m.items.iter().filter(|i| i.bytes.0 != 0.0).map(|i| (i.name, i.bytes.0.to_bits())).collect()
                };
                prop_assert_eq!(bytes(&full), bytes(&lean));
                prop_assert!(lean.items.iter().all(|i| i.basis.is_empty()));
            }
            (Err(a), Err(b)) => prop_assert_eq!(a.to_string(), b.to_string()),
            (a, b) => prop_assert!(false, "full {:?} vs lean {:?}", a.is_ok(), b.is_ok()),
        }
        // The ladders' need: the same total once the cluster's buffers are added, bit for bit.
        match (training_memory_lean(m, &s, &c, &tun), training_memory_need(m, &s, &c, &tun)) {
            (Ok(lean), Ok(need)) => {
                let with_comm = need.0 + comm_buffer_bytes(&s, &c, &tun);
                prop_assert_eq!(lean.device_total.0.to_bits(), with_comm.to_bits());
            }
            (Err(a), Err(b)) => prop_assert_eq!(a.to_string(), b.to_string()),
            (a, b) => prop_assert!(false, "lean {:?} vs need {:?}", a.is_ok(), b.is_ok()),
        }
    }
}

/// A JSON value with every string emptied: what is left are the numbers and the structure.
fn numbers_only(v: serde_json::Value) -> serde_json::Value {
    use serde_json::Value;
    match v {
        Value::String(_) => Value::String(String::new()),
        Value::Array(a) => Value::Array(a.into_iter().map(numbers_only).collect()),
        Value::Object(o) => {
            Value::Object(o.into_iter().map(|(k, v)| (k, numbers_only(v))).collect())
        }
        other => other,
    }
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(300))]

    /// What the time pass relies on: the lean step time (no words) has every number of the full
    /// one — step, compute, bubble, each collective's bytes, bandwidth, time and overlap — and
    /// fails exactly when the full one fails.
    #[test]
    fn lean_step_has_the_same_numbers(
        model in model(),
        task in task(),
        tp in prop::sample::select(vec![1u64, 2, 4, 8]),
        pp in prop::sample::select(vec![1u64, 2, 4]),
        ep in prop::sample::select(vec![1u64, 2, 8]),
        cp in prop::sample::select(vec![1u64, 2]),
        zero in 0u8..=3,
        recompute in prop::sample::select(vec![Recompute::None, Recompute::Selective, Recompute::Full]),
        mb in prop::sample::select(vec![1u64, 2, 16]),
        nodes in prop::sample::select(vec![1u64, 2, 16]),
        chip in 0usize..64,
        megatron in any::<bool>(),
        link in prop::sample::select(vec![(InterLink::Rdma, 400.0), (InterLink::Tcp, 25.0)]),
    ) {
        let cat = builtin();
        let g = &cat.gpus[chip % cat.gpus.len()];
        let m = &find_preset(model).expect("preset").model;
        let mut s = setup(task, 4096, 1e9);
        s.framework = if megatron { Framework::Megatron } else { Framework::HuggingFace };
        s.parallel.tp = tp;
        s.parallel.pp = pp;
        s.parallel.ep = ep;
        s.parallel.cp = cp;
        s.parallel.zero = zero;
        s.recompute = recompute;
        s.micro_batch = mb;
        s.grad_accum = 4;
        let c = ClusterSpec::new(g, 8, nodes, link.0, Bandwidth::from_gbit_per_s(link.1))
            .expect("cluster");
        let tun = Tunables::default();
        match (training_step(m, &s, &c, &tun), training_step_lean(m, &s, &c, &tun)) {
            (Ok(full), Ok(lean)) => {
                prop_assert_eq!(full.tokens_per_second.to_bits(), lean.tokens_per_second.to_bits());
                prop_assert_eq!(full.step.0.to_bits(), lean.step.0.to_bits());
                prop_assert_eq!(
                    numbers_only(serde_json::to_value(&full).expect("json")),
                    numbers_only(serde_json::to_value(&lean).expect("json"))
                );
            }
            (Err(a), Err(b)) => prop_assert_eq!(a.to_string(), b.to_string()),
            (a, b) => prop_assert!(false, "full {:?} vs lean {:?}", a.is_ok(), b.is_ok()),
        }
    }
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(300))]

    /// The time pass's cut (`train::training_step_lean_below`, used by `plan::train::time_rung`
    /// once a best exists): against the lean step of the same configuration, it returns that
    /// step bit for bit where the step has no bound (`step_bound`) or its tokens/s is above the
    /// cutoff, and otherwise stops with exactly that bound, which the step's tokens/s does not
    /// exceed (so the rung could not have beaten the cutoff), whether the bound itself is above
    /// the cutoff (the step timed, not built) or not. Dense, MoE, encoder, ViT and UNet models, full and
    /// LoRA/QLoRA, TP/PP/EP/CP/ZeRO, recompute, any chip and link; cutoffs below, at and above
    /// the step's rate and its bound; with the model's own memo and with another model's
    /// (bypassed).
    #[test]
    fn cut_steps_are_the_steps_or_their_bound(
        model in model(),
        task in task(),
        tp in prop::sample::select(vec![1u64, 2, 4, 8]),
        pp in prop::sample::select(vec![1u64, 2, 4]),
        ep in prop::sample::select(vec![1u64, 2, 8]),
        cp in prop::sample::select(vec![1u64, 2]),
        zero in 0u8..=3,
        recompute in prop::sample::select(vec![Recompute::None, Recompute::Selective, Recompute::Full]),
        mb in prop::sample::select(vec![1u64, 2, 16]),
        nodes in prop::sample::select(vec![1u64, 2, 16]),
        chip in 0usize..64,
        megatron in any::<bool>(),
        link in prop::sample::select(vec![(InterLink::Rdma, 400.0), (InterLink::Tcp, 25.0)]),
        cut in 0usize..6,
        own_memo in any::<bool>(),
    ) {
        let cat = builtin();
        let g = &cat.gpus[chip % cat.gpus.len()];
        let m = &find_preset(model).expect("preset").model;
        let other = &find_preset("Qwen2.5-0.5B").expect("preset").model;
        let mut s = setup(task, 4096, 1e9);
        s.framework = if megatron { Framework::Megatron } else { Framework::HuggingFace };
        (s.parallel.tp, s.parallel.pp, s.parallel.ep, s.parallel.cp) = (tp, pp, ep, cp);
        s.parallel.zero = zero;
        s.recompute = recompute;
        s.micro_batch = mb;
        s.grad_accum = 4;
        let c = ClusterSpec::new(g, 8, nodes, link.0, Bandwidth::from_gbit_per_s(link.1))
            .expect("cluster");
        let tun = Tunables::default();
        let t = m.transformer().filter(|_| own_memo).or(other.transformer()).expect("transformer");
        let memo = ComputeMemo::new(t);
        let Ok(step) = training_step_lean(m, &s, &c, &tun) else {
            let below = training_step_lean_below(m, &s, &c, &tun, (&memo, 0.0));
            prop_assert!(below.is_err(), "the cut fails where the step fails");
            return Ok(());
        };
        let tps = step.tokens_per_second;
        let bound = step_bound(&step);
        let cutoff = match (cut, bound) {
            (0, _) => tps * 0.5,
            (1, _) => tps,
            (2, Some(b)) => b,
            (3, Some(b)) => b * (1.0 - 1e-12),
            (4, Some(b)) => b * 2.0,
            _ => tps * 1.0001,
        };
        match training_step_lean_below(m, &s, &c, &tun, (&memo, cutoff)) {
            Ok(Ok(got)) => {
                prop_assert!(bound.is_none() || tps > cutoff, "{bound:?}, {tps} not above {cutoff}");
                prop_assert_eq!(got.step.0.to_bits(), step.step.0.to_bits());
                prop_assert_eq!(got.tokens_per_second.to_bits(), tps.to_bits());
                prop_assert_eq!(
                    serde_json::to_value(&got).expect("json"),
                    serde_json::to_value(&step).expect("json")
                );
            }
            Ok(Err(b)) => {
                prop_assert_eq!(Some(b.to_bits()), bound.map(f64::to_bits));
                let beats = tps.partial_cmp(&cutoff) == Some(std::cmp::Ordering::Greater);
                prop_assert!(!beats && tps <= b, "{tps} vs bound {b}, cutoff {cutoff}");
            }
            Err(e) => prop_assert!(false, "the step was estimated, the cut failed: {e}"),
        }
    }
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(200))]

    /// The time passes' prologue slots (`train::training_step_lean_slot`, one per rung and memory
    /// pass in `plan::train::time_passes`): a step that fills its slot on one cluster, then a
    /// step reading it on another cluster of the same chip (another copy of it) and GPU count
    /// with other links and any node shape, give the lean steps of those clusters bit for bit
    /// (every number as JSON), with and without a cutoff, or fail there as the lean step does
    /// (a TP wider than the other shape's nodes); a step that fails leaves the slot empty and
    /// fails as the lean step does. Dense, MoE, encoder, ViT and UNet models, full and LoRA/QLoRA, TP/PP/EP/CP/ZeRO,
    /// recompute, any chip.
    #[test]
    fn prologue_slots_give_the_same_steps(
        model in model(),
        task in task(),
        tp in prop::sample::select(vec![1u64, 2, 4, 8]),
        pp in prop::sample::select(vec![1u64, 2, 4]),
        ep in prop::sample::select(vec![1u64, 2, 8]),
        cp in prop::sample::select(vec![1u64, 2]),
        zero in 0u8..=3,
        recompute in prop::sample::select(vec![Recompute::None, Recompute::Selective, Recompute::Full]),
        mb in prop::sample::select(vec![1u64, 2, 16]),
        nodes in prop::sample::select(vec![1u64, 2, 16]),
        other_per_node in prop::sample::select(vec![1u64, 2, 4, 8]),
        chip in 0usize..64,
        megatron in any::<bool>(),
    ) {
        let cat = builtin();
        let g = &cat.gpus[chip % cat.gpus.len()];
        let m = &find_preset(model).expect("preset").model;
        let mut s = setup(task, 4096, 1e9);
        s.framework = if megatron { Framework::Megatron } else { Framework::HuggingFace };
        (s.parallel.tp, s.parallel.pp, s.parallel.ep, s.parallel.cp) = (tp, pp, ep, cp);
        s.parallel.zero = zero;
        s.recompute = recompute;
        s.micro_batch = mb;
        s.grad_accum = 4;
        // 8 GPUs per node first, then the same GPU count in nodes of `other_per_node`.
        let cluster = |per: u64, link, gbit| {
            let bw = Bandwidth::from_gbit_per_s(gbit);
            ClusterSpec::new(g, per, nodes * 8 / per, link, bw).expect("cluster")
        };
        let first = cluster(8, InterLink::Rdma, 400.0);
        let second = cluster(other_per_node, InterLink::Tcp, 25.0);
        let tun = Tunables::default();
        let memo = m.transformer().map(ComputeMemo::new);
        let Some(memo) = memo.as_ref() else {
            return Ok(());
        };
        let json = |st: &gpuplan_core::train::StepTime| serde_json::to_value(st).expect("json");
        let mut slot = None;
        let filled = training_step_lean_slot(m, &s, (&first, &tun), (memo, None), &mut slot);
        match (training_step_lean(m, &s, &first, &tun), filled) {
            (Ok(want), Ok(Ok(got))) => {
                prop_assert_eq!(json(&got), json(&want));
                prop_assert!(slot.is_some(), "an estimated step fills its slot");
            }
            (Err(a), Err(b)) => {
                prop_assert_eq!(a.to_string(), b.to_string());
                prop_assert!(slot.is_none(), "a failed step leaves its slot empty");
                return Ok(());
            }
            (a, b) => prop_assert!(false, "lean {:?} vs slot {:?}", a.is_ok(), b.is_ok()),
        }
        let read = training_step_lean_slot(m, &s, (&second, &tun), (memo, None), &mut slot);
        let want = match (training_step_lean(m, &s, &second, &tun), read) {
            (Ok(want), Ok(read)) => {
                prop_assert_eq!(json(&read.expect("no cutoff")), json(&want));
                want
            }
            // Only another shape's check can fail where the first cluster's passed.
            (Err(a), Err(b)) if other_per_node != 8 => {
                prop_assert_eq!(a.to_string(), b.to_string());
                return Ok(());
            }
            (a, b) => return Err(TestCaseError::fail(format!(
                "lean {:?} vs slot {:?}", a.is_ok(), b.is_ok()
            ))),
        };
        // Below and above the step's rate: the full step, then its bound from the slot's
        // compute and bubble.
        for cutoff in [want.tokens_per_second * 0.5, want.tokens_per_second * 2.0] {
            let below = training_step_lean_below(m, &s, &second, &tun, (memo, cutoff));
            let read =
                training_step_lean_slot(m, &s, (&second, &tun), (memo, Some(cutoff)), &mut slot);
            match (below.expect("ok"), read.expect("ok")) {
                (Ok(a), Ok(b)) => prop_assert_eq!(json(&a), json(&b)),
                (Err(a), Err(b)) => prop_assert_eq!(a.to_bits(), b.to_bits()),
                (a, b) => prop_assert!(false, "below {:?} vs slot {:?}", a.is_ok(), b.is_ok()),
            }
        }
    }
}
