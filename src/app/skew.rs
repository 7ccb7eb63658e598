//! Per-domain skew of one workload over one topology key, as
//! PodTopologySpread's filter sees it: matching pods per domain, the global
//! minimum, and which domains may take the next pod under `maxSkew`.

use rustc_hash::FxHashMap;

use crate::model::pod::WhenUnsatisfiable;
use crate::model::{Cluster, LabelSelector, Sym};

use super::derived::Workload;

#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Domain {
    pub value: String,
    pub nodes: usize,
    pub pods: usize,
    /// Whether placing one more matching pod here keeps the skew within
    /// `maxSkew` (always true when there is no hard constraint).
    pub may_take_next: bool,
    /// The skew this domain would have after taking the next pod.
    pub skew_after: i64,
}

#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct SkewReport {
    pub workload: String,
    pub topology_key: String,
    /// The selector counted, as kubectl prints it.
    pub selector: String,
    /// Where the selector came from.
    pub selector_source: &'static str,
    /// From the workload's DoNotSchedule constraint on this key, if any.
    pub max_skew: Option<i32>,
    pub min_domains: Option<i32>,
    /// Other constraints of the workload (keys and kinds), for context.
    pub other_constraints: Vec<String>,
    pub domains: Vec<Domain>,
    pub global_min: usize,
    /// Nodes without the key: never a domain, shown apart.
    pub nodes_missing_key: Vec<String>,
    pub pods_on_missing: usize,
}

/// Computes the report; cost is one pass over nodes plus the pods the
/// selector's label index points at.
pub fn compute(cluster: &Cluster, workload: &Workload, key: Sym) -> SkewReport {
    let owner = &cluster.owners[workload.owner];
    let key_name = cluster.interner.resolve(key).to_string();
    let sample = workload.sample_pod.map(|id| cluster.pod(id));
    let constraints = sample.map(|p| &p.spread_constraints[..]).unwrap_or(&[]);
    let hard = constraints.iter().find(|c| {
        c.topology_key == key && c.when_unsatisfiable == WhenUnsatisfiable::DoNotSchedule
    });
    let (selector, selector_source): (LabelSelector, &'static str) = match hard {
        Some(c) => (c.selector.clone(), "the pods' DoNotSchedule constraint"),
        None => (owner.selector.clone(), "the workload's selector"),
    };
    let other_constraints = constraints
        .iter()
        .filter(|c| !hard.is_some_and(|h| std::ptr::eq(*c, h)))
        .map(|c| {
            let kind = match c.when_unsatisfiable {
                WhenUnsatisfiable::DoNotSchedule => "DoNotSchedule",
                WhenUnsatisfiable::ScheduleAnyway => "ScheduleAnyway",
            };
            format!(
                "{} maxSkew {} {kind}",
                cluster.interner.resolve(c.topology_key),
                c.max_skew
            )
        })
        .collect();

    let mut index: FxHashMap<Sym, usize> = FxHashMap::default();
    let mut domains: Vec<Domain> = Vec::new();
    let mut node_domain: Vec<Option<usize>> = Vec::with_capacity(cluster.nodes.len());
    let mut missing = Vec::new();
    for node in &cluster.nodes {
        match node.labels.get(key) {
            Some(v) => {
                let i = *index.entry(v).or_insert_with(|| {
                    domains.push(Domain {
                        value: cluster.interner.resolve(v).to_string(),
                        nodes: 0,
                        pods: 0,
                        may_take_next: true,
                        skew_after: 0,
                    });
                    domains.len() - 1
                });
                domains[i].nodes += 1;
                node_domain.push(Some(i));
            }
            None => {
                missing.push(node.name.to_string());
                node_domain.push(None);
            }
        }
    }
    let mut pods_on_missing = 0;
    cluster.for_each_scheduled_match(&selector, |_, pod| {
        if pod.namespace != owner.namespace || pod.is_terminating() {
            return;
        }
        let Some(node) = pod.node else { return };
        match node_domain[node as usize] {
            Some(d) => domains[d].pods += 1,
            None => pods_on_missing += 1,
        }
    });
    domains.sort_by(|a, b| a.value.cmp(&b.value));
    let mut global_min = domains.iter().map(|d| d.pods).min().unwrap_or(0);
    let min_domains = hard.and_then(|c| c.min_domains);
    if min_domains.is_some_and(|m| (domains.len() as i64) < m as i64) {
        global_min = 0;
    }
    let max_skew = hard.map(|c| c.max_skew);
    for d in &mut domains {
        d.skew_after = d.pods as i64 + 1 - global_min as i64;
        d.may_take_next = max_skew.is_none_or(|m| d.skew_after <= m as i64);
    }
    SkewReport {
        workload: format!("{} {}", workload.kind, workload.label),
        topology_key: key_name,
        selector: selector.display(&cluster.interner),
        selector_source,
        max_skew,
        min_domains,
        other_constraints,
        domains,
        global_min,
        nodes_missing_key: missing,
        pods_on_missing,
    }
}
