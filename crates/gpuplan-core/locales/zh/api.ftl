# HTTP API（`gpuplan serve`，crates/gpuplan/src/serve）的错误；与 CLI 相同的错误一律用 CLI 的消息
# （errors.ftl、cli.ftl）。

api-body = 请求体
api-err-body-utf8 = 请求体不是 UTF-8（偏移 { $at } 处字节无效）：请发送 JSON 文本
api-err-body-empty = 请求体为空：请以 JSON 发送任务，例如 { $example }（docs/workload-format.md）
api-err-body-object = 请求体是 JSON `{ $got }`，不是对象：请以一个 JSON 对象发送任务，例如 { $example }（docs/workload-format.md）
api-err-model-config = model_config：服务端不读取文件；请把 config.json 的字段内联为 `config`，或用预置模型 `model`
api-err-no-model = 未给出模型：请用 `model` 给出预置模型（GET /api/v1/models 列出全部），或把 config.json 的字段内联为 `config`，例如 { $example }
api-err-max-nodes = constraints.max_nodes { $value }：服务端每个请求最多搜索 { $max } 个节点；请调小，或用 `gpuplan plan --max-nodes N` 做更大的搜索
api-err-too-large = 请求体超过 { $kib } KiB 上限：一个任务只有几 KiB 的 JSON
api-err-timeout = { $s } 秒内未能作答（服务端繁忙或搜索范围过大）：请收窄约束后重试
api-err-method = 此处不允许该方法：/plan 与 /estimate 用 POST，其余用 GET（见 /api/v1/openapi.json）
api-err-http = HTTP { $status }
api-err-not-found = 没有这个页面或 API 路由：API 位于 /api/v1 下（见 /api/v1/openapi.json）
api-err-language = 语言 `{ $lang }`：可用的是 en、zh
api-err-query-unknown = 未知的查询参数 `{ $key }`：此处可用 { $allowed }（以及 lang）
api-err-query-switch = 查询参数 `{ $key }={ $value }`：开关只接受 true 或 false
api-err-query-number = 查询参数 `{ $key }` 的值 '{ $value }' 无效：应为数字
api-err-query-integer = 查询参数 `{ $key }` 的值 '{ $value }' 无效：应为非负整数（0、1、2……）
api-err-query-choice = 查询参数 `{ $key }` 的值 '{ $value }' 无效：可选值为 { $valid }
api-err-query-value = 查询参数 `{ $key }` 的值 '{ $value }' 无效：{ $why }
api-err-internal = 内部错误：{ $error }
api-err-plan-key = 请求体：`{ $key }` 只由 /api/v1/plan 读取，/api/v1/estimate 会忽略它：请把此请求体发到 /api/v1/plan，或用 `training` 或 `inference` 和 `hardware` 描述任务来估算
api-err-estimate-key = 请求体：`{ $key }` 只由 /api/v1/estimate 读取，/api/v1/plan 会忽略它（方案会搜索硬件；服务设置在 `serve` 中）：请把此请求体发到 /api/v1/estimate，或用 `constraints` 缩小搜索范围
api-err-content-type = content-type `{ $got }`：API 只读取以 JSON 发送的请求体；请发送请求头 `content-type: application/json`（curl：`-H 'content-type: application/json'`）
api-err-content-type-none = content-type：请求没有这个请求头，而 API 只读取以 JSON 发送的请求体；请发送请求头 `content-type: application/json`（curl：`-H 'content-type: application/json'`）
