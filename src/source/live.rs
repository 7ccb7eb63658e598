//! Live clusters: a read-only `kube` client (list and watch only; nothing in
//! this module can create, update, patch or delete) with one watcher per
//! kind feeding one [`ModelStore`] of converted objects, running on its own
//! tokio runtime thread so the UI never blocks on the network.
//!
//! The handle ([`LiveSource`]) offers the connection state, the time of the
//! last event, the kinds that could not be read ([`Limitation`]s), a
//! [`Cluster`] assembled from the store on demand, and a change counter the UI
//! can poll without blocking.

pub mod config;
pub mod kind;
pub mod state;
pub mod store;
pub mod strip;
pub mod watch;

use std::sync::Arc;
use std::sync::mpsc::Sender;
use std::thread::JoinHandle;
use std::time::{Duration, Instant, SystemTime};

use crate::source::convert::dra;
use k8s_openapi::api::apps::v1 as apps;
use k8s_openapi::api::core::v1 as core;
use k8s_openapi::api::policy::v1 as policy;
use k8s_openapi::api::scheduling::v1 as scheduling;
use k8s_openapi::api::storage::v1 as storage;
use kube::{Api, Client};
use thiserror::Error;

pub use self::config::Target;
pub use self::kind::Kind;
pub use self::state::{ConnectionState, Limitation, Stale};
pub use self::store::{Change, Touched, apply_changes};
pub use self::strip::{Keep, StripMode};
pub use self::watch::{TapChange, TapEvent};

use self::state::Shared;
use self::store::ModelStore;
use self::watch::{KindCtx, run_kind};
use super::build::Typed;
use crate::model::Cluster;
use crate::source::version::ServerVersion;

/// How long to wait between tries when `/version` fails.
const VERSION_RETRY: Duration = Duration::from_secs(10);

/// Reads `/version` (a GET, like everything here) until it answers,
/// recording each failure so a caller can say why it is unknown.
async fn read_server_version(client: Client, into: Arc<std::sync::Mutex<Option<ServerVersion>>>) {
    loop {
        let result = match client.apiserver_version().await {
            Ok(info) if !info.git_version.trim().is_empty() => {
                ServerVersion::Live(info.git_version.trim().to_string())
            }
            Ok(_) => ServerVersion::LiveFailed("its gitVersion is empty".into()),
            Err(e) => ServerVersion::LiveFailed(config::error_chain(&e)),
        };
        let done = matches!(result, ServerVersion::Live(_));
        if let Ok(mut v) = into.lock() {
            *v = Some(result);
        }
        if done {
            return;
        }
        tokio::time::sleep(VERSION_RETRY).await;
    }
}

#[derive(Debug, Error)]
pub enum LiveError {
    #[error("kubeconfig: {0}")]
    BadKubeconfig(String),
    #[error("{0}")]
    Failed(String),
    #[error("no complete list after {seconds} s: {state}")]
    Timeout { seconds: u64, state: String },
    #[error("starting the live source: {0}")]
    Runtime(String),
}

/// How to connect and what to keep.
#[derive(Clone, Debug)]
pub struct LiveOptions {
    pub target: Target,
    pub strip: StripMode,
    /// Fail instead of retrying when a first list fails (one-shot commands).
    pub fail_fast: bool,
    /// A list that makes no progress (no page) for this long is abandoned
    /// and retried, naming the kind.
    pub list_timeout: Duration,
}

/// The default [`LiveOptions::list_timeout`].
pub const LIST_TIMEOUT: Duration = Duration::from_secs(60);

impl Default for LiveOptions {
    fn default() -> Self {
        LiveOptions {
            target: Target::default(),
            strip: StripMode::Engine,
            fail_fast: false,
            list_timeout: LIST_TIMEOUT,
        }
    }
}

/// Polls for changes without blocking; changes coalesce.
pub struct Changes(tokio::sync::watch::Receiver<u64>);

impl Changes {
    /// Whether anything changed since the last call (never blocks).
    pub fn changed(&mut self) -> bool {
        match self.0.has_changed() {
            Ok(true) => {
                self.0.borrow_and_update();
                true
            }
            _ => false,
        }
    }
}

/// A connected live source. Dropping it stops the watchers and the thread.
pub struct LiveSource {
    shared: Arc<Shared>,
    /// The server's `/version` (`None` until the first answer or failure).
    server_version: Arc<std::sync::Mutex<Option<ServerVersion>>>,
    store: Arc<ModelStore>,
    context: String,
    server: String,
    handle: tokio::runtime::Handle,
    shutdown: Option<tokio::sync::oneshot::Sender<()>>,
    thread: Option<JoinHandle<()>>,
}

fn spawn_kind<K>(
    rt: &tokio::runtime::Handle,
    client: &Client,
    ctx: &KindCtx,
    store: &Arc<ModelStore>,
) where
    K: kube::Resource<DynamicType = ()>
        + Typed
        + strip::Strip
        + Clone
        + std::fmt::Debug
        + serde::de::DeserializeOwned
        + serde::Serialize
        + Send
        + Sync
        + 'static,
{
    let api: Api<K> = Api::all(client.clone());
    rt.spawn(run_kind(api, store.clone(), ctx.clone()));
}

impl LiveSource {
    /// Resolves the kubeconfig, starts the runtime thread and the watchers.
    /// Returns at once: follow progress with [`LiveSource::state`] or wait
    /// with [`LiveSource::wait_synced`]. Only a bad kubeconfig fails here.
    pub fn connect(options: LiveOptions, tap: Option<Sender<TapEvent>>) -> Result<Self, LiveError> {
        let runtime = tokio::runtime::Builder::new_multi_thread()
            .worker_threads(2)
            .thread_name("kplace-live")
            .enable_all()
            .build()
            .map_err(|e| LiveError::Runtime(e.to_string()))?;
        let handle = runtime.handle().clone();
        let resolved = handle.block_on(config::resolve(&options.target))?;
        let server = resolved.config.cluster_url.to_string();
        let server = server.trim_end_matches('/').to_string();
        let client = handle
            .block_on(async { Client::try_from(resolved.config) })
            .map_err(|e| LiveError::BadKubeconfig(config::error_chain(&e)))?;
        let shared = Arc::new(Shared::new(&Kind::ALL));
        let ctx = KindCtx {
            shared: shared.clone(),
            mode: options.strip,
            fail_fast: options.fail_fast,
            tap,
            server: server.clone(),
            list_timeout: options.list_timeout,
        };
        let store = Arc::new(ModelStore::default());
        let server_version = Arc::new(std::sync::Mutex::new(None));
        handle.spawn(read_server_version(client.clone(), server_version.clone()));
        spawn_kind::<core::Node>(&handle, &client, &ctx, &store);
        spawn_kind::<core::Pod>(&handle, &client, &ctx, &store);
        spawn_kind::<policy::PodDisruptionBudget>(&handle, &client, &ctx, &store);
        spawn_kind::<scheduling::PriorityClass>(&handle, &client, &ctx, &store);
        spawn_kind::<core::Service>(&handle, &client, &ctx, &store);
        spawn_kind::<apps::ReplicaSet>(&handle, &client, &ctx, &store);
        spawn_kind::<apps::StatefulSet>(&handle, &client, &ctx, &store);
        spawn_kind::<core::ReplicationController>(&handle, &client, &ctx, &store);
        spawn_kind::<core::Namespace>(&handle, &client, &ctx, &store);
        spawn_kind::<storage::StorageClass>(&handle, &client, &ctx, &store);
        spawn_kind::<core::PersistentVolume>(&handle, &client, &ctx, &store);
        spawn_kind::<core::PersistentVolumeClaim>(&handle, &client, &ctx, &store);
        spawn_kind::<storage::CSINode>(&handle, &client, &ctx, &store);
        spawn_kind::<dra::DeviceClassObject>(&handle, &client, &ctx, &store);
        spawn_kind::<dra::ResourceSliceObject>(&handle, &client, &ctx, &store);
        spawn_kind::<dra::ResourceClaimObject>(&handle, &client, &ctx, &store);
        spawn_kind::<dra::ResourceClaimTemplateObject>(&handle, &client, &ctx, &store);
        let (shutdown, stop) = tokio::sync::oneshot::channel::<()>();
        let thread = std::thread::Builder::new()
            .name("kplace-live".into())
            .spawn(move || {
                let _ = runtime.block_on(stop);
                runtime.shutdown_timeout(Duration::from_secs(1));
            })
            .map_err(|e| LiveError::Runtime(e.to_string()))?;
        Ok(LiveSource {
            shared,
            server_version,
            store,
            context: resolved.context,
            server,
            handle,
            shutdown: Some(shutdown),
            thread: Some(thread),
        })
    }

    pub fn context(&self) -> &str {
        &self.context
    }

    /// The API server URL.
    pub fn server(&self) -> &str {
        &self.server
    }

    pub fn state(&self) -> ConnectionState {
        self.shared.state()
    }

    /// What `/version` said, once it answered or failed (`None` before).
    pub fn server_version(&self) -> Option<ServerVersion> {
        self.server_version.lock().ok().and_then(|v| v.clone())
    }

    /// [`LiveSource::server_version`], waiting up to `timeout` for the
    /// first answer; no answer by then is a failure that says so.
    pub fn wait_server_version(&self, timeout: Duration) -> ServerVersion {
        let deadline = Instant::now() + timeout;
        loop {
            if let Some(v) = self.server_version() {
                return v;
            }
            if Instant::now() >= deadline {
                return ServerVersion::LiveFailed(format!(
                    "no answer within {} s",
                    timeout.as_secs_f32()
                ));
            }
            std::thread::sleep(Duration::from_millis(20));
        }
    }

    /// When the last object event or completed list arrived.
    pub fn last_event(&self) -> Option<SystemTime> {
        self.shared.last_event()
    }

    /// Kinds that could not be read and what the answers lose for each.
    pub fn limitations(&self) -> Vec<Limitation> {
        self.shared.limitations()
    }

    /// Kinds listed once and unreadable now (403, 5xx, a list without an
    /// answer): their objects in [`LiveSource::cluster`] are as last seen.
    pub fn stale(&self) -> Vec<Stale> {
        self.shared.stale()
    }

    /// Watch events dropped because they could not be read, per kind.
    pub fn malformed(&self) -> Vec<(Kind, u64)> {
        self.shared.malformed_counts()
    }

    /// Relists after the first sync (410 Gone), for diagnostics and tests.
    pub fn relists(&self) -> u64 {
        self.shared.relists()
    }

    /// Objects per kind in the store.
    pub fn counts(&self) -> Vec<(Kind, usize)> {
        self.store.counts()
    }

    /// Objects per kind received so far, including a list in progress.
    pub fn received(&self) -> Vec<(Kind, usize)> {
        self.store.received()
    }

    /// The current cluster, assembled from the store; the strings are
    /// objects skipped as invalid (`Kind ns/name: field: why`).
    pub fn cluster(&self) -> (Cluster, Vec<String>) {
        self.store.cluster()
    }

    /// The pod and node changes since [`LiveSource::cluster`] or the last
    /// call, with `interner` caught up; `None` when the cluster must be
    /// rebuilt instead (a relist, another kind changed, an invalid object).
    pub fn take_changes(&self, interner: &mut crate::model::Interner) -> Option<Vec<Change>> {
        self.store.take_changes(interner)
    }

    /// A change counter the UI polls each frame.
    pub fn changes(&self) -> Changes {
        Changes(self.shared.subscribe())
    }

    /// Calls `notify` after changes arrive (a burst of watch events is one
    /// call), until the source is dropped: how the TUI is woken to take a
    /// change instead of finding it at its next tick.
    pub fn on_change(&self, notify: impl Fn() + Send + 'static) {
        let mut changes = self.shared.subscribe();
        self.handle.spawn(async move {
            while changes.changed().await.is_ok() {
                notify();
            }
        });
    }

    /// Blocks until every readable kind is listed, the source fails, or the
    /// timeout passes (then the error carries the last connection error).
    pub fn wait_synced(&self, timeout: Duration) -> Result<(), LiveError> {
        let deadline = Instant::now() + timeout;
        let mut changes = self.changes();
        loop {
            match self.state() {
                ConnectionState::Live => return Ok(()),
                ConnectionState::Failed { message } => return Err(LiveError::Failed(message)),
                state if Instant::now() >= deadline => {
                    return Err(LiveError::Timeout {
                        seconds: timeout.as_secs(),
                        state: describe(&state),
                    });
                }
                _ => {}
            }
            let left = deadline.saturating_duration_since(Instant::now());
            let _ = self.handle.block_on(async {
                tokio::time::timeout(left.min(Duration::from_millis(200)), changes.0.changed())
                    .await
            });
        }
    }
}

/// One line for a state, for messages and the status bar.
pub fn describe(state: &ConnectionState) -> String {
    match state {
        ConnectionState::Syncing { done, total } => {
            format!("syncing ({done}/{total} kinds listed)")
        }
        ConnectionState::Live => "live".into(),
        ConnectionState::Reconnecting { since, error } => {
            let secs = since.elapsed().map(|d| d.as_secs()).unwrap_or(0);
            format!("reconnecting for {secs} s: {error}")
        }
        ConnectionState::Failed { message } => format!("failed: {message}"),
    }
}

impl Drop for LiveSource {
    fn drop(&mut self) {
        if let Some(tx) = self.shutdown.take() {
            let _ = tx.send(());
        }
        if let Some(t) = self.thread.take() {
            let _ = t.join();
        }
    }
}
