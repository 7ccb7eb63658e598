//! Cluster policy objects: priority classes, disruption budgets, and the
//! selector-carrying owners that default topology spread reads.

use super::intern::Sym;
use super::labels::LabelSelector;
use super::pod::PreemptionPolicy;
use super::storage::PersistentVolumeClaim;

#[derive(Clone, Debug, PartialEq, Eq)]
pub struct PriorityClass {
    pub name: Box<str>,
    pub value: i32,
    pub global_default: bool,
    pub preemption_policy: PreemptionPolicy,
    pub description: Box<str>,
}

#[derive(Clone, Debug, PartialEq, Eq)]
pub struct DisruptionBudget {
    pub namespace: Sym,
    pub name: Box<str>,
    pub selector: LabelSelector,
    /// `status.disruptionsAllowed`; `None` when the snapshot carries no status.
    pub disruptions_allowed: Option<i32>,
    /// Pod names in `status.disruptedPods`.
    pub disrupted_pods: Box<[Box<str>]>,
    pub min_available: Option<IntOrPercent>,
    pub max_unavailable: Option<IntOrPercent>,
    /// Whether `disruptions_allowed` was computed by kplace (no status in the snapshot).
    pub computed: bool,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum IntOrPercent {
    Int(i32),
    Percent(i32),
}

/// What kind of object selects pods for default spread constraints.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum SelectorOwnerKind {
    Service,
    ReplicationController,
    ReplicaSet,
    StatefulSet,
}

/// A Service, ReplicationController, ReplicaSet or StatefulSet: its selector.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct SelectorOwner {
    pub kind: SelectorOwnerKind,
    pub namespace: Sym,
    pub name: Box<str>,
    /// For Services and RCs a map selector; `Nothing` when nil.
    pub selector: LabelSelector,
    /// Services with a nil selector select nothing (and add nothing).
    pub has_selector: bool,
    /// For StatefulSets: what a new replica gets (ordinal, claims).
    pub stateful: Option<Box<StatefulSetSpec>>,
}

/// What the StatefulSet controller needs to create the next replica.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct StatefulSetSpec {
    /// `spec.replicas` (API default 1).
    pub replicas: i32,
    /// `spec.ordinals.start` (default 0).
    pub ordinals_start: i32,
    /// `spec.volumeClaimTemplates`, in order.
    pub claim_templates: Box<[ClaimTemplate]>,
}

impl StatefulSetSpec {
    /// The ordinal a scale-up by one creates.
    pub fn next_ordinal(&self) -> i64 {
        i64::from(self.ordinals_start) + i64::from(self.replicas.max(0))
    }
}

/// One `volumeClaimTemplate`, converted as a claim of the set's namespace
/// named as the template (the controller names each replica's claim
/// `<template>-<pod>`).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ClaimTemplate {
    pub claim: PersistentVolumeClaim,
    /// `spec.storageClassName` or the beta class annotation is set (even
    /// to ""): the DefaultStorageClass admission plugin leaves it alone.
    pub class_set: bool,
}
