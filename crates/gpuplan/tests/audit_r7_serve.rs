//! Audit r7 (notes/audit-r7.md) findings on serving plans. Each test runs the CLI as a user does
//! and asserts the property.

mod common;
use common::plans;
use serde_json::Value;
use std::process::Output;

fn run(args: &[&str]) -> Output {
    common::run("audit-r7", args)
}

fn plan_json(args: &[&str]) -> Value {
    common::plan_json("audit-r7", args)
}

/// #1: `--concurrency 16` on 2 replicas of 52 slots was planned as a Poisson queue at 96% of
/// capacity, "1.49 s waiting for one of the 52 batch slots". A concurrency is a closed load:
/// each replica holds C × peak / replicas requests, none waits for a slot while they fit, and the
/// rate follows from them (Little's law), far below the open-load capacity.
#[test]
fn a_concurrency_is_a_closed_load_without_invented_slot_waits() {
    for (model, c, extra) in [
        ("Qwen2.5-7B", 16u64, vec!["--provider", "alibaba"]),
        (
            "DeepSeek-R1-Distill-Qwen-32B",
            32,
            vec!["--output-tokens", "4000"],
        ),
    ] {
        let cs = c.to_string();
        let mut args = vec!["-m", model, "--task", "inference", "--concurrency", &cs];
        args.extend(extra);
        let v = plan_json(&args);
        assert!(!plans(&v).is_empty(), "{model}");
        for p in plans(&v) {
            let s = &p["serve"];
            let (replicas, slots) = (
                s["replicas"].as_f64().unwrap(),
                s["batch_per_replica"].as_f64().unwrap(),
            );
            let l = &s["load"];
            let in_flight = l["in_flight"].as_f64().unwrap_or_else(|| panic!("{l}"));
            assert!((in_flight - c as f64 * 1.25 / replicas).abs() < 1e-9, "{s}");
            assert!(in_flight <= slots, "{s}");
            assert_eq!(l["ttft_slot_wait"].as_f64(), Some(0.0), "{model}: {l}");
            assert_eq!(l["ttft_queue"].as_f64(), Some(0.0), "{model}: {l}");
            // Little's law: rate × time in the system = requests in flight.
            let (rate, ttft, tpot) = (
                l["rate_rps"].as_f64().unwrap(),
                l["ttft"].as_f64().unwrap(),
                l["time_per_token"].as_f64().unwrap(),
            );
            let out: f64 = if model == "Qwen2.5-7B" { 300.0 } else { 4000.0 };
            let little = rate * (ttft + out * tpot);
            assert!(
                (little - in_flight).abs() < 0.02 * in_flight,
                "{little} vs {in_flight}: {l}"
            );
        }
    }
}

fn model_flops(model: &str) -> (f64, Option<(f64, f64)>) {
    let o = run(&["models", "show", model, "--format", "json"]);
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    let v: Value = serde_json::from_slice(&o.stdout).unwrap();
    let a = &v["architecture"];
    let d = a["denoising"].as_object().map(|d| {
        (
            d["default_steps"].as_f64().unwrap(),
            d["samples_per_step"].as_f64().unwrap(),
        )
    });
    (a["forward_flops_per_sample"].as_f64().unwrap(), d)
}

/// The chip's peak for the dtype the plan's weights compute in: FP8 (W8A8) at the fp8 peak,
/// everything else (16-bit, weight-only int8/int4 = W8A16/W4A16) at the 16-bit one.
fn compute_peak(p: &Value) -> f64 {
    let t = &p["gpu"]["tflops"];
    // A chip without bf16 lists it as 0 or null: the 16-bit peak is the larger of the two.
    let half = ["bf16", "fp16"]
        .iter()
        .filter_map(|d| t[*d].as_f64())
        .fold(0.0, f64::max);
    assert!(half > 0.0, "{t}");
    let w = p["serve"]["weights"]["format"].as_str().unwrap();
    1e12 * match w {
        "fp8" => t["fp8"].as_f64().unwrap(),
        _ => half,
    }
}

/// #2: an SDXL "request" was one UNet forward (80 ms on a T4, 84.5 TFLOP/s on a 65-TFLOP/s
/// card: weight-only int8 took the int8 peak). A request is an image: steps × 2 (classifier-free
/// guidance) UNet forwards, `--steps` sets the steps, and no plan computes faster than its chip's
/// peak for the dtype it computes in.
#[test]
fn an_image_request_runs_every_denoising_step_within_the_chips_peak() {
    let (fwd, d) = model_flops("SDXL-UNet");
    let (steps, samples) = d.expect("SDXL-UNet has a denoising loop");
    assert_eq!((steps, samples), (50.0, 2.0));
    for (args, per_request) in [
        (vec![], fwd * 100.0),
        (vec!["--steps", "25"], fwd * 50.0),
        (vec!["--weights", "int8"], fwd * 100.0),
    ] {
        let mut all = vec!["-m", "SDXL-UNet", "--task", "inference", "--rate", "2"];
        all.extend(args.iter().copied());
        let v = plan_json(&all);
        assert!(!plans(&v).is_empty(), "{args:?}");
        for p in plans(&v) {
            let s = &p["serve"];
            let t = s["latency"]["ttft"].as_f64().unwrap();
            let b = s["batch_per_replica"].as_f64().unwrap();
            let rate = per_request * b / t;
            let peak = compute_peak(p);
            assert!(
                rate <= peak * (1.0 + 1e-9),
                "{args:?}: {rate:e} > {peak:e}: {s}"
            );
            assert!(s["latency"]["peak"].as_f64().unwrap() <= peak, "{s}");
            assert!(p["caveats"].to_string().contains("denoising steps"), "{p}");
        }
    }
    // Models answered by one forward pass keep one forward per request, within the peak too.
    let (fwd, _) = model_flops("ResNet-50");
    let v = plan_json(&["-m", "ResNet-50", "--task", "inference", "--rate", "100"]);
    for p in plans(&v) {
        let s = &p["serve"];
        let t = s["latency"]["ttft"].as_f64().unwrap();
        let rate = fwd * s["batch_per_replica"].as_f64().unwrap() / t;
        assert!(
            rate <= compute_peak(p) * (1.0 + 1e-9),
            "ResNet-50: {rate:e}: {s}"
        );
    }
    let o = run(&[
        "plan",
        "-m",
        "Qwen2.5-7B",
        "--task",
        "inference",
        "--steps",
        "30",
    ]);
    assert_eq!(o.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&o.stderr).contains("--steps"));
}

/// #6: the exported HPA targeted `vllm:num_requests_running` at the batch cap (max-num-seqs 57):
/// running requests never exceed it, so the HPA could only scale in. Now it scales on the queue
/// (`vllm:num_requests_waiting`, as the plan's advice says) and on running requests below the cap.
#[test]
fn the_exported_hpa_can_scale_out() {
    let dir = common::scratch().join(format!("gpuplan-audit-r7-hpa-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    let d = dir.to_string_lossy().to_string();
    let o = run(&[
        "plan",
        "-m",
        "Qwen2.5-7B",
        "--task",
        "inference",
        "--rate",
        "10",
        "--ttft",
        "1",
        "--tpot",
        "0.05",
        "--provider",
        "alibaba",
        "--export",
        &d,
    ]);
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    let yaml = std::fs::read_to_string(dir.join("k8s/deployment.yaml")).unwrap();
    let sh = std::fs::read_to_string(dir.join("serve-vllm.sh")).unwrap();
    let cap: u64 = sh
        .split("--max-num-seqs ")
        .nth(1)
        .and_then(|x| x.split_whitespace().next())
        .and_then(|x| x.parse().ok())
        .unwrap_or_else(|| panic!("{sh}"));
    let hpa = &yaml[yaml.find("HorizontalPodAutoscaler").expect("an HPA")..];
    assert!(hpa.contains("vllm:num_requests_waiting"), "{hpa}");
    // Every AverageValue target of the running metric is below the cap.
    for part in hpa.split("name: vllm:num_requests_running").skip(1) {
        let v: u64 = part
            .split("averageValue: '")
            .nth(1)
            .and_then(|x| x.split('\'').next())
            .and_then(|x| x.parse().ok())
            .unwrap_or_else(|| panic!("{part}"));
        assert!(v < cap, "running target {v} at the cap {cap}: {hpa}");
    }
    let _ = std::fs::remove_dir_all(&dir);
}

/// #25: a serving plan whose replica prefills 55% of each second (compute-bound) was labelled
/// "memory BW" from its decode step alone. The label now follows the larger share of the time.
#[test]
fn the_serving_bottleneck_follows_the_larger_share_of_time() {
    let args = [
        "plan",
        "-m",
        "Qwen2.5-72B",
        "--task",
        "inference",
        "--rate",
        "3",
        "--ttft",
        "2",
        "--tpot",
        "0.08",
        "--provider",
        "alibaba",
        "--top",
        "1",
    ];
    let o = run(&args);
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    let out = String::from_utf8_lossy(&o.stdout).to_string();
    let flat = out.split_whitespace().collect::<Vec<_>>().join(" ");
    let share: f64 = flat
        .split("% of each second prefilling")
        .next()
        .and_then(|x| x.rsplit(' ').next())
        .and_then(|x| x.parse().ok())
        .unwrap_or_else(|| panic!("{out}"));
    let row = out
        .lines()
        .find(|l| l.contains("│1"))
        .unwrap_or_else(|| panic!("{out}"));
    let want = if share > 50.0 { "compute" } else { "memory BW" };
    assert!(row.contains(want), "{share}% prefilling, row {row}");
}

/// #8: `plan -m Whisper-large-v3 --task inference --rate 20` was planned as a chat LLM: "default
/// prompt shortened to 148 input tokens", "148+300 tokens", "¥1.36 per million tokens", "vLLM
/// chunked prefill: a prompt rides on 1 decode step" and the training note on decoder tokens per
/// sample. A request is one 30-s audio window: the encoder's 1500 positions, a 4-token decoder
/// prompt, at most n_text_ctx / 2 = 224 transcript tokens; priced per audio hour and 1k requests.
#[test]
fn whisper_serving_is_planned_as_speech_recognition() {
    let v = plan_json(&[
        "-m",
        "Whisper-large-v3",
        "--task",
        "inference",
        "--rate",
        "20",
    ]);
    assert_eq!(v["request"]["job"]["input_tokens"], 4, "{}", v["request"]);
    assert_eq!(
        v["request"]["job"]["output_tokens"], 224,
        "{}",
        v["request"]
    );
    for p in plans(&v) {
        let s = &p["serve"];
        assert_eq!(s["asr"]["audio_seconds"], 30.0, "{s}");
        assert_eq!(s["asr"]["encoder_positions"], 1500, "{s}");
        assert!(s["cost_per_million_tokens"].is_null(), "{s}");
        // One hour of audio is 3600 / 30 = 120 requests of 30 s (both null without a price).
        match (
            s["cost_per_audio_hour"].as_f64(),
            s["cost_per_1k_requests"].as_f64(),
        ) {
            (Some(h), Some(k)) => assert!((h - k * 0.120).abs() <= 1e-9 * h.max(1.0), "{h} {k}"),
            (h, k) => assert!(h.is_none() && k.is_none(), "{s}"),
        }
        // Every running request holds its 4 + 224 self-attention and 1500 cross-attention KV.
        let batch = s["batch_per_replica"].as_u64().unwrap();
        assert!(
            batch * (4 + 224 + 1500) <= s["memory"]["kv_tokens"].as_u64().unwrap(),
            "{s}"
        );
    }
    let args = [
        "plan",
        "-m",
        "Whisper-large-v3",
        "--task",
        "inference",
        "--rate",
        "20",
    ];
    let o = run(&[&args[..], &["--top", "1"]].concat());
    let (out, err) = (
        String::from_utf8_lossy(&o.stdout).replace("\n  ", " "),
        String::from_utf8_lossy(&o.stderr).replace("\n  ", " "),
    );
    assert!(
        out.contains("30 s of audio per request (4+224 decoder tokens)"),
        "{out}"
    );
    assert!(out.contains("per hour of audio"), "{out}");
    assert!(out.contains("audio encoder over 1500 positions"), "{out}");
    for bad in ["per million tokens", "chunked prefill", "148"] {
        assert!(!out.contains(bad), "{bad}: {out}");
    }
    assert!(
        err.contains("30 s of audio (the encoder's 1500 positions)"),
        "{err}"
    );
    for bad in ["shortened", "count decoder tokens"] {
        assert!(!err.contains(bad), "{bad}: {err}");
    }
    let o = run(&[&args[..], &["--top", "1", "--lang", "zh"]].concat());
    let out = String::from_utf8_lossy(&o.stdout).replace("\n  ", "");
    let err = String::from_utf8_lossy(&o.stderr).replace("\n  ", "");
    let packed: String = out.split_whitespace().collect();
    assert!(
        packed.contains("每个请求30秒音频（解码器4+224个token）"),
        "{out}"
    );
    assert!(out.contains("每小时音频 ¥"), "{out}");
    for bad in ["每百万 token", "分块 prefill"] {
        assert!(!out.contains(bad), "{bad}: {out}");
    }
    assert!(
        !err.contains("缩短") && !err.contains("每个样本 seq_len 个"),
        "{err}"
    );
    let english = common::english_sentences(&format!("{out}\n{err}"));
    assert!(english.is_empty(), "{english:?}");
    // A transcript length alone keeps the 4-token decoder prompt (not the text default of 1000).
    let v = plan_json(&[&args[1..], &["--output-tokens", "100"]].concat());
    assert_eq!(v["request"]["job"]["input_tokens"], 4, "{}", v["request"]);
    assert_eq!(
        v["request"]["job"]["output_tokens"], 100,
        "{}",
        v["request"]
    );
}

/// #8, workload files: a `[serve]` without token counts carried the text defaults (1000 + 300)
/// and Whisper was refused ("reads at most 448 tokens"); one that sets only the transcript length
/// kept the 1000-token prompt. Both take the 4-token decoder prompt.
#[test]
fn a_whisper_workload_file_takes_the_speech_request() {
    let dir = common::scratch().join(format!("gpuplan-r7-asr-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    for (extra, output) in [("", 224), ("output_tokens = 120\n", 120)] {
        let f = dir.join(format!("w{output}.toml"));
        let body = "model = \"Whisper-large-v3\"\nkind = \"inference\"\n[serve]\nrate_rps = 5\n";
        std::fs::write(&f, format!("{body}{extra}")).unwrap();
        let v = plan_json(&["-w", f.to_str().unwrap()]);
        assert_eq!(v["request"]["job"]["input_tokens"], 4, "{}", v["request"]);
        assert_eq!(
            v["request"]["job"]["output_tokens"], output,
            "{}",
            v["request"]
        );
    }
}
