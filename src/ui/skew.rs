//! Skew: for a workload's next replica (or a pending pod) and one of its
//! spread constraints, the engine's domains and counts against maxSkew, and
//! the fleet's workloads at their maxSkew.

use ratatui::Frame;
use ratatui::layout::{Constraint, Layout, Rect};
use ratatui::style::{Modifier, Style};
use ratatui::text::{Line, Span};
use ratatui::widgets::Paragraph;

use crate::app::derived::Fleet;
use crate::app::format;
use crate::app::skew::{SkewReport, Subject};
use crate::app::{App, Session};
use crate::model::pod::WhenUnsatisfiable;

use super::bar::bar;
use super::{fitted_panel, panel};

pub fn draw(frame: &mut Frame, app: &App, s: &Session, area: Rect) {
    let Some(fleet) = s.loaded.derived.fleet() else {
        let what = format!("the workload list from {} pods", s.cluster().pods.len());
        return super::building(frame, app, area, "Skew", what);
    };
    let [left, right] = Layout::horizontal([
        Constraint::Length(56.min(area.width / 3).max(46.min(area.width / 2))),
        Constraint::Min(10),
    ])
    .areas(area);
    let alerts = fleet.skew_alerts.len() as u16;
    let [list, fleet_area] = Layout::vertical([
        Constraint::Min(5),
        Constraint::Length((alerts + 4).clamp(4, left.height / 2)),
    ])
    .areas(left);
    draw_workloads(frame, app, s, fleet, list);
    draw_fleet(frame, app, s, fleet, fleet_area);
    draw_domains(frame, app, s, right);
}

fn draw_workloads(frame: &mut Frame, app: &App, s: &Session, d: &Fleet, area: Rect) {
    let t = &app.theme;
    let height = area.height.saturating_sub(2) as usize;
    let range = s.skew_cursor.visible(s.skew_rows.len(), height);
    let width = (area.width as usize).saturating_sub(2);
    let lines: Vec<Line> = range
        .map(|i| {
            let row = s.skew_rows[i];
            let (kind, count) = match &d.skew_subjects[row] {
                Subject::Workload(w) => {
                    let w = &d.workloads[*w];
                    let kind = if w.kind == "StatefulSet" {
                        "sts"
                    } else {
                        "rs "
                    };
                    (kind, w.pods().to_string())
                }
                Subject::Pending(_) => ("pod", "pending".to_string()),
            };
            let text = format!(
                "{kind} {:<w$} {:>7}",
                format::truncate(&d.skew_labels[row], width.saturating_sub(12)),
                count,
                w = width.saturating_sub(12)
            );
            let style = if i == s.skew_cursor.selected {
                t.selected()
            } else {
                t.fg(t.fg)
            };
            Line::from(Span::styled(text, style))
        })
        .collect();
    let name = match &s.namespace {
        Some(ns) => format!("Workloads [{ns}]"),
        None => "Workloads".to_string(),
    };
    let mut title = if s.skew_filter.is_empty() && s.namespace.is_none() {
        format!("{name} ({})", s.skew_rows.len())
    } else {
        format!("{name} ({}/{})", s.skew_rows.len(), d.skew_subjects.len())
    };
    if !s.skew_filter.is_empty() {
        title.push_str(&format!(" /{}", s.skew_filter));
    }
    frame.render_widget(
        Paragraph::new(lines).block(fitted_panel(app, &[title], area.width)),
        area,
    );
}

/// Every workload at or over a DoNotSchedule maxSkew, then those one
/// replica away from it.
fn draw_fleet(frame: &mut Frame, app: &App, s: &Session, fleet: &Fleet, area: Rect) {
    let t = &app.theme;
    let alerts = s.fleet_alerts(fleet);
    let at = alerts.iter().filter(|a| a.at_max()).count();
    let width = (area.width as usize).saturating_sub(2);
    let mut lines = Vec::new();
    if alerts.is_empty() {
        lines.push(Line::from(Span::styled(
            "no workload within one replica of its maxSkew",
            t.fg(t.muted),
        )));
    }
    // Columns line up over the rows shown: the key and the skew padded to
    // the widest, so every name gets the same room (cut at the end, as in
    // the workload list above).
    // The wheel over the pane and J / K scroll it (`f` opens the whole list).
    let range = s
        .fleet_scroll
        .window(alerts.len(), area.height.saturating_sub(2) as usize);
    s.fleet_scroll
        .set_pane(area.x, area.y, area.width, area.height);
    let shown = &alerts[range];
    let skew_text = |a: &&crate::app::skew::SkewAlert| format!("{}/{}", a.skew, a.max_skew);
    let key_width = shown
        .iter()
        .map(|a| a.short_key().chars().count())
        .max()
        .unwrap_or(0);
    let skew_width = shown.iter().map(|a| skew_text(a).len()).max().unwrap_or(0);
    for a in shown {
        let (mark, color) = if a.at_max() {
            ("✗ at max", t.bad)
        } else {
            ("! 1 away", t.warn)
        };
        let key = a.short_key();
        let tail = format!(" {key:<key_width$} {:>skew_width$} {mark}", skew_text(a));
        let name_width = width.saturating_sub(tail.chars().count());
        lines.push(Line::from(vec![
            Span::styled(
                format!(
                    "{:<w$}",
                    format::truncate(&a.label, name_width),
                    w = name_width
                ),
                t.fg(t.fg),
            ),
            Span::styled(tail, Style::new().fg(color)),
        ]));
    }
    frame.render_widget(
        Paragraph::new(lines).block(fitted_panel(
            app,
            &[
                format!(
                    "Fleet: {at} at maxSkew, {} one replica away (J/K scroll, f: all)",
                    alerts.len() - at
                ),
                format!(
                    "Fleet: {at} at maxSkew, {} one away (J/K scroll, f: all)",
                    alerts.len() - at
                ),
                format!(
                    "Fleet: {at} at max, {} near (J/K, f: all)",
                    alerts.len() - at
                ),
                format!(
                    "Fleet: {at} at maxSkew, {} one replica away (f: all)",
                    alerts.len() - at
                ),
                format!(
                    "Fleet: {at} at maxSkew, {} one away (f: all)",
                    alerts.len() - at
                ),
                format!("Fleet: {at} at max, {} near (f: all)", alerts.len() - at),
                format!(
                    "Fleet: {at} at maxSkew, {} one replica away",
                    alerts.len() - at
                ),
                format!("Fleet: {at} at maxSkew, {} one away", alerts.len() - at),
                format!("Fleet: {at} at max, {} near", alerts.len() - at),
            ],
            area.width,
        )),
        area,
    );
}

fn draw_domains(frame: &mut Frame, app: &App, s: &Session, area: Rect) {
    let t = &app.theme;
    let Some(r) = &s.skew else {
        let text = if s.skew_computing() {
            "computing…"
        } else {
            "No ReplicaSet, StatefulSet or pending pod with spread constraints in this snapshot."
        };
        frame.render_widget(Paragraph::new(text).block(panel(app, "Skew")), area);
        return;
    };
    let mut lines = header_lines(app, s, r);
    if r.count == 0 {
        frame.render_widget(
            Paragraph::new(lines)
                .wrap(ratatui::widgets::Wrap { trim: false })
                .block(fitted_panel(
                    app,
                    &[format!("Skew: {}", r.subject)],
                    area.width,
                )),
            area,
        );
        return;
    }
    let hard = r.action == Some(WhenUnsatisfiable::DoNotSchedule);
    let max_pods = r.domains.iter().map(|d| d.pods).max().unwrap_or(0).max(1);
    let name_width = r
        .domains
        .iter()
        .map(|d| d.value.chars().count())
        .max()
        .unwrap_or(4)
        .clamp(4, 28);
    // Counts aligned to the widest of them; the bar narrows (to 4) before
    // a domain's line would wrap through its counts.
    let digits = |n: i64| n.max(0).to_string().len();
    let pods_width = r.domains.iter().map(|d| digits(d.pods)).max().unwrap_or(1);
    let nodes_width = r
        .domains
        .iter()
        .map(|d| digits(d.nodes as i64))
        .max()
        .unwrap_or(1);
    let counts_width = " pods  nodes  ".len() + 1 + pods_width + nodes_width;
    let inner = (area.width as usize).saturating_sub(2);
    let bar_width = (area.width as usize)
        .saturating_sub(name_width + 80)
        .clamp(8, 30)
        .min(inner.saturating_sub(name_width + 1 + counts_width))
        .max(4);
    let footer = 1 + r.excluded.len().max(1);
    let room = (area.height as usize).saturating_sub(2 + lines.len() + footer);
    let mut used = 0;
    let mut shown = 0;
    for d in &r.domains {
        let pct = (d.pods.max(0) * 100 / max_pods) as u16;
        let skew = d.skew_after.map_or("—".to_string(), |s| s.to_string());
        let (mark, verdict, color) = if !d.admits {
            (
                "✗",
                format!(
                    "would violate: skew {skew} > maxSkew {}",
                    r.max_skew.unwrap_or(0)
                ),
                t.bad,
            )
        } else if d.fitting == 0 {
            (
                "✗",
                format!(
                    "no node fits now: {}",
                    d.why_not.as_deref().unwrap_or("no node")
                ),
                t.warn,
            )
        } else if hard {
            (
                "✓",
                format!(
                    "may take the next pod (skew {skew}; fits on {} of {} nodes)",
                    d.fitting, d.nodes
                ),
                t.good,
            )
        } else {
            (
                "✓",
                format!("fits on {} of {} nodes (skew {skew})", d.fitting, d.nodes),
                t.good,
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
        spans.push(Span::styled(
            format!(
                " {:>pods_width$} pods {:>nodes_width$} nodes  ",
                d.pods, d.nodes
            ),
            t.fg(t.fg),
        ));
        let verdict = Span::styled(format!("{mark} {verdict}"), Style::new().fg(color));
        // The verdict on the domain's line when it fits, else on its own
        // line below (wrapped between words), never splitting the counts.
        let head: usize = spans.iter().map(|s| s.width()).sum();
        let split = head + verdict.width() > inner;
        let height = if split { 2 } else { 1 };
        if used + height > room {
            break;
        }
        used += height;
        shown += 1;
        if split {
            lines.push(Line::from(spans));
            lines.push(Line::from(vec![Span::raw("  "), verdict]));
        } else {
            spans.push(verdict);
            lines.push(Line::from(spans));
        }
    }
    if r.domains.len() > shown {
        lines.push(Line::from(Span::styled(
            format!("… {} more domains", r.domains.len() - shown),
            t.fg(t.muted),
        )));
    }
    lines.push(Line::from(""));
    if r.excluded.is_empty() {
        lines.push(Line::from(Span::styled(
            "every node is counted",
            t.fg(t.muted),
        )));
    }
    for (why, nodes) in &r.excluded {
        let mut names = nodes.iter().take(5).cloned().collect::<Vec<_>>().join(", ");
        if nodes.len() > 5 {
            names.push_str(&format!(", +{} more", nodes.len() - 5));
        }
        lines.push(Line::from(Span::styled(
            format!("{} node(s) not counted, {why}: {names}", nodes.len()),
            t.fg(t.warn),
        )));
    }
    let computing = if s.skew_computing() {
        " (computing…)"
    } else {
        ""
    };
    frame.render_widget(
        Paragraph::new(lines)
            .wrap(ratatui::widgets::Wrap { trim: false })
            .block(fitted_panel(app, &skew_titles(r, computing), area.width)),
        area,
    );
}

/// The domains pane's title, fullest first: the subject (`ReplicaSet
/// shop/frontend-…`) and the topology key, then the subject without its
/// kind, the key's last part (`zone`), and the key alone (the workloads
/// pane shows the subject selected).
fn skew_titles(r: &SkewReport, computing: &str) -> [String; 4] {
    let (subject, key) = (&r.subject, &r.topology_key);
    let name = subject.split_once(' ').map_or(subject.as_str(), |(_, n)| n);
    let short_key = key.rsplit('/').next().unwrap_or(key);
    [
        format!("Skew: {subject} over {key}{computing}"),
        format!("Skew: {name} over {key}{computing}"),
        format!("Skew: {name} over {short_key}{computing}"),
        format!("Skew over {short_key}{computing}"),
    ]
}

fn header_lines(app: &App, s: &Session, r: &SkewReport) -> Vec<Line<'static>> {
    let t = &app.theme;
    let mut lines = vec![Line::from(vec![
        Span::styled("for ", t.fg(t.muted)),
        Span::styled(r.pod_note.clone(), t.fg(t.fg)),
        Span::styled(
            format!("  ({} rules)", s.scheduler.version.version),
            t.fg(t.muted),
        ),
    ])];
    if r.count == 0 {
        lines.push(Line::from(Span::styled(
            "PodTopologySpread applies no constraint to this pod (none of its own, and no default selects it)",
            t.fg(t.muted),
        )));
        return lines;
    }
    lines.push(Line::from(vec![
        Span::styled("constraint ", t.fg(t.muted)),
        Span::styled(
            format!("{} of {}", r.index + 1, r.count),
            Style::new().fg(t.accent).add_modifier(Modifier::BOLD),
        ),
        Span::styled(format!(" (t: next) from {}", r.source), t.fg(t.muted)),
    ]));
    lines.push(Line::from(vec![
        Span::styled("selector ", t.fg(t.muted)),
        Span::styled(r.selector.clone(), t.fg(t.fg)),
        Span::styled(
            format!(
                "   nodeAffinityPolicy {}  nodeTaintsPolicy {}",
                r.node_affinity_policy, r.node_taints_policy
            ),
            t.fg(t.muted),
        ),
    ]));
    let action = match r.action {
        Some(WhenUnsatisfiable::DoNotSchedule) => "DoNotSchedule",
        _ => "ScheduleAnyway: scores only, never filters",
    };
    let min = r.global_min.map_or(
        "— (no counted node has the key: Filter skips this constraint)".to_string(),
        |m| m.to_string(),
    );
    let mut summary = vec![
        Span::styled(
            format!("global minimum {min}   "),
            Style::new().fg(t.fg).add_modifier(Modifier::BOLD),
        ),
        Span::styled(
            format!("maxSkew {} ({action})", r.max_skew.unwrap_or(0)),
            Style::new().fg(t.accent).add_modifier(Modifier::BOLD),
        ),
    ];
    if let Some(skew) = r.skew {
        summary.push(Span::styled(format!("   skew now {skew}"), t.fg(t.fg)));
    }
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
    if r.no_profile {
        lines.push(Line::from(Span::styled(
            "no profile schedules this pod: where it fits is not known",
            t.fg(t.warn),
        )));
    }
    lines.push(Line::from(""));
    lines
}
