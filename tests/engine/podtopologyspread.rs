use crate::support::{cluster_from_yaml, pod_from_yaml};
use kplace::engine::{Scheduler, place};

/// Three like nodes in three zones and regions: two `app: a` pods on `n1`,
/// two `tier: b` pods on `n2`, none on `n3`.
const SNAPSHOT: &str = r#"
apiVersion: v1
kind: List
items:
- {apiVersion: v1, kind: Node, metadata: {name: n1, labels: {kubernetes.io/hostname: n1, topology.kubernetes.io/zone: z1, topology.kubernetes.io/region: r1}}, status: {allocatable: {cpu: "4", memory: 8Gi, pods: "20"}}}
- {apiVersion: v1, kind: Node, metadata: {name: n2, labels: {kubernetes.io/hostname: n2, topology.kubernetes.io/zone: z2, topology.kubernetes.io/region: r2}}, status: {allocatable: {cpu: "4", memory: 8Gi, pods: "20"}}}
- {apiVersion: v1, kind: Node, metadata: {name: n3, labels: {kubernetes.io/hostname: n3, topology.kubernetes.io/zone: z3, topology.kubernetes.io/region: r3}}, status: {allocatable: {cpu: "4", memory: 8Gi, pods: "20"}}}
- {apiVersion: v1, kind: Pod, metadata: {name: a1, namespace: default, labels: {app: a}}, spec: {nodeName: n1, containers: [{name: c, image: x}]}, status: {phase: Running}}
- {apiVersion: v1, kind: Pod, metadata: {name: a2, namespace: default, labels: {app: a}}, spec: {nodeName: n1, containers: [{name: c, image: x}]}, status: {phase: Running}}
- {apiVersion: v1, kind: Pod, metadata: {name: b1, namespace: default, labels: {tier: b}}, spec: {nodeName: n2, containers: [{name: c, image: x}]}, status: {phase: Running}}
- {apiVersion: v1, kind: Pod, metadata: {name: b2, namespace: default, labels: {tier: b}}, spec: {nodeName: n2, containers: [{name: c, image: x}]}, status: {phase: Running}}
"#;

const BY_ZONE: &str = "{maxSkew: 1, topologyKey: topology.kubernetes.io/zone, whenUnsatisfiable: ScheduleAnyway, labelSelector: {matchLabels: {app: a}}}";
const BY_REGION: &str = "{maxSkew: 1, topologyKey: topology.kubernetes.io/region, whenUnsatisfiable: ScheduleAnyway, labelSelector: {matchLabels: {tier: b}}}";

/// Each node's total score for a pod spreading by `constraints`.
fn totals(constraints: [&str; 2]) -> Vec<(String, i64)> {
    let mut cluster = cluster_from_yaml(SNAPSHOT);
    let pod = pod_from_yaml(
        &format!(
            "apiVersion: v1\nkind: Pod\nmetadata: {{name: p, namespace: default}}\nspec:\n  containers: [{{name: c, image: x}}]\n  topologySpreadConstraints: [{}, {}]\n",
            constraints[0], constraints[1]
        ),
        &mut cluster,
    );
    let answer = place(&cluster, &pod, &Scheduler::default());
    let mut totals: Vec<(String, i64)> = answer
        .scores
        .iter()
        .map(|s| (cluster.node(s.node).name.to_string(), s.total))
        .collect();
    totals.sort();
    totals
}

/// Constraints with different selectors count their matching pods on
/// different nodes; each constraint's domains must count its own, wherever
/// the other constraint's pods are.
#[test]
fn spread_scores_count_each_selectors_pods_on_its_own_nodes() {
    for order in [[BY_ZONE, BY_REGION], [BY_REGION, BY_ZONE]] {
        let totals = totals(order);
        let [(_, n1), (_, n2), (_, n3)] = totals[..] else {
            panic!("three feasible nodes: {totals:?}");
        };
        assert_eq!(n1, n2, "two matching pods in each one's domain: {totals:?}");
        assert!(n3 > n1, "n3's domains hold no matching pod: {totals:?}");
    }
}
