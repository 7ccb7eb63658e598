//! The pod's size: the largest requests that fit some node now, and a
//! plain statement when a request is larger than every node.

use super::constraints::try_pod_edit;
use super::edit::PodEdit;
use super::trial::{Budget, Trial};
use super::{Remedy, RemedyKind};
use crate::engine::status::Plugin;
use crate::model::resources::Resources;
use crate::model::{Cluster, NodeId};

/// Nodes tried, closest to fitting first.
const MAX_TRIES: usize = 5;

/// The pod's requests by resource name, non-zero only.
fn requests(cluster: &Cluster, r: &Resources) -> Vec<(String, i64)> {
    let mut out = Vec::new();
    for (name, v) in [
        ("cpu", r.milli_cpu),
        ("memory", r.memory),
        ("ephemeral-storage", r.ephemeral_storage),
    ] {
        if v > 0 {
            out.push((name.to_string(), v));
        }
    }
    for &(sym, v) in &r.scalars {
        if v > 0 {
            out.push((cluster.interner.resolve(sym).to_string(), v));
        }
    }
    out
}

fn allocatable(cluster: &Cluster, node: NodeId, resource: &str) -> i64 {
    let a = &cluster.node(node).allocatable;
    match resource {
        "cpu" => a.milli_cpu,
        "memory" => a.memory,
        "ephemeral-storage" => a.ephemeral_storage,
        other => cluster
            .interner
            .lookup(other)
            .map(|s| a.scalar(s))
            .unwrap_or(0),
    }
}

/// What is left of `resource` on `node` for a new pod.
fn free(trial: &Trial, node: NodeId, resource: &str) -> i64 {
    let cluster = trial.cluster;
    let version = trial.scheduler.version.version;
    let info = cluster.node_info(node);
    let used = match resource {
        "cpu" => info.requested_cpu_mem(version).milli_cpu,
        "memory" => info.requested_cpu_mem(version).memory,
        "ephemeral-storage" => info.requested.ephemeral_storage,
        other => cluster
            .interner
            .lookup(other)
            .map(|s| info.requested_scalar(s, version))
            .unwrap_or(0),
    };
    allocatable(cluster, node, resource) - used
}

/// A round amount not above `v`: 10m of CPU, 1Mi of memory or storage.
fn round_down(resource: &str, v: i64) -> i64 {
    let step = match resource {
        "cpu" if v >= 100 => 10,
        "memory" | "ephemeral-storage" if v >= 1 << 20 => 1 << 20,
        _ => 1,
    };
    v - v.rem_euclid(step)
}

/// "the pod requests cpu 48, more than any node's allocatable (the largest
/// is 15.9 on worker-a01)", for every such resource.
pub fn larger_than_every_node(trial: &Trial) -> Option<String> {
    let cluster = trial.cluster;
    if cluster.nodes.is_empty() {
        return None;
    }
    let version = trial.scheduler.version.version;
    let mut parts = Vec::new();
    for (name, want) in requests(cluster, trial.pod.requests_in(version)) {
        let (largest, node) = (0..cluster.nodes.len() as NodeId)
            .map(|n| (allocatable(cluster, n, &name), n))
            .max_by_key(|&(a, n)| (a, std::cmp::Reverse(n)))
            .expect("nodes");
        if want > largest {
            parts.push(format!(
                "{name} {} (the largest allocatable is {} on {})",
                quantity_text(&name, want),
                quantity_text(&name, largest),
                cluster.node(node).name
            ));
        }
    }
    (!parts.is_empty()).then(|| {
        format!(
            "the pod is larger than every node: it requests {}; no node of this cluster, and no copy of one, can hold it as it is",
            parts.join(", ")
        )
    })
}

pub fn resize(trial: &Trial, budget: &Budget, report: &mut dyn FnMut(Remedy)) {
    if trial.pod.pod_level.is_some() {
        // Pod-level resources bound the containers' requests: not a single
        // number kplace can change on its own.
        return;
    }
    let cluster = trial.cluster;
    let wanted = requests(cluster, &trial.pod.requests);
    // Per node rejected only for lack of room: the requests that would fit
    // there, and how much of the pod is kept (the smallest ratio).
    type Plan = (f64, NodeId, Vec<(String, i64, i64)>);
    let mut plans: Vec<Plan> = Vec::new();
    for f in &trial.base.failures {
        if f.rejection.plugin != Plugin::NodeResourcesFit
            || f.rejection.reasons.iter().any(|r| r == "Too many pods")
        {
            continue;
        }
        let mut cut = Vec::new();
        let mut kept = 1.0f64;
        let mut usable = true;
        for reason in &f.rejection.reasons {
            let Some(resource) = reason.strip_prefix("Insufficient ") else {
                continue;
            };
            let Some(&(_, want)) = wanted.iter().find(|(n, _)| n == resource) else {
                continue;
            };
            let target = round_down(resource, free(trial, f.node, resource));
            if target <= 0 {
                usable = false;
                break;
            }
            kept = kept.min(target as f64 / want as f64);
            cut.push((resource.to_string(), target, want));
        }
        if usable && !cut.is_empty() {
            plans.push((kept, f.node, cut));
        }
    }
    plans.sort_by(|a, b| b.0.total_cmp(&a.0).then(a.1.cmp(&b.1)));
    for (_, _, resources) in plans.into_iter().take(MAX_TRIES) {
        if budget.exhausted() {
            break;
        }
        let change = format!(
            "request at most {} (the pod asks {})",
            resources
                .iter()
                .map(|(n, new, _)| format!("{n} {}", quantity_text(n, *new)))
                .collect::<Vec<_>>()
                .join(", "),
            resources
                .iter()
                .map(|(n, _, old)| quantity_text(n, *old))
                .collect::<Vec<_>>()
                .join(", ")
        );
        let edit = PodEdit::Requests { resources };
        if try_pod_edit(trial, RemedyKind::Resize, edit, change, false, report) {
            break;
        }
    }
}

/// A Kubernetes quantity for a resource amount: `15400m` or `15` CPUs,
/// `12Gi` or bytes of memory, a plain count otherwise.
pub fn quantity_text(resource: &str, v: i64) -> String {
    use crate::model::quantity::{bytes_quantity, cpu_quantity};
    match resource {
        "cpu" => cpu_quantity(v),
        "memory" | "ephemeral-storage" => bytes_quantity(v),
        _ => v.to_string(),
    }
}
