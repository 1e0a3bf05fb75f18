//! Rendering helpers shared by the commands: tables (width-aware, CJK-safe via comfy-table),
//! Markdown tables and JSON with a schema version.

use comfy_table::{presets, ContentArrangement, Table};
use serde::Serialize;

/// Version of every JSON document gpuplan prints (docs/json-schema.md).
pub const SCHEMA_VERSION: u32 = 1;

pub fn table(header: &[&str], rows: &[Vec<String>]) -> String {
    let mut t = Table::new();
    t.load_style(presets::UTF8_FULL_CONDENSED)
        .set_content_arrangement(ContentArrangement::Dynamic)
        .set_header(header.iter().copied());
    if let Some(w) = terminal_width() {
        t.set_width(w);
    }
    for r in rows {
        t.add_row(r.iter().cloned());
    }
    t.to_string()
}

/// Width from $COLUMNS when set (comfy-table without its tty feature cannot query the terminal).
fn terminal_width() -> Option<u16> {
    std::env::var("COLUMNS").ok()?.parse::<u16>().ok()
}

/// A table or a Markdown table followed by a newline, for reports that offer both.
pub fn block(md: bool, header: &[&str], rows: &[Vec<String>]) -> String {
    if md {
        format!("{}\n", markdown(header, rows))
    } else {
        format!("{}\n", table(header, rows))
    }
}

pub fn markdown(header: &[&str], rows: &[Vec<String>]) -> String {
    let esc = |s: &str| s.replace('|', "\\|").replace('\n', " ");
    let mut out = format!(
        "| {} |\n|{}|\n",
        header.join(" | "),
        header.iter().map(|_| "---").collect::<Vec<_>>().join("|")
    );
    for r in rows {
        out.push_str(&format!(
            "| {} |\n",
            r.iter().map(|c| esc(c)).collect::<Vec<_>>().join(" | ")
        ));
    }
    out
}

#[derive(Serialize)]
struct Envelope<'a, T: Serialize> {
    schema_version: u32,
    kind: &'a str,
    #[serde(flatten)]
    body: &'a T,
}

pub fn json<T: Serialize>(kind: &str, body: &T) -> anyhow::Result<String> {
    Ok(serde_json::to_string_pretty(&Envelope {
        schema_version: SCHEMA_VERSION,
        kind,
        body,
    })?)
}

pub fn gib(b: gpuplan_core::units::Bytes) -> String {
    format!("{:.2}", b.gib())
}

/// Control characters other than newline and tab, escaped as `\u001b` so that names read from
/// files (a model name in a config.json, an instance id) cannot drive the terminal. Inside JSON
/// strings the escape is the JSON escape of the same character, so JSON output keeps its meaning.
pub fn escape_controls(text: &str) -> std::borrow::Cow<'_, str> {
    let bad = |c: char| c.is_control() && c != '\n' && c != '\t';
    if !text.chars().any(bad) {
        return std::borrow::Cow::Borrowed(text);
    }
    let mut out = String::with_capacity(text.len() + 16);
    for c in text.chars() {
        if bad(c) {
            out.push_str(&format!("\\u{:04x}", u32::from(c)));
        } else {
            out.push(c);
        }
    }
    std::borrow::Cow::Owned(out)
}

/// Write to stdout; a closed pipe (`gpuplan models | head`) ends the program quietly (exit 0)
/// instead of panicking like `println!` does; any other write error exits with
/// [`crate::exit::WRITE_FAILED`].
pub fn emit(text: &str) {
    use std::io::Write;
    let text = escape_controls(text);
    let mut out = std::io::stdout().lock();
    if let Err(e) = out.write_all(text.as_bytes()).and_then(|_| out.flush()) {
        if e.kind() == std::io::ErrorKind::BrokenPipe {
            std::process::exit(0);
        }
        emit_err(&format!("error: cannot write output: {e}\n"));
        std::process::exit(i32::from(crate::exit::WRITE_FAILED));
    }
}

/// Write to stderr, escaping control characters; a closed or failing stderr is ignored (there is
/// nowhere left to report it), never a panic.
pub fn emit_err(text: &str) {
    use std::io::Write;
    let mut err = std::io::stderr().lock();
    let _ = err.write_all(escape_controls(text).as_bytes());
    let _ = err.flush();
}

/// Whether the command line asks for JSON output (`--format json` or `--format=json`), read from
/// the raw arguments so that even flags clap rejects get a JSON error object.
pub fn json_requested(args: impl Iterator<Item = String>) -> bool {
    let args: Vec<String> = args.collect();
    args.iter().any(|a| a == "--format=json")
        || args
            .windows(2)
            .any(|w| w[0] == "--format" && w[1] == "json")
}

/// The JSON error object printed on stdout with `--format json` (docs/json-schema.md).
pub fn json_error(code: u8, e: &anyhow::Error, field: Option<String>) -> serde_json::Value {
    use gpuplan_core::error::CoreError;
    let core = e.chain().find_map(|c| c.downcast_ref::<CoreError>());
    let kind = match core {
        Some(CoreError::Unknown { .. }) => "unknown_name",
        Some(CoreError::Parse { .. }) => "parse_error",
        Some(CoreError::MissingFields { .. }) => "missing_fields",
        _ => "bad_input",
    };
    serde_json::json!({
        "schema_version": SCHEMA_VERSION,
        "kind": "error",
        "error": {
            "code": code,
            "kind": kind,
            "message": format!("{e:#}").trim_start_matches("error: ").trim_end(),
            "field": field.or_else(|| core.and_then(CoreError::field).map(String::from)),
        }
    })
}

pub fn emit_json_error(code: u8, e: &anyhow::Error, field: Option<String>) {
    let v = json_error(code, e, field);
    emit(&format!(
        "{}\n",
        serde_json::to_string_pretty(&v).unwrap_or_default()
    ));
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn control_characters_are_escaped_but_newlines_and_tabs_kept() {
        assert_eq!(
            escape_controls("a\x1b[31mb\n\tc\r"),
            "a\\u001b[31mb\n\tc\\u000d"
        );
        assert_eq!(escape_controls("plain ¥ 中文"), "plain ¥ 中文");
    }

    #[test]
    fn json_error_names_the_field() {
        let e: anyhow::Error =
            gpuplan_core::error::CoreError::invalid("max_nodes", 0, "1–4096").into();
        let v = json_error(2, &e, None);
        assert_eq!(v["error"]["field"], "max_nodes");
        assert_eq!(v["error"]["code"], 2);
        assert_eq!(v["error"]["kind"], "bad_input");
        assert!(json_requested(
            ["x", "--format", "json"].map(String::from).into_iter()
        ));
        assert!(!json_requested(
            ["x", "--format", "table"].map(String::from).into_iter()
        ));
    }
}
