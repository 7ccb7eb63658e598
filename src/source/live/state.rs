//! Connection state shared between the watcher tasks and the handle: per
//! kind, whether it has synced, is failing, or is forbidden.

use std::sync::Mutex;
use std::time::SystemTime;

use tokio::sync::watch;

use super::kind::Kind;

/// What the UI shows in its status bar.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum ConnectionState {
    /// Listing: `done` of `total` kinds have their first full list.
    Syncing { done: usize, total: usize },
    /// Every readable kind is listed and watched.
    Live,
    /// A list or watch failed; retrying with backoff since `since`.
    Reconnecting { since: SystemTime, error: String },
    /// Nothing more will come: bad credentials, nodes or pods unreadable.
    Failed { message: String },
}

/// A kind kplace could not read, and what answers lose for it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Limitation {
    pub kind: Kind,
    /// e.g. "list/watch on poddisruptionbudgets.policy is forbidden: preemption ignores PDBs".
    pub message: String,
}

#[derive(Clone, Debug, Default)]
struct KindStatus {
    synced: bool,
    /// Never listed: 403 on its first list (retried with backoff).
    forbidden: bool,
    /// Failing since, and why (5xx, 403 after it was listed, a list that
    /// does not answer); retried with backoff.
    error: Option<(SystemTime, String)>,
    /// Watch events that could not be read, dropped.
    malformed: u64,
}

/// A kind whose objects are as last seen: it was listed, then became
/// unreadable (a 403, 5xx, a list that does not answer); retried with
/// backoff, and current again once a list or watch succeeds.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Stale {
    pub kind: Kind,
    pub since: SystemTime,
    pub error: String,
}

#[derive(Debug, Default)]
struct Inner {
    kinds: Vec<(Kind, KindStatus)>,
    failed: Option<String>,
    last_event: Option<SystemTime>,
    relists: u64,
    generation: u64,
}

/// Shared by every watcher task of one live source.
#[derive(Debug)]
pub struct Shared {
    inner: Mutex<Inner>,
    changes: watch::Sender<u64>,
}

impl Shared {
    pub fn new(kinds: &[Kind]) -> Self {
        Shared {
            inner: Mutex::new(Inner {
                kinds: kinds.iter().map(|&k| (k, KindStatus::default())).collect(),
                ..Default::default()
            }),
            changes: watch::channel(0).0,
        }
    }

    /// Runs `f` on the kind's status and notifies subscribers.
    fn update(&self, kind: Kind, f: impl FnOnce(&mut KindStatus, &mut Inner)) {
        let generation = {
            let mut inner = self.inner.lock().unwrap_or_else(|e| e.into_inner());
            let mut status = inner
                .kinds
                .iter()
                .find(|(k, _)| *k == kind)
                .map(|(_, s)| s.clone())
                .unwrap_or_default();
            f(&mut status, &mut inner);
            if let Some(slot) = inner.kinds.iter_mut().find(|(k, _)| *k == kind) {
                slot.1 = status;
            }
            inner.generation += 1;
            inner.generation
        };
        self.changes.send_replace(generation);
    }

    /// An object event arrived (or a list finished): the kind is healthy.
    pub fn event(&self, kind: Kind, list_done: bool) {
        self.update(kind, |s, inner| {
            s.error = None;
            s.forbidden = false;
            if list_done {
                if s.synced {
                    inner.relists += 1;
                }
                s.synced = true;
            }
            inner.last_event = Some(SystemTime::now());
        });
    }

    /// A retry stayed quiet long enough: the watch is connected again.
    pub fn recovered(&self, kind: Kind) {
        self.update(kind, |s, _| s.error = None);
    }

    pub fn error(&self, kind: Kind, message: String) {
        self.update(kind, |s, _| {
            let since = s.error.as_ref().map_or_else(SystemTime::now, |e| e.0);
            s.error = Some((since, message));
        });
    }

    /// A 403. Before the kind's first list it is a limitation (and for
    /// nodes and pods a failure); after, the kind's objects are kept as
    /// last seen, marked stale, while the list is retried.
    pub fn forbidden(&self, kind: Kind) {
        self.update(kind, |s, inner| {
            if s.synced {
                let since = s.error.as_ref().map_or_else(SystemTime::now, |e| e.0);
                s.error = Some((
                    since,
                    format!("list/watch on {} is forbidden (403)", kind.resource()),
                ));
                return;
            }
            s.forbidden = true;
            s.error = None;
            if kind.essential() && inner.failed.is_none() {
                inner.failed = Some(limitation_text(kind));
            }
        });
    }

    /// A watch event that could not be read was dropped.
    pub fn malformed(&self, kind: Kind) {
        self.update(kind, |s, _| s.malformed += 1);
    }

    /// Watch events dropped as unreadable, per kind (kinds with none left out).
    pub fn malformed_counts(&self) -> Vec<(Kind, u64)> {
        let inner = self.inner.lock().unwrap_or_else(|e| e.into_inner());
        inner
            .kinds
            .iter()
            .filter(|(_, s)| s.malformed > 0)
            .map(|(k, s)| (*k, s.malformed))
            .collect()
    }

    /// Kinds listed once and unreadable now: their objects are stale.
    pub fn stale(&self) -> Vec<Stale> {
        let inner = self.inner.lock().unwrap_or_else(|e| e.into_inner());
        inner
            .kinds
            .iter()
            .filter(|(_, s)| s.synced)
            .filter_map(|(k, s)| {
                s.error.as_ref().map(|(since, error)| Stale {
                    kind: *k,
                    since: *since,
                    error: error.clone(),
                })
            })
            .collect()
    }

    pub fn fail(&self, kind: Kind, message: String) {
        self.update(kind, |_, inner| {
            inner.failed.get_or_insert(message);
        });
    }

    pub fn subscribe(&self) -> watch::Receiver<u64> {
        self.changes.subscribe()
    }

    pub fn state(&self) -> ConnectionState {
        let inner = self.inner.lock().unwrap_or_else(|e| e.into_inner());
        if let Some(message) = &inner.failed {
            return ConnectionState::Failed {
                message: message.clone(),
            };
        }
        if let Some((since, error)) = inner
            .kinds
            .iter()
            .filter_map(|(_, s)| s.error.as_ref())
            .min_by_key(|e| e.0)
        {
            return ConnectionState::Reconnecting {
                since: *since,
                error: error.clone(),
            };
        }
        let done = inner
            .kinds
            .iter()
            .filter(|(_, s)| s.synced || s.forbidden)
            .count();
        if done < inner.kinds.len() {
            return ConnectionState::Syncing {
                done,
                total: inner.kinds.len(),
            };
        }
        ConnectionState::Live
    }

    pub fn limitations(&self) -> Vec<Limitation> {
        let inner = self.inner.lock().unwrap_or_else(|e| e.into_inner());
        inner
            .kinds
            .iter()
            .filter(|(_, s)| s.forbidden)
            .map(|&(kind, _)| Limitation {
                kind,
                message: limitation_text(kind),
            })
            .collect()
    }

    pub fn is_forbidden(&self, kind: Kind) -> bool {
        let inner = self.inner.lock().unwrap_or_else(|e| e.into_inner());
        inner.kinds.iter().any(|(k, s)| *k == kind && s.forbidden)
    }

    pub fn last_event(&self) -> Option<SystemTime> {
        self.inner
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .last_event
    }

    /// How many times a kind was listed again after its first sync (410 Gone).
    pub fn relists(&self) -> u64 {
        self.inner.lock().unwrap_or_else(|e| e.into_inner()).relists
    }
}

fn limitation_text(kind: Kind) -> String {
    format!(
        "list/watch on {} is forbidden: {}",
        kind.resource(),
        kind.consequence()
    )
}
