//! Recordings: a snapshot file (a kubectl-readable `v1` `List`), or a
//! timeline (the initial state plus every watch event, with timestamps).
//!
//! Timeline format (gzip-compressed JSON lines):
//!
//! ```text
//! {"kplaceTimeline":1,"recordedAt":"…","context":"…","server":"…","serverVersion":"v1.33.4","initialObjects":N,"limitations":[…]}
//! {"t":0,"type":"ADDED","object":{…}}            ← N lines: the state when recording started
//! {"t":1520,"type":"MODIFIED","object":{…}}      ← then every event, t = ms since start
//! {"t":1733,"type":"DELETED","object":{…}}
//! {"t":600000,"type":"END"}                      ← optional: when recording stopped
//! ```
//!
//! `serverVersion` (the API server's `/version` `gitVersion`; absent when it
//! could not be read) is also stored in a snapshot List, as the annotation
//! [`ANNOTATION_SERVER_VERSION`]: loading either answers as that
//! kube-scheduler release. Readers that do not know it ignore it.
//!
//! Objects carry `kind` and `apiVersion`. Replay builds checkpoints of the
//! object sets in memory when it loads the file (see `timeline`), so the file
//! needs no index. Both files are redacted (`live::strip`,
//! `StripMode::Redact`): env values and `managedFields` never leave the
//! cluster, and container args and commands, HTTP headers, volume
//! attributes, Secret and ConfigMap references, annotations the scheduler
//! does not read and status messages only when `RecordOptions::keep` says
//! so; Secrets are never fetched. docs/live.md lists what a recording holds.

use std::collections::BTreeMap;
use std::io::{BufWriter, Write};
use std::path::{Path, PathBuf};
use std::time::Instant;

use flate2::write::GzEncoder;
use serde_json::{Value, json};
use tempfile::NamedTempFile;

use super::live::{Kind, TapChange, TapEvent};

/// The header line's marker field; [`super::timeline::is_timeline`] looks for it.
pub const TIMELINE_MARKER: &str = "kplaceTimeline";
pub const ANNOTATION_RECORDED_AT: &str = "kplace.io/recorded-at";
pub const ANNOTATION_CONTEXT: &str = "kplace.io/context";
pub const ANNOTATION_SERVER: &str = "kplace.io/server";
/// The API server's `/version` `gitVersion` when the snapshot was taken
/// (a List annotation; a timeline's header has `serverVersion`). Loading the
/// file answers as that kube-scheduler release (`source::version`).
pub const ANNOTATION_SERVER_VERSION: &str = "kplace.io/server-version";
/// The redaction categories `record --keep` kept (comma-separated; absent
/// when everything redactable was removed). A timeline's header has `kept`.
pub const ANNOTATION_KEPT: &str = "kplace.io/redaction-kept";

/// One change to write to a timeline.
#[derive(Clone, Debug, PartialEq)]
pub struct Change {
    pub kind: Kind,
    /// `ADDED`, `MODIFIED` or `DELETED`.
    pub type_: &'static str,
    pub object: Value,
}

fn key(object: &Value) -> String {
    super::live::kind::object_key(
        object["metadata"]["namespace"].as_str(),
        object["metadata"]["name"].as_str().unwrap_or(""),
    )
}

fn resource_version(object: &Value) -> &str {
    object["metadata"]["resourceVersion"].as_str().unwrap_or("")
}

/// The recorded objects, kept up to date from the watchers' tap. A relist
/// (after 410 Gone) becomes the events that turn the old set into the new.
#[derive(Default)]
pub struct Recorder {
    objects: BTreeMap<Kind, BTreeMap<String, Value>>,
    /// Objects of a (re)list in progress.
    listing: BTreeMap<Kind, BTreeMap<String, Value>>,
    /// Kinds with a first complete list, or forbidden.
    pub done: BTreeMap<Kind, bool>,
    /// Set when the source failed for good.
    pub failed: Option<String>,
    pub forbidden: Vec<Kind>,
}

impl Recorder {
    /// Every kind listed (or forbidden): the initial state is complete.
    pub fn synced(&self) -> bool {
        Kind::ALL.iter().all(|k| self.done.contains_key(k))
    }

    /// Applies a tap event; returns the timeline changes it makes.
    pub fn apply(&mut self, ev: TapEvent) -> Vec<Change> {
        let kind = ev.kind;
        let mut out = Vec::new();
        match ev.change {
            TapChange::Init => {
                self.listing.insert(kind, BTreeMap::new());
            }
            TapChange::InitApply(o) => {
                self.listing.entry(kind).or_default().insert(key(&o), o);
            }
            TapChange::InitDone => {
                let new = self.listing.remove(&kind).unwrap_or_default();
                let old = self.objects.entry(kind).or_default();
                for (k, o) in old.iter() {
                    if !new.contains_key(k) {
                        out.push(Change {
                            kind,
                            type_: "DELETED",
                            object: o.clone(),
                        });
                    }
                }
                for (k, o) in &new {
                    match old.get(k) {
                        None => out.push(Change {
                            kind,
                            type_: "ADDED",
                            object: o.clone(),
                        }),
                        Some(prev) if resource_version(prev) != resource_version(o) => {
                            out.push(Change {
                                kind,
                                type_: "MODIFIED",
                                object: o.clone(),
                            })
                        }
                        Some(_) => {}
                    }
                }
                *old = new;
                self.done.insert(kind, true);
            }
            TapChange::Apply(o) => {
                let map = self.objects.entry(kind).or_default();
                let type_ = if map.insert(key(&o), o.clone()).is_some() {
                    "MODIFIED"
                } else {
                    "ADDED"
                };
                out.push(Change {
                    kind,
                    type_,
                    object: o,
                });
            }
            TapChange::Delete(o) => {
                self.objects.entry(kind).or_default().remove(&key(&o));
                out.push(Change {
                    kind,
                    type_: "DELETED",
                    object: o,
                });
            }
            TapChange::Forbidden => {
                self.forbidden.push(kind);
                self.done.insert(kind, false);
            }
            TapChange::Failed(message) => {
                self.failed.get_or_insert(message);
            }
        }
        out
    }

    /// Every object, kinds in snapshot order, each kind in API list order.
    pub fn items(&self) -> impl Iterator<Item = &Value> {
        self.objects.values().flat_map(|m| m.values())
    }
}

/// Where and when a recording was made.
#[derive(Clone, Debug)]
pub struct RecordingMeta {
    pub context: String,
    pub server: String,
    /// The server's `gitVersion`, when `/version` answered.
    pub server_version: Option<String>,
    pub recorded_at: String,
    pub limitations: Vec<String>,
    /// The redaction categories kept (`record --keep`), by name.
    pub kept: Vec<&'static str>,
}

impl RecordingMeta {
    pub fn now(context: &str, server: &str, limitations: Vec<String>) -> Self {
        RecordingMeta {
            context: context.to_string(),
            server: server.to_string(),
            server_version: None,
            recorded_at: k8s_openapi::jiff::Timestamp::now().to_string(),
            limitations,
            kept: Vec::new(),
        }
    }
}

/// Where a recording goes while it is written: a temporary file beside the
/// final name (same directory, so the rename cannot cross file systems),
/// gzip-compressed when asked. [`Output::finish`] completes it (the gzip
/// trailer included), syncs it and renames it to the final name; dropped
/// unfinished (an error), the temporary file is removed. A crash never
/// leaves a truncated file under the final name, and the final name is never
/// replaced unless `overwrite` says so.
pub struct Output {
    path: PathBuf,
    overwrite: bool,
    sink: Sink,
}

enum Sink {
    Plain(BufWriter<NamedTempFile>),
    Gz(GzEncoder<BufWriter<NamedTempFile>>),
}

impl Output {
    /// Starts a recording for `path`; refuses an existing `path` unless
    /// `overwrite`.
    pub fn create(path: &Path, gz: bool, overwrite: bool) -> std::io::Result<Output> {
        if !overwrite && path.symlink_metadata().is_ok() {
            return Err(exists(path));
        }
        let dir = match path.parent() {
            Some(d) if !d.as_os_str().is_empty() => d,
            _ => Path::new("."),
        };
        let name = path
            .file_name()
            .map(|n| n.to_string_lossy().into_owned())
            .unwrap_or_else(|| "recording".into());
        // Created 0600 with a random name (O_EXCL): nobody else can read the
        // recording or slip a file in its place.
        let tmp = tempfile::Builder::new()
            .prefix(&format!(".{name}."))
            .suffix(".part")
            .tempfile_in(dir)?;
        let file = BufWriter::with_capacity(1 << 16, tmp);
        let sink = if gz {
            Sink::Gz(GzEncoder::new(file, flate2::Compression::default()))
        } else {
            Sink::Plain(file)
        };
        Ok(Output {
            path: path.to_path_buf(),
            overwrite,
            sink,
        })
    }

    /// Completes the file and gives it its final name.
    pub fn finish(self) -> std::io::Result<()> {
        let buffered = match self.sink {
            Sink::Plain(w) => w,
            Sink::Gz(gz) => gz.finish()?,
        };
        let tmp = buffered.into_inner().map_err(|e| e.into_error())?;
        tmp.as_file().sync_all()?;
        let persisted = if self.overwrite {
            tmp.persist(&self.path).map(drop)
        } else {
            tmp.persist_noclobber(&self.path).map(drop)
        };
        persisted.map_err(|e| {
            if e.error.kind() == std::io::ErrorKind::AlreadyExists {
                exists(&self.path)
            } else {
                e.error
            }
        })
    }
}

fn exists(path: &Path) -> std::io::Error {
    std::io::Error::new(
        std::io::ErrorKind::AlreadyExists,
        format!(
            "{} already exists; kplace does not overwrite it (use --force, or another name)",
            path.display()
        ),
    )
}

impl Write for Output {
    fn write(&mut self, buf: &[u8]) -> std::io::Result<usize> {
        match &mut self.sink {
            Sink::Plain(w) => w.write(buf),
            Sink::Gz(w) => w.write(buf),
        }
    }

    fn flush(&mut self) -> std::io::Result<()> {
        match &mut self.sink {
            Sink::Plain(w) => w.flush(),
            Sink::Gz(w) => w.flush(),
        }
    }
}

fn is_gz(path: &Path) -> bool {
    path.extension().is_some_and(|e| e == "gz")
}

/// Writes a snapshot: a `v1` `List` whose annotations say when and where it
/// was taken; `.gz` names are compressed. An existing `path` is refused
/// unless `overwrite`.
pub fn write_snapshot<'a>(
    path: &Path,
    items: impl Iterator<Item = &'a Value>,
    meta: &RecordingMeta,
    overwrite: bool,
) -> std::io::Result<()> {
    let mut annotations = json!({
        ANNOTATION_RECORDED_AT: meta.recorded_at,
        ANNOTATION_CONTEXT: meta.context,
        ANNOTATION_SERVER: meta.server,
    });
    if let Some(v) = &meta.server_version {
        annotations[ANNOTATION_SERVER_VERSION] = json!(v);
    }
    if !meta.limitations.is_empty() {
        annotations["kplace.io/limitations"] = json!(meta.limitations.join("; "));
    }
    if !meta.kept.is_empty() {
        annotations[ANNOTATION_KEPT] = json!(meta.kept.join(","));
    }
    let mut w = Output::create(path, is_gz(path), overwrite)?;
    let head =
        json!({"apiVersion": "v1", "kind": "List", "metadata": {"annotations": annotations}});
    let head = head.to_string();
    // `{"apiVersion":…,"metadata":{…}}` → open it again to append the items.
    w.write_all(&head.as_bytes()[..head.len() - 1])?;
    w.write_all(b",\"items\":[\n")?;
    for (i, item) in items.enumerate() {
        if i > 0 {
            w.write_all(b",\n")?;
        }
        serde_json::to_writer(&mut w, item)?;
    }
    w.write_all(b"\n]}\n")?;
    w.finish()
}

/// Writes a timeline as events arrive, through an [`Output`]: the file
/// appears under its name, complete, when [`TimelineWriter::finish`] is
/// called.
pub struct TimelineWriter {
    w: Output,
    started: Instant,
    pub events: u64,
}

impl TimelineWriter {
    /// Writes the header and the initial state; `started` is t = 0. An
    /// existing `path` is refused unless `overwrite`.
    pub fn create<'a>(
        path: &Path,
        meta: &RecordingMeta,
        initial: impl ExactSizeIterator<Item = &'a Value>,
        started: Instant,
        overwrite: bool,
    ) -> std::io::Result<Self> {
        let mut w = Output::create(path, true, overwrite)?;
        let mut header = json!({
            TIMELINE_MARKER: 1,
            "recordedAt": meta.recorded_at,
            "context": meta.context,
            "server": meta.server,
            "initialObjects": initial.len(),
            "limitations": meta.limitations,
        });
        if let Some(v) = &meta.server_version {
            header["serverVersion"] = json!(v);
        }
        if !meta.kept.is_empty() {
            header["kept"] = json!(meta.kept);
        }
        writeln!(w, "{header}")?;
        for o in initial {
            writeln!(w, "{}", json!({"t": 0, "type": "ADDED", "object": o}))?;
        }
        Ok(TimelineWriter {
            w,
            started,
            events: 0,
        })
    }

    pub fn write(&mut self, at: Instant, change: &Change) -> std::io::Result<()> {
        let t = at.saturating_duration_since(self.started).as_millis() as u64;
        writeln!(
            self.w,
            "{}",
            json!({"t": t, "type": change.type_, "object": change.object})
        )?;
        self.events += 1;
        Ok(())
    }

    pub fn finish(mut self, at: Instant) -> std::io::Result<()> {
        let t = at.saturating_duration_since(self.started).as_millis() as u64;
        writeln!(self.w, "{}", json!({"t": t, "type": "END"}))?;
        self.w.finish()
    }
}

/// What `kplace record` does, as a library call (tests drive it directly).
#[derive(Clone, Debug)]
pub struct RecordOptions {
    pub target: super::live::Target,
    pub output: std::path::PathBuf,
    /// `None`: a snapshot; `Some(0)`: a timeline until `stop`; else a timeline this long.
    pub duration: Option<std::time::Duration>,
    /// Give up when the first full list takes longer.
    pub sync_timeout: std::time::Duration,
    /// Set (by ctrl-c, SIGTERM or SIGHUP) to stop recording: a timeline is
    /// then finished (END line, gzip trailer) and renamed into place.
    pub stop: std::sync::Arc<std::sync::atomic::AtomicBool>,
    /// Replace an existing output file (`--force`); otherwise it is refused.
    pub force: bool,
    /// Told when connected, and when the initial state is written and
    /// watch events are being recorded (the CLI prints both).
    pub progress: Option<fn(&str)>,
    /// Categories the redaction keeps (`--keep`); by default none.
    pub keep: super::live::Keep,
}

/// What was recorded.
#[derive(Clone, Debug, Default)]
pub struct RecordSummary {
    pub context: String,
    pub objects: usize,
    pub events: u64,
    pub limitations: Vec<String>,
    pub elapsed: std::time::Duration,
}

#[derive(Debug, thiserror::Error)]
pub enum RecordError {
    #[error("{0}")]
    Live(#[from] super::live::LiveError),
    #[error("{file}: {source}")]
    Io {
        file: String,
        source: std::io::Error,
    },
    #[error("{0}")]
    Stopped(String),
    /// The output file exists and `force` was not given.
    #[error("{} already exists; kplace does not overwrite it (use --force, or another name)", .0.display())]
    Exists(PathBuf),
}

/// Connects (read-only, redacting), waits for the first full list, and
/// writes a snapshot or a timeline.
pub fn record(options: &RecordOptions) -> Result<RecordSummary, RecordError> {
    use std::sync::atomic::Ordering;
    use std::sync::mpsc::RecvTimeoutError;
    use std::time::Duration;

    use super::live::{LiveOptions, LiveSource, StripMode};

    let io = |source: std::io::Error| {
        if source.kind() == std::io::ErrorKind::AlreadyExists {
            RecordError::Exists(options.output.clone())
        } else {
            RecordError::Io {
                file: options.output.display().to_string(),
                source,
            }
        }
    };
    // Before connecting: an existing file is refused at once, not after the sync.
    if !options.force && options.output.symlink_metadata().is_ok() {
        return Err(RecordError::Exists(options.output.clone()));
    }
    let (tx, rx) = std::sync::mpsc::channel();
    let live = LiveSource::connect(
        LiveOptions {
            target: options.target.clone(),
            strip: StripMode::Redact(options.keep),
            fail_fast: true,
            ..Default::default()
        },
        Some(tx),
    )?;
    if let Some(note) = &options.progress {
        note(&format!(
            "connected to {} (read-only); waiting for the first full list",
            live.context()
        ));
    }
    let mut rec = Recorder::default();
    let deadline = Instant::now() + options.sync_timeout;
    while !rec.synced() {
        match rx.recv_timeout(Duration::from_millis(50)) {
            Ok(ev) => {
                rec.apply(ev);
            }
            Err(RecvTimeoutError::Timeout) => {}
            Err(RecvTimeoutError::Disconnected) => {
                return Err(RecordError::Stopped("the live source stopped".into()));
            }
        }
        if let Some(message) = &rec.failed {
            return Err(RecordError::Stopped(message.clone()));
        }
        if options.stop.load(Ordering::SeqCst) {
            return Err(RecordError::Stopped(
                "interrupted before the first full list".into(),
            ));
        }
        if Instant::now() > deadline {
            return Err(RecordError::Stopped(format!(
                "no complete list after {} s: {}",
                options.sync_timeout.as_secs(),
                super::live::describe(&live.state())
            )));
        }
    }
    let limitations: Vec<String> = live.limitations().into_iter().map(|l| l.message).collect();
    let mut meta = RecordingMeta::now(live.context(), live.server(), limitations.clone());
    meta.kept = options.keep.names();
    let mut limitations = limitations;
    match live.wait_server_version(Duration::from_secs(5)) {
        super::version::ServerVersion::Live(v) => meta.server_version = Some(v),
        other => limitations.push(format!(
            "the API server's /version could not be read ({}): the recording stores no server version, so it is answered as its newest kubelet's release",
            match other {
                super::version::ServerVersion::LiveFailed(e) => e,
                _ => "no answer".into(),
            }
        )),
    }
    let mut summary = RecordSummary {
        context: live.context().to_string(),
        objects: rec.items().count(),
        limitations,
        ..Default::default()
    };
    let Some(duration) = options.duration else {
        write_snapshot(&options.output, rec.items(), &meta, options.force).map_err(io)?;
        return Ok(summary);
    };
    let started = Instant::now();
    let items: Vec<&Value> = rec.items().collect();
    let mut writer = TimelineWriter::create(
        &options.output,
        &meta,
        items.into_iter(),
        started,
        options.force,
    )
    .map_err(io)?;
    if let Some(note) = &options.progress {
        note(&format!(
            "listed {} objects; recording watch events to {} {}",
            summary.objects,
            options.output.display(),
            if duration.is_zero() {
                "until ctrl-c".to_string()
            } else {
                format!(
                    "for {} s (ctrl-c or SIGTERM stops early)",
                    duration.as_secs()
                )
            }
        ));
    }
    let until = (!duration.is_zero()).then(|| started + duration);
    while until.is_none_or(|u| Instant::now() < u) && !options.stop.load(Ordering::SeqCst) {
        match rx.recv_timeout(Duration::from_millis(50)) {
            Ok(ev) => {
                let at = ev.at;
                for change in rec.apply(ev) {
                    writer.write(at, &change).map_err(io)?;
                }
            }
            Err(RecvTimeoutError::Timeout) => {}
            Err(RecvTimeoutError::Disconnected) => break,
        }
        if rec.failed.is_some() {
            break;
        }
    }
    summary.events = writer.events;
    writer.finish(Instant::now()).map_err(io)?;
    summary.elapsed = started.elapsed();
    Ok(summary)
}
