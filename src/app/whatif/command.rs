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
}
