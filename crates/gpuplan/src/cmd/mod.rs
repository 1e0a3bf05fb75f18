//! One module per subcommand.

pub mod accuracy;
pub mod catalog;
pub mod estimate;
pub mod models;
pub mod plan;
pub mod prices;

use crate::cli::{Cli, Command};
use anyhow::{Context, Result};
use gpuplan_core::model::{find_preset, parse_hf_config, ModelSpec};
use std::path::Path;

pub fn run(cli: Cli) -> Result<u8> {
    let opts = CatalogOpts {
        extra: cli.catalogs.clone(),
        no_user: cli.no_user_catalog,
    };
    match cli.command {
        Command::Models { action, format } => models::run(action, format),
        Command::Catalog { action } => catalog::run(action, &opts),
        Command::Plan(args) => plan::run(*args, &opts),
        Command::Estimate(args) => estimate::run(*args, &opts),
        Command::Accuracy { cases, format } => accuracy::run(cases.as_deref(), format),
        Command::Prices(args) => prices::run(*args, &opts),
    }
}

/// The most bytes gpuplan reads from one input file (config.json, workload, catalog, provider
/// response). Large enough for a 100,000-row user catalog; a larger file is refused.
pub const MAX_INPUT_BYTES: u64 = 64 * 1024 * 1024;

/// Read a user-named input file: a regular file (or a link to one) of at most
/// [`MAX_INPUT_BYTES`], in UTF-8. Directories, FIFOs, sockets and devices are refused before they
/// are opened (opening a FIFO would block), and the read itself is bounded in case the file grows.
pub fn read_input(path: &Path, what: &str) -> Result<String> {
    use std::io::Read;
    let shown = path.display();
    let meta = std::fs::metadata(path).with_context(|| format!("cannot read {what} {shown}"))?;
    if meta.is_dir() {
        anyhow::bail!("{what} {shown} is a directory: give the path of a file");
    }
    if !meta.is_file() {
        anyhow::bail!(
            "{what} {shown} is not a regular file (a pipe, socket or device): save it to a file first"
        );
    }
    if meta.len() > MAX_INPUT_BYTES {
        anyhow::bail!(
            "{what} {shown} is {} bytes, over the {} MiB limit for one input file: split it",
            meta.len(),
            MAX_INPUT_BYTES / (1024 * 1024)
        );
    }
    let f = std::fs::File::open(path).with_context(|| format!("cannot read {what} {shown}"))?;
    let mut bytes = Vec::new();
    f.take(MAX_INPUT_BYTES + 1)
        .read_to_end(&mut bytes)
        .with_context(|| format!("cannot read {what} {shown}"))?;
    if bytes.len() as u64 > MAX_INPUT_BYTES {
        anyhow::bail!(
            "{what} {shown} grew past the {} MiB limit for one input file while being read",
            MAX_INPUT_BYTES / (1024 * 1024)
        );
    }
    String::from_utf8(bytes).map_err(|e| {
        anyhow::anyhow!(
            "{what} {shown} is not UTF-8 text (invalid byte at offset {}): save it as UTF-8",
            e.utf8_error().valid_up_to()
        )
    })
}

/// Read a HuggingFace config.json, or the config.json inside a directory.
pub fn load_config(path: &Path) -> Result<ModelSpec> {
    let file = if path.is_dir() {
        path.join("config.json")
    } else {
        path.to_path_buf()
    };
    let text = read_input(&file, "model config")?;
    let name = path
        .file_stem()
        .map(|s| s.to_string_lossy().to_string())
        .filter(|s| s != "config")
        .or_else(|| {
            path.parent()
                .and_then(|p| p.file_name())
                .map(|s| s.to_string_lossy().to_string())
        })
        .unwrap_or_else(|| "custom".into());
    let mut m = parse_hf_config(&name, &text).with_context(|| format!("in {}", file.display()))?;
    m.sources.push(file.display().to_string());
    Ok(m)
}

pub fn load_model(preset: Option<&str>, config: Option<&Path>) -> Result<ModelSpec> {
    match (preset, config) {
        (_, Some(p)) => load_config(p),
        (Some(name), None) => Ok(find_preset(name)?.model.clone()),
        (None, None) => anyhow::bail!("no model given: pass --model NAME (see `gpuplan models`) or --model-config PATH/config.json"),
    }
}

/// Parse a flag value through the same serde names the workload file uses, so both accept the
/// same words and errors name the field.
pub fn parse_word<T: serde::de::DeserializeOwned>(field: &str, value: &str) -> Result<T> {
    serde_json::from_value(serde_json::Value::String(value.to_string()))
        .map_err(|e| anyhow::anyhow!("invalid --{field} `{value}`: {e}"))
}

/// Where catalogs come from.
pub struct CatalogOpts {
    pub extra: Vec<std::path::PathBuf>,
    pub no_user: bool,
}

/// The user's config directory: $GPUPLAN_CONFIG_DIR, else $XDG_CONFIG_HOME/gpuplan, else
/// ~/.config/gpuplan.
pub fn config_dir() -> Option<std::path::PathBuf> {
    if let Some(d) = std::env::var_os("GPUPLAN_CONFIG_DIR") {
        return Some(d.into());
    }
    if let Some(d) = std::env::var_os("XDG_CONFIG_HOME") {
        return Some(std::path::PathBuf::from(d).join("gpuplan"));
    }
    std::env::var_os("HOME").map(|h| std::path::PathBuf::from(h).join(".config").join("gpuplan"))
}

/// User catalog files: `<config dir>/catalog/*.toml`, sorted by name.
pub fn user_catalog_files() -> Vec<std::path::PathBuf> {
    let Some(dir) = config_dir().map(|d| d.join("catalog")) else {
        return Vec::new();
    };
    let mut v: Vec<_> = std::fs::read_dir(dir)
        .map(|rd| {
            rd.filter_map(|e| e.ok().map(|e| e.path()))
                .filter(|p| p.extension().is_some_and(|x| x == "toml"))
                .collect()
        })
        .unwrap_or_default();
    v.sort();
    v
}

pub fn read_catalog_file(p: &Path) -> Result<gpuplan_core::catalog::CatalogFile> {
    let text = read_input(p, "catalog file")?;
    Ok(gpuplan_core::catalog::parse_catalog_file(
        &p.display().to_string(),
        &text,
    )?)
}

/// Built-in catalog, then user catalogs, then `--catalog` files.
pub fn load_catalog(opts: &CatalogOpts) -> Result<gpuplan_core::catalog::Catalog> {
    use gpuplan_core::catalog::{Catalog, Origin};
    let mut c = Catalog::builtin()?;
    let mut files = if opts.no_user {
        Vec::new()
    } else {
        user_catalog_files()
    };
    files.extend(opts.extra.iter().cloned());
    for p in files {
        let f = read_catalog_file(&p)?;
        let label = p.display().to_string();
        c.merge(f, Origin::User(label.clone()), &label);
    }
    Ok(c)
}

/// Write a file atomically: a temporary file in the same directory, flushed, then renamed over
/// the target, so a crash or a bad import never leaves a half-written user catalog.
pub fn write_atomic(path: &Path, contents: &str) -> Result<()> {
    use std::io::Write;
    let dir = path
        .parent()
        .filter(|d| !d.as_os_str().is_empty())
        .unwrap_or(Path::new("."));
    std::fs::create_dir_all(dir).with_context(|| format!("cannot create {}", dir.display()))?;
    let tmp = dir.join(format!(
        ".{}.tmp-{}",
        path.file_name()
            .map(|n| n.to_string_lossy().to_string())
            .unwrap_or_default(),
        std::process::id()
    ));
    let result = (|| -> std::io::Result<()> {
        let mut f = std::fs::File::create(&tmp)?;
        f.write_all(contents.as_bytes())?;
        f.sync_all()?;
        std::fs::rename(&tmp, path)
    })();
    if result.is_err() {
        let _ = std::fs::remove_file(&tmp);
    }
    result.with_context(|| format!("cannot write {}", path.display()))
}

/// The workload file named by `--workload`, or an empty one.
pub fn read_workload(j: &crate::cli::JobArgs) -> Result<gpuplan_core::job::WorkloadFile> {
    match &j.workload {
        Some(p) => {
            let text = read_input(p, "workload file")?;
            Ok(gpuplan_core::job::parse_workload(
                &p.display().to_string(),
                &text,
            )?)
        }
        None => Ok(Default::default()),
    }
}

/// Apply the shared training flags over a setup from the workload file.
pub fn apply_training_flags(
    t: &mut gpuplan_core::workload::TrainingSetup,
    j: &crate::cli::JobArgs,
) -> Result<()> {
    use crate::cli::TaskArg;
    use gpuplan_core::workload::TrainTask;
    match j.task {
        Some(TaskArg::Pretrain) => t.task = TrainTask::Pretrain,
        Some(TaskArg::Full) => t.task = TrainTask::FullFinetune,
        Some(TaskArg::Lora) => t.task = TrainTask::Lora,
        Some(TaskArg::Qlora) => t.task = TrainTask::Qlora,
        Some(TaskArg::Inference) | None => {}
    }
    if let Some(x) = j.seq_len {
        t.seq_len = x;
    }
    if j.tokens.is_some() {
        t.tokens = j.tokens;
    }
    if j.samples.is_some() {
        t.samples = j.samples;
    }
    if j.epochs.is_some() {
        t.epochs = j.epochs;
    }
    if let Some(v) = &j.precision {
        t.precision = parse_word("precision", v)?;
    }
    if let Some(v) = &j.optimizer {
        t.optimizer = parse_word("optimizer", v)?;
    }
    if let Some(v) = &j.profile {
        t.framework = parse_word("profile", v)?;
    }
    if let Some(r) = j.lora_rank {
        t.lora.rank = r;
    }
    if let Some(v) = &j.lora_targets {
        t.lora.targets = v
            .split(',')
            .map(|s| s.trim().to_string())
            .filter(|s| !s.is_empty())
            .collect();
    }
    Ok(())
}

/// Apply `--set NAME=VALUE` overrides.
pub fn apply_sets(tun: &mut gpuplan_core::constants::Tunables, sets: &[String]) -> Result<()> {
    for kv in sets {
        let (k, v) = kv.split_once('=').with_context(|| {
            format!("--set `{kv}`: expected NAME=VALUE, e.g. --set fragmentation=0.05")
        })?;
        let v: f64 = v
            .trim()
            .parse()
            .with_context(|| format!("--set {k}: `{v}` is not a number"))?;
        tun.set(k.trim(), v)?;
    }
    Ok(tun.validate()?)
}
