//! How the view caches follow a live batch: each is updated from the pods
//! the batch changed, read in the cluster before it and after it, rather
//! than built from all 150,000 pods again. Every update gives exactly what
//! a build of the cluster after the batch gives (`tests/live.rs` checks it
//! after a randomized sequence of events); one that cannot be sure of it
//! (a sum near overflow, a PDB that changed what it blocks) declines, and
//! the cache is built.

use std::sync::Arc;

use rustc_hash::FxHashMap;

use crate::engine::preemption::PdbTable;
use crate::model::{Cluster, PodId};
use crate::source::live::Touched;

use super::{
    Fleet, NodeSummary, OwnerKeys, PodState, PodStates, Summary, TierRow, TierRows, TierShare,
    TierTable, Workload, owner_of, sort_workloads,
};

/// The pod ids a live batch changed. An id in neither list holds the same
/// pod before and after the batch.
pub(super) struct PodDelta {
    /// Ids in the cluster before the batch whose pod changed or went
    /// (ascending).
    before: Vec<PodId>,
    /// Ids in the cluster after the batch whose pod is new or changed
    /// (ascending).
    after: Vec<PodId>,
}

impl PodDelta {
    /// From the batch's touched ids (in the cluster after it: changed pods,
    /// and the ids deleted pods left, which the last pod took): those, and
    /// the ids past the shorter cluster's pods (gone or new).
    pub(super) fn new(before_len: usize, after_len: usize, touched: &[PodId]) -> PodDelta {
        let (short, long) = (before_len.min(after_len), before_len.max(after_len));
        let mut ids: Vec<PodId> = touched
            .iter()
            .copied()
            .chain(short as PodId..long as PodId)
            .collect();
        ids.sort_unstable();
        ids.dedup();
        let before = ids
            .iter()
            .copied()
            .filter(|&id| (id as usize) < before_len)
            .collect();
        ids.retain(|&id| (id as usize) < after_len);
        PodDelta { before, after: ids }
    }

    fn changed_before(&self, id: PodId) -> bool {
        self.before.binary_search(&id).is_ok()
    }
}

impl Summary {
    /// This summary (of `before`) for `after`: the node half unless a node
    /// changed, the pod half unless nodes came or went (which decides
    /// whether a pod's node is absent); else that half anew.
    pub(super) fn updated(
        &self,
        before: &Cluster,
        after: &Cluster,
        pods: &PodDelta,
        touched: &Touched,
    ) -> Summary {
        Summary {
            nodes: match touched.nodes_changed {
                true => NodeSummary::of(after),
                false => self.nodes.updated(after),
            },
            pods: match touched.nodes_came_or_went {
                true => PodStates::of(after),
                false => self.pods.updated(before, after, pods),
            },
        }
    }
}

impl NodeSummary {
    /// With the nodes unchanged: the zones' pod counts and requests summed
    /// again over their nodes' aggregates (a node pass, no pod read).
    fn updated(&self, after: &Cluster) -> NodeSummary {
        let mut summary = self.clone();
        for zone in &mut summary.zones {
            zone.sum_nodes(after);
        }
        summary
    }
}

impl PodStates {
    /// With the same nodes present: the changed pods moved between the
    /// lists and the count.
    fn updated(&self, before: &Cluster, after: &Cluster, pods: &PodDelta) -> PodStates {
        let scheduled = |cluster: &Cluster, ids: &[PodId]| {
            ids.iter()
                .filter(|&&id| PodState::of(cluster, id) == PodState::Scheduled)
                .count()
        };
        let moved = |list: &[PodId], wanted: PodState| {
            merged(
                list.iter().copied().filter(|&id| !pods.changed_before(id)),
                pods.after
                    .iter()
                    .copied()
                    .filter(|&id| PodState::of(after, id) == wanted),
            )
        };
        PodStates {
            pending: moved(&self.pending, PodState::Pending),
            on_absent_nodes: moved(&self.on_absent_nodes, PodState::OnAbsentNode),
            scheduled: self.scheduled - scheduled(before, &pods.before)
                + scheduled(after, &pods.after),
        }
    }
}

/// Two ascending id lists with no id in both, as one.
fn merged(a: impl Iterator<Item = PodId>, b: impl Iterator<Item = PodId>) -> Vec<PodId> {
    let mut out: Vec<PodId> = a.chain(b).collect();
    // Two sorted runs: the sort merges them.
    out.sort();
    out
}

impl TierTable {
    /// This table (of `before`) for `after`, whose nodes are the same:
    /// the changed pods' shares taken out as they were and put back as they
    /// are. `None` when that cannot give what a build gives: the classes
    /// changed, a PDB now blocks evictions it allowed or the reverse
    /// (which moves pods the batch did not touch), or a sum would leave
    /// the range a build's saturating sums stay exact in.
    pub(super) fn updated(
        &self,
        before: &Cluster,
        after: &Cluster,
        pods: &PodDelta,
        summary: &Summary,
    ) -> Option<TierTable> {
        if before.priority_classes != after.priority_classes || !same_blocking(before, after) {
            return None;
        }
        if self.rows.iter().any(TierRow::near_limits) {
            return None;
        }
        let (zones, node_zone) = (summary.nodes.zones.len(), &summary.nodes.node_zone[..]);
        let mut table = self.clone();
        let mut rows = TierRows::new(after, &table.rows);
        for &id in &pods.before {
            if let Some(share) = TierShare::of(before, id, &self.protected, node_zone) {
                let i = rows.of(before.pod(id), &mut table.rows, zones);
                table.rows[i].take(&share)?;
            }
        }
        table.protected.resize(after.pods.len(), false);
        let pdbs = PdbTable::of(after);
        for &id in &pods.after {
            table.protected[id as usize] = super::protected_pod(after, &pdbs, id);
        }
        for &id in &pods.after {
            if let Some(share) = TierShare::of(after, id, &table.protected, node_zone) {
                let i = rows.of(after.pod(id), &mut table.rows, zones);
                table.rows[i].put(&share)?;
            }
        }
        // A build has a class-less row only for a value some pod has.
        table
            .rows
            .retain(|r| !r.classes.is_empty() || r.pods + r.pending + r.absent > 0);
        table.sort();
        Some(table)
    }
}

impl TierRow {
    /// A sum at a bound may be a build's saturated one: not exact.
    fn near_limits(&self) -> bool {
        let bound = |v: i64| v == i64::MAX || v == i64::MIN;
        bound(self.cpu)
            || bound(self.memory)
            || self.per_zone.iter().any(|z| {
                bound(z.cpu)
                    || bound(z.memory)
                    || bound(z.protected_cpu)
                    || bound(z.protected_memory)
            })
    }

    fn take(&mut self, share: &TierShare) -> Option<()> {
        self.add(share, i64::checked_sub, usize::checked_sub)
    }

    fn put(&mut self, share: &TierShare) -> Option<()> {
        self.add(share, i64::checked_add, usize::checked_add)
    }

    /// Adds (or takes) a share with `sum`, `None` past the range.
    fn add(
        &mut self,
        share: &TierShare,
        sum: fn(i64, i64) -> Option<i64>,
        count: fn(usize, usize) -> Option<usize>,
    ) -> Option<()> {
        self.pods = count(self.pods, share.pods)?;
        self.pending = count(self.pending, share.pending)?;
        self.absent = count(self.absent, share.absent)?;
        self.cpu = sum(self.cpu, share.cpu)?;
        self.memory = sum(self.memory, share.memory)?;
        if let Some(zone) = share.zone {
            let z = &mut self.per_zone[zone];
            z.pods = count(z.pods, 1)?;
            z.cpu = sum(z.cpu, share.cpu)?;
            z.memory = sum(z.memory, share.memory)?;
            z.protected_cpu = sum(z.protected_cpu, share.protected_cpu)?;
            z.protected_memory = sum(z.protected_memory, share.protected_memory)?;
        }
        Some(())
    }
}

/// Whether every PDB is the same in both clusters in all that the
/// engine's protection reads ([`super::protected_pods`]): its namespace,
/// selector, disruptions allowed and the pods it lists as disrupted.
fn same_blocking(before: &Cluster, after: &Cluster) -> bool {
    if Arc::ptr_eq(&before.pdbs, &after.pdbs) {
        return true;
    }
    before.pdbs.len() == after.pdbs.len()
        && before.pdbs.iter().zip(after.pdbs.iter()).all(|(a, b)| {
            a.namespace == b.namespace
                && a.selector == b.selector
                && a.disruptions_allowed.unwrap_or(0) == b.disruptions_allowed.unwrap_or(0)
                && a.disrupted_pods == b.disrupted_pods
        })
}

impl Fleet {
    /// This fleet (of `before`) for `after`, whose nodes are the same: the
    /// changed pods taken out of their workloads' member lists as they
    /// were and put in as they are; a workload's alerts asked of the
    /// engine again only when they may differ. They are the engine's
    /// PreFilter for the workload's sample pod, which with the nodes
    /// unchanged reads only that pod and the pods its DoNotSchedule
    /// selectors match in its namespace (PodTopologySpread counts no
    /// other). So: when the sample is another pod or a touched one, or a
    /// touched pod version (before or after the change) in its namespace
    /// matches one of those selectors. With the workload owners changed,
    /// the workloads are built.
    pub(super) fn updated(
        &self,
        before: &Cluster,
        after: &Cluster,
        pending: &[PodId],
        pods: &PodDelta,
        touched: &Touched,
    ) -> Fleet {
        use crate::model::pod::WhenUnsatisfiable;
        // The nodes are the same; the lookups also keep the owners.
        let (workloads, owner_keys, lookups) = if before.owners == after.owners {
            (
                self.workloads_updated(before, after, pods),
                self.owner_keys.clone(),
                self.lookups.clone(),
            )
        } else {
            let keys = Arc::new(super::owner_keys(after));
            (super::workloads_of(after, &keys), keys, Default::default())
        };
        let touched_ids: rustc_hash::FxHashSet<PodId> = touched.pods.iter().copied().collect();
        // The touched pod versions' labels by namespace: most workloads
        // have none in theirs.
        let mut labels_in: FxHashMap<crate::model::Sym, Vec<&crate::model::Labels>> =
            FxHashMap::default();
        // And their label pairs by namespace: a selector with an `In`
        // requirement (every matchLabels entry) can match a touched pod
        // only if one of the requirement's pairs is among these, which
        // rules out most workloads with one lookup instead of a match
        // against every touched pod of their namespace.
        let mut pairs: rustc_hash::FxHashSet<(
            crate::model::Sym,
            crate::model::Sym,
            crate::model::Sym,
        )> = Default::default();
        for (ns, labels) in &touched.pod_labels {
            labels_in.entry(*ns).or_default().push(labels);
            pairs.extend(labels.iter().map(|(k, v)| (*ns, k, v)));
        }
        let may_match = |ns: crate::model::Sym, selector: &crate::model::LabelSelector| {
            use crate::model::labels::SetOperator;
            let required_in = selector
                .requirements()
                .iter()
                .find(|r| r.op == SetOperator::In);
            required_in.is_none_or(|r| r.values.iter().any(|&v| pairs.contains(&(ns, r.key, v))))
        };
        let dirty = |was: &Workload, now: &Workload| {
            // The same member list (none of its pods touched: moving one
            // copies the list) in a namespace with no touched pod: clean,
            // read without following a pointer into the pods (thousands of
            // workloads per batch, most of them such).
            if Arc::ptr_eq(&was.members, &now.members)
                && after
                    .owners
                    .get(now.owner)
                    .is_some_and(|o| !labels_in.contains_key(&o.namespace))
            {
                return false;
            }
            let Some(sample) = now.sample_pod() else {
                return true;
            };
            if was.sample_pod() != Some(sample) || touched_ids.contains(&sample) {
                return true;
            }
            let pod = after.pod(sample);
            labels_in.get(&pod.namespace).is_some_and(|touched| {
                pod.spread_constraints.iter().any(|c| {
                    c.when_unsatisfiable == WhenUnsatisfiable::DoNotSchedule
                        && may_match(pod.namespace, &c.selector)
                        && touched.iter().any(|labels| c.selector.matches(labels))
                })
            })
        };
        let skew_alerts = crate::app::skew::fleet_updated(
            after,
            &workloads,
            &self.workloads,
            &self.skew_alerts,
            &dirty,
            &lookups.0,
        );
        Fleet::of(after, pending, workloads, skew_alerts, owner_keys, lookups)
    }

    /// The workloads (owners unchanged) with the changed pods moved.
    fn workloads_updated(
        &self,
        before: &Cluster,
        after: &Cluster,
        pods: &PodDelta,
    ) -> Vec<Workload> {
        let mut workloads = self.workloads.clone();
        let at: FxHashMap<usize, usize> = workloads
            .iter()
            .enumerate()
            .map(|(i, w)| (w.owner, i))
            .collect();
        let keys: &OwnerKeys = &self.owner_keys;
        let mut changed = false;
        for &id in &pods.before {
            if let Some(&i) = owner_of(keys, before.pod(id)).and_then(|o| at.get(&o)) {
                let members = Arc::make_mut(&mut workloads[i].members);
                if let Ok(k) = members.binary_search(&id) {
                    members.remove(k);
                }
                changed = true;
            }
        }
        for &id in &pods.after {
            if let Some(&i) = owner_of(keys, after.pod(id)).and_then(|o| at.get(&o)) {
                let members = Arc::make_mut(&mut workloads[i].members);
                if let Err(k) = members.binary_search(&id) {
                    members.insert(k, id);
                }
                changed = true;
            }
        }
        if changed {
            sort_workloads(&mut workloads);
        }
        workloads
    }
}
