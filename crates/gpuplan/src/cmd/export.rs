//! `gpuplan export PLAN.json --to DIR` and the `plan --export DIR` hook: read the plan document,
//! build the bundle (crate::export), write it.

use crate::cli::ExportArgs;
use crate::render::Localized;
use anyhow::{Context, Result};
use gpuplan_core::i18n::{Lang, Msg};
use std::path::Path;

pub fn run(a: &ExportArgs, lang: Lang) -> Result<u8> {
    let text = super::read_input(&a.plan, "plan file")?;
    let doc: serde_json::Value = serde_json::from_str(&text).with_context(|| {
        Localized(Msg::new("export-not-json").arg("path", a.plan.display().to_string()))
    })?;
    write_doc(&doc, a.pick, &a.to, a.force, lang)?;
    Ok(0)
}

/// Build the bundle of plan `pick` of `doc` and write it into `dir`.
pub fn write_doc(
    doc: &serde_json::Value,
    pick: usize,
    dir: &Path,
    force: bool,
    lang: Lang,
) -> Result<()> {
    let view = crate::export::from_document(doc, pick)?;
    let files = crate::export::bundle(&view, lang)?;
    let written = crate::export::write(dir, &files, force)?;
    let m = Msg::new("export-done")
        .arg("pick", pick as u64)
        .arg("nodes", view.nodes)
        .arg("instance", view.instance.as_str())
        .arg("dir", dir.display().to_string())
        .arg("n", written.len() as u64);
    eprintln!("{}", m.render(lang));
    if let Some(t) = &view.train {
        let launcher = crate::export::train::launcher_default(&view, t);
        let keys: Vec<String> = crate::export::train::not_carried(t, launcher)
            .iter()
            .filter_map(|k| k.render(Lang::En).split(' ').next().map(str::to_string))
            .collect();
        if !keys.is_empty() {
            let note = Msg::new("export-not-carried")
                .arg("launcher", launcher)
                .arg("keys", keys.join(", "));
            eprintln!("{}", note.render(lang));
        }
    }
    Ok(())
}
