//! Incoming pods for benchmarks: one that fits (the scoring path) and one
//! that needs preemption.

use super::*;

/// One more replica of the checkout API (an existing workload on the
/// compute pool, ~20% of nodes): a `node-pool` nodeSelector, a zone spread
/// constraint (ScheduleAnyway), a preferred hostname anti-affinity and a
/// preferred zone node affinity, so every filter and score plugin works.
pub fn fitting_pod_yaml(spec: &SynthSpec) -> String {
    let plan = Plan::new(spec);
    let w = &plan.workloads[ANCHOR];
    let preferred_zones: Vec<String> = (0..plan.zones.min(2)).map(zone_name).collect();
    format!(
        "apiVersion: v1
kind: Pod
metadata:
  name: {name}-{hash}-synth
  namespace: {namespace}
  labels:
    app: {name}
    pod-template-hash: {hash}
spec:
  nodeSelector:
    node-pool: compute
  affinity:
    nodeAffinity:
      preferredDuringSchedulingIgnoredDuringExecution:
      - weight: 20
        preference:
          matchExpressions:
          - key: topology.kubernetes.io/zone
            operator: In
            values: [{zones}]
    podAntiAffinity:
      preferredDuringSchedulingIgnoredDuringExecution:
      - weight: 100
        podAffinityTerm:
          topologyKey: kubernetes.io/hostname
          labelSelector:
            matchLabels:
              app: {name}
  topologySpreadConstraints:
  - maxSkew: 1
    topologyKey: topology.kubernetes.io/zone
    whenUnsatisfiable: ScheduleAnyway
    labelSelector:
      matchLabels:
        app: {name}
  containers:
  - name: {name}
    image: {image}
    resources:
      requests:
        cpu: {cpu}
        memory: {memory}
  - name: envoy
    image: {SIDECAR_IMAGE}
    resources:
      requests:
        cpu: {SIDECAR_CPU_M}m
        memory: {SIDECAR_MEM_MI}Mi
",
        name = w.name,
        hash = w.hash,
        namespace = plan.namespaces[w.namespace].name,
        zones = preferred_zones.join(", "),
        image = w.image,
        cpu = cpu_quantity(w.cpu_m),
        memory = mem_quantity(w.mem_mi),
    )
}

/// A `platform-critical` pod asking for more cpu than any schedulable node
/// has free, yet less than a node's allocatable: it fits nowhere as the
/// cluster is, fails with `Insufficient cpu` on the ~90% of nodes where
/// evicting lower-priority pods would make room, and untolerated taints
/// (infra pool) or cordons rule out the rest.
pub fn preempting_pod_yaml(spec: &SynthSpec) -> String {
    let plan = Plan::new(spec);
    let max_free = plan
        .nodes
        .iter()
        .filter(|n| n.pool != INFRA && !n.cordoned)
        .map(|n| n.shape().alloc_cpu_m - n.cpu_m)
        .max()
        .unwrap_or(0);
    let cpu_m = (max_free / 100 + 1) * 100;
    format!(
        "apiVersion: v1
kind: Pod
metadata:
  name: ledger-reconcile-critical
  namespace: {namespace}
  labels:
    app: ledger-reconcile
spec:
  priorityClassName: {class}
  terminationGracePeriodSeconds: 30
  containers:
  - name: reconcile
    image: {REGISTRY}/ledger/ledger-reconcile:v2.3.0
    resources:
      requests:
        cpu: {cpu}
        memory: 1Gi
      limits:
        memory: 1Gi
",
        namespace = plan.namespaces[SYSTEM_NAMESPACES.len()].name,
        class = CLASSES[PLATFORM].name,
        cpu = cpu_quantity(cpu_m),
    )
}
