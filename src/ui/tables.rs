//! The Nodes and Pods tables. Only the visible rows are built each frame;
//! their columns are sized from what those rows hold and the pane's width:
//! numbers are never cut, names are cut in the middle (their end tells
//! them apart), other text at the end.

use ratatui::Frame;
use ratatui::layout::{Constraint, Rect};
use ratatui::style::{Modifier, Style};
use ratatui::widgets::{Cell, Row, Table};

use crate::app::format;
use crate::app::table::{NODE_SORTS, POD_SORTS, SortColumn, TableView};
use crate::app::{App, Session};

use super::panel;
use super::text::{cut_end, cut_middle, cut_node_name, width};

fn title(
    name: &str,
    view: &TableView,
    total: usize,
    sorts: &[SortColumn],
    scope: Option<&str>,
) -> String {
    let dir = if view.descending { "↓" } else { "↑" };
    let name = match scope {
        Some(ns) => format!("{name} [{ns}]"),
        None => name.to_string(),
    };
    let mut s = if view.filter.is_empty() {
        format!("{name} ({})", view.rows.len())
    } else {
        format!("{name} ({}/{total}) /{}", view.rows.len(), view.filter)
    };
    let sort = sorts[view.sort].name;
    if view.filter.is_empty() || view.filter.starts_with(['!', '-']) {
        s.push_str(&format!("  sort: {sort}{dir}"));
    } else {
        s.push_str(&format!("  best match first, then {sort}{dir}"));
    }
    s
}

/// How a column gives way when the pane is narrow.
#[derive(Clone, Copy, PartialEq, Eq)]
pub(super) enum Fit {
    /// Never cut: the column is as wide as its widest value.
    Number,
    /// Cut in the middle, keeping the distinguishing end.
    Name,
    /// A node's name: a DNS name keeps its first label (`ip-10-0-3-44…`),
    /// which tells nodes apart; its shared domain goes first.
    NodeName,
    /// Cut at the end.
    Text,
}

/// Widths for `headers` holding `cells` in `total` columns (one column of
/// space between them): every column as wide as its content when that
/// fits; else the columns that matter least give way first (`keep`: the
/// lower, the sooner), the widest of them first, down to their least
/// width (`min`), then below it down to 4. Numbers never give way. The
/// last column takes what is left.
pub(super) fn widths_at_least(
    headers: &[(String, Fit)],
    keep: &[u8],
    min: &[usize],
    cells: &[Vec<String>],
    total: usize,
) -> Vec<usize> {
    let mut w: Vec<usize> = headers
        .iter()
        .enumerate()
        .map(|(i, (h, _))| {
            cells
                .iter()
                .map(|r| width(&r[i]))
                .max()
                .unwrap_or(0)
                .max(width(h))
        })
        .collect();
    let available = total.saturating_sub(headers.len().saturating_sub(1));
    let min = |i: usize| min[i];
    while w.iter().sum::<usize>() > available {
        let widest = (0..w.len())
            .filter(|&i| headers[i].1 != Fit::Number && w[i] > min(i))
            .max_by_key(|&i| (std::cmp::Reverse(keep[i]), w[i], i));
        match widest {
            Some(i) => w[i] -= 1,
            None => break,
        }
    }
    // Still too wide at every column's least width: below it, the same way.
    while w.iter().sum::<usize>() > available {
        let widest = (0..w.len())
            .filter(|&i| headers[i].1 != Fit::Number && w[i] > 4)
            .max_by_key(|&i| (std::cmp::Reverse(keep[i]), w[i], i));
        match widest {
            Some(i) => w[i] -= 1,
            None => break,
        }
    }
    let used: usize = w.iter().sum();
    if let Some(last) = w.last_mut() {
        *last += available.saturating_sub(used);
    }
    w
}

/// The narrowest a column stays readable: a number whole, a node's DNS
/// name its first label, another name 12 columns, text 9 (or its header).
fn readable_width(header: &str, fit: Fit, cells: &[Vec<String>], i: usize) -> usize {
    let content = cells
        .iter()
        .map(|r| width(&r[i]))
        .max()
        .unwrap_or(0)
        .max(width(header));
    let least = match fit {
        Fit::Number => content,
        Fit::NodeName => cells
            .iter()
            .map(|r| match r[i].split_once('.') {
                Some((label, _)) => width(label) + 1,
                // Cut in the middle, as other names are.
                None => width(&r[i]).min(12),
            })
            .max()
            .unwrap_or(0)
            .max(width(header)),
        Fit::Name => 12.max(width(header)),
        Fit::Text => 9.max(width(header)),
    };
    least.min(content)
}

/// Which columns the table shows in `total` columns: all when each fits
/// at its readable width; else the columns that matter least (`keep`) are
/// left out whole, one at a time, rather than every column cut to a stub
/// ("us-…", "Runn…", "ip-…" at 80 columns). Numbers and the column that
/// matters most (the name) are always shown.
fn shown_columns(
    headers: &[(String, Fit)],
    keep: &[u8],
    cells: &[Vec<String>],
    total: usize,
) -> Vec<bool> {
    let readable: Vec<usize> = headers
        .iter()
        .enumerate()
        .map(|(i, (h, fit))| readable_width(h, *fit, cells, i))
        .collect();
    let most = (0..headers.len())
        .filter(|&i| headers[i].1 != Fit::Number)
        .map(|i| keep[i])
        .max();
    let mut shown = vec![true; headers.len()];
    loop {
        let count = shown.iter().filter(|&&s| s).count();
        let need: usize = (0..headers.len())
            .filter(|&i| shown[i])
            .map(|i| readable[i])
            .sum::<usize>()
            + count.saturating_sub(1);
        if need <= total {
            return shown;
        }
        let least = (0..headers.len())
            .filter(|&i| shown[i] && headers[i].1 != Fit::Number && Some(keep[i]) != most)
            .min_by_key(|&i| (keep[i], std::cmp::Reverse(i)));
        match least {
            Some(i) => shown[i] = false,
            None => return shown,
        }
    }
}

/// How much a sorted column is kept (see `keep`): it stays while any
/// column that matters less than the name can give way instead.
const SORTED_KEEP: u8 = 7;

/// A table of `cells` (the visible rows) under `headers`, fitted to `area`;
/// the `sorted` column is kept at least [`SORTED_KEEP`].
fn fitted<'a>(
    app: &App,
    headers: Vec<(String, Fit)>,
    keep: &[u8],
    sorted: Option<usize>,
    cells: Vec<Vec<String>>,
    styles: Vec<(Style, Option<(usize, Style)>)>,
    area: Rect,
) -> Table<'a> {
    let inner = area.width.saturating_sub(2) as usize;
    let mut keep = keep.to_vec();
    if let Some(c) = sorted {
        keep[c] = keep[c].max(SORTED_KEEP);
    }
    let shown = shown_columns(&headers, &keep, &cells, inner);
    fn pick<T>(row: Vec<T>, shown: &[bool]) -> Vec<T> {
        row.into_iter()
            .zip(shown)
            .filter(|(_, s)| **s)
            .map(|(c, _)| c)
            .collect()
    }
    // A styled column's place among the shown ones.
    let place = |col: usize| shown[col].then(|| shown[..col].iter().filter(|&&s| s).count());
    let styles: Vec<(Style, Option<(usize, Style)>)> = styles
        .into_iter()
        .map(|(style, special)| (style, special.and_then(|(c, s)| Some((place(c)?, s)))))
        .collect();
    let keep: Vec<u8> = pick(keep, &shown);
    let headers = pick(headers, &shown);
    let cells: Vec<Vec<String>> = cells.into_iter().map(|r| pick(r, &shown)).collect();
    // Columns give way down to their readable width first, so a name
    // keeps its first label before the zone is cut to "us-…".
    let readable: Vec<usize> = headers
        .iter()
        .enumerate()
        .map(|(i, (h, fit))| readable_width(h, *fit, &cells, i))
        .collect();
    let w = widths_at_least(&headers, &keep, &readable, &cells, inner);
    let cut = |s: &str, i: usize, fit: Fit| match fit {
        Fit::Number => s.to_string(),
        Fit::Name => cut_middle(s, w[i]),
        Fit::NodeName => cut_node_name(s, w[i]),
        Fit::Text => cut_end(s, w[i]),
    };
    let rows: Vec<Row> = cells
        .iter()
        .zip(styles)
        .map(|(r, (style, special))| {
            Row::new(r.iter().enumerate().map(|(i, c)| {
                let cell = Cell::from(cut(c, i, headers[i].1));
                match special {
                    Some((col, s)) if col == i => cell.style(s),
                    _ => cell,
                }
            }))
            .style(style)
        })
        .collect();
    let header = Row::new(
        headers
            .iter()
            .enumerate()
            .map(|(i, (h, _))| Cell::from(cut_end(h, w[i]))),
    )
    .style(
        Style::new()
            .fg(app.theme.header)
            .add_modifier(Modifier::BOLD),
    );
    let constraints: Vec<Constraint> = w.iter().map(|&x| Constraint::Length(x as u16)).collect();
    Table::new(rows, constraints)
        .header(header)
        .column_spacing(1)
}

/// Headers with the sort arrow on the sorted column (`header_of[sort]`).
fn headers(names: &[(&str, Fit)], sorted: Option<usize>, descending: bool) -> Vec<(String, Fit)> {
    names
        .iter()
        .enumerate()
        .map(|(i, (n, f))| {
            let arrow = match (sorted == Some(i), descending) {
                (true, false) => "↑",
                (true, true) => "↓",
                _ => "",
            };
            (format!("{n}{arrow}"), *f)
        })
        .collect()
}

pub fn nodes(frame: &mut Frame, app: &App, s: &Session, area: Rect) {
    let t = &app.theme;
    let d = &s.loaded.derived;
    let height = area.height.saturating_sub(3) as usize;
    let range = s.nodes.cursor.visible(s.nodes.rows.len(), height);
    s.nodes.cursor.set_screen_top(area.y + 2);
    let now = format::now();
    let mut cells = Vec::new();
    let mut styles = Vec::new();
    let mut taint_counts = Vec::new();
    for i in range {
        let r = &d.nodes.rows[s.nodes.rows[i] as usize];
        taint_counts.push(r.taint_count);
        styles.push((
            if i == s.nodes.cursor.selected {
                t.selected()
            } else {
                t.fg(t.fg)
            },
            None,
        ));
        cells.push(vec![
            r.name.clone(),
            d.zones[r.zone].name.clone(),
            r.status.clone(),
            r.pods.to_string(),
            format!(
                "{}/{}",
                format::cpu(r.cpu.requested),
                format::cpu(r.cpu.allocatable)
            ),
            format!("{}%", r.cpu.percent()),
            format!(
                "{}/{}",
                format::memory(r.memory.requested),
                format::memory(r.memory.allocatable)
            ),
            format!("{}%", r.memory.percent()),
            format::age(r.created, now),
            r.taints.clone(),
        ]);
    }
    // NODE_SORTS: NAME ZONE PODS CPU MEM STATUS AGE → their header columns.
    let header_of = [0, 1, 3, 5, 7, 2, 8];
    let names = [
        ("NAME", Fit::NodeName),
        ("ZONE", Fit::Name),
        ("STATUS", Fit::Text),
        ("PODS", Fit::Number),
        ("CPU REQ", Fit::Number),
        ("CPU%", Fit::Number),
        ("MEM REQ", Fit::Number),
        ("MEM%", Fit::Number),
        ("AGE", Fit::Number),
        ("TAINTS", Fit::Text),
    ];
    let sorted = header_of.get(s.nodes.sort).copied();
    let heads = headers(&names, sorted, s.nodes.descending);
    // Taints give way first, then zone and status; the name last. The
    // sorted column stays while it can.
    let keep = [8, 1, 2, 9, 9, 9, 9, 9, 9, 0];
    // Taints that do not fit are counted instead, as k9s shows them (the
    // Describe view lists them): "dedica…" told nothing, and an empty
    // column hid that the node is tainted at all. (Taints give way first,
    // so they are shown exactly when every column fits.)
    let inner = area.width.saturating_sub(2) as usize;
    let taints = names.len() - 1;
    if !shown_columns(&heads, &keep, &cells, inner)[taints] {
        for (row, &count) in cells.iter_mut().zip(&taint_counts) {
            row[taints] = if count == 0 {
                String::new()
            } else {
                count.to_string()
            };
        }
    }
    let table = fitted(app, heads, &keep, sorted, cells, styles, area);
    let table = table.block(panel(
        app,
        title("Nodes", &s.nodes, d.nodes.rows.len(), &NODE_SORTS, None),
    ));
    frame.render_widget(table, area);
}

pub fn pods(frame: &mut Frame, app: &App, s: &Session, area: Rect) {
    let t = &app.theme;
    let Some(pod_table) = s.loaded.derived.pods() else {
        let what = format!("the pod table ({} pods)", s.cluster().pods.len());
        return super::building(frame, app, area, "Pods", what);
    };
    let height = area.height.saturating_sub(3) as usize;
    let range = s.pods.cursor.visible(s.pods.rows.len(), height);
    s.pods.cursor.set_screen_top(area.y + 2);
    let now = format::now();
    let mut cells = Vec::new();
    let mut styles = Vec::new();
    for i in range {
        let r = &pod_table.rows[s.pods.rows[i] as usize];
        let selected = i == s.pods.cursor.selected;
        let phase_style = match r.phase {
            "Running" | "Succeeded" => Style::new().fg(t.good),
            "Pending" => Style::new().fg(t.warn),
            _ => Style::new().fg(t.bad),
        };
        styles.push((
            if selected { t.selected() } else { t.fg(t.fg) },
            (!selected).then_some((2, phase_style)),
        ));
        cells.push(vec![
            r.namespace.clone(),
            r.name.clone(),
            r.phase.to_string(),
            if r.node.is_empty() {
                "<none>".to_string()
            } else {
                r.node.clone()
            },
            r.priority.to_string(),
            format::cpu(r.cpu),
            format::memory(r.memory),
            format::age(r.created, now),
            r.owner.clone(),
        ]);
    }
    // POD_SORTS: NAME NODE PRIORITY CPU MEM PHASE AGE → header columns.
    let header_of = [1, 3, 4, 5, 6, 2, 7];
    let names = [
        ("NAMESPACE", Fit::Name),
        ("NAME", Fit::Name),
        ("PHASE", Fit::Text),
        ("NODE", Fit::NodeName),
        ("PRIORITY", Fit::Number),
        ("CPU", Fit::Number),
        ("MEM", Fit::Number),
        ("AGE", Fit::Number),
        ("OWNER", Fit::Name),
    ];
    let sorted = header_of.get(s.pods.sort).copied();
    let heads = headers(&names, sorted, s.pods.descending);
    // The owner gives way first, then phase, namespace and node; the name
    // last. The sorted column stays while it can.
    let keep = [3, 8, 2, 4, 9, 9, 9, 9, 0];
    let table = fitted(app, heads, &keep, sorted, cells, styles, area);
    let table = table.block(panel(
        app,
        title(
            "Pods",
            &s.pods,
            pod_table.rows.len(),
            &POD_SORTS,
            s.namespace.as_deref(),
        ),
    ));
    frame.render_widget(table, area);
}

#[cfg(test)]
mod tests {
    use super::*;

    fn widths(
        headers: &[(String, Fit)],
        keep: &[u8],
        cells: &[Vec<String>],
        total: usize,
    ) -> Vec<usize> {
        let min: Vec<usize> = headers.iter().map(|(h, _)| width(h).max(4)).collect();
        widths_at_least(headers, keep, &min, cells, total)
    }

    #[test]
    fn numbers_keep_their_width_and_names_give_way() {
        let heads = vec![
            ("NAME".to_string(), Fit::Name),
            ("CPU REQ".to_string(), Fit::Number),
            ("OWNER".to_string(), Fit::Name),
        ];
        let cells = vec![vec![
            "reports-67f9d8c4b-abcde".to_string(),
            "6.1/15.9".to_string(),
            "ReplicaSet/reports-67f9d8c4b".to_string(),
        ]];
        let w = widths(&heads, &[2, 9, 2], &cells, 40);
        assert_eq!(w[1], 8, "{w:?}");
        assert_eq!(w.iter().sum::<usize>() + 2, 40, "{w:?}");
        assert!(
            w[0] >= 14 && w[2] >= 14,
            "both names give way evenly: {w:?}"
        );
        let w = widths(&heads, &[2, 9, 0], &cells, 40);
        assert_eq!(
            w[0], 23,
            "the name is kept whole, the owner gives way: {w:?}"
        );
    }
}
