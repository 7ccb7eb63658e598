//! A pass over the nodes shared by both cores, as upstream runs Filter
//! and Score over its nodes in parallel. The pass is cut into consecutive
//! parts that the caller and one helper thread take in turn; the parts'
//! results are joined in node order, so answers do not change.
//!
//! A pass over 5,000 nodes takes a few hundred microseconds: waking a
//! sleeping pool thread costs about as much, so a general thread pool
//! (rayon, measured) made placements slower. The helper instead spins for
//! a moment after each pass it helps with, so back-to-back passes (a
//! placement's Filter then Score, a disruption's thousands of placements)
//! find it awake; and a caller that runs out of parts before the helper
//! has started takes the job back, so a sleeping helper never makes a
//! pass slower than running it alone.

use std::cell::Cell;
use std::mem::MaybeUninit;
use std::ops::Range;
use std::panic::{AssertUnwindSafe, catch_unwind, resume_unwind};
use std::sync::atomic::{AtomicBool, AtomicPtr, AtomicU32, AtomicUsize, Ordering::SeqCst};
use std::sync::{Mutex, OnceLock};
use std::thread::Thread;
use std::time::{Duration, Instant};

/// Below this many nodes a pass stays on one thread: handing half to
/// another costs more than it saves.
pub const MIN_NODES: usize = 512;

/// A split pass is cut into this many parts, taken in turn by the caller
/// and the helper, so that neither waits long for the other when one
/// range of nodes costs more than another.
const PARTS: usize = 8;

/// How long the helper stays awake after its last part.
const SPIN: Duration = Duration::from_micros(300);

/// `work` over `0..n` in consecutive ranges, run by the caller and the
/// helper thread when `n` is large enough, the machine has a second core
/// and the helper is free: the ranges' results in order. A pass kept
/// whole gives one result, `work(0..n)`.
pub fn in_parts<T: Send>(n: usize, work: impl Fn(Range<usize>) -> T + Sync) -> Vec<T> {
    in_parts_from(MIN_NODES, n, work)
}

/// [`in_parts`] for items that each cost far more than a node's filter (a
/// preemption dry run per node): split from `min` items on. Unlike a
/// general pool, a helper that is already awake costs no wake-up and
/// leaves the loading pool's threads asleep.
pub fn in_parts_from<T: Send>(
    min: usize,
    n: usize,
    work: impl Fn(Range<usize>) -> T + Sync,
) -> Vec<T> {
    in_parts_beside(min, n, work, || ()).0
}

/// [`in_parts_from`], with the caller first running `beside`, a serial
/// job that needs none of the pass's results (what the next step can
/// work out early), while the helper takes the pass's first parts; the
/// caller then takes parts too. A pass kept whole runs `beside` first,
/// then `work(0..n)`.
pub fn in_parts_beside<T: Send, S>(
    min: usize,
    n: usize,
    work: impl Fn(Range<usize>) -> T + Sync,
    beside: impl FnOnce() -> S,
) -> (Vec<T>, S) {
    let Some(helper) = helper_for_at_least(min.max(PARTS), n) else {
        let side = beside();
        return (vec![work(0..n)], side);
    };
    let size = n.div_ceil(PARTS);
    let slots: Vec<Mutex<Option<T>>> = (0..PARTS).map(|_| Mutex::new(None)).collect();
    let next = AtomicUsize::new(0);
    let run = || {
        loop {
            let part = next.fetch_add(1, SeqCst);
            if part >= PARTS {
                break;
            }
            let range = (part * size).min(n)..((part + 1) * size).min(n);
            let out = work(range);
            *slots[part].lock().unwrap_or_else(|e| e.into_inner()) = Some(out);
        }
    };
    let Some(posted) = helper.post(&run) else {
        let side = beside();
        return (vec![work(0..n)], side);
    };
    // (A panic here drops `posted`, which waits for the helper first.)
    let side = beside();
    run();
    posted.finish();
    SPLIT.with(|c| c.set(c.get() + 1));
    let parts = slots
        .into_iter()
        .map(|slot| {
            slot.into_inner()
                .unwrap_or_else(|e| e.into_inner())
                .expect("every part ran")
        })
        .collect();
    (parts, side)
}

/// `work(offset, part)` over consecutive parts of `out`, run by the caller
/// and the helper as [`in_parts`] does: for results of a known count,
/// written in place.
pub fn fill<T: Send>(out: &mut [T], work: impl Fn(usize, &mut [T]) + Sync) {
    fill_map(out, work);
}

/// [`fill`], giving what `work` returns for each part, in order (one
/// result when the pass is kept whole): what each part found along the
/// way, such as its largest value.
pub fn fill_map<T: Send, R: Send>(
    out: &mut [T],
    work: impl Fn(usize, &mut [T]) -> R + Sync,
) -> Vec<R> {
    let n = out.len();
    let Some(helper) = helper_for(n) else {
        return vec![work(0, out)];
    };
    let size = n.div_ceil(PARTS);
    let slots: Vec<Mutex<Option<Part<T>>>> = out
        .chunks_mut(size)
        .enumerate()
        .map(|(i, part)| Mutex::new(Some((i * size, part))))
        .collect();
    let results: Vec<Mutex<Option<R>>> = slots.iter().map(|_| Mutex::new(None)).collect();
    let next = AtomicUsize::new(0);
    let run = || {
        loop {
            let part = next.fetch_add(1, SeqCst);
            let Some(slot) = slots.get(part) else {
                break;
            };
            let taken = slot.lock().unwrap_or_else(|e| e.into_inner()).take();
            if let Some((offset, rows)) = taken {
                let result = work(offset, rows);
                *results[part].lock().unwrap_or_else(|e| e.into_inner()) = Some(result);
            }
        }
    };
    let Some(posted) = helper.post(&run) else {
        drop(slots);
        return vec![work(0, out)];
    };
    run();
    posted.finish();
    SPLIT.with(|c| c.set(c.get() + 1));
    results
        .into_iter()
        .map(|r| {
            r.into_inner()
                .unwrap_or_else(|e| e.into_inner())
                .expect("every part ran")
        })
        .collect()
}

/// A new vector of `n` elements, element `i` made by `make(i)`, then
/// [`fill_map`]'s `work` over its parts: each part is made by the thread
/// that works on it, so a pass over rows written once (a placement's
/// score rows) does not first write them all on the caller's thread.
pub fn build<T: Send, R: Send>(
    n: usize,
    make: impl Fn(usize) -> T + Sync,
    work: impl Fn(usize, &mut [T]) -> R + Sync,
) -> (Vec<T>, Vec<R>) {
    let mut out: Vec<T> = Vec::with_capacity(n);
    let results = fill_map(
        &mut out.spare_capacity_mut()[..n],
        |offset, part: &mut [MaybeUninit<T>]| {
            for (i, slot) in (offset..).zip(part.iter_mut()) {
                slot.write(make(i));
            }
            // SAFETY: every element of `part` was written just above, and
            // `MaybeUninit<T>` has `T`'s layout.
            #[allow(unsafe_code)]
            let part = unsafe { &mut *(std::ptr::from_mut(part) as *mut [T]) };
            work(offset, part)
        },
    );
    // SAFETY: `fill_map` returns only once every part has run (a panic in
    // any part unwinds before this line, leaving `out` empty), and each
    // part wrote all of its elements.
    #[allow(unsafe_code)]
    unsafe {
        out.set_len(n)
    };
    (out, results)
}

/// A part of the output with its offset, until a thread takes it.
type Part<'a, T> = (usize, &'a mut [T]);

/// The helper, when a pass of `n` nodes should split.
fn helper_for(n: usize) -> Option<&'static Helper> {
    helper_for_at_least(MIN_NODES, n)
}

/// The helper, when a pass of `n` items of which `min` are worth splitting
/// should split.
fn helper_for_at_least(min: usize, n: usize) -> Option<&'static Helper> {
    if n < min || SERIAL.with(Cell::get) {
        return None;
    }
    helper()
}

thread_local! {
    /// [`serial`] is running on this thread.
    static SERIAL: Cell<bool> = const { Cell::new(false) };
    /// Passes this thread shared with the helper.
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
        let mut spins = 0u32;
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
            // Reading the clock costs more than a spin: read it seldom.
            spins = spins.wrapping_add(1);
            if !spins.is_multiple_of(1024) || awake_since.elapsed() < SPIN {
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
    /// Returns once the job has run: taken back and run here if the
    /// helper has not begun it, else after the helper is done (its panic,
    /// if any, resumed here).
    fn finish(mut self) {
        let (taken_back, panicked) = self.settle();
        if taken_back {
            (self.job)();
        } else if panicked {
            resume_unwind(Box::new(
                "a part of a split pass panicked on the helper thread",
            ));
        }
    }

    /// Takes the job back if the helper has not begun it (`true`), else
    /// waits for the helper to finish it; then frees the helper. Also
    /// gives whether the job panicked on the helper.
    fn settle(&mut self) -> (bool, bool) {
        self.finished = true;
        let helper = self.helper;
        let taken_back = helper
            .state
            .compare_exchange(POSTED, CLAIMED, SeqCst, SeqCst)
            .is_ok();
        if !taken_back {
            let mut spins = 0u32;
            while helper.state.load(SeqCst) != DONE {
                // A helper the OS has put aside needs a core: after a
                // short spin, give this one up between checks.
                spins = spins.saturating_add(1);
                if spins < 4_096 {
                    std::hint::spin_loop();
                } else {
                    std::thread::yield_now();
                }
            }
        }
        let slot = helper.job.swap(std::ptr::null_mut(), SeqCst);
        // SAFETY: `post` made the slot with `Box::into_raw`; the helper
        // no longer reads it.
        #[allow(unsafe_code)]
        drop(unsafe { Box::from_raw(slot) });
        let panicked = helper.panicked.load(SeqCst);
        helper.state.store(FREE, SeqCst);
        (taken_back, panicked)
    }
}

impl Drop for Posted<'_> {
    /// On a panic in the caller's parts, the helper must be done with the
    /// job before the caller's frame goes.
    fn drop(&mut self) {
        if !self.finished {
            self.settle();
        }
    }
}

/// Asks the CPU to start loading the first `max_bytes` of `items` into
/// its cache, for a pass that walks many small allocations in turn (one
/// node's pods, then the next node's) and would otherwise wait on memory
/// at the start of each. A hint only: it reads nothing and cannot fault,
/// whatever the slice; a no-op off x86-64.
#[inline]
pub fn prefetch<T>(items: &[T], max_bytes: usize) {
    #[cfg(target_arch = "x86_64")]
    {
        use std::arch::x86_64::{_MM_HINT_T0, _mm_prefetch};
        const LINE: usize = 64;
        let start = items.as_ptr().cast::<i8>();
        let bytes = std::mem::size_of_val(items).min(max_bytes);
        for offset in (0..bytes).step_by(LINE) {
            // SAFETY: a prefetch is a hint that never faults and neither
            // reads nor writes memory as the program sees it; SSE, which
            // it needs, is part of every x86-64 CPU.
            #[allow(unsafe_code)]
            unsafe {
                _mm_prefetch::<_MM_HINT_T0>(start.wrapping_add(offset));
            }
        }
    }
    #[cfg(not(target_arch = "x86_64"))]
    let _ = (items, max_bytes);
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn parts_cover_the_range_in_order() {
        for n in [0, 1, MIN_NODES - 1, MIN_NODES, 517, 5_001] {
            let parts = in_parts(n, |r| r.collect::<Vec<_>>());
            let joined: Vec<usize> = parts.into_iter().flatten().collect();
            assert_eq!(joined, (0..n).collect::<Vec<_>>());
        }
    }

    #[test]
    fn a_lower_minimum_splits_small_passes_and_still_covers_them_in_order() {
        for n in [0, 1, PARTS - 1, PARTS, 9, 40, 517] {
            let parts = in_parts_from(1, n, |r| r.collect::<Vec<_>>());
            if n < PARTS {
                assert_eq!(parts.len(), 1, "{n} items stay whole");
            }
            let joined: Vec<usize> = parts.into_iter().flatten().collect();
            assert_eq!(joined, (0..n).collect::<Vec<_>>());
        }
    }

    #[test]
    fn the_job_beside_runs_once_and_the_parts_still_cover_the_range() {
        for n in [0, 1, MIN_NODES - 1, MIN_NODES, 517, 5_001] {
            let ran = Cell::new(0);
            let (parts, side) = in_parts_beside(
                MIN_NODES,
                n,
                |r| r.collect::<Vec<_>>(),
                || {
                    ran.set(ran.get() + 1);
                    n * 2
                },
            );
            assert_eq!((ran.get(), side), (1, n * 2));
            let joined: Vec<usize> = parts.into_iter().flatten().collect();
            assert_eq!(joined, (0..n).collect::<Vec<_>>());
        }
    }

    #[test]
    fn a_panic_beside_the_parts_reaches_the_caller_after_the_helper_is_done() {
        let caught = catch_unwind(|| in_parts_beside(1, 5_000, |r| r.len(), || panic!("beside")));
        assert!(caught.is_err());
        // The helper is free again: the next pass covers its range.
        let parts = in_parts(5_000, |r| r.len());
        assert_eq!(parts.iter().sum::<usize>(), 5_000);
    }

    #[test]
    fn fill_writes_every_element_once_at_its_offset() {
        for n in [0, 1, MIN_NODES - 1, MIN_NODES, 517, 5_001] {
            let mut out = vec![usize::MAX; n];
            fill(&mut out, |offset, part| {
                for (i, v) in part.iter_mut().enumerate() {
                    assert_eq!(*v, usize::MAX, "written twice");
                    *v = offset + i;
                }
            });
            assert_eq!(out, (0..n).collect::<Vec<_>>());
        }
    }

    #[test]
    fn serial_keeps_passes_whole_and_restores() {
        let before = passes_split();
        let parts = serial(|| in_parts(2_000, |r| r.len()));
        assert_eq!(parts, [2_000]);
        assert_eq!(passes_split(), before);
        // Outside `serial` a pass splits in parts, or (the helper busy
        // with another test) stays whole.
        let parts = in_parts(2_000, |r| r.len());
        assert!(parts.len() == PARTS || parts == [2_000], "{parts:?}");
        assert_eq!(parts.iter().sum::<usize>(), 2_000);
    }

    #[test]
    fn concurrent_callers_all_get_their_answers() {
        std::thread::scope(|s| {
            for t in 0..4usize {
                s.spawn(move || {
                    for round in 0..200usize {
                        let n = 1_000 + t + round;
                        let parts = in_parts(n, |r| r.map(|i| i * t).sum::<usize>());
                        assert_eq!(parts.iter().sum::<usize>(), t * n * (n - 1) / 2);
                        let mut out = vec![0; n];
                        fill(&mut out, |offset, part| {
                            for (i, v) in part.iter_mut().enumerate() {
                                *v = (offset + i) * t;
                            }
                        });
                        assert!(out.iter().enumerate().all(|(i, v)| *v == i * t));
                    }
                });
            }
        });
    }

    #[test]
    fn a_panic_in_any_part_reaches_the_caller() {
        for bad in [0usize, 500, 999] {
            let caught = catch_unwind(|| {
                in_parts(1_000, |r| {
                    if r.contains(&bad) {
                        panic!("part with {bad}");
                    }
                    r.len()
                })
            });
            assert!(caught.is_err());
            // Afterwards passes run and cover their range again.
            let parts = in_parts(1_000, |r| r.len());
            assert_eq!(parts.iter().sum::<usize>(), 1_000);
        }
    }

    #[test]
    fn build_makes_every_element_and_gives_each_parts_result_in_order() {
        for n in [0, 1, MIN_NODES - 1, MIN_NODES, 517, 5_001] {
            // Heap-owning elements, so a double write or a missed one
            // would show (and a leak or double free would under Miri).
            let (out, sums) = build(
                n,
                |i| vec![i],
                |offset, part| {
                    for (i, v) in (offset..).zip(part.iter_mut()) {
                        assert_eq!(*v, [i], "made at its index");
                        v.push(i * 2);
                    }
                    (offset, part.iter().map(|v| v[1]).sum::<usize>())
                },
            );
            assert_eq!(out, (0..n).map(|i| vec![i, i * 2]).collect::<Vec<_>>());
            let offsets: Vec<usize> = sums.iter().map(|r| r.0).collect();
            let mut sorted = offsets.clone();
            sorted.sort_unstable();
            assert_eq!(offsets, sorted, "results in part order");
            assert_eq!(
                sums.iter().map(|r| r.1).sum::<usize>(),
                n * n.saturating_sub(1)
            );
        }
    }

    #[test]
    fn a_panic_while_building_reaches_the_caller() {
        for bad in [0usize, 700, 1_999] {
            let caught = catch_unwind(|| {
                build(
                    2_000,
                    |i| {
                        assert_ne!(i, bad, "element {bad}");
                        Box::new(i)
                    },
                    |_, part| part.len(),
                )
            });
            assert!(caught.is_err());
            let (out, lens) = build(2_000, |i| i, |_, part| part.len());
            assert_eq!(out.len(), 2_000);
            assert_eq!(lens.iter().sum::<usize>(), 2_000);
        }
    }
}
