# 错误信息（error.rs 的 CoreError；crates/gpuplan 中 CLI 自身的错误）。`raw` 原样显示文本。

raw = { $text }
error-prefix = 错误：
warning-prefix = 警告：
note-prefix = 提示：
error-chain-sep = ：
err-invalid-field = `{ $field }` 的值 { $value } 无效：{ $fix }
err-missing-value = 缺少 `{ $field }`：{ $fix }
err-missing-fields = 模型配置缺少 { $fields }：请在 config.json 中补上（或使用预置模型：`gpuplan models`）
err-unknown = 未知的{ $kind } `{ $name }`{ $suggestions ->
    [none] {""}
   *[other] ；您是否要找：{ $suggestions }？
}{ $note ->
    [none] {""}
   *[other] { $suggestions ->
        [none] ：{ $note }
       *[other] 否则：{ $note }
    }
}
err-parse = { $what }：{ $message }
kind-model = 模型
kind-gpu = GPU
kind-instance-type = 实例规格
kind-tunable = 可调常数
kind-instance-type-this-name-circulates-in-blog-posts-but-is-wrong = 实例规格（此名称在博客中流传，但并不存在）
fix-chip-lacks-precision = { $gpu } 不支持 { $dtype }（依据：{ $source }）；请用 --precision { $alt } 或换一种芯片
fix-chip-lacks-flash = FlashAttention-2 不能在 { $gpu } 上运行（仅 Ampere 及更新架构）；请用 mem_efficient（PyTorch SDPA）或 eager
fix-serve-no-bf16 = { $gpu } 不支持 bf16（计算能力低于 8.0），vLLM 在此拒绝 bf16：请用 --weights fp16（字节数相同）
fix-tp-divides-heads-serve = 必须能整除注意力头数（{ $heads }），并能整除 KV 头数（{ $kv }）或是它的倍数（{ $engine ->
        [vllm] vLLM 注意力层的要求
        [sglang] SGLang 注意力层的要求
       *[other] vLLM 与 SGLang 注意力层要求的切分方式，本模型对 --engine { $engine } 同样采用
    }）；可试 { $try }
fix-tp-divides-heads-train = 必须能整除注意力头数（{ $heads }）和 KV 头数（{ $kv }）：Megatron-Core 和 torchtitan 让每个 TP 进程持有完整的 KV 头（只有在框架把 KV 头复制到每个进程时才设 training.parallel.kv_heads_replicated = true）；可试 { $try }
fix-engine-nvidia-only = TensorRT-LLM 只能在 NVIDIA GPU 上运行，不支持 { $gpu }：请用 --engine vllm（或 sglang）
fix-engine-min-cc = { $engine } 无法在 { $gpu } 上启动（计算能力 { $cc }；需要 { $min }：vLLM 的 CUDA 内核从 7.0 起编译，SGLang 在 7.5 以下加载时即报错退出）：请在计算能力 7.0 及以上的芯片（V100、T4）上用 --engine vllm，或改用计算能力 { $min } 及以上的芯片
fix-say-how-much-data = 请给出数据量：--tokens N，或 --samples N 加 --epochs E
fix-rate-or-concurrency = 负载只能用一种方式给出：请求率（--rate，rate_rps：每秒到达的请求数）或并发数（--concurrency：同时在途的请求数），不能同时给出
fix-learned-positions = { $model } 的位置编码表只有 { $limit } 个位置：请给 --seq-len { $limit } 或更小
note-seq-len-beyond-context = 序列长度 { $seq } 超过 { $model } 的上下文长度（{ $limit } 个位置）：超出部分需要在模型配置中做位置缩放（RoPE 模型：rope_scaling，例如 YaRN），否则效果会下降；仍按给定的 { $seq } 计算
note-seq-len-fitted = 序列长度取 { $limit }（模型的上下文长度；默认的 { $was } 更长）：用 --seq-len 修改
fix-gpu-no-peak-latency = 没有有据可查的峰值算力（FLOP/s），无法估算时延
fix-gpu-no-bandwidth-latency = 没有有据可查的显存带宽，无法估算解码时延

## Fixed sentences of field checks (found by their English text: i18n::fixed_text)
fix-attention-span-packed = 打包序列中每个查询关注的键数（各文档长度的 E[l²]/E[l]），1 到 seq_len
fix-lora-dropout-probability = dropout 概率，0 ≤ p < 1（常用 0、0.05、0.1）
fix-lora-rank-1-65536-typical-8 = LoRA 秩，1–65536（常用 8–64）
fix-name-the-linears-to-adapt-q = 给出要适配的线性层（q_proj,v_proj,...）或 all-linear
fix-sequences-per-device-per-micro-step = 每卡每个微步的序列数，1–65536（通常 1–64）
fix-tokens-per-sequence-1-16777216-e = 每条序列的 token 数，1–16777216（例如 2048）
fix-micro-batches-per-optimizer-step-1 = 每个优化器步的微批数，1–1048576
fix-tensor-parallel-degree-1-65536-usually = 张量并行度，1–65536（通常 ≤ 8，在节点内）
fix-pipeline-parallel-degree-1-65536 = 流水线并行度，1–65536
fix-expert-parallel-degree-1-65536 = 专家并行度，1–65536
fix-context-parallel-degree-1-65536-the = 上下文并行度，1–65536（序列切分到 cp 张卡上）
fix-expert-tensor-parallel-degree-1-65536 = 专家张量并行度，1–65536（每个路由专家被切分到的卡数）
fix-virtual-pipeline-stages-per-device-1 = 每卡的虚拟流水线阶段数，1–65536（1 = 普通 1F1B）
fix-zero-stages-are-0-1-2 = ZeRO 阶段只能是 0、1、2 或 3
fix-layers-on-the-last-pipeline-stage = 最后一个流水线阶段的层数，至少 1（且少于模型的总层数）
fix-layers-on-the-first-pipeline-stage = 第一个流水线阶段的层数，至少 1（且少于模型的总层数）
fix-parameter-offload-needs-zero-3-or = 参数卸载需要 ZeRO-3（或 FSDP full shard）：设置 parallel.zero = 3
fix-chips-one-or-more-of-nvidia = --chips：nvidia、ascend、amd 中的一个或多个（默认 nvidia）
fix-billing-auto-on-demand-or-monthly = --billing：推理服务方案请用 auto、on-demand 或 monthly（抢占式价格只用于可中断的训练任务；被回收的副本会丢掉正在处理的请求）
fix-training-tokens-at-least-1-and = 训练 token 数，至少 1、至多 1e16（例如 1e8）
fix-training-samples-at-least-1-and = 训练样本数，至少 1、至多 1e15
fix-passes-over-the-samples-samples-epochs = 遍历样本的轮数：样本数 × 轮数至少为一个样本
fix-passes-over-the-samples-a-positive = 遍历样本的轮数，不超过 1e6 的正数
fix-stored-bytes-per-sample-a-positive = 每个样本的存储字节数，不超过 1e12 的正数
fix-dataset-size-in-bytes-a-positive = 数据集大小（字节），不超过 1e18（1 EB）的正数
fix-weights-per-quantisation-group-e-g = 每个量化组的权重数，例如 128
fix-bits-per-weight-between-1-and = 每个权重的位数，1 到 32 之间（GGUF Q4_K ≈ 4.5）
fix-a-fraction-in-0-1-vllm = (0, 1] 之间的比例；vLLM 默认 0.9
fix-tensor-parallel-degree-1-65536 = 张量并行度，1–65536
fix-paged-kv-block-size-in-tokens = 分页 KV 的块大小（token 数），例如 16
fix-concurrent-sequences-1-1048576 = 并发序列数，1–1048576
fix-prompt-tokens-1-16777216 = 提示 token 数，1–16777216
fix-generated-tokens-per-request-1-16777216 = 每个请求生成的 token 数，1–16777216
fix-context-length-in-tokens-1-16777216 = 上下文长度（token 数），1–16777216
fix-tokens-per-batch-1-16777216 = 每批 token 数，1–16777216
fix-a-fraction-in-0-1-sglang = (0, 1] 之间的比例；SGLang 在 TP 1 时默认 0.88
fix-a-fraction-in-0-1-tensorrt = (0, 1] 之间的比例；TensorRT-LLM 默认 0.9
fix-images-per-request-0-1024 = 每个请求的图像数，0–1024
fix-nodes-per-plan-1-4096-max = 每个方案的节点数，1–4096（--max-nodes）
fix-deadline-hours-more-than-0-and = --deadline：小时数，大于 0 且不超过 87600（10 年）：例如 24h 或 30d
fix-budget-a-positive-amount-in-cny = --budget：以人民币计的正数金额，不超过 1e12
fix-preemption-rate-preemptions-per-node-hour = --preemption-rate：每节点每小时的回收次数，不小于 0 且小于 1（默认 0.02）
fix-minutes-to-resume-after-a-preemption = 被回收后恢复所需的分钟数，0–10080（默认 10）
fix-reuse-hours-hours-per-month-of = --reuse-hours：任务结束后每月继续使用的小时数，0–730
fix-prompt-tokens-per-request-1-16777216 = 每个请求的提示 token 数，1–16777216
fix-rate-requests-per-second-more-than = --rate：每秒请求数，大于 0 且不超过 1e7
fix-concurrent-requests-1-10000000 = 并发请求数，1–10000000
fix-sequences-per-optimizer-step-1-16777216 = 每个优化器步的序列数，1–16777216
fix-samples-epochs-seq-len-comes-to = 样本数 × 轮数 × seq_len 超过 1e16 个训练 token：减少样本数或轮数（或改用 --tokens）
fix-computed-a-value-that-is-not = 计算结果不是有限的非负数；请检查该模型和任务的输入（并报告此问题：这是一个缺陷）
fix-at-most-1024-gpus-per-node = 每节点最多 1024 张卡，总共最多 1048576 张
fix-must-be-at-least-1 = 至少为 1
fix-must-be-a-finite-non-negative = 必须是有限的非负数（不超过 1e6）
fix-spot-price-as-a-share-of = 抢占式价格占按量价格的比例，0.001–1
fix-images-per-second-per-cpu-core = 每个 CPU 核每秒处理的图像数，0.001–1e6
fix-hours-billed-before-the-first-step = 第一步之前计费的小时数，0–720
fix-dp-overlap-must-be-in-0 = dp_overlap 应在 [0, 1] 内，fragmentation 应在 [0, 1) 内
fix-hours-between-checkpoints-e-g-1 = 两次检查点之间的小时数，1/60（一分钟）到 8760，例如 1
fix-a-share-in-0-1-1 = [0, 1] 之间的比例：同步保存为 1，异步检查点更低
fix-failure-rate-per-gpu-hour = 每 GPU 小时的中断次数，0–1
fix-failure-restart-minutes = 中断后重新开始训练的分钟数，0–10080
fix-must-all-be-finite-numbers = 必须全部是有限数
fix-must-be-a-positive-integer = 必须是正整数
fix-cannot-exceed-num-hidden-layers = 不能超过 num_hidden_layers
fix-set-head-dim-or-a-hidden = 设置 head_dim，或使 hidden_size 能被 num_attention_heads 整除

## Catalog findings (catalog/validate.rs)
finding-memory-mib = 每卡 { $value } GiB 看起来是 MiB：memory_gib 请以 GiB 为单位（例如 80 GB 的卡填 80）
finding-ram-mib = { $value } GiB 看起来是 MiB：ram_gib 请以 GiB 为单位
finding-gpu-memory-mib = { $value } 看起来是 MiB：该字段是每卡的 GiB 数（该芯片有 { $chip } GiB）
validate-summary = 已检查 { $files } 个文件：{ $errors } 个错误，{ $warnings } 个警告
fix-prompt-beyond-context = { $model } 最多读取 { $ctx } 个 token（max_position_embeddings）：请缩短提示或输出

## HF config.json keys (model/hf.rs)
hf-at-least-one = 至少为 1
hf-whole-number = 应为 0 到 { $max } 之间的整数
hf-bool = 应为 true 或 false
hf-string = 应为字符串
hf-rotary-fraction = 应为大于 0、不超过 1 的数（每个头的宽度中 RoPE 旋转的比例，例如 0.5）
hf-layer-types = 应为 "sliding_attention" 或 "full_attention" 的列表，每层一项（共 { $layers } 层）；其他注意力类型（chunked、linear）尚未建模
hf-unmodelled-linear-attention = 线性注意力层（Qwen3-Next 的 Gated DeltaNet、MiniMax 的 lightning attention、Kimi 的 KDA）未建模：这些层保存固定大小的状态而非 KV 缓存，权重也不同，把每一层都按 softmax 注意力 + MLP/MoE 估算会得到另一个模型的参数量、KV 缓存和 FLOPs；无法估算此配置
hf-unmodelled-recurrence = 循环层（RecurrentGemma 的 RG-LRU、RWKV、xLSTM）未建模：gpuplan 没有这种层，把每一层都按注意力 + MLP/MoE 估算会得到另一个模型的参数量、FLOPs 和显存；无法估算此配置
hf-unmodelled-convolution = 短卷积层（LFM2）未建模：gpuplan 没有这种层，把每一层都按注意力 + MLP/MoE 估算会得到另一个模型的参数量、FLOPs 和显存；无法估算此配置
hf-unmodelled-sparse-attention = DeepSeek 稀疏注意力（DeepSeek-V3.2 的索引器：自有的 key 缓存，只对前 `index_topk` 个 token 做注意力）未建模：按稠密 MLA 估算会得到另一个模型的 KV 缓存和注意力 FLOPs；无法估算此配置（DeepSeek-V3 有预置模型）
hf-unmodelled-llama4 = Llama 4 的层排布未建模（每四层中三层为分块局部注意力；带共享专家的 MoE 层与宽度为 `intermediate_size_mlp` 的稠密层交替）：按普通 MoE 解码器读取会得到另一个模型的参数量（Maverick 的 400B 读成 779B）和 KV 缓存；无法估算此配置
fix-workload-table-not-list = `{ $key }` 应为写明键名的表，而不是列表（列表里的值会按位置读取，或成为重复的 `[[{ $key }]]` 表）：请写一个 `[{ $key }]` 表（JSON 中为对象）并写明各键名，见 docs/workload-format.md
fix-model-empty = 空名称不是模型：请给出预置模型名（`gpuplan models` 列出全部），或 HuggingFace 的 config.json（--model-config、任务文件的 `model_config` 或其 `[config]` 表）
hf-rope-scaling = 应为含类型和正数 factor 的对象，例如 {"{"}"rope_type": "yarn", "factor": 4.0, "original_max_position_embeddings": 32768{"}"}
hf-layer-list = 应为层序号的列表，例如 [0, 1]
hf-divisible-by-heads = 必须能被注意力头数（{ $heads }）整除，或给出 { $width_key }
hf-divisible-by-heads-only = 必须能被注意力头数（{ $heads }）整除：此模型族按头数均分该宽度（没有头宽键），请修改头数或宽度
hf-bad-key = { $why }（config.json 键 `{ $key }`）
hf-top-k-over-experts = 每个 token 选中的专家数不能多于该层的专家数（`{ $experts_key }` = { $experts }）：请把 `{ $experts_key }` 设为模型的路由专家数；稠密模型则删去每 token 专家数这个键
hf-moe-count-unread = 描述的是混合专家（MoE）模型，但 gpuplan 只从 `num_local_experts`、`num_experts` 或 `n_routed_experts` 读取路由专家数（每 token 专家数从 `num_experts_per_tok` 读取）：缺少它们时模型会被当作稠密模型估算，参数量只算到一小部分。请按模型的实际值填写这些键；稠密模型则删去此键
fix-a-latency-target-in-seconds-more = 以秒计的时延目标，大于 0 且不超过 3600（例如 --ttft 2 --tpot 0.06）
fix-per-node-network-bandwidth-in-gbit = 每节点网络带宽（Gbit/s），例如 100 或 800
fix-host-vcpus = 每节点的硬件线程（vCPU）数，1 到 65536，例如 2 颗 64 核 CPU 开启 SMT 时为 256
fix-the-shapes-describe-more-than-1e15 = 这些形状对应超过 1e15 个参数：请检查 hidden_size、num_hidden_layers、intermediate_size 和专家数量
fix-tensorflow-and-jax-have-no-maintained = TensorFlow 和 JAX 没有维护中的昇腾训练后端
fix-mindspore-and-paddlepaddle-training-on-amd = 上游不支持在 AMD Instinct 上用 MindSpore 和 PaddlePaddle 训练
finding-empty-region = `{ $field }` 为空：请给出地域 ID（例如 cn-shanghai）
finding-empty-instance = `{ $field }` 为空：请给出该价格对应的实例规格 ID
finding-empty-gpu = `{ $field }` 为空：请给出加速卡 ID（`gpuplan catalog gpus`）
finding-empty-name = `{ $field }` 为空：请给出显示名称
finding-array-of-tables = 必须是表数组（`[[{ $name }]]` 块）
finding-value-fix = { $why }：{ $fix }
finding-fix-family-list = 请给出家族名称的列表
finding-fix-alias-table = 请给出 "原始名称" = "GPU ID" 形式的表
finding-not-a-table = 不是目录中的表（应为 gpu、instance、price、storage、wrong、hide_families 或 gpu_aliases）；已忽略
finding-gpu-unmapped = 芯片 `{ $chip }` 没有对应的目录 GPU：请添加一条 gpu_aliases；该实例不参与规划
fix-experts-per-token = 应在 1 到专家数（{ $experts }）之间
fix-describeprice-needs-instance = DescribePrice 响应没有给出实例：请传入 --instance TYPE 和 --billing on-demand|monthly|spot
finding-empty-id = `{ $field }` 为空：请为该行给出 ID
finding-not-positive = { $value } 无效：请给出以 { $unit } 计的正数
finding-not-zero-or-positive = { $value } 无效：请给出以 { $unit } 计的零或正数
finding-duplicate = 本文件中 { $what } 重复：保留第一行，请删除这一行
finding-gpu-count = { $value } 不是有效的 GPU 数量：请给出 1 到 { $max }（小于 1 的小数表示 vGPU 切片）
finding-gpu-unknown = `{ $gpu }` 不在 GPU 表中（`gpuplan catalog gpus`）：添加一行 [[gpu]] 或使用表中已有的 ID
finding-not-a-price = { $value } 不是有效价格：零、负数和非有限值都无效（价格未知时请省略）
fix-needs-a-non-empty-source-and = 需要非空的 source 和 as_of 日期（YYYY-MM 或 YYYY-MM-DD）
fix-contains-control-characters-use-printable-text = 含有控制字符：请使用可打印文本
fix-not-given-memory-per-device-gib = 未给出：用该加速卡做规划需要每卡显存（GiB）
fix-no-bf16-or-fp16-peak-give = 没有 bf16 或 fp16 峰值：请给出 tflops.bf16 或 tflops.fp16（稠密 TFLOP/s），估算该加速卡的时间需要它
fix-must-be-confirmed-likely-or-unverified = 必须是 confirmed、likely 或 unverified
fix-a-fractional-gpu-count-is-a = 小数的 gpu_count 表示 vGPU 切片：请设置 vgpu = true
fix-an-estimate-must-say-how-it = 估算价必须说明推算方法（method = "..."）
fix-exceeds-max-capacity-gib = 超过 max_capacity_gib
fix-a-wrong-name-row-needs-a = 错误名称行需要非空的 name
fix-the-raw-chip-name-is-empty = 原始芯片名为空
fix-lora-no-linears = { $model }（{ $type }）以总量描述，没有可适配的线性层：请用 --task full
fix-lora-unknown-target = { $model } 没有这个名字的线性层；可用的名字：{ $names }，或 all-linear
fix-lora-fused-pair = { $model } 把 { $present } 与 { $missing } 融合为一个参数（transformers 5 的 `gate_up_proj`），PEFT 拒绝只适配其中一个：请两个都写，或都不写；可用的名字：{ $names }，或 all-linear
fix-lora-modules-to-save = 不是此处 PEFT modules_to_save 可训练的模块；可用的名字：{ $names }（词嵌入或 LM head）
fix-lora-fused-qkv = fused_qkv 由推导得出，不可选择：{ $model } 在 framework = "{ $framework }" 和这些 targets 下为 { $fused }（megatron 下 q/k/v 共用一个 adapter，GPT-2 的 c_attn 等融合模块亦然）；删除该键或设为 { $fused }
fix-filter-gpus = 每个实例规格的 GPU 数，大于 0 且不超过 1024（例如 8；vGPU 分片：0.25）
fix-filter-min-gpu-memory = 每块 GPU 的显存 GiB，0 到 10000（例如 80）
fix-filter-max-price = 每小时的人民币价格（--billing monthly 时为每月），大于 0 且不超过 1e12
fix-model-parallel-divides-gpus = 必须能整除 GPU 总数（{ $gpus }）：请调整 tp/pp/cp 或 GPU 数量
fix-global-batch-multiple = 必须是 micro-batch × 数据并行规模 = { $mb } × { $dp } = { $per } 的整数倍
fix-cp-divides-seq = 序列（{ $seq } 个 token）必须能均分为 2 × cp 段，每个上下文并行 rank 两段（Megatron-Core 与 TE 的负载均衡切分，torchtitan 所用 PyTorch context_parallel 亦然）：请选使 seq_len 为 2 × cp 倍数的 cp
fix-deepspeed-pp-zero = DeepSpeed 的流水线引擎只支持 ZeRO-0 或 ZeRO-1（其源码断言 ZeRO-2、ZeRO-3 与流水线并行不兼容），而此布局有 { $pp } 个流水线阶段：请设 parallel.zero = 1（--zero 1），或设 parallel.pp = 1 以使用 ZeRO-2/3 切分
fix-json-comment = 不是有效的 JSON：此处开始一段注释（`//` 或 `/* */`），而 JSON 不允许注释（JSONC 或 JSON5 编辑器可能加入）；请删去注释后重新读取
fix-case-elapsed-metric = 只有 gpu_hours 用例能比较实际耗时：请删去 [elapsed] 或设 metric = "gpu_hours"
fix-case-stages-metric = 只有 gpu_hours 用例能添加阶段：请删去 [[stages]] 或设 metric = "gpu_hours"
fix-case-steady-metric = 只有 gpu_hours 用例需说明其小时数的口径：请删去 steady_state 或设 metric = "gpu_hours"
fix-case-steady-elapsed = 一个来源要么按稳态速率计，要么按实际耗时计：steady_state 与 [elapsed] 只能保留其一
fix-case-model = 请给出 `model = "预置模型名"` 或 [config] 表
fix-case-unknown-metric = 未知的{ $kind ->
    [training] 训练
   *[inference] 推理
}指标
note-quantized-name = 这是 { $format } 量化检查点的名称，而预置模型均为 16 位：请以{ $preset ->
    [none] 预置模型
   *[other] {" "}`-m { $preset }`{" "}
}加 `--weights { $weights }` 估算，或用 `--model-config` 给出该检查点自己的 config.json（会读取其中的 quantization_config）
note-quantized-name-config = 这是 { $format } 量化检查点的名称，而预置模型均为 16 位：请用 `--model-config` 给出该检查点自己的 config.json（其 quantization_config 给出格式与分块大小）
fix-virtual-stages = 交错流水线需要 pp ≥ 2，且每个虚拟阶段至少有 { $layers } 层中的一层（pp × virtual_stages ≤ { $layers }）
fix-moe-a2a-overlap = pp ≥ 2 时，EP all-to-all 重叠需要 virtual_stages ≥ 2（Megatron-Core 只在交错流水线调度中运行它）
fix-moe-ep-settings-need-ep = 专家 all-to-all 设置（moe_a2a_overlap、moe_dispatcher）只作用于 MoE 模型的专家并行：请在 MoE 模型且 ep ≥ 2 时使用，或去掉它们
fix-moe-a2a-overlap-allgather = EP all-to-all 重叠只能与 alltoall、deepep 或 hybridep 分发器一起使用（Megatron-Core 在 allgather 下拒绝它）：请把 moe_dispatcher 设为其中之一，或去掉 moe_a2a_overlap
fix-zero1-broadcast-needs-zero1 = per_rank 广播用于分片优化器回传参数：请在 zero = 1 或 2 时使用，或去掉它
fix-fp32-grad-pass = fp32_grad_pass 表示 DeepSpeed BF16_Optimizer 的梯度拷贝：请在 DeepSpeed 栈上（Megatron-DeepSpeed 用 framework = "megatron"，或 deepspeed = true）且 precision = "amp_bf16"、zero = 1 时使用，或去掉它
fix-fp32-grad-pass-unfused-wgrad = fp32_grad_pass 与 gradient_accumulation_fusion = false 都会把每个 16 位梯度加到 fp32 梯度上（DeepSpeed 的 BF16_Optimizer、Megatron 的 DDP 钩子）：保留所用框架实际执行的那一个，去掉另一个
fix-fp32-grad-pass-sharding = fp32_grad_pass 表示 DeepSpeed BF16_Optimizer：它总是自行把 fp32 主权重和优化器状态按数据并行 rank 切分（自带的 ZeRO-1，此时 DeepSpeed 配置中 zero_optimization.stage 为 0），且不支持 CPU offload：请设 zero = 1，并去掉 offload_optimizer 和 offload_params，或去掉 fp32_grad_pass
fix-fsdp-offload-all-cores = fsdp_offload_all_cores 表示 torchtune 为 FSDP CPU offload 的主机优化器步设置的线程数：请在 offload_params = true 且不用 DeepSpeed、Megatron 时使用，或去掉它
fix-fsdp-version-values = fsdp_version 表示 torch FSDP 的实现：1（FullyShardedDataParallel：HF Trainer、accelerate 默认）或 2（fully_shard：torchtitan、torchtune、accelerate 设 fsdp_version: 2 时）
fix-fsdp-version-deepspeed = fsdp_version 选择 torch FSDP 的实现，而 deepspeed = true 时由 DeepSpeed ZeRO-3 分片：请去掉 fsdp_version，或设 deepspeed = false
fix-last-stage-layers = 需要 pp ≥ 2，并给其余每个阶段至少留下 { $layers } 层中的一层
fix-first-stage-layers = 需要 pp ≥ 2，并给其余每个阶段至少留下 { $layers } 层中的一层
fix-stage-split-middle = Megatron-Core 会把指定首/末阶段之后剩下的层（{ $layers } 层中的 { $rest } 层）均分到其余 { $stages } 个阶段：最接近且能整除的层数是 { $near }
fix-pp-even-split-megatron = 未指定首/末阶段层数时，Megatron-Core 在每个阶段构建 层数 / pp 层，pp 不能整除层数时会直接报错退出（transformer_block.py 的 get_num_layers_to_build 断言层数能被 pp 整除）：{ $pp } 不能整除 { $layers } 层。请选能整除的 pp（{ $divisors }），或写明切分：parallel.last_stage_layers = { $last }（其余每个阶段 { $per } 层）或 parallel.first_stage_layers
fix-pp-even-split-other = 在 framework = "{ $framework }" 下，流水线框架按各自的规则把 { $layers } 层切到 { $pp } 个阶段，而 { $pp } 不能整除层数。请选能整除的 pp（{ $divisors }），或用 parallel.first_stage_layers 和 parallel.last_stage_layers 写明你的框架实际的切分（中间阶段平分其余层）：torchtitan 的默认切分（generate_split_points）是 first_stage_layers = { $first }、last_stage_layers = { $last }；DeepSpeed 的 PipelineModule 默认按参数量均衡（嵌入层与输出头也算在内），除非 partition_method = 'uniform'
fix-stage-split-virtual = 有 { $vp } 个虚拟阶段时，Megatron-Core 要求指定的首/末阶段层数是 { $vp } 的倍数
fix-stage-split-virtual-middle = Megatron-Core 要求每个中间 rank 的 { $per } 层能均分到 { $vp } 个虚拟阶段：请选能整除 { $per } 的 virtual_stages，或换一组首/末阶段层数
fix-pipeline-accounting-megatron = 这是 Megatron-Core 的开关：请设 training.framework = "megatron"，其他框架请改用 first_stage_layers/last_stage_layers
fix-pipeline-accounting-with-stages = Megatron-Core 不允许它与 first_stage_layers/last_stage_layers 同时设置：两种切分写法只保留一种
fix-pipeline-accounting-divides = 把嵌入层/损失计为一层后，{ $n } 层必须能均分到 pp { $pp } 个阶段，且每个 rank 的层数能均分到 { $vp } 个虚拟阶段：请选能整除的 pp（和 virtual_stages），或改用 first_stage_layers/last_stage_layers
finding-gpu-count-fraction = { $value } 不是整数张 GPU
finding-vcpu-range = { $value } 个 vCPU 超出范围：请给出 1 到 1024
finding-price-implausible = { $value } 元不是合理的实例价格
finding-price-no-instance = 目录中没有实例规格 `{ $id }`：请先添加它的 [[instance]] 行
finding-price-provider = 实例规格 `{ $id }` 属于 { $owner }，不属于 { $asked }
finding-storage-price = { $value } 不是有效价格：零、负数和非有限值都无效
finding-alias-unknown = 映射到的 `{ $id }` 不在 GPU 表中

# 健壮性扫描（tools/hostile_sweep.py）：多模态配置、并行布局、服务长度。
fix-hf-table-object = 必须是 JSON 对象（多模态 config.json 的 `{ $key }` 表），或不写
fix-vision-config-shape = 需要视觉编码器的宽度（hidden_size 或 embed_dim）和层数（num_hidden_layers 或 depth）
fix-vision-heads-divide = 必须能整除编码器宽度（{ $d }）
fix-vision-patch-image = 大于图像尺寸（{ $image } 像素）：patch_size 不能超过 image_size
fix-vision-mlp-ratio = 应为不超过 1000 的正数（MLP 宽度 ÷ 编码器宽度）
fix-vision-too-large = 视觉编码器的形状对应超过 1e15 个参数：请检查 hidden_size、num_hidden_layers、intermediate_size、image_size 和 patch_size
fix-cross-attention-layers = 应为互不相同、小于 num_hidden_layers（{ $layers }）的解码层编号列表
fix-no-flops-per-sample = 该模型没有有来源的每样本 FLOPs，无法估算时间
fix-no-peak-for-precision = 该芯片在此精度下没有有来源的峰值 FLOP/s，无法估算时间（内存仍可估算）
fix-intra-gbs = 每块 GPU 的单向 GB/s，例如 NVLink 3 为 300
fix-estimate-not-a-number = 估算结果出现了非有限或负的数值；请检查该模型的输入（并报告：这是缺陷）
fix-kv-needs-transformer = KV 缓存估算需要 Transformer 结构；该模型只给出了总量
fix-no-memory-size = 该芯片没有有来源的显存容量；请在用户目录中补上 memory_gib
fix-latency-needs-transformer = 延迟估算需要 Transformer 结构
fix-solve-needs-transformer = --solve 需要 Transformer 结构
fix-ep-needs-moe = 专家并行只适用于 MoE 模型；请设 ep = 1
fix-totals-data-parallel-only = 只给出总量的模型（CNN、UNet）只能数据并行训练：请设 tp = pp = 1
fix-pp-at-most-layers = 每层最多一个流水线阶段：该模型共 { $layers } 层
fix-ep-divides-experts = 必须能整除专家数（{ $experts }）
fix-tp-inside-node = 张量并行限于单个节点内：此处最多 { $n }
fix-ep-divides-tp-dp = 必须能整除 tp × 数据并行规模 ÷ 专家张量并行规模（{ $n }；Megatron-Core 下专家张量并行规模为 tp，整专家放置时为 1）：专家分布在各 EP rank 上，其状态再在其余的专家数据并行 rank 上分片
fix-tp-needs-gpus = 至少需要 { $tp } 块 GPU；当前硬件只有 { $gpus } 块
fix-kv-heads-divide = 必须能整除 num_attention_heads（{ $heads }）
fix-max-model-len-context = { $model } 的上下文为 { $ctx } 个 token（max_position_embeddings）；vLLM 不接受更长的 max_model_len
fix-max-model-len-request = 比单个请求（{ $input } 个提示 token + { $output } 个输出 token）还短：引擎会拒绝这样的请求；请至少设为 { $need }，或减少每个请求的 token
fix-images-no-vision = { $model } 没有视觉编码器（没有 vision_config）：请用 0，或使用多模态配置
fix-images-exceed-context = { $n } 张图像（每张 { $per } 个 token）+ { $text } 个文本 token 超过了 { $ctx } 个 token 的上下文：请减少图像数量或缩小图像
fix-keep-16bit-layers = { $model } 共有 { $layers } 个解码层：保留为 16 位的层数不能超过这个数
fix-sequences-per-batch = 每批序列数，1–16777216
fix-engine-version = 版本号写作 MAJOR.MINOR[.PATCH]，例如 0.6.4
fix-fp8-params-megatron = FP8 参数（Transformer Engine fp8_model_init、Megatron --fp8-param-gather）需要 precision = "fp8" 且 framework = "megatron"：请删除 fp8_params，或同时设置这两项
fix-fused-classifier-clash = fused_classifier 是 llm.c 的分类器内核：整个词表在一个卡上计算、训练全部参数、本身就是损失：{ $kind ->
    [tp] 请设 tp = 1（llm.c 没有张量并行，其内核没有按词表并行的归约）或去掉 fused_classifier
    [task] 请用 task = "full" 或 "pretrain"（llm.c 不支持 LoRA）或去掉 fused_classifier
    [framework] 请设 framework = "megatron"（融合内核配置，代表 llm.c 自己的 C/CUDA 内核；即时执行配置描述的是 llm.c 没有的 PyTorch 模块）或去掉 fused_classifier
    [pp] 请设 pp = 1（llm.c 没有流水线并行：train_gpt2.cu 只做数据并行）或去掉 fused_classifier
    [virtual_stages] 请设 virtual_stages = 1（llm.c 没有流水线并行）或去掉 fused_classifier
    [cp] 请设 cp = 1（llm.c 没有上下文并行）或去掉 fused_classifier
    [ep] 请设 ep = 1（llm.c 没有专家并行）或去掉 fused_classifier
    [zero] 请设 zero = 0 或 1（llm.c 的 -z 只接受 0 或 1：llmc/zero.cuh 的 `set_zero_configs` 不支持 ZeRO-2 与 ZeRO-3，会退回 ZeRO-0）或去掉 fused_classifier
    [offload_optimizer] 请设 offload_optimizer = false（llm.c 把全部状态留在 GPU 上）或去掉 fused_classifier
    [offload_params] 请设 offload_params = false（llm.c 把全部状态留在 GPU 上）或去掉 fused_classifier
   *[other] 请去掉 { $field } 或 fused_classifier（两者是不同的损失内核）
}
fix-foreach-buffers-without-foreach = optimizer_foreach_buffers 是 foreach 版 AdamW 更新步的临时缓冲数，而此配置用的是融合版 AdamW（optimizer_foreach 未开启）：请设 optimizer_foreach = true，或删除 optimizer_foreach_buffers
fix-optimizer-in-backward-accum = optimizer_in_backward 在每个梯度累加完成后立即执行更新并释放该梯度，梯度累积（{ $accum } 步）因此无处累加；torchtune 拒绝这种组合（"Gradient accumulation is not supported with optimizer in bwd"）：请设 grad_accum = 1（同样的全局 batch 改用更大的 micro_batch），或设 optimizer_in_backward = false
fix-main-grads-megatron = main_grads 是 Megatron-Core 主梯度的数据类型（grad_reduce_in_fp32）：请设置 framework = "megatron"，或删除 main_grads
fix-optimizer-dtype-megatron = optimizer_dtype 是 Megatron/NeMo 优化器主权重与动量的数据类型（apex DistributedFusedAdam 的 dtype，NeMo 的 optim.dtype）：请设置 framework = "megatron"，或删除 optimizer_dtype
fix-cross-entropy-fusion-megatron = cross_entropy_loss_fusion 是 Megatron-Core 融合词表并行交叉熵的开关（--cross-entropy-loss-fusion）：请设置 framework = "megatron"，或删除 cross_entropy_loss_fusion
fix-grad-accum-fusion-megatron = gradient_accumulation_fusion 是 Megatron 权重梯度直接累加到主梯度的开关（--no-gradient-accumulation-fusion 关闭它）：请设置 framework = "megatron"，或删除 gradient_accumulation_fusion
fix-unfused-score-bias = unfused_score_bias 描述 Megatron 的 eager 注意力中单独的缩放与偏置相加（ModelLink 的 ALiBi 路径）：请在 framework = "megatron" 且 attention = "eager" 时使用，或去掉它
fix-filter-gpu-word = 加速卡 ID 或名称前缀，例如 A100（`gpuplan catalog gpus` 可列出）
fix-filter-region-word = 地域 ID，例如 cn-shanghai（不限地域时请去掉该参数）
fix-regions-word = --region：地域 ID，例如 cn-shanghai（不限地域时请去掉该参数）
fix-layer-overhead-max = 每个解码层的固定 GPU 时间（秒），须小于 { $max }（默认 32e-6）：torchao 在 A100 上的 int4 实测中，32 层的一个 token 总共只用 { $token }，更长的固定时间会让权重读取没有时间
fix-fp8-weights-chip = { $gpu } 在 { $engine } 下无法加载 FP8 权重（FP8 需要 FP8 计算单元；只有 vLLM 和 SGLang 能在 CUDA Ampere 及更新的 GPU 上通过 FP8 Marlin 以 W8A16 方式运行 FP8）：请用 --weights int8 或 bf16
fix-quant-bool = 必须是 true 或 false
fix-quant-bnb-bits = load_in_4bit 与 load_in_8bit 必须恰有一个为 true（transformers 的 BitsAndBytesConfig 要求如此）
fix-quant-bnb-type = 必须是 nf4 或 fp4（bitsandbytes 的两种 4 位类型）
fix-quant-skip-modules = 必须是模块名列表，例如 ["lm_head"]
fix-serve-unread-checkpoint = 不是 gpuplan 能读取的检查点格式（可读取：{ $known }），因此无法得知服务时权重的大小；请用 `--weights`（或工作负载的 `[{ $table }] weights`）指定服务格式，例如用 `--weights bf16` 表示反量化后的 16 位副本
fix-quant-block = 必须是两个正整数，例如 [128, 128]
fix-quant-group = 必须是每组权重数（正整数，例如 128），或 -1 表示每通道一个缩放因子
fix-quant-bits = 必须为 4 或 8（整数仅权重量化），或 type 为 float 时为 8（FP8）；其他位宽未建模
fix-quant-awq-bits = 必须为 4：AWQ 检查点只存储 4 位权重（vLLM 与 SGLang 的 AWQConfig 只支持 4 位权重量化）；8 位检查点应为 GPTQ 或 compressed-tensors 格式
fix-quant-mixed = 与其他组的权重格式不同；未对混合格式的检查点建模：删除 `quantization_config` 并指定 `weights`
fix-weights-format-runs = { $engine } 在 { $gpu } 上没有该格式的内核（vLLM 从计算能力 8.0 起支持 MXFP4，SGLang 和 TensorRT-LLM 从 9.0 起，static 引擎不支持）：用 `weights = "bf16"` 反量化后服务（专家权重显存翻倍），或换引擎或芯片
fix-cp-te-chip = Megatron 的上下文并行使用 Transformer Engine 的注意力，它在 { $gpu } 上没有可用后端（FlashAttention 和 cuDNN 融合注意力需要计算能力 8.0，非融合注意力不支持上下文并行）：请用 cp = 1（靠重计算或更多流水线阶段省显存）、基于 torch 的框架（torchtitan 的环形注意力可用内存高效内核），或 Ampere 及更新的 GPU
fix-model-unknown = 用 `gpuplan models` 列出预置模型，或给出该模型的 HuggingFace config.json：--model-config 路径（工作负载键 `model_config`，或内联的 `[config]` 表及其键）
fix-weights-int4-chip = { $engine } 在 { $gpu }（计算能力 { $cc }）上没有 int4 内核（需要 { $min }：vLLM 和 SGLang 从 6.0 起加载 GPTQ、从 7.5 起加载 AWQ、从 8.0 起用 Marlin；TensorRT-LLM 的 AWQ/GPTQ GEMM 需要 7.5；static 引擎的 tinygemm 需要 8.0）：请用 `weights = "int8"` 或 16 位权重、vllm 引擎（GPTQ），或计算能力 { $min } 及以上的芯片
fix-weights-awq-chip = 该检查点为 AWQ 格式，{ $engine } 仅在计算能力 7.5 及以上加载（AWQConfig.get_min_capability；{ $gpu } 为 { $cc }）：请改用该模型的 GPTQ int4 版本（其 exllama 内核从 6.0 起可加载）、16 位权重（`weights = "bf16"`），或计算能力 7.5 及以上的芯片
fix-weights-int4-trtllm-group = TensorRT-LLM 的细粒度 int4 GEMM 只接受 64 或 128 的分组（fpA_intB_gemm_template.h：`Only group size 64 and 128 supported for fine grained kernels.`）：请用 int4-g64 或 int4-g128（int4-g{ $hidden } 为逐通道），或改用 vllm 或 sglang 引擎
fix-weights-experts-only = { $model } 没有路由专家，而 MXFP4 只量化路由专家（其余保持 16 位）：要更小的副本请用 --weights int4、int8 或 fp8，或用 bf16
fix-weights-word = 请用 `--weights` 接受的词：bf16、fp16、fp8、int8、int4（AWQ/GPTQ 4 位、分组 128；也可写 awq、gptq）、int4-g<N>（每 N 个权重一组，N 为 1 到 { $max }）、mxfp4{ $table ->
    [inference] 、fp32
   *[other] {""}
}；或写成权重格式表：{"{"} format = "int4", group = 128 {"}"}、{"{"} format = "bits", bits_per_weight = 4.5 {"}"}（每权重位数；bitsandbytes 检查点见 docs/workload-format.md）
fix-weights-int4-group = int4 的分组必须整除每个线性层的输入宽度，而 { $model } 有一个输入为 { $width } 的线性层，{ $group } 不能整除它（{ $engine ->
    [trtllm] TensorRT-LLM 的 int4_awq 量化脚本 quantize.py 无法放置这些分组
    [static] 任何引擎的加载器都不会拆分一个分组
   *[other] vLLM 的 GPTQ/AWQ 加载器会拒绝，SGLang 同样
}）：请用 { $valid } 之一（int4-g{ $hidden } 为逐通道量化）
fix-stage-layers-total = 所给的首/末阶段层数共 { $taken } 层，模型共 { $layers } 层；{ $others ->
    [0] 没有其他阶段时，两者之和必须正好是 { $layers }
   *[other] 必须给其余 { $others } 个阶段每个至少留下一层
}
fix-tp-int4-group = 在 TP { $tp } 下，{ $model } 每个卡读某个线性层 { $width } 个输入中的 { $slice } 个，{ $engine ->
    [trtllm] TensorRT-LLM 的 int4 量化会拒绝：int4 分组 { $group } 必须整除它（quantize.py --qformat int4_awq --tp_size 在这种切分下失败，见 NVIDIA/TensorRT-LLM 的 issue #1636 与 #2445）
    [static] 没有引擎能加载：int4 分组 { $group } 必须整除它（跨两个卡拆开的分组在哪个卡上都没有缩放系数）
   *[other] { $engine ->
        [sglang] SGLang 的 int4 加载器（沿用 vLLM 的 AWQ/GPTQ-Marlin 方法）会拒绝
       *[other] vLLM 的 int4 加载器会拒绝
    }：int4 分组 { $group } 必须整除它（GPTQ/AWQ：`The input size is not aligned with the quantized weight shape`），且 Marlin 要求它是 128 的倍数（`is not divisible by min_thread_k = 128`；vLLM 0.6 拒绝加载，之后的版本退回未优化的 AWQ/GPTQ 内核，本估算不对其速度建模）
}：{ $tps ->
    [0] TP 16 以内没有能加载它的取值
   *[other] 请用 TP { $tplist }
}{ $groups ->
    [0] {""}
   *[other] ，或在 TP { $tp } 下用 { $valid } 之一（int4-g{ $hidden } 为逐通道量化）
}，或用为张量并行补齐过宽度的检查点（Qwen 的 72B AWQ/GPTQ 版本把 29568 补到 29696），用 --model-config 给出其 config.json
fix-an-efficiency-range = 一个效率值，0.001–1
fix-nccl-version-release = 形如 MAJOR.MINOR[.PATCH] 的版本号，例如 2.19.3
fix-optimizer-foreach-buffers = foreach AdamW 一步中与优化器状态同大小的临时张量个数：1（PyTorch 2.1 及以后）或 2（PyTorch 2.0）
fix-weights-row = 每个 fp32 行缩放因子对应的 int8 权重数（线性层的输入特征数），例如 4096
fix-image-size-pixels = 像素，1–65536（例如 1024）
fix-keep-16bit-layers-count = 解码器层数，0 或更多
fix-denoising-steps = 每张图像的去噪步数，1–10000
fix-case-unavailable = 案例 { $case }：无法计算：{ $why }
case-why-no-layout = 在这个全局批大小下，没有能放进该集群的并行布局
case-why-needs-transformer = 需要 Transformer 结构的模型
case-why-no-tokens = 没有给出 token 数
case-why-elapsed-no-checkpoint = [elapsed] 需要估算给出的检查点大小（数据路径）
