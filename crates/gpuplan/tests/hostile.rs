//! The hostile-input corpus: every file in `tests/hostile/*.toml` lists cases (flags, workload
//! files, config.json files, catalogs, provider responses) with the exit code and a fragment of
//! the message each must produce. Every case, whatever it expects, must also never panic, never
//! print NaN/inf or negative money, and never leave temporary files behind.
//!
//! Case format (see tests/hostile/README.md):
//! ```toml
//! [[case]]
//! name = "negative rate"
//! args = ["plan", "-m", "Qwen2.5-7B", "--task", "inference", "--rate", "-1"]
//! exit = 2
//! stderr = "--rate"            # optional: fragment of stderr (case-insensitive)
//! stdout = "..."               # optional: fragment of stdout (case-insensitive)
//! files = { "w.toml" = "..." } # optional: written into the case's folder, {dir} in args
//! fifos = ["pipe"]             # optional: named pipes made in the case's folder
//! env = { LANG = "zh_CN.UTF-8" } # optional
//! ```

mod common;
use serde::Deserialize;
use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct CaseFile {
    case: Vec<Case>,
}

#[derive(Deserialize, Clone)]
#[serde(deny_unknown_fields)]
struct Case {
    name: String,
    args: Vec<String>,
    exit: i32,
    #[serde(default)]
    stderr: Option<String>,
    #[serde(default)]
    stdout: Option<String>,
    #[serde(default)]
    files: BTreeMap<String, String>,
    #[serde(default)]
    fifos: Vec<String>,
    #[serde(default)]
    env: BTreeMap<String, String>,
}

fn corpus_dir() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/hostile")
}

fn load() -> Vec<(String, Case)> {
    let mut files: Vec<PathBuf> = std::fs::read_dir(corpus_dir())
        .expect("tests/hostile exists")
        .filter_map(|e| e.ok().map(|e| e.path()))
        .filter(|p| p.extension().is_some_and(|x| x == "toml"))
        .collect();
    files.sort();
    let mut out = Vec::new();
    for f in files {
        let text = std::fs::read_to_string(&f).expect("corpus file readable");
        let cf: CaseFile = toml::from_str(&text)
            .unwrap_or_else(|e| panic!("corpus file {} does not parse: {e}", f.display()));
        let stem = f
            .file_stem()
            .unwrap_or_default()
            .to_string_lossy()
            .to_string();
        for c in cf.case {
            out.push((stem.clone(), c));
        }
    }
    out
}

/// Whether the text shows a number that is not one: NaN, infinity, or a negative amount of money.
/// A word in quotes (`'nan'`, `` `nan` ``, `"nan"`) is the user's own input echoed in an error
/// message, not a computed number, and does not count.
fn shows_non_number(s: &str) -> Option<&'static str> {
    let quote = |c: char| matches!(c, '\'' | '`' | '"');
    let lower = s.to_lowercase();
    for (needle, what) in [
        ("nan", "NaN"),
        ("¥-", "negative money"),
        ("-¥", "negative money"),
        ("inf ", "infinity"),
        ("inf\n", "infinity"),
        ("infinity", "infinity"),
    ] {
        // Whole words only: "nan" inside "financial" or "nanjing" is fine.
        let mut from = 0;
        while let Some(pos) = lower[from..].find(needle) {
            let at = from + pos;
            let before = lower[..at].chars().next_back();
            let after = lower[at + needle.len()..].chars().next();
            let word_start = !needle.starts_with(|c: char| c.is_alphabetic())
                || before.is_none_or(|c| !c.is_alphanumeric());
            let word_end = !needle.ends_with(|c: char| c.is_alphabetic())
                || after.is_none_or(|c| !c.is_alphanumeric());
            let quoted = before.is_some_and(quote);
            if word_start && word_end && !quoted {
                return Some(what);
            }
            from = at + needle.len();
        }
    }
    None
}

fn run_case(file: &str, index: usize, c: &Case, root: &Path) -> Result<(), String> {
    // Numbered, not named after the case: a name such as "rank = nan" in the path would show up
    // in error messages and trip the NaN detector.
    let dir = root.join(format!("{file}-{index}"));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(dir.join("cfg")).map_err(|e| e.to_string())?;
    let d = dir.display().to_string();
    for (name, content) in &c.files {
        let p = dir.join(name);
        if let Some(parent) = p.parent() {
            std::fs::create_dir_all(parent).map_err(|e| e.to_string())?;
        }
        std::fs::write(&p, content.replace("{dir}", &d)).map_err(|e| e.to_string())?;
    }
    for f in &c.fifos {
        let st = Command::new("mkfifo")
            .arg(dir.join(f))
            .status()
            .map_err(|e| e.to_string())?;
        if !st.success() {
            return Err(format!("mkfifo {f} failed"));
        }
    }
    let args: Vec<String> = c.args.iter().map(|a| a.replace("{dir}", &d)).collect();
    let mut cmd = Command::new(env!("CARGO_BIN_EXE_gpuplan"));
    cmd.args(&args)
        .env("GPUPLAN_CONFIG_DIR", dir.join("cfg"))
        .env_remove("LANG")
        .env_remove("LC_ALL")
        .env_remove("LC_MESSAGES")
        .env_remove("COLUMNS")
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped());
    for (k, v) in &c.env {
        cmd.env(k, v.replace("{dir}", &d));
    }
    let child = cmd.spawn().map_err(|e| e.to_string())?;
    let start = Instant::now();
    let out = child.wait_with_output().map_err(|e| e.to_string())?;
    let took = start.elapsed();
    let stdout = String::from_utf8_lossy(&out.stdout);
    let stderr = String::from_utf8_lossy(&out.stderr);
    let code = out.status.code().unwrap_or(-1);
    let show = || format!("args {args:?}\n--- stdout\n{stdout}\n--- stderr\n{stderr}");
    if stderr.contains("panicked") || code == 101 {
        return Err(format!("panicked (exit {code})\n{}", show()));
    }
    if code != c.exit {
        return Err(format!("exit {code}, expected {}\n{}", c.exit, show()));
    }
    if let Some(frag) = &c.stderr {
        if !stderr.to_lowercase().contains(&frag.to_lowercase()) {
            return Err(format!("stderr lacks `{frag}`\n{}", show()));
        }
    }
    if let Some(frag) = &c.stdout {
        if !stdout.to_lowercase().contains(&frag.to_lowercase()) {
            return Err(format!("stdout lacks `{frag}`\n{}", show()));
        }
    }
    for (what, text) in [("stdout", &stdout), ("stderr", &stderr)] {
        if let Some(bad) = shows_non_number(text) {
            return Err(format!("{what} shows {bad}\n{}", show()));
        }
    }
    if took > Duration::from_secs(60) {
        return Err(format!("took {took:?}\n{}", show()));
    }
    // The same failure in Chinese (issue 13): same exit code, no English sentence left. Kept
    // apart from the other checks (see ZH_LEFT_MAX).
    if c.fifos.is_empty() {
        if let Err(e) = common::zh_problems(&cmd, out.status.code()) {
            return Err(format!("{ZH_MARK}{e}"));
        }
    }
    // No temporary files left in the config directory.
    let leftovers: Vec<String> = walk(&dir.join("cfg"))
        .into_iter()
        .filter(|p| p.contains(".tmp"))
        .collect();
    if !leftovers.is_empty() {
        return Err(format!("temporary files left: {leftovers:?}\n{}", show()));
    }
    let _ = std::fs::remove_dir_all(&dir);
    Ok(())
}

fn walk(d: &Path) -> Vec<String> {
    let mut out = Vec::new();
    if let Ok(rd) = std::fs::read_dir(d) {
        for e in rd.flatten() {
            let p = e.path();
            if p.is_dir() {
                out.extend(walk(&p));
            } else {
                out.push(p.display().to_string());
            }
        }
    }
    out
}

/// Marks a failure that is only the Chinese rerun's (English left in the zh output).
const ZH_MARK: &str = "[zh] ";

/// Hostile cases whose Chinese error still holds an English sentence: a ratchet, lowered as the
/// remaining messages move into the catalog. Measured 2026-12-05: 0 of 1596 (2026-12-03: 0 of 1434; 741 before
/// issue 13's error work, 25 before the parser and provider-response phrases of phrases.ftl, 1
/// before clap's help came from the catalog, help.ftl). Run
/// `cargo test -p gpuplan --test hostile -- --nocapture` and read the `[zh]` lines to see them.
/// Any other failure, and a zh failure beyond this count, fails the test; an exit code that
/// differs between the languages always fails.
const ZH_LEFT_MAX: usize = 0;

#[test]
fn hostile_corpus() {
    let cases = load();
    let root = common::scratch().join(format!("gpuplan-hostile-{}", std::process::id()));
    let mut failures = Vec::new();
    let mut names = std::collections::BTreeSet::new();
    for (file, c) in &cases {
        if !names.insert(format!("{file}/{}", c.name)) {
            failures.push(format!("{file}/{}: duplicate case name", c.name));
        }
    }
    // Cases are independent (each has its own folder): run them on a few threads.
    let threads = std::thread::available_parallelism().map_or(2, |n| n.get().clamp(2, 4));
    let next = std::sync::atomic::AtomicUsize::new(0);
    let found = std::sync::Mutex::new(Vec::new());
    std::thread::scope(|s| {
        for _ in 0..threads {
            s.spawn(|| loop {
                let index = next.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
                let Some((file, c)) = cases.get(index) else {
                    break;
                };
                if let Err(e) = run_case(file, index, c, &root) {
                    if let Ok(mut f) = found.lock() {
                        f.push((index, format!("{file}/{}: {e}", c.name)));
                    }
                }
            });
        }
    });
    let mut found = found.into_inner().unwrap_or_default();
    found.sort();
    let (zh, other): (Vec<_>, Vec<_>) = found
        .into_iter()
        .partition(|(_, e)| e.contains(ZH_MARK) && !e.contains(", in en "));
    failures.extend(other.into_iter().map(|(_, e)| e));
    let _ = std::fs::remove_dir_all(&root);
    eprintln!(
        "hostile: {} of {} cases still show English in Chinese (at most {ZH_LEFT_MAX} allowed)",
        zh.len(),
        cases.len()
    );
    for (_, e) in &zh {
        eprintln!("{e}\n");
    }
    assert!(
        zh.len() == ZH_LEFT_MAX,
        "{} hostile cases show English in their Chinese output (at most {ZH_LEFT_MAX}): see above",
        zh.len()
    );
    assert!(
        failures.is_empty(),
        "{} of {} hostile cases failed:\n\n{}",
        failures.len(),
        cases.len(),
        failures.join("\n\n")
    );
}

#[test]
fn the_detector_sees_nan_and_negative_money_but_not_words() {
    assert_eq!(shows_non_number("cost ¥NaN"), Some("NaN"));
    assert_eq!(shows_non_number("cost ¥-970"), Some("negative money"));
    assert_eq!(shows_non_number("time inf h"), Some("infinity"));
    assert_eq!(shows_non_number("financial plan in Nanjing"), None);
    assert_eq!(shows_non_number("information"), None);
    assert_eq!(
        shows_non_number("invalid value 'nan' for '--seq-len <SEQ_LEN>'"),
        None
    );
    assert_eq!(shows_non_number("--deadline `nan` must be positive"), None);
}
