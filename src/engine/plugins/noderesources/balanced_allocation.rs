//! `NodeResourcesBalancedAllocation`: prefer nodes whose cpu and memory
//! fractions stay close, using actual requests (no non-zero defaults).

use crate::engine::Version;
use crate::model::{Node, NodeInfo, Pod};

/// PreScore: from v1.33 a pod that requests nothing is skipped (score 0
/// on every node).
pub fn pre_score_skips(pod: &Pod, version: Version) -> bool {
    let r = pod.requests_in(version);
    version.balanced_allocation_skips_best_effort() && r.milli_cpu == 0 && r.memory == 0
}

pub fn score(pod: &Pod, node: &Node, info: &NodeInfo, version: Version) -> i64 {
    let used = info.requested_cpu_mem(version);
    let request = pod.requests_in(version);
    let pairs = [
        (
            node.allocatable.milli_cpu,
            used.milli_cpu + request.milli_cpu,
        ),
        (
            node.allocatable.memory,
            used.memory + request.memory,
        ),
    ];
    let mut fractions = [0f64; 2];
    let mut n = 0;
    for (alloc, req) in pairs {
        if alloc == 0 {
            continue;
        }
        fractions[n] = (req as f64 / alloc as f64).min(1.0);
        n += 1;
    }
    let std = if n == 2 {
        ((fractions[0] - fractions[1]) / 2.0).abs()
    } else {
        0.0
    };
    ((1.0 - std) * super::super::MAX_NODE_SCORE as f64) as i64
}
