//! The diff of two moments of a recording: pods added, removed and moved
//! (from the timeline), and what an operator reads off the views: pods per
//! zone, per priority tier, and each spread workload's zone skew.

use std::collections::BTreeMap;
use std::sync::Arc;

use crate::model::Cluster;
use crate::source::timeline::Diff;

use crate::app::derived::{Derived, TierRow, ViewCaches, ZONE_KEY};
use crate::app::report::{Line, Tone};
use crate::app::skew;

/// What a comparison needs of one moment, taken cheaply on the UI thread;
/// the counting happens on the comparison thread.
pub struct MomentInput {
    cluster: Arc<Cluster>,
    /// The moment's tiers and workloads, built (or waited for) on the
    /// comparison thread.
    caches: ViewCaches,
    zones: Vec<(String, usize)>,
}

impl MomentInput {
    pub fn of(cluster: &Arc<Cluster>, derived: &Derived) -> MomentInput {
        MomentInput {
            cluster: cluster.clone(),
            caches: derived.caches(),
            zones: derived
                .zones
                .iter()
                .map(|z| (z.name.clone(), z.pods))
                .collect(),
        }
    }
}

/// `(zone, pods)` pairs.
pub type ZoneCounts = Vec<(String, usize)>;
/// `(pods, pending)` of one tier.
pub type TierCounts = (usize, usize);

/// The counts of one moment.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Moment {
    /// `(zone, pods)`.
    pub zones: Vec<(String, usize)>,
    /// `(tier label, pods, pending)`.
    pub tiers: Vec<(String, usize, usize)>,
    /// `(workload, skew over zones, pods per zone)` for workloads that
    /// spread over zones.
    pub skews: Vec<(String, usize, ZoneCounts)>,
    /// Every node as the scheduler sees it, by name.
    pub nodes: BTreeMap<String, NodeState>,
}

/// What of a node changes where pods may go: cordon, taints, labels.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct NodeState {
    pub unschedulable: bool,
    /// `key=value:Effect`, sorted.
    pub taints: Vec<String>,
    pub labels: BTreeMap<String, String>,
}

impl NodeState {
    fn of(cluster: &Cluster, node: &crate::model::Node) -> NodeState {
        let mut taints: Vec<String> = crate::app::format::taints(node).collect();
        taints.sort();
        NodeState {
            unschedulable: node.unschedulable,
            taints,
            labels: node
                .labels
                .iter()
                .map(|(k, v)| {
                    (
                        cluster.interner.resolve(k).to_string(),
                        cluster.interner.resolve(v).to_string(),
                    )
                })
                .collect(),
        }
    }
}

/// How one node differs between the two moments.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum NodeChange {
    Added(String),
    Removed(String),
    Changed { node: String, what: Vec<String> },
}

/// The node changes from `before` to `after`, by node name.
pub fn node_changes(
    before: &BTreeMap<String, NodeState>,
    after: &BTreeMap<String, NodeState>,
) -> Vec<NodeChange> {
    let mut out = Vec::new();
    for name in before.keys().filter(|n| !after.contains_key(*n)) {
        out.push(NodeChange::Removed(name.clone()));
    }
    for (name, a) in after {
        let Some(b) = before.get(name) else {
            out.push(NodeChange::Added(name.clone()));
            continue;
        };
        let mut what = Vec::new();
        match (b.unschedulable, a.unschedulable) {
            (false, true) => what.push("cordoned".to_string()),
            (true, false) => what.push("uncordoned".to_string()),
            _ => {}
        }
        for t in a.taints.iter().filter(|t| !b.taints.contains(t)) {
            what.push(format!("taint {t} added"));
        }
        for t in b.taints.iter().filter(|t| !a.taints.contains(t)) {
            what.push(format!("taint {t} removed"));
        }
        for (k, v) in &a.labels {
            match b.labels.get(k) {
                None => what.push(format!("label {k}={v} added")),
                Some(old) if old != v => what.push(format!("label {k}: {old} → {v}")),
                Some(_) => {}
            }
        }
        for (k, v) in b.labels.iter().filter(|(k, _)| !a.labels.contains_key(*k)) {
            what.push(format!("label {k}={v} removed"));
        }
        if !what.is_empty() {
            out.push(NodeChange::Changed {
                node: name.clone(),
                what,
            });
        }
    }
    out
}

fn tier_label(t: &TierRow) -> String {
    if t.classes.is_empty() {
        format!("{} (no class)", t.value)
    } else {
        format!("{} {}", t.value, t.classes)
    }
}

impl Moment {
    pub fn of(input: &MomentInput) -> Moment {
        let cluster = &input.cluster;
        let tiers = input
            .caches
            .tiers()
            .rows
            .iter()
            .map(|t| (tier_label(t), t.pods, t.pending))
            .collect();
        let mut skews = Vec::new();
        if let Some(zone) = cluster.interner.lookup(ZONE_KEY) {
            for w in &input.caches.fleet().workloads {
                let Some((skew, per_zone)) = skew::zone_skew(cluster, w, zone) else {
                    continue;
                };
                let per_zone = per_zone
                    .into_iter()
                    .map(|(z, n)| (z, n.max(0) as usize))
                    .collect();
                skews.push((w.label.to_string(), skew.max(0) as usize, per_zone));
            }
        }
        Moment {
            zones: input.zones.clone(),
            tiers,
            skews,
            nodes: cluster
                .nodes
                .iter()
                .map(|n| (n.name.to_string(), NodeState::of(cluster, n)))
                .collect(),
        }
    }
}

/// Two moments side by side.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Comparison {
    pub pods: Diff,
    /// `(zone, pods before, pods after)`, changed ones only.
    pub zones: Vec<(String, usize, usize)>,
    /// `(tier, (pods, pending) before, after)`, changed ones only.
    pub tiers: Vec<(String, TierCounts, TierCounts)>,
    /// `(workload, skew before, skew after, per zone before, after)`.
    pub skews: Vec<SkewChange>,
    /// Nodes added, removed, cordoned or uncordoned, re-tainted, relabelled.
    pub nodes: Vec<NodeChange>,
}

#[derive(Clone, Debug, PartialEq, Eq)]
pub struct SkewChange {
    pub workload: String,
    pub before: Option<usize>,
    pub after: Option<usize>,
    pub zones_before: String,
    pub zones_after: String,
}

fn per_zone_text(z: &[(String, usize)]) -> String {
    z.iter()
        .map(|(n, p)| format!("{n}={p}"))
        .collect::<Vec<_>>()
        .join(" ")
}

impl Comparison {
    pub fn new(pods: Diff, before: &Moment, after: &Moment) -> Comparison {
        let mut zones = Vec::new();
        for (name, b) in &before.zones {
            let a = after.zones.iter().find(|z| &z.0 == name).map_or(0, |z| z.1);
            if a != *b {
                zones.push((name.clone(), *b, a));
            }
        }
        for (name, a) in &after.zones {
            if !before.zones.iter().any(|z| &z.0 == name) {
                zones.push((name.clone(), 0, *a));
            }
        }
        let mut tiers = Vec::new();
        let tier = |m: &Moment, l: &str| {
            m.tiers
                .iter()
                .find(|t| t.0 == l)
                .map_or((0, 0), |t| (t.1, t.2))
        };
        let mut labels: Vec<&String> = before.tiers.iter().map(|t| &t.0).collect();
        labels.extend(
            after
                .tiers
                .iter()
                .map(|t| &t.0)
                .filter(|l| !before.tiers.iter().any(|b| &b.0 == *l)),
        );
        for l in labels {
            let (b, a) = (tier(before, l), tier(after, l));
            if a != b {
                tiers.push((l.clone(), b, a));
            }
        }
        let mut skews = Vec::new();
        let find = |m: &Moment, w: &str| m.skews.iter().find(|s| s.0 == w).cloned();
        let mut names: Vec<&String> = before.skews.iter().map(|s| &s.0).collect();
        names.extend(
            after
                .skews
                .iter()
                .map(|s| &s.0)
                .filter(|n| !before.skews.iter().any(|b| &b.0 == *n)),
        );
        for n in names {
            let (b, a) = (find(before, n), find(after, n));
            let zb = b.as_ref().map(|s| per_zone_text(&s.2)).unwrap_or_default();
            let za = a.as_ref().map(|s| per_zone_text(&s.2)).unwrap_or_default();
            if zb != za {
                skews.push(SkewChange {
                    workload: n.clone(),
                    before: b.map(|s| s.1),
                    after: a.map(|s| s.1),
                    zones_before: zb,
                    zones_after: za,
                });
            }
        }
        Comparison {
            pods,
            zones,
            tiers,
            skews,
            nodes: node_changes(&before.nodes, &after.nodes),
        }
    }

    pub fn is_empty(&self) -> bool {
        self.pods.added.is_empty()
            && self.pods.removed.is_empty()
            && self.pods.moved.is_empty()
            && self.zones.is_empty()
            && self.tiers.is_empty()
            && self.skews.is_empty()
            && self.nodes.is_empty()
    }

    /// The comparison as report lines for the Replay view.
    pub fn lines(&self, limit: usize) -> Vec<Line> {
        let mut out = Vec::new();
        let line = |tone, text: String| Line { tone, text };
        let d = &self.pods;
        out.push(line(
            Tone::TableHeader,
            format!(
                "Pods: {} added, {} removed, {} moved",
                d.added.len(),
                d.removed.len(),
                d.moved.len()
            ),
        ));
        let more = |out: &mut Vec<Line>, n: usize| {
            if n > limit {
                out.push(line(Tone::Muted, format!("    … {} more", n - limit)));
            }
        };
        for p in d.added.iter().take(limit) {
            out.push(line(Tone::Good, format!("  + {p}")));
        }
        more(&mut out, d.added.len());
        for p in d.removed.iter().take(limit) {
            out.push(line(Tone::Bad, format!("  - {p}")));
        }
        more(&mut out, d.removed.len());
        for m in d.moved.iter().take(limit) {
            let from = m.from.as_deref().unwrap_or("(pending)");
            let to = m.to.as_deref().unwrap_or("(pending)");
            out.push(line(Tone::Warn, format!("  ~ {}: {from} → {to}", m.pod)));
        }
        more(&mut out, d.moved.len());
        if !self.nodes.is_empty() {
            out.push(line(
                Tone::TableHeader,
                format!("Nodes: {} changed", self.nodes.len()),
            ));
            for c in self.nodes.iter().take(limit) {
                out.push(match c {
                    NodeChange::Added(n) => line(Tone::Good, format!("  + node {n}")),
                    NodeChange::Removed(n) => line(Tone::Bad, format!("  - node {n}")),
                    NodeChange::Changed { node, what } => {
                        line(Tone::Warn, format!("  ~ node {node}: {}", what.join(", ")))
                    }
                });
            }
            more(&mut out, self.nodes.len());
        }
        if !self.zones.is_empty() {
            out.push(line(Tone::TableHeader, "Pods per zone".into()));
            for (z, b, a) in &self.zones {
                out.push(line(Tone::Text, format!("  {z}: {b} → {a}")));
            }
        }
        if !self.skews.is_empty() {
            out.push(line(
                Tone::TableHeader,
                "Zone skew of spread workloads".into(),
            ));
            for s in &self.skews {
                let show = |v: Option<usize>| v.map_or("—".to_string(), |v| v.to_string());
                let tone = if s.after > s.before {
                    Tone::Warn
                } else {
                    Tone::Text
                };
                out.push(line(
                    tone,
                    format!(
                        "  {}: skew {} → {}   ({} → {})",
                        s.workload,
                        show(s.before),
                        show(s.after),
                        s.zones_before,
                        s.zones_after
                    ),
                ));
            }
        }
        if !self.tiers.is_empty() {
            out.push(line(
                Tone::TableHeader,
                "Priority tiers (pods, pending)".into(),
            ));
            for (t, b, a) in &self.tiers {
                out.push(line(
                    Tone::Text,
                    format!(
                        "  {t}: {} ({} pending) → {} ({} pending)",
                        b.0, b.1, a.0, a.1
                    ),
                ));
            }
        }
        out
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn state(unschedulable: bool, taints: &[&str], labels: &[(&str, &str)]) -> NodeState {
        NodeState {
            unschedulable,
            taints: taints.iter().map(|t| t.to_string()).collect(),
            labels: labels
                .iter()
                .map(|(k, v)| (k.to_string(), v.to_string()))
                .collect(),
        }
    }

    #[test]
    fn node_changes_name_cordons_taints_labels_and_nodes_added_or_removed() {
        let before: BTreeMap<String, NodeState> = [
            (
                "a".to_string(),
                state(false, &["gpu=true:NoSchedule"], &[("zone", "z1")]),
            ),
            (
                "b".to_string(),
                state(true, &[], &[("zone", "z2"), ("old", "x")]),
            ),
            ("gone".to_string(), state(false, &[], &[])),
            (
                "same".to_string(),
                state(false, &["k:NoExecute"], &[("zone", "z1")]),
            ),
        ]
        .into_iter()
        .collect();
        let after: BTreeMap<String, NodeState> = [
            (
                "a".to_string(),
                state(true, &["dedicated=db:NoSchedule"], &[("zone", "z3")]),
            ),
            (
                "b".to_string(),
                state(false, &[], &[("zone", "z2"), ("new", "y")]),
            ),
            ("fresh".to_string(), state(false, &[], &[])),
            (
                "same".to_string(),
                state(false, &["k:NoExecute"], &[("zone", "z1")]),
            ),
        ]
        .into_iter()
        .collect();
        let changes = node_changes(&before, &after);
        assert_eq!(
            changes,
            vec![
                NodeChange::Removed("gone".into()),
                NodeChange::Changed {
                    node: "a".into(),
                    what: vec![
                        "cordoned".into(),
                        "taint dedicated=db:NoSchedule added".into(),
                        "taint gpu=true:NoSchedule removed".into(),
                        "label zone: z1 → z3".into(),
                    ],
                },
                NodeChange::Changed {
                    node: "b".into(),
                    what: vec![
                        "uncordoned".into(),
                        "label new=y added".into(),
                        "label old=x removed".into(),
                    ],
                },
                NodeChange::Added("fresh".into()),
            ]
        );
        let c = Comparison {
            nodes: changes,
            ..Default::default()
        };
        assert!(!c.is_empty());
        let text: Vec<String> = c.lines(10).into_iter().map(|l| l.text).collect();
        assert!(text.contains(&"Nodes: 4 changed".to_string()), "{text:?}");
        assert!(
            text.contains(&"  ~ node a: cordoned, taint dedicated=db:NoSchedule added, taint gpu=true:NoSchedule removed, label zone: z1 → z3".to_string()),
            "{text:?}"
        );
        assert!(text.contains(&"  - node gone".to_string()), "{text:?}");
        assert!(text.contains(&"  + node fresh".to_string()), "{text:?}");
    }
}
