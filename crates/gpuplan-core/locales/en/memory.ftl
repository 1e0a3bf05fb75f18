# Memory components (train.rs) and step phases (timeline.rs), by the slug of their English name.

mem-weights = weights
mem-gradients = gradients
mem-16-bit-gradients-bf16-optimizer = 16-bit gradients (BF16_Optimizer)
mem-optimizer-states-master-weights = optimizer states + master weights
mem-base-weights-frozen = base weights (frozen)
mem-4-bit-quantisation-constants = 4-bit quantisation constants
mem-lora-adapters-grads-optimizer = LoRA adapters + grads + optimizer
mem-modules-to-save-copies-grads-optimizer = modules_to_save copies + grads + optimizer
mem-zero-3-gather-buffers = ZeRO-3 gather buffers
mem-fsdp-unsharded-stage-pp = FSDP unsharded stage (PP)
mem-activations = activations
mem-logits-loss = logits + loss
mem-layer-working-set = layer working set
mem-layer-forward-working-set = layer forward working set
mem-fsdp2-held-all-gather-output = FSDP2 held all-gather output
mem-autocast-weight-copies = autocast weight copies
mem-autocast-cast-cache = autocast cast cache
mem-fp8-weight-cache = FP8 weight cache
mem-rotary-cache = rotary cache
mem-attention-mask = attention mask
mem-optimizer-temporaries = optimizer temporaries
mem-allocator-fragmentation = allocator fragmentation
mem-cuda-context = CUDA context
mem-cann-runtime-context = CANN runtime context
mem-nccl-buffers = NCCL buffers
mem-te-userbuffers = TE userbuffers
mem-hccl-buffers = HCCL buffers
# Serving memory components (infer.rs ServingMemory; shown by the web page).
mem-kv-cache-pool = KV cache pool
mem-non-torch = non-torch memory
mem-cuda-graphs = CUDA graphs
mem-resident-states = resident states
mem-ddp-gradient-buckets = DDP gradient buckets
mem-zero-reduce-bucket = ZeRO reduce bucket
mem-fp32-gradient-partition = fp32 gradient partition
mem-saved-activations = saved activations
mem-logits = logits
mem-loss-buffers-fp32 = loss buffers (fp32)
mem-loss-buffers-bf16 = loss buffers (bf16)
mem-logits-gradient = logits gradient
mem-previous-step-s-kept-inputs = previous step's kept inputs
mem-lm-head-dequantisation = LM-head dequantisation
mem-lm-head-input = LM-head input
mem-validation-logits-loss = validation logits + loss
mem-train-metric-buffers = train metric buffers
phase-forward = forward
phase-forward-layers = forward: layers
phase-forward-unshard = forward: unshard
phase-loss = loss
phase-backward-lm-head = backward: LM head
phase-backward-layers = backward: layers
phase-backward-loss = backward: loss
phase-optimizer-step = optimizer step
phase-validation = validation
phase-train-metrics = train metrics

# How a training memory row was computed (the `--wide` basis column; audit r8 #9).
how-base-weights = { $format }: { $bits } bits/weight on linears, { $rest } bits elsewhere{ $shard }{ $host ->
    [yes] {" "}(offloaded to CPU)
   *[no] {""}
}
how-shard-none = {""}
how-shard-dense = {" "}÷ { $dp } (ZeRO shard)
how-shard-experts = {" "}(ZeRO shard: { $dense }B dense ÷ { $dp } data-parallel, { $expert }B expert ÷ { $edp } expert-data-parallel)
how-lora-adapters = { $m }M adapter params (rank { $rank }) × { $per } B ({ $dtype } weight, grad, optimizer states){ $host ->
    [yes] {" "}(offloaded to CPU)
   *[no] {""}
}
how-fragmentation = { $pct }% of allocated (tunable `fragmentation`)
how-tunable = tunable `{ $name }`
how-nccl-buffers = per communicator from NCCL's source: 12 MiB per channel and connection, NVLS where the switch reduces ({ $groups })
how-te-userbuffers = Transformer Engine's tp-comm-overlap buffers (initialize_ub): 10 buffers of { $tokens } tokens × hidden, { $fp8 ->
    [yes] the 6 all-gather buffers in FP8 (1 B), the 4 reduce-scatter buffers bf16 (2 B)
   *[no] bf16 (2 B)
}, outside torch's allocator
how-full-recompute = full recompute: { $r }·h B/token/layer × { $layers } layers × { $in_flight } micro-batch(es); one layer's set ({ $per } B/token) recomputed in backward
how-activation-offload = offloaded to host except 2 layers in flight (activation offload)
how-at-peak = { $what } at the peak ({ $phase })
how-not-live-at-peak = not live at the peak ({ $phase })
how-gradients-live-at-peak = { $bytes } live at the peak ({ $phase }, the LM-head gradient if smaller)
how-lm-head-gradient = LM-head gradient
how-previous-step-inputs = the previous step's output (and its 4-bit matmuls' kept inputs) held by the training loop
how-lm-head-dequant = the quantized LM head's dequantized copy (fp16 + bf16 cast, 4 B per weight)
how-lm-head-input = the final norm's output the frozen LM head reads (not saved)
how-validation-logits = validate(): full logits, their log-softmax and the shifted copy (b > 1)
how-train-metric-buffers = Composer's train metrics after each micro-batch's backward: one metric's fp32 copy of the logits and its fp32 log-softmax (8 B per logit)
how-autocast-copies = 16-bit copies of the fp32 linear weights (torch.autocast)
how-layer-forward-working-set = one checkpointed layer's MLP intermediates, residual sum and norm upcast while its forward runs
how-attention-mask = transformers' 4-D eager attention mask (batch × 1 × seq × seq, in the embeddings' dtype), which every checkpointed layer keeps until its backward recomputes it
how-fsdp2-held-output = the previous unit's all-gather output, which FSDP2's wait_for_unshard still holds while it copies the next unit's out (the root's at the first layer, a layer unit's later)
how-autocast-cast-cache = autocast's cached 16-bit copies of the trainable weights in checkpointed layers (to the end of the autocast region)
how-optimizer-temporaries = AdamW foreach: one state-sized buffer (_foreach_sqrt); DeepSpeed: the flattened 16-bit gradient partition
how-zero-reduce-bucket = DeepSpeed's reduce bucket (ipg_buffer): reduce_bucket_size elements of the 16-bit dtype
how-fp32-gradient-partition = DeepSpeed's step: flatten(averaged_gradients).to(fp32), the rank's gradient partition in fp32
how-ddp-buckets = DDP all-reduce buckets: a copy of the gradients (gradient_as_bucket_view off, PyTorch default)
how-layer-working-set = one layer's backward working set
how-fp8-weight-cache = { $b }B Transformer Engine linear weights × { $per } B: { $params ->
    [fp8] the FP8 parameters' transpose for the backward's GEMMs
   *[other] the FP8 copy and its transpose TE caches across micro-batches (is_first_microbatch)
}, kept for the whole run
how-weights-fp8 = { $gib } GiB: { $b }B Transformer Engine linear weights stored in FP8 (1 B, fp8_param_gather), the other parameters 16-bit
how-weights = { $b }B params × { $per } B{ $shard }{ $host ->
    [yes] {" "}(offloaded to CPU)
   *[no] {""}
}
how-gradients = { $per } B/param{ $shard }
how-lp-grads = { $per } B/param: BF16_Optimizer keeps each bf16 .grad beside the fp32 gradient from backward to the step (fp32_grad_pass)
how-gradients-fused = optimizer step fused into backward: no full gradient buffer
how-optimizer = { $opt }: { $per } B/param states{ $factored ->
    [none] {""}
   *[other] {" "}on { $factored }% of params (factored)
} + { $master } B master{ $shard }{ $where ->
    [host] {" "}(offloaded to CPU)
    [paged] {" "}(states paged: CUDA unified memory outside torch's allocator, evicted to host when the GPU is full)
   *[device] {""}
}
how-activations = { $per } B/token/layer × { $tokens } tokens × { $layers } layers{ $absent ->
    [none] {""}
   *[other] {" "}− { $absent } B/token (layer 0 before its adapters)
} × { $in_flight } in flight ({ $profile } profile, { $scores ->
    [yes] eager s² scores
   *[no] no s² scores
})
how-logits-hf = tokens × vocab ({ $vocab }) logits in the compute dtype, their fp32 upcast for the loss and its fp32 gradient (HF loss_function)
how-logits-live-per-logit = { $per } B per logit live
how-no-vocab-head = no vocabulary head
how-logits-litgpt = bf16 logits + bf16 log-softmax (2 + 2 B × tokens × vocab { $vocab }) + one { $chunk }-token chunk's gradients (LitGPT chunked_cross_entropy)
how-logits-compiled = { $per } B × tokens × vocab ({ $vocab }): the logits only (torch.compile'd chunked cross-entropy: no fp32 buffer)
how-logits-chunked = { $per } B × tokens × vocab ({ $vocab }): logits + every chunk's saved fp32 log-softmax + one of 8 fp32 upcasts (chunked cross-entropy)
how-logits-loss-parallel = 16 B × tokens × vocab ({ $vocab }) / TP at the loss's backward: torch loss_parallel's fp32 saved log-softmax, zeros, exp and their sum (torch/distributed/tensor/parallel/loss.py)
how-logits-fused-classifier = { $per } B × tokens × vocab ({ $vocab }) at the loss and the LM head's backward: the 16-bit logits, their gradient written over them in place (llm.c fused classifier: no fp32 buffer)
how-logits-megatron = 4·s·b·(h + V)/t: fused vocab-parallel cross-entropy (Megatron theoretical_memory_usage.py)
how-logits-megatron-unfused = 4·s·b·h/t + 8·s·b·V/t: unfused vocab-parallel cross-entropy (cross_entropy_loss_fusion = false): the fp32 copy of the logits and the out-of-place max subtraction live together (megatron/core/tensor_parallel/cross_entropy.py up to core 0.7)
how-gathered-largest-layer = 2 × largest layer × 2 B (DeepSpeed memory.rst: 4·largest_layer_params)
how-quant-constants = { $b }B quantised weights × { $bits } bits (bitsandbytes QuantState), whole on every GPU: not parameters, so ZeRO-3/FSDP neither shard nor offload them
how-modules-to-save = { $m }M params ({ $modules }) × { $per } B (trainable copy, grad, optimizer states){ $host ->
    [yes] {" "}(offloaded to CPU)
   *[no] {""}
}
how-activations-per-sample = { $bytes } per sample at { $input } × micro-batch { $mb }
how-selective-op = per-op selective checkpointing (torchtitan): { $per } B/token/layer (input, SDPA output, every other matmul output) × { $tokens } tokens × { $layers } layers × { $in_flight } in flight; the rest of one layer's set ({ $eager } B/token) recomputed in backward
how-fsdp-pp-stage = { $b }B stage params × ({ $c } B gathered weights + { $g } B unsharded gradients): FSDP2 under pipeline parallelism reshards and reduce-scatters after the last micro-batch only
how-fsdp-units = torch FSDP: the root unit gathered through the step ({ $root } GB) + { $units } units in flight (current + prefetched) × { $unit } GB in their stored dtype
how-zero3-coordinator = DeepSpeed ZeRO-3's parameter coordinator replayed on the micro-batch's tensor trace (the running module, prefetch up to stage3_prefetch_bucket_size { $prefetch }M elements under stage3_max_live_parameters { $live }M, tensors reused within stage3_max_reuse_distance kept): at most { $fwd }M / { $head }M / { $bwd }M elements × { $dtype } B in forward / around the LM head / backward
