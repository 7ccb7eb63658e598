//! The key bindings, as one table: the help overlay lists it and the key
//! handler follows it, so the two cannot drift apart.

/// Where a binding applies.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Scope {
    Global,
    Lists,
    Tables,
    Skew,
    Tiers,
    Input,
}

impl Scope {
    pub fn title(self) -> &'static str {
        match self {
            Scope::Global => "General",
            Scope::Lists => "Moving",
            Scope::Tables => "Nodes / Pods",
            Scope::Skew => "Skew",
            Scope::Tiers => "Tiers",
            Scope::Input => "Filter and palette input",
        }
    }
}

pub struct Binding {
    pub scope: Scope,
    pub keys: &'static str,
    pub does: &'static str,
}

const fn bind(scope: Scope, keys: &'static str, does: &'static str) -> Binding {
    Binding { scope, keys, does }
}

pub const BINDINGS: &[Binding] = &[
    bind(
        Scope::Global,
        "1-6",
        "switch view (Overview, Skew, Tiers, Nodes, Pods, Placement)",
    ),
    bind(Scope::Global, "tab / shift-tab", "next / previous view"),
    bind(Scope::Global, "?", "show or hide this help"),
    bind(Scope::Global, ":", "command palette (views, themes, quit)"),
    bind(Scope::Global, "/", "filter the current list (fuzzy)"),
    bind(
        Scope::Global,
        "esc",
        "back: close overlay, clear filter, previous view",
    ),
    bind(Scope::Global, "q / ctrl-c", "quit"),
    bind(Scope::Lists, "up/down, j/k", "move the selection"),
    bind(Scope::Lists, "pgup/pgdn", "move a page"),
    bind(Scope::Lists, "home/end, g/G", "first / last"),
    bind(Scope::Lists, "mouse wheel", "scroll"),
    bind(
        Scope::Lists,
        "enter",
        "open the Placement of the selected pod",
    ),
    bind(
        Scope::Tables,
        "s / S",
        "cycle the sort column / reverse the order",
    ),
    bind(
        Scope::Skew,
        "t",
        "cycle the topology key (zone, hostname, ...)",
    ),
    bind(
        Scope::Tiers,
        "up/down",
        "choose the priority whose headroom is shown",
    ),
    bind(
        Scope::Input,
        "enter",
        "accept (palette: run the highlighted command)",
    ),
    bind(
        Scope::Input,
        "tab",
        "palette: complete to the highlighted command",
    ),
    bind(Scope::Input, "up/down", "palette: highlight another match"),
    bind(Scope::Input, "esc", "cancel"),
];
