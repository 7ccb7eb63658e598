//! The What-if family of palette commands (`:draft`, `:replicas`,
//! `:cordon`, `:lose`, `:drain`, `:then …`, `:scenario clear`, `:save`,
//! `:load`): parsing and completion.

use crate::engine::scenario::Step;

/// A palette command of the what-if family.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Cmd {
    /// `:draft`: from the selection; `:draft new`: blank.
    Draft {
        blank: bool,
    },
    Replicas,
    /// `:replicas max`: how many more fit.
    ReplicasMax,
    /// `:cordon ZONE`, `:lose ZONE`, `:drain NODE`: a new scenario of one
    /// step; `:then cordon|lose|drain …` adds the step to the scenario.
    Disrupt {
        step: Step,
        then: bool,
    },
    /// `:scenario clear`: back to the snapshot as it is.
    ClearScenario,
    Save(Option<String>),
    /// `:save! PATH`: overwrite.
    SaveOver(String),
    Load(String),
}

/// Parses `draft`, `draft new`, `replicas`, `cordon Z`, `lose Z`,
/// `drain N`, `then cordon|lose|drain …`, `scenario clear`, `save [P]`,
/// `save! P`, `load P`.
pub fn parse_command(s: &str) -> Option<Cmd> {
    let s = s.trim();
    let (head, rest) = s.split_once(' ').unwrap_or((s, ""));
    let rest = rest.trim();
    if head == "then" {
        return match parse_command(rest)? {
            Cmd::Disrupt { step, .. } => Some(Cmd::Disrupt { step, then: true }),
            _ => None,
        };
    }
    let disrupt = |step| Cmd::Disrupt { step, then: false };
    Some(match (head, rest) {
        ("draft", "") => Cmd::Draft { blank: false },
        ("draft", "new") => Cmd::Draft { blank: true },
        ("replicas", "") => Cmd::Replicas,
        ("replicas", "max") => Cmd::ReplicasMax,
        ("cordon", z) if !z.is_empty() => disrupt(Step::CordonZone(z.to_string())),
        ("lose", z) if !z.is_empty() => disrupt(Step::LoseZone(z.to_string())),
        ("drain", n) if !n.is_empty() => disrupt(Step::Drain(
            n.split([',', ' '])
                .filter(|n| !n.is_empty())
                .map(str::to_string)
                .collect(),
        )),
        ("scenario", "clear") => Cmd::ClearScenario,
        ("save" | "w", "") => Cmd::Save(None),
        ("save" | "w", p) => Cmd::Save(Some(p.to_string())),
        ("save!" | "w!", p) if !p.is_empty() => Cmd::SaveOver(p.to_string()),
        ("load", p) if !p.is_empty() => Cmd::Load(p.to_string()),
        _ => return None,
    })
}

/// What a what-if command needs, when `typed` names one without its
/// argument (`lose`, `then`, `drain `, `load`): the palette says so
/// instead of running the first zone it would complete to.
pub fn usage(typed: &str) -> Option<&'static str> {
    let mut words = typed.split_whitespace();
    let mut head = words.next()?;
    let then = head == "then";
    if then {
        let Some(next) = words.next() else {
            return Some(
                "then needs a step: then cordon ZONE, then lose ZONE or then drain NODE[,NODE…] (tab completes the zones)",
            );
        };
        head = next;
    }
    Some(match head {
        "cordon" => "cordon needs a zone: cordon ZONE (tab completes the zones)",
        "lose" => "lose needs a zone: lose ZONE (tab completes the zones)",
        "drain" => "drain needs one or more nodes: drain NODE[,NODE…] (Nodes, 4, lists them)",
        "load" if !then => "load needs a file: load PATH (a draft saved with :save)",
        "save!" | "w!" if !then => "save! needs a file: save! PATH (overwrites it)",
        _ if then => {
            "then needs a step: then cordon ZONE, then lose ZONE or then drain NODE[,NODE…] (tab completes the zones)"
        }
        _ => return None,
    })
}

/// The palette entries of the what-if family (zones for completion).
pub fn palette_commands(zones: &[String]) -> Vec<String> {
    let mut c = vec![
        "draft".to_string(),
        "draft new".to_string(),
        "replicas".to_string(),
        "replicas max".to_string(),
        "save".to_string(),
        "load ".to_string(),
    ];
    for z in zones {
        c.push(format!("cordon {z}"));
        c.push(format!("lose {z}"));
    }
    c.push("drain ".to_string());
    for z in zones {
        c.push(format!("then cordon {z}"));
        c.push(format!("then lose {z}"));
    }
    c.push("then drain ".to_string());
    c.push("scenario clear".to_string());
    c
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn then_adds_a_step_and_plain_commands_start_a_scenario() {
        assert_eq!(
            parse_command("lose eu-1a"),
            Some(Cmd::Disrupt {
                step: Step::LoseZone("eu-1a".into()),
                then: false
            })
        );
        assert_eq!(
            parse_command("then drain a, b"),
            Some(Cmd::Disrupt {
                step: Step::Drain(vec!["a".into(), "b".into()]),
                then: true
            })
        );
        assert_eq!(parse_command("then save x"), None);
        assert_eq!(parse_command("then"), None);
        assert_eq!(parse_command("drain"), None);
        assert_eq!(parse_command("scenario clear"), Some(Cmd::ClearScenario));
    }

    #[test]
    fn a_disruption_without_its_zone_or_nodes_says_what_it_needs() {
        assert!(usage("lose").unwrap().starts_with("lose needs a zone"));
        assert!(
            usage(" cordon ")
                .unwrap()
                .starts_with("cordon needs a zone")
        );
        assert!(
            usage("drain ")
                .unwrap()
                .starts_with("drain needs one or more nodes")
        );
        assert!(usage("then").unwrap().starts_with("then needs a step"));
        assert!(usage("then save").unwrap().starts_with("then needs a step"));
        assert!(usage("then lose").unwrap().starts_with("lose needs a zone"));
        assert!(usage("load").unwrap().starts_with("load needs a file"));
        assert!(usage("then load").unwrap().starts_with("then needs a step"));
        assert_eq!(usage("tiers"), None);
        assert_eq!(usage(""), None);
    }
}
