# `gpuplan estimate` 的输出，以及其中用文字表示的训练选项。

precision-fp32 = fp32
precision-amp_bf16 = bf16 混合精度（AMP）
precision-amp_fp16 = fp16 混合精度（AMP，损失缩放）
precision-pure_bf16 = 纯 bf16
precision-fp8 = fp8（Transformer Engine）
optimizer-adam_w = AdamW
optimizer-adam_w8bit = 8 位 AdamW
optimizer-sgd_momentum = 带动量的 SGD
optimizer-adafactor = Adafactor
recompute-none = 不重计算
recompute-selective = 选择性重计算
recompute-full = 全量重计算
attention-eager = 普通（eager）注意力
attention-flash = FlashAttention-2
attention-mem_efficient = 省显存注意力（PyTorch SDPA）
framework-hugging_face = 按 Hugging Face 的显存口径
framework-megatron = 按 Megatron 的显存口径
framework-litgpt = 按 LitGPT 的显存口径
est-train-title = { $model }：{ $task }，{ $precision }，{ $optimizer }，{ $seq ->
    [none] {""}
   *[other] 序列长度 { $seq } ×{" "}
}micro-batch { $mb } × 梯度累积 { $ga } 步，{ $recompute }，{ $attention }，{ $profile }
est-accounting = 状态记账方式：{ $profile }
acct-autocast = torch.autocast（HF Trainer / 不用 DeepSpeed 的 Accelerate）：fp32 权重 + fp32 梯度，bf16 权重副本，无主权重
acct-mixed = DeepSpeed 式混合精度：16 位权重 + 梯度，fp32 主权重 + 优化器状态
acct-megatron = Megatron：16 位权重，fp32 主梯度 + 主权重 + 优化器状态
acct-megatron-bf16-grads = Megatron：16 位权重，bf16 主梯度，fp32 主权重 + 优化器状态
acct-megatron-fp8-params = Megatron：FP8 线性层权重（fp8_param_gather）+ 其余 16 位，fp32 主梯度 + 主权重 + 优化器状态
acct-megatron-fp8-params-bf16-grads = Megatron：FP8 线性层权重（fp8_param_gather）+ 其余 16 位，bf16 主梯度，fp32 主权重 + 优化器状态
acct-megatron-bf16-states = Megatron：16 位权重，fp32 主梯度，bf16 主权重 + 优化器状态（optimizer_dtype）
acct-megatron-bf16-grads-bf16-states = Megatron：16 位权重，bf16 主梯度，bf16 主权重 + 优化器状态（optimizer_dtype）
acct-megatron-fp8-params-bf16-states = Megatron：FP8 线性层权重（fp8_param_gather）+ 其余 16 位，fp32 主梯度，bf16 主权重 + 优化器状态（optimizer_dtype）
acct-megatron-fp8-params-bf16-grads-bf16-states = Megatron：FP8 线性层权重（fp8_param_gather）+ 其余 16 位，bf16 主梯度，bf16 主权重 + 优化器状态（optimizer_dtype）
acct-pure-bf16 = 纯 bf16：权重、梯度和优化器状态均为 bf16
acct-fp32 = fp32 权重、梯度和优化器状态
acct-peft = PEFT：基座权重冻结，适配器及其梯度和优化器状态使用适配器的数据类型
est-timeline-title = 训练步时间线（已分配显存 GiB；前向结束时保存 { $saved }）
est-timeline-peak = ← 峰值
est-timeline-col-phase = 阶段
est-timeline-col-live = 各组成的在用显存（GiB）
est-hardware = 硬件：{ $nodes } 个节点 × 每节点 { $per } 张 { $gpu }（节点内 { $intra }{ $one ->
        [yes] {""}
       *[other] ，节点间 { $link } { $inter }
    }）；TP { $tp } PP { $pp } DP { $dp } EP { $ep }{ $sched } ZeRO-{ $zero }{ $offload }
est-offload-optimizer = ，优化器卸载到内存
est-offload-params = ，参数卸载到内存
est-mem-title = 每卡显存（{ $params } 参数，其中可训练 { $trainable }），取一步中的峰值时刻（{ $phase }）：此时仍在占用的显存
est-peak-allocated = 峰值分配（torch）
est-needed = 每卡所需
est-no-memory = { $gpu } 的显存容量没有来源：无法判断是否放得下
est-fits = { $gpu } 有 { $have } GiB → 放得下
est-does-not-fit = { $gpu } 有 { $have } GiB → 放不下（差 { $short } GiB）
est-no-fit-hint = 要放得下，可试 { $levers }；或用 `gpuplan plan` 为该模型和任务搜索并行方式、ZeRO 阶段、重计算与 micro-batch。
est-offload-ram = 卸载所需主机内存（每卡）
est-step-tp = 张量并行通信（未重叠）
est-step-cp = 上下文并行 K/V（未重叠）
# 估算“计算方式”列中计算、张量并行、上下文并行三行；效率因子以其可调常数名（`--set NAME=VALUE`）给出，前面说明其含义。
est-how-compute = 峰值 { $peak } × 效率 { $eff }（{ $names }）
est-how-fp32-grad-pass = ；含每个微批次 { $s } 的 BF16_Optimizer fp32 梯度拷贝（fp32_grad_pass）
est-how-tp = 每层每趟 2 次 all-reduce − 被掩盖的 { $hidden }
est-how-cp = 环形交换 K/V − 被注意力计算掩盖的部分
eff-train_efficiency_hopper = Hopper 矩阵乘效率
eff-train_efficiency_ampere = Ampere 矩阵乘效率
eff-train_efficiency_other = 矩阵乘效率（其他芯片）
eff-train_efficiency_cnn = CNN 训练效率
eff-train_efficiency_unet = UNet 训练效率
eff-card_factor_low_power = 低功耗卡系数
eff-card_factor_pcie = PCIe 卡系数
eff-peft_efficiency_factor = LoRA 系数
eff-fp8_gemm_ratio_current = FP8 矩阵乘加速比
eff-fp8_train_gemm_ratio = FP8 矩阵乘加速比（2023 年内核）
est-coll-title = 每个优化器步的集合通信
est-coll-col-kind = 集合通信
est-coll-col-bandwidth = 有效带宽
est-coll-col-overlapped = 被计算掩盖
est-coll-tp = 张量并行 all-reduce
est-coll-cp = 上下文并行 K/V 环
est-coll-dp = 数据并行梯度与参数
est-coll-pp = 流水线点对点收发
est-coll-ep = 专家 all-to-all
est-step-title = 每个优化器步的时间
est-step-p2p = 流水线点对点
est-step-ep = 专家 all-to-all
est-step-contention = 重叠通信内核占用 SM 的计算损失
est-step-host = 等待主机 CPU（图像解码）
est-step-dispatch = 等待主机逐个下发算子（eager 循环）
est-how-dispatch = 每个微批次 { $ops } 个发射算子 × { $us } µs + { $views } 个不发射内核的算子 × { $vus } µs + 其外 Python 与 autograd { $outside }；每步主机耗时 { $host }（按 { $stack } 代码计数）
est-how-dispatch-zero3 = { $how }；其中每个微批次 { $zero3 } 为 DeepSpeed ZeRO-3 的参数取回/释放与梯度钩子（按 DeepSpeed 0.11.1 实测）
est-step-offload-optimizer = 主机卸载：优化器拷贝（PCIe）
est-step-offload-params = 主机卸载：参数读取（PCIe）
est-step-offload-activations = 主机卸载：激活（PCIe）
est-step-offload-untimed = 主机卸载：未计时
est-offload-optimizer-how = 梯度 { $grads } 传到主机（反向未掩盖 { $exposed }）+ 参数 { $params } 传回，单向 { $link }
est-offload-params-how = 从主机读取分片 { $fetch } − 被计算掩盖部分
est-offload-activations-how = { $out } 传到主机（前向未掩盖 { $exposed }）+ 反向传回 { $back }（需等待），单向 { $link }
est-offload-untimed-how = 目录中没有该 GPU 到主机的链路
est-throughput = 吞吐：{ $rate } { $unit }/s（每卡 { $per }），MFU { $mfu }（HFU { $hfu }）；每卡按模型 FLOPs 计 { $model_tf } TFLOP/s，按硬件 FLOPs（含重计算）计 { $hw_tf } TFLOP/s
est-time-unavailable = 时间：未估算：{ $why }
est-job = 任务：{ $amount } { $unit }，共 { $steps } 步：耗时 { $wall }，{ $gpu_hours } 卡时（模型计算量 { $flops } FLOPs）
est-job-missing = 任务：给出 --tokens（或 --samples 加 --epochs）才能估算耗时和卡时
est-read-unknown = 未知速率（该模型没有每个样本的存储大小：请在工作负载文件中设置 [training] bytes_per_sample）
est-data = 数据：每秒 { $rate } 个样本 → 读取 { $read }{ $cores ->
    [none] {""}
   *[other] ，解码/增强约需 { $cores } 个主机 vCPU
}；检查点 { $ckpt }（权重 { $weights }），按 1 GB/s 写入：{ $write }
est-col-bottleneck = 瓶颈：{ $b }
est-serve-title = { $model }：推理服务，{ $weights } 权重，{ $kv } KV 缓存，TP { $tp }，引擎 { $engine }{ $engine ->
    [vllm] ，gpu_memory_utilization { $util }
    [sglang] ，mem_fraction_static { $util }
    [trtllm] ，free_gpu_memory_fraction { $util }
   *[other] {""}
}，max_model_len { $len }
est-serve-mem-title = 每卡显存（按 { $engine } 口径）
est-serve-mml-default = max_model_len { $len }（默认）：即本负载的 { $input } + { $output } 个 token，向上取整到 { $engine ->
    [static] { $block } 的倍数（gpt-fast 的静态 KV 缓存）
   *[other] { $block } token 的整块
}，而非模型的完整上下文长度（更长的值必须放得进 KV 缓存池，vLLM V0 还会按它做 profile）；可用 --max-model-len 修改
est-serve-rule = 规则：{ $rule }
est-serve-images = 图像：每个请求 { $n } 张，{ $w }×{ $h } 像素（按模型的图像 token 规则；KV、预填充和显存探测都已计入）
est-serve-budget = 可用预算
est-serve-weights = 权重
est-serve-activation = 激活峰值（profile 运行）
est-serve-non-torch = 非 torch 显存 + CUDA graph
est-serve-kv-pool = KV 池
est-serve-kv = KV 容量：{ $blocks } 个块 × { $block } = { $tokens } 个 token；按 max_model_len 的最大并发：{ $conc }；可同时处理 { $reqs } 个 { $input }+{ $output } token 的请求；批大小 { $batch } 时的最长上下文：{ $ctx }
est-serve-problem = 问题：{ $p }
est-serve-fits-at-tp = 用 --tp { $tp }（共给出 { $gpus } 张 GPU）时同样的配置放得下。
est-serve-advice-head = 以下任一改动（其余不变）即可让 vLLM 在这张 GPU 上启动：
est-serve-advice-len = --max-model-len 不超过 { $len }（--gpu-memory-utilization { $util }、--max-num-seqs { $seqs } 不变）
est-serve-advice-seqs = --max-num-seqs 不超过 { $seqs }，--max-model-len 保持 { $len }（profile 运行的采样器预热覆盖 min(max_num_seqs, max_num_batched_tokens) 个请求）
est-serve-advice-util = --gpu-memory-utilization 不低于 { $util }（vLLM 可占用的 GPU 显存比例；此时不能有其他进程占用显存）
est-serve-batch-over = ! 批大小 { $batch } 超过引擎同时能容纳的 { $held }（max_num_seqs { $seqs }；KV 池可容纳 { $kv } 个输入 + 输出长度的请求）。上面的时延对应一个永远不会同时运行的批；引擎会运行 { $held } 个、其余排队：请用 --batch { $held }，或 --solve max-batch
est-serve-shipped-weights = 权重：{ $weights }，即检查点发布时的格式（其配置中的 quantization_config），{ $engine } 默认按此加载；--weights bf16 按 16 位权重估算
est-serve-mla-moe-small-batch = MLA + MoE 模型在批大小 { $batch } 下的解码：仅在批大小 8–64 上验证过（SGLang v0.5.7，DeepSeek-R1 FP8，8 × H200，误差在 18% 以内）；单请求时 vLLM 0.13 公布 DeepSeek-V3.2 在 8 × H20 上为 30 tokens/s，比本模型给出的慢约 4 倍，模型未能解释：请把每 token 时间视为下限
est-serve-auto-tp = TP { $tp }：在给出的 { $gpus } 张 GPU 上能放下权重的最小张量并行度（vLLM 默认的 TP 1 放不下）；可用 --tp 另行指定
est-serve-latency = 时延：{ $input } 个提示 token 的 TTFT 为 { $ttft }；批大小 { $batch } 时每个输出 token { $tpot }（每秒 { $rate } 个 token，{ $bound ->
    [bandwidth] 受显存带宽限制
   *[compute] 受算力限制
}；拐点批大小约 { $ridge }）
est-serve-latency-unavailable = 时延：未估算：{ $why }
est-legend-wide = `--wide` 增加“计算方式”一列：每个数字背后的公式。
kv-fp16 = fp16
kv-bf16 = bf16
kv-fp8 = fp8
kv-int8 = int8

## Serving engine rules (infer.rs) and what stops a pool
serve-rule-vllm = vLLM：{ $util } × 可见显存 − 权重 − 探测峰值（{ $tokens } 个 token）− 非 torch 显存{ $release ->
    [free_memory] （探测后的 init − free：0.6.4 之前的版本）
    [non_torch_total] （torch 之外的全部显存，含 CUDA 上下文：0.6.4 版）
   *[non_torch_growth] （启动以来的增长：0.6.5 及以后）
}
serve-rule-sglang = SGLang：mem_fraction_static { $f } ×（可见显存 − CUDA 上下文 − NCCL）− 权重；不做探测运行
serve-rule-trtllm = TensorRT-LLM：free_gpu_memory_fraction { $f } ×（可见显存 − 上下文 − 权重 − max_num_tokens { $tokens } 的激活）
serve-rule-static = 静态分配：启动时按批大小 { $batch } × max_model_len 分配 KV
serve-rule-encoder = 编码器：每个请求一次前向，无 KV 缓存
serve-problem-no-kv = 权重（{ $weights }）+ 激活峰值（{ $act }）+ 运行时（{ $runtime }）+ KV 超出 { $engine } 剩余的显存（{ $budget }）：增加 GPU（tp）、改用量化格式或缩短 max_model_len
serve-problem-short-pool = KV 池只能容纳 { $tokens } 个 token，少于 max_model_len { $len }：引擎无法启动；调低 max_model_len 或增加显存
## The "how" column of the serving memory table
est-serve-how-budget-vllm = gpu_memory_utilization × 可见显存
est-serve-how-budget-sglang = mem_fraction_static ×（可见显存 − CUDA 上下文 − NCCL）
est-serve-how-budget-trtllm = 可见显存 − CUDA 上下文 − NCCL；KV = 比例 × 权重和激活之外的剩余
est-serve-how-budget-static = 可见显存
est-serve-how-weights = 线性层每个权重 { $bits } 位
est-serve-how-activation = { $tokens } 个探测 token × 每 token 的 MLP 工作区
est-serve-how-non-torch = 已计入预算（vLLM：按其版本（engine_version）计入的 torch 之外显存 + NCCL，TP 大于 2 且在 NVSwitch 机型上再加 NCCL 的 NVLink SHARP 缓冲区；静态分配：CUDA 上下文 + NCCL）
est-serve-how-kv = 每卡每 token { $bytes } 字节（每卡 { $heads } 个 KV 头）


solve-title = { $model }：在 { $gpu } × TP { $tp } 上求 { $question }（{ $engine } 规则，{ $evals } 次估算）
solve-q-max-context = 最长上下文
solve-q-max-batch = 最大并发
solve-q-max-throughput = 每 token { $ms } ms 以内的最高吞吐
solve-col-quantity = 指标
solve-col-value = 值
solve-row-context = 上下文（每序列 token 数）
solve-row-batch = 并发序列数
solve-row-tpot = 每输出 token 时间（ms）
solve-row-tps = 输出 token/s（单副本）
solve-row-binding = 约束条件
solve-row-why = 原因
solve-na = 无
solve-binding = { $b ->
    [kv_pool] KV 缓存池
    [model_context] 模型上下文长度
    [max_num_seqs] 引擎 max_num_seqs
    [tpot_target] TPOT 目标
   *[memory] 显存
}（{ $b }）
solve-why-no-pool = { $batch } 个序列即使每个 1 个 token 也放不下：权重和运行时没有给 KV 缓存池留下空间
solve-why-model-context = 模型的上下文长度（{ $limit } token）先于 KV 缓存池成为约束
solve-why-kv-context = { $batch } × { $tokens } token 会占满 KV 缓存池
solve-why-one-too-long = 一个 { $context } token 的序列放不进 KV 缓存池
solve-why-max-num-seqs = 引擎默认最多调度 { $cap } 个序列
solve-why-kv-batch = { $n } 个 { $context } token 的序列会超出 KV 缓存池
solve-why-tpot-one = 即使只有一个序列，每 token 也需 { $ms } ms，超过 { $target } ms 的目标
solve-why-tpot = { $n } 个序列时每 token 超过 { $target } ms
est-serve-kv-short = 还差 { $gib } GiB
est-serve-kv-none = 无：预算还差 { $gib } GiB；{ $per }
# A table label with a note after it (the fit verdict, the bottleneck).
est-label-note = { $label }（{ $note }）
# Between the components of one timeline phase.
est-timeline-sep = ，

# A request of a model given by totals (audit r8 #17).
est-unit-image-generated = 生成一张图像（整个去噪循环）
est-unit-forward-pass = 一次前向计算
est-serve-dequantized = 检查点以 { $weights } 发布（其配置中的 quantization_config），{ $engine } 无法在 { $gpu } 上运行该格式：按 16 位估算，即反量化后的副本（MXFP4 用 transformers 的 Mxfp4Config(dequantize=True)，bitsandbytes 用 model.dequantize()，或该模型的 16 位版本）
est-serve-dequantized-fp8 = 检查点以 { $weights } 发布（其配置中的 quantization_config），{ $engine } 无法在 { $gpu } 上加载该格式（没有 FP8 计算单元，也没有 W8A16 的 FP8 Marlin 路径：仅 vLLM 和 SGLang 在 CUDA Ampere 及更新的 GPU 上有）：按 16 位估算，即反量化后的副本（该模型的 16 位版本）
est-serve-dequantized-awq = 检查点以 AWQ 格式的 { $weights } 发布（其配置中的 quantization_config），{ $engine } 的 AWQ 内核要求计算能力 7.5 及以上（AWQConfig.get_min_capability）：按 16 位估算，即该模型的 16 位版本；GPTQ 格式的 int4 版本可以在 { $gpu } 上加载（exllama，6.0 起）：--weights gptq
est-step-offload-host-step = 主机卸载：主机 CPU 上的优化器步
est-offload-host-step-how = { $impl } 在 { $cores } 个物理核上更新 { $params } 个参数：{ $secs }，减去计算中已含的设备端优化器步；按核数线性扩展，未计主机内存带宽上限（目录中没有），故为下界
est-offload-host-untimed-how = 主机 CPU 的优化器步未计时：设置 hardware.host_vcpus（每节点 vCPU 数）即可计时
est-offload-host-unrated-how = 主机 CPU 的优化器步未计时：每核速率只在 x86 主机上为 AdamW 测过（fused 或 foreach 的 fp32、fused 的 bf16、DeepSpeedCPUAdam），本例的优化器、精度或主机 CPU 不在其中
