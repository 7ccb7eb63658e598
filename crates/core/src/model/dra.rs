//! Dynamic Resource Allocation objects (`resource.k8s.io/v1`) as the
//! DynamicResources plugin reads them: DeviceClasses, ResourceSlices,
//! ResourceClaims and ResourceClaimTemplates, converted once and indexed.
//! CEL selectors are kept as text; the plugin compiles them.

use rustc_hash::{FxHashMap, FxHashSet};

use super::intern::Sym;
use super::pod::NodeSelectorTerm;

/// A `DeviceClass`: the selectors every device of the class must pass.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct DeviceClass {
    pub name: Box<str>,
    /// CEL expressions, in spec order (`None`: a selector without `cel`).
    pub selectors: Box<[Option<Box<str>>]>,
}

/// A device attribute's value (`DeviceAttribute`: exactly one of them).
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum AttrValue {
    Int(i64),
    Bool(bool),
    String(Box<str>),
    /// A semantic version, as written.
    Version(Box<str>),
}

/// An attribute: (domain, id, value).
pub type Attribute = (Box<str>, Box<str>, AttrValue);
/// A capacity: (domain, id, value in nano-units).
pub type Capacity = (Box<str>, Box<str>, i128);

/// One device of a slice. Attribute and capacity names are split into
/// their domain (the driver when the name has none) and identifier, as the
/// CEL environment exposes them.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Device {
    pub name: Box<str>,
    /// (domain, id, value).
    pub attributes: Box<[Attribute]>,
    /// (domain, id, value in nano-units).
    pub capacity: Box<[Capacity]>,
    /// `consumesCounters` is set (DRAPartitionableDevices, off by default).
    pub consumes_counters: bool,
    /// `bindingConditions` is set (DRADeviceBindingConditions, off by default).
    pub binding_conditions: bool,
}

/// Which nodes a slice's devices are available on.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum SliceNodes {
    Name(Box<str>),
    All,
    /// `nodeSelector` terms (ORed).
    Selector(Box<[NodeSelectorTerm]>),
    /// `perDeviceNodeSelection` (DRAPartitionableDevices, off by default):
    /// the allocator ignores such slices.
    PerDevice,
    /// None of the fields is set: the slice is on no node.
    Unset,
}

#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ResourceSlice {
    pub name: Box<str>,
    pub driver: Box<str>,
    pub pool: Box<str>,
    pub generation: i64,
    pub resource_slice_count: i64,
    pub nodes: SliceNodes,
    pub devices: Box<[Device]>,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum AllocationMode {
    ExactCount,
    All,
}

/// An `ExactDeviceRequest` or one `DeviceSubRequest` of `firstAvailable`.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ExactRequest {
    /// The subrequest's name; empty for an `exactly` request.
    pub name: Box<str>,
    pub device_class: Box<str>,
    pub selectors: Box<[Option<Box<str>>]>,
    pub mode: AllocationMode,
    pub count: i64,
    pub admin_access: bool,
    /// `capacity` requirements are set (DRAConsumableCapacity, off by default).
    pub capacity: bool,
}

#[derive(Clone, Debug, PartialEq, Eq)]
pub enum RequestKind {
    Exactly(ExactRequest),
    FirstAvailable(Box<[ExactRequest]>),
    /// Neither is set.
    Unknown,
}

#[derive(Clone, Debug, PartialEq, Eq)]
pub struct DeviceRequest {
    pub name: Box<str>,
    pub kind: RequestKind,
}

#[derive(Clone, Debug, PartialEq, Eq)]
pub enum ClaimConstraint {
    /// Every device allocated for the named requests (all when empty) has
    /// the same value of this attribute.
    MatchAttribute {
        requests: Box<[Box<str>]>,
        attribute: Box<str>,
    },
    /// `distinctAttribute` (DRAConsumableCapacity) or an unknown kind.
    Unsupported,
}

#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct ClaimSpec {
    pub requests: Box<[DeviceRequest]>,
    pub constraints: Box<[ClaimConstraint]>,
}

/// One `DeviceRequestAllocationResult`.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct AllocatedDevice {
    pub request: Box<str>,
    pub driver: Box<str>,
    pub pool: Box<str>,
    pub device: Box<str>,
    pub admin_access: bool,
}

#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Allocation {
    pub devices: Box<[AllocatedDevice]>,
    /// `nodeSelector` terms (ORed); `None` when the devices are reachable
    /// from every node.
    pub node_selector: Option<Box<[NodeSelectorTerm]>>,
}

#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ResourceClaim {
    pub namespace: Sym,
    pub name: Box<str>,
    pub uid: Box<str>,
    pub deleting: bool,
    /// The controlling owner: (kind, name, uid).
    pub controller: Option<(Box<str>, Box<str>, Box<str>)>,
    pub spec: ClaimSpec,
    pub allocation: Option<Allocation>,
    /// UIDs of the consumers in `status.reservedFor`.
    pub reserved_for: Box<[Box<str>]>,
}

#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ResourceClaimTemplate {
    pub namespace: Sym,
    pub name: Box<str>,
    pub spec: ClaimSpec,
}

/// A device by driver, pool and name (`DeviceID`).
#[derive(Clone, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct DeviceId {
    pub driver: Box<str>,
    pub pool: Box<str>,
    pub device: Box<str>,
}

/// Every DRA object of a snapshot, indexed as the plugin looks them up.
#[derive(Clone, Debug, Default)]
pub struct Dra {
    pub classes: FxHashMap<Box<str>, DeviceClass>,
    /// In snapshot order.
    pub slices: Vec<ResourceSlice>,
    pub claims: Vec<ResourceClaim>,
    claim_index: FxHashMap<Sym, FxHashMap<Box<str>, u32>>,
    pub templates: Vec<ResourceClaimTemplate>,
    /// Devices allocated to some claim (`ListAllAllocatedDevices`); admin
    /// access allocations do not hold a device.
    pub allocated: FxHashSet<DeviceId>,
}

impl Dra {
    pub fn new(
        classes: Vec<DeviceClass>,
        slices: Vec<ResourceSlice>,
        claims: Vec<ResourceClaim>,
        templates: Vec<ResourceClaimTemplate>,
    ) -> Self {
        let mut d = Dra {
            templates,
            ..Default::default()
        };
        for c in classes {
            d.classes.insert(c.name.clone(), c);
        }
        let mut by_name: FxHashMap<Box<str>, usize> = FxHashMap::default();
        for s in slices {
            // A later object of the same name replaces the earlier one.
            if let Some(&i) = by_name.get(&s.name) {
                d.slices[i] = s;
                continue;
            }
            by_name.insert(s.name.clone(), d.slices.len());
            d.slices.push(s);
        }
        for c in claims {
            let by_name = d.claim_index.entry(c.namespace).or_default();
            if let Some(&i) = by_name.get(&c.name) {
                d.claims[i as usize] = c;
                continue;
            }
            by_name.insert(c.name.clone(), d.claims.len() as u32);
            d.claims.push(c);
        }
        for c in &d.claims {
            for r in c.allocation.iter().flat_map(|a| a.devices.iter()) {
                if !r.admin_access {
                    d.allocated.insert(DeviceId {
                        driver: r.driver.clone(),
                        pool: r.pool.clone(),
                        device: r.device.clone(),
                    });
                }
            }
        }
        d
    }

    /// A copy with `extra` claims added, each replacing the claim of the
    /// same namespace and name (a what-if's draft claims).
    pub fn with_claims(&self, extra: Vec<ResourceClaim>) -> Dra {
        let mut claims = self.claims.clone();
        claims.extend(extra);
        Dra::new(
            self.classes.values().cloned().collect(),
            self.slices.clone(),
            claims,
            self.templates.clone(),
        )
    }

    pub fn is_empty(&self) -> bool {
        self.classes.is_empty()
            && self.slices.is_empty()
            && self.claims.is_empty()
            && self.templates.is_empty()
    }

    pub fn class(&self, name: &str) -> Option<&DeviceClass> {
        self.classes.get(name)
    }

    pub fn claim(&self, namespace: Sym, name: &str) -> Option<&ResourceClaim> {
        self.claim_index
            .get(&namespace)?
            .get(name)
            .map(|&i| &self.claims[i as usize])
    }
}
