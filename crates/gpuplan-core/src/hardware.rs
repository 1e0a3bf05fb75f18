//! Accelerators and the clusters built from them.
//!
//! The built-in accelerator table (`data/gpus.toml`) is a first slice of the catalog: every row
//! carries `source`, `as_of` and `confidence`, and an unsourced number is absent (`None`), so an
//! estimate that needs it says so instead of using a guess.

use crate::error::{close_names, CoreError};
use crate::units::{Bandwidth, Bytes, FlopRate, Seconds};
use serde::{Deserialize, Serialize};
use std::sync::OnceLock;

const GPUS_TOML: &str = include_str!("../data/gpus.toml");

/// Numeric formats a tensor core computes in.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum ComputeDtype {
    Fp32,
    Tf32,
    Fp16,
    Bf16,
    Fp8,
    Int8,
}

impl ComputeDtype {
    pub fn name(self) -> &'static str {
        match self {
            ComputeDtype::Fp32 => "fp32",
            ComputeDtype::Tf32 => "tf32",
            ComputeDtype::Fp16 => "fp16",
            ComputeDtype::Bf16 => "bf16",
            ComputeDtype::Fp8 => "fp8",
            ComputeDtype::Int8 => "int8",
        }
    }
}

/// Dense peak throughput per dtype, TFLOP/s (TOP/s for int8). Zero or absent: not supported or
/// not sourced.
#[derive(Clone, Copy, Debug, Default, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct PeakTflops {
    pub fp32: Option<f64>,
    pub tf32: Option<f64>,
    pub fp16: Option<f64>,
    pub bf16: Option<f64>,
    pub fp8: Option<f64>,
    pub int8: Option<f64>,
}

/// The link between GPUs of one node.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum IntraLink {
    Pcie3,
    Pcie4,
    Pcie5,
    Nvlink2,
    Nvlink3,
    Nvlink4,
    /// Huawei HCCS (Ascend 8-card full mesh).
    Hccs,
    /// AMD Infinity Fabric (xGMI) between Instinct GPUs.
    InfinityFabric,
}

impl IntraLink {
    pub fn is_nvlink_class(self) -> bool {
        matches!(
            self,
            IntraLink::Nvlink2 | IntraLink::Nvlink3 | IntraLink::Nvlink4 | IntraLink::Hccs
        )
    }
    pub fn name(self) -> &'static str {
        match self {
            IntraLink::Pcie3 => "PCIe Gen3",
            IntraLink::Pcie4 => "PCIe Gen4",
            IntraLink::Pcie5 => "PCIe Gen5",
            IntraLink::Nvlink2 => "NVLink 2",
            IntraLink::Nvlink3 => "NVLink 3",
            IntraLink::Nvlink4 => "NVLink 4",
            IntraLink::Hccs => "HCCS",
            IntraLink::InfinityFabric => "Infinity Fabric",
        }
    }
    /// Datasheet bidirectional x16 bandwidth for PCIe generations (PCI-SIG: 8/16/32 GT/s per lane).
    fn pcie_default_gbs(self) -> Option<f64> {
        match self {
            IntraLink::Pcie3 => Some(32.0),
            IntraLink::Pcie4 => Some(64.0),
            IntraLink::Pcie5 => Some(128.0),
            _ => None,
        }
    }
}

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct GpuSpec {
    pub id: String,
    pub name: String,
    pub vendor: String,
    /// Marketed memory per device; `None` where no source gives it.
    pub memory_gib: Option<f64>,
    /// Total memory as torch.cuda / vLLM report it (`cudaMemGetInfo`), where a log shows it.
    pub visible_memory_gib: Option<f64>,
    /// Total memory as nvidia-smi / NVML report it, MiB, where a source shows it. Below the
    /// marketed size on GDDR6 datacenter boards with ECC on by default (A10, L4, L40S, T4: 1/16
    /// of the memory holds the ECC bits).
    #[serde(default)]
    pub reported_memory_mib: Option<f64>,
    pub memory_bandwidth_gbs: Option<f64>,
    #[serde(default)]
    pub tflops: PeakTflops,
    pub intra_link: IntraLink,
    /// Bidirectional per-GPU datasheet figure.
    pub intra_link_gbs: Option<f64>,
    pub tdp_w: Option<f64>,
    /// Streaming multiprocessors (for GEMM wave quantization, `compute.rs`); absent where no
    /// source was read: then no wave quantization is applied.
    #[serde(default)]
    pub sm_count: Option<u64>,
    /// CUDA compute capability × 10 (NVIDIA's CUDA GPUs table: 80 for the A100, 90 for the
    /// H100): selects NCCL's per-link NVLink bandwidth and ring-search speeds
    /// (`train/nccl_search.rs`). `None`: not stated (non-CUDA parts, unnamed cloud parts).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub compute_capability: Option<u32>,
    /// cuda | cann | rocm.
    pub stack: String,
    /// Formats the chip computes in natively (tensor/cube units; fp32 on the vector units). Empty:
    /// not stated, and [`GpuSpec::supports`] falls back to the sourced peaks.
    #[serde(default)]
    pub dtypes: Vec<ComputeDtype>,
    /// Whether FlashAttention-2-class fused attention runs on it (CUDA sm80+, ROCm CK on MI200/
    /// MI300, Ascend `npu_fusion_attention`). `None`: not stated.
    #[serde(default)]
    pub flash_attention: Option<bool>,
    /// Where `dtypes` and `flash_attention` come from (architecture whitepapers, kernel READMEs).
    #[serde(default)]
    pub capability_source: Option<String>,
    /// Whether the part's NVLink fabric is third-generation (or later) NVSwitch, whose switches
    /// reduce and multicast in the network (NVLink SHARP, "NVLS" in NCCL): NCCL then allocates
    /// NVLS buffers on every communicator over more than two of its GPUs (`train/nccl.rs`, for
    /// training and vLLM's communicators alike).
    /// `None`: not stated (nothing charged).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub nvswitch_sharp: Option<bool>,
    #[serde(default)]
    pub consumer: bool,
    pub source: String,
    pub as_of: String,
    pub confidence: String,
}

/// Fraction of the driver's total (nvidia-smi; the marketed size on HBM and GeForce boards) that
/// the CUDA runtime reports as total when no log gives the exact figure: 79.15/80 (A100-80GB,
/// vLLM PR #2031) and 23.58/24 (RTX 3090, vLLM issue log) average 0.986; an A10G's 22.30 GiB
/// (AWS data-on-eks vLLM log) of its 23028 MiB = 22.49 GiB is 0.992.
pub const VISIBLE_MEMORY_FRACTION: f64 = 0.986;

impl GpuSpec {
    /// Marketed memory, if sourced.
    pub fn memory(&self) -> Option<Bytes> {
        self.memory_gib.map(Bytes::from_gib)
    }
    /// Total memory as torch.cuda / vLLM report it: the logged figure, else
    /// [`VISIBLE_MEMORY_FRACTION`] of the driver's total (nvidia-smi where sourced, else the
    /// marketed size). What a job can use: planning compares peaks against it.
    pub fn visible_memory(&self) -> Option<Bytes> {
        self.visible_memory_gib
            .or(self
                .reported_memory_mib
                .map(|mib| mib / 1024.0 * VISIBLE_MEMORY_FRACTION))
            .or(self.memory_gib.map(|m| m * VISIBLE_MEMORY_FRACTION))
            .map(Bytes::from_gib)
    }
    pub fn memory_bandwidth(&self) -> Option<Bandwidth> {
        self.memory_bandwidth_gbs.map(Bandwidth::from_gb_per_s)
    }
    /// Dense peak for a dtype, if supported and sourced.
    pub fn peak(&self, dtype: ComputeDtype) -> Option<FlopRate> {
        let t = &self.tflops;
        let v = match dtype {
            ComputeDtype::Fp32 => t.fp32,
            ComputeDtype::Tf32 => t.tf32,
            ComputeDtype::Fp16 => t.fp16,
            ComputeDtype::Bf16 => t.bf16,
            ComputeDtype::Fp8 => t.fp8,
            ComputeDtype::Int8 => t.int8,
        };
        v.filter(|x| *x > 0.0).map(FlopRate::from_tflops)
    }
    /// Whether the chip computes in `dtype`: its stated `dtypes`, else a sourced non-zero peak.
    pub fn supports(&self, dtype: ComputeDtype) -> bool {
        if self.dtypes.is_empty() {
            self.peak(dtype).is_some()
        } else {
            self.dtypes.contains(&dtype)
        }
    }
    /// Whether FlashAttention-2-class kernels run here. When a row does not say (user GPU tables):
    /// on CUDA, FlashAttention-2 needs sm80+, and exactly the sm80+ parts have bf16, so bf16
    /// support decides; other stacks count as yes (the memory model is the same as PyTorch's
    /// memory-efficient SDPA, only the label differs).
    pub fn has_flash_attention(&self) -> bool {
        self.flash_attention
            .unwrap_or_else(|| self.stack != "cuda" || self.supports(ComputeDtype::Bf16))
    }
    /// Peak for 16-bit training: bf16 where the chip has it, else fp16 (T4, V100).
    pub fn peak_half(&self) -> Option<FlopRate> {
        self.peak(ComputeDtype::Bf16)
            .or_else(|| self.peak(ComputeDtype::Fp16))
    }
    /// One-direction bandwidth of the GPU's PCIe x16 link to the host (what host offload
    /// crosses): a PCIe card's own generation; SXM parts by NVLink generation, as NVIDIA's
    /// datasheets list their host interface ("NVLink: 600GB/s PCIe Gen4: 64GB/s" for the A100
    /// 80GB SXM, "NVLink: 900GB/s, PCIe Gen5: 128GB/s" for the H100/H200 SXM, "NVLink 400GB/s
    /// PCIe Gen5: 128GB/s" for the H800), halved for one direction. `None` where no source gives
    /// the host link (NVLink 2 parts, HCCS, Infinity Fabric): host transfers are then not timed.
    pub fn host_link_bandwidth(&self) -> Option<Bandwidth> {
        let generation = match self.intra_link {
            IntraLink::Pcie3 => IntraLink::Pcie3,
            IntraLink::Pcie4 | IntraLink::Nvlink3 => IntraLink::Pcie4,
            IntraLink::Pcie5 | IntraLink::Nvlink4 => IntraLink::Pcie5,
            IntraLink::Nvlink2 | IntraLink::Hccs | IntraLink::InfinityFabric => return None,
        };
        generation
            .pcie_default_gbs()
            .map(|g| Bandwidth::from_gb_per_s(g / 2.0))
    }
    /// One-direction per-GPU bandwidth of the intra-node link.
    pub fn intra_link_bandwidth(&self) -> Option<Bandwidth> {
        self.intra_link_gbs
            .or_else(|| self.intra_link.pcie_default_gbs())
            .map(|g| Bandwidth::from_gb_per_s(g / 2.0))
    }
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct GpuFile {
    gpu: Vec<GpuSpec>,
}

/// Parse an accelerator table (the built-in one or a user's).
pub fn parse_gpu_table(what: &str, text: &str) -> Result<Vec<GpuSpec>, CoreError> {
    let f: GpuFile = toml::from_str(text).map_err(|e| CoreError::Parse {
        what: what.to_string(),
        message: e.to_string(),
    })?;
    Ok(f.gpu)
}

pub fn builtin_gpus() -> Result<&'static [GpuSpec], CoreError> {
    static CELL: OnceLock<Result<Vec<GpuSpec>, CoreError>> = OnceLock::new();
    match CELL.get_or_init(|| parse_gpu_table("built-in data/gpus.toml", GPUS_TOML)) {
        Ok(v) => Ok(v.as_slice()),
        Err(e) => Err(e.clone()),
    }
}

fn gpu_key(s: &str) -> String {
    let mut k = s.to_lowercase().replace(['_', ' '], "-");
    for p in ["nvidia-", "geforce-", "huawei-"] {
        if let Some(rest) = k.strip_prefix(p) {
            k = rest.to_string();
        }
    }
    k.replace("gb", "g")
}

/// Find an accelerator by id or name ("A100", "a100_80gb", "NVIDIA H100 80GB SXM").
/// A bare "A100" means the 80 GB SXM part; "H100" the SXM part.
pub fn find_gpu(name: &str) -> Result<&'static GpuSpec, CoreError> {
    let all = builtin_gpus()?;
    let key = gpu_key(name);
    let key = match key.as_str() {
        "a100" | "a100-80g" | "a100-sxm" | "a100-sxm-80g" => "a100-80g".to_string(),
        "h100" | "h100-80g" | "h100-sxm-80g" => "h100-sxm".to_string(),
        "v100" => "v100-sxm2-32g".to_string(),
        "4090" => "rtx-4090".to_string(),
        "3090" => "rtx-3090".to_string(),
        "910b" => "ascend-910b".to_string(),
        _ => key,
    };
    all.iter()
        .find(|g| gpu_key(&g.id) == key || gpu_key(&g.name) == key)
        .ok_or_else(|| CoreError::Unknown {
            kind: "GPU".into(),
            name: name.to_string(),
            suggestions: close_names(name, all.iter().map(|g| g.id.as_str())),
            note: None,
        })
}

/// How nodes talk to each other.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
#[serde(rename_all = "snake_case")]
pub enum InterLink {
    /// InfiniBand or RoCE (GPUDirect RDMA).
    Rdma,
    /// Alibaba eRDMA (RDMA over the VPC, lower bandwidth than dedicated RoCE).
    Erdma,
    /// Plain TCP over the VPC.
    Tcp,
}

impl InterLink {
    pub fn name(self) -> &'static str {
        match self {
            InterLink::Rdma => "RDMA (IB/RoCE)",
            InterLink::Erdma => "eRDMA",
            InterLink::Tcp => "TCP",
        }
    }
    /// Per-message latency used for the α term of collectives (order of magnitude: ~5 µs for
    /// RDMA, ~10 µs eRDMA, ~50 µs kernel TCP; NCCL tuning docs and common nccl-tests results).
    pub fn latency(self) -> Seconds {
        match self {
            InterLink::Rdma => Seconds(5e-6),
            InterLink::Erdma => Seconds(10e-6),
            InterLink::Tcp => Seconds(50e-6),
        }
    }
}

/// The hardware an estimate runs on.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct ClusterSpec {
    /// Shared: a plan search builds thousands of clusters of the same few chips.
    pub gpu: std::sync::Arc<GpuSpec>,
    pub gpus_per_node: u64,
    pub nodes: u64,
    /// One-direction per-GPU bandwidth inside a node.
    pub intra_bandwidth: Bandwidth,
    pub inter_link: InterLink,
    /// One-direction bandwidth per node across nodes (sum of its NICs).
    pub inter_bandwidth: Bandwidth,
    /// Host vCPUs (hardware threads) per node, when known: image models are capped at what they
    /// can decode (`train::host`). `None`: no host ceiling.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub host_vcpus: Option<u64>,
    /// The catalog names a host CPU that is not x86 (Huawei's Kunpeng 920 hosts, aarch64): the
    /// host optimizer step's per-core rates (an x86 AVX-512 measurement) and two vCPUs per core
    /// do not apply to it, so that step is left untimed (`train::step::offload`).
    #[serde(skip_serializing_if = "std::ops::Not::not")]
    pub host_not_x86: bool,
}

/// Most GPUs in one node.
pub const MAX_GPUS_PER_NODE: u64 = 1024;
/// Most GPUs in one cluster.
pub const MAX_CLUSTER_GPUS: u64 = 1_048_576;

impl ClusterSpec {
    /// A cluster of `nodes` × `gpus_per_node` of `gpu`, with the GPU's own intra-node link and the
    /// given network between nodes.
    pub fn new(
        gpu: &GpuSpec,
        gpus_per_node: u64,
        nodes: u64,
        inter_link: InterLink,
        inter_bandwidth: Bandwidth,
    ) -> Result<ClusterSpec, CoreError> {
        let gpu = std::sync::Arc::new(gpu.clone());
        ClusterSpec::shared(gpu, gpus_per_node, nodes, inter_link, inter_bandwidth)
    }

    /// [`ClusterSpec::new`] over a chip row already shared (no copy of it).
    pub fn shared(
        gpu: std::sync::Arc<GpuSpec>,
        gpus_per_node: u64,
        nodes: u64,
        inter_link: InterLink,
        inter_bandwidth: Bandwidth,
    ) -> Result<ClusterSpec, CoreError> {
        if gpus_per_node == 0 {
            return Err(CoreError::invalid("gpus_per_node", 0, "must be at least 1"));
        }
        if nodes == 0 {
            return Err(CoreError::invalid("nodes", 0, "must be at least 1"));
        }
        // total_gpus() multiplies the two: refuse what would overflow or is absurd.
        let total = gpus_per_node.saturating_mul(nodes);
        if gpus_per_node > MAX_GPUS_PER_NODE || total > MAX_CLUSTER_GPUS {
            return Err(CoreError::invalid(
                "gpus_per_node × nodes",
                format!("{gpus_per_node} × {nodes}"),
                "at most 1024 GPUs per node and 1048576 GPUs in all",
            ));
        }
        let intra = gpu
            .intra_link_bandwidth()
            .unwrap_or_else(|| Bandwidth::from_gb_per_s(16.0));
        Ok(ClusterSpec {
            gpu,
            gpus_per_node,
            nodes,
            intra_bandwidth: intra,
            inter_link,
            inter_bandwidth,
            host_vcpus: None,
            host_not_x86: false,
        })
    }
    pub fn total_gpus(&self) -> u64 {
        self.gpus_per_node.saturating_mul(self.nodes)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The usable total: a logged torch figure first, then 0.986 of nvidia-smi's total (ECC GDDR6
    /// boards lose 1/16), then 0.986 of the marketed size; never above the marketed size.
    #[test]
    fn visible_memory_prefers_the_log_then_the_driver_total() {
        let g = builtin_gpus().unwrap();
        let get = |id: &str| g.iter().find(|x| x.id == id).unwrap();
        let gib = |id: &str| get(id).visible_memory().unwrap().gib();
        assert!((gib("a100-80g") - 79.15).abs() < 1e-9);
        assert!((gib("t4") - 14.58).abs() < 1e-9);
        // No log for the A10: 0.986 of the driver's 23028 MiB.
        assert!((gib("a10") - 23028.0 / 1024.0 * VISIBLE_MEMORY_FRACTION).abs() < 1e-9);
        assert!((gib("l40s") - 46068.0 / 1024.0 * VISIBLE_MEMORY_FRACTION).abs() < 1e-9);
        assert!((gib("h100-sxm") - 80.0 * VISIBLE_MEMORY_FRACTION).abs() < 1e-9);
        for x in g {
            if let (Some(v), Some(m)) = (x.visible_memory(), x.memory()) {
                assert!(v.0 <= m.0, "{}: usable above marketed", x.id);
            }
        }
    }

    #[test]
    fn builtin_table_parses_and_every_row_is_sourced() {
        let g = builtin_gpus().unwrap();
        assert!(g.len() >= 15);
        for x in g {
            assert!(!x.source.is_empty() && !x.as_of.is_empty(), "{}", x.id);
            assert!(
                ["confirmed", "likely", "unverified"].contains(&x.confidence.as_str()),
                "{}",
                x.id
            );
        }
    }

    #[test]
    fn aliases_resolve() {
        assert_eq!(find_gpu("A100").unwrap().id, "a100-80g");
        assert_eq!(find_gpu("a100_80gb").unwrap().id, "a100-80g");
        assert_eq!(find_gpu("h100_80gb").unwrap().id, "h100-sxm");
        assert_eq!(find_gpu("NVIDIA L20").unwrap().id, "l20");
        assert!(find_gpu("B300").is_err());
    }

    #[test]
    fn every_row_states_its_capabilities_and_they_follow_the_architecture() {
        for g in builtin_gpus().unwrap() {
            assert!(!g.dtypes.is_empty(), "{} has no dtypes", g.id);
            assert!(g.flash_attention.is_some(), "{}", g.id);
            assert!(g.capability_source.is_some(), "{}", g.id);
            // A sourced peak for a format the chip does not support would be a contradiction.
            for d in [ComputeDtype::Bf16, ComputeDtype::Fp8] {
                assert!(g.peak(d).is_none() || g.supports(d), "{} {:?}", g.id, d);
            }
        }
        for id in ["t4", "v100-sxm2-32g", "v100-pcie-16g", "p100"] {
            let g = find_gpu(id).unwrap();
            assert!(
                !g.supports(ComputeDtype::Bf16) && !g.has_flash_attention(),
                "{id}"
            );
        }
        // FP8 only on Hopper, Ada and later (and CDNA 3).
        let fp8: Vec<&str> = builtin_gpus()
            .unwrap()
            .iter()
            .filter(|g| g.supports(ComputeDtype::Fp8))
            .map(|g| g.id.as_str())
            .collect();
        for id in &fp8 {
            assert!(
                [
                    "h1",
                    "h2",
                    "h8",
                    "l4",
                    "l20",
                    "l40",
                    "rtx-40",
                    "alibaba-bl",
                    "mi300"
                ]
                .iter()
                .any(|p| id.starts_with(p)),
                "{id} claims fp8"
            );
        }
        assert!(find_gpu("ascend-910b")
            .unwrap()
            .supports(ComputeDtype::Bf16));
        assert!(!find_gpu("ascend-310p")
            .unwrap()
            .supports(ComputeDtype::Bf16));
    }

    #[test]
    fn rows_without_capabilities_fall_back_to_peaks() {
        let t = parse_gpu_table(
            "user",
            r#"[[gpu]]
id = "my-turing"
name = "Some Turing card"
vendor = "nvidia"
tflops = { fp16 = 65 }
intra_link = "pcie3"
stack = "cuda"
source = "user"
as_of = "2025-06"
confidence = "unverified""#,
        )
        .unwrap();
        let g = &t[0];
        assert!(!g.supports(ComputeDtype::Bf16) && g.supports(ComputeDtype::Fp16));
        assert!(!g.has_flash_attention());
    }

    #[test]
    fn peaks_and_links() {
        let h = find_gpu("h100-sxm").unwrap();
        assert_eq!(h.peak(ComputeDtype::Bf16).unwrap().tflops(), 989.0);
        assert_eq!(h.intra_link_bandwidth().unwrap().gb_per_s(), 450.0);
        let t4 = find_gpu("t4").unwrap();
        assert!(t4.peak(ComputeDtype::Bf16).is_none());
        assert_eq!(t4.peak_half().unwrap().tflops(), 65.0);
    }
}
