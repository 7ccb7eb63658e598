//! What-if engine work off the UI thread: the draft's placement, its
//! replicas, and disruption plans. Latest request of each kind wins.
//!
//! The draft is parsed on the UI thread with a copy of the cluster's
//! interner. When it names no new string the parsed pod is valid against
//! the shared snapshot as is; otherwise the worker takes a private copy of
//! the snapshot once and re-parses the draft there, so the new strings are
//! interned where the engine resolves them. The snapshot is never changed.

use std::sync::Arc;
use std::time::{Duration, Instant};

use crate::engine::place;
use crate::engine::replicas::place_replicas;
use crate::engine::scenario::{self, Step};
use crate::engine::statefulset::with_missing_claims;
use crate::model::dra::ResourceClaim;
use crate::model::{Cluster, NodeId, Pod, PodId};
use crate::source::file::load_pod_with_claims_bytes;

use super::draft::{DRAFT_FILE, clean_error};
use super::plans::{self, Summary};
use crate::app::report::{self, Line, PlacementReport};
use crate::engine::remedies::{ClusterEdit, Undo};

/// A parsed draft and how to get it onto the worker's cluster.
#[derive(Clone, Debug)]
pub struct DraftPod {
    pub pod: Pod,
    /// The snapshot's pod the draft stands for, taken off its node first
    /// (and its template claims made anew), as its Placement answers.
    pub exclude: Option<PodId>,
    /// The draft's ResourceClaims (they replace the snapshot's of the same
    /// name for this answer).
    pub claims: Vec<ResourceClaim>,
    pub yaml: String,
    /// Parsed without new strings: valid against the shared snapshot.
    pub fresh: bool,
    /// A remedy's change to the cluster, made for this answer, and its
    /// wording.
    pub cluster_edit: Option<(ClusterEdit, String)>,
    /// A workload draft's controllers (they join the cluster's owners, in
    /// place of any of the same kind and name).
    pub controllers: Vec<serde_json::Value>,
    /// A DaemonSet's pod: its replicas are the pod pinned to every node
    /// the controller would run one on.
    pub daemon: bool,
    /// The scenario the answer is asked on (empty: the snapshot as it is);
    /// the draft is placed on the cluster its steps leave, and on the
    /// unchanged snapshot to say what the scenario changed.
    pub scenario: Vec<Step>,
}

/// What a request asks of the engine.
pub enum Question {
    Place(DraftPod),
    Replicas(DraftPod, usize),
    /// How many more of the draft fit (`:replicas max`).
    Capacity(DraftPod),
    /// Run these steps, each on the cluster the one before left (the
    /// steps already run for the previous request are not run again).
    Scenario(Vec<Step>, Arc<crate::engine::disruption::Progress>),
}

pub struct Request {
    pub seq: u64,
    pub question: Question,
    /// The release to answer as (the app's, when the request was made).
    pub scheduler: crate::engine::Scheduler,
}

pub enum Answer {
    Place {
        seq: u64,
        report: Arc<PlacementReport>,
        summary: Summary,
        /// With a scenario: the same draft's answer on the unchanged
        /// snapshot, to diff against.
        unchanged: Option<Summary>,
        took: Duration,
    },
    Replicas {
        seq: u64,
        lines: Vec<Line>,
    },
    Scenario {
        seq: u64,
        table: plans::DisruptionTable,
        /// How many of the steps asked for were run (fewer when cancelled).
        completed: usize,
    },
    Failed {
        seq: u64,
        error: String,
    },
}

pub struct WhatIfWorker {
    job: crate::app::job::Job<Request, Answer>,
}

/// The worker's state between requests: the snapshot, and the scenario
/// last run on it.
struct Worker {
    unchanged: Clusters,
    scenario: Option<Scenario>,
}

/// Steps run on the snapshot, and the cluster they leave (drafts are
/// answered on it).
struct Scenario {
    steps: Vec<Step>,
    run: scenario::ScenarioRun,
    scheduler: crate::engine::Scheduler,
    clusters: Clusters,
}

/// What the worker answers on: the shared snapshot, and a private copy
/// made once a draft needs the cluster changed (a pod taken off, claims).
struct Clusters {
    shared: Arc<Cluster>,
    owned: Option<Cluster>,
    /// `owned.dra` holds a draft's claims (it differs from the snapshot's).
    owned_dra_changed: bool,
    /// `owned.owners` holds a draft's controllers.
    owned_owners_changed: bool,
    /// The pod taken off its node in `owned`, and that node.
    unbound: Option<(PodId, NodeId)>,
    /// The remedy's cluster change made in `owned`, to undo when it changes.
    applied: Option<(ClusterEdit, Undo)>,
}

impl Clusters {
    fn on(shared: Arc<Cluster>) -> Clusters {
        Clusters {
            shared,
            owned: None,
            owned_dra_changed: false,
            owned_owners_changed: false,
            unbound: None,
            applied: None,
        }
    }

    /// The cluster and pod to ask about: the shared snapshot, or a private
    /// copy (taken once) when the draft names new strings or brings
    /// ResourceClaims, which join the copy's claims for this answer.
    /// The note says which pod was taken off where, when one was.
    fn resolve(&mut self, d: DraftPod) -> Result<(&Cluster, Pod, Option<String>), String> {
        let exclude = d
            .exclude
            .filter(|&id| (id as usize) < self.shared.pods.len())
            .filter(|&id| self.shared.pod(id).node.is_some());
        if self.owned.is_none()
            && d.fresh
            && d.claims.is_empty()
            && d.controllers.is_empty()
            && exclude.is_none()
            && d.cluster_edit.is_none()
        {
            return Ok((&self.shared, d.pod, None));
        }
        let owned = self.owned.get_or_insert_with(|| (*self.shared).clone());
        // Undo an earlier answer's cluster change unless it is this one's.
        let wanted = d.cluster_edit.as_ref().map(|(e, _)| e);
        if self.applied.as_ref().map(|(e, _)| e) != wanted
            && let Some((_, undo)) = self.applied.take()
        {
            undo.revert(owned);
        }
        // Put back a pod taken off for an earlier draft; take this one off.
        if let Some((prev, node)) = self.unbound
            && Some(prev) != exclude
        {
            owned.bind_pod(prev, node);
            self.unbound = None;
        }
        if let Some(id) = exclude
            && self.unbound.is_none()
            && let Some(node) = owned.pod(id).node
        {
            owned.unbind_pod(id);
            self.unbound = Some((id, node));
        }
        let (pod, draft_claims) = if d.fresh {
            (d.pod, d.claims)
        } else {
            load_pod_with_claims_bytes(d.yaml.as_bytes(), DRAFT_FILE, &mut owned.interner)
                .map_err(|e| clean_error(&e.to_string()))?
        };
        if let Some((edit, _)) = &d.cluster_edit
            && self.applied.is_none()
        {
            let undo = edit
                .apply(owned)
                .ok_or("the change names a node or pod the cluster no longer has")?;
            self.applied = Some((edit.clone(), undo));
        }
        let mut claims = exclude
            .map(|id| crate::engine::regenerated_claims(&self.shared, self.shared.pod(id)))
            .unwrap_or_default();
        let mut note = exclude
            .map(|id| crate::engine::rescheduled_note(self.shared.pod(id), !claims.is_empty()));
        if let Some((_, change)) = &d.cluster_edit {
            let with = format!("the cluster in this answer has one change: {change}");
            note = Some(match note {
                Some(n) => format!("{n}; {with}"),
                None => with,
            });
        }
        claims.extend(draft_claims);
        if !d.controllers.is_empty() {
            let draft_owners = crate::source::file::load_owner_values(
                &d.controllers,
                DRAFT_FILE,
                &mut owned.interner,
            )
            .map_err(|e| clean_error(&e.to_string()))?;
            let mut owners = self.shared.owners.to_vec();
            owners.retain(|o| {
                !draft_owners
                    .iter()
                    .any(|n| n.kind == o.kind && n.namespace == o.namespace && n.name == o.name)
            });
            owners.extend(draft_owners);
            owned.owners = Arc::new(owners);
            self.owned_owners_changed = true;
        } else if self.owned_owners_changed {
            owned.owners = self.shared.owners.clone();
            self.owned_owners_changed = false;
        }
        if !claims.is_empty() {
            owned.dra = self.shared.dra.with_claims(claims);
            self.owned_dra_changed = true;
        } else if self.owned_dra_changed {
            owned.dra = self.shared.dra.clone();
            self.owned_dra_changed = false;
        }
        Ok((owned, pod, note))
    }

    /// The draft's placement, with the note saying it is a pod
    /// rescheduled; the report, and the summary changes are measured by.
    fn place(
        &mut self,
        d: DraftPod,
        scheduler: &crate::engine::Scheduler,
        scenario_note: Option<String>,
    ) -> Result<(Arc<PlacementReport>, Summary), String> {
        let (cluster, pod, rescheduled) = self.resolve(d)?;
        // A new StatefulSet replica comes with the claims its set's
        // templates create.
        let (cluster, note) = with_missing_claims(cluster, &pod);
        let cluster = &*cluster;
        let mut answer = place(cluster, &pod, scheduler);
        answer.notes.extend(note);
        answer.notes.extend(rescheduled);
        answer.notes.extend(scenario_note);
        let summary = plans::summary(cluster, &answer);
        let report = Arc::new(report::build(cluster, &answer, None));
        Ok((report, summary))
    }
}

impl Worker {
    /// The clusters a draft is answered on: the scenario's when `steps` are
    /// the scenario run (else the snapshot's), and whether they are.
    fn clusters_for(&mut self, steps: &[Step]) -> (&mut Clusters, bool) {
        match &mut self.scenario {
            Some(s) if !steps.is_empty() && s.steps == steps => (&mut s.clusters, true),
            _ => (&mut self.unchanged, false),
        }
    }

    fn place(
        &mut self,
        d: DraftPod,
        seq: u64,
        scheduler: &crate::engine::Scheduler,
        started: Instant,
    ) -> Answer {
        let steps = d.scenario.clone();
        let (clusters, on_scenario) = self.clusters_for(&steps);
        let note = on_scenario.then(|| {
            format!(
                "answered on the cluster the scenario leaves: {}",
                steps
                    .iter()
                    .map(Step::title)
                    .collect::<Vec<_>>()
                    .join(", then ")
            )
        });
        let (report, summary) = match clusters.place(d.clone(), scheduler, note) {
            Ok(r) => r,
            Err(error) => return Answer::Failed { seq, error },
        };
        let unchanged = if on_scenario {
            match self.unchanged.place(d, scheduler, None) {
                Ok((_, s)) => Some(s),
                Err(error) => return Answer::Failed { seq, error },
            }
        } else {
            None
        };
        Answer::Place {
            seq,
            report,
            summary,
            unchanged,
            took: started.elapsed(),
        }
    }

    /// Runs `steps` on the snapshot, reusing the scenario already run when
    /// its steps begin them (and it was run as the same release).
    fn scenario(
        &mut self,
        steps: Vec<Step>,
        scheduler: &crate::engine::Scheduler,
        progress: &crate::engine::disruption::Progress,
    ) -> (plans::DisruptionTable, usize) {
        let reusable = self.scenario.take().filter(|s| {
            &s.scheduler == scheduler && s.steps.len() <= steps.len() && steps.starts_with(&s.steps)
        });
        let (mut run, base) = match reusable {
            Some(s) if s.steps == steps => {
                self.scenario = Some(s);
                let s = self.scenario.as_ref().expect("just set");
                let table = plans::scenario_table(&s.clusters.shared, &s.run, &steps);
                return (table, steps.len());
            }
            Some(s) => (s.run, s.clusters.shared),
            None => (
                scenario::ScenarioRun::default(),
                self.unchanged.shared.clone(),
            ),
        };
        progress
            .step
            .store(run.steps.len(), std::sync::atomic::Ordering::Relaxed);
        // Each placement frees what the next one allocates again; with the
        // pages held, they are reused instead of returned and faulted back
        // in (a :lose ZONE took 20,000 page faults, each zeroing memory).
        // Whatever stays free is returned when the guard drops.
        let held = crate::allocator::hold_pages();
        let more = scenario::run(&base, &steps[run.steps.len()..], scheduler, progress);
        run.steps.extend(more.steps);
        run.cancelled = more.cancelled;
        let fork = match more.cluster {
            Some(c) => Arc::new(c),
            None => base,
        };
        let completed = run.steps.len();
        let table = plans::scenario_table(&fork, &run, &steps);
        drop(held);
        if completed > 0 {
            self.scenario = Some(Scenario {
                steps: steps[..completed].to_vec(),
                run,
                scheduler: scheduler.clone(),
                clusters: Clusters::on(fork),
            });
        }
        (table, completed)
    }

    fn run(&mut self, r: Request) -> Answer {
        let seq = r.seq;
        let scheduler = r.scheduler;
        let started = Instant::now();
        match r.question {
            Question::Place(d) => self.place(d, seq, &scheduler, started),
            Question::Replicas(d, _) if d.daemon => {
                let steps = d.scenario.clone();
                match self.clusters_for(&steps).0.resolve(d) {
                    Ok((cluster, pod, _)) => {
                        let daemon =
                            crate::engine::daemonset::place_daemon_pods(cluster, &pod, &scheduler);
                        Answer::Replicas {
                            seq,
                            lines: plans::daemon_lines(cluster, &pod, &daemon),
                        }
                    }
                    Err(error) => Answer::Failed { seq, error },
                }
            }
            Question::Replicas(d, n) => {
                let steps = d.scenario.clone();
                match self.clusters_for(&steps).0.resolve(d) {
                    Ok((cluster, pod, _)) => {
                        let plan = place_replicas(cluster, &pod, n, &scheduler);
                        Answer::Replicas {
                            seq,
                            lines: plans::replica_lines(cluster, &pod, n, &plan),
                        }
                    }
                    Err(error) => Answer::Failed { seq, error },
                }
            }
            Question::Capacity(d) => {
                let steps = d.scenario.clone();
                match self.clusters_for(&steps).0.resolve(d) {
                    Ok((cluster, pod, _)) => {
                        let runs: Vec<_> = [false, true]
                            .into_iter()
                            .map(|preempt| {
                                crate::engine::replicas::capacity(
                                    cluster,
                                    &pod,
                                    &scheduler,
                                    preempt,
                                    crate::engine::replicas::MAX_COUNTED,
                                    &mut |_| true,
                                )
                            })
                            .collect();
                        Answer::Replicas {
                            seq,
                            lines: plans::capacity_lines(cluster, &pod, &runs),
                        }
                    }
                    Err(error) => Answer::Failed { seq, error },
                }
            }
            Question::Scenario(steps, progress) => {
                let (table, completed) = self.scenario(steps, &scheduler, &progress);
                Answer::Scenario {
                    seq,
                    table,
                    completed,
                }
            }
        }
    }
}

impl WhatIfWorker {
    pub fn start(cluster: Arc<Cluster>) -> WhatIfWorker {
        let mut worker = Worker {
            unchanged: Clusters::on(cluster),
            scenario: None,
        };
        // Only the latest request of each kind matters.
        let kind = |r: &Request| match r.question {
            Question::Place(_) => 0,
            Question::Replicas(..) | Question::Capacity(_) => 1,
            Question::Scenario(..) => 2,
        };
        let job = crate::app::job::Job::spawn_by_kind("whatif", kind, move |r, out| {
            out.send(worker.run(r));
        });
        WhatIfWorker { job }
    }

    pub fn send(&self, r: Request) {
        self.job.request(r);
    }

    pub fn try_recv(&self) -> Option<Answer> {
        self.job.try_recv()
    }

    /// Why no answer will come: the worker could not start or died.
    pub fn failure(&self) -> Option<String> {
        self.job.failure()
    }
}
