//! ratatui widgets that draw the app state. Layout only: every number and
//! string shown here was computed by `crate::app`.

mod bar;
mod chrome;
mod feed_line;
mod help;
mod inspect;
mod loading;
mod overview;
mod palette;
mod placement;
pub use placement::screen_rows as placement_screen_rows;
mod replay;
mod skew;
mod tables;
mod text;
mod tiers;
mod whatif;

use ratatui::Frame;
use ratatui::layout::{Alignment, Constraint, Layout, Rect};
use ratatui::widgets::{Block, Paragraph, Wrap};

use crate::app::{App, Overlay, Phase, View};

/// Below this the views cannot be laid out; a message says so instead.
pub const MIN_WIDTH: u16 = 60;
pub const MIN_HEIGHT: u16 = 15;

pub fn draw(frame: &mut Frame, app: &App) {
    let area = frame.area();
    frame.render_widget(Block::new().style(app.theme.base()), area);
    if area.width < MIN_WIDTH || area.height < MIN_HEIGHT {
        draw_too_small(frame, app, area);
        return;
    }
    // A long note (why the demo opened) wraps onto a second row.
    let note_height = match &app.demo_note {
        None => 0,
        Some(n) if n.chars().count() + 3 > area.width as usize => 2,
        Some(_) => 1,
    };
    let feed_height = u16::from(app.feed.is_some());
    let status_height = chrome::status_rows(app, area.width);
    let [title, tabs, note, body, feed_line, status] = Layout::vertical([
        Constraint::Length(1),
        Constraint::Length(1),
        Constraint::Length(note_height),
        Constraint::Min(1),
        Constraint::Length(feed_height),
        Constraint::Length(status_height),
    ])
    .areas(area);
    if let Some(f) = &app.feed {
        feed_line::draw(frame, app, f, feed_line);
    }
    chrome::title_bar(frame, app, title);
    chrome::tab_bar(frame, app, tabs);
    if let Some(n) = &app.demo_note {
        chrome::note(frame, app, n, note);
    }
    match &app.phase {
        Phase::Loading(l) => loading::loading(frame, app, l, body),
        Phase::Failed { source, error } => loading::failed(frame, app, source, error, body),
        Phase::Ready(s) => match app.view {
            View::Overview => overview::draw(frame, app, s, body),
            View::Skew => skew::draw(frame, app, s, body),
            View::Tiers => tiers::draw(frame, app, s, body),
            View::Nodes => tables::nodes(frame, app, s, body),
            View::Pods => tables::pods(frame, app, s, body),
            View::Placement => placement::draw(frame, app, s, body),
            View::WhatIf => whatif::draw(frame, app, s, body),
            View::Replay => replay::draw(frame, app, body),
        },
    }
    chrome::status_line(frame, app, status);
    match &app.overlay {
        Overlay::None => {}
        Overlay::Help => help::draw(frame, app, area),
        Overlay::Palette(p) => palette::draw(frame, app, p, area),
        Overlay::Inspect(i) => inspect::draw(frame, app, i, area),
    }
}

fn draw_too_small(frame: &mut Frame, app: &App, area: Rect) {
    let text = format!(
        "terminal too small: {}x{}, kplace needs at least {MIN_WIDTH}x{MIN_HEIGHT} (q quits)",
        area.width, area.height
    );
    let height = area.height.min(3);
    let y = area.y + area.height.saturating_sub(height) / 2;
    let p = Paragraph::new(text)
        .style(app.theme.fg(app.theme.warn))
        .alignment(Alignment::Center)
        .wrap(Wrap { trim: true });
    frame.render_widget(p, Rect::new(area.x, y, area.width, height));
}

/// A rectangle of at most `width` x `height` centred in `area`.
pub(crate) fn centered(area: Rect, width: u16, height: u16) -> Rect {
    let w = width.min(area.width);
    let h = height.min(area.height);
    Rect::new(
        area.x + (area.width - w) / 2,
        area.y + (area.height - h) / 2,
        w,
        h,
    )
}

/// A bordered block titled in the theme's colours.
/// A view whose cache is still being built after the first screen: says
/// what is being built, with a spinner (the frame loop ticks while it is).
pub(crate) fn building(frame: &mut Frame, app: &App, area: Rect, title: &str, what: String) {
    let spin = ["⠋", "⠙", "⠹", "⠸", "⠼", "⠴", "⠦", "⠧", "⠇", "⠏"][(app.tick as usize) % 10];
    frame.render_widget(
        ratatui::widgets::Paragraph::new(ratatui::text::Span::styled(
            format!("{spin} building {what}…"),
            app.theme.fg(app.theme.warn),
        ))
        .block(fitted_panel(app, &[title], area.width)),
        area,
    );
}

/// A panel of `width` columns whose title fits it: the first of `titles`
/// (fullest first) that fits, else the last cut with `…`, so a title never
/// runs silently into the border.
pub(crate) fn fitted_panel<'a, S: AsRef<str>>(app: &App, titles: &[S], width: u16) -> Block<'a> {
    // The corners, the spaces either side of the title, and one `─`
    // after it, so that a title that fits is seen to end.
    let room = usize::from(width).saturating_sub(5);
    let title = titles
        .iter()
        .map(AsRef::as_ref)
        .find(|t| text::width(t) <= room)
        .map(str::to_string)
        .unwrap_or_else(|| text::cut_end(titles.last().map_or("", AsRef::as_ref), room));
    panel(app, title)
}

pub(crate) fn panel<'a>(app: &App, title: impl Into<String>) -> Block<'a> {
    Block::bordered()
        .border_style(app.theme.fg(app.theme.border))
        .title(ratatui::text::Span::styled(
            format!(" {} ", title.into()),
            app.theme.fg(app.theme.title),
        ))
}
