//! The architecture description every estimator reads.
//!
//! A [`ModelSpec`] is either a transformer described by its shapes (from a preset or a
//! HuggingFace `config.json`) or an opaque model (ResNet, SDXL UNet) described by published
//! totals at a stated reference input.

use serde::{Deserialize, Serialize};

/// Which stacks the transformer has.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Structure {
    /// GPT-style causal decoder (Llama, Qwen, DeepSeek, ...).
    DecoderOnly,
    /// Bidirectional encoder (BERT, ViT).
    EncoderOnly,
    /// Encoder plus decoder with cross-attention (T5, Whisper). `layers` counts the encoder.
    EncoderDecoder { decoder_layers: u64 },
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum MlpKind {
    /// SwiGLU / GeGLU: gate, up and down projections (3 matrices).
    Gated,
    /// Classic two-matrix MLP with GeLU/ReLU.
    Plain,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum NormKind {
    /// RMSNorm: one weight vector.
    RmsNorm,
    /// LayerNorm: weight and bias.
    LayerNorm,
}

impl NormKind {
    pub fn params(self, width: u64) -> u64 {
        match self {
            NormKind::RmsNorm => width,
            NormKind::LayerNorm => 2 * width,
        }
    }
}

/// Multi-head latent attention (DeepSeek-V2/V3), arXiv 2405.04434 §2.1.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct MlaSpec {
    /// Low-rank query compression; `None` means a plain q projection (DeepSeek-V2-Lite).
    pub q_lora_rank: Option<u64>,
    pub kv_lora_rank: u64,
    pub qk_nope_head_dim: u64,
    pub qk_rope_head_dim: u64,
    pub v_head_dim: u64,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case", tag = "kind")]
pub enum AttentionKind {
    /// MHA, GQA or MQA, told apart by `kv_heads` against `heads`.
    Standard,
    Mla(MlaSpec),
}

/// Mixture-of-experts feed-forward.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct MoeSpec {
    /// Routed experts per MoE layer.
    pub experts: u64,
    /// Routed experts each token visits.
    pub experts_per_token: u64,
    /// Always-on shared experts (DeepSeek), each `expert_ffn` wide.
    pub shared_experts: u64,
    /// FFN width of one expert.
    pub expert_ffn: u64,
    /// Leading layers that stay dense with the model's `ffn` width (DeepSeek `first_k_dense_replace`).
    pub dense_layers: u64,
    /// Whether the router has a per-expert bias (DeepSeek-V3 `e_score_correction_bias`).
    pub router_bias: bool,
    /// The shared experts' summed FFN width where the config states it apart from
    /// `expert_ffn` (Qwen-MoE `shared_expert_intermediate_size`, e.g. 5632 beside 1408 experts);
    /// `shared_experts` then counts it in whole experts, rounded up. `None`: the shared experts
    /// are `shared_experts × expert_ffn` wide (DeepSeek `n_shared_experts`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub shared_ffn: Option<u64>,
}

impl MoeSpec {
    /// The input width of the shared experts' (row-parallel) down_proj: the stated width, else
    /// `shared_experts × expert_ffn`.
    pub fn shared_width(&self) -> u64 {
        self.shared_ffn
            .unwrap_or_else(|| self.shared_experts.saturating_mul(self.expert_ffn))
    }
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case", tag = "kind")]
pub enum Positional {
    /// Rotary embeddings: no parameters.
    Rotary,
    /// ALiBi: no parameters.
    Alibi,
    /// A learned table of `positions` rows (GPT-2, BERT, Whisper decoder).
    Learned { positions: u64 },
    /// T5 relative-attention bias: buckets × heads in the first layer of each stack.
    RelativeBias { buckets: u64 },
}

/// A named block of parameters not covered by the regular layer shapes (BERT pooler, ViT patch
/// embedding, Whisper conv stem).
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct ExtraParams {
    pub name: String,
    pub params: u64,
}

/// A layer whose attention and MLP branch from the same input (the parallel-residual block).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum ParallelBlock {
    /// Attention, then the MLP on its residual (Llama, GPT-2, ...).
    #[default]
    None,
    /// Falcon: HF `new_decoder_architecture` or `parallel_attn`.
    Falcon,
    /// GPT-NeoX / Pythia: HF `use_parallel_residual` (the GPT-NeoX library's `gpt_j_residual`).
    NeoX,
}

/// Shapes of a transformer, in HuggingFace's vocabulary.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct TransformerSpec {
    /// HF `model_type` (llama, qwen2, deepseek_v3, ...).
    pub model_type: String,
    pub structure: Structure,
    /// d_model.
    pub hidden: u64,
    /// Encoder layers for encoder-decoder models, otherwise all layers.
    pub layers: u64,
    pub heads: u64,
    pub kv_heads: u64,
    pub head_dim: u64,
    /// Dense FFN width (`intermediate_size`).
    pub ffn: u64,
    /// 0 for models without a token vocabulary (ViT).
    pub vocab: u64,
    pub mlp: MlpKind,
    pub norm: NormKind,
    pub attention: AttentionKind,
    pub positional: Positional,
    pub moe: Option<MoeSpec>,
    pub qkv_bias: bool,
    /// Bias on the attention output projection.
    pub out_bias: bool,
    /// Biases on the MLP matrices.
    pub mlp_bias: bool,
    /// Per-head RMSNorm on q and k (Qwen3).
    pub qk_norm: bool,
    /// An RMSNorm on each branch output before the residual add as well (GLM-4's
    /// `post_self_attn_layernorm` and `post_mlp_layernorm`): four norms per layer.
    #[serde(default)]
    pub post_norms: bool,
    /// llm-foundry's `norm_type: low_precision_layernorm` (MPT's default, `LPLayerNorm`,
    /// llmfoundry/models/layers/norm.py @b2a43a147 l.39-53): the input is cast to the autocast
    /// dtype and `F.layer_norm` runs on that copy, which is all it saves (with its per-token
    /// mean and rstd): 2h, as torch's LayerNorm saves its input, so memory charges both alike.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub low_precision_norm: bool,
    /// Whether attention and MLP read the same input and their outputs are summed into the
    /// residual, and in which family's code (the TP all-reduces per layer differ by family and
    /// engine: `infer::tp_allreduces_per_layer`, `train::step` `tp_phase`).
    #[serde(default)]
    pub parallel_block: ParallelBlock,
    pub tie_embeddings: bool,
    /// Trained context length (`max_position_embeddings` or equivalent).
    pub max_context: u64,
    /// Sliding-window attention span, if any (Mistral v0.1: 4096).
    pub sliding_window: Option<u64>,
    /// How many of the decoder's layers use that window; the others attend over every key
    /// (HF `layer_types`, `sliding_window_pattern`, Qwen's `max_window_layers`: Gemma 3 27B
    /// 52 of 62, GPT-OSS half). `None`: every layer (Mistral v0.1).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub sliding_layers: Option<u64>,
    /// Whether the model's training code applies dropout (Megatron GPT: yes; modern LLM configs: 0.0).
    pub dropout: bool,
    pub extras: Vec<ExtraParams>,
    /// MLP activation as HF names it (`silu`, `gelu`, `gelu_new`, `relu`, ...); it decides how
    /// many intermediates eager PyTorch keeps.
    pub activation: String,
    /// The vision encoder of a multimodal config (nested `vision_config`); its parameters are
    /// also in `extras` ("vision encoder + projector").
    #[serde(default)]
    pub vision: Option<Box<VisionSpec>>,
    /// Positions the encoder stack of an encoder-decoder runs per sample whatever the decoder's
    /// sequence length: Whisper's `max_source_positions` (30 s of audio = 3000 mel frames, 1500
    /// after the stride-2 conv). `None`: the encoder reads the sequence length (T5, BART).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub encoder_positions: Option<u64>,
    /// The config's `rope_scaling` (absent: RoPE as trained, or no RoPE). Boxed: rare, and the
    /// spec's size bounds `Architecture`'s.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub rope_scaling: Option<Box<RopeScaling>>,
}

/// HF `rope_scaling`: `type`/`rope_type` (linear, dynamic, yarn, llama3, longrope, …), `factor`,
/// `original_max_position_embeddings`.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct RopeScaling {
    pub rope_type: String,
    /// 1 when the config gives none (HF's `default` and `mrope` types).
    pub factor: f64,
    pub original_max_position_embeddings: Option<u64>,
}

impl TransformerSpec {
    /// The positions the model's RoPE is configured for: `max_context`, or more where
    /// `rope_scaling` extends it, by vLLM's rule for the served length
    /// (vllm/config.py `_get_and_verify_max_len`, v0.6–v0.8): every type but `llama3`,
    /// `longrope`/`su` multiplies the length by `factor`, `yarn` starting from
    /// `original_max_position_embeddings`; `llama3` and `longrope` configs already state the
    /// extended length in `max_position_embeddings` (Llama 3.1: 131072 with factor 8 over 8192).
    pub fn rope_context(&self) -> u64 {
        let Some(r) = &self.rope_scaling else {
            return self.max_context;
        };
        if matches!(r.rope_type.as_str(), "llama3" | "longrope" | "su") {
            return self.max_context;
        }
        let from = match r.rope_type.as_str() {
            "yarn" => r
                .original_max_position_embeddings
                .unwrap_or(self.max_context),
            _ => self.max_context,
        };
        let scaled = (from as f64 * r.factor).floor();
        if scaled.is_finite() && scaled > self.max_context as f64 {
            scaled.min(u64::MAX as f64) as u64
        } else {
            self.max_context
        }
    }
}

/// How a model turns one image into tokens for the language model (each family's documented rule;
/// see model/hf.rs `vision_spec`).
#[derive(Clone, Copy, Debug, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case", tag = "rule")]
pub enum ImageTokenRule {
    /// Resized to a fixed square: `tokens` per image (LLaVA-1.5: (336/14)² = 576).
    Fixed { tokens: u64 },
    /// LLaVA-NeXT "anyres": a base view plus up to `max_tiles` tiles of `tile` pixels, each of
    /// `per_view` tokens.
    Anyres {
        per_view: u64,
        tile: u64,
        max_tiles: u64,
    },
    /// Qwen2-VL-style native resolution: the image is rounded to multiples of `unit` pixels
    /// (patch × spatial merge) within `max_pixels`; one token per unit².
    Grid { unit: u64, max_pixels: u64 },
    /// Pixtral: scaled to fit `max_side`, one token per `patch`² plus one break token per row.
    RowBreak { patch: u64, max_side: u64 },
    /// Llama-3.2-Vision (mllama): up to `max_tiles` tiles of `tile` pixels, `per_tile` tokens each,
    /// attended by the cross-attention layers.
    Tiles {
        tile: u64,
        per_tile: u64,
        max_tiles: u64,
    },
}

/// A vision encoder in front of the language model.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct VisionSpec {
    /// The multimodal `model_type` (llava, llava_next, qwen2_vl, qwen2_5_vl, mllama, …).
    pub model_type: String,
    pub hidden: u64,
    pub layers: u64,
    pub ffn: u64,
    /// Gated (SwiGLU) MLP in the encoder (Qwen2.5-VL, Pixtral) rather than fc1/fc2.
    pub gated: bool,
    /// Encoder patches per LLM token (spatial merge², Qwen-VL: 4; else 1).
    pub patches_per_token: u64,
    /// Encoder + projector parameters.
    pub params: u64,
    pub rule: ImageTokenRule,
    /// Share of the decoder layers that hold the image tokens' KV (1 when images are input
    /// tokens; mllama: cross-attention layers ÷ layers).
    pub kv_layer_share: f64,
}

impl VisionSpec {
    /// LLM tokens of one `w × h` image under the model's rule.
    pub fn image_tokens(&self, w: u64, h: u64) -> u64 {
        let (w, h) = (w.max(1), h.max(1));
        match self.rule {
            ImageTokenRule::Fixed { tokens } => tokens,
            ImageTokenRule::Anyres {
                per_view,
                tile,
                max_tiles,
            } => {
                let tiles = (w.div_ceil(tile.max(1)) * h.div_ceil(tile.max(1))).min(max_tiles);
                per_view * (1 + tiles)
            }
            ImageTokenRule::Grid { unit, max_pixels } => {
                let u = unit.max(1) as f64;
                let (mut fw, mut fh) = (w as f64, h as f64);
                let px = fw * fh;
                if px > max_pixels as f64 {
                    let k = (max_pixels as f64 / px).sqrt();
                    fw *= k;
                    fh *= k;
                }
                let gw = (fw / u).round().max(1.0);
                let gh = (fh / u).round().max(1.0);
                (gw * gh) as u64
            }
            ImageTokenRule::RowBreak { patch, max_side } => {
                let k = (max_side as f64 / w.max(h) as f64).min(1.0);
                let p = patch.max(1) as f64;
                let cols = (w as f64 * k / p).ceil() as u64;
                let rows = (h as f64 * k / p).ceil() as u64;
                rows * cols + rows
            }
            ImageTokenRule::Tiles {
                tile,
                per_tile,
                max_tiles,
            } => {
                let tiles =
                    (w.div_ceil(tile.max(1)) * h.div_ceil(tile.max(1))).clamp(1, max_tiles.max(1));
                tiles * per_tile
            }
        }
    }
}

impl TransformerSpec {
    /// Query width a·d_h (not always `hidden`: Qwen3-32B has 64×128 = 8192 vs hidden 5120).
    pub fn q_width(&self) -> u64 {
        match self.attention {
            AttentionKind::Standard => self.heads * self.head_dim,
            AttentionKind::Mla(m) => self.heads * (m.qk_nope_head_dim + m.qk_rope_head_dim),
        }
    }
    /// Layers that attend only over the sliding window: none without a window, `sliding_layers`
    /// where the config says which (at most every layer), else every layer.
    pub fn windowed_layers(&self) -> u64 {
        match self.sliding_window {
            None => 0,
            Some(_) => self.sliding_layers.unwrap_or(self.layers).min(self.layers),
        }
    }
    /// Keys a query attends over, averaged over the layers, when `keys` are in reach: the
    /// windowed layers see `min(window, keys)`, the others all `keys`. Attention work is linear
    /// in the keys, so this mean gives the stack's work exactly.
    pub fn mean_attended_keys(&self, keys: f64) -> f64 {
        let (Some(w), layers) = (self.sliding_window, self.layers.max(1) as f64) else {
            return keys;
        };
        let windowed = self.windowed_layers() as f64;
        (windowed * (w as f64).min(keys) + (layers - windowed) * keys) / layers
    }
    /// Query-key pairs a causal pass over `n` tokens computes, averaged over the layers: n²/2
    /// on a full layer; on a windowed one each query sees at most `window` keys, n·w − w²/2
    /// once n exceeds w.
    pub fn mean_causal_pairs(&self, n: f64) -> f64 {
        let full = n * n * crate::compute::CAUSAL_WORK_FRACTION;
        let (Some(w), layers) = (self.sliding_window, self.layers.max(1) as f64) else {
            return full;
        };
        let w = w as f64;
        let windowed_pairs = if n > w { n * w - w * w / 2.0 } else { full };
        let windowed = self.windowed_layers() as f64;
        (windowed * windowed_pairs + (layers - windowed) * full) / layers
    }
    /// K (or V) width a_kv·d_h for standard attention.
    pub fn kv_width(&self) -> u64 {
        self.kv_heads * self.head_dim
    }
    pub fn is_moe(&self) -> bool {
        self.moe.is_some()
    }
    /// Layers that carry a KV cache in decoding: the decoder stack.
    pub fn decoder_layers(&self) -> u64 {
        match self.structure {
            Structure::EncoderDecoder { decoder_layers } => decoder_layers,
            _ => self.layers,
        }
    }
    /// Positions per sample the encoder stack runs at a decoder sequence length `seq_len`.
    pub fn encoder_len(&self, seq_len: u64) -> u64 {
        self.encoder_positions.unwrap_or(seq_len)
    }
    /// Whether linear `linear` of layer group `group` reads the encoder's positions: an
    /// encoder-decoder's encoder layers and its decoder's cross-attention K/V projections (run
    /// once per request when serving: HF and vLLM cache the cross-attention K/V).
    pub fn reads_encoder(&self, group: &str, linear: &str) -> bool {
        matches!(self.structure, Structure::EncoderDecoder { .. })
            && (group == "encoder" || matches!(linear, "cross_k_proj" | "cross_v_proj"))
    }
    /// Positions per sample that a linear of layer group `group` runs over: the encoder's
    /// ([`Self::reads_encoder`]) or the decoder's `seq_len`.
    pub fn linear_len(&self, group: &str, linear: &str, seq_len: u64) -> u64 {
        if self.reads_encoder(group, linear) {
            self.encoder_len(seq_len)
        } else {
            seq_len
        }
    }
    /// Cross-attention K/V positions a serving engine caches per request beside the decoder's
    /// tokens: a fixed-length encoder's positions (Whisper 1500; each decoder layer caches K and
    /// V of the same width as its self-attention, so they cost what as many tokens do), else 0.
    pub fn cross_kv_positions(&self) -> u64 {
        match self.structure {
            Structure::EncoderDecoder { .. } => self.encoder_positions.unwrap_or(0),
            _ => 0,
        }
    }
    /// Positions per sample of an average layer, relative to `seq_len`: 1, or for an
    /// encoder-decoder with a fixed encoder (Whisper at 448: (32·1500 + 32·448) / (64·448) ≈ 2.17)
    /// the layers' mean over both stacks.
    pub fn mean_layer_len(&self, seq_len: u64) -> f64 {
        let Structure::EncoderDecoder { decoder_layers } = self.structure else {
            return 1.0;
        };
        let s = seq_len.max(1) as f64;
        let enc = self.encoder_len(seq_len) as f64;
        let all = (self.layers + decoder_layers).max(1) as f64;
        (self.layers as f64 * enc + decoder_layers as f64 * s) / (all * s)
    }
    /// The longest stack's positions per sample relative to `seq_len` (one layer's working set).
    pub fn longest_layer_len(&self, seq_len: u64) -> f64 {
        match self.structure {
            Structure::EncoderDecoder { .. } => {
                (self.encoder_len(seq_len) as f64 / seq_len.max(1) as f64).max(1.0)
            }
            _ => 1.0,
        }
    }
    pub fn total_layers(&self) -> u64 {
        match self.structure {
            Structure::EncoderDecoder { decoder_layers } => self.layers + decoder_layers,
            _ => self.layers,
        }
    }
}

/// A model known only by published totals at a reference input (CNNs, diffusion UNets).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct OpaqueSpec {
    pub model_type: String,
    pub params: u64,
    /// Forward FLOPs for one sample at `reference_input` (multiply and add counted separately).
    pub forward_flops_per_sample: f64,
    /// Activation bytes kept for backward per sample at the reference input, 16-bit activations.
    /// `None` when no source or derivation exists.
    pub activation_bytes_per_sample: Option<f64>,
    /// How the activation figure was obtained (a source, or the derivation method).
    pub activation_basis: Option<String>,
    /// E.g. "224×224 RGB image".
    pub reference_input: String,
    /// Typical stored size of one training sample, for the data path (e.g. an ImageNet JPEG).
    pub sample_bytes: Option<f64>,
    /// A diffusion model's sampling loop: one served request (an image) runs the network many
    /// times. `None` for a model answered by one forward pass (a CNN classifier).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub denoising: Option<Denoising>,
}

/// How many forward passes of a denoising network one generated image costs, by its pipeline's
/// defaults (data/models.toml `[model.opaque.denoising]`, with the source).
#[derive(Clone, Copy, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Denoising {
    /// The pipeline's default `num_inference_steps` (the user's `--steps` overrides it).
    pub default_steps: u64,
    /// Network samples per step: 2 with classifier-free guidance (the conditional and the
    /// unconditional latents batched together), 1 without.
    pub samples_per_step: u64,
}

/// One per model (never in a large collection or a hot loop), so the transformer variant's size
/// (328 bytes against 120 since `rope_scaling`, past clippy's 200-byte gap) costs nothing worth
/// boxing it in every match.
#[allow(clippy::large_enum_variant)]
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case", tag = "kind")]
pub enum Architecture {
    Transformer(TransformerSpec),
    Opaque(OpaqueSpec),
}

/// A model with its name and where its description came from.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct ModelSpec {
    pub name: String,
    pub architecture: Architecture,
    /// Published parameter count, if any, to compare the computed one with.
    pub params_published: Option<u64>,
    pub sources: Vec<String>,
    pub notes: Option<String>,
    /// Non-fatal remarks from import (unknown `model_type`, assumed defaults).
    pub warnings: Vec<String>,
    /// The format the checkpoint's weights are stored in when it is not 16-bit, from the HF
    /// config's `quantization_config` (model/hf.rs `checkpoint_format`); `None`: 16-bit, or a
    /// preset (DeepSeek-V3/R1's FP8 is known by its `model_type`, `infer::native_format`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub checkpoint: Option<crate::workload::WeightFormat>,
    /// The `quantization_config.quant_method` of a checkpoint whose format gpuplan does not read
    /// (hqq, eetq, quanto, aqlm, ...; model/quant.rs [`crate::model::quant::Stored::Unread`]):
    /// training loads it at the job's precision with a note, serving needs explicit `weights`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub checkpoint_unread: Option<String>,
    /// `llm_int8_skip_modules` entries of a bitsandbytes checkpoint that name decoder-layer
    /// linears (unsloth's dynamic quants keep single layers 16-bit): not modelled, sized at the
    /// checkpoint's bits, and named in a note ([`crate::model::quant::skipped_linears_note`]).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub checkpoint_skipped: Vec<String>,
    /// The checkpoint is AWQ (`quantization_config.quant_method = "awq"`), not GPTQ: the same
    /// int4 bytes ([`Self::checkpoint`]), but vLLM and SGLang load AWQ only from compute
    /// capability 7.5 ([`crate::infer::AWQ_MIN_CC`]) where GPTQ loads from 6.0 (audit r19 #1).
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub checkpoint_awq: bool,
}

impl ModelSpec {
    pub fn transformer(&self) -> Option<&TransformerSpec> {
        match &self.architecture {
            Architecture::Transformer(t) => Some(t),
            Architecture::Opaque(_) => None,
        }
    }
    pub fn model_type(&self) -> &str {
        match &self.architecture {
            Architecture::Transformer(t) => &t.model_type,
            Architecture::Opaque(o) => &o.model_type,
        }
    }
}
