//! The torchtitan mechanisms of the training-memory model, each checked against the bytes its
//! source implies (the published peaks they move are held by tests/published_memory.rs):
//! per-op selective checkpointing's saved set, ZeRO over DP × CP, and FSDP2's gathered stage
//! under pipeline parallelism.

use gpuplan_core::constants::Tunables;
use gpuplan_core::hardware::{find_gpu, ClusterSpec, InterLink};
use gpuplan_core::layout::{most_loaded, WeightSplit};
use gpuplan_core::model::{find_preset, param_breakdown, ModelSpec};
use gpuplan_core::train::{training_memory, TrainingMemory};
use gpuplan_core::units::Bandwidth;
use gpuplan_core::workload::*;

fn model() -> ModelSpec {
    find_preset("Llama-3.1-8B").unwrap().model.clone()
}

fn mem(s: &TrainingSetup, gpus: u64) -> TrainingMemory {
    let c = ClusterSpec::new(
        find_gpu("h100-sxm").unwrap(),
        gpus,
        1,
        InterLink::Rdma,
        Bandwidth::from_gbit_per_s(3200.0),
    )
    .unwrap();
    training_memory(&model(), s, &c, &Tunables::default()).unwrap()
}

fn item(m: &TrainingMemory, name: &str) -> Option<f64> {
    m.items.iter().find(|i| i.name == name).map(|i| i.bytes.0)
}

fn saved_after_forward(m: &TrainingMemory) -> f64 {
    let p = m
        .timeline
        .phases
        .iter()
        .find(|p| p.phase == "forward")
        .unwrap();
    p.components
        .iter()
        .filter(|(n, _)| *n == "saved activations")
        .map(|(_, b)| b.0)
        .sum()
}

fn pretrain(recompute: Recompute) -> TrainingSetup {
    TrainingSetup {
        task: TrainTask::Pretrain,
        precision: Precision::AmpBf16,
        micro_batch: 1,
        seq_len: 2048,
        recompute,
        ..TrainingSetup::default()
    }
}

/// Llama 3.1 8B (h 4096, q 4096, kv 1024, f 14336, 32 heads, 32 layers) under torchtitan's op
/// SAC keeps per token and layer: the input (2h), the SDPA output and fp32 LSE (2q + 4·32), and
/// the 1st/3rd/5th/7th matmul outputs wq (2q), wv (2kv), w1 (2f), w2 (2h) = 63,616 B; full
/// checkpointing keeps the input only (2h = 8,192 B). Everything else saved is the same in both.
#[test]
fn op_sac_keeps_the_input_sdpa_and_every_other_matmul() {
    let op = mem(&pretrain(Recompute::SelectiveOp), 1);
    let full = mem(&pretrain(Recompute::Full), 1);
    let per_token = 8192.0 + 8192.0 + 128.0 + 8192.0 + 2048.0 + 28672.0 + 8192.0;
    let want = 32.0 * 2048.0 * (per_token - 8192.0);
    let got = saved_after_forward(&op) - saved_after_forward(&full);
    // The rotary cos/sin a non-checkpointed HF layer saves (2 × 2048 × 128 × 2 B) differ too.
    assert!(
        (got - want).abs() <= 1.1e6,
        "op SAC − full saved {got} B, want {want} B"
    );
    // Far below the eager set it was charged before (200,704 B/token/layer).
    let none = mem(&pretrain(Recompute::None), 1);
    assert!(saved_after_forward(&op) < 0.4 * saved_after_forward(&none));
}

/// FSDP over the dp_shard_cp mesh: 8 GPUs hold 1/8 of the states whatever the CP split.
#[test]
fn zero_shards_over_data_and_context_parallel_ranks() {
    let states = |cp: u64| {
        let mut s = pretrain(Recompute::Full);
        s.seq_len = 2048 * cp;
        s.parallel.zero = 3;
        s.parallel.cp = cp;
        item(&mem(&s, 8), "optimizer states + master weights").unwrap()
    };
    assert_eq!(states(1), states(8));
    assert_eq!(states(2), states(4));
}

/// FSDP2 under PP keeps the stage's bf16 weights gathered and its unsharded gradients, fp32 once
/// accumulated over micro-batches, in place of two layers' gather buffers.
#[test]
fn fsdp_under_pp_keeps_the_stage_gathered() {
    let at = |accum: u64| {
        let mut s = pretrain(Recompute::Full);
        s.grad_accum = accum;
        s.parallel.zero = 3;
        s.parallel.pp = 2;
        mem(&s, 8)
    };
    let b = param_breakdown(&model());
    let mut p = pretrain(Recompute::Full).parallel;
    p.pp = 2;
    let split = WeightSplit::training(&pretrain(Recompute::Full));
    let stage = most_loaded(&b, &p, &split, 4).total();
    for (accum, grad_bytes) in [(4, 4.0), (1, 2.0)] {
        let m = at(accum);
        let got = item(&m, "FSDP unsharded stage (PP)").unwrap();
        let want = stage * (2.0 + grad_bytes);
        assert!(
            (got - want).abs() <= 1e-9 * want,
            "accum {accum}: {got} vs {want}"
        );
        assert!(item(&m, "ZeRO-3 gather buffers").is_none());
    }
    // Without PP: two layers in flight, as before.
    let mut s = pretrain(Recompute::Full);
    s.parallel.zero = 3;
    let m = mem(&s, 8);
    assert!(item(&m, "ZeRO-3 gather buffers").is_some());
    assert!(item(&m, "FSDP unsharded stage (PP)").is_none());
}

/// `compiled_loss` without chunks (torchtitan ≥ 2025 under `--training.compile`): the loss phase
/// keeps the bf16 logits only, where the eager loss adds the fp32 upcast and log-softmax.
#[test]
fn a_compiled_unchunked_loss_keeps_only_the_bf16_logits() {
    let loss = |compiled_loss: Option<bool>| {
        let mut s = pretrain(Recompute::SelectiveOp);
        s.compiled = true;
        s.compiled_loss = compiled_loss;
        let m = mem(&s, 1);
        let p = m
            .timeline
            .phases
            .iter()
            .find(|p| p.phase == "loss")
            .unwrap();
        p.components
            .iter()
            .filter(|(n, _)| n.starts_with("loss buffers"))
            .map(|(_, b)| b.0)
            .sum::<f64>()
    };
    let logits = 2048.0 * 128256.0;
    assert_eq!(loss(Some(true)), 2.0 * logits);
    // Default: `compiled` alone (torchtitan @9dec370) leaves the loss eager.
    assert_eq!(loss(None), loss(Some(false)));
    assert!(loss(None) >= 10.0 * logits);
}

/// ZeRO-3 / FSDP2 without PP: a layer's backward adds the unit's unsharded gradients and the
/// previous unit's reduce-scatter input — one Llama 3.1 8B layer (218,112,000 params) × (2 + 4)
/// B under mixed precision (fp32 reduce), × (2 + 2) B in pure bf16.
#[test]
fn fsdp_unit_gradients_join_a_layers_backward() {
    let working = |precision: Precision, zero: u8| {
        let mut s = pretrain(Recompute::Full);
        s.precision = precision;
        s.parallel.zero = zero;
        let m = mem(&s, 8);
        let p = m
            .timeline
            .phases
            .iter()
            .find(|p| p.phase == "backward: layers")
            .unwrap();
        p.components
            .iter()
            .filter(|(n, _)| *n == "layer working set")
            .map(|(_, b)| b.0)
            .sum::<f64>()
    };
    let layer = 218_112_000.0;
    for (precision, bytes) in [(Precision::AmpBf16, 6.0), (Precision::PureBf16, 4.0)] {
        let extra = working(precision, 3) - working(precision, 2);
        assert!(
            (extra - layer * bytes).abs() <= 1e-9 * layer * bytes,
            "{precision:?}: {extra}"
        );
    }
}

fn phase_part(m: &TrainingMemory, phase: &str, prefix: &str) -> f64 {
    let p = m.timeline.phases.iter().find(|p| p.phase == phase).unwrap();
    p.components
        .iter()
        .filter(|(n, _)| n.starts_with(prefix))
        .map(|(_, b)| b.0)
        .sum()
}

/// torch's `loss_parallel` under DTensor TP (torchtitan's default): on the local vocabulary
/// shard the decomposed log-softmax has the bf16 logits, their fp32 copy, `shifted` and
/// `exp(shifted)` / the saved `result` live (2 + 4 + 4 + 4 B per logit), and its fused backward the
/// saved output, the zeros, the exp and their sum (4 × 4 B); the fused kernels without TP keep
/// 10 and 12 B per logit.
#[test]
fn loss_parallel_keeps_four_fp32_logit_buffers_in_backward() {
    let loss = |tp: u64| {
        let mut s = pretrain(Recompute::Full);
        s.parallel.tp = tp;
        let m = mem(&s, tp);
        let per_logit = 2048.0 * 128256.0 / tp as f64;
        (
            phase_part(&m, "loss", "loss buffers") / per_logit,
            phase_part(&m, "backward: loss", "loss buffers") / per_logit,
        )
    };
    assert_eq!(loss(1), (10.0, 12.0));
    assert_eq!(loss(2), (14.0, 16.0));
    assert_eq!(loss(8), (14.0, 16.0));
    // Megatron's fused vocab-parallel cross-entropy is not this path.
    let mut s = pretrain(Recompute::Full);
    s.parallel.tp = 2;
    s.framework = Framework::Megatron;
    assert!(!s.loss_parallel());
}

/// DTensor sequence parallelism all-gathers the final norm output for the LM head, which saves it
/// whole. Llama 3.1 8B under full checkpointing, TP 4, 2048 tokens: SP shards the 32 layer inputs
/// (2h each) and the final norm's saved tensors (16 + 4h + 2·2h B per token) by 4, but not the
/// gathered head input (2h), which stays whole.
#[test]
fn sequence_parallel_lm_head_saves_its_gathered_input() {
    let saved = |sp: bool| {
        let mut s = pretrain(Recompute::Full);
        s.parallel.tp = 4;
        s.parallel.sequence_parallel = sp;
        phase_part(&mem(&s, 4), "forward", "saved activations")
    };
    let h = 4096.0;
    let sharded_away = 0.75 * 2048.0 * (32.0 * 2.0 * h + 16.0 + 8.0 * h - 2.0 * h);
    let got = saved(false) - saved(true);
    assert!(
        (got - sharded_away).abs() <= 1e-9 * sharded_away,
        "{got} vs {sharded_away}"
    );
}

/// Under PP the last rank runs the LM head and the loss holding one micro-batch (1F1B), or with
/// v virtual stages (v − 1) · pp warm-up chunks + 1, each 1/v of a stage; stage 0 holds
/// min(pp, accum) micro-batches. Llama 3.1 8B, PP 2, 4 micro-batches: the loss phase keeps 1/2
/// (1F1B) or (1·2 + 1)/2 / 2 = 3/4 (v = 2) of stage 0's saved layer activations.
#[test]
fn the_loss_runs_on_the_last_pipeline_rank() {
    let at = |v: u64| {
        let mut s = pretrain(Recompute::Full);
        s.grad_accum = 4;
        s.parallel.pp = 2;
        s.parallel.virtual_stages = v;
        let m = mem(&s, 2);
        (
            phase_part(&m, "backward: loss", "saved activations"),
            phase_part(&m, "forward: layers", "saved activations"),
        )
    };
    for (v, share) in [(1, 0.5), (2, 0.75)] {
        let (at_loss, stage0) = at(v);
        // The loss phase's saved set: the last rank's share of the layers + the final norm's
        // saved tensors (16 + 4h + 2·2h B per token, one micro-batch).
        let outside = 2048.0 * (16.0 + 8.0 * 4096.0);
        let want = share * stage0 + outside;
        assert!(
            (at_loss - want).abs() <= 1e-9 * want,
            "v {v}: {at_loss} vs {want}"
        );
    }
}
