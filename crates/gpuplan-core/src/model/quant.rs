//! The stored format of a checkpoint that is not 16-bit, read from its HF config's
//! `quantization_config` (transformers `quantizers/auto.py` dispatches on `quant_method`).
//!
//! Read: `mxfp4` (gpt-oss: routed experts MXFP4, the rest bf16), `fp8` (DeepSeek-V3 and the
//! Qwen3-*-FP8 releases: e4m3 weights with one fp32 scale per `weight_block_size` block),
//! `awq` / `gptq` (`bits`, `group_size`), `compressed-tensors` (`config_groups.*.weights`:
//! `num_bits`, `type`, `group_size`) and `bitsandbytes` (transformers' serialised
//! `BitsAndBytesConfig`: `load_in_4bit` / `load_in_8bit`, `bnb_4bit_use_double_quant`,
//! `bnb_4bit_quant_storage`). Any other method is [`Stored::Unread`]: training proceeds at the
//! job's precision with a note, serving needs an explicit `weights` (never sized at 16 bits
//! silently).

use crate::error::CoreError;
use crate::i18n::Msg;
use crate::workload::WeightFormat;
use serde_json::{Map, Value};

/// The `quant_method` values read here.
pub const KNOWN_METHODS: &[&str] = &[
    "mxfp4",
    "fp8",
    "awq",
    "gptq",
    "compressed-tensors",
    "bitsandbytes",
];

/// What a config says about its checkpoint's stored weights.
#[derive(Clone, Debug, PartialEq)]
pub enum Stored {
    /// No `quantization_config`: 16-bit.
    Sixteen,
    /// A format gpuplan reads.
    Format(WeightFormat),
    /// A `quant_method` gpuplan does not read (its name).
    Unread(String),
}

/// The checkpoint's format from `quantization_config`. `in_features` (the hidden size) is the
/// group of a per-channel int checkpoint (`group_size` -1 or null: one scale per output row of
/// `in_features` weights) and the row of an LLM.int8() checkpoint.
pub fn checkpoint_format(obj: &Map<String, Value>, in_features: u64) -> Result<Stored, CoreError> {
    let Some(qc) = obj.get("quantization_config").filter(|v| !v.is_null()) else {
        return Ok(Stored::Sixteen);
    };
    let Some(qc) = qc.as_object() else {
        return Err(CoreError::invalid_msg(
            "quantization_config",
            short(qc),
            Msg::new("fix-hf-table-object").arg("key", "quantization_config"),
        ));
    };
    let method = match qc.get("quant_method").filter(|v| !v.is_null()) {
        None => {
            return Err(CoreError::MissingFields {
                fields: vec!["quantization_config.quant_method".into()],
            })
        }
        Some(v) => v.as_str().ok_or_else(|| {
            // Present but not a string (audit r15 #4: `8` was reported as missing).
            CoreError::invalid_msg(
                "quantization_config.quant_method",
                short(v),
                Msg::new("hf-bad-key")
                    .arg("why", Msg::new("hf-string"))
                    .arg("key", "quantization_config.quant_method"),
            )
        })?,
    };
    let format = match method {
        "mxfp4" => WeightFormat::Mxfp4,
        "fp8" => fp8_blocks(qc).map(|()| WeightFormat::Fp8)?,
        "awq" | "gptq" => {
            let bits = qc.get("bits").or_else(|| qc.get("w_bit"));
            let group = qc.get("group_size").or_else(|| qc.get("q_group_size"));
            let f = int_format("quantization_config.bits", bits, group, in_features)?;
            awq_four_bits(method, f, bits)?
        }
        "compressed-tensors" => compressed_tensors(qc, in_features)?,
        "bitsandbytes" => bitsandbytes(qc, in_features)?,
        other => return Ok(Stored::Unread(other.to_string())),
    };
    Ok(Stored::Format(format))
}

/// AWQ is 4-bit only: vLLM's `AWQConfig.__init__` raises "Currently, only 4-bit weight
/// quantization is supported for AWQ" for any other `weight_bits`
/// (vllm/model_executor/layers/quantization/awq.py @000796ac), SGLang's the same (audit r19).
fn awq_four_bits(
    method: &str,
    f: WeightFormat,
    bits: Option<&Value>,
) -> Result<WeightFormat, CoreError> {
    if method != "awq" || matches!(f, WeightFormat::Int4 { .. }) {
        return Ok(f);
    }
    Err(CoreError::invalid_msg(
        "quantization_config.bits",
        bits.map_or("null".to_string(), short),
        Msg::new("fix-quant-awq-bits"),
    ))
}

/// Whether `quantization_config.quant_method` is `"awq"` (AutoAWQ's checkpoints; vLLM and
/// SGLang read it into `AWQConfig`, or `AWQMarlinConfig` where Marlin runs).
pub fn is_awq(obj: &Map<String, Value>) -> bool {
    obj.get("quantization_config")
        .and_then(|q| q.get("quant_method"))
        .and_then(Value::as_str)
        .is_some_and(|m| m == "awq")
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

/// A boolean key of `quantization_config`: absent or null is `false`; anything but a boolean
/// is refused naming the key.
fn flag(qc: &Map<String, Value>, key: &str) -> Result<bool, CoreError> {
    match qc.get(key).filter(|v| !v.is_null()) {
        None => Ok(false),
        Some(Value::Bool(b)) => Ok(*b),
        Some(v) => Err(CoreError::invalid_msg(
            &format!("quantization_config.{key}"),
            short(v),
            Msg::new("fix-quant-bool"),
        )),
    }
}

/// transformers' serialised `BitsAndBytesConfig` (`to_dict` writes `load_in_4bit`,
/// `load_in_8bit`, `bnb_4bit_quant_type`, `bnb_4bit_use_double_quant`, `bnb_4bit_quant_storage`,
/// `llm_int8_skip_modules`, ...). Exactly one of `load_in_4bit` / `load_in_8bit` is true (as
/// transformers requires); 4-bit → [`WeightFormat::Bnb4`] (NF4 and FP4 store the same bytes),
/// 8-bit → [`WeightFormat::Bnb8`] with one fp32 scale per row of `in_features`. The modules
/// transformers leaves unconverted (`lm_head`, embeddings, norms: not `nn.Linear`, or the output
/// embedding kept by `get_keys_to_not_convert`) are 16-bit here as for every weight-only format
/// ([`WeightFormat::keeps_embeddings_16bit`]).
fn bitsandbytes(qc: &Map<String, Value>, in_features: u64) -> Result<WeightFormat, CoreError> {
    let four = flag(qc, "load_in_4bit")?;
    let eight = flag(qc, "load_in_8bit")?;
    if four == eight {
        let v = format!("load_in_4bit={four}, load_in_8bit={eight}");
        return Err(CoreError::invalid_msg(
            "quantization_config.load_in_4bit",
            v,
            Msg::new("fix-quant-bnb-bits"),
        ));
    }
    skip_modules(qc)?;
    if eight {
        return Ok(WeightFormat::Bnb8 {
            row: in_features.max(1),
        });
    }
    let kind = qc.get("bnb_4bit_quant_type").filter(|v| !v.is_null());
    if let Some(k) = kind.filter(|k| !matches!(k.as_str(), Some("nf4" | "fp4"))) {
        return Err(CoreError::invalid_msg(
            "quantization_config.bnb_4bit_quant_type",
            short(k),
            Msg::new("fix-quant-bnb-type"),
        ));
    }
    let storage = qc.get("bnb_4bit_quant_storage").filter(|v| !v.is_null());
    Ok(WeightFormat::Bnb4 {
        double_quant: flag(qc, "bnb_4bit_use_double_quant")?,
        packed_uint8: storage.is_none_or(|v| v.as_str() == Some("uint8")),
    })
}

/// `llm_int8_skip_modules`, when given, is a list of module names.
fn skip_modules(qc: &Map<String, Value>) -> Result<(), CoreError> {
    let Some(v) = qc.get("llm_int8_skip_modules").filter(|v| !v.is_null()) else {
        return Ok(());
    };
    let ok = v.as_array().is_some_and(|a| a.iter().all(Value::is_string));
    if ok {
        Ok(())
    } else {
        Err(CoreError::invalid_msg(
            "quantization_config.llm_int8_skip_modules",
            short(v),
            Msg::new("fix-quant-skip-modules"),
        ))
    }
}

/// Names in `llm_int8_skip_modules` that address decoder-layer linears: a `layers.<n>` path or a
/// projection / block name. Those gpuplan already keeps 16-bit are not listed: `lm_head`, the
/// embeddings, routers (`mlp.gate`), vision towers and projectors (outside the quantised decoder
/// linears, `infer::quantized_params`).
pub const DECODER_LINEAR_NAMES: &[&str] = &[
    "q_proj",
    "k_proj",
    "v_proj",
    "o_proj",
    "qkv_proj",
    "gate_proj",
    "up_proj",
    "down_proj",
    "self_attn",
    "mlp",
    "experts",
    "layers.",
];

/// Module names of a vision encoder and its projector into the language model (LLaVA
/// `vision_tower`, `multi_modal_projector`; Mllama `vision_model`; Qwen2-VL `visual`,
/// `visual.merger`): gpuplan keeps these 16-bit already (outside the quantised decoder linears,
/// `infer::quantized_params`), though their paths contain `layers.` or `mlp`.
pub const VISION_NAMES: &[&str] = &[
    "vision_model",
    "vision_tower",
    "visual",
    "merger",
    "projector",
];

/// A bitsandbytes checkpoint's `llm_int8_skip_modules` entries that keep decoder-layer linears
/// 16-bit ([`DECODER_LINEAR_NAMES`]; `mlp.gate`, a router, and vision-tower names,
/// [`VISION_NAMES`], excepted): gpuplan sizes every decoder linear at the checkpoint's bits, so
/// these are named in a note rather than modelled.
pub fn skipped_linears(obj: &Map<String, Value>) -> Vec<String> {
    let qc = obj.get("quantization_config").and_then(Value::as_object);
    let Some(qc) =
        qc.filter(|q| q.get("quant_method").and_then(Value::as_str) == Some("bitsandbytes"))
    else {
        return Vec::new();
    };
    let names = qc.get("llm_int8_skip_modules").and_then(Value::as_array);
    names
        .into_iter()
        .flatten()
        .filter_map(Value::as_str)
        .filter(|n| !n.ends_with("mlp.gate") && !n.ends_with(".router"))
        .filter(|n| !VISION_NAMES.iter().any(|v| n.contains(v)))
        .filter(|n| DECODER_LINEAR_NAMES.iter().any(|d| n.contains(d)))
        .map(str::to_string)
        .collect()
}

/// The note on [`skipped_linears`] (`warn-bnb-skipped-linears`), naming up to four entries and
/// the count; only where the stored format is what gets sized (`sized_as_stored`: served as
/// stored, or the QLoRA base taken from the checkpoint, `train::base_from_checkpoint`): a
/// dequantized copy or another format has no skipped linears to under-count.
pub fn skipped_linears_note(m: &crate::model::ModelSpec, sized_as_stored: bool) -> Option<Msg> {
    let s = &m.checkpoint_skipped;
    if s.is_empty() || !sized_as_stored {
        return None;
    }
    let shown: Vec<&str> = s.iter().take(4).map(String::as_str).collect();
    Some(
        Msg::new("warn-bnb-skipped-linears")
            .arg("modules", shown.join(", "))
            .arg("count", s.len().to_string()),
    )
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

    fn stored(qc: &str) -> Result<Stored, CoreError> {
        let v: Value = serde_json::from_str(&format!("{{\"quantization_config\": {qc}}}")).unwrap();
        checkpoint_format(v.as_object().unwrap(), 4096)
    }

    fn read(qc: &str) -> Result<Option<WeightFormat>, CoreError> {
        Ok(match stored(qc)? {
            Stored::Format(f) => Some(f),
            Stored::Sixteen => None,
            Stored::Unread(m) => panic!("{m} unread"),
        })
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
            field(
                r#"{"quant_method": "bitsandbytes", "load_in_4bit": true, "load_in_8bit": true}"#
            ),
            "quantization_config.load_in_4bit"
        );
        assert_eq!(
            field(r#"{"quant_method": "bitsandbytes", "load_in_4bit": "yes"}"#),
            "quantization_config.load_in_4bit"
        );
        assert_eq!(
            field(
                r#"{"quant_method": "bitsandbytes", "load_in_4bit": true,
                "bnb_4bit_quant_type": "int4"}"#
            ),
            "quantization_config.bnb_4bit_quant_type"
        );
        assert_eq!(
            field(
                r#"{"quant_method": "bitsandbytes", "load_in_8bit": true,
                "llm_int8_skip_modules": "lm_head"}"#
            ),
            "quantization_config.llm_int8_skip_modules"
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

    /// transformers' serialised `BitsAndBytesConfig` (`to_dict()`), as the HF Hub's bnb
    /// checkpoints carry it: 4-bit NF4 with double quantisation (unsloth's `*-bnb-4bit`, the
    /// QLoRA recipe of PEFT/TRL), 4-bit FP4 without, and LLM.int8().
    #[test]
    fn bitsandbytes_configs_are_read() {
        let nf4_dq = r#"{"_load_in_4bit": true, "_load_in_8bit": false,
            "bnb_4bit_compute_dtype": "bfloat16", "bnb_4bit_quant_storage": "uint8",
            "bnb_4bit_quant_type": "nf4", "bnb_4bit_use_double_quant": true,
            "llm_int8_enable_fp32_cpu_offload": false, "llm_int8_has_fp16_weight": false,
            "llm_int8_skip_modules": null, "llm_int8_threshold": 6.0, "load_in_4bit": true,
            "load_in_8bit": false, "quant_method": "bitsandbytes"}"#;
        let f = read(nf4_dq).unwrap().unwrap();
        assert_eq!(
            f,
            WeightFormat::Bnb4 {
                double_quant: true,
                packed_uint8: true
            }
        );
        // 4 bits + an 8-bit absmax per 64 + an fp32 constant per 256 blocks (QLoRA §3: 0.127).
        assert!((f.bits() - 4.127).abs() < 0.001, "{}", f.bits());
        // FP4 without double quantisation: one fp32 absmax per 64 weights, 4.5 bits.
        let fp4 = r#"{"load_in_4bit": true, "bnb_4bit_quant_type": "fp4",
            "quant_method": "bitsandbytes", "llm_int8_skip_modules": ["lm_head"]}"#;
        let f = read(fp4).unwrap().unwrap();
        assert_eq!(f.bits(), 4.5);
        // FSDP-QLoRA's bf16 storage: the same bytes, not loadable by vLLM / SGLang.
        let bf16_storage = r#"{"load_in_4bit": true, "bnb_4bit_quant_storage": "bfloat16",
            "quant_method": "bitsandbytes"}"#;
        assert!(matches!(
            read(bf16_storage).unwrap(),
            Some(WeightFormat::Bnb4 {
                packed_uint8: false,
                ..
            })
        ));
        // LLM.int8(): int8 + one fp32 scale per row of 4096.
        let int8 = r#"{"_load_in_4bit": false, "_load_in_8bit": true,
            "bnb_4bit_compute_dtype": "bfloat16", "bnb_4bit_quant_storage": "uint8",
            "bnb_4bit_quant_type": "fp4", "bnb_4bit_use_double_quant": false,
            "llm_int8_skip_modules": null, "llm_int8_threshold": 6.0, "load_in_4bit": false,
            "load_in_8bit": true, "quant_method": "bitsandbytes"}"#;
        let f = read(int8).unwrap().unwrap();
        assert_eq!(f, WeightFormat::Bnb8 { row: 4096 });
        assert_eq!(f.bits(), 8.0 + 32.0 / 4096.0);
    }

    /// Another method is unread (named), not refused and not 16-bit.
    #[test]
    fn other_methods_are_unread() {
        for m in ["hqq", "eetq", "quanto", "aqlm"] {
            let qc = format!(r#"{{"quant_method": "{m}"}}"#);
            assert_eq!(stored(&qc).unwrap(), Stored::Unread(m.into()));
        }
        assert_eq!(stored("null").unwrap(), Stored::Sixteen);
    }

    /// `llm_int8_skip_modules` entries naming decoder-layer linears (as unsloth's dynamic quants
    /// write them) are kept for the note; lm_head, projectors and routers are already 16-bit.
    #[test]
    fn skipped_decoder_linears_are_listed() {
        let v: Value = serde_json::from_str(
            r#"{"quantization_config": {"quant_method": "bitsandbytes", "load_in_4bit": true,
            "llm_int8_skip_modules": ["lm_head", "multi_modal_projector", "merger",
            "model.layers.0.mlp.gate", "model.layers.1.mlp", "model.layers.3.self_attn.o_proj"]}}"#,
        )
        .unwrap();
        assert_eq!(
            skipped_linears(v.as_object().unwrap()),
            vec!["model.layers.1.mlp", "model.layers.3.self_attn.o_proj"]
        );
        let none: Value =
            serde_json::from_str(r#"{"quantization_config": {"quant_method": "bitsandbytes"}}"#)
                .unwrap();
        assert!(skipped_linears(none.as_object().unwrap()).is_empty());
    }

    /// Review r13 #4: a vision tower's or projector's layers (kept 16-bit by gpuplan already) are
    /// not counted though their paths hold `layers.` or `mlp`.
    #[test]
    fn vision_tower_modules_are_not_listed() {
        let v: Value = serde_json::from_str(
            r#"{"quantization_config": {"quant_method": "bitsandbytes", "load_in_4bit": true,
            "llm_int8_skip_modules": ["vision_tower.vision_model.encoder.layers.0.mlp.fc1",
            "model.vision_model.transformer.layers.5.self_attn.q_proj", "visual.blocks.0.mlp",
            "model.visual.merger.mlp.0", "multi_modal_projector.linear_1",
            "model.language_model.layers.2.mlp.down_proj"]}}"#,
        )
        .unwrap();
        assert_eq!(
            skipped_linears(v.as_object().unwrap()),
            vec!["model.language_model.layers.2.mlp.down_proj"]
        );
    }
}
