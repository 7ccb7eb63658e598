//! Selector matching through the cluster's label index: the narrowest
//! index list is read, and the requirement that list answers by itself is
//! not checked again, so every other requirement must still be.

use crate::support::cluster_from_yaml;
use kplace::model::Cluster;
use kplace::model::labels::{LabelSelector, Requirement, SetOperator};

const PODS: &str = r#"
apiVersion: v1
kind: List
items:
- {apiVersion: v1, kind: Node, metadata: {name: n1, labels: {kubernetes.io/hostname: n1}}, status: {allocatable: {cpu: "8", memory: 8Gi, pods: "20"}}}
- {apiVersion: v1, kind: Pod, metadata: {name: a1, namespace: d, labels: {app: web, tier: a}}, spec: {nodeName: n1, containers: [{name: c, image: i}]}, status: {phase: Running}}
- {apiVersion: v1, kind: Pod, metadata: {name: a2, namespace: d, labels: {app: web, tier: c}}, spec: {nodeName: n1, containers: [{name: c, image: i}]}, status: {phase: Running}}
- {apiVersion: v1, kind: Pod, metadata: {name: a3, namespace: d, labels: {app: web, tier: a}}, spec: {containers: [{name: c, image: i}]}, status: {phase: Pending}}
- {apiVersion: v1, kind: Pod, metadata: {name: b1, namespace: e, labels: {app: web, tier: a}}, spec: {nodeName: n1, containers: [{name: c, image: i}]}, status: {phase: Running}}
- {apiVersion: v1, kind: Pod, metadata: {name: k1, namespace: d, labels: {tier: b}}, spec: {nodeName: n1, containers: [{name: c, image: i}]}, status: {phase: Running}}
- {apiVersion: v1, kind: Pod, metadata: {name: k2, namespace: d, labels: {app: db, tier: a}}, spec: {nodeName: n1, containers: [{name: c, image: i}]}, status: {phase: Running}}
"#;

fn req(c: &Cluster, key: &str, op: SetOperator, values: &[&str]) -> Requirement {
    let mut values: Vec<_> = values
        .iter()
        .map(|v| c.interner.lookup(v).expect("a value the pods use"))
        .collect();
    values.sort();
    Requirement {
        key: c.interner.lookup(key).expect("a key the pods use"),
        op,
        values: values.into_boxed_slice(),
    }
}

/// `namespace/name` of the scheduled pods matching `reqs`, in any
/// namespace and in `d` alone.
fn matches(c: &Cluster, reqs: Vec<Requirement>) -> (Vec<String>, Vec<String>) {
    let selector = LabelSelector::Requirements(reqs.into_boxed_slice());
    let mut all = Vec::new();
    c.for_each_scheduled_match(&selector, |id, _| all.push(c.pod_key(id)));
    let mut in_d = Vec::new();
    let d = c.interner.lookup("d").unwrap();
    c.for_each_scheduled_match_in(d, &selector, |id, _| in_d.push(c.pod_key(id)));
    all.sort();
    in_d.sort();
    (all, in_d)
}

#[test]
fn every_requirement_but_the_one_the_index_list_answers_is_checked() {
    use SetOperator::{Exists, In, NotIn};
    let c = cluster_from_yaml(PODS);
    // app=web's list is the narrowest; tier in (a, b) must still hold (a2
    // has tier c), and a3 is not scheduled.
    let (all, in_d) = matches(
        &c,
        vec![
            req(&c, "app", In, &["web"]),
            req(&c, "tier", In, &["a", "b"]),
        ],
    );
    assert_eq!(all, ["d/a1", "e/b1"]);
    assert_eq!(in_d, ["d/a1"]);
    // tier's key list: `in (a, b)` is not answered by the key's list.
    let (all, _) = matches(&c, vec![req(&c, "tier", In, &["a", "b"])]);
    assert_eq!(all, ["d/a1", "d/k1", "d/k2", "e/b1"]);
    // `tier` exists answers itself; `app notin (web)` must still hold.
    let (all, _) = matches(
        &c,
        vec![
            req(&c, "tier", Exists, &[]),
            req(&c, "app", NotIn, &["web"]),
        ],
    );
    assert_eq!(all, ["d/k1", "d/k2"]);
    // A single pair needs no check beyond its list.
    let (all, in_d) = matches(&c, vec![req(&c, "app", In, &["web"])]);
    assert_eq!(all, ["d/a1", "d/a2", "e/b1"]);
    assert_eq!(in_d, ["d/a1", "d/a2"]);
}
