//! How replay hooks into the app: its keys, `:at` and `:mark`, and the
//! Replay view's scroll.

use crossterm::event::KeyEvent;

use super::{TIME_STEP_MS, clock, parse_time};
use crate::app::feed::Feed;
use crate::app::keys::{self, Action, Scope};
use crate::app::{App, Phase};

impl App {
    /// The recording being replayed, if any.
    pub fn replay(&self) -> Option<&super::Replay> {
        self.feed.as_ref().and_then(Feed::replay)
    }

    fn replay_mut(&mut self) -> Option<&mut super::Replay> {
        self.feed.as_mut().and_then(Feed::replay_mut)
    }

    /// A replay key (any view), as the key table's Replay scope binds it;
    /// `true` when it was one.
    pub(crate) fn replay_key(&mut self, key: KeyEvent) -> bool {
        let Some(action) = keys::action(&[Scope::Replay], &key) else {
            return false;
        };
        let Some(r) = self.replay_mut() else {
            return false;
        };
        match action {
            Action::PlayPause => r.toggle_play(),
            Action::StepForward => r.step_events(1),
            Action::StepBack => r.step_events(-1),
            Action::TimeForward => r.step_time(TIME_STEP_MS as i64),
            Action::TimeBack => r.step_time(-(TIME_STEP_MS as i64)),
            Action::Faster => r.change_speed(true),
            Action::Slower => r.change_speed(false),
            Action::Mark => self.mark_moment(),
            Action::NextDisagreement => self.next_disagreement(),
            _ => return false,
        }
        true
    }

    /// `:at TIME`.
    pub(crate) fn jump_to(&mut self, text: &str) {
        let Some(r) = self.replay_mut() else {
            self.set_error(":at works in a recording (kplace --snapshot TIMELINE)");
            return;
        };
        match parse_time(text, r.clock_ms, r.end_ms()) {
            Ok(t) => {
                r.seek_time(t);
                let text = format!("jumped to {}", clock(t));
                self.set_info(text);
            }
            Err(e) => self.set_error(e),
        }
    }

    /// `n`: the next binding the trust check disagrees with (after the
    /// moment shown, wrapping around): goes to the moment kplace answered
    /// for and opens that pod's Placement once the moment is built.
    pub(crate) fn next_disagreement(&mut self) {
        let scheduler = self.engine_scheduler(self.scheduler.clone());
        let Some(r) = self.replay_mut() else {
            return;
        };
        r.start_trust_check(&scheduler);
        let Some((_, checks)) = r.trust.as_ref().and_then(|t| t.result.as_ref()) else {
            self.set_info("the trust check is still running (Replay view, 8)");
            return;
        };
        let disagreeing: Vec<(usize, u64, String)> = checks
            .iter()
            .filter(|c| !c.agrees())
            .map(|c| (c.predict_at, c.t, c.pod.clone()))
            .collect();
        let here = r.position;
        let Some((at, t, pod)) = disagreeing
            .iter()
            .find(|d| d.0 > here)
            .or_else(|| disagreeing.first())
            .cloned()
        else {
            self.set_info("kplace agrees with every binding of this recording");
            return;
        };
        r.seek_events(at);
        let already_shown = !r.catching_up();
        self.open_pod = Some(pod.clone());
        if already_shown {
            self.open_waiting_pod();
        }
        let text = format!(
            "{pod} was bound at {}; showing kplace's answer just before",
            clock(t)
        );
        self.set_info(text);
    }

    /// `m` / `:mark`: marks the moment shown, to compare later moments with.
    pub(crate) fn mark_moment(&mut self) {
        let Phase::Ready(session) = &self.phase else {
            return;
        };
        let Some(r) = self.feed.as_mut().and_then(Feed::replay_mut) else {
            self.set_error("marks work in a recording (kplace --snapshot TIMELINE)");
            return;
        };
        r.toggle_mark(&session.loaded);
        let text = match r.mark {
            Some((_, t)) => format!(
                "marked {}: the Replay view (8) compares it with the moment shown",
                clock(t)
            ),
            None => "mark cleared".to_string(),
        };
        self.set_info(text);
    }
}
