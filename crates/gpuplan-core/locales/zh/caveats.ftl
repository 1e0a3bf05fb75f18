# 方案或估算的前提说明（plan/mod.rs、plan/train.rs、chip.rs）。

cav-rdma-unknown = 该规格的 RDMA 未见文档：按 TCP 计算
cav-roce-unknown-ascend = 该规格昇腾节点间的 RoCE 未见文档：按 HCCL 走 TCP 计算（用 hccn_tool 检查 NPU 的 RoCE 端口）
cav-network-unknown = 网络带宽未见文档：按 10 Gbit/s 计算
cav-rdma-unverified = 节点间 RDMA 带宽（每节点 { $gbit } Gbit/s）来自第三方实测，并非厂商文档（见目录行的 source）：长时间运行前请先实测
cav-pcie-assumed = GPU 互联未注明为 NVLink：按 PCIe Gen4 计算
cav-host-cpu-cap = 主机 CPU 把数据管道限制在每秒 { $cap } 个样本（{ $vcpu } 个 vCPU × { $nodes } 个节点 × 每个 vCPU 每秒 { $per_core } 张图），低于 GPU 的 { $gpus }：改用 GPU 解码（DALI）或选 vCPU 更多的规格
cav-input-bound = { $limit ->
    [input] 存储
   *[network] 节点网络
}只能提供 { $supply }，而 GPU 可读取 { $demand }：受输入限制，吞吐为 { $rate } { $unit ->
    [tokens] tokens/s
   *[samples] 样本/秒
}
cav-ep-stack = 专家并行（EP { $ep }，ZeRO-{ $zero }）按 DeepSpeed-MoE 的运行方式估算：模型的 MoE 块需改写为包住其专家的 deepspeed.moe.layer.MoE(ep_size={ $ep })（HF Transformers 的 MoE 模块本身没有专家并行；仅用 HF Trainer + ZeRO-3 或 FSDP 会聚合一层的全部专家），用 DeepSpeed 启动{ $zero ->
    [3] ；DeepSpeed-MoE 拒绝 ZeRO-3（"MoE not supported with Stage 3"）：导出无法复现此计划
   *[other] { $mp ->
        [1] {""}
       *[other] ；DeepSpeed 下 EP 与 TP/PP/CP 同用属于 Megatron-DeepSpeed，导出不生成它
    }
}
cav-stack-megatron = 此布局（TP { $tp } × PP { $pp } × EP { $ep }，ZeRO-{ $zero }）由 Megatron-Core 运行{ $peft ->
    [true] （LoRA：ms-swift 的 Megatron 后端或 Megatron-Bridge PEFT）
   *[other] {""}
}：其显存和时间按 megatron 配置估算，导出的启动脚本使用 LAUNCHER=megatron
cav-memory-lower-bound = 显存为下限：{ $basis }
cav-cnn-efficiency = 吞吐按 { $name } = 峰值的 { $pct }% 计算（卷积/UNet 训练远低于 Transformer 的矩阵乘效率）；请实测第一个 epoch
cav-no-bf16 = { $gpu } 不支持 bf16：改用 fp16 混合精度训练（动态损失缩放，fp32 主权重）
cav-serve-no-bf16 = { $gpu } 不支持 bf16：权重和 KV 缓存改用 fp16（大小相同；{ $engine ->
    [sglang] SGLang 在计算能力 8.0 以下会自行改用 float16
    [trtllm] 转换 TensorRT-LLM 检查点时加 --dtype float16
    [static] 以 float16 加载模型
   *[other] vLLM 需加 --dtype half
}）
cav-serve-int4-not-marlin = { $gpu }（计算能力 { $cc }）上 { $engine } 的 { $weights } 运行 GPTQ 的 exllama 内核（AWQ int4 检查点则用 vLLM 的 AWQ GEMM 内核，需 7.5 及以上），而不是需要 8.0 的 Marlin：解码时间按 Marlin 接近理想的权重带宽估算，在这块芯片上未经验证
cav-serve-int8-not-marlin = { $gpu }（计算能力 { $cc }）上 { $engine } 的 { $weights } 运行 GPTQ 的 8 位 exllama 内核（`gptq_gemm`），而不是需要 8.0 的 Marlin：解码时间按 Marlin 接近理想的权重带宽估算，在这块芯片上未经验证
cav-serve-no-bf16-no-kv = { $gpu } 不支持 bf16：权重和激活改用 fp16（大小相同；以 float16 加载模型，例如 torch_dtype=torch.float16）
cav-serve-trtllm-unlisted = TensorRT-LLM 未列出任何 Pascal GPU（{ $gpu }，计算能力 { $cc }）：其 README（v0.5.0）列出 Volta、Turing、Ampere、Hopper 和 Ada，之后的支持矩阵只列 Ampere 及以后；NVIDIA 也未说明会拒绝运行，因此本估算假定该引擎能在此构建和运行，未经验证
cav-serve-no-bf16-quantized = { $gpu } 不支持 bf16：{ $weights } 权重下激活和 KV 缓存改用 fp16（大小相同；{ $engine ->
    [sglang] SGLang 在计算能力 8.0 以下会自行改用 float16
    [trtllm] 转换 TensorRT-LLM 检查点时加 --dtype float16
    [static] 以 float16 加载模型
   *[other] vLLM 需加 --dtype half
}）
cav-serve-denoising = 一个请求是一张图像：{ $steps } 个去噪步，{ $samples ->
        [1] 每步 1 个 UNet 样本（不用无分类器引导：guidance_scale ≤ 1，SDXL-Turbo 和 LCM 就这样运行）
       *[other] 每步 { $samples } 个 UNet 样本（无分类器引导把条件与无条件潜变量放在一批）
    }{ $origin ->
        [set] ，按所设值计（diffusers StableDiffusionXLPipeline 默认 { $default_steps } 步 × { $default_samples } 个样本）
       *[default] ，为 diffusers StableDiffusionXLPipeline 的默认值（用 --steps 设置步数；SDXL-Turbo 等无引导的蒸馏模型用 --guidance off）
    }；VAE 解码和文本编码器未计入
cav-no-flash = { $gpu } 不支持 FlashAttention-2：注意力改用 PyTorch SDPA 的 memory-efficient 内核（显存相同，速度较慢）
cav-no-memory-bandwidth = 目录中没有 { $gpu } 可溯源的显存带宽：一步中受带宽限制的计算（归一化、激活、旋转位置编码、对 logits 的损失、优化器步）未计时，因此步时是下限——在 ModelLink 与 FlagPerf 公开的昇腾 910B 训练数据上，估计的中位数快 7%，大词表小模型最多快 88%
cav-litgpt-strategy = LitGPT 不会按这个布局运行：在 { $gpus } 张 GPU 上，它的脚本固定使用 ZeRO-{ $zero }（多于一张卡时为 FSDP FULL_SHARD）和重计算 { $recompute }（微调且多于一张卡时每个 Block 都做检查点），与参数无关；请用 --zero { $zero } --recompute { $recompute } 估算
cav-megatron-vp-layout = { $layers } 层无法在 PP { $pp } × { $vp } 个虚拟阶段上均分：Megatron-Core 的 get_num_layers_to_build 会在启动时报错（“num_layers_per_pipeline_rank … should be divisible by vp_size”），除非用 --pipeline-model-parallel-layout 把各层放到这 { $pp } × { $vp } 个块上；本估算假定采用这样的布局，最忙的流水线阶段有 { $per } 层（或选择能整除每阶段层数的 virtual_stages）
cav-megatron-pp-zero = Megatron-LM 不会在 { $pp } 个流水线阶段旁运行 ZeRO-{ $zero }：它的分布式优化器只切分优化器状态（ZeRO-1，导出即写此项），--use-torch-fsdp2 不支持流水线并行；本估算按所给布局以融合算子计时（自有框架可运行它，例如 Meta 训练 Llama 3 的 FSDP），若用 Megatron-LM 请设 --zero 1（parallel.zero = 1）
cav-global-batch-raised = 全局批大小为 { $runs } 条序列而不是 { $want }：{ $dp } 个数据并行副本 × micro-batch { $mb } × { $accum } 步梯度累积；请相应调整学习率，或设置 --global-batch / 使用更少的卡
cav-memory-margin = 处于显存模型的误差之内：每卡仅剩 { $free } GiB（共 { $have } GiB），少于估算可能偏差的峰值的 { $pct }%，且该集群搜索过的配置均无此余量{ $mb ->
    [1] ：micro-batch 已为 1，无更小可退；若显存不足，请选用卡数更多或显存更大的方案
   *[other] ：请备好 micro-batch { $smaller }（梯度累积加倍，全局 batch 不变）
}
cav-serve-mla-moe-small-batch = MLA + MoE 模型批大小 { $batch } 的解码低于已验证的批大小 8–64：唯一公布的单请求速率比模型慢约 4 倍，请把每 token 时间视为下限
cav-serve-dequantized = 检查点以 { $native } 发布；此方案服务的是由其反量化得到的 { $weights } 副本（精度不会提高，权重显存与读取量按 16 位计）
