# Errors (CoreError in error.rs; the CLI's own errors in crates/gpuplan). `raw` shows text as is.

raw = { $text }
error-prefix = error:{" "}
warning-prefix = warning:{" "}
note-prefix = note:{" "}
error-chain-sep = :{" "}
err-invalid-field = invalid `{ $field }` = { $value }: { $fix }
err-missing-value = `{ $field }` is missing: { $fix }
err-missing-fields = model config is missing { $fields }: add { $n ->
    [one] it
   *[other] them
} to config.json (or use a preset: `gpuplan models`)
err-unknown = unknown { $kind } `{ $name }`{ $suggestions ->
    [none] {""}
   *[other] ; did you mean { $suggestions }?
}{ $note ->
    [none] {""}
   *[other] { $suggestions ->
        [none] : { $note }
       *[other] {" "}If not: { $note }
    }
}
err-parse = { $what }: { $message }
kind-model = model
kind-gpu = GPU
kind-instance-type = instance type
kind-tunable = tunable
kind-instance-type-this-name-circulates-in-blog-posts-but-is-wrong = instance type (this name circulates in blog posts but is wrong)
fix-chip-lacks-precision = { $gpu } has no { $dtype } support ({ $source }); use --precision { $alt } or another chip
fix-chip-lacks-flash = FlashAttention-2 does not run on { $gpu } (Ampere or later only); use mem_efficient (PyTorch SDPA) or eager
fix-serve-no-bf16 = { $gpu } has no bf16 (compute capability below 8.0), and vLLM refuses it there: use --weights fp16 (same bytes)
fix-tp-divides-heads-serve = must divide the attention heads ({ $heads }) and divide or be a multiple of the KV heads ({ $kv }), { $engine ->
        [vllm] as vLLM's attention layers require
        [sglang] as SGLang's attention layers require
       *[other] the split vLLM's and SGLang's attention layers require, which the model applies to --engine { $engine } as well
    }; try { $try }
fix-tp-divides-heads-train = must divide the attention heads ({ $heads }) and the KV heads ({ $kv }): Megatron-Core and torchtitan give every TP rank whole KV heads (set training.parallel.kv_heads_replicated = true only for a stack that copies the KV heads to every rank); try { $try }
fix-engine-nvidia-only = TensorRT-LLM runs on NVIDIA GPUs only, not on { $gpu }: use --engine vllm (or sglang)
fix-engine-min-cc = { $engine } does not start on { $gpu } (compute capability { $cc }; it needs { $min }: vLLM's CUDA kernels are built from 7.0, and SGLang stops at load below 7.5, "SGLang only supports sm75 and above"): use --engine vllm on a chip from 7.0 (V100, T4), or a chip of compute capability { $min } or later
fix-say-how-much-data = say how much data: --tokens N, or --samples N with --epochs E
fix-rate-or-concurrency = give the load one way, not both: a rate (--rate, rate_rps: requests per second arriving) or a concurrency (--concurrency: requests in flight)
fix-learned-positions = { $model } has a learned table of { $limit } positions: give --seq-len { $limit } or less
note-seq-len-beyond-context = seq_len { $seq } is longer than the context of { $model } ({ $limit } positions): positions past it need position scaling (RoPE models: rope_scaling, e.g. YaRN) in the model config, or quality drops; kept at { $seq } as given
note-seq-len-fitted = seq_len { $limit } (the model's context; the default { $was } is longer): set --seq-len to change it
fix-gpu-no-peak-latency = no sourced peak FLOP/s; latency cannot be estimated
fix-gpu-no-bandwidth-latency = no sourced memory bandwidth; decode latency cannot be estimated

## Fixed sentences of field checks (found by their English text: i18n::fixed_text)
fix-attention-span-packed = keys a query attends over in packed sequences (E[l²]/E[l] of the documents), 1 to seq_len
fix-lora-dropout-probability = a dropout probability, 0 ≤ p < 1 (typical: 0, 0.05, 0.1)
fix-lora-rank-1-65536-typical-8 = LoRA rank, 1–65536 (typical: 8–64)
fix-name-the-linears-to-adapt-q = name the linears to adapt (q_proj,v_proj,...) or all-linear
fix-sequences-per-device-per-micro-step = sequences per device per micro-step, 1–65536 (typically 1–64)
fix-tokens-per-sequence-1-16777216-e = tokens per sequence, 1–16777216 (e.g. 2048)
fix-micro-batches-per-optimizer-step-1 = micro-batches per optimizer step, 1–1048576
fix-tensor-parallel-degree-1-65536-usually = tensor-parallel degree, 1–65536 (usually ≤ 8, inside a node)
fix-pipeline-parallel-degree-1-65536 = pipeline-parallel degree, 1–65536
fix-expert-parallel-degree-1-65536 = expert-parallel degree, 1–65536
fix-context-parallel-degree-1-65536-the = context-parallel degree, 1–65536 (the sequence is split over cp devices)
fix-expert-tensor-parallel-degree-1-65536 = expert tensor-parallel degree, 1–65536 (the ranks each routed expert is split over)
fix-virtual-pipeline-stages-per-device-1 = virtual pipeline stages per device, 1–65536 (1 = plain 1F1B)
fix-zero-stages-are-0-1-2 = ZeRO stages are 0, 1, 2 or 3
fix-layers-on-the-last-pipeline-stage = layers on the last pipeline stage, at least 1 (and fewer than the model's layers)
fix-layers-on-the-first-pipeline-stage = layers on the first pipeline stage, at least 1 (and fewer than the model's layers)
fix-parameter-offload-needs-zero-3-or = parameter offload needs ZeRO-3 (or FSDP full shard): set parallel.zero = 3
fix-chips-one-or-more-of-nvidia = --chips: one or more of nvidia, ascend, amd (default nvidia)
fix-billing-auto-on-demand-or-monthly = --billing: auto, on-demand or monthly for a serving plan (spot is priced for interruptible training only; a reclaimed replica drops its requests)
fix-training-tokens-at-least-1-and = training tokens, at least 1 and at most 1e16 (e.g. 1e8)
fix-training-samples-at-least-1-and = training samples, at least 1 and at most 1e15
fix-passes-over-the-samples-samples-epochs = passes over the samples: samples × epochs is at least one sample
fix-passes-over-the-samples-a-positive = passes over the samples, a positive number up to 1e6
fix-stored-bytes-per-sample-a-positive = stored bytes per sample, a positive number up to 1e12
fix-dataset-size-in-bytes-a-positive = dataset size in bytes, a positive number up to 1e18 (1 EB)
fix-weights-per-quantisation-group-e-g = weights per quantisation group, e.g. 128
fix-bits-per-weight-between-1-and = bits per weight between 1 and 32 (GGUF Q4_K ≈ 4.5)
fix-a-fraction-in-0-1-vllm = a fraction in (0, 1]; vLLM's default is 0.9
fix-tensor-parallel-degree-1-65536 = tensor-parallel degree, 1–65536
fix-paged-kv-block-size-in-tokens = paged-KV block size in tokens, e.g. 16
fix-concurrent-sequences-1-1048576 = concurrent sequences, 1–1048576
fix-prompt-tokens-1-16777216 = prompt tokens, 1–16777216
fix-generated-tokens-per-request-1-16777216 = generated tokens per request, 1–16777216
fix-context-length-in-tokens-1-16777216 = context length in tokens, 1–16777216
fix-tokens-per-batch-1-16777216 = tokens per batch, 1–16777216
fix-a-fraction-in-0-1-sglang = a fraction in (0, 1]; SGLang's default is 0.88 at TP 1
fix-a-fraction-in-0-1-tensorrt = a fraction in (0, 1]; TensorRT-LLM's default is 0.9
fix-images-per-request-0-1024 = images per request, 0–1024
fix-nodes-per-plan-1-4096-max = nodes per plan, 1–4096 (--max-nodes)
fix-deadline-hours-more-than-0-and = --deadline: hours, more than 0 and at most 87600 (10 years): e.g. 24h or 30d
fix-budget-a-positive-amount-in-cny = --budget: a positive amount in CNY, at most 1e12
fix-preemption-rate-preemptions-per-node-hour = --preemption-rate: preemptions per node-hour, at least 0 and below 1 (default 0.02)
fix-minutes-to-resume-after-a-preemption = minutes to resume after a preemption, 0–10080 (default 10)
fix-reuse-hours-hours-per-month-of = --reuse-hours: hours per month of reuse after the job, 0–730
fix-prompt-tokens-per-request-1-16777216 = prompt tokens per request, 1–16777216
fix-rate-requests-per-second-more-than = --rate: requests per second, more than 0 and at most 1e7
fix-concurrent-requests-1-10000000 = concurrent requests, 1–10000000
fix-sequences-per-optimizer-step-1-16777216 = sequences per optimizer step, 1–16777216
fix-samples-epochs-seq-len-comes-to = samples × epochs × seq_len comes to over 1e16 training tokens: fewer samples or epochs (or --tokens)
fix-computed-a-value-that-is-not = computed a value that is not a finite, non-negative number; check the inputs of this model and task (and report it: this is a bug)
fix-at-most-1024-gpus-per-node = at most 1024 GPUs per node and 1048576 GPUs in all
fix-must-be-at-least-1 = must be at least 1
fix-must-be-a-finite-non-negative = must be a finite, non-negative number (at most 1e6)
fix-spot-price-as-a-share-of = spot price as a share of on-demand, 0.001–1
fix-images-per-second-per-cpu-core = images per second per CPU core, 0.001–1e6
fix-hours-billed-before-the-first-step = hours billed before the first step, 0–720
fix-dp-overlap-must-be-in-0 = dp_overlap must be in [0, 1] and fragmentation in [0, 1)
fix-hours-between-checkpoints-e-g-1 = hours between checkpoints, 1/60 (one minute) to 8760, e.g. 1
fix-a-share-in-0-1-1 = a share in [0, 1]: 1 for synchronous saves, lower for asynchronous checkpointing
fix-failure-rate-per-gpu-hour = interruptions per GPU-hour, 0–1
fix-failure-restart-minutes = minutes to restart after an interruption, 0–10080
fix-must-all-be-finite-numbers = must all be finite numbers
fix-must-be-a-positive-integer = must be a positive integer
fix-cannot-exceed-num-hidden-layers = cannot exceed num_hidden_layers
fix-set-head-dim-or-a-hidden = set head_dim, or a hidden_size divisible by num_attention_heads

## Catalog findings (catalog/validate.rs)
finding-memory-mib = { $value } GiB per device looks like MiB: give memory_gib in GiB (e.g. 80 for an 80 GB card)
finding-ram-mib = { $value } GiB looks like MiB: give ram_gib in GiB
finding-gpu-memory-mib = { $value } looks like MiB: the field is GiB per GPU (the chip has { $chip } GiB)
validate-summary = { $files } file(s) checked: { $errors } error(s), { $warnings } warning(s)
fix-prompt-beyond-context = { $model } reads at most { $ctx } tokens (max_position_embeddings): shorten the prompt or the output

## HF config.json keys (model/hf.rs)
hf-at-least-one = must be at least 1
hf-whole-number = expected a whole number from 0 to { $max }
hf-bool = expected true or false
hf-string = expected a string
hf-rotary-fraction = expected a number more than 0 and at most 1 (the share of each head's width that RoPE rotates, e.g. 0.5)
hf-layer-types = expected a list of "sliding_attention" or "full_attention", one per layer ({ $layers }); other attention kinds (chunked, linear) are not modelled
hf-unmodelled-linear-attention = linear-attention layers (Qwen3-Next's Gated DeltaNet, MiniMax's lightning attention, Kimi's KDA) are not modelled: they keep a fixed-size state instead of a KV cache and carry other weights, and estimating every layer as softmax attention + MLP/MoE would give another model's parameters, KV cache and FLOPs; this config cannot be estimated
hf-unmodelled-recurrence = recurrent layers (RecurrentGemma's RG-LRU, RWKV, xLSTM) are not modelled: gpuplan has no such layer, and estimating every layer as attention + MLP/MoE would give another model's parameters, FLOPs and memory; this config cannot be estimated
hf-unmodelled-convolution = short-convolution layers (LFM2) are not modelled: gpuplan has no such layer, and estimating every layer as attention + MLP/MoE would give another model's parameters, FLOPs and memory; this config cannot be estimated
hf-unmodelled-sparse-attention = DeepSeek Sparse Attention (DeepSeek-V3.2's indexer: a key cache of its own and attention over the top `index_topk` tokens) is not modelled: estimating it as dense MLA would size another model's KV cache and attention FLOPs; this config cannot be estimated (DeepSeek-V3 is a preset)
hf-unmodelled-llama4 = Llama 4's layer schedule is not modelled (chunked local attention on three layers of four, MoE layers with a shared expert interleaved with dense layers of `intermediate_size_mlp`): reading it as a plain MoE decoder gives another model's parameters (Maverick's 400B read as 779B) and KV cache; this config cannot be estimated
fix-workload-table-not-list = `{ $key }` takes a table of named keys, not a list (a list's values would be read by position, or as a repeated `[[{ $key }]]` table): write one `[{ $key }]` table (in JSON an object) with its keys named, see docs/workload-format.md
fix-model-empty = an empty name is no model: give a preset name (`gpuplan models` lists them), or a HuggingFace config.json (--model-config, the workload's `model_config` or its `[config]` table)
hf-rope-scaling = expected an object with a type and a positive factor, e.g. {"{"}"rope_type": "yarn", "factor": 4.0, "original_max_position_embeddings": 32768{"}"}
hf-layer-list = expected a list of layer indices, e.g. [0, 1]
hf-divisible-by-heads = must be divisible by the number of attention heads ({ $heads }), or give { $width_key }
hf-divisible-by-heads-only = must be divisible by the number of attention heads ({ $heads }): this model family splits it evenly among the heads (no head-width key): change the head count or the width
hf-bad-key = { $why } (config.json key `{ $key }`)
hf-top-k-over-experts = a token cannot be routed to more experts than the layer has (`{ $experts_key }` = { $experts }): set `{ $experts_key }` to the model's number of routed experts, or remove the experts-per-token key for a dense model
hf-moe-count-unread = describes a mixture of experts, but gpuplan reads the number of routed experts only from `num_local_experts`, `num_experts` or `n_routed_experts` (and the experts per token from `num_experts_per_tok`): without them the model would be sized as a dense one, with a fraction of its parameters. Give those keys the model's values, or remove this key for a dense model
fix-a-latency-target-in-seconds-more = a latency target in seconds, more than 0 and at most 3600 (e.g. --ttft 2 --tpot 0.06)
fix-per-node-network-bandwidth-in-gbit = per-node network bandwidth in Gbit/s, e.g. 100 or 800
fix-host-vcpus = hardware threads per node, 1 to 65536, e.g. 256 for 2 × 64 cores with SMT
fix-the-shapes-describe-more-than-1e15 = the shapes describe more than 1e15 parameters: check hidden_size, num_hidden_layers, intermediate_size and the expert counts
fix-tensorflow-and-jax-have-no-maintained = TensorFlow and JAX have no maintained Ascend backend for training
fix-mindspore-and-paddlepaddle-training-on-amd = MindSpore and PaddlePaddle training on AMD Instinct is not supported upstream
finding-empty-region = `{ $field }` is empty: give the region id (e.g. cn-shanghai)
finding-empty-instance = `{ $field }` is empty: give the instance type id the price is for
finding-empty-gpu = `{ $field }` is empty: give an accelerator id (`gpuplan catalog gpus`)
finding-empty-name = `{ $field }` is empty: give the display name
finding-array-of-tables = must be an array of tables (`[[{ $name }]]` blocks)
finding-value-fix = { $why }: { $fix }
finding-fix-family-list = give a list of family names
finding-fix-alias-table = give a table of "raw name" = "gpu id"
finding-not-a-table = not a catalog table (expected gpu, instance, price, storage, wrong, hide_families or gpu_aliases); it is ignored
finding-gpu-unmapped = chip `{ $chip }` is not mapped to a catalog GPU: add a gpu_aliases entry; the instance is kept out of planning
fix-experts-per-token = must be between 1 and the number of experts ({ $experts })
fix-describeprice-needs-instance = a DescribePrice response does not name the instance: pass --instance TYPE and --billing on-demand|monthly|spot
finding-empty-id = `{ $field }` is empty: give the row an id
finding-not-positive = { $value } is not valid: give a positive number of { $unit }
finding-not-zero-or-positive = { $value } is not valid: give a zero or positive number of { $unit }
finding-duplicate = duplicate { $what } in this file: the first row is kept, remove this one
finding-gpu-count = { $value } is not a GPU count: give 1 to { $max } (fractions below 1 mark vGPU slices)
finding-gpu-unknown = `{ $gpu }` is not in the GPU table (`gpuplan catalog gpus`): add a [[gpu]] row or use a listed id
finding-not-a-price = { $value } is not a price: zero, negative and non-finite prices are never valid (leave the price out when unknown)
fix-needs-a-non-empty-source-and = needs a non-empty source and an as_of date (YYYY-MM or YYYY-MM-DD)
fix-contains-control-characters-use-printable-text = contains control characters: use printable text
fix-not-given-memory-per-device-gib = not given: memory per device (GiB) is needed to plan with this accelerator
fix-no-bf16-or-fp16-peak-give = no bf16 or fp16 peak: give tflops.bf16 or tflops.fp16 (dense TFLOP/s), needed to estimate times with this accelerator
fix-must-be-confirmed-likely-or-unverified = must be confirmed, likely or unverified
fix-a-fractional-gpu-count-is-a = a fractional gpu_count is a vGPU slice: set vgpu = true
fix-an-estimate-must-say-how-it = an estimate must say how it was derived (method = "...")
fix-exceeds-max-capacity-gib = exceeds max_capacity_gib
fix-a-wrong-name-row-needs-a = a wrong-name row needs a non-empty name
fix-the-raw-chip-name-is-empty = the raw chip name is empty
fix-lora-no-linears = { $model } ({ $type }) is described by its totals and has no linear layers to adapt: use --task full
fix-lora-unknown-target = { $model } has no linear named so; valid names: { $names }, or all-linear
fix-lora-fused-pair = { $model } fuses { $present } and { $missing } into one parameter (transformers 5 `gate_up_proj`), and PEFT refuses to adapt one without the other ("Cannot convert PEFT target(s) { $present } without also targeting { $missing }"): name both, or neither; valid names: { $names }, or all-linear
fix-lora-modules-to-save = not a module PEFT's modules_to_save can train here; valid names: { $names } (the token embedding or the LM head)
fix-lora-fused-qkv = fused_qkv is derived, not chosen: for { $model } under framework = "{ $framework }" with these targets it is { $fused } (q/k/v are one adapter under megatron, or on a fused module such as GPT-2's c_attn); remove the key or set it to { $fused }
fix-filter-gpus = GPUs per instance type, more than 0 and at most 1024 (e.g. 8; vGPU slices: 0.25)
fix-filter-min-gpu-memory = GiB per GPU, 0 to 10000 (e.g. 80)
fix-filter-max-price = CNY per hour (per month with --billing monthly), more than 0 and at most 1e12
fix-model-parallel-divides-gpus = must divide the number of GPUs ({ $gpus }); change tp/pp/cp or the GPU count
fix-global-batch-multiple = must be a multiple of micro-batch × data-parallel size = { $mb } × { $dp } = { $per }
fix-cp-divides-seq = the sequence ({ $seq } tokens) must split into 2 × cp equal chunks, two on each context-parallel rank (Megatron-Core and TE's load-balanced split, as PyTorch's context_parallel under torchtitan): choose a cp with seq_len a multiple of 2 × cp
fix-deepspeed-pp-zero = DeepSpeed's pipeline engine runs ZeRO-0 or ZeRO-1 only ("ZeRO-2 and ZeRO-3 are incompatible with pipeline parallelism") and this layout has { $pp } pipeline stages: set parallel.zero = 1 (--zero 1), or parallel.pp = 1 to shard with ZeRO-2/3
fix-json-comment = not valid JSON: a comment (`//` or `/* */`) starts there, and comments are not JSON (an editor for JSONC or JSON5 may add them); remove the comments and read the file again
fix-case-elapsed-metric = only a gpu_hours case can compare elapsed hours: remove [elapsed] or set metric = "gpu_hours"
fix-case-stages-metric = only a gpu_hours case can add stages: remove [[stages]] or set metric = "gpu_hours"
fix-case-steady-metric = only a gpu_hours case states what its hours count: remove steady_state or set metric = "gpu_hours"
fix-case-steady-elapsed = a source counts either a steady rate or elapsed time: keep steady_state or [elapsed], not both
fix-case-model = give `model = "PRESET"` or a [config] table
fix-case-unknown-metric = unknown { $kind ->
    [training] training
   *[inference] inference
} metric
note-quantized-name = the name is a quantized checkpoint's ({ $format }) and the presets are 16-bit: size it as { $preset ->
    [none] a preset
   *[other] `-m { $preset }`
} with `--weights { $weights }`, or give the checkpoint's own config.json with `--model-config` (its quantization_config is read)
note-quantized-name-config = the name is a quantized checkpoint's ({ $format }) and the presets are 16-bit: give the checkpoint's own config.json with `--model-config` (its quantization_config gives the format and block sizes)
fix-virtual-stages = interleaving needs pp ≥ 2 and at least one of the { $layers } layers per virtual stage (pp × virtual_stages ≤ { $layers })
fix-moe-a2a-overlap = the EP all-to-all overlap needs virtual_stages ≥ 2 when pp ≥ 2 (Megatron-Core runs it in the interleaved schedule only)
fix-moe-ep-settings-need-ep = the expert all-to-all settings (moe_a2a_overlap, moe_dispatcher) act on an MoE model's expert parallelism: use them with an MoE model at ep ≥ 2, or remove them
fix-moe-a2a-overlap-allgather = the EP all-to-all overlap runs with the alltoall, deepep or hybridep dispatcher only (Megatron-Core refuses it with allgather): set moe_dispatcher to one of them, or remove moe_a2a_overlap
fix-zero1-broadcast-needs-zero1 = per_rank broadcasts hand back a sharded optimizer's parameters: use it with zero = 1 or 2, or remove it
fix-fp32-grad-pass = fp32_grad_pass is DeepSpeed BF16_Optimizer's gradient copy: use it on a DeepSpeed stack (framework = "megatron" for Megatron-DeepSpeed, or deepspeed = true) with precision = "amp_bf16" and zero = 1, or remove it
fix-fp32-grad-pass-unfused-wgrad = fp32_grad_pass and gradient_accumulation_fusion = false both add each 16-bit gradient into an fp32 gradient (DeepSpeed's BF16_Optimizer, Megatron's DDP hook): keep the one the stack runs, remove the other
fix-fp32-grad-pass-sharding = fp32_grad_pass is DeepSpeed BF16_Optimizer, which always partitions its fp32 master weights and optimizer states over the data-parallel ranks itself (its own ZeRO-1, with zero_optimization.stage 0 in DeepSpeed's config) and has no CPU offload: set zero = 1 without offload_optimizer or offload_params, or remove fp32_grad_pass
fix-fsdp-offload-all-cores = fsdp_offload_all_cores is torchtune's thread count for the host optimizer step of FSDP CPU offload: use it with offload_params = true outside DeepSpeed and Megatron, or remove it
fix-fsdp-version-values = fsdp_version is torch FSDP's implementation: 1 (FullyShardedDataParallel: HF Trainer, accelerate by default) or 2 (fully_shard: torchtitan, torchtune, accelerate with fsdp_version: 2)
fix-fsdp-version-deepspeed = fsdp_version picks torch FSDP's implementation, but deepspeed = true shards with DeepSpeed ZeRO-3: remove fsdp_version or set deepspeed = false
fix-last-stage-layers = needs pp ≥ 2 and leaves at least one of the { $layers } layers to each other stage
fix-first-stage-layers = needs pp ≥ 2 and leaves at least one of the { $layers } layers to each other stage
fix-stage-split-middle = Megatron-Core splits the layers left after the stated first/last stage ({ $rest } of { $layers }) evenly over the other { $stages } stages: the nearest size that does is { $near }
fix-pp-even-split-megatron = with no first/last stage size stated, Megatron-Core builds layers / pp on every stage and stops when pp does not divide them (transformer_block.py get_num_layers_to_build: "num_layers should be divisible by pipeline_model_parallel_size"): { $pp } does not divide { $layers } layers. Choose a pp that divides them ({ $divisors }), or state the split: parallel.last_stage_layers = { $last } ({ $per } on every other stage) or parallel.first_stage_layers
fix-pp-even-split-other = under framework = "{ $framework }" a pipeline stack splits { $layers } layers over { $pp } stages its own way, and { $pp } does not divide them. Choose a pp that divides them ({ $divisors }), or state the split your stack makes with parallel.first_stage_layers and parallel.last_stage_layers (the middle stages share the rest): torchtitan's default split (generate_split_points) is first_stage_layers = { $first }, last_stage_layers = { $last }; DeepSpeed's PipelineModule balances parameters, embedding and head included, unless partition_method = 'uniform'
fix-stage-split-virtual = with { $vp } virtual stages Megatron-Core needs a stated first/last stage to hold a multiple of { $vp } layers
fix-stage-split-virtual-middle = Megatron-Core needs each middle rank's { $per } layers to split over the { $vp } virtual stages: choose virtual_stages dividing { $per }, or other first/last stage sizes
fix-pipeline-accounting-megatron = a Megatron-Core switch: set training.framework = "megatron", or state first_stage_layers/last_stage_layers for other stacks
fix-pipeline-accounting-with-stages = Megatron-Core refuses it beside first_stage_layers/last_stage_layers: keep one of the two ways to state the split
fix-pipeline-accounting-divides = with the embedding/loss counted as layers, the { $n } layers must split evenly over pp { $pp } and each rank's share over { $vp } virtual stages: choose pp (and virtual_stages) that divide them, or state first_stage_layers/last_stage_layers instead
finding-gpu-count-fraction = { $value } is not a whole number of GPUs
finding-vcpu-range = { $value } vCPUs is out of range: give 1 to 1024
finding-price-implausible = { $value } CNY is not a plausible instance price
finding-price-no-instance = no instance `{ $id }` in the catalog: add its [[instance]] row first
finding-price-provider = instance `{ $id }` is a { $owner } type, not { $asked }
finding-storage-price = { $value } is not a price: zero, negative and non-finite prices are never valid
finding-alias-unknown = maps to `{ $id }`, which is not in the GPU table

# Robustness sweep (tools/hostile_sweep.py): multimodal configs, parallel layouts, serving lengths.
fix-hf-table-object = must be a JSON object (the `{ $key }` table of a multimodal config.json), or left out
fix-vision-config-shape = needs the encoder width (hidden_size or embed_dim) and depth (num_hidden_layers or depth)
fix-vision-heads-divide = must divide the encoder width ({ $d })
fix-vision-patch-image = is larger than the image ({ $image } px): give a patch_size at most image_size
fix-vision-mlp-ratio = expected a positive number up to 1000 (MLP width ÷ encoder width)
fix-vision-too-large = the vision encoder's shapes describe more than 1e15 parameters: check hidden_size, num_hidden_layers, intermediate_size, image_size and patch_size
fix-cross-attention-layers = a list of distinct decoder layer indices below num_hidden_layers ({ $layers })
fix-no-flops-per-sample = no sourced FLOPs per sample for this model; time cannot be estimated
fix-no-peak-for-precision = no sourced peak FLOP/s for this chip and precision; time cannot be estimated (memory still can)
fix-intra-gbs = one-direction GB/s per GPU, e.g. 300 for NVLink 3
fix-estimate-not-a-number = the estimate came out as a value that is not a finite, non-negative number; check the inputs for this model (and report it: this is a bug)
fix-kv-needs-transformer = KV-cache sizing needs a transformer; this model is given by totals
fix-no-memory-size = no sourced memory size for this chip; add memory_gib in a user catalog
fix-latency-needs-transformer = latency needs a transformer
fix-solve-needs-transformer = --solve needs a transformer
fix-ep-needs-moe = expert parallelism needs a MoE model; set ep = 1
fix-totals-data-parallel-only = models given by totals (CNNs, UNets) train data-parallel only: set tp = pp = 1
fix-pp-at-most-layers = at most one stage per layer: the model has { $layers } layers
fix-ep-divides-experts = must divide the number of experts ({ $experts })
fix-tp-inside-node = tensor parallelism stays inside a node: at most { $n } here
fix-ep-divides-tp-dp = must divide tp × data-parallel size ÷ expert-TP ({ $n }; expert-TP is tp under Megatron-Core, 1 for whole experts): experts are split over EP ranks and their states sharded over the remaining expert-data-parallel ranks
fix-tp-needs-gpus = needs at least { $tp } GPUs; the hardware has { $gpus }
fix-kv-heads-divide = must divide num_attention_heads ({ $heads })
fix-max-model-len-context = { $model } has a context of { $ctx } tokens (max_position_embeddings); vLLM refuses a longer max_model_len
fix-max-model-len-request = shorter than one request ({ $input } prompt + { $output } output tokens): the engine refuses such requests; give at least { $need }, or fewer tokens per request
fix-images-no-vision = { $model } has no vision encoder (no vision_config): use 0, or a multimodal config
fix-images-exceed-context = { $n } images of { $per } tokens each + { $text } text tokens exceed the context of { $ctx } tokens: fewer or smaller images
fix-keep-16bit-layers = { $model } has { $layers } decoder layers: keep at most that many in 16-bit
fix-sequences-per-batch = sequences per batch, 1–16777216
fix-engine-version = a release as MAJOR.MINOR[.PATCH], e.g. 0.6.4
fix-fp8-params-megatron = FP8 parameters (Transformer Engine fp8_model_init, Megatron --fp8-param-gather) need precision = "fp8" and framework = "megatron": remove fp8_params or set both
fix-fused-classifier-clash = fused_classifier is llm.c's classifier kernel, which runs the whole vocabulary on one rank, trains every parameter and is the loss by itself: { $kind ->
    [tp] set tp = 1 (llm.c has no tensor parallelism and its kernel no vocab-parallel reduction) or remove fused_classifier
    [task] use task = "full" or "pretrain" (llm.c has no LoRA) or remove fused_classifier
    [framework] set framework = "megatron" (the fused-kernel profile that stands for llm.c's own C/CUDA kernels; the eager profiles model PyTorch modules llm.c does not have) or remove fused_classifier
    [pp] set pp = 1 (llm.c has no pipeline parallelism: train_gpt2.cu parallelizes over data only) or remove fused_classifier
    [virtual_stages] set virtual_stages = 1 (llm.c has no pipeline parallelism) or remove fused_classifier
    [cp] set cp = 1 (llm.c has no context parallelism) or remove fused_classifier
    [ep] set ep = 1 (llm.c has no expert parallelism) or remove fused_classifier
    [zero] set zero = 0 or 1 (llm.c's -z takes 0 or 1: "Zero Stage2 and Stage3 are not yet supported", llmc/zero.cuh) or remove fused_classifier
    [offload_optimizer] set offload_optimizer = false (llm.c keeps every state on the GPU) or remove fused_classifier
    [offload_params] set offload_params = false (llm.c keeps every state on the GPU) or remove fused_classifier
   *[other] remove { $field } or fused_classifier (each names a different loss kernel)
}
fix-foreach-buffers-without-foreach = optimizer_foreach_buffers counts the temporaries of the foreach AdamW step, and this setup runs the fused AdamW (optimizer_foreach is off): set optimizer_foreach = true or remove optimizer_foreach_buffers
fix-optimizer-in-backward-accum = optimizer_in_backward steps and frees each gradient as soon as it is accumulated, so gradient accumulation ({ $accum } steps) has nothing to accumulate into; torchtune refuses the pair ("Gradient accumulation is not supported with optimizer in bwd"): set grad_accum = 1 (a larger micro_batch for the same global batch) or optimizer_in_backward = false
fix-main-grads-megatron = main_grads is Megatron-Core's main-gradient dtype (grad_reduce_in_fp32): set framework = "megatron" or remove main_grads
fix-optimizer-dtype-megatron = optimizer_dtype is the dtype of the Megatron/NeMo optimizer's master weights and moments (apex DistributedFusedAdam dtype, NeMo optim.dtype): set framework = "megatron" or remove optimizer_dtype
fix-cross-entropy-fusion-megatron = cross_entropy_loss_fusion is Megatron-Core's fused vocab-parallel cross-entropy switch (--cross-entropy-loss-fusion): set framework = "megatron" or remove cross_entropy_loss_fusion
fix-grad-accum-fusion-megatron = gradient_accumulation_fusion is Megatron's weight-gradient accumulation into the main gradient (--no-gradient-accumulation-fusion turns it off): set framework = "megatron" or remove gradient_accumulation_fusion
fix-unfused-score-bias = unfused_score_bias describes Megatron's eager attention with a separate scale and bias add (ModelLink's ALiBi path): use it with framework = "megatron" and attention = "eager", or remove it
fix-filter-gpu-word = an accelerator id or name prefix, e.g. A100 (`gpuplan catalog gpus` lists them)
fix-filter-region-word = a region id, e.g. cn-shanghai (leave the flag out for every region)
fix-regions-word = --region: a region id, e.g. cn-shanghai (leave the flag out for every region)
fix-layer-overhead-max = fixed GPU seconds per decoder layer, below { $max } (default 32e-6): torchao's A100 int4 rows ran a whole 32-layer token in { $token }, so a longer fixed time leaves the weights no time to stream
fix-fp8-weights-chip = { $gpu } loads no FP8 weights under { $engine } (FP8 needs FP8 units; only vLLM and SGLang also run FP8 as W8A16 through FP8 Marlin, on CUDA Ampere and newer): use --weights int8 or bf16
fix-quant-bool = must be true or false
fix-quant-bnb-bits = exactly one of load_in_4bit and load_in_8bit must be true, as transformers' BitsAndBytesConfig requires
fix-quant-bnb-type = must be nf4 or fp4, the two bitsandbytes 4-bit types
fix-quant-skip-modules = must be a list of module names, e.g. ["lm_head"]
fix-serve-unread-checkpoint = is a checkpoint format gpuplan does not read (it reads { $known }), so the size of its weights when served is unknown; give the format to serve with `--weights` (or the workload's `[{ $table }] weights`), e.g. `--weights bf16` for a dequantized 16-bit copy
fix-quant-block = must be two positive integers, e.g. [128, 128]
fix-quant-group = must be a positive number of weights per group (e.g. 128), or -1 for one scale per channel
fix-quant-bits = must be 4 or 8 (int weight-only) or 8 with type float (FP8); other widths are not modelled
fix-quant-awq-bits = must be 4: AWQ checkpoints store 4-bit weights only (vLLM's and SGLang's AWQConfig: "only 4-bit weight quantization is supported for AWQ"); an 8-bit checkpoint is GPTQ or compressed-tensors
fix-quant-mixed = gives another weight format than the other groups; a checkpoint with mixed formats is not modelled: remove `quantization_config` and give `weights`
fix-weights-format-runs = { $engine } has no kernel for this format on { $gpu } (vLLM serves MXFP4 from compute capability 8.0, SGLang and TensorRT-LLM from 9.0, the static engine not at all): serve the checkpoint dequantized with `weights = "bf16"` (twice the expert memory), or pick another engine or chip
fix-cp-te-chip = Megatron's context parallelism is Transformer Engine's attention, which has no backend for it on { $gpu } (FlashAttention and cuDNN fused attention need compute capability 8.0, and its unfused attention does not support context parallelism): use cp = 1 (recompute or more pipeline stages for memory), a torch-based stack (torchtitan's ring runs the memory-efficient kernel), or an Ampere or later GPU
fix-model-unknown = list the presets with `gpuplan models`, or give the model's HuggingFace config.json: --model-config PATH (workload key `model_config`, or an inline `[config]` table with its keys)
fix-weights-int4-chip = { $engine } has no int4 kernel on { $gpu } (compute capability { $cc }; it needs { $min }: vLLM and SGLang load GPTQ from 6.0 and AWQ from 7.5, Marlin from 8.0; TensorRT-LLM's AWQ/GPTQ GEMMs need 7.5; the static engine's tinygemm needs 8.0): use `weights = "int8"` or 16-bit, engine vllm (GPTQ), or a chip of compute capability { $min } or later
fix-weights-awq-chip = the checkpoint is AWQ, which { $engine } loads only from compute capability 7.5 (AWQConfig.get_min_capability; { $gpu } has { $cc }): serve a GPTQ int4 release of the model (its exllama kernel loads from 6.0), 16-bit weights (`weights = "bf16"`), or a chip of compute capability 7.5 or later
fix-weights-int4-trtllm-group = TensorRT-LLM's fine-grained int4 GEMMs take groups of 64 or 128 only (`Only group size 64 and 128 supported for fine grained kernels.`, fpA_intB_gemm_template.h): use int4-g64 or int4-g128 (int4-g{ $hidden } is per-channel), or engine vllm or sglang
fix-weights-experts-only = { $model } has no routed experts, and MXFP4 quantizes only those (the rest stays 16-bit): use --weights int4, int8 or fp8 for a smaller copy, or bf16
fix-weights-word = use a word `--weights` takes: bf16, fp16, fp8, int8, int4 (AWQ/GPTQ 4-bit at group 128; also awq, gptq), int4-g<N> (a group of N weights, N from 1 to { $max }), mxfp4{ $table ->
    [inference] , fp32
   *[other] {""}
}; or a weight format table: {"{"} format = "int4", group = 128 {"}"}, {"{"} format = "bits", bits_per_weight = 4.5 {"}"} (bits per weight; bitsandbytes checkpoints: docs/workload-format.md)
fix-weights-int4-group = an int4 group must divide the input width of every linear, and { $model } has a linear reading { $width } inputs, which { $group } does not divide ({ $engine ->
    [trtllm] TensorRT-LLM's int4_awq quantize.py cannot place the groups
    [static] no engine's loader splits a group
   *[other] vLLM's GPTQ/AWQ loaders refuse it, and SGLang's alike
}): use one of { $valid } (int4-g{ $hidden } is per-channel)
fix-stage-layers-total = the stated first/last stage sizes hold { $taken } of the model's { $layers } layers; { $others ->
    [0] with no other stage they must hold exactly { $layers }
   *[other] they must leave at least one layer to each of the { $others } other stages
}
fix-tp-int4-group = at TP { $tp } each rank of { $model } reads { $slice } of a linear's { $width } inputs, which { $engine ->
    [trtllm] TensorRT-LLM's int4 quantization refuses: the group { $group } must divide it (quantize.py --qformat int4_awq --tp_size fails on such a split, NVIDIA/TensorRT-LLM issues #1636 and #2445)
    [static] no engine loads: the group { $group } must divide it (a group split over two ranks has its scale on neither)
   *[other] { $engine ->
        [sglang] SGLang's int4 loaders (vLLM's AWQ/GPTQ-Marlin methods) refuse
       *[other] vLLM's int4 loaders refuse
    }: the group { $group } must divide it (GPTQ/AWQ: "The input size is not aligned with the quantized weight shape") and Marlin needs a multiple of 128 ("is not divisible by min_thread_k = 128"; vLLM 0.6 refuses to load, later releases fall back to unoptimized AWQ/GPTQ kernels whose speed this estimate does not model)
}: { $tps ->
    [0] no TP up to 16 loads it
   *[other] use TP { $tplist }
}{ $groups ->
    [0] {""}
   *[other] , or at TP { $tp } one of { $valid } (int4-g{ $hidden } is per-channel)
}, or a checkpoint whose widths were padded for TP (Qwen's 72B AWQ/GPTQ releases pad 29568 to 29696) given with --model-config
fix-an-efficiency-range = an efficiency, 0.001–1
fix-nccl-version-release = a release as MAJOR.MINOR[.PATCH], e.g. 2.19.3
fix-optimizer-foreach-buffers = state-sized temporaries of the foreach AdamW step: 1 (PyTorch 2.1 and later) or 2 (PyTorch 2.0)
fix-weights-row = int8 weights per fp32 row scale (the linear's input features), e.g. 4096
fix-image-size-pixels = pixels, 1–65536 (e.g. 1024)
fix-keep-16bit-layers-count = decoder layers, 0 or more
fix-denoising-steps = denoising steps per image, 1–10000
fix-case-unavailable = case { $case }: not computable: { $why }
case-why-no-layout = no layout fits the cluster at this global batch
case-why-needs-transformer = needs a transformer
case-why-no-tokens = no token count
case-why-elapsed-no-checkpoint = [elapsed] needs the estimate's checkpoint size (data path)
