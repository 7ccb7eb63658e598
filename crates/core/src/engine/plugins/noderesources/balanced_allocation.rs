//! `NodeResourcesBalancedAllocation`: prefer nodes whose resource fractions
//! (cpu and memory by default) stay close, using actual requests (no
//! non-zero defaults).

use super::resource_allocation::{self, Requests, ScoredResource};
use crate::engine::Version;
use crate::engine::profile::BalancedAllocationArgs;
use crate::model::intern::Interner;
use crate::model::{Node, NodeInfo, Pod};

use super::super::MAX_NODE_SCORE;

/// PreScore state: the pod's request of each configured resource.
pub struct BalancedScorer {
    resources: Vec<ScoredResource>,
    version: Version,
}

/// PreScore; `None` is Skip: from v1.33 a pod that requests none of the
/// resources is not scored (0 on every node).
pub fn pre_score(
    pod: &Pod,
    args: &BalancedAllocationArgs,
    interner: &Interner,
    version: Version,
) -> Option<BalancedScorer> {
    let resources =
        resource_allocation::resolve(&args.resources, pod, interner, Requests::Actual, version);
    if version.balanced_allocation_skips_best_effort()
        && resource_allocation::is_best_effort(&resources)
    {
        return None;
    }
    Some(BalancedScorer { resources, version })
}

impl BalancedScorer {
    /// The pod's request of each scored resource.
    pub fn resources(&self) -> &[ScoredResource] {
        &self.resources
    }

    /// The node's request sums the score reads (when it reads only cpu
    /// and memory, [`resource_allocation::reads_only_cpu_mem`]).
    pub fn sums(&self, load: &crate::model::NodeLoad) -> crate::model::resources::CpuMem {
        resource_allocation::cpu_mem_sums_of_load(load, Requests::Actual, self.version)
    }

    /// `balancedResourceScorer`: (1 − the standard deviation of the
    /// fractions) × 100; two fractions use |a − b| / 2.
    pub fn score(&self, node: &Node, info: &NodeInfo) -> i64 {
        let mut two = [0f64; 2];
        let mut more: Vec<f64> = Vec::new();
        let (mut count, mut total) = (0usize, 0f64);
        for r in &self.resources {
            let (alloc, requested) = resource_allocation::allocatable_and_requested(
                r,
                node,
                info,
                Requests::Actual,
                self.version,
            );
            if alloc == 0 {
                continue;
            }
            let fraction = (requested as f64 / alloc as f64).min(1.0);
            total += fraction;
            if count < 2 {
                two[count] = fraction;
            } else {
                if more.is_empty() {
                    more.extend_from_slice(&two);
                }
                more.push(fraction);
            }
            count += 1;
        }
        let std = match count {
            2 => ((two[0] - two[1]) / 2.0).abs(),
            n if n > 2 => {
                let mean = total / n as f64;
                let sum: f64 = more.iter().map(|f| (f - mean) * (f - mean)).sum();
                (sum / n as f64).sqrt()
            }
            _ => 0.0,
        };
        ((1.0 - std) * MAX_NODE_SCORE as f64) as i64
    }
}
