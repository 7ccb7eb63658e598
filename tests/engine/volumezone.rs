use crate::support::prelude::*;
use crate::support::{cluster_from_yaml, pod_from_yaml};
use kplace::engine::plugins::volumezone::*;
use kplace::engine::status::Code;

const SNAPSHOT: &str = r#"
apiVersion: v1
kind: List
items:
- {apiVersion: v1, kind: Node, metadata: {name: a, labels: {topology.kubernetes.io/zone: z1}}, status: {allocatable: {cpu: "1", memory: 1Gi, pods: "10"}}}
- {apiVersion: v1, kind: Node, metadata: {name: b, labels: {failure-domain.beta.kubernetes.io/zone: z2}}, status: {allocatable: {cpu: "1", memory: 1Gi, pods: "10"}}}
- {apiVersion: v1, kind: Node, metadata: {name: c}, status: {allocatable: {cpu: "1", memory: 1Gi, pods: "10"}}}
- apiVersion: v1
  kind: PersistentVolume
  metadata: {name: pv-1, labels: {failure-domain.beta.kubernetes.io/zone: z1__z3}}
  spec: {capacity: {storage: 1Gi}, storageClassName: disk}
- {apiVersion: v1, kind: PersistentVolumeClaim, metadata: {name: data, namespace: default}, spec: {storageClassName: disk, volumeName: pv-1}}
- {apiVersion: v1, kind: PersistentVolumeClaim, metadata: {name: lost, namespace: default}, spec: {storageClassName: disk, volumeName: pv-gone}}
"#;

fn pod(claim: &str, cluster: &mut Cluster) -> Pod {
    pod_from_yaml(
        &format!(
            "apiVersion: v1\nkind: Pod\nmetadata: {{name: p}}\nspec:\n  containers: [{{name: c, image: x}}]\n  volumes: [{{name: v, persistentVolumeClaim: {{claimName: {claim}}}}}]\n"
        ),
        cluster,
    )
}

#[test]
fn a_beta_zone_label_admits_nodes_in_its_zones_by_either_label() {
    let mut cluster = cluster_from_yaml(SNAPSHOT);
    let p = pod("data", &mut cluster);
    let t = pre_filter(&cluster, &p).unwrap().unwrap();
    assert!(filter(&cluster, &t, cluster.node(0)).is_ok(), "GA label z1");
    let err = filter(&cluster, &t, cluster.node(1)).unwrap_err();
    assert_eq!(
        (err.code, &*err.reasons[0]),
        (Code::UnschedulableAndUnresolvable, REASON)
    );
    assert!(
        filter(&cluster, &t, cluster.node(2)).is_ok(),
        "unlabelled node"
    );
}

#[test]
fn a_claim_bound_to_a_missing_volume_is_unresolvable() {
    let mut cluster = cluster_from_yaml(SNAPSHOT);
    let p = pod("lost", &mut cluster);
    let err = pre_filter(&cluster, &p).unwrap_err();
    assert_eq!(err.reasons[0], "persistentvolume \"pv-gone\" not found");
}
