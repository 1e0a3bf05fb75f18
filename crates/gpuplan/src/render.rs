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

/// Write to stdout; a closed pipe (`gpuplan models | head`) ends the program quietly instead of
/// panicking like `println!` does.
pub fn emit(text: &str) {
    use std::io::Write;
    let mut out = std::io::stdout().lock();
    if let Err(e) = out.write_all(text.as_bytes()).and_then(|_| out.flush()) {
        if e.kind() == std::io::ErrorKind::BrokenPipe {
            std::process::exit(0);
        }
        eprintln!("error: cannot write output: {e}");
        std::process::exit(1);
    }
}
