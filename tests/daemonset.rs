//! A DaemonSet as the incoming workload: one pod pinned to every node the
//! DaemonSet controller would run one on, each answered for.

use std::path::Path;
use std::process::{Command, Output};

use serde_json::Value;

/// Nodes: `a` fits; `b` has a taint the daemon pod does not tolerate; `c`
/// is outside the nodeSelector; `d` is cordoned (the controller's
/// unschedulable toleration lets a pod go there) and full of a low-priority
/// pod, so the daemon pod preempts it; `e` is too small for the pod.
const SNAPSHOT: &str = "apiVersion: v1
kind: List
items:
- {apiVersion: scheduling.k8s.io/v1, kind: PriorityClass, metadata: {name: node-agent}, value: 100000}
- {apiVersion: v1, kind: Node, metadata: {name: a, labels: {pool: web, kubernetes.io/hostname: a}}, status: {allocatable: {cpu: '2', memory: 4Gi, pods: '110'}}}
- {apiVersion: v1, kind: Node, metadata: {name: b, labels: {pool: web, kubernetes.io/hostname: b}}, spec: {taints: [{key: dedicated, value: gpu, effect: NoSchedule}]}, status: {allocatable: {cpu: '2', memory: 4Gi, pods: '110'}}}
- {apiVersion: v1, kind: Node, metadata: {name: c, labels: {pool: db, kubernetes.io/hostname: c}}, status: {allocatable: {cpu: '2', memory: 4Gi, pods: '110'}}}
- {apiVersion: v1, kind: Node, metadata: {name: d, labels: {pool: web, kubernetes.io/hostname: d}}, spec: {unschedulable: true, taints: [{key: node.kubernetes.io/unschedulable, effect: NoSchedule}]}, status: {allocatable: {cpu: '1', memory: 4Gi, pods: '110'}}}
- {apiVersion: v1, kind: Node, metadata: {name: e, labels: {pool: web, kubernetes.io/hostname: e}}, status: {allocatable: {cpu: 300m, memory: 4Gi, pods: '110'}}}
- {apiVersion: v1, kind: Pod, metadata: {name: batch-1, namespace: jobs, uid: u1}, spec: {nodeName: d, priority: 0, containers: [{name: c, resources: {requests: {cpu: 800m}}}]}, status: {phase: Running}}
";

const DS: &str = "apiVersion: apps/v1
kind: DaemonSet
metadata: {name: agent, namespace: kube-system}
spec:
  selector: {matchLabels: {app: agent}}
  template:
    metadata: {labels: {app: agent}}
    spec:
      priorityClassName: node-agent
      nodeSelector: {pool: web}
      containers: [{name: a, image: agent, resources: {requests: {cpu: 500m}}}]
";

fn kplace(dir: &Path, extra: &[&str]) -> Output {
    std::fs::write(dir.join("snap.yaml"), SNAPSHOT).unwrap();
    std::fs::write(dir.join("ds.yaml"), DS).unwrap();
    Command::new(env!("CARGO_BIN_EXE_kplace"))
        .args(["place", "--snapshot"])
        .arg(dir.join("snap.yaml"))
        .arg("--pod")
        .arg(dir.join("ds.yaml"))
        .args(["--remedies", "none"])
        .args(extra)
        .output()
        .unwrap()
}

#[test]
fn every_eligible_node_gets_its_pinned_pod_answered() {
    let dir = tempfile::tempdir().unwrap();
    let out = kplace(dir.path(), &["-o", "json"]);
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let v: Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(v["workload"]["kind"], "DaemonSet");
    assert_eq!(v["eligibleNodes"], 3);
    let pods = v["pods"].as_array().unwrap();
    let per_node: Vec<(&str, &str)> = pods
        .iter()
        .map(|p| {
            (
                p["pinnedTo"].as_str().unwrap(),
                p["outcome"].as_str().unwrap(),
            )
        })
        .collect();
    assert_eq!(
        per_node,
        [("a", "scheduled"), ("d", "preempt"), ("e", "unschedulable")]
    );
    // Each lands on its own node, or nowhere.
    assert_eq!(pods[0]["node"], "a");
    assert_eq!(pods[1]["preemption"]["node"], "d");
    assert_eq!(
        pods[1]["preemption"]["victims"],
        serde_json::json!(["jobs/batch-1"])
    );
    assert!(pods[2]["node"].is_null());
    let why = pods[2]["message"].as_str().unwrap();
    assert!(why.contains("Insufficient cpu"), "{why}");
    // The other nodes never see the pinned pod as a candidate.
    assert!(!why.contains("untolerated taint"), "{why}");
    // Named as the DaemonSet controller names its pods.
    let mut names: Vec<&str> = pods.iter().map(|p| p["name"].as_str().unwrap()).collect();
    for n in &names {
        let suffix = n.strip_prefix("agent-").expect("agent-<5>");
        assert_eq!(suffix.len(), 5, "{n}");
        assert!(
            suffix
                .bytes()
                .all(|b| b"bcdfghjklmnpqrstvwxz2456789".contains(&b)),
            "{n}"
        );
    }
    names.dedup();
    assert_eq!(names.len(), 3);
    let skipped: Vec<(&str, &str)> = v["notEligible"]
        .as_array()
        .unwrap()
        .iter()
        .map(|n| (n["node"].as_str().unwrap(), n["reason"].as_str().unwrap()))
        .collect();
    assert_eq!(skipped.len(), 2);
    assert_eq!(skipped[0].0, "b");
    assert!(
        skipped[0].1.contains("untolerated taint {dedicated: gpu}"),
        "{skipped:?}"
    );
    assert_eq!(skipped[1].0, "c");
    assert!(skipped[1].1.contains("node selector"), "{skipped:?}");
}

#[test]
fn the_table_names_each_node_its_outcome_and_why() {
    let dir = tempfile::tempdir().unwrap();
    let out = kplace(dir.path(), &[]);
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(
        text.contains("Workload: DaemonSet kube-system/agent, 3 pods (one pod per eligible node"),
        "{text}"
    );
    let row = |node: &str| {
        text.lines()
            .find(|l| l.starts_with("agent-") && l.split_whitespace().nth(1) == Some(node))
            .unwrap_or_else(|| panic!("no row for {node}:\n{text}"))
            .to_string()
    };
    assert!(row("a").contains("scheduled"), "{text}");
    assert!(
        row("d").contains("preempt") && row("d").contains("jobs/batch-1"),
        "{text}"
    );
    assert!(row("e").contains("Insufficient cpu"), "{text}");
    assert!(
        text.contains("  b: untolerated taint {dedicated: gpu}"),
        "{text}"
    );
    assert!(
        text.contains("2 of 3 daemon pods placed (1 by preemption); 3 of 5 nodes eligible."),
        "{text}"
    );
    // --fail-on looks at every daemon pod.
    let out = kplace(dir.path(), &["--fail-on", "unschedulable"]);
    assert_eq!(out.status.code(), Some(3));
    // --replicas means nothing for a DaemonSet.
    let out = kplace(dir.path(), &["--replicas", "2"]);
    assert_eq!(out.status.code(), Some(2));
    assert!(
        String::from_utf8_lossy(&out.stderr)
            .contains("one pod per eligible node; --replicas does not apply"),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
}
