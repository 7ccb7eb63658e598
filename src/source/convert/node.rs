//! `v1.Node` → [`Node`].

use super::node_fields::NodeFields;
use super::pod::{labels_of_pairs, object_name};
use super::requests::{ResourceList, parse_nonnegative, to_resources};
use super::validate;
use crate::model::error::InvalidObject;
use crate::model::intern::Interner;
use crate::model::node::{Node, Taint, TaintEffect};

/// Converts a node, whole (`k8s-openapi`) or parsed lean.
pub fn convert_node(n: &impl NodeFields, interner: &mut Interner) -> Result<Node, InvalidObject> {
    convert_node_checked(n, interner, &mut validate::CheckedLabels::default())
}

/// [`convert_node`], skipping the checks of label keys and values found
/// valid before (`checked`): nodes repeat their label keys.
pub fn convert_node_checked(
    n: &impl NodeFields,
    interner: &mut Interner,
    checked: &mut validate::CheckedLabels,
) -> Result<Node, InvalidObject> {
    let name = n.name().unwrap_or("");
    let object = object_name("Node", None, name);
    if name.is_empty() {
        return Err(InvalidObject::new(
            &object,
            "metadata.name",
            "Required value",
        ));
    }
    validate::dns_subdomain_name(name, &object)?;
    checked.pairs(n.labels(), interner, &object, "metadata.labels")?;
    validate::node_taints(n.taints(), &object)?;
    let mut alloc = ResourceList::new();
    for (k, v) in n.allocatable() {
        alloc.insert(
            k,
            parse_nonnegative(v, &object, format_args!("status.allocatable.{k}"))?,
        );
    }
    let taints = n
        .taints()
        .map(|t| Taint::new(t.key, t.value.unwrap_or(""), TaintEffect::parse(t.effect)))
        .collect();
    let mut images = Vec::new();
    for (names, size) in n.images() {
        for name in names {
            images.push((interner.intern(name), size.unwrap_or(0)));
        }
    }
    let ready = n
        .conditions()
        .find(|&(type_, _)| type_ == "Ready")
        .map(|(_, status)| status == "True");
    Ok(Node {
        name: name.into(),
        labels: labels_of_pairs(n.labels(), interner),
        unschedulable: n.unschedulable().unwrap_or(false),
        taints,
        allocatable: to_resources(&alloc, interner),
        images: images.into_boxed_slice(),
        ready,
        created: n.creation_timestamp(),
        kubelet_version: n
            .kubelet_version()
            .map(str::trim)
            .filter(|v| !v.is_empty())
            .map(Into::into),
    })
}
