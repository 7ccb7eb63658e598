//! The Nodes and Pods tables. Only the visible rows are built each frame.

use ratatui::Frame;
use ratatui::layout::{Constraint, Rect};
use ratatui::style::{Modifier, Style};
use ratatui::widgets::{Cell, Row, Table};

use crate::app::format;
use crate::app::table::{NODE_SORTS, POD_SORTS, TableView};
use crate::app::{App, Session};

use super::panel;

fn title(name: &str, view: &TableView, total: usize, sorts: &[&str]) -> String {
    let dir = if view.descending { "↓" } else { "↑" };
    let mut s = if view.filter.is_empty() {
        format!("{name} ({total})")
    } else {
        format!("{name} ({}/{total}) /{}", view.rows.len(), view.filter)
    };
    if view.filter.is_empty() {
        s.push_str(&format!("  sort: {}{dir} (s)", sorts[view.sort]));
    } else {
        s.push_str(&format!(
            "  best match first, then {}{dir}",
            sorts[view.sort]
        ));
    }
    s
}

fn header(app: &App, cells: &[&'static str]) -> Row<'static> {
    Row::new(cells.iter().map(|c| Cell::from(*c))).style(
        Style::new()
            .fg(app.theme.header)
            .add_modifier(Modifier::BOLD),
    )
}

pub fn nodes(frame: &mut Frame, app: &App, s: &Session, area: Rect) {
    let t = &app.theme;
    let d = &s.loaded.derived;
    let height = area.height.saturating_sub(3) as usize;
    let range = s.nodes.cursor.visible(s.nodes.rows.len(), height);
    let rows: Vec<Row> = range
        .map(|i| {
            let r = &d.node_rows[s.nodes.rows[i] as usize];
            let style = if i == s.nodes.cursor.selected {
                t.selected()
            } else {
                t.fg(t.fg)
            };
            Row::new(vec![
                Cell::from(r.name.clone()),
                Cell::from(d.zones[r.zone].name.clone()),
                Cell::from(r.status.clone()),
                Cell::from(r.pods.to_string()),
                Cell::from(format!(
                    "{}/{}",
                    format::cpu(r.cpu.requested),
                    format::cpu(r.cpu.allocatable)
                )),
                Cell::from(format!("{}%", r.cpu.percent())),
                Cell::from(format!(
                    "{}/{}",
                    format::memory(r.memory.requested),
                    format::memory(r.memory.allocatable)
                )),
                Cell::from(format!("{}%", r.memory.percent())),
                Cell::from(r.taints.clone()),
            ])
            .style(style)
        })
        .collect();
    let widths = [
        Constraint::Length(24),
        Constraint::Length(14),
        Constraint::Length(25),
        Constraint::Length(5),
        Constraint::Length(12),
        Constraint::Length(5),
        Constraint::Length(14),
        Constraint::Length(5),
        Constraint::Min(10),
    ];
    let table = Table::new(rows, widths)
        .header(header(
            app,
            &[
                "NAME", "ZONE", "STATUS", "PODS", "CPU REQ", "CPU%", "MEM REQ", "MEM%", "TAINTS",
            ],
        ))
        .block(panel(
            app,
            title("Nodes", &s.nodes, d.node_rows.len(), &NODE_SORTS),
        ));
    frame.render_widget(table, area);
}

pub fn pods(frame: &mut Frame, app: &App, s: &Session, area: Rect) {
    let t = &app.theme;
    let d = &s.loaded.derived;
    let height = area.height.saturating_sub(3) as usize;
    let range = s.pods.cursor.visible(s.pods.rows.len(), height);
    let rows: Vec<Row> = range
        .map(|i| {
            let r = &d.pod_rows[s.pods.rows[i] as usize];
            let style = if i == s.pods.cursor.selected {
                t.selected()
            } else {
                t.fg(t.fg)
            };
            let phase_style = match r.phase {
                "Running" | "Succeeded" => Style::new().fg(t.good),
                "Pending" => Style::new().fg(t.warn),
                _ => Style::new().fg(t.bad),
            };
            let phase = if i == s.pods.cursor.selected {
                Cell::from(r.phase)
            } else {
                Cell::from(r.phase).style(phase_style)
            };
            Row::new(vec![
                Cell::from(r.namespace.clone()),
                Cell::from(r.name.clone()),
                phase,
                Cell::from(if r.node.is_empty() {
                    "<none>".to_string()
                } else {
                    r.node.clone()
                }),
                Cell::from(r.priority.to_string()),
                Cell::from(format::cpu(r.cpu)),
                Cell::from(format::memory(r.memory)),
                Cell::from(r.owner.clone()),
            ])
            .style(style)
        })
        .collect();
    let widths = [
        Constraint::Length(14),
        Constraint::Length(34),
        Constraint::Length(9),
        Constraint::Length(22),
        Constraint::Length(11),
        Constraint::Length(7),
        Constraint::Length(8),
        Constraint::Min(10),
    ];
    let table = Table::new(rows, widths)
        .header(header(
            app,
            &[
                "NAMESPACE",
                "NAME",
                "PHASE",
                "NODE",
                "PRIORITY",
                "CPU",
                "MEM",
                "OWNER",
            ],
        ))
        .block(panel(
            app,
            title("Pods", &s.pods, d.pod_rows.len(), &POD_SORTS),
        ));
    frame.render_widget(table, area);
}
