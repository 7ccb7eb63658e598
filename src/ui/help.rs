//! The `?` overlay: every key binding, grouped.

use ratatui::Frame;
use ratatui::layout::Rect;
use ratatui::style::{Modifier, Style};
use ratatui::text::{Line, Span};
use ratatui::widgets::{Clear, Paragraph};

use crate::app::App;
use crate::app::keys::BINDINGS;

use super::{centered, panel};

pub fn draw(frame: &mut Frame, app: &App, area: Rect) {
    let t = &app.theme;
    let mut lines = Vec::new();
    let mut scope = None;
    for b in BINDINGS {
        if scope != Some(b.scope) {
            if scope.is_some() {
                lines.push(Line::from(""));
            }
            scope = Some(b.scope);
            lines.push(Line::from(Span::styled(
                b.scope.title(),
                Style::new().fg(t.title).add_modifier(Modifier::BOLD),
            )));
        }
        lines.push(Line::from(vec![
            Span::styled(
                format!("  {:<16}", b.keys),
                Style::new().fg(t.accent).add_modifier(Modifier::BOLD),
            ),
            Span::styled(b.does, t.fg(t.fg)),
        ]));
    }
    lines.push(Line::from(""));
    lines.push(Line::from(Span::styled(
        "esc or ? closes this help",
        t.fg(t.muted),
    )));
    let rect = centered(area, 88, lines.len() as u16 + 2);
    frame.render_widget(Clear, rect);
    frame.render_widget(
        Paragraph::new(lines)
            .style(t.base())
            .block(panel(app, "Help: keys")),
        rect,
    );
}
