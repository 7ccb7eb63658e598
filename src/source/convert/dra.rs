//! `resource.k8s.io/v1` `DeviceClass`, `ResourceSlice`, `ResourceClaim`
//! and `ResourceClaimTemplate` → the DRA model. The objects are parsed with
//! serde structs of their own (the `k8s-openapi` feature kplace builds with
//! predates `resource.k8s.io/v1`); fields the scheduler does not read are
//! ignored, API defaults (`allocationMode: ExactCount`, `count: 1`) applied.

use std::collections::BTreeMap;

use k8s_openapi::api::core::v1 as core;
use k8s_openapi::apimachinery::pkg::api::resource::Quantity as K8sQuantity;
use k8s_openapi::apimachinery::pkg::apis::meta::v1::ObjectMeta;
use serde::{Deserialize, Serialize};

use super::pod::object_name;
use super::requests::parse_q;
use super::selector::node_selector_term;
use crate::model::dra::*;
use crate::model::error::InvalidObject;
use crate::model::intern::Interner;
use crate::model::pod::NodeSelectorTerm;

pub const API_VERSION: &str = "resource.k8s.io/v1";

macro_rules! resource_kind {
    ($ty:ident, $kind:literal, $plural:literal, $scope:ty, $spec:ty) => {
        #[derive(Clone, Debug, Default, Deserialize, Serialize, PartialEq)]
        #[serde(rename_all = "camelCase")]
        pub struct $ty {
            /// Checked by [`check_api_version`]; list items often omit it.
            #[serde(default, skip_serializing_if = "Option::is_none")]
            pub api_version: Option<String>,
            #[serde(default)]
            pub metadata: ObjectMeta,
            #[serde(default)]
            pub spec: $spec,
        }

        impl k8s_openapi::Resource for $ty {
            const API_VERSION: &'static str = API_VERSION;
            const GROUP: &'static str = "resource.k8s.io";
            const KIND: &'static str = $kind;
            const VERSION: &'static str = "v1";
            const URL_PATH_SEGMENT: &'static str = $plural;
            type Scope = $scope;
        }

        impl k8s_openapi::Metadata for $ty {
            type Ty = ObjectMeta;
            fn metadata(&self) -> &ObjectMeta {
                &self.metadata
            }
            fn metadata_mut(&mut self) -> &mut ObjectMeta {
                &mut self.metadata
            }
        }
    };
}

resource_kind!(
    DeviceClassObject,
    "DeviceClass",
    "deviceclasses",
    k8s_openapi::ClusterResourceScope,
    DeviceClassSpec
);
resource_kind!(
    ResourceSliceObject,
    "ResourceSlice",
    "resourceslices",
    k8s_openapi::ClusterResourceScope,
    ResourceSliceSpec
);
resource_kind!(
    ResourceClaimTemplateObject,
    "ResourceClaimTemplate",
    "resourceclaimtemplates",
    k8s_openapi::NamespaceResourceScope,
    ResourceClaimTemplateSpec
);

/// A `ResourceClaim` (it also has a status, so it is spelled out).
#[derive(Clone, Debug, Default, Deserialize, Serialize, PartialEq)]
#[serde(rename_all = "camelCase")]
pub struct ResourceClaimObject {
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub api_version: Option<String>,
    #[serde(default)]
    pub metadata: ObjectMeta,
    #[serde(default)]
    pub spec: ResourceClaimSpec,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub status: Option<ResourceClaimStatus>,
}

impl k8s_openapi::Resource for ResourceClaimObject {
    const API_VERSION: &'static str = API_VERSION;
    const GROUP: &'static str = "resource.k8s.io";
    const KIND: &'static str = "ResourceClaim";
    const VERSION: &'static str = "v1";
    const URL_PATH_SEGMENT: &'static str = "resourceclaims";
    type Scope = k8s_openapi::NamespaceResourceScope;
}

impl k8s_openapi::Metadata for ResourceClaimObject {
    type Ty = ObjectMeta;
    fn metadata(&self) -> &ObjectMeta {
        &self.metadata
    }
    fn metadata_mut(&mut self) -> &mut ObjectMeta {
        &mut self.metadata
    }
}

#[derive(Clone, Debug, Default, Deserialize, Serialize, PartialEq)]
#[serde(rename_all = "camelCase")]
pub struct DeviceClassSpec {
    #[serde(default)]
    pub selectors: Vec<DeviceSelector>,
}

#[derive(Clone, Debug, Default, Deserialize, Serialize, PartialEq)]
#[serde(rename_all = "camelCase")]
pub struct DeviceSelector {
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub cel: Option<CelSelector>,
}

#[derive(Clone, Debug, Default, Deserialize, Serialize, PartialEq)]
#[serde(rename_all = "camelCase")]
pub struct CelSelector {
    pub expression: String,
}

#[derive(Clone, Debug, Default, Deserialize, Serialize, PartialEq)]
#[serde(rename_all = "camelCase")]
pub struct ResourcePool {
    #[serde(default)]
    pub name: String,
    #[serde(default)]
    pub generation: i64,
    #[serde(default)]
    pub resource_slice_count: i64,
}

#[derive(Clone, Debug, Default, Deserialize, Serialize, PartialEq)]
#[serde(rename_all = "camelCase")]
pub struct ResourceSliceSpec {
    #[serde(default)]
    pub driver: String,
    #[serde(default)]
    pub pool: ResourcePool,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub node_name: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub node_selector: Option<core::NodeSelector>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub all_nodes: Option<bool>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub per_device_node_selection: Option<bool>,
    #[serde(default)]
    pub devices: Vec<RawDevice>,
}

#[derive(Clone, Debug, Default, Deserialize, Serialize, PartialEq)]
#[serde(rename_all = "camelCase")]
pub struct RawDevice {
    #[serde(default)]
    pub name: String,
    #[serde(default)]
    pub attributes: BTreeMap<String, RawAttribute>,
    #[serde(default)]
    pub capacity: BTreeMap<String, RawCapacity>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub consumes_counters: Option<Vec<serde_json::Value>>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub binding_conditions: Option<Vec<String>>,
}

#[derive(Clone, Debug, Default, Deserialize, Serialize, PartialEq)]
#[serde(rename_all = "camelCase")]
pub struct RawAttribute {
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub int: Option<i64>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub bool: Option<bool>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub string: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub version: Option<String>,
}

#[derive(Clone, Debug, Default, Deserialize, Serialize, PartialEq)]
#[serde(rename_all = "camelCase")]
pub struct RawCapacity {
    pub value: K8sQuantity,
}

#[derive(Clone, Debug, Default, Deserialize, Serialize, PartialEq)]
#[serde(rename_all = "camelCase")]
pub struct ResourceClaimTemplateSpec {
    #[serde(default)]
    pub spec: ResourceClaimSpec,
}

#[derive(Clone, Debug, Default, Deserialize, Serialize, PartialEq)]
#[serde(rename_all = "camelCase")]
pub struct ResourceClaimSpec {
    #[serde(default)]
    pub devices: DeviceClaim,
}

#[derive(Clone, Debug, Default, Deserialize, Serialize, PartialEq)]
#[serde(rename_all = "camelCase")]
pub struct DeviceClaim {
    #[serde(default)]
    pub requests: Vec<RawRequest>,
    #[serde(default)]
    pub constraints: Vec<RawConstraint>,
}

#[derive(Clone, Debug, Default, Deserialize, Serialize, PartialEq)]
#[serde(rename_all = "camelCase")]
pub struct RawRequest {
    #[serde(default)]
    pub name: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub exactly: Option<RawExact>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub first_available: Option<Vec<RawExact>>,
}

/// `ExactDeviceRequest`, or a `DeviceSubRequest` (which has a name).
#[derive(Clone, Debug, Default, Deserialize, Serialize, PartialEq)]
#[serde(rename_all = "camelCase")]
pub struct RawExact {
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub name: Option<String>,
    #[serde(default)]
    pub device_class_name: String,
    #[serde(default)]
    pub selectors: Vec<DeviceSelector>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub allocation_mode: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub count: Option<i64>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub admin_access: Option<bool>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub capacity: Option<serde_json::Value>,
}

#[derive(Clone, Debug, Default, Deserialize, Serialize, PartialEq)]
#[serde(rename_all = "camelCase")]
pub struct RawConstraint {
    #[serde(default)]
    pub requests: Vec<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub match_attribute: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub distinct_attribute: Option<String>,
}

#[derive(Clone, Debug, Default, Deserialize, Serialize, PartialEq)]
#[serde(rename_all = "camelCase")]
pub struct ResourceClaimStatus {
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub allocation: Option<RawAllocation>,
    #[serde(default)]
    pub reserved_for: Vec<ConsumerReference>,
}

#[derive(Clone, Debug, Default, Deserialize, Serialize, PartialEq)]
#[serde(rename_all = "camelCase")]
pub struct RawAllocation {
    #[serde(default)]
    pub devices: DeviceAllocation,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub node_selector: Option<core::NodeSelector>,
}

#[derive(Clone, Debug, Default, Deserialize, Serialize, PartialEq)]
#[serde(rename_all = "camelCase")]
pub struct DeviceAllocation {
    #[serde(default)]
    pub results: Vec<RawResult>,
}

#[derive(Clone, Debug, Default, Deserialize, Serialize, PartialEq)]
#[serde(rename_all = "camelCase")]
pub struct RawResult {
    #[serde(default)]
    pub request: String,
    #[serde(default)]
    pub driver: String,
    #[serde(default)]
    pub pool: String,
    #[serde(default)]
    pub device: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub admin_access: Option<bool>,
}

#[derive(Clone, Debug, Default, Deserialize, Serialize, PartialEq)]
#[serde(rename_all = "camelCase")]
pub struct ConsumerReference {
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub api_group: Option<String>,
    #[serde(default)]
    pub resource: String,
    #[serde(default)]
    pub name: String,
    #[serde(default)]
    pub uid: String,
}

fn required_name(meta: &ObjectMeta, kind: &str, namespaced: bool) -> Result<String, InvalidObject> {
    let name = meta.name.as_deref().unwrap_or("");
    if name.is_empty() {
        let ns = namespaced.then(|| meta.namespace.as_deref().unwrap_or("default"));
        return Err(InvalidObject::new(
            &object_name(kind, ns, "<unnamed>"),
            "metadata.name",
            "Required value",
        ));
    }
    Ok(name.to_string())
}

fn selectors(list: &[DeviceSelector]) -> Box<[Option<Box<str>>]> {
    list.iter()
        .map(|s| s.cel.as_ref().map(|c| c.expression.as_str().into()))
        .collect()
}

fn terms(sel: &core::NodeSelector, interner: &mut Interner) -> Box<[NodeSelectorTerm]> {
    sel.node_selector_terms
        .iter()
        .map(|t| node_selector_term(t, interner))
        .collect()
}

/// A qualified name split into domain and identifier (`parseQualifiedName`).
fn split_name(name: &str, driver: &str) -> (Box<str>, Box<str>) {
    match name.split_once('/') {
        Some((domain, id)) => (domain.into(), id.into()),
        None => (driver.into(), name.into()),
    }
}

/// kplace reads the GA schema only: a `v1beta1`/`v1beta2` object (Kubernetes
/// 1.32–1.33) has other fields, and reading it as `v1` would answer wrongly.
fn check_api_version(api_version: Option<&str>, object: &str) -> Result<(), InvalidObject> {
    match api_version {
        None => Ok(()),
        Some(v) if v == API_VERSION => Ok(()),
        Some(v) => Err(InvalidObject::new(
            object,
            "apiVersion",
            format!(
                "Unsupported value: {v:?}: kplace reads Dynamic Resource Allocation objects of {API_VERSION} (Kubernetes 1.34 and later)"
            ),
        )),
    }
}

pub fn convert_device_class(o: &DeviceClassObject) -> Result<DeviceClass, InvalidObject> {
    let name = required_name(&o.metadata, "DeviceClass", false)?;
    check_api_version(
        o.api_version.as_deref(),
        &object_name("DeviceClass", None, &name),
    )?;
    Ok(DeviceClass {
        name: name.into(),
        selectors: selectors(&o.spec.selectors),
    })
}

pub fn convert_resource_slice(
    o: &ResourceSliceObject,
    interner: &mut Interner,
) -> Result<ResourceSlice, InvalidObject> {
    let name = required_name(&o.metadata, "ResourceSlice", false)?;
    let object = object_name("ResourceSlice", None, &name);
    check_api_version(o.api_version.as_deref(), &object)?;
    let spec = &o.spec;
    if spec.driver.is_empty() {
        return Err(InvalidObject::new(&object, "spec.driver", "Required value"));
    }
    if spec.pool.name.is_empty() {
        return Err(InvalidObject::new(
            &object,
            "spec.pool.name",
            "Required value",
        ));
    }
    if spec.pool.resource_slice_count <= 0 {
        return Err(InvalidObject::new(
            &object,
            "spec.pool.resourceSliceCount",
            format!(
                "Invalid value: {}: must be greater than zero",
                spec.pool.resource_slice_count
            ),
        ));
    }
    let nodes = match (
        spec.node_name.as_deref().filter(|n| !n.is_empty()),
        spec.all_nodes.unwrap_or(false),
        &spec.node_selector,
        spec.per_device_node_selection.unwrap_or(false),
    ) {
        (Some(n), ..) => SliceNodes::Name(n.into()),
        (None, true, ..) => SliceNodes::All,
        (None, false, Some(sel), _) => SliceNodes::Selector(terms(sel, interner)),
        (None, false, None, true) => SliceNodes::PerDevice,
        (None, false, None, false) => SliceNodes::Unset,
    };
    let driver = spec.driver.as_str();
    let mut devices = Vec::with_capacity(spec.devices.len());
    for (i, d) in spec.devices.iter().enumerate() {
        let mut attributes = Vec::with_capacity(d.attributes.len());
        for (key, a) in &d.attributes {
            let field = || format!("spec.devices[{i}].attributes[{key}]");
            let value = match (&a.int, &a.bool, &a.string, &a.version) {
                (Some(v), None, None, None) => AttrValue::Int(*v),
                (None, Some(v), None, None) => AttrValue::Bool(*v),
                (None, None, Some(v), None) => AttrValue::String(v.as_str().into()),
                (None, None, None, Some(v)) => AttrValue::Version(v.as_str().into()),
                _ => {
                    return Err(InvalidObject::new(
                        &object,
                        field(),
                        "exactly one value must be specified",
                    ));
                }
            };
            let (domain, id) = split_name(key, driver);
            attributes.push((domain, id, value));
        }
        let mut capacity = Vec::with_capacity(d.capacity.len());
        for (key, c) in &d.capacity {
            let q = parse_q(
                &c.value.0,
                &object,
                format_args!("spec.devices[{i}].capacity[{key}].value"),
            )?;
            let (domain, id) = split_name(key, driver);
            capacity.push((domain, id, q.nanos()));
        }
        devices.push(Device {
            name: d.name.as_str().into(),
            attributes: attributes.into(),
            capacity: capacity.into(),
            consumes_counters: d.consumes_counters.as_ref().is_some_and(|c| !c.is_empty()),
            binding_conditions: d.binding_conditions.as_ref().is_some_and(|c| !c.is_empty()),
        });
    }
    Ok(ResourceSlice {
        name: name.into(),
        driver: driver.into(),
        pool: spec.pool.name.as_str().into(),
        generation: spec.pool.generation,
        resource_slice_count: spec.pool.resource_slice_count,
        nodes,
        devices: devices.into(),
    })
}

fn exact(raw: &RawExact, object: &str, field: &str) -> Result<ExactRequest, InvalidObject> {
    let mode = match raw.allocation_mode.as_deref() {
        None | Some("") | Some("ExactCount") => AllocationMode::ExactCount,
        Some("All") => AllocationMode::All,
        Some(other) => {
            return Err(InvalidObject::new(
                object,
                format!("{field}.allocationMode"),
                format!("Unsupported value: {other:?}: supported values: \"All\", \"ExactCount\""),
            ));
        }
    };
    let count = match mode {
        AllocationMode::ExactCount => raw.count.unwrap_or(1),
        AllocationMode::All => 0,
    };
    if mode == AllocationMode::ExactCount && count <= 0 {
        return Err(InvalidObject::new(
            object,
            format!("{field}.count"),
            format!("Invalid value: {count}: must be greater than zero"),
        ));
    }
    Ok(ExactRequest {
        name: raw.name.as_deref().unwrap_or("").into(),
        device_class: raw.device_class_name.as_str().into(),
        selectors: selectors(&raw.selectors),
        mode,
        count,
        admin_access: raw.admin_access.unwrap_or(false),
        capacity: raw.capacity.is_some(),
    })
}

fn claim_spec(
    spec: &ResourceClaimSpec,
    object: &str,
    path: &str,
) -> Result<ClaimSpec, InvalidObject> {
    let mut requests = Vec::with_capacity(spec.devices.requests.len());
    for (i, r) in spec.devices.requests.iter().enumerate() {
        let field = format!("{path}.devices.requests[{i}]");
        let kind = match (&r.exactly, &r.first_available) {
            (Some(e), None) => RequestKind::Exactly(exact(e, object, &format!("{field}.exactly"))?),
            (None, Some(subs)) if !subs.is_empty() => RequestKind::FirstAvailable(
                subs.iter()
                    .enumerate()
                    .map(|(j, s)| exact(s, object, &format!("{field}.firstAvailable[{j}]")))
                    .collect::<Result<_, _>>()?,
            ),
            (Some(_), Some(_)) => {
                return Err(InvalidObject::new(
                    object,
                    field,
                    "exactly one of `exactly` or `firstAvailable` is required",
                ));
            }
            _ => RequestKind::Unknown,
        };
        requests.push(DeviceRequest {
            name: r.name.as_str().into(),
            kind,
        });
    }
    let constraints = spec
        .devices
        .constraints
        .iter()
        .map(|c| match (&c.match_attribute, &c.distinct_attribute) {
            (Some(attr), None) => ClaimConstraint::MatchAttribute {
                requests: c.requests.iter().map(|r| r.as_str().into()).collect(),
                attribute: attr.as_str().into(),
            },
            _ => ClaimConstraint::Unsupported,
        })
        .collect();
    Ok(ClaimSpec {
        requests: requests.into(),
        constraints,
    })
}

fn namespace_of(meta: &ObjectMeta) -> &str {
    meta.namespace
        .as_deref()
        .filter(|n| !n.is_empty())
        .unwrap_or("default")
}

pub fn convert_resource_claim(
    o: &ResourceClaimObject,
    interner: &mut Interner,
) -> Result<ResourceClaim, InvalidObject> {
    let name = required_name(&o.metadata, "ResourceClaim", true)?;
    let namespace = namespace_of(&o.metadata);
    let object = object_name("ResourceClaim", Some(namespace), &name);
    check_api_version(o.api_version.as_deref(), &object)?;
    let spec = claim_spec(&o.spec, &object, "spec")?;
    let status = o.status.as_ref();
    let allocation = status
        .and_then(|s| s.allocation.as_ref())
        .map(|a| Allocation {
            devices: a
                .devices
                .results
                .iter()
                .map(|r| AllocatedDevice {
                    request: r.request.as_str().into(),
                    driver: r.driver.as_str().into(),
                    pool: r.pool.as_str().into(),
                    device: r.device.as_str().into(),
                    admin_access: r.admin_access.unwrap_or(false),
                })
                .collect(),
            node_selector: a.node_selector.as_ref().map(|s| terms(s, interner)),
        });
    let controller = o
        .metadata
        .owner_references
        .iter()
        .flatten()
        .find(|r| r.controller == Some(true))
        .map(|r| {
            (
                r.kind.as_str().into(),
                r.name.as_str().into(),
                r.uid.as_str().into(),
            )
        });
    Ok(ResourceClaim {
        namespace: interner.intern(namespace),
        name: name.into(),
        uid: o.metadata.uid.as_deref().unwrap_or("").into(),
        deleting: o.metadata.deletion_timestamp.is_some(),
        controller,
        spec,
        allocation,
        reserved_for: status
            .iter()
            .flat_map(|s| s.reserved_for.iter())
            .map(|r| r.uid.as_str().into())
            .collect(),
    })
}

pub fn convert_resource_claim_template(
    o: &ResourceClaimTemplateObject,
    interner: &mut Interner,
) -> Result<ResourceClaimTemplate, InvalidObject> {
    let name = required_name(&o.metadata, "ResourceClaimTemplate", true)?;
    let namespace = namespace_of(&o.metadata);
    let object = object_name("ResourceClaimTemplate", Some(namespace), &name);
    check_api_version(o.api_version.as_deref(), &object)?;
    Ok(ResourceClaimTemplate {
        namespace: interner.intern(namespace),
        spec: claim_spec(&o.spec.spec, &object, "spec.spec")?,
        name: name.into(),
    })
}
