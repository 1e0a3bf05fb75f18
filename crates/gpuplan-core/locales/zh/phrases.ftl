# 解析器（serde_json、toml）和云厂商响应（catalog/import.rs）中出现在英文消息里的短语：
# 与 en/phrases.ftl 同一 id 的中文（见该文件说明）。

phrase-json-expected-value = 应有值，位于
phrase-json-eof-value = 解析值时文件意外结束，位于
phrase-json-eof-object = 解析对象时文件意外结束，位于
phrase-json-eof-list = 解析数组时文件意外结束，位于
phrase-json-eof-string = 解析字符串时文件意外结束，位于
phrase-json-trailing = 多余的字符，位于
phrase-json-key-string = 键必须是字符串，位于
phrase-json-expected-value-bare = 应有值
phrase-json-eof-value-bare = 解析值时文件意外结束
phrase-json-eof-object-bare = 解析对象时文件意外结束
phrase-json-eof-list-bare = 解析数组时文件意外结束
phrase-json-eof-string-bare = 解析字符串时文件意外结束
phrase-json-trailing-bare = 多余的字符
phrase-json-key-string-bare = 键必须是字符串
phrase-json-number-range = 数值超出范围
phrase-json-expected-comma-object = 应为 `,` 或 `{"}"}`
phrase-json-expected-comma-list = 应为 `,` 或 `]`
phrase-json-expected-colon = 应为 `:`
phrase-json-invalid-number = 无效的数字
phrase-json-invalid-escape = 无效的转义
phrase-json-trailing-comma = 多余的逗号
phrase-json-recursion = 超过嵌套深度上限
phrase-json-expected-ident = 应为 true、false 或 null
phrase-json-control-char = 解析字符串时遇到控制字符（\u0000-\u001F）
phrase-toml-table-header = 表头无效
phrase-toml-duplicate-key = 重复的键
phrase-toml-in-table = `，位于表 `
phrase-toml-in-root = `，位于文件顶层
phrase-toml-expected-newline = 应换行
phrase-toml-invalid-string = 字符串无效
phrase-toml-invalid-float = 无效的浮点数
phrase-toml-invalid-hex = 无效的十六进制整数
phrase-toml-invalid-octal = 无效的八进制整数
phrase-toml-invalid-binary = 无效的二进制整数
phrase-toml-invalid-integer = 无效的整数
phrase-toml-expected-leading-digit = ；开头应为数字
phrase-toml-expected-digit = ；应为数字
phrase-serde-type-map = 类型错误：表（JSON 对象）或 TOML 日期时间
phrase-serde-type-sequence = 类型错误：数组
phrase-serde-type-boolean = 类型错误：布尔值
phrase-import-expected-array = 应为数组
phrase-import-api-error = 响应是一个 API 错误
phrase-import-not-alibaba = 不是 DescribeInstanceTypes、DescribeSpotPriceHistory 或 DescribePrice 的响应（没有 InstanceTypes / SpotPrices / PriceInfo）
phrase-import-not-huawei = 缺失：不是 ListFlavors 的响应
phrase-import-not-tencent = 缺失：不是 DescribeZoneInstanceConfigInfos 的响应
phrase-import-empty-array = 空数组：没有可导入的响应页（请给出响应对象，或由各页组成的数组）
phrase-import-want-gpu-count = 应为 GPU 数量（已给出 GPUSpec）
phrase-import-want-gpu-model = 应为 GPU 型号（GPUAmount 不为 0）
phrase-import-want-price = 应为价格
phrase-import-want-number = 应为数字
phrase-import-found-nothing = ，实际为空
phrase-import-found-bool = ，实际为布尔值
phrase-import-found-number = ，实际为数字
phrase-import-found-not-number = ，实际为不是数字的字符串
phrase-import-found-array = ，实际为数组
phrase-import-found-object = ，实际为对象
phrase-hf-top-level = 顶层必须是 JSON 对象
phrase-empty-row-id = 为空：请为该行给出 ID

# 模型导入警告（model/hf.rs）。
phrase-model-no-type = 配置中没有 `model_type`；按通用的 Llama 式解码器处理
phrase-model-unmapped = 没有专门的映射；按通用门控 MLP 解码器根据标准字段（hidden_size、num_hidden_layers 等）估算。请对照模型卡核对参数量。
phrase-model-context-assumed = 没有 max_position_embeddings：上下文长度按 4096 假定
phrase-model-mtp = 个多 token 预测（MTP）层不计入（推理和大多数微调都会丢弃它们）
phrase-model-one-expert = ：每个 token 都使用的唯一专家就是一个稠密 MLP；模型按稠密模型估算，MLP 宽度取 `intermediate_size` =
phrase-model-whisper-encoder = whisper：编码器每个样本总是处理
phrase-model-whisper-units = 个位置（30 秒音频，max_source_positions），解码器处理序列长度个位置；token 数与 tokens/s 计的是解码器 token（每个样本 seq_len 个）：每秒样本数 = tokens/s ÷ seq_len
phrase-model-mllama = mllama：文本 KV 缓存中交叉注意力层按自注意力层计；图像 token 只计入交叉注意力层
phrase-model-state-space = 状态空间（Mamba）层未建模：gpuplan 没有这种层，把每一层都按注意力 + MLP/MoE 估算会得到另一个模型的参数量、FLOPs 和显存；无法估算此配置

# tools/hostile_sweep.py（2026-12-05）发现的解析器短语。
phrase-parse-recursion = 嵌套层数超过上限
phrase-serde-weight-format = 带 format 键的权重格式表（例如 { "{" } format = "int4", group = 128 { "}" }）

# 芯片名称（data/gpus.toml）中的限定语，由 i18n::gpu_name 读取（audit r21）。
phrase-gpu-variant-not-stated = 具体型号未注明
phrase-gpu-unnamed-nvidia = 未具名，标为 'NVIDIA GPU'
phrase-gpu-unnamed = 未具名，
phrase-gpu-per-chip = ，每颗芯片
