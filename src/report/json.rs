//! The `place -o json` contract: the conformance corpus's answer files
//! fields with the same names and meanings, plus `node`, the preemption
//! `node`/`victims`/termination estimate, and notes.

use serde_json::{Map, Value, json};

use crate::engine::Placement;
use crate::model::Cluster;

/// `schedulerVersionSource`: how the release was chosen.
pub fn scheduler_source(choice: &crate::engine::VersionChoice) -> Value {
    serde_json::to_value(super::answer::VersionSource::new(choice))
        .expect("a version source serializes")
}

/// The answer for one pod, as the typed document serializes it.
pub fn placement(cluster: &Cluster, p: &Placement) -> Value {
    serde_json::to_value(super::answer::PlacementAnswer::new(cluster, p))
        .expect("a placement answer serializes")
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
        "placed": plan.placed(),
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
