//! Loads the snapshot on a background thread, so the UI can show progress
//! and stay responsive (and quittable) while a large file is read.

use std::path::PathBuf;
use std::sync::Arc;
use std::sync::mpsc::{self, Receiver, TryRecvError};
use std::time::{Duration, Instant};

use crate::model::Cluster;
use crate::source::file::load_snapshot;

use super::demo::{DEMO_NAME, load_demo};
use super::derived::Derived;

#[derive(Clone, Debug)]
pub enum Source {
    Demo,
    File(PathBuf),
}

impl Source {
    pub fn name(&self) -> String {
        match self {
            Source::Demo => DEMO_NAME.to_string(),
            Source::File(p) => p.display().to_string(),
        }
    }
}

/// A loaded cluster with everything the views cache about it.
pub struct Loaded {
    pub cluster: Arc<Cluster>,
    pub derived: Derived,
    pub name: String,
    pub took: Duration,
}

impl Loaded {
    pub fn new(cluster: Cluster, name: String, took: Duration) -> Loaded {
        let derived = Derived::build(&cluster);
        Loaded {
            cluster: Arc::new(cluster),
            derived,
            name,
            took,
        }
    }
}

/// A load in progress.
pub struct Loading {
    pub name: String,
    /// File size in bytes, when known (shown next to the spinner).
    pub size: Option<u64>,
    pub started: Instant,
    rx: Receiver<Result<Loaded, String>>,
}

impl Loading {
    pub fn start(source: Source) -> Loading {
        let name = source.name();
        let size = match &source {
            Source::File(p) => std::fs::metadata(p).ok().map(|m| m.len()),
            Source::Demo => None,
        };
        let (tx, rx) = mpsc::channel();
        let thread_name = name.clone();
        let spawned = std::thread::Builder::new()
            .name("kplace-load".into())
            .spawn(move || {
                let started = Instant::now();
                let result = match &source {
                    Source::Demo => load_demo(),
                    Source::File(path) => load_snapshot(path)
                        .map(|(c, _)| c)
                        .map_err(|e| e.to_string()),
                };
                let _ = tx.send(
                    result.map(|cluster| Loaded::new(cluster, thread_name, started.elapsed())),
                );
            });
        let rx = match spawned {
            Ok(_) => rx,
            Err(e) => {
                let (tx, failed) = mpsc::channel();
                let _ = tx.send(Err(format!("cannot start the loading thread: {e}")));
                failed
            }
        };
        Loading {
            name,
            size,
            started: Instant::now(),
            rx,
        }
    }

    /// The result, once there is one.
    pub fn poll(&self) -> Option<Result<Loaded, String>> {
        match self.rx.try_recv() {
            Ok(r) => Some(r),
            Err(TryRecvError::Empty) => None,
            Err(TryRecvError::Disconnected) => Some(Err(format!(
                "{}: the loading thread stopped unexpectedly",
                self.name
            ))),
        }
    }

    /// Blocks up to `timeout` for the result (tests and start-up).
    pub fn wait(&self, timeout: Duration) -> Option<Result<Loaded, String>> {
        match self.rx.recv_timeout(timeout) {
            Ok(r) => Some(r),
            Err(mpsc::RecvTimeoutError::Timeout) => None,
            Err(mpsc::RecvTimeoutError::Disconnected) => Some(Err(format!(
                "{}: the loading thread stopped unexpectedly",
                self.name
            ))),
        }
    }
}
