//! What the TUI tests share: the screen as a person would read it.

#![allow(dead_code)]

use kplace::app::App;
use ratatui::Terminal;
use ratatui::backend::TestBackend;

/// The app drawn into a `width`×`height` test terminal, as text: one line
/// per row.
pub fn render(app: &App, width: u16, height: u16) -> String {
    let mut terminal = Terminal::new(TestBackend::new(width, height)).expect("test terminal");
    terminal.draw(|f| kplace::ui::draw(f, app)).expect("draw");
    let buffer = terminal.backend().buffer();
    let mut out = String::new();
    for y in 0..height {
        for x in 0..width {
            out.push_str(buffer[(x, y)].symbol());
        }
        out.push('\n');
    }
    out
}
