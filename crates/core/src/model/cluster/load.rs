//! A dense copy of what every placement reads of every node: its cpu and
//! memory sums, its pod count and its allocatable. A node's aggregates
//! ([`NodeInfo`]) are each their own allocation (so a live event or a
//! fork's write copies one node's lists, not sixteen), which made reading
//! them for 5,000 nodes on each placement two cache misses per node:
//! NodeResourcesFit's filter and the resource scores read this instead.

use super::NodeInfo;
use crate::engine::Version;
use crate::model::node::Node;
use crate::model::resources::CpuMem;

/// One node's sums, as [`NodeInfo`] and [`Node`] hold them.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct NodeLoad {
    /// Σ requested cpu/memory (container level, as before v1.34).
    requested: CpuMem,
    /// Σ requested cpu/memory with pod-level resources (v1.34).
    requested_pod_level: CpuMem,
    /// Σ non-zero cpu/memory per era, as [`NodeInfo`] keeps them.
    non_zero: [CpuMem; 3],
    /// How many pods the node holds.
    pods: u32,
    /// The node's allocatable cpu, memory and pods.
    allocatable: CpuMem,
    allowed_pods: i64,
}

impl NodeLoad {
    pub fn of(node: &Node, info: &NodeInfo) -> NodeLoad {
        NodeLoad {
            requested: info.requested_cpu_mem(Version::V1_30),
            requested_pod_level: info.requested_cpu_mem(Version::V1_34),
            non_zero: info.non_zero_requested,
            pods: info.pods.len() as u32,
            allocatable: CpuMem {
                milli_cpu: node.allocatable.milli_cpu,
                memory: node.allocatable.memory,
            },
            allowed_pods: node.allocatable.allowed_pods,
        }
    }

    /// [`NodeInfo::requested_cpu_mem`].
    pub fn requested_cpu_mem(&self, version: Version) -> CpuMem {
        if version.pod_level_resources() {
            self.requested_pod_level
        } else {
            self.requested
        }
    }

    /// [`NodeInfo::non_zero_requested_in`].
    pub fn non_zero_requested_in(&self, version: Version) -> CpuMem {
        self.non_zero[super::era(version)]
    }

    pub fn pods(&self) -> usize {
        self.pods as usize
    }

    /// The node's allocatable cpu and memory.
    pub fn allocatable(&self) -> CpuMem {
        self.allocatable
    }

    /// The node's allocatable pods.
    pub fn allowed_pods(&self) -> i64 {
        self.allowed_pods
    }
}
