//! Headroom per zone for a pod of priority class P: free capacity, capacity
//! held by lower-priority pods P could preempt, and the part of that
//! protected by PDBs with no disruptions left, counted only on the nodes a
//! pod of P could use. Which nodes those are is the engine's answer:
//! NodeUnschedulable's and TaintToleration's Filter for a plain pod of the
//! class (no tolerations), not a rule of this module.

use crate::engine::plugins::{node_unschedulable, taint_toleration};
use crate::model::pod::PreemptionPolicy;
use crate::model::{Cluster, Node, Pod};

use super::derived::Derived;

/// What the headroom numbers assume about the pod.
pub const ASSUMPTION: &str = "a pod of this class with no tolerations";

#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Split {
    pub allocatable: i64,
    pub free: i64,
    /// Held by lower-priority pods not protected by an exhausted PDB.
    pub preemptible: i64,
    /// Held by lower-priority pods whose eviction would break a PDB.
    pub protected: i64,
}

impl Split {
    /// Counts a node: its allocatable, and what its pods leave free (never
    /// negative; sums saturate, requests may be absurd).
    fn add_node(&mut self, allocatable: i64, requested: i64) {
        self.allocatable = self.allocatable.saturating_add(allocatable);
        self.free = self
            .free
            .saturating_add(allocatable.saturating_sub(requested).max(0));
    }

    /// Held by pods at P or above: out of reach.
    pub fn out_of_reach(&self) -> i64 {
        self.allocatable
            .saturating_sub(self.free)
            .saturating_sub(self.preemptible)
            .saturating_sub(self.protected)
            .max(0)
    }
}

#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct ZoneHeadroom {
    pub zone: String,
    /// Nodes counted (the pod could use them).
    pub nodes: usize,
    /// Nodes left out: cordoned, or with a taint the pod does not tolerate.
    pub cordoned: usize,
    pub tainted: usize,
    pub cpu: Split,
    pub memory: Split,
}

#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Headroom {
    pub priority: i32,
    pub label: String,
    /// The class has `preemptionPolicy: Never`: it cannot preempt.
    pub never: bool,
    pub zones: Vec<ZoneHeadroom>,
}

/// The pod the headroom is for: the class's priority and policy, nothing
/// else (no tolerations, no selectors).
pub fn plain_pod(cluster: &Cluster, value: i32, class: &str, never: bool) -> Pod {
    let mut pod = Pod::blank(cluster.empty_sym());
    pod.priority = Some(value);
    pod.priority_class_name = (!class.is_empty()).then(|| class.into());
    pod.preemption_policy = Some(if never {
        PreemptionPolicy::Never
    } else {
        PreemptionPolicy::PreemptLowerPriority
    });
    pod
}

/// Why the engine's filters keep `pod` off `node`, if they do: `Some(true)`
/// cordoned, `Some(false)` an untolerated taint.
pub fn left_out(pod: &Pod, node: &Node) -> Option<bool> {
    if node_unschedulable::filter(pod, node).is_err() {
        Some(true)
    } else if taint_toleration::filter(pod, node).is_err() {
        Some(false)
    } else {
        None
    }
}

/// Headroom for the tier at `tier` (an index into the tier rows); `None`
/// also while the tiers are not built yet.
pub fn headroom(cluster: &Cluster, derived: &Derived, tier: usize) -> Option<Headroom> {
    let tiers = derived.tiers()?;
    let row = tiers.rows.get(tier)?;
    let p = row.value;
    let pod = plain_pod(cluster, p, &row.classes, row.never);
    let mut zones: Vec<ZoneHeadroom> = derived
        .zones
        .iter()
        .map(|z| ZoneHeadroom {
            zone: z.name.clone(),
            ..Default::default()
        })
        .collect();
    for (id, node) in cluster.nodes.iter().enumerate() {
        let z = &mut zones[derived.node_zone[id]];
        match left_out(&pod, node) {
            Some(true) => {
                z.cordoned += 1;
                continue;
            }
            Some(false) => {
                z.tainted += 1;
                continue;
            }
            None => z.nodes += 1,
        }
        let info = &cluster.node_infos[id];
        z.cpu
            .add_node(node.allocatable.milli_cpu, info.requested.milli_cpu);
        z.memory
            .add_node(node.allocatable.memory, info.requested.memory);
        if row.never {
            continue;
        }
        // The node's briefs, not its pods' records: one dense array per
        // node instead of 150,000 scattered records, read again after each
        // live batch while Tiers is shown. A node holds no pod in a
        // terminal phase (the scheduler counts none).
        for (&pid, brief) in info.pods.iter().zip(&info.briefs) {
            if brief.priority >= p {
                continue;
            }
            let (cpu, mem) = (brief.milli_cpu(), brief.memory());
            if tiers.protected.get(pid as usize).copied().unwrap_or(false) {
                z.cpu.protected = z.cpu.protected.saturating_add(cpu);
                z.memory.protected = z.memory.protected.saturating_add(mem);
            } else {
                z.cpu.preemptible = z.cpu.preemptible.saturating_add(cpu);
                z.memory.preemptible = z.memory.preemptible.saturating_add(mem);
            }
        }
    }
    let label = if row.classes.is_empty() {
        format!("priority {p}")
    } else {
        format!("{} ({p})", row.classes)
    };
    Some(Headroom {
        priority: p,
        label,
        never: row.never,
        zones,
    })
}
