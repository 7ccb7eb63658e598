//! The cluster as the engine needs it, converted once from `k8s-openapi`
//! types into a compact, indexed form (interned labels, integer resources,
//! per-node pod lists).

pub mod cluster;
pub mod dra;
pub mod error;
pub mod intern;
pub mod labels;
pub mod node;
pub mod pod;
pub mod policy;
pub mod quantity;
pub mod resources;
pub mod shared_vec;
pub mod storage;

pub use cluster::{BriefPdbs, Cluster, NodeInfo, NodeLoad, PodBrief};
pub use error::InvalidObject;
pub use intern::{Interner, Sym};
pub use labels::{LabelSelector, Labels};
pub use node::{Node, NodeId};
pub use pod::{Pod, PodId};
