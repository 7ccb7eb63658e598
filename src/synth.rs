//! Synthetic clusters at scale, for benchmarks and `kplace synth`.
//!
//! [`write_cluster_json`] writes a deterministic, production-looking cluster
//! in the shape of `kubectl get ... -o json` (a `List`): EKS-like nodes in
//! four node pools across zones, Deployments (via ReplicaSets) and
//! StatefulSets in many namespaces with their pods bound so that nodes are
//! 60–90% allocated, DaemonSets, Services, PodDisruptionBudgets and
//! PriorityClasses. Each StatefulSet pod has a claim from its set's
//! `volumeClaimTemplates`, bound to a zonal CSI volume in its node's zone
//! (a Pending pod's waits unbound) in the default WaitForFirstConsumer
//! class, and every node has a CSINode with the driver's attach limit. [`fitting_pod_yaml`] and [`preempting_pod_yaml`] are
//! incoming pods that drive the scoring path and the preemption path.
//!
//! Everything derives from [`SynthSpec::seed`]: the same spec always gives
//! the same bytes, so benchmark runs compare like with like.

use std::cmp::Reverse;
use std::fmt::Write as _;
use std::io::{self, BufWriter, Write};

use rustc_hash::FxHashSet;
use serde_json::{Map, Value, json};

/// The size and shape of a synthetic cluster.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct SynthSpec {
    /// Nodes in four pools: general, compute, memory and tainted infra.
    pub nodes: usize,
    /// Every pod of the snapshot: DaemonSet pods, workload pods and a few pending ones.
    pub pods: usize,
    /// Availability zones (1 to 26).
    pub zones: usize,
    /// Everything random derives from it: equal specs give equal bytes.
    pub seed: u64,
}

impl Default for SynthSpec {
    /// A large production cluster: 5,000 nodes and 150,000 pods in 5 zones.
    fn default() -> Self {
        SynthSpec {
            nodes: 5000,
            pods: 150_000,
            zones: 5,
            seed: 42,
        }
    }
}

impl SynthSpec {
    /// The same density as the default at 1/25 of the size, for tests.
    pub fn small() -> Self {
        SynthSpec {
            nodes: 200,
            pods: 6000,
            zones: 3,
            seed: 42,
        }
    }
}

// ---------------------------------------------------------------------------
// Deterministic randomness.

/// SplitMix64: tiny, fast, and good enough to make clusters look irregular.
struct Rng(u64);

impl Rng {
    fn new(seed: u64) -> Self {
        Rng(seed ^ 0x9E37_79B9_7F4A_7C15)
    }

    fn next_u64(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9E37_79B9_7F4A_7C15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
        z ^ (z >> 31)
    }

    /// Uniform in `0..n`; `n` must not be 0.
    fn below(&mut self, n: usize) -> usize {
        (self.next_u64() % n as u64) as usize
    }

    /// Uniform in `lo..=hi`.
    fn between(&mut self, lo: i64, hi: i64) -> i64 {
        lo + (self.next_u64() % (hi - lo + 1) as u64) as i64
    }

    /// True with probability `percent`/100.
    fn chance(&mut self, percent: usize) -> bool {
        self.below(100) < percent
    }

    /// Uniform in `[0, 1)`.
    fn unit(&mut self) -> f64 {
        (self.next_u64() >> 11) as f64 / (1u64 << 53) as f64
    }

    fn pick<T: Copy>(&mut self, items: &[T]) -> T {
        items[self.below(items.len())]
    }

    /// Lower-case hex digits.
    fn hex(&mut self, len: usize) -> String {
        let mut s = String::with_capacity(len);
        while s.len() < len {
            let _ = write!(s, "{:016x}", self.next_u64());
        }
        s.truncate(len);
        s
    }

    /// A random (version 4) UID.
    fn uid(&mut self) -> String {
        let h = self.hex(32);
        format!(
            "{}-{}-4{}-a{}-{}",
            &h[..8],
            &h[8..12],
            &h[13..16],
            &h[17..20],
            &h[20..]
        )
    }

    /// Characters from the alphabet Kubernetes uses for generated names
    /// (`pod-template-hash`, pod suffixes): no vowels, no look-alikes.
    fn safe_chars(&mut self, len: usize) -> String {
        const ALPHABET: &[u8] = b"bcdfghjklmnpqrstvwxz2456789";
        (0..len)
            .map(|_| ALPHABET[self.below(ALPHABET.len())] as char)
            .collect()
    }
}

// ---------------------------------------------------------------------------
// What a production cluster is made of.

const REGION: &str = "us-east-1";
const REGISTRY: &str = "ghcr.io/acme";
const EKS_REGISTRY: &str = "602401143452.dkr.ecr.us-east-1.amazonaws.com";
/// The snapshot's "now": 2024-10-01T00:00:00Z.
const NOW: i64 = 1_727_740_800;
const DAY: i64 = 86_400;

/// Kubelet's `maxPods`.
const MAX_PODS: u32 = 110;
/// Each node is packed up to its own cap, drawn from this range, so nodes
/// end up unevenly full as in a real cluster (60–90%).
const FILL_CAPS: (f64, f64) = (0.66, 0.92);
/// The overall cpu and memory fill the request sizes aim at.
const TARGET_FILL: f64 = 0.72;

/// A PriorityClass.
struct Class {
    name: &'static str,
    value: i32,
    global_default: bool,
    never: bool,
    description: &'static str,
}

const CLASSES: [Class; 7] = [
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
const SYSTEM_NODE: usize = 0;
const SYSTEM_CLUSTER: usize = 1;
const PLATFORM: usize = 2;
const HIGH: usize = 3;
const STANDARD: usize = 4;
const BATCH: usize = 5;
const BEST_EFFORT: usize = 6;

/// A node pool: one EC2 instance type with its kubelet-reported amounts.
struct Shape {
    pool: &'static str,
    instance_type: &'static str,
    cores: i64,
    alloc_cpu_m: i64,
    capacity_mem_ki: i64,
    alloc_mem_ki: i64,
}

const SHAPES: [Shape; 4] = [
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
const GENERAL: usize = 0;
const COMPUTE: usize = 1;
const MEMORY: usize = 2;
const INFRA: usize = 3;
/// Pools of consecutive nodes in a zone: 50% general, 20% compute,
/// 20% memory, 10% infra (tainted `dedicated=infra:NoSchedule`).
#[rustfmt::skip]
const POOL_PATTERN: [usize; 10] = [
    GENERAL, COMPUTE, GENERAL, MEMORY, GENERAL, COMPUTE, GENERAL, MEMORY, GENERAL, INFRA,
];

/// A DaemonSet that runs one pod on every node.
struct Daemon {
    namespace: &'static str,
    name: &'static str,
    image: &'static str,
    cpu_m: i64,
    mem_mi: i64,
    /// The metrics port (a host port for the host-network ones).
    port: i32,
}

const DAEMONS: [Daemon; 4] = [
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

const SYSTEM_NAMESPACES: [&str; 7] = [
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
const DOMAINS: [&str; 40] = [
    "payments", "checkout", "catalog", "search", "identity", "billing", "ads",
    "recommendations", "inventory", "shipping", "orders", "notifications", "media", "analytics",
    "fraud", "pricing", "reviews", "loyalty", "messaging", "accounts", "ledger", "risk", "geo",
    "content", "auth", "profile", "cart", "feeds", "support", "partners", "returns", "tax",
    "warehouse", "delivery", "promotions", "experiments", "reporting", "onboarding",
    "compliance", "translations",
];
#[rustfmt::skip]
const FLAVORS: [&str; 8] = [
    "", "staging", "batch", "eu", "canary", "internal", "sandbox", "jobs",
];
#[rustfmt::skip]
const COMPONENTS: [&str; 18] = [
    "api", "web", "worker", "consumer", "gateway", "cache", "scheduler", "indexer", "sync",
    "frontend", "backend", "processor", "exporter", "grpc", "admin", "reconciler", "ingest",
    "notifier",
];
const SIDECAR_IMAGE: &str = "envoyproxy/envoy:v1.29.4";
const SIDECAR_CPU_M: i64 = 50;
const SIDECAR_MEM_MI: i64 = 64;

// ---------------------------------------------------------------------------
// The plan: every decision, made before anything is written.

struct NodePlan {
    name: String,
    ip: [u8; 4],
    zone: usize,
    pool: usize,
    cordoned: bool,
    spot: bool,
    created: i64,
    cpu_m: i64,
    mem_ki: i64,
    pods: u32,
    /// Workloads whose images the node reports in `status.images`.
    images: Vec<u32>,
    /// Runs a pod with the mesh sidecar (so it has the sidecar image).
    sidecar: bool,
    /// The most of its cpu or memory this node gets requested.
    fill_cap: f64,
}

impl NodePlan {
    fn shape(&self) -> &'static Shape {
        &SHAPES[self.pool]
    }

    /// The fuller of the cpu and memory fractions, relative to the cap.
    fn load(&self) -> f64 {
        let s = self.shape();
        let cpu = self.cpu_m as f64 / s.alloc_cpu_m as f64;
        cpu.max(self.mem_ki as f64 / s.alloc_mem_ki as f64) / self.fill_cap
    }

    fn fits(&self, cpu_m: i64, mem_ki: i64) -> bool {
        let s = self.shape();
        self.pods < MAX_PODS
            && (self.cpu_m + cpu_m) as f64 <= self.fill_cap * s.alloc_cpu_m as f64
            && (self.mem_ki + mem_ki) as f64 <= self.fill_cap * s.alloc_mem_ki as f64
    }

    fn charge(&mut self, cpu_m: i64, mem_ki: i64) {
        self.cpu_m += cpu_m;
        self.mem_ki += mem_ki;
        self.pods += 1;
    }
}

#[derive(Clone, Copy, PartialEq, Eq)]
enum Kind {
    Deployment,
    StatefulSet,
}

/// `topologySpreadConstraints` of a workload; `hard` is DoNotSchedule.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Spread {
    None,
    Zone { hard: bool },
    ZoneAndHost { hard: bool },
}

#[derive(Clone, Copy, PartialEq, Eq)]
enum AntiAffinity {
    None,
    Required,
    Preferred,
}

#[derive(Clone, Copy, PartialEq, Eq)]
enum Limits {
    None,
    Memory,
    /// Limits equal to requests: the Guaranteed QoS class.
    Guaranteed,
}

#[derive(Clone, Copy, PartialEq, Eq)]
enum Budget {
    MaxUnavailable(i32),
    MinAvailablePercent(i32),
    /// `minAvailable` equal to the replicas: never allows a disruption.
    MinAvailableAll,
}

struct Workload {
    namespace: usize,
    name: String,
    kind: Kind,
    replicas: u32,
    /// Replicas left Pending (the last ones).
    pending: u32,
    pool: usize,
    class: usize,
    /// Main container requests; both zero for BestEffort pods.
    cpu_m: i64,
    mem_mi: i64,
    /// Relative sizes, turned into requests per pool by `size_requests`.
    cpu_factor: f64,
    mem_factor: f64,
    /// Requests fixed up front (system workloads), not sized per pool.
    fixed_size: bool,
    limits: Limits,
    sidecar: bool,
    spread: Spread,
    match_label_keys: bool,
    anti: AntiAffinity,
    pdb: Option<Budget>,
    service: bool,
    hash: String,
    image: String,
    pre_stop: bool,
    grace: i64,
    created: i64,
}

impl Workload {
    fn pod_cpu_m(&self) -> i64 {
        self.cpu_m
            + if self.has_sidecar_requests() {
                SIDECAR_CPU_M
            } else {
                0
            }
    }

    fn pod_mem_ki(&self) -> i64 {
        (self.mem_mi
            + if self.has_sidecar_requests() {
                SIDECAR_MEM_MI
            } else {
                0
            })
            * 1024
    }

    /// BestEffort pods' sidecars request nothing either.
    fn has_sidecar_requests(&self) -> bool {
        self.sidecar && !self.best_effort()
    }

    fn running(&self) -> u32 {
        self.replicas - self.pending
    }

    /// Replicas must land on distinct nodes (required anti-affinity or a
    /// DoNotSchedule hostname spread).
    fn strict_hosts(&self) -> bool {
        self.anti == AntiAffinity::Required || self.spread == Spread::ZoneAndHost { hard: true }
    }

    fn best_effort(&self) -> bool {
        self.cpu_m == 0 && self.mem_mi == 0
    }
}

struct Namespace {
    name: String,
    domain: &'static str,
}

struct Plan {
    zones: usize,
    namespaces: Vec<Namespace>,
    nodes: Vec<NodePlan>,
    daemons: usize,
    workloads: Vec<Workload>,
    /// Per workload, the node of each replica (`None`: Pending).
    placements: Vec<Vec<Option<u32>>>,
}

/// The workload the fitting pod belongs to.
const ANCHOR: usize = 0;

impl Plan {
    fn new(spec: &SynthSpec) -> Plan {
        let mut rng = Rng::new(spec.seed);
        let zones = spec.zones.clamp(1, 26);
        let mut nodes = make_nodes(spec.nodes, zones, &mut rng);
        let daemons = daemon_count(spec);
        for node in &mut nodes {
            for d in &DAEMONS[..daemons] {
                node.charge(d.cpu_m, d.mem_mi * 1024);
            }
        }
        let namespaces = make_namespaces(spec.pods);
        let budget = spec.pods - daemons * nodes.len();
        let mut workloads = make_workloads(budget, &nodes, &namespaces, &mut rng);
        mark_pending(&mut workloads, spec.pods, &mut rng);
        size_requests(&mut workloads, &nodes);
        let placements = place(&mut nodes, &workloads, zones, &mut rng);
        Plan {
            zones,
            namespaces,
            nodes,
            daemons,
            workloads,
            placements,
        }
    }
}

fn zone_name(zone: usize) -> String {
    format!("{REGION}{}", (b'a' + zone as u8) as char)
}

/// As many DaemonSets (up to 4) as the pod budget leaves room for.
fn daemon_count(spec: &SynthSpec) -> usize {
    if spec.nodes == 0 {
        return 0;
    }
    (spec.pods / spec.nodes / 5).min(DAEMONS.len())
}

/// Nodes round-robin over zones, pools by [`POOL_PATTERN`], sorted by name
/// as `kubectl get nodes` lists them.
fn make_nodes(n: usize, zones: usize, rng: &mut Rng) -> Vec<NodePlan> {
    let mut nodes: Vec<NodePlan> = (0..n)
        .map(|i| {
            let (zone, k) = (i % zones, i / zones);
            let ip = [
                10,
                ((zone * 8 + k / 64_000) % 256) as u8,
                ((k / 250) % 256) as u8,
                (k % 250 + 4) as u8,
            ];
            let pool = POOL_PATTERN[k % POOL_PATTERN.len()];
            NodePlan {
                name: format!("ip-{}-{}-{}-{}.ec2.internal", ip[0], ip[1], ip[2], ip[3]),
                ip,
                zone,
                pool,
                cordoned: false,
                spot: pool == COMPUTE && rng.chance(15),
                created: NOW - rng.between(3600, 45 * DAY),
                cpu_m: 0,
                mem_ki: 0,
                pods: 0,
                images: Vec::new(),
                sidecar: false,
                fill_cap: FILL_CAPS.0 + (FILL_CAPS.1 - FILL_CAPS.0) * rng.unit(),
            }
        })
        .collect();
    // A couple of cordoned general nodes, evenly spaced.
    let general: Vec<usize> = (0..n).filter(|&i| nodes[i].pool == GENERAL).collect();
    let cordoned = (n / 100).min(3);
    for c in 1..=cordoned {
        nodes[general[c * general.len() / (cordoned + 1)]].cordoned = true;
    }
    nodes.sort_by(|a, b| a.name.cmp(&b.name));
    nodes
}

/// System namespaces plus one team namespace per ~1,000 pods.
fn make_namespaces(pods: usize) -> Vec<Namespace> {
    let mut list: Vec<Namespace> = SYSTEM_NAMESPACES
        .iter()
        .map(|&name| Namespace {
            name: name.to_string(),
            domain: "platform",
        })
        .collect();
    for i in 0..(pods / 1000).clamp(3, 1000) {
        let domain = DOMAINS[i % DOMAINS.len()];
        let flavor = FLAVORS[(i / DOMAINS.len()) % FLAVORS.len()];
        let round = i / (DOMAINS.len() * FLAVORS.len());
        let mut name = domain.to_string();
        if !flavor.is_empty() {
            name = format!("{name}-{flavor}");
        }
        if round > 0 {
            name = format!("{name}-{round}");
        }
        list.push(Namespace { name, domain });
    }
    list
}

fn namespace_index(namespaces: &[Namespace], name: &str) -> usize {
    namespaces
        .iter()
        .position(|n| n.name == name)
        .expect("known namespace")
}

/// A workload with sensible defaults, to be adjusted by the caller.
fn base_workload(namespace: usize, name: String, pool: usize, rng: &mut Rng) -> Workload {
    Workload {
        namespace,
        name,
        kind: Kind::Deployment,
        replicas: 1,
        pending: 0,
        pool,
        class: STANDARD,
        cpu_m: 0,
        mem_mi: 0,
        cpu_factor: 1.0,
        mem_factor: 1.0,
        fixed_size: false,
        limits: Limits::Memory,
        sidecar: false,
        spread: Spread::None,
        match_label_keys: false,
        anti: AntiAffinity::None,
        pdb: None,
        service: true,
        hash: rng.safe_chars(10),
        image: String::new(),
        pre_stop: false,
        grace: 30,
        created: NOW - rng.between(DAY, 300 * DAY),
    }
}

/// A cluster add-on with fixed requests: namespace, name, kind, pool,
/// class, (minimum replicas, replicas per 1,000 nodes), cpu (m), memory
/// (Mi), image.
type Addon = (
    &'static str,
    &'static str,
    Kind,
    usize,
    usize,
    (u32, u32),
    i64,
    i64,
    &'static str,
);

#[rustfmt::skip]
const ADDONS: [Addon; 7] = [
    ("kube-system", "coredns", Kind::Deployment, GENERAL, SYSTEM_CLUSTER, (2, 10), 100, 70, "eks/coredns:v1.11.1-eksbuild.9"),
    ("kube-system", "metrics-server", Kind::Deployment, INFRA, SYSTEM_CLUSTER, (2, 0), 100, 200, "eks/metrics-server:v0.7.1-eksbuild.1"),
    ("kube-system", "cluster-autoscaler", Kind::Deployment, INFRA, SYSTEM_CLUSTER, (1, 0), 100, 600, "eks/cluster-autoscaler:v1.30.1"),
    ("ingress-nginx", "ingress-nginx-controller", Kind::Deployment, INFRA, PLATFORM, (2, 20), 500, 512, "ingress-nginx/controller:v1.10.1"),
    ("monitoring", "prometheus-k8s", Kind::StatefulSet, INFRA, HIGH, (2, 0), 2000, 4096, "prometheus/prometheus:v2.53.0"),
    ("monitoring", "alertmanager-main", Kind::StatefulSet, INFRA, HIGH, (3, 0), 100, 256, "prometheus/alertmanager:v0.27.0"),
    ("logging", "loki", Kind::StatefulSet, INFRA, HIGH, (3, 0), 500, 1024, "grafana/loki:3.0.0"),
];

fn addon_workload(a: &Addon, nodes: usize, namespaces: &[Namespace], rng: &mut Rng) -> Workload {
    let &(ns, name, kind, pool, class, (min, per_1000), cpu_m, mem_mi, image) = a;
    let mut w = base_workload(namespace_index(namespaces, ns), name.to_string(), pool, rng);
    w.kind = kind;
    w.class = class;
    w.replicas = min.max((nodes as u32 * per_1000) / 1000);
    w.cpu_m = cpu_m;
    w.mem_mi = mem_mi;
    w.fixed_size = true;
    w.image = if image.starts_with("eks/") {
        format!("{EKS_REGISTRY}/{image}")
    } else {
        format!("registry.k8s.io/{image}")
    };
    w.anti = AntiAffinity::Preferred;
    w.spread = Spread::Zone { hard: false };
    w.pdb = Some(Budget::MaxUnavailable(1));
    w.service = true;
    w.grace = if kind == Kind::StatefulSet { 120 } else { 30 };
    w
}

/// The workload the fitting pod joins: a checkout API on the compute pool,
/// spread over zones and preferring distinct hosts.
fn anchor_workload(nodes: &[NodePlan], namespaces: &[Namespace], rng: &mut Rng) -> Workload {
    let compute = nodes.iter().filter(|n| n.pool == COMPUTE).count() as u32;
    let mut w = base_workload(
        namespace_index(namespaces, "checkout"),
        "checkout-api".into(),
        COMPUTE,
        rng,
    );
    w.replicas = (compute / 4).max(4);
    w.class = STANDARD;
    w.spread = Spread::Zone { hard: false };
    w.anti = AntiAffinity::Preferred;
    w.pdb = Some(Budget::MinAvailablePercent(80));
    w.sidecar = true;
    w.pre_stop = true;
    w.grace = 60;
    w.image = format!("{REGISTRY}/checkout/checkout-api:v4.12.3");
    w
}

/// Fixed workloads first, then team workloads until exactly `budget`
/// replicas exist. Pools are drawn in proportion to their remaining room.
fn make_workloads(
    budget: usize,
    nodes: &[NodePlan],
    namespaces: &[Namespace],
    rng: &mut Rng,
) -> Vec<Workload> {
    let mut list = vec![anchor_workload(nodes, namespaces, rng)];
    list.extend(
        ADDONS
            .iter()
            .map(|a| addon_workload(a, nodes.len(), namespaces, rng)),
    );
    let mut remaining = budget;
    for w in &mut list {
        w.replicas = w.replicas.min(remaining as u32);
        remaining -= w.replicas as usize;
    }
    list.retain(|w| w.replicas > 0);

    let pool_nodes: Vec<usize> = (0..SHAPES.len())
        .map(|p| nodes.iter().filter(|n| n.pool == p).count())
        .collect();
    let mut pool_room: Vec<f64> = pool_nodes
        .iter()
        .map(|&c| budget as f64 * c as f64 / nodes.len().max(1) as f64)
        .collect();
    for w in &list {
        pool_room[w.pool] -= w.replicas as f64;
    }
    let mut names: FxHashSet<(usize, String)> =
        list.iter().map(|w| (w.namespace, w.name.clone())).collect();
    let first_team = SYSTEM_NAMESPACES.len();
    while remaining > 0 {
        let namespace = first_team + rng.below(namespaces.len() - first_team);
        let pool = pick_pool(&pool_room, rng);
        let mut w = team_workload(
            namespace,
            namespaces,
            pool,
            pool_nodes[pool],
            &mut names,
            rng,
        );
        w.replicas = w.replicas.min(remaining as u32);
        remaining -= w.replicas as usize;
        pool_room[pool] -= w.replicas as f64;
        list.push(w);
    }
    list
}

/// A pool drawn with probability proportional to its remaining room.
fn pick_pool(room: &[f64], rng: &mut Rng) -> usize {
    let total: f64 = room.iter().map(|r| r.max(0.0) + 1.0).sum();
    let mut x = rng.unit() * total;
    for (p, r) in room.iter().enumerate() {
        x -= r.max(0.0) + 1.0;
        if x < 0.0 {
            return p;
        }
    }
    room.len() - 1
}

/// Replica counts are log-uniform: many small workloads, a few large ones.
fn draw_replicas(max: u32, rng: &mut Rng) -> u32 {
    ((max as f64).ln() * rng.unit()).exp().round().max(1.0) as u32
}

fn team_workload(
    namespace: usize,
    namespaces: &[Namespace],
    pool: usize,
    pool_nodes: usize,
    names: &mut FxHashSet<(usize, String)>,
    rng: &mut Rng,
) -> Workload {
    let domain = namespaces[namespace].domain;
    let component = rng.pick(&COMPONENTS);
    let mut name = format!("{domain}-{component}");
    let mut n = 2;
    while names.contains(&(namespace, name.clone())) {
        name = format!("{domain}-{component}-{n}");
        n += 1;
    }
    names.insert((namespace, name.clone()));

    let mut w = base_workload(namespace, name, pool, rng);
    w.kind = if rng.chance(10) {
        Kind::StatefulSet
    } else {
        Kind::Deployment
    };
    w.replicas = draw_replicas(if w.kind == Kind::StatefulSet { 30 } else { 200 }, rng);
    w.class = match rng.below(100) {
        0..=2 => PLATFORM,
        3..=22 => HIGH,
        23..=77 => STANDARD,
        78..=87 => BATCH,
        _ => BEST_EFFORT,
    };
    w.cpu_factor = rng.pick(&[0.25, 0.5, 0.5, 1.0, 1.0, 1.0, 1.5, 2.0, 3.0]);
    w.mem_factor = w.cpu_factor * rng.pick(&[0.5, 1.0, 1.0, 2.0]);
    if rng.chance(3) {
        w.cpu_factor = 0.0;
        w.mem_factor = 0.0;
        w.limits = Limits::None;
    } else {
        w.limits = match rng.below(10) {
            0..=2 => Limits::None,
            3..=7 => Limits::Memory,
            _ => Limits::Guaranteed,
        };
    }
    w.sidecar = rng.chance(15);
    if rng.chance(20) {
        let hard = rng.chance(50);
        w.spread = if rng.chance(50) {
            Spread::Zone { hard }
        } else {
            Spread::ZoneAndHost { hard }
        };
        w.match_label_keys = w.kind == Kind::Deployment && rng.chance(50);
    }
    if rng.chance(5) {
        w.anti = if rng.chance(50) {
            AntiAffinity::Required
        } else {
            AntiAffinity::Preferred
        };
    }
    if w.strict_hosts() {
        w.replicas = w.replicas.min((pool_nodes as u32 / 2).max(1));
    }
    if w.replicas >= 2 && rng.chance(35) {
        w.pdb = Some(match rng.below(4) {
            0 => Budget::MinAvailableAll,
            1 => Budget::MinAvailablePercent(rng.pick(&[50, 75, 90])),
            _ => Budget::MaxUnavailable(rng.pick(&[1, 1, 2])),
        });
    }
    w.service = w.kind == Kind::StatefulSet || rng.chance(70);
    w.image = format!(
        "{REGISTRY}/{domain}/{}:{}",
        w.name,
        if rng.chance(50) {
            format!(
                "v{}.{}.{}",
                rng.between(1, 9),
                rng.between(0, 40),
                rng.between(0, 20)
            )
        } else {
            rng.hex(7)
        }
    );
    w.pre_stop = rng.chance(25);
    w.grace = rng.pick(&[30, 30, 30, 60, 120]);
    if w.kind == Kind::StatefulSet {
        w.grace = w.grace.max(60);
    }
    w
}

/// Leaves the last replica of a few team workloads Pending.
fn mark_pending(workloads: &mut [Workload], pods: usize, rng: &mut Rng) {
    let team = 1 + ADDONS.len();
    if workloads.len() <= team {
        return;
    }
    for _ in 0..(pods / 5000).clamp(3, 40) {
        let w = &mut workloads[team + rng.below(workloads.len() - team)];
        if w.running() >= 2 {
            w.pending += 1;
        }
    }
}

/// Turns factors into requests so each pool ends up near [`TARGET_FILL`]
/// once DaemonSets and fixed workloads are counted.
fn size_requests(workloads: &mut [Workload], nodes: &[NodePlan]) {
    for (pool, shape) in SHAPES.iter().enumerate() {
        let in_pool = nodes.iter().filter(|n| n.pool == pool);
        let (mut cpu_room, mut mem_room) = (0.0, 0.0);
        for n in in_pool {
            cpu_room += TARGET_FILL * shape.alloc_cpu_m as f64 - n.cpu_m as f64;
            mem_room += TARGET_FILL * shape.alloc_mem_ki as f64 - n.mem_ki as f64;
        }
        let (mut cpu_weight, mut mem_weight) = (0.0, 0.0);
        for w in workloads.iter().filter(|w| w.pool == pool) {
            let running = w.running() as f64;
            if w.fixed_size {
                cpu_room -= running * w.pod_cpu_m() as f64;
                mem_room -= running * w.pod_mem_ki() as f64;
            } else {
                if w.sidecar && w.cpu_factor > 0.0 {
                    cpu_room -= running * SIDECAR_CPU_M as f64;
                    mem_room -= running * (SIDECAR_MEM_MI * 1024) as f64;
                }
                cpu_weight += running * w.cpu_factor;
                mem_weight += running * w.mem_factor;
            }
        }
        let cpu_base = if cpu_weight > 0.0 {
            cpu_room.max(0.0) / cpu_weight
        } else {
            0.0
        };
        let mem_base_mi = if mem_weight > 0.0 {
            mem_room.max(0.0) / mem_weight / 1024.0
        } else {
            0.0
        };
        for w in workloads
            .iter_mut()
            .filter(|w| w.pool == pool && !w.fixed_size)
        {
            if w.cpu_factor == 0.0 {
                continue;
            }
            w.cpu_m = nice_cpu(cpu_base * w.cpu_factor).min(shape.alloc_cpu_m / 3);
            w.mem_mi = nice_mem(mem_base_mi * w.mem_factor).min(shape.alloc_mem_ki / 1024 / 3);
        }
    }
}

/// Requests people write: 10m steps for small ones, 250m for whole cores.
fn nice_cpu(m: f64) -> i64 {
    let m = m.max(10.0);
    let step = if m >= 1000.0 {
        250.0
    } else if m >= 200.0 {
        50.0
    } else {
        10.0
    };
    ((m / step).round() * step) as i64
}

fn nice_mem(mi: f64) -> i64 {
    let mi = mi.max(32.0);
    let step = if mi >= 2048.0 {
        512.0
    } else if mi >= 256.0 {
        64.0
    } else {
        16.0
    };
    ((mi / step).round() * step) as i64
}

/// Binds replicas, biggest pods first, each to the least-loaded of a few
/// sampled nodes of its pool in its zone (zones round-robin): the
/// "power of d choices" keeps every node close to the target fill.
fn place(
    nodes: &mut [NodePlan],
    workloads: &[Workload],
    zones: usize,
    rng: &mut Rng,
) -> Vec<Vec<Option<u32>>> {
    let mut by_pool_zone = vec![vec![Vec::new(); zones]; SHAPES.len()];
    let mut by_pool = vec![Vec::new(); SHAPES.len()];
    for (i, n) in nodes.iter().enumerate() {
        by_pool_zone[n.pool][n.zone].push(i as u32);
        by_pool[n.pool].push(i as u32);
    }
    let mut order: Vec<usize> = (0..workloads.len()).collect();
    order.sort_by_key(|&w| Reverse((workloads[w].pod_cpu_m(), workloads[w].pod_mem_ki())));
    let mut placements = vec![Vec::new(); workloads.len()];
    let mut used_by = vec![u32::MAX; nodes.len()];
    for w in order {
        let wl = &workloads[w];
        let start = rng.below(zones);
        for r in 0..wl.running() as usize {
            let zone_nodes = &by_pool_zone[wl.pool][(start + r) % zones];
            let target = Target {
                workload: w as u32,
                cpu_m: wl.pod_cpu_m(),
                mem_ki: wl.pod_mem_ki(),
                strict: wl.strict_hosts(),
            };
            let node = pick_node(nodes, &used_by, zone_nodes, &by_pool[wl.pool], &target, rng);
            if let Some(n) = node {
                let plan = &mut nodes[n as usize];
                plan.charge(target.cpu_m, target.mem_ki);
                plan.sidecar |= wl.sidecar;
                if plan.images.len() < 3 && !plan.images.contains(&target.workload) {
                    plan.images.push(target.workload);
                }
                used_by[n as usize] = target.workload;
            }
            placements[w].push(node);
        }
        placements[w].extend(std::iter::repeat_n(None, wl.pending as usize));
    }
    placements
}

/// One replica looking for a node.
struct Target {
    workload: u32,
    cpu_m: i64,
    mem_ki: i64,
    strict: bool,
}

fn pick_node(
    nodes: &[NodePlan],
    used_by: &[u32],
    zone_nodes: &[u32],
    pool_nodes: &[u32],
    t: &Target,
    rng: &mut Rng,
) -> Option<u32> {
    let ok = |n: u32, fresh: bool| {
        nodes[n as usize].fits(t.cpu_m, t.mem_ki) && (!fresh || used_by[n as usize] != t.workload)
    };
    if !zone_nodes.is_empty() {
        // Fresh nodes first, then the least loaded.
        let best = (0..6)
            .map(|_| rng.pick(zone_nodes))
            .filter(|&n| ok(n, t.strict))
            .min_by(|&a, &b| {
                let key = |n: u32| (used_by[n as usize] == t.workload, nodes[n as usize].load());
                let (ka, kb) = (key(a), key(b));
                ka.0.cmp(&kb.0).then(ka.1.total_cmp(&kb.1))
            });
        if best.is_some() {
            return best;
        }
    }
    let scan = |list: &[u32], fresh: bool, rng: &mut Rng| {
        if list.is_empty() {
            return None;
        }
        let offset = rng.below(list.len());
        (0..list.len())
            .map(|i| list[(offset + i) % list.len()])
            .find(|&n| ok(n, fresh))
    };
    scan(zone_nodes, true, rng)
        .or_else(|| scan(pool_nodes, true, rng))
        .or_else(|| {
            if t.strict {
                None
            } else {
                scan(pool_nodes, false, rng)
            }
        })
}

// ---------------------------------------------------------------------------
// Writing.

/// Streams the items of a `List`, one compact object per line.
struct ListWriter<W: Write> {
    w: W,
    first: bool,
}

impl<W: Write> ListWriter<W> {
    fn new(mut w: W) -> io::Result<Self> {
        w.write_all(b"{\"apiVersion\":\"v1\",\"kind\":\"List\",\"metadata\":{\"resourceVersion\":\"\"},\"items\":[\n")?;
        Ok(ListWriter { w, first: true })
    }

    fn item(&mut self, v: &Value) -> io::Result<()> {
        if !self.first {
            self.w.write_all(b",\n")?;
        }
        self.first = false;
        serde_json::to_writer(&mut self.w, v)?;
        Ok(())
    }

    fn finish(mut self) -> io::Result<()> {
        self.w.write_all(b"\n]}\n")?;
        self.w.flush()
    }
}

/// Identities made while writing: UIDs, pod names, resource versions.
struct Ids {
    rng: Rng,
    /// UIDs and volume IDs of claims and volumes: apart, so the other
    /// objects' names and UIDs stay as they were before storage was added.
    storage: Rng,
    version: u64,
    pod_ip: u32,
    /// Pod names given so far: a random suffix that repeats one (5,000
    /// DaemonSet pods make that likely) is drawn again, as the API server's
    /// `generateName` retries, so no name is defined twice.
    pod_names: rustc_hash::FxHashSet<String>,
}

impl Ids {
    /// `<prefix>-<5 random characters>`, unique among the pods written to
    /// `namespace`.
    fn pod_name(&mut self, namespace: &str, prefix: &str) -> String {
        loop {
            let name = format!("{prefix}-{}", self.rng.safe_chars(5));
            if self.pod_names.insert(format!("{namespace}/{name}")) {
                return name;
            }
        }
    }

    fn version(&mut self) -> String {
        self.version += 1;
        self.version.to_string()
    }

    fn pod_ip(&mut self) -> String {
        self.pod_ip += 1;
        let c = self.pod_ip;
        format!("100.{}.{}.{}", 64 + (c >> 16) % 64, (c >> 8) & 255, c & 255)
    }
}

/// Writes the cluster as one kubectl-style JSON `List`: PriorityClasses,
/// Namespaces, Nodes, Pods, ReplicaSets, StatefulSets, DaemonSets, Services
/// and PodDisruptionBudgets. Items are streamed, never held all at once.
pub fn write_cluster_json(w: &mut impl Write, spec: &SynthSpec) -> io::Result<()> {
    let plan = Plan::new(spec);
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
    out.finish()
}

/// `2024-10-01T00:00:00Z` from Unix seconds (proleptic Gregorian, UTC).
pub(crate) fn rfc3339(secs: i64) -> String {
    let (days, rem) = (secs.div_euclid(DAY), secs.rem_euclid(DAY));
    // Howard Hinnant's civil_from_days.
    let z = days + 719_468;
    let era = z.div_euclid(146_097);
    let doe = z - era * 146_097;
    let yoe = (doe - doe / 1460 + doe / 36_524 - doe / 146_096) / 365;
    let doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    let mp = (5 * doy + 2) / 153;
    let day = doy - (153 * mp + 2) / 5 + 1;
    let month = if mp < 10 { mp + 3 } else { mp - 9 };
    let year = yoe + era * 400 + i64::from(month <= 2);
    format!(
        "{year:04}-{month:02}-{day:02}T{:02}:{:02}:{:02}Z",
        rem / 3600,
        rem / 60 % 60,
        rem % 60
    )
}

fn cpu_quantity(m: i64) -> String {
    if m % 1000 == 0 {
        (m / 1000).to_string()
    } else {
        format!("{m}m")
    }
}

fn mem_quantity(mi: i64) -> String {
    if mi % 1024 == 0 {
        format!("{}Gi", mi / 1024)
    } else {
        format!("{mi}Mi")
    }
}

/// The CSI driver of every synthetic volume (EBS-like, zonal).
const CSI_DRIVER: &str = "ebs.csi.aws.com";
/// Its topology key on nodes and volumes.
const CSI_ZONE_KEY: &str = "topology.ebs.csi.aws.com/zone";
/// Volumes the driver can attach per node (`CSINode` allocatable count).
const CSI_ATTACH_LIMIT: i32 = 25;
const STORAGE_CLASS: &str = "gp3";
/// Every StatefulSet has one claim template of this name.
const CLAIM_TEMPLATE: &str = "data";

/// A StatefulSet's claim size: 10–100 GiB by its name.
fn claim_gi(w: &Workload) -> u64 {
    10 + fnv(w.name.as_bytes()) % 10 * 10
}

fn claim_spec(w: &Workload) -> Value {
    json!({
        "accessModes": ["ReadWriteOnce"],
        "resources": {"requests": {"storage": format!("{}Gi", claim_gi(w))}},
        "storageClassName": STORAGE_CLASS,
        "volumeMode": "Filesystem",
    })
}

/// The default class: zonal, WaitForFirstConsumer, allowed in every zone.
fn storage_class_json(plan: &Plan, ids: &mut Ids) -> Value {
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

fn csi_node_json(node: &NodePlan, ids: &mut Ids) -> Value {
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
fn claim_json(
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
fn metadata(
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

fn priority_class_json(c: &Class, ids: &mut Ids) -> Value {
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

fn namespace_json(name: &str, ids: &mut Ids) -> Value {
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

fn node_json(plan: &Plan, node: &NodePlan, ids: &mut Ids) -> Value {
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
fn node_images(plan: &Plan, node: &NodePlan) -> Vec<Value> {
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
fn image_size(image: &str, hash: u64) -> i64 {
    if image == SIDECAR_IMAGE {
        160_000_000
    } else {
        20_000_000 + (hash % 600_000_000) as i64
    }
}

/// FNV-1a, for stable per-name values (image sizes and digests).
fn fnv(bytes: &[u8]) -> u64 {
    bytes.iter().fold(0xcbf2_9ce4_8422_2325, |h, &b| {
        (h ^ b as u64).wrapping_mul(0x100_0000_01b3)
    })
}

/// A container with its requests (none for BestEffort) and limits.
fn container_json(
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

fn qos_class(w: &Workload) -> &'static str {
    match (w.best_effort(), w.limits) {
        (true, _) => "BestEffort",
        (false, Limits::Guaranteed) => "Guaranteed",
        _ => "Burstable",
    }
}

fn selector_labels(w: &Workload) -> Value {
    json!({"app": w.name})
}

/// Labels of the pod template (what controllers' selectors match).
fn template_labels(w: &Workload) -> Map<String, Value> {
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

fn spread_json(w: &Workload) -> Vec<Value> {
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

fn anti_affinity_json(w: &Workload) -> Option<Value> {
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
fn pod_spec_json(w: &Workload) -> Value {
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

fn workload_pod_json(
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
fn pod_created(after: i64, rng: &mut Rng) -> i64 {
    after + rng.between(60, (NOW - 600 - after).max(60))
}

fn running_status(w: &Workload, node: &NodePlan, created: i64, ids: &mut Ids) -> Value {
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

fn pending_status(w: &Workload, plan: &Plan, created: i64) -> Value {
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

fn daemon_pod_json(
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
fn controller_json(plan: &Plan, w: &Workload, uid: &str, ids: &mut Ids) -> Value {
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

fn daemon_set_json(plan: &Plan, d: &Daemon, uid: &str, ids: &mut Ids) -> Value {
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

fn service_json(plan: &Plan, w: &Workload, ids: &mut Ids) -> Value {
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
fn pdb_json(plan: &Plan, w: &Workload, budget: Budget, ids: &mut Ids) -> Value {
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

// ---------------------------------------------------------------------------
// Incoming pods.

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

#[cfg(test)]
mod tests {
    use super::*;
    use crate::engine::status::{Code, Plugin};
    use crate::engine::{Outcome, place};
    use crate::model::{Cluster, Pod};
    use crate::source::file::{load_pod_bytes, load_snapshot_bytes};

    fn small_json() -> Vec<u8> {
        let mut bytes = Vec::new();
        write_cluster_json(&mut bytes, &SynthSpec::small()).expect("write to memory");
        bytes
    }

    /// Loaded once per test binary: loading dominates the tests' time.
    fn small_cluster() -> Cluster {
        static CLUSTER: std::sync::OnceLock<Cluster> = std::sync::OnceLock::new();
        CLUSTER
            .get_or_init(|| {
                load_snapshot_bytes(&small_json(), "synth.json")
                    .expect("loads")
                    .0
            })
            .clone()
    }

    fn pod(cluster: &mut Cluster, yaml: &str) -> Pod {
        load_pod_bytes(yaml.as_bytes(), "pod.yaml", &mut cluster.interner).expect("pod loads")
    }

    #[test]
    fn cluster_loads_with_the_requested_counts() {
        let spec = SynthSpec::small();
        let cluster = small_cluster();
        assert_eq!(cluster.nodes.len(), spec.nodes);
        assert_eq!(cluster.pods.len(), spec.pods);
        let pending = cluster.pods.iter().filter(|p| p.node.is_none()).count();
        assert!((1..=40).contains(&pending), "{pending} pending pods");
        assert_eq!(cluster.num_scheduled_pods(), spec.pods - pending);
        assert_eq!(
            cluster
                .priority_classes
                .iter()
                .filter(|c| c.global_default)
                .count(),
            1
        );
        assert!(
            cluster
                .pdbs
                .iter()
                .any(|p| p.disruptions_allowed == Some(0))
        );
        assert!(cluster.pdbs.iter().any(|p| p.disruptions_allowed > Some(0)));
        assert!(
            cluster
                .pods
                .iter()
                .any(|p| !p.spread_constraints.is_empty())
        );
        assert!(cluster.pods.iter().any(|p| p.has_required_anti_affinity()));
        assert!(
            cluster
                .pods
                .iter()
                .any(|p| !p.termination.pre_stop_containers.is_empty())
        );
        assert_eq!(cluster.nodes.iter().filter(|n| n.unschedulable).count(), 2);
    }

    #[test]
    fn nodes_are_sixty_to_ninety_percent_allocated() {
        let cluster = small_cluster();
        for (node, info) in cluster.nodes.iter().zip(&cluster.node_infos) {
            let cpu = info.requested.milli_cpu as f64 / node.allocatable.milli_cpu as f64;
            let mem = info.requested.memory as f64 / node.allocatable.memory as f64;
            assert!(
                (0.55..=0.92).contains(&cpu.max(mem)),
                "{}: cpu {cpu:.2} memory {mem:.2}",
                node.name
            );
            assert!(info.pods.len() <= 110);
        }
    }

    #[test]
    fn same_seed_same_bytes() {
        assert_eq!(small_json(), small_json());
        let mut other = Vec::new();
        write_cluster_json(
            &mut other,
            &SynthSpec {
                seed: 7,
                ..SynthSpec::small()
            },
        )
        .unwrap();
        assert_ne!(other, small_json());
    }

    #[test]
    fn fitting_pod_schedules_on_the_compute_pool_with_every_score_at_work() {
        let spec = SynthSpec::small();
        let mut cluster = small_cluster();
        let incoming = pod(&mut cluster, &fitting_pod_yaml(&spec));
        let answer = place(&cluster, &incoming, &crate::engine::Scheduler::default());
        assert_eq!(answer.outcome, Outcome::Scheduled, "{}", answer.message);
        let share = answer.feasible.len() as f64 / spec.nodes as f64;
        assert!(
            (0.10..=0.40).contains(&share),
            "{} feasible",
            answer.feasible.len()
        );
        let pool = cluster.interner.lookup("node-pool").unwrap();
        let compute = cluster.interner.lookup("compute").unwrap();
        assert!(
            answer
                .feasible
                .iter()
                .all(|&n| cluster.node(n).labels.get(pool) == Some(compute))
        );
        // NodeAffinity, PodTopologySpread, InterPodAffinity, NodeResourcesFit,
        // BalancedAllocation and ImageLocality each score some node above zero.
        use crate::engine::status::Plugin;
        for plugin in [
            Plugin::NodeAffinity,
            Plugin::PodTopologySpread,
            Plugin::InterPodAffinity,
            Plugin::NodeResourcesFit,
            Plugin::NodeResourcesBalancedAllocation,
            Plugin::ImageLocality,
        ] {
            let column = answer
                .score_plugins()
                .iter()
                .position(|(p, _)| *p == plugin)
                .expect("a default score plugin");
            assert!(
                answer.scores.iter().any(|s| s.plugins[column] > 0),
                "score plugin {} is idle",
                plugin.as_str()
            );
        }
        // Spread and anti-affinity make the scores differ between nodes.
        let totals: FxHashSet<i64> = answer.scores.iter().map(|s| s.total).collect();
        assert!(totals.len() > 1);
    }

    #[test]
    fn preempting_pod_preempts_on_most_nodes() {
        let spec = SynthSpec::small();
        let mut cluster = small_cluster();
        let incoming = pod(&mut cluster, &preempting_pod_yaml(&spec));
        let answer = place(&cluster, &incoming, &crate::engine::Scheduler::default());
        assert_eq!(answer.outcome, Outcome::Preempt, "{}", answer.message);
        assert!(answer.feasible.is_empty());
        let insufficient_cpu = answer
            .failures
            .iter()
            .filter(|f| {
                f.rejection.code == Code::Unschedulable
                    && f.rejection.reasons.iter().any(|r| r == "Insufficient cpu")
            })
            .count();
        let unresolvable = answer
            .failures
            .iter()
            .filter(|f| f.rejection.code == Code::UnschedulableAndUnresolvable)
            .count();
        assert_eq!(insufficient_cpu + unresolvable, spec.nodes);
        assert!(
            (0.05..=0.15).contains(&(unresolvable as f64 / spec.nodes as f64)),
            "{unresolvable} unresolvable"
        );
        assert!(
            answer
                .failures
                .iter()
                .any(|f| f.rejection.plugin == Plugin::TaintToleration)
        );
        let preemption = answer.preemption.expect("preemption ran");
        assert!(preemption.candidates.len() as f64 >= 0.8 * insufficient_cpu as f64);
        assert!(!preemption.victims.is_empty());
        let victim_priority = preemption
            .victims
            .iter()
            .map(|&v| cluster.pod(v).priority_value())
            .max()
            .unwrap();
        assert!(victim_priority < CLASSES[PLATFORM].value);
    }

    #[test]
    fn stateful_set_pods_have_zonal_claims_the_volume_plugins_read() {
        let cluster = small_cluster();
        let storage = &cluster.storage;
        assert_eq!(storage.csi_nodes.len(), cluster.nodes.len());
        assert_eq!(
            storage.default_class().map(|c| &*c.name),
            Some(STORAGE_CLASS)
        );
        let zone = cluster.interner.lookup(CSI_ZONE_KEY).unwrap();
        let mut claimed = 0;
        for pod in cluster.pods.iter().filter(|p| !p.volumes.is_empty()) {
            claimed += 1;
            let name = pod.claim_names().next().unwrap();
            let claim = storage.claim(pod.namespace, name).expect("claim exists");
            let Some(node) = pod.node else {
                assert!(!claim.is_fully_bound());
                continue;
            };
            let pv = storage.volume(&claim.volume_name).expect("bound volume");
            assert!(claim.is_fully_bound());
            let node_zone = cluster.node(node).labels.get(zone);
            assert!(
                crate::engine::plugins::volumebinding::binder::check_node_affinity(
                    pv,
                    &cluster.node(node).labels,
                    &cluster.interner
                ),
                "{name} in {:?}",
                node_zone.map(|z| cluster.interner.resolve(z))
            );
        }
        assert!(claimed > 50, "{claimed} pods with claims");
        // Some StatefulSet keeps its next replica's claim template.
        assert!(cluster.owners.iter().any(|o| {
            o.stateful
                .as_ref()
                .is_some_and(|s| s.claim_templates.len() == 1)
        }));
    }

    #[test]
    fn timestamps_are_rfc3339_utc() {
        assert_eq!(rfc3339(NOW), "2024-10-01T00:00:00Z");
        assert_eq!(rfc3339(0), "1970-01-01T00:00:00Z");
        assert_eq!(rfc3339(951_827_696), "2000-02-29T12:34:56Z");
    }
}
