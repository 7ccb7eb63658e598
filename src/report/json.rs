//! The `place -o json` contract: the conformance corpus's answer files
//! fields with the same names and meanings, plus `node`, the preemption
//! `node`/`victims`/termination estimate, and notes.

use serde_json::{Map, Value, json};

use crate::engine::preemption::PreemptionAnswer;
use crate::engine::termination::TerminationEstimate;
use crate::engine::{Outcome, Placement};
use crate::model::{Cluster, NodeId, PodId};

fn name(cluster: &Cluster, id: NodeId) -> Value {
    Value::String(cluster.node(id).name.to_string())
}

fn sorted_names(cluster: &Cluster, ids: &[NodeId]) -> Vec<String> {
    let mut v: Vec<String> = ids
        .iter()
        .map(|&id| cluster.node(id).name.to_string())
        .collect();
    v.sort();
    v
}

fn sorted_pods(cluster: &Cluster, ids: &[PodId]) -> Vec<String> {
    let mut v: Vec<String> = ids.iter().map(|&id| cluster.pod_key(id)).collect();
    v.sort();
    v
}

/// `schedulerVersionSource`: how the release was chosen.
pub fn scheduler_source(choice: &crate::engine::VersionChoice) -> Value {
    json!({
        "kind": choice.source_kind(),
        "clamped": choice.clamped,
        "reason": choice.reason(),
    })
}

pub fn placement(cluster: &Cluster, p: &Placement) -> Value {
    let mut out = Map::new();
    out.insert("pod".into(), json!(p.pod));
    out.insert("priority".into(), json!(p.priority));
    out.insert("priorityClassName".into(), json!(p.priority_class));
    out.insert(
        "preemptionPolicy".into(),
        json!(p.preemption_policy.as_str()),
    );
    out.insert("outcome".into(), json!(p.outcome.as_str()));
    out.insert("rejection".into(), json!(p.rejection));
    out.insert(
        "schedulerVersion".into(),
        json!(p.scheduler.version.as_str()),
    );
    out.insert(
        "schedulerVersionSource".into(),
        scheduler_source(&p.scheduler),
    );
    if let Some(profile) = &p.profile {
        out.insert("profile".into(), json!(profile.scheduler_name));
        out.insert("profileSource".into(), json!(p.profiles_origin));
        out.insert(
            "upstreamFeasibleNodesToFind".into(),
            json!(p.upstream_nodes_to_find),
        );
        out.insert(
            "scorePlugins".into(),
            Value::Object(
                profile
                    .score
                    .iter()
                    .map(|(plugin, weight)| (plugin.as_str().to_string(), json!(weight)))
                    .collect(),
            ),
        );
    }
    if !matches!(
        p.outcome,
        Outcome::Rejected | Outcome::Gated | Outcome::WaitingForClaims | Outcome::NoProfile
    ) {
        out.insert(
            "feasibleNodes".into(),
            json!(sorted_names(cluster, &p.feasible)),
        );
        let mut failures = Map::new();
        let mut sorted: Vec<_> = p.failures.iter().collect();
        sorted.sort_by(|a, b| cluster.node(a.node).name.cmp(&cluster.node(b.node).name));
        for f in sorted {
            failures.insert(
                cluster.node(f.node).name.to_string(),
                json!({
                    "plugin": f.rejection.plugin.as_str(),
                    "code": f.rejection.code.as_str(),
                    "reasons": f.rejection.reasons,
                }),
            );
        }
        out.insert("filterFailures".into(), Value::Object(failures));
        let mut scores = Map::new();
        for s in &p.scores {
            let plugins: Map<String, Value> = p
                .score_plugins()
                .iter()
                .zip(&s.plugins)
                .map(|((plugin, _), v)| (plugin.as_str().to_string(), json!(v)))
                .collect();
            scores.insert(
                cluster.node(s.node).name.to_string(),
                json!({"total": s.total, "plugins": plugins}),
            );
        }
        out.insert("scores".into(), Value::Object(scores));
        out.insert("bestNodes".into(), json!(sorted_names(cluster, &p.best)));
    }
    out.insert(
        "node".into(),
        p.node.map(|n| name(cluster, n)).unwrap_or(Value::Null),
    );
    out.insert(
        "preemption".into(),
        p.preemption
            .as_ref()
            .map(|pr| preemption(cluster, pr))
            .unwrap_or(Value::Null),
    );
    out.insert("message".into(), json!(p.message));
    if !p.devices.is_empty() {
        out.insert(
            "devices".into(),
            Value::Array(
                p.devices
                    .iter()
                    .map(|d| {
                        json!({
                            "claim": d.claim,
                            "request": d.request,
                            "driver": d.driver,
                            "pool": d.pool,
                            "device": d.device,
                            "alreadyAllocated": d.already_allocated,
                        })
                    })
                    .collect(),
            ),
        );
    }
    if !p.device_availability.is_empty() {
        out.insert(
            "deviceAvailability".into(),
            Value::Array(
                p.device_availability
                    .iter()
                    .map(|n| {
                        json!({
                            "node": cluster.node(n.node).name.to_string(),
                            "requests": n.requests.iter().map(|r| json!({
                                "claim": r.claim,
                                "request": r.request,
                                "deviceClass": r.device_class,
                                "count": r.count,
                                "matching": r.matching,
                                "free": r.free,
                                "heldBy": r.held.iter().map(|h| json!({
                                    "device": h.device,
                                    "claim": h.claim,
                                    "pods": h.pods,
                                })).collect::<Vec<_>>(),
                            })).collect::<Vec<_>>(),
                        })
                    })
                    .collect(),
            ),
        );
    }
    if let Some(ungated) = &p.if_ungated {
        out.insert("ifUngated".into(), placement(cluster, ungated));
    }
    if !p.notes.is_empty() {
        out.insert("notes".into(), json!(p.notes));
    }
    Value::Object(out)
}

fn preemption(cluster: &Cluster, pr: &PreemptionAnswer) -> Value {
    let mut candidates = Map::new();
    let mut sorted: Vec<_> = pr.candidates.iter().collect();
    sorted.sort_by(|a, b| cluster.node(a.node).name.cmp(&cluster.node(b.node).name));
    for c in sorted {
        candidates.insert(
            cluster.node(c.node).name.to_string(),
            json!({
                "victims": sorted_pods(cluster, &c.victims),
                "numPDBViolations": c.num_pdb_violations,
                "lostOn": c.lost_on.map(|l| l.as_str()),
            }),
        );
    }
    json!({
        "eligible": pr.eligible,
        "ineligibleReason": pr.ineligible_reason,
        "candidates": candidates,
        "chosenNodes": sorted_names(cluster, &pr.chosen_nodes),
        "node": pr.node.map(|n| name(cluster, n)),
        "victims": pr.victims.iter().map(|&v| cluster.pod_key(v)).collect::<Vec<_>>(),
        "termination": pr.termination.as_ref().map(|t| termination(cluster, t)),
        "message": pr.message,
        "potentialNodes": pr.potential_nodes,
        "upstreamSampleSize": pr.upstream_sample,
    })
}

fn termination(cluster: &Cluster, t: &TerminationEstimate) -> Value {
    json!({
        "earliestBindSeconds": t.earliest_bind_seconds,
        "slowestVictim": t.slowest.map(|v| cluster.pod_key(v)),
        "victims": t.victims.iter().map(|v| json!({
            "pod": cluster.pod_key(v.pod),
            "priority": cluster.pod(v.pod).priority_value(),
            "gracePeriodSeconds": v.grace_seconds,
            "maxSeconds": v.max_seconds,
            "preStop": v.has_pre_stop,
            "alreadyTerminating": v.already_terminating,
            "statefulSet": v.stateful_set,
            "violatedPDBs": v.violated_pdbs,
        })).collect::<Vec<_>>(),
    })
}

/// `place --replicas N`: one answer per replica in order, and the final
/// per-domain counts of each spread constraint.
pub fn replica_plan(plan: &crate::engine::replicas::ReplicaPlan) -> Value {
    let cluster = &plan.cluster;
    let steps: Vec<Value> = plan
        .steps
        .iter()
        .map(|step| {
            let mut v = placement(cluster, &step.placement);
            if let Value::Object(m) = &mut v {
                m.insert("replica".into(), json!(step.replica));
                m.insert("name".into(), json!(step.name));
                if !step.new_claims.is_empty() {
                    m.insert("newClaims".into(), json!(step.new_claims));
                }
            }
            v
        })
        .collect();
    let domains: Vec<Value> = plan
        .domains_after
        .last()
        .map(|d| d.iter().map(|dc| domain_counts(cluster, dc)).collect())
        .unwrap_or_default();
    json!({
        "replicas": steps,
        "placed": plan.steps.iter().filter(|s| s.placement.node.is_some()).count(),
        "firstUnplaceable": plan.first_unplaceable,
        "domains": domains,
    })
}

fn domain_counts(cluster: &Cluster, dc: &crate::engine::replicas::DomainCounts) -> Value {
    let c = &dc.constraint;
    let counts: Map<String, Value> = dc
        .counts
        .iter()
        .map(|(v, n)| (v.clone(), json!(n)))
        .collect();
    json!({
        "topologyKey": cluster.interner.resolve(c.topology_key),
        "maxSkew": c.max_skew,
        "whenUnsatisfiable": match c.when_unsatisfiable {
            crate::model::pod::WhenUnsatisfiable::DoNotSchedule => "DoNotSchedule",
            crate::model::pod::WhenUnsatisfiable::ScheduleAnyway => "ScheduleAnyway",
        },
        "selector": c.selector.display(&cluster.interner),
        "counts": counts,
        "skew": dc.skew(),
    })
}

/// `place --replicas max`: how many more fit, with and without preemption.
pub fn capacity(runs: &[crate::engine::replicas::Capacity]) -> Value {
    let one = |c: &crate::engine::replicas::Capacity| {
        let next = c.next.as_ref().map(|p| {
            json!({
                "outcome": p.outcome.as_str(),
                "message": if p.message.is_empty() { p.rejection.clone().unwrap_or_default() } else { p.message.clone() },
            })
        });
        json!({
            "count": c.count,
            "capped": c.capped,
            "perZone": c.per_zone.iter().map(|(z, n)| (z.clone(), json!(n))).collect::<Map<_, _>>(),
            "evicted": c.evicted,
            "domains": c.domains.iter().map(|dc| domain_counts(&c.cluster, dc)).collect::<Vec<_>>(),
            "nextFailure": next,
        })
    };
    let mut out = Map::new();
    for c in runs {
        let key = if c.with_preemption {
            "withPreemption"
        } else {
            "withoutPreemption"
        };
        out.insert(key.into(), one(c));
    }
    json!({ "capacity": out })
}

/// `place --pod ds.yaml -o json`: the daemon pods (each a replica step
/// with the node it is pinned to) and the nodes the controller skips.
pub fn daemon_plan(original: &Cluster, daemon: &crate::engine::daemonset::DaemonPlan) -> Value {
    let mut v = replica_plan(&daemon.plan);
    if let Some(Value::Array(steps)) = v.get_mut("replicas") {
        for (step, &node) in steps.iter_mut().zip(&daemon.eligibility.eligible) {
            step["pinnedTo"] = json!(original.node(node).name.as_ref());
        }
    }
    let pods = v.as_object_mut().and_then(|m| m.remove("replicas"));
    v["pods"] = pods.unwrap_or(json!([]));
    v["eligibleNodes"] = json!(daemon.eligibility.eligible.len());
    v["notEligible"] = daemon
        .eligibility
        .not_eligible
        .iter()
        .map(|(n, why)| json!({"node": original.node(*n).name.as_ref(), "reason": why}))
        .collect();
    v
}
