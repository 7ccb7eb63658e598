//! How the binary's allocator (mimalloc) returns memory to the system.
//!
//! mimalloc hands freed pages back ("purges" them) 10 ms after they empty.
//! Loading a snapshot frees each parsed batch of objects while the next
//! is parsed, so with that default the same memory went back and forth:
//! on the 5,000-node, 150,000-pod synthetic cluster `place` took about
//! 300,000 page faults and 1.4–3.4 s of system time (the kernel zeroing
//! pages it had just been given back). Waiting 100 ms keeps the pages
//! through a burst of work and still returns them soon after (arenas wait
//! ten times longer): 40,000–100,000 faults, 0.4–0.95 s of system time,
//! `place` 2.2–3.4 s instead of 2.9–5.0 s, the peak 12–20 MB higher (the
//! README's performance notes). While a snapshot loads, pages are held
//! longer still ([`hold_pages`]).

/// `mi_option_purge_delay` in mimalloc v3's `mi_option_e` (the crate's
/// bindings do not name it); `purge_delay_is_the_option_the_environment_sets`
/// checks the number against the name mimalloc reads from the environment.
const PURGE_DELAY: libmimalloc_sys::mi_option_t = 15;

/// The purge delay kplace runs with, in milliseconds.
pub const PURGE_DELAY_MS: i64 = 100;

/// Sets the purge delay, unless the user set `MIMALLOC_PURGE_DELAY`, and
/// turns transparent huge pages off, unless the user set
/// `MIMALLOC_ALLOW_THP` (theirs win). Call first thing in `main` (and in
/// benches, so they measure what users get).
pub fn tune() {
    if std::env::var_os("MIMALLOC_ALLOW_THP").is_none() {
        disable_huge_pages();
    }
    if std::env::var_os("MIMALLOC_PURGE_DELAY").is_some() {
        return;
    }
    set_purge_delay(PURGE_DELAY_MS);
}

/// Turns transparent huge pages off for this process, as
/// `MIMALLOC_ALLOW_THP=0` does (mimalloc asks for them on its arenas).
///
/// Where the system leaves them to `madvise` (the common default, with
/// `defrag` also `madvise`), each huge page faulted in may first wait for
/// the kernel to compact memory: loading the 5,000-node synthetic cluster
/// spent 0.08–0.65 s in the kernel from run to run with them, a steady
/// 0.22–0.31 s without, load + convert median 0.92 s (0.70–1.40 s) against
/// 0.83 s (0.77–1.10 s), and the peak 15–25 MB lower (whole huge pages
/// are no longer resident for a few bytes of each). Placement and
/// preemption times stayed within noise (README, #15).
fn disable_huge_pages() {
    #[cfg(target_os = "linux")]
    // SAFETY: PR_SET_THP_DISABLE takes plain integer arguments and only
    // sets a flag of this process; a failure (an old kernel) changes
    // nothing.
    unsafe {
        libc::prctl(libc::PR_SET_THP_DISABLE, 1, 0, 0, 0);
    }
}

/// Whether transparent huge pages are off for this process (`None` where
/// the system cannot say).
pub fn huge_pages_disabled() -> Option<bool> {
    #[cfg(target_os = "linux")]
    {
        // SAFETY: PR_GET_THP_DISABLE reads a flag of this process.
        let flag = unsafe { libc::prctl(libc::PR_GET_THP_DISABLE, 0, 0, 0, 0) };
        (flag >= 0).then_some(flag == 1)
    }
    #[cfg(not(target_os = "linux"))]
    None
}

/// The purge delay while a snapshot loads: long enough that nothing is
/// purged before the load ends (arenas wait ten times longer still).
pub const LOADING_PURGE_DELAY_MS: i64 = 10_000;

/// Holds freed pages while a snapshot loads, then returns them at once.
///
/// Even at [`PURGE_DELAY_MS`] a load on the 5,000-node synthetic cluster
/// took 50,000–85,000 page faults: parsing frees each batch as the next is
/// built, and every purge split a huge page that the next batch faulted
/// back in, zeroing 2 MB each time. While a `HoldPages` lives the delay is
/// [`LOADING_PURGE_DELAY_MS`], so the freed pages are reused instead; when
/// it drops the delay is restored and everything freed meanwhile is purged
/// (`mi_collect`), so the memory a load freed goes back as before. (A
/// delay of -1, no purging, leaves those pages resident for good: freed
/// pages are only marked for a later purge while purging is allowed.)
#[must_use = "pages are held only while the guard lives"]
pub struct HoldPages {
    counted: bool,
}

/// How many [`HoldPages`] live, and the delay to restore when the last
/// one drops (loads may overlap: the TUI's and a replay's, say).
static HOLDERS: std::sync::Mutex<(usize, i64)> = std::sync::Mutex::new((0, 0));

/// Starts holding freed pages (unless the user set `MIMALLOC_PURGE_DELAY`).
pub fn hold_pages() -> HoldPages {
    if std::env::var_os("MIMALLOC_PURGE_DELAY").is_some() {
        return HoldPages { counted: false };
    }
    let mut holders = HOLDERS.lock().unwrap_or_else(|e| e.into_inner());
    if holders.0 == 0 {
        holders.1 = purge_delay_ms();
        set_purge_delay(LOADING_PURGE_DELAY_MS);
    }
    holders.0 += 1;
    HoldPages { counted: true }
}

impl Drop for HoldPages {
    fn drop(&mut self) {
        if !self.counted {
            return;
        }
        let mut holders = HOLDERS.lock().unwrap_or_else(|e| e.into_inner());
        holders.0 -= 1;
        if holders.0 == 0 {
            set_purge_delay(holders.1);
            // SAFETY: a collection may run at any time from any thread.
            unsafe { libmimalloc_sys::mi_collect(true) };
        }
    }
}

/// Gives the whole pages inside `bytes` back to the system at once
/// (`madvise(MADV_DONTNEED)`): loading a snapshot returns the file's bytes
/// behind the parser, so the file and the finished model are never
/// resident together. The memory stays mapped; a page touched again reads
/// as zeros (anonymous memory) or from the file again (a private file
/// mapping, [`crate::source::mapped`]). The caller must own `bytes` and
/// never rely on their contents again.
pub fn give_back(bytes: &[u8]) {
    const PAGE: usize = 4096;
    let start = (bytes.as_ptr() as usize).next_multiple_of(PAGE);
    let end = (bytes.as_ptr() as usize + bytes.len()) / PAGE * PAGE;
    if end <= start {
        return;
    }
    // SAFETY: the range lies inside `bytes`, a live allocation of
    // anonymous memory or a private read-only file mapping; DONTNEED only
    // drops its contents (zeros or the file's bytes on the next touch),
    // which the caller promises not to rely on. A failure
    // leaves the pages resident, which is harmless.
    unsafe {
        libc::madvise(start as *mut libc::c_void, end - start, libc::MADV_DONTNEED);
    }
}

fn set_purge_delay(ms: i64) {
    // SAFETY: setting an option is a plain store mimalloc reads on its
    // next purge; any value is valid for this option.
    unsafe { libmimalloc_sys::mi_option_set(PURGE_DELAY, ms as _) };
}

/// The purge delay mimalloc runs with now.
pub fn purge_delay_ms() -> i64 {
    // SAFETY: reading an option has no precondition.
    unsafe { libmimalloc_sys::mi_option_get(PURGE_DELAY) as i64 }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Runs `test` (this module's test of that name) alone in a child
    /// process with `MIMALLOC_PURGE_DELAY` set to `env` (or unset): the
    /// option is process-wide, and other tests load snapshots (holding
    /// pages) at the same time.
    fn in_child(test: &str, env: Option<&str>) {
        let vars: Vec<(&str, &str)> = env
            .map(|v| ("MIMALLOC_PURGE_DELAY", v))
            .into_iter()
            .collect();
        in_child_with(test, &vars)
    }

    /// [`in_child`] with exactly these of mimalloc's variables set.
    fn in_child_with(test: &str, vars: &[(&str, &str)]) {
        let mut child = std::process::Command::new(std::env::current_exe().unwrap());
        child
            .args([
                "--exact",
                &format!("allocator::tests::{test}"),
                "--test-threads=1",
            ])
            .env("KPLACE_ALLOCATOR_CHILD", "1")
            .env_remove("MIMALLOC_PURGE_DELAY")
            .env_remove("MIMALLOC_ALLOW_THP");
        for (name, value) in vars {
            child.env(name, value);
        }
        let out = child.output().unwrap();
        let stdout = String::from_utf8_lossy(&out.stdout);
        assert!(out.status.success(), "child failed: {stdout}");
        assert!(stdout.contains("1 passed"), "child ran no test: {stdout}");
    }

    /// Allows huge pages again (a parent may have turned them off: the
    /// flag is inherited).
    fn allow_huge_pages() {
        // SAFETY: as in `disable_huge_pages`.
        unsafe {
            libc::prctl(libc::PR_SET_THP_DISABLE, 0, 0, 0, 0);
        }
    }

    fn is_child() -> bool {
        std::env::var_os("KPLACE_ALLOCATOR_CHILD").is_some()
    }

    /// With `MIMALLOC_PURGE_DELAY` set, mimalloc reads that value into the
    /// option numbered [`PURGE_DELAY`]: the number is the purge delay, and
    /// neither `tune` nor a load changes the user's value.
    #[test]
    fn purge_delay_is_the_option_the_environment_sets() {
        if !is_child() {
            return in_child(
                "purge_delay_is_the_option_the_environment_sets",
                Some("4321"),
            );
        }
        tune();
        assert_eq!(purge_delay_ms(), 4321);
        let held = hold_pages();
        assert_eq!(purge_delay_ms(), 4321);
        drop(held);
        assert_eq!(purge_delay_ms(), 4321);
    }

    /// `tune` turns huge pages off unless the user allowed them.
    #[test]
    fn tune_turns_huge_pages_off() {
        if !is_child() {
            return in_child("tune_turns_huge_pages_off", None);
        }
        allow_huge_pages();
        assert_eq!(huge_pages_disabled(), Some(false), "on before tune");
        tune();
        assert_eq!(huge_pages_disabled(), Some(true));
    }

    /// `MIMALLOC_ALLOW_THP` set: `tune` leaves huge pages as they are.
    #[test]
    fn tune_leaves_huge_pages_to_mimalloc_allow_thp() {
        if !is_child() {
            return in_child_with(
                "tune_leaves_huge_pages_to_mimalloc_allow_thp",
                &[("MIMALLOC_ALLOW_THP", "1")],
            );
        }
        allow_huge_pages();
        tune();
        assert_eq!(huge_pages_disabled(), Some(false));
    }

    /// `tune` sets kplace's delay; a load lengthens it while pages are
    /// held (overlapping holds end with the last) and restores it after.
    #[test]
    fn a_load_holds_pages_and_restores_the_delay() {
        if !is_child() {
            return in_child("a_load_holds_pages_and_restores_the_delay", None);
        }
        tune();
        assert_eq!(purge_delay_ms(), PURGE_DELAY_MS);
        let first = hold_pages();
        assert_eq!(purge_delay_ms(), LOADING_PURGE_DELAY_MS);
        let second = hold_pages();
        drop(first);
        assert_eq!(purge_delay_ms(), LOADING_PURGE_DELAY_MS, "one still holds");
        drop(second);
        assert_eq!(purge_delay_ms(), PURGE_DELAY_MS);
        // Loading a snapshot holds pages and gives the delay back.
        let cluster = crate::app::demo::load_demo().expect("the demo loads");
        assert!(!cluster.nodes.is_empty());
        assert_eq!(purge_delay_ms(), PURGE_DELAY_MS);
    }

    /// Given-back pages are dropped at once (they read as zeros after),
    /// only whole pages inside the slice, never a byte outside it.
    #[test]
    fn give_back_drops_the_whole_pages_inside_the_slice_only() {
        let page = 4096;
        let mut buf = vec![7u8; 16 * page];
        let (from, to) = (page + page / 2, 10 * page + page / 2);
        let base = buf.as_ptr() as usize;
        give_back(&buf[from..to]);
        // The whole pages inside [from, to), wherever the buffer starts.
        let first = (base + from).next_multiple_of(page) - base;
        let last = (base + to) / page * page - base;
        assert!(last - first >= 8 * page);
        for (i, &b) in buf.iter().enumerate() {
            let expected = if (first..last).contains(&i) { 0 } else { 7 };
            assert_eq!(b, expected, "byte {i} (pages given back: {first}..{last})");
        }
        // The memory stays usable.
        buf[first] = 1;
        assert_eq!(buf[first], 1);
    }
}
