//! UI state and actions: the k9s-style TUI's model. No drawing (that is
//! `ui`) and no terminal (that is `tui`, which owns the event loop): plain
//! state that tests drive with key events.

pub(crate) mod cursor;
pub mod demo;
pub mod derived;
pub(crate) mod feed;
pub(crate) mod files;
pub mod format;
pub(crate) mod inspect;
pub(crate) mod job;
mod keep_place;
pub mod keys;
pub(crate) mod line;
pub(crate) mod live;
pub mod loader;
pub mod palette;
pub(crate) mod remedies;
pub(crate) mod replay;
pub mod report;
pub(crate) mod skew;
pub mod state;
pub(crate) mod table;
pub mod theme;
pub(crate) mod tiers;
pub(crate) mod view;
pub mod whatif;
pub(crate) mod worker;

pub use state::{App, Overlay, Phase, Session};
pub use view::View;

/// How the TUI was asked to start (from the command line).
#[derive(Clone, Debug, Default)]
pub struct Options {
    /// `--snapshot FILE`.
    pub snapshot: Option<std::path::PathBuf>,
    /// `--demo`.
    pub demo: bool,
    /// `--demo-replay`: the built-in demo recording.
    pub demo_replay: bool,
    /// `--context` / `--kubeconfig`: this live cluster, and nothing else.
    pub live: Option<crate::source::live::Target>,
    /// No source named (plain `kplace`): the current context (or `live`'s)
    /// when it is reachable, else the demo with a note saying why.
    pub auto: bool,
    /// `--theme NAME`.
    pub theme: Option<String>,
    /// `NAMESPACE/NAME`: open the Placement view on this pod.
    pub pod: Option<String>,
    /// `-n NAMESPACE`: open with the lists showing this namespace only.
    pub namespace: Option<String>,
    /// `--scheduler-version`: answer as this release whatever the cluster reports.
    pub scheduler_version: Option<crate::engine::Version>,
    /// `--scheduler-config`: a validated configuration's profiles.
    pub scheduler_config: Option<std::sync::Arc<crate::engine::Profiles>>,
}
