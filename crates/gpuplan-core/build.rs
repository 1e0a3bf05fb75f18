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
}
