//! The live source's store: each object is converted into the model as it
//! arrives and only the model object is kept. A stripped `k8s-openapi` Pod
//! still costs several KiB (every optional field of the spec and status has
//! its slot); its model form is a fraction of that, which is what lets a
//! 150,000-pod cluster be watched comfortably. Building a [`Cluster`] then
//! only clones model objects instead of converting the API objects again.
//!
//! Events follow kube's watcher protocol, applied as its reflector store
//! applies them: `Init` starts a (re)list, `InitApply` objects fill it,
//! `InitDone` swaps it in; `Apply` and `Delete` change one object.
//!
//! The store also logs what changed since the cluster was last built, so a
//! follower can apply pod and node events to its cluster in place
//! ([`apply_changes`]) instead of rebuilding 150,000 pods for each batch.
//! A relist, any other kind, an invalid object or a log grown past
//! [`MAX_LOGGED_CHANGES`] asks for a rebuild instead.

use std::collections::BTreeMap;
use std::sync::Mutex;

use kube::ResourceExt;
use kube::runtime::watcher::Event;

use super::kind::Kind;
use crate::model::intern::{Interner, Sym};
use crate::model::labels::Labels;
use crate::model::{Cluster, Node, Pod, PodId};
use crate::source::build::{ClusterBuilder, ModelObject, Typed};

/// `(namespace, name)`: API list order.
type Key = (String, String);

/// An object as stored: converted, or why it could not be.
enum Entry {
    Model(ModelObject),
    Invalid(String),
}

#[derive(Default)]
struct KindStore {
    objects: BTreeMap<Key, Entry>,
    /// The objects of a (re)list in progress.
    listing: Option<BTreeMap<Key, Entry>>,
}

/// One pod or node event, converted, to apply in place.
#[derive(Clone, Debug)]
pub enum Change {
    /// Added or modified.
    Pod(Box<Pod>),
    PodDeleted {
        namespace: String,
        name: String,
    },
    Node(Node),
    NodeDeleted(String),
}

/// Past this many changes waiting, the log is dropped and the next cluster
/// rebuilt: a converted pod is about a KiB, so a source nobody follows in
/// place (a one-shot `place --context`) holds at most a few tens of MB of
/// log, and a feed that takes changes every second or two never nears it.
pub const MAX_LOGGED_CHANGES: usize = 20_000;

#[derive(Default)]
struct Inner {
    interner: Interner,
    /// In [`Kind::ALL`] order.
    kinds: Vec<KindStore>,
    /// Pod and node changes since the cluster was last built.
    log: Vec<Change>,
    /// Something changed that [`Change`] cannot say: rebuild.
    rebuild: bool,
}

impl Inner {
    /// Logs a change of kind `kind`, or asks for a rebuild when the change
    /// is not a valid pod or node (or the log is full).
    fn log(&mut self, kind: Kind, change: impl FnOnce() -> Option<Change>) {
        if self.rebuild {
            return;
        }
        match (kind, change()) {
            (Kind::Pod | Kind::Node, Some(c)) if self.log.len() < MAX_LOGGED_CHANGES => {
                self.log.push(c)
            }
            _ => {
                self.rebuild = true;
                self.log = Vec::new();
            }
        }
    }
}

/// One store for all kinds: they share the interner.
pub struct ModelStore {
    inner: Mutex<Inner>,
}

impl Default for ModelStore {
    fn default() -> Self {
        let mut interner = Interner::default();
        // Interned first, as `Cluster::new` would, so a cluster's interner
        // stays a prefix of this one and can catch up with it.
        for s in crate::model::cluster::WELL_KNOWN_STRINGS {
            interner.intern(s);
        }
        ModelStore {
            inner: Mutex::new(Inner {
                interner,
                kinds: Kind::ALL.iter().map(|_| KindStore::default()).collect(),
                log: Vec::new(),
                rebuild: false,
            }),
        }
    }
}

fn slot(kind: Kind) -> usize {
    Kind::ALL.iter().position(|&k| k == kind).unwrap_or(0)
}

fn key_of<K: kube::Resource>(o: &K) -> Key {
    (o.namespace().unwrap_or_default(), o.name_any())
}

fn entry<K: Typed>(o: &K, interner: &mut Interner) -> Entry {
    match o.to_model(interner) {
        Ok(m) => Entry::Model(m),
        Err(e) => Entry::Invalid(e.to_string()),
    }
}

/// The order kinds are added to a cluster: classes and namespaces before
/// the pods that refer to them, as the file loader sees a `kubectl get`.
const BUILD_ORDER: [Kind; 17] = [
    Kind::PriorityClass,
    Kind::Namespace,
    Kind::Node,
    Kind::Pod,
    Kind::ReplicaSet,
    Kind::StatefulSet,
    Kind::ReplicationController,
    Kind::Service,
    Kind::PodDisruptionBudget,
    Kind::StorageClass,
    Kind::PersistentVolume,
    Kind::PersistentVolumeClaim,
    Kind::CSINode,
    Kind::DeviceClass,
    Kind::ResourceSlice,
    Kind::ResourceClaimTemplate,
    Kind::ResourceClaim,
];

impl ModelStore {
    fn lock(&self) -> std::sync::MutexGuard<'_, Inner> {
        self.inner.lock().unwrap_or_else(|e| e.into_inner())
    }

    /// Applies one watcher event of kind `K`.
    pub fn apply<K: Typed + kube::Resource>(&self, event: &Event<K>) {
        let mut guard = self.lock();
        let inner = &mut *guard;
        let store = &mut inner.kinds[slot(K::KIND)];
        match event {
            Event::Init => store.listing = Some(BTreeMap::new()),
            Event::InitApply(o) => {
                let e = entry(o, &mut inner.interner);
                store
                    .listing
                    .get_or_insert_with(BTreeMap::new)
                    .insert(key_of(o), e);
            }
            Event::InitDone => {
                if let Some(listed) = store.listing.take() {
                    store.objects = listed;
                }
                inner.rebuild = true;
                inner.log = Vec::new();
            }
            Event::Apply(o) => {
                let e = entry(o, &mut inner.interner);
                let change = match &e {
                    Entry::Model(ModelObject::Pod(p)) => Some(Change::Pod(Box::new(Pod::clone(p)))),
                    Entry::Model(ModelObject::Node(n)) => Some(Change::Node(n.clone())),
                    _ => None,
                };
                let was_valid =
                    !matches!(store.objects.insert(key_of(o), e), Some(Entry::Invalid(_)));
                inner.log(K::KIND, || change.filter(|_| was_valid));
            }
            Event::Delete(o) => {
                let (namespace, name) = key_of(o);
                match store.objects.remove(&(namespace.clone(), name.clone())) {
                    // Never seen (or already gone): nothing changes.
                    None => {}
                    Some(Entry::Invalid(_)) => inner.log(K::KIND, || None),
                    Some(Entry::Model(_)) => inner.log(K::KIND, || {
                        Some(match K::KIND {
                            Kind::Pod => Change::PodDeleted { namespace, name },
                            _ => Change::NodeDeleted(name),
                        })
                    }),
                }
            }
        }
    }

    /// The pod and node changes since the cluster was last built or they
    /// were last taken, with `interner` (the cluster's) caught up with the
    /// symbols they use; `None` when the cluster must be rebuilt instead.
    pub fn take_changes(&self, interner: &mut Interner) -> Option<Vec<Change>> {
        let mut inner = self.lock();
        if inner.rebuild || !interner.catch_up(&inner.interner) {
            return None;
        }
        Some(std::mem::take(&mut inner.log))
    }

    /// Objects per kind (valid or not).
    pub fn counts(&self) -> Vec<(Kind, usize)> {
        let inner = self.lock();
        Kind::ALL
            .iter()
            .map(|&k| (k, inner.kinds[slot(k)].objects.len()))
            .collect()
    }

    /// Objects per kind received so far, counting a list still in progress
    /// (for the loading screen).
    pub fn received(&self) -> Vec<(Kind, usize)> {
        let inner = self.lock();
        Kind::ALL
            .iter()
            .map(|&k| {
                let s = &inner.kinds[slot(k)];
                (k, s.listing.as_ref().map_or(s.objects.len(), BTreeMap::len))
            })
            .collect()
    }

    /// The cluster now, and `Kind ns/name: why` for each object skipped.
    pub fn cluster(&self) -> (Cluster, Vec<String>) {
        let mut inner = self.lock();
        inner.log = Vec::new();
        inner.rebuild = false;
        let mut b = ClusterBuilder::with_interner(inner.interner.clone());
        let mut invalid = Vec::new();
        for kind in BUILD_ORDER {
            for e in inner.kinds[slot(kind)].objects.values() {
                match e {
                    Entry::Model(m) => b.push(m.clone()),
                    // The conversion error names the kind, object and field.
                    Entry::Invalid(why) => invalid.push(why.clone()),
                }
            }
        }
        drop(inner);
        (b.finish(), invalid)
    }
}

/// What [`apply_changes`] touched, so caches built on the cluster (the
/// TUI's pod table) update only that.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Touched {
    /// Ids (in the changed cluster) of the pods added or changed, and of
    /// each deleted pod's id, which the last pod took; ids past the
    /// cluster's pods are gone. In no particular order, maybe repeated.
    pub pods: Vec<PodId>,
    /// A node was added or deleted (which pods' nodes exist changed).
    pub nodes_came_or_went: bool,
    /// A node was added, deleted or changed in what the model keeps.
    pub nodes_changed: bool,
    /// The namespace and labels of every version of a pod the batch
    /// added, changed or deleted (before and after a change), for caches
    /// that depend on the pods a selector matches.
    pub pod_labels: Vec<(Sym, Labels)>,
}

/// Applies pod and node changes to `cluster` in place, in arrival order;
/// its interner must know their symbols ([`ModelStore::take_changes`]).
pub fn apply_changes(cluster: &mut Cluster, changes: Vec<Change>) -> Touched {
    let mut touched = Touched::default();
    for change in changes {
        match change {
            Change::Pod(pod) => {
                if let Some(old) = cluster.indexed_pod_id(pod.namespace, &pod.name) {
                    let old = cluster.pod(old);
                    touched.pod_labels.push((old.namespace, old.labels.clone()));
                }
                touched.pod_labels.push((pod.namespace, pod.labels.clone()));
                touched.pods.push(cluster.upsert_pod(*pod));
            }
            Change::PodDeleted { namespace, name } => {
                if let Some(ns) = cluster.interner.lookup(&namespace)
                    && let Some(id) = cluster.indexed_pod_id(ns, &name)
                    && let Some(gone) = cluster.delete_pod(ns, &name)
                {
                    touched.pod_labels.push((gone.namespace, gone.labels));
                    // The last pod moved to that id (the same pod, renumbered).
                    touched.pods.push(id);
                }
            }
            Change::Node(node) => {
                let new = match cluster.node_id(&node.name) {
                    None => true,
                    Some(id) => {
                        touched.nodes_changed |= *cluster.node(id) != node;
                        false
                    }
                };
                touched.nodes_came_or_went |= new;
                touched.nodes_changed |= new;
                cluster.upsert_node(node);
            }
            Change::NodeDeleted(name) => {
                let gone = cluster.delete_node(&name);
                touched.nodes_came_or_went |= gone;
                touched.nodes_changed |= gone;
            }
        }
    }
    cluster.refresh_computed_pdbs();
    touched
}
