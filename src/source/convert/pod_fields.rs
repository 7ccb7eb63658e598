//! The fields of a `v1.Pod` that conversion reads, whichever form the pod
//! was parsed into: a whole `k8s-openapi` object (YAML, live watches, a
//! what-if draft) or a snapshot's borrowed, lean parse
//! ([`super::lean_pod`]). One conversion runs on both, so they cannot
//! disagree (#15 item 1).
//!
//! Maps are walked in key order with unique keys, as a `BTreeMap` walks
//! them: conversion interns in that order, so both forms number the same
//! strings the same way.

use k8s_openapi::api::core::v1 as core;
use k8s_openapi::apimachinery::pkg::apis::meta::v1 as meta;

/// A container's fields that conversion reads.
pub trait ContainerFields {
    fn name(&self) -> &str;
    fn image(&self) -> Option<&str>;
    fn restart_policy(&self) -> Option<&str>;
    fn has_pre_stop(&self) -> bool;
    /// `resources.limits`, in key order.
    fn limits(&self) -> impl Iterator<Item = (&str, &str)>;
    /// `resources.requests`, in key order.
    fn requests(&self) -> impl Iterator<Item = (&str, &str)>;
    fn ports(&self) -> impl Iterator<Item = PortFields<'_>>;
}

/// A container port's fields that conversion reads.
pub struct PortFields<'a> {
    pub container_port: i32,
    pub host_port: Option<i32>,
    pub host_ip: Option<&'a str>,
    pub protocol: Option<&'a str>,
}

/// A toleration's fields (all of them: conversion validates each).
pub trait TolerationFields {
    fn key(&self) -> Option<&str>;
    fn operator(&self) -> Option<&str>;
    fn value(&self) -> Option<&str>;
    fn effect(&self) -> Option<&str>;
    fn toleration_seconds(&self) -> Option<i64>;
}

/// A volume's fields that conversion reads: which source it has, for the
/// few sources the volume plugins read (a claim, an ephemeral claim, the
/// inline disks VolumeRestrictions compares); the disks stay `k8s-openapi`
/// types, as they are rare.
pub trait VolumeFields {
    fn name(&self) -> &str;
    /// `persistentVolumeClaim.claimName`, when the volume is a claim.
    fn claim_name(&self) -> Option<&str>;
    fn is_ephemeral(&self) -> bool;
    fn gce_persistent_disk(&self) -> Option<&core::GCEPersistentDiskVolumeSource>;
    fn aws_elastic_block_store(&self) -> Option<&core::AWSElasticBlockStoreVolumeSource>;
    fn iscsi(&self) -> Option<&core::ISCSIVolumeSource>;
    fn rbd(&self) -> Option<&core::RBDVolumeSource>;
}

impl TolerationFields for core::Toleration {
    fn key(&self) -> Option<&str> {
        self.key.as_deref()
    }
    fn operator(&self) -> Option<&str> {
        self.operator.as_deref()
    }
    fn value(&self) -> Option<&str> {
        self.value.as_deref()
    }
    fn effect(&self) -> Option<&str> {
        self.effect.as_deref()
    }
    fn toleration_seconds(&self) -> Option<i64> {
        self.toleration_seconds
    }
}

impl VolumeFields for core::Volume {
    fn name(&self) -> &str {
        &self.name
    }
    fn claim_name(&self) -> Option<&str> {
        self.persistent_volume_claim
            .as_ref()
            .map(|c| c.claim_name.as_str())
    }
    fn is_ephemeral(&self) -> bool {
        self.ephemeral.is_some()
    }
    fn gce_persistent_disk(&self) -> Option<&core::GCEPersistentDiskVolumeSource> {
        self.gce_persistent_disk.as_ref()
    }
    fn aws_elastic_block_store(&self) -> Option<&core::AWSElasticBlockStoreVolumeSource> {
        self.aws_elastic_block_store.as_ref()
    }
    fn iscsi(&self) -> Option<&core::ISCSIVolumeSource> {
        self.iscsi.as_ref()
    }
    fn rbd(&self) -> Option<&core::RBDVolumeSource> {
        self.rbd.as_ref()
    }
}

/// A label selector's fields (`metav1.LabelSelector`).
pub trait SelectorFields {
    type Expression: ExpressionFields;
    /// `matchLabels`, in key order with unique keys; `None` when unset.
    fn match_labels(&self) -> Option<impl Iterator<Item = (&str, &str)>>;
    fn match_expressions(&self) -> &[Self::Expression];
}

/// A label selector requirement's fields.
pub trait ExpressionFields {
    fn key(&self) -> &str;
    fn operator(&self) -> &str;
    /// `values`, in order; none when unset.
    fn values(&self) -> impl ExactSizeIterator<Item = &str> + Clone;
}

/// A topology spread constraint's fields (all of them: conversion
/// validates each).
pub trait SpreadFields {
    type Selector: SelectorFields;
    fn max_skew(&self) -> i32;
    fn topology_key(&self) -> &str;
    fn when_unsatisfiable(&self) -> &str;
    fn min_domains(&self) -> Option<i32>;
    fn node_affinity_policy(&self) -> Option<&str>;
    fn node_taints_policy(&self) -> Option<&str>;
    fn match_label_keys(&self) -> impl Iterator<Item = &str>;
    fn label_selector(&self) -> Option<&Self::Selector>;
}

impl SelectorFields for meta::LabelSelector {
    type Expression = meta::LabelSelectorRequirement;
    fn match_labels(&self) -> Option<impl Iterator<Item = (&str, &str)>> {
        let map = self.match_labels.as_ref()?;
        Some(map.iter().map(|(k, v)| (k.as_str(), v.as_str())))
    }
    fn match_expressions(&self) -> &[meta::LabelSelectorRequirement] {
        self.match_expressions.as_deref().unwrap_or(&[])
    }
}

impl ExpressionFields for meta::LabelSelectorRequirement {
    fn key(&self) -> &str {
        &self.key
    }
    fn operator(&self) -> &str {
        &self.operator
    }
    fn values(&self) -> impl ExactSizeIterator<Item = &str> + Clone {
        self.values
            .as_deref()
            .unwrap_or(&[])
            .iter()
            .map(String::as_str)
    }
}

impl SpreadFields for core::TopologySpreadConstraint {
    type Selector = meta::LabelSelector;
    fn max_skew(&self) -> i32 {
        self.max_skew
    }
    fn topology_key(&self) -> &str {
        &self.topology_key
    }
    fn when_unsatisfiable(&self) -> &str {
        &self.when_unsatisfiable
    }
    fn min_domains(&self) -> Option<i32> {
        self.min_domains
    }
    fn node_affinity_policy(&self) -> Option<&str> {
        self.node_affinity_policy.as_deref()
    }
    fn node_taints_policy(&self) -> Option<&str> {
        self.node_taints_policy.as_deref()
    }
    fn match_label_keys(&self) -> impl Iterator<Item = &str> {
        self.match_label_keys.iter().flatten().map(String::as_str)
    }
    fn label_selector(&self) -> Option<&meta::LabelSelector> {
        self.label_selector.as_ref()
    }
}

/// A pod's fields that conversion reads. The spec's accessors give their
/// defaults (empty, `None`) when the pod has no spec, which conversion
/// refuses first ([`PodFields::has_spec`]).
pub trait PodFields {
    type Container: ContainerFields;
    type Toleration: TolerationFields;
    type Spread: SpreadFields;
    type Volume: VolumeFields;

    // metadata
    fn name(&self) -> Option<&str>;
    fn generate_name(&self) -> Option<&str>;
    fn namespace(&self) -> Option<&str>;
    fn uid(&self) -> Option<&str>;
    /// `metadata.labels`, in key order.
    fn labels(&self) -> impl Iterator<Item = (&str, &str)>;
    fn creation_timestamp(&self) -> Option<i64>;
    fn deletion_timestamp(&self) -> Option<i64>;
    fn deletion_grace_period_seconds(&self) -> Option<i64>;
    /// The first owner reference with `controller: true`: API version,
    /// kind and name.
    fn controller(&self) -> Option<(&str, &str, &str)>;

    // spec
    fn has_spec(&self) -> bool;
    fn containers(&self) -> &[Self::Container];
    fn init_containers(&self) -> &[Self::Container];
    /// `spec.overhead`, in key order.
    fn overhead(&self) -> impl Iterator<Item = (&str, &str)>;
    /// `spec.resources` (pod-level).
    fn pod_resources(&self) -> Option<&core::ResourceRequirements>;
    /// `spec.nodeSelector`, in key order; `None` when unset.
    fn node_selector(&self) -> Option<impl Iterator<Item = (&str, &str)>>;
    fn affinity(&self) -> Option<&core::Affinity>;
    fn tolerations(&self) -> &[Self::Toleration];
    fn topology_spread_constraints(&self) -> &[Self::Spread];
    fn volumes(&self) -> &[Self::Volume];
    fn host_network(&self) -> Option<bool>;
    fn node_name(&self) -> Option<&str>;
    fn priority(&self) -> Option<i32>;
    fn priority_class_name(&self) -> Option<&str>;
    fn scheduler_name(&self) -> Option<&str>;
    fn preemption_policy(&self) -> Option<&str>;
    fn termination_grace_period_seconds(&self) -> Option<i64>;
    fn scheduling_gates(&self) -> impl Iterator<Item = &str>;
    fn resource_claims(&self) -> &[core::PodResourceClaim];

    // status
    fn phase(&self) -> Option<&str>;
    /// `status.conditions`: type, status and reason of each.
    fn conditions(&self) -> impl Iterator<Item = (&str, &str, Option<&str>)>;
    fn start_time(&self) -> Option<i64>;
    fn nominated_node_name(&self) -> Option<&str>;
    fn resource_claim_statuses(&self) -> &[core::PodResourceClaimStatus];
}

/// An optional list field of an optional part (`spec`, `status`) as a
/// slice, empty when either is absent: how both forms give their lists.
pub(super) fn list_of<'a, P, T>(
    part: Option<&'a P>,
    field: impl FnOnce(&'a P) -> &'a Option<Vec<T>>,
) -> &'a [T] {
    part.and_then(|p| field(p).as_deref()).unwrap_or(&[])
}

fn seconds(t: Option<&k8s_openapi::apimachinery::pkg::apis::meta::v1::Time>) -> Option<i64> {
    t.map(|t| t.0.as_second())
}

fn pairs(
    map: Option<&std::collections::BTreeMap<String, String>>,
) -> impl Iterator<Item = (&str, &str)> {
    map.into_iter()
        .flatten()
        .map(|(k, v)| (k.as_str(), v.as_str()))
}

fn quantities(
    map: Option<
        &std::collections::BTreeMap<
            String,
            k8s_openapi::apimachinery::pkg::api::resource::Quantity,
        >,
    >,
) -> impl Iterator<Item = (&str, &str)> {
    map.into_iter()
        .flatten()
        .map(|(k, v)| (k.as_str(), v.0.as_str()))
}

impl ContainerFields for core::Container {
    fn name(&self) -> &str {
        &self.name
    }
    fn image(&self) -> Option<&str> {
        self.image.as_deref()
    }
    fn restart_policy(&self) -> Option<&str> {
        self.restart_policy.as_deref()
    }
    fn has_pre_stop(&self) -> bool {
        self.lifecycle
            .as_ref()
            .is_some_and(|l| l.pre_stop.is_some())
    }
    fn limits(&self) -> impl Iterator<Item = (&str, &str)> {
        quantities(self.resources.as_ref().and_then(|r| r.limits.as_ref()))
    }
    fn requests(&self) -> impl Iterator<Item = (&str, &str)> {
        quantities(self.resources.as_ref().and_then(|r| r.requests.as_ref()))
    }
    fn ports(&self) -> impl Iterator<Item = PortFields<'_>> {
        self.ports.iter().flatten().map(|p| PortFields {
            container_port: p.container_port,
            host_port: p.host_port,
            host_ip: p.host_ip.as_deref(),
            protocol: p.protocol.as_deref(),
        })
    }
}

impl PodFields for core::Pod {
    type Container = core::Container;
    type Toleration = core::Toleration;
    type Spread = core::TopologySpreadConstraint;
    type Volume = core::Volume;

    fn name(&self) -> Option<&str> {
        self.metadata.name.as_deref()
    }
    fn generate_name(&self) -> Option<&str> {
        self.metadata.generate_name.as_deref()
    }
    fn namespace(&self) -> Option<&str> {
        self.metadata.namespace.as_deref()
    }
    fn uid(&self) -> Option<&str> {
        self.metadata.uid.as_deref()
    }
    fn labels(&self) -> impl Iterator<Item = (&str, &str)> {
        pairs(self.metadata.labels.as_ref())
    }
    fn creation_timestamp(&self) -> Option<i64> {
        seconds(self.metadata.creation_timestamp.as_ref())
    }
    fn deletion_timestamp(&self) -> Option<i64> {
        seconds(self.metadata.deletion_timestamp.as_ref())
    }
    fn deletion_grace_period_seconds(&self) -> Option<i64> {
        self.metadata.deletion_grace_period_seconds
    }
    fn controller(&self) -> Option<(&str, &str, &str)> {
        self.metadata
            .owner_references
            .iter()
            .flatten()
            .find(|o| o.controller == Some(true))
            .map(|o| (o.api_version.as_str(), o.kind.as_str(), o.name.as_str()))
    }

    fn has_spec(&self) -> bool {
        self.spec.is_some()
    }
    fn containers(&self) -> &[core::Container] {
        self.spec.as_ref().map_or(&[], |s| &s.containers)
    }
    fn init_containers(&self) -> &[core::Container] {
        list_of(self.spec.as_ref(), |s| &s.init_containers)
    }
    fn overhead(&self) -> impl Iterator<Item = (&str, &str)> {
        quantities(self.spec.as_ref().and_then(|s| s.overhead.as_ref()))
    }
    fn pod_resources(&self) -> Option<&core::ResourceRequirements> {
        self.spec.as_ref().and_then(|s| s.resources.as_ref())
    }
    fn node_selector(&self) -> Option<impl Iterator<Item = (&str, &str)>> {
        let map = self.spec.as_ref()?.node_selector.as_ref()?;
        Some(pairs(Some(map)))
    }
    fn affinity(&self) -> Option<&core::Affinity> {
        self.spec.as_ref().and_then(|s| s.affinity.as_ref())
    }
    fn tolerations(&self) -> &[core::Toleration] {
        list_of(self.spec.as_ref(), |s| &s.tolerations)
    }
    fn topology_spread_constraints(&self) -> &[core::TopologySpreadConstraint] {
        list_of(self.spec.as_ref(), |s| &s.topology_spread_constraints)
    }
    fn volumes(&self) -> &[core::Volume] {
        list_of(self.spec.as_ref(), |s| &s.volumes)
    }
    fn host_network(&self) -> Option<bool> {
        self.spec.as_ref().and_then(|s| s.host_network)
    }
    fn node_name(&self) -> Option<&str> {
        self.spec.as_ref().and_then(|s| s.node_name.as_deref())
    }
    fn priority(&self) -> Option<i32> {
        self.spec.as_ref().and_then(|s| s.priority)
    }
    fn priority_class_name(&self) -> Option<&str> {
        self.spec
            .as_ref()
            .and_then(|s| s.priority_class_name.as_deref())
    }
    fn scheduler_name(&self) -> Option<&str> {
        self.spec.as_ref().and_then(|s| s.scheduler_name.as_deref())
    }
    fn preemption_policy(&self) -> Option<&str> {
        self.spec
            .as_ref()
            .and_then(|s| s.preemption_policy.as_deref())
    }
    fn termination_grace_period_seconds(&self) -> Option<i64> {
        self.spec
            .as_ref()
            .and_then(|s| s.termination_grace_period_seconds)
    }
    fn scheduling_gates(&self) -> impl Iterator<Item = &str> {
        self.spec
            .iter()
            .flat_map(|s| s.scheduling_gates.iter().flatten())
            .map(|g| g.name.as_str())
    }
    fn resource_claims(&self) -> &[core::PodResourceClaim] {
        list_of(self.spec.as_ref(), |s| &s.resource_claims)
    }

    fn phase(&self) -> Option<&str> {
        self.status.as_ref().and_then(|s| s.phase.as_deref())
    }
    fn conditions(&self) -> impl Iterator<Item = (&str, &str, Option<&str>)> {
        self.status
            .iter()
            .flat_map(|s| s.conditions.iter().flatten())
            .map(|c| (c.type_.as_str(), c.status.as_str(), c.reason.as_deref()))
    }
    fn start_time(&self) -> Option<i64> {
        seconds(self.status.as_ref().and_then(|s| s.start_time.as_ref()))
    }
    fn nominated_node_name(&self) -> Option<&str> {
        self.status
            .as_ref()
            .and_then(|s| s.nominated_node_name.as_deref())
    }
    fn resource_claim_statuses(&self) -> &[core::PodResourceClaimStatus] {
        list_of(self.status.as_ref(), |s| &s.resource_claim_statuses)
    }
}
