//! A serving replica under load: what its users see when it also prefills other requests' prompts
//! and every batch slot may be taken.
//!
//! One replica is one GPU (group) that runs every request's prefill and the batch's decode steps.
//! At `r` requests per second it spends `r·P` of each second prefilling (P: one prompt's prefill),
//! and the decode steps only advance in the rest, so the time per output token a user sees is
//! `D / (1 − r·P)` (D: the decode step at the batch). Sarathi-Serve (Agrawal et al., OSDI'24)
//! measures this inflation of the time between tokens under chunked prefill; without chunking a
//! prefill pauses every running decode for its whole duration (the same mean, larger gaps).
//!
//! The replica holds at most `b` requests at once (vLLM `max_num_seqs`, TensorRT-LLM
//! `max_batch_size`, SGLang `max_running_requests`): a request takes its slot when its prefill is
//! scheduled and keeps it until its last token, `S = F + O·D/(1 − r·P)` seconds (F: the first-token
//! service, the prefill plus the decode steps it rides). The slots are `b` servers of a multi-server
//! queue; they are all busy when `r·S(r) = b`, which is the replica's capacity (below).
//!
//! A request's time to first token is three terms, each a different thing it waits for:
//! 1. **a free slot** (`slot_wait`): with every slot taken it waits for one of the `b` requests in
//!    flight to finish; the multi-server queue of Poisson arrivals and service S
//!    ([`Replica::slot_wait`], Erlang C with the Allen–Cunneen correction);
//! 2. **the prompts ahead** (`queue`): prefill is served first-come first-served (vLLM V1
//!    `Scheduler.schedule`, vllm/v1/core/sched/scheduler.py: "First, schedule the RUNNING
//!    requests", then the WAITING ones in arrival order with the token budget left), Poisson
//!    arrivals and one prompt length make the GPU's prefill work an M/D/1 queue with mean wait
//!    `ρ·P / (2(1 − ρ))`, ρ = r·P (Pollaczek–Khinchine with deterministic service; DistServe, Zhong
//!    et al., OSDI'24 §3.1, models a prefill instance the same way);
//! 3. **its own service** F.
//!
//! Terms 1 and 2 wait for different resources (a slot; the GPU's prefill time) and both happen in
//! the one FCFS waiting line, partly at the same time: their sum is an upper bound on the mean
//! wait, tight when either is small (a lightly loaded replica waits only for prompts, a replica
//! whose slots are nearly all taken mostly for a slot). The slot's service S does not include
//! term 2 (a request that waits for the prompts ahead has not been scheduled and holds no slot).
//! How the prefill shares steps with the decode batch is the engine's ([`PrefillMixing`]).

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
    /// The most it sustains at its batch: the rate at which its `b` slots are all busy
    /// ([`Replica::capacity`]).
    pub capacity_rps: f64,
    /// rate ÷ capacity.
    pub utilisation: f64,
    /// Share of each second spent prefilling, r·P.
    pub prefill_share: f64,
    /// Time per output token under this load: D / (1 − r·P).
    pub time_per_token: Seconds,
    /// Time to first token under this load: slot wait + prefill queue wait + first-token service.
    pub ttft: Seconds,
    /// Of which the M/D/1 wait for the prompts ahead.
    pub ttft_queue: Seconds,
    /// Of which the wait for a free batch slot (Erlang C, Allen–Cunneen; under a closed load,
    /// the excess over the slots by Little's law).
    pub ttft_slot_wait: Seconds,
    pub mixing: PrefillMixing,
    /// A closed load (`--concurrency`): the requests this replica holds at all times, running and
    /// waiting; `None` for an open load (`--rate`, Poisson arrivals).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub in_flight: Option<f64>,
}

/// Squared coefficient of variation of a request's slot time S. Zero: the workload states one
/// input and one output length, so every request holds its slot for the same mean time. If the
/// workload ever states an output-length distribution, this is its squared CV (S is linear in O).
pub const SERVICE_SCV: f64 = 0.0;

/// Design choice, not fitted: without a `--ttft` target the planner runs a replica no harder than
/// the rate where the mean wait for a free slot is this share of a request's unloaded time in its
/// slot, S₀ = F + O·D (the first-token service and its output tokens): a request waits at most a
/// tenth of its own life for a slot. A replica is never planned at its capacity, where that wait is
/// unbounded; the plan prints the utilisation this leaves (`serve.load.utilisation`, "…% of its …
/// req/s capacity"). Tied to F alone (review r6 #3), a small batch (b = 1, F = 0.2 s, O·D = 7.7 s)
/// was held to 0.5% utilisation, ~190× the replicas its load needs.
pub const SLOT_WAIT_SHARE: f64 = 0.1;

/// Relative width at which [`Replica::max_rate`]'s search stops: rates are
/// printed to 0.01 req/s and the replica count is a ceiling, so a billionth changes neither.
const RATE_TOLERANCE: f64 = 1e-9;

/// Erlang C: the probability that a Poisson arrival waits in an M/M/c queue of offered load `a`
/// (erlangs), 1 when `a ≥ c`. Computed from Erlang B's recursion B(0) = 1,
/// B(k) = a·B(k−1) / (k + a·B(k−1)) (run as its reciprocal), then C = B / (1 − ρ(1 − B)),
/// ρ = a/c: no factorial or power, stable for thousands of servers.
pub fn erlang_c(c: u64, a: f64) -> f64 {
    let c = c.max(1);
    if a.is_nan() || a <= 0.0 {
        return 0.0;
    }
    if a >= c as f64 {
        return 1.0;
    }
    // 1/B(k) = 1 + (k/a)·(1/B(k−1)): the same recursion without a division per step. It grows
    // without bound only where B underflows to 0 (c ≫ a), and then C = 0 too, never NaN.
    // A float counter: exact to 2^53 and cheap in unoptimised (test) builds.
    let (per, servers) = (1.0 / a, c as f64);
    let (mut inv, mut k) = (1.0, 1.0);
    while k <= servers {
        inv = 1.0 + k * per * inv;
        k += 1.0;
    }
    let b = 1.0 / inv;
    b / (1.0 - a / c as f64 * (1.0 - b))
}

impl Replica {
    /// Requests per second at full capacity: the rate at which the `b` slots are all busy,
    /// r·S(r) = b with S = F + O·D/(1 − r·P). Multiplied by (1 − r·P) that is
    /// F·P·r² − (F + O·D + b·P)·r + b = 0, whose smaller root, written without cancellation, is
    /// r = 2b / (X + √(X² − 4·F·P·b)), X = F + O·D + b·P (X² − 4FPb ≥ (F − bP)² ≥ 0).
    /// It is below b / (b·P + O·D), the rate at which prefills and full-batch decode steps fill
    /// every second (the rule until 2026-12), because a slot is also held during its own request's
    /// first-token service (r·F slots on average, Little's law). Counting the prefill in one slot only (b / (P + O·D)) let
    /// a T4 claim 3.5 req/s of 1000-token prompts whose prefills alone needed 1.15 s of every
    /// second.
    pub fn capacity(&self) -> f64 {
        self.rate_with_in_flight(self.batch.max(1) as f64)
    }

    /// Requests per second when `b` requests hold slots at all times: r·S(r) = b (Little's law on
    /// the slots), the smaller root of F·P·r² − X·r + b = 0 ([`Replica::capacity`] at b = the
    /// slots). F and D are this replica's, taken at its `batch`.
    fn rate_with_in_flight(&self, b: f64) -> f64 {
        let (f, p) = (self.first_token_service(), self.prefill);
        let x = f + self.output as f64 * self.step + b * p;
        let disc = (x * x - 4.0 * f * p * b).max(0.0);
        2.0 * b / (x + disc.sqrt()).max(f64::EPSILON)
    }

    /// A closed load (`--concurrency`): `in_flight` requests on this replica at all times, a
    /// finished one replaced at once, with `self.step` the decode step at the running batch
    /// n = min(in_flight, slots) and `slots` its batch slots (`max_num_seqs`); `capacity` the
    /// open-load capacity of the full-slot replica, for the report. The running requests complete
    /// at the rate where r·S(r) = n (Little's law: S = F + O·D/(1 − r·P) each), so the rate
    /// follows from the concurrency and is never set near a capacity; no request waits for a slot
    /// while in_flight ≤ slots. The excess, in_flight − slots, waits in line and leaves at that
    /// rate: its mean wait is (in_flight − slots) / r (Little's law again). Identical requests in
    /// a closed loop arrive as others finish, so no second prompt queues behind a prefill: the
    /// prefill wait is 0 (a burst that starts every request at once is a transient, not counted).
    /// `utilisation` is the share of slots taken, n / slots. None when the prefills alone would
    /// fill every second.
    pub fn closed(&self, in_flight: f64, slots: u64, capacity: f64) -> Option<ServeLoad> {
        let slots = slots.max(1) as f64;
        let running = in_flight.clamp(f64::MIN_POSITIVE, slots);
        let r = self.rate_with_in_flight(running);
        let rho = r * self.prefill;
        if !(r.is_finite() && r > 0.0 && rho < 1.0) {
            return None;
        }
        let wait = (in_flight - slots).max(0.0) / r;
        Some(ServeLoad {
            rate_rps: r,
            capacity_rps: capacity,
            utilisation: running / slots,
            prefill_share: rho,
            time_per_token: Seconds(self.step / (1.0 - rho)),
            ttft: Seconds(wait + self.first_token_service()),
            ttft_queue: Seconds(0.0),
            ttft_slot_wait: Seconds(wait),
            mixing: self.mixing,
            in_flight: Some(in_flight),
        })
    }

    /// The unloaded TTFT plus the decode steps the prompt rides with.
    fn first_token_service(&self) -> f64 {
        self.prefill + self.mixing.riding_steps(self.input, self.batch) * self.step
    }

    /// How long a request holds its slot with no load: S₀ = F + O·D.
    pub fn unloaded_slot_time(&self) -> f64 {
        self.first_token_service() + self.output as f64 * self.step
    }

    /// How long a request holds its slot at `rate`: S = F + O·D/(1 − r·P).
    fn slot_time(&self, rate: f64) -> f64 {
        let free = 1.0 - rate * self.prefill;
        self.first_token_service() + self.output as f64 * self.step / free
    }

    /// Mean wait for a free slot at `rate` (infinite at or past the capacity): the Allen–Cunneen
    /// approximation for the M/G/c queue,
    /// Wq ≈ C(c, a) / (c·μ − λ) · (Ca² + Cs²) / 2 = C(c, a) · S / (c − a) · (1 + Cs²) / 2,
    /// with c = b slots, μ = 1/S, λ = rate, a = λ·S, Ca² = 1 (Poisson arrivals) and
    /// Cs² = [`SERVICE_SCV`]. As implemented in A-Herzog/QueueSim
    /// queuesim/analytic/ac_approx.py @1c3dacc, `EW`:
    /// `return self.__erlang_enq * 1 / self.__l * (self.__scv_i + self.__scv_s) / 2`, with
    /// `erlang_enq` M/M/c's E[N_Q] = C·ρ/(1 − ρ); the formula is Allen's (A. O. Allen,
    /// *Probability, Statistics and Queueing Theory*, 2nd ed., 1990). Exact for M/M/c (Cs² = 1)
    /// and for M/D/1 (c = 1: ρ·S / (2(1 − ρ)), Pollaczek–Khinchine).
    pub fn slot_wait(&self, rate: f64) -> f64 {
        let c = self.batch.max(1);
        let s = self.slot_time(rate);
        let a = rate.max(0.0) * s;
        if !(s > 0.0 && a < c as f64) || rate * self.prefill >= 1.0 {
            return f64::INFINITY;
        }
        erlang_c(c, a) * s / (c as f64 - a) * (1.0 + SERVICE_SCV) / 2.0
    }

    /// Latency at `rate` requests per second; None at or past the capacity, where the wait for a
    /// slot has no finite mean (the plan never runs a replica there: see [`Replica::max_rate`]).
    pub fn at(&self, rate: f64) -> Option<ServeLoad> {
        let cap = self.capacity();
        let r = rate.max(0.0);
        let rho = r * self.prefill;
        let slot = self.slot_wait(r);
        if !(r < cap && rho < 1.0 && slot.is_finite()) {
            return None;
        }
        let queue = rho * self.prefill / (2.0 * (1.0 - rho));
        Some(ServeLoad {
            rate_rps: r,
            capacity_rps: cap,
            utilisation: r / cap,
            prefill_share: rho,
            time_per_token: Seconds(self.step / (1.0 - rho)),
            ttft: Seconds(slot + queue + self.first_token_service()),
            ttft_queue: Seconds(queue),
            ttft_slot_wait: Seconds(slot),
            mixing: self.mixing,
            in_flight: None,
        })
    }

    /// The highest rate (below capacity) whose loaded TPOT and TTFT meet the targets; 0 when none
    /// does. TPOT: D/(1 − rP) ≤ T ⇔ r ≤ (1 − D/T)/P. TTFT rises with the rate (each of its terms
    /// does, and without bound at the capacity), so the rate where it meets `ttft` is the one
    /// root of a rising function on [0, min(capacity, TPOT bound)], found by [`last_within`].
    /// Without a TTFT target the slot wait is held to [`SLOT_WAIT_SHARE`] of the unloaded slot
    /// time instead.
    pub fn max_rate(&self, tpot: Option<f64>, ttft: Option<f64>) -> f64 {
        let p = self.prefill.max(f64::MIN_POSITIVE);
        let by_tpot = tpot.map_or(f64::INFINITY, |t| (1.0 - self.step / t) / p);
        let share = SLOT_WAIT_SHARE * self.unloaded_slot_time();
        // How far over its limit the TTFT (or the slot wait) is at `r`; +∞ at the capacity.
        let over = |r: f64| {
            self.at(r).map_or(f64::INFINITY, |l| match ttft {
                Some(f) => l.ttft.0 - f,
                None => l.ttft_slot_wait.0 - share,
            })
        };
        let top = self.capacity().min(by_tpot);
        if top.is_nan() || top <= 0.0 || over(0.0) > 0.0 {
            return 0.0;
        }
        last_within(over, top)
    }
}

/// The largest r in [0, top] with `over(r)` ≤ 0, for `over` rising with r, ≤ 0 at 0 and possibly
/// +∞ at `top` (a queue's pole). A bracketing search of at most 60 steps that stops at a relative
/// width of [`RATE_TOLERANCE`]: each step is the secant of the bracket's ends (regula falsi, with
/// the Illinois rule halving the value of an end that stays twice so that both ends converge), or
/// the bisection while an end is infinite or the secant leaves the bracket. Plain bisection took
/// about 30 evaluations, each an Erlang C of up to `max_num_seqs` steps, on every batch the search
/// tries; this takes about a third of that.
fn last_within(over: impl Fn(f64) -> f64, top: f64) -> f64 {
    let (mut lo, mut f_lo) = (0.0, over(0.0));
    let (mut hi, mut f_hi) = (top, over(top));
    if f_hi <= 0.0 {
        return top;
    }
    let mut kept = 0i8; // which end stayed last: −1 the low one, 1 the high one
    for _ in 0..60 {
        if hi - lo <= hi * RATE_TOLERANCE {
            break;
        }
        let secant = hi - f_hi * (hi - lo) / (f_hi - f_lo);
        let x = if f_hi.is_finite() && secant > lo && secant < hi {
            secant
        } else {
            0.5 * (lo + hi)
        };
        let f = over(x);
        if f <= 0.0 {
            (lo, f_lo) = (x, f);
            if kept == 1 {
                f_hi *= 0.5;
            }
            kept = 1;
        } else {
            (hi, f_hi) = (x, f);
            if kept == -1 {
                f_lo *= 0.5;
            }
            kept = -1;
        }
    }
    lo
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

    /// The capacity is where the `b` slots are all busy: r·S(r) = b, S = F + O·D/(1 − r·P). It is
    /// below b / (b·P + O·D) (prefills and full-batch decode steps filling each second), and no
    /// latency is reported there.
    #[test]
    fn capacity_is_where_every_slot_is_taken() {
        for (b, d) in [(1, 0.01), (32, 0.03), (256, 0.05)] {
            let r = replica(b, d);
            let cap = r.capacity();
            let busy = cap * r.slot_time(cap);
            assert!(
                (busy - b as f64).abs() < 1e-9 * b as f64,
                "{busy} slots of {b}"
            );
            let prefill_and_decode = b as f64 / (b as f64 * 0.2 + 256.0 * d);
            assert!(cap < prefill_and_decode, "{cap} vs {prefill_and_decode}");
            assert!(r.at(cap).is_none() && r.at(cap * 1.5).is_none());
            assert!(r.at(cap * (1.0 - 1e-9)).is_some());
        }
    }

    /// Hand-checked Erlang C values: c = 2, a = 1 → 1/3; c = 3, a = 2 → 4/9 (the M/M/c sums
    /// P(wait) = (a^c/c!)(c/(c−a)) / (Σ_{k<c} a^k/k! + (a^c/c!)(c/(c−a)))); one server: C = ρ (M/M/1);
    /// no load: 0; saturated: 1. Thousands of servers neither overflow nor lose the answer.
    #[test]
    fn erlang_c_matches_the_textbook() {
        assert!((erlang_c(2, 1.0) - 1.0 / 3.0).abs() < 1e-15);
        assert!((erlang_c(3, 2.0) - 4.0 / 9.0).abs() < 1e-15);
        for a in [0.1, 0.5, 0.9, 0.999] {
            assert!((erlang_c(1, a) - a).abs() < 1e-15, "{a}");
        }
        assert_eq!(erlang_c(8, 0.0), 0.0);
        assert_eq!(erlang_c(8, 8.0), 1.0);
        let big = erlang_c(5000, 4990.0);
        assert!(big.is_finite() && big > 0.5 && big < 1.0, "{big}");
        // More servers at the same utilisation wait less (economy of scale).
        assert!(erlang_c(4000, 3600.0) < erlang_c(40, 36.0));
    }

    /// A replica whose slot time is worked by hand: Paused mixing (F = P), O = 100 steps of
    /// 10 ms, so S(λ) = P + 1 s / (1 − λ·P).
    fn by_hand(batch: u64, prefill: f64) -> Replica {
        Replica {
            prefill,
            step: 0.01,
            input: 1000,
            output: 100,
            batch,
            mixing: PrefillMixing::Paused,
        }
    }

    /// One slot is M/D/1 (Poisson arrivals, one service time): Pollaczek–Khinchine's mean wait
    /// W = λ·E[S²] / (2(1 − ρ)) = ρ·S / (2(1 − ρ)), ρ = λ·S, with λ and S set here, not read
    /// from the code. No prefill: S = 1 s, λ = 0.8/s → ρ = 0.8, W = 0.8 / 0.4 = 2 s. P = 0.2 s,
    /// λ = 0.5/s: S = 0.2 + 1/0.9 = 59/45 s, ρ = 59/90, W = (59/90)(59/45) / (2·31/90) =
    /// 3481/2790 s.
    #[test]
    fn one_slot_is_m_d_1() {
        let w = by_hand(1, 0.0).slot_wait(0.8);
        assert!((w - 2.0).abs() < 1e-12, "{w}");
        let w = by_hand(1, 0.2).slot_wait(0.5);
        assert!((w - 3481.0 / 2790.0).abs() < 1e-12, "{w}");
    }

    /// Erlang C written as the M/M/c sum, with factorials and powers (fine for small c):
    /// C(c, a) = (a^c/c!)(c/(c−a)) / (Σ_{k<c} a^k/k! + (a^c/c!)(c/(c−a))).
    fn erlang_c_by_sum(c: u64, a: f64) -> f64 {
        let term = |k: u64| (1..=k).fold(1.0, |t, i| t * a / i as f64);
        let tail = term(c) * c as f64 / (c as f64 - a);
        tail / ((0..c).map(term).sum::<f64>() + tail)
    }

    /// The recursion in [`erlang_c`] against the direct sum, c = 2…40 across loads. By hand:
    /// C(4, 3) = 13.5 / (13 + 13.5) = 27/53 (a^c/c! = 81/24, c/(c−a) = 4, Σ = 1 + 3 + 4.5 + 4.5).
    #[test]
    fn erlang_c_matches_the_direct_sum() {
        assert!((erlang_c_by_sum(4, 3.0) - 27.0 / 53.0).abs() < 1e-15);
        assert!((erlang_c(4, 3.0) - 27.0 / 53.0).abs() < 1e-12);
        for c in [2, 3, 5, 8, 16, 40] {
            for u in [0.1, 0.5, 0.8, 0.95, 0.999] {
                let a = u * c as f64;
                let (got, want) = (erlang_c(c, a), erlang_c_by_sum(c, a));
                assert!(
                    (got - want).abs() < 1e-10 * want.max(1e-300),
                    "c {c} a {a}: {got} vs {want}"
                );
            }
        }
    }

    /// Several slots: Allen–Cunneen with deterministic service, Wq = C(c, a)·S / (c − a) · 1/2.
    /// c = 4, S = 1 s (no prefill), λ = 3/s: a = 3, C = 27/53, Wq = 27/106 s.
    #[test]
    fn several_slots_wait_by_hand() {
        let w = by_hand(4, 0.0).slot_wait(3.0);
        assert!((w - 27.0 / 106.0).abs() < 1e-12, "{w}");
    }

    /// The rate the targets allow delivers them (to rounding), and one per cent more does not
    /// when a target binds; without a TTFT target the slot wait stays within its share.
    #[test]
    fn max_rate_meets_the_targets_it_was_given() {
        for (t, f) in [(0.05, 10.0), (1.0, 0.25), (0.04, 0.3)] {
            let r = replica(32, 0.03);
            let rate = r.max_rate(Some(t), Some(f));
            assert!(rate > 0.0 && rate < r.capacity());
            let l = r.at(rate).expect("below capacity");
            assert!(l.time_per_token.0 <= t * (1.0 + 1e-9), "{t} {l:?}");
            assert!(l.ttft.0 <= f * (1.0 + 1e-9), "{f} {l:?}");
            let more = r.at(rate * 1.01);
            assert!(
                more.is_none_or(|m| m.time_per_token.0 > t || m.ttft.0 > f),
                "{more:?}"
            );
        }
        let r = replica(32, 0.03);
        let l = r.at(r.max_rate(None, None)).expect("below capacity");
        let share = l.ttft_slot_wait.0 / r.unloaded_slot_time();
        assert!((share - SLOT_WAIT_SHARE).abs() < 1e-6, "{share}");
        // A one-slot replica (M/D/1 on the slot): the cap on its wait is a tenth of S₀, so
        // ρS₀/(2(1 − ρ)) = 0.1·S₀ gives ρ = 1/6 (to the prefill queue's small share): not the
        // 0.5% a cap on F alone left it.
        let one = replica(1, 0.03);
        let l1 = one.at(one.max_rate(None, None)).expect("below capacity");
        assert!(l1.utilisation > 0.1 && l1.utilisation < 0.2, "{l1:?}");
        assert!(l.utilisation < 1.0, "{l:?}");
        // A target the unloaded step already misses allows no rate.
        assert_eq!(replica(32, 0.06).max_rate(Some(0.05), None), 0.0);
        assert_eq!(replica(32, 0.03).max_rate(None, Some(0.19)), 0.0);
    }

    /// A closed load (`--concurrency`): C requests in flight within the slots never wait for
    /// one, the rate is Little's law's r·S(r) = C, and only the requests beyond the slots wait,
    /// (C − slots) / r on average.
    #[test]
    fn a_closed_load_waits_only_beyond_its_slots() {
        let r = replica(8, 0.02);
        let l = r.closed(8.0, 52, 3.0).expect("prefills fit");
        assert_eq!(l.ttft_slot_wait.0, 0.0);
        assert_eq!(l.ttft.0, r.first_token_service());
        let busy = l.rate_rps * r.slot_time(l.rate_rps);
        assert!((busy - 8.0).abs() < 1e-9, "{busy}");
        assert!((l.utilisation - 8.0 / 52.0).abs() < 1e-12);
        assert_eq!(l.in_flight, Some(8.0));
        // Twelve in flight on eight slots: eight run, four wait (C − slots) / r.
        let over = r.closed(12.0, 8, 3.0).expect("prefills fit");
        let want = 4.0 / over.rate_rps;
        assert!((over.ttft_slot_wait.0 - want).abs() < 1e-12, "{over:?}");
        assert!((over.rate_rps - l.rate_rps).abs() < 1e-12);
        // The open load at the same rate queues for a slot (Erlang C > 0): the old answer.
        assert!(r.at(0.9 * r.capacity()).expect("below").ttft_slot_wait.0 > 0.0);
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
