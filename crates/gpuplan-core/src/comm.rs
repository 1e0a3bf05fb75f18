//! Collective-communication terms of the training step (issue 10, item 4): the latency a
//! collective pays that grows with the number of ranks, and how many collectives ZeRO-3/FSDP
//! issues per micro-batch. Bandwidth terms stay in `train::training_step`.

use crate::constants::Tunables;
use crate::units::{Bandwidth, Bytes, Seconds};
use serde::Serialize;

/// A collective of NCCL's cost model.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Collective {
    AllReduce,
    AllGather,
    ReduceScatter,
}

/// The link class of the hops inside a node (NCCL's `intraHw`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum IntraClass {
    NvLink,
    Pcie,
}

/// Where a collective runs: `ranks` devices over `nodes` nodes, with the job's NCCL release
/// where the workload states it (`nccl_version`).
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Group {
    pub ranks: u64,
    pub nodes: u64,
    pub intra: IntraClass,
    pub nccl: Option<[u64; 3]>,
}

/// NCCL releases whose cost model charges a multi-node ring all-reduce `2·nNodes` network steps
/// (src/graph/tuning.cc @v2.12.12-1 line 114 to @v2.22.3-1 line 159: `nInterSteps = coll ==
/// ncclFuncAllReduce ? (nNodes > 1 ? 2*nNodes :0)`); v2.11.4-1 (line 115) and v2.23.4-1 onwards
/// (line 258: `coll == ncclFuncAllReduce ? 2*(nNodes-1) : nNodes-1`) charge `2·(nNodes−1)`.
const NCCL_INTER_STEPS_2N: ([u64; 3], [u64; 3]) = ([2, 12, 0], [2, 23, 0]);

/// Network steps of a ring collective over `nodes` nodes in NCCL's cost model: all-reduce
/// `2·nodes` in 2.12–2.22 (the NCCL of PyTorch 1.13–2.5, assumed where the release is not
/// given), `2·(nodes−1)` before and after; all-gather and reduce-scatter `nodes − 1`.
fn inter_steps(c: Collective, nodes: f64, nccl: Option<[u64; 3]>) -> f64 {
    if nodes <= 1.0 {
        return 0.0;
    }
    let (from, to) = NCCL_INTER_STEPS_2N;
    match c {
        Collective::AllReduce if nccl.is_none_or(|v| v >= from && v < to) => 2.0 * nodes,
        Collective::AllReduce => 2.0 * (nodes - 1.0),
        _ => nodes - 1.0,
    }
}

/// One collective family of a training step as the JSON reports it: what moved, over which
/// link, at what effective bandwidth, and how much of its time compute hid.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct CollectiveUse {
    /// `tp`, `dp`, `pp`, `ep`, `cp`.
    pub kind: &'static str,
    /// Which collective and algorithm (e.g. "all-reduce (ring)", "all-gather + reduce-scatter").
    pub collective: crate::i18n::Text,
    pub link: crate::i18n::Text,
    /// Bandwidth the bandwidth term was computed with (link × collective_efficiency ÷ sharing).
    pub effective_bandwidth: Bandwidth,
    /// Bytes each device sends per optimizer step.
    pub bytes_per_step: Bytes,
    /// Time of these collectives per optimizer step, latency included.
    pub total: Seconds,
    /// Of `total`, the part hidden behind compute.
    pub overlapped: Seconds,
}

/// NCCL's latency estimate for one collective (src/graph/tuning.cc, Simple protocol): the ring
/// pays `baseLat + (nsteps − nInterSteps)·intraLat + nInterSteps·netLat`, nsteps = 2(p−1) for
/// all-reduce and p−1 for all-gather/reduce-scatter, nInterSteps as [`inter_steps`] counts; the
/// tree (all-reduce only) `2·((p/nodes − 1)·intraLat + log2(nodes)·netLat)`.
pub fn nccl_latency(c: Collective, g: Group, tun: &Tunables) -> (Seconds, &'static str) {
    if g.ranks <= 1 {
        return (Seconds(0.0), "none");
    }
    let (ring, tree) = nccl_ring_tree_latency(c, g, tun);
    match tree {
        Some(tree) if tree.0 < ring.0 => (tree, "tree"),
        _ => (ring, "ring"),
    }
}

/// The ring's latency and, for an all-reduce across nodes, the tree's (the terms of
/// [`nccl_latency`]).
pub fn nccl_ring_tree_latency(
    c: Collective,
    g: Group,
    tun: &Tunables,
) -> (Seconds, Option<Seconds>) {
    if g.ranks <= 1 {
        return (Seconds(0.0), None);
    }
    let p = g.ranks as f64;
    let nodes = g.nodes.max(1) as f64;
    let steps = match c {
        Collective::AllReduce => 2.0 * (p - 1.0),
        _ => p - 1.0,
    };
    let inter_steps = inter_steps(c, nodes, g.nccl);
    let intra = match g.intra {
        IntraClass::NvLink => tun.nccl_ring_nvlink_us,
        IntraClass::Pcie => tun.nccl_ring_pci_us,
    };
    let ring =
        tun.nccl_ring_base_us + (steps - inter_steps) * intra + inter_steps * tun.nccl_ring_net_us;
    let ring = Seconds(ring * 1e-6);
    if c != Collective::AllReduce || g.nodes <= 1 {
        return (ring, None);
    }
    let per_node = (p / nodes).max(1.0);
    let tree =
        2.0 * ((per_node - 1.0) * tun.nccl_tree_intra_us + nodes.log2() * tun.nccl_tree_net_us);
    (ring, Some(Seconds(tree * 1e-6)))
}

/// Latency of one NCCL broadcast over the group. NCCL runs a broadcast as a pipelined chain along
/// its ring, starting at the root (src/collectives/device/broadcast.h @v2.14.3-1 `runRing`: the
/// root sends, every other rank `recvCopySend`s to the next, the rank before the root only
/// receives), so the first chunk reaches the last rank after p − 1 hops, nodes − 1 of them over
/// the network: the hops of a ring all-gather, priced with the same Ring/Simple per-hop
/// latencies. (NCCL's tuning table itself charges a broadcast `baseLat` + one hop when its rings
/// share channels — "waiting for proper chunk modeling", src/graph/tuning.cc @v2.14.3-1 — which
/// leaves the chain's fill out.)
pub fn broadcast_chain_latency(g: Group, tun: &Tunables) -> Seconds {
    nccl_latency(Collective::AllGather, g, tun).0
}

/// Ring bandwidth term of a collective over `p` ranks: all-reduce moves 2(p−1)/p × bytes per
/// device, all-gather and reduce-scatter (p−1)/p × bytes.
pub fn ring_volume(c: Collective, bytes: f64, p: u64) -> f64 {
    if p <= 1 {
        return 0.0;
    }
    let f = (p - 1) as f64 / p as f64;
    match c {
        Collective::AllReduce => 2.0 * f * bytes,
        _ => f * bytes,
    }
}

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
/// one collective per tensor of `tensors_per_layer` (FSDP wraps per layer: 1). DeepSpeed's
/// per-tensor fetches (persistence, reuse distance, recompute's third gather) are counted by
/// `train::zero3` instead.
pub fn zero3_collectives_per_micro(layers_on_device: u64, tensors_per_layer: u64) -> f64 {
    3.0 * layers_on_device as f64 * tensors_per_layer as f64
}

#[cfg(test)]
mod tests {
    use super::*;

    fn group(ranks: u64, nodes: u64) -> Group {
        Group {
            ranks,
            nodes,
            intra: IntraClass::NvLink,
            nccl: None,
        }
    }

    #[test]
    fn nccl_latency_follows_its_cost_model() {
        let t = Tunables::default();
        // 2 nodes of 8: 2·2 network steps in NCCL 2.12-2.22 (and where the release is not
        // given), 2·(2 − 1) in 2.11 and from 2.23; all-gather 2 − 1 whatever the release.
        let two = |nccl| Group {
            nccl,
            ..group(16, 2)
        };
        let ar = |nccl| {
            nccl_ring_tree_latency(Collective::AllReduce, two(nccl), &t)
                .0
                 .0
        };
        let us = |inter: f64| (8.4 + (30.0 - inter) * 3.4 + inter * 9.6) * 1e-6;
        assert!((ar(None) - us(4.0)).abs() < 1e-12);
        assert!((ar(Some([2, 21, 5])) - us(4.0)).abs() < 1e-12);
        assert!((ar(Some([2, 23, 4])) - us(2.0)).abs() < 1e-12);
        assert!((ar(Some([2, 11, 4])) - us(2.0)).abs() < 1e-12);
        let ag = nccl_ring_tree_latency(Collective::AllGather, two(None), &t)
            .0
             .0;
        assert!((ag - (8.4 + 14.0 * 3.4 + 9.6) * 1e-6).abs() < 1e-12);
        // One node of 8 over NVLink: ring, 8.4 + 14 × 3.4 µs.
        let (l, a) = nccl_latency(Collective::AllReduce, group(8, 1), &t);
        assert_eq!(a, "ring");
        assert!((l.0 - (8.4 + 14.0 * 3.4) * 1e-6).abs() < 1e-12);
        // 1536 ranks on 192 nodes: the tree's log2 term wins over the ring's 3070 steps.
        let (l, a) = nccl_latency(Collective::AllReduce, group(1536, 192), &t);
        assert_eq!(a, "tree");
        let tree = 2.0 * (7.0 * 28.0 + 192f64.log2() * 50.0) * 1e-6;
        assert!((l.0 - tree).abs() < 1e-12);
        // All-gather has no tree: it grows linearly with the ranks.
        let (small, _) = nccl_latency(Collective::AllGather, group(64, 8), &t);
        let (big, _) = nccl_latency(Collective::AllGather, group(512, 64), &t);
        assert!(big.0 > 7.0 * small.0);
        // PCIe hops cost more than NVLink hops, and more ranks cost more.
        let pcie = |p| {
            nccl_latency(
                Collective::AllReduce,
                Group {
                    ranks: p,
                    nodes: 1,
                    intra: IntraClass::Pcie,
                    nccl: None,
                },
                &t,
            )
            .0
             .0
        };
        assert!(pcie(8) > pcie(4) && pcie(4) > pcie(2));
        assert!(pcie(8) > nccl_latency(Collective::AllReduce, group(8, 1), &t).0 .0);
    }

    #[test]
    fn broadcast_chain_pays_every_hop_of_the_ring() {
        let t = Tunables::default();
        assert_eq!(broadcast_chain_latency(group(1, 1), &t), Seconds(0.0));
        // 1024 ranks on 128 nodes: 8.4 + 896 NVLink hops × 3.4 + 127 network hops × 9.6 µs.
        let l = broadcast_chain_latency(group(1024, 128), &t).0;
        assert!(
            (l - (8.4 + 896.0 * 3.4 + 127.0 * 9.6) * 1e-6).abs() < 1e-12,
            "{l}"
        );
        assert!(l > 1.9 * broadcast_chain_latency(group(512, 64), &t).0);
    }

    #[test]
    fn ring_volume_is_the_standard_factor() {
        assert_eq!(ring_volume(Collective::AllReduce, 8.0, 4), 12.0);
        assert_eq!(ring_volume(Collective::AllGather, 8.0, 4), 6.0);
        assert_eq!(ring_volume(Collective::ReduceScatter, 8.0, 1), 0.0);
    }

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
