//! What-if planning: edit a draft pod and see the answer change, place N
//! replicas, drain a node or lose a zone. State and actions only; the
//! What-if view in `crate::ui::whatif` draws it.

pub mod claims;
pub mod draft;
pub mod editor;
pub mod form;
mod glue;
pub mod plans;
pub mod worker;

use std::path::PathBuf;
use std::sync::Arc;
use std::time::Duration;

use crossterm::event::KeyEvent;

use crate::engine::disruption::Disruption;
use crate::model::{Cluster, Interner, PodId};

use super::report::{Line, PlacementReport};
use draft::Draft;
use editor::{EditorAction, TextArea};
use form::{Row, Target};
use plans::Summary;
use worker::{Answer, DraftPod, Job, Request, WhatIfWorker};

/// Applies a form row's typed text to the pod or to one of its claims.
fn apply_row(
    doc: &mut serde_json::Value,
    claims: &mut Vec<serde_json::Value>,
    target: &Target,
    text: &str,
) {
    match target {
        Target::Claim(i, field) => claims::apply(claims, *i, *field, text),
        Target::AddClaim => claims::add(doc, claims, text),
        _ => form::apply(doc, target, text),
    }
}

/// Replicas asked for when `r` is first pressed.
pub const DEFAULT_REPLICAS: usize = 5;

/// What the right-hand side shows.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum Panel {
    #[default]
    Answer,
    Replicas,
    Disruption,
}

/// A palette command of the what-if family.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Cmd {
    /// `:draft`: from the selection; `:draft new`: blank.
    Draft {
        blank: bool,
    },
    Replicas,
    /// `:replicas max`: how many more fit.
    ReplicasMax,
    Cordon(String),
    Lose(String),
    Save(Option<String>),
    /// `:save! PATH`: overwrite.
    SaveOver(String),
    Load(String),
}

/// Parses `draft`, `draft new`, `replicas`, `cordon Z`, `lose Z`, `save [P]`, `save! P`, `load P`.
pub fn parse_command(s: &str) -> Option<Cmd> {
    let s = s.trim();
    let (head, rest) = s.split_once(' ').unwrap_or((s, ""));
    let rest = rest.trim();
    Some(match (head, rest) {
        ("draft", "") => Cmd::Draft { blank: false },
        ("draft", "new") => Cmd::Draft { blank: true },
        ("replicas", "") => Cmd::Replicas,
        ("replicas", "max") => Cmd::ReplicasMax,
        ("cordon", z) if !z.is_empty() => Cmd::Cordon(z.to_string()),
        ("lose", z) if !z.is_empty() => Cmd::Lose(z.to_string()),
        ("save" | "w", "") => Cmd::Save(None),
        ("save" | "w", p) => Cmd::Save(Some(p.to_string())),
        ("save!" | "w!", p) if !p.is_empty() => Cmd::SaveOver(p.to_string()),
        ("load", p) if !p.is_empty() => Cmd::Load(p.to_string()),
        _ => return None,
    })
}

/// The palette entries of the what-if family (zones for completion).
pub fn palette_commands(zones: &[String]) -> Vec<String> {
    let mut c = vec![
        "draft".to_string(),
        "draft new".to_string(),
        "replicas".to_string(),
        "replicas max".to_string(),
        "save".to_string(),
        "load ".to_string(),
    ];
    for z in zones {
        c.push(format!("cordon {z}"));
        c.push(format!("lose {z}"));
    }
    c
}

/// Requests of one kind sent to the worker and the newest answered: an
/// answer older than the last request is dropped, and the view shows
/// "computing…" while `done < sent`.
#[derive(Default)]
struct RequestCount {
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

#[derive(Default)]
pub struct WhatIf {
    pub draft: Option<Draft>,
    /// The snapshot's pod the draft was made from, when it is that pod
    /// (not a workload's new replica).
    pub origin: Option<PodId>,
    /// Answer as one more copy of `origin` (it stays where it is) instead
    /// of as `origin` rescheduled (taken off its node first, as its
    /// Placement answers). `c` toggles.
    pub as_copy: bool,
    interner: Option<Interner>,
    base_len: usize,
    pub rows: Vec<Row>,
    /// Index into `rows` (always a selectable row).
    pub cursor: usize,
    /// Text being typed into the selected row.
    pub input: Option<String>,
    /// Where the cursor is in `input` (a character index).
    pub input_cursor: usize,
    /// Priority class chooser: highlighted index into `class_choices`.
    pub chooser: Option<usize>,
    pub editor: Option<TextArea>,
    /// The row whose edit made the draft invalid.
    pub error_at: Option<Target>,
    pub panel: Panel,
    pub answer: Option<Arc<PlacementReport>>,
    pub summary: Option<Summary>,
    /// What changed against the previous answer.
    pub changes: Vec<Line>,
    /// Engine time of the last answer.
    pub took: Option<Duration>,
    /// Top line of the right-hand panel.
    pub scroll: usize,
    pub replicas_n: usize,
    /// The Replicas panel counts how many fit (`:replicas max`) instead of
    /// placing `replicas_n`.
    pub replicas_max: bool,
    pub replicas: Option<Vec<Line>>,
    pub disruption_title: String,
    pub disruption: Option<plans::DisruptionTable>,
    /// `E` was pressed: the event loop runs `$EDITOR` and hands the text back.
    pub external_requested: bool,
    worker: Option<WhatIfWorker>,
    /// The release every what-if answer is asked of (the app's).
    pub scheduler: crate::engine::Scheduler,
    /// The last disruption asked for, to ask again when the release changes.
    last_disruption: Option<Disruption>,
    place_seq: RequestCount,
    replicas_seq: RequestCount,
    disrupt_seq: RequestCount,
    /// The running disruption's progress; esc sets its `cancel`.
    progress: Arc<crate::engine::disruption::Progress>,
    /// A remedy opened from Placement that changes the cluster: made (in
    /// the worker's copy) for every answer of this draft.
    pub cluster_edit: Option<(crate::engine::remedies::ClusterEdit, String)>,
}

/// A priority class the chooser offers: `(name, value, policy, default)`.
pub type ClassChoice = (String, i32, &'static str, bool);

/// The cluster's classes, highest value first, then "(none)".
pub fn class_choices(cluster: &Cluster) -> Vec<ClassChoice> {
    let mut v: Vec<ClassChoice> = cluster
        .priority_classes
        .iter()
        .map(|pc| {
            (
                pc.name.to_string(),
                pc.value,
                pc.preemption_policy.as_str(),
                pc.global_default,
            )
        })
        .collect();
    v.sort_by(|a, b| b.1.cmp(&a.1).then_with(|| a.0.cmp(&b.0)));
    v
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

    /// Displaced pods placed so far, of how many (victims join as they go).
    pub fn disruption_progress(&self) -> (usize, usize) {
        use std::sync::atomic::Ordering;
        (
            self.progress.done.load(Ordering::Relaxed),
            self.progress.total.load(Ordering::Relaxed),
        )
    }

    pub fn disruption_computing(&self) -> bool {
        self.disrupt_seq.busy()
    }

    /// Whether the answer shown is for an older, valid draft.
    pub fn stale(&self) -> bool {
        self.draft.as_ref().is_some_and(|d| !d.valid) && self.answer.is_some()
    }

    fn worker(&mut self, cluster: &Arc<Cluster>) -> &WhatIfWorker {
        self.worker
            .get_or_insert_with(|| WhatIfWorker::start(cluster.clone()))
    }

    fn interner(&mut self, cluster: &Cluster) -> &mut Interner {
        if self.interner.is_none() {
            self.base_len = cluster.interner.len();
        }
        self.interner
            .get_or_insert_with(|| cluster.interner.clone())
    }

    /// Applies worker answers; returns whether anything changed.
    pub fn pump(&mut self) -> bool {
        let mut changed = false;
        while let Some(a) = self.worker.as_ref().and_then(WhatIfWorker::try_recv) {
            changed = true;
            match a {
                Answer::Place {
                    seq,
                    report,
                    summary,
                    took,
                } => {
                    if self.place_seq.accept(seq) {
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
                Answer::Disrupt { seq, table } => {
                    if self.disrupt_seq.accept(seq) {
                        self.disruption = Some(table);
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

    fn draft_pod(&self) -> Option<DraftPod> {
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
        })
    }

    /// Re-evaluates the draft after a change (if it is valid).
    fn evaluate(&mut self, cluster: &Arc<Cluster>) {
        if !self.draft.as_ref().is_some_and(|d| d.valid) {
            return;
        }
        let Some(dp) = self.draft_pod() else { return };
        let seq = self.place_seq.next();
        let scheduler = self.scheduler.clone();
        self.worker(cluster).send(Request {
            seq,
            job: Job::Place(dp.clone()),
            scheduler,
        });
        if self.replicas.is_some() || self.panel == Panel::Replicas {
            self.request_replicas(cluster);
        }
    }

    fn request_replicas(&mut self, cluster: &Arc<Cluster>) {
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
                job: Job::Capacity(dp),
                scheduler,
            });
            return;
        }
        let scheduler = self.scheduler.clone();
        self.worker(cluster).send(Request {
            seq,
            job: Job::Replicas(dp, n),
            scheduler,
        });
    }

    /// Runs a disruption what-if and shows it.
    pub fn disrupt(&mut self, cluster: &Arc<Cluster>, d: Disruption, title: String) {
        let seq = self.disrupt_seq.next();
        self.disruption_title = title.clone();
        self.disruption = None;
        self.panel = Panel::Disruption;
        self.scroll = 0;
        self.last_disruption = Some(d.clone());
        let scheduler = self.scheduler.clone();
        // A new run: a fresh progress, so cancelling this one cannot stop
        // the next.
        self.progress
            .cancel
            .store(true, std::sync::atomic::Ordering::Relaxed);
        self.progress = Arc::default();
        let progress = self.progress.clone();
        self.worker(cluster).send(Request {
            seq,
            job: Job::Disrupt(d, title, progress),
            scheduler,
        });
    }

    /// Answers as another release from now on: the draft, its replicas and
    /// the disruption shown are asked again.
    pub fn set_scheduler(&mut self, cluster: &Arc<Cluster>, scheduler: crate::engine::Scheduler) {
        if self.scheduler == scheduler {
            return;
        }
        self.scheduler = scheduler;
        self.evaluate(cluster);
        let shown = self.disruption.is_some() || self.disrupt_seq.busy();
        if let (Some(d), true) = (self.last_disruption.clone(), shown) {
            let title = self.disruption_title.clone();
            let panel = self.panel;
            let scroll = self.scroll;
            self.disrupt(cluster, d, title);
            self.panel = panel;
            self.scroll = scroll;
        }
    }

    /// Starts a new draft from a document.
    pub fn open(&mut self, cluster: &Arc<Cluster>, doc: serde_json::Value) {
        self.open_with_claims(cluster, doc, Vec::new());
    }

    /// Starts a new draft from a pod and the ResourceClaims beside it.
    pub fn open_with_claims(
        &mut self,
        cluster: &Arc<Cluster>,
        doc: serde_json::Value,
        claims: Vec<serde_json::Value>,
    ) {
        self.start(cluster, doc, claims, None);
    }

    /// Starts a draft; `origin` is the snapshot's pod it stands for.
    fn start(
        &mut self,
        cluster: &Arc<Cluster>,
        doc: serde_json::Value,
        claims: Vec<serde_json::Value>,
        origin: Option<PodId>,
    ) {
        let mut d = Draft::with_claims(doc, claims);
        d.reparse(self.interner(cluster));
        self.start_draft(cluster, d, origin);
    }

    /// Makes `d` (parsed) the draft; `origin` is the snapshot's pod it stands for.
    fn start_draft(&mut self, cluster: &Arc<Cluster>, d: Draft, origin: Option<PodId>) {
        self.origin = origin;
        self.as_copy = false;
        self.cluster_edit = None;
        self.draft = Some(d);
        self.summary = None;
        self.answer = None;
        self.changes.clear();
        self.replicas = None;
        self.error_at = None;
        self.input = None;
        self.chooser = None;
        self.editor = None;
        self.panel = Panel::Answer;
        self.scroll = 0;
        self.refresh_rows();
        self.cursor = self.first_selectable(0);
        self.evaluate(cluster);
    }

    /// A draft of a pod: the pod itself (answered as if it were
    /// rescheduled, `c` for one more copy), or with `name`, a new pod like it.
    pub fn open_pod(&mut self, cluster: &Arc<Cluster>, pod: PodId, name: Option<String>) {
        let p = cluster.pod(pod);
        let origin = name.is_none().then_some(pod);
        let name = name.unwrap_or_else(|| p.name.to_string());
        let mut doc = draft::pod_doc(cluster, p, &name);
        let claims = claims::of_pod(cluster, p, &name, &mut doc);
        self.start(cluster, doc, claims, origin);
    }

    /// Opens a remedy from Placement: a draft of `pod` with the remedy's
    /// pod change made, or the pod as it is on the cluster the remedy
    /// changes. `Err` when the change does not apply to the draft.
    pub fn open_remedy(
        &mut self,
        cluster: &Arc<Cluster>,
        pod: PodId,
        edit: &crate::engine::remedies::Edit,
        change: &str,
    ) -> Result<(), String> {
        use crate::engine::remedies::{Edit, PodEdit, quantity_text};
        self.open_pod(cluster, pod, None);
        match edit {
            Edit::Cluster(c) => {
                self.cluster_edit = Some((c.clone(), change.to_string()));
            }
            Edit::Pod(e) => {
                let Some(d) = self.draft.as_ref() else {
                    return Err("no draft".into());
                };
                let mut doc = d.doc.clone();
                match e {
                    // The draft is one container holding the pod's total.
                    PodEdit::Requests { resources } => {
                        for (name, value, _) in resources {
                            let requests = doc
                                .pointer_mut("/spec/containers/0/resources/requests")
                                .and_then(serde_json::Value::as_object_mut)
                                .ok_or("the draft has no container requests")?;
                            requests.insert(name.clone(), quantity_text(name, *value).into());
                        }
                    }
                    other => {
                        let ops =
                            crate::report::remedies::pod_patch(other, cluster.pod(pod), false);
                        let patch: json_patch::Patch =
                            serde_json::from_value(ops.into()).map_err(|e| e.to_string())?;
                        json_patch::patch(&mut doc, &patch)
                            .map_err(|e| format!("the change does not apply to the draft: {e}"))?;
                    }
                }
                let mut i = self.interner.take().unwrap_or_default();
                if let Some(d) = self.draft.as_mut() {
                    d.set_doc(doc, &mut i);
                }
                self.interner = Some(i);
                self.refresh_rows();
            }
        }
        self.evaluate(cluster);
        Ok(())
    }

    /// `:replicas max`: the Replicas panel counts how many more of the
    /// draft fit, with and without preemption.
    pub fn count_max(&mut self, cluster: &Arc<Cluster>) {
        self.replicas_max = true;
        self.panel = Panel::Replicas;
        self.scroll = 0;
        self.request_replicas(cluster);
    }

    /// What the draft's answer means, for the view's title.
    pub fn meaning(&self, cluster: &Cluster) -> Option<String> {
        let id = self.origin?;
        let p = cluster.pod(id);
        let key = format!("{}/{}", cluster.interner.resolve(p.namespace), p.name);
        Some(
            match (self.as_copy, p.node_name.as_deref()) {
                (true, _) => format!("one more copy of {key} (c: as {key} rescheduled)"),
                (false, Some(node)) => {
                    format!("{key} rescheduled: taken off {node} first (c: one more copy)")
                }
                (false, None) => format!("{key} itself, pending (c: one more copy)"),
            } + &self
                .cluster_edit
                .as_ref()
                .map(|(_, change)| format!(" — with: {change}"))
                .unwrap_or_default(),
        )
    }

    /// `c`: one more copy ↔ the pod rescheduled.
    fn toggle_copy(&mut self, cluster: &Arc<Cluster>) -> KeyResult {
        if self.origin.is_none() {
            return KeyResult::Info(
                "c switches between a pod rescheduled and one more copy of it; this draft is a new pod".into(),
            );
        }
        self.as_copy = !self.as_copy;
        self.evaluate(cluster);
        KeyResult::Info(
            self.meaning(cluster)
                .map(|m| format!("answering as {m}"))
                .unwrap_or_default(),
        )
    }

    /// A draft of the replica the pod's StatefulSet creates next (its next
    /// free ordinal, with the claims its templates give it); `false` when
    /// the pod has no StatefulSet in the snapshot.
    pub fn open_stateful_replica(&mut self, cluster: &Arc<Cluster>, pod: PodId) -> bool {
        use crate::engine::statefulset::{controlling_set, next_ordinals};
        let p = cluster.pod(pod);
        let Some((set, spec)) = controlling_set(cluster, p) else {
            return false;
        };
        let ordinal = next_ordinals(cluster, set, spec, None, 1)[0];
        let doc = draft::stateful_replica_doc(cluster, p, set, spec, ordinal);
        self.open(cluster, doc);
        true
    }

    fn refresh_rows(&mut self) {
        self.rows = self
            .draft
            .as_ref()
            .map(|d| {
                let mut rows = form::rows(&d.doc);
                rows.extend(claims::rows(&d.doc, &d.claims));
                rows
            })
            .unwrap_or_default();
        if self.cursor >= self.rows.len() {
            self.cursor = self.rows.len().saturating_sub(1);
        }
        if !self
            .rows
            .get(self.cursor)
            .is_some_and(|r| r.target.selectable())
        {
            self.cursor = self.first_selectable(self.cursor);
        }
    }

    fn first_selectable(&self, from: usize) -> usize {
        (from..self.rows.len())
            .chain(0..from)
            .find(|&i| self.rows[i].target.selectable())
            .unwrap_or(0)
    }

    fn move_cursor(&mut self, delta: isize) {
        let n = self.rows.len() as isize;
        let mut i = self.cursor as isize;
        for _ in 0..n {
            i += delta;
            if i < 0 || i >= n {
                return;
            }
            if self.rows[i as usize].target.selectable() {
                self.cursor = i as usize;
                return;
            }
        }
    }

    /// A form edit: rewrite the document, re-parse, re-evaluate.
    fn edit(
        &mut self,
        cluster: &Arc<Cluster>,
        target: &Target,
        f: impl FnOnce(&mut serde_json::Value, &mut Vec<serde_json::Value>),
    ) {
        let Some((mut doc, mut claims)) = self
            .draft
            .as_ref()
            .map(|d| (d.doc.clone(), d.claims.clone()))
        else {
            return;
        };
        f(&mut doc, &mut claims);
        self.interner(cluster);
        let mut i = self.interner.take().unwrap_or_default();
        if let Some(d) = self.draft.as_mut() {
            d.set_docs(doc, claims, &mut i);
            self.error_at = if d.valid { None } else { Some(target.clone()) };
        }
        self.interner = Some(i);
        self.refresh_rows();
        self.evaluate(cluster);
    }

    /// Applies the whole YAML text; `Err` is a syntax error.
    pub fn apply_yaml(&mut self, cluster: &Arc<Cluster>, text: &str) -> Result<(), String> {
        self.interner(cluster);
        let mut i = self.interner.take().unwrap_or_default();
        let result = match self.draft.as_mut() {
            Some(d) => d.set_yaml(text, &mut i),
            None => {
                let mut d = Draft::new(serde_json::json!({}));
                let r = d.set_yaml(text, &mut i);
                if r.is_ok() {
                    self.draft = Some(d);
                }
                r
            }
        };
        self.interner = Some(i);
        if result.is_ok() {
            self.error_at = None;
            self.refresh_rows();
            self.evaluate(cluster);
        }
        result
    }

    /// Handles a key in the What-if view, as the key table binds it (scopes
    /// What-if, the YAML editor's and Input); `Pass` lets the global keys
    /// have it.
    pub fn key(&mut self, cluster: &Arc<Cluster>, key: KeyEvent) -> KeyResult {
        use crate::app::keys::{self, Action, Scope};
        if let Some(ed) = &mut self.editor {
            match ed.key(key) {
                EditorAction::Continue => {}
                EditorAction::Cancel => self.editor = None,
                EditorAction::Apply => {
                    let text = ed.text();
                    match self.apply_yaml(cluster, &text) {
                        Ok(()) => {
                            self.editor = None;
                            return KeyResult::Info("YAML applied".into());
                        }
                        Err(e) => {
                            if let Some(ed) = &mut self.editor {
                                ed.error = Some(e);
                            }
                        }
                    }
                }
            }
            return KeyResult::Done;
        }
        if let Some(h) = self.chooser {
            let classes = class_choices(cluster);
            let n = classes.len() + 1;
            match keys::action(&[Scope::Input, Scope::Lists], &key) {
                Some(Action::Up) => self.chooser = Some((h + n - 1) % n),
                Some(Action::Down) => self.chooser = Some((h + 1) % n),
                Some(Action::Cancel) => self.chooser = None,
                Some(Action::Accept) => {
                    self.chooser = None;
                    let name = classes.get(h).map(|c| c.0.clone()).unwrap_or_default();
                    self.edit(cluster, &Target::PriorityClass, |doc, _| {
                        form::apply(doc, &Target::PriorityClass, &name)
                    });
                }
                _ => {}
            }
            return KeyResult::Done;
        }
        if let Some(text) = &mut self.input {
            if crate::app::line::edit(text, &mut self.input_cursor, key)
                == crate::app::line::Edit::Ignored
            {
                match keys::action(&[Scope::Input], &key) {
                    Some(Action::Cancel) => self.input = None,
                    Some(Action::Accept) => {
                        let text = self.input.take().unwrap_or_default();
                        if let Some(target) = self.rows.get(self.cursor).map(|r| r.target.clone()) {
                            self.edit(cluster, &target, |doc, claims| {
                                apply_row(doc, claims, &target, &text)
                            });
                        }
                    }
                    _ => {}
                }
            }
            return KeyResult::Done;
        }
        if self.draft.is_none() && self.panel != Panel::Disruption {
            return KeyResult::Pass;
        }
        let Some(action) = keys::action(&[Scope::WhatIf], &key) else {
            return KeyResult::Pass;
        };
        match action {
            Action::Up => self.move_cursor(-1),
            Action::Down => self.move_cursor(1),
            Action::PageUp => self.scroll = self.scroll.saturating_sub(10),
            Action::PageDown => self.scroll += 10,
            Action::EditField => {
                let Some(r) = self.rows.get(self.cursor).cloned() else {
                    return KeyResult::Done;
                };
                if r.target == Target::PriorityClass {
                    let classes = class_choices(cluster);
                    let at = classes.iter().position(|c| c.0 == r.value).unwrap_or(0);
                    self.chooser = Some(at);
                } else if r.target.is_toggle() {
                    self.edit(cluster, &r.target, |doc, _| form::apply(doc, &r.target, ""));
                } else if matches!(r.target, Target::AddSpread | Target::AddAnti) {
                    // Added with defaults; the new rows are then edited.
                    self.edit(cluster, &r.target, |doc, _| form::apply(doc, &r.target, ""));
                } else {
                    let text = form::initial_text(&r);
                    self.input_cursor = text.chars().count();
                    self.input = Some(text);
                }
            }
            Action::RemoveField => {
                if let Some(r) = self.rows.get(self.cursor).cloned()
                    && r.target.removable()
                {
                    self.edit(cluster, &r.target, |doc, claims| match r.target {
                        Target::Claim(i, _) => claims::remove(doc, claims, i),
                        _ => form::remove(doc, &r.target),
                    });
                }
            }
            Action::EditYaml => {
                if let Some(d) = &self.draft {
                    self.editor = Some(TextArea::new(&d.yaml));
                }
            }
            Action::EditExternal => self.external_requested = self.draft.is_some(),
            Action::ToggleCopy => return self.toggle_copy(cluster),
            Action::PlaceReplicas => {
                self.replicas_max = false;
                self.panel = Panel::Replicas;
                self.scroll = 0;
                if self.replicas_n == 0 {
                    self.replicas_n = DEFAULT_REPLICAS;
                }
                self.request_replicas(cluster);
            }
            Action::MoreReplicas if self.panel == Panel::Replicas => {
                self.replicas_max = false;
                self.replicas_n = (self.replicas_n + 1).min(1000);
                self.request_replicas(cluster);
            }
            Action::FewerReplicas if self.panel == Panel::Replicas => {
                self.replicas_max = false;
                self.replicas_n = self.replicas_n.saturating_sub(1).max(1);
                self.request_replicas(cluster);
            }
            Action::ShowAnswer => {
                self.panel = Panel::Answer;
                self.scroll = 0;
            }
            Action::SaveDraft => return self.save(None),
            Action::Back if self.panel == Panel::Disruption && self.disruption_computing() => {
                self.progress
                    .cancel
                    .store(true, std::sync::atomic::Ordering::Relaxed);
                return KeyResult::Info("cancelling the disruption what-if…".into());
            }
            Action::Back if self.panel != Panel::Answer => {
                self.panel = Panel::Answer;
                self.scroll = 0;
            }
            _ => return KeyResult::Pass,
        }
        KeyResult::Done
    }

    /// Writes the draft's YAML to `path`, or `<name>.yaml` here (the name
    /// made safe: no `/`, `..` or control characters). An existing file is
    /// not overwritten: the status says so and how (`:save! PATH`).
    pub fn save(&self, path: Option<String>) -> KeyResult {
        self.save_to(path, false)
    }

    /// `:save! PATH`: writes the draft over `PATH` if it exists.
    pub fn save_over(&self, path: String) -> KeyResult {
        self.save_to(Some(path), true)
    }

    fn save_to(&self, path: Option<String>, overwrite: bool) -> KeyResult {
        let Some(d) = &self.draft else {
            return KeyResult::Error("no draft to save (e on a pod, or :draft new)".into());
        };
        let path =
            PathBuf::from(path.unwrap_or_else(|| crate::app::files::draft_file_name(&d.name())));
        let written = if overwrite {
            crate::app::files::replace(&path, d.yaml.as_bytes())
        } else {
            crate::app::files::write_new(&path, d.yaml.as_bytes(), "save!")
        };
        match written {
            Ok(()) => KeyResult::Info(format!("draft saved to {}", path.display())),
            Err(e) => KeyResult::Error(e),
        }
    }

    /// Reads a draft from a file: a Pod or a workload (its controller's
    /// pod), alone or among other objects (`:load PATH KIND/NAME` picks one
    /// of several). A file that does not give a valid pod leaves the
    /// current draft as it was.
    pub fn load(&mut self, cluster: &Arc<Cluster>, arg: &str) -> KeyResult {
        let (path, select) = match arg.rsplit_once(' ') {
            Some((p, sel)) if !std::path::Path::new(arg).exists() && sel.contains('/') => {
                (p.trim_end(), Some(sel))
            }
            _ => (arg, None),
        };
        let text = match std::fs::read_to_string(path) {
            Ok(t) => t,
            Err(e) => return KeyResult::Error(format!("{path}: {e}")),
        };
        self.interner(cluster);
        let mut i = self.interner.take().unwrap_or_default();
        let mut d = Draft::new(serde_json::json!({}));
        let parsed = d.set_yaml_choosing(&text, select, &mut i);
        self.interner = Some(i);
        if let Err(e) = parsed {
            return KeyResult::Error(format!("{path}: {e}; the draft is unchanged"));
        }
        if !d.valid {
            let why = d.error.clone().unwrap_or_default();
            return KeyResult::Error(format!("{path}: {why}; the draft is unchanged"));
        }
        let loaded = match &d.workload {
            Some(w) => {
                if let crate::source::workload::Replicas::Count(n) = w.replicas
                    && n > 0
                {
                    self.replicas_n = n as usize;
                }
                let count = match w.replicas {
                    crate::source::workload::Replicas::Count(n) => {
                        format!("{n} replica(s), r places them")
                    }
                    crate::source::workload::Replicas::PerNode => {
                        "one pod per eligible node, r places them".to_string()
                    }
                };
                format!("{}'s pod ({count})", w.key())
            }
            None => "draft".to_string(),
        };
        self.start_draft(cluster, d, None);
        KeyResult::Info(format!("{loaded} loaded from {path}"))
    }
}

/// What a What-if key did, for the status line.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum KeyResult {
    /// Not a What-if key: the global table handles it.
    Pass,
    Done,
    Info(String),
    Error(String),
}
