//! The cluster as the engine sees it: converted objects plus the per-node
//! aggregates (`NodeInfo`) and indexes that the plugins read.

use std::collections::BTreeMap;
use std::sync::Arc;

use rustc_hash::FxHashMap;

use super::intern::{Interner, Sym};
use super::labels::{LabelSelector, Labels, Requirement, SetOperator};
use super::node::{Node, NodeId};
use super::pod::{HostPort, Pod, PodAffinity, PodId, PodPhase, PreemptionPolicy};
use super::policy::{DisruptionBudget, IntOrPercent, PriorityClass, SelectorOwner};
use super::resources::{CpuMem, Resources};
use super::shared_vec::SharedVec;

mod from_nodes;
mod incremental;
mod load;

pub use load::NodeLoad;

/// Which of [`NodeInfo::non_zero_requested`] a release's scoring reads
/// (`CalculateResource` changed in v1.32 and v1.34).
fn era(version: crate::engine::Version) -> usize {
    use crate::engine::Version;
    match version {
        Version::V1_30 | Version::V1_31 => 0,
        Version::V1_32 | Version::V1_33 => 1,
        Version::V1_34 => 2,
    }
}

/// Per-node aggregates over the pods the scheduler sees on the node
/// (upstream `framework.NodeInfo`).
#[derive(Clone, Debug, Default)]
pub struct NodeInfo {
    pub pods: Vec<PodId>,
    /// Σ `PodRequests` of the pods (container level, as before v1.34).
    pub requested: Resources,
    /// What pod-level resources change in that sum (v1.34 honours them).
    pub pod_level_delta: Resources,
    /// Σ non-zero cpu/memory of the pods (scoring only), per era of
    /// `CalculateResource`: v1.30–1.31, v1.32–1.33, v1.34.
    pub non_zero_requested: [CpuMem; 3],
    /// Used host ports, a set without reference counts, as upstream keeps it.
    pub used_ports: Vec<HostPort>,
    pub pods_with_affinity: Vec<PodId>,
    pub pods_with_required_anti_affinity: Vec<PodId>,
    /// The pods with PersistentVolumeClaims (or ephemeral volumes): the
    /// only ones NodeVolumeLimits counts attached volumes of, so it does
    /// not walk every pod of every node for each incoming pod.
    pub pods_with_claims: Vec<PodId>,
    /// How many claim and ephemeral volumes `pods_with_claims` have in
    /// all: at least how many volumes they attach, so NodeVolumeLimits
    /// passes most nodes without reading a pod (see [`claim_volumes`]).
    pub claim_volumes: usize,
    /// What preemption's dry run reads of each pod, in `pods` order: it
    /// walks every lower-priority pod of every potential node, and one
    /// dense array per node costs a cache line per pod where the large
    /// `Pod` records cost several.
    pub briefs: Vec<PodBrief>,
}

/// The few fields of a pod that preemption's dry run reads for every
/// victim it tries (priority, start, requests, which lists it joins).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct PodBrief {
    pub priority: i32,
    /// The PDB selecting the pod when exactly one does (set by the
    /// cluster, which indexes PDBs), or `NO_PDB` / `SEVERAL_PDBS`.
    pdb: u32,
    flags: u8,
    /// The pod's namespace: PodTopologySpread's RemovePod in preemption's
    /// dry run skips pods of other namespaces without reading the record.
    pub namespace: Sym,
    /// `status.startTime`; a pod not started counts as starting last.
    pub start_time: i64,
    milli_cpu: i64,
    memory: i64,
    ephemeral_storage: i64,
    /// `NonZeroRequested` before v1.32, and from it (sidecars counted);
    /// only for pods without pod-level resources, which read the record.
    non_zero: [CpuMem; 2],
}

impl PodBrief {
    /// No scalar resources, pod-level requests or host ports: accounting
    /// needs only the brief.
    const PLAIN: u8 = 1;
    const AFFINITY: u8 = 2;
    const REQUIRED_ANTI_AFFINITY: u8 = 4;
    const CLAIMS: u8 = 8;
    const HOST_PORTS: u8 = 16;
    const NO_PDB: u32 = u32::MAX;
    const SEVERAL_PDBS: u32 = u32::MAX - 1;

    pub fn of(pod: &Pod) -> PodBrief {
        use crate::engine::Version;
        let flag = |set: bool, bit: u8| if set { bit } else { 0 };
        let plain =
            pod.requests.scalars.is_empty() && pod.pod_level.is_none() && pod.host_ports.is_empty();
        PodBrief {
            priority: pod.priority_value(),
            pdb: Self::NO_PDB,
            flags: flag(plain, Self::PLAIN)
                | flag(pod.has_affinity(), Self::AFFINITY)
                | flag(
                    pod.has_required_anti_affinity(),
                    Self::REQUIRED_ANTI_AFFINITY,
                )
                | flag(pod.claim_names().next().is_some(), Self::CLAIMS)
                | flag(!pod.host_ports.is_empty(), Self::HOST_PORTS),
            namespace: pod.namespace,
            start_time: pod.start_time.unwrap_or(i64::MAX),
            milli_cpu: pod.requests.milli_cpu,
            memory: pod.requests.memory,
            ephemeral_storage: pod.requests.ephemeral_storage,
            non_zero: [
                pod.existing_non_zero_in(Version::V1_30),
                pod.existing_non_zero_in(Version::V1_32),
            ],
        }
    }

    fn has(&self, bit: u8) -> bool {
        self.flags & bit != 0
    }

    /// The pod's CPU request in millicores (`requests.milli_cpu`).
    pub fn milli_cpu(&self) -> i64 {
        self.milli_cpu
    }

    /// The pod's memory request in bytes (`requests.memory`).
    pub fn memory(&self) -> i64 {
        self.memory
    }

    /// The pod has required pod anti-affinity terms.
    pub fn has_required_anti_affinity(&self) -> bool {
        self.has(Self::REQUIRED_ANTI_AFFINITY)
    }

    /// The pod has claims or ephemeral volumes.
    pub fn has_claims(&self) -> bool {
        self.has(Self::CLAIMS)
    }

    /// The PodDisruptionBudgets selecting the pod, as far as the brief
    /// knows: most pods of a node have none or one, and preemption then
    /// needs neither the PDB index nor the record.
    pub fn pdbs(&self) -> BriefPdbs {
        match self.pdb {
            Self::NO_PDB => BriefPdbs::None,
            Self::SEVERAL_PDBS => BriefPdbs::Several,
            one => BriefPdbs::One(one as usize),
        }
    }

    fn set_pdbs(&mut self, pdbs: &[u32]) {
        self.pdb = match pdbs {
            [] => Self::NO_PDB,
            &[one] if one < Self::SEVERAL_PDBS => one,
            _ => Self::SEVERAL_PDBS,
        };
    }
}

/// What a [`PodBrief`] says of the PDBs selecting its pod.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum BriefPdbs {
    None,
    /// This one (an index into `Cluster::pdbs`).
    One(usize),
    /// More than one: `Cluster::pdbs_of_pod` lists them.
    Several,
}

impl NodeInfo {
    /// Adds (`by` = 1) or removes (-1) a pod's requests in every era.
    pub fn account(&mut self, pod: &Pod, by: i8) {
        use crate::engine::Version;
        let add = |into: &mut CpuMem, v: CpuMem| {
            if by > 0 {
                into.add(v)
            } else {
                into.subtract(v)
            }
        };
        if by > 0 {
            self.requested.add(&pod.requests);
        } else {
            self.requested.subtract(&pod.requests);
        }
        for (era, version) in [Version::V1_30, Version::V1_32, Version::V1_34]
            .into_iter()
            .enumerate()
        {
            add(
                &mut self.non_zero_requested[era],
                pod.existing_non_zero_in(version),
            );
        }
        if let Some(pl) = &pod.pod_level {
            let (plus, minus) = if by > 0 {
                (&pl.requests, &pod.requests)
            } else {
                (&pod.requests, &pl.requests)
            };
            self.pod_level_delta.add(plus);
            self.pod_level_delta.subtract(minus);
        }
    }

    /// Σ non-zero cpu/memory as the given release's scoring sees it.
    pub fn non_zero_requested_in(&self, version: crate::engine::Version) -> CpuMem {
        self.non_zero_requested[era(version)]
    }

    /// Σ requested cpu/memory as the given release's Filter sees it.
    pub fn requested_cpu_mem(&self, version: crate::engine::Version) -> CpuMem {
        let mut r = CpuMem {
            milli_cpu: self.requested.milli_cpu,
            memory: self.requested.memory,
        };
        if version.pod_level_resources() {
            r.milli_cpu = r.milli_cpu.wrapping_add(self.pod_level_delta.milli_cpu);
            r.memory = r.memory.wrapping_add(self.pod_level_delta.memory);
        }
        r
    }

    /// Σ requested of a scalar resource (hugepages may be set at pod level).
    pub fn requested_scalar(&self, name: Sym, version: crate::engine::Version) -> i64 {
        let delta = if version.pod_level_resources() {
            self.pod_level_delta.scalar(name)
        } else {
            0
        };
        self.requested.scalar(name).wrapping_add(delta)
    }

    /// Adds or removes a pod's requests from its brief alone when it is
    /// plain; `pod` is read only otherwise.
    fn account_brief<'p>(&mut self, brief: &PodBrief, pod: impl FnOnce() -> &'p Pod, by: i8) {
        if !brief.has(PodBrief::PLAIN) {
            return self.account(pod(), by);
        }
        let r = &mut self.requested;
        let nz = &mut self.non_zero_requested;
        // Without pod-level resources v1.34 counts as v1.32 does.
        let eras = [brief.non_zero[0], brief.non_zero[1], brief.non_zero[1]];
        if by > 0 {
            r.milli_cpu = r.milli_cpu.wrapping_add(brief.milli_cpu);
            r.memory = r.memory.wrapping_add(brief.memory);
            r.ephemeral_storage = r.ephemeral_storage.wrapping_add(brief.ephemeral_storage);
            for (sum, v) in nz.iter_mut().zip(eras) {
                sum.add(v);
            }
        } else {
            r.milli_cpu = r.milli_cpu.wrapping_sub(brief.milli_cpu);
            r.memory = r.memory.wrapping_sub(brief.memory);
            r.ephemeral_storage = r.ephemeral_storage.wrapping_sub(brief.ephemeral_storage);
            for (sum, v) in nz.iter_mut().zip(eras) {
                sum.subtract(v);
            }
        }
    }

    pub fn add_pod(&mut self, id: PodId, pod: &Pod) {
        self.add_pod_brief(id, PodBrief::of(pod), || pod);
    }

    /// [`NodeInfo::add_pod`] from the pod's brief, reading the record only
    /// for what the brief does not hold (scalars, pod-level requests, ports).
    pub fn add_pod_brief<'p>(&mut self, id: PodId, brief: PodBrief, pod: impl Fn() -> &'p Pod) {
        self.pods.push(id);
        self.briefs.push(brief);
        self.account_brief(&brief, &pod, 1);
        if brief.has(PodBrief::HOST_PORTS) {
            for p in pod().host_ports.iter() {
                if !self.used_ports.contains(p) {
                    self.used_ports.push(p.clone());
                }
            }
        }
        if brief.has(PodBrief::AFFINITY) {
            self.pods_with_affinity.push(id);
        }
        if brief.has(PodBrief::REQUIRED_ANTI_AFFINITY) {
            self.pods_with_required_anti_affinity.push(id);
        }
        if brief.has(PodBrief::CLAIMS) {
            self.pods_with_claims.push(id);
            self.claim_volumes += claim_volumes(pod());
        }
    }

    /// Asks the CPU to start loading the node's first pod ids and briefs:
    /// preemption's dry run walks thousands of nodes, each one's pods in
    /// their own allocation, and otherwise waits on memory at every node's
    /// first pod (a quarter of its time on the synthetic cluster). Only a
    /// hint: it reads nothing and cannot fault.
    #[inline]
    pub fn prefetch_pods(&self) {
        // A kilobyte of briefs (a dozen pods); the hardware follows on.
        kplace_split::prefetch(&self.briefs, 1024);
        kplace_split::prefetch(&self.pods, 64);
    }

    /// Adds a pod's id and requests only, leaving ports, claims and the
    /// pod lists as they are: preemption's dry run on a node whose pods
    /// only NodeResourcesFit reads (see `Cycle::only_fit_reads_pods`).
    pub fn add_requests_of<'p>(
        &mut self,
        id: PodId,
        brief: &PodBrief,
        pod: impl FnOnce() -> &'p Pod,
    ) {
        self.pods.push(id);
        self.account_brief(brief, pod, 1);
    }

    /// Undoes [`NodeInfo::add_requests_of`] for the pod added last.
    pub fn remove_last_requests_of<'p>(&mut self, brief: &PodBrief, pod: impl FnOnce() -> &'p Pod) {
        self.pods.pop();
        self.account_brief(brief, pod, -1);
    }

    /// Takes a pod's requests off the node's totals only (the dry run's
    /// counterpart of [`NodeInfo::discount`] for [`NodeInfo::add_requests_of`]).
    pub fn discount_requests_of<'p>(&mut self, brief: &PodBrief, pod: impl FnOnce() -> &'p Pod) {
        self.account_brief(brief, pod, -1);
    }

    /// Removes a pod. Like upstream, its host ports leave the set even if
    /// another pod on the node declared the same port.
    pub fn remove_pod(&mut self, id: PodId, pod: &Pod) -> bool {
        let Some(i) = self.pods.iter().position(|&p| p == id) else {
            return false;
        };
        self.remove_at(i, || pod);
        true
    }

    /// Takes a pod's requests and host ports off the node's totals, leaving
    /// the pod lists as they are (preemption's dry run rebuilds those).
    pub fn discount<'p>(&mut self, brief: &PodBrief, pod: impl Fn() -> &'p Pod) {
        self.account_brief(brief, &pod, -1);
        if brief.has(PodBrief::HOST_PORTS) {
            let pod = pod();
            self.used_ports.retain(|p| !pod.host_ports.contains(p));
        }
    }

    /// Removes the pod at `index` of `pods` (the last one added is
    /// `pods.len() - 1`).
    pub fn remove_at<'p>(&mut self, index: usize, pod: impl Fn() -> &'p Pod) {
        let id = self.pods.swap_remove(index);
        let brief = self.briefs.swap_remove(index);
        self.discount(&brief, &pod);
        if brief.has(PodBrief::AFFINITY) {
            self.pods_with_affinity.retain(|&p| p != id);
        }
        if brief.has(PodBrief::REQUIRED_ANTI_AFFINITY) {
            self.pods_with_required_anti_affinity.retain(|&p| p != id);
        }
        if brief.has(PodBrief::CLAIMS) {
            self.pods_with_claims.retain(|&p| p != id);
            self.claim_volumes -= claim_volumes(pod());
        }
    }
}

/// How many of the pod's volumes are claims or ephemeral volumes.
pub fn claim_volumes(pod: &Pod) -> usize {
    pod.volumes
        .iter()
        .filter(|v| v.claim_name().is_some())
        .count()
}

/// The scheduled pods with inter-pod (anti-)affinity terms, grouped by
/// their terms: the replicas of a workload share them, so InterPodAffinity's
/// PreFilter and PreScore match each distinct set of terms against the
/// incoming pod once instead of once per pod (the counts they add are sums,
/// so the grouping changes no answer). Kept with `NodeInfo::pods_with_affinity`.
#[derive(Clone, Debug, Default)]
pub struct AffinityGroups {
    index: FxHashMap<PodAffinity, u32>,
    groups: Vec<AffinityGroup>,
}

/// Pods with the same (non-empty) `PodAffinity`, counted per node.
#[derive(Clone, Debug)]
pub struct AffinityGroup {
    pub terms: PodAffinity,
    /// How many of the group's pods each node holds (no zero counts).
    pub nodes: FxHashMap<NodeId, u32>,
    /// Σ of `nodes`.
    pub pods: u32,
}

impl AffinityGroups {
    /// Every group that holds some pod, in the order groups were first seen.
    pub fn iter(&self) -> impl Iterator<Item = &AffinityGroup> {
        self.groups.iter().filter(|g| g.pods > 0)
    }

    fn update(&mut self, pod: &Pod, node: NodeId, add: bool) {
        let Some(terms) = pod.pod_affinity.as_deref().filter(|a| !a.is_empty()) else {
            return;
        };
        let i = match self.index.get(terms) {
            Some(&i) => i as usize,
            None if add => {
                self.index.insert(terms.clone(), self.groups.len() as u32);
                self.groups.push(AffinityGroup {
                    terms: terms.clone(),
                    nodes: FxHashMap::default(),
                    pods: 0,
                });
                self.groups.len() - 1
            }
            None => return,
        };
        let group = &mut self.groups[i];
        if add {
            *group.nodes.entry(node).or_default() += 1;
            group.pods += 1;
        } else if let Some(n) = group.nodes.get_mut(&node) {
            *n -= 1;
            group.pods -= 1;
            if *n == 0 {
                group.nodes.remove(&node);
            }
        }
    }
}

/// What one range of a new cluster's pods adds to its indexes
/// ([`Cluster::add_new_pods`]), in id order.
#[derive(Default)]
struct NewPods {
    pods: Vec<Arc<Pod>>,
    priorities: Vec<i32>,
    pdbs: Vec<Box<[u32]>>,
    labels: FxHashMap<(Sym, Sym), IdList>,
    keys: FxHashMap<Sym, IdList>,
    /// Scheduled pods with inter-pod affinity terms, and their nodes.
    with_affinity: Vec<(PodId, NodeId)>,
    nominated: Vec<PodId>,
    /// The bound pods and their nodes: grouping pods by node from this
    /// dense list instead of the records saves two passes over 150,000.
    bound: Vec<(PodId, NodeId)>,
}

impl NewPods {
    /// Records pod `id`, bound to its node already, as
    /// [`Cluster::index_new_pod`] and [`Cluster::index_pod_pdbs`] do.
    fn add(&mut self, cluster: &Cluster, id: PodId, pod: &Pod) {
        self.priorities.push(pod.priority_value());
        self.pdbs.push(cluster.pdbs_matching(pod));
        if let Some(node) = pod.node {
            self.bound.push((id, node));
            if pod.pod_affinity.as_deref().is_some_and(|a| !a.is_empty()) {
                self.with_affinity.push((id, node));
            }
            for (k, v) in pod.labels.iter() {
                Arc::make_mut(self.labels.entry((k, v)).or_default()).push(id);
                Arc::make_mut(self.keys.entry(k).or_default()).push(id);
            }
        } else if pod.nominated_node_name.is_some() {
            self.nominated.push(id);
        }
    }
}

/// `ImageStateSummary`: size and how many nodes report the image.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct ImageSummary {
    pub size: i64,
    pub num_nodes: u32,
}

/// The built-in priority classes the API server creates at bootstrap.
pub fn system_priority_class(name: &str) -> Option<PriorityClass> {
    let (value, description) = match name {
        "system-cluster-critical" => (
            2_000_000_000,
            "Used for system critical pods that must run in the cluster, but can be moved to another node if necessary.",
        ),
        "system-node-critical" => (
            2_000_001_000,
            "Used for system critical pods that must not be moved from their current node.",
        ),
        _ => return None,
    };
    Some(PriorityClass {
        name: name.into(),
        value,
        global_default: false,
        preemption_policy: PreemptionPolicy::PreemptLowerPriority,
        description: description.into(),
    })
}

/// Takes `id` out of an index list, where it appears once, keeping the
/// others' order. A key's list may hold every scheduled pod (`app` on
/// 150,000 pods): this moves the tail in one copy, where `retain` would
/// rewrite the whole list. The id is looked for by halving first: a list
/// is built in ascending order and pods bound since are appended, so most
/// ids sit where a binary search looks; the others (in the appended tail)
/// are found scanning from the end. A search misled by the tail only
/// costs the scan, since the slot found is checked.
fn remove_id(list: &mut Vec<PodId>, id: PodId) {
    let at = list.partition_point(|&p| p < id);
    if list.get(at) == Some(&id) {
        list.remove(at);
    } else if let Some(i) = list.iter().rposition(|&p| p == id) {
        list.remove(i);
    }
}

/// An index's list of pod ids, shared with forks until written.
type IdList = Arc<Vec<PodId>>;

/// Interned up front so the engine can always look them up.
pub const WELL_KNOWN_STRINGS: [&str; 3] =
    ["", "kubernetes.io/hostname", "topology.kubernetes.io/zone"];

/// 16 nodes per shared chunk: a node's aggregates hold its pod lists, so
/// copying 256 of them for one write cost more than the write (a live
/// batch of 100 pod events copied most of the cluster's node chunks).
const NODE_CHUNK_BITS: u32 = 4;
/// One node's aggregates per shared chunk: every pod event of a live
/// batch writes its node's, and with 16 per chunk copying the other 15
/// (each holds its pod lists) was three quarters of the batch's model
/// update (3.1 ms → 1.2 ms for 100 events). A fork copies 5,000 pointers
/// instead of 313; placement and preemption read no slower (measured).
const NODE_INFO_CHUNK_BITS: u32 = 0;
/// 64 nodes' sums per shared chunk (8 KB): dense enough to stream, small
/// enough that a fork's first write to a node copies little.
const LOAD_CHUNK_BITS: u32 = 6;
/// 32 pods per shared chunk: a fork of 150,000 pods is still under 5,000
/// pointers.
const POD_CHUNK_BITS: u32 = 5;

#[derive(Clone, Debug, Default)]
pub struct Cluster {
    pub interner: Interner,
    /// Nodes, their aggregates and pods are shared with forks of the
    /// cluster until written ([`SharedVec`]): a what-if's fork costs
    /// pointers, not a copy of 150,000 pods. Their chunks are small
    /// because a live feed writes one pod and its node at a time while the
    /// views hold the cluster before: each write copies its chunk.
    pub nodes: SharedVec<Node, NODE_CHUNK_BITS>,
    pub node_infos: SharedVec<NodeInfo, NODE_INFO_CHUNK_BITS>,
    /// Each node's sums from `nodes` and `node_infos`, dense (see
    /// [`NodeLoad`]); every write to either refreshes its node's.
    node_loads: SharedVec<NodeLoad, LOAD_CHUNK_BITS>,
    /// Every pod of the snapshot, scheduled or not.
    pub pods: SharedVec<Arc<Pod>, POD_CHUNK_BITS>,
    pub priority_classes: Vec<PriorityClass>,
    /// Shared with forks (only building the cluster writes them).
    pub pdbs: Arc<Vec<DisruptionBudget>>,
    /// Shared with forks (a what-if with a draft controller replaces it).
    pub owners: Arc<Vec<SelectorOwner>>,
    /// Namespace labels, for `namespaceSelector`s; unknown namespaces have none.
    pub namespaces: FxHashMap<Sym, Labels>,
    pub images: FxHashMap<Sym, ImageSummary>,
    /// StorageClasses, PersistentVolumes, PersistentVolumeClaims and CSINodes.
    /// Shared with forks until one writes (a StatefulSet what-if binds claims).
    pub storage: Arc<super::storage::Storage>,
    /// DeviceClasses, ResourceSlices, ResourceClaims and ResourceClaimTemplates.
    pub dra: super::dra::Dra,
    /// Object kinds the snapshot held that kplace does not use, with counts.
    pub skipped_kinds: BTreeMap<String, usize>,
    /// The API server's `gitVersion` that `kplace record` stored in the
    /// snapshot or timeline (`None` for a plain kubectl List).
    pub recorded_server_version: Option<String>,
    /// Shared with forks until a node comes or goes.
    node_by_name: Arc<FxHashMap<Box<str>, NodeId>>,
    /// Scheduled pods by label pair, to find the pods a selector can match.
    /// Each list is shared with forks until written: a fork (the views'
    /// snapshot of a live model, every batch) copies pointers, and a write
    /// copies only the lists it changes.
    label_index: FxHashMap<(Sym, Sym), IdList>,
    /// Scheduled pods by label key, for `Exists` requirements.
    key_index: FxHashMap<Sym, IdList>,
    num_scheduled: usize,
    /// Unbound pods carrying `status.nominatedNodeName`.
    nominated: Vec<PodId>,
    /// PDB indexes by namespace.
    pdbs_by_namespace: FxHashMap<Sym, Vec<usize>>,
    /// Per pod, the PDBs selecting it (empty selectors, which preemption
    /// ignores, are left out).
    pod_pdbs: SharedVec<Box<[u32]>, POD_CHUNK_BITS>,
    /// Per pod, its priority: preemption reads it for every pod of every
    /// node, so it is kept dense rather than in the large `Pod` records.
    pod_priorities: Vec<i32>,
    affinity_groups: AffinityGroups,
    /// Pods by namespace and name, once the cluster changes in place
    /// (`incremental`); `None` for a snapshot that never does.
    pod_by_key: Option<Arc<FxHashMap<incremental::PodKey, PodId>>>,
    /// What the engine works out from the nodes and owners alone
    /// ([`Cluster::from_nodes`]).
    from_nodes: from_nodes::FromNodes,
}

impl Cluster {
    /// Builds a cluster from converted objects. Pods are bound to nodes by
    /// `spec.nodeName`; the scheduler ignores pods in a terminal phase and
    /// pods bound to a node without a Node object.
    ///
    /// The pods come in chunks, in order (any sizes): each chunk is freed
    /// once its pods are moved into the cluster, so they are never held
    /// twice, and chunks are moved on both cores.
    pub fn new(
        mut interner: Interner,
        nodes: Vec<Node>,
        pods: Vec<Vec<Arc<Pod>>>,
        mut priority_classes: Vec<PriorityClass>,
        pdbs: Vec<DisruptionBudget>,
        owners: Vec<SelectorOwner>,
        namespaces: FxHashMap<Sym, Labels>,
    ) -> Self {
        for system in ["system-cluster-critical", "system-node-critical"] {
            if !priority_classes.iter().any(|pc| &*pc.name == system) {
                priority_classes.extend(system_priority_class(system));
            }
        }
        // Strings the engine compares against even when no object carries them:
        // the system default spread keys, and "" (a missing label's value).
        for s in WELL_KNOWN_STRINGS {
            interner.intern(s);
        }
        let mut cluster = Cluster {
            interner,
            nodes: SharedVec::new(),
            pods: SharedVec::new(),
            priority_classes,
            pdbs: Arc::new(pdbs),
            owners: Arc::new(owners),
            namespaces,
            ..Default::default()
        };
        for node in nodes {
            let id = cluster.nodes.len() as NodeId;
            if cluster.node_by_name.contains_key(&node.name) {
                continue;
            }
            Arc::make_mut(&mut cluster.node_by_name).insert(node.name.clone(), id);
            cluster.nodes.push(node);
        }
        cluster.rebuild_images();
        for (i, pdb) in cluster.pdbs.iter().enumerate() {
            cluster
                .pdbs_by_namespace
                .entry(pdb.namespace)
                .or_default()
                .push(i);
        }
        let bound = cluster.add_new_pods(pods);
        cluster.fill_node_infos(&bound);
        cluster.fill_missing_pdb_status();
        cluster
    }

    /// Storage to write (a StatefulSet what-if creates and binds claims):
    /// the first write in a fork copies it, the snapshot's stays as it was.
    pub fn storage_mut(&mut self) -> &mut super::storage::Storage {
        Arc::make_mut(&mut self.storage)
    }

    /// Records which PDBs select a pod, for preemption's PDB accounting.
    fn index_pod_pdbs(&mut self, id: PodId) {
        if self.pod_pdbs.len() <= id as usize {
            self.pod_pdbs.resize(id as usize + 1, Box::default());
        }
        let matching = self.matching_pdbs(id);
        self.pod_pdbs[id as usize] = matching;
        self.flag_pdbs_on_node(id);
    }

    /// The PDBs (indexes into `pdbs`) whose non-empty selector matches the
    /// pod, worked out from the pod's labels and namespace.
    fn matching_pdbs(&self, id: PodId) -> Box<[u32]> {
        self.pdbs_matching(&self.pods[id as usize])
    }

    /// [`Cluster::matching_pdbs`] for a pod record.
    fn pdbs_matching(&self, pod: &Pod) -> Box<[u32]> {
        // An unlabelled pod matches no PDB (and one that lost its labels
        // in an update no longer matches the ones it did).
        if pod.labels.is_empty() {
            return Box::default();
        }
        self.pdbs_in(pod.namespace)
            .iter()
            .filter(|&&i| {
                let sel = &self.pdbs[i].selector;
                !sel.is_everything() && sel.matches(&pod.labels)
            })
            .map(|&i| i as u32)
            .collect()
    }

    /// Copies which PDBs select the pod into its brief on its node.
    fn flag_pdbs_on_node(&mut self, id: PodId) {
        let Some(node) = self.pods[id as usize].node else {
            return;
        };
        let info = &self.node_infos[node as usize];
        let Some(i) = info.pods.iter().position(|&p| p == id) else {
            return;
        };
        let mut brief = info.briefs[i];
        brief.set_pdbs(self.pdbs_of_pod(id));
        if info.briefs[i] != brief {
            self.node_infos[node as usize].briefs[i] = brief;
        }
    }

    /// The brief a node holds for a pod bound to it, as it should be (a
    /// check for tests of the incremental model).
    pub fn brief_of(&self, id: PodId) -> PodBrief {
        let mut brief = PodBrief::of(self.pod(id));
        brief.set_pdbs(self.pdbs_of_pod(id));
        brief
    }

    /// The PDBs (indexes into `pdbs`) whose non-empty selector matches the pod.
    pub fn pdbs_of_pod(&self, id: PodId) -> &[u32] {
        self.pod_pdbs
            .get(id as usize)
            .map(|v| &v[..])
            .unwrap_or(&[])
    }

    /// The scheduled pods with inter-pod affinity terms, grouped by terms.
    pub fn affinity_groups(&self) -> &AffinityGroups {
        &self.affinity_groups
    }

    /// `PodPriority(pod)`, from a dense array.
    pub fn priority_of(&self, id: PodId) -> i32 {
        self.pod_priorities[id as usize]
    }

    /// The cluster without some nodes (a lost zone): their pods become
    /// unbound. Pod ids stay the same; node ids are renumbered.
    pub fn without_nodes(&self, gone: &[NodeId]) -> Cluster {
        // By node id: a zone is a thousand nodes, asked about for every pod.
        let mut is_gone = vec![false; self.nodes.len()];
        for &n in gone {
            if let Some(g) = is_gone.get_mut(n as usize) {
                *g = true;
            }
        }
        let Some(first_gone) = is_gone.iter().position(|&g| g) else {
            return self.clone();
        };
        // The kept nodes keep their order; each one's new id.
        let mut new_id = vec![NodeId::MAX; self.nodes.len()];
        let mut nodes = SharedVec::new();
        let mut node_infos = SharedVec::new();
        let mut node_loads = SharedVec::new();
        let mut node_by_name = FxHashMap::default();
        for (n, node) in self.nodes.iter().enumerate() {
            if is_gone[n] {
                continue;
            }
            new_id[n] = nodes.len() as NodeId;
            node_by_name.insert(node.name.clone(), new_id[n]);
            nodes.push(node.clone());
            // A kept node holds the same pods, under the same ids.
            node_infos.push(self.node_infos[n].clone());
            node_loads.push(self.node_loads[n]);
        }
        // The pods of the lost nodes become pending, unbound; every other
        // bound pod past the first lost node gets its node's new id.
        let mut leaving = vec![false; self.pods.len()];
        let mut left = 0;
        for n in (first_gone..self.nodes.len()).filter(|&n| is_gone[n]) {
            for &id in &self.node_infos[n].pods {
                leaving[id as usize] = true;
                left += 1;
            }
        }
        let pods = self.pods.changed_where(
            |p| p.node.is_some_and(|n| n as usize >= first_gone),
            |p| {
                let Some(n) = p.node else { return };
                let p = Arc::make_mut(p);
                if is_gone[n as usize] {
                    p.node = None;
                    p.node_name = None;
                    p.phase = PodPhase::Pending;
                } else {
                    p.node = Some(new_id[n as usize]);
                }
            },
        );
        /// An index of scheduled pods without the pods that left.
        fn scheduled_only<K: Copy + Eq + std::hash::Hash>(
            index: &FxHashMap<K, IdList>,
            leaving: &[bool],
        ) -> FxHashMap<K, IdList> {
            index
                .iter()
                .filter_map(|(&key, list)| {
                    let kept: Vec<PodId> = list
                        .iter()
                        .copied()
                        .filter(|&id| !leaving[id as usize])
                        .collect();
                    (!kept.is_empty()).then_some((key, Arc::new(kept)))
                })
                .collect()
        }
        // An unbound pod that names a nominated node waits for it, as
        // `add_pod` lists it; in pod order, as a rebuild finds them.
        let mut nominated: Vec<PodId> = self.nominated.clone();
        nominated.extend(
            (0..self.pods.len() as PodId).filter(|&id| {
                leaving[id as usize] && pods[id as usize].nominated_node_name.is_some()
            }),
        );
        nominated.sort_unstable();
        let mut affinity_groups = self.affinity_groups.clone();
        for group in &mut affinity_groups.groups {
            let mut on_kept = FxHashMap::default();
            let mut pods_on_kept = 0;
            for (&n, &count) in &group.nodes {
                if !is_gone[n as usize] {
                    on_kept.insert(new_id[n as usize], count);
                    pods_on_kept += count;
                }
            }
            group.nodes = on_kept;
            group.pods = pods_on_kept;
        }
        let mut cluster = Cluster {
            interner: self.interner.clone(),
            nodes,
            node_infos,
            node_loads,
            pods,
            priority_classes: self.priority_classes.clone(),
            // Pod labels are unchanged, so are the budgets they match.
            pdbs: Arc::clone(&self.pdbs),
            owners: self.owners.clone(),
            namespaces: self.namespaces.clone(),
            images: FxHashMap::default(),
            storage: Arc::clone(&self.storage),
            dra: self.dra.clone(),
            skipped_kinds: self.skipped_kinds.clone(),
            recorded_server_version: self.recorded_server_version.clone(),
            node_by_name: Arc::new(node_by_name),
            label_index: scheduled_only(&self.label_index, &leaving),
            key_index: scheduled_only(&self.key_index, &leaving),
            num_scheduled: self.num_scheduled - left,
            nominated,
            pdbs_by_namespace: self.pdbs_by_namespace.clone(),
            pod_pdbs: self.pod_pdbs.clone(),
            pod_priorities: self.pod_priorities.clone(),
            from_nodes: Default::default(),
            affinity_groups,
            pod_by_key: self.pod_by_key.clone(),
        };
        cluster.rebuild_images();
        cluster
    }

    /// [`Cluster::without_nodes`] by building the cluster anew from copies
    /// of its objects: the reference the fork is checked against.
    #[doc(hidden)]
    pub fn without_nodes_rebuilt(&self, gone: &[NodeId]) -> Cluster {
        // By node id: a zone is a thousand nodes, asked about for every pod.
        let mut is_gone = vec![false; self.nodes.len()];
        for &n in gone {
            if let Some(g) = is_gone.get_mut(n as usize) {
                *g = true;
            }
        }
        let nodes: Vec<Node> = (0..self.nodes.len())
            .filter(|&n| !is_gone[n])
            .map(|n| self.nodes[n].clone())
            .collect();
        // Every pod is copied (node ids change); on both cores, as losing
        // a zone of the 5,000-node cluster copies 150,000 of them.
        let pods = kplace_split::in_parts(self.pods.len(), |range| {
            range
                .map(|i| {
                    let mut p = Pod::clone(&self.pods[i]);
                    if p.node.is_some_and(|n| is_gone[n as usize]) {
                        p.node_name = None;
                        p.phase = PodPhase::Pending;
                    }
                    p.node = None;
                    Arc::new(p)
                })
                .collect::<Vec<_>>()
        });
        let mut cluster = Cluster::new(
            self.interner.clone(),
            nodes,
            pods,
            self.priority_classes.clone(),
            self.pdbs.to_vec(),
            self.owners.to_vec(),
            self.namespaces.clone(),
        );
        cluster.skipped_kinds = self.skipped_kinds.clone();
        cluster.recorded_server_version = self.recorded_server_version.clone();
        cluster.storage = self.storage.clone();
        cluster.dra = self.dra.clone();
        cluster
    }

    /// What differs between two models, field by field (indexes compared
    /// as sets where their order carries no meaning): empty when they are
    /// the same. For tests that check a shortcut against a rebuild.
    #[doc(hidden)]
    pub fn model_differences(&self, other: &Cluster) -> Vec<String> {
        fn sorted<K: Ord + std::fmt::Debug, V: std::fmt::Debug>(
            map: impl Iterator<Item = (K, V)>,
        ) -> String {
            let mut entries: Vec<(K, V)> = map.collect();
            entries.sort_by(|a, b| a.0.cmp(&b.0));
            format!("{entries:?}")
        }
        /// An index's lists, leaving out the empty ones a removal leaves.
        fn non_empty<K: Ord + std::fmt::Debug>(index: &FxHashMap<K, IdList>) -> String {
            sorted(index.iter().filter(|(_, l)| !l.is_empty()))
        }
        fn groups(c: &Cluster) -> Vec<String> {
            let mut out: Vec<String> = c
                .affinity_groups
                .iter()
                .map(|g| {
                    let on = sorted(g.nodes.iter().map(|(&n, &k)| (n, k)));
                    format!("{:?} {on} {}", g.terms, g.pods)
                })
                .collect();
            out.sort();
            out
        }
        let mut out = Vec::new();
        let mut same = |what: &str, a: String, b: String| {
            if a != b {
                let cut = |s: &str| s.chars().take(400).collect::<String>();
                out.push(format!("{what}:\n  {}\n  {}", cut(&a), cut(&b)));
            }
        };
        // A field compared through `show` (its Debug text unless named),
        // under its own name.
        macro_rules! compare {
            ($field:ident) => {
                compare!($field, |v| format!("{v:?}"))
            };
            ($field:ident, $show:expr) => {
                same(
                    stringify!($field),
                    $show(&self.$field),
                    $show(&other.$field),
                )
            };
        }
        compare!(nodes);
        compare!(node_loads);
        for (n, (a, b)) in self
            .node_infos
            .iter()
            .zip(other.node_infos.iter())
            .enumerate()
        {
            same(
                &format!("node_infos[{n}]"),
                format!("{a:?}"),
                format!("{b:?}"),
            );
        }
        same(
            "pod count",
            self.pods.len().to_string(),
            other.pods.len().to_string(),
        );
        for (i, (a, b)) in self.pods.iter().zip(other.pods.iter()).enumerate() {
            if a != b {
                same(&format!("pods[{i}]"), format!("{a:?}"), format!("{b:?}"));
            }
        }
        compare!(priority_classes);
        compare!(pdbs);
        compare!(owners);
        compare!(namespaces, |m: &FxHashMap<_, _>| sorted(m.iter()));
        compare!(images, |m: &FxHashMap<_, _>| sorted(m.iter()));
        compare!(node_by_name, |m: &Arc<FxHashMap<_, _>>| sorted(m.iter()));
        compare!(label_index, non_empty);
        compare!(key_index, non_empty);
        compare!(num_scheduled);
        compare!(nominated);
        compare!(pdbs_by_namespace, |m: &FxHashMap<_, _>| sorted(m.iter()));
        compare!(pod_pdbs);
        compare!(pod_priorities);
        same(
            "affinity_groups",
            format!("{:?}", groups(self)),
            format!("{:?}", groups(other)),
        );
        compare!(storage);
        compare!(dra);
        compare!(skipped_kinds);
        compare!(recorded_server_version);
        out
    }

    /// Indexes (into `pdbs`) of the PodDisruptionBudgets of a namespace.
    pub fn pdbs_in(&self, namespace: Sym) -> &[usize] {
        self.pdbs_by_namespace
            .get(&namespace)
            .map(|v| v.as_slice())
            .unwrap_or(&[])
    }

    /// Unbound pods nominated to a node by an earlier preemption.
    pub fn nominated_pods(&self) -> &[PodId] {
        &self.nominated
    }

    fn rebuild_images(&mut self) {
        self.images.clear();
        for node in &self.nodes {
            let mut seen: Vec<Sym> = Vec::with_capacity(node.images.len());
            for &(name, size) in node.images.iter() {
                if seen.contains(&name) {
                    continue;
                }
                seen.push(name);
                self.images
                    .entry(name)
                    .and_modify(|s| s.num_nodes += 1)
                    .or_insert(ImageSummary { size, num_nodes: 1 });
            }
        }
    }

    /// Adds a node without pods (a what-if's new node); a name already
    /// taken is refused.
    pub fn add_node(&mut self, node: Node) -> Option<NodeId> {
        if self.node_by_name.contains_key(&node.name) {
            return None;
        }
        let id = self.nodes.len() as NodeId;
        Arc::make_mut(&mut self.node_by_name).insert(node.name.clone(), id);
        self.count_images(&node, 1);
        self.node_loads
            .push(NodeLoad::of(&node, &NodeInfo::default()));
        self.nodes.push(node);
        self.node_infos.push(NodeInfo::default());
        Some(id)
    }

    /// Takes back the last `n` nodes [`Cluster::add_node`] added; they must
    /// hold no pods.
    pub fn remove_last_nodes(&mut self, n: usize) {
        for _ in 0..n {
            let Some(node) = self.nodes.pop() else { break };
            debug_assert!(self.node_infos.last().is_some_and(|i| i.pods.is_empty()));
            self.node_infos.pop();
            self.node_loads.pop();
            Arc::make_mut(&mut self.node_by_name).remove(&node.name);
            self.count_images(&node, -1);
        }
    }

    /// ImageLocality's spread count: each distinct image of `node` counted
    /// on `by` more (or fewer) nodes.
    fn count_images(&mut self, node: &Node, by: i32) {
        let mut seen: Vec<Sym> = Vec::with_capacity(node.images.len());
        for &(name, size) in node.images.iter() {
            if seen.contains(&name) {
                continue;
            }
            seen.push(name);
            let entry = self
                .images
                .entry(name)
                .or_insert(ImageSummary { size, num_nodes: 0 });
            entry.num_nodes = (entry.num_nodes as i32 + by).max(0) as u32;
            if entry.num_nodes == 0 {
                self.images.remove(&name);
            }
        }
    }

    pub fn node_id(&self, name: &str) -> Option<NodeId> {
        self.node_by_name.get(name).copied()
    }

    pub fn node(&self, id: NodeId) -> &Node {
        &self.nodes[id as usize]
    }

    pub fn node_info(&self, id: NodeId) -> &NodeInfo {
        &self.node_infos[id as usize]
    }

    pub fn pod(&self, id: PodId) -> &Pod {
        &self.pods[id as usize]
    }

    /// The pod record to change: copied first (that pod alone) when a
    /// fork shares it.
    pub fn pod_mut(&mut self, id: PodId) -> &mut Pod {
        Arc::make_mut(&mut self.pods[id as usize])
    }

    /// The symbol of the empty string, which stands for a missing label value.
    pub fn empty_sym(&self) -> Sym {
        self.interner.lookup("").expect("interned at construction")
    }

    pub fn num_scheduled_pods(&self) -> usize {
        self.num_scheduled
    }

    /// Whether the scheduler's cache holds this pod on a node.
    fn scheduler_node(&self, pod: &Pod) -> Option<NodeId> {
        if pod.phase.is_terminal() {
            return None;
        }
        pod.node_name.as_deref().and_then(|n| self.node_id(n))
    }

    /// The node a pod is bound to (`spec.nodeName`) when the snapshot holds
    /// no Node of that name: the scheduler counts the pod nowhere, yet it
    /// is not pending. `None` for other pods (and terminal ones).
    pub fn absent_node_of<'p>(&self, pod: &'p Pod) -> Option<&'p str> {
        if pod.node.is_some() || pod.phase.is_terminal() {
            return None;
        }
        pod.node_name
            .as_deref()
            .filter(|n| self.node_id(n).is_none())
    }

    /// Adds a pod (bound or not) and, if bound to a known node, accounts for it there.
    pub fn add_pod(&mut self, pod: Pod) -> PodId {
        let id = self.add_pod_unindexed(Arc::new(pod));
        self.index_pod_pdbs(id);
        id
    }

    /// The pods of a new cluster (`chunks`, in order) recorded in every
    /// index but their nodes' aggregates, each bound to the node the
    /// scheduler counts it on, as [`Cluster::add_pod`] records one. Read
    /// in one pass on both cores, a range of chunks each: a pass over
    /// 150,000 pod records waits on memory, and building the synthetic
    /// cluster spent half its time in four of them (binding, the label
    /// indexes' dozen map updates per pod, the PDBs). Each range's
    /// findings are merged in order, so every list is in id order as one
    /// pass makes it. `pdbs_by_namespace` must be filled first.
    fn add_new_pods(&mut self, chunks: Vec<Vec<Arc<Pod>>>) -> Vec<(PodId, NodeId)> {
        let mut first_id = Vec::with_capacity(chunks.len());
        let mut count = 0;
        for chunk in &chunks {
            first_id.push(count);
            count += chunk.len();
        }
        let slots: Vec<std::sync::Mutex<Vec<Arc<Pod>>>> =
            chunks.into_iter().map(std::sync::Mutex::new).collect();
        let this = &*self;
        let parts = kplace_split::in_parts_from(1, slots.len(), |range| {
            let mut found = NewPods::default();
            for c in range {
                let mut slot = slots[c].lock().unwrap_or_else(|e| e.into_inner());
                let mut chunk = std::mem::take(&mut *slot);
                for (id, pod) in (first_id[c] as PodId..).zip(chunk.iter_mut()) {
                    let node = this.scheduler_node(pod);
                    if pod.node != node {
                        // A loaded snapshot's pod is held by no one else:
                        // written in place.
                        Arc::make_mut(pod).node = node;
                    }
                    found.add(this, id, pod);
                }
                found.pods.append(&mut chunk);
            }
            found
        });
        self.pod_priorities.reserve(count);
        let mut pdbs = Vec::with_capacity(count);
        let mut labels = Vec::with_capacity(parts.len());
        let mut keys = Vec::with_capacity(parts.len());
        let mut bound = Vec::with_capacity(count);
        for part in parts {
            let first = self.pods.len();
            for &(id, node) in &part.with_affinity {
                let pod = &part.pods[id as usize - first];
                self.affinity_groups.update(pod, node, true);
            }
            self.pod_priorities.extend(part.priorities);
            pdbs.extend(part.pdbs);
            self.nominated.extend(part.nominated);
            self.num_scheduled += part.bound.len();
            bound.extend(part.bound);
            for pod in part.pods {
                self.pods.push(pod);
            }
            labels.push(part.labels);
            keys.push(part.keys);
        }
        /// Each later range's lists appended to the index's, key by key.
        fn merge<K: Eq + std::hash::Hash>(
            index: &mut FxHashMap<K, IdList>,
            parts: Vec<FxHashMap<K, IdList>>,
        ) {
            for part in parts {
                if index.is_empty() {
                    *index = part;
                    continue;
                }
                for (key, ids) in part {
                    Arc::make_mut(index.entry(key).or_default()).extend_from_slice(&ids);
                }
            }
        }
        self.pod_pdbs = pdbs.into_iter().collect();
        merge(&mut self.label_index, labels);
        merge(&mut self.key_index, keys);
        bound
    }

    /// Records a pod whose node is set already, in every index but its
    /// node's aggregates ([`Cluster::add_pod_unindexed`] adds those; a new
    /// cluster records all its pods at once, [`Cluster::add_new_pods`]).
    fn index_new_pod(&mut self, pod: Arc<Pod>) {
        let id = self.pods.len() as PodId;
        self.pod_priorities.push(pod.priority_value());
        if let Some(node) = pod.node {
            self.affinity_groups.update(&pod, node, true);
            for (k, v) in pod.labels.iter() {
                Arc::make_mut(self.label_index.entry((k, v)).or_default()).push(id);
                Arc::make_mut(self.key_index.entry(k).or_default()).push(id);
            }
            self.num_scheduled += 1;
        } else if pod.nominated_node_name.is_some() {
            self.nominated.push(id);
        }
        self.pods.push(pod);
    }

    /// Every node's aggregates from its pods (`bound`: each bound pod and
    /// its node, in id order), added in id order as [`Cluster::add_pod`]
    /// adds them, each brief saying which PDBs select its pod (`pod_pdbs`,
    /// worked out first); nodes are independent, so on both cores.
    fn fill_node_infos(&mut self, bound: &[(PodId, NodeId)]) {
        let nodes = self.nodes.len();
        // Each node's pods, in id order: a counting sort by node.
        let mut starts = vec![0usize; nodes + 1];
        for &(_, n) in bound {
            starts[n as usize + 1] += 1;
        }
        for n in 0..nodes {
            starts[n + 1] += starts[n];
        }
        let mut next = starts.clone();
        let mut ids = vec![0 as PodId; starts[nodes]];
        for &(id, n) in bound {
            ids[next[n as usize]] = id;
            next[n as usize] += 1;
        }
        let pods = &self.pods;
        let pod_pdbs = &self.pod_pdbs;
        let (infos, _) = kplace_split::build(
            nodes,
            |_| NodeInfo::default(),
            |offset, part| {
                for (n, info) in (offset..).zip(part.iter_mut()) {
                    // Sized once: each node's lists would otherwise grow
                    // four or five times on the way to its thirty pods.
                    let count = starts[n + 1] - starts[n];
                    info.pods.reserve_exact(count);
                    info.briefs.reserve_exact(count);
                    for &id in &ids[starts[n]..starts[n + 1]] {
                        let pod = &pods[id as usize];
                        let mut brief = PodBrief::of(pod);
                        if let Some(pdbs) = pod_pdbs.get(id as usize) {
                            brief.set_pdbs(pdbs);
                        }
                        info.add_pod_brief(id, brief, || pod);
                    }
                }
            },
        );
        self.node_infos = infos.into();
        self.node_loads = self
            .nodes
            .iter()
            .zip(self.node_infos.iter())
            .map(|(node, info)| NodeLoad::of(node, info))
            .collect::<Vec<_>>()
            .into();
    }

    /// A node's sums, dense ([`NodeLoad`]): what placements read of every node.
    pub fn node_load(&self, id: NodeId) -> &NodeLoad {
        &self.node_loads[id as usize]
    }

    /// The nodes whose [`NodeLoad`] differs from their node and aggregates
    /// (none, unless a write forgot to refresh it): a check for tests.
    #[doc(hidden)]
    pub fn stale_loads(&self) -> Vec<NodeId> {
        (0..self.nodes.len().max(self.node_loads.len()))
            .filter(|&n| {
                let expected = (self.nodes.get(n))
                    .zip(self.node_infos.get(n))
                    .map(|(node, info)| NodeLoad::of(node, info));
                self.node_loads.get(n).copied() != expected
            })
            .map(|n| n as NodeId)
            .collect()
    }

    /// Refreshes a node's [`NodeLoad`] after a write to the node or its
    /// aggregates.
    fn sync_load(&mut self, n: NodeId) {
        let load = NodeLoad::of(&self.nodes[n as usize], &self.node_infos[n as usize]);
        self.node_loads[n as usize] = load;
    }

    /// [`Cluster::add_pod`] but for the PDBs selecting the pod, which
    /// [`Cluster::new`] works out for all pods at once.
    fn add_pod_unindexed(&mut self, mut pod: Arc<Pod>) -> PodId {
        let id = self.pods.len() as PodId;
        let node = self.scheduler_node(&pod);
        if pod.node != node {
            Arc::make_mut(&mut pod).node = node;
        }
        if let Some(node) = pod.node {
            self.node_infos[node as usize].add_pod(id, &pod);
            self.sync_load(node);
        }
        self.index_new_pod(pod);
        id
    }

    /// Binds an unscheduled pod to a node, as an assumed pod (what-if placement).
    pub fn bind_pod(&mut self, id: PodId, node: NodeId) {
        let node_name = self.nodes[node as usize].name.clone();
        if self.pods[id as usize].node.is_some() {
            return;
        }
        let pod = self.pod_mut(id);
        pod.node_name = Some(node_name);
        if pod.phase.is_terminal() {
            pod.phase = PodPhase::Pending;
        }
        pod.node = Some(node);
        self.nominated.retain(|&p| p != id);
        let pod = &self.pods[id as usize];
        self.node_infos[node as usize].add_pod(id, pod);
        self.sync_load(node);
        let pod = &self.pods[id as usize];
        self.affinity_groups.update(pod, node, true);
        for (k, v) in pod.labels.iter() {
            Arc::make_mut(self.label_index.entry((k, v)).or_default()).push(id);
            Arc::make_mut(self.key_index.entry(k).or_default()).push(id);
        }
        self.num_scheduled += 1;
        self.flag_pdbs_on_node(id);
    }

    /// Takes a scheduled pod off its node (evicted, or deleted in a what-if).
    pub fn unbind_pod(&mut self, id: PodId) {
        let Some(node) = self.pods[id as usize].node else {
            return;
        };
        let pod = &self.pods[id as usize];
        if self.node_infos[node as usize].remove_pod(id, pod) {
            self.affinity_groups.update(pod, node, false);
        }
        self.sync_load(node);
        let pod = &self.pods[id as usize];
        for (k, v) in pod.labels.iter() {
            if let Some(list) = self.label_index.get_mut(&(k, v)) {
                remove_id(Arc::make_mut(list), id);
            }
            if let Some(list) = self.key_index.get_mut(&k) {
                remove_id(Arc::make_mut(list), id);
            }
        }
        self.num_scheduled -= 1;
        let pod = self.pod_mut(id);
        pod.node = None;
        pod.node_name = None;
    }

    /// The smallest index list holding every scheduled pod that meets
    /// `reqs`, with the requirement every pod of the list meets by being
    /// in it (`key=value` and `key` exists; not `key in (a, b)`, read from
    /// the key's list), which a match then need not check again; `None`
    /// when no requirement narrows it (any scheduled pod may match).
    fn narrowest(&self, reqs: &[Requirement]) -> Option<(&[PodId], Option<usize>)> {
        const EMPTY: &[PodId] = &[];
        let mut best: Option<(&[PodId], Option<usize>)> = None;
        for (i, r) in reqs.iter().enumerate() {
            let found = match r.op {
                SetOperator::In if r.values.len() == 1 => Some((
                    self.label_index
                        .get(&(r.key, r.values[0]))
                        .map(|v| v.as_slice())
                        .unwrap_or(EMPTY),
                    Some(i),
                )),
                SetOperator::In | SetOperator::Exists => Some((
                    self.key_index
                        .get(&r.key)
                        .map(|v| v.as_slice())
                        .unwrap_or(EMPTY),
                    (r.op == SetOperator::Exists).then_some(i),
                )),
                _ => None,
            };
            if let Some((list, met)) = found
                && best.is_none_or(|(b, _)| list.len() < b.len())
            {
                best = Some((list, met));
            }
        }
        best
    }

    /// Calls `f` for every scheduled pod whose labels match `selector`.
    pub fn for_each_scheduled_match(&self, selector: &LabelSelector, f: impl FnMut(PodId, &Pod)) {
        self.for_each_scheduled_match_where(selector, |_| true, f);
    }

    /// [`Cluster::for_each_scheduled_match`] for the pods of one
    /// namespace. The namespace is compared before the selector: a label
    /// index list holds every namespace's pods with that label (many
    /// teams call a workload `app=api`), and comparing a symbol is
    /// cheaper than matching the selector.
    pub fn for_each_scheduled_match_in(
        &self,
        namespace: Sym,
        selector: &LabelSelector,
        f: impl FnMut(PodId, &Pod),
    ) {
        self.for_each_scheduled_match_where(selector, |p| p.namespace == namespace, f);
    }

    fn for_each_scheduled_match_where(
        &self,
        selector: &LabelSelector,
        first: impl Fn(&Pod) -> bool,
        mut f: impl FnMut(PodId, &Pod),
    ) {
        let reqs = match selector {
            LabelSelector::Nothing => return,
            LabelSelector::Requirements(reqs) => reqs,
        };
        let narrowest = self.narrowest(reqs);
        // The requirement the list answers is not checked again.
        let met = narrowest.and_then(|(_, met)| met);
        let mut visit = |id: PodId| {
            let pod = &self.pods[id as usize];
            if first(pod)
                && reqs
                    .iter()
                    .enumerate()
                    .all(|(i, r)| Some(i) == met || r.matches(&pod.labels))
            {
                f(id, pod);
            }
        };
        match narrowest {
            Some((ids, _)) => ids.iter().for_each(|&id| visit(id)),
            None => {
                for info in &self.node_infos {
                    info.pods.iter().for_each(|&id| visit(id));
                }
            }
        }
    }

    /// Finds a pod by namespace and name.
    pub fn find_pod(&self, namespace: &str, name: &str) -> Option<PodId> {
        self.pod_id(self.interner.lookup(namespace)?, name)
    }

    /// The pods of this name in any namespace, in id order: for a pod
    /// named without its namespace (a scan; only on that path).
    pub fn pods_named<'a>(&'a self, name: &'a str) -> impl Iterator<Item = PodId> + 'a {
        (0..self.pods.len() as PodId).filter(move |&id| &*self.pod(id).name == name)
    }

    /// `ns/name` of the pods of this name (the first `max`, then `and N
    /// more`), or `None` when no namespace holds one: what to suggest for a
    /// pod asked in the wrong namespace or without one.
    pub fn pods_named_list(&self, name: &str, max: usize) -> Option<String> {
        let found: Vec<PodId> = self.pods_named(name).collect();
        if found.is_empty() {
            return None;
        }
        let mut list: Vec<String> = found.iter().take(max).map(|&id| self.pod_key(id)).collect();
        if found.len() > max {
            list.push(format!("and {} more", found.len() - max));
        }
        Some(list.join(", "))
    }

    pub fn priority_class(&self, name: &str) -> Option<&PriorityClass> {
        self.priority_classes.iter().find(|pc| &*pc.name == name)
    }

    pub fn namespace_labels(&self, ns: Sym) -> Option<&Labels> {
        self.namespaces.get(&ns)
    }

    pub fn pod_key(&self, id: PodId) -> String {
        let p = self.pod(id);
        format!("{}/{}", self.interner.resolve(p.namespace), p.name)
    }

    /// PDBs in a snapshot without `status` get `disruptionsAllowed` computed as
    /// the disruption controller would: healthy matching pods minus the
    /// desired healthy count (never below zero). The expected count is the
    /// number of matching scheduled pods, which stands in for the
    /// controllers' scale (unscheduled pods are never healthy).
    fn fill_missing_pdb_status(&mut self) {
        for i in 0..self.pdbs.len() {
            if self.pdbs[i].disruptions_allowed.is_some() {
                continue;
            }
            let pdb = &self.pdbs[i];
            let (mut expected, mut healthy) = (0i32, 0i32);
            self.for_each_scheduled_match_in(pdb.namespace, &pdb.selector, |_, pod| {
                if pod.is_terminating() {
                    return;
                }
                expected += 1;
                if pod.ready || pod.phase == PodPhase::Running {
                    healthy += 1;
                }
            });
            let scaled = |v: IntOrPercent| match v {
                IntOrPercent::Int(n) => n,
                IntOrPercent::Percent(p) => ((p as i64 * expected as i64 + 99) / 100) as i32,
            };
            let desired = match (pdb.min_available, pdb.max_unavailable) {
                (Some(min), _) => scaled(min),
                (None, Some(max)) => expected - scaled(max),
                (None, None) => expected,
            };
            let pdb = &mut Arc::make_mut(&mut self.pdbs)[i];
            pdb.disruptions_allowed = Some((healthy - desired).max(0));
            pdb.computed = true;
        }
    }
}

#[cfg(test)]
mod remove_id_tests {
    use super::*;

    /// Whatever the order (ascending, an appended tail, ids that mislead
    /// the binary search), the id goes and the others keep their order.
    #[test]
    fn removes_the_id_and_keeps_the_order_of_the_rest() {
        let lists: [Vec<PodId>; 4] = [
            (0..50).collect(),
            (0..40)
                .chain([3, 77, 1, 45])
                .filter(|&p| p != 3 && p != 1)
                .chain([3, 1])
                .collect(),
            vec![9, 8, 7, 6, 5, 4, 3, 2, 1, 0],
            vec![5, 1, 9, 0, 7, 2],
        ];
        for list in lists {
            for &id in &list {
                let mut got = list.clone();
                remove_id(&mut got, id);
                let expected: Vec<PodId> = list.iter().copied().filter(|&p| p != id).collect();
                assert_eq!(got, expected, "removing {id} from {list:?}");
            }
            let mut untouched = list.clone();
            remove_id(&mut untouched, 1000);
            assert_eq!(untouched, list);
        }
    }
}
