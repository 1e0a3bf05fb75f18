# Memory components (train.rs) and step phases (timeline.rs), by the slug of their English name.

mem-weights = weights
mem-gradients = gradients
mem-optimizer-states-master-weights = optimizer states + master weights
mem-base-weights-frozen = base weights (frozen)
mem-lora-adapters-grads-optimizer = LoRA adapters + grads + optimizer
mem-zero-3-gather-buffers = ZeRO-3 gather buffers
mem-activations = activations
mem-logits-loss = logits + loss
mem-layer-working-set = layer working set
mem-autocast-weight-copies = autocast weight copies
mem-optimizer-temporaries = optimizer temporaries
mem-allocator-fragmentation = allocator fragmentation
mem-cuda-context = CUDA context
mem-cann-runtime-context = CANN runtime context
mem-nccl-buffers = NCCL buffers
mem-hccl-buffers = HCCL buffers
# Serving memory components (infer.rs ServingMemory; shown by the web page).
mem-kv-cache-pool = KV cache pool
mem-non-torch = non-torch memory
mem-cuda-graphs = CUDA graphs
mem-resident-states = resident states
mem-ddp-gradient-buckets = DDP gradient buckets
mem-saved-activations = saved activations
mem-logits = logits
mem-loss-buffers-fp32 = loss buffers (fp32)
mem-logits-gradient = logits gradient
mem-previous-step-s-kept-inputs = previous step's kept inputs
mem-lm-head-dequantisation = LM-head dequantisation
phase-forward = forward
phase-loss = loss
phase-backward-lm-head = backward: LM head
phase-backward-layers = backward: layers
phase-backward-loss = backward: loss
phase-optimizer-step = optimizer step
