use crate::support::prelude::*;
use kplace::engine::disruption::*;
use kplace::source::file::load_snapshot_bytes;

/// Two zones, two nodes each; a 3-replica ReplicaSet spread over zones
/// with a PDB allowing one disruption; a bare pod; a DaemonSet pod.
const SNAPSHOT: &str = r#"
apiVersion: v1
kind: List
items:
- {apiVersion: v1, kind: Node, metadata: {name: a1, labels: {topology.kubernetes.io/zone: a, kubernetes.io/hostname: a1}}, status: {allocatable: {cpu: "4", memory: 8Gi, pods: "10"}}}
- {apiVersion: v1, kind: Node, metadata: {name: a2, labels: {topology.kubernetes.io/zone: a, kubernetes.io/hostname: a2}}, status: {allocatable: {cpu: "4", memory: 8Gi, pods: "10"}}}
- {apiVersion: v1, kind: Node, metadata: {name: b1, labels: {topology.kubernetes.io/zone: b, kubernetes.io/hostname: b1}}, status: {allocatable: {cpu: "4", memory: 8Gi, pods: "10"}}}
- {apiVersion: v1, kind: Node, metadata: {name: b2, labels: {topology.kubernetes.io/zone: b, kubernetes.io/hostname: b2}}, status: {allocatable: {cpu: "1", memory: 8Gi, pods: "10"}}}
- apiVersion: policy/v1
  kind: PodDisruptionBudget
  metadata: {name: web, namespace: shop}
  spec: {maxUnavailable: 1, selector: {matchLabels: {app: web}}}
  status: {disruptionsAllowed: 1}
- apiVersion: v1
  kind: Pod
  metadata: {name: web-1, namespace: shop, labels: {app: web}, ownerReferences: [{apiVersion: apps/v1, kind: ReplicaSet, name: web, uid: u, controller: true}]}
  spec:
    nodeName: a1
    priority: 100
    containers: [{name: c, image: i, resources: {requests: {cpu: "1"}}}]
    topologySpreadConstraints: [{maxSkew: 1, topologyKey: topology.kubernetes.io/zone, whenUnsatisfiable: ScheduleAnyway, labelSelector: {matchLabels: {app: web}}}]
  status: {phase: Running}
- apiVersion: v1
  kind: Pod
  metadata: {name: web-2, namespace: shop, labels: {app: web}, ownerReferences: [{apiVersion: apps/v1, kind: ReplicaSet, name: web, uid: u, controller: true}]}
  spec:
    nodeName: a2
    priority: 100
    containers: [{name: c, image: i, resources: {requests: {cpu: "1"}}}]
    topologySpreadConstraints: [{maxSkew: 1, topologyKey: topology.kubernetes.io/zone, whenUnsatisfiable: ScheduleAnyway, labelSelector: {matchLabels: {app: web}}}]
  status: {phase: Running}
- {apiVersion: v1, kind: Pod, metadata: {name: bare, namespace: shop}, spec: {nodeName: a1, priority: 0, containers: [{name: c, image: i}]}, status: {phase: Running}}
- {apiVersion: v1, kind: Pod, metadata: {name: agent-a1, namespace: kube-system, ownerReferences: [{apiVersion: apps/v1, kind: DaemonSet, name: agent, uid: d, controller: true}]}, spec: {nodeName: a1, priority: 2000001000, containers: [{name: c, image: i}]}, status: {phase: Running}}
"#;

fn cluster() -> Cluster {
    load_snapshot_bytes(SNAPSHOT.as_bytes(), "test").unwrap().0
}

#[test]
fn drain_moves_controller_pods_and_keeps_daemon_pods() {
    let c = cluster();
    let plan = simulate(
        &c,
        &Disruption::Drain(vec![c.node_id("a1").unwrap()]),
        &kplace::engine::Scheduler::default(),
    );
    assert_eq!(plan.affected_nodes, vec!["a1"]);
    let names: Vec<&str> = plan.displaced.iter().map(|d| d.pod.as_str()).collect();
    assert_eq!(
        names,
        vec!["shop/web-1", "shop/bare"],
        "priority order; the DaemonSet pod stays"
    );
    let web = &plan.displaced[0];
    assert!(web.landed());
    let landed = web.landing.as_ref().unwrap().node.clone().unwrap();
    assert_ne!(landed, "a1", "a drained node is cordoned");
    assert!(plan.displaced[1].not_recreated.is_some());
    assert!(
        plan.broken_pdbs.is_empty(),
        "one eviction is within the budget"
    );
    // The snapshot itself is unchanged.
    assert_eq!(c.node_info(c.node_id("a1").unwrap()).pods.len(), 3);
}

#[test]
fn losing_a_zone_breaks_the_pdb_and_reports_skew() {
    let c = cluster();
    let plan = simulate(
        &c,
        &Disruption::LoseZone("a".into()),
        &kplace::engine::Scheduler::default(),
    );
    assert_eq!(plan.affected_nodes, vec!["a1", "a2"]);
    assert_eq!(
        plan.broken_pdbs,
        vec![BrokenBudget {
            pdb: "shop/web".into(),
            disruptions_allowed: 1,
            evicted: 2
        }]
    );
    // b2 has room for one 1-cpu pod and b1 for three: both replicas land in zone b.
    let landed: Vec<bool> = plan
        .displaced
        .iter()
        .filter(|d| d.pod.starts_with("shop/web"))
        .map(|d| d.landed())
        .collect();
    assert_eq!(landed, vec![true, true]);
    // The bare pod and the DaemonSet pod are not recreated.
    assert_eq!(
        plan.tally(),
        Tally {
            displaced: 4,
            landed: 2,
            not_recreated: 2,
            ..Tally::default()
        }
    );
    let (workload, domains) = &plan.workload_skew[0];
    assert_eq!(workload, "ReplicaSet shop/web");
    let zone = &domains[0];
    assert_eq!(
        zone.counts,
        vec![("b".to_string(), 2)],
        "the lost zone's nodes no longer count"
    );
}

/// Zone a's pods (priority 100) only fit in zone b by evicting b's
/// low-priority pod, whose controller recreates it: it joins the queue.
const CASCADE: &str = r#"
apiVersion: v1
kind: List
items:
- {apiVersion: v1, kind: Node, metadata: {name: a1, labels: {topology.kubernetes.io/zone: a}}, status: {allocatable: {cpu: "2", memory: 8Gi, pods: "10"}}}
- {apiVersion: v1, kind: Node, metadata: {name: b1, labels: {topology.kubernetes.io/zone: b}}, status: {allocatable: {cpu: "2", memory: 8Gi, pods: "10"}}}
- apiVersion: v1
  kind: Pod
  metadata: {name: important, namespace: ns, ownerReferences: [{apiVersion: apps/v1, kind: ReplicaSet, name: imp, uid: u1, controller: true}]}
  spec: {nodeName: a1, priority: 100, containers: [{name: c, image: i, resources: {requests: {cpu: "2"}}}]}
  status: {phase: Running}
- apiVersion: v1
  kind: Pod
  metadata: {name: filler, namespace: ns, ownerReferences: [{apiVersion: apps/v1, kind: ReplicaSet, name: fill, uid: u2, controller: true}]}
  spec: {nodeName: b1, priority: 1, containers: [{name: c, image: i, resources: {requests: {cpu: "2"}}}]}
  status: {phase: Running}
"#;

#[test]
fn victims_of_re_placements_are_named_and_queued_in_turn() {
    let c = load_snapshot_bytes(CASCADE.as_bytes(), "test").unwrap().0;
    let plan = simulate(
        &c,
        &Disruption::LoseZone("a".into()),
        &kplace::engine::Scheduler::default(),
    );
    assert!(!plan.cancelled);
    let pods: Vec<&str> = plan.displaced.iter().map(|d| d.pod.as_str()).collect();
    assert_eq!(pods, ["ns/important", "ns/filler"]);
    let important = plan.displaced[0].landing.as_ref().unwrap();
    assert_eq!(important.outcome, Outcome::Preempt);
    assert_eq!(important.node.as_deref(), Some("b1"));
    assert_eq!(important.victims, ["ns/filler"]);
    assert_eq!(
        plan.tally(),
        Tally {
            displaced: 2,
            evicted_on_the_way: 1,
            landed: 1,
            preempting: 1,
            victims: 1,
            not_placed: 1,
            not_recreated: 0,
        }
    );
    let filler = &plan.displaced[1];
    assert_eq!(filler.evicted_by.as_deref(), Some("ns/important"));
    assert_eq!(filler.from_node, "b1");
    let landing = filler.landing.as_ref().unwrap();
    assert_eq!(landing.outcome, Outcome::Unschedulable);
    assert!(
        landing.message.contains("Insufficient cpu"),
        "{}",
        landing.message
    );
}

#[test]
fn a_cancelled_simulation_stops_and_says_so() {
    let c = cluster();
    let progress = Progress::default();
    progress.cancel.store(true, Ordering::Relaxed);
    let plan = simulate_with(
        &c,
        &Disruption::LoseZone("a".into()),
        &kplace::engine::Scheduler::default(),
        &progress,
    );
    assert!(plan.cancelled);
    assert!(plan.displaced.is_empty());
    assert_eq!(progress.total.load(Ordering::Relaxed), 4);
}

#[test]
fn cordoning_a_zone_moves_nothing() {
    let c = cluster();
    let plan = simulate(
        &c,
        &Disruption::CordonZone("b".into()),
        &kplace::engine::Scheduler::default(),
    );
    assert_eq!(plan.affected_nodes, vec!["b1", "b2"]);
    assert!(plan.displaced.is_empty());
    assert!(
        plan.cluster
            .nodes
            .iter()
            .filter(|n| n.unschedulable)
            .count()
            == 2
    );
}

/// Pods with inter-pod affinity terms, counted per set of terms and node,
/// straight from the nodes' pods: what `Cluster::affinity_groups` (which
/// InterPodAffinity's PreFilter and PreScore read instead of every pod)
/// must hold after any bind and eviction.
fn affinity_groups_by_hand(
    c: &Cluster,
) -> std::collections::HashMap<kplace::model::pod::PodAffinity, std::collections::BTreeMap<u32, u32>>
{
    let mut expected: std::collections::HashMap<_, std::collections::BTreeMap<u32, u32>> =
        Default::default();
    for (n, info) in c.node_infos.iter().enumerate() {
        for &id in &info.pods_with_affinity {
            let terms = c.pod(id).pod_affinity.as_deref().unwrap().clone();
            *expected
                .entry(terms)
                .or_default()
                .entry(n as u32)
                .or_default() += 1;
        }
    }
    expected
}

fn assert_affinity_groups_match(c: &Cluster) {
    let mut kept: std::collections::HashMap<_, std::collections::BTreeMap<u32, u32>> =
        Default::default();
    for g in c.affinity_groups().iter() {
        let nodes: std::collections::BTreeMap<u32, u32> =
            g.nodes.iter().map(|(&n, &k)| (n, k)).collect();
        assert_eq!(g.pods, nodes.values().sum::<u32>(), "a group's pod total");
        assert!(
            kept.insert(g.terms.clone(), nodes).is_none(),
            "one group per set of terms"
        );
    }
    assert_eq!(kept, affinity_groups_by_hand(c));
}

#[test]
fn affinity_groups_follow_binds_and_evictions() {
    use kplace::synth::{SynthSpec, write_cluster_json};
    let mut json = Vec::new();
    write_cluster_json(&mut json, &SynthSpec::small()).unwrap();
    let (c, _) = load_snapshot_bytes(&json, "synth.json").unwrap();
    assert!(
        affinity_groups_by_hand(&c).len() > 1,
        "the synthetic cluster has pods with affinity terms"
    );
    assert_affinity_groups_match(&c);
    let plan = simulate(
        &c,
        &Disruption::LoseZone("us-east-1a".into()),
        &kplace::engine::Scheduler::default(),
    );
    assert!(plan.displaced.iter().filter(|d| d.landed()).count() > 100);
    let mut fork = plan.cluster;
    assert_affinity_groups_match(&fork);
    // Evict every other pod with affinity terms, then bind half of them back
    // elsewhere.
    let evicted: Vec<u32> = fork
        .node_infos
        .iter()
        .flat_map(|i| i.pods_with_affinity.iter().copied())
        .step_by(2)
        .collect();
    assert!(!evicted.is_empty());
    for &id in &evicted {
        fork.unbind_pod(id);
    }
    assert_affinity_groups_match(&fork);
    for (k, &id) in evicted.iter().enumerate().step_by(2) {
        fork.bind_pod(id, (k % fork.nodes.len()) as u32);
    }
    assert_affinity_groups_match(&fork);
}

/// What a re-placed pod got, comparable across runs.
fn landings(plan: &DisruptionPlan) -> Vec<(String, String, Option<String>, Option<Landing>)> {
    plan.displaced
        .iter()
        .map(|d| {
            (
                d.pod.clone(),
                d.from_node.clone(),
                d.evicted_by.clone(),
                d.landing.clone(),
            )
        })
        .collect()
}

#[test]
fn memoized_disruptions_place_every_pod_as_running_every_plugin_does() {
    use kplace::synth::{SynthSpec, write_cluster_json};
    let mut json = Vec::new();
    write_cluster_json(&mut json, &SynthSpec::small()).unwrap();
    let (c, _) = load_snapshot_bytes(&json, "synth.json").unwrap();
    let scheduler = kplace::engine::Scheduler::default();
    // Tainted and cordoned nodes, node selectors and several zones: the
    // static verdicts the memo keeps are rejections as well as passes.
    let drained: Vec<u32> = (0..c.nodes.len() as u32).step_by(7).collect();
    let mut some_unplaced = false;
    for disruption in [
        Disruption::LoseZone("us-east-1a".into()),
        Disruption::LoseZone("us-east-1c".into()),
        Disruption::Drain(drained),
    ] {
        let memoized = simulate(&c, &disruption, &scheduler);
        let exhaustive = simulate_exhaustive(&c, &disruption, &scheduler);
        assert!(
            memoized.displaced.iter().filter(|d| d.landed()).count() > 100,
            "{disruption:?} re-places pods"
        );
        some_unplaced |= memoized
            .displaced
            .iter()
            .any(|d| d.landing.as_ref().is_some_and(|l| l.node.is_none()));
        assert_eq!(landings(&memoized), landings(&exhaustive), "{disruption:?}");
        assert_eq!(memoized.broken_pdbs, exhaustive.broken_pdbs);
        assert_eq!(
            format!("{:?}", memoized.workload_skew),
            format!("{:?}", exhaustive.workload_skew)
        );
    }
    assert!(
        some_unplaced,
        "some pod is left unplaced, so rejection messages are compared too"
    );
}

#[test]
fn a_pod_shape_with_hundreds_of_distinct_rejections_is_answered_in_full() {
    use kplace::engine::node_memo::NodeMemo;
    use kplace::engine::{Scheduler, place, place_with};
    use kplace::source::file::load_pod_bytes;
    // 300 nodes, each with its own taint: 300 distinct TaintToleration
    // messages, more than a memo keeps for one shape; one node is clean.
    let mut yaml = String::from("apiVersion: v1\nkind: List\nitems:\n");
    for i in 0..300 {
        yaml.push_str(&format!(
            "- {{apiVersion: v1, kind: Node, metadata: {{name: n{i}}}, spec: {{taints: [{{key: team, value: t{i}, effect: NoSchedule}}]}}, status: {{allocatable: {{cpu: \"4\", memory: 8Gi, pods: \"10\"}}}}}}\n"
        ));
    }
    yaml.push_str("- {apiVersion: v1, kind: Node, metadata: {name: clean}, status: {allocatable: {cpu: \"4\", memory: 8Gi, pods: \"10\"}}}\n");
    let (mut c, _) = load_snapshot_bytes(yaml.as_bytes(), "taints.yaml").unwrap();
    let pod = load_pod_bytes(
        b"apiVersion: v1\nkind: Pod\nmetadata: {name: p, namespace: default}\nspec: {containers: [{name: c, image: i}]}\n",
        "pod.yaml",
        &mut c.interner,
    )
    .unwrap();
    let scheduler = Scheduler::default();
    let full = place(&c, &pod, &scheduler);
    assert_eq!(full.failures.len(), 300);
    assert_eq!(full.node.map(|n| &*c.node(n).name), Some("clean"));
    let memo = NodeMemo::new(&c);
    for _ in 0..3 {
        let memoized = place_with(&c, &pod, &scheduler, Some(&memo));
        assert_eq!(format!("{memoized:?}"), format!("{full:?}"));
    }
    // A memo for placed pods without their failures leaves them out for a
    // shape it refused too, as it promises.
    let lean_memo = NodeMemo::new(&c).without_failures_of_placed_pods();
    let mut expected = full.clone();
    expected.failures.clear();
    for _ in 0..2 {
        let lean = place_with(&c, &pod, &scheduler, Some(&lean_memo));
        assert_eq!(format!("{lean:?}"), format!("{expected:?}"));
    }
}

#[test]
fn a_memo_without_failures_of_placed_pods_still_gives_every_failure_when_nothing_fits() {
    nothing_fits_on(12);
    // Enough nodes failing after the memo's prefix for their rejections
    // to be built over both cores: each must still be its own node's.
    nothing_fits_on(1_500);
}

/// [`a_memo_without_failures_of_placed_pods_still_gives_every_failure_when_nothing_fits`]
/// on `nodes` nodes.
fn nothing_fits_on(nodes: usize) {
    use kplace::engine::node_memo::NodeMemo;
    use kplace::engine::{Scheduler, place, place_with};
    use kplace::source::file::load_pod_bytes;
    // Tainted nodes (rejected by the memo's static prefix) alternate with
    // nodes too small for the pod (rejected by NodeResourcesFit, which
    // runs), so the failures of both kinds interleave in node order.
    let mut yaml = String::from("apiVersion: v1\nkind: List\nitems:\n");
    for i in 0..nodes {
        let taints = if i % 2 == 0 {
            format!(
                "spec: {{taints: [{{key: team, value: t{}, effect: NoSchedule}}]}}, ",
                i % 4
            )
        } else {
            String::new()
        };
        yaml.push_str(&format!(
            "- {{apiVersion: v1, kind: Node, metadata: {{name: n{i:04}}}, {taints}status: {{allocatable: {{cpu: \"1\", memory: 8Gi, pods: \"10\"}}}}}}\n"
        ));
    }
    let (mut c, _) = load_snapshot_bytes(yaml.as_bytes(), "nodes.yaml").unwrap();
    let pod_of = |cpu: &str, c: &mut kplace::model::Cluster| {
        load_pod_bytes(
            format!("apiVersion: v1\nkind: Pod\nmetadata: {{name: p, namespace: default}}\nspec: {{containers: [{{name: c, image: i, resources: {{requests: {{cpu: \"{cpu}\"}}}}}}]}}\n").as_bytes(),
            "pod.yaml",
            &mut c.interner,
        )
        .unwrap()
    };
    let scheduler = Scheduler::default();

    // Nothing fits: the answer is the full one, failures in node order.
    let big = pod_of("2", &mut c);
    let split_before = kplace_split::passes_split();
    let full = place(&c, &big, &scheduler);
    let split_in_full = kplace_split::passes_split() - split_before;
    assert_eq!(full.node, None);
    assert_eq!(full.failures.len(), nodes);
    let memo = NodeMemo::new(&c).without_failures_of_placed_pods();
    for round in 0..2 {
        let split_before = kplace_split::passes_split();
        let lean = place_with(&c, &big, &scheduler, Some(&memo));
        assert_eq!(format!("{lean:?}"), format!("{full:?}"));
        // Once the memo has the shape's entry (made in the first round):
        // the passes of the full run, and the rejections of the nodes
        // failing after the prefix, split once there are enough of them.
        let split = kplace_split::passes_split() - split_before;
        let expected = split_in_full + u64::from(nodes / 2 >= kplace_split::MIN_NODES);
        if round > 0 {
            assert_eq!(split, expected, "passes split on {nodes} nodes");
        }
    }
    assert!(
        full.message
            .contains(&format!("{} Insufficient cpu", nodes / 2))
            && full.message.contains("node(s) had untolerated taint"),
        "{}",
        full.message
    );

    // The pod fits: the same answer without the failures.
    let small = pod_of("500m", &mut c);
    let mut full = place(&c, &small, &scheduler);
    assert_eq!(full.failures.len(), nodes / 2);
    assert!(full.node.is_some());
    let lean = place_with(&c, &small, &scheduler, Some(&memo));
    assert!(lean.failures.is_empty());
    full.failures.clear();
    assert_eq!(format!("{lean:?}"), format!("{full:?}"));
}

#[test]
fn a_memo_keeps_image_scores_per_list_of_images() {
    use kplace::engine::node_memo::NodeMemo;
    use kplace::engine::{Scheduler, place, place_with};
    use kplace::source::file::load_pod_bytes;
    // Nodes with either, both or neither image; pods whose lists share
    // their first image but not their length or order, each placed on
    // one memo in turn, must get the scores a full run gives them.
    let node = |name: &str, images: &[&str]| {
        let images: Vec<String> = images
            .iter()
            .map(|i| format!("{{names: [\"{i}\"], sizeBytes: 943718400}}"))
            .collect();
        format!(
            "- {{apiVersion: v1, kind: Node, metadata: {{name: {name}}}, status: {{allocatable: {{cpu: \"4\", memory: 8Gi, pods: \"10\"}}, images: [{}]}}}}\n",
            images.join(", ")
        )
    };
    let mut yaml = String::from("apiVersion: v1\nkind: List\nitems:\n");
    yaml.push_str(&node("a-only", &["reg/a:1"]));
    yaml.push_str(&node("both", &["reg/a:1", "reg/b:1"]));
    yaml.push_str(&node("b-only", &["reg/b:1"]));
    yaml.push_str(&node("neither", &[]));
    let (mut c, _) = load_snapshot_bytes(yaml.as_bytes(), "images.yaml").unwrap();
    let pod = |images: &[&str], c: &mut kplace::model::Cluster| {
        let containers: Vec<String> = images
            .iter()
            .enumerate()
            .map(|(n, i)| format!("{{name: c{n}, image: \"{i}\"}}"))
            .collect();
        let manifest = format!(
            "apiVersion: v1\nkind: Pod\nmetadata: {{name: p, namespace: default}}\nspec: {{containers: [{}]}}\n",
            containers.join(", ")
        );
        load_pod_bytes(manifest.as_bytes(), "pod.yaml", &mut c.interner).unwrap()
    };
    let pods = [
        pod(&["reg/a:1", "reg/b:1"], &mut c),
        pod(&["reg/a:1"], &mut c),
        pod(&["reg/b:1", "reg/a:1"], &mut c),
        pod(&["reg/b:1"], &mut c),
    ];
    let scheduler = Scheduler::default();
    let full: Vec<_> = pods.iter().map(|p| place(&c, p, &scheduler)).collect();
    // The lists score the nodes differently, or this test could not tell
    // one list's kept scores from another's.
    assert_ne!(
        format!("{:?}", full[0].scores),
        format!("{:?}", full[1].scores)
    );
    assert_ne!(
        format!("{:?}", full[1].scores),
        format!("{:?}", full[3].scores)
    );
    let memo = NodeMemo::new(&c);
    for _ in 0..2 {
        for (p, expected) in pods.iter().zip(&full) {
            let memoized = place_with(&c, p, &scheduler, Some(&memo));
            assert_eq!(format!("{memoized:?}"), format!("{expected:?}"));
        }
    }
}

/// Every zone of a cluster, and every other node (a drain-sized loss that
/// leaves nodes of each zone), as sets of node ids to lose.
fn losses(c: &Cluster) -> Vec<Vec<u32>> {
    let zone_of = |n: u32| {
        c.interner
            .lookup(ZONE_LABEL)
            .and_then(|key| c.node(n).labels.get(key))
    };
    let mut zones: Vec<_> = (0..c.nodes.len() as u32).map(zone_of).collect();
    zones.sort();
    zones.dedup();
    let mut out: Vec<Vec<u32>> = zones
        .iter()
        .map(|&zone| {
            (0..c.nodes.len() as u32)
                .filter(|&n| zone_of(n) == zone)
                .collect()
        })
        .collect();
    out.push((0..c.nodes.len() as u32).step_by(2).collect());
    out.push(vec![c.nodes.len() as u32 - 1]);
    out
}

fn assert_fork_equals_rebuild(c: &Cluster, gone: &[u32], what: &str) {
    let fork = c.without_nodes(gone);
    let rebuilt = c.without_nodes_rebuilt(gone);
    // The comparison sees a change: the cluster itself still has the nodes.
    assert!(!c.model_differences(&fork).is_empty(), "{what}");
    let differences: Vec<String> = fork
        .model_differences(&rebuilt)
        .into_iter()
        .take(6)
        .collect();
    assert!(
        differences.is_empty(),
        "{what}, losing {} node(s): {differences:#?}",
        gone.len()
    );
}

#[test]
fn a_fork_without_nodes_equals_the_cluster_built_anew_without_them() {
    use kplace::synth::{SynthSpec, write_cluster_json};
    let mut json = Vec::new();
    write_cluster_json(&mut json, &SynthSpec::small()).unwrap();
    let (c, _) = load_snapshot_bytes(&json, "synth.json").unwrap();
    for gone in losses(&c) {
        assert_fork_equals_rebuild(&c, &gone, "the synthetic cluster");
    }
    // Every snapshot of the conformance corpus: its PDBs, nominated pods,
    // affinity groups, claims and ports.
    let cases = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/conformance/cases");
    let mut checked = 0;
    for entry in std::fs::read_dir(&cases).expect("the corpus") {
        let dir = entry.unwrap().path();
        let Ok((c, _)) = kplace::source::file::load_snapshot(&dir.join("snapshot.yaml.gz")) else {
            continue;
        };
        if c.nodes.is_empty() {
            continue;
        }
        for gone in losses(&c) {
            assert_fork_equals_rebuild(&c, &gone, &dir.display().to_string());
        }
        checked += 1;
    }
    assert!(checked > 100, "only {checked} snapshots checked");
}

/// Nodes at the edge of NodeResourcesFit: one pod slot left, exactly one
/// displaced pod's cpu left, a byte of memory short, and a node whose pod
/// sets pod-level requests above its containers' (v1.34 counts those).
/// The drained node's pods land there in turn, so a node's dense sums
/// ([`kplace::model::NodeLoad`]) must follow every bind exactly: the
/// memoized run reads them, the exhaustive one the node's aggregates.
const AT_THE_EDGE: &str = r#"
apiVersion: v1
kind: List
items:
- {apiVersion: v1, kind: Node, metadata: {name: src}, status: {allocatable: {cpu: "64", memory: 64Gi, pods: "110"}}}
- {apiVersion: v1, kind: Node, metadata: {name: slots}, status: {allocatable: {cpu: "64", memory: 64Gi, pods: "2"}}}
- {apiVersion: v1, kind: Node, metadata: {name: cpu}, status: {allocatable: {cpu: "2", memory: 64Gi, pods: "110"}}}
- {apiVersion: v1, kind: Node, metadata: {name: mem}, status: {allocatable: {cpu: "64", memory: "2147483647", pods: "110"}}}
- {apiVersion: v1, kind: Node, metadata: {name: podlevel}, status: {allocatable: {cpu: "3", memory: 64Gi, pods: "110"}}}
- {apiVersion: v1, kind: Pod, metadata: {name: s0, namespace: d}, spec: {nodeName: slots, containers: [{name: c, image: i}]}, status: {phase: Running}}
- {apiVersion: v1, kind: Pod, metadata: {name: c0, namespace: d}, spec: {nodeName: cpu, containers: [{name: c, image: i, resources: {requests: {cpu: "1"}}}]}, status: {phase: Running}}
- {apiVersion: v1, kind: Pod, metadata: {name: m0, namespace: d}, spec: {nodeName: mem, containers: [{name: c, image: i, resources: {requests: {memory: "1073741824"}}}]}, status: {phase: Running}}
- {apiVersion: v1, kind: Pod, metadata: {name: p0, namespace: d}, spec: {nodeName: podlevel, resources: {requests: {cpu: "2"}}, containers: [{name: c, image: i, resources: {requests: {cpu: "1"}}}]}, status: {phase: Running}}
- {apiVersion: v1, kind: Pod, metadata: {name: w0, namespace: d, ownerReferences: [{apiVersion: apps/v1, kind: ReplicaSet, name: w, uid: u, controller: true}]}, spec: {nodeName: src, containers: [{name: c, image: i, resources: {requests: {cpu: "1", memory: "1073741824"}}}]}, status: {phase: Running}}
- {apiVersion: v1, kind: Pod, metadata: {name: w1, namespace: d, ownerReferences: [{apiVersion: apps/v1, kind: ReplicaSet, name: w, uid: u, controller: true}]}, spec: {nodeName: src, containers: [{name: c, image: i, resources: {requests: {cpu: "1", memory: "1073741824"}}}]}, status: {phase: Running}}
- {apiVersion: v1, kind: Pod, metadata: {name: w2, namespace: d, ownerReferences: [{apiVersion: apps/v1, kind: ReplicaSet, name: w, uid: u, controller: true}]}, spec: {nodeName: src, containers: [{name: c, image: i, resources: {requests: {cpu: "1", memory: "1073741824"}}}]}, status: {phase: Running}}
- {apiVersion: v1, kind: Pod, metadata: {name: w3, namespace: d, ownerReferences: [{apiVersion: apps/v1, kind: ReplicaSet, name: w, uid: u, controller: true}]}, spec: {nodeName: src, containers: [{name: c, image: i, resources: {requests: {cpu: "1", memory: "1073741824"}}}]}, status: {phase: Running}}
- {apiVersion: v1, kind: Pod, metadata: {name: w4, namespace: d, ownerReferences: [{apiVersion: apps/v1, kind: ReplicaSet, name: w, uid: u, controller: true}]}, spec: {nodeName: src, containers: [{name: c, image: i, resources: {requests: {cpu: "1", memory: "1073741824"}}}]}, status: {phase: Running}}
- {apiVersion: v1, kind: Pod, metadata: {name: w5, namespace: d, ownerReferences: [{apiVersion: apps/v1, kind: ReplicaSet, name: w, uid: u, controller: true}]}, spec: {nodeName: src, containers: [{name: c, image: i, resources: {requests: {cpu: "1", memory: "1073741824"}}}]}, status: {phase: Running}}
- {apiVersion: v1, kind: Pod, metadata: {name: w6, namespace: d, ownerReferences: [{apiVersion: apps/v1, kind: ReplicaSet, name: w, uid: u, controller: true}]}, spec: {nodeName: src, containers: [{name: c, image: i, resources: {requests: {cpu: "1", memory: "1073741824"}}}]}, status: {phase: Running}}
- {apiVersion: v1, kind: Pod, metadata: {name: w7, namespace: d, ownerReferences: [{apiVersion: apps/v1, kind: ReplicaSet, name: w, uid: u, controller: true}]}, spec: {nodeName: src, containers: [{name: c, image: i, resources: {requests: {cpu: "1", memory: "1073741824"}}}]}, status: {phase: Running}}
"#;

#[test]
fn memoized_disruptions_follow_each_node_to_the_edge_of_its_resources() {
    // As they are, NodeResourcesFit is the only filter left after the
    // memo's; with a spread constraint that never binds, PodTopologySpread
    // runs after it.
    let spread = AT_THE_EDGE
        .replace(
            "spec: {nodeName: src,",
            "spec: {topologySpreadConstraints: [{maxSkew: 100, topologyKey: kplace/any, \
             whenUnsatisfiable: DoNotSchedule, labelSelector: {matchLabels: {app: w}}}], \
             nodeName: src,",
        )
        .replace("metadata: {name: w", "metadata: {labels: {app: w}, name: w")
        .replace(
            "kind: Node, metadata: {name: ",
            "kind: Node, metadata: {labels: {kplace/any: x}, name: ",
        );
    assert_eq!(spread.matches("kplace/any").count(), 8 + 5);
    for snapshot in [AT_THE_EDGE, &spread] {
        at_the_edge(snapshot);
    }
}

fn at_the_edge(snapshot: &str) {
    use kplace::engine::{Scheduler, Version, VersionChoice};
    let c = load_snapshot_bytes(snapshot.as_bytes(), "test").unwrap().0;
    let src = c.node_id("src").unwrap();
    for version in Version::ALL {
        let scheduler = Scheduler::new(VersionChoice::flag(version));
        let drain = Disruption::Drain(vec![src]);
        let memoized = simulate(&c, &drain, &scheduler);
        let exhaustive = simulate_exhaustive(&c, &drain, &scheduler);
        assert_eq!(landings(&memoized), landings(&exhaustive), "{version:?}");
        // Each edge is reached: one pod on `slots`, one on `cpu`, none on
        // `mem`, and on `podlevel` (3 cpus) one from v1.34, which counts
        // its pod's 2 pod-level cpus, two before it, which count 1.
        let on = |node: &str| {
            memoized
                .displaced
                .iter()
                .filter(|d| d.landing.as_ref().and_then(|l| l.node.as_deref()) == Some(node))
                .count()
        };
        let podlevel = if version >= Version::V1_34 { 1 } else { 2 };
        assert_eq!(
            (on("slots"), on("cpu"), on("mem"), on("podlevel")),
            (1, 1, 0, podlevel),
            "{version:?}"
        );
        assert_eq!(
            memoized.cluster.stale_loads(),
            Vec::<u32>::new(),
            "{version:?}"
        );
    }
}

/// A zone whose only matching pods sit on a node the re-placed pod cannot
/// use (tainted, or outside its node selector): with the inclusion policy
/// honored, spreading does not count them, so the zone looks empty and
/// wins. The memoized plan answers the policies from the memo's verdicts
/// for the nodes that pass them, and must still ask them for the rest.
const INCLUSION: &str = r#"
apiVersion: v1
kind: List
items:
- {apiVersion: v1, kind: Node, metadata: {name: src, labels: {topology.kubernetes.io/zone: s, pool: general}}, status: {allocatable: {cpu: "8", memory: 8Gi, pods: "10"}}}
- {apiVersion: v1, kind: Node, metadata: {name: a1, labels: {topology.kubernetes.io/zone: a, pool: OTHER}}, spec: {TAINTS}, status: {allocatable: {cpu: "8", memory: 8Gi, pods: "10"}}}
- {apiVersion: v1, kind: Node, metadata: {name: a2, labels: {topology.kubernetes.io/zone: a, pool: general}}, status: {allocatable: {cpu: "8", memory: 8Gi, pods: "10"}}}
- {apiVersion: v1, kind: Node, metadata: {name: b1, labels: {topology.kubernetes.io/zone: b, pool: general}}, status: {allocatable: {cpu: "8", memory: 8Gi, pods: "10"}}}
- {apiVersion: v1, kind: Pod, metadata: {name: t1, namespace: d, labels: {app: w}}, spec: {nodeName: a1, tolerations: [{key: dedicated, operator: Exists}], containers: [{name: c, image: i}]}, status: {phase: Running}}
- {apiVersion: v1, kind: Pod, metadata: {name: t2, namespace: d, labels: {app: w}}, spec: {nodeName: a1, tolerations: [{key: dedicated, operator: Exists}], containers: [{name: c, image: i}]}, status: {phase: Running}}
- {apiVersion: v1, kind: Pod, metadata: {name: t3, namespace: d, labels: {app: w}}, spec: {nodeName: a1, tolerations: [{key: dedicated, operator: Exists}], containers: [{name: c, image: i}]}, status: {phase: Running}}
- {apiVersion: v1, kind: Pod, metadata: {name: other, namespace: d, labels: {app: other}}, spec: {nodeName: a2, containers: [{name: c, image: i, resources: {requests: {cpu: "1", memory: 1Gi}}}]}, status: {phase: Running}}
- {apiVersion: v1, kind: Pod, metadata: {name: b, namespace: d, labels: {app: w}}, spec: {nodeName: b1, containers: [{name: c, image: i, resources: {requests: {cpu: "1", memory: 1Gi}}}]}, status: {phase: Running}}
- {apiVersion: v1, kind: Pod, metadata: {name: moved, namespace: d, labels: {app: w}, ownerReferences: [{apiVersion: apps/v1, kind: ReplicaSet, name: w, uid: u, controller: true}]}, spec: {nodeName: src, SELECTOR topologySpreadConstraints: [{maxSkew: 1, topologyKey: topology.kubernetes.io/zone, whenUnsatisfiable: ScheduleAnyway, nodeTaintsPolicy: Honor, labelSelector: {matchLabels: {app: w}}}], containers: [{name: c, image: i, resources: {requests: {cpu: "1", memory: 1Gi}}}]}, status: {phase: Running}}
"#;

/// Drains node `src` of `snapshot` under every release: the memoized plan
/// places every pod as the exhaustive one does, and the first displaced
/// pod lands on `expected`.
fn assert_memoized_drain_lands_on(snapshot: &str, expected: &str) {
    use kplace::engine::{Scheduler, Version, VersionChoice};
    let c = load_snapshot_bytes(snapshot.as_bytes(), "test").unwrap().0;
    let drain = Disruption::Drain(vec![c.node_id("src").unwrap()]);
    for version in Version::ALL {
        let scheduler = Scheduler::new(VersionChoice::flag(version));
        let memoized = simulate(&c, &drain, &scheduler);
        let exhaustive = simulate_exhaustive(&c, &drain, &scheduler);
        assert_eq!(
            landings(&memoized),
            landings(&exhaustive),
            "{version:?}\n{snapshot}"
        );
        let landing = memoized.displaced[0].landing.as_ref().unwrap();
        assert_eq!(
            landing.node.as_deref(),
            Some(expected),
            "{version:?}\n{snapshot}"
        );
    }
}

#[test]
fn memoized_disruptions_honor_spreading_inclusion_policies_in_scores() {
    let tainted = INCLUSION
        .replace(
            "TAINTS",
            "taints: [{key: dedicated, value: x, effect: NoSchedule}]",
        )
        .replace("pool: OTHER", "pool: general")
        .replace("SELECTOR ", "");
    let elsewhere = INCLUSION
        .replace("TAINTS", "")
        .replace("pool: OTHER", "pool: gpu")
        .replace("SELECTOR", "nodeSelector: {pool: general},");
    for snapshot in [tainted, elsewhere] {
        // a1's three pods are not counted: zone a has none, b has one.
        assert_memoized_drain_lands_on(&snapshot, "a2");
    }
}

/// Nodes in three states of the zone key: `empty` has the key with the
/// empty value and one matching pod, `b1` has zone b and two, `nokey`
/// lacks the key (and holds a larger, unmatched pod, so that resources
/// alone would rank it last). The re-placed pod prefers to keep away from
/// its workload's zones: `nokey`, in no zone, is the only node the
/// preference does not lower. A memo scores InterPodAffinity by the zone
/// column's numbered values, in which a node without the key shares the
/// empty value's number; it must still score 0 there.
const PREFERRED_ANTI_AFFINITY: &str = r#"
apiVersion: v1
kind: List
items:
- {apiVersion: v1, kind: Node, metadata: {name: src, labels: {topology.kubernetes.io/zone: s}}, status: {allocatable: {cpu: "8", memory: 8Gi, pods: "10"}}}
- {apiVersion: v1, kind: Node, metadata: {name: empty, labels: {topology.kubernetes.io/zone: ""}}, status: {allocatable: {cpu: "8", memory: 8Gi, pods: "10"}}}
- {apiVersion: v1, kind: Node, metadata: {name: b1, labels: {topology.kubernetes.io/zone: b}}, status: {allocatable: {cpu: "8", memory: 8Gi, pods: "10"}}}
- {apiVersion: v1, kind: Node, metadata: {name: nokey}, status: {allocatable: {cpu: "8", memory: 8Gi, pods: "10"}}}
- {apiVersion: v1, kind: Pod, metadata: {name: e, namespace: d, labels: {app: w}}, spec: {nodeName: empty, containers: [{name: c, image: i, resources: {requests: {cpu: "1", memory: 1Gi}}}]}, status: {phase: Running}}
- {apiVersion: v1, kind: Pod, metadata: {name: b-1, namespace: d, labels: {app: w}}, spec: {nodeName: b1, containers: [{name: c, image: i, resources: {requests: {cpu: "500m", memory: 512Mi}}}]}, status: {phase: Running}}
- {apiVersion: v1, kind: Pod, metadata: {name: b-2, namespace: d, labels: {app: w}}, spec: {nodeName: b1, containers: [{name: c, image: i, resources: {requests: {cpu: "500m", memory: 512Mi}}}]}, status: {phase: Running}}
- {apiVersion: v1, kind: Pod, metadata: {name: big, namespace: d, labels: {app: other}}, spec: {nodeName: nokey, containers: [{name: c, image: i, resources: {requests: {cpu: "4", memory: 4Gi}}}]}, status: {phase: Running}}
- {apiVersion: v1, kind: Pod, metadata: {name: moved, namespace: d, labels: {app: w}, ownerReferences: [{apiVersion: apps/v1, kind: ReplicaSet, name: w, uid: u, controller: true}]}, spec: {nodeName: src, affinity: {podAntiAffinity: {preferredDuringSchedulingIgnoredDuringExecution: [{weight: 100, podAffinityTerm: {topologyKey: topology.kubernetes.io/zone, labelSelector: {matchLabels: {app: w}}}}]}}, containers: [{name: c, image: i, resources: {requests: {cpu: "1", memory: 1Gi}}}]}, status: {phase: Running}}
"#;

#[test]
fn memoized_disruptions_score_pod_affinity_only_on_nodes_with_the_key() {
    assert_memoized_drain_lands_on(PREFERRED_ANTI_AFFINITY, "nokey");
}

/// The re-placed pod spreads by the system's default constraints (zone
/// and hostname, ScheduleAnyway, selected by its Service), under which
/// nodes without a key are scored, not ignored: `nokey1` and `nokey2` lack
/// the zone key and score nothing for it, though `nokey1` holds three
/// matching pods and the empty value registers. A memo reads each node's
/// zone from its column, in which a node without the key has the empty
/// value's number; counting nokey1's pods there would let `a1` win.
/// (`nokey2` holds a large unmatched pod, so that spreading decides.)
const SPREAD_WITHOUT_KEY: &str = r#"
apiVersion: v1
kind: List
items:
- {apiVersion: v1, kind: Service, metadata: {name: w, namespace: d}, spec: {selector: {app: w}}}
- {apiVersion: v1, kind: Node, metadata: {name: src, labels: {kubernetes.io/hostname: src, topology.kubernetes.io/zone: s}}, status: {allocatable: {cpu: "8", memory: 8Gi, pods: "10"}}}
- {apiVersion: v1, kind: Node, metadata: {name: a1, labels: {kubernetes.io/hostname: a1, topology.kubernetes.io/zone: a}}, status: {allocatable: {cpu: "8", memory: 8Gi, pods: "10"}}}
- {apiVersion: v1, kind: Node, metadata: {name: nokey1, labels: {kubernetes.io/hostname: nokey1}}, status: {allocatable: {cpu: "8", memory: 8Gi, pods: "10"}}}
- {apiVersion: v1, kind: Node, metadata: {name: nokey2, labels: {kubernetes.io/hostname: nokey2}}, status: {allocatable: {cpu: "8", memory: 8Gi, pods: "10"}}}
- {apiVersion: v1, kind: Pod, metadata: {name: a-1, namespace: d, labels: {app: w}}, spec: {nodeName: a1, containers: [{name: c, image: i}]}, status: {phase: Running}}
- {apiVersion: v1, kind: Pod, metadata: {name: a-2, namespace: d, labels: {app: w}}, spec: {nodeName: a1, containers: [{name: c, image: i}]}, status: {phase: Running}}
- {apiVersion: v1, kind: Pod, metadata: {name: k-1, namespace: d, labels: {app: w}}, spec: {nodeName: nokey1, containers: [{name: c, image: i}]}, status: {phase: Running}}
- {apiVersion: v1, kind: Pod, metadata: {name: k-2, namespace: d, labels: {app: w}}, spec: {nodeName: nokey1, containers: [{name: c, image: i}]}, status: {phase: Running}}
- {apiVersion: v1, kind: Pod, metadata: {name: k-3, namespace: d, labels: {app: w}}, spec: {nodeName: nokey1, containers: [{name: c, image: i}]}, status: {phase: Running}}
- {apiVersion: v1, kind: Pod, metadata: {name: big, namespace: d, labels: {app: other}}, spec: {nodeName: nokey2, containers: [{name: c, image: i, resources: {requests: {cpu: "4", memory: 4Gi}}}]}, status: {phase: Running}}
- {apiVersion: v1, kind: Pod, metadata: {name: moved, namespace: d, labels: {app: w}, ownerReferences: [{apiVersion: apps/v1, kind: ReplicaSet, name: w, uid: u, controller: true}]}, spec: {nodeName: src, containers: [{name: c, image: i, resources: {requests: {cpu: "1", memory: 1Gi}}}]}, status: {phase: Running}}
"#;

#[test]
fn memoized_disruptions_score_spreading_only_on_nodes_with_the_key() {
    assert_memoized_drain_lands_on(SPREAD_WITHOUT_KEY, "nokey2");
}
