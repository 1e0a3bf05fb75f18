//! One module per subcommand.

pub mod accuracy;
pub mod catalog;
pub mod estimate;
pub mod models;

use crate::cli::{Cli, Command};
use anyhow::{Context, Result};
use gpuplan_core::model::{find_preset, parse_hf_config, ModelSpec};
use std::path::Path;

pub fn run(cli: Cli) -> Result<u8> {
    match cli.command {
        Command::Models { action, format } => models::run(action, format),
        Command::Catalog { action } => catalog::run(action),
        Command::Estimate(args) => estimate::run(*args),
        Command::Accuracy { cases, format } => accuracy::run(&cases, format),
    }
}

/// Read a HuggingFace config.json, or the config.json inside a directory.
pub fn load_config(path: &Path) -> Result<ModelSpec> {
    let file = if path.is_dir() {
        path.join("config.json")
    } else {
        path.to_path_buf()
    };
    let text = std::fs::read_to_string(&file)
        .with_context(|| format!("cannot read {}", file.display()))?;
    let name = path
        .file_stem()
        .map(|s| s.to_string_lossy().to_string())
        .filter(|s| s != "config")
        .or_else(|| {
            path.parent()
                .and_then(|p| p.file_name())
                .map(|s| s.to_string_lossy().to_string())
        })
        .unwrap_or_else(|| "custom".into());
    let mut m = parse_hf_config(&name, &text).with_context(|| format!("in {}", file.display()))?;
    m.sources.push(file.display().to_string());
    Ok(m)
}

pub fn load_model(preset: Option<&str>, config: Option<&Path>) -> Result<ModelSpec> {
    match (preset, config) {
        (_, Some(p)) => load_config(p),
        (Some(name), None) => Ok(find_preset(name)?.model.clone()),
        (None, None) => anyhow::bail!("no model given: pass --model NAME (see `gpuplan models`) or --model-config PATH/config.json"),
    }
}

/// Parse a flag value through the same serde names the workload file uses, so both accept the
/// same words and errors name the field.
pub fn parse_word<T: serde::de::DeserializeOwned>(field: &str, value: &str) -> Result<T> {
    serde_json::from_value(serde_json::Value::String(value.to_string()))
        .map_err(|e| anyhow::anyhow!("invalid --{field} `{value}`: {e}"))
}
