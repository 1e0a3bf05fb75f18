//! Advice rules: the seed articles' checklist made quantitative. Each rule has an id, a
//! severity, a condition evaluated on the computed plan, and text in English and Chinese. Where
//! the articles were wrong, the rule says what is true instead (docs/advice.md lists them all).

use super::{ChipFamily, Job, Plan, PlanRequest};
use crate::catalog::{Billing, InstanceLink, PriceKind, StorageKind};
use serde::Serialize;

#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum Severity {
    Info,
    Warn,
    Critical,
}

#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct Advice {
    pub id: &'static str,
    pub severity: Severity,
    pub en: String,
    pub zh: String,
}

fn a(id: &'static str, severity: Severity, en: String, zh: String) -> Advice {
    Advice {
        id,
        severity,
        en,
        zh,
    }
}

/// Every rule id with a one-line description (for docs and tests).
pub const RULES: &[(&str, &str)] = &[
    (
        "multi-node-without-rdma",
        "multi-node training over TCP: the communication share it costs",
    ),
    (
        "tp-over-pcie",
        "tensor parallelism across GPUs linked only by PCIe",
    ),
    (
        "zero3-over-slow-link",
        "ZeRO-3/FSDP gathers over PCIe or TCP",
    ),
    (
        "nvlink-needed",
        "the model needs TP or heavy DP and the GPUs lack NVLink",
    ),
    (
        "placement",
        "same zone / VPC / subnet and topology-aware placement for multi-node jobs",
    ),
    (
        "topology-check",
        "check the GPU topology with nvidia-smi topo -m (Ascend: npu-smi info -t topo)",
    ),
    (
        "storage-class",
        "storage class from the required read throughput and checkpoint writes",
    ),
    (
        "host-cpu-ratio",
        "vCPUs per GPU against the articles' 1:4 rule and the decode need",
    ),
    (
        "host-ram-ratio",
        "host RAM against 1.5–2× total GPU memory (and offload needs)",
    ),
    (
        "image-decode-cores",
        "host cores needed for image decode/augmentation",
    ),
    (
        "vendor-image",
        "vendor GPU/AI images with matching driver, CUDA and NCCL (Ascend: driver/firmware, CANN, torch_npu or MindSpore, HCCL)",
    ),
    (
        "ascend-migration",
        "Ascend needs CANN + torch_npu or MindSpore and a migration effort",
    ),
    (
        "big-card-small-inference",
        "training-class GPUs for small inference: cost per request vs T4/A10",
    ),
    (
        "consumer-gpu",
        "consumer GPUs' licence and compliance caveats",
    ),
    (
        "stock-fallbacks",
        "two or three fallback plans on other families or providers",
    ),
    (
        "first-hour",
        "what to watch in the first hour and what to change",
    ),
    ("auto-release", "release machines when the job ends"),
    (
        "filing-duty",
        "filing duty for public generative-AI services in China",
    ),
    (
        "spot-checkpoint",
        "spot only for interruptible jobs, with the checkpoint interval",
    ),
    (
        "subscription-break-even",
        "monthly subscription vs on-demand break-even",
    ),
    ("quantization", "quantization when it changes the answer"),
    (
        "memory-headroom",
        "little memory headroom left on the device",
    ),
    (
        "price-provenance",
        "where the price comes from (list / user / estimate) and its date",
    ),
    (
        "unverified-facts",
        "the plan rests on catalog facts marked likely or unverified",
    ),
    (
        "storage-tiering",
        "hot/cold split: the dataset on object storage with a smaller file-system cache, when cheaper",
    ),
    (
        "autoscaling",
        "serving replicas: load, peak headroom, availability floor, what to autoscale on",
    ),
    (
        "poor-plan-hints",
        "a communication-bound or low-MFU top plan: what would change it, with the estimated gain",
    ),
    (
        "region-undocumented",
        "--region asked but the type's regions are not documented: check availability there",
    ),
    (
        "price-other-region",
        "the price comes from another region than the one asked: a labelled estimate",
    ),
    (
        "access-restricted",
        "the family needs an invitation, application/whitelist, ticket or sales contact",
    ),
    (
        "stock-reported",
        "the provider's stock API (imported) reported the type low on stock; sold-out types are not planned",
    ),
];

fn pct(x: f64) -> String {
    format!("{:.0}%", x * 100.0)
}

/// The hot/cold storage split and what it saves per month.
fn tiering(t: &super::money::Tiered, s: &super::money::StorageChoice) -> Advice {
    let split = t.object_monthly_cny + t.cache_monthly_cny;
    let whole = s.monthly_cny.unwrap_or(split);
    a(
        "storage-tiering",
        Severity::Info,
        format!(
            "Cheaper hot/cold split: keep the {:.0} GiB dataset on {} (¥{:.0}/month; it sustains the read rate) and a {:.0} GiB {} for the hot working set and the checkpoints (¥{:.0}/month): ¥{:.0}/month instead of ¥{:.0} for {:.0} GiB of {}. Read through a cache layer (JindoFS/Fluid, ossfs/obsfs/cosfs with a local cache, or the file system's data flow from object storage).",
            t.object_gib, t.object, t.object_monthly_cny, t.cache_gib, t.cache, t.cache_monthly_cny, split, whole, s.capacity_gib, s.class.name
        ),
        format!(
            "更省的冷热分层：{:.0} GiB 数据集放在 {}（每月 ¥{:.0}，可满足读取速率），另用 {:.0} GiB 的 {} 存放热数据和检查点（每月 ¥{:.0}）：合计每月 ¥{:.0}，而全部放在 {:.0} GiB 的 {} 上需 ¥{:.0}。通过缓存层读取（JindoFS/Fluid、带本地缓存的 ossfs/obsfs/cosfs，或文件存储与对象存储的数据流动）。",
            t.object_gib, t.object, t.object_monthly_cny, t.cache_gib, t.cache, t.cache_monthly_cny, split, s.capacity_gib, s.class.name, whole
        ),
    )
}

/// Replicas to run and how to scale them.
fn autoscaling(s: &super::ServeDetail, job: &super::ServeJob) -> Advice {
    let floor = s.replicas_for_rate.max(job.min_replicas.max(1));
    let single = job.min_replicas <= 1;
    a(
        "autoscaling",
        if single { Severity::Warn } else { Severity::Info },
        format!(
            "Replicas: the stated load needs {} (at {:.2} req/s each); the plan runs {} ({:.2}× peak headroom, at least {} for availability{}). {}: scale on queue length (vLLM `vllm:num_requests_waiting` > 0 for 1–2 min) or KV-cache use (`vllm:gpu_cache_usage_perc` > 0.8), not on GPU utilisation, which continuous batching keeps high. New replicas need minutes to load weights: keep the floor warm.",
            s.replicas_for_rate, s.requests_per_second_per_replica, s.replicas, job.peak_factor, job.min_replicas,
            if single { "; one replica is a single point of failure: a node failure or an upgrade takes the service down" } else { "" },
            if s.replicas > floor { format!("Autoscale between {floor} and {}", s.replicas) } else { format!("Keep {floor} running and autoscale above it for larger peaks") },
        ),
        format!(
            "副本数：按给定负载需要 {} 个（每个约 {:.2} 请求/秒）；本方案运行 {} 个（峰值余量 {:.2} 倍，为可用性至少 {} 个{}）。{}：按排队长度（vLLM `vllm:num_requests_waiting` 持续 1–2 分钟 > 0）或 KV 缓存占用（`vllm:gpu_cache_usage_perc` > 0.8）扩容，不要按 GPU 利用率（连续批处理下它总是很高）。新副本加载权重需要数分钟：保持最低副本常驻。",
            s.replicas_for_rate, s.requests_per_second_per_replica, s.replicas, job.peak_factor, job.min_replicas,
            if single { "；单副本是单点故障，节点故障或升级会导致服务中断" } else { "" },
            if s.replicas > floor { format!("自动扩缩容区间 {floor}–{}", s.replicas) } else { format!("常驻 {floor} 个，更大的峰值再向上扩容") },
        ),
    )
}

pub fn evaluate(p: &Plan, req: &PlanRequest) -> Vec<Advice> {
    let mut out = Vec::new();
    let i = &p.instance;
    let gpus_per_node = p.cluster.gpus_per_node;
    let ascend = ChipFamily::of(&p.gpu) == ChipFamily::Ascend;
    let nvlink = matches!(
        i.intra_link,
        Some(InstanceLink::Nvlink | InstanceLink::Nvswitch | InstanceLink::Hccs)
    );
    if let Some(t) = &p.train {
        let st = &t.step;
        let share = |x: f64| x / st.step.0;
        let dp_share = share(st.dp_comm_exposed.0);
        if p.nodes > 1 && !i.rdma.is_rdma() {
            let total = st.dp_comm_total.0 / st.step.0;
            out.push(a(
                "multi-node-without-rdma",
                if dp_share > 0.15 { Severity::Critical } else { Severity::Warn },
                format!(
                    "{} nodes without RDMA: gradient sync runs over TCP at {} per node: {} per step ({} of the step), {} of it not hidden behind compute ({} of the step). TCP also adds latency and jitter; pick an RDMA (eRDMA/RoCE/IB) type for multi-node training.",
                    p.nodes, p.cluster.inter_bandwidth, st.dp_comm_total, pct(total), st.dp_comm_exposed, pct(dp_share)
                ),
                format!(
                    "{} 个节点之间没有 RDMA：梯度同步走 TCP（每节点 {}），每步通信 {}（占 {}），未被计算掩盖的部分占每步 {}。TCP 还带来额外延迟与抖动，多机训练请选择支持 eRDMA/RoCE/IB 的规格。",
                    p.nodes, p.cluster.inter_bandwidth, st.dp_comm_total, pct(total), pct(dp_share)
                ),
            ));
        }
        if t.setup.parallel.tp > 1 && !nvlink {
            out.push(a(
                "tp-over-pcie",
                Severity::Warn,
                format!("TP={} over PCIe: the per-layer all-reduces take {} of the step. Prefer NVLink types for TP, or trade TP for ZeRO/PP.", t.setup.parallel.tp, pct(share(st.tp_comm.0))),
                format!("在 PCIe 互联上做 TP={}：每层 all-reduce 占每步时间 {}。TP 请选 NVLink 机型，或改用 ZeRO/流水并行。", t.setup.parallel.tp, pct(share(st.tp_comm.0))),
            ));
        }
        if t.setup.parallel.zero == 3
            && (!nvlink || (p.nodes > 1 && !i.rdma.is_rdma()))
            && dp_share > 0.05
        {
            out.push(a(
                "zero3-over-slow-link",
                Severity::Warn,
                format!("ZeRO-3/FSDP re-gathers parameters every micro-batch over {}; exposed communication is {} of the step. Larger micro-batches or ZeRO-2 help if memory allows.", st.dp_link, pct(dp_share)),
                format!("ZeRO-3/FSDP 每个 micro-batch 都要经 {} 重新聚合参数，暴露的通信占 {}。显存允许时加大 micro-batch 或改用 ZeRO-2。", st.dp_link, pct(dp_share)),
            ));
        }
        if !nvlink
            && gpus_per_node > 1
            && t.setup.parallel.tp == 1
            && share(st.dp_comm_exposed.0) > 0.2
        {
            out.push(a(
                "nvlink-needed",
                Severity::Warn,
                format!("{} of the step is gradient traffic between the {} GPUs over PCIe; an NVLink/NVSwitch type would cut it several-fold.", pct(dp_share), gpus_per_node),
                format!("{} 的时间花在卡间 PCIe 梯度通信上；NVLink/NVSwitch 机型可大幅降低。", pct(dp_share)),
            ));
        }
        if let Some(s) = &t.storage {
            let object_note = if s.class.kind == StorageKind::Object {
                " Object storage suits datasets read sequentially; stage checkpoints on a file system."
            } else {
                ""
            };
            out.push(a(
                "storage-class",
                Severity::Info,
                format!(
                    "Storage: the input pipeline needs {}; {}. A {:.1} GiB checkpoint takes {:.0} s to write at {:.0} MB/s.{}",
                    t.data.read_bandwidth, s.why, t.data.checkpoint_size.gib(), s.checkpoint_write_s, s.throughput_mbs, object_note
                ),
                format!(
                    "存储：数据读取需要 {}；建议 {} 至少 {:.0} GiB（可达 {:.0} MB/s）。{:.1} GiB 的检查点写入约 {:.0} 秒。",
                    t.data.read_bandwidth, s.class.name, s.capacity_gib, s.throughput_mbs, t.data.checkpoint_size.gib(), s.checkpoint_write_s
                ),
            ));
            if let Some(tier) = &s.tiered {
                out.push(tiering(tier, s));
            }
        }
        if let Some(cores) = t.data.cpu_cores_for_decode {
            let have = i.vcpu.map(|v| v as f64 * p.nodes as f64);
            // Short when the CPUs capped the plan (its rate is then exactly what they decode).
            let short = have.is_some_and(|h| h < cores) || t.step.bottleneck == "host-cpu";
            out.push(a(
                "image-decode-cores",
                if short { Severity::Critical } else { Severity::Info },
                format!(
                    "Image decode/augmentation at {:.0} samples/s needs about {:.0} host cores ({} img/s per core){}.",
                    t.data.samples_per_second,
                    cores.ceil(),
                    req.tunables.image_decode_per_core,
                    match have {
                        Some(h) if short => format!("; this plan has {h:.0} vCPUs: too few, the GPUs will wait. Use GPU decoding (NVIDIA DALI) or a type with more vCPUs"),
                        Some(h) => format!("; this plan has {h:.0} vCPUs"),
                        None => "; vCPU count not documented for this type".into(),
                    }
                ),
                format!("图像解码/增强以 {:.0} 样本/秒计需约 {:.0} 个 CPU 核{}。", t.data.samples_per_second, cores.ceil(), if short { "，本方案 vCPU 不足，GPU 会空等：改用 DALI GPU 解码或更多 vCPU 的规格" } else { "" }),
            ));
        }
        // Spot.
        if let Some(sp) = &t.spot {
            if req.constraints.interruptible {
                out.push(a(
                    "spot-checkpoint",
                    Severity::Info,
                    format!(
                        "Spot fits this interruptible job: expected {:.1} preemptions at {:.3}/node-hour, checkpoint every {:.0} min (Young/Daly, {:.0} s per write), {:+.1}% time, expected ¥{:.0}.",
                        sp.expected_preemptions, req.constraints.preemption_rate, sp.checkpoint_interval_s / 60.0, sp.checkpoint_write_s, sp.overhead_fraction * 100.0, sp.expected_cny
                    ),
                    format!("该任务可中断，适合抢占式实例：预计被回收 {:.1} 次，每 {:.0} 分钟保存一次检查点（Young/Daly 公式），时间增加 {:.1}%，期望花费 ¥{:.0}。", sp.expected_preemptions, sp.checkpoint_interval_s / 60.0, sp.overhead_fraction * 100.0, sp.expected_cny),
                ));
            } else {
                out.push(a(
                    "spot-checkpoint",
                    Severity::Info,
                    format!("Spot is not recommended: the job is not marked interruptible (--interruptible). If it checkpoints and resumes, spot would cost about ¥{:.0}.", sp.expected_cny),
                    format!("不建议使用抢占式实例：任务未声明可中断（--interruptible）。若能断点续训，约需 ¥{:.0}。", sp.expected_cny),
                ));
            }
        }
        let need = t.memory.device_total.gib();
        let have = p.gpu.memory_gib.unwrap_or(0.0);
        if have > 0.0 && need / have > 0.92 {
            out.push(a(
                "memory-headroom",
                Severity::Warn,
                format!("Only {:.1} GiB of {:.0} GiB left per GPU: allocator fragmentation or a longer sample can OOM. Keep one micro-batch size smaller in reserve.", have - need, have),
                format!("每卡仅剩 {:.1} GiB（共 {:.0} GiB）：碎片或更长样本可能 OOM，请预留更小的 micro-batch。", have - need, have),
            ));
        }
        let (unit_en, unit_zh) = crate::chip::work_unit(&req.model);
        out.push(a(
            "first-hour",
            Severity::Info,
            format!(
                "First hour: expect ~{:.0} {unit_en}/s per GPU (MFU {}) and {:.1} GiB per GPU{}. If GPU utilisation stays below ~80% the input pipeline is short ({}, faster storage); if memory is far below, raise the micro-batch; if it OOMs, turn on activation recomputation or raise the {}.",
                t.step.tokens_per_second_per_gpu, pct(t.step.mfu), need,
                if ascend { " (watch NPU utilisation and memory with `npu-smi info`)" } else { "" },
                if req.constraints.framework == super::SoftwareFramework::Mindspore {
                    "raise the dataset's num_parallel_workers"
                } else {
                    "raise DataLoader workers, pin memory"
                },
                if req.constraints.framework == super::SoftwareFramework::Mindspore {
                    "optimizer-state sharding (MindSpore optimizer parallel, the ZeRO equivalent)"
                } else {
                    "ZeRO stage"
                }
            ),
            format!("第一个小时：预期每卡约 {:.0} {unit_zh}/s（MFU {}），显存约 {:.1} GiB。GPU 利用率长期低于约 80% 说明数据管道不足（增加 DataLoader worker、换更快存储）；显存富余则加大 micro-batch；OOM 则开启重计算或提高 ZeRO 阶段。", t.step.tokens_per_second_per_gpu, pct(t.step.mfu), need),
        ));
        out.push(a(
            "auto-release",
            Severity::Info,
            format!("The job ends after ~{:.1} h: set an automatic release/deletion time on the instances, or script their release after the final checkpoint is uploaded; idle GPUs are billed.", p.hours),
            format!("任务约 {:.1} 小时结束：为实例设置自动释放时间，或在最后一个检查点上传后用脚本释放；闲置 GPU 照常计费。", p.hours),
        ));
    }
    if let Some(s) = &p.serve {
        if let Job::Serve(job) = &req.job {
            out.push(autoscaling(s, job));
            if job.public_generative
                && req
                    .model
                    .transformer()
                    .is_some_and(|t| t.structure != crate::model::Structure::EncoderOnly)
            {
                out.push(a(
                        "filing-duty",
                        Severity::Info,
                        "Serving a generative model to the public in mainland China falls under the Interim Measures for the Management of Generative AI Services (2023): plan for the algorithm/model filing (备案) and content-safety duties before launch.".into(),
                        "在中国大陆向公众提供生成式 AI 服务，适用《生成式人工智能服务管理暂行办法》（2023）：上线前需完成算法/大模型备案并落实内容安全义务。".into(),
                    ));
            }
        }
        if p.total_gpus > 0.0 && gpus_per_node > 1 && s.tp == 1 {
            out.push(a(
                "placement",
                Severity::Info,
                format!("{} replicas on {} GPU(s) per instance: run one server per GPU (or per TP group) behind a load balancer.", s.replicas, gpus_per_node),
                format!("{} 个副本、每实例 {} 张卡：每卡（或每个 TP 组）起一个服务进程，前面挂负载均衡。", s.replicas, gpus_per_node),
            ));
        }
    }
    if p.nodes > 1 && p.train.is_some() {
        out.push(a(
            "placement",
            Severity::Info,
            format!("Multi-node: create all nodes in one zone, VPC and subnet, with topology-aware placement (Alibaba deployment set, Huawei same AZ/cluster, Tencent HCC cluster), and {} before launching.", if ascend { "check the NPUs' RoCE ports are up (`hccn_tool -i <npu> -link -g` on every NPU) and that HCCL sees every node (rank table / HCCL_IF_IP)" } else { "check the RDMA NICs are up (ibv_devinfo)" }),
            format!("多机训练：所有节点放在同一可用区、同一 VPC 和子网，使用拓扑感知部署（阿里云部署集、华为云同一可用区、腾讯云 HCC 集群），启动前{}。", if ascend { "用 `hccn_tool -i <npu> -link -g` 确认每张 NPU 的 RoCE 端口已连通，并确认 HCCL 能看到所有节点（rank table / HCCL_IF_IP）" } else { "用 ibv_devinfo 确认 RDMA 网卡可用" }),
        ));
    }
    if gpus_per_node > 1 {
        out.push(a(
            "topology-check",
            Severity::Info,
            if ascend {
                format!("Run `npu-smi info` on the first node (every NPU listed, health OK) and `npu-smi info -t topo` for the NPU topology: on {} expect {} between NPUs.", i.id, if nvlink { "HCCS links" } else { "PCIe paths" })
            } else {
                format!("Run `nvidia-smi topo -m` on the first node: for {} expect {} between GPUs; 'SYS' between GPUs means traffic crosses CPU sockets.", i.id, if nvlink { "NV# links" } else { "PIX/PXB (PCIe)" })
            },
            if ascend {
                format!("在第一台机器上运行 `npu-smi info`（所有 NPU 均在且状态正常）和 `npu-smi info -t topo` 查看拓扑：{} 的 NPU 之间应为 {}。", i.id, if nvlink { "HCCS" } else { "PCIe" })
            } else {
                format!("在第一台机器上运行 `nvidia-smi topo -m`：{} 的 GPU 之间应显示 {}；显示 SYS 表示跨 CPU 插槽通信。", i.id, if nvlink { "NV#（NVLink）" } else { "PIX/PXB（PCIe）" })
            },
        ));
    }
    if let Some(v) = i.vcpu {
        let per = v as f64 / p.cluster.gpus_per_node as f64;
        if per < 4.0 {
            out.push(a(
                "host-cpu-ratio",
                Severity::Warn,
                format!("{per:.1} vCPUs per GPU, below the usual 4 per GPU for data loading and framework threads."),
                format!("每张 GPU 仅 {per:.1} 个 vCPU，低于数据加载常用的每卡 4 核。"),
            ));
        }
    }
    if let (Some(ram), Some(gmem)) = (i.ram_gib, i.total_gpu_memory_gib()) {
        let offload = p
            .train
            .as_ref()
            .map(|t| t.memory.cpu_offload.gib() * p.cluster.gpus_per_node as f64)
            .unwrap_or(0.0);
        if ram < 1.5 * gmem || ram < offload * 1.2 {
            out.push(a(
                "host-ram-ratio",
                Severity::Warn,
                format!("{ram:.0} GiB host RAM for {gmem:.0} GiB of GPU memory{}: below 1.5× leaves little room for the data pipeline, pinned buffers and checkpoint staging.", if offload > 0.0 { format!(" (offload needs {offload:.0} GiB)") } else { String::new() }),
                format!("主机内存 {ram:.0} GiB，GPU 显存共 {gmem:.0} GiB：低于 1.5 倍，数据管道、锁页内存和检查点暂存空间紧张。"),
            ));
        }
    }
    match ChipFamily::of(&p.gpu) {
        ChipFamily::Ascend => {
            out.push(a(
            "ascend-migration",
            Severity::Warn,
            format!(
                "Ascend: runs on CANN, not CUDA. {} Budget a migration: replace CUDA-specific kernels and ops, check operator coverage, and use Huawei's images with matching CANN / torch_npu versions.",
                match req.constraints.framework {
                    super::SoftwareFramework::Mindspore => "MindSpore runs natively.",
                    super::SoftwareFramework::Pytorch => "PyTorch needs the torch_npu adapter (`.cuda()` → `.npu()`, NCCL → HCCL).",
                    _ => "Check the framework's NPU support.",
                }
            ),
            "昇腾使用 CANN 而非 CUDA：MindSpore 原生支持，PyTorch 需 torch_npu（.cuda() → .npu()，NCCL → HCCL）。请预留迁移工作量：替换 CUDA 专用算子、核对算子覆盖，并使用版本匹配的 CANN/torch_npu 镜像。".into(),
            ));
            out.push(a(
                "vendor-image",
                Severity::Info,
                format!(
                    "Use Huawei's Ascend image (ModelArts / Ascend Hub) with the NPU driver and firmware, CANN and {} preinstalled; keep the driver, CANN, {} and HCCL versions identical on every node (check with `npu-smi info` and the CANN version file).",
                    match req.constraints.framework {
                        super::SoftwareFramework::Mindspore => "MindSpore",
                        _ => "torch_npu",
                    },
                    match req.constraints.framework {
                        super::SoftwareFramework::Mindspore => "MindSpore",
                        _ => "torch_npu",
                    }
                ),
                "使用华为预装 NPU 驱动与固件、CANN 及 torch_npu/MindSpore 的昇腾镜像（ModelArts / 昇腾镜像仓库），并保证所有节点的驱动、CANN、框架与 HCCL 版本一致（用 `npu-smi info` 核对）。".into(),
            ));
        }
        ChipFamily::Amd => out.push(a("vendor-image", Severity::Info, "AMD Instinct: use ROCm builds of the framework and RCCL.".into(), "AMD Instinct：使用框架的 ROCm 版本与 RCCL。".into())),
        ChipFamily::Nvidia => out.push(a(
            "vendor-image",
            Severity::Info,
            "Use the provider's GPU image with the driver, CUDA, cuDNN and NCCL preinstalled (do not install drivers by hand); keep the NCCL and CUDA versions identical on every node.".into(),
            "使用云厂商预装驱动、CUDA、cuDNN、NCCL 的 GPU 镜像（不要手工装驱动），并保证所有节点的 NCCL 与 CUDA 版本一致。".into(),
        )),
    }
    if p.gpu.consumer {
        out.push(a(
            "consumer-gpu",
            Severity::Warn,
            "Consumer GPU: NVIDIA's GeForce driver licence restricts data-centre deployment, there is no NVLink or ECC, and some providers limit commercial use; check the provider's terms.".into(),
            "消费级显卡：NVIDIA GeForce 驱动许可限制数据中心部署，且无 NVLink、无 ECC，部分厂商限制商用，请核对服务条款。".into(),
        ));
    }
    if let Some(ch) = &p.chosen {
        let kind = match ch.price.kind {
            PriceKind::List => "list",
            PriceKind::User => "your",
            PriceKind::Estimate => "estimated",
            PriceKind::Api => "fetched",
        };
        out.push(a(
            "price-provenance",
            if ch.price.kind == PriceKind::Estimate { Severity::Warn } else { Severity::Info },
            format!("Cost uses the {kind} {} price ¥{:.2} ({}, {}){}. Check today's price in the console or import it (`gpuplan catalog import`).", ch.billing.name(), ch.price.cny, ch.price.region, ch.price.as_of, ch.price.method.as_ref().map(|m| format!("; method: {m}")).unwrap_or_default()),
            format!(
                "费用按{}{}价格 ¥{:.2}（{}，{}）计算，请在控制台核对当日价格或导入（gpuplan catalog import）。",
                match ch.price.kind {
                    PriceKind::List => "公开",
                    PriceKind::User => "您提供的",
                    PriceKind::Estimate => "估算的",
                    PriceKind::Api => "接口查询的",
                },
                match ch.billing {
                    Billing::OnDemand => "按量",
                    Billing::Monthly => "包月",
                    Billing::Spot => "抢占式",
                },
                ch.price.cny,
                ch.price.region,
                ch.price.as_of
            ),
        ));
        if let Some(m) = p.costs.iter().find(|c| c.billing == Billing::Monthly) {
            if let (Some(en), Some(zh)) = (&m.note, &m.note_zh) {
                out.push(a(
                    "subscription-break-even",
                    Severity::Info,
                    format!("Subscription: {en}."),
                    format!("包年包月：{zh}。"),
                ));
            }
        }
    } else {
        out.push(a(
            "price-provenance",
            Severity::Warn,
            "No price is known for this type (no published list price was found): import yours with `gpuplan catalog import` to compare cost.".into(),
            "该规格没有已知价格（未找到公开价格）：请用 gpuplan catalog import 导入价格后再比较费用。".into(),
        ));
    }
    let asked = &req.constraints.regions;
    if !asked.is_empty() && i.regions.is_empty() {
        let r = asked.join(" / ");
        out.push(a(
            "region-undocumented",
            Severity::Warn,
            format!("Regions not documented for {}: check availability in {r} (console instance-type-by-region page or the provider's stock API) before relying on this plan.", i.id),
            format!("{} 的售卖地域未见文档：请先在控制台或库存接口确认 {r} 是否有售。", i.id),
        ));
    }
    if let Some(ch) = &p.chosen {
        if !asked.is_empty()
            && !asked
                .iter()
                .any(|r| super::money::same_region(r, &ch.price.region))
        {
            let r = asked.join(" / ");
            out.push(a(
                "price-other-region",
                Severity::Warn,
                format!("Price from {}, used for {r}: an estimate (¥{:.2}, {}); prices differ by region, check the {r} price in the console or import it.", ch.price.region, ch.price.cny, ch.price.as_of),
                format!("价格来自 {}，用于 {r}：仅为估算（¥{:.2}，{}）；各地域价格不同，请在控制台核对 {r} 的价格或导入。", ch.price.region, ch.price.cny, ch.price.as_of),
            ));
        }
    }
    if let Some(acc) = i.access {
        let note = i
            .access_note
            .as_deref()
            .unwrap_or("see the provider's docs");
        out.push(a(
            "access-restricted",
            Severity::Warn,
            format!("{} ({}) is not freely orderable: access = {} ({note}). Apply or open the ticket before you count on it, and keep a fallback.", i.id, i.family, acc.name()),
            format!("{}（{}）不能直接购买：需{}（{note}）。请提前申请或提交工单，并准备备选方案。", i.id, i.family, match acc {
                crate::catalog::Access::Invitation => "邀测资格",
                crate::catalog::Access::Application => "申请/加白名单",
                crate::catalog::Access::Ticket => "提交工单",
                crate::catalog::Access::ContactSales => "联系销售",
            }),
        ));
    }
    if i.stock == Some(crate::catalog::Stock::Low) {
        out.push(a(
            "stock-reported",
            Severity::Warn,
            format!("The provider's stock API reported {} as low on stock when it was imported ({}): create the instances early or keep the fallbacks below at hand.", i.id, i.notes.as_deref().unwrap_or("no zone detail")),
            format!("导入时库存接口显示 {} 库存紧张：请尽早创建实例，或准备下方的备选方案。", i.id),
        ));
    }
    if !matches!(i.confidence, crate::catalog::Confidence::Confirmed)
        || p.gpu.confidence != "confirmed"
    {
        out.push(a(
            "unverified-facts",
            Severity::Info,
            format!(
                "Catalog facts behind this plan are {} (instance) / {} (chip): confirm the GPU model and links in the console.",
                format!("{:?}", i.confidence).to_lowercase(),
                p.gpu.confidence
            ),
            "该方案依据的规格数据并非全部经官方确认：请在控制台核对 GPU 型号与互联。".into(),
        ));
    }
    out.sort_by_key(|x| std::cmp::Reverse(x.severity));
    out
}

/// Stock fallbacks: for the top plan, the best plans on other families or providers; and for
/// serving on training-class GPUs, the cost per request of the best T4/A10-class plan.
pub fn add_fallbacks(plans: &mut [Plan]) {
    if plans.is_empty() {
        return;
    }
    let top_family = plans[0].instance.family.clone();
    let top_provider = plans[0].instance.provider;
    let mut seen = vec![top_family.clone()];
    let mut picks = Vec::new();
    for p in plans.iter().skip(1) {
        if seen.contains(&p.instance.family) {
            continue;
        }
        seen.push(p.instance.family.clone());
        picks.push(format!(
            "{} × {} ({}{}, {:.1} h{})",
            p.nodes,
            p.instance.id,
            p.instance.provider.name(),
            if p.instance.provider != top_provider {
                ", other provider"
            } else {
                ""
            },
            p.hours,
            p.chosen
                .as_ref()
                .map(|c| format!(", ¥{:.0}", c.cny))
                .unwrap_or_default()
        ));
        if picks.len() == 3 {
            break;
        }
    }
    if !picks.is_empty() {
        let list = picks.join("; ");
        plans[0].advice.push(a(
            "stock-fallbacks",
            Severity::Info,
            format!(
                "If {} is out of stock in your zone: {list}.",
                plans[0].instance.id
            ),
            format!(
                "若 {} 在目标可用区缺货，可选：{list}。",
                plans[0].instance.id
            ),
        ));
    }
    // Quantization, when it changes the answer: compare the best bf16 plan with the top plan.
    if let Some(top) = plans[0].serve.as_ref() {
        let cost = |p: &Plan| p.chosen.as_ref().map(|c| c.cny);
        let is16 = |w: crate::workload::WeightFormat| {
            matches!(
                w,
                crate::workload::WeightFormat::Bf16 | crate::workload::WeightFormat::Fp16
            )
        };
        let best16 = plans
            .iter()
            .find(|p| p.serve.as_ref().is_some_and(|s| is16(s.weights)));
        let bestq = plans
            .iter()
            .find(|p| p.serve.as_ref().is_some_and(|s| !is16(s.weights)));
        let top_w = top.weights;
        let msg = match (is16(top_w), best16, bestq) {
            (false, Some(b), _) => match (cost(&plans[0]), cost(b)) {
                (Some(x), Some(y)) => Some((
                    Severity::Info,
                    format!(
                        "Quantization changes the answer: {} weights cost ¥{x:.0}/month; the best bf16 plan, {} × {}, costs ¥{y:.0}/month ({:.1}×). Validate quality on your prompts first.",
                        top_w.name(), b.nodes, b.instance.id, y / x
                    ),
                    format!("量化改变了结论：{} 权重每月 ¥{x:.0}；最优 bf16 方案 {} × {} 每月 ¥{y:.0}（{:.1} 倍）。请先用自己的数据验证效果。", top_w.name(), b.nodes, b.instance.id, y / x),
                )),
                _ => None,
            },
            (false, None, _) => Some((
                Severity::Warn,
                format!("Only quantized weights ({}) meet the targets in memory here: no bf16 plan was feasible. Validate quality first.", top_w.name()),
                format!("只有量化权重（{}）能在显存内满足目标：没有可行的 bf16 方案。请先验证效果。", top_w.name()),
            )),
            (true, _, Some(q)) => match (cost(&plans[0]), cost(q)) {
                (Some(x), Some(y)) if y < 0.8 * x => {
                    let w = q.serve.as_ref().map(|s| s.weights.name()).unwrap_or_default();
                    Some((
                        Severity::Info,
                        format!("Quantizing to {w} would cut the cost to ¥{y:.0}/month on {} × {} ({:.0}% less), if quality holds.", q.nodes, q.instance.id, (1.0 - y / x) * 100.0),
                        format!("若量化到 {w} 且效果可接受，{} × {} 每月 ¥{y:.0}（便宜 {:.0}%）。", q.nodes, q.instance.id, (1.0 - y / x) * 100.0),
                    ))
                }
                _ => None,
            },
            _ => None,
        };
        if let Some((sev, en, zh)) = msg {
            plans[0].advice.push(a("quantization", sev, en, zh));
        }
    }
    // Big training cards for small inference.
    let small = |g: &str| ["t4", "a10", "l4", "l20", "a30"].contains(&g);
    let big = |g: &str| g.starts_with("a100") || g.starts_with("a800") || g.starts_with("h");
    if plans[0].serve.is_some()
        && big(&plans[0].gpu.id)
        && plans[0]
            .serve
            .as_ref()
            .is_some_and(|s| s.memory.weights.gib() * (s.tp as f64) < 40.0)
    {
        if let Some(alt) = plans.iter().find(|p| small(&p.gpu.id) && p.serve.is_some()) {
            let (top, other) = (
                plans[0].serve.as_ref().and_then(|s| s.cost_per_1k_requests),
                alt.serve.as_ref().and_then(|s| s.cost_per_1k_requests),
            );
            if let (Some(t), Some(o)) = (top, other) {
                let msg_en = format!(
                    "Inference on {}: ¥{t:.3} per 1k requests vs ¥{o:.3} on {} × {}.",
                    plans[0].gpu.name, alt.nodes, alt.instance.id
                );
                let msg_zh = format!(
                    "在 {} 上推理：每千次请求 ¥{t:.3}，而 {} × {} 为 ¥{o:.3}。",
                    plans[0].gpu.name, alt.nodes, alt.instance.id
                );
                plans[0].advice.push(a(
                    "big-card-small-inference",
                    if o < t {
                        Severity::Warn
                    } else {
                        Severity::Info
                    },
                    msg_en,
                    msg_zh,
                ));
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::RULES;

    #[test]
    fn every_rule_is_documented() {
        let doc = include_str!("../../../../docs/advice.md");
        for (id, _) in RULES {
            assert!(
                doc.contains(&format!("`{id}`")),
                "docs/advice.md lacks rule {id}"
            );
        }
        let src = concat!(include_str!("advice.rs"), include_str!("hints.rs"));
        for (id, _) in RULES {
            // Each documented rule is emitted somewhere.
            assert!(
                src.matches(&format!("\"{id}\"")).count() >= 2,
                "rule {id} is listed but never emitted"
            );
        }
    }
}
