//! `SelectVictimsOnNode`: remove every lower-priority pod, check the pod
//! fits, then reprieve as many victims as possible, PDB-violating ones first.

use super::pdb::{PdbTable, Split, split_by_pdb_violation};
use super::{Candidate, NO_VICTIMS};
use crate::engine::answer::NodeFailure;
use crate::engine::framework::Cycle;
use crate::engine::status::{Plugin, Rejection};
use crate::model::cluster::claim_volumes;
use crate::model::{Cluster, NodeId, NodeInfo, PodId};

/// `MoreImportantPod` order key: higher priority, then earlier start
/// (a pod not started yet counts as starting now, after every real start).
pub fn importance_key(cluster: &Cluster, id: PodId) -> (std::cmp::Reverse<i32>, i64) {
    let p = cluster.pod(id);
    (
        std::cmp::Reverse(p.priority_value()),
        p.start_time.unwrap_or(i64::MAX),
    )
}

/// `MoreImportantPod` order as one integer, for the pods of one node:
/// higher priority first, then earlier start, then the position in the
/// node's pod list (which makes it the order a stable sort leaves). Each
/// part is mapped to an unsigned value that orders the same way.
fn importance_order(priority: i32, start_time: i64, position: u32) -> u128 {
    let higher_first = !((priority as u32) ^ (1 << 31));
    let earlier_first = (start_time as u64) ^ (1 << 63);
    ((higher_first as u128) << 96) | ((earlier_first as u128) << 32) | position as u128
}

/// The positions of the pods whose [`importance_order`] keys are `keys`,
/// most important first, into `order`. The keys are sorted as 64-bit
/// integers when their start times and positions fit together in 32 bits
/// (a node's pods started within a few years of each other), which a
/// small sort does several times faster than 128-bit ones; else as they
/// are. Either way the order is the keys' order.
fn in_importance_order(keys: &mut [u128], packed: &mut Vec<u64>, order: &mut Vec<u32>) {
    order.clear();
    let start = |k: u128| (k >> 32) as u64;
    let (mut first, mut last, mut positions) = (u64::MAX, 0, 0u32);
    for &k in keys.iter() {
        first = first.min(start(k));
        last = last.max(start(k));
        positions = positions.max(k as u32);
    }
    let position_bits = u32::BITS - positions.leading_zeros();
    let span_bits = u64::BITS - (last - first).leading_zeros();
    if position_bits + span_bits <= 32 {
        packed.clear();
        packed.extend(keys.iter().map(|&k| {
            let priority = (k >> 96) as u64;
            (priority << 32) | ((start(k) - first) << position_bits) | u64::from(k as u32)
        }));
        packed.sort_unstable();
        let mask = (1u64 << position_bits) - 1;
        order.extend(packed.iter().map(|&k| (k & mask) as u32));
    } else {
        keys.sort_unstable();
        order.extend(keys.iter().map(|&k| k as u32));
    }
}

/// Room a dry run reuses from node to node: one per range of nodes, so
/// that thousands of nodes do not each allocate and free their lists.
#[derive(Default)]
pub struct Scratch {
    /// Each lower-priority pod as its `importance_order` key.
    potential: Vec<u128>,
    /// The positions of the lower-priority pods, most important first.
    order: Vec<u32>,
    /// Their keys packed into 64 bits, when they fit.
    packed: Vec<u64>,
    /// The node's pod ids as the dry run changes them.
    pods: Vec<PodId>,
    split: Split,
}

pub fn select_victims_on_node(
    cycle: &Cycle,
    pdbs: &PdbTable,
    node_id: NodeId,
    scratch: &mut Scratch,
) -> Result<Candidate, NodeFailure> {
    let cluster = cycle.cluster;
    let node = cluster.node(node_id);
    let prio = cycle.pod.priority_value();
    let original = cluster.node_info(node_id);
    let fail = |rejection: Rejection| NodeFailure {
        node: node_id,
        rejection,
    };
    // A node without a lower-priority pod has no victims to offer: say so
    // before copying its pods and the filter state (a disruption asks this
    // of thousands of nodes for every pod that lands nowhere).
    if original.briefs.iter().all(|brief| brief.priority >= prio) {
        return Err(fail(Rejection::unresolvable(
            Plugin::DefaultPreemption,
            NO_VICTIMS,
        )));
    }
    let mut state = cycle.state();

    // 1. Remove every lower-priority pod, in the node's pod order. The node
    //    as it would be is the node minus those pods; like upstream's
    //    used-port set (no reference counts), a victim's ports leave the
    //    set even when a remaining pod declared the same one. The pods'
    //    briefs carry what this needs; a record is read only for what a
    //    brief lacks (scalar or pod-level requests, ports, and the pod
    //    itself when a PreFilter state tracks pods).
    let tracks_pods = state.tracks_pods();
    // When only NodeResourcesFit reads the node's pods, the copy keeps
    // their ids and requests alone: no filter that runs reads its ports,
    // claims, briefs or affinity lists (most preemptions, on thousands of
    // nodes), so those stay empty, and `claim_volumes` the node's.
    let requests_only = cycle.only_fit_reads_pods() && !tracks_pods;
    let potential = &mut scratch.potential;
    potential.clear();
    let mut pods = std::mem::take(&mut scratch.pods);
    pods.clear();
    let mut info = NodeInfo {
        pods,
        briefs: Vec::with_capacity(if requests_only {
            0
        } else {
            original.pods.len()
        }),
        requested: original.requested.clone(),
        pod_level_delta: original.pod_level_delta.clone(),
        non_zero_requested: original.non_zero_requested,
        used_ports: if requests_only {
            Vec::new()
        } else {
            original.used_ports.clone()
        },
        pods_with_affinity: Vec::new(),
        pods_with_required_anti_affinity: Vec::new(),
        pods_with_claims: Vec::new(),
        claim_volumes: original.claim_volumes,
    };
    for (at, (&id, &brief)) in original.pods.iter().zip(&original.briefs).enumerate() {
        if brief.priority < prio {
            potential.push(importance_order(
                brief.priority,
                brief.start_time,
                at as u32,
            ));
            if requests_only {
                info.discount_requests_of(&brief, || cluster.pod(id));
                continue;
            }
            info.discount(&brief, || cluster.pod(id));
            if brief.has_claims() {
                info.claim_volumes -= claim_volumes(cluster.pod(id));
            }
            if tracks_pods {
                cycle.update_pod_of(&mut state, id, &brief, node, -1);
            }
        } else {
            info.pods.push(id);
            if !requests_only {
                info.briefs.push(brief);
            }
        }
    }
    if !requests_only {
        // The node's lists keep only the pods that stay (priority ≥ the pod's).
        let staying = |ids: &[PodId]| -> Vec<PodId> {
            ids.iter()
                .copied()
                .filter(|&id| cluster.priority_of(id) >= prio)
                .collect()
        };
        info.pods_with_affinity = staying(&original.pods_with_affinity);
        info.pods_with_required_anti_affinity = staying(&original.pods_with_required_anti_affinity);
        info.pods_with_claims = staying(&original.pods_with_claims);
    }
    debug_assert!(!potential.is_empty(), "a lower-priority pod was found");
    // 2. Without all of them, does the pod fit?
    if let Err(rejection) = cycle.run_filters_with_nominated(&state, node_id, &info) {
        scratch.pods = info.pods;
        return Err(fail(rejection));
    }

    // 3. Most important first (a stable sort, as Go's insertion sort is for
    //    the small slices involved). The position breaks ties, so sorting
    //    the keys unstably gives that order.
    let order = &mut scratch.order;
    in_importance_order(potential, &mut scratch.packed, order);
    let split = &mut scratch.split;
    split_by_pdb_violation(cluster, pdbs, original, order.iter().copied(), split);

    // 4. Reprieve: add each back; keep it if the pod still fits. The node
    //    passed every filter without them, so only the filters that read
    //    its pods can change their verdict.
    // At most every lower-priority pod: room for all of them at once.
    let mut victims = Vec::with_capacity(potential.len());
    let mut num_pdb_violations = 0;
    for (group, violating) in [(&split.violating, true), (&split.non_violating, false)] {
        for &at in group {
            let id = original.pods[at as usize];
            let brief = original.briefs[at as usize];
            let pod = || cluster.pod(id);
            if requests_only {
                info.add_requests_of(id, &brief, pod);
                if !cycle.still_fits_with_nominated(&state, node_id, &info) {
                    info.remove_last_requests_of(&brief, pod);
                    victims.push(id);
                    num_pdb_violations += usize::from(violating);
                }
                continue;
            }
            info.add_pod_brief(id, brief, pod);
            if tracks_pods {
                cycle.update_pod_of(&mut state, id, &brief, node, 1);
            }
            if !cycle.still_fits_with_nominated(&state, node_id, &info) {
                info.remove_at(info.pods.len() - 1, pod);
                if tracks_pods {
                    cycle.update_pod_of(&mut state, id, &brief, node, -1);
                }
                victims.push(id);
                if violating {
                    num_pdb_violations += 1;
                }
            }
        }
    }
    scratch.pods = info.pods;
    Ok(Candidate {
        node: node_id,
        victims,
        num_pdb_violations,
        lost_on: None,
    })
}

#[cfg(test)]
mod tests {
    use super::{importance_order, in_importance_order};

    /// The positions of `pods` (priority, start, position) in the order
    /// `MoreImportantPod` and the node's pod order give, by the tuple.
    fn by_tuple(pods: &[(i32, i64, u32)]) -> Vec<u32> {
        let mut sorted = pods.to_vec();
        sorted.sort_by_key(|&(p, s, at)| (std::cmp::Reverse(p), s, at));
        sorted.iter().map(|p| p.2).collect()
    }

    fn by_keys(pods: &[(i32, i64, u32)]) -> Vec<u32> {
        let mut keys: Vec<u128> = pods
            .iter()
            .map(|&(p, s, at)| importance_order(p, s, at))
            .collect();
        let mut order = Vec::new();
        in_importance_order(&mut keys, &mut Vec::new(), &mut order);
        order
    }

    /// The 64-bit sort gives the tuple's order when start times and
    /// positions fit in 32 bits together, and the 128-bit one when they do
    /// not: a pod not started yet, starts decades apart, a position past
    /// 2^16 beside starts 2^16 seconds apart, extreme priorities.
    #[test]
    fn victims_are_ordered_as_the_tuple_orders_them_with_either_sort() {
        let mut seed = 0x9e37_79b9_7f4a_7c15_u64;
        let mut next = move |bound: u64| {
            seed ^= seed << 13;
            seed ^= seed >> 7;
            seed ^= seed << 17;
            seed % bound
        };
        let priorities = [i32::MIN, -5, 0, 0, 1000, i32::MAX];
        for case in 0..2_000 {
            let len = 1 + next(40) as u32;
            // Start spans from one second to beyond 32 bits.
            let span = 1u64 << next(40);
            let base = 1_700_000_000 + next(1_000) as i64;
            let mut pods: Vec<(i32, i64, u32)> = (0..len)
                .map(|at| {
                    let priority = priorities[next(priorities.len() as u64) as usize];
                    (priority, base + next(span) as i64, at)
                })
                .collect();
            if case % 7 == 0 {
                pods[0].1 = i64::MAX;
            }
            if case % 11 == 0 {
                // A position far into a long pod list.
                let last = pods.len() - 1;
                pods[last].2 = 70_000 + case;
            }
            assert_eq!(by_keys(&pods), by_tuple(&pods), "case {case}: {pods:?}");
        }
        // Equal keys but for the position keep the node's order.
        let same = [(7, 100, 3), (7, 100, 1), (7, 100, 2)];
        assert_eq!(by_keys(&same), [1, 2, 3]);
        assert_eq!(by_keys(&[(0, 5, 0)]), [0]);
    }

    /// The packed key sorts as (priority descending, start, position),
    /// across negative priorities and a pod not started (i64::MAX).
    #[test]
    fn importance_order_sorts_as_the_tuple_does() {
        let pods = [
            (-5, 10, 0),
            (i32::MAX, i64::MAX, 1),
            (0, -3, 2),
            (i32::MIN, i64::MIN, 3),
            (0, -3, 4),
            (1000, 7, 5),
            (0, i64::MAX, 6),
            (-5, 9, 7),
        ];
        let mut by_tuple = pods.to_vec();
        by_tuple.sort_by_key(|&(p, s, at)| (std::cmp::Reverse(p), s, at));
        let mut by_key = pods.to_vec();
        by_key.sort_by_key(|&(p, s, at)| importance_order(p, s, at));
        assert_eq!(by_key, by_tuple);
        assert_eq!(
            by_key.iter().map(|p| p.2).collect::<Vec<_>>(),
            [1, 5, 2, 4, 6, 7, 0, 3]
        );
    }
}
