//! DeepSpeed ZeRO-3's parameter fetches in one micro-batch (Megatron-DeepSpeed: `framework =
//! megatron` with ZeRO-3): which weight tensors are all-gathered, and how often.
//!
//! DeepSpeed fetches a sub-module's parameters in its forward pre-hook and again in its backward
//! pre-hook, and releases them after use unless the tensor is used again within
//! `stage3_max_reuse_distance` parameters of sub-module work (default 1e9) or is smaller than
//! `stage3_param_persistence_threshold` (default 1e5 elements: such tensors stay gathered).
//! Sources: microsoft/DeepSpeed v0.3.13 (the ZeRO-3 of spring 2021)
//! deepspeed/runtime/zero/stage3.py `pre_sub_module_forward_function` /
//! `pre_sub_module_backward_function` (fetch), `PartitionedParameterCoordinator.release_sub_module`
//! and `_keep_for_later` (reuse distance), `persistent_parameters` (threshold), defaults in
//! deepspeed/runtime/zero/constants.py lines 91 and 100; the same rule and defaults at
//! @38327e07 (2025-02): partitioned_param_coordinator.py `__params_to_release`, config.py lines
//! 214 and 237. Full activation recompute re-runs each layer's forward inside backward, and the
//! forward pre-hooks fire again: the layer's weights, released after the first forward (a whole
//! model's worth of later work lies between), are gathered a third time unless used within the
//! reuse distance.

/// `stage3_param_persistence_threshold` default: tensors of at most this many elements stay
/// gathered (partition_parameters.py @38327e07 l.1130: `param.ds_numel <= Init.param_persistence_threshold`).
const PERSISTENCE_THRESHOLD: f64 = 1e5;
/// `stage3_max_reuse_distance` default: a tensor used again within this many parameters of
/// sub-module work is kept gathered.
const MAX_REUSE_DISTANCE: f64 = 1e9;

/// All-gathers of weight tensors in one micro-batch.
#[derive(Clone, Copy, Debug, PartialEq)]
pub(crate) struct Fetches {
    /// All-gather collectives (one per fetched tensor).
    pub gathers: f64,
    /// Parameters all-gathered, summed over the gathers.
    pub params: f64,
    /// Parameters one pass over the model touches (the forward's tensors, each once).
    pub one_pass: f64,
}

impl Fetches {
    /// Gathered parameters in units of one pass over the model (FSDP and the ZeRO paper: 2).
    pub fn passes(&self) -> f64 {
        if self.one_pass > 0.0 {
            self.params / self.one_pass
        } else {
            0.0
        }
    }
}

/// The sub-module uses of one micro-batch in order, as (tensor id, elements): the embedding,
/// each layer's linears, the (tied) output head; then backward from the head, each layer
/// (re-running its forward first under full recompute) and the embedding. Id 0 is the
/// embedding/head weight; `head` = 0 leaves it out.
fn trace(linears: &[f64], layers: u64, head: f64, full_recompute: bool) -> Vec<(usize, f64)> {
    trace_ends(linears, layers, Ends::tied(head), full_recompute)
}

/// The embedding and the output head of a trace: one tied tensor (id 0) or two (the head's id
/// after the layers'); 0 elements leaves a tensor out. `embedding_backward`: the embedding runs
/// a backward (a trained table; a frozen one, as under PEFT, outputs no tensor that requires a
/// gradient, so its backward pre-hook never fires).
#[derive(Clone, Copy, Debug, PartialEq)]
pub(crate) struct Ends {
    pub embedding: f64,
    pub head: f64,
    pub tied: bool,
    pub embedding_backward: bool,
}

impl Ends {
    pub fn tied(elements: f64) -> Ends {
        Ends {
            embedding: elements,
            head: elements,
            tied: true,
            embedding_backward: true,
        }
    }
}

/// [`trace`] with the embedding and head as `ends` says.
fn trace_ends(linears: &[f64], layers: u64, ends: Ends, full_recompute: bool) -> Vec<(usize, f64)> {
    let n = linears.len();
    let id = |l: usize, k: usize| 1 + l * n + k;
    let head_id = if ends.tied {
        0
    } else {
        1 + layers as usize * n
    };
    let emb = (ends.embedding > 0.0).then_some((0, ends.embedding));
    let head = (ends.head > 0.0).then_some((head_id, ends.head));
    let mut t = Vec::with_capacity(2 + layers as usize * n * 3 + 2);
    t.extend(emb);
    for l in 0..layers as usize {
        t.extend(linears.iter().enumerate().map(|(k, &p)| (id(l, k), p)));
    }
    t.extend(head);
    t.extend(head);
    for l in (0..layers as usize).rev() {
        if full_recompute {
            t.extend(linears.iter().enumerate().map(|(k, &p)| (id(l, k), p)));
        }
        t.extend(
            linears
                .iter()
                .enumerate()
                .rev()
                .map(|(k, &p)| (id(l, k), p)),
        );
    }
    if ends.embedding_backward {
        t.extend(emb);
    }
    t
}

/// DeepSpeed ZeRO-3's gathers in one micro-batch of a stack of `layers` identical layers whose
/// weight tensors have `linears` elements each (forward order), plus a tied embedding/head of
/// `head` elements. A use gathers its tensor unless the tensor is below the persistence
/// threshold or was kept since its previous use (the work in between, counted in parameters as
/// DeepSpeed does, under the reuse distance).
pub(crate) fn deepspeed_fetches(
    linears: &[f64],
    layers: u64,
    head: f64,
    full_recompute: bool,
) -> Fetches {
    let t = trace(linears, layers, head, full_recompute);
    let mut prefix = Vec::with_capacity(t.len() + 1);
    prefix.push(0.0);
    for &(_, p) in &t {
        prefix.push(prefix.last().copied().unwrap_or(0.0) + p);
    }
    let ids = 2 + layers as usize * linears.len();
    let mut last: Vec<Option<usize>> = vec![None; ids];
    let (mut gathers, mut params) = (0.0, 0.0);
    for (i, &(id, p)) in t.iter().enumerate() {
        let kept = last[id].is_some_and(|j| prefix[i] - prefix[j + 1] < MAX_REUSE_DISTANCE);
        if p > PERSISTENCE_THRESHOLD && !kept {
            gathers += 1.0;
            params += p;
        }
        last[id] = Some(i);
    }
    let one_pass = linears.iter().sum::<f64>() * layers as f64 + head;
    Fetches {
        gathers,
        params,
        one_pass,
    }
}

/// `stage3_prefetch_bucket_size` default, elements (config.py @38327e07 l.208).
pub(crate) const PREFETCH_BUCKET: f64 = 5e7;
/// `stage3_max_live_parameters` default, elements (config.py @38327e07 l.231).
pub(crate) const MAX_LIVE: f64 = 1e9;

/// The coordinator's limits, in elements of the gathered dtype: `stage3_prefetch_bucket_size`
/// and `stage3_max_live_parameters` (tunables `deepspeed_prefetch_bucket_melements`,
/// `deepspeed_max_live_melements`); the persistence threshold and the reuse distance are
/// DeepSpeed's defaults, as the step time's fetch count takes them.
#[derive(Clone, Copy, Debug, PartialEq)]
pub(crate) struct Limits {
    pub prefetch_bucket: f64,
    pub max_live: f64,
}

impl Default for Limits {
    fn default() -> Self {
        Limits {
            prefetch_bucket: PREFETCH_BUCKET,
            max_live: MAX_LIVE,
        }
    }
}

/// Most elements DeepSpeed ZeRO-3 holds gathered at once in one micro-batch (persistent tensors,
/// below the threshold, left out), replaying `PartitionedParameterCoordinator` on the trace of
/// [`trace_ends`] once the trace is complete (every step after the first). Source: DeepSpeed
/// @38327e07 deepspeed/runtime/zero/partitioned_param_coordinator.py:
/// - `fetch_sub_module`: all-gathers the module's parameters that are not available, pops its
///   entry off the parameter queue, then prefetches queue entries that are not available while
///   the elements prefetched stay under `min(max_live − n_available, prefetch_bucket)` (the
///   bound is checked before each entry, so one tensor larger than the bucket still goes);
///   entries of available tensors are popped and remembered (`__most_recent_step_id_param_fetched_for`);
/// - `release_sub_module` → `__params_to_release`: after the module runs, its tensors are freed
///   unless persistent, unless prefetch already passed a later use of them, or unless they are
///   used again within `stage3_max_reuse_distance` elements of the modules that follow.
///
/// The live set is taken while a module computes: after its fetch and the prefetch it starts;
/// its most in each part of the micro-batch ([`Live`]).
pub(crate) fn deepspeed_live_peak(
    linears: &[f64],
    layers: u64,
    ends: Ends,
    full_recompute: bool,
    limits: Limits,
) -> Live {
    let t = trace_ends(linears, layers, ends, full_recompute);
    // Trace positions: the embedding and the layers' forward, the head's two uses, backward.
    let forward_end = usize::from(ends.embedding > 0.0) + layers as usize * linears.len();
    let head_end = forward_end + 2 * usize::from(ends.head > 0.0);
    let mut c = Coordinator::new(&t, 2 + layers as usize * linears.len(), limits);
    let mut peak = Live::default();
    for i in 0..t.len() {
        let Some(live) = c.run(i) else { continue };
        let part = if i < forward_end {
            &mut peak.forward
        } else if i < head_end {
            &mut peak.head
        } else {
            &mut peak.backward
        };
        *part = part.max(live);
    }
    peak
}

/// The state of DeepSpeed's `PartitionedParameterCoordinator` over one trace.
struct Coordinator<'a> {
    t: &'a [(usize, f64)],
    limits: Limits,
    /// Next use of the same tensor, per trace position.
    next: Vec<Option<usize>>,
    /// Elements of the trace before each position.
    prefix: Vec<f64>,
    available: Vec<bool>,
    /// Trace position of the latest use whose queue entry was popped (DeepSpeed: -1e10).
    popped_for: Vec<Option<usize>>,
    /// Gathered elements (`__n_available_params`).
    live: f64,
    /// The parameter queue's head, a trace position.
    queue: usize,
}

fn persistent(elements: f64) -> bool {
    elements <= PERSISTENCE_THRESHOLD
}

impl<'a> Coordinator<'a> {
    fn new(t: &'a [(usize, f64)], ids: usize, limits: Limits) -> Self {
        let mut prefix = Vec::with_capacity(t.len() + 1);
        prefix.push(0.0);
        for &(_, p) in t {
            prefix.push(prefix.last().copied().unwrap_or(0.0) + p);
        }
        Coordinator {
            t,
            limits,
            next: next_uses(t, ids),
            prefix,
            available: vec![false; ids],
            popped_for: vec![None; ids],
            live: 0.0,
            queue: 0,
        }
    }

    /// Trace position `i`: fetch, prefetch, and release after the module runs; the gathered
    /// elements while it runs (`None` for a persistent tensor, always gathered).
    fn run(&mut self, i: usize) -> Option<f64> {
        let (id, p) = self.t[i];
        if persistent(p) {
            self.queue = self.queue.max(i + 1);
            return None;
        }
        if !self.available[id] {
            self.available[id] = true;
            self.live += p;
        }
        if self.popped_for[id].is_none_or(|j| j < i) {
            self.queue = i + 1;
            self.popped_for[id] = Some(i);
        }
        self.prefetch();
        let live = self.live;
        let passed_later = self.popped_for[id].is_some_and(|j| j > i);
        let reused =
            self.next[i].is_some_and(|j| self.prefix[j] - self.prefix[i + 1] < MAX_REUSE_DISTANCE);
        if !passed_later && !reused {
            self.available[id] = false;
            self.live -= p;
        }
        Some(live)
    }

    /// Pops queue entries while the elements taken stay under the room left (checked before
    /// each), all-gathering those not available.
    fn prefetch(&mut self) {
        let room = (self.limits.max_live - self.live).min(self.limits.prefetch_bucket);
        let mut prefetching = 0.0;
        while self.queue < self.t.len() && prefetching < room {
            let (q, n) = self.t[self.queue];
            if !persistent(n) && !self.available[q] {
                self.available[q] = true;
                prefetching += n;
            }
            let at = self.queue;
            self.popped_for[q] = Some(self.popped_for[q].map_or(at, |j| j.max(at)));
            self.queue += 1;
        }
        self.live += prefetching;
    }
}

/// Most elements gathered at once in each part of a micro-batch.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub(crate) struct Live {
    /// The embedding and the layers' forward (a checkpointed layer's forward included).
    pub forward: f64,
    /// The LM head's forward and backward: what is gathered around the loss.
    pub head: f64,
    /// The layers' backward (their recompute included) and the embedding's.
    pub backward: f64,
}

impl Live {
    pub fn max(&self) -> f64 {
        self.forward.max(self.head).max(self.backward)
    }
}

/// For each trace position, the next position that uses the same tensor.
fn next_uses(t: &[(usize, f64)], ids: usize) -> Vec<Option<usize>> {
    let mut seen: Vec<Option<usize>> = vec![None; ids];
    let mut next = vec![None; t.len()];
    for (i, &(id, _)) in t.iter().enumerate().rev() {
        next[i] = seen[id].replace(i);
    }
    next
}

#[cfg(test)]
mod tests {
    use super::*;

    /// GPT-3 175B (h = 12288): qkv 3h², proj h², fc1 4h², fc2 4h²; tied 51200 × h head.
    fn gpt3() -> (Vec<f64>, f64) {
        let h = 12288.0_f64;
        (
            vec![3.0 * h * h, h * h, 4.0 * h * h, 4.0 * h * h],
            51200.0 * h,
        )
    }

    #[test]
    fn full_recompute_gathers_a_large_layer_three_times_but_the_last_linear_twice() {
        let (lin, head) = gpt3();
        let f = deepspeed_fetches(&lin, 96, head, true);
        // forward 4, recompute 4, backward 3 per layer: fc2's backward follows its recompute
        // directly (distance 0); fc1's is 2 × fc2 = 1.2e9 elements later (> 1e9): gathered again.
        // The head: embedding (forward), logits (forward and backward share one gather:
        // distance 0), embedding backward (the whole backward lies between).
        assert_eq!(f.gathers, 96.0 * 11.0 + 3.0);
        let h = 12288.0_f64;
        let expect = 96.0 * h * h * (12.0 + 12.0 + 8.0) + 3.0 * head;
        assert!((f.params - expect).abs() < 1.0, "{} vs {expect}", f.params);
        assert!((f.passes() - 2.67).abs() < 0.01, "{}", f.passes());
    }

    #[test]
    fn without_recompute_each_large_tensor_is_gathered_for_forward_and_backward() {
        let (lin, _) = gpt3();
        let f = deepspeed_fetches(&lin, 96, 0.0, false);
        // The last layer's fc2 is reused at distance 0 (forward then its backward); fc1 at
        // 2 × fc2 > 1e9: gathered; every earlier layer has a whole layer between.
        assert_eq!(f.gathers, 96.0 * 8.0 - 1.0);
        assert!((f.passes() - 2.0).abs() < 0.01, "{}", f.passes());
    }

    #[test]
    fn small_models_keep_weights_between_recompute_and_backward() {
        // h = 2048 (a 1.3B-class layer): a layer is 50M elements, so the backward right after
        // the layer's recompute reuses its weights, and the last layers' forward weights are
        // still gathered when their recompute comes (distance under 1e9).
        let h = 2048.0_f64;
        let lin = [3.0 * h * h, h * h, 4.0 * h * h, 4.0 * h * h];
        let f = deepspeed_fetches(&lin, 24, 0.0, true);
        assert!(f.passes() < 2.0, "{}", f.passes());
        assert!(f.passes() > 1.5, "{}", f.passes());
    }

    #[test]
    fn tensors_below_the_persistence_threshold_are_never_gathered() {
        let f = deepspeed_fetches(&[50_000.0, 90_000.0], 4, 0.0, true);
        assert_eq!(f.gathers, 0.0);
        assert_eq!(f.params, 0.0);
    }

    fn untied(embedding: f64, head: f64) -> Ends {
        Ends {
            embedding,
            head,
            tied: false,
            embedding_backward: true,
        }
    }

    #[test]
    fn a_tensor_larger_than_the_prefetch_bucket_is_prefetched_whole() {
        // Ten layers of one 6e8-element tensor: its backward lies ≥ 1.2e9 elements after its
        // forward (beyond the reuse distance) except the last layer's. In forward the running
        // tensor and the next one (the bucket's bound is checked before each entry) are live.
        let live = deepspeed_live_peak(&[6e8], 10, untied(0.0, 0.0), false, Limits::default());
        assert_eq!(live.forward, 1.2e9);
        // stage3_max_live_parameters at one tensor: no room to prefetch.
        let one = Limits {
            max_live: 6e8,
            ..Limits::default()
        };
        let live = deepspeed_live_peak(&[6e8], 10, untied(0.0, 0.0), false, one);
        assert_eq!(live.forward, 6e8);
        assert_eq!(live.backward, 6e8);
    }

    #[test]
    fn tensors_used_again_within_the_reuse_distance_stay_gathered() {
        // Four layers of one 1e8 tensor: each forward use is followed by its backward within
        // 2 × 3e8 elements, so every layer is kept from its forward to its backward.
        let live = deepspeed_live_peak(&[1e8], 4, untied(0.0, 0.0), false, Limits::default());
        assert_eq!(live.forward, 4e8);
        assert_eq!(live.backward, 4e8);
        // An untied 2e8 head: gathered with all four layers around the loss.
        let live = deepspeed_live_peak(&[1e8], 4, untied(0.0, 2e8), false, Limits::default());
        assert_eq!(live.head, 6e8);
    }

    #[test]
    fn persistent_tensors_are_not_counted_as_gathered() {
        let live = deepspeed_live_peak(&[9e4, 1e5], 8, untied(0.0, 0.0), true, Limits::default());
        assert_eq!(live.max(), 0.0);
    }

    /// Llama-2-70B (h 8192, MLP 28672, 8 KV heads) under LoRA with full recompute: DeepSpeed's
    /// defaults keep about a layer and a half gathered (the layer's recompute-to-backward reuse
    /// plus prefetch), not the estimator's two layers (1.71e9).
    #[test]
    fn llama2_70b_gathers_about_a_layer_and_a_half() {
        let (h, f, kv) = (8192.0_f64, 28672.0_f64, 1024.0_f64);
        let lin = [h * h, h * kv, h * kv, h * h, h * f, h * f, f * h];
        let ends = Ends {
            embedding_backward: false,
            ..untied(32000.0 * h, 32000.0 * h)
        };
        let live = deepspeed_live_peak(&lin, 80, ends, true, Limits::default());
        let layer: f64 = lin.iter().sum();
        assert!(
            (live.max() / layer - 1.36).abs() < 0.01,
            "{}",
            live.max() / layer
        );
    }
}
