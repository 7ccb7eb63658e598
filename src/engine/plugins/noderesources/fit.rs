//! `NodeResourcesFit` Filter: pod count, cpu, memory, ephemeral storage and
//! extended resources against `allocatable − requested`.

use crate::engine::status::{Code, FilterResult, Plugin, Reason, Rejection};
use crate::model::intern::Interner;
use crate::model::{Node, NodeInfo, Pod};

pub fn filter(pod: &Pod, node: &Node, info: &NodeInfo, interner: &Interner) -> FilterResult {
    let mut reasons: Vec<Reason> = Vec::new();
    let alloc = &node.allocatable;
    if info.pods.len() as i64 + 1 > alloc.allowed_pods {
        reasons.push("Too many pods".into());
    }
    let r = &pod.requests;
    let empty =
        r.milli_cpu == 0 && r.memory == 0 && r.ephemeral_storage == 0 && r.scalars.is_empty();
    if !empty {
        let used = &info.requested;
        if r.milli_cpu > 0 && r.milli_cpu > alloc.milli_cpu - used.milli_cpu {
            reasons.push("Insufficient cpu".into());
        }
        if r.memory > 0 && r.memory > alloc.memory - used.memory {
            reasons.push("Insufficient memory".into());
        }
        if r.ephemeral_storage > 0
            && r.ephemeral_storage > alloc.ephemeral_storage - used.ephemeral_storage
        {
            reasons.push("Insufficient ephemeral-storage".into());
        }
        for &(name, want) in &r.scalars {
            if want != 0 && want > alloc.scalar(name) - used.scalar(name) {
                reasons.push(format!("Insufficient {}", interner.resolve(name)).into());
            }
        }
    }
    if reasons.is_empty() {
        Ok(())
    } else {
        Err(Rejection {
            plugin: Plugin::NodeResourcesFit,
            code: Code::Unschedulable,
            reasons,
        })
    }
}
