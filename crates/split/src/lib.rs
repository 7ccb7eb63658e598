//! A pass over the nodes split in two halves run on both cores, as
//! upstream runs Filter and Score over its nodes in parallel. The halves'
//! results are joined in node order, so answers do not change.
//!
//! A pass over 5,000 nodes takes a few hundred microseconds: waking a
//! sleeping pool thread costs about as much, so a general thread pool
//! (rayon, measured) made placements slower. One helper thread instead
//! spins for a moment after each half it runs, so back-to-back passes (a
//! placement's Filter then Score, a disruption's thousands of placements)
//! find it awake; and a caller that finishes its half before the helper
//! has started takes the other half back, so a sleeping helper never
//! makes a pass slower than running it alone.

use std::cell::Cell;
use std::ops::Range;
use std::panic::{AssertUnwindSafe, catch_unwind, resume_unwind};
use std::sync::atomic::{AtomicBool, AtomicPtr, AtomicU32, Ordering::SeqCst};
use std::sync::{Mutex, OnceLock};
use std::thread::Thread;
use std::time::{Duration, Instant};

/// Below this many nodes a pass stays on one thread: handing half to
/// another costs more than it saves.
pub const MIN_NODES: usize = 512;

/// How long the helper stays awake after its last half.
const SPIN: Duration = Duration::from_micros(300);

/// `work` over `0..n` in two halves, the second on the helper thread when
/// `n` is large enough, the machine has a second core and the helper is
/// free: `(first half, second half)`. Serial runs give `(work(0..n),
/// work(n..n))`.
pub fn in_two<T: Send>(n: usize, work: impl Fn(Range<usize>) -> T + Sync) -> (T, T) {
    let serial = n < MIN_NODES || SERIAL.with(Cell::get);
    let Some(helper) = helper().filter(|_| !serial) else {
        return (work(0..n), work(n..n));
    };
    let mid = n / 2;
    let second: Mutex<Option<T>> = Mutex::new(None);
    let job = || {
        let out = work(mid..n);
        *second.lock().unwrap_or_else(|e| e.into_inner()) = Some(out);
    };
    let Some(posted) = helper.post(&job) else {
        return (work(0..n), work(n..n));
    };
    let first = work(0..mid);
    posted.finish();
    SPLIT.with(|c| c.set(c.get() + 1));
    let second = second
        .into_inner()
        .unwrap_or_else(|e| e.into_inner())
        .expect("the second half ran");
    (first, second)
}

thread_local! {
    /// [`serial`] is running on this thread.
    static SERIAL: Cell<bool> = const { Cell::new(false) };
    /// Passes this thread handed half of to the helper.
    static SPLIT: Cell<u64> = const { Cell::new(0) };
}

/// Runs `work` with every pass on this thread kept whole: the reference
/// the split passes are checked against.
pub fn serial<R>(work: impl FnOnce() -> R) -> R {
    struct Restore(bool);
    impl Drop for Restore {
        fn drop(&mut self) {
            SERIAL.with(|s| s.set(self.0));
        }
    }
    let _restore = Restore(SERIAL.with(|s| s.replace(true)));
    work()
}

/// How many passes this thread has split with the helper so far.
pub fn passes_split() -> u64 {
    SPLIT.with(Cell::get)
}

/// The helper's slot: free, claimed by a caller, a job posted, running on
/// the helper, or done.
const FREE: u32 = 0;
const CLAIMED: u32 = 1;
const POSTED: u32 = 2;
const RUNNING: u32 = 3;
const DONE: u32 = 4;

/// A job as the helper holds it: a caller's closure whose lifetime the
/// caller guarantees (it does not return before the job is done or taken
/// back).
type Job = *const (dyn Fn() + Sync + 'static);

struct Helper {
    state: AtomicU32,
    /// Points at the caller's `Job` (a thin pointer to the fat one).
    job: AtomicPtr<Job>,
    /// The job panicked on the helper.
    panicked: AtomicBool,
    /// The helper is parked (or about to be).
    parked: AtomicBool,
    thread: Thread,
}

/// The helper, started on first use; `None` on a single core.
fn helper() -> Option<&'static Helper> {
    static HELPER: OnceLock<Option<&'static Helper>> = OnceLock::new();
    *HELPER.get_or_init(|| {
        let cores = std::thread::available_parallelism().map_or(1, |n| n.get());
        if cores < 2 {
            return None;
        }
        let (tx, rx) = std::sync::mpsc::channel::<&'static Helper>();
        let spawned = std::thread::Builder::new()
            .name("kplace-split".into())
            .spawn(move || {
                let helper: &'static Helper = Box::leak(Box::new(Helper {
                    state: AtomicU32::new(FREE),
                    job: AtomicPtr::new(std::ptr::null_mut()),
                    panicked: AtomicBool::new(false),
                    parked: AtomicBool::new(false),
                    thread: std::thread::current(),
                }));
                let _ = tx.send(helper);
                helper.serve();
            });
        spawned.ok().and_then(|_| rx.recv().ok())
    })
}

/// A posted job: [`Posted::finish`] (or dropping it, on a panic) returns
/// only once the job has run.
struct Posted<'h> {
    helper: &'h Helper,
    /// The job, for the caller to run itself if the helper has not begun.
    job: &'h (dyn Fn() + Sync),
    finished: bool,
}

impl Helper {
    /// Posts `job` unless another caller holds the helper.
    fn post<'h>(&'h self, job: &'h (dyn Fn() + Sync)) -> Option<Posted<'h>> {
        self.state
            .compare_exchange(FREE, CLAIMED, SeqCst, SeqCst)
            .ok()?;
        // SAFETY: only the lifetime is erased; `Posted` does not let the
        // caller return before the helper is done with the job.
        #[allow(unsafe_code)]
        let erased: Job =
            unsafe { std::mem::transmute::<*const (dyn Fn() + Sync + 'h), Job>(job as *const _) };
        let slot = Box::into_raw(Box::new(erased));
        self.job.store(slot, SeqCst);
        self.panicked.store(false, SeqCst);
        self.state.store(POSTED, SeqCst);
        if self.parked.load(SeqCst) {
            self.thread.unpark();
        }
        Some(Posted {
            helper: self,
            job,
            finished: false,
        })
    }

    /// The helper's loop: run posted jobs, spin a moment, then park.
    fn serve(&self) {
        let mut awake_since = Instant::now();
        loop {
            if self.state.load(SeqCst) == POSTED
                && self
                    .state
                    .compare_exchange(POSTED, RUNNING, SeqCst, SeqCst)
                    .is_ok()
            {
                let slot = self.job.load(SeqCst);
                // SAFETY: the caller keeps the job alive until DONE.
                #[allow(unsafe_code)]
                let job: &(dyn Fn() + Sync) = unsafe { &**slot };
                if catch_unwind(AssertUnwindSafe(job)).is_err() {
                    self.panicked.store(true, SeqCst);
                }
                self.state.store(DONE, SeqCst);
                awake_since = Instant::now();
                continue;
            }
            if awake_since.elapsed() < SPIN {
                std::hint::spin_loop();
                continue;
            }
            self.parked.store(true, SeqCst);
            if self.state.load(SeqCst) != POSTED {
                std::thread::park();
            }
            self.parked.store(false, SeqCst);
            awake_since = Instant::now();
        }
    }
}

impl Posted<'_> {
    fn finish(mut self) {
        self.wait();
    }

    /// Takes the job back if the helper has not begun it, else waits for
    /// it; then frees the helper.
    fn wait(&mut self) {
        if self.finished {
            return;
        }
        self.finished = true;
        let helper = self.helper;
        let taken_back = helper
            .state
            .compare_exchange(POSTED, CLAIMED, SeqCst, SeqCst)
            .is_ok();
        if !taken_back {
            while helper.state.load(SeqCst) != DONE {
                std::hint::spin_loop();
            }
        }
        let slot = helper.job.swap(std::ptr::null_mut(), SeqCst);
        // SAFETY: `post` made the slot with `Box::into_raw`; the helper
        // no longer reads it.
        #[allow(unsafe_code)]
        drop(unsafe { Box::from_raw(slot) });
        let panicked = helper.panicked.load(SeqCst);
        helper.state.store(FREE, SeqCst);
        if taken_back {
            (self.job)();
        } else if panicked {
            resume_unwind(Box::new(
                "a half of a split pass panicked on the helper thread",
            ));
        }
    }
}

impl Drop for Posted<'_> {
    /// On a panic in the caller's half, the helper must be done with the
    /// job before the caller's frame goes.
    fn drop(&mut self) {
        if !self.finished {
            self.finished = true;
            let helper = self.helper;
            if helper
                .state
                .compare_exchange(POSTED, CLAIMED, SeqCst, SeqCst)
                .is_err()
            {
                while helper.state.load(SeqCst) != DONE {
                    std::hint::spin_loop();
                }
            }
            let slot = helper.job.swap(std::ptr::null_mut(), SeqCst);
            // SAFETY: as in `wait`.
            #[allow(unsafe_code)]
            drop(unsafe { Box::from_raw(slot) });
            helper.state.store(FREE, SeqCst);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn halves_cover_the_range_in_order() {
        for n in [0, 1, MIN_NODES - 1, MIN_NODES, 5_001] {
            let (a, b) = in_two(n, |r| r.collect::<Vec<_>>());
            let joined: Vec<usize> = a.into_iter().chain(b).collect();
            assert_eq!(joined, (0..n).collect::<Vec<_>>());
        }
    }

    #[test]
    fn serial_keeps_passes_whole_and_restores() {
        let before = passes_split();
        let (a, b) = serial(|| in_two(2_000, |r| r.len()));
        assert_eq!((a, b), (2_000, 0));
        assert_eq!(passes_split(), before);
        // Outside `serial` a pass splits in the middle, or (the helper
        // busy with another test) stays whole.
        let split = in_two(2_000, |r| r.len());
        assert!(split == (1_000, 1_000) || split == (2_000, 0), "{split:?}");
    }

    #[test]
    fn concurrent_callers_all_get_their_answers() {
        std::thread::scope(|s| {
            for t in 0..4usize {
                s.spawn(move || {
                    for round in 0..200usize {
                        let (a, b) = in_two(1_000 + t + round, |r| r.map(|i| i * t).sum::<usize>());
                        let n = 1_000 + t + round;
                        assert_eq!(a + b, t * n * (n - 1) / 2);
                    }
                });
            }
        });
    }

    #[test]
    fn a_panic_in_either_half_reaches_the_caller() {
        for bad in [0usize, 900] {
            let caught = catch_unwind(|| {
                in_two(1_000, |r| {
                    if r.contains(&bad) {
                        panic!("half with {bad}");
                    }
                    r.len()
                })
            });
            assert!(caught.is_err());
            // Afterwards passes run and cover their range again.
            let (a, b) = in_two(1_000, |r| r.len());
            assert_eq!(a + b, 1_000);
        }
    }
}
