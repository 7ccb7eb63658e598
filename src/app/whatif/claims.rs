//! Device claims in a draft: the ResourceClaims written beside the pod,
//! the form rows that edit their first request (device class, count,
//! CEL selector), and the claims a draft of an existing pod starts with.

use serde_json::{Map, Value, json};

use super::form::{Row, Target, scalar as text};
use crate::model::dra::{AllocationMode, ClaimConstraint, ClaimSpec, ExactRequest, RequestKind};
use crate::model::pod::PodClaimSource;
use crate::model::{Cluster, Pod};

/// The request field a claim row edits.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ClaimField {
    DeviceClass,
    /// A number, or `All`.
    Count,
    /// A CEL expression (empty: none).
    Selector,
}

fn name_of(claim: &Value) -> String {
    text(claim.pointer("/metadata/name"))
}

/// The first request's `exactly` (the part the form edits).
fn first_exact(claim: &Value) -> Option<&Value> {
    claim.pointer("/spec/devices/requests/0/exactly")
}

/// The form's rows: one group per draft claim, then the pod's other
/// claims (shared or from a template, kept as they are), then "+ add".
pub fn rows(doc: &Value, claims: &[Value]) -> Vec<Row> {
    let row = |label: &str, value: String, target| Row {
        label: label.to_string(),
        value,
        target,
    };
    let mut out = vec![row("Device claims (DRA)", String::new(), Target::Header)];
    for (i, c) in claims.iter().enumerate() {
        let exact = first_exact(c);
        let count = match exact
            .and_then(|e| e.get("allocationMode"))
            .and_then(Value::as_str)
        {
            Some("All") => "All".to_string(),
            _ => exact
                .and_then(|e| e.get("count"))
                .map_or("1".to_string(), |v| text(Some(v))),
        };
        out.push(row(
            &format!("  [{i}] claim {}", name_of(c)),
            String::new(),
            Target::Header,
        ));
        out.push(row(
            "    deviceClass",
            text(exact.and_then(|e| e.get("deviceClassName"))),
            Target::Claim(i, ClaimField::DeviceClass),
        ));
        out.push(row("    count", count, Target::Claim(i, ClaimField::Count)));
        out.push(row(
            "    selector",
            text(exact.and_then(|e| e.pointer("/selectors/0/cel/expression"))),
            Target::Claim(i, ClaimField::Selector),
        ));
    }
    let drafted: Vec<String> = claims.iter().map(name_of).collect();
    for entry in doc
        .pointer("/spec/resourceClaims")
        .and_then(Value::as_array)
        .into_iter()
        .flatten()
    {
        let by_name = text(entry.get("resourceClaimName"));
        if drafted.contains(&by_name) {
            continue;
        }
        let what = if !by_name.is_empty() {
            format!("ResourceClaim {by_name} (the snapshot's)")
        } else {
            format!(
                "from template {}",
                text(entry.get("resourceClaimTemplateName"))
            )
        };
        out.push(row(
            &format!("  {}", text(entry.get("name"))),
            what,
            Target::Header,
        ));
    }
    out.push(row(
        "",
        "+ add device claim (class)".into(),
        Target::AddClaim,
    ));
    out
}

fn exact_mut(claim: &mut Value) -> &mut Map<String, Value> {
    if first_exact(claim).is_none() {
        claim["spec"]["devices"]["requests"] = json!([{"name": "gpu", "exactly": {}}]);
    }
    claim["spec"]["devices"]["requests"][0]["exactly"]
        .as_object_mut()
        .expect("an object")
}

/// Applies typed text to claim `i`'s first request.
pub fn apply(claims: &mut [Value], i: usize, field: ClaimField, typed: &str) {
    let Some(claim) = claims.get_mut(i) else {
        return;
    };
    let t = typed.trim();
    let exact = exact_mut(claim);
    match field {
        ClaimField::DeviceClass => {
            exact.insert("deviceClassName".into(), t.into());
        }
        ClaimField::Count if t.eq_ignore_ascii_case("all") => {
            exact.insert("allocationMode".into(), "All".into());
            exact.remove("count");
        }
        ClaimField::Count => {
            exact.insert("allocationMode".into(), "ExactCount".into());
            let v = t.parse::<i64>().map_or_else(|_| json!(t), |n| json!(n));
            exact.insert("count".into(), v);
        }
        ClaimField::Selector if t.is_empty() => {
            exact.remove("selectors");
        }
        ClaimField::Selector => {
            exact.insert("selectors".into(), json!([{"cel": {"expression": t}}]));
        }
    }
}

/// A new claim of one device of `class`, named after the pod, and the
/// pod's entry for it.
pub fn add(doc: &mut Value, claims: &mut Vec<Value>, class: &str) {
    let class = class.trim();
    if class.is_empty() {
        return;
    }
    let pod = text(doc.pointer("/metadata/name"));
    let ns = doc
        .pointer("/metadata/namespace")
        .and_then(Value::as_str)
        .unwrap_or("default")
        .to_string();
    let taken = |n: &str| {
        claims.iter().any(|c| name_of(c) == n)
            || doc
                .pointer("/spec/resourceClaims")
                .and_then(Value::as_array)
                .is_some_and(|l| l.iter().any(|e| text(e.get("name")) == n))
    };
    let entry = (0..)
        .map(|k| {
            if k == 0 {
                "devices".to_string()
            } else {
                format!("devices-{k}")
            }
        })
        .find(|n| !taken(n) && !taken(&format!("{pod}-{n}")))
        .expect("a free name");
    let name = format!("{pod}-{entry}");
    claims.push(claim_doc(
        &name,
        &ns,
        json!({"devices": {"requests": [{"name": "req-0", "exactly": {"deviceClassName": class}}]}}),
    ));
    push_entry(doc, json!({"name": entry, "resourceClaimName": name}));
}

/// Removes claim `i` and the pod's entry for it.
pub fn remove(doc: &mut Value, claims: &mut Vec<Value>, i: usize) {
    if i >= claims.len() {
        return;
    }
    let name = name_of(&claims.remove(i));
    if let Some(list) = doc
        .pointer_mut("/spec/resourceClaims")
        .and_then(Value::as_array_mut)
    {
        list.retain(|e| text(e.get("resourceClaimName")) != name);
        if list.is_empty() {
            doc["spec"]
                .as_object_mut()
                .map(|s| s.remove("resourceClaims"));
        }
    }
}

/// Appends an entry to the pod's `spec.resourceClaims`.
fn push_entry(doc: &mut Value, entry: Value) {
    if !doc["spec"].is_object() {
        doc["spec"] = json!({});
    }
    let spec = doc["spec"].as_object_mut().expect("an object");
    let list = spec.entry("resourceClaims").or_insert_with(|| json!([]));
    if let Some(l) = list.as_array_mut() {
        l.push(entry);
    }
}

fn claim_doc(name: &str, namespace: &str, spec: Value) -> Value {
    json!({
        "apiVersion": "resource.k8s.io/v1",
        "kind": "ResourceClaim",
        "metadata": {"name": name, "namespace": namespace},
        "spec": spec,
    })
}

/// The pod's claims for a draft named `name`: a claim by name is shared
/// (copied into the draft when still unallocated, so it can be edited); a
/// claim from a template becomes a draft claim with the spec the template
/// gave (`<name>-<entry>`, unallocated: a new pod gets a new claim). Adds
/// the `resourceClaims` entries to `doc`.
pub fn of_pod(cluster: &Cluster, pod: &Pod, name: &str, doc: &mut Value) -> Vec<Value> {
    let ns = cluster.interner.resolve(pod.namespace);
    let mut claims = Vec::new();
    for rc in pod.resource_claims.iter() {
        match &rc.source {
            PodClaimSource::Claim(claim) => {
                // An unallocated claim is copied into the draft, to be
                // edited; an allocated one is shared as it is (its devices
                // decide the node).
                if let Some(c) = cluster.dra.claim(pod.namespace, claim)
                    && c.allocation.is_none()
                {
                    claims.push(claim_doc(claim, ns, spec_doc(&c.spec)));
                }
                push_entry(
                    doc,
                    json!({"name": &*rc.name, "resourceClaimName": &**claim}),
                );
            }
            PodClaimSource::Template {
                template,
                generated,
            } => {
                let from_generated = generated
                    .as_ref()
                    .and_then(|g| g.as_deref())
                    .and_then(|g| cluster.dra.claim(pod.namespace, g))
                    .map(|c| &c.spec);
                let from_template = cluster
                    .dra
                    .templates
                    .iter()
                    .find(|t| t.namespace == pod.namespace && *t.name == **template)
                    .map(|t| &t.spec);
                let Some(spec) = from_generated.or(from_template) else {
                    // Neither exists: keep the entry; the answer says why.
                    push_entry(
                        doc,
                        json!({"name": &*rc.name, "resourceClaimTemplateName": &**template}),
                    );
                    continue;
                };
                let claim = format!("{name}-{}", rc.name);
                claims.push(claim_doc(&claim, ns, spec_doc(spec)));
                push_entry(doc, json!({"name": &*rc.name, "resourceClaimName": claim}));
            }
            PodClaimSource::Unsupported => {}
        }
    }
    claims
}

fn exact_doc(e: &ExactRequest) -> Map<String, Value> {
    let mut m = Map::new();
    if !e.name.is_empty() {
        m.insert("name".into(), (*e.name).into());
    }
    m.insert("deviceClassName".into(), (*e.device_class).into());
    match e.mode {
        AllocationMode::All => {
            m.insert("allocationMode".into(), "All".into());
        }
        AllocationMode::ExactCount => {
            m.insert("count".into(), e.count.into());
        }
    }
    let selectors: Vec<Value> = e
        .selectors
        .iter()
        .flatten()
        .map(|s| json!({"cel": {"expression": &**s}}))
        .collect();
    if !selectors.is_empty() {
        m.insert("selectors".into(), selectors.into());
    }
    if e.admin_access {
        m.insert("adminAccess".into(), true.into());
    }
    m
}

/// A claim spec as the API writes it (`spec.devices`).
fn spec_doc(spec: &ClaimSpec) -> Value {
    let requests: Vec<Value> = spec
        .requests
        .iter()
        .map(|r| match &r.kind {
            RequestKind::Exactly(e) => json!({"name": &*r.name, "exactly": exact_doc(e)}),
            RequestKind::FirstAvailable(subs) => json!({
                "name": &*r.name,
                "firstAvailable": subs.iter().map(exact_doc).collect::<Vec<_>>(),
            }),
            RequestKind::Unknown => json!({"name": &*r.name}),
        })
        .collect();
    let constraints: Vec<Value> = spec
        .constraints
        .iter()
        .filter_map(|c| match c {
            ClaimConstraint::MatchAttribute {
                requests,
                attribute,
            } => Some(json!({
                "requests": requests.iter().map(|r| &**r).collect::<Vec<_>>(),
                "matchAttribute": &**attribute,
            })),
            ClaimConstraint::Unsupported => None,
        })
        .collect();
    let mut devices = json!({"requests": requests});
    if !constraints.is_empty() {
        devices["constraints"] = constraints.into();
    }
    json!({"devices": devices})
}
