//! Audit r6 #1: Whisper's encoder runs `max_source_positions` = 1500 positions per sample (30 s
//! of audio: 3000 mel frames halved by the stride-2 conv) whatever the decoder's sequence length;
//! T5-style encoders keep reading the sequence length.

use gpuplan_core::constants::Tunables;
use gpuplan_core::hardware::{find_gpu, ClusterSpec, InterLink};
use gpuplan_core::infer::{decode_weight_share, latency, serving_memory};
use gpuplan_core::model::{find_preset, param_breakdown, Architecture, ModelSpec};
use gpuplan_core::train::{training_flops_per_token, training_memory, training_step};
use gpuplan_core::units::Bandwidth;
use gpuplan_core::workload::{InferenceSetup, KvDtype, TrainingSetup, WeightFormat};

fn whisper() -> ModelSpec {
    find_preset("Whisper-large-v3").unwrap().model.clone()
}

/// The same model with its encoder at the decoder's length: what every estimator did before.
fn encoder_at_seq_len(m: &ModelSpec) -> ModelSpec {
    let mut m = m.clone();
    if let Architecture::Transformer(t) = &mut m.architecture {
        t.encoder_positions = None;
    }
    m
}

fn with_encoder(m: &ModelSpec, positions: u64) -> ModelSpec {
    let mut m = m.clone();
    if let Architecture::Transformer(t) = &mut m.architecture {
        t.encoder_positions = Some(positions);
    }
    m
}

fn cluster() -> ClusterSpec {
    ClusterSpec::new(
        find_gpu("a100-80g").unwrap(),
        1,
        1,
        InterLink::Rdma,
        Bandwidth::from_gbit_per_s(100.0),
    )
    .unwrap()
}

fn setup(seq_len: u64) -> TrainingSetup {
    TrainingSetup {
        seq_len,
        ..Default::default()
    }
}

#[test]
fn whisper_reads_its_encoder_length_from_the_config() {
    let m = whisper();
    let t = m.transformer().unwrap();
    assert_eq!(t.encoder_positions, Some(1500));
    assert_eq!(t.encoder_len(448), 1500);
    assert_eq!(t.linear_len("encoder", "q_proj", 448), 1500);
    assert_eq!(t.linear_len("decoder", "cross_k_proj", 448), 1500);
    assert_eq!(t.linear_len("decoder", "cross_q_proj", 448), 448);
    assert_eq!(t.linear_len("decoder", "fc1", 448), 448);
    let t5 = find_preset("T5-base").unwrap().model.clone();
    let t5 = t5.transformer().unwrap();
    assert_eq!(t5.encoder_positions, None);
    assert_eq!(t5.linear_len("encoder", "q_proj", 512), 512);
    assert_eq!(t5.cross_kv_positions(), 0);
}

/// Model FLOPs per sample at decoder length 448, by hand from the config (d 1280, 32 + 32
/// layers, ffn 5120, vocab 51866, encoder 1500): forward = 2 × (linear weights × the positions
/// they run over) + 4·d × (query-key pairs) over the attention calls; model = 3 × forward.
#[test]
fn whisper_training_flops_per_sample_by_hand() {
    let (d, l, f, v) = (1280.0_f64, 32.0_f64, 5120.0_f64, 51866.0_f64);
    let (e, s) = (1500.0_f64, 448.0_f64);
    let self_attn = 4.0 * d * d;
    let mlp = 2.0 * d * f;
    let cross_qo = 2.0 * d * d;
    let cross_kv = 2.0 * d * d;
    let linears = l * (self_attn + mlp) * e // encoder
        + l * (self_attn + cross_qo + mlp) * s // decoder over its tokens
        + l * cross_kv * e // cross-attention K/V over the encoder output
        + v * d * s; // logits
                     // Encoder and cross-attention bidirectional; the decoder's self-attention causal, s²/2 pairs.
    let attention = 4.0 * d * (l * e * e + l * s * s / 2.0 + l * s * e);
    let want = 3.0 * (2.0 * linears + attention);
    let m = whisper();
    let got = training_flops_per_token(&m, &setup(448)).unwrap().model.0 * s;
    assert!((got / want - 1.0).abs() < 1e-12, "{got:e} vs {want:e}");
    assert!((want / 1.02e13 - 1.0).abs() < 0.01, "{want:e}");
    // The encoder at the decoder's 448 positions (no cross-attention) counted 6·N·448 ≈ 4.3e12.
    let before = 6.0 * 1.5435e9 * s;
    assert!(want / before > 2.2, "{}", want / before);
}

/// The encoder's activations scale with its positions: at 448 decoder tokens, 1500 encoder
/// positions save more than 750, which save more than the encoder at 448.
#[test]
fn whisper_activations_grow_with_the_encoder_length() {
    let m = whisper();
    let (c, tun) = (cluster(), Tunables::default());
    let saved = |m: &ModelSpec| {
        training_memory(m, &setup(448), &c, &tun)
            .unwrap()
            .saved_after_forward
            .0
    };
    let (full, half, short) = (
        saved(&m),
        saved(&with_encoder(&m, 750)),
        saved(&encoder_at_seq_len(&m)),
    );
    assert!(full > half && half > short, "{full} {half} {short}");
    // 32 layers at 1500 + 32 at 448 against 64 at 448: about 2.2× the layers' tokens, plus the
    // cross-attention tensors that were not counted.
    assert!(full / short > 2.0 && full / short < 3.0, "{}", full / short);
}

/// `estimate -m Whisper-large-v3 --task full --gpu a100-80g` (micro-batch 1, seq 448): the step
/// took 54.4 ms with the encoder at 448; it runs 1500 positions, so about 1.8× that (99.7 ms).
#[test]
fn whisper_training_step_is_about_twice_the_old_estimate() {
    let m = whisper();
    let (c, tun) = (cluster(), Tunables::default());
    let step = |m: &ModelSpec| training_step(m, &setup(448), &c, &tun).unwrap().compute.0;
    let ratio = step(&m) / step(&encoder_at_seq_len(&m));
    assert!(ratio > 1.6 && ratio < 2.2, "{ratio}");
}

/// Serving: the prefill runs the encoder over 1500 positions, each request caches the decoder's
/// tokens plus 1500 positions of cross-attention K/V, and a decode step runs the decoder only.
#[test]
fn whisper_serving_caches_cross_attention_per_request() {
    let m = whisper();
    let gpu = find_gpu("a100-80g").unwrap();
    let tun = Tunables::default();
    let s = InferenceSetup {
        batch: 16,
        weights: WeightFormat::Fp16,
        kv_dtype: KvDtype::Fp16,
        input_tokens: 48,
        output_tokens: 200,
        ..InferenceSetup::default()
    };
    let before = encoder_at_seq_len(&m);
    let (mem, old) = (
        serving_memory(&m, &s, gpu, &tun).unwrap(),
        serving_memory(&before, &s, gpu, &tun).unwrap(),
    );
    assert_eq!(mem.kv_tokens, old.kv_tokens);
    assert_eq!(
        mem.max_concurrent_requests,
        mem.kv_tokens / (48 + 200 + 1500)
    );
    let (new, was) = (
        latency(&m, &s, gpu, &tun).unwrap(),
        latency(&before, &s, gpu, &tun).unwrap(),
    );
    // The prefill encodes 1500 positions instead of 48 prompt tokens.
    assert!(
        new.ttft.0 > 2.0 * was.ttft.0,
        "{} {}",
        new.ttft.0,
        was.ttft.0
    );
    // A decode step reads each request's 1500 cross-attention positions beside its ~148 tokens.
    assert!(new.time_per_token.0 > was.time_per_token.0);
}

/// A decode step reads the decoder's weights only: Whisper-large-v3's encoder layers (32 ×
/// (4d² + 2df) linears + 32 × 10,240 biases + 32 × 2 LayerNorms), its cross-attention K/V
/// (32 × 2d²) and the conv stem and position tables (128·d·3 + d, d·d·3 + d, 1500·d, 448·d) run
/// in prefill: 742,397,440 of 1,543,490,560 parameters.
#[test]
fn whisper_decode_reads_the_decoder_weights_only() {
    let m = whisper();
    let (d, f) = (1280_u64, 5120_u64);
    let encoder = 32 * (4 * d * d + 2 * d * f) + 32 * (3 * d + f + d + 4 * d);
    let cross = 32 * 2 * d * d;
    let stem = (128 * d * 3 + d) + (d * d * 3 + d) + 1500 * d + 448 * d;
    let b = param_breakdown(&m);
    assert_eq!(b.total, 1_543_490_560);
    let want = 1.0 - (encoder + cross + stem) as f64 / b.total as f64;
    let got = decode_weight_share(&b, m.transformer().unwrap());
    assert!((got - want).abs() < 1e-12, "{got} vs {want}");
    let llama = find_preset("Llama-3.1-8B").unwrap().model.clone();
    let lb = param_breakdown(&llama);
    assert_eq!(decode_weight_share(&lb, llama.transformer().unwrap()), 1.0);
}
