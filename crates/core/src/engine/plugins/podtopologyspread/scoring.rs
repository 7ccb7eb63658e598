//! PodTopologySpread PreScore/Score/NormalizeScore (upstream `scoring.go`).

use rustc_hash::FxHashMap;

use super::common::{
    Constraint, LABEL_HOSTNAME, Pair, constraints_with, counts_per_node,
    matches_inclusion_policies, node_has_all_keys,
};
use crate::engine::node_memo::SpreadLookups;
use crate::engine::profile::{SpreadArgs, SpreadDefaulting};
use crate::model::pod::WhenUnsatisfiable;
use crate::model::{Cluster, NodeId, Pod};

pub struct PreScoreState {
    pub constraints: Vec<Constraint>,
    /// Per feasible node (same order as the scored list): left out of scoring.
    pub ignored: Vec<bool>,
    /// Matching pods per registered (non-hostname) pair, indexed by the
    /// order the pairs were first met.
    domain_counts: Vec<i64>,
    /// Per feasible node and constraint (row-major, one row per node): the
    /// index into `domain_counts` of the node's pair, [`PER_NODE`] for a
    /// hostname constraint, or [`NO_DOMAIN`] when the node lacks the key.
    /// Read by Score so that it neither looks up labels nor hashes pairs.
    domain_of: Vec<u32>,
    pub weights: Vec<f64>,
    /// Matching pods per node, for each constraint.
    per_node: Vec<Vec<u32>>,
}

/// A node without the constraint's key: it scores nothing for it.
const NO_DOMAIN: u32 = u32::MAX;
/// A hostname constraint on a node with the key: the node's own count.
const PER_NODE: u32 = u32::MAX - 1;

/// PreScore; `None` is Skip (no ScheduleAnyway constraints, pod or default).
pub fn pre_score(
    cluster: &Cluster,
    pod: &Pod,
    feasible: &[NodeId],
    args: &SpreadArgs,
    lookups: Option<&SpreadLookups>,
) -> Option<PreScoreState> {
    if feasible.is_empty() || cluster.nodes.is_empty() {
        return None;
    }
    let constraints = constraints_with(
        cluster,
        pod,
        args,
        WhenUnsatisfiable::ScheduleAnyway,
        lookups,
    );
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
    let width = constraints.len();
    let mut ignored = vec![false; feasible.len()];
    let mut domain_of = vec![NO_DOMAIN; feasible.len() * width];
    let mut domain_index: FxHashMap<Pair, u32> = FxHashMap::default();
    let mut topo_size = vec![0usize; width];
    // Each feasible node's value of each constraint's key (`None`: the
    // node lacks it): from a memo's columns, or read on both cores (the
    // label lookups are the costly part of PreScore).
    let values: Vec<Option<crate::model::Sym>> = match lookups {
        Some(lookups) => {
            let columns: Vec<_> = constraints
                .iter()
                .map(|c| lookups.column(cluster, c.topology_key))
                .collect();
            let mut values = Vec::with_capacity(feasible.len() * width);
            for &n in feasible {
                values.extend(columns.iter().map(|column| column[n as usize]));
            }
            values
        }
        None => kplace_split::in_parts(feasible.len(), |range| {
            let mut part = Vec::with_capacity(range.len() * width);
            for &n in &feasible[range] {
                let labels = &cluster.node(n).labels;
                part.extend(constraints.iter().map(|c| labels.get(c.topology_key)));
            }
            part
        })
        .concat(),
    };
    for (i, row) in values.chunks_exact(width).enumerate() {
        if require_all && row.iter().any(Option::is_none) {
            ignored[i] = true;
            continue;
        }
        for (ci, (c, &value)) in constraints.iter().zip(row).enumerate() {
            if Some(c.topology_key) == hostname {
                if value.is_some() {
                    domain_of[i * width + ci] = PER_NODE;
                }
                continue;
            }
            // A node without the key registers the empty value's pair
            // (and counts towards the topology size) but scores nothing
            // for the constraint.
            let pair = (c.topology_key, value.unwrap_or(empty));
            let next = domain_index.len() as u32;
            let index = *domain_index.entry(pair).or_insert_with(|| {
                topo_size[ci] += 1;
                next
            });
            if value.is_some() {
                domain_of[i * width + ci] = index;
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
    let mut domain_counts = vec![0i64; domain_index.len()];
    // Only registered pairs collect counts (hostname pairs never are), so
    // the inclusion policies, the costly part, are checked only where a
    // node would add to one.
    if !domain_index.is_empty() {
        for n in nodes_with_matches(&per_node, &constraints, hostname) {
            let node = &cluster.nodes[n];
            if require_all && !node_has_all_keys(node, &constraints) {
                continue;
            }
            for (ci, c) in constraints.iter().enumerate() {
                if Some(c.topology_key) == hostname || per_node[ci][n] == 0 {
                    continue;
                }
                let pair = (
                    c.topology_key,
                    node.labels.get(c.topology_key).unwrap_or(empty),
                );
                let Some(&index) = domain_index.get(&pair) else {
                    continue;
                };
                if matches_inclusion_policies(c, pod, node, &cluster.interner) {
                    domain_counts[index as usize] += per_node[ci][n] as i64;
                }
            }
        }
    }
    Some(PreScoreState {
        constraints,
        ignored,
        domain_counts,
        domain_of,
        weights,
        per_node,
    })
}

/// The nodes (ascending) where some constraint that counts per domain
/// (not per hostname) has matching pods: only they add to a domain's
/// count, and a workload's pods sit on a few of thousands of nodes, so
/// the dense counts are scanned instead of every node's labels.
fn nodes_with_matches(
    per_node: &[Vec<u32>],
    constraints: &[Constraint],
    hostname: Option<crate::model::Sym>,
) -> Vec<usize> {
    let mut counted = constraints
        .iter()
        .zip(per_node)
        .filter(|(c, _)| Some(c.topology_key) != hostname)
        .map(|(_, counts)| counts);
    let Some(first) = counted.next() else {
        return Vec::new();
    };
    let mut any: Vec<bool> = first.iter().map(|&c| c != 0).collect();
    for counts in counted {
        for (a, &c) in any.iter_mut().zip(counts) {
            *a |= c != 0;
        }
    }
    any.iter()
        .enumerate()
        .filter_map(|(n, &a)| a.then_some(n))
        .collect()
}

impl PreScoreState {
    /// Raw score of the `i`-th feasible node.
    pub fn score(&self, i: usize, n: NodeId) -> i64 {
        if self.ignored[i] {
            return 0;
        }
        let width = self.constraints.len();
        let domains = &self.domain_of[i * width..(i + 1) * width];
        let mut score = 0f64;
        for (ci, c) in self.constraints.iter().enumerate() {
            let count = match domains[ci] {
                NO_DOMAIN => continue,
                PER_NODE => self.per_node[ci][n as usize] as i64,
                d => self.domain_counts[d as usize],
            };
            score += count as f64 * self.weights[ci] + (c.max_skew - 1) as f64;
        }
        score.round() as i64
    }

    /// NormalizeScore's minimum and maximum over the nodes not ignored,
    /// from the raw scores in feasible-node order.
    pub fn normalizer(&self, scores: impl Iterator<Item = i64>) -> Normalizer {
        let mut min = i64::MAX;
        let mut max = 0i64;
        for (s, &ignored) in scores.zip(&self.ignored) {
            if ignored {
                continue;
            }
            min = min.min(s);
            max = max.max(s);
        }
        Normalizer { min, max }
    }

    /// The `i`-th feasible node's normalized score: fewer matching pods
    /// score higher; ignored nodes get 0.
    pub fn normalized(&self, by: Normalizer, i: usize, score: i64) -> i64 {
        if self.ignored[i] {
            0
        } else if by.max == 0 {
            super::super::MAX_NODE_SCORE
        } else {
            super::super::MAX_NODE_SCORE * (by.max + by.min - score) / by.max
        }
    }
}

/// What NormalizeScore found over all nodes: the least and the most raw
/// score of the nodes not ignored.
#[derive(Clone, Copy, Debug)]
pub struct Normalizer {
    min: i64,
    max: i64,
}
