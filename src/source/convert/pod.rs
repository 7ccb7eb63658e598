//! `v1.Pod` → [`Pod`], applying the API defaults the scheduler relies on and
//! the validation the API server would apply.

use k8s_openapi::api::core::v1 as core;

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

/// The API server's default `terminationGracePeriodSeconds`.
pub const DEFAULT_TERMINATION_GRACE_SECONDS: i64 = 30;

pub fn object_name(kind: &str, namespace: Option<&str>, name: &str) -> String {
    match namespace {
        Some(ns) => format!("{kind} {ns}/{name}"),
        None => format!("{kind} {name}"),
    }
}

pub fn labels_of(
    map: Option<&std::collections::BTreeMap<String, String>>,
    interner: &mut Interner,
) -> Labels {
    Labels::new(
        map.into_iter()
            .flatten()
            .map(|(k, v)| (interner.intern(k), interner.intern(v)))
            .collect(),
    )
}

pub fn timestamp(t: Option<&k8s_openapi::apimachinery::pkg::apis::meta::v1::Time>) -> Option<i64> {
    t.map(|t| t.0.as_second())
}

/// Normalizes an image name as ImageLocality does: append `:latest` when the
/// name has no tag after its last `/`.
pub fn normalized_image(name: &str) -> std::borrow::Cow<'_, str> {
    let last_colon = name.rfind(':');
    let last_slash = name.rfind('/');
    match (last_colon, last_slash) {
        (Some(c), Some(s)) if c > s => name.into(),
        (Some(_), None) => name.into(),
        _ => format!("{name}:latest").into(),
    }
}

pub fn convert_pod(p: &core::Pod, interner: &mut Interner) -> Result<Pod, InvalidObject> {
    let meta = &p.metadata;
    let (namespace, name, object) = identity(meta)?;
    let Some(spec) = &p.spec else {
        return Err(InvalidObject::new(&object, "spec", "Required value"));
    };
    if spec.containers.is_empty() {
        return Err(InvalidObject::new(
            &object,
            "spec.containers",
            "Required value",
        ));
    }
    validate::labels(meta.labels.as_ref(), &object, "metadata.labels")?;
    validate::labels(spec.node_selector.as_ref(), &object, "spec.nodeSelector")?;
    let ns_sym = interner.intern(namespace);
    let labels = labels_of(meta.labels.as_ref(), interner);
    let requests = PodRequestLists::of(spec, &object)?;
    let placement = Constraints::of(spec, ns_sym, &labels, interner, &object)?;
    let termination = termination(meta, spec, &object)?;
    let preemption_policy = preemption_policy(spec, &object)?;
    let status = p.status.as_ref();
    let conditions = status.and_then(|s| s.conditions.as_deref()).unwrap_or(&[]);

    Ok(Pod {
        namespace: ns_sym,
        name: name.into(),
        uid: meta.uid.as_deref().unwrap_or("").into(),
        node_name: spec
            .node_name
            .as_deref()
            .filter(|n| !n.is_empty())
            .map(Into::into),
        node: None,
        phase: PodPhase::parse(status.and_then(|s| s.phase.as_deref()).unwrap_or("Pending")),
        ready: conditions
            .iter()
            .any(|c| c.type_ == "Ready" && c.status == "True"),
        deletion_timestamp: timestamp(meta.deletion_timestamp.as_ref()),
        start_time: timestamp(status.and_then(|s| s.start_time.as_ref())),
        creation_timestamp: timestamp(meta.creation_timestamp.as_ref()),
        priority: spec.priority,
        priority_class_name: spec
            .priority_class_name
            .as_deref()
            .filter(|s| !s.is_empty())
            .map(Into::into),
        preemption_policy,
        requests: to_resources(&requests.exact, interner),
        non_zero_requests: existing_non_zero(&requests.regular, &requests.init, &requests.overhead),
        incoming_non_zero_requests: incoming_non_zero(&requests.defaulted),
        pod_level: requests.pod_level(interner),
        host_ports: host_ports(spec),
        node_selector: placement.node_selector,
        node_affinity: placement.node_affinity,
        tolerations: placement.tolerations,
        pod_affinity: placement.pod_affinity,
        spread_constraints: placement.spread,
        labels,
        controller: controller(meta),
        images: images(spec, interner),
        scheduling_gates: spec
            .scheduling_gates
            .iter()
            .flatten()
            .map(|g| g.name.as_str().into())
            .collect(),
        nominated_node_name: status
            .and_then(|s| s.nominated_node_name.as_deref())
            .filter(|n| !n.is_empty())
            .map(Into::into),
        scheduler_name: spec
            .scheduler_name
            .as_deref()
            .unwrap_or("default-scheduler")
            .into(),
        termination,
        preempted_by_scheduler: conditions
            .iter()
            .find(|c| c.type_ == "DisruptionTarget")
            .is_some_and(|c| {
                c.status == "True" && c.reason.as_deref() == Some("PreemptionByScheduler")
            }),
        volumes: spec
            .volumes
            .iter()
            .flatten()
            .filter_map(|v| convert_volume(v, name))
            .collect(),
        resource_claims: resource_claims(p),
    })
}

/// The pod's namespace (defaulted), name (or `generateName`) and its name
/// in error messages; a pod with neither name is refused.
fn identity(
    meta: &k8s_openapi::apimachinery::pkg::apis::meta::v1::ObjectMeta,
) -> Result<(&str, &str, String), InvalidObject> {
    let namespace = meta.namespace.as_deref().unwrap_or("default");
    let name = meta
        .name
        .as_deref()
        .or(meta.generate_name.as_deref())
        .unwrap_or("");
    let object = object_name("Pod", Some(namespace), name);
    if name.is_empty() {
        return Err(InvalidObject::new(
            &object,
            "metadata.name",
            "Required value: name or generateName is required",
        ));
    }
    Ok((namespace, name, object))
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
    fn of(spec: &core::PodSpec, object: &str) -> Result<Self, InvalidObject> {
        let mut regular = Vec::with_capacity(spec.containers.len());
        for (i, c) in spec.containers.iter().enumerate() {
            regular.push(requests::container_requests(
                c,
                object,
                format_args!("spec.containers[{i}]"),
            )?);
        }
        let mut init = Vec::new();
        for (i, c) in spec.init_containers.iter().flatten().enumerate() {
            init.push(ContainerRequests {
                requests: requests::container_requests(
                    c,
                    object,
                    format_args!("spec.initContainers[{i}]"),
                )?,
                restartable: c.restart_policy.as_deref() == Some("Always"),
            });
        }
        let mut overhead = ResourceList::new();
        for (k, v) in spec.overhead.iter().flatten() {
            overhead.insert(
                k.clone(),
                requests::parse_nonnegative(&v.0, object, format_args!("spec.overhead.{k}"))?,
            );
        }
        let pod_level = requests::pod_level_list(spec.resources.as_ref(), object)?;
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
/// `hostNetwork` (defaults: IP 0.0.0.0, protocol TCP).
fn host_ports(spec: &core::PodSpec) -> Box<[HostPort]> {
    let host_network = spec.host_network.unwrap_or(false);
    let mut host_ports = Vec::new();
    for c in &spec.containers {
        for port in c.ports.iter().flatten() {
            let host_port = match port.host_port {
                Some(hp) if hp > 0 => hp,
                _ if host_network => port.container_port,
                _ => 0,
            };
            if host_port > 0 {
                host_ports.push(HostPort {
                    ip: port
                        .host_ip
                        .as_deref()
                        .filter(|s| !s.is_empty())
                        .unwrap_or("0.0.0.0")
                        .into(),
                    protocol: port
                        .protocol
                        .as_deref()
                        .filter(|s| !s.is_empty())
                        .unwrap_or("TCP")
                        .into(),
                    port: host_port,
                });
            }
        }
    }
    host_ports.into_boxed_slice()
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
        spec: &core::PodSpec,
        ns_sym: Sym,
        labels: &Labels,
        interner: &mut Interner,
        object: &str,
    ) -> Result<Self, InvalidObject> {
        let node_selector = spec.node_selector.as_ref().map(|m| {
            m.iter()
                .map(|(k, v)| (interner.intern(k), interner.intern(v)))
                .collect::<Vec<_>>()
                .into_boxed_slice()
        });
        let affinity = spec.affinity.as_ref();
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
        for (i, t) in spec.tolerations.iter().flatten().enumerate() {
            tolerations.push(convert_toleration(t, object, i)?);
        }
        let mut spread = Vec::new();
        for (i, c) in spec
            .topology_spread_constraints
            .iter()
            .flatten()
            .enumerate()
        {
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

/// The controlling owner (`controller: true`), for default spreading and
/// the views' workload names.
fn controller(
    meta: &k8s_openapi::apimachinery::pkg::apis::meta::v1::ObjectMeta,
) -> Option<OwnerRef> {
    meta.owner_references
        .iter()
        .flatten()
        .find(|o| o.controller == Some(true))
        .map(|o| OwnerRef {
            api_version: o.api_version.as_str().into(),
            kind: o.kind.as_str().into(),
            name: o.name.as_str().into(),
        })
}

/// Every container's image, normalized as ImageLocality compares them.
fn images(spec: &core::PodSpec, interner: &mut Interner) -> Box<[Sym]> {
    spec.init_containers
        .iter()
        .flatten()
        .chain(spec.containers.iter())
        .map(|c| interner.intern(&normalized_image(c.image.as_deref().unwrap_or(""))))
        .collect()
}

/// What graceful termination of the pod would take: its grace periods and
/// which (sidecar) containers have a preStop hook.
fn termination(
    meta: &k8s_openapi::apimachinery::pkg::apis::meta::v1::ObjectMeta,
    spec: &core::PodSpec,
    object: &str,
) -> Result<TerminationInfo, InvalidObject> {
    if let Some(grace) = spec.termination_grace_period_seconds
        && grace < 0
    {
        return Err(InvalidObject::new(
            object,
            "spec.terminationGracePeriodSeconds",
            format!("Invalid value: {grace}: must be greater than or equal to 0"),
        ));
    }
    let pre_stop_containers = spec
        .containers
        .iter()
        .chain(
            spec.init_containers
                .iter()
                .flatten()
                .filter(|c| c.restart_policy.as_deref() == Some("Always")),
        )
        .filter(|c| c.lifecycle.as_ref().is_some_and(|l| l.pre_stop.is_some()))
        .map(|c| c.name.as_str().into())
        .collect();
    Ok(TerminationInfo {
        grace_period_seconds: Some(
            spec.termination_grace_period_seconds
                .unwrap_or(DEFAULT_TERMINATION_GRACE_SECONDS),
        ),
        deletion_grace_period_seconds: meta.deletion_grace_period_seconds,
        pre_stop_containers,
    })
}

/// `spec.preemptionPolicy`, one of the two values the API server accepts.
fn preemption_policy(
    spec: &core::PodSpec,
    object: &str,
) -> Result<Option<PreemptionPolicy>, InvalidObject> {
    match spec.preemption_policy.as_deref() {
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
fn resource_claims(p: &core::Pod) -> Box<[PodResourceClaim]> {
    let statuses = p
        .status
        .as_ref()
        .and_then(|s| s.resource_claim_statuses.as_deref())
        .unwrap_or(&[]);
    p.spec
        .iter()
        .flat_map(|s| s.resource_claims.iter().flatten())
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
fn convert_volume(v: &core::Volume, pod_name: &str) -> Option<PodVolume> {
    if let Some(pvc) = &v.persistent_volume_claim {
        return Some(PodVolume::Claim(pvc.claim_name.as_str().into()));
    }
    if v.ephemeral.is_some() {
        return Some(PodVolume::Ephemeral(
            format!("{pod_name}-{}", v.name).into(),
        ));
    }
    let disk = if let Some(d) = &v.gce_persistent_disk {
        InlineDisk::GcePersistentDisk {
            pd_name: d.pd_name.as_str().into(),
            read_only: d.read_only.unwrap_or(false),
        }
    } else if let Some(d) = &v.aws_elastic_block_store {
        InlineDisk::AwsElasticBlockStore {
            volume_id: d.volume_id.as_str().into(),
        }
    } else if let Some(d) = &v.iscsi {
        InlineDisk::Iscsi {
            iqn: d.iqn.as_str().into(),
            read_only: d.read_only.unwrap_or(false),
        }
    } else if let Some(d) = &v.rbd {
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
    t: &core::Toleration,
    object: &str,
    i: usize,
) -> Result<Toleration, InvalidObject> {
    let field = format!("spec.tolerations[{i}]");
    let operator = match t.operator.as_deref() {
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
    let value = t.value.as_deref().unwrap_or("");
    if operator == TolerationOperator::Exists && !value.is_empty() {
        return Err(InvalidObject::new(
            object,
            format!("{field}.operator"),
            format!("Invalid value: {value:?}: value must be empty when `operator` is 'Exists'"),
        ));
    }
    let key = t.key.as_deref().unwrap_or("");
    if !key.is_empty() {
        validate::label_name(key, object, &format!("{field}.key"))?;
    }
    if operator == TolerationOperator::Equal {
        validate::label_value(value, object, &format!("{field}.operator"))?;
    }
    if t.toleration_seconds.is_some() && t.effect.as_deref() != Some("NoExecute") {
        return Err(validate::invalid(
            object,
            format!("{field}.effect"),
            t.effect.as_deref().unwrap_or(""),
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
    let effect = match t.effect.as_deref() {
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
            &format!("{field}.labelSelector"),
        )?,
        topology_key: interner.intern(&t.topology_key),
        namespace_selector: label_selector(
            t.namespace_selector.as_ref(),
            interner,
            object,
            &format!("{field}.namespaceSelector"),
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
    c: &core::TopologySpreadConstraint,
    labels: &Labels,
    interner: &mut Interner,
    object: &str,
    i: usize,
) -> Result<SpreadConstraint, InvalidObject> {
    let field = format!("spec.topologySpreadConstraints[{i}]");
    if c.max_skew <= 0 {
        return Err(InvalidObject::new(
            object,
            format!("{field}.maxSkew"),
            format!("Invalid value: {}: must be greater than zero", c.max_skew),
        ));
    }
    if c.topology_key.is_empty() {
        return Err(InvalidObject::new(
            object,
            format!("{field}.topologyKey"),
            "Required value: can not be empty",
        ));
    }
    let when = match c.when_unsatisfiable.as_str() {
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
    if let Some(md) = c.min_domains {
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
                    c.when_unsatisfiable
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
        c.label_selector.as_ref(),
        interner,
        object,
        &format!("{field}.labelSelector"),
    )?;
    let match_label_keys: Box<[Sym]> = c
        .match_label_keys
        .iter()
        .flatten()
        .map(|k| interner.intern(k))
        .collect();
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
        max_skew: c.max_skew,
        topology_key: interner.intern(&c.topology_key),
        when_unsatisfiable: when,
        selector,
        min_domains: c.min_domains,
        node_affinity_policy: policy(
            c.node_affinity_policy.as_deref(),
            InclusionPolicy::Honor,
            "nodeAffinityPolicy",
        )?,
        node_taints_policy: policy(
            c.node_taints_policy.as_deref(),
            InclusionPolicy::Ignore,
            "nodeTaintsPolicy",
        )?,
        match_label_keys,
    })
}

#[cfg(test)]
mod tests {
    use super::normalized_image;

    #[test]
    fn image_normalization_only_appends_latest() {
        assert_eq!(normalized_image("nginx"), "nginx:latest");
        assert_eq!(normalized_image("nginx:1.25"), "nginx:1.25");
        assert_eq!(
            normalized_image("registry:5000/app"),
            "registry:5000/app:latest"
        );
        assert_eq!(normalized_image("app@sha256:abc"), "app@sha256:abc");
    }
}
