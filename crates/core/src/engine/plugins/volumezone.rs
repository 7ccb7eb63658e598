//! `volumezone`: a bound volume labelled with zones or regions only fits
//! nodes in one of them.

use crate::engine::status::{FilterResult, Plugin, Rejection};
use crate::model::pod::{Pod, PodVolume};
use crate::model::storage::BindingMode;
use crate::model::{Cluster, Node};

pub const REASON: &str = "node(s) had no available volume zone";

const BETA_ZONE: &str = "failure-domain.beta.kubernetes.io/zone";
const BETA_REGION: &str = "failure-domain.beta.kubernetes.io/region";
const ZONE: &str = "topology.kubernetes.io/zone";
const REGION: &str = "topology.kubernetes.io/region";

/// `topologyLabels`, in upstream's order.
const TOPOLOGY_LABELS: [&str; 4] = [BETA_ZONE, BETA_REGION, ZONE, REGION];

/// `translateToGALabel`.
fn ga_label(key: &str) -> &str {
    match key {
        BETA_REGION => REGION,
        BETA_ZONE => ZONE,
        other => other,
    }
}

/// One volume's topology label: the node's value must be one of `values`.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct PvTopology {
    key: &'static str,
    values: Vec<Box<str>>,
}

/// `LabelZonesToSet`: `__`-separated values, trimmed; an empty one is an error.
fn zones(value: &str) -> Option<Vec<Box<str>>> {
    if value.is_empty() {
        return Some(Vec::new());
    }
    value
        .split("__")
        .map(|z| {
            let z = z.trim();
            (!z.is_empty()).then(|| z.into())
        })
        .collect()
}

fn unresolvable(reason: String) -> Rejection {
    Rejection::unresolvable(Plugin::VolumeZone, reason)
}

/// `PreFilter` (`getPVbyPod`): the topologies of the pod's bound volumes;
/// `Ok(None)` when there are none (Skip).
pub fn pre_filter(cluster: &Cluster, pod: &Pod) -> Result<Option<Vec<PvTopology>>, Rejection> {
    let storage = &cluster.storage;
    let mut topologies = Vec::new();
    for v in pod.volumes.iter() {
        let PodVolume::Claim(name) = v else {
            continue;
        };
        if name.is_empty() {
            return Err(unresolvable("PersistentVolumeClaim had no name".into()));
        }
        let Some(claim) = storage.claim(pod.namespace, name) else {
            return Err(unresolvable(format!(
                "persistentvolumeclaim \"{name}\" not found"
            )));
        };
        if claim.volume_name.is_empty() {
            if claim.class.is_empty() {
                return Err(unresolvable(
                    "PersistentVolumeClaim had no pv name and storageClass name".into(),
                ));
            }
            let Some(class) = storage.class(&claim.class) else {
                return Err(unresolvable(format!(
                    "storageclass.storage.k8s.io \"{}\" not found",
                    claim.class
                )));
            };
            match class.binding_mode {
                None => {
                    return Err(unresolvable(format!(
                        "VolumeBindingMode not set for StorageClass \"{}\"",
                        claim.class
                    )));
                }
                Some(BindingMode::WaitForFirstConsumer) => continue,
                Some(BindingMode::Immediate) => {
                    return Err(unresolvable("PersistentVolume had no name".into()));
                }
            }
        }
        let Some(pv) = storage.volume(&claim.volume_name) else {
            return Err(unresolvable(format!(
                "persistentvolume \"{}\" not found",
                claim.volume_name
            )));
        };
        for key in TOPOLOGY_LABELS {
            let Some(value) = cluster.interner.lookup(key).and_then(|k| pv.labels.get(k)) else {
                continue;
            };
            // A value that does not parse is ignored.
            if let Some(values) = zones(cluster.interner.resolve(value)) {
                topologies.push(PvTopology { key, values });
            }
        }
    }
    Ok((!topologies.is_empty()).then_some(topologies))
}

pub fn filter(cluster: &Cluster, topologies: &[PvTopology], node: &Node) -> FilterResult {
    let interner = &cluster.interner;
    let label = |key: &str| interner.lookup(key).and_then(|k| node.labels.get(k));
    if !TOPOLOGY_LABELS.iter().any(|k| label(k).is_some()) {
        return Ok(());
    }
    for t in topologies {
        let value = label(t.key).or_else(|| label(ga_label(t.key)));
        let fits = value.is_some_and(|v| t.values.iter().any(|z| **z == *interner.resolve(v)));
        if !fits {
            return Err(unresolvable(REASON.into()));
        }
    }
    Ok(())
}
