//! The Placement and What-if views' content: the placement document
//! ([`crate::report::document`], the same one `place -o table` prints),
//! built once on the worker thread so drawing only slices a list, with what
//! the views need beside it.

use crate::engine::{Outcome, Placement};
use crate::model::Cluster;
use crate::report::document::{self, Limits};

pub use crate::report::document::{Line, Tone, outcome_tone};

#[derive(Clone, Debug)]
pub struct PlacementReport {
    pub pod: String,
    pub outcome: Outcome,
    /// The node it goes to (or is nominated for), if any.
    pub node: Option<String>,
    /// The release that answered.
    pub scheduler: crate::engine::VersionChoice,
    /// Always visible above the scrolling part.
    pub header: Vec<Line>,
    /// Indexes of `header` lines a short pane leaves out first: the
    /// command hint and whether the pod is bound or pending.
    pub header_asides: Vec<usize>,
    pub lines: Vec<Line>,
}

/// The view's report for `placement`. `bound`: whether the pod is a bound
/// (Some(true)) or pending (Some(false)) pod of the cluster, or a draft
/// from outside it (None).
pub fn build(cluster: &Cluster, placement: &Placement, bound: Option<bool>) -> PlacementReport {
    let doc = document::placement(cluster, placement, bound, Limits::VIEW);
    let mut header = doc.header;
    // Where the table printer's reader would pass a flag, the view's
    // reader types a command.
    let at = header.iter().take_while(|l| l.tone == Tone::Muted).count();
    let mut header_asides: Vec<usize> = doc
        .asides
        .iter()
        .map(|&i| if i >= at { i + 1 } else { i })
        .collect();
    header_asides.push(at);
    header.insert(
        at,
        Line {
            tone: Tone::Muted,
            text: ":version X.Y or :config PATH answers as another release or configuration".into(),
        },
    );
    PlacementReport {
        pod: placement.pod.clone(),
        outcome: placement.outcome,
        node: placement.node.map(|n| cluster.node(n).name.to_string()),
        scheduler: placement.scheduler.clone(),
        header,
        header_asides,
        lines: doc.body,
    }
}
