//! The stored format of a checkpoint that is not 16-bit, read from its HF config's
//! `quantization_config` (transformers `quantizers/auto.py` dispatches on `quant_method`).
//!
//! Read: `mxfp4` (gpt-oss: routed experts MXFP4, the rest bf16), `fp8` (DeepSeek-V3 and the
//! Qwen3-*-FP8 releases: e4m3 weights with one fp32 scale per `weight_block_size` block),
//! `awq` / `gptq` (`bits`, `group_size`) and `compressed-tensors` (`config_groups.*.weights`:
//! `num_bits`, `type`, `group_size`). Any other method is refused naming the key: sizing such a
//! checkpoint at 16 bits would be a silent wrong answer.

use crate::error::CoreError;
use crate::i18n::Msg;
use crate::workload::WeightFormat;
use serde_json::{Map, Value};

/// The `quant_method` values read here.
pub const KNOWN_METHODS: &[&str] = &["mxfp4", "fp8", "awq", "gptq", "compressed-tensors"];

/// The checkpoint's format from `quantization_config`; `None` without one. `in_features` (the
/// hidden size) is the group of a per-channel int checkpoint (`group_size` -1 or null: one scale
/// per output row of `in_features` weights).
pub fn checkpoint_format(
    obj: &Map<String, Value>,
    in_features: u64,
) -> Result<Option<WeightFormat>, CoreError> {
    let Some(qc) = obj.get("quantization_config").filter(|v| !v.is_null()) else {
        return Ok(None);
    };
    let Some(qc) = qc.as_object() else {
        return Err(CoreError::invalid_msg(
            "quantization_config",
            short(qc),
            Msg::new("fix-hf-table-object").arg("key", "quantization_config"),
        ));
    };
    let method = qc.get("quant_method").and_then(Value::as_str);
    let Some(method) = method else {
        return Err(CoreError::MissingFields {
            fields: vec!["quantization_config.quant_method".into()],
        });
    };
    match method {
        "mxfp4" => Ok(Some(WeightFormat::Mxfp4)),
        "fp8" => fp8_blocks(qc).map(|()| Some(WeightFormat::Fp8)),
        "awq" | "gptq" => {
            let bits = qc.get("bits").or_else(|| qc.get("w_bit"));
            let group = qc.get("group_size").or_else(|| qc.get("q_group_size"));
            int_format("quantization_config.bits", bits, group, in_features).map(Some)
        }
        "compressed-tensors" => compressed_tensors(qc, in_features).map(Some),
        other => Err(CoreError::invalid_msg(
            "quantization_config.quant_method",
            other,
            Msg::new("fix-quant-method").arg("known", KNOWN_METHODS.join(", ")),
        )),
    }
}

fn short(v: &Value) -> String {
    v.to_string().chars().take(40).collect()
}

/// FP8's `weight_block_size`, when given, is two positive integers. Its scales (one fp32 per
/// block: 32 / (128 × 128) = 0.002 bits per weight at DeepSeek-V3's [128, 128]) are below
/// 0.03% of the 8 bits and not counted.
fn fp8_blocks(qc: &Map<String, Value>) -> Result<(), CoreError> {
    let Some(b) = qc.get("weight_block_size").filter(|v| !v.is_null()) else {
        return Ok(());
    };
    let ok = b
        .as_array()
        .is_some_and(|a| a.len() == 2 && a.iter().all(|x| x.as_u64().is_some_and(|n| n > 0)));
    if ok {
        Ok(())
    } else {
        Err(CoreError::invalid_msg(
            "quantization_config.weight_block_size",
            short(b),
            Msg::new("fix-quant-block"),
        ))
    }
}

/// An int weight-only checkpoint: 4 bits → [`WeightFormat::Int4`] at its group (a 16-bit scale
/// and a 4-bit zero per group, AutoAWQ/GPTQ packing; a symmetric checkpoint has no zero and is
/// 4/group bits smaller), 8 bits → [`WeightFormat::Int8`]; other widths are refused.
fn int_format(
    key: &str,
    bits: Option<&Value>,
    group: Option<&Value>,
    in_features: u64,
) -> Result<WeightFormat, CoreError> {
    let Some(b) = bits.filter(|v| !v.is_null()) else {
        return Err(CoreError::MissingFields {
            fields: vec![key.into()],
        });
    };
    let group = match group.filter(|v| !v.is_null()).map(Value::as_i64) {
        None | Some(Some(-1)) => in_features.max(1),
        Some(Some(g)) if g > 0 => g as u64,
        Some(_) => {
            let field = match key.rsplit_once('.') {
                Some((table, _)) => format!("{table}.group_size"),
                None => "group_size".into(),
            };
            return Err(CoreError::invalid_msg(
                &field,
                short(group.unwrap_or(&Value::Null)),
                Msg::new("fix-quant-group"),
            ));
        }
    };
    match b.as_u64() {
        Some(4) => Ok(WeightFormat::Int4 { group }),
        Some(8) => Ok(WeightFormat::Int8),
        _ => Err(CoreError::invalid_msg(
            key,
            short(b),
            Msg::new("fix-quant-bits"),
        )),
    }
}

/// compressed-tensors (llm-compressor): every `config_groups` entry's `weights` scheme must give
/// the same format; int → [`int_format`], float 8-bit → FP8. Float 4-bit (NVFP4) is refused.
fn compressed_tensors(
    qc: &Map<String, Value>,
    in_features: u64,
) -> Result<WeightFormat, CoreError> {
    let groups = qc.get("config_groups").and_then(Value::as_object);
    let Some(groups) = groups.filter(|g| !g.is_empty()) else {
        return Err(CoreError::MissingFields {
            fields: vec!["quantization_config.config_groups".into()],
        });
    };
    let mut found: Option<WeightFormat> = None;
    for (name, g) in groups {
        let key = format!("quantization_config.config_groups.{name}.weights.num_bits");
        let w = g.get("weights").and_then(Value::as_object);
        let Some(w) = w else {
            return Err(CoreError::MissingFields {
                fields: vec![format!("quantization_config.config_groups.{name}.weights")],
            });
        };
        let float = w.get("type").and_then(Value::as_str) == Some("float");
        let f = match (float, w.get("num_bits").and_then(Value::as_u64)) {
            (true, Some(8)) => WeightFormat::Fp8,
            (false, _) => int_format(&key, w.get("num_bits"), w.get("group_size"), in_features)?,
            (true, _) => {
                let v = w.get("num_bits").map_or("null".into(), short);
                return Err(CoreError::invalid_msg(&key, v, Msg::new("fix-quant-bits")));
            }
        };
        if found.is_some_and(|x| x != f) {
            return Err(CoreError::invalid_msg(
                "quantization_config.config_groups",
                name,
                Msg::new("fix-quant-mixed"),
            ));
        }
        found = Some(f);
    }
    found.ok_or_else(|| CoreError::MissingFields {
        fields: vec!["quantization_config.config_groups".into()],
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn read(qc: &str) -> Result<Option<WeightFormat>, CoreError> {
        let v: Value = serde_json::from_str(&format!("{{\"quantization_config\": {qc}}}")).unwrap();
        checkpoint_format(v.as_object().unwrap(), 4096)
    }

    /// Each method's config as the releases write it.
    #[test]
    fn methods_are_read_as_their_formats() {
        // openai/gpt-oss-120b config.json.
        let oss = r#"{"modules_to_not_convert": ["model.layers.*.self_attn",
            "model.layers.*.mlp.router", "model.embed_tokens", "lm_head"], "quant_method": "mxfp4"}"#;
        assert_eq!(read(oss).unwrap(), Some(WeightFormat::Mxfp4));
        // deepseek-ai/DeepSeek-V3 config.json.
        let ds = r#"{"activation_scheme": "dynamic", "fmt": "e4m3", "quant_method": "fp8",
            "weight_block_size": [128, 128]}"#;
        assert_eq!(read(ds).unwrap(), Some(WeightFormat::Fp8));
        // An AutoAWQ export (bits, group_size, zero_point, version).
        let awq = r#"{"bits": 4, "group_size": 128, "quant_method": "awq", "version": "gemm",
            "zero_point": true}"#;
        assert_eq!(read(awq).unwrap(), Some(WeightFormat::Int4 { group: 128 }));
        let gptq8 = r#"{"bits": 8, "group_size": -1, "quant_method": "gptq"}"#;
        assert_eq!(read(gptq8).unwrap(), Some(WeightFormat::Int8));
        let per_channel = r#"{"bits": 4, "group_size": -1, "quant_method": "gptq"}"#;
        assert_eq!(
            read(per_channel).unwrap(),
            Some(WeightFormat::Int4 { group: 4096 })
        );
        // llm-compressor W4A16 and FP8 schemes.
        let w4a16 = r#"{"quant_method": "compressed-tensors", "format": "pack-quantized",
            "config_groups": {"group_0": {"targets": ["Linear"], "weights": {"num_bits": 4,
            "type": "int", "symmetric": true, "strategy": "group", "group_size": 128}}}}"#;
        assert_eq!(
            read(w4a16).unwrap(),
            Some(WeightFormat::Int4 { group: 128 })
        );
        let fp8 = r#"{"quant_method": "compressed-tensors", "format": "float-quantized",
            "config_groups": {"group_0": {"weights": {"num_bits": 8, "type": "float",
            "strategy": "channel", "group_size": null}}}}"#;
        assert_eq!(read(fp8).unwrap(), Some(WeightFormat::Fp8));
        assert_eq!(read("null").unwrap(), None);
    }

    /// What is not read is refused naming the key, never sized at 16 bits.
    #[test]
    fn unknown_or_bad_values_name_their_key() {
        let field = |qc: &str| match read(qc) {
            Err(CoreError::InvalidField { field, .. }) => field,
            Err(CoreError::MissingFields { fields }) => fields.join(","),
            other => panic!("{qc}: {other:?}"),
        };
        assert_eq!(
            field(r#"{"quant_method": "bitsandbytes", "load_in_4bit": true}"#),
            "quantization_config.quant_method"
        );
        assert_eq!(field(r#"{"bits": 4}"#), "quantization_config.quant_method");
        assert_eq!(
            field(r#"{"quant_method": "gptq", "bits": 3, "group_size": 128}"#),
            "quantization_config.bits"
        );
        assert_eq!(
            field(r#"{"quant_method": "awq", "bits": 4, "group_size": 0}"#),
            "quantization_config.group_size"
        );
        assert_eq!(
            field(r#"{"quant_method": "fp8", "weight_block_size": [128]}"#),
            "quantization_config.weight_block_size"
        );
        assert_eq!(field("[1]"), "quantization_config");
        let nvfp4 = r#"{"quant_method": "compressed-tensors", "config_groups": {"g": {"weights":
            {"num_bits": 4, "type": "float", "group_size": 16}}}}"#;
        assert_eq!(
            field(nvfp4),
            "quantization_config.config_groups.g.weights.num_bits"
        );
    }
}
