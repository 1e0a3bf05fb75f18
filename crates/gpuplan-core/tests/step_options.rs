//! The training-step options of issue 9 (paged optimizer, activation offload, DDP gradient buckets,
//! optimizer in backward, chunked loss), each checked by the mechanism it models: which timeline
//! component it moves, by how many bytes, and where those bytes go (host memory or nowhere).

use gpuplan_core::constants::Tunables;
use gpuplan_core::hardware::{find_gpu, ClusterSpec, InterLink};
use gpuplan_core::model::{find_preset, ModelSpec};
use gpuplan_core::train::{accounting_profile, training_memory, TrainingMemory};
use gpuplan_core::units::Bandwidth;
use gpuplan_core::workload::*;

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

fn full() -> TrainingSetup {
    TrainingSetup {
        optimizer: Optimizer::AdamW8bit,
        seq_len: 2048,
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

fn close(a: f64, b: f64) -> bool {
    (a - b).abs() <= 1e-6 * a.abs().max(b.abs()).max(1.0)
}

#[test]
fn paged_optimizer_moves_exactly_the_states_to_the_host() {
    let base = mem(&full(), 1);
    let paged = mem(
        &TrainingSetup {
            paged_optimizer: true,
            ..full()
        },
        1,
    );
    let params = base.params_per_device;
    // AdamW8bit: two 1-byte states per parameter leave the allocator; the fp32 master stays.
    let states = 2.0 * params;
    let moved = item(&base, "optimizer states + master weights")
        - item(&paged, "optimizer states + master weights");
    assert!(close(moved, states), "moved {moved} vs states {states}");
    assert!(close(paged.cpu_offload.0 - base.cpu_offload.0, states));
    assert!(close(
        base.peak_allocated.0 - paged.peak_allocated.0,
        states
    ));
}

#[test]
fn activation_offload_keeps_two_layers_on_the_device() {
    let base = mem(&full(), 1);
    let off = mem(
        &TrainingSetup {
            activation_offload: true,
            ..full()
        },
        1,
    );
    let layers = model().transformer().unwrap().total_layers() as f64;
    let saved = |m: &TrainingMemory| component(m, "backward: layers", "saved activations");
    let (b, o) = (saved(&base), saved(&off));
    // Of the layers' saved activations two layers' worth stay; the rest is host memory.
    let per_layer = (b - o) / (layers - 2.0);
    assert!(per_layer > 0.0);
    assert!(close(o, 2.0 * b / layers), "kept {o} of {b}");
    assert!(close(
        off.cpu_offload.0 - base.cpu_offload.0,
        per_layer * (layers - 2.0)
    ));
    assert!(off.peak_allocated.0 < base.peak_allocated.0);
}

#[test]
fn ddp_buckets_are_a_second_gradient_copy_unless_bucket_views() {
    let s = full();
    let ddp = mem(&s, 2);
    let views = mem(
        &TrainingSetup {
            gradient_as_bucket_view: true,
            ..s.clone()
        },
        2,
    );
    let grads = component(&ddp, "optimizer step", "gradients");
    for phase in ["forward", "backward: layers", "optimizer step"] {
        assert!(close(component(&ddp, phase, "DDP gradient buckets"), grads));
        assert_eq!(component(&views, phase, "DDP gradient buckets"), 0.0);
    }
    // One GPU has no reducer; ZeRO and the fused step have no DDP buckets either.
    assert_eq!(
        component(&mem(&s, 1), "forward", "DDP gradient buckets"),
        0.0
    );
    let fused = mem(
        &TrainingSetup {
            optimizer_in_backward: true,
            ..s.clone()
        },
        2,
    );
    assert_eq!(component(&fused, "forward", "DDP gradient buckets"), 0.0);
}

#[test]
fn accounting_profile_names_the_framework() {
    let s = full();
    assert_eq!(accounting_profile(&s), "mixed");
    assert_eq!(
        accounting_profile(&TrainingSetup {
            autocast: true,
            ..s.clone()
        }),
        "autocast"
    );
    assert_eq!(
        accounting_profile(&TrainingSetup {
            framework: Framework::Megatron,
            ..s.clone()
        }),
        "megatron"
    );
    assert_eq!(
        accounting_profile(&TrainingSetup {
            task: TrainTask::Lora,
            ..s.clone()
        }),
        "peft"
    );
    assert_eq!(mem(&s, 1).accounting, "mixed");
}

#[test]
fn the_options_are_workload_file_keys() {
    let w: WorkloadTraining = toml::from_str(
        r#"
paged_optimizer = true
activation_offload = true
gradient_as_bucket_view = true
optimizer_in_backward = true
chunked_loss = true
adapter_dtype = "bf16"
"#,
    )
    .unwrap();
    let t = w.0;
    assert!(t.paged_optimizer && t.activation_offload && t.gradient_as_bucket_view);
    assert!(t.optimizer_in_backward && t.chunked_loss);
    assert_eq!(t.adapter_dtype, AdapterDtype::Bf16);
}

/// `TrainingSetup` as the `[training]` table of a workload file deserialises it.
#[derive(serde::Deserialize)]
#[serde(transparent)]
struct WorkloadTraining(TrainingSetup);

/// LitGPT's loop (issue 9): with `keeps_previous_graph` the forward end also holds the old logits
/// and, under old bitsandbytes, the inputs the old graph's 4-bit matmuls kept: c·(3h + f) per
/// token and layer less layer 0's q/k/v input, plus the LM-head input when the head is quantized;
/// `quantized_lm_head` stores the head 4-bit and adds its 4 B/weight dequantized copy at forward.
#[test]
fn litgpt_previous_graph_and_quantized_head_land_at_the_forward_end() {
    let qlora = TrainingSetup {
        task: TrainTask::Qlora,
        precision: Precision::PureBf16,
        seq_len: 512,
        micro_batch: 2,
        bnb_saves_inputs: true,
        ..TrainingSetup::default()
    };
    let with = TrainingSetup {
        keeps_previous_graph: Some(true),
        quantized_lm_head: Some(true),
        ..qlora.clone()
    };
    let (a, b) = (mem(&qlora, 1), mem(&with, 1));
    let (h, f, l, v, tok) = (4096.0, 14336.0, 32.0, 128256.0, 1024.0);
    let kept = tok * (2.0 * (3.0 * h + f) * l - 2.0 * h + 2.0 * h);
    let old_logits = 2.0 * tok * v;
    let prev = component(&b, "forward", "previous step's kept inputs");
    assert!(
        close(prev, kept + old_logits),
        "{prev} vs {}",
        kept + old_logits
    );
    let deq = component(&b, "forward", "LM-head dequantisation");
    assert!(close(deq, 4.0 * v * h), "{deq}");
    assert_eq!(component(&a, "forward", "previous step's kept inputs"), 0.0);
    // Nothing of it outside the forward phase; the head's 4-bit storage lowers the base weights.
    assert_eq!(component(&b, "loss", "previous step's kept inputs"), 0.0);
    assert!(item(&b, "base weights (frozen)") < item(&a, "base weights (frozen)"));
}

/// `persistent_grads` (PyTorch < 2.0 `zero_grad(set_to_none=False)`, the HF Trainer's
/// `model.zero_grad()`): the full gradient buffer is live in forward too, not only once backward
/// has made it; with set_to_none (the default) a one-GPU, no-accumulation forward holds none.
#[test]
fn persistent_grads_hold_the_gradient_buffer_through_forward() {
    let s = TrainingSetup {
        grad_accum: 1,
        ..full()
    };
    let fresh = mem(&s, 1);
    let kept = mem(
        &TrainingSetup {
            persistent_grads: true,
            ..s.clone()
        },
        1,
    );
    let grads = component(&fresh, "optimizer step", "gradients");
    assert!(grads > 0.0);
    assert_eq!(component(&fresh, "forward", "gradients"), 0.0);
    assert!(close(component(&kept, "forward", "gradients"), grads));
    assert!(kept.peak_allocated.0 > fresh.peak_allocated.0);
    let w: WorkloadTraining = toml::from_str("persistent_grads = true").unwrap();
    assert!(w.0.persistent_grads);
}

/// PEFT under parameter offload (FSDP `CPUOffload(offload_params=True)`): the sharded frozen
/// base and the adapters with their gradients and optimizer states move to the host, byte for
/// byte; the gathered units stay on the device.
#[test]
fn peft_parameter_offload_moves_base_and_adapters_to_the_host() {
    let qlora = TrainingSetup {
        task: TrainTask::Qlora,
        precision: Precision::AmpBf16,
        recompute: Recompute::Full,
        parallel: Parallelism {
            zero: 3,
            ..Parallelism::default()
        },
        ..full()
    };
    let on_gpu = mem(&qlora, 2);
    let mut s = qlora.clone();
    s.parallel.offload_params = true;
    let off = mem(&s, 2);
    let states =
        item(&on_gpu, "base weights (frozen)") + item(&on_gpu, "LoRA adapters + grads + optimizer");
    assert!(states > 0.0);
    assert_eq!(item(&off, "base weights (frozen)"), 0.0);
    assert_eq!(item(&off, "LoRA adapters + grads + optimizer"), 0.0);
    assert!(close(off.cpu_offload.0 - on_gpu.cpu_offload.0, states));
    assert!(close(
        item(&off, "ZeRO-3 gather buffers"),
        item(&on_gpu, "ZeRO-3 gather buffers")
    ));
    assert!(close(
        on_gpu.peak_allocated.0 - off.peak_allocated.0,
        states
    ));
}

/// Eager attention in fp32 with attention dropout (HF BertSelfAttention: softmax → dropout →
/// probs @ V): per token and layer the dropout adds its 1-byte mask and the fp32 dropped-out
/// probabilities (5·a·s) and the two hidden-state dropout masks (2·h, 1 B each in 16-bit units,
/// doubled in the fp32 profile); without dropout only the fp32 softmax output (4·a·s) is kept.
#[test]
fn fp32_eager_attention_dropout_keeps_mask_and_dropped_probabilities() {
    let bert = |drop: f64| {
        let cfg = format!(
            r#"{{"model_type": "bert", "hidden_size": 1024, "intermediate_size": 4096,
            "num_hidden_layers": 24, "num_attention_heads": 16, "vocab_size": 30522,
            "max_position_embeddings": 512, "type_vocab_size": 2, "hidden_act": "gelu",
            "hidden_dropout_prob": {drop}, "attention_probs_dropout_prob": {drop}}}"#
        );
        gpuplan_core::model::hf::parse_hf_config("bert-large-uncased", &cfg).unwrap()
    };
    let s = TrainingSetup {
        task: TrainTask::FullFinetune,
        precision: Precision::Fp32,
        attention: AttentionImpl::Eager,
        recompute: Recompute::None,
        seq_len: 512,
        micro_batch: 1,
        grad_accum: 1,
        optimizer: Optimizer::AdamW,
        ..TrainingSetup::default()
    };
    let acts = |m: &ModelSpec| {
        let r = training_memory(m, &s, &cluster(1), &Tunables::default()).unwrap();
        component(&r, "backward: layers", "saved activations")
    };
    let (with, without) = (acts(&bert(0.1)), acts(&bert(0.0)));
    let (a, h, tokens, layers) = (16.0, 1024.0, 512.0, 24.0);
    let expected = (5.0 * a * 512.0 + 2.0 * 2.0 * h) * tokens * layers;
    assert!(
        close(with - without, expected),
        "{} vs {expected}",
        with - without
    );
}

/// `deepspeed` (DeepSpeed's engine @38327e07): ZeRO-1/2 allocate a `reduce_bucket_size` bucket of
/// the 16-bit dtype in every `backward()` (5e8 elements × 2 B), ZeRO-3 once at start-up (every
/// phase); at the step each rank converts its gradient partition to fp32 (4 B per parameter of
/// the partition; ZeRO-3 per sub-group of at most `sub_group_size`, 1e9) from a flattened 16-bit
/// copy (2 B). Llama 3.1 8B (8,030,261,248 parameters), full fine-tuning in bf16 mixed precision on
/// 8 GPUs: a 1.004e9-parameter partition, one full sub-group under ZeRO-3.
#[test]
fn deepspeed_adds_its_reduce_bucket_and_fp32_gradient_partition() {
    let at = |zero: u8, deepspeed: bool| {
        let mut s = TrainingSetup {
            optimizer: Optimizer::AdamW,
            precision: Precision::AmpBf16,
            grad_accum: 1,
            deepspeed,
            ..full()
        };
        s.parallel.zero = zero;
        mem(&s, 8)
    };
    let partition: f64 = 8_030_261_248.0 / 8.0;
    let bucket = 5e8 * 2.0;
    for zero in [1, 2, 3] {
        let (plain, ds) = (at(zero, false), at(zero, true));
        let converted = if zero >= 3 {
            partition.min(1e9)
        } else {
            partition
        };
        let grad32 = component(&ds, "optimizer step", "fp32 gradient partition");
        assert!(
            (grad32 - 4.0 * converted).abs() <= 1e-9 * grad32,
            "ZeRO-{zero}: {grad32}"
        );
        let extra = component(&ds, "optimizer step", "optimizer temporaries")
            - component(&plain, "optimizer step", "optimizer temporaries");
        assert!((extra - 2.0 * converted).abs() <= 1e-6 * extra, "{extra}");
        assert_eq!(
            component(&plain, "optimizer step", "fp32 gradient partition"),
            0.0
        );
        let bwd = component(&ds, "backward: layers", "ZeRO reduce bucket");
        let fwd = component(&ds, "forward", "ZeRO reduce bucket");
        assert_eq!(bwd, bucket, "ZeRO-{zero}");
        assert_eq!(fwd, if zero >= 3 { bucket } else { 0.0 }, "ZeRO-{zero}");
        assert_eq!(
            component(&plain, "backward: layers", "ZeRO reduce bucket"),
            0.0
        );
    }
    let w: WorkloadTraining = toml::from_str("deepspeed = true").unwrap();
    assert!(w.0.deepspeed);
}

/// Every timeline component of the DeepSpeed setups has its name in both catalogs (memory.ftl,
/// `mem-` + the slug of the English name), so the Chinese tables do not fall back to English.
#[test]
fn deepspeed_components_are_in_both_catalogs() {
    use gpuplan_core::i18n::{has_message, Lang};
    let slug = |name: &str| {
        let s: String = name
            .to_lowercase()
            .chars()
            .map(|c| if c.is_ascii_alphanumeric() { c } else { '-' })
            .collect();
        s.split('-')
            .filter(|p| !p.is_empty())
            .collect::<Vec<_>>()
            .join("-")
    };
    for zero in [2, 3] {
        let mut s = TrainingSetup {
            optimizer: Optimizer::AdamW,
            deepspeed: true,
            ..full()
        };
        s.parallel.zero = zero;
        let m = mem(&s, 8);
        for p in &m.timeline.phases {
            for (name, _) in &p.components {
                let id = format!("mem-{}", slug(name));
                for lang in [Lang::En, Lang::Zh] {
                    assert!(has_message(lang, &id), "{name}: no {id} in {lang:?}");
                }
            }
        }
    }
}

/// Megatron FP8 (issue 9): Transformer Engine's FP8 weight cache is a row of its own, resident in
/// every phase of the step: 2 B per layer GEMM weight beside 16-bit parameters; with
/// `fp8_params` the weights row holds those linears in 1 B and the cache only their transpose.
/// `main_grads = "bf16"` halves the gradient row. One H100, TP 1: every weight on the device.
#[test]
fn megatron_fp8_weight_cache_and_main_grads() {
    let m = model();
    let b = gpuplan_core::model::param_breakdown(&m);
    let (linears, total) = (b.linear_params() as f64, b.total as f64);
    let h100 = ClusterSpec::new(
        find_gpu("h100-sxm").unwrap(),
        1,
        1,
        InterLink::Rdma,
        Bandwidth::from_gbit_per_s(800.0),
    )
    .unwrap();
    let base = TrainingSetup {
        precision: Precision::Fp8,
        framework: Framework::Megatron,
        seq_len: 1024,
        ..TrainingSetup::default()
    };
    let at = |s: &TrainingSetup| training_memory(&m, s, &h100, &Tunables::default()).unwrap();
    let default = at(&base);
    assert!(close(item(&default, "FP8 weight cache"), 2.0 * linears));
    assert!(close(item(&default, "weights"), 2.0 * total));
    assert!(close(item(&default, "gradients"), 4.0 * total));
    for p in &default.timeline.phases {
        let resident: f64 = p.components.iter().map(|(_, b)| b.0).sum();
        assert!(resident >= 2.0 * linears, "{}: cache not resident", p.phase);
    }
    let recipe = at(&TrainingSetup {
        fp8_params: true,
        main_grads: Some(MainGrads::Bf16),
        ..base.clone()
    });
    assert!(close(item(&recipe, "FP8 weight cache"), linears));
    assert!(close(item(&recipe, "weights"), 2.0 * total - linears));
    assert!(close(item(&recipe, "gradients"), 2.0 * total));
    // Outside Megatron FP8 there is no such row.
    let bf16 = at(&TrainingSetup {
        precision: Precision::AmpBf16,
        ..base.clone()
    });
    assert_eq!(item(&bf16, "FP8 weight cache"), 0.0);
}

/// Megatron `tp_comm_overlap` (issue 9): Transformer Engine's userbuffers are a row outside
/// torch's allocator (the device total grows by exactly the row; the allocated peak and the
/// fragmentation on it do not move): ten buffers of [s·b/cp, h], the six all-gather buffers 1 B
/// under FP8 and 2 B under bf16, the four reduce-scatter buffers 2 B (TE v1.8 base.py
/// `initialize_ub`). None without the overlap, at TP 1, outside Megatron (torch's async TP).
#[test]
fn megatron_tp_comm_overlap_charges_te_userbuffers() {
    use gpuplan_core::i18n::{has_message, Lang};
    let m = model();
    let h = m.transformer().unwrap().hidden as f64;
    let h100 = ClusterSpec::new(
        find_gpu("h100-sxm").unwrap(),
        8,
        1,
        InterLink::Rdma,
        Bandwidth::from_gbit_per_s(800.0),
    )
    .unwrap();
    let mut base = TrainingSetup {
        precision: Precision::Fp8,
        framework: Framework::Megatron,
        seq_len: 2048,
        micro_batch: 2,
        ..TrainingSetup::default()
    };
    base.parallel.tp = 4;
    base.parallel.sequence_parallel = true;
    base.parallel.tp_comm_overlap = Some(true);
    let at = |s: &TrainingSetup| training_memory(&m, s, &h100, &Tunables::default()).unwrap();
    let ub = |s: &TrainingSetup| item(&at(s), "TE userbuffers");
    let tokens = 2048.0 * 2.0;
    assert!(close(ub(&base), (6.0 * 1.0 + 4.0 * 2.0) * tokens * h));
    let bf16 = TrainingSetup {
        precision: Precision::AmpBf16,
        ..base.clone()
    };
    assert!(close(ub(&bf16), (6.0 * 2.0 + 4.0 * 2.0) * tokens * h));
    let mut cp = base.clone();
    cp.parallel.cp = 2;
    assert!(close(ub(&cp), ub(&base) / 2.0));
    let mut off = base.clone();
    off.parallel.tp_comm_overlap = Some(false);
    assert_eq!(ub(&off), 0.0);
    let (on, off) = (at(&base), at(&off));
    assert_eq!(on.peak_allocated.0, off.peak_allocated.0);
    assert!(close(on.device_total.0 - off.device_total.0, ub(&base)));
    let mut tp1 = base.clone();
    tp1.parallel.tp = 1;
    tp1.parallel.sequence_parallel = false;
    assert_eq!(ub(&tp1), 0.0);
    let torch_async_tp = TrainingSetup {
        framework: Framework::HuggingFace,
        precision: Precision::AmpBf16,
        ..base.clone()
    };
    assert_eq!(ub(&torch_async_tp), 0.0);
    for lang in [Lang::En, Lang::Zh] {
        assert!(has_message(lang, "mem-te-userbuffers"));
        assert!(has_message(lang, "how-te-userbuffers"));
    }
}

/// `optimizer_dtype = "bf16"` (apex DistributedFusedAdam `dtype`, NeMo `optim.dtype`): both AdamW
/// moments at 2 B instead of 4 B, and the master shard only where NeMo 24.09 keeps one
/// (`store_params`: under fp8_params or when the model's dtype is not the optimizer's, here fp16,
/// at 2 B); a bf16 model with bf16 states has none (megatron_base_model.py @v2.0.0 lines
/// 802-807; 6 B until stop 41); refused outside Megatron.
#[test]
fn megatron_bf16_optimizer_states_halve_master_and_moments() {
    let m = model();
    let total = gpuplan_core::model::param_breakdown(&m).total as f64;
    let base = TrainingSetup {
        framework: Framework::Megatron,
        seq_len: 1024,
        ..TrainingSetup::default()
    };
    let at = |s: &TrainingSetup| {
        let c = cluster(1);
        training_memory(&m, s, &c, &Tunables::default()).unwrap()
    };
    let row = "optimizer states + master weights";
    let fp32 = at(&base);
    let bf16 = at(&TrainingSetup {
        optimizer_dtype: Some(OptimizerDtype::Bf16),
        ..base.clone()
    });
    assert!(close(item(&fp32, row), 12.0 * total));
    assert!(close(item(&bf16, row), 4.0 * total));
    assert_eq!(item(&fp32, "gradients"), item(&bf16, "gradients"));
    let fp16 = TrainingSetup {
        precision: Precision::AmpFp16,
        ..base.clone()
    };
    let fp16_bf16 = at(&TrainingSetup {
        optimizer_dtype: Some(OptimizerDtype::Bf16),
        ..fp16.clone()
    });
    assert!(close(item(&at(&fp16), row), 12.0 * total));
    assert!(close(item(&fp16_bf16, row), 6.0 * total));
    assert_eq!(
        accounting_profile(&bf16_setup(&base)),
        "megatron-bf16-states"
    );
    let hf = TrainingSetup {
        framework: Framework::HuggingFace,
        optimizer_dtype: Some(OptimizerDtype::Bf16),
        ..TrainingSetup::default()
    };
    let err = hf.validate().unwrap_err();
    assert_eq!(err.field(), Some("optimizer_dtype"));
}

fn bf16_setup(base: &TrainingSetup) -> TrainingSetup {
    TrainingSetup {
        optimizer_dtype: Some(OptimizerDtype::Bf16),
        ..base.clone()
    }
}

/// The Megatron-only precision keys are refused elsewhere, naming the key.
#[test]
fn megatron_precision_keys_are_refused_elsewhere() {
    let refused = |s: TrainingSetup| s.validate().unwrap_err().field().map(str::to_string);
    let hf_fp8 = TrainingSetup {
        precision: Precision::Fp8,
        fp8_params: true,
        ..TrainingSetup::default()
    };
    assert_eq!(refused(hf_fp8).as_deref(), Some("fp8_params"));
    let megatron_bf16 = TrainingSetup {
        framework: Framework::Megatron,
        fp8_params: true,
        ..TrainingSetup::default()
    };
    assert_eq!(refused(megatron_bf16).as_deref(), Some("fp8_params"));
    let hf_grads = TrainingSetup {
        main_grads: Some(MainGrads::Bf16),
        ..TrainingSetup::default()
    };
    assert_eq!(refused(hf_grads).as_deref(), Some("main_grads"));
    let hf_loss = TrainingSetup {
        cross_entropy_loss_fusion: Some(false),
        ..TrainingSetup::default()
    };
    assert_eq!(
        refused(hf_loss).as_deref(),
        Some("cross_entropy_loss_fusion")
    );
    let hf_wgrad = TrainingSetup {
        gradient_accumulation_fusion: Some(false),
        ..TrainingSetup::default()
    };
    assert_eq!(
        refused(hf_wgrad).as_deref(),
        Some("gradient_accumulation_fusion")
    );
    // ModelLink's unfused ALiBi scale and add: Megatron's eager attention only.
    let flash_bias = TrainingSetup {
        framework: Framework::Megatron,
        unfused_score_bias: true,
        ..TrainingSetup::default()
    };
    assert_eq!(
        refused(flash_bias.clone()).as_deref(),
        Some("unfused_score_bias")
    );
    let hf_bias = TrainingSetup {
        framework: Framework::HuggingFace,
        attention: AttentionImpl::Eager,
        ..flash_bias.clone()
    };
    assert_eq!(refused(hf_bias).as_deref(), Some("unfused_score_bias"));
    let eager_bias = TrainingSetup {
        attention: AttentionImpl::Eager,
        ..flash_bias
    };
    assert!(eager_bias.validate().is_ok());
}

/// Megatron's `--no-gradient-accumulation-fusion`: after every micro-batch the DDP hook adds each
/// parameter's 16-bit weight gradient into its fp32 main gradient (read 2 B, read and write 4 B
/// each), at the memory bandwidth the element-wise ops get; the default (fused) charges nothing,
/// and bf16 main gradients move 2 + 2 + 2 B.
#[test]
fn unfused_gradient_accumulation_streams_every_parameter_each_micro_batch() {
    use gpuplan_core::train::training_step;
    let tun = Tunables::default();
    let c = cluster(8);
    let fused = TrainingSetup {
        framework: Framework::Megatron,
        seq_len: 2048,
        grad_accum: 4,
        ..TrainingSetup::default()
    };
    let unfused = TrainingSetup {
        gradient_accumulation_fusion: Some(false),
        ..fused.clone()
    };
    let bf16_unfused = TrainingSetup {
        main_grads: Some(MainGrads::Bf16),
        ..unfused.clone()
    };
    let step = |s: &TrainingSetup| training_step(&model(), s, &c, &tun).unwrap();
    let (a, b, h) = (step(&fused), step(&unfused), step(&bf16_unfused));
    let params = mem(&fused, 8).params_per_device;
    let bw = c.gpu.memory_bandwidth().unwrap().0 * tun.elementwise_bandwidth_efficiency;
    let added = b.compute_parts.elementwise_s - a.compute_parts.elementwise_s;
    assert!(
        close(added, params * 10.0 / bw),
        "{added} vs {}",
        params * 10.0 / bw
    );
    let added_bf16 = h.compute_parts.elementwise_s - a.compute_parts.elementwise_s;
    assert!(close(added_bf16, params * 6.0 / bw));
    // Once per micro-batch: the step grows by grad_accum times the per-micro-batch add.
    assert!(close(b.compute.0 - a.compute.0, 4.0 * added));
}

/// Audit r17 #3: Megatron's unfused vocab-parallel cross-entropy (`cross_entropy_loss_fusion =
/// false`) holds the caller's fp32 copy of the logits and the out-of-place max subtraction
/// together: 4·s·b·V/t more than the fused path's 4·s·b·(h + V)/t in the loss phase, and its
/// own explanation.
#[test]
fn unfused_megatron_loss_holds_a_second_fp32_logits_copy() {
    let fused = TrainingSetup {
        framework: Framework::Megatron,
        seq_len: 2048,
        micro_batch: 2,
        ..TrainingSetup::default()
    };
    let unfused = TrainingSetup {
        cross_entropy_loss_fusion: Some(false),
        ..fused.clone()
    };
    let loss = |s: &TrainingSetup| component(&mem(s, 8), "loss", "loss buffers (fp32)");
    let vocab = model().transformer().unwrap().vocab as f64;
    let tp = fused.parallel.tp as f64;
    let extra = 4.0 * 2.0 * 2048.0 * vocab / tp;
    let (a, b) = (loss(&fused), loss(&unfused));
    assert!(a > 0.0, "{a}");
    assert!(close(b - a, extra), "{} vs {extra}", b - a);
}

/// torchtune refuses the optimizer in backward with gradient accumulation ("Gradient accumulation
/// is not supported with optimizer in bwd", recipes/full_finetune_single_device.py @30b8519e8):
/// `validate` names the key and the fix (issue 9 audit), and the planner searches only the
/// micro-batches that take the global batch in one pass, so no plan pairs the two.
#[test]
fn optimizer_in_backward_refuses_gradient_accumulation() {
    let s = TrainingSetup {
        optimizer_in_backward: true,
        grad_accum: 4,
        ..full()
    };
    let e = s.validate().unwrap_err();
    assert_eq!(e.field(), Some("optimizer_in_backward"));
    let text = e.to_string();
    assert!(
        text.contains("grad_accum = 1") && text.contains("4 steps"),
        "{text}"
    );
    assert!(TrainingSetup {
        grad_accum: 1,
        ..s.clone()
    }
    .validate()
    .is_ok());

    use gpuplan_core::catalog::Catalog;
    use gpuplan_core::plan::{plan, Constraints, Job, PlanRequest};

    let req = PlanRequest {
        model: model(),
        job: Job::Train {
            setup: TrainingSetup {
                grad_accum: 1,
                tokens: Some(1e8),
                ..s
            },
            global_batch: Some(64),
            precision_pinned: false,
            pins: Default::default(),
        },
        constraints: Constraints::default(),
        objective: gpuplan_core::plan::Objective::Cost,
        tunables: Tunables::default(),
    };
    let out = plan(&req, &Catalog::builtin().unwrap()).unwrap();
    assert!(!out.plans.is_empty());
    for p in &out.plans {
        let t = p.train.as_ref().unwrap();
        assert!(t.setup.optimizer_in_backward);
        assert_eq!(t.setup.grad_accum, 1, "{:?}", t.setup.parallel);
    }
}

/// Issue 9, class 3: a LoRA target the model does not have is an error listing the model's own
/// linear names, in PEFT's naming: GPT-2's fused `c_attn` (not `q_proj`), Llama's `q_proj` (not
/// `c_attn`).
#[test]
fn lora_targets_the_model_lacks_are_refused_with_its_names() {
    let refused = |preset: &str, target: &str| {
        let m = find_preset(preset).unwrap().model.clone();
        let lora = LoraConfig {
            targets: vec![target.to_string()],
            ..LoraConfig::default()
        };
        lora.prepared_for(&m, Framework::HuggingFace)
            .map(|l| l.targets)
            .map_err(|e| e.to_string())
    };
    let e = refused("GPT-2", "q_proj").unwrap_err();
    assert!(e.contains("c_attn, c_fc, c_proj"), "{e}");
    let e = refused("Llama-3.1-8B", "c_attn").unwrap_err();
    assert!(e.contains("q_proj") && e.contains("gate_proj"), "{e}");
}
