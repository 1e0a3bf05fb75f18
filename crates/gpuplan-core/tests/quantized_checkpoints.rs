//! Checkpoints stored below 16 bits, read from their configs' `quantization_config`
//! (tests/fixtures/hf-quantized: openai/gpt-oss-20b and gpt-oss-120b `config.json`, MXFP4 MoE
//! experts, the rest bf16). Published figures checked:
//! - OpenAI, "gpt-oss-120b & gpt-oss-20b Model Card" (arXiv 2508.10925) Table 1: checkpoint
//!   sizes 60.8 GiB (120b) and 12.8 GiB (20b); "MoE weights are quantized to MXFP4 format
//!   (4.25 bits)".
//! - HF blog "Welcome GPT OSS" (huggingface.co/blog/welcome-openai-gpt-oss): "The large model
//!   fits on a single H100 GPU, while the small one runs within 16GB of memory".

use gpuplan_core::constants::Tunables;
use gpuplan_core::hardware::find_gpu;
use gpuplan_core::infer::{format_runs, latency, native_format, serving_memory, weight_bytes};
use gpuplan_core::model::{parse_hf_config, ModelSpec};
use gpuplan_core::workload::{Engine, InferenceSetup, WeightFormat};

const OSS_20B: &str = include_str!("fixtures/hf-quantized/gpt-oss-20b.json");
const OSS_120B: &str = include_str!("fixtures/hf-quantized/gpt-oss-120b.json");
const GIB: f64 = (1u64 << 30) as f64;

fn model(name: &str, text: &str) -> ModelSpec {
    parse_hf_config(name, text).expect("config")
}

fn setup(weights: WeightFormat) -> InferenceSetup {
    InferenceSetup {
        weights,
        input_tokens: 1024,
        output_tokens: 1024,
        batch: 1,
        ..InferenceSetup::default()
    }
}

/// The experts at 4.25 bits and everything else at 16 reproduce the model card's checkpoint
/// sizes (the 120b's 0.2% short: gpuplan counts no expert biases, 36·128·8640 = 40M bf16).
#[test]
fn mxfp4_weights_are_the_published_checkpoint_sizes() {
    for (text, published_gib) in [(OSS_120B, 60.8), (OSS_20B, 12.8)] {
        let m = model("oss", text);
        assert_eq!(m.checkpoint, Some(WeightFormat::Mxfp4));
        assert_eq!(native_format(&m), Some(WeightFormat::Mxfp4));
        let gib = weight_bytes(&m, WeightFormat::Mxfp4, 1).0 / GIB;
        let err = (gib / published_gib - 1.0).abs();
        assert!(err < 0.005, "{gib:.2} GiB vs {published_gib} GiB");
        // Sized as 16-bit (the old answer), the 120b is 3.6x its checkpoint.
        let bf16 = weight_bytes(&m, WeightFormat::Bf16, 1).0 / GIB;
        assert!(bf16 > 3.0 * gib, "{bf16} vs {gib}");
    }
}

/// vLLM serves gpt-oss-120b on one H100 80GB with room for KV (HF blog: "fits on a single H100
/// GPU"); the 20b's weights stay under 16 GB. In bf16 the 120b does not load on one H100.
#[test]
fn gpt_oss_120b_fits_one_h100_in_vllm() {
    let tun = Tunables::default();
    let h100 = find_gpu("h100-sxm").expect("gpu");
    let big = model("gpt-oss-120b", OSS_120B);
    let r = serving_memory(&big, &setup(WeightFormat::Mxfp4), h100, &tun).expect("memory");
    // Weights 60.7 GiB; the pool is what vLLM's 0.9 budget leaves after the profile run's
    // sampler peak (1024 sequences × 201,088 logits), ~2.8 GiB: tens of 2K-token requests.
    assert!(
        r.fits && r.kv_pool.0 > GIB && r.max_concurrent_requests >= 8,
        "{r:?}"
    );
    let bf16 = serving_memory(&big, &setup(WeightFormat::Bf16), h100, &tun).expect("memory");
    assert!(!bf16.fits);
    let small = model("gpt-oss-20b", OSS_20B);
    let w = weight_bytes(&small, WeightFormat::Mxfp4, 1).0;
    assert!(w < 16e9, "{w}");
}

/// Decode streams the stored bytes: at batch 1 the MXFP4 step reads the few experts a token
/// touches at 4.25 bits, so it is shorter than the same step at 16 bits.
#[test]
fn decode_reads_mxfp4_bytes() {
    let tun = Tunables::default();
    let h200 = find_gpu("h200").expect("gpu");
    let m = model("gpt-oss-120b", OSS_120B);
    let q = latency(&m, &setup(WeightFormat::Mxfp4), h200, &tun).expect("latency");
    let b = latency(&m, &setup(WeightFormat::Bf16), h200, &tun).expect("latency");
    assert!(q.time_per_token.0 < b.time_per_token.0);
}

/// Which engine runs MXFP4 on which chip (infer::format_runs), and what a chip without it says.
#[test]
fn mxfp4_runs_where_the_engines_have_kernels() {
    let gpu = |id: &str| find_gpu(id).expect("gpu");
    let runs = |e: Engine, id: &str| format_runs(e, WeightFormat::Mxfp4, gpu(id));
    assert!(runs(Engine::Vllm, "a100-80g") && runs(Engine::Vllm, "h100-sxm"));
    assert!(!runs(Engine::Vllm, "v100-sxm2-32g") && !runs(Engine::Vllm, "t4"));
    assert!(!runs(Engine::Vllm, "ascend-910b") && !runs(Engine::Vllm, "mi300x"));
    assert!(runs(Engine::Sglang, "h100-sxm") && !runs(Engine::Sglang, "a100-80g"));
    assert!(runs(Engine::Trtllm, "h200") && !runs(Engine::Trtllm, "a100-80g"));
    assert!(!runs(Engine::Static, "h100-sxm"));
    // The other formats are gated by the chip's dtypes elsewhere, not here.
    assert!(format_runs(
        Engine::Static,
        WeightFormat::Int4 { group: 128 },
        gpu("t4")
    ));
    // Asked for where it does not run: an error naming `weights`.
    let m = model("gpt-oss-20b", OSS_20B);
    let s = InferenceSetup {
        engine: Engine::Sglang,
        ..setup(WeightFormat::Mxfp4)
    };
    let e = serving_memory(&m, &s, gpu("a100-80g"), &Tunables::default()).unwrap_err();
    assert!(e.to_string().contains("weights"), "{e}");
}

/// Training loads the checkpoint dequantized: the note names the stored format; a config
/// without `quantization_config` has none.
#[test]
fn training_says_the_checkpoint_is_dequantized() {
    let m = model("gpt-oss-20b", OSS_20B);
    let note = gpuplan_core::train::dequantized_checkpoint(&m).expect("note");
    let text = note.render(gpuplan_core::i18n::Lang::En);
    assert!(
        text.contains("mxfp4") && text.contains("dequantize=True"),
        "{text}"
    );
    let plain = OSS_20B.replace("\"quantization_config\"", "\"quantization_config_unused\"");
    assert!(gpuplan_core::train::dequantized_checkpoint(&model("p", &plain)).is_none());
}
