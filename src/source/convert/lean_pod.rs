//! A snapshot's pod parsed lean: only the fields conversion reads
//! ([`PodFields`]), its strings borrowed from the file's bytes (#15 item 1).
//! A 150,000-pod snapshot is almost all pods, and parsing each into a
//! whole `k8s-openapi` object (every string, timestamp and condition
//! allocated, then freed once converted) was most of the load.
//!
//! Tolerations, spread constraints (with their label selectors) and
//! volumes are read lean too, through the traits conversion reads both
//! forms by ([`super::pod_fields`]). The rarer nested parts (affinity,
//! claims, pod-level resources, a volume's inline disks) are still parsed
//! into their `k8s-openapi` types, so they share their conversion with
//! every other pod.
//!
//! What this parse does not check: the types of fields kplace never reads
//! (say an `env` entry that is not an object, or a volume's config map),
//! which are skipped as any unknown field is. Anything it does not accept
//! as `k8s-openapi` would — a quantity written as a number, a repeated
//! field, a required field absent or null, an `apiVersion` other than
//! `v1`, a string with an escape (kept only borrowed) — fails here, and the loader parses the pod again the whole
//! way ([`super::convert_pod`] on a `k8s-openapi` object), so the answer or
//! the error is the one it would have given.

use k8s_openapi::api::core::v1 as core;
use serde::Deserialize;
use serde::de::IgnoredAny;

use super::lean_types::{Seconds, Str, StrMap, opt, pairs, read_v1, seconds};
use super::pod_fields::{
    ContainerFields, ExpressionFields, PodFields, PortFields, SelectorFields, SpreadFields,
    TolerationFields, VolumeFields, list_of,
};

#[derive(Debug, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct LeanPod<'a> {
    #[serde(borrow)]
    api_version: Option<Str<'a>>,
    #[serde(borrow, default)]
    metadata: Meta<'a>,
    /// Boxed: the spec is two thirds of the parsed pod (576 of 904
    /// bytes), and the pod is moved several times on its way to the
    /// loader; boxed, those moves copy a third as much (about 3% of a
    /// large snapshot's load, in `memmove`).
    #[serde(borrow)]
    spec: Option<Box<Spec<'a>>>,
    #[serde(borrow)]
    status: Option<Status<'a>>,
}

#[derive(Debug, Default, Deserialize)]
#[serde(rename_all = "camelCase")]
struct Meta<'a> {
    #[serde(borrow)]
    name: Option<Str<'a>>,
    #[serde(borrow)]
    generate_name: Option<Str<'a>>,
    #[serde(borrow)]
    namespace: Option<Str<'a>>,
    #[serde(borrow)]
    uid: Option<Str<'a>>,
    #[serde(borrow)]
    labels: Option<StrMap<'a>>,
    creation_timestamp: Option<Seconds>,
    deletion_timestamp: Option<Seconds>,
    deletion_grace_period_seconds: Option<i64>,
    #[serde(borrow)]
    owner_references: Option<Vec<OwnerReference<'a>>>,
}

#[derive(Debug, Deserialize)]
#[serde(rename_all = "camelCase")]
struct OwnerReference<'a> {
    #[serde(borrow)]
    api_version: Str<'a>,
    #[serde(borrow)]
    kind: Str<'a>,
    #[serde(borrow)]
    name: Str<'a>,
    controller: Option<bool>,
    /// Never read. Required here, though `k8s-openapi` reads an absent
    /// uid as empty: a pod without one is parsed whole, to the same model.
    #[serde(borrow)]
    #[allow(dead_code)]
    uid: Str<'a>,
}

#[derive(Debug, Deserialize)]
#[serde(rename_all = "camelCase")]
struct Spec<'a> {
    #[serde(borrow)]
    containers: Vec<Container<'a>>,
    #[serde(borrow)]
    init_containers: Option<Vec<Container<'a>>>,
    #[serde(borrow)]
    overhead: Option<StrMap<'a>>,
    resources: Option<core::ResourceRequirements>,
    #[serde(borrow)]
    node_selector: Option<StrMap<'a>>,
    affinity: Option<core::Affinity>,
    #[serde(borrow)]
    tolerations: Option<Vec<Toleration<'a>>>,
    #[serde(borrow)]
    topology_spread_constraints: Option<Vec<Spread<'a>>>,
    #[serde(borrow)]
    volumes: Option<Vec<Volume<'a>>>,
    host_network: Option<bool>,
    #[serde(borrow)]
    node_name: Option<Str<'a>>,
    priority: Option<i32>,
    #[serde(borrow)]
    priority_class_name: Option<Str<'a>>,
    #[serde(borrow)]
    scheduler_name: Option<Str<'a>>,
    #[serde(borrow)]
    preemption_policy: Option<Str<'a>>,
    termination_grace_period_seconds: Option<i64>,
    #[serde(borrow)]
    scheduling_gates: Option<Vec<SchedulingGate<'a>>>,
    resource_claims: Option<Vec<core::PodResourceClaim>>,
}

/// Every field of `v1.Toleration`, as `k8s-openapi` types them.
#[derive(Debug, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Toleration<'a> {
    #[serde(borrow)]
    key: Option<Str<'a>>,
    #[serde(borrow)]
    operator: Option<Str<'a>>,
    #[serde(borrow)]
    value: Option<Str<'a>>,
    #[serde(borrow)]
    effect: Option<Str<'a>>,
    toleration_seconds: Option<i64>,
}

/// Every field of `v1.TopologySpreadConstraint`, as `k8s-openapi` types
/// them (a fifth of the synthetic cluster's pods have one or two).
#[derive(Debug, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Spread<'a> {
    #[serde(borrow)]
    label_selector: Option<Selector<'a>>,
    #[serde(borrow)]
    match_label_keys: Option<Vec<Str<'a>>>,
    max_skew: i32,
    min_domains: Option<i32>,
    #[serde(borrow)]
    node_affinity_policy: Option<Str<'a>>,
    #[serde(borrow)]
    node_taints_policy: Option<Str<'a>>,
    #[serde(borrow)]
    topology_key: Str<'a>,
    #[serde(borrow)]
    when_unsatisfiable: Str<'a>,
}

/// `metav1.LabelSelector`, both its fields.
#[derive(Debug, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Selector<'a> {
    #[serde(borrow)]
    match_labels: Option<StrMap<'a>>,
    #[serde(borrow)]
    match_expressions: Option<Vec<Expression<'a>>>,
}

/// `metav1.LabelSelectorRequirement`.
#[derive(Debug, Deserialize)]
pub struct Expression<'a> {
    #[serde(borrow)]
    key: Str<'a>,
    #[serde(borrow)]
    operator: Str<'a>,
    #[serde(borrow)]
    values: Option<Vec<Str<'a>>>,
}

/// A volume's name and the sources conversion reads. `k8s-openapi`'s
/// `Volume` has thirty sources and was parsed whole for each of a
/// snapshot's volumes (every pod of a real cluster has a few: its service
/// account's token, config maps, secrets); the others are skipped here as
/// unknown fields are. The rare sources keep their `k8s-openapi` types, so
/// what is read of them is checked as the whole parse checks it.
#[derive(Debug, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Volume<'a> {
    #[serde(borrow)]
    name: Str<'a>,
    #[serde(borrow)]
    persistent_volume_claim: Option<ClaimSource<'a>>,
    ephemeral: Option<core::EphemeralVolumeSource>,
    gce_persistent_disk: Option<core::GCEPersistentDiskVolumeSource>,
    aws_elastic_block_store: Option<core::AWSElasticBlockStoreVolumeSource>,
    iscsi: Option<core::ISCSIVolumeSource>,
    rbd: Option<core::RBDVolumeSource>,
}

/// `v1.PersistentVolumeClaimVolumeSource`, both its fields.
#[derive(Debug, Deserialize)]
#[serde(rename_all = "camelCase")]
struct ClaimSource<'a> {
    #[serde(borrow)]
    claim_name: Str<'a>,
    #[allow(dead_code)]
    read_only: Option<bool>,
}

#[derive(Debug, Deserialize)]
struct SchedulingGate<'a> {
    #[serde(borrow)]
    name: Str<'a>,
}

#[derive(Debug, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Container<'a> {
    #[serde(borrow)]
    name: Str<'a>,
    #[serde(borrow)]
    image: Option<Str<'a>>,
    #[serde(borrow)]
    restart_policy: Option<Str<'a>>,
    lifecycle: Option<Lifecycle>,
    #[serde(borrow)]
    resources: Option<Resources<'a>>,
    #[serde(borrow)]
    ports: Option<Vec<Port<'a>>>,
}

#[derive(Debug, Deserialize)]
#[serde(rename_all = "camelCase")]
struct Lifecycle {
    pre_stop: Option<IgnoredAny>,
}

#[derive(Debug, Deserialize)]
struct Resources<'a> {
    #[serde(borrow)]
    limits: Option<StrMap<'a>>,
    #[serde(borrow)]
    requests: Option<StrMap<'a>>,
}

#[derive(Debug, Deserialize)]
#[serde(rename_all = "camelCase")]
struct Port<'a> {
    container_port: i32,
    host_port: Option<i32>,
    #[serde(rename = "hostIP", borrow)]
    host_ip: Option<Str<'a>>,
    #[serde(borrow)]
    protocol: Option<Str<'a>>,
}

#[derive(Debug, Deserialize)]
#[serde(rename_all = "camelCase")]
struct Status<'a> {
    #[serde(borrow)]
    phase: Option<Str<'a>>,
    #[serde(borrow)]
    conditions: Option<Vec<Condition<'a>>>,
    start_time: Option<Seconds>,
    #[serde(borrow)]
    nominated_node_name: Option<Str<'a>>,
    resource_claim_statuses: Option<Vec<core::PodResourceClaimStatus>>,
}

#[derive(Debug, Deserialize)]
struct Condition<'a> {
    #[serde(rename = "type", borrow)]
    type_: Str<'a>,
    #[serde(borrow)]
    status: Str<'a>,
    #[serde(borrow)]
    reason: Option<Str<'a>>,
}

impl<'a> LeanPod<'a> {
    /// Parses one JSON item lean; `None` when it is not a pod this parse
    /// accepts as `k8s-openapi` would (the caller parses it whole).
    pub fn parse(json: &'a str) -> Option<LeanPod<'a>> {
        read_v1(json, |pod: &LeanPod| opt(&pod.api_version))
    }

    /// Kind, namespace (defaulted) and name, as the loader's duplicate
    /// check keys objects.
    pub fn identity(&self) -> (&'static str, &str, &str) {
        (
            "Pod",
            opt(&self.metadata.namespace).unwrap_or("default"),
            opt(&self.metadata.name).unwrap_or(""),
        )
    }
}

impl ContainerFields for Container<'_> {
    fn name(&self) -> &str {
        self.name.get()
    }
    fn image(&self) -> Option<&str> {
        opt(&self.image)
    }
    fn restart_policy(&self) -> Option<&str> {
        opt(&self.restart_policy)
    }
    fn has_pre_stop(&self) -> bool {
        self.lifecycle
            .as_ref()
            .is_some_and(|l| l.pre_stop.is_some())
    }
    fn limits(&self) -> impl Iterator<Item = (&str, &str)> {
        self.resources.iter().flat_map(|r| pairs(&r.limits))
    }
    fn requests(&self) -> impl Iterator<Item = (&str, &str)> {
        self.resources.iter().flat_map(|r| pairs(&r.requests))
    }
    fn ports(&self) -> impl Iterator<Item = PortFields<'_>> {
        self.ports.iter().flatten().map(|p| PortFields {
            container_port: p.container_port,
            host_port: p.host_port,
            host_ip: opt(&p.host_ip),
            protocol: opt(&p.protocol),
        })
    }
}

impl TolerationFields for Toleration<'_> {
    fn key(&self) -> Option<&str> {
        opt(&self.key)
    }
    fn operator(&self) -> Option<&str> {
        opt(&self.operator)
    }
    fn value(&self) -> Option<&str> {
        opt(&self.value)
    }
    fn effect(&self) -> Option<&str> {
        opt(&self.effect)
    }
    fn toleration_seconds(&self) -> Option<i64> {
        self.toleration_seconds
    }
}

impl<'a> SelectorFields for Selector<'a> {
    type Expression = Expression<'a>;
    fn match_labels(&self) -> Option<impl Iterator<Item = (&str, &str)>> {
        Some(self.match_labels.as_ref()?.iter())
    }
    fn match_expressions(&self) -> &[Expression<'a>] {
        self.match_expressions.as_deref().unwrap_or(&[])
    }
}

impl ExpressionFields for Expression<'_> {
    fn key(&self) -> &str {
        self.key.get()
    }
    fn operator(&self) -> &str {
        self.operator.get()
    }
    fn values(&self) -> impl ExactSizeIterator<Item = &str> + Clone {
        self.values
            .as_deref()
            .unwrap_or(&[])
            .iter()
            .map(|v| v.get())
    }
}

impl<'a> SpreadFields for Spread<'a> {
    type Selector = Selector<'a>;
    fn max_skew(&self) -> i32 {
        self.max_skew
    }
    fn topology_key(&self) -> &str {
        self.topology_key.get()
    }
    fn when_unsatisfiable(&self) -> &str {
        self.when_unsatisfiable.get()
    }
    fn min_domains(&self) -> Option<i32> {
        self.min_domains
    }
    fn node_affinity_policy(&self) -> Option<&str> {
        opt(&self.node_affinity_policy)
    }
    fn node_taints_policy(&self) -> Option<&str> {
        opt(&self.node_taints_policy)
    }
    fn match_label_keys(&self) -> impl Iterator<Item = &str> {
        self.match_label_keys.iter().flatten().map(|k| k.get())
    }
    fn label_selector(&self) -> Option<&Selector<'a>> {
        self.label_selector.as_ref()
    }
}

impl VolumeFields for Volume<'_> {
    fn name(&self) -> &str {
        self.name.get()
    }
    fn claim_name(&self) -> Option<&str> {
        self.persistent_volume_claim
            .as_ref()
            .map(|c| c.claim_name.get())
    }
    fn is_ephemeral(&self) -> bool {
        self.ephemeral.is_some()
    }
    fn gce_persistent_disk(&self) -> Option<&core::GCEPersistentDiskVolumeSource> {
        self.gce_persistent_disk.as_ref()
    }
    fn aws_elastic_block_store(&self) -> Option<&core::AWSElasticBlockStoreVolumeSource> {
        self.aws_elastic_block_store.as_ref()
    }
    fn iscsi(&self) -> Option<&core::ISCSIVolumeSource> {
        self.iscsi.as_ref()
    }
    fn rbd(&self) -> Option<&core::RBDVolumeSource> {
        self.rbd.as_ref()
    }
}

impl<'a> PodFields for LeanPod<'a> {
    type Container = Container<'a>;
    type Toleration = Toleration<'a>;
    type Spread = Spread<'a>;
    type Volume = Volume<'a>;

    fn name(&self) -> Option<&str> {
        opt(&self.metadata.name)
    }
    fn generate_name(&self) -> Option<&str> {
        opt(&self.metadata.generate_name)
    }
    fn namespace(&self) -> Option<&str> {
        opt(&self.metadata.namespace)
    }
    fn uid(&self) -> Option<&str> {
        opt(&self.metadata.uid)
    }
    fn labels(&self) -> impl Iterator<Item = (&str, &str)> {
        pairs(&self.metadata.labels)
    }
    fn creation_timestamp(&self) -> Option<i64> {
        seconds(&self.metadata.creation_timestamp)
    }
    fn deletion_timestamp(&self) -> Option<i64> {
        seconds(&self.metadata.deletion_timestamp)
    }
    fn deletion_grace_period_seconds(&self) -> Option<i64> {
        self.metadata.deletion_grace_period_seconds
    }
    fn controller(&self) -> Option<(&str, &str, &str)> {
        self.metadata
            .owner_references
            .iter()
            .flatten()
            .find(|o| o.controller == Some(true))
            .map(|o| (o.api_version.get(), o.kind.get(), o.name.get()))
    }

    fn has_spec(&self) -> bool {
        self.spec.is_some()
    }
    fn containers(&self) -> &[Container<'a>] {
        self.spec.as_ref().map_or(&[], |s| &s.containers)
    }
    fn init_containers(&self) -> &[Container<'a>] {
        list_of(self.spec.as_ref(), |s| &s.init_containers)
    }
    fn overhead(&self) -> impl Iterator<Item = (&str, &str)> {
        self.spec.iter().flat_map(|s| pairs(&s.overhead))
    }
    fn pod_resources(&self) -> Option<&core::ResourceRequirements> {
        self.spec.as_ref().and_then(|s| s.resources.as_ref())
    }
    fn node_selector(&self) -> Option<impl Iterator<Item = (&str, &str)>> {
        Some(self.spec.as_ref()?.node_selector.as_ref()?.iter())
    }
    fn affinity(&self) -> Option<&core::Affinity> {
        self.spec.as_ref().and_then(|s| s.affinity.as_ref())
    }
    fn tolerations(&self) -> &[Toleration<'a>] {
        list_of(self.spec.as_ref(), |s| &s.tolerations)
    }
    fn topology_spread_constraints(&self) -> &[Spread<'a>] {
        list_of(self.spec.as_ref(), |s| &s.topology_spread_constraints)
    }
    fn volumes(&self) -> &[Volume<'a>] {
        list_of(self.spec.as_ref(), |s| &s.volumes)
    }
    fn host_network(&self) -> Option<bool> {
        self.spec.as_ref().and_then(|s| s.host_network)
    }
    fn node_name(&self) -> Option<&str> {
        self.spec.as_ref().and_then(|s| opt(&s.node_name))
    }
    fn priority(&self) -> Option<i32> {
        self.spec.as_ref().and_then(|s| s.priority)
    }
    fn priority_class_name(&self) -> Option<&str> {
        self.spec.as_ref().and_then(|s| opt(&s.priority_class_name))
    }
    fn scheduler_name(&self) -> Option<&str> {
        self.spec.as_ref().and_then(|s| opt(&s.scheduler_name))
    }
    fn preemption_policy(&self) -> Option<&str> {
        self.spec.as_ref().and_then(|s| opt(&s.preemption_policy))
    }
    fn termination_grace_period_seconds(&self) -> Option<i64> {
        self.spec
            .as_ref()
            .and_then(|s| s.termination_grace_period_seconds)
    }
    fn scheduling_gates(&self) -> impl Iterator<Item = &str> {
        self.spec
            .iter()
            .flat_map(|s| s.scheduling_gates.iter().flatten())
            .map(|g| g.name.get())
    }
    fn resource_claims(&self) -> &[core::PodResourceClaim] {
        list_of(self.spec.as_ref(), |s| &s.resource_claims)
    }

    fn phase(&self) -> Option<&str> {
        self.status.as_ref().and_then(|s| opt(&s.phase))
    }
    fn conditions(&self) -> impl Iterator<Item = (&str, &str, Option<&str>)> {
        self.status
            .iter()
            .flat_map(|s| s.conditions.iter().flatten())
            .map(|c| (c.type_.get(), c.status.get(), opt(&c.reason)))
    }
    fn start_time(&self) -> Option<i64> {
        self.status.as_ref().and_then(|s| seconds(&s.start_time))
    }
    fn nominated_node_name(&self) -> Option<&str> {
        self.status
            .as_ref()
            .and_then(|s| opt(&s.nominated_node_name))
    }
    fn resource_claim_statuses(&self) -> &[core::PodResourceClaimStatus] {
        list_of(self.status.as_ref(), |s| &s.resource_claim_statuses)
    }
}

#[cfg(test)]
mod tests {
    use super::super::lean_types::testing::{
        converts_alike, corpus_docs, items_of, synthetic_docs,
    };
    use super::*;
    use crate::source::convert::convert_pod;

    /// Converts one pod's JSON both ways and checks they agree
    /// ([`converts_alike`]); `false` when the lean parse refused it.
    fn agrees(json: &str, what: &str) -> bool {
        converts_alike::<_, core::Pod, _>(
            json,
            what,
            LeanPod::parse(json),
            convert_pod,
            convert_pod,
        )
    }

    /// Every Pod among a file's documents (in Lists too), as JSON text.
    fn pods_of(docs: Vec<serde_json::Value>) -> Vec<String> {
        items_of(docs, "Pod")
            .iter()
            .map(|pod| serde_json::to_string(pod).expect("a value serializes"))
            .collect()
    }

    #[test]
    fn lean_and_whole_conversions_agree_on_every_corpus_pod() {
        let (mut seen, mut lean) = (0, 0);
        for file in ["snapshot.yaml.gz", "snapshot.yaml", "pod.yaml"] {
            for (path, docs) in corpus_docs(file) {
                for json in pods_of(docs) {
                    seen += 1;
                    lean += agrees(&json, &path) as usize;
                }
            }
        }
        assert!(seen > 2000, "only {seen} pods in the corpus");
        // YAML's unquoted numbers (`cpu: 1`) become JSON numbers, which the
        // lean parse leaves to the whole one; nearly all pods take it.
        assert!(
            lean * 10 > seen * 9,
            "the lean parse took only {lean} of {seen} pods"
        );
    }

    /// The loader's wiring: each corpus snapshot loaded from JSON (its pods
    /// and nodes parsed lean) gives the cluster it gives from YAML (parsed
    /// whole).
    #[test]
    fn a_json_snapshot_loads_as_its_yaml_does() {
        use crate::source::file::{load_snapshot_bytes, manifest_docs, read_bytes};
        let cases =
            std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/conformance/cases");
        let mut loaded = 0;
        for case in std::fs::read_dir(&cases).expect("the corpus copy is in the repository") {
            let path = case.unwrap().path().join("snapshot.yaml.gz");
            if !path.exists() {
                continue;
            }
            let name = path.display().to_string();
            let yaml = read_bytes(&path).expect("corpus files read");
            let Ok((from_yaml, _)) = load_snapshot_bytes(&yaml, &name) else {
                continue;
            };
            let mut items = Vec::new();
            for doc in manifest_docs(&yaml, &name).expect("corpus files parse") {
                match doc.get("items").and_then(|i| i.as_array()) {
                    Some(list) => items.extend(list.iter().cloned()),
                    None => items.push(doc),
                }
            }
            let list = serde_json::json!({"apiVersion": "v1", "kind": "List", "items": items});
            let json = serde_json::to_vec(&list).expect("a value serializes");
            let (from_json, _) =
                load_snapshot_bytes(&json, &name).expect("the JSON loads as the YAML did");
            assert!(
                from_json.pods.iter().eq(from_yaml.pods.iter()),
                "{name}: pods differ"
            );
            // Nodes too are parsed lean from JSON ([`super::super::lean_node`]).
            assert!(
                from_json.nodes.iter().eq(from_yaml.nodes.iter()),
                "{name}: nodes differ"
            );
            assert!(
                from_json
                    .interner
                    .strings()
                    .eq(from_yaml.interner.strings()),
                "{name}: strings interned differently"
            );
            loaded += 1;
        }
        assert!(loaded > 500, "only {loaded} snapshots loaded");
    }

    #[test]
    fn lean_and_whole_conversions_agree_on_a_synthetic_cluster() {
        let pods = pods_of(synthetic_docs());
        assert!(pods.len() >= 6000);
        for (i, pod) in pods.iter().enumerate() {
            assert!(
                agrees(pod, &format!("synthetic pod {i}")),
                "synthetic pod {i} was refused: {pod}"
            );
        }
    }

    /// The lean JSON reader reads `json` as serde_json reads it, or gives
    /// up; `true` when it read it.
    fn read_alike(json: &str) -> bool {
        super::super::lean_json::agrees_on_objects(json)
    }

    #[test]
    fn the_lean_reader_reads_every_corpus_and_synthetic_pod_as_serde_json_does() {
        let mut pods = Vec::new();
        for (_, docs) in corpus_docs("snapshot.yaml.gz") {
            pods.extend(pods_of(docs));
        }
        let synthetic = pods_of(synthetic_docs());
        assert!(
            synthetic.iter().all(|pod| read_alike(pod)),
            "a synthetic pod was left to serde_json"
        );
        let read = pods.iter().filter(|pod| read_alike(pod)).count();
        assert!(pods.len() > 2000, "only {} corpus pods", pods.len());
        // Left to serde_json: YAML's unquoted quantities (numbers), and
        // pods the lean parse itself refuses.
        assert!(
            read * 10 > pods.len() * 9,
            "read only {read} of {} pods",
            pods.len()
        );
    }

    /// A byte changed, dropped or added anywhere in a pod: whatever the
    /// lean reader still reads, serde_json reads the same.
    #[test]
    fn a_pod_changed_anywhere_is_read_as_serde_json_reads_it_or_left_to_it() {
        let pods = pods_of(synthetic_docs());
        let mut escaped = pods[0].clone();
        escaped.insert_str(
            escaped.len() - 1,
            r#","extra":{"note":"a\"b\u00e9\\","n":[1.5e-3,-0,true,null]}"#,
        );
        let texts = [
            &pods[0],
            &pods[pods.len() / 2],
            &pods[pods.len() - 1],
            &escaped,
        ];
        let swaps: &[u8] = b"\"\\,:{}[]0-9.eE ntfa\x01\t";
        let mut state: u64 = 0x2545_f491_4f6c_dd1d;
        let mut next = |n: usize| {
            state ^= state << 13;
            state ^= state >> 7;
            state ^= state << 17;
            (state % n as u64) as usize
        };
        let (mut tried, mut read) = (0, 0);
        for _ in 0..6000 {
            let text = texts[next(texts.len())];
            let mut bytes = text.as_bytes().to_vec();
            let at = next(bytes.len());
            match next(3) {
                0 => bytes[at] = swaps[next(swaps.len())],
                1 => {
                    bytes.remove(at);
                }
                _ => bytes.insert(at, swaps[next(swaps.len())]),
            }
            let Ok(changed) = String::from_utf8(bytes) else {
                continue;
            };
            tried += 1;
            read += read_alike(&changed) as usize;
        }
        assert!(tried > 5000);
        // Most changes land in strings, which stay valid: the reader is
        // exercised, not just giving up.
        assert!(read * 4 > tried, "read only {read} of {tried}");
    }

    /// A pod with `spec` members added after its one container.
    fn pod_with(spec: &str) -> String {
        format!(
            r#"{{"apiVersion":"v1","kind":"Pod","metadata":{{"name":"web-0","namespace":"shop"}},"spec":{{"containers":[{{"name":"c"}}]{spec}}}}}"#
        )
    }

    /// Volumes are read lean whatever their source: the sources the volume
    /// plugins read convert as the whole parse converts them, and the
    /// others (a service account's projected token, config maps, empty
    /// dirs) are skipped, as a real cluster's pods all carry some.
    #[test]
    fn volumes_of_every_source_are_read_lean_and_convert_alike() {
        use crate::model::pod::{InlineDisk, PodVolume};
        let volumes = r#","volumes":[
            {"name":"data","persistentVolumeClaim":{"claimName":"data-web-0","readOnly":true}},
            {"name":"scratch","ephemeral":{"volumeClaimTemplate":{"spec":{"accessModes":["ReadWriteOnce"]}}}},
            {"name":"gce","gcePersistentDisk":{"pdName":"disk-1","readOnly":true}},
            {"name":"ebs","awsElasticBlockStore":{"volumeID":"vol-1"}},
            {"name":"iscsi","iscsi":{"targetPortal":"10.0.0.1:3260","iqn":"iqn.2024-01.x:y","lun":0}},
            {"name":"rbd","rbd":{"monitors":["m1","m2"],"image":"img"}},
            {"name":"kube-api-access-abcde","projected":{"defaultMode":420,"sources":[
                {"serviceAccountToken":{"expirationSeconds":3607,"path":"token"}},
                {"configMap":{"name":"kube-root-ca.crt","items":[{"key":"ca.crt","path":"ca.crt"}]}},
                {"downwardAPI":{"items":[{"fieldRef":{"apiVersion":"v1","fieldPath":"metadata.namespace"},"path":"namespace"}]}}]}},
            {"name":"config","configMap":{"name":"web","defaultMode":420}},
            {"name":"tmp","emptyDir":{}},
            {"name":"nothing","persistentVolumeClaim":null}
        ]"#;
        let json = pod_with(volumes);
        assert!(agrees(&json, "volumes"), "the lean parse refused: {json}");
        let pod = LeanPod::parse(&json).expect("read lean");
        let converted =
            crate::source::convert::convert_pod(&pod, &mut Default::default()).expect("converts");
        assert_eq!(
            converted.volumes.as_ref(),
            [
                PodVolume::Claim("data-web-0".into()),
                PodVolume::Ephemeral("web-0-scratch".into()),
                PodVolume::Disk(InlineDisk::GcePersistentDisk {
                    pd_name: "disk-1".into(),
                    read_only: true
                }),
                PodVolume::Disk(InlineDisk::AwsElasticBlockStore {
                    volume_id: "vol-1".into()
                }),
                PodVolume::Disk(InlineDisk::Iscsi {
                    iqn: "iqn.2024-01.x:y".into(),
                    read_only: false
                }),
                PodVolume::Disk(InlineDisk::Rbd {
                    monitors: vec!["m1".into(), "m2".into()].into(),
                    pool: "rbd".into(),
                    image: "img".into(),
                    read_only: false
                }),
            ]
        );
    }

    /// What k8s-openapi reads its own way in a volume is left to it: a
    /// null or absent required string (read as empty there), a field
    /// given twice (the later kept there), a rare source of the wrong
    /// type (an error there).
    #[test]
    fn volumes_the_lean_parse_leaves_to_the_whole_one() {
        for volumes in [
            r#","volumes":[{"name":"data","persistentVolumeClaim":{"claimName":null}}]"#,
            r#","volumes":[{"name":"data","persistentVolumeClaim":{}}]"#,
            r#","volumes":[{"persistentVolumeClaim":{"claimName":"c"}}]"#,
            r#","volumes":[{"name":"a","name":"b","emptyDir":{}}]"#,
            r#","volumes":[{"name":"e","ephemeral":[]}]"#,
            r#","volumes":[{"name":"g","gcePersistentDisk":{"pdName":7}}]"#,
        ] {
            assert!(LeanPod::parse(&pod_with(volumes)).is_none(), "{volumes}");
        }
        // The whole parse reads the first two as a claim named "".
        let json = pod_with(r#","volumes":[{"name":"data","persistentVolumeClaim":{}}]"#);
        let whole: core::Pod = serde_json::from_str(&json).expect("k8s-openapi reads it");
        let converted = convert_pod(&whole, &mut Default::default()).expect("converts");
        assert_eq!(
            converted.volumes.as_ref(),
            [crate::model::pod::PodVolume::Claim("".into())]
        );
    }

    /// Tolerations are read lean, every field, and convert (or are refused
    /// with the same error) as the whole parse's.
    #[test]
    fn tolerations_are_read_lean_and_convert_alike() {
        for tolerations in [
            r#","tolerations":[{"key":"node.kubernetes.io/not-ready","operator":"Exists","effect":"NoExecute","tolerationSeconds":300},{"operator":"Exists"},{"key":"dedicated","operator":"Equal","value":"infra","effect":"NoSchedule"},{"key":"k","value":"v"}]"#,
            // Refused by conversion, the same way both ways.
            r#","tolerations":[{"key":"k","operator":"Exists","value":"v"}]"#,
            r#","tolerations":[{"key":"k","operator":"Sometimes"}]"#,
            r#","tolerations":[{"key":"k","value":"v","tolerationSeconds":5}]"#,
            r#","tolerations":[{"value":"v"}]"#,
            r#","tolerations":[{"key":"k","effect":"NoWhere","operator":"Exists"}]"#,
            r#","tolerations":[{"key":"k","operator":null,"value":null,"effect":null,"tolerationSeconds":null}]"#,
        ] {
            let json = pod_with(tolerations);
            assert!(agrees(&json, tolerations), "the lean parse refused: {json}");
        }
        let json = pod_with(
            r#","tolerations":[{"key":"k","operator":"Exists","effect":"NoExecute","tolerationSeconds":300}]"#,
        );
        let pod = LeanPod::parse(&json).expect("read lean");
        let converted = convert_pod(&pod, &mut Default::default()).expect("converts");
        assert_eq!(converted.tolerations.len(), 1);
        assert_eq!(&*converted.tolerations[0].key, "k");
        // A toleration's fields are typed as k8s-openapi types them.
        for wrong in [
            r#","tolerations":[{"key":"k","tolerationSeconds":"300"}]"#,
            r#","tolerations":[{"key":5}]"#,
            r#","tolerations":[{"key":"a","key":"b"}]"#,
        ] {
            assert!(LeanPod::parse(&pod_with(wrong)).is_none(), "{wrong}");
        }
    }

    /// Topology spread constraints are read lean, their label selectors
    /// too, and convert (or are refused with the same error) as the
    /// whole parse's, interning the same strings in the same order.
    #[test]
    fn spread_constraints_are_read_lean_and_convert_alike() {
        let constraint = |fields: &str| {
            format!(
                r#","topologySpreadConstraints":[{{"maxSkew":1,"topologyKey":"topology.kubernetes.io/zone","whenUnsatisfiable":"DoNotSchedule"{fields}}}]"#
            )
        };
        let cases = [
            constraint(r#","labelSelector":{"matchLabels":{"b":"2","a":"1"}}"#),
            constraint(
                r#","labelSelector":{"matchExpressions":[{"key":"tier","operator":"In","values":["z","a","z"]},{"key":"x","operator":"Exists"}]}"#,
            ),
            constraint(
                r#","labelSelector":{"matchLabels":{"a":"1"},"matchExpressions":[]},"matchLabelKeys":["app","pod-template-hash"],"minDomains":3,"nodeAffinityPolicy":"Ignore","nodeTaintsPolicy":"Honor""#,
            ),
            constraint(r#","labelSelector":{}"#),
            constraint(r#","labelSelector":null,"matchLabelKeys":null,"minDomains":null"#),
            constraint(""),
            // Refused by conversion, the same way both ways.
            constraint(r#","labelSelector":{"matchExpressions":[{"key":"x","operator":"Near"}]}"#),
            constraint(r#","labelSelector":{"matchExpressions":[{"key":"x","operator":"In"}]}"#),
            constraint(r#","labelSelector":{"matchLabels":{"-bad":"1"}}"#),
            constraint(r#","nodeTaintsPolicy":"Sometimes""#),
            constraint(r#","minDomains":0"#),
            r#","topologySpreadConstraints":[{"maxSkew":0,"topologyKey":"k","whenUnsatisfiable":"DoNotSchedule"}]"#.to_string(),
            r#","topologySpreadConstraints":[{"maxSkew":1,"topologyKey":"","whenUnsatisfiable":"DoNotSchedule"}]"#.to_string(),
            r#","topologySpreadConstraints":[{"maxSkew":1,"topologyKey":"k","whenUnsatisfiable":"Maybe"}]"#.to_string(),
            r#","topologySpreadConstraints":[{"maxSkew":1,"topologyKey":"k","whenUnsatisfiable":"ScheduleAnyway","minDomains":2}]"#.to_string(),
        ];
        for spread in &cases {
            let json = pod_with(spread).replace(
                r#""namespace":"shop"}"#,
                r#""namespace":"shop","labels":{"app":"web","pod-template-hash":"6b8f"}}"#,
            );
            assert!(agrees(&json, spread), "the lean parse refused: {json}");
        }
        // What k8s-openapi reads its own way is left to it: a required
        // field absent or null (read as zero or empty there), a field
        // given twice, a selector of the wrong shape.
        for wrong in [
            r#","topologySpreadConstraints":[{"topologyKey":"k","whenUnsatisfiable":"DoNotSchedule"}]"#,
            r#","topologySpreadConstraints":[{"maxSkew":null,"topologyKey":"k","whenUnsatisfiable":"DoNotSchedule"}]"#,
            r#","topologySpreadConstraints":[{"maxSkew":1,"whenUnsatisfiable":"DoNotSchedule"}]"#,
            r#","topologySpreadConstraints":[{"maxSkew":1,"topologyKey":"k","topologyKey":"j","whenUnsatisfiable":"DoNotSchedule"}]"#,
            r#","topologySpreadConstraints":[{"maxSkew":1,"topologyKey":"k","whenUnsatisfiable":"DoNotSchedule","labelSelector":{"matchLabels":["a"]}}]"#,
            r#","topologySpreadConstraints":[{"maxSkew":1,"topologyKey":"k","whenUnsatisfiable":"DoNotSchedule","labelSelector":{"matchExpressions":[{"operator":"Exists"}]}}]"#,
        ] {
            assert!(LeanPod::parse(&pod_with(wrong)).is_none(), "{wrong}");
        }
    }

    #[test]
    fn what_the_lean_parse_leaves_to_the_whole_one() {
        let pod = |extra: &str| {
            format!(
                r#"{{"apiVersion":"v1","kind":"Pod","metadata":{{"name":"p"}},"spec":{{"containers":[{{"name":"c"{extra}}}]}}}}"#
            )
        };
        assert!(LeanPod::parse(&pod("")).is_some());
        // A quantity written as a number, which k8s-openapi takes.
        assert!(LeanPod::parse(&pod(r#","resources":{"requests":{"cpu":1}}"#)).is_none());
        // A field given twice (k8s-openapi keeps the later).
        assert!(LeanPod::parse(&pod(r#","image":"a","image":"b""#)).is_none());
        // Another API version, which k8s-openapi refuses.
        let v2 = pod("").replace(r#""apiVersion":"v1""#, r#""apiVersion":"v2""#);
        assert!(LeanPod::parse(&v2).is_none());
        // A string with an escape is left to the whole parse, which
        // decodes it.
        let escaped = pod(r#","image":"reg\/app:1""#);
        assert!(LeanPod::parse(&escaped).is_none());
        let whole: core::Pod = serde_json::from_str(&escaped).expect("k8s-openapi reads it");
        let mut interner = Default::default();
        convert_pod(&whole, &mut interner).expect("converts");
        assert!(interner.strings().any(|s| s.ends_with("reg/app:1")));
        // A label given twice keeps its later value, as a BTreeMap does.
        let twice = pod("").replace(
            r#""name":"p"}"#,
            r#""name":"p","labels":{"b":"1","a":"x","b":"2"}}"#,
        );
        assert!(agrees(&twice, "label twice"));
    }
}
