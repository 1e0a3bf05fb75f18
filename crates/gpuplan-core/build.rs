//! Embeds every Fluent file of `locales/<lang>/*.ftl` (see `src/i18n.rs`): the list is generated
//! at build time so that a new file (e.g. `web.ftl`) is picked up without a code change, and the
//! library itself stays free of I/O.

use std::fmt::Write as _;
use std::path::Path;

fn main() {
    // The manifest directory of this build, read when the script runs: `env!` would bake in
    // the directory the script was compiled in, and a target directory copied from another
    // checkout would then embed that checkout's catalog.
    let manifest = std::env::var("CARGO_MANIFEST_DIR").expect("CARGO_MANIFEST_DIR");
    let root = Path::new(&manifest).join("locales");
    println!("cargo:rerun-if-changed={}", root.display());
    let mut files = Vec::new();
    for lang in ["en", "zh"] {
        let dir = root.join(lang);
        println!("cargo:rerun-if-changed={}", dir.display());
        let entries = std::fs::read_dir(&dir).unwrap_or_else(|e| panic!("{}: {e}", dir.display()));
        for e in entries.flatten() {
            let p = e.path();
            if p.extension().is_some_and(|x| x == "ftl") {
                println!("cargo:rerun-if-changed={}", p.display());
                let name = p
                    .file_name()
                    .map(|n| n.to_string_lossy().into_owned())
                    .unwrap_or_default();
                files.push((lang, name, p));
            }
        }
    }
    files.sort();
    let mut src = String::from("/// (language, file name, contents) of every embedded Fluent file.\npub static FILES: &[(&str, &str, &str)] = &[\n");
    for (lang, name, path) in &files {
        let _ = writeln!(
            src,
            "    ({lang:?}, {name:?}, include_str!({:?})),",
            path.display().to_string()
        );
    }
    src.push_str("];\n");
    let out = Path::new(&std::env::var("OUT_DIR").expect("OUT_DIR")).join("locales.rs");
    std::fs::write(&out, src).unwrap_or_else(|e| panic!("{}: {e}", out.display()));
    published_cases(Path::new(&manifest));
}

/// The published cases' identity (id, kind, model preset, GPU, serving weight format) and whether
/// each is a recorded known deviation, from `cases/*.toml` (generated files, one `key = "value"` per line), for
/// `plan::published` (expert r16 #5). A checkout without the cases directory embeds none.
fn published_cases(manifest: &Path) {
    let dir = manifest.join("../../cases");
    println!("cargo:rerun-if-changed={}", dir.display());
    // Whether the cases were there to read (a packaged crate has none): `plan::published`
    // reports the state instead of counting no rows as "no misses" (audit r17 #5).
    let present = dir.is_dir();
    let mut rows = Vec::new();
    for e in std::fs::read_dir(&dir).into_iter().flatten().flatten() {
        let p = e.path();
        if p.extension().is_none_or(|x| x != "toml") {
            continue;
        }
        println!("cargo:rerun-if-changed={}", p.display());
        let text = std::fs::read_to_string(&p).unwrap_or_default();
        let first = |key: &str| {
            text.lines()
                .find_map(|l| {
                    l.strip_prefix(key)?
                        .strip_prefix(" = \"")?
                        .split('"')
                        .next()
                })
                .unwrap_or_default()
                .to_string()
        };
        let miss = text.lines().any(|l| l.starts_with("known_deviation = "));
        // A serving case's weight format: `format` of its `[workload.inference.weights]`
        // table, empty when the engine loads the model's own 16-bit weights.
        let weights = text
            .split("[workload.inference.weights]")
            .nth(1)
            .and_then(|t| {
                t.lines()
                    .take_while(|l| !l.starts_with('['))
                    .find_map(|l| l.strip_prefix("format = \"")?.split('"').next())
            })
            .unwrap_or_default()
            .to_string();
        let (id, kind, model, gpu) = (first("id"), first("kind"), first("model"), first("gpu"));
        rows.push((id, kind, model, gpu, weights, miss));
    }
    rows.sort();
    let mut src = format!("/// Whether cases/ was present when this crate was built.\npub static CASES_PRESENT: bool = {present};\n");
    src.push_str("/// (id, kind, model, gpu, serving weight format, known deviation) of every case in\n/// cases/.\npub static CASES: &[(&str, &str, &str, &str, &str, bool)] = &[\n");
    for (id, kind, model, gpu, weights, miss) in &rows {
        let _ = writeln!(
            src,
            "    ({id:?}, {kind:?}, {model:?}, {gpu:?}, {weights:?}, {miss}),"
        );
    }
    src.push_str("];\n");
    let out = Path::new(&std::env::var("OUT_DIR").expect("OUT_DIR")).join("published_cases.rs");
    std::fs::write(&out, src).unwrap_or_else(|e| panic!("{}: {e}", out.display()));
}
