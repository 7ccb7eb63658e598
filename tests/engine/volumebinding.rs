use crate::support::prelude::*;
use crate::support::{cluster_from_yaml, pod_from_yaml};
use kplace::engine::plugins::volumebinding::*;
use kplace::engine::status::Code;

const SNAPSHOT: &str = r#"
apiVersion: v1
kind: List
items:
- {apiVersion: v1, kind: Node, metadata: {name: a, labels: {kubernetes.io/hostname: a, topology.kubernetes.io/zone: z1}}, status: {allocatable: {cpu: "1", memory: 1Gi, pods: "10"}}}
- {apiVersion: v1, kind: Node, metadata: {name: b, labels: {kubernetes.io/hostname: b, topology.kubernetes.io/zone: z2}}, status: {allocatable: {cpu: "1", memory: 1Gi, pods: "10"}}}
- {apiVersion: storage.k8s.io/v1, kind: StorageClass, metadata: {name: local}, provisioner: kubernetes.io/no-provisioner, volumeBindingMode: WaitForFirstConsumer}
- {apiVersion: storage.k8s.io/v1, kind: StorageClass, metadata: {name: zonal}, provisioner: pd.csi.storage.gke.io, volumeBindingMode: WaitForFirstConsumer, allowedTopologies: [{matchLabelExpressions: [{key: topology.kubernetes.io/zone, values: [z2]}]}]}
- {apiVersion: storage.k8s.io/v1, kind: StorageClass, metadata: {name: now}, provisioner: pd.csi.storage.gke.io, volumeBindingMode: Immediate}
- apiVersion: v1
  kind: PersistentVolume
  metadata: {name: local-a-small}
  spec:
    capacity: {storage: 5Gi}
    accessModes: [ReadWriteOnce]
    storageClassName: local
    local: {path: /mnt/1}
    nodeAffinity: {required: {nodeSelectorTerms: [{matchExpressions: [{key: kubernetes.io/hostname, operator: In, values: [a]}]}]}}
  status: {phase: Available}
- apiVersion: v1
  kind: PersistentVolume
  metadata: {name: local-b-bound}
  spec:
    capacity: {storage: 50Gi}
    accessModes: [ReadWriteOnce]
    storageClassName: local
    claimRef: {namespace: default, name: bound}
    nodeAffinity: {required: {nodeSelectorTerms: [{matchExpressions: [{key: kubernetes.io/hostname, operator: In, values: [b]}]}]}}
  status: {phase: Bound}
- {apiVersion: v1, kind: PersistentVolumeClaim, metadata: {name: bound, namespace: default, annotations: {pv.kubernetes.io/bind-completed: "yes"}}, spec: {storageClassName: local, volumeName: local-b-bound}}
- {apiVersion: v1, kind: PersistentVolumeClaim, metadata: {name: small, namespace: default}, spec: {storageClassName: local, accessModes: [ReadWriteOnce], resources: {requests: {storage: 1Gi}}}}
- {apiVersion: v1, kind: PersistentVolumeClaim, metadata: {name: big, namespace: default}, spec: {storageClassName: local, accessModes: [ReadWriteOnce], resources: {requests: {storage: 10Gi}}}}
- {apiVersion: v1, kind: PersistentVolumeClaim, metadata: {name: dynamic, namespace: default}, spec: {storageClassName: zonal, resources: {requests: {storage: 10Gi}}}}
- {apiVersion: v1, kind: PersistentVolumeClaim, metadata: {name: waiting, namespace: default}, spec: {storageClassName: now}}
"#;

fn pod(claims: &[&str], cluster: &mut Cluster) -> Pod {
    let vols: Vec<String> = claims
        .iter()
        .enumerate()
        .map(|(i, c)| format!("{{name: v{i}, persistentVolumeClaim: {{claimName: {c}}}}}"))
        .collect();
    pod_from_yaml(
        &format!(
            "apiVersion: v1\nkind: Pod\nmetadata: {{name: p}}\nspec:\n  containers: [{{name: c, image: x}}]\n  volumes: [{}]\n",
            vols.join(", ")
        ),
        cluster,
    )
}

fn reasons(r: FilterResult) -> Vec<String> {
    match r {
        Ok(()) => vec![],
        Err(e) => {
            assert_eq!(e.code, Code::UnschedulableAndUnresolvable);
            e.reasons.iter().map(|r| r.to_string()).collect()
        }
    }
}

#[test]
fn a_bound_volume_admits_only_nodes_its_affinity_matches_with_the_release_reason() {
    let mut cluster = cluster_from_yaml(SNAPSHOT);
    let p = pod(&["bound"], &mut cluster);
    let state = pre_filter(&cluster, &p, Version::V1_34).unwrap().unwrap();
    assert!(
        state.eligible_nodes.is_none(),
        "v1.34 returns no PreFilter result"
    );
    assert_eq!(
        reasons(state.filter(&cluster, cluster.node(0), Version::V1_34)),
        ["node(s) didn't match PersistentVolume's node affinity"]
    );
    assert_eq!(
        reasons(state.filter(&cluster, cluster.node(0), Version::V1_32)),
        ["node(s) had volume node affinity conflict"]
    );
    assert!(
        state
            .filter(&cluster, cluster.node(1), Version::V1_34)
            .is_ok()
    );
    let v131 = pre_filter(&cluster, &p, Version::V1_31).unwrap().unwrap();
    assert_eq!(v131.eligible_nodes, Some(vec!["b".into()]));
}

#[test]
fn an_unbound_claim_binds_to_a_fitting_local_volume_or_fails_to_find_one() {
    let mut cluster = cluster_from_yaml(SNAPSHOT);
    let p = pod(&["small"], &mut cluster);
    let state = pre_filter(&cluster, &p, Version::V1_34).unwrap().unwrap();
    assert!(
        state
            .filter(&cluster, cluster.node(0), Version::V1_34)
            .is_ok()
    );
    assert_eq!(
        reasons(state.filter(&cluster, cluster.node(1), Version::V1_34)),
        [REASON_BIND_CONFLICT]
    );
    // Too big for the only available volume, and the class cannot provision.
    let p = pod(&["big"], &mut cluster);
    let state = pre_filter(&cluster, &p, Version::V1_34).unwrap().unwrap();
    assert_eq!(
        reasons(state.filter(&cluster, cluster.node(0), Version::V1_34)),
        [REASON_BIND_CONFLICT]
    );
}

#[test]
fn dynamic_provisioning_follows_allowed_topologies() {
    let mut cluster = cluster_from_yaml(SNAPSHOT);
    let p = pod(&["dynamic"], &mut cluster);
    let state = pre_filter(&cluster, &p, Version::V1_33).unwrap().unwrap();
    assert_eq!(
        reasons(state.filter(&cluster, cluster.node(0), Version::V1_33)),
        [REASON_BIND_CONFLICT]
    );
    assert!(
        state
            .filter(&cluster, cluster.node(1), Version::V1_33)
            .is_ok()
    );
}

#[test]
fn unbound_immediate_and_missing_claims_stop_prefilter() {
    let mut cluster = cluster_from_yaml(SNAPSHOT);
    let p = pod(&["waiting"], &mut cluster);
    let err = pre_filter(&cluster, &p, Version::V1_34).unwrap_err();
    assert_eq!(err.reasons[0], REASON_UNBOUND_IMMEDIATE);
    let p = pod(&["nope"], &mut cluster);
    let err = pre_filter(&cluster, &p, Version::V1_34).unwrap_err();
    assert_eq!(err.reasons[0], "persistentvolumeclaim \"nope\" not found");
    let p = pod(&[], &mut cluster);
    assert!(pre_filter(&cluster, &p, Version::V1_34).unwrap().is_none());
}
