//! The topology domains of a pod's spread constraints as PreFilter counts
//! them, for views that draw skew: which nodes are counted (every
//! constraint's key, then `nodeAffinityPolicy` and `nodeTaintsPolicy`),
//! the matching pods per domain, the minimum Filter measures against, and
//! the skew a domain would have with the pod in it. Nothing here is a second
//! computation: the counts are [`pre_filter_constraints`]'s and the skew is
//! Filter's formula.

use super::common::{
    Constraint, constraints_for, matches_inclusion_policies, node_has_all_keys, pod_constraints,
};
use super::filtering::{counted_pairs, critical_paths_of, min_match, pre_filter_constraints};
use crate::engine::node_memo::SpreadLookups;
use std::collections::hash_map::Entry;

use rustc_hash::FxHashMap;

use crate::engine::plugins::node_affinity::required_matches;
use crate::engine::profile::SpreadArgs;
use crate::model::intern::Sym;
use crate::model::pod::WhenUnsatisfiable;
use crate::model::{Cluster, NodeId, Pod};

/// Whether PreFilter counts a node for a constraint, and if not, why.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum NodeInclusion {
    Counted,
    /// The node lacks the key of this or another constraint of the pod.
    MissingKey,
    /// `nodeAffinityPolicy: Honor` and the pod's nodeSelector or required
    /// node affinity does not match the node.
    NodeAffinityPolicy,
    /// `nodeTaintsPolicy: Honor` and the node has a taint the pod does not
    /// tolerate.
    NodeTaintsPolicy,
}

impl NodeInclusion {
    pub fn as_str(self) -> &'static str {
        match self {
            NodeInclusion::Counted => "counted",
            NodeInclusion::MissingKey => "missing a constraint's topology key",
            NodeInclusion::NodeAffinityPolicy => {
                "left out by nodeAffinityPolicy: Honor (the pod's node selector or affinity does not match)"
            }
            NodeInclusion::NodeTaintsPolicy => {
                "left out by nodeTaintsPolicy: Honor (a taint the pod does not tolerate)"
            }
        }
    }
}

/// One topology domain PreFilter registered for a constraint's key.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Domain {
    pub value: Sym,
    /// Matching pods in the domain, as PreFilter counts them.
    pub matching: i64,
    /// The nodes of the domain counted for this constraint.
    pub nodes: Vec<NodeId>,
}

/// One constraint of a pod with its domains.
#[derive(Clone, Debug)]
pub struct ConstraintDomains {
    pub action: WhenUnsatisfiable,
    pub constraint: Constraint,
    /// The pod's own constraint (else the profile's default constraints).
    pub from_pod: bool,
    /// Domains in the order PreFilter met them.
    pub domains: Vec<Domain>,
    /// What Filter measures each domain against (`minMatchNum`); `None`
    /// when no counted node carries the key (Filter skips the constraint).
    pub min_match: Option<i64>,
    /// 1 when the pod matches the constraint's own selector.
    pub self_match: i64,
    /// Per node (by id): counted for this constraint, or why not.
    pub inclusion: Vec<NodeInclusion>,
}

impl ConstraintDomains {
    /// Filter's skew for the pod placed in `d`: matching pods there, plus
    /// the pod itself when it matches, minus the minimum.
    pub fn skew_if_placed(&self, d: &Domain) -> Option<i64> {
        self.min_match.map(|m| d.matching + self.self_match - m)
    }

    /// Whether PodTopologySpread's Filter lets the pod into `d`; a
    /// ScheduleAnyway constraint never filters.
    pub fn admits(&self, d: &Domain) -> bool {
        self.action == WhenUnsatisfiable::ScheduleAnyway
            || self
                .skew_if_placed(d)
                .is_none_or(|s| s <= self.constraint.max_skew as i64)
    }

    /// The skew now: the fullest domain minus the minimum.
    pub fn skew(&self) -> Option<i64> {
        let max = self.domains.iter().map(|d| d.matching).max()?;
        self.min_match.map(|m| max - m)
    }
}

/// Every spread constraint PodTopologySpread applies to `pod` under `args`:
/// the DoNotSchedule ones (Filter) first, then the ScheduleAnyway ones
/// (Score; counted here the way PreFilter counts, over all nodes).
pub fn spread_domains(cluster: &Cluster, pod: &Pod, args: &SpreadArgs) -> Vec<ConstraintDomains> {
    let mut out = Vec::new();
    for action in [
        WhenUnsatisfiable::DoNotSchedule,
        WhenUnsatisfiable::ScheduleAnyway,
    ] {
        out.extend(domains_of(
            cluster,
            pod,
            constraints_for(cluster, pod, args, action),
            action,
        ));
    }
    out
}

/// The pod's own constraints with `action` (no profile defaults).
pub fn own_spread_domains(
    cluster: &Cluster,
    pod: &Pod,
    action: WhenUnsatisfiable,
) -> Vec<ConstraintDomains> {
    domains_of(cluster, pod, pod_constraints(pod, action), action)
}

/// One constraint's skew as PreFilter counts it, and its fullest domain:
/// what a fleet-wide skew list needs, without [`ConstraintDomains`]'
/// per-node detail (which cost two thirds of the Skew view's fleet list).
#[derive(Clone, Debug)]
pub struct ConstraintSkew {
    pub constraint: Constraint,
    /// [`ConstraintDomains::skew`].
    pub skew: Option<i64>,
    /// The domain with the most matching pods, the last of those first met
    /// in node order on a tie (as [`ConstraintDomains`]' domains list them).
    pub fullest: Option<Sym>,
}

impl ConstraintSkew {
    /// Read off the per-node pass's domains.
    pub fn from_domains(c: &ConstraintDomains) -> ConstraintSkew {
        ConstraintSkew {
            constraint: c.constraint.clone(),
            skew: c.skew(),
            fullest: c.domains.iter().max_by_key(|d| d.matching).map(|d| d.value),
        }
    }
}

/// [`own_spread_domains`]' skew and fullest domain per constraint, from
/// PreFilter's counts alone. `lookups` keeps the nodes' topology values
/// for the next pod (a fleet of workloads on one cluster).
pub fn own_spread_skews(
    cluster: &Cluster,
    pod: &Pod,
    action: WhenUnsatisfiable,
    lookups: Option<&SpreadLookups>,
) -> Vec<ConstraintSkew> {
    let constraints = pod_constraints(pod, action);
    let shared_key = constraints.iter().enumerate().any(|(i, c)| {
        constraints[..i]
            .iter()
            .any(|d| d.topology_key == c.topology_key)
    });
    if shared_key {
        // Two constraints on one key share PreFilter's pairs but may count
        // different nodes (their inclusion policies): only the per-node
        // pass tells their domains apart.
        return domains_of(cluster, pod, constraints, action)
            .iter()
            .map(ConstraintSkew::from_domains)
            .collect();
    }
    if constraints.is_empty() {
        return Vec::new();
    }
    // PreFilter's pairs and critical paths, without its maps: with one
    // constraint per key, the pairs of a key are its domains, in the
    // order first met.
    let counted = counted_pairs(cluster, pod, &constraints, lookups);
    let paths = critical_paths_of(&constraints, &counted, cluster.empty_sym());
    constraints
        .into_iter()
        .map(|c| {
            let mut domains = 0;
            let mut fullest: Option<(Sym, i64)> = None;
            for &(pair, matching) in counted.iter().filter(|p| p.0.0 == c.topology_key) {
                domains += 1;
                if fullest.is_none_or(|(_, most)| matching >= most) {
                    fullest = Some((pair.1, matching));
                }
            }
            // No domain: Filter skips the constraint (no minimum).
            let min = paths
                .iter()
                .find(|p| p.0 == c.topology_key)
                .filter(|_| domains > 0)
                .map(|p| min_match(&c, domains, &p.1));
            ConstraintSkew {
                skew: fullest.and_then(|(_, most)| min.map(|m| most - m)),
                fullest: fullest.map(|(value, _)| value),
                constraint: c,
            }
        })
        .collect()
}

fn domains_of(
    cluster: &Cluster,
    pod: &Pod,
    constraints: Vec<Constraint>,
    action: WhenUnsatisfiable,
) -> Vec<ConstraintDomains> {
    if constraints.is_empty() {
        return Vec::new();
    }
    let from_pod = !pod.spread_constraints.is_empty();
    let pre = pre_filter_constraints(cluster, pod, constraints);
    let interner = &cluster.interner;
    pre.constraints
        .iter()
        .map(|c| {
            let inclusion: Vec<NodeInclusion> = cluster
                .nodes
                .iter()
                .map(|node| {
                    if !node_has_all_keys(node, &pre.constraints) {
                        NodeInclusion::MissingKey
                    } else if matches_inclusion_policies(c, pod, node, interner) {
                        NodeInclusion::Counted
                    } else if c.node_affinity_policy == crate::model::pod::InclusionPolicy::Honor
                        && !required_matches(pod, node, interner)
                    {
                        NodeInclusion::NodeAffinityPolicy
                    } else {
                        NodeInclusion::NodeTaintsPolicy
                    }
                })
                .collect();
            let mut domains: Vec<Domain> = Vec::new();
            // Each value's place in `domains`: a hostname key has a domain
            // per node, where a search of `domains` would be quadratic.
            let mut index: FxHashMap<Sym, usize> = FxHashMap::default();
            for (id, node) in cluster.nodes.iter().enumerate() {
                let Some(value) = node.labels.get(c.topology_key) else {
                    continue;
                };
                if inclusion[id] != NodeInclusion::Counted {
                    continue;
                }
                match index.entry(value) {
                    Entry::Occupied(at) => domains[*at.get()].nodes.push(id as NodeId),
                    Entry::Vacant(at) => {
                        at.insert(domains.len());
                        domains.push(Domain {
                            value,
                            matching: pre
                                .pair_counts()
                                .get(&(c.topology_key, value))
                                .copied()
                                .unwrap_or(0),
                            nodes: vec![id as NodeId],
                        });
                    }
                }
            }
            ConstraintDomains {
                action,
                constraint: c.clone(),
                from_pod,
                domains,
                min_match: pre.min_match(c),
                self_match: c.selector.matches(&pod.labels) as i64,
                inclusion,
            }
        })
        .collect()
}
