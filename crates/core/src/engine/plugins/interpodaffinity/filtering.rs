//! InterPodAffinity PreFilter/Filter and AddPod/RemovePod (upstream `filtering.go`).

use rustc_hash::FxHashMap;

use super::{for_each_term_match, resolve_incoming_term, term_matches};
use crate::engine::Version;
use crate::engine::status::{FilterResult, Plugin, Rejection};
use crate::model::intern::Sym;
use crate::model::labels::Labels;
use crate::model::pod::AffinityTerm;
use crate::model::{Cluster, Node, Pod};

pub const REASON_AFFINITY: &str = "node(s) didn't match pod affinity rules";
pub const REASON_ANTI_AFFINITY: &str = "node(s) didn't match pod anti-affinity rules";
pub const REASON_EXISTING_ANTI_AFFINITY: &str =
    "node(s) didn't satisfy existing pods anti-affinity rules";

type Pair = (Sym, Sym);
type Counts = FxHashMap<Pair, i64>;

/// Which of the three count maps.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Map {
    ExistingAnti = 0,
    Affinity = 1,
    Anti = 2,
}

#[derive(Debug)]
pub struct PreFilterState {
    pub required_affinity: Vec<AffinityTerm>,
    pub required_anti_affinity: Vec<AffinityTerm>,
    pub namespace_labels: Option<Labels>,
    maps: [Counts; 3],
    /// The distinct topology keys of the existing pods' anti-affinity
    /// counts: Filter looks up only these in a node's labels instead of
    /// every label of the node in the counts (a node has a dozen labels;
    /// the terms use one or two keys).
    existing_anti_keys: Vec<Sym>,
    /// The incoming pod matches all of its own required affinity terms.
    pub matches_own_affinity: bool,
}

/// PreFilter's maps plus one node's AddPod/RemovePod changes.
#[derive(Clone, Debug)]
pub struct State<'a> {
    pub pre: &'a PreFilterState,
    deltas: [Vec<(Pair, i64)>; 3],
}

fn bump(counts: &mut Counts, node: &Node, key: Sym, by: i64) {
    if let Some(v) = node.labels.get(key) {
        let e = counts.entry((key, v)).or_default();
        *e += by;
        if *e == 0 {
            counts.remove(&(key, v));
        }
    }
}

fn matches_all(terms: &[AffinityTerm], pod: &Pod) -> bool {
    !terms.is_empty() && terms.iter().all(|t| term_matches(t, pod, None))
}

/// PreFilter: `None` is Skip (nothing to check).
pub fn pre_filter(cluster: &Cluster, pod: &Pod, version: Version) -> Option<PreFilterState> {
    let (req_aff, req_anti) = match &pod.pod_affinity {
        Some(a) => (
            a.required_affinity
                .iter()
                .map(|t| resolve_incoming_term(cluster, t, version))
                .collect::<Vec<_>>(),
            a.required_anti_affinity
                .iter()
                .map(|t| resolve_incoming_term(cluster, t, version))
                .collect::<Vec<_>>(),
        ),
        None => (Vec::new(), Vec::new()),
    };
    let namespace_labels = cluster.namespace_labels(pod.namespace).cloned();

    // Every existing pod's required anti-affinity terms; pods with the same
    // terms are matched once, and count once per pod on their node.
    let mut existing_anti = Counts::default();
    for group in cluster.affinity_groups().iter() {
        for t in group.terms.required_anti_affinity.iter() {
            if term_matches(t, pod, namespace_labels.as_ref()) {
                for (&n, &pods) in &group.nodes {
                    bump(
                        &mut existing_anti,
                        cluster.node(n),
                        t.topology_key,
                        pods.into(),
                    );
                }
            }
        }
    }

    let mut affinity = Counts::default();
    if let Some(first) = req_aff.first() {
        for_each_term_match(cluster, first, |e| {
            if matches_all(&req_aff, e) {
                let node = cluster.node(e.node.expect("scheduled"));
                for t in &req_aff {
                    bump(&mut affinity, node, t.topology_key, 1);
                }
            }
        });
    }
    let mut anti = Counts::default();
    for t in &req_anti {
        for_each_term_match(cluster, t, |e| {
            bump(
                &mut anti,
                cluster.node(e.node.expect("scheduled")),
                t.topology_key,
                1,
            );
        });
    }

    if existing_anti.is_empty() && req_aff.is_empty() && req_anti.is_empty() {
        return None;
    }
    let mut existing_anti_keys: Vec<Sym> = Vec::new();
    for &(key, _) in existing_anti.keys() {
        if !existing_anti_keys.contains(&key) {
            existing_anti_keys.push(key);
        }
    }
    Some(PreFilterState {
        existing_anti_keys,
        matches_own_affinity: matches_all(&req_aff, pod),
        required_affinity: req_aff,
        required_anti_affinity: req_anti,
        namespace_labels,
        maps: [existing_anti, affinity, anti],
    })
}

impl<'a> State<'a> {
    pub fn new(pre: &'a PreFilterState) -> Self {
        State {
            pre,
            deltas: Default::default(),
        }
    }

    fn count(&self, map: Map, pair: Pair) -> i64 {
        let base = self.pre.maps[map as usize].get(&pair).copied().unwrap_or(0);
        base + self.deltas[map as usize]
            .iter()
            .find(|d| d.0 == pair)
            .map(|d| d.1)
            .unwrap_or(0)
    }

    /// Pairs with a non-zero count (upstream deletes entries that reach zero).
    fn is_empty(&self, map: Map) -> bool {
        let base = &self.pre.maps[map as usize];
        let deltas = &self.deltas[map as usize];
        let zeroed = deltas
            .iter()
            .filter(|d| d.1 != 0 && base.get(&d.0).copied().unwrap_or(0) + d.1 == 0)
            .count();
        let added = deltas
            .iter()
            .filter(|d| d.1 != 0 && !base.contains_key(&d.0))
            .count();
        base.len() + added - zeroed == 0
    }

    fn apply(&mut self, map: Map, node: &Node, key: Sym, by: i64) {
        if let Some(v) = node.labels.get(key) {
            let deltas = &mut self.deltas[map as usize];
            match deltas.iter_mut().find(|d| d.0 == (key, v)) {
                Some(d) => d.1 += by,
                None => deltas.push(((key, v), by)),
            }
        }
    }

    /// Whether [`State::update_with_pod`] can change anything for a pod
    /// with this brief: only its required anti-affinity terms, or the
    /// incoming pod's required terms, count it.
    pub fn may_change_with(&self, brief: &crate::model::cluster::PodBrief) -> bool {
        brief.has_required_anti_affinity()
            || !self.pre.required_affinity.is_empty()
            || !self.pre.required_anti_affinity.is_empty()
    }

    /// `updateWithPod` for a pod added to or removed from `node`.
    pub fn update_with_pod(&mut self, incoming: &Pod, changed: &Pod, node: &Node, by: i64) {
        let pre = self.pre;
        for t in changed
            .pod_affinity
            .iter()
            .flat_map(|a| a.required_anti_affinity.iter())
        {
            if term_matches(t, incoming, pre.namespace_labels.as_ref()) {
                self.apply(Map::ExistingAnti, node, t.topology_key, by);
            }
        }
        if matches_all(&pre.required_affinity, changed) {
            for t in &pre.required_affinity {
                self.apply(Map::Affinity, node, t.topology_key, by);
            }
        }
        for t in &pre.required_anti_affinity {
            if term_matches(t, changed, None) {
                self.apply(Map::Anti, node, t.topology_key, by);
            }
        }
    }

    pub fn filter(&self, node: &Node) -> FilterResult {
        let pre = self.pre;
        // 1. The incoming pod's required affinity.
        let mut pods_exist = true;
        for t in &pre.required_affinity {
            match node.labels.get(t.topology_key) {
                Some(v) => {
                    if self.count(Map::Affinity, (t.topology_key, v)) <= 0 {
                        pods_exist = false;
                    }
                }
                None => {
                    return Err(Rejection::unresolvable(
                        Plugin::InterPodAffinity,
                        REASON_AFFINITY,
                    ));
                }
            }
        }
        // The "first pod of a group" exception: no pod anywhere matches all
        // terms, and the incoming pod matches its own terms.
        let first_of_group = self.is_empty(Map::Affinity) && pre.matches_own_affinity;
        if !pods_exist && !first_of_group {
            return Err(Rejection::unresolvable(
                Plugin::InterPodAffinity,
                REASON_AFFINITY,
            ));
        }
        // 2. The incoming pod's required anti-affinity.
        for t in &pre.required_anti_affinity {
            if let Some(v) = node.labels.get(t.topology_key)
                && self.count(Map::Anti, (t.topology_key, v)) > 0
            {
                return Err(Rejection::unschedulable(
                    Plugin::InterPodAffinity,
                    REASON_ANTI_AFFINITY,
                ));
            }
        }
        // 3. Existing pods' required anti-affinity against the incoming pod.
        // (Upstream walks the node's labels; a pair with a positive count
        // has one of the counts' keys, so asking the node for those keys
        // finds the same pairs.)
        if !self.is_empty(Map::ExistingAnti) {
            let added = self.deltas[Map::ExistingAnti as usize].iter();
            let keys = pre.existing_anti_keys.iter().copied();
            for k in keys.chain(added.map(|&((k, _), _)| k)) {
                if let Some(v) = node.labels.get(k)
                    && self.count(Map::ExistingAnti, (k, v)) > 0
                {
                    return Err(Rejection::unschedulable(
                        Plugin::InterPodAffinity,
                        REASON_EXISTING_ANTI_AFFINITY,
                    ));
                }
            }
        }
        Ok(())
    }
}
