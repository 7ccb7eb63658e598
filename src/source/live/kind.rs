//! The object kinds kplace reads from a cluster, with the names the API and
//! the operator use for them.

use std::fmt;

/// One of the kinds kplace lists and watches. Secrets are deliberately not
/// among them: nothing kplace does needs them, so they are never fetched.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum Kind {
    Node,
    Pod,
    PodDisruptionBudget,
    PriorityClass,
    Service,
    ReplicaSet,
    StatefulSet,
    ReplicationController,
    Namespace,
    StorageClass,
    PersistentVolume,
    PersistentVolumeClaim,
    CSINode,
    DeviceClass,
    ResourceSlice,
    ResourceClaim,
    ResourceClaimTemplate,
}

impl Kind {
    pub const ALL: [Kind; 17] = [
        Kind::Node,
        Kind::Pod,
        Kind::PodDisruptionBudget,
        Kind::PriorityClass,
        Kind::Service,
        Kind::ReplicaSet,
        Kind::StatefulSet,
        Kind::ReplicationController,
        Kind::Namespace,
        Kind::StorageClass,
        Kind::PersistentVolume,
        Kind::PersistentVolumeClaim,
        Kind::CSINode,
        Kind::DeviceClass,
        Kind::ResourceSlice,
        Kind::ResourceClaim,
        Kind::ResourceClaimTemplate,
    ];

    /// The object's `kind` field.
    pub fn as_str(self) -> &'static str {
        match self {
            Kind::Node => "Node",
            Kind::Pod => "Pod",
            Kind::PodDisruptionBudget => "PodDisruptionBudget",
            Kind::PriorityClass => "PriorityClass",
            Kind::Service => "Service",
            Kind::ReplicaSet => "ReplicaSet",
            Kind::StatefulSet => "StatefulSet",
            Kind::ReplicationController => "ReplicationController",
            Kind::Namespace => "Namespace",
            Kind::StorageClass => "StorageClass",
            Kind::PersistentVolume => "PersistentVolume",
            Kind::PersistentVolumeClaim => "PersistentVolumeClaim",
            Kind::CSINode => "CSINode",
            Kind::DeviceClass => "DeviceClass",
            Kind::ResourceSlice => "ResourceSlice",
            Kind::ResourceClaim => "ResourceClaim",
            Kind::ResourceClaimTemplate => "ResourceClaimTemplate",
        }
    }

    pub fn parse(kind: &str) -> Option<Kind> {
        Kind::ALL.into_iter().find(|k| k.as_str() == kind)
    }

    /// `resource.group`, as RBAC and `kubectl auth can-i` spell it.
    pub fn resource(self) -> &'static str {
        match self {
            Kind::Node => "nodes",
            Kind::Pod => "pods",
            Kind::PodDisruptionBudget => "poddisruptionbudgets.policy",
            Kind::PriorityClass => "priorityclasses.scheduling.k8s.io",
            Kind::Service => "services",
            Kind::ReplicaSet => "replicasets.apps",
            Kind::StatefulSet => "statefulsets.apps",
            Kind::ReplicationController => "replicationcontrollers",
            Kind::Namespace => "namespaces",
            Kind::StorageClass => "storageclasses.storage.k8s.io",
            Kind::PersistentVolume => "persistentvolumes",
            Kind::PersistentVolumeClaim => "persistentvolumeclaims",
            Kind::CSINode => "csinodes.storage.k8s.io",
            Kind::DeviceClass => "deviceclasses.resource.k8s.io",
            Kind::ResourceSlice => "resourceslices.resource.k8s.io",
            Kind::ResourceClaim => "resourceclaims.resource.k8s.io",
            Kind::ResourceClaimTemplate => "resourceclaimtemplates.resource.k8s.io",
        }
    }

    pub fn namespaced(self) -> bool {
        !matches!(
            self,
            Kind::Node
                | Kind::PriorityClass
                | Kind::Namespace
                | Kind::StorageClass
                | Kind::PersistentVolume
                | Kind::CSINode
                | Kind::DeviceClass
                | Kind::ResourceSlice
        )
    }

    /// Kinds of an API group a cluster may not serve (`resource.k8s.io/v1`
    /// is served from Kubernetes 1.34): a 404 means the cluster has none.
    pub fn may_be_unserved(self) -> bool {
        matches!(
            self,
            Kind::DeviceClass
                | Kind::ResourceSlice
                | Kind::ResourceClaim
                | Kind::ResourceClaimTemplate
        )
    }

    /// Without this kind, can kplace still answer at all?
    pub fn essential(self) -> bool {
        matches!(self, Kind::Node | Kind::Pod)
    }

    /// What the answers lose when this kind cannot be read.
    pub fn consequence(self) -> &'static str {
        match self {
            Kind::Node => "no nodes: nothing can be placed",
            Kind::Pod => "no pods: node usage and victims are unknown",
            Kind::PodDisruptionBudget => "preemption ignores PDBs",
            Kind::PriorityClass => "priorityClassName resolves only the built-in system classes",
            Kind::Service | Kind::ReplicaSet | Kind::StatefulSet | Kind::ReplicationController => {
                "default topology spreading does not see this owner kind"
            }
            Kind::Namespace => "affinity namespaceSelectors match no namespace labels",
            Kind::StorageClass => {
                "claims' storage classes look missing: unbound claims count as Immediate"
            }
            Kind::PersistentVolume => {
                "bound claims look bound to missing PersistentVolumes, and unbound ones find no volume to bind"
            }
            Kind::PersistentVolumeClaim => {
                "pods with PersistentVolumeClaims look as if their claims were missing"
            }
            Kind::CSINode => "CSI volume attach limits (NodeVolumeLimits) are not checked",
            Kind::DeviceClass => {
                "pods with ResourceClaims look as if their device classes were missing (no node fits them)"
            }
            Kind::ResourceSlice => {
                "no devices are known: no node can allocate a pod's ResourceClaims"
            }
            Kind::ResourceClaim => {
                "pods with ResourceClaims wait for claims that look missing, and devices held by other claims look free"
            }
            Kind::ResourceClaimTemplate => {
                "nothing for placement (the scheduler reads the claims generated from templates)"
            }
        }
    }
}

impl fmt::Display for Kind {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

/// `namespace/name` (or `name` for cluster-scoped kinds): the key objects of
/// one kind are stored, sorted and diffed by. Sorting by it gives the API
/// server's list order, so answers match those on a `kubectl get` snapshot.
pub fn object_key(namespace: Option<&str>, name: &str) -> String {
    match namespace {
        Some(ns) if !ns.is_empty() => format!("{ns}/{name}"),
        _ => name.to_string(),
    }
}
