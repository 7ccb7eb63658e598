//! Live mode: follows a [`LiveSource`]. Watch events arrive continuously;
//! they are coalesced, and on a background thread pod and node events are
//! applied in place to the feed's own copy of the model (other kinds and
//! relists rebuild it from the live store), so the UI never waits on the
//! conversion of a large cluster. Between two updates there is at least
//! [`MIN_REBUILD_GAP`], and at least as long as the last one took, so a
//! busy large cluster keeps at most about half a core busy.

use std::sync::Arc;
use std::time::{Duration, Instant, SystemTime};

use crate::model::Cluster;
use crate::source::live::{Changes, ConnectionState, Limitation, LiveSource, Stale, apply_changes};
use crate::source::version::ServerVersion;

use super::job::{Ctx, Job};
use super::loader::Loaded;

/// How the connection is doing, for the colour of its dot.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Health {
    Live,
    /// Syncing or reconnecting.
    Degraded,
    Failed,
}

/// A kind whose objects are as last seen, and since when (worded).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct StaleKind {
    pub resource: &'static str,
    /// `12:03:04 (3 s ago)`.
    pub since: String,
}

/// The connection as the views show it, every time already worded: the
/// drawing code reads no clock and no source type.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct LiveStatus {
    pub health: Health,
    /// `live`, `reconnecting for 12 s (…)`.
    pub state: String,
    pub context: String,
    pub server: String,
    pub stale: Vec<StaleKind>,
    /// `3 unreadable watch events on pods dropped`.
    pub malformed: Vec<String>,
    /// `12:03:04 (3 s ago)`.
    pub last_event: Option<String>,
    pub limitations: Vec<String>,
}

/// The shortest time between two rebuilds: bursts of events (a rollout)
/// become one new snapshot instead of hundreds.
pub const MIN_REBUILD_GAP: Duration = Duration::from_millis(500);

pub struct LiveFeed {
    source: Arc<LiveSource>,
    changes: Changes,
    /// Events arrived since the snapshot being shown (or being built).
    dirty: bool,
    /// Rebuilds the model from the live store, off the UI thread.
    builder: Job<(), (Loaded, Vec<String>)>,
    /// A rebuild was asked for and has not arrived yet.
    building: bool,
    /// Why rebuilding stopped (its thread could not start or died): the
    /// cluster shown is the last one built, and the status line says so.
    build_failure: Option<String>,
    /// Objects left out of the model as invalid (`Kind ns/name: field: why`).
    pub skipped: Vec<String>,
    last_build: Instant,
    /// How long the last rebuild took.
    last_took: Duration,
    /// Snapshots built since the first (for the status line and tests).
    pub rebuilds: u64,
    /// Of those, the ones built by a full rebuild instead of in place.
    pub full_rebuilds: Arc<std::sync::atomic::AtomicU64>,
    /// The connection line as last drawn: state, last event, limitations.
    shown: Option<String>,
}

impl LiveFeed {
    /// `changes` must be taken before the first snapshot was built, so no
    /// event between the two is missed.
    /// `model` is the cluster first shown (a fork of it): the next pod and
    /// node events are applied to it.
    pub fn new(
        source: LiveSource,
        changes: Changes,
        skipped: Vec<String>,
        model: Cluster,
        first_caches: Option<super::derived::ViewCaches>,
    ) -> LiveFeed {
        // A watch event wakes the event loop, which marks the feed dirty
        // and schedules the update.
        source.on_change(super::job::wake);
        let source = Arc::new(source);
        let store = source.clone();
        let full_rebuilds = Arc::new(std::sync::atomic::AtomicU64::new(0));
        let counted = full_rebuilds.clone();
        let mut model = model;
        let mut indexed = false;
        let mut model_skipped = skipped.clone();
        // The view caches of the last cluster sent (pod table, fleet list),
        // which the next one updates (the first cluster's, once taken, if
        // they were warm by then).
        let mut built = super::derived::Built::default();
        let mut first_caches = first_caches;
        let builder = Job::spawn("live-build", move |(), ctx: &Ctx<(Loaded, Vec<String>)>| {
            let started = Instant::now();
            let touched = match store.take_changes(&mut model.interner) {
                Some(changes) => {
                    if !indexed {
                        model.index_pod_keys();
                        indexed = true;
                    }
                    Some(apply_changes(&mut model, changes))
                }
                None => {
                    (model, model_skipped) = store.cluster();
                    model.index_pod_keys();
                    counted.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
                    None
                }
            };
            let name = store.context().to_string();
            // The first cluster's caches, if they were warm by then.
            if let Some(first) = first_caches.take() {
                built = first.built();
            }
            let loaded = match &touched {
                Some(touched) => Loaded::updated(model.snapshot(), name, &built, touched, started),
                None => Loaded::new(model.snapshot(), name, started.elapsed()),
            };
            built = loaded.derived.built();
            ctx.send((loaded, model_skipped.clone()));
        });
        LiveFeed {
            source,
            changes,
            dirty: false,
            builder,
            building: false,
            build_failure: None,
            skipped,
            last_build: Instant::now(),
            last_took: Duration::ZERO,
            rebuilds: 0,
            full_rebuilds,
            shown: None,
        }
    }

    pub fn context(&self) -> &str {
        self.source.context()
    }

    pub fn server(&self) -> &str {
        self.source.server()
    }

    pub fn state(&self) -> ConnectionState {
        self.source.state()
    }

    /// What the API server's `/version` said (a failure until it answers).
    pub fn server_version(&self) -> ServerVersion {
        self.source
            .server_version()
            .unwrap_or_else(|| ServerVersion::LiveFailed("no answer yet".into()))
    }

    pub fn last_event(&self) -> Option<SystemTime> {
        self.source.last_event()
    }

    pub fn limitations(&self) -> Vec<Limitation> {
        self.source.limitations()
    }

    /// Kinds whose objects are as last seen (unreadable now, retried).
    pub fn stale(&self) -> Vec<Stale> {
        self.source.stale()
    }

    /// Watch events dropped as unreadable, per kind.
    pub fn malformed(&self) -> Vec<(crate::source::live::Kind, u64)> {
        self.source.malformed()
    }

    /// The connection as the status line and the Placement view show it.
    pub fn status(&self) -> LiveStatus {
        let state = self.state();
        LiveStatus {
            health: match &state {
                _ if self.build_failure.is_some() => Health::Failed,
                ConnectionState::Live => Health::Live,
                ConnectionState::Syncing { .. } | ConnectionState::Reconnecting { .. } => {
                    Health::Degraded
                }
                ConnectionState::Failed { .. } => Health::Failed,
            },
            state: match &self.build_failure {
                Some(f) => format!(
                    "{}; not updating: {f}",
                    crate::source::live::describe(&state)
                ),
                None => crate::source::live::describe(&state),
            },
            context: self.context().to_string(),
            server: self.server().to_string(),
            stale: self
                .stale()
                .iter()
                .map(|s| StaleKind {
                    resource: s.kind.resource(),
                    since: super::format::when(s.since),
                })
                .collect(),
            malformed: self
                .malformed()
                .into_iter()
                .map(|(kind, n)| {
                    format!(
                        "{n} unreadable watch event{} on {} dropped",
                        if n == 1 { "" } else { "s" },
                        kind.resource()
                    )
                })
                .collect(),
            last_event: self.last_event().map(super::format::when),
            limitations: self.limitations().into_iter().map(|l| l.message).collect(),
        }
    }

    /// Whether the connection line would read differently than when last
    /// asked: state, last event, limitations, and the clock it counts
    /// seconds by ("3 s ago", "reconnecting for 12 s").
    pub fn take_repaint(&mut self) -> bool {
        let second = SystemTime::now()
            .duration_since(SystemTime::UNIX_EPOCH)
            .map(|d| d.as_secs())
            .unwrap_or(0);
        let now = format!(
            "{second} {:?} {:?} {:?} {} {:?} {:?}",
            self.state(),
            self.last_event(),
            self.limitations(),
            self.skipped.len(),
            self.stale(),
            self.malformed()
        );
        if self.shown.as_ref() == Some(&now) {
            return false;
        }
        self.shown = Some(now);
        true
    }

    /// Whether a newer snapshot is on its way.
    pub fn busy(&self) -> bool {
        (self.building || self.dirty) && self.build_failure.is_none()
    }

    /// A new snapshot when one is built; starts the next build when events
    /// are waiting and the last build is old enough.
    pub fn poll(&mut self) -> Option<Loaded> {
        if self.changes.changed() {
            self.dirty = true;
        }
        let mut ready = None;
        if self.building {
            if let Some((loaded, skipped)) = self.builder.try_recv() {
                self.skipped = skipped;
                self.last_took = loaded.took;
                ready = Some(loaded);
                self.building = false;
                self.rebuilds += 1;
                self.last_build = Instant::now();
            } else if let Some(failure) = self.builder.failure() {
                self.build_failure = Some(failure);
                self.building = false;
            }
        }
        let gap = MIN_REBUILD_GAP.max(self.last_took);
        if self.dirty
            && !self.building
            && self.build_failure.is_none()
            && self.last_build.elapsed() >= gap
        {
            self.dirty = false;
            self.building = true;
            self.builder.request(());
        }
        ready
    }
}

/// The contexts of the kubeconfig (`path`, else `$KUBECONFIG` or
/// `~/.kube/config`), for `:ctx`.
pub fn contexts(path: Option<&std::path::Path>) -> Result<Vec<String>, String> {
    let kc = match path {
        Some(p) => kube::config::Kubeconfig::read_from(p),
        None => kube::config::Kubeconfig::read(),
    }
    .map_err(|e| format!("cannot read the kubeconfig: {e}"))?;
    Ok(kc.contexts.into_iter().map(|c| c.name).collect())
}
