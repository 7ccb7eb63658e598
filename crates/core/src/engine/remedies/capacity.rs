//! Capacity: one more node like an existing one, as an autoscaler's node
//! group would add it, in the domain where it helps.

use super::edit::{ClusterEdit, NodeCopy};
use super::trial::{Budget, Trial};
use super::{Edit, Remedy, RemedyKind};
use crate::model::node::Node;
use crate::model::{Cluster, NodeId};

/// Node shapes tried.
const MAX_SHAPES: usize = 16;

/// What makes two nodes the same "node group" for the pod: their labels
/// (the hostname aside), taints and allocatable.
type Shape = (
    Vec<(usize, usize)>,
    Vec<(Box<str>, Box<str>, &'static str)>,
    [i64; 4],
    Vec<(usize, i64)>,
);

fn shape(cluster: &Cluster, n: &Node) -> Shape {
    let hostname = cluster.interner.lookup("kubernetes.io/hostname");
    let a = &n.allocatable;
    (
        n.labels
            .iter()
            .filter(|(k, _)| Some(*k) != hostname)
            .map(|(k, v)| (k.index(), v.index()))
            .collect(),
        n.taints
            .iter()
            .map(|t| (t.key.clone(), t.value.clone(), t.effect.as_str()))
            .collect(),
        [a.milli_cpu, a.memory, a.ephemeral_storage, a.allowed_pods],
        a.scalars.iter().map(|(k, v)| (k.index(), *v)).collect(),
    )
}

/// A node whose copy would start life unusable (the node controller's
/// taints) is no template.
fn usable_template(node: &Node) -> bool {
    !node.taints.iter().any(|t| {
        t.key.starts_with("node.kubernetes.io/")
            || t.key.starts_with("node.cloudprovider.kubernetes.io/")
    })
}

/// `worker-c01-copy-1`, not taken by any node.
fn new_name(cluster: &Cluster, like: &str) -> String {
    (1..)
        .map(|i| format!("{like}-copy-{i}"))
        .find(|n| cluster.node_id(n).is_none())
        .expect("a free name")
}

/// "(topology.kubernetes.io/zone=eu-west-1c)" when the node has a zone.
pub fn domain_of(cluster: &Cluster, node: &Node) -> String {
    let zone = cluster
        .interner
        .lookup("topology.kubernetes.io/zone")
        .and_then(|k| node.labels.get(k));
    match zone {
        Some(z) => format!(" in zone {}", cluster.interner.resolve(z)),
        None => String::new(),
    }
}

pub fn add_node(trial: &Trial, budget: &Budget, report: &mut dyn FnMut(Remedy)) {
    let cluster = trial.cluster;
    // One template per shape, the nodes that only lacked room first (a
    // bigger pool of the same nodes is what an autoscaler adds).
    let lacked_room = |n: NodeId| {
        trial
            .base
            .failures
            .iter()
            .find(|f| f.node == n)
            .is_some_and(|f| f.rejection.plugin == crate::engine::status::Plugin::NodeResourcesFit)
    };
    let mut by_shape: rustc_hash::FxHashMap<Shape, (NodeId, usize)> = Default::default();
    for (id, node) in cluster.nodes.iter().enumerate() {
        if usable_template(node) {
            by_shape
                .entry(shape(cluster, node))
                .or_insert((id as NodeId, 0))
                .1 += 1;
        }
    }
    let mut shapes: Vec<(NodeId, usize)> = by_shape.into_values().collect();
    shapes.sort_by_key(|&(t, n)| (!lacked_room(t), std::cmp::Reverse(n), t));
    let mut kept = 0;
    let mut zones_kept: Vec<String> = Vec::new();
    trial.with_scratch(|scratch| {
        for (template, _) in shapes.into_iter().take(MAX_SHAPES) {
            if kept >= budget.max || budget.exhausted() {
                break;
            }
            let like = cluster.node(template);
            let domain = domain_of(cluster, like);
            if zones_kept.contains(&domain) {
                continue;
            }
            let edit = ClusterEdit::AddNodes {
                copies: vec![NodeCopy {
                    like: like.name.to_string(),
                    name: new_name(cluster, &like.name),
                }],
            };
            let Some(undo) = edit.apply(scratch) else {
                continue;
            };
            let verified = trial.check(scratch, &trial.pod, false);
            undo.revert(scratch);
            if let Some(result) = verified {
                kept += 1;
                zones_kept.push(domain.clone());
                report(Remedy {
                    kind: RemedyKind::AddNode,
                    change: format!("add 1 node like {}{domain}", like.name),
                    edit: Edit::Cluster(edit),
                    result,
                });
            }
        }
    });
}
