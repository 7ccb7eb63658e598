//! Describe (`d`) and YAML (`y`) for a pod or a node, as k9s shows them:
//! the text is built once from the model when the overlay opens; the
//! overlay scrolls it and searches it (`/`, `n`, `N`). Requested resources
//! are the model's own accounting (`NodeInfo.requested`, what the
//! scheduler's Fit filter reads), not a sum made here.

use serde_json::{Value, json};

use crate::model::{Cluster, NodeId, PodId};

use super::cursor::Cursor;
use super::format;
use super::report::{Line, Tone};
use super::whatif::draft::{bytes_quantity, cpu_quantity, pod_doc, render_yaml};

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Kind {
    Describe,
    Yaml,
}

/// A Describe or YAML overlay.
#[derive(Clone, Debug)]
pub struct Inspect {
    pub kind: Kind,
    pub title: String,
    pub lines: Vec<Line>,
    pub scroll: Cursor,
    pub search: TextSearch,
}

/// What the model does not keep, said once in every YAML title.
pub const OMITTED: &str = "fields kplace does not keep are omitted";

impl Inspect {
    pub fn describe_pod(cluster: &Cluster, id: PodId) -> Inspect {
        Inspect::new(
            Kind::Describe,
            format!("Describe pod {}", cluster.pod_key(id)),
            describe_pod(cluster, id),
        )
    }

    pub fn describe_node(cluster: &Cluster, id: NodeId) -> Inspect {
        Inspect::new(
            Kind::Describe,
            format!("Describe node {}", cluster.node(id).name),
            describe_node(cluster, id),
        )
    }

    pub fn pod_yaml(cluster: &Cluster, id: PodId) -> Inspect {
        Inspect::new(
            Kind::Yaml,
            format!("YAML pod {} ({OMITTED})", cluster.pod_key(id)),
            yaml_lines(&render_yaml(&pod_manifest(cluster, id))),
        )
    }

    pub fn node_yaml(cluster: &Cluster, id: NodeId) -> Inspect {
        Inspect::new(
            Kind::Yaml,
            format!("YAML node {} ({OMITTED})", cluster.node(id).name),
            yaml_lines(&render_yaml(&node_manifest(cluster, id))),
        )
    }

    /// Skew's fleet list, every alert on its own line with the whole
    /// workload name, its constraint's key, skew and maxSkew, and its
    /// fullest domain (`namespace`: the `:ns` it is limited to).
    pub fn fleet(alerts: &[&crate::app::skew::SkewAlert], namespace: Option<&str>) -> Inspect {
        let at = alerts.iter().filter(|a| a.at_max()).count();
        let mut title = format!(
            "Fleet: {at} at maxSkew, {} one replica away",
            alerts.len() - at
        );
        if let Some(ns) = namespace {
            title += &format!(" [{ns}]");
        }
        let mut lines = vec![Line {
            tone: Tone::Muted,
            text: "Workloads whose own DoNotSchedule spread constraint is at (or past) its maxSkew, then those one replica away: the constraint's topology key, skew / maxSkew, the workload and its fullest domain".into(),
        }];
        if alerts.is_empty() {
            lines.push(Line {
                tone: Tone::Muted,
                text: "no workload within one replica of its maxSkew".into(),
            });
        }
        lines.extend(alerts.iter().map(|a| {
            let (mark, tone) = if a.at_max() {
                ("✗ at max", Tone::Bad)
            } else {
                ("! 1 away", Tone::Warn)
            };
            Line {
                tone,
                text: format!(
                    "{mark}  {} {}/{}  {}  (fullest {})",
                    a.short_key(),
                    a.skew,
                    a.max_skew,
                    a.label,
                    a.fullest
                ),
            }
        }));
        Inspect::new(Kind::Describe, title, lines)
    }

    fn new(kind: Kind, title: String, lines: Vec<Line>) -> Inspect {
        Inspect {
            kind,
            title,
            lines,
            scroll: Cursor::default(),
            search: TextSearch::default(),
        }
    }
}

/// `/text` over a read-only text, then `n` / `N` between the lines that
/// contain it (ignoring case).
#[derive(Clone, Debug, Default)]
pub struct TextSearch {
    /// The query is being typed.
    pub typing: bool,
    pub query: String,
    pub cursor: usize,
    /// Lines containing the query, in order.
    pub hits: Vec<usize>,
    /// Index into `hits` of the match shown.
    pub current: usize,
}

impl TextSearch {
    pub fn start(&mut self) {
        self.typing = true;
        self.query.clear();
        self.cursor = 0;
        self.hits.clear();
    }

    /// Enter: finds the query in `lines`; the first match at or after line
    /// `from`. Returns the line to show.
    pub fn run(&mut self, lines: &[Line], from: usize) -> Option<usize> {
        self.typing = false;
        let needle = self.query.to_lowercase();
        self.hits = if needle.is_empty() {
            Vec::new()
        } else {
            lines
                .iter()
                .enumerate()
                .filter(|(_, l)| l.text.to_lowercase().contains(&needle))
                .map(|(i, _)| i)
                .collect()
        };
        self.current = self.hits.iter().position(|&h| h >= from).unwrap_or(0);
        self.hits.get(self.current).copied()
    }

    /// `n` (forward) or `N`: the next or previous match, wrapping around.
    pub fn step(&mut self, forward: bool) -> Option<usize> {
        let n = self.hits.len();
        if n == 0 {
            return None;
        }
        self.current = if forward {
            (self.current + 1) % n
        } else {
            (self.current + n - 1) % n
        };
        self.hits.get(self.current).copied()
    }

    /// "match 2 of 5 for "pending"", or that there is none.
    pub fn describe(&self) -> String {
        if self.hits.is_empty() {
            format!("no match for {:?}", self.query)
        } else {
            format!(
                "match {} of {} for {:?} (n / N: next / previous)",
                self.current + 1,
                self.hits.len(),
                self.query
            )
        }
    }

    /// Whether line `i` is a match (to highlight it).
    pub fn is_hit(&self, i: usize) -> bool {
        !self.typing && self.hits.binary_search(&i).is_ok()
    }
}

/// The lines of a describe (`d`), built section by section as kubectl
/// describe prints them.
struct DescribeLines(Vec<Line>);

impl DescribeLines {
    fn heading(&mut self, text: &str) {
        if !self.0.is_empty() {
            self.0.push(Line {
                tone: Tone::Text,
                text: String::new(),
            });
        }
        self.0.push(Line {
            tone: Tone::Heading,
            text: text.to_string(),
        });
    }
    fn field(&mut self, name: &str, value: impl AsRef<str>) {
        self.0.push(Line {
            tone: Tone::Text,
            text: format!("{name:<22}{}", value.as_ref()),
        });
    }
    fn muted(&mut self, text: impl Into<String>) {
        self.0.push(Line {
            tone: Tone::Muted,
            text: text.into(),
        });
    }
    fn text(&mut self, text: impl Into<String>) {
        self.0.push(Line {
            tone: Tone::Text,
            text: text.into(),
        });
    }
    /// A part of a manifest, as YAML indented under a field.
    fn yaml(&mut self, v: &Value) {
        for l in render_yaml(v).lines() {
            self.text(format!("  {l}"));
        }
    }
}

fn yaml_lines(text: &str) -> Vec<Line> {
    text.lines()
        .map(|l| Line {
            tone: if l.starts_with(|c: char| c.is_ascii_alphabetic()) {
                Tone::Heading
            } else {
                Tone::Text
            },
            text: l.to_string(),
        })
        .collect()
}

fn time(secs: Option<i64>) -> String {
    secs.map_or_else(|| "<unknown>".into(), crate::source::convert::rfc3339)
}

fn resources(cluster: &Cluster, r: &crate::model::resources::Resources) -> Vec<(String, String)> {
    let mut out = vec![
        ("cpu".to_string(), format::cpu(r.milli_cpu)),
        ("memory".to_string(), format::memory(r.memory)),
    ];
    if r.ephemeral_storage > 0 {
        out.push((
            "ephemeral-storage".into(),
            format::memory(r.ephemeral_storage),
        ));
    }
    for &(name, v) in &r.scalars {
        let n = cluster.interner.resolve(name);
        let q = if n.starts_with("hugepages-") {
            format::memory(v)
        } else {
            v.to_string()
        };
        out.push((n.to_string(), q));
    }
    out
}

fn describe_pod(cluster: &Cluster, id: PodId) -> Vec<Line> {
    let pod = cluster.pod(id);
    let i = &cluster.interner;
    let doc = pod_doc(cluster, pod, &pod.name);
    let spec = &doc["spec"];
    let mut o = DescribeLines(Vec::new());
    o.heading("Scheduling");
    o.field("Name:", &*pod.name);
    o.field("Namespace:", i.resolve(pod.namespace));
    o.field(
        "Priority:",
        format!(
            "{}{}",
            pod.priority_value(),
            if pod.priority.is_none() {
                " (not resolved in the snapshot: the admission default)"
            } else {
                ""
            }
        ),
    );
    o.field(
        "Priority class:",
        pod.priority_class_name.as_deref().unwrap_or("<none>"),
    );
    o.field(
        "Preemption policy:",
        pod.preemption_policy
            .map_or("PreemptLowerPriority (default)", |p| p.as_str()),
    );
    o.field("Scheduler:", &*pod.scheduler_name);
    o.field(
        "Node:",
        pod.node_name.as_deref().unwrap_or("<none> (not bound)"),
    );
    o.field(
        "Nominated node:",
        pod.nominated_node_name.as_deref().unwrap_or("<none>"),
    );
    o.field("Phase:", pod.phase.as_str());
    o.field(
        "Controlled by:",
        pod.controller
            .as_ref()
            .map_or("<none>".to_string(), |c| format!("{}/{}", c.kind, c.name)),
    );
    o.field("Created:", time(pod.creation_timestamp));
    if let Some(d) = pod.deletion_timestamp {
        o.field("Terminating since:", crate::source::convert::rfc3339(d));
    }
    if !pod.scheduling_gates.is_empty() {
        let gates: Vec<&str> = pod.scheduling_gates.iter().map(|g| &**g).collect();
        o.field("Scheduling gates:", gates.join(", "));
    }

    o.heading("Requests (what the scheduler counts)");
    for (name, q) in resources(cluster, &pod.requests) {
        o.field(&format!("  {name}:"), q);
    }
    if let Some(pl) = &pod.pod_level {
        for (name, q) in resources(cluster, &pl.requests) {
            o.field(&format!("  pod-level {name}:"), q);
        }
    }
    o.muted(
        "  The total the scheduler computes (containers summed, the largest init container, overhead); kplace keeps this total, not each container's requests or any limits (the scheduler does not read limits).",
    );

    o.heading("Tolerations");
    match spec.get("tolerations") {
        Some(t) => o.yaml(t),
        None => o.text("  <none>"),
    }
    o.heading("Node selector and affinity");
    match spec.get("nodeSelector") {
        Some(ns) => {
            o.text("  nodeSelector:");
            o.yaml(ns);
        }
        None => o.text("  nodeSelector: <none>"),
    }
    match spec.get("affinity") {
        Some(a) => o.yaml(a),
        None => o.text("  affinity: <none>"),
    }
    o.heading("Topology spread constraints");
    match spec.get("topologySpreadConstraints") {
        Some(c) => o.yaml(c),
        None => o.text("  <none>"),
    }
    if !pod.resource_claims.is_empty() || !pod.volumes.is_empty() {
        o.heading("Volumes and claims");
        if let Some(v) = spec.get("volumes") {
            o.yaml(v);
        }
        for c in pod.resource_claims.iter() {
            let from = match &c.source {
                crate::model::pod::PodClaimSource::Claim(n) => format!("claim {n}"),
                crate::model::pod::PodClaimSource::Template { template, .. } => {
                    format!("template {template}")
                }
                crate::model::pod::PodClaimSource::Unsupported => "no source set".to_string(),
            };
            o.text(format!("  resource claim {}: {from}", c.name));
        }
    }
    o.heading("Conditions");
    o.field("  Ready:", if pod.ready { "True" } else { "False" });
    if pod.preempted_by_scheduler {
        o.field("  DisruptionTarget:", "True (PreemptionByScheduler)");
    }
    o.muted("  kplace keeps the Ready condition and a preemption's DisruptionTarget only.");
    o.heading("Labels");
    let labels = pod.labels.to_strings(i);
    if labels.is_empty() {
        o.text("  <none>");
    }
    for (k, v) in labels {
        o.text(format!("  {k}={v}"));
    }
    o.0
}

fn describe_node(cluster: &Cluster, id: NodeId) -> Vec<Line> {
    let node = cluster.node(id);
    let info = &cluster.node_infos[id as usize];
    let i = &cluster.interner;
    let mut o = DescribeLines(Vec::new());
    o.heading("Scheduling");
    o.field("Name:", &*node.name);
    o.field(
        "Unschedulable:",
        if node.unschedulable {
            "true (cordoned)"
        } else {
            "false"
        },
    );
    o.field(
        "Ready:",
        match node.ready {
            Some(true) => "True",
            Some(false) => "False",
            None => "<unknown>",
        },
    );
    o.field(
        "Kubelet:",
        node.kubelet_version.as_deref().unwrap_or("<unknown>"),
    );
    o.field("Created:", time(node.created));
    o.heading("Resources: requested (the scheduler's accounting) / allocatable");
    let alloc = resources(cluster, &node.allocatable);
    let req = resources(cluster, &info.requested);
    for (name, a) in &alloc {
        let r = req
            .iter()
            .find(|(n, _)| n == name)
            .map_or("0", |(_, q)| q.as_str());
        let pct = match name.as_str() {
            "cpu" => format!(
                " ({}%)",
                format::percent(info.requested.milli_cpu, node.allocatable.milli_cpu)
            ),
            "memory" => format!(
                " ({}%)",
                format::percent(info.requested.memory, node.allocatable.memory)
            ),
            _ => String::new(),
        };
        o.field(&format!("  {name}:"), format!("{r} / {a}{pct}"));
    }
    o.field(
        "  pods:",
        format!("{} / {}", info.pods.len(), node.allocatable.allowed_pods),
    );
    o.heading("Taints");
    if node.taints.is_empty() {
        o.text("  <none>");
    }
    for t in node.taints.iter() {
        if t.value.is_empty() {
            o.text(format!("  {}:{}", t.key, t.effect.as_str()));
        } else {
            o.text(format!("  {}={}:{}", t.key, t.value, t.effect.as_str()));
        }
    }
    o.heading("Conditions");
    o.field(
        "  Ready:",
        match node.ready {
            Some(true) => "True",
            Some(false) => "False",
            None => "<unknown>",
        },
    );
    o.muted("  kplace keeps the Ready condition only.");
    o.heading("Labels");
    for (k, v) in node.labels.to_strings(i) {
        o.text(format!("  {k}={v}"));
    }
    o.heading(&format!("Pods on the node ({})", info.pods.len()));
    let mut pods: Vec<PodId> = info.pods.clone();
    pods.sort_by_key(|&p| std::cmp::Reverse(cluster.pod(p).priority_value()));
    for p in pods {
        let pod = cluster.pod(p);
        o.text(format!(
            "  {}  cpu {}  memory {}  priority {}",
            cluster.pod_key(p),
            format::cpu(pod.requests.milli_cpu),
            format::memory(pod.requests.memory),
            pod.priority_value()
        ));
    }
    o.0
}

/// The pod as a manifest: what What-if drafts from it, plus where it is
/// and its status as the model keeps them.
pub fn pod_manifest(cluster: &Cluster, id: PodId) -> Value {
    let pod = cluster.pod(id);
    let mut doc = pod_doc(cluster, pod, &pod.name);
    if let Some(t) = pod.creation_timestamp {
        doc["metadata"]["creationTimestamp"] = crate::source::convert::rfc3339(t).into();
    }
    if !pod.uid.is_empty() {
        doc["metadata"]["uid"] = pod.uid.to_string().into();
    }
    if let Some(n) = &pod.node_name {
        doc["spec"]["nodeName"] = n.to_string().into();
    }
    if let Some(p) = pod.priority {
        doc["spec"]["priority"] = p.into();
    }
    if let Some(p) = pod.preemption_policy {
        doc["spec"]["preemptionPolicy"] = p.as_str().into();
    }
    if !pod.scheduling_gates.is_empty() {
        let gates: Vec<Value> = pod
            .scheduling_gates
            .iter()
            .map(|g| json!({"name": g.to_string()}))
            .collect();
        doc["spec"]["schedulingGates"] = Value::Array(gates);
    }
    let mut status = json!({
        "phase": pod.phase.as_str(),
        "conditions": [{"type": "Ready", "status": if pod.ready { "True" } else { "False" }}],
    });
    if let Some(n) = &pod.nominated_node_name {
        status["nominatedNodeName"] = n.to_string().into();
    }
    doc["status"] = status;
    doc
}

/// The node as a manifest of the fields the model keeps.
pub fn node_manifest(cluster: &Cluster, id: NodeId) -> Value {
    let node = cluster.node(id);
    let i = &cluster.interner;
    let labels: serde_json::Map<String, Value> = node
        .labels
        .to_strings(i)
        .into_iter()
        .map(|(k, v)| (k, Value::String(v)))
        .collect();
    let mut meta = json!({"name": node.name.to_string(), "labels": labels});
    if let Some(t) = node.created {
        meta["creationTimestamp"] = crate::source::convert::rfc3339(t).into();
    }
    let mut spec = serde_json::Map::new();
    if node.unschedulable {
        spec.insert("unschedulable".into(), true.into());
    }
    if !node.taints.is_empty() {
        let taints: Vec<Value> = node
            .taints
            .iter()
            .map(|t| {
                let mut m = json!({"key": t.key.to_string(), "effect": t.effect.as_str()});
                if !t.value.is_empty() {
                    m["value"] = t.value.to_string().into();
                }
                m
            })
            .collect();
        spec.insert("taints".into(), Value::Array(taints));
    }
    let a = &node.allocatable;
    let mut alloc = serde_json::Map::new();
    alloc.insert("cpu".into(), cpu_quantity(a.milli_cpu).into());
    alloc.insert("memory".into(), bytes_quantity(a.memory).into());
    alloc.insert("pods".into(), a.allowed_pods.to_string().into());
    if a.ephemeral_storage > 0 {
        alloc.insert(
            "ephemeral-storage".into(),
            bytes_quantity(a.ephemeral_storage).into(),
        );
    }
    for &(name, v) in &a.scalars {
        let n = i.resolve(name);
        let q = if n.starts_with("hugepages-") {
            bytes_quantity(v)
        } else {
            v.to_string()
        };
        alloc.insert(n.to_string(), q.into());
    }
    let mut status = json!({"allocatable": Value::Object(alloc)});
    if let Some(r) = node.ready {
        status["conditions"] =
            json!([{"type": "Ready", "status": if r { "True" } else { "False" }}]);
    }
    if let Some(v) = &node.kubelet_version {
        status["nodeInfo"] = json!({"kubeletVersion": v.to_string()});
    }
    json!({"apiVersion": "v1", "kind": "Node", "metadata": meta,
           "spec": Value::Object(spec), "status": status})
}
