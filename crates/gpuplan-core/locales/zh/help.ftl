# 每个命令和选项的帮助（`--help`、`gpuplan man`、补全脚本）。
# 键与 en/help.ftl 相同（en/help.ftl 由 crates/gpuplan/src/cli.rs 中的 clap 定义生成）；
# 英文改动后，请同步修改这里的译文。

help-about = 为深度学习任务挑选该租用的云 GPU/NPU 实例，并给出可核算的数字。
help-about-accuracy = 运行已发布的验证用例，报告每个用例的误差
help-about-catalog = 加速卡与实例目录
help-about-catalog-gpus = 加速卡（GPU/NPU）及其来源
help-about-catalog-import = 把云厂商 API 的响应导入你的用户目录（原子写入）
help-about-catalog-instances = 按条件筛选实例规格（思路同 ec2-instance-selector）
help-about-catalog-show = 完整显示一个实例规格（或 GPU）及其价格；说明常见的错误名称
help-about-catalog-validate = 检查目录文件（默认：内置目录和你的用户目录）
help-about-completions = 输出 shell 补全脚本：`gpuplan completions bash > ~/.local/share/bash-completion/completions/gpuplan`
help-about-estimate = 估算一个作业在给定硬件上的显存、时间和通信
help-about-export = 为保存的方案（`gpuplan plan --format json > plan.json`）写出启动包：推理引擎配置、Kubernetes 作业、SkyPilot 任务和云命令行（docs/export.md）
help-about-man = 输出由这些定义生成的 man 手册页（roff）：`gpuplan man > gpuplan.1`
help-about-models = 列出内置模型预设，或显示其中一个
help-about-models-show = 预设（或用 --config 指定的 config.json）的结构与参数量明细
help-about-plan = 按成本和时间为任务排列云实例方案，并说明理由
help-about-prices = 价格及其类型、地域和时效（`--by-gpu` 跨云厂商比较同一芯片）；`prices fetch 云厂商` 从云厂商的价格 API 获取当天价格
help-about-prices-fetch = 用你的凭证（环境变量，否则云厂商命令行工具的配置）从价格 API 获取当天价格，写入 <配置目录>/catalog/prices-云厂商.toml
help-about-serve = 本地网页和 JSON HTTP API（`/api/v1`），提供方案、估算和目录。服务器没有身份验证：除非给出 --allow-remote，只监听本机回环地址
help-accuracy--format = 输出格式：table、json 或 markdown（markdown 即 docs/accuracy.md：未给 --lang 时为英文）
help-arg-activation-offload = 把保存的激活值卸载到主机内存（torchtune enable_activation_offloading）
help-arg-adapter-dtype = LoRA 适配器（及其梯度和优化器状态）的数据类型：fp32（PEFT 默认）或 bf16
help-arg-allow-remote = 允许 --bind 使用非回环地址。服务器没有身份验证和 TLS：能访问该地址的任何人都能使用它
help-arg-attention-span = 打包序列按文档计算注意力（FlashAttention varlen、TE THD）：每个查询关注的键数，即打包文档长度的 E[l²]/E[l]，单位 token（默认：整个序列）
help-arg-attention = eager、flash（FlashAttention-2，Ampere 及以后）或 mem_efficient（PyTorch SDPA）（默认：flash；不支持的芯片上为 mem_efficient）
help-arg-autocast = 按 torch.autocast 计算显存（HF Trainer 不用 DeepSpeed 时）：fp32 权重和梯度加 bf16 权重副本，没有主副本；不加此项：DeepSpeed/Megatron 方式，bf16 权重加 fp32 主副本
help-arg-batch = 推理：解码批中的并发序列数（默认：1）
help-arg-bind = 监听的地址和端口。回环地址（127.0.0.1、::1）以外的地址还需要 --allow-remote
help-arg-budget = 预算，单位元（训练为整个作业，推理为每月）（默认：无）
help-arg-by-gpu = 跨云厂商比较同一芯片的每卡时价格
help-arg-bytes-per-sample = 每个样本在存储上的字节数，用于数据通路（默认：文本每 token 4 字节；图像为模型输入大小）
help-arg-cases = 用例文件所在目录（默认：程序内置的用例）
help-arg-catalogs = 额外的目录文件，叠加在内置目录和配置目录中的用户目录之上（$GPUPLAN_CONFIG_DIR，否则 $XDG_CONFIG_HOME/gpuplan，否则 ~/.config/gpuplan）
help-arg-chips = 允许的芯片系列（逗号分隔）：nvidia、ascend、amd（默认：nvidia）
help-arg-chunked-loss = 分块交叉熵（torchtune CEWithChunkedOutputLoss，8 块）
help-arg-compiled = 模型在 torch.compile 下运行（逐元素算子融合；--cp > 1 时 torch 的上下文并行环被追踪编译，其 K/V all-gather 与 dK/dV 发送不与计算重叠）
help-arg-compiled-loss = 损失函数也在 torch.compile 下运行（融合交叉熵：只保留 bf16 logits）[默认：同时指定 --compiled 与 --chunked-loss 时开启]
help-arg-concurrency = 推理：用并发请求数代替请求速率
help-arg-config = HuggingFace 的 config.json，或包含它的目录
help-arg-cp = 上下文并行度（Megatron-Core --context-parallel-size；默认 1）
help-arg-dataset-size = 数据集在存储上的大小，例如 30TB 或 500GiB（决定存储容量；默认：一个 epoch 的样本数 × 每样本字节数）
help-arg-deadline = 截止时间：小时数，或带单位：24h、30d、90m（默认：无）
help-arg-endpoint = 代替云厂商地址的 API 基础 URL（私有接入点，或本地测试服务器）
help-arg-engine = 采用其 KV 池规则的推理引擎：vllm（V1，默认）、sglang、trtllm，或 static（预先分配 批大小 × max_model_len 的参考实现）
help-arg-ep = MoE 模型的专家并行度（默认：1）
help-arg-epochs = 遍历 --samples 的轮数（默认：1）
help-arg-explain = 说明每个方案为何胜过下一个
help-arg-export = 把最优方案（或 --pick N 指定的方案）的启动包写入 DIR（docs/export.md）
help-arg-force = 覆盖 DIR 中已存在的文件
help-arg-framework = 软件框架：pytorch、tensorflow、jax、mindspore、paddlepaddle（默认：pytorch）
help-arg-free-gpu-memory-fraction = TensorRT-LLM 的 `free_gpu_memory_fraction`（配合 --engine trtllm；默认 0.9）
help-arg-engine-version = 按哪个 vLLM 版本的显存探测规则计算 KV 池，例如 0.5 或 0.6.4（各版本对 torch 之外显存的计法不同）；默认取当前规则（v0.6.5 及以后）；也是所选引擎的版本，决定 MoE 内核（vLLM 0.8 之前与 SGLang 0.4.6 及以前对 GPTQ/AWQ MoE 层每个专家各启动一次 Marlin 内核）
help-arg-gpu-memory-utilization = 推理：引擎可使用的显存比例（vLLM --gpu-memory-utilization），0–1（默认：0.9）
help-arg-gpus-per-node = 配合 --gpu 时每节点的 GPU 数（默认：1）
help-arg-grad-accum = 每个优化器步的梯度累积步数（默认：1）
help-arg-grad-all-reduce = 在更新本分片前对整份梯度做 all-reduce 的 ZeRO-1 优化器（流水线并行下的 DeepSpeed BF16_Optimizer），而非 reduce-scatter
help-arg-gradient-as-bucket-view = DDP gradient_as_bucket_view=True：all-reduce 桶中不再另存一份梯度
help-arg-deepspeed = 由 DeepSpeed 引擎运行 ZeRO：计入其归约桶（reduce bucket），以及优化器步时本分片梯度的 fp32 副本
help-arg-moe-a2a-overlap = MoE：专家 all-to-all 与另一个微批次的计算重叠（Megatron-Core --overlap-moe-expert-parallel-comm；默认关闭；--pp > 1 时需要 --virtual-stages）
help-arg-moe-dispatcher = MoE token 分发器：alltoall、deepep、hybridep 或 allgather（Megatron-Core --moe-token-dispatcher-type、--moe-flex-dispatcher-backend）[默认：alltoall]
help-arg-persistent-grads = 梯度在各步之间保留并原地清零（PyTorch < 2.0 的 zero_grad(set_to_none=False)，PyTorch 2.0 之前的 HF Trainer）
help-arg-nccl-version = 作业所用的 NCCL 版本，例如 2.19.3（torch 2.2 自带）；2.22 之前 NCCL 在初始化时就为每个通信器建立 ring、tree 和 NVLink SHARP 缓冲；默认取当前版本
help-arg-host-vcpus = 每节点主机 vCPU（硬件线程）数：图像模型的吞吐上限为 vCPU × 节点数 × image_decode_per_core 样本/秒；优化器卸载时主机优化器步在 vCPU ÷ 2 个物理核上运行，由节点内各 rank 均分（默认：不设上限；配合 --instance 时取目录中的 vCPU 数）
help-arg-id = 实例规格 ID（ecs.gn7e-c16g1.4xlarge）、规格族（gn7e、GN10Xp）或 GPU ID（a100-80g）
help-arg-image = 腾讯云：询价时指定的镜像 ID（公共镜像；价格是实例本身的）
help-arg-image-size = 图像分辨率，宽x高（像素），用于模型的图像 token 规则（默认：1024x1024）
help-arg-images-per-request = 每个请求中的图像数（多模态配置：LLaVA、Qwen2-VL、Pixtral、Llama-3.2-Vision）
help-arg-input-tokens = 推理：每个请求的提示 token 数（默认：1000，按模型上下文截短）
help-arg-instances = 要询价的实例规格（可重复）（默认：该云厂商的所有 GPU 规格）
help-arg-inter-gbit = 每节点网络带宽，Gbit/s
help-arg-inter-link = 节点间网络：rdma、erdma 或 tcp
help-arg-interruptible = 作业会保存检查点并能续跑，因此可以使用抢占式实例
help-arg-kv-dtype = KV 缓存数据类型：bf16、fp16、fp8、int8（默认：bf16）
help-arg-lang = 输出语言（含错误信息）：en 或 zh（默认：取自 $LC_ALL，否则 $LC_MESSAGES，否则 $LANG；zh_* → zh）
help-arg-last-stage-layers = 最后一个流水线阶段的层数（Megatron-Core --decoder-last-pipeline-num-layers）
help-arg-first-stage-layers = 第一个流水线阶段的层数（Megatron-Core --decoder-first-pipeline-num-layers）
help-arg-account-for-embedding-in-pipeline-split = 流水线切分时把嵌入层计为一层：第一个阶段少放一层（Megatron-Core）
help-arg-account-for-loss-in-pipeline-split = 流水线切分时把 LM head 和损失计为一层：最后一个阶段少放一层（Megatron-Core）
help-arg-lora-dropout = LoRA dropout 概率；为 0 时不保存 dropout 掩码（torchtune、LLaMA-Factory、Unsloth 以及 PEFT 自身的默认值）（默认：0.05，PEFT 示例中的取值）
help-arg-lora-rank = LoRA/QLoRA 适配器的秩 r（默认：16）
help-arg-lora-targets = LoRA 目标模块：逗号分隔的线性层名，或 all-linear（默认：all-linear）
help-arg-max-model-len = 推理：一个请求的最长序列（提示 + 输出），单位 token（默认：输入 + 输出 token 数）
help-arg-max-nodes = 一个方案最多使用的节点（实例）数（默认：16）
help-arg-max-num-batched-tokens = 引擎 profile 批的 token 数（vLLM `max_num_batched_tokens`、TensorRT-LLM `max_num_tokens`）；默认取引擎自己的值
help-arg-max-num-seqs = vLLM 的 `max_num_seqs`：同时调度的最多序列数，也是 V1 profile 运行中采样器预热的请求数（默认：≥70 GiB 且非 A100 的 GPU 上为 1024，否则 256）
help-arg-max-price = 在 --billing 下的最高价格（按量和抢占式为元/小时，包月为元/月）
help-arg-max-price-age = 忽略早于此时长的价格（天数：30d 或 30）；估算价只取自更新的价格。`gpuplan prices` 显示每个价格的时效
help-arg-max-rps = 每秒最多请求数
help-arg-mem-fraction-static = SGLang 的 `mem_fraction_static`（配合 --engine sglang；默认随 TP 而定，TP 1 时为 0.88）
help-arg-micro-batch = 每张 GPU 每次前向/反向的序列数（默认：1）
help-arg-min-gpu-memory = 每张 GPU 的最小显存，GiB
help-arg-min-replicas = 推理：为可用性保留的最少副本数（默认：2）
help-arg-model = 模型预设名（`gpuplan models`）
help-arg-model-config = 用 HuggingFace 的 config.json（或其目录）代替预设
help-arg-name = 预设名（见 `gpuplan models`）
help-arg-no-user-catalog = 忽略配置目录中的用户目录
help-arg-nodes = 节点数（默认：1）
help-arg-nvlink = 只列出 GPU 之间由 NVLink/NVSwitch/HCCS 互联的实例
help-arg-offload-optimizer = 把优化器状态放在主机内存（DeepSpeed offload）
help-arg-offload-params = 把参数放在主机内存（ZeRO-3 offload）
help-arg-optimize = 排序依据：cost（成本）、time（时间）或 balanced（成本 × 时间）
help-arg-optimizer = adam_w、adam_w8bit、sgd_momentum、adafactor（默认：adam_w）
help-arg-optimizer-in-backward = 优化器步融合进反向（torchtune optimizer_in_bwd）：没有完整的梯度缓冲
help-arg-output-tokens = 推理：每个请求生成的 token 数（默认：300）
help-arg-overlap-grad-reduce = 梯度归约与反向重叠（Megatron 默认关闭，DDP/FSDP 默认开启）
help-arg-overlap-param-gather = 参数 all-gather 与计算重叠（ZeRO-3 预取开启；ZeRO-1/2 关闭）
help-arg-paged-optimizer = bitsandbytes 分页优化器状态（PagedAdamW / PagedAdamW8bit）：CUDA 统一内存，不计入已分配峰值，显存满时换页到主机
help-arg-peak-factor = 推理：副本必须承载的峰值负载，为 --rate/--concurrency 的倍数（默认：1.25）
help-arg-steps = 推理扩散模型：每张图像的去噪步数（默认：流水线的默认值，SDXL 为 50）
help-arg-guidance = 推理扩散模型：无分类器引导，on（每步 2 个 UNet 样本）或 off（1 个：guidance_scale ≤ 1，SDXL-Turbo 和 LCM 即如此）（默认：流水线的默认值，SDXL 为 on）
help-arg-plan = 保存的 `gpuplan plan --format json` 文档
help-arg-pp = 流水线并行阶段数（默认：1）
help-arg-precision = amp_bf16、amp_fp16、pure_bf16、fp32、fp8（默认：amp_bf16；不支持 bf16 的芯片上为 fp16）
help-arg-preemption-rate = 抢占式实例每节点小时的抢占次数（默认：0.02）
help-arg-profile = 显存计算方式：hugging_face、megatron 或 litgpt（默认：hugging_face）
help-arg-rate = 推理：需要承载的每秒请求数
help-arg-rdma = 只列出带 RDMA（eRDMA、RoCE 或 InfiniBand）的实例
help-arg-recompute = 激活重计算：none、selective、selective_op（torchtitan 按算子的 SAC）、full（默认：none）
help-arg-regions = 要询价的地域（可重复）（默认：每个规格在目录中的地域）
help-arg-retries = 被限流、失败（5xx）或超时的请求的重试次数
help-arg-reuse-hours = 本作业结束后你预计每月继续使用这些机器的小时数（默认：0）
help-arg-samples = 每个 epoch 的训练样本数（配合 --epochs），代替 --tokens；接受 50k、1.2M
help-arg-seq-len = 每个训练样本的序列长度，单位 token（默认：2048，按模型上下文截短）
help-arg-sequence-parallel = Megatron 序列并行（在 TP 组内切分激活值）
help-arg-set = 覆盖一个具名常量：--set fragmentation=0.05（见 docs/methodology.md）
help-arg-shell = bash、zsh、fish、elvish 或 powershell
help-arg-solve = 一次调用回答一个推理问题：max-context（--batch 条序列下最长的上下文）、max-batch（输入 + 输出 token 下最多的序列数）、max-throughput（--tpot 以内最高的输出 token/s）
help-arg-task = 任务类型：pretrain（预训练）、full（全参微调；也可写 `finetune`）、lora、qlora、inference（推理）（默认：full，或工作负载文件中的值）
help-arg-timeout = 单个请求的超时秒数
help-arg-to = 写入启动包的目录（不存在则创建）
help-arg-tokens = 训练 token 总数：1e8、100M、2B、300e9、1.5T（k/M/B/T = 10^3/10^6/10^9/10^12）
help-arg-top = 显示的方案数
help-arg-tp = 张量并行度（共享每一层的 GPU 数；在节点内）（默认：1）
help-arg-tp-comm-overlap = TP 通信与 GEMM 重叠（Megatron-Core --tp-comm-overlap；默认关闭）
help-arg-ttft = 推理：首 token 时延目标，以秒计（2）或带单位（500ms、2s）
help-arg-vgpu = 包括 vGPU 切片
help-arg-virtual-stages = 每个设备上的虚拟流水线阶段数：交错 1F1B（默认 1 = 普通 1F1B）
help-arg-wide = 显示所有列的完整表格；默认表格适应终端宽度（$COLUMNS 可覆盖；输出到管道或文件时不限宽度）
help-arg-workload = TOML 工作负载文件（docs/workload-format.md）；命令行选项覆盖其中的值
help-arg-zero = ZeRO 阶段 0–3（FSDP 完全分片 = 3）（默认：0）
help-arg-zones = 腾讯云：询价的可用区（可重复）（默认：该地域第一个可用的可用区）
help-catalog-gpus--format = 输出格式：table、json 或 markdown
help-catalog-import--billing = 用于阿里云 DescribePrice：on-demand、monthly 或 spot
help-catalog-import--dry-run = 只显示将导入的内容，不写入
help-catalog-import--files = 响应文件（JSON）。分页响应请给出每一页
help-catalog-import--instance = 用于阿里云 DescribePrice：该请求询价的实例规格
help-catalog-import--provider = 这些 API 响应所属的云厂商：alibaba、huawei、tencent
help-catalog-import--region = 获取这些响应时的地域（阿里云和华为云的响应中没有写明）
help-catalog-instances--billing = 显示和筛选哪种价格
help-catalog-instances--format = 输出格式：table、json、csv 或 markdown
help-catalog-instances--gpu = GPU ID 或名称前缀：A100 匹配 a100-40g、a100-80g、a100-80g-pcie
help-catalog-instances--gpus = 每个实例的 GPU 数（精确匹配）
help-catalog-instances--provider = alibaba、huawei、tencent（可重复）
help-catalog-instances--region = 只列出在此地域已知或有价格的实例
help-catalog-show--format = 输出格式：table、json 或 markdown
help-catalog-validate--files = 要检查的目录文件（TOML）（默认：内置目录和用户目录）
help-catalog-validate--format = 输出格式：table、json 或 markdown
help-estimate--format = 输出格式：table、json 或 markdown
help-estimate--global-batch = 所有数据并行 rank 合计每个优化器步的序列数；据此设 grad_accum = 全局批 / （微批 × 数据并行规模），必须整除
help-estimate--gpu = GPU 型号（`gpuplan catalog gpus`），例如 A100、h100-sxm、l20
help-estimate--instance = 用目录中的实例规格作为硬件（`gpuplan catalog instances`），例如 ecs.gn7e-c16g1.32xlarge；多台配合 --nodes。代替 --gpu/--gpus-per-node（不可同时使用：实例规格已决定二者）
help-estimate--tpot = 配合 --solve max-throughput 的每输出 token 时延目标：以秒计（0.05）或带单位（50ms、0.05s）
help-estimate--weights = 推理权重：fp32、bf16、fp16、fp8、int8、int4（组大小 128；也可写 awq、gptq）、int4-g<N>、mxfp4（MoE 专家），或每个权重的位数（例如 4.5）
help-examples-estimate =
    示例：
      # 在一张 A100 上做 LoRA 微调，完全重计算，估算显存和时间：
      gpuplan estimate -m Llama-3.1-8B --task lora --gpu A100 --recompute full --tokens 100M
      # 同一作业放在目录中的实例规格上，两个节点：
      gpuplan estimate -m Llama-3.1-8B --task full --instance ecs.gn7e-c16g1.32xlarge --nodes 2 --tokens 2B
      # 在 H100 上用 int4 权重推理时的 KV 缓存和时延：
      gpuplan estimate -m Llama-3.1-70B --task inference --gpu h100-sxm --gpus-per-node 2 --tp 2 --weights int4 --batch 32
help-examples-plan =
    示例：
      # 在阿里云上 24 小时内完成 Qwen2.5-7B 的 LoRA 微调，并给出理由：
      gpuplan plan -m Qwen2.5-7B --task lora --seq-len 2048 --tokens 100M --provider alibaba --deadline 24h --explain
      # 以每秒 10 个请求部署 Llama-3.1-70B，带时延目标，中文输出：
      gpuplan plan -m Llama-3.1-70B --task inference --rate 10 --ttft 2 --tpot 0.06 --lang zh
      # 30 天内用 300B token 预训练 Llama-2-13B，只用 A100/H800：
      gpuplan plan -m Llama-2-13B --task pretrain --tokens 300B --deadline 30d --gpu A100 --gpu H800
      # 显示所有列（云厂商、计费方式、价格类型、并行方式）：
      gpuplan plan -m Qwen2.5-7B --task lora --tokens 1e8 --wide
help-export--pick = 使用文档中的第几个方案，1 = 最优
help-models--format = 输出格式：table、json 或 markdown
help-models-show--format = 输出格式：table、json 或 markdown
help-plan--billing = auto、on-demand、monthly、spot（默认：auto，取能满足要求的最便宜者）
help-plan--families = 只用这些实例规格族（可重复），例如 gn7e、GN10Xp、p2s
help-plan--format = table、json（docs/json-schema.md）或 markdown
help-plan--global-batch = 每个优化器步的序列（或样本）数（默认：微调 64，预训练和 CNN/UNet 模型 1024）
help-plan--gpus = 只用带这种 GPU 的实例规格（可重复；ID 或名称前缀：A100 匹配 a100-40g 和 a100-80g，`910B` 匹配所有昇腾 910B 型号）
help-plan--pick = 导出第几个方案，1 = 最优（不超过 --top）；须与 --export 同用
help-plan--provider = 考虑的云厂商（可重复）：alibaba、huawei、tencent
help-plan--region = 考虑的地域（可重复），例如 cn-shanghai
help-plan--tpot = 推理：每输出 token 时延目标，以秒计（0.06）或带单位（60ms）
help-plan--weights = 推理：考虑的权重格式（逗号分隔：bf16、fp8、int8、int4（组大小 128；也可写 awq、gptq）、int4-g<N>、mxfp4）；默认全部
help-prices--billing = 只看这种计费方式（默认：全部；配合 --by-gpu 时为 on-demand）
help-prices--format = 输出格式：table、json 或 csv
help-prices--gpu = GPU ID 或名称前缀：A100 匹配 a100-40g、a100-80g
help-prices--provider = alibaba、huawei、tencent（可重复）
help-prices-fetch--billing = 要询价的计费方式，逗号分隔
help-prices-fetch--dry-run = 列出（规格 × 地域 × 计费方式）请求，但不发送
help-prices-fetch--families = 要询价的实例规格族（可重复），例如 gn7i、GN7、p2s
help-prices-fetch--provider = 要询价的云厂商：alibaba、huawei、tencent
help-value-billing-on-demand = 也可写作 `on_demand`，与目录文件一致
help-value-task-full = 全参微调（别名：finetune）
help-arg-bf16-chunked-loss = LitGPT 的 chunked_cross_entropy：按 128 个 token 一块做 bf16 交叉熵，不升为 fp32
help-arg-bnb-saves-inputs = bitsandbytes 0.43.2 之前的 QLoRA：每个 4 位线性层都为反向保留其输入（bitsandbytes PR #1270 修复）
help-arg-keeps-previous-graph = 训练循环把上一步的 logits 保留到下一次前向结束（LitGPT）；配合 --bnb-saves-inputs 时还保留旧计算图里 4 位矩阵乘保存的输入
help-arg-quantized-lm-head = LM 头也量化的 QLoRA（Lightning BitsandbytesPrecision，LitGPT）：4 位存储，每次前向反量化（每个权重 4 字节）
