//! What ZeRO-3 / FSDP keeps gathered (train/fsdp.rs) and the 4-bit base's dequantized linear, each
//! checked by the bytes of its mechanism on Llama-3.1-8B (h 4096, MLP 14336, vocab 128256,
//! untied head; a layer 218,112,000 parameters, 218,103,808 of them in linears).

use gpuplan_core::constants::Tunables;
use gpuplan_core::hardware::{find_gpu, ClusterSpec, InterLink};
use gpuplan_core::model::{find_preset, ModelSpec};
use gpuplan_core::train::{training_memory, TrainingMemory};
use gpuplan_core::units::Bandwidth;
use gpuplan_core::workload::*;

const EMB: f64 = 128_256.0 * 4096.0;
const LAYER_LINEARS: f64 = 218_103_808.0;
const LAYER: f64 = LAYER_LINEARS + 2.0 * 4096.0;

fn model() -> ModelSpec {
    find_preset("Llama-3.1-8B").unwrap().model.clone()
}

fn mem(s: &TrainingSetup, gpus: u64) -> TrainingMemory {
    let c = ClusterSpec::new(
        find_gpu("a100-80g").unwrap(),
        gpus,
        1,
        InterLink::Rdma,
        Bandwidth::from_gbit_per_s(800.0),
    )
    .unwrap();
    training_memory(&model(), s, &c, &Tunables::default()).unwrap()
}

fn gathered(m: &TrainingMemory) -> f64 {
    m.items
        .iter()
        .find(|i| i.name == "ZeRO-3 gather buffers")
        .map(|i| i.bytes.0)
        .unwrap()
}

fn zero3(task: TrainTask) -> TrainingSetup {
    let mut s = TrainingSetup {
        task,
        precision: Precision::AmpBf16,
        recompute: Recompute::Full,
        seq_len: 2048,
        ..TrainingSetup::default()
    };
    s.parallel.zero = 3;
    s
}

fn close(a: f64, b: f64) -> bool {
    (a - b).abs() <= 1e-9 * b.abs().max(1.0)
}

/// torch FSDP: the root (embedding + head + final norm) through forward and backward and two
/// layers in flight; torchtune's `custom_sharded_layers`: the final norm at the root and the embedding as
/// the largest unit.
#[test]
fn fsdp_holds_the_root_and_two_units() {
    let s = zero3(TrainTask::FullFinetune);
    let root = (2.0 * EMB + 4096.0) * 2.0;
    let m = mem(&s, 8);
    let fsdp = gathered(&m);
    assert!(close(fsdp, root + 2.0 * LAYER * 2.0), "{fsdp}");
    // Gathered from the forward to the final backward callback, which reshards the root: nothing
    // at the optimizer step.
    let bwd = phase_part(&m, "backward: layers", "ZeRO-3 gather buffers");
    assert!(close(bwd, fsdp), "{bwd}");
    assert_eq!(
        phase_part(&m, "optimizer step", "ZeRO-3 gather buffers"),
        0.0
    );
    let mut wrapped = s;
    wrapped.parallel.fsdp_wrap_embeddings = true;
    let w = gathered(&mem(&wrapped, 8));
    assert!(close(w, 4096.0 * 2.0 + 2.0 * EMB * 2.0), "{w}");
}

/// A bitsandbytes 4-bit base in bf16 storage gathers 0.5 B per linear weight (its constants stay
/// whole on every GPU, counted apart); torchao's NF4 gathers them with its scalers (4.127 bits).
#[test]
fn a_four_bit_base_is_gathered_in_its_stored_bytes() {
    let mut s = zero3(TrainTask::Qlora);
    s.bnb_quant_state_replicated = true;
    let root = (2.0 * EMB + 4096.0) * 2.0;
    let bnb = gathered(&mem(&s, 2));
    let layer = LAYER_LINEARS * 0.5 + 2.0 * 4096.0 * 2.0;
    assert!(close(bnb, root + 2.0 * layer), "{bnb}");
    s.bnb_quant_state_replicated = false;
    let nf4 = gathered(&mem(&s, 2));
    let layer = LAYER_LINEARS * 4.127 / 8.0 + 2.0 * 4096.0 * 2.0;
    assert!(close(nf4, root + 2.0 * layer), "{nf4}");
}

/// The 4-bit linears' dequantized 16-bit weight joins the layer working sets, forward and
/// backward: the largest linear (gate/up, 4096 × 14336) × 2 B; a bf16 base has none.
#[test]
fn a_four_bit_base_dequantizes_its_largest_linear_while_it_runs() {
    let mut q = zero3(TrainTask::Qlora);
    q.parallel.zero = 0;
    let mut l = q.clone();
    l.lora.base = Some(BaseWeights::Bf16);
    let (mq, ml) = (mem(&q, 1), mem(&l, 1));
    let part = |m: &TrainingMemory, phase: &str, name: &str| {
        let p = m.timeline.phases.iter().find(|p| p.phase == phase).unwrap();
        p.components
            .iter()
            .find(|c| c.0 == name)
            .map_or(0.0, |c| c.1 .0)
    };
    let dequant = 4096.0 * 14336.0 * 2.0;
    let bwd = "backward: layers";
    let d = part(&mq, bwd, "layer working set") - part(&ml, bwd, "layer working set");
    assert!(close(d, dequant), "{d} vs {dequant}");
    let fwd = "forward: layers";
    let name = "layer forward working set";
    let d = part(&mq, fwd, name) - part(&ml, fwd, name);
    assert!(close(d, dequant), "{d} vs {dequant}");
}

fn phase_part(m: &TrainingMemory, phase: &str, name: &str) -> f64 {
    let p = m.timeline.phases.iter().find(|p| p.phase == phase).unwrap();
    p.components
        .iter()
        .find(|c| c.0 == name)
        .map_or(0.0, |c| c.1 .0)
}

/// DeepSpeed ZeRO-3 (train/zero3.rs `deepspeed_live_peak`): its coordinator prefetches up to
/// `stage3_prefetch_bucket_size` (5e7) at every module while fewer than
/// `stage3_max_live_parameters` (1e9) elements are gathered, faster than the modules consume
/// them (an 8B layer's tensors average 31M), so in the layers' backward the gathered set fills
/// to the limit, overshooting by at most one tensor (the bound is checked before each one): here
/// the embedding (525M), prefetched for its backward at the end.
/// With no room to prefetch (max live 0) what stays is the running tensor and those reused within
/// `stage3_max_reuse_distance`: a recomputed layer's weights are all used again in its backward
/// (402M elements later at most), so the whole layer's linears (the norms persist), and at the
/// ends the embedding or head (525M) alone. None is gathered at the optimizer step.
#[test]
fn deepspeed_fills_to_its_max_live_parameters_in_backward() {
    let mut ds = zero3(TrainTask::FullFinetune);
    ds.deepspeed = true;
    let m = mem(&ds, 8);
    let bwd = phase_part(&m, "backward: layers", "ZeRO-3 gather buffers") / 2.0;
    assert!((1e9..=1e9 + EMB).contains(&bwd), "{bwd}");
    assert_eq!(
        phase_part(&m, "optimizer step", "ZeRO-3 gather buffers"),
        0.0
    );
    let c = ClusterSpec::new(
        find_gpu("a100-80g").unwrap(),
        8,
        1,
        InterLink::Rdma,
        Bandwidth::from_gbit_per_s(800.0),
    )
    .unwrap();
    let tun = Tunables {
        deepspeed_max_live_melements: 0.0,
        ..Tunables::default()
    };
    let m = training_memory(&model(), &ds, &c, &tun).unwrap();
    let part = |phase: &str| phase_part(&m, phase, "ZeRO-3 gather buffers") / 2.0;
    assert!(
        close(part("forward: layers"), EMB),
        "{}",
        part("forward: layers")
    );
    assert!(close(part("loss"), EMB), "{}", part("loss"));
    // The layers' backward ends with the embedding's backward (the trained table's gradient).
    assert!(
        close(part("backward: layers"), EMB),
        "{}",
        part("backward: layers")
    );
    let mut peft = ds.clone();
    peft.task = TrainTask::Lora;
    let m = training_memory(&model(), &peft, &c, &tun).unwrap();
    let bwd = phase_part(&m, "backward: layers", "ZeRO-3 gather buffers") / 2.0;
    assert!(close(bwd, LAYER_LINEARS), "{bwd}");
}

fn phase_opt(m: &TrainingMemory, phase: &str, name: &str) -> Option<f64> {
    let p = m.timeline.phases.iter().find(|p| p.phase == phase)?;
    Some(
        p.components
            .iter()
            .find(|c| c.0 == name)
            .map_or(0.0, |c| c.1 .0),
    )
}

/// FSDP2 (`fsdp_version = 2`): the "forward: unshard" phase holds the root, two units and the
/// previous unit's all-gather output (a layer's, 2 × 218M B, beside the saved inputs at 16384
/// tokens; the root's, 2 × 1.05G B, at 16 tokens); FSDP1 has no such phase.
#[test]
fn fsdp2_holds_the_previous_output_at_a_forward_unshard() {
    let held = "FSDP2 held all-gather output";
    let mut s = zero3(TrainTask::FullFinetune);
    assert!(phase_opt(&mem(&s, 8), "forward: unshard", held).is_none());
    s.parallel.fsdp_version = 2;
    s.seq_len = 16384;
    let m = mem(&s, 8);
    assert!(close(
        phase_opt(&m, "forward: unshard", held).unwrap(),
        2.0 * LAYER
    ));
    s.seq_len = 16;
    let m = mem(&s, 8);
    let root = 2.0 * (2.0 * EMB + 4096.0);
    assert!(close(
        phase_opt(&m, "forward: unshard", held).unwrap(),
        root
    ));
    assert!(close(
        phase_opt(&m, "forward: unshard", "ZeRO-3 gather buffers").unwrap(),
        root + 2.0 * 2.0 * LAYER
    ));
    assert_eq!(phase_opt(&m, "backward: layers", held), Some(0.0));
}

/// `parallel.fsdp_version` is 1 or 2, and not beside DeepSpeed.
#[test]
fn fsdp_version_is_one_or_two_outside_deepspeed() {
    let c = ClusterSpec::new(
        find_gpu("a100-80g").unwrap(),
        8,
        1,
        InterLink::Rdma,
        Bandwidth::from_gbit_per_s(800.0),
    )
    .unwrap();
    let mut s = zero3(TrainTask::FullFinetune);
    for (v, ds) in [(3, false), (0, false), (2, true)] {
        s.parallel.fsdp_version = v;
        s.deepspeed = ds;
        let e = training_memory(&model(), &s, &c, &Tunables::default()).unwrap_err();
        assert!(e.to_string().contains("parallel.fsdp_version"), "{e}");
    }
}
