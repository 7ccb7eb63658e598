//! Stacked disruption scenarios in the engine, on the built-in demo
//! cluster: each step runs on the cluster the step before left.

use kplace::engine::Scheduler;
use kplace::engine::disruption::{Disruption, Progress, ZONE_LABEL, simulate};
use kplace::engine::scenario::{Step, run};
use kplace::model::Cluster;

fn zone_of(cluster: &Cluster, node: &str) -> Option<String> {
    let key = cluster.interner.lookup(ZONE_LABEL)?;
    let value = cluster.node(cluster.node_id(node)?).labels.get(key)?;
    Some(cluster.interner.resolve(value).to_string())
}

fn busiest_node_in_other_zone(cluster: &Cluster, zone: &str) -> String {
    (0..cluster.nodes.len() as u32)
        .filter(|&n| zone_of(cluster, &cluster.node(n).name).is_some_and(|z| z != zone))
        .max_by_key(|&n| cluster.node_info(n).pods.len())
        .map(|n| cluster.node(n).name.to_string())
        .expect("a node in another zone")
}

#[test]
fn a_drain_after_cordoning_a_zone_places_nothing_in_that_zone() {
    let cluster = kplace::app::demo::load_demo().unwrap();
    let scheduler = Scheduler::default();
    let zone = "eu-west-1a";
    let node = busiest_node_in_other_zone(&cluster, zone);

    // Alone, the drain sends some pods into the zone.
    let alone = simulate(
        &cluster,
        &Disruption::Drain(vec![cluster.node_id(&node).unwrap()]),
        &scheduler,
    );
    let into_zone = |landing: Option<&str>| {
        landing.is_some_and(|n| zone_of(&cluster, n).as_deref() == Some(zone))
    };
    assert!(
        alone
            .displaced
            .iter()
            .any(|d| into_zone(d.landing.as_ref().and_then(|l| l.node.as_deref()))),
        "the demo's drain should use {zone} when it is open"
    );

    let stacked = run(
        &cluster,
        &[
            Step::CordonZone(zone.into()),
            Step::Drain(vec![node.clone()]),
        ],
        &scheduler,
        &Progress::default(),
    );
    assert!(!stacked.cancelled);
    assert_eq!(stacked.steps.len(), 2);
    let drain = &stacked.steps[1].plan;
    assert_eq!(drain.affected_nodes, vec![node.clone()]);
    assert!(!drain.displaced.is_empty());
    for d in &drain.displaced {
        let to = d.landing.as_ref().and_then(|l| l.node.as_deref());
        assert!(
            !into_zone(to),
            "{} landed in cordoned {zone}: {to:?}",
            d.pod
        );
        assert_ne!(
            to,
            Some(node.as_str()),
            "{} landed on the drained node",
            d.pod
        );
    }
    // The cluster after both: the zone and the node are unschedulable, and
    // only the last fork is kept.
    let after = stacked.cluster.as_ref().expect("a fork");
    for n in &after.nodes {
        if zone_of(after, &n.name).as_deref() == Some(zone) || *n.name == *node {
            assert!(n.unschedulable, "{} should be cordoned", n.name);
        }
    }
    assert!(stacked.steps[0].plan.cluster.nodes.is_empty());
    assert!(stacked.steps[1].plan.cluster.nodes.is_empty());
    // The snapshot itself is untouched.
    assert_eq!(
        cluster.nodes.iter().filter(|n| n.unschedulable).count(),
        kplace::app::demo::load_demo()
            .unwrap()
            .nodes
            .iter()
            .filter(|n| n.unschedulable)
            .count()
    );
}

#[test]
fn a_node_lost_in_an_earlier_step_is_named_as_missing() {
    let cluster = kplace::app::demo::load_demo().unwrap();
    let zone = "eu-west-1b";
    let lost = (0..cluster.nodes.len() as u32)
        .map(|n| cluster.node(n).name.to_string())
        .find(|n| zone_of(&cluster, n).as_deref() == Some(zone))
        .expect("a node in the zone");
    let stacked = run(
        &cluster,
        &[Step::LoseZone(zone.into()), Step::Drain(vec![lost.clone()])],
        &Scheduler::default(),
        &Progress::default(),
    );
    assert_eq!(stacked.steps.len(), 2);
    assert_eq!(stacked.steps[1].missing_nodes, vec![lost]);
    assert!(stacked.steps[1].plan.displaced.is_empty());
    let after = stacked.cluster.as_ref().expect("a fork");
    assert!(
        after
            .nodes
            .iter()
            .all(|n| zone_of(after, &n.name).as_deref() != Some(zone))
    );
}

#[test]
fn a_cancelled_step_is_left_out() {
    let cluster = kplace::app::demo::load_demo().unwrap();
    let progress = Progress::default();
    progress
        .cancel
        .store(true, std::sync::atomic::Ordering::Relaxed);
    let stacked = run(
        &cluster,
        &[Step::LoseZone("eu-west-1a".into())],
        &Scheduler::default(),
        &progress,
    );
    assert!(stacked.cancelled);
    assert!(stacked.steps.is_empty());
    assert!(stacked.cluster.is_none());
}

/// A step that would only repeat an earlier one is named with the step
/// that did it; steps that do something new are not.
#[test]
fn a_step_repeating_an_earlier_one_is_named() {
    use kplace::engine::scenario::repeated_step;
    let cluster = kplace::app::demo::load_demo().unwrap();
    let lost = "eu-west-1a";
    let node_in_lost = (0..cluster.nodes.len() as u32)
        .map(|n| cluster.node(n).name.to_string())
        .find(|n| zone_of(&cluster, n).as_deref() == Some(lost))
        .expect("a node in the zone");
    let other = busiest_node_in_other_zone(&cluster, lost);
    let earlier = [
        Step::CordonZone("eu-west-1b".into()),
        Step::LoseZone(lost.into()),
        Step::Drain(vec![other.clone()]),
    ];
    let said = |next: Step| repeated_step(&cluster, &earlier, &next);

    assert_eq!(
        said(Step::LoseZone(lost.into())).as_deref(),
        Some("zone eu-west-1a is already lost (step 2: Lose zone eu-west-1a)")
    );
    assert_eq!(
        said(Step::CordonZone(lost.into())).as_deref(),
        Some(
            "zone eu-west-1a is already lost (step 2: Lose zone eu-west-1a): it has no nodes left to cordon"
        )
    );
    assert_eq!(
        said(Step::CordonZone("eu-west-1b".into())).as_deref(),
        Some("zone eu-west-1b is already cordoned (step 1: Cordon zone eu-west-1b)")
    );
    assert_eq!(
        said(Step::Drain(vec![node_in_lost.clone()])),
        Some(format!(
            "node {node_in_lost} was lost with zone eu-west-1a (step 2: Lose zone eu-west-1a)"
        ))
    );
    assert_eq!(
        said(Step::Drain(vec!["x".into(), other.clone()])),
        Some(format!(
            "node {other} is already drained (step 3: Drain {other})"
        ))
    );
    // New work: losing a cordoned zone, a zone not touched yet.
    assert_eq!(said(Step::LoseZone("eu-west-1b".into())), None);
    assert_eq!(said(Step::CordonZone("eu-west-1c".into())), None);
}
