//! `filterPodsWithPDBViolation`: split victims into those whose eviction
//! would break a PodDisruptionBudget and those that would not.

use crate::model::{Cluster, PodBrief, PodId};

/// Victims with their briefs, in importance order within each group.
pub struct Split {
    pub violating: Vec<(PodId, PodBrief)>,
    pub non_violating: Vec<(PodId, PodBrief)>,
}

/// Disruptions still allowed, per PDB, as evictions on one node use them
/// up. Only the PDBs touched are stored (a node's victims meet few).
#[derive(Default)]
pub struct Budgets(Vec<(usize, i32)>);

impl Budgets {
    fn take(&mut self, cluster: &Cluster, pdb: usize) -> i32 {
        let slot = match self.0.iter().position(|b| b.0 == pdb) {
            Some(i) => i,
            None => {
                let allowed = cluster.pdbs[pdb].disruptions_allowed.unwrap_or(0);
                self.0.push((pdb, allowed));
                self.0.len() - 1
            }
        };
        self.0[slot].1 -= 1;
        self.0[slot].1
    }
}

/// Walks the victims in importance order against a per-node copy of each
/// PDB's `disruptionsAllowed`.
pub fn split_by_pdb_violation(cluster: &Cluster, victims: &[(PodId, PodBrief)]) -> Split {
    let mut budgets = Budgets::default();
    let mut split = Split {
        violating: Vec::new(),
        non_violating: Vec::with_capacity(victims.len()),
    };
    for &(id, brief) in victims {
        if !brief.has_pdbs() || violated_pdbs(cluster, id, &mut budgets).is_empty() {
            split.non_violating.push((id, brief));
        } else {
            split.violating.push((id, brief));
        }
    }
    split
}

/// Uses up one disruption of each PDB matching the pod and returns those
/// now below zero. Unlabelled pods match no PDB; a `{}` selector is ignored,
/// and a pod already in `disruptedPods` is not counted again.
pub fn violated_pdbs(cluster: &Cluster, id: PodId, budgets: &mut Budgets) -> Vec<usize> {
    let mut violated = Vec::new();
    let pdbs = cluster.pdbs_of_pod(id);
    if pdbs.is_empty() {
        return violated;
    }
    for &i in pdbs {
        let i = i as usize;
        let disrupted = &cluster.pdbs[i].disrupted_pods;
        // The pod's (large) record is read only when the PDB lists some.
        if !disrupted.is_empty() && disrupted.contains(&cluster.pod(id).name) {
            continue;
        }
        if budgets.take(cluster, i) < 0 {
            violated.push(i);
        }
    }
    violated
}
