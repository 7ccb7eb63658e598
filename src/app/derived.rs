//! Everything the views show that depends only on the loaded cluster,
//! computed once (on the loading thread) so no frame walks 150k pods.

use std::sync::{Arc, OnceLock};

use rustc_hash::FxHashMap;

use crate::engine::preemption::{PdbTable, eviction_alone_breaks_a_pdb};
use crate::model::pod::PreemptionPolicy;
use crate::model::policy::SelectorOwnerKind;
use crate::model::{Cluster, NodeId, PodId, Sym};

use super::format;
use super::table::SortOrders;

mod delta;

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

#[derive(Clone, Debug, Default, PartialEq, Eq)]
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

#[derive(Clone, Debug, PartialEq, Eq)]
pub struct NodeRow {
    pub id: NodeId,
    pub name: String,
    pub zone: usize,
    pub status: String,
    pub pods: usize,
    pub cpu: Usage,
    pub memory: Usage,
    pub taints: String,
    /// How many taints `taints` lists (the Nodes table shows the count,
    /// as k9s does, when the taints themselves do not fit).
    pub taint_count: usize,
    pub created: Option<i64>,
    /// Every column, then the labels as `k=v` (from byte `labels_at`), for
    /// the filter.
    pub search: String,
    pub labels_at: usize,
}

#[derive(Clone, Debug, PartialEq, Eq)]
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
#[derive(Clone, Debug, Default, PartialEq, Eq)]
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
    /// Pods bound to a node the snapshot lacks (in no other count; kept
    /// so a live update knows when a class-less row has no pod left).
    pub absent: usize,
    pub cpu: i64,
    pub memory: i64,
    /// Per zone (same order as [`Derived::zones`]).
    pub per_zone: Vec<TierZone>,
}

#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct TierZone {
    pub pods: usize,
    pub cpu: i64,
    pub memory: i64,
    /// Requests of pods covered by a PDB with no disruptions left.
    pub protected_cpu: i64,
    pub protected_memory: i64,
}

/// A ReplicaSet or StatefulSet, offered in the Skew view.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Workload {
    pub owner: usize,
    /// `namespace/name`, shared: a live update copies every workload.
    pub label: Arc<str>,
    pub kind: &'static str,
    /// The ids of the pods it owns, ascending (shared, so a live update
    /// copies only the lists of the workloads it touched).
    pub members: Arc<Vec<PodId>>,
}

impl Workload {
    /// How many pods it owns.
    pub fn pods(&self) -> usize {
        self.members.len()
    }
    /// A pod it owns, whose spread constraints stand for the template's:
    /// the first.
    pub fn sample_pod(&self) -> Option<PodId> {
        self.members.first().copied()
    }
}

/// What the views cache about one cluster. The cheap part (zones, node
/// rows, the pending list: one pass over nodes and one over pods) is built
/// before the first screen; the pod table, the workloads with Skew's fleet
/// list, and the priority tiers ([`PodTable`], [`Fleet`], [`TierTable`]) take
/// about a second on 150,000 pods, so they are built on demand or in the
/// background ([`Derived::warm_in_background`]) and read as `Option` by the
/// UI, which says "building…" until they are there.
pub struct Derived {
    pub zones: Vec<ZoneSummary>,
    /// Zone index of each node.
    pub node_zone: Vec<usize>,
    pub pending: Vec<PodId>,
    /// Pods bound to a node the snapshot lacks: not pending, counted on no
    /// node ([`Cluster::absent_node_of`]).
    pub on_absent_nodes: Vec<PodId>,
    pub scheduled: usize,
    /// The Nodes table; shared, so a live update starts from it.
    pub nodes: Arc<NodeTable>,
    /// Node label keys to spread over: zone, hostname, region, then the rest.
    pub topology_keys: Vec<Sym>,
    /// Which caches a live update updated from the batch rather than
    /// built (all `false` for a cluster built whole).
    pub in_place: InPlace,
    lazy: Arc<Lazy>,
}

/// Which caches a live update updated from the pods its batch changed.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct InPlace {
    /// The zones and the pending list.
    pub summary: bool,
    pub pods: bool,
    pub fleet: bool,
    pub tiers: bool,
}

/// The Pods table: a row per pod (in pod id order) and its sort orders
/// (each built when first asked for). Rows are shared in chunks, so a live
/// update copies the chunks of the rows it changes, not a list of 150,000
/// pointers (a sixth of a batch's view caches when it did).
#[derive(Clone, Debug, Default)]
pub struct PodTable {
    pub rows: PodRowList,
    pub orders: SortOrders,
}

/// The pod table's rows: 32 to a shared chunk.
pub type PodRowList = crate::model::shared_vec::SharedVec<Arc<PodRow>, 5>;

/// The same rows, and the same order in every column (built as needed).
impl PartialEq for PodTable {
    fn eq(&self, other: &Self) -> bool {
        self.rows == other.rows
            && (0..super::table::POD_SORTS.len()).all(|col| {
                self.orders.pod_order(&self.rows, col) == other.orders.pod_order(&other.rows, col)
            })
    }
}

impl Eq for PodTable {}

impl AsRef<PodRow> for PodRow {
    fn as_ref(&self) -> &PodRow {
        self
    }
}

/// The workloads and what the Skew view lists.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Fleet {
    pub workloads: Vec<Workload>,
    /// What the Skew view lists: every workload, then the pending pods
    /// with spread constraints of their own.
    pub skew_subjects: Vec<super::skew::Subject>,
    /// Their labels (for the fuzzy filter), in the same order.
    pub skew_labels: Vec<Arc<str>>,
    /// Workloads at or over a DoNotSchedule maxSkew, or one replica away.
    pub skew_alerts: Vec<super::skew::SkewAlert>,
    /// Which workload owner a pod's controller reference names.
    owner_keys: Arc<OwnerKeys>,
    /// What the alerts' PreFilters read of the nodes and owners.
    lookups: KeptLookups,
}

/// The nodes' topology values and inclusion masks (and the owners by
/// namespace) the fleet's PreFilters read, kept for the next live update
/// while its nodes and owners stay the same: building them again was a
/// tenth of each PreFilter. A cache, not part of what the fleet shows, so
/// any two are equal.
#[derive(Clone, Default)]
struct KeptLookups(Arc<kplace_core::engine::node_memo::SpreadLookups>);

impl PartialEq for KeptLookups {
    fn eq(&self, _: &Self) -> bool {
        true
    }
}

impl Eq for KeptLookups {}

impl std::fmt::Debug for KeptLookups {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("KeptLookups")
    }
}

/// Each ReplicaSet's and StatefulSet's index in `Cluster::owners`, by what
/// a pod's controller reference names: namespace, kind and name.
/// Workload owners by namespace, kind and name. The name is an `Arc` so a
/// pod's lookup shares its controller's name instead of copying it.
type OwnerKeys = FxHashMap<(Sym, &'static str, Arc<str>), usize>;

/// The Tiers view's rows.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct TierTable {
    pub rows: Vec<TierRow>,
    /// Per pod: covered by a PDB with no disruptions left.
    pub protected: Vec<bool>,
}

/// The slow caches of one cluster, shared with a thread that needs them
/// (a replay comparison).
#[derive(Clone)]
pub struct ViewCaches(Arc<Lazy>);

impl ViewCaches {
    pub fn fleet(&self) -> &Fleet {
        self.0.fleet()
    }
    pub fn tiers(&self) -> &TierTable {
        self.0.tiers()
    }
    /// The caches built so far, for a live update to start from.
    pub fn built(&self) -> Built {
        self.0.built()
    }
}

/// The caches of one cluster that a live update can update rather than
/// build (those that were built), with the cluster itself: what the
/// update's deltas start from.
#[derive(Clone, Default)]
pub struct Built {
    pub pods: Option<Arc<PodTable>>,
    pub fleet: Option<Arc<Fleet>>,
    pub nodes: Option<Arc<NodeTable>>,
    pub tiers: Option<Arc<TierTable>>,
    /// The cluster these caches describe, and its summary.
    before: Option<(Arc<Cluster>, Arc<Summary>)>,
}

/// What the first screen needs of a cluster: one pass over the nodes and
/// one over the pods. A live batch updates the two halves under different
/// conditions ([`delta`]).
#[derive(Clone, Debug, Default, PartialEq, Eq)]
struct Summary {
    nodes: NodeSummary,
    pods: PodStates,
}

/// The zones and the topology keys: one pass over the nodes.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
struct NodeSummary {
    zones: Vec<ZoneSummary>,
    node_zone: Vec<usize>,
    topology_keys: Vec<Sym>,
}

/// The pending pods, the pods bound to absent nodes, and how many are
/// scheduled: one pass over the pods.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
struct PodStates {
    pending: Vec<PodId>,
    on_absent_nodes: Vec<PodId>,
    scheduled: usize,
}

impl Summary {
    fn build(cluster: &Cluster) -> Summary {
        Summary {
            nodes: NodeSummary::of(cluster),
            pods: PodStates::of(cluster),
        }
    }
}

impl NodeSummary {
    fn of(cluster: &Cluster) -> NodeSummary {
        let (zones, node_zone) = zones_of(cluster);
        NodeSummary {
            zones,
            node_zone,
            topology_keys: topology_keys_of(cluster),
        }
    }
}

/// The Nodes table of a cluster: its rows (shared) and sort orders. A live
/// update that changed no node keeps every row whose node's pods did not
/// change, and merges the rebuilt rows into the orders.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct NodeTable {
    pub rows: Vec<Arc<NodeRow>>,
    pub orders: SortOrders,
}

impl NodeTable {
    fn build(cluster: &Cluster, zones: &[ZoneSummary], node_zone: &[usize]) -> NodeTable {
        let zone_names = zone_names(zones);
        let rows: Vec<Arc<NodeRow>> = (0..cluster.nodes.len())
            .map(|id| Arc::new(node_row(cluster, zones, node_zone, id)))
            .collect();
        let orders = SortOrders::nodes(&rows, &zone_names);
        NodeTable { rows, orders }
    }

    /// This table for `cluster`, whose nodes are those of the cluster the
    /// table was built for, unchanged: a row reads only its node and the
    /// node's pod count and requests, so only rows whose count or requests
    /// differ are rebuilt.
    fn updated(&self, cluster: &Cluster, zones: &[ZoneSummary], node_zone: &[usize]) -> NodeTable {
        let mut fresh: Vec<u32> = Vec::new();
        let rows: Vec<Arc<NodeRow>> = self
            .rows
            .iter()
            .enumerate()
            .map(|(id, row)| {
                let info = &cluster.node_infos[id];
                if row.pods == info.pods.len()
                    && row.cpu.requested == info.requested.milli_cpu
                    && row.memory.requested == info.requested.memory
                {
                    row.clone()
                } else {
                    fresh.push(id as u32);
                    Arc::new(node_row(cluster, zones, node_zone, id))
                }
            })
            .collect();
        let orders = if fresh.is_empty() {
            self.orders.clone()
        } else {
            self.orders.nodes_updated(&rows, &zone_names(zones), &fresh)
        };
        NodeTable { rows, orders }
    }
}

/// The Nodes table of `cluster` with its `summary`: updated from
/// `previous` (that of the cluster before a live update that changed no
/// node) or built.
fn node_table(cluster: &Cluster, summary: &Summary, previous: Option<&NodeTable>) -> NodeTable {
    let (zones, node_zone) = (&summary.nodes.zones, &summary.nodes.node_zone);
    match previous {
        Some(previous) => previous.updated(cluster, zones, node_zone),
        None => NodeTable::build(cluster, zones, node_zone),
    }
}

fn zone_names(zones: &[ZoneSummary]) -> Vec<String> {
    zones.iter().map(|z| z.name.clone()).collect()
}

/// The heavy caches, filled once each by whoever asks first (a view, the
/// warming thread); a second asker waits for the first.
struct Lazy {
    cluster: Arc<Cluster>,
    summary: Arc<Summary>,
    pods: OnceLock<Arc<PodTable>>,
    fleet: OnceLock<Arc<Fleet>>,
    tiers: OnceLock<Arc<TierTable>>,
}

/// Runs `f` on the view caches' own thread pool. The caches are built
/// while the UI is up (after the first screen, on every live update), and
/// the UI thread's own parallel work (filtering a table) uses the global
/// pool: sharing one pool, a keystroke's filter would queue behind a
/// second of cache building (measured: the Nodes table's first fill took
/// 1 s instead of 1 ms). Without that pool (threads refused), `f` runs here.
fn on_cache_pool<R: Send>(f: impl FnOnce() -> R + Send) -> R {
    static POOL: OnceLock<Option<rayon::ThreadPool>> = OnceLock::new();
    let pool = POOL.get_or_init(|| {
        rayon::ThreadPoolBuilder::new()
            .num_threads(rayon::current_num_threads())
            .thread_name(|i| format!("view-caches-{i}"))
            .build()
            .ok()
    });
    match pool {
        Some(pool) => pool.install(f),
        None => f(),
    }
}

impl Lazy {
    fn pods(&self) -> &PodTable {
        self.pods
            .get_or_init(|| on_cache_pool(|| Arc::new(PodTable::build(&self.cluster))))
    }
    fn fleet(&self) -> &Fleet {
        self.fleet.get_or_init(|| {
            on_cache_pool(|| Arc::new(Fleet::build(&self.cluster, &self.summary.pods.pending)))
        })
    }
    fn tiers(&self) -> &TierTable {
        self.tiers.get_or_init(|| {
            on_cache_pool(|| {
                let summary = &self.summary;
                Arc::new(TierTable::build(
                    &self.cluster,
                    summary.nodes.zones.len(),
                    &summary.nodes.node_zone,
                ))
            })
        })
    }
    /// The caches built so far (none of the Nodes table's: [`Derived`]
    /// holds it).
    fn built(&self) -> Built {
        Built {
            pods: self.pods.get().cloned(),
            fleet: self.fleet.get().cloned(),
            nodes: None,
            tiers: self.tiers.get().cloned(),
            before: Some((self.cluster.clone(), self.summary.clone())),
        }
    }
    /// The pod table and the fleet side by side.
    fn build_pods_and_fleet(&self) {
        on_cache_pool(|| rayon::join(|| self.pods(), || self.fleet()));
    }
    fn build_all(&self) {
        self.build_pods_and_fleet();
        self.tiers();
    }
}

impl Derived {
    /// Every cache, built now (live updates and replay moments: the views
    /// must not wait on a cluster they already show).
    pub fn build(cluster: &Arc<Cluster>) -> Derived {
        let d = Derived::new(cluster);
        d.lazy.build_all();
        d
    }

    /// Every cache for a cluster a live update changed in place, from the
    /// caches of the cluster before it (`previous`), each updated from the
    /// pods the batch changed ([`delta`]) rather than built from all of
    /// them, unless what it rests on changed: the pod table unless nodes
    /// came or went (a row says whether its pod's node exists); the zones,
    /// the workloads with Skew's fleet list and the tiers unless a node
    /// changed (nodes are the zones and the spread domains); the pending
    /// list unless nodes came or went.
    pub fn updated(
        cluster: &Arc<Cluster>,
        previous: &Built,
        touched: &crate::source::live::Touched,
    ) -> Derived {
        let before = previous.before.as_ref().map(|(before, summary)| {
            let pods = delta::PodDelta::new(before.pods.len(), cluster.pods.len(), &touched.pods);
            (&**before, &**summary, pods)
        });
        let summary = match &before {
            Some((before, summary, pods)) => summary.updated(before, cluster, pods, touched),
            None => Summary::build(cluster),
        };
        let nodes = previous
            .nodes
            .as_deref()
            .filter(|n| !touched.nodes_changed && n.rows.len() == cluster.nodes.len());
        // The Nodes table is made beside the pod table, below.
        let mut d = Derived::with_summary(cluster, Arc::new(summary), Arc::default());
        let pods = previous.pods.as_deref();
        let unchanged_nodes = before.as_ref().filter(|_| !touched.nodes_changed);
        let fleet = previous.fleet.as_deref().zip(unchanged_nodes);
        let tiers = previous.tiers.as_deref().zip(unchanged_nodes);
        // The four read only the cluster: side by side.
        let lazy = &d.lazy;
        let ((pods, nodes), (fleet, tiers)) = on_cache_pool(|| {
            rayon::join(
                || {
                    let nodes = node_table(cluster, &lazy.summary, nodes);
                    let table = pods.map(|previous| match touched.nodes_came_or_went {
                        false => (PodTable::updated(previous, cluster, &touched.pods), true),
                        // A row says whether its pod's node exists.
                        true => (PodTable::build_like(cluster, previous), false),
                    });
                    let updated = table.map(|(table, updated)| {
                        let _ = lazy.pods.set(Arc::new(table));
                        updated
                    });
                    lazy.pods();
                    (updated == Some(true), nodes)
                },
                || {
                    let summary = &lazy.summary;
                    let fleet = fleet.map(|(previous, (before, _, pods))| {
                        let fleet =
                            previous.updated(before, cluster, &summary.pods.pending, pods, touched);
                        let _ = lazy.fleet.set(Arc::new(fleet));
                    });
                    let tiers = tiers.and_then(|(previous, (before, _, pods))| {
                        let tiers = previous.updated(before, cluster, pods, summary)?;
                        lazy.tiers.set(Arc::new(tiers)).ok()
                    });
                    // What could not be updated, anew.
                    lazy.fleet();
                    lazy.tiers();
                    (fleet.is_some(), tiers.is_some())
                },
            )
        });
        d.nodes = Arc::new(nodes);
        d.in_place = InPlace {
            summary: before.is_some() && !touched.nodes_changed,
            pods,
            fleet,
            tiers,
        };
        d
    }

    /// The cheap part now; the rest on first use.
    pub fn new(cluster: &Arc<Cluster>) -> Derived {
        let summary = Summary::build(cluster);
        let nodes = node_table(cluster, &summary, None);
        Derived::with_summary(cluster, Arc::new(summary), Arc::new(nodes))
    }

    /// The caches of `cluster` with its `summary` and Nodes table.
    fn with_summary(
        cluster: &Arc<Cluster>,
        summary: Arc<Summary>,
        nodes: Arc<NodeTable>,
    ) -> Derived {
        let lazy = Arc::new(Lazy {
            cluster: cluster.clone(),
            summary: summary.clone(),
            pods: OnceLock::new(),
            fleet: OnceLock::new(),
            tiers: OnceLock::new(),
        });
        Derived {
            topology_keys: summary.nodes.topology_keys.clone(),
            zones: summary.nodes.zones.clone(),
            node_zone: summary.nodes.node_zone.clone(),
            pending: summary.pods.pending.clone(),
            on_absent_nodes: summary.pods.on_absent_nodes.clone(),
            scheduled: summary.pods.scheduled,
            nodes,
            in_place: InPlace::default(),
            lazy,
        }
    }

    /// Builds the heavy caches on a thread of their own, so the first screen
    /// does not wait for them. A thread that cannot start builds them here.
    /// The thread stops early once nobody holds these caches any more.
    pub fn warm_in_background(&self) {
        let weak = Arc::downgrade(&self.lazy);
        let warm = move || {
            let steps: [fn(&Lazy); 2] = [Lazy::build_pods_and_fleet, |l| {
                l.tiers();
            }];
            for step in steps {
                let Some(lazy) = weak.upgrade() else { return };
                step(&lazy);
            }
        };
        let spawned = std::thread::Builder::new()
            .name("view-caches".into())
            .spawn(warm);
        if spawned.is_err() {
            self.lazy.build_all();
        }
    }

    /// The pod table, if built.
    pub fn pods(&self) -> Option<&PodTable> {
        self.lazy.pods.get().map(|t| &**t)
    }
    /// The caches built so far, shared (a live feed updates them for the
    /// next cluster instead of building them again).
    pub fn built(&self) -> Built {
        Built {
            nodes: Some(self.nodes.clone()),
            ..self.lazy.built()
        }
    }
    /// The pod table, built (or waited for) now.
    pub fn pods_now(&self) -> &PodTable {
        self.lazy.pods()
    }
    /// The workloads and Skew's lists, if built.
    pub fn fleet(&self) -> Option<&Fleet> {
        self.lazy.fleet.get().map(|f| &**f)
    }
    /// The workloads and Skew's lists, built (or waited for) now.
    pub fn fleet_now(&self) -> &Fleet {
        self.lazy.fleet()
    }
    /// The priority tiers, if built.
    pub fn tiers(&self) -> Option<&TierTable> {
        self.lazy.tiers.get().map(|t| &**t)
    }
    /// The priority tiers, built (or waited for) now.
    pub fn tiers_now(&self) -> &TierTable {
        self.lazy.tiers()
    }
    /// A handle on the slow caches for another thread (it builds or waits
    /// for them there).
    pub fn caches(&self) -> ViewCaches {
        ViewCaches(self.lazy.clone())
    }

    /// Whether every cache is built (nothing left for a view to wait on).
    pub fn complete(&self) -> bool {
        self.pods().is_some() && self.fleet().is_some() && self.tiers().is_some()
    }
}

/// One summary per zone (by name, the label-less bucket last), and each
/// node's zone index.
fn zones_of(cluster: &Cluster) -> (Vec<ZoneSummary>, Vec<usize>) {
    let mut zones: Vec<ZoneSummary> = Vec::new();
    let mut node_zone: Vec<usize> = Vec::with_capacity(cluster.nodes.len());
    {
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
            zones.push(ZoneSummary {
                name: z.clone(),
                ..Default::default()
            });
        }
        for (id, name) in names.drain(..).enumerate() {
            let zi = by_name[&name];
            node_zone.push(zi);
            let node = &cluster.nodes[id];
            let z = &mut zones[zi];
            z.nodes.push(id as NodeId);
            z.cordoned += node.unschedulable as usize;
            z.tainted += (!node.taints.is_empty() && !node.unschedulable) as usize;
            z.add_node(cluster, id);
        }
    }

    (zones, node_zone)
}

impl ZoneSummary {
    /// Adds a node's pods, requests and free capacity to the zone's sums.
    fn add_node(&mut self, cluster: &Cluster, id: usize) {
        let node = &cluster.nodes[id];
        let info = &cluster.node_infos[id];
        self.pods += info.pods.len();
        let cpu = Usage {
            requested: info.requested.milli_cpu,
            allocatable: node.allocatable.milli_cpu,
        };
        let memory = Usage {
            requested: info.requested.memory,
            allocatable: node.allocatable.memory,
        };
        self.cpu.add(cpu);
        self.memory.add(memory);
        self.free_cpu = self.free_cpu.saturating_add(cpu.free());
        self.free_memory = self.free_memory.saturating_add(memory.free());
    }

    /// The sums again over the zone's nodes (in the same order, so they
    /// saturate as a build's do).
    fn sum_nodes(&mut self, cluster: &Cluster) {
        (self.pods, self.free_cpu, self.free_memory) = (0, 0, 0);
        (self.cpu, self.memory) = (Usage::default(), Usage::default());
        for i in 0..self.nodes.len() {
            self.add_node(cluster, self.nodes[i] as usize);
        }
    }
}

/// Node `id`'s row in the Nodes table.
fn node_row(cluster: &Cluster, zones: &[ZoneSummary], node_zone: &[usize], id: usize) -> NodeRow {
    let node = &cluster.nodes[id];
    let info = &cluster.node_infos[id];
    let zone = node_zone[id];
    let mut status = match node.ready {
        Some(false) => "NotReady".to_string(),
        _ => "Ready".to_string(),
    };
    if node.unschedulable {
        status.push_str(",SchedulingDisabled");
    }
    let taints: Vec<String> = format::taints(node).collect();
    let taint_count = taints.len();
    let taints = taints.join(",");
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
    let zone_name = &zones[zone].name;
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
        taint_count,
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
}

impl PodStates {
    fn of(cluster: &Cluster) -> PodStates {
        let mut states = PodStates::default();
        for id in 0..cluster.pods.len() as PodId {
            match PodState::of(cluster, id) {
                PodState::Scheduled => states.scheduled += 1,
                PodState::OnAbsentNode => states.on_absent_nodes.push(id),
                PodState::Pending => states.pending.push(id),
                PodState::Done => {}
            }
        }
        states
    }
}

/// Which of [`PodStates`]' lists a pod is in.
#[derive(Clone, Copy, PartialEq, Eq)]
enum PodState {
    Scheduled,
    /// Bound to a node the snapshot lacks: not pending, counted on no node
    /// ([`Cluster::absent_node_of`]).
    OnAbsentNode,
    Pending,
    /// Terminal and unbound.
    Done,
}

impl PodState {
    fn of(cluster: &Cluster, id: PodId) -> PodState {
        let pod = cluster.pod(id);
        if pod.node.is_some() {
            PodState::Scheduled
        } else if cluster.absent_node_of(pod).is_some() {
            PodState::OnAbsentNode
        } else if !pod.phase.is_terminal() {
            PodState::Pending
        } else {
            PodState::Done
        }
    }
}

impl PodTable {
    pub fn build(cluster: &Cluster) -> PodTable {
        let rows: PodRowList = (0..cluster.pods.len() as PodId)
            .map(|id| Arc::new(pod_row(cluster, id)))
            .collect();
        let table = PodTable {
            rows,
            orders: SortOrders::pods(),
        };
        // By name: the first sort a view asks for, and the others' tie-break.
        table.orders.pod_order(&table.rows, 0);
        table
    }

    /// How many sort columns the table has.
    pub const SORT_COLUMNS: usize = super::table::POD_SORTS.len();

    /// Built anew for `cluster`, with the sort columns that views asked
    /// of `previous` (its cluster before a live update that could not be
    /// followed row by row) built now and kept current from then on.
    pub fn build_like(cluster: &Cluster, previous: &PodTable) -> PodTable {
        let table = PodTable::build(cluster);
        let table = PodTable {
            orders: table.orders.asked_like(&previous.orders),
            ..table
        };
        table.orders.build_asked(&table.rows);
        table
    }

    /// Column `col`'s order and the rows' ranks in it, built now if not
    /// yet; live updates keep it current from now on.
    pub fn column(&self, col: usize) -> Option<(&[u32], &[u32])> {
        self.orders.pod_column(&self.rows, col)
    }

    /// `previous` after the pods `touched` changed (ids in `cluster`; ids
    /// past its pods are gone): those rows rebuilt, the rest shared, and
    /// each sort order merged rather than sorted again.
    pub fn updated(previous: &PodTable, cluster: &Cluster, touched: &[PodId]) -> PodTable {
        let len = cluster.pods.len();
        let mut fresh: Vec<u32> = touched
            .iter()
            .copied()
            .filter(|&id| (id as usize) < len)
            .chain(previous.rows.len() as u32..len as u32)
            .collect();
        fresh.sort_unstable();
        fresh.dedup();
        let mut rows = previous.rows.clone();
        rows.truncate(len);
        // Ascending: the ids past the previous rows come last, in order.
        for &id in &fresh {
            let row = Arc::new(pod_row(cluster, id));
            match rows.get_mut(id as usize) {
                Some(kept) => *kept = row,
                None => rows.push(row),
            }
        }
        let orders = previous.orders.pods_updated(&rows, &fresh);
        PodTable { rows, orders }
    }
}

fn pod_row(cluster: &Cluster, id: PodId) -> PodRow {
    let pod = cluster.pod(id);
    let absent = cluster.absent_node_of(pod);
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
    PodRow {
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
    }
}

impl TierTable {
    fn build(cluster: &Cluster, zones: usize, node_zone: &[usize]) -> TierTable {
        // One row per class, each with its own policy; classes sharing a
        // value are separate rows.
        let mut table = TierTable {
            rows: cluster
                .priority_classes
                .iter()
                .map(|pc| TierRow {
                    classes: pc.name.to_string(),
                    global_default: pc.global_default,
                    never: pc.preemption_policy == PreemptionPolicy::Never,
                    ..TierRow::empty(pc.value, zones)
                })
                .collect(),
            protected: protected_pods(cluster),
        };
        let mut rows = TierRows::new(cluster, &table.rows);
        for id in 0..cluster.pods.len() as PodId {
            let Some(share) = TierShare::of(cluster, id, &table.protected, node_zone) else {
                continue;
            };
            let i = rows.of(cluster.pod(id), &mut table.rows, zones);
            let r = &mut table.rows[i];
            r.pods += share.pods;
            r.pending += share.pending;
            r.absent += share.absent;
            r.cpu = r.cpu.saturating_add(share.cpu);
            r.memory = r.memory.saturating_add(share.memory);
            let Some(zone) = share.zone else { continue };
            let z = &mut r.per_zone[zone];
            z.pods += 1;
            z.cpu = z.cpu.saturating_add(share.cpu);
            z.memory = z.memory.saturating_add(share.memory);
            z.protected_cpu = z.protected_cpu.saturating_add(share.protected_cpu);
            z.protected_memory = z.protected_memory.saturating_add(share.protected_memory);
        }
        table.sort();
        table
    }

    /// By value, highest first; a value's classes by name, the class-less
    /// row last.
    fn sort(&mut self) {
        self.rows.sort_by(|a, b| {
            b.value
                .cmp(&a.value)
                .then(a.classes.is_empty().cmp(&b.classes.is_empty()))
                .then(a.classes.cmp(&b.classes))
        });
    }
}

impl TierRow {
    fn empty(value: i32, zones: usize) -> TierRow {
        TierRow {
            value,
            per_zone: vec![TierZone::default(); zones],
            ..Default::default()
        }
    }
}

/// Finds a pod's tier row: its own class's when the class still has the
/// pod's value, else the class-less row of the value (added when missing).
/// By hash: comparing class names row by row for each of 150,000 pods was
/// half of the tiers' time.
struct TierRows<'c> {
    by_class: FxHashMap<(i32, &'c str), usize>,
    classless: FxHashMap<i32, usize>,
}

impl<'c> TierRows<'c> {
    fn new(cluster: &'c Cluster, rows: &[TierRow]) -> TierRows<'c> {
        let mut by_class: FxHashMap<(i32, &str), usize> = FxHashMap::default();
        let mut classless: FxHashMap<i32, usize> = FxHashMap::default();
        for (i, r) in rows.iter().enumerate() {
            if r.classes.is_empty() {
                classless.entry(r.value).or_insert(i);
            } else if let Some(pc) = cluster.priority_class(&r.classes) {
                by_class.entry((r.value, &*pc.name)).or_insert(i);
            }
        }
        TierRows {
            by_class,
            classless,
        }
    }

    fn of(&mut self, pod: &crate::model::Pod, rows: &mut Vec<TierRow>, zones: usize) -> usize {
        let value = pod.priority_value();
        pod.priority_class_name
            .as_deref()
            .and_then(|name| self.by_class.get(&(value, name)).copied())
            .unwrap_or_else(|| {
                *self.classless.entry(value).or_insert_with(|| {
                    rows.push(TierRow::empty(value, zones));
                    rows.len() - 1
                })
            })
    }
}

/// What one pod adds to its tier row.
struct TierShare {
    pods: usize,
    pending: usize,
    absent: usize,
    cpu: i64,
    memory: i64,
    /// The zone of its node, when bound to one.
    zone: Option<usize>,
    /// Its requests again when a PDB with no disruptions left covers it.
    protected_cpu: i64,
    protected_memory: i64,
}

impl TierShare {
    /// `None` for a terminal pod (in no tier).
    fn of(cluster: &Cluster, id: PodId, protected: &[bool], node_zone: &[usize]) -> Option<Self> {
        let pod = cluster.pod(id);
        if pod.phase.is_terminal() {
            return None;
        }
        let mut share = TierShare {
            pods: 0,
            pending: 0,
            absent: 0,
            cpu: 0,
            memory: 0,
            zone: None,
            protected_cpu: 0,
            protected_memory: 0,
        };
        let Some(node) = pod.node else {
            match cluster.absent_node_of(pod) {
                Some(_) => share.absent = 1,
                None => share.pending = 1,
            }
            return Some(share);
        };
        share.pods = 1;
        share.cpu = pod.requests.milli_cpu;
        share.memory = pod.requests.memory;
        share.zone = Some(node_zone[node as usize]);
        if protected[id as usize] {
            share.protected_cpu = share.cpu;
            share.protected_memory = share.memory;
        }
        Some(share)
    }
}

impl Fleet {
    fn build(cluster: &Cluster, pending: &[PodId]) -> Fleet {
        let owner_keys = Arc::new(owner_keys(cluster));
        let workloads = workloads_of(cluster, &owner_keys);
        let lookups = KeptLookups::default();
        let skew_alerts = super::skew::fleet(cluster, &workloads, &lookups.0);
        Fleet::of(
            cluster,
            pending,
            workloads,
            skew_alerts,
            owner_keys,
            lookups,
        )
    }

    /// The fleet of these workloads and alerts, with Skew's subjects.
    fn of(
        cluster: &Cluster,
        pending: &[PodId],
        workloads: Vec<Workload>,
        skew_alerts: Vec<super::skew::SkewAlert>,
        owner_keys: Arc<OwnerKeys>,
        lookups: KeptLookups,
    ) -> Fleet {
        let mut fleet = Fleet {
            workloads,
            skew_alerts,
            owner_keys,
            lookups,
            ..Fleet::default()
        };
        fleet.add_skew_subjects(cluster, pending);
        fleet
    }

    fn add_skew_subjects(&mut self, cluster: &Cluster, pending: &[PodId]) {
        use super::skew::Subject;
        for (i, w) in self.workloads.iter().enumerate() {
            self.skew_subjects.push(Subject::Workload(i));
            self.skew_labels.push(w.label.clone());
        }
        for &id in pending {
            if !cluster.pod(id).spread_constraints.is_empty() {
                self.skew_subjects.push(Subject::Pending(id));
                self.skew_labels.push(cluster.pod_key(id).into());
            }
        }
    }
}

/// The workload kinds a pod's controller reference can name.
fn workload_kind(kind: SelectorOwnerKind) -> Option<&'static str> {
    match kind {
        SelectorOwnerKind::ReplicaSet => Some("ReplicaSet"),
        SelectorOwnerKind::StatefulSet => Some("StatefulSet"),
        _ => None,
    }
}

fn owner_keys(cluster: &Cluster) -> OwnerKeys {
    let mut keys = OwnerKeys::default();
    for (i, owner) in cluster.owners.iter().enumerate() {
        if let Some(kind) = workload_kind(owner.kind) {
            // The first of a name, as a pod's reference finds it.
            keys.entry((owner.namespace, kind, Arc::from(&*owner.name)))
                .or_insert(i);
        }
    }
    keys
}

/// The workload owner (index into `Cluster::owners`) of a pod.
fn owner_of(keys: &OwnerKeys, pod: &crate::model::Pod) -> Option<usize> {
    let controller = pod.controller.as_ref()?;
    let kind = match &*controller.kind {
        "ReplicaSet" => "ReplicaSet",
        "StatefulSet" => "StatefulSet",
        _ => return None,
    };
    keys.get(&(pod.namespace, kind, Arc::clone(&controller.name)))
        .copied()
}

/// The ReplicaSets and StatefulSets, biggest first.
fn workloads_of(cluster: &Cluster, keys: &OwnerKeys) -> Vec<Workload> {
    let mut members: Vec<Vec<PodId>> = vec![Vec::new(); cluster.owners.len()];
    for (id, pod) in cluster.pods.iter().enumerate() {
        if let Some(owner) = owner_of(keys, pod) {
            members[owner].push(id as PodId);
        }
    }
    let mut workloads = Vec::new();
    for (i, (owner, members)) in cluster.owners.iter().zip(members).enumerate() {
        let Some(kind) = workload_kind(owner.kind) else {
            continue;
        };
        workloads.push(Workload {
            owner: i,
            label: format!(
                "{}/{}",
                cluster.interner.resolve(owner.namespace),
                owner.name
            )
            .into(),
            kind,
            members: Arc::new(members),
        });
    }
    sort_workloads(&mut workloads);
    workloads
}

/// Biggest first: that is where skew matters; then by label and owner.
fn sort_workloads(workloads: &mut [Workload]) {
    workloads.sort_by(|a, b| {
        b.pods()
            .cmp(&a.pods())
            .then_with(|| a.label.cmp(&b.label))
            .then(a.owner.cmp(&b.owner))
    });
}

/// Node label keys to spread over: zone, hostname, region, then the rest by name.
fn topology_keys_of(cluster: &Cluster) -> Vec<Sym> {
    {
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
        keys
    }
}

/// Which scheduled pods a PDB protects from preemption: evicting the pod
/// alone would break one, as the engine's preemption counts it
/// ([`eviction_alone_breaks_a_pdb`]).
pub fn protected_pods(cluster: &Cluster) -> Vec<bool> {
    let table = PdbTable::of(cluster);
    let mut protected = vec![false; cluster.pods.len()];
    for info in &cluster.node_infos {
        for &id in &info.pods {
            protected[id as usize] = eviction_alone_breaks_a_pdb(cluster, &table, id);
        }
    }
    protected
}

/// [`protected_pods`] for one pod, with the cluster's PDB table.
fn protected_pod(cluster: &Cluster, table: &PdbTable, id: PodId) -> bool {
    cluster.pod(id).node.is_some() && eviction_alone_breaks_a_pdb(cluster, table, id)
}
