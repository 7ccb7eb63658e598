//! The `:` command palette overlay.

use ratatui::Frame;
use ratatui::layout::Rect;
use ratatui::style::{Modifier, Style};
use ratatui::text::{Line, Span};
use ratatui::widgets::{Clear, Paragraph};

use crate::app::App;
use crate::app::palette::Palette;

use super::panel;

/// Matches listed under the input.
const SHOWN: usize = 8;

pub fn draw(frame: &mut Frame, app: &App, p: &Palette, area: Rect) {
    let t = &app.theme;
    let (before, after) = crate::app::line::split_at_cursor(&p.input, p.cursor);
    let mut lines = vec![Line::from(vec![
        Span::styled(":", Style::new().fg(t.accent).add_modifier(Modifier::BOLD)),
        Span::styled(before.to_string(), t.fg(t.fg)),
        Span::styled("█", t.fg(t.accent)),
        Span::styled(after.to_string(), t.fg(t.fg)),
    ])];
    let start = p.highlighted.saturating_sub(SHOWN - 1);
    for (i, m) in p.matches.iter().enumerate().skip(start).take(SHOWN) {
        let style = if i == p.highlighted {
            t.selected()
        } else {
            t.fg(t.fg)
        };
        lines.push(Line::from(Span::styled(format!(" {m} "), style)));
    }
    if p.matches.is_empty() {
        lines.push(Line::from(Span::styled(
            " no matching command",
            t.fg(t.bad),
        )));
    }
    lines.push(Line::from(Span::styled(
        "tab: complete  enter: run  esc: cancel",
        t.fg(t.muted),
    )));
    let width = area.width.min(60);
    let rect = Rect::new(
        area.x + (area.width - width) / 2,
        area.y + 2,
        width,
        (lines.len() as u16 + 2).min(area.height.saturating_sub(2)),
    );
    frame.render_widget(Clear, rect);
    frame.render_widget(
        Paragraph::new(lines)
            .style(t.base())
            .block(panel(app, "command")),
        rect,
    );
}
