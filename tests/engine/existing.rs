//! A bound pod's answer "if it were rescheduled" is computed on a fork of
//! the cluster that shares every untouched pod and node with it: the fork
//! must answer as a cluster that never held the pod, and the cluster itself
//! must not change.

use crate::support::cluster_from_yaml;
use crate::support::prelude::*;
use kplace::engine::{ExistingQuestion, Scheduler, place};

/// Two nodes of 15 CPUs, each full with 150 pods of 100m; `without` leaves
/// one pod of the second node out. The pods of the second node come after
/// the first node's, past the first chunks a fork shares.
fn full_cluster(without: Option<&str>) -> String {
    let mut yaml = String::from("apiVersion: v1\nkind: List\nitems:\n");
    for node in ["node-a", "node-b"] {
        yaml.push_str(&format!(
            "- apiVersion: v1\n  kind: Node\n  metadata:\n    name: {node}\n    labels:\n      kubernetes.io/hostname: {node}\n  status:\n    allocatable:\n      cpu: \"15\"\n      memory: 64Gi\n      pods: \"200\"\n"
        ));
    }
    for node in ["node-a", "node-b"] {
        for i in 0..150 {
            let name = format!("{node}-web-{i}");
            if Some(name.as_str()) == without {
                continue;
            }
            yaml.push_str(&format!(
                "- apiVersion: v1\n  kind: Pod\n  metadata:\n    name: {name}\n    namespace: shop\n    labels:\n      app: web\n  spec:\n    nodeName: {node}\n    containers:\n    - name: app\n      image: web:1\n      resources:\n        requests:\n          cpu: 100m\n  status:\n    phase: Running\n"
            ));
        }
    }
    yaml
}

fn pod_named(cluster: &Cluster, name: &str) -> kplace::model::PodId {
    let i = cluster.pods.iter().position(|p| &*p.name == name);
    i.expect("the pod is in the snapshot") as kplace::model::PodId
}

#[test]
fn a_rescheduled_pod_answers_as_in_a_cluster_without_it_and_leaves_the_cluster_alone() {
    let chosen = "node-b-web-140";
    let cluster = cluster_from_yaml(&full_cluster(None));
    let id = pod_named(&cluster, chosen);
    let node_b = cluster.node_id("node-b").expect("node-b");
    let before = cluster.node_infos[node_b as usize].clone();
    assert_eq!(before.pods.len(), 150);

    let asked = ExistingQuestion::new(&cluster, id);
    let answer = place(&asked.cluster, &asked.pod, &Scheduler::default());
    // Both nodes are full with the pod counted; without it node-b has room.
    assert_eq!(answer.outcome, Outcome::Scheduled, "{}", answer.message);
    assert_eq!(answer.node, Some(node_b));
    assert_eq!(answer.feasible, vec![node_b]);
    assert_eq!(asked.cluster.node_infos[node_b as usize].pods.len(), 149);

    // The same answer as a cluster built without the pod.
    let mut rebuilt = cluster_from_yaml(&full_cluster(Some(chosen)));
    let pod = crate::support::pod_from_yaml(
        "apiVersion: v1\nkind: Pod\nmetadata:\n  name: x\n  namespace: shop\n  labels:\n    app: web\nspec:\n  containers:\n  - name: app\n    image: web:1\n    resources:\n      requests:\n        cpu: 100m\n",
        &mut rebuilt,
    );
    let fresh = place(&rebuilt, &pod, &Scheduler::default());
    assert_eq!(
        (
            fresh.outcome,
            fresh.node.map(|n| rebuilt.node(n).name.to_string())
        ),
        (answer.outcome, Some("node-b".to_string()))
    );
    assert_eq!(fresh.failures.len(), answer.failures.len());

    // The cluster the fork came from still holds the pod on node-b.
    drop(asked);
    assert_eq!(cluster.pod(id).node, Some(node_b));
    assert_eq!(cluster.node_infos[node_b as usize].pods, before.pods);
    assert_eq!(
        cluster.node_infos[node_b as usize].requested,
        before.requested
    );
    // ...and so, with the pod still counted, nothing has room for it.
    let pod = ExistingQuestion::new(&cluster, id).pod;
    let unchanged = place(&cluster, &pod, &Scheduler::default());
    assert!(unchanged.feasible.is_empty());
}
