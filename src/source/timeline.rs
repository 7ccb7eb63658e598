//! Replaying a recorded timeline (format in `record`): every object version
//! is converted into the model once, at load; the state at any moment is a
//! map from object to version, kept as periodic checkpoints so a seek only
//! replays the events since the nearest one, then assembles a [`Cluster`].

pub mod diff;

use std::io::Read;
use std::path::Path;

use rayon::prelude::*;
use rustc_hash::FxHashMap;
use serde::Deserialize;
use serde_json::value::RawValue;

pub use self::diff::{Diff, Move};

use super::build::{AnyObject, ClusterBuilder, ModelObject};
use super::file::{SourceError, read_bytes};
use super::live::kind::{Kind, object_key};
use super::record::TIMELINE_MARKER;
use crate::model::Cluster;
use crate::model::intern::Interner;

/// Which object (kind and key) an id stands for.
pub type ObjId = u32;
/// One converted version of an object.
pub type VersionId = u32;

/// The objects present at one moment, each at its version.
pub type ObjectSet = FxHashMap<ObjId, VersionId>;

/// Whether a file is a timeline (rather than a plain snapshot): its first
/// line is the timeline header.
pub fn is_timeline(path: &Path) -> bool {
    let Ok(file) = std::fs::File::open(path) else {
        return false;
    };
    let mut head = Vec::with_capacity(256);
    let mut magic = [0u8; 2];
    let mut reader: Box<dyn Read> = {
        let mut f = std::io::BufReader::new(file);
        use std::io::BufRead;
        let buf = f.fill_buf().map(|b| b.to_vec()).unwrap_or_default();
        magic.copy_from_slice(&[*buf.first().unwrap_or(&0), *buf.get(1).unwrap_or(&0)]);
        if magic == [0x1f, 0x8b] {
            Box::new(flate2::bufread::MultiGzDecoder::new(f))
        } else {
            Box::new(f)
        }
    };
    let _ = reader.by_ref().take(256).read_to_end(&mut head);
    is_timeline_bytes(&head)
}

/// Whether bytes already read (and decompressed) start with the timeline
/// header: a pipe is sniffed this way, after it was read once.
pub fn is_timeline_bytes(bytes: &[u8]) -> bool {
    let start = bytes
        .iter()
        .position(|b| !b.is_ascii_whitespace())
        .unwrap_or(bytes.len());
    bytes[start..].starts_with(format!("{{\"{TIMELINE_MARKER}\"").as_bytes())
}

/// What a file that is not a timeline is instead, when it is a snapshot
/// or a Kubernetes manifest ("a cluster snapshot", "a Pod manifest"); only
/// asked when the file failed to load as a timeline.
fn what_else(text: &str) -> Option<String> {
    #[derive(Deserialize)]
    struct Top {
        kind: Option<String>,
        items: Option<serde::de::IgnoredAny>,
    }
    let trimmed = text.trim_start();
    let (kind, snapshot) = if trimmed.starts_with('{') {
        // The first document (a snapshot is often pretty-printed JSON);
        // fields other than these two are skipped, not built.
        let mut stream = serde_json::Deserializer::from_str(trimmed).into_iter::<Top>();
        let top = stream.next()?.ok()?;
        let list = top.items.is_some() || top.kind.as_deref().is_some_and(|k| k.ends_with("List"));
        (top.kind, list || stream.next().is_some())
    } else {
        // YAML: only the top-level `kind:` and `items:` lines are looked at.
        let mut kinds = Vec::new();
        let mut items = false;
        for line in trimmed.lines().take(100_000) {
            if let Some(k) = line.strip_prefix("kind:") {
                kinds.push(k.trim().trim_matches(['"', '\'']).to_string());
            }
            items |= line.starts_with("items:");
            if kinds.len() > 1 {
                break;
            }
        }
        let list = items || kinds.first().is_some_and(|k| k.ends_with("List"));
        (kinds.first().cloned(), list || kinds.len() > 1)
    };
    match kind {
        _ if snapshot => Some("a cluster snapshot".to_string()),
        Some(k) if !k.is_empty() => Some(format!("a {k} manifest")),
        _ => None,
    }
}

/// The header line.
#[derive(Clone, Debug, Default, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Header {
    #[serde(default)]
    pub recorded_at: String,
    #[serde(default)]
    pub context: String,
    #[serde(default)]
    pub server: String,
    /// The API server's `gitVersion` when recording started, if it answered.
    #[serde(default)]
    pub server_version: Option<String>,
    #[serde(default)]
    pub initial_objects: usize,
    #[serde(default)]
    pub limitations: Vec<String>,
}

/// One recorded event, as replay needs it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Event {
    /// Milliseconds since the recording started.
    pub t: u64,
    pub obj: ObjId,
    /// The new version; `None` when the object was deleted.
    pub version: Option<VersionId>,
    /// Whether the object existed before (ADDED vs MODIFIED).
    pub existed: bool,
}

/// One converted object version (`None` when it failed to convert).
pub struct Version {
    pub obj: ObjId,
    pub model: Option<ModelObject>,
}

pub struct Timeline {
    pub header: Header,
    interner: Interner,
    /// Per object: its kind and `namespace/name`.
    keys: Vec<(Kind, String)>,
    /// Per object: its place in API list order, to assemble deterministically.
    rank: Vec<u32>,
    versions: Vec<Version>,
    initial: ObjectSet,
    events: Vec<Event>,
    /// `(n, set)`: the objects after the first `n` events.
    checkpoints: Vec<(usize, ObjectSet)>,
    /// When recording stopped (the END line, else the last event).
    pub end_ms: u64,
    /// `line N: why` for lines whose object failed to parse or convert.
    pub invalid: Vec<String>,
}

#[derive(Deserialize)]
struct Line<'a> {
    #[serde(default)]
    t: u64,
    #[serde(rename = "type")]
    type_: String,
    #[serde(borrow, default)]
    object: Option<&'a RawValue>,
}

#[derive(Deserialize)]
struct Peek {
    #[serde(default)]
    kind: String,
    #[serde(default)]
    metadata: PeekMeta,
}

#[derive(Default, Deserialize)]
struct PeekMeta {
    #[serde(default)]
    name: String,
    #[serde(default)]
    namespace: Option<String>,
}

/// A line parsed off the interner (in parallel).
struct ParsedLine {
    t: u64,
    type_: String,
    /// Kind, key and the typed object (or why it failed).
    object: Option<(Kind, String, Result<AnyObject, String>)>,
}

fn parse_line(line: &str) -> Result<ParsedLine, String> {
    let l: Line = serde_json::from_str(line).map_err(|e| e.to_string())?;
    let object = match l.object {
        None => None,
        Some(raw) => {
            let peek: Peek = serde_json::from_str(raw.get()).map_err(|e| e.to_string())?;
            match Kind::parse(&peek.kind) {
                None => None,
                Some(kind) => {
                    let key = object_key(peek.metadata.namespace.as_deref(), &peek.metadata.name);
                    Some((kind, key, AnyObject::parse(kind, raw.get())))
                }
            }
        }
    };
    Ok(ParsedLine {
        t: l.t,
        type_: l.type_,
        object,
    })
}

/// Lines parsed per parallel batch: bounds the typed objects alive at once.
const BATCH: usize = 4096;

impl Timeline {
    pub fn load(path: &Path) -> Result<Timeline, SourceError> {
        let bytes = read_bytes(path)?;
        Timeline::from_bytes(&bytes, &path.display().to_string())
    }

    pub fn from_bytes(bytes: &[u8], file: &str) -> Result<Timeline, SourceError> {
        let syntax = |line: usize, message: String| SourceError::Syntax {
            file: file.to_string(),
            line: Some(line),
            message,
        };
        let text = std::str::from_utf8(bytes).map_err(|e| syntax(1, e.to_string()))?;
        let mut lines = text
            .lines()
            .enumerate()
            .filter(|(_, l)| !l.trim().is_empty());
        let Some((_, first)) = lines.next() else {
            return Err(syntax(1, "empty timeline".into()));
        };
        let wrong_kind = || match what_else(text) {
            Some(what) => SourceError::WrongKind {
                file: file.to_string(),
                what,
                wanted: "a recorded timeline".into(),
                hint: "record one with `kplace record --duration`".into(),
            },
            None => syntax(1, format!("not a timeline (no {TIMELINE_MARKER} header)")),
        };
        let marker: serde_json::Value = match serde_json::from_str(first) {
            Ok(m) => m,
            Err(e) => {
                return Err(match what_else(text) {
                    Some(_) => wrong_kind(),
                    None => syntax(1, e.to_string()),
                });
            }
        };
        if marker.get(TIMELINE_MARKER).is_none() {
            return Err(wrong_kind());
        }
        let header: Header =
            serde_json::from_value(marker).map_err(|e| syntax(1, e.to_string()))?;
        let mut b = TimelineBuilder::default();
        let lines: Vec<(usize, &str)> = lines.collect();
        for batch in lines.chunks(BATCH) {
            let parsed: Vec<Result<ParsedLine, String>> =
                batch.par_iter().map(|(_, l)| parse_line(l)).collect();
            for ((n, _), p) in batch.iter().zip(parsed) {
                let p = p.map_err(|e| syntax(n + 1, e))?;
                b.line(n + 1, p, &header);
            }
        }
        Ok(b.finish(header))
    }

    /// Number of events after the initial state.
    pub fn len(&self) -> usize {
        self.events.len()
    }

    pub fn is_empty(&self) -> bool {
        self.events.is_empty()
    }

    pub fn events(&self) -> &[Event] {
        &self.events
    }

    /// The kind and `namespace/name` of an object.
    pub fn key(&self, obj: ObjId) -> (Kind, &str) {
        let (k, s) = &self.keys[obj as usize];
        (*k, s)
    }

    pub fn version(&self, v: VersionId) -> &Version {
        &self.versions[v as usize]
    }

    /// How many events happened at or before `t_ms`.
    pub fn events_until(&self, t_ms: u64) -> usize {
        self.events.partition_point(|e| e.t <= t_ms)
    }

    /// The objects after the first `n` events.
    pub fn objects_after(&self, n: usize) -> ObjectSet {
        let n = n.min(self.events.len());
        let i = self.checkpoints.partition_point(|(at, _)| *at <= n);
        let (start, mut set) = match i {
            0 => (0, self.initial.clone()),
            _ => {
                let (at, set) = &self.checkpoints[i - 1];
                (*at, set.clone())
            }
        };
        for e in &self.events[start..n] {
            apply(&mut set, e);
        }
        set
    }

    /// The cluster after the first `n` events.
    pub fn state_after(&self, n: usize) -> Cluster {
        self.assemble(&self.objects_after(n))
    }

    /// The cluster at `t_ms` milliseconds into the recording.
    pub fn state_at(&self, t_ms: u64) -> Cluster {
        self.state_after(self.events_until(t_ms))
    }

    /// Builds the cluster from an object set, in API list order.
    pub fn assemble(&self, set: &ObjectSet) -> Cluster {
        let mut entries: Vec<(u32, VersionId)> = set
            .iter()
            .map(|(&obj, &v)| (self.rank[obj as usize], v))
            .collect();
        entries.sort_unstable_by_key(|e| e.0);
        let mut b = ClusterBuilder::with_interner(self.interner.clone());
        for (_, v) in entries {
            if let Some(m) = &self.versions[v as usize].model {
                b.push(m.clone());
            }
        }
        let mut cluster = b.finish();
        cluster.recorded_server_version = self.header.server_version.clone();
        cluster
    }

    /// Pods added, removed and moved between two moments (in events).
    pub fn diff(&self, from: usize, to: usize) -> Diff {
        diff::diff(self, &self.objects_after(from), &self.objects_after(to))
    }
}

fn apply(set: &mut ObjectSet, e: &Event) {
    match e.version {
        Some(v) => {
            set.insert(e.obj, v);
        }
        None => {
            set.remove(&e.obj);
        }
    }
}

/// Accumulates lines into a timeline.
#[derive(Default)]
struct TimelineBuilder {
    interner: Interner,
    ids: FxHashMap<(Kind, String), ObjId>,
    keys: Vec<(Kind, String)>,
    versions: Vec<Version>,
    initial: ObjectSet,
    current: ObjectSet,
    events: Vec<Event>,
    seen_lines: usize,
    end_ms: u64,
    invalid: Vec<String>,
}

impl TimelineBuilder {
    fn line(&mut self, n: usize, p: ParsedLine, header: &Header) {
        let initial = self.seen_lines < header.initial_objects;
        self.seen_lines += 1;
        self.end_ms = self.end_ms.max(p.t);
        let Some((kind, key, typed)) = p.object else {
            return;
        };
        let obj = *self.ids.entry((kind, key.clone())).or_insert_with(|| {
            self.keys.push((kind, key));
            (self.keys.len() - 1) as ObjId
        });
        let existed = self.current.contains_key(&obj);
        let version = if p.type_ == "DELETED" {
            None
        } else {
            let model = typed
                .and_then(|t| t.to_model(&mut self.interner).map_err(|e| e.to_string()))
                .map_err(|e| self.invalid.push(format!("line {n}: {e}")))
                .ok();
            self.versions.push(Version { obj, model });
            Some((self.versions.len() - 1) as VersionId)
        };
        let event = Event {
            t: p.t,
            obj,
            version,
            existed,
        };
        apply(&mut self.current, &event);
        if initial {
            apply(&mut self.initial, &event);
        } else {
            self.events.push(event);
        }
    }

    fn finish(self, header: Header) -> Timeline {
        let mut order: Vec<ObjId> = (0..self.keys.len() as ObjId).collect();
        order.sort_by(|&a, &b| self.keys[a as usize].cmp(&self.keys[b as usize]));
        let mut rank = vec![0u32; self.keys.len()];
        for (r, &obj) in order.iter().enumerate() {
            rank[obj as usize] = r as u32;
        }
        // At most ~128 checkpoints, at least 1024 events apart.
        let every = (self.events.len() / 128).max(1024);
        let mut checkpoints = Vec::new();
        let mut set = self.initial.clone();
        for (i, e) in self.events.iter().enumerate() {
            apply(&mut set, e);
            if (i + 1) % every == 0 {
                checkpoints.push((i + 1, set.clone()));
            }
        }
        Timeline {
            header,
            interner: self.interner,
            keys: self.keys,
            rank,
            versions: self.versions,
            initial: self.initial,
            events: self.events,
            checkpoints,
            end_ms: self.end_ms,
            invalid: self.invalid,
        }
    }
}
