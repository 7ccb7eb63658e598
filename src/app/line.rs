//! One-line input fields (the filter, the command palette, What-if form
//! fields) with the readline keys a shell has: ctrl-a / ctrl-e (start /
//! end), ctrl-u (delete to the start), ctrl-w (delete back to a space),
//! ctrl-k (delete to the end), left / right, home / end, delete. The
//! editing itself is `tui-input`'s; a field is a `String` and a cursor
//! (in characters), so every field keeps its own type.

use crossterm::event::{Event, KeyCode, KeyEvent, KeyModifiers};
use tui_input::backend::crossterm::to_input_request;
use tui_input::{Input, InputRequest};

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
    // ctrl-u deletes to the start of the line, as in bash and readline
    // (tui-input's DeleteLine would also delete what follows the cursor).
    let request = match (key.code, key.modifiers) {
        (KeyCode::Char('u'), KeyModifiers::CONTROL) => {
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
        (KeyCode::Char('w'), KeyModifiers::CONTROL) => {
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
        _ => to_input_request(&Event::Key(key)),
    };
    let Some(request) = request else {
        return if key.modifiers.contains(KeyModifiers::CONTROL) {
            Edit::Moved
        } else {
            Edit::Ignored
        };
    };
    let edits_text = !matches!(
        request,
        InputRequest::GoToPrevChar
            | InputRequest::GoToNextChar
            | InputRequest::GoToPrevWord
            | InputRequest::GoToNextWord
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
}
