//! `NodeResourcesFit` Score with the default LeastAllocated strategy over
//! cpu and memory (weight 1 each), using non-zero requests.

use crate::engine::Version;
use crate::model::{Node, NodeInfo, Pod};

fn least_requested(requested: i64, capacity: i64) -> i64 {
    if capacity == 0 || requested > capacity {
        return 0;
    }
    (capacity - requested) * super::super::MAX_NODE_SCORE / capacity
}

pub fn score(pod: &Pod, node: &Node, info: &NodeInfo, version: Version) -> i64 {
    let used = info.non_zero_requested_in(version);
    let request = pod.incoming_non_zero_for_fit_score();
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
    let (mut total, mut weights) = (0, 0);
    for (alloc, req) in pairs {
        if alloc == 0 {
            continue;
        }
        total += least_requested(req, alloc);
        weights += 1;
    }
    if weights == 0 { 0 } else { total / weights }
}
