//! "So what do I change?": the smallest changes that make a pending pod
//! schedule, or schedule without evicting anyone. Not an upstream plugin:
//! kplace's own search around the scheduler. Every remedy is a concrete
//! edit (of the pod, a node, or the cluster) that was **verified** by
//! asking the engine again on the edited pod or cluster; nothing is guessed
//! from the reasons, which only choose what is worth trying.
//!
//! The search tries the cheap kinds first (node state, the pod's
//! constraints, its size) and the costly ones last (new nodes, moving
//! pods, priority with a preemption dry run), reports each remedy as it is
//! found, and stops at a deadline or when cancelled.

mod capacity;
mod constraints;
mod edit;
mod moves;
mod node_state;
mod priority;
mod resize;
mod trial;

pub use edit::{ClusterEdit, Edit, NodeCopy, PodEdit, PodMove, Undo};
pub use resize::quantity_text;
pub use trial::Verified;

use std::sync::atomic::{AtomicBool, Ordering};
use std::time::{Duration, Instant};

use super::{Outcome, Placement, Scheduler};
use crate::model::{Cluster, Pod};
use trial::Trial;

/// The kinds of change, in the order the search tries them and the order
/// equal-cost remedies are listed.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum RemedyKind {
    Uncordon,
    Untaint,
    Tolerate,
    RelaxSpread,
    RelaxAffinity,
    Resize,
    MovePods,
    AddNode,
    Priority,
}

impl RemedyKind {
    /// The name in `place -o json`'s `remedies[].kind`.
    pub fn as_str(self) -> &'static str {
        match self {
            RemedyKind::Uncordon => "uncordon",
            RemedyKind::Untaint => "untaint",
            RemedyKind::Tolerate => "tolerate",
            RemedyKind::RelaxSpread => "relax-spread",
            RemedyKind::RelaxAffinity => "relax-affinity",
            RemedyKind::Resize => "resize",
            RemedyKind::MovePods => "move-pods",
            RemedyKind::AddNode => "add-node",
            RemedyKind::Priority => "priority",
        }
    }
}

/// One verified change and the answer it leads to.
#[derive(Clone, Debug)]
pub struct Remedy {
    pub kind: RemedyKind,
    /// What to change, applicable to the pod manifest or the snapshot.
    pub edit: Edit,
    /// One line for an operator: "add 1 node like worker-c01 (zone eu-west-1c)".
    pub change: String,
    /// The engine's answer on the edited pod or cluster.
    pub result: Verified,
}

impl Remedy {
    /// Pods other than the incoming one that the change disturbs: moved
    /// pods and victims.
    pub fn pods_touched(&self) -> usize {
        self.result.victims.len() + self.edit.moved_pods()
    }

    /// How the list is ordered: no evictions first, then fewest pods
    /// touched, then fewest new nodes, then the kind.
    fn rank(&self) -> (bool, usize, usize, RemedyKind) {
        (
            !self.result.victims.is_empty(),
            self.pods_touched(),
            self.edit.new_nodes(),
            self.kind,
        )
    }
}

/// How far the search may go.
#[derive(Clone, Debug)]
pub struct Bounds {
    /// Stop looking (what was found is kept) after this long.
    pub time: Duration,
    /// At most this many remedies are listed.
    pub max_remedies: usize,
    /// At most this many of one kind.
    pub max_per_kind: usize,
}

impl Default for Bounds {
    fn default() -> Self {
        Bounds {
            time: Duration::from_secs(5),
            max_remedies: 6,
            max_per_kind: 2,
        }
    }
}

/// What the search reports while it runs.
pub enum Progress<'a> {
    /// Now trying this kind (`step` of `steps`).
    Trying {
        kind: RemedyKind,
        step: usize,
        steps: usize,
    },
    Found(&'a Remedy),
}

/// The search's answer.
#[derive(Clone, Debug, Default)]
pub struct Remedies {
    /// Best first.
    pub remedies: Vec<Remedy>,
    /// Plain statements that are not changes: "larger than every node",
    /// "no remedy found within the search bounds", what was not tried.
    pub notes: Vec<String>,
    /// Every kind was tried before the deadline (and no cancel).
    pub complete: bool,
}

/// Whether an answer is one remedies are searched for: a pod that cannot be
/// placed, or that can only be placed by evicting others.
pub fn applies_to(answer: &Placement) -> bool {
    matches!(answer.outcome, Outcome::Unschedulable | Outcome::Preempt)
}

/// The question remedies answer about: the cluster the pod is asked
/// against and the pod, already admitted (its priority resolved, as
/// [`super::schedule`] expects). For a new pod pass `admitted: false` and
/// the pod as written: priority admission runs first, as `place` does.
pub struct Question<'a> {
    pub cluster: &'a Cluster,
    pub pod: &'a Pod,
    /// The pod is already in the API (a snapshot pod): its priority is
    /// resolved and a priority change must drop `spec.priority`.
    pub existing: bool,
}

/// Searches for remedies to `base` (the engine's answer to `question`).
/// `on_progress` hears of each kind tried and each remedy found; `cancel`
/// stops the search between trials.
pub fn search(
    question: &Question,
    scheduler: &Scheduler,
    base: &Placement,
    bounds: &Bounds,
    cancel: &AtomicBool,
    on_progress: &mut dyn FnMut(Progress),
) -> Remedies {
    let mut out = Remedies::default();
    if !applies_to(base) {
        return out;
    }
    let Some(trial) = Trial::new(question, scheduler, base) else {
        return out;
    };
    let deadline = Instant::now() + bounds.time;
    out.notes.extend(resize::larger_than_every_node(&trial));
    const STEPS: [RemedyKind; 9] = [
        RemedyKind::Uncordon,
        RemedyKind::Untaint,
        RemedyKind::Tolerate,
        RemedyKind::RelaxSpread,
        RemedyKind::RelaxAffinity,
        RemedyKind::Resize,
        RemedyKind::AddNode,
        RemedyKind::MovePods,
        RemedyKind::Priority,
    ];
    let mut found: Vec<Remedy> = Vec::new();
    let mut stopped = false;
    for (step, kind) in STEPS.into_iter().enumerate() {
        if cancel.load(Ordering::Relaxed) || Instant::now() >= deadline {
            stopped = true;
            break;
        }
        on_progress(Progress::Trying {
            kind,
            step: step + 1,
            steps: STEPS.len(),
        });
        let budget = trial::Budget {
            deadline,
            cancel,
            max: bounds.max_per_kind,
        };
        let mut report = |r: Remedy| {
            on_progress(Progress::Found(&r));
            found.push(r);
        };
        match kind {
            RemedyKind::Uncordon => node_state::uncordon(&trial, &budget, &mut report),
            RemedyKind::Untaint => node_state::untaint(&trial, &budget, &mut report),
            RemedyKind::Tolerate => constraints::tolerate(&trial, &budget, &mut report),
            RemedyKind::RelaxSpread => constraints::relax_spread(&trial, &budget, &mut report),
            RemedyKind::RelaxAffinity => constraints::relax_affinity(&trial, &budget, &mut report),
            RemedyKind::Resize => resize::resize(&trial, &budget, &mut report),
            RemedyKind::AddNode => capacity::add_node(&trial, &budget, &mut report),
            RemedyKind::MovePods => moves::move_pods(&trial, &budget, &mut report),
            RemedyKind::Priority => priority::priority(&trial, &budget, &mut report),
        }
    }
    found.sort_by_key(|r| r.rank());
    found.truncate(bounds.max_remedies);
    out.complete = !stopped && !cancel.load(Ordering::Relaxed) && Instant::now() < deadline;
    if found.is_empty() {
        out.notes.push(if out.complete {
            "no remedy found within the search bounds: no single change kplace tries (uncordon or untaint a node, tolerate a taint, relax a spread constraint or a required (anti-)affinity, smaller requests, move up to 3 pods, add 1 node like an existing one, a higher PriorityClass) makes the pod schedule".to_string()
        } else {
            format!(
                "no remedy found before the search stopped ({}s)",
                bounds.time.as_secs_f32()
            )
        });
    } else if !out.complete {
        out.notes.push(format!(
            "the search stopped after {}s: other remedies may exist",
            bounds.time.as_secs_f32()
        ));
    }
    out.remedies = found;
    out
}
