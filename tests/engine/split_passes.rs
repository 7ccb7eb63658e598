//! Filter and Score split over both cores (`kplace-split`) give exactly
//! the answers of one thread: on a cluster large enough to split, for a
//! pod that fits, a pod that preempts, and a lost zone's thousands of
//! placements in a row.

use kplace::engine::disruption::{Disruption, simulate};
use kplace::engine::{Scheduler, schedule};
use kplace::source::file::{load_pod_bytes, load_snapshot_bytes};
use kplace::synth::{SynthSpec, fitting_pod_yaml, preempting_pod_yaml, write_cluster_json};

#[test]
fn split_passes_answer_as_one_thread_does() {
    let spec = SynthSpec {
        nodes: 1_200,
        pods: 12_000,
        zones: 3,
        seed: 11,
    };
    let mut json = Vec::new();
    write_cluster_json(&mut json, &spec).unwrap();
    let (mut cluster, _) = load_snapshot_bytes(&json, "synth.json").unwrap();
    let scheduler = Scheduler::default();
    let split_before = kplace_split::passes_split();
    for yaml in [fitting_pod_yaml(&spec), preempting_pod_yaml(&spec)] {
        let pod = load_pod_bytes(yaml.as_bytes(), "pod.yaml", &mut cluster.interner).unwrap();
        let split = schedule(&cluster, &pod, &scheduler);
        let whole = kplace_split::serial(|| schedule(&cluster, &pod, &scheduler));
        assert!(split.feasible.len() + split.failures.len() == 1_200);
        assert!(
            format!("{split:?}") == format!("{whole:?}"),
            "{}: the split answer differs from one thread's",
            split.pod
        );
    }
    let lose = Disruption::LoseZone("us-east-1a".into());
    let split = simulate(&cluster, &lose, &scheduler);
    let whole = kplace_split::serial(|| simulate(&cluster, &lose, &scheduler));
    assert!(split.displaced.len() > 1_000, "{}", split.displaced.len());
    assert!(
        format!("{:?}", split.displaced) == format!("{:?}", whole.displaced),
        "the split disruption plan differs from one thread's"
    );
    // On a machine with a second core the passes above did split.
    if std::thread::available_parallelism().is_ok_and(|n| n.get() > 1) {
        assert!(kplace_split::passes_split() > split_before);
    }
}

/// Building the model splits too (pods moved into the cluster a chunk at
/// a time, each node's aggregates on either core): the cluster a snapshot
/// loads into is the one a single thread builds, pod for pod and node for
/// node, and so is the cluster left after losing a zone.
#[test]
fn a_model_built_on_both_cores_is_the_one_thread_model() {
    // Past eight chunks of converted pods and 512 nodes: both steps split.
    let spec = SynthSpec {
        nodes: 1_100,
        pods: 36_000,
        zones: 3,
        seed: 5,
    };
    let mut json = Vec::new();
    write_cluster_json(&mut json, &spec).unwrap();
    let split_before = kplace_split::passes_split();
    let (split, _) = load_snapshot_bytes(&json, "synth.json").unwrap();
    let two_cores = std::thread::available_parallelism().is_ok_and(|n| n.get() > 1);
    if two_cores {
        assert!(kplace_split::passes_split() > split_before, "nothing split");
    }
    let (whole, _) = kplace_split::serial(|| load_snapshot_bytes(&json, "synth.json")).unwrap();
    assert_eq!(split.pods.len(), 36_000);
    assert!(split.node_infos.iter().map(|n| n.pods.len()).sum::<usize>() > 30_000);
    assert_eq!(split.model_differences(&whole), Vec::<String>::new());
    // Every node of the first node's zone goes.
    let key = split.interner.lookup("topology.kubernetes.io/zone");
    let key = key.expect("synthetic nodes have zones");
    let zone = split.nodes[0].labels.get(key);
    let gone: Vec<u32> = (0..split.nodes.len() as u32)
        .filter(|&n| split.nodes[n as usize].labels.get(key) == zone)
        .collect();
    let after = split.without_nodes(&gone);
    let after_whole = kplace_split::serial(|| whole.without_nodes(&gone));
    assert!(after.num_scheduled_pods() + 5_000 < split.num_scheduled_pods());
    assert_eq!(after.model_differences(&after_whole), Vec::<String>::new());
}
