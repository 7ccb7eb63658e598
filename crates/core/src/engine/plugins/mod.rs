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

/// The smallest and largest raw score of a plugin over the nodes its
/// NormalizeScore reads: what every normalizer scales by. Found per part
/// of the nodes on both cores and joined.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct RawRange {
    min: i64,
    max: i64,
}

impl RawRange {
    /// No score yet.
    pub const EMPTY: RawRange = RawRange {
        min: i64::MAX,
        max: i64::MIN,
    };

    pub fn add(&mut self, score: i64) {
        self.min = self.min.min(score);
        self.max = self.max.max(score);
    }

    pub fn join(self, other: RawRange) -> RawRange {
        RawRange {
            min: self.min.min(other.min),
            max: self.max.max(other.max),
        }
    }

    /// The smallest score, `None` when there is none.
    pub fn min(self) -> Option<i64> {
        (self.min <= self.max).then_some(self.min)
    }

    /// The largest score, `None` when there is none.
    pub fn max(self) -> Option<i64> {
        (self.min <= self.max).then_some(self.max)
    }
}

impl FromIterator<i64> for RawRange {
    fn from_iter<I: IntoIterator<Item = i64>>(scores: I) -> Self {
        let mut range = RawRange::EMPTY;
        for s in scores {
            range.add(s);
        }
        range
    }
}

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
    /// Scaling by the raw scores' range (the maximum is what counts).
    pub fn new(range: RawRange, reverse: bool) -> Self {
        DefaultNormalizer {
            max: range.max().unwrap_or(0),
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
