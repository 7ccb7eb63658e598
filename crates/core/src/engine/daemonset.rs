//! A DaemonSet's pods as its controller makes them: which nodes should run
//! one (`NodeShouldRunDaemonPod`), the pod pinned to each such node
//! (`ReplaceDaemonSetPodNodeNameNodeAffinity`), and every pinned pod asked
//! about in turn on a fork of the snapshot, as the scheduler would meet
//! them once the controller has created them all.
//!
//! The pod handed in is the DaemonSet's template pod as
//! `daemon.NewPod` makes it: the template with the daemon tolerations
//! (`AddOrUpdateDaemonPodTolerations`) already added.

use super::plugins::node_affinity::required_matches;
use super::plugins::taint_toleration::first_untolerated;
use super::replicas::{ReplicaPlan, ReplicaStep, domain_counts, generated_name};
use super::{Outcome, carry_out, place};
use crate::model::pod::{FieldRequirement, NodeAffinity, NodeSelectorTerm, PodPhase};
use crate::model::{Cluster, NodeId, Pod};

/// Which nodes the controller would run a daemon pod on, and why not the
/// others.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Eligibility {
    /// In node order.
    pub eligible: Vec<NodeId>,
    /// In node order, with the reason the controller skips the node.
    pub not_eligible: Vec<(NodeId, String)>,
}

/// `NodeShouldRunDaemonPod`'s first answer (should it run a pod there):
/// the template's `nodeName` names the node or none, the pod's nodeSelector
/// and required node affinity match the node, and no NoSchedule/NoExecute
/// taint of the node is left untolerated.
pub fn eligibility(cluster: &Cluster, pod: &Pod) -> Eligibility {
    let mut e = Eligibility::default();
    for (i, node) in cluster.nodes.iter().enumerate() {
        let id = i as NodeId;
        if let Some(name) = &pod.node_name
            && !name.is_empty()
            && **name != *node.name
        {
            e.not_eligible
                .push((id, format!("the template's spec.nodeName is {name}")));
        } else if !required_matches(pod, node, &cluster.interner) {
            e.not_eligible.push((
                id,
                "the pod's node selector or required node affinity does not match".into(),
            ));
        } else if let Some(taint) = first_untolerated(&pod.tolerations, node) {
            e.not_eligible.push((
                id,
                format!(
                    "untolerated taint {{{}: {}}} ({:?})",
                    taint.key, taint.value, taint.effect
                ),
            ));
        } else {
            e.eligible.push(id);
        }
    }
    e
}

/// The daemon pod for `node` as the controller creates it: the required
/// node affinity replaced by one `matchFields` term `metadata.name In
/// [node]` (preferred terms and the nodeSelector stay), named `name`.
pub fn pinned(pod: &Pod, node: &str, name: &str) -> Pod {
    let mut p = pod.clone();
    p.name = name.into();
    let term = NodeSelectorTerm {
        expressions: Box::new([]),
        fields: Box::new([FieldRequirement {
            not_in: false,
            name: node.into(),
        }]),
        usable: true,
        name_in: Some(Box::new([node.into()])),
    };
    let mut affinity = p.node_affinity.take().map(|a| *a).unwrap_or_default();
    affinity.required = Some(Box::new([term]));
    p.node_affinity = Some(Box::new(NodeAffinity { ..affinity }));
    p
}

/// The daemon pods' answers: one pinned pod per eligible node.
#[derive(Clone, Debug)]
pub struct DaemonPlan {
    pub eligibility: Eligibility,
    /// One step per eligible node, in node order; every pod is asked about
    /// (one that cannot be placed does not stop the others).
    pub plan: ReplicaPlan,
}

/// Creates the pinned pod of every eligible node and asks about each in
/// node order on one fork: a placed pod is bound there (its victims
/// evicted) before the next is asked about.
pub fn place_daemon_pods(cluster: &Cluster, pod: &Pod, scheduler: &super::Scheduler) -> DaemonPlan {
    let eligibility = eligibility(cluster, pod);
    let mut fork = cluster.clone();
    let mut plan = ReplicaPlan {
        steps: Vec::with_capacity(eligibility.eligible.len()),
        first_unplaceable: None,
        domains_after: Vec::with_capacity(eligibility.eligible.len()),
        cluster: Cluster::default(),
    };
    let owner = pod
        .controller
        .as_ref()
        .map_or_else(|| pod.name.to_string(), |c| c.name.to_string());
    for (i, &node) in eligibility.eligible.iter().enumerate() {
        let node_name = cluster.node(node).name.to_string();
        let name = if i == 0 {
            pod.name.to_string()
        } else {
            generated_name(&owner, &format!("{}/{node_name}", pod.name))
        };
        let mut replica = pinned(pod, &node_name, &name);
        let placement = place(&fork, &replica, scheduler);
        if let Some(landed) = carry_out(&mut fork, &placement) {
            replica.priority = placement.priority;
            replica.node_name = Some(fork.node(landed).name.clone());
            replica.phase = PodPhase::Running;
            fork.add_pod(replica.clone());
        } else if plan.first_unplaceable.is_none() {
            plan.first_unplaceable = Some(i + 1);
        }
        plan.domains_after.push(domain_counts(&fork, pod));
        plan.steps.push(ReplicaStep {
            replica: i + 1,
            name,
            placement,
            new_claims: Vec::new(),
        });
    }
    plan.cluster = fork;
    DaemonPlan { eligibility, plan }
}

/// Whether every daemon pod landed (placed or by preemption).
pub fn all_placed(plan: &DaemonPlan) -> bool {
    plan.plan
        .steps
        .iter()
        .all(|s| matches!(s.placement.outcome, Outcome::Scheduled | Outcome::Preempt))
}
