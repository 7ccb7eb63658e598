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
    Placement,
    WhatIf,
    Replay,
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
            Scope::Placement => "Placement",
            Scope::WhatIf => "What-if (7)",
            Scope::Replay => "Replay (recordings; view 8)",
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
        "1-8",
        "switch view (the numbers in the tab bar)",
    ),
    bind(Scope::Global, "tab / shift-tab", "next / previous view"),
    bind(Scope::Global, "?", "show or hide this help"),
    bind(
        Scope::Global,
        ":",
        "command palette (views, themes, version X.Y, quit)",
    ),
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
        Scope::Placement,
        "[ / ]",
        "choose a change under \"How to make it fit\"",
    ),
    bind(
        Scope::Placement,
        "enter",
        "open the chosen change in What-if (the draft or the cluster changed)",
    ),
    bind(
        Scope::WhatIf,
        "e",
        "draft the selected pod (Overview, Pods, Placement) or workload (Skew)",
    ),
    bind(
        Scope::WhatIf,
        "d",
        "Nodes: what draining the selected node would do",
    ),
    bind(
        Scope::WhatIf,
        "up/down, enter",
        "pick a form field, edit or toggle it",
    ),
    bind(
        Scope::WhatIf,
        "x",
        "remove the label, toleration, constraint or device claim",
    ),
    bind(
        Scope::WhatIf,
        "c",
        "a draft of a snapshot pod: answer as that pod rescheduled (default) or as one more copy",
    ),
    bind(
        Scope::WhatIf,
        "y / E",
        "edit the YAML in the app (ctrl-s applies) / in $EDITOR",
    ),
    bind(
        Scope::WhatIf,
        "r, + / -",
        "place N replicas (default 5), change N; :replicas max counts how many fit",
    ),
    bind(
        Scope::WhatIf,
        "a, pgup/pgdn",
        "back to the answer, scroll it",
    ),
    bind(Scope::WhatIf, "w", "save the draft as NAME.yaml here"),
    bind(
        Scope::WhatIf,
        ":draft [new]",
        ":cordon ZONE  :lose ZONE  :save [PATH]  :save! PATH  :load PATH  :replicas",
    ),
    bind(
        Scope::Replay,
        "space  + / -",
        "play or pause; faster / slower (1x to 600x)",
    ),
    bind(
        Scope::Replay,
        "[ ]  { }",
        "step one event back / forward; 10 s back / forward",
    ),
    bind(
        Scope::Replay,
        "n",
        "next binding the trust check disagrees with: its moment and Placement",
    ),
    bind(
        Scope::Replay,
        "m  :at TIME",
        "mark this moment to compare with (view 8); jump to 1:30, +30s, end",
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
