//! `pickOneNodeForPreemption`: the criteria, in order, each keeping the
//! best candidates; the first that leaves one decides.

use super::Candidate;
use super::victims::importance_key;
use crate::model::{Cluster, NodeId};

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Criterion {
    FewestPdbViolations,
    LowestHighestVictimPriority,
    SmallestPrioritySum,
    FewestVictims,
    LatestStartTime,
}

impl Criterion {
    pub const ALL: [Criterion; 5] = [
        Criterion::FewestPdbViolations,
        Criterion::LowestHighestVictimPriority,
        Criterion::SmallestPrioritySum,
        Criterion::FewestVictims,
        Criterion::LatestStartTime,
    ];

    pub fn as_str(self) -> &'static str {
        match self {
            Criterion::FewestPdbViolations => "more PDB violations",
            Criterion::LowestHighestVictimPriority => "higher highest-victim priority",
            Criterion::SmallestPrioritySum => "larger victim priority sum",
            Criterion::FewestVictims => "more victims",
            Criterion::LatestStartTime => "earlier start of its most important victims",
        }
    }

    /// Higher is better.
    fn score(self, cluster: &Cluster, c: &Candidate) -> i64 {
        // From the dense priority array: the sum reads every victim of
        // every candidate, thousands of large records otherwise.
        let prio = |id| cluster.priority_of(id) as i64;
        match self {
            Criterion::FewestPdbViolations => -(c.num_pdb_violations as i64),
            // Upstream reads victims[0], which is the first PDB-violating
            // victim when there is one; kept as is.
            Criterion::LowestHighestVictimPriority => {
                -c.victims.first().map(|&v| prio(v)).unwrap_or(0)
            }
            Criterion::SmallestPrioritySum => -c
                .victims
                .iter()
                .map(|&v| prio(v) + (1i64 << 31))
                .sum::<i64>(),
            Criterion::FewestVictims => -(c.victims.len() as i64),
            Criterion::LatestStartTime => earliest_start_of_most_important(cluster, c),
        }
    }
}

/// `GetEarliestPodStartTime`: the earliest start among the victims of the
/// highest priority.
fn earliest_start_of_most_important(cluster: &Cluster, c: &Candidate) -> i64 {
    c.victims
        .iter()
        .map(|&v| importance_key(cluster, v))
        .min()
        .map(|(_, start)| start)
        .unwrap_or(i64::MIN)
}

/// Returns every node still tied after the last criterion (in node order)
/// and records on each losing candidate the criterion that eliminated it.
pub fn pick_one_node(cluster: &Cluster, candidates: &mut [Candidate]) -> Vec<NodeId> {
    let mut remaining: Vec<usize> = (0..candidates.len()).collect();
    for criterion in Criterion::ALL {
        if remaining.len() <= 1 {
            break;
        }
        let scores: Vec<i64> = remaining
            .iter()
            .map(|&i| criterion.score(cluster, &candidates[i]))
            .collect();
        let best = *scores.iter().max().expect("non-empty");
        let mut kept = Vec::new();
        for (k, &i) in remaining.iter().enumerate() {
            if scores[k] == best {
                kept.push(i);
            } else {
                candidates[i].lost_on = Some(criterion);
            }
        }
        remaining = kept;
    }
    remaining.iter().map(|&i| candidates[i].node).collect()
}
