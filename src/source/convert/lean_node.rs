//! A snapshot's node parsed lean: only the fields conversion reads
//! ([`NodeFields`]), its strings borrowed from the file's bytes (#15 item 1).
//! A node is a few kilobytes of JSON (images with their digests,
//! conditions with their messages, addresses, capacity): parsed whole
//! into a `k8s-openapi` object, the 5,000 nodes of the synthetic cluster
//! cost about 5% of its load, for the two dozen strings kplace keeps.
//!
//! As for pods ([`super::lean_pod`]): the types of fields kplace never
//! reads are not checked (they are skipped as any unknown field is); the
//! parts it reads take their required fields as `k8s-openapi` does (absent
//! or null, they read as empty); and anything this
//! parse does not accept as `k8s-openapi` would — a quantity written as a
//! number, a repeated field, an `apiVersion` other than `v1` — fails here,
//! and the loader parses the node again the whole way, so the answer or
//! the error is the one it would have given.

use serde::Deserialize;

use super::lean_types::{Seconds, Str, StrMap, opt, pairs, read_v1, seconds};
use super::node_fields::{NodeFields, TaintFields};

#[derive(Debug, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct LeanNode<'a> {
    #[serde(borrow)]
    api_version: Option<Str<'a>>,
    #[serde(borrow, default)]
    metadata: Meta<'a>,
    #[serde(borrow)]
    spec: Option<Spec<'a>>,
    #[serde(borrow)]
    status: Option<Status<'a>>,
}

#[derive(Debug, Default, Deserialize)]
#[serde(rename_all = "camelCase")]
struct Meta<'a> {
    #[serde(borrow)]
    name: Option<Str<'a>>,
    #[serde(borrow)]
    labels: Option<StrMap<'a>>,
    creation_timestamp: Option<Seconds>,
}

#[derive(Debug, Deserialize)]
#[serde(rename_all = "camelCase")]
struct Spec<'a> {
    unschedulable: Option<bool>,
    #[serde(borrow)]
    taints: Option<Vec<Taint<'a>>>,
}

/// A taint. `k8s-openapi` reads a required field that is absent or null
/// as empty, so these are optional here, read as empty too.
#[derive(Debug, Deserialize)]
struct Taint<'a> {
    #[serde(borrow)]
    key: Option<Str<'a>>,
    #[serde(borrow)]
    value: Option<Str<'a>>,
    #[serde(borrow)]
    effect: Option<Str<'a>>,
}

#[derive(Debug, Deserialize)]
#[serde(rename_all = "camelCase")]
struct Status<'a> {
    #[serde(borrow)]
    allocatable: Option<StrMap<'a>>,
    #[serde(borrow)]
    images: Option<Vec<Image<'a>>>,
    #[serde(borrow)]
    conditions: Option<Vec<Condition<'a>>>,
    #[serde(borrow)]
    node_info: Option<NodeInfo<'a>>,
}

#[derive(Debug, Deserialize)]
#[serde(rename_all = "camelCase")]
struct Image<'a> {
    #[serde(borrow)]
    names: Option<Vec<Str<'a>>>,
    size_bytes: Option<i64>,
}

/// A condition; its required fields are read as [`Taint`]'s are.
#[derive(Debug, Deserialize)]
struct Condition<'a> {
    #[serde(rename = "type", borrow)]
    type_: Option<Str<'a>>,
    #[serde(borrow)]
    status: Option<Str<'a>>,
}

/// `status.nodeInfo`, of which kplace reads the kubelet's version.
#[derive(Debug, Deserialize)]
#[serde(rename_all = "camelCase")]
struct NodeInfo<'a> {
    #[serde(borrow)]
    kubelet_version: Option<Str<'a>>,
}

impl<'a> LeanNode<'a> {
    /// Parses one JSON item lean; `None` when it is not a node this parse
    /// accepts as `k8s-openapi` would (the caller parses it whole).
    pub fn parse(json: &'a str) -> Option<LeanNode<'a>> {
        read_v1(json, |node: &LeanNode| opt(&node.api_version))
    }

    /// Kind, namespace (none) and name, as the loader's duplicate check
    /// keys objects.
    pub fn identity(&self) -> (&'static str, &str, &str) {
        ("Node", "", opt(&self.metadata.name).unwrap_or(""))
    }
}

impl NodeFields for LeanNode<'_> {
    fn name(&self) -> Option<&str> {
        opt(&self.metadata.name)
    }
    fn labels(&self) -> impl Iterator<Item = (&str, &str)> {
        pairs(&self.metadata.labels)
    }
    fn creation_timestamp(&self) -> Option<i64> {
        seconds(&self.metadata.creation_timestamp)
    }
    fn unschedulable(&self) -> Option<bool> {
        self.spec.as_ref().and_then(|s| s.unschedulable)
    }
    fn taints(&self) -> impl Iterator<Item = TaintFields<'_>> {
        self.spec
            .iter()
            .flat_map(|s| s.taints.iter().flatten())
            .map(|t| TaintFields {
                key: opt(&t.key).unwrap_or(""),
                value: opt(&t.value),
                effect: opt(&t.effect).unwrap_or(""),
            })
    }
    fn allocatable(&self) -> impl Iterator<Item = (&str, &str)> {
        self.status.iter().flat_map(|s| pairs(&s.allocatable))
    }
    fn images(&self) -> impl Iterator<Item = (impl Iterator<Item = &str>, Option<i64>)> {
        self.status
            .iter()
            .flat_map(|s| s.images.iter().flatten())
            .map(|i| (i.names.iter().flatten().map(Str::get), i.size_bytes))
    }
    fn conditions(&self) -> impl Iterator<Item = (&str, &str)> {
        self.status
            .iter()
            .flat_map(|s| s.conditions.iter().flatten())
            .map(|c| (opt(&c.type_).unwrap_or(""), opt(&c.status).unwrap_or("")))
    }
    fn kubelet_version(&self) -> Option<&str> {
        self.status
            .as_ref()
            .and_then(|s| s.node_info.as_ref())
            .map(|i| opt(&i.kubelet_version).unwrap_or(""))
    }
}

#[cfg(test)]
mod tests {
    use super::super::lean_types::testing::{
        converts_alike, corpus_docs, items_of, synthetic_docs,
    };
    use super::*;
    use crate::model::intern::Interner;
    use crate::source::convert::convert_node;
    use k8s_openapi::api::core::v1 as core;

    /// Converts one node's JSON both ways and checks they agree
    /// ([`converts_alike`]); `false` when the lean parse refused it.
    fn agrees(json: &str, what: &str) -> bool {
        converts_alike::<_, core::Node, _>(
            json,
            what,
            LeanNode::parse(json),
            convert_node,
            convert_node,
        )
    }

    /// Every Node among a file's documents (in Lists too), as JSON text,
    /// with YAML's unquoted quantities (`pods: 110`) as the API server
    /// writes them, strings: numbers the lean parse leaves to the whole
    /// one.
    fn nodes_of(docs: Vec<serde_json::Value>) -> Vec<String> {
        let mut out = Vec::new();
        for mut node in items_of(docs, "Node") {
            for list in ["allocatable", "capacity"] {
                let quantities = node
                    .pointer_mut(&format!("/status/{list}"))
                    .and_then(|q| q.as_object_mut());
                for q in quantities.into_iter().flat_map(|q| q.values_mut()) {
                    if q.is_number() {
                        *q = q.to_string().into();
                    }
                }
            }
            out.push(serde_json::to_string(&node).expect("a value serializes"));
        }
        out
    }

    #[test]
    fn lean_and_whole_conversions_agree_on_every_corpus_node() {
        let (mut seen, mut lean) = (0, 0);
        for (path, docs) in corpus_docs("snapshot.yaml.gz") {
            for json in nodes_of(docs) {
                seen += 1;
                lean += agrees(&json, &path) as usize;
                // Whatever the lean JSON reader reads, serde_json reads alike.
                crate::source::lean_json::agrees_with_serde_json::<LeanNode>(&json);
            }
        }
        assert!(seen > 2000, "only {seen} nodes in the corpus");
        assert!(
            lean * 10 > seen * 9,
            "the lean parse took only {lean} of {seen} nodes"
        );
    }

    #[test]
    fn lean_and_whole_conversions_agree_on_a_synthetic_cluster() {
        let nodes = nodes_of(synthetic_docs());
        assert!(nodes.len() >= 100, "only {} nodes", nodes.len());
        for (i, node) in nodes.iter().enumerate() {
            assert!(
                agrees(node, &format!("synthetic node {i}")),
                "synthetic node {i} was refused: {node}"
            );
            assert!(
                crate::source::lean_json::agrees_with_serde_json::<LeanNode>(node),
                "synthetic node {i} was left to serde_json"
            );
        }
    }

    /// A node with every field conversion reads, and what each change to
    /// it does: read alike both ways, or left to the whole parse.
    #[test]
    fn what_the_lean_parse_reads_and_what_it_leaves_to_the_whole_one() {
        let node = |spec: &str, status: &str| {
            format!(
                r#"{{"apiVersion":"v1","kind":"Node","metadata":{{"name":"n1","creationTimestamp":"2024-09-18T17:32:00Z","labels":{{"zone":"a","kubernetes.io/hostname":"n1"}}}},"spec":{{{spec}}},"status":{{{status}}}}}"#
            )
        };
        let info = r#""nodeInfo":{"architecture":"amd64","kubeletVersion":" v1.30.2 ","operatingSystem":"linux"}"#;
        let status = format!(
            r#""allocatable":{{"cpu":"4","memory":"16Gi","pods":"110"}},"images":[{{"names":["reg/app@sha256:1","reg/app:1"],"sizeBytes":100}},{{"sizeBytes":5}}],"conditions":[{{"type":"Ready","status":"True","reason":"KubeletReady"}}],{info}"#
        );
        let spec = r#""unschedulable":true,"taints":[{"key":"gpu","value":"yes","effect":"NoSchedule","timeAdded":"2024-09-18T17:32:00Z"},{"key":"spot","effect":"PreferNoSchedule"}]"#;
        let full = node(spec, &status);
        assert!(agrees(&full, "every field"));
        let mut interner = Interner::default();
        let read = convert_node(&LeanNode::parse(&full).unwrap(), &mut interner).unwrap();
        assert!(read.unschedulable);
        assert_eq!(read.taints.len(), 2);
        assert_eq!(read.images.len(), 2);
        assert_eq!(read.ready, Some(true));
        assert_eq!(read.kubelet_version.as_deref(), Some("v1.30.2"));
        assert_eq!(read.created, Some(1_726_680_720));

        // Read alike both ways: no spec, no status, empty lists, a
        // label given twice (the later kept, as a BTreeMap keeps it), an
        // invalid taint (the same error both ways).
        assert!(agrees(&node("", ""), "empty spec and status"));
        assert!(agrees(
            &node(r#""taints":[]"#, r#""images":[],"conditions":[]"#),
            "empty lists"
        ));
        // A string with an escape is left to the whole parse.
        assert!(LeanNode::parse(&full.replace("reg/app:1", r"reg\/app:1\u0041")).is_none());
        assert!(agrees(
            &full.replace(r#""zone":"a","#, r#""zone":"a","zone":"b","#),
            "a label twice"
        ));
        assert!(agrees(
            &node(r#""taints":[{"key":"a","effect":"Sometimes"}]"#, ""),
            "a bad taint effect"
        ));
        // `k8s-openapi` reads a required field that is absent or null as
        // empty: so does the lean parse.
        assert!(agrees(
            &full.replace(r#""key":"spot","#, ""),
            "a taint without a key"
        ));
        assert!(agrees(
            &full.replace(r#""effect":"PreferNoSchedule""#, r#""effect":null"#),
            "a taint's effect null"
        ));
        assert!(agrees(
            &full.replace(r#""status":"True","#, ""),
            "a condition without status"
        ));
        assert!(agrees(
            &node("", r#""nodeInfo":{"architecture":"amd64"}"#),
            "nodeInfo without the kubelet's version"
        ));

        // Left to the whole parse, which decides as it always has.
        let refused = [
            full.replace(r#""cpu":"4""#, r#""cpu":4"#),
            full.replace(r#""apiVersion":"v1""#, r#""apiVersion":"v2""#),
            full.replace(
                r#""unschedulable":true"#,
                r#""unschedulable":true,"unschedulable":false"#,
            ),
            full.replace(r#""sizeBytes":100"#, r#""sizeBytes":"100""#),
            full.replace(r#""name":"n1","#, r#""name":1,"#),
        ];
        for (i, json) in refused.iter().enumerate() {
            assert_ne!(json, &full, "change {i} applies");
            assert!(LeanNode::parse(json).is_none(), "change {i}: {json}");
        }
    }
}
