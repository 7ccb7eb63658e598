//! Conversion from `k8s-openapi` types into the engine model, done once per object.

pub mod dra;
pub mod lean_json;
pub mod lean_node;
pub mod lean_pod;
pub mod lean_replica_set;
pub mod lean_types;
pub mod node;
pub mod node_fields;
pub mod pod;
pub mod pod_fields;
pub mod policy;
pub mod requests;
pub mod selector;
pub mod storage;
pub mod validate;

pub use node::{convert_node, convert_node_checked};
pub use pod::{PodMemo, convert_pod, convert_pod_memo, object_name};

/// `2024-10-01T00:00:00Z` from Unix seconds: how the API server writes a
/// timestamp (the inverse of reading one into the model).
pub fn rfc3339(secs: i64) -> String {
    k8s_openapi::jiff::Timestamp::from_second(secs)
        .map(|t| t.strftime("%Y-%m-%dT%H:%M:%SZ").to_string())
        .unwrap_or_default()
}
