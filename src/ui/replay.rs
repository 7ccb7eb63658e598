//! The Replay view: the recording, the moment shown, the mark, and what
//! changed between the two.

use ratatui::Frame;
use ratatui::layout::{Constraint, Layout, Rect};
use ratatui::text::{Line, Span};
use ratatui::widgets::{Paragraph, Wrap};

use crate::app::App;
use crate::app::replay::{self, clock};

use super::panel;
use super::placement::lines;

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
    let mut head = vec![
        Line::from(vec![
            Span::styled("Recording  ", t.fg(t.header)),
            Span::styled(
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
                t.fg(t.fg),
            ),
        ]),
        Line::from(vec![
            Span::styled("Moment     ", t.fg(t.header)),
            Span::styled(
                format!(
                    "{} (after {} of {} events){}",
                    clock(r.clock_ms),
                    r.position,
                    r.len(),
                    r.mark
                        .map(|(_, m)| format!("   mark {}", clock(m)))
                        .unwrap_or_default()
                ),
                t.fg(t.fg),
            ),
        ]),
    ];
    for l in &h.limitations {
        head.push(Line::from(Span::styled(format!("⚠ {l}"), t.fg(t.warn))));
    }
    let [top, body] = Layout::vertical([
        Constraint::Length(head.len() as u16 + 2),
        Constraint::Min(3),
    ])
    .areas(area);
    frame.render_widget(Paragraph::new(head).block(panel(app, "Replay")), top);
    let content = replay::view_lines(r);
    let height = body.height.saturating_sub(2) as usize;
    let range = r.scroll.window(content.len(), height);
    frame.render_widget(
        Paragraph::new(lines(t, &content[range])).block(panel(
            app,
            "Trust check and the two moments compared (↑↓ scroll)",
        )),
        body,
    );
}
