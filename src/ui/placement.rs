//! Placement: the engine's answer for one pod, as prepared by the worker.

use ratatui::Frame;
use ratatui::layout::{Constraint, Layout, Rect};
use ratatui::style::{Modifier, Style};
use ratatui::text::{Line, Span};
use ratatui::widgets::Paragraph;

use crate::app::report::{self, Tone};
use crate::app::theme::Theme;
use crate::app::{App, Session};

use super::panel;

pub(super) fn style(t: &Theme, tone: Tone) -> Style {
    match tone {
        Tone::Heading => Style::new().fg(t.title).add_modifier(Modifier::BOLD),
        Tone::TableHeader => Style::new().fg(t.header).add_modifier(Modifier::BOLD),
        Tone::Text => Style::new().fg(t.fg),
        Tone::Good => Style::new().fg(t.good),
        Tone::Warn => Style::new().fg(t.warn),
        Tone::Bad => Style::new().fg(t.bad),
        Tone::Muted => Style::new().fg(t.muted),
    }
}

pub(super) fn lines<'a>(t: &Theme, src: &'a [report::Line]) -> Vec<Line<'a>> {
    src.iter()
        .map(|l| Line::from(Span::styled(l.text.as_str(), style(t, l.tone))))
        .collect()
}

pub fn draw(frame: &mut Frame, app: &App, s: &Session, area: Rect) {
    let t = &app.theme;
    let Some(pod) = s.placement_pod else {
        let hint = match &s.placement_gone {
            Some(key) => format!(
                "{key} does not exist in the cluster shown (deleted, or not created yet at this moment). Pick another pod in Pods (5)."
            ),
            None => "No pod selected. Pick one in Pods (5) or the Overview's pending list (1) and press enter.".to_string(),
        };
        frame.render_widget(
            Paragraph::new(Span::styled(hint, t.fg(t.muted)))
                .wrap(ratatui::widgets::Wrap { trim: false })
                .block(panel(app, "Placement")),
            area,
        );
        return;
    };
    let Some(r) = &s.placement else {
        let spin = ["⠋", "⠙", "⠹", "⠸", "⠼", "⠴", "⠦", "⠧", "⠇", "⠏"][(app.tick as usize) % 10];
        let text = format!(
            "{spin} computing… placing {} against {} nodes",
            s.cluster().pod_key(pod),
            s.cluster().nodes.len()
        );
        frame.render_widget(
            Paragraph::new(Span::styled(text, t.fg(t.warn))).block(panel(app, "Placement")),
            area,
        );
        return;
    };
    let [head, body] = Layout::vertical([
        Constraint::Length(r.header.len() as u16 + 2),
        Constraint::Min(3),
    ])
    .areas(area);
    frame.render_widget(
        Paragraph::new(lines(t, &r.header)).block(panel(app, format!("Placement: {}", r.pod))),
        head,
    );
    let height = body.height.saturating_sub(2) as usize;
    let range = s.placement_scroll.window(r.lines.len(), height);
    let shown = format!(
        "{}-{} of {} lines (↑↓ pgup pgdn)",
        range.start + 1,
        range.end,
        r.lines.len()
    );
    frame.render_widget(
        Paragraph::new(lines(t, &r.lines[range])).block(panel(app, shown)),
        body,
    );
}
