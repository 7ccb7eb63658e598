//! Objects of the kinds kplace reads → a [`Cluster`]: the one conversion
//! path of snapshot files, the live source, recordings and timelines. Each
//! typed `k8s-openapi` object becomes a [`ModelObject`] with a shared
//! interner, and a [`ClusterBuilder`] assembles them. What an invalid object
//! means is the caller's choice: the file loader fails with it (naming the
//! file and line), live sources and timelines skip it and report it.

use k8s_openapi::api::apps::v1 as apps;
use k8s_openapi::api::core::v1 as core;
use k8s_openapi::api::policy::v1 as policy;
use k8s_openapi::api::scheduling::v1 as scheduling;
use k8s_openapi::api::storage::v1 as storage;
use rustc_hash::FxHashMap;
use serde::de::DeserializeOwned;
use std::sync::Arc;

use super::live::kind::Kind;
use crate::model::Cluster;
use crate::model::InvalidObject;
use crate::model::dra::{DeviceClass, Dra, ResourceClaim, ResourceClaimTemplate, ResourceSlice};
use crate::model::intern::{Interner, Sym};
use crate::model::labels::Labels;
use crate::model::node::Node;
use crate::model::pod::Pod;
use crate::model::policy::{DisruptionBudget, PriorityClass, SelectorOwner};
use crate::model::storage::{
    CsiNode, PersistentVolume, PersistentVolumeClaim, Storage, StorageClass,
};
use crate::source::convert::dra as dconv;
use crate::source::convert::{self, pod::labels_of, policy as pconv, storage as sconv};

/// One object, converted into the model with some interner.
#[derive(Clone, Debug)]
pub enum ModelObject {
    Node(Node),
    /// Shared as the cluster keeps it (and far larger than the other
    /// variants): the cluster takes it without copying 520 bytes per pod.
    Pod(Arc<Pod>),
    PriorityClass(PriorityClass),
    Pdb(DisruptionBudget),
    Owner(SelectorOwner),
    Namespace(Sym, Labels),
    StorageClass(StorageClass),
    PersistentVolume(Box<PersistentVolume>),
    PersistentVolumeClaim(Box<PersistentVolumeClaim>),
    CsiNode(CsiNode),
    DeviceClass(DeviceClass),
    ResourceSlice(Box<ResourceSlice>),
    ResourceClaim(Box<ResourceClaim>),
    ResourceClaimTemplate(Box<ResourceClaimTemplate>),
}

/// A typed `k8s-openapi` object of one of the kinds in [`Kind`].
pub trait Typed {
    const KIND: Kind;
    fn to_model(&self, interner: &mut Interner) -> Result<ModelObject, InvalidObject>;
}

macro_rules! typed {
    ($ty:ty, $kind:expr, |$o:ident, $i:ident| $body:expr) => {
        impl Typed for $ty {
            const KIND: Kind = $kind;
            fn to_model(&self, $i: &mut Interner) -> Result<ModelObject, InvalidObject> {
                let $o = self;
                $body
            }
        }
    };
}

typed!(core::Node, Kind::Node, |o, i| convert::convert_node(o, i)
    .map(ModelObject::Node));
typed!(core::Pod, Kind::Pod, |o, i| convert::convert_pod(o, i)
    .map(|p| ModelObject::Pod(Arc::new(p))));
typed!(scheduling::PriorityClass, Kind::PriorityClass, |o, _i| {
    pconv::convert_priority_class(o).map(ModelObject::PriorityClass)
});
typed!(
    policy::PodDisruptionBudget,
    Kind::PodDisruptionBudget,
    |o, i| pconv::convert_pdb(o, i).map(ModelObject::Pdb)
);
typed!(core::Service, Kind::Service, |o, i| Ok(ModelObject::Owner(
    pconv::convert_service(o, i)
)));
typed!(
    core::ReplicationController,
    Kind::ReplicationController,
    |o, i| Ok(ModelObject::Owner(pconv::convert_rc(o, i)))
);
typed!(apps::ReplicaSet, Kind::ReplicaSet, |o, i| {
    pconv::convert_replica_set(o, i).map(ModelObject::Owner)
});
typed!(apps::StatefulSet, Kind::StatefulSet, |o, i| {
    pconv::convert_stateful_set(o, i).map(ModelObject::Owner)
});
typed!(core::Namespace, Kind::Namespace, |o, i| {
    let name = i.intern(o.metadata.name.as_deref().unwrap_or(""));
    Ok(ModelObject::Namespace(
        name,
        labels_of(o.metadata.labels.as_ref(), i),
    ))
});

typed!(storage::StorageClass, Kind::StorageClass, |o, i| {
    sconv::convert_storage_class(o, i).map(ModelObject::StorageClass)
});
typed!(core::PersistentVolume, Kind::PersistentVolume, |o, i| {
    sconv::convert_persistent_volume(o, i).map(|v| ModelObject::PersistentVolume(Box::new(v)))
});
typed!(
    core::PersistentVolumeClaim,
    Kind::PersistentVolumeClaim,
    |o, i| {
        sconv::convert_persistent_volume_claim(o, i)
            .map(|c| ModelObject::PersistentVolumeClaim(Box::new(c)))
    }
);
typed!(storage::CSINode, Kind::CSINode, |o, _i| {
    sconv::convert_csi_node(o).map(ModelObject::CsiNode)
});

typed!(dconv::DeviceClassObject, Kind::DeviceClass, |o, _i| {
    dconv::convert_device_class(o).map(ModelObject::DeviceClass)
});
typed!(dconv::ResourceSliceObject, Kind::ResourceSlice, |o, i| {
    dconv::convert_resource_slice(o, i).map(|s| ModelObject::ResourceSlice(Box::new(s)))
});
typed!(dconv::ResourceClaimObject, Kind::ResourceClaim, |o, i| {
    dconv::convert_resource_claim(o, i).map(|c| ModelObject::ResourceClaim(Box::new(c)))
});
typed!(
    dconv::ResourceClaimTemplateObject,
    Kind::ResourceClaimTemplate,
    |o, i| {
        dconv::convert_resource_claim_template(o, i)
            .map(|t| ModelObject::ResourceClaimTemplate(Box::new(t)))
    }
);

/// Collects converted objects and assembles the [`Cluster`] (what the file
/// loader's `Collector` does).
#[derive(Default)]
pub struct ClusterBuilder {
    pub interner: Interner,
    nodes: Vec<Node>,
    pods: PodChunks,
    priority_classes: Vec<PriorityClass>,
    pdbs: Vec<DisruptionBudget>,
    owners: Vec<SelectorOwner>,
    namespaces: FxHashMap<Sym, Labels>,
    storage_classes: Vec<StorageClass>,
    volumes: Vec<PersistentVolume>,
    claims: Vec<PersistentVolumeClaim>,
    csi_nodes: Vec<CsiNode>,
    device_classes: Vec<DeviceClass>,
    resource_slices: Vec<ResourceSlice>,
    resource_claims: Vec<ResourceClaim>,
    claim_templates: Vec<ResourceClaimTemplate>,
}

impl ClusterBuilder {
    pub fn with_interner(interner: Interner) -> Self {
        ClusterBuilder {
            interner,
            ..Default::default()
        }
    }

    /// Makes room for `items` more objects, nearly all pods in a big
    /// cluster.
    pub fn reserve(&mut self, items: usize) {
        self.pods.chunks.reserve(items.div_ceil(POD_CHUNK));
    }

    /// The pod at `index` (an index [`ClusterBuilder::push_at`] returned
    /// for a pod).
    pub fn pod_at(&self, index: usize) -> &Pod {
        &self.pods.chunks[index / POD_CHUNK][index % POD_CHUNK]
    }

    pub fn push(&mut self, object: ModelObject) {
        self.push_at(object, None);
    }

    /// Adds an object, or replaces the one at `replace` (an index a previous
    /// call returned for an object of the same kind); returns its index.
    pub fn push_at(&mut self, object: ModelObject, replace: Option<usize>) -> usize {
        fn put<T>(v: &mut Vec<T>, x: T, at: Option<usize>) -> usize {
            match at {
                Some(i) if i < v.len() => {
                    v[i] = x;
                    i
                }
                _ => {
                    v.push(x);
                    v.len() - 1
                }
            }
        }
        match object {
            ModelObject::Node(n) => put(&mut self.nodes, n, replace),
            ModelObject::Pod(p) => self.pods.put(p, replace),
            ModelObject::PriorityClass(pc) => put(&mut self.priority_classes, pc, replace),
            ModelObject::Pdb(p) => put(&mut self.pdbs, p, replace),
            ModelObject::Owner(o) => put(&mut self.owners, o, replace),
            ModelObject::Namespace(name, labels) => {
                self.namespaces.insert(name, labels);
                0
            }
            ModelObject::StorageClass(c) => put(&mut self.storage_classes, c, replace),
            ModelObject::PersistentVolume(v) => put(&mut self.volumes, *v, replace),
            ModelObject::PersistentVolumeClaim(c) => put(&mut self.claims, *c, replace),
            ModelObject::CsiNode(n) => put(&mut self.csi_nodes, n, replace),
            ModelObject::DeviceClass(c) => put(&mut self.device_classes, c, replace),
            ModelObject::ResourceSlice(s) => put(&mut self.resource_slices, *s, replace),
            ModelObject::ResourceClaim(c) => put(&mut self.resource_claims, *c, replace),
            ModelObject::ResourceClaimTemplate(t) => put(&mut self.claim_templates, *t, replace),
        }
    }

    /// Whether no node and no pod was added (a snapshot needs one).
    pub fn has_no_nodes_or_pods(&self) -> bool {
        self.nodes.is_empty() && self.pods.len == 0
    }

    /// Takes the pods added so far (a file that should hold one pod).
    pub fn take_pods(&mut self) -> Vec<Pod> {
        std::mem::take(&mut self.pods)
            .chunks
            .into_iter()
            .flatten()
            .map(|p| Arc::try_unwrap(p).unwrap_or_else(|shared| Pod::clone(&shared)))
            .collect()
    }

    /// The selector owners read so far (a manifest's workload controller).
    pub fn take_owners(&mut self) -> Vec<SelectorOwner> {
        std::mem::take(&mut self.owners)
    }

    /// The ResourceClaims read so far (a manifest's claims beside its pod).
    pub fn take_resource_claims(&mut self) -> Vec<ResourceClaim> {
        std::mem::take(&mut self.resource_claims)
    }

    pub fn finish(self) -> Cluster {
        let storage = Storage::new(
            self.storage_classes,
            self.volumes,
            self.claims,
            self.csi_nodes,
        );
        let mut cluster = Cluster::new(
            self.interner,
            self.nodes,
            self.pods.chunks,
            self.priority_classes,
            self.pdbs,
            self.owners,
            self.namespaces,
        );
        cluster.storage = storage.into();
        cluster.dra = Dra::new(
            self.device_classes,
            self.resource_slices,
            self.resource_claims,
            self.claim_templates,
        );
        cluster
    }
}

/// Pods per chunk of [`PodChunks`].
const POD_CHUNK: usize = 4096;

/// The converted pods, in chunks of [`POD_CHUNK`] (all full but the last),
/// each in the `Arc` the cluster keeps it in: the cluster takes them as
/// they are. Moving each pod into its `Arc` there (520 bytes, in fresh
/// memory) took a third of building the 150,000-pod synthetic cluster,
/// and copying it into the chunks a tenth of the serial conversion.
#[derive(Default)]
struct PodChunks {
    chunks: Vec<Vec<Arc<Pod>>>,
    len: usize,
}

impl PodChunks {
    /// Adds a pod, or replaces the one at `at`; returns its index.
    fn put(&mut self, pod: Arc<Pod>, at: Option<usize>) -> usize {
        if let Some(i) = at.filter(|&i| i < self.len) {
            self.chunks[i / POD_CHUNK][i % POD_CHUNK] = pod;
            return i;
        }
        if self.chunks.last().is_none_or(|c| c.len() == POD_CHUNK) {
            self.chunks.push(Vec::with_capacity(POD_CHUNK));
        }
        if let Some(last) = self.chunks.last_mut() {
            last.push(pod);
        }
        self.len += 1;
        self.len - 1
    }
}

/// A parsed object of any kind kplace reads, before conversion; parsing is
/// pure (parallelizable), converting needs the shared interner.
pub enum AnyObject {
    Node(Box<core::Node>),
    Pod(Box<core::Pod>),
    Pdb(Box<policy::PodDisruptionBudget>),
    PriorityClass(Box<scheduling::PriorityClass>),
    Service(Box<core::Service>),
    ReplicaSet(Box<apps::ReplicaSet>),
    StatefulSet(Box<apps::StatefulSet>),
    ReplicationController(Box<core::ReplicationController>),
    Namespace(Box<core::Namespace>),
    StorageClass(Box<storage::StorageClass>),
    PersistentVolume(Box<core::PersistentVolume>),
    PersistentVolumeClaim(Box<core::PersistentVolumeClaim>),
    CsiNode(Box<storage::CSINode>),
    DeviceClass(Box<dconv::DeviceClassObject>),
    ResourceSlice(Box<dconv::ResourceSliceObject>),
    ResourceClaim(Box<dconv::ResourceClaimObject>),
    ResourceClaimTemplate(Box<dconv::ResourceClaimTemplateObject>),
}

impl AnyObject {
    pub fn parse(kind: Kind, json: &str) -> Result<AnyObject, String> {
        fn p<T: DeserializeOwned>(json: &str, kind: Kind) -> Result<Box<T>, String> {
            serde_json::from_str(json).map_err(|e| format!("{kind}: {e}"))
        }
        Ok(match kind {
            Kind::Node => AnyObject::Node(p(json, kind)?),
            Kind::Pod => AnyObject::Pod(p(json, kind)?),
            Kind::PodDisruptionBudget => AnyObject::Pdb(p(json, kind)?),
            Kind::PriorityClass => AnyObject::PriorityClass(p(json, kind)?),
            Kind::Service => AnyObject::Service(p(json, kind)?),
            Kind::ReplicaSet => AnyObject::ReplicaSet(p(json, kind)?),
            Kind::StatefulSet => AnyObject::StatefulSet(p(json, kind)?),
            Kind::ReplicationController => AnyObject::ReplicationController(p(json, kind)?),
            Kind::Namespace => AnyObject::Namespace(p(json, kind)?),
            Kind::StorageClass => AnyObject::StorageClass(p(json, kind)?),
            Kind::PersistentVolume => AnyObject::PersistentVolume(p(json, kind)?),
            Kind::PersistentVolumeClaim => AnyObject::PersistentVolumeClaim(p(json, kind)?),
            Kind::CSINode => AnyObject::CsiNode(p(json, kind)?),
            Kind::DeviceClass => AnyObject::DeviceClass(p(json, kind)?),
            Kind::ResourceSlice => AnyObject::ResourceSlice(p(json, kind)?),
            Kind::ResourceClaim => AnyObject::ResourceClaim(p(json, kind)?),
            Kind::ResourceClaimTemplate => AnyObject::ResourceClaimTemplate(p(json, kind)?),
        })
    }

    /// Kind, namespace (`default` for a namespaced kind that names none)
    /// and name: what makes an object unique in a cluster.
    pub fn identity(&self) -> (&'static str, &str, &str) {
        use k8s_openapi::apimachinery::pkg::apis::meta::v1::ObjectMeta;
        let (kind, meta, namespaced): (&'static str, &ObjectMeta, bool) = match self {
            AnyObject::Node(o) => ("Node", &o.metadata, false),
            AnyObject::Pod(o) => ("Pod", &o.metadata, true),
            AnyObject::Pdb(o) => ("PodDisruptionBudget", &o.metadata, true),
            AnyObject::PriorityClass(o) => ("PriorityClass", &o.metadata, false),
            AnyObject::Service(o) => ("Service", &o.metadata, true),
            AnyObject::ReplicaSet(o) => ("ReplicaSet", &o.metadata, true),
            AnyObject::StatefulSet(o) => ("StatefulSet", &o.metadata, true),
            AnyObject::ReplicationController(o) => ("ReplicationController", &o.metadata, true),
            AnyObject::Namespace(o) => ("Namespace", &o.metadata, false),
            AnyObject::StorageClass(o) => ("StorageClass", &o.metadata, false),
            AnyObject::PersistentVolume(o) => ("PersistentVolume", &o.metadata, false),
            AnyObject::PersistentVolumeClaim(o) => ("PersistentVolumeClaim", &o.metadata, true),
            AnyObject::CsiNode(o) => ("CSINode", &o.metadata, false),
            AnyObject::DeviceClass(o) => ("DeviceClass", &o.metadata, false),
            AnyObject::ResourceSlice(o) => ("ResourceSlice", &o.metadata, false),
            AnyObject::ResourceClaim(o) => ("ResourceClaim", &o.metadata, true),
            AnyObject::ResourceClaimTemplate(o) => ("ResourceClaimTemplate", &o.metadata, true),
        };
        let ns = if namespaced {
            meta.namespace.as_deref().unwrap_or("default")
        } else {
            ""
        };
        (kind, ns, meta.name.as_deref().unwrap_or(""))
    }

    pub fn to_model(&self, interner: &mut Interner) -> Result<ModelObject, InvalidObject> {
        match self {
            AnyObject::Node(o) => o.to_model(interner),
            AnyObject::Pod(o) => o.to_model(interner),
            AnyObject::Pdb(o) => o.to_model(interner),
            AnyObject::PriorityClass(o) => o.to_model(interner),
            AnyObject::Service(o) => o.to_model(interner),
            AnyObject::ReplicaSet(o) => o.to_model(interner),
            AnyObject::StatefulSet(o) => o.to_model(interner),
            AnyObject::ReplicationController(o) => o.to_model(interner),
            AnyObject::Namespace(o) => o.to_model(interner),
            AnyObject::StorageClass(o) => o.to_model(interner),
            AnyObject::PersistentVolume(o) => o.to_model(interner),
            AnyObject::PersistentVolumeClaim(o) => o.to_model(interner),
            AnyObject::CsiNode(o) => o.to_model(interner),
            AnyObject::DeviceClass(o) => o.to_model(interner),
            AnyObject::ResourceSlice(o) => o.to_model(interner),
            AnyObject::ResourceClaim(o) => o.to_model(interner),
            AnyObject::ResourceClaimTemplate(o) => o.to_model(interner),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn pod(name: &str) -> Arc<Pod> {
        Arc::new(Pod {
            name: name.into(),
            ..Pod::blank(Interner::default().intern("ns"))
        })
    }

    /// Indexes run on across chunks, a replacement lands in its chunk, and
    /// the pods come out in order.
    #[test]
    fn pod_chunks_keep_order_and_replace_in_place() {
        let mut chunks = PodChunks::default();
        let n = 2 * POD_CHUNK + 5;
        for i in 0..n {
            assert_eq!(chunks.put(pod(&format!("p{i}")), None), i);
        }
        assert_eq!(chunks.chunks.len(), 3);
        let at = POD_CHUNK + 1;
        assert_eq!(chunks.put(pod("again"), Some(at)), at);
        // An index past the end (never returned) adds instead.
        assert_eq!(chunks.put(pod("last"), Some(n + 10)), n);
        let names: Vec<String> = (chunks.chunks.into_iter().flatten())
            .map(|p| p.name.to_string())
            .collect();
        assert_eq!(names.len(), n + 1);
        assert_eq!(names[at], "again");
        assert_eq!(names[at - 1], format!("p{}", at - 1));
        assert_eq!(names[n - 1], format!("p{}", n - 1));
        assert_eq!(names[n], "last");
    }
}
