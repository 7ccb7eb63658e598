//! PodTopologySpread PreFilter/Filter and the AddPod/RemovePod extensions
//! (upstream `filtering.go`, v1.30 shape: counts keyed by topology pair,
//! critical paths and domain counts keyed by topology key).

use rustc_hash::FxHashMap;

use super::common::{
    Constraint, Pair, constraints_with, counts_per_constraint, matches_inclusion_policies,
    node_has_all_keys,
};
use std::sync::{Arc, OnceLock};

use crate::engine::node_memo::{KeyColumn, SpreadLookups};
use crate::engine::profile::SpreadArgs;
use crate::engine::status::{FilterResult, Plugin, Rejection};
use crate::model::intern::Sym;
use crate::model::pod::WhenUnsatisfiable;
use crate::model::{Cluster, Node, NodeId, Pod};

pub const REASON_SKEW: &str = "node(s) didn't match pod topology spread constraints";
pub const REASON_MISSING_LABEL: &str =
    "node(s) didn't match pod topology spread constraints (missing required label)";

/// Two "critical paths": slot 0 always holds the minimum; slot 1 is at least
/// slot 0 but not always the second minimum. `None` as a value is the empty
/// string, which upstream's fresh slots also hold.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct CriticalPaths([(Option<Sym>, i64); 2]);

impl CriticalPaths {
    fn new() -> Self {
        CriticalPaths([(None, i32::MAX as i64), (None, i32::MAX as i64)])
    }

    /// `criticalPaths.update`, replicated exactly (it is approximate by design).
    fn update(&mut self, value: Option<Sym>, num: i64) {
        let p = &mut self.0;
        let i = if value == p[0].0 {
            Some(0)
        } else if value == p[1].0 {
            Some(1)
        } else {
            None
        };
        match i {
            Some(i) => {
                p[i].1 = num;
                if p[0].1 > p[1].1 {
                    p.swap(0, 1);
                }
            }
            None => {
                if num < p[0].1 {
                    p[1] = p[0];
                    p[0] = (value, num);
                } else if num < p[1].1 {
                    p[1] = (value, num);
                }
            }
        }
    }

    pub fn min(&self) -> i64 {
        self.0[0].1
    }
}

/// What PreFilter computes; shared, never changed after.
#[derive(Debug)]
pub struct PreFilterState {
    pub constraints: Vec<Constraint>,
    /// Matching pods per (topologyKey, value) over eligible nodes, each
    /// pair in the order a pass over the nodes first met it (the order the
    /// critical paths were updated in).
    counted: Vec<(Pair, i64)>,
    /// `counted` by pair, made on first use: Filter judging by numbered
    /// domain never reads it, and a hostname constraint has a pair per
    /// node, 5,000 hashed on a large cluster.
    by_pair: OnceLock<FxHashMap<Pair, i64>>,
    /// Distinct domains per topology key.
    pub domains: FxHashMap<Sym, usize>,
    pub critical_paths: Vec<(Sym, CriticalPaths)>,
    empty: Sym,
    /// When the pairs were counted by numbered domain (the spreading lookups,
    /// one constraint per key): each constraint's verdict by domain, so
    /// Filter judges a node by its domain number instead of searching its
    /// labels and hashing its pair. A disruption filters every node of
    /// every placement through it.
    by_domain: Option<Box<[DomainLimit]>>,
}

/// One constraint of a PreFilter counted by numbered domain.
#[derive(Debug)]
struct DomainLimit {
    /// The constraint's key over every node.
    column: Arc<KeyColumn>,
    /// Matching pods per domain (0 for a domain no eligible node is in),
    /// as `pair_counts` holds them.
    counts: Box<[i64]>,
    /// The most matching pods a domain may hold for the pod to pass:
    /// `maxSkew + minMatchNum - selfMatch`. `None`: Filter skips the
    /// constraint once the node has its key (no eligible node has it).
    limit: Option<i64>,
}

/// The per-evaluation view: PreFilter's state plus the changes AddPod and
/// RemovePod made for one node (preemption, nominated pods). Cheap to clone.
#[derive(Clone, Debug)]
pub struct State<'a> {
    pub pre: &'a PreFilterState,
    deltas: Vec<(Pair, i64)>,
    paths: Vec<(Sym, CriticalPaths)>,
}

impl PreFilterState {
    /// Whether Filter can judge a node by its numbered domains (the pairs
    /// were counted from the spreading lookups, one constraint per key).
    pub fn judges_by_domain(&self) -> bool {
        self.by_domain.is_some()
    }

    /// Matching pods per (topologyKey, value) over eligible nodes.
    pub fn pair_counts(&self) -> &FxHashMap<Pair, i64> {
        self.by_pair
            .get_or_init(|| self.counted.iter().copied().collect())
    }

    /// The pairs in the order a pass over the nodes first met them.
    pub fn met(&self) -> impl Iterator<Item = Pair> + '_ {
        self.counted.iter().map(|&(pair, _)| pair)
    }

    fn value_slot(&self, v: Sym) -> Option<Sym> {
        if v == self.empty { None } else { Some(v) }
    }
}

impl<'a> State<'a> {
    pub fn new(pre: &'a PreFilterState) -> Self {
        State {
            pre,
            deltas: Vec::new(),
            paths: pre.critical_paths.clone(),
        }
    }

    pub fn pair_count(&self, pair: Pair) -> i64 {
        let base = self.pre.pair_counts().get(&pair).copied().unwrap_or(0);
        base + self
            .deltas
            .iter()
            .find(|d| d.0 == pair)
            .map(|d| d.1)
            .unwrap_or(0)
    }

    fn paths(&self, key: Sym) -> Option<&CriticalPaths> {
        self.paths.iter().find(|p| p.0 == key).map(|p| &p.1)
    }

    /// `updateWithPod`: ±1 for each constraint the pod matches, when the
    /// pod shares the incoming pod's namespace and the node is eligible.
    pub fn update_with_pod(
        &mut self,
        cluster: &Cluster,
        incoming: &Pod,
        changed: &Pod,
        node: &Node,
        delta: i64,
    ) {
        let pre = self.pre;
        if changed.namespace != incoming.namespace || !node_has_all_keys(node, &pre.constraints) {
            return;
        }
        for c in &pre.constraints {
            if !c.selector.matches(&changed.labels)
                || !matches_inclusion_policies(c, incoming, node, &cluster.interner)
            {
                continue;
            }
            let v = node.labels.get(c.topology_key).unwrap_or(pre.empty);
            let pair = (c.topology_key, v);
            match self.deltas.iter_mut().find(|d| d.0 == pair) {
                Some(d) => d.1 += delta,
                None => self.deltas.push((pair, delta)),
            }
            let count = self.pair_count(pair);
            let slot = pre.value_slot(v);
            if let Some(p) = self.paths.iter_mut().find(|p| p.0 == c.topology_key) {
                p.1.update(slot, count);
            }
        }
    }

    pub fn filter(&self, pod: &Pod, node: &Node) -> FilterResult {
        self.filter_node(pod, node, None)
    }

    /// [`State::filter`], given the node's id when the caller knows it: a
    /// state counted by numbered domain and not changed by AddPod or
    /// RemovePod then judges the node by its domains, with the same
    /// verdict and the same first failing constraint.
    #[inline]
    pub fn filter_node(&self, pod: &Pod, node: &Node, id: Option<NodeId>) -> FilterResult {
        if let (Some(id), Some(limits)) = (id, &self.pre.by_domain)
            && self.deltas.is_empty()
        {
            return filter_by_domain(limits, id as usize);
        }
        self.filter_by_labels(pod, node)
    }

    fn filter_by_labels(&self, pod: &Pod, node: &Node) -> FilterResult {
        for c in &self.pre.constraints {
            let Some(value) = node.labels.get(c.topology_key) else {
                return Err(Rejection::unresolvable(
                    Plugin::PodTopologySpread,
                    REASON_MISSING_LABEL,
                ));
            };
            // Upstream errors out of minMatchNum (and skips the constraint)
            // when no eligible node carries the key.
            let Some(&domains) = self.pre.domains.get(&c.topology_key) else {
                continue;
            };
            let Some(paths) = self.paths(c.topology_key) else {
                continue;
            };
            let min_match = min_match(c, domains, paths);
            let self_match = c.selector.matches(&pod.labels) as i64;
            let skew = self.pair_count((c.topology_key, value)) + self_match - min_match;
            if skew > c.max_skew as i64 {
                return Err(Rejection::unschedulable(
                    Plugin::PodTopologySpread,
                    REASON_SKEW,
                ));
            }
        }
        Ok(())
    }
}

/// Filter from each constraint's counts by domain (see [`DomainLimit`]).
fn filter_by_domain(limits: &[DomainLimit], n: usize) -> FilterResult {
    for l in limits {
        if l.column.values[n].is_none() {
            return Err(Rejection::unresolvable(
                Plugin::PodTopologySpread,
                REASON_MISSING_LABEL,
            ));
        }
        if let Some(limit) = l.limit
            && l.counts[l.column.domain[n] as usize] > limit
        {
            return Err(Rejection::unschedulable(
                Plugin::PodTopologySpread,
                REASON_SKEW,
            ));
        }
    }
    Ok(())
}

/// The global minimum Filter measures a domain against (`minMatchNum`):
/// 0 while fewer domains than `minDomains` exist, else the critical path's.
pub fn min_match(c: &Constraint, domains: usize, paths: &CriticalPaths) -> i64 {
    if (domains as i64) < c.min_domains as i64 {
        0
    } else {
        paths.min()
    }
}

impl PreFilterState {
    /// What Filter measures a domain of `c` against, before any AddPod or
    /// RemovePod: `None` when no eligible node carries the key (Filter
    /// then skips the constraint).
    pub fn min_match(&self, c: &Constraint) -> Option<i64> {
        let domains = *self.domains.get(&c.topology_key)?;
        let paths = self
            .critical_paths
            .iter()
            .find(|p| p.0 == c.topology_key)
            .map(|p| &p.1)?;
        Some(min_match(c, domains, paths))
    }
}

/// PreFilter: `None` means Skip (no DoNotSchedule constraints).
pub fn pre_filter(cluster: &Cluster, pod: &Pod, args: &SpreadArgs) -> Option<PreFilterState> {
    pre_filter_with(cluster, pod, args, None)
}

/// [`pre_filter`], reading the nodes' topology values from a memo's
/// columns when there is one (the same values, without a label search
/// per node and constraint).
pub fn pre_filter_with(
    cluster: &Cluster,
    pod: &Pod,
    args: &SpreadArgs,
    lookups: Option<&SpreadLookups>,
) -> Option<PreFilterState> {
    let constraints = constraints_with(
        cluster,
        pod,
        args,
        WhenUnsatisfiable::DoNotSchedule,
        lookups,
    );
    if constraints.is_empty() {
        return None;
    }
    Some(pre_filter_constraints_with(
        cluster,
        pod,
        constraints,
        lookups,
    ))
}

/// PreFilter's counting for a given list of constraints: matching pods per
/// (topologyKey, value) over the nodes that carry every constraint's key
/// and pass its node inclusion policies, and the critical paths. PreFilter
/// runs it on the DoNotSchedule constraints; views run it on any.
pub fn pre_filter_constraints(
    cluster: &Cluster,
    pod: &Pod,
    constraints: Vec<Constraint>,
) -> PreFilterState {
    pre_filter_constraints_with(cluster, pod, constraints, None)
}

/// [`pre_filter_constraints`], with the nodes' topology values from the
/// spreading lookups' columns when given.
pub(crate) fn pre_filter_constraints_with(
    cluster: &Cluster,
    pod: &Pod,
    constraints: Vec<Constraint>,
    lookups: Option<&SpreadLookups>,
) -> PreFilterState {
    let empty = cluster.empty_sym();
    let (counted, per_domain) = match lookups {
        Some(lookups) if distinct_keys(&constraints) => {
            let (met, per_domain) = counted_by_domain(cluster, pod, &constraints, lookups);
            (met, Some(per_domain))
        }
        _ => (counted_by_pair(cluster, pod, &constraints, lookups), None),
    };
    // Domains per key, counted without hashing each pair (a hostname
    // constraint has one per node): a pod names a few keys, found by a
    // short search.
    let mut per_key: Vec<(Sym, usize)> = Vec::new();
    for &((key, _), _) in &counted {
        match per_key.iter_mut().find(|(k, _)| *k == key) {
            Some((_, n)) => *n += 1,
            None => per_key.push((key, 1)),
        }
    }
    let domains: FxHashMap<Sym, usize> = per_key.into_iter().collect();
    let critical_paths = critical_paths_of(&constraints, &counted, empty);
    let by_domain = per_domain.map(|per_domain| {
        constraints
            .iter()
            .zip(per_domain)
            .map(|(c, (column, counts))| {
                let paths = critical_paths
                    .iter()
                    .find(|p| p.0 == c.topology_key)
                    .map(|p| &p.1);
                let limit = match (domains.get(&c.topology_key), paths) {
                    (Some(&n), Some(paths)) => Some(
                        c.max_skew as i64 + min_match(c, n, paths)
                            - c.selector.matches(&pod.labels) as i64,
                    ),
                    _ => None,
                };
                DomainLimit {
                    column,
                    counts,
                    limit,
                }
            })
            .collect()
    });
    PreFilterState {
        constraints,
        counted,
        by_pair: OnceLock::new(),
        domains,
        critical_paths,
        empty,
        by_domain,
    }
}

/// Each topology key's critical paths, updated with its pairs in the order
/// they were met (upstream updates them in its pass over the nodes).
pub(crate) fn critical_paths_of(
    constraints: &[Constraint],
    counted: &[(Pair, i64)],
    empty: Sym,
) -> Vec<(Sym, CriticalPaths)> {
    let mut critical_paths: Vec<(Sym, CriticalPaths)> = Vec::new();
    for c in constraints {
        if !critical_paths.iter().any(|p| p.0 == c.topology_key) {
            critical_paths.push((c.topology_key, CriticalPaths::new()));
        }
    }
    for &(pair, count) in counted {
        let slot = if pair.1 == empty { None } else { Some(pair.1) };
        if let Some(p) = critical_paths.iter_mut().find(|p| p.0 == pair.0) {
            p.1.update(slot, count);
        }
    }
    critical_paths
}

/// PreFilter's count of matching pods per (topologyKey, value) over the
/// nodes that carry every constraint's key and pass its node inclusion
/// policies, each pair once, in the order a pass over the nodes first
/// meets them (the critical paths depend on it).
pub(crate) fn counted_pairs(
    cluster: &Cluster,
    pod: &Pod,
    constraints: &[Constraint],
    lookups: Option<&SpreadLookups>,
) -> Vec<(Pair, i64)> {
    match lookups {
        Some(lookups) if distinct_keys(constraints) => {
            counted_by_domain(cluster, pod, constraints, lookups).0
        }
        _ => counted_by_pair(cluster, pod, constraints, lookups),
    }
}

/// Whether no two constraints share a topology key (counting by numbered
/// domain needs it: a node's pairs are then distinct).
fn distinct_keys(constraints: &[Constraint]) -> bool {
    constraints.iter().enumerate().all(|(i, c)| {
        constraints[..i]
            .iter()
            .all(|d| d.topology_key != c.topology_key)
    })
}

/// Per constraint: its key's column and the matching pods per domain.
type PerDomain = Vec<(Arc<KeyColumn>, Box<[i64]>)>;

/// [`counted_pairs`] from a memo's numbered domains and inclusion masks:
/// with one constraint per key, a node's pairs are distinct, and each
/// constraint's pairs are its key's domains, counted in an array. Also
/// gives each constraint's counts by domain.
fn counted_by_domain(
    cluster: &Cluster,
    pod: &Pod,
    constraints: &[Constraint],
    lookups: &SpreadLookups,
) -> (Vec<(Pair, i64)>, PerDomain) {
    use crate::model::pod::InclusionPolicy::Honor;
    let empty = cluster.empty_sym();
    let columns: Vec<_> = constraints
        .iter()
        .map(|c| lookups.column(cluster, c.topology_key))
        .collect();
    let masks: Vec<_> = constraints
        .iter()
        .map(|c| {
            lookups.inclusion(
                cluster,
                pod,
                c.node_affinity_policy == Honor,
                c.node_taints_policy == Honor,
            )
        })
        .collect();
    let per_constraint = counts_per_constraint(cluster, constraints, pod.namespace);
    let counts: Vec<&[u32]> = (0..constraints.len())
        .map(|i| per_constraint.per_node(i))
        .collect();
    // Each range of nodes (on both cores) gives the domains it meets, each
    // once, in the order it first meets them, with its matching pods:
    // (constraint, the node it was first met on, count).
    let parts = kplace_split::in_parts(cluster.nodes.len(), |range| {
        let mut at = unmet_domains(&columns);
        let mut met: Vec<(usize, usize, i64)> = Vec::new();
        for n in range {
            if !columns.iter().all(|col| col.values[n].is_some()) {
                continue;
            }
            for (i, col) in columns.iter().enumerate() {
                if masks[i].as_ref().is_some_and(|included| !included[n]) {
                    continue;
                }
                let slot = &mut at[i][col.domain[n] as usize];
                if *slot == UNMET {
                    *slot = met.len() as u32;
                    met.push((i, n, 0));
                }
                met[*slot as usize].2 += counts[i][n] as i64;
            }
        }
        (at, met)
    });
    // Joined in range order: a domain is first met in the first range that
    // meets it, so the pairs come in the order one pass over every node
    // meets them.
    let mut met: Vec<(Pair, i64)> = Vec::new();
    let pair = |i: usize, n: usize| -> Pair {
        let c: &Constraint = &constraints[i];
        (c.topology_key, columns[i].values[n].unwrap_or(empty))
    };
    let at = if parts.len() == 1 {
        let (at, part) = parts.into_iter().next().expect("one part");
        met.extend(part.into_iter().map(|(i, n, count)| (pair(i, n), count)));
        at
    } else {
        let mut at = unmet_domains(&columns);
        for (_, part) in parts {
            for (i, n, count) in part {
                let slot = &mut at[i][columns[i].domain[n] as usize];
                if *slot == UNMET {
                    *slot = met.len() as u32;
                    met.push((pair(i, n), 0));
                }
                met[*slot as usize].1 += count;
            }
        }
        at
    };
    let per_domain = columns
        .into_iter()
        .zip(&at)
        .map(|(column, at)| {
            let counts = at
                .iter()
                .map(|&slot| {
                    if slot == UNMET {
                        0
                    } else {
                        met[slot as usize].1
                    }
                })
                .collect();
            (column, counts)
        })
        .collect();
    (met, per_domain)
}

/// A domain not met yet, in [`unmet_domains`]' slots.
const UNMET: u32 = u32::MAX;

/// Per constraint and domain of its key: the domain's place in the list
/// of met pairs, once met.
fn unmet_domains(columns: &[Arc<KeyColumn>]) -> Vec<Vec<u32>> {
    columns
        .iter()
        .map(|col| vec![UNMET; col.domains() as usize])
        .collect()
}

/// [`counted_pairs`] by hashing each node's pairs: for constraints that
/// share a key (a later one's count overwrites an earlier one's on a
/// node) or without a memo.
fn counted_by_pair(
    cluster: &Cluster,
    pod: &Pod,
    constraints: &[Constraint],
    lookups: Option<&SpreadLookups>,
) -> Vec<(Pair, i64)> {
    let empty = cluster.empty_sym();
    // Each constraint's key over every node, when a memo keeps them.
    let columns: Option<Vec<_>> = lookups.map(|l| {
        constraints
            .iter()
            .map(|c| l.column(cluster, c.topology_key))
            .collect()
    });
    let has_all_keys = |n: usize, node: &Node| match &columns {
        Some(columns) => columns.iter().all(|col| col.values[n].is_some()),
        None => node_has_all_keys(node, constraints),
    };
    let value_of = |n: usize, node: &Node, i: usize, c: &Constraint| match &columns {
        Some(columns) => columns[i].values[n],
        None => node.labels.get(c.topology_key),
    };
    let per_constraint = counts_per_constraint(cluster, constraints, pod.namespace);
    // Each range of nodes (on both cores) gives its pairs in the order
    // first met, with their counts; joined in range order, the pairs keep
    // the order a single pass over the nodes meets them in.
    // A hostname constraint meets a pair per node: the maps get room for
    // them at once instead of growing (and rehashing) as they are met.
    let hostname = cluster.interner.lookup(super::common::LABEL_HOSTNAME);
    let per_node_pairs = constraints.iter().any(|c| Some(c.topology_key) == hostname);
    let parts = kplace_split::in_parts(cluster.nodes.len(), |range| {
        let room = if per_node_pairs { range.len() } else { 0 };
        let mut index: FxHashMap<Pair, usize> =
            FxHashMap::with_capacity_and_hasher(room, Default::default());
        let mut met: Vec<(Pair, i64)> = Vec::with_capacity(room);
        let mut node_pairs: Vec<(Pair, i64)> = Vec::with_capacity(constraints.len());
        for n in range {
            let node = &cluster.nodes[n];
            if !has_all_keys(n, node) {
                continue;
            }
            // Per node, a later constraint with the same key overwrites the count.
            node_pairs.clear();
            for (i, c) in constraints.iter().enumerate() {
                if !matches_inclusion_policies(c, pod, node, &cluster.interner) {
                    continue;
                }
                let pair = (c.topology_key, value_of(n, node, i, c).unwrap_or(empty));
                let count = per_constraint.per_node(i)[n] as i64;
                match node_pairs.iter_mut().find(|p| p.0 == pair) {
                    Some(p) => p.1 = count,
                    None => node_pairs.push((pair, count)),
                }
            }
            for &(pair, count) in &node_pairs {
                let at = *index.entry(pair).or_insert_with(|| {
                    met.push((pair, 0));
                    met.len() - 1
                });
                met[at].1 += count;
            }
        }
        met
    });
    if parts.len() == 1 {
        return parts.into_iter().flatten().collect();
    }
    let met: usize = parts.iter().map(Vec::len).sum();
    let mut index: FxHashMap<Pair, usize> =
        FxHashMap::with_capacity_and_hasher(met, Default::default());
    let mut counted: Vec<(Pair, i64)> = Vec::with_capacity(met);
    for (pair, count) in parts.into_iter().flatten() {
        let at = *index.entry(pair).or_insert_with(|| {
            counted.push((pair, 0));
            counted.len() - 1
        });
        counted[at].1 += count;
    }
    counted
}

#[cfg(test)]
mod tests {
    use super::CriticalPaths;
    use crate::model::intern::Interner;

    #[test]
    fn critical_paths_keep_minimum_in_slot_zero() {
        let mut i = Interner::default();
        let (a, b, c) = (i.intern("a"), i.intern("b"), i.intern("c"));
        let mut p = CriticalPaths::new();
        p.update(Some(a), 3);
        p.update(Some(b), 1);
        p.update(Some(c), 2);
        assert_eq!(p.min(), 1);
        // Lowering a domain already tracked moves it to slot 0.
        p.update(Some(c), 0);
        assert_eq!(p.min(), 0);
        // Raising the minimum swaps the slots.
        p.update(Some(c), 5);
        assert_eq!(p.min(), 1);
    }
}
