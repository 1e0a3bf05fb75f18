//! Compute slowed by an overlapped NCCL collective (round 8, issue 10): a collective that runs
//! beside compute is a kernel too, one CTA per channel (NCCL v2.18.1-1 @d97a32fa, the release
//! PyTorch 2.1 ships, src/enqueue.cc:1038 `dim3 grid = {(unsigned)plan->channelCount, 1, 1}`,
//! up to NCCL_MAX_NTHREADS 640 threads each, src/include/devcomm.h:53), resident on its SMs for
//! the collective's whole duration. While it runs, the compute stream has (SMs − CTAs) of the
//! chip's SMs, so `overlapped × CTAs / SMs` of compute is lost; nothing is fitted. Applied to
//! the data-parallel collectives that overlap compute (FSDP/ZeRO-3 gathers and reduce-scatters,
//! DDP/ZeRO-1/2 bucketed reductions) and, with the same rule, to the hidden part of Megatron-Core's
//! overlapped expert all-to-all where its kernels hold a set number of SMs (DeepEP, HybridEP:
//! [`ep_kernel_sms`]), and to the async TP collectives of Megatron's backward under sequence
//! parallelism without TP-comm overlap (plain NCCL kernels beside the dgrad/wgrad GEMMs: step.rs
//! `tp_contention`). Not applied: TP-comm overlap (Megatron's Transformer Engine userbuffers
//! reserve their own SMs, torch's async TP copies by the copy engines), NCCL's all-to-all and the
//! pipeline sends (NCCL's p2p channels, 2 per peer by default, not sourced here), and the
//! collective's HBM traffic (no sourced share).

use crate::comm::{Group, IntraClass};
use crate::hardware::GpuSpec;
use crate::workload::MoeDispatcher;

/// NCCL's per-channel search speeds, GB/s (src/graph/search.cc:776-782 @d97a32fa).
const SPEEDS_INTRA_SM80: [f64; 13] = [
    40.0, 30.0, 20.0, 18.0, 15.0, 12.0, 10.0, 9.0, 7.0, 6.0, 5.0, 4.0, 3.0,
];
const SPEEDS_INTRA_SM90: [f64; 9] = [60.0, 40.0, 30.0, 24.0, 20.0, 15.0, 12.0, 6.0, 3.0];
const SPEEDS_INTER_SM80: [f64; 19] = [
    48.0, 30.0, 28.0, 24.0, 20.0, 18.0, 15.0, 12.0, 10.0, 9.0, 7.0, 6.0, 5.0, 4.0, 3.0, 2.4, 1.2,
    0.24, 0.12,
];
const SPEEDS_INTER_SM90: [f64; 14] = [
    48.0, 45.0, 42.0, 40.0, 30.0, 24.0, 15.0, 12.0, 6.0, 3.0, 2.4, 1.2, 0.24, 0.12,
];
/// NCCL's NVLink bandwidth per link for sm80 and sm90, GB/s (src/graph/topo.h:16-17).
const NCCL_NVLINK_BW: f64 = 20.0;
/// Bandwidth of one NVLink (3rd/4th generation), both directions, GB/s, as the catalog's
/// `intra_link_gbs` counts it: 12 links make the A100's 600 GB/s, 18 the H100's 900.
const NVLINK_LINK_GBS: f64 = 50.0;
/// NCCL's PCIe x16 bandwidth, GB/s: width × speed / 80 with Gen4 120 and Gen5 240 (×100 Mbit/s
/// per lane; src/graph/topo.cc:373-376, 438), the GPU-NIC path of a multi-node ring.
const PCIE_GEN4_GBS: f64 = 24.0;
const PCIE_GEN5_GBS: f64 = 48.0;
/// MAXCHANNELS (src/include/devcomm.h:52); the ring search looks for at most half
/// (src/init.cc:832 `ringGraph.maxChannels = MAXCHANNELS/2`).
const MAX_CHANNELS: u64 = 32;

fn is_hopper(gpu: &GpuSpec) -> bool {
    ["h100", "h800", "h20", "h200"]
        .iter()
        .any(|p| gpu.id.starts_with(p))
}

/// NCCL's ring search (search.cc ncclTopoCompute, pass 1): from the first speed at or below
/// the path's bandwidth, channels = bandwidth ÷ speed, lowering the speed while the next one is
/// above 0.49 of the best and keeping the largest channels × speed; `cap` channels at most.
/// Returns (channels, speed).
fn search(speeds: &[f64], max_bw: f64, cap: u64) -> (u64, f64) {
    let mut best = (0_u64, 0.0_f64);
    for &s in speeds.iter().filter(|&&s| s <= max_bw) {
        if best.0 > 0 && s / best.1 <= 0.49 {
            break;
        }
        let n = ((max_bw / s).floor() as u64).min(cap);
        if n as f64 * s > best.0 as f64 * best.1 {
            best = (n, s);
        }
    }
    (best.0.max(1), best.1)
}

/// CTAs (channels) of one ring collective over `g` in NCCL 2.18.1: the search's channels,
/// doubled where the per-channel speed is high (search.cc:954-955: ≥ 25 GB/s on sm80, ≥ 50 on
/// sm90), doubled again when the rings are connected (connect.cc:388-389, at most MAXCHANNELS),
/// and on Hopper across nodes doubled once more when a channel runs above 45 GB/s
/// (connect.cc:402-404). One node: the path is the GPU's NVLink bandwidth (NCCL's 20 GB/s per
/// link), or PCIe Gen4 without NVLink. Across nodes: one channel per NIC, a NIC per GPU
/// (`gpus_per_node`, at most 8), at the slower of the NIC and the PCIe path. A100 in one node:
/// 240 GB/s → 6 × 40 → 12 → 24 (the 24 rings NCCL logs on an HGX A100, nccl-tests issue #100);
/// H100 360 GB/s → 6 × 60 → 12 → 24; across A100 nodes with 200 Gbit/s NICs 8 × 24 → 16,
/// across H100 nodes with 400 Gbit/s NICs 8 × 48 → 16 → 32.
pub(super) fn nccl_ctas(gpu: &GpuSpec, g: Group, gpus_per_node: u64, nic_gbs: f64) -> u64 {
    let hopper = is_hopper(gpu);
    let half = MAX_CHANNELS / 2;
    let (n, speed) = if g.nodes <= 1 {
        let bw = match (g.intra, gpu.intra_link_gbs) {
            (IntraClass::NvLink, Some(gbs)) if gbs > 0.0 => {
                (gbs / NVLINK_LINK_GBS).round() * NCCL_NVLINK_BW
            }
            _ => PCIE_GEN4_GBS,
        };
        let speeds: &[f64] = if hopper {
            &SPEEDS_INTRA_SM90
        } else {
            &SPEEDS_INTRA_SM80
        };
        search(speeds, bw, half)
    } else {
        let pcie = if hopper { PCIE_GEN5_GBS } else { PCIE_GEN4_GBS };
        let speeds: &[f64] = if hopper {
            &SPEEDS_INTER_SM90
        } else {
            &SPEEDS_INTER_SM80
        };
        let (_, s) = search(speeds, nic_gbs.min(pcie), 1);
        (gpus_per_node.clamp(1, 8).min(half), s)
    };
    let dup = if hopper { speed >= 50.0 } else { speed >= 25.0 };
    let n = if dup { (2 * n).min(half) } else { n };
    let n = (2 * n).min(MAX_CHANNELS);
    if hopper && g.nodes > 1 && speed > 45.0 && 2 * n <= MAX_CHANNELS {
        2 * n
    } else {
        n
    }
}

/// Megatron-Core's default SMs for DeepEP's kernels (`moe_deepep_num_sms: int = 20`, "Number of
/// SMs to use for DeepEP", megatron/core/transformer/transformer_config.py @b0cc2706 line 722, the
/// same @55ac7082 and @d0b3b775), which `set_deepep_num_sms` hands to DeepEP's `Buffer.set_num_sms`
/// (megatron/core/transformer/moe/fused_a2a.py @b0cc2706 lines 258-260).
const DEEPEP_SMS: u64 = 20;
/// Megatron-Core's default SMs for HybridEP's dispatch and combine kernels
/// (`moe_hybridep_num_sms: int = 16`, "In pure NVL scenarios, 16 SMs can generally achieve good
/// bandwidth", transformer_config.py @b0cc2706 line 725 and @55ac7082), passed as
/// `num_sms_dispatch_api` and `num_sms_combine_api` (megatron/core/transformer/moe/
/// token_dispatcher.py @b0cc2706 lines 1044-1045). Later releases leave it to DeepEP's default (`Optional[int] = None`
/// @d0b3b775) and Megatron-Bridge's perf recipes set 32 (`cfg.model.moe_hybridep_num_sms = 32`,
/// src/megatron/bridge/perf_recipes/_common.py @067f987d line 89): not a workload setting yet.
const HYBRIDEP_SMS: u64 = 16;

/// SMs the expert all-to-all's kernels hold while they run: DeepEP and HybridEP launch their
/// dispatch and combine kernels on a set number of SMs (above); `None` for NCCL's all-to-all, whose
/// grouped send/recv takes NCCL's p2p channels (per peer, not sourced here: not charged).
pub(super) fn ep_kernel_sms(d: MoeDispatcher) -> Option<u64> {
    match d {
        MoeDispatcher::DeepEp => Some(DEEPEP_SMS),
        MoeDispatcher::HybridEp => Some(HYBRIDEP_SMS),
        MoeDispatcher::AllToAll | MoeDispatcher::AllGather => None,
    }
}

/// Compute time lost while `overlapped` seconds of collectives of `ctas` CTAs run beside it on
/// a chip of `sms` SMs; zero where the SM count is not in the catalog.
pub(super) fn lost_compute(overlapped: f64, ctas: u64, sms: Option<u64>) -> f64 {
    match sms {
        Some(s) if s > 0 => overlapped.max(0.0) * ctas.min(s) as f64 / s as f64,
        _ => 0.0,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn gpu(id: &str) -> &'static GpuSpec {
        crate::hardware::find_gpu(id).expect("catalog gpu")
    }

    fn group(nodes: u64) -> Group {
        Group {
            ranks: 8 * nodes,
            nodes,
            intra: IntraClass::NvLink,
            nccl: None,
        }
    }

    /// The channel counts derived in the doc comment, from NCCL 2.18.1's search and duplication.
    #[test]
    fn nccl_channels_follow_the_ring_search() {
        let (a100, h100) = (gpu("a100-80g"), gpu("h100-sxm"));
        assert_eq!(nccl_ctas(a100, group(1), 8, 25.0), 24);
        assert_eq!(nccl_ctas(h100, group(1), 8, 50.0), 24);
        assert_eq!(nccl_ctas(a100, group(2), 8, 25.0), 16);
        assert_eq!(nccl_ctas(h100, group(2), 8, 50.0), 32);
        // 100 Gbit/s per GPU on Hopper: 12 GB/s channels, no Hopper doubling.
        assert_eq!(nccl_ctas(h100, group(2), 8, 12.5), 16);
        // The A800's and H800's 8 NVLinks (400 GB/s): 4 × 40 GB/s channels, doubled on sm80 only.
        assert_eq!(nccl_ctas(gpu("a800-80g"), group(1), 8, 25.0), 16);
        assert_eq!(nccl_ctas(gpu("h800"), group(1), 8, 25.0), 8);
    }

    #[test]
    fn ep_kernels_hold_megatron_cores_default_sms() {
        assert_eq!(ep_kernel_sms(MoeDispatcher::DeepEp), Some(20));
        assert_eq!(ep_kernel_sms(MoeDispatcher::HybridEp), Some(16));
        assert_eq!(ep_kernel_sms(MoeDispatcher::AllToAll), None);
        // An H100 (132 SMs) gives DeepEP's 20 SMs 20/132 of the hidden second.
        let lost = lost_compute(
            1.0,
            ep_kernel_sms(MoeDispatcher::DeepEp).unwrap(),
            Some(132),
        );
        assert!((lost - 20.0 / 132.0).abs() < 1e-12);
    }

    #[test]
    fn lost_compute_is_the_ctas_share_of_the_overlap() {
        assert!((lost_compute(1.0, 24, Some(108)) - 24.0 / 108.0).abs() < 1e-12);
        assert_eq!(lost_compute(1.0, 24, None), 0.0);
        assert_eq!(lost_compute(1.0, 200, Some(132)), 1.0);
    }
}
