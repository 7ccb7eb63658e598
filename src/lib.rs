//! kplace: where would this pod go, and who would be evicted?
//!
//! Layers, each knowing only the one before it: [`source`] (where snapshots
//! come from) → [`model`] (the compact cluster) → [`engine`] (the
//! kube-scheduler 1.30–1.34 re-implementation, answering as a chosen
//! release: `source::version`); [`verify`] checks the engine
//! against the bindings a recorded timeline saw.

pub mod allocator;
pub mod app;
pub mod report;
pub mod source;
#[cfg(feature = "synth")]
pub mod synth;
pub mod tui;
pub mod ui;
pub mod verify;

/// The core crate's model and engine, under the paths the rest of the
/// application has always used.
pub use kplace_core::{engine, model};
