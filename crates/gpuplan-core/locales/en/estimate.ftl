# `gpuplan estimate` output, and the names of the training choices it prints in words.

precision-fp32 = fp32
precision-amp_bf16 = bf16 mixed precision (AMP)
precision-amp_fp16 = fp16 mixed precision (AMP, loss scaling)
precision-pure_bf16 = pure bf16
precision-fp8 = fp8 (Transformer Engine)
optimizer-adam_w = AdamW
optimizer-adam_w8bit = 8-bit AdamW
optimizer-sgd_momentum = SGD with momentum
optimizer-adafactor = Adafactor
recompute-none = no recomputation
recompute-selective = selective recomputation
recompute-full = full recomputation
attention-eager = eager attention
attention-flash = FlashAttention-2
attention-mem_efficient = memory-efficient attention (PyTorch SDPA)
framework-hugging_face = Hugging Face memory profile
framework-megatron = Megatron memory profile
est-train-title = { $model }: { $task }, { $precision }, { $optimizer }, { $seq ->
    [none] {""}
   *[other] sequence length { $seq } ×{" "}
}micro-batch { $mb } × { $ga } accumulation steps, { $recompute }, { $attention }, { $profile }
est-hardware = hardware: { $nodes } × { $per } { $gpu } ({ $intra } inside a node, { $link } { $inter } between nodes); TP { $tp } PP { $pp } DP { $dp } EP { $ep } ZeRO-{ $zero }{ $offload }
est-offload-optimizer = {" "}+ optimizer offload
est-offload-params = {" "}+ parameter offload
est-mem-title = memory per device ({ $params } params, { $trainable } trainable)
est-peak-allocated = peak allocated (torch)
est-needed = needed per device
est-no-memory = { $gpu } has no sourced memory size: cannot say whether it fits
est-fits = { $have } GiB on { $gpu } → fits
est-does-not-fit = { $have } GiB on { $gpu } → DOES NOT FIT (short by { $short } GiB)
est-offload-ram = host RAM for offload (per GPU)
est-step-title = time per optimizer step
est-step-p2p = pipeline p2p
est-step-ep = expert all-to-all
est-throughput = throughput: { $rate } { $unit }/s ({ $per } per GPU), MFU { $mfu } (HFU { $hfu })
est-time-unavailable = time: not estimated: { $why }
est-job = job: { $amount } { $unit } in { $steps } steps: { $wall } wall-clock, { $gpu_hours } GPU-hours ({ $flops } model FLOPs)
est-job-missing = job: give --tokens (or --samples and --epochs) for wall-clock time and GPU-hours
est-data = data: { $rate } samples/s → read { $read }{ $cores ->
    [none] {""}
   *[other] , ~{ $cores } host CPU cores for decode/augment
}; checkpoint { $ckpt } (weights { $weights }), write at 1 GB/s: { $write }
est-col-bottleneck = bottleneck: { $b }
est-serve-title = { $model }: serving with { $weights } weights, { $kv } KV cache, TP { $tp }, engine { $engine }, gpu_memory_utilization { $util }, max_model_len { $len }
est-serve-mem-title = memory per GPU ({ $engine } sizing)
est-serve-rule = rule: { $rule }
est-serve-images = images: { $n } per request at { $w }×{ $h } px (the model's image-token rule; KV, prefill and the profile run include them)
est-serve-budget = budget
est-serve-weights = weights
est-serve-activation = activation peak (profile run)
est-serve-non-torch = non-torch + CUDA graphs
est-serve-kv-pool = KV pool
est-serve-kv = KV capacity: { $blocks } blocks × { $block } = { $tokens } tokens; max concurrency at max_model_len: { $conc }; { $reqs } requests of { $input }+{ $output } tokens at once; longest context at batch { $batch }: { $ctx }
est-serve-problem = PROBLEM: { $p }
est-serve-latency = latency: TTFT { $ttft } for { $input } prompt tokens; { $tpot } per output token at batch { $batch } ({ $rate } tokens/s, { $bound ->
    [bandwidth] bandwidth-bound
   *[compute] compute-bound
}; ridge batch ≈ { $ridge })
est-serve-latency-unavailable = latency: not estimated: { $why }
est-legend-wide = `--wide` adds the "how" column: the formula behind each number.
kv-fp16 = fp16
kv-bf16 = bf16
kv-fp8 = fp8
kv-int8 = int8

## Serving engine rules (infer.rs) and what stops a pool
serve-rule-vllm = vLLM: { $util } × visible − weights − profile peak ({ $tokens } tokens) − non-torch
serve-rule-sglang = SGLang: mem_fraction_static { $f } × (visible − CUDA context − NCCL) − weights; no profile run
serve-rule-trtllm = TensorRT-LLM: free_gpu_memory_fraction { $f } × (visible − context − weights − activations of max_num_tokens { $tokens })
serve-rule-static = static: batch { $batch } × max_model_len KV allocated up front
serve-rule-encoder = encoder: one forward per request, no KV cache
serve-problem-no-kv = weights ({ $weights }) + activation peak ({ $act }) + runtime ({ $runtime }) + KV exceed what { $engine } leaves ({ $budget }): use more GPUs (tp), a quantised format, or a shorter max_model_len
serve-problem-short-pool = KV pool holds { $tokens } tokens, fewer than max_model_len { $len }: the engine refuses to start; lower max_model_len or add memory
## The "how" column of the serving memory table
est-serve-how-budget-vllm = gpu_memory_utilization × visible
est-serve-how-budget-sglang = mem_fraction_static × (visible − CUDA context − NCCL)
est-serve-how-budget-trtllm = visible − CUDA context − NCCL; KV = fraction × what weights and activations leave
est-serve-how-budget-static = visible memory
est-serve-how-weights = { $bits } bits/weight on linears
est-serve-how-activation = { $tokens } profile tokens × per-token MLP workspace
est-serve-how-non-torch = inside the budget (vLLM: vllm_non_torch_gib + NCCL; static: CUDA context + NCCL)
est-serve-how-kv = { $bytes } B/token/GPU ({ $heads } KV heads per GPU)
est-serve-how-kv-short = none: the budget is short by { $gib } GiB; { $per }

## estimate --solve
solve-q-max-context = longest context
solve-q-max-batch = most concurrent sequences
solve-q-max-throughput = highest throughput within { $ms } ms per token
solve-title = { $model }: { $question } on { $gpu } × TP { $tp } ({ $engine } rule, { $n } evaluations)
solve-col-quantity = quantity
solve-col-value = value
solve-context = context (tokens per sequence)
solve-batch = concurrent sequences
solve-tpot = time per output token (ms)
solve-rate = output tokens/s (replica)
solve-binding = binding constraint
solve-why = why
solve-none = n/a
solve-binding-kv_pool = KV pool
solve-binding-model_context = the model's context
solve-binding-max_num_seqs = the engine's max_num_seqs
solve-binding-tpot_target = time-per-token target
solve-binding-memory = memory
solve-why-none-at-one-token = { $batch } sequences do not fit even at 1 token each: weights and runtime leave no KV pool
solve-why-model-context = the model's context ({ $ctx } tokens) binds before the KV pool
solve-why-context-fills-pool = { $batch } × { $tokens } tokens fill the KV pool
solve-why-one-sequence = one sequence of { $context } tokens does not fit the KV pool
solve-why-max-num-seqs = the engine schedules at most { $cap } sequences by default
solve-why-batch-fills-pool = { $n } sequences of { $context } tokens overflow the KV pool
solve-why-tpot-at-one = even one sequence takes { $ms } ms per token, over the { $target } ms target
solve-why-tpot = { $n } sequences take longer than { $target } ms per token

## The step timeline (estimate --wide)
tl-title = step timeline (live allocated GiB; saved after forward { $saved })
tl-col-phase = phase
tl-col-live = live by component (GiB)
tl-peak = ← peak
tl-phase-forward = forward
tl-phase-loss = loss
tl-phase-backward-loss = backward: loss
tl-phase-backward-lm-head = backward: LM head
tl-phase-backward-layers = backward: layers
tl-phase-optimizer-step = optimizer step
tl-part-resident-states = resident states
tl-part-autocast-weight-copies = autocast weight copies
tl-part-gradients = gradients
tl-part-saved-activations = saved activations
tl-part-logits = logits
tl-part-loss-buffers-fp32 = loss buffers (fp32)
tl-part-logits-gradient = logits gradient
tl-part-layer-working-set = layer working set
tl-part-optimizer-temporaries = optimizer temporaries
est-serve-kv-pool-short = { $name } (short by { $gib } GiB)
