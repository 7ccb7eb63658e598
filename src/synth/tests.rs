use super::*;
use crate::engine::status::{Code, Plugin};
use crate::engine::{Outcome, place};
use crate::model::{Cluster, Pod};
use crate::source::file::{load_pod_bytes, load_snapshot_bytes};

fn small_json() -> Vec<u8> {
    let mut bytes = Vec::new();
    write_cluster_json(&mut bytes, &SynthSpec::small()).expect("write to memory");
    bytes
}

/// Loaded once per test binary: loading dominates the tests' time.
fn small_cluster() -> Cluster {
    static CLUSTER: std::sync::OnceLock<Cluster> = std::sync::OnceLock::new();
    CLUSTER
        .get_or_init(|| {
            load_snapshot_bytes(&small_json(), "synth.json")
                .expect("loads")
                .0
        })
        .clone()
}

fn pod(cluster: &mut Cluster, yaml: &str) -> Pod {
    load_pod_bytes(yaml.as_bytes(), "pod.yaml", &mut cluster.interner).expect("pod loads")
}

#[test]
fn cluster_loads_with_the_requested_counts() {
    let spec = SynthSpec::small();
    let cluster = small_cluster();
    assert_eq!(cluster.nodes.len(), spec.nodes);
    assert_eq!(cluster.pods.len(), spec.pods);
    let pending = cluster.pods.iter().filter(|p| p.node.is_none()).count();
    assert!((1..=40).contains(&pending), "{pending} pending pods");
    assert_eq!(cluster.num_scheduled_pods(), spec.pods - pending);
    assert_eq!(
        cluster
            .priority_classes
            .iter()
            .filter(|c| c.global_default)
            .count(),
        1
    );
    assert!(
        cluster
            .pdbs
            .iter()
            .any(|p| p.disruptions_allowed == Some(0))
    );
    assert!(cluster.pdbs.iter().any(|p| p.disruptions_allowed > Some(0)));
    assert!(
        cluster
            .pods
            .iter()
            .any(|p| !p.spread_constraints.is_empty())
    );
    assert!(cluster.pods.iter().any(|p| p.has_required_anti_affinity()));
    assert!(
        cluster
            .pods
            .iter()
            .any(|p| !p.termination.pre_stop_containers.is_empty())
    );
    assert_eq!(cluster.nodes.iter().filter(|n| n.unschedulable).count(), 2);
}

#[test]
fn nodes_are_sixty_to_ninety_percent_allocated() {
    let cluster = small_cluster();
    for (node, info) in cluster.nodes.iter().zip(&cluster.node_infos) {
        let cpu = info.requested.milli_cpu as f64 / node.allocatable.milli_cpu as f64;
        let mem = info.requested.memory as f64 / node.allocatable.memory as f64;
        assert!(
            (0.55..=0.92).contains(&cpu.max(mem)),
            "{}: cpu {cpu:.2} memory {mem:.2}",
            node.name
        );
        assert!(info.pods.len() <= 110);
    }
}

#[test]
fn same_seed_same_bytes() {
    assert_eq!(small_json(), small_json());
    let mut other = Vec::new();
    write_cluster_json(
        &mut other,
        &SynthSpec {
            seed: 7,
            ..SynthSpec::small()
        },
    )
    .unwrap();
    assert_ne!(other, small_json());
}

#[test]
fn fitting_pod_schedules_on_the_compute_pool_with_every_score_at_work() {
    let spec = SynthSpec::small();
    let mut cluster = small_cluster();
    let incoming = pod(&mut cluster, &fitting_pod_yaml(&spec));
    let answer = place(&cluster, &incoming, &crate::engine::Scheduler::default());
    assert_eq!(answer.outcome, Outcome::Scheduled, "{}", answer.message);
    let share = answer.feasible.len() as f64 / spec.nodes as f64;
    assert!(
        (0.10..=0.40).contains(&share),
        "{} feasible",
        answer.feasible.len()
    );
    let pool = cluster.interner.lookup("node-pool").unwrap();
    let compute = cluster.interner.lookup("compute").unwrap();
    assert!(
        answer
            .feasible
            .iter()
            .all(|&n| cluster.node(n).labels.get(pool) == Some(compute))
    );
    // NodeAffinity, PodTopologySpread, InterPodAffinity, NodeResourcesFit,
    // BalancedAllocation and ImageLocality each score some node above zero.
    use crate::engine::status::Plugin;
    for plugin in [
        Plugin::NodeAffinity,
        Plugin::PodTopologySpread,
        Plugin::InterPodAffinity,
        Plugin::NodeResourcesFit,
        Plugin::NodeResourcesBalancedAllocation,
        Plugin::ImageLocality,
    ] {
        let column = answer
            .score_plugins()
            .iter()
            .position(|(p, _)| *p == plugin)
            .expect("a default score plugin");
        assert!(
            answer.scores.iter().any(|s| s.plugins[column] > 0),
            "score plugin {} is idle",
            plugin.as_str()
        );
    }
    // Spread and anti-affinity make the scores differ between nodes.
    let totals: FxHashSet<i64> = answer.scores.iter().map(|s| s.total).collect();
    assert!(totals.len() > 1);
}

#[test]
fn preempting_pod_preempts_on_most_nodes() {
    let spec = SynthSpec::small();
    let mut cluster = small_cluster();
    let incoming = pod(&mut cluster, &preempting_pod_yaml(&spec));
    let answer = place(&cluster, &incoming, &crate::engine::Scheduler::default());
    assert_eq!(answer.outcome, Outcome::Preempt, "{}", answer.message);
    assert!(answer.feasible.is_empty());
    let insufficient_cpu = answer
        .failures
        .iter()
        .filter(|f| {
            f.rejection.code == Code::Unschedulable
                && f.rejection.reasons.iter().any(|r| r == "Insufficient cpu")
        })
        .count();
    let unresolvable = answer
        .failures
        .iter()
        .filter(|f| f.rejection.code == Code::UnschedulableAndUnresolvable)
        .count();
    assert_eq!(insufficient_cpu + unresolvable, spec.nodes);
    assert!(
        (0.05..=0.15).contains(&(unresolvable as f64 / spec.nodes as f64)),
        "{unresolvable} unresolvable"
    );
    assert!(
        answer
            .failures
            .iter()
            .any(|f| f.rejection.plugin == Plugin::TaintToleration)
    );
    let preemption = answer.preemption.expect("preemption ran");
    assert!(preemption.candidates.len() as f64 >= 0.8 * insufficient_cpu as f64);
    assert!(!preemption.victims.is_empty());
    let victim_priority = preemption
        .victims
        .iter()
        .map(|&v| cluster.pod(v).priority_value())
        .max()
        .unwrap();
    assert!(victim_priority < CLASSES[PLATFORM].value);
}

#[test]
fn stateful_set_pods_have_zonal_claims_the_volume_plugins_read() {
    let cluster = small_cluster();
    let storage = &cluster.storage;
    assert_eq!(storage.csi_node_count(), cluster.nodes.len());
    assert_eq!(
        storage.default_class().map(|c| &*c.name),
        Some(STORAGE_CLASS)
    );
    let zone = cluster.interner.lookup(CSI_ZONE_KEY).unwrap();
    let mut claimed = 0;
    for pod in cluster.pods.iter().filter(|p| !p.volumes.is_empty()) {
        claimed += 1;
        let name = pod.claim_names().next().unwrap();
        let claim = storage.claim(pod.namespace, name).expect("claim exists");
        let Some(node) = pod.node else {
            assert!(!claim.is_fully_bound());
            continue;
        };
        let pv = storage.volume(&claim.volume_name).expect("bound volume");
        assert!(claim.is_fully_bound());
        let node_zone = cluster.node(node).labels.get(zone);
        assert!(
            crate::engine::plugins::volumebinding::binder::check_node_affinity(
                pv,
                &cluster.node(node).labels,
                &cluster.interner
            ),
            "{name} in {:?}",
            node_zone.map(|z| cluster.interner.resolve(z))
        );
    }
    assert!(claimed > 50, "{claimed} pods with claims");
    // Some StatefulSet keeps its next replica's claim template.
    assert!(cluster.owners.iter().any(|o| {
        o.stateful
            .as_ref()
            .is_some_and(|s| s.claim_templates.len() == 1)
    }));
}

#[test]
fn timestamps_are_rfc3339_utc() {
    assert_eq!(rfc3339(NOW), "2024-10-01T00:00:00Z");
    assert_eq!(rfc3339(0), "1970-01-01T00:00:00Z");
    assert_eq!(rfc3339(951_827_696), "2000-02-29T12:34:56Z");
}
