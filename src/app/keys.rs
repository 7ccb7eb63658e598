//! The key bindings, as one table: the help overlay lists it and every key
//! handler (the views, the What-if form and its YAML editor, the replay
//! controls, the input fields) looks keys up in it (`action`), so the two
//! cannot drift apart. Only what is typed into a field or the YAML editor
//! (a plain character) is not a binding.

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
    Editor,
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
            Scope::Editor => "What-if YAML editor (y)",
            Scope::Replay => "Replay (recordings; view 8)",
            Scope::Input => "Filter, palette, searches, form fields and the YAML editor",
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
            K::Code(KeyCode::Left) => "left".into(),
            K::Code(KeyCode::Right) => "right".into(),
            K::Code(KeyCode::Backspace) => "backspace".into(),
            K::Code(KeyCode::Delete) => "delete".into(),
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
    ScrollSideList,
    CycleSort,
    SortBy,
    Describe,
    Yaml,
    Draft,
    Drain,
    NextTopologyKey,
    FleetList,
    SearchNext,
    SearchPrev,
    Close,
    PrevRemedy,
    NextRemedy,
    OpenRemedy,
    // What-if.
    EditField,
    RemoveField,
    ToggleCopy,
    EditYaml,
    EditExternal,
    PlaceReplicas,
    MoreReplicas,
    FewerReplicas,
    ShowAnswer,
    SaveDraft,
    // The YAML editor.
    ApplyYaml,
    NewLine,
    Indent,
    // Replay.
    PlayPause,
    Faster,
    Slower,
    StepBack,
    StepForward,
    TimeBack,
    TimeForward,
    NextDisagreement,
    Mark,
    // Input fields.
    Accept,
    Cancel,
    Complete,
    LineStart,
    LineEnd,
    CharLeft,
    CharRight,
    DeleteToStart,
    DeleteToEnd,
    DeleteWord,
    DeleteBack,
    DeleteForward,
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
        "filter the list (fuzzy; /!text: rows without it; /-l app=web: by labels); in Placement and a What-if drain or zone plan: search it",
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
        "q",
        "close the overlay, else quit",
        &[K::Ch('q')],
        Action::Quit,
    ),
    act(
        Scope::Global,
        "ctrl-c / ctrl-q",
        "quit, from anywhere (an overlay, a field, the editor)",
        &[K::Ctrl('c'), K::Ctrl('q')],
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
        "wheel scrolls (on the Overview and Skew, the pane under the pointer); a click selects a row",
    ),
    act(
        Scope::Lists,
        "J / K",
        "scroll the Overview's node list, Skew's fleet pane (the arrows move the rows beside)",
        &[K::Ch('J'), K::Ch('K')],
        Action::ScrollSideList,
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
    act(
        Scope::Skew,
        "f",
        "the whole fleet list: every workload at or one replica from its maxSkew (scroll, / search)",
        &[K::Ch('f')],
        Action::FleetList,
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
    act(
        Scope::WhatIf,
        "up / k",
        "the previous form field",
        &[K::Code(Up), K::Ch('k')],
        Action::Up,
    ),
    act(
        Scope::WhatIf,
        "down / j",
        "the next form field",
        &[K::Code(Down), K::Ch('j')],
        Action::Down,
    ),
    act(
        Scope::WhatIf,
        "enter",
        "edit or toggle the field (priority class: choose from a list)",
        &[K::Code(Enter)],
        Action::EditField,
    ),
    act(
        Scope::WhatIf,
        "x / delete",
        "remove the label, toleration, constraint or device claim",
        &[K::Ch('x'), K::Code(Delete)],
        Action::RemoveField,
    ),
    act(
        Scope::WhatIf,
        "c",
        "answer as the snapshot pod rescheduled (default) or as one more copy",
        &[K::Ch('c')],
        Action::ToggleCopy,
    ),
    act(
        Scope::WhatIf,
        "y",
        "edit the YAML in the app (ctrl-s applies)",
        &[K::Ch('y')],
        Action::EditYaml,
    ),
    act(
        Scope::WhatIf,
        "E",
        "edit the YAML in $EDITOR",
        &[K::Ch('E')],
        Action::EditExternal,
    ),
    act(
        Scope::WhatIf,
        "r",
        "place N replicas (5, or the workload's count); :replicas max counts",
        &[K::Ch('r')],
        Action::PlaceReplicas,
    ),
    act(
        Scope::WhatIf,
        "+ / =",
        "replicas shown: one more",
        &[K::Ch('+'), K::Ch('=')],
        Action::MoreReplicas,
    ),
    act(
        Scope::WhatIf,
        "-",
        "replicas shown: one fewer",
        &[K::Ch('-')],
        Action::FewerReplicas,
    ),
    act(
        Scope::WhatIf,
        "a",
        "back to the answer",
        &[K::Ch('a')],
        Action::ShowAnswer,
    ),
    act(
        Scope::WhatIf,
        "pgup",
        "scroll the answer, replicas or drain plan up",
        &[K::Code(PageUp)],
        Action::PageUp,
    ),
    act(
        Scope::WhatIf,
        "pgdn",
        "scroll the answer, replicas or drain plan down",
        &[K::Code(PageDown)],
        Action::PageDown,
    ),
    act(
        Scope::WhatIf,
        "home / g",
        "to the top of the answer, replicas or drain plan",
        &[K::Code(Home), K::Ch('g')],
        Action::Home,
    ),
    act(
        Scope::WhatIf,
        "end / G",
        "to the end of the answer, replicas or drain plan",
        &[K::Code(End), K::Ch('G')],
        Action::End,
    ),
    act(
        Scope::WhatIf,
        "n",
        "next match of the / search in a drain or zone plan",
        &[K::Ch('n')],
        Action::SearchNext,
    ),
    act(
        Scope::WhatIf,
        "N",
        "previous match of the / search in a drain or zone plan",
        &[K::Ch('N')],
        Action::SearchPrev,
    ),
    act(
        Scope::WhatIf,
        "w",
        "save the draft as NAME.yaml here",
        &[K::Ch('w')],
        Action::SaveDraft,
    ),
    act(
        Scope::WhatIf,
        "esc",
        "cancel a drain or zone plan being computed, else back to the answer",
        &[K::Code(Esc)],
        Action::Back,
    ),
    doc(
        Scope::WhatIf,
        ":draft [new]",
        ":cordon ZONE :lose ZONE :drain NODE · :then … stacks a step · :scenario clear · :save [PATH] :save! PATH :load PATH :replicas",
    ),
    act(
        Scope::Editor,
        "ctrl-s",
        "apply to the draft (a syntax error shows, the editor stays)",
        &[K::Ctrl('s')],
        Action::ApplyYaml,
    ),
    act(
        Scope::Editor,
        "esc",
        "close the editor, the draft unchanged",
        &[K::Code(Esc)],
        Action::Cancel,
    ),
    act(
        Scope::Editor,
        "enter",
        "a new line, keeping the indentation",
        &[K::Code(Enter)],
        Action::NewLine,
    ),
    act(
        Scope::Editor,
        "tab",
        "insert two spaces",
        &[K::Code(Tab)],
        Action::Indent,
    ),
    act(
        Scope::Editor,
        "pgup",
        "20 lines up (arrows and the field keys below work too)",
        &[K::Code(PageUp)],
        Action::PageUp,
    ),
    act(
        Scope::Editor,
        "pgdn",
        "20 lines down",
        &[K::Code(PageDown)],
        Action::PageDown,
    ),
    act(
        Scope::Replay,
        "space",
        "play or pause",
        &[K::Ch(' ')],
        Action::PlayPause,
    ),
    act(
        Scope::Replay,
        "+ / =",
        "faster (up to 600x)",
        &[K::Ch('+'), K::Ch('=')],
        Action::Faster,
    ),
    act(
        Scope::Replay,
        "-",
        "slower (down to 1x)",
        &[K::Ch('-')],
        Action::Slower,
    ),
    act(
        Scope::Replay,
        "[",
        "one event back",
        &[K::Ch('[')],
        Action::StepBack,
    ),
    act(
        Scope::Replay,
        "]",
        "one event forward",
        &[K::Ch(']')],
        Action::StepForward,
    ),
    act(
        Scope::Replay,
        "{",
        "10 s back",
        &[K::Ch('{')],
        Action::TimeBack,
    ),
    act(
        Scope::Replay,
        "}",
        "10 s forward",
        &[K::Ch('}')],
        Action::TimeForward,
    ),
    act(
        Scope::Replay,
        "n",
        "the next binding the trust check disputes, and its Placement",
        &[K::Ch('n')],
        Action::NextDisagreement,
    ),
    act(
        Scope::Replay,
        "m",
        "mark this moment to compare with (view 8); again: clear the mark",
        &[K::Ch('m')],
        Action::Mark,
    ),
    doc(
        Scope::Replay,
        ":at TIME",
        "jump to 1:30, +30s, -10s, start or end",
    ),
    act(
        Scope::Input,
        "enter",
        "accept (palette: run the highlighted command)",
        &[K::Code(Enter)],
        Action::Accept,
    ),
    act(
        Scope::Input,
        "esc",
        "cancel",
        &[K::Code(Esc)],
        Action::Cancel,
    ),
    act(
        Scope::Input,
        "tab",
        "palette: complete to the highlighted command",
        &[K::Code(Tab)],
        Action::Complete,
    ),
    act(
        Scope::Input,
        "up",
        "the previous palette command, list row or editor line",
        &[K::Code(Up)],
        Action::Up,
    ),
    act(
        Scope::Input,
        "down",
        "the next palette command, list row or editor line",
        &[K::Code(Down)],
        Action::Down,
    ),
    act(
        Scope::Input,
        "ctrl-a / home",
        "start of the line",
        &[K::Ctrl('a'), K::Code(Home)],
        Action::LineStart,
    ),
    act(
        Scope::Input,
        "ctrl-e / end",
        "end of the line",
        &[K::Ctrl('e'), K::Code(End)],
        Action::LineEnd,
    ),
    act(
        Scope::Input,
        "left",
        "one character left",
        &[K::Code(Left)],
        Action::CharLeft,
    ),
    act(
        Scope::Input,
        "right",
        "one character right",
        &[K::Code(Right)],
        Action::CharRight,
    ),
    act(
        Scope::Input,
        "ctrl-u",
        "delete to the start of the line",
        &[K::Ctrl('u')],
        Action::DeleteToStart,
    ),
    act(
        Scope::Input,
        "ctrl-k",
        "delete to the end of the line",
        &[K::Ctrl('k')],
        Action::DeleteToEnd,
    ),
    act(
        Scope::Input,
        "ctrl-w",
        "delete the word before the cursor",
        &[K::Ctrl('w')],
        Action::DeleteWord,
    ),
    act(
        Scope::Input,
        "backspace",
        "delete the character before the cursor",
        &[K::Code(Backspace)],
        Action::DeleteBack,
    ),
    act(
        Scope::Input,
        "delete",
        "delete the character under the cursor",
        &[K::Code(Delete)],
        Action::DeleteForward,
    ),
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

    /// The key event a table key stands for.
    fn event(k: K) -> KeyEvent {
        match k {
            K::Ch(c) => KeyEvent::new(KeyCode::Char(c), KeyModifiers::NONE),
            K::Ctrl(c) => KeyEvent::new(KeyCode::Char(c), KeyModifiers::CONTROL),
            K::Code(BackTab) => KeyEvent::new(BackTab, KeyModifiers::SHIFT),
            K::Code(c) => KeyEvent::new(c, KeyModifiers::NONE),
            K::Digit => KeyEvent::new(KeyCode::Char('3'), KeyModifiers::NONE),
            K::SortLetter => KeyEvent::new(KeyCode::Char('C'), KeyModifiers::SHIFT),
        }
    }

    /// What-if, its YAML editor, replay and the input fields are driven by
    /// the table: every key their help rows show is dispatched to the row's
    /// action (no earlier row of the scope takes it). The only rows without
    /// keys are palette commands, and the palette runs each one named.
    #[test]
    fn what_if_editor_replay_and_input_rows_are_all_dispatched() {
        let scopes = [Scope::WhatIf, Scope::Editor, Scope::Replay, Scope::Input];
        for scope in scopes {
            let rows: Vec<&Binding> = BINDINGS.iter().filter(|b| b.scope == scope).collect();
            assert!(rows.iter().filter(|b| b.action.is_some()).count() >= 4);
            for b in rows {
                if b.action.is_none() {
                    assert!(
                        b.keys.starts_with(':'),
                        "{scope:?} {:?} is documentation only",
                        b.keys
                    );
                    let words = b.keys.split_whitespace().chain(b.does.split_whitespace());
                    for word in words.filter_map(|w| w.strip_prefix(':')) {
                        let runs = ["", " x", " 1:30", " clear", " drain x"].iter().any(|arg| {
                            crate::app::palette::parse(&format!("{word}{arg}")).is_some()
                        });
                        assert!(runs, ":{word} in help is no palette command");
                    }
                    continue;
                }
                assert!(!b.on.is_empty(), "{scope:?} {:?}", b.keys);
                for &k in b.on {
                    assert_eq!(
                        action(&[scope], &event(k)),
                        b.action,
                        "{scope:?}: {} is not dispatched to {:?}",
                        k.label(),
                        b.action
                    );
                }
            }
        }
    }

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
