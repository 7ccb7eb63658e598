//! Replica naming: the names controllers give the pods they create.

use crate::support::{cluster_from_yaml, pod_from_yaml, prelude::*};
use kplace::engine::replicas::replica_name;

fn owned_by(kind: &str, owner: &str, name: &str) -> Pod {
    let mut cluster = cluster_from_yaml(
        "apiVersion: v1\nkind: Node\nmetadata: {name: n1}\nstatus: {allocatable: {cpu: '1'}}\n",
    );
    pod_from_yaml(
        &format!(
            "apiVersion: v1\nkind: Pod\nmetadata: {{name: {name}, ownerReferences: [{{apiVersion: apps/v1, kind: {kind}, name: {owner}, uid: u, controller: true}}]}}\nspec: {{containers: [{{name: c}}]}}\n"
        ),
        &mut cluster,
    )
}

/// `<owner>-` and five characters of the `generateName` alphabet.
fn generated_by(owner: &str, name: &str) -> bool {
    name.strip_prefix(owner)
        .and_then(|s| s.strip_prefix('-'))
        .is_some_and(|s| {
            s.len() == 5
                && s.bytes()
                    .all(|b| b"bcdfghjklmnpqrstvwxz2456789".contains(&b))
        })
}

#[test]
fn replicas_are_named_as_their_controller_names_them() {
    for (kind, owner, first) in [
        ("ReplicaSet", "web-7c9f8d6b5", "web-7c9f8d6b5-x2k4p"),
        ("Job", "migrate", "migrate-q9zrt"),
        ("DaemonSet", "agent", "agent-b4mfl"),
    ] {
        let pod = owned_by(kind, owner, first);
        assert_eq!(replica_name(&pod, 1), first);
        let names: Vec<String> = (2..=6).map(|i| replica_name(&pod, i)).collect();
        for n in &names {
            assert!(generated_by(owner, n), "{kind}: {n}");
        }
        let mut unique = names.clone();
        unique.sort();
        unique.dedup();
        assert_eq!(unique.len(), names.len(), "{kind}: {names:?}");
        // The same question, the same names.
        assert_eq!(replica_name(&pod, 3), names[1]);
    }
    let set = owned_by("StatefulSet", "db", "db-3");
    assert_eq!(replica_name(&set, 2), "db-4");
    assert_eq!(replica_name(&set, 3), "db-5");
    let rc = owned_by("ReplicationController", "old", "old-abcde");
    assert!(generated_by("old", &replica_name(&rc, 2)));
    // A mirror pod (owned by its Node): no controller naming applies.
    let mirror = owned_by("Node", "n1", "etcd-n1");
    assert_eq!(replica_name(&mirror, 2), "etcd-n1-2");
}
