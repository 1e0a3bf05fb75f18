//! `gpuplan`: which cloud GPU/NPU instances to rent for a deep-learning workload.
//!
//! The binary is the I/O edge: it parses flags, reads files, calls `gpuplan-core` and renders.

/// `println!` that survives a closed pipe (see [`render::emit`]).
macro_rules! outln {
    () => { $crate::render::emit("\n") };
    ($($t:tt)*) => { $crate::render::emit(&format!("{}\n", format!($($t)*))) };
}
/// `print!` that survives a closed pipe.
macro_rules! out {
    ($($t:tt)*) => { $crate::render::emit(&format!($($t)*)) };
}
/// Shadows std's `eprintln!` in every module of the binary: std's panics when stderr is closed;
/// this one writes through [`render::emit_err`], which ignores write errors and escapes control
/// characters.
macro_rules! eprintln {
    ($($t:tt)*) => { $crate::render::emit_err(&format!("{}\n", format!($($t)*))) };
}

mod cli;
mod cmd;
mod creds;
mod export;
mod fetch;
mod render;
mod serve;

use std::process::ExitCode;

/// mimalloc instead of glibc's malloc: a plan search allocates many small short-lived values
/// (steps, memory breakdowns, texts), and glibc's allocator was 34% of its CPU samples; the
/// `pretrain-llama2-13b-64-nodes` bench runs about 18% faster with it (docs/performance.md,
/// stop 38). No output changes: allocation order does not reach any number.
#[global_allocator]
static GLOBAL: mimalloc::MiMalloc = mimalloc::MiMalloc;

/// Exit codes (documented in README.md).
pub mod exit {
    /// Bad input: unknown model, invalid field, unreadable file.
    pub const USAGE: u8 = 2;
    /// The estimate ran but the job does not fit the hardware.
    pub const DOES_NOT_FIT: u8 = 3;
    /// No answer meets the constraints: `plan` found no plan; `estimate --solve max-throughput`
    /// found no batch within the `--tpot` target (the job fits; the target cannot be met).
    pub const UNMET: u8 = 4;
    /// The output could not be written (disk full, I/O error; a closed pipe is not an error).
    pub const WRITE_FAILED: u8 = 5;
    /// `prices fetch`: some requests failed (what succeeded was written).
    pub const PARTIAL: u8 = 6;
}

fn main() -> ExitCode {
    let json = render::json_requested(std::env::args());
    let args: Vec<String> = std::env::args().collect();
    let lang = cli::Lang::from_args(&args);
    render::set_lang(lang);
    let args = without_help_lang(args);
    let cli = match parse(&args, lang) {
        Ok(c) => c,
        Err(e) => return usage_error(e, json, lang),
    };
    match cmd::run(cli) {
        Ok(code) => ExitCode::from(code),
        Err(e) => {
            eprintln!("{}", render::error_text(&e, lang));
            if json {
                render::emit_json_error(exit::USAGE, &e, None);
            }
            ExitCode::from(exit::USAGE)
        }
    }
}

/// The flags, parsed by the bare clap tree first: a run whose flags parse shows no help text,
/// and putting the catalog's help texts onto the tree ([`cli::help::command`]) was ~5% of a
/// `plan` run's instructions (docs/performance.md, stop 41). The texts change what clap prints,
/// never what it parses, so any error (`--help` and `--version` are errors to clap too) is
/// made again by the tree in `lang`, and what it prints is the same as before.
fn parse(args: &[String], lang: gpuplan_core::i18n::Lang) -> Result<cli::Cli, clap::Error> {
    let by = |c: clap::Command| {
        c.try_get_matches_from(args)
            .and_then(|m| <cli::Cli as clap::FromArgMatches>::from_arg_matches(&m))
    };
    by(cli::help::bare_command()).or_else(|_| by(cli::help::command(lang)))
}

/// `gpuplan help plan --lang zh`: clap's `help` subcommand takes subcommand names only, so the
/// language flag (already read by [`cli::Lang::from_args`]) is dropped after `help`.
fn without_help_lang(args: Vec<String>) -> Vec<String> {
    let Some(at) = args.iter().position(|a| a == "help") else {
        return args;
    };
    if args[1..at]
        .iter()
        .any(|a| !a.starts_with('-') && a != "zh" && a != "en")
    {
        return args; // `help` is an argument of a subcommand, not the help subcommand
    }
    let mut out = args[..=at].to_vec();
    let mut rest = args[at + 1..].iter();
    while let Some(a) = rest.next() {
        if a == "--lang" {
            rest.next();
        } else if !a.starts_with("--lang=") {
            out.push(a.clone());
        }
    }
    out
}

/// A flag clap rejects: its message on stderr (and a JSON error object with `--format json`);
/// `--help` and `--version` print on stdout and succeed.
fn usage_error(e: clap::Error, json: bool, lang: gpuplan_core::i18n::Lang) -> ExitCode {
    use clap::error::ErrorKind;
    if matches!(e.kind(), ErrorKind::DisplayHelp | ErrorKind::DisplayVersion) {
        render::emit(&render::fit_help(&e.render().to_string(), render::width()));
        return ExitCode::SUCCESS;
    }
    if matches!(
        e.kind(),
        ErrorKind::DisplayHelpOnMissingArgumentOrSubcommand
    ) {
        render::emit_err(&render::fit_help(&e.render().to_string(), render::width()));
        return ExitCode::from(exit::USAGE);
    }
    render::emit_err(&render::clap_text(&e, lang));
    if json {
        let field = e
            .get(clap::error::ContextKind::InvalidArg)
            .map(|v| match e.kind() {
                // A flag that does not exist is named as typed; a bad value names its field.
                ErrorKind::UnknownArgument => v.to_string(),
                _ => flag_field(&v.to_string()),
            });
        let message = match render::number_error(&e) {
            Some(m) => m.render(gpuplan_core::i18n::Lang::En),
            None => e.render().to_string(),
        };
        render::emit_json_error(exit::USAGE, &anyhow::anyhow!("{message}"), field);
    }
    ExitCode::from(exit::USAGE)
}

/// The workload field a flag sets: `--max-nodes <N>` → `max_nodes`.
fn flag_field(arg: &str) -> String {
    arg.split_whitespace()
        .next()
        .unwrap_or(arg)
        .trim_start_matches('-')
        .replace('-', "_")
}
