# 错误信息（error.rs 的 CoreError；crates/gpuplan 中 CLI 自身的错误）。`raw` 原样显示文本。

raw = { $text }
error-prefix = 错误：
warning-prefix = 警告：
note-prefix = 提示：
error-chain-sep = ：
err-invalid-field = `{ $field }` 的值 { $value } 无效：{ $fix }
err-missing-fields = 模型配置缺少 { $fields }：请在 config.json 中补上（或使用预置模型：`gpuplan models`）
err-unknown = 未知的{ $kind } `{ $name }`{ $suggestions ->
    [none] {""}
   *[other] ；您是否要找：{ $suggestions }？
}
err-parse = { $what }：{ $message }
kind-model = 模型
kind-gpu = GPU
kind-instance-type = 实例规格
kind-tunable = 可调常数
kind-instance-type-this-name-circulates-in-blog-posts-but-is-wrong = 实例规格（此名称在博客中流传，但并不存在）
fix-chip-lacks-precision = { $gpu } 不支持 { $dtype }（依据：{ $source }）；请用 --precision { $alt } 或换一种芯片
fix-chip-lacks-flash = FlashAttention-2 不能在 { $gpu } 上运行（仅 Ampere 及更新架构）；请用 mem_efficient（PyTorch SDPA）或 eager
fix-tp-divides-heads = 必须能整除注意力头数（{ $heads }）；可试 { $try }
fix-serve-no-bf16 = { $gpu } 不支持 bf16（计算能力低于 8.0），vLLM 在此拒绝 bf16：请用 --weights fp16（字节数相同）
fix-tp-divides-heads-serve = 必须能整除注意力头数（{ $heads }）
fix-say-how-much-data = 请给出数据量：--tokens N，或 --samples N 加 --epochs E
fix-learned-positions = { $model } 的位置编码表只有 { $limit } 个位置：请给 --seq-len { $limit } 或更小
note-seq-len-fitted = 序列长度取 { $limit }（模型的上下文长度；默认的 { $was } 更长）：用 --seq-len 修改
fix-model-parallel-divides-gpus = 必须能整除 GPU 总数（{ $gpus }）：请调整 tp/pp/cp 或 GPU 数量
fix-global-batch-multiple = 必须是 micro-batch × 数据并行规模 = { $mb } × { $dp } = { $per } 的整数倍
fix-cp-divides-seq = 序列（{ $seq } 个 token）必须能均分到各上下文并行 rank：请选能整除 seq_len 的 cp
fix-virtual-stages = 交错流水线需要 pp ≥ 2，且每个虚拟阶段至少有 { $layers } 层中的一层（pp × virtual_stages ≤ { $layers }）
fix-last-stage-layers = 需要 pp ≥ 2，并给其余每个阶段至少留下 { $layers } 层中的一层
