//! `tainttoleration`: NoSchedule/NoExecute taints filter, PreferNoSchedule
//! taints score (fewer untolerated is better).

use crate::engine::status::{FilterResult, Plugin, Rejection};
use crate::model::node::{Node, Taint, TaintEffect};
use crate::model::pod::{Pod, Toleration, TolerationOperator};

/// `Toleration.ToleratesTaint`.
pub fn tolerates(t: &Toleration, taint: &Taint) -> bool {
    if t.effect.is_some_and(|e| e != taint.effect) {
        return false;
    }
    if !t.key.is_empty() && t.key != taint.key {
        return false;
    }
    match t.operator {
        TolerationOperator::Exists => true,
        TolerationOperator::Equal => t.value == taint.value,
        TolerationOperator::Invalid => false,
    }
}

/// The first NoSchedule/NoExecute taint no toleration tolerates
/// (`FindMatchingUntoleratedTaint` with `DoNotScheduleTaintsFilterFunc`).
pub fn first_untolerated<'n>(tolerations: &[Toleration], node: &'n Node) -> Option<&'n Taint> {
    node.taints.iter().find(|taint| {
        matches!(
            taint.effect,
            TaintEffect::NoSchedule | TaintEffect::NoExecute
        ) && !tolerations.iter().any(|t| tolerates(t, taint))
    })
}

pub fn filter(pod: &Pod, node: &Node) -> FilterResult {
    match first_untolerated(&pod.tolerations, node) {
        Some(taint) => Err(Rejection::unresolvable(
            Plugin::TaintToleration,
            taint.untolerated().clone(),
        )),
        None => Ok(()),
    }
}

/// Raw score: how many PreferNoSchedule taints the pod's PreferNoSchedule
/// (or effect-less) tolerations leave untolerated.
pub fn score(pod: &Pod, node: &Node) -> i64 {
    // Most nodes have no PreferNoSchedule taint: nothing is gathered per node.
    let prefer = pod
        .tolerations
        .iter()
        .filter(|t| t.effect.is_none_or(|e| e == TaintEffect::PreferNoSchedule));
    node.taints
        .iter()
        .filter(|taint| {
            taint.effect == TaintEffect::PreferNoSchedule
                && !prefer.clone().any(|t| tolerates(t, taint))
        })
        .count() as i64
}

/// Reverse normalization: no untolerated taints scores 100.
pub fn normalizer(range: super::RawRange) -> super::DefaultNormalizer {
    super::DefaultNormalizer::new(range, true)
}
