//! What the user wants to run: a training or an inference job, in the vocabulary of the
//! frameworks (HF Trainer / DeepSpeed / FSDP / Megatron / vLLM). Deserializable from the TOML
//! workload file (docs/workload-format.md); unknown keys are rejected with their name.

use crate::error::CoreError;
use serde::{Deserialize, Serialize};

#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum TrainTask {
    Pretrain,
    FullFinetune,
    Lora,
    Qlora,
}

impl TrainTask {
    pub fn is_peft(self) -> bool {
        matches!(self, TrainTask::Lora | TrainTask::Qlora)
    }
}

/// Numeric regime of training.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Precision {
    /// Everything fp32 (tf32 matmuls where available).
    Fp32,
    /// bf16 compute, fp32 master weights and optimizer states (AMP / DeepSpeed bf16 / Megatron).
    AmpBf16,
    /// fp16 compute with loss scaling, fp32 master weights.
    AmpFp16,
    /// Weights, gradients and optimizer states all bf16 (no master copy).
    PureBf16,
    /// FP8 GEMMs (Transformer Engine) over bf16 weights with fp32 master weights.
    Fp8,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Optimizer {
    AdamW,
    /// bitsandbytes 8-bit AdamW (blockwise-quantised states, Dettmers et al. 2022).
    AdamW8bit,
    SgdMomentum,
    /// Adafactor with factored second moments and no momentum (Shazeer & Stern 2018).
    Adafactor,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Recompute {
    None,
    /// Recompute only the attention core (Korthikanti et al. 2022).
    Selective,
    /// Store only each layer's input and recompute the layer in backward.
    Full,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum AttentionImpl {
    /// Materialises the s×s score matrix (HF `attn_implementation="eager"`).
    Eager,
    /// FlashAttention-2 (or SDPA's flash backend): no s² storage. Needs Ampere or later on CUDA.
    Flash,
    /// PyTorch SDPA memory-efficient kernel (xFormers-derived): no s² storage either, slower than
    /// FlashAttention-2; what chips without FlashAttention-2 (Turing, Volta) run.
    MemEfficient,
}

/// Which framework's memory behaviour to model.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Framework {
    /// HF Transformers / PEFT / TRL / torchtune eager PyTorch modules: unfused norms and SwiGLU,
    /// fp32 loss over the full logits.
    HuggingFace,
    /// Megatron-LM / NeMo: fused kernels (Korthikanti et al.'s accounting), fp32 main grads,
    /// vocab-parallel fused cross-entropy.
    Megatron,
}

/// How the frozen base weights of LoRA/QLoRA are stored.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum BaseWeights {
    Bf16,
    Fp32,
    /// QLoRA NF4 with double quantisation: 4 + 0.127 bits per weight (Dettmers et al. 2023, §3).
    Nf4,
    /// LLM.int8(): 1 byte per weight (+ per-row scales, negligible).
    Int8,
}

impl BaseWeights {
    pub fn bits(self) -> f64 {
        match self {
            BaseWeights::Bf16 => 16.0,
            BaseWeights::Fp32 => 32.0,
            BaseWeights::Nf4 => 4.127,
            BaseWeights::Int8 => 8.0,
        }
    }
}

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields, default)]
pub struct LoraConfig {
    pub rank: u64,
    /// Linear names (q_proj, k_proj, v_proj, o_proj, gate_proj, up_proj, down_proj, ...) or
    /// "all-linear".
    pub targets: Vec<String>,
    /// Base weight storage; `None`: bf16 for LoRA, nf4 for QLoRA.
    pub base: Option<BaseWeights>,
}

impl Default for LoraConfig {
    fn default() -> Self {
        LoraConfig {
            rank: 16,
            targets: vec!["all-linear".into()],
            base: None,
        }
    }
}

#[derive(Clone, Copy, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields, default)]
pub struct Parallelism {
    /// Tensor parallel degree (inside a node).
    pub tp: u64,
    /// Pipeline parallel degree.
    pub pp: u64,
    /// Expert parallel degree (MoE).
    pub ep: u64,
    /// Megatron sequence parallelism (shards the norm/dropout activations over TP).
    pub sequence_parallel: bool,
    /// ZeRO stage 0–3 (FSDP FULL_SHARD = 3, SHARD_GRAD_OP = 2).
    pub zero: u8,
    pub offload_optimizer: bool,
    pub offload_params: bool,
}

impl Default for Parallelism {
    fn default() -> Self {
        Parallelism {
            tp: 1,
            pp: 1,
            ep: 1,
            sequence_parallel: false,
            zero: 0,
            offload_optimizer: false,
            offload_params: false,
        }
    }
}

/// A training job.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields, default)]
pub struct TrainingSetup {
    pub task: TrainTask,
    pub precision: Precision,
    pub optimizer: Optimizer,
    pub parallel: Parallelism,
    pub recompute: Recompute,
    pub attention: AttentionImpl,
    pub framework: Framework,
    pub micro_batch: u64,
    pub seq_len: u64,
    /// Micro-batches per optimizer step on each data-parallel rank.
    pub grad_accum: u64,
    pub lora: LoraConfig,
    /// Optimizer step fused into backward (torchtune `optimizer_in_bwd`, DeepSpeed fused step):
    /// each gradient is applied and freed at once, so no full gradient buffer exists.
    pub optimizer_in_backward: bool,
    /// Chunked cross-entropy (torchtune `CEWithChunkedOutputLoss`, 8 chunks): the fp32 upcast
    /// exists for one chunk at a time.
    pub chunked_loss: bool,
    /// torch.autocast over fp32 weights (HF Trainer / Accelerate without DeepSpeed, `bf16=True`):
    /// fp32 weights and fp32 gradients, plus 16-bit weight copies made in forward and saved for
    /// backward; no separate master copy. Off: DeepSpeed/Megatron-style 16-bit weights + fp32
    /// master. Only meaningful with `amp_bf16`/`amp_fp16`.
    pub autocast: bool,
    /// AdamW on torch's foreach path (`torch.optim.AdamW(foreach=True)`, the default when
    /// `fused` is not set): the step allocates one state-sized temporary. Off: fused AdamW.
    pub optimizer_foreach: bool,
    /// Training tokens in total (for time and cost). Alternative: `samples` × `epochs`.
    pub tokens: Option<f64>,
    pub samples: Option<f64>,
    pub epochs: Option<f64>,
    /// Stored bytes per training sample (for the data path); defaults to 4 bytes per token.
    pub bytes_per_sample: Option<f64>,
    /// Size of the dataset on storage, bytes (sets the minimum storage capacity). Default: the
    /// data one epoch reads (samples × bytes per sample).
    pub dataset_bytes: Option<f64>,
}

impl Default for TrainingSetup {
    fn default() -> Self {
        TrainingSetup {
            task: TrainTask::FullFinetune,
            precision: Precision::AmpBf16,
            optimizer: Optimizer::AdamW,
            parallel: Parallelism::default(),
            recompute: Recompute::None,
            attention: AttentionImpl::Flash,
            framework: Framework::HuggingFace,
            micro_batch: 1,
            seq_len: 2048,
            grad_accum: 1,
            lora: LoraConfig::default(),
            optimizer_in_backward: false,
            chunked_loss: false,
            autocast: false,
            optimizer_foreach: false,
            tokens: None,
            samples: None,
            epochs: None,
            bytes_per_sample: None,
            dataset_bytes: None,
        }
    }
}

impl TrainingSetup {
    pub fn validate(&self) -> Result<(), CoreError> {
        let p = &self.parallel;
        for (field, v) in [
            ("micro_batch", self.micro_batch),
            ("seq_len", self.seq_len),
            ("grad_accum", self.grad_accum),
            ("parallel.tp", p.tp),
            ("parallel.pp", p.pp),
            ("parallel.ep", p.ep),
        ] {
            if v == 0 {
                return Err(CoreError::invalid(field, v, "must be at least 1"));
            }
        }
        if self.micro_batch > 65_536 || self.seq_len > 16_777_216 {
            return Err(CoreError::invalid(
                "micro_batch/seq_len",
                format!("{}/{}", self.micro_batch, self.seq_len),
                "absurdly large: micro_batch is per device (typically 1–64), seq_len in tokens (up to 16M)",
            ));
        }
        if p.zero > 3 {
            return Err(CoreError::invalid(
                "parallel.zero",
                p.zero,
                "ZeRO stages are 0, 1, 2 or 3",
            ));
        }
        if p.offload_params && p.zero < 3 {
            return Err(CoreError::invalid(
                "parallel.offload_params",
                true,
                "parameter offload needs ZeRO-3 (or FSDP full shard): set parallel.zero = 3",
            ));
        }
        if self.task.is_peft() && self.lora.rank == 0 {
            return Err(CoreError::invalid(
                "lora.rank",
                0,
                "LoRA rank must be at least 1 (typical: 8–64)",
            ));
        }
        for (field, v) in [
            ("tokens", self.tokens),
            ("samples", self.samples),
            ("epochs", self.epochs),
            ("bytes_per_sample", self.bytes_per_sample),
            ("dataset_bytes", self.dataset_bytes),
        ] {
            if let Some(x) = v {
                if !x.is_finite() || x <= 0.0 {
                    return Err(CoreError::invalid(field, x, "must be a positive number"));
                }
            }
        }
        Ok(())
    }

    /// Base-weight storage for PEFT tasks.
    pub fn base_weights(&self) -> BaseWeights {
        match (self.task, self.lora.base) {
            (_, Some(b)) => b,
            (TrainTask::Qlora, None) => BaseWeights::Nf4,
            _ => BaseWeights::Bf16,
        }
    }
}

/// Weight storage format for inference.
#[derive(Clone, Copy, Debug, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case", tag = "format")]
pub enum WeightFormat {
    Fp32,
    Bf16,
    Fp16,
    /// FP8 e4m3 with per-tensor/per-channel scales.
    Fp8,
    /// int8 weight-only (per-channel scales).
    Int8,
    /// AWQ / GPTQ int4 with one fp16 scale and one 4-bit zero per `group` weights.
    Int4 {
        group: u64,
    },
    /// GGUF-style quantisation given as bits per weight (Q4_K ≈ 4.5, Q8_0 = 8.5).
    Bits {
        bits_per_weight: f64,
    },
}

impl WeightFormat {
    /// Bits per quantised weight, including scale overhead.
    pub fn bits(self) -> f64 {
        match self {
            WeightFormat::Fp32 => 32.0,
            WeightFormat::Bf16 | WeightFormat::Fp16 => 16.0,
            WeightFormat::Fp8 | WeightFormat::Int8 => 8.0,
            // 4-bit weight + (16-bit scale + 4-bit zero) per group (AutoAWQ/GPTQ packing).
            WeightFormat::Int4 { group } => 4.0 + 20.0 / group.max(1) as f64,
            WeightFormat::Bits { bits_per_weight } => bits_per_weight,
        }
    }
    /// Whether embeddings and the LM head stay 16-bit (true for the weight-only int formats).
    pub fn keeps_embeddings_16bit(self) -> bool {
        matches!(
            self,
            WeightFormat::Int8 | WeightFormat::Int4 { .. } | WeightFormat::Bits { .. }
        )
    }
    pub fn name(self) -> String {
        match self {
            WeightFormat::Fp32 => "fp32".into(),
            WeightFormat::Bf16 => "bf16".into(),
            WeightFormat::Fp16 => "fp16".into(),
            WeightFormat::Fp8 => "fp8".into(),
            WeightFormat::Int8 => "int8".into(),
            WeightFormat::Int4 { group } => format!("int4-g{group}"),
            WeightFormat::Bits { bits_per_weight } => format!("{bits_per_weight} bpw"),
        }
    }
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum KvDtype {
    Fp16,
    Bf16,
    Fp8,
    Int8,
}

impl KvDtype {
    pub fn bytes(self) -> f64 {
        match self {
            KvDtype::Fp16 | KvDtype::Bf16 => 2.0,
            KvDtype::Fp8 | KvDtype::Int8 => 1.0,
        }
    }
}

/// An inference/serving job, sized the way vLLM sizes its KV pool.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields, default)]
pub struct InferenceSetup {
    pub weights: WeightFormat,
    pub kv_dtype: KvDtype,
    pub tp: u64,
    /// vLLM `gpu_memory_utilization`.
    pub gpu_memory_utilization: f64,
    /// vLLM `max_model_len`; defaults to the model's context.
    pub max_model_len: Option<u64>,
    /// Tokens in vLLM's profiling batch (`max_num_batched_tokens`); defaults to `max_model_len`
    /// (V0 without chunked prefill).
    pub max_num_batched_tokens: Option<u64>,
    /// Paged-KV block size in tokens (vLLM 16, TRT-LLM 32).
    pub block_size: u64,
    /// Concurrent sequences (decode batch).
    pub batch: u64,
    pub input_tokens: u64,
    pub output_tokens: u64,
}

impl Default for InferenceSetup {
    fn default() -> Self {
        InferenceSetup {
            weights: WeightFormat::Bf16,
            kv_dtype: KvDtype::Bf16,
            tp: 1,
            gpu_memory_utilization: 0.9,
            max_model_len: None,
            max_num_batched_tokens: None,
            block_size: 16,
            batch: 1,
            input_tokens: 1000,
            output_tokens: 300,
        }
    }
}

impl InferenceSetup {
    pub fn validate(&self) -> Result<(), CoreError> {
        for (field, v) in [
            ("tp", self.tp),
            ("block_size", self.block_size),
            ("batch", self.batch),
            ("output_tokens", self.output_tokens),
        ] {
            if v == 0 {
                return Err(CoreError::invalid(field, v, "must be at least 1"));
            }
        }
        if !(self.gpu_memory_utilization > 0.0 && self.gpu_memory_utilization <= 1.0) {
            return Err(CoreError::invalid(
                "gpu_memory_utilization",
                self.gpu_memory_utilization,
                "a fraction in (0, 1]; vLLM's default is 0.9",
            ));
        }
        if let WeightFormat::Bits { bits_per_weight } = self.weights {
            if !(1.0..=32.0).contains(&bits_per_weight) {
                return Err(CoreError::invalid(
                    "weights.bits_per_weight",
                    bits_per_weight,
                    "between 1 and 32",
                ));
            }
        }
        Ok(())
    }
}
