//! Helpers for the engine's unit tests: clusters and pods from YAML.

use crate::model::{Cluster, Pod};
use crate::source::file::{load_pod_bytes, load_snapshot_bytes};

pub fn cluster_from_yaml(yaml: &str) -> Cluster {
    load_snapshot_bytes(yaml.as_bytes(), "test.yaml")
        .expect("test snapshot loads")
        .0
}

pub fn pod_from_yaml(yaml: &str, cluster: &mut Cluster) -> Pod {
    load_pod_bytes(yaml.as_bytes(), "pod.yaml", &mut cluster.interner).expect("test pod loads")
}
