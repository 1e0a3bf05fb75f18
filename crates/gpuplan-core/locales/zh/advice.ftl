# 建议规则（plan/advice.rs，docs/advice.md）。小数已按精度格式化，计数以数字传入。

adv-multi-node-without-rdma = { $nodes } 个节点之间没有 RDMA：梯度同步走 TCP（每节点 { $bw }），每步通信 { $comm }（占每步 { $share }），其中未与计算重叠的部分为 { $exposed }（占每步 { $exposed_share }）。TCP 还带来额外延迟与抖动，多机训练请选择支持 eRDMA/RoCE/IB 的规格。
adv-tp-over-pcie = 在 PCIe 互联上做 TP={ $tp }：每层 all-reduce 占每步时间 { $share }。TP 请选 NVLink 机型，或改用 ZeRO/流水线并行。
adv-litgpt-bf16-mixed = LitGPT 默认的 bf16-mixed 把冻结的基座保存为 fp32，并为反向保存每个冻结权重的 bf16 副本（{ $copies }；LM 头每 128 个 token 分块各存一份）。改用 `--precision bf16-true`（本工具对应 `--precision pure_bf16`）后基座以 bf16 存放且无需副本：每卡约省 { $saved }。
adv-zero3-over-slow-link = ZeRO-3/FSDP 每个 micro-batch 都要经{ $link }重新聚合参数，未与计算重叠的通信占每步 { $share }。显存允许时加大 micro-batch 或改用 ZeRO-2。
adv-link-between-nodes = 节点间的 { $name }（{ $bw }）
adv-link-inside-node = 节点内的 { $name }（{ $bw }）
adv-nvlink-needed = 每步 { $share } 的时间花在 { $gpus } 张卡之间经 PCIe 的梯度通信上；NVLink/NVSwitch 机型可将其降低数倍。
adv-storage-class = 存储：数据读取需要 { $read }；建议使用{ $class }，容量 { $cap_gib } GiB（可达 { $mbs } MB/s）{ $for_writes ->
    [yes] ，比数据所需更大，用于加快检查点写入：写入时停顿的 GPU 时间比多买的容量更贵
   *[no] {""}
}。{ $ckpt_gib } GiB 的检查点写入约 { $write_s } 秒。{ $object ->
    [yes] 对象存储适合顺序读取的数据集；检查点请先写到文件系统。
   *[no] {""}
}
adv-checkpoint-stalls = 检查点写入约占任务时间的 { $share }（约 { $hours } 小时；超过 { $limit } 时提示）：每 { $interval } 分钟一次、每次 { $ckpt_gib } GiB 的检查点以 { $mbs } MB/s 写入{ $assumed ->
    [yes] （假设值，约为单块云盘的量级：目录中没有该云厂商可按本方案配置的存储类型）
   *[no] {""}
}，训练停顿 { $stall_s } 秒。改用异步保存（PyTorch torch.distributed.checkpoint.async_save、Megatron-LM --async-save），只在复制到主机内存时停顿；或降低检查点频率。{ $longer ->
    [yes] 单次写入造成的停顿比两次检查点之间的 { $interval } 分钟还长，这个频率无法执行：按这一停顿时长和本方案的故障率（每天 { $per_day } 次中断），Daly 最优间隔为每 { $daly_h } 小时保存一次，停顿约占时间的 { $daly_share }（上面的时长仍按每 { $interval } 分钟一次计算）。
   *[no] {""}
}
adv-checkpoint-interval = 你设定的检查点间隔（每 { $interval } 分钟一次，checkpoint_interval_hours）就是本方案时长所按的间隔：按 Daly 模型，它在本任务中造成的检查点停顿和丢失的工作约 { $cost_h } 小时（每天 { $per_day } 次中断）。按这一写入时长和故障率，Daly 最优间隔为每 { $daly } 分钟一次，约 { $daly_cost_h } 小时：你的间隔多出 { $extra_h } 小时。不设 checkpoint_interval_hours 即按最优间隔规划。
adv-storage-tiering = 更省的冷热分层：{ $object_gib } GiB 数据集放在{ $object }（每月 ¥{ $object_cny }，可满足读取速率），另用 { $cache_gib } GiB 的{ $cache }存放热数据和检查点（每月 ¥{ $cache_cny }）：合计每月 ¥{ $split }，比全部放在 { $whole_gib } GiB 的{ $class }上（每月 ¥{ $whole }）便宜。通过缓存层读取（JindoFS/Fluid、带本地缓存的 ossfs/obsfs/cosfs，或文件存储与对象存储的数据流动）。
adv-image-decode-cores = 图像解码/增强以每秒 { $rate } 个样本计，需约 { $cores } 个主机 vCPU（每个 vCPU 每秒 { $per_core } 张图）{ $have ->
    [short] ；本方案只有 { $vcpus } 个 vCPU，不够，GPU 会空等：改用 GPU 解码（NVIDIA DALI）或 vCPU 更多的规格
    [capped] ，这正是本方案 { $vcpus } 个 vCPU 的解码速度：由它们决定训练速度，GPU 在等待：改用 GPU 解码（NVIDIA DALI）或 vCPU 更多的规格
    [enough] ；本方案有 { $vcpus } 个 vCPU
   *[unknown] ；该规格的 vCPU 数未见文档
}。
adv-spot-fits = 该任务可中断，适合抢占式实例：按每节点每小时 { $rate } 次计，预计被回收 { $preemptions } 次；每 { $interval_min } 分钟保存一次检查点（Daly 最优间隔，每次写入 { $write_s } 秒），时间增加 { $overhead }%，期望花费 ¥{ $cny }。
adv-spot-not-interruptible = 不建议使用抢占式实例：任务未声明可中断（--interruptible）。若能断点续训，约需 ¥{ $cny }。
adv-spot-past-deadline = 不宜使用抢占式实例：预计被回收 { $preemptions } 次，加上重启，约需 { $time }，超过 --deadline 的 { $deadline }{ $interruptible ->
    [yes] ；本方案已选用能按期完成的计费方式
   *[no] {""}
}。
adv-deadline-margin = 工期余量：本方案约需 { $time }，期限为 { $deadline }，仅余 { $pct }%，在模型对公开训练全程耗时的典型误差（约 { $margin }%）之内。请在最初几小时实测 { $unit }/s 并与方案给出的数值对比；若偏慢，尽早换用更快的方案（--optimize time 或更多 GPU）。要留出 { $margin }% 的余量，需要快约 { $need }% 的方案。
adv-memory-headroom = 每卡仅剩 { $left } GiB（共 { $have } GiB）：显存碎片或更长的样本可能导致 OOM，请预留一个更小的 micro-batch。
adv-loss-memory = logits 与 loss 占每卡 { $total } GiB 中的 { $gib } GiB（{ $pct }）：HF Transformers 会对整个词表生成 logits 并转为 fp32。把线性层与交叉熵融合、不生成 logits 的实现（Liger Kernel 的 fused_linear_cross_entropy；LLaMA-Factory 中设 `enable_liger_kernel: true`）可省下其中大部分，代价是一些速度（Liger 的 README：以时间换显存，适合显存成为瓶颈时使用）。可加 --chunked-loss（gpuplan 建模的 torchtune 分块 loss）重新规划，看能否用更大的 micro-batch 或更少的卡。
adv-first-hour = 第一个小时：预期每卡约 { $rate } { $unit }/s（MFU { $mfu }），每卡显存约 { $gib } GiB{ $ascend ->
    [yes] （用 `npu-smi info` 观察 NPU 利用率与显存）
   *[no] {""}
}。{ $ascend ->
    [yes] NPU
   *[no] GPU
} 利用率长期低于约 80% 说明数据管道不足（{ $framework ->
    [mindspore] 提高数据集的 num_parallel_workers
   *[other] 增加 DataLoader worker、开启 pin memory
}、换更快的存储）；显存富余则加大 micro-batch；OOM 则开启激活重计算或{ $framework ->
    [mindspore] 开启优化器状态切分（MindSpore 优化器并行，相当于 ZeRO）
   *[other] 提高 ZeRO 阶段
}。
adv-auto-release = 任务约 { $time }结束：为实例设置自动释放时间，或在最后一个检查点上传后用脚本释放；闲置的 { $ascend ->
    [yes] NPU
   *[no] GPU
} 照常计费。
adv-latency-margin = 延迟余量：{ $loaded ->
    [yes] 峰值负载下{" "}
   *[no] {""}
}{ $what } { $got } ms 仅比 { $target } ms 的目标低 { $pct }%，在模型对公开测试结果的典型误差（约 { $margin }%）之内。确定前请先在单个副本上以批大小 { $batch }{ $loaded ->
    [yes] 、在方案的每副本峰值负载下
   *[no] {""}
}实测；若未达标，把引擎的并发序列数限制在 { $batch } 以下（vLLM --max-num-seqs）并增加一个副本。
adv-autoscaling = 副本数：{ $load ->
    [rate] 按给定负载需要 { $needed } 个（每个约 { $rps } 请求/秒）；本方案运行 { $replicas } 个（峰值余量 { $peak } 倍，为可用性至少 { $min } 个
    [closed] 给定的 { $concurrency } 个并发请求需要 { $needed } 个（每个最多同时处理 { $slots } 个，即其批处理槽位）；本方案运行 { $replicas } 个（峰值余量 { $peak } 倍，为可用性至少 { $min } 个
   *[no] 未给出负载（--rate/--concurrency），本方案运行 { $replicas } 个（--min-replicas { $min }），每个至多约 { $rps } 请求/秒（没有负载就没有峰值余量
}{ $single ->
    [yes] ；单副本是单点故障，节点故障或升级都会导致服务中断
   *[no] {""}
}）。{ $range ->
    [yes] 自动扩缩容区间 { $floor }–{ $replicas } 个
   *[no] 常驻 { $floor } 个，更大的峰值再向上扩容
}：{ $kv ->
    [yes] 按排队长度（vLLM `vllm:num_requests_waiting` 持续 1–2 分钟 > 0）或 KV 缓存占用（`vllm:gpu_cache_usage_perc` > 0.8）扩容，不要按 GPU 利用率（连续批处理下它总是很高）
   *[no] 按排队长度或请求延迟扩容，不要按 GPU 利用率（批处理下它总是很高）
}。新副本加载权重需要数分钟：保持最低副本常驻。
adv-filing-duty = 在中国大陆向公众提供生成式 AI 服务，适用《生成式人工智能服务管理暂行办法》（2023）：上线前需完成算法/大模型备案并落实内容安全义务。
adv-placement-serve = { $replicas } 个副本、每实例 { $gpus } 张卡：每张卡（或每个 TP 组）起一个服务进程，前面挂负载均衡。
adv-placement-train = 多机训练：所有节点放在同一可用区、同一 VPC 和子网，使用拓扑感知部署（阿里云部署集、华为云同一可用区/集群、腾讯云 HCC 高性能计算集群），启动前{ $ascend ->
    [yes] 用 `hccn_tool -i <npu> -link -g` 确认每张 NPU 的 RoCE 端口已连通，并确认 HCCL 能看到所有节点（rank table / HCCL_IF_IP）
   *[no] 用 ibv_devinfo 确认 RDMA 网卡可用
}。
adv-topology-check-ascend = 在第一台机器上运行 `npu-smi info`（所有 NPU 均在且状态正常）和 `npu-smi info -t topo` 查看拓扑：{ $id } 的 NPU 之间应为 { $nvlink ->
    [yes] HCCS 互联
   *[no] PCIe 通路
}。
adv-topology-check-nvidia = 在第一台机器上运行 `nvidia-smi topo -m`：{ $id } 的 GPU 之间应显示 { $nvlink ->
    [yes] NV#（NVLink）
   *[no] PIX/PXB（PCIe）
}；显示 SYS 表示通信跨 CPU 插槽。
adv-host-cpu-ratio = 每张卡仅 { $per } 个 vCPU，低于数据加载和框架线程常用的每卡 4 核。
adv-host-ram-ratio = 主机内存 { $ram } GiB，GPU 显存共 { $gmem } GiB{ $offload ->
    [none] {""}
   *[other] （卸载需要 { $offload } GiB）
}：低于 1.5 倍，数据管道、锁页内存和{ $train ->
    [yes] 检查点暂存
   *[no] 模型加载
}的空间紧张。
adv-ascend-migration = 昇腾使用 CANN 而非 CUDA：{ $framework ->
    [mindspore] MindSpore 原生支持。
    [pytorch] PyTorch 需 torch_npu 适配（.cuda() → .npu()，NCCL → HCCL）。
   *[other] 请核对所用框架对 NPU 的支持。
}请预留迁移工作量：替换 CUDA 专用算子、核对算子覆盖，并使用版本匹配的 CANN/torch_npu 镜像。
adv-vendor-image-ascend = 使用华为预装 NPU 驱动与固件、CANN 及 { $fw } 的昇腾镜像（ModelArts / 昇腾镜像仓库），并保证所有节点的驱动、CANN、{ $fw } 与 HCCL 版本一致（用 `npu-smi info` 和 CANN 版本文件核对）。
adv-vendor-image-amd = AMD Instinct：使用框架的 ROCm 版本与 RCCL。
adv-vendor-image-nvidia = 使用云厂商预装驱动、CUDA、cuDNN、NCCL 的 GPU 镜像（不要手工装驱动），并保证所有节点的 NCCL 与 CUDA 版本一致。
adv-consumer-gpu = 消费级显卡：NVIDIA GeForce 驱动许可限制数据中心部署，且无 NVLink、无 ECC，部分厂商限制商用，请核对服务条款。
adv-price-provenance = 费用按{ $kind ->
    [list] 公开
    [user] 您提供的
    [estimate] 估算的
   *[api] 接口查询的
}{ $billing }价格 ¥{ $cny }（{ $region }，{ $as_of }）计算{ $method ->
    [none] {""}
   *[other] （估算方法：{ $method }）
}，请在控制台核对当日价格或导入（`gpuplan catalog import`）。
adv-monthly-price-only = { $id } 只有包年包月价格：这个 { $hours } 小时的任务按整月计费 ¥{ $cny }，所以时长相差很大的方案费用相同。短任务按量付费通常便宜得多：先获取按量价格（`gpuplan prices fetch { $provider } --instance { $id } --billing on-demand`，或 `gpuplan catalog import`）再比较。
adv-subscription-break-even = 包年包月：{ $note }。
adv-price-unknown = 该规格没有已知价格（未找到公开价格）：请用 `gpuplan catalog import` 导入价格后再比较费用。
adv-region-undocumented = { $id } 的售卖地域未见文档：使用本方案前，请先在控制台（按地域查看实例规格）或库存接口确认 { $regions } 是否有售。
price-method-other-region = 价格来自 { $from }，用于 { $wanted }（另一地域的{ $kind ->
    [list] 公开价
    [user] 自有价格
    [api] 接口查询价
   *[estimate] 估算价
}：各地域价格不同，请在控制台核对 { $wanted } 的价格）{ $earlier ->
    [none] {""}
   *[other] ；{ $earlier }
}
adv-price-other-region = 价格来自 { $from }，用于 { $regions }：仅为估算（¥{ $cny }，{ $as_of }）；各地域价格不同，请在控制台核对 { $regions } 的价格或导入。
adv-access-restricted = { $id }（{ $family }）不能直接购买：需{ $access }（{ $note }）。请提前申请或提交工单，并准备备选方案。
adv-access-note-default = 见云厂商文档
adv-stock-reported = 导入时库存接口显示 { $id } 库存紧张（{ $detail }）：请尽早创建实例，或准备下方的备选方案。
adv-stock-no-detail = 无可用区明细
adv-unverified-facts = 该方案依据的规格数据并非全部经官方确认（实例：{ $instance }，芯片：{ $chip }）：请在控制台核对 { $ascend ->
    [yes] NPU
   *[no] GPU
} 型号与互联。
adv-published-misses = 该模型的估算未经验证：{ $model } { $serving ->
    [yes] 在 { $gpu } 上以 { $weights } 权重已发表的 { $n } 组推理延迟数据
   *[no] 已发表的 { $n } 组训练吞吐数据
}中有 { $k } 组是 gpuplan 估算记录在案的偏差（{ $ids }；见 docs/accuracy.md 的 “Known misses”），本方案的{ $serving ->
    [yes] 延迟
   *[no] 用时和费用
}可能相差很大。请先{ $serving ->
    [yes] 在目标负载下实测一个副本
   *[no] 实测第一个小时（每卡 tokens/s）
}，再确定预算。
adv-long-job-no-deadline = 未设置截止时间（--deadline），因此最便宜的方案排在第一：它要运行 { $days }。{ $nodes } × { $id } 只需 { $faster }，费用 ¥{ $cost }（多 { $extra }）；用 --deadline 设定期限后，会在满足期限的方案中按费用排序。
adv-stock-fallbacks = 若 { $id } 在目标可用区缺货，可选：{ $list }。
adv-fallback = { $nodes } × { $id }（{ $provider }{ $other ->
    [yes] ，其他云厂商
   *[no] {""}
}{ $serve ->
    [yes] {""}
   *[no] ，{ $hours }
}{ $cost ->
    [none] ，无已知价格
   *[other] ，{ $cost }{ $serve ->
        [yes] /月
       *[no] {""}
    }
}）
adv-fallback-sep = ；
adv-quantization-changes = 量化改变了结论：{ $weights } 权重每月 ¥{ $cny }；最优 { $base } 方案 { $nodes } × { $id } 每月 ¥{ $other }（{ $ratio } 倍）。请先用自己的提示词验证效果。
adv-weights-native = { $weights }（原生格式）
adv-quantization-unpriced = 本方案使用量化权重（{ $weights }）：使用 { $base } 权重的最优方案 { $nodes } × { $id } 没有已知价格，无法比较量化省下的费用（导入价格：`gpuplan catalog import`）。请先用自己的提示词验证效果。
adv-quantization-only = 只有量化权重（{ $weights }）能在显存内满足目标：没有可行的 bf16 方案。请先验证效果。
adv-quantization-would-cut = 若量化到 { $weights } 且效果可接受，{ $nodes } × { $id } 每月 ¥{ $other }（便宜 { $pct }%）。
adv-big-card-small-inference = 在 { $gpu } 上推理：每千次请求 ¥{ $cost }；{ $nodes } × { $id } 为 ¥{ $other }{ $cheaper ->
    [yes] ：小卡每次请求更便宜。
   *[no] ，此处大卡反而更便宜。
}

## plan/hints.rs：首选方案效率低时的改进建议
hint-poor-plan = 首选方案{ $why }。可改进：{ $list }。
hint-why-comm = 受通信限制（{ $bottleneck }）
hint-why-mfu = MFU 仅 { $mfu }%
hint-gain = { $what }：时间约减少 { $pct }%（{ $hours } 小时，原 { $old } 小时）
hint-alt-global-batch = --global-batch { $batch }（每步样本数 ×4，可掩盖梯度同步；需重新调学习率）
hint-alt-megatron = --profile megatron（张量/流水线并行，而非仅用 ZeRO）
hint-alt-rdma = 支持 RDMA 的规格：{ $nodes } × { $id }
