//! Live clusters: a read-only `kube` client (list and watch only; nothing in
//! this module can create, update, patch or delete) with one reflector per
//! kind, running on its own tokio runtime thread so the UI never blocks on
//! the network.
//!
//! The handle ([`LiveSource`]) offers the connection state, the time of the
//! last event, the kinds that could not be read ([`Limitation`]s), a
//! [`Cluster`] built from the stores on demand, and a change counter the UI
//! can poll without blocking.

pub mod build;
pub mod config;
pub mod kind;
pub mod state;
pub mod strip;
pub mod watch;

use std::sync::Arc;
use std::sync::mpsc::Sender;
use std::thread::JoinHandle;
use std::time::{Duration, Instant, SystemTime};

use k8s_openapi::api::apps::v1 as apps;
use k8s_openapi::api::core::v1 as core;
use k8s_openapi::api::policy::v1 as policy;
use k8s_openapi::api::scheduling::v1 as scheduling;
use kube::runtime::reflector::{self, Store};
use kube::{Api, Client, ResourceExt};
use thiserror::Error;

pub use self::config::Target;
pub use self::kind::Kind;
pub use self::state::{ConnectionState, Limitation};
pub use self::strip::StripMode;
pub use self::watch::{TapChange, TapEvent};

use self::build::{ClusterBuilder, Typed};
use self::state::Shared;
use self::watch::{KindCtx, run_kind};
use crate::model::Cluster;

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
}

impl Default for LiveOptions {
    fn default() -> Self {
        LiveOptions {
            target: Target::default(),
            strip: StripMode::Engine,
            fail_fast: false,
        }
    }
}

/// The reflector stores, one per kind.
#[derive(Clone)]
struct Stores {
    nodes: Store<core::Node>,
    pods: Store<core::Pod>,
    pdbs: Store<policy::PodDisruptionBudget>,
    priority_classes: Store<scheduling::PriorityClass>,
    services: Store<core::Service>,
    replica_sets: Store<apps::ReplicaSet>,
    stateful_sets: Store<apps::StatefulSet>,
    replication_controllers: Store<core::ReplicationController>,
    namespaces: Store<core::Namespace>,
}

/// Adds a store's objects in API list order (by namespace, then name), so
/// node order, and with it tie-breaking, matches a `kubectl get` snapshot.
fn add_sorted<K: Typed + kube::Resource<DynamicType = ()> + Clone>(
    b: &mut ClusterBuilder,
    store: &Store<K>,
) {
    let mut objects = store.state();
    objects.sort_by_key(|o| (o.namespace(), o.name_any()));
    for o in &objects {
        b.add(o.as_ref());
    }
}

impl Stores {
    fn cluster(&self) -> (Cluster, Vec<String>) {
        let mut b = ClusterBuilder::default();
        add_sorted(&mut b, &self.priority_classes);
        add_sorted(&mut b, &self.namespaces);
        add_sorted(&mut b, &self.nodes);
        add_sorted(&mut b, &self.pods);
        add_sorted(&mut b, &self.replica_sets);
        add_sorted(&mut b, &self.stateful_sets);
        add_sorted(&mut b, &self.replication_controllers);
        add_sorted(&mut b, &self.services);
        add_sorted(&mut b, &self.pdbs);
        b.finish()
    }

    fn counts(&self) -> Vec<(Kind, usize)> {
        vec![
            (Kind::Node, self.nodes.len()),
            (Kind::Pod, self.pods.len()),
            (Kind::PodDisruptionBudget, self.pdbs.len()),
            (Kind::PriorityClass, self.priority_classes.len()),
            (Kind::Service, self.services.len()),
            (Kind::ReplicaSet, self.replica_sets.len()),
            (Kind::StatefulSet, self.stateful_sets.len()),
            (
                Kind::ReplicationController,
                self.replication_controllers.len(),
            ),
            (Kind::Namespace, self.namespaces.len()),
        ]
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
    stores: Stores,
    context: String,
    server: String,
    handle: tokio::runtime::Handle,
    shutdown: Option<tokio::sync::oneshot::Sender<()>>,
    thread: Option<JoinHandle<()>>,
}

fn spawn_kind<K>(rt: &tokio::runtime::Handle, client: &Client, ctx: &KindCtx) -> Store<K>
where
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
    let (store, writer) = reflector::store::<K>();
    let api: Api<K> = Api::all(client.clone());
    rt.spawn(run_kind(api, writer, ctx.clone()));
    store
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
        };
        let stores = Stores {
            nodes: spawn_kind(&handle, &client, &ctx),
            pods: spawn_kind(&handle, &client, &ctx),
            pdbs: spawn_kind(&handle, &client, &ctx),
            priority_classes: spawn_kind(&handle, &client, &ctx),
            services: spawn_kind(&handle, &client, &ctx),
            replica_sets: spawn_kind(&handle, &client, &ctx),
            stateful_sets: spawn_kind(&handle, &client, &ctx),
            replication_controllers: spawn_kind(&handle, &client, &ctx),
            namespaces: spawn_kind(&handle, &client, &ctx),
        };
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
            stores,
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

    /// When the last object event or completed list arrived.
    pub fn last_event(&self) -> Option<SystemTime> {
        self.shared.last_event()
    }

    /// Kinds that could not be read and what the answers lose for each.
    pub fn limitations(&self) -> Vec<Limitation> {
        self.shared.limitations()
    }

    /// Relists after the first sync (410 Gone), for diagnostics and tests.
    pub fn relists(&self) -> u64 {
        self.shared.relists()
    }

    /// Objects per kind in the stores.
    pub fn counts(&self) -> Vec<(Kind, usize)> {
        self.stores.counts()
    }

    /// The current cluster, converted from the stores; the strings are
    /// objects skipped as invalid (`Kind ns/name: field: why`).
    pub fn cluster(&self) -> (Cluster, Vec<String>) {
        self.stores.cluster()
    }

    /// A change counter the UI polls each frame.
    pub fn changes(&self) -> Changes {
        Changes(self.shared.subscribe())
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
