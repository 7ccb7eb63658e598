//! Constraint preparation and pod counting shared by Filter and Score
//! (upstream `common.go` and `plugin.go`).

use crate::engine::node_memo::SpreadLookups;
use crate::engine::plugins::node_affinity::required_matches;
use crate::engine::plugins::taint_toleration::first_untolerated;
use crate::engine::profile::{DefaultConstraint, SpreadArgs, SpreadDefaulting};
use crate::model::intern::{Interner, Sym};
use crate::model::labels::{LabelSelector, Requirement};
use crate::model::pod::{InclusionPolicy, Pod, SpreadConstraint, WhenUnsatisfiable};
use crate::model::policy::{SelectorOwner, SelectorOwnerKind};
use crate::model::{Cluster, Node, NodeId};

/// A constraint ready for evaluation (`topologySpreadConstraint`).
#[derive(Clone, Debug)]
pub struct Constraint {
    pub max_skew: i32,
    pub topology_key: Sym,
    pub selector: LabelSelector,
    pub min_domains: i32,
    pub node_affinity_policy: InclusionPolicy,
    pub node_taints_policy: InclusionPolicy,
}

/// The system default constraints (`defaultingType: System`): hostname
/// maxSkew 3 and zone maxSkew 5, both ScheduleAnyway.
pub const LABEL_HOSTNAME: &str = "kubernetes.io/hostname";
pub const LABEL_ZONE: &str = "topology.kubernetes.io/zone";

/// The pod's own constraints for one `whenUnsatisfiable` action, with
/// `matchLabelKeys` already merged at conversion.
pub fn pod_constraints(pod: &Pod, action: WhenUnsatisfiable) -> Vec<Constraint> {
    pod.spread_constraints
        .iter()
        .filter(|c| c.when_unsatisfiable == action)
        .map(Constraint::from_spec)
        .collect()
}

impl Constraint {
    /// Defaults applied: `minDomains` 1 when unset.
    pub fn from_spec(c: &SpreadConstraint) -> Self {
        Constraint {
            max_skew: c.max_skew,
            topology_key: c.topology_key,
            selector: c.selector.clone(),
            min_domains: c.min_domains.unwrap_or(1),
            node_affinity_policy: c.node_affinity_policy,
            node_taints_policy: c.node_taints_policy,
        }
    }
}

/// `helper.DefaultSelector`: the selectors of the Services selecting the pod,
/// then its controller's (RC, ReplicaSet or StatefulSet) selector.
/// `in_namespace`: the indexes of `cluster.owners` in the pod's namespace,
/// in order, when a memo knows them (else every owner is looked at).
pub fn default_selector(
    cluster: &Cluster,
    pod: &Pod,
    in_namespace: Option<&[u32]>,
) -> LabelSelector {
    let owners = || -> Box<dyn Iterator<Item = &SelectorOwner> + '_> {
        match in_namespace {
            Some(ids) => Box::new(ids.iter().map(|&i| &cluster.owners[i as usize])),
            None => Box::new(cluster.owners.iter()),
        }
    };
    // Services: merged label sets, later services overriding earlier keys.
    let mut set: Vec<(Sym, Sym)> = Vec::new();
    let merge = |set: &mut Vec<(Sym, Sym)>, reqs: &[Requirement]| {
        for r in reqs {
            let pair = (r.key, r.values[0]);
            match set.iter_mut().find(|p| p.0 == pair.0) {
                Some(p) => p.1 = pair.1,
                None => set.push(pair),
            }
        }
    };
    for svc in owners().filter(|o| {
        o.kind == SelectorOwnerKind::Service && o.namespace == pod.namespace && o.has_selector
    }) {
        if svc.selector.matches(&pod.labels) {
            merge(&mut set, svc.selector.requirements());
        }
    }
    let mut extra: Vec<Requirement> = Vec::new();
    if let Some(owner) = &pod.controller {
        let kind = match (&*owner.api_version, &*owner.kind) {
            ("v1", "ReplicationController") => Some(SelectorOwnerKind::ReplicationController),
            ("apps/v1", "ReplicaSet") => Some(SelectorOwnerKind::ReplicaSet),
            ("apps/v1", "StatefulSet") => Some(SelectorOwnerKind::StatefulSet),
            _ => None,
        };
        let found = kind.and_then(|kind| {
            owners()
                .find(|o| o.kind == kind && o.namespace == pod.namespace && *o.name == *owner.name)
        });
        if let Some(o) = found {
            match o.kind {
                SelectorOwnerKind::ReplicationController => {
                    merge(&mut set, o.selector.requirements())
                }
                _ => {
                    if let LabelSelector::Requirements(r) = &o.selector {
                        extra.extend(r.iter().cloned());
                    }
                }
            }
        }
    }
    let mut reqs: Vec<Requirement> = set
        .into_iter()
        .map(|(k, v)| Requirement::equals(k, v))
        .collect();
    reqs.extend(extra);
    LabelSelector::Requirements(reqs.into_boxed_slice())
}

/// `getConstraints`: the pod's own constraints with this action, or, when
/// it has none, the profile's default constraints with this action
/// (`buildDefaultConstraints`); empty when nothing selects the pod.
pub fn constraints_for(
    cluster: &Cluster,
    pod: &Pod,
    args: &SpreadArgs,
    action: WhenUnsatisfiable,
) -> Vec<Constraint> {
    constraints_with(cluster, pod, args, action, None)
}

/// [`constraints_for`], finding the default constraints' owners through
/// the spreading lookups when given.
pub fn constraints_with(
    cluster: &Cluster,
    pod: &Pod,
    args: &SpreadArgs,
    action: WhenUnsatisfiable,
    lookups: Option<&SpreadLookups>,
) -> Vec<Constraint> {
    if !pod.spread_constraints.is_empty() {
        return pod_constraints(pod, action);
    }
    let system;
    let defaults: &[DefaultConstraint] = match &args.defaulting {
        SpreadDefaulting::System => {
            system =
                [(LABEL_HOSTNAME, 3), (LABEL_ZONE, 5)].map(|(key, max_skew)| DefaultConstraint {
                    max_skew,
                    topology_key: key.to_string(),
                    when_unsatisfiable: WhenUnsatisfiable::ScheduleAnyway,
                });
            &system
        }
        SpreadDefaulting::List(list) => list,
    };
    if !defaults.iter().any(|d| d.when_unsatisfiable == action) {
        return Vec::new();
    }
    let selector = default_selector(
        cluster,
        pod,
        lookups.map(|l| l.owners_in(cluster, pod.namespace)),
    );
    if selector.is_everything() {
        return Vec::new();
    }
    defaults
        .iter()
        .filter(|d| d.when_unsatisfiable == action)
        .map(|d| Constraint {
            max_skew: d.max_skew,
            // A key no object carries cannot be interned; the empty symbol
            // is never a label key, so no node has it, as with the key.
            topology_key: cluster
                .interner
                .lookup(&d.topology_key)
                .unwrap_or_else(|| cluster.empty_sym()),
            selector: selector.clone(),
            min_domains: 1,
            node_affinity_policy: InclusionPolicy::Honor,
            node_taints_policy: InclusionPolicy::Ignore,
        })
        .collect()
}

pub fn node_has_all_keys(node: &Node, constraints: &[Constraint]) -> bool {
    constraints
        .iter()
        .all(|c| node.labels.contains_key(c.topology_key))
}

/// `matchNodeInclusionPolicies`.
pub fn matches_inclusion_policies(
    c: &Constraint,
    pod: &Pod,
    node: &Node,
    interner: &Interner,
) -> bool {
    passes_inclusion_policies(
        pod,
        node,
        interner,
        c.node_affinity_policy == InclusionPolicy::Honor,
        c.node_taints_policy == InclusionPolicy::Honor,
    )
}

/// [`matches_inclusion_policies`] with the two policies given as honored
/// or not.
pub(crate) fn passes_inclusion_policies(
    pod: &Pod,
    node: &Node,
    interner: &Interner,
    affinity_honored: bool,
    taints_honored: bool,
) -> bool {
    if affinity_honored && !required_matches(pod, node, interner) {
        return false;
    }
    if taints_honored && first_untolerated(&pod.tolerations, node).is_some() {
        return false;
    }
    true
}

/// `countPodsMatchSelector` for every node at once: matching pods per node,
/// in the pod's namespace, not terminating. An empty selector counts nothing.
pub fn counts_per_node(cluster: &Cluster, selector: &LabelSelector, namespace: Sym) -> Vec<u32> {
    let mut counts = vec![0u32; cluster.nodes.len()];
    if selector.is_everything() {
        return counts;
    }
    cluster.for_each_scheduled_match_in(namespace, selector, |_, p| {
        if !p.is_terminating()
            && let Some(node) = p.node
        {
            counts[node as usize] += 1;
        }
    });
    counts
}

/// Matching pods per node for each constraint, counted once per distinct
/// selector: the system defaults (and most workloads' own hostname and
/// zone constraints) share theirs. A workload's pods sit on a few of
/// thousands of nodes, so each count also lists the nodes it is not zero
/// on, for passes that need only those.
pub struct SpreadCounts {
    /// Per distinct selector: matching pods per node, and the nodes with
    /// any (each once, in the order first counted).
    counts: Vec<(Vec<u32>, Vec<NodeId>)>,
    /// Per constraint, its selector's entry in `counts`.
    of: Vec<usize>,
}

impl SpreadCounts {
    /// Matching pods per node for the `ci`-th constraint.
    pub fn per_node(&self, ci: usize) -> &[u32] {
        &self.counts[self.of[ci]].0
    }

    /// The nodes with matching pods for the `ci`-th constraint.
    pub fn nodes_with_matches(&self, ci: usize) -> &[NodeId] {
        &self.counts[self.of[ci]].1
    }
}

/// [`SpreadCounts`] for the constraints of a pod in `namespace`.
pub fn counts_per_constraint(
    cluster: &Cluster,
    constraints: &[Constraint],
    namespace: Sym,
) -> SpreadCounts {
    let mut counts: Vec<(Vec<u32>, Vec<NodeId>)> = Vec::new();
    let mut of = Vec::with_capacity(constraints.len());
    for (i, c) in constraints.iter().enumerate() {
        if let Some(j) = constraints[..i]
            .iter()
            .position(|e| e.selector == c.selector)
        {
            of.push(of[j]);
            continue;
        }
        let mut per_node = vec![0u32; cluster.nodes.len()];
        let mut touched = Vec::new();
        if !c.selector.is_everything() {
            cluster.for_each_scheduled_match_in(namespace, &c.selector, |_, p| {
                if !p.is_terminating()
                    && let Some(node) = p.node
                {
                    let count = &mut per_node[node as usize];
                    if *count == 0 {
                        touched.push(node);
                    }
                    *count += 1;
                }
            });
        }
        of.push(counts.len());
        counts.push((per_node, touched));
    }
    SpreadCounts { counts, of }
}

pub type Pair = (Sym, Sym);
