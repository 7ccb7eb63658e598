//! Engine work off the UI thread: one thread answers Placement requests
//! (latest request wins), another works out the outcome of every pending
//! pod for the Overview's counts. Results come back over `mpsc`.

use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::mpsc::{self, Receiver, Sender};
use std::time::Duration;

use crate::engine::{Outcome, Scheduler, place_existing};
use crate::model::{Cluster, PodId};

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
}

pub struct Workers {
    requests: Sender<PodId>,
    events: Receiver<WorkerEvent>,
    stop: Arc<AtomicBool>,
}

/// Answers for one pod of the snapshot as the `scheduler` release, as the
/// Placement view shows it.
pub fn placement_report(cluster: &Cluster, pod: PodId, scheduler: &Scheduler) -> PlacementReport {
    let answer = place_existing(cluster, pod, scheduler);
    report::build(cluster, &answer, cluster.pod(pod).node.is_some())
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
        let _ = std::thread::Builder::new()
            .name("kplace-placement".into())
            .spawn(move || {
                while let Ok(mut pod) = request_rx.recv() {
                    // Only the latest request matters: the user moved on.
                    while let Ok(newer) = request_rx.try_recv() {
                        pod = newer;
                    }
                    let report = Arc::new(placement_report(&c, pod, &version));
                    if tx.send(WorkerEvent::Placement { pod, report }).is_err() {
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
            events,
            stop,
        }
    }

    pub fn request_placement(&self, pod: PodId) {
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

impl Drop for Workers {
    fn drop(&mut self) {
        self.stop_background();
    }
}
