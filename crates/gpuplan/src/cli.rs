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
    /// Estimate memory, time and communication of one job on given hardware.
    Estimate(Box<EstimateArgs>),
    /// Run the published validation cases and report the error of each.
    Accuracy {
        /// Folder of case files.
        #[arg(long, default_value = "cases")]
        cases: PathBuf,
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
    /// Built-in accelerators with their sources.
    Gpus {
        #[arg(long, value_enum, default_value_t = Format::Table)]
        format: Format,
    },
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

#[derive(Args, Debug)]
pub struct EstimateArgs {
    /// TOML workload file (docs/workload-format.md); flags override its values.
    #[arg(long, short = 'w')]
    pub workload: Option<PathBuf>,
    /// Model preset name.
    #[arg(long, short = 'm')]
    pub model: Option<String>,
    /// HuggingFace config.json (or its directory) instead of a preset.
    #[arg(long)]
    pub model_config: Option<PathBuf>,
    #[arg(long, value_enum)]
    pub task: Option<TaskArg>,
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
    pub seq_len: Option<u64>,
    #[arg(long)]
    pub micro_batch: Option<u64>,
    #[arg(long)]
    pub grad_accum: Option<u64>,
    /// amp_bf16, amp_fp16, pure_bf16, fp32, fp8.
    #[arg(long)]
    pub precision: Option<String>,
    /// adam_w, adam_w8bit, sgd_momentum, adafactor.
    #[arg(long)]
    pub optimizer: Option<String>,
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
    /// none, selective, full.
    #[arg(long)]
    pub recompute: Option<String>,
    /// eager or flash.
    #[arg(long)]
    pub attention: Option<String>,
    /// hugging_face or megatron.
    #[arg(long)]
    pub framework: Option<String>,
    #[arg(long)]
    pub lora_rank: Option<u64>,
    /// Comma-separated linear names or all-linear.
    #[arg(long)]
    pub lora_targets: Option<String>,
    /// Training tokens in total.
    #[arg(long)]
    pub tokens: Option<f64>,
    #[arg(long)]
    pub samples: Option<f64>,
    #[arg(long)]
    pub epochs: Option<f64>,
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
    #[arg(long)]
    pub input_tokens: Option<u64>,
    #[arg(long)]
    pub output_tokens: Option<u64>,
    /// Override a named constant: --set fragmentation=0.05 (see docs/methodology.md).
    #[arg(long = "set", value_name = "NAME=VALUE")]
    pub set: Vec<String>,
    #[arg(long, value_enum, default_value_t = Format::Table)]
    pub format: Format,
}
