//! InterPodAffinity PreScore/Score/NormalizeScore (upstream `scoring.go`).

use std::sync::Arc;

use rustc_hash::FxHashMap;

use super::{for_each_term_match, resolve_incoming_term, term_matches};
use crate::engine::Version;
use crate::engine::node_memo::{KeyColumn, MAX_COLUMNS_PER_POD, SpreadLookups};
use crate::engine::profile::InterPodAffinityArgs;
use crate::model::intern::Sym;
use crate::model::{Cluster, Node, NodeId, Pod};

/// Accumulated weight per topology key, by the domains the spreading
/// lookups number each key's values with, so that scoring a node reads two
/// arrays instead of looking up its label and the value (Score runs for
/// every feasible node of every placement); by value for the keys past the
/// first [`MAX_COLUMNS_PER_POD`].
pub struct PreScoreState {
    by_domain: Vec<(Arc<KeyColumn>, Box<[i64]>)>,
    by_value: Vec<(Sym, FxHashMap<Sym, i64>)>,
}

/// The weights PreScore adds up, per topology key: by domain, read from
/// each key's column (one dense read per matching pod, not a search of
/// its node's labels), or by value from the node's labels once a pod's
/// terms have named more keys than a placement reads through columns.
struct Weights<'l> {
    lookups: &'l SpreadLookups,
    by_domain: Vec<(Sym, Arc<KeyColumn>, Vec<i64>)>,
    /// Whether any weight was added through a node with the key.
    added: bool,
    by_value: FxHashMap<Sym, FxHashMap<Sym, i64>>,
}

impl Weights<'_> {
    /// `w` for node `n`'s value of `key`; nothing when it lacks the key.
    fn add(&mut self, cluster: &Cluster, n: NodeId, key: Sym, w: i64) {
        let at = match self.by_domain.iter().position(|(k, _, _)| *k == key) {
            Some(at) => at,
            None if self.by_domain.len() < MAX_COLUMNS_PER_POD => {
                let column = self.lookups.column(cluster, key);
                let domains = vec![0; column.domains() as usize];
                self.by_domain.push((key, column, domains));
                self.by_domain.len() - 1
            }
            None => {
                if let Some(v) = cluster.node(n).labels.get(key) {
                    *self.by_value.entry(key).or_default().entry(v).or_default() += w;
                }
                return;
            }
        };
        let (_, column, by_domain) = &mut self.by_domain[at];
        let n = n as usize;
        if column.values[n].is_some() {
            by_domain[column.domain[n] as usize] += w;
            self.added = true;
        }
    }

    /// The state Score reads; `None` when no weight was added (upstream's
    /// empty topology score map: Skip).
    fn into_state(self) -> Option<PreScoreState> {
        (self.added || !self.by_value.is_empty()).then(|| PreScoreState {
            by_domain: self
                .by_domain
                .into_iter()
                .map(|(_, column, by_domain)| (column, by_domain.into_boxed_slice()))
                .collect(),
            by_value: self.by_value.into_iter().collect(),
        })
    }
}

/// PreScore; `None` is Skip (no term matched anywhere).
pub fn pre_score(
    cluster: &Cluster,
    pod: &Pod,
    feasible: &[NodeId],
    args: &InterPodAffinityArgs,
    version: Version,
    lookups: &SpreadLookups,
) -> Option<PreScoreState> {
    if feasible.is_empty() {
        return None;
    }
    pre_score_of_cluster(cluster, pod, args, version, lookups)
}

/// PreScore's work, which reads the cluster and the pod but not which
/// nodes are feasible (only whether any is): it can run beside Filter.
pub fn pre_score_of_cluster(
    cluster: &Cluster,
    pod: &Pod,
    args: &InterPodAffinityArgs,
    version: Version,
    lookups: &SpreadLookups,
) -> Option<PreScoreState> {
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
    let mut weights = Weights {
        lookups,
        by_domain: Vec::new(),
        added: false,
        by_value: FxHashMap::default(),
    };
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
                    let n = e.node.expect("scheduled");
                    weights.add(cluster, n, term.topology_key, sign * wt.weight as i64);
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
            for &(key, weight) in &matched {
                weights.add(cluster, n, key, weight * i64::from(pods));
            }
        }
    }
    weights.into_state()
}

impl PreScoreState {
    /// The raw score of node `id`: the weights of its value of each key
    /// (none for a key it lacks).
    #[inline]
    pub fn score(&self, id: NodeId, node: &Node) -> i64 {
        let n = id as usize;
        let by_domain: i64 = self
            .by_domain
            .iter()
            .map(|(column, by_domain)| {
                if column.values[n].is_some() {
                    by_domain[column.domain[n] as usize]
                } else {
                    0
                }
            })
            .sum();
        let by_value: i64 = self
            .by_value
            .iter()
            .filter_map(|(key, values)| values.get(&node.labels.get(*key)?))
            .sum();
        by_domain + by_value
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
