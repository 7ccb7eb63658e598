//! The Replay view: the recording, the moment shown, the mark, and what
//! changed between the two.

use ratatui::Frame;
use ratatui::layout::{Constraint, Layout, Rect};
use ratatui::text::{Line, Span};
use ratatui::widgets::{Paragraph, Wrap};

use crate::app::App;
use crate::app::replay::{self, clock};

use super::placement::scrolled_wrapped;
use super::{fitted_panel, panel};

pub fn draw(frame: &mut Frame, app: &App, area: Rect) {
    let t = &app.theme;
    let Some(r) = app.replay() else {
        let hint = "Replay works on recordings: `kplace record --duration 10m -o incident.jsonl.gz` on a cluster, then `kplace --snapshot incident.jsonl.gz`; `kplace --demo-replay` opens the built-in demo recording.";
        frame.render_widget(
            Paragraph::new(Span::styled(hint, t.fg(t.muted)))
                .wrap(Wrap { trim: false })
                .block(panel(app, "Replay")),
            area,
        );
        return;
    };
    let h = &r.timeline.header;
    // Every line wraps to the pane (at 80 columns the recording's line
    // and the trust check's were cut off).
    let width = area.width.saturating_sub(2) as usize;
    let labelled = |label: &'static str, text: String| -> Vec<Line<'static>> {
        super::text::wrap(&format!("{label}{text}"), width)
            .into_iter()
            .enumerate()
            .map(|(i, row)| match row.strip_prefix(label) {
                Some(rest) if i == 0 => Line::from(vec![
                    Span::styled(label, t.fg(t.header)),
                    Span::styled(rest.to_string(), t.fg(t.fg)),
                ]),
                _ => Line::from(Span::styled(row, t.fg(t.fg))),
            })
            .collect()
    };
    let mut head = labelled(
        "Recording  ",
        format!(
            "context {}  recorded {}  {} events over {}",
            if h.context.is_empty() {
                "?"
            } else {
                &h.context
            },
            if h.recorded_at.is_empty() {
                "?"
            } else {
                &h.recorded_at
            },
            r.len(),
            clock(r.end_ms())
        ),
    );
    head.extend(labelled(
        "Moment     ",
        format!(
            "{} (after {} of {} events){}",
            clock(r.clock_ms),
            r.position,
            r.len(),
            r.mark
                .map(|(_, m)| format!("   mark {}", clock(m)))
                .unwrap_or_default()
        ),
    ));
    for l in &h.limitations {
        for row in super::text::wrap(&format!("⚠ {l}"), width) {
            head.push(Line::from(Span::styled(row, t.fg(t.warn))));
        }
    }
    let [top, body] = Layout::vertical([
        Constraint::Length(head.len() as u16 + 2),
        Constraint::Min(3),
    ])
    .areas(area);
    frame.render_widget(Paragraph::new(head).block(panel(app, "Replay")), top);
    let content = replay::view_lines(r);
    let (shown, _) = scrolled_wrapped(t, &content, &r.scroll, body, &|_| false);
    frame.render_widget(
        Paragraph::new(shown).block(fitted_panel(
            app,
            &[
                "Trust check and the two moments compared (↑↓ scroll)".to_string(),
                "Trust check and comparison (↑↓ scroll)".to_string(),
            ],
            body.width,
        )),
        body,
    );
}
