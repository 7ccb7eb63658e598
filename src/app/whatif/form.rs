//! The What-if form: the fields operators change most, read from and
//! written into the draft's document.

use serde_json::{Map, Value, json};

/// A label map the form edits.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum MapKind {
    Labels,
    NodeSelector,
}

impl MapKind {
    fn path(self) -> (&'static str, &'static str) {
        match self {
            MapKind::Labels => ("metadata", "labels"),
            MapKind::NodeSelector => ("spec", "nodeSelector"),
        }
    }
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum SpreadField {
    MaxSkew,
    TopologyKey,
    When,
    Selector,
    MinDomains,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum AntiField {
    Kind,
    TopologyKey,
    Selector,
    Weight,
}

/// What a form row edits.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Target {
    Header,
    PriorityClass,
    Request(&'static str),
    Entry(MapKind, String),
    AddEntry(MapKind),
    Toleration(usize),
    AddToleration,
    Spread(usize, SpreadField),
    AddSpread,
    Anti(usize, AntiField),
    AddAnti,
    /// A draft device claim's first request.
    Claim(usize, super::claims::ClaimField),
    AddClaim,
}

impl Target {
    pub fn selectable(&self) -> bool {
        *self != Target::Header
    }

    /// Enter toggles instead of asking for text.
    pub fn is_toggle(&self) -> bool {
        matches!(
            self,
            Target::Spread(_, SpreadField::When) | Target::Anti(_, AntiField::Kind)
        )
    }

    /// `x` removes the item the row belongs to.
    pub fn removable(&self) -> bool {
        matches!(
            self,
            Target::Entry(..)
                | Target::Toleration(_)
                | Target::Spread(..)
                | Target::Anti(..)
                | Target::Claim(..)
        )
    }
}

#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Row {
    pub label: String,
    pub value: String,
    pub target: Target,
}

fn row(label: impl Into<String>, value: impl Into<String>, target: Target) -> Row {
    Row {
        label: label.into(),
        value: value.into(),
        target,
    }
}

/// A field's value as text (empty when absent).
pub(super) fn scalar(v: Option<&Value>) -> String {
    match v {
        None | Some(Value::Null) => String::new(),
        Some(Value::String(s)) => s.clone(),
        Some(other) => other.to_string(),
    }
}

/// `app=web,tier=db` from a label selector (matchExpressions shown kubectl-style).
pub fn selector_text(sel: Option<&Value>) -> String {
    let Some(sel) = sel else {
        return String::new();
    };
    let mut parts = Vec::new();
    if let Some(m) = sel.get("matchLabels").and_then(Value::as_object) {
        for (k, v) in m {
            parts.push(format!("{k}={}", scalar(Some(v))));
        }
    }
    if let Some(list) = sel.get("matchExpressions").and_then(Value::as_array) {
        for e in list {
            let key = scalar(e.get("key"));
            let values: Vec<String> = e
                .get("values")
                .and_then(Value::as_array)
                .map(|v| v.iter().map(|x| scalar(Some(x))).collect())
                .unwrap_or_default();
            let text = match scalar(e.get("operator")).as_str() {
                "In" => format!("{key} in ({})", values.join(",")),
                "NotIn" => format!("{key} notin ({})", values.join(",")),
                "Exists" => key,
                "DoesNotExist" => format!("!{key}"),
                other => format!("{key} {other}"),
            };
            parts.push(text);
        }
    }
    parts.join(",")
}

/// The selector for `k=v,k2=v2` (matchLabels only; empty text → `{}`).
pub fn selector_from_text(text: &str) -> Value {
    let mut m = Map::new();
    for part in text.split(',').map(str::trim).filter(|p| !p.is_empty()) {
        let (k, v) = part.split_once('=').unwrap_or((part, ""));
        m.insert(k.trim().to_string(), Value::String(v.trim().to_string()));
    }
    json!({ "matchLabels": Value::Object(m) })
}

/// `key=value:Effect` (Equal), `key:Effect` or `key` (Exists).
pub fn toleration_text(t: &Value) -> String {
    let key = scalar(t.get("key"));
    let value = scalar(t.get("value"));
    let effect = scalar(t.get("effect"));
    let op = scalar(t.get("operator"));
    let mut s = if op == "Exists" || (value.is_empty() && op.is_empty() && key.is_empty()) {
        if key.is_empty() { "*".to_string() } else { key }
    } else {
        format!("{key}={value}")
    };
    if !effect.is_empty() {
        s.push(':');
        s.push_str(&effect);
    }
    s
}

pub fn toleration_from_text(text: &str) -> Value {
    let text = text.trim();
    let (body, effect) = match text.rsplit_once(':') {
        Some((b, e)) => (b, Some(e.trim())),
        None => (text, None),
    };
    let mut m = Map::new();
    match body.split_once('=') {
        Some((k, v)) => {
            m.insert("key".into(), k.trim().into());
            m.insert("operator".into(), "Equal".into());
            m.insert("value".into(), v.trim().into());
        }
        None => {
            let k = body.trim();
            if !k.is_empty() && k != "*" {
                m.insert("key".into(), k.into());
            }
            m.insert("operator".into(), "Exists".into());
        }
    }
    if let Some(e) = effect.filter(|e| !e.is_empty()) {
        m.insert("effect".into(), e.into());
    }
    Value::Object(m)
}

const REQ: &str = "requiredDuringSchedulingIgnoredDuringExecution";
const PREF: &str = "preferredDuringSchedulingIgnoredDuringExecution";

/// The anti-affinity terms, required first: `(required, term, weight)`.
fn anti_terms(doc: &Value) -> Vec<(bool, Value, Option<Value>)> {
    let anti = doc.pointer("/spec/affinity/podAntiAffinity");
    let mut out = Vec::new();
    if let Some(list) = anti.and_then(|a| a.get(REQ)).and_then(Value::as_array) {
        out.extend(list.iter().map(|t| (true, t.clone(), None)));
    }
    if let Some(list) = anti.and_then(|a| a.get(PREF)).and_then(Value::as_array) {
        out.extend(list.iter().map(|w| {
            (
                false,
                w.get("podAffinityTerm").cloned().unwrap_or(json!({})),
                w.get("weight").cloned(),
            )
        }));
    }
    out
}

fn set_anti_terms(doc: &mut Value, terms: Vec<(bool, Value, Option<Value>)>) {
    let req: Vec<Value> = terms.iter().filter(|t| t.0).map(|t| t.1.clone()).collect();
    let pref: Vec<Value> = terms
        .iter()
        .filter(|t| !t.0)
        .map(|t| json!({"weight": t.2.clone().unwrap_or(json!(100)), "podAffinityTerm": t.1}))
        .collect();
    let spec = object_at(doc, &["spec"]);
    let affinity = spec.entry("affinity").or_insert_with(|| json!({}));
    if !affinity.is_object() {
        *affinity = json!({});
    }
    let a = affinity.as_object_mut().expect("object");
    if req.is_empty() && pref.is_empty() {
        a.remove("podAntiAffinity");
    } else {
        let mut m = Map::new();
        if !req.is_empty() {
            m.insert(REQ.into(), Value::Array(req));
        }
        if !pref.is_empty() {
            m.insert(PREF.into(), Value::Array(pref));
        }
        a.insert("podAntiAffinity".into(), Value::Object(m));
    }
    if a.is_empty() {
        spec.remove("affinity");
    }
}

/// The object at `path`, created (or replaced if not an object) on the way.
fn object_at<'a>(doc: &'a mut Value, path: &[&str]) -> &'a mut Map<String, Value> {
    let mut cur = doc;
    for p in path {
        if !cur.is_object() {
            *cur = json!({});
        }
        cur = cur
            .as_object_mut()
            .expect("object")
            .entry(p.to_string())
            .or_insert_with(|| json!({}));
    }
    if !cur.is_object() {
        *cur = json!({});
    }
    cur.as_object_mut().expect("object")
}

fn list_at<'a>(doc: &'a mut Value, path: &[&str], key: &str) -> &'a mut Vec<Value> {
    let parent = object_at(doc, path);
    let v = parent.entry(key.to_string()).or_insert_with(|| json!([]));
    if !v.is_array() {
        *v = json!([]);
    }
    v.as_array_mut().expect("array")
}

fn remove_if_empty(doc: &mut Value, path: &[&str], key: &str) {
    let parent = object_at(doc, path);
    let empty = match parent.get(key) {
        Some(Value::Array(a)) => a.is_empty(),
        Some(Value::Object(o)) => o.is_empty(),
        _ => false,
    };
    if empty {
        parent.remove(key);
    }
}

/// An integer when the text is one, else the text (the parser then says why).
fn number_or_text(text: &str) -> Value {
    match text.trim().parse::<i64>() {
        Ok(n) => json!(n),
        Err(_) => Value::String(text.trim().to_string()),
    }
}

/// The form's rows for a document.
pub fn rows(doc: &Value) -> Vec<Row> {
    let mut out = Vec::new();
    let spec = doc.get("spec");
    out.push(row("Scheduling", "", Target::Header));
    out.push(row(
        "priorityClassName",
        scalar(spec.and_then(|s| s.get("priorityClassName"))),
        Target::PriorityClass,
    ));
    let requests = doc.pointer("/spec/containers/0/resources/requests");
    for r in ["cpu", "memory"] {
        out.push(row(
            format!("{r} request"),
            scalar(requests.and_then(|q| q.get(r))),
            Target::Request(r),
        ));
    }
    for (kind, title) in [
        (MapKind::Labels, "Labels"),
        (MapKind::NodeSelector, "nodeSelector"),
    ] {
        out.push(row(title, "", Target::Header));
        let (a, b) = kind.path();
        if let Some(m) = doc.get(a).and_then(|x| x.get(b)).and_then(Value::as_object) {
            for (k, v) in m {
                out.push(row(
                    "",
                    format!("{k}={}", scalar(Some(v))),
                    Target::Entry(kind, k.clone()),
                ));
            }
        }
        out.push(row("", "+ add", Target::AddEntry(kind)));
    }
    out.push(row("Tolerations", "", Target::Header));
    if let Some(list) = spec
        .and_then(|s| s.get("tolerations"))
        .and_then(Value::as_array)
    {
        for (i, t) in list.iter().enumerate() {
            out.push(row("", toleration_text(t), Target::Toleration(i)));
        }
    }
    out.push(row("", "+ add toleration", Target::AddToleration));
    out.push(row("Topology spread constraints", "", Target::Header));
    if let Some(list) = spec
        .and_then(|s| s.get("topologySpreadConstraints"))
        .and_then(Value::as_array)
    {
        for (i, c) in list.iter().enumerate() {
            let f = |k: &str| scalar(c.get(k));
            out.push(row(
                format!("[{i}] maxSkew"),
                f("maxSkew"),
                Target::Spread(i, SpreadField::MaxSkew),
            ));
            out.push(row(
                "    topologyKey",
                f("topologyKey"),
                Target::Spread(i, SpreadField::TopologyKey),
            ));
            out.push(row(
                "    whenUnsatisfiable",
                f("whenUnsatisfiable"),
                Target::Spread(i, SpreadField::When),
            ));
            out.push(row(
                "    selector",
                selector_text(c.get("labelSelector")),
                Target::Spread(i, SpreadField::Selector),
            ));
            out.push(row(
                "    minDomains",
                f("minDomains"),
                Target::Spread(i, SpreadField::MinDomains),
            ));
        }
    }
    out.push(row("", "+ add spread constraint", Target::AddSpread));
    out.push(row("Pod anti-affinity", "", Target::Header));
    for (i, (required, term, weight)) in anti_terms(doc).into_iter().enumerate() {
        out.push(row(
            format!("[{i}] type"),
            if required { "required" } else { "preferred" },
            Target::Anti(i, AntiField::Kind),
        ));
        out.push(row(
            "    topologyKey",
            scalar(term.get("topologyKey")),
            Target::Anti(i, AntiField::TopologyKey),
        ));
        out.push(row(
            "    selector",
            selector_text(term.get("labelSelector")),
            Target::Anti(i, AntiField::Selector),
        ));
        if !required {
            out.push(row(
                "    weight",
                scalar(weight.as_ref()),
                Target::Anti(i, AntiField::Weight),
            ));
        }
    }
    out.push(row("", "+ add anti-affinity", Target::AddAnti));
    out
}

/// The draft's own labels as a selector text (new constraints select the pod's peers).
fn own_selector(doc: &Value) -> Value {
    let labels = doc
        .pointer("/metadata/labels")
        .cloned()
        .unwrap_or(json!({}));
    json!({ "matchLabels": labels })
}

/// Applies typed text (or a toggle, with `text` ignored) to the document.
pub fn apply(doc: &mut Value, target: &Target, text: &str) {
    let text_t = text.trim();
    match target {
        // Claim rows edit the draft's claims: `claims::apply`.
        Target::Header | Target::Claim(..) | Target::AddClaim => {}
        Target::PriorityClass => {
            let spec = object_at(doc, &["spec"]);
            if text_t.is_empty() {
                spec.remove("priorityClassName");
            } else {
                spec.insert("priorityClassName".into(), text_t.into());
            }
            // The class decides the priority; a stale `priority` would be refused.
            spec.remove("priority");
            spec.remove("preemptionPolicy");
        }
        Target::Request(r) => {
            let list = list_at(doc, &["spec"], "containers");
            if list.is_empty() {
                list.push(json!({"name": "main", "image": "registry.k8s.io/pause:3.9"}));
            }
            let c = &mut list[0];
            let requests = object_at(c, &["resources", "requests"]);
            if text_t.is_empty() {
                requests.remove(*r);
            } else {
                requests.insert(r.to_string(), text_t.into());
            }
        }
        Target::Entry(kind, old) => {
            let (a, b) = kind.path();
            let m = object_at(doc, &[a, b]);
            m.remove(old);
            if let Some((k, v)) = split_pair(text_t) {
                m.insert(k, v.into());
            }
            remove_if_empty(doc, &[a], b);
        }
        Target::AddEntry(kind) => {
            if let Some((k, v)) = split_pair(text_t) {
                let (a, b) = kind.path();
                object_at(doc, &[a, b]).insert(k, v.into());
            }
        }
        Target::Toleration(i) => {
            let list = list_at(doc, &["spec"], "tolerations");
            if *i < list.len() {
                if text_t.is_empty() {
                    list.remove(*i);
                } else {
                    list[*i] = toleration_from_text(text_t);
                }
            }
            remove_if_empty(doc, &["spec"], "tolerations");
        }
        Target::AddToleration => {
            if !text_t.is_empty() {
                list_at(doc, &["spec"], "tolerations").push(toleration_from_text(text_t));
            }
        }
        Target::Spread(i, field) => {
            let list = list_at(doc, &["spec"], "topologySpreadConstraints");
            let Some(Value::Object(c)) = list.get_mut(*i) else {
                return;
            };
            match field {
                SpreadField::MaxSkew => {
                    c.insert("maxSkew".into(), number_or_text(text_t));
                }
                SpreadField::TopologyKey => {
                    c.insert("topologyKey".into(), text_t.into());
                }
                SpreadField::When => {
                    let next = match c.get("whenUnsatisfiable").and_then(Value::as_str) {
                        Some("DoNotSchedule") => "ScheduleAnyway",
                        _ => "DoNotSchedule",
                    };
                    c.insert("whenUnsatisfiable".into(), next.into());
                }
                SpreadField::Selector => {
                    c.insert("labelSelector".into(), selector_from_text(text_t));
                }
                SpreadField::MinDomains => {
                    if text_t.is_empty() {
                        c.remove("minDomains");
                    } else {
                        c.insert("minDomains".into(), number_or_text(text_t));
                    }
                }
            }
        }
        Target::AddSpread => {
            let key = if text_t.is_empty() {
                "topology.kubernetes.io/zone"
            } else {
                text_t
            };
            let sel = own_selector(doc);
            list_at(doc, &["spec"], "topologySpreadConstraints").push(json!({
                "maxSkew": 1, "topologyKey": key, "whenUnsatisfiable": "DoNotSchedule",
                "labelSelector": sel,
            }));
        }
        Target::Anti(i, field) => {
            let mut terms = anti_terms(doc);
            let Some(t) = terms.get_mut(*i) else { return };
            match field {
                AntiField::Kind => {
                    t.0 = !t.0;
                    if t.2.is_none() {
                        t.2 = Some(json!(100));
                    }
                }
                AntiField::TopologyKey => {
                    t.1["topologyKey"] = text_t.into();
                }
                AntiField::Selector => {
                    t.1["labelSelector"] = selector_from_text(text_t);
                }
                AntiField::Weight => t.2 = Some(number_or_text(text_t)),
            }
            set_anti_terms(doc, terms);
        }
        Target::AddAnti => {
            let key = if text_t.is_empty() {
                "kubernetes.io/hostname"
            } else {
                text_t
            };
            let sel = own_selector(doc);
            let mut terms = anti_terms(doc);
            terms.push((
                true,
                json!({"labelSelector": sel, "topologyKey": key}),
                None,
            ));
            set_anti_terms(doc, terms);
        }
    }
}

/// Removes the item a row belongs to.
pub fn remove(doc: &mut Value, target: &Target) {
    match target {
        Target::Entry(..) | Target::Toleration(_) => apply(doc, target, ""),
        Target::Spread(i, _) => {
            let list = list_at(doc, &["spec"], "topologySpreadConstraints");
            if *i < list.len() {
                list.remove(*i);
            }
            remove_if_empty(doc, &["spec"], "topologySpreadConstraints");
        }
        Target::Anti(i, _) => {
            let mut terms = anti_terms(doc);
            if *i < terms.len() {
                terms.remove(*i);
            }
            set_anti_terms(doc, terms);
        }
        _ => {}
    }
}

fn split_pair(text: &str) -> Option<(String, String)> {
    if text.is_empty() {
        return None;
    }
    let (k, v) = text.split_once('=').unwrap_or((text, ""));
    Some((k.trim().to_string(), v.trim().to_string()))
}

/// The text an edit of `target` starts from.
pub fn initial_text(r: &Row) -> String {
    match r.target {
        Target::AddEntry(_)
        | Target::AddToleration
        | Target::AddSpread
        | Target::AddAnti
        | Target::AddClaim => String::new(),
        _ => r.value.clone(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn spread_and_anti_affinity_round_trip() {
        let mut doc = super::super::draft::blank_doc();
        apply(&mut doc, &Target::AddSpread, "");
        apply(&mut doc, &Target::Spread(0, SpreadField::MaxSkew), "2");
        apply(&mut doc, &Target::AddAnti, "");
        apply(&mut doc, &Target::Anti(0, AntiField::Kind), "");
        let rows = rows(&doc);
        let value = |t: Target| rows.iter().find(|r| r.target == t).map(|r| r.value.clone());
        assert_eq!(
            value(Target::Spread(0, SpreadField::MaxSkew)).as_deref(),
            Some("2")
        );
        assert_eq!(
            value(Target::Anti(0, AntiField::Kind)).as_deref(),
            Some("preferred")
        );
        assert_eq!(
            value(Target::Anti(0, AntiField::Selector)).as_deref(),
            Some("app=draft")
        );
        remove(&mut doc, &Target::Anti(0, AntiField::Kind));
        assert!(doc.pointer("/spec/affinity").is_none());
    }

    #[test]
    fn tolerations_parse_from_text() {
        let t = toleration_from_text("gpu=true:NoSchedule");
        assert_eq!(toleration_text(&t), "gpu=true:NoSchedule");
        let t = toleration_from_text("dedicated:NoExecute");
        assert_eq!(t["operator"], "Exists");
        assert_eq!(toleration_text(&t), "dedicated:NoExecute");
    }
}
