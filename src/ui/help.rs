//! The `?` overlay: every key binding, grouped; in two columns when one
//! would not fit the terminal's height.

use ratatui::Frame;
use ratatui::layout::{Constraint, Layout, Rect};
use ratatui::style::{Modifier, Style};
use ratatui::text::{Line, Span};
use ratatui::widgets::{Clear, Paragraph};

use crate::app::App;
use crate::app::keys::BINDINGS;

use super::{centered, panel};

/// Width of one column of bindings.
const COLUMN: u16 = 88;

pub fn draw(frame: &mut Frame, app: &App, area: Rect) {
    let t = &app.theme;
    // The text wraps to the column: on an 80-column terminal every
    // binding's words are still there.
    let inner = COLUMN.min(area.width.saturating_sub(2)).saturating_sub(1) as usize;
    // As wide as the widest keys (and two spaces on either side).
    let keys_width = BINDINGS
        .iter()
        .map(|b| super::text::width(b.keys))
        .max()
        .unwrap_or(16)
        + 3;
    // One block of lines per scope, so a column break never splits one.
    let mut blocks: Vec<Vec<Line>> = Vec::new();
    let mut scope = None;
    for b in BINDINGS {
        if scope != Some(b.scope) {
            scope = Some(b.scope);
            blocks.push(vec![Line::from(Span::styled(
                b.scope.title(),
                Style::new().fg(t.title).add_modifier(Modifier::BOLD),
            ))]);
        }
        if let Some(block) = blocks.last_mut() {
            let rows = super::text::wrap(b.does, inner.saturating_sub(keys_width).max(10));
            for (i, row) in rows.into_iter().enumerate() {
                let keys = if i == 0 { b.keys } else { "" };
                block.push(Line::from(vec![
                    Span::styled(
                        format!("  {keys:<w$}", w = keys_width - 2),
                        Style::new().fg(t.accent).add_modifier(Modifier::BOLD),
                    ),
                    Span::styled(row, t.fg(t.fg)),
                ]));
            }
        }
    }
    let total: usize = blocks.iter().map(|b| b.len() + 1).sum();
    let two = total as u16 + 3 > area.height && area.width >= 2 * COLUMN + 2;
    // The split that makes the taller column the shortest.
    let split = if two {
        let mut left = 0;
        (1..blocks.len())
            .map(|i| {
                left += blocks[i - 1].len() + 1;
                (left.max(total - left), i)
            })
            .min()
            .map_or(blocks.len(), |(_, i)| i)
    } else {
        blocks.len()
    };
    let column = |blocks: &[Vec<Line<'static>>]| {
        let mut lines = Vec::new();
        for (i, b) in blocks.iter().enumerate() {
            if i > 0 {
                lines.push(Line::from(""));
            }
            lines.extend(b.iter().cloned());
        }
        lines
    };
    let left = column(&blocks[..split]);
    let right = column(&blocks[split..]);
    // Borders, the bindings, a blank line and the footer.
    let height = left.len().max(right.len()) as u16 + 4;
    // Too tall for the terminal: the bindings scroll (clamped to the end);
    // the footer stays.
    let overflow = height.saturating_sub(area.height);
    let scroll = app.help_scroll.min(overflow);
    let footer = Span::styled(
        if overflow > 0 {
            "esc, q or ? closes this help · ↑↓ pgup pgdn scroll"
        } else {
            "esc, q or ? closes this help"
        },
        t.fg(t.muted),
    );
    let width = if two { 2 * COLUMN } else { COLUMN };
    let rect = centered(area, width, height);
    frame.render_widget(Clear, rect);
    let block = panel(app, "Help: keys");
    let inner = block.inner(rect);
    frame.render_widget(block.style(t.base()), rect);
    let [body, _, foot] = Layout::vertical([
        Constraint::Min(1),
        Constraint::Length(1),
        Constraint::Length(1),
    ])
    .areas(inner);
    let para = |lines| Paragraph::new(lines).style(t.base()).scroll((scroll, 0));
    if two {
        let [l, r] =
            Layout::horizontal([Constraint::Length(COLUMN), Constraint::Min(1)]).areas(body);
        frame.render_widget(para(left), l);
        frame.render_widget(para(right), r);
    } else {
        frame.render_widget(para(left), body);
    }
    frame.render_widget(Paragraph::new(Line::from(footer)).style(t.base()), foot);
}
