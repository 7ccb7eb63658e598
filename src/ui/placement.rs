//! Placement: the engine's answer for one pod, as prepared by the worker.

use ratatui::Frame;
use ratatui::layout::{Constraint, Layout, Rect};
use ratatui::style::{Modifier, Style};
use ratatui::text::{Line, Span};
use ratatui::widgets::Paragraph;

use crate::app::report::{self, Tone};
use crate::app::theme::Theme;
use crate::app::{App, Session};

use super::{fitted_panel, panel};

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

/// `src` wrapped to `width`: one `Line` per screen row.
pub(super) fn wrapped(t: &Theme, src: &[report::Line], width: usize) -> Vec<Line<'static>> {
    let styled: Vec<(Style, &str)> = src
        .iter()
        .map(|l| (style(t, l.tone), l.text.as_str()))
        .collect();
    super::text::wrap_styled(&styled, width)
}

/// Scrolled text wrapped to `area`'s inner width, from the cursor's top
/// line; lines `hit` says match a search are highlighted. Returns the
/// lines to draw and the range of source lines they show.
pub(super) fn scrolled_wrapped(
    t: &Theme,
    src: &[report::Line],
    cursor: &crate::app::cursor::Cursor,
    area: Rect,
    hit: &dyn Fn(usize) -> bool,
) -> (Vec<Line<'static>>, std::ops::Range<usize>) {
    let width = area.width.saturating_sub(2) as usize;
    let height = area.height.saturating_sub(2) as usize;
    let rows: Vec<usize> = src
        .iter()
        .map(|l| super::text::rows(&l.text, width))
        .collect();
    let top = cursor.wrapped_top(&rows, height);
    let mut out = Vec::new();
    let mut end = top;
    for (i, l) in src.iter().enumerate().skip(top) {
        if out.len() >= height {
            break;
        }
        let mut st = style(t, l.tone);
        if hit(i) {
            st = st.add_modifier(Modifier::REVERSED);
        }
        for row in super::text::wrap(&l.text, width) {
            out.push(Line::from(Span::styled(row, st)));
        }
        end = i + 1;
    }
    out.truncate(height);
    (out, top..end)
}

/// Every screen row the Placement view shows for `report` in a pane of
/// `width` columns when scrolled from top to bottom: the header, then the
/// body, wrapped exactly as drawn.
pub fn screen_rows(report: &report::PlacementReport, width: u16) -> Vec<String> {
    let t = crate::app::theme::Theme::default_theme();
    let inner = width.saturating_sub(2) as usize;
    wrapped(&t, &report.header, inner)
        .into_iter()
        .chain(wrapped(&t, &report.lines, inner))
        .map(|line| line.spans.iter().map(|s| s.content.as_ref()).collect())
        .collect()
}

/// The answer's header wrapped to `width`, with its asides or without,
/// and `note` after it.
pub(super) fn header_rows(
    t: &Theme,
    r: &report::PlacementReport,
    asides: bool,
    note: Option<report::Line>,
    width: usize,
) -> Vec<Line<'static>> {
    let lines: Vec<report::Line> = r
        .header
        .iter()
        .enumerate()
        .filter(|(i, _)| asides || !r.header_asides.contains(i))
        .map(|(_, l)| l.clone())
        .chain(note)
        .collect();
    wrapped(t, &lines, width)
}

/// Rows the scrolling body keeps before the header's asides and the
/// remedies give way.
pub(super) const MIN_BODY_ROWS: u16 = 10;

/// A live kind unreadable now: the answer used its objects as last seen.
fn stale_note(app: &App) -> Option<report::Line> {
    let Some(crate::app::feed::Feed::Live(l)) = &app.feed else {
        return None;
    };
    let stale = l.status().stale;
    if stale.is_empty() {
        return None;
    }
    let kinds: Vec<String> = stale
        .iter()
        .map(|s| format!("{} (unreadable since {})", s.resource, s.since))
        .collect();
    Some(report::Line {
        tone: Tone::Warn,
        text: format!(
            "Answered from stale objects, as last seen: {}; retrying.",
            kinds.join(", ")
        ),
    })
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
        if let Some(failure) = &s.worker_failure {
            frame.render_widget(
                Paragraph::new(Span::styled(
                    format!("✖ cannot answer: {failure}"),
                    t.fg(t.bad),
                ))
                .wrap(ratatui::widgets::Wrap { trim: false })
                .block(panel(app, "Placement")),
                area,
            );
            return;
        }
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
    // Every line wraps to the pane's width now, so nothing is cut off.
    let inner = area.width.saturating_sub(2) as usize;
    let stale = stale_note(app);
    let header_of = |asides: bool| header_rows(t, r, asides, stale.clone(), inner);
    // "How to make it fit" sits under the verdict, at most a third of
    // the pane (it scrolls with the selection when longer).
    let fix_rows = s.remedies.as_ref().map_or(0, |p| {
        let rows: usize = remedy_rows(p, inner).iter().sum();
        (rows as u16 + 2).min(area.height / 3).max(3)
    });
    let mut header = header_of(true);
    let body_rows =
        |header: usize, fixes: u16| area.height.saturating_sub(header as u16 + 2 + fixes + 2);
    // A short terminal (80×24) left the answer's body four rows: the
    // header's asides go first (the hint is in the palette's help, the
    // notes say a bound pod is bound), then the remedies keep two rows.
    let mut fix_rows = fix_rows;
    if body_rows(header.len(), fix_rows) < MIN_BODY_ROWS {
        header = header_of(false);
        if fix_rows > 0 && body_rows(header.len(), fix_rows) < MIN_BODY_ROWS {
            fix_rows = fix_rows.min(4);
        }
    }
    let [head, fixes, body] = Layout::vertical([
        Constraint::Length(header.len() as u16 + 2),
        Constraint::Length(fix_rows),
        Constraint::Min(3),
    ])
    .areas(area);
    frame.render_widget(
        Paragraph::new(header).block(fitted_panel(
            app,
            &[format!("Placement: {}", r.pod)],
            head.width,
        )),
        head,
    );
    if let Some(p) = &s.remedies {
        draw_remedies(frame, app, p, s.remedy_selected, fixes);
    }
    let search = &s.placement_search;
    let (shown, range) = scrolled_wrapped(t, &r.lines, &s.placement_scroll, body, &|i| {
        search.is_hit(i)
    });
    let title = format!(
        "{}-{} of {} lines (↑↓ pgup pgdn, / search)",
        range.start + 1,
        range.end,
        r.lines.len()
    );
    frame.render_widget(
        Paragraph::new(shown).block(fitted_panel(app, &[title], body.width)),
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
    let width = area.width.saturating_sub(2) as usize;
    for (i, item) in p.items.iter().enumerate() {
        let marker = if i == selected { "▶ " } else { "  " };
        let mut style = style(t, Tone::Text);
        if i == selected {
            style = style.add_modifier(Modifier::REVERSED);
        }
        let kind = format!("[{}] ", item.kind.as_str());
        for (k, row) in remedy_wrapped(marker, item, width).into_iter().enumerate() {
            // The first row starts with the marker and the kind, which
            // fit any pane wide enough to show the panel.
            let head = marker.len() + kind.len();
            if k == 0 && row.len() >= head && row.is_char_boundary(head) {
                rows.push(Line::from(vec![
                    Span::styled(marker, style),
                    Span::styled(kind.clone(), t.fg(t.muted)),
                    Span::styled(row[head..].to_string(), style),
                ]));
            } else {
                rows.push(Line::from(Span::styled(row, style)));
            }
        }
    }
    for note in &p.notes {
        for row in note_wrapped(note, width) {
            rows.push(Line::from(Span::styled(row, t.fg(t.muted))));
        }
    }
    // Scroll so that the chosen remedy's last wrapped row is visible.
    let height = area.height.saturating_sub(2).max(1) as usize;
    let per_row = remedy_rows(p, area.width.saturating_sub(2) as usize);
    let progress = usize::from(p.progress.is_some());
    let through_selected: usize = progress
        + per_row
            .iter()
            .skip(progress)
            .take((selected + 1).min(p.items.len()))
            .sum::<usize>();
    let skip = through_selected.saturating_sub(height);
    let title = if p.items.is_empty() {
        "How to make it fit".to_string()
    } else {
        format!(
            "How to make it fit: {} verified change(s) ([ ] choose, enter opens in What-if)",
            p.items.len()
        )
    };
    frame.render_widget(
        Paragraph::new(rows)
            .wrap(ratatui::widgets::Wrap { trim: false })
            .scroll((skip as u16, 0))
            .block(fitted_panel(app, &[title], area.width)),
        area,
    );
}

/// A remedy's rows at `width`: its marker, kind and text, the rows after
/// the first indented past the marker so that each change reads as one
/// block (a long list of victims wraps under its own text).
fn remedy_wrapped(
    marker: &str,
    item: &crate::app::remedies::RemedyItem,
    width: usize,
) -> Vec<String> {
    let text = format!("{marker}[{}] {}", item.kind.as_str(), item.text);
    super::text::wrap_hanging(&text, width, 4)
}

/// A note's rows at `width`, indented as the remedies' text.
fn note_wrapped(note: &str, width: usize) -> Vec<String> {
    super::text::wrap_hanging(&format!("  {note}"), width, 4)
}

/// Screen rows each line of the panel takes at `width` (progress, then
/// items, then notes), as they are drawn.
fn remedy_rows(p: &crate::app::remedies::RemedyPanel, width: usize) -> Vec<usize> {
    let rows = |text: String| super::text::rows(&text, width);
    let mut out = Vec::new();
    if let Some(progress) = &p.progress {
        out.push(rows(format!("⠋ {progress}")));
    }
    for item in &p.items {
        out.push(remedy_wrapped("▶ ", item, width).len().max(1));
    }
    for note in &p.notes {
        out.push(note_wrapped(note, width).len().max(1));
    }
    if out.is_empty() {
        out.push(1);
    }
    out
}
