use crate::support::prelude::*;
use crate::support::{cluster_from_yaml, pod_from_yaml};
use kplace::engine::plugins::nodevolumelimits::*;

const SNAPSHOT: &str = r#"
apiVersion: v1
kind: List
items:
- {apiVersion: v1, kind: Node, metadata: {name: n1}, status: {allocatable: {cpu: "4", memory: 8Gi, pods: "110"}}}
- {apiVersion: v1, kind: Node, metadata: {name: n2}, status: {allocatable: {cpu: "4", memory: 8Gi, pods: "110", attachable-volumes-csi-ebs.csi.aws.com: "1"}}}
- apiVersion: storage.k8s.io/v1
  kind: CSINode
  metadata: {name: n1}
  spec: {drivers: [{name: ebs.csi.aws.com, nodeID: i-1, allocatable: {count: 2}}]}
- {apiVersion: storage.k8s.io/v1, kind: StorageClass, metadata: {name: gp3}, provisioner: ebs.csi.aws.com, volumeBindingMode: WaitForFirstConsumer}
- apiVersion: v1
  kind: PersistentVolume
  metadata: {name: pv-a}
  spec: {capacity: {storage: 1Gi}, accessModes: [ReadWriteOnce], storageClassName: gp3, csi: {driver: ebs.csi.aws.com, volumeHandle: vol-a}}
- apiVersion: v1
  kind: PersistentVolume
  metadata: {name: pv-b}
  spec: {capacity: {storage: 1Gi}, accessModes: [ReadWriteOnce], storageClassName: gp3, csi: {driver: ebs.csi.aws.com, volumeHandle: vol-b}}
- {apiVersion: v1, kind: PersistentVolumeClaim, metadata: {name: a, namespace: default, annotations: {pv.kubernetes.io/bind-completed: "yes"}}, spec: {storageClassName: gp3, volumeName: pv-a}}
- {apiVersion: v1, kind: PersistentVolumeClaim, metadata: {name: b, namespace: default, annotations: {pv.kubernetes.io/bind-completed: "yes"}}, spec: {storageClassName: gp3, volumeName: pv-b}}
- {apiVersion: v1, kind: PersistentVolumeClaim, metadata: {name: c, namespace: default}, spec: {storageClassName: gp3}}
- apiVersion: v1
  kind: Pod
  metadata: {name: holder, namespace: default}
  spec:
    nodeName: n1
    containers: [{name: c, image: x}]
    volumes: [{name: d, persistentVolumeClaim: {claimName: a}}]
  status: {phase: Running}
"#;

fn pod(claims: &[&str], cluster: &mut Cluster) -> Pod {
    let vols: Vec<String> = claims
        .iter()
        .enumerate()
        .map(|(i, c)| format!("{{name: v{i}, persistentVolumeClaim: {{claimName: {c}}}}}"))
        .collect();
    pod_from_yaml(
        &format!(
            "apiVersion: v1\nkind: Pod\nmetadata: {{name: new}}\nspec:\n  containers: [{{name: c, image: x}}]\n  volumes: [{}]\n",
            vols.join(", ")
        ),
        cluster,
    )
}

/// PreFilter then Filter, as a scheduling cycle runs them.
fn filter(
    cluster: &Cluster,
    pod: &Pod,
    node: &kplace::model::Node,
    info: &kplace::model::NodeInfo,
    version: Version,
) -> FilterResult {
    pre_filter(cluster, pod)
        .expect("the pod has claims: PreFilter does not skip")
        .filter(cluster, node, info, version)
}

#[test]
fn counts_unique_volumes_against_the_csinode_limit() {
    let mut cluster = cluster_from_yaml(SNAPSHOT);
    let (node, info) = (cluster.node(0).clone(), cluster.node_info(0).clone());
    // The holder's volume a is attached already: a again plus b makes 2.
    let p = pod(&["a", "b"], &mut cluster);
    assert!(filter(&cluster, &p, &node, &info, Version::V1_34).is_ok());
    // b and the unbound c (counted by its class's provisioner) make 3.
    let p = pod(&["b", "c"], &mut cluster);
    let err = filter(&cluster, &p, &node, &info, Version::V1_34).unwrap_err();
    assert_eq!(err.reasons[0], REASON);
}

#[test]
fn node_allocatable_limits_count_only_in_v1_31() {
    let mut cluster = cluster_from_yaml(SNAPSHOT);
    let (node, info) = (cluster.node(1).clone(), cluster.node_info(1).clone());
    let p = pod(&["a", "b"], &mut cluster);
    assert!(filter(&cluster, &p, &node, &info, Version::V1_31).is_err());
    assert!(filter(&cluster, &p, &node, &info, Version::V1_32).is_ok());
}

/// Claims of in-tree classes not provisioned yet count as the CSI driver
/// they migrate to, only on nodes where migration is on: always for
/// aws-ebs (given a CSINode), for portworx only where the CSINode lists it.
const IN_TREE: &str = r#"
apiVersion: v1
kind: List
items:
- {apiVersion: v1, kind: Node, metadata: {name: listed}, status: {allocatable: {cpu: "4", memory: 8Gi, pods: "110"}}}
- {apiVersion: v1, kind: Node, metadata: {name: unlisted}, status: {allocatable: {cpu: "4", memory: 8Gi, pods: "110"}}}
- {apiVersion: v1, kind: Node, metadata: {name: bare}, status: {allocatable: {cpu: "4", memory: 8Gi, pods: "110"}}}
- apiVersion: storage.k8s.io/v1
  kind: CSINode
  metadata: {name: listed, annotations: {storage.alpha.kubernetes.io/migrated-plugins: "kubernetes.io/portworx-volume"}}
  spec: {drivers: [{name: ebs.csi.aws.com, nodeID: i-1, allocatable: {count: 1}}, {name: pxd.portworx.com, nodeID: i-1, allocatable: {count: 1}}]}
- apiVersion: storage.k8s.io/v1
  kind: CSINode
  metadata: {name: unlisted}
  spec: {drivers: [{name: ebs.csi.aws.com, nodeID: i-2, allocatable: {count: 1}}, {name: pxd.portworx.com, nodeID: i-2, allocatable: {count: 1}}]}
- {apiVersion: storage.k8s.io/v1, kind: StorageClass, metadata: {name: ebs}, provisioner: kubernetes.io/aws-ebs, volumeBindingMode: WaitForFirstConsumer}
- {apiVersion: storage.k8s.io/v1, kind: StorageClass, metadata: {name: px}, provisioner: kubernetes.io/portworx-volume, volumeBindingMode: WaitForFirstConsumer}
- {apiVersion: v1, kind: PersistentVolumeClaim, metadata: {name: e1, namespace: default}, spec: {storageClassName: ebs}}
- {apiVersion: v1, kind: PersistentVolumeClaim, metadata: {name: e2, namespace: default}, spec: {storageClassName: ebs}}
- {apiVersion: v1, kind: PersistentVolumeClaim, metadata: {name: p1, namespace: default}, spec: {storageClassName: px}}
- {apiVersion: v1, kind: PersistentVolumeClaim, metadata: {name: p2, namespace: default}, spec: {storageClassName: px}}
"#;

#[test]
fn in_tree_claims_count_where_migration_is_on() {
    let mut cluster = cluster_from_yaml(IN_TREE);
    let verdicts = |cluster: &Cluster, p: &Pod| -> Vec<bool> {
        (0..3)
            .map(|n| {
                let (node, info) = (cluster.node(n), cluster.node_info(n));
                filter(cluster, p, node, info, Version::V1_34).is_ok()
            })
            .collect()
    };
    // Node order: listed, unlisted, bare (no CSINode: nothing migrates).
    let ebs = pod(&["e1", "e2", "e1"], &mut cluster);
    assert_eq!(verdicts(&cluster, &ebs), [false, false, true]);
    let px = pod(&["p1", "p2"], &mut cluster);
    assert_eq!(verdicts(&cluster, &px), [false, true, true]);
    // One volume each stays within every limit.
    let one_each = pod(&["e1", "p1"], &mut cluster);
    assert_eq!(verdicts(&cluster, &one_each), [true, true, true]);
}
