//! What-if: the draft's form on the left, the live answer on the right
//! (or the replica plan, or a disruption plan); the YAML editor and the
//! priority class chooser over it.

use ratatui::Frame;
use ratatui::layout::{Constraint, Layout, Rect};
use ratatui::style::{Modifier, Style};
use ratatui::text::{Line, Span};
use ratatui::widgets::{Clear, Paragraph};

use crate::app::report::{self, Tone};
use crate::app::whatif::draft::FIELDS_NOTE;
use crate::app::whatif::form::Target;
use crate::app::whatif::plans::{DRAIN_COLUMNS, DisruptionTable};
use crate::app::whatif::{Panel, WhatIf, class_choices};
use crate::app::{App, Session};

use super::placement::style;
use super::tables::{Fit, widths_at_least};
use super::text::{cut_end, cut_middle, cut_node_name};
use super::{centered, fitted_panel, panel};

const SPINNER: [&str; 10] = ["⠋", "⠙", "⠹", "⠸", "⠼", "⠴", "⠦", "⠧", "⠇", "⠏"];

pub fn draw(frame: &mut Frame, app: &App, s: &Session, area: Rect) {
    let w = &s.whatif;
    let t = &app.theme;
    if let Some(ed) = &w.editor {
        editor(frame, app, ed, area);
        return;
    }
    if w.draft.is_none() && w.panel != Panel::Disruption {
        let hint = vec![
            Line::from(Span::styled("No draft yet.", t.fg(t.fg))),
            Line::from(Span::styled(
                "e on a pod (Overview 1, Pods 5, Placement 6) or a workload (Skew 2) drafts it; :draft new starts a blank pod; :load PATH reads one.",
                t.fg(t.muted),
            )),
            Line::from(Span::styled(
                "r on a node (Nodes 4) shows what draining it would do; :cordon ZONE and :lose ZONE do the same for a zone.",
                t.fg(t.muted),
            )),
        ];
        frame.render_widget(
            Paragraph::new(hint)
                .wrap(ratatui::widgets::Wrap { trim: true })
                .block(panel(app, "What-if")),
            area,
        );
        return;
    }
    let [left, right] = if w.draft.is_some() {
        Layout::horizontal([Constraint::Percentage(40), Constraint::Percentage(60)]).areas(area)
    } else {
        [Rect::default(), area]
    };
    if w.draft.is_some() {
        form(frame, app, w, left);
    }
    match w.panel {
        Panel::Answer => answer(frame, app, w, right),
        Panel::Replicas => plan(
            frame,
            app,
            w,
            right,
            &format!(
                "Replicas: {} (+/- to change, a: answer, esc: back)",
                w.replicas_n
            ),
            w.replicas.as_deref(),
            w.replicas_computing(),
        ),
        Panel::Disruption => {
            let title = format!("{} (esc: back)", w.scenario_title());
            match &w.disruption {
                Some(table) if !w.disruption_computing() => {
                    disruption(frame, app, table, w, right, &title)
                }
                _ => plan(frame, app, w, right, &title, None, true),
            }
        }
    }
    if w.panel == Panel::Disruption && w.disruption_computing() {
        let text = format!(" {} ", w.disruption_progress());
        let line = Rect {
            y: right.y + 2,
            x: right.x + 2,
            width: right.width.saturating_sub(4),
            height: 1,
        };
        if right.height > 3 {
            frame.render_widget(
                Paragraph::new(Span::styled(text, app.theme.fg(app.theme.muted))),
                line,
            );
        }
    }
    if let Some(h) = w.chooser {
        chooser(frame, app, s, h, left);
    }
}

fn form(frame: &mut Frame, app: &App, w: &WhatIf, area: Rect) {
    let t = &app.theme;
    let Some(d) = &w.draft else { return };
    // The notes wrap to the pane (inside its borders), as the answer does:
    // cut, "Answering as" lost the way back (`c`) at any width.
    let inner = (area.width as usize).saturating_sub(2);
    let wrapped = |text: &str, style: Style| -> Vec<Line<'static>> {
        super::text::wrap(text, inner)
            .into_iter()
            .map(|row| Line::from(Span::styled(row, style)))
            .collect()
    };
    let mut out: Vec<Line> = wrapped(FIELDS_NOTE, t.fg(t.muted));
    if let Some(meaning) = app.session().and_then(|s| w.meaning(&s.loaded.cluster)) {
        out.extend(wrapped(&format!("Answering as: {meaning}"), t.fg(t.accent)));
    }
    let mut cursor_line = 0;
    if let (Some(e), None) = (&d.error, &w.error_at) {
        out.push(Line::from(Span::styled(format!("✗ {e}"), t.fg(t.bad))));
    }
    // Labels take the width of the longest (at most 20), and a value too
    // long for what is left ends in "…" (its end, with the cursor, while
    // typing): at 80 columns "standard" read "standar".
    let label_width = w
        .rows
        .iter()
        .filter(|r| r.target != Target::Header)
        .map(|r| super::text::width(&r.label))
        .max()
        .unwrap_or(0)
        .min(20);
    let value_room = inner.saturating_sub(2 + label_width + 1);
    for (i, r) in w.rows.iter().enumerate() {
        if r.target == Target::Header {
            let mut spans = vec![Span::styled(
                r.label.clone(),
                Style::new().fg(t.title).add_modifier(Modifier::BOLD),
            )];
            if !r.value.is_empty() {
                spans.push(Span::styled(format!("  {}", r.value), t.fg(t.muted)));
            }
            out.push(Line::from(spans));
            continue;
        }
        let selected = i == w.cursor;
        if selected {
            cursor_line = out.len();
        }
        let value = match (&w.input, selected) {
            (Some(text), true) => {
                let (a, b) = crate::app::line::split_at_cursor(text, w.input_cursor);
                cut_start(&format!("{a}█{b}"), value_room)
            }
            _ if r.label.is_empty() => cut_end(&r.value, inner.saturating_sub(2)),
            _ => cut_end(&r.value, value_room),
        };
        let label = if r.label.is_empty() {
            String::new()
        } else {
            format!("{:<label_width$} ", r.label)
        };
        let vstyle = if selected {
            t.selected()
        } else if value.starts_with('+') {
            t.fg(t.muted)
        } else {
            t.fg(t.fg)
        };
        out.push(Line::from(vec![
            Span::styled(if selected { "▶ " } else { "  " }, t.fg(t.accent)),
            Span::styled(label, t.fg(t.header)),
            Span::styled(value, vstyle),
        ]));
        if w.error_at.as_ref() == Some(&r.target)
            && let Some(e) = &d.error
        {
            let width = (area.width as usize).saturating_sub(8).max(20);
            for (k, chunk) in wrap_chars(&format!("✗ {e}"), width).into_iter().enumerate() {
                let indent = if k == 0 { "    " } else { "      " };
                out.push(Line::from(Span::styled(
                    format!("{indent}{chunk}"),
                    t.fg(t.bad),
                )));
            }
        }
    }
    out.push(Line::from(""));
    let hint = if w.input.is_some() {
        "typing: enter applies · esc cancels"
    } else {
        "↑↓ field · enter edit/toggle · x remove · c copy/rescheduled · y YAML · E $EDITOR · r replicas · w save"
    };
    out.extend(wrapped(hint, t.fg(t.muted)));
    let height = area.height.saturating_sub(2) as usize;
    let top = cursor_line.saturating_sub(height.saturating_sub(3));
    let state = if d.valid { "valid" } else { "INVALID" };
    frame.render_widget(
        Paragraph::new(out.into_iter().skip(top).collect::<Vec<_>>()).block(fitted_panel(
            app,
            &[
                format!("Draft {} ({state})", d.key()),
                format!("Draft ({state})"),
            ],
            area.width,
        )),
        area,
    );
}

/// `s` cut to its last `max` columns, after a `…`: what is being typed
/// stays in view.
fn cut_start(s: &str, max: usize) -> String {
    let total = super::text::width(s);
    if total <= max || max == 0 {
        return s.to_string();
    }
    let mut kept: Vec<char> = Vec::new();
    let mut used = 1;
    for c in s.chars().rev() {
        let w = super::text::width(c.encode_utf8(&mut [0; 4]));
        if used + w > max {
            break;
        }
        kept.push(c);
        used += w;
    }
    kept.push('…');
    kept.iter().rev().collect()
}

/// A heading and the difference lines under it, wrapped to `width`.
fn difference(
    head: &mut Vec<Line<'static>>,
    t: &crate::app::theme::Theme,
    title: &str,
    lines: &[crate::app::report::Line],
    width: usize,
) {
    head.push(Line::from(Span::styled(
        title.to_string(),
        style(t, Tone::Heading),
    )));
    for c in lines {
        for row in super::text::wrap(&format!("  {}", c.text), width) {
            head.push(Line::from(Span::styled(row, style(t, c.tone))));
        }
    }
}

fn answer(frame: &mut Frame, app: &App, w: &WhatIf, area: Rect) {
    let t = &app.theme;
    let mut head: Vec<Line> = Vec::new();
    if w.computing() {
        let spin = SPINNER[(app.tick as usize) % SPINNER.len()];
        head.push(Line::from(Span::styled(
            format!("{spin} computing…"),
            t.fg(t.warn),
        )));
    }
    if w.stale() {
        head.push(Line::from(Span::styled(
            "STALE: the draft is invalid; this is the last valid answer",
            Style::new().fg(t.bad).add_modifier(Modifier::BOLD),
        )));
    }
    let width = area.width.saturating_sub(2) as usize;
    if !w.changes.is_empty() {
        difference(
            &mut head,
            t,
            "Changed since the previous answer:",
            &w.changes,
            width,
        );
    }
    if !w.scenario.is_empty() && !w.against_unchanged.is_empty() {
        let title = format!(
            "Against the unchanged cluster (scenario: {}):",
            w.scenario_title()
        );
        difference(&mut head, t, &title, &w.against_unchanged, width);
    }
    let Some(r) = &w.answer else {
        if head.is_empty() {
            head.push(Line::from(Span::styled(
                "no answer yet: the draft has never been valid",
                t.fg(t.muted),
            )));
        }
        frame.render_widget(Paragraph::new(head).block(panel(app, "Answer")), area);
        return;
    };
    let header_of = |asides: bool| super::placement::header_rows(t, r, asides, None, width);
    // A short pane drops the header's asides (the command hint, the
    // bound/pending remark) before the answer's body shrinks.
    let mut header = header_of(true);
    let body_rows = area
        .height
        .saturating_sub((head.len() + header.len()) as u16 + 4);
    if body_rows < super::placement::MIN_BODY_ROWS {
        header = header_of(false);
    }
    head.extend(header);
    let [top, body] = Layout::vertical([
        Constraint::Length(head.len() as u16 + 2),
        Constraint::Min(3),
    ])
    .areas(area);
    let took = w
        .took
        .map(|d| format!(" · engine {:.1} ms", d.as_secs_f64() * 1000.0))
        .unwrap_or_default();
    frame.render_widget(
        Paragraph::new(head).block(fitted_panel(
            app,
            &[
                format!("Answer: {}{took}", r.pod),
                format!("Answer: {}", r.pod),
            ],
            top.width,
        )),
        top,
    );
    scrolled(frame, app, &r.lines, w.scroll, body, "pgup/pgdn scroll");
}

fn scrolled(
    frame: &mut Frame,
    app: &App,
    src: &[report::Line],
    scroll: usize,
    area: Rect,
    title: &str,
) {
    // Wrapped to the pane's width, so a long row (a displaced pod and
    // where it goes) is never cut off.
    let mut cursor = crate::app::cursor::Cursor::default();
    cursor.selected = scroll;
    let (shown, range) =
        super::placement::scrolled_wrapped(&app.theme, src, &cursor, area, &|_| false);
    frame.render_widget(
        Paragraph::new(shown).block(panel(
            app,
            format!(
                "{}-{} of {} lines ({title})",
                range.start + 1,
                range.end,
                src.len()
            ),
        )),
        area,
    );
}

fn plan(
    frame: &mut Frame,
    app: &App,
    w: &WhatIf,
    area: Rect,
    title: &str,
    src: Option<&[report::Line]>,
    computing: bool,
) {
    let t = &app.theme;
    match src {
        Some(src) if !computing => scrolled(frame, app, src, w.scroll, area, title),
        _ => {
            let spin = SPINNER[(app.tick as usize) % SPINNER.len()];
            frame.render_widget(
                Paragraph::new(Span::styled(format!("{spin} computing…"), t.fg(t.warn)))
                    .block(fitted_panel(app, &[title], area.width)),
                area,
            );
        }
    }
}

/// A drain or zone plan: its heading, then one row per displaced pod
/// (pod, from, where it goes or its outcome, victims or why not) with
/// columns sized from the rows shown and the pane, names cut in the middle
/// so their distinguishing end stays, then the notes under it. The column
/// headings stay on top while the rows scroll.
fn disruption(
    frame: &mut Frame,
    app: &App,
    table: &DisruptionTable,
    w: &WhatIf,
    area: Rect,
    title: &str,
) {
    let t = &app.theme;
    let inner = area.width.saturating_sub(2) as usize;
    let height = area.height.saturating_sub(2) as usize;
    let has_table = !table.rows.is_empty();
    // Heading and notes wrapped to the pane, a search hit among them
    // reversed; `from` is the first line's index in the plan's lines.
    let wrapped = |lines: &[crate::app::report::Line], from: usize| {
        let styled: Vec<(Style, &str)> = lines
            .iter()
            .enumerate()
            .map(|(i, l)| {
                let st = style(t, l.tone);
                let st = if w.plan_search.is_hit(from + i) {
                    st.add_modifier(Modifier::REVERSED)
                } else {
                    st
                };
                (st, l.text.as_str())
            })
            .collect();
        super::text::wrap_styled(&styled, inner)
    };
    let head = wrapped(&table.head, 0);
    let tail = wrapped(
        &table.tail,
        table.head.len() + usize::from(has_table) + table.rows.len(),
    );
    // Screen rows: the heading, the column headings, a row per pod, the notes.
    let first_row = head.len() + usize::from(has_table);
    let total = first_row + table.rows.len() + tail.len();
    // The scroll counts the plan's lines (`DisruptionTable::lines`: a
    // search hit is one); a heading or note line may wrap to several rows.
    let wrapped_rows = |lines: &[crate::app::report::Line], n: usize| -> usize {
        lines[..n.min(lines.len())]
            .iter()
            .map(|l| super::text::rows(&l.text, inner))
            .sum()
    };
    let logical_head = table.head.len() + usize::from(has_table);
    let top = if w.scroll < table.head.len() {
        wrapped_rows(&table.head, w.scroll)
    } else if w.scroll < logical_head + table.rows.len() {
        head.len() + (w.scroll - table.head.len())
    } else {
        first_row
            + table.rows.len()
            + wrapped_rows(&table.tail, w.scroll - logical_head - table.rows.len())
    };
    // The column headings stay when the rows are scrolled under them.
    let sticky_at =
        |top: usize| has_table && top >= first_row && top < first_row + table.rows.len();
    // At the end, the headings take a row: start one lower so the last
    // line still shows.
    let last_top = total.saturating_sub(height);
    let last_top = last_top + usize::from(sticky_at(last_top) && last_top < total);
    let top = top.min(last_top);
    let sticky = sticky_at(top);
    // The search's hits are plan lines; the rows' are offset by the heading.
    let row_hit = |i: usize| w.plan_search.is_hit(logical_head + i);
    let body = height.saturating_sub(usize::from(sticky));
    let shown = top..(top + body).min(total);
    // The pods' rows on screen (indices into `table.rows`).
    let n = table.rows.len();
    let from = shown.start.saturating_sub(first_row).min(n);
    let to = shown.end.saturating_sub(first_row).min(n).max(from);
    let cells: Vec<Vec<String>> = table.rows[from..to]
        .iter()
        .map(|r| {
            vec![
                r.pod.clone(),
                r.from.clone(),
                match &r.node {
                    Some(n) => format!("→ {n}"),
                    None => r.outcome.clone(),
                },
                r.detail.clone(),
            ]
        })
        .collect();
    let headers: Vec<(String, Fit)> = DRAIN_COLUMNS
        .iter()
        .zip([Fit::Name, Fit::Name, Fit::Name, Fit::Text])
        .map(|(h, f)| (h.to_string(), f))
        .collect();
    // Victims and reasons give way first, then where it came from (down
    // to a node's host label), then the pod; where it goes last. A pane
    // of 70 columns or more keeps 16 of the reason (a whole-width plan at
    // 80 columns read "Daemo…" beside full DNS node names); a narrower
    // one keeps the destinations whole first.
    let why = if inner >= 70 { 16 } else { 4 };
    let widths = widths_at_least(&headers, &[2, 1, 3, 0], &[12, 15, 6, why], &cells, inner);
    let row_line = |cells: Vec<String>, style: Style| -> Line<'static> {
        let text: Vec<String> = cells
            .iter()
            .enumerate()
            .map(|(i, c)| {
                let w = widths[i];
                let cut = match (i, c.strip_prefix("→ ")) {
                    (1, _) => cut_node_name(c, w),
                    (2, Some(node)) => format!("→ {}", cut_node_name(node, w.saturating_sub(2))),
                    (0, _) => cut_middle(c, w),
                    _ => cut_end(c, w),
                };
                let pad = w.saturating_sub(super::text::width(&cut));
                cut + &" ".repeat(pad)
            })
            .collect();
        Line::from(Span::styled(text.join(" ").trim_end().to_string(), style))
    };
    let header_line = row_line(
        DRAIN_COLUMNS.iter().map(|h| h.to_string()).collect(),
        style(t, Tone::TableHeader),
    );
    let mut out: Vec<Line> = Vec::with_capacity(height);
    if sticky {
        out.push(header_line.clone());
    }
    let mut cells = cells.into_iter();
    for i in shown.clone() {
        if i < head.len() {
            out.push(head[i].clone());
        } else if has_table && i == head.len() {
            out.push(header_line.clone());
        } else if i < first_row + table.rows.len() {
            let r = &table.rows[i - first_row];
            if let Some(c) = cells.next() {
                let mut st = style(t, r.tone);
                if row_hit(i - first_row) {
                    st = st.add_modifier(Modifier::REVERSED);
                }
                out.push(row_line(c, st));
            }
        } else {
            out.push(tail[i - first_row - table.rows.len()].clone());
        }
    }
    frame.render_widget(
        Paragraph::new(out).block(panel(
            app,
            format!(
                "{title} · {}-{} of {total} rows · pgup/pgdn scroll",
                shown.start + 1,
                shown.end
            ),
        )),
        area,
    );
}

fn chooser(frame: &mut Frame, app: &App, s: &Session, highlighted: usize, area: Rect) {
    let t = &app.theme;
    let classes = class_choices(s.cluster());
    let mut out = Vec::new();
    for (i, (name, value, policy, default)) in classes.iter().enumerate() {
        let text = format!(
            " {name:<28} {value:>11}  {policy}{} ",
            if *default { "  (default)" } else { "" }
        );
        let style = if i == highlighted {
            t.selected()
        } else if *policy == "Never" {
            t.fg(t.warn)
        } else {
            t.fg(t.fg)
        };
        out.push(Line::from(Span::styled(text, style)));
    }
    let none = " (none: the global default applies) ";
    out.push(Line::from(Span::styled(
        none,
        if highlighted == classes.len() {
            t.selected()
        } else {
            t.fg(t.muted)
        },
    )));
    out.push(Line::from(Span::styled(
        "enter: choose · esc: cancel",
        t.fg(t.muted),
    )));
    let rect = centered(area, 72, out.len() as u16 + 2);
    frame.render_widget(Clear, rect);
    frame.render_widget(
        Paragraph::new(out)
            .style(t.base())
            .block(panel(app, "priorityClassName")),
        rect,
    );
}

fn editor(frame: &mut Frame, app: &App, ed: &crate::app::whatif::editor::TextArea, area: Rect) {
    let t = &app.theme;
    let [top, body] = Layout::vertical([
        Constraint::Length(u16::from(ed.error.is_some())),
        Constraint::Min(3),
    ])
    .areas(area);
    if let Some(e) = &ed.error {
        frame.render_widget(
            Paragraph::new(Span::styled(format!("✗ {e}"), t.fg(t.bad))),
            top,
        );
    }
    let height = body.height.saturating_sub(2) as usize;
    let first = ed.row.saturating_sub(height.saturating_sub(1));
    let mut out = Vec::new();
    for (i, l) in ed.lines.iter().enumerate().skip(first).take(height) {
        let num = Span::styled(format!("{:>4} ", i + 1), t.fg(t.muted));
        if i == ed.row {
            let chars: Vec<char> = l.chars().collect();
            let before: String = chars[..ed.col.min(chars.len())].iter().collect();
            let at: String = chars
                .get(ed.col)
                .map(|c| c.to_string())
                .unwrap_or(" ".into());
            let after: String = chars.iter().skip(ed.col + 1).collect();
            out.push(Line::from(vec![
                num,
                Span::styled(before, t.fg(t.fg)),
                Span::styled(at, Style::new().add_modifier(Modifier::REVERSED)),
                Span::styled(after, t.fg(t.fg)),
            ]));
        } else {
            out.push(Line::from(vec![num, Span::styled(l.clone(), t.fg(t.fg))]));
        }
    }
    frame.render_widget(
        Paragraph::new(out).block(panel(
            app,
            format!(
                "YAML editor · line {}:{} · ctrl-s apply · esc cancel",
                ed.row + 1,
                ed.col + 1
            ),
        )),
        body,
    );
}

/// Splits `text` into lines of at most `width` characters, at spaces.
fn wrap_chars(text: &str, width: usize) -> Vec<String> {
    let mut out: Vec<String> = Vec::new();
    let mut cur = String::new();
    for word in text.split(' ') {
        if !cur.is_empty() && cur.chars().count() + 1 + word.chars().count() > width {
            out.push(std::mem::take(&mut cur));
        }
        if !cur.is_empty() {
            cur.push(' ');
        }
        cur.push_str(word);
    }
    out.push(cur);
    out
}
