# 显存组成（train.rs）与训练步阶段（timeline.rs），键为英文名的 slug。

mem-weights = 权重
mem-gradients = 梯度
mem-16-bit-gradients-bf16-optimizer = 16 位梯度（BF16_Optimizer）
mem-optimizer-states-master-weights = 优化器状态 + 主权重
mem-base-weights-frozen = 基座权重（冻结）
mem-4-bit-quantisation-constants = 4-bit 量化常数
mem-lora-adapters-grads-optimizer = LoRA 适配器 + 梯度 + 优化器
mem-modules-to-save-copies-grads-optimizer = modules_to_save 副本 + 梯度 + 优化器
mem-zero-3-gather-buffers = ZeRO-3 聚合缓冲
mem-fsdp-unsharded-stage-pp = FSDP 流水线阶段未分片参数与梯度
mem-activations = 激活值
mem-logits-loss = logits + 损失
mem-layer-working-set = 单层反向工作集
mem-layer-forward-working-set = 单层前向工作集
mem-fsdp2-held-all-gather-output = FSDP2 暂留的 all-gather 输出
mem-autocast-weight-copies = autocast 权重副本
mem-autocast-cast-cache = autocast 类型转换缓存
mem-fp8-weight-cache = FP8 权重缓存
mem-rotary-cache = 旋转位置编码缓存
mem-attention-mask = 注意力掩码
mem-optimizer-temporaries = 优化器临时缓冲
mem-allocator-fragmentation = 显存碎片
mem-cuda-context = CUDA 上下文
mem-cann-runtime-context = CANN 运行时上下文
mem-nccl-buffers = NCCL 缓冲
mem-te-userbuffers = TE userbuffers 缓冲
mem-hccl-buffers = HCCL 缓冲
# Serving memory components (infer.rs ServingMemory; shown by the web page).
mem-kv-cache-pool = KV 缓存池
mem-non-torch = 非 PyTorch 显存
mem-cuda-graphs = CUDA Graph
mem-resident-states = 常驻状态
mem-ddp-gradient-buckets = DDP 梯度桶
mem-zero-reduce-bucket = ZeRO 归约桶
mem-fp32-gradient-partition = fp32 梯度分片
mem-saved-activations = 保存的激活值
mem-logits = logits
mem-loss-buffers-fp32 = 损失缓冲（fp32）
mem-loss-buffers-bf16 = 损失缓冲（bf16）
mem-logits-gradient = logits 梯度
mem-previous-step-s-kept-inputs = 上一步保留的输入
mem-lm-head-dequantisation = LM 头反量化副本
mem-lm-head-input = LM 头输入
mem-validation-logits-loss = 验证时的 logits + 损失
mem-train-metric-buffers = 训练指标缓冲
phase-forward = 前向
phase-forward-layers = 前向：各层
phase-forward-unshard = 前向：unshard
phase-loss = 损失计算
phase-backward-lm-head = 反向：LM 头
phase-backward-layers = 反向：各层
phase-backward-loss = 反向：损失
phase-optimizer-step = 优化器更新
phase-validation = 验证
phase-train-metrics = 训练指标

# 训练显存各行的计算方式（`--wide` 的“计算方式”列；audit r8 #9）。
how-base-weights = { $format }：线性层每权重 { $bits } 位，其余 { $rest } 位{ $shard }{ $host ->
    [yes] （已卸载到 CPU）
   *[no] {""}
}
how-shard-none = {""}
how-shard-dense = {" "}÷ { $dp }（ZeRO 分片）
how-shard-experts = （ZeRO 分片：稠密参数 { $dense }B ÷ 数据并行 { $dp }，专家参数 { $expert }B ÷ 专家数据并行 { $edp }）
how-lora-adapters = { $m }M 个适配器参数（秩 { $rank }）× { $per } B（{ $dtype } 权重、梯度与优化器状态）{ $host ->
    [yes] （已卸载到 CPU）
   *[no] {""}
}
how-fragmentation = 已分配显存的 { $pct }%（可调参数 `fragmentation`）
how-tunable = 可调参数 `{ $name }`
how-nccl-buffers = 按 NCCL 源码逐个通信器计算：每个通道每个连接 12 MiB，交换机可做归约时使用 NVLS（{ $groups }）
how-te-userbuffers = Transformer Engine 的 tp-comm-overlap 通信缓冲区（initialize_ub）：10 个缓冲区，每个 { $tokens } 个 token × hidden，{ $fp8 ->
    [yes] 6 个 all-gather 缓冲区为 FP8（1 B），4 个 reduce-scatter 缓冲区为 bf16（2 B）
   *[no] 均为 bf16（2 B）
}，不经 torch 分配器
how-full-recompute = 全量重计算：每 token 每层 { $r }·h B × { $layers } 层 × { $in_flight } 个 micro-batch；反向时重算一层的激活（每 token { $per } B）
how-activation-offload = 除正在计算的 2 层外均卸载到主机内存（激活卸载）
how-at-peak = 峰值时（{ $phase }）的{ $what }
how-not-live-at-peak = 峰值时（{ $phase }）不占用
how-gradients-live-at-peak = 峰值时（{ $phase }）占用 { $bytes }（若更小则为 LM 头梯度）
how-lm-head-gradient = LM 头梯度
how-previous-step-inputs = 训练循环持有的上一步输出（及其 4-bit 矩阵乘保留的输入）
how-lm-head-dequant = 量化 LM 头的反量化副本（fp16 + bf16 转换，每权重 4 B）
how-lm-head-input = 冻结的 LM 头读取的最终归一化输出（不保存）
how-validation-logits = validate()：完整 logits、其 log-softmax 与移位副本（b > 1）
how-train-metric-buffers = Composer 在每个微批次反向之后更新训练指标：一个指标的 logits fp32 副本及其 fp32 log-softmax（每个 logit 8 B）
how-autocast-copies = fp32 线性层权重的 16 位副本（torch.autocast）
how-layer-forward-working-set = 检查点层前向计算时的 MLP 中间结果、残差和与归一化升精度副本
how-attention-mask = transformers eager 注意力的四维掩码（batch × 1 × seq × seq，与嵌入同精度），每个检查点层都保留它，直到反向重算该层
how-fsdp2-held-output = FSDP2 的 wait_for_unshard 在拷出下一单元时仍持有的上一单元 all-gather 输出（第一层时为根单元的，之后为层单元的）
how-autocast-cast-cache = autocast 在检查点层中缓存的可训练权重 16 位副本（保留到 autocast 区域结束）
how-optimizer-temporaries = AdamW foreach：一个与状态同大小的缓冲（_foreach_sqrt）；DeepSpeed：展平的 16 位梯度分片
how-zero-reduce-bucket = DeepSpeed 的归约桶（ipg_buffer）：reduce_bucket_size 个 16 位元素
how-fp32-gradient-partition = DeepSpeed 的 step：flatten(averaged_gradients).to(fp32)，本 rank 的 fp32 梯度分片
how-ddp-buckets = DDP all-reduce 桶：梯度的一份副本（gradient_as_bucket_view 关闭，PyTorch 默认）
how-layer-working-set = 单层反向工作集
how-fp8-weight-cache = { $b }B 个 Transformer Engine 线性层权重 × { $per } B：{ $params ->
    [fp8] FP8 参数供反向 GEMM 使用的转置
   *[other] TE 跨 micro-batch 缓存的 FP8 副本及其转置（is_first_microbatch）
}，整个训练期间常驻
how-weights-fp8 = { $gib } GiB：{ $b }B 个 Transformer Engine 线性层权重以 FP8 存储（1 B，fp8_param_gather），其余参数为 16 位
how-weights = { $b }B 参数 × { $per } B{ $shard }{ $host ->
    [yes] （已卸载到 CPU）
   *[no] {""}
}
how-gradients = 每参数 { $per } B{ $shard }
how-lp-grads = 每参数 { $per } B：BF16_Optimizer 从反向到优化器更新一直保留每个 bf16 .grad，与 fp32 梯度并存（fp32_grad_pass）
how-gradients-fused = 优化器更新融合进反向：没有完整的梯度缓冲
how-optimizer = { $opt }：每参数 { $per } B 状态{ $factored ->
    [none] {""}
   *[other] （因子分解，仅 { $factored }% 的参数）
} + { $master } B 主权重{ $shard }{ $where ->
    [host] （已卸载到 CPU）
    [paged] （状态分页：位于 torch 分配器之外的 CUDA 统一内存，GPU 满时换出到主机）
   *[device] {""}
}
how-activations = 每 token 每层 { $per } B × { $tokens } tokens × { $layers } 层{ $absent ->
    [none] {""}
   *[other] {" "}− 每 token { $absent } B（第 0 层在其适配器之前的部分）
} × 同时在算 { $in_flight } 个（{ $profile } 显存画像，{ $scores ->
    [yes] 保存 eager 注意力的 s² 分数
   *[no] 不保存 s² 分数
}）
how-logits-hf = tokens × 词表（{ $vocab }）个 logits：计算精度的 logits、损失所用的 fp32 升精度副本及其 fp32 梯度（HF loss_function）
how-logits-live-per-logit = 每个 logit 存活 { $per } B
how-no-vocab-head = 没有词表输出头
how-logits-litgpt = bf16 logits + bf16 log-softmax（2 + 2 B × tokens × 词表 { $vocab }）+ 一个 { $chunk } token 分块的梯度（LitGPT chunked_cross_entropy）
how-logits-compiled = { $per } B × tokens × 词表（{ $vocab }）：只有 logits（torch.compile 编译的分块交叉熵：没有 fp32 缓冲）
how-logits-chunked = { $per } B × tokens × 词表（{ $vocab }）：logits + 每个分块保存的 fp32 log-softmax + 8 份 fp32 升精度副本之一（分块交叉熵）
how-logits-loss-parallel = 损失反向时 16 B × tokens × 词表（{ $vocab }）/ TP：torch loss_parallel 保存的 fp32 log-softmax、零张量、exp 及其和（torch/distributed/tensor/parallel/loss.py）
how-logits-fused-classifier = 损失与 LM head 反向时 { $per } B × tokens × 词表（{ $vocab }）：16 位 logits，其梯度原地写回（llm.c 融合分类器：没有 fp32 缓冲）
how-logits-megatron = 4·s·b·(h + V)/t：融合的词表并行交叉熵（Megatron theoretical_memory_usage.py）
how-logits-megatron-unfused = 4·s·b·h/t + 8·s·b·V/t：未融合的词表并行交叉熵（cross_entropy_loss_fusion = false）：logits 的 fp32 副本与非原地的减最大值结果同时存在（megatron/core/tensor_parallel/cross_entropy.py，core 0.7 及以前）
how-gathered-largest-layer = 2 × 最大层 × 2 B（DeepSpeed memory.rst：4·largest_layer_params）
how-quant-constants = { $b }B 量化权重 × { $bits } 位（bitsandbytes QuantState），每张卡完整保存：它们不是参数，ZeRO-3/FSDP 既不切分也不卸载
how-modules-to-save = { $m }M 参数（{ $modules }）× { $per } B（可训练副本、梯度与优化器状态）{ $host ->
    [yes] （已卸载到 CPU）
   *[no] {""}
}
how-activations-per-sample = 每样本 { $bytes }（输入 { $input }）× micro-batch { $mb }
how-selective-op = 逐算子选择性检查点（torchtitan）：每 token 每层 { $per } B（输入、SDPA 输出、隔一个的矩阵乘输出）× { $tokens } tokens × { $layers } 层 × 同时在算 { $in_flight } 个；反向时重算一层其余的激活（每 token { $eager } B）
how-fsdp-pp-stage = { $b }B 阶段参数 × （{ $c } B 聚合权重 + { $g } B 未分片梯度）：流水线并行下的 FSDP2 只在最后一个 micro-batch 之后重新分片并 reduce-scatter
how-fsdp-units = torch FSDP：整个 step 中保持聚合的根单元（{ $root } GB）+ 同时在用的 { $units } 个单元（当前 + 预取）× 每个 { $unit } GB（按其存储精度）
how-zero3-coordinator = 在该 micro-batch 的张量轨迹上重放 DeepSpeed ZeRO-3 的参数协调器（当前模块、预取至多 stage3_prefetch_bucket_size { $prefetch }M 个元素且受 stage3_max_live_parameters { $live }M 限制、stage3_max_reuse_distance 内复用的张量保留）：前向 / LM 头前后 / 反向最多 { $fwd }M / { $head }M / { $bwd }M 个元素 × { $dtype } B
