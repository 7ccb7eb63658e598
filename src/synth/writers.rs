//! Writing the plan as a `List` of API objects, one per line.

use super::*;

/// Streams the items of a `List`, one compact object per line.
pub(super) struct ListWriter<W: Write> {
    pub(super) w: W,
    pub(super) first: bool,
}

impl<W: Write> ListWriter<W> {
    pub(super) fn new(mut w: W) -> io::Result<Self> {
        w.write_all(b"{\"apiVersion\":\"v1\",\"kind\":\"List\",\"metadata\":{\"resourceVersion\":\"\"},\"items\":[\n")?;
        Ok(ListWriter { w, first: true })
    }

    pub(super) fn item(&mut self, v: &Value) -> io::Result<()> {
        if !self.first {
            self.w.write_all(b",\n")?;
        }
        self.first = false;
        serde_json::to_writer(&mut self.w, v)?;
        Ok(())
    }

    pub(super) fn finish(mut self) -> io::Result<()> {
        self.w.write_all(b"\n]}\n")?;
        self.w.flush()
    }
}

/// Identities made while writing: UIDs, pod names, resource versions.
pub(super) struct Ids {
    pub(super) rng: Rng,
    /// UIDs and volume IDs of claims and volumes: apart, so the other
    /// objects' names and UIDs stay as they were before storage was added.
    pub(super) storage: Rng,
    pub(super) version: u64,
    pub(super) pod_ip: u32,
    /// Pod names given so far: a random suffix that repeats one (5,000
    /// DaemonSet pods make that likely) is drawn again, as the API server's
    /// `generateName` retries, so no name is defined twice.
    pub(super) pod_names: rustc_hash::FxHashSet<String>,
}

impl Ids {
    /// `<prefix>-<5 random characters>`, unique among the pods written to
    /// `namespace`.
    pub(super) fn pod_name(&mut self, namespace: &str, prefix: &str) -> String {
        loop {
            let name = format!("{prefix}-{}", self.rng.safe_chars(5));
            if self.pod_names.insert(format!("{namespace}/{name}")) {
                return name;
            }
        }
    }

    pub(super) fn version(&mut self) -> String {
        self.version += 1;
        self.version.to_string()
    }

    pub(super) fn pod_ip(&mut self) -> String {
        self.pod_ip += 1;
        let c = self.pod_ip;
        format!("100.{}.{}.{}", 64 + (c >> 16) % 64, (c >> 8) & 255, c & 255)
    }
}

/// What [`write_cluster_json`] wrote: the zones the nodes span (at most
/// one per node) and how many pods stayed pending (more pods than the
/// nodes hold, or the few planned pending).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Written {
    pub nodes: usize,
    pub zones: usize,
    pub pods: usize,
    pub pending: usize,
}

/// Writes the cluster as one kubectl-style JSON `List`: PriorityClasses,
/// Namespaces, Nodes, Pods, ReplicaSets, StatefulSets, DaemonSets, Services
/// and PodDisruptionBudgets. Items are streamed, never held all at once.
pub fn write_cluster_json(w: &mut impl Write, spec: &SynthSpec) -> io::Result<Written> {
    let plan = Plan::new(spec);
    let written = Written {
        nodes: plan.nodes.len(),
        // Nodes go round-robin over the zones.
        zones: plan.zones.min(plan.nodes.len()),
        pods: plan.daemons * plan.nodes.len() + plan.placements.iter().map(Vec::len).sum::<usize>(),
        pending: plan
            .placements
            .iter()
            .flatten()
            .filter(|n| n.is_none())
            .count(),
    };
    let mut out = ListWriter::new(BufWriter::with_capacity(1 << 16, w))?;
    let mut ids = Ids {
        rng: Rng::new(spec.seed.rotate_left(17) ^ 0xC1A5_7E12),
        storage: Rng::new(spec.seed.rotate_left(29) ^ 0x5707_A6E5),
        version: 48_000_000,
        pod_ip: 0,
        pod_names: Default::default(),
    };
    let workload_uids: Vec<String> = plan.workloads.iter().map(|_| ids.rng.uid()).collect();
    let daemon_uids: Vec<String> = DAEMONS.iter().map(|_| ids.rng.uid()).collect();

    for class in &CLASSES {
        out.item(&priority_class_json(class, &mut ids))?;
    }
    out.item(&storage_class_json(&plan, &mut ids))?;
    for ns in &plan.namespaces {
        out.item(&namespace_json(&ns.name, &mut ids))?;
    }
    for node in &plan.nodes {
        out.item(&node_json(&plan, node, &mut ids))?;
    }
    for node in &plan.nodes {
        out.item(&csi_node_json(node, &mut ids))?;
    }
    for (d, daemon) in DAEMONS[..plan.daemons].iter().enumerate() {
        let hash = ids.rng.safe_chars(10);
        for node in &plan.nodes {
            out.item(&daemon_pod_json(
                daemon,
                &daemon_uids[d],
                &hash,
                node,
                &mut ids,
            ))?;
        }
    }
    for (i, w) in plan.workloads.iter().enumerate() {
        for (r, node) in plan.placements[i].iter().enumerate() {
            let node = node.map(|n| &plan.nodes[n as usize]);
            out.item(&workload_pod_json(
                &plan,
                w,
                &workload_uids[i],
                r,
                node,
                &mut ids,
            ))?;
            if w.kind == Kind::StatefulSet {
                for item in claim_json(&plan, w, r, node, &mut ids) {
                    out.item(&item)?;
                }
            }
        }
    }
    for (i, w) in plan.workloads.iter().enumerate() {
        out.item(&controller_json(&plan, w, &workload_uids[i], &mut ids))?;
    }
    for (d, daemon) in DAEMONS[..plan.daemons].iter().enumerate() {
        out.item(&daemon_set_json(&plan, daemon, &daemon_uids[d], &mut ids))?;
    }
    for w in plan.workloads.iter().filter(|w| w.service) {
        out.item(&service_json(&plan, w, &mut ids))?;
    }
    for w in &plan.workloads {
        if let Some(budget) = w.pdb {
            out.item(&pdb_json(&plan, w, budget, &mut ids))?;
        }
    }
    out.finish()?;
    Ok(written)
}

pub(super) fn cpu_quantity(m: i64) -> String {
    if m % 1000 == 0 {
        (m / 1000).to_string()
    } else {
        format!("{m}m")
    }
}

pub(super) fn mem_quantity(mi: i64) -> String {
    if mi % 1024 == 0 {
        format!("{}Gi", mi / 1024)
    } else {
        format!("{mi}Mi")
    }
}

/// The CSI driver of every synthetic volume (EBS-like, zonal).
pub(super) const CSI_DRIVER: &str = "ebs.csi.aws.com";
/// Its topology key on nodes and volumes.
pub(super) const CSI_ZONE_KEY: &str = "topology.ebs.csi.aws.com/zone";
/// Volumes the driver can attach per node (`CSINode` allocatable count).
pub(super) const CSI_ATTACH_LIMIT: i32 = 25;
pub(super) const STORAGE_CLASS: &str = "gp3";
/// Every StatefulSet has one claim template of this name.
pub(super) const CLAIM_TEMPLATE: &str = "data";

/// A StatefulSet's claim size: 10–100 GiB by its name.
pub(super) fn claim_gi(w: &Workload) -> u64 {
    10 + fnv(w.name.as_bytes()) % 10 * 10
}

pub(super) fn claim_spec(w: &Workload) -> Value {
    json!({
        "accessModes": ["ReadWriteOnce"],
        "resources": {"requests": {"storage": format!("{}Gi", claim_gi(w))}},
        "storageClassName": STORAGE_CLASS,
        "volumeMode": "Filesystem",
    })
}

/// The default class: zonal, WaitForFirstConsumer, allowed in every zone.
pub(super) fn storage_class_json(plan: &Plan, ids: &mut Ids) -> Value {
    let zones: Vec<String> = (0..plan.zones).map(zone_name).collect();
    json!({
        "apiVersion": "storage.k8s.io/v1",
        "kind": "StorageClass",
        "metadata": metadata(STORAGE_CLASS, None, NOW - 400 * DAY, ids, json!({
            "annotations": {"storageclass.kubernetes.io/is-default-class": "true"},
        })),
        "provisioner": CSI_DRIVER,
        "parameters": {"type": "gp3", "fsType": "ext4"},
        "reclaimPolicy": "Delete",
        "allowVolumeExpansion": true,
        "volumeBindingMode": "WaitForFirstConsumer",
        "allowedTopologies": [{"matchLabelExpressions": [{"key": CSI_ZONE_KEY, "values": zones}]}],
    })
}

pub(super) fn csi_node_json(node: &NodePlan, ids: &mut Ids) -> Value {
    json!({
        "apiVersion": "storage.k8s.io/v1",
        "kind": "CSINode",
        "metadata": metadata(&node.name, None, node.created + 40, ids, json!({})),
        "spec": {"drivers": [{
            "name": CSI_DRIVER,
            "nodeID": format!("i-{:017x}", fnv(node.name.as_bytes()) >> 4),
            "topologyKeys": [CSI_ZONE_KEY],
            "allocatable": {"count": CSI_ATTACH_LIMIT},
        }]},
    })
}

/// A StatefulSet pod's claim and, for a placed pod, the volume provisioned
/// for it in its node's zone (bound both ways, as the PV controller leaves
/// them). A Pending pod's claim waits, unbound, for its first consumer.
pub(super) fn claim_json(
    plan: &Plan,
    w: &Workload,
    ordinal: usize,
    node: Option<&NodePlan>,
    ids: &mut Ids,
) -> Vec<Value> {
    let namespace = &plan.namespaces[w.namespace].name;
    let claim = format!("{CLAIM_TEMPLATE}-{}-{ordinal}", w.name);
    let created = w.created + 60 + ordinal as i64;
    let storage = format!("{}Gi", claim_gi(w));
    let claim_uid = ids.storage.uid();
    let meta = |name: &str, ns: Option<&str>, uid: &str, ids: &mut Ids, extra: Value| {
        let mut m = json!({"name": name, "uid": uid, "resourceVersion": ids.version(),
                           "creationTimestamp": rfc3339(created)});
        if let Some(ns) = ns {
            m["namespace"] = ns.into();
        }
        if let (Value::Object(m), Value::Object(extra)) = (&mut m, extra) {
            m.extend(extra);
        }
        m
    };
    let mut labels = selector_labels(w);
    if let Value::Object(l) = &mut labels {
        l.insert("app.kubernetes.io/instance".into(), w.name.clone().into());
    }
    let Some(node) = node else {
        return vec![json!({
            "apiVersion": "v1",
            "kind": "PersistentVolumeClaim",
            "metadata": meta(&claim, Some(namespace), &claim_uid, ids, json!({"labels": labels})),
            "spec": claim_spec(w),
            "status": {"phase": "Pending"},
        })];
    };
    let zone = zone_name(node.zone);
    let pv = format!("pvc-{claim_uid}");
    let handle = format!("vol-{}", &ids.storage.hex(17));
    let pv_uid = ids.storage.uid();
    let mut spec = claim_spec(w);
    spec["volumeName"] = pv.clone().into();
    vec![
        json!({
            "apiVersion": "v1",
            "kind": "PersistentVolumeClaim",
            "metadata": meta(&claim, Some(namespace), &claim_uid, ids, json!({
                "labels": labels,
                "annotations": {
                    "pv.kubernetes.io/bind-completed": "yes",
                    "pv.kubernetes.io/bound-by-controller": "yes",
                    "volume.beta.kubernetes.io/storage-provisioner": CSI_DRIVER,
                    "volume.kubernetes.io/storage-provisioner": CSI_DRIVER,
                    "volume.kubernetes.io/selected-node": node.name,
                },
                "finalizers": ["kubernetes.io/pvc-protection"],
            })),
            "spec": spec,
            "status": {"phase": "Bound", "accessModes": ["ReadWriteOnce"], "capacity": {"storage": storage}},
        }),
        json!({
            "apiVersion": "v1",
            "kind": "PersistentVolume",
            "metadata": meta(&pv, None, &pv_uid, ids, json!({
                "annotations": {"pv.kubernetes.io/provisioned-by": CSI_DRIVER,
                                "volume.kubernetes.io/provisioner-deletion-secret-name": "",
                                "volume.kubernetes.io/provisioner-deletion-secret-namespace": ""},
                "finalizers": ["kubernetes.io/pv-protection", "external-provisioner.volume.kubernetes.io/finalizer"],
            })),
            "spec": {
                "accessModes": ["ReadWriteOnce"],
                "capacity": {"storage": storage},
                "claimRef": {"apiVersion": "v1", "kind": "PersistentVolumeClaim", "name": claim,
                             "namespace": namespace, "uid": claim_uid},
                "csi": {"driver": CSI_DRIVER, "fsType": "ext4", "volumeHandle": handle,
                        "volumeAttributes": {"storage.kubernetes.io/csiProvisionerIdentity": "1712000000000-8081-ebs.csi.aws.com"}},
                "nodeAffinity": {"required": {"nodeSelectorTerms": [{"matchExpressions": [
                    {"key": CSI_ZONE_KEY, "operator": "In", "values": [zone]}]}]}},
                "persistentVolumeReclaimPolicy": "Delete",
                "storageClassName": STORAGE_CLASS,
                "volumeMode": "Filesystem",
            },
            "status": {"phase": "Bound"},
        }),
    ]
}

/// Common metadata; `extra` fields (labels, annotations, owners) are merged in.
pub(super) fn metadata(
    name: &str,
    namespace: Option<&str>,
    created: i64,
    ids: &mut Ids,
    extra: Value,
) -> Value {
    let mut m = Map::new();
    m.insert("name".into(), name.into());
    if let Some(ns) = namespace {
        m.insert("namespace".into(), ns.into());
    }
    m.insert("uid".into(), ids.rng.uid().into());
    m.insert("resourceVersion".into(), ids.version().into());
    m.insert("creationTimestamp".into(), rfc3339(created).into());
    if let Value::Object(extra) = extra {
        m.extend(extra);
    }
    Value::Object(m)
}

pub(super) fn priority_class_json(c: &Class, ids: &mut Ids) -> Value {
    let mut v = json!({
        "apiVersion": "scheduling.k8s.io/v1",
        "kind": "PriorityClass",
        "metadata": metadata(c.name, None, NOW - 400 * DAY, ids, json!({})),
        "value": c.value,
        "description": c.description,
        "preemptionPolicy": if c.never { "Never" } else { "PreemptLowerPriority" },
    });
    if c.global_default {
        v["globalDefault"] = true.into();
    }
    v
}

pub(super) fn namespace_json(name: &str, ids: &mut Ids) -> Value {
    json!({
        "apiVersion": "v1",
        "kind": "Namespace",
        "metadata": metadata(name, None, NOW - 380 * DAY, ids, json!({
            "labels": {"kubernetes.io/metadata.name": name},
        })),
        "spec": {"finalizers": ["kubernetes"]},
        "status": {"phase": "Active"},
    })
}

pub(super) fn node_json(plan: &Plan, node: &NodePlan, ids: &mut Ids) -> Value {
    let shape = node.shape();
    let zone = zone_name(node.zone);
    let capacity_type = if node.spot { "SPOT" } else { "ON_DEMAND" };
    let labels = json!({
        "beta.kubernetes.io/arch": "amd64",
        "beta.kubernetes.io/instance-type": shape.instance_type,
        "beta.kubernetes.io/os": "linux",
        "eks.amazonaws.com/capacityType": capacity_type,
        "eks.amazonaws.com/nodegroup": format!("{}-{zone}", shape.pool),
        "failure-domain.beta.kubernetes.io/region": REGION,
        "failure-domain.beta.kubernetes.io/zone": zone,
        "kubernetes.io/arch": "amd64",
        "kubernetes.io/hostname": node.name,
        "kubernetes.io/os": "linux",
        "node-pool": shape.pool,
        "node.kubernetes.io/instance-type": shape.instance_type,
        "topology.ebs.csi.aws.com/zone": zone,
        "topology.kubernetes.io/region": REGION,
        "topology.kubernetes.io/zone": zone,
    });
    let mut taints = Vec::new();
    if node.pool == INFRA {
        taints.push(json!({"key": "dedicated", "value": "infra", "effect": "NoSchedule"}));
    }
    if node.spot {
        taints.push(json!({"key": "spot", "value": "true", "effect": "PreferNoSchedule"}));
    }
    if node.cordoned {
        taints.push(json!({"key": "node.kubernetes.io/unschedulable", "effect": "NoSchedule", "timeAdded": rfc3339(NOW - 7200)}));
    }
    let instance = ids.rng.hex(17);
    let mut spec = json!({"providerID": format!("aws:///{zone}/i-{instance}")});
    if !taints.is_empty() {
        spec["taints"] = taints.into();
    }
    if node.cordoned {
        spec["unschedulable"] = true.into();
    }
    let t = rfc3339(node.created + 40);
    let conditions: Vec<Value> = [
        (
            "MemoryPressure",
            "False",
            "KubeletHasSufficientMemory",
            "kubelet has sufficient memory available",
        ),
        (
            "DiskPressure",
            "False",
            "KubeletHasNoDiskPressure",
            "kubelet has no disk pressure",
        ),
        (
            "PIDPressure",
            "False",
            "KubeletHasSufficientPID",
            "kubelet has sufficient PID available",
        ),
        (
            "Ready",
            "True",
            "KubeletReady",
            "kubelet is posting ready status",
        ),
    ]
    .iter()
    .map(|(ty, status, reason, message)| {
        json!({"type": ty, "status": status, "reason": reason, "message": message,
               "lastHeartbeatTime": rfc3339(NOW - 30), "lastTransitionTime": t})
    })
    .collect();
    let ip = format!(
        "{}.{}.{}.{}",
        node.ip[0], node.ip[1], node.ip[2], node.ip[3]
    );
    json!({
        "apiVersion": "v1",
        "kind": "Node",
        "metadata": metadata(&node.name, None, node.created, ids, json!({
            "labels": labels,
            "annotations": {
                "alpha.kubernetes.io/provided-node-ip": ip,
                "node.alpha.kubernetes.io/ttl": "0",
                "volumes.kubernetes.io/controller-managed-attach-detach": "true",
            },
        })),
        "spec": spec,
        "status": {
            "addresses": [
                {"type": "InternalIP", "address": ip},
                {"type": "InternalDNS", "address": node.name},
                {"type": "Hostname", "address": node.name},
            ],
            "allocatable": {
                "cpu": cpu_quantity(shape.alloc_cpu_m),
                "ephemeral-storage": "95551679124",
                "hugepages-1Gi": "0",
                "hugepages-2Mi": "0",
                "memory": format!("{}Ki", shape.alloc_mem_ki),
                "pods": MAX_PODS.to_string(),
            },
            "capacity": {
                "cpu": shape.cores.to_string(),
                "ephemeral-storage": "104845292Ki",
                "hugepages-1Gi": "0",
                "hugepages-2Mi": "0",
                "memory": format!("{}Ki", shape.capacity_mem_ki),
                "pods": MAX_PODS.to_string(),
            },
            "conditions": conditions,
            "daemonEndpoints": {"kubeletEndpoint": {"Port": 10250}},
            "images": node_images(plan, node),
            "nodeInfo": {
                "architecture": "amd64",
                "bootID": ids.rng.uid(),
                "containerRuntimeVersion": "containerd://1.7.11",
                "kernelVersion": "5.10.219-208.866.amzn2.x86_64",
                "kubeProxyVersion": "v1.30.0-eks-036c24b",
                "kubeletVersion": "v1.30.0-eks-036c24b",
                "machineID": ids.rng.hex(32),
                "operatingSystem": "linux",
                "osImage": "Amazon Linux 2",
                "systemUUID": format!("ec2{}", &ids.rng.uid()[3..]),
            },
        },
    })
}

/// `status.images`: the DaemonSet images, the pause image and a few images
/// of workloads running on the node, each with its digest name.
pub(super) fn node_images(plan: &Plan, node: &NodePlan) -> Vec<Value> {
    let mut images: Vec<&str> = DAEMONS[..plan.daemons].iter().map(|d| d.image).collect();
    images.push("602401143452.dkr.ecr.us-east-1.amazonaws.com/eks/pause:3.5");
    if node.sidecar {
        images.push(SIDECAR_IMAGE);
    }
    images.extend(
        node.images
            .iter()
            .map(|&w| plan.workloads[w as usize].image.as_str()),
    );
    images
        .iter()
        .map(|&image| {
            let h = fnv(image.as_bytes());
            let repo = image.rsplit_once(':').map_or(image, |(repo, _)| repo);
            json!({
                "names": [format!("{repo}@sha256:{h:016x}{:016x}{h:016x}{:016x}", h.rotate_left(7), h.rotate_left(13)), image],
                "sizeBytes": image_size(image, h),
            })
        })
        .collect()
}

/// The mesh sidecar is mid-sized and on most nodes, so ImageLocality has
/// something to score; other sizes are stable pseudo-random.
pub(super) fn image_size(image: &str, hash: u64) -> i64 {
    if image == SIDECAR_IMAGE {
        160_000_000
    } else {
        20_000_000 + (hash % 600_000_000) as i64
    }
}

/// FNV-1a, for stable per-name values (image sizes and digests).
pub(super) fn fnv(bytes: &[u8]) -> u64 {
    bytes.iter().fold(0xcbf2_9ce4_8422_2325, |h, &b| {
        (h ^ b as u64).wrapping_mul(0x100_0000_01b3)
    })
}

/// A container with its requests (none for BestEffort) and limits.
pub(super) fn container_json(
    name: &str,
    image: &str,
    cpu_m: i64,
    mem_mi: i64,
    limits: Limits,
    pre_stop: bool,
) -> Value {
    let mut resources = json!({});
    if cpu_m > 0 || mem_mi > 0 {
        let mut requests = Map::new();
        if cpu_m > 0 {
            requests.insert("cpu".into(), cpu_quantity(cpu_m).into());
        }
        if mem_mi > 0 {
            requests.insert("memory".into(), mem_quantity(mem_mi).into());
        }
        match limits {
            Limits::None => {}
            Limits::Memory => resources["limits"] = json!({"memory": mem_quantity(mem_mi)}),
            Limits::Guaranteed => resources["limits"] = Value::Object(requests.clone()),
        }
        resources["requests"] = Value::Object(requests);
    }
    let mut c = json!({
        "name": name,
        "image": image,
        "resources": resources,
    });
    if pre_stop {
        c["lifecycle"] = json!({"preStop": {"exec": {"command": ["/bin/sh", "-c", "sleep 15"]}}});
    }
    c
}

pub(super) fn qos_class(w: &Workload) -> &'static str {
    match (w.best_effort(), w.limits) {
        (true, _) => "BestEffort",
        (false, Limits::Guaranteed) => "Guaranteed",
        _ => "Burstable",
    }
}

pub(super) fn selector_labels(w: &Workload) -> Value {
    json!({"app": w.name})
}

/// Labels of the pod template (what controllers' selectors match).
pub(super) fn template_labels(w: &Workload) -> Map<String, Value> {
    let mut labels = Map::new();
    labels.insert("app".into(), w.name.clone().into());
    match w.kind {
        Kind::Deployment => labels.insert("pod-template-hash".into(), w.hash.clone().into()),
        Kind::StatefulSet => labels.insert(
            "controller-revision-hash".into(),
            format!("{}-{}", w.name, w.hash).into(),
        ),
    };
    labels
}

pub(super) fn spread_json(w: &Workload) -> Vec<Value> {
    let constraint = |key: &str, hard: bool| {
        let mut c = json!({
            "maxSkew": 1,
            "topologyKey": key,
            "whenUnsatisfiable": if hard { "DoNotSchedule" } else { "ScheduleAnyway" },
            "labelSelector": {"matchLabels": selector_labels(w)},
        });
        if w.match_label_keys {
            c["matchLabelKeys"] = json!(["pod-template-hash"]);
        }
        c
    };
    match w.spread {
        Spread::None => vec![],
        Spread::Zone { hard } => vec![constraint("topology.kubernetes.io/zone", hard)],
        Spread::ZoneAndHost { hard } => vec![
            constraint("topology.kubernetes.io/zone", hard),
            constraint("kubernetes.io/hostname", hard),
        ],
    }
}

pub(super) fn anti_affinity_json(w: &Workload) -> Option<Value> {
    let term = json!({"labelSelector": {"matchLabels": selector_labels(w)}, "topologyKey": "kubernetes.io/hostname"});
    match w.anti {
        AntiAffinity::None => None,
        AntiAffinity::Required => Some(
            json!({"podAntiAffinity": {"requiredDuringSchedulingIgnoredDuringExecution": [term]}}),
        ),
        AntiAffinity::Preferred => Some(json!({"podAntiAffinity": {
            "preferredDuringSchedulingIgnoredDuringExecution": [{"weight": 100, "podAffinityTerm": term}],
        }})),
    }
}

/// The pod spec shared by the controller's template and its pods.
pub(super) fn pod_spec_json(w: &Workload) -> Value {
    let class = &CLASSES[w.class];
    let mut containers = vec![container_json(
        &w.name, &w.image, w.cpu_m, w.mem_mi, w.limits, w.pre_stop,
    )];
    if w.service {
        containers[0]["ports"] =
            json!([{"name": "http", "containerPort": 8080, "protocol": "TCP"}]);
    }
    if w.sidecar {
        let (cpu, mem) = if w.has_sidecar_requests() {
            (SIDECAR_CPU_M, SIDECAR_MEM_MI)
        } else {
            (0, 0)
        };
        containers.push(container_json(
            "envoy",
            SIDECAR_IMAGE,
            cpu,
            mem,
            w.limits,
            false,
        ));
    }
    let mut tolerations = Vec::new();
    if w.pool == INFRA {
        tolerations.push(json!({"key": "dedicated", "operator": "Equal", "value": "infra", "effect": "NoSchedule"}));
    }
    let mut spec = json!({
        "containers": containers,
        "priority": class.value,
        "priorityClassName": class.name,
        "schedulerName": "default-scheduler",
        "terminationGracePeriodSeconds": w.grace,
    });
    if class.never {
        spec["preemptionPolicy"] = "Never".into();
    }
    if !tolerations.is_empty() {
        spec["tolerations"] = tolerations.into();
    }
    if w.pool != GENERAL {
        spec["nodeSelector"] = json!({"node-pool": SHAPES[w.pool].pool});
    }
    let spread = spread_json(w);
    if !spread.is_empty() {
        spec["topologySpreadConstraints"] = spread.into();
    }
    if let Some(affinity) = anti_affinity_json(w) {
        spec["affinity"] = affinity;
    }
    spec
}

pub(super) fn workload_pod_json(
    plan: &Plan,
    w: &Workload,
    owner_uid: &str,
    ordinal: usize,
    node: Option<&NodePlan>,
    ids: &mut Ids,
) -> Value {
    let namespace = &plan.namespaces[w.namespace].name;
    let mut labels = template_labels(w);
    let (name, owner_kind, owner_name) = match w.kind {
        Kind::Deployment => {
            let rs = format!("{}-{}", w.name, w.hash);
            (ids.pod_name(namespace, &rs), "ReplicaSet", rs)
        }
        Kind::StatefulSet => (
            format!("{}-{ordinal}", w.name),
            "StatefulSet",
            w.name.clone(),
        ),
    };
    if w.kind == Kind::StatefulSet {
        labels.insert(
            "statefulset.kubernetes.io/pod-name".into(),
            name.clone().into(),
        );
        labels.insert(
            "apps.kubernetes.io/pod-index".into(),
            ordinal.to_string().into(),
        );
    }
    let created = pod_created(w.created.max(node.map_or(0, |n| n.created)), &mut ids.rng);
    let mut extra = json!({
        "labels": labels,
        "ownerReferences": [{
            "apiVersion": "apps/v1", "kind": owner_kind, "name": owner_name, "uid": owner_uid,
            "controller": true,
        }],
    });
    if w.service {
        extra["annotations"] =
            json!({"prometheus.io/scrape": "true", "prometheus.io/port": "8080"});
    }
    let mut spec = pod_spec_json(w);
    if w.kind == Kind::StatefulSet {
        spec["hostname"] = name.clone().into();
        spec["subdomain"] = w.name.clone().into();
        spec["volumes"] = json!([{"name": CLAIM_TEMPLATE,
            "persistentVolumeClaim": {"claimName": format!("{CLAIM_TEMPLATE}-{name}")}}]);
    }
    let status = match node {
        Some(node) => {
            spec["nodeName"] = node.name.clone().into();
            running_status(w, node, created, ids)
        }
        None => pending_status(w, plan, created),
    };
    json!({
        "apiVersion": "v1",
        "kind": "Pod",
        "metadata": metadata(&name, Some(namespace), created, ids, extra),
        "spec": spec,
        "status": status,
    })
}

/// A creation time after `after` (the workload's and the node's) and
/// before the snapshot.
pub(super) fn pod_created(after: i64, rng: &mut Rng) -> i64 {
    after + rng.between(60, (NOW - 600 - after).max(60))
}

pub(super) fn running_status(w: &Workload, node: &NodePlan, created: i64, ids: &mut Ids) -> Value {
    let started = created + 2;
    let t = rfc3339(started + 8);
    let host_ip = format!(
        "{}.{}.{}.{}",
        node.ip[0], node.ip[1], node.ip[2], node.ip[3]
    );
    let pod_ip = ids.pod_ip();
    let conditions: Vec<Value> = ["Ready"]
        .iter()
        .map(|ty| json!({"type": ty, "status": "True", "lastTransitionTime": t}))
        .collect();
    json!({
        "phase": "Running",
        "conditions": conditions,
        "hostIP": host_ip,
        "podIP": pod_ip,
        "startTime": rfc3339(started),
        "qosClass": qos_class(w),
    })
}

pub(super) fn pending_status(w: &Workload, plan: &Plan, created: i64) -> Value {
    json!({
        "phase": "Pending",
        "conditions": [{
            "type": "PodScheduled", "status": "False", "reason": "Unschedulable",
            "lastTransitionTime": rfc3339(created + 1),
            "message": format!("0/{n} nodes are available: {n} Insufficient cpu. preemption: 0/{n} nodes are available: {n} No preemption victims found for incoming pod.", n = plan.nodes.len()),
        }],
        "qosClass": qos_class(w),
    })
}

pub(super) fn daemon_pod_json(
    d: &Daemon,
    owner_uid: &str,
    hash: &str,
    node: &NodePlan,
    ids: &mut Ids,
) -> Value {
    let name = ids.pod_name(d.namespace, d.name);
    let created = node.created + 30;
    let mut container = container_json(d.name, d.image, d.cpu_m, d.mem_mi, Limits::None, false);
    container["ports"] = json!([{"name": "metrics", "containerPort": d.port, "protocol": "TCP"}]);
    let host_ip = format!(
        "{}.{}.{}.{}",
        node.ip[0], node.ip[1], node.ip[2], node.ip[3]
    );
    let t = rfc3339(created + 12);
    json!({
        "apiVersion": "v1",
        "kind": "Pod",
        "metadata": metadata(&name, Some(d.namespace), created, ids, json!({
            "labels": {"app.kubernetes.io/name": d.name, "controller-revision-hash": hash, "pod-template-generation": "1"},
            "ownerReferences": [{"apiVersion": "apps/v1", "kind": "DaemonSet", "name": d.name, "uid": owner_uid,
                                 "controller": true, "blockOwnerDeletion": true}],
        })),
        "spec": {
            "affinity": {"nodeAffinity": {"requiredDuringSchedulingIgnoredDuringExecution": {"nodeSelectorTerms": [
                {"matchFields": [{"key": "metadata.name", "operator": "In", "values": [node.name]}]},
            ]}}},
            "containers": [container],
            "hostNetwork": d.namespace == "kube-system",
            "nodeName": node.name,
            "preemptionPolicy": "PreemptLowerPriority",
            "priority": CLASSES[SYSTEM_NODE].value,
            "priorityClassName": CLASSES[SYSTEM_NODE].name,
            "schedulerName": "default-scheduler",
            "serviceAccountName": d.name,
            "terminationGracePeriodSeconds": 30,
            "tolerations": [{"operator": "Exists"}],
        },
        "status": {
            "phase": "Running",
            "conditions": [{"type": "Ready", "status": "True", "lastTransitionTime": t},
                           {"type": "PodScheduled", "status": "True", "lastTransitionTime": t}],
            "hostIP": host_ip,
            "podIP": if d.namespace == "kube-system" { host_ip.clone() } else { ids.pod_ip() },
            "startTime": rfc3339(created + 1),
            "qosClass": "Burstable",
        },
    })
}

/// The ReplicaSet or StatefulSet that owns a workload's pods.
pub(super) fn controller_json(plan: &Plan, w: &Workload, uid: &str, ids: &mut Ids) -> Value {
    let namespace = &plan.namespaces[w.namespace].name;
    let mut selector = selector_labels(w);
    let template = json!({"metadata": {"labels": template_labels(w)}, "spec": pod_spec_json(w)});
    let ready = w.running();
    let (kind, name, extra) = match w.kind {
        Kind::Deployment => {
            selector["pod-template-hash"] = w.hash.clone().into();
            let extra = json!({
                "labels": template_labels(w),
                "annotations": {
                    "deployment.kubernetes.io/desired-replicas": w.replicas.to_string(),
                    "deployment.kubernetes.io/max-replicas": (w.replicas + w.replicas.div_ceil(4)).to_string(),
                    "deployment.kubernetes.io/revision": "3",
                },
                "ownerReferences": [{"apiVersion": "apps/v1", "kind": "Deployment", "name": w.name,
                                     "uid": ids.rng.uid(), "controller": true, "blockOwnerDeletion": true}],
            });
            ("ReplicaSet", format!("{}-{}", w.name, w.hash), extra)
        }
        Kind::StatefulSet => (
            "StatefulSet",
            w.name.clone(),
            json!({"labels": selector_labels(w)}),
        ),
    };
    let mut meta = metadata(&name, Some(namespace), w.created, ids, extra);
    meta["uid"] = uid.into();
    let mut spec = json!({"replicas": w.replicas, "selector": {"matchLabels": selector}, "template": template});
    if w.kind == Kind::StatefulSet {
        spec["serviceName"] = w.name.clone().into();
        spec["podManagementPolicy"] = "Parallel".into();
        spec["volumeClaimTemplates"] = json!([{
            "metadata": {"name": CLAIM_TEMPLATE},
            "spec": claim_spec(w),
        }]);
    }
    json!({
        "apiVersion": "apps/v1",
        "kind": kind,
        "metadata": meta,
        "spec": spec,
        "status": {"replicas": w.replicas, "readyReplicas": ready, "availableReplicas": ready, "observedGeneration": 3},
    })
}

pub(super) fn daemon_set_json(plan: &Plan, d: &Daemon, uid: &str, ids: &mut Ids) -> Value {
    let n = plan.nodes.len();
    let mut meta = metadata(
        d.name,
        Some(d.namespace),
        NOW - 380 * DAY,
        ids,
        json!({"labels": {"app.kubernetes.io/name": d.name}}),
    );
    meta["uid"] = uid.into();
    json!({
        "apiVersion": "apps/v1",
        "kind": "DaemonSet",
        "metadata": meta,
        "spec": {
            "selector": {"matchLabels": {"app.kubernetes.io/name": d.name}},
            "template": {
                "metadata": {"labels": {"app.kubernetes.io/name": d.name}},
                "spec": {
                    "containers": [container_json(d.name, d.image, d.cpu_m, d.mem_mi, Limits::None, false)],
                    "priorityClassName": CLASSES[SYSTEM_NODE].name,
                    "tolerations": [{"operator": "Exists"}],
                },
            },
        },
        "status": {"currentNumberScheduled": n, "desiredNumberScheduled": n, "numberMisscheduled": 0, "numberReady": n},
    })
}

pub(super) fn service_json(plan: &Plan, w: &Workload, ids: &mut Ids) -> Value {
    let namespace = &plan.namespaces[w.namespace].name;
    let headless = w.kind == Kind::StatefulSet;
    let cluster_ip = if headless {
        "None".to_string()
    } else {
        format!("172.20.{}.{}", ids.rng.below(256), ids.rng.between(1, 254))
    };
    json!({
        "apiVersion": "v1",
        "kind": "Service",
        "metadata": metadata(&w.name, Some(namespace), w.created, ids, json!({"labels": selector_labels(w)})),
        "spec": {
            "clusterIP": cluster_ip,
            "clusterIPs": [cluster_ip],
            "internalTrafficPolicy": "Cluster",
            "ipFamilies": ["IPv4"],
            "ipFamilyPolicy": "SingleStack",
            "ports": [{"name": "http", "port": 80, "protocol": "TCP", "targetPort": 8080}],
            "selector": selector_labels(w),
            "sessionAffinity": "None",
            "type": "ClusterIP",
        },
        "status": {"loadBalancer": {}},
    })
}

/// A PDB with the status the disruption controller would report.
pub(super) fn pdb_json(plan: &Plan, w: &Workload, budget: Budget, ids: &mut Ids) -> Value {
    let namespace = &plan.namespaces[w.namespace].name;
    let expected = w.replicas as i32;
    let healthy = w.running() as i32;
    let (field, value, desired) = match budget {
        Budget::MaxUnavailable(n) => ("maxUnavailable", json!(n), (expected - n).max(0)),
        Budget::MinAvailablePercent(p) => (
            "minAvailable",
            json!(format!("{p}%")),
            (p * expected + 99) / 100,
        ),
        Budget::MinAvailableAll => ("minAvailable", json!(expected), expected),
    };
    json!({
        "apiVersion": "policy/v1",
        "kind": "PodDisruptionBudget",
        "metadata": metadata(&w.name, Some(namespace), w.created, ids, json!({"labels": selector_labels(w)})),
        "spec": {field: value, "selector": {"matchLabels": selector_labels(w)}},
        "status": {
            "currentHealthy": healthy,
            "desiredHealthy": desired,
            "disruptionsAllowed": (healthy - desired).max(0),
            "expectedPods": expected,
            "observedGeneration": 1,
        },
    })
}
