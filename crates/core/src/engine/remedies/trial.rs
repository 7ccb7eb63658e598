//! Asking the engine again: every remedy is kept only if the edited pod or
//! cluster gets a better answer than the one being remedied.

use std::cell::RefCell;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::Instant;

use super::Question;
use crate::engine::{Outcome, Placement, Scheduler, admission, filter_verdicts, schedule};
use crate::model::{Cluster, Pod};

/// The answer a remedy leads to, with names resolved in the edited cluster.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Verified {
    /// `Scheduled`, or `Preempt` for a pod that could not be placed at all.
    pub outcome: Outcome,
    pub node: Option<String>,
    /// `namespace/name` of the pods the preemption evicts, sorted.
    pub victims: Vec<String>,
}

/// Limits of one kind's search.
pub struct Budget<'a> {
    pub deadline: Instant,
    pub cancel: &'a AtomicBool,
    /// Remedies of this kind worth listing.
    pub max: usize,
}

impl Budget<'_> {
    pub fn exhausted(&self) -> bool {
        self.cancel.load(Ordering::Relaxed) || Instant::now() >= self.deadline
    }
}

/// The pod being remedied, admitted, and the cluster it is asked against.
pub struct Trial<'a> {
    pub cluster: &'a Cluster,
    /// The pod with its priority resolved.
    pub pod: Pod,
    /// The pod as the question gave it (for a new pod: before admission).
    pub written: &'a Pod,
    pub existing: bool,
    pub scheduler: &'a Scheduler,
    pub base: &'a Placement,
    /// A copy of the cluster for kinds that edit it, made on first use;
    /// each kind leaves it as it found it.
    scratch: RefCell<Option<Cluster>>,
}

impl<'a> Trial<'a> {
    pub fn new(
        question: &Question<'a>,
        scheduler: &'a Scheduler,
        base: &'a Placement,
    ) -> Option<Self> {
        let mut pod = question.pod.clone();
        if !question.existing {
            let admitted = admission::admit(question.cluster, question.pod).ok()?;
            pod.priority = Some(admitted.priority);
            pod.preemption_policy = Some(admitted.preemption_policy);
        }
        Some(Trial {
            cluster: question.cluster,
            pod,
            written: question.pod,
            existing: question.existing,
            scheduler,
            base,
            scratch: RefCell::new(None),
        })
    }

    /// Whether the base answer evicts pods (so a remedy must avoid that).
    pub fn base_preempts(&self) -> bool {
        self.base.outcome == Outcome::Preempt
    }

    /// Whether some node passes every filter for `pod` in `cluster`.
    pub fn fits(&self, cluster: &Cluster, pod: &Pod) -> bool {
        filter_verdicts(cluster, pod, self.scheduler).is_some_and(|v| v.iter().any(|r| r.is_ok()))
    }

    /// The full answer on the edited pod or cluster, kept when it is better
    /// than the base: scheduled, or (for a pod that could not be placed at
    /// all, when `allow_preempt`) placed by preemption. The cheap Filter
    /// pass runs first so that a change that does not help costs no
    /// preemption dry run unless preemption is allowed.
    pub fn check(&self, cluster: &Cluster, pod: &Pod, allow_preempt: bool) -> Option<Verified> {
        let fits = self.fits(cluster, pod);
        if !fits && (self.base_preempts() || !allow_preempt) {
            return None;
        }
        let answer = schedule(cluster, pod, self.scheduler);
        self.accept(cluster, &answer)
    }

    /// The verified summary of `answer`, when it improves on the base.
    pub fn accept(&self, cluster: &Cluster, answer: &Placement) -> Option<Verified> {
        let better = match answer.outcome {
            Outcome::Scheduled => true,
            Outcome::Preempt => !self.base_preempts(),
            _ => false,
        };
        if !better {
            return None;
        }
        let mut victims: Vec<String> = answer
            .preemption
            .iter()
            .filter(|_| answer.outcome == Outcome::Preempt)
            .flat_map(|p| p.victims.iter().map(|&v| cluster.pod_key(v)))
            .collect();
        victims.sort();
        Some(Verified {
            outcome: answer.outcome,
            node: answer.node.map(|n| cluster.node(n).name.to_string()),
            victims,
        })
    }

    /// Runs `f` on the scratch copy of the cluster (cloned on first use).
    /// `f` must undo its edits before it returns.
    pub fn with_scratch<R>(&self, f: impl FnOnce(&mut Cluster) -> R) -> R {
        let mut slot = self.scratch.borrow_mut();
        let scratch = slot.get_or_insert_with(|| self.cluster.clone());
        f(scratch)
    }
}
