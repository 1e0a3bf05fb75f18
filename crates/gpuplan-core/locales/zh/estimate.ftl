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
est-train-title = { $model }：{ $task }，{ $precision }，{ $optimizer }，{ $seq ->
    [none] {""}
   *[other] 序列长度 { $seq } ×{" "}
}micro-batch { $mb } × 梯度累积 { $ga } 步，{ $recompute }，{ $attention }，{ $profile }
est-hardware = 硬件：{ $nodes } × { $per } 张 { $gpu }（节点内 { $intra }，节点间 { $link } { $inter }）；TP { $tp } PP { $pp } DP { $dp } EP { $ep } ZeRO-{ $zero }{ $offload }
est-offload-optimizer = ，优化器卸载到内存
est-offload-params = ，参数卸载到内存
est-mem-title = 每卡显存（{ $params } 参数，其中可训练 { $trainable }）
est-peak-allocated = 峰值分配（torch）
est-needed = 每卡所需
est-no-memory = { $gpu } 的显存容量没有来源：无法判断是否放得下
est-fits = { $gpu } 有 { $have } GiB → 放得下
est-does-not-fit = { $gpu } 有 { $have } GiB → 放不下（差 { $short } GiB）
est-offload-ram = 卸载所需主机内存（每卡）
est-step-title = 每个优化器步的时间
est-step-p2p = 流水线点对点
est-step-ep = 专家 all-to-all
est-throughput = 吞吐：{ $rate } { $unit }/s（每卡 { $per }），MFU { $mfu }（HFU { $hfu }）
est-time-unavailable = 时间：未估算：{ $why }
est-job = 任务：{ $amount } { $unit }，共 { $steps } 步：耗时 { $wall }，{ $gpu_hours } 卡时（模型计算量 { $flops } FLOPs）
est-job-missing = 任务：给出 --tokens（或 --samples 加 --epochs）才能估算耗时和卡时
est-data = 数据：每秒 { $rate } 个样本 → 读取 { $read }{ $cores ->
    [none] {""}
   *[other] ，解码/增强约需 { $cores } 个主机 CPU 核
}；检查点 { $ckpt }（权重 { $weights }），按 1 GB/s 写入：{ $write }
est-col-bottleneck = 瓶颈：{ $b }
est-serve-title = { $model }：推理服务，{ $weights } 权重，{ $kv } KV 缓存，TP { $tp }，引擎 { $engine }，gpu_memory_utilization { $util }，max_model_len { $len }
est-serve-mem-title = 每卡显存（按 { $engine } 口径）
est-serve-rule = 规则：{ $rule }
est-serve-images = 图像：每个请求 { $n } 张，{ $w }×{ $h } 像素（按模型的图像 token 规则；KV、预填充和显存探测都已计入）
est-serve-budget = 可用预算
est-serve-weights = 权重
est-serve-activation = 激活峰值（profile 运行）
est-serve-non-torch = 非 torch 显存 + CUDA graph
est-serve-kv-pool = KV 池
est-serve-kv = KV 容量：{ $blocks } 个块 × { $block } = { $tokens } 个 token；按 max_model_len 的最大并发：{ $conc }；可同时处理 { $reqs } 个 { $input }+{ $output } token 的请求；批大小 { $batch } 时的最长上下文：{ $ctx }
est-serve-problem = 问题：{ $p }
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
serve-rule-vllm = vLLM：{ $util } × 可见显存 − 权重 − 探测峰值（{ $tokens } 个 token）− 非 torch 显存
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
est-serve-how-non-torch = 已计入预算（vLLM：vllm_non_torch_gib + NCCL；静态分配：CUDA 上下文 + NCCL）
est-serve-how-kv = 每卡每 token { $bytes } 字节（每卡 { $heads } 个 KV 头）
est-serve-how-kv-short = 无：预算还差 { $gib } GiB；{ $per }

## estimate --solve
solve-q-max-context = 最长上下文
solve-q-max-batch = 最大并发序列数
solve-q-max-throughput = 每 token 不超过 { $ms } ms 时的最高吞吐
solve-title = { $model }：{ $gpu } × TP { $tp } 上的{ $question }（按 { $engine } 规则，计算 { $n } 次）
solve-col-quantity = 指标
solve-col-value = 数值
solve-context = 上下文（每条序列的 token 数）
solve-batch = 并发序列数
solve-tpot = 每个输出 token 的时间（ms）
solve-rate = 每秒输出 token 数（单副本）
solve-binding = 限制条件
solve-why = 原因
solve-none = 无
solve-binding-kv_pool = KV 池
solve-binding-model_context = 模型上下文长度
solve-binding-max_num_seqs = 引擎的 max_num_seqs
solve-binding-tpot_target = 每 token 时间目标
solve-binding-memory = 显存
solve-why-none-at-one-token = { $batch } 条序列即使每条只有 1 个 token 也放不下：权重和运行时之外没有 KV 池
solve-why-model-context = 模型上下文（{ $ctx } 个 token）先于 KV 池成为上限
solve-why-context-fills-pool = { $batch } × { $tokens } 个 token 占满 KV 池
solve-why-one-sequence = 一条 { $context } 个 token 的序列放不进 KV 池
solve-why-max-num-seqs = 引擎默认最多同时调度 { $cap } 条序列
solve-why-batch-fills-pool = { $n } 条 { $context } 个 token 的序列会超出 KV 池
solve-why-tpot-at-one = 即使只有一条序列，每个 token 也要 { $ms } ms，超过 { $target } ms 的目标
solve-why-tpot = { $n } 条序列时每个 token 超过 { $target } ms

## The step timeline (estimate --wide)
tl-title = 训练步显存时间线（已分配 GiB；前向结束时保存的激活 { $saved }）
tl-col-phase = 阶段
tl-col-live = 各组成的占用（GiB）
tl-peak = ← 峰值
tl-phase-forward = 前向
tl-phase-loss = 损失
tl-phase-backward-loss = 反向：损失
tl-phase-backward-lm-head = 反向：LM head
tl-phase-backward-layers = 反向：各层
tl-phase-optimizer-step = 优化器步
tl-part-resident-states = 常驻状态
tl-part-autocast-weight-copies = autocast 权重副本
tl-part-gradients = 梯度
tl-part-saved-activations = 保存的激活
tl-part-logits = logits
tl-part-loss-buffers-fp32 = 损失缓冲（fp32）
tl-part-logits-gradient = logits 梯度
tl-part-layer-working-set = 层内工作区
tl-part-optimizer-temporaries = 优化器临时缓冲
est-serve-kv-pool-short = { $name }（还差 { $gib } GiB）
