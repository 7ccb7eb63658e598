//! `SelectVictimsOnNode`: remove every lower-priority pod, check the pod
//! fits, then reprieve as many victims as possible, PDB-violating ones first.

use super::pdb::{PdbTable, split_by_pdb_violation};
use super::{Candidate, NO_VICTIMS};
use crate::engine::answer::NodeFailure;
use crate::engine::framework::Cycle;
use crate::engine::status::{Plugin, Rejection};
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

pub fn select_victims_on_node(
    cycle: &Cycle,
    pdbs: &PdbTable,
    node_id: NodeId,
) -> Result<Candidate, NodeFailure> {
    let cluster = cycle.cluster;
    let node = cluster.node(node_id);
    let prio = cycle.pod.priority_value();
    let mut state = cycle.state();

    // 1. Remove every lower-priority pod, in the node's pod order. The node
    //    as it would be is the node minus those pods; like upstream's
    //    used-port set (no reference counts), a victim's ports leave the
    //    set even when a remaining pod declared the same one. The pods'
    //    briefs carry what this needs; a record is read only for what a
    //    brief lacks (scalar or pod-level requests, ports, and the pod
    //    itself when a PreFilter state tracks pods).
    let original = cluster.node_info(node_id);
    let tracks_pods = cycle.tracks_pods(&state);
    // Positions in `original.pods` of the lower-priority pods.
    let mut potential: Vec<u32> = Vec::with_capacity(original.pods.len());
    let mut info = NodeInfo {
        pods: Vec::with_capacity(original.pods.len()),
        briefs: Vec::with_capacity(original.pods.len()),
        requested: original.requested.clone(),
        pod_level_delta: original.pod_level_delta.clone(),
        non_zero_requested: original.non_zero_requested,
        used_ports: original.used_ports.clone(),
        pods_with_affinity: Vec::new(),
        pods_with_required_anti_affinity: Vec::new(),
        pods_with_claims: Vec::new(),
    };
    for (at, (&id, &brief)) in original.pods.iter().zip(&original.briefs).enumerate() {
        if brief.priority < prio {
            potential.push(at as u32);
            info.discount(&brief, || cluster.pod(id));
            if tracks_pods {
                cycle.remove_pod(&mut state, cluster.pod(id), node);
            }
        } else {
            info.pods.push(id);
            info.briefs.push(brief);
        }
    }
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
    let fail = |rejection: Rejection| NodeFailure {
        node: node_id,
        rejection,
    };
    if potential.is_empty() {
        return Err(fail(Rejection::unresolvable(
            Plugin::DefaultPreemption,
            NO_VICTIMS,
        )));
    }
    // 2. Without all of them, does the pod fit?
    cycle
        .run_filters_with_nominated(&state, node_id, &info)
        .map_err(fail)?;

    // 3. Most important first (a stable sort, as Go's insertion sort is for
    //    the small slices involved), keyed from the briefs.
    //    The position breaks ties, so an unstable sort gives that order.
    let brief = |at: u32| &original.briefs[at as usize];
    potential.sort_unstable_by_key(|&at| {
        (
            std::cmp::Reverse(brief(at).priority),
            brief(at).start_time,
            at,
        )
    });
    let split = split_by_pdb_violation(cluster, pdbs, original, &potential);

    // 4. Reprieve: add each back; keep it if the pod still fits. The node
    //    passed every filter without them, so only the filters that read
    //    its pods can change their verdict.
    let mut victims = Vec::new();
    let mut num_pdb_violations = 0;
    for (group, violating) in [(&split.violating, true), (&split.non_violating, false)] {
        for &at in group {
            let id = original.pods[at as usize];
            let pod = || cluster.pod(id);
            info.add_pod_brief(id, *brief(at), pod);
            if tracks_pods {
                cycle.add_pod(&mut state, pod(), node);
            }
            if !cycle.still_fits_with_nominated(&state, node_id, &info) {
                info.remove_at(info.pods.len() - 1, pod);
                if tracks_pods {
                    cycle.remove_pod(&mut state, pod(), node);
                }
                victims.push(id);
                if violating {
                    num_pdb_violations += 1;
                }
            }
        }
    }
    Ok(Candidate {
        node: node_id,
        victims,
        num_pdb_violations,
        lost_on: None,
    })
}
