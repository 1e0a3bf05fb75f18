//! Saved activations of LitGPT's own modules (`Framework::LitGpt`), bytes per token.
//!
//! Source: litgpt @00af8b0d (the config-hub commit of the published LitGPT peaks)
//! `litgpt/model.py` (`CausalSelfAttention`, `RMSNorm`, `LLaMAMLP`) and `litgpt/lora.py`
//! (`LoRAQKVLinear`), traced op by op on CPU with saved-tensor hooks and the profiler's memory
//! events (tools/measure_litgpt.py → validation/litgpt-measured.json,
//! tests/measured_litgpt.rs). What differs from the Hugging Face profile:
//! - one fused q/k/v linear; q/k/v are views of its output. Under GQA, K and V are `expand`ed to
//!   the query head count and reshaped (copies), so SDPA saves K and V at full head count; with
//!   MHA the reshape is a view, so the V that SDPA saves keeps the whole q/k/v output alive;
//! - q and k after rotary are `torch.cat` copies (c·q and c·k);
//! - RMSNorm upcasts to fp32 and saves that input (4h) and its fp32 rsqrt (4); a trainable weight
//!   also saves the fp32 normalised copy (`x_normed * weight.float()`: +4h);
//! - LoRA on q/k/v is one module: one dropout over the layer input (its mask and output), one
//!   `lora_A` output of n·r channels, and, unless all of q, k and v are adapted, the `lora_B`
//!   output that `zero_pad`'s `index_copy_` saves as its `source` (c × the adapted widths).
//!
//! Other LoRA targets (the output projection, the MLP) are `LoRALinear`s, saved as PEFT's.

use super::{
    bnb_keeps_inputs, compute_bytes, frozen_norm_saved, is_target, is_target_name,
    layer_activation, residual_bytes,
};
use crate::constants::Tunables;
use crate::model::{MlpKind, NormKind, ParamBreakdown, TransformerSpec};
use crate::workload::{TrainingSetup, FUSED_QKV};

/// Bytes per token: every layer's saved set, what layer 0 does not save (its input needs no
/// gradient under LoRA), and what is saved outside the layers.
pub(super) struct LitGptSaved {
    pub per_layer: f64,
    pub first_absent: f64,
    pub outside: f64,
}

/// A norm's saved bytes per token when its input needs a gradient.
fn norm_saved(t: &TransformerSpec, setup: &TrainingSetup, trainable: bool) -> f64 {
    let h = t.hidden as f64;
    if t.norm == NormKind::RmsNorm && setup.rmsnorm_fp32 == Some(false) {
        // Before the upcast: `x * x` and `x * rsqrt(·)` save the input and rsqrt in the residual
        // dtype (the compute dtype, fp32 under autocast); a trainable weight also saves the
        // normalised copy.
        let r = residual_bytes(setup);
        return r * h + r + if trainable { r * h } else { 0.0 };
    }
    match (t.norm, trainable) {
        (NormKind::RmsNorm, true) => 8.0 * h + 4.0,
        (NormKind::LayerNorm, true) => residual_bytes(setup) * h + 8.0,
        _ => frozen_norm_saved(t, setup),
    }
}

/// Whether LoRA adapts q_proj, k_proj or v_proj (`name`) of the fused q/k/v module; the fused
/// marker covers all three.
fn targeted(setup: &TrainingSetup, name: &str) -> bool {
    let targets = &setup.lora.targets;
    setup.task.is_peft()
        && (is_target_name(targets, name) || targets.iter().any(|t| t == FUSED_QKV))
}

pub(super) fn saved_per_token(
    b: &ParamBreakdown,
    t: &TransformerSpec,
    setup: &TrainingSetup,
    tun: &Tunables,
) -> LitGptSaved {
    let c = compute_bytes(setup);
    let m = tun.lora_dropout_mask_bytes;
    let r = setup.lora.rank as f64;
    let (h, f) = (t.hidden as f64, t.ffn_for_activation() as f64);
    let (q, kv) = (t.q_width() as f64, t.kv_width() as f64);
    let trainable = !setup.task.is_peft();
    let gqa = kv < q;

    // Attention: rotary q and k (cat copies; k at full head count under GQA), V (a full-head
    // copy under GQA, else a view keeping the q/k/v output), the SDPA output and its fp32
    // log-sum-exp; eager scores as the HF profile's.
    let k_saved = if gqa { q } else { kv };
    let v_saved = if gqa { q } else { q + 2.0 * kv };
    let lse = 4.0 * t.heads as f64;
    let scores = layer_activation(t, setup.seq_len, setup).scores;
    let attention = c * (q + k_saved + v_saved + q) + lse + scores;

    // The fused q/k/v LoRA.
    let en = [("q_proj", q), ("k_proj", kv), ("v_proj", kv)]
        .iter()
        .filter(|(n, _)| targeted(setup, n))
        .map(|&(_, w)| w)
        .collect::<Vec<_>>();
    let n = en.len() as f64;
    let qkv_lora = if en.is_empty() {
        0.0
    } else {
        let padded = if en.len() < 3 {
            c * en.iter().sum::<f64>()
        } else {
            0.0
        };
        (m + c) * h + c * n * r + padded
    };
    // Other adapted linears (`LoRALinear`): dropout mask and output, lora_A output; a routed
    // expert's only for its tokens (`LLaMAMoE`: `expert(x[mask])`), top-k copies per token.
    let other_lora: f64 = b
        .groups
        .first()
        .map(|g| {
            g.linears
                .iter()
                .filter(|l| !matches!(l.name, "q_proj" | "k_proj" | "v_proj"))
                .filter(|l| setup.task.is_peft() && is_target(&setup.lora.targets, l))
                .map(|l| ((m + c) * l.d_in as f64 + c * r) * l.active_copies as f64)
                .sum()
        })
        .unwrap_or(0.0);

    // MLP: the gate and up outputs and the activation output (the product only for a
    // trainable down projection); a plain MLP its fc output.
    let mlp = match t.mlp {
        MlpKind::Gated => 3.0 * c * f,
        MlpKind::Plain => c * f,
    };
    // Trainable linears save their inputs: the q/k/v input, the MLP input (one storage for gate
    // and up), the down-projection input. The output projection's input is a view of the SDPA
    // output (the kernel writes it as [B, T, H, D] and returns a transposed view, so the
    // reshape back is free), which SDPA already saves (measured: full fine-tuning rows).
    let linear_inputs = if trainable || bnb_keeps_inputs(setup) {
        // bitsandbytes < 0.43.2 keeps every 4-bit matmul's input whose input needs a gradient.
        c * (h + h + f)
    } else {
        0.0
    };
    let norms = 2.0 * norm_saved(t, setup, trainable);
    let per_layer = attention + qkv_lora + other_lora + mlp + linear_inputs + norms;

    // Layer 0 under LoRA: its input needs no gradient, so norm_1 saves nothing, the q/k/v LoRA
    // dropout keeps no mask, and an old bitsandbytes keeps no q/k/v input.
    let first_absent = if trainable || setup.recompute == crate::workload::Recompute::Full {
        0.0
    } else {
        norm_saved(t, setup, false)
            + if en.is_empty() { 0.0 } else { m * h }
            + if bnb_keeps_inputs(setup) { c * h } else { 0.0 }
    };

    // Outside: the batch on the device (input ids and targets, int64), the final norm, the
    // LM-head input when the head is trainable or a 4-bit matmul keeps it.
    let head_input = trainable || (bnb_keeps_inputs(setup) && setup.lm_head_quantized());
    let outside = 16.0 + norm_saved(t, setup, trainable) + if head_input { c * h } else { 0.0 };
    LitGptSaved {
        per_layer,
        first_absent,
        outside,
    }
}

/// LitGPT's rotary cache: fp32 `cos` and `sin` buffers of `max_seq_length × rope_n_elem` each
/// (`build_rope_cache`, set when the loop sets `model.max_seq_length`), bytes.
pub(super) fn rope_cache_bytes(t: &TransformerSpec, seq: u64) -> f64 {
    2.0 * 4.0 * seq as f64 * t.head_dim as f64
}
