//! InterPodAffinity PreScore/Score/NormalizeScore (upstream `scoring.go`).

use rustc_hash::FxHashMap;

use super::{for_each_term_match, resolve_incoming_term, term_matches};
use crate::engine::Version;
use crate::engine::profile::InterPodAffinityArgs;
use crate::model::intern::Sym;
use crate::model::{Cluster, Node, NodeId, Pod};

/// Accumulated weight per topology key and value.
pub struct PreScoreState {
    topology_score: FxHashMap<Sym, FxHashMap<Sym, i64>>,
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
    Some(PreScoreState {
        topology_score: scores,
    })
}

impl PreScoreState {
    pub fn score(&self, node: &Node) -> i64 {
        self.topology_score
            .iter()
            .filter_map(|(k, values)| node.labels.get(*k).and_then(|v| values.get(&v)))
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
