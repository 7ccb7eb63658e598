//! InterPodAffinity's Filter through the engine.

use crate::support::prelude::*;
use crate::support::{cluster_from_yaml, pod_from_yaml};
use kplace::engine;

/// `guard-b`, bound on n2, keeps `app=w` pods off its host; `guard-a`,
/// pending and nominated to n1 with a higher priority, keeps them out of
/// its zone, a key no bound pod's term uses.
const NOMINATED_ANTI_AFFINITY: &str = r#"
apiVersion: v1
kind: List
items:
- {apiVersion: scheduling.k8s.io/v1, kind: PriorityClass, metadata: {name: high}, value: 1000}
- {apiVersion: v1, kind: Node, metadata: {name: n1, labels: {kubernetes.io/hostname: n1, topology.kubernetes.io/zone: a}}, status: {allocatable: {cpu: "8", memory: 8Gi, pods: "10"}}}
- {apiVersion: v1, kind: Node, metadata: {name: n2, labels: {kubernetes.io/hostname: n2, topology.kubernetes.io/zone: b}}, status: {allocatable: {cpu: "8", memory: 8Gi, pods: "10"}}}
- {apiVersion: v1, kind: Node, metadata: {name: n3, labels: {kubernetes.io/hostname: n3, topology.kubernetes.io/zone: a}}, status: {allocatable: {cpu: "8", memory: 8Gi, pods: "10"}}}
- {apiVersion: v1, kind: Pod, metadata: {name: guard-b, namespace: d, labels: {app: guard}}, spec: {nodeName: n2, affinity: {podAntiAffinity: {requiredDuringSchedulingIgnoredDuringExecution: [{topologyKey: kubernetes.io/hostname, labelSelector: {matchLabels: {app: w}}}]}}, containers: [{name: c, image: i}]}, status: {phase: Running}}
- {apiVersion: v1, kind: Pod, metadata: {name: guard-a, namespace: d, labels: {app: guard}}, spec: {priorityClassName: high, priority: 1000, affinity: {podAntiAffinity: {requiredDuringSchedulingIgnoredDuringExecution: [{topologyKey: topology.kubernetes.io/zone, labelSelector: {matchLabels: {app: w}}}]}}, containers: [{name: c, image: i}]}, status: {phase: Pending, nominatedNodeName: n1}}
"#;

#[test]
fn a_nominated_pods_anti_affinity_on_a_key_no_bound_pod_uses_still_rejects() {
    let mut cluster = cluster_from_yaml(NOMINATED_ANTI_AFFINITY);
    let pod = pod_from_yaml(
        "apiVersion: v1\nkind: Pod\nmetadata: {name: w, namespace: d, labels: {app: w}}\nspec: {containers: [{name: c, image: i}]}\n",
        &mut cluster,
    );
    let answer = engine::place(&cluster, &pod, &engine::Scheduler::default());
    assert_eq!(answer.outcome, Outcome::Scheduled);
    assert_eq!(answer.node, cluster.node_id("n3"), "{answer:?}");
    let rejected: Vec<(String, String)> = answer
        .failures
        .iter()
        .map(|f| {
            (
                cluster.node(f.node).name.to_string(),
                f.rejection.reasons.join("; "),
            )
        })
        .collect();
    let existing = "node(s) didn't satisfy existing pods anti-affinity rules".to_string();
    assert_eq!(
        rejected,
        vec![
            ("n1".to_string(), existing.clone()),
            ("n2".to_string(), existing)
        ]
    );
}
