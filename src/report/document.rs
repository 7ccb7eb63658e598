//! The placement answer for people, worded once: a header (who, which
//! release, the verdict) and a body of sections (why, notes, ranked nodes,
//! failing nodes, preemption, devices), each line with a tone. The table
//! printer (`place -o table`) prints it as plain text; the TUI's Placement
//! and What-if views draw it with the theme's colours, wrapped to the pane.
//! JSON and YAML serialize [`super::answer::PlacementAnswer`] of the same
//! answer; a test holds the three to the same content.

use std::fmt::Write;

use crate::engine::preemption::{Criterion, PreemptionAnswer};
use crate::engine::{NodeFailure, Outcome, Placement};
use crate::model::{Cluster, NodeId};

use super::groups::{FailureGroup, failure_groups};

/// How a line is styled; a renderer decides what that looks like (the
/// theme's colours in the TUI, nothing in plain text).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Tone {
    Heading,
    TableHeader,
    Text,
    Good,
    Warn,
    Bad,
    Muted,
}

/// One paragraph: renderers wrap it to their width (the TUI) or print it
/// as one line (the table printer).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Line {
    pub tone: Tone,
    pub text: String,
}

#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Document {
    /// Who, which release, the verdict: always visible in the TUI.
    pub header: Vec<Line>,
    /// The sections, each starting with a `Heading` line.
    pub body: Vec<Line>,
    /// Indexes of header lines that explain rather than answer (whether
    /// the pod is bound or pending): a pane short of rows leaves them out
    /// before it shrinks the body.
    pub asides: Vec<usize>,
}

impl Document {
    /// The document as plain text, one line per paragraph, control
    /// characters from the cluster's objects escaped.
    pub fn to_text(&self) -> String {
        let mut out = String::new();
        for line in &self.header {
            out.push_str(&line.text);
            out.push('\n');
        }
        if !self.body.is_empty() {
            out.push('\n');
        }
        for line in &self.body {
            out.push_str(&line.text);
            out.push('\n');
        }
        super::escape_controls(&out).into_owned()
    }
}

/// How much of long lists to show.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Limits {
    /// Rows of a table (ranked nodes, candidates, device nodes); 0 = all.
    pub rows: usize,
    /// Node names listed per failure reason or tie; 0 = all.
    pub names: usize,
}

impl Limits {
    /// `--limit N` of the CLI: N rows, and at most 8 names per reason.
    pub fn cli(limit: usize) -> Self {
        Limits {
            rows: limit,
            names: if limit == 0 { 0 } else { limit.min(8) },
        }
    }
    /// A scrolling view: every ranked node, six names per reason.
    pub const VIEW: Limits = Limits { rows: 0, names: 6 };

    fn cap(n: usize, limit: usize) -> usize {
        if limit == 0 { n } else { n.min(limit) }
    }
}

/// Node names are padded to the longest shown, up to this; longer ones
/// keep their distinguishing end.
const NODE_COLUMN: usize = 40;

/// Pod keys in the victims table, likewise.
const POD_COLUMN: usize = 56;

/// `kube-scheduler v1.33 rules (the API server reports v1.33.4)`: which
/// release answered, and why that one.
pub fn scheduler_line(scheduler: &crate::engine::VersionChoice) -> String {
    format!(
        "kube-scheduler {} rules ({})",
        scheduler.version,
        scheduler.reason()
    )
}

/// `SCHEDULED → worker-3 (…)`: the outcome in one line.
pub fn verdict(cluster: &Cluster, p: &Placement) -> String {
    let name = |n: Option<NodeId>| {
        n.map(|n| cluster.node(n).name.to_string())
            .unwrap_or_default()
    };
    match p.outcome {
        Outcome::Scheduled => {
            let ties = if p.best.len() > 1 {
                "; the scheduler picks one of the tied at random"
            } else {
                ""
            };
            format!(
                "SCHEDULED → {} ({} feasible node(s) of {}, {} with the top score{ties})",
                name(p.node),
                p.feasible.len(),
                cluster.nodes.len(),
                p.best.len()
            )
        }
        Outcome::Preempt => {
            let victims = p.preemption.as_ref().map_or(0, |pr| pr.victims.len());
            format!(
                "PREEMPT → {} after evicting {victims} pod(s); no node fits as is",
                name(p.node)
            )
        }
        Outcome::Unschedulable => {
            "UNSCHEDULABLE: no node fits and preemption cannot help".to_string()
        }
        Outcome::Rejected => format!(
            "REJECTED at admission: {}",
            p.rejection.as_deref().unwrap_or("")
        ),
        Outcome::Gated => format!(
            "GATED: {}; the scheduler does not attempt the pod",
            p.message
        ),
        Outcome::WaitingForClaims => format!(
            "WAITING FOR CLAIMS: {}; the scheduler does not attempt the pod until its ResourceClaims exist",
            p.message
        ),
        Outcome::NoProfile => format!(
            "NO PROFILE: {}; no scheduler of this configuration picks the pod up",
            p.message
        ),
    }
}

pub fn outcome_tone(outcome: Outcome) -> Tone {
    match outcome {
        Outcome::Scheduled => Tone::Good,
        Outcome::Preempt => Tone::Warn,
        Outcome::Unschedulable
        | Outcome::Rejected
        | Outcome::Gated
        | Outcome::WaitingForClaims
        | Outcome::NoProfile => Tone::Bad,
    }
}

/// Lines under construction.
#[derive(Default)]
struct Lines(Vec<Line>);

impl Lines {
    fn push(&mut self, tone: Tone, text: impl Into<String>) {
        self.0.push(Line {
            tone,
            text: text.into(),
        });
    }
    fn blank(&mut self) {
        if self.0.last().is_some_and(|l| !l.text.is_empty()) {
            self.push(Tone::Text, "");
        }
    }
}

/// The answer for `p`. `bound` says whether the pod is a bound pod of the
/// cluster (Some(true)), a pending one (Some(false)) or a pod from outside
/// it (None), which decides how the answer is introduced.
pub fn placement(
    cluster: &Cluster,
    p: &Placement,
    bound: Option<bool>,
    limits: Limits,
) -> Document {
    let mut header = Lines::default();
    header.push(Tone::Muted, scheduler_line(&p.scheduler));
    if let Some(line) = p
        .profile_line()
        .filter(|_| p.profile.as_ref().is_some_and(|pr| pr.configured))
    {
        header.push(Tone::Muted, line);
    }
    let class = p
        .priority_class
        .as_deref()
        .map(|c| format!(" ({c})"))
        .unwrap_or_default();
    let priority = p.priority.map_or_else(|| "-".into(), |v| v.to_string());
    header.push(
        Tone::Heading,
        format!(
            "Pod {}   priority {priority}{class}   preemptionPolicy {}",
            p.pod,
            p.preemption_policy.as_str()
        ),
    );
    header.push(outcome_tone(p.outcome), verdict(cluster, p));
    if let Some(ungated) = p
        .if_ungated
        .as_deref()
        .filter(|_| p.outcome == Outcome::Gated)
    {
        // The scheduler never attempts a gated pod; what it would do once
        // the gates are removed is the engine's answer for the ungated pod.
        let inner = placement(cluster, ungated, None, limits);
        let mut body = Lines::default();
        notes(&mut body, p);
        body.push(Tone::Heading, "Once its scheduling gates are removed");
        for mut l in inner
            .header
            .into_iter()
            .skip_while(|l| l.tone != Tone::Heading)
            .skip(1)
        {
            l.text = format!("  {}", l.text);
            body.0.push(l);
        }
        body.blank();
        body.0.extend(inner.body);
        return Document {
            header: header.0,
            body: body.0,
            asides: Vec::new(),
        };
    }
    let mut asides = Vec::new();
    if bound.is_some() {
        asides.push(header.0.len());
    }
    match bound {
        Some(true) => header.push(
            Tone::Muted,
            "The pod is bound; this is where it would go if it were rescheduled now.",
        ),
        Some(false) => header.push(
            Tone::Muted,
            "The pod is pending; this is why, and what the scheduler would do.",
        ),
        None => {}
    }

    let mut out = Lines::default();
    if !p.message.is_empty() {
        out.push(
            Tone::Heading,
            "Why (the scheduler's message, as kubectl describe pod shows it)",
        );
        out.push(Tone::Bad, format!("  {}", p.message));
        if let Some(pr) = p.preemption.as_ref().filter(|pr| !pr.message.is_empty()) {
            out.push(Tone::Bad, format!("  {}", pr.message));
        }
        out.blank();
    }
    notes(&mut out, p);
    ranked_nodes(&mut out, cluster, p, limits);
    failing_nodes(
        &mut out,
        cluster,
        &p.failures,
        "Failing nodes by reason",
        limits,
    );
    if let Some(pr) = &p.preemption {
        preemption(&mut out, cluster, pr, limits);
    }
    devices(&mut out, cluster, p, limits);
    if super::answer::evaluated(p.outcome) {
        out.push(Tone::Heading, "How kplace answers");
        out.push(
            Tone::Muted,
            format!(
                "  kplace evaluates all {} nodes. kube-scheduler stops filtering once it has found {} feasible nodes (percentageOfNodesToScore) and dry-runs preemption on a random sample of candidates, so on large clusters it may pick another of the equally good nodes.",
                cluster.nodes.len(),
                p.upstream_nodes_to_find
            ),
        );
    }
    while out.0.last().is_some_and(|l| l.text.is_empty()) {
        out.0.pop();
    }
    Document {
        header: header.0,
        body: out.0,
        asides,
    }
}

fn notes(out: &mut Lines, p: &Placement) {
    if !p.notes.is_empty() {
        out.push(Tone::Heading, "Notes");
        for n in &p.notes {
            out.push(Tone::Warn, format!("  • {n}"));
        }
        out.blank();
    }
}

/// `name` padded or cut to `width`, keeping its end (where node names
/// differ: `…pool-1-7afe63`).
fn column(name: &str, width: usize) -> String {
    let n = name.chars().count();
    if n <= width {
        return format!("{name:<width$}");
    }
    let tail: String = name.chars().skip(n - (width - 1)).collect();
    format!("…{tail}")
}

fn width_of<'a>(names: impl Iterator<Item = &'a str>, title: &str, max: usize) -> usize {
    names
        .map(|n| n.chars().count())
        .max()
        .unwrap_or(0)
        .max(title.len())
        .min(max)
}

fn more(out: &mut Lines, hidden: usize, indent: &str) {
    if hidden > 0 {
        out.push(
            Tone::Muted,
            format!("{indent}… {hidden} more (use --limit 0 for all)"),
        );
    }
}

fn ranked_nodes(out: &mut Lines, cluster: &Cluster, p: &Placement, limits: Limits) {
    if p.scores.is_empty() {
        return;
    }
    let mut ranked: Vec<_> = p.scores.iter().collect();
    ranked.sort_by(|a, b| {
        b.total
            .cmp(&a.total)
            .then_with(|| cluster.node(a.node).name.cmp(&cluster.node(b.node).name))
    });
    let shown = Limits::cap(ranked.len(), limits.rows);
    let width = width_of(
        ranked[..shown].iter().map(|s| &*cluster.node(s.node).name),
        "NODE",
        NODE_COLUMN,
    );
    out.push(
        Tone::Heading,
        format!(
            "Ranked nodes ({} feasible, best first; weighted points per score plugin)",
            ranked.len()
        ),
    );
    let plugins = p.score_plugins();
    // A plugin that gave every feasible node 0 (one PreScore skipped, or
    // that nothing in the cluster moves) gets no column, only a mention:
    // eight 8-wide columns wrapped every row of an 80-column terminal.
    let scored: Vec<bool> = (0..plugins.len())
        .map(|i| {
            ranked
                .iter()
                .any(|s| s.plugins.get(i).is_some_and(|&v| v != 0))
        })
        .collect();
    let widths: Vec<usize> = plugins
        .iter()
        .enumerate()
        .map(|(i, (plugin, _))| {
            ranked[..shown]
                .iter()
                .filter_map(|s| s.plugins.get(i))
                .map(|v| v.to_string().len())
                .max()
                .unwrap_or(0)
                .max(plugin.short_name().len())
        })
        .collect();
    let mut header = format!("  {:>4}  {:<width$}  {:>6}", "#", "NODE", "TOTAL");
    for (i, (plugin, _)) in plugins.iter().enumerate() {
        if scored[i] {
            let _ = write!(header, "  {:>w$}", plugin.short_name(), w = widths[i]);
        }
    }
    out.push(Tone::TableHeader, header);
    for (rank, s) in ranked[..shown].iter().enumerate() {
        let best = p.best.contains(&s.node);
        let mut row = format!(
            "  {:>4}  {}  {:>6}",
            rank + 1,
            column(&cluster.node(s.node).name, width),
            s.total
        );
        for (i, v) in s.plugins.iter().enumerate() {
            if scored.get(i).copied().unwrap_or(true) {
                let _ = write!(row, "  {v:>w$}", w = widths.get(i).copied().unwrap_or(8));
            }
        }
        if Some(s.node) == p.node {
            row.push_str("  ← kplace's pick");
        } else if best {
            row.push_str("  (tied best)");
        }
        out.push(if best { Tone::Good } else { Tone::Text }, row);
    }
    more(out, ranked.len() - shown, "  ");
    let legend: Vec<String> = plugins
        .iter()
        .map(|(plugin, weight)| format!("{}={}×{weight}", plugin.short_name(), plugin.as_str()))
        .collect();
    out.push(Tone::Muted, format!("  weights: {}", legend.join("  ")));
    let unscored: Vec<&str> = plugins
        .iter()
        .zip(&scored)
        .filter(|(_, scored)| !**scored)
        .map(|((plugin, _), _)| plugin.short_name())
        .collect();
    if !unscored.is_empty() {
        out.push(
            Tone::Muted,
            format!(
                "  0 on every feasible node (no column): {}",
                unscored.join(", ")
            ),
        );
    }
    out.blank();
}

/// `names` joined, at most `limit` (0 = all), then "… +N more".
fn name_list(names: &[String], limit: usize) -> String {
    let shown = Limits::cap(names.len(), limit);
    let mut text = names[..shown].join(", ");
    if shown < names.len() {
        let _ = write!(text, ", … +{} more", names.len() - shown);
    }
    text
}

/// Failing nodes grouped by plugin and reason, largest group first.
fn failing_nodes(
    out: &mut Lines,
    cluster: &Cluster,
    failures: &[NodeFailure],
    title: &str,
    limits: Limits,
) {
    if failures.is_empty() {
        return;
    }
    out.push(
        Tone::Heading,
        format!("{title} ({} node(s))", failures.len()),
    );
    for FailureGroup {
        reason,
        plugin,
        code,
        nodes,
    } in failure_groups(failures)
    {
        out.push(Tone::Bad, format!("  {:>5}  {reason}", nodes.len()));
        out.push(Tone::Muted, format!("         {plugin} · {code}"));
        let names: Vec<String> = nodes
            .iter()
            .take(Limits::cap(nodes.len(), limits.names))
            .map(|&n| cluster.node(n).name.to_string())
            .collect();
        let mut text = names.join(", ");
        if names.len() < nodes.len() {
            let _ = write!(text, ", … +{} more", nodes.len() - names.len());
        }
        out.push(Tone::Text, format!("         {text}"));
    }
    out.blank();
}

fn preemption(out: &mut Lines, cluster: &Cluster, pr: &PreemptionAnswer, limits: Limits) {
    let name = |n: NodeId| cluster.node(n).name.to_string();
    out.push(Tone::Heading, "Preemption");
    if !pr.eligible {
        out.push(
            Tone::Bad,
            format!(
                "  {}",
                super::not_eligible(pr.ineligible_reason.as_deref().unwrap_or(""))
            ),
        );
        out.blank();
        return;
    }
    match pr.node {
        Some(node) => {
            let others: Vec<String> = pr
                .chosen_nodes
                .iter()
                .filter(|&&n| n != node)
                .map(|&n| name(n))
                .collect();
            let tie = if others.is_empty() {
                String::new()
            } else {
                format!(
                    " (an exact tie with {}; the scheduler picks one of them)",
                    name_list(&others, limits.names)
                )
            };
            out.push(Tone::Warn, format!("  nominated node: {}{tie}", name(node)));
        }
        None => out.push(
            Tone::Bad,
            "  no node where evicting lower-priority pods would make room",
        ),
    }
    if pr.potential_nodes > pr.upstream_sample {
        out.push(
            Tone::Muted,
            format!(
                "  kplace dry-ran all {} potential node(s); the scheduler samples {} of them at random, so it may nominate another node.",
                pr.potential_nodes, pr.upstream_sample
            ),
        );
    } else {
        out.push(
            Tone::Muted,
            format!(
                "  kplace dry-ran all {} potential node(s), as the scheduler does.",
                pr.potential_nodes
            ),
        );
    }
    if let (Some(t), Some(node)) = (&pr.termination, pr.node) {
        out.blank();
        out.push(
            Tone::Heading,
            format!("Victims on {} ({})", name(node), t.victims.len()),
        );
        let keys: Vec<String> = t.victims.iter().map(|v| cluster.pod_key(v.pod)).collect();
        let width = width_of(keys.iter().map(String::as_str), "POD", POD_COLUMN);
        out.push(
            Tone::TableHeader,
            format!(
                "  {:<width$}  {:>11}  {:>6}  {:>6}  {:>7}  {:<16}  PDB BROKEN",
                "POD", "PRIORITY", "GRACE", "MAX", "PRESTOP", "STATEFULSET"
            ),
        );
        for (v, key) in t.victims.iter().zip(&keys) {
            out.push(
                if v.violated_pdbs.is_empty() {
                    Tone::Text
                } else {
                    Tone::Bad
                },
                format!(
                    "  {}  {:>11}  {:>6}  {:>6}  {:>7}  {:<16}  {}",
                    column(key, width),
                    cluster.pod(v.pod).priority_value(),
                    seconds(v.grace_seconds),
                    seconds(v.max_seconds),
                    if v.has_pre_stop { "yes" } else { "-" },
                    v.stateful_set.as_deref().unwrap_or("-"),
                    if v.violated_pdbs.is_empty() {
                        "-".to_string()
                    } else {
                        v.violated_pdbs.join(", ")
                    }
                ),
            );
        }
        let slowest = t
            .slowest
            .map(|id| format!(" (slowest: {})", cluster.pod_key(id)))
            .unwrap_or_default();
        out.push(
            Tone::Warn,
            format!(
                "  earliest bind: {} after the evictions{slowest}, plus ~{}-{} s for the kubelet to report and the scheduler's retry backoff",
                seconds(t.earliest_bind_seconds),
                crate::engine::termination::PROPAGATION_SECONDS.0,
                crate::engine::termination::PROPAGATION_SECONDS.1
            ),
        );
        if t.victims.iter().any(|v| v.stateful_set.is_some()) {
            out.push(
                Tone::Muted,
                "  StatefulSet victims are replaced only after they are fully gone (at most one pod per identity).",
            );
        }
        if t.victims.iter().any(|v| !v.violated_pdbs.is_empty()) {
            out.push(
                Tone::Muted,
                "  PodDisruptionBudgets are best-effort under preemption: the scheduler evicts anyway.",
            );
        }
    }
    if !pr.candidates.is_empty() {
        // Best first: the chosen, then those that lost on a later
        // criterion (they survived longer in the scheduler's comparison).
        let rank = |lost: Option<Criterion>| match lost {
            None => usize::MAX,
            Some(c) => Criterion::ALL.iter().position(|&x| x == c).unwrap_or(0),
        };
        let mut cands: Vec<_> = pr.candidates.iter().collect();
        cands.sort_by(|a, b| {
            rank(b.lost_on)
                .cmp(&rank(a.lost_on))
                .then_with(|| cluster.node(a.node).name.cmp(&cluster.node(b.node).name))
        });
        let shown = Limits::cap(cands.len(), limits.rows);
        let width = width_of(
            cands[..shown].iter().map(|c| &*cluster.node(c.node).name),
            "NODE",
            NODE_COLUMN,
        );
        out.blank();
        out.push(
            Tone::Heading,
            format!("Candidate nodes ({}), best first", cands.len()),
        );
        out.push(
            Tone::TableHeader,
            format!(
                "  {:<width$}  {:>7}  {:>14}  {:>12}  LOST ON",
                "NODE", "VICTIMS", "PDB VIOLATIONS", "TOP PRIORITY"
            ),
        );
        for c in &cands[..shown] {
            let chosen = pr.chosen_nodes.contains(&c.node);
            let lost = match c.lost_on {
                None if chosen => "chosen",
                None => "-",
                Some(crit) => crit.as_str(),
            };
            let top = c
                .victims
                .first()
                .map(|&v| cluster.pod(v).priority_value().to_string())
                .unwrap_or_else(|| "-".into());
            out.push(
                if chosen { Tone::Good } else { Tone::Text },
                format!(
                    "  {}  {:>7}  {:>14}  {:>12}  {lost}",
                    column(&cluster.node(c.node).name, width),
                    c.victims.len(),
                    c.num_pdb_violations,
                    top
                ),
            );
        }
        more(out, cands.len() - shown, "  ");
    }
    out.blank();
    failing_nodes(
        out,
        cluster,
        &pr.statuses,
        "Nodes where preemption does not help",
        limits,
    );
}

fn devices(out: &mut Lines, cluster: &Cluster, p: &Placement, limits: Limits) {
    use super::devices::{Kind, lines};
    for l in lines(cluster, p, limits.rows) {
        let tone = match l.kind {
            Kind::Heading => Tone::Heading,
            Kind::Picked | Kind::Request => Tone::Good,
            Kind::Short => Tone::Bad,
            Kind::Node => Tone::Text,
            Kind::Held | Kind::More => Tone::Muted,
        };
        if tone == Tone::Heading {
            out.blank();
        }
        out.push(tone, l.text);
    }
    out.blank();
}

/// Seconds as `45s`, `2m05s`.
fn seconds(s: i64) -> String {
    if s < 60 {
        format!("{s}s")
    } else {
        format!("{}m{:02}s", s / 60, s % 60)
    }
}

#[cfg(test)]
mod tests {
    use super::{column, seconds};

    #[test]
    fn durations_read_as_minutes_and_seconds() {
        assert_eq!(seconds(45), "45s");
        assert_eq!(seconds(125), "2m05s");
    }

    #[test]
    fn long_names_keep_their_end() {
        assert_eq!(column("node-a", 8), "node-a  ");
        assert_eq!(column("gke-prod-pool-1-7afe63", 10), "…-1-7afe63");
        assert_eq!(column("gke-prod-pool-1-7afe63", 10).chars().count(), 10);
    }
}
