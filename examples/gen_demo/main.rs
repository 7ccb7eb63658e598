//! Generates the built-in demo cluster, `assets/demo-cluster.json.gz`, and
//! a recording of a few minutes of it, `assets/demo-timeline.jsonl.gz`
//! (its story is in `story.rs`).
//!
//! Run with `cargo run --example gen_demo`. The output is deterministic, so
//! regenerating without changes gives the same files.
//!
//! The story it tells:
//! - three zones; `eu-west-1c` is smaller (six 4-CPU nodes) and is full of
//!   pods at `standard` priority or above;
//! - two GPU nodes are tainted, a batch node is tainted, one worker is cordoned;
//! - `shop/frontend` spreads over zones with `maxSkew: 1` (DoNotSchedule);
//!   its pending replica may only go to `eu-west-1c`, where nothing fits, so
//!   it stays pending ("didn't match pod topology spread constraints");
//! - `payments/ledger-migrate` (business-critical) fits nowhere as is, but
//!   evicting best-effort sandbox pods makes room: it would preempt;
//! - `ml/trainer-xl` asks for 48 CPUs, more than any node has: it never fits;
//! - `batch/reports-adhoc` is in the `batch` class (preemptionPolicy Never):
//!   it waits instead of evicting;
//! - `shop/cart-7c9f8d6b5-new01` simply fits;
//! - a small GPU pool on Dynamic Resource Allocation (`gpu-b01`, `gpu-b02`,
//!   four L40S each, published by the `gpu.nvidia.com` driver) has one GPU
//!   free per node, so `ml/finetune-llm`, whose claim asks for two, finds
//!   no node ("cannot allocate all claims"); asking for one fits.

mod story;

use std::io::Write;

use flate2::Compression;
use flate2::write::GzEncoder;
use serde_json::{Value, json};

const OUT: &str = "assets/demo-cluster.json.gz";
/// 2024-05-01T08:00:00Z: all timestamps count from here.
const EPOCH: i64 = 1_714_550_400;

const MI: i64 = 1 << 20;
const GI: i64 = 1 << 30;

struct NodeSpec {
    name: String,
    zone: &'static str,
    instance: &'static str,
    cpu_milli: i64,
    memory: i64,
    gpus: i64,
    taint: Option<(&'static str, &'static str)>,
    cordoned: bool,
    /// How the fill step packs this node with low-priority pods.
    fill: Fill,
    used_cpu: i64,
    used_mem: i64,
    used_gpu: i64,
}

#[derive(Clone, Copy, PartialEq)]
enum Fill {
    /// Only best-effort sandbox pods: the cheapest node to preempt on.
    SandboxOnly,
    /// Mostly batch reports (PDB-protected), then sandbox.
    ReportsHeavy,
    /// One report, then sandbox.
    SandboxHeavy,
    /// Not filled.
    None,
}

impl NodeSpec {
    fn free_cpu(&self) -> i64 {
        self.cpu_milli - self.used_cpu
    }
    fn free_mem(&self) -> i64 {
        self.memory - self.used_mem
    }
}

/// A workload's pod template, as far as the demo needs it.
#[derive(Clone)]
struct Template {
    namespace: &'static str,
    app: &'static str,
    owner_kind: &'static str,
    owner_name: String,
    class: &'static str,
    priority: i32,
    cpu_milli: i64,
    memory: i64,
    gpus: i64,
    spread: Vec<Value>,
    tolerations: Vec<Value>,
    grace: i64,
    pre_stop: bool,
    extra_labels: Vec<(&'static str, String)>,
}

struct Generator {
    nodes: Vec<NodeSpec>,
    items: Vec<Value>,
    pod_serial: i64,
}

fn priority_of(class: &str) -> i32 {
    match class {
        "best-effort" => 100,
        "batch" => 1_000,
        "standard" => 10_000,
        "business-critical" => 100_000,
        "system-cluster-critical" => 2_000_000_000,
        "system-node-critical" => 2_000_001_000,
        _ => 0,
    }
}

fn quantity_mem(bytes: i64) -> String {
    if bytes % GI == 0 {
        format!("{}Gi", bytes / GI)
    } else {
        format!("{}Mi", bytes / MI)
    }
}

fn timestamp(offset: i64) -> String {
    // Civil-from-days (Howard Hinnant), enough for RFC 3339 timestamps.
    let secs = EPOCH + offset;
    let days = secs.div_euclid(86_400);
    let rem = secs.rem_euclid(86_400);
    let z = days + 719_468;
    let era = z.div_euclid(146_097);
    let doe = z - era * 146_097;
    let yoe = (doe - doe / 1460 + doe / 36_524 - doe / 146_096) / 365;
    let y = yoe + era * 400;
    let doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    let mp = (5 * doy + 2) / 153;
    let d = doy - (153 * mp + 2) / 5 + 1;
    let m = if mp < 10 { mp + 3 } else { mp - 9 };
    let y = if m <= 2 { y + 1 } else { y };
    format!(
        "{y:04}-{m:02}-{d:02}T{:02}:{:02}:{:02}Z",
        rem / 3600,
        rem % 3600 / 60,
        rem % 60
    )
}

fn zone_spread(app: &str, max_skew: i32, hard: bool) -> Value {
    json!({
        "maxSkew": max_skew,
        "topologyKey": "topology.kubernetes.io/zone",
        "whenUnsatisfiable": if hard { "DoNotSchedule" } else { "ScheduleAnyway" },
        "labelSelector": {"matchLabels": {"app": app}},
    })
}

fn host_spread(app: &str, max_skew: i32) -> Value {
    json!({
        "maxSkew": max_skew,
        "topologyKey": "kubernetes.io/hostname",
        "whenUnsatisfiable": "ScheduleAnyway",
        "labelSelector": {"matchLabels": {"app": app}},
    })
}

impl Generator {
    fn new() -> Self {
        let mut nodes = Vec::new();
        let mut add = |name: String, zone, instance, cpu, mem, gpus, taint, cordoned, fill| {
            nodes.push(NodeSpec {
                name,
                zone,
                instance,
                cpu_milli: cpu,
                memory: mem,
                gpus,
                taint,
                cordoned,
                fill,
                used_cpu: 0,
                used_mem: 0,
                used_gpu: 0,
            })
        };
        for i in 1..=10 {
            let fill = if i % 2 == 0 {
                Fill::ReportsHeavy
            } else {
                Fill::SandboxHeavy
            };
            add(
                format!("worker-a{i:02}"),
                "eu-west-1a",
                "m5.2xlarge",
                7910,
                30 * GI,
                0,
                None,
                false,
                fill,
            );
        }
        for i in 1..=2 {
            let taint = Some(("nvidia.com/gpu", "present"));
            add(
                format!("gpu-a{i:02}"),
                "eu-west-1a",
                "g5.4xlarge",
                15_890,
                60 * GI,
                4,
                taint,
                false,
                Fill::None,
            );
        }
        for i in 1..=11 {
            let fill = match i {
                3 => Fill::SandboxOnly,
                _ if i % 2 == 0 => Fill::ReportsHeavy,
                _ => Fill::SandboxHeavy,
            };
            add(
                format!("worker-b{i:02}"),
                "eu-west-1b",
                "m5.2xlarge",
                7910,
                30 * GI,
                0,
                None,
                i == 7,
                fill,
            );
        }
        add(
            "batch-b01".into(),
            "eu-west-1b",
            "c5.2xlarge",
            7910,
            14 * GI,
            0,
            Some(("dedicated", "batch")),
            false,
            Fill::None,
        );
        for i in 1..=6 {
            add(
                format!("worker-c{i:02}"),
                "eu-west-1c",
                "m5.xlarge",
                3920,
                14 * GI,
                0,
                None,
                false,
                Fill::None,
            );
        }
        Generator {
            nodes,
            items: Vec::new(),
            pod_serial: 0,
        }
    }

    fn cluster_objects(&mut self) {
        for (ns, team) in [
            ("kube-system", "platform"),
            ("shop", "storefront"),
            ("payments", "payments"),
            ("data", "data"),
            ("monitoring", "platform"),
            ("batch", "analytics"),
            ("lab", "research"),
            ("ml", "research"),
        ] {
            self.items.push(json!({
                "apiVersion": "v1", "kind": "Namespace",
                "metadata": {"name": ns, "labels": {"kubernetes.io/metadata.name": ns, "team": team}},
            }));
        }
        for (name, global_default, never, description) in [
            (
                "best-effort",
                false,
                false,
                "Experiments and sandboxes; first to go.",
            ),
            (
                "batch",
                false,
                true,
                "Batch jobs: never evict others, wait for room.",
            ),
            (
                "standard",
                true,
                false,
                "Default for services without a class.",
            ),
            (
                "business-critical",
                false,
                false,
                "Checkout, payments and their data.",
            ),
            (
                "system-cluster-critical",
                false,
                false,
                "Used for system critical pods that must run in the cluster, but can be moved to another node if necessary.",
            ),
        ] {
            let mut pc = json!({
                "apiVersion": "scheduling.k8s.io/v1", "kind": "PriorityClass",
                "metadata": {"name": name},
                "value": priority_of(name),
                "globalDefault": global_default,
                "description": description,
            });
            if never {
                pc["preemptionPolicy"] = json!("Never");
            }
            self.items.push(pc);
        }
        for i in 0..self.nodes.len() {
            self.node_object(i);
        }
    }

    /// Emits node `i`'s Node object.
    fn node_object(&mut self, i: usize) {
        let node = &self.nodes[i];
        let mut allocatable = json!({
            "cpu": format!("{}m", node.cpu_milli),
            "memory": quantity_mem(node.memory),
            "pods": "110",
            "ephemeral-storage": "95Gi",
        });
        if node.gpus > 0 {
            allocatable["nvidia.com/gpu"] = json!(node.gpus.to_string());
        }
        let pool = match node.taint {
            Some(("nvidia.com/gpu", _)) => "gpu",
            Some(("dedicated", v)) => v,
            _ => "general",
        };
        let mut spec = json!({});
        if let Some((k, v)) = node.taint {
            spec["taints"] = json!([{"key": k, "value": v, "effect": "NoSchedule"}]);
        }
        if node.cordoned {
            spec["unschedulable"] = json!(true);
            let mut taints = spec["taints"].as_array().cloned().unwrap_or_default();
            taints.push(json!({"key": "node.kubernetes.io/unschedulable", "effect": "NoSchedule"}));
            spec["taints"] = json!(taints);
        }
        self.items.push(json!({
            "apiVersion": "v1", "kind": "Node",
            "metadata": {
                "name": node.name,
                "creationTimestamp": timestamp(i as i64 * 60),
                "labels": {
                    "kubernetes.io/hostname": node.name,
                    "kubernetes.io/os": "linux",
                    "topology.kubernetes.io/region": "eu-west-1",
                    "topology.kubernetes.io/zone": node.zone,
                    "node.kubernetes.io/instance-type": node.instance,
                    "kplace.dev/pool": pool,
                },
            },
            "spec": spec,
            "status": {
                "allocatable": allocatable.clone(),
                "capacity": allocatable,
                "conditions": [{"type": "Ready", "status": "True"}],
            },
        }));
    }

    /// A small GPU pool on Dynamic Resource Allocation (v1.34's default
    /// profile): two nodes in eu-west-1b whose L40S GPUs the
    /// `gpu.nvidia.com` driver publishes as ResourceSlices. Inference pods
    /// hold one GPU each and a fine-tuning job two, through claims from
    /// templates, which leaves one GPU free per node; the pending
    /// `ml/finetune-llm` wants two (its claim is generated, unallocated).
    /// Added after everything else so the rest of the demo is unchanged.
    fn dra_pool(&mut self, proxy: &Template, next: &mut impl FnMut() -> String) {
        const DRIVER: &str = "gpu.nvidia.com";
        let first = self.nodes.len();
        for i in 1..=2 {
            self.nodes.push(NodeSpec {
                name: format!("gpu-b{i:02}"),
                zone: "eu-west-1b",
                instance: "g6e.8xlarge",
                cpu_milli: 31_850,
                memory: 250 * GI,
                gpus: 0,
                taint: Some(("nvidia.com/gpu", "present")),
                cordoned: false,
                fill: Fill::None,
                used_cpu: 0,
                used_mem: 0,
                used_gpu: 0,
            });
        }
        let dra_nodes: Vec<usize> = (first..self.nodes.len()).collect();
        for &n in &dra_nodes {
            self.node_object(n);
            let name = format!("kube-proxy-{}", next());
            self.bind(proxy, name, n);
        }
        self.items.push(json!({
            "apiVersion": "resource.k8s.io/v1", "kind": "DeviceClass",
            "metadata": {"name": DRIVER},
            "spec": {"selectors": [{"cel": {"expression": format!("device.driver == \"{DRIVER}\"")}}]},
        }));
        for &n in &dra_nodes {
            let node = self.nodes[n].name.clone();
            let devices: Vec<Value> = (0..4)
                .map(|k| {
                    json!({
                        "name": format!("gpu-{k}"),
                        "attributes": {
                            "productName": {"string": "NVIDIA L40S"},
                            "architecture": {"string": "Ada Lovelace"},
                            "driverVersion": {"version": "560.35.3"},
                            "index": {"int": k},
                        },
                        "capacity": {"memory": {"value": "48Gi"}},
                    })
                })
                .collect();
            self.items.push(json!({
                "apiVersion": "resource.k8s.io/v1", "kind": "ResourceSlice",
                "metadata": {"name": format!("{node}-{DRIVER}")},
                "spec": {
                    "driver": DRIVER, "nodeName": node,
                    "pool": {"name": node, "generation": 1, "resourceSliceCount": 1},
                    "devices": devices,
                },
            }));
        }
        let claim_spec = |count: i64| {
            json!({"devices": {"requests": [{"name": "gpu",
                "exactly": {"deviceClassName": DRIVER, "allocationMode": "ExactCount", "count": count}}]}})
        };
        for (template, count) in [("single-gpu", 1), ("two-gpus", 2)] {
            self.items.push(json!({
                "apiVersion": "resource.k8s.io/v1", "kind": "ResourceClaimTemplate",
                "metadata": {"name": template, "namespace": "ml"},
                "spec": {"spec": claim_spec(count)},
            }));
        }
        let gpu_toleration =
            vec![json!({"key": "nvidia.com/gpu", "operator": "Exists", "effect": "NoSchedule"})];
        let mut embed = template("ml", "embed", "standard", 4000, 16 * GI);
        embed.tolerations = gpu_toleration.clone();
        let (embed, embed_rs) = deployment_template(self, embed, "c5d8f7b96", 4);
        let mut finetune = template("ml", "finetune-small", "standard", 8000, 64 * GI);
        finetune.tolerations = gpu_toleration.clone();
        finetune.owner_kind = "Job";
        finetune.owner_name = "finetune-small".into();
        // (template, pod name, node, devices it holds)
        let running = [
            (
                &embed,
                "single-gpu",
                format!("{embed_rs}-{}", next()),
                dra_nodes[0],
                vec![0],
            ),
            (
                &embed,
                "single-gpu",
                format!("{embed_rs}-{}", next()),
                dra_nodes[0],
                vec![1],
            ),
            (
                &embed,
                "single-gpu",
                format!("{embed_rs}-{}", next()),
                dra_nodes[0],
                vec![2],
            ),
            (
                &finetune,
                "two-gpus",
                "finetune-small-k2x9d".to_string(),
                dra_nodes[1],
                vec![0, 1],
            ),
            (
                &embed,
                "single-gpu",
                format!("{embed_rs}-{}", next()),
                dra_nodes[1],
                vec![2],
            ),
        ];
        for (t, claim_template, name, n, devices) in running {
            self.bind(t, name, n);
            let node = self.nodes[n].name.clone();
            let results: Vec<Value> = devices
                .iter()
                .map(|k| json!({"request": "gpu", "driver": DRIVER, "pool": node, "device": format!("gpu-{k}")}))
                .collect();
            let count = devices.len() as i64;
            let status = json!({
                "allocation": {
                    "devices": {"results": results},
                    "nodeSelector": {"nodeSelectorTerms": [{"matchFields": [
                        {"key": "metadata.name", "operator": "In", "values": [node]}]}]},
                },
            });
            self.claim_for_last_pod(claim_template, claim_spec(count), Some(status), next);
        }
        let mut llm = template("ml", "finetune-llm", "standard", 8000, 64 * GI);
        llm.tolerations = gpu_toleration;
        llm.owner_kind = "Job";
        llm.owner_name = "finetune-llm".into();
        self.pending(&llm, "finetune-llm-7wq4z");
        self.claim_for_last_pod("two-gpus", claim_spec(2), None, next);
    }

    /// Gives the last pod a claim from `template` (`spec.resourceClaims`,
    /// the container's `resources.claims`, the generated claim's name in
    /// its status) and adds that claim, reserved for the pod when
    /// `status` allocates it.
    fn claim_for_last_pod(
        &mut self,
        template: &str,
        spec: Value,
        status: Option<Value>,
        next: &mut impl FnMut() -> String,
    ) {
        let pod = self.items.last_mut().expect("a pod");
        let pod_name = pod["metadata"]["name"].as_str().expect("named").to_string();
        let uid = pod["metadata"]["uid"].clone();
        let claim = format!("{pod_name}-gpu-{}", next());
        pod["spec"]["resourceClaims"] =
            json!([{"name": "gpu", "resourceClaimTemplateName": template}]);
        pod["spec"]["containers"][0]["resources"]["claims"] = json!([{"name": "gpu"}]);
        pod["status"]["resourceClaimStatuses"] =
            json!([{"name": "gpu", "resourceClaimName": claim}]);
        let mut object = json!({
            "apiVersion": "resource.k8s.io/v1", "kind": "ResourceClaim",
            "metadata": {
                "name": claim, "namespace": "ml",
                "annotations": {"resource.kubernetes.io/pod-claim-name": "gpu"},
                "ownerReferences": [{"apiVersion": "v1", "kind": "Pod", "name": pod_name,
                    "uid": uid, "controller": true, "blockOwnerDeletion": true}],
            },
            "spec": spec,
        });
        if let Some(mut status) = status {
            status["reservedFor"] = json!([{"resource": "pods", "name": pod_name, "uid": uid}]);
            object["status"] = status;
        }
        self.items.push(object);
    }

    fn service(&mut self, ns: &str, app: &str) {
        self.items.push(json!({
            "apiVersion": "v1", "kind": "Service",
            "metadata": {"name": app, "namespace": ns},
            "spec": {"selector": {"app": app}, "ports": [{"port": 80}]},
        }));
    }

    fn replica_set(&mut self, ns: &str, app: &str, hash: &str, replicas: usize) -> String {
        let name = format!("{app}-{hash}");
        let labels = json!({"app": app, "pod-template-hash": hash});
        self.items.push(json!({
            "apiVersion": "apps/v1", "kind": "Deployment",
            "metadata": {"name": app, "namespace": ns},
            "spec": {"replicas": replicas, "selector": {"matchLabels": {"app": app}},
                     "template": {"metadata": {"labels": {"app": app}}, "spec": {"containers": [{"name": app, "image": format!("registry.example.com/{app}:1.0")}]}}},
        }));
        self.items.push(json!({
            "apiVersion": "apps/v1", "kind": "ReplicaSet",
            "metadata": {"name": name, "namespace": ns, "labels": labels.clone(),
                         "ownerReferences": [{"apiVersion": "apps/v1", "kind": "Deployment", "name": app, "uid": format!("uid-deploy-{ns}-{app}"), "controller": true}]},
            "spec": {"replicas": replicas, "selector": {"matchLabels": labels.clone()},
                     "template": {"metadata": {"labels": labels}, "spec": {"containers": [{"name": app, "image": format!("registry.example.com/{app}:1.0")}]}}},
            "status": {"replicas": replicas},
        }));
        name
    }

    fn stateful_set(&mut self, ns: &str, app: &str, replicas: usize) {
        self.items.push(json!({
            "apiVersion": "apps/v1", "kind": "StatefulSet",
            "metadata": {"name": app, "namespace": ns},
            "spec": {"replicas": replicas, "serviceName": app, "selector": {"matchLabels": {"app": app}},
                     "template": {"metadata": {"labels": {"app": app}}, "spec": {"containers": [{"name": app, "image": format!("registry.example.com/{app}:1.0")}]}}},
            "status": {"replicas": replicas},
        }));
    }

    fn pdb(
        &mut self,
        ns: &str,
        name: &str,
        app: &str,
        budget: (&str, Value),
        pods: i32,
        allowed: i32,
    ) {
        let mut spec = json!({"selector": {"matchLabels": {"app": app}}});
        spec[budget.0] = budget.1;
        self.items.push(json!({
            "apiVersion": "policy/v1", "kind": "PodDisruptionBudget",
            "metadata": {"name": name, "namespace": ns, "generation": 1},
            "spec": spec,
            "status": {"disruptionsAllowed": allowed, "currentHealthy": pods, "desiredHealthy": pods - allowed,
                       "expectedPods": pods, "observedGeneration": 1},
        }));
    }

    /// Builds a pod object; `node` is `None` for a pending pod.
    fn pod_object(&mut self, t: &Template, name: String, node: Option<usize>) -> Value {
        self.pod_serial += 1;
        let serial = self.pod_serial;
        let mut labels = json!({"app": t.app});
        for (k, v) in &t.extra_labels {
            labels[*k] = json!(v);
        }
        let mut requests =
            json!({"cpu": format!("{}m", t.cpu_milli), "memory": quantity_mem(t.memory)});
        if t.gpus > 0 {
            requests["nvidia.com/gpu"] = json!(t.gpus.to_string());
        }
        let mut container = json!({
            "name": t.app,
            "image": format!("registry.example.com/{}:1.0", t.app),
            "resources": {"requests": requests.clone(), "limits": requests},
        });
        if t.pre_stop {
            container["lifecycle"] =
                json!({"preStop": {"exec": {"command": ["/bin/sh", "-c", "sleep 10"]}}});
        }
        let mut spec = json!({
            "containers": [container],
            "priorityClassName": t.class,
            "priority": t.priority,
            "terminationGracePeriodSeconds": t.grace,
            "schedulerName": "default-scheduler",
        });
        if t.class == "batch" {
            spec["preemptionPolicy"] = json!("Never");
        } else {
            spec["preemptionPolicy"] = json!("PreemptLowerPriority");
        }
        if !t.spread.is_empty() {
            spec["topologySpreadConstraints"] = json!(t.spread);
        }
        if !t.tolerations.is_empty() {
            spec["tolerations"] = json!(t.tolerations);
        }
        let created = 3600 + serial * 37;
        let mut metadata = json!({
            "name": name,
            "namespace": t.namespace,
            "uid": format!("uid-pod-{serial:05}"),
            "labels": labels,
            "creationTimestamp": timestamp(created),
        });
        if !t.owner_kind.is_empty() {
            let api = if t.owner_kind == "Job" {
                "batch/v1"
            } else {
                "apps/v1"
            };
            metadata["ownerReferences"] = json!([{"apiVersion": api, "kind": t.owner_kind, "name": t.owner_name,
                "uid": format!("uid-owner-{}-{}", t.namespace, t.owner_name), "controller": true}]);
        }
        let status = match node {
            Some(n) => {
                spec["nodeName"] = json!(self.nodes[n].name);
                json!({
                    "phase": "Running",
                    "startTime": timestamp(created + 5),
                    "conditions": [{"type": "Ready", "status": "True"}],
                })
            }
            None => json!({
                "phase": "Pending",
                "conditions": [{"type": "PodScheduled", "status": "False", "reason": "Unschedulable"}],
            }),
        };
        json!({"apiVersion": "v1", "kind": "Pod", "metadata": metadata, "spec": spec, "status": status})
    }

    fn fits(&self, t: &Template, n: usize) -> bool {
        let node = &self.nodes[n];
        node.free_cpu() >= t.cpu_milli
            && node.free_mem() >= t.memory
            && node.gpus - node.used_gpu >= t.gpus
    }

    fn bind(&mut self, t: &Template, name: String, n: usize) {
        let node = &mut self.nodes[n];
        assert!(
            node.free_cpu() >= t.cpu_milli && node.free_mem() >= t.memory,
            "{name} does not fit on {}",
            node.name
        );
        node.used_cpu += t.cpu_milli;
        node.used_mem += t.memory;
        node.used_gpu += t.gpus;
        let pod = self.pod_object(t, name, Some(n));
        self.items.push(pod);
    }

    /// Sets the replica count of a Deployment and its ReplicaSet once known.
    fn set_replicas(&mut self, ns: &str, app: &str, replicas: usize) {
        for item in &mut self.items {
            let kind = item["kind"].as_str().unwrap_or("").to_string();
            let owned = item["metadata"]["labels"]["app"] == app || item["metadata"]["name"] == app;
            if (kind == "ReplicaSet" || kind == "Deployment")
                && item["metadata"]["namespace"] == ns
                && owned
            {
                item["spec"]["replicas"] = json!(replicas);
                if kind == "ReplicaSet" {
                    item["status"]["replicas"] = json!(replicas);
                }
            }
        }
    }

    fn pending(&mut self, t: &Template, name: &str) {
        let pod = self.pod_object(t, name.to_string(), None);
        self.items.push(pod);
    }

    fn nodes_in(&self, zone: &str, general_only: bool) -> Vec<usize> {
        (0..self.nodes.len())
            .filter(|&i| {
                self.nodes[i].zone == zone && (!general_only || self.nodes[i].taint.is_none())
            })
            .collect()
    }

    /// Places `count` replicas round-robin over `nodes`, skipping full ones.
    fn spread_over(
        &mut self,
        t: &Template,
        nodes: &[usize],
        count: usize,
        names: &mut impl FnMut() -> String,
    ) {
        let mut placed = 0;
        let mut i = 0;
        let mut misses = 0;
        while placed < count {
            let n = nodes[i % nodes.len()];
            i += 1;
            if self.fits(t, n) {
                self.bind(t, names(), n);
                placed += 1;
                misses = 0;
            } else {
                misses += 1;
                assert!(misses <= nodes.len(), "{} does not fit anywhere", t.app);
            }
        }
    }
}

fn template(
    namespace: &'static str,
    app: &'static str,
    class: &'static str,
    cpu_milli: i64,
    memory: i64,
) -> Template {
    Template {
        namespace,
        app,
        owner_kind: "",
        owner_name: String::new(),
        class,
        priority: priority_of(class),
        cpu_milli,
        memory,
        gpus: 0,
        spread: vec![],
        tolerations: vec![],
        grace: 30,
        pre_stop: false,
        extra_labels: vec![],
    }
}

/// Deterministic pod-name suffixes, as the ReplicaSet controller would make them.
fn suffixes(seed: u64) -> impl FnMut() -> String {
    const ALPHABET: &[u8] = b"bcdfghjklmnpqrstvwxz2456789";
    let mut state = seed
        .wrapping_mul(6364136223846793005)
        .wrapping_add(1442695040888963407);
    move || {
        let mut s = String::new();
        for _ in 0..5 {
            state = state
                .wrapping_mul(6364136223846793005)
                .wrapping_add(1442695040888963407);
            s.push(ALPHABET[(state >> 33) as usize % ALPHABET.len()] as char);
        }
        s
    }
}

fn deployment_template(
    g: &mut Generator,
    mut t: Template,
    hash: &'static str,
    replicas: usize,
) -> (Template, String) {
    let rs = g.replica_set(t.namespace, t.app, hash, replicas);
    t.owner_kind = "ReplicaSet";
    t.owner_name = rs.clone();
    t.extra_labels.push(("pod-template-hash", hash.to_string()));
    (t, rs)
}

fn main() -> std::io::Result<()> {
    let mut g = Generator::new();
    g.cluster_objects();
    let zone_a = g.nodes_in("eu-west-1a", true);
    let zone_b = g.nodes_in("eu-west-1b", true);
    let zone_c = g.nodes_in("eu-west-1c", true);
    let all: Vec<usize> = (0..g.nodes.len()).collect();

    // kube-proxy on every node, like a DaemonSet.
    let mut proxy = template(
        "kube-system",
        "kube-proxy",
        "system-node-critical",
        100,
        128 * MI,
    );
    proxy.owner_kind = "DaemonSet";
    proxy.owner_name = "kube-proxy".into();
    proxy.tolerations = vec![json!({"operator": "Exists"})];
    let mut next = suffixes(1);
    for &n in &all {
        g.bind(&proxy, format!("kube-proxy-{}", next()), n);
    }

    let (coredns, rs) = deployment_template(
        &mut g,
        template(
            "kube-system",
            "coredns",
            "system-cluster-critical",
            100,
            70 * MI,
        ),
        "5d78c9869d",
        2,
    );
    let mut next = suffixes(2);
    g.spread_over(&coredns, &[zone_a[0], zone_b[0]], 2, &mut || {
        format!("{rs}-{}", next())
    });
    g.service("kube-system", "coredns");

    // The StatefulSets: postgres (one per zone) and prometheus.
    let mut postgres = template("data", "postgres", "business-critical", 1000, 4 * GI);
    postgres.owner_kind = "StatefulSet";
    postgres.owner_name = "postgres".into();
    postgres.grace = 120;
    postgres.pre_stop = true;
    postgres.spread = vec![zone_spread("postgres", 1, true)];
    g.stateful_set("data", "postgres", 3);
    g.service("data", "postgres");
    for (i, &n) in [zone_a[1], zone_b[1], zone_c[0]].iter().enumerate() {
        g.bind(&postgres, format!("postgres-{i}"), n);
    }
    g.pdb(
        "data",
        "postgres",
        "postgres",
        ("maxUnavailable", json!(1)),
        3,
        1,
    );

    let mut prometheus = template("monitoring", "prometheus", "standard", 500, 2 * GI);
    prometheus.owner_kind = "StatefulSet";
    prometheus.owner_name = "prometheus".into();
    prometheus.grace = 300;
    g.stateful_set("monitoring", "prometheus", 2);
    g.service("monitoring", "prometheus");
    for (i, &n) in [zone_a[2], zone_b[2]].iter().enumerate() {
        g.bind(&prometheus, format!("prometheus-{i}"), n);
    }

    // shop/frontend: 21 + 21 + 20 replicas, maxSkew 1 over zones.
    let mut frontend = template("shop", "frontend", "standard", 500, GI);
    frontend.spread = vec![zone_spread("frontend", 1, true), host_spread("frontend", 2)];
    let (frontend, frontend_rs) = deployment_template(&mut g, frontend, "6b8f7c5d4", 63);
    let mut next = suffixes(3);
    for (nodes, count) in [(&zone_a, 21), (&zone_b, 21), (&zone_c, 20)] {
        g.spread_over(&frontend, nodes, count, &mut || {
            format!("{frontend_rs}-{}", next())
        });
    }
    g.service("shop", "frontend");

    // shop/checkout: business-critical, 10 per zone, with a PDB.
    let mut checkout = template("shop", "checkout", "business-critical", 300, 512 * MI);
    checkout.spread = vec![zone_spread("checkout", 1, true)];
    checkout.pre_stop = true;
    checkout.grace = 45;
    let (checkout, checkout_rs) = deployment_template(&mut g, checkout, "84d5b7f9c", 30);
    let mut next = suffixes(4);
    for nodes in [&zone_a, &zone_b, &zone_c] {
        g.spread_over(&checkout, nodes, 10, &mut || {
            format!("{checkout_rs}-{}", next())
        });
    }
    g.service("shop", "checkout");
    g.pdb(
        "shop",
        "checkout",
        "checkout",
        ("minAvailable", json!("90%")),
        30,
        3,
    );

    // shop/cart: 2 per general node in zones a and b.
    let (cart, cart_rs) = deployment_template(
        &mut g,
        template("shop", "cart", "standard", 200, 256 * MI),
        "7c9f8d6b5",
        43,
    );
    let ab: Vec<usize> = zone_a.iter().chain(zone_b.iter()).copied().collect();
    let mut next = suffixes(5);
    g.spread_over(&cart, &ab, 42, &mut || format!("{cart_rs}-{}", next()));
    g.service("shop", "cart");

    // shop/catalog: fills zone c to the brim, then 2 per node in a and b.
    let mut catalog = template("shop", "catalog", "standard", 250, 512 * MI);
    catalog.spread = vec![zone_spread("catalog", 2, false)];
    let (catalog, catalog_rs) = deployment_template(&mut g, catalog, "5f6c8b9d7", 0);
    let mut next = suffixes(6);
    let mut catalog_count = 0;
    for &n in &zone_c {
        while g.fits(&catalog, n) {
            g.bind(&catalog, format!("{catalog_rs}-{}", next()), n);
            catalog_count += 1;
        }
    }
    g.spread_over(&catalog, &ab, 42, &mut || {
        format!("{catalog_rs}-{}", next())
    });
    catalog_count += 42;
    g.service("shop", "catalog");
    g.set_replicas("shop", "catalog", catalog_count);

    // ml/trainer on the GPU nodes.
    let mut trainer = template("ml", "trainer", "standard", 3000, 12 * GI);
    trainer.gpus = 1;
    trainer.tolerations =
        vec![json!({"key": "nvidia.com/gpu", "operator": "Exists", "effect": "NoSchedule"})];
    let gpus = g
        .nodes_in("eu-west-1a", false)
        .into_iter()
        .filter(|&n| g.nodes[n].gpus > 0)
        .collect::<Vec<_>>();
    let (trainer, trainer_rs) = deployment_template(&mut g, trainer, "9d4c7b8f6", 4);
    let mut next = suffixes(7);
    g.spread_over(&trainer, &gpus, 4, &mut || {
        format!("{trainer_rs}-{}", next())
    });

    // The low tiers: batch reports (PDB with no disruptions left) and
    // best-effort sandbox pods, packed into zones a and b.
    let mut reports = template("batch", "reports", "batch", 1000, 2 * GI);
    reports.tolerations = vec![
        json!({"key": "dedicated", "operator": "Equal", "value": "batch", "effect": "NoSchedule"}),
    ];
    reports.grace = 60;
    reports.pre_stop = true;
    let (reports, reports_rs) = deployment_template(&mut g, reports, "67f9d8c4b", 0);
    let mut sandbox = template("lab", "sandbox", "best-effort", 500, 512 * MI);
    sandbox.grace = 5;
    let (sandbox, sandbox_rs) = deployment_template(&mut g, sandbox, "b7c6d5f48", 0);
    let mut next_report = suffixes(8);
    let mut next_sandbox = suffixes(9);
    let (mut n_reports, mut n_sandbox) = (0, 0);
    const LEAVE_FREE: i64 = 800;
    for n in 0..g.nodes.len() {
        let fill = g.nodes[n].fill;
        if fill == Fill::None {
            continue;
        }
        let mut reports_here = 0;
        loop {
            let free = g.nodes[n].free_cpu();
            let want_report = match fill {
                Fill::ReportsHeavy => true,
                Fill::SandboxHeavy => reports_here == 0,
                _ => false,
            };
            if want_report && free - reports.cpu_milli >= LEAVE_FREE {
                g.bind(&reports, format!("{reports_rs}-{}", next_report()), n);
                reports_here += 1;
                n_reports += 1;
            } else if free - sandbox.cpu_milli >= LEAVE_FREE {
                g.bind(&sandbox, format!("{sandbox_rs}-{}", next_sandbox()), n);
                n_sandbox += 1;
            } else {
                break;
            }
        }
    }
    let batch_node = g
        .nodes
        .iter()
        .position(|n| n.name == "batch-b01")
        .expect("batch node");
    while g.fits(&reports, batch_node)
        && g.nodes[batch_node].free_cpu() - reports.cpu_milli >= LEAVE_FREE
    {
        g.bind(
            &reports,
            format!("{reports_rs}-{}", next_report()),
            batch_node,
        );
        n_reports += 1;
    }
    g.pdb(
        "batch",
        "reports",
        "reports",
        ("maxUnavailable", json!(0)),
        n_reports,
        0,
    );
    g.set_replicas("batch", "reports", n_reports as usize);
    g.set_replicas("lab", "sandbox", n_sandbox);

    // The pending pods.
    let mut next = suffixes(10);
    g.pending(&frontend, &format!("{frontend_rs}-{}", next()));
    g.pending(&cart, &format!("{cart_rs}-new01"));
    let mut ledger = template(
        "payments",
        "ledger-migrate",
        "business-critical",
        5000,
        8 * GI,
    );
    ledger.owner_kind = "Job";
    ledger.owner_name = "ledger-migrate".into();
    g.pending(&ledger, "ledger-migrate-x7k2p");
    let mut xl = template("ml", "trainer-xl", "standard", 48_000, 96 * GI);
    xl.tolerations = trainer.tolerations.clone();
    xl.gpus = 2;
    g.pending(&xl, "trainer-xl");
    let mut adhoc = template("batch", "reports-adhoc", "batch", 6000, 8 * GI);
    adhoc.owner_kind = "Job";
    adhoc.owner_name = "reports-adhoc".into();
    g.pending(&adhoc, "reports-adhoc-q8w4n");

    g.dra_pool(&proxy, &mut suffixes(1_000));

    let pods = g.items.iter().filter(|i| i["kind"] == "Pod").count();
    let list = json!({"apiVersion": "v1", "kind": "List", "items": g.items});
    let bytes = serde_json::to_vec_pretty(&list)?;
    let file = std::fs::File::create(OUT)?;
    let mut gz = GzEncoder::new(file, Compression::best());
    gz.write_all(&bytes)?;
    gz.finish()?;
    eprintln!(
        "wrote {OUT}: {} nodes, {pods} pods ({} bytes uncompressed)",
        g.nodes.len(),
        bytes.len()
    );
    assert!(
        3600 + g.pod_serial * 37 < story::START,
        "the recording starts after every pod was created"
    );
    story::write(&g.items)
}
