//! Keys in the What-if view, as the key table binds them: the form's
//! rows, the priority class chooser, the in-app YAML editor, typed input,
//! and the panel keys (replicas, the copy toggle, cancel).

use std::sync::Arc;

use crossterm::event::KeyEvent;

use crate::model::Cluster;

use super::editor::{EditorAction, TextArea};
use super::form::{self, Target};
use super::{DEFAULT_REPLICAS, Panel, WhatIf, claims, class_choices, plans};

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

impl WhatIf {
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

    /// How many lines the panel shown scrolls over (its source lines; a
    /// long one wraps on screen).
    fn scroll_lines(&self) -> usize {
        match self.panel {
            Panel::Answer => self.answer.as_ref().map_or(0, |r| r.lines.len()),
            Panel::Replicas => self.replicas.as_ref().map_or(0, Vec::len),
            Panel::Disruption => self
                .disruption
                .as_ref()
                .map_or(0, plans::DisruptionTable::line_count),
        }
    }

    /// `/`, the typed query, and `n` / `N` over a drain or zone plan on
    /// screen; `None` when the key is not for the search.
    fn plan_search_key(&mut self, key: KeyEvent) -> Option<KeyResult> {
        use crate::app::keys::{self, Action, Scope};
        use crate::app::line::{Edit, edit};
        if self.panel != Panel::Disruption || self.disruption_computing() {
            return None;
        }
        let table = self.disruption.as_ref()?;
        let search = &mut self.plan_search;
        if search.typing {
            if edit(&mut search.query, &mut search.cursor, key) == Edit::Ignored {
                match keys::action(&[Scope::Input], &key) {
                    Some(Action::Cancel) => self.plan_search = Default::default(),
                    Some(Action::Accept) => {
                        if let Some(line) = search.run(&table.lines(), self.scroll) {
                            self.scroll = line;
                        }
                        return Some(KeyResult::Info(search.describe()));
                    }
                    _ => {}
                }
            }
            return Some(KeyResult::Done);
        }
        match keys::action(&[Scope::WhatIf, Scope::Global], &key) {
            Some(Action::Filter) => {
                search.start();
                Some(KeyResult::Done)
            }
            Some(action @ (Action::SearchNext | Action::SearchPrev)) => {
                if let Some(line) = search.step(action == Action::SearchNext) {
                    self.scroll = line;
                }
                Some(KeyResult::Info(search.describe()))
            }
            Some(Action::Back) if !search.query.is_empty() => {
                self.plan_search = Default::default();
                Some(KeyResult::Done)
            }
            _ => None,
        }
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
        if let Some(result) = self.plan_search_key(key) {
            return result;
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
            // Past the last line the view would stay put while the scroll
            // grew, and pgup would take as many presses to come back.
            Action::PageDown => {
                self.scroll = (self.scroll + 10).min(self.scroll_lines().saturating_sub(1))
            }
            Action::Home => self.scroll = 0,
            // The last line at the top: a 30,000-row plan's end in one key.
            Action::End => self.scroll = self.scroll_lines().saturating_sub(1),
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
