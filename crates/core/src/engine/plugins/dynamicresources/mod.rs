//! `dynamicresources` (v1.34, in the default profile once DRA is GA): a pod
//! with ResourceClaims goes only where every claim can get its devices.
//!
//! - PreEnqueue: every claim must exist (a template's claim must have been
//!   generated); otherwise the pod is never attempted (outcome
//!   `waiting-for-claims`).
//! - PreFilter: every device class the unallocated claims name must exist
//!   (else every node is rejected); already allocated claims only allow the
//!   nodes of their allocation's node selector.
//! - Filter: the structured allocator ([`allocator`]) must find devices for
//!   every unallocated claim on the node among the devices no other claim
//!   holds. Preemption cannot free devices (the plugin has no
//!   AddPod/RemovePod): its rejections are UnschedulableAndUnresolvable.

pub mod allocator;
pub mod cel;

use self::allocator::{Allocator, DeviceResult};
use crate::engine::plugins::node_affinity;
use crate::engine::status::{FilterResult, Plugin, Rejection};
use crate::model::dra::{DeviceId, RequestKind, ResourceClaim};
use crate::model::pod::NodeSelectorTerm;
use crate::model::pod::PodClaimSource;
use crate::model::{Cluster, Node, Pod};

pub const REASON_CANNOT_ALLOCATE: &str = "cannot allocate all claims";
pub const REASON_NOT_AVAILABLE: &str = "resourceclaim not available on the node";

/// `foreachPodResourceClaim`: the pod's claims in spec order (template
/// entries whose status names no claim are skipped), or the error text
/// upstream's PreEnqueue and PreFilter return.
pub fn pod_claims<'a>(cluster: &'a Cluster, pod: &Pod) -> Result<Vec<&'a ResourceClaim>, String> {
    let ns = cluster.interner.resolve(pod.namespace);
    let mut claims = Vec::with_capacity(pod.resource_claims.len());
    for rc in pod.resource_claims.iter() {
        let (name, must_check_owner) = match &rc.source {
            PodClaimSource::Claim(n) => (n, false),
            PodClaimSource::Template {
                generated: Some(Some(n)),
                ..
            } => (n, true),
            PodClaimSource::Template {
                generated: Some(None),
                ..
            } => continue,
            PodClaimSource::Template {
                generated: None, ..
            } => {
                return Err(format!(
                    "pod \"{ns}/{}\": ResourceClaim not created yet",
                    pod.name
                ));
            }
            PodClaimSource::Unsupported => {
                return Err(format!(
                    "pod \"{ns}/{}\", spec.resourceClaim {:?}: none of the supported fields are set",
                    pod.name, rc.name
                ));
            }
        };
        let Some(claim) = cluster.dra.claim(pod.namespace, name) else {
            return Err(format!("could not find ResourceClaim \"{ns}/{name}\""));
        };
        if claim.deleting {
            return Err(format!("resourceclaim {:?} is being deleted", claim.name));
        }
        if must_check_owner && !is_for_pod(claim, pod) {
            return Err(format!(
                "ResourceClaim {ns}/{} was not created for pod {ns}/{} (pod is not owner)",
                claim.name, pod.name
            ));
        }
        claims.push(claim);
    }
    Ok(claims)
}

/// `resourceclaim.IsForPod`: the pod controls the claim. An incoming pod
/// read from a manifest often has no UID yet; then its name decides.
fn is_for_pod(claim: &ResourceClaim, pod: &Pod) -> bool {
    claim.namespace == pod.namespace
        && claim.controller.as_ref().is_some_and(|(kind, name, uid)| {
            if pod.uid.is_empty() {
                &**kind == "Pod" && **name == *pod.name
            } else {
                **uid == *pod.uid
            }
        })
}

/// PreEnqueue: `Err(message)` keeps the pod out of the scheduling queue.
pub fn pre_enqueue(cluster: &Cluster, pod: &Pod) -> Result<(), String> {
    pod_claims(cluster, pod).map(|_| ())
}

/// The PreFilter state for a pod with claims.
pub struct PreFilterState<'a> {
    /// Every claim of the pod, in spec order.
    pub claims: Vec<&'a ResourceClaim>,
    /// Per claim: the node selector of its allocation, when allocated.
    available_on: Vec<Option<&'a [NodeSelectorTerm]>>,
    /// Set up when some claim still needs allocating.
    pub allocator: Option<Allocator<'a>>,
}

/// PreFilter: `Ok(None)` skips the plugin (the pod has no claims).
pub fn pre_filter<'a>(
    cluster: &'a Cluster,
    pod: &Pod,
) -> Result<Option<PreFilterState<'a>>, Rejection> {
    if pod.resource_claims.is_empty() {
        return Ok(None);
    }
    let claims = pod_claims(cluster, pod)
        .map_err(|e| Rejection::unresolvable(Plugin::DynamicResources, e))?;
    if claims.is_empty() {
        return Ok(None);
    }
    let mut available_on = Vec::with_capacity(claims.len());
    let mut to_allocate = Vec::new();
    let ns = cluster.interner.resolve(pod.namespace);
    for &claim in &claims {
        // `CanBeReserved` is always true in v1.34: an allocated claim
        // in use by other pods can be shared.
        if let Some(a) = &claim.allocation {
            available_on.push(a.node_selector.as_deref());
            continue;
        }
        available_on.push(None);
        to_allocate.push(claim);
        for request in claim.spec.requests.iter() {
            let check = |class: &str, name: &str| -> Result<(), Rejection> {
                if class.is_empty() {
                    return Err(Rejection::unresolvable(
                        Plugin::DynamicResources,
                        format!("request {name}: unsupported request type"),
                    ));
                }
                if cluster.dra.class(class).is_none() {
                    return Err(Rejection::unresolvable(
                        Plugin::DynamicResources,
                        format!("request {name}: device class {class} does not exist"),
                    ));
                }
                Ok(())
            };
            match &request.kind {
                RequestKind::Exactly(e) => check(&e.device_class, &request.name)?,
                RequestKind::FirstAvailable(subs) => {
                    for s in subs.iter() {
                        check(&s.device_class, &format!("{}/{}", request.name, s.name))?;
                    }
                }
                RequestKind::Unknown => {
                    return Err(Rejection::unresolvable(
                        Plugin::DynamicResources,
                        format!(
                            "resource claim {ns}/{}, request {}: unknown request type",
                            claim.name, request.name
                        ),
                    ));
                }
            }
        }
    }
    let allocator = (!to_allocate.is_empty()).then(|| Allocator::new(&cluster.dra, to_allocate));
    Ok(Some(PreFilterState {
        claims,
        available_on,
        allocator,
    }))
}

impl PreFilterState<'_> {
    /// Filter. An allocator error (a broken selector, an `All` request
    /// over a pool being updated) is an error status upstream, which aborts
    /// the attempt; here it rejects the node with the error's text.
    pub fn filter(&self, cluster: &Cluster, node: &Node) -> FilterResult {
        self.allocate(cluster, node).map(|_| ())
    }

    /// Filter, keeping the devices the allocator picked on the node (one
    /// list per claim it allocated).
    pub fn allocate(
        &self,
        cluster: &Cluster,
        node: &Node,
    ) -> Result<Vec<Vec<DeviceResult>>, Rejection> {
        let interner = &cluster.interner;
        let unavailable = self.available_on.iter().any(|sel| {
            sel.is_some_and(|terms| {
                !terms
                    .iter()
                    .any(|t| node_affinity::term_matches(t, node, interner))
            })
        });
        let mut picked = Vec::new();
        if let Some(allocator) = &self.allocator {
            match allocator.allocate(node, interner) {
                Err(e) => return Err(Rejection::unresolvable(Plugin::DynamicResources, e)),
                Ok(None) => {
                    return Err(Rejection::unresolvable(
                        Plugin::DynamicResources,
                        REASON_CANNOT_ALLOCATE,
                    ));
                }
                Ok(Some(results)) => picked = results,
            }
        }
        if unavailable {
            return Err(Rejection::unresolvable(
                Plugin::DynamicResources,
                REASON_NOT_AVAILABLE,
            ));
        }
        Ok(picked)
    }

    /// The devices already allocated to the pod's allocated claims, with
    /// the claim each belongs to.
    pub fn allocated_devices(&self) -> Vec<(&ResourceClaim, &str, DeviceId)> {
        self.claims
            .iter()
            .filter_map(|c| c.allocation.as_ref().map(|a| (*c, a)))
            .flat_map(|(c, a)| {
                a.devices.iter().map(move |d| {
                    (
                        c,
                        &*d.request,
                        DeviceId {
                            driver: d.driver.clone(),
                            pool: d.pool.clone(),
                            device: d.device.clone(),
                        },
                    )
                })
            })
            .collect()
    }
}
