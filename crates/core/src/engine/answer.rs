//! The answer to "where would this pod go?".

use super::framework::NodeScore;
use super::preemption::PreemptionAnswer;
use super::profile::Profile;
use super::status::Rejection;
use super::version::VersionChoice;
use crate::model::pod::PreemptionPolicy;
use crate::model::{NodeId, Pod};
use std::sync::Arc;

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Outcome {
    /// At least one node passes every filter.
    Scheduled,
    /// No node fits, but evicting lower-priority pods would make room.
    Preempt,
    /// No node fits and preemption cannot help.
    Unschedulable,
    /// Priority admission refuses the pod.
    Rejected,
    /// The pod has scheduling gates: the scheduler never attempts it.
    Gated,
    /// DynamicResources' PreEnqueue refuses the pod (a claim is missing or
    /// not generated yet): the scheduler never attempts it.
    WaitingForClaims,
    /// No profile has the pod's `schedulerName`: this scheduler ignores it.
    NoProfile,
}

impl Outcome {
    pub fn as_str(self) -> &'static str {
        match self {
            Outcome::Scheduled => "scheduled",
            Outcome::Preempt => "preempt",
            Outcome::Unschedulable => "unschedulable",
            Outcome::Rejected => "rejected",
            Outcome::Gated => "gated",
            Outcome::WaitingForClaims => "waiting-for-claims",
            Outcome::NoProfile => "no-profile",
        }
    }

    /// How bad the outcome is, for `--fail-on`: scheduled < preempt <
    /// unschedulable/rejected/gated/waiting-for-claims (a pod the
    /// scheduler does not attempt does not run either).
    pub fn severity(self) -> u8 {
        match self {
            Outcome::Scheduled => 0,
            Outcome::Preempt => 1,
            Outcome::Unschedulable
            | Outcome::Rejected
            | Outcome::Gated
            | Outcome::WaitingForClaims
            | Outcome::NoProfile => 2,
        }
    }
}

/// A node that failed the filters. A node left out by a PreFilterResult
/// has no reasons (upstream records no status for it).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct NodeFailure {
    pub node: NodeId,
    pub rejection: Rejection,
}

#[derive(Clone, Debug)]
pub struct Placement {
    /// `namespace/name`.
    pub pod: String,
    pub priority: Option<i32>,
    pub preemption_policy: PreemptionPolicy,
    pub priority_class: Option<String>,
    pub outcome: Outcome,
    pub rejection: Option<String>,
    /// In node order.
    pub feasible: Vec<NodeId>,
    /// In node order.
    pub failures: Vec<NodeFailure>,
    /// One per feasible node, same order.
    pub scores: Vec<NodeScore>,
    /// Feasible nodes with the highest total, in node order.
    pub best: Vec<NodeId>,
    /// kplace's pick: the first best node, or the preemption node.
    pub node: Option<NodeId>,
    /// The FitError text; empty when schedulable.
    pub message: String,
    pub preemption: Option<PreemptionAnswer>,
    /// Things the operator should know about how this answer was computed.
    pub notes: Vec<String>,
    /// The scheduler release the answer is asked of, and how it was chosen.
    pub scheduler: VersionChoice,
    /// For a gated pod: where it would go once its gates are removed.
    pub if_ungated: Option<Box<Placement>>,
    /// The profile that answered (`None` when no profile has the pod's
    /// scheduler name, or admission rejected it first).
    pub profile: Option<Arc<Profile>>,
    /// Where the profiles came from: "the default profile" or a file.
    pub profiles_origin: String,
    /// How many feasible nodes kube-scheduler looks for before it stops
    /// filtering (`percentageOfNodesToScore`); kplace filters every node.
    pub upstream_nodes_to_find: usize,
    /// For a pod with ResourceClaims placed on a node: the devices its
    /// claims get there (already allocated ones, and those the allocator
    /// picks; upstream visits pools in map order, so it may pick others of
    /// the same kind).
    pub devices: Vec<PickedDevice>,
    /// For a pod left unschedulable with some node rejected by
    /// DynamicResources: the nodes with devices matching its claims' requests,
    /// most free first (not a scheduler output; it explains the rejection).
    pub device_availability: Vec<NodeDevices>,
}

/// What a node offers the pod's device requests.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct NodeDevices {
    pub node: NodeId,
    pub requests: Vec<RequestDevices>,
}

/// One request of one claim on one node.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct RequestDevices {
    /// `namespace/name` of the ResourceClaim.
    pub claim: String,
    /// `request` or `request/subrequest`.
    pub request: String,
    pub device_class: String,
    /// Devices asked for; `None` for `allocationMode: All`.
    pub count: Option<usize>,
    /// Devices on the node that pass the class's and the request's selectors.
    pub matching: usize,
    /// Matching devices no claim holds.
    pub free: usize,
    /// The matching devices other claims hold, and by whom.
    pub held: Vec<HeldDevice>,
}

/// A device allocated to another claim.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct HeldDevice {
    /// `driver/pool/device`.
    pub device: String,
    /// `namespace/name` of the claim holding it.
    pub claim: String,
    /// `namespace/name` of the pods the claim is reserved for.
    pub pods: Vec<String>,
}

/// One device a claim of the pod gets on the chosen node.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct PickedDevice {
    /// `namespace/name` of the ResourceClaim.
    pub claim: String,
    /// `request` or `request/subrequest`.
    pub request: String,
    pub driver: String,
    pub pool: String,
    pub device: String,
    /// Allocated before this pod (a shared claim), not by this placement.
    pub already_allocated: bool,
}

impl Placement {
    /// Which profile answered and where it came from: "profile
    /// default-scheduler (the default profile)" or "profile batch from
    /// sched.yaml".
    pub fn profile_line(&self) -> Option<String> {
        let profile = self.profile.as_deref()?;
        Some(if profile.configured {
            format!(
                "profile {} from {}",
                profile.scheduler_name, self.profiles_origin
            )
        } else {
            format!(
                "profile {} ({})",
                profile.scheduler_name, self.profiles_origin
            )
        })
    }

    /// The score plugins of the profile that answered, with their weights,
    /// in the order of [`NodeScore::plugins`](super::framework::NodeScore).
    pub fn score_plugins(&self) -> &[(super::status::Plugin, i64)] {
        self.profile.as_deref().map_or(&[], |p| &p.score)
    }

    /// An answer with nothing decided yet: unschedulable, no nodes.
    pub fn new(pod_key: String, pod: &Pod, scheduler: &super::Scheduler) -> Self {
        Placement {
            pod: pod_key,
            priority: Some(pod.priority_value()),
            preemption_policy: pod.preemption_policy.unwrap_or_default(),
            priority_class: pod.priority_class_name.as_deref().map(str::to_string),
            outcome: Outcome::Unschedulable,
            rejection: None,
            feasible: vec![],
            failures: vec![],
            scores: vec![],
            best: vec![],
            node: None,
            message: String::new(),
            preemption: None,
            notes: vec![],
            scheduler: scheduler.version.clone(),
            if_ungated: None,
            profile: None,
            profiles_origin: scheduler.profiles.origin.clone(),
            upstream_nodes_to_find: 0,
            devices: vec![],
            device_availability: vec![],
        }
    }
}
