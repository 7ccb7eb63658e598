//! The fields of a `v1.Node` that conversion reads, whichever form the
//! node was parsed into: a whole `k8s-openapi` object (YAML, live watches)
//! or a snapshot's borrowed, lean parse ([`super::lean_node`]). One
//! conversion runs on both, so they cannot disagree (#15 item 1).
//!
//! Maps are walked in key order with unique keys, as a `BTreeMap` walks
//! them: conversion interns in that order, so both forms number the same
//! strings the same way.

use k8s_openapi::api::core::v1 as core;

/// A taint's fields that conversion reads.
pub struct TaintFields<'a> {
    pub key: &'a str,
    pub value: Option<&'a str>,
    pub effect: &'a str,
}

/// A node's fields that conversion reads.
pub trait NodeFields {
    fn name(&self) -> Option<&str>;
    /// `metadata.labels`, in key order.
    fn labels(&self) -> impl Iterator<Item = (&str, &str)>;
    fn creation_timestamp(&self) -> Option<i64>;
    fn unschedulable(&self) -> Option<bool>;
    fn taints(&self) -> impl Iterator<Item = TaintFields<'_>>;
    /// `status.allocatable`, in key order, each quantity as written.
    fn allocatable(&self) -> impl Iterator<Item = (&str, &str)>;
    /// `status.images`: each image's names and its size.
    fn images(&self) -> impl Iterator<Item = (impl Iterator<Item = &str>, Option<i64>)>;
    /// `status.conditions`: type and status of each.
    fn conditions(&self) -> impl Iterator<Item = (&str, &str)>;
    fn kubelet_version(&self) -> Option<&str>;
}

impl NodeFields for core::Node {
    fn name(&self) -> Option<&str> {
        self.metadata.name.as_deref()
    }
    fn labels(&self) -> impl Iterator<Item = (&str, &str)> {
        self.metadata
            .labels
            .iter()
            .flatten()
            .map(|(k, v)| (k.as_str(), v.as_str()))
    }
    fn creation_timestamp(&self) -> Option<i64> {
        super::pod::timestamp(self.metadata.creation_timestamp.as_ref())
    }
    fn unschedulable(&self) -> Option<bool> {
        self.spec.as_ref().and_then(|s| s.unschedulable)
    }
    fn taints(&self) -> impl Iterator<Item = TaintFields<'_>> {
        self.spec
            .iter()
            .flat_map(|s| s.taints.iter().flatten())
            .map(|t| TaintFields {
                key: &t.key,
                value: t.value.as_deref(),
                effect: &t.effect,
            })
    }
    fn allocatable(&self) -> impl Iterator<Item = (&str, &str)> {
        self.status
            .iter()
            .flat_map(|s| s.allocatable.iter().flatten())
            .map(|(k, v)| (k.as_str(), v.0.as_str()))
    }
    fn images(&self) -> impl Iterator<Item = (impl Iterator<Item = &str>, Option<i64>)> {
        self.status
            .iter()
            .flat_map(|s| s.images.iter().flatten())
            .map(|i| (i.names.iter().flatten().map(String::as_str), i.size_bytes))
    }
    fn conditions(&self) -> impl Iterator<Item = (&str, &str)> {
        self.status
            .iter()
            .flat_map(|s| s.conditions.iter().flatten())
            .map(|c| (c.type_.as_str(), c.status.as_str()))
    }
    fn kubelet_version(&self) -> Option<&str> {
        self.status
            .as_ref()
            .and_then(|s| s.node_info.as_ref())
            .map(|i| i.kubelet_version.as_str())
    }
}
