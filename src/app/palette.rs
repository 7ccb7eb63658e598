//! The `:` command palette: k9s-style commands with fuzzy completion.

use super::table::fuzzy_rank_indices;
use super::view::View;

/// What a palette command does.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Command {
    Show(View),
    Theme(String),
    Help,
    Quit,
    /// Drafts, replicas, disruptions, save and load.
    WhatIf(super::whatif::Cmd),
    /// `at TIME`: jump to a moment of the recording.
    At(String),
    /// `mark`: mark the moment shown, to compare with.
    Mark,
    /// `version X.Y` answers as that kube-scheduler release; `version auto`
    /// follows the cluster again; `version` says which and why.
    Version(String),
    /// `config PATH` answers with a KubeSchedulerConfiguration's profiles;
    /// `config default` goes back to the default profile.
    Config(String),
    /// `ns NAME` / `namespace NAME`: the Pods table shows that namespace;
    /// `ns` or `ns all`: every namespace.
    Namespace(Option<String>),
    /// `ctx`: the kubeconfig's contexts (live only).
    Contexts,
    /// `ctx NAME`: the live session follows that context from now on.
    UseContext(String),
}

#[derive(Clone, Debug, Default)]
pub struct Palette {
    pub input: String,
    /// Where the cursor is in `input` (a character index).
    pub cursor: usize,
    /// Index into `matches`.
    pub highlighted: usize,
    /// Commands matching `input`, best first.
    pub matches: Vec<String>,
    commands: Vec<String>,
}

impl Palette {
    pub fn open(theme_names: &[String]) -> Palette {
        Palette::open_with(theme_names, &[])
    }

    /// With more commands offered for completion (the what-if family).
    pub fn open_with(theme_names: &[String], extra: &[String]) -> Palette {
        let mut commands: Vec<String> = View::ALL.iter().map(|v| v.command().to_string()).collect();
        commands.extend(extra.iter().cloned());
        commands.extend(theme_names.iter().map(|t| format!("theme {t}")));
        commands.extend(
            crate::engine::Version::ALL
                .iter()
                .rev()
                .map(|v| format!("version {}", v.as_str())),
        );
        commands.push("version auto".to_string());
        commands.push("config default".to_string());
        commands.extend(["help".to_string(), "quit".to_string()]);
        let mut p = Palette {
            commands,
            ..Default::default()
        };
        p.update();
        p
    }

    pub fn update(&mut self) {
        self.matches = fuzzy_rank_indices(&self.commands, self.input.trim())
            .into_iter()
            .map(|i| self.commands[i].clone())
            .collect();
        self.highlighted = 0;
    }

    pub fn type_char(&mut self, c: char) {
        self.input.push(c);
        self.cursor = self.input.chars().count();
        self.update();
    }

    pub fn move_highlight(&mut self, delta: isize) {
        if self.matches.is_empty() {
            return;
        }
        let n = self.matches.len() as isize;
        self.highlighted = ((self.highlighted as isize + delta).rem_euclid(n)) as usize;
    }

    /// Tab: the input becomes the highlighted command.
    pub fn complete(&mut self) {
        if let Some(m) = self.matches.get(self.highlighted) {
            self.input = m.clone();
            self.cursor = self.input.chars().count();
            self.update();
        }
    }

    /// Enter: the command to run, or an error for the status line.
    pub fn accept(&self) -> Result<Command, String> {
        let typed = self.input.trim();
        if let Some(c) = parse(typed) {
            return Ok(c);
        }
        // The highlighted command runs only when every word typed is in
        // it (`tie` → tiers, `ver 31` → version 1.31); `deploy` or `svc`
        // is not a view of kplace, whatever the fuzzy match.
        let m = self
            .matches
            .get(self.highlighted)
            .filter(|m| typed.split_whitespace().all(|w| m.contains(w)));
        // A disruption never runs on a zone or node the operator did not
        // type: `lose` + enter would otherwise lose the first zone listed.
        let needs = |m: &str| super::whatif::usage(m).map(str::to_string);
        match m.map(|m| (m, parse(m))) {
            Some((m, Some(Command::WhatIf(super::whatif::Cmd::Disrupt { .. })) | None)) => {
                Err(needs(typed)
                    .or_else(|| needs(m))
                    .unwrap_or_else(|| unknown(typed)))
            }
            Some((_, Some(c))) => Ok(c),
            None => Err(needs(typed).unwrap_or_else(|| unknown(typed))),
        }
    }
}

/// What the status line says for a command kplace does not have.
pub fn unknown(typed: &str) -> String {
    let views: Vec<String> = View::ALL
        .iter()
        .enumerate()
        .map(|(i, v)| format!("{} ({})", v.command(), i + 1))
        .collect();
    format!(
        "unknown view {:?}; views are: {}; commands: ns NAME, ctx [NAME], theme, version, config, draft, replicas, cordon ZONE, lose ZONE, drain NODE, then, scenario clear, save, load, at, mark, help, quit (tab completes)",
        typed.split_whitespace().next().unwrap_or(typed),
        views.join(", ")
    )
}

/// Exact commands and the k9s aliases (`no`, `po`, `q!`...).
pub fn parse(s: &str) -> Option<Command> {
    let s = s.trim();
    if let Some(name) = s.strip_prefix("theme ") {
        return Some(Command::Theme(name.trim().to_string()));
    }
    if s == "config" {
        return Some(Command::Config(String::new()));
    }
    if let Some(v) = s.strip_prefix("config ") {
        return Some(Command::Config(v.trim().to_string()));
    }
    if s == "version" {
        return Some(Command::Version(String::new()));
    }
    if let Some(v) = s.strip_prefix("version ") {
        return Some(Command::Version(v.trim().to_string()));
    }
    if let Some(rest) = s
        .strip_prefix("namespace")
        .or_else(|| s.strip_prefix("ns"))
        .filter(|r| r.is_empty() || r.starts_with(' '))
    {
        let name = rest.trim();
        return Some(Command::Namespace(
            (!name.is_empty() && name != "all" && name != "-A").then(|| name.to_string()),
        ));
    }
    if matches!(s, "ctx" | "context" | "contexts") {
        return Some(Command::Contexts);
    }
    if let Some(name) = s
        .strip_prefix("ctx ")
        .or_else(|| s.strip_prefix("context "))
        .map(str::trim)
        .filter(|n| !n.is_empty())
    {
        return Some(Command::UseContext(name.to_string()));
    }
    if let Some(t) = s.strip_prefix("at ") {
        return Some(Command::At(t.trim().to_string()));
    }
    if let Some(c) = super::whatif::parse_command(s) {
        return Some(Command::WhatIf(c));
    }
    Some(match s {
        "overview" | "ov" => Command::Show(View::Overview),
        "skew" | "sk" => Command::Show(View::Skew),
        "tiers" | "priorityclasses" | "pc" => Command::Show(View::Tiers),
        "nodes" | "node" | "no" => Command::Show(View::Nodes),
        "pods" | "pod" | "po" => Command::Show(View::Pods),
        "placement" | "place" => Command::Show(View::Placement),
        "whatif" | "what-if" | "wi" => Command::Show(View::WhatIf),
        "replay" | "timeline" | "rp" => Command::Show(View::Replay),
        "mark" => Command::Mark,
        "help" | "?" => Command::Help,
        "quit" | "q" | "q!" | "exit" => Command::Quit,
        _ => return None,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn fuzzy_completion_and_aliases() {
        let mut p = Palette::open(&["dark".into(), "light".into()]);
        for c in "lig".chars() {
            p.type_char(c);
        }
        assert_eq!(p.matches.first().map(String::as_str), Some("theme light"));
        assert_eq!(p.accept(), Ok(Command::Theme("light".into())));
        let mut p = Palette::open(&[]);
        p.type_char('p');
        p.type_char('o');
        assert_eq!(p.accept(), Ok(Command::Show(View::Pods)));
        assert_eq!(parse("q"), Some(Command::Quit));
        assert_eq!(parse("version 1.32"), Some(Command::Version("1.32".into())));
        assert_eq!(parse("version"), Some(Command::Version(String::new())));
        let mut p = Palette::open(&[]);
        for c in "ver 31".chars() {
            p.type_char(c);
        }
        assert_eq!(p.accept(), Ok(Command::Version("1.31".into())));
    }

    /// A disruption runs only on what was typed: `lose` + enter, or a
    /// fuzzy `los`, says what it needs instead of losing the first zone.
    #[test]
    fn a_disruption_never_runs_on_a_zone_or_node_not_typed() {
        let extra = crate::app::whatif::palette_commands(&["eu-1a".into(), "eu-1b".into()]);
        let accept = |typed: &str| {
            let mut p = Palette::open_with(&[], &extra);
            for c in typed.chars() {
                p.type_char(c);
            }
            p.accept()
        };
        for typed in ["lose", "los", "then lose", "cordon", "cord"] {
            let said = accept(typed).unwrap_err();
            assert!(said.contains("needs a zone"), "{typed}: {said}");
        }
        for typed in ["drain", "drain "] {
            let said = accept(typed).unwrap_err();
            assert!(
                said.starts_with("drain needs one or more nodes"),
                "{typed}: {said}"
            );
        }
        assert!(accept("then").unwrap_err().starts_with("then needs a step"));
        assert!(accept("load").unwrap_err().starts_with("load needs a file"));
        // Typed in full, they run; views still complete.
        assert!(matches!(
            accept("lose eu-1b"),
            Ok(Command::WhatIf(crate::app::whatif::Cmd::Disrupt { .. }))
        ));
        assert_eq!(accept("tie"), Ok(Command::Show(View::Tiers)));
    }

    #[test]
    fn namespace_contexts_and_unknown_views() {
        assert_eq!(
            parse("ns shop"),
            Some(Command::Namespace(Some("shop".into())))
        );
        assert_eq!(
            parse("namespace shop"),
            Some(Command::Namespace(Some("shop".into())))
        );
        assert_eq!(parse("ns"), Some(Command::Namespace(None)));
        assert_eq!(parse("ns all"), Some(Command::Namespace(None)));
        assert_eq!(parse("ctx"), Some(Command::Contexts));
        assert_eq!(
            parse("ctx staging"),
            Some(Command::UseContext("staging".into()))
        );
        assert_eq!(parse("ns -A"), Some(Command::Namespace(None)));
        for typed in ["deploy", "svc"] {
            let mut p = Palette::open(&[]);
            for c in typed.chars() {
                p.type_char(c);
            }
            let e = p.accept().expect_err(typed);
            assert!(
                e.starts_with(&format!(
                    "unknown view \"{typed}\"; views are: overview (1)"
                )),
                "{e}"
            );
        }
    }
}
