//! `gpuplan catalog ...`.

use crate::cli::{CatalogAction, Format};
use crate::render;
use anyhow::Result;
use gpuplan_core::hardware::builtin_gpus;

pub fn run(action: CatalogAction) -> Result<u8> {
    match action {
        CatalogAction::Gpus { format } => gpus(format),
    }
}

fn opt(v: Option<f64>) -> String {
    v.map(|x| format!("{x}")).unwrap_or_else(|| "–".into())
}

fn gpus(format: Format) -> Result<u8> {
    let all = builtin_gpus()?;
    if format == Format::Json {
        outln!(
            "{}",
            render::json("gpus", &serde_json::json!({ "gpus": all }))?
        );
        return Ok(0);
    }
    let header = [
        "id",
        "name",
        "GiB",
        "GB/s",
        "bf16 TFLOPS",
        "fp8",
        "link",
        "link GB/s",
        "confidence",
        "as of",
    ];
    let rows: Vec<Vec<String>> = all
        .iter()
        .map(|g| {
            vec![
                g.id.clone(),
                g.name.clone(),
                opt(g.memory_gib),
                opt(g.memory_bandwidth_gbs),
                opt(g.tflops.bf16.filter(|x| *x > 0.0).or(g.tflops.fp16)),
                opt(g.tflops.fp8),
                g.intra_link.name().to_string(),
                opt(g.intra_link_gbs),
                g.confidence.clone(),
                g.as_of.clone(),
            ]
        })
        .collect();
    match format {
        Format::Markdown => out!("{}", render::markdown(&header, &rows)),
        _ => outln!("{}", render::table(&header, &rows)),
    }
    outln!("– = not sourced (left out rather than guessed). Sources: `gpuplan catalog gpus --format json`.");
    Ok(0)
}
