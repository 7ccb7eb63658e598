//! A snapshot's ReplicaSet parsed lean: its metadata and `spec.selector`,
//! the only fields conversion reads ([`super::policy::convert_replica_set`]),
//! without the pod template (#15 item 1).
//!
//! A Deployment's ReplicaSets, old ones included, each carry a whole pod
//! template, which `k8s-openapi` parsed (every container, probe and
//! environment variable allocated) only for it to be dropped unread: on
//! the synthetic cluster that was 2% of the load's instructions.
//!
//! The result is the same `apps::ReplicaSet` the whole parse gives, less
//! what conversion never reads (`spec.template`, `spec.replicas`,
//! `spec.minReadySeconds`, `status`), so the duplicate check, the error
//! messages and the conversion are the whole parse's own. Anything this
//! parse does not take as `k8s-openapi` would (an `apiVersion` or `kind`
//! that is not a string, a field given twice, any syntax it leaves to
//! serde_json) is refused, and the loader parses the object whole.

use k8s_openapi::api::apps::v1 as apps;
use k8s_openapi::apimachinery::pkg::apis::meta::v1::{LabelSelector, ObjectMeta};
use serde::{Deserialize, Deserializer};

#[derive(Deserialize)]
#[serde(rename_all = "camelCase")]
struct LeanReplicaSet {
    /// `None` when absent; `null` is refused, as `k8s-openapi` refuses it.
    #[serde(default, deserialize_with = "a_string")]
    api_version: Option<String>,
    #[serde(default, deserialize_with = "a_string")]
    kind: Option<String>,
    metadata: Option<ObjectMeta>,
    spec: Option<Spec>,
}

#[derive(Deserialize)]
struct Spec {
    selector: Option<LabelSelector>,
}

/// A string that is there: `Some` of it (absent fields take the default).
fn a_string<'de, D: Deserializer<'de>>(d: D) -> Result<Option<String>, D::Error> {
    String::deserialize(d).map(Some)
}

/// Parses one JSON item lean; `None` when the whole parse must read it
/// (it may then refuse it, with its own error).
pub fn parse(json: &str) -> Option<apps::ReplicaSet> {
    let lean: LeanReplicaSet =
        super::lean_json::from_str(json).or_else(|| serde_json::from_str(json).ok())?;
    if lean.api_version.as_deref().is_some_and(|v| v != "apps/v1")
        || lean.kind.as_deref().is_some_and(|k| k != "ReplicaSet")
    {
        return None;
    }
    Some(apps::ReplicaSet {
        metadata: lean.metadata.unwrap_or_default(),
        spec: lean.spec.map(|s| apps::ReplicaSetSpec {
            selector: s.selector.unwrap_or_default(),
            ..Default::default()
        }),
        status: None,
    })
}

#[cfg(test)]
mod tests {
    use super::super::lean_types::testing::{corpus_docs, items_of, synthetic_docs};
    use super::*;
    use crate::model::intern::Interner;
    use crate::source::convert::policy::convert_replica_set;

    /// Converts a ReplicaSet's JSON lean and whole; `false` when the lean
    /// parse refused it.
    fn agrees(json: &str, what: &str) -> bool {
        let Some(lean) = parse(json) else {
            return false;
        };
        let whole: apps::ReplicaSet = serde_json::from_str(json)
            .unwrap_or_else(|e| panic!("{what}: took what k8s-openapi refuses: {e}"));
        assert_eq!(lean.metadata, whole.metadata, "{what}: metadata differs");
        let (mut a, mut b) = (Interner::default(), Interner::default());
        let (from_lean, from_whole) = (
            convert_replica_set(&lean, &mut a),
            convert_replica_set(&whole, &mut b),
        );
        assert_eq!(
            format!("{from_lean:?}"),
            format!("{from_whole:?}"),
            "{what}: the conversions differ"
        );
        assert!(a.strings().eq(b.strings()), "{what}: interned differently");
        true
    }

    #[test]
    fn every_corpus_and_synthetic_replica_set_is_read_lean_and_converts_alike() {
        let mut sets: Vec<serde_json::Value> = items_of(synthetic_docs(), "ReplicaSet");
        let synthetic = sets.len();
        for (_, docs) in corpus_docs("snapshot.yaml.gz") {
            sets.extend(items_of(docs, "ReplicaSet"));
        }
        assert!(synthetic > 10, "only {synthetic} synthetic ReplicaSets");
        for (i, rs) in sets.iter().enumerate() {
            let json = serde_json::to_string(rs).expect("a value serializes");
            assert!(agrees(&json, &format!("ReplicaSet {i}")), "refused: {json}");
        }
    }

    fn replica_set(members: &str) -> String {
        format!(
            r#"{{"apiVersion":"apps/v1","kind":"ReplicaSet","metadata":{{"name":"web-6b8f7c5d4","namespace":"shop","labels":{{"app":"web"}}}}{members}}}"#
        )
    }

    #[test]
    fn the_template_and_status_are_skipped_and_the_selector_read() {
        let json = replica_set(
            r#","spec":{"replicas":3,"selector":{"matchLabels":{"app":"web","pod-template-hash":"6b8f7c5d4"},"matchExpressions":[{"key":"tier","operator":"In","values":["a","b"]}]},"template":{"metadata":{"labels":{"app":"web"}},"spec":{"containers":[{"name":"c","image":"web:1","env":[{"name":"A","value":"1"}]}]}}},"status":{"replicas":3}"#,
        );
        assert!(agrees(&json, "with a template"));
        let rs = parse(&json).expect("read lean");
        let spec = rs.spec.expect("a spec");
        assert!(spec.template.is_none() && spec.replicas.is_none());
        let labels = spec.selector.match_labels.expect("matchLabels");
        assert_eq!(
            labels.get("pod-template-hash").map(String::as_str),
            Some("6b8f7c5d4")
        );
        // No spec, a null spec, a spec without a selector, no metadata.
        for members in [
            "",
            r#","spec":null"#,
            r#","spec":{"selector":null}"#,
            r#","spec":{}"#,
        ] {
            assert!(agrees(&replica_set(members), members), "refused: {members}");
        }
        let bare = r#"{"kind":"ReplicaSet","spec":{"selector":{}}}"#;
        assert!(agrees(bare, "bare"));
    }

    /// What `k8s-openapi` decides its own way is left to it.
    #[test]
    fn what_the_lean_parse_leaves_to_the_whole_one() {
        for json in [
            // Refused there: another API version or kind, a null one.
            replica_set("").replace("apps/v1", "apps/v1beta2"),
            replica_set("").replace(r#""kind":"ReplicaSet""#, r#""kind":"Deployment""#),
            replica_set("").replace(r#""apps/v1""#, "null"),
            // The later kept there.
            replica_set(r#","spec":{"selector":{},"selector":{}}"#),
            // A selector of the wrong shape (an error there).
            replica_set(r#","spec":{"selector":{"matchLabels":["app"]}}"#),
        ] {
            assert!(parse(&json).is_none(), "read lean: {json}");
        }
    }
}
