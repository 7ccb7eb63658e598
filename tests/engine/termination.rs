use crate::support::prelude::*;
use kplace::engine::termination::*;
use kplace::model::Interner;
use kplace::source::file::load_pod_bytes;

fn pod(extra_spec: &str, extra_meta: &str) -> Pod {
    let yaml = format!(
        "apiVersion: v1\nkind: Pod\nmetadata:\n  name: v\n  namespace: ns\n{extra_meta}spec:\n  nodeName: n1\n{extra_spec}  containers:\n  - name: app\n    image: app:1\n"
    );
    load_pod_bytes(yaml.as_bytes(), "test", &mut Interner::default()).unwrap()
}

#[test]
fn default_grace_is_30_seconds() {
    let v = victim_termination(&pod("", ""), 0);
    assert_eq!((v.grace_seconds, v.max_seconds), (30, 30));
    assert!(!v.has_pre_stop && !v.already_terminating && v.stateful_set.is_none());
}

#[test]
fn explicit_grace_and_zero_grace() {
    let v = victim_termination(&pod("  terminationGracePeriodSeconds: 120\n", ""), 0);
    assert_eq!((v.grace_seconds, v.max_seconds), (120, 120));
    let v = victim_termination(&pod("  terminationGracePeriodSeconds: 0\n", ""), 0);
    assert_eq!(v.max_seconds, 0, "grace 0 removes the object at once");
}

#[test]
fn pre_stop_gets_the_two_second_minimum_window() {
    let spec = "  terminationGracePeriodSeconds: 10\n  initContainers: []\n";
    let mut p = pod(spec, "");
    p.termination.pre_stop_containers = vec!["app".into()].into_boxed_slice();
    let v = victim_termination(&p, 0);
    assert!(v.has_pre_stop);
    assert_eq!(
        (v.grace_seconds, v.max_seconds),
        (10, 10 + MINIMUM_GRACE_WINDOW_SECONDS)
    );
}

#[test]
fn pre_stop_is_read_from_the_manifest() {
    let yaml = "apiVersion: v1\nkind: Pod\nmetadata: {name: v}\nspec:\n  terminationGracePeriodSeconds: 5\n  containers:\n  - name: app\n    image: app:1\n    lifecycle: {preStop: {exec: {command: [sleep, '5']}}}\n";
    let p = load_pod_bytes(yaml.as_bytes(), "test", &mut Interner::default()).unwrap();
    assert_eq!(victim_termination(&p, 0).max_seconds, 7);
}

#[test]
fn stateful_set_member_is_flagged() {
    let meta = "  ownerReferences:\n  - {apiVersion: apps/v1, kind: StatefulSet, name: db, uid: u1, controller: true}\n";
    let v = victim_termination(&pod("", meta), 0);
    assert_eq!(v.stateful_set.as_deref(), Some("db"));
}

#[test]
fn already_terminating_keeps_its_deletion_grace() {
    let meta = "  deletionTimestamp: '2024-01-01T00:00:10Z'\n  deletionGracePeriodSeconds: 7\n";
    let v = victim_termination(&pod("  terminationGracePeriodSeconds: 60\n", meta), 0);
    assert!(v.already_terminating);
    assert_eq!(
        (v.grace_seconds, v.max_seconds),
        (7, 7),
        "a repeat delete does not restart the clock"
    );
}
