//! The Placement view's content: the engine's answer turned into styled
//! lines once, on the worker thread, so drawing only slices a list.

use crate::engine::preemption::Criterion;
use crate::engine::{NodeFailure, Outcome, Placement};
use crate::model::{Cluster, NodeId};

use super::format;
use crate::report::groups::{FailureGroup, failure_groups};

/// How a line is styled; the theme decides the colours.
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

#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Line {
    pub tone: Tone,
    pub text: String,
}

#[derive(Clone, Debug)]
pub struct PlacementReport {
    pub pod: String,
    pub outcome: Outcome,
    /// The node it goes to (or is nominated for), if any.
    pub node: Option<String>,
    /// The release that answered.
    pub scheduler: crate::engine::VersionChoice,
    /// Always visible above the scrolling part.
    pub header: Vec<Line>,
    pub lines: Vec<Line>,
}

/// Failing nodes listed by name per reason, before "+N more".
const NAMES_PER_REASON: usize = 6;

// Lines are paragraphs: the view wraps them to its pane's width when it
// draws them (`ui::text::wrap`), so nothing is cut at a fixed width.

struct Out(Vec<Line>);

impl Out {
    fn push(&mut self, tone: Tone, text: impl Into<String>) {
        self.0.push(Line {
            tone,
            text: text.into(),
        });
    }
    fn blank(&mut self) {
        self.push(Tone::Text, "");
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

pub fn build(cluster: &Cluster, placement: &Placement, pod_is_bound: bool) -> PlacementReport {
    let name = |n: NodeId| cluster.node(n).name.to_string();
    let mut header = Out(Vec::new());
    let class = placement
        .priority_class
        .as_deref()
        .map(|c| format!(" ({c})"))
        .unwrap_or_default();
    let priority = placement
        .priority
        .map(|p| p.to_string())
        .unwrap_or_else(|| "-".into());
    header.push(
        Tone::Heading,
        format!(
            "Pod {}   priority {priority}{class}   preemptionPolicy {}",
            placement.pod,
            placement.preemption_policy.as_str()
        ),
    );
    let verdict = match placement.outcome {
        Outcome::Scheduled => format!(
            "SCHEDULED → {} ({} feasible node(s), {} with the top score)",
            placement.node.map(name).unwrap_or_default(),
            placement.feasible.len(),
            placement.best.len()
        ),
        Outcome::Preempt => {
            let victims = placement
                .preemption
                .as_ref()
                .map(|p| p.victims.len())
                .unwrap_or(0);
            format!(
                "PREEMPT → {} after evicting {victims} pod(s); no node fits as is",
                placement.node.map(name).unwrap_or_default()
            )
        }
        Outcome::Unschedulable => {
            "UNSCHEDULABLE: no node fits and preemption cannot help".to_string()
        }
        Outcome::Rejected => format!(
            "REJECTED at admission: {}",
            placement.rejection.as_deref().unwrap_or("")
        ),
        Outcome::Gated => format!(
            "GATED: {}; the scheduler does not attempt the pod",
            placement.message
        ),
        Outcome::WaitingForClaims => format!(
            "WAITING FOR CLAIMS: {}; the scheduler does not attempt the pod until its ResourceClaims exist",
            placement.message
        ),
        Outcome::NoProfile => format!(
            "NO PROFILE: {}; no scheduler of this configuration picks the pod up",
            placement.message
        ),
    };
    header.push(outcome_tone(placement.outcome), verdict);
    if let Some(ungated) = placement
        .if_ungated
        .as_deref()
        .filter(|_| placement.outcome == Outcome::Gated)
    {
        // The scheduler never attempts a gated pod; what it would do once
        // the gates are removed is the engine's answer for the ungated pod.
        let inner = build(cluster, ungated, pod_is_bound);
        let mut lines = vec![Line {
            tone: Tone::Heading,
            text: "Once its scheduling gates are removed".into(),
        }];
        lines.extend(inner.header.into_iter().skip(1).map(|mut l| {
            l.text = format!("  {}", l.text);
            l
        }));
        lines.push(Line {
            tone: Tone::Text,
            text: String::new(),
        });
        lines.extend(inner.lines);
        return PlacementReport {
            pod: placement.pod.clone(),
            outcome: placement.outcome,
            node: None,
            scheduler: placement.scheduler.clone(),
            header: header.0,
            lines,
        };
    }
    if pod_is_bound {
        header.push(
            Tone::Muted,
            "The pod is bound; this is where it would go if it were rescheduled now.",
        );
    } else {
        header.push(
            Tone::Muted,
            "The pod is pending; this is why, and what the scheduler would do.",
        );
    }
    header.push(
        Tone::Muted,
        format!(
            "Answered as kube-scheduler {} rules: {}{} (:version X.Y, :config PATH switch)",
            placement.scheduler.version,
            placement.scheduler.reason(),
            placement
                .profile_line()
                .map(|l| format!("; {l}"))
                .unwrap_or_default()
        ),
    );

    let mut out = Out(Vec::new());
    if !placement.message.is_empty() {
        out.push(
            Tone::Heading,
            "Why (the scheduler's FailedScheduling message)",
        );
        out.push(Tone::Bad, format!("  {}", placement.message));
        if let Some(p) = &placement.preemption
            && !p.message.is_empty()
        {
            out.push(Tone::Bad, format!("  {}", p.message));
        }
        out.blank();
    }
    if !placement.notes.is_empty() {
        out.push(Tone::Heading, "Notes");
        for n in &placement.notes {
            out.push(Tone::Warn, format!("  • {n}"));
        }
        out.blank();
    }
    ranked_nodes(&mut out, cluster, placement);
    failing_nodes(
        &mut out,
        cluster,
        &placement.failures,
        "Failing nodes by reason",
    );
    if let Some(p) = &placement.preemption {
        preemption(&mut out, cluster, placement, p);
    }
    devices(&mut out, cluster, placement);
    out.push(Tone::Heading, "How kplace answers");
    out.push(
        Tone::Muted,
        format!(
            "  kplace evaluates all {} nodes. kube-scheduler stops filtering once it has found {} feasible nodes",
            cluster.nodes.len(),
            placement.upstream_nodes_to_find
        ),
    );
    out.push(
        Tone::Muted,
        "  (percentageOfNodesToScore) and dry-runs preemption on a random sample of candidates,",
    );
    out.push(
        Tone::Muted,
        "  so on large clusters it may pick another of the equally good nodes.",
    );
    PlacementReport {
        pod: placement.pod.clone(),
        outcome: placement.outcome,
        node: placement.node.map(name),
        scheduler: placement.scheduler.clone(),
        header: header.0,
        lines: out.0,
    }
}

/// Nodes listed under "Matching devices per node".
const DEVICE_NODES: usize = 50;

fn devices(out: &mut Out, cluster: &Cluster, placement: &Placement) {
    use crate::report::devices::{Kind, lines};
    let lines = lines(cluster, placement, DEVICE_NODES);
    if lines.is_empty() {
        return;
    }
    for l in lines {
        let tone = match l.kind {
            Kind::Heading => Tone::Heading,
            Kind::Picked | Kind::Request => Tone::Good,
            Kind::Short => Tone::Bad,
            Kind::Node => Tone::Text,
            Kind::Held | Kind::More => Tone::Muted,
        };
        if tone == Tone::Heading && !out.0.last().is_some_and(|l| l.text.is_empty()) {
            out.blank();
        }
        out.push(tone, l.text);
    }
    out.blank();
}

fn ranked_nodes(out: &mut Out, cluster: &Cluster, placement: &Placement) {
    if placement.scores.is_empty() {
        return;
    }
    out.push(
        Tone::Heading,
        format!(
            "Ranked nodes ({} feasible, best first; weighted points per score plugin)",
            placement.scores.len()
        ),
    );
    let mut header = format!("  {:>4}  {:<28} {:>6}", "#", "NODE", "TOTAL");
    for (plugin, _) in placement.score_plugins() {
        header.push_str(&format!(" {:>8}", plugin.short_name()));
    }
    out.push(Tone::TableHeader, header);
    let mut scores: Vec<_> = placement.scores.iter().collect();
    scores.sort_by(|a, b| b.total.cmp(&a.total).then(a.node.cmp(&b.node)));
    for (rank, s) in scores.iter().enumerate() {
        let best = placement.best.contains(&s.node);
        let mut row = format!(
            "  {:>4}  {:<28} {:>6}",
            rank + 1,
            format::truncate(&cluster.node(s.node).name, 28),
            s.total
        );
        for p in &s.plugins {
            row.push_str(&format!(" {p:>8}"));
        }
        if Some(s.node) == placement.node {
            row.push_str("  ← kplace's pick");
        } else if best {
            row.push_str("  (tied best)");
        }
        out.push(if best { Tone::Good } else { Tone::Text }, row);
    }
    let legend: Vec<String> = placement
        .score_plugins()
        .iter()
        .map(|(plugin, weight)| format!("{}={}×{weight}", plugin.short_name(), plugin.as_str()))
        .collect();
    out.push(Tone::Muted, format!("  {}", legend.join("  ")));
    out.blank();
}

/// Groups failures by plugin and reason text, largest group first.
fn failing_nodes(out: &mut Out, cluster: &Cluster, failures: &[NodeFailure], title: &str) {
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
        let mut names: Vec<String> = nodes
            .iter()
            .take(NAMES_PER_REASON)
            .map(|&n| cluster.node(n).name.to_string())
            .collect();
        if nodes.len() > NAMES_PER_REASON {
            names.push(format!("+{} more", nodes.len() - NAMES_PER_REASON));
        }
        out.push(Tone::Text, format!("         {}", names.join(", ")));
    }
    out.blank();
}

fn preemption(
    out: &mut Out,
    cluster: &Cluster,
    placement: &Placement,
    p: &crate::engine::preemption::PreemptionAnswer,
) {
    out.push(Tone::Heading, "Preemption");
    if let Some(reason) = &p.ineligible_reason {
        out.push(
            Tone::Bad,
            format!("  {}", crate::report::not_eligible(reason)),
        );
        out.blank();
        return;
    }
    let name = |n: NodeId| cluster.node(n).name.to_string();
    match p.node {
        Some(node) => {
            let others: Vec<String> = p
                .chosen_nodes
                .iter()
                .filter(|&&n| n != node)
                .map(|&n| name(n))
                .collect();
            let tie = if others.is_empty() {
                String::new()
            } else {
                format!(" (tied with {})", others.join(", "))
            };
            out.push(Tone::Warn, format!("  nominated node: {}{tie}", name(node)));
        }
        None => out.push(
            Tone::Bad,
            "  no node where evicting lower-priority pods would make room",
        ),
    }
    out.push(
        Tone::Muted,
        format!(
            "  kplace dry-ran all {} potential node(s); the scheduler would sample {}.",
            p.potential_nodes, p.upstream_sample
        ),
    );
    if let Some(t) = &p.termination {
        out.blank();
        out.push(
            Tone::Heading,
            format!(
                "Victims on {} ({})",
                placement.node.map(name).unwrap_or_default(),
                t.victims.len()
            ),
        );
        out.push(
            Tone::TableHeader,
            format!(
                "  {:<48} {:>11} {:>6} {:>6} {:>7}  {:<16} {}",
                "POD", "PRIORITY", "GRACE", "MAX", "PRESTOP", "STATEFULSET", "PDB VIOLATED"
            ),
        );
        for v in &t.victims {
            let pod = cluster.pod(v.pod);
            let tone = if v.violated_pdbs.is_empty() {
                Tone::Text
            } else {
                Tone::Bad
            };
            out.push(
                tone,
                format!(
                    "  {:<48} {:>11} {:>6} {:>6} {:>7}  {:<16} {}",
                    format::truncate(&cluster.pod_key(v.pod), 48),
                    pod.priority_value(),
                    format::seconds(v.grace_seconds),
                    format::seconds(v.max_seconds),
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
        let slowest = t.slowest.map(|id| cluster.pod_key(id)).unwrap_or_default();
        out.push(
            Tone::Warn,
            format!(
                "  earliest bind: {} after the evictions (slowest: {slowest}), plus ~{}-{} s for the kubelet to report",
                format::seconds(t.earliest_bind_seconds),
                crate::engine::termination::PROPAGATION_SECONDS.0,
                crate::engine::termination::PROPAGATION_SECONDS.1
            ),
        );
    }
    if !p.candidates.is_empty() {
        out.blank();
        out.push(
            Tone::Heading,
            format!("Candidate nodes ({}), best first", p.candidates.len()),
        );
        out.push(
            Tone::TableHeader,
            format!(
                "  {:<28} {:>8} {:>15}  {}",
                "NODE", "VICTIMS", "PDB VIOLATIONS", "LOST ON"
            ),
        );
        let rank = |lost: Option<Criterion>| match lost {
            None => usize::MAX,
            Some(c) => Criterion::ALL.iter().position(|&x| x == c).unwrap_or(0),
        };
        let mut cands: Vec<_> = p.candidates.iter().collect();
        cands.sort_by(|a, b| {
            rank(b.lost_on)
                .cmp(&rank(a.lost_on))
                .then(a.node.cmp(&b.node))
        });
        for c in cands {
            let chosen = p.chosen_nodes.contains(&c.node);
            let lost = match c.lost_on {
                None if chosen => "chosen".to_string(),
                None => "-".to_string(),
                Some(crit) => crit.as_str().to_string(),
            };
            out.push(
                if chosen { Tone::Good } else { Tone::Text },
                format!(
                    "  {:<28} {:>8} {:>15}  {lost}",
                    format::truncate(&name(c.node), 28),
                    c.victims.len(),
                    c.num_pdb_violations
                ),
            );
        }
    }
    out.blank();
    failing_nodes(
        out,
        cluster,
        &p.statuses,
        "Nodes where preemption does not help",
    );
}
