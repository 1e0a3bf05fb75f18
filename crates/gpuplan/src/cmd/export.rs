//! `gpuplan export PLAN.json --to DIR` and the `plan --export DIR` hook: read the plan document,
//! build the bundle (crate::export), write it.

use crate::cli::ExportArgs;
use anyhow::{Context, Result};
use std::path::Path;

pub fn run(a: &ExportArgs) -> Result<u8> {
    let text = super::read_input(&a.plan, "plan file")?;
    let doc: serde_json::Value = serde_json::from_str(&text).with_context(|| {
        format!(
            "{} is not JSON: export reads the output of `gpuplan plan --format json`",
            a.plan.display()
        )
    })?;
    write_doc(&doc, a.pick, &a.to, a.force)?;
    Ok(0)
}

/// Build the bundle of plan `pick` of `doc` and write it into `dir`.
pub fn write_doc(doc: &serde_json::Value, pick: usize, dir: &Path, force: bool) -> Result<()> {
    let view = crate::export::from_document(doc, pick)?;
    let files = crate::export::bundle(&view)?;
    let written = crate::export::write(dir, &files, force)?;
    eprintln!(
        "exported plan #{pick} ({} × {}) to {}: {} files; start with README.txt",
        view.nodes,
        view.instance,
        dir.display(),
        written.len()
    );
    Ok(())
}
