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
}

impl Kind {
    pub const ALL: [Kind; 13] = [
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
