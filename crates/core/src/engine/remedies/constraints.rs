//! The pod's own constraints: a toleration for a taint, a spread
//! constraint relaxed, a required node selector or (anti-)affinity term
//! dropped.

use super::edit::PodEdit;
use super::node_state::taint_text;
use super::trial::{Budget, Trial, Verified};
use super::{Edit, Remedy, RemedyKind};
use crate::engine::plugins::taint_toleration::first_untolerated;
use crate::engine::replicas::domain_counts;
use crate::engine::status::Plugin;
use crate::model::node::Taint;
use crate::model::pod::WhenUnsatisfiable;

/// Taints the pod should not be told to tolerate: the node lifecycle
/// controller's and the cloud provider's, which mean "not usable".
fn is_system_taint(key: &str) -> bool {
    key.starts_with("node.kubernetes.io/") || key.starts_with("node.cloudprovider.kubernetes.io/")
}

/// At most this many distinct taints are tried.
const MAX_TAINTS: usize = 4;

pub fn tolerate(trial: &Trial, budget: &Budget, report: &mut dyn FnMut(Remedy)) {
    let mut taints: Vec<(Taint, usize)> = Vec::new();
    for f in &trial.base.failures {
        if f.rejection.plugin != Plugin::TaintToleration {
            continue;
        }
        let Some(taint) = first_untolerated(&trial.pod.tolerations, trial.cluster.node(f.node))
        else {
            continue;
        };
        if is_system_taint(&taint.key) {
            continue;
        }
        match taints.iter_mut().find(|(t, _)| t == taint) {
            Some((_, n)) => *n += 1,
            None => taints.push((taint.clone(), 1)),
        }
    }
    taints.sort_by_key(|t| std::cmp::Reverse(t.1));
    let mut kept = 0;
    for (taint, nodes) in taints.into_iter().take(MAX_TAINTS) {
        if kept >= budget.max || budget.exhausted() {
            break;
        }
        let edit = PodEdit::Tolerate {
            key: taint.key.to_string(),
            value: taint.value.to_string(),
            effect: taint.effect,
        };
        let change = format!(
            "tolerate the taint {} ({nodes} node(s) have it)",
            taint_text(&taint.key, &taint.value, taint.effect.as_str())
        );
        if try_pod_edit(trial, RemedyKind::Tolerate, edit, change, true, report) {
            kept += 1;
        }
    }
}

pub fn relax_spread(trial: &Trial, budget: &Budget, report: &mut dyn FnMut(Remedy)) {
    if !rejected_by(trial, Plugin::PodTopologySpread) {
        return;
    }
    let counts = domain_counts(trial.cluster, &trial.pod);
    let mut kept = 0;
    for (i, c) in trial.pod.spread_constraints.iter().enumerate() {
        if kept >= budget.max || budget.exhausted() {
            break;
        }
        if c.when_unsatisfiable != WhenUnsatisfiable::DoNotSchedule {
            continue;
        }
        let key = trial.cluster.interner.resolve(c.topology_key);
        let what = format!("topology spread constraint {} ({key})", i + 1);
        // Past the largest domain's count no skew can be exceeded.
        let most = counts
            .get(i)
            .and_then(|d| d.counts.iter().map(|c| c.1).max())
            .unwrap_or(0);
        let ceiling = (most + 1).clamp(c.max_skew as i64 + 1, i32::MAX as i64) as i32;
        let fits_with = |skew: i32| {
            let pod = PodEdit::MaxSkew {
                constraint: i,
                max_skew: skew,
            }
            .apply(trial.cluster, &trial.pod, trial.existing);
            trial.fits(trial.cluster, &pod)
        };
        if let Some(skew) = smallest(c.max_skew + 1, ceiling, fits_with) {
            let edit = PodEdit::MaxSkew {
                constraint: i,
                max_skew: skew,
            };
            let change = format!("raise maxSkew of {what} from {} to {skew}", c.max_skew);
            if try_pod_edit(trial, RemedyKind::RelaxSpread, edit, change, false, report) {
                kept += 1;
                continue;
            }
        }
        let edit = PodEdit::ScheduleAnyway { constraint: i };
        let change = format!("make {what} whenUnsatisfiable: ScheduleAnyway");
        if try_pod_edit(trial, RemedyKind::RelaxSpread, edit, change, true, report) {
            kept += 1;
        }
    }
}

/// The smallest value in `from..=to` for which `ok` holds, assuming once
/// it holds it holds for every larger value.
fn smallest(from: i32, to: i32, ok: impl Fn(i32) -> bool) -> Option<i32> {
    if from > to || !ok(to) {
        return None;
    }
    let (mut lo, mut hi) = (from, to);
    while lo < hi {
        let mid = lo + (hi - lo) / 2;
        if ok(mid) {
            hi = mid;
        } else {
            lo = mid + 1;
        }
    }
    Some(lo)
}

pub fn relax_affinity(trial: &Trial, budget: &Budget, report: &mut dyn FnMut(Remedy)) {
    let interner = &trial.cluster.interner;
    let mut edits: Vec<(PodEdit, String)> = Vec::new();
    if rejected_by(trial, Plugin::NodeAffinity) {
        for &(k, v) in trial.pod.node_selector.iter().flatten() {
            let key = interner.resolve(k).to_string();
            let change = format!("drop nodeSelector {key}={}", interner.resolve(v));
            edits.push((PodEdit::DropNodeSelector { key }, change));
        }
        if trial
            .pod
            .node_affinity
            .as_ref()
            .is_some_and(|a| a.required.is_some())
        {
            edits.push((
                PodEdit::DropRequiredNodeAffinity,
                "drop the required node affinity (requiredDuringSchedulingIgnoredDuringExecution)"
                    .into(),
            ));
        }
    }
    if rejected_by(trial, Plugin::InterPodAffinity)
        && let Some(a) = &trial.pod.pod_affinity
    {
        for (anti, terms) in [
            (false, &a.required_affinity),
            (true, &a.required_anti_affinity),
        ] {
            for (index, t) in terms.iter().enumerate() {
                let change = format!(
                    "drop the required pod {}affinity term {} (topologyKey {}, {})",
                    if anti { "anti-" } else { "" },
                    index + 1,
                    interner.resolve(t.topology_key),
                    t.selector.display(interner)
                );
                edits.push((PodEdit::DropPodAffinityTerm { anti, index }, change));
            }
        }
    }
    let mut kept = 0;
    for (edit, change) in edits {
        if kept >= budget.max || budget.exhausted() {
            break;
        }
        if try_pod_edit(trial, RemedyKind::RelaxAffinity, edit, change, true, report) {
            kept += 1;
        }
    }
}

/// Whether the base answer rejected some node with `plugin`.
pub fn rejected_by(trial: &Trial, plugin: Plugin) -> bool {
    trial
        .base
        .failures
        .iter()
        .any(|f| f.rejection.plugin == plugin)
}

/// Verifies a pod edit on the unchanged cluster and reports it when it helps.
pub fn try_pod_edit(
    trial: &Trial,
    kind: RemedyKind,
    edit: PodEdit,
    change: String,
    allow_preempt: bool,
    report: &mut dyn FnMut(Remedy),
) -> bool {
    let pod = edit.apply(trial.cluster, &trial.pod, trial.existing);
    let Some(result): Option<Verified> = trial.check(trial.cluster, &pod, allow_preempt) else {
        return false;
    };
    report(Remedy {
        kind,
        edit: Edit::Pod(edit),
        change,
        result,
    });
    true
}
