# Errors of the HTTP API (`gpuplan serve`, crates/gpuplan/src/serve); the CLI's own messages
# (errors.ftl, cli.ftl) are used wherever the API meets the same error.

api-body = request body
api-err-body-utf8 = request body: not UTF-8 (invalid byte at offset { $at }): send JSON text
api-err-body-empty = request body: empty; send a workload as JSON, e.g. { $example } (docs/workload-format.md)
api-err-body-object = request body: a JSON `{ $got }`, not an object; send a workload as one JSON object, e.g. { $example } (docs/workload-format.md)
api-err-model-config = model_config: the server reads no files; give the config.json's fields inline as `config`, or a preset as `model`
api-err-no-model = no model given: give a preset as `model` (GET /api/v1/models lists them) or the config.json's fields inline as `config`, e.g. { $example }
api-err-max-nodes = constraints.max_nodes { $value }: the server searches at most { $max } nodes per request; lower it, or run `gpuplan plan --max-nodes N` for a larger search
api-err-too-large = request body over the { $kib } KiB limit: a workload is a few KiB of JSON
api-err-timeout = no answer within { $s } s (the server is busy or the search is too large): narrow the constraints and retry
api-err-method = method not allowed here: POST for /plan and /estimate, GET for the rest (see /api/v1/openapi.json)
api-err-http = HTTP { $status }
api-err-not-found = no such page or API route: the API is under /api/v1 (see /api/v1/openapi.json)
api-err-language = language `{ $lang }`: served are en, zh
api-err-query-unknown = unknown query parameter `{ $key }`: accepted here: { $allowed } (and lang)
api-err-query-switch = query parameter `{ $key }={ $value }`: a switch takes true or false
api-err-query-number = query parameter `{ $key }`: '{ $value }' is not a number
api-err-query-integer = query parameter `{ $key }`: '{ $value }' is not a whole number (0, 1, 2, …)
api-err-query-choice = query parameter `{ $key }`: '{ $value }' is not one of { $valid }
api-err-query-value = query parameter `{ $key }`: '{ $value }' is not valid: { $why }
api-err-internal = internal error: { $error }
api-err-plan-key = request body: `{ $key }` is read by /api/v1/plan only, so /api/v1/estimate would ignore it: POST this body to /api/v1/plan, or describe the job with `training` or `inference` and `hardware` for an estimate
api-err-estimate-key = request body: `{ $key }` is read by /api/v1/estimate only, so /api/v1/plan would ignore it (a plan searches the hardware; its serving settings are in `serve`): POST this body to /api/v1/estimate, or narrow the search with `constraints`
api-err-content-type = content-type `{ $got }`: the API reads a body sent as JSON only; send the header `content-type: application/json` (curl: -H 'content-type: application/json')
api-err-content-type-none = content-type: the request has none, and the API reads a body sent as JSON only; send the header `content-type: application/json` (curl: -H 'content-type: application/json')
