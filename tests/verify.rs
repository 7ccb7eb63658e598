//! `kplace verify` and `kplace::verify` on small timelines written by hand,
//! whose right answers follow from first principles: which node has room,
//! which one LeastAllocated prefers, which victim the scheduler's reprieve
//! order keeps. Also bad input: exit 2 naming the file, never a panic.

use std::io::Write;
use std::path::{Path, PathBuf};
use std::process::{Command, Output};

use serde_json::{Value, json};

use kplace::source::timeline::Timeline;
use kplace::verify::{self, Summary};

/// Writes a timeline in the format of `kplace record --duration`.
struct Recording {
    initial: Vec<Value>,
    events: Vec<(u64, &'static str, Value)>,
    rv: u64,
}

impl Recording {
    fn new(objects: Vec<Value>) -> Self {
        let mut r = Recording {
            initial: Vec::new(),
            events: Vec::new(),
            rv: 100,
        };
        for o in objects {
            let o = r.versioned(o);
            r.initial.push(o);
        }
        r
    }

    /// Gives the object the next resourceVersion, as the API server would.
    fn versioned(&mut self, mut o: Value) -> Value {
        self.rv += 1;
        o["metadata"]["resourceVersion"] = json!(self.rv.to_string());
        o
    }

    fn event(&mut self, t: u64, type_: &'static str, object: Value) -> &mut Self {
        let object = self.versioned(object);
        self.events.push((t, type_, object));
        self
    }

    fn text(&self) -> String {
        let mut out = json!({
            "kplaceTimeline": 1, "recordedAt": "2024-05-01T10:00:00Z",
            "context": "test", "server": "https://127.0.0.1:6443",
            "initialObjects": self.initial.len(), "limitations": [],
        })
        .to_string();
        out.push('\n');
        for o in &self.initial {
            out += &json!({"t": 0, "type": "ADDED", "object": o}).to_string();
            out.push('\n');
        }
        let mut end = 0;
        for (t, type_, o) in &self.events {
            out += &json!({"t": t, "type": type_, "object": o}).to_string();
            out.push('\n');
            end = end.max(*t);
        }
        out += &json!({"t": end + 1000, "type": "END"}).to_string();
        out.push('\n');
        out
    }

    /// Writes the gzip-compressed file `kplace record` would.
    fn write(&self, dir: &Path, name: &str) -> PathBuf {
        let path = dir.join(name);
        let mut gz = flate2::write::GzEncoder::new(
            std::fs::File::create(&path).unwrap(),
            flate2::Compression::fast(),
        );
        gz.write_all(self.text().as_bytes()).unwrap();
        gz.finish().unwrap();
        path
    }

    fn timeline(&self) -> Timeline {
        let t = Timeline::from_bytes(self.text().as_bytes(), "test").expect("timeline loads");
        assert!(t.invalid.is_empty(), "{:?}", t.invalid);
        t
    }
}

fn node(name: &str, cpu: &str, memory: &str) -> Value {
    json!({
        "apiVersion": "v1", "kind": "Node",
        "metadata": {"name": name, "uid": format!("uid-{name}"),
                     "labels": {"kubernetes.io/hostname": name, "kubernetes.io/os": "linux"}},
        "spec": {},
        "status": {
            "allocatable": {"cpu": cpu, "memory": memory, "pods": "110"},
            "capacity": {"cpu": cpu, "memory": memory, "pods": "110"},
            "conditions": [{"type": "Ready", "status": "True"}],
        },
    })
}

/// A pending pod in `default` with one container's requests and a priority.
fn pod(name: &str, cpu: &str, memory: &str, priority: i32) -> Value {
    json!({
        "apiVersion": "v1", "kind": "Pod",
        "metadata": {"name": name, "namespace": "default", "uid": format!("uid-{name}"),
                     "creationTimestamp": "2024-05-01T09:00:00Z"},
        "spec": {
            "containers": [{"name": "app", "image": "registry.example.com/app:1.0",
                            "resources": {"requests": {"cpu": cpu, "memory": memory}}}],
            "priority": priority,
            "schedulerName": "default-scheduler",
        },
        "status": {"phase": "Pending"},
    })
}

/// The pod as the scheduler's binding leaves it.
fn bound(pod: &Value, node: &str) -> Value {
    let mut p = pod.clone();
    p["spec"]["nodeName"] = json!(node);
    p["status"]["conditions"] = json!([{"type": "PodScheduled", "status": "True"}]);
    p
}

/// A bound pod the kubelet reports running.
fn running(pod: &Value, node: &str) -> Value {
    let mut p = bound(pod, node);
    p["status"]["phase"] = json!("Running");
    p["status"]["startTime"] = json!("2024-05-01T09:00:05Z");
    p
}

/// A victim as the scheduler's preemption leaves it: a DisruptionTarget
/// condition, then graceful deletion.
fn preempted(pod: &Value) -> Value {
    let mut p = pod.clone();
    p["metadata"]["deletionTimestamp"] = json!("2024-05-01T10:00:40Z");
    p["metadata"]["deletionGracePeriodSeconds"] = json!(30);
    p["status"]["conditions"] = json!([{"type": "DisruptionTarget", "status": "True",
        "reason": "PreemptionByScheduler",
        "message": "default-scheduler: preempting to accommodate a higher priority pod"}]);
    p
}

fn nominated(pod: &Value, node: &str) -> Value {
    let mut p = pod.clone();
    p["status"]["nominatedNodeName"] = json!(node);
    p["status"]["conditions"] = json!([{"type": "PodScheduled", "status": "False",
        "reason": "Unschedulable"}]);
    p
}

/// Three bindings: one where kplace agrees, one to a feasible node that
/// LeastAllocated scores lower, one to a node without room.
///
/// `m1` and `m2` have 4 CPU and 8Gi; `m1` already runs 2 CPU/4Gi. `tiny`
/// (1 CPU) is full. Every new pod asks for 1 CPU/2Gi, so its requests keep
/// both nodes balanced (BalancedAllocation ties) and LeastAllocated decides:
/// the emptier `m2` wins each time.
fn mixed() -> Recording {
    let busy = pod("busy", "2", "4Gi", 0);
    let hog = pod("hog", "1", "1Gi", 0);
    let good = pod("good", "1", "2Gi", 0);
    let meh = pod("meh", "1", "2Gi", 0);
    let bad = pod("bad", "1", "2Gi", 0);
    let mut r = Recording::new(vec![
        node("m1", "4", "8Gi"),
        node("m2", "4", "8Gi"),
        node("tiny", "1", "2Gi"),
        running(&busy, "m1"),
        running(&hog, "tiny"),
        good.clone(),
    ]);
    r.event(10_000, "MODIFIED", bound(&good, "m2"))
        .event(12_000, "MODIFIED", running(&good, "m2"))
        .event(15_000, "ADDED", meh.clone())
        .event(20_000, "MODIFIED", bound(&meh, "m1"))
        .event(25_000, "ADDED", bad.clone())
        .event(30_000, "MODIFIED", bound(&bad, "tiny"));
    r
}

/// One full node with two low-priority pods; a high-priority pod preempts.
/// `actual` names which of the two the recording shows evicted.
///
/// `p1` has 2 CPU and runs `low-a` (priority 10) and `low-b` (priority 20),
/// 1 CPU each. `urgent` (priority 1000) needs 1 CPU, so one must go. The
/// scheduler reprieves the most important victims first: `low-b` is kept,
/// `low-a` is evicted.
fn preemption(actual: &str) -> Recording {
    let a = pod("low-a", "1", "1Gi", 10);
    let b = pod("low-b", "1", "1Gi", 20);
    let urgent = pod("urgent", "1", "1Gi", 1000);
    let victim = if actual == "low-a" { &a } else { &b };
    let mut r = Recording::new(vec![
        node("p1", "2", "4Gi"),
        running(&a, "p1"),
        running(&b, "p1"),
    ]);
    r.event(5_000, "ADDED", urgent.clone())
        .event(6_000, "MODIFIED", preempted(&running(victim, "p1")))
        .event(6_050, "MODIFIED", nominated(&urgent, "p1"))
        .event(8_000, "DELETED", preempted(&running(victim, "p1")))
        .event(9_000, "MODIFIED", bound(&nominated(&urgent, "p1"), "p1"));
    r
}

fn kplace(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_kplace"))
        .args(args)
        .output()
        .expect("runs")
}

fn verify_json(path: &Path) -> Value {
    let out = kplace(&["verify", path.to_str().unwrap(), "-o", "json"]);
    assert!(
        out.status.success(),
        "stderr: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    serde_json::from_slice(&out.stdout).expect("stdout is JSON")
}

fn verify_table(path: &Path, extra: &[&str]) -> String {
    let mut args = vec!["verify", path.to_str().unwrap()];
    args.extend(extra);
    let out = kplace(&args);
    assert!(
        out.status.success(),
        "stderr: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    String::from_utf8(out.stdout).unwrap()
}

#[test]
fn json_counts_agreement_and_lists_each_disagreement() {
    let dir = tempfile::tempdir().unwrap();
    let path = mixed().write(dir.path(), "mixed.jsonl.gz");
    let v = verify_json(&path);
    assert_eq!(v["timeline"], path.display().to_string());
    assert_eq!(v["bindings"], 3);
    assert_eq!(v["inBest"], 1);
    assert_eq!(v["inFeasible"], 2);
    assert!((v["bestNodeAgreement"].as_f64().unwrap() - 1.0 / 3.0).abs() < 1e-9);
    assert!((v["feasibleAgreement"].as_f64().unwrap() - 2.0 / 3.0).abs() < 1e-9);
    assert_eq!(v["preemptions"], 0);
    assert_eq!(v["victimAgreement"], 1.0, "nothing to disagree about");
    let d = v["disagreements"].as_array().unwrap();
    assert_eq!(d.len(), 2, "{d:#?}");
    // m1 has 2 CPU free, so the pod fits, but LeastAllocated prefers m2.
    assert_eq!(d[0]["pod"], "default/meh");
    assert_eq!(d[0]["t"], 20_000);
    assert_eq!(d[0]["boundNode"], "m1");
    assert_eq!(d[0]["outcome"], "scheduled");
    assert_eq!(d[0]["bestNodes"], json!(["m2"]));
    assert_eq!(d[0]["feasibleNodes"], 2, "m1 and m2; tiny is full");
    assert_eq!(d[0]["inBest"], false);
    assert_eq!(d[0]["inFeasible"], true);
    assert!(d[0].get("preemption").is_none());
    // tiny is full: the binding is not even feasible.
    assert_eq!(d[1]["pod"], "default/bad");
    assert_eq!(d[1]["boundNode"], "tiny");
    assert_eq!(d[1]["inBest"], false);
    assert_eq!(d[1]["inFeasible"], false);
}

#[test]
fn table_says_the_rates_and_the_disagreements() {
    let dir = tempfile::tempdir().unwrap();
    let path = mixed().write(dir.path(), "mixed.jsonl.gz");
    let text = verify_table(&path, &[]);
    assert_eq!(
        text,
        "kube-scheduler v1.34 rules (nothing says which release the cluster runs: the newest supported)\n\
         3 pods went from pending to bound\n\
         \x20 bound node among bestNodes: 1/3 (33.3%)\n\
         \x20 bound node feasible:        2/3 (66.7%)\n\
         \x20 t=20.0s default/meh: bound to m1, kplace: scheduled best [m2]\n\
         \x20 t=30.0s default/bad: bound to tiny, kplace: scheduled best [m2]\n"
    );
    let limited = verify_table(&path, &["--limit", "1"]);
    assert!(limited.contains("default/meh"));
    assert!(!limited.contains("default/bad"), "{limited}");
}

#[test]
fn preemption_with_the_predicted_victim_agrees() {
    let dir = tempfile::tempdir().unwrap();
    let path = preemption("low-a").write(dir.path(), "pre.jsonl.gz");
    let v = verify_json(&path);
    assert_eq!(v["bindings"], 1);
    assert_eq!(v["inBest"], 1);
    assert_eq!(v["preemptions"], 1);
    assert_eq!(v["victimAgreement"], 1.0);
    assert_eq!(v["disagreements"], json!([]));
    let text = verify_table(&path, &[]);
    assert!(
        text.contains("  preemptions: 1, victims agree: 1 (100.0%)\n"),
        "{text}"
    );
    assert!(!text.contains("victims: actual"), "{text}");
}

#[test]
fn preemption_with_another_victim_is_listed_with_both_sets() {
    let dir = tempfile::tempdir().unwrap();
    let path = preemption("low-b").write(dir.path(), "pre.jsonl.gz");
    let v = verify_json(&path);
    assert_eq!(v["preemptions"], 1);
    assert_eq!(v["victimAgreement"], 0.0);
    // The node is the one kplace nominates: only the victims differ.
    assert_eq!(v["inBest"], 1);
    let d = &v["disagreements"][0];
    assert_eq!(d["pod"], "default/urgent");
    assert_eq!(d["boundNode"], "p1");
    assert_eq!(d["outcome"], "preempt");
    assert_eq!(d["preemption"]["actualVictims"], json!(["default/low-b"]));
    assert_eq!(
        d["preemption"]["predictedVictims"],
        json!(["default/low-a"])
    );
    assert_eq!(d["preemption"]["predictedNode"], "p1");
    let text = verify_table(&path, &[]);
    assert!(
        text.contains("  preemptions: 1, victims agree: 0 (0.0%)\n"),
        "{text}"
    );
    assert!(
        text.contains("t=9.0s default/urgent: bound to p1, kplace: preempt best []\n"),
        "{text}"
    );
    assert!(
        text.contains("      victims: actual [default/low-b], kplace [default/low-a]\n"),
        "{text}"
    );
}

#[test]
fn library_finds_bindings_in_event_order_and_answers_before_each() {
    let t = mixed().timeline();
    let found = verify::bindings(&t);
    let pods: Vec<(&str, &str)> = found
        .iter()
        .map(|b| (b.pod.as_str(), b.node.as_str()))
        .collect();
    assert_eq!(
        pods,
        [
            ("default/good", "m2"),
            ("default/meh", "m1"),
            ("default/bad", "tiny")
        ]
    );
    // Events: 0 good bound, 1 good running, 2 meh added, 3 meh bound, ...
    assert_eq!(found.iter().map(|b| b.event).collect::<Vec<_>>(), [0, 3, 5]);
    for b in &found {
        assert_eq!(b.predict_at, b.event, "no preemption: just before");
        assert_eq!(b.actual_victims, None);
    }
    let checks = verify::checks(&t, &verify::scheduler_for(&t, None));
    let agrees: Vec<bool> = checks.iter().map(|c| c.agrees()).collect();
    assert_eq!(agrees, [true, false, false]);
    assert_eq!(checks[0].best, ["m2"]);
    assert_eq!(checks[0].feasible, 2);
    assert_eq!(
        Summary::of(&checks),
        Summary {
            bindings: 3,
            in_best: 1,
            in_feasible: 2,
            preemptions: 0,
            victims_agree: 0,
            disagreements: 2,
        }
    );
}

#[test]
fn library_reports_progress_and_the_same_checks() {
    let t = mixed().timeline();
    let mut calls = Vec::new();
    let with =
        verify::checks_with_progress(&t, &verify::scheduler_for(&t, None), &mut |done, total| {
            calls.push((done, total))
        });
    assert_eq!(with, verify::checks(&t, &verify::scheduler_for(&t, None)));
    assert_eq!(calls.first(), Some(&(0, 3)));
    assert_eq!(calls.last(), Some(&(3, 3)));
    assert!(calls.windows(2).all(|w| w[0].0 <= w[1].0));
}

#[test]
fn library_preemption_compares_victims_before_the_first_one_went() {
    let t = preemption("low-b").timeline();
    let found = verify::bindings(&t);
    assert_eq!(found.len(), 1);
    let b = &found[0];
    // Events: 0 urgent added, 1 low-b marked, 2 nominated, 3 deleted, 4 bound.
    assert_eq!((b.event, b.predict_at), (4, 1));
    assert_eq!(
        b.actual_victims
            .as_ref()
            .unwrap()
            .iter()
            .collect::<Vec<_>>(),
        ["default/low-b"]
    );
    let c = verify::check(&t, b, &verify::scheduler_for(&t, None))
        .expect("urgent exists at the first victim");
    let p = c.preemption.as_ref().unwrap();
    assert_eq!(p.predicted_node.as_deref(), Some("p1"));
    assert!(!p.victims_agree());
    assert!(c.in_best && !c.agrees());
    let s = Summary::of(&[c]);
    assert_eq!((s.preemptions, s.victims_agree, s.disagreements), (1, 0, 1));
    assert_eq!(s.victim_rate(), 0.0);
}

#[test]
fn pods_created_already_bound_are_not_bindings() {
    // Nobody scheduled it: it was created with spec.nodeName set.
    let direct = pod("direct", "1", "1Gi", 0);
    let mut r = Recording::new(vec![node("m1", "4", "8Gi")]);
    r.event(1_000, "ADDED", bound(&direct, "m1"))
        .event(2_000, "MODIFIED", running(&direct, "m1"));
    let t = r.timeline();
    assert!(verify::bindings(&t).is_empty());
    let s = Summary::of(&verify::checks(&t, &verify::scheduler_for(&t, None)));
    assert_eq!(s.bindings, 0);
    assert_eq!(s.best_rate(), 1.0, "nothing to disagree about");
}

#[test]
fn malformed_timeline_exits_2_naming_the_file() {
    let dir = tempfile::tempdir().unwrap();
    let mut text = mixed().text();
    text.push_str("{\"t\": 40000, \"type\": \"MODIFIED\", \"object\": {\n");
    let path = dir.path().join("cut.jsonl");
    std::fs::write(&path, &text).unwrap();
    let out = kplace(&["verify", path.to_str().unwrap()]);
    let err = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(2), "stderr: {err}");
    assert!(err.contains("cut.jsonl"), "{err}");
    assert!(!err.contains("panicked"), "{err}");
    assert!(out.stdout.is_empty());

    // A snapshot is not a timeline.
    let snap = dir.path().join("snap.json");
    std::fs::write(
        &snap,
        json!({"apiVersion": "v1", "kind": "List", "items": []}).to_string(),
    )
    .unwrap();
    let out = kplace(&["verify", snap.to_str().unwrap(), "-o", "json"]);
    let err = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(2), "stderr: {err}");
    assert!(
        err.contains("snap.json is a cluster snapshot, not a recorded timeline"),
        "{err}"
    );

    let missing = dir.path().join("missing.jsonl.gz");
    let out = kplace(&["verify", missing.to_str().unwrap()]);
    let err = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(2), "stderr: {err}");
    assert!(err.contains("missing.jsonl.gz"), "{err}");
}

/// A pod and a node whose names carry escape sequences (clear screen, set
/// window title) are names the API server refuses: they are left out of
/// the answer, and stderr says so, quoting them escaped, never raw.
#[test]
fn table_escapes_control_characters_from_the_recording() {
    let dir = tempfile::tempdir().unwrap();
    let evil_node = "m1\u{1b}]0;pwned\u{7}";
    let meh = pod("meh\u{1b}[2J", "1", "2Gi", 0);
    // A label value cannot hold the escape; the name can.
    let mut evil = node(evil_node, "4", "8Gi");
    evil["metadata"]["labels"]["kubernetes.io/hostname"] = json!("m1");
    let mut r = Recording::new(vec![
        evil,
        node("m2", "4", "8Gi"),
        running(&pod("busy", "2", "4Gi", 0), evil_node),
        meh.clone(),
    ]);
    r.event(20_000, "MODIFIED", bound(&meh, evil_node));
    let path = r.write(dir.path(), "evil.jsonl.gz");
    let out = kplace(&["verify", path.to_str().unwrap()]);
    assert!(out.status.success());
    let text = String::from_utf8_lossy(&out.stdout);
    let err = String::from_utf8_lossy(&out.stderr);
    for shown in [&text, &err] {
        assert!(
            !shown.contains('\u{1b}') && !shown.contains('\u{7}'),
            "raw control characters:\n{shown:?}"
        );
    }
    assert!(
        err.contains("object(s) of the recording left out, as the API server would refuse them"),
        "{err}"
    );
    assert!(
        err.contains("Node m1\\x1b]0;pwned\\x07: metadata.name: Invalid value"),
        "{err}"
    );
    assert!(
        err.contains("Pod default/meh\\x1b[2J: metadata.name: Invalid value"),
        "{err}"
    );
    assert!(text.contains("0 pods went from pending to bound"), "{text}");
}
