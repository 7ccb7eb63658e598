//! The built-in demo recording, `assets/demo-timeline.jsonl.gz`: three
//! minutes of the demo cluster as `kplace record --duration 3m` would have
//! written them, so replay and `kplace verify` have something to show.
//!
//! The scheduler's choices are kplace's own: at each binding the story so
//! far is loaded as a timeline and the engine answers for the pod, exactly as
//! `kplace verify` will when it replays the file. The story (t = seconds):
//!
//! - 3 s: the pending `shop/cart-7c9f8d6b5-new01` is bound (running at 5 s);
//! - 12 s: `payments/ledger-migrate-x7k2p` (business-critical) fits nowhere;
//!   the scheduler preempts the best-effort sandbox pods kplace picks
//!   (eight, all on `worker-b03`: DisruptionTarget, then graceful deletion)
//!   and nominates the node; the sandbox ReplicaSet replaces each victim
//!   with a new pod, which the scheduler places elsewhere (the nominated pod
//!   holds its room); the victims are gone at 13 s and the ledger pod is
//!   bound at 14 s;
//! - 40 s: `shop/checkout` is scaled from 30 to 28; the two replicas removed
//!   are the newest in `eu-west-1a` (the ReplicaSet controller ranks pods by
//!   node and age, never by zone), so the zone skew becomes 2, above the
//!   `maxSkew: 1` the scheduler enforces only when placing;
//! - 80 s: scaled back to 29, the new replica may only go to `eu-west-1a`;
//! - 100 s: `worker-a03` is cordoned (`spec.unschedulable`, then the
//!   node controller's taint); at 105 s a cart pod on it is evicted and its
//!   replacement is bound to another node;
//! - 130 s: `shop/cart` is scaled to 44 and the new replica is bound to a
//!   node that is feasible but **not** among kplace's best nodes (the
//!   highest-scoring node outside them). This is the one planted
//!   disagreement: in a real recording such a binding means the scheduler
//!   saw something kplace's answer did not (another profile or extender, a
//!   state kplace never saw), and the trust check should say so honestly;
//! - 160 s: `worker-a03` is uncordoned; the recording ends at 180 s.
//!
//! 66 events; `kplace verify` on the file reports 13 bindings, 12 on one of
//! kplace's best nodes, all 13 feasible, and one preemption whose victims
//! agree (the sandbox pods on `worker-b03`).

use std::collections::BTreeMap;
use std::io::Write;

use flate2::Compression;
use flate2::write::GzEncoder;
use serde_json::{Value, json};

use kplace::engine::{self, Outcome, Placement};
use kplace::model::Cluster;
use kplace::source::live::Kind;
use kplace::source::timeline::Timeline;

use crate::{suffixes, timestamp};

pub const OUT: &str = "assets/demo-timeline.jsonl.gz";
/// When recording starts, in seconds after the demo's epoch: 14:00, after
/// every pod of the demo cluster was created.
pub const START: i64 = 6 * 3600;
const END_MS: u64 = 180_000;

/// A timeline being written, with the current objects for lookups.
struct Story {
    initial: Vec<Value>,
    events: Vec<(u64, &'static str, Value)>,
    /// `(kind, namespace/name)` → the object's current version.
    objects: BTreeMap<(String, String), Value>,
    resource_version: u64,
    uid_serial: u32,
}

fn key_of(o: &Value) -> (String, String) {
    let name = o["metadata"]["name"].as_str().unwrap_or("");
    let key = match o["metadata"]["namespace"].as_str() {
        Some(ns) => format!("{ns}/{name}"),
        None => name.to_string(),
    };
    (o["kind"].as_str().unwrap_or("").to_string(), key)
}

/// RFC 3339 time `t_ms` into the recording.
fn at(t_ms: u64) -> String {
    timestamp(START + (t_ms / 1000) as i64)
}

impl Story {
    /// The initial state: the demo cluster's objects of the kinds `kplace
    /// record` watches (so no Deployments), each with a resourceVersion.
    fn new(items: &[Value]) -> Story {
        let mut s = Story {
            initial: Vec::new(),
            events: Vec::new(),
            objects: BTreeMap::new(),
            resource_version: 184_000,
            uid_serial: 0,
        };
        for item in items {
            if Kind::parse(item["kind"].as_str().unwrap_or("")).is_none() {
                continue;
            }
            let o = s.versioned(item.clone());
            s.objects.insert(key_of(&o), o.clone());
            s.initial.push(o);
        }
        s
    }

    fn versioned(&mut self, mut o: Value) -> Value {
        self.resource_version += 1;
        o["metadata"]["resourceVersion"] = json!(self.resource_version.to_string());
        o
    }

    fn emit(&mut self, t: u64, type_: &'static str, object: Value) {
        let last = self.events.last().map_or(0, |e| e.0);
        assert!(t >= last, "events out of order at t={t}");
        let key = key_of(&object);
        let object = self.versioned(object);
        match type_ {
            "ADDED" => assert!(self.objects.insert(key.clone(), object.clone()).is_none()),
            "DELETED" => assert!(self.objects.remove(&key).is_some()),
            _ => assert!(self.objects.insert(key.clone(), object.clone()).is_some()),
        }
        self.events.push((t, type_, object));
    }

    fn get(&self, kind: &str, key: &str) -> Value {
        self.objects
            .get(&(kind.to_string(), key.to_string()))
            .unwrap_or_else(|| panic!("no {kind} {key}"))
            .clone()
    }

    fn modify(&mut self, t: u64, kind: &str, key: &str, change: impl FnOnce(&mut Value)) {
        let mut o = self.get(kind, key);
        change(&mut o);
        self.emit(t, "MODIFIED", o);
    }

    fn delete(&mut self, t: u64, kind: &str, key: &str) {
        let o = self.get(kind, key);
        self.emit(t, "DELETED", o);
    }

    fn text(&self, end: Option<u64>) -> String {
        let header = json!({
            "kplaceTimeline": 1,
            "recordedAt": at(0),
            "context": "kplace-demo",
            "server": "https://demo.kplace.invalid",
            "initialObjects": self.initial.len(),
            "limitations": [],
        });
        let mut out = format!("{header}\n");
        for o in &self.initial {
            out += &format!("{}\n", json!({"t": 0, "type": "ADDED", "object": o}));
        }
        for (t, type_, o) in &self.events {
            out += &format!("{}\n", json!({"t": t, "type": type_, "object": o}));
        }
        if let Some(t) = end {
            out += &format!("{}\n", json!({"t": t, "type": "END"}));
        }
        out
    }

    /// kplace's answer for a pod now, as `kplace verify` computes it: the
    /// story so far replayed as a timeline, then `place_existing`.
    fn answer(&self, pod: &str) -> (Cluster, Placement) {
        let timeline = Timeline::from_bytes(self.text(None).as_bytes(), "demo story")
            .expect("the story is a valid timeline");
        assert!(timeline.invalid.is_empty(), "{:?}", timeline.invalid);
        let cluster = timeline.state_after(timeline.len());
        let (ns, name) = pod.split_once('/').expect("namespace/name");
        let id = cluster.find_pod(ns, name).expect("the pod exists");
        let answer = engine::place_existing(
            &cluster,
            id,
            &kplace::verify::scheduler_for(&timeline, None),
        );
        (cluster, answer)
    }

    /// Binds a pending pod where kplace would; returns the node.
    fn schedule(&mut self, t: u64, pod: &str) -> String {
        let (cluster, answer) = self.answer(pod);
        assert_eq!(
            answer.outcome,
            Outcome::Scheduled,
            "{pod}: {}",
            answer.message
        );
        let node = cluster.node(answer.node.expect("a node")).name.to_string();
        self.bind(t, pod, &node);
        node
    }

    /// The scheduler's binding: `spec.nodeName` and PodScheduled.
    fn bind(&mut self, t: u64, pod: &str, node: &str) {
        self.modify(t, "Pod", pod, |p| {
            p["spec"]["nodeName"] = json!(node);
            p["status"]["conditions"] = json!([
                {"type": "PodScheduled", "status": "True", "lastTransitionTime": at(t)},
            ]);
        });
    }

    /// The kubelet's report: running and ready.
    fn run(&mut self, t: u64, pod: &str) {
        self.modify(t, "Pod", pod, |p| {
            let since = at(t);
            p["status"]["phase"] = json!("Running");
            p["status"]["startTime"] = json!(since);
            p["status"]["conditions"] = json!([
                {"type": "PodScheduled", "status": "True", "lastTransitionTime": since},
                {"type": "Initialized", "status": "True", "lastTransitionTime": since},
                {"type": "ContainersReady", "status": "True", "lastTransitionTime": since},
                {"type": "Ready", "status": "True", "lastTransitionTime": since},
            ]);
        });
    }

    /// Graceful deletion; `reason` adds a DisruptionTarget condition.
    /// Returns when the pod is gone: preStop hooks sleep 10 s, the
    /// containers then exit at once.
    fn terminate(&mut self, t: u64, pod: &str, reason: Option<&str>) -> u64 {
        let o = self.get("Pod", pod);
        let grace = o["spec"]["terminationGracePeriodSeconds"]
            .as_i64()
            .unwrap_or(30);
        let pre_stop = o["spec"]["containers"][0]["lifecycle"]["preStop"].is_object();
        self.modify(t, "Pod", pod, |p| {
            p["metadata"]["deletionTimestamp"] =
                json!(timestamp(START + (t / 1000) as i64 + grace));
            p["metadata"]["deletionGracePeriodSeconds"] = json!(grace);
            if let Some(reason) = reason {
                let mut conditions = p["status"]["conditions"]
                    .as_array()
                    .cloned()
                    .unwrap_or_default();
                conditions.push(json!({"type": "DisruptionTarget", "status": "True",
                    "reason": reason, "lastTransitionTime": at(t)}));
                p["status"]["conditions"] = json!(conditions);
            }
        });
        t + if pre_stop { 10_500 } else { 1_200 }
    }

    /// A new pod of the same ReplicaSet as `like`, pending.
    fn replica(&mut self, t: u64, like: &str, suffix: &str) -> String {
        let mut p = self.get("Pod", like);
        let name = p["metadata"]["name"].as_str().unwrap_or("");
        let base = &name[..name.rfind('-').expect("a ReplicaSet pod name")];
        let name = format!("{base}-{suffix}");
        self.uid_serial += 1;
        let meta = &mut p["metadata"];
        meta["name"] = json!(name);
        meta["uid"] = json!(format!("uid-pod-rec{:03}", self.uid_serial));
        meta["creationTimestamp"] = json!(at(t));
        if let Some(meta) = meta.as_object_mut() {
            meta.remove("deletionTimestamp");
            meta.remove("deletionGracePeriodSeconds");
        }
        if let Some(spec) = p["spec"].as_object_mut() {
            spec.remove("nodeName");
        }
        p["status"] = json!({"phase": "Pending"});
        let key = format!(
            "{}/{name}",
            p["metadata"]["namespace"].as_str().unwrap_or("")
        );
        self.emit(t, "ADDED", p);
        key
    }

    fn scale(&mut self, t: u64, replica_set: &str, replicas: usize) {
        self.modify(t, "ReplicaSet", replica_set, |rs| {
            rs["spec"]["replicas"] = json!(replicas);
            rs["status"]["replicas"] = json!(replicas);
        });
    }

    fn node_of(&self, pod: &str) -> String {
        self.get("Pod", pod)["spec"]["nodeName"]
            .as_str()
            .unwrap_or("")
            .to_string()
    }

    fn zone_of(&self, node: &str) -> String {
        self.get("Node", node)["metadata"]["labels"]["topology.kubernetes.io/zone"]
            .as_str()
            .unwrap_or("")
            .to_string()
    }

    /// Keys of the running pods whose name starts with `prefix`, in name order.
    fn pods_named(&self, prefix: &str) -> Vec<String> {
        self.objects
            .range(("Pod".to_string(), String::new())..("Pod\0".to_string(), String::new()))
            .filter(|((_, k), o)| k.starts_with(prefix) && o["spec"]["nodeName"].is_string())
            .map(|((_, k), _)| k.clone())
            .collect()
    }
}

pub fn write(items: &[Value]) -> std::io::Result<()> {
    let mut s = Story::new(items);

    // A pod that simply fits.
    let cart_new = "shop/cart-7c9f8d6b5-new01";
    s.schedule(3_000, cart_new);
    s.run(5_200, cart_new);

    // A preemption, as DefaultPreemption carries it out.
    let ledger = "payments/ledger-migrate-x7k2p";
    let (cluster, answer) = s.answer(ledger);
    assert_eq!(answer.outcome, Outcome::Preempt, "{}", answer.message);
    let pre = answer.preemption.expect("a preemption answer");
    let node = cluster.node(pre.node.expect("a node")).name.to_string();
    let victims: Vec<String> = pre.victims.iter().map(|&v| cluster.pod_key(v)).collect();
    assert!(!victims.is_empty());
    let mut gone = 0;
    for (i, v) in victims.iter().enumerate() {
        gone = s.terminate(12_000 + 20 * i as u64, v, Some("PreemptionByScheduler"));
    }
    s.modify(12_200, "Pod", ledger, |p| {
        p["status"]["nominatedNodeName"] = json!(node);
    });
    // The sandbox ReplicaSet replaces the victims at once; the scheduler
    // places the new pods around the nominated ledger pod.
    let mut next = suffixes(11);
    let mut new_sandbox = Vec::new();
    for (i, v) in victims.iter().enumerate() {
        new_sandbox.push(s.replica(12_300 + 20 * i as u64, v, &next()));
    }
    for (i, p) in new_sandbox.iter().enumerate() {
        s.schedule(12_600 + 100 * i as u64, p);
    }
    for (i, v) in victims.iter().enumerate() {
        s.delete(gone + 20 * i as u64, "Pod", v);
    }
    s.bind(14_000, ledger, &node);
    for (i, p) in new_sandbox.iter().enumerate() {
        s.run(15_000 + 100 * i as u64, p);
    }
    s.run(16_500, ledger);

    // Scaling down ignores topology spread: two replicas leave eu-west-1a.
    let checkout_rs = "shop/checkout-84d5b7f9c";
    s.scale(40_000, checkout_rs, 28);
    let mut in_a: Vec<(String, String)> = s
        .pods_named("shop/checkout-")
        .into_iter()
        .filter(|p| s.zone_of(&s.node_of(p)) == "eu-west-1a")
        .map(|p| {
            let created = s.get("Pod", &p)["metadata"]["creationTimestamp"]
                .as_str()
                .unwrap_or("")
                .to_string();
            (created, p)
        })
        .collect();
    in_a.sort();
    let newest: Vec<String> = in_a.iter().rev().take(2).map(|(_, p)| p.clone()).collect();
    let mut gone = 0;
    for (i, p) in newest.iter().enumerate() {
        gone = s.terminate(40_050 + 10 * i as u64, p, None);
    }
    for (i, p) in newest.iter().enumerate() {
        s.delete(gone + 100 * i as u64, "Pod", p);
    }
    // Scaling up again: the skew leaves one zone.
    s.scale(80_000, checkout_rs, 29);
    let like = s.pods_named("shop/checkout-").remove(0);
    let checkout_new = s.replica(80_050, &like, &next());
    let node = s.schedule(80_400, &checkout_new);
    assert_eq!(
        s.zone_of(&node),
        "eu-west-1a",
        "maxSkew 1 leaves only zone a"
    );
    s.run(83_000, &checkout_new);

    // Cordon a node, then move a pod off it.
    let cordoned = "worker-a03";
    s.modify(100_000, "Node", cordoned, |n| {
        n["spec"]["unschedulable"] = json!(true);
    });
    s.modify(100_040, "Node", cordoned, |n| {
        n["spec"]["taints"] =
            json!([{"key": "node.kubernetes.io/unschedulable", "effect": "NoSchedule",
                    "timeAdded": at(100_040)}]);
    });
    let evicted = s
        .pods_named("shop/cart-")
        .into_iter()
        .find(|p| s.node_of(p) == cordoned)
        .expect("a cart pod on the cordoned node");
    let gone = s.terminate(105_000, &evicted, Some("EvictionByEvictionAPI"));
    let moved = s.replica(105_030, &evicted, &next());
    let node = s.schedule(105_400, &moved);
    assert_ne!(node, cordoned);
    s.delete(gone, "Pod", &evicted);
    s.run(108_000, &moved);

    // The planted disagreement: feasible, but not among the best nodes.
    s.scale(130_000, "shop/cart-7c9f8d6b5", 44);
    let planted = s.replica(130_040, cart_new, &next());
    let (cluster, answer) = s.answer(&planted);
    let runner_up = answer
        .scores
        .iter()
        .filter(|sc| !answer.best.contains(&sc.node))
        .max_by_key(|sc| (sc.total, std::cmp::Reverse(sc.node)))
        .expect("a feasible node outside the best");
    let node = cluster.node(runner_up.node).name.to_string();
    s.bind(130_500, &planted, &node);
    s.run(133_000, &planted);

    // Uncordon: the node controller drops its taint.
    s.modify(160_000, "Node", cordoned, |n| {
        if let Some(spec) = n["spec"].as_object_mut() {
            spec.remove("unschedulable");
            spec.remove("taints");
        }
    });

    let text = s.text(Some(END_MS));
    let mut gz = GzEncoder::new(std::fs::File::create(OUT)?, Compression::best());
    gz.write_all(text.as_bytes())?;
    gz.finish()?;
    eprintln!(
        "wrote {OUT}: {} initial objects, {} events over {} s; preemption victims {victims:?}",
        s.initial.len(),
        s.events.len(),
        END_MS / 1000
    );
    Ok(())
}
