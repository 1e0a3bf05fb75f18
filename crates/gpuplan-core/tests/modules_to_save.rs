//! PEFT `modules_to_save` (`lora.modules_to_save`), the foreach AdamW step's temporaries
//! (`optimizer_foreach_buffers`) and bitsandbytes' replicated quantisation constants
//! (`bnb_quant_state_replicated`), each checked by the bytes its mechanism allocates: the trainable
//! copy of the embedding / LM head with its gradient and optimizer states, one or two state-sized
//! buffers of every trainable parameter in the optimizer step, and the 4-bit weights' constants
//! whole on every GPU under ZeRO-3 and parameter offload.

use gpuplan_core::constants::Tunables;
use gpuplan_core::hardware::{find_gpu, ClusterSpec, InterLink};
use gpuplan_core::i18n::{has_message, Lang};
use gpuplan_core::model::{find_preset, param_breakdown, ModelSpec};
use gpuplan_core::train::{lora_params, training_memory, TrainingMemory};
use gpuplan_core::units::Bandwidth;
use gpuplan_core::workload::*;

const SAVED: &str = "modules_to_save copies + grads + optimizer";

fn model() -> ModelSpec {
    find_preset("Llama-3.1-8B").unwrap().model.clone()
}

fn cluster(per_node: u64) -> ClusterSpec {
    ClusterSpec::new(
        find_gpu("a100-80g").unwrap(),
        per_node,
        1,
        InterLink::Rdma,
        Bandwidth::from_gbit_per_s(800.0),
    )
    .unwrap()
}

fn lora(saved: &[&str]) -> TrainingSetup {
    TrainingSetup {
        task: TrainTask::Lora,
        optimizer: Optimizer::AdamW,
        seq_len: 1024,
        adapter_dtype: AdapterDtype::Bf16,
        lora: LoraConfig {
            rank: 16,
            targets: vec!["q_proj".into(), "v_proj".into()],
            modules_to_save: saved.iter().map(|s| s.to_string()).collect(),
            ..LoraConfig::default()
        },
        ..TrainingSetup::default()
    }
}

fn mem(s: &TrainingSetup, gpus: u64) -> TrainingMemory {
    training_memory(&model(), s, &cluster(gpus), &Tunables::default()).unwrap()
}

fn item(m: &TrainingMemory, name: &str) -> f64 {
    m.items
        .iter()
        .find(|i| i.name == name)
        .map(|i| i.bytes.0)
        .unwrap_or(0.0)
}

fn component(m: &TrainingMemory, phase: &str, name: &str) -> f64 {
    let p = m.timeline.phases.iter().find(|p| p.phase == phase).unwrap();
    p.components
        .iter()
        .filter(|(n, _)| *n == name)
        .map(|(_, b)| b.0)
        .sum()
}

/// V·h of Llama 3.1 8B (untied): 128256 × 4096.
const VH: f64 = 128_256.0 * 4096.0;

#[test]
fn saved_modules_cost_a_copy_its_grad_and_two_adamw_states() {
    let none = mem(&lora(&[]), 1);
    assert_eq!(item(&none, SAVED), 0.0);
    // bf16 base: 2 B copy + 2 B grad + 2 × 2 B AdamW states (zeros_like the bf16 copy).
    let both = mem(&lora(&["embed_tokens", "lm_head"]), 1);
    assert_eq!(item(&both, SAVED), 2.0 * VH * 8.0);
    let head = mem(&lora(&["lm_head"]), 1);
    assert_eq!(item(&head, SAVED), VH * 8.0);
    assert_eq!(
        both.trainable_params_per_device - none.trainable_params_per_device,
        2.0 * VH
    );
    // 8-bit AdamW keeps 2 B of states per parameter.
    let s = TrainingSetup {
        optimizer: Optimizer::AdamW8bit,
        ..lora(&["wte"])
    };
    assert_eq!(item(&mem(&s, 1), SAVED), VH * 6.0);
    // An fp32 base makes an fp32 copy: 4 + 4 + 8 B.
    let mut s = lora(&["embedding"]);
    s.lora.base = Some(BaseWeights::Fp32);
    assert_eq!(item(&mem(&s, 1), SAVED), VH * 16.0);
}

#[test]
fn saved_modules_go_to_the_host_under_parameter_offload() {
    let mut s = lora(&["embed_tokens", "lm_head"]);
    s.parallel.zero = 3;
    let on_gpu = mem(&s, 2);
    s.parallel.offload_params = true;
    let off = mem(&s, 2);
    assert_eq!(item(&off, SAVED), 0.0);
    assert!(item(&on_gpu, SAVED) > 0.0);
    assert!(off.cpu_offload.0 >= item(&on_gpu, SAVED));
}

/// The foreach step holds `optimizer_foreach_buffers` buffers of every trainable parameter in its
/// dtype: the adapters (bf16) and the saved copies (bf16); none when fused.
#[test]
fn foreach_step_temporaries_scale_with_the_buffers() {
    let b = param_breakdown(&model());
    let adapters = lora_params(&b, 16, &["q_proj".into(), "v_proj".into()]);
    let temps = |buffers: u64, foreach: bool| {
        let s = TrainingSetup {
            optimizer_foreach: foreach,
            optimizer_foreach_buffers: buffers,
            ..lora(&["embed_tokens", "lm_head"])
        };
        component(&mem(&s, 1), "optimizer step", "optimizer temporaries")
    };
    let one = (adapters + 2.0 * VH) * 2.0;
    assert!((temps(1, true) - one).abs() <= 1e-6 * one);
    assert!((temps(2, true) - 2.0 * one).abs() <= 2e-6 * one);
    // Buffers beside the fused AdamW are refused since audit r17 #6 (they changed nothing).
    let s = TrainingSetup {
        optimizer_foreach_buffers: 2,
        ..lora(&["embed_tokens", "lm_head"])
    };
    let e = training_memory(&model(), &s, &cluster(1), &Tunables::default()).unwrap_err();
    assert_eq!(e.field(), Some("optimizer_foreach_buffers"), "{e}");
}

/// `TrainingSetup` as the `[training]` table of a workload file deserialises it.
#[derive(serde::Deserialize)]
#[serde(transparent)]
struct WorkloadTraining(TrainingSetup);

#[test]
fn workload_keys_parse_and_are_checked() {
    let w: WorkloadTraining = toml::from_str(
        "task = \"lora\"\noptimizer_foreach = true\noptimizer_foreach_buffers = 2\n\
         [lora]\nrank = 8\ntargets = [\"q_proj\"]\nmodules_to_save = [\"wte\", \"lm_head\"]",
    )
    .unwrap();
    assert_eq!(w.0.optimizer_foreach_buffers, 2);
    assert!(w.0.lora.saves_embedding() && w.0.lora.saves_head());
    assert!(w.0.validate().is_ok());
    let mut bad = w.0.clone();
    bad.lora.modules_to_save = vec!["norm".into()];
    let e = bad.validate().unwrap_err().to_string();
    assert!(e.contains("modules_to_save"), "{e}");
    let mut bad = w.0.clone();
    bad.optimizer_foreach_buffers = 3;
    assert!(bad.validate().is_err());
    assert_eq!(TrainingSetup::default().optimizer_foreach_buffers, 1);
    for lang in [Lang::En, Lang::Zh] {
        for id in [
            "mem-modules-to-save-copies-grads-optimizer",
            "fix-lora-modules-to-save",
        ] {
            assert!(has_message(lang, id), "{id} in {lang:?}");
        }
    }
}

/// bitsandbytes' QuantState is not a parameter: under ZeRO-3 / FSDP it stays whole on every GPU
/// (0.127 bits per NF4 weight, 0.5 without double quantisation) and is not offloaded; the 4-bit
/// data shards as before, so the device total grows by the unsharded share of the constants only.
#[test]
fn bnb_quant_constants_stay_whole_on_every_gpu() {
    const CONSTANTS: &str = "4-bit quantisation constants";
    let b = param_breakdown(&model());
    let linear = b.linear_params() as f64;
    let qlora = |replicated: bool, offload: bool, base: BaseWeights| {
        let mut s = TrainingSetup {
            task: TrainTask::Qlora,
            bnb_quant_state_replicated: replicated,
            ..lora(&[])
        };
        s.lora.base = Some(base);
        s.parallel.zero = 3;
        s.parallel.offload_params = offload;
        mem(&s, 4)
    };
    let (off, on) = (
        qlora(false, false, BaseWeights::Nf4),
        qlora(true, false, BaseWeights::Nf4),
    );
    let constants = linear * (4.127 - 4.0) / 8.0;
    assert!((item(&on, CONSTANTS) - constants).abs() <= 1e-6 * constants);
    assert_eq!(item(&off, CONSTANTS), 0.0);
    // The sharded base loses a quarter of the constants (4 GPUs), the device keeps all of them.
    let base = |m: &TrainingMemory| item(m, "base weights (frozen)");
    assert!((base(&off) - base(&on) - constants / 4.0).abs() <= 1e-6 * constants);
    // Parameter offload moves the 4-bit data to the host, not the constants.
    let offloaded = qlora(true, true, BaseWeights::Nf4);
    assert_eq!(base(&offloaded), 0.0);
    assert_eq!(item(&offloaded, CONSTANTS), item(&on, CONSTANTS));
    let no_dq = qlora(true, false, BaseWeights::Nf4NoDq);
    assert!((item(&no_dq, CONSTANTS) - linear * 0.5 / 8.0).abs() <= 1e-6 * linear);
    // A 16-bit base has no constants.
    assert_eq!(item(&qlora(true, false, BaseWeights::Bf16), CONSTANTS), 0.0);
    for lang in [Lang::En, Lang::Zh] {
        assert!(has_message(lang, "mem-4-bit-quantisation-constants"));
    }
}
