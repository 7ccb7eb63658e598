//! `volumebinding`: a pod's claims must be bound to volumes whose node
//! affinity admits the node, or (WaitForFirstConsumer) be able to bind to an
//! available volume there or be provisioned there.
//!
//! Not modelled: CSIStorageCapacity (kplace reads no CSIDriver objects, and
//! a driver without one has unlimited capacity upstream) and in-tree
//! volumes translated to CSI. Scoring is 0: VolumeCapacityPriority /
//! StorageCapacityScoring are off by default.

pub mod binder;

use binder::{Match, NOT_SUPPORTED_PROVISIONER, check_node_affinity, find_matching_volume};

use crate::engine::status::{Code, FilterResult, Plugin, Reasons, Rejection};
use crate::engine::version::Version;
use crate::model::pod::{Pod, PodVolume};
use crate::model::storage::PersistentVolumeClaim;
use crate::model::{Cluster, Node};

pub const REASON_BIND_CONFLICT: &str = "node(s) didn't find available persistent volumes to bind";
pub const REASON_NOT_ENOUGH_SPACE: &str = "node(s) did not have enough free storage";
pub const REASON_PV_NOT_EXIST: &str =
    "node(s) unavailable due to one or more pvc(s) bound to non-existent pv(s)";
pub const REASON_UNBOUND_IMMEDIATE: &str = "pod has unbound immediate PersistentVolumeClaims";

/// PreFilter's `PodVolumeClaims` (without the immediate ones, which stop it).
#[derive(Clone, Debug)]
pub struct PreFilterState<'c> {
    bound: Vec<&'c PersistentVolumeClaim>,
    /// Unbound WaitForFirstConsumer claims, sorted by requested size
    /// (`findMatchingVolumes` sorts them so).
    delay: Vec<&'c PersistentVolumeClaim>,
    /// v1.31: the nodes bound local volumes allow (`GetEligibleNodes`).
    pub eligible_nodes: Option<Vec<Box<str>>>,
}

fn unresolvable(reason: String) -> Rejection {
    Rejection::unresolvable(Plugin::VolumeBinding, reason)
}

/// `PreFilter`: `Ok(None)` when the pod has no claim (Skip).
pub fn pre_filter<'c>(
    cluster: &'c Cluster,
    pod: &Pod,
    version: Version,
) -> Result<Option<PreFilterState<'c>>, Rejection> {
    let storage = &cluster.storage;
    // `podHasPVCs`.
    let mut claims = Vec::new();
    for v in pod.volumes.iter() {
        let (name, ephemeral) = match v {
            PodVolume::Claim(n) => (n, false),
            PodVolume::Ephemeral(n) => (n, true),
            PodVolume::Disk(_) => continue,
        };
        let Some(claim) = storage.claim(pod.namespace, name) else {
            return Err(unresolvable(if ephemeral {
                format!(
                    "waiting for ephemeral volume controller to create the persistentvolumeclaim \"{name}\""
                )
            } else {
                format!("persistentvolumeclaim \"{name}\" not found")
            }));
        };
        if claim.lost {
            return Err(unresolvable(format!(
                "persistentvolumeclaim \"{name}\" bound to non-existent persistentvolume \"{}\"",
                claim.volume_name
            )));
        }
        if claim.deleting {
            return Err(unresolvable(format!(
                "persistentvolumeclaim \"{name}\" is being deleted"
            )));
        }
        if ephemeral && claim.controller_uid.as_deref() != Some(&*pod.uid) {
            let ns = cluster.interner.resolve(pod.namespace);
            return Err(unresolvable(format!(
                "PVC {ns}/{name} was not created for pod {ns}/{} (pod is not owner)",
                pod.name
            )));
        }
        claims.push(claim);
    }
    if claims.is_empty() {
        return Ok(None);
    }
    // `GetPodVolumeClaims`.
    let (mut bound, mut delay, mut immediate) = (Vec::new(), Vec::new(), 0);
    for claim in claims {
        if claim.is_fully_bound() {
            bound.push(claim);
        } else if binder::is_delay_binding(storage, claim) && claim.volume_name.is_empty() {
            delay.push(claim);
        } else {
            immediate += 1;
        }
    }
    if immediate > 0 {
        return Err(unresolvable(REASON_UNBOUND_IMMEDIATE.to_string()));
    }
    // `sort.Sort(byPVCSize)`; Go sorts slices this small by insertion, stably.
    delay.sort_by_key(|c| c.request.unwrap_or(0));
    let eligible_nodes = if version.volume_binding_eligible_nodes() {
        eligible_nodes(cluster, &bound)
    } else {
        None
    };
    Ok(Some(PreFilterState {
        bound,
        delay,
        eligible_nodes,
    }))
}

/// `GetEligibleNodes`: the intersection of the nodes each bound local
/// volume names; `None` when none names any or a volume is missing.
fn eligible_nodes(cluster: &Cluster, bound: &[&PersistentVolumeClaim]) -> Option<Vec<Box<str>>> {
    let mut eligible: Option<Vec<Box<str>>> = None;
    for claim in bound {
        let pv = cluster.storage.volume(&claim.volume_name)?;
        let names = binder::local_volume_node_names(pv, &cluster.interner);
        if names.is_empty() {
            continue;
        }
        eligible = Some(match eligible {
            None => names,
            Some(prev) => prev.into_iter().filter(|n| names.contains(n)).collect(),
        });
    }
    eligible
}

impl PreFilterState<'_> {
    /// `Filter` → `FindPodVolumes`.
    pub fn filter(&self, cluster: &Cluster, node: &Node, version: Version) -> FilterResult {
        let storage = &cluster.storage;
        let mut bound_satisfied = true;
        let mut bound_found = true;
        let mut unbound_satisfied = true;
        let mut sufficient_storage = true;
        let reject =
            |bound_satisfied: bool, unbound_satisfied: bool, sufficient: bool, found: bool| {
                // A single reason stays inline: a pod whose volumes are
                // bound to a lost zone is rejected this way by every node
                // left, on every placement of a disruption.
                let mut reasons = Reasons::none();
                if !bound_satisfied {
                    reasons.push(version.volume_node_affinity_reason().into());
                }
                if !unbound_satisfied {
                    reasons.push(REASON_BIND_CONFLICT.into());
                }
                if !sufficient {
                    reasons.push(REASON_NOT_ENOUGH_SPACE.into());
                }
                if !found {
                    reasons.push(REASON_PV_NOT_EXIST.into());
                }
                if reasons.is_empty() {
                    Ok(())
                } else {
                    Err(Rejection {
                        plugin: Plugin::VolumeBinding,
                        code: Code::UnschedulableAndUnresolvable,
                        reasons,
                    })
                }
            };
        // `checkBoundClaims`: stops at the first missing or mismatching volume.
        for claim in &self.bound {
            let Some(pv) = storage.volume(&claim.volume_name) else {
                bound_found = false;
                break;
            };
            if !check_node_affinity(pv, &node.labels, &cluster.interner) {
                bound_satisfied = false;
                break;
            }
        }
        if self.delay.is_empty() {
            return reject(bound_satisfied, true, true, bound_found);
        }
        let mut to_provision: Vec<&PersistentVolumeClaim> = Vec::new();
        let mut to_match: Vec<&PersistentVolumeClaim> = Vec::new();
        for claim in &self.delay {
            match &claim.selected_node {
                Some(selected) if **selected != *node.name => {
                    return reject(bound_satisfied, false, true, bound_found);
                }
                Some(_) => to_provision.push(claim),
                None => to_match.push(claim),
            }
        }
        if !to_match.is_empty() {
            // `findMatchingVolumes`.
            let mut chosen: Vec<&str> = Vec::new();
            let mut found_all = true;
            for claim in to_match {
                match find_matching_volume(
                    cluster,
                    claim,
                    node,
                    &chosen,
                    version.volume_attributes_class(),
                ) {
                    Match::Volume(pv) => chosen.push(&pv.name),
                    Match::None => {
                        found_all = false;
                        to_provision.push(claim);
                    }
                    Match::Error(e) => return Err(unresolvable(e)),
                }
            }
            unbound_satisfied = found_all;
        }
        if !to_provision.is_empty() {
            // `checkVolumeProvisions`.
            (unbound_satisfied, sufficient_storage) = (true, true);
            for claim in to_provision {
                let Some(class) = storage.class(&claim.class) else {
                    return Err(unresolvable(format!(
                        "failed to find storage class \"{}\"",
                        claim.class
                    )));
                };
                if class.provisioner.is_empty() || *class.provisioner == *NOT_SUPPORTED_PROVISIONER
                {
                    unbound_satisfied = false;
                    break;
                }
                if !binder::match_topology(&class.allowed_topologies, &node.labels) {
                    unbound_satisfied = false;
                    break;
                }
            }
        }
        reject(
            bound_satisfied,
            unbound_satisfied,
            sufficient_storage,
            bound_found,
        )
    }
}
