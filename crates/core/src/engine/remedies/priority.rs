//! Priority: the lowest existing PriorityClass with which the pod would
//! preempt (and whom it would then evict). Only for a pod that cannot be
//! placed at all: one that already preempts needs no more priority.

use super::constraints::try_pod_edit;
use super::edit::PodEdit;
use super::trial::{Budget, Trial};
use super::{Remedy, RemedyKind};
use crate::engine::Outcome;
use crate::model::pod::PreemptionPolicy;

/// User-defined classes are at most one billion; above are the system's.
const MAX_USER_PRIORITY: i32 = 1_000_000_000;

pub fn priority(trial: &Trial, budget: &Budget, report: &mut dyn FnMut(Remedy)) {
    if trial.base.outcome != Outcome::Unschedulable {
        return;
    }
    let current = trial.pod.priority_value();
    let mut classes: Vec<(i32, String)> = trial
        .cluster
        .priority_classes
        .iter()
        .filter(|pc| pc.value > current && pc.value <= MAX_USER_PRIORITY)
        .filter(|pc| pc.preemption_policy == PreemptionPolicy::PreemptLowerPriority)
        // A new pod's explicit preemptionPolicy must agree with the class's
        // (priority admission refuses it otherwise).
        .filter(|pc| {
            trial.existing
                || trial
                    .written
                    .preemption_policy
                    .is_none_or(|p| p == pc.preemption_policy)
        })
        .map(|pc| (pc.value, pc.name.to_string()))
        .collect();
    if classes.is_empty() {
        return;
    }
    classes.sort();
    let edit_for = |(value, name): &(i32, String)| PodEdit::PriorityClass {
        name: name.clone(),
        value: *value,
    };
    let helps = |i: usize| {
        let pod = edit_for(&classes[i]).apply(trial.cluster, &trial.pod, trial.existing);
        trial.check(trial.cluster, &pod, true).is_some()
    };
    // The highest class first: when even it does not help, none does.
    let last = classes.len() - 1;
    if budget.exhausted() || !helps(last) {
        return;
    }
    let (mut lo, mut hi) = (0, last);
    while lo < hi && !budget.exhausted() {
        let mid = lo + (hi - lo) / 2;
        if helps(mid) {
            hi = mid;
        } else {
            lo = mid + 1;
        }
    }
    let class = &classes[hi];
    let change = format!(
        "priorityClassName: {} (priority {}; the pod has {current})",
        class.1, class.0
    );
    try_pod_edit(
        trial,
        RemedyKind::Priority,
        edit_for(class),
        change,
        true,
        report,
    );
}
