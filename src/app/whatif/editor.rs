//! A small multi-line text area for quick YAML changes in the app.

use crossterm::event::{KeyCode, KeyEvent, KeyModifiers};

#[derive(Clone, Debug, Default)]
pub struct TextArea {
    pub lines: Vec<String>,
    /// Cursor line.
    pub row: usize,
    /// Cursor column, in characters.
    pub col: usize,
    /// Why the last ctrl-s was refused.
    pub error: Option<String>,
}

/// What a key did to the editor.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum EditorAction {
    Continue,
    Apply,
    Cancel,
}

fn byte_at(s: &str, col: usize) -> usize {
    s.char_indices().nth(col).map(|(i, _)| i).unwrap_or(s.len())
}

impl TextArea {
    pub fn new(text: &str) -> TextArea {
        let mut lines: Vec<String> = text.lines().map(str::to_string).collect();
        if lines.is_empty() {
            lines.push(String::new());
        }
        TextArea {
            lines,
            ..Default::default()
        }
    }

    pub fn text(&self) -> String {
        let mut s = self.lines.join("\n");
        s.push('\n');
        s
    }

    fn line_len(&self) -> usize {
        self.lines[self.row].chars().count()
    }

    /// Moves the cursor to the first line containing `needle`, at its end.
    pub fn find(&mut self, needle: &str) -> bool {
        match self.lines.iter().position(|l| l.contains(needle)) {
            Some(r) => {
                self.row = r;
                self.col = self.line_len();
                true
            }
            None => false,
        }
    }

    /// A key in the editor, as the key table binds it: its own scope
    /// (ctrl-s, esc, enter, tab, pgup/pgdn) first, then the Input keys
    /// every field has (arrows, home/end, readline keys, backspace,
    /// delete); a plain character is typed.
    pub fn key(&mut self, key: KeyEvent) -> EditorAction {
        use crate::app::keys::{self, Action, Scope};
        let Some(action) = keys::action(&[Scope::Editor, Scope::Input], &key) else {
            if let KeyCode::Char(c) = key.code
                && !key
                    .modifiers
                    .intersects(KeyModifiers::CONTROL | KeyModifiers::ALT)
            {
                let at = byte_at(&self.lines[self.row], self.col);
                self.lines[self.row].insert(at, c);
                self.col += 1;
            }
            return EditorAction::Continue;
        };
        match action {
            Action::ApplyYaml => return EditorAction::Apply,
            Action::Cancel => return EditorAction::Cancel,
            Action::Up => {
                self.row = self.row.saturating_sub(1);
                self.col = self.col.min(self.line_len());
            }
            Action::Down => {
                self.row = (self.row + 1).min(self.lines.len() - 1);
                self.col = self.col.min(self.line_len());
            }
            Action::CharLeft => {
                if self.col > 0 {
                    self.col -= 1;
                } else if self.row > 0 {
                    self.row -= 1;
                    self.col = self.line_len();
                }
            }
            Action::CharRight => {
                if self.col < self.line_len() {
                    self.col += 1;
                } else if self.row + 1 < self.lines.len() {
                    self.row += 1;
                    self.col = 0;
                }
            }
            Action::LineStart => self.col = 0,
            Action::LineEnd => self.col = self.line_len(),
            Action::PageUp => self.row = self.row.saturating_sub(20),
            Action::PageDown => self.row = (self.row + 20).min(self.lines.len() - 1),
            Action::NewLine => {
                let at = byte_at(&self.lines[self.row], self.col);
                let rest = self.lines[self.row].split_off(at);
                // Keep the indentation, as YAML wants.
                let indent: String = self.lines[self.row]
                    .chars()
                    .take_while(|c| *c == ' ')
                    .collect();
                self.col = indent.chars().count();
                self.lines.insert(self.row + 1, indent + &rest);
                self.row += 1;
            }
            Action::DeleteBack => {
                if self.col > 0 {
                    let at = byte_at(&self.lines[self.row], self.col - 1);
                    self.lines[self.row].remove(at);
                    self.col -= 1;
                } else if self.row > 0 {
                    let line = self.lines.remove(self.row);
                    self.row -= 1;
                    self.col = self.line_len();
                    self.lines[self.row].push_str(&line);
                }
            }
            Action::DeleteForward => {
                if self.col < self.line_len() {
                    let at = byte_at(&self.lines[self.row], self.col);
                    self.lines[self.row].remove(at);
                } else if self.row + 1 < self.lines.len() {
                    let next = self.lines.remove(self.row + 1);
                    self.lines[self.row].push_str(&next);
                }
            }
            Action::Indent => {
                let at = byte_at(&self.lines[self.row], self.col);
                self.lines[self.row].insert_str(at, "  ");
                self.col += 2;
            }
            // ctrl-u, ctrl-k, ctrl-w: on the cursor's line, as in a field.
            Action::DeleteToStart | Action::DeleteToEnd | Action::DeleteWord => {
                crate::app::line::edit(&mut self.lines[self.row], &mut self.col, key);
            }
            _ => {}
        }
        EditorAction::Continue
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn press(t: &mut TextArea, code: KeyCode) {
        t.key(KeyEvent::new(code, KeyModifiers::NONE));
    }

    #[test]
    fn insert_delete_and_newline() {
        let mut t = TextArea::new("a:\n  b: 1\n");
        assert!(t.find("b: 1"));
        press(&mut t, KeyCode::Backspace);
        press(&mut t, KeyCode::Char('2'));
        press(&mut t, KeyCode::Enter);
        for c in "c: 3".chars() {
            press(&mut t, KeyCode::Char(c));
        }
        assert_eq!(t.text(), "a:\n  b: 2\n  c: 3\n");
        press(&mut t, KeyCode::Home);
        press(&mut t, KeyCode::Backspace);
        assert_eq!(t.lines[1], "  b: 2  c: 3");
        // The readline keys of every field work on the cursor's line.
        t.key(KeyEvent::new(KeyCode::Char('w'), KeyModifiers::CONTROL));
        assert_eq!((t.lines[1].as_str(), t.col), ("  b:   c: 3", 5));
        press(&mut t, KeyCode::End);
        t.key(KeyEvent::new(KeyCode::Char('w'), KeyModifiers::CONTROL));
        assert_eq!(t.lines[1], "  b:   c: ");
        t.key(KeyEvent::new(KeyCode::Char('u'), KeyModifiers::CONTROL));
        assert_eq!((t.lines[1].as_str(), t.col), ("", 0));
    }
}
