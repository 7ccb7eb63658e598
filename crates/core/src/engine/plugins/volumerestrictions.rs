//! `volumerestrictions`: inline disks that cannot be shared between pods on
//! one node, and ReadWriteOncePod claims already in use by another pod.
//!
//! PreFilter reads the pod's claims (a missing claim is
//! UnschedulableAndUnresolvable) and counts its ReadWriteOncePod claims that
//! scheduled pods use; AddPod/RemovePod move that count, which is how
//! preemption can free such a claim by evicting the pod holding it.

use crate::engine::status::{FilterResult, Plugin, Rejection};
use crate::engine::version::Version;
use crate::model::pod::{InlineDisk, Pod, PodVolume};
use crate::model::storage::AccessModes;
use crate::model::{Cluster, NodeInfo};

pub const REASON_DISK_CONFLICT: &str = "node(s) had no available disk";

/// `preFilterState`: the pod's ReadWriteOncePod claim names.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct PreFilterState {
    rwop_claims: Vec<Box<str>>,
    /// `conflictingPVCRefCount` before any AddPod/RemovePod.
    conflicting: i64,
}

/// The part AddPod/RemovePod change.
#[derive(Clone, Debug)]
pub struct State<'s> {
    pre: &'s PreFilterState,
    conflicting: i64,
}

/// `PreFilter`: `Ok(None)` when the plugin skips itself.
pub fn pre_filter(cluster: &Cluster, pod: &Pod) -> Result<Option<PreFilterState>, Rejection> {
    let needs_check = pod.volumes.iter().any(|v| matches!(v, PodVolume::Disk(_)));
    let mut rwop_claims: Vec<Box<str>> = Vec::new();
    for v in pod.volumes.iter() {
        let PodVolume::Claim(name) = v else {
            continue;
        };
        let Some(claim) = cluster.storage.claim(pod.namespace, name) else {
            return Err(Rejection::unresolvable(
                Plugin::VolumeRestrictions,
                format!("persistentvolumeclaim \"{name}\" not found"),
            ));
        };
        if claim
            .access_modes
            .contains(AccessModes::READ_WRITE_ONCE_POD)
            && !rwop_claims.contains(name)
        {
            rwop_claims.push(name.clone());
        }
    }
    // `IsPVCUsedByPods`: claims (not ephemeral volumes) of the pods on nodes.
    let conflicting = rwop_claims
        .iter()
        .filter(|name| {
            cluster.node_infos.iter().any(|info| {
                info.pods.iter().any(|&id| {
                    let p = cluster.pod(id);
                    p.namespace == pod.namespace
                        && p.volumes
                            .iter()
                            .any(|v| matches!(v, PodVolume::Claim(c) if c == *name))
                })
            })
        })
        .count() as i64;
    if !needs_check && conflicting == 0 {
        return Ok(None);
    }
    Ok(Some(PreFilterState {
        rwop_claims,
        conflicting,
    }))
}

impl<'s> State<'s> {
    pub fn new(pre: &'s PreFilterState) -> Self {
        State {
            pre,
            conflicting: pre.conflicting,
        }
    }

    /// `updateWithPod`: the pod's claim volumes named like one of the
    /// incoming pod's ReadWriteOncePod claims (upstream compares names only).
    pub fn update_with_pod(&mut self, other: &Pod, by: i64) {
        let n = other
            .volumes
            .iter()
            .filter(|v| matches!(v, PodVolume::Claim(c) if self.pre.rwop_claims.contains(c)))
            .count() as i64;
        self.conflicting += by * n;
    }

    pub fn filter(
        &self,
        cluster: &Cluster,
        pod: &Pod,
        info: &NodeInfo,
        version: Version,
    ) -> FilterResult {
        for v in pod.volumes.iter() {
            let PodVolume::Disk(disk) = v else {
                continue;
            };
            if info
                .pods
                .iter()
                .any(|&id| conflicts_with_pod(disk, cluster.pod(id)))
            {
                return Err(Rejection::unschedulable(
                    Plugin::VolumeRestrictions,
                    REASON_DISK_CONFLICT,
                ));
            }
        }
        if self.conflicting > 0 {
            return Err(Rejection::unschedulable(
                Plugin::VolumeRestrictions,
                version.read_write_once_pod_conflict_reason(),
            ));
        }
        Ok(())
    }
}

/// `isVolumeConflict`: the disk is used by one of the pod's volumes in a way
/// that cannot be shared.
fn conflicts_with_pod(disk: &InlineDisk, other: &Pod) -> bool {
    other.volumes.iter().any(|v| {
        let PodVolume::Disk(theirs) = v else {
            return false;
        };
        match (disk, theirs) {
            (
                InlineDisk::GcePersistentDisk { pd_name, read_only },
                InlineDisk::GcePersistentDisk {
                    pd_name: p2,
                    read_only: r2,
                },
            ) => pd_name == p2 && !(*read_only && *r2),
            (
                InlineDisk::AwsElasticBlockStore { volume_id },
                InlineDisk::AwsElasticBlockStore { volume_id: v2 },
            ) => volume_id == v2,
            (
                InlineDisk::Iscsi { iqn, read_only },
                InlineDisk::Iscsi {
                    iqn: i2,
                    read_only: r2,
                },
            ) => iqn == i2 && !(*read_only && *r2),
            (
                InlineDisk::Rbd {
                    monitors,
                    pool,
                    image,
                    read_only,
                },
                InlineDisk::Rbd {
                    monitors: m2,
                    pool: p2,
                    image: i2,
                    read_only: r2,
                },
            ) => {
                monitors.iter().any(|m| m2.contains(m))
                    && pool == p2
                    && image == i2
                    && !(*read_only && *r2)
            }
            _ => false,
        }
    })
}
