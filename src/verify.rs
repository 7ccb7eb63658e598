//! The trust check behind `kplace verify`: for every pod a recorded timeline
//! saw go from pending to bound, what kplace would have answered at that
//! moment. Was the scheduler's node among kplace's `bestNodes`? Was it at
//! least feasible? And when the binding followed a preemption, were the pods
//! the scheduler evicted the victims kplace picks?
//!
//! It lives in the library (not the CLI) so the TUI can run it on a worker
//! thread, show progress and list the checks that disagree.

use std::collections::BTreeSet;

use rayon::prelude::*;
use rustc_hash::FxHashMap;

use crate::engine::{self, Outcome};
use crate::model::{Cluster, NodeId, Pod};
use crate::source::build::ModelObject;
use crate::source::live::kind::Kind;
use crate::source::timeline::{ObjId, Timeline, VersionId};

/// How long before a nomination a victim's preemption may happen and still
/// count as part of it.
pub const VICTIM_WINDOW_MS: u64 = 30_000;

/// A pending→bound transition found in a timeline: what to check.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Binding {
    /// `namespace/name` of the pod.
    pub pod: String,
    /// Milliseconds into the recording of the binding event.
    pub t: u64,
    /// Index of the binding event in [`Timeline::events`].
    pub event: usize,
    /// The node the scheduler bound the pod to.
    pub node: String,
    /// kplace answers for the state after this many events: just before the
    /// binding, or, after a preemption, just before the first victim went.
    pub predict_at: usize,
    /// After a preemption: the pods on the bound node that were preempted or
    /// deleted within [`VICTIM_WINDOW_MS`] before the pod's nomination.
    pub actual_victims: Option<BTreeSet<String>>,
}

/// A preemption the recording saw, and kplace's answer for it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct PreemptionCheck {
    /// `namespace/name` of the pods the scheduler evicted.
    pub actual_victims: BTreeSet<String>,
    /// `namespace/name` of the pods kplace would evict.
    pub predicted_victims: BTreeSet<String>,
    /// The node kplace would nominate, if it would preempt at all.
    pub predicted_node: Option<String>,
}

impl PreemptionCheck {
    pub fn victims_agree(&self) -> bool {
        self.actual_victims == self.predicted_victims
    }
}

/// One binding the recording saw, and what kplace predicted for it.
#[derive(Clone, Debug, PartialEq)]
pub struct Check {
    /// `namespace/name` of the pod.
    pub pod: String,
    /// Milliseconds into the recording of the binding.
    pub t: u64,
    /// Index of the binding event in [`Timeline::events`].
    pub event: usize,
    /// The moment kplace answered for (events applied): see [`Binding`].
    pub predict_at: usize,
    /// The node the scheduler bound the pod to.
    pub bound: String,
    /// kplace's outcome for the pod at that moment.
    pub outcome: Outcome,
    /// kplace's `bestNodes`.
    pub best: Vec<String>,
    /// How many nodes kplace found feasible.
    pub feasible: usize,
    /// The bound node is among `best` (after a preemption: it is the node
    /// kplace nominates, or among `best`).
    pub in_best: bool,
    /// The bound node is feasible (after a preemption: or `in_best`).
    pub in_feasible: bool,
    /// Set when the binding followed a preemption.
    pub preemption: Option<PreemptionCheck>,
}

impl Check {
    /// kplace picks the same node and, after a preemption, the same victims.
    pub fn agrees(&self) -> bool {
        self.in_best
            && self
                .preemption
                .as_ref()
                .is_none_or(PreemptionCheck::victims_agree)
    }
}

/// Counts over a set of checks.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Summary {
    /// Pods that went from pending to bound (and could be checked).
    pub bindings: usize,
    pub in_best: usize,
    pub in_feasible: usize,
    /// Bindings that followed a preemption.
    pub preemptions: usize,
    /// Of those, how many had the victims kplace predicts.
    pub victims_agree: usize,
    /// Checks that do not [`Check::agrees`].
    pub disagreements: usize,
}

impl Summary {
    pub fn of(checks: &[Check]) -> Summary {
        let pre = checks.iter().filter_map(|c| c.preemption.as_ref());
        Summary {
            bindings: checks.len(),
            in_best: checks.iter().filter(|c| c.in_best).count(),
            in_feasible: checks.iter().filter(|c| c.in_feasible).count(),
            preemptions: pre.clone().count(),
            victims_agree: pre.filter(|p| p.victims_agree()).count(),
            disagreements: checks.iter().filter(|c| !c.agrees()).count(),
        }
    }

    /// Share of bindings whose node was among kplace's best nodes.
    pub fn best_rate(&self) -> f64 {
        rate(self.in_best, self.bindings)
    }

    /// Share of bindings whose node kplace found feasible.
    pub fn feasible_rate(&self) -> f64 {
        rate(self.in_feasible, self.bindings)
    }

    /// Share of preemptions whose victims kplace predicts.
    pub fn victim_rate(&self) -> f64 {
        rate(self.victims_agree, self.preemptions)
    }
}

/// `n / of`, and 1 when there is nothing to compare (nothing disagreed).
pub fn rate(n: usize, of: usize) -> f64 {
    if of == 0 { 1.0 } else { n as f64 / of as f64 }
}

fn pod_of(t: &Timeline, v: VersionId) -> Option<&Pod> {
    match &t.version(v).model {
        Some(ModelObject::Pod(p)) => Some(p.as_ref()),
        _ => None,
    }
}

/// A bound pod that was preempted or deleted: a possible victim.
struct Gone {
    event: usize,
    t: u64,
    node: Option<String>,
    pod: String,
}

/// Finds every pending→bound transition, in event order. One pass over the
/// events; cheap next to [`check`].
pub fn bindings(t: &Timeline) -> Vec<Binding> {
    let mut current: FxHashMap<ObjId, VersionId> = t.objects_after(0);
    // Per pod: the event index where it was first nominated.
    let mut nominated_at: FxHashMap<ObjId, usize> = FxHashMap::default();
    let mut gone: Vec<Gone> = Vec::new();
    let mut out = Vec::new();
    for (i, e) in t.events().iter().enumerate() {
        let (kind, key) = t.key(e.obj);
        if kind == Kind::Pod {
            let before = current.get(&e.obj).and_then(|&v| pod_of(t, v));
            let after = e.version.and_then(|v| pod_of(t, v));
            let was_bound = before.is_some_and(|p| p.node_name.is_some());
            let was_preempted = before.is_some_and(|p| p.preempted_by_scheduler);
            if let Some(b) = before.filter(|p| p.node_name.is_some()) {
                // A victim counts once: when the scheduler marks it
                // (DisruptionTarget), or when it is deleted unmarked.
                let marked = after.is_some_and(|p| p.preempted_by_scheduler) && !was_preempted;
                if e.version.is_none() && !was_preempted || marked {
                    gone.push(Gone {
                        event: i,
                        t: e.t,
                        node: b.node_name.as_deref().map(Into::into),
                        pod: key.into(),
                    });
                }
            }
            if let Some(a) = after {
                if a.node_name.is_none() && a.nominated_node_name.is_some() {
                    nominated_at.entry(e.obj).or_insert(i);
                }
                if before.is_some()
                    && !was_bound
                    && let Some(node) = &a.node_name
                {
                    out.push(binding(t, i, e.obj, key, node, &nominated_at, &gone));
                }
            }
        }
        match e.version {
            Some(v) => current.insert(e.obj, v),
            None => current.remove(&e.obj),
        };
    }
    out
}

/// The binding at event `i`; after a nomination, with the victims that went
/// from the bound node shortly before it.
fn binding(
    t: &Timeline,
    i: usize,
    obj: ObjId,
    key: &str,
    node: &str,
    nominated_at: &FxHashMap<ObjId, usize>,
    gone: &[Gone],
) -> Binding {
    let (predict_at, actual_victims) = match nominated_at.get(&obj) {
        Some(&nom) => {
            let nom_t = t.events()[nom].t;
            let victims: Vec<&Gone> = gone
                .iter()
                .filter(|g| g.event < nom && nom_t.saturating_sub(g.t) <= VICTIM_WINDOW_MS)
                .filter(|g| g.node.as_deref() == Some(node))
                .collect();
            let first = victims.iter().map(|g| g.event).min().unwrap_or(nom);
            let set: BTreeSet<String> = victims.iter().map(|g| g.pod.clone()).collect();
            (first, Some(set))
        }
        None => (i, None),
    };
    Binding {
        pod: key.to_string(),
        t: t.events()[i].t,
        event: i,
        node: node.to_string(),
        predict_at,
        actual_victims,
    }
}

fn names(cluster: &Cluster, ids: &[NodeId]) -> Vec<String> {
    ids.iter()
        .map(|&n| cluster.node(n).name.to_string())
        .collect()
}

/// The release a recording is checked as: `flag` if given, else the server
/// version the recording stored, else its newest kubelet, else the newest
/// supported (see [`crate::source::version::choose`]).
pub fn scheduler_for(t: &Timeline, flag: Option<engine::Version>) -> engine::Scheduler {
    use crate::source::version::{ServerVersion, choose};
    let first = t.state_after(0);
    engine::Scheduler::new(choose(flag, &ServerVersion::of_recording(&first), &first))
}

/// kplace's answer for one binding, from the state at `predict_at`, as the
/// `scheduler` release. `None` when the pod did not exist yet at that moment
/// (nothing to compare).
pub fn check(t: &Timeline, b: &Binding, scheduler: &engine::Scheduler) -> Option<Check> {
    let cluster = t.state_after(b.predict_at);
    let (ns, name) = b.pod.split_once('/')?;
    let id = cluster.find_pod(ns, name)?;
    let answer = engine::place_existing(&cluster, id, scheduler);
    let best = names(&cluster, &answer.best);
    let feasible = names(&cluster, &answer.feasible);
    let preemption = b.actual_victims.as_ref().map(|actual| {
        let pre = answer.preemption.as_ref();
        PreemptionCheck {
            actual_victims: actual.clone(),
            predicted_victims: pre
                .map(|p| p.victims.iter().map(|&v| cluster.pod_key(v)).collect())
                .unwrap_or_default(),
            predicted_node: pre
                .and_then(|p| p.node)
                .map(|n| cluster.node(n).name.to_string()),
        }
    });
    let (in_best, in_feasible) = match &preemption {
        Some(p) => {
            let hit =
                p.predicted_node.as_deref() == Some(b.node.as_str()) || best.contains(&b.node);
            (hit, hit || feasible.contains(&b.node))
        }
        None => (best.contains(&b.node), feasible.contains(&b.node)),
    };
    Some(Check {
        pod: b.pod.clone(),
        t: b.t,
        event: b.event,
        predict_at: b.predict_at,
        bound: b.node.clone(),
        outcome: answer.outcome,
        feasible: feasible.len(),
        best,
        in_best,
        in_feasible,
        preemption,
    })
}

/// Every check of a timeline, in event order.
pub fn checks(t: &Timeline, scheduler: &engine::Scheduler) -> Vec<Check> {
    checks_with_progress(t, scheduler, &mut |_, _| {})
}

/// Like [`checks`], calling `progress(done, total)` on the calling thread
/// after each batch (first with `done = 0`), so a UI can show how far it got.
/// Bindings within a batch are checked in parallel; each rebuilds the
/// cluster at its own moment, which is most of the cost.
pub fn checks_with_progress(
    t: &Timeline,
    scheduler: &engine::Scheduler,
    progress: &mut impl FnMut(usize, usize),
) -> Vec<Check> {
    let found = bindings(t);
    let total = found.len();
    progress(0, total);
    // A few bindings per thread per batch: steady progress, little idling.
    let batch = (rayon::current_num_threads() * 4).max(8);
    let mut out = Vec::with_capacity(total);
    let mut done = 0;
    for chunk in found.chunks(batch) {
        let part: Vec<Option<Check>> = chunk.par_iter().map(|b| check(t, b, scheduler)).collect();
        out.extend(part.into_iter().flatten());
        done += chunk.len();
        progress(done, total);
    }
    out
}
