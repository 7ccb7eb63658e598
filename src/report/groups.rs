//! Failing nodes grouped by why they failed, as both the table output and
//! the TUI's Placement view list them: one group per (reasons, plugin,
//! code), the largest first.

use std::collections::BTreeMap;

use crate::engine::NodeFailure;
use crate::model::NodeId;

/// What a node left out by a PreFilter result (the pod's `nodeName`,
/// NodeAffinity's `matchFields` on `metadata.name`, or before v1.32 the
/// nodes a bound local PersistentVolume names) is listed as: no filter ran
/// on it, so it has no reason of its own.
pub const NOT_EVALUATED: &str = "not evaluated: outside the nodes the pod's PreFilter result names (nodeName / matchFields / local volume)";

#[derive(Clone, Debug, PartialEq, Eq)]
pub struct FailureGroup {
    /// The reasons, joined with "; ".
    pub reason: String,
    pub plugin: &'static str,
    pub code: &'static str,
    pub nodes: Vec<NodeId>,
}

/// Groups `failures`; larger groups first, then by reason text.
pub fn failure_groups(failures: &[NodeFailure]) -> Vec<FailureGroup> {
    let mut groups: BTreeMap<(String, &'static str, &'static str), Vec<NodeId>> = BTreeMap::new();
    for f in failures {
        let reason = if f.rejection.reasons.is_empty() {
            NOT_EVALUATED.to_string()
        } else {
            f.rejection.reasons.join("; ")
        };
        groups
            .entry((
                reason,
                f.rejection.plugin.as_str(),
                f.rejection.code.as_str(),
            ))
            .or_default()
            .push(f.node);
    }
    let mut out: Vec<FailureGroup> = groups
        .into_iter()
        .map(|((reason, plugin, code), nodes)| FailureGroup {
            reason,
            plugin,
            code,
            nodes,
        })
        .collect();
    out.sort_by(|a, b| {
        b.nodes
            .len()
            .cmp(&a.nodes.len())
            .then_with(|| (&a.reason, a.plugin, a.code).cmp(&(&b.reason, b.plugin, b.code)))
    });
    out
}
