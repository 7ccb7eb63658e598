//! PodTopologySpread PreScore/Score/NormalizeScore (upstream `scoring.go`).

use rustc_hash::FxHashMap;

use super::common::{
    Constraint, LABEL_HOSTNAME, Pair, constraints_for, counts_per_node, matches_inclusion_policies,
    node_has_all_keys,
};
use crate::engine::profile::{SpreadArgs, SpreadDefaulting};
use crate::model::pod::WhenUnsatisfiable;
use crate::model::{Cluster, NodeId, Pod};

pub struct PreScoreState {
    pub constraints: Vec<Constraint>,
    /// Per feasible node (same order as the scored list): left out of scoring.
    pub ignored: Vec<bool>,
    /// Matching pods per registered (non-hostname) pair.
    pub pair_counts: FxHashMap<Pair, i64>,
    pub weights: Vec<f64>,
    /// Matching pods per node, for each constraint.
    per_node: Vec<Vec<u32>>,
    hostname: Option<crate::model::Sym>,
}

/// PreScore; `None` is Skip (no ScheduleAnyway constraints, pod or default).
pub fn pre_score(
    cluster: &Cluster,
    pod: &Pod,
    feasible: &[NodeId],
    args: &SpreadArgs,
) -> Option<PreScoreState> {
    if feasible.is_empty() || cluster.nodes.is_empty() {
        return None;
    }
    let constraints = constraints_for(cluster, pod, args, WhenUnsatisfiable::ScheduleAnyway);
    if constraints.is_empty() {
        return None;
    }
    // `requireAllTopologies`: only the system defaults tolerate nodes
    // without every key.
    let system_defaulted =
        pod.spread_constraints.is_empty() && args.defaulting == SpreadDefaulting::System;
    let require_all = !system_defaulted;
    let hostname = cluster.interner.lookup(LABEL_HOSTNAME);
    let empty = cluster.empty_sym();
    let mut ignored = vec![false; feasible.len()];
    let mut pair_counts: FxHashMap<Pair, i64> = FxHashMap::default();
    let mut topo_size = vec![0usize; constraints.len()];
    for (i, &n) in feasible.iter().enumerate() {
        let node = cluster.node(n);
        if require_all && !node_has_all_keys(node, &constraints) {
            ignored[i] = true;
            continue;
        }
        for (ci, c) in constraints.iter().enumerate() {
            if Some(c.topology_key) == hostname {
                continue;
            }
            let pair = (
                c.topology_key,
                node.labels.get(c.topology_key).unwrap_or(empty),
            );
            if let std::collections::hash_map::Entry::Vacant(e) = pair_counts.entry(pair) {
                e.insert(0);
                topo_size[ci] += 1;
            }
        }
    }
    let num_ignored = ignored.iter().filter(|&&x| x).count();
    let weights = constraints
        .iter()
        .enumerate()
        .map(|(i, c)| {
            let size = if Some(c.topology_key) == hostname {
                feasible.len() - num_ignored
            } else {
                topo_size[i]
            };
            ((size + 2) as f64).ln()
        })
        .collect();
    let per_node: Vec<Vec<u32>> = constraints
        .iter()
        .map(|c| counts_per_node(cluster, &c.selector, pod.namespace))
        .collect();
    // Only registered pairs collect counts (hostname pairs never are), so
    // the inclusion policies, the costly part, are checked only where a
    // node would add to one.
    if !pair_counts.is_empty() {
        for (n, node) in cluster.nodes.iter().enumerate() {
            // A node without matching pods adds nothing: skip it before
            // reading its labels (the dense counts are cheap to read).
            let adds = |(ci, c): (usize, &Constraint)| {
                Some(c.topology_key) != hostname && per_node[ci][n] != 0
            };
            if !constraints.iter().enumerate().any(adds) {
                continue;
            }
            if require_all && !node_has_all_keys(node, &constraints) {
                continue;
            }
            for (ci, c) in constraints.iter().enumerate() {
                if !adds((ci, c)) {
                    continue;
                }
                let pair = (
                    c.topology_key,
                    node.labels.get(c.topology_key).unwrap_or(empty),
                );
                let Some(count) = pair_counts.get_mut(&pair) else {
                    continue;
                };
                if matches_inclusion_policies(c, pod, node, &cluster.interner) {
                    *count += per_node[ci][n] as i64;
                }
            }
        }
    }
    Some(PreScoreState {
        constraints,
        ignored,
        pair_counts,
        weights,
        per_node,
        hostname,
    })
}

impl PreScoreState {
    /// Raw score of the `i`-th feasible node.
    pub fn score(&self, cluster: &Cluster, i: usize, n: NodeId) -> i64 {
        if self.ignored[i] {
            return 0;
        }
        let node = cluster.node(n);
        let mut score = 0f64;
        for (ci, c) in self.constraints.iter().enumerate() {
            let Some(value) = node.labels.get(c.topology_key) else {
                continue;
            };
            let count = if Some(c.topology_key) == self.hostname {
                self.per_node[ci][n as usize] as i64
            } else {
                self.pair_counts
                    .get(&(c.topology_key, value))
                    .copied()
                    .unwrap_or(0)
            };
            score += count as f64 * self.weights[ci] + (c.max_skew - 1) as f64;
        }
        score.round() as i64
    }

    /// Fewer matching pods score higher; ignored nodes get 0.
    pub fn normalize(&self, scores: &mut [i64]) {
        let mut min = i64::MAX;
        let mut max = 0i64;
        for (i, &s) in scores.iter().enumerate() {
            if self.ignored[i] {
                continue;
            }
            min = min.min(s);
            max = max.max(s);
        }
        for (i, s) in scores.iter_mut().enumerate() {
            if self.ignored[i] {
                *s = 0;
            } else if max == 0 {
                *s = super::super::MAX_NODE_SCORE;
            } else {
                *s = super::super::MAX_NODE_SCORE * (max + min - *s) / max;
            }
        }
    }
}
