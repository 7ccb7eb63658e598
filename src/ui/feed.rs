//! The line above the status line when a feed is open: the timeline bar of
//! a recording, or the connection state of a live cluster.

use std::time::SystemTime;

use ratatui::Frame;
use ratatui::layout::Rect;
use ratatui::style::{Modifier, Style};
use ratatui::text::{Line, Span};
use ratatui::widgets::Paragraph;

use crate::app::App;
use crate::app::feed::Feed;
use crate::app::live::LiveFeed;
use crate::app::replay::{Replay, clock};
use crate::source::live::{ConnectionState, describe};

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
    spans.push(Span::styled(
        "  space:play [ ]:event { }:10s +/-:speed m:mark n:next disagreement :at",
        t.fg(t.muted),
    ));
    Line::from(spans)
}

/// `12:03:04 (3 s ago)` in the local time zone.
pub fn when(at: SystemTime) -> String {
    let ago = SystemTime::now()
        .duration_since(at)
        .map(|d| d.as_secs())
        .unwrap_or(0);
    let time = k8s_openapi::jiff::Timestamp::try_from(at)
        .map(|ts| {
            ts.to_zoned(k8s_openapi::jiff::tz::TimeZone::system())
                .strftime("%H:%M:%S")
                .to_string()
        })
        .unwrap_or_default();
    format!("{time} ({ago} s ago)")
}

fn live_line(app: &App, l: &LiveFeed) -> Line<'static> {
    let t = &app.theme;
    let state = l.state();
    let (dot, color) = match &state {
        ConnectionState::Live => ("●", t.good),
        ConnectionState::Syncing { .. } | ConnectionState::Reconnecting { .. } => ("◌", t.warn),
        ConnectionState::Failed { .. } => ("✖", t.bad),
    };
    let mut spans = vec![
        Span::styled(
            format!(" {dot} {}", describe(&state)),
            Style::new().fg(color).add_modifier(Modifier::BOLD),
        ),
        Span::styled(
            format!("  context {} ({})", l.context(), l.server()),
            t.fg(t.fg),
        ),
    ];
    // Warnings first: the line is cut at the terminal's width.
    let stale = l.stale();
    if !stale.is_empty() {
        let kinds: Vec<String> = stale
            .iter()
            .map(|s| format!("{} (since {})", s.kind.resource(), when(s.since)))
            .collect();
        spans.push(Span::styled(
            format!("  ⚠ stale: {}", kinds.join(", ")),
            t.fg(t.warn),
        ));
    }
    for (kind, n) in l.malformed() {
        spans.push(Span::styled(
            format!(
                "  ⚠ {n} unreadable watch event{} on {} dropped",
                if n == 1 { "" } else { "s" },
                kind.resource()
            ),
            t.fg(t.warn),
        ));
    }
    if let Some(at) = l.last_event() {
        spans.push(Span::styled(
            format!("  last event {}", when(at)),
            t.fg(t.muted),
        ));
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
    for lim in l.limitations() {
        spans.push(Span::styled(format!("  ⚠ {}", lim.message), t.fg(t.warn)));
    }
    Line::from(spans)
}
