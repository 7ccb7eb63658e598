//! The terminal edge of the TUI: terminal setup and teardown (signals
//! included), the event loop that feeds keys to `app` and draws with `ui`,
//! and `$EDITOR` with the TUI suspended. `app` holds state and actions
//! only; `ui` draws that state only.

pub(crate) mod editor;
pub mod terminal;

use std::time::Duration;

use crossterm::event::{self, Event};

use crate::app::{App, Options, state};

/// How long the loop waits for input while work is in flight (a spinner's
/// frame); results themselves wake it at once (`app::job`).
const FRAME: Duration = Duration::from_millis(100);
/// How long it waits when idle: clocks on screen ("3 s ago") tick each second.
const IDLE: Duration = Duration::from_secs(1);

/// Runs the TUI until the user quits. The terminal is restored on every
/// exit path: normal return, error, panic, SIGTERM, SIGINT and SIGHUP (the
/// error is then [`terminal::Ended`], whose exit status is 128 + signo), and
/// a terminal that went away.
pub fn run(options: Options) -> anyhow::Result<()> {
    let signals = terminal::SignalWatch::install()?;
    let mut app = App::new(options);
    let tty = terminal::Tty::open()?;
    let wake = terminal::Wake::new()?;
    crate::app::job::set_waker(wake.waker());
    let mut guard = terminal::TerminalGuard::enter()?;
    let result = event_loop(&mut guard.terminal, &mut app, &signals, &tty, &wake);
    drop(guard);
    drop(signals);
    result?;
    // Quitting from the load-error screen still means the snapshot was bad:
    // say so on the restored terminal and let the caller exit non-zero.
    match &app.phase {
        state::Phase::Failed { error, .. } => Err(LoadFailed(error.clone()).into()),
        // A live session that never connected: the cluster was not reached,
        // which scripts must be able to tell from a normal quit.
        state::Phase::Loading(l) if l.live => Err(LoadFailed(format!(
            "{}: quit before the cluster answered ({})",
            l.name,
            l.progress()
        ))
        .into()),
        _ => Ok(()),
    }
}

/// The TUI was quit after its snapshot failed to load.
#[derive(Debug, thiserror::Error)]
#[error("{0}")]
pub struct LoadFailed(pub String);

fn event_loop(
    terminal: &mut terminal::Term,
    app: &mut App,
    signals: &terminal::SignalWatch,
    tty: &terminal::Tty,
    wake: &terminal::Wake,
) -> anyhow::Result<()> {
    let mut dirty = true;
    loop {
        if let Some(signo) = signals.received() {
            return Err(terminal::Ended::Signal(signo).into());
        }
        // Background results need a frame even when no key was pressed: a
        // job's result wakes the wait below, and spinners get a frame every
        // FRAME while work is in flight.
        dirty |= app.frame_due();
        if dirty {
            terminal.draw(|frame| crate::ui::draw(frame, app))?;
            dirty = false;
        }
        if app.should_quit {
            return Ok(());
        }
        if let Some(draft) = app.take_external_edit() {
            let edited = editor::suspend_and_edit(terminal, &draft.text, &draft.name);
            app.finish_external_edit(&draft, edited);
            dirty = true;
            continue;
        }
        // Wait on the terminal ourselves (a hung-up one ends the TUI), then
        // let crossterm read what is there; it also reports resizes.
        tty.wait(if app.busy() { FRAME } else { IDLE }, wake)?;
        if event::poll(Duration::ZERO)? {
            // Drain everything queued so a burst of keys costs one frame.
            loop {
                match event::read()? {
                    Event::Key(key) => app.handle_key(key),
                    Event::Mouse(mouse) => app.handle_mouse(mouse),
                    Event::Resize(..) => terminal.autoresize()?,
                    _ => {}
                }
                if app.should_quit || !event::poll(Duration::ZERO)? {
                    break;
                }
            }
            dirty = true;
        }
        app.on_tick();
    }
}
