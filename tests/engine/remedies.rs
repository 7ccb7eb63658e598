//! Each remedy kind on a hand-built cluster, the verified answer it leads
//! to, and the plain statements ("larger than every node", "no remedy").

use crate::support::prelude::*;

use crate::support::{cluster_from_yaml, pod_from_yaml};
use kplace::engine::remedies::*;
use kplace::engine::{Scheduler, place};

fn node(name: &str, zone: &str, cpu: &str, extra: &str) -> String {
    format!(
        "- {{apiVersion: v1, kind: Node, metadata: {{name: {name}, labels: {{kubernetes.io/hostname: {name}, topology.kubernetes.io/zone: {zone}}}}}, spec: {{{extra}}}, status: {{allocatable: {{cpu: \"{cpu}\", memory: 8Gi, pods: \"20\"}}}}}}\n"
    )
}

/// A running pod on `node`; `owner` is a ReplicaSet name or empty (bare).
fn running(name: &str, node: &str, cpu: &str, labels: &str, owner: &str) -> String {
    let owner = if owner.is_empty() {
        String::new()
    } else {
        format!(
            ", ownerReferences: [{{apiVersion: apps/v1, kind: ReplicaSet, name: {owner}, uid: u-{owner}, controller: true}}]"
        )
    };
    format!(
        "- {{apiVersion: v1, kind: Pod, metadata: {{name: {name}, namespace: default, uid: u-{name}, labels: {{{labels}}}{owner}}}, spec: {{nodeName: {node}, priority: 0, containers: [{{name: c, image: x, resources: {{requests: {{cpu: \"{cpu}\"}}}}}}]}}, status: {{phase: Running}}}}\n"
    )
}

fn snapshot(items: &[String]) -> Cluster {
    cluster_from_yaml(&format!(
        "apiVersion: v1\nkind: List\nitems:\n{}",
        items.concat()
    ))
}

fn incoming(cluster: &mut Cluster, cpu: &str, spec: &str, labels: &str) -> Pod {
    pod_from_yaml(
        &format!(
            "apiVersion: v1\nkind: Pod\nmetadata: {{name: new, namespace: default, labels: {{{labels}}}}}\nspec:\n  containers: [{{name: c, image: x, resources: {{requests: {{cpu: \"{cpu}\"}}}}}}]\n{spec}"
        ),
        cluster,
    )
}

fn remedies(cluster: &Cluster, pod: &Pod) -> (Placement, Remedies) {
    let scheduler = Scheduler::default();
    let base = place(cluster, pod, &scheduler);
    let question = Question {
        cluster,
        pod,
        existing: false,
    };
    let bounds = Bounds {
        max_remedies: 20,
        ..Bounds::default()
    };
    let found = search(
        &question,
        &scheduler,
        &base,
        &bounds,
        &AtomicBool::new(false),
        &mut |_| {},
    );
    (base, found)
}

fn of_kind(r: &Remedies, kind: RemedyKind) -> Vec<&Remedy> {
    r.remedies.iter().filter(|x| x.kind == kind).collect()
}

fn scheduled_on(node: &str) -> Verified {
    Verified {
        outcome: Outcome::Scheduled,
        node: Some(node.into()),
        victims: vec![],
    }
}

#[test]
fn a_cordoned_node_with_room_is_uncordoned() {
    let mut c = snapshot(&[
        node("full", "z1", "1", ""),
        node("idle", "z1", "4", "unschedulable: true"),
        running("busy", "full", "1", "", ""),
    ]);
    let pod = incoming(&mut c, "2", "", "");
    let (base, found) = remedies(&c, &pod);
    assert_eq!(base.outcome, Outcome::Unschedulable);
    let un = of_kind(&found, RemedyKind::Uncordon);
    assert_eq!(un.len(), 1);
    assert_eq!(un[0].change, "uncordon idle");
    assert_eq!(un[0].result, scheduled_on("idle"));
    // Nothing evicts and nothing moves: it ranks first.
    assert_eq!(found.remedies[0].kind, RemedyKind::Uncordon);
}

#[test]
fn a_taint_is_tolerated_or_removed() {
    let mut c = snapshot(&[
        node("full", "z1", "1", ""),
        node(
            "batch",
            "z1",
            "4",
            "taints: [{key: dedicated, value: batch, effect: NoSchedule}]",
        ),
        running("busy", "full", "1", "", ""),
    ]);
    let pod = incoming(&mut c, "2", "", "");
    let (_, found) = remedies(&c, &pod);
    let tol = of_kind(&found, RemedyKind::Tolerate);
    assert_eq!(tol.len(), 1);
    assert_eq!(
        tol[0].edit,
        Edit::Pod(PodEdit::Tolerate {
            key: "dedicated".into(),
            value: "batch".into(),
            effect: kplace::model::node::TaintEffect::NoSchedule
        })
    );
    assert_eq!(tol[0].result, scheduled_on("batch"));
    let untaint = of_kind(&found, RemedyKind::Untaint);
    assert_eq!(
        untaint[0].change,
        "remove the taint dedicated=batch:NoSchedule from batch"
    );
}

#[test]
fn max_skew_is_raised_to_the_smallest_value_that_fits() {
    let spread = "  topologySpreadConstraints: [{maxSkew: 1, topologyKey: topology.kubernetes.io/zone, whenUnsatisfiable: DoNotSchedule, labelSelector: {matchLabels: {app: web}}}]\n";
    let mut c = snapshot(&[
        node("a1", "z1", "8", ""),
        node("b1", "z2", "1", ""),
        running("web-1", "a1", "100m", "app: web", ""),
        running("web-2", "a1", "100m", "app: web", ""),
        running("filler", "b1", "1", "", ""),
    ]);
    let pod = incoming(&mut c, "500m", spread, "app: web");
    let (base, found) = remedies(&c, &pod);
    assert_eq!(base.outcome, Outcome::Unschedulable);
    let relax = of_kind(&found, RemedyKind::RelaxSpread);
    // z1 would hold 3 against z2's 0: a skew of 3 is the least that fits.
    assert_eq!(
        relax[0].edit,
        Edit::Pod(PodEdit::MaxSkew {
            constraint: 0,
            max_skew: 3
        })
    );
    assert_eq!(
        relax[0].change,
        "raise maxSkew of topology spread constraint 1 (topology.kubernetes.io/zone) from 1 to 3"
    );
    assert_eq!(relax[0].result, scheduled_on("a1"));
    // A node in the zone that holds the minimum also does it.
    let add = of_kind(&found, RemedyKind::AddNode);
    assert!(
        add.iter()
            .any(|r| r.change == "add 1 node like b1 in zone z2")
    );
}

#[test]
fn a_node_selector_or_anti_affinity_term_is_dropped() {
    let mut c = snapshot(&[
        node("ssd", "z1", "1", ""),
        node("hdd", "z1", "4", ""),
        running("busy", "ssd", "1", "", ""),
    ]);
    let pod = incoming(
        &mut c,
        "1",
        "  nodeSelector: {kubernetes.io/hostname: ssd}\n",
        "",
    );
    let (_, found) = remedies(&c, &pod);
    let relax = of_kind(&found, RemedyKind::RelaxAffinity);
    assert_eq!(
        relax[0].change,
        "drop nodeSelector kubernetes.io/hostname=ssd"
    );
    assert_eq!(relax[0].result, scheduled_on("hdd"));

    let anti = "  affinity: {podAntiAffinity: {requiredDuringSchedulingIgnoredDuringExecution: [{topologyKey: kubernetes.io/hostname, labelSelector: {matchLabels: {app: web}}}]}}\n";
    let mut c = snapshot(&[
        node("a", "z1", "4", ""),
        node("b", "z1", "4", ""),
        running("web-1", "a", "100m", "app: web", ""),
        running("web-2", "b", "100m", "app: web", ""),
    ]);
    let pod = incoming(&mut c, "1", anti, "app: web");
    let (_, found) = remedies(&c, &pod);
    let relax = of_kind(&found, RemedyKind::RelaxAffinity);
    assert_eq!(
        relax[0].edit,
        Edit::Pod(PodEdit::DropPodAffinityTerm {
            anti: true,
            index: 0
        })
    );
    assert_eq!(relax[0].result.outcome, Outcome::Scheduled);
}

#[test]
fn requests_shrink_to_what_fits_and_a_pod_larger_than_every_node_is_said_plainly() {
    let mut c = snapshot(&[
        node("a", "z1", "2", ""),
        running("busy", "a", "1500m", "", ""),
    ]);
    let pod = incoming(&mut c, "1", "", "");
    let (_, found) = remedies(&c, &pod);
    let resize = of_kind(&found, RemedyKind::Resize);
    assert_eq!(
        resize[0].edit,
        Edit::Pod(PodEdit::Requests {
            resources: vec![("cpu".into(), 500, 1000)]
        })
    );
    assert_eq!(
        resize[0].change,
        "request at most cpu 500m (the pod asks 1)"
    );
    assert!(found.notes.is_empty(), "{:?}", found.notes);

    let pod = incoming(&mut c, "48", "", "");
    let (_, found) = remedies(&c, &pod);
    assert_eq!(
        found.notes[0],
        "the pod is larger than every node: it requests cpu 48 (the largest allocatable is 2 on a); no node of this cluster, and no copy of one, can hold it as it is"
    );
    assert!(of_kind(&found, RemedyKind::AddNode).is_empty());
}

#[test]
fn the_lowest_priority_class_that_preempts_is_found_with_its_victims() {
    let classes = "- {apiVersion: scheduling.k8s.io/v1, kind: PriorityClass, metadata: {name: high}, value: 1000}\n- {apiVersion: scheduling.k8s.io/v1, kind: PriorityClass, metadata: {name: mid}, value: 100}\n- {apiVersion: scheduling.k8s.io/v1, kind: PriorityClass, metadata: {name: never}, value: 500, preemptionPolicy: Never}\n".to_string();
    let mut c = snapshot(&[
        classes,
        node("a", "z1", "2", ""),
        running("low", "a", "2", "", ""),
    ]);
    let pod = incoming(&mut c, "1", "", "");
    let (base, found) = remedies(&c, &pod);
    assert_eq!(base.outcome, Outcome::Unschedulable);
    let prio = of_kind(&found, RemedyKind::Priority);
    assert_eq!(prio.len(), 1);
    assert_eq!(
        prio[0].edit,
        Edit::Pod(PodEdit::PriorityClass {
            name: "mid".into(),
            value: 100
        })
    );
    assert_eq!(
        prio[0].result,
        Verified {
            outcome: Outcome::Preempt,
            node: Some("a".into()),
            victims: vec!["default/low".into()]
        }
    );
    // Evicting ranks last.
    assert_eq!(found.remedies.last().unwrap().kind, RemedyKind::Priority);
}

#[test]
fn a_controlled_pod_moves_to_make_room_and_a_bare_one_never_does() {
    let mut c = snapshot(&[
        node("a", "z1", "2", ""),
        node("b", "z1", "2", ""),
        running("rs-1", "a", "1", "", "web"),
        running("bare-a", "a", "500m", "", ""),
        running("bare-b", "b", "900m", "", ""),
    ]);
    let pod = incoming(&mut c, "1200m", "", "");
    let (base, found) = remedies(&c, &pod);
    assert_eq!(base.outcome, Outcome::Unschedulable);
    let moves = of_kind(&found, RemedyKind::MovePods);
    assert_eq!(moves.len(), 1, "{:#?}", found.remedies);
    assert_eq!(
        moves[0].edit,
        Edit::Cluster(ClusterEdit::MovePods {
            moves: vec![PodMove {
                pod: "default/rs-1".into(),
                from: "a".into(),
                to: "b".into()
            }]
        })
    );
    assert_eq!(moves[0].change, "move 1 pod(s) off a: default/rs-1 → b");
    assert_eq!(moves[0].result, scheduled_on("a"));
    // The scratch cluster was put back: a second search finds the same.
    let (_, again) = remedies(&c, &pod);
    assert_eq!(
        again.remedies.iter().map(|r| &r.change).collect::<Vec<_>>(),
        found.remedies.iter().map(|r| &r.change).collect::<Vec<_>>()
    );
}

#[test]
fn a_preempting_pod_gets_only_remedies_without_evictions() {
    let mut c = snapshot(&[
        "- {apiVersion: scheduling.k8s.io/v1, kind: PriorityClass, metadata: {name: high}, value: 1000}\n".to_string(),
        node("a", "z1", "2", ""),
        node("spare", "z1", "4", "unschedulable: true"),
        running("low", "a", "2", "", ""),
    ]);
    let pod = incoming(&mut c, "1", "  priorityClassName: high\n", "");
    let (base, found) = remedies(&c, &pod);
    assert_eq!(base.outcome, Outcome::Preempt);
    assert!(!found.remedies.is_empty());
    for r in &found.remedies {
        assert_eq!(r.result.outcome, Outcome::Scheduled, "{r:?}");
        assert!(r.result.victims.is_empty());
    }
    assert!(of_kind(&found, RemedyKind::Priority).is_empty());
}

#[test]
fn no_remedy_is_said_plainly() {
    let mut c = snapshot(&[node("a", "z1", "4", "")]);
    let pod = incoming(
        &mut c,
        "1",
        "  volumes: [{name: v, persistentVolumeClaim: {claimName: missing}}]\n",
        "",
    );
    let (base, found) = remedies(&c, &pod);
    assert_eq!(base.outcome, Outcome::Unschedulable);
    assert!(found.remedies.is_empty());
    assert!(found.complete);
    assert!(
        found.notes[0].starts_with("no remedy found within the search bounds"),
        "{:?}",
        found.notes
    );
}

#[test]
fn a_cancelled_search_says_it_stopped() {
    let mut c = snapshot(&[
        node("full", "z1", "2", ""),
        running("busy", "full", "2", "", ""),
    ]);
    let pod = incoming(&mut c, "1", "", "");
    let scheduler = Scheduler::default();
    let base = place(&c, &pod, &scheduler);
    let question = Question {
        cluster: &c,
        pod: &pod,
        existing: false,
    };
    let found = search(
        &question,
        &scheduler,
        &base,
        &Bounds::default(),
        &AtomicBool::new(true),
        &mut |_| {},
    );
    assert!(!found.complete);
    assert!(found.remedies.is_empty());
    assert!(found.notes[0].starts_with("no remedy found before the search stopped"));
}
