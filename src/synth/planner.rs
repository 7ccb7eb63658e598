//! The plan: every decision (nodes, workloads, requests, placement) made
//! before anything is written, so the writers only render it.

use super::*;

pub(super) struct NodePlan {
    pub(super) name: String,
    pub(super) ip: [u8; 4],
    pub(super) zone: usize,
    pub(super) pool: usize,
    pub(super) cordoned: bool,
    pub(super) spot: bool,
    pub(super) created: i64,
    pub(super) cpu_m: i64,
    pub(super) mem_ki: i64,
    pub(super) pods: u32,
    /// Workloads whose images the node reports in `status.images`.
    pub(super) images: Vec<u32>,
    /// Runs a pod with the mesh sidecar (so it has the sidecar image).
    pub(super) sidecar: bool,
    /// The most of its cpu or memory this node gets requested.
    pub(super) fill_cap: f64,
}

impl NodePlan {
    pub(super) fn shape(&self) -> &'static Shape {
        &SHAPES[self.pool]
    }

    /// The fuller of the cpu and memory fractions, relative to the cap.
    pub(super) fn load(&self) -> f64 {
        let s = self.shape();
        let cpu = self.cpu_m as f64 / s.alloc_cpu_m as f64;
        cpu.max(self.mem_ki as f64 / s.alloc_mem_ki as f64) / self.fill_cap
    }

    pub(super) fn fits(&self, cpu_m: i64, mem_ki: i64) -> bool {
        let s = self.shape();
        self.pods < MAX_PODS
            && (self.cpu_m + cpu_m) as f64 <= self.fill_cap * s.alloc_cpu_m as f64
            && (self.mem_ki + mem_ki) as f64 <= self.fill_cap * s.alloc_mem_ki as f64
    }

    pub(super) fn charge(&mut self, cpu_m: i64, mem_ki: i64) {
        self.cpu_m += cpu_m;
        self.mem_ki += mem_ki;
        self.pods += 1;
    }
}

#[derive(Clone, Copy, PartialEq, Eq)]
pub(super) enum Kind {
    Deployment,
    StatefulSet,
}

/// `topologySpreadConstraints` of a workload; `hard` is DoNotSchedule.
#[derive(Clone, Copy, PartialEq, Eq)]
pub(super) enum Spread {
    None,
    Zone { hard: bool },
    ZoneAndHost { hard: bool },
}

#[derive(Clone, Copy, PartialEq, Eq)]
pub(super) enum AntiAffinity {
    None,
    Required,
    Preferred,
}

#[derive(Clone, Copy, PartialEq, Eq)]
pub(super) enum Limits {
    None,
    Memory,
    /// Limits equal to requests: the Guaranteed QoS class.
    Guaranteed,
}

#[derive(Clone, Copy, PartialEq, Eq)]
pub(super) enum Budget {
    MaxUnavailable(i32),
    MinAvailablePercent(i32),
    /// `minAvailable` equal to the replicas: never allows a disruption.
    MinAvailableAll,
}

pub(super) struct Workload {
    pub(super) namespace: usize,
    pub(super) name: String,
    pub(super) kind: Kind,
    pub(super) replicas: u32,
    /// Replicas left Pending (the last ones).
    pub(super) pending: u32,
    pub(super) pool: usize,
    pub(super) class: usize,
    /// Main container requests; both zero for BestEffort pods.
    pub(super) cpu_m: i64,
    pub(super) mem_mi: i64,
    /// Relative sizes, turned into requests per pool by `size_requests`.
    pub(super) cpu_factor: f64,
    pub(super) mem_factor: f64,
    /// Requests fixed up front (system workloads), not sized per pool.
    pub(super) fixed_size: bool,
    pub(super) limits: Limits,
    pub(super) sidecar: bool,
    pub(super) spread: Spread,
    pub(super) match_label_keys: bool,
    pub(super) anti: AntiAffinity,
    pub(super) pdb: Option<Budget>,
    pub(super) service: bool,
    pub(super) hash: String,
    pub(super) image: String,
    pub(super) pre_stop: bool,
    pub(super) grace: i64,
    pub(super) created: i64,
}

impl Workload {
    pub(super) fn pod_cpu_m(&self) -> i64 {
        self.cpu_m
            + if self.has_sidecar_requests() {
                SIDECAR_CPU_M
            } else {
                0
            }
    }

    pub(super) fn pod_mem_ki(&self) -> i64 {
        (self.mem_mi
            + if self.has_sidecar_requests() {
                SIDECAR_MEM_MI
            } else {
                0
            })
            * 1024
    }

    /// BestEffort pods' sidecars request nothing either.
    pub(super) fn has_sidecar_requests(&self) -> bool {
        self.sidecar && !self.best_effort()
    }

    pub(super) fn running(&self) -> u32 {
        self.replicas - self.pending
    }

    /// Replicas must land on distinct nodes (required anti-affinity or a
    /// DoNotSchedule hostname spread).
    pub(super) fn strict_hosts(&self) -> bool {
        self.anti == AntiAffinity::Required || self.spread == Spread::ZoneAndHost { hard: true }
    }

    pub(super) fn best_effort(&self) -> bool {
        self.cpu_m == 0 && self.mem_mi == 0
    }
}

pub(super) struct Namespace {
    pub(super) name: String,
    pub(super) domain: &'static str,
}

pub(super) struct Plan {
    pub(super) zones: usize,
    pub(super) namespaces: Vec<Namespace>,
    pub(super) nodes: Vec<NodePlan>,
    pub(super) daemons: usize,
    pub(super) workloads: Vec<Workload>,
    /// Per workload, the node of each replica (`None`: Pending).
    pub(super) placements: Vec<Vec<Option<u32>>>,
}

/// The workload the fitting pod belongs to.
pub(super) const ANCHOR: usize = 0;

impl Plan {
    pub(super) fn new(spec: &SynthSpec) -> Plan {
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

pub(super) fn zone_name(zone: usize) -> String {
    format!("{REGION}{}", (b'a' + zone as u8) as char)
}

/// As many DaemonSets (up to 4) as the pod budget leaves room for.
pub(super) fn daemon_count(spec: &SynthSpec) -> usize {
    if spec.nodes == 0 {
        return 0;
    }
    (spec.pods / spec.nodes / 5).min(DAEMONS.len())
}

/// Nodes round-robin over zones, pools by [`POOL_PATTERN`], sorted by name
/// as `kubectl get nodes` lists them.
pub(super) fn make_nodes(n: usize, zones: usize, rng: &mut Rng) -> Vec<NodePlan> {
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
pub(super) fn make_namespaces(pods: usize) -> Vec<Namespace> {
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

pub(super) fn namespace_index(namespaces: &[Namespace], name: &str) -> usize {
    namespaces
        .iter()
        .position(|n| n.name == name)
        .expect("known namespace")
}

/// A workload with sensible defaults, to be adjusted by the caller.
pub(super) fn base_workload(
    namespace: usize,
    name: String,
    pool: usize,
    rng: &mut Rng,
) -> Workload {
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
pub(super) type Addon = (
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
pub(super) const ADDONS: [Addon; 7] = [
    ("kube-system", "coredns", Kind::Deployment, GENERAL, SYSTEM_CLUSTER, (2, 10), 100, 70, "eks/coredns:v1.11.1-eksbuild.9"),
    ("kube-system", "metrics-server", Kind::Deployment, INFRA, SYSTEM_CLUSTER, (2, 0), 100, 200, "eks/metrics-server:v0.7.1-eksbuild.1"),
    ("kube-system", "cluster-autoscaler", Kind::Deployment, INFRA, SYSTEM_CLUSTER, (1, 0), 100, 600, "eks/cluster-autoscaler:v1.30.1"),
    ("ingress-nginx", "ingress-nginx-controller", Kind::Deployment, INFRA, PLATFORM, (2, 20), 500, 512, "ingress-nginx/controller:v1.10.1"),
    ("monitoring", "prometheus-k8s", Kind::StatefulSet, INFRA, HIGH, (2, 0), 2000, 4096, "prometheus/prometheus:v2.53.0"),
    ("monitoring", "alertmanager-main", Kind::StatefulSet, INFRA, HIGH, (3, 0), 100, 256, "prometheus/alertmanager:v0.27.0"),
    ("logging", "loki", Kind::StatefulSet, INFRA, HIGH, (3, 0), 500, 1024, "grafana/loki:3.0.0"),
];

pub(super) fn addon_workload(
    a: &Addon,
    nodes: usize,
    namespaces: &[Namespace],
    rng: &mut Rng,
) -> Workload {
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
pub(super) fn anchor_workload(
    nodes: &[NodePlan],
    namespaces: &[Namespace],
    rng: &mut Rng,
) -> Workload {
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
pub(super) fn make_workloads(
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
pub(super) fn pick_pool(room: &[f64], rng: &mut Rng) -> usize {
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
pub(super) fn draw_replicas(max: u32, rng: &mut Rng) -> u32 {
    ((max as f64).ln() * rng.unit()).exp().round().max(1.0) as u32
}

pub(super) fn team_workload(
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
pub(super) fn mark_pending(workloads: &mut [Workload], pods: usize, rng: &mut Rng) {
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
pub(super) fn size_requests(workloads: &mut [Workload], nodes: &[NodePlan]) {
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
pub(super) fn nice_cpu(m: f64) -> i64 {
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

pub(super) fn nice_mem(mi: f64) -> i64 {
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
pub(super) fn place(
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
pub(super) struct Target {
    pub(super) workload: u32,
    pub(super) cpu_m: i64,
    pub(super) mem_ki: i64,
    pub(super) strict: bool,
}

pub(super) fn pick_node(
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
