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

/// `stage3_param_persistence_threshold` default: tensors with fewer elements stay gathered.
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
    let n = linears.len();
    let id = |l: usize, k: usize| 1 + l * n + k;
    let mut t = Vec::with_capacity(2 + layers as usize * n * 3 + 2);
    let has_head = head > 0.0;
    if has_head {
        t.push((0, head));
    }
    for l in 0..layers as usize {
        t.extend(linears.iter().enumerate().map(|(k, &p)| (id(l, k), p)));
    }
    if has_head {
        t.extend([(0, head), (0, head)]);
    }
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
    if has_head {
        t.push((0, head));
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
    let ids = 1 + layers as usize * linears.len();
    let mut last: Vec<Option<usize>> = vec![None; ids];
    let (mut gathers, mut params) = (0.0, 0.0);
    for (i, &(id, p)) in t.iter().enumerate() {
        let kept = last[id].is_some_and(|j| prefix[i] - prefix[j + 1] < MAX_REUSE_DISTANCE);
        if p >= PERSISTENCE_THRESHOLD && !kept {
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
}
