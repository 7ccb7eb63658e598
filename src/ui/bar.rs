//! Text bars: `████░░░░` with the filled part coloured.

use ratatui::style::{Color, Style};
use ratatui::text::Span;

/// A bar `width` cells wide, `percent` filled (clamped to 100).
pub fn bar(percent: u16, width: usize, fill: Color, empty: Color) -> Vec<Span<'static>> {
    let filled = ((percent.min(100) as usize * width) + 50) / 100;
    vec![
        Span::styled("█".repeat(filled), Style::new().fg(fill)),
        Span::styled("░".repeat(width - filled), Style::new().fg(empty)),
    ]
}

/// A stacked bar: each `(value, colour, glyph)` gets its share of `total`.
pub fn stacked(parts: &[(i64, Color, &str)], total: i64, width: usize) -> Vec<Span<'static>> {
    let mut spans = Vec::new();
    let mut used = 0usize;
    for (i, &(value, color, glyph)) in parts.iter().enumerate() {
        let cells = if total <= 0 {
            0
        } else if i + 1 == parts.len() {
            width.saturating_sub(used)
        } else {
            ((value.max(0) as f64 / total as f64) * width as f64).round() as usize
        };
        let cells = cells.min(width - used);
        used += cells;
        if cells > 0 {
            spans.push(Span::styled(glyph.repeat(cells), Style::new().fg(color)));
        }
    }
    if used < width {
        spans.push(Span::raw(" ".repeat(width - used)));
    }
    spans
}
