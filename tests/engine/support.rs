//! Clusters and pods from YAML, for the engine's tests.

use kplace::model::{Cluster, Pod};
use kplace::source::file::{load_pod_bytes, load_snapshot_bytes};

pub fn cluster_from_yaml(yaml: &str) -> Cluster {
    load_snapshot_bytes(yaml.as_bytes(), "test.yaml")
        .expect("test snapshot loads")
        .0
}

pub fn pod_from_yaml(yaml: &str, cluster: &mut Cluster) -> Pod {
    load_pod_bytes(yaml.as_bytes(), "pod.yaml", &mut cluster.interner).expect("test pod loads")
}

/// What the engine modules' tests name without a path.
pub mod prelude {
    pub use kplace::engine::status::FilterResult;
    pub use kplace::engine::{Outcome, Placement, Version};
    pub use kplace::model::dra::DeviceId;
    pub use kplace::model::{Cluster, Pod};
    pub use std::sync::atomic::{AtomicBool, Ordering};
}
