//! Title bar, tab bar, note line and status line.

use ratatui::Frame;
use ratatui::layout::Rect;
use ratatui::style::{Modifier, Style};
use ratatui::text::{Line, Span};
use ratatui::widgets::Paragraph;

use crate::app::{App, Phase, View};

/// The title bar: what is open, the release (and profiles) answering, and
/// the main keys. On a narrow terminal parts give way whole, least telling
/// first (keys, then counts, then words), so the release is always named;
/// the source's name is cut in the middle last.
pub fn title_bar(frame: &mut Frame, app: &App, area: Rect) {
    let width = area.width as usize;
    let line = (0..=TITLE_LEVELS)
        .map(|level| title_spans(app, level, None))
        .find(|spans| spans_width(spans) <= width)
        .unwrap_or_else(|| {
            // Even the leanest form is too wide: the source's name gives
            // way, down to nothing.
            let lean = title_spans(app, TITLE_LEVELS, Some(0));
            let room = width.saturating_sub(spans_width(&lean));
            title_spans(app, TITLE_LEVELS, Some(room))
        });
    let mut spans = line;
    let hints = spans.pop().expect("the hints span");
    let gap = width.saturating_sub(spans_width(&spans) + hints.width());
    spans.push(Span::raw(" ".repeat(gap)));
    spans.push(hints);
    frame.render_widget(Paragraph::new(Line::from(spans)), area);
}

/// How many forms the title bar has past the full one.
const TITLE_LEVELS: usize = 10;

/// The key hints, dropped from the last as the bar narrows.
const HINTS: [&str; 5] = ["?:help", "::command", "/:filter", "esc:back", "q:quit"];

fn spans_width(spans: &[Span]) -> usize {
    spans.iter().map(|s| s.width()).sum()
}

/// The title bar's spans at `level` (0: everything), its last span the
/// key hints (possibly empty); `name_room`, when given, is the most
/// columns the source's name may take.
fn title_spans(app: &App, level: usize, name_room: Option<usize>) -> Vec<Span<'static>> {
    let t = &app.theme;
    let mut spans = vec![Span::styled(
        " kplace ",
        Style::new().fg(t.accent).add_modifier(Modifier::BOLD),
    )];
    if let Some(s) = app.session() {
        let d = &s.loaded.derived;
        let name = &s.loaded.name;
        match name_room {
            None => spans.push(Span::styled(format!(" {name} "), t.fg(t.title))),
            Some(room) if room >= 2 + 4 => spans.push(Span::styled(
                format!(" {} ", super::text::cut_middle(name, room - 2)),
                t.fg(t.title),
            )),
            Some(_) => {}
        }
        // `:ns NAME`, as k9s shows the namespace in force.
        if let Some(ns) = &s.namespace {
            spans.push(Span::styled(
                format!(" ns:{ns} "),
                Style::new().fg(t.accent).add_modifier(Modifier::BOLD),
            ));
        }
        let nodes = s.cluster().nodes.len();
        let pods = d.scheduled + d.pending.len();
        let pending = d.pending.len();
        let counts = match level {
            0..=4 => Some(format!(
                " {nodes} nodes · {} zones · {pods} pods ({pending} pending) ",
                d.zones.len(),
            )),
            5..=6 => Some(format!(" {nodes} nodes · {pods} pods ({pending} pending) ")),
            7 => Some(format!(" {nodes} nodes · {pods} pods ")),
            _ => None,
        };
        if let Some(counts) = counts {
            spans.push(Span::styled(counts, t.fg(t.muted)));
        }
    }
    if !matches!(app.phase, Phase::Failed { .. }) {
        // Until the first cluster is read, the release is not chosen yet
        // (its server version or kubelets choose it) unless it was given:
        // naming the fallback there would claim a release the answers may
        // not use.
        if app.session().is_some() || app.scheduler_flag.is_some() {
            let rules = if level < 9 {
                format!(" kube-scheduler {} rules ", app.scheduler.version)
            } else {
                format!(" {} rules ", app.scheduler.version)
            };
            spans.push(Span::styled(rules, t.fg(t.accent)));
        }
        if let Some(config) = &app.scheduler_config {
            let names: Vec<&str> = config
                .profiles
                .iter()
                .map(|p| p.scheduler_name.as_str())
                .collect();
            let profiles = if level < 10 || names.len() == 1 {
                format!(" profiles {} ", names.join(", "))
            } else {
                format!(" {} profiles ", names.len())
            };
            spans.push(Span::styled(profiles, t.fg(t.accent)));
        }
    }
    // Levels 1–4 drop the hints from the last; 6 drops `?:help`.
    let kept_hints = match level {
        0..=4 => HINTS.len() - level,
        5 => 1,
        _ => 0,
    };
    let hints = if kept_hints == 0 {
        String::new()
    } else {
        format!(" {} ", HINTS[..kept_hints].join("  "))
    };
    spans.push(Span::styled(hints, t.fg(t.muted)));
    spans
}

/// The views' tabs: `1 Overview` … `8 Replay`, spaced out when the line
/// holds them, closer when it does not, and on the narrowest terminals
/// the other views by number alone; never a tab cut in two.
pub fn tab_bar(frame: &mut Frame, app: &App, area: Rect) {
    let t = &app.theme;
    let active = if t.monochrome {
        Style::new().add_modifier(Modifier::REVERSED | Modifier::BOLD)
    } else {
        Style::new()
            .fg(t.selected_fg)
            .bg(t.tab_active)
            .add_modifier(Modifier::BOLD)
    };
    let tabs = |form: TabForm| -> Vec<Span<'static>> {
        let mut spans = vec![Span::raw(" ")];
        for (i, v) in View::ALL.iter().enumerate() {
            let is_active = *v == app.view;
            let label = match form {
                TabForm::Spaced => format!(" {} {} ", i + 1, v.title()),
                TabForm::Close => format!("{} {}", i + 1, v.title()),
                TabForm::Numbers if is_active => format!("{} {}", i + 1, v.title()),
                TabForm::Numbers => format!("{}", i + 1),
            };
            spans.push(Span::styled(
                label,
                if is_active { active } else { t.fg(t.header) },
            ));
            spans.push(Span::raw(match form {
                TabForm::Spaced => " ",
                TabForm::Close | TabForm::Numbers => "  ",
            }));
        }
        // No separator after the last tab.
        spans.pop();
        spans
    };
    let width = area.width as usize;
    let spans = [TabForm::Spaced, TabForm::Close]
        .into_iter()
        .map(tabs)
        .find(|spans| spans_width(spans) <= width)
        .unwrap_or_else(|| tabs(TabForm::Numbers));
    frame.render_widget(Paragraph::new(Line::from(spans)), area);
}

/// How much room the tab bar gives each tab.
#[derive(Clone, Copy)]
enum TabForm {
    /// ` 1 Overview ` with a space between tabs.
    Spaced,
    /// `1 Overview`, two spaces between.
    Close,
    /// The active view's `4 Nodes`, the others by number.
    Numbers,
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

/// A message on the status line (an error naming a file, line and field
/// is often longer than the terminal) wraps onto at most this many rows.
const STATUS_ROWS: usize = 4;

/// The message the status line shows, as drawn (a leading space).
fn status_text(app: &App) -> Option<String> {
    match (app.input_line(), &app.status) {
        (None, Some(status)) => Some(format!(" {}", status.text)),
        _ => None,
    }
}

/// The rows the status line takes: one, or as many as its message needs
/// wrapped to `width`, up to [`STATUS_ROWS`].
pub fn status_rows(app: &App, width: u16) -> u16 {
    status_text(app).map_or(1, |text| {
        super::text::rows(&text, width as usize).clamp(1, STATUS_ROWS) as u16
    })
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
    } else if let (Some(status), Some(text)) = (&app.status, status_text(app)) {
        let style = Style::new().fg(if status.is_error { t.bad } else { t.good });
        // Wrapped, so the whole message can be read; past the last row
        // it ends in `…`.
        let mut rows = super::text::wrap(&text, area.width as usize);
        if rows.len() > STATUS_ROWS {
            rows.truncate(STATUS_ROWS);
            let last = &mut rows[STATUS_ROWS - 1];
            *last = super::text::cut_end(&format!("{last} …"), area.width as usize);
        }
        let lines: Vec<Line> = rows
            .into_iter()
            .map(|r| Line::from(Span::styled(r, style)))
            .collect();
        frame.render_widget(Paragraph::new(lines), area);
        return;
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
