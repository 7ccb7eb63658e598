//! `noderesources`: the Fit filter with its scoring strategies
//! (LeastAllocated, MostAllocated, RequestedToCapacityRatio), and
//! BalancedAllocation.

pub mod balanced_allocation;
pub mod fit;
pub mod least_allocated;
pub mod most_allocated;
pub mod requested_to_capacity_ratio;
pub mod resource_allocation;
