//! Command-line definition (clap derive).

use clap::{Args, Parser, Subcommand, ValueEnum};
use std::path::PathBuf;

pub mod help;

#[derive(Parser, Debug)]
#[command(
    name = "gpuplan",
    version,
    about = "Which cloud GPU/NPU instances to rent for a deep-learning workload, with the numbers to prove it."
)]
pub struct Cli {
    /// Extra catalog file(s) merged over the built-in catalog and the user catalogs in the config
    /// directory ($GPUPLAN_CONFIG_DIR, else $XDG_CONFIG_HOME/gpuplan, else ~/.config/gpuplan).
    #[arg(long = "catalog", global = true, value_name = "FILE")]
    pub catalogs: Vec<PathBuf>,
    /// Ignore the user catalogs in the config directory.
    #[arg(long, global = true)]
    pub no_user_catalog: bool,
    /// Output language, errors included: en or zh [default: from $LC_ALL, else $LC_MESSAGES, else $LANG; zh_* → zh].
    #[arg(long, global = true, value_enum, ignore_case = true)]
    pub lang: Option<Lang>,
    /// Full tables with every column; the default tables fit the terminal width ($COLUMNS
    /// overrides it; output to a pipe or file has no width limit).
    #[arg(long, global = true)]
    pub wide: bool,
    #[command(subcommand)]
    pub command: Command,
}

#[derive(Subcommand, Debug)]
pub enum Command {
    /// List the built-in model presets, or show one.
    Models {
        #[command(subcommand)]
        action: Option<ModelsAction>,
        /// Output: table, json or markdown.
        #[arg(long, value_enum, default_value_t = Format::Table)]
        format: Format,
    },
    /// Accelerator and instance catalog.
    Catalog {
        #[command(subcommand)]
        action: CatalogAction,
    },
    /// Rank cloud instance plans for a workload by cost and time, and explain them.
    #[command(after_help = PLAN_EXAMPLES)]
    Plan(Box<PlanArgs>),
    /// Estimate memory, time and communication of one job on given hardware.
    #[command(after_help = ESTIMATE_EXAMPLES)]
    Estimate(Box<EstimateArgs>),
    /// Prices with their kind, region and age (`--by-gpu` compares chips across providers);
    /// `prices fetch PROVIDER` gets today's prices from the provider's price API.
    Prices(Box<PricesArgs>),
    /// A local web page and JSON HTTP API (`/api/v1`) for plans, estimates and the catalog.
    /// The server has NO authentication: it listens on loopback unless --allow-remote is given.
    Serve(ServeArgs),
    /// Write the launch bundle of a saved plan (`gpuplan plan --format json > plan.json`):
    /// engine configs, Kubernetes jobs, a SkyPilot task and the cloud command (docs/export.md).
    Export(ExportArgs),
    /// Run the published validation cases and report the error of each.
    Accuracy {
        /// Folder of case files [default: the cases built into the binary].
        #[arg(long)]
        cases: Option<PathBuf>,
        /// Output: table, json or markdown (markdown is docs/accuracy.md: in English unless
        /// --lang is given).
        #[arg(long, value_enum, default_value_t = Format::Table)]
        format: Format,
    },
    /// Print a shell completion script: `gpuplan completions bash > ~/.local/share/bash-completion/completions/gpuplan`.
    Completions {
        /// bash, zsh, fish, elvish or powershell.
        #[arg(value_enum)]
        shell: clap_complete::Shell,
    },
    /// Print the man page (roff), generated from these definitions: `gpuplan man > gpuplan.1`.
    Man,
}

const PLAN_EXAMPLES: &str = "Examples:
  # LoRA fine-tune of Qwen2.5-7B on Alibaba Cloud within 24 h, with the reasons:
  gpuplan plan -m Qwen2.5-7B --task lora --seq-len 2048 --tokens 100M --provider alibaba --deadline 24h --explain
  # Serve Llama-3.1-70B at 10 requests/s with latency targets, in Chinese:
  gpuplan plan -m Llama-3.1-70B --task inference --rate 10 --ttft 2 --tpot 0.06 --lang zh
  # Pretrain Llama-2-13B on 300B tokens within 30 days, only on A100/H800 cards:
  gpuplan plan -m Llama-2-13B --task pretrain --tokens 300B --deadline 30d --gpu A100 --gpu H800
  # Every column (provider, billing, price kind, parallelism):
  gpuplan plan -m Qwen2.5-7B --task lora --tokens 1e8 --wide";

const ESTIMATE_EXAMPLES: &str = "Examples:
  # Memory and time of a LoRA fine-tune on one A100 with full recomputation:
  gpuplan estimate -m Llama-3.1-8B --task lora --gpu A100 --recompute full --tokens 100M
  # The same job on a catalog instance type, two nodes:
  gpuplan estimate -m Llama-3.1-8B --task full --instance ecs.gn7e-c16g1.32xlarge --nodes 2 --tokens 2B
  # KV cache and latency of serving on one H100 with int4 weights:
  gpuplan estimate -m Llama-3.1-70B --task inference --gpu h100-sxm --gpus-per-node 2 --tp 2 --weights int4 --batch 32";

#[derive(Subcommand, Debug)]
pub enum ModelsAction {
    /// Architecture and parameter breakdown of a preset (or a config.json with --config).
    Show {
        /// Preset name (see `gpuplan models`).
        name: Option<String>,
        /// A HuggingFace config.json, or a directory containing one.
        #[arg(long)]
        config: Option<PathBuf>,
        /// Output: table, json or markdown.
        #[arg(long, value_enum, default_value_t = Format::Table)]
        format: Format,
    },
}

#[derive(Subcommand, Debug)]
pub enum CatalogAction {
    /// Accelerators (GPUs/NPUs) with their sources.
    Gpus {
        /// Output: table, json or markdown.
        #[arg(long, value_enum, default_value_t = Format::Table)]
        format: Format,
    },
    /// Instance types, filtered (in the spirit of ec2-instance-selector).
    Instances(InstanceFilterArgs),
    /// One instance type (or GPU) in full, with its prices; explains known-wrong names.
    Show {
        /// Instance id (ecs.gn7e-c16g1.4xlarge), family (gn7e, GN10Xp) or GPU id (a100-80g).
        id: String,
        /// Output: table, json or markdown.
        #[arg(long, value_enum, default_value_t = Format::Table)]
        format: Format,
    },
    /// Check catalog files (default: the built-in catalog and your user catalogs).
    Validate {
        /// Catalog files (TOML) to check [default: the built-in and user catalogs].
        files: Vec<PathBuf>,
        /// Output: table, json or markdown.
        #[arg(long, value_enum, default_value_t = Format::Table)]
        format: Format,
    },
    /// Import a provider's API responses into your user catalog (written atomically).
    Import {
        /// The provider whose API responses these are: alibaba, huawei, tencent.
        #[arg(value_enum)]
        provider: ProviderArg,
        /// Response files (JSON). Give every page of a paged response.
        #[arg(required = true)]
        files: Vec<PathBuf>,
        /// Region the responses were fetched for (Alibaba and Huawei responses do not say).
        #[arg(long)]
        region: Option<String>,
        /// For Alibaba DescribePrice: the instance type the request priced.
        #[arg(long)]
        instance: Option<String>,
        /// For Alibaba DescribePrice: on-demand, monthly or spot.
        #[arg(long)]
        billing: Option<BillingArg>,
        /// Show what would be imported without writing.
        #[arg(long)]
        dry_run: bool,
    },
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, ValueEnum)]
pub enum ProviderArg {
    Alibaba,
    Huawei,
    Tencent,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, ValueEnum)]
pub enum BillingArg {
    /// Also spelled `on_demand`, as in catalog files.
    #[value(alias = "on_demand")]
    OnDemand,
    Monthly,
    Spot,
}

#[derive(Args, Debug)]
pub struct InstanceFilterArgs {
    /// alibaba, huawei, tencent (repeatable).
    #[arg(long)]
    pub provider: Vec<ProviderArg>,
    /// GPU id or name prefix: A100 matches a100-40g, a100-80g, a100-80g-pcie.
    #[arg(long)]
    pub gpu: Option<String>,
    /// Exact GPU count per instance.
    #[arg(long, value_parser = parse_number)]
    pub gpus: Option<f64>,
    /// Minimum memory per GPU, GiB.
    #[arg(long, value_parser = parse_number)]
    pub min_gpu_memory: Option<f64>,
    /// Only instances with RDMA (eRDMA, RoCE or InfiniBand).
    #[arg(long)]
    pub rdma: bool,
    /// Only instances whose GPUs are linked by NVLink/NVSwitch/HCCS.
    #[arg(long)]
    pub nvlink: bool,
    /// Only instances known in this region, or priced in it.
    #[arg(long)]
    pub region: Option<String>,
    /// Maximum price (CNY per hour for on-demand/spot, per month for monthly) under --billing.
    #[arg(long, value_parser = parse_number)]
    pub max_price: Option<f64>,
    /// Which price to show and filter on.
    #[arg(long, value_enum, default_value_t = BillingArg::OnDemand)]
    pub billing: BillingArg,
    /// Include vGPU slices.
    #[arg(long)]
    pub vgpu: bool,
    /// Output: table, json, csv or markdown.
    #[arg(long, value_enum, default_value_t = ListFormat::Table)]
    pub format: ListFormat,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, ValueEnum)]
pub enum ListFormat {
    Table,
    Json,
    Csv,
    Markdown,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, ValueEnum)]
pub enum Format {
    Table,
    Json,
    Markdown,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, ValueEnum)]
pub enum TaskArg {
    Pretrain,
    /// Full fine-tune (alias: finetune).
    #[value(alias = "finetune", alias = "full-finetune")]
    Full,
    Lora,
    Qlora,
    Inference,
}

/// Flags shared by `estimate` and `plan`: the model and the job.
#[derive(Args, Debug)]
pub struct JobArgs {
    /// TOML workload file (docs/workload-format.md); flags override its values.
    #[arg(long, short = 'w')]
    pub workload: Option<PathBuf>,
    /// Model preset name (`gpuplan models`).
    #[arg(long, short = 'm')]
    pub model: Option<String>,
    /// HuggingFace config.json (or its directory) instead of a preset.
    #[arg(long)]
    pub model_config: Option<PathBuf>,
    /// What to run: pretrain, full (full fine-tune; also `finetune`), lora, qlora, inference
    /// [default: full, or the workload file's].
    #[arg(long, value_enum)]
    pub task: Option<TaskArg>,
    /// Sequence length in tokens per training sample [default: 2048, shortened to the model's
    /// context].
    #[arg(long, value_name = "TOKENS")]
    pub seq_len: Option<u64>,
    /// Packed sequences attended per document (FlashAttention varlen, TE THD): the keys a query
    /// sees, E[l²]/E[l] of the packed documents, in tokens [default: the whole sequence].
    #[arg(long, value_name = "TOKENS")]
    pub attention_span: Option<u64>,
    /// Training tokens in total: 1e8, 100M, 2B, 300e9, 1.5T (k/M/B/T = 10^3/10^6/10^9/10^12).
    #[arg(long, value_name = "N", value_parser = parse_amount)]
    pub tokens: Option<f64>,
    /// Training samples per epoch (with --epochs), instead of --tokens; accepts 50k, 1.2M.
    #[arg(long, value_name = "N", value_parser = parse_amount)]
    pub samples: Option<f64>,
    /// Passes over the --samples [default: 1].
    #[arg(long, value_name = "E", value_parser = parse_number)]
    pub epochs: Option<f64>,
    /// amp_bf16, amp_fp16, pure_bf16, fp32, fp8 [default: amp_bf16; fp16 on chips without bf16].
    #[arg(long)]
    pub precision: Option<String>,
    /// adam_w, adam_w8bit, sgd_momentum, adafactor [default: adam_w].
    #[arg(long)]
    pub optimizer: Option<String>,
    /// Memory accounting profile: hugging_face, megatron or litgpt [default: hugging_face].
    #[arg(long)]
    pub profile: Option<String>,
    /// LoRA/QLoRA adapter rank r [default: 16].
    #[arg(long, value_name = "R")]
    pub lora_rank: Option<u64>,
    /// LoRA target modules: comma-separated linear names, or all-linear [default: all-linear].
    #[arg(long)]
    pub lora_targets: Option<String>,
    /// LoRA dropout probability; 0 saves no dropout masks (torchtune, LLaMA-Factory, Unsloth and
    /// PEFT's own default) [default: 0.05, the PEFT examples' value].
    #[arg(long, value_name = "P", value_parser = parse_number)]
    pub lora_dropout: Option<f64>,
    /// LoRA adapter (and its grads and optimizer states) dtype: fp32 (PEFT default) or bf16.
    #[arg(long)]
    pub adapter_dtype: Option<String>,
    /// torch.autocast accounting (HF Trainer without DeepSpeed): fp32 weights + grads and bf16
    /// weight copies, no master copy; without it: DeepSpeed/Megatron-style bf16 weights + fp32 master.
    #[arg(long)]
    pub autocast: bool,
    /// Optimizer step fused into backward (torchtune optimizer_in_bwd): no full gradient buffer.
    #[arg(long)]
    pub optimizer_in_backward: bool,
    /// Chunked cross-entropy (torchtune CEWithChunkedOutputLoss, 8 chunks).
    #[arg(long)]
    pub chunked_loss: bool,
    /// bitsandbytes paged optimizer states (PagedAdamW / PagedAdamW8bit): CUDA unified memory,
    /// outside the allocated peak, paged to host when the GPU is full.
    #[arg(long)]
    pub paged_optimizer: bool,
    /// Offload saved activations to host memory (torchtune enable_activation_offloading).
    #[arg(long)]
    pub activation_offload: bool,
    /// DDP gradient_as_bucket_view=True: no second copy of the gradients in the all-reduce buckets.
    #[arg(long)]
    pub gradient_as_bucket_view: bool,
    /// Gradients kept between steps and zeroed in place (PyTorch < 2.0 zero_grad(set_to_none=False), the HF Trainer before PyTorch 2.0).
    #[arg(long)]
    pub persistent_grads: bool,
    /// NCCL release the job runs, e.g. 2.19.3 (torch 2.2's); before 2.22 NCCL connects every
    /// communicator's rings, trees and NVLink SHARP buffers at init; default a current release.
    #[arg(long, value_name = "RELEASE")]
    pub nccl_version: Option<String>,
    /// ZeRO run by DeepSpeed's engine: its reduce bucket and, at the step, the fp32 copy of the
    /// rank's gradient partition.
    #[arg(long)]
    pub deepspeed: bool,
    /// QLoRA on bitsandbytes < 0.43.2: every 4-bit linear keeps its input for backward (fixed by
    /// bitsandbytes PR #1270).
    #[arg(long)]
    pub bnb_saves_inputs: bool,
    /// QLoRA with the LM head quantized too (Lightning BitsandbytesPrecision, LitGPT): 4-bit head,
    /// dequantized (4 B per weight) in each forward.
    #[arg(long)]
    pub quantized_lm_head: bool,
    /// The loop holds the previous step's logits through the next forward (LitGPT); with
    /// --bnb-saves-inputs also the old graph's kept 4-bit inputs.
    #[arg(long)]
    pub keeps_previous_graph: bool,
    /// LitGPT chunked_cross_entropy: bf16 cross-entropy per 128-token chunk, no fp32 upcast.
    #[arg(long)]
    pub bf16_chunked_loss: bool,
    /// The loss runs under torch.compile (fused cross-entropy: only the bf16 logits stay)
    /// [default: with --compiled and --chunked-loss].
    #[arg(long)]
    pub compiled_loss: bool,
    /// Serving: prompt tokens per request [default: 1000, fitted to the model's context].
    #[arg(long, value_name = "TOKENS")]
    pub input_tokens: Option<u64>,
    /// Serving: generated tokens per request [default: 300].
    #[arg(long, value_name = "TOKENS")]
    pub output_tokens: Option<u64>,
    /// Serving engine whose KV-pool rule applies: vllm (V1, default), sglang, trtllm, or static
    /// (a reference implementation allocating batch × max_model_len up front).
    #[arg(long)]
    pub engine: Option<String>,
    /// Override a named constant: --set fragmentation=0.05 (see docs/methodology.md).
    #[arg(long = "set", value_name = "NAME=VALUE")]
    pub set: Vec<String>,
}

#[derive(Args, Debug)]
pub struct EstimateArgs {
    #[command(flatten)]
    pub job: JobArgs,
    /// A catalog instance type as the hardware (`gpuplan catalog instances`), e.g.
    /// ecs.gn7e-c16g1.32xlarge; with --nodes for several. Instead of --gpu/--gpus-per-node (not
    /// with them: the instance type fixes both).
    #[arg(long, conflicts_with_all = ["gpu", "gpus_per_node"])]
    pub instance: Option<String>,
    /// GPU type (`gpuplan catalog gpus`), e.g. A100, h100-sxm, l20.
    #[arg(long)]
    pub gpu: Option<String>,
    /// GPUs per node with --gpu [default: 1].
    #[arg(long, value_name = "N")]
    pub gpus_per_node: Option<u64>,
    /// Nodes [default: 1].
    #[arg(long, value_name = "N")]
    pub nodes: Option<u64>,
    /// Network between nodes: rdma, erdma or tcp.
    #[arg(long)]
    pub inter_link: Option<String>,
    /// Per-node network bandwidth, Gbit/s.
    #[arg(long, value_parser = parse_number)]
    pub inter_gbit: Option<f64>,
    /// Host vCPUs (hardware threads) per node: image models are capped at vCPUs × nodes ×
    /// image_decode_per_core samples/s, and the host optimizer step under optimizer offload runs
    /// on vCPUs ÷ 2 cores shared by the node's ranks [default: none; with --instance, the
    /// catalog's vCPUs]
    #[arg(long, value_name = "N")]
    pub host_vcpus: Option<u64>,
    /// Sequences per GPU per forward/backward pass [default: 1].
    #[arg(long, value_name = "N")]
    pub micro_batch: Option<u64>,
    /// Gradient-accumulation steps per optimizer step [default: 1].
    #[arg(long, value_name = "N")]
    pub grad_accum: Option<u64>,
    /// ZeRO stage 0–3 (FSDP full shard = 3) [default: 0].
    #[arg(long)]
    pub zero: Option<u8>,
    /// Tensor-parallel degree (GPUs sharing each layer; inside a node) [default: 1].
    #[arg(long, value_name = "N")]
    pub tp: Option<u64>,
    /// Pipeline-parallel stages [default: 1].
    #[arg(long, value_name = "N")]
    pub pp: Option<u64>,
    /// Expert-parallel degree for MoE models [default: 1].
    #[arg(long, value_name = "N")]
    pub ep: Option<u64>,
    /// Megatron sequence parallelism (shards activations across the TP group).
    #[arg(long)]
    pub sequence_parallel: bool,
    /// Keep optimizer states in host RAM (DeepSpeed offload).
    #[arg(long)]
    pub offload_optimizer: bool,
    /// Keep parameters in host RAM (ZeRO-3 offload).
    #[arg(long)]
    pub offload_params: bool,
    /// Sequences per optimizer step over all data-parallel ranks; sets grad_accum =
    /// global / (micro-batch × data-parallel size), which must divide evenly.
    #[arg(long, value_name = "N")]
    pub global_batch: Option<u64>,
    /// Context-parallel degree (Megatron-Core --context-parallel-size; default 1).
    #[arg(long, value_name = "N")]
    pub cp: Option<u64>,
    /// Virtual pipeline stages per device: interleaved 1F1B (default 1 = plain 1F1B).
    #[arg(long, value_name = "N")]
    pub virtual_stages: Option<u64>,
    /// Layers on the last pipeline stage (Megatron-Core --decoder-last-pipeline-num-layers).
    #[arg(long, value_name = "N")]
    pub last_stage_layers: Option<u64>,
    /// Layers on the first pipeline stage (Megatron-Core --decoder-first-pipeline-num-layers).
    #[arg(long, value_name = "N")]
    pub first_stage_layers: Option<u64>,
    /// Count the embedding as a layer in the pipeline split (Megatron-Core
    /// --account-for-embedding-in-pipeline-split).
    #[arg(long)]
    pub account_for_embedding_in_pipeline_split: bool,
    /// Count the loss as a layer in the pipeline split (Megatron-Core
    /// --account-for-loss-in-pipeline-split).
    #[arg(long)]
    pub account_for_loss_in_pipeline_split: bool,
    /// Overlap TP communication with GEMMs (Megatron-Core --tp-comm-overlap; default off).
    #[arg(long)]
    pub tp_comm_overlap: Option<bool>,
    /// Overlap the gradient reduce with backward (Megatron default off, DDP/FSDP on).
    #[arg(long)]
    pub overlap_grad_reduce: Option<bool>,
    /// Overlap the parameter all-gather with compute (ZeRO-3 prefetch on; ZeRO-1/2 off).
    #[arg(long)]
    pub overlap_param_gather: Option<bool>,
    /// MoE: overlap the expert all-to-all with another micro-batch's compute (Megatron-Core --overlap-moe-expert-parallel-comm; default off; with --pp > 1 needs --virtual-stages)
    #[arg(long)]
    pub moe_a2a_overlap: Option<bool>,
    /// MoE token dispatcher: alltoall, deepep, hybridep or allgather (Megatron-Core --moe-token-dispatcher-type, --moe-flex-dispatcher-backend) [default: alltoall]
    #[arg(long, value_name = "NAME")]
    pub moe_dispatcher: Option<String>,
    /// ZeRO-1 optimizer that all-reduces whole gradients before updating its shard (DeepSpeed
    /// BF16_Optimizer with pipeline parallelism) instead of reduce-scattering them.
    #[arg(long)]
    pub grad_all_reduce: bool,
    /// The model runs under torch.compile (fused element-wise kernels; with --cp > 1 torch's
    /// context-parallel ring is traced, so its K/V all-gathers and dK/dV sends are not overlapped).
    #[arg(long)]
    pub compiled: bool,
    /// Activation recomputation: none, selective, selective_op (torchtitan per-op SAC), full
    /// [default: none].
    #[arg(long)]
    pub recompute: Option<String>,
    /// eager, flash (FlashAttention-2, Ampere or later) or mem_efficient (PyTorch SDPA)
    /// [default: flash; mem_efficient on chips without it].
    #[arg(long)]
    pub attention: Option<String>,
    /// Inference weights: fp32, bf16, fp16, fp8, int8, int4 (group 128; also awq, gptq), int4-g<N>, mxfp4 (MoE experts), or bits per weight (e.g. 4.5).
    #[arg(long)]
    pub weights: Option<String>,
    /// KV cache dtype: bf16, fp16, fp8, int8 [default: bf16].
    #[arg(long)]
    pub kv_dtype: Option<String>,
    /// Serving: longest sequence (prompt + output) a request may have, tokens [default: input +
    /// output tokens].
    #[arg(long, value_name = "TOKENS")]
    pub max_model_len: Option<u64>,
    /// Serving: share of GPU memory the engine may use (vLLM --gpu-memory-utilization), 0–1
    /// [default: 0.9].
    #[arg(long, value_name = "SHARE", value_parser = parse_number)]
    pub gpu_memory_utilization: Option<f64>,
    /// Serving: concurrent sequences in the decode batch [default: 1].
    #[arg(long, value_name = "N")]
    pub batch: Option<u64>,
    /// SGLang `mem_fraction_static` (with --engine sglang; default by TP, 0.88 at TP 1).
    #[arg(long, value_parser = parse_number)]
    pub mem_fraction_static: Option<f64>,
    /// TensorRT-LLM `free_gpu_memory_fraction` (with --engine trtllm; default 0.9).
    #[arg(long, value_parser = parse_number)]
    pub free_gpu_memory_fraction: Option<f64>,
    /// vLLM release whose memory profiler sizes the KV pool, e.g. 0.5 or 0.6.4 (releases count
    /// the memory outside torch differently); default the current rule (v0.6.5 and later); also
    /// the engine's release for its MoE kernels (vLLM before 0.8 and SGLang up to 0.4.6 run
    /// GPTQ/AWQ MoE layers with one Marlin launch per expert).
    #[arg(long, value_name = "RELEASE")]
    pub engine_version: Option<String>,
    /// Tokens of the engine's profile batch (vLLM `max_num_batched_tokens`, TensorRT-LLM
    /// `max_num_tokens`); default the engine's own.
    #[arg(long)]
    pub max_num_batched_tokens: Option<u64>,
    /// vLLM `max_num_seqs`: most sequences scheduled at once, and the requests of the V1 profile
    /// run's sampler warm-up [default: 1024 on ≥70 GiB GPUs other than A100, else 256].
    #[arg(long, value_name = "N")]
    pub max_num_seqs: Option<u64>,
    /// Images in each request (multimodal configs: LLaVA, Qwen2-VL, Pixtral, Llama-3.2-Vision).
    #[arg(long)]
    pub images_per_request: Option<u64>,
    /// Image resolution WIDTHxHEIGHT in pixels for the model's image-token rule [default: 1024x1024].
    #[arg(long, value_name = "WxH")]
    pub image_size: Option<String>,
    /// Answer a serving question in one call: max-context (longest context at --batch
    /// sequences), max-batch (most sequences at input + output tokens), max-throughput (highest
    /// output tokens/s within --tpot).
    #[arg(long, value_enum)]
    pub solve: Option<SolveArg>,
    /// Time-per-output-token target for --solve max-throughput: seconds (0.05) or with a unit
    /// (50ms, 0.05s).
    #[arg(long, value_parser = parse_latency)]
    pub tpot: Option<f64>,
    /// Output: table, json or markdown.
    #[arg(long, value_enum, default_value_t = Format::Table)]
    pub format: Format,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, ValueEnum)]
#[allow(clippy::enum_variant_names)] // the names are the questions users type: max-context, …
pub enum SolveArg {
    MaxContext,
    MaxBatch,
    MaxThroughput,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, ValueEnum)]
pub enum Lang {
    En,
    Zh,
}

impl Lang {
    /// The language to use: the flag, else the first set of `$LC_ALL`, `$LC_MESSAGES`, `$LANG`
    /// (POSIX precedence; zh_* → zh), else English.
    pub fn resolve(flag: Option<Lang>) -> gpuplan_core::i18n::Lang {
        use gpuplan_core::i18n::Lang as L;
        match flag {
            Some(Lang::En) => L::En,
            Some(Lang::Zh) => L::Zh,
            None => ["LC_ALL", "LC_MESSAGES", "LANG"]
                .iter()
                .find_map(|k| std::env::var(k).ok().filter(|v| !v.is_empty()))
                .map(|v| L::from_locale(&v))
                .unwrap_or_default(),
        }
    }

    /// The language asked on a raw command line (for errors clap raises before parsing ends).
    pub fn from_args(args: &[String]) -> gpuplan_core::i18n::Lang {
        let mut flag = None;
        for (i, a) in args.iter().enumerate() {
            let v = match a.strip_prefix("--lang=") {
                Some(v) => Some(v),
                None if a == "--lang" => args.get(i + 1).map(String::as_str),
                None => None,
            };
            // Any case, as clap reads the flag (audit r22: `--lang ZH` was refused).
            match v.map(str::to_ascii_lowercase).as_deref() {
                Some("zh") => flag = Some(Lang::Zh),
                Some("en") => flag = Some(Lang::En),
                _ => {}
            }
        }
        Lang::resolve(flag)
    }
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, ValueEnum)]
pub enum OptimizeArg {
    Cost,
    Time,
    Balanced,
}

#[derive(Args, Debug)]
pub struct PlanArgs {
    #[command(flatten)]
    pub job: JobArgs,
    /// Stored bytes per sample, for the data path [default: 4 bytes per token for text; the
    /// model's input size for images].
    #[arg(long, value_name = "BYTES", value_parser = parse_number)]
    pub bytes_per_sample: Option<f64>,
    /// Dataset size on storage, e.g. 30TB or 500GiB (sets the storage capacity; default: one
    /// epoch's samples × bytes per sample).
    #[arg(long)]
    pub dataset_size: Option<String>,
    /// Sequences (or samples) per optimizer step [default: 64 for fine-tuning, 1024 for
    /// pretraining and CNN/UNet models].
    #[arg(long, value_name = "N")]
    pub global_batch: Option<u64>,
    /// Software framework: pytorch, tensorflow, jax, mindspore, paddlepaddle [default: pytorch].
    #[arg(long)]
    pub framework: Option<String>,
    /// Serving: requests per second to sustain.
    #[arg(long, value_name = "REQ/S", value_parser = parse_number)]
    pub rate: Option<f64>,
    /// Serving: concurrent requests instead of a rate.
    #[arg(long, value_name = "N", conflicts_with = "rate")]
    pub concurrency: Option<u64>,
    /// Serving: time-to-first-token target, seconds (2) or with a unit (500ms, 2s).
    #[arg(long, value_parser = parse_latency)]
    pub ttft: Option<f64>,
    /// Serving: time per output token target, seconds (0.06) or with a unit (60ms).
    #[arg(long, value_parser = parse_latency)]
    pub tpot: Option<f64>,
    /// Serving: fewest replicas, for availability [default: 2].
    #[arg(long)]
    pub min_replicas: Option<u64>,
    /// Serving: the peak load as a multiple of --rate/--concurrency that replicas must carry
    /// [default: 1.25].
    #[arg(long, value_parser = parse_number)]
    pub peak_factor: Option<f64>,
    /// Serving a diffusion model: denoising steps per image [default: the pipeline's, 50 for
    /// SDXL].
    #[arg(long)]
    pub steps: Option<u64>,
    /// Serving a diffusion model: classifier-free guidance, on (2 UNet samples per step) or off
    /// (1: guidance_scale ≤ 1, as SDXL-Turbo and LCM run) [default: the pipeline's, on for SDXL].
    #[arg(long)]
    pub guidance: Option<String>,
    /// Serving: weight formats to consider (comma list of bf16, fp8, int8, int4 (group 128; also awq, gptq), int4-g<N>, mxfp4); default all.
    #[arg(long)]
    pub weights: Option<String>,
    /// Providers to consider (repeatable): alibaba, huawei, tencent.
    #[arg(long)]
    pub provider: Vec<ProviderArg>,
    /// Regions to consider (repeatable), e.g. cn-shanghai.
    #[arg(long)]
    pub region: Vec<String>,
    /// Chip families allowed (comma list): nvidia, ascend, amd [default: nvidia].
    #[arg(long)]
    pub chips: Option<String>,
    /// Only instance types with this GPU (repeatable; id or name prefix: A100 matches a100-40g
    /// and a100-80g, `910B` every Ascend 910B variant).
    #[arg(long = "gpu", value_name = "GPU")]
    pub gpus: Vec<String>,
    /// Only these instance families (repeatable), e.g. gn7e, GN10Xp, p2s.
    #[arg(long = "family", value_name = "FAMILY")]
    pub families: Vec<String>,
    /// Deadline: hours, or with a unit: 24h, 30d, 90m [default: none].
    #[arg(long)]
    pub deadline: Option<String>,
    /// Budget in CNY (the whole job for training, per month for serving) [default: none].
    #[arg(long, value_name = "CNY", value_parser = parse_number)]
    pub budget: Option<f64>,
    /// Most nodes (instances) one plan may use [default: 16].
    #[arg(long, value_name = "N")]
    pub max_nodes: Option<u64>,
    /// auto, on-demand, monthly, spot [default: auto: the cheapest that fits].
    #[arg(long)]
    pub billing: Option<String>,
    /// The job checkpoints and resumes, so spot instances may be used.
    #[arg(long)]
    pub interruptible: bool,
    /// Spot preemptions per node-hour [default: 0.02].
    #[arg(long, value_name = "RATE", value_parser = parse_number)]
    pub preemption_rate: Option<f64>,
    /// Hours per month you expect to keep using the machines after this job [default: 0].
    #[arg(long, value_name = "HOURS", value_parser = parse_number)]
    pub reuse_hours: Option<f64>,
    /// Rank by cost, time, or balanced (cost × time).
    #[arg(long, value_enum, default_value_t = OptimizeArg::Cost)]
    pub optimize: OptimizeArg,
    /// Plans to show.
    #[arg(long, default_value_t = 5, value_name = "N")]
    pub top: usize,
    /// Say for each plan why it beats the next one.
    #[arg(long)]
    pub explain: bool,
    /// table, json (docs/json-schema.md) or markdown.
    #[arg(long, value_enum, default_value_t = Format::Table)]
    pub format: Format,
    /// Ignore prices older than this (days: 30d or 30); estimates then come from newer prices
    /// only. `gpuplan prices` shows each price's age.
    #[arg(long, value_name = "AGE")]
    pub max_price_age: Option<String>,
    #[command(flatten)]
    pub export: ExportFlags,
}

/// `plan --export DIR [--pick N] [--force]` and `export … --to DIR`.
#[derive(Args, Debug, Clone, Default)]
pub struct ExportFlags {
    /// Write the launch bundle of the top plan (or of --pick N) into DIR (docs/export.md).
    #[arg(long, value_name = "DIR")]
    pub export: Option<PathBuf>,
    /// Which plan to export, 1 = the best (at most --top); only with --export.
    #[arg(long, default_value_t = 1, value_name = "N", requires = "export")]
    pub pick: usize,
    /// Overwrite files that already exist in DIR.
    #[arg(long, requires = "export")]
    pub force: bool,
}

#[derive(Args, Debug)]
pub struct ExportArgs {
    /// A saved `gpuplan plan --format json` document.
    pub plan: PathBuf,
    /// Directory to write the bundle into (created if missing).
    #[arg(long, value_name = "DIR")]
    pub to: PathBuf,
    /// Which plan of the document, 1 = the best.
    #[arg(long, default_value_t = 1, value_name = "N")]
    pub pick: usize,
    /// Overwrite files that already exist in DIR.
    #[arg(long)]
    pub force: bool,
}

#[derive(Args, Debug)]
#[command(args_conflicts_with_subcommands = true)]
pub struct PricesArgs {
    #[command(subcommand)]
    pub action: Option<PricesAction>,
    #[command(flatten)]
    pub list: PricesListArgs,
}

#[derive(Args, Debug)]
pub struct PricesListArgs {
    /// alibaba, huawei, tencent (repeatable).
    #[arg(long)]
    pub provider: Vec<ProviderArg>,
    /// GPU id or name prefix: A100 matches a100-40g, a100-80g.
    #[arg(long)]
    pub gpu: Option<String>,
    /// Only this billing [default: all; with --by-gpu: on-demand].
    #[arg(long, value_enum)]
    pub billing: Option<BillingArg>,
    /// Compare the per-GPU-hour price of the same chip across providers.
    #[arg(long)]
    pub by_gpu: bool,
    /// Output: table, json or csv.
    #[arg(long, value_enum, default_value_t = PriceFormat::Table)]
    pub format: PriceFormat,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, ValueEnum)]
pub enum PriceFormat {
    Table,
    Json,
    Csv,
}

#[derive(Subcommand, Debug)]
pub enum PricesAction {
    /// Fetch today's prices from a provider's price API with your credentials (environment
    /// variables, else the provider CLI's profile) into <config dir>/catalog/prices-PROVIDER.toml.
    Fetch(Box<FetchArgs>),
}

#[derive(Args, Debug)]
pub struct FetchArgs {
    /// The provider to ask: alibaba, huawei, tencent.
    #[arg(value_enum)]
    pub provider: ProviderArg,
    /// Regions to price (repeatable) [default: each type's catalog regions].
    #[arg(long = "region", value_name = "REGION")]
    pub regions: Vec<String>,
    /// Instance types to price (repeatable) [default: every GPU type of the provider].
    #[arg(long = "instance", value_name = "TYPE", conflicts_with = "families")]
    pub instances: Vec<String>,
    /// Instance families to price (repeatable), e.g. gn7i, GN7, p2s.
    #[arg(long = "family", value_name = "FAMILY")]
    pub families: Vec<String>,
    /// Billings to price, comma-separated.
    #[arg(
        long,
        value_enum,
        value_delimiter = ',',
        default_value = "on-demand,monthly,spot"
    )]
    pub billing: Vec<BillingArg>,
    /// API base URL instead of the provider's (a private endpoint, or a local test server).
    #[arg(long)]
    pub endpoint: Option<String>,
    /// Tencent: zone to price in (repeatable) [default: the region's first available zone].
    #[arg(long = "zone", value_name = "ZONE")]
    pub zones: Vec<String>,
    /// Tencent: the image id the inquiry names (a public image; the price is the instance's).
    #[arg(long, default_value = "img-487zeit5")]
    pub image: String,
    /// Requests per second at most.
    #[arg(long, default_value_t = 5.0)]
    pub max_rps: f64,
    /// Retries of a throttled, failed (5xx) or timed-out request.
    #[arg(long, default_value_t = 4)]
    pub retries: u32,
    /// Seconds before one request times out.
    #[arg(long, default_value_t = 20)]
    pub timeout: u64,
    /// List the (type × region × billing) requests without sending them.
    #[arg(long)]
    pub dry_run: bool,
}

/// A plain number flag (`--lora-dropout 0.05`): a `-0` is read as 0 (a negative zero passes the
/// ≥ 0 checks and was printed as a negative figure, audit r19 #3).
pub fn parse_number(s: &str) -> Result<f64, std::num::ParseFloatError> {
    s.parse::<f64>().map(|v| v + 0.0)
}

/// An amount with an optional suffix: `1e8`, `100M`, `2B`, `1.5T`, `50k` (k = 10^3, M = 10^6,
/// B/G = 10^9, T = 10^12). The range is checked where the value is used.
pub fn parse_amount(s: &str) -> Result<f64, AmountError> {
    let t = s.trim().replace('_', "");
    let (num, mult) = match t.chars().last() {
        Some('k' | 'K') => (&t[..t.len() - 1], 1e3),
        Some('m' | 'M') => (&t[..t.len() - 1], 1e6),
        Some('b' | 'B' | 'g' | 'G') => (&t[..t.len() - 1], 1e9),
        Some('t' | 'T') => (&t[..t.len() - 1], 1e12),
        _ => (t.as_str(), 1.0),
    };
    let v: f64 = num.trim().parse().map_err(|_| AmountError::NotANumber)?;
    let v = v * mult;
    if v.is_finite() && v > 0.0 {
        Ok(v)
    } else {
        Err(AmountError::NotPositive)
    }
}

/// A latency target in seconds: a plain number is seconds (`0.05`, as the workload file's
/// `ttft_s`/`tpot_s`), `ms` or `s` name the unit (`50ms`, `2s`). Review r15: `--tpot 30ms`, the
/// way SLOs are written, was refused, and `--tpot 30` meant 30 seconds. Zero, negative and
/// non-finite values pass through to the serving job's own check, which names the key.
pub fn parse_latency(s: &str) -> Result<f64, AmountError> {
    let t = s.trim().to_ascii_lowercase();
    let (num, scale) = if let Some(n) = t.strip_suffix("ms") {
        (n, 1e-3)
    } else if let Some(n) = t.strip_suffix('s') {
        (n, 1.0)
    } else {
        (t.as_str(), 1.0)
    };
    let v: f64 = num.trim().parse().map_err(|_| AmountError::BadLatency)?;
    Ok(v * scale + 0.0)
}

/// Why [`parse_amount`] (or [`parse_latency`]) refused a value; the message (flag, value, what is accepted, an
/// example) is rendered from the catalog by `render::number_error`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum AmountError {
    /// Not a number, with or without a suffix.
    NotANumber,
    /// Zero, negative, or too large to be finite.
    NotPositive,
    /// A latency that is not a number of seconds or milliseconds ([`parse_latency`]).
    BadLatency,
}

impl AmountError {
    /// The catalog id of what the flag accepts.
    pub fn accepted_id(self) -> &'static str {
        match self {
            AmountError::NotANumber => "cli-accepts-amount",
            AmountError::NotPositive => "cli-accepts-amount-positive",
            AmountError::BadLatency => "cli-accepts-latency",
        }
    }
}

impl std::fmt::Display for AmountError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let text = gpuplan_core::i18n::text(gpuplan_core::i18n::Lang::En, self.accepted_id());
        f.write_str(&text)
    }
}

impl std::error::Error for AmountError {}

/// A valid value of a numeric flag, shown in its error message (`--seq-len 2k` → `--seq-len
/// 4096`); a count of GPUs, nodes or ways of parallelism otherwise.
pub fn flag_example(flag: &str) -> &'static str {
    match flag {
        "--seq-len" | "--attention-span" | "--input-tokens" | "--max-model-len" => "4096",
        "--max-num-batched-tokens" => "8192",
        "--output-tokens" => "512",
        "--tokens" => "2B",
        "--samples" => "50k",
        "--epochs" | "--images-per-request" => "3",
        "--lora-rank" => "16",
        "--lora-dropout" | "--preemption-rate" => "0.05",
        "--tpot" => "50ms",
        "--gpu-memory-utilization" | "--mem-fraction-static" | "--free-gpu-memory-fraction" => {
            "0.9"
        }
        "--min-gpu-memory" => "80",
        "--max-price" => "30",
        "--inter-gbit" => "200",
        "--zero" => "2",
        "--global-batch" | "--max-num-seqs" => "256",
        "--batch" | "--concurrency" => "32",
        "--bytes-per-sample" => "150000",
        "--rate" | "--max-rps" => "5",
        "--ttft" => "2s",
        "--min-replicas" => "2",
        "--peak-factor" => "1.5",
        "--steps" | "--timeout" => "20",
        "--budget" => "50000",
        "--reuse-hours" => "200",
        "--top" | "--retries" => "4",
        "--pick" => "1",
        _ => "8",
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use clap::CommandFactory;

    #[test]
    fn amounts_take_suffixes() {
        assert_eq!(parse_amount("100M"), Ok(1e8));
        assert_eq!(parse_amount("2B"), Ok(2e9));
        assert_eq!(parse_amount("1.5T"), Ok(1.5e12));
        assert_eq!(parse_amount("50k"), Ok(5e4));
        assert_eq!(parse_amount("1e8"), Ok(1e8));
        assert_eq!(parse_amount("0"), Err(AmountError::NotPositive));
        assert_eq!(parse_amount("lots"), Err(AmountError::NotANumber));
        assert_eq!(parse_amount("1e400"), Err(AmountError::NotPositive));
    }

    /// Review r15: latency targets take the units SLOs are written in.
    #[test]
    fn latencies_take_units() {
        assert_eq!(parse_latency("0.05"), Ok(0.05));
        assert_eq!(parse_latency("50ms"), Ok(0.05));
        assert_eq!(parse_latency("50 MS"), Ok(0.05));
        assert_eq!(parse_latency("2s"), Ok(2.0));
        assert_eq!(parse_latency("500ms"), Ok(0.5));
        assert_eq!(parse_latency("fast"), Err(AmountError::BadLatency));
        assert_eq!(parse_latency("50us"), Err(AmountError::BadLatency));
        // Left to the serving job's check, which names `tpot_s`.
        assert!(parse_latency("inf").is_ok_and(f64::is_infinite));
    }

    /// Every numeric flag (one whose parser refuses `x` as a number) has an error example that
    /// its own parser accepts.
    #[test]
    fn every_numeric_flag_has_an_example_it_accepts() {
        /// `value` through a flag's own parser alone.
        fn parse(parser: &clap::builder::ValueParser, value: &str) -> clap::error::Result<()> {
            let arg = clap::Arg::new("v").value_parser(parser.clone());
            clap::Command::new("t")
                .arg(arg)
                .try_get_matches_from(["t", value])
                .map(|_| ())
        }
        fn visit(cmd: &clap::Command, checked: &mut usize) {
            for arg in cmd.get_arguments() {
                let Some(long) = arg.get_long() else { continue };
                let Err(e) = parse(arg.get_value_parser(), "x") else {
                    continue;
                };
                let numeric = std::error::Error::source(&e).is_some_and(|s| {
                    s.is::<std::num::ParseIntError>()
                        || s.is::<std::num::ParseFloatError>()
                        || s.is::<AmountError>()
                });
                if numeric {
                    let example = flag_example(&format!("--{long}"));
                    let parsed = parse(arg.get_value_parser(), example);
                    assert!(parsed.is_ok(), "--{long} {example}: {parsed:?}");
                    *checked += 1;
                }
            }
            for sub in cmd.get_subcommands() {
                visit(sub, checked);
            }
        }
        let mut checked = 0;
        visit(&Cli::command(), &mut checked);
        assert!(checked >= 40, "only {checked} numeric flags found");
    }

    #[test]
    fn the_cli_definition_is_consistent() {
        Cli::command().debug_assert();
    }

    /// Every flag of every subcommand says what it is (help that teaches).
    #[test]
    fn every_flag_has_a_description() {
        fn walk(c: &clap::Command, path: &str, missing: &mut Vec<String>) {
            for a in c.get_arguments() {
                let id = a.get_id().as_str();
                if id == "help" || id == "version" {
                    continue;
                }
                if a.get_help().is_none() && a.get_long_help().is_none() {
                    missing.push(format!("{path} --{id}"));
                }
            }
            for s in c.get_subcommands() {
                walk(s, &format!("{path} {}", s.get_name()), missing);
            }
        }
        let mut missing = Vec::new();
        walk(&Cli::command(), "gpuplan", &mut missing);
        assert!(missing.is_empty(), "flags without help: {missing:#?}");
    }
}

#[derive(Args, Debug)]
pub struct ServeArgs {
    /// Address and port to listen on. Anything but a loopback address (127.0.0.1, ::1) also needs
    /// --allow-remote.
    #[arg(long, default_value = "127.0.0.1:8700")]
    pub bind: std::net::SocketAddr,
    /// Allow a non-loopback --bind. The server has no authentication and no TLS: anyone who can
    /// reach the address can use it.
    #[arg(long)]
    pub allow_remote: bool,
}
