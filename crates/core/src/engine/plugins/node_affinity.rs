//! `nodeaffinity`: `spec.nodeSelector` and required node affinity filter,
//! preferred node affinity scores.

use crate::engine::profile::{AddedRequirement, AddedTerm, NodeAffinityArgs};
use crate::engine::status::{FilterResult, Plugin, Rejection};
use crate::model::intern::Interner;
use crate::model::labels::Labels;
use crate::model::node::Node;
use crate::model::pod::{NodeSelectorOperator, NodeSelectorRequirement, NodeSelectorTerm, Pod};

pub const REASON: &str = "node(s) didn't match Pod's node affinity/selector";
pub const REASON_CONFLICT: &str = "pod affinity terms conflict";
/// `errReasonEnforced`: the profile's `addedAffinity` does not match.
pub const REASON_ENFORCED: &str = "node(s) didn't match scheduler-enforced node affinity";

/// One `addedAffinity` requirement, matched by text (see [`AddedTerm`]).
fn added_requirement_matches(r: &AddedRequirement, value: Option<&str>) -> bool {
    match r.operator {
        NodeSelectorOperator::In => value.is_some_and(|v| r.values.iter().any(|w| w == v)),
        NodeSelectorOperator::NotIn => value.is_none_or(|v| !r.values.iter().any(|w| w == v)),
        NodeSelectorOperator::Exists => value.is_some(),
        NodeSelectorOperator::DoesNotExist => value.is_none(),
        NodeSelectorOperator::Gt | NodeSelectorOperator::Lt => {
            let want = r.values.first().and_then(|w| w.parse::<i64>().ok());
            match (value.and_then(|v| v.parse::<i64>().ok()), want) {
                (Some(have), Some(want)) if r.operator == NodeSelectorOperator::Gt => have > want,
                (Some(have), Some(want)) => have < want,
                _ => false,
            }
        }
    }
}

/// An `addedAffinity` term: every expression on the node's labels and every
/// field (`metadata.name`) holds; an empty term matches nothing.
pub fn added_term_matches(term: &AddedTerm, node: &Node, interner: &Interner) -> bool {
    if term.match_expressions.is_empty() && term.match_fields.is_empty() {
        return false;
    }
    let label = |key: &str| {
        interner
            .lookup(key)
            .and_then(|k| node.labels.get(k))
            .map(|v| interner.resolve(v))
    };
    term.match_expressions
        .iter()
        .all(|r| added_requirement_matches(r, label(&r.key)))
        && term
            .match_fields
            .iter()
            .all(|r| r.key == "metadata.name" && added_requirement_matches(r, Some(&node.name)))
}

/// The profile's required `addedAffinity` (terms ORed); `true` when unset.
pub fn added_required_matches(args: &NodeAffinityArgs, node: &Node, interner: &Interner) -> bool {
    args.added_required
        .as_ref()
        .is_none_or(|terms| terms.iter().any(|t| added_term_matches(t, node, interner)))
}

fn requirement_matches(r: &NodeSelectorRequirement, labels: &Labels, interner: &Interner) -> bool {
    let got = labels.get(r.key);
    match r.op {
        NodeSelectorOperator::In => got.is_some_and(|v| r.values.binary_search(&v).is_ok()),
        NodeSelectorOperator::NotIn => got.is_none_or(|v| r.values.binary_search(&v).is_err()),
        NodeSelectorOperator::Exists => got.is_some(),
        NodeSelectorOperator::DoesNotExist => got.is_none(),
        NodeSelectorOperator::Gt | NodeSelectorOperator::Lt => {
            let (Some(v), Some(want)) = (got, r.number) else {
                return false;
            };
            match interner.resolve(v).parse::<i64>() {
                Ok(have) if r.op == NodeSelectorOperator::Gt => have > want,
                Ok(have) => have < want,
                Err(_) => false,
            }
        }
    }
}

/// One term: all expressions and all fields hold. Unusable terms match nothing.
pub fn term_matches(term: &NodeSelectorTerm, node: &Node, interner: &Interner) -> bool {
    term_matches_labels(term, &node.labels, &node.name, interner)
}

/// [`term_matches`] against a node's labels and name.
pub fn term_matches_labels(
    term: &NodeSelectorTerm,
    labels: &Labels,
    name: &str,
    interner: &Interner,
) -> bool {
    term.usable
        && term
            .expressions
            .iter()
            .all(|r| requirement_matches(r, labels, interner))
        && term.fields.iter().all(|f| (*f.name == *name) != f.not_in)
}

/// `GetRequiredNodeAffinity(pod).Match(node)`: nodeSelector and the required
/// terms (ORed).
pub fn required_matches(pod: &Pod, node: &Node, interner: &Interner) -> bool {
    required_matches_with(pod, node, interner, None)
}

/// [`required_matches`], with whether the node has every `nodeSelector`
/// pair already known (`None`: read from its labels).
fn required_matches_with(
    pod: &Pod,
    node: &Node,
    interner: &Interner,
    selector_matches: Option<bool>,
) -> bool {
    let selector_matches = selector_matches.unwrap_or_else(|| {
        pod.node_selector
            .as_ref()
            .is_none_or(|sel| node.labels.contains_all(sel))
    });
    if !selector_matches {
        return false;
    }
    match pod.node_affinity.as_ref().and_then(|a| a.required.as_ref()) {
        None => true,
        Some(terms) => terms.iter().any(|t| term_matches(t, node, interner)),
    }
}

/// What PreFilter decided.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum PreFilter {
    /// No selector and no required affinity: Filter is skipped.
    Skip,
    /// Filter every node.
    AllNodes,
    /// Only these node names (from `matchFields` `metadata.name In`).
    Nodes(Vec<Box<str>>),
    /// The terms name disjoint node sets.
    Conflict,
}

pub fn pre_filter(pod: &Pod, args: &NodeAffinityArgs) -> PreFilter {
    let required = pod.node_affinity.as_ref().and_then(|a| a.required.as_ref());
    if required.is_none() && pod.node_selector.is_none() && args.added_required.is_none() {
        return PreFilter::Skip;
    }
    let Some(terms) = required.filter(|t| !t.is_empty()) else {
        return PreFilter::AllNodes;
    };
    let mut union: Vec<Box<str>> = Vec::new();
    for term in terms.iter() {
        let Some(names) = &term.name_in else {
            return PreFilter::AllNodes;
        };
        for n in names.iter() {
            if !union.contains(n) {
                union.push(n.clone());
            }
        }
    }
    if union.is_empty() {
        PreFilter::Conflict
    } else {
        PreFilter::Nodes(union)
    }
}

/// Filter; `selector_matches` is whether the node has every pair of the
/// pod's `nodeSelector`, when the caller already knows (`None`: read the
/// node's labels).
pub fn filter(
    pod: &Pod,
    node: &Node,
    interner: &Interner,
    args: &NodeAffinityArgs,
    selector_matches: Option<bool>,
) -> FilterResult {
    if !added_required_matches(args, node, interner) {
        return Err(Rejection::unresolvable(
            Plugin::NodeAffinity,
            REASON_ENFORCED,
        ));
    }
    if required_matches_with(pod, node, interner, selector_matches) {
        Ok(())
    } else {
        Err(Rejection::unresolvable(Plugin::NodeAffinity, REASON))
    }
}

/// Whether PreScore skips: no preferred terms with weight, of the pod or
/// added by the profile.
pub fn pre_score_skips(pod: &Pod, args: &NodeAffinityArgs) -> bool {
    args.added_preferred.iter().all(|(w, _)| *w == 0)
        && pod
            .node_affinity
            .as_ref()
            .is_none_or(|a| !a.preferred.iter().any(|(w, t)| *w != 0 && t.usable))
}

/// Sum of the weights of matching preferred terms, the profile's added
/// ones first.
pub fn score(pod: &Pod, node: &Node, interner: &Interner, args: &NodeAffinityArgs) -> i64 {
    let added: i64 = args
        .added_preferred
        .iter()
        .filter(|(w, t)| *w != 0 && added_term_matches(t, node, interner))
        .map(|(w, _)| i64::from(*w))
        .sum();
    let Some(a) = &pod.node_affinity else {
        return added;
    };
    added
        + a.preferred
            .iter()
            .filter(|(w, t)| *w != 0 && term_matches(t, node, interner))
            .map(|(w, _)| *w as i64)
            .sum::<i64>()
}

pub fn normalizer(range: super::RawRange) -> super::DefaultNormalizer {
    super::DefaultNormalizer::new(range, false)
}
