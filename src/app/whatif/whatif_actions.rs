//! How the What-if state hooks into the app: keys, palette commands and
//! the external editor.

use crossterm::event::KeyEvent;

use crate::engine::scenario::Step;

use super::{Cmd, KeyResult, palette_commands};
use crate::app::derived::NO_ZONE;
use crate::app::{App, View};

impl App {
    /// A key in the What-if view; `true` when it was a What-if key.
    pub(crate) fn whatif_key(&mut self, key: KeyEvent) -> bool {
        let Some(s) = self.session_mut() else {
            return false;
        };
        let cluster = s.loaded.cluster.clone();
        let result = s.whatif.key(&cluster, key);
        self.key_result(result)
    }

    fn key_result(&mut self, result: KeyResult) -> bool {
        match result {
            KeyResult::Pass => false,
            KeyResult::Done => true,
            KeyResult::Info(t) => {
                self.set_info(t);
                true
            }
            KeyResult::Error(t) => {
                self.set_error(t);
                true
            }
        }
    }

    /// `e` / `:draft`: a draft from the selected pod (Overview, Pods,
    /// Placement) or from the selected workload's pod (Skew).
    pub(crate) fn draft_from_selection(&mut self) {
        let view = self.view;
        let Some(s) = self.session_mut() else { return };
        let cluster = s.loaded.cluster.clone();
        if let Some(pod) = s.selected_pod(view) {
            s.whatif.open_pod(&cluster, pod, None);
        } else if view == View::Skew
            && let Some(w) = s.selected_workload()
        {
            let w = &s.loaded.derived.fleet_now().workloads[w];
            let name = format!("{}-draft", cluster.owners[w.owner].name);
            match w.sample_pod() {
                // A StatefulSet's next replica: its ordinal and claims.
                Some(pod) if s.whatif.open_stateful_replica(&cluster, pod) => {}
                Some(pod) => s.whatif.open_pod(&cluster, pod, Some(name)),
                None => {
                    self.set_error("the workload has no pod in the snapshot to draft from");
                    return;
                }
            }
        } else {
            self.set_info(
                "e drafts the selected pod (Overview, Pods, Placement) or workload (Skew); :draft new starts a blank one",
            );
            return;
        }
        self.switch_to(View::WhatIf);
    }

    /// `[` / `]` in Placement: the previous / next remedy.
    pub(crate) fn choose_remedy(&mut self, by: isize) {
        let Some(s) = self.session_mut() else { return };
        let n = s.remedies.as_ref().map_or(0, |p| p.items.len());
        if n == 0 {
            self.set_info("no change to choose: \"How to make it fit\" lists none for this pod");
            return;
        }
        s.remedy_selected = (s.remedy_selected as isize + by).rem_euclid(n as isize) as usize;
    }

    /// Enter in Placement: the chosen remedy opened in What-if.
    pub(crate) fn open_remedy(&mut self) {
        let Some(s) = self.session_mut() else { return };
        let Some(pod) = s.placement_pod else { return };
        let Some(item) = s
            .remedies
            .as_ref()
            .and_then(|p| p.items.get(s.remedy_selected))
            .cloned()
        else {
            self.set_info(
                "enter opens a change from \"How to make it fit\"; this pod has none listed",
            );
            return;
        };
        let cluster = s.loaded.cluster.clone();
        match s
            .whatif
            .open_remedy(&cluster, pod, &item.edit, &item.change)
        {
            Ok(()) => {
                self.set_info(format!("What-if: {}", item.change));
                self.switch_to(View::WhatIf);
            }
            Err(e) => self.set_error(e),
        }
    }

    /// `d` in Nodes: what draining the selected node would do.
    pub(crate) fn drain_selected(&mut self) {
        let Some(s) = self.session_mut() else { return };
        let Some(row) = s.nodes.selected_row() else {
            return;
        };
        let cluster = s.loaded.cluster.clone();
        let name = cluster.node(row).name.to_string();
        let replaced = replaced_scenario(&s.whatif.scenario);
        s.whatif.disrupt(&cluster, Step::Drain(vec![name]), false);
        if let Some(note) = replaced {
            self.set_info(note);
        }
        self.switch_to(View::WhatIf);
    }

    pub(crate) fn whatif_palette_commands(&self) -> Vec<String> {
        let zones: Vec<String> = self
            .session()
            .map(|s| {
                s.loaded
                    .derived
                    .zones
                    .iter()
                    .map(|z| z.name.clone())
                    .filter(|z| z != NO_ZONE)
                    .collect()
            })
            .unwrap_or_default();
        palette_commands(&zones)
    }

    pub(crate) fn whatif_command(&mut self, c: Cmd) {
        let Some(s) = self.session_mut() else { return };
        let cluster = s.loaded.cluster.clone();
        match c {
            Cmd::Draft { blank: false } => return self.draft_from_selection(),
            Cmd::Draft { blank: true } => s.whatif.open(&cluster, super::draft::blank_doc()),
            Cmd::Replicas => {
                if s.whatif.draft.is_none() {
                    self.set_error("no draft: e on a pod, or :draft new");
                    return;
                }
                s.whatif.key(
                    &cluster,
                    KeyEvent::from(crossterm::event::KeyCode::Char('r')),
                );
            }
            Cmd::ReplicasMax => {
                if s.whatif.draft.is_none() {
                    self.set_error("no draft: e on a pod, or :draft new");
                    return;
                }
                s.whatif.count_max(&cluster);
            }
            Cmd::Disrupt { step, then } => {
                if let Err(e) = known(&s.loaded, &step) {
                    self.set_error(e);
                    return;
                }
                if then
                    && let Some(e) =
                        crate::engine::scenario::repeated_step(&cluster, &s.whatif.scenario, &step)
                {
                    self.set_error(format!("{e}; not added"));
                    return;
                }
                let starts = then && s.whatif.scenario.is_empty();
                let replaced = (!then)
                    .then(|| replaced_scenario(&s.whatif.scenario))
                    .flatten();
                s.whatif.disrupt(&cluster, step, then);
                if starts {
                    self.set_info("no scenario yet: this step starts one");
                } else if let Some(note) = replaced {
                    self.set_info(note);
                }
            }
            Cmd::ClearScenario => {
                if s.whatif.clear_scenario(&cluster) {
                    self.set_info("scenario cleared: answers are on the snapshot as it is");
                } else {
                    self.set_error("no scenario to clear");
                }
                return;
            }
            Cmd::Save(path) => {
                let r = s.whatif.save(path);
                self.key_result(r);
                return;
            }
            Cmd::SaveOver(path) => {
                let r = s.whatif.save_over(path);
                self.key_result(r);
                return;
            }
            Cmd::Load(path) => {
                let r = s.whatif.load(&cluster, &path);
                self.key_result(r);
            }
        }
        self.switch_to(View::WhatIf);
    }

    /// The draft `E` asked to edit in `$EDITOR`, if it did (clears the
    /// request); the terminal edge runs the editor and hands the result to
    /// [`App::finish_external_edit`].
    pub fn take_external_edit(&mut self) -> Option<ExternalEdit> {
        let s = self.session_mut()?;
        if !std::mem::take(&mut s.whatif.external_requested) {
            return None;
        }
        let d = s.whatif.draft.as_ref()?;
        Some(ExternalEdit {
            text: d.yaml.clone(),
            name: d.name(),
        })
    }

    /// Applies what the editor returned for `draft` (or says why not).
    pub fn finish_external_edit(&mut self, draft: &ExternalEdit, result: Result<String, String>) {
        let Some(s) = self.session_mut() else { return };
        let cluster = s.loaded.cluster.clone();
        match result {
            Ok(edited) if edited == draft.text => {
                self.set_info("editor closed; the draft is unchanged")
            }
            Ok(edited) => match s.whatif.apply_yaml(&cluster, &edited) {
                Ok(()) => self.set_info("draft updated from the editor"),
                Err(e) => self.set_error(format!("the edited YAML does not parse: {e}")),
            },
            Err(e) => self.set_error(e),
        }
    }
}

/// A draft handed to `$EDITOR`: its YAML and the name its file is given.
#[derive(Clone, Debug)]
pub struct ExternalEdit {
    pub text: String,
    pub name: String,
}

/// What the status line says when a new scenario replaces `scenario`
/// (`None` when there was none): the steps it had are dropped, which an
/// operator who meant to add one should hear of.
fn replaced_scenario(scenario: &[Step]) -> Option<String> {
    let titles: Vec<String> = scenario.iter().map(Step::title).collect();
    (!titles.is_empty()).then(|| {
        format!(
            "a new scenario: it replaces {} (:then cordon|lose|drain … adds a step instead)",
            titles.join(", then ")
        )
    })
}

/// Whether the step names zones and nodes the snapshot has: the error
/// lists those there are (nodes lost in an earlier step are the scenario's
/// business, and said in its table).
fn known(loaded: &crate::app::loader::Loaded, step: &Step) -> Result<(), String> {
    let zones = || {
        loaded
            .derived
            .zones
            .iter()
            .map(|z| z.name.clone())
            .filter(|z| z != NO_ZONE)
            .collect::<Vec<_>>()
            .join(", ")
    };
    match step {
        Step::CordonZone(z) | Step::LoseZone(z)
            if !loaded
                .derived
                .zones
                .iter()
                .any(|x| &x.name == z && x.name != NO_ZONE) =>
        {
            Err(format!("no zone {z:?}; zones: {}", zones()))
        }
        Step::Drain(nodes) => match nodes.iter().find(|n| loaded.cluster.node_id(n).is_none()) {
            Some(n) => Err(format!(
                "no node {n:?} in the snapshot (Nodes, 4, lists them)"
            )),
            None => Ok(()),
        },
        _ => Ok(()),
    }
}
