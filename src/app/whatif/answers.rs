//! Asking the What-if worker and taking its answers: the draft's
//! placement, its replicas or capacity, and disruptions, each numbered so
//! only the newest answer of each kind is shown.

use std::sync::Arc;

use crate::engine::scenario::Step;
use crate::model::{Cluster, Interner};

use super::worker::{Answer, DraftPod, Question, Request, WhatIfWorker};
use super::{DEFAULT_REPLICAS, Panel, WhatIf, plans};

/// Requests of one kind sent to the worker and the newest answered: an
/// answer older than the last request is dropped, and the view shows
/// "computing…" while `done < sent`.
#[derive(Default)]
pub(super) struct RequestCount {
    sent: u64,
    done: u64,
}

impl RequestCount {
    fn next(&mut self) -> u64 {
        self.sent += 1;
        self.sent
    }
    fn busy(&self) -> bool {
        self.done < self.sent
    }
    /// Whether an answer numbered `seq` is the latest.
    fn accept(&mut self, seq: u64) -> bool {
        if seq >= self.sent {
            self.done = seq;
            true
        } else {
            false
        }
    }
}

impl WhatIf {
    pub fn busy(&self) -> bool {
        self.place_seq.busy() || self.replicas_seq.busy() || self.disrupt_seq.busy()
    }

    pub fn computing(&self) -> bool {
        self.place_seq.busy()
    }

    pub fn replicas_computing(&self) -> bool {
        self.replicas_seq.busy()
    }

    /// How far the scenario is, worded: the step running (when there are
    /// several) and the displaced pods placed so far, of how many (victims
    /// join as they go).
    pub fn disruption_progress(&self) -> String {
        use std::sync::atomic::Ordering;
        let step = match self.scenario.len() {
            0 | 1 => String::new(),
            n => format!(
                "step {} of {n}: ",
                self.progress.step.load(Ordering::Relaxed).clamp(1, n)
            ),
        };
        format!(
            "{step}placing displaced pods: {} of {} (esc cancels)",
            self.progress.done.load(Ordering::Relaxed),
            self.progress.total.load(Ordering::Relaxed)
        )
    }

    pub fn disruption_computing(&self) -> bool {
        self.disrupt_seq.busy()
    }

    pub(super) fn worker(&mut self, cluster: &Arc<Cluster>) -> &WhatIfWorker {
        self.worker
            .get_or_insert_with(|| WhatIfWorker::start(cluster.clone()))
    }

    /// Applies worker answers (`cluster` is the snapshot, to ask again
    /// when a scenario's answer changes the draft's); returns whether
    /// anything changed.
    pub fn pump(&mut self, cluster: &Arc<Cluster>) -> bool {
        let mut changed = false;
        while let Some(a) = self.worker.as_ref().and_then(WhatIfWorker::try_recv) {
            changed = true;
            match a {
                Answer::Place {
                    seq,
                    report,
                    summary,
                    unchanged,
                    took,
                } => {
                    if self.place_seq.accept(seq) {
                        self.against_unchanged = unchanged
                            .map(|u| plans::changes(&u, &summary))
                            .unwrap_or_default();
                        self.changes = match &self.summary {
                            Some(before) => plans::changes(before, &summary),
                            None => Vec::new(),
                        };
                        self.summary = Some(summary);
                        self.answer = Some(report);
                        self.took = Some(took);
                    }
                }
                Answer::Replicas { seq, lines } => {
                    if self.replicas_seq.accept(seq) {
                        self.replicas = Some(lines);
                    }
                }
                Answer::Scenario {
                    seq,
                    table,
                    completed,
                } => {
                    if self.disrupt_seq.accept(seq) {
                        // Cancelled steps are not part of the scenario.
                        let asked = self.scenario.len();
                        if completed < asked {
                            self.status_note = Some(match completed {
                                0 => "disruption what-if cancelled (esc): no scenario".to_string(),
                                n => format!(
                                    "disruption what-if cancelled (esc): {} step(s) not run, the scenario keeps the first {n}",
                                    asked - n
                                ),
                            });
                        }
                        self.scenario.truncate(completed);
                        self.disruption = (!self.scenario.is_empty()).then_some(table);
                        self.plan_search = Default::default();
                        // Cancelling the only step leaves nothing to show:
                        // back to the answer, not a "computing…" that
                        // would never end.
                        if self.scenario.is_empty() && self.panel == Panel::Disruption {
                            self.panel = Panel::Answer;
                            self.scroll = 0;
                        }
                        // The draft is answered on what the scenario leaves
                        // (a cleared scenario asked again when cleared).
                        if asked > 0 {
                            self.evaluate(cluster);
                        }
                    }
                }
                Answer::Failed { seq, error } => {
                    // Any kind: mark all as done up to seq and show the error.
                    for s in [
                        &mut self.place_seq,
                        &mut self.replicas_seq,
                        &mut self.disrupt_seq,
                    ] {
                        if s.sent == seq {
                            s.done = seq;
                        }
                    }
                    if let Some(d) = &mut self.draft {
                        d.error = Some(error);
                    }
                }
            }
        }
        // A worker that cannot start or died answers nothing: say so
        // rather than show "computing…" for ever.
        if self.busy()
            && let Some(failure) = self.worker.as_ref().and_then(WhatIfWorker::failure)
        {
            for s in [
                &mut self.place_seq,
                &mut self.replicas_seq,
                &mut self.disrupt_seq,
            ] {
                s.done = s.sent;
            }
            if let Some(d) = &mut self.draft {
                d.error = Some(format!("cannot answer: {failure}"));
            }
            changed = true;
        }
        changed
    }

    pub(super) fn draft_pod(&self) -> Option<DraftPod> {
        let d = self.draft.as_ref()?;
        let pod = d.pod.clone()?;
        let fresh = self.interner.as_ref().map(Interner::len) == Some(self.base_len);
        Some(DraftPod {
            pod,
            exclude: self.origin.filter(|_| !self.as_copy),
            claims: d.pod_claims.clone(),
            yaml: d.yaml.clone(),
            fresh,
            cluster_edit: self.cluster_edit.clone(),
            controllers: d.controllers.clone(),
            daemon: d
                .workload
                .as_ref()
                .is_some_and(|w| w.replicas == crate::source::workload::Replicas::PerNode),
            scenario: self.scenario.clone(),
        })
    }

    /// Re-evaluates the draft after a change (if it is valid).
    pub(super) fn evaluate(&mut self, cluster: &Arc<Cluster>) {
        if !self.draft.as_ref().is_some_and(|d| d.valid) {
            return;
        }
        let Some(dp) = self.draft_pod() else { return };
        let seq = self.place_seq.next();
        let scheduler = self.scheduler.clone();
        self.worker(cluster).send(Request {
            seq,
            question: Question::Place(dp.clone()),
            scheduler,
        });
        if self.replicas.is_some() || self.panel == Panel::Replicas {
            self.request_replicas(cluster);
        }
    }

    pub(super) fn request_replicas(&mut self, cluster: &Arc<Cluster>) {
        // Replicas are more copies: the original stays.
        let Some(dp) = self.draft_pod().map(|d| DraftPod { exclude: None, ..d }) else {
            return;
        };
        if self.replicas_n == 0 {
            self.replicas_n = DEFAULT_REPLICAS;
        }
        let seq = self.replicas_seq.next();
        let n = self.replicas_n;
        if self.replicas_max {
            let scheduler = self.scheduler.clone();
            self.worker(cluster).send(Request {
                seq,
                question: Question::Capacity(dp),
                scheduler,
            });
            return;
        }
        let scheduler = self.scheduler.clone();
        self.worker(cluster).send(Request {
            seq,
            question: Question::Replicas(dp, n),
            scheduler,
        });
    }

    /// Runs a disruption what-if and shows it: a scenario of this one
    /// step, or with `then`, the scenario shown with this step added (run
    /// on the cluster the earlier steps leave). While a scenario stands,
    /// the draft is answered on the cluster it leaves.
    pub fn disrupt(&mut self, cluster: &Arc<Cluster>, step: Step, then: bool) {
        if !then {
            self.scenario.clear();
        }
        self.scenario.push(step);
        self.disruption = None;
        self.panel = Panel::Disruption;
        self.scroll = 0;
        self.run_scenario(cluster);
    }

    /// `:scenario clear`: back to the snapshot as it is; `false` when there
    /// was no scenario.
    pub fn clear_scenario(&mut self, cluster: &Arc<Cluster>) -> bool {
        if self.scenario.is_empty() && !self.disrupt_seq.busy() {
            return false;
        }
        self.scenario.clear();
        self.disruption = None;
        if self.panel == Panel::Disruption {
            self.panel = Panel::Answer;
            self.scroll = 0;
        }
        // An empty scenario frees the worker's fork; its answer is dropped.
        self.run_scenario(cluster);
        self.against_unchanged.clear();
        self.evaluate(cluster);
        true
    }

    /// The scenario's steps as a title: `Lose zone a, then Drain n-3`.
    pub fn scenario_title(&self) -> String {
        self.scenario
            .iter()
            .map(Step::title)
            .collect::<Vec<_>>()
            .join(", then ")
    }

    fn run_scenario(&mut self, cluster: &Arc<Cluster>) {
        let seq = self.disrupt_seq.next();
        let scheduler = self.scheduler.clone();
        // A new run: a fresh progress, so cancelling this one cannot stop
        // the next.
        self.progress
            .cancel
            .store(true, std::sync::atomic::Ordering::Relaxed);
        self.progress = Arc::default();
        let progress = self.progress.clone();
        let steps = self.scenario.clone();
        self.worker(cluster).send(Request {
            seq,
            question: Question::Scenario(steps, progress),
            scheduler,
        });
    }

    /// Answers as another release from now on: the draft, its replicas and
    /// the scenario shown are asked again.
    pub fn set_scheduler(&mut self, cluster: &Arc<Cluster>, scheduler: crate::engine::Scheduler) {
        if self.scheduler == scheduler {
            return;
        }
        self.scheduler = scheduler;
        self.evaluate(cluster);
        if !self.scenario.is_empty() {
            self.run_scenario(cluster);
        }
    }

    /// `:replicas max`: the Replicas panel counts how many more of the
    /// draft fit, with and without preemption.
    pub fn count_max(&mut self, cluster: &Arc<Cluster>) {
        self.replicas_max = true;
        self.panel = Panel::Replicas;
        self.scroll = 0;
        self.request_replicas(cluster);
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::sync::atomic::Ordering;

    #[test]
    fn progress_names_the_step_only_when_there_are_several() {
        let mut w = WhatIf {
            scenario: vec![Step::CordonZone("a".into())],
            ..Default::default()
        };
        w.progress.done.store(3, Ordering::Relaxed);
        w.progress.total.store(10, Ordering::Relaxed);
        w.progress.step.store(1, Ordering::Relaxed);
        assert_eq!(
            w.disruption_progress(),
            "placing displaced pods: 3 of 10 (esc cancels)"
        );
        w.scenario.push(Step::Drain(vec!["n".into()]));
        w.progress.step.store(2, Ordering::Relaxed);
        assert_eq!(
            w.disruption_progress(),
            "step 2 of 2: placing displaced pods: 3 of 10 (esc cancels)"
        );
    }
}
