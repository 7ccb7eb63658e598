//! Disruption what-ifs: drain nodes, cordon a zone, or lose a zone, and see
//! where each displaced pod would go. Displaced pods are taken in priority
//! order (then oldest first), as the scheduler's queue would take them, on a
//! fork of the snapshot; the snapshot itself is never changed.

use super::replicas::{DomainCounts, domain_counts};
use super::{Placement, carry_out, schedule};
use crate::model::pod::PodPhase;
use crate::model::{Cluster, NodeId, Pod, PodId};

/// What happens to the cluster.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Disruption {
    /// `kubectl drain`: cordon the nodes and evict their pods (DaemonSet
    /// pods stay, as with `--ignore-daemonsets`).
    Drain(Vec<NodeId>),
    /// Cordon every node of a zone: nothing moves, nothing new lands there.
    CordonZone(String),
    /// The zone's nodes disappear with their pods.
    LoseZone(String),
}

/// The zone label the scheduler and kubectl use.
pub const ZONE_LABEL: &str = "topology.kubernetes.io/zone";

/// A pod that had to leave its node.
#[derive(Clone, Debug)]
pub struct Displaced {
    /// `namespace/name`.
    pub pod: String,
    pub priority: i32,
    pub from_node: String,
    /// Where it would go; `None` when it is not recreated.
    pub placement: Option<Placement>,
    /// Why it is not recreated (no controller to recreate it).
    pub not_recreated: Option<String>,
}

impl Displaced {
    pub fn landed(&self) -> bool {
        self.placement.as_ref().is_some_and(|p| p.node.is_some())
    }
}

/// A PodDisruptionBudget the disruption would break.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct BrokenBudget {
    pub pdb: String,
    pub disruptions_allowed: i32,
    pub evicted: i32,
}

#[derive(Clone, Debug)]
pub struct DisruptionPlan {
    pub affected_nodes: Vec<String>,
    pub displaced: Vec<Displaced>,
    pub broken_pdbs: Vec<BrokenBudget>,
    /// Per workload (controller `Kind namespace/name`) with spread
    /// constraints, the domain counts after the disruption.
    pub workload_skew: Vec<(String, Vec<DomainCounts>)>,
    /// The fork after the disruption and the re-placements.
    pub cluster: Cluster,
}

fn zone_nodes(cluster: &Cluster, zone: &str) -> Vec<NodeId> {
    let (Some(key), Some(value)) = (
        cluster.interner.lookup(ZONE_LABEL),
        cluster.interner.lookup(zone),
    ) else {
        return Vec::new();
    };
    (0..cluster.nodes.len() as NodeId)
        .filter(|&n| cluster.node(n).labels.get(key) == Some(value))
        .collect()
}

fn is_daemon_pod(pod: &Pod) -> bool {
    pod.controller
        .as_ref()
        .is_some_and(|c| &*c.kind == "DaemonSet")
}

fn workload_of(cluster: &Cluster, pod: &Pod) -> Option<String> {
    pod.controller.as_ref().map(|c| {
        format!(
            "{} {}/{}",
            c.kind,
            cluster.interner.resolve(pod.namespace),
            c.name
        )
    })
}

/// Runs the disruption on a fork and re-places every displaced pod.
pub fn simulate(
    cluster: &Cluster,
    disruption: &Disruption,
    scheduler: &super::VersionChoice,
) -> DisruptionPlan {
    let (nodes, evict, remove) = match disruption {
        Disruption::Drain(nodes) => (nodes.clone(), true, false),
        Disruption::CordonZone(zone) => (zone_nodes(cluster, zone), false, false),
        Disruption::LoseZone(zone) => (zone_nodes(cluster, zone), true, true),
    };
    let affected_nodes: Vec<String> = nodes
        .iter()
        .map(|&n| cluster.node(n).name.to_string())
        .collect();

    // The pods leaving their nodes.
    let mut leaving: Vec<PodId> = Vec::new();
    if evict {
        for &n in &nodes {
            for &id in &cluster.node_info(n).pods {
                if remove || !is_daemon_pod(cluster.pod(id)) {
                    leaving.push(id);
                }
            }
        }
    }
    // The fork: lost nodes are gone (pod ids stay valid); drained and
    // cordoned nodes are unschedulable, drained ones emptied.
    let mut fork = if remove {
        cluster.without_nodes(&nodes)
    } else {
        let mut fork = cluster.clone();
        for &id in &leaving {
            fork.unbind_pod(id);
        }
        for &n in &nodes {
            fork.nodes[n as usize].unschedulable = true;
        }
        fork
    };

    let broken_pdbs = broken_budgets(cluster, &leaving);

    // The scheduler's queue order: higher priority first, then oldest.
    leaving.sort_by_key(|&id| {
        let p = cluster.pod(id);
        (
            std::cmp::Reverse(p.priority_value()),
            p.creation_timestamp.unwrap_or(i64::MAX),
            id,
        )
    });
    let mut displaced = Vec::with_capacity(leaving.len());
    for &id in &leaving {
        let original = cluster.pod(id);
        let from_node = original
            .node
            .map(|n| cluster.node(n).name.to_string())
            .unwrap_or_default();
        let mut entry = Displaced {
            pod: cluster.pod_key(id),
            priority: original.priority_value(),
            from_node,
            placement: None,
            not_recreated: None,
        };
        if original.controller.is_none() {
            entry.not_recreated = Some("no controller: a bare pod is not recreated".into());
        } else if remove && is_daemon_pod(original) {
            entry.not_recreated = Some("DaemonSet pod: it only runs on its own node".into());
        } else {
            let mut pod = original.clone();
            pod.node = None;
            pod.node_name = None;
            pod.phase = PodPhase::Pending;
            pod.nominated_node_name = None;
            let placement = schedule(&fork, &pod, scheduler);
            let landed = carry_out(&mut fork, &placement);
            if let Some(node) = landed {
                fork.bind_pod(id, node);
            }
            entry.placement = Some(placement);
        }
        displaced.push(entry);
    }

    // Skew of every affected workload that spreads.
    let mut workload_skew: Vec<(String, Vec<DomainCounts>)> = Vec::new();
    for &id in &leaving {
        let pod = cluster.pod(id);
        if pod.spread_constraints.is_empty() {
            continue;
        }
        let Some(name) = workload_of(cluster, pod) else {
            continue;
        };
        if workload_skew.iter().any(|(w, _)| *w == name) {
            continue;
        }
        workload_skew.push((name, domain_counts(&fork, pod)));
    }

    DisruptionPlan {
        affected_nodes,
        displaced,
        broken_pdbs,
        workload_skew,
        cluster: fork,
    }
}

/// PDBs that lose more pods than they allow.
fn broken_budgets(cluster: &Cluster, leaving: &[PodId]) -> Vec<BrokenBudget> {
    let mut evicted: Vec<(u32, i32)> = Vec::new();
    for &id in leaving {
        for &pdb in cluster.pdbs_of_pod(id) {
            match evicted.iter_mut().find(|e| e.0 == pdb) {
                Some(e) => e.1 += 1,
                None => evicted.push((pdb, 1)),
            }
        }
    }
    evicted.sort_unstable();
    evicted
        .into_iter()
        .filter_map(|(i, n)| {
            let pdb = &cluster.pdbs[i as usize];
            let allowed = pdb.disruptions_allowed.unwrap_or(0);
            (n > allowed).then(|| BrokenBudget {
                pdb: format!("{}/{}", cluster.interner.resolve(pdb.namespace), pdb.name),
                disruptions_allowed: allowed,
                evicted: n,
            })
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::source::file::load_snapshot_bytes;

    /// Two zones, two nodes each; a 3-replica ReplicaSet spread over zones
    /// with a PDB allowing one disruption; a bare pod; a DaemonSet pod.
    const SNAPSHOT: &str = r#"
apiVersion: v1
kind: List
items:
- {apiVersion: v1, kind: Node, metadata: {name: a1, labels: {topology.kubernetes.io/zone: a, kubernetes.io/hostname: a1}}, status: {allocatable: {cpu: "4", memory: 8Gi, pods: "10"}}}
- {apiVersion: v1, kind: Node, metadata: {name: a2, labels: {topology.kubernetes.io/zone: a, kubernetes.io/hostname: a2}}, status: {allocatable: {cpu: "4", memory: 8Gi, pods: "10"}}}
- {apiVersion: v1, kind: Node, metadata: {name: b1, labels: {topology.kubernetes.io/zone: b, kubernetes.io/hostname: b1}}, status: {allocatable: {cpu: "4", memory: 8Gi, pods: "10"}}}
- {apiVersion: v1, kind: Node, metadata: {name: b2, labels: {topology.kubernetes.io/zone: b, kubernetes.io/hostname: b2}}, status: {allocatable: {cpu: "1", memory: 8Gi, pods: "10"}}}
- apiVersion: policy/v1
  kind: PodDisruptionBudget
  metadata: {name: web, namespace: shop}
  spec: {maxUnavailable: 1, selector: {matchLabels: {app: web}}}
  status: {disruptionsAllowed: 1}
- apiVersion: v1
  kind: Pod
  metadata: {name: web-1, namespace: shop, labels: {app: web}, ownerReferences: [{apiVersion: apps/v1, kind: ReplicaSet, name: web, uid: u, controller: true}]}
  spec:
    nodeName: a1
    priority: 100
    containers: [{name: c, image: i, resources: {requests: {cpu: "1"}}}]
    topologySpreadConstraints: [{maxSkew: 1, topologyKey: topology.kubernetes.io/zone, whenUnsatisfiable: ScheduleAnyway, labelSelector: {matchLabels: {app: web}}}]
  status: {phase: Running}
- apiVersion: v1
  kind: Pod
  metadata: {name: web-2, namespace: shop, labels: {app: web}, ownerReferences: [{apiVersion: apps/v1, kind: ReplicaSet, name: web, uid: u, controller: true}]}
  spec:
    nodeName: a2
    priority: 100
    containers: [{name: c, image: i, resources: {requests: {cpu: "1"}}}]
    topologySpreadConstraints: [{maxSkew: 1, topologyKey: topology.kubernetes.io/zone, whenUnsatisfiable: ScheduleAnyway, labelSelector: {matchLabels: {app: web}}}]
  status: {phase: Running}
- {apiVersion: v1, kind: Pod, metadata: {name: bare, namespace: shop}, spec: {nodeName: a1, priority: 0, containers: [{name: c, image: i}]}, status: {phase: Running}}
- {apiVersion: v1, kind: Pod, metadata: {name: agent-a1, namespace: kube-system, ownerReferences: [{apiVersion: apps/v1, kind: DaemonSet, name: agent, uid: d, controller: true}]}, spec: {nodeName: a1, priority: 2000001000, containers: [{name: c, image: i}]}, status: {phase: Running}}
"#;

    fn cluster() -> Cluster {
        load_snapshot_bytes(SNAPSHOT.as_bytes(), "test").unwrap().0
    }

    #[test]
    fn drain_moves_controller_pods_and_keeps_daemon_pods() {
        let c = cluster();
        let plan = simulate(
            &c,
            &Disruption::Drain(vec![c.node_id("a1").unwrap()]),
            &crate::engine::VersionChoice::default_newest(),
        );
        assert_eq!(plan.affected_nodes, vec!["a1"]);
        let names: Vec<&str> = plan.displaced.iter().map(|d| d.pod.as_str()).collect();
        assert_eq!(
            names,
            vec!["shop/web-1", "shop/bare"],
            "priority order; the DaemonSet pod stays"
        );
        let web = &plan.displaced[0];
        assert!(web.landed());
        let landed = web.placement.as_ref().unwrap().node.unwrap();
        assert_ne!(
            &*plan.cluster.node(landed).name,
            "a1",
            "a drained node is cordoned"
        );
        assert!(plan.displaced[1].not_recreated.is_some());
        assert!(
            plan.broken_pdbs.is_empty(),
            "one eviction is within the budget"
        );
        // The snapshot itself is unchanged.
        assert_eq!(c.node_info(c.node_id("a1").unwrap()).pods.len(), 3);
    }

    #[test]
    fn losing_a_zone_breaks_the_pdb_and_reports_skew() {
        let c = cluster();
        let plan = simulate(
            &c,
            &Disruption::LoseZone("a".into()),
            &crate::engine::VersionChoice::default_newest(),
        );
        assert_eq!(plan.affected_nodes, vec!["a1", "a2"]);
        assert_eq!(
            plan.broken_pdbs,
            vec![BrokenBudget {
                pdb: "shop/web".into(),
                disruptions_allowed: 1,
                evicted: 2
            }]
        );
        // b2 has room for one 1-cpu pod and b1 for three: both replicas land in zone b.
        let landed: Vec<bool> = plan
            .displaced
            .iter()
            .filter(|d| d.pod.starts_with("shop/web"))
            .map(|d| d.landed())
            .collect();
        assert_eq!(landed, vec![true, true]);
        let (workload, domains) = &plan.workload_skew[0];
        assert_eq!(workload, "ReplicaSet shop/web");
        let zone = &domains[0];
        assert_eq!(
            zone.counts,
            vec![("b".to_string(), 2)],
            "the lost zone's nodes no longer count"
        );
    }

    #[test]
    fn cordoning_a_zone_moves_nothing() {
        let c = cluster();
        let plan = simulate(
            &c,
            &Disruption::CordonZone("b".into()),
            &crate::engine::VersionChoice::default_newest(),
        );
        assert_eq!(plan.affected_nodes, vec!["b1", "b2"]);
        assert!(plan.displaced.is_empty());
        assert!(
            plan.cluster
                .nodes
                .iter()
                .filter(|n| n.unschedulable)
                .count()
                == 2
        );
    }
}
