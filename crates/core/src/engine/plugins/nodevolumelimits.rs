//! `nodevolumelimits` (CSILimits): a node attaches at most its CSINode's
//! `allocatable.count` volumes of each CSI driver. Volumes are counted once
//! per unique `driver/handle` over the pods on the node and the incoming pod.
//!
//! Not modelled: VolumeAttachment objects (v1.32+ also counts attachments
//! no pod on the node accounts for) and in-tree PersistentVolume sources
//! translated to CSI; claims provisioned by an in-tree StorageClass are
//! translated as upstream does.

use std::borrow::Cow;

use crate::engine::status::{FilterResult, Plugin, Rejection};
use crate::engine::version::Version;
use crate::model::intern::Sym;
use crate::model::pod::{Pod, PodVolume};
use crate::model::storage::CsiNode;
use crate::model::{Cluster, Node, NodeInfo};

pub const REASON: &str = "node(s) exceed max volume count";

/// `CSIAttachLimitPrefix`: node allocatable keys for CSI attach limits.
const CSI_ATTACH_LIMIT_PREFIX: &str = "attachable-volumes-csi-";

/// PreFilter skips pods with neither claims nor ephemeral volumes.
pub fn pre_filter_skips(pod: &Pod) -> bool {
    !pod.volumes
        .iter()
        .any(|v| matches!(v, PodVolume::Claim(_) | PodVolume::Ephemeral(_)))
}

/// In-tree provisioners CSI migration translates, with their CSI drivers,
/// and whether migration is on for them regardless of the CSINode's
/// migrated-plugins annotation (`isCSIMigrationOn`).
const IN_TREE: [(&str, &str, bool); 7] = [
    ("kubernetes.io/aws-ebs", "ebs.csi.aws.com", true),
    ("kubernetes.io/gce-pd", "pd.csi.storage.gke.io", true),
    ("kubernetes.io/azure-disk", "disk.csi.azure.com", true),
    ("kubernetes.io/cinder", "cinder.csi.openstack.org", true),
    // On from v1.31 (`CSIMigrationPortworx`), when the node lists it.
    ("kubernetes.io/portworx-volume", "pxd.portworx.com", false),
    // Migratable, but `isCSIMigrationOn` knows them not: never counted.
    ("kubernetes.io/azure-file", "", false),
    ("kubernetes.io/vsphere-volume", "", false),
];

/// A volume as upstream keys it (`driver/handle`): driver names hold no
/// `/`, so the pair is the key. The handle is borrowed from the
/// PersistentVolume; only a claim not provisioned yet makes one.
type Volume<'a> = (&'a str, Cow<'a, str>);

/// A volume before the node is known: counted on a node only when the
/// in-tree provisioner it comes from (if any) is migrated there.
#[derive(PartialEq, Eq, PartialOrd, Ord)]
struct Candidate<'a> {
    driver: &'a str,
    handle: Cow<'a, str>,
    /// The in-tree plugin and whether migration is on for it regardless
    /// of the CSINode's annotation.
    in_tree: Option<(&'static str, bool)>,
}

impl Candidate<'_> {
    /// `isCSIMigrationOn` for the node: an in-tree volume counts only on
    /// a node with a CSINode that has migration on for its plugin.
    fn on(&self, csi_node: Option<&CsiNode>) -> bool {
        match self.in_tree {
            None => true,
            Some((plugin, always)) => csi_node
                .is_some_and(|n| always || n.migrated_plugins.iter().any(|m| **m == *plugin)),
        }
    }
}

/// `filterAttachableVolumes` for one pod, up to the node: pushes its
/// volumes (duplicates included). For the incoming pod a missing claim is
/// an error.
fn candidates<'a>(
    cluster: &'a Cluster,
    pod: &'a Pod,
    new_pod: bool,
    out: &mut Vec<Candidate<'a>>,
) -> Result<(), Rejection> {
    let storage = &cluster.storage;
    for v in pod.volumes.iter() {
        let Some(name) = v.claim_name() else {
            continue;
        };
        let Some(claim) = storage.claim(pod.namespace, name) else {
            if new_pod {
                return Err(Rejection::unresolvable(
                    Plugin::NodeVolumeLimits,
                    format!(
                        "looking up PVC {}/{name}: persistentvolumeclaim \"{name}\" not found",
                        cluster.interner.resolve(pod.namespace)
                    ),
                ));
            }
            continue;
        };
        if matches!(v, PodVolume::Ephemeral(_))
            && claim.controller_uid.as_deref() != Some(&*pod.uid)
        {
            if new_pod {
                let ns = cluster.interner.resolve(pod.namespace);
                return Err(Rejection::unresolvable(
                    Plugin::NodeVolumeLimits,
                    format!(
                        "PVC {ns}/{name} was not created for pod {ns}/{} (pod is not owner)",
                        pod.name
                    ),
                ));
            }
            continue;
        }
        let pv = (!claim.volume_name.is_empty())
            .then(|| storage.volume(&claim.volume_name))
            .flatten();
        let candidate = match pv {
            Some(pv) => match &pv.csi {
                Some(csi) => Candidate {
                    driver: &csi.driver,
                    handle: Cow::Borrowed(&*csi.handle),
                    in_tree: None,
                },
                None => continue,
            },
            // No volume yet (or a missing one): what the class would provision.
            None => {
                let Some(class) = storage
                    .class(&claim.class)
                    .filter(|_| !claim.class.is_empty())
                else {
                    continue;
                };
                let handle = Cow::Owned(format!(
                    "kplace-{}/{}",
                    cluster.interner.resolve(claim.namespace),
                    claim.name
                ));
                match IN_TREE.iter().find(|(p, _, _)| **p == *class.provisioner) {
                    None => Candidate {
                        driver: &class.provisioner,
                        handle,
                        in_tree: None,
                    },
                    // Migration is never on for a plugin without a driver.
                    Some((_, "", _)) => continue,
                    Some(&(plugin, driver, always)) => Candidate {
                        driver,
                        handle,
                        in_tree: Some((plugin, always)),
                    },
                }
            }
        };
        if candidate.driver.is_empty() || candidate.handle.is_empty() {
            continue;
        }
        out.push(candidate);
    }
    Ok(())
}

/// What CSILimits' Filter needs of the incoming pod, resolved once per
/// cycle rather than on every node: its volumes (sorted, duplicates
/// removed) and, per driver, the node-allocatable key of its limit.
pub struct PreFilterState<'a> {
    /// `Err`: a claim of the pod cannot be resolved, on any node.
    new_volumes: Result<Vec<Candidate<'a>>, Rejection>,
    /// Each driver of the new volumes with the interned
    /// `attachable-volumes-csi-<driver>` key (`None`: no node has it).
    allocatable_keys: Vec<(&'a str, Option<Sym>)>,
    /// How many volumes a node's pods may claim for the node to pass
    /// whatever its CSINode says: every CSINode's count of each driver
    /// leaves room for them and the pod's own (`i64::MAX`: no CSINode
    /// limits the pod's drivers). `None` when the node's CSINode must be
    /// read anyway (a volume of an in-tree plugin counts only where the
    /// CSINode migrates it). Thousands of nodes are then passed without
    /// looking their CSINode up by name.
    room_everywhere: Option<i64>,
}

/// PreFilter: `None` when it skips (no claims nor ephemeral volumes).
pub fn pre_filter<'a>(cluster: &'a Cluster, pod: &'a Pod) -> Option<PreFilterState<'a>> {
    if pre_filter_skips(pod) {
        return None;
    }
    let mut volumes = Vec::new();
    let new_volumes = candidates(cluster, pod, true, &mut volumes).map(|()| {
        volumes.sort_unstable();
        volumes.dedup();
        volumes
    });
    let mut allocatable_keys: Vec<(&str, Option<Sym>)> = Vec::new();
    for c in new_volumes.iter().flatten() {
        if allocatable_keys.last().is_some_and(|(d, _)| *d == c.driver) {
            continue;
        }
        // `GetCSIAttachLimitKey`; names too long for a resource name are
        // hashed upstream, and kplace does not find those.
        let key = format!("{CSI_ATTACH_LIMIT_PREFIX}{}", c.driver);
        let sym = (key.len() < 63)
            .then(|| cluster.interner.lookup(&key))
            .flatten();
        allocatable_keys.push((c.driver, sym));
    }
    let room_everywhere = match &new_volumes {
        Ok(all) if all.iter().all(|c| c.in_tree.is_none()) => Some(
            allocatable_keys
                .iter()
                .filter_map(|&(driver, _)| {
                    let fewest = cluster.storage.fewest_attachable(driver)?;
                    let new = all.iter().filter(|c| c.driver == driver).count() as i64;
                    Some(fewest - new)
                })
                .min()
                .unwrap_or(i64::MAX),
        ),
        _ => None,
    };
    Some(PreFilterState {
        new_volumes,
        allocatable_keys,
        room_everywhere,
    })
}

impl PreFilterState<'_> {
    /// The node's attach limit for a driver.
    fn limit(
        &self,
        node: &Node,
        csi_node: Option<&CsiNode>,
        driver: &str,
        version: Version,
    ) -> Option<i64> {
        if let Some(count) = csi_node
            .and_then(|n| n.drivers.iter().find(|d| *d.name == *driver))
            .and_then(|d| d.allocatable)
        {
            return Some(count as i64);
        }
        if version.attach_limits_from_node_allocatable() {
            let sym = self
                .allocatable_keys
                .iter()
                .find(|(d, _)| *d == driver)
                .and_then(|&(_, sym)| sym)?;
            return node
                .allocatable
                .scalars
                .iter()
                .find(|(s, _)| *s == sym)
                .map(|&(_, v)| v);
        }
        None
    }

    pub fn filter(
        &self,
        cluster: &Cluster,
        node: &Node,
        info: &NodeInfo,
        version: Version,
    ) -> FilterResult {
        let all = match &self.new_volumes {
            Err(rejection) => return Err(rejection.clone()),
            Ok(all) => all,
        };
        // Within every CSINode's count, unless a node's allocatable may
        // set a lower limit of its own.
        let node_limits = version.attach_limits_from_node_allocatable()
            && self.allocatable_keys.iter().any(|(_, sym)| sym.is_some());
        if let Some(room) = self.room_everywhere
            && !node_limits
            && (room == i64::MAX || claimed_volumes(cluster, info) as i64 <= room)
        {
            return Ok(());
        }
        let csi_node = cluster.storage.csi_node(&node.name);
        // The new volumes this node counts, each `driver/handle` once.
        let mut previous: Option<(&str, &str)> = None;
        let new_volumes = all.iter().filter(|c| c.on(csi_node)).filter(move |c| {
            let key = (c.driver, &*c.handle);
            let first = previous != Some(key);
            previous = Some(key);
            first
        });
        // The limits of the new volumes' drivers: without one, nothing on
        // the node needs counting (upstream returns early without limits
        // too).
        let mut attached: Option<Vec<Volume>> = None;
        let mut claimed_here: Option<usize> = None;
        let mut last_driver = None;
        for c in new_volumes.clone() {
            if last_driver == Some(c.driver) {
                continue;
            }
            last_driver = Some(c.driver);
            let Some(max) = self.limit(node, csi_node, c.driver, version) else {
                continue;
            };
            // The node's pods attach at most as many volumes as they claim,
            // and the pod adds at most its own of the driver: within the
            // limit, the exact count (which resolves every claim of the
            // node's pods) cannot exceed it either.
            let claimed = *claimed_here.get_or_insert_with(|| claimed_volumes(cluster, info));
            let most_new = new_volumes.clone().filter(|v| v.driver == c.driver).count();
            if (claimed + most_new) as i64 <= max {
                continue;
            }
            let attached =
                attached.get_or_insert_with(|| attached_volumes(cluster, info, csi_node));
            let driver = c.driver;
            let new = new_volumes
                .clone()
                .filter(|v| {
                    v.driver == driver
                        && attached
                            .binary_search_by(|(d, h)| (*d, &**h).cmp(&(v.driver, &*v.handle)))
                            .is_err()
                })
                .count();
            let count = attached.iter().filter(|(d, _)| *d == driver).count();
            if new > 0 && (count + new) as i64 > max {
                return Err(Rejection::unschedulable(Plugin::NodeVolumeLimits, REASON));
            }
        }
        Ok(())
    }
}

/// How many claim and ephemeral volumes the node's pods have: at least
/// the number of volumes they attach, found without resolving a claim
/// (the node keeps the sum as its pods come and go).
fn claimed_volumes(cluster: &Cluster, info: &NodeInfo) -> usize {
    debug_assert_eq!(
        info.claim_volumes,
        info.pods_with_claims
            .iter()
            .map(|&id| crate::model::cluster::claim_volumes(cluster.pod(id)))
            .sum::<usize>(),
        "the node's count of claimed volumes is its pods'"
    );
    info.claim_volumes
}

/// The volumes the node's pods already attach, sorted, each once.
fn attached_volumes<'a>(
    cluster: &'a Cluster,
    info: &NodeInfo,
    csi_node: Option<&CsiNode>,
) -> Vec<Volume<'a>> {
    let mut found = Vec::new();
    for &id in &info.pods_with_claims {
        // Existing pods never fail: a claim they miss is skipped.
        let _ = candidates(cluster, cluster.pod(id), false, &mut found);
    }
    let mut attached: Vec<Volume> = found
        .into_iter()
        .filter(|c| c.on(csi_node))
        .map(|c| (c.driver, c.handle))
        .collect();
    attached.sort_unstable();
    attached.dedup();
    attached
}
