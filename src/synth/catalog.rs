//! What a production cluster is made of: priority classes, node shapes
//! and pools, DaemonSets, namespaces, team and add-on names.

pub(super) const REGION: &str = "us-east-1";
pub(super) const REGISTRY: &str = "ghcr.io/acme";
pub(super) const EKS_REGISTRY: &str = "602401143452.dkr.ecr.us-east-1.amazonaws.com";
/// The snapshot's "now": 2024-10-01T00:00:00Z.
pub(super) const NOW: i64 = 1_727_740_800;
pub(super) const DAY: i64 = 86_400;

/// Kubelet's `maxPods`.
pub(super) const MAX_PODS: u32 = 110;
/// Each node is packed up to its own cap, drawn from this range, so nodes
/// end up unevenly full as in a real cluster (60–90%).
pub(super) const FILL_CAPS: (f64, f64) = (0.66, 0.92);
/// The overall cpu and memory fill the request sizes aim at.
pub(super) const TARGET_FILL: f64 = 0.72;

/// A PriorityClass.
pub(super) struct Class {
    pub(super) name: &'static str,
    pub(super) value: i32,
    pub(super) global_default: bool,
    pub(super) never: bool,
    pub(super) description: &'static str,
}

pub(super) const CLASSES: [Class; 7] = [
    Class {
        name: "system-node-critical",
        value: 2_000_001_000,
        global_default: false,
        never: false,
        description: "Used for system critical pods that must not be moved from their current node.",
    },
    Class {
        name: "system-cluster-critical",
        value: 2_000_000_000,
        global_default: false,
        never: false,
        description: "Used for system critical pods that must run in the cluster, but can be moved to another node if necessary.",
    },
    Class {
        name: "platform-critical",
        value: 1_000_000,
        global_default: false,
        never: false,
        description: "Ingress and platform services that user workloads depend on.",
    },
    Class {
        name: "high-priority",
        value: 100_000,
        global_default: false,
        never: false,
        description: "Customer-facing services.",
    },
    Class {
        name: "standard",
        value: 1000,
        global_default: true,
        never: false,
        description: "Default for workloads that name no class.",
    },
    Class {
        name: "batch-nonpreempting",
        value: 500,
        global_default: false,
        never: true,
        description: "Batch work that waits for room instead of evicting others.",
    },
    Class {
        name: "best-effort",
        value: -100,
        global_default: false,
        never: false,
        description: "Opportunistic work, first to be preempted.",
    },
];
pub(super) const SYSTEM_NODE: usize = 0;
pub(super) const SYSTEM_CLUSTER: usize = 1;
pub(super) const PLATFORM: usize = 2;
pub(super) const HIGH: usize = 3;
pub(super) const STANDARD: usize = 4;
pub(super) const BATCH: usize = 5;
pub(super) const BEST_EFFORT: usize = 6;

/// A node pool: one EC2 instance type with its kubelet-reported amounts.
pub(super) struct Shape {
    pub(super) pool: &'static str,
    pub(super) instance_type: &'static str,
    pub(super) cores: i64,
    pub(super) alloc_cpu_m: i64,
    pub(super) capacity_mem_ki: i64,
    pub(super) alloc_mem_ki: i64,
}

pub(super) const SHAPES: [Shape; 4] = [
    Shape {
        pool: "general",
        instance_type: "m5.2xlarge",
        cores: 8,
        alloc_cpu_m: 7910,
        capacity_mem_ki: 32_408_176,
        alloc_mem_ki: 31_391_344,
    },
    Shape {
        pool: "compute",
        instance_type: "c5.4xlarge",
        cores: 16,
        alloc_cpu_m: 15_890,
        capacity_mem_ki: 32_036_148,
        alloc_mem_ki: 31_019_316,
    },
    Shape {
        pool: "memory",
        instance_type: "r5.2xlarge",
        cores: 8,
        alloc_cpu_m: 7910,
        capacity_mem_ki: 65_023_772,
        alloc_mem_ki: 64_006_940,
    },
    Shape {
        pool: "infra",
        instance_type: "m5.xlarge",
        cores: 4,
        alloc_cpu_m: 3920,
        capacity_mem_ki: 15_950_256,
        alloc_mem_ki: 14_933_424,
    },
];
pub(super) const GENERAL: usize = 0;
pub(super) const COMPUTE: usize = 1;
pub(super) const MEMORY: usize = 2;
pub(super) const INFRA: usize = 3;
/// Pools of consecutive nodes in a zone: 50% general, 20% compute,
/// 20% memory, 10% infra (tainted `dedicated=infra:NoSchedule`).
#[rustfmt::skip]
pub(super) const POOL_PATTERN: [usize; 10] = [
    GENERAL, COMPUTE, GENERAL, MEMORY, GENERAL, COMPUTE, GENERAL, MEMORY, GENERAL, INFRA,
];

/// A DaemonSet that runs one pod on every node.
pub(super) struct Daemon {
    pub(super) namespace: &'static str,
    pub(super) name: &'static str,
    pub(super) image: &'static str,
    pub(super) cpu_m: i64,
    pub(super) mem_mi: i64,
    /// The metrics port (a host port for the host-network ones).
    pub(super) port: i32,
}

pub(super) const DAEMONS: [Daemon; 4] = [
    Daemon {
        namespace: "kube-system",
        name: "kube-proxy",
        image: "602401143452.dkr.ecr.us-east-1.amazonaws.com/eks/kube-proxy:v1.30.0-minimal-eksbuild.3",
        cpu_m: 100,
        mem_mi: 0,
        port: 10249,
    },
    Daemon {
        namespace: "kube-system",
        name: "aws-node",
        image: "602401143452.dkr.ecr.us-east-1.amazonaws.com/amazon-k8s-cni:v1.18.1-eksbuild.3",
        cpu_m: 25,
        mem_mi: 0,
        port: 61678,
    },
    Daemon {
        namespace: "monitoring",
        name: "node-exporter",
        image: "quay.io/prometheus/node-exporter:v1.8.1",
        cpu_m: 100,
        mem_mi: 180,
        port: 9100,
    },
    Daemon {
        namespace: "logging",
        name: "fluent-bit",
        image: "cr.fluentbit.io/fluent/fluent-bit:3.0.7",
        cpu_m: 100,
        mem_mi: 128,
        port: 2020,
    },
];

pub(super) const SYSTEM_NAMESPACES: [&str; 7] = [
    "default",
    "kube-system",
    "kube-public",
    "kube-node-lease",
    "monitoring",
    "logging",
    "ingress-nginx",
];

/// Team namespaces are `<domain>` or `<domain>-<flavor>`.
#[rustfmt::skip]
pub(super) const DOMAINS: [&str; 40] = [
    "payments", "checkout", "catalog", "search", "identity", "billing", "ads",
    "recommendations", "inventory", "shipping", "orders", "notifications", "media", "analytics",
    "fraud", "pricing", "reviews", "loyalty", "messaging", "accounts", "ledger", "risk", "geo",
    "content", "auth", "profile", "cart", "feeds", "support", "partners", "returns", "tax",
    "warehouse", "delivery", "promotions", "experiments", "reporting", "onboarding",
    "compliance", "translations",
];
#[rustfmt::skip]
pub(super) const FLAVORS: [&str; 8] = [
    "", "staging", "batch", "eu", "canary", "internal", "sandbox", "jobs",
];
#[rustfmt::skip]
pub(super) const COMPONENTS: [&str; 18] = [
    "api", "web", "worker", "consumer", "gateway", "cache", "scheduler", "indexer", "sync",
    "frontend", "backend", "processor", "exporter", "grpc", "admin", "reconciler", "ingest",
    "notifier",
];
pub(super) const SIDECAR_IMAGE: &str = "envoyproxy/envoy:v1.29.4";
pub(super) const SIDECAR_CPU_M: i64 = 50;
pub(super) const SIDECAR_MEM_MI: i64 = 64;
