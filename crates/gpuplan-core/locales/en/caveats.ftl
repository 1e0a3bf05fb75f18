# Caveats on a plan or an estimate (plan/mod.rs, plan/train.rs, chip.rs).

cav-rdma-unknown = RDMA not documented for this type: assumed TCP
cav-roce-unknown-ascend = RoCE between Ascend nodes not documented for this type: HCCL over TCP assumed (check the NPU RoCE ports with hccn_tool)
cav-network-unknown = network bandwidth not documented: assumed 10 Gbit/s
cav-rdma-unverified = RDMA between nodes at { $gbit } Gbit/s per node is from a third-party observation, not the provider's docs (see the catalog row's source): measure it before a long run
cav-pcie-assumed = GPU link not documented as NVLink: PCIe Gen4 assumed
cav-host-cpu-cap = host CPUs cap the input pipeline at { $cap } samples/s ({ $vcpu } vCPU × { $nodes } nodes × { $per_core } img/s per vCPU) below the GPUs' { $gpus }: decode on GPU (DALI) or pick more vCPUs
cav-input-bound = { $limit ->
    [input] the storage class
   *[network] the nodes' network
} delivers { $supply } of the { $demand } the GPUs could read: input-bound at { $rate } { $unit ->
    [tokens] tokens/s
   *[samples] samples/s
}
cav-ep-stack = expert parallelism (EP { $ep }, ZeRO-{ $zero }) is timed as DeepSpeed-MoE runs it: the model's MoE blocks built as deepspeed.moe.layer.MoE(ep_size={ $ep }) around its experts (HF Transformers' MoE modules have no EP of their own; HF Trainer with ZeRO-3 or FSDP alone gathers every expert of a layer), launched with DeepSpeed{ $zero ->
    [3] ; DeepSpeed-MoE refuses ZeRO-3 ("MoE not supported with Stage 3"): the export cannot reproduce this plan
   *[other] { $mp ->
        [1] {""}
       *[other] ; EP beside TP/PP/CP under DeepSpeed is Megatron-DeepSpeed's, which the export does not write
    }
}
cav-stack-megatron = this layout (TP { $tp } × PP { $pp } × EP { $ep }, ZeRO-{ $zero }) is Megatron-Core's{ $peft ->
    [true] {" "}(LoRA: ms-swift's Megatron backend or Megatron-Bridge PEFT)
   *[other] {""}
}: its memory and time are the megatron profile's, and the export launches it with LAUNCHER=megatron
cav-memory-lower-bound = memory is a lower bound: { $basis }
cav-cnn-efficiency = throughput uses { $name } = { $pct }% of peak (convolutional/UNet training reaches far less than transformer GEMMs); measure the first epoch
cav-no-bf16 = { $gpu } has no bf16: trains with fp16 AMP (dynamic loss scaling, fp32 master weights)
cav-serve-no-bf16 = { $gpu } has no bf16: weights and KV cache in fp16 (same size; { $engine ->
    [sglang] SGLang switches to float16 itself below compute capability 8.0
    [trtllm] convert the TensorRT-LLM checkpoint with --dtype float16
    [static] load the model as float16
   *[other] vLLM needs --dtype half there
})
cav-serve-int4-not-marlin = { $weights } under { $engine } on { $gpu } (compute capability { $cc }) runs GPTQ's exllama kernel (an AWQ int4 checkpoint: vLLM's AWQ GEMM kernel, from 7.5), not Marlin, which needs 8.0: the decode time assumes Marlin's near-ideal weight bandwidth and is unverified on this chip
cav-serve-int8-not-marlin = { $weights } under { $engine } on { $gpu } (compute capability { $cc }) runs GPTQ's 8-bit exllama kernel (`gptq_gemm`), not Marlin, which needs 8.0: the decode time assumes Marlin's near-ideal weight bandwidth and is unverified on this chip
cav-serve-no-bf16-no-kv = { $gpu } has no bf16: the weights and activations run in fp16 (same size; load the model as float16, e.g. torch_dtype=torch.float16)
cav-serve-trtllm-unlisted = TensorRT-LLM lists no Pascal GPU ({ $gpu }, compute capability { $cc }): its README (v0.5.0) names Volta, Turing, Ampere, Hopper and Ada, and its later support matrix Ampere and later; NVIDIA states no refusal either, so this estimate assumes the engine builds and runs here, unverified
cav-serve-no-bf16-quantized = { $gpu } has no bf16: with { $weights } weights the activations and KV cache run in fp16 (same size; { $engine ->
    [sglang] SGLang switches to float16 itself below compute capability 8.0
    [trtllm] convert the TensorRT-LLM checkpoint with --dtype float16
    [static] load the model as float16
   *[other] vLLM needs --dtype half there
})
cav-serve-denoising = a request is one image: { $steps } denoising { $steps ->
        [one] step
       *[other] steps
    } × { $samples ->
        [1] 1 UNet sample each (no classifier-free guidance: guidance_scale ≤ 1, as SDXL-Turbo and LCM run)
       *[other] { $samples } UNet samples each (classifier-free guidance batches the conditional and unconditional latents)
    }{ $origin ->
        [set] , as set (diffusers' StableDiffusionXLPipeline defaults to { $default_steps } steps × { $default_samples })
       *[default] , diffusers' StableDiffusionXLPipeline defaults (set --steps; --guidance off for guidance-free distilled models such as SDXL-Turbo)
    }; the VAE decode and the text encoders are not counted
cav-no-flash = no FlashAttention-2 on { $gpu }: attention runs on PyTorch SDPA's memory-efficient kernel (same memory, slower)
cav-no-memory-bandwidth = { $gpu } has no sourced memory bandwidth in the catalog: the bandwidth-bound work of a step (norms, activations, rotary, the loss over the logits, the optimizer step) is not timed, so the step time is a lower bound — on ModelLink's and FlagPerf's published Ascend 910B runs the estimate is a median 7% fast and up to 88% fast for small models with large vocabularies
cav-litgpt-strategy = LitGPT does not run this layout: on { $gpus } GPU(s) its scripts use ZeRO-{ $zero } (FSDP FULL_SHARD above one device) with recompute { $recompute } (every Block checkpointed above one device, for fine-tuning), whatever the flags; estimate that with --zero { $zero } --recompute { $recompute }
cav-megatron-vp-layout = { $layers } layers do not split evenly over PP { $pp } × { $vp } virtual stages: Megatron-Core's get_num_layers_to_build stops at start-up ("num_layers_per_pipeline_rank … should be divisible by vp_size") unless --pipeline-model-parallel-layout places them over the { $pp } × { $vp } chunks; the estimate assumes such a layout, { $per } layers on the busiest rank (or choose virtual_stages dividing the layers per rank)
cav-megatron-pp-zero = Megatron-LM does not launch ZeRO-{ $zero } beside { $pp } pipeline stages: its distributed optimizer shards the optimizer states only (ZeRO-1, what the export writes) and --use-torch-fsdp2 refuses pipeline parallelism; the estimate times the stated layout as fused kernels (a stack of its own, such as Meta's Llama 3 FSDP, runs it), for Megatron-LM set --zero 1 (parallel.zero = 1)
cav-global-batch-raised = global batch { $runs } sequences, not { $want }: { $dp } data-parallel ranks × micro-batch { $mb } × { $accum } accumulation step(s); scale the learning rate for it, or set --global-batch / use fewer GPUs
cav-memory-margin = within the memory model's error: { $free } GiB of { $have } GiB free per GPU, under the { $pct }% of the peak the estimate can miss by, and no configuration searched on this cluster has that margin{ $mb ->
    [1] : nothing smaller than micro-batch 1 to fall back on; if it runs out of memory, take a plan with more or larger GPUs
   *[other] : keep micro-batch { $smaller } ready (gradient accumulation doubled, same global batch)
}
cav-serve-mla-moe-small-batch = MLA + MoE decode at batch { $batch } is below the validated batch 8–64: one published single-request rate is about 4× slower than modelled, so read the time per token as a lower bound
cav-serve-dequantized = the checkpoint ships { $native }; this plan serves a { $weights } copy dequantized from it (no accuracy gained, the weights' memory and reads at 16 bits)
