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
