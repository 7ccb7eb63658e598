//! PriorityClasses, PodDisruptionBudgets, Services and workload controllers.

use k8s_openapi::api::apps::v1 as apps;
use k8s_openapi::api::core::v1 as core;
use k8s_openapi::api::policy::v1 as policy;
use k8s_openapi::api::scheduling::v1 as scheduling;
use k8s_openapi::apimachinery::pkg::util::intstr::IntOrString;

use super::pod::object_name;
use super::selector::{label_selector, map_selector};
use crate::model::error::InvalidObject;
use crate::model::intern::Interner;
use crate::model::labels::LabelSelector;
use crate::model::pod::PreemptionPolicy;
use crate::model::policy::*;

/// `HighestUserDefinablePriority`.
pub const HIGHEST_USER_DEFINABLE_PRIORITY: i32 = 1_000_000_000;

pub fn convert_priority_class(
    pc: &scheduling::PriorityClass,
) -> Result<PriorityClass, InvalidObject> {
    let name = pc.metadata.name.as_deref().unwrap_or("");
    let object = object_name("PriorityClass", None, name);
    if name.is_empty() {
        return Err(InvalidObject::new(
            &object,
            "metadata.name",
            "Required value",
        ));
    }
    let preemption_policy = match pc.preemption_policy.as_deref() {
        None | Some("PreemptLowerPriority") => PreemptionPolicy::PreemptLowerPriority,
        Some("Never") => PreemptionPolicy::Never,
        Some(other) => {
            return Err(InvalidObject::new(
                &object,
                "preemptionPolicy",
                format!(
                    "Unsupported value: {other:?}: supported values: \"Never\", \"PreemptLowerPriority\""
                ),
            ));
        }
    };
    if let Some(system) = crate::model::cluster::system_priority_class(name) {
        if system.value != pc.value {
            return Err(InvalidObject::new(
                &object,
                "metadata.name",
                format!(
                    "priority class names with 'system-' prefix are reserved for system use only. error: {name} has value {} but the system class has {}",
                    pc.value, system.value
                ),
            ));
        }
    } else if name.starts_with("system-") {
        return Err(InvalidObject::new(
            &object,
            "metadata.name",
            format!(
                "priority class names with 'system-' prefix are reserved for system use only. error: {name} is not a known system priority class"
            ),
        ));
    } else if pc.value > HIGHEST_USER_DEFINABLE_PRIORITY {
        return Err(InvalidObject::new(
            &object,
            "value",
            "Forbidden: maximum allowed value of a user defined priority is 1000000000",
        ));
    }
    Ok(PriorityClass {
        name: name.into(),
        value: pc.value,
        global_default: pc.global_default.unwrap_or(false),
        preemption_policy,
        description: pc.description.as_deref().unwrap_or("").into(),
    })
}

fn int_or_percent(
    v: &IntOrString,
    object: &str,
    field: &str,
) -> Result<IntOrPercent, InvalidObject> {
    match v {
        IntOrString::Int(i) => Ok(IntOrPercent::Int(*i)),
        IntOrString::String(s) => match s.strip_suffix('%').and_then(|p| p.parse::<i32>().ok()) {
            Some(p) => Ok(IntOrPercent::Percent(p)),
            None => s.parse::<i32>().map(IntOrPercent::Int).map_err(|_| {
                InvalidObject::new(
                    object,
                    field,
                    format!("Invalid value: {s:?}: must be an integer or percentage (e.g. 5%)"),
                )
            }),
        },
    }
}

pub fn convert_pdb(
    p: &policy::PodDisruptionBudget,
    interner: &mut Interner,
) -> Result<DisruptionBudget, InvalidObject> {
    let ns = p.metadata.namespace.as_deref().unwrap_or("default");
    let name = p.metadata.name.as_deref().unwrap_or("");
    let object = object_name("PodDisruptionBudget", Some(ns), name);
    let spec = p.spec.as_ref();
    let selector = label_selector(
        spec.and_then(|s| s.selector.as_ref()),
        interner,
        &object,
        "spec.selector",
    )?;
    let status = p.status.as_ref();
    Ok(DisruptionBudget {
        namespace: interner.intern(ns),
        name: name.into(),
        selector,
        disruptions_allowed: status.map(|s| s.disruptions_allowed),
        disrupted_pods: status
            .and_then(|s| s.disrupted_pods.as_ref())
            .map(|m| m.keys().map(|k| k.as_str().into()).collect())
            .unwrap_or_default(),
        min_available: spec
            .and_then(|s| s.min_available.as_ref())
            .map(|v| int_or_percent(v, &object, "spec.minAvailable"))
            .transpose()?,
        max_unavailable: spec
            .and_then(|s| s.max_unavailable.as_ref())
            .map(|v| int_or_percent(v, &object, "spec.maxUnavailable"))
            .transpose()?,
        computed: false,
    })
}

pub fn convert_service(s: &core::Service, interner: &mut Interner) -> SelectorOwner {
    let selector = s.spec.as_ref().and_then(|sp| sp.selector.as_ref());
    SelectorOwner {
        kind: SelectorOwnerKind::Service,
        namespace: interner.intern(s.metadata.namespace.as_deref().unwrap_or("default")),
        name: s.metadata.name.as_deref().unwrap_or("").into(),
        selector: selector
            .map(|m| map_selector(m, interner))
            .unwrap_or(LabelSelector::Nothing),
        has_selector: selector.is_some(),
        stateful: None,
    }
}

pub fn convert_rc(rc: &core::ReplicationController, interner: &mut Interner) -> SelectorOwner {
    let selector = rc.spec.as_ref().and_then(|sp| sp.selector.as_ref());
    SelectorOwner {
        kind: SelectorOwnerKind::ReplicationController,
        namespace: interner.intern(rc.metadata.namespace.as_deref().unwrap_or("default")),
        name: rc.metadata.name.as_deref().unwrap_or("").into(),
        selector: selector
            .map(|m| map_selector(m, interner))
            .unwrap_or(LabelSelector::Nothing),
        has_selector: selector.is_some(),
        stateful: None,
    }
}

fn workload(
    kind: SelectorOwnerKind,
    kind_name: &str,
    meta: &k8s_openapi::apimachinery::pkg::apis::meta::v1::ObjectMeta,
    selector: Option<&k8s_openapi::apimachinery::pkg::apis::meta::v1::LabelSelector>,
    interner: &mut Interner,
) -> Result<SelectorOwner, InvalidObject> {
    let ns = meta.namespace.as_deref().unwrap_or("default");
    let name = meta.name.as_deref().unwrap_or("");
    let object = object_name(kind_name, Some(ns), name);
    Ok(SelectorOwner {
        kind,
        namespace: interner.intern(ns),
        name: name.into(),
        selector: label_selector(selector, interner, &object, "spec.selector")?,
        has_selector: selector.is_some(),
        stateful: None,
    })
}

pub fn convert_replica_set(
    rs: &apps::ReplicaSet,
    interner: &mut Interner,
) -> Result<SelectorOwner, InvalidObject> {
    workload(
        SelectorOwnerKind::ReplicaSet,
        "ReplicaSet",
        &rs.metadata,
        rs.spec.as_ref().map(|s| &s.selector),
        interner,
    )
}

pub fn convert_stateful_set(
    ss: &apps::StatefulSet,
    interner: &mut Interner,
) -> Result<SelectorOwner, InvalidObject> {
    let mut owner = workload(
        SelectorOwnerKind::StatefulSet,
        "StatefulSet",
        &ss.metadata,
        ss.spec.as_ref().map(|s| &s.selector),
        interner,
    )?;
    let ns = ss.metadata.namespace.as_deref().unwrap_or("default");
    let object = object_name("StatefulSet", Some(ns), &owner.name);
    let spec = ss.spec.as_ref();
    let mut claim_templates = Vec::new();
    for (i, t) in spec
        .and_then(|s| s.volume_claim_templates.as_ref())
        .into_iter()
        .flatten()
        .enumerate()
    {
        let field = format!("spec.volumeClaimTemplates[{i}]");
        if t.metadata.name.as_deref().unwrap_or("").is_empty() {
            return Err(InvalidObject::new(
                &object,
                format!("{field}.metadata.name"),
                "Required value",
            ));
        }
        let mut t = t.clone();
        t.metadata.namespace = Some(ns.to_string());
        let class_set = t
            .spec
            .as_ref()
            .is_some_and(|s| s.storage_class_name.is_some())
            || t.metadata
                .annotations
                .as_ref()
                .is_some_and(|a| a.contains_key(super::storage::BETA_STORAGE_CLASS_ANNOTATION));
        let claim = super::storage::convert_persistent_volume_claim(&t, interner)
            .map_err(|e| InvalidObject::new(&object, format!("{field}.{}", e.field), e.message))?;
        claim_templates.push(ClaimTemplate { claim, class_set });
    }
    owner.stateful = Some(Box::new(StatefulSetSpec {
        replicas: spec.and_then(|s| s.replicas).unwrap_or(1),
        ordinals_start: spec
            .and_then(|s| s.ordinals.as_ref())
            .and_then(|o| o.start)
            .unwrap_or(0),
        claim_templates: claim_templates.into(),
    }));
    Ok(owner)
}
