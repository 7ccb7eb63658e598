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

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::Interner;
    use crate::source::file::load_pod_bytes;

    fn pod(extra_spec: &str, extra_meta: &str) -> Pod {
        let yaml = format!(
            "apiVersion: v1\nkind: Pod\nmetadata:\n  name: v\n  namespace: ns\n{extra_meta}spec:\n  nodeName: n1\n{extra_spec}  containers:\n  - name: app\n    image: app:1\n"
        );
        load_pod_bytes(yaml.as_bytes(), "test", &mut Interner::default()).unwrap()
    }

    #[test]
    fn default_grace_is_30_seconds() {
        let v = victim_termination(&pod("", ""), 0);
        assert_eq!((v.grace_seconds, v.max_seconds), (30, 30));
        assert!(!v.has_pre_stop && !v.already_terminating && v.stateful_set.is_none());
    }

    #[test]
    fn explicit_grace_and_zero_grace() {
        let v = victim_termination(&pod("  terminationGracePeriodSeconds: 120\n", ""), 0);
        assert_eq!((v.grace_seconds, v.max_seconds), (120, 120));
        let v = victim_termination(&pod("  terminationGracePeriodSeconds: 0\n", ""), 0);
        assert_eq!(v.max_seconds, 0, "grace 0 removes the object at once");
    }

    #[test]
    fn pre_stop_gets_the_two_second_minimum_window() {
        let spec = "  terminationGracePeriodSeconds: 10\n  initContainers: []\n";
        let mut p = pod(spec, "");
        p.termination.pre_stop_containers = vec!["app".into()].into_boxed_slice();
        let v = victim_termination(&p, 0);
        assert!(v.has_pre_stop);
        assert_eq!(
            (v.grace_seconds, v.max_seconds),
            (10, 10 + MINIMUM_GRACE_WINDOW_SECONDS)
        );
    }

    #[test]
    fn pre_stop_is_read_from_the_manifest() {
        let yaml = "apiVersion: v1\nkind: Pod\nmetadata: {name: v}\nspec:\n  terminationGracePeriodSeconds: 5\n  containers:\n  - name: app\n    image: app:1\n    lifecycle: {preStop: {exec: {command: [sleep, '5']}}}\n";
        let p = load_pod_bytes(yaml.as_bytes(), "test", &mut Interner::default()).unwrap();
        assert_eq!(victim_termination(&p, 0).max_seconds, 7);
    }

    #[test]
    fn stateful_set_member_is_flagged() {
        let meta = "  ownerReferences:\n  - {apiVersion: apps/v1, kind: StatefulSet, name: db, uid: u1, controller: true}\n";
        let v = victim_termination(&pod("", meta), 0);
        assert_eq!(v.stateful_set.as_deref(), Some("db"));
    }

    #[test]
    fn already_terminating_keeps_its_deletion_grace() {
        let meta = "  deletionTimestamp: '2024-01-01T00:00:10Z'\n  deletionGracePeriodSeconds: 7\n";
        let v = victim_termination(&pod("  terminationGracePeriodSeconds: 60\n", meta), 0);
        assert!(v.already_terminating);
        assert_eq!(
            (v.grace_seconds, v.max_seconds),
            (7, 7),
            "a repeat delete does not restart the clock"
        );
    }
}
