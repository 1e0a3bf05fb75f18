//! `gpuplan serve` against a running server on 127.0.0.1 (a free port chosen by the OS): the API
//! answers with the CLI's JSON, refuses bad input with 400 naming the field, survives bad bodies
//! sent alongside good requests, and stops cleanly on SIGTERM.

mod common;

use common::{Server, TODAY};
use std::process::Command;

const README_BODY: &str = r#"{"model": "Qwen2.5-7B", "training": {"task": "lora", "seq_len": 2048, "tokens": 1e8}, "constraints": {"providers": ["alibaba"], "deadline_hours": 24}}"#;
const README_ARGS: &[&str] = common::README_PLAN;
/// (status, JSON body) of one request; 4xx/5xx are answers too.
fn call(method: &str, url: &str, body: Option<&str>) -> (u16, serde_json::Value) {
    let req = ureq::request(method, url).set("content-type", "application/json");
    let r = match body {
        Some(b) => req.send_string(b),
        None => req.call(),
    };
    let resp = match r {
        Ok(r) => r,
        Err(ureq::Error::Status(_, r)) => r,
        Err(e) => panic!("{method} {url}: {e}"),
    };
    let status = resp.status();
    let text = resp.into_string().unwrap();
    let v = serde_json::from_str(&text).unwrap_or_else(|e| panic!("{url}: not JSON ({e}): {text}"));
    (status, v)
}

fn cli_json(args: &[&str]) -> serde_json::Value {
    let out = Command::new(env!("CARGO_BIN_EXE_gpuplan"))
        .args(args)
        .args(["--format", "json", "--no-user-catalog"])
        .env("GPUPLAN_TODAY", TODAY)
        .output()
        .unwrap();
    serde_json::from_slice(&out.stdout).expect("CLI JSON")
}

#[test]
fn plan_answers_the_readme_scenario_with_the_clis_json() {
    let s = Server::start();
    let (st, v) = call(
        "POST",
        &format!("{}/api/v1/plan", s.base),
        Some(README_BODY),
    );
    assert_eq!(st, 200, "{v}");
    assert_eq!(v["kind"], "plan");
    assert!(!v["outcome"]["plans"].as_array().unwrap().is_empty());
    // The same document as `gpuplan plan … --format json` (same builders, same defaults).
    assert_eq!(v, cli_json(README_ARGS));
    // `top` as the flag; `deadline` as the flag's text.
    let (st, v) = call(
        "POST",
        &format!("{}/api/v1/plan?top=50&deadline=1d", s.base),
        Some(README_BODY),
    );
    assert_eq!(st, 200, "{v}");
    let n = v["outcome"]["plans"].as_array().unwrap().len();
    assert!(n > 5 && n <= 50, "{n}");
    assert_eq!(v["request"]["constraints"]["deadline_hours"], 24.0);
}

#[test]
fn bad_input_is_a_400_naming_the_field_with_the_clis_message() {
    let s = Server::start();
    let url = format!("{}/api/v1/plan", s.base);
    let cases: &[(&str, &str)] = &[
        (
            r#"{"model": "Qwen2.5-7B", "training": {"seq_len": "long"}}"#,
            "training.seq_len",
        ),
        (
            r#"{"model": "Qwen2.5-7B", "constraints": {"dedline_hours": 3}}"#,
            "constraints.dedline_hours",
        ),
        (
            r#"{"model": "Qwen2.5-7B", "constraints": {"max_nodes": 0}}"#,
            "constraints.max_nodes",
        ),
        (
            r#"{"model": "Qwen2.5-7B", "constraints": {"max_nodes": 300}}"#,
            "constraints.max_nodes",
        ),
        (r#"{"model_config": "/etc/passwd"}"#, "model_config"),
    ];
    for (body, field) in cases {
        let (st, v) = call("POST", &url, Some(body));
        assert_eq!(st, 400, "{body}: {v}");
        assert_eq!(v["kind"], "error", "{v}");
        assert_eq!(v["error"]["field"], *field, "{body}: {v}");
    }
    for body in ["", "{", "[1,2]", "{\"model\": \"Qwen2.5-7B\",}", "\u{0}"] {
        let (st, v) = call("POST", &url, Some(body));
        assert_eq!(st, 400, "{body:?}: {v}");
        assert!(
            v["error"]["message"]
                .as_str()
                .unwrap()
                .contains("request body"),
            "{v}"
        );
    }
    // The same message as the CLI for the same value, the flag named as the body key.
    let (st, v) = call(
        "POST",
        &url,
        Some(r#"{"model": "Qwen2.5-7B", "constraints": {"deadline_hours": -1}}"#),
    );
    assert_eq!(st, 400);
    let cli = cli_json(&["plan", "--model", "Qwen2.5-7B", "--deadline=-1"]);
    // The flag is named as the body key the request sent (tests/fix_r15.rs).
    let cli_m = cli["error"]["message"].as_str().unwrap_or_default();
    assert_eq!(
        v["error"]["message"].as_str(),
        Some(
            cli_m
                .replace("--deadline", "`constraints.deadline_hours`")
                .as_str()
        ),
        "{v} vs {cli}"
    );
    let (st, v) = call("POST", &url, Some(r#"{"model": "GPT-7"}"#));
    assert_eq!(st, 400);
    assert_eq!(v["error"]["kind"], "unknown_name", "{v}");
    // Query parameters are checked as the flags they stand for, and named as the query names
    // them (audit r9 #17: the message said `--top`).
    let (st, v) = call("POST", &format!("{url}?top=0"), Some(README_BODY));
    assert_eq!(
        (
            st,
            v["error"]["message"].as_str().unwrap().contains("`top`")
        ),
        (400, true),
        "{v}"
    );
    let (st, v) = call(
        "POST",
        &format!("{url}?workload=/etc/passwd"),
        Some(README_BODY),
    );
    assert_eq!(
        (st, v["error"]["field"].as_str()),
        (400, Some("workload")),
        "{v}"
    );
    let (st, v) = call(
        "GET",
        &format!("{}/api/v1/catalog/instances?provider=aws", s.base),
        None,
    );
    assert_eq!(
        (st, v["error"]["field"].as_str()),
        (400, Some("provider")),
        "{v}"
    );
    let (st, v) = call(
        "GET",
        &format!("{}/api/v1/prices?by-gpu=true", s.base),
        None,
    );
    assert_eq!(st, 400, "{v}");
    // Oversized body: 413 with a JSON error, not a dropped connection.
    let big = format!("{{\"model\": \"{}\"}}", "x".repeat(100_000));
    let (st, v) = call("POST", &url, Some(&big));
    assert_eq!(st, 413, "{v}");
    assert!(
        v["error"]["message"].as_str().unwrap().contains("KiB"),
        "{v}"
    );
    let (st, _) = call("GET", &url, None);
    assert_eq!(st, 405);
    let (st, _) = call("GET", &format!("{}/api/v2/plan", s.base), None);
    assert_eq!(st, 404);
}

/// (status, JSON) of a request with an `Accept-Language` header.
fn call_lang(
    method: &str,
    url: &str,
    body: Option<&str>,
    accept: &str,
) -> (u16, serde_json::Value) {
    let req = ureq::request(method, url)
        .set("content-type", "application/json")
        .set("accept-language", accept);
    let r = match body {
        Some(b) => req.send_string(b),
        None => req.call(),
    };
    let resp = match r {
        Ok(r) => r,
        Err(ureq::Error::Status(_, r)) => r,
        Err(e) => panic!("{method} {url}: {e}"),
    };
    let status = resp.status();
    (
        status,
        serde_json::from_str(&resp.into_string().unwrap()).unwrap(),
    )
}

/// The CLI's error line on stderr in `lang`, without its `error:` prefix.
fn cli_error(args: &[&str], lang: &str) -> String {
    let out = Command::new(env!("CARGO_BIN_EXE_gpuplan"))
        .args(["--lang", lang])
        .args(args)
        .arg("--no-user-catalog")
        .env("GPUPLAN_TODAY", TODAY)
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2), "{args:?}");
    let err = String::from_utf8(out.stderr).unwrap();
    let line = err.lines().last().unwrap_or("").to_string();
    line.trim_start_matches("error: ")
        .trim_start_matches("错误：")
        .to_string()
}

#[test]
fn errors_come_in_the_requests_language_with_the_clis_messages() {
    let s = Server::start();
    let url = format!("{}/api/v1/plan", s.base);
    let zh = "zh-CN,zh;q=0.9,en;q=0.8";
    // A range error: the CLI's message in each language, by Accept-Language or ?lang=.
    let body = r#"{"model": "Qwen2.5-7B", "constraints": {"deadline_hours": -1}}"#;
    let args = ["plan", "--model", "Qwen2.5-7B", "--deadline=-1"];
    // The CLI's message with the flag named as the body key the request sent (tests/fix_r15.rs).
    let as_key = |m: String| m.replace("--deadline", "`constraints.deadline_hours`");
    let cli_zh = as_key(cli_error(&args, "zh"));
    let cli_en = as_key(cli_error(&args, "en"));
    assert_ne!(cli_zh, cli_en);
    let (st, v) = call_lang("POST", &url, Some(body), zh);
    assert_eq!(
        (st, v["error"]["message"].as_str()),
        (400, Some(cli_zh.as_str())),
        "{v}"
    );
    let (_, v) = call("POST", &format!("{url}?lang=zh"), Some(body));
    assert_eq!(v["error"]["message"].as_str(), Some(cli_zh.as_str()), "{v}");
    let (_, v) = call_lang("POST", &format!("{url}?lang=en"), Some(body), zh);
    assert_eq!(
        v["error"]["message"].as_str(),
        Some(cli_en.as_str()),
        "?lang wins: {v}"
    );
    let (_, v) = call_lang("POST", &url, Some(body), "fr-FR, en;q=0.2, zh;q=0.5");
    assert_eq!(
        v["error"]["message"].as_str(),
        Some(cli_zh.as_str()),
        "by quality: {v}"
    );
    let (_, v) = call_lang("POST", &url, Some(body), "fr-FR");
    assert_eq!(
        v["error"]["message"].as_str(),
        Some(cli_en.as_str()),
        "default: {v}"
    );
    // A body that does not parse: the CLI's parse message (`err-parse`), parser phrases in
    // Chinese, the key path as the field.
    let (st, v) = call_lang(
        "POST",
        &url,
        Some(r#"{"model": "Qwen2.5-7B", "training": {"seq_len": "long"}}"#),
        zh,
    );
    let m = v["error"]["message"].as_str().unwrap();
    assert_eq!(
        (st, v["error"]["field"].as_str()),
        (400, Some("training.seq_len")),
        "{v}"
    );
    assert!(
        m.starts_with("请求体：第 1 行") && m.contains("类型错误"),
        "{m}"
    );
    // The server's own limits, the query's flags and unknown routes, in Chinese too.
    let big = format!("{{\"model\": \"{}\"}}", "x".repeat(100_000));
    let (st, v) = call_lang("POST", &url, Some(&big), zh);
    assert_eq!(st, 413);
    assert!(
        v["error"]["message"].as_str().unwrap().contains("上限"),
        "{v}"
    );
    let (st, v) = call(
        "GET",
        &format!("{}/api/v1/catalog/instances?provider=aws&lang=zh", s.base),
        None,
    );
    let m = v["error"]["message"].as_str().unwrap();
    assert_eq!(
        (st, v["error"]["field"].as_str()),
        (400, Some("provider")),
        "{v}"
    );
    assert!(m.contains("aws") && m.contains("无效"), "{m}");
    let (st, v) = call_lang("GET", &format!("{}/api/v2/plan", s.base), None, zh);
    assert_eq!(st, 404);
    assert!(
        v["error"]["message"].as_str().unwrap().contains("没有这个"),
        "{v}"
    );
    let (st, v) = call_lang("GET", &url, None, zh);
    assert_eq!(st, 405);
    assert!(
        v["error"]["message"].as_str().unwrap().contains("POST"),
        "{v}"
    );
    // The language changes messages only: the same plan document either way, but for the
    // warnings' text (same ids).
    let (st, mut a) = call("POST", &format!("{url}?lang=zh"), Some(README_BODY));
    let (_, mut b) = call("POST", &url, Some(README_BODY));
    assert_eq!(st, 200, "{a}");
    let ids = |v: &serde_json::Value| -> Vec<serde_json::Value> {
        v["warnings"]
            .as_array()
            .unwrap()
            .iter()
            .map(|w| w["id"].clone())
            .collect()
    };
    assert_eq!(ids(&a), ids(&b));
    assert_ne!(a["warnings"], b["warnings"], "{a}");
    a["warnings"].take();
    b["warnings"].take();
    assert_eq!(a, b);
}

#[test]
fn catalog_models_prices_estimate_and_openapi() {
    let s = Server::start();
    let b = format!("{}/api/v1", s.base);
    let (st, v) = call("GET", &format!("{b}/healthz"), None);
    assert_eq!((st, v["status"].as_str()), (200, Some("ok")));
    let (st, v) = call("GET", &format!("{b}/models"), None);
    assert_eq!(st, 200);
    assert_eq!(v, cli_json(&["models"]));
    let (st, v) = call("GET", &format!("{b}/models/Qwen2.5-7B"), None);
    assert_eq!(st, 200);
    assert_eq!(v, cli_json(&["models", "show", "Qwen2.5-7B"]));
    let (st, v) = call("GET", &format!("{b}/models/GPT-7"), None);
    assert_eq!(
        (st, v["error"]["kind"].as_str()),
        (404, Some("unknown_name"))
    );
    let (st, v) = call("GET", &format!("{b}/catalog/gpus"), None);
    assert_eq!(st, 200);
    assert_eq!(v, cli_json(&["catalog", "gpus"]));
    let (st, v) = call(
        "GET",
        &format!("{b}/catalog/instances?provider=alibaba&gpu=A100&min_gpu_memory=80"),
        None,
    );
    assert_eq!(st, 200);
    assert_eq!(
        v,
        cli_json(&[
            "catalog",
            "instances",
            "--provider",
            "alibaba",
            "--gpu",
            "A100",
            "--min-gpu-memory",
            "80"
        ])
    );
    assert!(!v["instances"].as_array().unwrap().is_empty());
    let (st, v) = call(
        "GET",
        &format!("{b}/prices?provider=alibaba&billing=spot"),
        None,
    );
    assert_eq!(st, 200);
    assert_eq!(
        v,
        cli_json(&["prices", "--provider", "alibaba", "--billing", "spot"])
    );
    let body = r#"{"model": "Llama-3.1-8B", "training": {"task": "lora", "tokens": 1e8, "recompute": "full"}, "hardware": {"gpu": "A100"}}"#;
    let (st, v) = call("POST", &format!("{b}/estimate"), Some(body));
    assert_eq!(st, 200, "{v}");
    assert_eq!(
        v,
        cli_json(&[
            "estimate",
            "--model",
            "Llama-3.1-8B",
            "--task",
            "lora",
            "--gpu",
            "A100",
            "--recompute",
            "full",
            "--tokens",
            "1e8"
        ])
    );
    // A plan's body sent to /estimate: its `constraints` would be ignored, so it is refused.
    let (st, v) = call("POST", &format!("{b}/estimate"), Some(README_BODY));
    assert_eq!(st, 400, "{v}");
    assert_eq!(v["error"]["field"], "constraints", "{v}");
    assert!(
        v["error"]["message"]
            .as_str()
            .unwrap()
            .contains("/api/v1/plan"),
        "{v}"
    );
    // The mirror: an estimate's `hardware` / `inference` sent to /plan would be ignored (it was
    // answered 200 with plans on every GPU, even for `nodes: 0`), so it is refused.
    let est = r#"{"model": "Qwen2.5-7B", "training": {"task": "lora", "tokens": 1e8}, "hardware": {"gpu": "H100", "nodes": 0}}"#;
    let (st, v) = call("POST", &format!("{b}/plan"), Some(est));
    assert_eq!(
        (st, v["error"]["field"].as_str()),
        (400, Some("hardware")),
        "{v}"
    );
    let inf = r#"{"model": "Qwen2.5-7B", "kind": "inference", "inference": {"batch": 4}}"#;
    let (st, v) = call("POST", &format!("{b}/plan"), Some(inf));
    assert_eq!(
        (st, v["error"]["field"].as_str()),
        (400, Some("inference")),
        "{v}"
    );
    // A filter that selects nothing by its value (NaN, 0 GPUs) is bad input, not an empty list.
    for q in ["gpus=0", "gpus=nan", "min-gpu-memory=inf", "max-price=0"] {
        let (st, v) = call("GET", &format!("{b}/catalog/instances?{q}"), None);
        assert_eq!(st, 400, "{q}: {v}");
    }
    // Audit r9 #17: the error names the query key as sent (was `--gpus`, `max-price`) in the
    // API's words (was clap's "'max-price <MAX_PRICE>': invalid float literal").
    for (q, key) in [
        ("gpus=-1", "gpus"),
        ("max_price=abc", "max_price"),
        ("max_price=-3", "max_price"),
    ] {
        let (st, v) = call("GET", &format!("{b}/catalog/instances?{q}"), None);
        assert_eq!(
            (st, v["error"]["field"].as_str()),
            (400, Some(key)),
            "{q}: {v}"
        );
        let m = v["error"]["message"].as_str().unwrap_or("");
        assert!(
            m.contains(key) && !m.contains(&format!("--{key}")) && !m.contains('<'),
            "{q}: {m}"
        );
    }
    // A body key's error names its path in the body (was the bare `rate_rps`, `budget_cny`).
    for (body, path) in [
        (
            r#"{"model": "Qwen2.5-7B", "serve": {"rate_rps": 0}}"#,
            "serve.rate_rps",
        ),
        (
            r#"{"model": "Qwen2.5-7B", "training": {"task": "lora", "tokens": 1e8}, "constraints": {"budget_cny": -5}}"#,
            "constraints.budget_cny",
        ),
    ] {
        let (st, v) = call("POST", &format!("{b}/plan"), Some(body));
        assert_eq!((st, v["error"]["field"].as_str()), (400, Some(path)), "{v}");
    }
    let lora = r#"{"model": "Qwen2.5-7B", "training": {"task": "lora", "tokens": 1e8}}"#;
    let (st, v) = call("POST", &format!("{b}/plan?top=0"), Some(lora));
    assert_eq!(
        (st, v["error"]["field"].as_str()),
        (400, Some("top")),
        "{v}"
    );
    let m = v["error"]["message"].as_str().unwrap_or("");
    assert!(m.contains("`top`") && !m.contains("--top"), "{m}");
    let (st, v) = call(
        "POST",
        &format!("{b}/estimate?instance=nope"),
        Some(r#"{"model": "Qwen2.5-7B", "kind": "inference"}"#),
    );
    assert_eq!(
        (st, v["error"]["field"].as_str()),
        (400, Some("instance")),
        "{v}"
    );
    let (st, v) = call(
        "POST",
        &format!("{b}/estimate?instance=ecs.gn7e-c16g1.4xlarge"),
        Some(r#"{"model": "Qwen2.5-7B", "kind": "inference"}"#),
    );
    assert_eq!(
        (st, v["kind"].as_str()),
        (200, Some("inference_estimate")),
        "{v}"
    );
    let (st, v) = call("GET", &format!("{b}/openapi.json"), None);
    assert_eq!(st, 200);
    assert!(
        v["openapi"].as_str().unwrap().starts_with("3."),
        "{}",
        v["openapi"]
    );
    assert!(v["components"]["schemas"]["WorkloadFile"].is_object());
    for l in ["en", "zh"] {
        let (st, v) = call("GET", &format!("{b}/messages/{l}"), None);
        assert_eq!((st, v["lang"].as_str()), (200, Some(l)));
        assert!(v["messages"]["chart-title"].is_string());
    }
    let (st, _) = call("GET", &format!("{b}/messages/fr"), None);
    assert_eq!(st, 404);
}

#[test]
fn the_page_is_embedded_and_loads_nothing_from_elsewhere() {
    let s = Server::start();
    for (path, kind) in [
        ("/", "text/html"),
        ("/app.js", "text/javascript"),
        ("/style.css", "text/css"),
    ] {
        let r = ureq::get(&format!("{}{path}", s.base)).call().unwrap();
        assert!(
            r.content_type().starts_with(kind),
            "{path}: {}",
            r.content_type()
        );
        let text = r.into_string().unwrap();
        for bad in [
            "src=\"http",
            "href=\"http",
            "url(http",
            "import(",
            "@import",
            "//cdn",
        ] {
            assert!(!text.contains(bad), "{path} refers to another host: {bad}");
        }
    }
}

#[test]
fn bad_bodies_do_not_disturb_concurrent_good_requests() {
    let s = Server::start();
    let url = format!("{}/api/v1/plan", s.base);
    let big = "{\"model\": \"".to_string() + &"y".repeat(200_000) + "\"}";
    let threads: Vec<_> = (0..12)
        .map(|k| {
            let (url, big) = (url.clone(), big.clone());
            std::thread::spawn(move || {
                for i in 0..6 {
                    match k % 3 {
                        0 => {
                            let (st, v) =
                                call("POST", &format!("{url}?top={}", 1 + i), Some(README_BODY));
                            assert_eq!(st, 200, "{v}");
                            assert_eq!(v["outcome"]["plans"].as_array().unwrap().len(), 1 + i);
                        }
                        1 => assert_eq!(call("POST", &url, Some(&big)).0, 413),
                        _ => assert_eq!(call("POST", &url, Some("{\"model\": [")).0, 400),
                    }
                }
            })
        })
        .collect();
    for t in threads {
        t.join().expect("a client thread failed");
    }
}

#[test]
fn non_loopback_needs_allow_remote_and_sigterm_stops_cleanly() {
    let out = Command::new(env!("CARGO_BIN_EXE_gpuplan"))
        .args(["serve", "--bind", "0.0.0.0:0"])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2));
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(
        err.contains("--allow-remote") && err.contains("no authentication"),
        "{err}"
    );

    let mut s = Server::start();
    let (st, _) = call("GET", &format!("{}/api/v1/healthz", s.base), None);
    assert_eq!(st, 200);
    let killed = Command::new("kill")
        .args(["-TERM", &s.pid().to_string()])
        .status()
        .unwrap();
    assert!(killed.success());
    let status = s.child.wait().unwrap();
    assert!(status.success(), "exit after SIGTERM: {status:?}");
}

/// The warnings `gpuplan plan` prints on stderr (an asked region no catalog row names, with the
/// nearest spelling; the shown plans' old prices) come in the answer as `warnings`, the same ids
/// as the CLI's JSON, in the request's language.
#[test]
fn plan_answers_carry_the_clis_warnings_in_the_requests_language() {
    let s = Server::start();
    let body = r#"{"model": "Qwen2.5-7B", "training": {"task": "lora", "seq_len": 2048, "tokens": 1e8}, "constraints": {"providers": ["alibaba"], "regions": ["cn-shangai"], "deadline_hours": 24}}"#;
    let args = [README_ARGS, &["--region", "cn-shangai"]].concat();
    let ids = |v: &serde_json::Value| -> Vec<String> {
        v["warnings"]
            .as_array()
            .unwrap()
            .iter()
            .map(|w| w["id"].as_str().unwrap().to_string())
            .collect()
    };
    for (lang, word) in [
        ("en", "is not in gpuplan's catalog"),
        ("zh", "不在 gpuplan 的目录中"),
    ] {
        let (st, v) = call(
            "POST",
            &format!("{}/api/v1/plan?lang={lang}", s.base),
            Some(body),
        );
        assert_eq!(st, 200, "{v}");
        let cli = cli_json(&[&args[..], &["--lang", lang]].concat());
        assert_eq!(v["warnings"], cli["warnings"], "{lang}");
        assert_eq!(ids(&v)[0], "warn-region-unknown", "{v}");
        assert!(ids(&v).contains(&"prices-stale-first".to_string()), "{v}");
        let first = v["warnings"][0]["message"].as_str().unwrap();
        assert!(
            first.contains(word) && first.contains("cn-shanghai"),
            "{first}"
        );
    }
    // A request with nothing to warn about carries an empty list.
    let (_, v) = call(
        "POST",
        &format!("{}/api/v1/plan?deadline=1d", s.base),
        Some(README_BODY),
    );
    assert!(!ids(&v).contains(&"warn-region-unknown".to_string()), "{v}");
}

/// The answer cache keys the whole workload, what its JSON does not write included: a checkpoint
/// interval stated at the default hour serialises as one not stated, and was answered from the
/// cache with Daly's interval (refactor23); the stated hour is paid and said to be given.
#[test]
fn a_stated_default_checkpoint_interval_is_not_answered_from_the_cache() {
    let s = Server::start();
    let url = format!("{}/api/v1/plan", s.base);
    let body = |tunables: &str| {
        format!(
            r#"{{"model": "Qwen2.5-7B", "training": {{"task": "lora", "seq_len": 2048, "tokens": 1e8}}, "constraints": {{"providers": ["alibaba"]}}, "tunables": {{{tunables}}}}}"#
        )
    };
    let given =
        |v: &serde_json::Value| v["outcome"]["plans"][0]["train"]["checkpoints"]["given"].clone();
    let (st, daly) = call("POST", &url, Some(&body("")));
    assert_eq!(st, 200, "{daly}");
    assert_eq!(given(&daly), false, "{daly}");
    let (st, hour) = call(
        "POST",
        &url,
        Some(&body(r#""checkpoint_interval_hours": 1"#)),
    );
    assert_eq!(st, 200, "{hour}");
    assert_eq!(given(&hour), true, "{hour}");
    let interval = &hour["outcome"]["plans"][0]["train"]["checkpoints"]["interval_s"];
    assert_eq!(interval.as_f64(), Some(3600.0), "{hour}");
}
