//! Snapshot files: `kubectl get ... -o yaml|json` output (a `List` or single
//! objects), multi-document YAML, a directory of such files, and `.gz` of any
//! of these.
//!
//! JSON is read item by item from borrowed raw slices, so a 150,000-pod
//! `List` never exists as a tree of `k8s-openapi` objects all at once: each
//! item is parsed, converted into the model, and dropped.

use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::time::{Duration, Instant};

use rayon::prelude::*;
use serde::Deserialize;
use serde::de::DeserializeOwned;
use serde_json::value::RawValue;
use thiserror::Error;

use super::build::{AnyObject, ClusterBuilder, ModelObject};
pub use super::mapped::FileBytes;
use super::record::ANNOTATION_SERVER_VERSION;
use crate::model::Cluster;
use crate::model::error::InvalidObject;
use crate::model::intern::Interner;
use crate::model::pod::Pod;
use crate::source::convert::lean_json;
use crate::source::convert::lean_node::LeanNode;
use crate::source::convert::lean_pod::LeanPod;
use crate::source::convert::{self, object_name};

mod pods_seen;
mod scan;

/// The YAML parser's own bound on scalar bytes (the input is already
/// bounded by the budget, [`super::budget::max_input`], when it is read).
const MAX_FILE_BYTES: u64 = 4 << 30;

#[derive(Debug, Error)]
pub enum SourceError {
    #[error("{file}: {message}")]
    Io { file: String, message: String },
    #[error("{file}{}: {message}", line.map(|l| format!(":{l}")).unwrap_or_default())]
    Syntax {
        file: String,
        line: Option<usize>,
        message: String,
    },
    #[error("{file}{}: {source}", line.map(|l| format!(":{l}")).unwrap_or_default())]
    Invalid {
        file: String,
        line: Option<usize>,
        source: InvalidObject,
    },
    /// A file of another kind than the command reads (a snapshot given to
    /// `verify`, a timeline given as a pod).
    #[error("{file} is {what}, not {wanted} ({hint})")]
    WrongKind {
        file: String,
        what: String,
        wanted: String,
        hint: String,
    },
    /// Over the input budget (`--max-input`), counted after decompression.
    #[error("{file}: too large (limit {}; use --max-input){}", super::budget::format_size(*.limit), context)]
    TooLarge {
        file: String,
        limit: u64,
        /// What else counted against the budget (a directory's earlier
        /// files), or empty.
        context: String,
    },
    #[error("{file}: the snapshot holds no Node and no Pod objects")]
    Empty { file: String },
    #[error(
        "{place}: {object} is defined twice (first at {first}); a cluster holds one (--allow-duplicates uses the later)"
    )]
    Duplicate {
        place: String,
        object: String,
        first: String,
    },
    /// A file named `.gz` that is not gzip, read as plain text, failed.
    #[error(
        "{source} ({file} is named .gz but is not gzip-compressed: it does not start with gzip's bytes 1f 8b, so it was read as plain text)"
    )]
    NotGzip {
        file: String,
        source: Box<SourceError>,
    },
}

/// How a snapshot is read.
#[derive(Clone, Copy, Debug, Default)]
pub struct LoadOptions {
    /// The same object twice: the later wins (and a note says so) instead
    /// of an error.
    pub allow_duplicates: bool,
}

/// How long each loading phase took.
#[derive(Clone, Copy, Debug, Default)]
pub struct LoadTimings {
    /// Reading, decompressing and parsing into `k8s-openapi` types.
    pub load: Duration,
    /// Converting into the engine model and building indexes.
    pub convert: Duration,
}

/// Objects converted so far (by the shared [`ClusterBuilder`]), the kinds
/// skipped, and the time spent.
#[derive(Default)]
struct Collector {
    builder: ClusterBuilder,
    skipped: std::collections::BTreeMap<String, usize>,
    timings: LoadTimings,
    /// [`ANNOTATION_SERVER_VERSION`] of a List `kplace record` wrote.
    server_version: Option<String>,
    options: LoadOptions,
    /// Files read so far (the last is the current one).
    files: Vec<String>,
    /// Where each object other than a pod was first seen, and its index
    /// in the builder.
    seen: std::collections::HashMap<IdentityKey, Seen, std::hash::BuildHasherDefault<KnownHash>>,
    /// The same for pods, without a key per pod.
    pods_seen: pods_seen::PodsSeen,
    /// What the reader decided on its own (duplicates it let through).
    notes: Vec<String>,
    /// Pods' requests by their resource fields' text.
    pod_memo: convert::PodMemo,
}

struct Seen {
    file: usize,
    at: PlaceKey,
    index: usize,
}

/// A [`Position`] without the bytes, to find a line again later.
#[derive(Clone, Copy)]
enum PlaceKey {
    Line(usize),
    YamlItem(usize, Option<usize>),
    Generated,
}

/// What names an object in errors. Any value is taken, so that an
/// object whose name or namespace has the wrong type is still named.
#[derive(Deserialize)]
struct Peek {
    #[serde(default)]
    kind: Option<serde_json::Value>,
    #[serde(default)]
    metadata: Option<serde_json::Value>,
}

/// Kinds that live in a namespace (`default` when the manifest names none).
const NAMESPACED_KINDS: [&str; 10] = [
    "Pod",
    "PodDisruptionBudget",
    "Service",
    "ReplicaSet",
    "StatefulSet",
    "ReplicationController",
    "Deployment",
    "PersistentVolumeClaim",
    "ResourceClaim",
    "ResourceClaimTemplate",
];

impl Peek {
    fn kind(&self) -> Option<&str> {
        self.kind.as_ref()?.as_str()
    }

    fn object(&self) -> String {
        use serde_json::Value;
        let kind = self.kind().unwrap_or("object");
        let field = |f: &str| self.metadata.as_ref().and_then(|m| m.get(f));
        let namespace = match field("namespace") {
            None | Some(Value::Null) => NAMESPACED_KINDS.contains(&kind).then_some("default"),
            // One of the wrong type (the error names it) is left out.
            Some(other) => other.as_str(),
        };
        let name = field("name").and_then(Value::as_str).unwrap_or("<unnamed>");
        object_name(kind, namespace, name)
    }
}

/// Where an item came from, for error messages.
struct Origin<'a> {
    file: &'a str,
    /// Where in the file's bytes; the line is only found when an error is
    /// reported.
    position: Position<'a>,
}

enum Position<'a> {
    /// A JSON item: its first line and the column it starts at (bytes
    /// before it on that line), counted before parsing (the bytes of items
    /// already parsed may be given back while the rest load).
    Line { line: usize, column: usize },
    /// A YAML item: its document and, in a `List`, its index in `items`.
    YamlItem(&'a [u8], usize, Option<usize>),
    /// A document kplace made (the pod of a workload): no line of its own.
    Generated(&'a [u8]),
}

impl<'a> Position<'a> {
    fn key(&self) -> PlaceKey {
        match *self {
            Position::Line { line, .. } => PlaceKey::Line(line),
            Position::YamlItem(_, d, i) => PlaceKey::YamlItem(d, i),
            Position::Generated(_) => PlaceKey::Generated,
        }
    }

    fn bytes(&self) -> &'a [u8] {
        match *self {
            Position::Line { .. } => &[],
            Position::YamlItem(b, _, _) | Position::Generated(b) => b,
        }
    }

    fn from_key(bytes: &'a [u8], key: PlaceKey) -> Self {
        match key {
            PlaceKey::Line(line) => Position::Line { line, column: 0 },
            PlaceKey::YamlItem(d, i) => Position::YamlItem(bytes, d, i),
            PlaceKey::Generated => Position::Generated(bytes),
        }
    }
}

impl Origin<'_> {
    /// `file:line` (or `file`).
    fn place(&self) -> String {
        match self.line() {
            Some(l) => format!("{}:{l}", self.file),
            None => self.file.to_string(),
        }
    }

    fn line(&self) -> Option<usize> {
        match self.position {
            Position::Line { line, .. } => Some(line),
            Position::YamlItem(bytes, doc, item) => yaml_line(bytes, doc, item),
            Position::Generated(_) => None,
        }
    }

    /// The line `field` (a converter's path) of this object is written on
    /// in a YAML file, else the object's own line.
    fn field_line(&self, field: &str) -> Option<usize> {
        match self.position {
            Position::YamlItem(bytes, doc, item) => {
                yaml_field_line(bytes, doc, item, field).or_else(|| self.line())
            }
            _ => self.line(),
        }
    }
}

/// The largest YAML file whose fields are located: locating builds a tree
/// of the whole file (about 100 bytes per value, so at most about 50 MB
/// for a hostile file of one-character values); a larger file's error
/// names the object's line, found by [`yaml_line`] without a tree.
pub(crate) const MAX_FIELD_LINE_BYTES: usize = 1 << 20;

/// The line of `field` of a YAML document or of one of a `List`'s items,
/// found as [`yaml_line`] finds the object's; `None` past
/// [`MAX_FIELD_LINE_BYTES`].
fn yaml_field_line(bytes: &[u8], doc: usize, item: Option<usize>, field: &str) -> Option<usize> {
    use super::field_line::{Tree, line_of};
    if bytes.len() > MAX_FIELD_LINE_BYTES {
        return None;
    }
    let docs: Vec<Option<serde_saphyr::Spanned<Tree>>> =
        serde_saphyr::from_slice_multiple_with_options(bytes, yaml_options()).ok()?;
    let d = docs.into_iter().flatten().nth(doc)?;
    let path = match item {
        None => field.to_string(),
        Some(i) => format!("items[{i}].{field}"),
    };
    Some(line_of(&d, &path)).filter(|&l| l > 0)
}

/// The line of a YAML document or of one of a `List`'s items, found by
/// parsing the file again with spans (only when reporting an error, so
/// loading pays nothing for it).
fn yaml_line(bytes: &[u8], doc: usize, item: Option<usize>) -> Option<usize> {
    use serde_saphyr::Spanned;
    #[derive(Deserialize)]
    struct Shape {
        items: Option<Vec<Spanned<serde::de::IgnoredAny>>>,
    }
    let Ok(docs) = serde_saphyr::from_slice_multiple_with_options::<Option<Spanned<Shape>>>(
        bytes,
        yaml_options(),
    ) else {
        // A document that is no mapping (a string, a list): its own line.
        let docs: Vec<Option<Spanned<serde::de::IgnoredAny>>> =
            serde_saphyr::from_slice_multiple_with_options(bytes, yaml_options()).ok()?;
        let at = docs.into_iter().flatten().nth(doc)?.defined;
        return Some(at.line() as usize).filter(|&l| l > 0 && item.is_none());
    };
    let d = docs.into_iter().flatten().nth(doc)?;
    let at = match item {
        None => &d.defined,
        Some(i) => &d.value.items.as_ref()?.get(i)?.defined,
    };
    Some(at.line() as usize).filter(|&l| l > 0)
}

impl Collector {
    fn invalid(&self, origin: &Origin, source: InvalidObject) -> SourceError {
        SourceError::Invalid {
            file: origin.file.to_string(),
            line: origin.field_line(&source.field),
            source,
        }
    }
}

/// A typed object, parsed but not yet converted into the model.
enum Parsed<'a> {
    Object(AnyObject),
    /// A pod from JSON, parsed lean (borrowing the file's bytes), with its
    /// item, parsed whole again if conversion refuses it.
    LeanPod(Box<LeanPod<'a>>, JsonText<'a>),
    /// A node from JSON, parsed lean, as a pod is.
    LeanNode(Box<LeanNode<'a>>, JsonText<'a>),
    /// A kind kplace does not use.
    Skipped(String),
}

/// One item of a snapshot, whichever format it came from.
trait ItemSource<'a>: Sync {
    fn parse<T: DeserializeOwned>(&self) -> Result<T, (String, String)>;
    /// The item's `kind`, found without parsing the whole item when possible.
    fn kind(&self) -> Option<String>;
    /// The item parsed lean by `parse` (a pod, a node), borrowing the
    /// item's bytes, and the item; `None` when the item is not JSON or the
    /// lean parse refuses it.
    fn lean<T>(&self, _parse: impl FnOnce(&'a str) -> Option<T>) -> Option<(T, JsonText<'a>)> {
        None
    }
    /// The item's syntax error, when nothing has checked its syntax yet
    /// (called before any other error is reported, as a parse of the whole
    /// file would have refused the file first).
    fn syntax_error(&self, _origin: &Origin) -> Option<SourceError> {
        None
    }
}

/// What the loader reads items from: parses one into its typed form.
/// Pure, so items parse in parallel.
trait Item<'a>: Sync {
    fn read(&self, origin: &Origin) -> Result<Parsed<'a>, SourceError>;
}

impl<'a> Item<'a> for ValueItem<'a> {
    fn read(&self, origin: &Origin) -> Result<Parsed<'a>, SourceError> {
        parse_item(self, origin)
    }
}

/// A JSON item's bytes, as found in the file. Those of a `List` found by
/// its structure alone ([`scan::array_items`]) are not checked yet, as
/// UTF-8 or as JSON: reading them checks them, on both cores.
struct JsonItem<'a> {
    bytes: &'a [u8],
    /// Where the item starts in the file (for the UTF-8 error's index).
    offset: usize,
    /// serde_json read the item whole when finding it.
    checked: bool,
    /// The scan found every byte of the item ASCII ([`scan::Elements`]),
    /// so it is UTF-8 without checking it again (about 2% of a large
    /// snapshot's load).
    ascii: bool,
}

impl<'a> Item<'a> for JsonItem<'a> {
    fn read(&self, origin: &Origin) -> Result<Parsed<'a>, SourceError> {
        let text = if self.ascii {
            debug_assert!(self.bytes.is_ascii());
            // SAFETY: every byte is below 0x80 (the scan checked them, and
            // its tests hold the mark to `is_ascii`), and ASCII is UTF-8.
            unsafe { std::str::from_utf8_unchecked(self.bytes) }
        } else {
            std::str::from_utf8(self.bytes).map_err(|e| SourceError::Syntax {
                file: origin.file.to_string(),
                line: origin
                    .line()
                    .map(|l| l + newlines(&self.bytes[..e.valid_up_to()])),
                message: format!("not UTF-8: {}", utf8_message(&e, self.offset)),
            })?
        };
        let checked = self.checked;
        parse_item(&JsonText { text, checked }, origin)
    }
}

/// std's message for a UTF-8 error, with the index in the whole file
/// (what checking the whole file at once says).
fn utf8_message(e: &std::str::Utf8Error, offset: usize) -> String {
    let index = offset + e.valid_up_to();
    match e.error_len() {
        Some(n) => format!("invalid utf-8 sequence of {n} bytes from index {index}"),
        None => format!("incomplete utf-8 byte sequence from index {index}"),
    }
}

/// A JSON item's text.
#[derive(Clone, Copy)]
struct JsonText<'a> {
    text: &'a str,
    /// Its syntax is known good (serde_json read it whole when finding it,
    /// or a parse of it has succeeded).
    checked: bool,
}

impl<'a> ItemSource<'a> for JsonText<'a> {
    /// Parses with the lean JSON reader (serde_json where it gives up),
    /// without path tracking; only on failure parses again with
    /// `serde_path_to_error` to name the field.
    fn parse<T: DeserializeOwned>(&self) -> Result<T, (String, String)> {
        if let Some(v) = lean_json::from_str(self.text) {
            return Ok(v);
        }
        if let Ok(v) = serde_json::from_str(self.text) {
            return Ok(v);
        }
        let mut de = serde_json::Deserializer::from_str(self.text);
        serde_path_to_error::deserialize(&mut de).map_err(|e| {
            let path = e.path().to_string();
            (path, e.into_inner().to_string())
        })
    }

    fn kind(&self) -> Option<String> {
        match scan::top_level_string(self.text.as_bytes(), b"kind") {
            scan::Found::Value(kind) => Some(kind),
            scan::Found::Absent => None,
            scan::Found::Unsure => self
                .parse::<Peek>()
                .ok()
                .and_then(|p| p.kind().map(str::to_string)),
        }
    }

    fn lean<T>(&self, parse: impl FnOnce(&'a str) -> Option<T>) -> Option<(T, JsonText<'a>)> {
        // An item a lean parse read is well-formed JSON.
        let checked = JsonText {
            text: self.text,
            checked: true,
        };
        parse(self.text).map(|object| (object, checked))
    }

    fn syntax_error(&self, origin: &Origin) -> Option<SourceError> {
        if self.checked {
            return None;
        }
        let e = serde_json::from_str::<serde::de::IgnoredAny>(self.text).err()?;
        Some(item_syntax_error(origin, &e))
    }
}

/// serde_json's error in an item read alone, as a parse of the whole file
/// reports it: at the file's line and column.
fn item_syntax_error(origin: &Origin, e: &serde_json::Error) -> SourceError {
    let text = e.to_string();
    let what = split_place(&text).map_or(text.as_str(), |(what, _, _)| what);
    let (line, column) = file_position(origin, e.line(), e.column());
    SourceError::Syntax {
        file: origin.file.to_string(),
        line: Some(line),
        message: format!("{what} at line {line} column {column}"),
    }
}

/// serde_json's message split from its place (`… at line L column C`).
fn split_place(message: &str) -> Option<(&str, usize, usize)> {
    let (what, at) = message.rsplit_once(" at line ")?;
    let (line, column) = at.split_once(" column ")?;
    Some((what, line.parse().ok()?, column.parse().ok()?))
}

/// A line and column in a JSON item read alone, in the file (the item's
/// first line starts `column` bytes after the line's start).
fn file_position(origin: &Origin, line: usize, column: usize) -> (usize, usize) {
    let (start, start_column) = match origin.position {
        Position::Line { line, column } => (line, column),
        _ => (1, 0),
    };
    let file_line = start + line.saturating_sub(1);
    let file_column = if line <= 1 {
        start_column + column
    } else {
        column
    };
    (file_line, file_column)
}

/// serde_json's message about an item read alone (`… at line L column
/// C`), with the place in the file's lines and columns instead. Messages
/// without a place, and items of other sources, are left as they are.
fn in_file(message: &str, origin: &Origin) -> String {
    match (split_place(message), &origin.position) {
        (Some((what, line, column)), Position::Line { .. }) => {
            let (line, column) = file_position(origin, line, column);
            format!("{what} at line {line} column {column}")
        }
        _ => message.to_string(),
    }
}

struct ValueItem<'a>(&'a serde_json::Value);

impl ItemSource<'_> for ValueItem<'_> {
    fn parse<T: DeserializeOwned>(&self) -> Result<T, (String, String)> {
        if let Ok(v) = T::deserialize(self.0) {
            return Ok(v);
        }
        serde_path_to_error::deserialize(self.0).map_err(|e| {
            let path = e.path().to_string();
            (path, e.into_inner().to_string())
        })
    }

    fn kind(&self) -> Option<String> {
        self.0
            .get("kind")
            .and_then(|k| k.as_str())
            .map(str::to_string)
    }
}

/// `Kind namespace/name` of an item, for error messages (parses the item again).
fn object_of<'a>(item: &impl ItemSource<'a>) -> String {
    item.parse::<Peek>()
        .map(|p| p.object())
        .unwrap_or_else(|_| "object".to_string())
}

/// What an item that is not a mapping is (`a string`, `a list`…), for
/// an error that says so instead of asking for its `kind`. Parses the item
/// again: only on the error path.
fn not_an_object<'a>(item: &impl ItemSource<'a>) -> Option<&'static str> {
    use serde_json::Value;
    match item.parse::<Value>().ok()? {
        Value::Object(_) => None,
        Value::Null => Some("empty (null)"),
        Value::Bool(_) => Some("a boolean"),
        Value::Number(_) => Some("a number"),
        Value::String(_) => Some("a string"),
        Value::Array(_) => Some("a list"),
    }
}

/// Parses one item into its typed form. Pure, so items parse in parallel.
fn parse_item<'a>(item: &impl ItemSource<'a>, origin: &Origin) -> Result<Parsed<'a>, SourceError> {
    let Some(kind) = item.kind() else {
        if let Some(e) = item.syntax_error(origin) {
            return Err(e);
        }
        return Err(SourceError::Syntax {
            file: origin.file.to_string(),
            line: origin.line(),
            message: match not_an_object(item) {
                Some(shape) => format!(
                    "the item is {shape}, not a Kubernetes object (a mapping with apiVersion, kind and metadata)"
                ),
                None => format!("{}: kind: Required value", object_of(item)),
            },
        });
    };
    match kind.as_str() {
        "Node" => match item.lean(LeanNode::parse) {
            Some((node, item)) => Ok(Parsed::LeanNode(Box::new(node), item)),
            None => typed(item, origin, AnyObject::Node),
        },
        "Pod" => match item.lean(LeanPod::parse) {
            Some((pod, item)) => Ok(Parsed::LeanPod(Box::new(pod), item)),
            None => typed(item, origin, AnyObject::Pod),
        },
        "PriorityClass" => typed(item, origin, AnyObject::PriorityClass),
        "PodDisruptionBudget" => typed(item, origin, AnyObject::Pdb),
        "Service" => typed(item, origin, AnyObject::Service),
        "ReplicationController" => typed(item, origin, AnyObject::ReplicationController),
        // Read lean, without the pod template conversion never reads.
        "ReplicaSet" => match item.lean(convert::lean_replica_set::parse) {
            Some((rs, _)) => Ok(Parsed::Object(AnyObject::ReplicaSet(Box::new(rs)))),
            None => typed(item, origin, AnyObject::ReplicaSet),
        },
        "StatefulSet" => typed(item, origin, AnyObject::StatefulSet),
        "Namespace" => typed(item, origin, AnyObject::Namespace),
        "StorageClass" => typed(item, origin, AnyObject::StorageClass),
        "PersistentVolume" => typed(item, origin, AnyObject::PersistentVolume),
        "PersistentVolumeClaim" => typed(item, origin, AnyObject::PersistentVolumeClaim),
        "CSINode" => typed(item, origin, AnyObject::CsiNode),
        "DeviceClass" => typed(item, origin, AnyObject::DeviceClass),
        "ResourceSlice" => typed(item, origin, AnyObject::ResourceSlice),
        "ResourceClaim" => typed(item, origin, AnyObject::ResourceClaim),
        "ResourceClaimTemplate" => typed(item, origin, AnyObject::ResourceClaimTemplate),
        _ => {
            // No parse reads these: their syntax is checked alone.
            if let Some(e) = item.syntax_error(origin) {
                return Err(e);
            }
            if kind.is_empty() {
                return Err(SourceError::Syntax {
                    file: origin.file.to_string(),
                    line: origin.line(),
                    message: format!("{}: kind: Required value", object_of(item)),
                });
            }
            Ok(Parsed::Skipped(kind))
        }
    }
}

/// Parses an item whole into its `k8s-openapi` type.
fn typed<'a, T: DeserializeOwned>(
    item: &impl ItemSource<'a>,
    origin: &Origin,
    wrap: fn(Box<T>) -> AnyObject,
) -> Result<Parsed<'a>, SourceError> {
    item.parse::<T>()
        .map(|v| Parsed::Object(wrap(Box::new(v))))
        .map_err(|(field, message)| {
            item.syntax_error(origin)
                .unwrap_or_else(|| SourceError::Invalid {
                    file: origin.file.to_string(),
                    line: origin.field_line(&field),
                    source: InvalidObject::new(&object_of(item), field, in_file(&message, origin)),
                })
        })
}

/// Kind, namespace and name as one key (one allocation per object), with
/// its hash computed once: the map rehashes every key each time it grows,
/// and reading 170,000 scattered strings again was a sixth of converting.
/// The length prefix keeps `a`+`bc` apart from `ab`+`c`.
struct IdentityKey {
    hash: u64,
    kind: &'static str,
    key: Box<str>,
}

impl IdentityKey {
    fn new(kind: &'static str, ns: &str, name: &str) -> Self {
        // Sized exactly: a key with room to spare was shrunk again (a
        // reallocation per object) when boxed.
        let digits = ns.len().checked_ilog10().unwrap_or(0) as usize + 1;
        let mut key = String::with_capacity(digits + 1 + ns.len() + name.len());
        push_decimal(&mut key, ns.len());
        key.push(':');
        key.push_str(ns);
        key.push_str(name);
        let hash = {
            use std::hash::{BuildHasher, Hash, Hasher};
            let mut h = rustc_hash::FxBuildHasher.build_hasher();
            kind.hash(&mut h);
            key.hash(&mut h);
            h.finish()
        };
        IdentityKey {
            hash,
            kind,
            key: key.into_boxed_str(),
        }
    }
}

impl PartialEq for IdentityKey {
    fn eq(&self, other: &Self) -> bool {
        self.hash == other.hash && self.kind == other.kind && self.key == other.key
    }
}

impl Eq for IdentityKey {}

impl std::hash::Hash for IdentityKey {
    fn hash<H: std::hash::Hasher>(&self, state: &mut H) {
        state.write_u64(self.hash);
    }
}

/// `n` in decimal, without the formatting machinery (once per object).
fn push_decimal(out: &mut String, n: usize) {
    if n >= 10 {
        push_decimal(out, n / 10);
    }
    out.push(char::from(b'0' + (n % 10) as u8));
}

/// Hashes an [`IdentityKey`] by the hash it carries.
#[derive(Default)]
struct KnownHash(u64);

impl std::hash::Hasher for KnownHash {
    fn finish(&self) -> u64 {
        self.0
    }
    fn write(&mut self, _: &[u8]) {
        unreachable!("an IdentityKey hashes as one u64")
    }
    fn write_u64(&mut self, hash: u64) {
        self.0 = hash;
    }
}

/// Items parsed per parallel batch: bounds how many typed objects exist at
/// once. Two batches are alive while one converts and the next parses,
/// beside the file and the growing model: on the 5,000-node synthetic
/// cluster `place` peaked at 366-379 MB with 4,096, 298-305 MB with 256
/// (no slower); 64 saved 5 MB more but loaded slower (README, #15).
const BATCH: usize = 256;

/// One batch's parse results, in item order.
type ParsedBatch<'a> = Vec<Result<Parsed<'a>, SourceError>>;

impl Collector {
    /// Parses items in parallel batches and converts each batch in order.
    /// Converting needs the one interner, so it is serial; it runs while the
    /// next batch is parsed on the other workers.
    /// `done_with(n)` is called once the items before `n` are converted
    /// (their bytes are not read again: a lean pod borrows its strings from
    /// them until then).
    fn ingest_items<'o, 'a, I: Item<'a>>(
        &mut self,
        items: &[I],
        origin_of: impl Fn(usize) -> Origin<'o> + Sync,
        done_with: impl FnMut(usize) + Send,
    ) -> Result<(), SourceError> {
        self.ingest_items_prepared(items, |_| {}, origin_of, done_with)
    }

    /// [`Collector::ingest_items`], calling `prepare` with each batch's
    /// item range, in order, before the batch is parsed (and before
    /// `origin_of` is asked about its items).
    fn ingest_items_prepared<'o, 'a, I: Item<'a>>(
        &mut self,
        items: &[I],
        prepare: impl Fn(std::ops::Range<usize>) + Sync,
        origin_of: impl Fn(usize) -> Origin<'o> + Sync,
        done_with: impl FnMut(usize) + Send,
    ) -> Result<(), SourceError> {
        // Driven from a loading worker, not from the caller's thread: a
        // join asked from outside the pool is queued, and the caller
        // sleeps until a worker wakes to take it, once per batch (about
        // 600 times on the synthetic cluster). Driven from inside, load +
        // convert fell from a median 547 ms to 505 ms (eight interleaved
        // runs each), and its CPU time from 960 ms to 926 ms.
        rayon::scope(|_| self.ingest_batches(items, &prepare, &origin_of, done_with))
    }

    /// [`Collector::ingest_items_prepared`] on a loading worker.
    fn ingest_batches<'o, 'a, I: Item<'a>>(
        &mut self,
        items: &[I],
        prepare: impl Fn(std::ops::Range<usize>) + Sync,
        origin_of: impl Fn(usize) -> Origin<'o> + Sync,
        mut done_with: impl FnMut(usize) + Send,
    ) -> Result<(), SourceError> {
        // Room for every item's slot up front. Not for `seen`: a map sized
        // for every item up front (~20 MB for 170,000) is touched at once,
        // beside the whole file; grown as objects come, it reaches that size
        // only once most of the file's pages are given back. Pods' own check
        // writes only a byte per slot up front (~260 KB for 170,000).
        self.builder.reserve(items.len());
        self.pods_seen.reserve(items.len());
        let parse = |b: usize| -> Option<ParsedBatch<'a>> {
            let base = b * BATCH;
            if base >= items.len() {
                return None;
            }
            let end = items.len().min(base + BATCH);
            prepare(base..end);
            let batch = &items[base..end];
            Some(
                batch
                    .par_iter()
                    .enumerate()
                    .map(|(i, item)| item.read(&origin_of(base + i)))
                    .collect(),
            )
        };
        let started = Instant::now();
        let mut next = parse(0);
        self.timings.load += started.elapsed();
        let mut b = 0;
        let mut spent: Vec<Parsed<'a>> = Vec::new();
        while let Some(parsed) = next.take() {
            let base = b * BATCH;
            let started = Instant::now();
            // (Dropping reads none of the file's bytes the pods borrow.)
            let dropping = std::mem::take(&mut spent);
            let done_with = &mut done_with;
            let (following, converted) = rayon::join(
                // The batches before this one are converted: their bytes
                // are given back, and the batch converted last is dropped,
                // beside the parse, off the serial conversion.
                || {
                    done_with(base);
                    drop(dropping);
                    parse(b + 1)
                },
                || {
                    let converting = Instant::now();
                    let converted = self.convert_batch(parsed, |i| origin_of(base + i));
                    (converted, converting.elapsed())
                },
            );
            let (converted, converting) = converted;
            // The overlapped step counts as converting (the serial path),
            // and as loading only where parsing took longer.
            let step = started.elapsed();
            self.timings.convert += converting;
            self.timings.load += step.saturating_sub(converting);
            spent = converted?;
            next = following;
            b += 1;
        }
        Ok(())
    }

    /// Converts one parsed batch in order, and hands the spent objects
    /// back to be dropped beside the next parse. Conversion is the serial
    /// path: since the lean JSON reader made parsing cheaper, dropping there
    /// instead took load + convert from a median 0.60 s to 0.58 s (six
    /// interleaved runs; when parsing was the longer side, dropping beside
    /// it cost more than it saved, README, #15).
    fn convert_batch<'o, 'a>(
        &mut self,
        parsed: ParsedBatch<'a>,
        origin_of: impl Fn(usize) -> Origin<'o>,
    ) -> Result<Vec<Parsed<'a>>, SourceError> {
        let mut spent = Vec::with_capacity(parsed.len());
        for (i, p) in parsed.into_iter().enumerate() {
            let p = p?;
            self.convert(&p, &origin_of(i))?;
            spent.push(p);
        }
        Ok(spent)
    }

    /// Converts one typed object into the model.
    fn convert(&mut self, parsed: &Parsed, origin: &Origin) -> Result<(), SourceError> {
        match parsed {
            Parsed::Object(_) | Parsed::LeanPod(..) | Parsed::LeanNode(..) => {
                let (kind, ns, name) = match parsed {
                    Parsed::LeanPod(pod, _) => pod.identity(),
                    Parsed::LeanNode(node, _) => node.identity(),
                    Parsed::Object(o) => o.identity(),
                    Parsed::Skipped(_) => unreachable!("matched above"),
                };
                let b = &mut self.builder;
                // A lean object conversion refuses is parsed whole and
                // converted again, for the error (or answer) the whole
                // object gives.
                let model = match parsed {
                    Parsed::LeanPod(pod, item) => {
                        let memo = &mut self.pod_memo;
                        match convert::convert_pod_memo(pod.as_ref(), &mut b.interner, memo) {
                            Ok(pod) => ModelObject::Pod(Arc::new(pod)),
                            Err(_) => {
                                let whole = typed(item, origin, AnyObject::Pod)?;
                                return self.convert(&whole, origin);
                            }
                        }
                    }
                    Parsed::LeanNode(node, item) => {
                        let checked = self.pod_memo.checked_labels();
                        match convert::convert_node_checked(node.as_ref(), &mut b.interner, checked)
                        {
                            Ok(node) => ModelObject::Node(node),
                            Err(_) => {
                                let whole = typed(item, origin, AnyObject::Node)?;
                                return self.convert(&whole, origin);
                            }
                        }
                    }
                    Parsed::Object(o) => o
                        .to_model(&mut b.interner)
                        .map_err(|e| self.invalid(origin, e))?,
                    Parsed::Skipped(_) => unreachable!("matched above"),
                };
                if name.is_empty() {
                    self.builder.push(model);
                    return Ok(());
                }
                let file = self.files.len().saturating_sub(1);
                let at = origin.position.key();
                // One lookup for an object seen first (all but duplicates).
                let (key, seen) = if let ModelObject::Pod(pod) = &model {
                    let hash = pods_seen::identity_hash(pod.namespace, &pod.name);
                    let builder = &self.builder;
                    match self.pods_seen.earlier(hash, pod, |i| builder.pod_at(i)) {
                        None => {
                            let index = self.builder.push_at(model, None);
                            self.pods_seen.add(hash, index, file, at);
                            return Ok(());
                        }
                        Some(s) => (
                            None,
                            Seen {
                                file: s.file,
                                at: s.at,
                                index: s.index,
                            },
                        ),
                    }
                } else {
                    match self.seen.entry(IdentityKey::new(kind, ns, name)) {
                        std::collections::hash_map::Entry::Vacant(slot) => {
                            let index = self.builder.push_at(model, None);
                            slot.insert(Seen { file, at, index });
                            return Ok(());
                        }
                        std::collections::hash_map::Entry::Occupied(e) => {
                            let (key, seen) = e.remove_entry();
                            (Some(key), seen)
                        }
                    }
                };
                let object = object_name(kind, (!ns.is_empty()).then_some(ns), name);
                let first = self.place_of(&seen, origin);
                if !self.options.allow_duplicates {
                    return Err(SourceError::Duplicate {
                        place: origin.place(),
                        object,
                        first,
                    });
                }
                const MAX_NOTES: usize = 20;
                if self.notes.len() < MAX_NOTES {
                    self.notes.push(format!(
                        "{object} is defined twice ({first} and {}); the later is used",
                        origin.place()
                    ));
                } else if self.notes.len() == MAX_NOTES {
                    self.notes
                        .push("more objects are defined twice; the later of each is used".into());
                }
                let index = self.builder.push_at(model, Some(seen.index));
                match key {
                    Some(key) => {
                        self.seen.insert(key, Seen { file, at, index });
                    }
                    None => self.pods_seen.replaced(index, file, at),
                }
            }
            Parsed::Skipped(kind) => *self.skipped.entry(kind.clone()).or_default() += 1,
        }
        Ok(())
    }

    /// `file:line` of an object seen earlier (reading its file again if it
    /// was another one: only when reporting).
    fn place_of(&self, seen: &Seen, current: &Origin) -> String {
        let file = self
            .files
            .get(seen.file)
            .map(String::as_str)
            .unwrap_or(current.file);
        let line = if file == current.file {
            Origin {
                file,
                position: Position::from_key(current.position.bytes(), seen.at),
            }
            .line()
        } else {
            read_bytes(Path::new(file)).ok().and_then(|bytes| {
                Origin {
                    file,
                    position: Position::from_key(&bytes, seen.at),
                }
                .line()
            })
        };
        match line {
            Some(l) => format!("{file}:{l}"),
            None => file.to_string(),
        }
    }

    fn finish(self, file: &str) -> Result<(Cluster, LoadTimings), SourceError> {
        if self.builder.has_no_nodes_or_pods() {
            return Err(SourceError::Empty {
                file: file.to_string(),
            });
        }
        let started = Instant::now();
        // The duplicate check is freed on an idle loading worker while the
        // cluster is built: freed here, after it, its keys (one per object,
        // before pods had a check of their own) held the first answer for
        // 10-13 ms on the synthetic cluster.
        let seen = (self.seen, self.pods_seen);
        rayon::spawn(move || drop(seen));
        let mut cluster = self.builder.finish();
        cluster.skipped_kinds = self.skipped;
        cluster.recorded_server_version = self.server_version;
        let mut timings = self.timings;
        timings.convert += started.elapsed();
        Ok((cluster, timings))
    }
}

/// A note on pods bound to nodes the snapshot does not hold (a partial
/// `kubectl get`, a node deleted since): they are neither pending nor
/// counted on any node, which can make answers look better than they are.
pub fn absent_nodes_note(cluster: &Cluster) -> Option<String> {
    const SHOWN: usize = 3;
    let mut found = cluster
        .pods
        .iter()
        .enumerate()
        .filter_map(|(i, p)| cluster.absent_node_of(p).map(|n| (i, n)));
    let first: Vec<String> = found
        .by_ref()
        .take(SHOWN)
        .map(|(i, n)| format!("{} on {n}", cluster.pod_key(i as crate::model::PodId)))
        .collect();
    if first.is_empty() {
        return None;
    }
    let total = first.len() + found.count();
    let more = if total > SHOWN {
        format!(" and {} more", total - SHOWN)
    } else {
        String::new()
    };
    Some(format!(
        "{total} pod{} bound to nodes not in the snapshot ({}{more}): not pending, and their requests count on no node",
        if total == 1 { " is" } else { "s are" },
        first.join(", ")
    ))
}

fn io_error(path: &Path, e: impl std::fmt::Display) -> SourceError {
    SourceError::Io {
        file: path.display().to_string(),
        message: e.to_string(),
    }
}

/// Reads a file, a pipe or a device once, decompressing gzip (by its magic
/// bytes), refusing it as soon as it passes the input budget
/// ([`super::budget::max_input`], `--max-input`).
pub fn read_bytes(path: &Path) -> Result<FileBytes, SourceError> {
    read_bytes_within(
        path,
        super::budget::max_input(),
        super::budget::max_input(),
        "",
    )
}

/// [`read_bytes`] with `allowed` bytes left of a budget of `limit` (a
/// directory's files share one); `context` says what used the rest.
fn read_bytes_within(
    path: &Path,
    allowed: u64,
    limit: u64,
    context: &str,
) -> Result<FileBytes, SourceError> {
    use super::budget::{ReadError, read_limited};
    read_limited(path, allowed).map_err(|e| match e {
        ReadError::TooLarge { .. } => SourceError::TooLarge {
            file: path.display().to_string(),
            limit,
            context: context.to_string(),
        },
        ReadError::Gzip(e) => io_error(path, format!("not a valid gzip file: {e}")),
        ReadError::Io(e) => io_error(path, e),
    })
}

fn line_of(bytes: &[u8], offset: usize) -> usize {
    newlines(&bytes[..offset.min(bytes.len())]) + 1
}

#[derive(Deserialize)]
struct JsonEnvelope<'a> {
    kind: Option<String>,
    #[serde(borrow)]
    items: Option<Vec<&'a RawValue>>,
    /// A List's metadata: only what `kplace record` writes is read.
    #[serde(default)]
    metadata: Option<serde_json::Value>,
}

/// A `List`'s document with its items left out (`"items": []`).
#[derive(Deserialize)]
struct ListEnvelope {
    kind: Option<String>,
    items: Option<Vec<serde::de::IgnoredAny>>,
    #[serde(default)]
    metadata: Option<serde_json::Value>,
}

/// From this many bytes on, a `List`'s items are found on both cores: the
/// structural scan of the 237 MB synthetic cluster takes about 45 ms on
/// one core.
const SPLIT_ITEMS_FROM: usize = 4 << 20;

/// The items of a file that is one `List` of objects (and the server
/// version it records), found by their structure alone
/// ([`scan::array_items`]) on both cores; `None` for anything else
/// (several documents, single objects, items that are not objects, what
/// lies between items not being JSON): the one-pass read then gives the
/// items, or serde_json's error for the whole file. The rest of the
/// document is read by serde_json here, and every item when it is parsed
/// (the first that does not read gives the whole file's error), so a file
/// accepted here is exactly a file that read accepts, with the same items.
///
/// The items are not checked as UTF-8 here either: each is as it is read
/// (on both cores), unless the scan found it all ASCII. The rest of the
/// document is; when it is not UTF-8 the answer is `None`, and the
/// one-pass read's check names the first bad byte.
fn list_items(bytes: &[u8]) -> Option<(scan::Elements<'_>, Option<String>)> {
    let open = scan::top_level_value(bytes, b"items")?;
    let found = scan::array_items(bytes, open, SPLIT_ITEMS_FROM)?;
    let head = std::str::from_utf8(&bytes[..=open]).ok()?;
    let tail = std::str::from_utf8(&bytes[found.close..]).ok()?;
    let mut envelope = String::with_capacity(head.len() + tail.len());
    envelope.push_str(head);
    envelope.push_str(tail);
    let env: ListEnvelope = serde_json::from_str(&envelope).ok()?;
    let is_list = env.kind.as_deref().is_some_and(|k| k.ends_with("List"));
    // The array left out is the one serde_json reads as `items`.
    let left_out = env.items.is_some_and(|items| items.is_empty());
    (is_list && left_out).then(|| (found.elements, recorded_version(env.metadata.as_ref())))
}

/// The server version `kplace record` stored in a List's annotations.
fn recorded_version(list_metadata: Option<&serde_json::Value>) -> Option<String> {
    list_metadata?
        .get("annotations")?
        .get(ANNOTATION_SERVER_VERSION)?
        .as_str()
        .map(str::to_string)
}

/// How many bytes of a file a load gives back at once, at least: giving
/// back each 256-item batch's (about 400 KB) took load + convert to a
/// median 502 ms on the synthetic cluster, 2 MiB steps to 488 ms (twelve
/// interleaved runs each; CPU time 928 against 903 ms). The file's pages
/// held meanwhile are a few megabytes beside a 260 MB peak.
const GIVE_BACK_STEP: usize = 2 << 20;

/// JSON: one pass splits the documents (a `List` into its items), then the
/// items are parsed in parallel.
/// With `give_back`, the bytes of items already parsed are returned to the
/// system while the rest load: the caller read them for this load alone
/// and never reads them again.
fn ingest_json(
    c: &mut Collector,
    bytes: &[u8],
    file: &str,
    give_back: bool,
) -> Result<(), SourceError> {
    let started = Instant::now();
    let syntax = |e: serde_json::Error| SourceError::Syntax {
        file: file.to_string(),
        line: Some(e.line()),
        message: e.to_string(),
    };
    // Each item, whether serde_json read it whole when finding it, and
    // what the scan found: whether it is all ASCII, the newlines before it.
    let (items, checked, ascii, scanned_lines): (Vec<&[u8]>, bool, Vec<bool>, Vec<scan::Lines>) =
        match list_items(bytes) {
            Some((found, version)) => {
                if let Some(v) = version {
                    c.server_version = Some(v);
                }
                (found.items, false, found.ascii, found.lines)
            }
            None => {
                let text = std::str::from_utf8(bytes).map_err(|e| SourceError::Syntax {
                    file: file.to_string(),
                    line: Some(line_of(bytes, e.valid_up_to())),
                    message: format!("not UTF-8: {e}"),
                })?;
                // An array is not an object: serde would read it as a
                // struct's fields in order and ask for a string.
                if text.trim_start().starts_with('[') {
                    return Err(SourceError::Syntax {
                        file: file.to_string(),
                        line: Some(line_of(bytes, text.len() - text.trim_start().len())),
                        message: "a JSON array at the top level is not a snapshot: give a List \
                                  (`{\"kind\": \"List\", \"items\": [...]}`, as `kubectl get -o json` \
                                  writes it), or the objects one after another"
                            .to_string(),
                    });
                }
                let mut stream =
                    serde_json::Deserializer::from_str(text).into_iter::<JsonEnvelope>();
                let mut items: Vec<&RawValue> = Vec::new();
                let mut docs: Vec<&str> = Vec::new();
                let mut doc_start = 0;
                while let Some(env) = stream.next() {
                    let env = env.map_err(syntax)?;
                    let doc_end = stream.byte_offset();
                    match (env.kind.as_deref(), env.items) {
                        (Some(k), Some(list)) if k.ends_with("List") => {
                            if let Some(v) = recorded_version(env.metadata.as_ref()) {
                                c.server_version = Some(v);
                            }
                            items.extend(list)
                        }
                        _ => docs.push(&text[doc_start..doc_end]),
                    }
                    doc_start = doc_end;
                }
                // Single objects: parse each document again as one item.
                for doc in docs {
                    let raw: &RawValue = serde_json::from_str(doc.trim()).map_err(syntax)?;
                    items.push(raw);
                }
                let items = items.into_iter().map(|r| r.get().as_bytes()).collect();
                (items, true, Vec::new(), Vec::new())
            }
        };
    let offset = |item: &[u8]| item.as_ptr() as usize - bytes.as_ptr() as usize;
    let offsets: Vec<usize> = items.iter().map(|&r| offset(r)).collect();
    let in_order = offsets.is_sorted();
    // Each item's first line. A `List`'s items the scan found come with
    // the newlines before them; others in file order are counted a batch
    // at a time, just before the batch parses, while the batch before it
    // converts (the bytes are given back only behind both); otherwise all
    // at once first.
    // Their columns too: errors found in an item read alone are placed in
    // the file's lines and columns.
    let from_scan = !offsets.is_empty() && scanned_lines.len() == offsets.len();
    let (lines, columns): (Vec<AtomicUsize>, Vec<AtomicUsize>) = if from_scan {
        let first = offsets[0];
        let (first_line, first_column) = Gap::of(&bytes[..first]).after(1, 0);
        // (Consumed: the scan's counts are not kept through the load.)
        offsets
            .iter()
            .zip(scanned_lines)
            .map(|(&at, scanned)| {
                let column = match scanned.line_start {
                    0 => first_column + (at - first),
                    line_start => at - line_start,
                };
                (
                    AtomicUsize::new(first_line + scanned.newlines),
                    AtomicUsize::new(column),
                )
            })
            .unzip()
    } else if in_order {
        offsets
            .iter()
            .map(|_| (AtomicUsize::new(0), AtomicUsize::new(0)))
            .unzip()
    } else {
        item_lines(bytes, &offsets)
            .into_iter()
            .map(|(line, column)| (AtomicUsize::new(line), AtomicUsize::new(column)))
            .unzip()
    };
    // Where counting stopped: the offset, its line and its column.
    let counted = std::sync::Mutex::new((0usize, 1usize, 0usize));
    let count_lines = |range: std::ops::Range<usize>| {
        if !in_order || from_scan {
            return;
        }
        let mut counted = counted.lock().unwrap_or_else(|e| e.into_inner());
        let (mut at, mut line, mut column) = *counted;
        for i in range {
            (line, column) = Gap::of(&bytes[at..offsets[i]]).after(line, column);
            at = offsets[i];
            lines[i].store(line, Ordering::Relaxed);
            columns[i].store(column, Ordering::Relaxed);
        }
        *counted = (at, line, column);
    };
    c.timings.load += started.elapsed();
    let items: Vec<JsonItem> = items
        .into_iter()
        .zip(&offsets)
        .enumerate()
        .map(|(i, (bytes, &offset))| JsonItem {
            bytes,
            offset,
            checked,
            ascii: ascii.get(i).copied().unwrap_or(false),
        })
        .collect();
    // The bytes before the next unparsed item, once no item there is still
    // to parse: only in file order (a `List`), and only bytes kplace read
    // itself. In steps of at least GIVE_BACK_STEP: each call interrupts
    // the other loading worker (the TLB is flushed on every core running
    // the process).
    let mut given_back = 0;
    let done_with = |upto: usize| {
        if !(give_back && in_order) {
            return;
        }
        let end = offsets.get(upto).copied().unwrap_or(bytes.len());
        if end >= given_back + GIVE_BACK_STEP {
            crate::allocator::give_back(&bytes[given_back..end]);
            given_back = end;
        }
    };
    c.ingest_items_prepared(
        &items,
        count_lines,
        |i| Origin {
            file,
            position: Position::Line {
                line: lines[i].load(Ordering::Relaxed),
                column: columns[i].load(Ordering::Relaxed),
            },
        },
        done_with,
    )
}

/// The newlines in `bytes`, found with SIMD: counting them a byte at a
/// time took about a billion instructions on the 237 MB synthetic
/// cluster, a twelfth of its whole load, as each batch's item lines were
/// counted (callgrind).
fn newlines(bytes: &[u8]) -> usize {
    memchr::memchr_iter(b'\n', bytes).count()
}

/// The line each item starts on, and its column (the bytes before it on
/// that line): one pass over the file, in file order (single documents
/// before a `List` come after its items in `offsets`), split over both
/// cores.
fn item_lines(bytes: &[u8], offsets: &[usize]) -> Vec<(usize, usize)> {
    let mut order: Vec<usize> = (0..offsets.len()).collect();
    if !offsets.is_sorted() {
        order.sort_by_key(|&i| offsets[i]);
    }
    // The gaps between consecutive items, in parallel; then running sums.
    let gaps: Vec<Gap> = (0..order.len())
        .into_par_iter()
        .map(|k| {
            let from = if k == 0 { 0 } else { offsets[order[k - 1]] };
            Gap::of(&bytes[from..offsets[order[k]]])
        })
        .collect();
    let mut places = vec![(0, 0); offsets.len()];
    let (mut line, mut column) = (1, 0);
    for (k, gap) in gaps.into_iter().enumerate() {
        (line, column) = gap.after(line, column);
        places[order[k]] = (line, column);
    }
    places
}

/// What a run of bytes between two places in a file does to the line and
/// column (bytes since the line's start) of the place after it.
struct Gap {
    newlines: usize,
    /// The bytes after its last newline (`None`: it holds none).
    after_last_newline: Option<usize>,
    len: usize,
}

impl Gap {
    fn of(gap: &[u8]) -> Gap {
        let after_last_newline = memchr::memrchr(b'\n', gap).map(|at| gap.len() - at - 1);
        Gap {
            newlines: if after_last_newline.is_some() {
                newlines(gap)
            } else {
                0
            },
            after_last_newline,
            len: gap.len(),
        }
    }

    /// The line and column after the gap, from those before it.
    fn after(&self, line: usize, column: usize) -> (usize, usize) {
        match self.after_last_newline {
            Some(tail) => (line + self.newlines, tail),
            None => (line, column + self.len),
        }
    }
}

fn yaml_options() -> serde_saphyr::Options {
    serde_saphyr::options! {
        strict_booleans: true,
        budget: serde_saphyr::budget! {
            max_reader_input_bytes: None,
            max_events: usize::MAX,
            max_nodes: usize::MAX,
            max_documents: 1_000_000,
            max_total_scalar_bytes: MAX_FILE_BYTES as usize,
        },
    }
}

fn ingest_yaml(c: &mut Collector, bytes: &[u8], file: &str) -> Result<(), SourceError> {
    let started = Instant::now();
    yaml_is_utf8(bytes, file)?;
    let docs: Vec<serde_json::Value> =
        serde_saphyr::from_slice_multiple_with_options(bytes, yaml_options()).map_err(|e| {
            SourceError::Syntax {
                file: file.to_string(),
                line: e.location().map(|l| l.line() as usize),
                message: yaml_message(&e),
            }
        })?;
    c.timings.load += started.elapsed();
    let mut items: Vec<ValueItem> = Vec::new();
    // Per item: its document (counting non-empty ones) and index in a List.
    let mut places: Vec<(usize, Option<usize>)> = Vec::new();
    for (d, doc) in docs.iter().filter(|d| !d.is_null()).enumerate() {
        let is_list = doc
            .get("kind")
            .and_then(|k| k.as_str())
            .is_some_and(|k| k.ends_with("List"));
        if is_list && let Some(v) = recorded_version(doc.get("metadata")) {
            c.server_version = Some(v);
        }
        match (is_list, doc.get("items")) {
            (true, Some(serde_json::Value::Array(list))) => {
                items.extend(list.iter().map(ValueItem));
                places.extend((0..list.len()).map(|i| (d, Some(i))));
            }
            (true, Some(serde_json::Value::Null) | None) => {}
            _ => {
                items.push(ValueItem(doc));
                places.push((d, None));
            }
        }
    }
    c.ingest_items(
        &items,
        |i| Origin {
            file,
            position: Position::YamlItem(bytes, places[i].0, places[i].1),
        },
        |_| {},
    )
}

/// YAML must be UTF-8; the parser says only "input is not valid UTF-8",
/// this says where.
fn yaml_is_utf8(bytes: &[u8], file: &str) -> Result<(), SourceError> {
    std::str::from_utf8(bytes)
        .map(|_| ())
        .map_err(|e| SourceError::Syntax {
            file: file.to_string(),
            line: Some(line_of(bytes, e.valid_up_to())),
            message: format!("not UTF-8: {e}"),
        })
}

/// The parser's message without its own `error: line L column C:` prefix
/// (the line is already in the `file:line:` prefix), keeping the column;
/// in kubectl's words where the parser's speak of its own options.
pub(crate) fn yaml_message(e: &serde_saphyr::Error) -> String {
    let text = e.to_string();
    let first = text.lines().next().unwrap_or("");
    let body = first.strip_prefix("error: ").unwrap_or(first);
    match (e.location(), body.split_once(": ")) {
        (Some(loc), Some((head, rest))) if head.starts_with("line ") => {
            format!("column {}: {}", loc.column(), kubectl_wording(rest))
        }
        _ => kubectl_wording(body),
    }
}

/// A duplicate key as kubectl reports it (`key "name" already set in
/// map`), not as advice to set the parser's `DuplicateKeyPolicy`, which
/// means nothing to whoever wrote the file.
fn kubectl_wording(message: &str) -> String {
    const ADVICE: &str = ", set DuplicateKeyPolicy in Options if acceptable";
    // The parser's budget names its counter in Rust's debug form
    // (`RecordedAnchorEvents { recorded_anchor_events: 1000001 }`): say what
    // it means to whoever wrote the file.
    if let Some(breach) = message.strip_prefix("budget breached: ") {
        let counter = breach.split([' ', '{']).next().unwrap_or(breach);
        let what = match counter {
            "RecordedAnchorEvents"
            | "RecordedAnchorBytes"
            | "Aliases"
            | "Anchors"
            | "AliasAnchorRatio"
            | "MergeKeys" => "too many YAML alias expansions (an alias bomb?)",
            "Depth" | "InclusionDepth" | "PropertyExpansionDepth" => "YAML nested too deeply",
            "Documents" => "too many YAML documents",
            "ScalarBytes" | "InputBytes" => "more text in the YAML than the input limit",
            _ => "the YAML is beyond the parser's limits",
        };
        return format!("{what}: refused to keep memory bounded ({counter})");
    }
    match message
        .strip_prefix("duplicate mapping key")
        .and_then(|m| m.strip_suffix(ADVICE))
    {
        Some(key) => match key.strip_prefix(": ") {
            Some(key) => format!("key {key:?} already set in map"),
            None => "a key already set in map".to_string(),
        },
        None => message.to_string(),
    }
}

/// A recorded timeline (its first line the timeline header) where another
/// kind of file was wanted: the error says what it is and where it goes.
fn refuse_timeline(bytes: &[u8], file: &str, wanted: &str, hint: &str) -> Result<(), SourceError> {
    let start = bytes
        .iter()
        .position(|b| !b.is_ascii_whitespace())
        .unwrap_or(0);
    let marker = format!("{{\"{}\"", super::record::TIMELINE_MARKER);
    if bytes[start..].starts_with(marker.as_bytes()) {
        return Err(SourceError::WrongKind {
            file: file.to_string(),
            what: "a recorded timeline".into(),
            wanted: wanted.into(),
            hint: hint.into(),
        });
    }
    Ok(())
}

/// Whether the loader may return a JSON file's bytes to the system as it
/// goes (it read them itself), or must leave them intact (the caller's).
#[derive(Clone, Copy)]
enum Bytes {
    Ours,
    Borrowed,
}

fn ingest_bytes(
    c: &mut Collector,
    bytes: &[u8],
    file: &str,
    whose: Bytes,
) -> Result<(), SourceError> {
    c.files.push(file.to_string());
    let first = bytes.iter().find(|b| !b.is_ascii_whitespace());
    match first {
        Some(b'{') | Some(b'[') => ingest_json(c, bytes, file, matches!(whose, Bytes::Ours)),
        _ => ingest_yaml(c, bytes, file),
    }
}

/// The snapshot files of a directory: YAML, JSON and gzip files, by name.
fn directory_files(dir: &Path) -> Result<Vec<PathBuf>, SourceError> {
    let mut files: Vec<PathBuf> = std::fs::read_dir(dir)
        .map_err(|e| io_error(dir, e))?
        .filter_map(|e| e.ok().map(|e| e.path()))
        .filter(|p| {
            let name = p.file_name().and_then(|n| n.to_str()).unwrap_or("");
            let name = name.strip_suffix(".gz").unwrap_or(name);
            p.is_file()
                && (name.ends_with(".yaml") || name.ends_with(".yml") || name.ends_with(".json"))
        })
        .collect();
    files.sort();
    for f in &files {
        let gz = PathBuf::from(format!("{}.gz", f.display()));
        if files.contains(&gz) {
            return Err(io_error(
                dir,
                format!(
                    "holds both {} and {}: the same snapshot twice? keep one",
                    f.file_name().unwrap_or_default().to_string_lossy(),
                    gz.file_name().unwrap_or_default().to_string_lossy()
                ),
            ));
        }
    }
    Ok(files)
}

/// Loads a snapshot file or directory into a [`Cluster`]; the same object
/// twice is an error.
pub fn load_snapshot(path: &Path) -> Result<(Cluster, LoadTimings), SourceError> {
    load_snapshot_with(path, LoadOptions::default()).map(|(c, t, _)| (c, t))
}

/// [`load_snapshot`] with options; also returns notes on what the reader
/// decided (duplicates it let the later win).
pub fn load_snapshot_with(
    path: &Path,
    options: LoadOptions,
) -> Result<(Cluster, LoadTimings, Vec<String>), SourceError> {
    let held = crate::allocator::hold_pages();
    let mut c = Collector {
        options,
        ..Default::default()
    };
    let files = if path.is_dir() {
        directory_files(path)?
    } else {
        vec![path.to_path_buf()]
    };
    // A directory's files share one budget.
    let limit = super::budget::max_input();
    let mut used = 0u64;
    for f in &files {
        let started = Instant::now();
        let context = if used > 0 {
            format!(", counted with the files before it in {}", path.display())
        } else {
            String::new()
        };
        let bytes = read_bytes_within(f, limit - used, limit, &context)?;
        used += bytes.len() as u64;
        c.timings.load += started.elapsed();
        let name = f.display().to_string();
        refuse_timeline(
            &bytes,
            &name,
            "a cluster snapshot",
            "the TUI replays it: `kplace --snapshot FILE`; `kplace verify FILE` checks it",
        )?;
        ingest_bytes(&mut c, &bytes, &name, Bytes::Ours).map_err(|e| misnamed_gzip(e, f))?;
    }
    let mut notes = std::mem::take(&mut c.notes);
    // The parsed objects are all spent: their pages go back before the
    // cluster's indexes are built, which would otherwise come on top.
    drop(held);
    c.finish(&path.display().to_string()).map(|(cluster, t)| {
        notes.extend(absent_nodes_note(&cluster));
        (cluster, t, notes)
    })
}

/// Loads a snapshot already in memory (`name` is used in error messages).
pub fn load_snapshot_bytes(
    bytes: &[u8],
    name: &str,
) -> Result<(Cluster, LoadTimings), SourceError> {
    let held = crate::allocator::hold_pages();
    let mut c = Collector::default();
    ingest_bytes(&mut c, bytes, name, Bytes::Borrowed)?;
    drop(held);
    c.finish(name)
}

/// [`load_snapshot_bytes`] for bytes read for this load alone: they are
/// given back to the system as they are parsed, so they and the finished
/// cluster are never resident together.
pub fn load_snapshot_owned(
    bytes: FileBytes,
    name: &str,
) -> Result<(Cluster, LoadTimings), SourceError> {
    let held = crate::allocator::hold_pages();
    let mut c = Collector::default();
    ingest_bytes(&mut c, &bytes, name, Bytes::Ours)?;
    drop(bytes);
    drop(held);
    c.finish(name)
}

/// Reads one Pod from memory (a what-if draft, a generated pod).
pub fn load_pod_bytes(
    bytes: &[u8],
    name: &str,
    interner: &mut Interner,
) -> Result<Pod, SourceError> {
    load_pod_with_claims_bytes(bytes, name, interner).map(|(pod, _)| pod)
}

/// The one Pod of a manifest and the ResourceClaims beside it (a pod
/// written with the claims it asks for, as `kubectl apply -f` takes them);
/// a workload's manifest gives the pod its controller would create (see
/// [`load_manifest_bytes`]).
pub fn load_pod_with_claims_bytes(
    bytes: &[u8],
    name: &str,
    interner: &mut Interner,
) -> Result<(Pod, Vec<crate::model::dra::ResourceClaim>), SourceError> {
    load_manifest_bytes(bytes, name, interner, None).map(|m| (m.pod, m.claims))
}

/// What a pod manifest holds: the pod, the ResourceClaims beside it, and
/// for a workload the controllers its pod's `ownerReference` names (as
/// selector owners, for default spreading and StatefulSet replicas, and the
/// Services and ReplicationControllers beside the pod) and the
/// workload itself.
#[derive(Debug)]
pub struct Manifest {
    pub pod: Pod,
    pub claims: Vec<crate::model::dra::ResourceClaim>,
    pub owners: Vec<crate::model::policy::SelectorOwner>,
    pub workload: Option<super::workload::Workload>,
}

/// How to choose among several pods and workloads, for error messages.
pub const CHOOSE_WORKLOAD: &str = "--workload KIND/NAME";

/// The documents of a manifest file, JSON or YAML.
pub(crate) fn manifest_docs(
    bytes: &[u8],
    file: &str,
) -> Result<Vec<serde_json::Value>, SourceError> {
    let first = bytes.iter().find(|b| !b.is_ascii_whitespace());
    if matches!(first, Some(b'{') | Some(b'[')) {
        let syntax = |e: serde_json::Error| SourceError::Syntax {
            file: file.to_string(),
            line: Some(e.line()),
            message: e.to_string(),
        };
        return serde_json::Deserializer::from_slice(bytes)
            .into_iter::<serde_json::Value>()
            .map(|d| d.map_err(syntax))
            .collect();
    }
    yaml_is_utf8(bytes, file)?;
    serde_saphyr::from_slice_multiple_with_options(bytes, yaml_options()).map_err(|e| {
        SourceError::Syntax {
            file: file.to_string(),
            line: e.location().map(|l| l.line() as usize),
            message: yaml_message(&e),
        }
    })
}

/// Reads a pod manifest: a Pod, or a Deployment, ReplicaSet, StatefulSet,
/// DaemonSet, Job or CronJob, alone or among other objects (a `helm
/// template` output); `select` (`KIND/NAME` or `NAME`) picks one when
/// there are several. Errors in a workload's pod name the workload and the
/// template's field (`Deployment shop/web: spec.template.spec…`).
pub fn load_manifest_bytes(
    bytes: &[u8],
    name: &str,
    interner: &mut Interner,
    select: Option<&str>,
) -> Result<Manifest, SourceError> {
    refuse_timeline(
        bytes,
        name,
        "a pod manifest",
        "give a Pod or workload manifest",
    )?;
    let docs = manifest_docs(bytes, name)?;
    let expanded = super::workload::expand(docs, select).map_err(|e| SourceError::Io {
        file: name.to_string(),
        message: e.message(CHOOSE_WORKLOAD),
    })?;
    let mut c = Collector {
        builder: ClusterBuilder::with_interner(std::mem::take(interner)),
        ..Default::default()
    };
    c.files.push(name.to_string());
    let result = match &expanded.workload {
        // A plain pod: read from the file itself, so errors carry its line.
        None => ingest_bytes(&mut c, bytes, name, Bytes::Borrowed),
        Some(w) => {
            let mut docs = vec![expanded.pod.clone()];
            docs.extend(expanded.claims.iter().cloned());
            docs.extend(expanded.controllers.iter().cloned());
            let items: Vec<ValueItem> = docs.iter().map(ValueItem).collect();
            c.ingest_items(
                &items,
                |_| Origin {
                    file: name,
                    position: Position::Generated(bytes),
                },
                |_| {},
            )
            .map_err(|e| in_terms_of_workload(e, &expanded.pod, w))
        }
    };
    *interner = std::mem::take(&mut c.builder.interner);
    result?;
    let claims = c.builder.take_resource_claims();
    let owners = match &expanded.workload {
        Some(_) => c.builder.take_owners(),
        // A plain pod: only the Services and ReplicationControllers beside
        // it, in its namespace when they name none.
        None => load_owner_values(&expanded.controllers, name, interner)?,
    };
    let mut pods = c.builder.take_pods();
    // A plain pod chosen among several (`select`): the one named.
    let wanted_name = expanded
        .pod
        .pointer("/metadata/name")
        .and_then(serde_json::Value::as_str)
        .unwrap_or("");
    if pods.len() > 1 {
        pods.retain(|p| &*p.name == wanted_name);
    }
    match pods.pop() {
        Some(pod) if pods.is_empty() => Ok(Manifest {
            pod,
            claims,
            owners,
            workload: expanded.workload,
        }),
        _ => Err(SourceError::Io {
            file: name.to_string(),
            message: "holds no single Pod object".into(),
        }),
    }
}

/// The selector owners (ReplicaSets, StatefulSets) among documents a
/// workload's manifest brought ([`super::workload::Expanded::controllers`]),
/// converted with `interner`.
pub fn load_owner_values(
    docs: &[serde_json::Value],
    name: &str,
    interner: &mut Interner,
) -> Result<Vec<crate::model::policy::SelectorOwner>, SourceError> {
    let mut c = Collector {
        builder: ClusterBuilder::with_interner(std::mem::take(interner)),
        ..Default::default()
    };
    let items: Vec<ValueItem> = docs.iter().map(ValueItem).collect();
    let result = c.ingest_items(
        &items,
        |_| Origin {
            file: name,
            position: Position::Generated(&[]),
        },
        |_| {},
    );
    *interner = std::mem::take(&mut c.builder.interner);
    result?;
    Ok(c.builder.take_owners())
}

/// An error in the pod made from a workload, told as the workload's: the
/// field is the template's (`spec.template.spec.containers[0]…`).
fn in_terms_of_workload(
    e: SourceError,
    pod: &serde_json::Value,
    w: &super::workload::Workload,
) -> SourceError {
    let SourceError::Invalid { file, line, source } = e else {
        return e;
    };
    let pod_name = pod
        .pointer("/metadata/name")
        .and_then(serde_json::Value::as_str)
        .unwrap_or("");
    if source.object != format!("Pod {}/{pod_name}", w.namespace) {
        return SourceError::Invalid { file, line, source };
    }
    let template = if w.kind == "CronJob" {
        "spec.jobTemplate.spec.template"
    } else {
        "spec.template"
    };
    let field = if source.field.is_empty() {
        template.to_string()
    } else {
        format!("{template}.{}", source.field)
    };
    SourceError::Invalid {
        file,
        line,
        source: InvalidObject::new(&w.key(), field, source.message),
    }
}

/// Reads the one Pod of a file (an incoming pod), converting it with the
/// cluster's interner so its labels compare with the cluster's.
pub fn load_pod(path: &Path, interner: &mut Interner) -> Result<Pod, SourceError> {
    let bytes = read_bytes(path)?;
    load_pod_bytes(&bytes, &path.display().to_string(), interner)
        .map_err(|e| misnamed_gzip(e, path))
}

/// A file named `.gz` is decompressed only when it starts with gzip's magic
/// bytes; one that does not, and then fails to read, most likely lost its
/// compression on the way (or was never compressed), which the parser's
/// error alone would not say.
pub fn misnamed_gzip(e: SourceError, path: &Path) -> SourceError {
    let named_gz = path
        .extension()
        .is_some_and(|x| x.eq_ignore_ascii_case("gz"));
    if !named_gz || matches!(e, SourceError::Io { .. } | SourceError::TooLarge { .. }) {
        return e;
    }
    let mut magic = [0u8; 2];
    let is_gzip = std::fs::File::open(path)
        .and_then(|mut f| std::io::Read::read_exact(&mut f, &mut magic))
        .is_ok_and(|()| magic == super::budget::GZIP_MAGIC);
    if is_gzip {
        return e;
    }
    SourceError::NotGzip {
        file: path.display().to_string(),
        source: Box::new(e),
    }
}
