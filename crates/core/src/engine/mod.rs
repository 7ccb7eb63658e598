//! The kube-scheduler re-implementation, versioned: every answer is asked
//! of one release (v1.30–v1.34, [`version::Version`]), chosen by the caller
//! and recorded in the answer. Mirrors the upstream framework: admission
//! (priority) → PreEnqueue (scheduling gates) → PreFilter/Filter →
//! PreScore/Score/Normalize → selection, and DefaultPreemption when nothing
//! fits. Pure functions over the model: no I/O, no UI.

mod admission;
mod answer;
pub mod daemonset;
pub mod disruption;
mod fit_error;
mod framework;
mod image_scores;
pub mod node_memo;
pub mod plugins;
pub mod preemption;
pub mod profile;
pub mod remedies;
pub mod replicas;
mod resource_scores;
pub mod scenario;
pub mod statefulset;
pub mod status;
pub mod termination;
pub mod version;

pub use answer::{
    HeldDevice, NodeDevices, NodeFailure, Outcome, PickedDevice, Placement, RequestDevices,
};
pub use profile::{Profile, Profiles};
pub use version::{Version, VersionChoice, VersionSource};

use std::sync::Arc;

/// What an answer is asked of: a scheduler release (and how it was chosen)
/// and the profiles it runs, the built-in default or an operator's
/// configuration. An input of every engine call, never global state.
#[derive(Clone, Debug, PartialEq)]
pub struct Scheduler {
    pub version: VersionChoice,
    pub profiles: Arc<Profiles>,
}

impl Scheduler {
    /// The release's default profile.
    pub fn new(version: VersionChoice) -> Self {
        Scheduler {
            profiles: Arc::new(Profiles::default_for(version.version)),
            version,
        }
    }

    /// A configuration's profiles, already merged for `version`.
    pub fn with_profiles(version: VersionChoice, profiles: Arc<Profiles>) -> Self {
        Scheduler { version, profiles }
    }

    /// The release with a configuration's profiles merged for it, or the
    /// release's default profile without one.
    pub fn configured(
        version: VersionChoice,
        config: Option<&Profiles>,
    ) -> Result<Self, profile::ProfileError> {
        match config {
            None => Ok(Scheduler::new(version)),
            Some(config) => Ok(Scheduler {
                profiles: Arc::new(config.for_version(version.version)?),
                version,
            }),
        }
    }

    /// "the default profile", or the configuration file and its profiles.
    pub fn describe_profiles(&self) -> String {
        if self.profiles.specs.is_none() {
            return self.profiles.origin.clone();
        }
        let names: Vec<&str> = self
            .profiles
            .profiles
            .iter()
            .map(|p| p.scheduler_name.as_str())
            .collect();
        format!("{} (profiles {})", self.profiles.origin, names.join(", "))
    }
}

impl Default for Scheduler {
    /// The newest supported release with its default profile.
    fn default() -> Self {
        Scheduler::new(VersionChoice::default())
    }
}

use crate::model::pod::PreemptionPolicy;
use crate::model::{Cluster, NodeId, Pod};
use framework::{Cycle, EarlyScores, score_nodes};

/// Answers for a new pod as the chosen release would: priority admission
/// first, then a scheduling cycle.
pub fn place(cluster: &Cluster, pod: &Pod, scheduler: &Scheduler) -> Placement {
    place_with(cluster, pod, scheduler, None)
}

/// [`place`], answering what reads only the pod and the node from `memo`
/// (see [`schedule_with`]).
pub fn place_with(
    cluster: &Cluster,
    pod: &Pod,
    scheduler: &Scheduler,
    memo: Option<&node_memo::NodeMemo>,
) -> Placement {
    match admission::admit(cluster, pod) {
        Err(rejection) => Placement {
            outcome: Outcome::Rejected,
            rejection: Some(rejection),
            priority: None,
            ..Placement::new(pod_key(cluster, pod), pod, scheduler)
        },
        Ok(_)
            if scheduler
                .profiles
                .for_scheduler(&pod.scheduler_name)
                .is_none() =>
        {
            // The scheduler only picks up pods of its own profiles.
            let mut answer = Placement::new(pod_key(cluster, pod), pod, scheduler);
            answer.outcome = Outcome::NoProfile;
            answer.message = format!(
                "profile not found for scheduler name {:?}",
                pod.scheduler_name.as_ref()
            );
            answer
        }
        Ok(admitted) => {
            let mut admitted_pod = pod.clone();
            admitted_pod.priority = Some(admitted.priority);
            admitted_pod.preemption_policy = Some(admitted.preemption_policy);
            let mut answer = schedule_with(cluster, &admitted_pod, scheduler, memo);
            answer.priority_class = admitted.priority_class;
            answer
        }
    }
}

/// Answers for a pod already admitted (its `spec.priority` is resolved), such
/// as a pending pod of the snapshot. The pod must not be counted in `cluster`.
///
/// A pod with scheduling gates is never attempted (PreEnqueue): the answer
/// is `gated` with the SchedulingGates plugin's message, and where the pod
/// would go once ungated is kept in [`Placement::if_ungated`].
pub fn schedule(cluster: &Cluster, pod: &Pod, scheduler: &Scheduler) -> Placement {
    schedule_with(cluster, pod, scheduler, None)
}

/// [`schedule`], answering what reads only the pod and the node from
/// `memo` (made for `cluster`'s nodes as they are): the same answer, for
/// runs of many placements on one set of nodes.
pub fn schedule_with(
    cluster: &Cluster,
    pod: &Pod,
    scheduler: &Scheduler,
    memo: Option<&node_memo::NodeMemo>,
) -> Placement {
    let Some(profile) = scheduler.profiles.for_scheduler(&pod.scheduler_name) else {
        let mut answer = Placement::new(pod_key(cluster, pod), pod, scheduler);
        answer.outcome = Outcome::NoProfile;
        answer.message = format!(
            "profile not found for scheduler name {:?}",
            pod.scheduler_name.as_ref()
        );
        return answer;
    };
    let mut answer = attempt(cluster, pod, scheduler, profile, memo);
    if pod.scheduling_gates.is_empty() || !profile.gates() {
        // PreEnqueue plugins run in order: SchedulingGates, then
        // DynamicResources.
        if profile
            .pre_enqueue
            .contains(&status::Plugin::DynamicResources)
            && let Err(message) = plugins::dynamicresources::pre_enqueue(cluster, pod)
        {
            let mut waiting = Placement::new(answer.pod.clone(), pod, scheduler);
            waiting.profile = answer.profile.clone();
            waiting.priority_class = answer.priority_class.clone();
            waiting.outcome = Outcome::WaitingForClaims;
            waiting.message = message;
            waiting.notes.push(
                "the scheduler does not attempt the pod until all of its ResourceClaims exist (DynamicResources PreEnqueue)".into(),
            );
            return waiting;
        }
        return answer;
    }
    let mut gated = Placement::new(answer.pod.clone(), pod, scheduler);
    gated.profile = answer.profile.clone();
    gated.priority_class = answer.priority_class.clone();
    gated.outcome = Outcome::Gated;
    gated.message = format!(
        "waiting for scheduling gates: [{}]",
        pod.scheduling_gates.join(" ")
    );
    gated.notes.push(
        "the scheduler does not attempt the pod until its scheduling gates are removed; ifUngated shows where it would go then".into(),
    );
    answer.notes.clear();
    gated.if_ungated = Some(Box::new(answer));
    gated
}

/// One scheduling attempt: Filter, Score, and DefaultPreemption when no
/// node fits.
fn attempt(
    cluster: &Cluster,
    pod: &Pod,
    scheduler: &Scheduler,
    profile: &Arc<Profile>,
    memo: Option<&node_memo::NodeMemo>,
) -> Placement {
    let version = scheduler.version.version;
    let mut answer = Placement::new(pod_key(cluster, pod), pod, scheduler);
    answer.profile = Some(profile.clone());
    answer.upstream_nodes_to_find = profile::feasible_nodes_to_find(
        profile
            .percentage_of_nodes_to_score
            .or(scheduler.profiles.percentage_of_nodes_to_score),
        cluster.nodes.len(),
    );
    answer.notes.extend(release_notes(pod, version));
    answer.notes.extend(node_name_note(cluster, pod));
    if !pod.resource_claims.is_empty() && !profile.runs_filter(status::Plugin::DynamicResources) {
        answer.notes.push(if version.dynamic_resources_in_default_profile() {
            format!(
                "the pod's spec.resourceClaims are ignored: the profile {:?} does not enable DynamicResources",
                profile.scheduler_name
            )
        } else {
            format!(
                "the pod's spec.resourceClaims are ignored: kube-scheduler {} has the DynamicResourceAllocation feature gate off by default (DRA is on from 1.34), so it places the pod as if it claimed no devices",
                version.as_str()
            )
        });
    }
    if cluster.nodes.is_empty() {
        answer.message = fit_error::NO_NODES_AVAILABLE.to_string();
        return answer;
    }

    // What spreading reads of the nodes: the memo's for a run on fixed
    // nodes, else the one kept with the cluster's nodes.
    let kept;
    let lookups = match memo {
        Some(m) => m.spread_lookups(cluster),
        None => {
            kept = cluster.from_nodes(node_memo::SpreadLookups::default);
            &*kept
        }
    };
    let mut cycle = Cycle::new_with(cluster, pod, version, profile, Some(lookups));
    if cycle.prefilter_rejection.is_none()
        && let Some(entry) = memo.and_then(|m| m.entry(&cycle, profile))
    {
        cycle.use_memo(entry);
    }
    // Filter over both cores, each range of nodes sorted into feasible
    // nodes and failures, joined in node order. When a placed pod's
    // failures are not kept, the memo's rejections are noted by index and
    // copied only if no node fits.
    let state = cycle.state();
    let placed_without_failures = memo.is_some_and(|m| !m.keeps_failures_of_placed_pods());
    let noting = placed_without_failures && cycle.memo().is_some();
    let filter_part = |range: std::ops::Range<usize>| {
        let mut part = FilterPart::default();
        if noting {
            // Room for every node of the range: growing the vectors node
            // by node cost more than the memory never written. Failures
            // here are only absent nodes; the rest are node ids.
            part.feasible.reserve_exact(range.len());
            part.failed.reserve_exact(range.len());
            filter_range_noting(&cycle, &state, range, &mut part);
        } else {
            part.feasible.reserve_exact(range.len());
            part.failures.reserve_exact(range.len());
            filter_range(&cycle, &state, range, |id, verdict| match verdict {
                Ok(()) => part.feasible.push(id),
                Err(rejection) => part.failures.push(NodeFailure {
                    node: id,
                    rejection,
                }),
            });
        }
        part
    };
    // Beside Filter, on this thread while the helper filters: what Score's
    // PreScore reads of the cluster alone (unused when no node fits).
    let early_scores = || match cycle.prefilter_rejection {
        None => EarlyScores::of(cluster, pod, profile, cycle.memo(), lookups, version),
        Some(_) => EarlyScores::default(),
    };
    let (parts, early) = kplace_split::in_parts_beside(
        kplace_split::MIN_NODES,
        cluster.nodes.len(),
        filter_part,
        early_scores,
    );
    answer
        .feasible
        .reserve_exact(parts.iter().map(|p| p.feasible.len()).sum());
    for part in &parts {
        answer.feasible.extend_from_slice(&part.feasible);
    }
    if !placed_without_failures || answer.feasible.is_empty() {
        answer.failures.reserve_exact(
            parts
                .iter()
                .map(|p| p.failures.len() + p.noted.len() + p.failed.len())
                .sum(),
        );
        // The rejections of the nodes that failed after the memo's prefix,
        // asked again over both cores (each re-runs the node's filters).
        let failed: Vec<NodeId> = parts
            .iter()
            .flat_map(|p| p.failed.iter().copied())
            .collect();
        let mut rejected = rejections_of(&failed, &cycle, &state).into_iter();
        for part in parts {
            let own = rejected.by_ref().take(part.failed.len());
            let failures = with_rejections(part.failures, own);
            join_failures(&mut answer.failures, failures, &part.noted, cycle.memo());
        }
    }

    if !answer.feasible.is_empty() {
        (answer.scores, answer.best) = score_nodes(
            cluster,
            pod,
            &answer.feasible,
            version,
            profile,
            cycle.memo(),
            lookups,
            early,
        );
        answer.node = answer.best.first().copied();
        answer.outcome = Outcome::Scheduled;
        answer.devices = picked_devices(&cycle, answer.node);
        return answer;
    }

    answer.message = fit_error::fit_error_message(
        cluster.nodes.len(),
        cycle.prefilter_rejection.as_ref(),
        answer
            .failures
            .iter()
            .filter(|f| !f.rejection.reasons.is_empty())
            .map(|f| &f.rejection),
    );
    if !profile.preempts() {
        answer.notes.push(format!(
            "the profile {:?} has no DefaultPreemption (PostFilter): the pod waits instead of preempting",
            profile.scheduler_name
        ));
        if dra_rejected(&answer) {
            answer.device_availability = device_availability(&cycle);
        }
        return answer;
    }
    let preemption = preemption::preempt(&cycle, &answer.failures);
    if preemption.eligible && preemption.node.is_some() {
        answer.outcome = Outcome::Preempt;
        answer.node = preemption.node;
        answer.devices = picked_devices(&cycle, answer.node);
    }
    if pod.preemption_policy == Some(PreemptionPolicy::Never) {
        answer.notes.push(
            "the pod's preemptionPolicy is Never: it waits for room instead of evicting others"
                .into(),
        );
    }
    for (pdb, allowed) in &preemption.computed_pdbs {
        answer.notes.push(format!(
            "PodDisruptionBudget {pdb} has no status in the snapshot: kplace computed disruptionsAllowed={allowed} from its spec and the matching healthy pods"
        ));
    }
    answer.preemption = Some(preemption);
    if answer.outcome == Outcome::Unschedulable && dra_rejected(&answer) {
        answer.device_availability = device_availability(&cycle);
    }
    answer
}

fn dra_rejected(answer: &Placement) -> bool {
    answer
        .failures
        .iter()
        .any(|f| f.rejection.plugin == status::Plugin::DynamicResources)
}

/// For each node, what its devices offer the pod's unallocated claims:
/// matching, free, and who holds the rest. Nodes with no matching device
/// are left out; the most free devices come first.
fn device_availability(cycle: &Cycle) -> Vec<NodeDevices> {
    let Some(allocator) = cycle.dra.as_ref().and_then(|d| d.allocator.as_ref()) else {
        return vec![];
    };
    let cluster = cycle.cluster;
    let key = |ns, name: &str| format!("{}/{name}", cluster.interner.resolve(ns));
    // Device → holding claim, and claim → the pods it is reserved for.
    let mut holders: rustc_hash::FxHashMap<crate::model::dra::DeviceId, (String, &[Box<str>])> =
        Default::default();
    for c in &cluster.dra.claims {
        for d in c.allocation.iter().flat_map(|a| a.devices.iter()) {
            holders.insert(
                crate::model::dra::DeviceId {
                    driver: d.driver.clone(),
                    pool: d.pool.clone(),
                    device: d.device.clone(),
                },
                (key(c.namespace, &c.name), &c.reserved_for),
            );
        }
    }
    let reserved_uids: rustc_hash::FxHashSet<&str> = holders
        .values()
        .flat_map(|(_, uids)| uids.iter().map(|u| &**u))
        .collect();
    let pod_by_uid: rustc_hash::FxHashMap<&str, String> = cluster
        .pods
        .iter()
        .filter(|p| reserved_uids.contains(&*p.uid))
        .map(|p| (&*p.uid, key(p.namespace, &p.name)))
        .collect();
    let mut out = Vec::new();
    for id in 0..cluster.nodes.len() as NodeId {
        let Ok(inventory) = allocator.inventory(cluster.node(id), &cluster.interner) else {
            continue;
        };
        if inventory.iter().all(|r| r.matching == 0) {
            continue;
        }
        let requests = inventory
            .into_iter()
            .map(|r| RequestDevices {
                claim: key(
                    allocator.claims()[r.claim].namespace,
                    &allocator.claims()[r.claim].name,
                ),
                request: r.request,
                device_class: r.device_class,
                count: r.count,
                matching: r.matching,
                free: r.matching - r.held.len(),
                held: r
                    .held
                    .iter()
                    .map(|d| {
                        let (claim, uids) = holders
                            .get(d)
                            .map(|(c, u)| (c.clone(), *u))
                            .unwrap_or_default();
                        HeldDevice {
                            device: format!("{}/{}/{}", d.driver, d.pool, d.device),
                            claim,
                            pods: uids
                                .iter()
                                .filter_map(|u| pod_by_uid.get(&**u).cloned())
                                .collect(),
                        }
                    })
                    .collect(),
            })
            .collect();
        out.push(NodeDevices { node: id, requests });
    }
    let free = |n: &NodeDevices| n.requests.iter().map(|r| r.free).sum::<usize>();
    out.sort_by(|a, b| free(b).cmp(&free(a)).then(a.node.cmp(&b.node)));
    out
}

/// Every node's verdict in one cycle: PreFilter's rejection for all when it
/// rejects, the PreFilter result's status for nodes it leaves out, else the
/// Filter plugins with nominated pods.
fn filter_all(cycle: &Cycle) -> Vec<status::FilterResult> {
    let mut verdicts = Vec::with_capacity(cycle.cluster.nodes.len());
    filter_each(cycle, |_, verdict| verdicts.push(verdict));
    verdicts
}

/// Each node's verdict, in node order, handed to `each` as it is found
/// (one thread: the verdicts of every node, for views and checks).
fn filter_each(cycle: &Cycle, mut each: impl FnMut(NodeId, status::FilterResult)) {
    let state = cycle.state();
    filter_range(cycle, &state, 0..cycle.cluster.nodes.len(), &mut each);
}

/// The verdicts of the nodes in `range`, in node order: the unit of
/// work an attempt shares between both cores.
fn filter_range(
    cycle: &Cycle,
    state: &framework::FilterState,
    range: std::ops::Range<usize>,
    mut each: impl FnMut(NodeId, status::FilterResult),
) {
    let cluster = cycle.cluster;
    if let Some(rejection) = &cycle.prefilter_rejection {
        for id in range {
            each(id as NodeId, Err(rejection.clone()));
        }
        return;
    }
    for id in range {
        let id = id as NodeId;
        let verdict = if cycle.is_allowed(id) {
            cycle.run_filters_with_nominated(state, id, cluster.node_info(id))
        } else {
            Err(cycle.absent_node_status(id))
        };
        each(id, verdict);
    }
}

/// [`filter_range`] for a cycle answering from a memo, with the memo's
/// rejections noted as (node, index of the memo's rejection) instead of
/// copied: `each` gets every other verdict.
fn filter_range_noting(
    cycle: &Cycle,
    state: &framework::FilterState,
    range: std::ops::Range<usize>,
    part: &mut FilterPart,
) {
    let memo = cycle.memo().expect("a cycle answering from a memo");
    debug_assert!(
        cycle.prefilter_rejection.is_none(),
        "memos serve cycles past PreFilter"
    );
    for id in range {
        let id = id as NodeId;
        if !cycle.is_allowed(id) {
            part.failures.push(NodeFailure {
                node: id,
                rejection: cycle.absent_node_status(id),
            });
        } else if let Some(i) = memo.rejection_of(id) {
            part.noted.push((id, i));
        } else if cycle.passes_after_memo(state, id) {
            part.feasible.push(id);
        } else {
            part.failed.push(id);
        }
    }
}

/// One range of nodes after Filter: the feasible nodes and the failures,
/// each in node order. A cycle answering from a memo that drops a placed
/// pod's failures (a disruption's run) notes the memo's rejections by
/// index (`noted`) and the nodes failing a later plugin by id alone
/// (`failed`): their rejections are built only when no node fits, as the
/// placement then reports them and preemption reads them.
#[derive(Default)]
struct FilterPart {
    feasible: Vec<NodeId>,
    failures: Vec<NodeFailure>,
    noted: Vec<(NodeId, u16)>,
    failed: Vec<NodeId>,
}

/// The rejections of the nodes in `failed` (each failed its verdict
/// after the memo's prefix), asked again of the same cycle and state (so
/// the same), in the order given. Each re-runs a node's filters and builds
/// its reasons, so a long list is split over both cores: when no node
/// fits, every node of the cluster may be on it.
fn rejections_of(
    failed: &[NodeId],
    cycle: &Cycle,
    state: &framework::FilterState,
) -> Vec<NodeFailure> {
    let rejection = |node: NodeId| NodeFailure {
        node,
        rejection: cycle
            .run_after_memo(state, node, cycle.cluster.node_info(node))
            .expect_err("a node failed its verdict, so it fails with reasons"),
    };
    let parts = kplace_split::in_parts(failed.len(), |range| {
        failed[range]
            .iter()
            .map(|&node| rejection(node))
            .collect::<Vec<_>>()
    });
    if parts.len() == 1 {
        return parts.into_iter().next().unwrap_or_default();
    }
    let mut out = Vec::with_capacity(failed.len());
    for part in parts {
        out.extend(part);
    }
    out
}

/// `failures` joined by `rejected` (each in node order), in node order.
fn with_rejections(
    failures: Vec<NodeFailure>,
    rejected: impl Iterator<Item = NodeFailure>,
) -> Vec<NodeFailure> {
    let mut rejected = rejected.peekable();
    if rejected.peek().is_none() {
        return failures;
    }
    let mut out = Vec::with_capacity(failures.len() + rejected.size_hint().0);
    let mut absent = failures.into_iter().peekable();
    for failure in rejected {
        while let Some(a) = absent.next_if(|a| a.node < failure.node) {
            out.push(a);
        }
        out.push(failure);
    }
    out.extend(absent);
    out
}

/// Appends a range's failures and its noted memo rejections (each in node
/// order) to `out`, in node order.
fn join_failures(
    out: &mut Vec<NodeFailure>,
    failures: Vec<NodeFailure>,
    noted: &[(NodeId, u16)],
    memo: Option<&node_memo::MemoEntry>,
) {
    let Some(memo) = memo.filter(|_| !noted.is_empty()) else {
        out.extend(failures);
        return;
    };
    let mut noted = noted.iter().peekable();
    for failure in failures {
        while let Some(&&(node, i)) = noted.peek().filter(|n| n.0 < failure.node) {
            out.push(NodeFailure {
                node,
                rejection: memo.rejection(i).clone(),
            });
            noted.next();
        }
        out.push(failure);
    }
    out.extend(noted.map(|&(node, i)| NodeFailure {
        node,
        rejection: memo.rejection(i).clone(),
    }));
}

/// Each node's Filter verdict for an admitted pod, exactly as a scheduling
/// attempt computes them (PreFilter, then Filter with nominated pods), without
/// scoring or preemption: where the pod fits now. `None` when no profile
/// schedules the pod.
pub fn filter_verdicts(
    cluster: &Cluster,
    pod: &Pod,
    scheduler: &Scheduler,
) -> Option<Vec<status::FilterResult>> {
    let profile = scheduler.profiles.for_scheduler(&pod.scheduler_name)?;
    let cycle = Cycle::new(cluster, pod, scheduler.version.version, profile);
    Some(filter_all(&cycle))
}

/// The devices the pod's claims get on `node` (DynamicResources' Filter
/// result there, which Reserve would write into the claims).
fn picked_devices(cycle: &Cycle, node: Option<NodeId>) -> Vec<PickedDevice> {
    let (Some(dra), Some(node)) = (&cycle.dra, node) else {
        return vec![];
    };
    let cluster = cycle.cluster;
    let key = |c: &crate::model::dra::ResourceClaim| {
        format!("{}/{}", cluster.interner.resolve(c.namespace), c.name)
    };
    let mut out: Vec<PickedDevice> = dra
        .allocated_devices()
        .into_iter()
        .map(|(claim, request, id)| PickedDevice {
            claim: key(claim),
            request: request.to_string(),
            driver: id.driver.to_string(),
            pool: id.pool.to_string(),
            device: id.device.to_string(),
            already_allocated: true,
        })
        .collect();
    if let (Some(allocator), Ok(results)) =
        (&dra.allocator, dra.allocate(cluster, cluster.node(node)))
    {
        for (claim, devices) in allocator.claims().iter().zip(results) {
            for d in devices {
                out.push(PickedDevice {
                    claim: key(claim),
                    request: d.request,
                    driver: d.id.driver.to_string(),
                    pool: d.id.pool.to_string(),
                    device: d.id.device.to_string(),
                    already_allocated: false,
                });
            }
        }
    }
    out
}

/// Carries out an answer on a fork, as the scheduler would: a preempting
/// pod's victims leave the fork. Returns the node the pod lands on (the
/// caller binds it there), or `None` when it cannot be placed.
pub fn carry_out(fork: &mut Cluster, placement: &Placement) -> Option<NodeId> {
    match placement.outcome {
        Outcome::Scheduled => placement.node,
        Outcome::Preempt => {
            let pre = placement.preemption.as_ref()?;
            for &victim in &pre.victims {
                fork.unbind_pod(victim);
            }
            pre.node
        }
        Outcome::Unschedulable
        | Outcome::Rejected
        | Outcome::Gated
        | Outcome::WaitingForClaims
        | Outcome::NoProfile => None,
    }
}

/// A pod that names its node is never queued by kube-scheduler: the API
/// server takes it bound, and that node's kubelet admits or rejects it.
/// The filters still answer (NodeName keeps only that node), so say what
/// the answer stands for.
fn node_name_note(cluster: &Cluster, pod: &Pod) -> Option<String> {
    let name = pod.node_name.as_deref()?;
    Some(match cluster.node_id(name) {
        Some(_) => format!(
            "spec.nodeName is {name:?}: kube-scheduler never queues a pod that names its node; it is bound to {name} as created, and that node's kubelet admits or rejects it (its own checks of resources, ports and node affinity). This answer is the scheduler's filters and scores run on the pod as written"
        ),
        None => format!(
            "spec.nodeName is {name:?}, a node not in the snapshot: kube-scheduler never queues a pod that names its node, so it would stay Pending until a node of that name joins. This answer is the scheduler's filters run on the pod as written"
        ),
    })
}

/// What the chosen release does differently with this pod that an operator
/// would not guess from the spec.
fn release_notes(pod: &Pod, version: Version) -> Vec<String> {
    let mut notes = Vec::new();
    if pod.pod_level.is_some() && !version.pod_level_resources() {
        notes.push(format!(
            "the pod's pod-level spec.resources are ignored: kube-scheduler {} {}",
            version.as_str(),
            if version < Version::V1_32 {
                "does not know the field"
            } else {
                "has the PodLevelResources feature gate off by default (on from 1.34)"
            }
        ));
    }
    let empty = crate::model::labels::Labels::default();
    let quirk = version.keeps_namespace_selector_after_merge()
        && pod.pod_affinity.as_ref().is_some_and(|a| {
            let required = a
                .required_affinity
                .iter()
                .chain(&a.required_anti_affinity[..]);
            let preferred = a
                .preferred_affinity
                .iter()
                .chain(&a.preferred_anti_affinity[..])
                .map(|w| &w.term);
            required.chain(preferred).any(|t| {
                !t.namespace_selector.is_everything() && t.namespace_selector.matches(&empty)
            })
        });
    if quirk {
        notes.push(format!(
            "a pod (anti-)affinity term's namespaceSelector matches namespaces without labels: kube-scheduler {} keeps the selector after resolving it, so the term also matches pods in every namespace (an upstream quirk kplace reproduces)",
            version.patch_release()
        ));
    }
    notes
}

fn pod_key(cluster: &Cluster, pod: &Pod) -> String {
    format!("{}/{}", cluster.interner.resolve(pod.namespace), pod.name)
}

/// Answers for a pod already in the snapshot: for a pending pod, why it is
/// pending; for a bound pod, where it would go if it were rescheduled, with
/// itself taken out of the cluster first (it must not count against itself).
pub fn place_existing(
    cluster: &Cluster,
    id: crate::model::PodId,
    scheduler: &Scheduler,
) -> Placement {
    let asked = ExistingQuestion::new(cluster, id);
    let mut answer = schedule(&asked.cluster, &asked.pod, scheduler);
    answer.notes.extend(asked.note);
    answer
}

/// What [`place_existing`] asks: the pod (admitted already) and the
/// cluster it is asked against; for a bound pod, the cluster without it
/// (and with its template claims made anew).
pub struct ExistingQuestion<'a> {
    pub cluster: std::borrow::Cow<'a, Cluster>,
    pub pod: Pod,
    /// For a bound pod: what the answer means ([`rescheduled_note`]).
    pub note: Option<String>,
}

impl<'a> ExistingQuestion<'a> {
    pub fn new(cluster: &'a Cluster, id: crate::model::PodId) -> Self {
        let pod = cluster.pod(id);
        if pod.node.is_none() {
            let mut p = pod.clone();
            // A pod naming a node without a Node object is invisible to the
            // scheduler; ask as if it named none, and say so.
            let note = cluster.absent_node_of(pod).map(absent_node_note);
            if p.node_name
                .as_deref()
                .is_some_and(|n| cluster.node_id(n).is_none())
            {
                p.node_name = None;
            }
            return ExistingQuestion {
                cluster: std::borrow::Cow::Borrowed(cluster),
                pod: p,
                note,
            };
        }
        let mut without = cluster.clone();
        without.unbind_pod(id);
        let regenerated = regenerated_claims(cluster, pod);
        let renewed = !regenerated.is_empty();
        if renewed {
            without.dra = without.dra.with_claims(regenerated);
        }
        let mut p = pod.clone();
        p.node = None;
        p.node_name = None;
        ExistingQuestion {
            cluster: std::borrow::Cow::Owned(without),
            pod: p,
            note: Some(rescheduled_note(pod, renewed)),
        }
    }
}

/// What an answer for a pod bound to a node the snapshot lacks means.
pub fn absent_node_note(node: &str) -> String {
    format!(
        "the pod is bound to {node}, which is not in the snapshot (no Node object): it is not pending, and its requests count on no node; this is where it would go if it were scheduled now"
    )
}

/// What an answer for a bound pod taken off its node means; `renewed`:
/// its template claims were made anew ([`regenerated_claims`]).
pub fn rescheduled_note(pod: &Pod, renewed: bool) -> String {
    let mut note = format!(
        "the pod is bound to {}; this is where it would go if it were rescheduled now",
        pod.node_name.as_deref().unwrap_or("?")
    );
    if renewed {
        note.push_str(
            " (its ResourceClaims from templates are new ones, unallocated: the claims are deleted with the pod, so their devices are free again)",
        );
    }
    note
}

/// The claims a rescheduled pod gets anew: those generated for it from
/// templates (owned by the pod, so deleted with it), unallocated and
/// reserved for no one. Claims shared by name keep their allocation.
pub fn regenerated_claims(cluster: &Cluster, pod: &Pod) -> Vec<crate::model::dra::ResourceClaim> {
    use crate::model::pod::PodClaimSource;
    pod.resource_claims
        .iter()
        .filter_map(|rc| match &rc.source {
            PodClaimSource::Template {
                generated: Some(Some(name)),
                ..
            } => cluster.dra.claim(pod.namespace, name),
            _ => None,
        })
        .filter(|c| c.allocation.is_some())
        .map(|c| crate::model::dra::ResourceClaim {
            allocation: None,
            reserved_for: Box::default(),
            ..c.clone()
        })
        .collect()
}
