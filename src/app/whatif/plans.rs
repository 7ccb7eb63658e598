//! Text for the What-if answers: what changed since the previous answer,
//! the replica plan and the disruption plan, as styled report lines.

use crate::engine::disruption::{DisruptionPlan, Tally};
use crate::engine::replicas::{DomainCounts, ReplicaPlan};
use crate::engine::scenario::{ScenarioRun, Step};
use crate::engine::{Outcome, Placement};
use crate::model::pod::WhenUnsatisfiable;
use crate::model::{Cluster, Pod};

use crate::app::report::{Line, Tone, outcome_tone};

/// What the change summary compares between two answers.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Summary {
    pub outcome: Outcome,
    pub node: Option<String>,
    pub feasible: usize,
    pub victims: Vec<String>,
}

pub fn summary(cluster: &Cluster, p: &Placement) -> Summary {
    let victims = p
        .preemption
        .as_ref()
        .filter(|_| p.outcome == Outcome::Preempt)
        .map(|pre| pre.victims.iter().map(|&v| cluster.pod_key(v)).collect())
        .unwrap_or_default();
    Summary {
        outcome: p.outcome,
        node: p.node.map(|n| cluster.node(n).name.to_string()),
        feasible: p.feasible.len(),
        victims,
    }
}

pub fn outcome_word(o: Outcome) -> &'static str {
    match o {
        Outcome::Scheduled => "SCHEDULED",
        Outcome::Preempt => "PREEMPT",
        Outcome::Unschedulable => "UNSCHEDULABLE",
        Outcome::Rejected => "REJECTED",
        Outcome::Gated => "GATED",
        Outcome::WaitingForClaims => "WAITING FOR CLAIMS",
        Outcome::NoProfile => "NO PROFILE",
    }
}

fn list(names: &[String]) -> String {
    const SHOWN: usize = 4;
    let mut s = names
        .iter()
        .take(SHOWN)
        .cloned()
        .collect::<Vec<_>>()
        .join(", ");
    if names.len() > SHOWN {
        s.push_str(&format!(" +{} more", names.len() - SHOWN));
    }
    s
}

/// What changed from `before` to `after`, one line per difference.
pub fn changes(before: &Summary, after: &Summary) -> Vec<Line> {
    let mut out = Vec::new();
    let mut push = |tone, text: String| out.push(Line { tone, text });
    if before.outcome != after.outcome {
        push(
            outcome_tone(after.outcome),
            format!(
                "outcome {} → {}",
                outcome_word(before.outcome),
                outcome_word(after.outcome)
            ),
        );
    }
    if before.node != after.node {
        let n = |n: &Option<String>| n.clone().unwrap_or_else(|| "(none)".into());
        push(
            Tone::Text,
            format!("chosen node {} → {}", n(&before.node), n(&after.node)),
        );
    }
    if before.feasible != after.feasible {
        push(
            Tone::Text,
            format!("feasible nodes {} → {}", before.feasible, after.feasible),
        );
    }
    let added: Vec<String> = after
        .victims
        .iter()
        .filter(|v| !before.victims.contains(v))
        .cloned()
        .collect();
    let removed: Vec<String> = before
        .victims
        .iter()
        .filter(|v| !after.victims.contains(v))
        .cloned()
        .collect();
    if !added.is_empty() {
        push(
            Tone::Bad,
            format!("victims added ({}): {}", added.len(), list(&added)),
        );
    }
    if !removed.is_empty() {
        push(
            Tone::Good,
            format!("victims removed ({}): {}", removed.len(), list(&removed)),
        );
    }
    if out.is_empty() {
        out.push(Line {
            tone: Tone::Muted,
            text: "no change in outcome, node, feasible nodes or victims".into(),
        });
    }
    out
}

/// Domains named one by one up to this many; past it (a hostname
/// constraint has one per node) the line names the emptiest and the
/// fullest, which make the skew.
const DOMAINS_NAMED: usize = 16;

fn domains_text(d: &DomainCounts) -> String {
    if d.counts.len() > DOMAINS_NAMED
        && let Some((fewest, fewest_n)) = d.counts.iter().min_by_key(|(_, n)| *n)
        && let Some((most, most_n)) = d.counts.iter().max_by_key(|(_, n)| *n)
    {
        return format!(
            "{} domains, fewest {fewest}={fewest_n}, most {most}={most_n}",
            d.counts.len()
        );
    }
    d.counts
        .iter()
        .map(|(v, n)| format!("{v}={n}"))
        .collect::<Vec<_>>()
        .join(" ")
}

fn first_line(text: &str, width: usize) -> String {
    let t = text.lines().next().unwrap_or("");
    crate::app::format::truncate(t, width)
}

/// Why a placement did not land, in one line.
fn why_not(p: &Placement) -> String {
    if let Some(r) = &p.rejection {
        return r.clone();
    }
    if !p.message.is_empty() {
        return p.message.clone();
    }
    p.preemption
        .as_ref()
        .map(|pre| pre.message.clone())
        .unwrap_or_default()
}

/// `:replicas max`: the table's wording, one report line per row (the
/// count lines are headings, the rest text).
pub fn capacity_lines(
    cluster: &Cluster,
    pod: &Pod,
    runs: &[crate::engine::replicas::Capacity],
) -> Vec<Line> {
    let key = format!("{}/{}", cluster.interner.resolve(pod.namespace), pod.name);
    crate::report::table::render_capacity(&key, runs, 12)
        .lines()
        .filter(|l| !l.starts_with("kube-scheduler "))
        .map(|l| Line {
            tone: if l.starts_with("  w") || l.starts_with("How") {
                Tone::Heading
            } else {
                Tone::Text
            },
            text: l.to_string(),
        })
        .collect()
}

/// A DaemonSet draft's replicas: one row per daemon pod (pinned to its
/// node: placed, or why not, and its victims), then the nodes the
/// controller skips.
pub fn daemon_lines(
    cluster: &Cluster,
    pod: &Pod,
    daemon: &crate::engine::daemonset::DaemonPlan,
) -> Vec<Line> {
    let mut out = Vec::new();
    let mut push = |tone, text: String| out.push(Line { tone, text });
    let plan = &daemon.plan;
    let eligible = &daemon.eligibility.eligible;
    let placed = plan.placed();
    push(
        Tone::Heading,
        format!(
            "DaemonSet pods of {}/{}: one per eligible node, {} of {} nodes; {placed} placed (on a fork; the snapshot is unchanged)",
            cluster.interner.resolve(pod.namespace),
            pod.name,
            eligible.len(),
            cluster.nodes.len()
        ),
    );
    push(
        Tone::TableHeader,
        format!(
            "  {:>3}  {:<36} {:<14} {:<24} {}",
            "#", "POD", "OUTCOME", "PINNED TO", "VICTIMS / WHY NOT"
        ),
    );
    for (s, &node) in plan.steps.iter().zip(eligible) {
        let p = &s.placement;
        let detail = match p.outcome {
            Outcome::Scheduled => "-".to_string(),
            Outcome::Preempt => p
                .preemption
                .as_ref()
                .map(|pre| {
                    pre.victims
                        .iter()
                        .map(|&v| plan.cluster.pod_key(v))
                        .collect::<Vec<_>>()
                        .join(", ")
                })
                .unwrap_or_default(),
            _ => first_line(&why_not(p), 160),
        };
        push(
            outcome_tone(p.outcome),
            format!(
                "  {:>3}  {:<36} {:<14} {:<24} {detail}",
                s.replica,
                crate::app::format::truncate(&s.name, 36),
                outcome_word(p.outcome),
                cluster.node(node).name
            ),
        );
    }
    push(Tone::Text, String::new());
    if placed == plan.steps.len() {
        push(Tone::Good, format!("All {placed} daemon pod(s) placed."));
    } else {
        push(
            Tone::Bad,
            format!(
                "{placed} of {} daemon pods placed; {} cannot be placed",
                plan.steps.len(),
                plan.steps.len() - placed
            ),
        );
    }
    if !daemon.eligibility.not_eligible.is_empty() {
        push(
            Tone::Heading,
            "No daemon pod (the DaemonSet controller skips the node):".into(),
        );
        for (node, why) in &daemon.eligibility.not_eligible {
            push(Tone::Text, format!("  {}: {why}", cluster.node(*node).name));
        }
    }
    out
}

pub fn replica_lines(cluster: &Cluster, pod: &Pod, n: usize, plan: &ReplicaPlan) -> Vec<Line> {
    let mut out = Vec::new();
    let mut push = |tone, text: String| out.push(Line { tone, text });
    let placed = plan.placed();
    push(
        Tone::Heading,
        format!(
            "{n} replica(s) of {}/{} asked: {placed} placed (on a fork; the snapshot is unchanged)",
            cluster.interner.resolve(pod.namespace),
            pod.name
        ),
    );
    push(
        Tone::TableHeader,
        format!(
            "  {:>3}  {:<36} {:<14} {:<24} {}",
            "#", "REPLICA", "OUTCOME", "NODE", "VICTIMS"
        ),
    );
    for s in &plan.steps {
        let p = &s.placement;
        let node = p
            .node
            .map(|id| cluster.node(id).name.to_string())
            .unwrap_or_else(|| "-".into());
        let victims = p
            .preemption
            .as_ref()
            .filter(|_| p.outcome == Outcome::Preempt)
            .map(|pre| pre.victims.len().to_string())
            .unwrap_or_else(|| "-".into());
        push(
            outcome_tone(p.outcome),
            format!(
                "  {:>3}  {:<36} {:<14} {:<24} {victims}",
                s.replica,
                crate::app::format::truncate(&s.name, 36),
                outcome_word(p.outcome),
                node
            ),
        );
    }
    push(Tone::Text, String::new());
    match plan.first_unplaceable {
        Some(i) => {
            let why = plan
                .steps
                .get(i - 1)
                .map(|s| why_not(&s.placement))
                .unwrap_or_default();
            let rest = if i < n {
                " (the rest were not tried)"
            } else {
                ""
            };
            push(
                Tone::Bad,
                format!(
                    "{} of {n} replicas placed; replica {i} cannot be placed{rest}",
                    i - 1
                ),
            );
            push(Tone::Bad, format!("  {}", first_line(&why, 160)));
        }
        None => push(Tone::Good, format!("All {n} replica(s) placed.")),
    }
    let preemptions: Vec<_> = plan
        .steps
        .iter()
        .filter(|s| s.placement.outcome == Outcome::Preempt)
        .collect();
    if !preemptions.is_empty() {
        push(Tone::Text, String::new());
        push(Tone::Heading, "Preemptions on the way".into());
        for s in preemptions {
            let pre = s.placement.preemption.as_ref();
            let node = s
                .placement
                .node
                .map(|id| cluster.node(id).name.to_string())
                .unwrap_or_default();
            let victims: Vec<String> = pre
                .map(|p| p.victims.iter().map(|&v| cluster.pod_key(v)).collect())
                .unwrap_or_default();
            push(
                Tone::Warn,
                format!(
                    "  #{} on {node} evicts {}: {}",
                    s.replica,
                    victims.len(),
                    victims.join(", ")
                ),
            );
        }
    }
    if pod.spread_constraints.is_empty() {
        push(Tone::Text, String::new());
        push(
            Tone::Muted,
            "No topology spread constraint: add one in the form to see the counts per domain."
                .into(),
        );
    } else {
        push(Tone::Text, String::new());
        push(
            Tone::Heading,
            "Matching pods per domain after each replica".into(),
        );
        for (ci, c) in pod.spread_constraints.iter().enumerate() {
            push(
                Tone::TableHeader,
                format!(
                    "  constraint [{ci}] {} maxSkew {} ({:?})",
                    cluster.interner.resolve(c.topology_key),
                    c.max_skew,
                    c.when_unsatisfiable
                ),
            );
            for (step, domains) in plan.domains_after.iter().enumerate() {
                let Some(d) = domains.get(ci) else { continue };
                let skew = d.skew();
                let tone = match (
                    skew > c.max_skew as i64,
                    c.when_unsatisfiable == WhenUnsatisfiable::DoNotSchedule,
                ) {
                    (false, _) => Tone::Text,
                    (true, true) => Tone::Bad,
                    (true, false) => Tone::Warn,
                };
                push(
                    tone,
                    format!(
                        "    after #{}: {}   skew {skew} / maxSkew {}",
                        step + 1,
                        domains_text(d),
                        c.max_skew
                    ),
                );
            }
        }
    }
    out
}

/// `a, b, c +2 more`.
fn names_capped(names: &[String], cap: usize) -> String {
    let mut text = names
        .iter()
        .take(cap)
        .cloned()
        .collect::<Vec<_>>()
        .join(", ");
    if names.len() > cap {
        text.push_str(&format!(" +{} more", names.len() - cap));
    }
    text
}

/// One displaced pod of a drain or zone plan: a row of the table the
/// What-if view draws (its columns are sized at draw time, from the rows
/// shown and the pane's width).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct DrainRow {
    pub tone: Tone,
    /// `namespace/name`.
    pub pod: String,
    pub from: String,
    /// Where it would go: the node it lands on (`Some`), else the outcome
    /// in capitals (`UNSCHEDULABLE`, `NOT RECREATED`) in `outcome`.
    pub node: Option<String>,
    pub outcome: String,
    /// The pods evicted to make room, or why it does not land, and the pod
    /// whose re-placement evicted it, if one did.
    pub detail: String,
}

/// A drain or zone plan: heading lines, one row per displaced pod (in
/// queue order), then the reasons, PDBs and skew under it.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct DisruptionTable {
    pub head: Vec<Line>,
    pub rows: Vec<DrainRow>,
    pub tail: Vec<Line>,
}

impl DisruptionTable {
    /// Every line of the plan as text, one per heading line, the column
    /// headings, one per pod row, one per note: what `/` searches, and the
    /// positions the What-if scroll counts in.
    pub fn lines(&self) -> Vec<Line> {
        let mut out = Vec::with_capacity(self.line_count());
        out.extend(self.head.iter().cloned());
        if !self.rows.is_empty() {
            out.push(Line {
                tone: Tone::TableHeader,
                text: DRAIN_COLUMNS.join(" "),
            });
        }
        out.extend(self.rows.iter().map(|r| Line {
            tone: r.tone,
            text: format!(
                "{} {} {} {}",
                r.pod,
                r.from,
                r.node.as_ref().map_or(r.outcome.clone(), |n| format!("→ {n}")),
                r.detail
            ),
        }));
        out.extend(self.tail.iter().cloned());
        out
    }

    /// How many [`DisruptionTable::lines`] there are, without building them.
    pub fn line_count(&self) -> usize {
        self.head.len() + usize::from(!self.rows.is_empty()) + self.rows.len() + self.tail.len()
    }
}

/// The column headings of [`DisruptionTable::rows`].
pub const DRAIN_COLUMNS: [&str; 4] = ["POD", "FROM", "→ TO", "VICTIMS / WHY NOT"];

/// `cluster` names what the plan's symbols stand for: the plan's own fork,
/// or any cluster forked from the same snapshot (they share the strings).
pub fn disruption_table(cluster: &Cluster, step: &Step, plan: &DisruptionPlan) -> DisruptionTable {
    let title = step.title();
    let mut head = vec![Line {
        tone: Tone::Heading,
        text: format!(
            "{title}: {} node(s), {} (on a fork; the snapshot is unchanged)",
            plan.affected_nodes.len(),
            tally_text(&plan.tally())
        ),
    }];
    if plan.displaced.is_empty() {
        let why = match step {
            Step::LoseZone(_) => "these nodes ran no pods",
            Step::CordonZone(_) | Step::Drain(_) => "these nodes only stop taking new pods",
        };
        head.push(Line {
            tone: Tone::Muted,
            text: format!("  nothing moves: {why} (a draft, and any step after this one, is answered without them)"),
        });
    } else {
        head.push(Line {
            tone: Tone::Heading,
            text: "Displaced pods, in queue order".into(),
        });
    }
    // Why pods do not land, each reason once with how many it stops; and
    // why pods are not recreated, the same way (a row's reason column is
    // cut in a narrow pane; the notes under the table give it whole).
    let mut reasons: Vec<(String, usize)> = Vec::new();
    let mut not_recreated: Vec<(String, usize)> = Vec::new();
    let count = |reasons: &mut Vec<(String, usize)>, why: &str| match reasons
        .iter_mut()
        .find(|(m, _)| m == why)
    {
        Some((_, n)) => *n += 1,
        None => reasons.push((why.to_string(), 1)),
    };
    // Each preemption on the way with every victim, for the notes (a row
    // names at most four, and a narrow pane cuts them).
    let mut preemptions: Vec<String> = Vec::new();
    let mut rows = Vec::with_capacity(plan.displaced.len());
    for d in &plan.displaced {
        let (tone, node, outcome, detail) = match (&d.not_recreated, &d.landing) {
            (Some(why), _) => {
                count(&mut not_recreated, why);
                (Tone::Muted, None, "NOT RECREATED".to_string(), why.clone())
            }
            (None, Some(l)) => match (l.outcome, &l.node) {
                (Outcome::Scheduled, Some(n)) => {
                    (Tone::Good, Some(n.clone()), String::new(), "-".into())
                }
                (Outcome::Preempt, Some(n)) => {
                    preemptions.push(format!(
                        "  {} → {n} evicts {}: {}",
                        d.pod,
                        l.victims.len(),
                        l.victims.join(", ")
                    ));
                    (
                        Tone::Warn,
                        Some(n.clone()),
                        String::new(),
                        format!(
                            "evicts {}: {}",
                            l.victims.len(),
                            names_capped(&l.victims, 4)
                        ),
                    )
                }
                (o, _) => {
                    let why = l.message.trim().to_string();
                    count(&mut reasons, &why);
                    (
                        Tone::Bad,
                        None,
                        outcome_word(o).to_string(),
                        why.lines().next().unwrap_or("").to_string(),
                    )
                }
            },
            (None, None) => (Tone::Muted, None, "-".to_string(), "-".into()),
        };
        let detail = match &d.evicted_by {
            Some(by) if detail == "-" => format!("evicted for {by}"),
            Some(by) => format!("evicted for {by}; {detail}"),
            None => detail,
        };
        rows.push(DrainRow {
            tone,
            pod: d.pod.clone(),
            from: d.from_node.clone(),
            node,
            outcome,
            detail,
        });
    }
    let mut out = Vec::new();
    let mut push = |tone, text: String| out.push(Line { tone, text });
    if plan.cancelled {
        push(
            Tone::Warn,
            format!(
                "cancelled: {} pod(s) placed before esc; the rest are not shown",
                plan.displaced.len()
            ),
        );
    }
    if !reasons.is_empty() {
        const SHOWN: usize = 10;
        push(Tone::Text, String::new());
        push(Tone::Heading, "Why pods are not re-placed".into());
        for (why, n) in reasons.iter().take(SHOWN) {
            let why = if why.is_empty() { "(no message)" } else { why };
            push(Tone::Bad, format!("  {n} pod(s): {why}"));
        }
        if reasons.len() > SHOWN {
            push(
                Tone::Muted,
                format!("  +{} more reasons", reasons.len() - SHOWN),
            );
        }
    }
    if !not_recreated.is_empty() {
        push(Tone::Text, String::new());
        push(Tone::Heading, "Why pods are not recreated".into());
        for (why, n) in &not_recreated {
            push(Tone::Muted, format!("  {n} pod(s): {why}"));
        }
    }
    push(Tone::Text, String::new());
    if plan.broken_pdbs.is_empty() {
        push(Tone::Good, "No PodDisruptionBudget would be broken.".into());
    } else {
        push(
            Tone::Heading,
            format!("PDBs this would break ({})", plan.broken_pdbs.len()),
        );
        for b in &plan.broken_pdbs {
            push(
                Tone::Bad,
                format!(
                    "  {}: allows {} disruption(s), loses {}",
                    b.pdb, b.disruptions_allowed, b.evicted
                ),
            );
        }
    }
    if !plan.workload_skew.is_empty() {
        push(Tone::Text, String::new());
        push(Tone::Heading, "Skew of each affected workload after".into());
        for (w, domains) in &plan.workload_skew {
            push(Tone::Text, format!("  {w}"));
            for d in domains {
                let skew = d.skew();
                let over = skew > d.constraint.max_skew as i64;
                // Past maxSkew is a broken rule under DoNotSchedule, and a
                // preference the scheduler weighed under ScheduleAnyway.
                let hard = d.constraint.when_unsatisfiable == WhenUnsatisfiable::DoNotSchedule;
                push(
                    match (over, hard) {
                        (false, _) => Tone::Muted,
                        (true, true) => Tone::Bad,
                        (true, false) => Tone::Warn,
                    },
                    format!(
                        "    {}: {}   skew {skew} / maxSkew {} ({:?})",
                        cluster.interner.resolve(d.constraint.topology_key),
                        domains_text(d),
                        d.constraint.max_skew,
                        d.constraint.when_unsatisfiable
                    ),
                );
            }
        }
    }
    if !preemptions.is_empty() {
        push(Tone::Text, String::new());
        push(
            Tone::Heading,
            format!(
                "Preemptions on the way ({}), every victim",
                preemptions.len()
            ),
        );
        for line in preemptions {
            push(Tone::Warn, line);
        }
    }
    DisruptionTable {
        head,
        rows,
        tail: out,
    }
}

/// "30013 displaced pod(s) (12 evicted on the way): 25431 re-placed (12
/// by preempting 15 pod(s)), 582 not re-placed, 4000 not recreated", the
/// parts that are zero left out.
fn tally_text(t: &Tally) -> String {
    let mut text = format!("{} displaced pod(s)", t.displaced);
    if t.evicted_on_the_way > 0 {
        text += &format!(" ({} evicted on the way)", t.evicted_on_the_way);
    }
    text += &format!(": {} re-placed", t.landed);
    if t.preempting > 0 {
        text += &format!(" ({} by preempting {} pod(s))", t.preempting, t.victims);
    }
    if t.not_placed > 0 {
        text += &format!(", {} not re-placed", t.not_placed);
    }
    if t.not_recreated > 0 {
        text += &format!(", {} not recreated", t.not_recreated);
    }
    text
}

/// A scenario of stacked steps as one table: a line per step (each ran on
/// the cluster the one before left), every displaced pod of every step in
/// the order they were placed, then each step's reasons, PDBs and skew. A
/// single step reads exactly as [`disruption_table`].
pub fn scenario_table(cluster: &Cluster, run: &ScenarioRun, asked: &[Step]) -> DisruptionTable {
    let mut tables: Vec<DisruptionTable> = run
        .steps
        .iter()
        .map(|s| {
            let mut t = disruption_table(cluster, &s.step, &s.plan);
            if !s.missing_nodes.is_empty() {
                t.head.insert(
                    1,
                    Line {
                        tone: Tone::Warn,
                        text: format!(
                            "  not in the cluster at this step (lost in an earlier one?): {}",
                            s.missing_nodes.join(", ")
                        ),
                    },
                );
            }
            t
        })
        .collect();
    let cancelled = asked.get(run.steps.len()).map(|step| Line {
        tone: Tone::Warn,
        text: format!(
            "cancelled: {} and the steps after it were not run (esc)",
            step.title()
        ),
    });
    if tables.len() == 1 {
        let mut t = tables.remove(0);
        t.head.extend(cancelled);
        return t;
    }
    let mut out = DisruptionTable::default();
    out.head.push(Line {
        tone: Tone::Heading,
        text: format!(
            "Scenario of {} steps, each on the cluster the step before left (:scenario clear starts over)",
            run.steps.len()
        ),
    });
    out.head.extend(cancelled);
    let queue_heading = "Displaced pods, in queue order";
    for (i, t) in tables.iter_mut().enumerate() {
        let mut head = std::mem::take(&mut t.head);
        head.retain(|l| l.text != queue_heading);
        if let Some(first) = head.first_mut() {
            first.text = format!("{}. {}", i + 1, first.text);
        }
        out.head.extend(head);
    }
    if tables.iter().any(|t| !t.rows.is_empty()) {
        out.head.push(Line {
            tone: Tone::Heading,
            text: format!("{queue_heading}, step after step"),
        });
    }
    for (i, t) in tables.into_iter().enumerate() {
        out.rows.extend(t.rows);
        out.tail.push(Line {
            tone: Tone::Text,
            text: String::new(),
        });
        out.tail.push(Line {
            tone: Tone::Heading,
            text: format!("After step {}: {}", i + 1, run.steps[i].step.title()),
        });
        out.tail.extend(t.tail);
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::intern::Interner;
    use crate::model::labels::LabelSelector;
    use crate::model::pod::{InclusionPolicy, SpreadConstraint, WhenUnsatisfiable};

    fn counts(n: usize) -> DomainCounts {
        DomainCounts {
            constraint: SpreadConstraint {
                max_skew: 1,
                topology_key: Interner::default().intern("kubernetes.io/hostname"),
                when_unsatisfiable: WhenUnsatisfiable::DoNotSchedule,
                selector: LabelSelector::everything(),
                min_domains: None,
                node_affinity_policy: InclusionPolicy::Honor,
                node_taints_policy: InclusionPolicy::Ignore,
                match_label_keys: Box::default(),
            },
            counts: (0..n)
                .map(|i| (format!("node-{i:04}"), (i % 5) as i64))
                .collect(),
        }
    }

    #[test]
    fn a_few_domains_are_each_named_and_many_are_summed_up_by_their_extremes() {
        assert_eq!(
            domains_text(&counts(3)),
            "node-0000=0 node-0001=1 node-0002=2"
        );
        assert_eq!(
            domains_text(&counts(4_000)),
            "4000 domains, fewest node-0000=0, most node-3999=4"
        );
    }
}
