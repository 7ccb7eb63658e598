//! Other pods: a descheduler-style move of one to three low-cost pods off a
//! node that lacks room, each to a node where the scheduler places it
//! without evicting anyone, so the pod fits with no pod left homeless.

use super::edit::{ClusterEdit, PodMove};
use super::trial::{Budget, Trial};
use super::{Edit, Remedy, RemedyKind};
use crate::engine::status::Plugin;
use crate::engine::{Outcome, schedule};
use crate::model::{Cluster, NodeId, PodId};

/// Nodes tried, smallest shortfall first.
const MAX_NODES: usize = 5;
/// Pods moved off one node at most.
const MAX_MOVES: usize = 3;
/// Pods of the system priority classes are never moved.
const SYSTEM_PRIORITY: i32 = 2_000_000_000;

/// Controllers that recreate an evicted pod elsewhere (a DaemonSet's pod
/// belongs to its node; a bare pod would be gone).
fn recreated(kind: &str) -> bool {
    matches!(
        kind,
        "ReplicaSet" | "StatefulSet" | "ReplicationController" | "Job"
    )
}

/// Whether evicting the pod is allowed: a controller recreates it, it is
/// not terminating, not system-critical, and no PodDisruptionBudget of it
/// is at zero.
fn movable(cluster: &Cluster, id: PodId) -> bool {
    let pod = cluster.pod(id);
    pod.controller.as_ref().is_some_and(|c| recreated(&c.kind))
        && !pod.is_terminating()
        && cluster.priority_of(id) < SYSTEM_PRIORITY
        && cluster
            .pdbs_of_pod(id)
            .iter()
            .all(|&b| cluster.pdbs[b as usize].disruptions_allowed.unwrap_or(0) > 0)
}

/// `(resource, amount still needed)` on the node for the pod, from the
/// base answer's reasons: "pods" for "Too many pods".
fn shortfall(
    trial: &Trial,
    node: NodeId,
    reasons: &[crate::engine::status::Reason],
) -> Vec<(String, i64)> {
    let cluster = trial.cluster;
    let version = trial.scheduler.version.version;
    let info = cluster.node_info(node);
    let alloc = &cluster.node(node).allocatable;
    let want = trial.pod.requests_in(version);
    let used = info.requested_cpu_mem(version);
    let mut out = Vec::new();
    for reason in reasons {
        let need = match &**reason {
            "Too many pods" => (
                "pods".to_string(),
                (info.pods.len() as i64 + 1).saturating_sub(alloc.allowed_pods),
            ),
            "Insufficient cpu" => (
                "cpu".into(),
                want.milli_cpu
                    .saturating_sub(alloc.milli_cpu.saturating_sub(used.milli_cpu)),
            ),
            "Insufficient memory" => (
                "memory".into(),
                want.memory
                    .saturating_sub(alloc.memory.saturating_sub(used.memory)),
            ),
            "Insufficient ephemeral-storage" => (
                "ephemeral-storage".into(),
                want.ephemeral_storage.saturating_sub(
                    alloc
                        .ephemeral_storage
                        .saturating_sub(info.requested.ephemeral_storage),
                ),
            ),
            other => {
                let Some(name) = other.strip_prefix("Insufficient ") else {
                    continue;
                };
                let Some(sym) = cluster.interner.lookup(name) else {
                    continue;
                };
                (
                    name.to_string(),
                    want.scalar(sym).saturating_sub(
                        alloc
                            .scalar(sym)
                            .saturating_sub(info.requested_scalar(sym, version)),
                    ),
                )
            }
        };
        out.push(need);
    }
    out
}

/// What a pod on the node gives back of `resource`.
fn frees(trial: &Trial, id: PodId, resource: &str) -> i64 {
    let cluster = trial.cluster;
    let version = trial.scheduler.version.version;
    let pod = cluster.pod(id);
    let r = pod.requests_in(version);
    match resource {
        "pods" => 1,
        "cpu" => r.milli_cpu,
        "memory" => r.memory,
        "ephemeral-storage" => r.ephemeral_storage,
        other => cluster
            .interner
            .lookup(other)
            .map(|s| r.scalar(s))
            .unwrap_or(0),
    }
}

pub fn move_pods(trial: &Trial, budget: &Budget, report: &mut dyn FnMut(Remedy)) {
    let cluster = trial.cluster;
    // (how far from fitting, node, what it lacks)
    type Target = (f64, NodeId, Vec<(String, i64)>);
    let mut targets: Vec<Target> = trial
        .base
        .failures
        .iter()
        .filter(|f| {
            f.rejection.plugin == Plugin::NodeResourcesFit
                && f.rejection.code == crate::engine::status::Code::Unschedulable
        })
        .map(|f| {
            let need = shortfall(trial, f.node, &f.rejection.reasons);
            let alloc = &cluster.node(f.node).allocatable;
            let size = need
                .iter()
                .map(|(r, n)| {
                    let whole = match r.as_str() {
                        "cpu" => alloc.milli_cpu,
                        "memory" => alloc.memory,
                        "pods" => alloc.allowed_pods,
                        _ => 0,
                    };
                    if whole > 0 {
                        *n as f64 / whole as f64
                    } else {
                        1.0
                    }
                })
                .sum();
            (size, f.node, need)
        })
        .collect();
    targets.sort_by(|a, b| a.0.total_cmp(&b.0).then(a.1.cmp(&b.1)));
    let mut kept = 0;
    trial.with_scratch(|scratch| {
        for (_, node, need) in targets.into_iter().take(MAX_NODES) {
            if kept >= budget.max || budget.exhausted() {
                break;
            }
            let Some(chosen) = choose(trial, node, &need) else {
                continue;
            };
            if let Some(remedy) = try_moves(trial, scratch, node, &chosen) {
                kept += 1;
                report(remedy);
            }
        }
    });
}

/// The cheapest pods on `node` whose requests cover `need`: lowest
/// priority first, then those giving back the most.
fn choose(trial: &Trial, node: NodeId, need: &[(String, i64)]) -> Option<Vec<PodId>> {
    let cluster = trial.cluster;
    let mut pods: Vec<PodId> = cluster
        .node_info(node)
        .pods
        .iter()
        .copied()
        .filter(|&p| movable(cluster, p))
        .collect();
    let gives = |p: PodId| -> i64 {
        need.iter()
            .map(|(r, n)| (frees(trial, p, r).min(*n) * 1000) / (*n).max(1))
            .sum()
    };
    pods.sort_by_key(|&p| (cluster.priority_of(p), std::cmp::Reverse(gives(p)), p));
    let mut left: Vec<(String, i64)> = need.to_vec();
    let mut chosen = Vec::new();
    for p in pods {
        if left.iter().all(|(_, n)| *n <= 0) {
            break;
        }
        if chosen.len() == MAX_MOVES {
            return None;
        }
        if gives(p) == 0 {
            continue;
        }
        for (r, n) in &mut left {
            *n -= frees(trial, p, r);
        }
        chosen.push(p);
    }
    left.iter().all(|(_, n)| *n <= 0).then_some(chosen)
}

/// Moves `chosen` off `node` in the scratch cluster, each where the
/// scheduler puts it with `node` out of reach, then asks for the pod; the
/// scratch cluster is restored before returning.
fn try_moves(
    trial: &Trial,
    scratch: &mut Cluster,
    node: NodeId,
    chosen: &[PodId],
) -> Option<Remedy> {
    for &p in chosen {
        scratch.unbind_pod(p);
    }
    let was_cordoned = scratch.nodes[node as usize].unschedulable;
    scratch.nodes[node as usize].unschedulable = true;
    let mut placed: Vec<(PodId, NodeId)> = Vec::new();
    for &p in chosen {
        let answer = schedule(scratch, &scratch.pod(p).clone(), trial.scheduler);
        match (answer.outcome, answer.node) {
            (Outcome::Scheduled, Some(to)) => {
                scratch.bind_pod(p, to);
                placed.push((p, to));
            }
            _ => break,
        }
    }
    scratch.nodes[node as usize].unschedulable = was_cordoned;
    let verified = (placed.len() == chosen.len())
        .then(|| trial.check(scratch, &trial.pod, false))
        .flatten();
    for &(p, _) in &placed {
        scratch.unbind_pod(p);
    }
    for &p in chosen {
        scratch.bind_pod(p, node);
    }
    let result = verified?;
    let from = scratch.node(node).name.to_string();
    let moves: Vec<PodMove> = placed
        .iter()
        .map(|&(p, to)| PodMove {
            pod: scratch.pod_key(p),
            from: from.clone(),
            to: scratch.node(to).name.to_string(),
        })
        .collect();
    let change = format!(
        "move {} pod(s) off {from}: {}",
        moves.len(),
        moves
            .iter()
            .map(|m| format!("{} → {}", m.pod, m.to))
            .collect::<Vec<_>>()
            .join(", ")
    );
    Some(Remedy {
        kind: RemedyKind::MovePods,
        edit: Edit::Cluster(ClusterEdit::MovePods { moves }),
        change,
        result,
    })
}
