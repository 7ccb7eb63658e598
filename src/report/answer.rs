//! The engine's answer for one pod as a typed document with names instead
//! of ids: what `-o json` and `-o yaml` serialize (field for field the
//! contract the README documents, in the same order), and what the human
//! renderings ([`super::document`]) read, so the three cannot disagree.

use serde::Serialize;
use serde::ser::{SerializeMap, Serializer};

use crate::engine::preemption::PreemptionAnswer;
use crate::engine::termination::TerminationEstimate;
use crate::engine::{Outcome, Placement};
use crate::model::{Cluster, NodeId, PodId};

/// A JSON object whose keys keep the order they were given in (node names
/// sorted, plugins in profile order), without a map type per field.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Ordered<T>(pub Vec<(String, T)>);

impl<T: Serialize> Serialize for Ordered<T> {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        let mut map = serializer.serialize_map(Some(self.0.len()))?;
        for (k, v) in &self.0 {
            map.serialize_entry(k, v)?;
        }
        map.end()
    }
}

/// `schedulerVersionSource`: how the release was chosen.
#[derive(Clone, Debug, Serialize)]
pub struct VersionSource {
    pub kind: &'static str,
    pub clamped: bool,
    pub reason: String,
}

impl VersionSource {
    pub fn new(choice: &crate::engine::VersionChoice) -> Self {
        VersionSource {
            kind: choice.source_kind(),
            clamped: choice.clamped,
            reason: choice.reason(),
        }
    }
}

#[derive(Clone, Debug, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct PlacementAnswer {
    pub pod: String,
    pub priority: Option<i32>,
    pub priority_class_name: Option<String>,
    pub preemption_policy: &'static str,
    pub outcome: &'static str,
    pub rejection: Option<String>,
    pub scheduler_version: &'static str,
    pub scheduler_version_source: VersionSource,
    #[serde(flatten)]
    pub profile: Option<ProfileUsed>,
    /// Absent when the scheduler never filtered (rejected, gated, waiting
    /// for claims, no profile).
    #[serde(flatten)]
    pub evaluation: Option<Evaluation>,
    pub node: Option<String>,
    pub preemption: Option<Preemption>,
    pub message: String,
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub devices: Vec<Device>,
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub device_availability: Vec<NodeDeviceAvailability>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub if_ungated: Option<Box<PlacementAnswer>>,
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub notes: Vec<String>,
}

#[derive(Clone, Debug, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct ProfileUsed {
    pub profile: String,
    pub profile_source: String,
    pub upstream_feasible_nodes_to_find: usize,
    /// Enabled score plugins and their weights, in the profile's order.
    pub score_plugins: Ordered<i64>,
}

#[derive(Clone, Debug, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct Evaluation {
    /// Sorted by name.
    pub feasible_nodes: Vec<String>,
    /// Per failing node, sorted by name.
    pub filter_failures: Ordered<FilterFailure>,
    /// Per feasible node, in the engine's order.
    pub scores: Ordered<NodeScores>,
    /// Sorted by name.
    pub best_nodes: Vec<String>,
}

#[derive(Clone, Debug, Serialize)]
pub struct FilterFailure {
    pub plugin: &'static str,
    pub code: &'static str,
    pub reasons: Vec<String>,
}

#[derive(Clone, Debug, Serialize)]
pub struct NodeScores {
    pub total: i64,
    /// Weighted points per score plugin, in the profile's order.
    pub plugins: Ordered<i64>,
}

#[derive(Clone, Debug, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct Preemption {
    pub eligible: bool,
    pub ineligible_reason: Option<String>,
    /// Per candidate node, sorted by name.
    pub candidates: Ordered<PreemptionCandidate>,
    pub chosen_nodes: Vec<String>,
    pub node: Option<String>,
    pub victims: Vec<String>,
    pub termination: Option<Termination>,
    pub message: String,
    pub potential_nodes: usize,
    pub upstream_sample_size: usize,
}

#[derive(Clone, Debug, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct PreemptionCandidate {
    /// Sorted `namespace/name`.
    pub victims: Vec<String>,
    #[serde(rename = "numPDBViolations")]
    pub num_pdb_violations: usize,
    pub lost_on: Option<&'static str>,
}

#[derive(Clone, Debug, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct Termination {
    pub earliest_bind_seconds: i64,
    pub slowest_victim: Option<String>,
    pub victims: Vec<VictimTermination>,
}

#[derive(Clone, Debug, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct VictimTermination {
    pub pod: String,
    pub priority: i32,
    pub grace_period_seconds: i64,
    pub max_seconds: i64,
    pub pre_stop: bool,
    pub already_terminating: bool,
    pub stateful_set: Option<String>,
    #[serde(rename = "violatedPDBs")]
    pub violated_pdbs: Vec<String>,
}

#[derive(Clone, Debug, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct Device {
    pub claim: String,
    pub request: String,
    pub driver: String,
    pub pool: String,
    pub device: String,
    pub already_allocated: bool,
}

#[derive(Clone, Debug, Serialize)]
pub struct NodeDeviceAvailability {
    pub node: String,
    pub requests: Vec<RequestAvailability>,
}

#[derive(Clone, Debug, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct RequestAvailability {
    pub claim: String,
    pub request: String,
    pub device_class: String,
    pub count: Option<usize>,
    pub matching: usize,
    pub free: usize,
    pub held_by: Vec<HeldBy>,
}

#[derive(Clone, Debug, Serialize)]
pub struct HeldBy {
    pub device: String,
    pub claim: String,
    pub pods: Vec<String>,
}

fn node_name(cluster: &Cluster, id: NodeId) -> String {
    cluster.node(id).name.to_string()
}

fn sorted_names(cluster: &Cluster, ids: &[NodeId]) -> Vec<String> {
    let mut v: Vec<String> = ids.iter().map(|&id| node_name(cluster, id)).collect();
    v.sort();
    v
}

fn sorted_pods(cluster: &Cluster, ids: &[PodId]) -> Vec<String> {
    let mut v: Vec<String> = ids.iter().map(|&id| cluster.pod_key(id)).collect();
    v.sort();
    v
}

/// Whether the scheduler filtered and scored nodes for this answer.
pub fn evaluated(outcome: Outcome) -> bool {
    !matches!(
        outcome,
        Outcome::Rejected | Outcome::Gated | Outcome::WaitingForClaims | Outcome::NoProfile
    )
}

impl PlacementAnswer {
    pub fn new(cluster: &Cluster, p: &Placement) -> Self {
        let profile = p.profile.as_ref().map(|profile| ProfileUsed {
            profile: profile.scheduler_name.to_string(),
            profile_source: p.profiles_origin.clone(),
            upstream_feasible_nodes_to_find: p.upstream_nodes_to_find,
            score_plugins: Ordered(
                profile
                    .score
                    .iter()
                    .map(|(plugin, weight)| (plugin.as_str().to_string(), *weight))
                    .collect(),
            ),
        });
        PlacementAnswer {
            pod: p.pod.clone(),
            priority: p.priority,
            priority_class_name: p.priority_class.clone(),
            preemption_policy: p.preemption_policy.as_str(),
            outcome: p.outcome.as_str(),
            rejection: p.rejection.clone(),
            scheduler_version: p.scheduler.version.as_str(),
            scheduler_version_source: VersionSource::new(&p.scheduler),
            profile,
            evaluation: evaluated(p.outcome).then(|| evaluation(cluster, p)),
            node: p.node.map(|n| node_name(cluster, n)),
            preemption: p.preemption.as_ref().map(|pr| preemption(cluster, pr)),
            message: p.message.clone(),
            devices: p
                .devices
                .iter()
                .map(|d| Device {
                    claim: d.claim.clone(),
                    request: d.request.clone(),
                    driver: d.driver.clone(),
                    pool: d.pool.clone(),
                    device: d.device.clone(),
                    already_allocated: d.already_allocated,
                })
                .collect(),
            device_availability: p
                .device_availability
                .iter()
                .map(|n| NodeDeviceAvailability {
                    node: node_name(cluster, n.node),
                    requests: n
                        .requests
                        .iter()
                        .map(|r| RequestAvailability {
                            claim: r.claim.clone(),
                            request: r.request.clone(),
                            device_class: r.device_class.clone(),
                            count: r.count,
                            matching: r.matching,
                            free: r.free,
                            held_by: r
                                .held
                                .iter()
                                .map(|h| HeldBy {
                                    device: h.device.clone(),
                                    claim: h.claim.clone(),
                                    pods: h.pods.clone(),
                                })
                                .collect(),
                        })
                        .collect(),
                })
                .collect(),
            if_ungated: p
                .if_ungated
                .as_deref()
                .map(|u| Box::new(PlacementAnswer::new(cluster, u))),
            notes: p.notes.clone(),
        }
    }
}

fn evaluation(cluster: &Cluster, p: &Placement) -> Evaluation {
    let mut failures: Vec<_> = p.failures.iter().collect();
    failures.sort_by(|a, b| cluster.node(a.node).name.cmp(&cluster.node(b.node).name));
    let plugins = p.score_plugins();
    Evaluation {
        feasible_nodes: sorted_names(cluster, &p.feasible),
        filter_failures: Ordered(
            failures
                .into_iter()
                .map(|f| {
                    (
                        node_name(cluster, f.node),
                        FilterFailure {
                            plugin: f.rejection.plugin.as_str(),
                            code: f.rejection.code.as_str(),
                            reasons: f.rejection.reasons.iter().map(|r| r.to_string()).collect(),
                        },
                    )
                })
                .collect(),
        ),
        scores: Ordered(
            p.scores
                .iter()
                .map(|s| {
                    (
                        node_name(cluster, s.node),
                        NodeScores {
                            total: s.total,
                            plugins: Ordered(
                                plugins
                                    .iter()
                                    .zip(&s.plugins)
                                    .map(|((plugin, _), v)| (plugin.as_str().to_string(), *v))
                                    .collect(),
                            ),
                        },
                    )
                })
                .collect(),
        ),
        best_nodes: sorted_names(cluster, &p.best),
    }
}

fn preemption(cluster: &Cluster, pr: &PreemptionAnswer) -> Preemption {
    let mut candidates: Vec<_> = pr.candidates.iter().collect();
    candidates.sort_by(|a, b| cluster.node(a.node).name.cmp(&cluster.node(b.node).name));
    Preemption {
        eligible: pr.eligible,
        ineligible_reason: pr.ineligible_reason.clone(),
        candidates: Ordered(
            candidates
                .into_iter()
                .map(|c| {
                    (
                        node_name(cluster, c.node),
                        PreemptionCandidate {
                            victims: sorted_pods(cluster, &c.victims),
                            num_pdb_violations: c.num_pdb_violations,
                            lost_on: c.lost_on.map(|l| l.as_str()),
                        },
                    )
                })
                .collect(),
        ),
        chosen_nodes: sorted_names(cluster, &pr.chosen_nodes),
        node: pr.node.map(|n| node_name(cluster, n)),
        victims: pr.victims.iter().map(|&v| cluster.pod_key(v)).collect(),
        termination: pr.termination.as_ref().map(|t| termination(cluster, t)),
        message: pr.message.clone(),
        potential_nodes: pr.potential_nodes,
        upstream_sample_size: pr.upstream_sample,
    }
}

fn termination(cluster: &Cluster, t: &TerminationEstimate) -> Termination {
    Termination {
        earliest_bind_seconds: t.earliest_bind_seconds,
        slowest_victim: t.slowest.map(|v| cluster.pod_key(v)),
        victims: t
            .victims
            .iter()
            .map(|v| VictimTermination {
                pod: cluster.pod_key(v.pod),
                priority: cluster.pod(v.pod).priority_value(),
                grace_period_seconds: v.grace_seconds,
                max_seconds: v.max_seconds,
                pre_stop: v.has_pre_stop,
                already_terminating: v.already_terminating,
                stateful_set: v.stateful_set.clone(),
                violated_pdbs: v.violated_pdbs.clone(),
            })
            .collect(),
    }
}
