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
