//! torchtune's chunked cross-entropy, eager and torch.compile'd, against PyTorch's own allocation
//! events on CPU (validation/compiled-loss-measured.json, tools/measure_compiled_loss.py): the
//! timeline's loss buffers beyond the logits, per logit element, in the loss phase, after it
//! (saved for backward) and in backward.

use gpuplan_core::timeline::{step_timeline, StepBuffers};

fn rows() -> Vec<serde_json::Value> {
    let p = concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/../../validation/compiled-loss-measured.json"
    );
    let doc: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(p).expect("measured file")).expect("json");
    doc["rows"].as_array().expect("rows").clone()
}

/// Live bytes per logit element beyond the bf16 logits: (loss phase, backward: loss phase).
fn modelled(compiled: bool, chunks: f64) -> (f64, f64) {
    let b = StepBuffers {
        logits_elems: 1.0,
        logits_dtype_bytes: 2.0,
        loss_chunks: chunks,
        compiled_loss: compiled,
        ..Default::default()
    };
    let t = step_timeline(&b);
    let at = |name: &str| {
        t.phases
            .iter()
            .find(|p| p.phase == name)
            .map(|p| p.total.0)
            .expect("phase")
    };
    (at("loss") - 2.0, at("backward: loss") - 2.0)
}

#[test]
fn chunked_loss_buffers_match_measured_allocations() {
    let rows = rows();
    assert!(rows.len() >= 6, "{} rows", rows.len());
    for r in &rows {
        let compiled = r["compiled"].as_bool().expect("compiled");
        let chunks = r["chunks"].as_f64().expect("chunks");
        let (loss, bwd) = modelled(compiled, chunks);
        let m_loss = r["loss_extra_per_logit"].as_f64().expect("loss");
        // The measured backward peak beyond the logits' size, less the input gradients; the
        // eager logits are freed by `del logits` once the loss is built, the saved fp32 outputs
        // stay.
        let m_bwd = r["backward_peak_extra_per_logit"].as_f64().expect("bwd");
        let tag = format!(
            "compiled={compiled} b={} s={} V={}",
            r["batch"], r["seq_len"], r["vocab"]
        );
        // Loss phase: eager 4.5 B (every chunk's saved fp32 log-softmax + one chunk's upcast),
        // compiled ~0: within 0.05 B per logit.
        assert!(
            (loss - m_loss).abs() <= 0.05,
            "{tag}: loss {loss} vs {m_loss}"
        );
        // Backward: the model keeps the logits' 2 B inside its figure for the compiled case
        // (saved by the compiled graphs) and the eager saved outputs 4 B + one chunk's two fp32
        // gradients; measured within 0.3 B per logit (the chunk's own saved output is freed
        // while its gradients are built).
        assert!(
            (bwd - m_bwd).abs() <= 0.3,
            "{tag}: backward {bwd} vs {m_bwd}"
        );
    }
}

#[test]
fn compiling_the_chunked_loss_saves_its_fp32_buffers() {
    let (eager, _) = modelled(false, 8.0);
    let (compiled, _) = modelled(true, 8.0);
    assert!(eager > 4.0 && compiled < 0.01, "{eager} {compiled}");
}
