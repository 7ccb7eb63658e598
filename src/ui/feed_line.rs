//! The line above the status line when a feed is open: the timeline bar of
//! a recording, or the connection state of a live cluster.

use ratatui::Frame;
use ratatui::layout::Rect;
use ratatui::style::{Modifier, Style};
use ratatui::text::{Line, Span};
use ratatui::widgets::Paragraph;

use crate::app::App;
use crate::app::feed::Feed;
use crate::app::live::{Health, LiveFeed};
use crate::app::replay::{Replay, clock};

use super::bar::bar;

pub fn draw(frame: &mut Frame, app: &App, feed: &Feed, area: Rect) {
    let line = match feed {
        Feed::Replay(r) => timeline_bar(app, r, area.width),
        Feed::Live(l) => live_line(app, l),
    };
    frame.render_widget(Paragraph::new(line), area);
}

const SPINNER: [&str; 10] = ["⠋", "⠙", "⠹", "⠸", "⠼", "⠴", "⠦", "⠧", "⠇", "⠏"];

fn timeline_bar(app: &App, r: &Replay, width: u16) -> Line<'static> {
    let t = &app.theme;
    let state = if r.playing {
        format!(" ▶ {}× ", r.speed())
    } else {
        format!(" ⏸ {}× ", r.speed())
    };
    let mut spans = vec![
        Span::styled(
            state,
            Style::new().fg(t.accent).add_modifier(Modifier::BOLD),
        ),
        Span::styled(
            format!("{} / {} ", clock(r.clock_ms), clock(r.end_ms())),
            t.fg(t.fg),
        ),
    ];
    let percent = if r.end_ms() == 0 {
        100
    } else {
        (r.clock_ms * 100 / r.end_ms()) as u16
    };
    let bar_width = (width as usize / 5).clamp(10, 40);
    spans.extend(bar(percent, bar_width, t.accent, t.muted));
    spans.push(Span::styled(
        format!(" event {}/{}", r.position, r.len()),
        t.fg(t.fg),
    ));
    if let Some((_, m)) = r.mark {
        spans.push(Span::styled(format!("  mark {}", clock(m)), t.fg(t.warn)));
    }
    if r.catching_up() {
        let spin = SPINNER[(app.tick as usize) % SPINNER.len()];
        spans.push(Span::styled(format!("  {spin} seeking"), t.fg(t.warn)));
    }
    // The keys that fit, each whole, in the order a person needs them.
    let mut room = usize::from(width).saturating_sub(spans.iter().map(|s| s.width()).sum());
    let mut keys = String::new();
    for hint in REPLAY_KEYS {
        let piece = format!("  {hint}");
        if piece.chars().count() > room {
            break;
        }
        room -= piece.chars().count();
        keys.push_str(&piece);
    }
    spans.push(Span::styled(keys, t.fg(t.muted)));
    Line::from(spans)
}

/// The timeline's keys, most needed first: the bar shows those that fit.
const REPLAY_KEYS: [&str; 6] = [
    "space:play",
    "[ ]:event",
    "{ }:10s",
    "+/-:speed",
    "m:mark",
    "n:next disagreement :at",
];

fn live_line(app: &App, l: &LiveFeed) -> Line<'static> {
    let t = &app.theme;
    let status = l.status();
    let (dot, color) = match status.health {
        Health::Live => ("●", t.good),
        Health::Degraded => ("◌", t.warn),
        Health::Failed => ("✖", t.bad),
    };
    let mut spans = vec![
        Span::styled(
            format!(" {dot} {}", status.state),
            Style::new().fg(color).add_modifier(Modifier::BOLD),
        ),
        Span::styled(
            format!("  context {} ({})", status.context, status.server),
            t.fg(t.fg),
        ),
    ];
    // Warnings first: the line is cut at the terminal's width.
    if !status.stale.is_empty() {
        let kinds: Vec<String> = status
            .stale
            .iter()
            .map(|s| format!("{} (since {})", s.resource, s.since))
            .collect();
        spans.push(Span::styled(
            format!("  ⚠ stale: {}", kinds.join(", ")),
            t.fg(t.warn),
        ));
    }
    for m in &status.malformed {
        spans.push(Span::styled(format!("  ⚠ {m}"), t.fg(t.warn)));
    }
    if let Some(at) = &status.last_event {
        spans.push(Span::styled(format!("  last event {at}"), t.fg(t.muted)));
    }
    if l.busy() {
        let spin = SPINNER[(app.tick as usize) % SPINNER.len()];
        spans.push(Span::styled(format!("  {spin} updating"), t.fg(t.warn)));
    }
    if let Some(first) = l.skipped.first() {
        let more = match l.skipped.len() {
            1 => String::new(),
            n => format!(" (+{} more)", n - 1),
        };
        spans.push(Span::styled(
            format!("  ⚠ skipped as invalid: {first}{more}"),
            t.fg(t.warn),
        ));
    }
    for lim in &status.limitations {
        spans.push(Span::styled(format!("  ⚠ {lim}"), t.fg(t.warn)));
    }
    Line::from(spans)
}
