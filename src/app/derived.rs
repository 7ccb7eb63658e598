//! Everything the views show that depends only on the loaded cluster,
//! computed once (on the loading thread) so no frame walks 150k pods.

use rustc_hash::FxHashMap;

use crate::model::pod::PreemptionPolicy;
use crate::model::policy::SelectorOwnerKind;
use crate::model::{Cluster, NodeId, PodId, Sym};

use super::format;
use super::table::SortOrders;

pub const ZONE_KEY: &str = "topology.kubernetes.io/zone";
pub const HOSTNAME_KEY: &str = "kubernetes.io/hostname";
pub const REGION_KEY: &str = "topology.kubernetes.io/region";
/// Shown for nodes without a zone label.
pub const NO_ZONE: &str = "(no zone)";

/// Requested vs allocatable for one resource.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Usage {
    pub requested: i64,
    pub allocatable: i64,
}

impl Usage {
    pub fn percent(&self) -> u16 {
        format::percent(self.requested, self.allocatable)
    }
    pub fn add(&mut self, o: Usage) {
        self.requested = self.requested.saturating_add(o.requested);
        self.allocatable = self.allocatable.saturating_add(o.allocatable);
    }
    /// What is left, never negative.
    pub fn free(&self) -> i64 {
        self.allocatable.saturating_sub(self.requested).max(0)
    }
}

#[derive(Clone, Debug, Default)]
pub struct ZoneSummary {
    pub name: String,
    pub nodes: Vec<NodeId>,
    pub cordoned: usize,
    pub tainted: usize,
    pub pods: usize,
    pub cpu: Usage,
    pub memory: Usage,
    /// Σ per-node free capacity (a node over-committed counts as 0).
    pub free_cpu: i64,
    pub free_memory: i64,
}

#[derive(Clone, Debug)]
pub struct NodeRow {
    pub id: NodeId,
    pub name: String,
    pub zone: usize,
    pub status: String,
    pub pods: usize,
    pub cpu: Usage,
    pub memory: Usage,
    pub taints: String,
    pub created: Option<i64>,
    /// Every column, then the labels as `k=v` (from byte `labels_at`), for
    /// the filter.
    pub search: String,
    pub labels_at: usize,
}

#[derive(Clone, Debug)]
pub struct PodRow {
    pub id: PodId,
    pub namespace: String,
    pub name: String,
    pub node: String,
    pub phase: &'static str,
    pub priority: i32,
    pub cpu: i64,
    pub memory: i64,
    /// `Kind/name` of the controller.
    pub owner: String,
    pub created: Option<i64>,
    /// Every column (namespace/name, phase, node, priority and class,
    /// requests, owner), then the labels as `k=v` (from byte `labels_at`),
    /// for the filter.
    pub search: String,
    pub labels_at: usize,
}

/// One priority value in use (by a class or a pod).
#[derive(Clone, Debug, Default)]
pub struct TierRow {
    pub value: i32,
    /// The PriorityClass of the row; empty for pods at this value whose
    /// class is not (or no longer) at it.
    pub classes: String,
    pub global_default: bool,
    /// The class has `preemptionPolicy: Never`.
    pub never: bool,
    pub pods: usize,
    pub pending: usize,
    pub cpu: i64,
    pub memory: i64,
    /// Per zone (same order as [`Derived::zones`]).
    pub per_zone: Vec<TierZone>,
}

#[derive(Clone, Copy, Debug, Default)]
pub struct TierZone {
    pub pods: usize,
    pub cpu: i64,
    pub memory: i64,
    /// Requests of pods covered by a PDB with no disruptions left.
    pub protected_cpu: i64,
    pub protected_memory: i64,
}

/// A ReplicaSet or StatefulSet, offered in the Skew view.
#[derive(Clone, Debug)]
pub struct Workload {
    pub owner: usize,
    pub label: String,
    pub kind: &'static str,
    pub pods: usize,
    /// A pod it owns, whose spread constraints stand for the template's.
    pub sample_pod: Option<PodId>,
}

#[derive(Clone, Debug, Default)]
pub struct Derived {
    pub zones: Vec<ZoneSummary>,
    /// Zone index of each node.
    pub node_zone: Vec<usize>,
    pub pending: Vec<PodId>,
    /// Pods bound to a node the snapshot lacks: not pending, counted on no
    /// node ([`Cluster::absent_node_of`]).
    pub on_absent_nodes: Vec<PodId>,
    pub scheduled: usize,
    pub node_rows: Vec<NodeRow>,
    pub pod_rows: Vec<PodRow>,
    pub tiers: Vec<TierRow>,
    pub workloads: Vec<Workload>,
    /// Node label keys to spread over: zone, hostname, region, then the rest.
    pub topology_keys: Vec<Sym>,
    /// What the Skew view lists: every workload, then the pending pods
    /// with spread constraints of their own.
    pub skew_subjects: Vec<super::skew::Subject>,
    /// Their labels (for the fuzzy filter), in the same order.
    pub skew_labels: Vec<String>,
    /// Workloads at or over a DoNotSchedule maxSkew, or one replica away.
    pub skew_alerts: Vec<super::skew::SkewAlert>,
    /// Per pod: covered by a PDB with no disruptions left.
    pub protected: Vec<bool>,
    pub node_orders: SortOrders,
    pub pod_orders: SortOrders,
}

impl Derived {
    pub fn build(cluster: &Cluster) -> Derived {
        let mut d = Derived::default();
        d.build_zones(cluster);
        d.build_node_rows(cluster);
        // The two heavy parts side by side: the pod table with its sort
        // orders, and the workloads with Skew's fleet list (an engine
        // PreFilter per spreading workload).
        let (mut pods, mut fleet) = (Derived::default(), Derived::default());
        rayon::join(
            || {
                pods.build_pod_rows(cluster);
                pods.pod_orders = SortOrders::pods(&pods.pod_rows);
            },
            || {
                fleet.build_workloads(cluster);
                fleet.skew_alerts = super::skew::fleet(cluster, &fleet.workloads);
            },
        );
        d.pod_rows = pods.pod_rows;
        d.pod_orders = pods.pod_orders;
        d.scheduled = pods.scheduled;
        d.pending = pods.pending;
        d.on_absent_nodes = pods.on_absent_nodes;
        d.workloads = fleet.workloads;
        d.skew_alerts = fleet.skew_alerts;
        d.build_tiers(cluster);
        d.build_topology_keys(cluster);
        d.build_skew_subjects(cluster);
        let zone_names: Vec<String> = d.zones.iter().map(|z| z.name.clone()).collect();
        d.node_orders = SortOrders::nodes(&d.node_rows, &zone_names);
        d
    }

    fn build_zones(&mut self, cluster: &Cluster) {
        let zone_key = cluster.interner.lookup(ZONE_KEY);
        let mut by_name: FxHashMap<String, usize> = FxHashMap::default();
        let mut names: Vec<String> = cluster
            .nodes
            .iter()
            .map(|n| {
                zone_key
                    .and_then(|k| n.labels.get(k))
                    .map(|v| cluster.interner.resolve(v).to_string())
            })
            .map(|z| z.unwrap_or_else(|| NO_ZONE.to_string()))
            .collect();
        let mut sorted: Vec<String> = names.clone();
        sorted.sort();
        sorted.dedup();
        // The label-less bucket goes last.
        if let Some(i) = sorted.iter().position(|z| z == NO_ZONE) {
            let z = sorted.remove(i);
            sorted.push(z);
        }
        for (i, z) in sorted.iter().enumerate() {
            by_name.insert(z.clone(), i);
            self.zones.push(ZoneSummary {
                name: z.clone(),
                ..Default::default()
            });
        }
        for (id, name) in names.drain(..).enumerate() {
            let zi = by_name[&name];
            self.node_zone.push(zi);
            let node = &cluster.nodes[id];
            let info = &cluster.node_infos[id];
            let z = &mut self.zones[zi];
            z.nodes.push(id as NodeId);
            z.cordoned += node.unschedulable as usize;
            z.tainted += (!node.taints.is_empty() && !node.unschedulable) as usize;
            z.pods += info.pods.len();
            let cpu = Usage {
                requested: info.requested.milli_cpu,
                allocatable: node.allocatable.milli_cpu,
            };
            let memory = Usage {
                requested: info.requested.memory,
                allocatable: node.allocatable.memory,
            };
            z.cpu.add(cpu);
            z.memory.add(memory);
            z.free_cpu = z.free_cpu.saturating_add(cpu.free());
            z.free_memory = z.free_memory.saturating_add(memory.free());
        }
    }

    fn build_node_rows(&mut self, cluster: &Cluster) {
        self.node_rows = cluster
            .nodes
            .iter()
            .enumerate()
            .map(|(id, node)| {
                let info = &cluster.node_infos[id];
                let zone = self.node_zone[id];
                let mut status = match node.ready {
                    Some(false) => "NotReady".to_string(),
                    _ => "Ready".to_string(),
                };
                if node.unschedulable {
                    status.push_str(",SchedulingDisabled");
                }
                let taints = node
                    .taints
                    .iter()
                    .filter(|t| {
                        !(node.unschedulable && &*t.key == "node.kubernetes.io/unschedulable")
                    })
                    .map(|t| {
                        if t.value.is_empty() {
                            format!("{}:{}", t.key, t.effect.as_str())
                        } else {
                            format!("{}={}:{}", t.key, t.value, t.effect.as_str())
                        }
                    })
                    .collect::<Vec<_>>()
                    .join(",");
                let labels = node
                    .labels
                    .iter()
                    .map(|(k, v)| {
                        format!(
                            "{}={}",
                            cluster.interner.resolve(k),
                            cluster.interner.resolve(v)
                        )
                    })
                    .collect::<Vec<_>>()
                    .join(" ");
                let zone_name = &self.zones[zone].name;
                let head = format!(
                    "{} {zone_name} {status} {} {} {} {taints} ",
                    node.name,
                    info.pods.len(),
                    format::cpu(info.requested.milli_cpu),
                    format::memory(info.requested.memory),
                );
                NodeRow {
                    id: id as NodeId,
                    name: node.name.to_string(),
                    zone,
                    labels_at: head.len(),
                    search: head + &labels,
                    created: node.created,
                    status,
                    pods: info.pods.len(),
                    cpu: Usage {
                        requested: info.requested.milli_cpu,
                        allocatable: node.allocatable.milli_cpu,
                    },
                    memory: Usage {
                        requested: info.requested.memory,
                        allocatable: node.allocatable.memory,
                    },
                    taints,
                }
            })
            .collect();
    }

    fn build_pod_rows(&mut self, cluster: &Cluster) {
        self.pod_rows = Vec::with_capacity(cluster.pods.len());
        for (id, pod) in cluster.pods.iter().enumerate() {
            let id = id as PodId;
            let absent = cluster.absent_node_of(pod);
            if pod.node.is_some() {
                self.scheduled += 1;
            } else if absent.is_some() {
                self.on_absent_nodes.push(id);
            } else if !pod.phase.is_terminal() {
                self.pending.push(id);
            }
            let namespace = cluster.interner.resolve(pod.namespace).to_string();
            let node = match absent {
                Some(n) => format!("{n} (not in snapshot)"),
                None => pod.node_name.as_deref().unwrap_or("").to_string(),
            };
            let owner = pod
                .controller
                .as_ref()
                .map(|o| format!("{}/{}", o.kind, o.name))
                .unwrap_or_default();
            let mut search = format!(
                "{namespace}/{} {} {node} {} {} {} {} {owner} ",
                pod.name,
                pod.phase.as_str(),
                pod.priority_value(),
                pod.priority_class_name.as_deref().unwrap_or(""),
                format::cpu(pod.requests.milli_cpu),
                format::memory(pod.requests.memory),
            );
            let labels_at = search.len();
            for (k, v) in pod.labels.iter() {
                search.push_str(cluster.interner.resolve(k));
                search.push('=');
                search.push_str(cluster.interner.resolve(v));
                search.push(' ');
            }
            self.pod_rows.push(PodRow {
                id,
                namespace,
                name: pod.name.to_string(),
                node,
                phase: pod.phase.as_str(),
                priority: pod.priority_value(),
                cpu: pod.requests.milli_cpu,
                memory: pod.requests.memory,
                owner,
                created: pod.creation_timestamp,
                search,
                labels_at,
            });
        }
    }

    fn build_tiers(&mut self, cluster: &Cluster) {
        let zones = self.zones.len();
        let row = |value: i32| TierRow {
            value,
            per_zone: vec![TierZone::default(); zones],
            ..Default::default()
        };
        // One row per class, each with its own policy; classes sharing a
        // value are separate rows.
        let mut rows: Vec<TierRow> = cluster
            .priority_classes
            .iter()
            .map(|pc| TierRow {
                classes: pc.name.to_string(),
                global_default: pc.global_default,
                never: pc.preemption_policy == PreemptionPolicy::Never,
                ..row(pc.value)
            })
            .collect();
        self.protected = protected_pods(cluster);
        for (id, pod) in cluster.pods.iter().enumerate() {
            if pod.phase.is_terminal() {
                continue;
            }
            let value = pod.priority_value();
            // The pod's own class when it still has that value, else a
            // class-less row for the value.
            let i = rows
                .iter()
                .position(|r| {
                    r.value == value
                        && !r.classes.is_empty()
                        && pod.priority_class_name.as_deref() == Some(&*r.classes)
                })
                .or_else(|| {
                    rows.iter()
                        .position(|r| r.value == value && r.classes.is_empty())
                })
                .unwrap_or_else(|| {
                    rows.push(row(value));
                    rows.len() - 1
                });
            let r = &mut rows[i];
            let Some(node) = pod.node else {
                if cluster.absent_node_of(pod).is_none() {
                    r.pending += 1;
                }
                continue;
            };
            r.pods += 1;
            r.cpu = r.cpu.saturating_add(pod.requests.milli_cpu);
            r.memory = r.memory.saturating_add(pod.requests.memory);
            let z = &mut r.per_zone[self.node_zone[node as usize]];
            z.pods += 1;
            z.cpu = z.cpu.saturating_add(pod.requests.milli_cpu);
            z.memory = z.memory.saturating_add(pod.requests.memory);
            if self.protected[id] {
                z.protected_cpu = z.protected_cpu.saturating_add(pod.requests.milli_cpu);
                z.protected_memory = z.protected_memory.saturating_add(pod.requests.memory);
            }
        }
        // By value, highest first; a value's classes by name, the
        // class-less row last.
        rows.sort_by(|a, b| {
            b.value
                .cmp(&a.value)
                .then(a.classes.is_empty().cmp(&b.classes.is_empty()))
                .then(a.classes.cmp(&b.classes))
        });
        self.tiers = rows;
    }

    fn build_workloads(&mut self, cluster: &Cluster) {
        // (namespace, kind, name) → (first pod, count).
        let mut owned: FxHashMap<(Sym, &str, &str), (PodId, usize)> = FxHashMap::default();
        for (id, pod) in cluster.pods.iter().enumerate() {
            if let Some(o) = &pod.controller {
                owned
                    .entry((pod.namespace, &o.kind, &o.name))
                    .and_modify(|e| e.1 += 1)
                    .or_insert((id as PodId, 1));
            }
        }
        for (i, owner) in cluster.owners.iter().enumerate() {
            let kind = match owner.kind {
                SelectorOwnerKind::ReplicaSet => "ReplicaSet",
                SelectorOwnerKind::StatefulSet => "StatefulSet",
                _ => continue,
            };
            let found = owned.get(&(owner.namespace, kind, &*owner.name)).copied();
            self.workloads.push(Workload {
                owner: i,
                label: format!(
                    "{}/{}",
                    cluster.interner.resolve(owner.namespace),
                    owner.name
                ),
                kind,
                pods: found.map(|f| f.1).unwrap_or(0),
                sample_pod: found.map(|f| f.0),
            });
        }
        // Biggest first: that is where skew matters.
        self.workloads
            .sort_by(|a, b| b.pods.cmp(&a.pods).then_with(|| a.label.cmp(&b.label)));
    }

    fn build_skew_subjects(&mut self, cluster: &Cluster) {
        use super::skew::Subject;
        for (i, w) in self.workloads.iter().enumerate() {
            self.skew_subjects.push(Subject::Workload(i));
            self.skew_labels.push(w.label.clone());
        }
        for &id in &self.pending {
            if !cluster.pod(id).spread_constraints.is_empty() {
                self.skew_subjects.push(Subject::Pending(id));
                self.skew_labels.push(cluster.pod_key(id));
            }
        }
    }

    fn build_topology_keys(&mut self, cluster: &Cluster) {
        let mut keys: Vec<Sym> = Vec::new();
        for node in &cluster.nodes {
            for (k, _) in node.labels.iter() {
                if !keys.contains(&k) {
                    keys.push(k);
                }
            }
        }
        let rank = |k: &Sym| match cluster.interner.resolve(*k) {
            ZONE_KEY => 0,
            HOSTNAME_KEY => 1,
            REGION_KEY => 2,
            _ => 3,
        };
        keys.sort_by(|a, b| {
            rank(a).cmp(&rank(b)).then_with(|| {
                cluster
                    .interner
                    .resolve(*a)
                    .cmp(cluster.interner.resolve(*b))
            })
        });
        self.topology_keys = keys;
    }
}

/// Which pods a PDB with no disruptions left covers (eviction would break it).
pub fn protected_pods(cluster: &Cluster) -> Vec<bool> {
    let mut protected = vec![false; cluster.pods.len()];
    for pdb in cluster.pdbs.iter() {
        if pdb.disruptions_allowed.unwrap_or(0) > 0 {
            continue;
        }
        cluster.for_each_scheduled_match(&pdb.selector, |id, pod| {
            if pod.namespace == pdb.namespace {
                protected[id as usize] = true;
            }
        });
    }
    protected
}
