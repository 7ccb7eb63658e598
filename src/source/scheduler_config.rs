//! Reads a `KubeSchedulerConfiguration` (`kubescheduler.config.k8s.io/v1`,
//! YAML or JSON) into the engine's [`Profiles`], decoding, defaulting and
//! validating it as kube-scheduler does at startup:
//!
//! 1. strict decoding (`k8s.io/kube-scheduler/config/v1` types): unknown
//!    fields are errors; upstream's fields kplace does not use are accepted
//!    and ignored;
//! 2. v1 defaulting (`pkg/scheduler/apis/config/v1/defaults.go`);
//! 3. validation (`apis/config/validation/validation.go` and
//!    `validation_pluginargs.go`), every error collected with its field path
//!    and upstream's wording;
//! 4. what the framework refuses when it builds each profile (plugin
//!    arguments validated by the plugin's constructor, such as
//!    NodeResourcesFit's; unknown plugins; no queue sort or bind plugin),
//!    then the merge with the release's defaults ([`Profiles::from_specs`]).

use std::collections::HashSet;
use std::fmt;
use std::io::Read;
use std::path::Path;

use serde::de::{DeserializeOwned, IgnoredAny};
use serde::{Deserialize, Deserializer};
use serde_saphyr::Spanned;
use thiserror::Error;

use crate::engine::profile::{
    AddedRequirement, AddedTerm, BalancedAllocationArgs, DEFAULT_SCHEDULER_NAME, DefaultConstraint,
    FitArgs, InterPodAffinityArgs, NodeAffinityArgs, PluginArgsSpec, PluginRef, PluginSetSpec,
    PluginsSpec, PreemptionArgs, ProfileSpec, Profiles, ResourceWeight, ScoringStrategy,
    ShapePoint, SpreadArgs, SpreadDefaulting, build_profile, default_resources, known_plugin_names,
};
use crate::engine::status::Plugin;
use crate::engine::version::Version;
use crate::model::pod::{NodeSelectorOperator, WhenUnsatisfiable};
use crate::source::field_line::{Tree, line_of};
use crate::source::file::MAX_FIELD_LINE_BYTES;

/// Configuration files larger than this are refused.
pub const MAX_CONFIG_BYTES: u64 = 16 << 20;

/// The one configuration group and version kplace reads.
pub const API_VERSION: &str = "kubescheduler.config.k8s.io/v1";
const GROUP: &str = "kubescheduler.config.k8s.io";
const KIND: &str = "KubeSchedulerConfiguration";

/// One validation error: upstream's field path and message body
/// (`field.Error.ErrorBody`, e.g. `Invalid value: 101: not in valid range [0, 100]`).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct FieldError {
    pub field: String,
    pub message: String,
    /// The line the field is written on (the deepest part of its path
    /// that is), once the error is located in the file's text.
    pub line: Option<usize>,
}

impl FieldError {
    fn new(field: impl Into<String>, message: impl Into<String>) -> Self {
        FieldError {
            field: field.into(),
            message: message.into(),
            line: None,
        }
    }
}

impl fmt::Display for FieldError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}: {}", self.field, self.message)
    }
}

/// Why a configuration file was refused. Every variant names the file.
#[derive(Clone, Debug, Error, PartialEq, Eq)]
pub enum ConfigError {
    #[error("{file}: {message}")]
    Io { file: String, message: String },
    #[error(
        "{file}: {size} bytes is larger than the {max} bytes a scheduler configuration may have"
    )]
    TooLarge { file: String, size: u64, max: u64 },
    #[error("{file}{}: {message}", at_line(*line))]
    Syntax {
        file: String,
        line: Option<usize>,
        message: String,
    },
    /// Not a `kubescheduler.config.k8s.io/v1` `KubeSchedulerConfiguration`.
    #[error("{file}: {message}")]
    Kind { file: String, message: String },
    /// Strict decoding: an unknown field or a value of the wrong type.
    #[error("{file}{}: {field}: {message}", at_line(*line))]
    Decode {
        file: String,
        field: String,
        message: String,
        /// The line the field is written on, once located.
        line: Option<usize>,
    },
    /// Validation errors, all of them, in upstream's order.
    #[error("{}", display_all(file, errors))]
    Invalid {
        file: String,
        errors: Vec<FieldError>,
    },
}

fn display_all(file: &str, errors: &[FieldError]) -> String {
    errors
        .iter()
        .map(|e| format!("{file}{}: {e}", at_line(e.line)))
        .collect::<Vec<_>>()
        .join("\n")
}

/// `:LINE` after a file's name, when the line is known.
fn at_line(line: Option<usize>) -> String {
    line.map(|l| format!(":{l}")).unwrap_or_default()
}

impl ConfigError {
    /// The error with each field it names located in `text` (the file it
    /// was read from): decoding and validation work on the document's
    /// values, which no longer know where they were written, so the file
    /// is read again with spans, only when it is refused. Not past
    /// [`MAX_FIELD_LINE_BYTES`]: the tree costs about 100 bytes per value,
    /// too much for a hostile file of the 16 MiB allowed.
    fn located(mut self, text: &str) -> Self {
        if text.len() > MAX_FIELD_LINE_BYTES {
            return self;
        }
        let Some(tree) = field_tree(text) else {
            return self;
        };
        let locate = |field: &str| Some(line_of(&tree, field)).filter(|&l| l > 0);
        match &mut self {
            ConfigError::Decode { field, line, .. } => *line = locate(field),
            ConfigError::Invalid { errors, .. } => {
                for e in errors {
                    e.line = locate(&e.field);
                }
            }
            _ => {}
        }
        self
    }
}

/// The first document of a configuration's text, with where each of its
/// parts is written.
fn field_tree(text: &str) -> Option<Spanned<Tree>> {
    let docs: Vec<Option<Spanned<Tree>>> =
        serde_saphyr::from_str_multiple_with_options(text, yaml_options()).ok()?;
    docs.into_iter().next().flatten()
}

#[cfg(test)]
impl ConfigError {
    /// The validation errors (empty for other kinds of failure).
    pub fn field_errors(&self) -> &[FieldError] {
        match self {
            ConfigError::Invalid { errors, .. } => errors,
            _ => &[],
        }
    }
}

/// Reads, validates and merges a configuration file for `version`.
pub fn load(path: &Path, version: Version) -> Result<Profiles, ConfigError> {
    let file = path.display().to_string();
    let io = |e: std::io::Error| ConfigError::Io {
        file: file.clone(),
        message: e.to_string(),
    };
    let f = std::fs::File::open(path).map_err(io)?;
    let mut bytes = Vec::new();
    f.take(MAX_CONFIG_BYTES + 1)
        .read_to_end(&mut bytes)
        .map_err(io)?;
    if bytes.len() as u64 > MAX_CONFIG_BYTES {
        let size = std::fs::metadata(path)
            .map(|m| m.len())
            .unwrap_or(bytes.len() as u64);
        return Err(ConfigError::TooLarge {
            file,
            size,
            max: MAX_CONFIG_BYTES,
        });
    }
    let text = String::from_utf8(bytes).map_err(|e| ConfigError::Syntax {
        file: file.clone(),
        line: None,
        message: format!("not UTF-8 text: {e}"),
    })?;
    parse(&text, &file, version)
}

/// Parses a configuration given as text; `origin` names it in errors and
/// becomes [`Profiles::origin`].
pub fn parse(text: &str, origin: &str, version: Version) -> Result<Profiles, ConfigError> {
    if text.len() as u64 > MAX_CONFIG_BYTES {
        return Err(ConfigError::TooLarge {
            file: origin.to_string(),
            size: text.len() as u64,
            max: MAX_CONFIG_BYTES,
        });
    }
    let doc = read_document(text, origin)?;
    check_kind(&doc, origin)?;
    let decoded = decode::<RawConfig>(doc, "", origin)
        .and_then(|raw| Decoded::new(raw, version, origin))
        .and_then(|config| config.finish(version, origin));
    decoded.map_err(|e| e.located(text))
}

// ---------------------------------------------------------------------------
// Reading the document.

fn yaml_options() -> serde_saphyr::Options {
    serde_saphyr::options! {
        strict_booleans: true,
        duplicate_keys: serde_saphyr::DuplicateKeyPolicy::Error,
        budget: serde_saphyr::budget! {
            max_reader_input_bytes: Some(MAX_CONFIG_BYTES as usize),
            max_total_scalar_bytes: MAX_CONFIG_BYTES as usize,
            max_documents: 1024,
        },
    }
}

/// The first YAML document (as upstream's `yaml.YAMLToJSON`, which reads
/// only the first); JSON is read as YAML, of which it is a subset.
fn read_document(text: &str, file: &str) -> Result<serde_json::Value, ConfigError> {
    let docs: Vec<serde_json::Value> =
        serde_saphyr::from_str_multiple_with_options(text, yaml_options()).map_err(|e| {
            ConfigError::Syntax {
                file: file.to_string(),
                line: e.location().map(|l| l.line() as usize),
                message: super::file::yaml_message(&e),
            }
        })?;
    match docs.into_iter().next() {
        Some(doc) if !doc.is_null() => Ok(doc),
        _ => Err(ConfigError::Kind {
            file: file.to_string(),
            message: format!("the file is empty: expected a {KIND} ({API_VERSION})"),
        }),
    }
}

fn check_kind(doc: &serde_json::Value, file: &str) -> Result<(), ConfigError> {
    let err = |message: String| ConfigError::Kind {
        file: file.to_string(),
        message,
    };
    let Some(map) = doc.as_object() else {
        return Err(err(format!(
            "expected a {KIND} object, found {}",
            json_kind(doc)
        )));
    };
    let api_version = map.get("apiVersion").and_then(|v| v.as_str()).unwrap_or("");
    let kind = map.get("kind").and_then(|v| v.as_str()).unwrap_or("");
    if api_version.is_empty() {
        return Err(err(format!(
            "Object 'apiVersion' is missing: expected apiVersion: {API_VERSION}"
        )));
    }
    if kind.is_empty() {
        return Err(err(format!(
            "Object 'Kind' is missing: expected kind: {KIND}"
        )));
    }
    if api_version != API_VERSION {
        let why = match api_version {
            "kubescheduler.config.k8s.io/v1beta3" => {
                " (v1beta3 was removed in Kubernetes v1.29; its fields are the same as v1's \
                 except the default plugin weights: change apiVersion to v1)"
            }
            "kubescheduler.config.k8s.io/v1beta2" => " (v1beta2 was removed in Kubernetes v1.28)",
            "kubescheduler.config.k8s.io/v1beta1" | "kubescheduler.config.k8s.io/v1alpha1" => {
                " (removed from Kubernetes long ago)"
            }
            _ => "",
        };
        return Err(err(format!(
            "apiVersion {api_version:?} is not supported: kube-scheduler v1.30 and later read \
             only {API_VERSION}{why}"
        )));
    }
    if kind != KIND {
        return Err(err(format!(
            "kind {kind:?} is not a scheduler configuration: expected kind: {KIND}"
        )));
    }
    Ok(())
}

fn json_kind(v: &serde_json::Value) -> &'static str {
    match v {
        serde_json::Value::Null => "null",
        serde_json::Value::Bool(_) => "a boolean",
        serde_json::Value::Number(_) => "a number",
        serde_json::Value::String(_) => "a string",
        serde_json::Value::Array(_) => "a list",
        serde_json::Value::Object(_) => "an object",
    }
}

/// Strict decoding of `value` into `T`, errors naming the field path under `prefix`.
fn decode<T: DeserializeOwned>(
    value: serde_json::Value,
    prefix: &str,
    file: &str,
) -> Result<T, ConfigError> {
    serde_path_to_error::deserialize(value).map_err(|e| {
        let inner = e.path().to_string();
        let mut field = join_path(prefix, if inner == "." { "" } else { &inner });
        let raw = e.inner().to_string();
        // serde: "unknown field `profile`, expected one of `a`, `b`".
        let message = if let Some(rest) = raw.strip_prefix("unknown field `") {
            let (name, tail) = rest.split_once('`').unwrap_or((rest, ""));
            // serde_path_to_error's path already ends with the field.
            if !(field == name || field.ends_with(&format!(".{name}"))) {
                field = join_path(&field, name);
            }
            format!(
                "strict decoding error: unknown field {name:?}{}",
                tail.replace('`', "\"")
            )
        } else {
            raw.replace('`', "\"")
        };
        ConfigError::Decode {
            file: file.to_string(),
            field: if field.is_empty() {
                "(top level)".into()
            } else {
                field
            },
            message,
            line: None,
        }
    })
}

fn join_path(prefix: &str, inner: &str) -> String {
    match (prefix.is_empty(), inner.is_empty()) {
        (_, true) => prefix.to_string(),
        (true, false) => inner.to_string(),
        (false, false) if inner.starts_with('[') => format!("{prefix}{inner}"),
        (false, false) => format!("{prefix}.{inner}"),
    }
}

/// `null` reads as the type's zero value, as Go's decoder does.
fn nullable<'de, D, T>(d: D) -> Result<T, D::Error>
where
    D: Deserializer<'de>,
    T: Deserialize<'de> + Default,
{
    Ok(Option::<T>::deserialize(d)?.unwrap_or_default())
}

// ---------------------------------------------------------------------------
// The v1 types (`k8s.io/kube-scheduler/config/v1`), strictly decoded.

#[derive(Deserialize)]
#[serde(deny_unknown_fields, rename_all = "camelCase")]
struct RawConfig {
    #[serde(rename = "apiVersion")]
    _api_version: Option<String>,
    #[serde(rename = "kind")]
    _kind: Option<String>,
    parallelism: Option<i32>,
    // Accepted, not used and not validated by kplace.
    #[serde(rename = "leaderElection")]
    _leader_election: Option<IgnoredAny>,
    #[serde(rename = "clientConnection")]
    _client_connection: Option<IgnoredAny>,
    #[serde(rename = "enableProfiling")]
    _enable_profiling: Option<bool>,
    #[serde(rename = "enableContentionProfiling")]
    _enable_contention_profiling: Option<bool>,
    percentage_of_nodes_to_score: Option<i32>,
    pod_initial_backoff_seconds: Option<i64>,
    pod_max_backoff_seconds: Option<i64>,
    #[serde(default, deserialize_with = "nullable")]
    profiles: Vec<RawProfile>,
    #[serde(rename = "extenders")]
    _extenders: Option<IgnoredAny>,
    #[serde(rename = "delayCacheUntilActive")]
    _delay_cache_until_active: Option<bool>,
}

#[derive(Deserialize, Default)]
#[serde(deny_unknown_fields, rename_all = "camelCase")]
struct RawProfile {
    scheduler_name: Option<String>,
    percentage_of_nodes_to_score: Option<i32>,
    plugins: Option<RawPlugins>,
    #[serde(default, deserialize_with = "nullable")]
    plugin_config: Vec<RawPluginConfig>,
}

#[derive(Deserialize, Default, Clone, PartialEq)]
#[serde(deny_unknown_fields, rename_all = "camelCase")]
struct RawPlugins {
    #[serde(default, deserialize_with = "nullable")]
    pre_enqueue: RawPluginSet,
    #[serde(default, deserialize_with = "nullable")]
    queue_sort: RawPluginSet,
    #[serde(default, deserialize_with = "nullable")]
    pre_filter: RawPluginSet,
    #[serde(default, deserialize_with = "nullable")]
    filter: RawPluginSet,
    #[serde(default, deserialize_with = "nullable")]
    post_filter: RawPluginSet,
    #[serde(default, deserialize_with = "nullable")]
    pre_score: RawPluginSet,
    #[serde(default, deserialize_with = "nullable")]
    score: RawPluginSet,
    #[serde(default, deserialize_with = "nullable")]
    reserve: RawPluginSet,
    #[serde(default, deserialize_with = "nullable")]
    permit: RawPluginSet,
    #[serde(default, deserialize_with = "nullable")]
    pre_bind: RawPluginSet,
    #[serde(default, deserialize_with = "nullable")]
    bind: RawPluginSet,
    #[serde(default, deserialize_with = "nullable")]
    post_bind: RawPluginSet,
    #[serde(default, deserialize_with = "nullable")]
    multi_point: RawPluginSet,
}

#[derive(Deserialize, Default, Clone, PartialEq)]
#[serde(deny_unknown_fields)]
struct RawPluginSet {
    #[serde(default, deserialize_with = "nullable")]
    enabled: Vec<RawPlugin>,
    #[serde(default, deserialize_with = "nullable")]
    disabled: Vec<RawPlugin>,
}

#[derive(Deserialize, Default, Clone, PartialEq)]
#[serde(deny_unknown_fields)]
struct RawPlugin {
    #[serde(default, deserialize_with = "nullable")]
    name: String,
    weight: Option<i32>,
}

#[derive(Deserialize, Default)]
#[serde(deny_unknown_fields)]
struct RawPluginConfig {
    #[serde(default, deserialize_with = "nullable")]
    name: String,
    args: Option<serde_json::Value>,
}

// ---- Plugin arguments (`types_pluginargs.go`). Each may carry its own
// apiVersion/kind (TypeMeta).

#[derive(Deserialize, Default)]
#[serde(deny_unknown_fields, rename_all = "camelCase")]
struct RawFitArgs {
    api_version: Option<String>,
    kind: Option<String>,
    #[serde(default, deserialize_with = "nullable")]
    ignored_resources: Vec<String>,
    #[serde(default, deserialize_with = "nullable")]
    ignored_resource_groups: Vec<String>,
    scoring_strategy: Option<RawScoringStrategy>,
}

#[derive(Deserialize, Default)]
#[serde(deny_unknown_fields, rename_all = "camelCase")]
struct RawScoringStrategy {
    #[serde(rename = "type", default, deserialize_with = "nullable")]
    type_: String,
    #[serde(default, deserialize_with = "nullable")]
    resources: Vec<RawResource>,
    requested_to_capacity_ratio: Option<RawRequestedToCapacityRatio>,
}

#[derive(Deserialize, Default)]
#[serde(deny_unknown_fields)]
struct RawRequestedToCapacityRatio {
    #[serde(default, deserialize_with = "nullable")]
    shape: Vec<RawShapePoint>,
}

#[derive(Deserialize, Default, Clone)]
#[serde(deny_unknown_fields)]
struct RawResource {
    #[serde(default, deserialize_with = "nullable")]
    name: String,
    #[serde(default, deserialize_with = "nullable")]
    weight: i64,
}

#[derive(Deserialize, Default, Clone, Copy)]
#[serde(deny_unknown_fields)]
struct RawShapePoint {
    #[serde(default, deserialize_with = "nullable")]
    utilization: i32,
    #[serde(default, deserialize_with = "nullable")]
    score: i32,
}

#[derive(Deserialize, Default)]
#[serde(deny_unknown_fields, rename_all = "camelCase")]
struct RawBalancedArgs {
    api_version: Option<String>,
    kind: Option<String>,
    #[serde(default, deserialize_with = "nullable")]
    resources: Vec<RawResource>,
}

#[derive(Deserialize, Default)]
#[serde(deny_unknown_fields, rename_all = "camelCase")]
struct RawSpreadArgs {
    api_version: Option<String>,
    kind: Option<String>,
    #[serde(default, deserialize_with = "nullable")]
    default_constraints: Vec<RawConstraint>,
    #[serde(default, deserialize_with = "nullable")]
    defaulting_type: String,
}

/// `corev1.TopologySpreadConstraint`.
#[derive(Deserialize, Default)]
#[serde(deny_unknown_fields, rename_all = "camelCase")]
struct RawConstraint {
    #[serde(default, deserialize_with = "nullable")]
    max_skew: i32,
    #[serde(default, deserialize_with = "nullable")]
    topology_key: String,
    #[serde(default, deserialize_with = "nullable")]
    when_unsatisfiable: String,
    label_selector: Option<serde_json::Value>,
    min_domains: Option<i32>,
    node_affinity_policy: Option<String>,
    node_taints_policy: Option<String>,
    match_label_keys: Option<Vec<String>>,
}

#[derive(Deserialize, Default)]
#[serde(deny_unknown_fields, rename_all = "camelCase")]
struct RawInterPodAffinityArgs {
    api_version: Option<String>,
    kind: Option<String>,
    hard_pod_affinity_weight: Option<i32>,
    #[serde(default, deserialize_with = "nullable")]
    ignore_preferred_terms_of_existing_pods: bool,
}

#[derive(Deserialize, Default)]
#[serde(deny_unknown_fields, rename_all = "camelCase")]
struct RawNodeAffinityArgs {
    api_version: Option<String>,
    kind: Option<String>,
    added_affinity: Option<RawNodeAffinity>,
}

/// `corev1.NodeAffinity`.
#[derive(Deserialize, Default)]
#[serde(deny_unknown_fields, rename_all = "camelCase")]
struct RawNodeAffinity {
    required_during_scheduling_ignored_during_execution: Option<RawNodeSelector>,
    #[serde(default, deserialize_with = "nullable")]
    preferred_during_scheduling_ignored_during_execution: Vec<RawPreferredTerm>,
}

#[derive(Deserialize, Default)]
#[serde(deny_unknown_fields, rename_all = "camelCase")]
struct RawNodeSelector {
    #[serde(default, deserialize_with = "nullable")]
    node_selector_terms: Vec<RawTerm>,
}

#[derive(Deserialize, Default)]
#[serde(deny_unknown_fields, rename_all = "camelCase")]
struct RawTerm {
    #[serde(default, deserialize_with = "nullable")]
    match_expressions: Vec<RawRequirement>,
    #[serde(default, deserialize_with = "nullable")]
    match_fields: Vec<RawRequirement>,
}

#[derive(Deserialize, Default)]
#[serde(deny_unknown_fields)]
struct RawRequirement {
    #[serde(default, deserialize_with = "nullable")]
    key: String,
    #[serde(default, deserialize_with = "nullable")]
    operator: String,
    /// `None`: absent or null (upstream prints `null`), `Some([])`: `[]`.
    values: Option<Vec<String>>,
}

#[derive(Deserialize, Default)]
#[serde(deny_unknown_fields)]
struct RawPreferredTerm {
    #[serde(default, deserialize_with = "nullable")]
    weight: i32,
    #[serde(default, deserialize_with = "nullable")]
    preference: RawTerm,
}

#[derive(Deserialize, Default)]
#[serde(deny_unknown_fields, rename_all = "camelCase")]
struct RawPreemptionArgs {
    api_version: Option<String>,
    kind: Option<String>,
    min_candidate_nodes_percentage: Option<i32>,
    min_candidate_nodes_absolute: Option<i32>,
}

#[derive(Deserialize, Default)]
#[serde(deny_unknown_fields, rename_all = "camelCase")]
struct RawVolumeBindingArgs {
    api_version: Option<String>,
    kind: Option<String>,
    bind_timeout_seconds: Option<i64>,
    shape: Option<Vec<RawShapePoint>>,
}

#[derive(Deserialize, Default)]
#[serde(deny_unknown_fields, rename_all = "camelCase")]
struct RawDynamicResourcesArgs {
    api_version: Option<String>,
    kind: Option<String>,
    filter_timeout: Option<String>,
}

// ---------------------------------------------------------------------------
// Upstream's field errors (`k8s.io/apimachinery/pkg/util/validation/field`).

fn invalid(field: &str, value: impl fmt::Display, detail: &str) -> FieldError {
    FieldError::new(field, format!("Invalid value: {value}: {detail}"))
}

fn required(field: &str, detail: &str) -> FieldError {
    FieldError::new(
        field,
        if detail.is_empty() {
            "Required value".into()
        } else {
            format!("Required value: {detail}")
        },
    )
}

fn duplicate(field: &str, value: impl fmt::Display) -> FieldError {
    FieldError::new(field, format!("Duplicate value: {value}"))
}

fn not_supported(field: &str, value: &str, supported: &[&str]) -> FieldError {
    let list: Vec<String> = supported.iter().map(|s| format!("{s:?}")).collect();
    FieldError::new(
        field,
        format!(
            "Unsupported value: {value:?}: supported values: {}",
            list.join(", ")
        ),
    )
}

fn forbidden(field: &str, detail: &str) -> FieldError {
    FieldError::new(field, format!("Forbidden: {detail}"))
}

/// A Go `%q`-style quoted string.
fn q(s: &str) -> String {
    format!("{s:?}")
}

/// A `[]string` as `json.Marshal` prints it (`null` when nil).
fn json_strings(values: &Option<Vec<String>>) -> String {
    match values {
        None => "null".into(),
        Some(v) => serde_json::to_string(v).unwrap_or_default(),
    }
}

// ---- Name rules: the one implementation in `source::convert::validate`.

use crate::source::convert::validate::{label_value_errors, qualified_name_errors};

/// `metav1validation.ValidateLabelName`.
fn validate_label_name(value: &str, field: &str, errs: &mut Vec<FieldError>) {
    for msg in qualified_name_errors(value) {
        errs.push(invalid(field, q(value), &msg));
    }
}

// ---------------------------------------------------------------------------
// Decoding, defaulting and validating.

/// A decoded, defaulted configuration with its validation errors.
struct Decoded {
    specs: Vec<ProfileSpec>,
    raw_plugins: Vec<Option<RawPlugins>>,
    percentage_of_nodes_to_score: Option<i32>,
    /// Upstream's configuration validation errors.
    errors: Vec<FieldError>,
    /// NodeResourcesFit's arguments errors, per profile: upstream validates
    /// them only in the plugin's constructor, when the profile enables it.
    fit_errors: Vec<Vec<FieldError>>,
}

/// The plugins whose arguments have a registered v1 type; others' args are
/// kept raw by upstream (never decoded, never validated, never used).
fn has_args_type(name: &str, version: Version) -> bool {
    matches!(
        name,
        "DefaultPreemption"
            | "InterPodAffinity"
            | "NodeResourcesBalancedAllocation"
            | "NodeResourcesFit"
            | "PodTopologySpread"
            | "VolumeBinding"
            | "NodeAffinity"
    ) || (name == "DynamicResources" && version >= Version::V1_34)
}

/// Plugins removed from the v1 configuration (`invalidPluginsByVersion`).
const INVALID_PLUGINS: &[&str] = &[
    "AzureDiskLimits",
    "CinderLimits",
    "EBSLimits",
    "GCEPDLimits",
];

fn invalid_plugin_message() -> String {
    // Upstream names the core group's "v1" here (its `v1` import is k8s.io/api/core/v1).
    format!("was invalid in version \"v1\" (KubeSchedulerConfiguration is version {API_VERSION:?})")
}

impl Decoded {
    fn new(raw: RawConfig, version: Version, file: &str) -> Result<Decoded, ConfigError> {
        let mut profiles = raw.profiles;
        // `SetDefaults_KubeSchedulerConfiguration`.
        if profiles.is_empty() {
            profiles.push(RawProfile::default());
        }
        if profiles.len() == 1 && profiles[0].scheduler_name.is_none() {
            profiles[0].scheduler_name = Some(DEFAULT_SCHEDULER_NAME.to_string());
        }
        let mut errors = Vec::new();
        let parallelism = raw.parallelism.unwrap_or(16);
        if parallelism <= 0 {
            errors.push(invalid(
                "parallelism",
                parallelism,
                "should be an integer value greater than zero",
            ));
        }
        let mut specs = Vec::with_capacity(profiles.len());
        let mut fit_errors = Vec::with_capacity(profiles.len());
        let mut raw_plugins = Vec::with_capacity(profiles.len());
        let mut seen_names: Vec<(String, usize)> = Vec::new();
        for (i, profile) in profiles.into_iter().enumerate() {
            let path = format!("profiles[{i}]");
            let name = profile.scheduler_name.clone().unwrap_or_default();
            if name.is_empty() {
                errors.push(required(&format!("{path}.schedulerName"), ""));
            }
            validate_percentage(
                &format!("{path}.percentageOfNodesToScore"),
                profile.percentage_of_nodes_to_score,
                &mut errors,
            );
            if let Some(plugins) = &profile.plugins {
                validate_invalid_plugins(&path, plugins, &mut errors);
            }
            let mut args = PluginArgsSpec::default();
            let mut fit = Vec::new();
            let mut seen_config: HashSet<&str> = HashSet::new();
            for (j, pc) in profile.plugin_config.iter().enumerate() {
                let pc_path = format!("{path}.pluginConfig[{j}]");
                if !seen_config.insert(&pc.name) {
                    errors.push(duplicate(&pc_path, q(&pc.name)));
                }
                if INVALID_PLUGINS.contains(&pc.name.as_str()) {
                    errors.push(invalid(&pc_path, q(&pc.name), &invalid_plugin_message()));
                    continue;
                }
                if !has_args_type(&pc.name, version) {
                    continue;
                }
                let args_path = format!("{pc_path}.args");
                let value = pc
                    .args
                    .clone()
                    .unwrap_or(serde_json::Value::Object(Default::default()));
                let value = match value {
                    serde_json::Value::Null => serde_json::Value::Object(Default::default()),
                    v => v,
                };
                decode_args(
                    &pc.name,
                    value,
                    &args_path,
                    version,
                    file,
                    &mut args,
                    &mut errors,
                    &mut fit,
                )?;
            }
            if let Some((_, first)) = seen_names.iter().find(|(n, _)| *n == name) {
                // Upstream's bad value is a *field.Path, which json.Marshal prints as {}.
                let mut e = duplicate(&format!("{path}.schedulerName"), "{}");
                e.message.push_str(&format!(
                    " (profiles[{first}].schedulerName is also {name:?})"
                ));
                errors.push(e);
            }
            seen_names.push((name.clone(), i));
            raw_plugins.push(profile.plugins.clone());
            specs.push(ProfileSpec {
                scheduler_name: name,
                plugins: profile.plugins.as_ref().map(plugins_spec),
                args,
                percentage_of_nodes_to_score: profile.percentage_of_nodes_to_score,
            });
            fit_errors.push(fit);
        }
        validate_common_queue_sort(&raw_plugins, &mut errors);
        validate_percentage(
            "percentageOfNodesToScore",
            raw.percentage_of_nodes_to_score,
            &mut errors,
        );
        let initial = raw.pod_initial_backoff_seconds.unwrap_or(1);
        let max = raw.pod_max_backoff_seconds.unwrap_or(10);
        if initial <= 0 {
            errors.push(invalid(
                "podInitialBackoffSeconds",
                initial,
                "must be greater than 0",
            ));
        }
        if max < initial {
            errors.push(invalid(
                "podMaxBackoffSeconds",
                max,
                "must be greater than or equal to PodInitialBackoffSeconds",
            ));
        }
        Ok(Decoded {
            specs,
            raw_plugins,
            percentage_of_nodes_to_score: raw.percentage_of_nodes_to_score,
            errors,
            fit_errors,
        })
    }

    /// Validation errors, then what building each profile's framework
    /// refuses, then the merge.
    fn finish(self, version: Version, file: &str) -> Result<Profiles, ConfigError> {
        let invalid = |errors: Vec<FieldError>| ConfigError::Invalid {
            file: file.to_string(),
            errors,
        };
        if !self.errors.is_empty() {
            return Err(invalid(self.errors));
        }
        for (i, spec) in self.specs.iter().enumerate() {
            let fit_errors = &self.fit_errors[i];
            if !fit_errors.is_empty() {
                // Only a profile that runs NodeResourcesFit constructs it.
                let runs_fit = build_profile(spec, version).map_or(true, |p| {
                    p.runs_pre_filter(Plugin::NodeResourcesFit)
                        || p.runs_filter(Plugin::NodeResourcesFit)
                        || p.score_weight(Plugin::NodeResourcesFit).is_some()
                });
                if runs_fit {
                    return Err(invalid(fit_errors.clone()));
                }
            }
            let plugins = self.raw_plugins[i].clone().unwrap_or_default();
            let errors = validate_unmodelled_points(i, &spec.scheduler_name, &plugins);
            if !errors.is_empty() {
                return Err(invalid(errors));
            }
        }
        Profiles::from_specs(
            &self.specs,
            version,
            file.to_string(),
            self.percentage_of_nodes_to_score,
        )
        .map_err(|e| invalid(vec![FieldError::new(e.field, e.message)]))
    }
}

fn validate_percentage(field: &str, value: Option<i32>, errors: &mut Vec<FieldError>) {
    if let Some(p) = value
        && !(0..=100).contains(&p)
    {
        errors.push(invalid(field, p, "not in valid range [0-100]"));
    }
}

fn raw_points(p: &RawPlugins) -> [(&'static str, &RawPluginSet); 12] {
    [
        ("preEnqueue", &p.pre_enqueue),
        ("queueSort", &p.queue_sort),
        ("preFilter", &p.pre_filter),
        ("filter", &p.filter),
        ("postFilter", &p.post_filter),
        ("preScore", &p.pre_score),
        ("score", &p.score),
        ("reserve", &p.reserve),
        ("permit", &p.permit),
        ("preBind", &p.pre_bind),
        ("bind", &p.bind),
        ("postBind", &p.post_bind),
    ]
}

/// `validatePluginSetForInvalidPlugins` over every point but multiPoint.
fn validate_invalid_plugins(path: &str, plugins: &RawPlugins, errors: &mut Vec<FieldError>) {
    for (point, set) in raw_points(plugins) {
        for (k, p) in set.enabled.iter().enumerate() {
            if INVALID_PLUGINS.contains(&p.name.as_str()) {
                errors.push(invalid(
                    &format!("{path}.plugins.{point}.enabled[{k}]"),
                    q(&p.name),
                    &invalid_plugin_message(),
                ));
            }
        }
    }
}

/// `validateCommonQueueSort`: every profile's queueSort set equals the first's.
fn validate_common_queue_sort(plugins: &[Option<RawPlugins>], errors: &mut Vec<FieldError>) {
    let set = |p: &Option<RawPlugins>| p.as_ref().map(|p| p.queue_sort.clone()).unwrap_or_default();
    let canon = set(&plugins[0]);
    if canon.enabled.len() > 1 {
        errors.push(invalid(
            "profiles[0].plugins.queueSort.Enabled",
            canon.enabled.len(),
            "only one queue sort plugin can be enabled",
        ));
    }
    for (i, p) in plugins.iter().enumerate().skip(1) {
        let curr = set(p);
        if curr != canon {
            errors.push(invalid(
                &format!("profiles[{i}].plugins.queueSort"),
                internal_plugin_set_json(&curr),
                "must be the same for all profiles",
            ));
        }
    }
}

/// The internal `config.PluginSet` as `json.Marshal` prints it (no JSON tags).
fn internal_plugin_set_json(set: &RawPluginSet) -> String {
    let list = |v: &[RawPlugin]| {
        if v.is_empty() {
            "null".to_string()
        } else {
            let items: Vec<String> = v
                .iter()
                .map(|p| {
                    format!(
                        "{{\"Name\":{},\"Weight\":{}}}",
                        serde_json::to_string(&p.name).unwrap_or_default(),
                        p.weight.unwrap_or(0)
                    )
                })
                .collect();
            format!("[{}]", items.join(","))
        }
    };
    format!(
        "{{\"Enabled\":{},\"Disabled\":{}}}",
        list(&set.enabled),
        list(&set.disabled)
    )
}

fn plugin_set_spec(set: &RawPluginSet) -> PluginSetSpec {
    PluginSetSpec {
        enabled: set
            .enabled
            .iter()
            .map(|p| PluginRef {
                name: p.name.clone(),
                weight: p.weight,
            })
            .collect(),
        disabled: set.disabled.iter().map(|p| p.name.clone()).collect(),
    }
}

fn plugins_spec(p: &RawPlugins) -> PluginsSpec {
    PluginsSpec {
        multi_point: plugin_set_spec(&p.multi_point),
        pre_enqueue: plugin_set_spec(&p.pre_enqueue),
        queue_sort: plugin_set_spec(&p.queue_sort),
        pre_filter: plugin_set_spec(&p.pre_filter),
        filter: plugin_set_spec(&p.filter),
        post_filter: plugin_set_spec(&p.post_filter),
        pre_score: plugin_set_spec(&p.pre_score),
        score: plugin_set_spec(&p.score),
    }
}

/// The extension points [`PluginsSpec`] does not carry, checked as the
/// framework builds them (`updatePluginList`): plugins enabled there must
/// exist and implement the point, once; the profile needs exactly one
/// queue sort plugin and at least one bind plugin.
fn validate_unmodelled_points(i: usize, name: &str, p: &RawPlugins) -> Vec<FieldError> {
    // In-tree plugins implementing these points (PrioritySort: QueueSort;
    // VolumeBinding, DynamicResources: Reserve, PreBind; DefaultBinder: Bind).
    const POINTS: &[(&str, &str, &[&str])] = &[
        ("queueSort", "QueueSortPlugin", &["PrioritySort"]),
        (
            "reserve",
            "ReservePlugin",
            &["VolumeBinding", "DynamicResources"],
        ),
        ("permit", "PermitPlugin", &[]),
        (
            "preBind",
            "PreBindPlugin",
            &["VolumeBinding", "DynamicResources"],
        ),
        ("bind", "BindPlugin", &["DefaultBinder"]),
        ("postBind", "PostBindPlugin", &[]),
    ];
    let known = known_plugin_names();
    let mut errors = Vec::new();
    for &(field, kind, implementors) in POINTS {
        let set = match field {
            "queueSort" => &p.queue_sort,
            "reserve" => &p.reserve,
            "permit" => &p.permit,
            "preBind" => &p.pre_bind,
            "bind" => &p.bind,
            _ => &p.post_bind,
        };
        let mut seen: Vec<&str> = Vec::new();
        for (k, plugin) in set.enabled.iter().enumerate() {
            let f = format!("profiles[{i}].plugins.{field}.enabled[{k}].name");
            let n = plugin.name.as_str();
            if !known.contains(&n) {
                errors.push(FieldError::new(f, format!("{kind} {n:?} does not exist")));
            } else if !implementors.contains(&n) {
                errors.push(FieldError::new(
                    f,
                    format!("plugin {n:?} does not extend {kind} plugin"),
                ));
            } else if seen.contains(&n) {
                errors.push(FieldError::new(
                    f,
                    format!("plugin {n:?} already registered as {kind:?}"),
                ));
            }
            seen.push(n);
        }
        if !errors.is_empty() {
            return errors;
        }
    }
    // The queue sort and bind plugins after `expandMultiPointPlugins`: the
    // point's own, plus multiPoint's (the default PrioritySort/DefaultBinder
    // unless disabled there, and any enabled there) unless the point
    // disables them.
    let count = |set: &RawPluginSet, default: &str| {
        let mut names: Vec<&str> = Vec::new();
        for p in &set.enabled {
            if !names.contains(&p.name.as_str()) {
                names.push(&p.name);
            }
        }
        if set.disabled.iter().any(|d| d.name == "*") {
            return names.len();
        }
        let mp = &p.multi_point;
        let mut multi: Vec<&str> = Vec::new();
        if !mp
            .disabled
            .iter()
            .any(|d| d.name == "*" || d.name == default)
        {
            multi.push(default);
        }
        multi.extend(
            mp.enabled
                .iter()
                .filter(|e| e.name == default)
                .map(|e| e.name.as_str()),
        );
        for m in multi {
            if !set.disabled.iter().any(|d| d.name == m) && !names.contains(&m) {
                names.push(m);
            }
        }
        names.len()
    };
    let queue_sort = count(&p.queue_sort, "PrioritySort");
    if queue_sort != 1 {
        errors.push(FieldError::new(
            format!("profiles[{i}].plugins"),
            format!(
                "only one queue sort plugin required for profile with scheduler name {name:?}, but got {queue_sort}"
            ),
        ));
    }
    if count(&p.bind, "DefaultBinder") == 0 {
        errors.push(FieldError::new(
            format!("profiles[{i}].plugins"),
            format!("at least one bind plugin is needed for profile with scheduler name {name:?}"),
        ));
    }
    errors
}

/// The `apiVersion`/`kind` an args object may carry must be its own
/// (`decodeNestedObjects`).
fn check_args_type(
    plugin: &str,
    api_version: &Option<String>,
    kind: &Option<String>,
    path: &str,
    file: &str,
) -> Result<(), ConfigError> {
    let want = format!("{plugin}Args");
    let bad_version = api_version
        .as_deref()
        .is_some_and(|v| !v.is_empty() && v != API_VERSION);
    let bad_kind = kind.as_deref().is_some_and(|k| !k.is_empty() && k != want);
    if bad_version || bad_kind {
        return Err(ConfigError::Decode {
            file: file.to_string(),
            field: path.to_string(),
            message: format!(
                "args for plugin {plugin} were not of type {want}.{GROUP} ({API_VERSION}), got kind {:?} apiVersion {:?}",
                kind.as_deref().unwrap_or(""),
                api_version.as_deref().unwrap_or("")
            ),
            line: None,
        });
    }
    Ok(())
}

#[allow(clippy::too_many_arguments)]
fn decode_args(
    name: &str,
    value: serde_json::Value,
    path: &str,
    version: Version,
    file: &str,
    args: &mut PluginArgsSpec,
    errors: &mut Vec<FieldError>,
    fit_errors: &mut Vec<FieldError>,
) -> Result<(), ConfigError> {
    match name {
        "NodeResourcesFit" => {
            let raw: RawFitArgs = decode(value, path, file)?;
            check_args_type(name, &raw.api_version, &raw.kind, path, file)?;
            let (fit, errs) = fit_args(raw, path);
            fit_errors.extend(errs);
            args.node_resources_fit = fit;
        }
        "NodeResourcesBalancedAllocation" => {
            let raw: RawBalancedArgs = decode(value, path, file)?;
            check_args_type(name, &raw.api_version, &raw.kind, path, file)?;
            let resources = if raw.resources.is_empty() {
                default_resources()
            } else {
                default_weights(&raw.resources)
            };
            let mut seen: HashSet<&str> = HashSet::new();
            for (i, r) in resources.iter().enumerate() {
                if !seen.insert(&r.name) {
                    errors.push(duplicate(
                        &format!("{path}.resources[{i}].name"),
                        q(&r.name),
                    ));
                }
                if r.weight != 1 {
                    errors.push(invalid(
                        &format!("{path}.resources[{i}].weight"),
                        r.weight,
                        "must be 1",
                    ));
                }
            }
            args.balanced_allocation = Some(BalancedAllocationArgs { resources });
        }
        "PodTopologySpread" => {
            let raw: RawSpreadArgs = decode(value, path, file)?;
            check_args_type(name, &raw.api_version, &raw.kind, path, file)?;
            args.pod_topology_spread = spread_args(raw, path, errors, file)?;
        }
        "InterPodAffinity" => {
            let raw: RawInterPodAffinityArgs = decode(value, path, file)?;
            check_args_type(name, &raw.api_version, &raw.kind, path, file)?;
            let weight = raw.hard_pod_affinity_weight.unwrap_or(1);
            if !(0..=100).contains(&weight) {
                errors.push(invalid(
                    &format!("{path}.hardPodAffinityWeight"),
                    weight,
                    "not in valid range [0, 100]",
                ));
            }
            args.inter_pod_affinity = Some(InterPodAffinityArgs {
                hard_pod_affinity_weight: weight,
                ignore_preferred_terms_of_existing_pods: raw
                    .ignore_preferred_terms_of_existing_pods,
            });
        }
        "NodeAffinity" => {
            let raw: RawNodeAffinityArgs = decode(value, path, file)?;
            check_args_type(name, &raw.api_version, &raw.kind, path, file)?;
            args.node_affinity = Some(node_affinity_args(raw, path, errors));
        }
        "DefaultPreemption" => {
            let raw: RawPreemptionArgs = decode(value, path, file)?;
            check_args_type(name, &raw.api_version, &raw.kind, path, file)?;
            let pct = raw.min_candidate_nodes_percentage.unwrap_or(10);
            let abs = raw.min_candidate_nodes_absolute.unwrap_or(100);
            let pct_path = format!("{path}.minCandidateNodesPercentage");
            let abs_path = format!("{path}.minCandidateNodesAbsolute");
            if !(0..=100).contains(&pct) {
                errors.push(invalid(&pct_path, pct, "not in valid range [0, 100]"));
            }
            if abs < 0 {
                errors.push(invalid(&abs_path, abs, "not in valid range [0, inf)"));
            }
            if pct == 0 && abs == 0 {
                errors.push(invalid(
                    &pct_path,
                    pct,
                    "cannot be zero at the same time as minCandidateNodesAbsolute",
                ));
                errors.push(invalid(
                    &abs_path,
                    abs,
                    "cannot be zero at the same time as minCandidateNodesPercentage",
                ));
            }
            args.default_preemption = Some(PreemptionArgs {
                min_candidate_nodes_percentage: pct,
                min_candidate_nodes_absolute: abs,
            });
        }
        "VolumeBinding" => {
            let raw: RawVolumeBindingArgs = decode(value, path, file)?;
            check_args_type(name, &raw.api_version, &raw.kind, path, file)?;
            let timeout = raw.bind_timeout_seconds.unwrap_or(600);
            if timeout < 0 {
                errors.push(invalid(
                    &format!("{path}.bindTimeoutSeconds"),
                    timeout,
                    "invalid BindTimeoutSeconds, should not be a negative value",
                ));
            }
            if let Some(shape) = &raw.shape {
                // The gate is off by default in every supported release.
                let gate = if version >= Version::V1_33 {
                    "StorageCapacityScoring"
                } else {
                    "VolumeCapacityPriority"
                };
                let points: Vec<String> = shape
                    .iter()
                    .map(|p| {
                        format!(
                            "{{\"utilization\":{},\"score\":{}}}",
                            p.utilization, p.score
                        )
                    })
                    .collect();
                errors.push(invalid(
                    &format!("{path}.shape"),
                    format!("[{}]", points.join(",")),
                    &format!(
                        "unexpected field `shape`, remove it or turn on the feature gate {gate}"
                    ),
                ));
            }
        }
        "DynamicResources" => {
            let raw: RawDynamicResourcesArgs = decode(value, path, file)?;
            check_args_type(name, &raw.api_version, &raw.kind, path, file)?;
            if let Some(timeout) = &raw.filter_timeout {
                match go_duration_nanos(timeout) {
                    None => {
                        return Err(ConfigError::Decode {
                            file: file.to_string(),
                            field: format!("{path}.filterTimeout"),
                            message: format!("time: invalid duration {timeout:?}"),
                            line: None,
                        });
                    }
                    Some(n) if n < 0 => errors.push(invalid(
                        &format!("{path}.filterTimeout"),
                        q(timeout),
                        "must be zero or positive",
                    )),
                    Some(_) => {}
                }
            }
        }
        _ => {}
    }
    Ok(())
}

/// A resource weight of 0 (or unset) is 1 (`SetDefaults_*Args`).
fn default_weights(resources: &[RawResource]) -> Vec<ResourceWeight> {
    resources
        .iter()
        .map(|r| ResourceWeight {
            name: r.name.clone(),
            weight: if r.weight == 0 { 1 } else { r.weight },
        })
        .collect()
}

/// `SetDefaults_NodeResourcesFitArgs`, then `ValidateNodeResourcesFitArgs`
/// and `NewFit`'s checks.
fn fit_args(raw: RawFitArgs, path: &str) -> (Option<FitArgs>, Vec<FieldError>) {
    let mut errs = Vec::new();
    for (i, r) in raw.ignored_resources.iter().enumerate() {
        validate_label_name(r, &format!("{path}.ignoredResources[{i}]"), &mut errs);
    }
    for (i, g) in raw.ignored_resource_groups.iter().enumerate() {
        let f = format!("{path}.ignoredResourceGroups[{i}]");
        if g.contains('/') {
            errs.push(invalid(&f, q(g), "resource group name can't contain '/'"));
        }
        validate_label_name(g, &f, &mut errs);
    }
    let (type_, resources, rtcr) = match raw.scoring_strategy {
        None => ("LeastAllocated".to_string(), vec![], None),
        Some(s) => (s.type_, s.resources, s.requested_to_capacity_ratio),
    };
    let resources = if resources.is_empty() {
        default_resources()
    } else {
        default_weights(&resources)
    };
    let sp = format!("{path}.scoringStrategy");
    const TYPES: [&str; 3] = [
        "LeastAllocated",
        "MostAllocated",
        "RequestedToCapacityRatio",
    ];
    if !TYPES.contains(&type_.as_str()) {
        errs.push(not_supported(&format!("{sp}.type"), &type_, &TYPES));
    }
    for (i, r) in resources.iter().enumerate() {
        if r.weight <= 0 || r.weight > 100 {
            errs.push(invalid(
                &format!("{sp}.resources[{i}].weight"),
                r.weight,
                &format!("resource weight of {} not in valid range (0, 100]", r.name),
            ));
        }
    }
    // Upstream names this path scoringStrategy.shape; kplace names the field.
    let shape_path = format!("{sp}.requestedToCapacityRatio.shape");
    if let Some(r) = &rtcr {
        validate_shape(&r.shape, &shape_path, &mut errs);
    }
    let strategy = match type_.as_str() {
        "LeastAllocated" => ScoringStrategy::LeastAllocated,
        "MostAllocated" => ScoringStrategy::MostAllocated,
        "RequestedToCapacityRatio" => match rtcr {
            Some(r) => ScoringStrategy::RequestedToCapacityRatio(
                r.shape
                    .iter()
                    .map(|p| ShapePoint {
                        utilization: p.utilization,
                        score: p.score,
                    })
                    .collect(),
            ),
            None => {
                errs.push(required(
                    &format!("{sp}.requestedToCapacityRatio"),
                    "kube-scheduler dereferences it for type RequestedToCapacityRatio and \
                     crashes at startup without it",
                ));
                ScoringStrategy::LeastAllocated
            }
        },
        _ => ScoringStrategy::LeastAllocated,
    };
    (
        Some(FitArgs {
            ignored_resources: raw.ignored_resources,
            ignored_resource_groups: raw.ignored_resource_groups,
            strategy,
            resources,
        }),
        errs,
    )
}

/// `validateFunctionShape`.
fn validate_shape(shape: &[RawShapePoint], path: &str, errs: &mut Vec<FieldError>) {
    if shape.is_empty() {
        errs.push(required(path, "at least one point must be specified"));
        return;
    }
    for i in 1..shape.len() {
        if shape[i - 1].utilization >= shape[i].utilization {
            errs.push(invalid(
                &format!("{path}[{i}].utilization"),
                shape[i].utilization,
                "values must be sorted in increasing order",
            ));
            break;
        }
    }
    for (i, p) in shape.iter().enumerate() {
        if !(0..=100).contains(&p.utilization) {
            errs.push(invalid(
                &format!("{path}[{i}].utilization"),
                p.utilization,
                "not in valid range [0, 100]",
            ));
        }
        if !(0..=10).contains(&p.score) {
            errs.push(invalid(
                &format!("{path}[{i}].score"),
                p.score,
                "not in valid range [0, 10]",
            ));
        }
    }
}

/// `SetDefaults_PodTopologySpreadArgs` and `ValidatePodTopologySpreadArgs`.
fn spread_args(
    raw: RawSpreadArgs,
    path: &str,
    errors: &mut Vec<FieldError>,
    file: &str,
) -> Result<Option<SpreadArgs>, ConfigError> {
    let defaulting = if raw.defaulting_type.is_empty() {
        "System".to_string()
    } else {
        raw.defaulting_type
    };
    let dt_path = format!("{path}.defaultingType");
    if defaulting != "System" && defaulting != "List" {
        errors.push(not_supported(&dt_path, &defaulting, &["System", "List"]));
    } else if defaulting == "System" && !raw.default_constraints.is_empty() {
        errors.push(invalid(
            &dt_path,
            q(&defaulting),
            "when .defaultConstraints are not empty",
        ));
    }
    let dc_path = format!("{path}.defaultConstraints");
    let mut constraints = Vec::new();
    for (i, c) in raw.default_constraints.iter().enumerate() {
        let p = format!("{dc_path}[{i}]");
        if c.max_skew <= 0 {
            errors.push(invalid(
                &format!("{p}.maxSkew"),
                c.max_skew,
                "not in valid range (0, inf)",
            ));
        }
        let tk = format!("{p}.topologyKey");
        if c.topology_key.is_empty() {
            errors.push(required(&tk, "can not be empty"));
        } else {
            validate_label_name(&c.topology_key, &tk, errors);
        }
        let wu = format!("{p}.whenUnsatisfiable");
        let when = match c.when_unsatisfiable.as_str() {
            "" => {
                errors.push(required(&wu, "can not be empty"));
                None
            }
            "DoNotSchedule" => Some(WhenUnsatisfiable::DoNotSchedule),
            "ScheduleAnyway" => Some(WhenUnsatisfiable::ScheduleAnyway),
            other => {
                errors.push(not_supported(
                    &wu,
                    other,
                    &["DoNotSchedule", "ScheduleAnyway"],
                ));
                None
            }
        };
        if c.label_selector.as_ref().is_some_and(|s| !s.is_null()) {
            errors.push(forbidden(
                &format!("{p}.labelSelector"),
                "constraint must not define a selector, as they deduced for each pod",
            ));
        }
        if let Some(other) = raw.default_constraints[..i].iter().find(|o| {
            o.topology_key == c.topology_key && o.when_unsatisfiable == c.when_unsatisfiable
        }) {
            errors.push(duplicate(
                &p,
                q(&format!(
                    "{{{}, {}}}",
                    other.topology_key, other.when_unsatisfiable
                )),
            ));
        }
        // Fields upstream accepts and honours in default constraints but
        // kplace's profile cannot carry: refuse rather than answer wrongly.
        let unsupported = [
            ("minDomains", c.min_domains.is_some()),
            ("nodeAffinityPolicy", c.node_affinity_policy.is_some()),
            ("nodeTaintsPolicy", c.node_taints_policy.is_some()),
            ("matchLabelKeys", c.match_label_keys.is_some()),
        ];
        if let Some((field, _)) = unsupported.iter().find(|(_, set)| *set) {
            return Err(ConfigError::Decode {
                file: file.to_string(),
                field: format!("{p}.{field}"),
                message: format!(
                    "kplace does not support {field} in default constraints (kube-scheduler \
                     does); remove it to see answers without it"
                ),
                line: None,
            });
        }
        if let Some(when) = when {
            constraints.push(DefaultConstraint {
                max_skew: c.max_skew,
                topology_key: c.topology_key.clone(),
                when_unsatisfiable: when,
            });
        }
    }
    Ok(Some(SpreadArgs {
        defaulting: if defaulting == "List" {
            SpreadDefaulting::List(constraints)
        } else {
            SpreadDefaulting::System
        },
    }))
}

/// `ValidateNodeAffinityArgs` (`nodeaffinity.NewNodeSelector` and
/// `NewPreferredSchedulingTerms`). Empty terms are skipped as upstream
/// skips them, and preferred terms of weight 0.
fn node_affinity_args(
    raw: RawNodeAffinityArgs,
    path: &str,
    errors: &mut Vec<FieldError>,
) -> NodeAffinityArgs {
    let Some(affinity) = raw.added_affinity else {
        return NodeAffinityArgs::default();
    };
    let base = format!("{path}.addedAffinity");
    let added_required = affinity
        .required_during_scheduling_ignored_during_execution
        .map(|ns| {
            let terms_path =
                format!("{base}.requiredDuringSchedulingIgnoredDuringExecution.nodeSelectorTerms");
            ns.node_selector_terms
                .iter()
                .enumerate()
                .filter(|(_, t)| !t.match_expressions.is_empty() || !t.match_fields.is_empty())
                .map(|(i, t)| added_term(t, &format!("{terms_path}[{i}]"), errors))
                .collect()
        });
    let pref_path = format!("{base}.preferredDuringSchedulingIgnoredDuringExecution");
    let added_preferred = affinity
        .preferred_during_scheduling_ignored_during_execution
        .iter()
        .enumerate()
        .filter(|(_, t)| {
            t.weight != 0
                && (!t.preference.match_expressions.is_empty()
                    || !t.preference.match_fields.is_empty())
        })
        .map(|(i, t)| {
            (
                t.weight,
                added_term(&t.preference, &format!("{pref_path}[{i}]"), errors),
            )
        })
        .collect();
    NodeAffinityArgs {
        added_required,
        added_preferred,
    }
}

fn added_term(t: &RawTerm, path: &str, errors: &mut Vec<FieldError>) -> AddedTerm {
    let mut term = AddedTerm::default();
    for (i, r) in t.match_expressions.iter().enumerate() {
        let p = format!("{path}.matchExpressions[{i}]");
        let op = match r.operator.as_str() {
            "In" => NodeSelectorOperator::In,
            "NotIn" => NodeSelectorOperator::NotIn,
            "Exists" => NodeSelectorOperator::Exists,
            "DoesNotExist" => NodeSelectorOperator::DoesNotExist,
            "Gt" => NodeSelectorOperator::Gt,
            "Lt" => NodeSelectorOperator::Lt,
            other => {
                errors.push(not_supported(
                    &format!("{p}.operator"),
                    other,
                    &["In", "NotIn", "Exists", "DoesNotExist", "Gt", "Lt"],
                ));
                continue;
            }
        };
        // `labels.NewRequirement`.
        let key_errors = qualified_name_errors(&r.key);
        if !key_errors.is_empty() {
            errors.push(invalid(
                &format!("{p}.key"),
                q(&r.key),
                &key_errors.join("; "),
            ));
        }
        let values = r.values.clone().unwrap_or_default();
        let vp = format!("{p}.values");
        match op {
            NodeSelectorOperator::In | NodeSelectorOperator::NotIn if values.is_empty() => {
                errors.push(invalid(
                    &vp,
                    json_strings(&r.values),
                    "for 'in', 'notin' operators, values set can't be empty",
                ));
            }
            NodeSelectorOperator::Exists | NodeSelectorOperator::DoesNotExist
                if !values.is_empty() =>
            {
                errors.push(invalid(
                    &vp,
                    json_strings(&r.values),
                    "values set must be empty for exists and does not exist",
                ));
            }
            NodeSelectorOperator::Gt | NodeSelectorOperator::Lt => {
                if values.len() != 1 {
                    errors.push(invalid(
                        &vp,
                        json_strings(&r.values),
                        "for 'Gt', 'Lt' operators, exactly one value is required",
                    ));
                }
                for (k, v) in values.iter().enumerate() {
                    if v.parse::<i64>().is_err() {
                        errors.push(invalid(
                            &format!("{vp}[{k}]"),
                            q(v),
                            "for 'Gt', 'Lt' operators, the value must be an integer",
                        ));
                    }
                }
            }
            _ => {}
        }
        for (k, v) in values.iter().enumerate() {
            let msgs = label_value_errors(v);
            if !msgs.is_empty() {
                errors.push(invalid(
                    &format!("{vp}[{k}][{}]", r.key),
                    q(v),
                    &msgs.join("; "),
                ));
            }
        }
        term.match_expressions.push(AddedRequirement {
            key: r.key.clone(),
            operator: op,
            values,
        });
    }
    for (i, r) in t.match_fields.iter().enumerate() {
        let p = format!("{path}.matchFields[{i}]");
        let op = match r.operator.as_str() {
            "In" => NodeSelectorOperator::In,
            "NotIn" => NodeSelectorOperator::NotIn,
            other => {
                errors.push(not_supported(
                    &format!("{p}.operator"),
                    other,
                    &["In", "NotIn"],
                ));
                continue;
            }
        };
        let values = r.values.clone().unwrap_or_default();
        if values.len() != 1 {
            errors.push(invalid(
                &format!("{p}.values"),
                json_strings(&r.values),
                "must have one element",
            ));
        }
        term.match_fields.push(AddedRequirement {
            key: r.key.clone(),
            operator: op,
            values,
        });
    }
    term
}

/// Go's `time.ParseDuration`, in nanoseconds (saturating); `None` when invalid.
fn go_duration_nanos(s: &str) -> Option<i128> {
    let (neg, mut rest) = match s.as_bytes().first() {
        Some(b'-') => (true, &s[1..]),
        Some(b'+') => (false, &s[1..]),
        _ => (false, s),
    };
    if rest == "0" {
        return Some(0);
    }
    if rest.is_empty() {
        return None;
    }
    let mut total: f64 = 0.0;
    while !rest.is_empty() {
        let num_len = rest
            .find(|c: char| !(c.is_ascii_digit() || c == '.'))
            .unwrap_or(rest.len());
        let num = &rest[..num_len];
        if num.is_empty() || num == "." || num.matches('.').count() > 1 {
            return None;
        }
        let value: f64 = num.parse().ok()?;
        rest = &rest[num_len..];
        let unit_len = rest
            .find(|c: char| c.is_ascii_digit() || c == '.')
            .unwrap_or(rest.len());
        let scale = match &rest[..unit_len] {
            "ns" => 1.0,
            "us" | "µs" | "μs" => 1e3,
            "ms" => 1e6,
            "s" => 1e9,
            "m" => 60e9,
            "h" => 3600e9,
            _ => return None,
        };
        rest = &rest[unit_len..];
        total += value * scale;
    }
    let n = total as i128;
    Some(if neg { -n } else { n })
}

#[cfg(test)]
mod tests;
