//! Plugin names and the statuses filters return (`framework.Status`).

use std::borrow::Cow;

/// The plugins of the default profile that kplace implements.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Plugin {
    SchedulingGates,
    NodeUnschedulable,
    NodeName,
    TaintToleration,
    NodeAffinity,
    NodePorts,
    NodeResourcesFit,
    VolumeRestrictions,
    NodeVolumeLimits,
    VolumeBinding,
    VolumeZone,
    PodTopologySpread,
    InterPodAffinity,
    DynamicResources,
    DefaultPreemption,
    NodeResourcesBalancedAllocation,
    ImageLocality,
}

impl Plugin {
    /// A short column title for score tables.
    pub fn short_name(self) -> &'static str {
        match self {
            Plugin::TaintToleration => "Taint",
            Plugin::NodeAffinity => "NodeAff",
            Plugin::PodTopologySpread => "Spread",
            Plugin::InterPodAffinity => "PodAff",
            Plugin::NodeResourcesFit => "Fit",
            Plugin::NodeResourcesBalancedAllocation => "Balance",
            Plugin::ImageLocality => "Image",
            Plugin::VolumeBinding => "Volume",
            other => other.as_str(),
        }
    }

    pub fn as_str(self) -> &'static str {
        match self {
            Plugin::SchedulingGates => "SchedulingGates",
            Plugin::NodeUnschedulable => "NodeUnschedulable",
            Plugin::NodeName => "NodeName",
            Plugin::TaintToleration => "TaintToleration",
            Plugin::NodeAffinity => "NodeAffinity",
            Plugin::NodePorts => "NodePorts",
            Plugin::NodeResourcesFit => "NodeResourcesFit",
            Plugin::VolumeRestrictions => "VolumeRestrictions",
            Plugin::NodeVolumeLimits => "NodeVolumeLimits",
            Plugin::VolumeBinding => "VolumeBinding",
            Plugin::VolumeZone => "VolumeZone",
            Plugin::DynamicResources => "DynamicResources",
            Plugin::PodTopologySpread => "PodTopologySpread",
            Plugin::InterPodAffinity => "InterPodAffinity",
            Plugin::DefaultPreemption => "DefaultPreemption",
            Plugin::NodeResourcesBalancedAllocation => "NodeResourcesBalancedAllocation",
            Plugin::ImageLocality => "ImageLocality",
        }
    }
}

/// `Unschedulable` (preemption may help) or `UnschedulableAndUnresolvable`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Code {
    Unschedulable,
    UnschedulableAndUnresolvable,
}

impl Code {
    pub fn as_str(self) -> &'static str {
        match self {
            Code::Unschedulable => "Unschedulable",
            Code::UnschedulableAndUnresolvable => "UnschedulableAndUnresolvable",
        }
    }
}

pub type Reason = Cow<'static, str>;

/// Why a node was rejected: the first failing plugin's status.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Rejection {
    pub plugin: Plugin,
    pub code: Code,
    pub reasons: Vec<Reason>,
}

impl Rejection {
    pub fn new(plugin: Plugin, code: Code, reason: impl Into<Reason>) -> Self {
        Rejection {
            plugin,
            code,
            reasons: vec![reason.into()],
        }
    }

    pub fn unresolvable(plugin: Plugin, reason: impl Into<Reason>) -> Self {
        Self::new(plugin, Code::UnschedulableAndUnresolvable, reason)
    }

    pub fn unschedulable(plugin: Plugin, reason: impl Into<Reason>) -> Self {
        Self::new(plugin, Code::Unschedulable, reason)
    }
}

/// A filter's verdict on one node: `Ok(())` passes.
pub type FilterResult = Result<(), Rejection>;
