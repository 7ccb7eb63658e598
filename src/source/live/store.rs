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

use std::collections::BTreeMap;
use std::sync::Mutex;

use kube::ResourceExt;
use kube::runtime::watcher::Event;

use super::kind::Kind;
use crate::model::Cluster;
use crate::model::intern::Interner;
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

#[derive(Default)]
struct Inner {
    interner: Interner,
    /// In [`Kind::ALL`] order.
    kinds: Vec<KindStore>,
}

/// One store for all kinds: they share the interner.
pub struct ModelStore {
    inner: Mutex<Inner>,
}

impl Default for ModelStore {
    fn default() -> Self {
        ModelStore {
            inner: Mutex::new(Inner {
                interner: Interner::default(),
                kinds: Kind::ALL.iter().map(|_| KindStore::default()).collect(),
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
            }
            Event::Apply(o) => {
                let e = entry(o, &mut inner.interner);
                store.objects.insert(key_of(o), e);
            }
            Event::Delete(o) => {
                store.objects.remove(&key_of(o));
            }
        }
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
        let inner = self.lock();
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
