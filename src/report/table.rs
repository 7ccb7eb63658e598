//! `place -o table`: the answer for people. One pod's answer is the
//! placement document ([`super::document`]) printed as plain text; replica
//! plans, capacity counts and DaemonSets are tables of their own.

use std::fmt::Write;

use crate::engine::{Outcome, Placement};
use crate::model::Cluster;

pub use super::document::scheduler_line;

/// Renders the answer: the placement document as plain text. `bound` says
/// whether the pod asked about is a bound (Some(true)) or pending
/// (Some(false)) pod of the cluster; `limit` caps long lists (0 = no cap).
/// Control characters from the cluster's objects (an ESC in a pod name or
/// label) are shown escaped, never sent to the terminal.
pub fn render(cluster: &Cluster, p: &Placement, bound: Option<bool>, limit: usize) -> String {
    super::document::placement(cluster, p, bound, super::document::Limits::cli(limit)).to_text()
}

/// `items` joined with `sep`, at most `limit` of them (0 = all), then
/// "… and N more": one line must not carry thousands of node names.
pub fn capped_list<S: AsRef<str>>(items: &[S], limit: usize, sep: &str) -> String {
    let shown = if limit == 0 {
        items.len()
    } else {
        items.len().min(limit)
    };
    let mut text = items[..shown]
        .iter()
        .map(AsRef::as_ref)
        .collect::<Vec<_>>()
        .join(sep);
    if shown < items.len() {
        let _ = write!(text, "{sep}… and {} more", items.len() - shown);
    }
    text
}

/// `place --replicas N -o table`: where each replica lands, the skew after
/// each step, every preemption on the way, and the first failure, out of
/// the `requested` replicas; `limit` caps every list (0 = all).
pub fn render_replicas(
    plan: &crate::engine::replicas::ReplicaPlan,
    requested: usize,
    limit: usize,
) -> String {
    let cluster = &plan.cluster;
    let mut out = String::new();
    if let Some(first) = plan.steps.first() {
        out.push_str(&scheduler_line(&first.placement.scheduler));
        out.push('\n');
    }
    let keys: Vec<String> = plan
        .domains_after
        .first()
        .map(|d| {
            d.iter()
                .map(|dc| {
                    format!(
                        "{} (max {})",
                        cluster.interner.resolve(dc.constraint.topology_key),
                        dc.constraint.max_skew
                    )
                })
                .collect()
        })
        .unwrap_or_default();
    let _ = write!(out, "{:>7}  {:<40}  {:<13}", "REPLICA", "NODE", "OUTCOME");
    for k in &keys {
        let _ = write!(out, "  SKEW {k}");
    }
    let _ = writeln!(out, "  EVICTS");
    let rows = if limit == 0 {
        plan.steps.len()
    } else {
        plan.steps.len().min(limit)
    };
    for (step, domains) in plan.steps.iter().zip(&plan.domains_after).take(rows) {
        let p = &step.placement;
        let node = p
            .node
            .map(|n| cluster.node(n).name.to_string())
            .unwrap_or_else(|| "-".into());
        let _ = write!(
            out,
            "{:>7}  {:<40}  {:<13}",
            step.replica,
            node,
            p.outcome.as_str()
        );
        for (dc, k) in domains.iter().zip(&keys) {
            let _ = write!(out, "  {:>width$}", dc.skew(), width = k.len() + 5);
        }
        let victims: Vec<String> = p
            .preemption
            .iter()
            .flat_map(|pr| pr.victims.iter().map(|&v| cluster.pod_key(v)))
            .collect();
        let _ = writeln!(
            out,
            "  {}",
            if victims.is_empty() {
                "-".to_string()
            } else {
                capped_list(&victims, limit, ", ")
            }
        );
    }
    if rows < plan.steps.len() {
        let _ = writeln!(
            out,
            "{:>7}  … and {} more (use --limit 0 for all)",
            "",
            plan.steps.len() - rows
        );
    }
    let placed = plan.placed();
    let requested = requested.max(plan.steps.len());
    match plan.first_unplaceable {
        None => {
            let _ = writeln!(out, "\n{placed} of {requested} replicas placed.");
        }
        Some(i) => {
            let rest = if i < requested {
                " (the rest were not tried)"
            } else {
                ""
            };
            let _ = writeln!(
                out,
                "\n{placed} of {requested} replicas placed; replica {i} cannot be placed{rest}."
            );
            let step = &plan.steps[i - 1];
            let why = if step.placement.message.is_empty() {
                step.placement.rejection.clone().unwrap_or_default()
            } else {
                step.placement.message.clone()
            };
            let _ = writeln!(out, "Why replica {i} cannot be placed: {why}");
        }
    }
    if let Some(last) = plan.domains_after.last() {
        for dc in last {
            let counts: Vec<String> = dc.counts.iter().map(|(v, n)| format!("{v}={n}")).collect();
            let _ = writeln!(
                out,
                "Final {} counts (maxSkew {}, skew {}): {}",
                cluster.interner.resolve(dc.constraint.topology_key),
                dc.constraint.max_skew,
                dc.skew(),
                capped_list(&counts, limit, " ")
            );
        }
    }
    super::escape_controls(&out).into_owned()
}

/// `place --replicas max`: the count with and without preemption, per
/// zone, the spread counts, and why the next replica fails.
pub fn render_capacity(
    pod: &str,
    runs: &[crate::engine::replicas::Capacity],
    limit: usize,
) -> String {
    let shown = |items: Vec<String>| {
        if limit == 0 || items.len() <= limit {
            return items.join(" ");
        }
        format!(
            "{} … and {} more",
            items[..limit].join(" "),
            items.len() - limit
        )
    };
    let mut out = String::new();
    if let Some(p) = runs.iter().find_map(|c| c.next.as_ref()) {
        out.push_str(&scheduler_line(&p.scheduler));
        out.push('\n');
    }
    let _ = writeln!(out, "How many more replicas of {pod} fit:");
    for c in runs {
        let how = if c.with_preemption {
            "with preemption"
        } else {
            "without preemption"
        };
        let count = if c.capped {
            format!("at least {} (counting stopped there)", c.count)
        } else {
            c.count.to_string()
        };
        let _ = write!(out, "  {how}: {count}");
        if !c.evicted.is_empty() {
            let _ = write!(out, ", evicting {} pod(s)", c.evicted.len());
        }
        out.push('\n');
        if !c.per_zone.is_empty() {
            let zones: Vec<String> = c
                .per_zone
                .iter()
                .map(|(z, n)| format!("{}={n}", if z.is_empty() { "(no zone)" } else { z }))
                .collect();
            let _ = writeln!(out, "    per zone: {}", shown(zones));
        }
        for dc in &c.domains {
            let counts: Vec<String> = dc.counts.iter().map(|(v, n)| format!("{v}={n}")).collect();
            let _ = writeln!(
                out,
                "    {} counts after (maxSkew {}, skew {}): {}",
                c.cluster.interner.resolve(dc.constraint.topology_key),
                dc.constraint.max_skew,
                dc.skew(),
                shown(counts)
            );
        }
        if let Some(p) = &c.next {
            let why = if p.message.is_empty() {
                p.rejection.clone().unwrap_or_default()
            } else {
                p.message.clone()
            };
            let _ = writeln!(out, "    the next one: {} — {why}", p.outcome.as_str());
        }
    }
    super::escape_controls(&out).into_owned()
}

/// `place --pod ds.yaml`: one row per daemon pod (the node it is pinned
/// to, placed or why not, whom it evicts), then the nodes the DaemonSet
/// controller would not run a pod on, and why.
pub fn render_daemon(
    original: &Cluster,
    daemon: &crate::engine::daemonset::DaemonPlan,
    limit: usize,
) -> String {
    let plan = &daemon.plan;
    let cluster = &plan.cluster;
    let mut out = String::new();
    if let Some(first) = plan.steps.first() {
        out.push_str(&scheduler_line(&first.placement.scheduler));
        out.push('\n');
    }
    let rows = if limit == 0 {
        plan.steps.len()
    } else {
        plan.steps.len().min(limit)
    };
    let _ = writeln!(
        out,
        "{:<32}  {:<32}  {:<13}  EVICTS / WHY NOT",
        "POD", "PINNED TO", "OUTCOME"
    );
    for (step, &node) in plan
        .steps
        .iter()
        .zip(&daemon.eligibility.eligible)
        .take(rows)
    {
        let p = &step.placement;
        let victims: Vec<String> = p
            .preemption
            .iter()
            .flat_map(|pr| pr.victims.iter().map(|&v| cluster.pod_key(v)))
            .collect();
        let detail = match p.outcome {
            Outcome::Scheduled => "-".to_string(),
            Outcome::Preempt => capped_list(&victims, limit, ", "),
            _ if !p.message.is_empty() => p.message.clone(),
            _ => p.rejection.clone().unwrap_or_else(|| "-".into()),
        };
        let _ = writeln!(
            out,
            "{:<32}  {:<32}  {:<13}  {}",
            step.name,
            original.node(node).name,
            p.outcome.as_str(),
            super::escape_controls(&detail)
        );
    }
    if rows < plan.steps.len() {
        let _ = writeln!(
            out,
            "… and {} more (use --limit 0 for all)",
            plan.steps.len() - rows
        );
    }
    if !daemon.eligibility.not_eligible.is_empty() {
        let _ = writeln!(
            out,
            "\nNo daemon pod (the DaemonSet controller skips the node):"
        );
        let shown = if limit == 0 {
            daemon.eligibility.not_eligible.len()
        } else {
            daemon.eligibility.not_eligible.len().min(limit)
        };
        for (node, why) in daemon.eligibility.not_eligible.iter().take(shown) {
            let _ = writeln!(out, "  {}: {}", original.node(*node).name, why);
        }
        if shown < daemon.eligibility.not_eligible.len() {
            let _ = writeln!(
                out,
                "  … and {} more (use --limit 0 for all)",
                daemon.eligibility.not_eligible.len() - shown
            );
        }
    }
    let placed = plan.placed();
    let preempting = plan
        .steps
        .iter()
        .filter(|s| s.placement.outcome == Outcome::Preempt)
        .count();
    let _ = writeln!(
        out,
        "\n{placed} of {} daemon pods placed ({preempting} by preemption); {} of {} nodes eligible.",
        plan.steps.len(),
        daemon.eligibility.eligible.len(),
        original.nodes.len()
    );
    out
}
