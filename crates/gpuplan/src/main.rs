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

mod cli;
mod cmd;
mod creds;
mod fetch;
mod render;

use clap::Parser;
use std::process::ExitCode;

/// Exit codes (documented in README.md).
pub mod exit {
    /// Bad input: unknown model, invalid field, unreadable file.
    pub const USAGE: u8 = 2;
    /// The estimate ran but the job does not fit the hardware.
    pub const DOES_NOT_FIT: u8 = 3;
    /// `prices fetch`: some requests failed (what succeeded was written).
    pub const PARTIAL: u8 = 5;
}

fn main() -> ExitCode {
    let cli = cli::Cli::parse();
    match cmd::run(cli) {
        Ok(code) => ExitCode::from(code),
        Err(e) => {
            eprintln!("error: {e:#}");
            ExitCode::from(exit::USAGE)
        }
    }
}
