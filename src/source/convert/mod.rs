//! Conversion from `k8s-openapi` types into the engine model, done once per object.

pub mod dra;
pub mod node;
pub mod pod;
pub mod policy;
pub mod requests;
pub mod selector;
pub mod storage;
pub mod validate;

pub use node::convert_node;
pub use pod::{convert_pod, normalized_image, object_name};
