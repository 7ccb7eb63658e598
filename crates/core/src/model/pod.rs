//! Pods as the engine sees them: only what filters, scores, preemption and
//! the views read, converted once.

use std::sync::Arc;

use super::intern::Sym;
use super::labels::{LabelSelector, Labels};
use super::node::{NodeId, TaintEffect};
use super::resources::{CpuMem, Resources};

/// Index of a pod in [`super::Cluster::pods`].
pub type PodId = u32;

#[derive(Clone, Copy, Debug, PartialEq, Eq, Default)]
pub enum PodPhase {
    #[default]
    Pending,
    Running,
    Succeeded,
    Failed,
    Unknown,
}

impl PodPhase {
    pub fn parse(s: &str) -> Self {
        match s {
            "Running" => PodPhase::Running,
            "Succeeded" => PodPhase::Succeeded,
            "Failed" => PodPhase::Failed,
            "Unknown" => PodPhase::Unknown,
            _ => PodPhase::Pending,
        }
    }

    pub fn is_terminal(self) -> bool {
        matches!(self, PodPhase::Succeeded | PodPhase::Failed)
    }

    pub fn as_str(self) -> &'static str {
        match self {
            PodPhase::Pending => "Pending",
            PodPhase::Running => "Running",
            PodPhase::Succeeded => "Succeeded",
            PodPhase::Failed => "Failed",
            PodPhase::Unknown => "Unknown",
        }
    }
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, Default)]
pub enum PreemptionPolicy {
    #[default]
    PreemptLowerPriority,
    Never,
}

impl PreemptionPolicy {
    pub fn as_str(self) -> &'static str {
        match self {
            PreemptionPolicy::PreemptLowerPriority => "PreemptLowerPriority",
            PreemptionPolicy::Never => "Never",
        }
    }
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum TolerationOperator {
    Equal,
    Exists,
    /// Anything else: never tolerates.
    Invalid,
}

#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Toleration {
    pub key: Box<str>,
    pub operator: TolerationOperator,
    pub value: Box<str>,
    /// `None` means all effects.
    pub effect: Option<TaintEffect>,
}

#[derive(Clone, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct HostPort {
    pub ip: Box<str>,
    pub protocol: Box<str>,
    pub port: i32,
}

/// `NodeSelectorRequirement` operators, which add `Gt`/`Lt` to the set ones.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum NodeSelectorOperator {
    In,
    NotIn,
    Exists,
    DoesNotExist,
    Gt,
    Lt,
}

#[derive(Clone, Debug, PartialEq, Eq)]
pub struct NodeSelectorRequirement {
    pub key: Sym,
    pub op: NodeSelectorOperator,
    pub values: Box<[Sym]>,
    /// The single value parsed as an integer, for `Gt`/`Lt`.
    pub number: Option<i64>,
}

/// `matchFields` only supports `metadata.name` with `In`/`NotIn` and one value.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct FieldRequirement {
    pub not_in: bool,
    pub name: Box<str>,
}

/// One `NodeSelectorTerm`. A term with a parse error never matches.
#[derive(Clone, Debug, PartialEq, Eq, Default)]
pub struct NodeSelectorTerm {
    pub expressions: Box<[NodeSelectorRequirement]>,
    pub fields: Box<[FieldRequirement]>,
    /// Upstream drops terms that are empty or fail to parse.
    pub usable: bool,
    /// For NodeAffinity's PreFilter: the intersection of the raw
    /// `metadata.name In` value sets of this term, `None` if it has none.
    pub name_in: Option<Box<[Box<str>]>>,
}

#[derive(Clone, Debug, PartialEq, Eq, Default)]
pub struct NodeAffinity {
    /// `None` when `requiredDuringScheduling...` is nil; terms are ORed.
    pub required: Option<Box<[NodeSelectorTerm]>>,
    pub preferred: Box<[(i32, NodeSelectorTerm)]>,
}

/// A processed `PodAffinityTerm` (`framework.AffinityTerm`).
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct AffinityTerm {
    /// Explicit namespaces; when `namespaces` and `namespaceSelector` are both
    /// unset this holds the owner's namespace.
    pub namespaces: Box<[Sym]>,
    pub selector: LabelSelector,
    pub topology_key: Sym,
    pub namespace_selector: LabelSelector,
}

#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct WeightedAffinityTerm {
    pub weight: i32,
    pub term: AffinityTerm,
}

#[derive(Clone, Debug, PartialEq, Eq, Default, Hash)]
pub struct PodAffinity {
    pub required_affinity: Box<[AffinityTerm]>,
    pub required_anti_affinity: Box<[AffinityTerm]>,
    pub preferred_affinity: Box<[WeightedAffinityTerm]>,
    pub preferred_anti_affinity: Box<[WeightedAffinityTerm]>,
}

impl PodAffinity {
    pub fn is_empty(&self) -> bool {
        self.required_affinity.is_empty()
            && self.required_anti_affinity.is_empty()
            && self.preferred_affinity.is_empty()
            && self.preferred_anti_affinity.is_empty()
    }
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum WhenUnsatisfiable {
    DoNotSchedule,
    ScheduleAnyway,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum InclusionPolicy {
    Honor,
    Ignore,
}

#[derive(Clone, Debug, PartialEq, Eq)]
pub struct SpreadConstraint {
    pub max_skew: i32,
    pub topology_key: Sym,
    pub when_unsatisfiable: WhenUnsatisfiable,
    pub selector: LabelSelector,
    pub min_domains: Option<i32>,
    pub node_affinity_policy: InclusionPolicy,
    pub node_taints_policy: InclusionPolicy,
    pub match_label_keys: Box<[Sym]>,
}

/// The controller `ownerReference`, used for default spread and StatefulSet hints.
#[derive(Clone, Debug, PartialEq, Eq)]
///
/// Shared (`Arc`): a workload's replicas name the same owner, so loading
/// shares one string among them instead of copying it for every pod.
pub struct OwnerRef {
    pub api_version: Arc<str>,
    pub kind: Arc<str>,
    pub name: Arc<str>,
}

/// What the termination estimate needs to know about a pod.
#[derive(Clone, Debug, PartialEq, Eq, Default)]
pub struct TerminationInfo {
    /// `spec.terminationGracePeriodSeconds` (API default 30).
    pub grace_period_seconds: Option<i64>,
    /// `metadata.deletionGracePeriodSeconds`, set once the pod is terminating.
    pub deletion_grace_period_seconds: Option<i64>,
    /// Names of containers that have a `preStop` hook.
    pub pre_stop_containers: Box<[Box<str>]>,
}

#[derive(Clone, Debug, PartialEq)]
pub struct Pod {
    pub namespace: Sym,
    pub name: Box<str>,
    pub uid: Box<str>,
    pub labels: Labels,
    /// `spec.nodeName` as written, whether or not such a node exists.
    pub node_name: Option<Box<str>>,
    /// The node this pod occupies in the scheduler's view, if any.
    pub node: Option<NodeId>,
    pub phase: PodPhase,
    /// `Ready` condition is True.
    pub ready: bool,
    /// `metadata.deletionTimestamp` as Unix seconds.
    pub deletion_timestamp: Option<i64>,
    /// `status.startTime` as Unix seconds.
    pub start_time: Option<i64>,
    pub creation_timestamp: Option<i64>,
    pub priority: Option<i32>,
    /// Shared, as [`OwnerRef`]'s strings are: a handful of classes.
    pub priority_class_name: Option<Arc<str>>,
    pub preemption_policy: Option<PreemptionPolicy>,
    /// `PodRequests(pod)`: what the Filter and `NodeInfo.Requested` use.
    pub requests: Resources,
    /// This pod's contribution to `NodeInfo.NonZeroRequested` (existing
    /// pods) before v1.32: sidecars reach it only through the init max.
    pub non_zero_requests: CpuMem,
    /// Its request as an incoming pod in LeastAllocated scoring (defaults
    /// applied per container before summing); from v1.32 also its
    /// contribution to `NodeInfo.NonZeroRequested` as an existing pod.
    pub incoming_non_zero_requests: CpuMem,
    /// Pod-level `spec.resources` requests (cpu, memory, hugepages), honoured
    /// from v1.34; `None` when the pod sets none.
    pub pod_level: Option<Box<PodLevelRequests>>,
    pub host_ports: Box<[HostPort]>,
    /// `None` when `spec.nodeSelector` is nil.
    pub node_selector: Option<Box<[(Sym, Sym)]>>,
    pub node_affinity: Option<Box<NodeAffinity>>,
    pub tolerations: Box<[Toleration]>,
    pub pod_affinity: Option<Box<PodAffinity>>,
    pub spread_constraints: Box<[SpreadConstraint]>,
    pub controller: Option<OwnerRef>,
    /// Normalized image names of init and regular containers, in that order.
    pub images: Box<[Sym]>,
    pub scheduling_gates: Box<[Box<str>]>,
    pub nominated_node_name: Option<Box<str>>,
    /// Shared, as [`OwnerRef`]'s strings are: nearly always the default.
    pub scheduler_name: Arc<str>,
    pub termination: TerminationInfo,
    /// First `DisruptionTarget` condition is True with reason `PreemptionByScheduler`.
    pub preempted_by_scheduler: bool,
    /// The volumes the volume plugins read, in `spec.volumes` order.
    pub volumes: Box<[PodVolume]>,
    /// `spec.resourceClaims`, in spec order, with the claim names
    /// `status.resourceClaimStatuses` records for templates.
    pub resource_claims: Box<[PodResourceClaim]>,
}

/// One entry of `spec.resourceClaims`.
impl Pod {
    /// A pod with nothing set but its namespace: no labels, requests,
    /// tolerations or selectors. A probe for filters that read only part of
    /// a pod (the Tiers view asks which nodes a plain pod of a class could use).
    pub fn blank(namespace: Sym) -> Pod {
        Pod {
            namespace,
            name: "".into(),
            uid: "".into(),
            labels: Labels::default(),
            node_name: None,
            node: None,
            phase: PodPhase::default(),
            ready: false,
            deletion_timestamp: None,
            start_time: None,
            creation_timestamp: None,
            priority: None,
            priority_class_name: None,
            preemption_policy: None,
            requests: Resources::default(),
            non_zero_requests: CpuMem::default(),
            incoming_non_zero_requests: CpuMem::default(),
            pod_level: None,
            host_ports: Box::new([]),
            node_selector: None,
            node_affinity: None,
            tolerations: Box::new([]),
            pod_affinity: None,
            spread_constraints: Box::new([]),
            controller: None,
            images: Box::new([]),
            scheduling_gates: Box::new([]),
            nominated_node_name: None,
            scheduler_name: "".into(),
            termination: TerminationInfo::default(),
            preempted_by_scheduler: false,
            volumes: Box::new([]),
            resource_claims: Box::new([]),
        }
    }
}

#[derive(Clone, Debug, PartialEq, Eq)]
pub struct PodResourceClaim {
    pub name: Box<str>,
    pub source: PodClaimSource,
}

/// Where a pod's claim comes from (`resourceclaim.Name`).
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum PodClaimSource {
    /// `resourceClaimName`: a claim shared by name.
    Claim(Box<str>),
    /// `resourceClaimTemplateName`. `generated` is the pod's
    /// `status.resourceClaimStatuses` entry: `None` when there is none yet
    /// (the claim is not created yet), `Some(None)` when it names no claim
    /// (none is needed).
    Template {
        template: Box<str>,
        generated: Option<Option<Box<str>>>,
    },
    /// Neither field is set.
    Unsupported,
}

/// A pod volume as the volume plugins see it; volume kinds no plugin
/// reads are left out.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum PodVolume {
    /// `persistentVolumeClaim.claimName`.
    Claim(Box<str>),
    /// A generic ephemeral volume: its claim is `<pod>-<volume>`.
    Ephemeral(Box<str>),
    /// An inline disk VolumeRestrictions checks for conflicts.
    Disk(InlineDisk),
}

impl PodVolume {
    /// The claim name of a claim or ephemeral volume.
    pub fn claim_name(&self) -> Option<&str> {
        match self {
            PodVolume::Claim(n) | PodVolume::Ephemeral(n) => Some(n),
            PodVolume::Disk(_) => None,
        }
    }
}

/// Inline volume sources VolumeRestrictions compares between pods on a node.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum InlineDisk {
    GcePersistentDisk {
        pd_name: Box<str>,
        read_only: bool,
    },
    AwsElasticBlockStore {
        volume_id: Box<str>,
    },
    Iscsi {
        iqn: Box<str>,
        read_only: bool,
    },
    Rbd {
        monitors: Box<[Box<str>]>,
        pool: Box<str>,
        image: Box<str>,
        read_only: bool,
    },
}

/// A pod's requests with its pod-level `spec.resources` applied
/// (`PodRequests` with `SkipPodLevelResources: false`).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct PodLevelRequests {
    /// What the Filter and `NodeInfo.Requested` use.
    pub requests: Resources,
    /// `CalculateResource`'s non-zero cpu/memory (defaults only for a
    /// resource set neither at pod nor at container level).
    pub non_zero: CpuMem,
}

impl Pod {
    /// The requests the given release's NodeResourcesFit and
    /// BalancedAllocation read.
    pub fn requests_in(&self, version: crate::engine::Version) -> &Resources {
        match &self.pod_level {
            Some(pl) if version.pod_level_resources() => &pl.requests,
            _ => &self.requests,
        }
    }

    /// This pod's share of `NodeInfo.NonZeroRequested` in the given release.
    pub fn existing_non_zero_in(&self, version: crate::engine::Version) -> CpuMem {
        match &self.pod_level {
            Some(pl) if version.pod_level_resources() => pl.non_zero,
            _ if version.sidecars_in_non_zero_requests() => self.incoming_non_zero_requests,
            _ => self.non_zero_requests,
        }
    }

    /// Its request as the incoming pod in NodeResourcesFit's scoring. Pod
    /// level is ignored in every release: v1.34's `NewFit` builds its
    /// resource allocation scorer without `enablePodLevelResources` (only
    /// BalancedAllocation sets it), so the containers' sum is scored.
    pub fn incoming_non_zero_for_fit_score(&self) -> CpuMem {
        self.incoming_non_zero_requests
    }

    /// `PodPriority`: the resolved priority, 0 when nil.
    pub fn priority_value(&self) -> i32 {
        self.priority.unwrap_or(0)
    }

    pub fn is_terminating(&self) -> bool {
        self.deletion_timestamp.is_some()
    }

    pub fn has_affinity(&self) -> bool {
        self.pod_affinity.as_ref().is_some_and(|a| !a.is_empty())
    }

    /// Names of the claims the pod uses (claims and ephemeral volumes).
    pub fn claim_names(&self) -> impl Iterator<Item = &str> {
        self.volumes.iter().filter_map(PodVolume::claim_name)
    }

    pub fn has_required_anti_affinity(&self) -> bool {
        self.pod_affinity
            .as_ref()
            .is_some_and(|a| !a.required_anti_affinity.is_empty())
    }
}
