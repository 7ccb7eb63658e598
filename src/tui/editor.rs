//! `E`: the draft in `$EDITOR` (fallback `vi`). The TUI leaves the
//! alternate screen and raw mode while the editor runs and comes back with
//! a full redraw.

use std::io::stdout;

use crossterm::event::EnableMouseCapture;
use crossterm::execute;
use crossterm::terminal::{EnterAlternateScreen, enable_raw_mode};

use super::terminal::{self, Term};

/// The editor command: `$VISUAL`, `$EDITOR`, else `vi`.
pub fn editor_command() -> String {
    ["VISUAL", "EDITOR"]
        .iter()
        .filter_map(|v| std::env::var(v).ok())
        .find(|v| !v.trim().is_empty())
        .unwrap_or_else(|| "vi".to_string())
}

/// Runs the editor on `text`; returns the edited text (or why not).
pub fn edit_text(text: &str, name: &str) -> Result<String, String> {
    edit_text_with(&editor_command(), text, name)
}

/// [`edit_text`] with a given editor command (run through `sh`).
fn edit_text_with(command: &str, text: &str, name: &str) -> Result<String, String> {
    use std::io::Write;
    // A new file only kplace's user can read, under an unpredictable name
    // (a shared /tmp must not let anyone plant or read the draft).
    let safe = crate::app::files::draft_file_name(name);
    let prefix = format!("kplace-{}-", safe.trim_end_matches(".yaml"));
    let mut file = tempfile::Builder::new()
        .prefix(&prefix)
        .suffix(".yaml")
        .tempfile()
        .map_err(|e| format!("cannot create a temporary file for the editor: {e}"))?;
    file.write_all(text.as_bytes())
        .and_then(|()| file.flush())
        .map_err(|e| format!("{}: {e}", file.path().display()))?;
    let path = file.path().to_path_buf();
    // Through the shell, so `EDITOR="code --wait"` works.
    let status = std::process::Command::new("sh")
        .arg("-c")
        .arg(format!("{command} \"$1\""))
        .arg("kplace-editor")
        .arg(&path)
        .status();
    let result = match status {
        Ok(s) if s.success() => std::fs::read_to_string(&path).map_err(|e| e.to_string()),
        Ok(s) => Err(format!("{command} exited with {s}; the draft is unchanged")),
        Err(e) => Err(format!("cannot run {command}: {e}")),
    };
    // Dropping `file` removes it (or what the editor saved in its place).
    drop(file);
    result
}

/// Suspends the TUI, edits, restores the terminal and forces a redraw.
pub fn suspend_and_edit(term: &mut Term, text: &str, name: &str) -> Result<String, String> {
    terminal::restore();
    let result = edit_text(text, name);
    let _ = enable_raw_mode();
    let _ = execute!(stdout(), EnterAlternateScreen, EnableMouseCapture);
    let _ = term.hide_cursor();
    let _ = term.clear();
    result
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_draft_goes_to_a_private_unpredictable_file_that_is_removed() {
        let dir = tempfile::tempdir().unwrap();
        let seen = dir.path().join("seen");
        // The "editor" notes the file's name and mode, then rewrites it.
        let command = format!(
            "f() {{ printf '%s %s' \"$1\" \"$(stat -c %a \"$1\")\" > {}; printf 'edited' > \"$1\"; }}; f",
            seen.display()
        );
        let got = edit_text_with(&command, "original", "../web").unwrap();
        assert_eq!(got, "edited");
        let seen = std::fs::read_to_string(&seen).unwrap();
        let (path, mode) = seen.split_once(' ').unwrap();
        assert_eq!(mode, "600", "only the user can read the draft");
        let file = std::path::Path::new(path)
            .file_name()
            .unwrap()
            .to_str()
            .unwrap();
        assert!(file.starts_with("kplace-_.._web-"), "{file}");
        assert!(file.ends_with(".yaml"), "{file}");
        assert!(!file.contains(&std::process::id().to_string()), "{file}");
        assert!(!std::path::Path::new(path).exists(), "removed afterwards");
    }
}
