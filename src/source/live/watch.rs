//! One list-then-watch loop per kind: kube's `watcher` (relists on 410 Gone,
//! resumes dropped watches from the last resourceVersion) feeding the
//! [`ModelStore`], with our own exponential backoff so the state can say
//! when a retry is pending and when it has recovered.

use std::fmt::Debug;
use std::sync::Arc;
use std::sync::mpsc::Sender;
use std::time::{Duration, Instant};

use futures::StreamExt;
use kube::runtime::WatchStreamExt;
use kube::runtime::watcher::{self, Event};
use kube::{Api, Resource};
use serde::Serialize;
use serde::de::DeserializeOwned;

use super::config::error_chain;
use super::kind::Kind;
use super::state::Shared;
use super::store::ModelStore;
use super::strip::{Strip, StripMode};
use crate::source::build::Typed;

/// A change as the watcher saw it, for recorders. Objects are JSON, already
/// stripped or redacted.
#[derive(Clone, Debug)]
pub enum TapChange {
    /// A (re)list starts; `InitApply` objects follow, then `InitDone`.
    Init,
    InitApply(serde_json::Value),
    InitDone,
    Apply(serde_json::Value),
    Delete(serde_json::Value),
    /// The kind cannot be read (403); it will send nothing more.
    Forbidden,
    /// The source has stopped for good.
    Failed(String),
}

#[derive(Clone, Debug)]
pub struct TapEvent {
    pub kind: Kind,
    pub at: Instant,
    pub change: TapChange,
}

/// Everything a kind's loop needs besides its API handle and store.
#[derive(Clone)]
pub struct KindCtx {
    pub shared: Arc<Shared>,
    pub mode: StripMode,
    /// Before the first full list, treat errors as fatal (for `record`).
    pub fail_fast: bool,
    pub tap: Option<Sender<TapEvent>>,
    pub server: String,
    /// A list that makes no progress for this long is abandoned and
    /// started again (the error names the kind).
    pub list_timeout: Duration,
}

/// Retry delays: 250 ms doubling to 30 s, reset by any success.
struct Backoff(Duration);

impl Backoff {
    const FIRST: Duration = Duration::from_millis(250);
    const MAX: Duration = Duration::from_secs(30);

    fn next(&mut self) -> Duration {
        let d = self.0;
        self.0 = (self.0 * 2).min(Self::MAX);
        d
    }
}

/// A retry that has produced no error for this long is taken as connected:
/// a working watch is silent until something changes.
const QUIET_MEANS_CONNECTED: Duration = Duration::from_secs(2);

enum Verdict {
    /// 410 Gone: the watcher relists by itself; not a connection problem.
    Relist,
    Forbidden,
    /// 404 on a kind the API server may not serve (`resource.k8s.io/v1`
    /// before Kubernetes 1.34): the cluster has none of it.
    NotServed,
    Fatal(String),
    Retry(String),
    /// A watch event that could not be read: dropped and counted, the
    /// watch goes on.
    Malformed,
}

fn api_status(e: &watcher::Error) -> Option<&kube::core::Status> {
    match e {
        watcher::Error::InitialListFailed(kube::Error::Api(s))
        | watcher::Error::WatchStartFailed(kube::Error::Api(s))
        | watcher::Error::WatchFailed(kube::Error::Api(s)) => Some(s),
        watcher::Error::WatchError(s) => Some(s),
        _ => None,
    }
}

fn classify(e: &watcher::Error, kind: Kind, server: &str) -> Verdict {
    // A watch line that is not an event: kube reports a JSON error, or,
    // when the line happens to read as a `Status` (every field of which is
    // optional), a status without an HTTP code.
    match e {
        watcher::Error::WatchFailed(kube::Error::SerdeError(_)) => return Verdict::Malformed,
        watcher::Error::WatchFailed(kube::Error::Api(s)) if s.code == 0 => {
            return Verdict::Malformed;
        }
        _ => {}
    }
    match api_status(e).map(|s| s.code) {
        Some(410) => Verdict::Relist,
        Some(403) => Verdict::Forbidden,
        Some(404) if kind.may_be_unserved() => Verdict::NotServed,
        Some(401) => Verdict::Fatal(format!(
            "the API server at {server} rejected the credentials (401 Unauthorized): the token is expired or invalid; log in again or refresh the kubeconfig"
        )),
        Some(code) => Verdict::Retry(format!(
            "{} {}: {} ({code})",
            verb(e),
            kind.resource(),
            api_status(e).map(|s| s.message.as_str()).unwrap_or("")
        )),
        None => Verdict::Retry(format!(
            "cannot reach the API server at {server} ({} {}): {}",
            verb(e),
            kind.resource(),
            error_chain(e)
        )),
    }
}

fn verb(e: &watcher::Error) -> &'static str {
    match e {
        watcher::Error::InitialListFailed(_) => "list",
        _ => "watch",
    }
}

/// The object as the recorder writes it, with `apiVersion` and `kind` (the
/// DRA kinds' own serde structs do not serialize them; `k8s-openapi`'s do).
fn tap_json<K: Serialize + Resource<DynamicType = ()>>(o: &K) -> serde_json::Value {
    let mut v = serde_json::to_value(o).unwrap_or(serde_json::Value::Null);
    if let Some(m) = v.as_object_mut() {
        m.entry("apiVersion")
            .or_insert_with(|| K::api_version(&()).into());
        m.entry("kind").or_insert_with(|| K::kind(&()).into());
    }
    v
}

/// Lists and watches one kind until the runtime shuts down, a 403, or a
/// fatal error.
pub async fn run_kind<K>(api: Api<K>, store: Arc<ModelStore>, ctx: KindCtx)
where
    K: Resource<DynamicType = ()>
        + Typed
        + Strip
        + Clone
        + Debug
        + DeserializeOwned
        + Serialize
        + Send
        + Sync
        + 'static,
{
    let kind = K::KIND;
    let mode = ctx.mode;
    let start = move || {
        watcher::watcher(api.clone(), watcher::Config::default())
            .modify(move |o: &mut K| o.strip(mode))
            .boxed()
    };
    let mut stream = start();
    let mut backoff = Backoff(Backoff::FIRST);
    let mut synced = false;
    let mut quiet_deadline: Option<tokio::time::Instant> = None;
    // Set while a list is in progress; moved on by each page's objects.
    let mut list_deadline = Some(tokio::time::Instant::now() + ctx.list_timeout);
    let tap = |change: TapChange| {
        if let Some(tx) = &ctx.tap {
            let _ = tx.send(TapEvent {
                kind,
                at: Instant::now(),
                change,
            });
        }
    };
    loop {
        let wake = [quiet_deadline, list_deadline].into_iter().flatten().min();
        let item = match wake {
            Some(deadline) => tokio::select! {
                item = stream.next() => item,
                _ = tokio::time::sleep_until(deadline) => {
                    let now = tokio::time::Instant::now();
                    if list_deadline.is_some_and(|d| d <= now) {
                        let message = format!(
                            "list {}: no answer after {} s",
                            kind.resource(),
                            ctx.list_timeout.as_secs_f32()
                        );
                        if ctx.fail_fast && !synced {
                            ctx.shared.fail(kind, message.clone());
                            tap(TapChange::Failed(message));
                            return;
                        }
                        ctx.shared.error(kind, format!("{message}; listing again"));
                        // Dropping the stream abandons the request.
                        stream = start();
                        list_deadline = Some(now + ctx.list_timeout);
                        quiet_deadline = None;
                    }
                    if quiet_deadline.is_some_and(|d| d <= now) {
                        quiet_deadline = None;
                        ctx.shared.recovered(kind);
                    }
                    continue;
                }
            },
            None => stream.next().await,
        };
        let Some(item) = item else { return };
        match item {
            Ok(event) => {
                quiet_deadline = None;
                backoff = Backoff(Backoff::FIRST);
                match &event {
                    Event::Init | Event::InitApply(_) => {
                        list_deadline = Some(tokio::time::Instant::now() + ctx.list_timeout);
                    }
                    Event::InitDone => list_deadline = None,
                    Event::Apply(_) | Event::Delete(_) => {}
                }
                if ctx.tap.is_some() {
                    tap(match &event {
                        Event::Init => TapChange::Init,
                        Event::InitApply(o) => TapChange::InitApply(tap_json(o)),
                        Event::InitDone => TapChange::InitDone,
                        Event::Apply(o) => TapChange::Apply(tap_json(o)),
                        Event::Delete(o) => TapChange::Delete(tap_json(o)),
                    });
                }
                store.apply(&event);
                match event {
                    Event::InitDone => {
                        synced = true;
                        ctx.shared.event(kind, true);
                    }
                    Event::Apply(_) | Event::Delete(_) => ctx.shared.event(kind, false),
                    Event::Init | Event::InitApply(_) => {}
                }
            }
            Err(e) => match classify(&e, kind, &ctx.server) {
                Verdict::Relist => {}
                Verdict::NotServed => {
                    // Nothing to list: the kind is an empty, complete list.
                    store.apply(&watcher::Event::<K>::Init);
                    store.apply(&watcher::Event::<K>::InitDone);
                    tap(TapChange::Init);
                    tap(TapChange::InitDone);
                    ctx.shared.event(kind, true);
                    return;
                }
                Verdict::Malformed => ctx.shared.malformed(kind),
                // A live view retries a 403 (RBAC fixed, a token
                // refreshed) and marks the kind's objects stale meanwhile;
                // a recording (or nodes and pods never listed) stops.
                Verdict::Forbidden
                    if ctx.tap.is_none() && !ctx.fail_fast && (synced || !kind.essential()) =>
                {
                    ctx.shared.forbidden(kind);
                    tokio::time::sleep(backoff.next()).await;
                    quiet_deadline = Some(tokio::time::Instant::now() + QUIET_MEANS_CONNECTED);
                }
                Verdict::Forbidden => {
                    ctx.shared.forbidden(kind);
                    tap(TapChange::Forbidden);
                    if kind.essential() {
                        tap(TapChange::Failed(format!(
                            "list/watch on {} is forbidden",
                            kind.resource()
                        )));
                    }
                    return;
                }
                Verdict::Fatal(message) => {
                    ctx.shared.fail(kind, message.clone());
                    tap(TapChange::Failed(message));
                    return;
                }
                Verdict::Retry(message) if ctx.fail_fast && !synced => {
                    ctx.shared.fail(kind, message.clone());
                    tap(TapChange::Failed(message));
                    return;
                }
                Verdict::Retry(message) => {
                    ctx.shared.error(kind, message);
                    tokio::time::sleep(backoff.next()).await;
                    quiet_deadline = Some(tokio::time::Instant::now() + QUIET_MEANS_CONNECTED);
                }
            },
        }
    }
}
