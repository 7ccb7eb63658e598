//! The trust check of a recording, in the Replay view: every pod that went
//! from pending to bound was a real scheduling decision; kplace's answer at
//! that moment is compared with it (`crate::verify`, as `kplace verify`
//! does). Runs once, on a background thread, with progress.

use std::sync::Arc;
use std::sync::atomic::{AtomicUsize, Ordering};

use crate::app::job::{Ctx, Job};
use crate::app::report::{Line, Tone};
use crate::engine::Scheduler;
use crate::source::timeline::Timeline;
use crate::verify::{Check, Summary, checks_with_progress};

use super::clock;

pub struct TrustCheck {
    done: Arc<AtomicUsize>,
    total: Arc<AtomicUsize>,
    job: Option<Job<(), Vec<Check>>>,
    /// Why there is no result (the check's thread could not run).
    failure: Option<String>,
    pub result: Option<(Summary, Vec<Check>)>,
    /// The release kplace answers as.
    pub scheduler: Scheduler,
}

impl TrustCheck {
    pub fn start(timeline: Arc<Timeline>, scheduler: Scheduler) -> TrustCheck {
        let done = Arc::new(AtomicUsize::new(0));
        let total = Arc::new(AtomicUsize::new(0));
        let (d, n) = (done.clone(), total.clone());
        let version = scheduler.clone();
        let job = Job::once("trust", move |ctx: &Ctx<Vec<Check>>| {
            let checks = checks_with_progress(&timeline, &version, &mut |done, total| {
                n.store(total, Ordering::Relaxed);
                d.store(done, Ordering::Relaxed);
            });
            ctx.send(checks);
        });
        TrustCheck {
            done,
            total,
            job: Some(job),
            failure: None,
            result: None,
            scheduler,
        }
    }

    pub fn running(&self) -> bool {
        self.job.is_some()
    }

    /// Collects the result (or the failure) when it is ready; returns
    /// whether it arrived.
    pub fn poll(&mut self) -> bool {
        let Some(job) = &self.job else { return false };
        if let Some(checks) = job.try_recv() {
            self.result = Some((Summary::of(&checks), checks));
        } else if let Some(failure) = job.failure() {
            self.failure = Some(failure);
        } else {
            return false;
        }
        self.job = None;
        true
    }

    /// The trust check as report lines.
    pub fn lines(&self) -> Vec<Line> {
        let line = |tone, text: String| Line { tone, text };
        let mut out = vec![line(
            Tone::Heading,
            "Trust check: each pod the recording saw go from pending to bound, against kplace's answer at that moment".into(),
        ), line(
            Tone::Muted,
            format!(
                "  answered as kube-scheduler {} rules: {}",
                self.scheduler.version.version,
                self.scheduler.version.reason()
            ),
        )];
        let Some((s, checks)) = &self.result else {
            if let Some(failure) = &self.failure {
                out.push(line(Tone::Bad, format!("  cannot check: {failure}")));
                return out;
            }
            out.push(line(
                Tone::Warn,
                format!(
                    "  checking… {}/{} bindings",
                    self.done.load(Ordering::Relaxed),
                    self.total.load(Ordering::Relaxed)
                ),
            ));
            return out;
        };
        if s.bindings == 0 {
            out.push(line(
                Tone::Muted,
                "  no pod went from pending to bound in this recording".into(),
            ));
            return out;
        }
        let pct = |r: f64| format!("{:.1}%", 100.0 * r);
        let tone = if s.in_best == s.bindings {
            Tone::Good
        } else {
            Tone::Warn
        };
        out.push(line(
            tone,
            format!(
                "  {} binding{} · bound node among kplace's best nodes {}/{} ({}) · feasible {}/{} ({})",
                s.bindings,
                if s.bindings == 1 { "" } else { "s" },
                s.in_best,
                s.bindings,
                pct(s.best_rate()),
                s.in_feasible,
                s.bindings,
                pct(s.feasible_rate())
            ),
        ));
        if s.preemptions > 0 {
            out.push(line(
                Tone::Text,
                format!(
                    "  {} preemption{} · victims agree {}/{} ({})",
                    s.preemptions,
                    if s.preemptions == 1 { "" } else { "s" },
                    s.victims_agree,
                    s.preemptions,
                    pct(s.victim_rate())
                ),
            ));
        }
        let disagreeing: Vec<&Check> = checks.iter().filter(|c| !c.agrees()).collect();
        if disagreeing.is_empty() {
            out.push(line(
                Tone::Good,
                "  kplace agrees with every binding".into(),
            ));
            return out;
        }
        out.push(line(
            Tone::TableHeader,
            format!(
                "  Disagreements ({}): time, pod, where it went, what kplace said",
                disagreeing.len()
            ),
        ));
        for c in disagreeing {
            out.push(line(
                Tone::Bad,
                format!(
                    "  {} {}: bound to {}{}; kplace: {}, best {}",
                    clock(c.t),
                    c.pod,
                    c.bound,
                    if c.in_feasible {
                        " (feasible)"
                    } else {
                        " (not feasible for kplace)"
                    },
                    c.outcome.as_str(),
                    if c.best.is_empty() {
                        "none".to_string()
                    } else {
                        c.best.join(", ")
                    }
                ),
            ));
            if let Some(p) = &c.preemption
                && !p.victims_agree()
            {
                let list = |v: &std::collections::BTreeSet<String>| {
                    v.iter().cloned().collect::<Vec<_>>().join(", ")
                };
                out.push(line(
                    Tone::Text,
                    format!(
                        "      victims: deleted [{}], kplace [{}]",
                        list(&p.actual_victims),
                        list(&p.predicted_victims)
                    ),
                ));
            }
        }
        out
    }
}
