//! A draft: a full Pod manifest kept as a structured document (which the
//! form edits and which renders to YAML), the YAML text, and the last pod
//! that parsed. Parsing goes through `source::file::load_pod_bytes`, so an
//! invalid draft gets the API server's message naming the field.

use serde_json::{Map, Value, json};

use crate::engine::statefulset;
use crate::model::dra::ResourceClaim;
use crate::model::labels::{LabelSelector, SetOperator};
use crate::model::pod::{
    AffinityTerm, InclusionPolicy, InlineDisk, NodeSelectorOperator, NodeSelectorTerm, PodVolume,
    TolerationOperator, WhenUnsatisfiable,
};
use crate::model::policy::{SelectorOwner, StatefulSetSpec};
use crate::model::{Cluster, Interner, Pod};
use crate::source::file::{load_owner_values, load_pod_with_claims_bytes};
use crate::source::workload::{ExpandError, Workload, expand};

/// How parse errors name the draft (stripped before showing them).
pub const DRAFT_FILE: &str = "draft";

/// Shown in the view: the draft is rebuilt from the engine model.
pub const FIELDS_NOTE: &str = "The draft holds the scheduling-relevant fields the model keeps (one container with the pod's total requests).";

#[derive(Clone, Debug)]
pub struct Draft {
    /// The manifest; the form edits it, the YAML is rendered from it.
    pub doc: Value,
    /// ResourceClaims written beside the pod (the YAML's later documents):
    /// what-if device claims, which replace the snapshot's of the same name.
    pub claims: Vec<Value>,
    pub yaml: String,
    /// The last draft that parsed.
    pub pod: Option<Pod>,
    /// The parsed `claims` of that draft.
    pub pod_claims: Vec<ResourceClaim>,
    /// Why the current draft does not parse (the API server's words).
    pub error: Option<String>,
    /// Whether `pod` is the current draft (no error since).
    pub valid: bool,
    /// The controllers of a workload's pod (a Deployment's ReplicaSet, a
    /// StatefulSet), which join the cluster for the draft's answers.
    /// (As documents: each answer converts them with its cluster's strings.)
    pub controllers: Vec<Value>,
    /// The workload the draft was made from.
    pub workload: Option<Workload>,
}

impl Draft {
    pub fn new(doc: Value) -> Draft {
        Draft::with_claims(doc, Vec::new())
    }

    /// A pod and the ResourceClaims written beside it.
    pub fn with_claims(doc: Value, claims: Vec<Value>) -> Draft {
        let yaml = render_docs(&doc, &claims);
        Draft {
            doc,
            claims,
            yaml,
            pod: None,
            pod_claims: Vec::new(),
            error: None,
            valid: false,
            controllers: Vec::new(),
            workload: None,
        }
    }

    /// `metadata.name`.
    pub fn name(&self) -> String {
        self.doc
            .pointer("/metadata/name")
            .and_then(Value::as_str)
            .unwrap_or("draft")
            .to_string()
    }

    /// `namespace/name`.
    pub fn key(&self) -> String {
        let ns = self
            .doc
            .pointer("/metadata/namespace")
            .and_then(Value::as_str)
            .unwrap_or("default");
        format!("{ns}/{}", self.name())
    }

    /// Replaces the document (form edit, YAML edit) and re-parses.
    pub fn set_doc(&mut self, doc: Value, interner: &mut Interner) {
        let claims = std::mem::take(&mut self.claims);
        self.set_docs(doc, claims, interner);
    }

    /// Replaces the pod and its claims and re-parses.
    pub fn set_docs(&mut self, doc: Value, claims: Vec<Value>, interner: &mut Interner) {
        self.doc = doc;
        self.claims = claims;
        self.yaml = render_docs(&self.doc, &self.claims);
        self.reparse(interner);
    }

    /// Parses `yaml`; on success the pod becomes the last valid one.
    pub fn reparse(&mut self, interner: &mut Interner) {
        match load_pod_with_claims_bytes(self.yaml.as_bytes(), DRAFT_FILE, interner) {
            Ok((pod, claims)) => {
                self.pod = Some(pod);
                self.pod_claims = claims;
                self.error = None;
                self.valid = true;
            }
            Err(e) => {
                self.error = Some(clean_error(&e.to_string()));
                self.valid = false;
            }
        }
    }

    /// Takes edited YAML text: a syntax error is returned (the document is
    /// kept as it was); otherwise the text becomes the draft.
    pub fn set_yaml(&mut self, text: &str, interner: &mut Interner) -> Result<(), String> {
        self.set_yaml_choosing(text, None, interner)
    }

    /// [`Draft::set_yaml`] for a Pod or a workload (Deployment, ReplicaSet,
    /// StatefulSet, DaemonSet, Job, CronJob: the pod its controller
    /// creates), alone or among other objects; `select` (`KIND/NAME`)
    /// picks one of several.
    pub fn set_yaml_choosing(
        &mut self,
        text: &str,
        select: Option<&str>,
        interner: &mut Interner,
    ) -> Result<(), String> {
        // Read as snapshot files are (strict booleans: `yes` is a string),
        // so a draft means what the same text in a file would.
        let options = serde_saphyr::options! { strict_booleans: true };
        let docs: Vec<Value> =
            serde_saphyr::from_multiple_with_options(text, options).map_err(|e| {
                let message = crate::source::file::yaml_message(&e);
                match e.location() {
                    Some(at) => format!("line {}: {message}", at.line()),
                    None => message,
                }
            })?;
        if docs.iter().any(|d| !d.is_null() && !d.is_object()) {
            return Err(DRAFT_SHAPE.into());
        }
        // A document without a kind is the draft's pod, as before.
        let docs: Vec<Value> = docs
            .into_iter()
            .map(|mut d| {
                if d.is_object() && d.get("kind").is_none() {
                    d["kind"] = Value::from("Pod");
                }
                d
            })
            .collect();
        let e = expand(docs, select).map_err(|e| match e {
            ExpandError::Nothing => DRAFT_SHAPE.to_string(),
            e => e.message("`:load FILE KIND/NAME`"),
        })?;
        if e.workload.is_some() || !e.controllers.is_empty() {
            // Checked here, converted again for each answer (a workload's
            // controllers, the Services beside the pod).
            load_owner_values(&e.controllers, DRAFT_FILE, interner)
                .map_err(|e| clean_error(&e.to_string()))?;
            self.controllers = e.controllers;
            self.workload = e.workload;
        }
        self.set_docs(e.pod, e.claims, interner);
        Ok(())
    }
}

/// The error without the `draft: ` file prefix and the `Pod ns/name: `
/// object (with the document line before it: the draft is one object, and
/// the error names its field). Syntax errors keep their line.
pub fn clean_error(text: &str) -> String {
    let t = text
        .strip_prefix(&format!("{DRAFT_FILE}: "))
        .or_else(|| text.strip_prefix(&format!("{DRAFT_FILE}:")))
        .unwrap_or(text);
    let t = match t.split_once(": ") {
        Some((line, rest))
            if !line.is_empty()
                && line.chars().all(|c| c.is_ascii_digit())
                && rest.starts_with("Pod ") =>
        {
            rest
        }
        _ => t,
    };
    match t.strip_prefix("Pod ").and_then(|r| r.split_once(": ")) {
        Some((_, rest)) => rest.to_string(),
        None => t.to_string(),
    }
}

/// What a draft may hold.
const DRAFT_SHAPE: &str = "the draft must be one Pod or workload (a YAML mapping), optionally followed by ResourceClaims after `---`";

/// The pod's YAML, then each claim's after `---`.
pub fn render_docs(doc: &Value, claims: &[Value]) -> String {
    let mut out = render_yaml(doc);
    for c in claims {
        out.push_str("---\n");
        out.push_str(&render_yaml(c));
    }
    out
}

pub fn render_yaml(doc: &Value) -> String {
    serde_saphyr::to_string(doc).unwrap_or_else(|e| format!("# cannot render: {e}\n"))
}

pub use crate::model::quantity::{bytes_quantity, cpu_quantity};

fn selector_json(sel: &LabelSelector, interner: &Interner, skip_keys: &[String]) -> Option<Value> {
    let reqs = match sel {
        LabelSelector::Nothing => return None,
        LabelSelector::Requirements(r) => r,
    };
    let mut labels = Map::new();
    let mut exprs = Vec::new();
    for r in reqs.iter() {
        let key = interner.resolve(r.key).to_string();
        if skip_keys.contains(&key) {
            continue;
        }
        let values: Vec<Value> = r
            .values
            .iter()
            .map(|v| Value::String(interner.resolve(*v).to_string()))
            .collect();
        if r.op == SetOperator::In && values.len() == 1 {
            labels.insert(key, values[0].clone());
            continue;
        }
        let op = match r.op {
            SetOperator::In => "In",
            SetOperator::NotIn => "NotIn",
            SetOperator::Exists => "Exists",
            SetOperator::DoesNotExist => "DoesNotExist",
        };
        let mut e = json!({"key": key, "operator": op});
        if !values.is_empty() {
            e["values"] = Value::Array(values);
        }
        exprs.push(e);
    }
    let mut out = Map::new();
    if !labels.is_empty() {
        out.insert("matchLabels".into(), Value::Object(labels));
    }
    if !exprs.is_empty() {
        out.insert("matchExpressions".into(), Value::Array(exprs));
    }
    Some(Value::Object(out))
}

fn node_term_json(t: &NodeSelectorTerm, interner: &Interner) -> Value {
    let mut out = Map::new();
    let exprs: Vec<Value> = t
        .expressions
        .iter()
        .map(|e| {
            let op = match e.op {
                NodeSelectorOperator::In => "In",
                NodeSelectorOperator::NotIn => "NotIn",
                NodeSelectorOperator::Exists => "Exists",
                NodeSelectorOperator::DoesNotExist => "DoesNotExist",
                NodeSelectorOperator::Gt => "Gt",
                NodeSelectorOperator::Lt => "Lt",
            };
            let mut v = json!({"key": interner.resolve(e.key), "operator": op});
            if !e.values.is_empty() {
                v["values"] = e
                    .values
                    .iter()
                    .map(|s| Value::String(interner.resolve(*s).to_string()))
                    .collect();
            }
            v
        })
        .collect();
    if !exprs.is_empty() {
        out.insert("matchExpressions".into(), Value::Array(exprs));
    }
    let fields: Vec<Value> = t
        .fields
        .iter()
        .map(|f| {
            json!({"key": "metadata.name", "operator": if f.not_in { "NotIn" } else { "In" },
                   "values": [f.name.to_string()]})
        })
        .collect();
    if !fields.is_empty() {
        out.insert("matchFields".into(), Value::Array(fields));
    }
    Value::Object(out)
}

fn affinity_term_json(t: &AffinityTerm, own_ns: crate::model::Sym, interner: &Interner) -> Value {
    let mut out = Map::new();
    if let Some(sel) = selector_json(&t.selector, interner, &[]) {
        out.insert("labelSelector".into(), sel);
    }
    let default_ns = t.namespaces.len() == 1
        && t.namespaces[0] == own_ns
        && t.namespace_selector == LabelSelector::Nothing;
    if !default_ns && !t.namespaces.is_empty() {
        out.insert(
            "namespaces".into(),
            t.namespaces
                .iter()
                .map(|n| Value::String(interner.resolve(*n).to_string()))
                .collect(),
        );
    }
    if let Some(sel) = selector_json(&t.namespace_selector, interner, &[]) {
        out.insert("namespaceSelector".into(), sel);
    }
    out.insert(
        "topologyKey".into(),
        Value::String(interner.resolve(t.topology_key).to_string()),
    );
    Value::Object(out)
}

/// The manifest of a model pod: the fields the engine reads. `name`
/// replaces the pod's name; node, status and uid are left out.
pub fn pod_doc(cluster: &Cluster, pod: &Pod, name: &str) -> Value {
    let i = &cluster.interner;
    let mut meta = Map::new();
    meta.insert("name".into(), name.into());
    meta.insert("namespace".into(), i.resolve(pod.namespace).into());
    if !pod.labels.is_empty() {
        let labels: Map<String, Value> = pod
            .labels
            .to_strings(i)
            .into_iter()
            .map(|(k, v)| (k, Value::String(v)))
            .collect();
        meta.insert("labels".into(), Value::Object(labels));
    }
    if let Some(c) = &pod.controller {
        meta.insert(
            "ownerReferences".into(),
            json!([{"apiVersion": c.api_version.to_string(), "kind": c.kind.to_string(),
                    "name": c.name.to_string(), "uid": "", "controller": true}]),
        );
    }
    let mut spec = Map::new();
    if let Some(pc) = &pod.priority_class_name {
        spec.insert("priorityClassName".into(), pc.to_string().into());
    }
    if &*pod.scheduler_name != "default-scheduler" && !pod.scheduler_name.is_empty() {
        spec.insert(
            "schedulerName".into(),
            pod.scheduler_name.to_string().into(),
        );
    }
    if let Some(ns) = &pod.node_selector {
        let m: Map<String, Value> = ns
            .iter()
            .map(|(k, v)| {
                (
                    i.resolve(*k).to_string(),
                    Value::String(i.resolve(*v).to_string()),
                )
            })
            .collect();
        spec.insert("nodeSelector".into(), Value::Object(m));
    }
    let mut affinity = Map::new();
    if let Some(na) = &pod.node_affinity {
        let mut m = Map::new();
        if let Some(req) = &na.required {
            let terms: Vec<Value> = req.iter().map(|t| node_term_json(t, i)).collect();
            m.insert(
                "requiredDuringSchedulingIgnoredDuringExecution".into(),
                json!({ "nodeSelectorTerms": terms }),
            );
        }
        if !na.preferred.is_empty() {
            let prefs: Vec<Value> = na
                .preferred
                .iter()
                .map(|(w, t)| json!({"weight": w, "preference": node_term_json(t, i)}))
                .collect();
            m.insert(
                "preferredDuringSchedulingIgnoredDuringExecution".into(),
                Value::Array(prefs),
            );
        }
        affinity.insert("nodeAffinity".into(), Value::Object(m));
    }
    if let Some(pa) = &pod.pod_affinity {
        let group = |req: &[AffinityTerm], pref: &[crate::model::pod::WeightedAffinityTerm]| {
            let mut m = Map::new();
            if !req.is_empty() {
                m.insert(
                    "requiredDuringSchedulingIgnoredDuringExecution".into(),
                    req.iter()
                        .map(|t| affinity_term_json(t, pod.namespace, i))
                        .collect(),
                );
            }
            if !pref.is_empty() {
                m.insert(
                    "preferredDuringSchedulingIgnoredDuringExecution".into(),
                    pref.iter()
                        .map(|w| {
                            json!({"weight": w.weight,
                                   "podAffinityTerm": affinity_term_json(&w.term, pod.namespace, i)})
                        })
                        .collect(),
                );
            }
            m
        };
        let a = group(&pa.required_affinity, &pa.preferred_affinity);
        if !a.is_empty() {
            affinity.insert("podAffinity".into(), Value::Object(a));
        }
        let a = group(&pa.required_anti_affinity, &pa.preferred_anti_affinity);
        if !a.is_empty() {
            affinity.insert("podAntiAffinity".into(), Value::Object(a));
        }
    }
    if !affinity.is_empty() {
        spec.insert("affinity".into(), Value::Object(affinity));
    }
    if !pod.tolerations.is_empty() {
        let t: Vec<Value> = pod
            .tolerations
            .iter()
            .map(|t| {
                let mut m = Map::new();
                if !t.key.is_empty() {
                    m.insert("key".into(), t.key.to_string().into());
                }
                let op = match t.operator {
                    TolerationOperator::Exists => "Exists",
                    _ => "Equal",
                };
                m.insert("operator".into(), op.into());
                if !t.value.is_empty() {
                    m.insert("value".into(), t.value.to_string().into());
                }
                if let Some(e) = t.effect {
                    m.insert("effect".into(), e.as_str().into());
                }
                Value::Object(m)
            })
            .collect();
        spec.insert("tolerations".into(), Value::Array(t));
    }
    if !pod.spread_constraints.is_empty() {
        let c: Vec<Value> = pod
            .spread_constraints
            .iter()
            .map(|c| {
                let keys: Vec<String> = c
                    .match_label_keys
                    .iter()
                    .map(|k| i.resolve(*k).to_string())
                    .collect();
                let mut m = Map::new();
                m.insert("maxSkew".into(), c.max_skew.into());
                m.insert("topologyKey".into(), i.resolve(c.topology_key).into());
                let when = match c.when_unsatisfiable {
                    WhenUnsatisfiable::DoNotSchedule => "DoNotSchedule",
                    WhenUnsatisfiable::ScheduleAnyway => "ScheduleAnyway",
                };
                m.insert("whenUnsatisfiable".into(), when.into());
                if let Some(sel) = selector_json(&c.selector, i, &keys) {
                    m.insert("labelSelector".into(), sel);
                }
                if let Some(md) = c.min_domains {
                    m.insert("minDomains".into(), md.into());
                }
                if c.node_affinity_policy == InclusionPolicy::Ignore {
                    m.insert("nodeAffinityPolicy".into(), "Ignore".into());
                }
                if c.node_taints_policy == InclusionPolicy::Honor {
                    m.insert("nodeTaintsPolicy".into(), "Honor".into());
                }
                if !keys.is_empty() {
                    m.insert("matchLabelKeys".into(), keys.into());
                }
                Value::Object(m)
            })
            .collect();
        spec.insert("topologySpreadConstraints".into(), Value::Array(c));
    }
    let mut requests = Map::new();
    let r = &pod.requests;
    if r.milli_cpu > 0 {
        requests.insert("cpu".into(), cpu_quantity(r.milli_cpu).into());
    }
    if r.memory > 0 {
        requests.insert("memory".into(), bytes_quantity(r.memory).into());
    }
    if r.ephemeral_storage > 0 {
        requests.insert(
            "ephemeral-storage".into(),
            bytes_quantity(r.ephemeral_storage).into(),
        );
    }
    // An extended resource or huge pages cannot be overcommitted: the API
    // server wants its limit, equal to the request.
    let mut limits = Map::new();
    for &(name, v) in &r.scalars {
        let n = i.resolve(name);
        let q = if n.starts_with("hugepages-") {
            bytes_quantity(v)
        } else {
            v.to_string()
        };
        if !crate::source::convert::requests::is_overcommit_allowed(n) {
            limits.insert(n.to_string(), q.clone().into());
        }
        requests.insert(n.to_string(), q.into());
    }
    let mut resources = json!({"requests": Value::Object(requests)});
    if !limits.is_empty() {
        resources["limits"] = Value::Object(limits);
    }
    let volumes = volumes_json(pod);
    if !volumes.is_empty() {
        spec.insert("volumes".into(), Value::Array(volumes));
    }
    let image = pod
        .images
        .last()
        .map(|s| i.resolve(*s).to_string())
        .unwrap_or_else(|| "registry.k8s.io/pause:3.9".into());
    spec.insert(
        "containers".into(),
        json!([{"name": "main", "image": image, "resources": resources}]),
    );
    json!({"apiVersion": "v1", "kind": "Pod", "metadata": Value::Object(meta), "spec": Value::Object(spec)})
}

/// The volumes the volume plugins read. The model keeps no volume names:
/// a claim named `<x>-<pod>` (a StatefulSet's, an ephemeral volume's) gives
/// its volume the name `x`, others are numbered.
fn volumes_json(pod: &Pod) -> Vec<Value> {
    let mut names: Vec<String> = Vec::new();
    let mut out = Vec::new();
    for (n, v) in pod.volumes.iter().enumerate() {
        let derived = v
            .claim_name()
            .and_then(|c| c.strip_suffix(&*pod.name))
            .and_then(|c| c.strip_suffix('-'))
            .filter(|c| !c.is_empty());
        let derived = match v {
            PodVolume::Ephemeral(c) => c
                .strip_prefix(&*pod.name)
                .and_then(|c| c.strip_prefix('-'))
                .filter(|c| !c.is_empty()),
            _ => derived,
        };
        let mut name = derived.map_or_else(|| format!("volume-{n}"), str::to_string);
        if names.contains(&name) {
            name = format!("{name}-{n}");
        }
        names.push(name.clone());
        let source = match v {
            PodVolume::Claim(c) => json!({"persistentVolumeClaim": {"claimName": c.to_string()}}),
            PodVolume::Ephemeral(_) => json!({"ephemeral": {"volumeClaimTemplate": {"spec": {}}}}),
            PodVolume::Disk(InlineDisk::GcePersistentDisk { pd_name, read_only }) => {
                json!({"gcePersistentDisk": {"pdName": pd_name.to_string(), "readOnly": read_only}})
            }
            PodVolume::Disk(InlineDisk::AwsElasticBlockStore { volume_id }) => {
                json!({"awsElasticBlockStore": {"volumeID": volume_id.to_string()}})
            }
            // The model keeps the IQN only (what conflicts are judged on).
            PodVolume::Disk(InlineDisk::Iscsi { iqn, read_only }) => {
                json!({"iscsi": {"iqn": iqn.to_string(), "readOnly": read_only, "targetPortal": "", "lun": 0}})
            }
            PodVolume::Disk(InlineDisk::Rbd {
                monitors,
                pool,
                image,
                read_only,
            }) => {
                json!({"rbd": {"monitors": monitors.iter().map(|m| m.to_string()).collect::<Vec<_>>(),
                                 "pool": pool.to_string(), "image": image.to_string(), "readOnly": read_only}})
            }
        };
        let mut m = Map::new();
        m.insert("name".into(), name.into());
        if let Value::Object(src) = source {
            m.extend(src);
        }
        out.push(Value::Object(m));
    }
    out
}

/// A draft of the replica a StatefulSet creates next from one of its pods:
/// named `<set>-<ordinal>`, with the controller's identity labels and a
/// claim volume per `volumeClaimTemplate` (`<template>-<set>-<ordinal>`) in
/// place of the sample pod's own.
pub fn stateful_replica_doc(
    cluster: &Cluster,
    pod: &Pod,
    set: &SelectorOwner,
    spec: &StatefulSetSpec,
    ordinal: i64,
) -> Value {
    let name = format!("{}-{ordinal}", set.name);
    let mut doc = pod_doc(cluster, pod, &name);
    if let Some(meta) = doc.get_mut("metadata").and_then(Value::as_object_mut) {
        let labels = meta
            .entry("labels")
            .or_insert_with(|| Value::Object(Map::new()));
        if let Some(l) = labels.as_object_mut() {
            l.insert(statefulset::POD_NAME_LABEL.into(), name.clone().into());
            l.insert(
                statefulset::POD_INDEX_LABEL.into(),
                ordinal.to_string().into(),
            );
        }
    }
    let templates = &spec.claim_templates;
    let mut volumes: Vec<Value> = templates
        .iter()
        .map(|t| {
            json!({"name": t.claim.name.to_string(),
                   "persistentVolumeClaim": {"claimName": statefulset::claim_name(t, &name)}})
        })
        .collect();
    let own = doc
        .pointer("/spec/volumes")
        .and_then(Value::as_array)
        .cloned()
        .unwrap_or_default();
    volumes.extend(own.into_iter().filter(|v| {
        let claim = v
            .pointer("/persistentVolumeClaim/claimName")
            .and_then(Value::as_str);
        let named = v.get("name").and_then(Value::as_str);
        !claim.is_some_and(|c| {
            templates
                .iter()
                .any(|t| statefulset::is_template_claim(c, t, &set.name))
        }) && !named.is_some_and(|n| templates.iter().any(|t| *t.claim.name == *n))
    }));
    if let Some(s) = doc.get_mut("spec").and_then(Value::as_object_mut)
        && !volumes.is_empty()
    {
        s.insert("volumes".into(), Value::Array(volumes));
    }
    doc
}

/// `:draft new`: a minimal valid pod.
pub fn blank_doc() -> Value {
    json!({
        "apiVersion": "v1",
        "kind": "Pod",
        "metadata": {"name": "draft", "namespace": "default", "labels": {"app": "draft"}},
        "spec": {"containers": [{"name": "main", "image": "registry.k8s.io/pause:3.9",
                 "resources": {"requests": {"cpu": "100m", "memory": "128Mi"}}}]}
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn quantities_render_canonically() {
        assert_eq!(cpu_quantity(500), "500m");
        assert_eq!(cpu_quantity(2000), "2");
        assert_eq!(bytes_quantity(256 << 20), "256Mi");
        assert_eq!(bytes_quantity(1 << 30), "1Gi");
        assert_eq!(bytes_quantity(1000), "1000");
    }

    /// A draft reads as a snapshot file does: a duplicate key is refused
    /// in kubectl's words with its line, and `yes` is a string, not `true`.
    #[test]
    fn drafts_read_yaml_as_snapshot_files_do() {
        let mut i = Interner::default();
        let mut d = Draft::new(blank_doc());
        let duplicate = "apiVersion: v1\nkind: Pod\nmetadata:\n  name: a\n  name: b\nspec:\n  containers: [{name: c, image: i}]\n";
        assert_eq!(
            d.set_yaml(duplicate, &mut i),
            Err("line 5: column 3: key \"name\" already set in map".to_string())
        );
        let yes = "apiVersion: v1\nkind: Pod\nmetadata:\n  name: a\nspec:\n  hostNetwork: yes\n  containers: [{name: c, image: i}]\n";
        let _ = d.set_yaml(yes, &mut i);
        assert!(!d.valid, "hostNetwork: yes was read as a boolean");
        let error = d.error.clone().unwrap_or_default();
        assert!(error.contains("hostNetwork"), "{error}");
    }

    #[test]
    fn blank_draft_parses() {
        let mut i = Interner::default();
        let mut d = Draft::new(blank_doc());
        d.reparse(&mut i);
        assert!(d.valid, "{:?}\n{}", d.error, d.yaml);
        assert_eq!(d.pod.as_ref().map(|p| p.requests.milli_cpu), Some(100));
    }
}
