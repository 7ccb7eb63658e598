//! `place -o table`: the answer for people — outcome, chosen node, nodes
//! ranked by score with per-plugin points, failing nodes grouped by reason,
//! the scheduler's message, and the preemption answer.

use super::groups::failure_groups;
use std::fmt::Write;

use crate::engine::preemption::PreemptionAnswer;
use crate::engine::{Outcome, Placement};
use crate::model::{Cluster, NodeId};

/// `kube-scheduler v1.33 rules (the API server reports v1.33.4)`: which
/// release answered, and why that one.
pub fn scheduler_line(scheduler: &crate::engine::VersionChoice) -> String {
    format!(
        "kube-scheduler {} rules ({})",
        scheduler.version,
        scheduler.reason()
    )
}

/// Renders the answer. `limit` caps long lists (0 = no cap). Control
/// characters from the cluster's objects (an ESC in a pod name or label)
/// are shown escaped, never sent to the terminal.
pub fn render(cluster: &Cluster, p: &Placement, limit: usize) -> String {
    let mut out = scheduler_line(&p.scheduler);
    out.push('\n');
    if let Some(line) = p
        .profile_line()
        .filter(|_| p.profile.as_ref().is_some_and(|pr| pr.configured))
    {
        out.push_str(&line);
        out.push('\n');
    }
    out.push_str(&render_answer(cluster, p, limit));
    super::escape_controls(&out).into_owned()
}

fn render_answer(cluster: &Cluster, p: &Placement, limit: usize) -> String {
    let mut out = String::new();
    let node_name = |id: NodeId| cluster.node(id).name.to_string();
    let cap = |n: usize| if limit == 0 { n } else { n.min(limit) };

    let _ = write!(out, "Pod {}", p.pod);
    match p.priority {
        Some(prio) => {
            let class = p.priority_class.as_deref().unwrap_or("no class");
            let _ = writeln!(
                out,
                "  priority {prio} ({class}, {})",
                p.preemption_policy.as_str()
            );
        }
        None => out.push('\n'),
    }
    let total = cluster.nodes.len();
    match p.outcome {
        Outcome::Rejected => {
            let _ = writeln!(out, "Outcome: REJECTED by priority admission");
            let _ = writeln!(out, "  {}", p.rejection.as_deref().unwrap_or(""));
            return out;
        }
        Outcome::NoProfile => {
            let _ = writeln!(
                out,
                "Outcome: NO PROFILE, no scheduler of this configuration picks the pod up"
            );
            let _ = writeln!(out, "  {}", p.message);
            return out;
        }
        Outcome::WaitingForClaims => {
            let _ = writeln!(
                out,
                "Outcome: WAITING FOR CLAIMS, the scheduler does not attempt the pod until its ResourceClaims exist"
            );
            let _ = writeln!(out, "  {}", p.message);
            return out;
        }
        Outcome::Gated => {
            let _ = writeln!(
                out,
                "Outcome: GATED, the scheduler does not attempt the pod"
            );
            let _ = writeln!(out, "  {}", p.message);
            if let Some(ungated) = &p.if_ungated {
                let _ = writeln!(out, "\nOnce ungated:");
                out.push_str(&render_answer(cluster, ungated, limit));
            }
            return out;
        }
        Outcome::Scheduled => {
            let node = p.node.map(node_name).unwrap_or_default();
            let ties = if p.best.len() > 1 {
                format!(
                    "; {} nodes tied for best, the scheduler picks one at random",
                    p.best.len()
                )
            } else {
                String::new()
            };
            let _ = writeln!(
                out,
                "Outcome: scheduled on {node}  ({} of {total} nodes feasible{ties})",
                p.feasible.len()
            );
        }
        Outcome::Preempt => {
            let node = p.node.map(node_name).unwrap_or_default();
            let _ = writeln!(
                out,
                "Outcome: PREEMPT on {node}  (no node fits as is; evicting lower-priority pods makes room)"
            );
        }
        Outcome::Unschedulable => {
            let _ = writeln!(
                out,
                "Outcome: UNSCHEDULABLE  (no node fits and preemption cannot help)"
            );
        }
    }
    for note in &p.notes {
        let _ = writeln!(out, "Note: {note}");
    }

    if !p.scores.is_empty() {
        let mut ranked: Vec<_> = p.scores.iter().collect();
        ranked.sort_by(|a, b| {
            b.total
                .cmp(&a.total)
                .then_with(|| cluster.node(a.node).name.cmp(&cluster.node(b.node).name))
        });
        let width = ranked
            .iter()
            .take(cap(ranked.len()))
            .map(|s| cluster.node(s.node).name.len())
            .max()
            .unwrap_or(4)
            .max(4);
        let _ = writeln!(
            out,
            "\nFeasible nodes by score ({}; weighted points per plugin):",
            ranked.len()
        );
        let _ = write!(out, "  {:>4}  {:<width$}  {:>5}", "RANK", "NODE", "TOTAL");
        for (plugin, _) in p.score_plugins() {
            let _ = write!(out, " {:>8}", plugin.short_name().to_uppercase());
        }
        out.push('\n');
        for (i, s) in ranked.iter().take(cap(ranked.len())).enumerate() {
            let _ = write!(
                out,
                "  {:>4}  {:<width$}  {:>5}",
                i + 1,
                cluster.node(s.node).name,
                s.total
            );
            for v in &s.plugins {
                let _ = write!(out, " {v:>8}");
            }
            out.push('\n');
        }
        if cap(ranked.len()) < ranked.len() {
            let _ = writeln!(
                out,
                "  … {} more (use --limit 0 for all)",
                ranked.len() - cap(ranked.len())
            );
        }
        let weights: Vec<String> = p
            .score_plugins()
            .iter()
            .map(|(n, w)| format!("{}×{w}", n.as_str()))
            .collect();
        let _ = writeln!(out, "  weights: {}", weights.join(", "));
    }

    if !p.failures.is_empty() {
        let _ = writeln!(out, "\nFailing nodes ({}), by reason:", p.failures.len());
        for g in failure_groups(&p.failures) {
            let (reason, plugin, code, nodes) = (g.reason, g.plugin, g.code, g.nodes);
            let _ = writeln!(out, "  {:>5}  {reason}  [{plugin}, {code}]", nodes.len());
            let shown = cap(nodes.len()).min(if limit == 0 { nodes.len() } else { 8 });
            let names: Vec<String> = nodes.iter().take(shown).map(|&n| node_name(n)).collect();
            let more = if shown < nodes.len() {
                format!(" … +{}", nodes.len() - shown)
            } else {
                String::new()
            };
            let _ = writeln!(out, "         {}{more}", names.join(", "));
        }
    }
    if !p.message.is_empty() {
        let tail = p
            .preemption
            .as_ref()
            .filter(|pr| !pr.message.is_empty())
            .map(|pr| format!(" {}", pr.message))
            .unwrap_or_default();
        let _ = writeln!(
            out,
            "\nScheduler message (kubectl describe pod):\n  {}{tail}",
            p.message
        );
    }
    if let Some(pr) = &p.preemption {
        render_preemption(&mut out, cluster, pr, limit);
    }
    render_devices(&mut out, cluster, p, limit);
    out
}

/// The Devices section (the same lines the Placement view shows).
fn render_devices(out: &mut String, cluster: &Cluster, p: &Placement, limit: usize) {
    for line in super::devices::lines(cluster, p, limit) {
        if line.kind == super::devices::Kind::Heading {
            out.push('\n');
        }
        let _ = writeln!(out, "{}", line.text);
    }
}

fn render_preemption(out: &mut String, cluster: &Cluster, pr: &PreemptionAnswer, limit: usize) {
    let _ = writeln!(out, "\nPreemption:");
    if !pr.eligible {
        let _ = writeln!(
            out,
            "  {}",
            super::not_eligible(pr.ineligible_reason.as_deref().unwrap_or(""))
        );
        return;
    }
    if pr.candidates.is_empty() {
        let _ = writeln!(
            out,
            "  no candidate node: evicting lower-priority pods would not make room anywhere"
        );
        return;
    }
    let Some(node) = pr.node else { return };
    let _ = writeln!(out, "  nominated node: {}", cluster.node(node).name);
    if pr.chosen_nodes.len() > 1 {
        let names: Vec<&str> = pr
            .chosen_nodes
            .iter()
            .map(|&n| &*cluster.node(n).name)
            .collect();
        let _ = writeln!(
            out,
            "  (exact tie between {}; the scheduler picks one of them)",
            capped_list(&names, limit, ", ")
        );
    }
    if pr.potential_nodes > pr.upstream_sample {
        let _ = writeln!(
            out,
            "  kplace dry-ran all {} potential nodes; the scheduler samples {} of them at random, so it may nominate a worse node",
            pr.potential_nodes, pr.upstream_sample
        );
    }
    if let Some(t) = &pr.termination {
        let width = t
            .victims
            .iter()
            .map(|v| cluster.pod_key(v.pod).len())
            .max()
            .unwrap_or(4)
            .max(4);
        let _ = writeln!(
            out,
            "  victims on {} ({}):",
            cluster.node(node).name,
            t.victims.len()
        );
        let _ = writeln!(
            out,
            "    {:<width$}  {:>11}  {:>6}  {:>5}  {:<20}  PDB BROKEN",
            "POD", "PRIORITY", "GRACE", "MAX", "STATEFULSET"
        );
        for v in &t.victims {
            let grace = if v.has_pre_stop {
                format!("{}s+ps", v.grace_seconds)
            } else {
                format!("{}s", v.grace_seconds)
            };
            let _ = writeln!(
                out,
                "    {:<width$}  {:>11}  {:>6}  {:>4}s  {:<20}  {}",
                cluster.pod_key(v.pod),
                cluster.pod(v.pod).priority_value(),
                grace,
                v.max_seconds,
                v.stateful_set.as_deref().unwrap_or("-"),
                if v.violated_pdbs.is_empty() {
                    "-".to_string()
                } else {
                    capped_list(&v.violated_pdbs, limit, ",")
                },
            );
        }
        let _ = writeln!(
            out,
            "  earliest bind: about {} s after the eviction (slowest victim{}), plus 1–2 s for the kubelet to report and the scheduler's retry backoff",
            t.earliest_bind_seconds,
            t.slowest
                .map(|s| format!(" {}", cluster.pod_key(s)))
                .unwrap_or_default()
        );
        if t.victims.iter().any(|v| v.stateful_set.is_some()) {
            let _ = writeln!(
                out,
                "  StatefulSet victims are replaced only after they are fully gone (at most one pod per identity)"
            );
        }
        if t.victims.iter().any(|v| !v.violated_pdbs.is_empty()) {
            let _ = writeln!(
                out,
                "  PodDisruptionBudgets are best-effort under preemption: the scheduler evicts anyway"
            );
        }
    }
    let mut ranked: Vec<_> = pr.candidates.iter().collect();
    ranked.sort_by_key(|c| {
        (
            c.lost_on.map(|l| l as u8 + 1).unwrap_or(0),
            c.num_pdb_violations,
            c.victims.len(),
        )
    });
    let shown = if limit == 0 {
        ranked.len()
    } else {
        ranked.len().min(limit)
    };
    let _ = writeln!(out, "  candidate nodes ({}):", ranked.len());
    let width = ranked
        .iter()
        .take(shown)
        .map(|c| cluster.node(c.node).name.len())
        .max()
        .unwrap_or(4)
        .max(4);
    let _ = writeln!(
        out,
        "    {:<width$}  {:>7}  {:>14}  {:>12}  LOST ON",
        "NODE", "VICTIMS", "PDB VIOLATIONS", "TOP PRIORITY"
    );
    for c in ranked.iter().take(shown) {
        let top = c
            .victims
            .first()
            .map(|&v| cluster.pod(v).priority_value().to_string())
            .unwrap_or_default();
        let lost = match c.lost_on {
            None => "chosen".to_string(),
            Some(l) => l.as_str().to_string(),
        };
        let _ = writeln!(
            out,
            "    {:<width$}  {:>7}  {:>14}  {:>12}  {lost}",
            cluster.node(c.node).name,
            c.victims.len(),
            c.num_pdb_violations,
            top
        );
    }
    if shown < ranked.len() {
        let _ = writeln!(
            out,
            "    … {} more (use --limit 0 for all)",
            ranked.len() - shown
        );
    }
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
    let placed = plan
        .steps
        .iter()
        .filter(|s| s.placement.node.is_some())
        .count();
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
    let lands = |o: Outcome| matches!(o, Outcome::Scheduled | Outcome::Preempt);
    let placed = plan
        .steps
        .iter()
        .filter(|s| lands(s.placement.outcome))
        .count();
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
