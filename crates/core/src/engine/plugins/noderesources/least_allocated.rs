//! `least_allocated.go`: favours nodes with more of each resource left.

use super::super::MAX_NODE_SCORE;

/// `leastRequestedScore`, in Go's int64 arithmetic: a product past
/// 2^63 wraps there, so it wraps here (a node whose allocatable is near
/// the largest quantity scores as upstream scores it, never a panic).
pub fn least_requested_score(requested: i64, capacity: i64) -> i64 {
    if capacity == 0 || requested > capacity {
        return 0;
    }
    capacity
        .wrapping_sub(requested)
        .wrapping_mul(MAX_NODE_SCORE)
        / capacity
}
