//! The views, switched with the number keys and listed in the tab bar.

#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum View {
    Overview,
    Skew,
    Tiers,
    Nodes,
    Pods,
    Placement,
    WhatIf,
    Replay,
}

impl View {
    /// In tab-bar order; the number key of a view is its index + 1.
    pub const ALL: [View; 8] = [
        View::Overview,
        View::Skew,
        View::Tiers,
        View::Nodes,
        View::Pods,
        View::Placement,
        View::WhatIf,
        View::Replay,
    ];

    pub fn title(self) -> &'static str {
        match self {
            View::Overview => "Overview",
            View::Skew => "Skew",
            View::Tiers => "Tiers",
            View::Nodes => "Nodes",
            View::Pods => "Pods",
            View::Placement => "Placement",
            View::WhatIf => "What-if",
            View::Replay => "Replay",
        }
    }

    /// The palette command that opens it (k9s style, lower case).
    pub fn command(self) -> &'static str {
        match self {
            View::Overview => "overview",
            View::Skew => "skew",
            View::Tiers => "tiers",
            View::Nodes => "nodes",
            View::Pods => "pods",
            View::Placement => "placement",
            View::WhatIf => "whatif",
            View::Replay => "replay",
        }
    }

    pub fn index(self) -> usize {
        View::ALL.iter().position(|&v| v == self).unwrap_or(0)
    }

    /// The view for a number key `1`..`8`.
    pub fn from_digit(c: char) -> Option<View> {
        let n = c.to_digit(10)? as usize;
        View::ALL.get(n.checked_sub(1)?).copied()
    }

    pub fn next(self) -> View {
        View::ALL[(self.index() + 1) % View::ALL.len()]
    }

    pub fn prev(self) -> View {
        View::ALL[(self.index() + View::ALL.len() - 1) % View::ALL.len()]
    }
}
