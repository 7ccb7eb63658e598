//! The default profile's plugins, one module per upstream plugin directory
//! (`pkg/scheduler/framework/plugins/<name>`).

pub mod dynamicresources;
pub(crate) mod image_locality;
pub(crate) mod interpodaffinity;
pub(crate) mod node_affinity;
pub(crate) mod node_name;
pub(crate) mod node_ports;
pub mod node_unschedulable;
pub(crate) mod noderesources;
pub mod nodevolumelimits;
pub mod podtopologyspread;
pub mod taint_toleration;
pub mod volumebinding;
pub mod volumerestrictions;
pub mod volumezone;

/// `MaxNodeScore`.
pub const MAX_NODE_SCORE: i64 = 100;

/// `helper.DefaultNormalizeScore`: scales to 0..=100 by the maximum,
/// optionally reversed. Split in two (the maximum over all nodes, then each
/// node's score on its own) so the framework scales nodes where they are,
/// on both cores, instead of copying a column out and back.
#[derive(Clone, Copy, Debug)]
pub struct DefaultNormalizer {
    max: i64,
    reverse: bool,
}

impl DefaultNormalizer {
    /// The maximum of the raw scores.
    pub fn new(scores: impl Iterator<Item = i64>, reverse: bool) -> Self {
        DefaultNormalizer {
            max: scores.max().unwrap_or(0),
            reverse,
        }
    }

    /// One node's normalized score. With a maximum of 0 the scores stay
    /// as they are (all 100 when reversed).
    pub fn apply(&self, score: i64) -> i64 {
        if self.max == 0 {
            return if self.reverse { MAX_NODE_SCORE } else { score };
        }
        let v = MAX_NODE_SCORE * score / self.max;
        if self.reverse { MAX_NODE_SCORE - v } else { v }
    }
}
