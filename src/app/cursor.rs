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
        let top = self.selected.min(len.saturating_sub(height));
        top..(top + height).min(len)
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
