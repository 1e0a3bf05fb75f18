# `gpuplan plan` 的输出。

plan-title = gpuplan 方案：{ $what }
plan-what-train = { $model } { $task }，{ $seq ->
    [none] {""}
   *[other] 序列长度 { $seq }，
}{ $amount } { $unit }
plan-what-serve = { $model } 推理服务{ $kind ->
    [opaque] {""}
    [encoder] ，{ $input } tokens
    [asr] ，每个请求 { $seconds } 秒音频（解码器 { $input }+{ $output } 个 token）
   *[decoder] ，{ $input }+{ $output } tokens
}{ $rate ->
    [none] {""}
   *[other] ，{ $rate } 请求/秒
}{ $conc ->
    [none] {""}
   *[other] ，{ $conc } 个并发请求
}{ $ttft ->
    [none] {""}
   *[other] ，{ $kind ->
        [decoder] TTFT
        [asr] TTFT
       *[other] 时延
    } < { $ttft }
}{ $tpot ->
    [none] {""}
   *[other] ，TPOT < { $tpot }
}
plan-latency-target = { $unit ->
    [ms] { $v } 毫秒
   *[s] { $v } 秒
}
plan-searched = 搜索了 { $types } 个实例规格中的 { $candidates } 个候选，评估 { $configs } 种配置，共 { $plans } 个可行方案
plan-none = 没有满足约束的方案。
plan-col-plan = 方案
plan-col-provider = 云厂商
plan-col-time = 时长
plan-col-cost = 费用
plan-col-config = 并行 / 部署
plan-col-mem = 每卡显存
plan-col-headroom = 余量
plan-col-bottleneck = 瓶颈
# 终端过窄、放不下完整表头时的瓶颈列表头。
plan-col-bottleneck-narrow = 瓶颈
plan-col-cost-month = ¥/月
plan-per-month = —
plan-no-price = 无已知价格
plan-cost = ¥{ $cny }{ $serve ->
    [yes] /月
   *[no] {""}
}（{ $billing }，{ $kind } { $as_of }）
plan-cost-short = ¥{ $cny }{ $serve ->
    [yes] /月
   *[no] {""}
}
plan-cny-compact = { $zh ->
    [yi] { $y }亿
   *[wan] { $w }万
}
plan-cost-short-none = 无价格
plan-config-serve = { $weights } TP{ $tp } × { $replicas } 个副本，批大小 { $batch }
plan-recompute-full = 重计算{" "}
plan-recompute-selective = 选择性重计算{" "}
plan-recompute-op = 逐算子重计算{" "}
plan-same-answer = 与方案 { $n } 相同：{ $list }
plan-same-answer-more = 与方案 { $n } 相同：{ $list } 等，另有 { $more } 种（完整列表：--format json 的 "also"）
plan-dominated-item = 方案 { $n }（相对方案 { $by }；瓶颈：{ $bottleneck }）
plan-dominated-note = 以下方案比排在其上的某个方案更慢且更贵，仅作为次便宜的配置列出供比较，不建议选用：{ $list }
plan-left-out-note = 未列出：{ $why }［{ $constraint }］
cav-unpriced-spot = 无价格可计算抢占式费用，但时长按抢占式计：每小时被回收 { $per_hour } 次（{ $nodes } 个节点 × --preemption-rate），每 { $interval } 分钟保存一次检查点，时间增加 { $overhead }%（与有价格方案的抢占式一行相同）
plan-same-cost-item = 方案 { $n }（总价与方案 { $by } 相同；瓶颈：{ $bottleneck }）
plan-same-cost-note = 以下方案与排在其上的某个方案总价相同但更慢（价格按整个计费周期计，任务用多少都一样），仅列出供比较，不建议选用：{ $list }
plan-batch-raised-item = 方案 { $n }（每步 { $runs } 条序列）
plan-batch-raised-note = 以下方案每步的序列数多于全局批大小 { $want }（每个数据并行副本至少一个微批，梯度累积步数向上取整），其时长对应另一种训练配置：需相应调整学习率，或用 --global-batch 指定：{ $list }
plan-years-note = 方案 1 需要 { $hours }：按其每节点吞吐，一年内完成至少需要约 { $need } 个节点（现为 { $nodes } 个；按线性扩展估算，是下限：通信开销随节点数增加）；请调大 --max-nodes（当前 { $max }）或减少训练 token 数
plan-list-sep = 、
plan-unpriced-by-time = 方案按时长排序，不论有无价格：无已知价格的方案显示“无价格”（导入价格：`gpuplan catalog import`）
plan-unpriced-order = 无已知价格的方案排在有价格的方案之后，按卡时排序（导入价格：`gpuplan catalog import`）
plan-legend-pareto = * = 位于费用-时间帕累托前沿。费用相差不到 { $tie } 视为相同，用时短的方案排在前面。
plan-legend-compact = ¥ = 方案按最便宜计费方式的总价（推理服务为每月）；余量 = 每卡剩余显存（GiB）。`--wide` 显示云厂商、计费方式、价格类型和并行配置。
plan-defaults = 影响本结果的默认值：{ $list }。
plan-default-seq = 序列长度 { $v }（--seq-len）
plan-default-batch = 全局批大小 { $v } 条序列（--global-batch）
plan-default-max-nodes = 最多 { $v } 个节点（--max-nodes）
plan-default-prompt = 每个请求{ $seconds ->
    [none] {""}
   *[other] {" "}{ $seconds } 秒音频、
}输入 { $input } + 输出 { $output } 个 token（--input-tokens/--output-tokens）
plan-default-prompt-input = 每个请求输入 { $input } 个 token（--input-tokens）
plan-default-no-load = 未给负载（--rate/--concurrency）：按 { $v } 个副本（--min-replicas）满负荷规划
plan-default-replicas = 至少 { $v } 个副本（--min-replicas）
plan-default-peak = 峰值为给定负载的 { $v } 倍（--peak-factor）
plan-default-chips = 只考虑 NVIDIA 芯片（--chips nvidia,ascend,amd）
plan-top = 方案 1：{ $nodes } × { $id }（{ $gpu }，{ $provider }）
plan-mem-title = 每卡显存：峰值 { $total } GiB（阶段 { $phase }；框架分配 { $gib } GiB，其余为分配器保留与设备运行时上下文）
plan-col-component = 组成
plan-col-how = 计算方式
plan-why-not-one = 为什么不是单卡：一张 { $gpu } 即使全量重计算、micro-batch 为 1 也需要 { $need } GiB，超过其 { $have } GiB；按 { $split } 切分到 { $gpus } 张卡后每卡 { $per } GiB。
plan-split-zero = ZeRO-{ $zero }（在 { $dp } 个数据并行副本间）
plan-step-title = 每步时间
plan-col-part = 组成
plan-col-share = 占比
plan-step-compute = 计算
plan-step-bubble = 流水线气泡
plan-step-tp = 张量并行通信
plan-step-dp = 数据并行通信（未重叠）
plan-step-pp-ep = 流水线点对点 + 专家 all-to-all
plan-step-offload = 主机卸载（PCIe）
plan-step-step = 每步
plan-throughput = 吞吐 { $rate } { $unit }/s（每卡 { $per }），MFU { $mfu }%；数据读取 { $read }，检查点 { $ckpt }
plan-failures = 故障中断：时间增加 { $pct }%（{ $gpus } 张 GPU 每天 λ = { $per_day } 次中断，每 { $min } 分钟保存检查点）
plan-serving = 部署：{ $replicas } 个副本 × TP{ $tp }（{ $weights } 权重），每副本批大小 { $batch }、每秒 { $rps } 个请求；空载 TTFT { $ttft }，每个输出 token { $tpot }；每卡权重 { $wgib } GiB、KV 池 { $kv } GiB（{ $tokens } 个 token）
plan-serving-load = 负载下：峰值（{ $peak }× 请求率）每副本每秒 { $rate } 个请求（其容量每秒 { $cap } 个请求的 { $util }%，每秒 { $share }% 的时间用于 prefill；按所述请求率为 { $stated }%）：TPOT { $tpot }，TTFT { $ttft }（其中等待 { $batch } 个批处理槽位之一空出 { $slot }，等待前面请求的 prompt { $queue }）；{ $mix }
plan-serving-load-norate = 负载下：每副本每秒 { $rate } 个请求（其容量每秒 { $cap } 个请求的 { $util }%，每秒 { $share }% 的时间用于 prefill）：TPOT { $tpot }，TTFT { $ttft }（其中等待 { $batch } 个批处理槽位之一空出 { $slot }，等待前面请求的 prompt { $queue }）；{ $mix }
plan-serving-load-closed = 负载下：峰值（{ $peak }× 并发）每副本 { $inflight } 个在途请求（其中 { $running } 个在 { $batch } 个批处理槽位中运行，占 { $util }%；每秒 { $share }% 的时间用于 prefill），每副本每秒完成 { $rate } 个请求（利特尔定律：在途请求数 ÷ 每个请求的时间）：TPOT { $tpot }，TTFT { $ttft }（其中等待槽位 { $slot }：固定并发只有超出槽位的请求需要等待）；{ $mix }
serve-mix-chunked = vLLM 分块 prefill：一个 prompt 搭载于 { $steps } 个解码步，每步预算 { $budget } 个 token
serve-mix-whole = TensorRT-LLM 飞行中批处理：prompt 的上下文阶段搭载于一个解码步
serve-mix-paused = prefill 批次暂停解码批次（未开启混合分块的 SGLang、静态引擎）
plan-serving-batch = 部署：{ $replicas } 个副本（{ $weights } 权重），每副本每批 { $batch } 个请求、每秒 { $rps } 个请求；每批耗时 { $latency }；每卡权重 { $wgib } GiB
plan-serving-cost-requests = 每千次请求 ¥{ $k }
plan-serving-cost = 每百万 token ¥{ $m }，每千次请求 ¥{ $k }
plan-serving-cost-per-request = 每千次请求 ¥{ $k }
plan-serving-cost-audio = 每小时音频 ¥{ $h }，每千次请求 ¥{ $k }（每次 { $seconds } 秒音频窗口）
serve-mix-asr = 每个请求的 prefill 运行音频编码器（{ $positions } 个位置，{ $seconds } 秒音频）和 4 个 token 的解码器提示；每个解码步读取这 { $positions } 个位置的交叉注意力 K/V
# 模型导入的警告（model/hf.rs，英文；其中的短语按解析器的译法翻译）。
warn-model-import = { $text }
warn-region-unknown = 区域 { $region } 不在 gpuplan 的目录中{ $close ->
    [none] {""}
   *[other] （是否想输入 { $close }？）
}；已知：{ $known ->
    [none] 无
   *[other] { $known }
}。价格来自{ $priced ->
    [none] 未注明区域的价格行
   *[other] {" "}{ $priced }
}{ $undoc ->
    [none] {""}
   *[other] ，未注明区域的机型（{ $undoc }）按在该区域有售来规划
}：请确认该区域存在并售卖这些机型（目录没有完整的区域列表，无法据此拒绝）
plan-costs-title = 各计费方式费用
plan-col-billing = 计费方式
plan-col-total = 总价
plan-col-unit-price = 单价
plan-col-note = 说明
plan-unit-price = ¥{ $cny } { $kind }（{ $region }，{ $as_of }{ $age }）
plan-storage-priced = 存储：{ $name }，{ $gib } GiB：本任务 ¥{ $cny }，已计入上方总价
plan-storage-unpriced = 存储：{ $name }，{ $gib } GiB：无已知价格，未计入上方总价
plan-advice-title = 建议
plan-explain-title = 各方案排序理由
plan-beats = { $a } 优于 { $b }：{ $parts }
plan-parts-sep = ；
plan-cheaper = 比后者便宜 { $pct }%（{ $a }，后者 { $b }）
plan-balanced-lower = 均衡得分（费用与时长各自相对最优值之积的平方根）低 { $pct }%（{ $a }，后者 { $b }）
plan-priced-vs-unpriced = 有已知价格（后者无价格，按卡时排序）
plan-fewer-gpu-hours = 均无价格，按卡时：{ $a } 卡时，后者 { $b }
plan-sooner = 比后者快 { $pct }%（{ $a }，后者 { $b }）
plan-fewer-gpus = 用 { $a } 张卡，后者 { $b } 张
plan-other-comm = 后者每步 { $pct }% 的时间在通信（{ $link }）
plan-less-quantized = 权重用 { $a } 而非 { $b }（量化更少）
plan-tie-cost = 显示的费用和时长相同；按精确值排序，其次卡数少者优先
plan-tie = 显示的数值相同；按精确值排序，其次卡数少者优先
plan-tie-unpriced = 两个方案均无已知价格；按卡时排序，其次卡数少者优先
plan-work-samples = 个样本
plan-work-tokens = tokens
prices-stale-first = 方案 { $rank }：{ $instance } 的{ $billing }{ $kind }已有 { $days } 天未更新（{ $as_of }）；用 `{ $refresh }` 更新
prices-stale-others = 方案 { $ranks } 也使用了超过 { $days } 天的价格（更新命令见 `--format json` 的 price_ages）
plan-note-asr = 按语音识别规划 { $model } 推理服务：每个请求为 { $seconds } 秒音频（编码器的 { $positions } 个位置）、{ $input } 个 token 的解码器提示（转写开始、语言、任务、无时间戳）和至多 { $output } 个转写 token（Whisper 每个窗口的上限 n_text_ctx / 2；用 --output-tokens 设为预期的转写长度）
plan-note-encoder = { $model } 推理：每个请求一次前向，输入 { $input } 个 token（用 --input-tokens 修改）
plan-note-prompt-shortened = 默认提示词缩短为 { $room } 个输入 token，以适应 { $model } 的 { $ctx } token 上下文（用 --input-tokens/--output-tokens 修改）
note-prompt-max-model-len = 默认提示词缩短为 { $room } 个输入 token，以适应 max_model_len { $len }（用 --input-tokens/--output-tokens 修改）
plan-note-max-price-age = --max-price-age { $age }：忽略 { $n } 个超过 { $days } 天的价格
cat-col-id = 实例规格
cat-col-ram = 内存 GiB
cat-col-net = 网络 Gbit/s
cat-col-link = GPU 互联
cat-col-price = { $billing }价格
cat-col-price-short = ¥
cat-col-confidence = 可信度
cat-col-origin = 来源
cat-instances-legend = 共 { $n } 个实例规格。¥ = { $billing }价格（每小时；包年包月为每月）。RDMA：✓ = 支持 eRDMA、RoCE 或 InfiniBand，– = 不支持，? = 未见文档；其他列的 – = 无来源。`--wide` 显示网络、互联、价格类型与日期、可信度和来源；价格：公开价 = 官网公布，自有价 = 您提供，估算价 = 推算（见 `catalog show`）。
plan-export-nothing = --export：没有满足约束的方案，未导出任何文件

## Why no plan came out (plan/*.rs Binding)
bind-no-candidates = 没有符合条件的实例规格：{ $why }
bind-why-regions = 有 { $n } 个规格符合云厂商和芯片条件，但其文档所列地域不包括 { $regions }
bind-why-sold-out = 所有符合条件的规格都被云厂商的库存接口报告为售罄（重新导入可刷新）
bind-why-no-match = 没有实例规格符合云厂商、地域和芯片条件
bind-chips-skipped = { $n } 种 GPU 不支持所选精度、注意力实现或上下文并行（或没有可计时的有来源峰值 FLOP/s），未参与搜索（{ $gpus }）；用 --gpu 指定其一可查看原因
bind-chip-skipped = { $gpu } 已跳过：该芯片不支持所选设置（{ $why }）
bind-unpriced-left-out = { $n } 个方案的规格没有已知价格，无法核对预算，已排除（可用 `gpuplan catalog import` 导入价格）
bind-pinned = 没有方案能保持工作负载所设的 { $keys }；若交给规划器选择则有方案：从工作负载文件中删去 { $keys } 即可由规划器选择，或改用其他取值
bind-no-fit = 没有任何配置能放进显存：最接近的 { $what }（{ $layout }，{ $recompute }，微批大小 { $mb }）每卡需要 { $need } GiB，可用 { $have } GiB
bind-over-deadline = 最快的方案 { $what } 需要 { $h }，比 { $d }的期限多出 { $over }：放宽节点数（--max-nodes）或期限
bind-over-budget = 最便宜的方案 { $what } 需 ¥{ $x }，比预算 ¥{ $b } 多出 ¥{ $over }{ $spot ->
    [none] {""}
   *[other] ；若任务可中断（--interruptible），使用抢占式实例约 ¥{ $spot }
}
bind-over-budget-deadline = { $d }期限内最便宜的方案 { $what } 需 ¥{ $x }，比预算 ¥{ $b } 多出 ¥{ $over }{ $spot ->
    [none] {""}
   *[other] ；若任务可中断（--interruptible），使用抢占式实例约 ¥{ $spot }
}
bind-budget-on-demand = 改用按量付费（--billing on-demand）而非所选计费方式时，{ $what } 需 ¥{ $x }{ $within ->
    [yes] ，在预算之内
   *[no] {""}
}
bind-megatron-fits = 改用 --profile megatron（Megatron-Core 的张量并行与流水线并行；昇腾上为 MindSpeed-LLM）可得到 { $n } 个其启动包能按计划运行的方案（ZeRO ≤ 1）：第一个是 { $what }，布局 { $layout }，用时 { $h }{ $cost ->
    [none] {""}
   *[other] ，费用 ¥{ $cost }
}；请加 --profile megatron 重新运行
bind-serve-over-budget = 最便宜的推理方案 { $what } 每月 ¥{ $x }，比预算 ¥{ $b } 多出 ¥{ $over }
bind-serve-no-bandwidth = 无法为 { $gpus } 估算推理方案：目录中没有该芯片有出处的显存带宽，而解码时延（每个输出 token 都要读取权重和 KV 缓存）离不开它。请改用其他芯片（--chips nvidia），或在单个节点上实测推理引擎（MindIE、vLLM-Ascend）
bind-serve-over-max-nodes = 每种推理部署都需要超过 { $max } 个节点（最少的是 { $n } × { $what }）：放宽节点数（--max-nodes { $n }）或减少副本（--min-replicas、--rate）
bind-serve-engine-nvidia-only = TensorRT-LLM 只能在 NVIDIA GPU 上运行：搜索的 { $n } 个实例规格都没有 NVIDIA GPU（Ascend 和 AMD 可用 --engine vllm 或 sglang；或用 --chips nvidia）
bind-serve-engine-min-cc = { $engine } 仅在计算能力 { $min } 及以上启动：搜索的 { $n } 个实例规格都没有这样的 GPU（vLLM 需 7.0 起，SGLang 需 7.5 起；或换用更新的 --gpu）
bind-serve-fp8-nowhere = 搜索的 { $n } 个实例规格中没有能在该引擎下加载 FP8 权重的 GPU（FP8 需要 FP8 计算单元；vLLM 和 SGLang 还能在 CUDA Ampere 及更新的 GPU 上通过 FP8 Marlin 运行；Ascend 910B 两者都没有）：请用 --weights int8 或 bf16，或换用其他芯片
bind-serve-format-nowhere = 搜索的 { $n } 个实例规格中没有能在 { $engine } 下运行 { $weights } 权重的 GPU（vLLM 从计算能力 8.0 起支持 MXFP4，SGLang 和 TensorRT-LLM 从 9.0 起，static 引擎不支持）：请用 --weights bf16（反量化后的检查点）或 int4，或换用其他芯片
bind-serve-int4-nowhere = 搜索的 { $n } 个实例规格中没有在 { $engine } 下有 int4 内核的 GPU（需要计算能力 { $min }）：请用 --weights int8 或 bf16、vllm 引擎（GPTQ 从 6.0 起），或计算能力 { $min } 及以上的芯片
bind-serve-awq-nowhere = 搜索的 { $n } 个实例规格中没有在 { $engine } 下能加载 AWQ 的 GPU（AWQConfig.get_min_capability：计算能力 7.5）：请用 --weights gptq（其 exllama 内核从 6.0 起可加载）、int8 或 bf16，或计算能力 7.5 及以上的芯片
bind-serve-no-fit = 没有实例能在显存内同时满足时延目标：放宽 --ttft/--tpot，允许量化，或选择更多卡的实例
bind-serve-no-fit-best = 没有实例能在显存内同时满足时延目标：单个请求时，任一实例能达到的最短首 token 时间为 { $ttft } 秒（{ $ttft_at }），最短每输出 token 时间为 { $tpot } 毫秒（{ $tpot_at }）；把 --ttft/--tpot 放宽到这些值以上，允许量化，或选择更多卡的实例
bind-serve-no-memory = 没有实例能在单节点的 GPU 显存中放下权重和一个请求的 KV 缓存（张量并行最多 8，限单节点）：允许量化（--weights），缩短 --input-tokens/--output-tokens，或选择单节点显存更大的实例
bind-serve-advice-at = 最接近的配置：{ $at }
plan-serve-advice-head = 以下任一改动（其余按方案不变）即可让 vLLM 在该配置上启动：
plan-serve-advice-len = 请求不超过 { $len } 个 token（--input-tokens 与 --output-tokens 之和，方案以它作为 vLLM 的 max_model_len），gpu_memory_utilization { $util }、vLLM 的 max_num_seqs { $seqs } 不变
plan-serve-advice-seqs = vLLM 的 max_num_seqs 不超过 { $seqs }，请求保持 { $len } 个 token：这是启动参数（vllm serve --max-num-seqs { $seqs }），plan 不按它估算，因此本方案仍被拒绝；可用 estimate --max-num-seqs { $seqs } 估算（profile 运行的采样器预热覆盖 min(max_num_seqs, max_num_batched_tokens) 个请求）
plan-serve-advice-util = 在工作负载文件（-w）的 [serve] 中设 gpu_memory_utilization = { $util } 或更高（vLLM 可占用的 GPU 显存比例；此时不能有其他进程占用显存）
billing-mix-note = { $nodes } 个节点 × 包月 { $months } 个整月（¥{ $months_cny }），其余 { $hours } 小时{ $rest }，每节点 ¥{ $price }/小时（¥{ $rest_cny }）；未假设提前退订可退款（资料未说明退款规则）
bind-interruptions = { $what }：{ $why }
bind-interruptions-beside = 有 { $n } 个方案因中断开销过大被拒绝，首个为 { $what }：{ $why }
bind-stalls-beyond-bound = 每个检查点使训练停顿 { $write_s } 秒，而每 { $interval } 分钟保存一次，停顿会使任务耗时超过计算时间的 { $max } 倍：请调大 checkpoint_interval_hours（--set checkpoint_interval_hours=1）、改用异步保存（checkpoint_stall_fraction）或更快的存储
bind-failures-beyond-bound = 全部 GPU 每天 { $per_day } 次故障（GPU 数 × failure_rate_per_gpu_hour），每次重启 { $restart } 分钟，会使任务耗时超过不中断时的 { $max } 倍或永远无法完成（按 Daly 指数故障模型的期望时间）：GPU 数相对故障率过多；请减少 GPU（--max-nodes），或在集群实测更低时调低 failure_rate_per_gpu_hour / failure_restart_minutes
spot-beyond-bound = 未计抢占式实例：每小时 { $per_hour } 次回收（{ $nodes } 个节点 × --preemption-rate），每次重启 { $restart } 分钟，会使任务耗时超过不中断时的 { $max } 倍或永远无法完成：该节点数下抢占率过高；请改用按量或包月计费，或减少节点
billing-break-even = 每月使用超过 { $breakeven } 小时（{ $share }% 的时间）包月才划算；本任务使用 { $hours } 小时
billing-break-even-reuse = 每月使用超过 { $breakeven } 小时（{ $share }% 的时间）包月才划算；本任务使用 { $hours } 小时，另加每月预计复用 { $reuse } 小时
billing-break-even-full = 每月使用超过 { $breakeven } 小时（{ $share }% 的时间）包月才划算；本任务连续运行 { $duration }（每个整月的 { $month } 小时全部占用）
billing-monthly-only = 仅包月：每节点按整{ $months ->
    [1] 月
   *[other] { $months } 个月
}计费，实际只用 { $hours } 小时（无已知按量价格）；排在有按量价格的方案之后
billing-consecutive-periods = 每节点按 { $parts } 个月连续购买，每段到期时续费（该云 API 接受的最长时长为 { $longest } 个月）
bind-unpriced-billing-left-out = { $n } 个方案的规格在目录中没有{ $billing }价格，在指定 --billing 时无法核对预算，已排除（可用 `gpuplan catalog import` 导入该价格，或用 `--billing auto`）
warn-train-dequantized = 检查点以 { $weights } 发布（其配置中的 quantization_config）；训练时会反量化为 bf16 加载（transformers 对 MXFP4 使用 Mxfp4Config(dequantize=True)），因此基座权重按任务的存储方式估算（16 位；QLoRA 将 bf16 权重重新量化为 NF4），而非按 { $weights }
warn-train-unread-checkpoint = 检查点的 quantization_config.quant_method 为 { $method }，gpuplan 不读取该格式；权重按任务加载的方式估算（按其精度，即反量化后；QLoRA 的基座按从 16 位重新量化的 NF4），而非按存储格式
warn-train-bnb-base = 检查点以 { $weights } 权重发布（bitsandbytes，见其配置中的 quantization_config），这正是 QLoRA 加载的格式：冻结基座按存储方式估算，每个权重 { $bits } 位
warn-bnb-skipped-linears = 检查点的 llm_int8_skip_modules 将 { $count } 个解码器模块保留为 16 位（{ $modules }）；gpuplan 按检查点的位数估算所有解码器线性层，因此这些权重被低估

# 价格说明：包月的盈亏平衡、抢占式的中断、估算价格的来历、存储类型的理由（money.rs、catalog/mod.rs）。
billing-spot-note = 预计被回收 { $n } 次（每节点每小时 { $rate } 次）；每 { $min } 分钟保存检查点（写入 { $write } 秒）；时间增加 { $pct }%
price-spot-estimate = 按量价格的 { $pct }%（可调常数 spot_price_fraction；腾讯云文档称竞价实例约为按量价格的 10%–20%，阿里云称可低至 10%）；请用 `gpuplan catalog import` 导入真实的抢占式价格
price-spot-od-method = ；按量价格：{ $method }
price-per-gpu-estimate = { $gpus } 卡 × { $from } 的单卡价格（{ $n } 卡 ¥{ $cny }），取卡数最接近的同芯片规格；未计 CPU、内存和网络的差异
storage-why = { $class } 在 { $cap } GiB 时可达 { $mbs } MB/s（需要读取 { $read }{ $shared ->
    [yes] ，由所有节点共享
   *[no] {""}
}；数据集 { $data } GiB + 3 个检查点，每个 { $ckpt } GiB）
