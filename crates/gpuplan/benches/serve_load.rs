//! Load check of `gpuplan serve` (a benchmark, not a timed test): `cargo bench -p gpuplan --bench
//! serve_load`. Starts the real binary on a free loopback port and, from client threads in this
//! process (they share the machine's cores with the server):
//!
//! 1. 10,000 `POST /api/v1/plan` for the README scenario (LoRA Qwen2.5-7B, Alibaba, 24 h) while
//!    two other threads keep sending oversized (413) and malformed (400) bodies; counts every
//!    answer that is not the expected one, and reports requests/s and latency percentiles;
//! 2. distinct requests (the token count changes every time, so no answer comes from the cache):
//!    the throughput of the plan search itself;
//! 3. the server's resident memory (VmRSS, VmHWM from /proc) before and after.
//!
//! `GPUPLAN_LOAD_REQUESTS` (default 10000), `GPUPLAN_LOAD_THREADS` (default 8) and
//! `GPUPLAN_LOAD_DISTINCT` (default 200) change the counts.

use std::io::{BufRead, BufReader, Read};
use std::process::{Command, Stdio};
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::Arc;
use std::time::{Duration, Instant};

const README_BODY: &str = r#"{"model": "Qwen2.5-7B", "training": {"task": "lora", "seq_len": 2048, "tokens": 1e8}, "constraints": {"providers": ["alibaba"], "deadline_hours": 24}}"#;

fn env_usize(k: &str, d: usize) -> usize {
    std::env::var(k)
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(d)
}

fn mem_kib(pid: u32) -> (u64, u64) {
    let s = std::fs::read_to_string(format!("/proc/{pid}/status")).unwrap_or_default();
    let get = |k: &str| {
        s.lines()
            .find(|l| l.starts_with(k))
            .and_then(|l| l.split_whitespace().nth(1))
            .and_then(|v| v.parse().ok())
            .unwrap_or(0)
    };
    (get("VmRSS:"), get("VmHWM:"))
}

fn post(agent: &ureq::Agent, url: &str, body: &str) -> Result<(u16, usize), String> {
    match agent
        .post(url)
        .set("content-type", "application/json")
        .send_string(body)
    {
        Ok(r) => {
            let s = r.status();
            r.into_string()
                .map(|t| (s, t.len()))
                .map_err(|e| e.to_string())
        }
        Err(ureq::Error::Status(s, r)) => Ok((s, r.into_string().map_or(0, |t| t.len()))),
        Err(e) => Err(e.to_string()),
    }
}

fn percentile(v: &mut [f64], p: f64) -> f64 {
    v.sort_by(f64::total_cmp);
    v.get(((v.len() as f64 - 1.0) * p).round() as usize)
        .copied()
        .unwrap_or(f64::NAN)
}

/// `n` requests over `threads` threads; `body(i)` is request i's body. Returns (seconds, errors,
/// latencies in ms).
fn run(
    url: &str,
    n: usize,
    threads: usize,
    body: Arc<dyn Fn(usize) -> String + Send + Sync>,
) -> (f64, u64, Vec<f64>) {
    let errors = Arc::new(AtomicU64::new(0));
    let next = Arc::new(AtomicU64::new(0));
    let t0 = Instant::now();
    let handles: Vec<_> = (0..threads)
        .map(|_| {
            let (url, errors, next, body) =
                (url.to_string(), errors.clone(), next.clone(), body.clone());
            std::thread::spawn(move || {
                let agent = ureq::AgentBuilder::new()
                    .timeout(Duration::from_secs(60))
                    .build();
                let mut lat = Vec::new();
                loop {
                    let i = next.fetch_add(1, Ordering::Relaxed) as usize;
                    if i >= n {
                        break;
                    }
                    let t = Instant::now();
                    match post(&agent, &url, &body(i)) {
                        Ok((200, len)) if len > 1000 => {}
                        Ok((s, _)) => {
                            errors.fetch_add(1, Ordering::Relaxed);
                            eprintln!("request {i}: HTTP {s}");
                        }
                        Err(e) => {
                            errors.fetch_add(1, Ordering::Relaxed);
                            eprintln!("request {i}: {e}");
                        }
                    }
                    lat.push(t.elapsed().as_secs_f64() * 1e3);
                }
                lat
            })
        })
        .collect();
    let lat: Vec<f64> = handles
        .into_iter()
        .flat_map(|h| h.join().unwrap())
        .collect();
    (
        t0.elapsed().as_secs_f64(),
        errors.load(Ordering::Relaxed),
        lat,
    )
}

fn main() {
    let n = env_usize("GPUPLAN_LOAD_REQUESTS", 10_000);
    let threads = env_usize("GPUPLAN_LOAD_THREADS", 8);
    let distinct = env_usize("GPUPLAN_LOAD_DISTINCT", 200);
    let mut child = Command::new(env!("CARGO_BIN_EXE_gpuplan"))
        .args(["serve", "--bind", "127.0.0.1:0", "--no-user-catalog"])
        .stderr(Stdio::piped())
        .stdout(Stdio::null())
        .spawn()
        .expect("start gpuplan serve");
    let mut err = BufReader::new(child.stderr.take().unwrap());
    let mut line = String::new();
    err.read_line(&mut line).unwrap();
    let host = line
        .split("http://")
        .nth(1)
        .and_then(|s| s.split('/').next())
        .expect("address")
        .to_string();
    std::thread::spawn(move || {
        let mut s = String::new();
        let _ = err.read_to_string(&mut s);
    });
    let url = format!("http://{host}/api/v1/plan");
    let pid = child.id();
    let cores = std::thread::available_parallelism().map_or(0, |n| n.get());
    println!("gpuplan serve load check: {cores} cores visible (shared with the server and with anything else running)");
    println!("server RSS at start: {} KiB", mem_kib(pid).0);

    // Hostile traffic alongside: oversized and malformed bodies, counted.
    let stop = Arc::new(AtomicBool::new(false));
    let hostile: Vec<_> = [
        (
            413u16,
            "{\"model\": \"".to_string() + &"z".repeat(200_000) + "\"}",
        ),
        (400, "{\"model\": [".to_string()),
    ]
    .into_iter()
    .map(|(want, body)| {
        let (url, stop) = (url.clone(), stop.clone());
        std::thread::spawn(move || {
            let agent = ureq::AgentBuilder::new().build();
            let (mut ok, mut bad) = (0u64, 0u64);
            while !stop.load(Ordering::Relaxed) {
                match post(&agent, &url, &body) {
                    Ok((s, _)) if s == want => ok += 1,
                    _ => bad += 1,
                }
                std::thread::sleep(Duration::from_millis(5));
            }
            (want, ok, bad)
        })
    })
    .collect();

    let (secs, errors, mut lat) = run(&url, n, threads, Arc::new(|_| README_BODY.to_string()));
    stop.store(true, Ordering::Relaxed);
    println!(
        "README scenario: {n} requests, {threads} client threads: {secs:.2} s, {:.0} requests/s, {errors} errors; latency p50 {:.1} ms, p99 {:.1} ms, max {:.1} ms",
        n as f64 / secs,
        percentile(&mut lat, 0.5),
        percentile(&mut lat, 0.99),
        percentile(&mut lat, 1.0)
    );
    for h in hostile {
        let (want, ok, bad) = h.join().unwrap();
        println!(
            "  alongside: {ok} bad bodies answered {want} as expected, {bad} answered otherwise"
        );
    }
    let (rss, hwm) = mem_kib(pid);
    println!("server RSS after: {rss} KiB (peak {hwm} KiB)");

    let body = Arc::new(|i: usize| README_BODY.replace("1e8", &format!("{}", 100_000_000 + i)));
    let (secs, errors, mut lat) = run(&url, distinct, threads, body);
    println!(
        "distinct requests (no cache hit, the plan search every time): {distinct} requests: {secs:.2} s, {:.1} requests/s, {errors} errors; latency p50 {:.0} ms, p99 {:.0} ms",
        distinct as f64 / secs,
        percentile(&mut lat, 0.5),
        percentile(&mut lat, 0.99)
    );
    let (rss, hwm) = mem_kib(pid);
    println!("server RSS after: {rss} KiB (peak {hwm} KiB)");
    let _ = Command::new("kill")
        .args(["-TERM", &pid.to_string()])
        .status();
    let status = child.wait().unwrap();
    println!("server exit after SIGTERM: {status}");
}
