//! Hand-checked values of the formulas (docs/methodology.md gives each derivation).

use gpuplan_core::constants::Tunables;
use gpuplan_core::hardware::{find_gpu, ClusterSpec, InterLink};
use gpuplan_core::infer::{kv_per_token, serving_memory};
use gpuplan_core::model::{find_preset, parse_hf_config, Architecture, ModelSpec, OpaqueSpec};
use gpuplan_core::train::{layer_activation, state_bytes, training_memory, training_step};
use gpuplan_core::units::{Bandwidth, Bytes};
use gpuplan_core::workload::*;

const MIB: f64 = 1_048_576.0;

fn gpt3() -> ModelSpec {
    parse_hf_config(
        "GPT-3 175B",
        r#"{"model_type":"gpt2","n_embd":12288,"n_layer":96,"n_head":96,"vocab_size":51200,
            "n_positions":2048,"attn_pdrop":0.1,"resid_pdrop":0.1}"#,
    )
    .unwrap()
}

fn cluster(gpu: &str, per_node: u64, nodes: u64) -> ClusterSpec {
    ClusterSpec::new(
        find_gpu(gpu).unwrap(),
        per_node,
        nodes,
        InterLink::Rdma,
        Bandwidth::from_gbit_per_s(800.0),
    )
    .unwrap()
}

fn opaque(params: f64) -> ModelSpec {
    ModelSpec {
        name: "synthetic".into(),
        architecture: Architecture::Opaque(OpaqueSpec {
            model_type: "synthetic".into(),
            params: params as u64,
            forward_flops_per_sample: 1e9,
            activation_bytes_per_sample: Some(0.0),
            activation_basis: None,
            reference_input: "n/a".into(),
            sample_bytes: None,
            denoising: None,
        }),
        params_published: None,
        sources: vec![],
        notes: None,
        warnings: vec![],
        checkpoint: None,
        checkpoint_unread: None,
        checkpoint_skipped: Vec::new(),
        checkpoint_awq: false,
    }
}

#[test]
fn mixed_precision_adam_is_16_bytes_per_param() {
    let sb = state_bytes(Precision::AmpBf16, Optimizer::AdamW, Framework::HuggingFace);
    assert_eq!(sb.weights + sb.grads + sb.master + sb.optimizer, 16.0);
    let mg = state_bytes(Precision::AmpBf16, Optimizer::AdamW, Framework::Megatron);
    assert_eq!(mg.weights + mg.grads + mg.master + mg.optimizer, 18.0);
    // Pure bf16: optimizer states follow the parameter dtype.
    let pb = state_bytes(
        Precision::PureBf16,
        Optimizer::AdamW,
        Framework::HuggingFace,
    );
    assert_eq!(pb.weights + pb.grads + pb.master + pb.optimizer, 8.0);
    let a8 = state_bytes(
        Precision::AmpBf16,
        Optimizer::AdamW8bit,
        Framework::HuggingFace,
    );
    assert_eq!(a8.optimizer, 2.0);
}

/// ZeRO paper Fig. 1: Ψ = 7.5B, N_d = 64 → 120 / 31.4 / 16.6 / 1.9 GB of model states.
#[test]
fn zero_stages_reproduce_the_zero_paper_figure() {
    let m = opaque(7.5e9);
    let c = cluster("a100-80g", 8, 8);
    let mut setup = TrainingSetup {
        task: TrainTask::Pretrain,
        ..Default::default()
    };
    for (stage, want_gb) in [(0u8, 120.0), (1, 31.4), (2, 16.6), (3, 1.9)] {
        setup.parallel.zero = stage;
        let mem = training_memory(&m, &setup, &c, &Tunables::default()).unwrap();
        let states: f64 = mem
            .items
            .iter()
            .filter(|i| {
                ["weights", "gradients", "optimizer states + master weights"].contains(&i.name)
            })
            .map(|i| i.bytes.0)
            .sum();
        assert!(
            (states / 1e9 - want_gb).abs() < 0.06 * want_gb,
            "ZeRO-{stage}: {} GB vs {want_gb}",
            states / 1e9
        );
    }
}

/// Korthikanti et al. 2022, Table 2, checked in estimation.md for GPT-3 175B at s = 2048, b = 1, t = 8.
#[test]
fn korthikanti_activation_table_for_gpt3() {
    let m = gpt3();
    let t = m.transformer().unwrap();
    let mut setup = TrainingSetup {
        framework: Framework::Megatron,
        attention: AttentionImpl::Eager,
        seq_len: 2048,
        ..Default::default()
    };
    let sbh = 2048.0 * 12288.0;
    let per_layer = |setup: &TrainingSetup, tp: f64, sp: bool| {
        let la = layer_activation(t, 2048, setup);
        let spd = if sp { tp } else { 1.0 };
        2048.0 * (la.replicated / spd + la.sharded / tp + la.scores / tp) / MIB
    };
    // 34·sbh + 5·a·s²·b with no parallelism.
    let la = layer_activation(t, 2048, &setup);
    assert_eq!(la.replicated + la.sharded, 34.0 * 12288.0);
    assert_eq!(la.scores, 5.0 * 96.0 * 2048.0);
    for (tp, sp, want) in [
        (1.0, false, 2736.0),
        (8.0, false, 552.0),
        (8.0, true, 342.0),
    ] {
        let got = per_layer(&setup, tp, sp);
        assert!(
            (got - want).abs() / want < 0.01,
            "t={tp} sp={sp}: {got} MiB vs {want}"
        );
    }
    setup.recompute = Recompute::Selective;
    for (tp, sp, want) in [(8.0, false, 312.0), (8.0, true, 102.0)] {
        let got = per_layer(&setup, tp, sp);
        assert!(
            (got - want).abs() / want < 0.01,
            "selective t={tp} sp={sp}: {got} MiB vs {want}"
        );
    }
    // Full recompute stores the layer input: 2·s·b·h = 48 MiB.
    assert_eq!(2.0 * sbh / MIB, 48.0);
}

#[test]
fn kv_bytes_per_token() {
    let l = find_preset("Llama-3.1-8B").unwrap();
    let t = l.model.transformer().unwrap();
    assert_eq!(kv_per_token(t, 2.0, 1).total.0, 131_072.0);
    // FP8 KV: 64 KiB/token (TRT-LLM log in estimation.md §4).
    assert_eq!(kv_per_token(t, 1.0, 1).total.0, 65_536.0);
    // 8 KV heads over TP 16: each rank still holds one head.
    assert_eq!(kv_per_token(t, 2.0, 16).heads_per_device, 1);
    // 128k tokens = 15.62 GiB (HF blog, k = 1000).
    assert!((Bytes(131_072.0 * 128_000.0).gib() - 15.62).abs() < 0.01);
    // MLA: (512 + 64) values per layer, 61 layers.
    let d = find_preset("DeepSeek-V3").unwrap();
    let kv = kv_per_token(d.model.transformer().unwrap(), 2.0, 8);
    assert_eq!(kv.per_device.0, 61.0 * 576.0 * 2.0);
}

/// Case vllm-llama31-8b-rtx3090-mml20000: 1952 blocks; mml29000: 1478 blocks.
#[test]
fn vllm_kv_pool_on_a_3090() {
    let m = &find_preset("Llama-3.1-8B").unwrap().model;
    let gpu = find_gpu("rtx-3090").unwrap();
    for (mml, want) in [(20_000u64, 1952.0), (29_000, 1478.0)] {
        // vLLM V0 without chunked prefill: the profile run is max_model_len tokens; the log is
        // v0.6.4's, which charges all memory outside torch (the CUDA context included).
        let s = InferenceSetup {
            max_model_len: Some(mml),
            max_num_batched_tokens: Some(mml),
            engine_version: Some("0.6.4".into()),
            ..Default::default()
        };
        let r = serving_memory(m, &s, gpu, &Tunables::default()).unwrap();
        let err = (r.blocks as f64 - want).abs() / want;
        assert!(err < 0.05, "mml {mml}: {} blocks vs {want}", r.blocks);
    }
}

#[test]
fn parallelism_errors_name_the_field() {
    let m = &find_preset("Qwen2.5-7B").unwrap().model;
    let c = cluster("a100-80g", 8, 1);
    let mut s = TrainingSetup::default();
    s.parallel.tp = 8; // 28 heads
    let e = training_memory(m, &s, &c, &Tunables::default())
        .unwrap_err()
        .to_string();
    assert!(e.contains("parallel.tp") && e.contains("28"), "{e}");
    s.parallel.tp = 1;
    s.parallel.pp = 3; // 28 layers
    let e = training_memory(m, &s, &c, &Tunables::default())
        .unwrap_err()
        .to_string();
    assert!(e.contains("parallel.pp"), "{e}");
    s.parallel.pp = 1;
    s.seq_len = 0;
    let e = training_memory(m, &s, &c, &Tunables::default())
        .unwrap_err()
        .to_string();
    assert!(e.contains("seq_len"), "{e}");
}

#[test]
fn full_finetune_of_an_8b_model_does_not_fit_one_80gb_gpu() {
    let m = &find_preset("Llama-3.1-8B").unwrap().model;
    let c = cluster("a100-80g", 1, 1);
    let s = TrainingSetup {
        seq_len: 4096,
        recompute: Recompute::Full,
        ..Default::default()
    };
    let mem = training_memory(m, &s, &c, &Tunables::default()).unwrap();
    assert!(mem.device_total.gib() > 120.0, "{}", mem.device_total);
    // ZeRO-3 over 8 GPUs brings the model states under 20 GiB per GPU.
    let c8 = cluster("a100-80g", 8, 1);
    let mut s3 = s.clone();
    s3.parallel.zero = 3;
    let mem8 = training_memory(m, &s3, &c8, &Tunables::default()).unwrap();
    assert!(mem8.device_total.gib() < 40.0, "{}", mem8.device_total);
}

#[test]
fn rdma_beats_tcp_for_multi_node_data_parallel() {
    let m = &find_preset("Llama-2-13B").unwrap().model;
    let s = TrainingSetup {
        task: TrainTask::Pretrain,
        micro_batch: 1,
        seq_len: 4096,
        grad_accum: 4,
        ..Default::default()
    };
    let mut s = s;
    s.parallel.zero = 1;
    let fast = training_step(m, &s, &cluster("a100-80g", 8, 4), &Tunables::default()).unwrap();
    let slow_c = ClusterSpec::new(
        find_gpu("a100-80g").unwrap(),
        8,
        4,
        InterLink::Tcp,
        Bandwidth::from_gbit_per_s(32.0),
    )
    .unwrap();
    let slow = training_step(m, &s, &slow_c, &Tunables::default()).unwrap();
    assert!(
        slow.step.0 > 1.5 * fast.step.0,
        "{} vs {}",
        slow.step,
        fast.step
    );
    assert_eq!(slow.bottleneck, "dp-communication");
}

/// A Mixtral-shaped config of `experts` routed experts, `top_k` per token.
fn tiny_moe(experts: u64, top_k: u64) -> ModelSpec {
    parse_hf_config(
        "tiny-moe",
        &format!(
            r#"{{"model_type":"mixtral","hidden_size":512,"num_hidden_layers":2,
                "num_attention_heads":8,"num_key_value_heads":8,"intermediate_size":1024,
                "vocab_size":1000,"max_position_embeddings":2048,
                "num_local_experts":{experts},"num_experts_per_tok":{top_k}}}"#
        ),
    )
    .unwrap()
}

/// LoRA on routed experts saves each expert adapter's input only for the tokens routed to it
/// (HF's looped experts run each expert on its tokens): the bytes follow top-k, not the expert
/// count. Each adapted expert linear counted once per expert made 128-expert LoRA 16x the full
/// fine-tune's activations (Qwen3-235B-A22B, 16 H100s ZeRO-3: 1,194 GiB against 69 GiB).
#[test]
fn moe_lora_activations_follow_top_k_not_the_expert_count() {
    let tun = Tunables::default();
    let c = cluster("H100", 1, 1);
    let saved = |m: &ModelSpec, targets: &[&str]| {
        let mut s = TrainingSetup {
            task: TrainTask::Lora,
            seq_len: 1024,
            ..TrainingSetup::default()
        };
        s.lora.targets = targets.iter().map(|t| t.to_string()).collect();
        training_memory(m, &s, &c, &tun)
            .unwrap()
            .saved_after_forward
            .0
    };
    // The expert adapters' share: expert targets less an attention-only target (same router,
    // same attention, same first-layer exclusions).
    let experts = |m: &ModelSpec| {
        saved(m, &["q_proj", "gate_proj", "up_proj", "down_proj"]) - saved(m, &["q_proj"])
    };
    let e8 = experts(&tiny_moe(8, 2));
    assert!(e8 > 0.0);
    assert_eq!(e8, experts(&tiny_moe(16, 2)));
    // Top-1 routes each token through one expert: half the top-2 bytes.
    assert_eq!(e8, 2.0 * experts(&tiny_moe(8, 1)));
}

/// llm.c's fused classifier (`fused_classifier`) writes the 16-bit logits gradient over the
/// logits (llmc/fused_classifier.cuh @f1e2ace6 l.112): the loss keeps 2 B per token ×
/// vocabulary entry in bf16, where Megatron's fused loss keeps 4·s·b·(h + V) bytes of fp32
/// buffers; nothing else in the step's memory moves, and the peak drops by at most the
/// difference.
#[test]
fn a_fused_classifier_keeps_only_the_16_bit_logits() {
    let m = parse_hf_config(
        "GPT-2 124M (llm.c)",
        r#"{"model_type":"gpt2","n_embd":768,"n_layer":12,"n_head":12,"vocab_size":50304,
            "n_positions":1024}"#,
    )
    .unwrap();
    let c = cluster("a100-80g", 1, 1);
    let mut s = TrainingSetup {
        task: TrainTask::Pretrain,
        precision: Precision::AmpBf16,
        framework: Framework::Megatron,
        attention: AttentionImpl::Flash,
        micro_batch: 8,
        seq_len: 1024,
        ..TrainingSetup::default()
    };
    let tun = Tunables::default();
    let loss = |mem: &gpuplan_core::train::TrainingMemory| {
        mem.items
            .iter()
            .find(|i| i.name == "logits + loss")
            .map(|i| i.bytes.0)
            .unwrap()
    };
    let megatron = training_memory(&m, &s, &c, &tun).unwrap();
    s.fused_classifier = true;
    let fused = training_memory(&m, &s, &c, &tun).unwrap();
    let tokens = 8.0 * 1024.0;
    assert!((loss(&megatron) - 4.0 * tokens * (768.0 + 50_304.0)).abs() < 1.0);
    assert!((loss(&fused) - 2.0 * tokens * 50_304.0).abs() < 1.0);
    // The loss phase holds the bf16 logits (their gradient in place), not fp32 buffers.
    let loss_phase = |mem: &gpuplan_core::train::TrainingMemory| {
        mem.timeline
            .phases
            .iter()
            .find(|p| p.phase == "loss")
            .map(|p| p.components.iter().map(|(n, _)| *n).collect::<Vec<_>>())
            .unwrap()
    };
    assert!(loss_phase(&fused).contains(&"loss buffers (bf16)"));
    assert!(loss_phase(&megatron).contains(&"loss buffers (fp32)"));
    let drop = megatron.peak_allocated.0 - fused.peak_allocated.0;
    assert!(
        drop > 0.0 && drop <= loss(&megatron) - loss(&fused) + 1.0,
        "{drop}"
    );
}
