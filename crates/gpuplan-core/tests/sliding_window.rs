//! Hybrid sliding/full-attention models served by vLLM: the hybrid KV cache manager (v0.10+)
//! reserves only the window's blocks on sliding layers; earlier releases every token on every
//! layer. Configs: tests/fixtures/hf-windowed (openai/gpt-oss-20b, google/gemma-3-27b-it).

use gpuplan_core::constants::Tunables;
use gpuplan_core::hardware::find_gpu;
use gpuplan_core::infer::{latency, serving_memory};
use gpuplan_core::model::{parse_hf_config, ModelSpec};
use gpuplan_core::workload::InferenceSetup;

const GPT_OSS_20B: &str = include_str!("fixtures/hf-windowed/gpt-oss-20b.json");
const GEMMA3_27B: &str = include_str!("fixtures/hf-windowed/gemma-3-27b-text.json");

fn setup(input: u64, version: Option<&str>) -> InferenceSetup {
    InferenceSetup {
        input_tokens: input,
        output_tokens: 768,
        batch: 8,
        engine_version: version.map(str::to_string),
        ..InferenceSetup::default()
    }
}

/// Blocks and requests of one model at 32,768 tokens on an H100 (vLLM default
/// max_num_batched_tokens 8192 there), hybrid (current vLLM) and not (0.9.2).
fn pools(m: &ModelSpec) -> [(f64, u64, f64, u64, f64); 2] {
    let gpu = find_gpu("h100-sxm").expect("gpu");
    let tun = Tunables::default();
    [None, Some("0.9.2")].map(|v| {
        let r = serving_memory(m, &setup(32_000, v), gpu, &tun).expect("memory");
        let per_block = r.kv_per_token.per_device.0 * r.block_tokens as f64;
        (
            r.kv_pool.0 / per_block,
            r.blocks,
            r.kv_pool.0 / (r.kv_per_token.per_device.0 * 32_768.0),
            r.max_concurrent_requests,
            r.max_concurrency_at_max_len,
        )
    })
}

/// GPT-OSS-20B: 12 of 24 layers slide over 128 keys. Reserved per request (vLLM's "Maximum
/// concurrency"): 12·2048 full blocks + 12·(⌈(127 + 8192)/16⌉ + 1 = 521) = 0.6272 of all-full;
/// held while decoding: 12·2048 + 12·(128/16 + 1) = 0.5022. vLLM 0.9.2: all-full.
#[test]
fn gpt_oss_pool_reserves_the_window_on_sliding_layers() {
    let m = parse_hf_config("gpt-oss-20b", GPT_OSS_20B).expect("config");
    let [hybrid, old] = pools(&m);
    let reserved = (12.0 * 2048.0 + 12.0 * 521.0) / (24.0 * 2048.0);
    // Every layer gets the pool's blocks (vLLM's "GPU KV cache size" as without windows); a
    // request reserves fewer of them on sliding layers (review r11 #2).
    assert_eq!(hybrid.1, hybrid.0.floor() as u64);
    let at_max = hybrid.1 as f64 * 16.0 / (32_768.0 * reserved);
    assert!((hybrid.4 - at_max).abs() < 1e-9, "{} vs {at_max}", hybrid.4);
    assert_eq!(old.1, old.0.floor() as u64);
    let held = (12.0 * 2048.0 + 12.0 * 9.0) / (24.0 * 2048.0);
    assert_eq!(hybrid.3, (hybrid.2 / held).floor() as u64);
    assert_eq!(old.3, old.1 * 16 / 32_768);
}

/// Gemma 3 27B: 52 of 62 layers slide over 1024 keys: reserved (10·2048 + 52·(⌈9215/16⌉ + 1 =
/// 577)) / (62·2048); held (10·2048 + 52·65) / (62·2048) = 0.1880 — 5.3× the requests.
#[test]
fn gemma3_pool_reserves_the_window_on_sliding_layers() {
    let m = parse_hf_config("gemma-3-27b", GEMMA3_27B).expect("config");
    let [hybrid, old] = pools(&m);
    let reserved = (10.0 * 2048.0 + 52.0 * 577.0) / (62.0 * 2048.0);
    assert_eq!(hybrid.1, hybrid.0.floor() as u64);
    let at_max = hybrid.1 as f64 * 16.0 / (32_768.0 * reserved);
    assert!((hybrid.4 - at_max).abs() < 1e-9, "{} vs {at_max}", hybrid.4);
    assert_eq!(old.1, old.0.floor() as u64);
    let held = (10.0 * 2048.0 + 52.0 * 65.0) / (62.0 * 2048.0);
    assert_eq!(hybrid.3, (hybrid.2 / held).floor() as u64);
}

/// Decode loads only the window's keys on sliding layers: GPT-OSS-20B at 32K tokens reads about
/// half the KV bytes of the same model with every layer full, so its step is shorter.
#[test]
fn decode_reads_the_window_on_sliding_layers() {
    let gpu = find_gpu("h100-sxm").expect("gpu");
    let tun = Tunables::default();
    let hybrid = parse_hf_config("oss", GPT_OSS_20B).expect("config");
    let full = parse_hf_config(
        "oss-full",
        &GPT_OSS_20B.replace("\"sliding_window\": 128", "\"sliding_window\": null"),
    )
    .expect("config");
    let s = setup(32_000, None);
    let h = latency(&hybrid, &s, gpu, &tun).expect("latency");
    let f = latency(&full, &s, gpu, &tun).expect("latency");
    assert!(h.time_per_token.0 < f.time_per_token.0);
    assert!(
        h.ttft.0 < f.ttft.0,
        "prefill attention: 12 layers see 128 keys"
    );
}

/// A request shorter than the window holds all its tokens on a sliding layer, as on a full one:
/// the hybrid manager never gives it fewer concurrent requests than the all-full pool (review
/// r11 #1: one extra block per sliding layer put Gemma 3 at 512 + 256 tokens below vLLM 0.9.2).
#[test]
fn a_request_shorter_than_the_window_holds_what_it_would_without_it() {
    let m = parse_hf_config("gemma-3-27b", GEMMA3_27B).expect("config");
    let gpu = find_gpu("h100-sxm").expect("gpu");
    let tun = Tunables::default();
    let short = |v: Option<&str>| {
        let s = InferenceSetup {
            output_tokens: 256,
            ..setup(512, v)
        };
        serving_memory(&m, &s, gpu, &tun).expect("memory")
    };
    let (hybrid, old) = (short(None), short(Some("0.9.2")));
    assert_eq!(hybrid.blocks, old.blocks);
    assert_eq!(hybrid.max_concurrent_requests, old.max_concurrent_requests);
}
