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
    // "How to make it fit" sits under the verdict, at most a third of
    // the pane (it scrolls with the selection when longer).
    let fix_rows = s
        .remedies
        .as_ref()
        .map_or(0, |p| (p.rows() as u16 + 2).min(area.height / 3).max(3));
    let [head, fixes, body] = Layout::vertical([
        Constraint::Length(r.header.len() as u16 + 2),
        Constraint::Length(fix_rows),
        Constraint::Min(3),
    ])
    .areas(area);
    frame.render_widget(
        Paragraph::new(lines(t, &r.header)).block(panel(app, format!("Placement: {}", r.pod))),
        head,
    );
    if let Some(p) = &s.remedies {
        draw_remedies(frame, app, p, s.remedy_selected, fixes);
    }
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

/// The remedies, one per line, the selected one marked; notes muted.
fn draw_remedies(
    frame: &mut Frame,
    app: &App,
    p: &crate::app::remedies::RemedyPanel,
    selected: usize,
    area: Rect,
) {
    let t = &app.theme;
    let mut rows: Vec<Line> = Vec::new();
    if let Some(progress) = &p.progress {
        let spin = ["⠋", "⠙", "⠹", "⠸", "⠼", "⠴", "⠦", "⠧", "⠇", "⠏"][(app.tick as usize) % 10];
        rows.push(Line::from(Span::styled(
            format!("{spin} {progress}"),
            t.fg(t.warn),
        )));
    }
    for (i, item) in p.items.iter().enumerate() {
        let marker = if i == selected { "▶ " } else { "  " };
        let mut style = style(t, Tone::Text);
        if i == selected {
            style = style.add_modifier(Modifier::REVERSED);
        }
        rows.push(Line::from(vec![
            Span::styled(marker, style),
            Span::styled(format!("[{}] ", item.kind.as_str()), t.fg(t.muted)),
            Span::styled(item.text.as_str(), style),
        ]));
    }
    for note in &p.notes {
        rows.push(Line::from(Span::styled(format!("  {note}"), t.fg(t.muted))));
    }
    let height = area.height.saturating_sub(2) as usize;
    let skip = (selected + 1).saturating_sub(height.max(1));
    let title = if p.items.is_empty() {
        "How to make it fit".to_string()
    } else {
        format!(
            "How to make it fit: {} verified change(s) ([ ] choose, enter opens in What-if)",
            p.items.len()
        )
    };
    frame.render_widget(
        Paragraph::new(rows.into_iter().skip(skip).collect::<Vec<_>>())
            .wrap(ratatui::widgets::Wrap { trim: false })
            .block(panel(app, title)),
        area,
    );
}
