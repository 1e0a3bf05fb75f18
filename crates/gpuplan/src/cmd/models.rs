//! `gpuplan models` and `gpuplan models show`.

use super::load_model;
use crate::cli::{Format, ModelsAction};
use crate::render;
use anyhow::Result;
use gpuplan_core::i18n::Msg;
use gpuplan_core::job::model_summary;
use gpuplan_core::model::{param_breakdown, presets, Architecture, AttentionKind};
use gpuplan_core::units::format_count;

pub fn run(action: Option<ModelsAction>, format: Format) -> Result<u8> {
    match action {
        None => list(format),
        Some(ModelsAction::Show {
            name,
            config,
            format,
        }) => show(name.as_deref(), config.as_deref(), format),
    }
}

/// The body of the `models` JSON document, shared with `gpuplan serve`.
pub fn list_json(all: &[gpuplan_core::model::Preset]) -> serde_json::Value {
    let rows: Vec<_> = all.iter().map(|p| model_summary(&p.model)).collect();
    serde_json::json!({ "models": rows })
}

/// The body of the `model` JSON document, shared with `gpuplan serve`.
pub fn show_json(m: &gpuplan_core::model::ModelSpec) -> serde_json::Value {
    serde_json::json!({ "model": model_summary(m), "architecture": m.architecture, "sources": m.sources })
}

fn list(format: Format) -> Result<u8> {
    let all = presets()?;
    if format == Format::Json {
        outln!("{}", render::json("models", &list_json(all))?);
        return Ok(0);
    }
    let l = render::lang();
    let header: Vec<String> = [
        "model",
        "type",
        "params",
        "active",
        "published",
        "layers",
        "hidden",
        "heads",
        "context",
    ]
    .iter()
    .map(|k| gpuplan_core::i18n::text(l, &format!("models-col-{k}")))
    .collect();
    let header: Vec<&str> = header.iter().map(String::as_str).collect();
    let rows: Vec<Vec<String>> = all
        .iter()
        .map(|p| {
            let b = param_breakdown(&p.model);
            let (layers, hidden, heads, ctx) = match &p.model.architecture {
                Architecture::Transformer(t) => (
                    t.total_layers().to_string(),
                    t.hidden.to_string(),
                    match t.attention {
                        AttentionKind::Mla(_) => format!("{} MLA", t.heads),
                        AttentionKind::Standard => format!("{}/{}", t.heads, t.kv_heads),
                    },
                    t.max_context.to_string(),
                ),
                Architecture::Opaque(o) => (
                    "-".into(),
                    "-".into(),
                    "-".into(),
                    o.reference_input.clone(),
                ),
            };
            vec![
                p.model.name.clone(),
                p.model.model_type().to_string(),
                format_count(b.total as f64),
                if b.active != b.total {
                    format_count(b.active as f64)
                } else {
                    String::new()
                },
                p.model
                    .params_published
                    .map(|x| format_count(x as f64))
                    .unwrap_or_default(),
                layers,
                hidden,
                heads,
                ctx,
            ]
        })
        .collect();
    match format {
        Format::Markdown => out!("{}", render::markdown(&header, &rows)),
        _ => outln!("{}", render::table(&header, &rows)),
    }
    Ok(0)
}

fn show(name: Option<&str>, config: Option<&std::path::Path>, format: Format) -> Result<u8> {
    let m = load_model(name, config)?;
    let s = model_summary(&m);
    if format == Format::Json {
        outln!("{}", render::json("model", &show_json(&m))?);
        return Ok(0);
    }
    let b = &s.params;
    let l = render::lang();
    let t = |id: &str| gpuplan_core::i18n::text(l, id);
    let mut rows = vec![
        vec![
            t("models-embedding"),
            format_count(b.embedding as f64),
            String::new(),
        ],
        vec![t("models-stem"), format_count(b.stem as f64), String::new()],
    ];
    for g in &b.groups {
        rows.push(vec![
            Msg::new("models-layers")
                .arg("name", g.name)
                .arg("n", g.count)
                .render(l),
            format_count(g.params() as f64),
            Msg::new("models-per-layer")
                .arg("params", format_count(g.params_per_layer() as f64))
                .arg(
                    "linears",
                    g.linears
                        .iter()
                        .map(|l| {
                            if l.copies > 1 {
                                format!("{} {}×{}×{}", l.name, l.copies, l.d_in, l.d_out)
                            } else {
                                format!("{} {}×{}", l.name, l.d_in, l.d_out)
                            }
                        })
                        .collect::<Vec<_>>()
                        .join(", "),
                )
                .render(l),
        ]);
    }
    rows.push(vec![
        t("models-final-norms"),
        format_count(b.final_norms as f64),
        String::new(),
    ]);
    rows.push(vec![
        t("models-lm-head"),
        format_count(b.lm_head as f64),
        if b.lm_head == 0 {
            t("models-tied")
        } else {
            String::new()
        },
    ]);
    rows.push(vec![
        t("models-total"),
        format!("{} ({})", format_count(b.total as f64), b.total),
        s.params_published
            .map(|p| {
                Msg::new("models-published")
                    .arg("n", format!("{} ({p})", format_count(p as f64)))
                    .render(l)
            })
            .unwrap_or_default(),
    ]);
    if b.active != b.total {
        rows.push(vec![
            t("models-active"),
            format!("{} ({})", format_count(b.active as f64), b.active),
            String::new(),
        ]);
    }
    let header = [
        t("plan-col-component"),
        t("models-col-params"),
        t("models-col-detail"),
    ];
    let header: Vec<&str> = header.iter().map(String::as_str).collect();
    let arch = match &m.architecture {
        Architecture::Transformer(t) => format!(
            "{} ({:?}): hidden {}, layers {}, heads {}/{} kv, head_dim {}, ffn {}, vocab {}, {:?} MLP, {:?}, {:?}, context {}{}",
            m.name, t.structure, t.hidden, t.total_layers(), t.heads, t.kv_heads, t.head_dim, t.ffn, t.vocab, t.mlp, t.norm, t.attention, t.max_context,
            t.moe.map(|e| format!(", MoE {} experts × {} (top-{}, {} shared, {} dense layers)", e.experts, e.expert_ffn, e.experts_per_token, e.shared_experts, e.dense_layers)).unwrap_or_default()
        ),
        Architecture::Opaque(o) => format!(
            "{} ({}): {} params; forward {:.3e} FLOPs per sample at {}",
            m.name, o.model_type, o.params, o.forward_flops_per_sample, o.reference_input
        ),
    };
    match format {
        Format::Markdown => out!("**{arch}**\n\n{}", render::markdown(&header, &rows)),
        _ => outln!("{arch}\n{}", render::table(&header, &rows)),
    }
    for w in &m.warnings {
        render::model_warning(w);
    }
    if let Some(n) = &m.notes {
        outln!(
            "{}",
            Msg::new("models-notes").arg("text", n.as_str()).render(l)
        );
    }
    for src in &m.sources {
        outln!(
            "{}",
            Msg::new("models-source")
                .arg("text", src.as_str())
                .render(l)
        );
    }
    Ok(0)
}
