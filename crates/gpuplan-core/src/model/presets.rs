//! Built-in model presets, embedded from `data/models.toml` at build time.
//!
//! Transformer presets store the published HF `config.json` fields and go through the same
//! importer as a user's file ([`super::hf`]), so every preset also tests the importer.

use super::hf::from_hf_value;
use super::spec::{Architecture, ModelSpec, OpaqueSpec};
use crate::error::{close_names, CoreError};
use serde::Deserialize;
use std::sync::OnceLock;

const MODELS_TOML: &str = include_str!("../../data/models.toml");

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct PresetFile {
    model: Vec<PresetRow>,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct PresetRow {
    name: String,
    params_published: Option<u64>,
    params_active_published: Option<u64>,
    params_basis: String,
    confidence: String,
    sources: Vec<String>,
    notes: Option<String>,
    config: Option<toml::Table>,
    opaque: Option<OpaqueRow>,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct OpaqueRow {
    model_type: String,
    params: u64,
    forward_flops_per_sample: Option<f64>,
    flops_basis: Option<String>,
    reference_input: String,
    activation_bytes_per_sample: Option<f64>,
    activation_basis: Option<String>,
    sample_bytes: Option<f64>,
    sample_bytes_basis: Option<String>,
    architecture_notes: Option<String>,
    denoising: Option<super::spec::Denoising>,
    denoising_basis: Option<String>,
}

/// A preset with the provenance of its parameter count.
#[derive(Clone, Debug)]
pub struct Preset {
    pub model: ModelSpec,
    pub params_active_published: Option<u64>,
    /// hf_safetensors_metadata | computed_from_config | officially_stated | torchvision_docs.
    pub params_basis: String,
    /// exact | derived.
    pub confidence: String,
}

fn parse_presets(text: &str) -> Result<Vec<Preset>, CoreError> {
    let file: PresetFile = toml::from_str(text).map_err(|e| CoreError::Parse {
        what: "built-in data/models.toml".into(),
        message: e.to_string(),
    })?;
    file.model.into_iter().map(preset_from_row).collect()
}

fn preset_from_row(row: PresetRow) -> Result<Preset, CoreError> {
    let mut model = match (row.config, row.opaque) {
        (Some(cfg), None) => {
            let json = serde_json::to_value(cfg).map_err(|e| CoreError::Parse {
                what: format!("preset `{}`", row.name),
                message: e.to_string(),
            })?;
            from_hf_value(&row.name, &json, Vec::new())?
        }
        (None, Some(o)) => {
            let mut notes: Vec<String> = Vec::new();
            notes.extend(o.flops_basis.clone().map(|b| format!("FLOPs: {b}")));
            notes.extend(o.denoising_basis.clone().map(|b| format!("sampling: {b}")));
            notes.extend(
                o.sample_bytes_basis
                    .clone()
                    .map(|b| format!("sample size: {b}")),
            );
            notes.extend(
                o.architecture_notes
                    .clone()
                    .map(|b| format!("architecture: {b}")),
            );
            ModelSpec {
                name: row.name.clone(),
                architecture: Architecture::Opaque(OpaqueSpec {
                    model_type: o.model_type,
                    params: o.params,
                    forward_flops_per_sample: o.forward_flops_per_sample.unwrap_or(f64::NAN),
                    activation_bytes_per_sample: o.activation_bytes_per_sample,
                    activation_basis: o.activation_basis,
                    reference_input: o.reference_input,
                    sample_bytes: o.sample_bytes,
                    denoising: o.denoising,
                }),
                params_published: None,
                sources: Vec::new(),
                notes: if notes.is_empty() {
                    None
                } else {
                    Some(notes.join("; "))
                },
                warnings: Vec::new(),
                checkpoint: None,
                checkpoint_unread: None,
                checkpoint_skipped: Vec::new(),
                checkpoint_awq: false,
            }
        }
        _ => {
            return Err(CoreError::Parse {
                what: format!("preset `{}`", row.name),
                message: "needs exactly one of [model.config] or [model.opaque]".into(),
            })
        }
    };
    model.params_published = row.params_published;
    model.sources = row.sources;
    model.notes = match (row.notes, model.notes.take()) {
        (Some(a), Some(b)) => Some(format!("{a} {b}")),
        (a, b) => a.or(b),
    };
    Ok(Preset {
        model,
        params_active_published: row.params_active_published,
        params_basis: row.params_basis,
        confidence: row.confidence,
    })
}

/// All built-in presets. The embedded file is checked by the test suite, so a parse failure
/// here is a build defect; it is still reported as an error rather than a panic.
pub fn presets() -> Result<&'static [Preset], CoreError> {
    static CELL: OnceLock<Result<Vec<Preset>, CoreError>> = OnceLock::new();
    match CELL.get_or_init(|| parse_presets(MODELS_TOML)) {
        Ok(v) => Ok(v.as_slice()),
        Err(e) => Err(e.clone()),
    }
}

fn normalise(s: &str) -> String {
    s.to_lowercase().replace(['_', ' '], "-")
}

/// Find a preset by name, case-insensitively; `-hf`, `-instruct` and an `org/` prefix are ignored.
pub fn find_preset(name: &str) -> Result<&'static Preset, CoreError> {
    let all = presets()?;
    // An empty name (`model = ""`, `-m ""`) is no misspelling: no alphabetical suggestions
    // (audit r15 #7).
    if name.trim().is_empty() {
        return Err(CoreError::invalid_msg(
            "model",
            format!("{name:?}"),
            crate::i18n::Msg::new("fix-model-empty"),
        ));
    }
    // A name with a slash of its own (ViT-L/16) first, then as an `org/model` HF id.
    if let Some(p) = all
        .iter()
        .find(|p| normalise(&p.model.name) == normalise(name))
    {
        return Ok(p);
    }
    let mut key = normalise(name);
    if let Some((_, tail)) = key.rsplit_once('/') {
        key = tail.to_string();
    }
    for suffix in ["-hf", "-instruct", "-chat"] {
        if let Some(k) = key.strip_suffix(suffix) {
            key = k.to_string();
        }
    }
    if let Some(p) = all.iter().find(|p| normalise(&p.model.name) == key) {
        return Ok(p);
    }
    let quantized = quantized_name(&key, all);
    Err(CoreError::Unknown {
        kind: "model".into(),
        name: name.to_string(),
        // A quantized name's note names its preset (audit r16).
        suggestions: match &quantized {
            Some((_, Some(_))) => vec![],
            _ => close_names(name, all.iter().map(|p| p.model.name.as_str())),
        },
        // Otherwise the fix (audit r18 #3: "unknown model `x`" named none): the preset list and
        // how to give a config of one's own.
        note: Some(Box::new(quantized.map_or_else(
            || crate::i18n::Msg::new("fix-model-unknown").into(),
            |(note, _)| note,
        ))),
    })
}

/// The name suffixes of quantized checkpoints on the Hugging Face Hub (Qwen's `-AWQ`,
/// `-GPTQ-Int4`, `-FP8`; unsloth's `-bnb-4bit`), longest first: the format's label and the
/// `--weights` value that sizes the 16-bit preset so (`None`: only the checkpoint's own
/// `quantization_config` says, e.g. bitsandbytes block sizes or GPTQ's 8-bit layout).
const QUANTIZED_SUFFIXES: [(&str, &str, Option<&str>); 10] = [
    ("-gptq-int4", "GPTQ int4", Some("gptq")),
    ("-gptq-int8", "GPTQ int8", None),
    ("-fp8-dynamic", "FP8", Some("fp8")),
    ("-bnb-4bit", "bitsandbytes 4-bit", None),
    ("-bnb-8bit", "bitsandbytes 8-bit", None),
    ("-mxfp4", "MXFP4", Some("mxfp4")),
    ("-awq", "AWQ", Some("awq")),
    ("-gptq", "GPTQ", Some("gptq")),
    ("-fp8", "FP8", Some("fp8")),
    ("-4bit", "4-bit", None),
];

/// The note of a model name (normalised, without its `org/`) that names a quantized checkpoint
/// of a preset or of another model, and the preset it names, if any: the presets are 16-bit, so
/// the name is refused rather than sized as the preset, and the note says how to size it.
fn quantized_name(key: &str, all: &[Preset]) -> Option<(crate::i18n::Text, Option<String>)> {
    let &(suffix, format, weights) = QUANTIZED_SUFFIXES
        .iter()
        .find(|(s, _, _)| key.ends_with(s))?;
    let mut base = key.strip_suffix(suffix).unwrap_or(key).to_string();
    for s in ["-hf", "-instruct", "-chat"] {
        if let Some(k) = base.strip_suffix(s) {
            base = k.to_string();
        }
    }
    let preset = all
        .iter()
        .find(|p| normalise(&p.model.name) == base)
        .map(|p| p.model.name.clone());
    let msg = match weights {
        Some(w) => crate::i18n::Msg::new("note-quantized-name")
            .arg("format", format)
            .arg("preset", preset.clone().unwrap_or_else(|| "none".into()))
            .arg("weights", w),
        None => crate::i18n::Msg::new("note-quantized-name-config").arg("format", format),
    };
    let text = crate::i18n::Text {
        en: msg.render(crate::i18n::Lang::En),
        zh: msg.render(crate::i18n::Lang::Zh),
    };
    Some((text, preset.filter(|_| weights.is_some())))
}

#[cfg(test)]
mod tests {
    #[test]
    fn every_preset_is_found_by_its_own_name() {
        for p in super::presets().expect("presets") {
            let found = super::find_preset(&p.model.name).expect("found");
            assert_eq!(found.model.name, p.model.name);
        }
        // An org prefix is still ignored.
        assert_eq!(
            super::find_preset("meta-llama/Llama-3.1-8B")
                .map(|p| p.model.name.clone())
                .ok(),
            Some("Llama-3.1-8B".to_string())
        );
    }
}
