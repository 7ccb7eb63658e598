//! Nodes as the engine sees them.

use super::intern::Sym;
use super::labels::Labels;
use super::resources::Resources;

/// Index of a node in [`super::Cluster::nodes`].
pub type NodeId = u32;

#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum TaintEffect {
    NoSchedule,
    PreferNoSchedule,
    NoExecute,
    /// An effect this version does not know; never matches a filter.
    Other,
}

impl TaintEffect {
    pub fn parse(s: &str) -> Self {
        match s {
            "NoSchedule" => TaintEffect::NoSchedule,
            "PreferNoSchedule" => TaintEffect::PreferNoSchedule,
            "NoExecute" => TaintEffect::NoExecute,
            _ => TaintEffect::Other,
        }
    }

    pub fn as_str(self) -> &'static str {
        match self {
            TaintEffect::NoSchedule => "NoSchedule",
            TaintEffect::PreferNoSchedule => "PreferNoSchedule",
            TaintEffect::NoExecute => "NoExecute",
            TaintEffect::Other => "",
        }
    }
}

#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Taint {
    pub key: Box<str>,
    pub value: Box<str>,
    pub effect: TaintEffect,
    /// TaintToleration's Filter reason for this taint, formatted once by
    /// [`Taint::new`] (private, so it always matches the key and value):
    /// every pod that does not tolerate the taint is rejected with it, on
    /// every node that has it.
    untolerated: std::sync::Arc<str>,
}

impl Taint {
    pub fn new(key: &str, value: &str, effect: TaintEffect) -> Self {
        Taint {
            key: key.into(),
            value: value.into(),
            effect,
            // Upstream's `tainttoleration.Filter` message.
            untolerated: format!("node(s) had untolerated taint {{{key}: {value}}}").into(),
        }
    }

    /// `node(s) had untolerated taint {key: value}`, shared.
    pub fn untolerated(&self) -> &std::sync::Arc<str> {
        &self.untolerated
    }
}

#[derive(Clone, Debug, PartialEq)]
pub struct Node {
    pub name: Box<str>,
    pub labels: Labels,
    pub unschedulable: bool,
    pub taints: Box<[Taint]>,
    /// `status.allocatable`, which the scheduler uses (not capacity).
    pub allocatable: Resources,
    /// Image name to size in bytes, every name of every `status.images` entry.
    pub images: Box<[(Sym, i64)]>,
    /// `Ready` condition status, for display only (the scheduler never reads it).
    pub ready: Option<bool>,
    /// `metadata.creationTimestamp` as Unix seconds.
    pub created: Option<i64>,
    /// `status.nodeInfo.kubeletVersion` (`v1.32.7-eks-abc`), when reported:
    /// a snapshot without a server version is answered as the newest one.
    pub kubelet_version: Option<Box<str>>,
}
