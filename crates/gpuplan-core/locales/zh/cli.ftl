# 解析命令行参数时（clap）的错误，以及 CLI 自身的错误。

cli-err-unknown-argument = 无法识别的参数 '{ $arg }'
cli-err-invalid-value = '{ $arg }' 的取值 '{ $value }' 无效（可选：{ $valid }）
cli-err-missing-argument = 缺少必需的参数 { $arg }
cli-err-invalid-subcommand = 未知的子命令 '{ $sub }'
cli-err-value-validation = '{ $arg }' 的取值 '{ $value }' 无效
cli-err-conflict = '{ $arg }' 不能与 '{ $other }' 同时使用
cli-err-suggest = 提示：您是否要用 '{ $s }'？
cli-err-help = 更多信息请运行 '--help'。
cli-err-no-model = 未指定模型：请用 --model NAME（见 `gpuplan models`）或 --model-config PATH/config.json
cli-err-bad-word = --{ $field } 的取值 `{ $value }` 无效：{ $why }
cli-err-in-file = 文件 { $file }
cli-err-set-form = --set `{ $value }`：格式应为 NAME=VALUE，例如 --set fragmentation=0.05
cli-err-set-number = --set { $name }：`{ $value }` 不是数字
cli-err-deadline = --deadline `{ $value }`：应为小时数（24），或 24h / 30d
cli-err-dataset-size = --dataset-size `{ $value }`：应为容量，例如 30TB、500GiB 或 1.5e12（字节）
cli-err-dataset-size-range = --dataset-size `{ $value }`：必须为正数且不超过 1 EB
cli-err-spot-needs-interruptible = --billing spot 需要同时给出 --interruptible：抢占式实例会被回收，任务必须能保存检查点并断点续训
cli-err-serving-flag = { $flag } 是推理服务参数：请加上 --task inference（或去掉 { $flag } 以规划训练）
cli-err-min-replicas = min_replicas { $value }：请给 1 到 { $max }（--min-replicas 或 [serve] min_replicas）
cli-err-peak-factor = peak_factor { $value }：请给给定负载的 1 到 100 倍，例如 1.5（--peak-factor 或 [serve] peak_factor）
cli-err-weights-plan = --weights `{ $value }`：可用 bf16、fp16、fp8、int8 或 int4
cli-err-weights-estimate = --weights `{ $value }` 无效：可用 fp32、bf16、fp16、fp8、int8、int4，或每个权重的位数，例如 4.5（GGUF Q4_K）
cli-err-top = --top { $value } 无效：显示的方案数，1–{ $max }
cli-err-max-price-age = --max-price-age `{ $value }` 无效：请给天数，例如 30d（或周数，例如 4w）
cli-err-instance-unmapped = 实例 `{ $id }` 的 GPU 未收录或为 vGPU 分片：请改用 --gpu 估算
cli-err-similar-families = { $error }
    名称相近的实例族：{ $hints }（`gpuplan catalog show FAMILY` 列出一个实例族）
cli-err-solve-needs-tpot = --solve max-throughput 需要 --tpot 秒数（每个输出 token 的时间目标，例如 0.05）
cli-err-solve-tpot-range = --tpot { $value } 无效：请给出 (0, 3600] 内的每输出 token 秒数，例如 0.05
cli-err-solve-needs-question = --solve 需要一个问题：max-context、max-batch 或 max-throughput
