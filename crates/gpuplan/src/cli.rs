//! Command-line definition (clap derive).

use clap::{Args, Parser, Subcommand, ValueEnum};
use std::path::PathBuf;

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
    #[command(subcommand)]
    pub command: Command,
}

#[derive(Subcommand, Debug)]
pub enum Command {
    /// List the built-in model presets, or show one.
    Models {
        #[command(subcommand)]
        action: Option<ModelsAction>,
        #[arg(long, value_enum, default_value_t = Format::Table)]
        format: Format,
    },
    /// Accelerator and instance catalog.
    Catalog {
        #[command(subcommand)]
        action: CatalogAction,
    },
    /// Rank cloud instance plans for a workload by cost and time, and explain them.
    Plan(Box<PlanArgs>),
    /// Estimate memory, time and communication of one job on given hardware.
    Estimate(Box<EstimateArgs>),
    /// Prices with their kind, region and age (`--by-gpu` compares chips across providers);
    /// `prices fetch PROVIDER` gets today's prices from the provider's price API.
    Prices(Box<PricesArgs>),
    /// Run the published validation cases and report the error of each.
    Accuracy {
        /// Folder of case files [default: the cases built into the binary].
        #[arg(long)]
        cases: Option<PathBuf>,
        #[arg(long, value_enum, default_value_t = Format::Table)]
        format: Format,
    },
}

#[derive(Subcommand, Debug)]
pub enum ModelsAction {
    /// Architecture and parameter breakdown of a preset (or a config.json with --config).
    Show {
        /// Preset name (see `gpuplan models`).
        name: Option<String>,
        /// A HuggingFace config.json, or a directory containing one.
        #[arg(long)]
        config: Option<PathBuf>,
        #[arg(long, value_enum, default_value_t = Format::Table)]
        format: Format,
    },
}

#[derive(Subcommand, Debug)]
pub enum CatalogAction {
    /// Accelerators (GPUs/NPUs) with their sources.
    Gpus {
        #[arg(long, value_enum, default_value_t = Format::Table)]
        format: Format,
    },
    /// Instance types, filtered (in the spirit of ec2-instance-selector).
    Instances(InstanceFilterArgs),
    /// One instance type (or GPU) in full, with its prices; explains known-wrong names.
    Show {
        id: String,
        #[arg(long, value_enum, default_value_t = Format::Table)]
        format: Format,
    },
    /// Check catalog files (default: the built-in catalog and your user catalogs).
    Validate {
        files: Vec<PathBuf>,
        #[arg(long, value_enum, default_value_t = Format::Table)]
        format: Format,
    },
    /// Import a provider's API responses into your user catalog (written atomically).
    Import {
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
    #[arg(long)]
    pub gpus: Option<f64>,
    /// Minimum memory per GPU, GiB.
    #[arg(long)]
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
    #[arg(long)]
    pub max_price: Option<f64>,
    /// Which price to show and filter on.
    #[arg(long, value_enum, default_value_t = BillingArg::OnDemand)]
    pub billing: BillingArg,
    /// Include vGPU slices.
    #[arg(long)]
    pub vgpu: bool,
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
    #[arg(long, value_enum)]
    pub task: Option<TaskArg>,
    #[arg(long)]
    pub seq_len: Option<u64>,
    /// Training tokens in total (accepts 1e8, 300e9).
    #[arg(long)]
    pub tokens: Option<f64>,
    #[arg(long)]
    pub samples: Option<f64>,
    #[arg(long)]
    pub epochs: Option<f64>,
    /// amp_bf16, amp_fp16, pure_bf16, fp32, fp8.
    #[arg(long)]
    pub precision: Option<String>,
    /// adam_w, adam_w8bit, sgd_momentum, adafactor.
    #[arg(long)]
    pub optimizer: Option<String>,
    /// Memory accounting profile: hugging_face or megatron.
    #[arg(long)]
    pub profile: Option<String>,
    #[arg(long)]
    pub lora_rank: Option<u64>,
    /// Comma-separated linear names or all-linear.
    #[arg(long)]
    pub lora_targets: Option<String>,
    #[arg(long)]
    pub input_tokens: Option<u64>,
    #[arg(long)]
    pub output_tokens: Option<u64>,
    /// Override a named constant: --set fragmentation=0.05 (see docs/methodology.md).
    #[arg(long = "set", value_name = "NAME=VALUE")]
    pub set: Vec<String>,
}

#[derive(Args, Debug)]
pub struct EstimateArgs {
    #[command(flatten)]
    pub job: JobArgs,
    /// A catalog instance type as the hardware (`gpuplan catalog instances`), e.g.
    /// ecs.gn7e-c16g1.32xlarge; with --nodes for several. Replaces --gpu/--gpus-per-node.
    #[arg(long)]
    pub instance: Option<String>,
    /// GPU type (`gpuplan catalog gpus`), e.g. A100, h100-sxm, l20.
    #[arg(long)]
    pub gpu: Option<String>,
    #[arg(long)]
    pub gpus_per_node: Option<u64>,
    #[arg(long)]
    pub nodes: Option<u64>,
    /// Network between nodes: rdma, erdma or tcp.
    #[arg(long)]
    pub inter_link: Option<String>,
    /// Per-node network bandwidth, Gbit/s.
    #[arg(long)]
    pub inter_gbit: Option<f64>,
    #[arg(long)]
    pub micro_batch: Option<u64>,
    #[arg(long)]
    pub grad_accum: Option<u64>,
    /// ZeRO stage 0–3 (FSDP full shard = 3).
    #[arg(long)]
    pub zero: Option<u8>,
    #[arg(long)]
    pub tp: Option<u64>,
    #[arg(long)]
    pub pp: Option<u64>,
    #[arg(long)]
    pub ep: Option<u64>,
    #[arg(long)]
    pub sequence_parallel: bool,
    #[arg(long)]
    pub offload_optimizer: bool,
    #[arg(long)]
    pub offload_params: bool,
    /// Sequences per optimizer step over all data-parallel ranks; sets grad_accum =
    /// global / (micro-batch × data-parallel size), which must divide evenly.
    #[arg(long)]
    pub global_batch: Option<u64>,
    /// Context-parallel degree (Megatron-Core --context-parallel-size; default 1).
    #[arg(long)]
    pub cp: Option<u64>,
    /// Virtual pipeline stages per device: interleaved 1F1B (default 1 = plain 1F1B).
    #[arg(long)]
    pub virtual_stages: Option<u64>,
    /// Layers on the last pipeline stage (Megatron-Core --decoder-last-pipeline-num-layers).
    #[arg(long)]
    pub last_stage_layers: Option<u64>,
    /// Overlap TP communication with GEMMs (Megatron-Core --tp-comm-overlap; default off).
    #[arg(long)]
    pub tp_comm_overlap: Option<bool>,
    /// Overlap the gradient reduce with backward (Megatron default off, DDP/FSDP on).
    #[arg(long)]
    pub overlap_grad_reduce: Option<bool>,
    /// Overlap the parameter all-gather with compute (ZeRO-3 prefetch on; ZeRO-1/2 off).
    #[arg(long)]
    pub overlap_param_gather: Option<bool>,
    /// The model runs under torch.compile (fused element-wise kernels).
    #[arg(long)]
    pub compiled: bool,
    /// none, selective, selective_op (torchtitan per-op SAC), full.
    #[arg(long)]
    pub recompute: Option<String>,
    /// eager, flash (FlashAttention-2, Ampere or later) or mem_efficient (PyTorch SDPA).
    #[arg(long)]
    pub attention: Option<String>,
    /// Inference weights: fp32, bf16, fp16, fp8, int8, int4 (group 128), or bits per weight (e.g. 4.5).
    #[arg(long)]
    pub weights: Option<String>,
    /// KV cache dtype: bf16, fp16, fp8, int8.
    #[arg(long)]
    pub kv_dtype: Option<String>,
    #[arg(long)]
    pub max_model_len: Option<u64>,
    #[arg(long)]
    pub gpu_memory_utilization: Option<f64>,
    /// Concurrent sequences for decode.
    #[arg(long)]
    pub batch: Option<u64>,
    #[arg(long, value_enum, default_value_t = Format::Table)]
    pub format: Format,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, ValueEnum)]
pub enum Lang {
    En,
    Zh,
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
    /// Stored bytes per sample (data path).
    #[arg(long)]
    pub bytes_per_sample: Option<f64>,
    /// Dataset size on storage, e.g. 30TB or 500GiB (sets the storage capacity; default: one
    /// epoch's samples × bytes per sample).
    #[arg(long)]
    pub dataset_size: Option<String>,
    /// Sequences (or samples) per optimizer step.
    #[arg(long)]
    pub global_batch: Option<u64>,
    /// Software framework: pytorch, tensorflow, jax, mindspore, paddlepaddle.
    #[arg(long)]
    pub framework: Option<String>,
    /// Serving: requests per second to sustain.
    #[arg(long)]
    pub rate: Option<f64>,
    /// Serving: concurrent requests instead of a rate.
    #[arg(long)]
    pub concurrency: Option<u64>,
    /// Serving: time-to-first-token target in seconds (e.g. 2).
    #[arg(long)]
    pub ttft: Option<f64>,
    /// Serving: time per output token target in seconds (e.g. 0.06).
    #[arg(long)]
    pub tpot: Option<f64>,
    /// Serving: fewest replicas, for availability [default: 2].
    #[arg(long)]
    pub min_replicas: Option<u64>,
    /// Serving: the peak load as a multiple of --rate/--concurrency that replicas must carry
    /// [default: 1.25].
    #[arg(long)]
    pub peak_factor: Option<f64>,
    /// Serving: weight formats to consider (comma list of bf16, fp8, int8, int4); default all.
    #[arg(long)]
    pub weights: Option<String>,
    /// Providers to consider (repeatable): alibaba, huawei, tencent.
    #[arg(long)]
    pub provider: Vec<ProviderArg>,
    /// Regions to consider (repeatable), e.g. cn-shanghai.
    #[arg(long)]
    pub region: Vec<String>,
    /// Chip families allowed (comma list): nvidia, ascend, amd. Default nvidia.
    #[arg(long)]
    pub chips: Option<String>,
    /// Deadline: hours, or with a unit: 24h, 30d.
    #[arg(long)]
    pub deadline: Option<String>,
    /// Budget in CNY (the whole job for training, per month for serving).
    #[arg(long)]
    pub budget: Option<f64>,
    #[arg(long)]
    pub max_nodes: Option<u64>,
    /// auto, on-demand, monthly, spot.
    #[arg(long)]
    pub billing: Option<String>,
    /// The job checkpoints and resumes, so spot instances may be used.
    #[arg(long)]
    pub interruptible: bool,
    /// Spot preemptions per node-hour (default 0.02).
    #[arg(long)]
    pub preemption_rate: Option<f64>,
    /// Hours per month you expect to keep using the machines after this job.
    #[arg(long)]
    pub reuse_hours: Option<f64>,
    #[arg(long, value_enum, default_value_t = OptimizeArg::Cost)]
    pub optimize: OptimizeArg,
    #[arg(long, default_value_t = 5)]
    pub top: usize,
    /// Say for each plan why it beats the next one.
    #[arg(long)]
    pub explain: bool,
    #[arg(long, value_enum, default_value_t = Format::Table)]
    pub format: Format,
    /// Output language; default from $LANG (zh_* → zh).
    #[arg(long, value_enum)]
    pub lang: Option<Lang>,
    /// Ignore prices older than this (days: 30d or 30); estimates then come from newer prices
    /// only. `gpuplan prices` shows each price's age.
    #[arg(long, value_name = "AGE")]
    pub max_price_age: Option<String>,
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
