//! Which kube-scheduler release to answer as, chosen once per source by
//! [`choose`], so every command (place, verify, the TUI) decides the same
//! way:
//!
//! 1. `--scheduler-version` (or the TUI's `:version`) wins;
//! 2. else the API server's version: live, its `/version`; a recording made
//!    by `kplace record`, the version it stored;
//! 3. else the newest `status.nodeInfo.kubeletVersion` among the nodes (a
//!    control plane is never older than its kubelets), raised to 1.34 when
//!    the snapshot holds `resource.k8s.io/v1` objects (served from 1.34);
//! 4. else the newest supported release.
//!
//! A reported version outside the supported range uses the nearest supported
//! release, and [`VersionChoice::reason`] says so.

use crate::engine::{Version, VersionChoice, VersionSource};
use crate::model::Cluster;

/// What a source says about its API server's release.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub enum ServerVersion {
    /// Nothing (a plain kubectl List, the demo).
    #[default]
    Unknown,
    /// The live server's `/version` `gitVersion`.
    Live(String),
    /// The live server's `/version` could not be read: why.
    LiveFailed(String),
    /// The `gitVersion` `kplace record` stored in the recording.
    Recorded(String),
}

impl ServerVersion {
    /// What a loaded snapshot or timeline moment says: the version `kplace
    /// record` stored, if any.
    pub fn of_recording(cluster: &Cluster) -> ServerVersion {
        match &cluster.recorded_server_version {
            Some(v) if !v.trim().is_empty() => ServerVersion::Recorded(v.clone()),
            _ => ServerVersion::Unknown,
        }
    }

    /// A sentence for the operator when the server's version was not used
    /// although the source has a server (`/version` failed, or its answer
    /// is not a version).
    pub fn note(&self, chosen: &VersionChoice) -> Option<String> {
        let fallback = |why: String| {
            format!(
                "{why}: answering as kube-scheduler {} ({})",
                chosen.version,
                chosen.reason()
            )
        };
        match (self, &chosen.source) {
            (_, VersionSource::Flag) => None,
            (ServerVersion::LiveFailed(e), _) => Some(fallback(format!(
                "the API server's /version could not be read ({e})"
            ))),
            (ServerVersion::Live(v) | ServerVersion::Recorded(v), s)
                if !matches!(
                    s,
                    VersionSource::ApiServer { .. } | VersionSource::Recording { .. }
                ) =>
            {
                Some(fallback(format!(
                    "the server version {v:?} is not a version"
                )))
            }
            _ => None,
        }
    }
}

/// `v1.32.7-eks-abc` → (1, 32, 7): compared numerically, so v1.9 < v1.32.
/// A missing or unreadable patch counts as 0.
pub fn parse_release(s: &str) -> Option<(u32, u32, u32)> {
    let (major, minor) = crate::engine::version::parse_major_minor(s)?;
    let s = s.trim();
    let s = s.strip_prefix('v').unwrap_or(s);
    let patch = s
        .splitn(3, '.')
        .nth(2)
        .map(|p| {
            p.chars()
                .take_while(|c| c.is_ascii_digit())
                .collect::<String>()
        })
        .and_then(|d| d.parse().ok())
        .unwrap_or(0);
    Some((major, minor, patch))
}

/// The newest kubelet among the nodes: `(kubeletVersion, node name)`. Ties
/// go to the first node; versions that do not parse are ignored.
pub fn newest_kubelet(cluster: &Cluster) -> Option<(String, String)> {
    let mut best: Option<((u32, u32, u32), &str, &str)> = None;
    for node in &cluster.nodes {
        let Some(v) = node.kubelet_version.as_deref() else {
            continue;
        };
        let Some(release) = parse_release(v) else {
            continue;
        };
        if best.is_none_or(|(b, ..)| release > b) {
            best = Some((release, v, &node.name));
        }
    }
    best.map(|(_, v, n)| (v.to_string(), n.to_string()))
}

/// The release to answer as, and why (see the module documentation for the
/// order). Never fails: with nothing to go on it is the newest supported.
pub fn choose(flag: Option<Version>, server: &ServerVersion, cluster: &Cluster) -> VersionChoice {
    if let Some(v) = flag {
        return VersionChoice::flag(v);
    }
    let reported = match server {
        ServerVersion::Live(v) => VersionChoice::reported(VersionSource::ApiServer {
            reported: v.trim().to_string(),
        }),
        ServerVersion::Recorded(v) => VersionChoice::reported(VersionSource::Recording {
            reported: v.trim().to_string(),
        }),
        ServerVersion::LiveFailed(_) | ServerVersion::Unknown => None,
    };
    if let Some(choice) = reported {
        return choice;
    }
    let kubelet = newest_kubelet(cluster);
    let by_kubelet = kubelet.clone().and_then(|(reported, node)| {
        VersionChoice::reported(VersionSource::NewestKubelet { reported, node })
    });
    // DRA objects of `resource.k8s.io/v1` come from a 1.34+ API server: a
    // lower bound older kubelets cannot lower.
    if !cluster.dra.is_empty()
        && by_kubelet
            .as_ref()
            .is_none_or(|c| c.version < Version::V1_34)
    {
        return VersionChoice {
            version: Version::V1_34,
            source: VersionSource::ResourceApiV1 {
                newest_kubelet: kubelet,
            },
            clamped: false,
        };
    }
    by_kubelet.unwrap_or_else(VersionChoice::default_newest)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::Node;
    use crate::model::intern::Interner;

    fn node(name: &str, kubelet: Option<&str>) -> Node {
        Node {
            name: name.into(),
            labels: Default::default(),
            unschedulable: false,
            taints: Box::default(),
            allocatable: Default::default(),
            images: Box::default(),
            ready: Some(true),
            created: None,
            kubelet_version: kubelet.map(Into::into),
        }
    }

    fn cluster(kubelets: &[(&str, Option<&str>)]) -> Cluster {
        Cluster::new(
            Interner::default(),
            kubelets.iter().map(|(n, v)| node(n, *v)).collect(),
            Vec::new(),
            Vec::new(),
            Vec::new(),
            Vec::new(),
            Default::default(),
        )
    }

    #[test]
    fn resource_v1_objects_raise_the_release_to_1_34_unless_a_kubelet_says_newer() {
        use crate::model::dra::{DeviceClass, Dra};
        let with_dra = |mut c: Cluster| {
            c.dra = Dra::new(
                vec![DeviceClass {
                    name: "gpu".into(),
                    selectors: Box::default(),
                }],
                vec![],
                vec![],
                vec![],
            );
            c
        };
        let c = with_dra(cluster(&[("a", Some("v1.31.2"))]));
        let choice = choose(None, &ServerVersion::Unknown, &c);
        assert_eq!((choice.version, choice.clamped), (Version::V1_34, false));
        assert_eq!(choice.source_kind(), "resource-api-v1");
        // A server version still wins; so does a kubelet already at 1.34+.
        let recorded = ServerVersion::Recorded("v1.33.1".into());
        assert_eq!(choose(None, &recorded, &c).version, Version::V1_33);
        let c = with_dra(cluster(&[("a", Some("v1.35.0"))]));
        let choice = choose(None, &ServerVersion::Unknown, &c);
        assert_eq!(choice.source_kind(), "newest-kubelet");
        // No DRA objects: the kubelet decides as before.
        let c = cluster(&[("a", Some("v1.31.2"))]);
        assert_eq!(
            choose(None, &ServerVersion::Unknown, &c).version,
            Version::V1_31
        );
    }

    #[test]
    fn the_newest_kubelet_wins_compared_as_numbers() {
        let c = cluster(&[
            ("old", Some("v1.9.11")),
            ("eks", Some("v1.32.7-eks-abc")),
            ("mid", Some("v1.31.12")),
            ("none", None),
            ("junk", Some("unknown")),
        ]);
        let choice = choose(None, &ServerVersion::Unknown, &c);
        assert_eq!(choice.version, Version::V1_32);
        assert!(!choice.clamped);
        assert_eq!(
            choice.source,
            VersionSource::NewestKubelet {
                reported: "v1.32.7-eks-abc".into(),
                node: "eks".into()
            }
        );
        assert_eq!(choice.source_kind(), "newest-kubelet");
        // The patch breaks ties between minors: v1.31.10 > v1.31.9.
        let c = cluster(&[("a", Some("v1.31.9")), ("b", Some("v1.31.10"))]);
        assert_eq!(newest_kubelet(&c), Some(("v1.31.10".into(), "b".into())));
    }

    #[test]
    fn kubelets_outside_the_supported_range_are_clamped_and_say_so() {
        let old = choose(
            None,
            &ServerVersion::Unknown,
            &cluster(&[("a", Some("v1.28.15")), ("b", Some("v1.27.3"))]),
        );
        assert_eq!((old.version, old.clamped), (Version::V1_30, true));
        assert_eq!(
            old.reason(),
            "the snapshot has no server version; its newest kubelet is v1.28.15 (node a); \
             kplace supports 1.30–1.34 and uses the nearest, 1.30"
        );
        let new = choose(
            None,
            &ServerVersion::Live("v1.36.0".into()),
            &cluster(&[("a", Some("v1.30.1"))]),
        );
        assert_eq!((new.version, new.clamped), (Version::V1_34, true));
        assert_eq!(
            new.reason(),
            "the API server reports v1.36.0; kplace supports 1.30–1.34 and uses the nearest, 1.34"
        );
    }

    #[test]
    fn the_recorded_server_version_wins_over_kubelets() {
        let mut c = cluster(&[("a", Some("v1.33.1"))]);
        c.recorded_server_version = Some("v1.31.4".into());
        let server = ServerVersion::of_recording(&c);
        let choice = choose(None, &server, &c);
        assert_eq!(choice.version, Version::V1_31);
        assert_eq!(
            choice.source,
            VersionSource::Recording {
                reported: "v1.31.4".into()
            }
        );
        assert_eq!(server.note(&choice), None);
        // A stored value that is not a version falls back to the kubelets, and says so.
        c.recorded_server_version = Some("garbage".into());
        let server = ServerVersion::of_recording(&c);
        let choice = choose(None, &server, &c);
        assert_eq!(choice.version, Version::V1_33);
        assert!(
            server
                .note(&choice)
                .is_some_and(|n| n.contains("\"garbage\" is not a version")),
            "{:?}",
            server.note(&choice)
        );
    }

    #[test]
    fn the_flag_wins_over_everything() {
        let mut c = cluster(&[("a", Some("v1.33.1"))]);
        c.recorded_server_version = Some("v1.31.4".into());
        for server in [
            ServerVersion::of_recording(&c),
            ServerVersion::Live("v1.34.0".into()),
            ServerVersion::LiveFailed("timed out".into()),
        ] {
            let choice = choose(Some(Version::V1_30), &server, &c);
            assert_eq!(choice, VersionChoice::flag(Version::V1_30));
            assert_eq!(server.note(&choice), None);
        }
    }

    #[test]
    fn nothing_says_so_the_newest_is_used() {
        let c = cluster(&[("a", None)]);
        let choice = choose(None, &ServerVersion::Unknown, &c);
        assert_eq!(choice, VersionChoice::default_newest());
        assert_eq!(choice.source_kind(), "default");
        assert_eq!(choice.version, Version::NEWEST);
    }

    #[test]
    fn a_failed_version_request_falls_back_to_the_kubelets_and_says_so() {
        let c = cluster(&[("a", Some("v1.32.3"))]);
        let server = ServerVersion::LiveFailed("403 Forbidden".into());
        let choice = choose(None, &server, &c);
        assert_eq!(choice.version, Version::V1_32);
        assert_eq!(choice.source_kind(), "newest-kubelet");
        let note = server.note(&choice).expect("a note");
        assert!(
            note.starts_with("the API server's /version could not be read (403 Forbidden): answering as kube-scheduler v1.32"),
            "{note}"
        );
    }
}
