//! `volumebinding/binder.go` and the `component-helpers/storage/volume`
//! helpers it calls: which claims are bound, whether a bound volume's node
//! affinity admits a node, which unbound volume a claim would bind to, and
//! whether its class could provision one there.

use crate::engine::plugins::node_affinity::term_matches_labels;
use crate::model::intern::Interner;
use crate::model::labels::Labels;
use crate::model::storage::{PersistentVolume, PersistentVolumeClaim, Storage, TopologyTerm};
use crate::model::{Cluster, Node};

/// `volume.NotSupportedProvisioner`.
pub const NOT_SUPPORTED_PROVISIONER: &str = "kubernetes.io/no-provisioner";

/// `CheckNodeAffinity`: the volume's required node affinity admits a node
/// with these labels. Upstream matches a node built from the labels alone,
/// so a `metadata.name` field requirement sees an empty name.
pub fn check_node_affinity(pv: &PersistentVolume, labels: &Labels, interner: &Interner) -> bool {
    match &pv.node_affinity {
        None => true,
        Some(terms) => terms
            .iter()
            .any(|t| term_matches_labels(t, labels, "", interner)),
    }
}

/// `MatchTopologySelectorTerms`: no terms match every node; otherwise some
/// term's every requirement holds.
pub fn match_topology(terms: &[TopologyTerm], labels: &Labels) -> bool {
    terms.is_empty()
        || terms.iter().any(|t| {
            t.requirements
                .iter()
                .all(|(key, values)| labels.get(*key).is_some_and(|v| values.contains(&v)))
        })
}

/// `IsDelayBindingMode`: the claim's class exists and waits for the first
/// consumer. An unset mode is an error upstream; kplace reads it as the
/// API server's default, Immediate.
pub fn is_delay_binding(storage: &Storage, claim: &PersistentVolumeClaim) -> bool {
    if claim.class.is_empty() {
        return false;
    }
    storage.class(&claim.class).is_some_and(|c| {
        c.binding_mode == Some(crate::model::storage::BindingMode::WaitForFirstConsumer)
    })
}

/// What `FindMatchingVolume` decided.
pub enum Match<'c> {
    Volume(&'c PersistentVolume),
    None,
    /// An error upstream (a Filter error status); the text.
    Error(String),
}

/// `FindMatchingVolume` with a node and delay binding: the smallest
/// available volume of the claim's class that fits it on this node, or the
/// volume already pre-bound to it.
pub fn find_matching_volume<'c>(
    cluster: &'c Cluster,
    claim: &PersistentVolumeClaim,
    node: &Node,
    excluded: &[&str],
    vac_enabled: bool,
) -> Match<'c> {
    let namespace = cluster.interner.resolve(claim.namespace);
    if !vac_enabled && !claim.attributes_class.is_empty() {
        return Match::Error(format!(
            "unsupported volumeAttributesClassName is set on claim {namespace}/{} when the feature-gate VolumeAttributesClass is disabled",
            claim.name
        ));
    }
    let requested = claim.request.unwrap_or(0);
    let mut smallest: Option<&PersistentVolume> = None;
    for pv in cluster.storage.volumes_of_class(&claim.class) {
        if excluded.contains(&&*pv.name) {
            continue;
        }
        if pv.claim_ref.is_some() && !pv.is_bound_to(claim, namespace) {
            continue;
        }
        if pv.capacity < requested {
            continue;
        }
        if pv.block_mode != claim.block_mode {
            continue;
        }
        if vac_enabled && claim.attributes_class != pv.attributes_class {
            continue;
        }
        if !vac_enabled && !pv.attributes_class.is_empty() {
            continue;
        }
        if pv.deleting {
            continue;
        }
        let affinity_ok = check_node_affinity(pv, &node.labels, &cluster.interner);
        if pv.is_bound_to(claim, namespace) {
            return if affinity_ok {
                Match::Volume(pv)
            } else {
                Match::None
            };
        }
        if !pv.available {
            continue;
        }
        if let Some(sel) = &claim.selector
            && !sel.matches(&pv.labels)
        {
            continue;
        }
        // `GetPersistentVolumeClass(volume) != requestedClass`: the list is
        // already of the claim's class.
        if !affinity_ok {
            continue;
        }
        if !pv.access_modes.offers_all(claim.access_modes) {
            continue;
        }
        if smallest.is_none_or(|s| s.capacity > pv.capacity) {
            smallest = Some(pv);
        }
    }
    smallest.map_or(Match::None, Match::Volume)
}

/// `GetLocalPersistentVolumeNodeNames`: the union over the volume's terms
/// of the intersection of their `kubernetes.io/hostname In` values.
pub fn local_volume_node_names(pv: &PersistentVolume, interner: &Interner) -> Vec<Box<str>> {
    let Some(terms) = &pv.node_affinity else {
        return Vec::new();
    };
    let hostname = interner.lookup("kubernetes.io/hostname");
    let mut result: Vec<Box<str>> = Vec::new();
    for term in terms.iter() {
        let mut nodes: Option<Vec<Box<str>>> = None;
        for r in term.expressions.iter() {
            if Some(r.key) != hostname || r.op != crate::model::pod::NodeSelectorOperator::In {
                continue;
            }
            let values: Vec<Box<str>> = r
                .values
                .iter()
                .map(|&v| interner.resolve(v).into())
                .collect();
            nodes = Some(match nodes {
                None => values,
                Some(prev) => prev.into_iter().filter(|n| values.contains(n)).collect(),
            });
        }
        for n in nodes.into_iter().flatten() {
            if !result.contains(&n) {
                result.push(n);
            }
        }
    }
    result.sort();
    result
}
