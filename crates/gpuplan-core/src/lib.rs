//! # gpuplan-core
//!
//! The pure core of gpuplan: model descriptions, hardware descriptions and the estimators of
//! memory, FLOPs, time and communication for training and inference.
//!
//! Invariants: this crate performs no I/O and prints nothing (data files are embedded at build
//! time and parsed from strings); every quantity it returns carries its unit in its type
//! ([`units`]); every constant it uses is named, documented with its source and overridable.

pub mod catalog;
pub mod chip;
pub mod comm;
pub mod compute;
pub mod constants;
pub mod error;
pub mod hardware;
pub mod i18n;
pub mod infer;
pub mod job;
pub mod layout;
pub mod model;
pub mod pipeline;
pub mod plan;
pub mod refit;
pub mod ring;
pub mod signing;
pub mod timeline;
pub mod train;
pub mod units;
pub mod validation;
pub mod workload;

pub use error::CoreError;
