//! Placing a pod N times in sequence, as a scale-up would: each placed
//! replica is bound in a fork of the snapshot before the next is asked
//! about, and a replica that preempts evicts its victims there first. The
//! snapshot itself is never changed.

use super::plugins::podtopologyspread::common::{
    Constraint, counts_per_node, matches_inclusion_policies,
};
use super::{Placement, carry_out, place, statefulset};
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

/// The name of replica `i` (1-based): the first keeps the pod's own name.
pub fn replica_name(pod: &Pod, i: usize) -> String {
    if i == 1 {
        pod.name.to_string()
    } else {
        format!("{}-{i}", pod.name)
    }
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
    let mut fork = cluster.clone();
    let mut plan = ReplicaPlan {
        steps: Vec::with_capacity(n),
        first_unplaceable: None,
        domains_after: Vec::with_capacity(n),
        cluster: Cluster::default(),
    };
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
        let placed = landed.is_some();
        plan.steps.push(ReplicaStep {
            replica: i,
            name: replica.name.to_string(),
            placement,
            new_claims: created.iter().map(|c| c.name.to_string()).collect(),
        });
        plan.domains_after.push(domain_counts(&fork, pod));
        if !placed {
            plan.first_unplaceable = Some(i);
            break;
        }
    }
    plan.cluster = fork;
    plan
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
            let mut domains: std::collections::BTreeMap<String, i64> = Default::default();
            let prepared = &Constraint::from_spec(c);
            for (n, node) in cluster.nodes.iter().enumerate() {
                if !matches_inclusion_policies(prepared, pod, node, &cluster.interner) {
                    continue;
                }
                if let Some(v) = node.labels.get(c.topology_key) {
                    *domains
                        .entry(cluster.interner.resolve(v).to_string())
                        .or_default() += per_node[n] as i64;
                }
            }
            DomainCounts {
                constraint: c.clone(),
                counts: domains.into_iter().collect(),
            }
        })
        .collect()
}
