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

use crate::engine::disruption::{Disruption, simulate_with};
use crate::engine::place;
use crate::engine::replicas::place_replicas;
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
}

pub enum Job {
    Place(DraftPod),
    Replicas(DraftPod, usize),
    /// How many more of the draft fit (`:replicas max`).
    Capacity(DraftPod),
    Disrupt(Disruption, String, Arc<crate::engine::disruption::Progress>),
}

pub struct Request {
    pub seq: u64,
    pub job: Job,
    /// The release to answer as (the app's, when the request was made).
    pub scheduler: crate::engine::Scheduler,
}

pub enum Answer {
    Place {
        seq: u64,
        report: Arc<PlacementReport>,
        summary: Summary,
        took: Duration,
    },
    Replicas {
        seq: u64,
        lines: Vec<Line>,
    },
    Disrupt {
        seq: u64,
        table: plans::DisruptionTable,
    },
    Failed {
        seq: u64,
        error: String,
    },
}

pub struct WhatIfWorker {
    job: crate::app::job::Job<Request, Answer>,
}

struct Ctx {
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

impl Ctx {
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
            let mut owners = self.shared.owners.clone();
            owners.retain(|o| {
                !draft_owners
                    .iter()
                    .any(|n| n.kind == o.kind && n.namespace == o.namespace && n.name == o.name)
            });
            owners.extend(draft_owners);
            owned.owners = owners;
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

    /// The draft's placement, with the note saying it is a pod rescheduled.
    fn place(
        &mut self,
        d: DraftPod,
        seq: u64,
        scheduler: &crate::engine::Scheduler,
        started: Instant,
    ) -> Answer {
        let (cluster, pod, rescheduled) = match self.resolve(d) {
            Ok(r) => r,
            Err(error) => return Answer::Failed { seq, error },
        };
        // A new StatefulSet replica comes with the claims its set's
        // templates create.
        let (cluster, note) = with_missing_claims(cluster, &pod);
        let cluster = &*cluster;
        let mut answer = place(cluster, &pod, scheduler);
        answer.notes.extend(note);
        answer.notes.extend(rescheduled);
        let took = started.elapsed();
        let summary = plans::summary(cluster, &answer);
        let report = Arc::new(report::build(cluster, &answer, None));
        Answer::Place {
            seq,
            report,
            summary,
            took,
        }
    }

    fn run(&mut self, r: Request) -> Answer {
        let seq = r.seq;
        let scheduler = r.scheduler;
        let started = Instant::now();
        match r.job {
            Job::Place(d) => self.place(d, seq, &scheduler, started),
            Job::Replicas(d, _) if d.daemon => match self.resolve(d) {
                Ok((cluster, pod, _)) => {
                    let daemon =
                        crate::engine::daemonset::place_daemon_pods(cluster, &pod, &scheduler);
                    Answer::Replicas {
                        seq,
                        lines: plans::daemon_lines(cluster, &pod, &daemon),
                    }
                }
                Err(error) => Answer::Failed { seq, error },
            },
            Job::Replicas(d, n) => match self.resolve(d) {
                Ok((cluster, pod, _)) => {
                    let plan = place_replicas(cluster, &pod, n, &scheduler);
                    Answer::Replicas {
                        seq,
                        lines: plans::replica_lines(cluster, &pod, n, &plan),
                    }
                }
                Err(error) => Answer::Failed { seq, error },
            },
            Job::Capacity(d) => match self.resolve(d) {
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
            },
            Job::Disrupt(d, title, progress) => {
                // The snapshot as it is (the private copy may have the
                // draft's pod taken off).
                let cluster = &*self.shared;
                let plan = simulate_with(cluster, &d, &scheduler, &progress);
                Answer::Disrupt {
                    seq,
                    table: plans::disruption_table(cluster, &title, &plan),
                }
            }
        }
    }
}

impl WhatIfWorker {
    pub fn start(cluster: Arc<Cluster>) -> WhatIfWorker {
        let mut ctx = Ctx {
            shared: cluster,
            owned: None,
            owned_dra_changed: false,
            owned_owners_changed: false,
            unbound: None,
            applied: None,
        };
        // Only the latest request of each kind matters.
        let kind = |r: &Request| match r.job {
            Job::Place(_) => 0,
            Job::Replicas(..) | Job::Capacity(_) => 1,
            Job::Disrupt(..) => 2,
        };
        let job = crate::app::job::Job::spawn_by_kind("whatif", kind, move |r, out| {
            out.send(ctx.run(r));
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
