//! `SelectVictimsOnNode`: remove every lower-priority pod, check the pod
//! fits, then reprieve as many victims as possible, PDB-violating ones first.

use super::pdb::split_by_pdb_violation;
use super::{Candidate, NO_VICTIMS};
use crate::engine::answer::NodeFailure;
use crate::engine::framework::Cycle;
use crate::engine::status::{Plugin, Rejection};
use crate::model::{Cluster, NodeId, PodId};

/// `MoreImportantPod` order key: higher priority, then earlier start
/// (a pod not started yet counts as starting now, after every real start).
pub fn importance_key(cluster: &Cluster, id: PodId) -> (std::cmp::Reverse<i32>, i64) {
    let p = cluster.pod(id);
    (
        std::cmp::Reverse(p.priority_value()),
        p.start_time.unwrap_or(i64::MAX),
    )
}

pub fn select_victims_on_node(cycle: &Cycle, node_id: NodeId) -> Result<Candidate, NodeFailure> {
    let cluster = cycle.cluster;
    let node = cluster.node(node_id);
    let prio = cycle.pod.priority_value();
    let mut info = cluster.node_info(node_id).clone();
    let mut state = cycle.state();

    // 1. Remove every lower-priority pod, in the node's pod order.
    let mut potential: Vec<PodId> = Vec::new();
    for &id in &cluster.node_info(node_id).pods {
        let p = cluster.pod(id);
        if p.priority_value() < prio {
            potential.push(id);
            info.remove_pod(id, p);
            cycle.remove_pod(&mut state, p, node);
        }
    }
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
    //    the small slices involved).
    potential.sort_by_key(|&id| importance_key(cluster, id));
    let split = split_by_pdb_violation(cluster, &potential);

    // 4. Reprieve: add each back; keep it if the pod still fits.
    let mut victims = Vec::new();
    let mut num_pdb_violations = 0;
    for (group, violating) in [(&split.violating, true), (&split.non_violating, false)] {
        for &id in group {
            let p = cluster.pod(id);
            info.add_pod(id, p);
            cycle.add_pod(&mut state, p, node);
            if cycle
                .run_filters_with_nominated(&state, node_id, &info)
                .is_err()
            {
                info.remove_pod(id, p);
                cycle.remove_pod(&mut state, p, node);
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
