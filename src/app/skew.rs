//! What the Skew view draws, all of it the engine's: for one pod (a
//! workload's next replica, or a pending pod) and one of the spread
//! constraints PodTopologySpread applies to it, the domains and matching
//! pods PreFilter counts (with `nodeAffinityPolicy` and `nodeTaintsPolicy`),
//! the minimum Filter measures against, the skew each domain would have with
//! the pod in it, and whether the domain has a node where the pod passes
//! every filter now. Also the fleet-wide list of workloads at their
//! `maxSkew`. Nothing is counted here; this only turns answers into text.

use std::collections::BTreeMap;

use crate::engine::Scheduler;
use crate::engine::node_memo::SpreadLookups;
use crate::engine::plugins::podtopologyspread::domains::{
    ConstraintDomains, NodeInclusion, own_spread_domains, own_spread_skews, spread_domains,
};
use crate::model::pod::{InclusionPolicy, WhenUnsatisfiable};
use crate::model::{Cluster, Pod, PodId};

use super::derived::Workload;

/// What the Skew view can look at: a workload or a pending pod.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Subject {
    /// An index into `Derived::workloads`.
    Workload(usize),
    /// A pending pod with spread constraints of its own.
    Pending(PodId),
}

#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Domain {
    pub value: String,
    /// Nodes of the domain PreFilter counts.
    pub nodes: usize,
    /// Matching pods, as PreFilter counts them.
    pub pods: i64,
    /// Filter's skew with the pod placed here (`None`: Filter skips the
    /// constraint, no counted node carries the key).
    pub skew_after: Option<i64>,
    /// PodTopologySpread's Filter lets the pod in (always for ScheduleAnyway).
    pub admits: bool,
    /// Nodes of the domain where the pod passes every filter now.
    pub fitting: usize,
    /// The commonest reason the domain's other nodes fail, when none fits.
    pub why_not: Option<String>,
}

impl Domain {}

#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct SkewReport {
    /// `ReplicaSet shop/web` or `pending pod shop/web-x`.
    pub subject: String,
    /// Which pod the answers are for.
    pub pod_note: String,
    /// Index of the constraint shown, and how many apply.
    pub index: usize,
    pub count: usize,
    pub topology_key: String,
    /// The selector counted, as kubectl prints it.
    pub selector: String,
    /// Whose constraint: the pod's own, or the profile's defaults.
    pub source: &'static str,
    pub action: Option<WhenUnsatisfiable>,
    pub max_skew: Option<i32>,
    pub min_domains: Option<i32>,
    pub node_affinity_policy: &'static str,
    pub node_taints_policy: &'static str,
    /// The minimum Filter measures against.
    pub global_min: Option<i64>,
    /// Skew now: fullest domain minus the minimum.
    pub skew: Option<i64>,
    /// The other constraints, for context.
    pub other_constraints: Vec<String>,
    /// Sorted by value.
    pub domains: Vec<Domain>,
    /// Nodes PreFilter does not count, by reason.
    pub excluded: Vec<(&'static str, Vec<String>)>,
    /// The pod's Filter pass could not run (no profile for it).
    pub no_profile: bool,
}

fn policy(p: InclusionPolicy) -> &'static str {
    match p {
        InclusionPolicy::Honor => "Honor",
        InclusionPolicy::Ignore => "Ignore",
    }
}

fn action_str(a: WhenUnsatisfiable) -> &'static str {
    match a {
        WhenUnsatisfiable::DoNotSchedule => "DoNotSchedule",
        WhenUnsatisfiable::ScheduleAnyway => "ScheduleAnyway",
    }
}

/// The pod the Skew view asks about: a workload's next replica (a copy of
/// one of its pods, unbound), or the pending pod itself.
pub fn subject_pod(
    cluster: &Cluster,
    subject: &Subject,
    workloads: &[Workload],
) -> Option<(String, String, Pod)> {
    match subject {
        Subject::Workload(w) => {
            let w = workloads.get(*w)?;
            let sample = w.sample_pod()?;
            let mut pod = cluster.pod(sample).clone();
            pod.node = None;
            pod.node_name = None;
            pod.nominated_node_name = None;
            Some((
                format!("{} {}", w.kind, w.label),
                format!(
                    "the next replica (a copy of {}, not yet bound)",
                    cluster.pod_key(sample)
                ),
                pod,
            ))
        }
        Subject::Pending(id) => Some((
            format!("pending pod {}", cluster.pod_key(*id)),
            "this pending pod".to_string(),
            cluster.pod(*id).clone(),
        )),
    }
}

/// The report for `pod` and its `index`-th constraint (wrapping), as the
/// `scheduler` release's profile for the pod applies them.
pub fn compute(
    cluster: &Cluster,
    subject: String,
    pod_note: String,
    pod: &Pod,
    scheduler: &Scheduler,
    index: usize,
) -> SkewReport {
    let profile = scheduler.profiles.for_scheduler(&pod.scheduler_name);
    let all = match profile {
        Some(p) => spread_domains(cluster, pod, &p.args.pod_topology_spread),
        None => {
            let mut v = own_spread_domains(cluster, pod, WhenUnsatisfiable::DoNotSchedule);
            v.extend(own_spread_domains(
                cluster,
                pod,
                WhenUnsatisfiable::ScheduleAnyway,
            ));
            v
        }
    };
    let mut report = SkewReport {
        subject,
        pod_note,
        count: all.len(),
        no_profile: profile.is_none(),
        ..Default::default()
    };
    if all.is_empty() {
        return report;
    }
    let index = index % all.len();
    let c = &all[index];
    let name = |s| cluster.interner.resolve(s).to_string();
    report.index = index;
    report.topology_key = name(c.constraint.topology_key);
    report.selector = c.constraint.selector.display(&cluster.interner);
    report.source = if c.from_pod {
        "the pod's own constraint"
    } else {
        "the profile's default constraints (the pod has none)"
    };
    report.action = Some(c.action);
    report.max_skew = Some(c.constraint.max_skew);
    report.min_domains = (c.constraint.min_domains != 1).then_some(c.constraint.min_domains);
    report.node_affinity_policy = policy(c.constraint.node_affinity_policy);
    report.node_taints_policy = policy(c.constraint.node_taints_policy);
    report.global_min = c.min_match;
    report.skew = c.skew();
    report.other_constraints = all
        .iter()
        .enumerate()
        .filter(|(i, _)| *i != index)
        .map(|(_, o)| {
            format!(
                "{} maxSkew {} {}",
                name(o.constraint.topology_key),
                o.constraint.max_skew,
                action_str(o.action)
            )
        })
        .collect();
    let verdicts = crate::engine::filter_verdicts(cluster, pod, scheduler);
    report.domains = c
        .domains
        .iter()
        .map(|d| {
            let mut fitting = 0;
            let mut reasons: BTreeMap<String, usize> = BTreeMap::new();
            for &n in &d.nodes {
                match verdicts.as_ref().map(|v| &v[n as usize]) {
                    Some(Ok(())) => fitting += 1,
                    Some(Err(r)) => {
                        let text = r
                            .reasons
                            .first()
                            .map(|s| s.to_string())
                            .unwrap_or_else(|| r.plugin.as_str().to_string());
                        *reasons.entry(text).or_default() += 1;
                    }
                    None => {}
                }
            }
            let why_not = (fitting == 0)
                .then(|| {
                    reasons
                        .into_iter()
                        .max_by(|a, b| a.1.cmp(&b.1).then(b.0.cmp(&a.0)))
                        .map(|r| r.0)
                })
                .flatten();
            Domain {
                value: match cluster.interner.resolve(d.value) {
                    "" => "\"\"".to_string(),
                    v => v.to_string(),
                },
                nodes: d.nodes.len(),
                pods: d.matching,
                skew_after: c.skew_if_placed(d),
                admits: c.admits(d),
                fitting,
                why_not,
            }
        })
        .collect();
    report.domains.sort_by(|a, b| a.value.cmp(&b.value));
    for reason in [
        NodeInclusion::MissingKey,
        NodeInclusion::NodeAffinityPolicy,
        NodeInclusion::NodeTaintsPolicy,
    ] {
        let nodes: Vec<String> = c
            .inclusion
            .iter()
            .enumerate()
            .filter(|(_, i)| **i == reason)
            .map(|(n, _)| cluster.nodes[n].name.to_string())
            .collect();
        if !nodes.is_empty() {
            report.excluded.push((reason.as_str(), nodes));
        }
    }
    report
}

/// A workload whose DoNotSchedule constraint is at (or past) its maxSkew,
/// or one replica away from it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct SkewAlert {
    /// Index into `Derived::workloads`.
    pub workload: usize,
    pub label: String,
    pub topology_key: String,
    pub skew: i64,
    pub max_skew: i32,
    /// The fullest domain.
    pub fullest: String,
}

impl SkewAlert {
    /// At or over maxSkew: the next replica may not go to the fullest domain.
    pub fn at_max(&self) -> bool {
        self.skew >= self.max_skew as i64
    }

    /// The topology key's last part (`zone`, `hostname`), as the fleet
    /// list shows it.
    pub fn short_key(&self) -> &str {
        let k = &self.topology_key;
        k.rsplit('/').next().unwrap_or(k)
    }
}

/// Every workload's own DoNotSchedule constraints through the engine's
/// domain counts: those at or over maxSkew first (most over first), then
/// those one replica away from it.
///
/// `lookups` keeps what the PreFilters read of the nodes and owners (for
/// `cluster`'s nodes and owners only).
pub fn fleet(cluster: &Cluster, workloads: &[Workload], lookups: &SpreadLookups) -> Vec<SkewAlert> {
    use rayon::prelude::*;
    // One engine PreFilter per spreading workload: thousands on a large
    // cluster, so over every core, reading the nodes' topology values once.
    let mut out: Vec<SkewAlert> = workloads
        .par_iter()
        .enumerate()
        .flat_map_iter(|(i, w)| workload_alerts(cluster, i, w, lookups))
        .collect();
    sort_alerts(&mut out);
    out
}

/// [`fleet`] after a live update, from the alerts `previous` computed for
/// `previous_workloads`: a workload's alerts are asked of the engine again
/// only when `dirty` says what they depend on changed (see
/// [`Fleet`](super::derived::Fleet)'s update) or it is new; the caller
/// asks for [`fleet`] when nodes changed.
pub fn fleet_updated(
    cluster: &Cluster,
    workloads: &[Workload],
    previous_workloads: &[Workload],
    previous: &[SkewAlert],
    dirty: &(dyn Fn(&Workload, &Workload) -> bool + Sync),
    lookups: &SpreadLookups,
) -> Vec<SkewAlert> {
    use rayon::prelude::*;
    // Each owner's previous alerts, in their order.
    let mut kept: rustc_hash::FxHashMap<usize, Vec<&SkewAlert>> = Default::default();
    let known: rustc_hash::FxHashMap<usize, &Workload> =
        previous_workloads.iter().map(|w| (w.owner, w)).collect();
    for a in previous {
        kept.entry(previous_workloads[a.workload].owner)
            .or_default()
            .push(a);
    }
    let mut out: Vec<SkewAlert> = workloads
        .par_iter()
        .enumerate()
        .flat_map_iter(|(i, w)| {
            match known.get(&w.owner) {
                Some(before) if !dirty(before, w) => {}
                _ => return workload_alerts(cluster, i, w, lookups),
            }
            kept.get(&w.owner)
                .map(|alerts| {
                    alerts
                        .iter()
                        .map(|a| SkewAlert {
                            workload: i,
                            ..(*a).clone()
                        })
                        .collect()
                })
                .unwrap_or_default()
        })
        .collect();
    sort_alerts(&mut out);
    out
}

fn sort_alerts(out: &mut [SkewAlert]) {
    out.sort_by(|a, b| {
        b.at_max()
            .cmp(&a.at_max())
            .then((b.skew - b.max_skew as i64).cmp(&(a.skew - a.max_skew as i64)))
            .then(a.label.cmp(&b.label))
    });
}

/// The alerts of workload `i` (`w`): one per DoNotSchedule constraint of
/// its pods at or one replica from its maxSkew.
fn workload_alerts(
    cluster: &Cluster,
    i: usize,
    w: &Workload,
    lookups: &SpreadLookups,
) -> Vec<SkewAlert> {
    let mut out = Vec::new();
    let Some(sample) = w.sample_pod() else {
        return out;
    };
    let pod = cluster.pod(sample);
    if !pod
        .spread_constraints
        .iter()
        .any(|c| c.when_unsatisfiable == WhenUnsatisfiable::DoNotSchedule)
    {
        return out;
    }
    for c in own_spread_skews(
        cluster,
        pod,
        WhenUnsatisfiable::DoNotSchedule,
        Some(lookups),
    ) {
        let Some(skew) = c.skew else { continue };
        let max_skew = c.constraint.max_skew;
        if skew < max_skew as i64 - 1 {
            continue;
        }
        let fullest = c
            .fullest
            .map(|v| cluster.interner.resolve(v).to_string())
            .unwrap_or_default();
        out.push(SkewAlert {
            workload: i,
            label: format!(
                "{} {}",
                if w.kind == "StatefulSet" {
                    "sts"
                } else {
                    "rs "
                },
                w.label
            ),
            topology_key: cluster
                .interner
                .resolve(c.constraint.topology_key)
                .to_string(),
            skew,
            max_skew,
            fullest,
        });
    }
    out
}

/// The zone skew of a workload's own zone constraint (DoNotSchedule first,
/// else ScheduleAnyway), with the matching pods per zone, as the engine
/// counts them; `None` when its pods do not spread over `zone`.
pub fn zone_skew(
    cluster: &Cluster,
    workload: &Workload,
    zone: crate::model::Sym,
) -> Option<(i64, Vec<(String, i64)>)> {
    let pod = cluster.pod(workload.sample_pod()?);
    let c: ConstraintDomains = [
        WhenUnsatisfiable::DoNotSchedule,
        WhenUnsatisfiable::ScheduleAnyway,
    ]
    .into_iter()
    .flat_map(|a| own_spread_domains(cluster, pod, a))
    .find(|c| c.constraint.topology_key == zone)?;
    let mut per_zone: Vec<(String, i64)> = c
        .domains
        .iter()
        .map(|d| (cluster.interner.resolve(d.value).to_string(), d.matching))
        .collect();
    per_zone.sort();
    Some((c.skew().unwrap_or(0), per_zone))
}

/// One Skew question: everything [`compute`] needs, owned, so the answer
/// can be worked out on the Skew job's thread.
pub struct SkewRequest {
    pub seq: u64,
    pub cluster: std::sync::Arc<Cluster>,
    pub subject: String,
    pub pod_note: String,
    pub pod: Pod,
    pub scheduler: Scheduler,
    pub index: usize,
}

/// The Skew view's background job: the newest selection wins, and each
/// report comes back with the number of the request it answers.
pub fn skew_job() -> super::job::Job<SkewRequest, (u64, SkewReport)> {
    super::job::Job::spawn("skew", |r: SkewRequest, ctx| {
        let report = compute(
            &r.cluster,
            r.subject,
            r.pod_note,
            &r.pod,
            &r.scheduler,
            r.index,
        );
        ctx.send((r.seq, report));
    })
}
