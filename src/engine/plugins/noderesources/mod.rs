//! `noderesources`: the Fit filter with LeastAllocated scoring, and
//! BalancedAllocation.

pub mod balanced_allocation;
pub mod fit;
pub mod least_allocated;
