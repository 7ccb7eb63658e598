//! UI state and actions (no drawing): the k9s-style TUI's model. `run`
//! owns the terminal and the event loop; everything else is plain state
//! that tests drive with key events.

mod carry;
pub mod cursor;
pub mod demo;
pub mod derived;
pub mod feed;
pub mod files;
pub mod format;
pub mod inspect;
pub mod keys;
pub mod line;
pub mod live;
pub mod loader;
pub mod palette;
pub mod remedies;
pub mod replay;
pub mod report;
pub mod skew;
pub mod state;
pub mod table;
pub mod terminal;
pub mod theme;
pub mod tiers;
pub mod view;
pub mod whatif;
pub mod worker;

use std::time::Duration;

use crossterm::event::{self, Event};

pub use state::{App, Overlay, Phase, Session};
pub use view::View;

/// How the TUI was asked to start (from the command line).
#[derive(Clone, Debug, Default)]
pub struct Options {
    /// `--snapshot FILE`.
    pub snapshot: Option<std::path::PathBuf>,
    /// `--demo`.
    pub demo: bool,
    /// `--demo-replay`: the built-in demo recording.
    pub demo_replay: bool,
    /// `--context` / `--kubeconfig`: this live cluster, and nothing else.
    pub live: Option<crate::source::live::Target>,
    /// No source named (plain `kplace`): the current context (or `live`'s)
    /// when it is reachable, else the demo with a note saying why.
    pub auto: bool,
    /// `--theme NAME`.
    pub theme: Option<String>,
    /// `NAMESPACE/NAME`: open the Placement view on this pod.
    pub pod: Option<String>,
    /// `--scheduler-version`: answer as this release whatever the cluster reports.
    pub scheduler_version: Option<crate::engine::Version>,
    /// `--scheduler-config`: a validated configuration's profiles.
    pub scheduler_config: Option<std::sync::Arc<crate::engine::Profiles>>,
}

/// How long the loop waits for input before redrawing (spinners, results).
const FRAME: Duration = Duration::from_millis(100);

/// Runs the TUI until the user quits. The terminal is restored on every
/// exit path: normal return, error, panic, SIGTERM, SIGINT and SIGHUP (the
/// error is then [`terminal::Ended`], whose exit status is 128 + signo), and
/// a terminal that went away.
pub fn run(options: Options) -> anyhow::Result<()> {
    let signals = terminal::SignalWatch::install()?;
    let mut app = App::new(options);
    let tty = terminal::Tty::open()?;
    let mut guard = terminal::TerminalGuard::enter()?;
    let result = event_loop(&mut guard.terminal, &mut app, &signals, &tty);
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
) -> anyhow::Result<()> {
    let mut dirty = true;
    loop {
        if let Some(signo) = signals.received() {
            return Err(terminal::Ended::Signal(signo).into());
        }
        // Background results (and spinners while work is in flight) need a
        // frame even when no key was pressed: `event::poll` below returns at
        // least every FRAME, so a result is drawn within one frame.
        dirty |= app.frame_due();
        if dirty {
            terminal.draw(|frame| crate::ui::draw(frame, app))?;
            dirty = false;
        }
        if app.should_quit {
            return Ok(());
        }
        if app.take_external_edit() {
            app.run_external_editor(terminal);
            dirty = true;
            continue;
        }
        // Wait on the terminal ourselves (a hung-up one ends the TUI), then
        // let crossterm read what is there; it also reports resizes.
        tty.wait(FRAME)?;
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
