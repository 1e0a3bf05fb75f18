//! NCCL's device memory per GPU of a training job (issue 9), from NCCL's source: the buffers of
//! every connection each communicator sets up, by transport, plus NVLink SHARP (NVLS) buffers.
//! Outside PyTorch's caching allocator: nvidia-smi sees it, `torch.cuda.max_memory_*` do not.
//! Sources (NVIDIA/nccl; docs/methodology.md §Overheads has the quotes):
//! - One P2P connection (src/transport/p2p.cc @v2.19.3-1 l.350-353 and l.414-417, same at
//!   v2.21.5-1, v2.26.2-1 and 5067397c): the receiver allocates `ncclRecvMem` + the LL (512 KiB),
//!   LL128 (4.6875 MiB) and SIMPLE (`NCCL_BUFFSIZE` 4 MiB) buffers, the sender `ncclSendMem`,
//!   each rounded up to `CUDA_IPC_MIN` (2 MiB): 10 + 2 MiB; with P2P read the SIMPLE buffer
//!   moves to the sender: 6 + 6 MiB. Either way 12 MiB per channel and peer direction pair
//!   (NVIDIA/nccl #1685: allocations "of size 10485760, the other type of size 2097152").
//! - Ring: one recv + one send per channel; tree (intra-node chain): one more of each on ranks
//!   inside the chain, none over two ranks (init.cc @v2.19.3-1 l.1110-1127).
//! - Send/recv (pipeline stages, MoE all-to-all): every peer gets `p2pnChannelsPerPeer` channels
//!   (enqueue.cc @v2.19.3-1 l.1526).
//! - NVLS (nvls.cc): NVLS channels (16 on sm90; sm100 by release, `nccl_search::nvls_channels`)
//!   × 2 × buffer × heads (one head per local rank) on NVSwitch
//!   parts with NVLink SHARP, over more than two local GPUs; buffer 1 MiB from v2.22.3-1
//!   (`infer::NCCL_NVLS_BUFFER_BYTES`), 6 MiB in 2.18–2.21 (`nccl_version`).
//! - GeForce cards (no P2P): the SHM transport keeps its buffers in host memory (shm.cc).
//!
//! Channel counts (coll channels, p2p channels per peer) come from NCCL's topology search and
//! channel rules applied to the catalog's link facts (`nccl_search.rs`, NCCL v2.26.2-1); they
//! reproduce the logged counts: 24 coll channels on 8 × A100 and 8 × H100 NVSwitch nodes, 16 on
//! 8 × H800, 2 over PCIe, 16 on 3 × 8 H100, 32 / 16 p2p channels per peer on H100 / H800.

use super::nccl_search::{self, Comm, Node, Release};
use crate::hardware::{ClusterSpec, GpuSpec};
use crate::infer::NCCL_NVLS_BUFFER_BYTES;
use crate::workload::{parse_release, TrainingSetup};

const MIB: f64 = 1024.0 * 1024.0;
/// Device bytes of one connection pair (recv + send side) on one channel: 12 MiB.
pub const CONNECTION_BYTES: f64 = 12.0 * MIB;
/// First release that connects at run time (`NCCL_RUNTIME_CONNECT` 1, init.cc @v2.22.3-1 l.47
/// and l.1153: `comm->runtimeConn = comm->cuMemSupport && ncclParamRuntimeConnect()`) and sizes
/// an NVLS buffer at 1 MiB.
const FIRST_RUNTIME_CONNECT: [u64; 3] = [2, 22, 0];
/// NVLS buffer before 2.22: `buffSizes[SIMPLE]` (4 MiB) + `NVLS_MEM_ALIGN_SIZE` (2 MiB)
/// (nvls.cc @v2.19.3-1 l.320-323; same in 2.18.1 to 2.21.5).
const NVLS_LEGACY_BUFFER_BYTES: f64 = 6.0 * MIB;

/// How a communicator is used: collectives (ring + tree + NVLS) or send/recv to `peers`.
#[derive(Clone, Copy, Debug, PartialEq)]
enum Use {
    Collective,
    PointToPoint { peers: u64 },
}

/// One process group of the job: its size, its members on one node and its use.
#[derive(Clone, Copy, Debug, PartialEq)]
struct Group {
    name: &'static str,
    size: u64,
    local: u64,
    usage: Use,
}

/// The process groups a training job creates (Megatron order: TP innermost, then CP, EP
/// within the data-parallel ranks, DP, PP outermost). PyTorch creates one NCCL communicator per
/// group at its first collective; groups of one rank create none. (On the stack: the plan
/// search sizes the buffers of every rung on every cluster.)
fn groups(setup: &TrainingSetup, c: &ClusterSpec, dp: u64) -> impl Iterator<Item = Group> {
    let p = &setup.parallel;
    let gpn = c.gpus_per_node.max(1);
    let local = |size: u64, stride: u64| size.min((gpn / stride.max(1)).max(1));
    [
        Group {
            name: "TP",
            size: p.tp,
            local: local(p.tp, 1),
            usage: Use::Collective,
        },
        Group {
            name: "CP",
            size: p.cp,
            local: local(p.cp, p.tp),
            usage: Use::Collective,
        },
        Group {
            name: "DP",
            size: dp,
            local: local(dp, p.tp * p.cp),
            usage: Use::Collective,
        },
        Group {
            name: "PP",
            size: p.pp,
            local: local(p.pp, p.tp * p.cp * dp),
            usage: Use::PointToPoint {
                peers: (p.pp.saturating_sub(1)).min(2),
            },
        },
        Group {
            name: "EP",
            size: p.ep,
            local: local(p.ep, p.tp * p.cp),
            usage: Use::PointToPoint {
                peers: p.ep.saturating_sub(1),
            },
        },
    ]
    .into_iter()
    .filter(|g| g.size > 1)
}

/// The job's NCCL release (`nccl_version`), if stated.
fn release(setup: &TrainingSetup) -> Option<[u64; 3]> {
    setup.nccl_version.as_deref().and_then(parse_release)
}

/// Whether the job's NCCL predates run-time connection (`nccl_version` below 2.22).
fn connects_at_init(setup: &TrainingSetup) -> bool {
    release(setup).is_some_and(|v| v < FIRST_RUNTIME_CONNECT)
}

/// The node a cluster's communicators run on, for the channel search.
fn node_of(c: &ClusterSpec) -> Node<'_> {
    Node {
        gpu: &c.gpu,
        nics: nccl_search::nics(c.inter_link, c.gpus_per_node),
        inter_gbs: c.inter_bandwidth.0 / 1e9,
    }
}

/// What NCCL's device memory reads of a cluster's network, as the channel counts it gives: a
/// communicator's coll channels depend on the network only through whether it spans nodes and
/// on how many ranks it has on each node (`nccl_search::coll_channels`; the per-peer channels
/// follow from them and the rank count). So two clusters of one chip and node shape whose counts
/// agree for every local count up to the GPUs per node, under each release's rules, need the same
/// buffers: the plan search shares one memory pass between them (plan/train.rs `fit_for`).
pub fn network_channels(c: &ClusterSpec) -> Vec<u64> {
    let node = node_of(c);
    let g = c.gpus_per_node.max(1);
    let releases = [[2, 19, 3], [2, 20, 3], [2, 26, 2]].map(|v| Release::of(Some(v)));
    // Every local count up to the node's GPUs: a group strided across nodes can hold a count
    // that does not divide it (review r11 #4).
    (1..=g)
        .flat_map(|local| {
            let comm = Comm {
                local,
                size: local + 1,
            };
            releases.map(|r| nccl_search::coll_channels(&node, comm, r))
        })
        .collect()
}

/// A group as the channel search sees it.
fn comm_of(g: &Group) -> Comm {
    Comm {
        local: g.local,
        size: g.size,
    }
}

/// Ring + tree connections and NVLS buffers of a communicator's collectives.
fn collective_bytes(node: &Node, g: &Group, r: Release, at_init: bool) -> f64 {
    let ch = nccl_search::coll_channels(node, comm_of(g), r) as f64;
    let tree = if g.size > 2 { ch } else { 0.0 };
    let buffer = if at_init {
        NVLS_LEGACY_BUFFER_BYTES
    } else {
        NCCL_NVLS_BUFFER_BYTES
    };
    (ch + tree) * CONNECTION_BYTES + nvls_bytes_of(node, comm_of(g), r, buffer)
}

/// NVLS buffers of one communicator within one node over `local` GPUs, under the current
/// release's rules (v2.26.2-1): the vLLM TP group's ([`node_communicator_bytes`]).
pub fn nvls_bytes(gpu: &GpuSpec, local: u64, buffer: f64) -> f64 {
    let node = Node {
        gpu,
        nics: 1,
        inter_gbs: 0.0,
    };
    let comm = Comm { local, size: local };
    nvls_bytes_of(&node, comm, Release::of(None), buffer)
}

/// NVLS buffers of one communicator: on an NVSwitch-SHARP node with more than two of its GPUs,
/// channels × 2 × buffer × nHeads (one head per local rank; nvls.cc @v2.19.3-1 l.315-322,
/// @v2.26.2-1 l.290-292), the channels being the NVLS channels, or in 2.20–2.21 the coll
/// channels (`Release::nvls_buffers_per_coll_channel`); none otherwise.
fn nvls_bytes_of(node: &Node, comm: Comm, r: Release, buffer: f64) -> f64 {
    if !nccl_search::nvls_runs(node.gpu, comm.local) {
        return 0.0;
    }
    let channels = if r.nvls_buffers_per_coll_channel {
        nccl_search::coll_channels(node, comm, r)
    } else {
        let cc = node.gpu.compute_capability.unwrap_or(80);
        nccl_search::nvls_channels(cc, r, comm.size > comm.local)
    };
    channels as f64 * 2.0 * buffer * comm.local as f64
}

/// One NCCL communicator over `ranks` GPUs of one node that connects its rings, trees and NVLS
/// at init (`runtimeConn = cuMemSupport && ncclParamRuntimeConnect()`, init.cc @v2.26.2-1
/// l.1135: off when vLLM sets `NCCL_CUMEM_ENABLE=0`), NVLS with 2.22+'s 1 MiB buffers: a serving
/// engine's TP group (`infer::vllm_nccl_gib`). 0 on one GPU and on GeForce parts (SHM transport).
pub fn node_communicator_bytes(gpu: &GpuSpec, ranks: u64) -> f64 {
    if gpu.consumer || ranks <= 1 {
        return 0.0;
    }
    let g = Group {
        name: "TP",
        size: ranks,
        local: ranks,
        usage: Use::Collective,
    };
    let node = Node {
        gpu,
        nics: 1,
        inter_gbs: 0.0,
    };
    collective_bytes(&node, &g, Release::of(None), false)
}

/// Device bytes of one communicator on its busiest rank. Before 2.22 every communicator
/// connects its rings, trees and NVLS at init, send/recv groups included.
fn group_bytes(c: &ClusterSpec, g: &Group, r: Release, at_init: bool) -> f64 {
    if c.gpu.consumer {
        return 0.0; // SHM transport: host memory
    }
    let node = node_of(c);
    match g.usage {
        Use::Collective => collective_bytes(&node, g, r, at_init),
        Use::PointToPoint { peers } => {
            let per_peer = nccl_search::p2p_channels_per_peer(&node, comm_of(g), r);
            let p2p = (peers * per_peer) as f64 * CONNECTION_BYTES;
            p2p + if at_init {
                collective_bytes(&node, g, r, true)
            } else {
                0.0
            }
        }
    }
}

/// NCCL's device bytes per GPU over every communicator, and (with `explain`) the groups in
/// words.
pub fn nccl_bytes(setup: &TrainingSetup, c: &ClusterSpec, dp: u64, explain: bool) -> (f64, String) {
    let at_init = connects_at_init(setup);
    let r = Release::of(release(setup));
    let mut total = 0.0;
    let mut words = Vec::new();
    for g in groups(setup, c, dp) {
        let b = group_bytes(c, &g, r, at_init);
        total += b;
        if explain {
            words.push(format!("{} ×{} {:.0} MiB", g.name, g.size, b / MIB));
        }
    }
    let mut words = words.join(", ");
    if explain && at_init {
        words.push_str("; NCCL < 2.22: all connected at init");
    }
    (total, words)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::catalog::Catalog;
    use crate::hardware::InterLink;

    fn cluster(gpu: &str, gpn: u64, nodes: u64) -> ClusterSpec {
        let cat = Catalog::builtin().unwrap();
        let net = crate::units::Bandwidth::from_gbit_per_s(400.0);
        ClusterSpec::new(cat.gpu(gpu).unwrap(), gpn, nodes, InterLink::Tcp, net).unwrap()
    }

    fn channels(c: &ClusterSpec, local: u64, size: u64) -> u64 {
        let comm = Comm { local, size };
        nccl_search::coll_channels(&node_of(c), comm, Release::of(None))
    }

    fn per_peer(c: &ClusterSpec, local: u64, size: u64) -> u64 {
        let comm = Comm { local, size };
        nccl_search::p2p_channels_per_peer(&node_of(c), comm, Release::of(None))
    }

    /// The logged counts, from NCCL's search on the catalog's links (nccl_search.rs): none is
    /// a table entry.
    #[test]
    fn channel_counts_match_the_logs() {
        // "coll channels": nccl-tests #100 (A100), NVIDIA/nccl #1259 (H100), #892 (H800).
        assert_eq!(channels(&cluster("a100-80g", 8, 1), 8, 8), 24);
        assert_eq!(channels(&cluster("h100-sxm", 8, 1), 8, 8), 24);
        assert_eq!(channels(&cluster("h800", 8, 1), 8, 8), 16);
        // ultralytics #12905 (4 × RTX 3090, P2P through the host): 1 ring × 20 GB/s → 2; the
        // L40S has the same Gen4 x16 link and pre-sm90 speeds.
        assert_eq!(channels(&cluster("rtx-3090", 4, 1), 4, 4), 2);
        assert_eq!(channels(&cluster("l40s", 8, 1), 8, 8), 2);
        // One member per node: the ring runs NIC → GPU → NIC. The H100's 48 GB/s path gives one
        // 48 GB/s ring, duplicated to 2 × 24 (one 400 Gbit/s NIC): 4 (the old table assumed 2).
        assert_eq!(channels(&cluster("h100-sxm", 1, 2), 1, 2), 4);
        // "32 p2p channels per peer" (H100 logs, #1685): pow2Up(min(24, 2 × 18)); H800 16.
        assert_eq!(per_peer(&cluster("h100-sxm", 8, 1), 8, 8), 32);
        assert_eq!(per_peer(&cluster("h800", 8, 1), 8, 8), 16);
        // Across nodes every peer gets the network's 2 (paths.cc l.779-793).
        assert_eq!(per_peer(&cluster("h100-sxm", 8, 2), 8, 16), 2);
    }

    #[test]
    fn dp_on_eight_h100_is_ring_tree_and_nvls() {
        let s = TrainingSetup::default();
        let (b, _) = nccl_bytes(&s, &cluster("h100-sxm", 8, 1), 8, true);
        // 24 × (12 + 12) MiB + 16 × 2 × 1 MiB × 8 heads = 576 + 256 MiB.
        assert_eq!(b / MIB, 832.0);
        let (two, _) = nccl_bytes(&s, &cluster("a100-80g", 2, 1), 2, false);
        assert_eq!(two / MIB, 288.0, "two ranks: ring only, no NVLS");
        let (shm, _) = nccl_bytes(&s, &cluster("rtx-4090", 2, 1), 2, false);
        assert_eq!(shm, 0.0);
    }

    #[test]
    fn expert_all_to_all_connects_every_peer() {
        // NVIDIA/nccl #1685: all-to-all on 8 × H100 connected 32 channels to each peer and
        // grew NCCL's memory 1.06 → 4.34 GB (3.05 GiB); the model: 7 × 32 × 12 MiB = 2.63 GiB.
        let mut s = TrainingSetup::default();
        s.parallel.ep = 8;
        let c = cluster("h100-sxm", 8, 1);
        let ep = groups(&s, &c, 8).find(|g| g.name == "EP").unwrap();
        assert_eq!(group_bytes(&c, &ep, Release::of(None), false) / MIB, 2688.0);
    }

    #[test]
    fn before_2_22_nvls_takes_six_mib_buffers_at_init() {
        // nvls.cc @v2.19.3-1: 16 channels × 2 × (4 + 2) MiB × 8 heads = 1536 MiB.
        let s = TrainingSetup {
            nccl_version: Some("2.19.3".into()),
            ..TrainingSetup::default()
        };
        let (b, words) = nccl_bytes(&s, &cluster("h100-sxm", 8, 1), 8, true);
        assert_eq!(b / MIB, 576.0 + 1536.0);
        assert_eq!(words, "DP ×8 2112 MiB; NCCL < 2.22: all connected at init");
        let now = TrainingSetup {
            nccl_version: Some("2.22.3".into()),
            ..TrainingSetup::default()
        };
        assert_eq!(
            nccl_bytes(&now, &cluster("h100-sxm", 8, 1), 8, false).0 / MIB,
            832.0
        );
    }

    #[test]
    fn nccl_2_20_and_2_21_size_nvls_by_the_coll_channels() {
        // nvls.cc @v2.20.3-1 l.291, l.311: comm->nChannels (24 on 8 × H100) × 2 × 6 MiB × 8
        // heads = 2304 MiB; vLLM #9699 (8 × H200, NCCL 2.20.5): "nvlsPerRankSize 301989888"
        // = 24 × 2 × 6 MiB.
        let at = |v: &str| {
            let s = TrainingSetup {
                nccl_version: Some(v.into()),
                ..TrainingSetup::default()
            };
            nccl_bytes(&s, &cluster("h100-sxm", 8, 1), 8, false).0 / MIB
        };
        assert_eq!(at("2.20.5"), 576.0 + 2304.0);
        assert_eq!(at("2.21.5"), 576.0 + 2304.0);
        assert_eq!(at("2.19.3"), 576.0 + 1536.0);
    }
}
