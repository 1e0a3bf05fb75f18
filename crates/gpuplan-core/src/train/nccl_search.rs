//! NCCL's channel counts from NCCL's own topology rules (issue 9), for the NCCL memory model
//! (`nccl.rs`). Rules read at NVIDIA/nccl v2.26.2-1 (the release torch 2.7 pins; the same lines
//! for sm80/sm90 from v2.19.3-1 to v2.29.x except where a release is named below):
//! - The node as NCCL's topology sees it (src/graph/topo.cc @v2.26.2-1 l.476, l.586-589; topo.h
//!   l.14-20): a GPU's NVLinks to the NVSwitch are one link of `count × ncclTopoNVLinkBw(cc)`
//!   GB/s (20 on sm70/sm80, 12 on sm86, 20.6 on sm90, 40 on sm100); its PCIe link
//!   `width × speed / 80` (x16: Gen3 12, Gen4 24, Gen5 48 GB/s); a NIC `speed / 8000`
//!   (Mbit/s → GB/s, l.372).
//! - The ring search (`ncclTopoCompute`, src/graph/search.cc l.928-1136): from the first speed of
//!   the chip's array (`speedArrayIntra/Inter`, `sm90SpeedArrayIntra/Inter`, `sm100…`, l.913-924;
//!   the Inter arrays when the communicator has a network) not above the GPU's path bandwidth,
//!   it keeps the solution with the most channels × speed, lowering the speed while the next is
//!   above 0.49 of the best (l.1082) and stopping when channels × speed reach the GPU's total
//!   bandwidth (l.1036, `getTotalBw` l.29-37) or the search reaches `maxChannels` (MAXCHANNELS/2,
//!   init.cc l.841). On the symmetric nodes the catalog describes (every GPU on one NVSwitch, or
//!   on PCIe under one root complex) the exhaustive search finds as many rings as every GPU's
//!   links carry at that speed, which is what [`Topology::fit`] counts.
//! - `ncclTopoDupChannels` (search.cc l.898-911): doubled (at most `maxChannels`) unless the
//!   per-channel speed is below 25 GB/s, or, above sm80, below 50 GB/s with more than 4 channels;
//!   then pass 2 raises the speed while the channels still fit (l.1105-1123).
//! - Trees get the ring's count (init.cc l.848-849: `treeGraph->minChannels = maxChannels =
//!   ringGraph->nChannels`; assumed found, as on these symmetric nodes) and
//!   `comm->nChannels = min(tree, ring)` (l.912).
//! - `ncclTopoPostset` (src/graph/connect.cc l.452): `nChannels = min(MAXCHANNELS, nChannels*2)`;
//!   on sm90+ across nodes with channels above 45 GB/s, doubled again below 16 (l.466; before
//!   v2.20.3-1: while `2*nChannels <= MAXCHANNELS`); from v2.20.3-1 raised to the NVLS
//!   channels where NVLS runs ("Support maximal channel usage for aggregation", l.493-495;
//!   @v2.20.3-1 l.472-474; absent @v2.19.4-1, whose log's "coll channels" is the ring count:
//!   init.cc @v2.19.3-1 l.1151 prints `comm->nChannels`). NCCL_MIN/MAX_NCHANNELS at their
//!   defaults (0 and MAXCHANNELS, l.325-352). MAXCHANNELS is 32 before v2.25.1-1 and 64 from it
//!   (src/include/device.h).
//! - The NVLS channels (`comm->nvlsChannels`, src/transport/nvls.cc): `NCCL_NVLS_NCHANNELS`
//!   default 16 up to v2.24.x (@v2.22.3-1 l.138); from v2.25.1-1 `NVLS_NCHANNELS_SM90` 16 and
//!   `NVLS_NCHANNELS_SM100` 32 by compute capability (@v2.25.1-1 l.144-145, l.176); from
//!   v2.27.3-1 sm100 takes `NVLS_NCHANNELS_SM100_NVL` 24 within one node (or one MNNVL domain)
//!   and 32 across nodes (@v2.27.3-1 l.147-149, l.179-195; the same @v2.29.2-1 l.148-196).
//! - Send/recv (`ncclTopoComputeP2pChannels`, src/graph/paths.cc l.803-834):
//!   `p2pnChannels = min(nChannels, NCCL_MAX_P2P_NCHANNELS = MAXCHANNELS)`, and every peer gets
//!   `p2pnChannelsPerPeer = pow2Up(min(p2pnChannels, each peer's count))` (at most
//!   `pow2Up(p2pnChannels)`): `2 × path bw ÷ NVLink bw` over NVLink, 2 over PCIe (l.771-776), over
//!   the network 2 halved while `2 × nRanks > 4 × p2pnChannels` (l.779-793; a fixed
//!   `NCCL_NCHANNELS_PER_NET_PEER` 2 before v2.20.3-1).
//!
//! What the catalog does not state is assumed, as the step model does (`step.rs` dp_contention):
//! every NVLink part sits on an NVSwitch (HGX boards; a V100 SXM2 in a DGX-1 hybrid cube mesh is
//! not), a PCIe part reaches its peers through an Intel root complex (NCCL's
//! `INTEL_P2P_OVERHEAD`, bw × 6/5 on PHB paths, topo.h l.34, search.cc l.82-92: the host of the
//! logged PCIe case), an NVLink part's host link is the PCIe generation its datasheet lists, and
//! a node's `inter_bandwidth` is one NIC per GPU (at most 8) over RDMA, one interface over TCP
//! or eRDMA.

use crate::hardware::{GpuSpec, InterLink, IntraLink};

/// NCCL's per-channel ring speeds without a network, GB/s (search.cc @v2.26.2-1 l.913).
const SPEEDS_INTRA: [f64; 13] = [
    40.0, 30.0, 20.0, 18.0, 15.0, 12.0, 10.0, 9.0, 7.0, 6.0, 5.0, 4.0, 3.0,
];
/// With a network (l.914).
const SPEEDS_INTER: [f64; 19] = [
    48.0, 30.0, 28.0, 24.0, 20.0, 18.0, 15.0, 12.0, 10.0, 9.0, 7.0, 6.0, 5.0, 4.0, 3.0, 2.4, 1.2,
    0.24, 0.12,
];
/// `sm90SpeedArrayIntra` (l.918).
const SPEEDS_INTRA_SM90: [f64; 11] = [
    60.0, 50.0, 40.0, 30.0, 24.0, 20.0, 15.0, 12.0, 11.0, 6.0, 3.0,
];
/// `sm90SpeedArrayInter` (l.919); `sm100SpeedArrayInter` is the same list (l.924).
const SPEEDS_INTER_SM90: [f64; 17] = [
    48.0, 45.0, 42.0, 40.0, 30.0, 24.0, 22.0, 20.0, 17.5, 15.0, 12.0, 6.0, 3.0, 2.4, 1.2, 0.24,
    0.12,
];
/// `sm100SpeedArrayIntra` (l.923).
const SPEEDS_INTRA_SM100: [f64; 10] = [90.0, 80.0, 70.0, 60.0, 50.0, 40.0, 30.0, 24.0, 20.0, 19.0];
/// `INTEL_P2P_OVERHEAD`: a P2P path through an Intel root complex costs 6/5 of its bandwidth.
const INTEL_P2P_OVERHEAD: f64 = 6.0 / 5.0;
/// Below this per-channel speed the search's channels are not duplicated (search.cc l.901).
const DUP_MIN_SPEED: f64 = 25.0;
/// Above sm80, below this speed and over `DUP_MAX_CHANNELS_SLOW` channels: not duplicated (l.902).
const DUP_MIN_SPEED_SM90: f64 = 50.0;
const DUP_MAX_CHANNELS_SLOW: u64 = 4;
/// The search keeps going down while the next speed is above this share of the best (l.1082).
const NEXT_SPEED_SHARE: f64 = 0.49;
/// `ncclTopoPostset`'s extra doubling across nodes on sm90+: above this speed (connect.cc l.466).
const POSTSET_FAST_CHANNEL_GBS: f64 = 45.0;
/// …and below this many channels (from v2.20.3-1).
const POSTSET_FAST_MAX_CHANNELS: u64 = 16;
/// `NCCL_NVLS_NCHANNELS` default before v2.25.1-1, and `NVLS_NCHANNELS_SM90` from it (nvls.cc
/// @v2.22.3-1 l.138, @v2.25.1-1 l.144).
const NVLS_CHANNELS_SM90: u64 = 16;
/// `NVLS_NCHANNELS_SM100` (nvls.cc @v2.25.1-1 l.145): sm100+ from v2.25.1-1; across nodes only
/// from v2.27.3-1.
const NVLS_CHANNELS_SM100: u64 = 32;
/// `NVLS_NCHANNELS_SM100_NVL` (nvls.cc @v2.27.3-1 l.149): sm100+ within one node from v2.27.3-1.
const NVLS_CHANNELS_SM100_NVL: u64 = 24;
/// `NCCL_NCHANNELS_PER_NET_PEER` default before v2.20.3-1 (paths.cc @v2.19.3-1 l.669), and the
/// start of the computed count after it (paths.cc @v2.26.2-1 l.782).
const NET_PEER_CHANNELS: u64 = 2;
/// NICs per node assumed over RDMA: one per GPU, at most 8 (rail-optimised HGX nodes; as
/// `step.rs`); over TCP or eRDMA one VPC interface carries the node's bandwidth.
const MAX_NICS_PER_NODE: u64 = 8;
/// Lane rate ÷ 80 gives NCCL's x16 GB/s (topo.cc kvDictPciGen: Gen3 60, Gen4 120, Gen5 240 ×
/// 100 Mbit/s per lane; `width * speed / 80.0`, width 16).
const PCIE_X16_GBS: [(IntraLink, f64); 3] = [
    (IntraLink::Pcie3, 16.0 * 60.0 / 80.0),
    (IntraLink::Pcie4, 16.0 * 120.0 / 80.0),
    (IntraLink::Pcie5, 16.0 * 240.0 / 80.0),
];
/// Bidirectional GB/s of one NVLink 2/3/4 link as the catalog's `intra_link_gbs` counts it.
const NVLINK_LINK_GBS: f64 = 50.0;

/// The NCCL release's rules that differ between the releases modelled.
#[derive(Clone, Copy, Debug, PartialEq)]
pub(super) struct Release {
    /// MAXCHANNELS: 32 before v2.25.1-1, 64 from it.
    pub max_channels: u64,
    /// From v2.20.3-1: the network's per-peer channels are computed, the sm90 doubling
    /// across nodes is bounded by 16 channels, and the coll channels are raised to the NVLS
    /// channels where NVLS runs.
    pub v2_20: bool,
    /// NVLS channels on sm100+ by their own count (32) from v2.25.1-1.
    pub sm100_nvls: bool,
    /// … and 24 of them within one node from v2.27.3-1.
    pub sm100_nvl: bool,
    /// v2.20.x and v2.21.x size the NVLS buffers by the coll channels (`int nChannels =
    /// comm->nChannels`, nvls.cc @v2.20.3-1 l.291, l.311; @v2.21.5-1 l.292, l.313), the releases
    /// before and after by the NVLS channels (@v2.19.3-1 l.315; @v2.22.3-1 l.261).
    pub nvls_buffers_per_coll_channel: bool,
}

impl Release {
    /// The rules of release `v` ([major, minor, patch]); `None`: a current one (v2.26.2-1).
    pub fn of(v: Option<[u64; 3]>) -> Release {
        let v = v.unwrap_or([2, 26, 2]);
        Release {
            max_channels: if v >= [2, 25, 0] { 64 } else { 32 },
            v2_20: v >= [2, 20, 0],
            sm100_nvls: v >= [2, 25, 0],
            sm100_nvl: v >= [2, 27, 0],
            nvls_buffers_per_coll_channel: ([2, 20, 0]..[2, 22, 0]).contains(&v),
        }
    }
}

/// NCCL's NVLS channels (`comm->nvlsChannels`) on a chip of compute capability `cc` (× 10),
/// for a communicator within one node or across nodes; see the module notes for the releases.
pub(super) fn nvls_channels(cc: u32, r: Release, multi_node: bool) -> u64 {
    match cc {
        100.. if r.sm100_nvl && !multi_node => NVLS_CHANNELS_SM100_NVL,
        100.. if r.sm100_nvls => NVLS_CHANNELS_SM100,
        _ => NVLS_CHANNELS_SM90,
    }
}

/// NCCL's `ncclTopoNVLinkBw` (topo.h @v2.26.2-1 l.239-248), GB/s per link.
fn nvlink_bw(cc: u32) -> f64 {
    match cc {
        100.. => 40.0,
        90.. => 20.6,
        86 => 12.0,
        70.. => 20.0,
        60.. => 18.0,
        _ => 20.0,
    }
}

/// The GPU's PCIe x16 link in NCCL's GB/s: its own generation, or for an NVLink part the host
/// interface its datasheet lists (V100 SXM2 Gen3, A100/A800 Gen4, H100/H800/H20/H200 Gen5).
fn pcie_bw(gpu: &GpuSpec) -> f64 {
    let generation = match gpu.intra_link {
        IntraLink::Nvlink2 => IntraLink::Pcie3,
        IntraLink::Nvlink3 => IntraLink::Pcie4,
        IntraLink::Nvlink4 => IntraLink::Pcie5,
        other => other,
    };
    PCIE_X16_GBS
        .iter()
        .find(|(g, _)| *g == generation)
        .map_or(PCIE_X16_GBS[1].1, |(_, b)| *b)
}

/// NVLinks per GPU, where the part is NVLink-class: datasheet bidirectional GB/s ÷ 50.
pub(super) fn nvlinks(gpu: &GpuSpec) -> Option<u64> {
    let nv = matches!(
        gpu.intra_link,
        IntraLink::Nvlink2 | IntraLink::Nvlink3 | IntraLink::Nvlink4
    );
    let gbs = gpu.intra_link_gbs?;
    nv.then(|| ((gbs / NVLINK_LINK_GBS).round() as u64).max(1))
}

/// What NCCL's search sees of one communicator on one node.
#[derive(Clone, Copy, Debug, PartialEq)]
struct Topology {
    /// Compute capability × 10 (NCCL's `cudaCompCap`); 80 where the catalog does not state it.
    cc: u32,
    /// The GPU's NVLink bandwidth to the NVSwitch, GB/s (0 without NVLink).
    nvl: f64,
    /// The GPU's PCIe link, GB/s.
    pcie: f64,
    /// GPUs of the communicator on this node.
    local: u64,
    /// NICs and GB/s per NIC, where the communicator spans nodes.
    net: Option<(u64, f64)>,
}

/// Floor of `bw / speed`, with NCCL's bandwidth bookkeeping rounded to 1/1000 (`SUB_ROUND`).
fn fits(bw: f64, speed: f64) -> u64 {
    ((bw + 5e-4) / speed).floor().max(0.0) as u64
}

impl Topology {
    fn sm90(&self) -> bool {
        self.cc >= 90
    }
    fn speeds(&self) -> &'static [f64] {
        match (self.net.is_some(), self.cc) {
            (false, 100..) => &SPEEDS_INTRA_SM100,
            (false, 90..) => &SPEEDS_INTRA_SM90,
            (false, _) => &SPEEDS_INTRA,
            (true, 90..) => &SPEEDS_INTER_SM90,
            (true, _) => &SPEEDS_INTER,
        }
    }
    /// `system->maxBw`: the GPU's best path to a peer GPU (no network) or to a NIC.
    fn max_bw(&self) -> f64 {
        match self.net {
            Some((_, nic)) => self.pcie.min(nic),
            None if self.nvl > 0.0 => self.nvl,
            None => self.pcie,
        }
    }
    /// `system->totalBw`: the larger of the GPU's NVLink total and its PCIe link.
    fn total_bw(&self) -> f64 {
        self.nvl.max(self.pcie)
    }
    /// Rings the links carry at `speed`: every GPU sends and receives once per ring, over NVLink
    /// (to the NVSwitch) or PCIe (× the root complex's overhead); across nodes each ring also
    /// leaves and enters the node through a NIC from one of the GPUs.
    fn fit(&self, speed: f64) -> u64 {
        let pcie_p2p = fits(self.pcie, speed * INTEL_P2P_OVERHEAD);
        let Some((nics, nic)) = self.net else {
            return if self.nvl > 0.0 {
                fits(self.nvl, speed)
            } else {
                pcie_p2p
            };
        };
        let net = (nics * fits(nic, speed)).min(self.local * fits(self.pcie, speed));
        if self.local <= 1 {
            net
        } else if self.nvl > 0.0 {
            // A GPU forwards over NVLink on every ring but those it leaves the node from.
            let per_gpu = fits(self.nvl, speed);
            (1..=net)
                .take_while(|&n| n - n / self.local <= per_gpu)
                .last()
                .unwrap_or(0)
        } else {
            net.min(pcie_p2p)
        }
    }
}

/// `ncclTopoCompute` for the ring, then `ncclTopoDupChannels` and pass 2: (channels, GB/s each).
fn ring_search(t: &Topology, max_channels: u64) -> (u64, f64) {
    let speeds = t.speeds();
    let last = speeds.len() - 1;
    let (max_bw, total_bw) = (t.max_bw(), t.total_bw());
    let mut i = speeds
        .iter()
        .position(|&s| s <= max_bw && s <= total_bw)
        .unwrap_or(last);
    let mut best = (0_u64, 0.0_f64);
    loop {
        let n = t.fit(speeds[i]).min(max_channels);
        let better = n >= 1 && n as f64 * speeds[i] > best.0 as f64 * best.1;
        if better {
            best = (n, speeds[i]);
        }
        let perfect = better && n == max_channels;
        if perfect || best.0 as f64 * best.1 >= total_bw {
            break;
        }
        if i < last && (best.0 == 0 || speeds[i + 1] / best.1 > NEXT_SPEED_SHARE) {
            i += 1;
        } else {
            break;
        }
    }
    if best.0 == 0 {
        return (1, 0.0); // "falling back to simple order": one channel (search.cc l.1126-1133)
    }
    let (mut n, mut bw) = dup_channels(best, t.cc, max_channels);
    // Pass 2: raise the speed while the channels still fit.
    let mut j = speeds.iter().position(|&s| s <= bw).unwrap_or(last);
    while j > 0 {
        j -= 1;
        let m = t.fit(speeds[j]).min(max_channels);
        if m >= n && m as f64 * speeds[j] > n as f64 * bw {
            (n, bw) = (m, speeds[j]);
        }
    }
    (n, bw)
}

/// `ncclTopoDupChannels` (search.cc @v2.26.2-1 l.898-911).
fn dup_channels((n, bw): (u64, f64), cc: u32, max_channels: u64) -> (u64, f64) {
    if bw < DUP_MIN_SPEED || (cc > 80 && bw < DUP_MIN_SPEED_SM90 && n > DUP_MAX_CHANNELS_SLOW) {
        return (n, bw);
    }
    let dup = (2 * n).min(max_channels);
    (dup, bw / dup.div_ceil(n) as f64)
}

/// The node a communicator runs on: its GPU, its NICs and their bandwidth (GB/s per node, one
/// direction; 0 where nothing crosses nodes).
#[derive(Clone, Copy, Debug)]
pub(super) struct Node<'a> {
    pub gpu: &'a GpuSpec,
    pub nics: u64,
    pub inter_gbs: f64,
}

/// NICs assumed on a node of `gpus_per_node` GPUs over `link` (see [`MAX_NICS_PER_NODE`]).
pub(super) fn nics(link: InterLink, gpus_per_node: u64) -> u64 {
    match link {
        InterLink::Rdma => gpus_per_node.clamp(1, MAX_NICS_PER_NODE),
        InterLink::Erdma | InterLink::Tcp => 1,
    }
}

/// A communicator: `size` ranks, `local` of them on each node.
#[derive(Clone, Copy, Debug, PartialEq)]
pub(super) struct Comm {
    pub local: u64,
    pub size: u64,
}

/// What NCCL's topology holds for the communicator on the node.
fn topology(node: &Node, comm: Comm) -> Topology {
    let gpu = node.gpu;
    let cc = gpu.compute_capability.unwrap_or(80);
    let nvl = nvlinks(gpu).map_or(0.0, |l| l as f64 * nvlink_bw(cc));
    let net = (comm.size > comm.local).then(|| {
        let nics = node.nics.max(1);
        (nics, node.inter_gbs / nics as f64)
    });
    Topology {
        cc,
        nvl,
        pcie: pcie_bw(gpu),
        local: comm.local.max(1),
        net,
    }
}

/// Whether NCCL runs NVLS on the communicator: NVSwitch SHARP and more than two local GPUs.
pub(super) fn nvls_runs(gpu: &GpuSpec, local: u64) -> bool {
    gpu.nvswitch_sharp == Some(true) && local > 2
}

/// NCCL's collective channels (`comm->nChannels`, the "coll channels" of its log) for a
/// communicator of `size` ranks with `local` on each node.
pub(super) fn coll_channels(node: &Node, comm: Comm, r: Release) -> u64 {
    let t = topology(node, comm);
    // The NVLS channels the coll channels are raised to (v2.20.3-1 on); 0 where none.
    let nvls = if nvls_runs(node.gpu, comm.local) && r.v2_20 {
        nvls_channels(t.cc, r, t.net.is_some())
    } else {
        0
    };
    let key = (
        [t.cc as u64, t.nvl.to_bits(), t.pcie.to_bits(), t.local],
        t.net.map(|(n, bw)| (n, bw.to_bits())),
        (r.max_channels, r.v2_20, nvls),
    );
    if let Some(n) = SEARCHED.with(|m| m.borrow().get(&key).copied()) {
        return n;
    }
    let n = coll_channels_searched(&t, r, nvls);
    SEARCHED.with(|m| {
        let mut m = m.borrow_mut();
        if m.len() < SEARCHES_REMEMBERED {
            m.insert(key, n);
        }
    });
    n
}

/// Most channel searches one thread remembers ([`coll_channels`]; the plan search asks the same
/// few topologies for every memory pass).
const SEARCHES_REMEMBERED: usize = 4096;

/// [`coll_channels`]' key: (compute capability, NVLink and PCIe GB/s bits, local GPUs), the
/// network (NICs, GB/s bits per NIC), (MAXCHANNELS, v2.20 rules, NVLS channels raised to).
type SearchKey = ([u64; 4], Option<(u64, u64)>, (u64, bool, u64));

thread_local! {
    static SEARCHED: std::cell::RefCell<rustc_hash::FxHashMap<SearchKey, u64>> =
        std::cell::RefCell::default();
}

/// [`coll_channels`] worked out: the ring search, duplication and `ncclTopoPostset`, raised to
/// `nvls` channels (0: no raise).
fn coll_channels_searched(t: &Topology, r: Release, nvls: u64) -> u64 {
    let (ring, bw) = ring_search(t, r.max_channels / 2);
    let mut n = (2 * ring).min(r.max_channels);
    let fast = t.sm90() && t.net.is_some() && bw > POSTSET_FAST_CHANNEL_GBS;
    let room = if r.v2_20 {
        n < POSTSET_FAST_MAX_CHANNELS
    } else {
        2 * n <= r.max_channels
    };
    if fast && room {
        n *= 2;
    }
    n.max(nvls)
}

/// `p2pnChannelsPerPeer` of a send/recv communicator.
pub(super) fn p2p_channels_per_peer(node: &Node, comm: Comm, r: Release) -> u64 {
    let p2p = coll_channels(node, comm, r).min(r.max_channels);
    let mut min = p2p;
    if comm.local > 1 {
        let peer = match nvlinks(node.gpu) {
            Some(l) => 2 * l,
            None => 2,
        };
        min = min.min(peer);
    }
    if comm.size > comm.local {
        min = min.min(net_peer_channels(comm.size, p2p, r));
    }
    min.next_power_of_two().min(p2p.next_power_of_two())
}

/// Channels to a peer on another node (paths.cc @v2.26.2-1 l.779-793): 2, halved while
/// `2 × ranks > 4 × p2pnChannels`, at least the NICs needed to match the GPU's bandwidth (one
/// NIC here: one per GPU).
fn net_peer_channels(size: u64, p2p: u64, r: Release) -> u64 {
    if !r.v2_20 {
        return NET_PEER_CHANNELS;
    }
    let mut n = NET_PEER_CHANNELS;
    while n * size > p2p * 4 && n > 1 {
        n /= 2;
    }
    n.max(1)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::hardware::find_gpu;

    /// `gpu` nodes of `gpn` GPUs with `gbit` Gbit/s of NICs per node.
    fn node(gpu: &str, gpn: u64, gbit: f64) -> Node<'static> {
        Node {
            gpu: find_gpu(gpu).expect("catalog gpu"),
            nics: nics(InterLink::Rdma, gpn),
            inter_gbs: gbit / 8.0,
        }
    }

    fn comm(local: u64, size: u64) -> Comm {
        Comm { local, size }
    }

    #[test]
    fn the_search_reproduces_the_logged_rings() {
        let now = Release::of(None);
        // A100: 12 × 20 = 240 GB/s → 6 rings × 40 → dup 12 × 20 → 24 (nccl-tests #100).
        let a100 = node("a100-80g", 8, 1600.0);
        assert_eq!(ring_search(&topology(&a100, comm(8, 8)), 32), (12, 20.0));
        // H100: 18 × 20.6 = 370.8 → 6 × 60 → dup 12 × 30 (40 × 12 does not fit) → 24.
        let h100 = node("h100-sxm", 8, 3200.0);
        assert_eq!(ring_search(&topology(&h100, comm(8, 8)), 32), (12, 30.0));
        // H800: 8 × 20.6 = 164.8 → 4 × 40 → dup 8 × 20 → 16 (NVIDIA/nccl #892).
        let h800 = node("h800", 8, 3200.0);
        assert_eq!(ring_search(&topology(&h800, comm(8, 8)), 32), (8, 20.0));
        // Across 3 nodes of 8 H100 with 400 Gbit/s NICs: 8 × 48, no dup → 16 (#1453).
        assert_eq!(ring_search(&topology(&h100, comm(8, 24)), 32), (8, 48.0));
        assert_eq!(coll_channels(&h100, comm(8, 24), now), 16);
    }

    /// Cases the old table got otherwise, each worked through NCCL's rules.
    #[test]
    fn the_search_follows_the_links_not_a_table() {
        let now = Release::of(None);
        // H100 PCIe (Gen5 48 GB/s through the host, × 6/5): 1 × 40 → dup 2 × 20 → 4.
        let pcie = node("h100-pcie", 8, 800.0);
        assert_eq!(ring_search(&topology(&pcie, comm(8, 8)), 32), (2, 20.0));
        assert_eq!(coll_channels(&pcie, comm(8, 8), now), 4);
        // One A100 per node, 200 Gbit/s: 1 × 24 GB/s, below 25: not duplicated → 2.
        let a100 = node("a100-80g", 1, 200.0);
        assert_eq!(coll_channels(&a100, comm(1, 4), now), 2);
        // 8 A100 per node, 200 Gbit/s per NIC: 8 × 24 → 16 (the node alone: 24).
        let a100x8 = node("a100-80g", 8, 1600.0);
        assert_eq!(coll_channels(&a100x8, comm(8, 16), now), 16);
        // 8 H100 per node, 100 Gbit/s per NIC: 8 × 12 GB/s, no Hopper doubling → 16.
        let slow = node("h100-sxm", 8, 800.0);
        assert_eq!(coll_channels(&slow, comm(8, 16), now), 16);
        // A800 (8 NVLinks, sm80): 4 × 40 → 8 × 20 → 16; V100 SXM2 (6, sm70): 3 × 40 → 12.
        assert_eq!(
            coll_channels(&node("a800-80g", 8, 0.0), comm(8, 8), now),
            16
        );
        assert_eq!(
            coll_channels(&node("v100-sxm2-32g", 8, 0.0), comm(8, 8), now),
            12
        );
    }

    /// An H100 with `links` NVLinks on its NVSwitch (SHARP kept), compute capability `cc`.
    fn nvswitch_part(links: f64, cc: u32) -> GpuSpec {
        let mut g = find_gpu("h100-sxm").expect("catalog gpu").clone();
        g.intra_link_gbs = Some(links * NVLINK_LINK_GBS);
        g.compute_capability = Some(cc);
        g
    }

    /// The raise to the NVLS channels came with v2.20.3-1 (connect.cc l.472-474; not in
    /// v2.19.4-1): 4 NVLinks on sm90 give 2 × 40 → dup 4 × 20 → 8 coll channels, 16 from 2.20.
    #[test]
    fn the_nvls_raise_starts_at_2_20() {
        let gpu = nvswitch_part(4.0, 90);
        let n = Node {
            gpu: &gpu,
            nics: 8,
            inter_gbs: 0.0,
        };
        let at = |v| coll_channels(&n, comm(8, 8), Release::of(Some(v)));
        assert_eq!(ring_search(&topology(&n, comm(8, 8)), 32), (4, 20.0));
        assert_eq!(at([2, 19, 3]), 8);
        assert_eq!(at([2, 20, 3]), 16);
        assert_eq!(at([2, 26, 2]), 16);
        // Two local GPUs: no NVLS (ncclNvlsInit returns at `gpuCount <= 2`), no raise.
        assert_eq!(coll_channels(&n, comm(2, 2), Release::of(None)), 8);
    }

    /// nvls.cc: 16 on sm90 in every release; sm100 32 from v2.25.1-1, and from v2.27.3-1 24
    /// within one node, 32 across nodes.
    #[test]
    fn nvls_channels_follow_the_chip_and_release() {
        let r = |v| Release::of(Some(v));
        for v in [[2, 19, 3], [2, 24, 3], [2, 26, 2], [2, 29, 2]] {
            assert_eq!(nvls_channels(90, r(v), false), 16, "{v:?}");
            assert_eq!(nvls_channels(90, r(v), true), 16, "{v:?}");
        }
        assert_eq!(nvls_channels(100, r([2, 24, 3]), false), 16);
        assert_eq!(nvls_channels(100, r([2, 26, 2]), false), 32);
        assert_eq!(nvls_channels(100, r([2, 27, 3]), false), 24);
        assert_eq!(nvls_channels(100, r([2, 27, 3]), true), 32);
        // The raise on a 4-link sm100 node of 8: 8 → 24 within it at 2.27 (32 at 2.26).
        let gpu = nvswitch_part(4.0, 100);
        let n = Node {
            gpu: &gpu,
            nics: 8,
            inter_gbs: 0.0,
        };
        assert_eq!(coll_channels(&n, comm(8, 8), r([2, 27, 3])), 24);
        assert_eq!(coll_channels(&n, comm(8, 8), r([2, 26, 2])), 32);
    }

    /// The releases' differences: MAXCHANNELS 32 → 64 at 2.25, the network's per-peer channels
    /// computed from 2.20 (2 halved while 2 × ranks > 4 × p2pnChannels) instead of a fixed 2.
    #[test]
    fn per_peer_channels_follow_the_release() {
        let old = Release::of(Some([2, 19, 3]));
        let now = Release::of(Some([2, 26, 2]));
        assert_eq!((old.max_channels, now.max_channels), (32, 64));
        let h100 = node("h100-sxm", 8, 3200.0);
        // 128 ranks over 16 nodes: p2pnChannels 16; 2 × 128 > 4 × 16 → 1 from 2.20.
        assert_eq!(p2p_channels_per_peer(&h100, comm(8, 128), now), 1);
        assert_eq!(p2p_channels_per_peer(&h100, comm(8, 128), old), 2);
        assert_eq!(p2p_channels_per_peer(&h100, comm(8, 16), now), 2);
        // PCIe peers: 2 (paths.cc l.776).
        assert_eq!(
            p2p_channels_per_peer(&node("l40s", 8, 0.0), comm(8, 8), now),
            2
        );
    }
}
