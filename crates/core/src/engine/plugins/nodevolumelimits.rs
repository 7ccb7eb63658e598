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

/// `filterAttachableVolumes` for one pod: pushes its volumes (duplicates
/// included). For the incoming pod a missing claim is an error.
fn attachable<'a>(
    cluster: &'a Cluster,
    pod: &'a Pod,
    csi_node: Option<&CsiNode>,
    new_pod: bool,
    out: &mut Vec<Volume<'a>>,
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
        let (driver, handle): (&str, Cow<str>) = match pv {
            Some(pv) => match &pv.csi {
                Some(csi) => (&csi.driver, Cow::Borrowed(&*csi.handle)),
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
                    None => (&class.provisioner, handle),
                    Some((plugin, driver, always)) => {
                        let Some(node) = csi_node else { continue };
                        let on = *always
                            || (!driver.is_empty()
                                && node.migrated_plugins.iter().any(|m| **m == **plugin));
                        if !on {
                            continue;
                        }
                        (driver, handle)
                    }
                }
            }
        };
        if driver.is_empty() || handle.is_empty() {
            continue;
        }
        out.push((driver, handle));
    }
    Ok(())
}

/// The node's attach limit for a driver.
fn limit(
    cluster: &Cluster,
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
        // `GetCSIAttachLimitKey`; names too long for a resource name are
        // hashed upstream, and kplace does not find those.
        let key = format!("{CSI_ATTACH_LIMIT_PREFIX}{driver}");
        if key.len() < 63 {
            let sym = cluster.interner.lookup(&key)?;
            return node
                .allocatable
                .scalars
                .iter()
                .find(|(s, _)| *s == sym)
                .map(|&(_, v)| v);
        }
    }
    None
}

pub fn filter(
    cluster: &Cluster,
    pod: &Pod,
    node: &Node,
    info: &NodeInfo,
    version: Version,
) -> FilterResult {
    if pod.volumes.is_empty() {
        return Ok(());
    }
    let csi_node = cluster.storage.csi_node(&node.name);
    let mut new_volumes = Vec::new();
    attachable(cluster, pod, csi_node, true, &mut new_volumes)?;
    if new_volumes.is_empty() {
        return Ok(());
    }
    new_volumes.sort_unstable();
    new_volumes.dedup();
    // The limits of the new volumes' drivers: without one, nothing on the
    // node needs counting (upstream returns early without limits too).
    let mut limits: Vec<(&str, i64)> = Vec::new();
    for (driver, _) in &new_volumes {
        if limits.last().is_some_and(|(d, _)| d == driver) {
            continue;
        }
        if let Some(max) = limit(cluster, node, csi_node, driver, version) {
            limits.push((driver, max));
        }
    }
    if limits.is_empty() {
        return Ok(());
    }
    let mut attached = Vec::new();
    for &id in &info.pods_with_claims {
        attachable(cluster, cluster.pod(id), csi_node, false, &mut attached)?;
    }
    attached.sort_unstable();
    attached.dedup();
    for (driver, max) in limits {
        let count_of = |volumes: &[Volume]| volumes.iter().filter(|(d, _)| *d == driver).count();
        let new = new_volumes
            .iter()
            .filter(|v| v.0 == driver && attached.binary_search(v).is_err())
            .count();
        if new > 0 && (count_of(&attached) + new) as i64 > max {
            return Err(Rejection::unschedulable(Plugin::NodeVolumeLimits, REASON));
        }
    }
    Ok(())
}
