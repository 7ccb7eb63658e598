//! `NodeResourcesFit` Filter: pod count, cpu, memory, ephemeral storage and
//! extended resources against `allocatable − requested`.

use super::resource_allocation::{self, Requests, ScoredResource};
use super::{least_allocated, most_allocated, requested_to_capacity_ratio};
use crate::engine::profile::{FitArgs, ScoringStrategy};
use crate::engine::status::{Code, FilterResult, Plugin, Reasons, Rejection};
use crate::engine::version::Version;
use crate::model::intern::Interner;
use crate::model::{Node, NodeInfo, Pod};

/// From v1.34 a request above the node's whole allocatable makes the status
/// UnschedulableAndUnresolvable (preemption cannot free what was never there);
/// "Too many pods" never does.
pub fn filter(
    pod: &Pod,
    node: &Node,
    info: &NodeInfo,
    interner: &Interner,
    args: &FitArgs,
    version: Version,
) -> FilterResult {
    let mut reasons = Reasons::none();
    let mut unresolvable = false;
    let alloc = &node.allocatable;
    if info.pods.len() as i64 + 1 > alloc.allowed_pods {
        reasons.push("Too many pods".into());
    }
    let r = pod.requests_in(version);
    let empty =
        r.milli_cpu == 0 && r.memory == 0 && r.ephemeral_storage == 0 && r.scalars.is_empty();
    if !empty {
        let used = &info.requested;
        let used_cpu_mem = info.requested_cpu_mem(version);
        if r.milli_cpu > 0 && r.milli_cpu > alloc.milli_cpu.wrapping_sub(used_cpu_mem.milli_cpu) {
            reasons.push("Insufficient cpu".into());
            unresolvable |= r.milli_cpu > alloc.milli_cpu;
        }
        if r.memory > 0 && r.memory > alloc.memory.wrapping_sub(used_cpu_mem.memory) {
            reasons.push("Insufficient memory".into());
            unresolvable |= r.memory > alloc.memory;
        }
        if r.ephemeral_storage > 0
            && r.ephemeral_storage > alloc.ephemeral_storage.wrapping_sub(used.ephemeral_storage)
        {
            reasons.push("Insufficient ephemeral-storage".into());
            unresolvable |= r.ephemeral_storage > alloc.ephemeral_storage;
        }
        for &(name, want) in &r.scalars {
            let resource = interner.resolve(name);
            if is_extended_resource(resource) && args.ignores(resource) {
                continue;
            }
            if want != 0
                && want
                    > alloc
                        .scalar(name)
                        .wrapping_sub(info.requested_scalar(name, version))
            {
                reasons.push(format!("Insufficient {resource}").into());
                unresolvable |= want > alloc.scalar(name);
            }
        }
    }
    if reasons.is_empty() {
        Ok(())
    } else {
        Err(Rejection {
            plugin: Plugin::NodeResourcesFit,
            code: if unresolvable && version.fit_unresolvable_above_allocatable() {
                Code::UnschedulableAndUnresolvable
            } else {
                Code::Unschedulable
            },
            reasons,
        })
    }
}

/// `v1helper.IsExtendedResourceName`: not a native (`kubernetes.io/`) name,
/// has a domain prefix, and is not a quota `requests.` name.
fn is_extended_resource(name: &str) -> bool {
    name.contains('/') && !name.contains("kubernetes.io/") && !name.starts_with("requests.")
}

/// NodeResourcesFit's PreScore state: the strategy and the pod's request
/// of each configured resource.
pub struct FitScorer<'a> {
    strategy: &'a ScoringStrategy,
    resources: Vec<ScoredResource>,
    version: Version,
}

/// PreScore.
pub fn pre_score<'a>(
    pod: &Pod,
    args: &'a FitArgs,
    interner: &Interner,
    version: Version,
) -> FitScorer<'a> {
    FitScorer {
        strategy: &args.strategy,
        resources: resource_allocation::resolve(
            &args.resources,
            pod,
            interner,
            Requests::NonZeroForFit,
            version,
        ),
        version,
    }
}

impl FitScorer<'_> {
    /// The strategy's weighted average over the resources a node has.
    pub fn score(&self, node: &Node, info: &NodeInfo) -> i64 {
        let (mut node_score, mut weight_sum) = (0i64, 0i64);
        for r in &self.resources {
            let (alloc, requested) = resource_allocation::allocatable_and_requested(
                r,
                node,
                info,
                Requests::NonZeroForFit,
                self.version,
            );
            if alloc == 0 {
                continue;
            }
            let score = match self.strategy {
                ScoringStrategy::LeastAllocated => {
                    least_allocated::least_requested_score(requested, alloc)
                }
                ScoringStrategy::MostAllocated => {
                    most_allocated::most_requested_score(requested, alloc)
                }
                ScoringStrategy::RequestedToCapacityRatio(shape) => {
                    let s = requested_to_capacity_ratio::resource_score(shape, requested, alloc);
                    // RequestedToCapacityRatio counts only resources that score.
                    if s <= 0 {
                        continue;
                    }
                    s
                }
            };
            node_score += score * r.weight;
            weight_sum += r.weight;
        }
        if weight_sum == 0 {
            return 0;
        }
        match self.strategy {
            ScoringStrategy::RequestedToCapacityRatio(_) => {
                (node_score as f64 / weight_sum as f64).round() as i64
            }
            _ => node_score / weight_sum,
        }
    }
}
