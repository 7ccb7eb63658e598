//! The structured-parameters allocator (upstream
//! `dynamic-resource-allocation/structured`). v1.34's default feature
//! gates (DRAAdminAccess, DRAPrioritizedList, DRAResourceClaimDeviceStatus
//! on) select its `experimental` variant; with partitionable devices,
//! device taints, binding conditions and consumable capacity off it
//! behaves as follows, which is what this reproduces:
//!
//! - the pools of the slices available on the node, newest generation
//!   only; a pool is incomplete when it has fewer slices than it declares;
//! - for each claim, each request (or the first subrequest of
//!   `firstAvailable` that works), `count` devices (or `All` matching ones)
//!   that pass the class's and the request's CEL selectors and are not
//!   allocated to another claim nor picked already in this attempt;
//! - a depth-first search that backtracks over the choices, so the answer
//!   is "can every claim be allocated", whatever order pools are visited in
//!   (upstream's is a map's, so which devices are picked may differ).

use rustc_hash::FxHashMap;

use super::cel::{self, DeviceView, Expr};
use crate::engine::plugins::node_affinity;
use crate::model::dra::*;
use crate::model::{Interner, Node};

/// `resourceapi.AllocationResultsMaxSize`.
pub const ALLOCATION_RESULTS_MAX_SIZE: usize = 32;

/// One device picked for a claim.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct DeviceResult {
    /// `request` or `request/subrequest`.
    pub request: String,
    pub id: DeviceId,
}

/// The allocator for one pod's claims, set up once per cycle (PreFilter)
/// and asked per node (Filter).
pub struct Allocator<'a> {
    dra: &'a Dra,
    claims: Vec<&'a ResourceClaim>,
    /// Every selector expression of the claims and their classes, compiled.
    compiled: FxHashMap<&'a str, Result<Expr, String>>,
}

/// A pool of devices available on the node.
struct Pool<'a> {
    driver: &'a str,
    name: &'a str,
    slices: Vec<&'a ResourceSlice>,
    incomplete: bool,
    invalid: Option<String>,
}

/// A device by position: pool, slice in pool, device in slice.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
struct DevRef {
    pool: usize,
    slice: usize,
    device: usize,
}

/// `requestIndices`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
struct ReqKey {
    claim: usize,
    request: usize,
    sub: usize,
}

struct RequestData<'a> {
    exact: &'a ExactRequest,
    /// The request holding `exact` when it is a subrequest.
    parent: Option<&'a DeviceRequest>,
    class: &'a DeviceClass,
    num_devices: usize,
    all_devices: Vec<DevRef>,
}

struct MatchState<'a> {
    requests: &'a [Box<str>],
    domain: &'a str,
    id: &'a str,
    value: Option<&'a AttrValue>,
    num_devices: usize,
}

impl MatchState<'_> {
    fn applies(&self, request: &str, sub: &str) -> bool {
        if self.requests.is_empty() {
            return true;
        }
        let has = |n: &str| self.requests.iter().any(|r| **r == *n);
        if sub.is_empty() {
            has(request)
        } else {
            has(request) || has(&format!("{request}/{sub}"))
        }
    }
}

struct Search<'s, 'a> {
    alloc: &'s Allocator<'a>,
    interner: &'s Interner,
    pools: Vec<Pool<'a>>,
    data: FxHashMap<ReqKey, RequestData<'a>>,
    /// Devices picked in this attempt, with the claims they went to.
    allocating: FxHashMap<(usize, &'a str), Vec<usize>>,
    constraints: Vec<Vec<MatchState<'a>>>,
    result: Vec<Vec<DeviceResult>>,
    matches: FxHashMap<(DevRef, ReqKey), bool>,
    /// The subrequest picked per `firstAvailable` request.
    selected_sub: FxHashMap<(usize, usize), usize>,
}

enum Step {
    Done(bool),
    MaxSizeExceeded,
}

impl<'a> Allocator<'a> {
    pub fn new(dra: &'a Dra, claims: Vec<&'a ResourceClaim>) -> Self {
        let mut compiled = FxHashMap::default();
        let mut add = |selectors: &'a [Option<Box<str>>]| {
            for s in selectors.iter().flatten() {
                compiled.entry(&**s).or_insert_with(|| cel::compile(s));
            }
        };
        for c in dra.classes.values() {
            add(&c.selectors);
        }
        for claim in &claims {
            for r in claim.spec.requests.iter() {
                match &r.kind {
                    RequestKind::Exactly(e) => add(&e.selectors),
                    RequestKind::FirstAvailable(subs) => {
                        for s in subs.iter() {
                            add(&s.selectors);
                        }
                    }
                    RequestKind::Unknown => {}
                }
            }
        }
        Allocator {
            dra,
            claims,
            compiled,
        }
    }

    pub fn claims(&self) -> &[&'a ResourceClaim] {
        &self.claims
    }

    /// Whether a slice's devices are available on the node (`nodeMatches`).
    fn slice_on_node(slice: &ResourceSlice, node: &Node, interner: &Interner) -> bool {
        match &slice.nodes {
            SliceNodes::Name(n) => **n == *node.name,
            SliceNodes::All => true,
            SliceNodes::Selector(terms) => terms
                .iter()
                .any(|t| node_affinity::term_matches(t, node, interner)),
            SliceNodes::PerDevice | SliceNodes::Unset => false,
        }
    }

    /// `GatherPools`: the newest generation of each pool on the node, in
    /// the order the pools first appear.
    fn gather_pools(&self, node: &Node, interner: &Interner) -> Vec<Pool<'a>> {
        let mut pools: Vec<Pool<'a>> = Vec::new();
        for slice in &self.dra.slices {
            if !Self::slice_on_node(slice, node, interner) {
                continue;
            }
            if slice.devices.iter().any(|d| d.binding_conditions) {
                // Only with DRADeviceBindingConditions; such pools come last
                // and their devices are never selectable without it.
                continue;
            }
            match pools
                .iter_mut()
                .find(|p| *p.driver == *slice.driver && *p.name == *slice.pool)
            {
                None => pools.push(Pool {
                    driver: &slice.driver,
                    name: &slice.pool,
                    slices: vec![slice],
                    incomplete: false,
                    invalid: None,
                }),
                Some(p) => {
                    let current = p.slices[0].generation;
                    if slice.generation < current {
                        continue;
                    }
                    if slice.generation > current {
                        p.slices.clear();
                    }
                    p.slices.push(slice);
                }
            }
        }
        for p in &mut pools {
            p.incomplete = p.slices.len() as i64 != p.slices[0].resource_slice_count;
            let mut seen = rustc_hash::FxHashSet::default();
            for d in p.slices.iter().flat_map(|s| s.devices.iter()) {
                if !seen.insert(&*d.name) {
                    p.invalid = Some(format!("duplicate device name {}", d.name));
                    break;
                }
            }
        }
        pools
    }

    /// A search over the node's pools, with every request validated.
    fn search<'s>(&'s self, node: &Node, interner: &'s Interner) -> Result<Search<'s, 'a>, String> {
        let mut search = Search {
            alloc: self,
            interner,
            pools: self.gather_pools(node, interner),
            data: FxHashMap::default(),
            allocating: FxHashMap::default(),
            constraints: Vec::with_capacity(self.claims.len()),
            result: vec![Vec::new(); self.claims.len()],
            matches: FxHashMap::default(),
            selected_sub: FxHashMap::default(),
        };
        search.prepare()?;
        Ok(search)
    }

    /// `Allocate`: the devices for every claim on this node (`Ok(None)`:
    /// they cannot all be allocated), or the error upstream's Filter
    /// returns (a broken selector, a class gone, an `All` request over an
    /// incomplete pool).
    pub fn allocate(
        &self,
        node: &Node,
        interner: &Interner,
    ) -> Result<Option<Vec<Vec<DeviceResult>>>, String> {
        let mut search = self.search(node, interner)?;
        match search.allocate_one(0, 0, 0, 0, false)? {
            Step::Done(true) => Ok(Some(search.result)),
            _ => Ok(None),
        }
    }
}

/// What one request (or `firstAvailable` subrequest) of a claim finds on a
/// node: how many devices pass its class's and its own selectors, and which
/// of those other claims hold. Not part of the scheduler: it explains a
/// DynamicResources rejection ("which nodes have how many matching devices
/// free, held by whom").
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct RequestInventory {
    /// Index into [`Allocator::claims`].
    pub claim: usize,
    /// `request` or `request/subrequest`.
    pub request: String,
    pub device_class: String,
    /// The devices asked for; `None` for `allocationMode: All`.
    pub count: Option<usize>,
    /// Devices on the node that pass the selectors.
    pub matching: usize,
    /// Those of them already allocated to a claim.
    pub held: Vec<DeviceId>,
}

impl Allocator<'_> {
    /// Every request's matching and held devices on the node, in claim,
    /// request and subrequest order; the error is the one Filter reports
    /// (a broken selector, an `All` request over a pool being updated).
    pub fn inventory(
        &self,
        node: &Node,
        interner: &Interner,
    ) -> Result<Vec<RequestInventory>, String> {
        let mut search = self.search(node, interner)?;
        // Count what each request's own selectors match, not the entries
        // validation cached under another subrequest's indices.
        search.matches.clear();
        let mut out = Vec::new();
        for (ci, claim) in self.claims.iter().enumerate() {
            for (ri, req) in claim.spec.requests.iter().enumerate() {
                let subs = match &req.kind {
                    RequestKind::FirstAvailable(subs) => subs.len(),
                    _ => 1,
                };
                for si in 0..subs {
                    let key = ReqKey {
                        claim: ci,
                        request: ri,
                        sub: si,
                    };
                    let Some(data) = search.data.get(&key) else {
                        continue;
                    };
                    let (exact, class, parent) = (data.exact, data.class, data.parent);
                    let mut entry = RequestInventory {
                        claim: ci,
                        request: match parent {
                            Some(p) => format!("{}/{}", p.name, exact.name),
                            None => req.name.to_string(),
                        },
                        device_class: exact.device_class.to_string(),
                        count: (exact.mode == AllocationMode::ExactCount)
                            .then_some(exact.count.max(0) as usize),
                        matching: 0,
                        held: Vec::new(),
                    };
                    for pi in 0..search.pools.len() {
                        for sl in 0..search.pools[pi].slices.len() {
                            for di in 0..search.pools[pi].slices[sl].devices.len() {
                                let r = DevRef {
                                    pool: pi,
                                    slice: sl,
                                    device: di,
                                };
                                if !search.selectable(key, class, exact, r)? {
                                    continue;
                                }
                                entry.matching += 1;
                                if search.in_use(r) {
                                    entry.held.push(search.device_id(r));
                                }
                            }
                        }
                    }
                    out.push(entry);
                }
            }
        }
        Ok(out)
    }
}

fn claim_key(c: &ResourceClaim, interner: &Interner) -> String {
    format!("{}/{}", interner.resolve(c.namespace), c.name)
}

impl<'s, 'a> Search<'s, 'a> {
    fn device(&self, r: DevRef) -> &'a Device {
        let slice: &'a ResourceSlice = self.pools[r.pool].slices[r.slice];
        &slice.devices[r.device]
    }

    fn device_id(&self, r: DevRef) -> DeviceId {
        let p = &self.pools[r.pool];
        DeviceId {
            driver: p.driver.into(),
            pool: p.name.into(),
            device: self.device(r).name.clone(),
        }
    }

    /// Validates every request and gathers `All` devices.
    fn prepare(&mut self) -> Result<(), String> {
        let interner = self.interner;
        for (ci, claim) in self.alloc.claims.iter().enumerate() {
            let mut min_devices = 0usize;
            for (ri, req) in claim.spec.requests.iter().enumerate() {
                match &req.kind {
                    RequestKind::Exactly(e) => {
                        let key = ReqKey {
                            claim: ci,
                            request: ri,
                            sub: 0,
                        };
                        let d = self.validate(claim, e, None, key)?;
                        min_devices += d.num_devices;
                        self.data.insert(key, d);
                    }
                    RequestKind::FirstAvailable(subs) => {
                        let mut min = usize::MAX;
                        for (si, sub) in subs.iter().enumerate() {
                            // Upstream validates subrequest i under the
                            // indices of subrequest i-1 (it sets the index
                            // after validating), so an `All` subrequest's
                            // selector results are cached for its
                            // predecessor.
                            let d = self.validate(
                                claim,
                                sub,
                                Some(req),
                                ReqKey {
                                    claim: ci,
                                    request: ri,
                                    sub: si.saturating_sub(1),
                                },
                            )?;
                            min = min.min(d.num_devices);
                            self.data.insert(
                                ReqKey {
                                    claim: ci,
                                    request: ri,
                                    sub: si,
                                },
                                d,
                            );
                        }
                        min_devices += min;
                    }
                    RequestKind::Unknown => {
                        return Err(format!(
                            "claim {}, request {}: missing device class name (unsupported request type?)",
                            claim_key(claim, interner),
                            req.name
                        ));
                    }
                }
                if req_has_capacity(req) {
                    return Err(format!(
                        "claim {}, request {}: has capacity requests, but the DRAConsumableCapacity feature is disabled",
                        claim_key(claim, interner),
                        req.name
                    ));
                }
            }
            if min_devices > ALLOCATION_RESULTS_MAX_SIZE {
                return Err(format!(
                    "claim {}: number of requested devices {min_devices} exceeds the claim limit of {ALLOCATION_RESULTS_MAX_SIZE}",
                    claim_key(claim, interner)
                ));
            }
            let mut states = Vec::new();
            for (i, c) in claim.spec.constraints.iter().enumerate() {
                match c {
                    ClaimConstraint::MatchAttribute {
                        requests,
                        attribute,
                    } => {
                        let (domain, id) = attribute.split_once('/').unwrap_or(("", attribute));
                        states.push(MatchState {
                            requests,
                            domain,
                            id,
                            value: None,
                            num_devices: 0,
                        });
                    }
                    ClaimConstraint::Unsupported => {
                        return Err(format!(
                            "claim {}, constraint #{i}: empty constraint (unsupported constraint type?)",
                            claim_key(claim, interner)
                        ));
                    }
                }
            }
            self.constraints.push(states);
        }
        Ok(())
    }

    fn validate(
        &mut self,
        claim: &ResourceClaim,
        request: &'a ExactRequest,
        parent: Option<&'a DeviceRequest>,
        key: ReqKey,
    ) -> Result<RequestData<'a>, String> {
        let interner = self.interner;
        // `request.name()`: the subrequest's own name for a subrequest.
        let name = match parent {
            None => claim.spec.requests[key.request].name.to_string(),
            Some(_) => request.name.to_string(),
        };
        if let Some(i) = request.selectors.iter().position(Option::is_none) {
            return Err(format!(
                "claim {}, request {name}, selector #{i}: CEL expression empty (unsupported selector type?)",
                claim_key(claim, interner)
            ));
        }
        if request.device_class.is_empty() {
            return Err(format!(
                "claim {}, request {name}: missing device class name (unsupported request type?)",
                claim_key(claim, interner)
            ));
        }
        let Some(class) = self.alloc.dra.class(&request.device_class) else {
            return Err(format!(
                "claim {}, request {name}: could not retrieve device class {}: deviceclass.resource.k8s.io \"{}\" not found",
                claim_key(claim, interner),
                request.device_class,
                request.device_class
            ));
        };
        let mut data = RequestData {
            exact: request,
            parent,
            class,
            num_devices: 0,
            all_devices: Vec::new(),
        };
        match request.mode {
            AllocationMode::ExactCount => data.num_devices = request.count.max(0) as usize,
            AllocationMode::All => {
                for pi in 0..self.pools.len() {
                    let pool = &self.pools[pi];
                    let id = format!("{}/{}", pool.driver, pool.name);
                    let slices: Vec<&'a ResourceSlice> = pool.slices.clone();
                    if pool.incomplete {
                        return Err(format!(
                            "claim {}, request {name}: asks for all devices, but resource pool {id} is currently being updated",
                            claim_key(claim, interner)
                        ));
                    }
                    if pool.invalid.is_some() {
                        return Err(format!(
                            "claim {}, request {name}: asks for all devices, but resource pool {id} is currently invalid",
                            claim_key(claim, interner)
                        ));
                    }
                    for (si, slice) in slices.iter().enumerate() {
                        for di in 0..slice.devices.len() {
                            let r = DevRef {
                                pool: pi,
                                slice: si,
                                device: di,
                            };
                            if self.selectable(key, class, request, r)? {
                                data.all_devices.push(r);
                            }
                        }
                    }
                }
                data.num_devices = data.all_devices.len();
            }
        }
        Ok(data)
    }

    /// `isSelectable`: the class's selectors, then the request's.
    fn selectable(
        &mut self,
        key: ReqKey,
        class: &'a DeviceClass,
        exact: &'a ExactRequest,
        r: DevRef,
    ) -> Result<bool, String> {
        let device = self.device(r);
        if device.binding_conditions {
            return Ok(false);
        }
        if let Some(&m) = self.matches.get(&(r, key)) {
            return Ok(m);
        }
        let claim = self.alloc.claims[key.claim];
        let view = DeviceView {
            driver: self.pools[r.pool].driver,
            device,
        };
        let run = |selectors: &[Option<Box<str>>], what: &str| -> Result<bool, String> {
            for (i, s) in selectors.iter().enumerate() {
                let Some(s) = s else { continue };
                let expr = match self.alloc.compiled.get(&**s) {
                    Some(Ok(e)) => e,
                    Some(Err(e)) => {
                        return Err(format!("{what}: selector #{i}: CEL compile error: {e}"));
                    }
                    None => return Err(format!("{what}: selector #{i}: not compiled")),
                };
                match view.matches(expr) {
                    Ok(true) => {}
                    Ok(false) => return Ok(false),
                    Err(e) => return Err(format!("{what}: selector #{i}: CEL runtime error: {e}")),
                }
            }
            Ok(true)
        };
        let m = run(&class.selectors, &format!("class {}", class.name))?
            && run(
                &exact.selectors,
                &format!("claim {}", claim_key(claim, self.interner)),
            )?;
        self.matches.insert((r, key), m);
        Ok(m)
    }

    fn in_use(&self, r: DevRef) -> bool {
        let p = &self.pools[r.pool];
        let name = &*self.device(r).name;
        self.allocating
            .get(&(r.pool, name))
            .is_some_and(|c| !c.is_empty())
            || self.alloc.dra.allocated.contains(&DeviceId {
                driver: p.driver.into(),
                pool: p.name.into(),
                device: name.into(),
            })
    }

    fn allocating_for_claim(&self, r: DevRef, claim: usize) -> bool {
        self.allocating
            .get(&(r.pool, &*self.device(r).name))
            .is_some_and(|c| c.contains(&claim))
    }

    /// `allocateOne`.
    fn allocate_one(
        &mut self,
        claim: usize,
        request: usize,
        sub: usize,
        device_index: usize,
        allocate_sub: bool,
    ) -> Result<Step, String> {
        let claims = &self.alloc.claims;
        if claim >= claims.len() {
            return Ok(Step::Done(true));
        }
        let c = claims[claim];
        if request >= c.spec.requests.len() {
            return match self.allocate_one(claim + 1, 0, 0, 0, false)? {
                Step::MaxSizeExceeded => Ok(Step::Done(false)),
                s => Ok(s),
            };
        }
        let key = ReqKey {
            claim,
            request,
            sub,
        };
        let is_sub = self.data[&key].parent.is_some();
        if !allocate_sub && is_sub {
            let mut all_exceeded = true;
            for si in 0.. {
                if !self.data.contains_key(&ReqKey { sub: si, ..key }) {
                    return Ok(if all_exceeded {
                        Step::MaxSizeExceeded
                    } else {
                        Step::Done(false)
                    });
                }
                match self.allocate_one(claim, request, si, device_index, true)? {
                    Step::MaxSizeExceeded => continue,
                    Step::Done(ok) => {
                        all_exceeded = false;
                        if ok {
                            self.selected_sub.insert((claim, request), si);
                            return Ok(Step::Done(true));
                        }
                    }
                }
            }
        }
        let data = &self.data[&key];
        let (exact, class, num_devices) = (data.exact, data.class, data.num_devices);
        let all = exact.mode == AllocationMode::All;
        if all && data.all_devices.is_empty() {
            return Ok(Step::Done(false));
        }
        if device_index >= num_devices {
            return self.allocate_one(claim, request + 1, 0, 0, false);
        }
        if self.result[claim].len() + num_devices - device_index > ALLOCATION_RESULTS_MAX_SIZE {
            return Ok(Step::MaxSizeExceeded);
        }
        if all {
            let r = data.all_devices[device_index];
            if !self.allocate_device(key, r, true)? {
                return Ok(Step::Done(false));
            }
            // Upstream continues with subrequest index 0 here.
            return match self.allocate_one(claim, request, 0, device_index + 1, allocate_sub) {
                Ok(Step::Done(true)) => Ok(Step::Done(true)),
                other => {
                    self.deallocate(key, r);
                    other?;
                    Ok(Step::Done(false))
                }
            };
        }
        for pi in 0..self.pools.len() {
            if let Some(reason) = &self.pools[pi].invalid {
                return Err(format!("pool {} is invalid: {reason}", self.pools[pi].name));
            }
            for si in 0..self.pools[pi].slices.len() {
                for di in 0..self.pools[pi].slices[si].devices.len() {
                    let r = DevRef {
                        pool: pi,
                        slice: si,
                        device: di,
                    };
                    if exact.admin_access {
                        if self.allocating_for_claim(r, claim) {
                            continue;
                        }
                    } else if self.in_use(r) {
                        continue;
                    }
                    if !self.selectable(key, class, exact, r)? {
                        continue;
                    }
                    if !self.allocate_device(key, r, false)? {
                        continue;
                    }
                    match self.allocate_one(claim, request, sub, device_index + 1, allocate_sub) {
                        Ok(Step::Done(true)) => return Ok(Step::Done(true)),
                        Ok(_) => self.deallocate(key, r),
                        Err(e) => {
                            self.deallocate(key, r);
                            return Err(e);
                        }
                    }
                }
            }
        }
        Ok(Step::Done(false))
    }

    /// `allocateDevice`: `Ok(false)` when the device cannot be added.
    fn allocate_device(&mut self, key: ReqKey, r: DevRef, must: bool) -> Result<bool, String> {
        let data = &self.data[&key];
        let (exact, parent) = (data.exact, data.parent);
        let claim = self.alloc.claims[key.claim];
        let req = &claim.spec.requests[key.request];
        if exact.admin_access && self.allocating_for_claim(r, key.claim) {
            return Ok(false);
        }
        if !exact.admin_access && self.in_use(r) {
            return Ok(false);
        }
        let device = self.device(r);
        if device.consumes_counters {
            return Ok(false);
        }
        let (base, sub_name) = match parent {
            None => (req.name.to_string(), String::new()),
            Some(p) => (p.name.to_string(), exact.name.to_string()),
        };
        let driver = self.pools[r.pool].driver;
        for i in 0..self.constraints[key.claim].len() {
            let m = &mut self.constraints[key.claim][i];
            if !m.applies(&base, &sub_name) {
                continue;
            }
            let domain = if m.domain.is_empty() {
                driver
            } else {
                m.domain
            };
            let value = device
                .attributes
                .iter()
                .find(|(d, id, _)| **d == *domain && **id == *m.id)
                .map(|(_, _, v)| v);
            let ok = match (value, m.num_devices) {
                (None, _) => false,
                (Some(v), 0) => {
                    m.value = Some(v);
                    true
                }
                (Some(v), _) => m.value == Some(v),
            };
            if ok {
                m.num_devices += 1;
                continue;
            }
            if must {
                return Err(format!(
                    "claim {}, request {}: cannot add device {}/{}/{} because a claim constraint would not be satisfied",
                    claim_key(claim, self.interner),
                    exact_name(req, exact),
                    driver,
                    self.pools[r.pool].name,
                    device.name
                ));
            }
            for e in 0..i {
                let m = &mut self.constraints[key.claim][e];
                if m.applies(&base, &sub_name) {
                    m.num_devices -= 1;
                }
            }
            return Ok(false);
        }
        let name = &*device.name;
        self.allocating
            .entry((r.pool, name))
            .or_default()
            .push(key.claim);
        let request = match parent {
            Some(p) => format!("{}/{}", p.name, exact.name),
            None => req.name.to_string(),
        };
        let id = self.device_id(r);
        self.result[key.claim].push(DeviceResult { request, id });
        Ok(true)
    }

    fn deallocate(&mut self, key: ReqKey, r: DevRef) {
        let data = &self.data[&key];
        let claim = self.alloc.claims[key.claim];
        let req = &claim.spec.requests[key.request];
        let (base, sub_name) = match data.parent {
            None => (req.name.to_string(), String::new()),
            Some(p) => (p.name.to_string(), data.exact.name.to_string()),
        };
        for m in &mut self.constraints[key.claim] {
            if m.applies(&base, &sub_name) {
                m.num_devices = m.num_devices.saturating_sub(1);
            }
        }
        let name = &*self.device(r).name;
        if let Some(v) = self.allocating.get_mut(&(r.pool, name))
            && let Some(i) = v.iter().position(|&c| c == key.claim)
        {
            v.remove(i);
        }
        self.result[key.claim].pop();
    }
}

fn exact_name(req: &DeviceRequest, exact: &ExactRequest) -> String {
    if exact.name.is_empty() {
        req.name.to_string()
    } else {
        exact.name.to_string()
    }
}

fn req_has_capacity(req: &DeviceRequest) -> bool {
    match &req.kind {
        RequestKind::Exactly(e) => e.capacity,
        RequestKind::FirstAvailable(subs) => subs.iter().any(|s| s.capacity),
        RequestKind::Unknown => false,
    }
}
