//! `kplace place --replicas max` (how many more fit) and the remedies in
//! `place`'s output formats (`--remedies none` turns them off).

use std::path::Path;
use std::process::{Command, Output};

use serde_json::Value;

fn kplace(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_kplace"))
        .args(args)
        .output()
        .expect("runs")
}

fn json_of(out: &Output) -> Value {
    assert!(
        out.status.success(),
        "stderr: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    serde_json::from_slice(&out.stdout).expect("stdout is JSON")
}

/// Three zones of two 2-CPU nodes, zone `a` already holding two `web`
/// pods and a low-priority filler on each node; a PriorityClass above it.
const SNAPSHOT: &str = r#"apiVersion: v1
kind: List
items:
- {apiVersion: scheduling.k8s.io/v1, kind: PriorityClass, metadata: {name: high}, value: 1000}
- {apiVersion: v1, kind: Node, metadata: {name: a1, labels: {kubernetes.io/hostname: a1, topology.kubernetes.io/zone: a}}, status: {allocatable: {cpu: "2", memory: 8Gi, pods: "20"}}}
- {apiVersion: v1, kind: Node, metadata: {name: a2, labels: {kubernetes.io/hostname: a2, topology.kubernetes.io/zone: a}}, status: {allocatable: {cpu: "2", memory: 8Gi, pods: "20"}}}
- {apiVersion: v1, kind: Node, metadata: {name: b1, labels: {kubernetes.io/hostname: b1, topology.kubernetes.io/zone: b}}, status: {allocatable: {cpu: "2", memory: 8Gi, pods: "20"}}}
- {apiVersion: v1, kind: Node, metadata: {name: b2, labels: {kubernetes.io/hostname: b2, topology.kubernetes.io/zone: b}}, status: {allocatable: {cpu: "2", memory: 8Gi, pods: "20"}}}
- {apiVersion: v1, kind: Node, metadata: {name: c1, labels: {kubernetes.io/hostname: c1, topology.kubernetes.io/zone: c}}, status: {allocatable: {cpu: "2", memory: 8Gi, pods: "20"}}}
- {apiVersion: v1, kind: Node, metadata: {name: c2, labels: {kubernetes.io/hostname: c2, topology.kubernetes.io/zone: c}}, status: {allocatable: {cpu: "2", memory: 8Gi, pods: "20"}}}
- {apiVersion: v1, kind: Pod, metadata: {name: web-1, namespace: default, labels: {app: web}}, spec: {nodeName: a1, priority: 0, containers: [{name: c, image: x, resources: {requests: {cpu: 500m}}}]}, status: {phase: Running}}
- {apiVersion: v1, kind: Pod, metadata: {name: web-2, namespace: default, labels: {app: web}}, spec: {nodeName: a2, priority: 0, containers: [{name: c, image: x, resources: {requests: {cpu: 500m}}}]}, status: {phase: Running}}
- {apiVersion: v1, kind: Pod, metadata: {name: fill-b1, namespace: default}, spec: {nodeName: b1, priority: 0, containers: [{name: c, image: x, resources: {requests: {cpu: "1"}}}]}, status: {phase: Running}}
- {apiVersion: v1, kind: Pod, metadata: {name: fill-c1, namespace: default}, spec: {nodeName: c1, priority: 0, containers: [{name: c, image: x, resources: {requests: {cpu: "1"}}}]}, status: {phase: Running}}
- {apiVersion: v1, kind: Pod, metadata: {name: fill-b2, namespace: default}, spec: {nodeName: b2, priority: 0, containers: [{name: c, image: x, resources: {requests: {cpu: "1"}}}]}, status: {phase: Running}}
- {apiVersion: v1, kind: Pod, metadata: {name: fill-c2, namespace: default}, spec: {nodeName: c2, priority: 0, containers: [{name: c, image: x, resources: {requests: {cpu: "1"}}}]}, status: {phase: Running}}
"#;

const POD: &str = r#"apiVersion: v1
kind: Pod
metadata: {name: web-new, namespace: default, labels: {app: web}}
spec:
  containers: [{name: c, image: x, resources: {requests: {cpu: 500m}}}]
  topologySpreadConstraints:
  - {maxSkew: 1, topologyKey: topology.kubernetes.io/zone, whenUnsatisfiable: DoNotSchedule, labelSelector: {matchLabels: {app: web}}}
"#;

fn files(dir: &Path) -> (String, String) {
    let snapshot = dir.join("snapshot.yaml");
    let pod = dir.join("pod.yaml");
    std::fs::write(&snapshot, SNAPSHOT).unwrap();
    std::fs::write(&pod, POD).unwrap();
    (snapshot.display().to_string(), pod.display().to_string())
}

#[test]
fn replicas_max_counts_what_replicas_n_places_and_respects_the_spread() {
    let dir = tempfile::tempdir().unwrap();
    let (snapshot, pod) = files(dir.path());
    for class in [None, Some("high")] {
        let mut args = vec![
            "place",
            "--snapshot",
            &snapshot,
            "--pod",
            &pod,
            "--replicas",
            "max",
            "-o",
            "json",
        ];
        if let Some(c) = class {
            args.extend(["--priority-class", c]);
        }
        let capacity = json_of(&kplace(&args));
        let with = &capacity["capacity"]["withPreemption"];
        let without = &capacity["capacity"]["withoutPreemption"];
        let k = with["count"].as_u64().unwrap() as usize;
        assert!(k > 0 && k >= without["count"].as_u64().unwrap() as usize);
        assert_eq!(with["capped"], false);
        assert!(
            with["nextFailure"]["message"]
                .as_str()
                .unwrap()
                .contains("nodes are available")
        );
        // The same count replica by replica: k placed, the next one not.
        let n = (k + 1).to_string();
        let mut args = vec![
            "place",
            "--snapshot",
            &snapshot,
            "--pod",
            &pod,
            "--replicas",
            &n,
            "-o",
            "json",
        ];
        if let Some(c) = class {
            args.extend(["--priority-class", c]);
        }
        let plan = json_of(&kplace(&args));
        assert_eq!(plan["placed"], k, "{class:?}");
        assert_eq!(plan["firstUnplaceable"], k + 1, "{class:?}");
        // Every DoNotSchedule constraint holds on the counts after.
        for run in [with, without] {
            let zones = run["perZone"].as_object().unwrap();
            let placed: u64 = zones.values().map(|v| v.as_u64().unwrap()).sum();
            assert_eq!(placed, run["count"].as_u64().unwrap());
            for d in run["domains"].as_array().unwrap() {
                assert_eq!(d["whenUnsatisfiable"], "DoNotSchedule");
                assert!(
                    d["skew"].as_i64().unwrap() <= d["maxSkew"].as_i64().unwrap(),
                    "{d}"
                );
            }
        }
    }
    // At priority 1000 the fillers can be evicted: more fit than without.
    let args = [
        "place",
        "--snapshot",
        &snapshot,
        "--pod",
        &pod,
        "--replicas",
        "max",
        "-o",
        "json",
        "--priority-class",
        "high",
    ];
    let high = json_of(&kplace(&args));
    let high_with = &high["capacity"]["withPreemption"];
    assert!(high_with["count"].as_u64() > high["capacity"]["withoutPreemption"]["count"].as_u64());
    assert!(!high_with["evicted"].as_array().unwrap().is_empty());
}

#[test]
fn replicas_max_table_shows_counts_per_zone_and_why_the_next_fails() {
    let dir = tempfile::tempdir().unwrap();
    let (snapshot, pod) = files(dir.path());
    let out = kplace(&[
        "place",
        "--snapshot",
        &snapshot,
        "--pod",
        &pod,
        "--replicas",
        "max",
    ]);
    assert!(out.status.success());
    let text = String::from_utf8(out.stdout).unwrap();
    assert!(
        text.contains("How many more replicas of default/web-new fit:"),
        "{text}"
    );
    assert!(text.contains("  without preemption: "), "{text}");
    assert!(text.contains("    per zone: a="), "{text}");
    assert!(
        text.contains("    the next one: unschedulable — 0/6 nodes are available"),
        "{text}"
    );
    let bad = kplace(&[
        "place",
        "--snapshot",
        &snapshot,
        "--pod",
        &pod,
        "--replicas",
        "many",
    ]);
    assert_eq!(bad.status.code(), Some(2));
    assert!(
        String::from_utf8_lossy(&bad.stderr).contains("neither a count of at least 1 nor `max`")
    );
    let bad = kplace(&[
        "place",
        "--snapshot",
        &snapshot,
        "--pod",
        &pod,
        "--replicas",
        "3",
        "--priority-class",
        "nope",
    ]);
    assert_eq!(bad.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&bad.stderr).contains("no PriorityClass with name nope"));
}

#[test]
fn remedies_are_listed_in_json_and_table_and_none_turns_them_off() {
    let dir = tempfile::tempdir().unwrap();
    let (snapshot, _) = files(dir.path());
    // 3 CPUs fit no 2-CPU node: larger than every node, said plainly.
    let big = dir.path().join("big.yaml");
    std::fs::write(&big, POD.replace("cpu: 500m", "cpu: \"3\"")).unwrap();
    let big = big.display().to_string();
    let answer = json_of(&kplace(&[
        "place",
        "--snapshot",
        &snapshot,
        "--pod",
        &big,
        "-o",
        "json",
    ]));
    assert_eq!(answer["outcome"], "unschedulable");
    assert!(
        answer["remediesNotes"][0]
            .as_str()
            .unwrap()
            .starts_with("the pod is larger than every node: it requests cpu 3")
    );
    // 1.5 CPUs: zone a is the only one with that much free, but it already
    // leads the spread.
    let wide = dir.path().join("wide.yaml");
    std::fs::write(&wide, POD.replace("cpu: 500m", "cpu: 1500m")).unwrap();
    let wide = wide.display().to_string();
    let answer = json_of(&kplace(&[
        "place",
        "--snapshot",
        &snapshot,
        "--pod",
        &wide,
        "-o",
        "json",
    ]));
    assert_eq!(answer["outcome"], "unschedulable", "{answer:#}");
    let remedies = answer["remedies"].as_array().unwrap();
    let kinds: Vec<&str> = remedies
        .iter()
        .map(|r| r["kind"].as_str().unwrap())
        .collect();
    assert!(kinds.contains(&"relax-spread"), "{kinds:?}");
    assert!(kinds.contains(&"add-node"), "{kinds:?}");
    for r in remedies {
        for field in ["kind", "change", "outcome", "node", "victims", "edit"] {
            assert!(r.get(field).is_some(), "{field} missing in {r}");
        }
    }
    let table = kplace(&["place", "--snapshot", &snapshot, "--pod", &wide]);
    let text = String::from_utf8(table.stdout).unwrap();
    assert!(
        text.contains("How to make it fit (each change verified on its own):"),
        "{text}"
    );
    assert!(text.contains("  1. ["), "{text}");
    let raw = json_of(&kplace(&[
        "place",
        "--snapshot",
        &snapshot,
        "--pod",
        &wide,
        "-o",
        "json",
        "--remedies",
        "none",
    ]));
    assert!(raw.get("remedies").is_none());
    let table = kplace(&[
        "place",
        "--snapshot",
        &snapshot,
        "--pod",
        &wide,
        "--remedies",
        "none",
    ]);
    assert!(
        !String::from_utf8(table.stdout)
            .unwrap()
            .contains("How to make it fit")
    );
}
