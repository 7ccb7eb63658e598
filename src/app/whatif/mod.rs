//! What-if planning: edit a draft pod and see the answer change, place N
//! replicas, drain a node or lose a zone. State and actions only; the
//! What-if view in `crate::ui::whatif` draws it.

mod answers;
pub mod claims;
mod command;
pub mod draft;
mod draft_files;
pub mod editor;
pub mod form;
mod form_keys;
pub mod plans;
mod whatif_actions;
pub mod worker;

use std::sync::Arc;
use std::time::Duration;

use crate::engine::scenario::Step;
use crate::model::{Cluster, Interner, PodId};

use super::report::{Line, PlacementReport};
use answers::RequestCount;
pub use command::{Cmd, palette_commands, parse_command, usage};
use draft::Draft;
use editor::TextArea;
use form::{Row, Target};
pub use form_keys::KeyResult;
use plans::Summary;
use worker::WhatIfWorker;

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
    pub disruption: Option<plans::DisruptionTable>,
    /// `/` over the drain or zone plan shown ([`plans::DisruptionTable::lines`]).
    pub plan_search: crate::app::inspect::TextSearch,
    /// `E` was pressed: the event loop runs `$EDITOR` and hands the text back.
    pub external_requested: bool,
    worker: Option<WhatIfWorker>,
    /// The release every what-if answer is asked of (the app's).
    pub scheduler: crate::engine::Scheduler,
    /// The disruption scenario shown, step by step (`:then` adds a step);
    /// while there is one, the draft is answered on the cluster it leaves.
    pub scenario: Vec<Step>,
    /// With a scenario: how the draft's answer differs from its answer on
    /// the unchanged snapshot.
    pub against_unchanged: Vec<Line>,
    place_seq: RequestCount,
    replicas_seq: RequestCount,
    disrupt_seq: RequestCount,
    /// The running disruption's progress; esc sets its `cancel`.
    progress: Arc<crate::engine::disruption::Progress>,
    /// A remedy opened from Placement that changes the cluster: made (in
    /// the worker's copy) for every answer of this draft.
    pub cluster_edit: Option<(crate::engine::remedies::ClusterEdit, String)>,
    /// What the status line should say once a background answer arrives
    /// (a cancelled disruption: the "cancelling…" said on esc is over).
    status_note: Option<String>,
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
    /// The status line's note from the last answers taken, once.
    pub fn take_status_note(&mut self) -> Option<String> {
        self.status_note.take()
    }

    /// Whether the answer shown is for an older, valid draft.
    pub fn stale(&self) -> bool {
        self.draft.as_ref().is_some_and(|d| !d.valid) && self.answer.is_some()
    }

    pub(super) fn interner(&mut self, cluster: &Cluster) -> &mut Interner {
        if self.interner.is_none() {
            self.base_len = cluster.interner.len();
        }
        self.interner
            .get_or_insert_with(|| cluster.interner.clone())
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
    pub(super) fn start_draft(&mut self, cluster: &Arc<Cluster>, d: Draft, origin: Option<PodId>) {
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

    pub(super) fn refresh_rows(&mut self) {
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

    pub(super) fn first_selectable(&self, from: usize) -> usize {
        (from..self.rows.len())
            .chain(0..from)
            .find(|&i| self.rows[i].target.selectable())
            .unwrap_or(0)
    }

    /// A form edit: rewrite the document, re-parse, re-evaluate.
    pub(super) fn edit(
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
}
