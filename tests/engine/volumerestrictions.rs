use crate::support::prelude::*;
use crate::support::{cluster_from_yaml, pod_from_yaml};
use kplace::engine::plugins::volumerestrictions::*;
use kplace::engine::status::Code;

const SNAPSHOT: &str = r#"
apiVersion: v1
kind: List
items:
- {apiVersion: v1, kind: Node, metadata: {name: n1}, status: {allocatable: {cpu: "4", memory: 8Gi, pods: "110"}}}
- apiVersion: v1
  kind: PersistentVolumeClaim
  metadata: {name: solo, namespace: db}
  spec: {accessModes: [ReadWriteOncePod], resources: {requests: {storage: 1Gi}}}
- apiVersion: v1
  kind: Pod
  metadata: {name: holder, namespace: db}
  spec:
    nodeName: n1
    containers: [{name: c, image: x}]
    volumes:
    - {name: d, persistentVolumeClaim: {claimName: solo}}
    - {name: pd, gcePersistentDisk: {pdName: disk-1}}
  status: {phase: Running}
"#;

fn incoming(volumes: &str) -> String {
    format!(
        "apiVersion: v1\nkind: Pod\nmetadata: {{name: new, namespace: db}}\nspec:\n  containers: [{{name: c, image: x}}]\n  volumes: {volumes}\n"
    )
}

#[test]
fn a_read_write_once_pod_claim_in_use_blocks_every_node_until_its_holder_leaves() {
    let mut cluster = cluster_from_yaml(SNAPSHOT);
    let pod = pod_from_yaml(
        &incoming("[{name: d, persistentVolumeClaim: {claimName: solo}}]"),
        &mut cluster,
    );
    let pre = pre_filter(&cluster, &pod).unwrap().expect("not skipped");
    let mut state = State::new(&pre);
    let info = cluster.node_info(0);
    let err = state
        .filter(&cluster, &pod, info, Version::V1_33)
        .unwrap_err();
    assert_eq!(err.code, Code::Unschedulable);
    assert_eq!(
        err.reasons[0],
        "node has pod using PersistentVolumeClaim with the same name and ReadWriteOncePod access mode"
    );
    let holder = cluster.pod(cluster.find_pod("db", "holder").unwrap());
    state.update_with_pod(holder, -1);
    assert!(state.filter(&cluster, &pod, info, Version::V1_34).is_ok());
}

#[test]
fn a_missing_claim_is_unresolvable_and_unused_claims_skip() {
    let mut cluster = cluster_from_yaml(SNAPSHOT);
    let pod = pod_from_yaml(
        &incoming("[{name: d, persistentVolumeClaim: {claimName: gone}}]"),
        &mut cluster,
    );
    let err = pre_filter(&cluster, &pod).unwrap_err();
    assert_eq!(err.code, Code::UnschedulableAndUnresolvable);
    assert_eq!(err.reasons[0], "persistentvolumeclaim \"gone\" not found");
    let pod = pod_from_yaml(&incoming("[]"), &mut cluster);
    assert_eq!(pre_filter(&cluster, &pod), Ok(None));
}

#[test]
fn the_same_writable_gce_disk_conflicts_but_two_read_only_mounts_do_not() {
    let mut cluster = cluster_from_yaml(SNAPSHOT);
    let rw = pod_from_yaml(
        &incoming("[{name: pd, gcePersistentDisk: {pdName: disk-1}}]"),
        &mut cluster,
    );
    let pre = pre_filter(&cluster, &rw).unwrap().unwrap();
    let err = State::new(&pre)
        .filter(&cluster, &rw, cluster.node_info(0), Version::V1_34)
        .unwrap_err();
    assert_eq!(err.reasons[0], REASON_DISK_CONFLICT);
    let other = pod_from_yaml(
        &incoming("[{name: pd, gcePersistentDisk: {pdName: disk-2}}]"),
        &mut cluster,
    );
    let pre = pre_filter(&cluster, &other).unwrap().unwrap();
    assert!(
        State::new(&pre)
            .filter(&cluster, &other, cluster.node_info(0), Version::V1_34)
            .is_ok()
    );
}
