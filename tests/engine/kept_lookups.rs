//! What spreading and NodeAffinity read of the nodes (each node's value
//! of a key, the owners of a namespace) is kept with the cluster between
//! placements. A placement after the nodes or owners change must answer
//! as a cluster loaded fresh with the change does, whether the change was
//! written in place (the cluster the only owner of its nodes), through the
//! live model's upsert, or to a fork.

use std::sync::Arc;

use crate::support::{cluster_from_yaml, pod_from_yaml};
use kplace::engine::{Placement, Scheduler, place};
use kplace::model::Cluster;
use kplace::model::labels::Labels;

/// Three nodes in two zones; n1 and n3 are in pool x. A web pod runs on n1.
fn nodes(n3_pool: &str, service: bool) -> String {
    let service = if service {
        "- {apiVersion: v1, kind: Service, metadata: {name: web, namespace: d}, spec: {selector: {app: web}}}"
    } else {
        ""
    };
    format!(
        r#"
apiVersion: v1
kind: List
items:
- {{apiVersion: v1, kind: Node, metadata: {{name: n1, labels: {{kubernetes.io/hostname: n1, topology.kubernetes.io/zone: a, pool: x}}}}, status: {{allocatable: {{cpu: "8", memory: 8Gi, pods: "20"}}}}}}
- {{apiVersion: v1, kind: Node, metadata: {{name: n2, labels: {{kubernetes.io/hostname: n2, topology.kubernetes.io/zone: b, pool: y}}}}, status: {{allocatable: {{cpu: "8", memory: 8Gi, pods: "20"}}}}}}
- {{apiVersion: v1, kind: Node, metadata: {{name: n3, labels: {{kubernetes.io/hostname: n3, topology.kubernetes.io/zone: b, pool: {n3_pool}}}}}, status: {{allocatable: {{cpu: "8", memory: 8Gi, pods: "20"}}}}}}
- {{apiVersion: v1, kind: Pod, metadata: {{name: w1, namespace: d, labels: {{app: web}}}}, spec: {{nodeName: n1, containers: [{{name: c, image: i}}]}}, status: {{phase: Running}}}}
{service}
"#
    )
}

/// In pool x, spread over zones with a skew of at most 1: zone b counts
/// only while a pool-x node is in it (nodeAffinityPolicy Honor).
const SPREAD_IN_POOL: &str = r#"
apiVersion: v1
kind: Pod
metadata: {name: new, namespace: d, labels: {app: web}}
spec:
  nodeSelector: {pool: x}
  topologySpreadConstraints:
  - {maxSkew: 1, topologyKey: topology.kubernetes.io/zone, whenUnsatisfiable: DoNotSchedule, labelSelector: {matchLabels: {app: web}}}
  containers: [{name: c, image: i, resources: {requests: {cpu: 100m}}}]
"#;

/// No constraints of its own: the system default spreading selects by the
/// Services of the pod.
const DEFAULT_SPREAD: &str = r#"
apiVersion: v1
kind: Pod
metadata: {name: new, namespace: d, labels: {app: web}}
spec:
  containers: [{name: c, image: i, resources: {requests: {cpu: 100m}}}]
"#;

/// What an answer says about every node, by name.
fn summary(c: &Cluster, a: &Placement) -> String {
    let name = |id: u32| c.node(id).name.to_string();
    let failures: Vec<String> = a
        .failures
        .iter()
        .map(|f| format!("{}: {:?}", name(f.node), f.rejection.reasons))
        .collect();
    let scores: Vec<String> = a
        .scores
        .iter()
        .map(|s| format!("{} {:?}", name(s.node), s.plugins))
        .collect();
    format!(
        "{:?} on {:?}; failures {failures:?}; scores {scores:?}",
        a.outcome,
        a.node.map(name)
    )
}

fn answer(c: &mut Cluster, pod: &str) -> String {
    let pod = pod_from_yaml(pod, c);
    let a = place(c, &pod, &Scheduler::default());
    summary(c, &a)
}

/// n3's labels with pool set to `pool`.
fn relabeled_n3(c: &mut Cluster, pool: &str) -> Labels {
    let (key, value) = (c.interner.intern("pool"), c.interner.intern(pool));
    let mut pairs: Vec<_> = c.node(2).labels.iter().filter(|p| p.0 != key).collect();
    pairs.push((key, value));
    Labels::new(pairs)
}

#[test]
fn a_node_relabeled_in_place_is_read_anew() {
    let mut c = cluster_from_yaml(&nodes("x", false));
    let before = answer(&mut c, SPREAD_IN_POOL);
    assert!(before.contains("on Some(\"n3\")"), "{before}");
    // n3 leaves pool x: zone b no longer counts, so n1 fits the skew.
    let labels = relabeled_n3(&mut c, "y");
    c.nodes[2].labels = labels;
    let mut fresh = cluster_from_yaml(&nodes("y", false));
    let expected = answer(&mut fresh, SPREAD_IN_POOL);
    assert!(expected.contains("on Some(\"n1\")"), "{expected}");
    assert_eq!(answer(&mut c, SPREAD_IN_POOL), expected);
}

#[test]
fn a_node_upserted_by_the_live_model_is_read_anew() {
    let mut c = cluster_from_yaml(&nodes("y", false));
    c.index_pod_keys();
    let before = answer(&mut c, SPREAD_IN_POOL);
    assert!(before.contains("on Some(\"n1\")"), "{before}");
    let mut n3 = c.node(2).clone();
    n3.labels = relabeled_n3(&mut c, "x");
    c.upsert_node(n3);
    let mut fresh = cluster_from_yaml(&nodes("x", false));
    assert_eq!(
        answer(&mut c, SPREAD_IN_POOL),
        answer(&mut fresh, SPREAD_IN_POOL)
    );
}

#[test]
fn a_fork_with_other_nodes_does_not_read_its_parents() {
    let mut c = cluster_from_yaml(&nodes("x", false));
    let parent_before = answer(&mut c, SPREAD_IN_POOL);
    let mut fork = c.clone();
    let labels = relabeled_n3(&mut fork, "y");
    fork.nodes[2].labels = labels;
    let mut fresh = cluster_from_yaml(&nodes("y", false));
    assert_eq!(
        answer(&mut fork, SPREAD_IN_POOL),
        answer(&mut fresh, SPREAD_IN_POOL)
    );
    // And the parent still answers for its own nodes.
    assert_eq!(answer(&mut c, SPREAD_IN_POOL), parent_before);
}

#[test]
fn owners_changed_in_place_are_read_anew() {
    let mut c = cluster_from_yaml(&nodes("x", true));
    let with_service = answer(&mut c, DEFAULT_SPREAD);
    let mut fresh = cluster_from_yaml(&nodes("x", false));
    let without_service = answer(&mut fresh, DEFAULT_SPREAD);
    assert_ne!(
        with_service, without_service,
        "the Service's selector spreads the pod"
    );
    // The cluster is the owners' only holder: make_mut writes in place.
    Arc::make_mut(&mut c.owners).clear();
    assert_eq!(answer(&mut c, DEFAULT_SPREAD), without_service);
}

/// A pod whose preferred anti-affinity names `extra` made-up topology keys
/// (no node has them) before the hostname: past the keys a placement reads
/// through columns, the rest are read from the nodes' labels, with the
/// same scores.
fn anti_affinity_pod(extra: usize) -> String {
    let mut terms: Vec<String> = (0..extra)
        .map(|i| {
            format!(
                "      - {{weight: 10, podAffinityTerm: {{topologyKey: made-up-{i}, labelSelector: {{matchLabels: {{app: web}}}}}}}}"
            )
        })
        .collect();
    terms.push(
        "      - {weight: 50, podAffinityTerm: {topologyKey: kubernetes.io/hostname, labelSelector: {matchLabels: {app: web}}}}".into(),
    );
    format!(
        r#"
apiVersion: v1
kind: Pod
metadata: {{name: new, namespace: d, labels: {{app: web}}}}
spec:
  affinity:
    podAntiAffinity:
      preferredDuringSchedulingIgnoredDuringExecution:
{}
  containers: [{{name: c, image: i, resources: {{requests: {{cpu: 100m}}}}}}]
"#,
        terms.join("\n")
    )
}

#[test]
fn a_pod_naming_more_topology_keys_than_columns_scores_the_same() {
    let mut c = cluster_from_yaml(&nodes("x", false));
    let one_key = answer(&mut c, &anti_affinity_pod(0));
    // n1 holds the web pod: the hostname term puts it last.
    assert!(!one_key.contains("on Some(\"n1\")"), "{one_key}");
    for extra in [15, 16, 40] {
        assert_eq!(
            answer(&mut c, &anti_affinity_pod(extra)),
            one_key,
            "{extra} made-up keys first"
        );
    }
}
