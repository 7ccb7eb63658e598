//! The loading screen (spinner, file, elapsed time) and the load error.

use ratatui::Frame;
use ratatui::layout::Rect;
use ratatui::style::{Modifier, Style};
use ratatui::text::{Line, Span};
use ratatui::widgets::{Paragraph, Wrap};

use crate::app::App;
use crate::app::loader::Loading;

use super::{centered, panel};

const SPINNER: [&str; 10] = ["⠋", "⠙", "⠹", "⠸", "⠼", "⠴", "⠦", "⠧", "⠇", "⠏"];

pub fn loading(frame: &mut Frame, app: &App, l: &Loading, area: Rect) {
    let t = &app.theme;
    let spin = SPINNER[(app.tick as usize) % SPINNER.len()];
    let size = l
        .size
        .map(|b| format!(" ({})", crate::app::format::memory(b as i64)))
        .unwrap_or_default();
    let elapsed = l.started.elapsed().as_secs_f64();
    let lines = vec![
        Line::from(vec![
            Span::styled(
                format!("{spin} Loading "),
                Style::new().fg(t.accent).add_modifier(Modifier::BOLD),
            ),
            Span::styled(format!("{}{size}", l.name), t.fg(t.fg)),
        ]),
        Line::from(Span::styled(
            format!("  {elapsed:.1}s elapsed: {}", l.progress()),
            t.fg(t.muted),
        )),
        Line::from(Span::styled("  q quits", t.fg(t.muted))),
    ];
    // Room for a connection error on two or three rows.
    let rect = centered(area, 100, 7);
    frame.render_widget(
        Paragraph::new(lines)
            .wrap(Wrap { trim: false })
            .block(panel(app, "loading")),
        rect,
    );
}

pub fn failed(frame: &mut Frame, app: &App, source: &str, error: &str, area: Rect) {
    let t = &app.theme;
    let lines = vec![
        Line::from(Span::styled(
            format!("Could not load {source}"),
            Style::new().fg(t.bad).add_modifier(Modifier::BOLD),
        )),
        Line::from(""),
        Line::from(Span::styled(error.to_string(), t.fg(t.fg))),
        Line::from(""),
        Line::from(Span::styled("q or esc quits", t.fg(t.muted))),
    ];
    let rect = centered(area, 110, 12);
    frame.render_widget(
        Paragraph::new(lines)
            .wrap(Wrap { trim: false })
            .block(panel(app, "error")),
        rect,
    );
}
