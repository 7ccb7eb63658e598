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

/// `helper.DefaultNormalizeScore`: scales to 0..=100 by the maximum, optionally reversed.
pub fn default_normalize(scores: &mut [i64], reverse: bool) {
    let max = scores.iter().copied().max().unwrap_or(0);
    if max == 0 {
        if reverse {
            scores.iter_mut().for_each(|s| *s = MAX_NODE_SCORE);
        }
        return;
    }
    for s in scores.iter_mut() {
        let v = MAX_NODE_SCORE * *s / max;
        *s = if reverse { MAX_NODE_SCORE - v } else { v };
    }
}
