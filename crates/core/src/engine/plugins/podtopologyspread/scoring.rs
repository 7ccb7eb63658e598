//! PodTopologySpread PreScore/Score/NormalizeScore (upstream `scoring.go`).

use rustc_hash::FxHashMap;

use super::common::{
    Constraint, LABEL_HOSTNAME, Pair, SpreadCounts, constraints_with, counts_per_constraint,
    matches_inclusion_policies, node_has_all_keys,
};
use std::sync::Arc;

use crate::engine::node_memo::{KeyColumn, MemoEntry, SpreadLookups};
use crate::engine::plugins::RawRange;
use crate::engine::profile::{SpreadArgs, SpreadDefaulting};
use crate::model::intern::Sym;
use crate::model::pod::WhenUnsatisfiable;
use crate::model::{Cluster, NodeId, Pod};

pub struct PreScoreState {
    pub constraints: Vec<Constraint>,
    /// Per feasible node (same order as the scored list): left out of scoring.
    pub ignored: Vec<bool>,
    /// Matching pods per registered (non-hostname) pair, indexed by the
    /// order the pairs were first met.
    domain_counts: Vec<i64>,
    /// Where Score finds each node's pair per constraint, so that it
    /// neither looks up labels nor hashes pairs.
    domain_of: NodeDomains,
    /// Per constraint, its weight and `maxSkew - 1`, the two terms of its
    /// part of a node's score (read for every feasible node).
    terms: Vec<(f64, f64)>,
    /// Matching pods per node, for each constraint.
    per_node: SpreadCounts,
}

/// Whether node `n` has every constraint's key (by the lookups' columns).
fn has_all_keys(columns: &[Arc<KeyColumn>], n: usize) -> bool {
    columns.iter().all(|col| col.values[n].is_some())
}

/// How Score finds a feasible node's pair for each constraint.
enum NodeDomains {
    /// Per feasible node and constraint (row-major, one row per node):
    /// the index into `domain_counts` of the node's pair, [`PER_NODE`] for
    /// a hostname constraint, or [`NO_DOMAIN`] when the node lacks the key.
    Rows(Vec<u32>),
    /// Per constraint, read by node id: the lookups' column of the key and
    /// the block of `domain_counts` its values are numbered into (`None`
    /// for a hostname constraint, counted per node). Nothing is written
    /// per feasible node ahead of Score.
    Columns(Vec<(Arc<KeyColumn>, Option<u32>)>),
}

/// A node without the constraint's key: it scores nothing for it.
const NO_DOMAIN: u32 = u32::MAX;
/// A hostname constraint on a node with the key: the node's own count.
const PER_NODE: u32 = u32::MAX - 1;

/// The part of PreScore that reads neither the feasible nodes nor their
/// order: the pod's ScheduleAnyway constraints (its own or the defaults),
/// their matching pods per node, and whether each node with matching
/// pods passes each constraint's inclusion policies. Worked out on the
/// caller's thread while the helper filters ([`crate::engine::framework`]'s
/// early scores); `None` is Skip (no such constraints).
pub struct Counted {
    constraints: Vec<Constraint>,
    per_node: SpreadCounts,
    /// The nodes some constraint counted by domain has matching pods on,
    /// in node order, and per such node and constraint (row-major)
    /// whether its pods count ([`matches_inclusion_policies`]; checked
    /// only where the node has matching pods for a constraint counted by
    /// domain, `false` elsewhere).
    with_matches: Vec<usize>,
    included: Vec<bool>,
    /// `requireAllTopologies`: only the system defaults tolerate nodes
    /// without every key.
    require_all: bool,
}

/// [`Counted`] for `pod`: `None` when PreScore skips. A memo of the
/// pod's shape answers the inclusion policies of the nodes it passes.
pub fn count(
    cluster: &Cluster,
    pod: &Pod,
    args: &SpreadArgs,
    memo: Option<&MemoEntry>,
    lookups: Option<&SpreadLookups>,
) -> Option<Counted> {
    if cluster.nodes.is_empty() {
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
    let hostname = cluster.interner.lookup(LABEL_HOSTNAME);
    let per_node = counts_per_constraint(cluster, &constraints, pod.namespace);
    let with_matches = nodes_with_matches(&per_node, &constraints, hostname);
    let width = constraints.len();
    let mut included = vec![false; with_matches.len() * width];
    for (row, &n) in included.chunks_exact_mut(width).zip(&with_matches) {
        let node = &cluster.nodes[n];
        for (ci, c) in constraints.iter().enumerate() {
            if Some(c.topology_key) != hostname && per_node.per_node(ci)[n] != 0 {
                row[ci] = memo.is_some_and(|m| m.passes_inclusion_policies(n as NodeId))
                    || matches_inclusion_policies(c, pod, node, &cluster.interner);
            }
        }
    }
    let system_defaulted =
        pod.spread_constraints.is_empty() && args.defaulting == SpreadDefaulting::System;
    Some(Counted {
        constraints,
        per_node,
        with_matches,
        included,
        require_all: !system_defaulted,
    })
}

/// PreScore over the feasible nodes, from what [`count`] found; `None` is
/// Skip (no ScheduleAnyway constraints, pod or default).
pub fn pre_score(
    cluster: &Cluster,
    feasible: &[NodeId],
    counted: Option<Counted>,
    lookups: Option<&SpreadLookups>,
) -> Option<PreScoreState> {
    if feasible.is_empty() || cluster.nodes.is_empty() {
        return None;
    }
    let Counted {
        constraints,
        per_node,
        with_matches,
        included,
        require_all,
    } = counted?;
    let hostname = cluster.interner.lookup(LABEL_HOSTNAME);
    let ctx = Registration {
        cluster,
        feasible,
        constraints: &constraints,
        per_node: &per_node,
        with_matches: &with_matches,
        included: &included,
        hostname,
        require_all,
    };
    let Domains {
        ignored,
        domain_of,
        topo_size,
        domain_counts,
    } = match lookups {
        Some(lookups) => ctx.by_columns(lookups),
        None => ctx.by_labels(),
    };
    let num_ignored = ignored.iter().filter(|&&x| x).count();
    let terms = constraints
        .iter()
        .enumerate()
        .map(|(i, c)| {
            let size = if Some(c.topology_key) == hostname {
                feasible.len() - num_ignored
            } else {
                topo_size[i]
            };
            (((size + 2) as f64).ln(), (c.max_skew - 1) as f64)
        })
        .collect();
    Some(PreScoreState {
        constraints,
        ignored,
        domain_counts,
        domain_of,
        terms,
        per_node,
    })
}

/// What PreScore registers before scoring: the pairs (topology key,
/// value) of the feasible nodes, each node's pair per constraint, and the
/// matching pods counted per registered pair.
struct Domains {
    ignored: Vec<bool>,
    domain_of: NodeDomains,
    /// Per constraint, the pairs it registered first (`topoSize`).
    topo_size: Vec<usize>,
    domain_counts: Vec<i64>,
}

/// The inputs of the registration, shared by its two ways.
struct Registration<'a> {
    cluster: &'a Cluster,
    feasible: &'a [NodeId],
    constraints: &'a [Constraint],
    per_node: &'a SpreadCounts,
    /// [`Counted`]'s nodes with matching pods and their inclusion rows.
    with_matches: &'a [usize],
    included: &'a [bool],
    hostname: Option<Sym>,
    require_all: bool,
}

impl Registration<'_> {
    fn is_hostname(&self, c: &Constraint) -> bool {
        Some(c.topology_key) == self.hostname
    }

    /// Each node with matching pods and its row of inclusion verdicts.
    fn with_matches_rows(&self) -> impl Iterator<Item = (&usize, &[bool])> {
        let width = self.constraints.len();
        self.with_matches
            .iter()
            .zip(self.included.chunks_exact(width))
    }

    /// From the nodes' labels: the feasible nodes' values read on both
    /// cores, pairs numbered by a hash map in the order first met.
    fn by_labels(&self) -> Domains {
        let (cluster, constraints, feasible) = (self.cluster, self.constraints, self.feasible);
        let empty = cluster.empty_sym();
        let width = constraints.len();
        let mut ignored = vec![false; feasible.len()];
        let mut domain_of = vec![NO_DOMAIN; feasible.len() * width];
        let mut domain_index: FxHashMap<Pair, u32> = FxHashMap::default();
        let mut topo_size = vec![0usize; width];
        // Each feasible node's value of each constraint's key (`None`: the
        // node lacks it); the label lookups are the costly part.
        let values: Vec<Option<Sym>> = kplace_split::in_parts(feasible.len(), |range| {
            let mut part = Vec::with_capacity(range.len() * width);
            for &n in &feasible[range] {
                let labels = &cluster.node(n).labels;
                part.extend(constraints.iter().map(|c| labels.get(c.topology_key)));
            }
            part
        })
        .concat();
        for (i, row) in values.chunks_exact(width).enumerate() {
            if self.require_all && row.iter().any(Option::is_none) {
                ignored[i] = true;
                continue;
            }
            for (ci, (c, &value)) in constraints.iter().zip(row).enumerate() {
                if self.is_hostname(c) {
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
        let mut domain_counts = vec![0i64; domain_index.len()];
        // Only registered pairs collect counts (hostname pairs never are),
        // from the nodes with matching pods that pass the constraint's
        // inclusion policies ([`count`] checked them beside Filter).
        if !domain_index.is_empty() {
            for (&n, included) in self.with_matches_rows() {
                let node = &cluster.nodes[n];
                if self.require_all && !node_has_all_keys(node, constraints) {
                    continue;
                }
                for (ci, c) in constraints.iter().enumerate() {
                    if self.is_hostname(c) || !included[ci] {
                        continue;
                    }
                    let pair = (
                        c.topology_key,
                        node.labels.get(c.topology_key).unwrap_or(empty),
                    );
                    if let Some(&index) = domain_index.get(&pair) {
                        domain_counts[index as usize] += self.per_node.per_node(ci)[n] as i64;
                    }
                }
            }
        }
        Domains {
            ignored,
            domain_of: NodeDomains::Rows(domain_of),
            topo_size,
            domain_counts,
        }
    }

    /// Registration when no feasible node can be ignored: each node's
    /// pair is its column's number, read by Score from the columns, so
    /// only which pairs the feasible nodes register is worked out here,
    /// key by key, stopping once every value of the key is met (a zone key
    /// has a handful, met in the first few dozen nodes).
    fn registered_by_blocks(
        &self,
        columns: &[Arc<KeyColumn>],
        offsets: &[u32],
        blocks: &[(Sym, u32)],
        total: u32,
    ) -> (Vec<bool>, NodeDomains, Vec<bool>) {
        let mut registered = vec![false; total as usize];
        for &(key, at) in blocks {
            let first = self
                .constraints
                .iter()
                .position(|c| c.topology_key == key && !self.is_hostname(c))
                .expect("a block is made for a constraint on its key");
            let column = &columns[first];
            let block = &mut registered[at as usize..(at + column.domains()) as usize];
            let mut unmet = block.len();
            for &n in self.feasible {
                let met = &mut block[column.domain[n as usize] as usize];
                if !*met {
                    *met = true;
                    unmet -= 1;
                    if unmet == 0 {
                        break;
                    }
                }
            }
        }
        let domain_of = self
            .constraints
            .iter()
            .zip(columns)
            .zip(offsets)
            .map(|((c, column), &at)| (column.clone(), (!self.is_hostname(c)).then_some(at)))
            .collect();
        (
            vec![false; self.feasible.len()],
            NodeDomains::Columns(domain_of),
            registered,
        )
    }

    /// Registration node by node, on both cores: which feasible nodes are
    /// ignored (`requireAllTopologies`, some lacking a key), each one's
    /// pair per constraint, and the pairs its nodes register.
    fn registered_by_rows(
        &self,
        columns: &[Arc<KeyColumn>],
        offsets: &[u32],
        total: u32,
    ) -> (Vec<bool>, NodeDomains, Vec<bool>) {
        let (constraints, feasible) = (self.constraints, self.feasible);
        let width = constraints.len();
        let parts = kplace_split::in_parts(feasible.len(), |range| {
            let mut ignored = vec![false; range.len()];
            let mut domain_of = vec![NO_DOMAIN; range.len() * width];
            let mut registered = vec![false; total as usize];
            for (i, &n) in feasible[range].iter().enumerate() {
                let n = n as usize;
                if self.require_all && !has_all_keys(columns, n) {
                    ignored[i] = true;
                    continue;
                }
                let row = &mut domain_of[i * width..(i + 1) * width];
                for (ci, (c, column)) in constraints.iter().zip(columns).enumerate() {
                    let has_key = column.values[n].is_some();
                    if self.is_hostname(c) {
                        if has_key {
                            row[ci] = PER_NODE;
                        }
                        continue;
                    }
                    let index = offsets[ci] + column.domain[n];
                    registered[index as usize] = true;
                    if has_key {
                        row[ci] = index;
                    }
                }
            }
            (ignored, domain_of, registered)
        });
        let mut ignored = Vec::with_capacity(feasible.len());
        let mut domain_of = Vec::with_capacity(feasible.len() * width);
        let mut registered = vec![false; total as usize];
        for (part_ignored, part_domains, part_registered) in parts {
            ignored.extend_from_slice(&part_ignored);
            domain_of.extend_from_slice(&part_domains);
            for (all, part) in registered.iter_mut().zip(part_registered) {
                *all |= part;
            }
        }
        (ignored, NodeDomains::Rows(domain_of), registered)
    }

    /// From the lookups' key columns, which number each key's values once for
    /// all placements: a pair's index is its key's block plus its value's
    /// number, so nothing is hashed or looked up per node. Registers and
    /// counts exactly as [`Registration::by_labels`] (pairs of one key
    /// are shared by the constraints on that key, the first to meet a pair
    /// counting it in its topology size), with other index numbers.
    fn by_columns(&self, lookups: &SpreadLookups) -> Domains {
        let (cluster, constraints) = (self.cluster, self.constraints);
        let width = constraints.len();
        let columns: Vec<_> = constraints
            .iter()
            .map(|c| lookups.column(cluster, c.topology_key))
            .collect();
        // One block of indexes per distinct key, in constraint order. A
        // hostname constraint counts per node, never by pair: its key gets
        // no block (it would be as long as the cluster has nodes).
        let mut blocks: Vec<(Sym, u32)> = Vec::new();
        let mut total = 0u32;
        let offsets: Vec<u32> = constraints
            .iter()
            .zip(&columns)
            .map(|(c, column)| {
                if self.is_hostname(c) {
                    return 0;
                }
                if let Some(&(_, at)) = blocks.iter().find(|(k, _)| *k == c.topology_key) {
                    return at;
                }
                let at = total;
                blocks.push((c.topology_key, at));
                total += column.domains();
                at
            })
            .collect();
        let (ignored, domain_of, registered) =
            if !self.require_all || columns.iter().all(|col| col.every_node_has_key) {
                self.registered_by_blocks(&columns, &offsets, &blocks, total)
            } else {
                self.registered_by_rows(&columns, &offsets, total)
            };
        // A pair counts in the topology size of the first constraint that
        // meets it; constraints on one key meet its pairs in constraint
        // order on every node, so the first constraint on the key counts
        // all of the key's registered pairs, whichever node met them first.
        let mut topo_size = vec![0usize; width];
        for &(key, at) in &blocks {
            let first = constraints
                .iter()
                .position(|c| c.topology_key == key && !self.is_hostname(c))
                .expect("a block is made for a constraint on its key");
            let domains = columns[first].domains() as usize;
            topo_size[first] = registered[at as usize..at as usize + domains]
                .iter()
                .filter(|&&r| r)
                .count();
        }
        let any_registered = topo_size.iter().any(|&size| size > 0);
        let mut domain_counts = vec![0i64; total as usize];
        if any_registered {
            for (&n, included) in self.with_matches_rows() {
                if self.require_all && !has_all_keys(&columns, n) {
                    continue;
                }
                for (ci, (c, column)) in constraints.iter().zip(&columns).enumerate() {
                    if self.is_hostname(c) || !included[ci] {
                        continue;
                    }
                    let index = (offsets[ci] + column.domain[n]) as usize;
                    if registered[index] {
                        domain_counts[index] += self.per_node.per_node(ci)[n] as i64;
                    }
                }
            }
        }
        Domains {
            ignored,
            domain_of,
            topo_size,
            domain_counts,
        }
    }
}

/// The nodes where some constraint counted by domain (not per hostname)
/// has matching pods, in node order: only they add to a domain's count,
/// and a workload's pods sit on a few of thousands of nodes, so the nodes
/// each count touched are joined instead of scanning every node.
fn nodes_with_matches(
    per_node: &SpreadCounts,
    constraints: &[Constraint],
    hostname: Option<Sym>,
) -> Vec<usize> {
    let mut nodes: Vec<usize> = Vec::new();
    let mut joined: Vec<&[NodeId]> = Vec::new();
    for (ci, c) in constraints.iter().enumerate() {
        let touched = per_node.nodes_with_matches(ci);
        // Constraints sharing a selector share one list: join it once.
        if Some(c.topology_key) == hostname || joined.iter().any(|j| std::ptr::eq(*j, touched)) {
            continue;
        }
        joined.push(touched);
        nodes.extend(touched.iter().map(|&n| n as usize));
    }
    nodes.sort_unstable();
    nodes.dedup();
    nodes
}

impl PreScoreState {
    /// Raw score of the `i`-th feasible node (inlined into the scoring
    /// loop: it runs for every feasible node of every placement).
    #[inline]
    pub fn score(&self, i: usize, n: NodeId) -> i64 {
        if self.ignored[i] {
            return 0;
        }
        let mut score = 0f64;
        match &self.domain_of {
            NodeDomains::Rows(rows) => {
                let width = self.terms.len();
                let domains = &rows[i * width..(i + 1) * width];
                for (ci, (&domain, &(weight, skew))) in domains.iter().zip(&self.terms).enumerate()
                {
                    let count = match domain {
                        NO_DOMAIN => continue,
                        PER_NODE => self.per_node.per_node(ci)[n as usize] as i64,
                        d => self.domain_counts[d as usize],
                    };
                    score += count as f64 * weight + skew;
                }
            }
            NodeDomains::Columns(columns) => {
                let n = n as usize;
                for (ci, ((column, block), &(weight, skew))) in
                    columns.iter().zip(&self.terms).enumerate()
                {
                    if column.values[n].is_none() {
                        continue;
                    }
                    let count = match block {
                        None => self.per_node.per_node(ci)[n] as i64,
                        Some(at) => self.domain_counts[(at + column.domain[n]) as usize],
                    };
                    score += count as f64 * weight + skew;
                }
            }
        }
        crate::engine::plugins::round_to_i64(score)
    }

    /// NormalizeScore's minimum and maximum, from the range of the raw
    /// scores of the nodes not ignored (a maximum below 0 counts as 0).
    pub fn normalizer(&self, range: RawRange) -> Normalizer {
        Normalizer {
            min: range.min().unwrap_or(i64::MAX),
            max: range.max().unwrap_or(0).max(0),
        }
    }

    /// Whether NormalizeScore reads the `i`-th feasible node's score
    /// (ignored nodes are left out).
    pub fn normalizes(&self, i: usize) -> bool {
        !self.ignored[i]
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
