# Phrases of parsers (serde_json, toml) and of provider responses (catalog/import.rs) that reach
# the user inside an English message: `phrase-*` ids, the English text exactly as the message
# holds it, replaced by the Chinese text of the same id (longest first) when the language is zh.
# No arguments: the surrounding names and numbers stay as they are.

phrase-json-expected-value = expected value at
phrase-json-eof-value = EOF while parsing a value at
phrase-json-eof-object = EOF while parsing an object at
phrase-json-eof-list = EOF while parsing a list at
phrase-json-eof-string = EOF while parsing a string at
phrase-json-trailing = trailing characters at
phrase-json-key-string = key must be a string at
phrase-json-expected-value-bare = expected value
phrase-json-eof-value-bare = EOF while parsing a value
phrase-json-eof-object-bare = EOF while parsing an object
phrase-json-eof-list-bare = EOF while parsing a list
phrase-json-eof-string-bare = EOF while parsing a string
phrase-json-trailing-bare = trailing characters
phrase-json-key-string-bare = key must be a string
phrase-json-number-range = number out of range
phrase-json-expected-comma-object = expected `,` or `{"}"}`
phrase-json-expected-comma-list = expected `,` or `]`
phrase-json-expected-colon = expected `:`
phrase-json-invalid-number = invalid number
phrase-json-invalid-escape = invalid escape
phrase-json-trailing-comma = trailing comma
phrase-json-recursion = recursion limit exceeded
phrase-json-expected-ident = expected ident
phrase-json-control-char = control character (\u0000-\u001F) found while parsing a string
phrase-toml-table-header = invalid table header
phrase-toml-duplicate-key = duplicate key
phrase-toml-in-table = ` in table `
phrase-toml-in-root = ` in document root
phrase-toml-expected-newline = expected newline
phrase-toml-invalid-string = invalid basic string
phrase-toml-invalid-float = invalid floating-point number
phrase-toml-invalid-hex = invalid hexadecimal integer
phrase-toml-invalid-octal = invalid octal integer
phrase-toml-invalid-binary = invalid binary integer
phrase-toml-invalid-integer = invalid integer
phrase-toml-expected-leading-digit = ; expected leading digit
phrase-toml-expected-digit = ; expected digit
phrase-serde-type-map = invalid type: a table (JSON object) or a TOML date-time
phrase-serde-type-sequence = invalid type: sequence
phrase-serde-type-boolean = invalid type: boolean
phrase-import-expected-array = expected an array
phrase-import-api-error = the response is an API error
phrase-import-not-alibaba = not a DescribeInstanceTypes, DescribeSpotPriceHistory or DescribePrice response (no InstanceTypes / SpotPrices / PriceInfo)
phrase-import-not-huawei = missing: not a ListFlavors response
phrase-import-not-tencent = missing: not a DescribeZoneInstanceConfigInfos response
phrase-import-empty-array = an empty array: no response page to import (give the response object, or an array of its pages)
phrase-import-want-gpu-count = expected a GPU count (GPUSpec is given)
phrase-import-want-gpu-model = expected the GPU model (GPUAmount is not 0)
phrase-import-want-price = expected a price
phrase-import-want-number = expected a number
phrase-import-found-nothing = , found nothing
phrase-import-found-bool = , found a boolean
phrase-import-found-number = , found a number
phrase-import-found-not-number = , found a string that is not one
phrase-import-found-array = , found an array
phrase-import-found-object = , found an object
phrase-hf-top-level = the top level must be a JSON object
phrase-empty-row-id = is empty: give the row an id

# Model import warnings (model/hf.rs).
phrase-model-no-type = config has no `model_type`; treated as a generic Llama-style decoder
phrase-model-unmapped = has no dedicated mapping; estimated as a generic gated-MLP decoder from the standard fields (hidden_size, num_hidden_layers, ...). Check the parameter count against the model card.
phrase-model-context-assumed = no max_position_embeddings: context length assumed 4096
phrase-model-mtp = multi-token-prediction layer(s) in the checkpoint are not counted (they are dropped for inference and most fine-tuning)
phrase-model-one-expert = : one expert that every token takes is a dense MLP; the model is sized as a dense one with an MLP of width `intermediate_size` =
phrase-model-whisper-encoder = whisper: the encoder always runs
phrase-model-whisper-units = positions per sample (30 s of audio, max_source_positions) and the decoder the sequence length; tokens and tokens/s count decoder tokens (seq_len per sample): samples/s = tokens/s ÷ seq_len
phrase-model-mllama = mllama: the cross-attention layers are counted like self-attention layers for the text KV cache; image tokens are charged to the cross-attention layers only
phrase-model-state-space = state-space (Mamba) layers are not modelled: gpuplan has no such layer, and estimating every layer as attention + MLP/MoE would give another model's parameters, FLOPs and memory; this config cannot be estimated

# Parser phrases found by tools/hostile_sweep.py (2026-12-05).
phrase-parse-recursion = recursion limit exceeded
phrase-serde-weight-format = internally tagged enum WeightFormat

# Qualifiers inside chip names (data/gpus.toml), read by i18n::gpu_name (audit r21).
phrase-gpu-variant-not-stated = variant not stated
phrase-gpu-unnamed-nvidia = unnamed 'NVIDIA GPU'
phrase-gpu-unnamed = unnamed,
phrase-gpu-per-chip = , per chip
