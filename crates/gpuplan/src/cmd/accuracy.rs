//! `gpuplan accuracy`: run the validation cases (placeholder until the case runner lands).

use crate::cli::Format;
use anyhow::Result;
use std::path::Path;

pub fn run(_cases: &Path, _format: Format) -> Result<u8> {
    anyhow::bail!("the case runner is not implemented yet")
}
