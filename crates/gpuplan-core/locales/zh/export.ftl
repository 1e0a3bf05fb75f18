# 导出器（crates/gpuplan/src/export、cmd/export.rs）：`plan --export` / `export` 输出的信息。

export-done = 已将方案 #{ $pick }（{ $nodes } × { $instance }）导出到 { $dir }：共 { $n } 个文件；请先读 README.txt
export-not-json = { $path } 不是 JSON：export 读取的是 `gpuplan plan --format json` 的输出
export-exists = { $dir } 中已有本启动包的 { $n } 个文件（{ $names }）：加 --force 才会覆盖（未写入任何文件）
export-not-a-file = { $path } 已存在且不是普通文件：请移走它，或导出到别的目录（未写入任何文件）
export-cannot-write = 无法写入 { $path }（启动包中的文件均未被替换）
export-cannot-move = 无法把 { $tmp } 移动为 { $path }
export-cannot-yaml = 无法生成 YAML
export-cannot-chmod = 无法把 { $path } 设为可执行
export-not-plan = 不是方案文档（kind = { $kind }）：export 读取的是 `gpuplan plan --format json` 的输出
export-schema-unsupported = 本版本 gpuplan（{ $version }，可读 { $supported }）不支持方案 JSON 的 schema_version { $v }：请用本版本的 `gpuplan plan --format json` 重新生成方案
export-no-plans-key = 方案 JSON 缺少 `outcome.plans`：export 读取的是 `gpuplan plan --format json` 的输出
export-no-plan = 方案文档中没有方案（规划器未找到满足约束的方案，见 `outcome.rejected`）：无可导出
export-pick = --pick { $pick }：文档中只有 { $n } 个方案；请选 1–{ $n }（要更多方案，请用 --top N 重新运行 `gpuplan plan`）
export-train-xor-serve = { $at }：一个方案只能有 `train` 或 `serve` 之一，此方案{ $has ->
    [both] 两者都有
   *[neither] 两者都没有
}
export-field-missing = 方案 JSON 缺少 `{ $field }`
export-field-not-string = 方案 JSON 的 `{ $field }` 缺失或不是字符串
export-field-not-ident = 方案 JSON 的 `{ $field }` = { $value } 不是简单标识符（字母、数字、. _ - /，最长 128）：export 拒绝把它写进脚本
export-field-unsafe-text = 方案 JSON 的 `{ $field }` 含有控制字符或引号：export 拒绝使用
export-field-not-count = 方案 JSON 的 `{ $field }` 缺失或不是整数
export-field-count-range = 方案 JSON 的 `{ $field }` = { $value } 超出 { $min }–{ $max }
export-field-not-bool = 方案 JSON 的 `{ $field }` 缺失或不是 true/false
export-field-not-number = 方案 JSON 的 `{ $field }` 缺失或不是数字
export-field-number-range = 方案 JSON 的 `{ $field }` = { $value } 超出 (0, { $max }]
export-field-layout = 方案 JSON：`{ $field }`：TP { $tp } × PP { $pp } × CP { $cp } 不能整除方案的 { $gpus } 块 GPU，任何启动器都无法放置：请用 `gpuplan plan --format json` 重新生成方案
export-field-period = 方案 JSON：`{ $field }` = { $value } 个月不是 { $provider } 接受的包年包月时长（月数：{ $allowed }）：请用当前版本的 gpuplan 重新生成方案（`gpuplan plan --format json`）
export-plan-too-long = 方案 JSON 的 `{ $field }`：该方案需运行 { $hours } 小时（{ $years } 年），超过导出所写的上限 { $max } 小时（约 { $max_years } 年）：这么长的方案只是规划数字，不是可部署的任务；请增加节点或减少 token 重新规划
export-not-carried = 注意：导出包的默认启动方式（{ $launcher }）不包含以下计划设置：{ $keys }（README.txt 列出了它们；请在训练框架中设置）

# 导出包的 README.txt（export/readme.rs），按本次运行的语言。
export-readme-title = gpuplan { $version } 部署包
export-title = 文件中的方案 #{ $rank }：{ $model } { $job ->
    [serving] 推理服务
   *[other] 训练
}，{ $nodes } × { $instance }（{ $provider } { $gpu }，每节点 { $per_node } 张，{ $billing }）
export-title-no-price = 价格未知
export-readme-files = 文件（JSON 文件不能带注释：其来源说明见本 README）：
export-readme-training-head = 方案的显存和时间所依据的训练设置（请在训练脚本中设成相同）：
export-readme-task = 任务 { $task }{ $lora }，精度 { $precision }，优化器 { $optimizer }
export-readme-lora = （LoRA 秩 { $rank }，目标模块 { $targets }{ $dropout }{ $base }）
export-readme-lora-dropout = ，dropout { $d }
export-readme-lora-base = ，基座权重 { $b }
export-readme-sequence = 序列长度 { $seq }，每卡微批 { $mb } × { $ga } 步梯度累积
export-readme-recompute = 激活重计算 { $recompute }，注意力实现 { $attention }
export-readme-checkpoint = 每 { $secs } 秒 = { $steps } 个优化器步保存一次检查点：{ $basis }
export-readme-basis-spot = 抢占式实例的间隔（其回收率加上硬件和软件故障），即本方案的时长和费用所用的计费方式
export-readme-basis-failures = 故障的间隔（整个任务的硬件和软件中断，无回收），即本方案的时长和费用所用的计费方式（按量或包月）
export-readme-checkpoint-none = 检查点间隔：未写入：方案 JSON 中没有其计费方式的间隔（非抢占式且没有 `train.failures`：failure_rate_per_gpu_hour = 0，或方案来自 gpuplan 建模故障之前的版本）；请用训练框架的默认值，或重新生成方案
export-readme-ep =
    专家并行 EP { $ep }，专家张量并行 { $etp }（{ $split ->
        [True] 每个专家切分到各专家 TP rank 上
       *[other] 每个 rank 放完整的专家
    }）：megatron_args.sh 传入
    --expert-model-parallel-size { $ep } --expert-tensor-parallel-size { $etp }；用 DeepSpeed-MoE 时请在模型中设
    deepspeed.moe.layer.MoE(ep_size={ $ep }, enable_expert_tensor_parallelism={ $split })（launch.sh 导出 GPUPLAN_EP_SIZE）
export-readme-ep-deepspeed =
    本方案的专家并行是 DeepSpeed-MoE 的（方案指定 hugging_face 栈：eager 模块）：
    launch.sh 默认 LAUNCHER=deepspeed（ds_config.json stage { $zero }，MoE 层 ep_size={ $ep }）；
    LAUNCHER=megatron 运行 Megatron-Core 的融合模块，方案未按其显存和时间估算{ $zero2 ->
        [yes] （且只有 ZeRO-1：显存比方案多）
       *[no] {""}
    }。
export-readme-ep-none =
    本部署包无法复现该方案：ZeRO-{ $zero } 配 EP { $ep }，并有 TP { $tp } × PP { $pp } × CP { $cp }（{ $stack } 栈），
    它所写的启动器都不支持（DeepSpeed-MoE 拒绝 ZeRO-3；DeepSpeed 下 EP 配 TP/PP 属于 Megatron-DeepSpeed，未导出）。
    LAUNCHER=megatron 运行 ZeRO-1（显存比方案多）；LAUNCHER=deepspeed 没有 TP/PP/CP。
export-readme-not-carried = 默认启动器（LAUNCHER={ $launcher }）未携带的方案设置（方案的时间按它们估算）：
export-nc-zero1-broadcast = parallel.zero1_broadcast = { $v }（InternEvo 按所属 rank 各广播一次；这些启动器的优化器用 all-gather）
export-nc-grad-bucket-elements = parallel.grad_bucket_elements = { $e }（每个数据并行桶的梯度元素数；请在训练框架中设置）
export-nc-grad-bucket-sync = parallel.grad_bucket_sync = true（每个桶的归约等待上一个完成，即 InternEvo 的 synchronize）
export-nc-optimizer-dtype = training.optimizer_dtype = bf16（方案的显存按 Adam 主权重和动量各 2 B 计：{ $moments } Megatron-LM 的主权重仍为 fp32，因为 --main-params-dtype 只接受 fp32 或 fp16，所以任务需要比方案更多的显存；NeMo 的 distributed_fused_adam 配 optim.dtype: bf16 时三者都是 bf16）
export-nc-moments-megatron = megatron_args.sh 把 Adam 动量保持为 bf16（--use-precision-aware-optimizer --exp-avg-dtype bf16 --exp-avg-sq-dtype bf16），但
export-nc-moments-fp32 = 该启动器把 Adam 动量保持为 fp32，且
export-nc-megatron-lora = training.task = { $task }（LoRA 秩 { $rank }：Megatron-LM 的 pretrain_gpt.py 没有 LoRA，会训练全部参数，超出方案的显存；请用 Megatron-Core 的 PEFT 入口配合 megatron_args.sh，例如 ms-swift 的 `megatron sft --train_type lora` 或 Megatron-Bridge 的 LoRA 配方）
export-nc-a2a-overlap = parallel.moe_a2a_overlap = true（Megatron-Core 的 EP all-to-all 重叠：LAUNCHER=megatron 会携带）
export-nc-dispatcher = parallel.moe_dispatcher = { $d }（Megatron-Core 的 token 分发器：LAUNCHER=megatron 会携带）
export-nc-stage-split = { $split }（{ $layers } 层、PP { $pp }：Megatron-Core 不接受这种切分，因此 megatron_args.sh 不写 --decoder-first/last-pipeline-num-layers，Megatron-LM 会把各层均分，这要求层数能被 PP 整除；请给出它能构建的切分：{ $why }）
export-nc-even-split = --pipeline-model-parallel-size { $pp }（{ $layers } 层，未指定各阶段层数：Megatron-Core 会拒绝启动；请重新规划，或写明它能构建的切分：{ $why }）
export-nc-stage-split-unchecked = { $split }（PP { $pp }：该方案没有记录模型的层数（加入该字段之前写出的方案都没有），无法按 Megatron-Core 的规则检查切分，因此 megatron_args.sh 不写 --decoder-first/last-pipeline-num-layers；请重新规划后再导出）
export-readme-region =
    地域：方案没有指定（其价格不对应明确的地域）。运行云脚本前请先设置，
    例如 `{ $var }=<地域 ID> bash cloud/create-instances.sh`，或加 --region 重新规划；
    未设置 { $var } 时脚本会停止。
export-readme-steps-head = 从方案到运行中的任务：
export-readme-step-dry-run = `bash cloud/create-instances.sh`                  # 预演：云厂商检查订单，不创建任何资源
export-readme-step-create = `DRY_RUN=false bash cloud/create-instances.sh`    # 创建 { $n } 台实例
export-readme-step-copy = 把本目录复制到每个节点（或方案所选的共享存储）
export-readme-step-serve = `MODEL=<仓库或路径> bash serve-vllm.sh`                 # 在每个节点上
export-readme-step-litgpt = `NODE_RANK=<0..{ $last }> MASTER_ADDR=<节点 0> bash launch.sh`   # 在每个节点上：LitGPT 的 CLI 配 litgpt.yaml（请设置其 checkpoint_dir 和 data：LitGPT 默认用 Alpaca）
export-readme-step-train = `NODE_RANK=<0..{ $last }> MASTER_ADDR=<节点 0> TRAIN_SCRIPT=train.py bash launch.sh`   # 在每个节点上
export-readme-step-logs = 查看节点 0 的日志
export-readme-k8s =
    在 Kubernetes 上（由这些节点组成的集群）：`kubectl create configmap { $slug } --from-file=.` ；
    `kubectl apply -f { $job }`{ $volcano ->
        [yes] （或 `k8s/volcano-job.yaml`）
       *[no] {""}
    }（部署包挂载在 Pod 的 /gpuplan）
export-readme-placeholders =
    占位符：方案或已存的云厂商文档未给出的值都已标出
    （清单中为 REPLACE …，脚本中为 `${"{"}VAR:?…{"}"}`，未设置 VAR 时脚本会停止）。
    云命令默认带云厂商的预演参数：设 DRY_RUN=false 才会真正创建。
