# 解析命令行参数时（clap）的错误，以及 CLI 自身的错误。

cli-err-unknown-argument = 无法识别的参数 '{ $arg }'
cli-err-invalid-value = '{ $arg }' 的取值 '{ $value }' 无效（可选：{ $valid }）
cli-err-missing-argument = 缺少必需的参数 { $arg }
cli-err-invalid-subcommand = 未知的子命令 '{ $sub }'
cli-err-missing-subcommand = 缺少子命令：请给出其中之一：{ $subs }
cli-err-value-validation = '{ $arg }' 的取值 '{ $value }' 无效
cli-err-conflict = '{ $arg }' 不能与 '{ $other }' 同时使用
cli-err-suggest = 提示：您是否要用 '{ $s }'？
cli-err-help = 更多信息请运行 '--help'。
cli-err-number = { $flag } `{ $value }`：{ $accepted }，例如 { $flag } { $example }
cli-err-number-suffix = { $flag } `{ $value }`：{ $accepted }，例如 { $flag } { $example }；这里不识别后缀（k、M 含义不唯一）：请完整写出 { $decimal } 或 { $binary }
cli-accepts-whole = 请给出用数字写的整数，不带单位或后缀
cli-accepts-number = 请给出用数字写的数（可带小数点或指数，如 1e-3），不带单位
cli-accepts-amount = 请给出数字，可带后缀 k、M、B 或 T（10^3、10^6、10^9、10^12）
cli-accepts-amount-positive = 请给出有限的正数（k、M、B、T = 10^3、10^6、10^9、10^12）
cli-accepts-latency = 请给出以秒为单位的时间（0.05），或带单位 ms、s（50ms、2s）
cli-err-no-model = 未指定模型：请用 --model NAME（见 `gpuplan models`）或 --model-config PATH/config.json
cli-err-bad-word = --{ $field } 的取值 `{ $value }` 无效：{ $why }
cli-err-in-file = 文件 { $file }
cli-err-set-form = --set `{ $value }`：格式应为 NAME=VALUE，例如 --set fragmentation=0.05
cli-err-set-number = --set { $name }：`{ $value }` 不是数字
cli-err-deadline = --deadline `{ $value }`：应为小时数（24），或 24h / 30d / 90m
cli-err-framework-megatron = --framework 指软件框架（pytorch、tensorflow、jax、mindspore、paddlepaddle）；Megatron-LM 是训练配置：请用 --profile megatron
cli-err-dataset-size = --dataset-size `{ $value }`：应为容量，例如 30TB、500GiB 或 1.5e12（字节）
cli-err-dataset-size-range = --dataset-size `{ $value }`：必须为正数且不超过 1 EB
cli-err-spot-needs-interruptible = --billing spot 需要同时给出 --interruptible：抢占式实例会被回收，任务必须能保存检查点并断点续训
cli-err-serving-flag = { $flag } 是推理服务参数：请加上 --task inference（或去掉 { $flag } 以规划训练）
cli-err-training-flag = { $flag } 是训练参数，对 --task inference 不起作用（请去掉它，或改用训练类 --task）
cli-err-serving-flag-estimate = { $flag } 是推理服务参数：请加上 --task inference，或去掉它（训练时每卡每步的序列数是 --micro-batch）
cli-err-tokens-and-samples = 请只给 --tokens（总量）或 --samples 加 --epochs 之一：两者都给时以 --tokens 为准，--samples 会被忽略
cli-err-epochs-with-tokens = --epochs 是遍历 --samples 的次数，不作用于 --tokens：请给 --samples N --epochs { $e }，或把总量写进 --tokens（{ $tokens } 个 token 遍历 { $e } 次 = --tokens { $total }）
cli-err-sample-bytes-unknown = { $model }：不知道每个训练样本在存储上占多少字节（图片文件与预先算好的 latent 大小不同），无法估算数据通路和存储：请给 --bytes-per-sample 字节数（或 [training] bytes_per_sample）
cli-err-serve-flag-kind = { $flag } 不适用于 { $model }：{ $kind ->
    [opaque] 它对每个请求的输入做一次前向计算，没有 token
   *[other] 它是编码器模型，每个请求一次前向计算，不生成 token
}（时延目标用 --ttft）
cli-err-unknown-gpu = { $flag } { $value }：目录中没有匹配的加速卡（可用 ID 或名称前缀）；已知 ID：{ $list }
cli-err-unknown-region = { $flag } { $value }：目录中没有实例规格或价格标明这个地域{ $close ->
    [none] {""}
   *[other] （是否指 { $close }？）
}；已知地域：{ $known }。不标地域的规格（内置目录中的阿里云和华为云规格）只在不加 { $flag } 时列出
cli-err-gpu-chips = --gpu { $value } 指的是 { $families } 芯片，而 --chips { $chips } 不包括它：请加上，例如 --chips { $wanted }（默认为 nvidia）
cli-err-gpu-no-instance = --gpu { $value }：目录中没有实例规格搭载这种加速卡，无从规划；请去掉 --gpu，或在目录文件中加入它的实例规格（--catalog FILE；可用 `gpuplan catalog validate FILE` 检查）
cli-err-unknown-family = --family { $value }：目录中没有这个实例规格族{ $close ->
    [none] {""}
   *[other] ；是否指 { $close }？
}（`gpuplan catalog instances` 可列出全部）
note-columns-dropped = 此宽度下省略的列：{ $cols }（`--wide` 显示全部列）。
cli-err-min-replicas = min_replicas { $value }：请给 1 到 { $max }（--min-replicas 或 [serve] min_replicas）
cli-err-peak-factor = peak_factor { $value }：请给给定负载的 1 到 100 倍，例如 1.5（--peak-factor 或 [serve] peak_factor）
cli-err-steps-not-diffusion = --steps（或 [serve] steps）是扩散模型的去噪步数；{ $model } 不是扩散模型：请去掉它
cli-err-guidance-not-diffusion = --guidance（或 [serve] guidance）设置扩散模型的无分类器引导；{ $model } 不是扩散模型：请去掉它
cli-err-weights-plan = --weights `{ $value }`：可用 bf16、fp16、fp8、int8、int4（即分组大小 128 的 AWQ/GPTQ 4 位，也可写 awq、gptq；分组大小为 N（1 到 { $max } 个权重）时写 int4-g<N>，与方案表所列一致）、mxfp4，或方案列出的 bitsandbytes 标签（bnb-4bit、bnb-4bit-dq、bnb-8bit）
cli-err-weights-estimate = --weights `{ $value }` 无效：可用 fp32、bf16、fp16、fp8、int8、int4（即分组大小 128 的 AWQ/GPTQ 4 位，也可写 awq、gptq；分组大小为 N（1 到 { $max } 个权重）时写 int4-g<N>，与 plan 所列一致）、mxfp4、方案列出的 bitsandbytes 标签（bnb-4bit、bnb-4bit-dq、bnb-8bit），或每个权重的位数，例如 4.5（GGUF Q4_K）
cli-err-weights-bnb = --weights `{ $value }` 指 bitsandbytes 检查点的存储格式，其分块大小取自该检查点 config.json 的 `quantization_config`；{ $model } 的存储格式是 { $stored }：请用 --model-config 指定一个 { $value } 检查点的 config.json，或去掉 --weights 以按存储格式估算
cli-err-top = --top { $value } 无效：显示的方案数，1–{ $max }
cli-err-max-price-age = --max-price-age `{ $value }` 无效：请给天数，例如 30d（或周数，例如 4w）
cli-err-today = GPUPLAN_TODAY `{ $value }`：不是日期；请写成 YYYY-MM-DD，例如 GPUPLAN_TODAY=2026-12-03，或取消设置以使用系统时钟
cli-err-instance-unmapped = 实例 `{ $id }` 的 GPU 未收录或为 vGPU 分片：请改用 --gpu 估算
cli-err-similar-families = { $error }
    名称相近的实例族：{ $hints }（`gpuplan catalog show FAMILY` 列出一个实例族）
serve-listening = gpuplan serve：正在监听 http://{ $at }/（API 位于 /api/v1；无身份验证{ $reach ->
    [loopback] ，仅限本机访问）
   *[network] ：网络上的其他机器可以访问）
}
serve-stopped = gpuplan serve：已停止
serve-shutting-down = gpuplan serve：正在关闭（等待处理中的请求完成）
serve-err-not-loopback = --bind { $bind }：不是本机回环地址；服务没有身份验证，能访问到它的人都能使用：确需在此地址监听请加 --allow-remote
serve-err-runtime = 无法启动服务的运行时
serve-err-listen = --bind { $bind }：无法在此地址监听
cli-warn-both = 同时给出了 { $name_key } `{ $name }` 和 { $config_key } { $config }：以 { $config_key } 为准，忽略 { $name_key }
cli-warn-tpot-seconds = --tpot { $value } 表示每个输出 token { $value } 秒；如果指的是毫秒，请写 --tpot { $value }ms
cli-err-catalog-dir-unreadable = 无法读取用户目录 { $dir }：请修正其权限、设置 GPUPLAN_CONFIG_DIR，或加 --no-user-catalog
cli-err-catalog-dir-not-dir = 用户目录 { $dir } 不是目录：请修正、设置 GPUPLAN_CONFIG_DIR，或加 --no-user-catalog
cli-warn-more-in-row = （该行还有 { $n } 个问题）
cli-warn-row = { $file }：{ $location }：{ $message }{ $more }{ $tail }
cli-warn-row-skipped = ——已跳过该行
cli-warn-row-left-out = ——重写文件时已去掉该行
cli-note-other-findings = 用户目录文件中还有 { $n } 条其他检查结果：运行 `gpuplan catalog validate` 查看
import-left-out = 已去掉 { $what }
import-gpu-unknown = { $id }：GPU `{ $gpu }` 未知；已按 `unknown:{ $gpu }` 导入，不参与规划。可在用户目录文件中加一行 `[gpu_aliases]` "{ $gpu }" = "<gpu id>" 映射它
import-not-cny = { $file }：价格币种为 { $currency }，不是人民币；已跳过
import-next-token = { $file }：最后一页带有 NextToken `{ $token }`：还有更多实例规格；请带上 NextToken 再次调用 DescribeInstanceTypes，并把所有页一起导入
import-withdrawn = { $id }：状态为 `abandon`（已下线）；已跳过
import-err-nothing = 没有导入任何内容：响应中的 { $n } 行全部无效（见上方警告）；{ $file } 未改动
import-err-empty = 没有可导入的内容：响应中没有 GPU 或 NPU 实例规格，也没有价格；请给出{ $provider }列出 GPU 规格的 `{ $api }` 响应；{ $file } 未改动
import-dry-run = 试运行：将写入 { $instances } 个实例规格、{ $prices } 条价格到 { $file }{ $out ->
    [0] {""}
   *[other] ；已去掉 { $out } 行无效数据
}
import-done = 已导入 { $instances } 个实例规格和 { $prices } 条价格到 { $file }{ $out ->
    [0] {""}
   *[other] ；已去掉 { $out } 行无效数据
}
prices-err-instance-provider = --instance { $id } 属于 { $owner }，不属于 { $asked }：请去掉它，或用 `gpuplan prices fetch { $owner }` 获取
prices-err-family = --family { $family }：目录中没有该系列的 { $provider } 实例规格（见 `gpuplan catalog instances --provider { $provider }`）
fetch-err-endpoint-scheme = --endpoint `{ $url }`：请给出以 https:// 开头的地址（本地测试服务器可用 http://）
fetch-err-endpoint-host = --endpoint `{ $url }`：缺少主机名
fetch-err-max-rps = { $flag } { $value }：请给出每秒请求数，大于 0 且不超过 1000，例如 5
fetch-err-retries = { $flag } { $value }：每个请求的重试次数应为 0 到 100（默认 4）
fetch-err-timeout = { $flag } { $value }：请给出单个请求的超时秒数，1 到 3600，例如 20
fetch-dry-run = 试运行：向 { $provider } 发送 { $n } 个请求，结果将写入 { $path }
fetch-using-credentials = 使用 { $provider } 凭据 { $id }（来自 { $source }）
fetch-done = 已从 { $provider } 获取 { $n } 个价格（{ $sent } 个请求），写入 { $path }
fetch-failed = { $total } 个价格请求中有 { $n } 个失败：
fetch-failed-none-written = { $total } 个价格请求中有 { $n } 个失败；未写入任何内容，现有文件保持不变：
prices-none-billing = 没有匹配的 { $billing } 价格；`gpuplan prices fetch PROVIDER` 可获取

## gpuplan models
catalog-gpu-line = GPU：{ $name }（{ $mem } GiB，{ $bw } GB/s，bf16/fp16 { $tflops } TFLOPS；{ $confidence }，{ $as_of }）
catalog-gpu-unmapped = GPU：未映射（{ $gpu }）；在用户目录中添加 `[gpu_aliases]` 后才能用它做规划
catalog-prices-none = 价格：未知（没有找到该规格的公开价格；可用 `gpuplan catalog import` 导入）
catalog-price-line = 价格（{ $billing }）：¥{ $cny }（{ $kind }，{ $region }，{ $as_of }{ $age }）
catalog-price-method = {" "}— 计算方法：{ $method }
catalog-price-source = {"  "}来源：{ $source }
catalog-family-head = 规格族 { $family }（{ $provider }）：{ $n } 个规格，{ $chip }
catalog-family-row = { $id }：{ $gpus } × { $gpu }，{ $vcpu } vCPU，内存 { $ram } GiB，网络 { $net } Gbit/s{ $vgpu ->
    [yes] （vGPU 分片）
   *[no] {""}
}
catalog-regions = 售卖地域：{ $list }
catalog-regions-none = 售卖地域：未见文档（请在控制台确认所在地域是否有售）
catalog-access = 购买限制：{ $access }（{ $note }）
catalog-access-english-note = 购买限制：{ $access }（英文原文：{ $note }）
catalog-source = 来源：{ $source }（{ $as_of }，{ $confidence }）
catalog-related = 以此开头的其他规格族：{ $list }
catalog-wrong-note = 说明："{ $name }" { $verdict }
catalog-wrong-note-provider = 说明（{ $provider }）："{ $name }" { $verdict }
models-arch = { $name }（{ $structure }）：hidden { $hidden }，{ $layers } 层，注意力头 { $heads }/{ $kv } kv，head_dim { $head_dim }，ffn { $ffn }，词表 { $vocab }，{ $gated ->
    [yes] 门控 MLP
   *[no] 普通 MLP
}，{ $norm }，{ $attention }，上下文 { $context }{ $moe }
models-structure-decoder_only = 仅解码器
models-structure-encoder_only = 仅编码器
models-structure-encoder_decoder = 编码器-解码器
models-arch-mla = MLA（q_lora_rank { $q }，kv_lora_rank { $kv }，qk_rope_head_dim { $rope }）
models-arch-moe = ，MoE：{ $experts } 个专家 × { $ffn }（top-{ $top }，{ $shared } 个共享专家，{ $dense } 个稠密层）
models-col-model = 模型
models-col-type = 类型
models-col-params = 参数量
models-col-active = 激活参数
models-col-published = 官方数字
models-col-layers = 层数
models-col-hidden = 隐藏维度
models-col-heads = 注意力头/KV 头
models-col-context = 上下文
models-narrow-note = 终端较窄：省略了类型、公布参数量、层数和隐藏维度（用 `gpuplan models show 名称`、`--format markdown` 或更大的 $COLUMNS 查看）。
models-narrow-dropped = 此宽度下还省略了：{ $cols }。
models-col-detail = 明细
models-embedding = token 嵌入
models-stem = 位置编码 / stem
models-layers = { $name } 层 × { $n }
models-per-layer = 每层 { $params }：{ $linears }
models-final-norms = 最终归一化
models-lm-head = LM head
models-tied = 与嵌入共享或无
models-total = 合计
models-published = 官方公布 { $n }
models-active = 每 token 激活
models-notes = 备注（数据原文，英文）：{ $text }
models-source = 来源：{ $text }
cli-err-solve-needs-tpot = --solve max-throughput 需要 --tpot 秒数（每个输出 token 的时间目标，例如 0.05）
cli-err-tpot-without-solve = --tpot 是 --solve max-throughput 的目标，其他情况下不会被读取：请加上 --solve max-throughput，或去掉 --tpot（估算按给定的 --batch 计算）
cli-err-solve-training = --solve 用于服务问题：请配合 --task inference 使用（训练任务没有可求解的 KV 池、批大小或 TPOT）
cli-err-estimate-opaque-serving = `estimate` 只估算 transformer 模型的推理部署（权重、KV cache、每 token 延迟）；{ $model } 只以总量描述（没有层结构和 KV cache）：请用 `gpuplan plan -m { $model } --task inference` 规划其推理部署（一个请求 = { $unit }）
cli-err-image-size = --image-size `{ $value }` 无效：请给出 宽x高 像素，例如 1024x768
cli-err-solve-tpot-range = --tpot { $value } 无效：请给出 (0, 3600] 内的每输出 token 秒数，例如 0.05
cli-err-solve-needs-question = --solve 需要一个问题：max-context、max-batch 或 max-throughput

## catalog gpus, prices
gpus-col-id = ID
gpus-col-name = 名称
gpus-col-tflops = bf16/fp16 TFLOPS
gpus-col-fp8 = fp8
gpus-col-link = 卡间互联
gpus-col-link-gbs = 互联 GB/s
gpus-col-stack = 软件栈
gpus-col-confidence = 可信度
gpus-col-as-of = 日期
gpus-legend = – = 无可靠来源（宁缺勿猜）。来源见 `gpuplan catalog gpus --format json`。
prices-col-provider = 云厂商
prices-col-instance = 实例规格
prices-col-gpu = GPU
prices-col-region = 地域
prices-col-billing = 计费方式
prices-col-per-gpu-hour = ¥/卡时
prices-col-kind = 价格类型
prices-col-as-of = 日期
prices-col-age = 天数
prices-col-vs-cheapest = 较最低价
prices-none = 没有匹配的价格；`gpuplan prices fetch alibaba|tencent|huawei` 用你的凭证获取当天价格
prices-old-note = { $n } 条价格已超过 90 天；`gpuplan prices fetch PROVIDER` 可获取当天价格

## Input files (cmd/mod.rs read_input)
input-kind-case-file = 案例文件
input-kind-catalog-file = 目录文件
input-kind-credential-file = 凭证文件
input-kind-model-config = 模型配置
input-kind-plan-file = 方案文件
input-kind-provider-response = 云厂商响应文件
input-kind-workload-file = 任务文件
input-err-unreadable = 无法读取{ $what } { $file }：{ $why }
input-err-directory = { $what } { $file } 是目录：请给出文件路径
input-err-not-regular = { $what } { $file } 不是普通文件（管道、套接字或设备）：请先保存为文件
input-err-too-big = { $what } { $file } 有 { $bytes } 字节，超过单个输入文件 { $limit } MiB 的上限：请拆分
input-err-grew = { $what } { $file } 在读取时超过了单个输入文件 { $limit } MiB 的上限
input-err-not-utf8 = { $what } { $file } 不是 UTF-8 文本（偏移 { $offset } 处字节无效）：请另存为 UTF-8
io-not-found = 文件或目录不存在
io-permission-denied = 没有权限
io-already-exists = 文件已存在
io-not-a-directory = 不是目录
io-is-a-directory = 是一个目录
io-storage-full = 磁盘空间不足
io-read-only = 文件系统只读
io-io-error = 输入/输出错误（系统错误号 5）
io-no-device-address = 没有这样的设备或地址（系统错误号 6）
io-busy = 设备或资源忙（系统错误号 16）
io-no-device = 没有这样的设备（系统错误号 19）
io-invalid-argument = 无效参数（系统错误号 22）
io-file-too-large = 文件过大（系统错误号 27）
io-name-too-long = 文件名过长（系统错误号 36）
io-symlink-loop = 符号链接层数过多（系统错误号 40）
io-other = 系统错误（错误号 { $errno }）

## --help（各选项的说明在 help.ftl）
help-values = （可选：{ $values }）
help-default = （默认：{ $value }）
help-builtin-help = 显示帮助
help-builtin-version = 显示版本
help-builtin-help-command = 显示本帮助，或所给子命令的帮助
cli-ctx-import-unreadable = { $path } 无法更新：请修正或删除该文件
cli-ctx-gpu-not-in-table = `{ $id }` 的 GPU `{ $gpu }` 不在 GPU 表中
cli-ctx-in-file = 位于 { $path }
cli-ctx-no-profiles = 没有 `profiles` 列表：请先配置 { $file } 命令行工具
cli-ctx-no-profile = `profiles` 中没有名为 `{ $name }` 的配置
cli-ctx-cannot-create = 无法创建 { $path }
cli-ctx-cannot-open-lock = 无法打开锁文件 { $path }
cli-ctx-cannot-lock = 无法锁定 { $path }
cli-ctx-not-a-file = { $path } 不是文件名
cli-ctx-cannot-read-link = 无法读取链接 { $path }
cli-ctx-cannot-write = 无法写入 { $path }
cli-creds-only-one = { $id } 和 { $secret } 只设置了一个：两个都设置，或都不设置以使用命令行工具的配置
cli-creds-none-home = 没有{ $provider }的凭证：请设置 { $id } 和 { $secret }（未设置 HOME，未读取命令行工具的配置）
cli-creds-none = 没有{ $provider }的凭证：请设置 { $id } 和 { $secret }，或先配置该云厂商的命令行工具（未找到 { $path }）
cli-warn-plan-two-jobs = 工作负载同时含有 `[training]` 和 `[serve]`：`plan` 只规划 `[{ $used }]` 任务，忽略 `[{ $ignored }]`（在文件中用 `kind = "training"` 或 `kind = "inference"` 选择，或用 --task）
cli-warn-estimate-serve = 工作负载的 `[serve]` 表只由 `plan` 读取：`estimate` 估算 `[{ $job }]` 任务并忽略它（估算的推理设置写在 `[inference]` 中；`[serve]` 请用 `gpuplan plan --workload`）
cli-warn-plan-ignores = `[{ $key }]` 只供 `gpuplan estimate` 读取：`plan` { $key ->
    [hardware] 会自行搜索硬件（可用 --gpu、--family 或 --provider 限定）
   *[other] 的推理设置取自 `[serve]`
}；此表被忽略
cli-note-paged-peft = --paged-optimizer 只在全参训练中计入：LoRA/QLoRA 适配器的优化器状态很小，仍按显存计入（见 docs/methodology.md “训练步选项”）
cli-note-weights-awq = awq（--weights，或任务文件中的 `weights`）按 int4-g128 计算：AWQ 的 4 位权重，每 128 个输入一个 16 位缩放因子和零点（AutoAWQ 的默认分组；同分组的 GPTQ 检查点字节数相同），由引擎的 AWQ 内核运行；vLLM 和 SGLang 仅在计算能力 7.5 及以上加载 AWQ，因此低于该值的方案不使用它（--weights gptq 从 6.0 起可加载）
cli-note-qlora-recompute = hugging_face 配置下的 QLoRA 按每层重算计算（--recompute full）：PEFT 的 prepare_model_for_kbit_training 默认开启梯度检查点，除非脚本传入 use_gradient_checkpointing=False；若脚本如此，请加 --recompute none（或在任务文件中写 `recompute`）

# 价格日期后的“多少天前”（prices::age_label）。
price-age = ，{ $days } 天前
