use kplace::engine::{self, Outcome};
use kplace::source::file::{load_pod_bytes, load_snapshot_bytes};

/// One 4-cpu node full of three 1-cpu `app=web` pods guarded by a PDB
/// with `minAvailable: 2` and no status; a 2-cpu high-priority pod.
const SNAPSHOT: &str = r#"
apiVersion: v1
kind: List
items:
- {apiVersion: v1, kind: Node, metadata: {name: n1}, status: {allocatable: {cpu: "3", memory: 8Gi, pods: "10"}}}
- apiVersion: policy/v1
  kind: PodDisruptionBudget
  metadata: {name: web, namespace: shop}
  spec: {minAvailable: 2, selector: {matchLabels: {app: web}}}
- {apiVersion: v1, kind: Pod, metadata: {name: w1, namespace: shop, labels: {app: web}}, spec: {nodeName: n1, priority: 0, containers: [{name: c, image: i, resources: {requests: {cpu: "1"}}}]}, status: {phase: Running, startTime: "2024-01-01T00:00:00Z"}}
- {apiVersion: v1, kind: Pod, metadata: {name: w2, namespace: shop, labels: {app: web}}, spec: {nodeName: n1, priority: 0, containers: [{name: c, image: i, resources: {requests: {cpu: "1"}}}]}, status: {phase: Running, startTime: "2024-01-01T00:00:01Z"}}
- {apiVersion: v1, kind: Pod, metadata: {name: w3, namespace: shop, labels: {app: web}}, spec: {nodeName: n1, priority: 0, containers: [{name: c, image: i, resources: {requests: {cpu: "1"}}}]}, status: {phase: Running, startTime: "2024-01-01T00:00:02Z"}}
- {apiVersion: scheduling.k8s.io/v1, kind: PriorityClass, metadata: {name: high}, value: 1000}
"#;

#[test]
fn pdb_without_status_is_computed_and_said() {
    let (mut cluster, _) = load_snapshot_bytes(SNAPSHOT.as_bytes(), "test").unwrap();
    let pdb = &cluster.pdbs[0];
    assert!(pdb.computed);
    assert_eq!(
        pdb.disruptions_allowed,
        Some(1),
        "3 healthy - minAvailable 2"
    );
    let pod = "apiVersion: v1\nkind: Pod\nmetadata: {name: big, namespace: shop}\nspec:\n  priorityClassName: high\n  containers: [{name: c, image: i, resources: {requests: {cpu: '2'}}}]\n";
    let pod = load_pod_bytes(pod.as_bytes(), "pod", &mut cluster.interner).unwrap();
    let answer = engine::place(&cluster, &pod, &engine::Scheduler::default());
    assert_eq!(answer.outcome, Outcome::Preempt);
    let pre = answer.preemption.as_ref().unwrap();
    // Two victims needed; the budget allows one, so one eviction breaks the PDB.
    assert_eq!(pre.victims.len(), 2);
    assert_eq!(pre.candidates[0].num_pdb_violations, 1);
    assert_eq!(pre.computed_pdbs, vec![("shop/web".to_string(), 1)]);
    assert!(
        answer
            .notes
            .iter()
            .any(|n| n.contains("shop/web has no status"))
    );
}

/// Pods bound during a what-if (a disruption re-placing them, replicas
/// placed in turn) join their node through `bind_pod`: preemption must
/// still see the PDB that selects them, as it does for pods of the snapshot.
#[test]
fn pods_bound_in_a_what_if_keep_their_pdb_in_preemption() {
    let (mut cluster, _) = load_snapshot_bytes(SNAPSHOT.as_bytes(), "test").unwrap();
    let pod = "apiVersion: v1\nkind: Pod\nmetadata: {name: big, namespace: shop}\nspec:\n  priorityClassName: high\n  containers: [{name: c, image: i, resources: {requests: {cpu: '2'}}}]\n";
    let pod = load_pod_bytes(pod.as_bytes(), "pod", &mut cluster.interner).unwrap();
    let before = engine::place(&cluster, &pod, &engine::Scheduler::default());
    let node = cluster.node_id("n1").unwrap();
    for name in ["w1", "w2", "w3"] {
        let id = cluster.find_pod("shop", name).unwrap();
        cluster.unbind_pod(id);
        cluster.bind_pod(id, node);
        assert_eq!(
            cluster.node_info(node).briefs[cluster.node_info(node).pods.len() - 1],
            cluster.brief_of(id),
            "{name}'s brief on n1"
        );
    }
    let after = engine::place(&cluster, &pod, &engine::Scheduler::default());
    let (before, after) = (before.preemption.unwrap(), after.preemption.unwrap());
    assert_eq!(after.candidates[0].num_pdb_violations, 1);
    assert_eq!(after.candidates, before.candidates);
}

/// A pod selected by two PDBs uses up a disruption of each: with one of
/// them at zero, every victim breaks a budget, so the reprieve keeps the
/// most important pod and evicts the next two (with one PDB alone, the
/// first victim stays within its budget and is evicted last).
#[test]
fn a_pod_under_two_pdbs_uses_up_both() {
    let two = SNAPSHOT.replace(
        "- apiVersion: policy/v1\n  kind: PodDisruptionBudget\n  metadata: {name: web, namespace: shop}",
        "- apiVersion: policy/v1\n  kind: PodDisruptionBudget\n  metadata: {name: frozen, namespace: shop}\n  spec: {maxUnavailable: 0, selector: {matchLabels: {app: web}}}\n- apiVersion: policy/v1\n  kind: PodDisruptionBudget\n  metadata: {name: web, namespace: shop}",
    );
    let victims = |snapshot: &str| {
        let (mut cluster, _) = load_snapshot_bytes(snapshot.as_bytes(), "test").unwrap();
        let pod = "apiVersion: v1\nkind: Pod\nmetadata: {name: big, namespace: shop}\nspec:\n  priorityClassName: high\n  containers: [{name: c, image: i, resources: {requests: {cpu: '2'}}}]\n";
        let pod = load_pod_bytes(pod.as_bytes(), "pod", &mut cluster.interner).unwrap();
        let answer = engine::place(&cluster, &pod, &engine::Scheduler::default());
        let candidate = answer.preemption.unwrap().candidates[0].clone();
        let names: Vec<String> = candidate
            .victims
            .iter()
            .map(|&v| cluster.pod(v).name.to_string())
            .collect();
        (names, candidate.num_pdb_violations)
    };
    assert_eq!(victims(&two), (vec!["w2".into(), "w3".into()], 2));
    assert_eq!(victims(SNAPSHOT), (vec!["w3".into(), "w1".into()], 1));
}

/// A pod whose labels are all removed by an update (a watch `Modified`)
/// leaves the PDB that selected it: its eviction no longer uses up that
/// budget, in the PDB index and in the brief preemption reads.
#[test]
fn a_pod_that_loses_its_labels_leaves_its_pdb() {
    let (mut cluster, _) = load_snapshot_bytes(SNAPSHOT.as_bytes(), "test").unwrap();
    let id = cluster.find_pod("shop", "w1").unwrap();
    assert_eq!(cluster.pdbs_of_pod(id), &[0]);
    let mut unlabelled = cluster.pod(id).clone();
    unlabelled.labels = Default::default();
    let id = cluster.upsert_pod(unlabelled);
    assert!(cluster.pdbs_of_pod(id).is_empty());
    let node = cluster.node_id("n1").unwrap();
    let info = cluster.node_info(node);
    let at = info.pods.iter().position(|&p| p == id).unwrap();
    assert_eq!(info.briefs[at], cluster.brief_of(id));
    assert_eq!(info.briefs[at].pdbs(), kplace::model::BriefPdbs::None);
}
