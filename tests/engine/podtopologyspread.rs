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

/// PreFilter with lookups kept across more pod shapes than they keep
/// inclusion masks for (the oldest are dropped and made again when asked)
/// counts what PreFilter alone counts: each pod's node selector admits
/// one of three nodes and names a shape of its own.
#[test]
fn pre_filter_with_kept_inclusion_masks_past_their_bound_counts_as_alone() {
    use kplace::engine::node_memo::SpreadLookups;
    use kplace::engine::plugins::podtopologyspread::filtering::{pre_filter, pre_filter_with};
    use kplace::engine::profile::SpreadArgs;
    const SHAPES: usize = 70;
    let shape_labels: String = (0..SHAPES).map(|k| format!(", s{k}: y")).collect();
    let mut yaml = String::from("apiVersion: v1\nkind: List\nitems:\n");
    for n in 1..=3 {
        yaml.push_str(&format!(
            "- {{apiVersion: v1, kind: Node, metadata: {{name: n{n}, labels: {{kubernetes.io/hostname: n{n}, topology.kubernetes.io/zone: z{n}{shape_labels}}}}}, status: {{allocatable: {{cpu: \"4\", memory: 8Gi, pods: \"20\"}}}}}}\n"
        ));
    }
    for (i, node) in ["n1", "n1", "n2"].iter().enumerate() {
        yaml.push_str(&format!(
            "- {{apiVersion: v1, kind: Pod, metadata: {{name: a{i}, namespace: default, labels: {{app: a}}}}, spec: {{nodeName: {node}, containers: [{{name: c, image: x}}]}}, status: {{phase: Running}}}}\n"
        ));
    }
    let mut cluster = cluster_from_yaml(&yaml);
    let pods: Vec<_> = (0..SHAPES)
        .map(|k| {
            pod_from_yaml(
                &format!(
                    "apiVersion: v1\nkind: Pod\nmetadata: {{name: p{k}, namespace: default, labels: {{app: a}}}}\nspec:\n  nodeSelector: {{kubernetes.io/hostname: n{}, s{k}: y}}\n  containers: [{{name: c, image: x}}]\n  topologySpreadConstraints: [{{maxSkew: 1, topologyKey: topology.kubernetes.io/zone, whenUnsatisfiable: DoNotSchedule, labelSelector: {{matchLabels: {{app: a}}}}}}, {{maxSkew: 1, topologyKey: kubernetes.io/hostname, whenUnsatisfiable: DoNotSchedule, labelSelector: {{matchLabels: {{app: a}}}}}}]\n",
                    k % 3 + 1
                ),
                &mut cluster,
            )
        })
        .collect();
    let args = SpreadArgs::default();
    let lookups = SpreadLookups::default();
    let counts = |s: &kplace::engine::plugins::podtopologyspread::filtering::PreFilterState| {
        let names = |p: &(kplace::model::Sym, kplace::model::Sym)| {
            let r = |s| cluster.interner.resolve(s).to_string();
            (r(p.0), r(p.1), s.pair_counts()[p])
        };
        (
            s.met().map(|p| names(&p)).collect::<Vec<_>>(),
            s.critical_paths.clone(),
        )
    };
    // Every shape, then the first ones again (dropped by then).
    for pod in pods.iter().chain(&pods[..10]) {
        let fresh = pre_filter(&cluster, pod, &args).expect("DoNotSchedule constraints");
        let kept = pre_filter_with(&cluster, pod, &args, Some(&lookups)).expect("the same");
        assert_eq!(counts(&kept), counts(&fresh), "pod {}", pod.name);
    }
    // The selector admits one node: one zone and one hostname counted.
    let first = pre_filter_with(&cluster, &pods[0], &args, Some(&lookups)).unwrap();
    assert_eq!(
        counts(&first).0,
        vec![
            ("topology.kubernetes.io/zone".into(), "z1".into(), 2),
            ("kubernetes.io/hostname".into(), "n1".into(), 2),
        ]
    );
}

/// PreFilter counted by numbered domain over a cluster large enough for
/// the count to split over both cores gives the pairs, counts, domains
/// and critical paths of a count on one thread and of a count by labels:
/// zones first met in different orders by different ranges of nodes (two
/// only in the last ranges), nodes without the zone, and tainted nodes
/// left out by `nodeTaintsPolicy: Honor`.
#[test]
fn pre_filter_counted_by_domain_on_both_cores_counts_as_one_pass() {
    use kplace::engine::node_memo::SpreadLookups;
    use kplace::engine::plugins::podtopologyspread::filtering::{
        PreFilterState, pre_filter, pre_filter_with,
    };
    use kplace::engine::profile::SpreadArgs;
    const NODES: usize = 1_500;
    let mut yaml = String::from("apiVersion: v1\nkind: List\nitems:\n");
    for i in 0..NODES {
        let zone = match i {
            _ if i % 97 == 0 => String::new(),
            0..900 => format!(", topology.kubernetes.io/zone: z{}", (i / 7) % 3),
            _ => format!(", topology.kubernetes.io/zone: z{}", 3 + i % 2),
        };
        let taints = if i % 11 == 0 {
            "spec: {taints: [{key: gpu, value: \"true\", effect: NoSchedule}]}, "
        } else {
            ""
        };
        yaml.push_str(&format!(
            "- {{apiVersion: v1, kind: Node, metadata: {{name: n{i:04}, labels: {{kubernetes.io/hostname: n{i:04}{zone}}}}}, {taints}status: {{allocatable: {{cpu: \"4\", memory: 8Gi, pods: \"20\"}}}}}}\n"
        ));
    }
    for i in (0..NODES).step_by(3) {
        yaml.push_str(&format!(
            "- {{apiVersion: v1, kind: Pod, metadata: {{name: a{i}, namespace: default, labels: {{app: a}}}}, spec: {{nodeName: n{:04}, containers: [{{name: c, image: x}}]}}, status: {{phase: Running}}}}\n",
            (i * 7) % NODES
        ));
    }
    let mut cluster = cluster_from_yaml(&yaml);
    let pod = pod_from_yaml(
        "apiVersion: v1\nkind: Pod\nmetadata: {name: p, namespace: default, labels: {app: a}}\nspec:\n  containers: [{name: c, image: x}]\n  topologySpreadConstraints: [{maxSkew: 1, topologyKey: topology.kubernetes.io/zone, whenUnsatisfiable: DoNotSchedule, nodeTaintsPolicy: Honor, labelSelector: {matchLabels: {app: a}}}, {maxSkew: 2, topologyKey: kubernetes.io/hostname, whenUnsatisfiable: DoNotSchedule, labelSelector: {matchLabels: {app: a}}}]\n",
        &mut cluster,
    );
    let args = SpreadArgs::default();
    let seen = |s: &PreFilterState| {
        let mut domains: Vec<_> = s.domains.iter().map(|(k, n)| (*k, *n)).collect();
        domains.sort();
        (
            s.met()
                .map(|p| (p, s.pair_counts()[&p]))
                .collect::<Vec<_>>(),
            domains,
            s.critical_paths.clone(),
        )
    };
    let by_labels = pre_filter(&cluster, &pod, &args).expect("DoNotSchedule constraints");
    let lookups = SpreadLookups::default();
    let split_before = kplace_split::passes_split();
    let split = pre_filter_with(&cluster, &pod, &args, Some(&lookups)).expect("the same");
    assert!(
        kplace_split::passes_split() > split_before,
        "the count split"
    );
    assert!(split.judges_by_domain());
    let one_thread = kplace_split::serial(|| {
        pre_filter_with(&cluster, &pod, &args, Some(&SpreadLookups::default()))
    })
    .expect("the same");
    assert_eq!(seen(&split), seen(&one_thread));
    assert_eq!(seen(&split), seen(&by_labels));
    // Five zones, met first in the first range's order, then z3 and z4;
    // every counted hostname is a domain.
    let zones: Vec<String> = split
        .met()
        .filter(|p| cluster.interner.resolve(p.0) == "topology.kubernetes.io/zone")
        .map(|p| cluster.interner.resolve(p.1).to_string())
        .collect();
    assert_eq!(zones, ["z0", "z1", "z2", "z3", "z4"]);
    let hostnames = split
        .met()
        .filter(|p| cluster.interner.resolve(p.0) == "kubernetes.io/hostname")
        .count();
    assert!(hostnames > 1_000, "{hostnames}");
}
