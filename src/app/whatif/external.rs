//! `E`: the draft in `$EDITOR` (fallback `vi`). The TUI leaves the
//! alternate screen and raw mode while the editor runs and comes back with
//! a full redraw.

use std::io::stdout;

use crossterm::event::EnableMouseCapture;
use crossterm::execute;
use crossterm::terminal::{EnterAlternateScreen, enable_raw_mode};

use crate::app::terminal::{self, Term};

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
    let dir = std::env::temp_dir();
    let path = dir.join(format!("kplace-{}-{name}.yaml", std::process::id()));
    std::fs::write(&path, text).map_err(|e| format!("{}: {e}", path.display()))?;
    let command = editor_command();
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
    let _ = std::fs::remove_file(&path);
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
