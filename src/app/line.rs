//! One-line input fields (the filter, the command palette, What-if form
//! fields, searches) with the readline keys a shell has: ctrl-a / ctrl-e
//! (start / end), ctrl-u (delete to the start), ctrl-w (delete back to a
//! space), ctrl-k (delete to the end), left / right, home / end, delete.
//! Which key does what is the key table's (`keys`, scope Input), the same
//! table help lists; the editing itself is `tui-input`'s. A field is a
//! `String` and a cursor (in characters), so every field keeps its own type.

use crossterm::event::{KeyCode, KeyEvent, KeyModifiers};
use tui_input::{Input, InputRequest};

use super::keys::{self, Action, Scope};

/// What a key did to a field.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Edit {
    /// The text changed.
    Changed,
    /// Only the cursor moved.
    Moved,
    /// Not an editing key: the caller decides (enter, esc, tab, arrows).
    Ignored,
}

/// Applies `key` to `text` with its cursor at `cursor` (a character
/// index, clamped). A control key that is not a readline key is swallowed
/// (`Moved`), never typed as its letter.
pub fn edit(text: &mut String, cursor: &mut usize, key: KeyEvent) -> Edit {
    let len = text.chars().count();
    *cursor = (*cursor).min(len);
    let request = match keys::action(&[Scope::Input], &key) {
        // ctrl-u deletes to the start of the line, as in bash and readline
        // (tui-input's DeleteLine would also delete what follows the cursor).
        Some(Action::DeleteToStart) => {
            let at = byte_at(text, *cursor);
            if at == 0 {
                return Edit::Moved;
            }
            text.replace_range(..at, "");
            *cursor = 0;
            return Edit::Changed;
        }
        // ctrl-w deletes back to the previous space, as readline's
        // unix-word-rubout (`app=web` is one word).
        Some(Action::DeleteWord) => {
            let at = byte_at(text, *cursor);
            let before = text[..at].trim_end_matches(' ');
            let start = before.rfind(' ').map_or(0, |i| i + 1);
            if start == at {
                return Edit::Moved;
            }
            *cursor = text[..start].chars().count();
            text.replace_range(start..at, "");
            return Edit::Changed;
        }
        Some(Action::LineStart) => InputRequest::GoToStart,
        Some(Action::LineEnd) => InputRequest::GoToEnd,
        Some(Action::CharLeft) => InputRequest::GoToPrevChar,
        Some(Action::CharRight) => InputRequest::GoToNextChar,
        Some(Action::DeleteToEnd) => InputRequest::DeleteTillEnd,
        Some(Action::DeleteBack) => InputRequest::DeletePrevChar,
        Some(Action::DeleteForward) => InputRequest::DeleteNextChar,
        // Enter, esc, tab, up and down: the field's owner decides.
        Some(_) => return Edit::Ignored,
        None => match key.code {
            KeyCode::Char(c)
                if !key
                    .modifiers
                    .intersects(KeyModifiers::CONTROL | KeyModifiers::ALT) =>
            {
                InputRequest::InsertChar(c)
            }
            _ if key.modifiers.contains(KeyModifiers::CONTROL) => return Edit::Moved,
            _ => return Edit::Ignored,
        },
    };
    let edits_text = !matches!(
        request,
        InputRequest::GoToPrevChar
            | InputRequest::GoToNextChar
            | InputRequest::GoToStart
            | InputRequest::GoToEnd
    );
    let mut input = Input::new(std::mem::take(text)).with_cursor(*cursor);
    input.handle(request);
    *cursor = input.cursor();
    *text = input.value().to_string();
    if edits_text {
        Edit::Changed
    } else {
        Edit::Moved
    }
}

/// The byte offset of character `col` of `s`.
pub fn byte_at(s: &str, col: usize) -> usize {
    s.char_indices().nth(col).map_or(s.len(), |(i, _)| i)
}

/// `text` split at the cursor, for drawing a cursor between the halves.
pub fn split_at_cursor(text: &str, cursor: usize) -> (&str, &str) {
    text.split_at(byte_at(text, cursor))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn ctrl(c: char) -> KeyEvent {
        KeyEvent::new(KeyCode::Char(c), KeyModifiers::CONTROL)
    }

    fn typed(text: &str) -> (String, usize) {
        let mut s = String::new();
        let mut at = 0;
        for c in text.chars() {
            edit(&mut s, &mut at, KeyEvent::from(KeyCode::Char(c)));
        }
        (s, at)
    }

    #[test]
    fn readline_keys_edit_instead_of_typing_letters() {
        let (mut s, mut at) = typed("app=web tier=front");
        assert_eq!(edit(&mut s, &mut at, ctrl('w')), Edit::Changed);
        assert_eq!(s, "app=web ");
        assert_eq!(edit(&mut s, &mut at, ctrl('a')), Edit::Moved);
        assert_eq!(at, 0);
        edit(&mut s, &mut at, KeyEvent::from(KeyCode::Char('!')));
        assert_eq!(s, "!app=web ");
        assert_eq!(edit(&mut s, &mut at, ctrl('e')), Edit::Moved);
        assert_eq!(at, s.chars().count());
        // ctrl-u deletes what is before the cursor only.
        edit(&mut s, &mut at, KeyEvent::from(KeyCode::Left));
        edit(&mut s, &mut at, KeyEvent::from(KeyCode::Left));
        edit(&mut s, &mut at, ctrl('u'));
        assert_eq!((s.as_str(), at), ("b ", 0));
        edit(&mut s, &mut at, ctrl('k'));
        assert_eq!(s, "");
        // A control key that is not a readline key types nothing.
        assert_eq!(edit(&mut s, &mut at, ctrl('x')), Edit::Moved);
        assert_eq!(s, "");
        assert_eq!(
            edit(&mut s, &mut at, KeyEvent::from(KeyCode::Enter)),
            Edit::Ignored
        );
    }

    /// Every key the field reacts to is a row of the key table's Input
    /// scope (which help lists), or a plain character typed: any other key
    /// leaves the text and the cursor as they were.
    #[test]
    fn only_the_key_tables_input_keys_and_typing_change_a_field() {
        use crate::app::keys::{BINDINGS, K};
        let mut candidates: Vec<KeyEvent> = Vec::new();
        for c in (b'a'..=b'z').map(char::from) {
            candidates.push(ctrl(c));
            candidates.push(KeyEvent::new(KeyCode::Char(c), KeyModifiers::ALT));
        }
        for code in [
            KeyCode::Enter,
            KeyCode::Esc,
            KeyCode::Tab,
            KeyCode::BackTab,
            KeyCode::Up,
            KeyCode::Down,
            KeyCode::Left,
            KeyCode::Right,
            KeyCode::Home,
            KeyCode::End,
            KeyCode::PageUp,
            KeyCode::PageDown,
            KeyCode::Backspace,
            KeyCode::Delete,
            KeyCode::Insert,
            KeyCode::F(1),
        ] {
            candidates.push(KeyEvent::from(code));
            candidates.push(KeyEvent::new(code, KeyModifiers::CONTROL));
        }
        let input_rows: Vec<_> = BINDINGS
            .iter()
            .filter(|b| b.scope == Scope::Input)
            .collect();
        for key in candidates {
            let bound = keys::action(&[Scope::Input], &key).is_some();
            let (mut s, mut at) = typed("app=web tier");
            at -= 3;
            let before = (s.clone(), at);
            let result = edit(&mut s, &mut at, key);
            if !bound {
                assert_eq!(
                    (s.clone(), at),
                    before,
                    "{key:?} changed a field without a row in the key table"
                );
                assert_ne!(result, Edit::Changed, "{key:?}");
            }
        }
        // And every Input row that edits does so: each moves the cursor or
        // changes the text from the middle of a line.
        for b in input_rows {
            let Some(action) = b.action else { continue };
            for k in b.on {
                let key = match *k {
                    K::Ctrl(c) => ctrl(c),
                    K::Code(c) => KeyEvent::from(c),
                    K::Ch(c) => KeyEvent::from(KeyCode::Char(c)),
                    _ => continue,
                };
                let (mut s, mut at) = typed("app=web tier");
                at -= 3;
                let before = (s.clone(), at);
                let result = edit(&mut s, &mut at, key);
                match action {
                    Action::Accept
                    | Action::Cancel
                    | Action::Complete
                    | Action::Up
                    | Action::Down => assert_eq!(result, Edit::Ignored, "{}", b.keys),
                    _ => assert_ne!((s, at), before, "{} does nothing", b.keys),
                }
            }
        }
    }
}
