//! `interpodaffinity`: required pod affinity/anti-affinity (both the incoming
//! pod's and existing pods') filter; preferred terms and existing pods'
//! terms score.

pub mod filtering;
pub mod scoring;

use crate::engine::Version;
use crate::model::Cluster;
use crate::model::intern::Sym;
use crate::model::labels::{LabelSelector, Labels};
use crate::model::pod::{AffinityTerm, Pod};

/// `AffinityTerm.Matches`: the pod's namespace is listed or selected by the
/// namespace selector (evaluated on `ns_labels`), and its labels match.
pub fn term_matches(term: &AffinityTerm, pod: &Pod, ns_labels: Option<&Labels>) -> bool {
    let empty = Labels::default();
    (term.namespaces.contains(&pod.namespace)
        || term.namespace_selector.matches(ns_labels.unwrap_or(&empty)))
        && term.selector.matches(&pod.labels)
}

/// `mergeAffinityTermNamespacesIfNotEmpty`: for the incoming pod's terms, a
/// non-empty namespace selector is resolved against the known namespaces
/// and replaced by the list; `{}` stays "all namespaces".
///
/// v1.34.1 takes the term by value: the namespaces it adds reach the shared
/// set, but the selector it clears is the copy's, so the selector stays and
/// is later matched against an empty label set (incoming terms are matched
/// with nil namespace labels). A selector that matches no labels at all
/// (`NotIn`, `DoesNotExist`) then matches pods of every namespace.
pub fn resolve_incoming_term(
    cluster: &Cluster,
    term: &AffinityTerm,
    version: Version,
) -> AffinityTerm {
    if term.namespace_selector.is_everything() {
        return term.clone();
    }
    let mut namespaces: Vec<Sym> = term.namespaces.to_vec();
    for (ns, labels) in &cluster.namespaces {
        if term.namespace_selector.matches(labels) && !namespaces.contains(ns) {
            namespaces.push(*ns);
        }
    }
    AffinityTerm {
        namespaces: namespaces.into_boxed_slice(),
        selector: term.selector.clone(),
        topology_key: term.topology_key,
        namespace_selector: if version.keeps_namespace_selector_after_merge() {
            term.namespace_selector.clone()
        } else {
            LabelSelector::Nothing
        },
    }
}

/// Calls `f` with every scheduled pod the term's label selector matches and
/// whose namespace the term covers (incoming terms: namespaces already merged).
pub fn for_each_term_match(cluster: &Cluster, term: &AffinityTerm, mut f: impl FnMut(&Pod)) {
    cluster.for_each_scheduled_match(&term.selector, |_, p| {
        if term_matches(term, p, None) {
            f(p);
        }
    });
}
