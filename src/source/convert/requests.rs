//! Pod resource requests, as `PodRequests` and `calculateResource` compute them.
//!
//! Three views of the same containers are needed (see the semantics doc,
//! NodeResourcesFit): the exact request `R(pod)` used by the Filter, the
//! existing pod's contribution to `NonZeroRequested`, and the incoming pod's
//! non-zero request used by LeastAllocated scoring. They differ in where the
//! 100m / 200Mi defaults apply and in how sidecars are counted.

use std::borrow::Cow;

use k8s_openapi::api::core::v1 as core;

use super::pod_fields::ContainerFields;
use crate::model::error::InvalidObject;
use crate::model::intern::Interner;
use crate::model::pod::PodLevelRequests;
use crate::model::quantity::Quantity;
use crate::model::resources::{CpuMem, Resources};

/// `DefaultMilliCPURequest`.
pub const DEFAULT_MILLI_CPU_REQUEST: i64 = 100;
/// `DefaultMemoryRequest` (200Mi).
pub const DEFAULT_MEMORY_REQUEST: i64 = 200 * 1024 * 1024;

/// Exact per-resource amounts, keyed by resource name, walked in name
/// order as the `BTreeMap` it replaces was. A few entries in a vector: the
/// request arithmetic builds several per container of every pod loaded,
/// and the usual names are not copied (#15).
#[derive(Clone, Debug, Default, PartialEq)]
pub struct ResourceList(Vec<(Cow<'static, str>, Quantity)>);

/// Resource names common enough to keep as constants.
const KNOWN_NAMES: &[&str] = &[
    "cpu",
    "memory",
    "ephemeral-storage",
    "pods",
    "hugepages-2Mi",
    "hugepages-1Gi",
    "nvidia.com/gpu",
];

impl ResourceList {
    pub fn new() -> Self {
        ResourceList(Vec::new())
    }

    fn find(&self, name: &str) -> Result<usize, usize> {
        self.0.binary_search_by(|(k, _)| (**k).cmp(name))
    }

    /// Sets `name`'s amount, replacing any before.
    pub fn insert(&mut self, name: &str, q: Quantity) {
        match self.find(name) {
            Ok(i) => self.0[i].1 = q,
            Err(i) => {
                let name = match KNOWN_NAMES.iter().find(|&&k| k == name) {
                    Some(&known) => Cow::Borrowed(known),
                    None => Cow::Owned(name.to_string()),
                };
                self.0.insert(i, (name, q));
            }
        }
    }

    pub fn get(&self, name: &str) -> Option<&Quantity> {
        self.find(name).ok().map(|i| &self.0[i].1)
    }

    pub fn get_mut(&mut self, name: &str) -> Option<&mut Quantity> {
        self.find(name).ok().map(|i| &mut self.0[i].1)
    }

    pub fn contains_key(&self, name: &str) -> bool {
        self.find(name).is_ok()
    }

    pub fn is_empty(&self) -> bool {
        self.0.is_empty()
    }

    /// Names and amounts, in name order.
    pub fn iter(&self) -> impl Iterator<Item = (&str, &Quantity)> {
        self.0.iter().map(|(k, q)| (&**k, q))
    }
}

impl<'a> FromIterator<(&'a str, Quantity)> for ResourceList {
    fn from_iter<I: IntoIterator<Item = (&'a str, Quantity)>>(pairs: I) -> Self {
        let mut list = ResourceList::new();
        for (name, q) in pairs {
            list.insert(name, q);
        }
        list
    }
}

impl<'a> IntoIterator for &'a ResourceList {
    type Item = (&'a str, &'a Quantity);
    type IntoIter = std::iter::Map<
        std::slice::Iter<'a, (Cow<'static, str>, Quantity)>,
        fn(&'a (Cow<'static, str>, Quantity)) -> (&'a str, &'a Quantity),
    >;
    fn into_iter(self) -> Self::IntoIter {
        self.0.iter().map(|(k, q)| (&**k, q))
    }
}

/// One container's requests after API defaulting (requests := limits per missing key).
pub struct ContainerRequests {
    pub requests: ResourceList,
    pub restartable: bool,
}

pub fn container_requests(
    c: &impl ContainerFields,
    object: &str,
    path: impl std::fmt::Display,
) -> Result<ResourceList, InvalidObject> {
    let mut out = ResourceList::new();
    for (k, v) in c.limits() {
        out.insert(
            k,
            parse_nonnegative(v, object, format_args!("{path}.resources.limits.{k}"))?,
        );
    }
    for (k, v) in c.requests() {
        let q = parse_nonnegative(v, object, format_args!("{path}.resources.requests.{k}"))?;
        check_request_against_limit(c, k, v, q, out.get(k), object, &path)?;
        out.insert(k, q);
    }
    Ok(out)
}

/// `ValidateContainerResourceRequirements`' check of a request against its
/// container's limit: at most the limit, equal to it for a resource that
/// cannot be overcommitted (extended resources, huge pages), which must
/// have a limit. The API server refuses such a pod, so kplace does too.
/// (The values are echoed as written, where upstream prints them in
/// canonical form.)
fn check_request_against_limit(
    c: &impl ContainerFields,
    name: &str,
    written: &str,
    request: Quantity,
    limit: Option<&Quantity>,
    object: &str,
    path: &impl std::fmt::Display,
) -> Result<(), InvalidObject> {
    let overcommit = is_overcommit_allowed(name);
    let detail = match limit {
        Some(limit) if *limit == request => return Ok(()),
        Some(_) if !overcommit => "must be equal to",
        Some(limit) if request > *limit => "must be less than or equal to",
        Some(_) => return Ok(()),
        None if overcommit => return Ok(()),
        None => {
            return Err(InvalidObject::new(
                object,
                format!("{path}.resources.limits"),
                "Required value: Limit must be set for non overcommitable resources".to_string(),
            ));
        }
    };
    let limit_written = c
        .limits()
        .find(|(k, _)| *k == name)
        .map_or("", |(_, v)| v.trim());
    Err(InvalidObject::new(
        object,
        format!("{path}.resources.requests"),
        format!(
            "Invalid value: {:?}: {detail} {name} limit of {limit_written}",
            written.trim()
        ),
    ))
}

/// `IsOvercommitAllowed`: a native resource (no domain, or a
/// `kubernetes.io/` one) that is not huge pages.
pub fn is_overcommit_allowed(name: &str) -> bool {
    let native = !name.contains('/') || name.contains("kubernetes.io/");
    native && !name.starts_with("hugepages-")
}

/// `field` is formatted only for an error: converting 150,000 pods builds
/// no path string per quantity.
pub fn parse_q(
    s: &str,
    object: &str,
    field: impl std::fmt::Display,
) -> Result<Quantity, InvalidObject> {
    Quantity::parse(s).map_err(|e| InvalidObject::new(object, field.to_string(), e.to_string()))
}

/// A request, limit, overhead or allocatable amount: a quantity the API
/// server's `ValidateNonnegativeQuantity` accepts.
pub fn parse_nonnegative(
    s: &str,
    object: &str,
    field: impl std::fmt::Display,
) -> Result<Quantity, InvalidObject> {
    let Ok(q) = Quantity::parse(s) else {
        return parse_q(s, object, field);
    };
    if q.is_negative() {
        return Err(InvalidObject::new(
            object,
            field.to_string(),
            format!(
                "Invalid value: {:?}: must be greater than or equal to 0",
                s.trim()
            ),
        ));
    }
    Ok(q)
}

// The name is copied only when `into` lacks it: these run for every
// container of every pod loaded.
fn add_list(into: &mut ResourceList, from: &ResourceList) {
    for (k, v) in from {
        match into.get_mut(k) {
            Some(e) => *e += *v,
            None => {
                into.insert(k, *v);
            }
        }
    }
}

fn max_list(into: &mut ResourceList, from: &ResourceList) {
    for (k, v) in from {
        match into.get_mut(k) {
            Some(e) => {
                if *v > *e {
                    *e = *v;
                }
            }
            // An absent name counts as zero, which a negative amount (never
            // validated in) would not beat.
            None => {
                into.insert(k, (*v).max(Quantity::default()));
            }
        }
    }
}

fn with_non_missing_defaults(list: &ResourceList) -> ResourceList {
    let mut out = list.clone();
    if !out.contains_key("cpu") {
        out.insert("cpu", Quantity::from_milli(DEFAULT_MILLI_CPU_REQUEST));
    }
    if !out.contains_key("memory") {
        out.insert("memory", Quantity::from_units(DEFAULT_MEMORY_REQUEST));
    }
    out
}

/// `PodRequests`: containers summed, sidecars added, init containers raise the
/// max, overhead added. `defaults` applies the non-missing defaults to every
/// container first (the incoming pod's scoring view).
pub fn pod_requests(
    containers: &[ResourceList],
    init: &[ContainerRequests],
    overhead: &ResourceList,
    defaults: bool,
) -> ResourceList {
    let prep = |l| -> std::borrow::Cow<'_, ResourceList> {
        if defaults {
            std::borrow::Cow::Owned(with_non_missing_defaults(l))
        } else {
            std::borrow::Cow::Borrowed(l)
        }
    };
    let mut sum = ResourceList::new();
    for c in containers {
        add_list(&mut sum, &prep(c));
    }
    let mut sidecars = ResourceList::new();
    let mut init_max = ResourceList::new();
    for ic in init {
        let reqs = prep(&ic.requests);
        let use_ = if ic.restartable {
            add_list(&mut sum, &reqs);
            add_list(&mut sidecars, &reqs);
            sidecars.clone()
        } else {
            let mut tmp = reqs.into_owned();
            add_list(&mut tmp, &sidecars);
            tmp
        };
        max_list(&mut init_max, &use_);
    }
    max_list(&mut sum, &init_max);
    add_list(&mut sum, overhead);
    sum
}

/// `calculateResource`'s non-zero part for a pod already on a node:
/// `max(Σ regular nz(c), max_init nz(init use)) + overhead`. Sidecars reach it
/// only through the init max.
pub fn existing_non_zero(
    containers: &[ResourceList],
    init: &[ContainerRequests],
    overhead: &ResourceList,
) -> CpuMem {
    let nz = |l: &ResourceList| CpuMem {
        milli_cpu: l
            .get("cpu")
            .map(|q| q.milli_value())
            .unwrap_or(DEFAULT_MILLI_CPU_REQUEST),
        memory: l
            .get("memory")
            .map(|q| q.value())
            .unwrap_or(DEFAULT_MEMORY_REQUEST),
    };
    let mut total = CpuMem::default();
    for c in containers {
        total.add(nz(c));
    }
    let mut sidecars = ResourceList::new();
    let mut init_max = CpuMem::default();
    for ic in init {
        let use_ = if ic.restartable {
            add_list(&mut sidecars, &ic.requests);
            sidecars.clone()
        } else {
            let mut tmp = ic.requests.clone();
            add_list(&mut tmp, &sidecars);
            tmp
        };
        let v = nz(&use_);
        init_max.milli_cpu = init_max.milli_cpu.max(v.milli_cpu);
        init_max.memory = init_max.memory.max(v.memory);
    }
    total.milli_cpu = total.milli_cpu.max(init_max.milli_cpu);
    total.memory = total.memory.max(init_max.memory);
    if let Some(q) = overhead.get("cpu") {
        total.milli_cpu = total.milli_cpu.wrapping_add(q.milli_value());
    }
    if let Some(q) = overhead.get("memory") {
        total.memory = total.memory.wrapping_add(q.value());
    }
    total
}

/// `IsSupportedPodLevelResource`: cpu, memory and hugepages.
fn is_pod_level_resource(name: &str) -> bool {
    matches!(name, "cpu" | "memory") || name.starts_with("hugepages-")
}

/// Pod-level `spec.resources` requests after API defaulting (requests :=
/// limits per missing key), keeping only the names pod level supports.
/// Empty when the pod sets none (`IsPodLevelRequestsSet` is false).
pub fn pod_level_list(
    res: Option<&core::ResourceRequirements>,
    object: &str,
) -> Result<ResourceList, InvalidObject> {
    let mut out = ResourceList::new();
    let Some(res) = res else { return Ok(out) };
    for (field, list) in [("limits", &res.limits), ("requests", &res.requests)] {
        for (k, v) in list.iter().flatten() {
            let q = parse_nonnegative(&v.0, object, format_args!("spec.resources.{field}.{k}"))?;
            if is_pod_level_resource(k) {
                out.insert(k, q);
            }
        }
    }
    Ok(out)
}

/// `PodRequests` with pod-level resources: the container-level requests
/// (`containers`, already with any non-missing defaults), each pod-level
/// resource replacing its sum, then overhead added.
fn with_pod_level(
    mut container_level: ResourceList,
    pod_level: &ResourceList,
    overhead: &ResourceList,
) -> ResourceList {
    for (k, q) in pod_level {
        container_level.insert(k, *q);
    }
    add_list(&mut container_level, overhead);
    container_level
}

/// A pod with pod-level requests as v1.34's `PodRequests` and
/// `CalculateResource` see it.
pub fn pod_level_requests(
    pod_level: &ResourceList,
    containers: &[ResourceList],
    init: &[ContainerRequests],
    overhead: &ResourceList,
    interner: &mut Interner,
) -> PodLevelRequests {
    let none = ResourceList::new();
    let exact_containers = pod_requests(containers, init, &none, false);
    let exact = with_pod_level(exact_containers, pod_level, overhead);
    // CalculateResource: defaults only for cpu/memory set at neither level.
    let missing: Vec<&str> = ["cpu", "memory"]
        .into_iter()
        .filter(|k| !exact.contains_key(k))
        .collect();
    let non_zero_list = if missing.is_empty() {
        exact.clone()
    } else {
        let defaulted: Vec<ResourceList> = containers
            .iter()
            .map(|c| with_defaults_for(c, &missing))
            .collect();
        let defaulted_init: Vec<ContainerRequests> = init
            .iter()
            .map(|ic| ContainerRequests {
                requests: with_defaults_for(&ic.requests, &missing),
                restartable: ic.restartable,
            })
            .collect();
        with_pod_level(
            pod_requests(&defaulted, &defaulted_init, &none, false),
            pod_level,
            overhead,
        )
    };
    PodLevelRequests {
        requests: to_resources(&exact, interner),
        non_zero: incoming_non_zero(&non_zero_list),
    }
}

fn with_defaults_for(list: &ResourceList, missing: &[&str]) -> ResourceList {
    let mut out = list.clone();
    for &k in missing {
        if !out.contains_key(k) {
            let q = match k {
                "cpu" => Quantity::from_milli(DEFAULT_MILLI_CPU_REQUEST),
                _ => Quantity::from_units(DEFAULT_MEMORY_REQUEST),
            };
            out.insert(k, q);
        }
    }
    out
}

pub use crate::model::resources::is_scalar_resource;

/// `Resource.Add`: maps names to fields, converting each quantity once.
pub fn to_resources(list: &ResourceList, interner: &mut Interner) -> Resources {
    let mut r = Resources::default();
    for (name, q) in list {
        match name {
            "cpu" => r.milli_cpu = r.milli_cpu.wrapping_add(q.milli_value()),
            "memory" => r.memory = r.memory.wrapping_add(q.value()),
            "ephemeral-storage" => {
                r.ephemeral_storage = r.ephemeral_storage.wrapping_add(q.value())
            }
            "pods" => r.allowed_pods = r.allowed_pods.wrapping_add(q.value()),
            other if is_scalar_resource(other) => {
                let sym = interner.intern(other);
                let cur = r.scalar(sym);
                r.set_scalar(sym, cur.wrapping_add(q.value()));
            }
            _ => {}
        }
    }
    r
}

/// The incoming pod's LeastAllocated request (`calculatePodResourceRequest`
/// with non-missing defaults).
pub fn incoming_non_zero(list: &ResourceList) -> CpuMem {
    CpuMem {
        milli_cpu: list.get("cpu").map(|q| q.milli_value()).unwrap_or(0),
        memory: list.get("memory").map(|q| q.value()).unwrap_or(0),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn list(pairs: &[(&str, &str)]) -> ResourceList {
        pairs
            .iter()
            .map(|(k, v)| (*k, Quantity::parse(v).unwrap()))
            .collect()
    }

    #[test]
    fn sidecar_adds_to_sum_regular_init_raises_max() {
        let containers = vec![list(&[("cpu", "500m")])];
        let init = vec![
            ContainerRequests {
                requests: list(&[("cpu", "100m")]),
                restartable: true,
            },
            ContainerRequests {
                requests: list(&[("cpu", "1")]),
                restartable: false,
            },
        ];
        let r = pod_requests(&containers, &init, &ResourceList::new(), false);
        // sum = 500 + 100 (sidecar) = 600; init use = 1000 + 100 = 1100.
        assert_eq!(r.get("cpu").unwrap().milli_value(), 1100);
    }

    #[test]
    fn existing_non_zero_ignores_sidecar_in_sum() {
        let containers = vec![list(&[("cpu", "500m")])];
        let init = vec![ContainerRequests {
            requests: list(&[("cpu", "300m")]),
            restartable: true,
        }];
        let nz = existing_non_zero(&containers, &init, &ResourceList::new());
        assert_eq!(
            nz.milli_cpu, 500,
            "sidecar only enters through the init max"
        );
        assert_eq!(nz.memory, DEFAULT_MEMORY_REQUEST);
        let r = pod_requests(&containers, &init, &ResourceList::new(), true);
        assert_eq!(
            r.get("cpu").unwrap().milli_value(),
            800,
            "incoming view adds the sidecar"
        );
        assert_eq!(r.get("memory").unwrap().value(), 2 * DEFAULT_MEMORY_REQUEST);
    }

    #[test]
    fn explicit_zero_is_not_defaulted() {
        let containers = vec![list(&[("cpu", "0")])];
        let nz = existing_non_zero(&containers, &[], &ResourceList::new());
        assert_eq!(nz.milli_cpu, 0);
    }

    #[test]
    fn scalar_names() {
        assert!(is_scalar_resource("nvidia.com/gpu"));
        assert!(is_scalar_resource("hugepages-2Mi"));
        assert!(!is_scalar_resource("cpu"));
        assert!(!is_scalar_resource("requests.example.com/x"));
    }
}
