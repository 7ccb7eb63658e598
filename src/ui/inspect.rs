//! The Describe / YAML overlay: the text built by `app::inspect`, wrapped
//! to the overlay's width, scrolled and searched.

use ratatui::Frame;
use ratatui::layout::Rect;
use ratatui::widgets::{Clear, Paragraph};

use crate::app::App;
use crate::app::inspect::Inspect;

use super::fitted_panel;

pub fn draw(frame: &mut Frame, app: &App, i: &Inspect, area: Rect) {
    let t = &app.theme;
    // Over the body: leave the title, tab and status lines visible.
    let rect = Rect {
        x: area.x,
        y: area.y + 2,
        width: area.width,
        height: area.height.saturating_sub(3),
    };
    frame.render_widget(Clear, rect);
    let (shown, range) =
        super::placement::scrolled_wrapped(t, &i.lines, &i.scroll, rect, &|n| i.search.is_hit(n));
    let title = format!(
        "{} · {}-{} of {} · / search · esc/q close",
        i.title,
        range.start + 1,
        range.end,
        i.lines.len()
    );
    frame.render_widget(
        Paragraph::new(shown)
            .style(t.base())
            .block(fitted_panel(app, &[title], rect.width)),
        rect,
    );
}
