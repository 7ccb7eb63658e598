//! Disruption what-ifs: drain nodes, cordon a zone, or lose a zone, and see
//! where each displaced pod would go. Displaced pods are taken in priority
//! order (then oldest first), as the scheduler's queue would take them, on a
//! fork of the snapshot; the snapshot itself is never changed.

use std::cmp::Reverse;
use std::collections::BinaryHeap;
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};

use super::node_memo::NodeMemo;
use super::replicas::{DomainCounts, domain_counts};
use super::{Outcome, Placement, carry_out, schedule_with};
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
    /// Evicted by the re-placement of this pod (`namespace/name`), not by
    /// the disruption itself.
    pub evicted_by: Option<String>,
    /// Where it would go; `None` when it is not recreated.
    pub landing: Option<Landing>,
    /// Why it is not recreated (no controller to recreate it).
    pub not_recreated: Option<String>,
}

/// The answer for one displaced pod, kept small: a zone of 30,000 pods
/// keeps 30,000 of these, not 30,000 full answers with a rejection per node.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Landing {
    pub outcome: Outcome,
    pub node: Option<String>,
    /// The pods evicted to make room (`namespace/name`), for a preempting pod.
    pub victims: Vec<String>,
    /// The scheduler's message when it does not land.
    pub message: String,
}

impl Landing {
    fn of(fork: &Cluster, p: &Placement) -> Landing {
        Landing {
            outcome: p.outcome,
            node: p.node.map(|n| fork.node(n).name.to_string()),
            victims: p
                .preemption
                .as_ref()
                .filter(|_| p.outcome == Outcome::Preempt)
                .map(|pr| pr.victims.iter().map(|&v| fork.pod_key(v)).collect())
                .unwrap_or_default(),
            message: if p.node.is_none() {
                p.message.clone()
            } else {
                String::new()
            },
        }
    }
}

impl Displaced {
    pub fn landed(&self) -> bool {
        self.landing.as_ref().is_some_and(|p| p.node.is_some())
    }
}

/// How far a simulation is, and a way to stop it (shared with the UI).
#[derive(Debug, Default)]
pub struct Progress {
    pub done: AtomicUsize,
    pub total: AtomicUsize,
    pub cancel: AtomicBool,
    /// In a scenario of stacked steps: which step runs (1-based).
    pub step: AtomicUsize,
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
    /// Stopped before every displaced pod was placed (cancelled).
    pub cancelled: bool,
}

/// How a plan's displaced pods end, counted once so every view says the
/// same: each displaced pod is in exactly one of `landed`, `not_placed`
/// and `not_recreated` (a cancelled run lists only the pods it reached).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Tally {
    pub displaced: usize,
    /// Evicted by another displaced pod's preemption (they are displaced too).
    pub evicted_on_the_way: usize,
    /// Land on a node, by fitting or by preempting.
    pub landed: usize,
    /// Of `landed`, those that preempt, and how many pods they evict.
    pub preempting: usize,
    pub victims: usize,
    /// Asked, and no node takes them.
    pub not_placed: usize,
    /// No controller recreates them (bare and lost DaemonSet pods).
    pub not_recreated: usize,
}

impl DisruptionPlan {
    pub fn tally(&self) -> Tally {
        let mut t = Tally {
            displaced: self.displaced.len(),
            ..Tally::default()
        };
        for d in &self.displaced {
            t.evicted_on_the_way += usize::from(d.evicted_by.is_some());
            match (&d.not_recreated, &d.landing) {
                (Some(_), _) => t.not_recreated += 1,
                (None, Some(l)) if l.node.is_some() => {
                    t.landed += 1;
                    if l.outcome == Outcome::Preempt {
                        t.preempting += 1;
                        t.victims += l.victims.len();
                    }
                }
                (None, Some(_)) => t.not_placed += 1,
                (None, None) => {}
            }
        }
        t
    }
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
    scheduler: &super::Scheduler,
) -> DisruptionPlan {
    simulate_with(cluster, disruption, scheduler, &Progress::default())
}

/// [`simulate`], reporting progress and stopping when `progress.cancel` is
/// set. Displaced pods go through the scheduler's queue order (priority,
/// then age); the victims of their preemptions join the queue, as their
/// controllers recreate them, and are placed in turn (once).
pub fn simulate_with(
    cluster: &Cluster,
    disruption: &Disruption,
    scheduler: &super::Scheduler,
    progress: &Progress,
) -> DisruptionPlan {
    run(cluster, disruption, scheduler, progress, true)
}

/// [`simulate`] running every plugin for every pod and node, without the
/// [`NodeMemo`]: the reference the memoized run is checked against.
pub fn simulate_exhaustive(
    cluster: &Cluster,
    disruption: &Disruption,
    scheduler: &super::Scheduler,
) -> DisruptionPlan {
    run(cluster, disruption, scheduler, &Progress::default(), false)
}

fn run(
    cluster: &Cluster,
    disruption: &Disruption,
    scheduler: &super::Scheduler,
    progress: &Progress,
    memoize: bool,
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
    // The fork's nodes stay as they are from here on (only pods move), so
    // what reads only the pod and the node is answered once per pod shape.
    let memo = memoize.then(|| NodeMemo::new(&fork).without_failures_of_placed_pods());

    // The scheduler's queue: higher priority first, then oldest; a victim
    // carries the pod whose placement evicted it.
    let queue_key = |id: PodId| {
        let p = cluster.pod(id);
        Reverse((
            Reverse(p.priority_value()),
            p.creation_timestamp.unwrap_or(i64::MAX),
            id,
        ))
    };
    type QueueKey = Reverse<(Reverse<i32>, i64, PodId)>;
    // A victim carries its evictor and the (fork's) node it leaves.
    let mut queue: BinaryHeap<(QueueKey, Option<(PodId, String)>)> =
        leaving.iter().map(|&id| (queue_key(id), None)).collect();
    let mut queued: rustc_hash::FxHashSet<PodId> = leaving.iter().copied().collect();
    progress.total.store(queue.len(), Ordering::Relaxed);
    progress.done.store(0, Ordering::Relaxed);
    let mut cancelled = false;
    let mut displaced = Vec::with_capacity(leaving.len());
    // The fork changes only when a pod lands (binds, evictions); until it
    // does, a pod equal to the last one that landed nowhere (a replica of
    // the same workload) gets the same answer, so it is not asked again.
    let mut landings = 0u64;
    let mut last_miss: Option<(u64, Pod, Landing)> = None;
    while let Some((Reverse((_, _, id)), evicted_by)) = queue.pop() {
        if progress.cancel.load(Ordering::Relaxed) {
            cancelled = true;
            break;
        }
        let original = cluster.pod(id);
        let from_node = match &evicted_by {
            Some((_, node)) => node.clone(),
            None => original
                .node
                .map(|n| cluster.node(n).name.to_string())
                .unwrap_or_default(),
        };
        let mut entry = Displaced {
            pod: cluster.pod_key(id),
            priority: original.priority_value(),
            from_node,
            evicted_by: evicted_by.map(|(e, _)| cluster.pod_key(e)),
            landing: None,
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
            // (A pod with ResourceClaims is asked each time: its claims
            // are its own, and the messages name it.)
            if let Some((at, prev, landing)) = &last_miss
                && *at == landings
                && pod.resource_claims.is_empty()
                && *prev == anonymous(&pod)
            {
                entry.landing = Some(landing.clone());
                displaced.push(entry);
                progress.done.fetch_add(1, Ordering::Relaxed);
                continue;
            }
            let placement = schedule_with(&fork, &pod, scheduler, memo.as_ref());
            let landing = Landing::of(&fork, &placement);
            if landing.node.is_none() {
                last_miss = Some((landings, anonymous(&pod), landing.clone()));
            }
            entry.landing = Some(landing);
            if placement.outcome == Outcome::Preempt
                && let Some(pre) = &placement.preemption
                && let Some(node) = pre.node
            {
                let node_name = fork.node(node).name.to_string();
                for &victim in &pre.victims {
                    if queued.insert(victim) {
                        queue.push((queue_key(victim), Some((id, node_name.clone()))));
                        progress.total.fetch_add(1, Ordering::Relaxed);
                    }
                }
            }
            let landed = carry_out(&mut fork, &placement);
            if let Some(node) = landed {
                fork.bind_pod(id, node);
                landings += 1;
            }
        }
        displaced.push(entry);
        progress.done.fetch_add(1, Ordering::Relaxed);
    }

    // Skew of every affected workload that spreads, each a pass over the
    // nodes: the workloads shared between both cores.
    let mut spreading: Vec<(String, &Pod)> = Vec::new();
    for &id in &leaving {
        let pod = cluster.pod(id);
        if pod.spread_constraints.is_empty() {
            continue;
        }
        let Some(name) = workload_of(cluster, pod) else {
            continue;
        };
        if spreading.iter().any(|(w, _)| *w == name) {
            continue;
        }
        spreading.push((name, pod));
    }
    let counts = kplace_split::in_parts_from(2, spreading.len(), |range| {
        spreading[range]
            .iter()
            .map(|&(_, pod)| domain_counts(&fork, pod))
            .collect::<Vec<_>>()
    });
    let workload_skew: Vec<(String, Vec<DomainCounts>)> = spreading
        .into_iter()
        .map(|(name, _)| name)
        .zip(counts.into_iter().flatten())
        .collect();

    DisruptionPlan {
        affected_nodes,
        displaced,
        broken_pdbs,
        workload_skew,
        cluster: fork,
        cancelled,
    }
}

/// The pod without what tells replicas apart (name, uid, timestamps),
/// none of which a placement reads.
fn anonymous(pod: &Pod) -> Pod {
    Pod {
        name: Box::default(),
        uid: Box::default(),
        creation_timestamp: None,
        start_time: None,
        ..pod.clone()
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
