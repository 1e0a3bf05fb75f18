# 显存组成（train.rs）与训练步阶段（timeline.rs），键为英文名的 slug。

mem-weights = 权重
mem-gradients = 梯度
mem-optimizer-states-master-weights = 优化器状态 + 主权重
mem-base-weights-frozen = 基座权重（冻结）
mem-lora-adapters-grads-optimizer = LoRA 适配器 + 梯度 + 优化器
mem-zero-3-gather-buffers = ZeRO-3 聚合缓冲
mem-activations = 激活值
mem-logits-loss = logits + 损失
mem-layer-working-set = 单层反向工作集
mem-autocast-weight-copies = autocast 权重副本
mem-optimizer-temporaries = 优化器临时缓冲
mem-allocator-fragmentation = 显存碎片
mem-cuda-context = CUDA 上下文
mem-cann-runtime-context = CANN 运行时上下文
mem-nccl-buffers = NCCL 缓冲
mem-hccl-buffers = HCCL 缓冲
# Serving memory components (infer.rs ServingMemory; shown by the web page).
mem-kv-cache-pool = KV 缓存池
mem-non-torch = 非 PyTorch 显存
mem-cuda-graphs = CUDA Graph
mem-resident-states = 常驻状态
mem-ddp-gradient-buckets = DDP 梯度桶
mem-saved-activations = 保存的激活值
mem-logits = logits
mem-loss-buffers-fp32 = 损失缓冲（fp32）
mem-logits-gradient = logits 梯度
mem-previous-step-s-kept-inputs = 上一步保留的输入
mem-lm-head-dequantisation = LM 头反量化副本
phase-forward = 前向
phase-loss = 损失计算
phase-backward-lm-head = 反向：LM 头
phase-backward-layers = 反向：各层
phase-backward-loss = 反向：损失
phase-optimizer-step = 优化器更新
