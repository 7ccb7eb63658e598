//! What a memo keeps of ImageLocality's scores between placements: every
//! node's score for one list of container images.
//!
//! ImageLocality reads only the pod's images, the node's images and how
//! many of the cluster's nodes have each image; none of these changes while
//! a disruption re-places pods on the same nodes. Replicas of a workload
//! share their images, so a `:lose ZONE` that re-places 30,000 pods of a
//! few hundred image lists scored each node's images once per list instead
//! of once per pod: reading every feasible node's image list was about a
//! tenth of the scoring.
//!
//! Not part of upstream, which scores every node in every attempt.

use std::sync::{Arc, Mutex};

use rustc_hash::FxHashMap;

use super::plugins::image_locality;
use crate::model::intern::Sym;
use crate::model::{Cluster, NodeId, Pod};

/// The scores per image list, each a column over every node. A score is
/// 0–100 (`MAX_NODE_SCORE`), so a byte holds it.
pub(crate) struct ImageScores {
    nodes: usize,
    columns: Mutex<FxHashMap<Box<[Sym]>, Column>>,
}

/// Every node's score, by node id.
type Column = Arc<[u8]>;

/// Node scores kept at most, over all columns: 16 MB. Past it the columns
/// are dropped and made again as placements need them.
const MAX_SCORES: usize = 16 << 20;

impl ImageScores {
    pub(crate) fn new(nodes: usize) -> Self {
        ImageScores {
            nodes,
            columns: Mutex::default(),
        }
    }

    /// Every node's ImageLocality score for `pod`'s images, made (on both
    /// cores) on first use.
    pub(crate) fn column(&self, cluster: &Cluster, pod: &Pod) -> Column {
        let mut columns = self.columns.lock().unwrap_or_else(|e| e.into_inner());
        if let Some(column) = columns.get(&*pod.images) {
            return column.clone();
        }
        assert_eq!(
            self.nodes,
            cluster.nodes.len(),
            "image scores answer only for the nodes they were made for"
        );
        let scorer = image_locality::pre_score(cluster, pod);
        let mut scores = vec![0u8; cluster.nodes.len()];
        kplace_split::fill(&mut scores, |offset, part| {
            for (id, score) in (offset..).zip(part) {
                let raw = scorer.score(cluster.node(id as NodeId));
                *score = u8::try_from(raw).expect("an ImageLocality score is 0–100");
            }
        });
        let column: Column = scores.into();
        if (columns.len() + 1) * self.nodes > MAX_SCORES {
            columns.clear();
        }
        columns.insert(pod.images.clone(), column.clone());
        column
    }
}
