//! Errors of the core. Each names the offending field, the value and what to do about it.

use thiserror::Error;

/// The value an [`CoreError::InvalidField`] names when none was given.
pub const MISSING: &str = "(missing)";

#[derive(Debug, Error, Clone, PartialEq)]
pub enum CoreError {
    /// A field has a value the estimator cannot use.
    #[error("invalid `{field}` = {value}: {fix}")]
    InvalidField {
        field: String,
        value: String,
        /// What to do, in English.
        fix: String,
        /// The same as a catalog message (`locales/*/errors.ftl`), for rendering in the user's
        /// language; `None` where the fix exists only in English.
        fix_msg: Option<crate::i18n::Msg>,
    },
    /// A model config lacks fields the estimator needs.
    #[error("model config is missing {}: add {} to config.json (or use a preset: `gpuplan models`)", list(.fields), plural(.fields))]
    MissingFields { fields: Vec<String> },
    /// A name that is not in a table.
    #[error("unknown {kind} `{}`{}{}", shorten(.name.clone()), suggest(.suggestions), note_en(.note))]
    Unknown {
        kind: String,
        name: String,
        suggestions: Vec<String>,
        /// What is true instead, in both languages (a name from the blog posts that is wrong).
        note: Option<Box<crate::i18n::Text>>,
    },
    /// A data file or document that does not parse.
    #[error("{what}: {message}")]
    Parse { what: String, message: String },
}

fn note_en(note: &Option<Box<crate::i18n::Text>>) -> String {
    note.as_ref()
        .map(|t| format!(": {}", t.en))
        .unwrap_or_default()
}

fn list(fields: &[String]) -> String {
    fields
        .iter()
        .map(|f| format!("`{f}`"))
        .collect::<Vec<_>>()
        .join(", ")
}

fn plural(fields: &[String]) -> &'static str {
    if fields.len() == 1 {
        "it"
    } else {
        "them"
    }
}

fn suggest(s: &[String]) -> String {
    if s.is_empty() {
        String::new()
    } else {
        format!("; did you mean {}?", s.join(", "))
    }
}

impl CoreError {
    /// An invalid field with its fix in English; the fix is rendered in the user's language
    /// when the catalog holds a `fix-*` message of exactly this English text (see
    /// [`crate::i18n::fixed_text`]).
    pub fn invalid(field: &str, value: impl ToString, fix: &str) -> CoreError {
        CoreError::InvalidField {
            field: field.to_string(),
            value: show_value(value.to_string()),
            fix: fix.to_string(),
            fix_msg: crate::i18n::fixed_text(fix),
        }
    }

    /// An invalid field whose fix is a catalog message (renderable in every language).
    pub fn invalid_msg(field: &str, value: impl ToString, fix: crate::i18n::Msg) -> CoreError {
        CoreError::InvalidField {
            field: field.to_string(),
            value: show_value(value.to_string()),
            fix: fix.render(crate::i18n::Lang::En),
            fix_msg: Some(fix),
        }
    }

    /// The error as a catalog message, for rendering in the user's language.
    pub fn message(&self) -> crate::i18n::Msg {
        use crate::i18n::Msg;
        match self {
            // A value not given at all reads "`training.tokens` is missing", not "invalid
            // `training.tokens` = (missing)" (audit r9 #16: zh "的值 (missing) 无效").
            CoreError::InvalidField {
                field,
                value,
                fix,
                fix_msg,
            } if value == MISSING => Msg::new("err-missing-value")
                .arg("field", field.as_str())
                .arg("fix", fix_msg.clone().unwrap_or_else(|| Msg::raw(fix))),
            CoreError::InvalidField {
                field,
                value,
                fix,
                fix_msg,
            } => Msg::new("err-invalid-field")
                .arg("field", field.as_str())
                .arg("value", value.as_str())
                .arg("fix", fix_msg.clone().unwrap_or_else(|| Msg::raw(fix))),
            CoreError::MissingFields { fields } => Msg::new("err-missing-fields")
                .arg("fields", list(fields))
                .arg("n", fields.len()),
            CoreError::Unknown {
                kind,
                name,
                suggestions,
                note,
            } => Msg::new("err-unknown")
                .arg("kind", crate::i18n::names::kind(kind))
                .arg("name", shorten(name.clone()))
                .arg(
                    "note",
                    match note {
                        Some(t) => crate::i18n::Arg::PerLang {
                            en: t.en.clone(),
                            zh: t.zh.clone(),
                        },
                        None => crate::i18n::Arg::Str("none".to_string()),
                    },
                )
                .arg(
                    "suggestions",
                    if suggestions.is_empty() {
                        crate::i18n::Arg::Str("none".to_string())
                    } else {
                        // Each language's list separator (`, ` / `、`).
                        let sep = |l| crate::i18n::text(l, "plan-list-sep");
                        crate::i18n::Arg::PerLang {
                            en: suggestions.join(&sep(crate::i18n::Lang::En)),
                            zh: suggestions.join(&sep(crate::i18n::Lang::Zh)),
                        }
                    },
                ),
            CoreError::Parse { what, message } => Msg::new("err-parse")
                .arg("what", what.as_str())
                .arg("message", message.as_str()),
        }
    }

    /// The field an error is about, when it names one (for machine-readable errors).
    pub fn field(&self) -> Option<&str> {
        match self {
            CoreError::InvalidField { field, .. } => Some(field),
            CoreError::MissingFields { fields } => fields.first().map(String::as_str),
            // The key an unknown model name came from (audit r8 #15: the API said `null`).
            CoreError::Unknown { kind, .. } if kind == "model" => Some("model"),
            _ => None,
        }
    }
}

/// A value as shown in an error: NaN and infinities are spelled out in words, so no message ever
/// shows them as if they were numbers; a number longer than [`MAX_SHOWN_NUMBER`] characters
/// (1e308 printed in full has 309 digits) in scientific notation; any other value longer than
/// [`MAX_SHOWN_CHARS`] characters cut there with "…" (a 10 MB model name was echoed whole, on
/// stderr and in the API's error body).
pub fn show_value(v: String) -> String {
    match v.as_str() {
        "NaN" | "-NaN" => "not-a-number".into(),
        "inf" => "infinite".into(),
        "-inf" => "minus infinite".into(),
        _ => shorten(v),
    }
}

/// Longest number shown digit for digit (u64::MAX has 20).
pub const MAX_SHOWN_NUMBER: usize = 24;
/// Longest name or value an error quotes whole.
pub const MAX_SHOWN_CHARS: usize = 120;

/// See [`show_value`]: long numbers in scientific notation, long text cut with "…".
pub fn shorten(v: String) -> String {
    if v.len() > MAX_SHOWN_NUMBER {
        if let Some(x) = v.parse::<f64>().ok().filter(|x| x.is_finite()) {
            return format!("{x:e}");
        }
    }
    match v.char_indices().nth(MAX_SHOWN_CHARS) {
        Some((at, _)) => format!("{}…", &v[..at]),
        None => v,
    }
}

/// Check that a float lies in `[min, max]` (NaN and infinities never do).
pub fn check_range(field: &str, v: f64, min: f64, max: f64, fix: &str) -> Result<(), CoreError> {
    if v.is_finite() && v >= min && v <= max {
        Ok(())
    } else {
        Err(CoreError::invalid(field, v, fix))
    }
}

/// Whole-number keys whose range check starts at 0 (`parallel.zero`'s stage 0, no images, no
/// layers kept in 16 bits); every other whole-number key of a workload, request or LoRA table
/// starts at 1 (the `check_int` calls in workload.rs and plan/inputs.rs).
const ZERO_ALLOWED: &[&str] = &["zero", "images_per_request", "keep_16bit_layers"];

/// The least value the whole-number key `path` (`training.micro_batch`, `serve.keep_16bit_layers[0]`)
/// accepts, for the words of a parser's "expected a whole number" (audit r8 #16).
pub fn int_minimum(path: &str) -> u64 {
    let last = path.rsplit('.').next().unwrap_or(path);
    let last = last.split('[').next().unwrap_or(last);
    u64::from(!ZERO_ALLOWED.contains(&last))
}

/// Check that an integer lies in `[min, max]`.
pub fn check_int(field: &str, v: u64, min: u64, max: u64, fix: &str) -> Result<(), CoreError> {
    if (min..=max).contains(&v) {
        Ok(())
    } else {
        Err(CoreError::invalid(field, v, fix))
    }
}

/// The word a unit enum is written as in workloads and JSON (its serde name), for messages.
pub fn serde_word<T: serde::Serialize>(v: &T) -> String {
    serde_json::to_value(v)
        .ok()
        .and_then(|x| x.as_str().map(str::to_string))
        .unwrap_or_default()
}

/// A list of names for a message argument: joined with ", ", or the word `none` (which the
/// messages select on) when there are none.
pub fn names_or_none<S: AsRef<str>>(names: &[S]) -> String {
    if names.is_empty() {
        "none".to_string()
    } else {
        names
            .iter()
            .map(AsRef::as_ref)
            .collect::<Vec<_>>()
            .join(", ")
    }
}

/// Names from `candidates` close to `name` (case-insensitive substring or small edit distance),
/// for "did you mean" hints; when none is, the nearest of those sharing the name's leading word
/// of three letters or more and half the name (`Qwen9` → the Qwen models, audit r8 #15: the API's 404 had none).
pub fn close_names<'a>(name: &str, candidates: impl Iterator<Item = &'a str>) -> Vec<String> {
    // Every name contains the empty one: a blank name is near nothing (audit r15 #7:
    // `--gpu ""` and `catalog show ""` suggested the first four names in the table).
    if name.trim().is_empty() {
        return Vec::new();
    }
    let candidates: Vec<&str> = candidates.collect();
    let near = near_names(name, &candidates);
    if !near.is_empty() {
        return near;
    }
    let needle = name.to_lowercase();
    let stem: String = needle
        .chars()
        .take_while(char::is_ascii_alphabetic)
        .collect();
    // The word must be most of the name (`Qwen9`), not a prefix every id shares (`ecs.`).
    if stem.len() < 3 || 2 * stem.len() < needle.len() {
        return Vec::new();
    }
    let mut scored: Vec<(usize, &str)> = candidates
        .iter()
        .filter(|c| c.to_lowercase().starts_with(&stem))
        .map(|c| (edit_distance(&needle, &c.to_lowercase()), *c))
        .collect();
    scored.sort();
    scored
        .into_iter()
        .take(4)
        .map(|(_, s)| s.to_string())
        .collect()
}

/// Most edits between a name and a "did you mean" suggestion.
const MAX_SUGGEST_EDITS: usize = 3;

/// [`close_names`]' first choice: substrings either way, or at most 3 edits.
fn near_names(name: &str, candidates: &[&str]) -> Vec<String> {
    let needle = name.to_lowercase();
    let needle_chars = needle.chars().count();
    let mut scored: Vec<(usize, String)> = candidates
        .iter()
        .filter_map(|c| {
            let lc = c.to_lowercase();
            if lc.contains(&needle) || needle.contains(&lc) {
                return Some((0, c.to_string()));
            }
            // The distance is at least the difference in length: names that differ by more
            // than 3 characters are not compared (a 1 MB name took a second in release, a
            // minute in a debug build).
            if needle_chars.abs_diff(lc.chars().count()) > MAX_SUGGEST_EDITS {
                return None;
            }
            let d = edit_distance(&needle, &lc);
            (d <= MAX_SUGGEST_EDITS).then(|| (d, c.to_string()))
        })
        .collect();
    scored.sort();
    scored.into_iter().take(4).map(|(_, s)| s).collect()
}

fn edit_distance(a: &str, b: &str) -> usize {
    let b: Vec<char> = b.chars().collect();
    let mut prev: Vec<usize> = (0..=b.len()).collect();
    for (i, ca) in a.chars().enumerate() {
        let mut cur = vec![i + 1; b.len() + 1];
        for (j, cb) in b.iter().enumerate() {
            let cost = usize::from(ca != *cb);
            cur[j + 1] = (prev[j] + cost).min(prev[j + 1] + 1).min(cur[j] + 1);
        }
        prev = cur;
    }
    prev[b.len()]
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_blank_name_is_near_nothing() {
        let names = ["a100-80g", "h100-sxm", "910b"];
        assert!(close_names("", names.iter().copied()).is_empty());
        assert!(close_names("  ", names.iter().copied()).is_empty());
        let near = close_names("a100", names.iter().copied());
        assert_eq!(near.first().map(String::as_str), Some("a100-80g"));
    }

    #[test]
    fn missing_fields_message_names_each_field() {
        let e = CoreError::MissingFields {
            fields: vec!["hidden_size".into(), "num_hidden_layers".into()],
        };
        let m = e.to_string();
        assert!(
            m.contains("`hidden_size`") && m.contains("`num_hidden_layers`"),
            "{m}"
        );
    }

    #[test]
    fn close_names_suggests_near_misses() {
        let c = ["Llama-3.1-8B", "Llama-3.1-70B", "Qwen2.5-7B"];
        let s = close_names("llama-3.1-8", c.iter().copied());
        assert_eq!(s.first().map(String::as_str), Some("Llama-3.1-8B"));
        assert!(close_names("zzzzzzzzzz", c.iter().copied()).is_empty());
    }
}
