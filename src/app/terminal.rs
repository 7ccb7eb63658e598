//! Terminal setup and restore. Restores on drop and from a panic hook, so
//! the user's shell is never left in raw mode or the alternate screen.

use std::io::{Stdout, stdout};
use std::sync::Once;

use crossterm::event::{DisableMouseCapture, EnableMouseCapture};
use crossterm::execute;
use crossterm::terminal::{
    EnterAlternateScreen, LeaveAlternateScreen, disable_raw_mode, enable_raw_mode,
};
use ratatui::Terminal;
use ratatui::backend::CrosstermBackend;

pub type Term = Terminal<CrosstermBackend<Stdout>>;

/// Owns the terminal while the TUI runs; dropping it restores the terminal.
pub struct TerminalGuard {
    pub terminal: Term,
}

/// Leaves the alternate screen, disables raw mode and mouse capture, shows
/// the cursor. Safe to call more than once.
pub fn restore() {
    let _ = disable_raw_mode();
    let _ = execute!(
        stdout(),
        DisableMouseCapture,
        LeaveAlternateScreen,
        crossterm::cursor::Show
    );
}

static PANIC_HOOK: Once = Once::new();

/// Restores the terminal before the default hook prints the panic, so the
/// message is readable.
fn install_panic_hook() {
    PANIC_HOOK.call_once(|| {
        let previous = std::panic::take_hook();
        std::panic::set_hook(Box::new(move |info| {
            restore();
            previous(info);
        }));
    });
}

impl TerminalGuard {
    pub fn enter() -> anyhow::Result<TerminalGuard> {
        install_panic_hook();
        enable_raw_mode()?;
        let setup = execute!(stdout(), EnterAlternateScreen, EnableMouseCapture);
        let terminal = setup.map_err(anyhow::Error::from).and_then(|_| {
            Terminal::new(CrosstermBackend::new(stdout())).map_err(anyhow::Error::from)
        });
        match terminal {
            Ok(mut terminal) => {
                let _ = terminal.hide_cursor();
                let _ = terminal.clear();
                Ok(TerminalGuard { terminal })
            }
            Err(e) => {
                restore();
                Err(e)
            }
        }
    }
}

impl Drop for TerminalGuard {
    fn drop(&mut self) {
        restore();
    }
}
