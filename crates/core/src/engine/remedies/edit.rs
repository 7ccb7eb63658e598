//! The changes a remedy makes, by name (nodes and pods as the operator
//! knows them), and how each is applied to the engine's model. The report
//! turns the same edits into JSON patches for manifests and snapshots.

use crate::model::node::{Node, Taint, TaintEffect};
use crate::model::pod::{
    Pod, PodPhase, PreemptionPolicy, Toleration, TolerationOperator, WhenUnsatisfiable,
};
use crate::model::{Cluster, NodeId, PodId};

#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Edit {
    Pod(PodEdit),
    Cluster(ClusterEdit),
}

/// A change to the pod's spec.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum PodEdit {
    /// `spec.topologySpreadConstraints[constraint].maxSkew`.
    MaxSkew { constraint: usize, max_skew: i32 },
    /// `spec.topologySpreadConstraints[constraint].whenUnsatisfiable: ScheduleAnyway`.
    ScheduleAnyway { constraint: usize },
    /// Remove `spec.nodeSelector[key]`.
    DropNodeSelector { key: String },
    /// Remove `spec.affinity.nodeAffinity.requiredDuringSchedulingIgnoredDuringExecution`.
    DropRequiredNodeAffinity,
    /// Remove one required pod (anti-)affinity term.
    DropPodAffinityTerm { anti: bool, index: usize },
    /// Add a toleration for one taint.
    Tolerate {
        key: String,
        value: String,
        effect: TaintEffect,
    },
    /// The pod's total requests as the scheduler counts them (containers,
    /// init containers and overhead): `(resource, new, old)`.
    Requests { resources: Vec<(String, i64, i64)> },
    /// `spec.priorityClassName` (admission then resolves the priority).
    PriorityClass { name: String, value: i32 },
}

/// A change to the cluster.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum ClusterEdit {
    /// `spec.unschedulable: false`.
    Uncordon { node: String },
    /// Remove `spec.taints[index]` of the node.
    Untaint {
        node: String,
        index: usize,
        taint: Taint,
    },
    /// New nodes, each a copy of an existing one (labels, taints,
    /// allocatable) under a new name, as a node group would add them.
    AddNodes { copies: Vec<NodeCopy> },
    /// Pods evicted from one node and recreated on another by their
    /// controllers.
    MovePods { moves: Vec<PodMove> },
}

#[derive(Clone, Debug, PartialEq, Eq)]
pub struct NodeCopy {
    pub like: String,
    pub name: String,
}

#[derive(Clone, Debug, PartialEq, Eq)]
pub struct PodMove {
    /// `namespace/name`.
    pub pod: String,
    pub from: String,
    pub to: String,
}

impl Edit {
    pub fn moved_pods(&self) -> usize {
        match self {
            Edit::Cluster(ClusterEdit::MovePods { moves }) => moves.len(),
            _ => 0,
        }
    }

    pub fn new_nodes(&self) -> usize {
        match self {
            Edit::Cluster(ClusterEdit::AddNodes { copies }) => copies.len(),
            _ => 0,
        }
    }
}

impl PodEdit {
    /// The pod with the edit made. `existing`: an admitted pod of the
    /// snapshot, whose priority is recomputed from the new class.
    pub fn apply(&self, cluster: &Cluster, pod: &Pod, existing: bool) -> Pod {
        let mut out = pod.clone();
        match self {
            PodEdit::MaxSkew {
                constraint,
                max_skew,
            } => {
                let mut c = out.spread_constraints.to_vec();
                c[*constraint].max_skew = *max_skew;
                out.spread_constraints = c.into();
            }
            PodEdit::ScheduleAnyway { constraint } => {
                let mut c = out.spread_constraints.to_vec();
                c[*constraint].when_unsatisfiable = WhenUnsatisfiable::ScheduleAnyway;
                out.spread_constraints = c.into();
            }
            PodEdit::DropNodeSelector { key } => {
                if let Some(sel) = &out.node_selector {
                    let kept: Vec<_> = sel
                        .iter()
                        .filter(|(k, _)| cluster.interner.resolve(*k) != key)
                        .copied()
                        .collect();
                    out.node_selector = (!kept.is_empty()).then(|| kept.into());
                }
            }
            PodEdit::DropRequiredNodeAffinity => {
                if let Some(a) = &mut out.node_affinity {
                    a.required = None;
                }
            }
            PodEdit::DropPodAffinityTerm { anti, index } => {
                if let Some(a) = &mut out.pod_affinity {
                    let terms = if *anti {
                        &mut a.required_anti_affinity
                    } else {
                        &mut a.required_affinity
                    };
                    let mut v = terms.to_vec();
                    v.remove(*index);
                    *terms = v.into();
                }
            }
            PodEdit::Tolerate { key, value, effect } => {
                let mut t = out.tolerations.to_vec();
                t.push(Toleration {
                    key: key.as_str().into(),
                    operator: TolerationOperator::Equal,
                    value: value.as_str().into(),
                    effect: Some(*effect),
                });
                out.tolerations = t.into();
            }
            PodEdit::Requests { resources } => {
                for (name, new, old) in resources {
                    set_request(cluster, &mut out, name, *new, *old);
                }
            }
            PodEdit::PriorityClass { name, value } => {
                out.priority_class_name = Some(name.as_str().into());
                out.priority = Some(*value);
                if existing {
                    // The recreated pod is admitted afresh: the class's policy.
                    out.preemption_policy = cluster
                        .priority_class(name)
                        .map(|pc| pc.preemption_policy)
                        .or(Some(PreemptionPolicy::PreemptLowerPriority));
                }
            }
        }
        out
    }
}

/// Sets one total request; the non-zero requests scoring reads follow by
/// the same amount (the cut comes off a container that keeps a request).
fn set_request(cluster: &Cluster, pod: &mut Pod, name: &str, new: i64, old: i64) {
    let delta = old.wrapping_sub(new);
    match name {
        "cpu" => {
            pod.requests.milli_cpu = new;
            pod.non_zero_requests.milli_cpu = pod.non_zero_requests.milli_cpu.wrapping_sub(delta);
            pod.incoming_non_zero_requests.milli_cpu =
                pod.incoming_non_zero_requests.milli_cpu.wrapping_sub(delta);
        }
        "memory" => {
            pod.requests.memory = new;
            pod.non_zero_requests.memory = pod.non_zero_requests.memory.wrapping_sub(delta);
            pod.incoming_non_zero_requests.memory =
                pod.incoming_non_zero_requests.memory.wrapping_sub(delta);
        }
        "ephemeral-storage" => pod.requests.ephemeral_storage = new,
        other => {
            if let Some(sym) = cluster.interner.lookup(other) {
                pod.requests.set_scalar(sym, new);
            }
        }
    }
}

/// What [`ClusterEdit::apply`] changed, to put it back.
pub enum Undo {
    Cordon(NodeId),
    Taint(NodeId, usize, Taint),
    RemoveNodes(usize),
    Rebind(Vec<(PodId, NodeId)>),
}

impl ClusterEdit {
    /// Makes the edit in `cluster`; `None` when a name is unknown.
    pub fn apply(&self, cluster: &mut Cluster) -> Option<Undo> {
        match self {
            ClusterEdit::Uncordon { node } => {
                let id = cluster.node_id(node)?;
                cluster.nodes[id as usize].unschedulable = false;
                Some(Undo::Cordon(id))
            }
            ClusterEdit::Untaint { node, index, .. } => {
                let id = cluster.node_id(node)?;
                let n = &mut cluster.nodes[id as usize];
                let mut taints = n.taints.to_vec();
                if *index >= taints.len() {
                    return None;
                }
                let taint = taints.remove(*index);
                n.taints = taints.into();
                Some(Undo::Taint(id, *index, taint))
            }
            ClusterEdit::AddNodes { copies } => {
                for copy in copies {
                    let like = cluster.node_id(&copy.like)?;
                    let node = copy_of(cluster, like, &copy.name);
                    cluster.add_node(node);
                }
                Some(Undo::RemoveNodes(copies.len()))
            }
            ClusterEdit::MovePods { moves } => {
                let mut back = Vec::new();
                for m in moves {
                    let (ns, name) = m.pod.split_once('/')?;
                    let pod = cluster.find_pod(ns, name)?;
                    let from = cluster.pod(pod).node?;
                    let to = cluster.node_id(&m.to)?;
                    cluster.unbind_pod(pod);
                    cluster.pod_mut(pod).phase = PodPhase::Running;
                    cluster.bind_pod(pod, to);
                    back.push((pod, from));
                }
                Some(Undo::Rebind(back))
            }
        }
    }
}

impl Undo {
    pub fn revert(self, cluster: &mut Cluster) {
        match self {
            Undo::Cordon(id) => cluster.nodes[id as usize].unschedulable = true,
            Undo::Taint(id, index, taint) => {
                let n = &mut cluster.nodes[id as usize];
                let mut taints = n.taints.to_vec();
                taints.insert(index, taint);
                n.taints = taints.into();
            }
            Undo::RemoveNodes(n) => cluster.remove_last_nodes(n),
            Undo::Rebind(back) => {
                for (pod, from) in back.into_iter().rev() {
                    cluster.unbind_pod(pod);
                    cluster.pod_mut(pod).phase = PodPhase::Running;
                    cluster.bind_pod(pod, from);
                }
            }
        }
    }
}

/// A new node like `like`: the same labels (its hostname label follows the
/// new name), taints, allocatable and readiness, schedulable, no pods.
pub fn copy_of(cluster: &mut Cluster, like: NodeId, name: &str) -> Node {
    let template = cluster.node(like).clone();
    let hostname = cluster.interner.intern("kubernetes.io/hostname");
    let new_name = cluster.interner.intern(name);
    let labels = template
        .labels
        .iter()
        .map(|(k, v)| {
            let own_name = k == hostname && cluster.interner.resolve(v) == &*template.name;
            (k, if own_name { new_name } else { v })
        })
        .collect();
    Node {
        name: name.into(),
        labels: crate::model::labels::Labels::new(labels),
        unschedulable: false,
        ..template
    }
}
