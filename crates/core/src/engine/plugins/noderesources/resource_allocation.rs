//! `resource_allocation.go`: what NodeResourcesFit's scoring strategies and
//! NodeResourcesBalancedAllocation share — for each configured resource, the
//! node's allocatable and what would be requested with the pod on it.

use crate::engine::Version;
use crate::engine::profile::ResourceWeight;
use crate::model::intern::{Interner, Sym};
use crate::model::resources::{CpuMem, is_scalar_resource};
use crate::model::{Node, NodeInfo, Pod};

/// One configured resource, resolved once per cycle.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct ScoredResource {
    kind: Kind,
    pub weight: i64,
    /// The incoming pod's request of it (`calculatePodResourceRequest`).
    pod_request: i64,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
enum Kind {
    Cpu,
    Memory,
    EphemeralStorage,
    /// An extended resource; `None` when no object in the cluster names it
    /// (no node can have it allocatable).
    Scalar(Option<Sym>),
    /// A name none of the above (such as `pods`): never scored.
    Other,
}

/// Which requests a scorer reads: NodeResourcesFit scores non-zero requests
/// (defaults for missing cpu/memory) and never pod-level resources (v1.34's
/// `NewFit` builds its scorer without them); BalancedAllocation reads the
/// actual requests, pod level included where the release honours it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Requests {
    NonZeroForFit,
    Actual,
}

/// Resolves the configured resources and the pod's request of each.
pub fn resolve(
    resources: &[ResourceWeight],
    pod: &Pod,
    interner: &Interner,
    requests: Requests,
    version: Version,
) -> Vec<ScoredResource> {
    resources
        .iter()
        .map(|r| {
            let kind = match r.name.as_str() {
                "cpu" => Kind::Cpu,
                "memory" => Kind::Memory,
                "ephemeral-storage" => Kind::EphemeralStorage,
                name if is_scalar_resource(name) => Kind::Scalar(interner.lookup(name)),
                _ => Kind::Other,
            };
            let actual = match requests {
                Requests::Actual => pod.requests_in(version),
                Requests::NonZeroForFit => &pod.requests,
            };
            let non_zero = pod.incoming_non_zero_for_fit_score();
            let pod_request = match (kind, requests) {
                (Kind::Cpu, Requests::NonZeroForFit) => non_zero.milli_cpu,
                (Kind::Memory, Requests::NonZeroForFit) => non_zero.memory,
                (Kind::Cpu, Requests::Actual) => actual.milli_cpu,
                (Kind::Memory, Requests::Actual) => actual.memory,
                (Kind::EphemeralStorage, _) => actual.ephemeral_storage,
                (Kind::Scalar(Some(sym)), _) => actual.scalar(sym),
                (Kind::Scalar(None) | Kind::Other, _) => 0,
            };
            ScoredResource {
                kind,
                weight: r.weight,
                pod_request,
            }
        })
        .collect()
}

/// `isBestEffortPod`: the pod requests none of the resources.
pub fn is_best_effort(resources: &[ScoredResource]) -> bool {
    resources.iter().all(|r| r.pod_request == 0)
}

/// Whether a scorer of `resources` reads nothing of a node's pods but
/// their cpu and memory sums ([`cpu_mem_sums`]): then, on one node, equal
/// sums give equal scores. Ephemeral storage and the extended resources
/// the pod requests read other sums.
pub fn reads_only_cpu_mem(resources: &[ScoredResource]) -> bool {
    resources.iter().all(|r| match r.kind {
        Kind::Cpu | Kind::Memory | Kind::Scalar(None) | Kind::Other => true,
        Kind::Scalar(Some(_)) => r.pod_request == 0,
        Kind::EphemeralStorage => false,
    })
}

/// The node's pods' cpu and memory requests as a scorer reading
/// `requests` sums them.
pub fn cpu_mem_sums(info: &NodeInfo, requests: Requests, version: Version) -> CpuMem {
    match requests {
        Requests::NonZeroForFit => info.non_zero_requested_in(version),
        Requests::Actual => info.requested_cpu_mem(version),
    }
}

/// [`cpu_mem_sums`] from the node's dense sums.
pub fn cpu_mem_sums_of_load(
    load: &crate::model::NodeLoad,
    requests: Requests,
    version: Version,
) -> CpuMem {
    match requests {
        Requests::NonZeroForFit => load.non_zero_requested_in(version),
        Requests::Actual => load.requested_cpu_mem(version),
    }
}

/// `calculateResourceAllocatableRequest`: (allocatable, requested with the
/// pod) on the node; (0, 0) leaves the resource out of the score. The sum
/// wraps past 2^63 as Go's int64 does.
pub fn allocatable_and_requested(
    r: &ScoredResource,
    node: &Node,
    info: &NodeInfo,
    requests: Requests,
    version: Version,
) -> (i64, i64) {
    let alloc = &node.allocatable;
    let cpu_mem = cpu_mem_sums(info, requests, version);
    match r.kind {
        Kind::Cpu => (
            alloc.milli_cpu,
            cpu_mem.milli_cpu.wrapping_add(r.pod_request),
        ),
        Kind::Memory => (alloc.memory, cpu_mem.memory.wrapping_add(r.pod_request)),
        Kind::EphemeralStorage => (
            alloc.ephemeral_storage,
            info.requested.ephemeral_storage.wrapping_add(r.pod_request),
        ),
        // An extended resource the pod does not request is left out.
        Kind::Scalar(_) if r.pod_request == 0 => (0, 0),
        Kind::Scalar(Some(sym)) if alloc.scalars.iter().any(|s| s.0 == sym) => (
            alloc.scalar(sym),
            info.requested_scalar(sym, version)
                .wrapping_add(r.pod_request),
        ),
        Kind::Scalar(_) | Kind::Other => (0, 0),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::intern::Interner;

    fn scored(kind: Kind, pod_request: i64) -> ScoredResource {
        ScoredResource {
            kind,
            weight: 1,
            pod_request,
        }
    }

    #[test]
    fn only_scorers_reading_cpu_and_memory_sums_can_be_kept_by_those_sums() {
        let gpu = Interner::default().intern("nvidia.com/gpu");
        let cpu_mem = [scored(Kind::Cpu, 100), scored(Kind::Memory, 1 << 20)];
        assert!(reads_only_cpu_mem(&cpu_mem));
        // Resources no node can have, or that the pod does not request,
        // read nothing of the node's pods.
        assert!(reads_only_cpu_mem(&[
            scored(Kind::Cpu, 100),
            scored(Kind::Other, 0),
            scored(Kind::Scalar(None), 3),
            scored(Kind::Scalar(Some(gpu)), 0),
        ]));
        // Ephemeral storage and a requested extended resource read other sums.
        assert!(!reads_only_cpu_mem(&[
            scored(Kind::Cpu, 100),
            scored(Kind::EphemeralStorage, 0),
        ]));
        assert!(!reads_only_cpu_mem(&[scored(Kind::Scalar(Some(gpu)), 1)]));
    }
}
