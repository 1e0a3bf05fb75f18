# Errors (CoreError in error.rs; the CLI's own errors in crates/gpuplan). `raw` shows text as is.

raw = { $text }
error-prefix = error:{" "}
warning-prefix = warning:{" "}
note-prefix = note:{" "}
error-chain-sep = :{" "}
err-invalid-field = invalid `{ $field }` = { $value }: { $fix }
err-missing-fields = model config is missing { $fields }: add { $n ->
    [one] it
   *[other] them
} to config.json (or use a preset: `gpuplan models`)
err-unknown = unknown { $kind } `{ $name }`{ $suggestions ->
    [none] {""}
   *[other] ; did you mean { $suggestions }?
}
err-parse = { $what }: { $message }
kind-model = model
kind-gpu = GPU
kind-instance-type = instance type
kind-tunable = tunable
kind-instance-type-this-name-circulates-in-blog-posts-but-is-wrong = instance type (this name circulates in blog posts but is wrong)
fix-chip-lacks-precision = { $gpu } has no { $dtype } support ({ $source }); use --precision { $alt } or another chip
fix-chip-lacks-flash = FlashAttention-2 does not run on { $gpu } (Ampere or later only); use mem_efficient (PyTorch SDPA) or eager
fix-tp-divides-heads = must divide the attention heads ({ $heads }); try { $try }
fix-serve-no-bf16 = { $gpu } has no bf16 (compute capability below 8.0), and vLLM refuses it there: use --weights fp16 (same bytes)
fix-tp-divides-heads-serve = must divide the attention heads ({ $heads })
fix-say-how-much-data = say how much data: --tokens N, or --samples N with --epochs E
fix-learned-positions = { $model } has a learned table of { $limit } positions: give --seq-len { $limit } or less
note-seq-len-fitted = seq_len { $limit } (the model's context; the default { $was } is longer): set --seq-len to change it
fix-model-parallel-divides-gpus = must divide the number of GPUs ({ $gpus }); change tp/pp/cp or the GPU count
fix-global-batch-multiple = must be a multiple of micro-batch × data-parallel size = { $mb } × { $dp } = { $per }
fix-cp-divides-seq = the sequence ({ $seq } tokens) must split evenly over the context-parallel ranks: choose a cp that divides seq_len
fix-virtual-stages = interleaving needs pp ≥ 2 and at least one of the { $layers } layers per virtual stage (pp × virtual_stages ≤ { $layers })
fix-last-stage-layers = needs pp ≥ 2 and leaves at least one of the { $layers } layers to each other stage
