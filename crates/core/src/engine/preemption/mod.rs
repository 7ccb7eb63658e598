//! DefaultPreemption (upstream `plugins/defaultpreemption` and
//! `framework/preemption`): when no node fits, find the nodes where evicting
//! lower-priority pods makes room, the victims on each, and the node the
//! scheduler would nominate.
//!
//! Unlike the scheduler, which dry-runs a random sample of at least 100
//! nodes (10%) when there are more, kplace dry-runs every potential node.

mod pdb;
mod select_node;
mod victims;

pub use pdb::{PdbTable, eviction_alone_breaks_a_pdb};
pub use select_node::Criterion;

use super::answer::NodeFailure;
use super::fit_error::fit_error_message;
use super::framework::Cycle;
use super::status::{Code, Plugin, Rejection};
use super::termination::{TerminationEstimate, estimate};
use crate::model::pod::PreemptionPolicy;
use crate::model::{NodeId, PodId};

/// Potential nodes from which the dry runs are shared with the split
/// helper: each costs microseconds (a node's victims tried one by one), so
/// a few dozen already outweigh handing half over.
const DRY_RUNS_WORTH_SPLITTING: usize = 32;

pub const NOT_ELIGIBLE_NEVER: &str = "not eligible due to preemptionPolicy=Never.";
pub const NOT_ELIGIBLE_TERMINATING: &str =
    "not eligible due to a terminating pod on the nominated node.";
pub const NOT_HELPFUL: &str = "Preemption is not helpful for scheduling";
pub const NO_VICTIMS: &str = "No preemption victims found for incoming pod";

/// A node where preemption makes the pod fit.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Candidate {
    pub node: NodeId,
    /// Violating victims first, each group most important first.
    pub victims: Vec<PodId>,
    pub num_pdb_violations: usize,
    /// The criterion on which this node lost to the chosen one.
    pub lost_on: Option<Criterion>,
}

#[derive(Clone, Debug)]
pub struct PreemptionAnswer {
    pub eligible: bool,
    /// Why the pod may not preempt, when it may not.
    pub ineligible_reason: Option<String>,
    /// Every candidate, in node order.
    pub candidates: Vec<Candidate>,
    /// The nodes the scheduler could nominate (more than one only on an exact tie).
    pub chosen_nodes: Vec<NodeId>,
    /// kplace's pick among `chosen_nodes` (the first).
    pub node: Option<NodeId>,
    /// The victims on `node`.
    pub victims: Vec<PodId>,
    /// When the victims are gone and the pod could bind.
    pub termination: Option<TerminationEstimate>,
    /// Why nodes could not be candidates (potential nodes that failed, and
    /// nodes where preemption cannot help).
    pub statuses: Vec<NodeFailure>,
    /// The `preemption: ...` tail of the scheduler's message; empty on success.
    pub message: String,
    /// How many nodes were dry-run, and how many upstream would sample.
    pub potential_nodes: usize,
    pub upstream_sample: usize,
    /// PDBs whose budget kplace computed (the snapshot had no status) and
    /// that selected some victim: `namespace/name` and the computed value.
    pub computed_pdbs: Vec<(String, i32)>,
}

/// `numCandidates` as upstream computes it for `n` potential nodes.
pub fn upstream_sample_size(n: usize, args: &crate::engine::profile::PreemptionArgs) -> usize {
    // `calculateNumCandidates`: a percentage of the nodes, at least the
    // absolute minimum, at most all of them.
    let percentage = args.min_candidate_nodes_percentage.max(0) as usize;
    let absolute = args.min_candidate_nodes_absolute.max(0) as usize;
    n.min((n * percentage / 100).max(absolute))
}

/// PostFilter: runs after every node failed the filters.
pub fn preempt(cycle: &Cycle, failures: &[NodeFailure]) -> PreemptionAnswer {
    let cluster = cycle.cluster;
    let pod = cycle.pod;
    let mut answer = PreemptionAnswer {
        eligible: true,
        ineligible_reason: None,
        candidates: vec![],
        chosen_nodes: vec![],
        node: None,
        victims: vec![],
        termination: None,
        statuses: vec![],
        message: String::new(),
        potential_nodes: 0,
        upstream_sample: 0,
        computed_pdbs: vec![],
    };
    if let Some(reason) = ineligible(cycle, failures) {
        answer.eligible = false;
        answer.message = format!("preemption: {reason}");
        answer.ineligible_reason = Some(reason.to_string());
        return answer;
    }

    let mut potential: Vec<NodeId> = Vec::new();
    for f in failures {
        if f.rejection.code == Code::Unschedulable {
            potential.push(f.node);
        } else {
            answer.statuses.push(NodeFailure {
                node: f.node,
                rejection: Rejection::unresolvable(Plugin::DefaultPreemption, NOT_HELPFUL),
            });
        }
    }
    answer.potential_nodes = potential.len();
    answer.upstream_sample =
        upstream_sample_size(potential.len(), &cycle.profile.args.default_preemption);

    let pdbs = pdb::PdbTable::of(cluster);
    // Both cores through the placement's own helper (awake from Filter),
    // in node order; a dry run costs enough to split from a few nodes on.
    // Each node's pods are asked for while the node before it runs.
    let parts = kplace_split::in_parts_from(DRY_RUNS_WORTH_SPLITTING, potential.len(), |range| {
        let nodes = &potential[range];
        let mut scratch = victims::Scratch::default();
        nodes
            .iter()
            .enumerate()
            .map(|(i, &node)| {
                if let Some(&next) = nodes.get(i + 1) {
                    cluster.node_info(next).prefetch_pods();
                }
                victims::select_victims_on_node(cycle, &pdbs, node, &mut scratch)
            })
            .collect::<Vec<_>>()
    });
    for r in parts.into_iter().flatten() {
        match r {
            Ok(c) => answer.candidates.push(c),
            Err(f) => answer.statuses.push(f),
        }
    }
    // One status per node: an unstable sort gives the same order.
    answer.statuses.sort_unstable_by_key(|f| f.node);

    if answer.candidates.is_empty() {
        let msg = fit_error_message(
            answer.statuses.len(),
            None,
            answer.statuses.iter().map(|f| &f.rejection),
        );
        answer.message = format!("preemption: {msg}");
        return answer;
    }
    answer.computed_pdbs = computed_pdbs(cluster, &answer.candidates);
    let chosen = select_node::pick_one_node(cluster, &mut answer.candidates);
    answer.node = chosen.first().copied();
    answer.chosen_nodes = chosen;
    if let Some(node) = answer.node {
        let cand = answer
            .candidates
            .iter()
            .find(|c| c.node == node)
            .expect("chosen is a candidate");
        answer.victims = cand.victims.clone();
        answer.termination = Some(estimate(cluster, pod, &answer.victims));
    }
    answer
}

/// PDBs without status in the snapshot (budget computed by kplace) that
/// select a victim of some candidate.
fn computed_pdbs(cluster: &crate::model::Cluster, candidates: &[Candidate]) -> Vec<(String, i32)> {
    if !cluster.pdbs.iter().any(|p| p.computed) {
        return vec![];
    }
    // Thousands of candidates' victims meet as many PDBs: a flag per PDB.
    let mut seen = vec![false; cluster.pdbs.len()];
    for c in candidates {
        for &v in &c.victims {
            for &i in cluster.pdbs_of_pod(v) {
                if cluster.pdbs[i as usize].computed {
                    seen[i as usize] = true;
                }
            }
        }
    }
    (0..cluster.pdbs.len())
        .filter(|&i| seen[i])
        .map(|i| {
            let p = &cluster.pdbs[i];
            (
                format!("{}/{}", cluster.interner.resolve(p.namespace), p.name),
                p.disruptions_allowed.unwrap_or(0),
            )
        })
        .collect()
}

/// `PodEligibleToPreemptOthers`.
fn ineligible(cycle: &Cycle, failures: &[NodeFailure]) -> Option<&'static str> {
    let (cluster, pod) = (cycle.cluster, cycle.pod);
    if pod.preemption_policy == Some(PreemptionPolicy::Never) {
        return Some(NOT_ELIGIBLE_NEVER);
    }
    let nominated = cluster.node_id(pod.nominated_node_name.as_deref()?)?;
    let unresolvable = failures
        .iter()
        .find(|f| f.node == nominated)
        .is_some_and(|f| f.rejection.code == Code::UnschedulableAndUnresolvable);
    if unresolvable {
        return None;
    }
    let prio = pod.priority_value();
    let terminating_victim = cluster.node_info(nominated).pods.iter().any(|&id| {
        let p = cluster.pod(id);
        p.priority_value() < prio && p.is_terminating() && p.preempted_by_scheduler
    });
    terminating_victim.then_some(NOT_ELIGIBLE_TERMINATING)
}

/// For each victim (in order), the names of the PDBs its eviction breaks.
pub fn pdb_names_violated(cluster: &crate::model::Cluster, victims: &[PodId]) -> Vec<Vec<String>> {
    let mut budgets = pdb::Budgets::default();
    let table = pdb::PdbTable::of(cluster);
    victims
        .iter()
        .map(|&id| {
            pdb::violated_pdbs(cluster, &table, id, &mut budgets)
                .into_iter()
                .map(|i| {
                    let p = &cluster.pdbs[i];
                    format!("{}/{}", cluster.interner.resolve(p.namespace), p.name)
                })
                .collect()
        })
        .collect()
}
