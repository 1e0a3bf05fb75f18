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
//!   (enqueue.cc @v2.19.3-1 l.1526), `nextPow2(min(nChannels, 2 × NVLinks))` over NVLink, 2
//!   over PCIe and `NCCL_NCHANNELS_PER_NET_PEER` 2 over the network (graph/paths.cc l.669-726).
//! - NVLS (nvls.cc): 16 channels × 2 × buffer × heads (one head per local rank) on NVSwitch
//!   parts with NVLink SHARP, over more than two local GPUs; buffer 1 MiB from v2.22.3-1
//!   (`infer::NCCL_NVLS_BUFFER_BYTES`), 6 MiB in 2.18–2.21 (not modelled: no release field).
//! - GeForce cards (no P2P): the SHM transport keeps its buffers in host memory (shm.cc).
//!
//! Channel counts are read from NCCL's logs, not from its topology search: 24 "coll channels"
//! on 8 × A100 NVSwitch (12 NVLinks; nccl-tests #100 "Channel 23/24") and on 8 × H100 (18;
//! NVIDIA/nccl #1259), 16 on 8 × H800 (8; NVIDIA/nccl #892), 2 over PCIe (ultralytics #12905).
//! `min(2 × links, 24)` gives all three NVLink figures. Rings that cross nodes keep the node's
//! count (3 × 8 H100 logged 16, NVIDIA/nccl #1453: an overstatement there); a group with one
//! member per node takes 2 (an assumption).

use crate::hardware::{ClusterSpec, GpuSpec, IntraLink};
use crate::infer::{NCCL_NVLS_BUFFER_BYTES, NCCL_NVLS_CHANNELS_SM90};
use crate::workload::{parse_release, TrainingSetup};

const MIB: f64 = 1024.0 * 1024.0;
/// Device bytes of one connection pair (recv + send side) on one channel: 12 MiB.
pub const CONNECTION_BYTES: f64 = 12.0 * MIB;
/// Most coll channels seen on an NVSwitch node (A100, H100 logs).
const MAX_NVLINK_CHANNELS: u64 = 24;
/// First release that connects at run time (`NCCL_RUNTIME_CONNECT` 1, init.cc @v2.22.3-1 l.47
/// and l.1153: `comm->runtimeConn = comm->cuMemSupport && ncclParamRuntimeConnect()`) and sizes
/// an NVLS buffer at 1 MiB.
const FIRST_RUNTIME_CONNECT: [u64; 3] = [2, 22, 0];
/// NVLS buffer before 2.22: `buffSizes[SIMPLE]` (4 MiB) + `NVLS_MEM_ALIGN_SIZE` (2 MiB)
/// (nvls.cc @v2.19.3-1 l.320-323; same in 2.18.1 to 2.21.5).
const NVLS_LEGACY_BUFFER_BYTES: f64 = 6.0 * MIB;
/// Per-direction bandwidth of one NVLink 2/3/4 link, GB/s (bidirectional 50).
const NVLINK_LINK_GBS: f64 = 50.0;

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

/// NVLinks per GPU, where the part is NVLink-class: datasheet bidirectional GB/s ÷ 50.
fn nvlinks(gpu: &GpuSpec) -> Option<u64> {
    let nv = matches!(
        gpu.intra_link,
        IntraLink::Nvlink2 | IntraLink::Nvlink3 | IntraLink::Nvlink4
    );
    let gbs = gpu.intra_link_gbs?;
    nv.then(|| ((gbs / NVLINK_LINK_GBS).round() as u64).max(1))
}

/// NCCL's coll channels for a group on this cluster (see the module notes). A group with one
/// member per node rings over the network only: 2, as over PCIe (an assumption; NCCL's
/// `NCCL_NCHANNELS_PER_NET_PEER` default for send/recv is also 2).
fn coll_channels(gpu: &GpuSpec, local: u64) -> u64 {
    match nvlinks(gpu) {
        Some(l) if local > 1 => (2 * l).min(MAX_NVLINK_CHANNELS),
        _ => 2,
    }
}

/// `p2pnChannelsPerPeer`: NVLink peers `nextPow2(min(nChannels, 2 × links))`, else 2.
fn p2p_channels_per_peer(c: &ClusterSpec, same_node: bool) -> u64 {
    match nvlinks(&c.gpu) {
        Some(l) if same_node => coll_channels(&c.gpu, 2).min(2 * l).next_power_of_two(),
        _ => 2,
    }
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

/// Whether the job's NCCL predates run-time connection (`nccl_version` below 2.22).
fn connects_at_init(setup: &TrainingSetup) -> bool {
    setup
        .nccl_version
        .as_deref()
        .and_then(parse_release)
        .is_some_and(|v| v < FIRST_RUNTIME_CONNECT)
}

/// Ring + tree connections and NVLS buffers of a communicator's collectives.
fn collective_bytes(gpu: &GpuSpec, g: &Group, at_init: bool) -> f64 {
    let ch = coll_channels(gpu, g.local) as f64;
    let tree = if g.size > 2 { ch } else { 0.0 };
    let buffer = if at_init {
        NVLS_LEGACY_BUFFER_BYTES
    } else {
        NCCL_NVLS_BUFFER_BYTES
    };
    (ch + tree) * CONNECTION_BYTES + nvls_bytes(gpu, g.local, buffer)
}

/// NVLS buffers of one communicator over `local` GPUs of a node: on an NVSwitch-SHARP node with
/// more than two of them, 16 channels × 2 × `buffer` × one head per local rank (nvls.cc); none
/// otherwise. Shared by training's communicators and vLLM's ([`crate::infer::nccl_nvls_gib`]).
pub(crate) fn nvls_bytes(gpu: &GpuSpec, local: u64, buffer: f64) -> f64 {
    if gpu.nvswitch_sharp == Some(true) && local > 2 {
        NCCL_NVLS_CHANNELS_SM90 * 2.0 * buffer * local as f64
    } else {
        0.0
    }
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
    collective_bytes(gpu, &g, false)
}

/// Device bytes of one communicator on its busiest rank. Before 2.22 every communicator
/// connects its rings, trees and NVLS at init, send/recv groups included.
fn group_bytes(c: &ClusterSpec, g: &Group, at_init: bool) -> f64 {
    if c.gpu.consumer {
        return 0.0; // SHM transport: host memory
    }
    match g.usage {
        Use::Collective => collective_bytes(&c.gpu, g, at_init),
        Use::PointToPoint { peers } => {
            let same_node = g.local >= g.size;
            let p2p = (peers * p2p_channels_per_peer(c, same_node)) as f64 * CONNECTION_BYTES;
            p2p + if at_init {
                collective_bytes(&c.gpu, g, true)
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
    let mut total = 0.0;
    let mut words = Vec::new();
    for g in groups(setup, c, dp) {
        let b = group_bytes(c, &g, at_init);
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

    #[test]
    fn channel_counts_match_the_logs() {
        assert_eq!(coll_channels(&cluster("a100-80g", 8, 1).gpu, 8), 24);
        assert_eq!(coll_channels(&cluster("h100-sxm", 8, 1).gpu, 8), 24);
        assert_eq!(coll_channels(&cluster("h800", 8, 1).gpu, 8), 16);
        assert_eq!(coll_channels(&cluster("l40s", 8, 1).gpu, 8), 2);
        assert_eq!(
            coll_channels(&cluster("h100-sxm", 1, 2).gpu, 1),
            2,
            "network only"
        );
        assert_eq!(p2p_channels_per_peer(&cluster("h100-sxm", 8, 1), true), 32);
        assert_eq!(p2p_channels_per_peer(&cluster("h800", 8, 1), true), 16);
        assert_eq!(p2p_channels_per_peer(&cluster("h100-sxm", 8, 2), false), 2);
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
        assert_eq!(group_bytes(&c, &ep, false) / MIB, 2688.0);
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
}
