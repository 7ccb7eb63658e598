//! `filterPodsWithPDBViolation`: split victims into those whose eviction
//! would break a PodDisruptionBudget and those that would not.

use crate::model::{BriefPdbs, Cluster, NodeInfo, PodId};

/// Victims as positions in their node's pod list, in importance order
/// within each group. Kept between the nodes of one dry run (cleared by
/// [`split_by_pdb_violation`]), so that thousands of nodes reuse its room.
#[derive(Default)]
pub struct Split {
    pub violating: Vec<u32>,
    pub non_violating: Vec<u32>,
    budgets: Budgets,
}

/// What the split reads of each PDB, gathered once per preemption: the
/// dry run on thousands of nodes would otherwise load the large PDB
/// records again for every victim.
pub struct PdbTable {
    /// `disruptionsAllowed` (0 when unknown).
    allowed: Vec<i32>,
    /// Whether `disruptedPods` names any pod.
    lists_disrupted: Vec<bool>,
}

impl PdbTable {
    pub fn of(cluster: &Cluster) -> PdbTable {
        PdbTable {
            allowed: cluster
                .pdbs
                .iter()
                .map(|p| p.disruptions_allowed.unwrap_or(0))
                .collect(),
            lists_disrupted: cluster
                .pdbs
                .iter()
                .map(|p| !p.disrupted_pods.is_empty())
                .collect(),
        }
    }
}

/// Disruptions still allowed, per PDB, as evictions on one node use them
/// up. Only the PDBs touched are stored (a node's victims meet few).
#[derive(Default)]
pub struct Budgets(Vec<(usize, i32)>);

impl Budgets {
    fn take(&mut self, table: &PdbTable, pdb: usize) -> i32 {
        let slot = match self.0.iter().position(|b| b.0 == pdb) {
            Some(i) => i,
            None => {
                self.0.push((pdb, table.allowed[pdb]));
                self.0.len() - 1
            }
        };
        self.0[slot].1 -= 1;
        self.0[slot].1
    }
}

/// Walks the victims in importance order against a per-node copy of each
/// PDB's `disruptionsAllowed`, into `split` (what it held before is
/// cleared).
pub fn split_by_pdb_violation(
    cluster: &Cluster,
    table: &PdbTable,
    node: &NodeInfo,
    victims: impl IntoIterator<Item = u32>,
    split: &mut Split,
) {
    split.violating.clear();
    split.non_violating.clear();
    split.budgets.0.clear();
    for at in victims {
        let id = node.pods[at as usize];
        let budgets = &mut split.budgets;
        let violates = match node.briefs[at as usize].pdbs() {
            BriefPdbs::None => false,
            BriefPdbs::One(pdb) => uses_up(cluster, table, id, pdb, budgets),
            BriefPdbs::Several => !violated_pdbs(cluster, table, id, budgets).is_empty(),
        };
        if violates {
            split.violating.push(at);
        } else {
            split.non_violating.push(at);
        }
    }
}

/// Uses up one disruption of each PDB matching the pod and returns those
/// now below zero. Unlabelled pods match no PDB; a `{}` selector is ignored,
/// and a pod already in `disruptedPods` is not counted again.
pub fn violated_pdbs(
    cluster: &Cluster,
    table: &PdbTable,
    id: PodId,
    budgets: &mut Budgets,
) -> Vec<usize> {
    cluster
        .pdbs_of_pod(id)
        .iter()
        .map(|&i| i as usize)
        .filter(|&i| uses_up(cluster, table, id, i, budgets))
        .collect()
}

/// Whether evicting the pod alone would break a PodDisruptionBudget, as
/// the split counts it: a PDB that selects the pod has no disruption
/// left, and does not already list the pod as disrupted. The Tiers view's
/// "PDB-protected" share is this answer.
pub fn eviction_alone_breaks_a_pdb(cluster: &Cluster, table: &PdbTable, id: PodId) -> bool {
    // The pod's eviction is the only one: each PDB's budget is taken once
    // (the budgets are kept per PDB).
    let mut budgets = Budgets::default();
    cluster
        .pdbs_of_pod(id)
        .iter()
        .any(|&i| uses_up(cluster, table, id, i as usize, &mut budgets))
}

/// Evicting the pod uses up one disruption of `pdb`: whether that breaks
/// it (none left). A pod the PDB already lists as disrupted uses none.
fn uses_up(
    cluster: &Cluster,
    table: &PdbTable,
    id: PodId,
    pdb: usize,
    budgets: &mut Budgets,
) -> bool {
    // The pod's (large) record is read only when the PDB lists some.
    if table.lists_disrupted[pdb]
        && cluster.pdbs[pdb]
            .disrupted_pods
            .contains(&cluster.pod(id).name)
    {
        return false;
    }
    budgets.take(table, pdb) < 0
}
