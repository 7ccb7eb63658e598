//! Stacked disruption what-ifs: cordon a zone, then drain a node, then lose
//! another zone, each step run on the cluster the previous one left, so an
//! operator can ask "and if that happened too?". Each step is one
//! [`simulate_with`] on the previous step's fork: one copy of the cluster
//! per step (the previous copy is freed), never one per displaced pod.
//!
//! Nodes are named, not numbered: losing a zone renumbers the nodes that
//! stay, so a later step finds its nodes by name in the cluster it runs on.

use super::Scheduler;
use super::disruption::{Disruption, DisruptionPlan, Progress, ZONE_LABEL, simulate_with};
use crate::model::Cluster;

/// One step of a scenario.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Step {
    /// `kubectl drain` of these nodes (by name).
    Drain(Vec<String>),
    CordonZone(String),
    LoseZone(String),
}

impl Step {
    /// How the step reads in a title: `Drain worker-3`, `Lose zone eu-1a`.
    pub fn title(&self) -> String {
        match self {
            Step::Drain(nodes) => format!("Drain {}", nodes.join(", ")),
            Step::CordonZone(z) => format!("Cordon zone {z}"),
            Step::LoseZone(z) => format!("Lose zone {z}"),
        }
    }

    /// The disruption on `cluster`, and the named nodes it does not have
    /// (lost in an earlier step, or never there).
    fn on(&self, cluster: &Cluster) -> (Disruption, Vec<String>) {
        match self {
            Step::Drain(names) => {
                let (found, missing): (Vec<_>, Vec<_>) =
                    names.iter().partition(|n| cluster.node_id(n).is_some());
                let ids = found.iter().filter_map(|n| cluster.node_id(n)).collect();
                (
                    Disruption::Drain(ids),
                    missing.into_iter().cloned().collect(),
                )
            }
            Step::CordonZone(z) => (Disruption::CordonZone(z.clone()), Vec::new()),
            Step::LoseZone(z) => (Disruption::LoseZone(z.clone()), Vec::new()),
        }
    }
}

/// Why `next` would only repeat what one of `earlier` did, on `base`
/// (the cluster before the first step): the same zone lost or cordoned
/// again, a zone cordoned after it was lost, a node drained again or
/// drained after its zone was lost. Such a step would move nothing and
/// read as if nothing happened; it is refused, naming the step (1-based)
/// that did it.
pub fn repeated_step(base: &Cluster, earlier: &[Step], next: &Step) -> Option<String> {
    let zone_of = |node: &str| -> Option<&str> {
        let key = base.interner.lookup(ZONE_LABEL)?;
        let value = base.node(base.node_id(node)?).labels.get(key)?;
        Some(base.interner.resolve(value))
    };
    earlier.iter().enumerate().find_map(|(i, done)| {
        let at = format!("step {}: {}", i + 1, done.title());
        match (done, next) {
            (Step::LoseZone(a), Step::LoseZone(b)) if a == b => {
                Some(format!("zone {b} is already lost ({at})"))
            }
            (Step::LoseZone(a), Step::CordonZone(b)) if a == b => Some(format!(
                "zone {b} is already lost ({at}): it has no nodes left to cordon"
            )),
            (Step::CordonZone(a), Step::CordonZone(b)) if a == b => {
                Some(format!("zone {b} is already cordoned ({at})"))
            }
            (Step::Drain(a), Step::Drain(b)) => b
                .iter()
                .find(|n| a.contains(n))
                .map(|n| format!("node {n} is already drained ({at})")),
            (Step::LoseZone(z), Step::Drain(b)) => b
                .iter()
                .find(|n| zone_of(n) == Some(z.as_str()))
                .map(|n| format!("node {n} was lost with zone {z} ({at})")),
            _ => None,
        }
    })
}

/// What one step did. Its plan's `cluster` is emptied: only the fork
/// after the last step is kept ([`ScenarioRun::cluster`]).
#[derive(Clone, Debug)]
pub struct StepOutcome {
    pub step: Step,
    /// Named nodes the cluster did not have when the step ran.
    pub missing_nodes: Vec<String>,
    pub plan: DisruptionPlan,
}

/// Steps run on a base cluster, and the cluster after the last of them.
#[derive(Clone, Debug, Default)]
pub struct ScenarioRun {
    /// One per completed step, in order.
    pub steps: Vec<StepOutcome>,
    /// The cluster after the last completed step (`None`: none completed).
    pub cluster: Option<Cluster>,
    /// A step was cancelled: it and those after it are left out.
    pub cancelled: bool,
}

/// Runs `steps` in order on `base` (never changed), each on the fork the
/// previous one left; to add steps to a scenario, run them on its fork
/// (`progress.step` counts on from where it is, so set it to the steps
/// already run).
/// One fork is kept (the previous step's is freed), however many steps.
pub fn run(
    base: &Cluster,
    steps: &[Step],
    scheduler: &Scheduler,
    progress: &Progress,
) -> ScenarioRun {
    let mut done = ScenarioRun::default();
    for step in steps {
        progress
            .step
            .fetch_add(1, std::sync::atomic::Ordering::Relaxed);
        let on = done.cluster.as_ref().unwrap_or(base);
        let (disruption, missing_nodes) = step.on(on);
        let mut plan = simulate_with(on, &disruption, scheduler, progress);
        if plan.cancelled {
            done.cancelled = true;
            break;
        }
        done.cluster = Some(std::mem::take(&mut plan.cluster));
        done.steps.push(StepOutcome {
            step: step.clone(),
            missing_nodes,
            plan,
        });
    }
    done
}
