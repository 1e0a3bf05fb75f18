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
framework-litgpt = LitGPT memory profile
est-train-title = { $model }: { $task }, { $precision }, { $optimizer }, { $seq ->
    [none] {""}
   *[other] sequence length { $seq } ×{" "}
}micro-batch { $mb } × { $ga } accumulation steps, { $recompute }, { $attention }, { $profile }
est-accounting = state accounting: { $profile }
acct-autocast = torch.autocast (HF Trainer / Accelerate without DeepSpeed): fp32 weights + fp32 gradients, bf16 weight copies, no master copy
acct-mixed = DeepSpeed-style mixed precision: 16-bit weights + gradients, fp32 master weights + optimizer states
acct-megatron = Megatron: 16-bit weights, fp32 main gradients + master weights + optimizer states
acct-megatron-bf16-grads = Megatron: 16-bit weights, bf16 main gradients, fp32 master weights + optimizer states
acct-megatron-fp8-params = Megatron: FP8 linear weights (fp8_param_gather) + 16-bit others, fp32 main gradients + master weights + optimizer states
acct-megatron-fp8-params-bf16-grads = Megatron: FP8 linear weights (fp8_param_gather) + 16-bit others, bf16 main gradients, fp32 master weights + optimizer states
acct-megatron-bf16-states = Megatron: 16-bit weights, fp32 main gradients, bf16 master weights + optimizer states (optimizer_dtype)
acct-megatron-bf16-grads-bf16-states = Megatron: 16-bit weights, bf16 main gradients, bf16 master weights + optimizer states (optimizer_dtype)
acct-megatron-fp8-params-bf16-states = Megatron: FP8 linear weights (fp8_param_gather) + 16-bit others, fp32 main gradients, bf16 master weights + optimizer states (optimizer_dtype)
acct-megatron-fp8-params-bf16-grads-bf16-states = Megatron: FP8 linear weights (fp8_param_gather) + 16-bit others, bf16 main gradients, bf16 master weights + optimizer states (optimizer_dtype)
acct-pure-bf16 = pure bf16: weights, gradients and optimizer states in bf16
acct-fp32 = fp32 weights, gradients and optimizer states
acct-peft = PEFT: frozen base weights, adapters with their gradients and optimizer states in the adapter dtype
est-timeline-title = step timeline (live allocated GiB; saved after forward { $saved })
est-timeline-peak = ← peak
est-timeline-col-phase = phase
est-timeline-col-live = live by component (GiB)
est-hardware = hardware: { $nodes } × { $per } { $gpu } ({ $intra } inside a node{ $one ->
        [yes] {""}
       *[other] , { $link } { $inter } between nodes
    }); TP { $tp } PP { $pp } DP { $dp } EP { $ep }{ $sched } ZeRO-{ $zero }{ $offload }
est-offload-optimizer = {" "}+ optimizer offload
est-offload-params = {" "}+ parameter offload
est-mem-title = memory per device ({ $params } params, { $trainable } trainable), at the peak of the step ({ $phase }): what is live then
est-peak-allocated = peak allocated (torch)
est-needed = needed per device
est-no-memory = { $gpu } has no sourced memory size: cannot say whether it fits
est-fits = { $have } GiB on { $gpu } → fits
est-does-not-fit = { $have } GiB on { $gpu } → DOES NOT FIT (short by { $short } GiB)
est-no-fit-hint = To fit, try { $levers }; or let `gpuplan plan` search the parallelism, ZeRO stage, recomputation and micro-batch for this model and task.
est-offload-ram = host RAM for offload (per GPU)
est-step-tp = tensor-parallel comm (exposed)
est-step-cp = context-parallel K/V (exposed)
# The estimate's "how" column for the step's compute, TP and CP rows; the efficiency factors are
# named by their tunables (`--set NAME=VALUE`), each after what it is.
est-how-compute = { $peak } peak × { $eff } ({ $names })
est-how-fp32-grad-pass = ; incl. { $s } a micro-batch of BF16_Optimizer's fp32 gradient pass (fp32_grad_pass)
est-how-tp = 2 × all-reduce / layer / pass − { $hidden } hidden
est-how-cp = ring K/V exchange − the part attention hides
eff-train_efficiency_hopper = Hopper GEMM efficiency
eff-train_efficiency_ampere = Ampere GEMM efficiency
eff-train_efficiency_other = GEMM efficiency (other chips)
eff-train_efficiency_cnn = CNN training efficiency
eff-train_efficiency_unet = UNet training efficiency
eff-card_factor_low_power = low-power card factor
eff-card_factor_pcie = PCIe card factor
eff-peft_efficiency_factor = LoRA factor
eff-fp8_gemm_ratio_current = FP8 GEMM speed-up
eff-fp8_train_gemm_ratio = FP8 GEMM speed-up (2023 kernels)
est-coll-title = collectives per optimizer step
est-coll-col-kind = collective
est-coll-col-bandwidth = effective bandwidth
est-coll-col-overlapped = overlapped
est-coll-tp = tensor-parallel all-reduce
est-coll-cp = context-parallel K/V ring
est-coll-dp = data-parallel gradients and parameters
est-coll-pp = pipeline send/recv
est-coll-ep = expert all-to-all
est-step-title = time per optimizer step
est-step-p2p = pipeline p2p
est-step-ep = expert all-to-all
est-step-contention = compute lost to overlapped communication kernels (SMs)
est-step-host = waiting for the host CPUs (image decode)
est-step-dispatch = waiting for the host's op dispatch (eager loop)
est-how-dispatch = per micro-batch { $ops } launching ops × { $us } µs + { $views } ops that launch nothing × { $vus } µs + { $outside } of Python and autograd around them; { $host } of host time a step (counted { $stack } code)
est-how-dispatch-zero3 = { $how }; of the host's time a micro-batch, { $zero3 } is DeepSpeed ZeRO-3's parameter fetch/release and gradient hooks (measured with DeepSpeed 0.11.1)
est-step-offload-optimizer = host offload: optimizer copies (PCIe)
est-step-offload-params = host offload: parameter fetches (PCIe)
est-step-offload-activations = host offload: activations (PCIe)
est-step-offload-untimed = host offload: not timed
est-offload-optimizer-how = gradients { $grads } to host ({ $exposed } not hidden by backward) + parameters { $params } back, { $link } one way
est-offload-params-how = { $fetch } of shards from host − hidden by compute
est-offload-activations-how = { $out } to host ({ $exposed } not hidden by forward) + { $back } back in backward (waited for), { $link } one way
est-offload-untimed-how = the GPU's link to the host is not in the catalog
est-throughput = throughput: { $rate } { $unit }/s ({ $per } per GPU), MFU { $mfu } (HFU { $hfu }); { $model_tf } TFLOP/s per GPU in model FLOPs, { $hw_tf } in hardware FLOPs (with recompute)
est-time-unavailable = time: not estimated: { $why }
est-job = job: { $amount } { $unit } in { $steps } { $step_count ->
        [one] step
       *[other] steps
    }: { $wall } wall-clock, { $gpu_hours } GPU-hours ({ $flops } model FLOPs)
est-job-missing = job: give --tokens (or --samples and --epochs) for wall-clock time and GPU-hours
est-read-unknown = an unknown rate (no stored size per sample for this model: set [training] bytes_per_sample in a workload file)
est-data = data: { $rate } samples/s → read { $read }{ $cores ->
    [none] {""}
   *[other] , ~{ $cores } host vCPUs for decode/augment
}; checkpoint { $ckpt } (weights { $weights }), write at 1 GB/s: { $write }
est-col-bottleneck = bottleneck: { $b }
est-serve-title = { $model }: serving with { $weights } weights, { $kv } KV cache, TP { $tp }, engine { $engine }{ $engine ->
    [vllm] , gpu_memory_utilization { $util }
    [sglang] , mem_fraction_static { $util }
    [trtllm] , free_gpu_memory_fraction { $util }
   *[other] {""}
}, max_model_len { $len }
est-serve-mem-title = memory per GPU ({ $engine } sizing)
est-serve-mml-default = max_model_len { $len } (default): the workload's { $input } + { $output } tokens rounded up to { $engine ->
    [static] a multiple of { $block } (gpt-fast's static KV cache)
   *[other] whole { $block }-token blocks
}, not the model's full context (a longer one must fit in the KV pool, and vLLM V0 profiled it); set --max-model-len to change it
est-serve-rule = rule: { $rule }
est-serve-images = images: { $n } per request at { $w }×{ $h } px (the model's image-token rule; KV, prefill and the profile run include them)
est-serve-budget = budget
est-serve-weights = weights
est-serve-activation = activation peak (profile run)
est-serve-non-torch = non-torch + CUDA graphs
est-serve-kv-pool = KV pool
est-serve-kv = KV capacity: { $blocks } blocks × { $block } = { $tokens } tokens; max concurrency at max_model_len: { $conc }; { $reqs } requests of { $input }+{ $output } tokens at once; longest context at batch { $batch }: { $ctx }
est-serve-problem = PROBLEM: { $p }
est-serve-fits-at-tp = With --tp { $tp } (of the { $gpus } GPUs given) the same setup fits.
est-serve-advice-head = vLLM would start on this GPU with any one of these changes (the rest as asked):
est-serve-advice-len = --max-model-len { $len } or less (at --gpu-memory-utilization { $util } and --max-num-seqs { $seqs })
est-serve-advice-seqs = --max-num-seqs { $seqs } or fewer, keeping --max-model-len { $len } (the profile run's sampler warm-up covers min(max_num_seqs, max_num_batched_tokens) requests)
est-serve-advice-util = --gpu-memory-utilization { $util } or more (the share of the GPU vLLM may take; nothing else may use it)
est-serve-batch-over = ! batch { $batch } is more than the engine holds at once: { $held } (max_num_seqs { $seqs }; the KV pool holds { $kv } requests of input + output tokens). The latency above is for a batch that never runs together; the engine would run { $held } and queue the rest: use --batch { $held }, or --solve max-batch
est-serve-shipped-weights = weights: { $weights }, the format the checkpoint ships in (its config's quantization_config), as { $engine } loads it; --weights bf16 sizes 16-bit weights
est-serve-mla-moe-small-batch = MLA + MoE decode at batch { $batch }: validated at batch 8–64 only (SGLang v0.5.7, DeepSeek-R1 FP8 on 8 × H200, within 18%); at one request vLLM 0.13 published 30 tokens/s for DeepSeek-V3.2 on 8 × H20, about 4× slower than this model gives, which it does not explain: read the time per token as a lower bound
est-serve-auto-tp = TP { $tp }: the smallest tensor parallelism at which the weights fit on the { $gpus } GPUs given (vLLM's default TP 1 does not hold them); --tp sets another
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
serve-rule-vllm = vLLM: { $util } × visible − weights − profile peak ({ $tokens } tokens) − non-torch { $release ->
    [free_memory] (init − free after the profile run: releases before 0.6.4)
    [non_torch_total] (all memory outside torch, CUDA context included: release 0.6.4)
   *[non_torch_growth] (growth since start-up: release 0.6.5 and later)
}
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
est-serve-how-non-torch = inside the budget (vLLM: what its release charges outside torch, engine_version, + NCCL, + NCCL's NVLink SHARP buffers above TP 2 on NVSwitch parts; static: CUDA context + NCCL)
est-serve-how-kv = { $bytes } B/token/GPU ({ $heads } KV heads per GPU)


solve-title = { $model }: { $question } on { $gpu } × TP { $tp } ({ $engine } rule, { $evals } evaluations)
solve-q-max-context = max-context
solve-q-max-batch = max-batch
solve-q-max-throughput = max-throughput within { $ms } ms per token
solve-col-quantity = quantity
solve-col-value = value
solve-row-context = context (tokens per sequence)
solve-row-batch = concurrent sequences
solve-row-tpot = time per output token (ms)
solve-row-tps = output tokens/s (replica)
solve-row-binding = binding constraint
solve-row-why = why
solve-na = n/a
solve-binding = { $b ->
    [kv_pool] KV pool
    [model_context] model context
    [max_num_seqs] engine max_num_seqs
    [tpot_target] TPOT target
   *[memory] memory
} ({ $b })
solve-why-no-pool = { $batch } sequences do not fit even at 1 token each: weights and runtime leave no KV pool
solve-why-model-context = the model's context ({ $limit } tokens) binds before the KV pool
solve-why-kv-context = { $batch } × { $tokens } tokens fill the KV pool
solve-why-one-too-long = one sequence of { $context } tokens does not fit the KV pool
solve-why-max-num-seqs = the engine schedules at most { $cap } sequences by default
solve-why-kv-batch = { $n } sequences of { $context } tokens overflow the KV pool
solve-why-tpot-one = even one sequence takes { $ms } ms per token, over the { $target } ms target
solve-why-tpot = { $n } sequences take longer than { $target } ms per token
est-serve-kv-short = short by { $gib } GiB
est-serve-kv-none = none: the budget is short by { $gib } GiB; { $per }
# A table label with a note after it (the fit verdict, the bottleneck).
est-label-note = { $label } ({ $note })
# Between the components of one timeline phase.
est-timeline-sep = ,{" "}

# A request of a model given by totals (audit r8 #17).
est-unit-image-generated = one generated image, its whole denoising loop
est-unit-forward-pass = one forward pass
est-serve-dequantized = the checkpoint ships { $weights } (its config's quantization_config), which { $engine } cannot run on { $gpu }: sized at 16 bits, a dequantized copy (transformers' Mxfp4Config(dequantize=True) for MXFP4, model.dequantize() for bitsandbytes, or a 16-bit release of the model)
est-serve-dequantized-fp8 = the checkpoint ships { $weights } (its config's quantization_config), which { $engine } cannot load on { $gpu } (no FP8 units, and no W8A16 FP8 Marlin path: vLLM and SGLang on CUDA Ampere and newer only): sized at 16 bits, a dequantized copy (a 16-bit release of the model)
est-serve-dequantized-awq = the checkpoint ships { $weights } as AWQ (its config's quantization_config), whose kernel { $engine } loads only from compute capability 7.5 (AWQConfig.get_min_capability): sized at 16 bits, a 16-bit release of the model; a GPTQ int4 release loads on { $gpu } (exllama, from 6.0): --weights gptq
est-step-offload-host-step = host offload: optimizer step on the host CPU
est-offload-host-step-how = { $impl } over { $params } parameters on { $cores } physical cores: { $secs }, less the device step already in compute; cores scale without a host memory bandwidth ceiling (none in the catalog), so a floor
est-offload-host-untimed-how = the host CPU's optimizer step is not timed: set hardware.host_vcpus (vCPUs per node) to time it
est-offload-host-unrated-how = the host CPU's optimizer step is not timed: per-core rates were measured for AdamW on an x86 host only (fused or foreach, fp32; fused bf16; DeepSpeedCPUAdam), and this optimizer, precision or host CPU is not among them
