//! One module per subcommand.

pub mod accuracy;
mod accuracy_refit;
pub mod catalog;
pub mod estimate;
pub mod export;
mod inputs;
pub mod models;
pub mod plan;
pub mod userfiles;

pub use userfiles::write_atomic;
pub mod prices;

use crate::cli::{Cli, Command};
use anyhow::{Context, Result};
use gpuplan_core::catalog::validate::{Finding, Severity};
use gpuplan_core::catalog::{Catalog, CatalogFile, Origin};
use gpuplan_core::error::CoreError;
use gpuplan_core::i18n::Msg;
use gpuplan_core::model::{find_preset, parse_hf_config, ModelSpec};
use std::path::{Path, PathBuf};

pub fn run(cli: Cli) -> Result<u8> {
    prices::check_today()?;
    let opts = CatalogOpts {
        extra: cli.catalogs.clone(),
        no_user: cli.no_user_catalog,
        lang: crate::cli::Lang::resolve(cli.lang),
        wide: cli.wide,
    };
    match cli.command {
        Command::Models { action, format } => models::run(action, format),
        Command::Catalog { action } => catalog::run(action, &opts),
        Command::Plan(args) => plan::run(*args, &opts),
        Command::Estimate(args) => estimate::run(*args, &opts),
        Command::Export(args) => export::run(&args, opts.lang),
        Command::Accuracy { cases, format } => accuracy::run(
            cases.as_deref(),
            format,
            opts.lang,
            cli.lang.map(|l| crate::cli::Lang::resolve(Some(l))),
        ),
        Command::Prices(args) => prices::run(*args, &opts),
        Command::Completions { shell } => {
            let mut c = crate::cli::help::command(opts.lang);
            let mut buf = Vec::new();
            clap_complete::generate(shell, &mut c, "gpuplan", &mut buf);
            out!("{}", String::from_utf8_lossy(&buf));
            Ok(0)
        }
        Command::Man => {
            let mut buf = Vec::new();
            clap_mangen::Man::new(crate::cli::help::command(opts.lang))
                .render(&mut buf)
                .context("cannot render the man page")?;
            out!("{}", String::from_utf8_lossy(&buf));
            Ok(0)
        }
        Command::Serve(args) => crate::serve::run(args, &opts),
    }
}

/// The most bytes gpuplan reads from one input file (config.json, workload, catalog, provider
/// response). Large enough for a 100,000-row user catalog; a larger file is refused.
pub const MAX_INPUT_BYTES: u64 = 64 * 1024 * 1024;

/// Read a user-named input file: a regular file (or a link to one) of at most
/// [`MAX_INPUT_BYTES`], in UTF-8. Directories, FIFOs, sockets and devices are refused before they
/// are opened (opening a FIFO would block), and the read itself is bounded in case the file grows.
pub fn read_input(path: &Path, what: &str) -> Result<String> {
    use crate::render::fail;
    use std::io::Read;
    let shown = path.display().to_string();
    let err = |id: &'static str| {
        Msg::new(id)
            .arg("what", input_kind(what))
            .arg("file", shown.as_str())
    };
    let io = |e: std::io::Error| fail(err("input-err-unreadable").arg("why", io_reason(&e)));
    let meta = std::fs::metadata(path).map_err(io)?;
    if meta.is_dir() {
        return Err(fail(err("input-err-directory")));
    }
    if !meta.is_file() {
        return Err(fail(err("input-err-not-regular")));
    }
    let limit = MAX_INPUT_BYTES / (1024 * 1024);
    if meta.len() > MAX_INPUT_BYTES {
        return Err(fail(
            err("input-err-too-big")
                .arg("bytes", meta.len())
                .arg("limit", limit),
        ));
    }
    let f = std::fs::File::open(path).map_err(io)?;
    let mut bytes = Vec::new();
    f.take(MAX_INPUT_BYTES + 1)
        .read_to_end(&mut bytes)
        .map_err(io)?;
    if bytes.len() as u64 > MAX_INPUT_BYTES {
        return Err(fail(err("input-err-grew").arg("limit", limit)));
    }
    let text = String::from_utf8(bytes)
        .map_err(|e| fail(err("input-err-not-utf8").arg("offset", e.utf8_error().valid_up_to())))?;
    Ok(without_bom(text))
}

/// The text without a leading UTF-8 byte-order mark (U+FEFF), which Windows editors write and
/// which is encoding metadata, not content: a config.json saved so was "not valid JSON at line 1
/// column 1" while the same workload TOML read (audit r16 #3). Every input file reads the same.
pub fn without_bom(text: String) -> String {
    match text.strip_prefix('\u{feff}') {
        Some(rest) => rest.to_string(),
        None => text,
    }
}

/// What kind of input a file is (`catalog file`, `plan file`, …) as a catalog name.
fn input_kind(what: &str) -> Msg {
    let id = format!("input-kind-{}", what.replace(' ', "-"));
    if gpuplan_core::i18n::has_message(gpuplan_core::i18n::Lang::En, &id) {
        Msg::new(id)
    } else {
        Msg::raw(what)
    }
}

/// An I/O error in words: the system's own text in English, the common kinds in Chinese.
pub fn io_reason(e: &std::io::Error) -> Msg {
    let id = match e.kind() {
        std::io::ErrorKind::NotFound => "io-not-found",
        std::io::ErrorKind::PermissionDenied => "io-permission-denied",
        std::io::ErrorKind::AlreadyExists => "io-already-exists",
        _ => raw_io_reason(e),
    };
    let errno = e
        .raw_os_error()
        .map_or_else(|| "?".to_string(), |c| c.to_string());
    Msg::new(id).arg("os", e.to_string()).arg("errno", errno)
}

/// The kinds Rust 1.80 (the crate's MSRV) names only by their POSIX numbers, the same on Linux
/// and macOS (errno.h: ENOTDIR 20, EISDIR 21, ENOSPC 28, EROFS 30): `accuracy --cases /dev/null`
/// read "Not a directory (os error 20)" in Chinese text (audit r12 #9). Audit r20: the other
/// numbers a file argument meets (EIO 5 from `/proc/self/mem`, ENXIO 6, EBUSY 16, ENODEV 19,
/// EINVAL 22, EFBIG 27, ENAMETOOLONG 36, ELOOP 40) in words too; any other is `io-other`, which
/// in Chinese gives the number, never the system's English text.
fn raw_io_reason(e: &std::io::Error) -> &'static str {
    match e.raw_os_error() {
        Some(5) if cfg!(unix) => "io-io-error",
        Some(6) if cfg!(unix) => "io-no-device-address",
        Some(16) if cfg!(unix) => "io-busy",
        Some(19) if cfg!(unix) => "io-no-device",
        Some(22) if cfg!(unix) => "io-invalid-argument",
        Some(27) if cfg!(unix) => "io-file-too-large",
        Some(36) if cfg!(unix) => "io-name-too-long",
        Some(40) if cfg!(unix) => "io-symlink-loop",
        Some(20) if cfg!(unix) => "io-not-a-directory",
        Some(21) if cfg!(unix) => "io-is-a-directory",
        Some(28) if cfg!(unix) => "io-storage-full",
        Some(30) if cfg!(unix) => "io-read-only",
        _ => "io-other",
    }
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
    let mut m = parse_hf_config(&name, &text).with_context(|| {
        crate::render::Localized(
            gpuplan_core::i18n::Msg::new("cli-err-in-file").arg("file", file.display().to_string()),
        )
    })?;
    m.sources.push(file.display().to_string());
    Ok(m)
}

pub fn load_model(preset: Option<&str>, config: Option<&Path>) -> Result<ModelSpec> {
    match (preset, config) {
        (_, Some(p)) => load_config(p),
        (Some(name), None) => Ok(find_preset(name)?.model.clone()),
        (None, None) => Err(crate::render::fail(gpuplan_core::i18n::Msg::new(
            "cli-err-no-model",
        ))),
    }
}

/// The model of a job. Flags override the file: `--model-config`, then `--model`, then the
/// file's `model_config`, its inline `[config]` table (labelled by its `model`), its `model`.
/// When a config and a preset name are both given at the same level, the config wins and a
/// warning on stderr says so.
pub fn resolve_model(
    j: &crate::cli::JobArgs,
    file: &gpuplan_core::job::WorkloadFile,
) -> Result<ModelSpec> {
    let file_config = file.model_config.as_deref().map(Path::new);
    match (j.model_config.as_deref(), j.model.as_deref()) {
        (Some(p), name) => {
            warn_both(name, &p.display().to_string(), "--model", "--model-config");
            load_config(p)
        }
        (None, Some(name)) => load_model(Some(name), None),
        (None, None) => match (file_config, &file.config) {
            (Some(p), _) => {
                let shown = p.display().to_string();
                warn_both(file.model.as_deref(), &shown, "model", "model_config");
                load_config(p)
            }
            (None, Some(cfg)) => Ok(gpuplan_core::model::hf::from_hf_value(
                file.model.as_deref().unwrap_or("inline config"),
                cfg,
                vec![],
            )?),
            (None, None) => load_model(file.model.as_deref(), None),
        },
    }
}

fn warn_both(name: Option<&str>, config: &str, name_key: &str, config_key: &str) {
    if let Some(n) = name {
        crate::render::warn(
            Msg::new("cli-warn-both")
                .arg("name_key", name_key)
                .arg("name", n)
                .arg("config_key", config_key)
                .arg("config", config),
        );
    }
}

/// The weight formats named by a word, read the same by `plan --weights`, `estimate --weights`
/// (review r15: `estimate` took `awq`, `gptq` and upper case, `plan` refused them) and a workload
/// file's weight strings (audit r21 #1): `WeightFormat::from_word`. fp32, bitsandbytes labels and
/// bits per weight are each command's own.
pub fn named_weights(word: &str) -> Option<gpuplan_core::workload::WeightFormat> {
    gpuplan_core::workload::WeightFormat::from_word(word)
}

/// The bitsandbytes labels `plan` prints (`WeightFormat::name`).
const BNB_LABELS: [&str; 3] = ["bnb-4bit", "bnb-4bit-dq", "bnb-8bit"];

pub fn is_bnb_label(s: &str) -> bool {
    BNB_LABELS.contains(&s)
}

/// A bitsandbytes label read as the model's stored format: its block and row sizes come from the
/// checkpoint's `quantization_config` (`model::quant`), so the label is accepted where it names
/// that checkpoint's own format, and refused naming what the model stores otherwise.
pub fn stored_bnb(label: &str, model: &ModelSpec) -> Result<gpuplan_core::workload::WeightFormat> {
    match model.checkpoint.filter(|c| c.name() == label) {
        Some(c) => Ok(c),
        None => Err(crate::render::fail(
            Msg::new("cli-err-weights-bnb")
                .arg("value", label)
                .arg("model", model.name.as_str())
                .arg(
                    "stored",
                    model.checkpoint.map_or("bf16".into(), |c| c.name()),
                ),
        )),
    }
}

/// Parse a flag value through the same serde names the workload file uses, so both accept the
/// same words and errors name the field.
pub fn parse_word<T: serde::de::DeserializeOwned>(field: &str, value: &str) -> Result<T> {
    serde_json::from_value(serde_json::Value::String(value.to_string())).map_err(|e| {
        crate::render::fail(
            gpuplan_core::i18n::Msg::new("cli-err-bad-word")
                .arg("field", field)
                .arg("value", value)
                .arg("why", crate::render::serde_message(&e.to_string())),
        )
    })
}

/// Where catalogs come from.
/// Where catalogs come from, and how output is presented (the global flags).
pub struct CatalogOpts {
    pub extra: Vec<PathBuf>,
    pub no_user: bool,
    /// `--lang` (or $LC_ALL/$LANG).
    pub lang: gpuplan_core::i18n::Lang,
    /// `--wide`: full tables.
    pub wide: bool,
}

/// The user's config directory: $GPUPLAN_CONFIG_DIR, else $XDG_CONFIG_HOME/gpuplan, else
/// ~/.config/gpuplan. An empty variable counts as unset.
pub fn config_dir() -> Option<PathBuf> {
    let var = |k: &str| std::env::var_os(k).filter(|v| !v.is_empty());
    if let Some(d) = var("GPUPLAN_CONFIG_DIR") {
        return Some(d.into());
    }
    if let Some(d) = var("XDG_CONFIG_HOME") {
        return Some(PathBuf::from(d).join("gpuplan"));
    }
    var("HOME").map(|h| PathBuf::from(h).join(".config").join("gpuplan"))
}

/// User catalog files: `<config dir>/catalog/*.toml`, sorted by name. A missing directory means
/// none; a directory that cannot be read (permissions, or a file in its place) is an error.
pub fn user_catalog_files() -> Result<Vec<PathBuf>> {
    let Some(dir) = config_dir().map(|d| d.join("catalog")) else {
        return Ok(Vec::new());
    };
    let shown = dir.display().to_string();
    match std::fs::metadata(&dir) {
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(Vec::new()),
        Err(e) => {
            return Err(anyhow::Error::new(e).context(crate::render::Localized(
                Msg::new("cli-err-catalog-dir-unreadable").arg("dir", shown.as_str()),
            )))
        }
        Ok(m) if !m.is_dir() => {
            return Err(crate::render::fail(
                Msg::new("cli-err-catalog-dir-not-dir").arg("dir", shown.as_str()),
            ))
        }
        Ok(_) => {}
    }
    let cannot = || {
        crate::render::Localized(
            Msg::new("cli-err-catalog-dir-unreadable").arg("dir", shown.as_str()),
        )
    };
    let mut v = Vec::new();
    for e in std::fs::read_dir(&dir).with_context(cannot)? {
        let p = e.with_context(cannot)?.path();
        if p.extension().is_some_and(|x| x == "toml") {
            v.push(p);
        }
    }
    v.sort();
    Ok(v)
}

/// Read a catalog file row by row: a syntax error (with line, column and key, never the line's
/// text) fails; rows that do not deserialize come back as findings.
pub fn read_catalog_file(p: &Path) -> Result<(CatalogFile, Vec<Finding>)> {
    let text = read_input(p, "catalog file")?;
    Ok(gpuplan_core::catalog::parse_catalog_rows(
        &p.display().to_string(),
        &text,
    )?)
}

/// Merge one user file into `c`, keeping only valid rows; the findings name the rest.
pub fn merge_user_file(c: &mut Catalog, p: &Path) -> Result<Vec<Finding>> {
    let (f, mut findings) = read_catalog_file(p)?;
    let label = p.display().to_string();
    findings.extend(c.merge_validated(f, Origin::User(label.clone()), &label));
    Ok(findings)
}

/// The user files to merge, in order: the config directory's, then `--catalog` files.
pub fn user_files(opts: &CatalogOpts) -> Result<Vec<PathBuf>> {
    let mut files = if opts.no_user {
        Vec::new()
    } else {
        user_catalog_files()?
    };
    files.extend(opts.extra.iter().cloned());
    Ok(files)
}

/// Built-in catalog, then user catalogs, then `--catalog` files (all but `except`), validated row
/// by row; returns the findings instead of printing them.
pub fn load_catalog_quiet(
    opts: &CatalogOpts,
    except: &[PathBuf],
) -> Result<(Catalog, Vec<Finding>)> {
    merge_user_files(Catalog::builtin()?, opts, except)
}

/// The built-in catalog, parsed on a thread of its own while the caller reads its flags, its
/// workload and its model (`plan`: the catalog's TOML was ~11% of a run's instructions, all on
/// the critical path before the search; docs/performance.md, stop 41). Parsing is pure (no
/// file, no output), so when it runs changes nothing the user sees; where no thread can be
/// started it is parsed by [`BuiltinCatalog::catalog`] itself.
pub struct BuiltinCatalog(Option<std::thread::JoinHandle<Result<Catalog, CoreError>>>);

impl BuiltinCatalog {
    /// Starts parsing.
    pub fn start() -> BuiltinCatalog {
        BuiltinCatalog(std::thread::Builder::new().spawn(Catalog::builtin).ok())
    }

    /// The parsed catalog (waits for the thread).
    fn catalog(self) -> Result<Catalog, CoreError> {
        match self.0 {
            Some(h) => h.join().unwrap_or_else(|e| std::panic::resume_unwind(e)),
            None => Catalog::builtin(),
        }
    }
}

/// [`load_catalog`] over a built-in catalog already being parsed.
pub fn load_catalog_from(builtin: BuiltinCatalog, opts: &CatalogOpts) -> Result<Catalog> {
    let (c, findings) = merge_user_files(builtin.catalog()?, opts, &[])?;
    warn_skipped(&findings);
    Ok(c)
}

/// The user catalogs and `--catalog` files (all but `except`) merged over the built-in `c`.
fn merge_user_files(
    mut c: Catalog,
    opts: &CatalogOpts,
    except: &[PathBuf],
) -> Result<(Catalog, Vec<Finding>)> {
    let mut findings = Vec::new();
    for p in user_files(opts)?.iter().filter(|p| !except.contains(p)) {
        findings.extend(merge_user_file(&mut c, p)?);
    }
    Ok((c, findings))
}

/// The catalog `plan`, `estimate` and `catalog …` use: invalid user rows are left out, each with
/// one warning on stderr naming the file, row and field.
pub fn load_catalog(opts: &CatalogOpts) -> Result<Catalog> {
    load_catalog_except(opts, &[])
}

pub fn load_catalog_except(opts: &CatalogOpts, except: &[PathBuf]) -> Result<Catalog> {
    let (c, findings) = load_catalog_quiet(opts, except)?;
    warn_skipped(&findings);
    Ok(c)
}

/// Print one warning per row left out (its first problem, and how many more it has); other
/// findings are summed up in one line.
pub fn warn_skipped(findings: &[Finding]) {
    warn_rows(findings, "cli-warn-row-skipped");
}

/// [`warn_skipped`] with another ending (what happens to the row: a message id).
pub fn warn_rows(findings: &[Finding], what_happens: &str) {
    let what_happens = &gpuplan_core::i18n::text(crate::render::lang(), what_happens);
    let errors: Vec<&Finding> = findings
        .iter()
        .filter(|f| f.severity == Severity::Error)
        .collect();
    let mut per_row: std::collections::HashMap<(&str, &str), usize> = Default::default();
    for f in &errors {
        if let Some(r) = &f.row {
            *per_row.entry((f.file.as_str(), r.as_str())).or_default() += 1;
        }
    }
    for f in &errors {
        let more = match &f.row {
            Some(r) => match per_row.remove(&(f.file.as_str(), r.as_str())) {
                None => continue, // this row was reported already
                Some(n) if n > 1 => Msg::new("cli-warn-more-in-row")
                    .arg("n", n - 1)
                    .render(crate::render::lang()),
                Some(_) => String::new(),
            },
            None => String::new(),
        };
        let tail = if f.message.contains("ignored") {
            ""
        } else {
            what_happens
        };
        crate::render::warn(
            Msg::new("cli-warn-row")
                .arg("file", printable(&f.file))
                .arg("location", printable(&f.location))
                .arg(
                    "message",
                    printable(&crate::render::finding_text(f, crate::render::lang())),
                )
                .arg("more", more)
                .arg("tail", tail),
        );
    }
    let notes = findings.len() - errors.len();
    if notes > 0 {
        crate::render::note(Msg::new("cli-note-other-findings").arg("n", notes));
    }
}

/// Text with control characters replaced, safe to print on a terminal.
pub fn printable(s: &str) -> String {
    s.chars()
        .map(|c| if c.is_control() { '?' } else { c })
        .collect()
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
    if let Some(x) = j.attention_span {
        t.attention_span = Some(x);
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
    if let Some(p) = j.lora_dropout {
        t.lora.dropout = p;
    }
    if let Some(v) = &j.adapter_dtype {
        t.adapter_dtype = parse_word("adapter-dtype", v)?;
    }
    t.autocast |= j.autocast;
    t.optimizer_in_backward |= j.optimizer_in_backward;
    t.chunked_loss |= j.chunked_loss;
    t.paged_optimizer |= j.paged_optimizer;
    if j.paged_optimizer && t.task.is_peft() {
        // Audit r9 #13: accepted and, for adapters, not counted — say so rather than stay silent.
        crate::render::note(Msg::new("cli-note-paged-peft"));
    }
    t.activation_offload |= j.activation_offload;
    t.gradient_as_bucket_view |= j.gradient_as_bucket_view;
    t.persistent_grads |= j.persistent_grads;
    if j.nccl_version.is_some() {
        t.nccl_version.clone_from(&j.nccl_version);
    }
    t.deepspeed |= j.deepspeed;
    t.bnb_saves_inputs |= j.bnb_saves_inputs;
    if j.quantized_lm_head {
        t.quantized_lm_head = Some(true);
    }
    if j.keeps_previous_graph {
        t.keeps_previous_graph = Some(true);
    }
    if j.compiled_loss {
        t.compiled_loss = Some(true);
    }
    if j.bf16_chunked_loss {
        t.bf16_chunked_loss = Some(true);
    }
    if let Some(v) = &j.lora_targets {
        t.lora.targets = v
            .split(',')
            .map(|s| s.trim().to_string())
            .filter(|s| !s.is_empty())
            .collect();
    }
    inputs::amounts(j, t)
}

/// Apply `--set NAME=VALUE` overrides.
pub fn apply_sets(tun: &mut gpuplan_core::constants::Tunables, sets: &[String]) -> Result<()> {
    for kv in sets {
        // An empty name (`--set =0.1`) is the same mistake as a missing `=`.
        let (k, v) = kv
            .split_once('=')
            .filter(|(k, _)| !k.trim().is_empty())
            .ok_or_else(|| {
                crate::render::fail(
                    gpuplan_core::i18n::Msg::new("cli-err-set-form").arg("value", kv.as_str()),
                )
            })?;
        let v = crate::cli::parse_number(v.trim()).map_err(|_| {
            crate::render::fail(
                gpuplan_core::i18n::Msg::new("cli-err-set-number")
                    .arg("name", k)
                    .arg("value", v),
            )
        })?;
        tun.set(k.trim(), v)?;
    }
    Ok(tun.validate()?)
}
