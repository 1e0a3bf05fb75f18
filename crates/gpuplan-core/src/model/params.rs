//! Parameter counts computed from the architecture.
//!
//! The counting rules follow the HuggingFace modelling code of each family (weights, biases and
//! norms as the checkpoints store them); the tests reproduce the published safetensors counts of
//! `../shared/reference/model-configs.json` to the parameter.

use super::spec::{
    Architecture, AttentionKind, MlpKind, ModelSpec, Positional, Structure, TransformerSpec,
};
use serde::Serialize;

/// One weight matrix of a layer: the unit LoRA adapts and the unit Adafactor factors.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct Linear {
    /// HF-style short name: q_proj, k_proj, v_proj, o_proj, gate_proj, up_proj, down_proj, ...
    pub name: &'static str,
    pub d_in: u64,
    pub d_out: u64,
    /// How many copies per layer (routed experts of a MoE layer; 1 otherwise).
    pub copies: u64,
    /// Copies a token passes through (experts per token; `copies` for dense).
    pub active_copies: u64,
}

impl Linear {
    fn dense(name: &'static str, d_in: u64, d_out: u64) -> Linear {
        Linear {
            name,
            d_in,
            d_out,
            copies: 1,
            active_copies: 1,
        }
    }
    pub fn params(&self) -> u64 {
        self.d_in * self.d_out * self.copies
    }
    pub fn active_params(&self) -> u64 {
        self.d_in * self.d_out * self.active_copies
    }
}

/// A group of identical layers.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct LayerGroup {
    /// encoder, decoder, dense, moe.
    pub name: &'static str,
    pub count: u64,
    pub linears: Vec<Linear>,
    /// Biases, norms, routers, q/k norms: everything in the layer that is not a linear weight.
    pub small_params: u64,
}

impl LayerGroup {
    pub fn params_per_layer(&self) -> u64 {
        self.linears.iter().map(Linear::params).sum::<u64>() + self.small_params
    }
    pub fn active_params_per_layer(&self) -> u64 {
        self.linears.iter().map(Linear::active_params).sum::<u64>() + self.small_params
    }
    pub fn params(&self) -> u64 {
        self.count * self.params_per_layer()
    }
    pub fn active_params(&self) -> u64 {
        self.count * self.active_params_per_layer()
    }
    /// Parameters of routed experts in the whole group (0 for dense groups).
    pub fn expert_params(&self) -> u64 {
        self.count
            * self
                .linears
                .iter()
                .filter(|l| l.copies > 1)
                .map(Linear::params)
                .sum::<u64>()
    }
}

/// Where a model's parameters are.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct ParamBreakdown {
    /// Token embedding table (V·h).
    pub embedding: u64,
    /// Positional tables and other stem parameters (learned positions, BERT token types, ViT patch).
    pub stem: u64,
    pub groups: Vec<LayerGroup>,
    /// Final norm(s) of each stack.
    pub final_norms: u64,
    /// Output projection if untied (0 when tied to the embedding).
    pub lm_head: u64,
    pub total: u64,
    /// Parameters one token passes through (differs from `total` only for MoE).
    pub active: u64,
}

impl ParamBreakdown {
    pub fn layer_params(&self) -> u64 {
        self.groups.iter().map(LayerGroup::params).sum()
    }
    pub fn expert_params(&self) -> u64 {
        self.groups.iter().map(LayerGroup::expert_params).sum()
    }
    /// Weights of the layer linears (what quantisation applies to and LoRA adapts).
    pub fn linear_params(&self) -> u64 {
        self.groups
            .iter()
            .map(|g| g.count * g.linears.iter().map(Linear::params).sum::<u64>())
            .sum()
    }
    /// Linear weights one token multiplies through (routed experts counted k times, not E).
    pub fn active_linear_params(&self) -> u64 {
        self.groups
            .iter()
            .map(|g| g.count * g.linears.iter().map(Linear::active_params).sum::<u64>())
            .sum()
    }
    /// The largest single layer, which ZeRO-3/FSDP must gather in full.
    pub fn largest_layer(&self) -> u64 {
        self.groups
            .iter()
            .map(LayerGroup::params_per_layer)
            .chain([self.embedding, self.lm_head])
            .max()
            .unwrap_or(0)
    }
    /// Parameters outside the transformer layers that the first/last pipeline stages hold.
    pub fn outside_layers(&self) -> u64 {
        self.embedding + self.stem + self.final_norms + self.lm_head
    }
    /// Dense-equivalent count without embeddings (the N of 6·N·D when embeddings are excluded).
    pub fn non_embedding(&self) -> u64 {
        self.total - self.embedding - self.stem
    }
}

fn attention_linears(t: &TransformerSpec, out: &mut Vec<Linear>, small: &mut u64, cross: bool) {
    let h = t.hidden;
    match t.attention {
        AttentionKind::Standard => {
            let q = t.q_width();
            let kv = t.kv_width();
            let (qn, kn, vn, on) = if cross {
                (
                    "cross_q_proj",
                    "cross_k_proj",
                    "cross_v_proj",
                    "cross_o_proj",
                )
            } else {
                ("q_proj", "k_proj", "v_proj", "o_proj")
            };
            out.push(Linear::dense(qn, h, q));
            out.push(Linear::dense(kn, h, kv));
            out.push(Linear::dense(vn, h, kv));
            out.push(Linear::dense(on, q, h));
            if t.qkv_bias {
                *small += q + 2 * kv;
                // Whisper's k_proj has no bias (modeling_whisper.py: `k_proj = nn.Linear(..., bias=False)`).
                if t.model_type == "whisper" {
                    *small -= kv;
                }
            }
            if t.out_bias {
                *small += h;
            }
            if t.qk_norm {
                *small += 2 * t.head_dim;
            }
        }
        AttentionKind::Mla(m) => {
            let qk_head = m.qk_nope_head_dim + m.qk_rope_head_dim;
            match m.q_lora_rank {
                Some(r) => {
                    out.push(Linear::dense("q_a_proj", h, r));
                    out.push(Linear::dense("q_b_proj", r, t.heads * qk_head));
                    *small += r; // q_a_layernorm
                }
                None => out.push(Linear::dense("q_proj", h, t.heads * qk_head)),
            }
            out.push(Linear::dense(
                "kv_a_proj_with_mqa",
                h,
                m.kv_lora_rank + m.qk_rope_head_dim,
            ));
            *small += m.kv_lora_rank; // kv_a_layernorm
            out.push(Linear::dense(
                "kv_b_proj",
                m.kv_lora_rank,
                t.heads * (m.qk_nope_head_dim + m.v_head_dim),
            ));
            out.push(Linear::dense("o_proj", t.heads * m.v_head_dim, h));
        }
    }
}

fn mlp_linears(t: &TransformerSpec, ffn: u64, copies: u64, active: u64, out: &mut Vec<Linear>) {
    let h = t.hidden;
    let mk = |name, d_in, d_out| Linear {
        name,
        d_in,
        d_out,
        copies,
        active_copies: active,
    };
    match t.mlp {
        MlpKind::Gated => {
            out.push(mk("gate_proj", h, ffn));
            out.push(mk("up_proj", h, ffn));
            out.push(mk("down_proj", ffn, h));
        }
        MlpKind::Plain => {
            out.push(mk("fc1", h, ffn));
            out.push(mk("fc2", ffn, h));
        }
    }
}

fn dense_mlp_bias(t: &TransformerSpec, ffn: u64) -> u64 {
    if !t.mlp_bias {
        return 0;
    }
    match t.mlp {
        MlpKind::Gated => 2 * ffn + t.hidden,
        MlpKind::Plain => ffn + t.hidden,
    }
}

fn layer_group(
    t: &TransformerSpec,
    name: &'static str,
    count: u64,
    moe: bool,
    cross: bool,
) -> LayerGroup {
    let mut linears = Vec::new();
    let mut small = 0;
    attention_linears(t, &mut linears, &mut small, false);
    let norms = if cross { 3 } else { 2 } + if t.post_norms { 2 } else { 0 };
    small += norms * t.norm.params(t.hidden);
    if cross {
        attention_linears(t, &mut linears, &mut small, true);
    }
    match (moe, t.moe) {
        (true, Some(m)) => {
            mlp_linears(
                t,
                m.expert_ffn,
                m.experts,
                m.experts_per_token,
                &mut linears,
            );
            if m.shared_experts > 0 {
                mlp_linears(t, m.expert_ffn * m.shared_experts, 1, 1, &mut linears);
            }
            small += t.hidden * m.experts; // router
            if m.router_bias {
                small += m.experts;
            }
        }
        _ => {
            mlp_linears(t, t.ffn, 1, 1, &mut linears);
            small += dense_mlp_bias(t, t.ffn);
        }
    }
    LayerGroup {
        name,
        count,
        linears,
        small_params: small,
    }
}

/// Count a transformer's parameters by component.
pub fn transformer_params(t: &TransformerSpec) -> ParamBreakdown {
    let h = t.hidden;
    let embedding = t.vocab * h;
    let mut stem: u64 = t.extras.iter().map(|e| e.params).sum();
    let mut groups = Vec::new();
    let mut final_norms = t.norm.params(h);
    match t.structure {
        Structure::DecoderOnly => match t.moe {
            Some(m) => {
                if m.dense_layers > 0 {
                    groups.push(layer_group(t, "dense", m.dense_layers, false, false));
                }
                groups.push(layer_group(
                    t,
                    "moe",
                    t.layers - m.dense_layers,
                    true,
                    false,
                ));
            }
            None => groups.push(layer_group(t, "decoder", t.layers, false, false)),
        },
        Structure::EncoderOnly => groups.push(layer_group(t, "encoder", t.layers, false, false)),
        Structure::EncoderDecoder { decoder_layers } => {
            groups.push(layer_group(t, "encoder", t.layers, false, false));
            groups.push(layer_group(t, "decoder", decoder_layers, false, true));
            final_norms *= 2;
        }
    }
    match t.positional {
        Positional::Learned { positions } => stem += positions * h,
        Positional::RelativeBias { buckets } => {
            let stacks = if matches!(t.structure, Structure::EncoderDecoder { .. }) {
                2
            } else {
                1
            };
            stem += stacks * buckets * t.heads;
        }
        Positional::Rotary | Positional::Alibi => {}
    }
    let lm_head = if t.tie_embeddings || t.vocab == 0 || t.structure == Structure::EncoderOnly {
        0
    } else {
        t.vocab * h
    };
    let layers: u64 = groups.iter().map(LayerGroup::params).sum();
    let active_layers: u64 = groups.iter().map(LayerGroup::active_params).sum();
    let outside = embedding + stem + final_norms + lm_head;
    ParamBreakdown {
        embedding,
        stem,
        groups,
        final_norms,
        lm_head,
        total: outside + layers,
        active: outside + active_layers,
    }
}

thread_local! {
    /// The last transformer broken down on this thread and its breakdown: the planner asks for
    /// the same model's breakdown for every configuration it sizes and times.
    static LAST_BREAKDOWN: std::cell::RefCell<Option<(TransformerSpec, std::sync::Arc<ParamBreakdown>)>> =
        const { std::cell::RefCell::new(None) };
}

/// [`param_breakdown`], shared: the same value, computed once per model and thread (the
/// estimators' hot paths call this for every configuration the planner evaluates).
pub fn param_breakdown_shared(m: &ModelSpec) -> std::sync::Arc<ParamBreakdown> {
    let Architecture::Transformer(t) = &m.architecture else {
        return std::sync::Arc::new(param_breakdown(m));
    };
    LAST_BREAKDOWN.with(|cell| {
        if let Some((spec, b)) = cell.borrow().as_ref() {
            if spec == t {
                return b.clone();
            }
        }
        let b = std::sync::Arc::new(transformer_params(t));
        *cell.borrow_mut() = Some((t.clone(), b.clone()));
        b
    })
}

/// Parameter breakdown of any model; opaque models are a single block.
pub fn param_breakdown(m: &ModelSpec) -> ParamBreakdown {
    match &m.architecture {
        Architecture::Transformer(t) => transformer_params(t),
        Architecture::Opaque(o) => ParamBreakdown {
            embedding: 0,
            stem: 0,
            groups: vec![LayerGroup {
                name: "network",
                count: 1,
                linears: vec![],
                small_params: o.params,
            }],
            final_norms: 0,
            lm_head: 0,
            total: o.params,
            active: o.params,
        },
    }
}
