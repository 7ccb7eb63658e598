//! `v1.Node` → [`Node`].

use k8s_openapi::api::core::v1 as core;

use super::pod::{labels_of, object_name, timestamp};
use super::requests::{ResourceList, parse_nonnegative, to_resources};
use super::validate;
use crate::model::error::InvalidObject;
use crate::model::intern::Interner;
use crate::model::node::{Node, Taint, TaintEffect};

pub fn convert_node(n: &core::Node, interner: &mut Interner) -> Result<Node, InvalidObject> {
    let name = n.metadata.name.as_deref().unwrap_or("");
    let object = object_name("Node", None, name);
    if name.is_empty() {
        return Err(InvalidObject::new(
            &object,
            "metadata.name",
            "Required value",
        ));
    }
    let spec = n.spec.as_ref();
    validate::labels(n.metadata.labels.as_ref(), &object, "metadata.labels")?;
    if let Some(taints) = spec.and_then(|s| s.taints.as_ref()) {
        validate::node_taints(taints, &object)?;
    }
    let status = n.status.as_ref();
    let mut alloc = ResourceList::new();
    for (k, v) in status
        .and_then(|s| s.allocatable.as_ref())
        .into_iter()
        .flatten()
    {
        alloc.insert(
            k,
            parse_nonnegative(&v.0, &object, format_args!("status.allocatable.{k}"))?,
        );
    }
    let taints = spec
        .and_then(|s| s.taints.as_ref())
        .into_iter()
        .flatten()
        .map(|t| {
            Taint::new(
                &t.key,
                t.value.as_deref().unwrap_or(""),
                TaintEffect::parse(&t.effect),
            )
        })
        .collect();
    let mut images = Vec::new();
    for img in status.and_then(|s| s.images.as_ref()).into_iter().flatten() {
        for name in img.names.iter().flatten() {
            images.push((interner.intern(name), img.size_bytes.unwrap_or(0)));
        }
    }
    let ready = status
        .and_then(|s| s.conditions.as_ref())
        .and_then(|cs| cs.iter().find(|c| c.type_ == "Ready"))
        .map(|c| c.status == "True");
    Ok(Node {
        name: name.into(),
        labels: labels_of(n.metadata.labels.as_ref(), interner),
        unschedulable: spec.and_then(|s| s.unschedulable).unwrap_or(false),
        taints,
        allocatable: to_resources(&alloc, interner),
        images: images.into_boxed_slice(),
        ready,
        created: timestamp(n.metadata.creation_timestamp.as_ref()),
        kubelet_version: status
            .and_then(|s| s.node_info.as_ref())
            .map(|i| i.kubelet_version.trim())
            .filter(|v| !v.is_empty())
            .map(Into::into),
    })
}
