//! A snapshot file's bytes as the loader reads them: a large plain file is
//! mapped (`mmap`) rather than copied into memory.
//!
//! Reading the 237 MB synthetic cluster into a fresh buffer cost 140–180 ms
//! before the parse could start: every page of the buffer is zeroed by the
//! kernel on first touch and then filled by a copy from the page cache.
//! A mapping shares the page cache's pages instead; the loader gives them
//! back behind its parser as it did the buffer's ([`give_back`]).
//!
//! A mapped file that another program truncates while kplace reads it
//! would fault (`SIGBUS`) on the missing pages: [`guard`] turns that fault
//! into a clear error (the file named, the terminal restored) instead.
//!
//! [`give_back`]: crate::allocator::give_back

use std::fs::File;
use std::ops::Deref;
use std::sync::atomic::{AtomicPtr, AtomicUsize, Ordering::SeqCst};

/// Files smaller than this are read: a mapping saves nothing on them.
pub const MAP_FROM: u64 = 1 << 20;

/// The bytes of a file: read into memory, or mapped read-only.
pub enum FileBytes {
    Read(Vec<u8>),
    Mapped(Mapping),
}

impl Deref for FileBytes {
    type Target = [u8];
    fn deref(&self) -> &[u8] {
        match self {
            FileBytes::Read(v) => v,
            FileBytes::Mapped(m) => m.bytes(),
        }
    }
}

impl From<Vec<u8>> for FileBytes {
    fn from(v: Vec<u8>) -> Self {
        FileBytes::Read(v)
    }
}

/// A private, read-only mapping of a whole file, unmapped on drop.
pub struct Mapping {
    ptr: *mut u8,
    len: usize,
}

// SAFETY: the mapping is read-only and owned by this value; reading it
// from several threads at once is reading shared immutable memory.
unsafe impl Send for Mapping {}
// SAFETY: as above, `&Mapping` only gives `&[u8]`.
unsafe impl Sync for Mapping {}

impl Mapping {
    /// Maps the first `len` bytes of `file` (its size when opened; `len`
    /// is at least 1). The guard is armed for the mapping's range while it
    /// lives.
    pub fn of(file: &File, len: usize, name: &str) -> std::io::Result<Mapping> {
        use std::os::fd::AsRawFd;
        // SAFETY: a fresh mapping the kernel places; nothing else refers to
        // the range until this value hands it out as a byte slice.
        let ptr = unsafe {
            libc::mmap(
                std::ptr::null_mut(),
                len,
                libc::PROT_READ,
                libc::MAP_PRIVATE,
                file.as_raw_fd(),
                0,
            )
        };
        if ptr == libc::MAP_FAILED {
            return Err(std::io::Error::last_os_error());
        }
        let mapping = Mapping {
            ptr: ptr.cast(),
            len,
        };
        // The parser reads front to back, the way the kernel's read-ahead
        // reads best.
        // SAFETY: advice on a range this value maps; it changes no contents.
        unsafe { libc::madvise(ptr, len, libc::MADV_SEQUENTIAL) };
        guard::arm(mapping.ptr as usize, len, name);
        Ok(mapping)
    }

    fn bytes(&self) -> &[u8] {
        // SAFETY: `ptr..ptr+len` is mapped readable for as long as `self`
        // lives and nothing writes to it (private, read-only).
        unsafe { std::slice::from_raw_parts(self.ptr, self.len) }
    }
}

impl Drop for Mapping {
    fn drop(&mut self) {
        guard::disarm(self.ptr as usize);
        // SAFETY: the range was mapped by `Mapping::of` and no slice of it
        // outlives `self`.
        unsafe { libc::munmap(self.ptr.cast(), self.len) };
    }
}

/// Turns a fault on a mapped file that shrank under kplace into an error
/// message and an exit, with the terminal restored: one mapping is guarded
/// at a time (the loader maps one file at once); others fault as before.
pub mod guard {
    use super::*;
    use std::os::fd::RawFd;

    static START: AtomicUsize = AtomicUsize::new(0);
    static LEN: AtomicUsize = AtomicUsize::new(0);
    /// The message written on a fault: leaked once per armed mapping
    /// (a path's worth of bytes per snapshot loaded).
    static MESSAGE: AtomicPtr<Vec<u8>> = AtomicPtr::new(std::ptr::null_mut());
    /// What to write to the terminal before exiting (the TUI's restore
    /// sequence), set by whoever switched the terminal.
    static RESTORE: AtomicPtr<TerminalState> = AtomicPtr::new(std::ptr::null_mut());
    static INSTALLED: std::sync::Once = std::sync::Once::new();

    /// The text a fault inside the guarded mapping writes to stderr.
    pub fn message_for(name: &str) -> String {
        format!(
            "kplace: {name}: the file shrank while it was read (another program truncated or rewrote it); nothing was loaded\n"
        )
    }

    pub(super) fn arm(start: usize, len: usize, name: &str) {
        INSTALLED.call_once(install);
        let message = Box::into_raw(Box::new(message_for(name).into_bytes()));
        // Leaked on purpose: a handler may read the old one at any moment.
        MESSAGE.store(message, SeqCst);
        LEN.store(0, SeqCst);
        START.store(start, SeqCst);
        LEN.store(len, SeqCst);
    }

    pub(super) fn disarm(start: usize) {
        if START.load(SeqCst) == start {
            LEN.store(0, SeqCst);
        }
    }

    /// Bytes written to the terminal when a guarded fault ends the process
    /// (leaving the alternate screen, showing the cursor); `termios`, the
    /// settings of the terminal `fd` before raw mode, are put back too.
    pub fn set_terminal_restore(sequence: &[u8], terminal: Option<(RawFd, libc::termios)>) {
        let saved = Box::new(TerminalState {
            sequence: sequence.to_vec(),
            terminal,
        });
        // Leaked on purpose, as the message is: a handler may be reading
        // the one it replaces.
        RESTORE.store(Box::into_raw(saved), SeqCst);
    }

    /// Undoes [`set_terminal_restore`] once the terminal is back to normal.
    pub fn clear_terminal_restore() {
        RESTORE.store(std::ptr::null_mut(), SeqCst);
    }

    struct TerminalState {
        sequence: Vec<u8>,
        terminal: Option<(RawFd, libc::termios)>,
    }

    /// Whether SIGBUS is handled by this guard (the Rust runtime installs
    /// its own handler for it too, to report stack overflows).
    #[cfg(test)]
    pub(super) fn installed() -> bool {
        // SAFETY: sigaction with a null new action only reads the current
        // one into the zeroed struct.
        unsafe {
            let mut now: libc::sigaction = std::mem::zeroed();
            libc::sigaction(libc::SIGBUS, std::ptr::null(), &mut now) == 0
                && now.sa_sigaction == handler as *const () as usize
        }
    }

    /// Replaces the Rust runtime's SIGBUS handler, which on Linux reports
    /// nothing a fault here could be (stack overflows raise SIGSEGV).
    fn install() {
        // SAFETY: installing a handler for SIGBUS with a zeroed sigaction
        // filled in field by field; the handler only reads atomics and
        // calls async-signal-safe functions.
        unsafe {
            let mut action: libc::sigaction = std::mem::zeroed();
            action.sa_sigaction = handler as *const () as usize;
            action.sa_flags = libc::SA_SIGINFO;
            libc::sigemptyset(&mut action.sa_mask);
            libc::sigaction(libc::SIGBUS, &action, std::ptr::null_mut());
        }
    }

    extern "C" fn handler(signo: libc::c_int, info: *mut libc::siginfo_t, _: *mut libc::c_void) {
        // SAFETY: the kernel passes a valid siginfo for SA_SIGINFO.
        let addr = unsafe { (*info).si_addr() } as usize;
        let (start, len) = (START.load(SeqCst), LEN.load(SeqCst));
        if len > 0 && addr >= start && addr < start + len {
            // SAFETY: write, tcsetattr and _exit are async-signal-safe; the
            // pointers were leaked boxes and are never freed.
            unsafe {
                if let Some(t) = RESTORE.load(SeqCst).as_ref() {
                    if let Some((fd, termios)) = &t.terminal {
                        libc::tcsetattr(*fd, libc::TCSANOW, termios);
                    }
                    libc::write(
                        libc::STDOUT_FILENO,
                        t.sequence.as_ptr().cast(),
                        t.sequence.len(),
                    );
                }
                if let Some(m) = MESSAGE.load(SeqCst).as_ref() {
                    libc::write(libc::STDERR_FILENO, m.as_ptr().cast(), m.len());
                }
                libc::_exit(2);
            }
        }
        // Not ours: the default action (the process ends with SIGBUS).
        // SAFETY: resetting the disposition and re-raising are
        // async-signal-safe.
        unsafe {
            libc::signal(signo, libc::SIG_DFL);
            libc::raise(signo);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::io::Write;

    /// Set in the child process the fault test starts.
    const CHILD: &str = "KPLACE_MAPPED_FAULT_CHILD";

    fn file_of(len: usize) -> tempfile::NamedTempFile {
        let mut f = tempfile::NamedTempFile::new().expect("temp file");
        f.write_all(&vec![b'x'; len]).expect("write");
        f.flush().expect("flush");
        f
    }

    #[test]
    fn a_large_file_is_mapped_and_reads_as_its_bytes() {
        let len = MAP_FROM as usize + 4096 + 3;
        let f = file_of(len);
        let bytes = crate::source::budget::read_limited(f.path(), u64::MAX).expect("read");
        assert!(matches!(bytes, FileBytes::Mapped(_)));
        assert_eq!(bytes.len(), len);
        assert!(bytes.iter().all(|&b| b == b'x'));
        // Given back behind a parser, the pages read again from the file.
        crate::allocator::give_back(&bytes[..MAP_FROM as usize]);
        assert!(bytes.iter().all(|&b| b == b'x'));
    }

    #[test]
    fn a_small_file_is_read() {
        let f = file_of(100);
        let bytes = crate::source::budget::read_limited(f.path(), u64::MAX).expect("read");
        assert!(matches!(bytes, FileBytes::Read(_)));
        assert_eq!(&bytes[..], &[b'x'; 100][..]);
    }

    /// The file at `path`, opened, and its length.
    fn opened(path: &std::ffi::OsStr) -> (File, usize) {
        let file = File::open(path).expect("open");
        let len = file.metadata().expect("metadata").len() as usize;
        (file, len)
    }

    fn truncate(path: &std::ffi::OsStr) {
        std::fs::OpenOptions::new()
            .write(true)
            .open(path)
            .and_then(|f| f.set_len(0))
            .expect("truncate");
    }

    /// Runs the test `name` of this binary again in a child process, with
    /// `var` naming a fresh 2 MiB file: the child does the faulting part.
    fn run_child(name: &str, var: &str) -> (std::process::Output, tempfile::NamedTempFile) {
        let f = file_of(MAP_FROM as usize * 2);
        let out = std::process::Command::new(std::env::current_exe().expect("test binary"))
            .args([
                &format!("source::mapped::tests::{name}"),
                "--exact",
                "--nocapture",
            ])
            .env(var, f.path())
            .output()
            .expect("child runs");
        (out, f)
    }

    /// A mapped file truncated under the reader: the process ends with
    /// status 2 and a message naming the file, not with SIGBUS. Run in a
    /// child process (this test binary again), since the guard exits.
    #[test]
    fn a_file_truncated_while_mapped_ends_with_a_message_naming_it() {
        if let Some(path) = std::env::var_os(CHILD) {
            let (file, len) = opened(&path);
            let mapping = Mapping::of(&file, len, &path.to_string_lossy()).expect("map");
            truncate(&path);
            // Reading past the new end faults; the guard exits with 2.
            let sum: u64 = mapping.bytes().iter().map(|&b| u64::from(b)).sum();
            println!("read {sum} without a fault");
            std::process::exit(0);
        }
        let (out, f) = run_child(
            "a_file_truncated_while_mapped_ends_with_a_message_naming_it",
            CHILD,
        );
        let stderr = String::from_utf8_lossy(&out.stderr);
        assert_eq!(out.status.code(), Some(2), "stderr: {stderr}");
        assert!(
            stderr.contains(&guard::message_for(&f.path().display().to_string())),
            "stderr: {stderr}"
        );
    }

    /// A fault outside the guarded mapping is not swallowed: with the
    /// guard's handler installed, the process still ends by SIGBUS.
    #[test]
    fn a_fault_elsewhere_keeps_its_default_action() {
        use std::os::unix::process::ExitStatusExt;
        const ELSEWHERE: &str = "KPLACE_MAPPED_FAULT_ELSEWHERE_CHILD";
        if let Some(path) = std::env::var_os(ELSEWHERE) {
            let (file, len) = opened(&path);
            let guarded = Mapping::of(&file, len, "guarded").expect("map");
            if !guard::installed() {
                println!("the guard's handler is not installed");
                std::process::exit(3);
            }
            // A second mapping the guard does not cover, made by hand.
            // SAFETY: a fresh read-only mapping, read below.
            let other = unsafe {
                libc::mmap(
                    std::ptr::null_mut(),
                    len,
                    libc::PROT_READ,
                    libc::MAP_PRIVATE,
                    std::os::fd::AsRawFd::as_raw_fd(&file),
                    0,
                )
            };
            assert_ne!(other, libc::MAP_FAILED, "second mapping");
            drop(guarded);
            truncate(&path);
            // SAFETY: reading the mapping faults, which is the point.
            let b = unsafe { std::ptr::read_volatile(other.cast::<u8>().add(len - 1)) };
            println!("read {b} without a fault");
            std::process::exit(0);
        }
        let (out, _f) = run_child("a_fault_elsewhere_keeps_its_default_action", ELSEWHERE);
        assert_eq!(
            out.status.signal(),
            Some(libc::SIGBUS),
            "status {:?}, stdout: {}, stderr: {}",
            out.status,
            String::from_utf8_lossy(&out.stdout),
            String::from_utf8_lossy(&out.stderr)
        );
    }
}
