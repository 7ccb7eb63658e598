//! Tiers: priority classes by value with their pods and requests per zone,
//! and the headroom per zone for the selected priority.

use ratatui::Frame;
use ratatui::layout::{Constraint, Layout, Rect};
use ratatui::style::{Modifier, Style};
use ratatui::text::{Line, Span};
use ratatui::widgets::Paragraph;

use crate::app::derived::TierRow;
use crate::app::format;
use crate::app::tiers::{Split, ZoneHeadroom};
use crate::app::{App, Session};

use unicode_width::UnicodeWidthStr;

use super::bar::stacked;
use super::{fitted_panel, panel};

pub fn draw(frame: &mut Frame, app: &App, s: &Session, area: Rect) {
    let Some(tiers) = s.loaded.derived.tiers() else {
        let what = format!("the tiers from {} pods", s.cluster().pods.len());
        return super::building(frame, app, area, "Priority tiers", what);
    };
    let table_height = (tiers.rows.len() as u16 + 4).min(area.height / 2).max(5);
    let [top, bottom] =
        Layout::vertical([Constraint::Length(table_height), Constraint::Min(3)]).areas(area);
    draw_table(frame, app, s, &tiers.rows, top);
    draw_headroom(frame, app, s, bottom);
}

/// The table's cells: the class columns, then pods per zone.
struct TierCells {
    fixed: [String; 8],
    zones: Vec<String>,
}

/// The fixed columns: name, value, default, preempts, pods, pending,
/// cpu, mem. The name is left-aligned, the rest right-aligned.
const TIER_HEADERS: [&str; 8] = [
    "PRIORITY CLASS",
    "VALUE",
    "DEFAULT",
    "PREEMPTS",
    "PODS",
    "PENDING",
    "CPU",
    "MEM",
];

/// The narrowest a class name is cut to before the table gives up room
/// it needs; the selected class's whole name is in the headroom's title.
const MIN_NAME: usize = 16;

fn tier_cells(row: &TierRow) -> TierCells {
    TierCells {
        fixed: [
            if row.classes.is_empty() {
                "(no class)".to_string()
            } else {
                row.classes.clone()
            },
            row.value.to_string(),
            if row.global_default { "default" } else { "" }.to_string(),
            if row.never { "Never" } else { "Lower" }.to_string(),
            row.pods.to_string(),
            row.pending.to_string(),
            format::cpu(row.cpu),
            format::memory(row.memory),
        ],
        zones: row.per_zone.iter().map(|z| z.pods.to_string()).collect(),
    }
}

/// The widths of the shown columns: `None` for a fixed column left out.
struct TierLayout {
    fixed: Vec<Option<usize>>,
    zones: Vec<usize>,
}

/// The fixed columns that give way whole, in turn, when the numbers would
/// not fit beside a name cut to [`MIN_NAME`]: DEFAULT (the headroom's
/// title names the class it starts at), then PENDING (the Overview and
/// Pods list the pending pods).
const GIVE_WAY: [usize; 2] = [2, 5];

/// The layout for a pane `inner` columns wide: each column as wide as its
/// heading and cells (names to 30); the zones' pod counts on the right
/// when every zone fits whole; then names cut to no fewer than
/// [`MIN_NAME`] columns, then [`GIVE_WAY`]'s columns left out, so the
/// numbers shown are never cut.
fn tier_layout(cells: &[TierCells], zone_names: &[String], inner: usize) -> TierLayout {
    use super::text::width;
    let natural: Vec<usize> = TIER_HEADERS
        .iter()
        .enumerate()
        .map(|(i, h)| {
            cells
                .iter()
                .map(|c| width(&c.fixed[i]))
                .chain([width(h)])
                .max()
                .unwrap_or(0)
        })
        .collect();
    let name = natural[0].min(30);
    let mut layout = TierLayout {
        fixed: natural.iter().map(|&w| Some(w)).collect(),
        zones: Vec::new(),
    };
    layout.fixed[0] = Some(name);
    let total = |l: &TierLayout| {
        let fixed = l.fixed.iter().flatten();
        fixed.clone().sum::<usize>() + fixed.count() - 1
            + l.zones.iter().map(|w| w + 1).sum::<usize>()
    };
    for (zi, zone) in zone_names.iter().enumerate() {
        let w = cells
            .iter()
            .filter_map(|c| c.zones.get(zi).map(|z| width(z)))
            .chain([width(zone)])
            .max()
            .unwrap_or(0);
        layout.zones.push(w);
    }
    // Every zone or none: a table with some zones' counts reads as if the
    // cluster had only those.
    if total(&layout) > inner {
        layout.zones.clear();
    }
    let least = MIN_NAME.min(name);
    for column in GIVE_WAY {
        layout.fixed[0] = Some(least);
        if total(&layout) <= inner {
            break;
        }
        layout.fixed[column] = None;
    }
    layout.fixed[0] = Some(least);
    let room = inner.saturating_sub(total(&layout) - least);
    layout.fixed[0] = Some(room.clamp(least, name));
    layout
}

/// The zones' names without the prefix they all share up to its last `-`
/// (`us-east-1a`, `us-east-1b` → `us-east-`, `1a`, `1b`), with that
/// prefix; `None` for one zone, or names that share no such prefix.
fn short_zone_names(names: &[String]) -> Option<(String, Vec<String>)> {
    let (first, rest) = names.split_first()?;
    if rest.is_empty() {
        return None;
    }
    let common = rest.iter().fold(first.len(), |n, z| {
        first
            .bytes()
            .zip(z.bytes())
            .take(n)
            .take_while(|(a, b)| a == b)
            .count()
    });
    // Up to an ASCII `-`, so a char boundary in every name (each shares
    // the bytes before it); `common` itself may fall inside a character.
    let cut = first.as_bytes()[..common]
        .iter()
        .rposition(|&b| b == b'-')?
        + 1;
    let short: Vec<String> = names.iter().map(|z| z[cut..].to_string()).collect();
    if short.iter().any(String::is_empty) {
        return None;
    }
    Some((first[..cut].to_string(), short))
}

fn tier_line(fixed: &[String], zones: &[String], layout: &TierLayout) -> String {
    let name = layout.fixed[0].unwrap_or(0);
    let mut line = format!("{:<name$}", format::truncate(&fixed[0], name));
    for (cell, w) in fixed.iter().zip(&layout.fixed).skip(1) {
        if let Some(w) = w {
            line.push_str(&format!(" {cell:>w$}"));
        }
    }
    for (cell, w) in zones.iter().zip(&layout.zones) {
        line.push_str(&format!(" {cell:>w$}"));
    }
    line
}

fn draw_table(frame: &mut Frame, app: &App, s: &Session, rows: &[TierRow], area: Rect) {
    let t = &app.theme;
    let d = &s.loaded.derived;
    let zone_names: Vec<String> = d
        .zones
        .iter()
        .map(|z| format::truncate(&z.name, 12))
        .collect();
    let cells: Vec<TierCells> = rows.iter().map(tier_cells).collect();
    let inner = (area.width as usize).saturating_sub(2);
    let mut layout = tier_layout(&cells, &zone_names, inner);
    // Too narrow for the zones' whole names: headed by what tells them
    // apart (`1a` for `us-east-1a`), the prefix they share in the title.
    let mut zone_headers = zone_names;
    let mut shared_prefix = None;
    if layout.zones.is_empty()
        && let Some((prefix, short)) = short_zone_names(&zone_headers)
    {
        let short_layout = tier_layout(&cells, &short, inner);
        if !short_layout.zones.is_empty() {
            layout = short_layout;
            zone_headers = short;
            shared_prefix = Some(prefix);
        }
    }
    let headers: Vec<String> = TIER_HEADERS.iter().map(|h| h.to_string()).collect();
    let mut lines = vec![Line::from(Span::styled(
        tier_line(&headers, &zone_headers, &layout),
        Style::new().fg(t.header).add_modifier(Modifier::BOLD),
    ))];
    let height = (area.height as usize).saturating_sub(3);
    let range = s.tier_cursor.visible(rows.len(), height);
    for i in range {
        let style = if i == s.tier_cursor.selected {
            t.selected()
        } else {
            t.fg(t.fg)
        };
        lines.push(Line::from(Span::styled(
            tier_line(&cells[i].fixed, &cells[i].zones, &layout),
            style,
        )));
    }
    let per_zone = match (&shared_prefix, layout.zones.is_empty()) {
        (_, true) => String::new(),
        (Some(prefix), false) => {
            let first = zone_headers.first().map_or("", String::as_str);
            format!("pods per zone on the right, {first} for {prefix}{first}; ")
        }
        (None, false) => "pods per zone on the right; ".to_string(),
    };
    frame.render_widget(
        Paragraph::new(lines).block(fitted_panel(
            app,
            &[
                &format!("Priority tiers: one row per class, with its own preemptionPolicy ({per_zone}↑↓ picks the headroom's class)"),
                &format!("Priority tiers ({per_zone}↑↓ picks the headroom's class)"),
                "Priority tiers: one row per class, with its own preemptionPolicy (↑↓ picks the headroom's class)",
                "Priority tiers (↑↓ picks the headroom's class)",
                "Priority tiers (↑↓ picks)",
            ],
            area.width,
        )),
        area,
    );
}

/// What follows a zone's bar: the split in words, then `note`.
/// `short` names the PDB-protected part "PDB", for narrow terminals.
fn split_words(s: Split, fmt: fn(i64) -> String, note: &str, short: bool) -> String {
    let protected = if short { "PDB" } else { "PDB-protected" };
    format!(
        " free {}  preemptible {}  {protected} {}  of {}{note}",
        fmt(s.free),
        fmt(s.preemptible),
        fmt(s.protected),
        fmt(s.allocatable)
    )
}

/// The zone name's column before each bar, when the node count is inline.
const ZONE_WIDTH: usize = 16;

/// The zone column (16, or 1 when the zone has a line of its own) and
/// the resource label before each bar: + 1 + 3 + 1.
const fn label_width(zone_width: usize) -> usize {
    zone_width + 5
}

/// The narrowest headroom bar: below it the split cannot be told apart.
const MIN_SPLIT_BAR: usize = 10;

fn split_line(
    app: &App,
    zone: &str,
    zone_width: usize,
    label: &str,
    s: Split,
    width: usize,
    words: String,
) -> Line<'static> {
    let t = &app.theme;
    let mut spans = vec![Span::styled(
        format!(
            "{:<zone_width$} {label} ",
            format::truncate(zone, zone_width)
        ),
        t.fg(t.fg),
    )];
    spans.extend(stacked(
        &[
            (s.free, t.bar_free, "█"),
            (s.preemptible, t.bar_preemptible, "▓"),
            (s.protected, t.bar_protected, "▒"),
            (s.out_of_reach(), t.border, "░"),
        ],
        s.allocatable,
        width,
    ));
    spans.push(Span::styled(words, t.fg(t.fg)));
    Line::from(spans)
}

fn draw_headroom(frame: &mut Frame, app: &App, s: &Session, area: Rect) {
    let t = &app.theme;
    let Some(h) = s.headroom() else {
        frame.render_widget(
            Paragraph::new("no priority tiers").block(panel(app, "Headroom")),
            area,
        );
        return;
    };
    let mut lines = vec![Line::from(vec![
        Span::styled("█ free", t.fg(t.bar_free)),
        Span::raw("   "),
        Span::styled(
            "▓ held by lower priority, preemptible",
            t.fg(t.bar_preemptible),
        ),
        Span::raw("   "),
        Span::styled(
            "▒ lower priority but PDB has no disruptions left",
            t.fg(t.bar_protected),
        ),
        Span::raw("   "),
        Span::styled("░ same or higher priority", t.fg(t.muted)),
    ])];
    let counted: usize = h.zones.iter().map(|z| z.nodes).sum();
    let cordoned: usize = h.zones.iter().map(|z| z.cordoned).sum();
    let tainted: usize = h.zones.iter().map(|z| z.tainted).sum();
    lines.push(Line::from(Span::styled(
        format!(
            "counts the {counted} node(s) {} could use: {cordoned} cordoned and {tainted} with an untolerated NoSchedule/NoExecute taint left out (the scheduler's NodeUnschedulable and TaintToleration filters)",
            crate::app::tiers::ASSUMPTION
        ),
        t.fg(t.muted),
    )));
    if h.never {
        lines.push(Line::from(Span::styled(
            "this class's preemptionPolicy is Never: its pods only get free capacity",
            t.fg(t.warn),
        )));
    }
    // Each zone's cpu and memory lines in words; the bars take what the
    // longest of them leaves (at least MIN_SPLIT_BAR). When even that does
    // not fit, the node count moves to a line of its own above the zone's
    // bars, so words wrap only in a very narrow terminal.
    let note = |z: &ZoneHeadroom| {
        format!(
            "on {} of {} nodes",
            z.nodes,
            z.nodes + z.cordoned + z.tainted
        )
    };
    let longest = |with_note: bool, short: bool| {
        h.zones
            .iter()
            .flat_map(|z| {
                let cpu_note = if with_note {
                    format!("  {}", note(z))
                } else {
                    String::new()
                };
                [
                    split_words(z.cpu, format::cpu, &cpu_note, short).width(),
                    split_words(z.memory, format::memory, "", short).width(),
                ]
            })
            .max()
            .unwrap_or(0)
    };
    let inner = (area.width as usize).saturating_sub(2);
    let bar_room =
        |zone_width: usize, longest: usize| inner.saturating_sub(label_width(zone_width) + longest);
    // The first layout whose bars keep MIN_SPLIT_BAR: the count inline,
    // then on the zone's own line, then with the shorter words.
    let (notes_inline, short) = [(true, false), (false, false), (false, true)]
        .into_iter()
        .find(|&(inline, short)| {
            let zone_width = if inline { ZONE_WIDTH } else { 1 };
            bar_room(zone_width, longest(inline, short)) >= MIN_SPLIT_BAR
        })
        .unwrap_or((false, true));
    let zone_width = if notes_inline { ZONE_WIDTH } else { 1 };
    let width = bar_room(zone_width, longest(notes_inline, short)).clamp(MIN_SPLIT_BAR, 50);
    for z in &h.zones {
        let cpu_note = if notes_inline {
            format!("  {}", note(z))
        } else {
            lines.push(Line::from(vec![
                Span::styled(z.zone.clone(), t.fg(t.fg)),
                Span::styled(format!("  {}", note(z)), t.fg(t.muted)),
            ]));
            String::new()
        };
        let zone = if notes_inline { z.zone.as_str() } else { "" };
        let cpu = split_words(z.cpu, format::cpu, &cpu_note, short);
        lines.push(split_line(app, zone, zone_width, "cpu", z.cpu, width, cpu));
        let mem = split_words(z.memory, format::memory, "", short);
        lines.push(split_line(app, "", zone_width, "mem", z.memory, width, mem));
    }
    frame.render_widget(
        Paragraph::new(lines)
            .wrap(ratatui::widgets::Wrap { trim: false })
            .block(fitted_panel(
                app,
                &[
                    format!(
                        "Headroom per zone for a pod at {}, assuming {}",
                        h.label,
                        crate::app::tiers::ASSUMPTION
                    ),
                    format!("Headroom per zone for a pod at {}", h.label),
                    format!("Headroom at {}", h.label),
                ],
                area.width,
            )),
        area,
    );
}

#[cfg(test)]
mod tests {
    use super::short_zone_names;

    fn short(names: &[&str]) -> Option<(String, Vec<String>)> {
        let names: Vec<String> = names.iter().map(|n| n.to_string()).collect();
        short_zone_names(&names)
    }

    #[test]
    fn zones_are_shortened_to_what_follows_their_shared_prefix_up_to_a_dash() {
        assert_eq!(
            short(&["us-east-1a", "us-east-1b", "us-east-1c"]),
            Some((
                "us-east-".into(),
                vec!["1a".into(), "1b".into(), "1c".into()]
            ))
        );
        // GKE's zones: the letter alone.
        assert_eq!(
            short(&["us-central1-a", "us-central1-b"]),
            Some(("us-central1-".into(), vec!["a".into(), "b".into()]))
        );
        // Regions apart: the shared prefix ends at the region's dash.
        assert_eq!(
            short(&["eu-west-1a", "eu-north-1a"]),
            Some(("eu-".into(), vec!["west-1a".into(), "north-1a".into()]))
        );
        // Multi-byte names are cut at the dash, never inside a character.
        assert_eq!(
            short(&["zoné-α", "zoné-β"]),
            Some(("zoné-".into(), vec!["α".into(), "β".into()]))
        );
    }

    #[test]
    fn zones_without_a_shared_dashed_prefix_keep_their_names() {
        assert_eq!(short(&["us-east-1a"]), None);
        assert_eq!(short(&[]), None);
        assert_eq!(short(&["rack1", "rack2"]), None);
        assert_eq!(short(&["a-1", "b-1"]), None);
        // A name that is all prefix would head its column with nothing.
        assert_eq!(short(&["dc-", "dc-2"]), None);
    }
}
