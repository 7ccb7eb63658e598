//! Engine work off the UI thread, as two [`Job`]s: one answers Placement
//! requests (latest request wins) and searches remedies, the other works
//! out the outcome of every pending pod for the Overview's counts.

use std::sync::Arc;
use std::time::Duration;

use crate::engine::{Outcome, Scheduler, place_existing};
use crate::model::{Cluster, PodId};

use super::job::{Ctx, Job};
use super::remedies::RemedyPanel;
use super::report::{self, PlacementReport};

pub enum WorkerEvent {
    Placement {
        pod: PodId,
        report: Arc<PlacementReport>,
    },
    Outcome {
        pod: PodId,
        outcome: Outcome,
        node: Option<String>,
    },
    /// The remedy search for the pod in Placement: progress, then the list.
    Remedies {
        pod: PodId,
        panel: Arc<RemedyPanel>,
        done: bool,
    },
}

pub struct Workers {
    /// Placement requests, latest first; a new one stops the remedy search
    /// under way.
    placement: Job<PodId, WorkerEvent>,
    /// The outcome of every pending pod, for the Overview's counts.
    outcomes: Job<(), WorkerEvent>,
}

impl Workers {
    /// Starts the jobs; `pending` are the pods whose outcomes to tally;
    /// every answer is the `scheduler` release's.
    pub fn start(cluster: Arc<Cluster>, pending: Vec<PodId>, scheduler: Scheduler) -> Workers {
        let c = cluster.clone();
        let version = scheduler.clone();
        let placement = Job::spawn("placement", move |pod, ctx: &Ctx<WorkerEvent>| {
            let asked = crate::engine::ExistingQuestion::new(&c, pod);
            let mut answer = crate::engine::schedule(&asked.cluster, &asked.pod, &version);
            answer.notes.extend(asked.note.clone());
            let report = Arc::new(report::build(&c, &answer, Some(c.pod(pod).node.is_some())));
            if ctx.send(WorkerEvent::Placement { pod, report })
                && crate::engine::remedies::applies_to(&answer)
            {
                remedies(&asked, pod, &answer, &version, ctx);
            }
        });
        let outcomes = Job::once("outcomes", move |ctx: &Ctx<WorkerEvent>| {
            for pod in pending {
                if ctx.cancelled() {
                    break;
                }
                let answer = place_existing(&cluster, pod, &scheduler);
                let node = answer.node.map(|n| cluster.node(n).name.to_string());
                let outcome = answer.outcome;
                if !ctx.send(WorkerEvent::Outcome { pod, outcome, node }) {
                    break;
                }
            }
        });
        Workers {
            placement,
            outcomes,
        }
    }

    pub fn request_placement(&self, pod: PodId) {
        self.placement.request(pod);
    }

    /// The next result of either job.
    pub fn try_recv(&self) -> Option<WorkerEvent> {
        self.placement
            .try_recv()
            .or_else(|| self.outcomes.try_recv())
    }

    /// Blocks up to `timeout` for the next result (tests, benchmarks).
    pub fn recv_timeout(&self, timeout: Duration) -> Option<WorkerEvent> {
        let deadline = std::time::Instant::now() + timeout;
        loop {
            if let Some(e) = self.try_recv() {
                return Some(e);
            }
            let now = std::time::Instant::now();
            if now >= deadline {
                return None;
            }
            std::thread::sleep((deadline - now).min(Duration::from_millis(5)));
        }
    }

    /// Why a job is not working (a thread that could not start or died).
    pub fn failure(&self) -> Option<String> {
        self.placement.failure().or_else(|| self.outcomes.failure())
    }

    /// Stops the outcome tally (it checks between pods).
    pub fn stop_background(&self) {
        self.outcomes.cancel();
    }

    pub fn background_stopped(&self) -> bool {
        self.outcomes.is_cancelled()
    }
}

/// The remedy search for the pod just answered, reporting each kind it
/// tries; a cancelled search sends nothing more (the next pod's comes).
fn remedies(
    asked: &crate::engine::ExistingQuestion,
    pod: PodId,
    answer: &crate::engine::Placement,
    scheduler: &Scheduler,
    ctx: &Ctx<WorkerEvent>,
) {
    use crate::engine::remedies::{Bounds, Progress, Question, search};
    let question = Question {
        cluster: &asked.cluster,
        pod: &asked.pod,
        existing: true,
    };
    let mut listening = true;
    let found = search(
        &question,
        scheduler,
        answer,
        &Bounds::default(),
        ctx.cancel_flag(),
        &mut |p| {
            if let Progress::Trying { kind, step, steps } = p
                && listening
            {
                listening = ctx.send(WorkerEvent::Remedies {
                    pod,
                    panel: Arc::new(RemedyPanel::searching(step, steps, kind)),
                    done: false,
                });
            }
        },
    );
    if listening && !ctx.cancelled() {
        ctx.send(WorkerEvent::Remedies {
            pod,
            panel: Arc::new(RemedyPanel::from(&found)),
            done: true,
        });
    }
}

impl Drop for Workers {
    fn drop(&mut self) {
        self.stop_background();
    }
}
