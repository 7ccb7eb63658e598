//! InterPodAffinity PreScore/Score/NormalizeScore (upstream `scoring.go`).

use std::sync::Arc;

use rustc_hash::FxHashMap;

use super::{for_each_term_match, resolve_incoming_term, term_matches};
use crate::engine::Version;
use crate::engine::node_memo::{KeyColumn, SpreadLookups};
use crate::engine::profile::InterPodAffinityArgs;
use crate::model::intern::Sym;
use crate::model::{Cluster, Node, NodeId, Pod};

/// Accumulated weight per topology key and value, one entry per key.
pub struct PreScoreState {
    by_key: Vec<KeyScores>,
}

/// One topology key's accumulated weights.
enum KeyScores {
    /// By value, read through the node's labels.
    ByValue(Sym, FxHashMap<Sym, i64>),
    /// By the domain a memo's key column numbers each node's value with,
    /// so that scoring a node reads two arrays instead of looking up its
    /// label and the value (Score runs for every feasible node of every
    /// placement of a disruption).
    ByDomain(Arc<KeyColumn>, Box<[i64]>),
}

fn add(scores: &mut FxHashMap<Sym, FxHashMap<Sym, i64>>, node: &Node, key: Sym, w: i64) {
    if let Some(v) = node.labels.get(key) {
        *scores.entry(key).or_default().entry(v).or_default() += w;
    }
}

/// PreScore; `None` is Skip (no term matched anywhere).
pub fn pre_score(
    cluster: &Cluster,
    pod: &Pod,
    feasible: &[NodeId],
    args: &InterPodAffinityArgs,
    version: Version,
    lookups: Option<&SpreadLookups>,
) -> Option<PreScoreState> {
    if feasible.is_empty() {
        return None;
    }
    let has_preferred = pod
        .pod_affinity
        .as_ref()
        .is_some_and(|a| !a.preferred_affinity.is_empty() || !a.preferred_anti_affinity.is_empty());
    // `ignorePreferredTermsOfExistingPods`: without preferred terms of its
    // own, the pod is not scored at all.
    if args.ignore_preferred_terms_of_existing_pods && !has_preferred {
        return None;
    }
    let hard_weight = i64::from(args.hard_pod_affinity_weight);
    let mut scores: FxHashMap<Sym, FxHashMap<Sym, i64>> = FxHashMap::default();
    let ns_labels = cluster.namespace_labels(pod.namespace);

    // The incoming pod's preferred terms, against every scheduled pod.
    if let Some(a) = &pod.pod_affinity {
        for (terms, sign) in [
            (&a.preferred_affinity, 1i64),
            (&a.preferred_anti_affinity, -1),
        ] {
            for wt in terms.iter() {
                let term = resolve_incoming_term(cluster, &wt.term, version);
                for_each_term_match(cluster, &term, |e| {
                    let node = cluster.node(e.node.expect("scheduled"));
                    if !node.labels.is_empty() {
                        add(
                            &mut scores,
                            node,
                            term.topology_key,
                            sign * wt.weight as i64,
                        );
                    }
                });
            }
        }
    }

    // Existing pods' terms against the incoming pod: pods with the same
    // terms are matched once, and weigh once per pod on their node.
    for group in cluster.affinity_groups().iter() {
        let a = &group.terms;
        let mut matched: Vec<(Sym, i64)> = Vec::new();
        if hard_weight > 0 {
            for t in a.required_affinity.iter() {
                if term_matches(t, pod, ns_labels) {
                    matched.push((t.topology_key, hard_weight));
                }
            }
        }
        for wt in a.preferred_affinity.iter() {
            if term_matches(&wt.term, pod, ns_labels) {
                matched.push((wt.term.topology_key, wt.weight as i64));
            }
        }
        for wt in a.preferred_anti_affinity.iter() {
            if term_matches(&wt.term, pod, ns_labels) {
                matched.push((wt.term.topology_key, -(wt.weight as i64)));
            }
        }
        if matched.is_empty() {
            continue;
        }
        for (&n, &pods) in &group.nodes {
            let node = cluster.node(n);
            if node.labels.is_empty() {
                continue;
            }
            for &(key, weight) in &matched {
                add(&mut scores, node, key, weight * i64::from(pods));
            }
        }
    }
    if scores.is_empty() {
        return None;
    }
    let by_key = scores
        .into_iter()
        .map(|(key, values)| match lookups {
            Some(lookups) => {
                let column = lookups.column(cluster, key);
                let mut by_domain = vec![0i64; column.domains() as usize];
                for (value, score) in values {
                    // Every weight was added through a value of one of the
                    // column's nodes (the memo's nodes are the cluster's).
                    let domain = column.domain_of_value.get(&value);
                    debug_assert!(domain.is_some(), "a value no node has");
                    if let Some(&domain) = domain {
                        by_domain[domain as usize] = score;
                    }
                }
                KeyScores::ByDomain(column, by_domain.into_boxed_slice())
            }
            None => KeyScores::ByValue(key, values),
        })
        .collect();
    Some(PreScoreState { by_key })
}

impl PreScoreState {
    /// The raw score of node `id`: the weights of its value of each key
    /// (none for a key it lacks).
    #[inline]
    pub fn score(&self, id: NodeId, node: &Node) -> i64 {
        self.by_key
            .iter()
            .map(|scores| match scores {
                KeyScores::ByValue(key, values) => node
                    .labels
                    .get(*key)
                    .and_then(|v| values.get(&v))
                    .copied()
                    .unwrap_or(0),
                KeyScores::ByDomain(column, by_domain) => {
                    let n = id as usize;
                    if column.values[n].is_some() {
                        by_domain[column.domain[n] as usize]
                    } else {
                        0
                    }
                }
            })
            .sum()
    }

    /// NormalizeScore's minimum and maximum of the raw scores.
    pub fn normalizer(&self, range: crate::engine::plugins::RawRange) -> Normalizer {
        Normalizer {
            min: range.min().unwrap_or(i64::MAX),
            max: range.max().unwrap_or(i64::MIN),
        }
    }
}

/// Min–max scaling; all equal gives 0.
#[derive(Clone, Copy, Debug)]
pub struct Normalizer {
    min: i64,
    max: i64,
}

impl Normalizer {
    pub fn apply(&self, score: i64) -> i64 {
        let diff = self.max - self.min;
        if diff > 0 {
            (super::super::MAX_NODE_SCORE as f64 * ((score - self.min) as f64 / diff as f64)) as i64
        } else {
            0
        }
    }
}
