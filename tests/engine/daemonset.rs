use crate::support::prelude::*;
use kplace::engine::Scheduler;
use kplace::engine::daemonset::*;
use kplace::model::NodeId;
use kplace::source::file::{load_manifest_bytes, load_snapshot_bytes};

const NODES: &str = "apiVersion: v1\nkind: List\nitems:\n- {apiVersion: v1, kind: Node, metadata: {name: a, labels: {pool: web}}, status: {allocatable: {cpu: '2', memory: 4Gi, pods: '110'}}}\n- {apiVersion: v1, kind: Node, metadata: {name: b, labels: {pool: web}}, spec: {taints: [{key: dedicated, value: gpu, effect: NoSchedule}]}, status: {allocatable: {cpu: '2', memory: 4Gi, pods: '110'}}}\n- {apiVersion: v1, kind: Node, metadata: {name: c, labels: {pool: db}}, status: {allocatable: {cpu: '2', memory: 4Gi, pods: '110'}}}\n- {apiVersion: v1, kind: Node, metadata: {name: d, labels: {pool: web}}, spec: {unschedulable: true, taints: [{key: node.kubernetes.io/unschedulable, effect: NoSchedule}]}, status: {allocatable: {cpu: '500m', memory: 4Gi, pods: '110'}}}\n";

const DS: &str = "apiVersion: apps/v1\nkind: DaemonSet\nmetadata: {name: agent, namespace: kube-system}\nspec:\n  selector: {matchLabels: {app: agent}}\n  template:\n    metadata: {labels: {app: agent}}\n    spec:\n      nodeSelector: {pool: web}\n      containers: [{name: a, resources: {requests: {cpu: '1'}}}]\n";

fn setup() -> (Cluster, Pod) {
    let (mut cluster, _) = load_snapshot_bytes(NODES.as_bytes(), "nodes.yaml").unwrap();
    let m = load_manifest_bytes(DS.as_bytes(), "ds.yaml", &mut cluster.interner, None).unwrap();
    (cluster, m.pod)
}

#[test]
fn eligible_nodes_are_those_the_selector_and_taints_admit() {
    let (cluster, pod) = setup();
    let e = eligibility(&cluster, &pod);
    let names = |ids: &[NodeId]| -> Vec<String> {
        ids.iter()
            .map(|&n| cluster.node(n).name.to_string())
            .collect()
    };
    // d is cordoned: the daemon pods tolerate node.kubernetes.io/unschedulable.
    assert_eq!(names(&e.eligible), ["a", "d"]);
    let why: Vec<(String, String)> = e
        .not_eligible
        .iter()
        .map(|(n, w)| (cluster.node(*n).name.to_string(), w.clone()))
        .collect();
    assert_eq!(why[0].0, "b");
    assert!(
        why[0].1.contains("untolerated taint {dedicated: gpu}"),
        "{why:?}"
    );
    assert_eq!(why[1].0, "c");
    assert!(why[1].1.contains("node selector"), "{why:?}");
}

#[test]
fn each_pinned_pod_is_asked_about_on_its_own_node() {
    let (cluster, pod) = setup();
    let scheduler = Scheduler::default();
    let d = place_daemon_pods(&cluster, &pod, &scheduler);
    assert_eq!(d.plan.steps.len(), 2);
    let a = &d.plan.steps[0].placement;
    assert_eq!(a.outcome, Outcome::Scheduled);
    assert_eq!(cluster.node(a.node.unwrap()).name.as_ref(), "a");
    // Only its own node is a candidate: d's 500m cannot hold 1 CPU, and
    // no other node may take the pod instead.
    let on_d = &d.plan.steps[1].placement;
    assert_eq!(on_d.outcome, Outcome::Unschedulable);
    assert!(
        on_d.message.contains("Insufficient cpu"),
        "{}",
        on_d.message
    );
    assert_eq!(d.plan.first_unplaceable, Some(2));
    assert!(!all_placed(&d));
    // Named as the controller names them: `<ds>-<5 chars>`, all distinct.
    let names: Vec<&str> = d.plan.steps.iter().map(|s| s.name.as_str()).collect();
    assert_ne!(names[0], names[1]);
    for n in names {
        let suffix = n.strip_prefix("agent-").unwrap();
        assert_eq!(suffix.len(), 5, "{n}");
    }
}

#[test]
fn pinning_replaces_required_affinity_and_keeps_the_rest() {
    let (_, pod) = setup();
    let p = pinned(&pod, "a", "agent-x");
    let req = p.node_affinity.as_ref().unwrap().required.as_ref().unwrap();
    assert_eq!(req.len(), 1);
    assert_eq!(req[0].fields[0].name.as_ref(), "a");
    assert!(!req[0].fields[0].not_in);
    assert!(p.node_selector.is_some(), "the nodeSelector stays");
}
