# Help of every command and flag (`--help`, `gpuplan man`, completions).
# GENERATED from the clap definitions in crates/gpuplan/src/cli.rs: edit the doc comments
# there, then `UPDATE_HELP_CATALOG=1 cargo test -p gpuplan help_catalog`.
# zh/help.ftl holds the same keys; help-values, help-default and help-builtin-* live in
# cli.ftl.

help-about = Which cloud GPU/NPU instances to rent for a deep-learning workload, with the numbers to prove it.
help-about-accuracy = Run the published validation cases and report the error of each
help-about-catalog = Accelerator and instance catalog
help-about-catalog-gpus = Accelerators (GPUs/NPUs) with their sources
help-about-catalog-import = Import a provider's API responses into your user catalog (written atomically)
help-about-catalog-instances = Instance types, filtered (in the spirit of ec2-instance-selector)
help-about-catalog-show = One instance type (or GPU) in full, with its prices; explains known-wrong names
help-about-catalog-validate = Check catalog files (default: the built-in catalog and your user catalogs)
help-about-completions = Print a shell completion script: `gpuplan completions bash > ~/.local/share/bash-completion/completions/gpuplan`
help-about-estimate = Estimate memory, time and communication of one job on given hardware
help-about-export = Write the launch bundle of a saved plan (`gpuplan plan --format json > plan.json`): engine configs, Kubernetes jobs, a SkyPilot task and the cloud command (docs/export.md)
help-about-man = Print the man page (roff), generated from these definitions: `gpuplan man > gpuplan.1`
help-about-models = List the built-in model presets, or show one
help-about-models-show = Architecture and parameter breakdown of a preset (or a config.json with --config)
help-about-plan = Rank cloud instance plans for a workload by cost and time, and explain them
help-about-prices = Prices with their kind, region and age (`--by-gpu` compares chips across providers); `prices fetch PROVIDER` gets today's prices from the provider's price API
help-about-prices-fetch = Fetch today's prices from a provider's price API with your credentials (environment variables, else the provider CLI's profile) into <config dir>/catalog/prices-PROVIDER.toml
help-about-serve = A local web page and JSON HTTP API (`/api/v1`) for plans, estimates and the catalog. The server has NO authentication: it listens on loopback unless --allow-remote is given
help-accuracy--format = Output: table, json or markdown (markdown is docs/accuracy.md: in English unless --lang is given)
help-arg-account-for-embedding-in-pipeline-split = Count the embedding as a layer in the pipeline split (Megatron-Core --account-for-embedding-in-pipeline-split)
help-arg-account-for-loss-in-pipeline-split = Count the loss as a layer in the pipeline split (Megatron-Core --account-for-loss-in-pipeline-split)
help-arg-activation-offload = Offload saved activations to host memory (torchtune enable_activation_offloading)
help-arg-adapter-dtype = LoRA adapter (and its grads and optimizer states) dtype: fp32 (PEFT default) or bf16
help-arg-allow-remote = Allow a non-loopback --bind. The server has no authentication and no TLS: anyone who can reach the address can use it
help-arg-attention = eager, flash (FlashAttention-2, Ampere or later) or mem_efficient (PyTorch SDPA) [default: flash; mem_efficient on chips without it]
help-arg-attention-span = Packed sequences attended per document (FlashAttention varlen, TE THD): the keys a query sees, E[l²]/E[l] of the packed documents, in tokens [default: the whole sequence]
help-arg-autocast = torch.autocast accounting (HF Trainer without DeepSpeed): fp32 weights + grads and bf16 weight copies, no master copy; without it: DeepSpeed/Megatron-style bf16 weights + fp32 master
help-arg-batch = Serving: concurrent sequences in the decode batch [default: 1]
help-arg-bf16-chunked-loss = LitGPT chunked_cross_entropy: bf16 cross-entropy per 128-token chunk, no fp32 upcast
help-arg-bind = Address and port to listen on. Anything but a loopback address (127.0.0.1, ::1) also needs --allow-remote
help-arg-bnb-saves-inputs = QLoRA on bitsandbytes < 0.43.2: every 4-bit linear keeps its input for backward (fixed by bitsandbytes PR #1270)
help-arg-budget = Budget in CNY (the whole job for training, per month for serving) [default: none]
help-arg-by-gpu = Compare the per-GPU-hour price of the same chip across providers
help-arg-bytes-per-sample = Stored bytes per sample, for the data path [default: 4 bytes per token for text; the model's input size for images]
help-arg-cases = Folder of case files [default: the cases built into the binary]
help-arg-catalogs = Extra catalog file(s) merged over the built-in catalog and the user catalogs in the config directory ($GPUPLAN_CONFIG_DIR, else $XDG_CONFIG_HOME/gpuplan, else ~/.config/gpuplan)
help-arg-chips = Chip families allowed (comma list): nvidia, ascend, amd [default: nvidia]
help-arg-chunked-loss = Chunked cross-entropy (torchtune CEWithChunkedOutputLoss, 8 chunks)
help-arg-compiled = The model runs under torch.compile (fused element-wise kernels; with --cp > 1 torch's context-parallel ring is traced, so its K/V all-gathers and dK/dV sends are not overlapped)
help-arg-compiled-loss = The loss runs under torch.compile (fused cross-entropy: only the bf16 logits stay) [default: with --compiled and --chunked-loss]
help-arg-concurrency = Serving: concurrent requests instead of a rate
help-arg-config = A HuggingFace config.json, or a directory containing one
help-arg-cp = Context-parallel degree (Megatron-Core --context-parallel-size; default 1)
help-arg-dataset-size = Dataset size on storage, e.g. 30TB or 500GiB (sets the storage capacity; default: one epoch's samples × bytes per sample)
help-arg-deadline = Deadline: hours, or with a unit: 24h, 30d, 90m [default: none]
help-arg-deepspeed = ZeRO run by DeepSpeed's engine: its reduce bucket and, at the step, the fp32 copy of the rank's gradient partition
help-arg-endpoint = API base URL instead of the provider's (a private endpoint, or a local test server)
help-arg-engine = Serving engine whose KV-pool rule applies: vllm (V1, default), sglang, trtllm, or static (a reference implementation allocating batch × max_model_len up front)
help-arg-engine-version = vLLM release whose memory profiler sizes the KV pool, e.g. 0.5 or 0.6.4 (releases count the memory outside torch differently); default the current rule (v0.6.5 and later); also the engine's release for its MoE kernels (vLLM before 0.8 and SGLang up to 0.4.6 run GPTQ/AWQ MoE layers with one Marlin launch per expert)
help-arg-ep = Expert-parallel degree for MoE models [default: 1]
help-arg-epochs = Passes over the --samples [default: 1]
help-arg-explain = Say for each plan why it beats the next one
help-arg-export = Write the launch bundle of the top plan (or of --pick N) into DIR (docs/export.md)
help-arg-first-stage-layers = Layers on the first pipeline stage (Megatron-Core --decoder-first-pipeline-num-layers)
help-arg-force = Overwrite files that already exist in DIR
help-arg-framework = Software framework: pytorch, tensorflow, jax, mindspore, paddlepaddle [default: pytorch]
help-arg-free-gpu-memory-fraction = TensorRT-LLM `free_gpu_memory_fraction` (with --engine trtllm; default 0.9)
help-arg-gpu-memory-utilization = Serving: share of GPU memory the engine may use (vLLM --gpu-memory-utilization), 0–1 [default: 0.9]
help-arg-gpus-per-node = GPUs per node with --gpu [default: 1]
help-arg-grad-accum = Gradient-accumulation steps per optimizer step [default: 1]
help-arg-grad-all-reduce = ZeRO-1 optimizer that all-reduces whole gradients before updating its shard (DeepSpeed BF16_Optimizer with pipeline parallelism) instead of reduce-scattering them
help-arg-gradient-as-bucket-view = DDP gradient_as_bucket_view=True: no second copy of the gradients in the all-reduce buckets
help-arg-guidance = Serving a diffusion model: classifier-free guidance, on (2 UNet samples per step) or off (1: guidance_scale ≤ 1, as SDXL-Turbo and LCM run) [default: the pipeline's, on for SDXL]
help-arg-host-vcpus = Host vCPUs (hardware threads) per node: image models are capped at vCPUs × nodes × image_decode_per_core samples/s, and the host optimizer step under optimizer offload runs on vCPUs ÷ 2 cores shared by the node's ranks [default: none; with --instance, the catalog's vCPUs]
help-arg-id = Instance id (ecs.gn7e-c16g1.4xlarge), family (gn7e, GN10Xp) or GPU id (a100-80g)
help-arg-image = Tencent: the image id the inquiry names (a public image; the price is the instance's)
help-arg-image-size = Image resolution WIDTHxHEIGHT in pixels for the model's image-token rule [default: 1024x1024]
help-arg-images-per-request = Images in each request (multimodal configs: LLaVA, Qwen2-VL, Pixtral, Llama-3.2-Vision)
help-arg-input-tokens = Serving: prompt tokens per request [default: 1000, fitted to the model's context]
help-arg-instances = Instance types to price (repeatable) [default: every GPU type of the provider]
help-arg-inter-gbit = Per-node network bandwidth, Gbit/s
help-arg-inter-link = Network between nodes: rdma, erdma or tcp
help-arg-interruptible = The job checkpoints and resumes, so spot instances may be used
help-arg-keeps-previous-graph = The loop holds the previous step's logits through the next forward (LitGPT); with --bnb-saves-inputs also the old graph's kept 4-bit inputs
help-arg-kv-dtype = KV cache dtype: bf16, fp16, fp8, int8 [default: bf16]
help-arg-lang = Output language, errors included: en or zh [default: from $LC_ALL, else $LC_MESSAGES, else $LANG; zh_* → zh]
help-arg-last-stage-layers = Layers on the last pipeline stage (Megatron-Core --decoder-last-pipeline-num-layers)
help-arg-lora-dropout = LoRA dropout probability; 0 saves no dropout masks (torchtune, LLaMA-Factory, Unsloth and PEFT's own default) [default: 0.05, the PEFT examples' value]
help-arg-lora-rank = LoRA/QLoRA adapter rank r [default: 16]
help-arg-lora-targets = LoRA target modules: comma-separated linear names, or all-linear [default: all-linear]
help-arg-max-model-len = Serving: longest sequence (prompt + output) a request may have, tokens [default: input + output tokens]
help-arg-max-nodes = Most nodes (instances) one plan may use [default: 16]
help-arg-max-num-batched-tokens = Tokens of the engine's profile batch (vLLM `max_num_batched_tokens`, TensorRT-LLM `max_num_tokens`); default the engine's own
help-arg-max-num-seqs = vLLM `max_num_seqs`: most sequences scheduled at once, and the requests of the V1 profile run's sampler warm-up [default: 1024 on ≥70 GiB GPUs other than A100, else 256]
help-arg-max-price = Maximum price (CNY per hour for on-demand/spot, per month for monthly) under --billing
help-arg-max-price-age = Ignore prices older than this (days: 30d or 30); estimates then come from newer prices only. `gpuplan prices` shows each price's age
help-arg-max-rps = Requests per second at most
help-arg-mem-fraction-static = SGLang `mem_fraction_static` (with --engine sglang; default by TP, 0.88 at TP 1)
help-arg-micro-batch = Sequences per GPU per forward/backward pass [default: 1]
help-arg-min-gpu-memory = Minimum memory per GPU, GiB
help-arg-min-replicas = Serving: fewest replicas, for availability [default: 2]
help-arg-model = Model preset name (`gpuplan models`)
help-arg-model-config = HuggingFace config.json (or its directory) instead of a preset
help-arg-moe-a2a-overlap = MoE: overlap the expert all-to-all with another micro-batch's compute (Megatron-Core --overlap-moe-expert-parallel-comm; default off; with --pp > 1 needs --virtual-stages)
help-arg-moe-dispatcher = MoE token dispatcher: alltoall, deepep, hybridep or allgather (Megatron-Core --moe-token-dispatcher-type, --moe-flex-dispatcher-backend) [default: alltoall]
help-arg-name = Preset name (see `gpuplan models`)
help-arg-nccl-version = NCCL release the job runs, e.g. 2.19.3 (torch 2.2's); before 2.22 NCCL connects every communicator's rings, trees and NVLink SHARP buffers at init; default a current release
help-arg-no-user-catalog = Ignore the user catalogs in the config directory
help-arg-nodes = Nodes [default: 1]
help-arg-nvlink = Only instances whose GPUs are linked by NVLink/NVSwitch/HCCS
help-arg-offload-optimizer = Keep optimizer states in host RAM (DeepSpeed offload)
help-arg-offload-params = Keep parameters in host RAM (ZeRO-3 offload)
help-arg-optimize = Rank by cost, time, or balanced (cost × time)
help-arg-optimizer = adam_w, adam_w8bit, sgd_momentum, adafactor [default: adam_w]
help-arg-optimizer-in-backward = Optimizer step fused into backward (torchtune optimizer_in_bwd): no full gradient buffer
help-arg-output-tokens = Serving: generated tokens per request [default: 300]
help-arg-overlap-grad-reduce = Overlap the gradient reduce with backward (Megatron default off, DDP/FSDP on)
help-arg-overlap-param-gather = Overlap the parameter all-gather with compute (ZeRO-3 prefetch on; ZeRO-1/2 off)
help-arg-paged-optimizer = bitsandbytes paged optimizer states (PagedAdamW / PagedAdamW8bit): CUDA unified memory, outside the allocated peak, paged to host when the GPU is full
help-arg-peak-factor = Serving: the peak load as a multiple of --rate/--concurrency that replicas must carry [default: 1.25]
help-arg-persistent-grads = Gradients kept between steps and zeroed in place (PyTorch < 2.0 zero_grad(set_to_none=False), the HF Trainer before PyTorch 2.0)
help-arg-plan = A saved `gpuplan plan --format json` document
help-arg-pp = Pipeline-parallel stages [default: 1]
help-arg-precision = amp_bf16, amp_fp16, pure_bf16, fp32, fp8 [default: amp_bf16; fp16 on chips without bf16]
help-arg-preemption-rate = Spot preemptions per node-hour [default: 0.02]
help-arg-profile = Memory accounting profile: hugging_face, megatron or litgpt [default: hugging_face]
help-arg-quantized-lm-head = QLoRA with the LM head quantized too (Lightning BitsandbytesPrecision, LitGPT): 4-bit head, dequantized (4 B per weight) in each forward
help-arg-rate = Serving: requests per second to sustain
help-arg-rdma = Only instances with RDMA (eRDMA, RoCE or InfiniBand)
help-arg-recompute = Activation recomputation: none, selective, selective_op (torchtitan per-op SAC), full [default: none]
help-arg-regions = Regions to price (repeatable) [default: each type's catalog regions]
help-arg-retries = Retries of a throttled, failed (5xx) or timed-out request
help-arg-reuse-hours = Hours per month you expect to keep using the machines after this job [default: 0]
help-arg-samples = Training samples per epoch (with --epochs), instead of --tokens; accepts 50k, 1.2M
help-arg-seq-len = Sequence length in tokens per training sample [default: 2048, shortened to the model's context]
help-arg-sequence-parallel = Megatron sequence parallelism (shards activations across the TP group)
help-arg-set = Override a named constant: --set fragmentation=0.05 (see docs/methodology.md)
help-arg-shell = bash, zsh, fish, elvish or powershell
help-arg-solve = Answer a serving question in one call: max-context (longest context at --batch sequences), max-batch (most sequences at input + output tokens), max-throughput (highest output tokens/s within --tpot)
help-arg-steps = Serving a diffusion model: denoising steps per image [default: the pipeline's, 50 for SDXL]
help-arg-task = What to run: pretrain, full (full fine-tune; also `finetune`), lora, qlora, inference [default: full, or the workload file's]
help-arg-timeout = Seconds before one request times out
help-arg-to = Directory to write the bundle into (created if missing)
help-arg-tokens = Training tokens in total: 1e8, 100M, 2B, 300e9, 1.5T (k/M/B/T = 10^3/10^6/10^9/10^12)
help-arg-top = Plans to show
help-arg-tp = Tensor-parallel degree (GPUs sharing each layer; inside a node) [default: 1]
help-arg-tp-comm-overlap = Overlap TP communication with GEMMs (Megatron-Core --tp-comm-overlap; default off)
help-arg-ttft = Serving: time-to-first-token target, seconds (2) or with a unit (500ms, 2s)
help-arg-vgpu = Include vGPU slices
help-arg-virtual-stages = Virtual pipeline stages per device: interleaved 1F1B (default 1 = plain 1F1B)
help-arg-wide = Full tables with every column; the default tables fit the terminal width ($COLUMNS overrides it; output to a pipe or file has no width limit)
help-arg-workload = TOML workload file (docs/workload-format.md); flags override its values
help-arg-zero = ZeRO stage 0–3 (FSDP full shard = 3) [default: 0]
help-arg-zones = Tencent: zone to price in (repeatable) [default: the region's first available zone]
help-catalog-gpus--format = Output: table, json or markdown
help-catalog-import--billing = For Alibaba DescribePrice: on-demand, monthly or spot
help-catalog-import--dry-run = Show what would be imported without writing
help-catalog-import--files = Response files (JSON). Give every page of a paged response
help-catalog-import--instance = For Alibaba DescribePrice: the instance type the request priced
help-catalog-import--provider = The provider whose API responses these are: alibaba, huawei, tencent
help-catalog-import--region = Region the responses were fetched for (Alibaba and Huawei responses do not say)
help-catalog-instances--billing = Which price to show and filter on
help-catalog-instances--format = Output: table, json, csv or markdown
help-catalog-instances--gpu = GPU id or name prefix: A100 matches a100-40g, a100-80g, a100-80g-pcie
help-catalog-instances--gpus = Exact GPU count per instance
help-catalog-instances--provider = alibaba, huawei, tencent (repeatable)
help-catalog-instances--region = Only instances known in this region, or priced in it
help-catalog-show--format = Output: table, json or markdown
help-catalog-validate--files = Catalog files (TOML) to check [default: the built-in and user catalogs]
help-catalog-validate--format = Output: table, json or markdown
help-estimate--format = Output: table, json or markdown
help-estimate--global-batch = Sequences per optimizer step over all data-parallel ranks; sets grad_accum = global / (micro-batch × data-parallel size), which must divide evenly
help-estimate--gpu = GPU type (`gpuplan catalog gpus`), e.g. A100, h100-sxm, l20
help-estimate--instance = A catalog instance type as the hardware (`gpuplan catalog instances`), e.g. ecs.gn7e-c16g1.32xlarge; with --nodes for several. Instead of --gpu/--gpus-per-node (not with them: the instance type fixes both)
help-estimate--tpot = Time-per-output-token target for --solve max-throughput: seconds (0.05) or with a unit (50ms, 0.05s)
help-estimate--weights = Inference weights: fp32, bf16, fp16, fp8, int8, int4 (group 128; also awq, gptq), int4-g<N>, mxfp4 (MoE experts), or bits per weight (e.g. 4.5)
help-examples-estimate =
    Examples:
      # Memory and time of a LoRA fine-tune on one A100 with full recomputation:
      gpuplan estimate -m Llama-3.1-8B --task lora --gpu A100 --recompute full --tokens 100M
      # The same job on a catalog instance type, two nodes:
      gpuplan estimate -m Llama-3.1-8B --task full --instance ecs.gn7e-c16g1.32xlarge --nodes 2 --tokens 2B
      # KV cache and latency of serving on one H100 with int4 weights:
      gpuplan estimate -m Llama-3.1-70B --task inference --gpu h100-sxm --gpus-per-node 2 --tp 2 --weights int4 --batch 32
help-examples-plan =
    Examples:
      # LoRA fine-tune of Qwen2.5-7B on Alibaba Cloud within 24 h, with the reasons:
      gpuplan plan -m Qwen2.5-7B --task lora --seq-len 2048 --tokens 100M --provider alibaba --deadline 24h --explain
      # Serve Llama-3.1-70B at 10 requests/s with latency targets, in Chinese:
      gpuplan plan -m Llama-3.1-70B --task inference --rate 10 --ttft 2 --tpot 0.06 --lang zh
      # Pretrain Llama-2-13B on 300B tokens within 30 days, only on A100/H800 cards:
      gpuplan plan -m Llama-2-13B --task pretrain --tokens 300B --deadline 30d --gpu A100 --gpu H800
      # Every column (provider, billing, price kind, parallelism):
      gpuplan plan -m Qwen2.5-7B --task lora --tokens 1e8 --wide
help-export--pick = Which plan of the document, 1 = the best
help-models--format = Output: table, json or markdown
help-models-show--format = Output: table, json or markdown
help-plan--billing = auto, on-demand, monthly, spot [default: auto: the cheapest that fits]
help-plan--families = Only these instance families (repeatable), e.g. gn7e, GN10Xp, p2s
help-plan--format = table, json (docs/json-schema.md) or markdown
help-plan--global-batch = Sequences (or samples) per optimizer step [default: 64 for fine-tuning, 1024 for pretraining and CNN/UNet models]
help-plan--gpus = Only instance types with this GPU (repeatable; id or name prefix: A100 matches a100-40g and a100-80g, `910B` every Ascend 910B variant)
help-plan--pick = Which plan to export, 1 = the best (at most --top); only with --export
help-plan--provider = Providers to consider (repeatable): alibaba, huawei, tencent
help-plan--region = Regions to consider (repeatable), e.g. cn-shanghai
help-plan--tpot = Serving: time per output token target, seconds (0.06) or with a unit (60ms)
help-plan--weights = Serving: weight formats to consider (comma list of bf16, fp8, int8, int4 (group 128; also awq, gptq), int4-g<N>, mxfp4); default all
help-prices--billing = Only this billing [default: all; with --by-gpu: on-demand]
help-prices--format = Output: table, json or csv
help-prices--gpu = GPU id or name prefix: A100 matches a100-40g, a100-80g
help-prices--provider = alibaba, huawei, tencent (repeatable)
help-prices-fetch--billing = Billings to price, comma-separated
help-prices-fetch--dry-run = List the (type × region × billing) requests without sending them
help-prices-fetch--families = Instance families to price (repeatable), e.g. gn7i, GN7, p2s
help-prices-fetch--provider = The provider to ask: alibaba, huawei, tencent
help-value-billing-on-demand = Also spelled `on_demand`, as in catalog files
help-value-task-full = Full fine-tune (alias: finetune)
