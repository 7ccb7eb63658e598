//! Background work, one way: every worker thread of the TUI is a [`Job`].
//!
//! - **Latest request wins**: a request queued behind a newer one is
//!   dropped, and the work under way is told to stop ([`Ctx::cancelled`]).
//! - **Progress and results** come back as events, in order.
//! - **A thread that cannot start** is an error the view shows
//!   ([`Job::failure`]), never a "computing…" that lasts forever.
//! - **The UI is woken** when an event is sent, through one channel for all
//!   jobs ([`set_waker`]), so results are drawn as they arrive without the
//!   event loop polling for them.

use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::mpsc::{self, Receiver, Sender};
use std::sync::{Arc, OnceLock};

/// What wakes the event loop: set once by the terminal edge (`tui`); tests
/// drive the app without one and look for results themselves.
static WAKER: OnceLock<Box<dyn Fn() + Send + Sync>> = OnceLock::new();

/// Installs the function every job calls after sending an event (the first
/// call wins: there is one event loop per process).
pub fn set_waker(wake: impl Fn() + Send + Sync + 'static) {
    let _ = WAKER.set(Box::new(wake));
}

/// Wakes the event loop: for producers that are not a [`Job`] (a load's
/// progress, live watch events), called after they change what is drawn.
pub fn wake() {
    if let Some(w) = WAKER.get() {
        w();
    }
}

/// Drops `value` on a thread of its own: freeing a large cluster takes tens
/// of milliseconds the UI thread should not wait. Nothing waits for the
/// result, so a thread that cannot start just drops it here instead.
pub fn drop_in_background<T: Send + 'static>(value: T) {
    let spawned = std::thread::Builder::new()
        .name("kplace-free".into())
        .spawn(move || drop(value));
    // On failure the closure, and the value with it, was dropped already.
    drop(spawned);
}

/// What a job's work sees: where to send events and whether to stop.
pub struct Ctx<E> {
    events: Sender<E>,
    cancel: Arc<AtomicBool>,
}

impl<E> Ctx<E> {
    /// Sends an event and wakes the UI; `false` once nobody listens (the
    /// job's owner is gone), when the work should end.
    pub fn send(&self, event: E) -> bool {
        let sent = self.events.send(event).is_ok();
        wake();
        sent
    }

    /// Whether a newer request (or the owner) asked this work to stop.
    pub fn cancelled(&self) -> bool {
        self.cancel.load(Ordering::Relaxed)
    }

    /// The flag itself, for engine calls that take one.
    pub fn cancel_flag(&self) -> &AtomicBool {
        &self.cancel
    }
}

/// Sets its flag when dropped: on return and on unwinding alike.
struct SetOnDrop(Arc<AtomicBool>);

impl Drop for SetOnDrop {
    fn drop(&mut self) {
        self.0.store(true, Ordering::Relaxed);
    }
}

/// A worker thread answering requests, latest first.
pub struct Job<R, E> {
    requests: Option<Sender<R>>,
    events: Receiver<E>,
    cancel: Arc<AtomicBool>,
    /// Set by the thread when its work returned (not when it panicked).
    finished: Arc<AtomicBool>,
    /// Set when the thread ends, however it ends.
    exited: Arc<AtomicBool>,
    failure: Option<String>,
    name: &'static str,
}

impl<R: Send + 'static, E: Send + 'static> Job<R, E> {
    /// Starts a thread running `work` for each request; of requests queued
    /// while it worked, only the newest is run.
    pub fn spawn(name: &'static str, work: impl FnMut(R, &Ctx<E>) + Send + 'static) -> Self {
        Job::spawn_by_kind(name, |_| 0, work)
    }

    /// Like [`Job::spawn`], with the latest request of each kind kept
    /// (`kind` numbers them from 0): a newer placement does not drop the
    /// disruption plan queued before it. Queued requests run in kind order.
    pub fn spawn_by_kind(
        name: &'static str,
        kind: fn(&R) -> usize,
        mut work: impl FnMut(R, &Ctx<E>) + Send + 'static,
    ) -> Self {
        let (requests, request_rx) = mpsc::channel::<R>();
        let (events_tx, events) = mpsc::channel();
        let cancel = Arc::new(AtomicBool::new(false));
        let ctx = Ctx {
            events: events_tx,
            cancel: cancel.clone(),
        };
        let finished = Arc::new(AtomicBool::new(false));
        let done = finished.clone();
        let exited = Arc::new(AtomicBool::new(false));
        let gone = exited.clone();
        let spawned = std::thread::Builder::new()
            .name(format!("kplace-{name}"))
            .spawn(move || {
                let _exit = SetOnDrop(gone);
                let mut latest: Vec<Option<R>> = Vec::new();
                while let Ok(first) = request_rx.recv() {
                    for request in std::iter::once(first).chain(request_rx.try_iter()) {
                        let k = kind(&request);
                        if latest.len() <= k {
                            latest.resize_with(k + 1, || None);
                        }
                        latest[k] = Some(request);
                    }
                    ctx.cancel.store(false, Ordering::Relaxed);
                    for request in latest.iter_mut().filter_map(Option::take) {
                        work(request, &ctx);
                    }
                }
                done.store(true, Ordering::Relaxed);
            });
        Job::started(
            name,
            spawned.err(),
            Some(requests),
            events,
            [cancel, finished, exited],
        )
    }

    /// Asks for `request`, stopping the work under way.
    pub fn request(&self, request: R) {
        self.cancel.store(true, Ordering::Relaxed);
        if let Some(tx) = &self.requests {
            let _ = tx.send(request);
        }
    }
}

impl<E: Send + 'static> Job<(), E> {
    /// Runs `work` once on its own thread (a load, a check): events stream
    /// back as it goes.
    pub fn once(name: &'static str, work: impl FnOnce(&Ctx<E>) + Send + 'static) -> Self {
        let (events_tx, events) = mpsc::channel();
        let cancel = Arc::new(AtomicBool::new(false));
        let ctx = Ctx {
            events: events_tx,
            cancel: cancel.clone(),
        };
        let finished = Arc::new(AtomicBool::new(false));
        let done = finished.clone();
        let exited = Arc::new(AtomicBool::new(false));
        let gone = exited.clone();
        let spawned = std::thread::Builder::new()
            .name(format!("kplace-{name}"))
            .spawn(move || {
                let _exit = SetOnDrop(gone);
                work(&ctx);
                done.store(true, Ordering::Relaxed);
            });
        Job::started(
            name,
            spawned.err(),
            None,
            events,
            [cancel, finished, exited],
        )
    }
}

impl<R, E> Job<R, E> {
    fn started(
        name: &'static str,
        error: Option<std::io::Error>,
        requests: Option<Sender<R>>,
        events: Receiver<E>,
        [cancel, finished, exited]: [Arc<AtomicBool>; 3],
    ) -> Self {
        Job {
            failure: error.map(|e| format!("cannot start the {name} thread: {e}")),
            requests,
            events,
            cancel,
            finished,
            exited,
            name,
        }
    }

    /// The next event, if one arrived.
    pub fn try_recv(&self) -> Option<E> {
        self.events.try_recv().ok()
    }

    /// Why the job is not working: its thread could not start, or it
    /// stopped without being asked to (a panic). Shown instead of waiting.
    pub fn failure(&self) -> Option<String> {
        if let Some(f) = &self.failure {
            return Some(f.clone());
        }
        // The thread is gone without its work returning: a panic.
        (self.exited.load(Ordering::Relaxed) && !self.finished.load(Ordering::Relaxed))
            .then(|| format!("the {} thread stopped unexpectedly", self.name))
    }

    /// Asks the work under way to stop (it checks between steps).
    pub fn cancel(&self) {
        self.cancel.store(true, Ordering::Relaxed);
    }

    /// Whether [`Job::cancel`] was called (and no request since).
    pub fn is_cancelled(&self) -> bool {
        self.cancel.load(Ordering::Relaxed)
    }

    /// Blocks up to `timeout` for the next event (tests and start-up).
    pub fn recv_timeout(&self, timeout: std::time::Duration) -> Option<E> {
        self.events.recv_timeout(timeout).ok()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::time::Duration;

    #[test]
    fn only_the_latest_queued_request_runs_and_the_running_one_is_cancelled() {
        let (gate_tx, gate_rx) = mpsc::channel::<()>();
        let gate = std::sync::Mutex::new(gate_rx);
        let job: Job<u32, (u32, bool)> = Job::spawn("test", move |n, ctx| {
            if n == 1 {
                // Hold the first request until the test has queued more.
                gate.lock().unwrap().recv().unwrap();
            }
            ctx.send((n, ctx.cancelled()));
        });
        job.request(1);
        std::thread::sleep(Duration::from_millis(50));
        job.request(2);
        job.request(3);
        gate_tx.send(()).unwrap();
        let first = job.recv_timeout(Duration::from_secs(5)).unwrap();
        assert_eq!(first, (1, true), "the first request was told to stop");
        let second = job.recv_timeout(Duration::from_secs(5)).unwrap();
        assert_eq!(second, (3, false), "2 was superseded by 3 before it ran");
        assert!(job.recv_timeout(Duration::from_millis(100)).is_none());
        assert_eq!(job.failure(), None);
    }

    #[test]
    fn the_latest_request_of_each_kind_runs_in_kind_order() {
        let (gate_tx, gate_rx) = mpsc::channel::<()>();
        let gate = std::sync::Mutex::new(gate_rx);
        let job: Job<(usize, u32), (usize, u32)> = Job::spawn_by_kind(
            "kinds",
            |r| r.0,
            move |r, ctx| {
                if r.1 == 0 {
                    gate.lock().unwrap().recv().unwrap();
                }
                ctx.send(r);
            },
        );
        job.request((0, 0));
        std::thread::sleep(Duration::from_millis(50));
        for r in [(2, 1), (0, 2), (2, 3), (1, 4)] {
            job.request(r);
        }
        gate_tx.send(()).unwrap();
        let got: Vec<(usize, u32)> = (0..4)
            .map(|_| job.recv_timeout(Duration::from_secs(5)).unwrap())
            .collect();
        assert_eq!(got, [(0, 0), (0, 2), (1, 4), (2, 3)]);
        assert!(job.recv_timeout(Duration::from_millis(100)).is_none());
    }

    #[test]
    fn a_job_that_dies_says_so_instead_of_computing_forever() {
        let job: Job<(), u32> = Job::once("doomed", |_ctx| panic!("boom"));
        let deadline = std::time::Instant::now() + Duration::from_secs(5);
        while job.failure().is_none() && std::time::Instant::now() < deadline {
            std::thread::sleep(Duration::from_millis(10));
        }
        assert_eq!(
            job.failure().as_deref(),
            Some("the doomed thread stopped unexpectedly")
        );
    }

    #[test]
    fn a_one_shot_job_streams_its_events_in_order() {
        let job: Job<(), u32> = Job::once("count", |ctx| {
            for i in 0..3 {
                ctx.send(i);
            }
        });
        let got: Vec<u32> = (0..3)
            .map(|_| job.recv_timeout(Duration::from_secs(5)).unwrap())
            .collect();
        assert_eq!(got, [0, 1, 2]);
        std::thread::sleep(Duration::from_millis(50));
        assert_eq!(job.failure(), None, "finishing is not failing");
    }
}
