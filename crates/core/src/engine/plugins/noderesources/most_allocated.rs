//! `most_allocated.go`: favours nodes with more of each resource in use
//! (bin packing).

use super::super::MAX_NODE_SCORE;

/// `mostRequestedScore`: a request above capacity counts as full. Go's
/// int64 product wraps past 2^63; so does this one.
pub fn most_requested_score(requested: i64, capacity: i64) -> i64 {
    if capacity == 0 {
        return 0;
    }
    requested.min(capacity).wrapping_mul(MAX_NODE_SCORE) / capacity
}
