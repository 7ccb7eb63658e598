//! `filterPodsWithPDBViolation`: split victims into those whose eviction
//! would break a PodDisruptionBudget and those that would not.

use crate::model::{Cluster, PodId};

/// Which PDBs each victim would push below zero allowed disruptions.
pub struct Split {
    pub violating: Vec<PodId>,
    pub non_violating: Vec<PodId>,
}

/// Walks the victims in importance order against a per-node copy of each
/// PDB's `disruptionsAllowed`.
pub fn split_by_pdb_violation(cluster: &Cluster, victims: &[PodId]) -> Split {
    let mut allowed: Vec<i32> = cluster
        .pdbs
        .iter()
        .map(|p| p.disruptions_allowed.unwrap_or(0))
        .collect();
    let mut split = Split {
        violating: Vec::new(),
        non_violating: Vec::new(),
    };
    for &id in victims {
        if violated_pdbs(cluster, id, &mut allowed).is_empty() {
            split.non_violating.push(id);
        } else {
            split.violating.push(id);
        }
    }
    split
}

/// Decrements the budgets of the PDBs matching the pod and returns those
/// now below zero. Unlabelled pods match no PDB; a `{}` selector is ignored,
/// and a pod already in `disruptedPods` is not counted again.
pub fn violated_pdbs(cluster: &Cluster, id: PodId, allowed: &mut [i32]) -> Vec<usize> {
    let pod = cluster.pod(id);
    let mut violated = Vec::new();
    if pod.labels.is_empty() {
        return violated;
    }
    for (i, pdb) in cluster.pdbs.iter().enumerate() {
        if pdb.namespace != pod.namespace
            || pdb.selector.is_everything()
            || !pdb.selector.matches(&pod.labels)
            || pdb.disrupted_pods.iter().any(|n| *n == pod.name)
        {
            continue;
        }
        allowed[i] -= 1;
        if allowed[i] < 0 {
            violated.push(i);
        }
    }
    violated
}
