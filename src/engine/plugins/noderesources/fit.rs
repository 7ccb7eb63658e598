//! `NodeResourcesFit` Filter: pod count, cpu, memory, ephemeral storage and
//! extended resources against `allocatable − requested`.

use crate::engine::status::{Code, FilterResult, Plugin, Reason, Rejection};
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
    version: Version,
) -> FilterResult {
    let mut reasons: Vec<Reason> = Vec::new();
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
        if r.milli_cpu > 0 && r.milli_cpu > alloc.milli_cpu - used_cpu_mem.milli_cpu {
            reasons.push("Insufficient cpu".into());
            unresolvable |= r.milli_cpu > alloc.milli_cpu;
        }
        if r.memory > 0 && r.memory > alloc.memory - used_cpu_mem.memory {
            reasons.push("Insufficient memory".into());
            unresolvable |= r.memory > alloc.memory;
        }
        if r.ephemeral_storage > 0
            && r.ephemeral_storage > alloc.ephemeral_storage - used.ephemeral_storage
        {
            reasons.push("Insufficient ephemeral-storage".into());
            unresolvable |= r.ephemeral_storage > alloc.ephemeral_storage;
        }
        for &(name, want) in &r.scalars {
            if want != 0 && want > alloc.scalar(name) - info.requested_scalar(name, version) {
                reasons.push(format!("Insufficient {}", interner.resolve(name)).into());
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
