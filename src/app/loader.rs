//! Opens the TUI's source on a background thread, so the UI can show
//! progress and stay responsive (and quittable) while a large file is read
//! or a live cluster is listed.

use std::path::PathBuf;
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use crate::model::Cluster;
use crate::source::file::{load_snapshot, load_snapshot_owned, read_bytes};
use crate::source::live::{
    ConnectionState, Kind, LiveError, LiveOptions, LiveSource, Touched, describe,
};
use crate::source::timeline::{self, Timeline};

use super::demo::{DEMO_NAME, DEMO_TIMELINE_NAME, load_demo, load_demo_timeline};
use super::derived::{Built, Derived};
use super::feed::Feed;
use super::job::{Ctx, Job};
use super::live::LiveFeed;
use super::replay::Replay;

/// Where the TUI's cluster comes from.
#[derive(Clone, Debug)]
pub enum Source {
    Demo,
    /// The built-in demo recording (`--demo-replay`).
    DemoTimeline,
    /// A snapshot file, or a timeline recording (detected by its header).
    File(PathBuf),
    /// A live cluster. With `fallback`, an absent kubeconfig or an
    /// unreachable server opens the demo with a note instead (plain `kplace`).
    Live {
        options: LiveOptions,
        fallback: bool,
    },
    /// Another context of a live session (`:ctx NAME`): a server that
    /// refuses or does not answer is an error, and the cluster shown stays.
    LiveContext(LiveOptions),
}

impl Source {
    pub fn name(&self) -> String {
        match self {
            Source::Demo => DEMO_NAME.to_string(),
            Source::DemoTimeline => DEMO_TIMELINE_NAME.to_string(),
            Source::File(p) => p.display().to_string(),
            Source::Live { options, .. } | Source::LiveContext(options) => {
                let context = match &options.target.context {
                    Some(c) => format!("context {c}"),
                    None => "the current context".to_string(),
                };
                match &options.target.kubeconfig {
                    Some(k) => format!("{context} of {}", k.display()),
                    None => format!("{context} of the kubeconfig"),
                }
            }
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
    /// With every view cache built: a live update or a replay moment, which
    /// replaces a cluster whose views are all there.
    pub fn new(cluster: Cluster, name: String, took: Duration) -> Loaded {
        let cluster = Arc::new(cluster);
        Loaded {
            derived: Derived::build(&cluster),
            cluster,
            name,
            took,
        }
    }

    /// A cluster a live update changed in place (`touched`): every view
    /// cache built now, those of `previous` (the caches of the cluster
    /// before) by updating them. `took` runs from `started`.
    pub fn updated(
        cluster: Cluster,
        name: String,
        previous: &Built,
        touched: &Touched,
        started: Instant,
    ) -> Loaded {
        let cluster = Arc::new(cluster);
        Loaded {
            derived: Derived::updated(&cluster, previous, touched),
            cluster,
            name,
            took: started.elapsed(),
        }
    }

    /// The first cluster of a source: the Overview's caches now, the
    /// others (the pod table, workloads, tiers) built in the background,
    /// so the first screen waits only for the cluster.
    pub fn first(cluster: Cluster, name: String, took: Duration) -> Loaded {
        let loaded = Loaded::cold(cluster, name, took);
        loaded.derived.warm_in_background();
        loaded
    }

    /// The Overview's caches only; the others are built when first asked
    /// for, by whoever asks (a test stands in for the warming thread).
    pub fn cold(cluster: Cluster, name: String, took: Duration) -> Loaded {
        let cluster = Arc::new(cluster);
        Loaded {
            derived: Derived::new(&cluster),
            cluster,
            name,
            took,
        }
    }
}

/// What a finished load hands the app: the first cluster, and for live
/// clusters and recordings the feed that produces the next ones.
pub struct Opened {
    pub loaded: Loaded,
    pub feed: Option<Feed>,
    /// Shown as a note line: why the demo opened instead of a cluster.
    pub note: Option<String>,
}

impl Opened {
    fn plain(loaded: Loaded) -> Opened {
        Opened {
            loaded,
            feed: None,
            note: None,
        }
    }
}

/// A load in progress.
pub struct Loading {
    pub name: String,
    /// File size in bytes, when known (shown next to the spinner).
    pub size: Option<u64>,
    pub started: Instant,
    /// A live cluster (not a file or the demo): quitting before it answered
    /// is a failure to connect.
    pub live: bool,
    /// What the loading thread is doing now ("listing pods (3/9 kinds)…").
    progress: Arc<Mutex<String>>,
    job: Job<(), Result<Opened, String>>,
}

impl Loading {
    pub fn start(source: Source) -> Loading {
        let name = source.name();
        let live = matches!(source, Source::Live { .. } | Source::LiveContext(_));
        let size = match &source {
            Source::File(p) => std::fs::metadata(p).ok().map(|m| m.len()),
            _ => None,
        };
        let progress = Arc::new(Mutex::new(initial_progress(&source)));
        let thread_progress = progress.clone();
        let job = Job::once("loading", move |ctx: &Ctx<Result<Opened, String>>| {
            ctx.send(open(source, &thread_progress));
        });
        Loading {
            name,
            size,
            started: Instant::now(),
            live,
            progress,
            job,
        }
    }

    /// One line on what is happening now.
    pub fn progress(&self) -> String {
        self.progress.lock().map(|p| p.clone()).unwrap_or_default()
    }

    /// The result, once there is one; a loading thread that could not
    /// start or died is a failed load.
    pub fn poll(&self) -> Option<Result<Opened, String>> {
        self.job.try_recv().or_else(|| self.failed())
    }

    /// Blocks up to `timeout` for the result (tests and start-up).
    pub fn wait(&self, timeout: Duration) -> Option<Result<Opened, String>> {
        self.job
            .recv_timeout(timeout)
            .or_else(|| self.job.try_recv())
            .or_else(|| self.failed())
    }

    fn failed(&self) -> Option<Result<Opened, String>> {
        self.job
            .failure()
            .map(|f| Err(format!("{}: {f}", self.name)))
    }
}

fn initial_progress(source: &Source) -> String {
    match source {
        Source::Live { .. } | Source::LiveContext(_) => "reading the kubeconfig".into(),
        _ => "reading, parsing and indexing the snapshot".into(),
    }
}

fn set(progress: &Mutex<String>, text: String) {
    if let Ok(mut p) = progress.lock() {
        *p = text;
    }
    super::job::wake();
}

fn open(source: Source, progress: &Mutex<String>) -> Result<Opened, String> {
    let started = Instant::now();
    let name = source.name();
    match source {
        Source::Demo => load_demo().map(|c| Opened::plain(Loaded::new(c, name, started.elapsed()))),
        Source::DemoTimeline => load_demo_timeline().map(|t| open_timeline(t, name)),
        Source::File(path) if path.is_dir() => load_snapshot(&path)
            .map(|(c, _)| Opened::plain(Loaded::first(c, name, started.elapsed())))
            .map_err(|e| e.to_string()),
        // A file is read once (within the input budget), then sniffed: a
        // pipe (`--snapshot <(…)`) cannot be opened a second time.
        Source::File(path) => {
            let bytes = read_bytes(&path).map_err(|e| e.to_string())?;
            if timeline::is_timeline_bytes(&bytes) {
                set(
                    progress,
                    "reading the recording and indexing its events".into(),
                );
                let t = Timeline::from_bytes(&bytes, &name).map_err(|e| e.to_string())?;
                drop(bytes);
                Ok(open_timeline(t, name))
            } else {
                load_snapshot_owned(bytes, &name)
                    .map(|(c, _)| Opened::plain(Loaded::first(c, name, started.elapsed())))
                    .map_err(|e| e.to_string())
            }
        }
        Source::Live { options, fallback } => open_live(options, fallback, false, progress),
        Source::LiveContext(options) => open_live(options, false, true, progress),
    }
}

/// A recording opens at its first moment, paused.
pub fn open_timeline(t: Timeline, name: String) -> Opened {
    let started = Instant::now();
    let cluster = t.state_after(0);
    let loaded = Loaded::first(cluster, name, started.elapsed());
    // Objects the API server would refuse are left out of every moment:
    // say so, or a pod they hide would be missing without a word.
    let note = t.invalid.first().map(|first| {
        crate::report::escape_controls(&format!(
            "{} recorded object(s) left out, as the API server would refuse them; the first: {first}",
            t.invalid.len()
        ))
        .into_owned()
    });
    Opened {
        loaded,
        feed: Some(Feed::Replay(Box::new(Replay::new(Arc::new(t))))),
        note,
    }
}

/// The demo, with a note saying why it opened.
fn demo_instead(why: String) -> Result<Opened, String> {
    let started = Instant::now();
    let cluster = load_demo()?;
    Ok(Opened {
        loaded: Loaded::new(cluster, DEMO_NAME.to_string(), started.elapsed()),
        feed: None,
        note: Some(format!(
            "Demo mode: {why}; showing the built-in demo cluster"
        )),
    })
}

/// How long plain `kplace` waits for a server before showing the demo.
const REACH_TIMEOUT: Duration = Duration::from_secs(8);

/// Opens a live cluster. `fallback`: an unreachable server opens the demo
/// instead; `give_up`: it is an error; neither: it is waited for.
fn open_live(
    options: LiveOptions,
    fallback: bool,
    give_up: bool,
    progress: &Mutex<String>,
) -> Result<Opened, String> {
    let started = Instant::now();
    let live = match LiveSource::connect(options, None) {
        Ok(l) => l,
        Err(LiveError::BadKubeconfig(why)) if fallback => return demo_instead(why),
        Err(e) => return Err(e.to_string()),
    };
    let label = format!("{} ({})", live.context(), live.server());
    loop {
        let state = live.state();
        let received = live.received();
        let count = |kind| received.iter().find(|(k, _)| *k == kind).map_or(0, |e| e.1);
        set(
            progress,
            format!(
                "{label}: {} · {} nodes, {} pods so far",
                describe(&state),
                count(Kind::Node),
                count(Kind::Pod)
            ),
        );
        // The server has answered once a kind is listed: a large cluster may
        // take a while to list, and that is no reason to show the demo.
        let answered = matches!(state, ConnectionState::Syncing { done, .. } if done > 0);
        match state {
            ConnectionState::Live => break,
            ConnectionState::Failed { message } if fallback => {
                return demo_instead(format!("{label}: {message}"));
            }
            ConnectionState::Failed { message } => return Err(format!("{label}: {message}")),
            // Plain `kplace` with a server that does not answer: the demo.
            ConnectionState::Reconnecting { error, .. } if fallback => {
                return demo_instead(format!("{label} is unreachable: {error}"));
            }
            ConnectionState::Reconnecting { error, .. } if give_up && !answered => {
                return Err(format!("{label} is unreachable: {error}"));
            }
            _ if give_up && !answered && started.elapsed() > REACH_TIMEOUT => {
                return Err(format!(
                    "{label} did not answer within {} s",
                    REACH_TIMEOUT.as_secs()
                ));
            }
            _ if fallback && !answered && started.elapsed() > REACH_TIMEOUT => {
                return demo_instead(format!(
                    "{label} did not answer within {} s",
                    REACH_TIMEOUT.as_secs()
                ));
            }
            _ => std::thread::sleep(Duration::from_millis(50)),
        }
    }
    set(progress, format!("{label}: reading the server version"));
    // Usually answered long ago; a server that is slow to say its version
    // only delays the first answers a little, then it is said why it is unknown.
    let _ = live.wait_server_version(Duration::from_secs(3));
    set(progress, format!("{label}: converting the objects"));
    let changes = live.changes();
    let (cluster, skipped) = live.cluster();
    // The feed keeps a fork to apply the next watch events to in place.
    let model = cluster.clone();
    let loaded = Loaded::first(cluster, live.context().to_string(), started.elapsed());
    let caches = loaded.derived.caches();
    Ok(Opened {
        loaded,
        feed: Some(Feed::Live(Box::new(LiveFeed::new(
            live,
            changes,
            skipped,
            model,
            Some(caches),
        )))),
        note: None,
    })
}
