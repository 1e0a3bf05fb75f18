# `gpuplan accuracy`：报告的表头、图例和汇总行（表格与 Markdown）。

acc-h-case = 案例
acc-h-kind = 类别
acc-h-metric = 指标
acc-h-published = 公开值
acc-h-predicted = 预测值
acc-h-error = 误差
acc-h-band = 容差带
acc-h-status = 状态
acc-h-in-sample-for = 用于拟合
acc-h-cases = 案例数
acc-h-within = 在容差带内
acc-h-known-misses = 已知偏差
acc-h-in-sample = 样本内（数量，绝对误差中位数）
acc-h-oos-n = 样本外数量
acc-h-oos-median = 样本外绝对误差中位数
acc-h-oos-mean = 样本外平均绝对误差
acc-h-source = 来源
acc-h-training-cases = 训练案例数
acc-h-median = 绝对误差中位数
acc-h-mean = 平均绝对误差
acc-h-held-out = 留出（未用于拟合任何常数）

acc-status-ok = 通过
acc-status-known-miss = 已知偏差
acc-status-fixed = 已修复？（请删除 known_deviation）
acc-status-out = 超出容差带
acc-held-yes = 是
acc-held-no = 否：拟合了 { $fits }

acc-summary = { $n } 个案例中 { $ok } 个在容差带内；样本外 { $oos } 个中 { $oos_ok } 个；平均 |误差| { $mean_all }（全部），{ $mean_oos }（样本外）。
acc-loso = 留一来源验证（{ $sources } 个留出来源的训练吞吐量和 GPU 小时，共 { $cases } 个案例）：|误差| 中位数 { $median }，平均 { $mean }。
acc-hours-split = GPU 小时（TrainTime，样本外）按来源所计口径划分：稳态速率（token 数 ÷ 所述每 GPU 每秒 token 数，或步数 × 所述单步时间；案例在 `steady_state` 中引用原文）{ $steady_n } 个案例，|误差| 中位数 { $steady }；实际耗时（集群上的运行天数、模型卡的总 GPU 时间：`[elapsed]`，与计划的小时数比较）{ $elapsed_n } 个案例，中位数 { $elapsed }；来源未说明 { $unstated_n } 个案例，中位数 { $unstated }。issue 10 的 10% 目标针对稳态口径。

acc-md-title = # 与公开数据对比的准确度
acc-md-generated = 由 `gpuplan accuracy --format markdown > docs/accuracy.md` 生成；请勿手工编辑。
acc-md-cases-1 = 案例：`cases/*.toml`（由 tools/gen_cases.py 从 shared/reference/public-benchmarks.jsonl 转换而来，
acc-md-cases-2 = `t-…` 训练案例由 tools/gen_cases_t.py 从 cases/sources/t.jsonl 转换而来；
acc-md-cases-3 = 未转换的内容及原因见 cases/SKIPPED.md）。各类别的容差带见 docs/methodology.md §Validation。
acc-md-in-sample = 标为 *样本内* 的案例曾用于校准所列常数，因此不能验证该常数。
acc-md-by-kind = ## 按类别：样本内与样本外
acc-md-serving-plans = ## 推理服务方案与引擎模型
acc-md-serving-plans-body = `plan --task inference` 用与 `estimate`（上面的案例）相同的引擎模型评估每个候选，所以推理服务方案随之变化。推理服务 v2 每一步（引擎规则、MoE 专家占用、延迟下限、PCIe 环、每层固定开销、二分的批大小搜索）中各场景首选方案如何变化及原因，逐个场景记录在 docs/methodology.md §"How the serving plans moved with the engine model (issue 11)"；crates/gpuplan/tests/plan_scenarios.rs 以快照固定当前方案。
acc-md-by-source = ## 按来源（留一来源验证）
acc-md-held-1 = 未用于拟合任何常数的来源被完整留出：其误差即留一来源验证的数值。
acc-md-held-2 = 对于校准过常数的来源，该数值需要去掉它重新拟合，这里没有这样做。
acc-md-cases = ## 案例
acc-md-misses = ## 已知偏差
acc-err-case = 案例 { $path }
acc-err-cases-folder-why = 无法读取案例文件夹 { $path }：{ $why }
acc-err-no-cases = { $path } 中没有案例文件（*.toml）：--cases 应指向案例文件所在的文件夹，例如仓库中的 cases/
