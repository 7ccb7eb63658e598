//! Plugin names and the statuses filters return (`framework.Status`).

use std::borrow::Cow;
use std::sync::Arc;

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

/// One reason of a status. Fixed reasons are borrowed, built ones owned;
/// a reason formatted once for many nodes (a node's taint) is shared, so
/// rejecting thousands of nodes does not format it thousands of times.
#[derive(Clone)]
pub enum Reason {
    Static(&'static str),
    Owned(String),
    Shared(Arc<str>),
}

impl std::ops::Deref for Reason {
    type Target = str;

    fn deref(&self) -> &str {
        match self {
            Reason::Static(s) => s,
            Reason::Owned(s) => s,
            Reason::Shared(s) => s,
        }
    }
}

impl AsRef<str> for Reason {
    fn as_ref(&self) -> &str {
        self
    }
}

impl std::borrow::Borrow<str> for Reason {
    fn borrow(&self) -> &str {
        self
    }
}

impl Default for Reason {
    fn default() -> Self {
        Reason::Static("")
    }
}

impl From<&'static str> for Reason {
    fn from(s: &'static str) -> Self {
        Reason::Static(s)
    }
}

impl From<String> for Reason {
    fn from(s: String) -> Self {
        Reason::Owned(s)
    }
}

impl From<Arc<str>> for Reason {
    fn from(s: Arc<str>) -> Self {
        Reason::Shared(s)
    }
}

impl From<Cow<'static, str>> for Reason {
    fn from(s: Cow<'static, str>) -> Self {
        match s {
            Cow::Borrowed(s) => Reason::Static(s),
            Cow::Owned(s) => Reason::Owned(s),
        }
    }
}

impl std::fmt::Display for Reason {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self)
    }
}

impl std::fmt::Debug for Reason {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        std::fmt::Debug::fmt(&**self, f)
    }
}

/// Reasons compare, order and hash by their text, however they are held.
impl PartialEq for Reason {
    fn eq(&self, other: &Self) -> bool {
        **self == **other
    }
}

impl Eq for Reason {}

impl PartialEq<str> for Reason {
    fn eq(&self, other: &str) -> bool {
        &**self == other
    }
}

impl PartialEq<&str> for Reason {
    fn eq(&self, other: &&str) -> bool {
        &**self == *other
    }
}

impl PartialOrd for Reason {
    fn partial_cmp(&self, other: &Self) -> Option<std::cmp::Ordering> {
        Some(self.cmp(other))
    }
}

impl Ord for Reason {
    fn cmp(&self, other: &Self) -> std::cmp::Ordering {
        (**self).cmp(&**other)
    }
}

impl std::hash::Hash for Reason {
    fn hash<H: std::hash::Hasher>(&self, state: &mut H) {
        (**self).hash(state)
    }
}

/// A status's reasons, read as a slice. Almost every status carries one
/// fixed reason, kept inline: rejecting thousands of nodes then allocates
/// nothing per node.
#[derive(Clone, Debug)]
pub enum Reasons {
    One(Reason),
    Many(Vec<Reason>),
}

impl Reasons {
    pub fn none() -> Self {
        Reasons::Many(Vec::new())
    }

    /// Adds a reason; the first is kept inline.
    pub fn push(&mut self, reason: Reason) {
        match self {
            Reasons::Many(v) if v.is_empty() => *self = Reasons::One(reason),
            Reasons::Many(v) => v.push(reason),
            Reasons::One(first) => {
                let first = std::mem::take(first);
                *self = Reasons::Many(vec![first, reason]);
            }
        }
    }
}

impl Default for Reasons {
    fn default() -> Self {
        Reasons::none()
    }
}

impl std::ops::Deref for Reasons {
    type Target = [Reason];

    fn deref(&self) -> &[Reason] {
        match self {
            Reasons::One(r) => std::slice::from_ref(r),
            Reasons::Many(v) => v,
        }
    }
}

impl<'a> IntoIterator for &'a Reasons {
    type Item = &'a Reason;
    type IntoIter = std::slice::Iter<'a, Reason>;

    fn into_iter(self) -> Self::IntoIter {
        self.iter()
    }
}

impl From<Vec<Reason>> for Reasons {
    fn from(v: Vec<Reason>) -> Self {
        Reasons::Many(v)
    }
}

/// Equal when the reasons are, however they are held.
impl PartialEq for Reasons {
    fn eq(&self, other: &Self) -> bool {
        **self == **other
    }
}

impl Eq for Reasons {}

/// Why a node was rejected: the first failing plugin's status.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Rejection {
    pub plugin: Plugin,
    pub code: Code,
    pub reasons: Reasons,
}

impl Rejection {
    pub fn new(plugin: Plugin, code: Code, reason: impl Into<Reason>) -> Self {
        Rejection {
            plugin,
            code,
            reasons: Reasons::One(reason.into()),
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
