//! Title bar, tab bar, note line and status line.

use ratatui::Frame;
use ratatui::layout::Rect;
use ratatui::style::{Modifier, Style};
use ratatui::text::{Line, Span};
use ratatui::widgets::Paragraph;

use crate::app::{App, Phase, View};

pub fn title_bar(frame: &mut Frame, app: &App, area: Rect) {
    let t = &app.theme;
    let mut spans = vec![Span::styled(
        " kplace ",
        Style::new().fg(t.accent).add_modifier(Modifier::BOLD),
    )];
    if let Some(s) = app.session() {
        let d = &s.loaded.derived;
        spans.push(Span::styled(format!(" {} ", s.loaded.name), t.fg(t.title)));
        // `:ns NAME`, as k9s shows the namespace in force.
        if let Some(ns) = &s.namespace {
            spans.push(Span::styled(
                format!(" ns:{ns} "),
                Style::new().fg(t.accent).add_modifier(Modifier::BOLD),
            ));
        }
        spans.push(Span::styled(
            format!(
                " {} nodes · {} zones · {} pods ({} pending) ",
                s.cluster().nodes.len(),
                d.zones.len(),
                d.scheduled + d.pending.len(),
                d.pending.len()
            ),
            t.fg(t.muted),
        ));
    }
    if !matches!(app.phase, Phase::Failed { .. }) {
        spans.push(Span::styled(
            format!(" kube-scheduler {} rules ", app.scheduler.version),
            t.fg(t.accent),
        ));
        if let Some(config) = &app.scheduler_config {
            let names: Vec<&str> = config
                .profiles
                .iter()
                .map(|p| p.scheduler_name.as_str())
                .collect();
            spans.push(Span::styled(
                format!(" profiles {} ", names.join(", ")),
                t.fg(t.accent),
            ));
        }
    }
    let hints = " ?:help  ::command  /:filter  esc:back  q:quit ";
    let used: usize = spans.iter().map(|s| s.width()).sum();
    let gap = (area.width as usize).saturating_sub(used + hints.len());
    spans.push(Span::raw(" ".repeat(gap)));
    spans.push(Span::styled(hints, t.fg(t.muted)));
    frame.render_widget(Paragraph::new(Line::from(spans)), area);
}

pub fn tab_bar(frame: &mut Frame, app: &App, area: Rect) {
    let t = &app.theme;
    let mut spans = vec![Span::raw(" ")];
    for (i, v) in View::ALL.iter().enumerate() {
        let label = format!(" {} {} ", i + 1, v.title());
        let style = if *v == app.view {
            if t.monochrome {
                Style::new().add_modifier(Modifier::REVERSED | Modifier::BOLD)
            } else {
                Style::new()
                    .fg(t.selected_fg)
                    .bg(t.tab_active)
                    .add_modifier(Modifier::BOLD)
            }
        } else {
            t.fg(t.header)
        };
        spans.push(Span::styled(label, style));
        spans.push(Span::raw(" "));
    }
    frame.render_widget(Paragraph::new(Line::from(spans)), area);
}

pub fn note(frame: &mut Frame, app: &App, text: &str, area: Rect) {
    let t = &app.theme;
    frame.render_widget(
        Paragraph::new(Span::styled(
            format!(" ⚠ {text}"),
            Style::new().fg(t.warn).add_modifier(Modifier::BOLD),
        ))
        .wrap(ratatui::widgets::Wrap { trim: true }),
        area,
    );
}

pub fn status_line(frame: &mut Frame, app: &App, area: Rect) {
    let t = &app.theme;
    let line = if let Some((prompt, text, cursor)) = app.input_line() {
        let (before, after) = crate::app::line::split_at_cursor(text, cursor);
        let hint = if app.filtering {
            "   enter: keep  esc: clear  (!text: without it, -l k=v: labels)"
        } else {
            "   enter: search  esc: cancel"
        };
        Line::from(vec![
            Span::styled(
                format!(" {prompt}"),
                Style::new().fg(t.accent).add_modifier(Modifier::BOLD),
            ),
            Span::styled(before.to_string(), t.fg(t.fg)),
            Span::styled("█", t.fg(t.accent)),
            Span::styled(after.to_string(), t.fg(t.fg)),
            Span::styled(hint, t.fg(t.muted)),
        ])
    } else if let Some(status) = &app.status {
        let color = if status.is_error { t.bad } else { t.good };
        Line::from(Span::styled(
            format!(" {}", status.text),
            Style::new().fg(color),
        ))
    } else {
        let mut spans = vec![Span::styled(
            format!(" <{}>", app.view.command()),
            t.fg(t.accent),
        )];
        if let Some(f) = app.filter_text().filter(|f| !f.is_empty()) {
            spans.push(Span::styled(
                format!("  filter: {f}  (esc clears)"),
                t.fg(t.warn),
            ));
        }
        if let Some(ns) = app.session().and_then(|s| s.namespace.as_deref()) {
            spans.push(Span::styled(
                format!("  ns: {ns} (:ns all clears)"),
                t.fg(t.warn),
            ));
        }
        if let Phase::Ready(s) = &app.phase
            && s.placement_computing()
        {
            spans.push(Span::styled("  computing placement…", t.fg(t.warn)));
        }
        spans.push(Span::styled(
            format!("  theme: {}", app.theme.name),
            t.fg(t.muted),
        ));
        Line::from(spans)
    };
    frame.render_widget(Paragraph::new(line), area);
}
