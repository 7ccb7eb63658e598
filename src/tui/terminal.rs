//! Terminal setup and restore. Restores on drop, from a panic hook and on
//! SIGTERM, SIGINT and SIGHUP, so the user's shell is never left in raw mode,
//! the alternate screen or mouse reporting; and notices when the terminal
//! itself goes away (hangup), where crossterm's reader would spin.

use std::io::{IsTerminal, Stdout, stdout};
use std::os::fd::{AsRawFd, RawFd};
use std::sync::atomic::{AtomicBool, AtomicI32, Ordering};
use std::sync::{Arc, Once};
use std::time::Duration;

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
    use std::io::Write;
    let _ = disable_raw_mode();
    let mut out = stdout();
    let _ = out
        .write_all(restore_sequence().as_bytes())
        .and_then(|()| out.flush());
}

/// What [`restore`] writes: mouse reporting off, the alternate screen
/// left, the cursor shown.
fn restore_sequence() -> String {
    use crossterm::Command;
    let mut sequence = String::new();
    let _ = DisableMouseCapture.write_ansi(&mut sequence);
    let _ = LeaveAlternateScreen.write_ansi(&mut sequence);
    let _ = crossterm::cursor::Show.write_ansi(&mut sequence);
    sequence
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
        arm_fault_restore();
        // Without a terminal (output piped, run from a script) raw mode
        // fails with the system's bare "No such device or address".
        enable_raw_mode().map_err(|e| anyhow::anyhow!(no_terminal(&e)))?;
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
        crate::source::mapped::guard::clear_terminal_restore();
    }
}

/// Tells the mapped-file guard how to put the terminal back if a snapshot
/// mapped while the TUI runs shrinks under it (a fault no hook sees): the
/// settings before raw mode and what [`restore`] writes.
fn arm_fault_restore() {
    // The terminal raw mode is set on: stdin when it is one, as crossterm
    // chooses it.
    let fd = std::io::stdin().as_raw_fd();
    let terminal = std::io::stdin().is_terminal().then(|| {
        // SAFETY: tcgetattr fills the zeroed struct for a valid fd.
        let mut termios: libc::termios = unsafe { std::mem::zeroed() };
        (unsafe { libc::tcgetattr(fd, &mut termios) } == 0).then_some((fd, termios))
    });
    crate::source::mapped::guard::set_terminal_restore(
        restore_sequence().as_bytes(),
        terminal.flatten(),
    );
}

/// The signals that end the TUI: the terminal is restored and kplace exits
/// with 128 + the signal's number, the status a shell reports for a process
/// the signal killed.
pub const ENDING_SIGNALS: [i32; 3] = [libc::SIGHUP, libc::SIGINT, libc::SIGTERM];

/// How long the event loop has to notice a signal and return by itself
/// (it looks every frame, 100 ms) before the signal thread restores the
/// terminal and exits on its own: the loop may be blocked, in `$EDITOR` or
/// a long computation. A second signal does not wait.
const SIGNAL_GRACE: Duration = Duration::from_secs(2);

/// The TUI ended because of a signal or because its terminal went away.
#[derive(Debug, thiserror::Error)]
pub enum Ended {
    #[error("terminated by {}", signal_name(*.0))]
    Signal(i32),
    #[error("the terminal went away (hangup); nothing left to draw on")]
    TerminalGone,
}

impl Ended {
    /// The exit status: 128 + signo after a signal, 1 when the terminal went away.
    pub fn exit_status(&self) -> u8 {
        match self {
            Ended::Signal(signo) => 128u8.saturating_add(u8::try_from(*signo).unwrap_or(0)),
            Ended::TerminalGone => 1,
        }
    }
}

pub fn signal_name(signo: i32) -> &'static str {
    match signo {
        libc::SIGHUP => "SIGHUP",
        libc::SIGINT => "SIGINT",
        libc::SIGTERM => "SIGTERM",
        _ => "a signal",
    }
}

/// Whether `signo` is ignored (`SIG_IGN`), as `nohup` or `trap '' HUP`
/// leave SIGHUP for the programs they start.
fn ignored(signo: i32) -> bool {
    // SAFETY: sigaction with a null new action only reads the current one
    // into `old`, a plain C struct for which all-zero bytes are valid.
    unsafe {
        let mut old: libc::sigaction = std::mem::zeroed();
        libc::sigaction(signo, std::ptr::null(), &mut old) == 0 && old.sa_sigaction == libc::SIG_IGN
    }
}

/// Restores the terminal and ends the process as the signal asks.
fn exit_on_signal(signo: i32) -> ! {
    restore();
    std::process::exit(i32::from(Ended::Signal(signo).exit_status()))
}

/// Catches [`ENDING_SIGNALS`] while the TUI runs (SIGHUP only when it is
/// not ignored: under `nohup` kplace keeps ignoring it, and ends when the
/// terminal goes away instead). The event loop asks [`SignalWatch::received`]
/// every frame and returns, restoring the terminal on the way out; if it does
/// not within [`SIGNAL_GRACE`] (or a second signal comes), the signal thread
/// restores it and exits. Once dropped (the TUI is over), a signal ends the
/// process at once, as it would have without kplace's handler.
pub struct SignalWatch {
    received: Arc<AtomicI32>,
    finished: Arc<AtomicBool>,
}

impl SignalWatch {
    pub fn install() -> std::io::Result<SignalWatch> {
        let wanted: Vec<i32> = ENDING_SIGNALS
            .into_iter()
            .filter(|&s| s != libc::SIGHUP || !ignored(s))
            .collect();
        let mut signals = signal_hook::iterator::Signals::new(&wanted)?;
        let received = Arc::new(AtomicI32::new(0));
        let finished = Arc::new(AtomicBool::new(false));
        let (r, f) = (received.clone(), finished.clone());
        std::thread::Builder::new()
            .name("kplace-signals".into())
            .spawn(move || {
                for signo in signals.forever() {
                    if f.load(Ordering::SeqCst) {
                        // The TUI is over: what the signal would have done.
                        let _ = signal_hook::low_level::emulate_default_handler(signo);
                        std::process::exit(i32::from(Ended::Signal(signo).exit_status()));
                    }
                    if r.compare_exchange(0, signo, Ordering::SeqCst, Ordering::SeqCst)
                        .is_err()
                    {
                        exit_on_signal(r.load(Ordering::SeqCst));
                    }
                    let f = f.clone();
                    std::thread::spawn(move || {
                        std::thread::sleep(SIGNAL_GRACE);
                        if !f.load(Ordering::SeqCst) {
                            exit_on_signal(signo);
                        }
                    });
                }
            })?;
        Ok(SignalWatch { received, finished })
    }

    /// The first ending signal received, if any.
    pub fn received(&self) -> Option<i32> {
        match self.received.load(Ordering::SeqCst) {
            0 => None,
            signo => Some(signo),
        }
    }
}

impl Drop for SignalWatch {
    fn drop(&mut self) {
        self.finished.store(true, Ordering::SeqCst);
    }
}

/// What to say when there is no terminal to draw on or read keys from (a
/// script, a pipe, no controlling terminal): the system says only "No such
/// device or address".
fn no_terminal(e: &std::io::Error) -> String {
    format!(
        "the interactive view needs a terminal, and none is attached ({e}); \
         `kplace place --snapshot FILE --pod POD` answers without one"
    )
}

/// The terminal kplace reads keys from: stdin when it is a terminal, else
/// `/dev/tty` (as crossterm chooses).
pub struct Tty {
    fd: RawFd,
    _file: Option<std::fs::File>,
}

impl Tty {
    pub fn open() -> std::io::Result<Tty> {
        if std::io::stdin().is_terminal() {
            return Ok(Tty {
                fd: std::io::stdin().as_raw_fd(),
                _file: None,
            });
        }
        let file = std::fs::File::open("/dev/tty")
            .map_err(|e| std::io::Error::new(e.kind(), no_terminal(&e)))?;
        Ok(Tty {
            fd: file.as_raw_fd(),
            _file: Some(file),
        })
    }

    /// Waits up to `timeout` for input or a [`Wake`]: `Ok(true)` when
    /// there is input, `Ok(false)` on timeout or wake,
    /// [`Ended::TerminalGone`] when the terminal hung up (its window closed,
    /// its ssh connection dropped). crossterm's reader loops forever on a
    /// hung-up terminal (every read returns EOF or EIO), so the loop must
    /// not call it then.
    pub fn wait(&self, timeout: Duration, wake: &Wake) -> Result<bool, Ended> {
        let mut fds = [
            libc::pollfd {
                fd: self.fd,
                events: libc::POLLIN,
                revents: 0,
            },
            libc::pollfd {
                fd: wake.read_fd(),
                events: libc::POLLIN,
                revents: 0,
            },
        ];
        let ms = libc::c_int::try_from(timeout.as_millis()).unwrap_or(libc::c_int::MAX);
        // SAFETY: two valid pollfds, for the duration of the call.
        let n = unsafe { libc::poll(fds.as_mut_ptr(), 2, ms) };
        if n < 0 {
            // EINTR (a signal, a resize): the caller looks again.
            return Ok(false);
        }
        if fds[0].revents & (libc::POLLHUP | libc::POLLERR | libc::POLLNVAL) != 0 {
            return Err(Ended::TerminalGone);
        }
        if fds[1].revents & libc::POLLIN != 0 {
            wake.drain();
        }
        Ok(fds[0].revents & libc::POLLIN != 0)
    }
}

/// The event loop's one wake-up channel: background jobs (`app::job`) write
/// a byte to this pipe when they send a result, and [`Tty::wait`] returns,
/// so results are drawn when they arrive rather than at the next poll.
pub struct Wake {
    read: std::os::fd::OwnedFd,
    write: Arc<std::os::fd::OwnedFd>,
}

impl Wake {
    pub fn new() -> std::io::Result<Wake> {
        use std::os::fd::FromRawFd;
        let mut fds = [0 as libc::c_int; 2];
        // SAFETY: `fds` has room for the two descriptors pipe2 writes.
        if unsafe { libc::pipe2(fds.as_mut_ptr(), libc::O_NONBLOCK | libc::O_CLOEXEC) } != 0 {
            return Err(std::io::Error::last_os_error());
        }
        // SAFETY: pipe2 succeeded: both descriptors are open and ours alone.
        let (read, write) = unsafe {
            (
                std::os::fd::OwnedFd::from_raw_fd(fds[0]),
                std::os::fd::OwnedFd::from_raw_fd(fds[1]),
            )
        };
        Ok(Wake {
            read,
            write: Arc::new(write),
        })
    }

    /// What a job calls: one byte into the pipe (a full pipe already wakes).
    pub fn waker(&self) -> impl Fn() + Send + Sync + 'static {
        let write = self.write.clone();
        move || {
            // SAFETY: a valid descriptor and a one-byte buffer.
            let _ = unsafe { libc::write(write.as_raw_fd(), [1u8].as_ptr().cast(), 1) };
        }
    }

    fn read_fd(&self) -> RawFd {
        self.read.as_raw_fd()
    }

    fn drain(&self) {
        let mut buf = [0u8; 64];
        // SAFETY: a valid descriptor and buffer; non-blocking, so this ends.
        while unsafe { libc::read(self.read.as_raw_fd(), buf.as_mut_ptr().cast(), buf.len()) } > 0 {
        }
    }
}
