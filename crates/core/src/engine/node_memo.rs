//! What a run of many placements on one set of nodes can keep between
//! them: the verdicts of the Filter plugins that read only the pod and the
//! node (NodeUnschedulable, NodeName, TaintToleration, NodeAffinity) and
//! the raw scores of the Score plugins that do (TaintToleration,
//! NodeAffinity), and each node's value of the topology keys spreading
//! reads. Pods come and go between placements; these answers do
//! not change with them, only with the nodes. Replicas of thousands of
//! workloads share a handful of tolerations and node selectors, so a
//! disruption what-if that re-places 30,000 pods computes each answer once
//! per (profile, tolerations, node selector and affinity) instead of once
//! per pod and node. It also keeps the resource scores of each request
//! shape per node, reused while the node's request sums stay the same
//! ([`super::resource_scores`]), and the ImageLocality scores of each list
//! of images ([`super::image_scores`]).
//!
//! Not part of upstream: kube-scheduler filters every node in every
//! attempt. A memoized answer is the answer the plugin gives, so the
//! placements are the same with or without it (tested against full runs).

use std::cell::RefCell;
use std::sync::{Arc, Mutex, OnceLock};

use super::framework::Cycle;
use super::image_scores::ImageScores;
use super::plugins::noderesources::resource_allocation::{self, ScoredResource};
use super::profile::Profile;
use super::resource_scores::{ResourceScores, ScoreColumn};
use super::status::{FilterResult, Plugin, Rejection};
use crate::model::intern::Sym;
use crate::model::pod::{NodeAffinity, Toleration};
use crate::model::{Cluster, NodeId, Pod};
use rustc_hash::FxHashMap;

/// The Filter plugins whose verdict reads only the pod and the node.
pub(crate) fn reads_only_pod_and_node(plugin: Plugin) -> bool {
    matches!(
        plugin,
        Plugin::NodeUnschedulable
            | Plugin::NodeName
            | Plugin::TaintToleration
            | Plugin::NodeAffinity
    )
}

/// How many of the profile's Filter plugins, from the first, read only the
/// pod and the node: the first failure decides a node, so only a prefix can
/// be answered ahead of the plugins that read its pods.
pub(crate) fn static_prefix(profile: &Profile) -> usize {
    profile
        .filter
        .iter()
        .take_while(|&&p| reads_only_pod_and_node(p))
        .count()
}

/// Memoized answers for placements on one cluster's nodes. Valid while the
/// nodes (their names, labels, taints and cordons) and the cluster's owners
/// (Services and controllers, which the default spread constraints read)
/// stay as they were when it was made; binding and evicting pods does not
/// touch what it keeps.
/// Holds at most [`MAX_ENTRIES`] pod shapes, dropping the oldest.
pub struct NodeMemo {
    nodes: usize,
    /// Whether a placed pod's answer keeps the nodes that failed: false
    /// for runs that read only where pods land (see
    /// [`NodeMemo::without_failures_of_placed_pods`]).
    failures_of_placed_pods: bool,
    entries: RefCell<Vec<Arc<MemoEntry>>>,
    /// Shapes found to have too many distinct rejections, so that they are
    /// not run over every node again on each placement only to be refused.
    refused: RefCell<Vec<MemoKey>>,
    /// What every entry shares, made with the memo.
    shared: Shared,
}

/// What spreading reads of the cluster beyond the pod, kept for a memo's
/// placements, or with the cluster itself for any other placement
/// ([`Cluster::from_nodes`]): each node's value of a topology key, per key
/// asked for (PreScore reads them for every feasible node of every
/// placement, and NodeAffinity a `nodeSelector`'s for every node), and the
/// owners of each namespace (the default constraints' selector looks for
/// the Services and controller of each pod). Neither node labels nor
/// owners change while it is kept: a memo is made for fixed nodes, and the
/// cluster hands it out only while its nodes and owners are unchanged.
#[derive(Default)]
pub struct SpreadLookups {
    by_key: Mutex<Vec<(Sym, Column)>>,
    owners_by_namespace: OnceLock<FxHashMap<Sym, Box<[u32]>>>,
    /// Which nodes pass the node inclusion policies, per pod shape (the
    /// most recent [`MAX_INCLUSION_SHAPES`]): PreFilter asks it of every
    /// node for every constraint, and a fleet's or a disruption's pods
    /// share a handful of node selectors and tolerations.
    inclusion: Mutex<Vec<(InclusionKey, Inclusion)>>,
}

/// Per node: whether it passes a pod's node inclusion policies.
pub(crate) type Inclusion = Arc<[bool]>;

/// Inclusion masks kept (each one bool per node).
const MAX_INCLUSION_SHAPES: usize = 64;

/// What the node inclusion policies read of a pod: its required node
/// affinity (with the nodeAffinityPolicy `Honor`) and its tolerations
/// (with the nodeTaintsPolicy `Honor`).
#[derive(PartialEq)]
struct InclusionKey {
    node_selector: Option<Box<[(Sym, Sym)]>>,
    required: Option<Box<[crate::model::pod::NodeSelectorTerm]>>,
    affinity_honored: bool,
    tolerations: Option<Box<[Toleration]>>,
}

/// Each node's value of one key, by node id.
type Column = Arc<KeyColumn>;

/// Key columns a [`SpreadLookups`] keeps (each 12 bytes per node): a
/// cluster's topology and selector keys are a few dozen, and a pod naming
/// thousands of made-up keys must not make the kept state grow with them.
const MAX_KEPT_COLUMNS: usize = 64;

/// The most distinct keys one placement reads through columns (a
/// `nodeSelector`'s pairs, spreading's constraints, InterPodAffinity's
/// scored topology keys); a pod naming more is read from the nodes'
/// labels, so its memory does not grow by a column per key.
pub(crate) const MAX_COLUMNS_PER_POD: usize = 16;

/// One topology key over every node.
#[derive(Debug)]
pub(crate) struct KeyColumn {
    /// The node's value (`None`: the node lacks the key).
    pub values: Box<[Option<Sym>]>,
    /// The node's domain of the key: its value numbered in the order
    /// values first appear over the nodes, a node without the key counted
    /// with the empty value (as spreading pairs it).
    pub domain: Box<[u32]>,
    /// Each value's domain (the empty value's for nodes without the key).
    pub domain_of_value: FxHashMap<Sym, u32>,
    /// Every node has the key.
    pub every_node_has_key: bool,
}

impl KeyColumn {
    /// How many domains the key has.
    pub fn domains(&self) -> u32 {
        self.domain_of_value.len() as u32
    }
}

impl SpreadLookups {
    /// Every node's value of `key`, made on first use and kept (the
    /// first [`MAX_KEPT_COLUMNS`] keys asked for; later ones are made for
    /// the caller alone).
    pub(crate) fn column(&self, cluster: &Cluster, key: Sym) -> Column {
        let mut by_key = self.by_key.lock().unwrap_or_else(|e| e.into_inner());
        if let Some((_, column)) = by_key.iter().find(|(k, _)| *k == key) {
            return column.clone();
        }
        let keep = by_key.len() < MAX_KEPT_COLUMNS;
        let values: Box<[Option<Sym>]> = cluster.nodes.iter().map(|n| n.labels.get(key)).collect();
        let empty = cluster.empty_sym();
        let mut numbers: FxHashMap<Sym, u32> = FxHashMap::default();
        let domain = values
            .iter()
            .map(|v| {
                let next = numbers.len() as u32;
                *numbers.entry(v.unwrap_or(empty)).or_insert(next)
            })
            .collect();
        let column = Arc::new(KeyColumn {
            every_node_has_key: values.iter().all(Option::is_some),
            values,
            domain,
            domain_of_value: numbers,
        });
        if keep {
            by_key.push((key, column.clone()));
        }
        column
    }

    /// Which nodes pass `pod`'s node inclusion policies (the nodeAffinity
    /// and nodeTaints policies given as honored or not); `None` when every
    /// node does (nothing honored reads anything).
    pub(crate) fn inclusion(
        &self,
        cluster: &Cluster,
        pod: &Pod,
        affinity_honored: bool,
        taints_honored: bool,
    ) -> Option<Inclusion> {
        let required = pod.node_affinity.as_ref().and_then(|a| a.required.clone());
        let reads_affinity =
            affinity_honored && (pod.node_selector.is_some() || required.is_some());
        if !reads_affinity && !taints_honored {
            return None;
        }
        let key = InclusionKey {
            node_selector: pod.node_selector.clone().filter(|_| reads_affinity),
            required: required.filter(|_| reads_affinity),
            affinity_honored: reads_affinity,
            tolerations: taints_honored.then(|| pod.tolerations.clone()),
        };
        let find = |kept: &[(InclusionKey, Inclusion)]| {
            kept.iter().find(|(k, _)| *k == key).map(|(_, m)| m.clone())
        };
        if let Some(mask) = find(&self.inclusion.lock().unwrap_or_else(|e| e.into_inner())) {
            return Some(mask);
        }
        // Made outside the lock: other threads' shapes need not wait.
        let mask: Inclusion = cluster
            .nodes
            .iter()
            .map(|node| {
                super::plugins::podtopologyspread::common::passes_inclusion_policies(
                    pod,
                    node,
                    &cluster.interner,
                    reads_affinity,
                    taints_honored,
                )
            })
            .collect();
        let mut kept = self.inclusion.lock().unwrap_or_else(|e| e.into_inner());
        if let Some(mask) = find(&kept) {
            return Some(mask);
        }
        if kept.len() == MAX_INCLUSION_SHAPES {
            kept.remove(0);
        }
        kept.push((key, mask.clone()));
        Some(mask)
    }

    /// The indexes of `cluster.owners` in `namespace`, in order.
    pub(crate) fn owners_in(&self, cluster: &Cluster, namespace: Sym) -> &[u32] {
        let index = self.owners_by_namespace.get_or_init(|| {
            let mut index: FxHashMap<Sym, Vec<u32>> = FxHashMap::default();
            for (i, o) in cluster.owners.iter().enumerate() {
                index.entry(o.namespace).or_default().push(i as u32);
            }
            index
                .into_iter()
                .map(|(ns, ids)| (ns, ids.into_boxed_slice()))
                .collect()
        });
        index.get(&namespace).map_or(&[], |ids| &ids[..])
    }
}

/// Pod shapes kept: a disruption's queue interleaves few of them.
const MAX_ENTRIES: usize = 64;

/// Distinct rejections a shape may have before it is not memoized (each
/// distinct untolerated taint is one): finding a node's among them stays
/// cheap, and past it the placements simply run the plugins.
const MAX_REJECTIONS: usize = 256;

/// What the memoized answers read of the pod, and of which profile.
#[derive(Clone)]
struct MemoKey {
    /// The profile, by identity: its plugins, order and arguments.
    profile: Arc<Profile>,
    node_name: Option<Box<str>>,
    node_selector: Option<Box<[(Sym, Sym)]>>,
    node_affinity: Option<Box<NodeAffinity>>,
    tolerations: Box<[Toleration]>,
}

impl PartialEq for MemoKey {
    fn eq(&self, other: &Self) -> bool {
        Arc::ptr_eq(&self.profile, &other.profile)
            && self.node_name == other.node_name
            && self.node_selector == other.node_selector
            && self.node_affinity == other.node_affinity
            && self.tolerations == other.tolerations
    }
}

impl MemoKey {
    fn of(profile: &Arc<Profile>, pod: &Pod) -> Self {
        MemoKey {
            profile: profile.clone(),
            node_name: pod.node_name.clone(),
            node_selector: pod.node_selector.clone(),
            node_affinity: pod.node_affinity.clone(),
            tolerations: pod.tolerations.clone(),
        }
    }
}

/// One pod shape's answers on every node.
pub struct MemoEntry {
    key: MemoKey,
    /// Per node: 0 when it passes the static prefix, else 1 + the index of
    /// its rejection in `rejections`.
    verdicts: Box<[u16]>,
    rejections: Vec<Rejection>,
    /// The static prefix runs both NodeAffinity and TaintToleration (see
    /// [`MemoEntry::passes_inclusion_policies`]).
    prefix_checks_inclusion: bool,
    /// Raw TaintToleration and NodeAffinity scores per node, made on first
    /// use.
    taint_scores: OnceLock<Box<[i64]>>,
    affinity_scores: OnceLock<Box<[i64]>>,
    /// What the memo's entries share (the resource and image scores
    /// depend on the pod's requests and images, which the shape does not
    /// hold).
    shared: Shared,
}

impl MemoEntry {
    /// The kept scores of `plugin`'s scorer (NodeResourcesFit or
    /// NodeResourcesBalancedAllocation) for a pod requesting `resources`
    /// under the entry's profile; `None` when the scorer reads more of a
    /// node's pods than their cpu and memory sums.
    pub(crate) fn resource_scores(
        &self,
        plugin: super::status::Plugin,
        version: super::Version,
        resources: &[ScoredResource],
    ) -> Option<Arc<ScoreColumn>> {
        resource_allocation::reads_only_cpu_mem(resources).then(|| {
            self.shared
                .resource_scores
                .column(plugin, &self.key.profile, version, resources)
        })
    }

    /// Every node's ImageLocality score for the pod's images.
    pub(crate) fn image_scores(&self, cluster: &Cluster, pod: &Pod) -> Arc<[u8]> {
        self.shared.image_scores.column(cluster, pod)
    }

    /// Whether `node` is known to pass spreading's node inclusion
    /// policies for the entry's pods: it passes the static prefix, and the
    /// prefix holds both NodeAffinity and TaintToleration, whose Filters
    /// check what the policies do (the pod's required node affinity, and
    /// its NoSchedule and NoExecute taints tolerated) and more (the
    /// profile's added affinity). `false` says nothing: ask the policies.
    pub(crate) fn passes_inclusion_policies(&self, node: NodeId) -> bool {
        self.prefix_checks_inclusion && self.verdicts[node as usize] == 0
    }

    /// The static prefix's verdict on `node`.
    pub(crate) fn verdict(&self, node: NodeId) -> FilterResult {
        match self.rejection_of(node) {
            None => Ok(()),
            Some(i) => Err(self.rejection(i).clone()),
        }
    }

    /// Which of the entry's rejections the static prefix gives `node`
    /// (`None`: it passes), without copying it.
    pub(crate) fn rejection_of(&self, node: NodeId) -> Option<u16> {
        self.verdicts[node as usize].checked_sub(1)
    }

    /// The `i`-th distinct rejection (see [`MemoEntry::rejection_of`]).
    pub(crate) fn rejection(&self, i: u16) -> &Rejection {
        &self.rejections[usize::from(i)]
    }

    /// The raw TaintToleration scores of every node.
    pub(crate) fn taint_scores(&self, cluster: &Cluster, pod: &Pod) -> &[i64] {
        self.taint_scores.get_or_init(|| {
            every_node(cluster, |id| {
                super::plugins::taint_toleration::score(pod, cluster.node(id))
            })
        })
    }

    /// The raw NodeAffinity scores of every node.
    pub(crate) fn affinity_scores(
        &self,
        cluster: &Cluster,
        pod: &Pod,
        args: &super::profile::NodeAffinityArgs,
    ) -> &[i64] {
        self.affinity_scores.get_or_init(|| {
            every_node(cluster, |id| {
                super::plugins::node_affinity::score(pod, cluster.node(id), &cluster.interner, args)
            })
        })
    }
}

/// `f` of every node, on both cores.
fn every_node(cluster: &Cluster, f: impl Fn(NodeId) -> i64 + Sync) -> Box<[i64]> {
    let mut out = vec![0i64; cluster.nodes.len()];
    kplace_split::fill(&mut out, |offset, part| {
        for (id, v) in (offset..).zip(part) {
            *v = f(id as NodeId);
        }
    });
    out.into_boxed_slice()
}

impl NodeMemo {
    /// An empty memo for placements on `cluster`'s nodes as they are now.
    pub fn new(cluster: &Cluster) -> Self {
        NodeMemo {
            nodes: cluster.nodes.len(),
            failures_of_placed_pods: true,
            entries: RefCell::new(Vec::new()),
            refused: RefCell::new(Vec::new()),
            shared: Shared {
                lookups: Arc::default(),
                resource_scores: Arc::new(ResourceScores::new(cluster.nodes.len())),
                image_scores: Arc::new(ImageScores::new(cluster.nodes.len())),
            },
        }
    }

    /// Placements made with this memo leave out which nodes failed when
    /// the pod is placed (`failures` is empty then; every other field is
    /// the same): a run that reads only where pods land, as a disruption
    /// does, then never copies the static plugins' rejections of thousands
    /// of nodes per placement. A pod that fits nowhere keeps them all, in
    /// node order, for its message and preemption.
    pub fn without_failures_of_placed_pods(mut self) -> Self {
        self.failures_of_placed_pods = false;
        self
    }

    /// What spreading reads of `cluster`'s nodes and owners, kept for
    /// every placement on the memo's nodes (PreFilter reads it before a
    /// pod's entry is known).
    pub(crate) fn spread_lookups(&self, cluster: &Cluster) -> &SpreadLookups {
        assert_eq!(
            self.nodes,
            cluster.nodes.len(),
            "a NodeMemo answers only for the nodes it was made for"
        );
        &self.shared.lookups
    }

    /// Whether a placed pod's answer keeps the nodes that failed.
    pub(crate) fn keeps_failures_of_placed_pods(&self) -> bool {
        self.failures_of_placed_pods
    }

    /// The entry for the cycle's pod shape under `profile` (the cycle's),
    /// made (on both cores) when missing; `None` when the profile starts
    /// with no static plugin or the shape has too many distinct rejections.
    pub(crate) fn entry(&self, cycle: &Cycle, profile: &Arc<Profile>) -> Option<Arc<MemoEntry>> {
        if static_prefix(profile) == 0 {
            return None;
        }
        assert_eq!(
            self.nodes,
            cycle.cluster.nodes.len(),
            "a NodeMemo answers only for the nodes it was made for"
        );
        let key = MemoKey::of(profile, cycle.pod);
        let mut entries = self.entries.borrow_mut();
        if let Some(i) = entries.iter().position(|e| e.key == key) {
            // Most recently used last.
            let e = entries.remove(i);
            entries.push(e.clone());
            return Some(e);
        }
        let mut refused = self.refused.borrow_mut();
        if refused.contains(&key) {
            return None;
        }
        let shared = self.shared.clone();
        let Some(entry) = make_entry(cycle, &key, shared) else {
            if refused.len() == MAX_ENTRIES {
                refused.remove(0);
            }
            refused.push(key);
            return None;
        };
        let entry = Arc::new(entry);
        if entries.len() == MAX_ENTRIES {
            entries.remove(0);
        }
        entries.push(entry.clone());
        Some(entry)
    }
}

/// What a memo's entries share: the answers that do not depend on the
/// entry's pod shape.
#[derive(Clone)]
struct Shared {
    lookups: Arc<SpreadLookups>,
    resource_scores: Arc<ResourceScores>,
    image_scores: Arc<ImageScores>,
}

/// Runs the static prefix on every node, keeping each distinct rejection
/// once (`None`: more than [`MAX_REJECTIONS`] of them).
fn make_entry(cycle: &Cycle, key: &MemoKey, shared: Shared) -> Option<MemoEntry> {
    let cluster = cycle.cluster;
    let parts = kplace_split::in_parts(cluster.nodes.len(), |range| {
        range
            .map(|id| cycle.run_static_prefix(id as NodeId).err())
            .collect::<Vec<_>>()
    });
    let mut rejections: Vec<Rejection> = Vec::new();
    let mut verdicts = Vec::with_capacity(cluster.nodes.len());
    for rejection in parts.into_iter().flatten() {
        let Some(r) = rejection else {
            verdicts.push(0);
            continue;
        };
        let i = match rejections.iter().rposition(|known| *known == r) {
            Some(i) => i,
            None if rejections.len() == MAX_REJECTIONS => return None,
            None => {
                rejections.push(r);
                rejections.len() - 1
            }
        };
        verdicts.push(i as u16 + 1);
    }
    let prefix = &key.profile.filter[..static_prefix(&key.profile)];
    Some(MemoEntry {
        key: key.clone(),
        verdicts: verdicts.into_boxed_slice(),
        rejections,
        prefix_checks_inclusion: prefix.contains(&Plugin::NodeAffinity)
            && prefix.contains(&Plugin::TaintToleration),
        taint_scores: OnceLock::new(),
        affinity_scores: OnceLock::new(),
        shared,
    })
}

#[cfg(test)]
mod tests {
    use super::{MAX_KEPT_COLUMNS, SpreadLookups};
    use crate::model::Cluster;

    /// A pod naming ever more keys does not grow what the lookups keep:
    /// past the cap, columns are made for the caller and dropped with it.
    #[test]
    fn the_lookups_keep_a_bounded_number_of_key_columns() {
        let mut cluster = Cluster::default();
        cluster.interner.intern("");
        let keys: Vec<_> = (0..3 * MAX_KEPT_COLUMNS)
            .map(|i| cluster.interner.intern(&format!("made-up-{i}")))
            .collect();
        let lookups = SpreadLookups::default();
        for &key in &keys {
            lookups.column(&cluster, key);
        }
        let kept = || lookups.by_key.lock().unwrap().len();
        assert_eq!(kept(), MAX_KEPT_COLUMNS);
        // A kept column is handed out again, not made anew.
        let first = lookups.column(&cluster, keys[0]);
        assert!(std::sync::Arc::ptr_eq(
            &first,
            &lookups.column(&cluster, keys[0])
        ));
        assert_eq!(kept(), MAX_KEPT_COLUMNS);
    }
}
