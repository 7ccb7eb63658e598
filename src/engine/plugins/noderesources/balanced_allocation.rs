//! `NodeResourcesBalancedAllocation`: prefer nodes whose cpu and memory
//! fractions stay close, using actual requests (no non-zero defaults).

use crate::model::{Node, NodeInfo, Pod};

pub fn score(pod: &Pod, node: &Node, info: &NodeInfo) -> i64 {
    let pairs = [
        (
            node.allocatable.milli_cpu,
            info.requested.milli_cpu + pod.requests.milli_cpu,
        ),
        (
            node.allocatable.memory,
            info.requested.memory + pod.requests.memory,
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
