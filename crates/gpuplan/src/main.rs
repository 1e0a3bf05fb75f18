//! `gpuplan`: which cloud GPU/NPU instances to rent for a deep-learning workload.
//!
//! The binary is the I/O edge: it parses flags, reads files, calls `gpuplan-core` and renders.

mod cli;
mod cmd;
mod render;

use clap::Parser;
use std::process::ExitCode;

/// Exit codes (documented in README.md).
pub mod exit {
    /// Bad input: unknown model, invalid field, unreadable file.
    pub const USAGE: u8 = 2;
    /// The estimate ran but the job does not fit the hardware.
    pub const DOES_NOT_FIT: u8 = 3;
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
