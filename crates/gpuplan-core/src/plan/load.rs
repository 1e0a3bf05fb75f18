//! A serving replica under load: what its users see when it also prefills other requests' prompts.
//!
//! One replica is one GPU (group) that runs every request's prefill and the batch's decode steps.
//! At `r` requests per second it spends `r·P` of each second prefilling (P: one prompt's prefill),
//! and the decode steps only advance in the rest, so the time per output token a user sees is
//! `D / (1 − r·P)` (D: the decode step at the batch). At the replica's full capacity
//! `r = b / (b·P + O·D)` this is `D + b·P/O` (b = 32, P = 0.2 s, O = 256: +25 ms). Sarathi-Serve
//! (Agrawal et al., OSDI'24) measures this inflation of the time between tokens under chunked
//! prefill; without chunking a prefill pauses every running decode for its whole duration (the
//! same mean, larger gaps).
//!
//! The first token waits for the prompts ahead of it: prefill is served first-come first-served
//! (vLLM V1 `Scheduler.schedule`, vllm/v1/core/sched/scheduler.py: "First, schedule the RUNNING
//! requests", then the WAITING ones in arrival order with the token budget left), Poisson arrivals
//! and one prompt length make it an M/D/1 queue with mean wait `ρ·P / (2(1 − ρ))`, ρ = r·P
//! (Pollaczek–Khinchine with deterministic service; DistServe, Zhong et al., OSDI'24 §3.1, models a
//! prefill instance the same way). How the prefill shares steps with the decode batch is the
//! engine's ([`PrefillMixing`]).

use crate::units::Seconds;
use crate::workload::Engine;
use serde::Serialize;

/// How an engine's scheduler places a prompt's prefill relative to the running decode batch.
#[derive(Clone, Copy, Debug, PartialEq, Serialize)]
#[serde(rename_all = "snake_case", tag = "kind")]
pub enum PrefillMixing {
    /// vLLM V1: chunked prefill on by default; each step's `max_num_batched_tokens` (`budget`)
    /// first takes one token per running request, then prompt chunks in the rest. A prompt of I
    /// tokens rides ⌈I / (budget − batch)⌉ decode steps, each paying the decode step's time too.
    Chunked { budget: u64 },
    /// TensorRT-LLM in-flight batching: the context phase joins the generation batch in one step
    /// (`enable_chunked_context` off by default): one decode step rides with the prefill.
    Whole,
    /// SGLang (mixed chunks off by default, `--enable-mixed-chunk`) and the static engine: a
    /// prefill batch runs alone and the decode batch waits for it.
    Paused,
}

impl PrefillMixing {
    pub fn of(engine: Engine, budget: u64) -> PrefillMixing {
        match engine {
            Engine::Vllm => PrefillMixing::Chunked { budget },
            Engine::Trtllm => PrefillMixing::Whole,
            Engine::Sglang | Engine::Static => PrefillMixing::Paused,
        }
    }

    /// Decode steps a prompt of `input` tokens rides in at `batch` running requests.
    pub fn riding_steps(self, input: u64, batch: u64) -> f64 {
        match self {
            PrefillMixing::Chunked { budget } => {
                let room = budget.saturating_sub(batch).max(1);
                input.max(1).div_ceil(room) as f64
            }
            PrefillMixing::Whole => 1.0,
            PrefillMixing::Paused => 0.0,
        }
    }

    /// Catalog message id of the one-line description.
    pub fn msg_id(self) -> &'static str {
        match self {
            PrefillMixing::Chunked { .. } => "serve-mix-chunked",
            PrefillMixing::Whole => "serve-mix-whole",
            PrefillMixing::Paused => "serve-mix-paused",
        }
    }
}

/// One replica's timings at a batch: what the loaded figures are computed from.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Replica {
    /// One prompt's prefill, seconds (the unloaded TTFT).
    pub prefill: f64,
    /// One decode step at the batch, seconds (the unloaded TPOT).
    pub step: f64,
    pub input: u64,
    pub output: u64,
    pub batch: u64,
    pub mixing: PrefillMixing,
}

/// The replica's latency at one request rate.
#[derive(Clone, Copy, Debug, PartialEq, Serialize)]
pub struct ServeLoad {
    /// Requests per second this replica carries (the plan's peak rate over its replicas).
    pub rate_rps: f64,
    /// The most it sustains at its batch: b / (b·P + O·D).
    pub capacity_rps: f64,
    /// rate ÷ capacity.
    pub utilisation: f64,
    /// Share of each second spent prefilling, r·P.
    pub prefill_share: f64,
    /// Time per output token under this load: D / (1 − r·P).
    pub time_per_token: Seconds,
    /// Time to first token under this load: queue wait + P + riding decode steps.
    pub ttft: Seconds,
    /// Of which the M/D/1 wait for the prompts ahead.
    pub ttft_queue: Seconds,
    pub mixing: PrefillMixing,
}

impl Replica {
    /// Requests per second at full capacity: every second is r·P prefilling (a prompt's prefill
    /// is compute-bound and not hidden behind decode, whether it runs alone or as chunks in
    /// decode steps) and r·O/b decode steps of D, so r ≤ b / (b·P + O·D). Counting the prefill
    /// in one slot only (b / (P + O·D)) let a T4 claim 3.5 req/s of 1000-token prompts whose
    /// prefills alone needed 1.15 s of every second.
    pub fn capacity(&self) -> f64 {
        let b = self.batch.max(1) as f64;
        b / (b * self.prefill + self.output as f64 * self.step)
    }

    /// The unloaded TTFT plus the decode steps the prompt rides with.
    fn first_token_service(&self) -> f64 {
        self.prefill + self.mixing.riding_steps(self.input, self.batch) * self.step
    }

    /// Latency at `rate` requests per second (`rate` < 1/P; clamped to the capacity).
    pub fn at(&self, rate: f64) -> ServeLoad {
        let cap = self.capacity();
        let r = rate.clamp(0.0, cap);
        let rho = (r * self.prefill).min(1.0 - 1e-12);
        let queue = rho * self.prefill / (2.0 * (1.0 - rho));
        ServeLoad {
            rate_rps: r,
            capacity_rps: cap,
            utilisation: r / cap,
            prefill_share: rho,
            time_per_token: Seconds(self.step / (1.0 - rho)),
            ttft: Seconds(queue + self.first_token_service()),
            ttft_queue: Seconds(queue),
            mixing: self.mixing,
        }
    }

    /// The highest rate (≤ capacity) whose loaded TPOT and TTFT meet the targets; 0 when none
    /// does. TPOT: D/(1 − rP) ≤ T ⇔ r ≤ (1 − D/T)/P. TTFT: S + ρP/(2(1−ρ)) ≤ F with
    /// S the first-token service and A = F − S ⇔ ρ ≤ 2A/(P + 2A).
    pub fn max_rate(&self, tpot: Option<f64>, ttft: Option<f64>) -> f64 {
        let p = self.prefill.max(f64::MIN_POSITIVE);
        let by_tpot = tpot.map_or(f64::INFINITY, |t| (1.0 - self.step / t) / p);
        let by_ttft = ttft.map_or(f64::INFINITY, |f| {
            let a = f - self.first_token_service();
            if a <= 0.0 {
                0.0
            } else {
                2.0 * a / (p + 2.0 * a) / p
            }
        });
        self.capacity().min(by_tpot).min(by_ttft).max(0.0)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn replica(batch: u64, step: f64) -> Replica {
        Replica {
            prefill: 0.2,
            step,
            input: 1000,
            output: 256,
            batch,
            mixing: PrefillMixing::Paused,
        }
    }

    /// The brief's worked example: b = 32, P = 0.2 s, O = 256 at full capacity → D + 25 ms.
    #[test]
    fn full_capacity_adds_b_p_over_o() {
        let r = replica(32, 0.03);
        let l = r.at(r.capacity());
        assert!((l.time_per_token.0 - (0.03 + 32.0 * 0.2 / 256.0)).abs() < 1e-12);
        assert!((l.utilisation - 1.0).abs() < 1e-12);
    }

    /// The rate the targets allow delivers them (to rounding), and one per cent more does not
    /// when a target binds.
    #[test]
    fn max_rate_meets_the_targets_it_was_given() {
        for (t, f) in [(0.05, 10.0), (1.0, 0.25), (0.04, 0.3)] {
            let r = replica(32, 0.03);
            let rate = r.max_rate(Some(t), Some(f));
            assert!(rate > 0.0);
            let l = r.at(rate);
            assert!(l.time_per_token.0 <= t * (1.0 + 1e-9), "{t} {l:?}");
            assert!(l.ttft.0 <= f * (1.0 + 1e-9), "{f} {l:?}");
            if rate < r.capacity() {
                let more = r.at(rate * 1.01);
                assert!(more.time_per_token.0 > t || more.ttft.0 > f, "{more:?}");
            }
        }
        // A target the unloaded step already misses allows no rate.
        assert_eq!(replica(32, 0.06).max_rate(Some(0.05), None), 0.0);
        assert_eq!(replica(32, 0.03).max_rate(None, Some(0.19)), 0.0);
    }

    #[test]
    fn chunks_ride_decode_steps() {
        let c = PrefillMixing::Chunked { budget: 2048 };
        assert_eq!(c.riding_steps(1000, 256), 1.0);
        assert_eq!(c.riding_steps(4000, 256), 3.0);
        assert_eq!(PrefillMixing::Whole.riding_steps(4000, 256), 1.0);
        assert_eq!(PrefillMixing::Paused.riding_steps(4000, 256), 0.0);
    }
}
