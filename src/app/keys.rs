//! The key bindings, as one table: the help overlay lists it and the key
//! handler looks keys up in it (`action`), so the two cannot drift apart.
//! The What-if form, the replay controls and the input fields handle their
//! own keys; their rows here are what help shows for them, kept next to
//! the rest.

use crossterm::event::{KeyCode, KeyEvent, KeyModifiers};

/// Where a binding applies.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Scope {
    Global,
    Lists,
    Tables,
    Nodes,
    Placement,
    Skew,
    Tiers,
    Inspect,
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
            Scope::Nodes => "Nodes (4)",
            Scope::Placement => "Placement (6)",
            Scope::Skew => "Skew",
            Scope::Tiers => "Tiers",
            Scope::Inspect => "Describe / YAML (d / y)",
            Scope::WhatIf => "What-if (7)",
            Scope::Replay => "Replay (recordings; view 8)",
            Scope::Input => "Filter, palette and form fields",
        }
    }
}

/// A key as the table names it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum K {
    /// A character as typed (shift included: `S` is shift-s).
    Ch(char),
    /// Control and a letter.
    Ctrl(char),
    /// A named key without modifiers (arrows, pgup, esc, enter, tab).
    Code(KeyCode),
    /// `1` to `8`.
    Digit,
    /// An upper-case letter: the sort column of the Nodes or Pods table
    /// whose letter it is.
    SortLetter,
}

impl K {
    fn matches(self, key: &KeyEvent) -> bool {
        let plain = !key
            .modifiers
            .intersects(KeyModifiers::CONTROL | KeyModifiers::ALT);
        match (self, key.code) {
            (K::Ch(c), KeyCode::Char(k)) => plain && c == k,
            (K::Ctrl(c), KeyCode::Char(k)) => {
                key.modifiers.contains(KeyModifiers::CONTROL) && k.eq_ignore_ascii_case(&c)
            }
            (K::Code(c), k) => {
                c == k && (c == KeyCode::BackTab || !key.modifiers.contains(KeyModifiers::CONTROL))
            }
            (K::Digit, KeyCode::Char(k)) => plain && ('1'..='8').contains(&k),
            (K::SortLetter, KeyCode::Char(k)) => plain && is_sort_letter(k),
            _ => false,
        }
    }

    /// How help writes the key (each appears in its binding's `keys`).
    pub fn label(self) -> String {
        match self {
            K::Ch(' ') => "space".into(),
            K::Ch(c) => c.to_string(),
            K::Ctrl(c) => format!("ctrl-{c}"),
            K::Code(KeyCode::Up) => "up".into(),
            K::Code(KeyCode::Down) => "down".into(),
            K::Code(KeyCode::PageUp) => "pgup".into(),
            K::Code(KeyCode::PageDown) => "pgdn".into(),
            K::Code(KeyCode::Home) => "home".into(),
            K::Code(KeyCode::End) => "end".into(),
            K::Code(KeyCode::Esc) => "esc".into(),
            K::Code(KeyCode::Enter) => "enter".into(),
            K::Code(KeyCode::Tab) => "tab".into(),
            K::Code(KeyCode::BackTab) => "shift-tab".into(),
            K::Code(c) => format!("{c:?}").to_lowercase(),
            K::Digit => "1-8".into(),
            K::SortLetter => "shift-".into(),
        }
    }
}

/// A letter that sorts a column of the Nodes or Pods table.
fn is_sort_letter(c: char) -> bool {
    use super::table::{NODE_SORTS, POD_SORTS};
    NODE_SORTS.iter().chain(&POD_SORTS).any(|s| s.letter == c)
}

/// What a key does, for the bindings the app's key handler runs.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Action {
    ShowView,
    NextView,
    PrevView,
    Help,
    Palette,
    Filter,
    Back,
    Quit,
    Up,
    Down,
    PageUp,
    PageDown,
    Home,
    End,
    Open,
    CycleSort,
    SortBy,
    Describe,
    Yaml,
    Draft,
    Drain,
    NextTopologyKey,
    SearchNext,
    SearchPrev,
    Close,
    PrevRemedy,
    NextRemedy,
    OpenRemedy,
}

pub struct Binding {
    pub scope: Scope,
    pub keys: &'static str,
    pub does: &'static str,
    /// The keys the handler matches; empty for rows that only document
    /// keys handled elsewhere (What-if form, replay, input fields, mouse).
    pub on: &'static [K],
    pub action: Option<Action>,
}

const fn doc(scope: Scope, keys: &'static str, does: &'static str) -> Binding {
    Binding {
        scope,
        keys,
        does,
        on: &[],
        action: None,
    }
}

const fn act(
    scope: Scope,
    keys: &'static str,
    does: &'static str,
    on: &'static [K],
    action: Action,
) -> Binding {
    Binding {
        scope,
        keys,
        does,
        on,
        action: Some(action),
    }
}

use KeyCode::*;

pub const BINDINGS: &[Binding] = &[
    act(
        Scope::Global,
        "1-8",
        "switch view (the numbers in the tab bar)",
        &[K::Digit],
        Action::ShowView,
    ),
    act(
        Scope::Global,
        "tab",
        "next view",
        &[K::Code(Tab)],
        Action::NextView,
    ),
    act(
        Scope::Global,
        "shift-tab",
        "previous view",
        &[K::Code(BackTab)],
        Action::PrevView,
    ),
    act(
        Scope::Global,
        "?",
        "show or hide this help",
        &[K::Ch('?')],
        Action::Help,
    ),
    act(
        Scope::Global,
        ":",
        "command palette: views, :ns NAME, :ctx, themes, version X.Y, quit",
        &[K::Ch(':')],
        Action::Palette,
    ),
    act(
        Scope::Global,
        "/",
        "filter the list (fuzzy; /!text: rows without it; /-l app=web: by labels); in Placement: search the answer",
        &[K::Ch('/')],
        Action::Filter,
    ),
    act(
        Scope::Global,
        "esc",
        "back: close the overlay, clear the filter, else the previous view",
        &[K::Code(Esc)],
        Action::Back,
    ),
    act(
        Scope::Global,
        "q / ctrl-c",
        "close the overlay, else quit",
        &[K::Ch('q'), K::Ctrl('c')],
        Action::Quit,
    ),
    act(
        Scope::Lists,
        "up / k",
        "move the selection up",
        &[K::Code(Up), K::Ch('k')],
        Action::Up,
    ),
    act(
        Scope::Lists,
        "down / j",
        "move the selection down",
        &[K::Code(Down), K::Ch('j')],
        Action::Down,
    ),
    act(
        Scope::Lists,
        "pgup",
        "move a page up",
        &[K::Code(PageUp)],
        Action::PageUp,
    ),
    act(
        Scope::Lists,
        "pgdn",
        "move a page down",
        &[K::Code(PageDown)],
        Action::PageDown,
    ),
    act(
        Scope::Lists,
        "home / g",
        "first",
        &[K::Code(Home), K::Ch('g')],
        Action::Home,
    ),
    act(
        Scope::Lists,
        "end / G",
        "last",
        &[K::Code(End), K::Ch('G')],
        Action::End,
    ),
    doc(
        Scope::Lists,
        "mouse",
        "wheel scrolls; a click selects a row",
    ),
    act(
        Scope::Lists,
        "enter",
        "open the selected pod's Placement (a node's or workload's pods)",
        &[K::Code(Enter)],
        Action::Open,
    ),
    act(
        Scope::Lists,
        "d",
        "describe the selected pod or node (scheduling fields first)",
        &[K::Ch('d')],
        Action::Describe,
    ),
    act(
        Scope::Lists,
        "y",
        "the selected pod or node as YAML",
        &[K::Ch('y')],
        Action::Yaml,
    ),
    act(
        Scope::Lists,
        "e",
        "draft the selected pod (Overview, Pods, Placement) or workload (Skew) in What-if",
        &[K::Ch('e')],
        Action::Draft,
    ),
    act(
        Scope::Tables,
        "s",
        "cycle the sort column",
        &[K::Ch('s')],
        Action::CycleSort,
    ),
    act(
        Scope::Tables,
        "shift-letter",
        "sort by that column (N name, Z zone, S status/phase, P pods/priority, C cpu, M memory, O node, A age); again: reverse; ↑ ascending, ↓ descending",
        &[K::SortLetter],
        Action::SortBy,
    ),
    act(
        Scope::Nodes,
        "r",
        "what draining the selected node would do (What-if)",
        &[K::Ch('r')],
        Action::Drain,
    ),
    act(
        Scope::Placement,
        "[",
        "previous change under \"How to make it fit\"",
        &[K::Ch('[')],
        Action::PrevRemedy,
    ),
    act(
        Scope::Placement,
        "]",
        "next change under \"How to make it fit\"",
        &[K::Ch(']')],
        Action::NextRemedy,
    ),
    act(
        Scope::Placement,
        "enter",
        "open the chosen change in What-if (the draft or the cluster changed)",
        &[K::Code(Enter)],
        Action::OpenRemedy,
    ),
    act(
        Scope::Placement,
        "n",
        "next match of the / search",
        &[K::Ch('n')],
        Action::SearchNext,
    ),
    act(
        Scope::Placement,
        "N",
        "previous match of the / search",
        &[K::Ch('N')],
        Action::SearchPrev,
    ),
    act(
        Scope::Skew,
        "t",
        "cycle the topology key (zone, hostname, ...)",
        &[K::Ch('t')],
        Action::NextTopologyKey,
    ),
    doc(
        Scope::Tiers,
        "up/down",
        "choose the priority whose headroom is shown",
    ),
    act(
        Scope::Inspect,
        "esc / q",
        "close",
        &[K::Code(Esc), K::Ch('q')],
        Action::Close,
    ),
    doc(
        Scope::Inspect,
        "j/k, pgup/pgdn",
        "scroll (g / G: top / end); / searches, n / N: next / previous match",
    ),
    doc(
        Scope::WhatIf,
        "up/down, enter",
        "pick a form field, edit or toggle it",
    ),
    doc(
        Scope::WhatIf,
        "x",
        "remove the label, toleration, constraint or device claim",
    ),
    doc(
        Scope::WhatIf,
        "c",
        "a draft of a snapshot pod: answer as that pod rescheduled (default) or as one more copy",
    ),
    doc(
        Scope::WhatIf,
        "y / E",
        "edit the YAML in the app (ctrl-s applies) / in $EDITOR",
    ),
    doc(
        Scope::WhatIf,
        "r, + / -",
        "place N replicas (default 5), change N; :replicas max counts how many fit",
    ),
    doc(
        Scope::WhatIf,
        "a, pgup/pgdn",
        "back to the answer, scroll it",
    ),
    doc(Scope::WhatIf, "w", "save the draft as NAME.yaml here"),
    doc(
        Scope::WhatIf,
        ":draft [new]",
        ":cordon ZONE  :lose ZONE  :save [PATH]  :save! PATH  :load PATH  :replicas",
    ),
    doc(
        Scope::Replay,
        "space  + / -",
        "play or pause; faster / slower (1x to 600x)",
    ),
    doc(
        Scope::Replay,
        "[ ]  { }",
        "step one event back / forward; 10 s back / forward",
    ),
    doc(
        Scope::Replay,
        "n",
        "next binding the trust check disagrees with: its moment and Placement",
    ),
    doc(
        Scope::Replay,
        "m  :at TIME",
        "mark this moment to compare with (view 8); jump to 1:30, +30s, end",
    ),
    doc(
        Scope::Input,
        "enter",
        "accept (palette: run the highlighted command)",
    ),
    doc(
        Scope::Input,
        "ctrl-a / ctrl-e",
        "start / end of the line (also home / end, left / right)",
    ),
    doc(
        Scope::Input,
        "ctrl-u / ctrl-k",
        "delete to the start / to the end of the line",
    ),
    doc(Scope::Input, "ctrl-w", "delete the word before the cursor"),
    doc(
        Scope::Input,
        "tab, up/down",
        "palette: complete to / highlight another command",
    ),
    doc(Scope::Input, "esc", "cancel"),
];

/// The action bound to `key` in the first of `scopes` that binds it.
pub fn action(scopes: &[Scope], key: &KeyEvent) -> Option<Action> {
    scopes.iter().find_map(|&scope| {
        BINDINGS
            .iter()
            .filter(|b| b.scope == scope)
            .find(|b| b.on.iter().any(|k| k.matches(key)))
            .and_then(|b| b.action)
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Help shows every key the handler matches, as it matches it.
    #[test]
    fn every_matched_key_is_written_in_its_help_row() {
        for b in BINDINGS {
            for k in b.on {
                assert!(
                    b.keys.contains(&k.label()),
                    "{:?}: help row {:?} does not show {}",
                    b.scope,
                    b.keys,
                    k.label()
                );
            }
        }
    }

    #[test]
    fn shift_letters_and_control_keys_are_told_apart() {
        let shift_n = KeyEvent::new(KeyCode::Char('N'), KeyModifiers::SHIFT);
        assert_eq!(
            action(&[Scope::Placement, Scope::Global], &shift_n),
            Some(Action::SearchPrev)
        );
        assert_eq!(action(&[Scope::Tables], &shift_n), Some(Action::SortBy));
        let ctrl_d = KeyEvent::new(KeyCode::Char('d'), KeyModifiers::CONTROL);
        assert_eq!(action(&[Scope::Lists], &ctrl_d), None);
        let ctrl_c = KeyEvent::new(KeyCode::Char('c'), KeyModifiers::CONTROL);
        assert_eq!(action(&[Scope::Global], &ctrl_c), Some(Action::Quit));
    }
}
