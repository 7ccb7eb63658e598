//! `v1.Pod` → [`Pod`], applying the API defaults the scheduler relies on and
//! the validation the API server would apply.

use k8s_openapi::api::core::v1 as core;

use super::pod_fields::{
    ContainerFields, PodFields, PortFields, SpreadFields, TolerationFields, VolumeFields,
};
use super::requests::{
    self, ContainerRequests, ResourceList, existing_non_zero, incoming_non_zero, pod_requests,
    to_resources,
};
use super::selector::{label_selector, node_selector_term};
use super::validate;
use crate::model::error::InvalidObject;
use crate::model::intern::{Interner, Sym};
use crate::model::labels::{Labels, Requirement};
use crate::model::node::TaintEffect;
use crate::model::pod::*;
use crate::model::resources::{CpuMem, Resources};

/// The API server's default `terminationGracePeriodSeconds`.
pub const DEFAULT_TERMINATION_GRACE_SECONDS: i64 = 30;

/// `Kind namespace/name`, as errors name an object. Built for every object
/// converted, so without the formatting machinery.
pub fn object_name(kind: &str, namespace: Option<&str>, name: &str) -> String {
    let ns_len = namespace.map_or(0, |ns| ns.len() + 1);
    let mut out = String::with_capacity(kind.len() + 1 + ns_len + name.len());
    write_object_name(&mut out, kind, namespace, name);
    out
}

/// [`object_name`], written into `out` (emptied first).
fn write_object_name(out: &mut String, kind: &str, namespace: Option<&str>, name: &str) {
    out.clear();
    out.push_str(kind);
    out.push(' ');
    if let Some(ns) = namespace {
        out.push_str(ns);
        out.push('/');
    }
    out.push_str(name);
}

pub fn labels_of(
    map: Option<&std::collections::BTreeMap<String, String>>,
    interner: &mut Interner,
) -> Labels {
    labels_of_pairs(
        map.into_iter()
            .flatten()
            .map(|(k, v)| (k.as_str(), v.as_str())),
        interner,
    )
}

/// Labels from key-value pairs, interned in the order given.
pub fn labels_of_pairs<'a>(
    pairs: impl Iterator<Item = (&'a str, &'a str)>,
    interner: &mut Interner,
) -> Labels {
    Labels::new(
        pairs
            .map(|(k, v)| (interner.intern(k), interner.intern(v)))
            .collect(),
    )
}

pub fn timestamp(t: Option<&k8s_openapi::apimachinery::pkg::apis::meta::v1::Time>) -> Option<i64> {
    t.map(|t| t.0.as_second())
}

/// Normalizes an image name as ImageLocality does: append `:latest` when the
/// name has no tag after its last `/`. Read from the end, the first `:` or
/// `/` decides: a tag sits a few bytes from the end, so this stops there
/// instead of searching the whole name twice.
pub fn normalized_image(name: &str) -> std::borrow::Cow<'_, str> {
    match name.bytes().rev().find(|&b| b == b':' || b == b'/') {
        Some(b':') => name.into(),
        _ => format!("{name}:latest").into(),
    }
}

/// Converts a pod, from either of its parsed forms ([`PodFields`]).
pub fn convert_pod<P: PodFields>(p: &P, interner: &mut Interner) -> Result<Pod, InvalidObject> {
    convert_pod_memo(p, interner, &mut PodMemo::default())
}

/// [`convert_pod`], taking the pod's requests from `memo` when a pod with
/// the same resource fields was converted before (and keeping them there).
pub fn convert_pod_memo<P: PodFields>(
    p: &P,
    interner: &mut Interner,
    memo: &mut PodMemo,
) -> Result<Pod, InvalidObject> {
    // The name errors give, in a buffer kept from pod to pod: a string of
    // its own for each pod was 150,000 allocations on the serial
    // conversion of the synthetic cluster, for errors almost never made.
    let mut object = std::mem::take(&mut memo.object);
    let (namespace, name) = identity(p, &mut object)?;
    if !p.has_spec() {
        return Err(InvalidObject::new(&object, "spec", "Required value"));
    }
    if p.containers().is_empty() {
        return Err(InvalidObject::new(
            &object,
            "spec.containers",
            "Required value",
        ));
    }
    let ns_sym = interner.intern(namespace);
    // Pods come grouped by namespace: each is checked when it changes.
    if memo.namespace_checked != Some(ns_sym) {
        validate::namespace_name(namespace, &object)?;
        memo.namespace_checked = Some(ns_sym);
    }
    let labels = memo.checked.labels(p.labels(), interner, &object)?;
    if let Some(selector) = p.node_selector() {
        memo.checked
            .pairs(selector, interner, &object, "spec.nodeSelector")?;
    }
    // (A priorityClassName is not checked here: the Priority admission
    // plugin, which runs before validation, rejects a name no class has,
    // and every class's name is a subdomain.)
    if let Some(scheduler) = p
        .scheduler_name()
        .filter(|s| !s.is_empty() && *s != "default-scheduler")
    {
        validate::dns_subdomain(scheduler, &object, "spec.schedulerName")?;
    }
    let memoized = memo.find(p);
    let lists = match memoized {
        Some(_) => None,
        None => Some(PodRequestLists::of(p, &object)?),
    };
    let placement = Constraints::of(p, ns_sym, &labels, interner, &object)?;
    let termination = termination(p, &object)?;
    let preemption_policy = preemption_policy(p, &object)?;
    // (Interned here, as before the memo: symbols keep their numbers.)
    let requests = match (memoized, lists) {
        (Some(found), _) => found,
        (None, Some(lists)) => {
            let worked_out = PodRequests {
                requests: to_resources(&lists.exact, interner),
                non_zero: existing_non_zero(&lists.regular, &lists.init, &lists.overhead),
                incoming_non_zero: incoming_non_zero(&lists.defaulted),
                pod_level: lists.pod_level(interner),
            };
            memo.keep(&worked_out);
            worked_out
        }
        (None, None) => unreachable!("worked out when not found"),
    };

    let pod = Pod {
        namespace: ns_sym,
        name: name.into(),
        uid: p.uid().unwrap_or("").into(),
        node_name: p.node_name().filter(|n| !n.is_empty()).map(Into::into),
        node: None,
        phase: PodPhase::parse(p.phase().unwrap_or("Pending")),
        ready: p
            .conditions()
            .any(|(type_, status, _)| type_ == "Ready" && status == "True"),
        deletion_timestamp: p.deletion_timestamp(),
        start_time: p.start_time(),
        creation_timestamp: p.creation_timestamp(),
        priority: p.priority(),
        priority_class_name: p
            .priority_class_name()
            .filter(|s| !s.is_empty())
            .map(|s| memo.strings.get(s)),
        preemption_policy,
        requests: requests.requests,
        non_zero_requests: requests.non_zero,
        incoming_non_zero_requests: requests.incoming_non_zero,
        pod_level: requests.pod_level,
        host_ports: host_ports(p, &object)?,
        node_selector: placement.node_selector,
        node_affinity: placement.node_affinity,
        tolerations: placement.tolerations,
        pod_affinity: placement.pod_affinity,
        spread_constraints: placement.spread,
        labels,
        controller: p.controller().map(|(api_version, kind, name)| OwnerRef {
            api_version: memo.strings.get(api_version),
            kind: memo.strings.get(kind),
            name: memo.strings.get(name),
        }),
        images: images(p, interner),
        scheduling_gates: p.scheduling_gates().map(Into::into).collect(),
        nominated_node_name: p
            .nominated_node_name()
            .filter(|n| !n.is_empty())
            .map(Into::into),
        scheduler_name: memo
            .strings
            .get(p.scheduler_name().unwrap_or("default-scheduler")),
        termination,
        preempted_by_scheduler: p
            .conditions()
            .find(|(type_, _, _)| *type_ == "DisruptionTarget")
            .is_some_and(|(_, status, reason)| {
                status == "True" && reason == Some("PreemptionByScheduler")
            }),
        volumes: p
            .volumes()
            .iter()
            .filter_map(|v| convert_volume(v, name))
            .collect(),
        resource_claims: resource_claims(p),
    };
    memo.object = object;
    Ok(pod)
}

/// The pod's namespace (defaulted), name (or `generateName`) and its name
/// in error messages; a pod with neither name is refused.
fn identity<'p>(
    p: &'p impl PodFields,
    object: &mut String,
) -> Result<(&'p str, &'p str), InvalidObject> {
    let namespace = p.namespace().unwrap_or("default");
    let name = p.name().or(p.generate_name()).unwrap_or("");
    write_object_name(object, "Pod", Some(namespace), name);
    if name.is_empty() {
        return Err(InvalidObject::new(
            object,
            "metadata.name",
            "Required value: name or generateName is required",
        ));
    }
    // A generateName is a prefix the API server completes; a name is whole.
    if p.name().is_some() {
        validate::dns_subdomain_name(name, object)?;
    }
    Ok((namespace, name))
}

/// What a pod's resource fields convert to.
#[derive(Clone)]
struct PodRequests {
    requests: Resources,
    non_zero: CpuMem,
    incoming_non_zero: CpuMem,
    pod_level: Option<Box<PodLevelRequests>>,
}

/// What converting pods keeps from one pod to the next, because a
/// workload's replicas repeat it.
///
/// Pods' converted requests, kept by the text of every field they come
/// from: working them out (each quantity parsed, then summed and
/// defaulted) was about a third of converting a pod (callgrind, the
/// synthetic cluster). Pods that set pod-level resources are not kept. At
/// most [`PodMemo::ENTRIES`] are kept, so memory stays bounded when every
/// pod differs.
///
/// And the strings replicas repeat (their owner, scheduler and priority
/// class), shared instead of copied for each pod ([`SharedStrs`]).
#[derive(Default)]
pub struct PodMemo {
    strings: SharedStrs,
    /// The last pod's name in errors ([`object_name`]), its buffer reused.
    object: String,
    kept: rustc_hash::FxHashMap<Box<[u8]>, PodRequests>,
    /// The last pod's key, while it is worked out.
    key: Vec<u8>,
    /// Whether the last pod's key can be kept.
    keyed: bool,
    /// The namespace last found valid.
    namespace_checked: Option<Sym>,
    checked: validate::CheckedLabels,
}

/// Strings many pods repeat, each kept once and shared by `Arc`: on the
/// synthetic cluster five per pod (owner API version, kind and name,
/// scheduler, priority class) were 750,000 allocations on the serial
/// conversion. At most [`SharedStrs::ENTRIES`] are kept; past
/// that a string is copied for its pod, as before.
#[derive(Default)]
struct SharedStrs {
    kept: rustc_hash::FxHashSet<std::sync::Arc<str>>,
}

impl SharedStrs {
    const ENTRIES: usize = 16_384;

    fn get(&mut self, s: &str) -> std::sync::Arc<str> {
        if let Some(kept) = self.kept.get(s) {
            return kept.clone();
        }
        let shared: std::sync::Arc<str> = s.into();
        if self.kept.len() < Self::ENTRIES {
            self.kept.insert(shared.clone());
        }
        shared
    }
}

impl PodMemo {
    pub const ENTRIES: usize = 8192;

    /// The label keys and values found valid so far, which node
    /// conversion shares.
    pub fn checked_labels(&mut self) -> &mut validate::CheckedLabels {
        &mut self.checked
    }

    /// The requests of a pod with the same resource fields, if kept.
    fn find(&mut self, p: &impl PodFields) -> Option<PodRequests> {
        self.keyed = p.pod_resources().is_none();
        if !self.keyed {
            return None;
        }
        let key = &mut self.key;
        key.clear();
        let mut push = |tag: u8, text: &str| {
            key.push(tag);
            key.extend_from_slice(&(text.len() as u32).to_le_bytes());
            key.extend_from_slice(text.as_bytes());
        };
        for (tag, containers) in [(b'c', p.containers()), (b'i', p.init_containers())] {
            for c in containers {
                push(tag, c.restart_policy().unwrap_or("\0"));
                for (k, v) in c.limits() {
                    push(b'l', k);
                    push(b'=', v);
                }
                for (k, v) in c.requests() {
                    push(b'r', k);
                    push(b'=', v);
                }
            }
        }
        for (k, v) in p.overhead() {
            push(b'o', k);
            push(b'=', v);
        }
        self.kept.get(self.key.as_slice()).cloned()
    }

    /// Keeps what the last pod [`PodMemo::find`] did not find.
    fn keep(&mut self, requests: &PodRequests) {
        if self.keyed && self.kept.len() < Self::ENTRIES {
            self.kept
                .insert(self.key.as_slice().into(), requests.clone());
        }
    }
}

/// The resource lists the scheduler's request arithmetic starts from, after
/// the API server's `requests := limits` defaulting, validated.
struct PodRequestLists {
    regular: Vec<ResourceList>,
    init: Vec<ContainerRequests>,
    overhead: ResourceList,
    /// `spec.resources` (pod-level), empty when absent.
    pod_level: ResourceList,
    /// The pod's requests as `PodRequests` sums them.
    exact: ResourceList,
    /// The same with the scheduler's non-zero defaults for cpu and memory.
    defaulted: ResourceList,
}

impl PodRequestLists {
    fn of(p: &impl PodFields, object: &str) -> Result<Self, InvalidObject> {
        let mut regular = Vec::with_capacity(p.containers().len());
        for (i, c) in p.containers().iter().enumerate() {
            regular.push(requests::container_requests(
                c,
                object,
                format_args!("spec.containers[{i}]"),
            )?);
        }
        let mut init = Vec::new();
        for (i, c) in p.init_containers().iter().enumerate() {
            init.push(ContainerRequests {
                requests: requests::container_requests(
                    c,
                    object,
                    format_args!("spec.initContainers[{i}]"),
                )?,
                restartable: c.restart_policy() == Some("Always"),
            });
        }
        let mut overhead = ResourceList::new();
        for (k, v) in p.overhead() {
            overhead.insert(
                k,
                requests::parse_nonnegative(v, object, format_args!("spec.overhead.{k}"))?,
            );
        }
        let pod_level = requests::pod_level_list(p.pod_resources(), object)?;
        let exact = pod_requests(&regular, &init, &overhead, false);
        let defaulted = pod_requests(&regular, &init, &overhead, true);
        Ok(PodRequestLists {
            regular,
            init,
            overhead,
            pod_level,
            exact,
            defaulted,
        })
    }

    /// Pod-level requests (feature `PodLevelResources`), when the pod sets them.
    fn pod_level(&self, interner: &mut Interner) -> Option<Box<PodLevelRequests>> {
        (!self.pod_level.is_empty()).then(|| {
            Box::new(requests::pod_level_requests(
                &self.pod_level,
                &self.regular,
                &self.init,
                &self.overhead,
                interner,
            ))
        })
    }
}

/// Host ports the pod claims: `hostPort`, or every container port with
/// `hostNetwork` (defaults: IP 0.0.0.0, protocol TCP). Ports the API
/// server would refuse are refused in its words.
fn host_ports(p: &impl PodFields, object: &str) -> Result<Box<[HostPort]>, InvalidObject> {
    let host_network = p.host_network().unwrap_or(false);
    let mut host_ports = Vec::new();
    for (ci, c) in p.containers().iter().enumerate() {
        for (pi, port) in c.ports().enumerate() {
            validate_port(&port, object, ci, pi)?;
            let host_port = match port.host_port {
                Some(hp) if hp > 0 => hp,
                _ if host_network => port.container_port,
                _ => 0,
            };
            if host_port > 0 {
                host_ports.push(HostPort {
                    ip: port
                        .host_ip
                        .filter(|s| !s.is_empty())
                        .unwrap_or("0.0.0.0")
                        .into(),
                    protocol: port
                        .protocol
                        .filter(|s| !s.is_empty())
                        .unwrap_or("TCP")
                        .into(),
                    port: host_port,
                });
            }
        }
    }
    Ok(host_ports.into_boxed_slice())
}

/// The API server's checks of a container port that the NodePorts filter
/// reads (`validateContainerPorts`): port numbers in range and a protocol
/// it supports (empty is defaulted to TCP).
fn validate_port(
    port: &PortFields<'_>,
    object: &str,
    container: usize,
    index: usize,
) -> Result<(), InvalidObject> {
    const RANGE: &str = "must be between 1 and 65535, inclusive";
    let field = |name: &str| format!("spec.containers[{container}].ports[{index}].{name}");
    match port.container_port {
        0 => {
            return Err(InvalidObject::new(
                object,
                field("containerPort"),
                "Required value",
            ));
        }
        n if !(1..=65535).contains(&n) => {
            return Err(InvalidObject::new(
                object,
                field("containerPort"),
                format!("Invalid value: {n}: {RANGE}"),
            ));
        }
        _ => {}
    }
    if let Some(n) = port.host_port
        && n != 0
        && !(1..=65535).contains(&n)
    {
        return Err(InvalidObject::new(
            object,
            field("hostPort"),
            format!("Invalid value: {n}: {RANGE}"),
        ));
    }
    if let Some(protocol) = port.protocol
        && !matches!(protocol, "" | "TCP" | "UDP" | "SCTP")
    {
        return Err(InvalidObject::new(
            object,
            field("protocol"),
            format!(
                "Unsupported value: {protocol:?}: supported values: \"SCTP\", \"TCP\", \"UDP\""
            ),
        ));
    }
    Ok(())
}

/// Where the pod may and would rather go: node selector, node and pod
/// (anti-)affinity, tolerations and topology spread, validated.
struct Constraints {
    node_selector: Option<Box<[(Sym, Sym)]>>,
    node_affinity: Option<Box<NodeAffinity>>,
    pod_affinity: Option<Box<PodAffinity>>,
    tolerations: Box<[Toleration]>,
    spread: Box<[SpreadConstraint]>,
}

impl Constraints {
    fn of(
        p: &impl PodFields,
        ns_sym: Sym,
        labels: &Labels,
        interner: &mut Interner,
        object: &str,
    ) -> Result<Self, InvalidObject> {
        let node_selector = p.node_selector().map(|pairs| {
            pairs
                .map(|(k, v)| (interner.intern(k), interner.intern(v)))
                .collect::<Vec<_>>()
                .into_boxed_slice()
        });
        let affinity = p.affinity();
        let node_affinity = affinity
            .and_then(|a| a.node_affinity.as_ref())
            .map(|na| convert_node_affinity(na, interner, object))
            .transpose()?
            .map(Box::new);
        let pod_affinity = match affinity {
            Some(a) if a.pod_affinity.is_some() || a.pod_anti_affinity.is_some() => {
                Some(Box::new(convert_pod_affinity(a, ns_sym, interner, object)?))
            }
            _ => None,
        };
        let mut tolerations = Vec::new();
        for (i, t) in p.tolerations().iter().enumerate() {
            tolerations.push(convert_toleration(t, object, i)?);
        }
        let mut spread = Vec::new();
        for (i, c) in p.topology_spread_constraints().iter().enumerate() {
            spread.push(convert_spread(c, labels, interner, object, i)?);
        }
        Ok(Constraints {
            node_selector,
            node_affinity,
            pod_affinity,
            tolerations: tolerations.into_boxed_slice(),
            spread: spread.into_boxed_slice(),
        })
    }
}

/// Every container's image, normalized as ImageLocality compares them.
fn images(p: &impl PodFields, interner: &mut Interner) -> Box<[Sym]> {
    p.init_containers()
        .iter()
        .chain(p.containers())
        .map(|c| interner.intern(&normalized_image(c.image().unwrap_or(""))))
        .collect()
}

/// What graceful termination of the pod would take: its grace periods and
/// which (sidecar) containers have a preStop hook.
fn termination(p: &impl PodFields, object: &str) -> Result<TerminationInfo, InvalidObject> {
    let grace = p.termination_grace_period_seconds();
    if let Some(grace) = grace
        && grace < 0
    {
        return Err(InvalidObject::new(
            object,
            "spec.terminationGracePeriodSeconds",
            format!("Invalid value: {grace}: must be greater than or equal to 0"),
        ));
    }
    let pre_stop_containers = p
        .containers()
        .iter()
        .chain(
            p.init_containers()
                .iter()
                .filter(|c| c.restart_policy() == Some("Always")),
        )
        .filter(|c| c.has_pre_stop())
        .map(|c| c.name().into())
        .collect();
    Ok(TerminationInfo {
        grace_period_seconds: Some(grace.unwrap_or(DEFAULT_TERMINATION_GRACE_SECONDS)),
        deletion_grace_period_seconds: p.deletion_grace_period_seconds(),
        pre_stop_containers,
    })
}

/// `spec.preemptionPolicy`, one of the two values the API server accepts.
fn preemption_policy(
    p: &impl PodFields,
    object: &str,
) -> Result<Option<PreemptionPolicy>, InvalidObject> {
    match p.preemption_policy() {
        None => Ok(None),
        Some("Never") => Ok(Some(PreemptionPolicy::Never)),
        Some("PreemptLowerPriority") => Ok(Some(PreemptionPolicy::PreemptLowerPriority)),
        Some(other) => Err(InvalidObject::new(
            object,
            "spec.preemptionPolicy",
            format!(
                "Unsupported value: {other:?}: supported values: \"Never\", \"PreemptLowerPriority\""
            ),
        )),
    }
}

/// `spec.resourceClaims` with the generated names from the status.
fn resource_claims(p: &impl PodFields) -> Box<[PodResourceClaim]> {
    let statuses = p.resource_claim_statuses();
    p.resource_claims()
        .iter()
        .map(|c| PodResourceClaim {
            name: c.name.as_str().into(),
            source: match (&c.resource_claim_name, &c.resource_claim_template_name) {
                (Some(name), _) => PodClaimSource::Claim(name.as_str().into()),
                (None, Some(template)) => PodClaimSource::Template {
                    template: template.as_str().into(),
                    generated: statuses
                        .iter()
                        .find(|s| s.name == c.name)
                        .map(|s| s.resource_claim_name.as_deref().map(Into::into)),
                },
                (None, None) => PodClaimSource::Unsupported,
            },
        })
        .collect()
}

/// The part of a `v1.Volume` the volume plugins read (`None`: none reads it).
fn convert_volume(v: &impl VolumeFields, pod_name: &str) -> Option<PodVolume> {
    if let Some(claim) = v.claim_name() {
        return Some(PodVolume::Claim(claim.into()));
    }
    if v.is_ephemeral() {
        return Some(PodVolume::Ephemeral(
            format!("{pod_name}-{}", v.name()).into(),
        ));
    }
    let disk = if let Some(d) = v.gce_persistent_disk() {
        InlineDisk::GcePersistentDisk {
            pd_name: d.pd_name.as_str().into(),
            read_only: d.read_only.unwrap_or(false),
        }
    } else if let Some(d) = v.aws_elastic_block_store() {
        InlineDisk::AwsElasticBlockStore {
            volume_id: d.volume_id.as_str().into(),
        }
    } else if let Some(d) = v.iscsi() {
        InlineDisk::Iscsi {
            iqn: d.iqn.as_str().into(),
            read_only: d.read_only.unwrap_or(false),
        }
    } else if let Some(d) = v.rbd() {
        InlineDisk::Rbd {
            monitors: d.monitors.iter().map(|m| m.as_str().into()).collect(),
            pool: d.pool.as_deref().unwrap_or("rbd").into(),
            image: d.image.as_str().into(),
            read_only: d.read_only.unwrap_or(false),
        }
    } else {
        return None;
    };
    Some(PodVolume::Disk(disk))
}

fn convert_toleration(
    t: &impl TolerationFields,
    object: &str,
    i: usize,
) -> Result<Toleration, InvalidObject> {
    let field = validate::Indexed("spec.tolerations", i);
    let operator = match t.operator() {
        None | Some("") | Some("Equal") => TolerationOperator::Equal,
        Some("Exists") => TolerationOperator::Exists,
        Some(other) => {
            return Err(InvalidObject::new(
                object,
                format!("{field}.operator"),
                format!("Unsupported value: {other:?}: supported values: \"Equal\", \"Exists\""),
            ));
        }
    };
    let value = t.value().unwrap_or("");
    if operator == TolerationOperator::Exists && !value.is_empty() {
        return Err(InvalidObject::new(
            object,
            format!("{field}.operator"),
            format!("Invalid value: {value:?}: value must be empty when `operator` is 'Exists'"),
        ));
    }
    let key = t.key().unwrap_or("");
    if !key.is_empty() {
        validate::label_name(key, object, format_args!("{field}.key"))?;
    }
    if operator == TolerationOperator::Equal {
        validate::label_value(value, object, format_args!("{field}.operator"))?;
    }
    if t.toleration_seconds().is_some() && t.effect() != Some("NoExecute") {
        return Err(validate::invalid(
            object,
            format!("{field}.effect"),
            t.effect().unwrap_or(""),
            "effect must be 'NoExecute' when `tolerationSeconds` is set",
        ));
    }
    if key.is_empty() && operator != TolerationOperator::Exists {
        return Err(InvalidObject::new(
            object,
            format!("{field}.operator"),
            "Invalid value: operator must be Exists when `key` is empty, which means \"match all values and all keys\"",
        ));
    }
    let effect = match t.effect() {
        None | Some("") => None,
        Some(e) => match TaintEffect::parse(e) {
            TaintEffect::Other => {
                return Err(InvalidObject::new(
                    object,
                    format!("{field}.effect"),
                    format!(
                        "Unsupported value: {e:?}: supported values: \"NoSchedule\", \"PreferNoSchedule\", \"NoExecute\""
                    ),
                ));
            }
            known => Some(known),
        },
    };
    Ok(Toleration {
        key: key.into(),
        operator,
        value: value.into(),
        effect,
    })
}

fn convert_node_affinity(
    na: &core::NodeAffinity,
    interner: &mut Interner,
    object: &str,
) -> Result<NodeAffinity, InvalidObject> {
    const FIELD: &str = "spec.affinity.nodeAffinity";
    if let Some(ns) = &na.required_during_scheduling_ignored_during_execution {
        validate::node_selector(
            ns,
            object,
            &format!("{FIELD}.requiredDuringSchedulingIgnoredDuringExecution"),
        )?;
    }
    for (i, p) in na
        .preferred_during_scheduling_ignored_during_execution
        .iter()
        .flatten()
        .enumerate()
    {
        validate::node_selector_term(
            &p.preference,
            object,
            &format!("{FIELD}.preferredDuringSchedulingIgnoredDuringExecution[{i}].preference"),
        )?;
    }
    let required = na
        .required_during_scheduling_ignored_during_execution
        .as_ref()
        .map(|ns| {
            ns.node_selector_terms
                .iter()
                .map(|t| node_selector_term(t, interner))
                .collect::<Vec<_>>()
                .into_boxed_slice()
        });
    let mut preferred = Vec::new();
    for (i, p) in na
        .preferred_during_scheduling_ignored_during_execution
        .iter()
        .flatten()
        .enumerate()
    {
        if !(0..=100).contains(&p.weight) {
            return Err(InvalidObject::new(
                object,
                format!(
                    "spec.affinity.nodeAffinity.preferredDuringSchedulingIgnoredDuringExecution[{i}].weight"
                ),
                format!("Invalid value: {}: must be in the range 1-100", p.weight),
            ));
        }
        preferred.push((p.weight, node_selector_term(&p.preference, interner)));
    }
    Ok(NodeAffinity {
        required,
        preferred: preferred.into_boxed_slice(),
    })
}

fn convert_term(
    t: &core::PodAffinityTerm,
    owner_ns: Sym,
    interner: &mut Interner,
    object: &str,
    field: &str,
) -> Result<AffinityTerm, InvalidObject> {
    if t.topology_key.is_empty() {
        return Err(InvalidObject::new(
            object,
            format!("{field}.topologyKey"),
            "Required value: can not be empty",
        ));
    }
    let explicit = t.namespaces.as_deref().unwrap_or(&[]);
    let namespaces: Box<[Sym]> = if explicit.is_empty() && t.namespace_selector.is_none() {
        Box::new([owner_ns])
    } else {
        explicit.iter().map(|n| interner.intern(n)).collect()
    };
    Ok(AffinityTerm {
        namespaces,
        selector: label_selector(
            t.label_selector.as_ref(),
            interner,
            object,
            format_args!("{field}.labelSelector"),
        )?,
        topology_key: interner.intern(&t.topology_key),
        namespace_selector: label_selector(
            t.namespace_selector.as_ref(),
            interner,
            object,
            format_args!("{field}.namespaceSelector"),
        )?,
    })
}

fn convert_pod_affinity(
    a: &core::Affinity,
    owner_ns: Sym,
    interner: &mut Interner,
    object: &str,
) -> Result<PodAffinity, InvalidObject> {
    let mut out = PodAffinity::default();
    type Terms<'a> = (
        Option<&'a Vec<core::PodAffinityTerm>>,
        Option<&'a Vec<core::WeightedPodAffinityTerm>>,
    );
    let sides: [(&str, Terms); 2] = [
        (
            "podAffinity",
            (
                a.pod_affinity.as_ref().and_then(|p| {
                    p.required_during_scheduling_ignored_during_execution
                        .as_ref()
                }),
                a.pod_affinity.as_ref().and_then(|p| {
                    p.preferred_during_scheduling_ignored_during_execution
                        .as_ref()
                }),
            ),
        ),
        (
            "podAntiAffinity",
            (
                a.pod_anti_affinity.as_ref().and_then(|p| {
                    p.required_during_scheduling_ignored_during_execution
                        .as_ref()
                }),
                a.pod_anti_affinity.as_ref().and_then(|p| {
                    p.preferred_during_scheduling_ignored_during_execution
                        .as_ref()
                }),
            ),
        ),
    ];
    for (side, (required, preferred)) in sides {
        let mut req = Vec::new();
        for (i, t) in required.into_iter().flatten().enumerate() {
            let field =
                format!("spec.affinity.{side}.requiredDuringSchedulingIgnoredDuringExecution[{i}]");
            req.push(convert_term(t, owner_ns, interner, object, &field)?);
        }
        let mut pref = Vec::new();
        for (i, w) in preferred.into_iter().flatten().enumerate() {
            let field = format!(
                "spec.affinity.{side}.preferredDuringSchedulingIgnoredDuringExecution[{i}]"
            );
            if !(1..=100).contains(&w.weight) {
                return Err(InvalidObject::new(
                    object,
                    format!("{field}.weight"),
                    format!("Invalid value: {}: must be in the range 1-100", w.weight),
                ));
            }
            pref.push(WeightedAffinityTerm {
                weight: w.weight,
                term: convert_term(
                    &w.pod_affinity_term,
                    owner_ns,
                    interner,
                    object,
                    &format!("{field}.podAffinityTerm"),
                )?,
            });
        }
        if side == "podAffinity" {
            out.required_affinity = req.into_boxed_slice();
            out.preferred_affinity = pref.into_boxed_slice();
        } else {
            out.required_anti_affinity = req.into_boxed_slice();
            out.preferred_anti_affinity = pref.into_boxed_slice();
        }
    }
    Ok(out)
}

fn convert_spread(
    c: &impl SpreadFields,
    labels: &Labels,
    interner: &mut Interner,
    object: &str,
    i: usize,
) -> Result<SpreadConstraint, InvalidObject> {
    let field = validate::Indexed("spec.topologySpreadConstraints", i);
    if c.max_skew() <= 0 {
        return Err(InvalidObject::new(
            object,
            format!("{field}.maxSkew"),
            format!("Invalid value: {}: must be greater than zero", c.max_skew()),
        ));
    }
    if c.topology_key().is_empty() {
        return Err(InvalidObject::new(
            object,
            format!("{field}.topologyKey"),
            "Required value: can not be empty",
        ));
    }
    let when = match c.when_unsatisfiable() {
        "DoNotSchedule" => WhenUnsatisfiable::DoNotSchedule,
        "ScheduleAnyway" => WhenUnsatisfiable::ScheduleAnyway,
        other => {
            return Err(InvalidObject::new(
                object,
                format!("{field}.whenUnsatisfiable"),
                format!(
                    "Unsupported value: {other:?}: supported values: \"DoNotSchedule\", \"ScheduleAnyway\""
                ),
            ));
        }
    };
    if let Some(md) = c.min_domains() {
        if md <= 0 {
            return Err(InvalidObject::new(
                object,
                format!("{field}.minDomains"),
                format!("Invalid value: {md}: must be greater than zero"),
            ));
        }
        if when != WhenUnsatisfiable::DoNotSchedule {
            return Err(InvalidObject::new(
                object,
                format!("{field}.minDomains"),
                format!(
                    "Invalid value: {md}: can only use minDomains if whenUnsatisfiable=DoNotSchedule, not {}",
                    c.when_unsatisfiable()
                ),
            ));
        }
    }
    let policy = |v: Option<&str>,
                  default: InclusionPolicy,
                  name: &str|
     -> Result<InclusionPolicy, InvalidObject> {
        match v {
            None => Ok(default),
            Some("Honor") => Ok(InclusionPolicy::Honor),
            Some("Ignore") => Ok(InclusionPolicy::Ignore),
            Some(other) => Err(InvalidObject::new(
                object,
                format!("{field}.{name}"),
                format!("Unsupported value: {other:?}: supported values: \"Honor\", \"Ignore\""),
            )),
        }
    };
    let base = label_selector(
        c.label_selector(),
        interner,
        object,
        format_args!("{field}.labelSelector"),
    )?;
    let match_label_keys: Box<[Sym]> = c.match_label_keys().map(|k| interner.intern(k)).collect();
    let extra: Vec<Requirement> = match_label_keys
        .iter()
        .filter_map(|&k| labels.get(k).map(|v| Requirement::equals(k, v)))
        .collect();
    let selector = if extra.is_empty() {
        base
    } else {
        base.with_added(extra)
    };
    Ok(SpreadConstraint {
        max_skew: c.max_skew(),
        topology_key: interner.intern(c.topology_key()),
        when_unsatisfiable: when,
        selector,
        min_domains: c.min_domains(),
        node_affinity_policy: policy(
            c.node_affinity_policy(),
            InclusionPolicy::Honor,
            "nodeAffinityPolicy",
        )?,
        node_taints_policy: policy(
            c.node_taints_policy(),
            InclusionPolicy::Ignore,
            "nodeTaintsPolicy",
        )?,
        match_label_keys,
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::source::convert::lean_pod::LeanPod;

    /// Pods whose resource fields differ in one way each from the first,
    /// and repeat: converted in order with one memo, each is the pod
    /// converted alone, with the same strings interned in the same order,
    /// from both of its parsed forms.
    #[test]
    fn pods_converted_with_the_requests_memo_are_the_pods_converted_alone() {
        let pod = |name: &str, spec: &str| {
            format!(
                r#"{{"apiVersion":"v1","kind":"Pod","metadata":{{"name":"{name}"}},"spec":{spec}}}"#
            )
        };
        let c = |resources: &str| format!(r#"{{"name":"c","resources":{resources}}}"#);
        let base = c(r#"{"requests":{"cpu":"100m","memory":"64Mi"}}"#);
        let specs = [
            format!(r#"{{"containers":[{base}]}}"#),
            format!(
                r#"{{"containers":[{}]}}"#,
                c(r#"{"requests":{"cpu":"100m","memory":"64Mi"},"limits":{"cpu":"1"}}"#)
            ),
            format!(
                r#"{{"containers":[{}]}}"#,
                c(r#"{"limits":{"cpu":"100m","memory":"64Mi"}}"#)
            ),
            format!(
                r#"{{"containers":[{}]}}"#,
                c(
                    r#"{"requests":{"cpu":"100m","nvidia.com/gpu":"1"},"limits":{"nvidia.com/gpu":"1"}}"#
                )
            ),
            format!(r#"{{"containers":[{base},{base}]}}"#),
            format!(
                r#"{{"containers":[{base}],"initContainers":[{}]}}"#,
                c(r#"{"requests":{"cpu":"2"}}"#)
            ),
            format!(
                r#"{{"containers":[{base}],"initContainers":[{{"name":"s","restartPolicy":"Always","resources":{{"requests":{{"cpu":"2"}}}}}}]}}"#
            ),
            format!(r#"{{"containers":[{base}],"overhead":{{"cpu":"250m"}}}}"#),
            format!(r#"{{"containers":[{base}],"resources":{{"requests":{{"cpu":"3"}}}}}}"#),
            format!(
                r#"{{"containers":[{}]}}"#,
                c(r#"{"requests":{"cpu":"100m","memory":"64Mi","ephemeral-storage":"1Gi"}}"#)
            ),
        ];
        let mut memo = PodMemo::default();
        let mut memo_whole = PodMemo::default();
        let (mut with, mut with_whole, mut alone) = (
            Interner::default(),
            Interner::default(),
            Interner::default(),
        );
        for round in 0..3 {
            for (i, spec) in specs.iter().enumerate() {
                let json = pod(&format!("p-{round}-{i}"), spec);
                let lean = LeanPod::parse(&json).expect("lean parse");
                let whole: core::Pod = serde_json::from_str(&json).expect("whole parse");
                let expected = convert_pod(&whole, &mut alone).expect("converts");
                let from_lean = convert_pod_memo(&lean, &mut with, &mut memo).expect("converts");
                let from_whole =
                    convert_pod_memo(&whole, &mut with_whole, &mut memo_whole).expect("converts");
                assert_eq!(from_lean, expected, "round {round}, spec {i}");
                assert_eq!(from_whole, expected, "round {round}, spec {i}");
            }
        }
        assert!(with.strings().eq(alone.strings()));
        assert!(with_whole.strings().eq(alone.strings()));
        // One kept per spec, but the one with pod-level resources.
        assert_eq!(memo.kept.len(), specs.len() - 1);
        // A bad quantity is still refused with the memo in use.
        let bad = pod(
            "bad",
            &format!(
                r#"{{"containers":[{}]}}"#,
                c(r#"{"requests":{"cpu":"100m","memory":"64Mi","pods":"-1"}}"#)
            ),
        );
        let lean = LeanPod::parse(&bad).expect("lean parse");
        assert!(convert_pod_memo(&lean, &mut with, &mut memo).is_err());
    }

    /// Replicas converted with one memo share their owner's, scheduler's
    /// and priority class's strings, which read as each pod's own; past
    /// the memo's bound a string is still right, only not shared.
    #[test]
    fn replicas_share_the_strings_they_repeat() {
        use std::sync::Arc;
        let pod = |name: &str, owner: &str, class: &str| {
            format!(
                r#"{{"apiVersion":"v1","kind":"Pod","metadata":{{"name":"{name}","ownerReferences":[{{"apiVersion":"apps/v1","kind":"ReplicaSet","name":"{owner}","uid":"u","controller":true}}]}},"spec":{{"containers":[{{"name":"c"}}],"priorityClassName":"{class}","schedulerName":"custom"}}}}"#
            )
        };
        let mut interner = Interner::default();
        let mut memo = PodMemo::default();
        let mut convert = |json: &str| {
            let lean = LeanPod::parse(json).expect("lean parse");
            convert_pod_memo(&lean, &mut interner, &mut memo).expect("converts")
        };
        let a = convert(&pod("web-1", "web-abc", "high"));
        let b = convert(&pod("web-2", "web-abc", "high"));
        let other = convert(&pod("db-1", "db-xyz", "low"));
        let (ca, cb) = (
            a.controller.as_ref().unwrap(),
            b.controller.as_ref().unwrap(),
        );
        assert_eq!(
            (&*cb.api_version, &*cb.kind, &*cb.name),
            ("apps/v1", "ReplicaSet", "web-abc")
        );
        assert!(Arc::ptr_eq(&ca.name, &cb.name));
        assert!(Arc::ptr_eq(&ca.kind, &cb.kind));
        assert!(Arc::ptr_eq(&ca.api_version, &cb.api_version));
        assert!(Arc::ptr_eq(&a.scheduler_name, &b.scheduler_name));
        assert_eq!(&*b.scheduler_name, "custom");
        let (pa, pb) = (
            a.priority_class_name.unwrap(),
            b.priority_class_name.unwrap(),
        );
        assert!(Arc::ptr_eq(&pa, &pb));
        assert_eq!(&*pb, "high");
        assert_eq!(&*other.controller.as_ref().unwrap().name, "db-xyz");
        assert_eq!(other.priority_class_name.as_deref(), Some("low"));
        // A full memo keeps no more, and still gives the string.
        let mut full = SharedStrs::default();
        for i in 0..SharedStrs::ENTRIES {
            full.get(&format!("s{i}"));
        }
        let late = full.get("late");
        assert_eq!(&*late, "late");
        assert_eq!(full.kept.len(), SharedStrs::ENTRIES);
        assert!(!Arc::ptr_eq(&late, &full.get("late")));
        assert!(Arc::ptr_eq(&full.get("s7"), &full.get("s7")));
    }

    /// The error name's buffer, kept from pod to pod by the memo, names
    /// each pod alone: a refused pod after others, a longer name after a
    /// shorter one, and a pod after a refused one.
    #[test]
    fn errors_name_their_own_pod_when_the_memo_is_reused() {
        let pod = |ns: &str, name: &str, spec: &str| {
            format!(
                r#"{{"apiVersion":"v1","kind":"Pod","metadata":{{"namespace":"{ns}","name":"{name}"}},"spec":{spec}}}"#
            )
        };
        let good = r#"{"containers":[{"name":"c"}]}"#;
        let bad = r#"{"containers":[{"name":"c"}],"terminationGracePeriodSeconds":-1}"#;
        let mut interner = Interner::default();
        let mut memo = PodMemo::default();
        let mut convert = |json: &str| {
            let lean = LeanPod::parse(json).expect("lean parse");
            convert_pod_memo(&lean, &mut interner, &mut memo)
        };
        assert!(convert(&pod("team-with-a-long-name", "first-pod-long", good)).is_ok());
        let e = convert(&pod("ns", "b", bad)).expect_err("refused");
        assert_eq!(e.object, "Pod ns/b");
        assert_eq!(e.field, "spec.terminationGracePeriodSeconds");
        let e = convert(&pod("other", "c", r#"{"containers":[]}"#)).expect_err("refused");
        assert_eq!(e.object, "Pod other/c");
        assert_eq!(
            convert(&pod("ns", "d", good))
                .expect("converts")
                .name
                .as_ref(),
            "d"
        );
        let e = convert(&pod("ns", "e", bad)).expect_err("refused");
        assert_eq!(e.object, "Pod ns/e");
    }

    #[test]
    fn image_normalization_only_appends_latest() {
        assert_eq!(normalized_image("nginx"), "nginx:latest");
        assert_eq!(normalized_image("nginx:1.25"), "nginx:1.25");
        assert_eq!(
            normalized_image("registry:5000/app"),
            "registry:5000/app:latest"
        );
        assert_eq!(normalized_image("app@sha256:abc"), "app@sha256:abc");
        assert_eq!(normalized_image(""), ":latest");
        assert_eq!(normalized_image("a/b:1/c"), "a/b:1/c:latest");
        assert_eq!(normalized_image("reg:5000/a/b:2"), "reg:5000/a/b:2");
        assert_eq!(normalized_image("app:"), "app:");
        assert_eq!(normalized_image("app/"), "app/:latest");
    }
}
