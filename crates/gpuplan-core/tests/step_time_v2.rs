//! Issue 10 (training time v2): the pipeline schedule, context parallelism, uneven stages, the
//! overlap options with their framework defaults, NCCL-model latency and the global batch.

use gpuplan_core::constants::Tunables;
use gpuplan_core::hardware::{find_gpu, ClusterSpec, InterLink};
use gpuplan_core::model::{find_preset, ModelSpec};
use gpuplan_core::train::{grad_accum_for_global, training_memory, training_step, StepTime};
use gpuplan_core::units::Bandwidth;
use gpuplan_core::workload::*;
use proptest::prelude::*;

fn model(name: &str) -> ModelSpec {
    find_preset(name).unwrap().model.clone()
}

fn cluster(gpu: &str, nodes: u64) -> ClusterSpec {
    ClusterSpec::new(
        find_gpu(gpu).unwrap(),
        8,
        nodes,
        InterLink::Rdma,
        Bandwidth::from_gbit_per_s(3200.0),
    )
    .unwrap()
}

fn megatron(tp: u64, pp: u64, accum: u64) -> TrainingSetup {
    let mut s = TrainingSetup {
        task: TrainTask::Pretrain,
        framework: Framework::Megatron,
        seq_len: 4096,
        grad_accum: accum,
        ..Default::default()
    };
    s.parallel.tp = tp;
    s.parallel.pp = pp;
    s.parallel.zero = 1;
    s.parallel.sequence_parallel = tp > 1;
    s
}

fn step(m: &ModelSpec, s: &TrainingSetup, c: &ClusterSpec) -> StepTime {
    training_step(m, s, c, &Tunables::default()).unwrap()
}

/// [`step`] of two setups of one model on one cluster (a setting off and on).
fn steps(m: &ModelSpec, c: &ClusterSpec, [a, b]: [&TrainingSetup; 2]) -> (StepTime, StepTime) {
    (step(m, a, c), step(m, b, c))
}

#[test]
fn interleaving_divides_the_bubble_by_the_virtual_stages() {
    let m = model("Llama-2-70B");
    let c = cluster("h100-sxm", 4);
    let plain = megatron(4, 4, 16);
    let mut inter = plain.clone();
    inter.parallel.virtual_stages = 4;
    let (a, b) = steps(&m, &c, [&plain, &inter]);
    // (p−1)/(v·m): 3/16 of the compute, then 3/64.
    let compute = a.compute.0 - a.optimizer.0;
    assert!((a.pipeline_bubble.0 - compute * 3.0 / 16.0).abs() < 1e-9 * compute);
    assert!((b.pipeline_bubble.0 * 4.0 - a.pipeline_bubble.0).abs() < 1e-9 * compute);
    // Interleaving sends each micro-batch over v times as many stage boundaries (and Megatron
    // overlaps those sends with the compute chunks).
    let sends = |st: &StepTime| {
        st.collectives
            .iter()
            .find(|x| x.kind == "pp")
            .map_or(0.0, |x| x.total.0)
    };
    assert!((sends(&b) - 4.0 * sends(&a)).abs() < 1e-12 + 1e-9 * sends(&a));
    assert_eq!(b.pp_comm.0, 0.0);
    assert!(b.step.0 < a.step.0);
    // Interleaving without a pipeline, or with more chunks than layers, is bad input.
    let mut flat = megatron(4, 1, 16);
    flat.parallel.virtual_stages = 2;
    let e = training_step(&m, &flat, &c, &Tunables::default()).unwrap_err();
    assert!(e.to_string().contains("parallel.virtual_stages"), "{e}");
    inter.parallel.virtual_stages = 21; // 4 × 21 chunks > 80 layers
    assert!(training_step(&m, &inter, &c, &Tunables::default()).is_err());
}

#[test]
fn uneven_stages_are_accepted_and_the_slowest_stage_sets_the_pace() {
    let m = model("Llama-3.1-405B"); // 126 layers: not divisible by 16
    let c = cluster("h100-sxm", 64);
    let mut s = megatron(8, 16, 32);
    // Review r16b: unstated, Megatron-Core refuses 126 layers over 16 stages.
    let e = training_step(&m, &s, &c, &Tunables::default()).unwrap_err();
    assert!(e.to_string().contains("parallel.pp"), "{e}");
    s.parallel.first_stage_layers = Some(6); // 6 + 8 × 15: 8 layers + the LM head on the last
    let head_heavy = step(&m, &s, &c);
    s.parallel.first_stage_layers = None;
    s.parallel.last_stage_layers = Some(6); // 8 × 15 + 6: the head's stage lighter
    let uneven = step(&m, &s, &c);
    assert!(uneven.compute.0 < head_heavy.compute.0);
    s.parallel.last_stage_layers = Some(126);
    let e = training_step(&m, &s, &c, &Tunables::default()).unwrap_err();
    assert!(e.to_string().contains("last_stage_layers"), "{e}");
}

/// torch's context_parallel (torchtitan, HF): eager, the K/V all-gather hides behind round 0 and
/// each fp32 dK/dV send behind the next backward round; traced by torch.compile every transfer
/// is waited at once, so the whole ring shows. It moves K/V at the query-head count (32 heads of
/// Llama 3.1 8B, not 8), more than Transformer Engine's ring under Megatron.
#[test]
fn torch_ring_is_exposed_under_compile_and_moves_expanded_kv() {
    let m = model("Llama-3.1-8B");
    let c = cluster("h100-sxm", 1);
    let mut s = megatron(1, 1, 1);
    s.seq_len = 131_072;
    s.parallel.zero = 3;
    s.parallel.cp = 4;
    s.recompute = Recompute::Full;
    let te = step(&m, &s, &c);
    s.framework = Framework::HuggingFace;
    let eager = step(&m, &s, &c);
    s.compiled = true;
    let traced = step(&m, &s, &c);
    let ring = |st: &StepTime| {
        st.collectives
            .iter()
            .find(|x| x.kind == "cp")
            .unwrap()
            .clone()
    };
    assert!(ring(&eager).bytes_per_step.0 > 3.0 * ring(&te).bytes_per_step.0);
    // Eager: only the last dK/dV send of each layer shows (NVLink, long rounds).
    assert!(eager.cp_comm.0 > 0.0 && eager.cp_comm.0 < 0.2 * ring(&eager).total.0);
    // Traced: nothing hidden.
    assert_eq!(ring(&traced).overlapped.0, 0.0);
    assert!((traced.cp_comm.0 - ring(&traced).total.0).abs() < 1e-9);
}

#[test]
fn context_parallelism_splits_the_sequence_and_overlaps_its_kv_ring() {
    let m = model("Llama-3.1-8B");
    let c = cluster("h100-sxm", 1);
    let mut s = megatron(1, 1, 1);
    s.seq_len = 131_072;
    s.parallel.zero = 3;
    s.recompute = Recompute::Full;
    let mut with_cp = s.clone();
    with_cp.parallel.cp = 4;
    let mem = training_memory(&m, &s, &c, &Tunables::default()).unwrap();
    let mem_cp = training_memory(&m, &with_cp, &c, &Tunables::default()).unwrap();
    assert!(mem_cp.peak_allocated.0 < mem.peak_allocated.0);
    let st = step(&m, &with_cp, &c);
    let kv = st.collectives.iter().find(|x| x.kind == "cp").unwrap();
    assert!(kv.total.0 > 0.0 && kv.overlapped.0 <= kv.total.0);
    // The same tokens per step: 2 data-parallel groups of 4 CP ranks, each one sequence.
    assert_eq!(st.tokens_per_step, 2.0 * 131_072.0);
    with_cp.parallel.cp = 3;
    let e = training_step(&m, &with_cp, &c, &Tunables::default()).unwrap_err();
    assert!(e.to_string().contains("parallel.cp"), "{e}");
    // Review r17 fix #3: the stacks cut a sequence into 2 × cp chunks (Megatron-Core/TE
    // `get_batch_on_this_cp_rank`, PyTorch's load-balanced `context_parallel`), so a sequence
    // that 4 divides but 8 does not is refused at CP 4 and taken at CP 2.
    with_cp.parallel.cp = 4;
    with_cp.seq_len = 131_076;
    let e = training_step(&m, &with_cp, &c, &Tunables::default()).unwrap_err();
    assert!(e.to_string().contains("parallel.cp"), "{e}");
    with_cp.parallel.cp = 2;
    step(&m, &with_cp, &c);
}

#[test]
fn tp_comm_overlap_hides_part_of_the_tp_time_and_never_more() {
    let m = model("Llama-2-70B");
    let c = cluster("h100-sxm", 2);
    let off = megatron(8, 1, 8);
    let mut on = off.clone();
    on.parallel.tp_comm_overlap = Some(true);
    let (a, b) = steps(&m, &c, [&off, &on]);
    // Without the overlap Megatron's sequence-parallel backward still hides its async re-gathers
    // and reduce-scatters behind their dgrad / wgrad GEMMs (stop 39): less than with it.
    assert!(a.tp_comm_overlapped.0 < b.tp_comm_overlapped.0);
    assert!(b.tp_comm_overlapped.0 > 0.0);
    let total = b.tp_comm.0 + b.tp_comm_overlapped.0;
    let total_off = a.tp_comm.0 + a.tp_comm_overlapped.0;
    assert!((total - total_off).abs() < 1e-9 * total);
    // Megatron-Core's --tp-comm-overlap is Transformer Engine's userbuffers: all but the last of
    // the 4 pipelined chunks of the 2 forward reduce-scatters hide (9.5 of a layer's 10
    // collectives with one forward pass, 13 of 14 with full recompute), at most the GEMM time.
    let passes = if on.recompute == Recompute::Full {
        2.0
    } else {
        1.0
    };
    let te_share = 1.0 - passes * 0.5 / (4.0 * passes + 6.0);
    assert!(b.tp_comm_overlapped.0 <= te_share * total * 1.000001);
    // torch's async TP (the eager frameworks, torchtitan) keeps the calibrated share: less hidden.
    let mut eager = on.clone();
    eager.framework = Framework::HuggingFace;
    let e = step(&m, &eager, &c);
    let total_e = e.tp_comm.0 + e.tp_comm_overlapped.0;
    let fraction = Tunables::default().tp_overlap_fraction;
    assert!(e.tp_comm_overlapped.0 <= fraction * total_e * 1.000001);
    assert!(e.tp_comm_overlapped.0 / total_e < b.tp_comm_overlapped.0 / total);
}

#[test]
fn dp_overlap_defaults_follow_the_framework() {
    let m = model("Llama-3.1-8B");
    let c = cluster("h100-sxm", 8);
    // Megatron-Core: --overlap-grad-reduce and --overlap-param-gather default off.
    let meg = megatron(1, 1, 1);
    let mut on = meg.clone();
    on.parallel.overlap_grad_reduce = Some(true);
    on.parallel.overlap_param_gather = Some(true);
    let (a, b) = steps(&m, &c, [&meg, &on]);
    assert!((a.dp_comm_exposed.0 - a.dp_comm_total.0).abs() < 1e-12);
    assert!(b.dp_comm_exposed.0 < a.dp_comm_exposed.0);
    // DDP/FSDP (the huggingface framework) overlap gradient buckets by default.
    let mut hf = meg.clone();
    hf.framework = Framework::HuggingFace;
    hf.parallel.zero = 0;
    let h = step(&m, &hf, &c);
    assert!(h.dp_comm_exposed.0 < h.dp_comm_total.0);
    let dp = h.collectives.iter().find(|x| x.kind == "dp").unwrap();
    assert!(dp.effective_bandwidth.0 > 0.0 && dp.collective.en.contains("buckets"));
}

#[test]
fn a_sharded_optimizer_that_all_reduces_moves_half_as_much_again() {
    // DeepSpeed's BF16_Optimizer (grad_all_reduce): an all-reduce of the gradients (2 ring
    // passes) + the all-gather of the updated shards (1) against ZeRO-1's reduce-scatter +
    // all-gather (2): 3/2 of the bytes, the same buckets, each paying its collectives' own NCCL
    // latencies: on one node of 8, reduce-scatter and all-gather 8.4 + 7 × 3.4 µs each, the
    // all-reduce 8.4 + 14 × 3.4 µs (NCCL's ring for both; across nodes the all-reduce may take
    // the tree, train/step.rs `bucket_algorithm`).
    let m = model("Llama-3.1-8B");
    let c = cluster("h100-sxm", 1);
    let rs = megatron(1, 1, 1);
    let mut ar = rs.clone();
    ar.parallel.grad_all_reduce = true;
    let (a, b) = steps(&m, &c, [&rs, &ar]);
    let dp = |st: &StepTime| {
        st.collectives
            .iter()
            .find(|x| x.kind == "dp")
            .unwrap()
            .clone()
    };
    let (da, db) = (dp(&a), dp(&b));
    assert!((db.bytes_per_step.0 - 1.5 * da.bytes_per_step.0).abs() < 1e-6 * da.bytes_per_step.0);
    let bw_a = da.bytes_per_step.0 / da.effective_bandwidth.0;
    let lat = a.dp_comm_total.0 - bw_a;
    let (rs_ag, ar_ag) = (2.0 * 32.2e-6, (56.0 + 32.2) * 1e-6);
    let n = buckets_of(&da.collective.en);
    assert!(
        n > 1.0 && (lat - n * rs_ag).abs() < 1e-12,
        "{lat} vs {n} buckets"
    );
    let want = 1.5 * bw_a + n * ar_ag;
    assert!((b.dp_comm_total.0 - want).abs() < 1e-9 * b.dp_comm_total.0);
    assert!(db.collective.en.starts_with("all-reduce + all-gather"));
    assert!(b.step.0 > a.step.0);
    // Without a sharded optimizer (ZeRO 0) the gradients are all-reduced either way.
    let (mut z0, mut z0_ar) = (rs.clone(), ar.clone());
    z0.parallel.zero = 0;
    z0_ar.parallel.zero = 0;
    assert_eq!(step(&m, &z0, &c), step(&m, &z0_ar, &c));
}

/// `fp32_grad_pass` (DeepSpeed BF16_Optimizer.update_hp_grads after every micro-batch's
/// backward: cast the bf16 gradient to an fp32 temporary, add it into the fp32 gradient; 2 + 4 +
/// 4 + 4 + 4 = 18 B per parameter): at PP 1 every parameter of the model once per micro-batch at
/// the A100's 2039 GB/s × 0.8 (elementwise_bandwidth_efficiency); under 1F1B it lengthens every
/// micro-batch, so m passes land in compute and p − 1 in the bubble. Only bf16 mixed precision
/// with ZeRO 0 or 1 runs it; anything else is refused, naming the key.
#[test]
fn bf16_optimizer_grad_pass_lengthens_every_micro_batch() {
    let m = model("Llama-3.1-8B");
    let c = cluster("a100-80g", 1);
    let flat = megatron(1, 1, 8);
    let mut on = flat.clone();
    on.parallel.fp32_grad_pass = true;
    let (a, b) = steps(&m, &c, [&flat, &on]);
    assert_eq!(a.fp32_grad_pass.0, 0.0);
    let params = gpuplan_core::model::param_breakdown(&m).total as f64;
    let want = params * 18.0 / (2039e9 * 0.8);
    assert!(
        (b.fp32_grad_pass.0 - want).abs() < 1e-9 * want,
        "{} vs {want}",
        b.fp32_grad_pass.0
    );
    // (Outside the optimizer step, which also grows: the once-a-step passes, tested below.)
    let passes = |s: &StepTime| s.compute.0 - s.optimizer.0;
    assert!((passes(&b) - passes(&a) - 8.0 * want).abs() < 1e-9 * b.compute.0);
    // PP 2: the slowest stage's pass, 8 times in compute and once in the bubble.
    let piped = megatron(1, 2, 8);
    let mut piped_on = piped.clone();
    piped_on.parallel.fp32_grad_pass = true;
    let (pa, pb) = steps(&m, &c, [&piped, &piped_on]);
    let pass = pb.fp32_grad_pass.0;
    assert!(pass > 0.4 * want && pass < 0.6 * want, "{pass} vs {want}");
    assert!((passes(&pb) - passes(&pa) - 8.0 * pass).abs() < 1e-9 * pb.compute.0);
    assert!((pb.pipeline_bubble.0 - pa.pipeline_bubble.0 - pass).abs() < 1e-9 * pb.compute.0);
    // fp16 (DeepSpeed's FP16_Optimizer accumulates in .grad) and ZeRO-2/3 are refused; so are
    // ZeRO 0 (BF16_Optimizer always partitions its fp32 states over DP: its own ZeRO-1) and CPU
    // offload (BF16_Optimizer has none: DeepSpeed runs its ZeRO optimizer then), naming the key
    // and the fix in both languages.
    let mut fp16 = on.clone();
    fp16.precision = Precision::AmpFp16;
    let mut z2 = on.clone();
    z2.parallel.zero = 2;
    let mut z0 = on.clone();
    z0.parallel.zero = 0;
    let mut offload = on.clone();
    offload.parallel.offload_optimizer = true;
    for bad in [fp16, z2, z0.clone(), offload.clone()] {
        let e = training_step(&m, &bad, &c, &Tunables::default()).unwrap_err();
        assert!(e.to_string().contains("parallel.fp32_grad_pass"), "{e}");
    }
    for bad in [z0, offload] {
        let e = training_step(&m, &bad, &c, &Tunables::default()).unwrap_err();
        assert!(e.to_string().contains("set zero = 1"), "{e}");
        let zh = e.message().render(gpuplan_core::i18n::Lang::Zh);
        assert!(zh.contains("请设 zero = 1"), "{zh}");
    }
}

/// BF16_Optimizer's once-a-step passes (`parallel.fp32_grad_pass`): the gradient all-reduce's
/// bf16 cast and copy back (6 + 6 B), the averaging scale where DP > 1 (4 B), the norm's read
/// (4 B) and `clear_hp_grads`' zeroing (4 B) over every gradient element of the device, and
/// `update_lp_params`' fp32 read (4 B) over its ZeRO-1 partition: in the optimizer step, once a
/// step, outside the bubble.
#[test]
fn bf16_optimizer_step_passes_are_in_the_optimizer_step() {
    let m = model("Llama-3.1-8B");
    let c = cluster("a100-80g", 1);
    let flat = megatron(1, 1, 8);
    let mut on = flat.clone();
    on.parallel.fp32_grad_pass = true;
    let (a, b) = steps(&m, &c, [&flat, &on]);
    let params = gpuplan_core::model::param_breakdown(&m).total as f64;
    let want = (params * 24.0 + params / 8.0 * 4.0) / (2039e9 * 0.8);
    let extra = b.optimizer.0 - a.optimizer.0;
    assert!((extra - want).abs() < 1e-9 * want, "{extra} vs {want}");
    let passes = b.compute.0 - a.compute.0 - 8.0 * b.fp32_grad_pass.0;
    assert!(
        (passes - want).abs() < 1e-9 * b.compute.0,
        "{passes} vs {want}"
    );
    assert_eq!(a.pipeline_bubble, b.pipeline_bubble);
}

/// Review r17 fix #1: `fp32_grad_pass` is refused, naming the key, for every model and not only
/// transformers: outside a DeepSpeed stack (the `hugging_face` profile without `deepspeed`), and
/// beside `gradient_accumulation_fusion = false`, whose DDP hook would add the same 16-bit
/// gradient into an fp32 buffer a second time. The DeepSpeed stacks take it: Megatron-DeepSpeed
/// (`megatron`) and `deepspeed = true`.
#[test]
fn bf16_optimizer_grad_pass_needs_a_deepspeed_stack_and_one_gradient_add() {
    let c = cluster("a100-80g", 1);
    let refused = |m: &ModelSpec, s: &TrainingSetup| {
        let e = training_step(m, s, &c, &Tunables::default()).unwrap_err();
        assert!(e.to_string().contains("parallel.fp32_grad_pass"), "{e}");
    };
    let m = model("Llama-3.1-8B");
    let mut on = megatron(1, 1, 8);
    on.parallel.fp32_grad_pass = true;
    step(&m, &on, &c);
    let mut unfused = on.clone();
    unfused.gradient_accumulation_fusion = Some(false);
    refused(&m, &unfused);
    let mut hf = on.clone();
    hf.framework = Framework::HuggingFace;
    refused(&m, &hf);
    let mut ds = hf.clone();
    ds.deepspeed = true;
    step(&m, &ds, &c);
    // A model given by totals is checked too (it used to pass outside the transformer block).
    let cnn = model("ResNet-50");
    let mut opaque = TrainingSetup {
        task: TrainTask::Pretrain,
        framework: Framework::HuggingFace,
        precision: Precision::AmpFp16,
        ..Default::default()
    };
    opaque.parallel.fp32_grad_pass = true;
    refused(&cnn, &opaque);
}

/// Review r17 fix #2: BF16_Optimizer keeps each bf16 `.grad` beside its fp32 gradient from a
/// micro-batch's backward to the step (`update_hp_grads(clear_lp_grads=False)`): 2 B per
/// trainable parameter of the device, one more row than without the pass, and that much more
/// memory at the peak.
#[test]
fn bf16_optimizer_grad_pass_keeps_the_16_bit_gradients() {
    let m = model("Llama-3.1-8B");
    let c = cluster("a100-80g", 1);
    let off = megatron(2, 2, 8);
    let mut on = off.clone();
    on.parallel.fp32_grad_pass = true;
    let t = Tunables::default();
    let (a, b) = (
        training_memory(&m, &off, &c, &t).unwrap(),
        training_memory(&m, &on, &c, &t).unwrap(),
    );
    let row = "16-bit gradients (BF16_Optimizer)";
    assert!(a.items.iter().all(|i| i.name != row));
    let lp = b.items.iter().find(|i| i.name == row).unwrap().bytes.0;
    let want = 2.0 * b.params_per_device;
    assert!((lp - want).abs() < 1e-6 * want, "{lp} vs {want}");
    let grown = b.peak_allocated.0 - a.peak_allocated.0;
    assert!((grown - want).abs() < 1e-6 * want, "{grown} vs {want}");
}

/// The bucket count a DP collective row names ("… (ring, 28 buckets)").
fn buckets_of(what: &str) -> f64 {
    let head = what.split(" buckets").next().unwrap_or_default();
    head.rsplit(' ')
        .next()
        .and_then(|n| n.parse().ok())
        .unwrap_or(0.0)
}

/// `zero1_broadcast = "per_rank"` (InternEvo's HybridZeroOptimizer.broadcast_params): one broadcast
/// per rank owning tensors, min(ranks, tensors) of them (Llama-3.1-8B: 32 layers × (7 linears + 2
/// norms) + embedding, final norm, head = 291), each paying the ring chain's latency over the
/// group (1 + (ranks − nodes) NVLink hops at 3.4 µs and nodes − 1 network hops at 9.6 µs after
/// 8.4 µs), unhidden, in place of the all-gather's one ring latency per bucket; the parameters
/// cross each link whole (2·P instead of 2·P·(d−1)/d).
#[test]
fn per_rank_broadcasts_pay_the_chain_once_per_owning_rank() {
    let m = model("Llama-3.1-8B");
    let chain = |ranks: f64, nodes: f64| (8.4 + (ranks - nodes) * 3.4 + (nodes - 1.0) * 9.6) * 1e-6;
    for (nodes, owners) in [(4_u64, 32.0), (128, 291.0)] {
        let c = cluster("a100-80g", nodes);
        let mut ag = megatron(1, 1, 4);
        ag.parallel.grad_all_reduce = true;
        let mut pr = ag.clone();
        pr.parallel.zero1_broadcast = ParamSync::PerRank;
        let (a, b) = steps(&m, &c, [&ag, &pr]);
        let ranks = (8 * nodes) as f64;
        let dp = |st: &StepTime| {
            st.collectives
                .iter()
                .find(|x| x.kind == "dp")
                .unwrap()
                .clone()
        };
        let (da, db) = (dp(&a), dp(&b));
        // Bytes: 4·P·(d−1)/d of all-reduce + 2·P·(d−1)/d of all-gather -> + 2·P of broadcasts.
        let p2 = da.bytes_per_step.0 / 3.0 * ranks / (ranks - 1.0);
        assert!((db.bytes_per_step.0 - (2.0 * p2 * (ranks - 1.0) / ranks + p2)).abs() < 1e-6 * p2);
        // The broadcasts run at the path's achieved bandwidth (the collective row's effective
        // bandwidth also carries the gradient all-reduce's tree at 128 nodes).
        let ring_bw = a.dp_bandwidth.0 * Tunables::default().collective_efficiency;
        let extra_bw = (db.bytes_per_step.0 - da.bytes_per_step.0) / ring_bw;
        let extra = b.dp_comm_total.0 - a.dp_comm_total.0;
        let gathers = buckets_of(&da.collective.en) * chain(ranks, nodes as f64);
        let want = owners * chain(ranks, nodes as f64) + extra_bw - gathers;
        assert!(
            (extra - want).abs() < 1e-9,
            "{nodes} nodes: {extra} vs {want}"
        );
        // Not overlapped (overlap_param_gather off): all of it adds to the exposed time.
        let exposed = b.dp_comm_exposed.0 - a.dp_comm_exposed.0;
        assert!((exposed - extra).abs() < 1e-9);
        assert!(db
            .collective
            .en
            .contains(&format!("{owners} per-rank broadcasts")));
    }
    // Nothing to hand back without a sharded optimizer: refused, naming the key.
    let mut z0 = megatron(1, 1, 4);
    z0.parallel.zero = 0;
    z0.parallel.zero1_broadcast = ParamSync::PerRank;
    let e = training_step(&m, &z0, &cluster("a100-80g", 4), &Tunables::default()).unwrap_err();
    assert!(e.to_string().contains("parallel.zero1_broadcast"), "{e}");
}

/// `grad_bucket_elements` sets the bucket count (one collective each), and every bucketed
/// overlap leaves its last bucket's reduction exposed. Llama-3.1-8B, DDP on 16 A100s in
/// 536.9M-element buckets flushed before an overflowing tensor (InternEvo's rule), NCCL's
/// latency set to 0 so each bucket's reduction is its share of the volume: the gradients are
/// reduced in backward order, the embedding (128256 × 4096 = 525.3M) last and alone (the 525.3M
/// left before it would overflow the bucket with it): 13 full buckets, the leftover, the
/// embedding, 15 in all. Each reduction is shorter than its bucket's backward, so the queue
/// never waits and the step exposes the last bucket: 525.3M / 8.03G of the all-reduce. The
/// synchronize before each bucket (`grad_bucket_sync`) waits for nothing the stream would not
/// have: the same step.
#[test]
fn bucketed_overlap_exposes_the_last_bucket() {
    let m = model("Llama-3.1-8B");
    let c = cluster("a100-80g", 2);
    let mut free = megatron(1, 1, 1);
    free.parallel.zero = 0;
    free.parallel.overlap_grad_reduce = Some(true);
    free.parallel.grad_bucket_elements = std::num::NonZeroU64::new(1 << 29);
    let mut synced = free.clone();
    synced.parallel.grad_bucket_sync = true;
    let tun = Tunables {
        nccl_ring_base_us: 0.0,
        nccl_ring_nvlink_us: 0.0,
        nccl_ring_pci_us: 0.0,
        nccl_ring_net_us: 0.0,
        nccl_tree_intra_us: 0.0,
        nccl_tree_net_us: 0.0,
        ..Tunables::default()
    };
    let run = |s: &TrainingSetup| training_step(&m, s, &c, &tun).unwrap();
    let (a, b) = (run(&free), run(&synced));
    let dp = |st: &StepTime| {
        st.collectives
            .iter()
            .find(|x| x.kind == "dp")
            .unwrap()
            .clone()
    };
    let (da, db) = (dp(&a), dp(&b));
    let params = gpuplan_core::model::param_breakdown(&m).total as f64;
    assert_eq!(params, 8_030_261_248.0);
    assert_eq!((params / (1u64 << 29) as f64).ceil(), 15.0);
    assert!(
        da.collective.en.contains("15 buckets"),
        "{}",
        da.collective.en
    );
    let embedding = 128_256.0 * 4096.0;
    let exposed = da.total.0 - da.overlapped.0;
    assert!(exposed > 0.0);
    assert!(
        (exposed - da.total.0 * embedding / params).abs() < 1e-12,
        "{exposed} of {}",
        da.total.0
    );
    assert_eq!(a.step, b.step);
    assert_eq!(da.overlapped, db.overlapped);
    // The overlapped share keeps its NCCL CTAs' SMs from compute (train/contention.rs): 16 CTAs
    // across A100 nodes of 108 SMs.
    for st in [&a, &b] {
        let hidden = dp(st).overlapped.0;
        assert!((st.comm_contention.0 - hidden * 16.0 / 108.0).abs() < 1e-12);
    }
}

/// `grad_reduce_fp32` (Megatron-LM's fp32 gradient reduction under bf16): the gradients' ring
/// pass moves 4 bytes per gradient, the parameters' all-gather still 2 — ZeRO-1's 2 + 2 becomes
/// 4 + 2 (3/2 of the bytes), DDP's all-reduce 2 × 2 becomes 2 × 4 (twice); same buckets, same
/// latency (one node: NCCL's ring either way).
#[test]
fn fp32_gradient_reduction_doubles_the_gradient_bytes_only() {
    let m = model("Llama-3.1-8B");
    let c = cluster("h100-sxm", 1);
    let dp = |st: &StepTime| {
        st.collectives
            .iter()
            .find(|x| x.kind == "dp")
            .unwrap()
            .clone()
    };
    for (zero, factor) in [(1, 1.5), (0, 2.0)] {
        let mut bf16 = megatron(1, 1, 1);
        bf16.parallel.zero = zero;
        let mut fp32 = bf16.clone();
        fp32.parallel.grad_reduce_fp32 = true;
        let (a, b) = steps(&m, &c, [&bf16, &fp32]);
        let (da, db) = (dp(&a), dp(&b));
        let ratio = db.bytes_per_step.0 / da.bytes_per_step.0;
        assert!((ratio - factor).abs() < 1e-9, "zero {zero}: {ratio}");
        let lat = a.dp_comm_total.0 - da.bytes_per_step.0 / da.effective_bandwidth.0;
        assert!(lat > 0.0);
        let want = db.bytes_per_step.0 / db.effective_bandwidth.0 + lat;
        assert!(
            (b.dp_comm_total.0 - want).abs() < 1e-9 * want,
            "zero {zero}"
        );
        assert!(b.step.0 > a.step.0);
    }
}

#[test]
fn the_global_batch_sets_the_accumulation_or_names_the_divisor() {
    let c = cluster("h100-sxm", 2);
    let s = megatron(2, 2, 1); // DP = 16 / 4 = 4
    assert_eq!(grad_accum_for_global(64, &s, &c).unwrap(), 16);
    let e = grad_accum_for_global(66, &s, &c).unwrap_err();
    assert!(
        e.to_string().contains("global_batch") && e.to_string().contains("4"),
        "{e}"
    );
    assert!(grad_accum_for_global(0, &s, &c).is_err());
}

#[test]
fn tflops_in_both_conventions() {
    let m = model("Llama-2-7B");
    let c = cluster("a100-80g", 1);
    let mut s = megatron(1, 1, 4);
    s.parallel.zero = 1;
    let none = step(&m, &s, &c);
    assert!((none.model_tflops_per_gpu - none.hardware_tflops_per_gpu).abs() < 1e-9);
    s.recompute = Recompute::Full;
    let full = step(&m, &s, &c);
    let ratio = full.hardware_tflops_per_gpu / full.model_tflops_per_gpu;
    assert!(
        ratio > 1.3 && ratio < 1.34,
        "full recompute adds one forward: {ratio}"
    );
}

#[test]
fn lora_adapters_cost_by_rank_and_targets_and_the_frozen_base_skips_weight_gradients() {
    let m = model("Llama-2-7B");
    let c = cluster("h100-sxm", 1);
    let mut full = megatron(1, 1, 4);
    full.task = TrainTask::FullFinetune;
    let mut lora = full.clone();
    lora.task = TrainTask::Lora;
    lora.lora.rank = 16;
    lora.lora.targets = vec!["q_proj".into(), "k_proj".into(), "v_proj".into()];
    let f = step(&m, &full, &c);
    let qkv = step(&m, &lora, &c);
    let parts = |st: &StepTime| st.compute_parts.gemm_s;
    // The frozen base drops one GEMM of three; the adapters add back a little.
    assert!(parts(&qkv) > parts(&f) * 2.0 / 3.0);
    assert!(
        parts(&qkv) < parts(&f) * 0.8,
        "{} vs {}",
        parts(&qkv),
        parts(&f)
    );
    let mut wide = lora.clone();
    wide.lora.targets = vec!["all-linear".into()];
    let all = step(&m, &wide, &c);
    assert!(parts(&all) > parts(&qkv));
    wide.lora.rank = 256;
    assert!(parts(&step(&m, &wide, &c)) > parts(&all));
    // No flat PEFT factor on the GEMM rate of a transformer.
    assert!(!qkv.efficiency_name.contains("peft_efficiency_factor"));
}

#[test]
fn transformer_engine_caches_fp8_weight_casts_over_micro_batches() {
    let m = model("Llama-2-7B");
    let c = cluster("h100-sxm", 1);
    let mut one = megatron(1, 1, 1);
    one.precision = Precision::Fp8;
    let mut many = one.clone();
    many.grad_accum = 8;
    let gemm = |s: &TrainingSetup| step(&m, s, &c).compute_parts.gemm_s;
    // Per micro-batch, the weight casts shrink to 1/8 under Megatron-Core's TE layers …
    assert!(gemm(&many) < gemm(&one));
    // … but not for stacks that cast every weight each micro-batch.
    let (mut hf1, mut hf8) = (one.clone(), many.clone());
    hf1.framework = Framework::HuggingFace;
    hf8.framework = Framework::HuggingFace;
    assert!((gemm(&hf8) - gemm(&hf1)).abs() < 1e-12 * gemm(&hf1));
    // Without FP8 there is nothing to cast.
    let (mut b1, mut b8) = (one.clone(), many.clone());
    b1.precision = Precision::AmpBf16;
    b8.precision = Precision::AmpBf16;
    assert!((gemm(&b8) - gemm(&b1)).abs() < 1e-12 * gemm(&b1));
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(48))]
    #[test]
    fn every_option_gives_finite_non_negative_times(
        tp in prop::sample::select(vec![1u64, 2, 4, 8]),
        pp in prop::sample::select(vec![1u64, 2, 3, 5]),
        cp in prop::sample::select(vec![1u64, 2, 4]),
        v in 1u64..4,
        accum in 1u64..12,
        zero in 0u8..4,
        flags in prop::array::uniform3(prop::option::of(any::<bool>())),
        megatron_fw in any::<bool>(),
        rc in prop::sample::select(vec![Recompute::None, Recompute::Selective, Recompute::SelectiveOp, Recompute::Full]),
    ) {
        let m = model("Llama-2-13B");
        let c = cluster("h100-sxm", 8);
        let mut s = megatron(tp, pp, accum);
        s.framework = if megatron_fw { Framework::Megatron } else { Framework::HuggingFace };
        s.parallel.cp = cp;
        s.parallel.virtual_stages = v;
        s.parallel.zero = zero;
        s.recompute = rc;
        s.parallel.tp_comm_overlap = flags[0];
        s.parallel.overlap_grad_reduce = flags[1];
        s.parallel.overlap_param_gather = flags[2];
        if let Ok(st) = training_step(&m, &s, &c, &Tunables::default()) {
            for x in [st.compute, st.pipeline_bubble, st.tp_comm, st.tp_comm_overlapped, st.cp_comm,
                      st.dp_comm_total, st.dp_comm_exposed, st.pp_comm, st.step] {
                prop_assert!(x.0.is_finite() && x.0 >= 0.0, "{:?}", st);
            }
            prop_assert!(st.dp_comm_exposed.0 <= st.dp_comm_total.0 + 1e-12);
            for col in &st.collectives {
                prop_assert!(col.overlapped.0 <= col.total.0 + 1e-12 && col.total.0.is_finite());
                prop_assert!(col.effective_bandwidth.0.is_finite() && col.effective_bandwidth.0 >= 0.0);
            }
            prop_assert!(st.mfu > 0.0 && st.mfu < 1.0);
            prop_assert!(st.hardware_tflops_per_gpu >= st.model_tflops_per_gpu - 1e-9);
        }
    }
}

/// Packed sequences attended per document (`attention_span`): the attention kernel's time and
/// the model FLOPs' attention term scale with the span; the GEMMs do not change; a span beyond
/// the sequence is an error naming the field.
#[test]
fn attention_span_scales_attention_only() {
    let m = model("Llama-2-7B");
    let c = cluster("h100-sxm", 1);
    let full = megatron(1, 1, 4);
    let packed = TrainingSetup {
        attention_span: Some(256),
        ..full.clone()
    };
    let (a, b) = steps(&m, &c, [&full, &packed]);
    assert!((a.compute_parts.gemm_s - b.compute_parts.gemm_s).abs() < 1e-12);
    let ratio = b.compute_parts.attention_s / a.compute_parts.attention_s;
    assert!((ratio - 256.0 / 4096.0).abs() < 1e-9, "{ratio}");
    assert!(b.tokens_per_second > a.tokens_per_second);
    let bad = TrainingSetup {
        attention_span: Some(8192),
        ..full
    };
    let e = training_step(&m, &bad, &c, &Tunables::default()).unwrap_err();
    assert!(e.to_string().contains("attention_span"), "{e}");
}

/// Stage-to-stage sends across nodes share the node's NICs among the stage's ranks on it (TP 4 ×
/// DP 2 = all 8 GPUs: 1/8 each, as the DP rings do), and Megatron's interleaved schedule
/// (`overlap_p2p_comm`, default on with virtual stages) hides them behind the compute chunks;
/// plain 1F1B waits for them.
#[test]
fn pipeline_sends_share_the_nics_and_interleaving_hides_them() {
    let m = model("Llama-2-70B");
    let c = cluster("h100-sxm", 8);
    let plain = megatron(4, 8, 16);
    let st = step(&m, &plain, &c);
    let pp = st.collectives.iter().find(|x| x.kind == "pp").unwrap();
    // 2 sends of b·s·h/t per micro-batch at 400 GB/s × efficiency / 8 senders.
    let act = 4096.0 * 8192.0 * 2.0 / 4.0;
    let bw = 400e9 * Tunables::default().collective_efficiency / 8.0;
    let expected = 2.0 * act * 16.0 / bw;
    assert!(
        (pp.total.0 - expected).abs() < 1e-9 * expected,
        "{} vs {expected}",
        pp.total.0
    );
    assert_eq!(pp.overlapped.0, 0.0);
    assert_eq!(st.pp_comm.0, pp.total.0);
    let mut inter = plain.clone();
    inter.parallel.virtual_stages = 5;
    let si = step(&m, &inter, &c);
    let ppi = si.collectives.iter().find(|x| x.kind == "pp").unwrap();
    assert!((ppi.total.0 - 5.0 * expected).abs() < 1e-9 * ppi.total.0);
    assert_eq!(ppi.overlapped.0, ppi.total.0);
    assert_eq!(si.pp_comm.0, 0.0);
    // torchtitan's interleaved schedule (eager framework) is not given the overlap.
    let mut titan = inter.clone();
    titan.framework = Framework::HuggingFace;
    assert!(step(&m, &titan, &c).pp_comm.0 > 0.0);
}

/// DeepSpeed ZeRO-3 (Megatron-DeepSpeed) re-gathers a large layer's weights in full recompute's
/// second forward (its pre-hooks fire again; the weights were released, a model's worth of work
/// past the reuse distance): the parameter traffic grows from 2 passes towards 3; FSDP's
/// recompute runs inside the unit's backward and keeps 2 (train::zero3, docs/methodology.md).
#[test]
fn deepspeed_zero3_gathers_again_for_full_recompute_and_fsdp_does_not() {
    let m = model("Llama-2-70B");
    let c = cluster("a100-80g", 8);
    let dp_bytes_with = |framework: Framework, deepspeed: bool, recompute: Recompute| {
        let mut s = megatron(1, 1, 1);
        s.framework = framework;
        s.deepspeed = deepspeed;
        s.parallel.zero = 3;
        s.recompute = recompute;
        let st = step(&m, &s, &c);
        let dp = st.collectives.iter().find(|x| x.kind == "dp").unwrap();
        dp.bytes_per_step.0
    };
    let dp_bytes = |framework, recompute| dp_bytes_with(framework, false, recompute);
    let ds_none = dp_bytes(Framework::Megatron, Recompute::None);
    let ds_full = dp_bytes(Framework::Megatron, Recompute::Full);
    let fsdp_none = dp_bytes(Framework::HuggingFace, Recompute::None);
    let fsdp_full = dp_bytes(Framework::HuggingFace, Recompute::Full);
    assert_eq!(fsdp_none, fsdp_full);
    // Gathers + one reduce-scatter, in gather units: 3 for FSDP; DeepSpeed without recompute
    // a little under 3 (the last layer's last weights are reused at once); with full recompute
    // 3.18: Llama 2 70B's gate/up/down (235M elements each) are used again in backward within
    // 1e9 elements of their recompute (down at once, up after 2 × 235M, gate after 2 × 470M)
    // and stay gathered, q/k/v/o (151M of the layer's 856M) come after 2 × 705M and are gathered
    // a third time: 1 + 1 + 0.18 passes.
    let units = |b: f64| b / fsdp_none * 3.0;
    assert!(
        units(ds_none) < 3.0 && units(ds_none) > 2.95,
        "{}",
        units(ds_none)
    );
    assert!(
        units(ds_full) > 3.15 && units(ds_full) < 3.2,
        "{}",
        units(ds_full)
    );
    // DeepSpeed under the Hugging Face profile (`deepspeed`) fetches the same way.
    let hf_ds = dp_bytes_with(Framework::HuggingFace, true, Recompute::Full);
    assert!(
        (units(hf_ds) - units(ds_full)).abs() < 1e-9,
        "{}",
        units(hf_ds)
    );
}

/// GPT-NeoX-20B's shape as its run case writes it, with or without HF's `use_parallel_residual`.
fn neox_20b(parallel: bool) -> ModelSpec {
    let cfg = format!(
        r#"{{"model_type": "gpt2", "n_embd": 6144, "n_layer": 44, "n_head": 64,
        "vocab_size": 50432, "n_positions": 2048, "tie_word_embeddings": false,
        "use_parallel_residual": {parallel}}}"#
    );
    gpuplan_core::model::parse_hf_config("neox-20b", &cfg).unwrap()
}

#[test]
fn neox_parallel_block_reduces_once_in_forward_only_under_megatron_without_sp() {
    // GPT-NeoX's gpt_j_residual: one all-reduce of attention + MLP per layer in forward (and in
    // full recompute's second forward), still 2 in backward: (1·2 + 2)/(2·2 + 2) of the bytes.
    let c = cluster("a100-40g", 1);
    let mut s = megatron(2, 1, 4);
    s.seq_len = 2048;
    s.parallel.sequence_parallel = false;
    s.recompute = Recompute::Full;
    let tp = |m: &ModelSpec, s: &TrainingSetup| {
        let st = step(m, s, &c);
        let x = st.collectives.iter().find(|x| x.kind == "tp").unwrap();
        (x.bytes_per_step.0, x.total.0)
    };
    let (par, seq) = (neox_20b(true), neox_20b(false));
    let ((bp, tpar), (bs, tseq)) = (tp(&par, &s), tp(&seq, &s));
    assert!((bp / bs - 4.0 / 6.0).abs() < 1e-9, "{bp} vs {bs}");
    assert!((tpar / tseq - 4.0 / 6.0).abs() < 1e-9, "{tpar} vs {tseq}");
    // With sequence parallelism, or under another framework, the block's reduces are not merged.
    let mut sp = s.clone();
    sp.parallel.sequence_parallel = true;
    assert_eq!(tp(&par, &sp).0, tp(&seq, &sp).0);
    let mut hf = s.clone();
    hf.framework = Framework::HuggingFace;
    assert_eq!(tp(&par, &hf).0, tp(&seq, &hf).0);
}

/// Per-tensor current scaling (torchao float8 tensorwise, TE `Float8CurrentScaling`) adds an amax
/// pass to every cast; torchao casts the input and weight again in backward and the gradient
/// once per layout. Exact bytes for Llama 2 7B at TP 1 under torchao (compute.rs
/// `tensorwise_casts`): input 10 instead of 4 B, gradient 8 instead of 4, weight 10 instead of 4.
#[test]
fn tensorwise_scaling_pays_an_amax_pass_per_cast() {
    let m = model("Llama-2-7B");
    let c = cluster("h100-sxm", 1);
    let mut delayed = megatron(1, 1, 1);
    delayed.precision = Precision::Fp8;
    delayed.framework = Framework::HuggingFace;
    let mut tensorwise = delayed.clone();
    tensorwise.fp8_scaling = Fp8Scaling::Tensorwise;
    let gemm = |s: &TrainingSetup| step(&m, s, &c).compute_parts.gemm_s;
    let t = 4096.0; // tokens per micro-batch (micro-batch 1 × 4096)
    let (h, f) = (4096.0, 11008.0);
    let inputs = 6.0 * h + f; // q, k, v, o, gate, up read h; down reads ffn
    let grads = 4.0 * h + 2.0 * f + h;
    let weights = 4.0 * h * h + 3.0 * h * f;
    let extra_per_layer = 6.0 * t * inputs + 4.0 * t * grads + 6.0 * weights;
    let bw =
        c.gpu.memory_bandwidth().unwrap().0 * Tunables::default().elementwise_bandwidth_efficiency;
    let want = 32.0 * extra_per_layer / bw;
    let got = gemm(&tensorwise) - gemm(&delayed);
    assert!((got / want - 1.0).abs() < 1e-9, "{got} vs {want}");
    // Under Megatron-Core (TE current scaling) the norm-fed inputs pay a plain cast and the rest
    // the amax pass: dearer than delayed scaling, cheaper than torchao's double casts.
    let (mut te_d, mut te_t) = (delayed.clone(), tensorwise.clone());
    te_d.framework = Framework::Megatron;
    te_t.framework = Framework::Megatron;
    assert!(gemm(&te_t) > gemm(&te_d));
    assert!(gemm(&te_t) - gemm(&te_d) < got);
    // Exactly: one plain cast (4 B) per fused norm-fed module (linear_qkv and fc1 each quantize
    // their norm output once), the amax pass (2 B) on o_proj's and down_proj's inputs and on
    // every output gradient; weights as under delayed scaling.
    let te_extra = 4.0 * t * 2.0 * h + 2.0 * t * (h + f) + 2.0 * t * grads;
    let te_got = gemm(&te_t) - gemm(&te_d);
    let te_want = 32.0 * te_extra / bw;
    assert!(
        (te_got / te_want - 1.0).abs() < 1e-9,
        "{te_got} vs {te_want}"
    );
    // Under torchao's float8 TP plan the attention and MLP inputs are cast once, on the
    // sequence-parallel shard, for all of their users: at TP 2 the input casts fall.
    let mut tp_plain = tensorwise.clone();
    tp_plain.parallel.tp = 2;
    tp_plain.parallel.sequence_parallel = true;
    let mut tp_delayed = tp_plain.clone();
    tp_delayed.fp8_scaling = Fp8Scaling::Delayed;
    assert!(gemm(&tp_plain) - gemm(&tp_delayed) < got / 2.0);
    // Scaling changes nothing outside FP8.
    let (mut b1, mut b2) = (delayed.clone(), tensorwise.clone());
    b1.precision = Precision::AmpBf16;
    b2.precision = Precision::AmpBf16;
    assert_eq!(gemm(&b1), gemm(&b2));
}

/// The expert all-to-all (train/step.rs `ep_alltoall_seconds`): 4 per MoE layer and micro-batch
/// of the rank's routed copies. Qwen3-235B-A22B at TP 2 (sequence parallel) × PP 8 × EP 32 with
/// whole experts: each rank routes 4096 / 2 tokens × 8 copies × h 4096 × 2 B; 24 of its 32 peers
/// are off-node and share the node's 3200 Gbit/s with the other 7 GPUs (50 GB/s each), which
/// is slower than the 7 on-node peers' NVLink part. Qwen3-30B-A3B at EP 8 on one node: 7/8 of the
/// copies over NVLink only.
#[test]
fn the_expert_all_to_all_takes_the_sequence_shard_over_the_gpus_own_nic_share() {
    let eff = Tunables::default().collective_efficiency;
    let m = model("Qwen3-235B-A22B");
    let c = cluster("h100-sxm", 32);
    let mut s = megatron(2, 8, 4);
    // 94 layers over PP 8: the Megatron-Bridge recipe's embedding/loss accounting (review r16b).
    s.parallel.account_for_embedding_in_pipeline_split = true;
    s.parallel.account_for_loss_in_pipeline_split = true;
    s.parallel.ep = 32;
    s.parallel.etp = std::num::NonZeroU64::new(1);
    let st = step(&m, &s, &c);
    let copies = 2048.0 * 8.0 * 4096.0 * 2.0;
    let nic = 3200e9 / 8.0 / 8.0 * eff;
    let per_layer = copies / 32.0 * 24.0 / nic;
    let want = 4.0 * per_layer * (94.0 / 8.0) * 4.0;
    assert!(
        (st.ep_comm.0 - want).abs() < 1e-9 * want,
        "{} {want}",
        st.ep_comm.0
    );

    let m = model("Qwen3-30B-A3B");
    let c = cluster("h100-sxm", 1);
    let mut s = megatron(1, 1, 4);
    s.parallel.ep = 8;
    s.parallel.etp = std::num::NonZeroU64::new(1);
    let st = step(&m, &s, &c);
    let copies = 4096.0 * 8.0 * 2048.0 * 2.0;
    let want = 4.0 * copies * 7.0 / 8.0 / (c.intra_bandwidth.0 * eff) * 48.0 * 4.0;
    assert!(
        (st.ep_comm.0 - want).abs() < 1e-9 * want,
        "{} {want}",
        st.ep_comm.0
    );
}

/// Audit r7 #3: Mixtral-8x7B at TP 8 × EP 8 × DP 8 on 8 nodes of 8 A100 (eRDMA 160 Gbit/s),
/// Megatron, micro-batch 8 × 2048, no accumulation. The expert TP size defaults to TP (8), and
/// Megatron-Core orders the expert ranks `tp-cp-ep-dp-pp` with tp = ETP: each EP peer is 8 ranks
/// on, on another node, so all 7 of 8 peers' copies go over the GPU's share of the node's NIC.
/// By hand: a rank's tokens are the sequence-parallel shard 8 × 2048 / 8 = 2048, each routed to
/// top-2, h 4096 × 2 B: 2048 × 2 × 4096 × 2 = 33.6 MB of copies, 7/8 off-node = 29.4 MB per
/// dispatch; NIC share 20 GB/s / 8 GPUs × 0.75 (collective_efficiency) = 1.875 GB/s → 15.7 ms;
/// × 4 (dispatch + combine, forward + backward) × 32 MoE layers = 2.00 s a step (the auditor's
/// 1.5 s is the same at the raw 20 GB/s). Before the fix the step took the expert TP as 1 (all
/// EP peers on the node) and timed it at NVLink: 16.7 ms, with 0 bytes in the collectives list.
/// With an explicit ETP 1 the EP group is the 8 consecutive ranks of one node: NVLink.
#[test]
fn the_expert_all_to_all_crosses_nodes_when_the_expert_tp_fills_the_node() {
    let eff = Tunables::default().collective_efficiency;
    let m = model("Mixtral-8x7B");
    let c = ClusterSpec::new(
        find_gpu("a100-80g").unwrap(),
        8,
        8,
        InterLink::Erdma,
        Bandwidth::from_gbit_per_s(160.0),
    )
    .unwrap();
    let mut s = megatron(8, 1, 1);
    s.seq_len = 2048;
    s.micro_batch = 8;
    s.parallel.ep = 8;
    let st = step(&m, &s, &c);
    let per_a2a = 2048.0 * 2.0 * 4096.0 * 2.0 * 7.0 / 8.0;
    let nic = 160e9 / 8.0 / 8.0 * eff;
    let want = 4.0 * 32.0 * per_a2a / nic;
    assert!((want - 2.004).abs() < 0.01, "hand figure {want}");
    assert!(
        (st.ep_comm.0 - want).abs() < 1e-9 * want,
        "{} {want}",
        st.ep_comm.0
    );
    let e = st.collectives.iter().find(|e| e.kind == "ep").unwrap();
    let bytes = 4.0 * 32.0 * per_a2a;
    assert!((e.bytes_per_step.0 - bytes).abs() < 1e-6 * bytes, "{e:?}");
    assert!((e.effective_bandwidth.0 - nic).abs() < 1e-6 * nic, "{e:?}");
    // ETP 1: the 8 EP ranks are one node's; NVLink carries the same bytes.
    s.parallel.etp = std::num::NonZeroU64::new(1);
    let st = step(&m, &s, &c);
    let e = st.collectives.iter().find(|e| e.kind == "ep").unwrap();
    let nvlink = c.intra_bandwidth.0 * eff;
    assert!(
        (e.effective_bandwidth.0 - nvlink).abs() < 1e-6 * nvlink,
        "{e:?}"
    );
    assert!((e.bytes_per_step.0 - bytes).abs() < 1e-6 * bytes, "{e:?}");
    assert!((st.ep_comm.0 - bytes / nvlink).abs() < 1e-9 * st.ep_comm.0);
}

/// FP8 GEMMs run at the ratio of their kernel generation (round 6): the current kernels
/// (`fp8_gemm_ratio_current`, the default) and the 2023 ones (`fp8_train_gemm_ratio`, TE 0.x /
/// TensorRT-LLM ≤ 0.6). Only the FP8 GEMMs scale, by the ratio of the ratios; the casts, the
/// 16-bit output layer and a bf16 job do not move, and the step names the ratio it used.
#[test]
fn fp8_kernel_generation_sets_the_fp8_gemm_rate_only() {
    let m = model("Llama-2-7B");
    let c = cluster("h100-sxm", 1);
    let tun = Tunables::default();
    let mut current = megatron(1, 1, 1);
    current.precision = Precision::Fp8;
    let mut old = current.clone();
    old.fp8_kernels = Fp8Kernels::Y2023;
    let (a, b) = steps(&m, &c, [&current, &old]);
    assert!(
        a.efficiency_name.contains("fp8_gemm_ratio_current"),
        "{}",
        a.efficiency_name
    );
    assert!(
        b.efficiency_name.contains("fp8_train_gemm_ratio"),
        "{}",
        b.efficiency_name
    );
    assert!(b.step.0 > a.step.0);
    // The GEMM time grows by at most the ratio of the ratios (the casts and the bf16 head stay).
    let grow = b.compute_parts.gemm_s / a.compute_parts.gemm_s;
    let most = tun.fp8_gemm_ratio_current / tun.fp8_train_gemm_ratio;
    assert!(grow > 1.0 && grow < most + 1e-9, "{grow} vs {most}");
    assert_eq!(a.compute_parts.attention_s, b.compute_parts.attention_s);
    // A bf16 job reads no FP8 ratio: the generation changes nothing.
    let mut bf16 = megatron(1, 1, 1);
    let plain = step(&m, &bf16, &c);
    bf16.fp8_kernels = Fp8Kernels::Y2023;
    assert_eq!(plain.step.0, step(&m, &bf16, &c).step.0);
}

/// Megatron-Core's EP all-to-all overlap (`parallel.moe_a2a_overlap`, train/step.rs
/// `ep_overlapped_seconds`): the all-to-all still moves the same bytes (the collective's total),
/// but only the (micro-batch, chunk) pairs past the interleaved warm-up — (p − 1) + (v − 1)·p + 1
/// of the m·v on the mean rank — hide it behind the other pass's compute. At PP 8 × VP 4 with 4
/// micro-batches none do; with 64 most do. PP > 1 without virtual stages is refused, as
/// Megatron-Core asserts.
#[test]
fn the_ep_overlap_hides_the_all_to_all_only_past_the_warm_up() {
    let m = model("Qwen3-235B-A22B");
    let c = cluster("h100-sxm", 32);
    let ep_entry = |st: &StepTime| {
        let e = st.collectives.iter().find(|e| e.kind == "ep").unwrap();
        (e.total.0, e.overlapped.0)
    };
    for (accum, hides) in [(4, false), (64, true)] {
        let mut s = megatron(2, 8, accum);
        s.parallel.ep = 32;
        s.parallel.etp = std::num::NonZeroU64::new(1);
        s.parallel.virtual_stages = 4;
        let plain = step(&m, &s, &c);
        s.parallel.moe_a2a_overlap = true;
        let over = step(&m, &s, &c);
        let (total, hidden) = ep_entry(&over);
        assert!((total - plain.ep_comm.0).abs() < 1e-9 * total);
        assert!((over.ep_comm.0 + hidden - total).abs() < 1e-9 * total);
        assert_eq!(hidden > 0.0, hides, "{accum}: hidden {hidden} of {total}");
        assert_eq!(over.compute, plain.compute);
    }
    let mut s = megatron(2, 8, 64);
    s.parallel.ep = 32;
    s.parallel.moe_a2a_overlap = true;
    assert!(training_step(&m, &s, &c, &Tunables::default()).is_err());
}

/// DeepEP/HybridEP (`parallel.moe_dispatcher`): a token crosses to a remote node once if any of
/// its experts is there. Qwen3-30B-A3B at EP 16 over 2 nodes: top-8 of 128 experts hits the other
/// node's 64 with probability 1 − C(64,8)/C(128,8), one copy over the GPU's 50 GB/s NIC share
/// instead of alltoall's 4 of 8; the NVLink part (2 × 7 peers × P(a rank's 8 experts are hit))
/// is the faster one.
#[test]
fn dedup_dispatchers_cross_the_network_once_per_remote_node() {
    let eff = Tunables::default().collective_efficiency;
    let m = model("Qwen3-30B-A3B");
    let c = cluster("h100-sxm", 2);
    let mut s = megatron(1, 1, 4);
    s.parallel.ep = 16;
    s.parallel.etp = std::num::NonZeroU64::new(1);
    let a2a = step(&m, &s, &c);
    s.parallel.moe_dispatcher = MoeDispatcher::HybridEp;
    let hybrid = step(&m, &s, &c);
    let token_bytes = 4096.0 * 2048.0 * 2.0;
    let miss: f64 = (0..8)
        .map(|i| (64.0 - i as f64) / (128.0 - i as f64))
        .product();
    let nic = 3200e9 / 8.0 / 8.0 * eff;
    let want = 4.0 * token_bytes * (1.0 - miss) / nic * 48.0 * 4.0;
    assert!(
        (hybrid.ep_comm.0 - want).abs() < 1e-9 * want,
        "{} {want}",
        hybrid.ep_comm.0
    );
    let nccl = 4.0 * token_bytes * 8.0 * 8.0 / 16.0 / nic * 48.0 * 4.0;
    assert!((a2a.ep_comm.0 - nccl).abs() < 1e-9 * nccl);
}

/// Megatron-Core's `allgather` dispatcher (core_r0.6.0's default): each rank receives the other
/// 7 shards of its TP 2 × EP 4 group in each of the 4 collectives, where NCCL's all-to-all sends
/// 8 copies × 3 on-node peers / 4 ranks = 6 shards over the same NVLink (EP peers 2 apart, 4 on
/// the node). It refuses the EP overlap (Megatron-Core runs that with alltoall/flex only) and a
/// dense model.
#[test]
fn allgather_dispatcher_moves_the_group_s_other_shards() {
    let m = model("Qwen3-30B-A3B");
    let c = cluster("h100-sxm", 2);
    let mut s = megatron(2, 1, 4);
    s.parallel.ep = 4;
    let a2a = step(&m, &s, &c);
    s.parallel.moe_dispatcher = MoeDispatcher::AllGather;
    let ag = step(&m, &s, &c);
    let ratio = ag.ep_comm.0 / a2a.ep_comm.0;
    assert!((ratio - 7.0 / 6.0).abs() < 1e-9, "{ratio}");
    assert!(ag.step.0 > a2a.step.0);
    let mut overlap = s.clone();
    overlap.parallel.moe_a2a_overlap = true;
    assert!(training_step(&m, &overlap, &c, &Tunables::default()).is_err());
    let dense = model("Llama-2-7B");
    assert!(training_step(&dense, &s, &c, &Tunables::default()).is_err());
}

/// The overlapped all-to-all's kernels keep their SMs from the compute while its hidden part runs
/// (train/contention.rs `ep_kernel_sms`, Megatron-Core's defaults): DeepEP 20 and HybridEP 16 of
/// the H100's 132. NCCL's all-to-all (`alltoall`) is not charged, and without the overlap nothing
/// is hidden, so only the data-parallel share remains.
#[test]
fn the_overlapped_dispatch_kernels_take_their_sms_from_compute() {
    let m = model("Qwen3-30B-A3B");
    let c = cluster("h100-sxm", 2);
    let mut s = megatron(1, 1, 64);
    s.parallel.ep = 16;
    s.parallel.etp = std::num::NonZeroU64::new(1);
    let hidden = |st: &StepTime| {
        let e = st.collectives.iter().find(|e| e.kind == "ep").unwrap();
        e.overlapped.0
    };
    s.parallel.moe_dispatcher = MoeDispatcher::DeepEp;
    let plain = step(&m, &s, &c);
    assert_eq!(hidden(&plain), 0.0);
    let dp_only = plain.comm_contention.0;
    s.parallel.moe_a2a_overlap = true;
    s.parallel.moe_dispatcher = MoeDispatcher::AllToAll;
    let nccl = step(&m, &s, &c);
    assert!(hidden(&nccl) > 0.0);
    assert!((nccl.comm_contention.0 - dp_only).abs() < 1e-12);
    for (d, sms) in [
        (MoeDispatcher::DeepEp, 20.0),
        (MoeDispatcher::HybridEp, 16.0),
    ] {
        s.parallel.moe_dispatcher = d;
        s.parallel.moe_a2a_overlap = false;
        let alone = step(&m, &s, &c);
        s.parallel.moe_a2a_overlap = true;
        let st = step(&m, &s, &c);
        let h = hidden(&st);
        assert!(h > 0.0);
        let want = dp_only + h * sms / 132.0;
        assert!(
            (st.comm_contention.0 - want).abs() < 1e-9 * want,
            "{d:?}: {} vs {want}",
            st.comm_contention.0
        );
        // Hiding still pays: the SMs cost a fraction of the time hidden.
        assert!(st.step.0 < alone.step.0, "{d:?}");
    }
}

/// MindSpeed's 16-bit stand-in for Megatron's fused weight-gradient accumulation
/// (`npu_matmul_add_fp16`: the matmul, then `grad.add_(grad_weight)`) adds each weight gradient
/// into the bf16 main gradient as the unfused DDP hook does, so on Ascend fused and unfused cost
/// the same with bf16 main gradients; on NVIDIA (`wgrad_gemm_accum_fp16`, a GEMM accumulating in
/// place) the fused path charges no add.
#[test]
fn mindspeed_bf16_main_grads_add_after_the_matmul() {
    let m = model("Llama-3.1-8B");
    let mut fused = megatron(1, 1, 8);
    fused.main_grads = Some(MainGrads::Bf16);
    let mut unfused = fused.clone();
    unfused.gradient_accumulation_fusion = Some(false);
    let ascend = cluster("ascend-910b", 1);
    let (f, u) = (step(&m, &fused, &ascend), step(&m, &unfused, &ascend));
    assert_eq!(f.compute_parts.elementwise_s, u.compute_parts.elementwise_s);
    assert_eq!(f.compute, u.compute);
    // fp32 main gradients: MindSpeed's npu_matmul_add_fp32 is a fused operator, no add.
    let (mut f32_fused, mut f32_unfused) = (fused.clone(), unfused.clone());
    f32_fused.main_grads = Some(MainGrads::Fp32);
    f32_unfused.main_grads = Some(MainGrads::Fp32);
    let (f, u) = (
        step(&m, &f32_fused, &ascend),
        step(&m, &f32_unfused, &ascend),
    );
    assert!(f.compute_parts.elementwise_s < u.compute_parts.elementwise_s);
    let a100 = cluster("a100-80g", 1);
    let (f, u) = (step(&m, &fused, &a100), step(&m, &unfused, &a100));
    assert!(f.compute_parts.elementwise_s < u.compute_parts.elementwise_s);
}
