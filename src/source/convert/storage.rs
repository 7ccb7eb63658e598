//! `StorageClass`, `PersistentVolume`, `PersistentVolumeClaim` and `CSINode`
//! → the storage model, with the defaults and helpers the volume plugins
//! apply (`GetPersistentVolumeClaimClass`, `GetPersistentVolumeClass`).

use std::collections::BTreeMap;

use k8s_openapi::api::core::v1 as core;
use k8s_openapi::api::storage::v1 as storage;
use k8s_openapi::apimachinery::pkg::api::resource::Quantity as K8sQuantity;

use super::pod::{labels_of, object_name, timestamp};
use super::requests::parse_q;
use super::selector::{label_selector, node_selector_term};
use crate::model::error::InvalidObject;
use crate::model::intern::Interner;
use crate::model::storage::*;

/// `v1.BetaStorageClassAnnotation`, which takes precedence over
/// `spec.storageClassName` on claims and volumes.
pub const BETA_STORAGE_CLASS_ANNOTATION: &str = "volume.beta.kubernetes.io/storage-class";
/// `storageutil.IsDefaultStorageClassAnnotation` and its beta form.
pub const IS_DEFAULT_CLASS_ANNOTATION: &str = "storageclass.kubernetes.io/is-default-class";
pub const BETA_IS_DEFAULT_CLASS_ANNOTATION: &str =
    "storageclass.beta.kubernetes.io/is-default-class";
pub const ANN_BIND_COMPLETED: &str = "pv.kubernetes.io/bind-completed";
pub const ANN_SELECTED_NODE: &str = "volume.kubernetes.io/selected-node";

fn required_name(
    name: Option<&str>,
    kind: &str,
    namespace: Option<&str>,
) -> Result<String, InvalidObject> {
    let name = name.unwrap_or("");
    if name.is_empty() {
        return Err(InvalidObject::new(
            &object_name(kind, namespace, "<unnamed>"),
            "metadata.name",
            "Required value",
        ));
    }
    Ok(name.to_string())
}

fn storage_quantity(
    list: Option<&BTreeMap<String, K8sQuantity>>,
    object: &str,
    field: &str,
) -> Result<Option<i128>, InvalidObject> {
    list.and_then(|l| l.get("storage"))
        .map(|q| parse_q(&q.0, object, format_args!("{field}.storage")).map(|q| q.nanos()))
        .transpose()
}

fn is_block(mode: Option<&str>) -> bool {
    mode == Some("Block")
}

pub fn convert_storage_class(
    sc: &storage::StorageClass,
    interner: &mut Interner,
) -> Result<StorageClass, InvalidObject> {
    let name = required_name(sc.metadata.name.as_deref(), "StorageClass", None)?;
    let object = object_name("StorageClass", None, &name);
    let binding_mode = match sc.volume_binding_mode.as_deref() {
        None => None,
        Some("Immediate") => Some(BindingMode::Immediate),
        Some("WaitForFirstConsumer") => Some(BindingMode::WaitForFirstConsumer),
        Some(other) => {
            return Err(InvalidObject::new(
                &object,
                "volumeBindingMode",
                format!(
                    "Unsupported value: {other:?}: supported values: \"Immediate\", \"WaitForFirstConsumer\""
                ),
            ));
        }
    };
    let allowed_topologies = sc
        .allowed_topologies
        .iter()
        .flatten()
        .map(|term| TopologyTerm {
            requirements: term
                .match_label_expressions
                .iter()
                .flatten()
                .map(|r| {
                    let mut values: Vec<_> = r.values.iter().map(|v| interner.intern(v)).collect();
                    values.sort_unstable();
                    values.dedup();
                    (interner.intern(&r.key), values.into_boxed_slice())
                })
                .collect(),
        })
        .collect();
    Ok(StorageClass {
        name: name.into(),
        provisioner: sc.provisioner.as_str().into(),
        binding_mode,
        allowed_topologies,
        is_default: sc.metadata.annotations.as_ref().is_some_and(|a| {
            [
                IS_DEFAULT_CLASS_ANNOTATION,
                BETA_IS_DEFAULT_CLASS_ANNOTATION,
            ]
            .iter()
            .any(|k| a.get(*k).is_some_and(|v| v == "true"))
        }),
        created: timestamp(sc.metadata.creation_timestamp.as_ref()),
    })
}

pub fn convert_persistent_volume(
    pv: &core::PersistentVolume,
    interner: &mut Interner,
) -> Result<PersistentVolume, InvalidObject> {
    let meta = &pv.metadata;
    let name = required_name(meta.name.as_deref(), "PersistentVolume", None)?;
    let object = object_name("PersistentVolume", None, &name);
    let spec = pv.spec.as_ref();
    let annotations = meta.annotations.as_ref();
    let class = annotations
        .and_then(|a| a.get(BETA_STORAGE_CLASS_ANNOTATION))
        .map(String::as_str)
        .or_else(|| spec.and_then(|s| s.storage_class_name.as_deref()))
        .unwrap_or("");
    let node_affinity = spec
        .and_then(|s| s.node_affinity.as_ref())
        .and_then(|a| a.required.as_ref())
        .map(|sel| {
            sel.node_selector_terms
                .iter()
                .map(|t| node_selector_term(t, interner))
                .collect()
        });
    Ok(PersistentVolume {
        labels: labels_of(meta.labels.as_ref(), interner),
        capacity: storage_quantity(
            spec.and_then(|s| s.capacity.as_ref()),
            &object,
            "spec.capacity",
        )?
        .unwrap_or(0),
        access_modes: AccessModes::parse(
            spec.and_then(|s| s.access_modes.as_deref())
                .unwrap_or(&[])
                .iter()
                .map(String::as_str),
        ),
        class: class.into(),
        node_affinity,
        claim_ref: spec.and_then(|s| s.claim_ref.as_ref()).map(|r| ClaimRef {
            namespace: r.namespace.as_deref().unwrap_or("").into(),
            name: r.name.as_deref().unwrap_or("").into(),
            uid: r.uid.as_deref().unwrap_or("").into(),
        }),
        available: pv.status.as_ref().and_then(|s| s.phase.as_deref()) == Some("Available"),
        block_mode: is_block(spec.and_then(|s| s.volume_mode.as_deref())),
        attributes_class: spec
            .and_then(|s| s.volume_attributes_class_name.as_deref())
            .unwrap_or("")
            .into(),
        deleting: meta.deletion_timestamp.is_some(),
        csi: spec.and_then(|s| s.csi.as_ref()).map(|c| CsiSource {
            driver: c.driver.as_str().into(),
            handle: c.volume_handle.as_str().into(),
        }),
        name: name.into(),
    })
}

pub fn convert_persistent_volume_claim(
    pvc: &core::PersistentVolumeClaim,
    interner: &mut Interner,
) -> Result<PersistentVolumeClaim, InvalidObject> {
    let meta = &pvc.metadata;
    let namespace = meta.namespace.as_deref().unwrap_or("default");
    let name = required_name(
        meta.name.as_deref(),
        "PersistentVolumeClaim",
        Some(namespace),
    )?;
    let object = object_name("PersistentVolumeClaim", Some(namespace), &name);
    let spec = pvc.spec.as_ref();
    let annotations = meta.annotations.as_ref();
    let class = annotations
        .and_then(|a| a.get(BETA_STORAGE_CLASS_ANNOTATION))
        .map(String::as_str)
        .or_else(|| spec.and_then(|s| s.storage_class_name.as_deref()))
        .unwrap_or("");
    let selector = spec
        .and_then(|s| s.selector.as_ref())
        .map(|sel| label_selector(Some(sel), interner, &object, "spec.selector"))
        .transpose()?;
    Ok(PersistentVolumeClaim {
        namespace: interner.intern(namespace),
        uid: meta.uid.as_deref().unwrap_or("").into(),
        class: class.into(),
        request: storage_quantity(
            spec.and_then(|s| s.resources.as_ref())
                .and_then(|r| r.requests.as_ref()),
            &object,
            "spec.resources.requests",
        )?,
        access_modes: AccessModes::parse(
            spec.and_then(|s| s.access_modes.as_deref())
                .unwrap_or(&[])
                .iter()
                .map(String::as_str),
        ),
        volume_name: spec
            .and_then(|s| s.volume_name.as_deref())
            .unwrap_or("")
            .into(),
        bind_completed: annotations.is_some_and(|a| a.contains_key(ANN_BIND_COMPLETED)),
        selected_node: annotations
            .and_then(|a| a.get(ANN_SELECTED_NODE))
            .map(|n| n.as_str().into()),
        lost: pvc.status.as_ref().and_then(|s| s.phase.as_deref()) == Some("Lost"),
        deleting: meta.deletion_timestamp.is_some(),
        selector,
        block_mode: is_block(spec.and_then(|s| s.volume_mode.as_deref())),
        attributes_class: spec
            .and_then(|s| s.volume_attributes_class_name.as_deref())
            .unwrap_or("")
            .into(),
        controller_uid: meta
            .owner_references
            .iter()
            .flatten()
            .find(|o| o.controller == Some(true))
            .map(|o| o.uid.as_str().into()),
        name: name.into(),
    })
}

pub fn convert_csi_node(n: &storage::CSINode) -> Result<CsiNode, InvalidObject> {
    let name = required_name(n.metadata.name.as_deref(), "CSINode", None)?;
    Ok(CsiNode {
        drivers: n
            .spec
            .drivers
            .iter()
            .map(|d| CsiNodeDriver {
                name: d.name.as_str().into(),
                allocatable: d.allocatable.as_ref().and_then(|a| a.count),
            })
            .collect(),
        migrated_plugins: n
            .metadata
            .annotations
            .as_ref()
            .and_then(|a| a.get("storage.alpha.kubernetes.io/migrated-plugins"))
            .filter(|v| !v.is_empty())
            .map(|v| v.split(',').map(Into::into).collect())
            .unwrap_or_default(),
        name: name.into(),
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn yaml<T: serde::de::DeserializeOwned>(s: &str) -> T {
        serde_saphyr::from_str(s).unwrap()
    }

    #[test]
    fn claim_class_prefers_the_beta_annotation() {
        let pvc: core::PersistentVolumeClaim = yaml(
            "metadata: {name: data, namespace: db, annotations: {volume.beta.kubernetes.io/storage-class: old, pv.kubernetes.io/bind-completed: 'yes'}}\nspec: {storageClassName: new, volumeName: pv-1, resources: {requests: {storage: 10Gi}}, accessModes: [ReadWriteOncePod]}\n",
        );
        let c = convert_persistent_volume_claim(&pvc, &mut Interner::default()).unwrap();
        assert_eq!(&*c.class, "old");
        assert!(c.is_fully_bound());
        assert_eq!(c.request, Some(10 * (1i128 << 30) * 1_000_000_000));
        assert!(c.access_modes.contains(AccessModes::READ_WRITE_ONCE_POD));
    }

    #[test]
    fn a_bad_quantity_names_the_object_and_field() {
        let pv: core::PersistentVolume =
            yaml("metadata: {name: pv-1}\nspec: {capacity: {storage: ten}}\n");
        let err = convert_persistent_volume(&pv, &mut Interner::default()).unwrap_err();
        assert_eq!(err.object, "PersistentVolume pv-1");
        assert_eq!(err.field, "spec.capacity.storage");
    }

    #[test]
    fn an_unknown_binding_mode_is_refused() {
        let sc: storage::StorageClass =
            yaml("metadata: {name: fast}\nprovisioner: x\nvolumeBindingMode: Later\n");
        let err = convert_storage_class(&sc, &mut Interner::default()).unwrap_err();
        assert_eq!(err.field, "volumeBindingMode");
    }
}
