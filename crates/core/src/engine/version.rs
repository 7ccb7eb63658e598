//! Which kube-scheduler release the engine answers as, and how that release
//! was chosen. The release is an input of every answer, never global state:
//! the rules that changed between releases ask [`Version`] whether they apply,
//! and each is named after the upstream change that introduced it
//! (`docs/scheduler-versions.md` has the table: rule → first release).

use std::fmt;
use std::str::FromStr;

/// A supported kube-scheduler minor release. Ordered: later releases compare
/// greater, so a rule reads `version >= Version::V1_32`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum Version {
    V1_30,
    V1_31,
    V1_32,
    V1_33,
    V1_34,
}

impl Version {
    /// Every supported release, oldest first.
    pub const ALL: [Version; 5] = [
        Version::V1_30,
        Version::V1_31,
        Version::V1_32,
        Version::V1_33,
        Version::V1_34,
    ];
    pub const OLDEST: Version = Version::V1_30;
    pub const NEWEST: Version = Version::V1_34;

    /// The minor number (30 for v1.30).
    pub fn minor(self) -> u32 {
        30 + self as u32
    }

    /// `1.33`.
    pub fn as_str(self) -> &'static str {
        match self {
            Version::V1_30 => "1.30",
            Version::V1_31 => "1.31",
            Version::V1_32 => "1.32",
            Version::V1_33 => "1.33",
            Version::V1_34 => "1.34",
        }
    }

    /// The release whose real scheduler produced the conformance answers
    /// for this minor version.
    pub fn patch_release(self) -> &'static str {
        match self {
            Version::V1_30 => "v1.30.6",
            Version::V1_31 => "v1.31.1",
            Version::V1_32 => "v1.32.2",
            Version::V1_33 => "v1.33.0",
            Version::V1_34 => "v1.34.1",
        }
    }

    /// The supported release for a Kubernetes minor version, or the nearest
    /// one with `clamped` set when it is outside the supported range.
    pub fn nearest(minor: u32) -> (Version, bool) {
        if minor < Version::OLDEST.minor() {
            (Version::OLDEST, true)
        } else if minor > Version::NEWEST.minor() {
            (Version::NEWEST, true)
        } else {
            (
                Version::ALL[(minor - Version::OLDEST.minor()) as usize],
                false,
            )
        }
    }

    // ---- Rules that changed between releases, each named after its upstream change.

    /// `findNodesThatFitPod` → `SetAbsentNodesStatus` (v1.32): nodes left out
    /// by a PreFilter result get an UnschedulableAndUnresolvable status naming
    /// the plugins, and count in the FitError message.
    pub fn absent_nodes_get_status(self) -> bool {
        self >= Version::V1_32
    }

    /// `PodInfo.CalculateResource` uses `PodRequests` with
    /// `NonMissingContainerRequests` (v1.32): restartable init containers
    /// (sidecars) count in the non-zero requests that scoring uses.
    pub fn sidecars_in_non_zero_requests(self) -> bool {
        self >= Version::V1_32
    }

    /// NodeResourcesBalancedAllocation's PreScore returns Skip for a pod that
    /// requests nothing (v1.33).
    pub fn balanced_allocation_skips_best_effort(self) -> bool {
        self >= Version::V1_33
    }

    /// NodeResourcesFit returns UnschedulableAndUnresolvable when a request
    /// exceeds the node's whole allocatable (v1.34); preemption never tries
    /// such a node.
    pub fn fit_unresolvable_above_allocatable(self) -> bool {
        self >= Version::V1_34
    }

    /// Feature gate `PodLevelResources`: beta and on by default from v1.34
    /// (alpha and off in v1.32 and v1.33; the field does not exist before).
    pub fn pod_level_resources(self) -> bool {
        self >= Version::V1_34
    }

    /// v1.34.1 merges a pod (anti-)affinity term's `namespaceSelector` into
    /// its namespaces by value and keeps the selector, so a selector that
    /// matches an empty label set also matches pods outside them.
    pub fn keeps_namespace_selector_after_merge(self) -> bool {
        self >= Version::V1_34
    }

    /// Feature gate `DynamicResourceAllocation` on by default (GA in v1.34):
    /// `applyFeatureGates` puts DynamicResources in the default profile.
    pub fn dynamic_resources_in_default_profile(self) -> bool {
        self >= Version::V1_34
    }

    /// VolumeBinding's node affinity conflict reason was reworded in v1.33.
    pub fn volume_node_affinity_reason(self) -> &'static str {
        if self >= Version::V1_33 {
            "node(s) didn't match PersistentVolume's node affinity"
        } else {
            "node(s) had volume node affinity conflict"
        }
    }
}

impl Version {
    /// VolumeRestrictions' ReadWriteOncePod conflict reason was reworded in v1.34.
    pub fn read_write_once_pod_conflict_reason(self) -> &'static str {
        if self >= Version::V1_34 {
            "node(s) unavailable due to PersistentVolumeClaim with ReadWriteOncePod access mode already in-use by another pod"
        } else {
            "node has pod using PersistentVolumeClaim with the same name and ReadWriteOncePod access mode"
        }
    }

    /// VolumeBinding's PreFilter narrows the nodes to those a bound local
    /// PersistentVolume names (`GetEligibleNodes`), until v1.32 reverted it.
    pub fn volume_binding_eligible_nodes(self) -> bool {
        self <= Version::V1_31
    }

    /// Feature gate `VolumeAttributesClass`: GA and on from v1.34 (beta and
    /// off in v1.31–v1.33).
    pub fn volume_attributes_class(self) -> bool {
        self >= Version::V1_34
    }

    /// NodeVolumeLimits reads CSI attach limits from the node's allocatable
    /// (`attachable-volumes-csi-*`) as well as from its CSINode, until v1.32
    /// read them from the CSINode only.
    pub fn attach_limits_from_node_allocatable(self) -> bool {
        self <= Version::V1_31
    }
}

impl fmt::Display for Version {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "v{}", self.as_str())
    }
}

/// A version string kplace cannot use.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error(
    "unsupported scheduler version {given:?}: kplace answers as kube-scheduler 1.30, 1.31, 1.32, 1.33 or 1.34 (write it as 1.33 or v1.33)"
)]
pub struct UnsupportedVersion {
    pub given: String,
}

impl FromStr for Version {
    type Err = UnsupportedVersion;

    /// Accepts `1.33`, `v1.33` and `v1.33.2` (the patch is ignored).
    fn from_str(s: &str) -> Result<Self, Self::Err> {
        let err = || UnsupportedVersion {
            given: s.to_string(),
        };
        let (major, minor) = parse_major_minor(s).ok_or_else(err)?;
        if major != 1 {
            return Err(err());
        }
        Version::ALL
            .into_iter()
            .find(|v| v.minor() == minor)
            .ok_or_else(err)
    }
}

/// `v1.33.2-gke.100` → (1, 33). Leading `v` optional; anything after the
/// minor's digits is ignored, as kubelet and server versions carry suffixes.
pub fn parse_major_minor(s: &str) -> Option<(u32, u32)> {
    let s = s.trim();
    let s = s.strip_prefix('v').unwrap_or(s);
    let mut parts = s.splitn(3, '.');
    let major = parts.next()?.parse().ok()?;
    let minor_part = parts.next()?;
    let digits: String = minor_part
        .chars()
        .take_while(|c| c.is_ascii_digit())
        .collect();
    let minor = digits.parse().ok()?;
    Some((major, minor))
}

/// How the release an answer uses was chosen.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum VersionSource {
    /// `--scheduler-version` or `:version`.
    Flag,
    /// The live API server's `/version`.
    ApiServer { reported: String },
    /// The server version `kplace record` stored in the snapshot.
    Recording { reported: String },
    /// The newest kubelet version among the snapshot's nodes (a control
    /// plane is never older than its kubelets).
    NewestKubelet { reported: String, node: String },
    /// The snapshot holds `resource.k8s.io/v1` objects, which API servers
    /// serve from 1.34 on, and no kubelet says newer (kubelets may lag the
    /// control plane by three minors).
    ResourceApiV1 {
        /// The newest kubelet, when the nodes report one: (version, node).
        newest_kubelet: Option<(String, String)>,
    },
    /// Nothing said which release: the newest supported one.
    Default,
}

/// The release an answer uses, and why.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct VersionChoice {
    pub version: Version,
    pub source: VersionSource,
    /// The reported version was outside 1.30–1.34 and the nearest supported
    /// release is used instead.
    pub clamped: bool,
}

impl VersionChoice {
    /// An explicit choice (a flag, a test).
    pub fn flag(version: Version) -> Self {
        VersionChoice {
            version,
            source: VersionSource::Flag,
            clamped: false,
        }
    }

    /// The newest supported release, because nothing said otherwise.
    pub fn default_newest() -> Self {
        VersionChoice {
            version: Version::NEWEST,
            source: VersionSource::Default,
            clamped: false,
        }
    }

    /// From a reported Kubernetes version string, clamped to the supported
    /// range; `None` when the string is not a version.
    pub fn reported(source: VersionSource) -> Option<Self> {
        let text = match &source {
            VersionSource::ApiServer { reported }
            | VersionSource::Recording { reported }
            | VersionSource::NewestKubelet { reported, .. } => reported,
            VersionSource::Flag | VersionSource::Default | VersionSource::ResourceApiV1 { .. } => {
                return None;
            }
        };
        let (major, minor) = parse_major_minor(text)?;
        let (version, clamped) = if major != 1 {
            (
                if major < 1 {
                    Version::OLDEST
                } else {
                    Version::NEWEST
                },
                true,
            )
        } else {
            Version::nearest(minor)
        };
        Some(VersionChoice {
            version,
            source,
            clamped,
        })
    }

    /// A short machine-readable name of the source, for JSON.
    pub fn source_kind(&self) -> &'static str {
        match self.source {
            VersionSource::Flag => "flag",
            VersionSource::ApiServer { .. } => "api-server",
            VersionSource::Recording { .. } => "recording",
            VersionSource::NewestKubelet { .. } => "newest-kubelet",
            VersionSource::ResourceApiV1 { .. } => "resource-api-v1",
            VersionSource::Default => "default",
        }
    }

    /// Why this release, in a sentence an operator reads:
    /// "the API server reports v1.29.4; kplace supports 1.30–1.34 and uses the nearest, 1.30".
    pub fn reason(&self) -> String {
        let base = match &self.source {
            VersionSource::Flag => "chosen with --scheduler-version or :version".to_string(),
            VersionSource::ApiServer { reported } => {
                format!("the API server reports {reported}")
            }
            VersionSource::Recording { reported } => {
                format!("the recording's API server reported {reported}")
            }
            VersionSource::NewestKubelet { reported, node } => format!(
                "the snapshot has no server version; its newest kubelet is {reported} (node {node})"
            ),
            VersionSource::ResourceApiV1 { newest_kubelet } => {
                let kubelet = newest_kubelet
                    .as_ref()
                    .map(|(v, node)| {
                        format!(
                            "; its newest kubelet, {v} (node {node}), may lag the control plane"
                        )
                    })
                    .unwrap_or_default();
                format!(
                    "the snapshot has no server version but holds resource.k8s.io/v1 objects, which API servers serve from 1.34{kubelet}"
                )
            }
            VersionSource::Default => {
                "nothing says which release the cluster runs: the newest supported".to_string()
            }
        };
        if self.clamped {
            format!(
                "{base}; kplace supports {}–{} and uses the nearest, {}",
                Version::OLDEST.as_str(),
                Version::NEWEST.as_str(),
                self.version.as_str()
            )
        } else {
            base
        }
    }
}

impl Default for VersionChoice {
    fn default() -> Self {
        VersionChoice::default_newest()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn parses_the_forms_operators_write() {
        assert_eq!("1.33".parse(), Ok(Version::V1_33));
        assert_eq!("v1.30".parse(), Ok(Version::V1_30));
        assert_eq!("v1.34.1".parse(), Ok(Version::V1_34));
        assert!("1.29".parse::<Version>().is_err());
        assert!("2.30".parse::<Version>().is_err());
        assert!("latest".parse::<Version>().is_err());
    }

    #[test]
    fn reported_versions_are_clamped_to_the_nearest() {
        let old = VersionChoice::reported(VersionSource::ApiServer {
            reported: "v1.28.9-eks-abc".into(),
        })
        .unwrap();
        assert_eq!((old.version, old.clamped), (Version::V1_30, true));
        assert!(
            old.reason().contains("uses the nearest, 1.30"),
            "{}",
            old.reason()
        );
        let new = VersionChoice::reported(VersionSource::ApiServer {
            reported: "v1.36.0".into(),
        })
        .unwrap();
        assert_eq!((new.version, new.clamped), (Version::V1_34, true));
        let exact = VersionChoice::reported(VersionSource::ApiServer {
            reported: "v1.32.7+k3s1".into(),
        })
        .unwrap();
        assert_eq!((exact.version, exact.clamped), (Version::V1_32, false));
        assert!(
            VersionChoice::reported(VersionSource::ApiServer {
                reported: "unknown".into()
            })
            .is_none()
        );
    }
}
