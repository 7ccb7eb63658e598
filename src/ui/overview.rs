//! Overview: zones and nodes with allocation bars; pending pods with the
//! outcome the engine gives each, and the counts per outcome.

use ratatui::Frame;
use ratatui::layout::{Constraint, Layout, Rect};
use ratatui::style::{Modifier, Style};
use ratatui::text::{Line, Span};
use ratatui::widgets::Paragraph;

use crate::app::derived::Usage;
use crate::app::format;
use crate::app::{App, Session};
use crate::engine::Outcome;

use super::bar::bar;
use super::{fitted_panel, panel};

const BAR: usize = 16;

/// A pending pod's node is named only when this many columns of it fit.
const MIN_NODE: usize = 8;

pub fn draw(frame: &mut Frame, app: &App, s: &Session, area: Rect) {
    let [left, right] =
        Layout::horizontal([Constraint::Percentage(60), Constraint::Percentage(40)]).areas(area);
    let zone_lines = zone_lines(app, s, left.width.saturating_sub(2) as usize);
    let zones_height = zone_lines.len() as u16 + 2;
    let [zones, nodes] = Layout::vertical([
        Constraint::Length(zones_height.min(left.height / 2).max(3)),
        Constraint::Min(3),
    ])
    .areas(left);
    frame.render_widget(
        Paragraph::new(zone_lines).block(panel(app, "Zones: requested / allocatable")),
        zones,
    );
    draw_nodes(frame, app, s, nodes);
    draw_pending(frame, app, s, right);
}

fn usage_spans(
    app: &App,
    label: &str,
    u: Usage,
    color: ratatui::style::Color,
    width: usize,
) -> Vec<Span<'static>> {
    let t = &app.theme;
    if width == 0 {
        return vec![
            Span::styled(label.to_string(), t.fg(t.muted)),
            Span::styled(format!(" {:>3}%", u.percent()), t.fg(t.fg)),
        ];
    }
    let mut spans = vec![Span::styled(format!("{label} "), t.fg(t.muted))];
    spans.extend(bar(u.percent(), width, color, t.border));
    spans.push(Span::styled(format!(" {:>3}%", u.percent()), t.fg(t.fg)));
    spans
}

fn spans_width(spans: &[Span]) -> usize {
    spans.iter().map(|s| super::text::width(&s.content)).sum()
}

/// The zones' rows for a pane `width` columns wide: one line per zone when
/// every zone fits on one; otherwise, for every zone alike (so the zones
/// line up), the name, node count and flags (wrapped if need be) and then
/// the bars, narrowed to fit, so nothing is cut.
fn zone_lines(app: &App, s: &Session, width: usize) -> Vec<Line<'static>> {
    let t = &app.theme;
    let name_style = Style::new().fg(t.accent).add_modifier(Modifier::BOLD);
    let zones = &s.loaded.derived.zones;
    let flags_of = |z: &crate::app::derived::ZoneSummary| {
        let mut flags = Vec::new();
        if z.cordoned > 0 {
            flags.push(format!("{} cordoned", z.cordoned));
        }
        if z.tainted > 0 {
            flags.push(format!("{} tainted", z.tainted));
        }
        (!flags.is_empty()).then(|| format!("  ({})", flags.join(", ")))
    };
    let bars = |z: &crate::app::derived::ZoneSummary, bar_width: usize| {
        let mut spans = usage_spans(app, "cpu", z.cpu, t.bar_cpu, bar_width);
        spans.push(Span::raw(" "));
        spans.extend(usage_spans(app, "mem", z.memory, t.bar_memory, bar_width));
        spans
    };
    let one_line: Vec<Vec<Span<'static>>> = zones
        .iter()
        .map(|z| {
            let mut one = vec![
                Span::styled(format!("{:<16}", format::truncate(&z.name, 16)), name_style),
                Span::styled(format!("{:>4} nodes ", z.nodes.len()), t.fg(t.fg)),
            ];
            one.extend(bars(z, BAR * 3 / 4));
            if let Some(f) = flags_of(z) {
                one.push(Span::styled(f, t.fg(t.warn)));
            }
            one
        })
        .collect();
    if one_line.iter().all(|one| spans_width(one) <= width) {
        return one_line.into_iter().map(Line::from).collect();
    }
    let mut out = Vec::new();
    for z in zones {
        let mut heading = format!("{} ({} nodes)", z.name, z.nodes.len());
        if let Some(f) = flags_of(z) {
            heading.push_str(&f);
        }
        for l in super::text::wrap(&heading, width.max(1)) {
            out.push(Line::from(Span::styled(l, name_style)));
        }
        // "  " then "cpu " + bar + " 100%", a space, "mem " + bar + " 100%".
        let bar_width = width.saturating_sub(2 + 2 * 9 + 1) / 2;
        let mut two = vec![Span::raw("  ")];
        two.extend(bars(z, bar_width.clamp(1, BAR)));
        out.push(Line::from(two));
    }
    out
}

/// A pending pod's row `width` columns wide: the width of the pod's name
/// and the outcome text beside it. Names keep their distinguishing end
/// when cut, and nodes their host label (`ip-10-0-3-44…`). A node name is
/// shown only when at least `MIN_NODE` columns of it fit beside a third of
/// the row for the pod's name, else the outcome stands alone (enter opens
/// the Placement, which names the node); whole when the pod's name fits
/// beside it, else its host label first, the pod's name taking the rest.
fn pending_row_widths(
    key: &str,
    outcome: &str,
    node: Option<&str>,
    width: usize,
) -> (usize, String) {
    use super::text::{cut_middle, cut_node_name, width as cols};
    let prefix = format!("{outcome} → ");
    let node = node.filter(|_| width.saturating_sub(width / 3 + 1) >= cols(&prefix) + MIN_NODE);
    let Some(n) = node else {
        let name_width = width.saturating_sub(cols(outcome) + 1).max(width / 2);
        let room = width.saturating_sub(name_width + 1);
        return (name_width, cut_middle(outcome, room));
    };
    let whole = cols(n);
    let host = n
        .split_once('.')
        .map_or(whole, |(h, _)| cols(h) + 1)
        .min(whole);
    let node_width = if cols(key) + 1 + cols(&prefix) + whole <= width {
        whole
    } else {
        host
    };
    let name_width = width
        .saturating_sub(cols(&prefix) + node_width + 1)
        .min(cols(key))
        .max(width / 3);
    let node_room = width.saturating_sub(name_width + 1 + cols(&prefix));
    (name_width, prefix + &cut_node_name(n, node_room))
}

/// The columns a node's name needs to be read: whole, or its host label
/// and an ellipsis when it is a longer DNS name (as [`cut_node_name`]
/// shows it).
///
/// [`cut_node_name`]: super::text::cut_node_name
fn readable_node_name(name: &str) -> usize {
    use super::text::width;
    match name.split_once('.') {
        Some((host, _)) if !host.is_empty() => (width(host) + 1).min(width(name)),
        _ => width(name),
    }
}

/// How a node row shows its usage: bars of a width, the labelled
/// percentages (`cpu  87%`), or the bare percentages, their labels in the
/// pane's title.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
enum UsageForm {
    Bars(usize),
    Labelled,
    Bare,
}

impl UsageForm {
    /// The columns one resource's usage takes.
    fn width(self) -> usize {
        match self {
            UsageForm::Bars(bar) => "cpu ".len() + bar + " 100%".len(),
            UsageForm::Labelled => "cpu 100%".len(),
            UsageForm::Bare => "100%".len(),
        }
    }
}

/// The name width and usage form of the node rows in a pane `inner`
/// columns wide, for names that want `name` columns and a flag of `flag`:
/// bars of up to half of [`BAR`], narrowed to 3; then the labelled
/// percentages, then the bare ones (so the `cordoned` and `tainted` flags
/// stay whole), before a name is cut; names are cut last, to no fewer
/// than 8 columns.
fn node_row_widths(inner: usize, name: usize, flag: usize) -> (usize, UsageForm) {
    // "  " name " " usage " " usage flag.
    let row = |name: usize, form: UsageForm| 2 + name + 1 + 2 * form.width() + 1 + flag;
    let mut form = UsageForm::Bars(BAR / 2);
    while let UsageForm::Bars(bar) = form
        && row(name, form) > inner
        && bar > 3
    {
        form = UsageForm::Bars(bar - 1);
    }
    for narrower in [UsageForm::Labelled, UsageForm::Bare] {
        if row(name, form) > inner {
            form = narrower;
        }
    }
    let mut name = name;
    while row(name, form) > inner && name > 8 {
        name -= 1;
    }
    (name, form)
}

/// One row of the node list: a zone heading or a node.
enum Row {
    Zone(usize),
    Node(usize),
}

fn draw_nodes(frame: &mut Frame, app: &App, s: &Session, area: Rect) {
    let t = &app.theme;
    let d = &s.loaded.derived;
    let rows: Vec<Row> = d
        .zones
        .iter()
        .enumerate()
        .flat_map(|(zi, z)| {
            std::iter::once(Row::Zone(zi)).chain(z.nodes.iter().map(|&n| Row::Node(n as usize)))
        })
        .collect();
    let height = area.height.saturating_sub(2) as usize;
    // Nothing is selected here: the cursor is the top row shown.
    let range = s.node_bars.window(rows.len(), height);
    s.node_bars
        .set_pane(area.x, area.y, area.width, area.height);
    let visible_nodes = || {
        rows[range.clone()].iter().filter_map(|r| match *r {
            Row::Node(n) => Some(&d.nodes.rows[n]),
            Row::Zone(_) => None,
        })
    };
    // A node's name is what tells the rows apart: shown whole when the
    // rows keep bars beside it, else given room to be read (its host
    // label, `ip-10-0-3-44…`) before the bars are.
    let widest = |of: fn(&str) -> usize| {
        visible_nodes()
            .map(|row| of(&row.name))
            .max()
            .unwrap_or(8)
            .clamp(8, 30)
    };
    let whole = widest(super::text::width);
    let readable = widest(readable_node_name);
    let flag = visible_nodes()
        .map(|row| {
            if row.status != "Ready" {
                " cordoned".len()
            } else if !row.taints.is_empty() {
                " tainted".len()
            } else {
                0
            }
        })
        .max()
        .unwrap_or(0);
    let inner = (area.width as usize).saturating_sub(2);
    let (name_width, form) = match node_row_widths(inner, whole, flag) {
        (name, form @ UsageForm::Bars(_)) if name == whole => (name, form),
        _ => node_row_widths(inner, readable, flag),
    };
    let lines: Vec<Line> = rows[range]
        .iter()
        .map(|r| match *r {
            Row::Zone(zi) => Line::from(Span::styled(
                format!("{} ({} nodes)", d.zones[zi].name, d.zones[zi].nodes.len()),
                Style::new().fg(t.header).add_modifier(Modifier::BOLD),
            )),
            Row::Node(n) => {
                let row = &d.nodes.rows[n];
                let mut spans = vec![Span::styled(
                    format!(
                        "  {:<w$} ",
                        super::text::cut_node_name(&row.name, name_width),
                        w = name_width
                    ),
                    t.fg(t.fg),
                )];
                if form == UsageForm::Bare {
                    spans.push(Span::styled(
                        format!("{:>3}% {:>3}%", row.cpu.percent(), row.memory.percent()),
                        t.fg(t.fg),
                    ));
                } else {
                    let bar_width = match form {
                        UsageForm::Bars(bar) => bar,
                        _ => 0,
                    };
                    spans.extend(usage_spans(app, "cpu", row.cpu, t.bar_cpu, bar_width));
                    spans.push(Span::raw(" "));
                    spans.extend(usage_spans(app, "mem", row.memory, t.bar_memory, bar_width));
                }
                if row.status != "Ready" {
                    spans.push(Span::styled(" cordoned", t.fg(t.warn)));
                } else if !row.taints.is_empty() {
                    spans.push(Span::styled(" tainted", t.fg(t.warn)));
                }
                Line::from(spans)
            }
        })
        .collect();
    frame.render_widget(
        Paragraph::new(lines).block(panel(
            app,
            if form == UsageForm::Bare {
                "Nodes by zone: cpu mem"
            } else {
                "Nodes by zone"
            },
        )),
        area,
    );
}

fn draw_pending(frame: &mut Frame, app: &App, s: &Session, area: Rect) {
    let t = &app.theme;
    let d = &s.loaded.derived;
    let c = s.counts();
    let counts = [
        Span::styled(format!("would schedule {}", c.scheduled), t.fg(t.good)),
        Span::styled(format!("preempt {}", c.preempt), t.fg(t.warn)),
        Span::styled(format!("unschedulable {}", c.unschedulable), t.fg(t.bad)),
    ];
    let one_line = spans_width(&counts) + 2 * 3;
    // On one line when it fits the pane, else one count per line.
    let mut lines = if one_line <= (area.width as usize).saturating_sub(2) {
        let mut spans = Vec::new();
        for (i, c) in counts.into_iter().enumerate() {
            if i > 0 {
                spans.push(Span::styled(" · ", t.fg(t.muted)));
            }
            spans.push(c);
        }
        vec![Line::from(spans)]
    } else {
        counts.into_iter().map(Line::from).collect()
    };

    if c.computing > 0 {
        lines.push(Line::from(Span::styled(
            format!(
                "computing… {} of {} pending pods left",
                c.computing,
                d.pending.len()
            ),
            t.fg(t.warn),
        )));
    } else {
        // The longest hint the pane holds whole.
        let room = (area.width as usize).saturating_sub(2);
        let hint = [
            "enter: open the selected pod's Placement",
            "enter: open its Placement",
            "enter: Placement",
        ]
        .into_iter()
        .find(|h| h.chars().count() <= room)
        .unwrap_or("enter");
        lines.push(Line::from(Span::styled(hint, t.fg(t.muted))));
    }
    if let Some(&first) = d.on_absent_nodes.first() {
        // Not pending, and counted on no node: said, not hidden.
        let cluster = s.cluster();
        let node = cluster
            .absent_node_of(cluster.pod(first))
            .unwrap_or_default();
        let more = match d.on_absent_nodes.len() {
            1 => String::new(),
            n => format!(" and {} more", n - 1),
        };
        lines.push(Line::from(Span::styled(
            format!(
                "not pending, on nodes not in the snapshot: {}",
                d.on_absent_nodes.len()
            ),
            t.fg(t.warn),
        )));
        lines.push(Line::from(Span::styled(
            format!("  {} on {node}{more}", cluster.pod_key(first)),
            t.fg(t.warn),
        )));
    }
    lines.push(Line::from(""));
    let height = (area.height as usize).saturating_sub(2 + lines.len());
    let width = (area.width as usize).saturating_sub(4);
    let cluster = s.cluster();
    // Each pod on one row when every pending pod's name fits beside the
    // longest outcome; else each on two, its name whole on the first and
    // the outcome (and node) indented below, rather than names cut in the
    // middle beside it. Decided for the whole list, so rows do not change
    // shape while scrolling.
    let widest_name = s
        .pending_rows
        .iter()
        .map(|&id| {
            let p = cluster.pod(id);
            super::text::width(cluster.interner.resolve(p.namespace))
                + 1
                + super::text::width(&p.name)
        })
        .max()
        .unwrap_or(0);
    let two_rows = widest_name + 1 + Outcome::Unschedulable.as_str().len() > width;
    let per_pod = if two_rows { 2 } else { 1 };
    let range = s
        .pending_cursor
        .visible(s.pending_rows.len(), height / per_pod);
    for i in range {
        let id = s.pending_rows[i];
        let key = cluster.pod_key(id);
        let (outcome, node, color) = match s.outcomes.get(&id) {
            None => ("computing…", None, t.muted),
            Some(o) => {
                let color = match o.outcome {
                    Outcome::Scheduled => t.good,
                    Outcome::Preempt => t.warn,
                    _ => t.bad,
                };
                (o.outcome.as_str(), o.node.as_deref(), color)
            }
        };
        let selected = i == s.pending_cursor.selected;
        let name_style = if selected { t.selected() } else { t.fg(t.fg) };
        if two_rows {
            let name = super::text::cut_middle(&key, width);
            lines.push(Line::from(Span::styled(
                format!("{name:<width$}"),
                name_style,
            )));
            let prefix = format!("  {outcome} → ");
            let room = width.saturating_sub(super::text::width(&prefix));
            let text = match node {
                Some(n) if room >= MIN_NODE => prefix + &super::text::cut_node_name(n, room),
                _ => format!("  {outcome}"),
            };
            lines.push(Line::from(Span::styled(text, Style::new().fg(color))));
            continue;
        }
        let (name_width, text) = pending_row_widths(&key, outcome, node, width);
        lines.push(Line::from(vec![
            Span::styled(
                format!(
                    "{:<w$}",
                    super::text::cut_middle(&key, name_width),
                    w = name_width
                ),
                name_style,
            ),
            Span::raw(" "),
            Span::styled(text, Style::new().fg(color)),
        ]));
    }
    let title = match &s.namespace {
        None => format!("Pending pods ({})", d.pending.len()),
        Some(ns) => format!(
            "Pending pods [{ns}] ({} of {})",
            s.pending_rows.len(),
            d.pending.len()
        ),
    };
    if s.pending_rows.is_empty() {
        let none = match &s.namespace {
            Some(ns) if !d.pending.is_empty() => format!("no pending pods in {ns} (:ns all)"),
            _ => "no pending pods".to_string(),
        };
        lines.push(Line::from(Span::styled(none, t.fg(t.muted))));
    }
    frame.render_widget(
        Paragraph::new(lines).block(fitted_panel(app, &[title], area.width)),
        area,
    );
}
