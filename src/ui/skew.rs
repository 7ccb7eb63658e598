//! Skew: a workload's matching pods per topology domain against maxSkew.

use ratatui::Frame;
use ratatui::layout::{Constraint, Layout, Rect};
use ratatui::style::{Modifier, Style};
use ratatui::text::{Line, Span};
use ratatui::widgets::Paragraph;

use crate::app::format;
use crate::app::{App, Session};

use super::bar::bar;
use super::panel;

pub fn draw(frame: &mut Frame, app: &App, s: &Session, area: Rect) {
    let [left, right] = Layout::horizontal([
        Constraint::Length(46.min(area.width / 2)),
        Constraint::Min(10),
    ])
    .areas(area);
    draw_workloads(frame, app, s, left);
    draw_domains(frame, app, s, right);
}

fn draw_workloads(frame: &mut Frame, app: &App, s: &Session, area: Rect) {
    let t = &app.theme;
    let d = &s.loaded.derived;
    let height = area.height.saturating_sub(2) as usize;
    let range = s.skew_cursor.visible(s.skew_rows.len(), height);
    let width = (area.width as usize).saturating_sub(2);
    let lines: Vec<Line> = range
        .map(|i| {
            let w = &d.workloads[s.skew_rows[i]];
            let kind = if w.kind == "StatefulSet" {
                "sts"
            } else {
                "rs "
            };
            let text = format!(
                "{kind} {:<w$} {:>5}",
                format::truncate(&w.label, width.saturating_sub(10)),
                w.pods,
                w = width.saturating_sub(10)
            );
            let style = if i == s.skew_cursor.selected {
                t.selected()
            } else {
                t.fg(t.fg)
            };
            Line::from(Span::styled(text, style))
        })
        .collect();
    let title = if s.skew_filter.is_empty() {
        format!("Workloads ({})", s.skew_rows.len())
    } else {
        format!(
            "Workloads ({}/{}) /{}",
            s.skew_rows.len(),
            d.workloads.len(),
            s.skew_filter
        )
    };
    frame.render_widget(Paragraph::new(lines).block(panel(app, title)), area);
}

fn draw_domains(frame: &mut Frame, app: &App, s: &Session, area: Rect) {
    let t = &app.theme;
    let Some(r) = &s.skew else {
        frame.render_widget(
            Paragraph::new("No ReplicaSet or StatefulSet in this snapshot.")
                .block(panel(app, "Skew")),
            area,
        );
        return;
    };
    let key_count = s.loaded.derived.topology_keys.len();
    let mut lines = vec![
        Line::from(vec![
            Span::styled("topology key ", t.fg(t.muted)),
            Span::styled(
                r.topology_key.clone(),
                Style::new().fg(t.accent).add_modifier(Modifier::BOLD),
            ),
            Span::styled(
                format!("  ({} of {key_count}; t: next key)", s.skew_key + 1),
                t.fg(t.muted),
            ),
        ]),
        Line::from(vec![
            Span::styled("selector ", t.fg(t.muted)),
            Span::styled(r.selector.clone(), t.fg(t.fg)),
            Span::styled(format!("  (from {})", r.selector_source), t.fg(t.muted)),
        ]),
    ];
    let max_skew = match r.max_skew {
        Some(m) => Span::styled(
            format!("maxSkew {m} (DoNotSchedule)"),
            Style::new().fg(t.accent).add_modifier(Modifier::BOLD),
        ),
        None => Span::styled(
            "no DoNotSchedule constraint on this key: any domain may take the next pod",
            t.fg(t.muted),
        ),
    };
    let mut summary = vec![
        Span::styled(
            format!("global minimum {}   ", r.global_min),
            Style::new().fg(t.fg).add_modifier(Modifier::BOLD),
        ),
        max_skew,
    ];
    if let Some(m) = r.min_domains {
        summary.push(Span::styled(format!("   minDomains {m}"), t.fg(t.fg)));
    }
    lines.push(Line::from(summary));
    if !r.other_constraints.is_empty() {
        lines.push(Line::from(Span::styled(
            format!("other constraints: {}", r.other_constraints.join("; ")),
            t.fg(t.muted),
        )));
    }
    lines.push(Line::from(""));
    let max_pods = r.domains.iter().map(|d| d.pods).max().unwrap_or(0).max(1);
    let name_width = r
        .domains
        .iter()
        .map(|d| d.value.chars().count())
        .max()
        .unwrap_or(4)
        .clamp(4, 28);
    let bar_width = (area.width as usize)
        .saturating_sub(name_width + 60)
        .clamp(8, 40);
    let footer = 3;
    let room = (area.height as usize).saturating_sub(2 + lines.len() + footer);
    for d in r.domains.iter().take(room) {
        let pct = (d.pods * 100 / max_pods) as u16;
        let (mark, verdict, color) = if r.max_skew.is_none() {
            ("·", format!("{} node(s)", d.nodes), t.muted)
        } else if d.may_take_next {
            (
                "✓",
                format!("may take the next pod (skew {})", d.skew_after),
                t.good,
            )
        } else {
            (
                "✗",
                format!(
                    "would violate: skew {} > maxSkew {}",
                    d.skew_after,
                    r.max_skew.unwrap_or(0)
                ),
                t.bad,
            )
        };
        let mut spans = vec![Span::styled(
            format!(
                "{:<w$} ",
                format::truncate(&d.value, name_width),
                w = name_width
            ),
            t.fg(t.fg),
        )];
        spans.extend(bar(pct, bar_width, t.accent, t.border));
        spans.push(Span::styled(format!(" {:>5} pods  ", d.pods), t.fg(t.fg)));
        spans.push(Span::styled(
            format!("{mark} {verdict}"),
            Style::new().fg(color),
        ));
        lines.push(Line::from(spans));
    }
    if r.domains.len() > room {
        lines.push(Line::from(Span::styled(
            format!("… {} more domains", r.domains.len() - room),
            t.fg(t.muted),
        )));
    }
    lines.push(Line::from(""));
    if r.nodes_missing_key.is_empty() {
        lines.push(Line::from(Span::styled(
            "every node has this key",
            t.fg(t.muted),
        )));
    } else {
        let mut names = r
            .nodes_missing_key
            .iter()
            .take(5)
            .cloned()
            .collect::<Vec<_>>()
            .join(", ");
        if r.nodes_missing_key.len() > 5 {
            names.push_str(&format!(", +{} more", r.nodes_missing_key.len() - 5));
        }
        lines.push(Line::from(Span::styled(
            format!(
                "{} node(s) missing the key (not a domain; {} matching pod(s) there): {names}",
                r.nodes_missing_key.len(),
                r.pods_on_missing
            ),
            t.fg(t.warn),
        )));
    }
    frame.render_widget(
        Paragraph::new(lines).block(panel(
            app,
            format!("Skew: {} over {}", r.workload, r.topology_key),
        )),
        area,
    );
}
