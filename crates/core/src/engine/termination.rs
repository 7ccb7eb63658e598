//! How long preemption victims take to leave, from the pod deletion and
//! kubelet termination rules (semantics doc §6): the grace period comes from
//! `terminationGracePeriodSeconds` (preemption passes no override), preStop
//! hooks run inside it, the kubelet grants a one-off 2 s minimum window, and
//! a StatefulSet replacement waits for the old pod object to be gone.

use crate::engine::preemption::pdb_names_violated;
use crate::model::{Cluster, Pod, PodId};

/// The kubelet's `minimumGracePeriodInSeconds`.
pub const MINIMUM_GRACE_WINDOW_SECONDS: i64 = 2;
/// Typical kubelet sync and status propagation before the scheduler sees
/// the pod gone (not part of the bound below).
pub const PROPAGATION_SECONDS: (i64, i64) = (1, 2);

#[derive(Clone, Debug, PartialEq, Eq)]
pub struct VictimTermination {
    pub pod: PodId,
    /// The grace period the deletion gets.
    pub grace_seconds: i64,
    /// Upper bound on the time until the pod is gone.
    pub max_seconds: i64,
    pub has_pre_stop: bool,
    /// Already terminating: preemption does not restart its clock.
    pub already_terminating: bool,
    /// The StatefulSet owning it: its replacement waits for full termination.
    pub stateful_set: Option<String>,
    /// PodDisruptionBudgets this eviction breaks (best-effort under preemption).
    pub violated_pdbs: Vec<String>,
}

#[derive(Clone, Debug, PartialEq, Eq)]
pub struct TerminationEstimate {
    pub victims: Vec<VictimTermination>,
    /// The earliest time (seconds after the preemption) the pod could bind:
    /// when the slowest victim is gone.
    pub earliest_bind_seconds: i64,
    pub slowest: Option<PodId>,
}

/// One victim's bound: 0 when the grace is 0 (the object is removed at once);
/// otherwise the grace (at least 1 s), plus the 2 s minimum window when a
/// preStop hook may use all of it.
pub fn victim_termination(pod: &Pod, id: PodId) -> VictimTermination {
    let spec_grace = pod.termination.grace_period_seconds.unwrap_or(30).max(0);
    let already_terminating = pod.is_terminating();
    // A second delete may only shorten the period; preemption passes none.
    let grace = match (
        already_terminating,
        pod.termination.deletion_grace_period_seconds,
    ) {
        (true, Some(g)) => g.max(0),
        _ => spec_grace,
    };
    let has_pre_stop = !pod.termination.pre_stop_containers.is_empty();
    let max_seconds = if grace == 0 {
        0
    } else {
        let pod_grace = grace.max(1);
        if has_pre_stop {
            pod_grace + MINIMUM_GRACE_WINDOW_SECONDS
        } else {
            pod_grace
        }
    };
    let stateful_set = pod
        .controller
        .as_ref()
        .filter(|o| &*o.kind == "StatefulSet")
        .map(|o| o.name.to_string());
    VictimTermination {
        pod: id,
        grace_seconds: grace,
        max_seconds,
        has_pre_stop,
        already_terminating,
        stateful_set,
        violated_pdbs: Vec::new(),
    }
}

/// The estimate for a set of victims on one node (in the scheduler's
/// victim order, which the PDB accounting follows).
pub fn estimate(cluster: &Cluster, _preemptor: &Pod, victims: &[PodId]) -> TerminationEstimate {
    let pdbs = pdb_names_violated(cluster, victims);
    let victims: Vec<VictimTermination> = victims
        .iter()
        .zip(pdbs)
        .map(|(&id, violated)| {
            let mut v = victim_termination(cluster.pod(id), id);
            v.violated_pdbs = violated;
            v
        })
        .collect();
    let slowest = victims.iter().max_by_key(|v| v.max_seconds);
    TerminationEstimate {
        earliest_bind_seconds: slowest.map(|v| v.max_seconds).unwrap_or(0),
        slowest: slowest.map(|v| v.pod),
        victims,
    }
}
