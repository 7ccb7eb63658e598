//! `imagelocality`: prefer nodes that already have the pod's images, scaled
//! by how widely each image is spread across the cluster.

use crate::model::{Cluster, Node, Pod};

const MB: i64 = 1024 * 1024;
const MIN_THRESHOLD: i64 = 23 * MB;
const MAX_CONTAINER_THRESHOLD: i64 = 1000 * MB;

pub fn score(cluster: &Cluster, pod: &Pod, node: &Node) -> i64 {
    let total_nodes = cluster.nodes.len() as f64;
    let mut sum: i64 = 0;
    for image in pod.images.iter() {
        // The node's own size of the image (`getNodeImageStates`), spread
        // by how many nodes have it.
        let Some(&(_, size)) = node.images.iter().find(|(name, _)| name == image) else {
            continue;
        };
        if let Some(state) = cluster.images.get(image) {
            let spread = state.num_nodes as f64 / total_nodes;
            sum += (size as f64 * spread) as i64;
        }
    }
    let max_threshold = MAX_CONTAINER_THRESHOLD * pod.images.len() as i64;
    let clamped = sum.clamp(MIN_THRESHOLD, max_threshold.max(MIN_THRESHOLD));
    if max_threshold == MIN_THRESHOLD {
        return 0;
    }
    super::MAX_NODE_SCORE * (clamped - MIN_THRESHOLD) / (max_threshold - MIN_THRESHOLD)
}
