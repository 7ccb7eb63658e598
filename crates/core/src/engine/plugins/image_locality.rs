//! `imagelocality`: prefer nodes that already have the pod's images, scaled
//! by how widely each image is spread across the cluster.

use crate::model::{Cluster, Node, Pod, Sym};

const MB: i64 = 1024 * 1024;
const MIN_THRESHOLD: i64 = 23 * MB;
const MAX_CONTAINER_THRESHOLD: i64 = 1000 * MB;

/// The pod's images with the share of the cluster's nodes that have each,
/// computed once per cycle rather than once per node.
pub struct ImageScorer {
    /// Per container image known to some node: the image and its spread.
    spread: Vec<(Sym, f64)>,
    /// How many container images the pod has (the threshold scales by it).
    images: usize,
}

/// PreScore (upstream computes the spread in Score, per node; the numbers
/// are the same).
pub fn pre_score(cluster: &Cluster, pod: &Pod) -> ImageScorer {
    let total_nodes = cluster.nodes.len() as f64;
    ImageScorer {
        spread: pod
            .images
            .iter()
            .filter_map(|image| {
                let state = cluster.images.get(image)?;
                Some((*image, state.num_nodes as f64 / total_nodes))
            })
            .collect(),
        images: pod.images.len(),
    }
}

impl ImageScorer {
    pub fn score(&self, node: &Node) -> i64 {
        let mut sum: i64 = 0;
        for &(image, spread) in &self.spread {
            // The node's own size of the image (`getNodeImageStates`),
            // spread by how many nodes have it.
            if let Some(&(_, size)) = node.images.iter().find(|(name, _)| *name == image) {
                sum += (size as f64 * spread) as i64;
            }
        }
        let max_threshold = MAX_CONTAINER_THRESHOLD * self.images as i64;
        let clamped = sum.clamp(MIN_THRESHOLD, max_threshold.max(MIN_THRESHOLD));
        if max_threshold == MIN_THRESHOLD {
            return 0;
        }
        super::MAX_NODE_SCORE * (clamped - MIN_THRESHOLD) / (max_threshold - MIN_THRESHOLD)
    }
}
