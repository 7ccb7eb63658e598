//! Remedies for people and scripts: one wording for the table and the
//! Placement view, and the `remedies` JSON with each edit as something a
//! script can apply (a JSON patch for a manifest or node, or a node copy
//! and pod moves for a snapshot).

use serde_json::{Value, json};

use crate::engine::Outcome;
use crate::engine::remedies::{ClusterEdit, Edit, PodEdit, Remedies, Remedy, Verified};
use crate::model::Pod;

/// "schedules on worker-b02", "preempts on worker-a01, evicting 2 pod(s):
/// shop/cart-1, shop/cart-2".
pub fn outcome_text(v: &Verified) -> String {
    let node = v.node.as_deref().unwrap_or("?");
    match v.outcome {
        Outcome::Preempt if !v.victims.is_empty() => format!(
            "preempts on {node}, evicting {} pod(s): {}",
            v.victims.len(),
            v.victims.join(", ")
        ),
        Outcome::Preempt => format!("preempts on {node}"),
        _ => format!("schedules on {node}"),
    }
}

/// One line per remedy: "add 1 node like worker-c01 in zone eu-west-1c →
/// schedules on worker-c01-copy-1".
pub fn line(r: &Remedy) -> String {
    format!("{} → {}", r.change, outcome_text(&r.result))
}

/// The table's section (empty when there is nothing to say).
pub fn table_section(r: &Remedies) -> String {
    let mut out = String::new();
    if r.remedies.is_empty() && r.notes.is_empty() {
        return out;
    }
    out.push_str("How to make it fit (each change verified on its own):\n");
    for (i, remedy) in r.remedies.iter().enumerate() {
        out.push_str(&format!(
            "  {}. [{}] {}\n",
            i + 1,
            remedy.kind.as_str(),
            line(remedy)
        ));
    }
    for note in &r.notes {
        out.push_str(&format!("  note: {note}\n"));
    }
    out
}

/// `remedies`: `{kind, change, outcome, node, victims, edit}` per remedy.
/// `pod` is the pod as asked (its manifest's shape decides the patch);
/// `existing`: a pod of the snapshot (a new priority must drop its
/// resolved `spec.priority`).
pub fn json_list(r: &Remedies, pod: &Pod, existing: bool) -> Value {
    Value::Array(
        r.remedies
            .iter()
            .map(|remedy| {
                json!({
                    "kind": remedy.kind.as_str(),
                    "change": remedy.change,
                    "outcome": remedy.result.outcome.as_str(),
                    "node": remedy.result.node,
                    "victims": remedy.result.victims,
                    "edit": edit_json(&remedy.edit, pod, existing),
                })
            })
            .collect(),
    )
}

/// A JSON pointer segment (`/` and `~` escaped, RFC 6901).
fn segment(s: &str) -> String {
    s.replace('~', "~0").replace('/', "~1")
}

/// The edit as data: `target` says what it applies to.
/// - `pod`: `patch`, a JSON patch (RFC 6902) for the pod manifest; or
///   `podRequests`, the pod's total requests as the scheduler counts them.
/// - `node`: `node` and a JSON `patch` for that Node object.
/// - `cluster`: `addNodes` (`copyOf`: a copy of that Node object named
///   `name`, its `kubernetes.io/hostname` label following the name,
///   `spec.unschedulable` unset) or `movePods` (`pod` rebound from `from`
///   to `to`).
pub fn edit_json(edit: &Edit, pod: &Pod, existing: bool) -> Value {
    match edit {
        Edit::Pod(PodEdit::Requests { resources }) => json!({
            "target": "pod",
            "podRequests": resources
                .iter()
                .map(|(n, v, _)| (n.clone(), json!(crate::engine::remedies::quantity_text(n, *v))))
                .collect::<serde_json::Map<_, _>>(),
        }),
        Edit::Pod(e) => json!({"target": "pod", "patch": pod_patch(e, pod, existing)}),
        Edit::Cluster(ClusterEdit::Uncordon { node }) => json!({
            "target": "node",
            "node": node,
            "patch": [{"op": "replace", "path": "/spec/unschedulable", "value": false}],
        }),
        Edit::Cluster(ClusterEdit::Untaint { node, index, taint }) => json!({
            "target": "node",
            "node": node,
            "patch": [
                {"op": "test", "path": format!("/spec/taints/{index}/key"), "value": taint.key},
                {"op": "remove", "path": format!("/spec/taints/{index}")},
            ],
        }),
        Edit::Cluster(ClusterEdit::AddNodes { copies }) => json!({
            "target": "cluster",
            "addNodes": copies
                .iter()
                .map(|c| json!({"copyOf": c.like, "name": c.name}))
                .collect::<Vec<_>>(),
        }),
        Edit::Cluster(ClusterEdit::MovePods { moves }) => json!({
            "target": "cluster",
            "movePods": moves
                .iter()
                .map(|m| json!({"pod": m.pod, "from": m.from, "to": m.to}))
                .collect::<Vec<_>>(),
        }),
    }
}

/// The JSON patch operations for a pod edit.
pub fn pod_patch(edit: &PodEdit, pod: &Pod, existing: bool) -> Vec<Value> {
    match edit {
        PodEdit::MaxSkew {
            constraint,
            max_skew,
        } => vec![json!({
            "op": "replace",
            "path": format!("/spec/topologySpreadConstraints/{constraint}/maxSkew"),
            "value": max_skew,
        })],
        PodEdit::ScheduleAnyway { constraint } => vec![json!({
            "op": "replace",
            "path": format!("/spec/topologySpreadConstraints/{constraint}/whenUnsatisfiable"),
            "value": "ScheduleAnyway",
        })],
        PodEdit::DropNodeSelector { key } => vec![json!({
            "op": "remove",
            "path": format!("/spec/nodeSelector/{}", segment(key)),
        })],
        PodEdit::DropRequiredNodeAffinity => vec![json!({
            "op": "remove",
            "path": "/spec/affinity/nodeAffinity/requiredDuringSchedulingIgnoredDuringExecution",
        })],
        PodEdit::DropPodAffinityTerm { anti, index } => vec![json!({
            "op": "remove",
            "path": format!(
                "/spec/affinity/{}/requiredDuringSchedulingIgnoredDuringExecution/{index}",
                if *anti { "podAntiAffinity" } else { "podAffinity" }
            ),
        })],
        PodEdit::Tolerate { key, value, effect } => {
            let toleration = json!({
                "key": key,
                "operator": "Equal",
                "value": value,
                "effect": effect.as_str(),
            });
            if pod.tolerations.is_empty() {
                vec![json!({"op": "add", "path": "/spec/tolerations", "value": [toleration]})]
            } else {
                vec![json!({"op": "add", "path": "/spec/tolerations/-", "value": toleration})]
            }
        }
        PodEdit::PriorityClass { name, .. } => {
            let mut ops =
                vec![json!({"op": "add", "path": "/spec/priorityClassName", "value": name})];
            if existing && pod.priority.is_some() {
                ops.push(json!({"op": "remove", "path": "/spec/priority"}));
            }
            if existing && pod.preemption_policy.is_some() {
                ops.push(json!({"op": "remove", "path": "/spec/preemptionPolicy"}));
            }
            ops
        }
        PodEdit::Requests { .. } => Vec::new(),
    }
}
