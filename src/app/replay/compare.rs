//! The diff of two moments of a recording: pods added, removed and moved
//! (from the timeline), and what an operator reads off the views: pods per
//! zone, per priority tier, and each spread workload's zone skew.

use std::sync::Arc;

use crate::model::Cluster;
use crate::source::timeline::Diff;

use crate::app::derived::{Derived, TierRow, Workload, ZONE_KEY};
use crate::app::report::{Line, Tone};
use crate::app::skew;

/// What a comparison needs of one moment, taken cheaply on the UI thread;
/// the counting happens on the comparison thread.
pub struct MomentInput {
    cluster: Arc<Cluster>,
    tiers: Vec<TierRow>,
    zones: Vec<(String, usize)>,
    workloads: Vec<Workload>,
}

impl MomentInput {
    pub fn of(cluster: &Arc<Cluster>, derived: &Derived) -> MomentInput {
        MomentInput {
            cluster: cluster.clone(),
            tiers: derived.tiers.clone(),
            zones: derived
                .zones
                .iter()
                .map(|z| (z.name.clone(), z.pods))
                .collect(),
            workloads: derived.workloads.clone(),
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
            .tiers
            .iter()
            .map(|t| (tier_label(t), t.pods, t.pending))
            .collect();
        let mut skews = Vec::new();
        if let Some(zone) = cluster.interner.lookup(ZONE_KEY) {
            for w in &input.workloads {
                let Some((skew, per_zone)) = skew::zone_skew(cluster, w, zone) else {
                    continue;
                };
                let per_zone = per_zone
                    .into_iter()
                    .map(|(z, n)| (z, n.max(0) as usize))
                    .collect();
                skews.push((w.label.clone(), skew.max(0) as usize, per_zone));
            }
        }
        Moment {
            zones: input.zones.clone(),
            tiers,
            skews,
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
        }
    }

    pub fn is_empty(&self) -> bool {
        self.pods.added.is_empty()
            && self.pods.removed.is_empty()
            && self.pods.moved.is_empty()
            && self.zones.is_empty()
            && self.tiers.is_empty()
            && self.skews.is_empty()
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
