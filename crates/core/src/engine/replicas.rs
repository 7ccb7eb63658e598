//! Placing a pod N times in sequence, as a scale-up would: each placed
//! replica is bound in a fork of the snapshot before the next is asked
//! about, and a replica that preempts evicts its victims there first. The
//! snapshot itself is never changed.

use super::plugins::podtopologyspread::common::{
    Constraint, counts_per_node, matches_inclusion_policies,
};
use super::{Outcome, Placement, carry_out, place, statefulset};
use crate::model::pod::{PodPhase, SpreadConstraint};
use crate::model::{Cluster, Pod};

/// One replica's answer and where it landed.
#[derive(Clone, Debug)]
pub struct ReplicaStep {
    /// 1-based.
    pub replica: usize,
    pub name: String,
    pub placement: Placement,
    /// Claims its StatefulSet's templates created for it in the fork.
    pub new_claims: Vec<String>,
}

/// Matching-pod counts per topology domain for one of the pod's spread
/// constraints, after all placed replicas.
#[derive(Clone, Debug)]
pub struct DomainCounts {
    pub constraint: SpreadConstraint,
    /// `(domain value, count)`, sorted by value; domains with 0 included.
    pub counts: Vec<(String, i64)>,
}

impl DomainCounts {
    /// Largest minus smallest count (the skew the constraint limits).
    pub fn skew(&self) -> i64 {
        let max = self.counts.iter().map(|c| c.1).max().unwrap_or(0);
        let min = self.counts.iter().map(|c| c.1).min().unwrap_or(0);
        max - min
    }
}

#[derive(Clone, Debug)]
pub struct ReplicaPlan {
    pub steps: Vec<ReplicaStep>,
    /// The first replica that could not be placed (even with preemption).
    pub first_unplaceable: Option<usize>,
    /// Per spread constraint, after each step (index = step).
    pub domains_after: Vec<Vec<DomainCounts>>,
    /// The fork with every placed replica bound (and victims evicted).
    pub cluster: Cluster,
}

impl ReplicaPlan {
    /// Replicas that land: bound, or nominated after preemption (those
    /// with a node), as every rendering counts them.
    pub fn placed(&self) -> usize {
        self.steps
            .iter()
            .filter(|s| s.placement.node.is_some())
            .count()
    }
}

/// The name of replica `i` (1-based) as its controller would name it: the
/// first keeps the pod's own name; a ReplicaSet's, ReplicationController's,
/// Job's or DaemonSet's
/// pods are `<owner>-<5 characters>` (`generateName`), a StatefulSet's
/// `<set>-<ordinal>` counting on from the pod's; a pod without such a
/// controller gets `<name>-<i>`.
pub fn replica_name(pod: &Pod, i: usize) -> String {
    if i == 1 {
        return pod.name.to_string();
    }
    match pod.controller.as_ref().map(|c| (&*c.kind, &*c.name)) {
        Some(("ReplicaSet" | "ReplicationController" | "Job" | "DaemonSet", owner)) => {
            generated_name(owner, &format!("{}/{i}", pod.name))
        }
        Some(("StatefulSet", set)) => match statefulset::ordinal_of(set, &pod.name) {
            Some(first) => format!("{set}-{}", first + i as i64 - 1),
            None => format!("{}-{i}", pod.name),
        },
        _ => format!("{}-{i}", pod.name),
    }
}

/// `rand.SafeEncodeString`'s alphabet, which `generateName` suffixes are
/// drawn from (no vowels, no look-alike digits).
pub const NAME_ALPHABET: &[u8] = b"bcdfghjklmnpqrstvwxz2456789";

/// `<prefix>-<5 characters>` as the API server's `generateName` makes it,
/// the characters chosen from `seed` (FNV-1a) instead of at random, so the
/// same question gives the same names.
pub fn generated_name(prefix: &str, seed: &str) -> String {
    format!("{prefix}-{}", name_suffix(seed))
}

/// Five characters of [`NAME_ALPHABET`] drawn from `seed`.
pub fn name_suffix(seed: &str) -> String {
    let fnv = |bytes: &[u8]| {
        bytes.iter().fold(0x811c_9dc5_u32, |h, b| {
            (h ^ u32::from(*b)).wrapping_mul(0x0100_0193)
        })
    };
    let n = NAME_ALPHABET.len() as u32;
    let mut h = fnv(seed.as_bytes());
    (0..5)
        .map(|_| {
            let c = NAME_ALPHABET[(h % n) as usize] as char;
            h = (h / n).wrapping_add(fnv(&[h as u8]));
            c
        })
        .collect()
}

/// Asks for `n` replicas of `pod` one after another. Stops asking after the
/// first replica that cannot be placed (later ones would see the same cluster).
///
/// A pod controlled by a StatefulSet of the snapshot is scaled as its
/// controller would: replicas take the set's next ordinals (from the pod's
/// own when it is a new `<set>-<ordinal>`), each with the claims its
/// `volumeClaimTemplates` create, and a placed replica's
/// WaitForFirstConsumer claims are bound (or marked for provisioning) on
/// its node before the next is asked about.
pub fn place_replicas(
    cluster: &Cluster,
    pod: &Pod,
    n: usize,
    scheduler: &super::Scheduler,
) -> ReplicaPlan {
    let mut plan = ReplicaPlan {
        steps: Vec::with_capacity(n),
        first_unplaceable: None,
        domains_after: Vec::with_capacity(n),
        cluster: Cluster::default(),
    };
    let fork = scale_up(cluster, pod, n, scheduler, &mut |fork, step| {
        let placed = step.placement.node.is_some()
            && matches!(
                step.placement.outcome,
                Outcome::Scheduled | Outcome::Preempt
            );
        plan.domains_after.push(domain_counts(fork, pod));
        if !placed {
            plan.first_unplaceable = Some(step.replica);
        }
        plan.steps.push(step);
        placed
    });
    plan.cluster = fork;
    plan
}

/// Places replicas of `pod` one after another on a fork of `cluster`, up to
/// `n`, handing each step (and the fork after it) to `on_step`, which says
/// whether to go on. Returns the fork.
fn scale_up(
    cluster: &Cluster,
    pod: &Pod,
    n: usize,
    scheduler: &super::Scheduler,
    on_step: &mut dyn FnMut(&Cluster, ReplicaStep) -> bool,
) -> Cluster {
    let mut fork = cluster.clone();
    let set = statefulset::controlling_set(cluster, pod).map(|(set, spec)| {
        let own = statefulset::ordinal_of(&set.name, &pod.name).filter(|_| {
            !cluster
                .pods
                .iter()
                .any(|p| p.namespace == pod.namespace && p.name == pod.name)
        });
        let ordinals = statefulset::next_ordinals(cluster, set, spec, own, n);
        (set.clone(), spec.clone(), ordinals)
    });
    let vac = scheduler.version.version.volume_attributes_class();
    for i in 1..=n {
        let (mut replica, created) = match &set {
            Some((set, spec, ordinals)) => {
                statefulset::replica(&mut fork, set, spec, pod, ordinals[i - 1])
            }
            None => {
                let mut replica = pod.clone();
                replica.name = replica_name(pod, i).into();
                (replica, Vec::new())
            }
        };
        let mut placement = place(&fork, &replica, scheduler);
        if !created.is_empty() {
            let note = statefulset::created_note(&fork, &replica, &created);
            placement.notes.push(note);
        }
        let landed = carry_out(&mut fork, &placement);
        if let Some(node) = landed {
            statefulset::assume_volumes(&mut fork, &replica, node, vac);
            replica.priority = placement.priority;
            replica.node_name = Some(fork.node(node).name.clone());
            replica.phase = PodPhase::Running;
            fork.add_pod(replica.clone());
        }
        let step = ReplicaStep {
            replica: i,
            name: replica.name.to_string(),
            placement,
            new_claims: created.iter().map(|c| c.name.to_string()).collect(),
        };
        if !on_step(&fork, step) || landed.is_none() {
            break;
        }
    }
    fork
}

/// The most replicas a capacity count places before it stops.
pub const MAX_COUNTED: usize = 10_000;

/// How many more replicas of a pod fit, as cluster-capacity answers it:
/// placed one after another until the first that cannot be.
#[derive(Clone, Debug)]
pub struct Capacity {
    /// Preempting replicas count (they evict their victims in the fork).
    pub with_preemption: bool,
    /// Replicas placed.
    pub count: usize,
    /// The count stopped at the cap, not at a failure.
    pub capped: bool,
    /// Replicas placed per zone (`topology.kubernetes.io/zone`; nodes
    /// without it under ""), sorted by zone.
    pub per_zone: Vec<(String, usize)>,
    /// Pods evicted along the way (`namespace/name`).
    pub evicted: Vec<String>,
    /// The pod's spread constraints' counts after the last replica.
    pub domains: Vec<DomainCounts>,
    /// The answer for the replica that did not fit.
    pub next: Option<Placement>,
    /// The cluster with every placed replica (for names in `next`).
    pub cluster: Cluster,
}

/// Places replicas of `pod` until the first that fits nowhere (or, without
/// preemption, the first that would evict someone), at most `cap`.
/// `progress` hears the count after each replica and may stop the count
/// by returning false.
pub fn capacity(
    cluster: &Cluster,
    pod: &Pod,
    scheduler: &super::Scheduler,
    with_preemption: bool,
    cap: usize,
    progress: &mut dyn FnMut(usize) -> bool,
) -> Capacity {
    let zone = cluster.interner.lookup("topology.kubernetes.io/zone");
    let mut zones: std::collections::BTreeMap<String, usize> = Default::default();
    let mut count = 0;
    let mut evicted = Vec::new();
    let mut next = None;
    let mut stopped = false;
    let fork = scale_up(cluster, pod, cap, scheduler, &mut |fork, step| {
        let p = step.placement;
        let ok = match p.outcome {
            Outcome::Scheduled => true,
            Outcome::Preempt => with_preemption,
            _ => false,
        };
        if !ok {
            next = Some(p);
            return false;
        }
        count += 1;
        if let Some(node) = p.node {
            let z = zone
                .and_then(|z| fork.node(node).labels.get(z))
                .map(|v| fork.interner.resolve(v).to_string())
                .unwrap_or_default();
            *zones.entry(z).or_default() += 1;
        }
        if p.outcome == Outcome::Preempt {
            evicted.extend(
                p.preemption
                    .iter()
                    .flat_map(|pre| pre.victims.iter().map(|&v| fork.pod_key(v))),
            );
        }
        if !progress(count) {
            stopped = true;
            return false;
        }
        true
    });
    Capacity {
        with_preemption,
        count,
        capped: next.is_none() || stopped,
        per_zone: zones.into_iter().collect(),
        evicted,
        domains: domain_counts(&fork, pod),
        next,
        cluster: fork,
    }
}

/// For each of the pod's spread constraints: matching pods per domain over
/// the nodes the scheduler counts for it (carrying the key and passing the
/// constraint's node affinity/taint inclusion policies; same namespace, not
/// terminating).
pub fn domain_counts(cluster: &Cluster, pod: &Pod) -> Vec<DomainCounts> {
    pod.spread_constraints
        .iter()
        .map(|c| {
            let per_node = counts_per_node(cluster, &c.selector, pod.namespace);
            // Counted by interned value; named (and sorted by name) once per
            // domain, not once per node.
            let mut by_value: rustc_hash::FxHashMap<crate::model::Sym, i64> = Default::default();
            let prepared = &Constraint::from_spec(c);
            for (n, node) in cluster.nodes.iter().enumerate() {
                if !matches_inclusion_policies(prepared, pod, node, &cluster.interner) {
                    continue;
                }
                if let Some(v) = node.labels.get(c.topology_key) {
                    *by_value.entry(v).or_default() += per_node[n] as i64;
                }
            }
            let domains: std::collections::BTreeMap<String, i64> = by_value
                .into_iter()
                .map(|(v, count)| (cluster.interner.resolve(v).to_string(), count))
                .collect();
            DomainCounts {
                constraint: c.clone(),
                counts: domains.into_iter().collect(),
            }
        })
        .collect()
}
