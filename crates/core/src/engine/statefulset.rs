//! What happens around the scheduler when a StatefulSet grows: the
//! controller names the new replica `<set>-<ordinal>`, points its
//! claim-template volumes at `<template>-<set>-<ordinal>` and creates those
//! claims that do not exist yet (`createPersistentVolumeClaims`, with the
//! DefaultStorageClass admission plugin filling in the class); once the
//! replica is placed, VolumeBinding's `AssumePodVolumes` binds its
//! WaitForFirstConsumer claims to the volumes it matched on the node or
//! marks them for provisioning there. Answers and replica plans ask on a
//! copy of the snapshot with these claims; the snapshot is never changed.

use std::borrow::Cow;

use super::plugins::volumebinding::binder::{Match, find_matching_volume, is_delay_binding};
use crate::model::pod::{PodPhase, PodVolume};
use crate::model::policy::{ClaimTemplate, SelectorOwner, SelectorOwnerKind, StatefulSetSpec};
use crate::model::storage::{ClaimRef, PersistentVolumeClaim, Storage};
use crate::model::{Cluster, Labels, NodeId, Pod};

/// `apps.StatefulSetPodNameLabel`.
pub const POD_NAME_LABEL: &str = "statefulset.kubernetes.io/pod-name";
/// `apps.PodIndexLabel` (set by the controller from 1.28).
pub const POD_INDEX_LABEL: &str = "apps.kubernetes.io/pod-index";

/// The StatefulSet of the snapshot that controls `pod`, and its spec.
pub fn controlling_set<'c>(
    cluster: &'c Cluster,
    pod: &Pod,
) -> Option<(&'c SelectorOwner, &'c StatefulSetSpec)> {
    let c = pod.controller.as_ref()?;
    if &*c.kind != "StatefulSet" || !c.api_version.starts_with("apps/") {
        return None;
    }
    cluster.owners.iter().find_map(|o| {
        (o.kind == SelectorOwnerKind::StatefulSet
            && o.namespace == pod.namespace
            && *o.name == *c.name)
            .then_some(())
            .and_then(|()| o.stateful.as_deref().map(|s| (o, s)))
    })
}

/// `getParentNameAndOrdinal`: the ordinal of a pod named `<set>-<ordinal>`.
pub fn ordinal_of(set: &str, pod_name: &str) -> Option<i64> {
    let digits = pod_name.strip_prefix(set)?.strip_prefix('-')?;
    if digits.is_empty() || !digits.bytes().all(|b| b.is_ascii_digit()) {
        return None;
    }
    digits.parse().ok()
}

/// The ordinals of the set's pods in the snapshot.
fn taken_ordinals(cluster: &Cluster, set: &SelectorOwner) -> Vec<i64> {
    cluster
        .pods
        .iter()
        .filter(|p| {
            p.namespace == set.namespace
                && p.controller.as_ref().is_some_and(|c| *c.name == *set.name)
        })
        .filter_map(|p| ordinal_of(&set.name, &p.name))
        .collect()
}

/// The ordinals a scale-up by `n` creates: from `spec.ordinals.start +
/// spec.replicas` (or `from`), skipping any a pod of the snapshot already has.
pub fn next_ordinals(
    cluster: &Cluster,
    set: &SelectorOwner,
    spec: &StatefulSetSpec,
    from: Option<i64>,
    n: usize,
) -> Vec<i64> {
    let taken = taken_ordinals(cluster, set);
    let mut k = from.unwrap_or_else(|| spec.next_ordinal());
    let mut out = Vec::with_capacity(n);
    while out.len() < n {
        if !taken.contains(&k) {
            out.push(k);
        }
        k += 1;
    }
    out
}

/// `getPersistentVolumeClaimName`.
pub fn claim_name(template: &ClaimTemplate, pod_name: &str) -> String {
    format!("{}-{pod_name}", template.claim.name)
}

/// Whether `claim` is the set's claim from `template` for some ordinal.
pub fn is_template_claim(claim: &str, template: &ClaimTemplate, set: &str) -> bool {
    claim
        .strip_prefix(&*template.claim.name)
        .and_then(|r| r.strip_prefix('-'))
        .is_some_and(|pod| ordinal_of(set, pod).is_some())
}

/// The claim the controller creates from `template` for pod `pod_name`:
/// unbound, in the template's class, or (none named) the default class.
pub fn new_claim(
    storage: &Storage,
    template: &ClaimTemplate,
    pod_name: &str,
) -> PersistentVolumeClaim {
    let mut claim = template.claim.clone();
    claim.name = claim_name(template, pod_name).into();
    claim.uid = "".into();
    if !template.class_set {
        claim.class = storage
            .default_class()
            .map(|c| c.name.clone())
            .unwrap_or_default();
    }
    claim.bind_completed = false;
    claim.selected_node = None;
    claim.lost = false;
    claim.deleting = false;
    claim.controller_uid = None;
    claim
}

/// The claims the set's templates give `pod` (named `<set>-<ordinal>`) that
/// its volumes name and the snapshot lacks.
pub fn missing_claims(cluster: &Cluster, pod: &Pod) -> Vec<PersistentVolumeClaim> {
    let Some((set, spec)) = controlling_set(cluster, pod) else {
        return Vec::new();
    };
    if ordinal_of(&set.name, &pod.name).is_none() {
        return Vec::new();
    }
    spec.claim_templates
        .iter()
        .filter_map(|t| {
            let name = claim_name(t, &pod.name);
            let used = pod.claim_names().any(|c| c == name);
            (used && cluster.storage.claim(pod.namespace, &name).is_none())
                .then(|| new_claim(&cluster.storage, t, &pod.name))
        })
        .collect()
}

/// `cluster` with the claims of [`missing_claims`] added (a copy only when
/// some are missing), and a note for the answer naming them.
pub fn with_missing_claims<'c>(
    cluster: &'c Cluster,
    pod: &Pod,
) -> (Cow<'c, Cluster>, Option<String>) {
    let claims = missing_claims(cluster, pod);
    if claims.is_empty() {
        return (Cow::Borrowed(cluster), None);
    }
    let note = created_note(cluster, pod, &claims);
    let mut fork = cluster.clone();
    for c in claims {
        fork.storage_mut().add_claim(c);
    }
    (Cow::Owned(fork), Some(note))
}

/// "the claims … its StatefulSet would create were added".
pub fn created_note(cluster: &Cluster, pod: &Pod, claims: &[PersistentVolumeClaim]) -> String {
    let set = pod.controller.as_ref().map_or("", |c| &*c.name);
    let list: Vec<String> = claims
        .iter()
        .map(|c| {
            let class = if c.class.is_empty() {
                "no class".to_string()
            } else {
                format!("class {}", c.class)
            };
            format!("{} ({class})", c.name)
        })
        .collect();
    format!(
        "asked with the unbound claim(s) StatefulSet {}/{set}'s volumeClaimTemplates would create: {}",
        cluster.interner.resolve(pod.namespace),
        list.join(", ")
    )
}

/// The replica the controller creates at `ordinal` from a pod of the set
/// (`newVersionedStatefulSetPod`'s identity and storage parts), not yet
/// placed; strings are interned in `cluster`. Claims the replica's volumes
/// name that the cluster lacks are added to it and returned.
pub fn replica(
    cluster: &mut Cluster,
    set: &SelectorOwner,
    spec: &StatefulSetSpec,
    template: &Pod,
    ordinal: i64,
) -> (Pod, Vec<PersistentVolumeClaim>) {
    let name = format!("{}-{ordinal}", set.name);
    let mut pod = template.clone();
    pod.name = name.as_str().into();
    pod.uid = "".into();
    pod.node = None;
    pod.node_name = None;
    pod.nominated_node_name = None;
    pod.phase = PodPhase::Pending;
    // `initIdentity`: the pod-name and pod-index labels.
    let i = &mut cluster.interner;
    let set_labels = [
        (i.intern(POD_NAME_LABEL), i.intern(&name)),
        (i.intern(POD_INDEX_LABEL), i.intern(&ordinal.to_string())),
    ];
    let mut labels: Vec<_> = pod
        .labels
        .iter()
        .filter(|(k, _)| !set_labels.iter().any(|s| s.0 == *k))
        .collect();
    labels.extend(set_labels);
    pod.labels = Labels::new(labels);
    // `updateStorage`: a volume per template, then the others.
    let templates = &spec.claim_templates;
    let mut volumes: Vec<PodVolume> = templates
        .iter()
        .map(|t| PodVolume::Claim(claim_name(t, &name).into()))
        .collect();
    volumes.extend(
        pod.volumes
            .iter()
            .filter(|v| match v {
                PodVolume::Claim(c) => {
                    !templates.iter().any(|t| is_template_claim(c, t, &set.name))
                }
                _ => true,
            })
            .map(|v| match v {
                // A generic ephemeral volume's claim follows the pod's name.
                PodVolume::Ephemeral(c) => PodVolume::Ephemeral(
                    c.strip_prefix(&*template.name)
                        .map_or_else(|| c.clone(), |rest| format!("{name}{rest}").into()),
                ),
                v => v.clone(),
            }),
    );
    pod.volumes = volumes.into();
    let mut created = Vec::new();
    for t in templates.iter() {
        let claim = claim_name(t, &name);
        if cluster.storage.claim(pod.namespace, &claim).is_none() {
            let c = new_claim(&cluster.storage, t, &name);
            cluster.storage_mut().add_claim(c.clone());
            created.push(c);
        }
    }
    (pod, created)
}

/// `AssumePodVolumes` after `pod` is placed on `node`: each unbound
/// WaitForFirstConsumer claim binds to the volume `FindPodVolumes` matched
/// there, or (none matched) is marked for provisioning on the node.
pub fn assume_volumes(cluster: &mut Cluster, pod: &Pod, node: NodeId, vac_enabled: bool) {
    let mut delay: Vec<PersistentVolumeClaim> = pod
        .claim_names()
        .filter_map(|n| cluster.storage.claim(pod.namespace, n))
        .filter(|c| {
            !c.is_fully_bound()
                && c.volume_name.is_empty()
                && c.selected_node.is_none()
                && is_delay_binding(&cluster.storage, c)
        })
        .cloned()
        .collect();
    delay.sort_by_key(|c| c.request.unwrap_or(0));
    let node_name = cluster.node(node).name.clone();
    let mut chosen: Vec<Box<str>> = Vec::new();
    for claim in delay {
        let matched = {
            let excluded: Vec<&str> = chosen.iter().map(|s| &**s).collect();
            match find_matching_volume(cluster, &claim, cluster.node(node), &excluded, vac_enabled)
            {
                Match::Volume(pv) => Some(pv.name.clone()),
                Match::None | Match::Error(_) => None,
            }
        };
        let namespace = cluster.interner.resolve(claim.namespace).to_string();
        match matched {
            Some(pv) => {
                if let Some(v) = cluster.storage_mut().volume_mut(&pv) {
                    v.claim_ref = Some(ClaimRef {
                        namespace: namespace.into(),
                        name: claim.name.clone(),
                        uid: claim.uid.clone(),
                    });
                    v.available = false;
                }
                if let Some(c) = cluster
                    .storage_mut()
                    .claim_mut(claim.namespace, &claim.name)
                {
                    c.volume_name = pv.clone();
                    c.bind_completed = true;
                }
                chosen.push(pv);
            }
            None => {
                if let Some(c) = cluster
                    .storage_mut()
                    .claim_mut(claim.namespace, &claim.name)
                {
                    c.selected_node = Some(node_name.clone());
                }
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ordinals_follow_the_set_name_and_a_dash() {
        assert_eq!(ordinal_of("web", "web-3"), Some(3));
        assert_eq!(ordinal_of("web", "web-03"), Some(3));
        assert_eq!(ordinal_of("web", "web-x"), None);
        assert_eq!(ordinal_of("web", "web-"), None);
        assert_eq!(ordinal_of("web", "webby-1"), None);
        assert_eq!(ordinal_of("web", "web-a-1"), None);
    }
}
