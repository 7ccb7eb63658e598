//! `kplace place --replicas N`: each replica's answer is the answer for the
//! snapshot with the earlier replicas added, and DoNotSchedule spread holds.

mod common;

use std::io::Read;
use std::path::{Path, PathBuf};
use std::process::Command;

use serde_json::Value;

const CASE: &str = "spread-004";

fn case_dir() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("tests/conformance/cases")
        .join(CASE)
}

fn place(snapshot: &Path, pod: &Path, extra: &[&str]) -> Value {
    let out = Command::new(env!("CARGO_BIN_EXE_kplace"))
        .args([
            "place",
            "--snapshot",
            snapshot.to_str().unwrap(),
            "--pod",
            pod.to_str().unwrap(),
            "-o",
            "json",
        ])
        .args(extra)
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    serde_json::from_slice(&out.stdout).unwrap()
}

fn pod_text() -> String {
    std::fs::read_to_string(case_dir().join("pod.yaml")).unwrap()
}

const POD_NAME: &str = "frontend-z2999qhltr-nrxjv";

fn replica_name(i: usize) -> String {
    if i == 1 {
        POD_NAME.to_string()
    } else {
        format!("{POD_NAME}-{i}")
    }
}

/// The case's pod renamed as replica `i`, optionally bound to a node.
fn replica_manifest(i: usize, bound_to: Option<(&str, i64)>) -> String {
    let mut text = pod_text().replace(
        &format!("name: {POD_NAME}"),
        &format!("name: {}", replica_name(i)),
    );
    if let Some((node, priority)) = bound_to {
        text = text.replace(
            "spec:\n",
            &format!("spec:\n  nodeName: {node}\n  priority: {priority}\n"),
        );
        text.push_str("status: {phase: Running}\n");
    }
    text
}

fn strip(mut v: Value) -> Value {
    if let Value::Object(m) = &mut v {
        m.remove("replica");
        m.remove("name");
        m.remove("pod");
        m.remove("node");
    }
    v
}

#[test]
fn each_replica_is_the_answer_with_earlier_replicas_added() {
    let dir = tempfile::tempdir().unwrap();
    let snapshot = case_dir().join("snapshot.yaml.gz");
    let plan = place(
        &snapshot,
        &case_dir().join("pod.yaml"),
        &["--replicas", "5"],
    );
    let steps = plan["replicas"].as_array().unwrap();
    assert_eq!(steps.len(), 5);
    assert_eq!(plan["placed"], 5);

    // Replica 1 is exactly `place` without --replicas.
    let single = place(&snapshot, &case_dir().join("pod.yaml"), &[]);
    assert_eq!(strip(steps[0].clone()), strip(single.clone()));
    assert_eq!(steps[0]["node"], single["node"]);

    let mut base = String::new();
    flate2::read::GzDecoder::new(std::fs::File::open(&snapshot).unwrap())
        .read_to_string(&mut base)
        .unwrap();
    for k in 2..=5 {
        // The snapshot with replicas 1..k-1 bound where the plan put them.
        let mut text = base.clone();
        for (i, step) in steps.iter().enumerate().take(k - 1) {
            let node = step["node"].as_str().unwrap();
            let prio = step["priority"].as_i64().unwrap();
            text.push_str("\n---\n");
            text.push_str(&replica_manifest(i + 1, Some((node, prio))));
        }
        let snap = dir.path().join(format!("after-{k}.yaml"));
        std::fs::write(&snap, text).unwrap();
        let pod = dir.path().join(format!("replica-{k}.yaml"));
        std::fs::write(&pod, replica_manifest(k, None)).unwrap();
        let direct = place(&snap, &pod, &[]);
        let step = &steps[k - 1];
        assert_eq!(step["name"], replica_name(k));
        for field in [
            "outcome",
            "feasibleNodes",
            "filterFailures",
            "scores",
            "bestNodes",
            "message",
            "node",
        ] {
            assert_eq!(step[field], direct[field], "replica {k}: {field}");
        }
    }
}

#[test]
fn do_not_schedule_skew_never_exceeds_max_skew() {
    let snapshot = case_dir().join("snapshot.yaml.gz");
    let plan = place(
        &snapshot,
        &case_dir().join("pod.yaml"),
        &["--replicas", "12"],
    );
    let domains = plan["domains"].as_array().unwrap();
    let hard: Vec<&Value> = domains
        .iter()
        .filter(|d| d["whenUnsatisfiable"] == "DoNotSchedule")
        .collect();
    assert!(!hard.is_empty(), "the case has a DoNotSchedule constraint");
    for d in hard {
        let counts: Vec<i64> = d["counts"]
            .as_object()
            .unwrap()
            .values()
            .map(|v| v.as_i64().unwrap())
            .collect();
        let skew = counts.iter().max().unwrap() - counts.iter().min().unwrap();
        assert_eq!(skew, d["skew"].as_i64().unwrap());
        assert!(skew <= d["maxSkew"].as_i64().unwrap(), "{d}");
    }
    // Every placed replica is accounted for in the hostname counts.
    let placed = plan["placed"].as_i64().unwrap();
    assert!(placed > 0);
    let first = place(
        &snapshot,
        &case_dir().join("pod.yaml"),
        &["--replicas", "1"],
    );
    let total = |p: &Value| -> i64 {
        p["domains"]
            .as_array()
            .unwrap()
            .iter()
            .find(|d| d["whenUnsatisfiable"] == "DoNotSchedule")
            .unwrap()["counts"]
            .as_object()
            .unwrap()
            .values()
            .map(|v| v.as_i64().unwrap())
            .sum()
    };
    assert_eq!(total(&plan) - total(&first), placed - 1);
}

#[test]
fn first_unplaceable_replica_is_reported_with_its_reason() {
    // A tiny cluster with room for two replicas.
    let dir = tempfile::tempdir().unwrap();
    let snap = dir.path().join("small.yaml");
    std::fs::write(
        &snap,
        "apiVersion: v1\nkind: Node\nmetadata: {name: n1}\nstatus: {allocatable: {cpu: '2', memory: 4Gi, pods: '10'}}\n",
    )
    .unwrap();
    let pod = dir.path().join("pod.yaml");
    std::fs::write(&pod, "apiVersion: v1\nkind: Pod\nmetadata: {name: web}\nspec:\n  containers: [{name: c, image: i, resources: {requests: {cpu: '1'}}}]\n").unwrap();
    let plan = place(&snap, &pod, &["--replicas", "5"]);
    assert_eq!(plan["placed"], 2);
    assert_eq!(plan["firstUnplaceable"], 3);
    assert_eq!(
        plan["replicas"].as_array().unwrap().len(),
        3,
        "asking stops at the first failure"
    );
    assert_eq!(
        plan["replicas"][2]["message"],
        "0/1 nodes are available: 1 Insufficient cpu."
    );
}

const BIND_CONFLICT: &str = "node(s) didn't find available persistent volumes to bind";

/// Zone c is outside the class's allowedTopologies: every new replica's
/// fresh claim cannot be provisioned there.
fn assert_zone_c_fails_volume_binding(step: &Value) {
    let f = &step["filterFailures"]["node-zone-c"];
    assert_eq!(f["plugin"], "VolumeBinding", "{step:#}");
    assert_eq!(f["reasons"], serde_json::json!([BIND_CONFLICT]), "{step:#}");
    assert!(
        step["filterFailures"].get("node-zone-a").is_none(),
        "{step:#}"
    );
    assert!(
        step["filterFailures"].get("node-zone-b").is_none(),
        "{step:#}"
    );
}

#[test]
fn statefulset_replicas_get_their_template_claims_and_honour_the_class_topology() {
    let dir = tempfile::tempdir().unwrap();
    let snapshot = dir.path().join("sts.json");
    std::fs::write(&snapshot, common::stateful_snapshot().to_string()).unwrap();
    let snap = snapshot.to_str().unwrap();
    let out = Command::new(env!("CARGO_BIN_EXE_kplace"))
        .args(["place", "--snapshot", snap, "--pod", "default/db-0"])
        .args(["--replicas", "3", "-o", "json"])
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let plan: Value = serde_json::from_slice(&out.stdout).unwrap();
    let steps = plan["replicas"].as_array().unwrap();
    assert_eq!(plan["placed"], 3, "{plan:#}");
    for (step, k) in steps.iter().zip(2..) {
        assert_eq!(step["name"], format!("db-{k}"));
        assert_eq!(
            step["newClaims"],
            serde_json::json!([format!("data-db-{k}")])
        );
        assert_zone_c_fails_volume_binding(step);
        let notes = step["notes"].to_string();
        assert!(
            notes.contains(&format!("data-db-{k} (class zonal)")),
            "{notes}"
        );
    }

    // One new replica from a manifest: the claim its template creates is
    // added for the answer.
    let pod = dir.path().join("db-2.yaml");
    std::fs::write(
        &pod,
        "apiVersion: v1\nkind: Pod\nmetadata:\n  name: db-2\n  namespace: default\n  labels: {app: db}\n  ownerReferences: [{apiVersion: apps/v1, kind: StatefulSet, name: db, uid: sts-uid, controller: true}]\nspec:\n  containers: [{name: db, image: 'postgres:16'}]\n  volumes: [{name: data, persistentVolumeClaim: {claimName: data-db-2}}]\n",
    )
    .unwrap();
    let single = place(&snapshot, &pod, &[]);
    assert_zone_c_fails_volume_binding(&single);
    assert_eq!(single["outcome"], "scheduled", "{single:#}");
    assert!(
        single["notes"]
            .to_string()
            .contains("data-db-2 (class zonal)"),
        "{single:#}"
    );
}
