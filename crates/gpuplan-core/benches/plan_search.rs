//! Bench binary (no harness): how long `plan` takes over the whole built-in catalog (with the
//! advice of the top 5 plans, as the CLI and the API show them: `plan_shown`) and how many
//! configurations it covers (`configs`, as if each instance × node count were searched alone)
//! and really evaluates after sharing (`memory`, `steps`), for the scenarios.
//! Run: `cargo bench -p gpuplan-core --bench plan_search`. Timing is reported, never asserted
//! (tests stay deterministic); the counts are the deterministic measure of the work. `best ms` /
//! `median ms` are wall time per run, `cpu ms` the mean CPU time per run of all threads (Linux),
//! which other load on the machine does not inflate (docs/performance.md).
//!
//! Issue 10's target: `pretrain-llama2-13b-64-nodes` ≤ 20 ms median wall on the 2-core build
//! machine. Last figures (docs/performance.md, round 14, 2026-12-07): 239.5 M → 218.6 M
//! instructions and 21,918 → 17,082 steps per run (time-pass groups per chip and GPU count);
//! CPU per run 32.2–33.2 → 31.0–31.5 ms, the two binaries alternately at load ~16, where the
//! walls (110–190 ms) say nothing. The idle figure before it: median 18.5–20.1 ms (stop 33).

use gpuplan_core::catalog::Catalog;
use gpuplan_core::constants::Tunables;
use gpuplan_core::model::find_preset;
use gpuplan_core::plan::{plan, plan_shown, Constraints, Job, Objective, PlanRequest, ServeJob};
use gpuplan_core::workload::{TrainTask, TrainingSetup};
use std::time::Instant;

/// The CLI's allocator (crates/gpuplan/src/main.rs), so the bench times what the user runs.
#[global_allocator]
static GLOBAL: mimalloc::MiMalloc = mimalloc::MiMalloc;

/// CPU time of this process so far (all threads, finished ones included), in ms: utime + stime
/// of /proc/self/stat, in USER_HZ = 100 ticks (Linux). `None` elsewhere. Unlike wall time it
/// does not grow when other processes share the cores, so it is the load-independent measure.
fn cpu_ms() -> Option<f64> {
    let stat = std::fs::read_to_string("/proc/self/stat").ok()?;
    // Fields after the command name (which is in parentheses and may hold spaces).
    let rest = stat.rsplit_once(')')?.1;
    let f: Vec<&str> = rest.split_whitespace().collect();
    let ticks = f.get(11)?.parse::<f64>().ok()? + f.get(12)?.parse::<f64>().ok()?;
    Some(ticks * 10.0)
}

fn main() {
    // Repetitions per scenario (best and median reported): GPUPLAN_BENCH_REPS, default 11.
    let reps: usize = std::env::var("GPUPLAN_BENCH_REPS")
        .ok()
        .and_then(|v| v.parse().ok())
        .filter(|n| *n > 0)
        .unwrap_or(11);
    // Plans whose advice is evaluated, as the CLI's and the API's `--top` (default 5);
    // GPUPLAN_BENCH_TOP=0: every plan's (`plan`, the library's full outcome).
    let top: usize = std::env::var("GPUPLAN_BENCH_TOP")
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(5);
    let cat = Catalog::builtin().expect("built-in catalog");
    let train = |task, seq, tokens: f64| Job::Train {
        setup: TrainingSetup {
            task,
            seq_len: seq,
            tokens: Some(tokens),
            ..Default::default()
        },
        global_batch: None,
        precision_pinned: false,
        pins: Default::default(),
    };
    let cases: Vec<(&str, &str, Job, Constraints)> = vec![
        (
            "lora-qwen2.5-7b",
            "Qwen2.5-7B",
            train(TrainTask::Lora, 2048, 1e8),
            Constraints::default(),
        ),
        (
            "full-llama3.1-8b",
            "Llama-3.1-8B",
            train(TrainTask::FullFinetune, 4096, 1e9),
            Constraints::default(),
        ),
        (
            "pretrain-llama2-13b-64-nodes",
            "Llama-2-13B",
            train(TrainTask::Pretrain, 4096, 3e11),
            Constraints {
                max_nodes: 64,
                ..Default::default()
            },
        ),
        (
            "pretrain-deepseek-v3-64-nodes",
            "DeepSeek-V3",
            train(TrainTask::Pretrain, 4096, 1e12),
            Constraints {
                max_nodes: 64,
                ..Default::default()
            },
        ),
        (
            "serve-llama3.1-70b",
            "Llama-3.1-70B",
            Job::Serve(ServeJob {
                rate_rps: Some(10.0),
                ttft_s: Some(2.0),
                tpot_s: Some(0.06),
                ..Default::default()
            }),
            Constraints::default(),
        ),
    ];
    match top {
        0 => println!("advice: every plan"),
        n => println!("advice: the top {n} plans (GPUPLAN_BENCH_TOP, 0 = every plan)"),
    }
    println!(
        "{:<32} {:>10} {:>9} {:>9} {:>9} {:>6} {:>9} {:>9} {:>8}",
        "scenario",
        "candidates",
        "configs",
        "memory",
        "steps",
        "plans",
        "best ms",
        "median ms",
        "cpu ms"
    );
    // One scenario only (e.g. under `perf stat`): GPUPLAN_BENCH_ONLY=<name>.
    let only = std::env::var("GPUPLAN_BENCH_ONLY").ok();
    for (name, model, job, constraints) in cases {
        if only.as_deref().is_some_and(|o| o != name) {
            continue;
        }
        let req = PlanRequest {
            model: find_preset(model).expect("preset").model.clone(),
            job,
            constraints,
            objective: Objective::Cost,
            tunables: Tunables::default(),
        };
        let mut times = Vec::new();
        let mut last = None;
        let cpu0 = cpu_ms();
        for _ in 0..reps {
            let t = Instant::now();
            let out = if top == 0 {
                plan(&req, &cat)
            } else {
                plan_shown(&req, &cat, top)
            }
            .expect("plan");
            times.push(t.elapsed().as_secs_f64() * 1e3);
            last = Some(out);
        }
        // Mean CPU time per run (all threads), from 10 ms ticks.
        let cpu = match (cpu0, cpu_ms()) {
            (Some(a), Some(b)) => format!("{:.1}", (b - a) / reps as f64),
            _ => "-".into(),
        };
        times.sort_by(f64::total_cmp);
        let out = last.expect("ran");
        println!(
            "{:<32} {:>10} {:>9} {:>9} {:>9} {:>6} {:>9.1} {:>9.1} {:>8}",
            name,
            out.stats.candidates,
            out.stats.configurations,
            out.stats.work.memory,
            out.stats.work.step,
            out.plans.len(),
            times[0],
            times[times.len() / 2],
            cpu
        );
    }
}
