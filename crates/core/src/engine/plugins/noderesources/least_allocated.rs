//! `least_allocated.go`: favours nodes with more of each resource left.

use super::super::MAX_NODE_SCORE;

/// `leastRequestedScore`.
pub fn least_requested_score(requested: i64, capacity: i64) -> i64 {
    if capacity == 0 || requested > capacity {
        return 0;
    }
    (capacity - requested) * MAX_NODE_SCORE / capacity
}
