//! Engine work off the UI thread: one thread answers Placement requests
//! (latest request wins), another works out the outcome of every pending
//! pod for the Overview's counts. Results come back over `mpsc`.

use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::mpsc::{self, Receiver, Sender};
use std::time::Duration;

use crate::engine::{Outcome, Scheduler, place_existing};
use crate::model::{Cluster, PodId};

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
    requests: Sender<PodId>,
    /// Set by a new Placement request: the remedy search under way stops.
    cancel_remedies: Arc<AtomicBool>,
    events: Receiver<WorkerEvent>,
    stop: Arc<AtomicBool>,
}

impl Workers {
    /// Starts the threads; `pending` are the pods whose outcomes to tally;
    /// every answer is the `scheduler` release's.
    pub fn start(cluster: Arc<Cluster>, pending: Vec<PodId>, scheduler: Scheduler) -> Workers {
        let (requests, request_rx) = mpsc::channel::<PodId>();
        let (event_tx, events) = mpsc::channel();
        let stop = Arc::new(AtomicBool::new(false));

        let c = cluster.clone();
        let tx = event_tx.clone();
        let version = scheduler.clone();
        let cancel_remedies = Arc::new(AtomicBool::new(false));
        let cancel = cancel_remedies.clone();
        let _ = std::thread::Builder::new()
            .name("kplace-placement".into())
            .spawn(move || {
                while let Ok(mut pod) = request_rx.recv() {
                    // Only the latest request matters: the user moved on.
                    while let Ok(newer) = request_rx.try_recv() {
                        pod = newer;
                    }
                    cancel.store(false, Ordering::Relaxed);
                    let asked = crate::engine::ExistingQuestion::new(&c, pod);
                    let mut answer = crate::engine::schedule(&asked.cluster, &asked.pod, &version);
                    answer.notes.extend(asked.note.clone());
                    let report = Arc::new(report::build(&c, &answer, c.pod(pod).node.is_some()));
                    if tx.send(WorkerEvent::Placement { pod, report }).is_err() {
                        break;
                    }
                    if crate::engine::remedies::applies_to(&answer)
                        && remedies(&asked, pod, &answer, &version, &cancel, &tx).is_err()
                    {
                        break;
                    }
                }
            });

        let stop_flag = stop.clone();
        let _ = std::thread::Builder::new()
            .name("kplace-outcomes".into())
            .spawn(move || {
                for pod in pending {
                    if stop_flag.load(Ordering::Relaxed) {
                        break;
                    }
                    let answer = place_existing(&cluster, pod, &scheduler);
                    let node = answer.node.map(|n| cluster.node(n).name.to_string());
                    if event_tx
                        .send(WorkerEvent::Outcome {
                            pod,
                            outcome: answer.outcome,
                            node,
                        })
                        .is_err()
                    {
                        break;
                    }
                }
            });
        Workers {
            requests,
            cancel_remedies,
            events,
            stop,
        }
    }

    pub fn request_placement(&self, pod: PodId) {
        self.cancel_remedies.store(true, Ordering::Relaxed);
        let _ = self.requests.send(pod);
    }

    pub fn try_recv(&self) -> Option<WorkerEvent> {
        self.events.try_recv().ok()
    }

    pub fn recv_timeout(&self, timeout: Duration) -> Option<WorkerEvent> {
        self.events.recv_timeout(timeout).ok()
    }

    /// Stops the outcome tally (it checks between pods).
    pub fn stop_background(&self) {
        self.stop.store(true, Ordering::Relaxed);
    }

    pub fn background_stopped(&self) -> bool {
        self.stop.load(Ordering::Relaxed)
    }
}

/// The remedy search for the pod just answered, reporting each kind it
/// tries; a cancelled search sends nothing more (the next pod's comes).
fn remedies(
    asked: &crate::engine::ExistingQuestion,
    pod: PodId,
    answer: &crate::engine::Placement,
    scheduler: &Scheduler,
    cancel: &AtomicBool,
    tx: &Sender<WorkerEvent>,
) -> Result<(), mpsc::SendError<WorkerEvent>> {
    use crate::engine::remedies::{Bounds, Progress, Question, search};
    let question = Question {
        cluster: &asked.cluster,
        pod: &asked.pod,
        existing: true,
    };
    let mut sent = Ok(());
    let found = search(
        &question,
        scheduler,
        answer,
        &Bounds::default(),
        cancel,
        &mut |p| {
            if let Progress::Trying { kind, step, steps } = p
                && sent.is_ok()
            {
                sent = tx.send(WorkerEvent::Remedies {
                    pod,
                    panel: Arc::new(RemedyPanel::searching(step, steps, kind)),
                    done: false,
                });
            }
        },
    );
    sent?;
    if cancel.load(Ordering::Relaxed) {
        return Ok(());
    }
    tx.send(WorkerEvent::Remedies {
        pod,
        panel: Arc::new(RemedyPanel::from(&found)),
        done: true,
    })
}

impl Drop for Workers {
    fn drop(&mut self) {
        self.stop_background();
    }
}
