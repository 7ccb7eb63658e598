//! Cluster state alone: uncordoning a node, or removing one taint from it,
//! when that would let the pod schedule (no evictions).

use super::edit::ClusterEdit;
use super::trial::{Budget, Trial};
use super::{Edit, Remedy, RemedyKind};
use crate::engine::plugins::taint_toleration::first_untolerated;
use crate::engine::schedule;
use crate::engine::status::Plugin;
use crate::model::NodeId;

/// How many single-node edits are tried after the bulk check said some help.
const MAX_TRIES: usize = 24;

pub fn uncordon(trial: &Trial, budget: &Budget, report: &mut dyn FnMut(Remedy)) {
    let edits = failing(trial, Plugin::NodeUnschedulable)
        .map(|(_, name)| ClusterEdit::Uncordon { node: name })
        .collect();
    single_node_edits(trial, budget, report, RemedyKind::Uncordon, edits);
}

pub fn untaint(trial: &Trial, budget: &Budget, report: &mut dyn FnMut(Remedy)) {
    let edits = failing(trial, Plugin::TaintToleration)
        .filter_map(|(id, name)| {
            let node = trial.cluster.node(id);
            let taint = first_untolerated(&trial.pod.tolerations, node)?;
            let index = node.taints.iter().position(|t| t == taint)?;
            Some(ClusterEdit::Untaint {
                node: name,
                index,
                taint: taint.clone(),
            })
        })
        .collect();
    single_node_edits(trial, budget, report, RemedyKind::Untaint, edits);
}

/// Nodes the base answer rejected with `plugin`, with their names.
fn failing<'a>(trial: &'a Trial, plugin: Plugin) -> impl Iterator<Item = (NodeId, String)> + 'a {
    trial
        .base
        .failures
        .iter()
        .filter(move |f| f.rejection.plugin == plugin)
        .map(|f| (f.node, trial.cluster.node(f.node).name.to_string()))
}

/// Edits one node each. All are made at once first: when even that leaves
/// the pod without a node, none alone can help. Otherwise the nodes that
/// became feasible are tried one by one, the scheduler's pick first.
fn single_node_edits(
    trial: &Trial,
    budget: &Budget,
    report: &mut dyn FnMut(Remedy),
    kind: RemedyKind,
    edits: Vec<ClusterEdit>,
) {
    if edits.is_empty() {
        return;
    }
    trial.with_scratch(|cluster| {
        let undos: Vec<_> = edits.iter().filter_map(|e| e.apply(cluster)).collect();
        let feasible: Vec<String> =
            crate::engine::filter_verdicts(cluster, &trial.pod, trial.scheduler)
                .unwrap_or_default()
                .iter()
                .enumerate()
                .filter(|(_, v)| v.is_ok())
                .map(|(n, _)| cluster.node(n as NodeId).name.to_string())
                .collect();
        let pick = if feasible.is_empty() {
            None
        } else {
            let answer = schedule(cluster, &trial.pod, trial.scheduler);
            answer.node.map(|n| cluster.node(n).name.to_string())
        };
        for undo in undos.into_iter().rev() {
            undo.revert(cluster);
        }
        let node_of = |e: &ClusterEdit| match e {
            ClusterEdit::Uncordon { node } | ClusterEdit::Untaint { node, .. } => node.clone(),
            _ => String::new(),
        };
        let mut tries: Vec<&ClusterEdit> = edits
            .iter()
            .filter(|e| feasible.contains(&node_of(e)))
            .collect();
        tries.sort_by_key(|e| Some(node_of(e)) != pick);
        let mut kept = 0;
        for edit in tries.into_iter().take(MAX_TRIES) {
            if kept >= budget.max || budget.exhausted() {
                break;
            }
            let Some(undo) = edit.apply(cluster) else {
                continue;
            };
            let verified = trial.check(cluster, &trial.pod, false);
            undo.revert(cluster);
            if let Some(result) = verified {
                kept += 1;
                report(Remedy {
                    kind,
                    change: describe(edit),
                    edit: Edit::Cluster(edit.clone()),
                    result,
                });
            }
        }
    });
}

fn describe(edit: &ClusterEdit) -> String {
    match edit {
        ClusterEdit::Uncordon { node } => format!("uncordon {node}"),
        ClusterEdit::Untaint { node, taint, .. } => format!(
            "remove the taint {} from {node}",
            taint_text(&taint.key, &taint.value, taint.effect.as_str())
        ),
        _ => String::new(),
    }
}

/// `key=value:Effect`, as `kubectl taint` writes it.
pub fn taint_text(key: &str, value: &str, effect: &str) -> String {
    if value.is_empty() {
        format!("{key}:{effect}")
    } else {
        format!("{key}={value}:{effect}")
    }
}
