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
//! README's performance notes).

/// `mi_option_purge_delay` in mimalloc v3's `mi_option_e` (the crate's
/// bindings do not name it); `purge_delay_is_the_option_the_environment_sets`
/// checks the number against the name mimalloc reads from the environment.
const PURGE_DELAY: libmimalloc_sys::mi_option_t = 15;

/// The purge delay kplace runs with, in milliseconds.
pub const PURGE_DELAY_MS: i64 = 100;

/// Sets the purge delay, unless the user set `MIMALLOC_PURGE_DELAY`
/// (theirs wins). Call first thing in `main` (and in benches, so they
/// measure what users get).
pub fn tune() {
    if std::env::var_os("MIMALLOC_PURGE_DELAY").is_some() {
        return;
    }
    // SAFETY: setting an option is a plain store mimalloc reads on its
    // next purge; any value is valid for this option.
    unsafe { libmimalloc_sys::mi_option_set(PURGE_DELAY, PURGE_DELAY_MS as _) };
}

/// The purge delay mimalloc runs with now.
pub fn purge_delay_ms() -> i64 {
    // SAFETY: reading an option has no precondition.
    unsafe { libmimalloc_sys::mi_option_get(PURGE_DELAY) as i64 }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// In a child process with `MIMALLOC_PURGE_DELAY` set, mimalloc reads
    /// that value into the option numbered [`PURGE_DELAY`]: the number is
    /// the purge delay, and `tune` leaves the user's value alone.
    #[test]
    fn purge_delay_is_the_option_the_environment_sets() {
        if std::env::var_os("KPLACE_ALLOCATOR_CHILD").is_some() {
            tune();
            assert_eq!(purge_delay_ms(), 4321);
            return;
        }
        let status = std::process::Command::new(std::env::current_exe().unwrap())
            .args([
                "--exact",
                "allocator::tests::purge_delay_is_the_option_the_environment_sets",
                "--test-threads=1",
            ])
            .env("KPLACE_ALLOCATOR_CHILD", "1")
            .env("MIMALLOC_PURGE_DELAY", "4321")
            .output()
            .unwrap();
        let stdout = String::from_utf8_lossy(&status.stdout);
        assert!(status.status.success(), "child failed: {stdout}");
        assert!(stdout.contains("1 passed"), "child ran no test: {stdout}");
    }

    #[test]
    fn tune_sets_the_delay_unless_the_user_did() {
        tune();
        let expected = std::env::var("MIMALLOC_PURGE_DELAY")
            .map_or(PURGE_DELAY_MS, |v| v.parse().expect("a number"));
        assert_eq!(purge_delay_ms(), expected);
    }
}
