//! A selection in a scrolling list. The drawing code reports the list's
//! height back (through `Cell`s, since it only borrows the app) so that
//! page keys move by what is on screen.

use std::cell::Cell;
use std::ops::Range;

#[derive(Clone, Debug, Default)]
pub struct Cursor {
    pub selected: usize,
    offset: Cell<usize>,
    viewport: Cell<usize>,
    /// For scrolled text: the last top line that still fills the view,
    /// as last drawn (wrapping makes it depend on the width).
    last_top: Cell<Option<usize>>,
    /// The screen row of the first list row, as last drawn (mouse clicks).
    screen_top: Cell<Option<u16>>,
    /// The pane the list was last drawn in, as (x, y, width, height), for
    /// a view of several scrolling panes (the mouse wheel scrolls the one
    /// under the pointer).
    pane: Cell<Option<(u16, u16, u16, u16)>>,
}

impl Cursor {
    /// Rows per page, as last drawn (10 before the first draw).
    pub fn page(&self) -> usize {
        match self.viewport.get() {
            0 => 10,
            n => n,
        }
    }

    pub fn move_by(&mut self, delta: isize, len: usize) {
        if len == 0 {
            self.selected = 0;
            return;
        }
        let target = self.selected as isize + delta;
        self.selected = target.clamp(0, len as isize - 1) as usize;
    }

    pub fn home(&mut self) {
        self.selected = 0;
    }

    pub fn end(&mut self, len: usize) {
        self.selected = len.saturating_sub(1);
    }

    pub fn clamp(&mut self, len: usize) {
        if self.selected >= len {
            self.selected = len.saturating_sub(1);
        }
    }

    /// The rows to draw in a list `height` rows tall, scrolled just enough
    /// to keep the selection visible. Remembers height and offset.
    pub fn visible(&self, len: usize, height: usize) -> Range<usize> {
        self.viewport.set(height);
        if height == 0 || len == 0 {
            return 0..0;
        }
        let mut offset = self.offset.get().min(len.saturating_sub(1));
        let selected = self.selected.min(len - 1);
        if selected < offset {
            offset = selected;
        } else if selected >= offset + height {
            offset = selected + 1 - height;
        }
        // Do not leave empty rows at the bottom when the list could fill them.
        if offset + height > len {
            offset = len.saturating_sub(height);
        }
        self.offset.set(offset);
        offset..(offset + height).min(len)
    }
}

impl Cursor {
    /// For read-only text where `selected` is the top line: the lines to
    /// draw in `height` rows. Remembers the height for page keys.
    pub fn window(&self, len: usize, height: usize) -> Range<usize> {
        self.viewport.set(height);
        let last_top = len.saturating_sub(height);
        self.last_top.set(Some(last_top));
        let top = self.selected.min(last_top);
        top..(top + height).min(len)
    }

    /// For wrapped text where `selected` is the top line: `rows[i]` is how
    /// many screen rows line `i` takes at the width drawn. Returns the
    /// first line to draw, never so far down that the view is not full.
    pub fn wrapped_top(&self, rows: &[usize], height: usize) -> usize {
        self.viewport.set(height);
        let mut last_top = rows.len();
        let mut used = 0;
        while last_top > 0 && used + rows[last_top - 1] <= height {
            last_top -= 1;
            used += rows[last_top];
        }
        let last_top = last_top.min(rows.len().saturating_sub(1));
        self.last_top.set(Some(last_top));
        self.selected.min(last_top)
    }

    /// The last top line the text can scroll to, once drawn.
    pub fn last_top(&self) -> Option<usize> {
        self.last_top.get()
    }

    /// The list starts at screen row `y` (from the drawing code).
    pub fn set_screen_top(&self, y: u16) {
        self.screen_top.set(Some(y));
    }

    /// The list was drawn in the pane at (x, y), `width` by `height`.
    pub fn set_pane(&self, x: u16, y: u16, width: u16, height: u16) {
        self.pane.set(Some((x, y, width, height)));
    }

    /// Whether screen cell (`column`, `row`) is in the pane drawn last.
    pub fn pane_contains(&self, column: u16, row: u16) -> bool {
        self.pane.get().is_some_and(|(x, y, w, h)| {
            (x..x.saturating_add(w)).contains(&column) && (y..y.saturating_add(h)).contains(&row)
        })
    }

    /// The list row at screen row `y`, if it is on a row drawn last.
    pub fn row_at(&self, y: u16) -> Option<usize> {
        let top = self.screen_top.get()?;
        let i = usize::from(y.checked_sub(top)?);
        (i < self.viewport.get()).then(|| self.offset.get() + i)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn scrolls_to_keep_selection_visible() {
        let mut c = Cursor::default();
        assert_eq!(c.visible(100, 10), 0..10);
        c.move_by(15, 100);
        assert_eq!(c.visible(100, 10), 6..16);
        c.end(100);
        assert_eq!(c.visible(100, 10), 90..100);
        c.move_by(-1000, 100);
        assert_eq!(c.selected, 0);
        assert_eq!(c.visible(100, 10), 0..10);
        assert_eq!(c.visible(0, 10), 0..0);
    }
}
