//! Collective-communication terms of the training step (issue 10, item 4): the latency a
//! collective pays that grows with the number of ranks, and how many collectives ZeRO-3/FSDP
//! issues per micro-batch. Bandwidth terms stay in `train::training_step`.

use crate::units::Seconds;

/// Latency of one ring collective (all-gather or reduce-scatter) over `p` ranks: `p − 1` hops of
/// `alpha` each. NCCL runs all-gather and reduce-scatter on rings only (its tree algorithm is for
/// all-reduce), so at hundreds of ranks this term grows linearly with the data-parallel size.
pub fn ring_latency(p: u64, alpha: Seconds) -> Seconds {
    if p <= 1 {
        Seconds(0.0)
    } else {
        alpha * (p - 1) as f64
    }
}

/// Collectives ZeRO-3/FSDP issues per micro-batch on one device: every layer's parameters are
/// all-gathered for forward and again for backward, and its gradients reduce-scattered (ZeRO §7),
/// one collective per weight tensor (DeepSpeed fetches parameters per sub-module; FSDP wraps per
/// layer, so `tensors_per_layer` = 1 there). The small parameters of a layer (norms, biases)
/// travel as one more tensor.
pub fn zero3_collectives_per_micro(layers_on_device: u64, tensors_per_layer: u64) -> f64 {
    3.0 * layers_on_device as f64 * tensors_per_layer as f64
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ring_latency_grows_with_ranks() {
        let a = Seconds(5e-6);
        assert_eq!(ring_latency(1, a), Seconds(0.0));
        assert!((ring_latency(1536, a).0 - 1535.0 * 5e-6).abs() < 1e-12);
        assert!(ring_latency(1536, a).0 > 3.9 * ring_latency(384, a).0);
    }

    #[test]
    fn zero3_counts_three_collectives_per_tensor() {
        assert_eq!(zero3_collectives_per_micro(96, 5), 1440.0);
    }
}
