//! One scheduling cycle for one pod (upstream `framework/runtime/framework.go`
//! and `schedule_one.go`): PreFilter, Filter with nominated pods, PreScore,
//! Score, NormalizeScore and the weighted totals, running the plugins the
//! profile enables, in its order, with its weights and arguments.

use super::plugins::interpodaffinity::{filtering as ipa_filter, scoring as ipa_score};
use super::plugins::node_affinity::{self, PreFilter as AffinityPreFilter};
use super::plugins::noderesources::{balanced_allocation, fit};
use super::plugins::podtopologyspread::{filtering as pts_filter, scoring as pts_score};
use super::plugins::{
    RawRange, dynamicresources, image_locality, node_name, node_ports, node_unschedulable,
    nodevolumelimits, taint_toleration, volumebinding, volumerestrictions, volumezone,
};
use std::sync::Arc;

use super::node_memo::{self, MemoEntry, SpreadLookups};
use super::profile::Profile;
use super::resource_scores::ScoreColumn;
use super::status::{Code, FilterResult, Plugin, Reasons, Rejection};
use super::version::Version;
use crate::model::{Cluster, Node, NodeId, NodeInfo, Pod, PodId};

/// `SetAbsentNodesStatus`'s reason; NodeAffinity is the only default
/// plugin that returns a PreFilter result.
pub const ABSENT_NODE_REASON: &str = "node(s) didn't satisfy plugin(s) [NodeAffinity]";

/// Per-cycle state computed once by the PreFilter plugins.
pub struct Cycle<'a> {
    pub cluster: &'a Cluster,
    pub pod: &'a Pod,
    /// The release whose rules this cycle follows.
    pub version: Version,
    /// The profile whose plugins, order, weights and arguments it runs.
    pub profile: &'a Profile,
    node_affinity: AffinityPreFilter,
    /// Each `nodeSelector` pair's column of node values and the value it
    /// wants, when NodeAffinity filters and the spreading lookups hold the
    /// columns: a node is then checked by one dense read per pair, not a
    /// search of its own labels (a cache miss per node).
    selector_columns: Option<SelectorColumns>,
    spread: Option<pts_filter::PreFilterState>,
    interpod: Option<ipa_filter::PreFilterState>,
    restrictions: Option<volumerestrictions::PreFilterState>,
    /// NodeVolumeLimits' state (`None`: its PreFilter skipped).
    volume_limits: Option<nodevolumelimits::PreFilterState<'a>>,
    /// The Filter plugins, in profile order, whose verdict on a node can
    /// change with its pods (they read `NodeInfo` or the PreFilter state
    /// and have something to check for this pod); every other one takes
    /// only the pod and the node.
    reading_pods: Vec<Plugin>,
    /// `reading_pods` is NodeResourcesFit alone and no pod is nominated
    /// anywhere: whether a node still fits is its resource verdict, which
    /// preemption's reprieve then asks directly, once per victim on each
    /// of thousands of nodes.
    fit_alone_reads_pods: bool,
    /// The same for the plugins after the static prefix: a node the memo
    /// passed is then decided by its resource verdict alone.
    fit_alone_after_prefix: bool,
    /// The pod's cpu and memory request when it requests nothing else,
    /// NodeResourcesFit runs after the static prefix and no pod is
    /// nominated: its verdict then reads the node's dense sums
    /// ([`fit::fits_load`]), not the node's aggregates.
    fit_by_load: Option<crate::model::resources::CpuMem>,
    /// The Filter plugins, in profile order, that have something to check
    /// for this pod ([`Cycle::checks`]): a placement runs only these on
    /// each of thousands of nodes.
    checked: Vec<Plugin>,
    /// Where the plugins after the static prefix start in `checked`.
    checked_after_prefix: usize,
    binding: Option<volumebinding::PreFilterState<'a>>,
    zone: Option<Vec<volumezone::PvTopology>>,
    /// DynamicResources' state (`None`: skipped, the pod has no claims).
    pub dra: Option<dynamicresources::PreFilterState<'a>>,
    /// PreFilter rejected the pod for every node.
    pub prefilter_rejection: Option<Rejection>,
    /// The nodes a PreFilterResult allows (`None`: all nodes).
    pub allowed: Option<Vec<bool>>,
    /// The nodes NodeAffinity's PreFilter result allows (`None`: all), to
    /// tell which plugin left a node out.
    affinity_allowed: Option<Vec<bool>>,
    /// Pods nominated to nodes, of priority ≥ the incoming pod's.
    nominated: Vec<(PodId, NodeId)>,
    /// How many leading Filter plugins read only the pod and the node.
    static_prefix: usize,
    /// Their verdicts and scores, kept by a run of placements on the same
    /// nodes (`None`: the plugins run).
    memo: Option<Arc<MemoEntry>>,
}

/// The lookups spreading reads through for `pod`: none when the pod has
/// more constraints than a placement reads through columns (each would be
/// a column of every node).
fn spreading_lookups<'l>(
    pod: &Pod,
    lookups: Option<&'l SpreadLookups>,
) -> Option<&'l SpreadLookups> {
    lookups.filter(|_| pod.spread_constraints.len() <= node_memo::MAX_COLUMNS_PER_POD)
}

/// Each `nodeSelector` pair's key column and wanted value.
type SelectorColumns = Box<[(Arc<node_memo::KeyColumn>, crate::model::intern::Sym)]>;

/// Which Filter plugins a run covers. The plugins left out of
/// `ReadingPods` take only the pod and the node (and cluster-wide state
/// that a dry run on one node does not change), as their signatures show.
#[derive(Clone, Copy)]
enum Filters {
    All,
    ReadingPods,
    /// The leading plugins that read only the pod and the node.
    StaticPrefix,
    /// Every plugin after those, once a memo answered for them.
    AfterStaticPrefix,
    /// `AfterStaticPrefix` for the verdict alone: NodeResourcesFit builds
    /// no reasons.
    AfterStaticPrefixVerdict,
    /// `AfterStaticPrefixVerdict` once NodeResourcesFit passed the node
    /// from its dense sums ([`fit::fits_load`]): the others decide.
    AfterStaticPrefixVerdictPastFit,
}

/// The mutable part of the cycle state that AddPod/RemovePod change;
/// cloned per node under evaluation (preemption, nominated pods).
#[derive(Clone)]
pub struct FilterState<'s> {
    pub spread: Option<pts_filter::State<'s>>,
    pub interpod: Option<ipa_filter::State<'s>>,
    pub restrictions: Option<volumerestrictions::State<'s>>,
}

impl FilterState<'_> {
    /// Whether AddPod/RemovePod change anything: some PreFilter extension
    /// (spread, inter-pod affinity, volume restrictions) ran.
    pub fn tracks_pods(&self) -> bool {
        self.spread.is_some() || self.interpod.is_some() || self.restrictions.is_some()
    }
}

impl<'a> Cycle<'a> {
    /// Runs every PreFilter plugin in profile order.
    pub fn new(cluster: &'a Cluster, pod: &'a Pod, version: Version, profile: &'a Profile) -> Self {
        Self::new_with(cluster, pod, version, profile, None)
    }

    /// [`Cycle::new`], reading the nodes' topology values and a
    /// `nodeSelector`'s from spreading lookups when given (a memo's, or the
    /// ones kept with the cluster).
    pub fn new_with(
        cluster: &'a Cluster,
        pod: &'a Pod,
        version: Version,
        profile: &'a Profile,
        lookups: Option<&SpreadLookups>,
    ) -> Self {
        let mut cycle = Self::pre_filter(cluster, pod, version, profile, lookups);
        let (prefix, rest) = profile.filter.split_at(cycle.static_prefix);
        cycle.checked = prefix
            .iter()
            .copied()
            .filter(|&p| cycle.checks(p))
            .collect();
        cycle.checked_after_prefix = cycle.checked.len();
        let after: Vec<Plugin> = rest.iter().copied().filter(|&p| cycle.checks(p)).collect();
        cycle.checked.extend(after);
        // Of those, the ones that read the node's pods or the PreFilter
        // state: the only ones whose verdict a node's pods can change.
        cycle.reading_pods = cycle
            .checked
            .iter()
            .copied()
            .filter(|p| {
                matches!(
                    p,
                    Plugin::NodePorts
                        | Plugin::NodeResourcesFit
                        | Plugin::VolumeRestrictions
                        | Plugin::NodeVolumeLimits
                        | Plugin::PodTopologySpread
                        | Plugin::InterPodAffinity
                )
            })
            .collect();
        cycle.fit_alone_reads_pods =
            cycle.reading_pods == [Plugin::NodeResourcesFit] && cycle.nominated.is_empty();
        cycle.fit_alone_after_prefix = cycle.checked[cycle.checked_after_prefix..]
            == [Plugin::NodeResourcesFit]
            && cycle.nominated.is_empty();
        cycle.fit_by_load = (cycle.checked[cycle.checked_after_prefix..]
            .contains(&Plugin::NodeResourcesFit)
            && cycle.nominated.is_empty())
        .then(|| fit::cpu_mem_request_alone(cycle.pod, cycle.version))
        .flatten();
        cycle
    }

    fn pre_filter(
        cluster: &'a Cluster,
        pod: &'a Pod,
        version: Version,
        profile: &'a Profile,
        lookups: Option<&SpreadLookups>,
    ) -> Self {
        let args = &profile.args;
        let node_affinity = if profile.runs_pre_filter(Plugin::NodeAffinity)
            || profile.runs_filter(Plugin::NodeAffinity)
        {
            node_affinity::pre_filter(pod, &args.node_affinity)
        } else {
            AffinityPreFilter::Skip
        };
        let selector_columns = lookups
            .zip(pod.node_selector.as_ref())
            .filter(|(_, selector)| selector.len() <= node_memo::MAX_COLUMNS_PER_POD)
            .filter(|_| node_affinity != AffinityPreFilter::Skip)
            .map(|(lookups, selector)| {
                selector
                    .iter()
                    .map(|&(key, value)| (lookups.column(cluster, key), value))
                    .collect()
            });
        let mut cycle = Cycle {
            cluster,
            pod,
            version,
            profile,
            node_affinity,
            selector_columns,
            spread: None,
            interpod: None,
            restrictions: None,
            volume_limits: None,
            reading_pods: Vec::new(),
            fit_alone_reads_pods: false,
            fit_alone_after_prefix: false,
            fit_by_load: None,
            checked: Vec::new(),
            checked_after_prefix: 0,
            binding: None,
            zone: None,
            dra: None,
            prefilter_rejection: None,
            allowed: None,
            affinity_allowed: None,
            nominated: nominated_pods(cluster, pod),
            static_prefix: node_memo::static_prefix(profile),
            memo: None,
        };
        let prefilter_affinity = profile.runs_pre_filter(Plugin::NodeAffinity);
        match &cycle.node_affinity {
            AffinityPreFilter::Conflict if prefilter_affinity => {
                // UU stops PreFilter at once.
                cycle.prefilter_rejection = Some(Rejection::unresolvable(
                    Plugin::NodeAffinity,
                    node_affinity::REASON_CONFLICT,
                ));
                return cycle;
            }
            _ => {}
        }
        let affinity_names = match &cycle.node_affinity {
            AffinityPreFilter::Nodes(names) if prefilter_affinity => Some(names.clone()),
            _ => None,
        };
        // The PreFilter plugins in the default profile's order, each where
        // the profile enables it (a Filter whose PreFilter is disabled
        // builds the same state itself, so the state is built for either).
        // NodePorts and NodeResourcesFit never fail PreFilter.
        let runs = |p: Plugin| profile.runs_pre_filter(p) || profile.runs_filter(p);
        if runs(Plugin::VolumeRestrictions) {
            match volumerestrictions::pre_filter(cluster, pod) {
                Err(r) => {
                    cycle.prefilter_rejection = Some(r);
                    return cycle;
                }
                Ok(s) => cycle.restrictions = s,
            }
        }
        if runs(Plugin::NodeVolumeLimits) {
            cycle.volume_limits = nodevolumelimits::pre_filter(cluster, pod);
        }
        let mut names = affinity_names.clone();
        if runs(Plugin::VolumeBinding) {
            match volumebinding::pre_filter(cluster, pod, version) {
                Err(r) => {
                    cycle.prefilter_rejection = Some(r);
                    return cycle;
                }
                Ok(s) => {
                    if let Some(eligible) = s.as_ref().and_then(|s| s.eligible_nodes.clone()) {
                        // `PreFilterResult.Merge`: the intersection.
                        let merged: Vec<Box<str>> = match names {
                            None => eligible,
                            Some(prev) => {
                                prev.into_iter().filter(|n| eligible.contains(n)).collect()
                            }
                        };
                        if merged.is_empty() {
                            let reason = if affinity_names.is_some() {
                                "node(s) didn't satisfy plugin(s) [NodeAffinity VolumeBinding] simultaneously"
                            } else {
                                "node(s) didn't satisfy plugin VolumeBinding"
                            };
                            cycle.prefilter_rejection =
                                Some(Rejection::unresolvable(Plugin::VolumeBinding, reason));
                            return cycle;
                        }
                        names = Some(merged);
                    }
                    cycle.binding = s;
                }
            }
        }
        if runs(Plugin::VolumeZone) {
            match volumezone::pre_filter(cluster, pod) {
                Err(r) => {
                    cycle.prefilter_rejection = Some(r);
                    return cycle;
                }
                Ok(z) => cycle.zone = z,
            }
        }
        let to_allowed = |names: &[Box<str>]| {
            let mut allowed = vec![false; cluster.nodes.len()];
            for name in names {
                if let Some(id) = cluster.node_id(name) {
                    allowed[id as usize] = true;
                }
            }
            allowed
        };
        cycle.affinity_allowed = affinity_names.as_deref().map(to_allowed);
        cycle.allowed = names.as_deref().map(to_allowed);
        if runs(Plugin::PodTopologySpread) {
            cycle.spread = pts_filter::pre_filter_with(
                cluster,
                pod,
                &args.pod_topology_spread,
                spreading_lookups(pod, lookups),
            );
        }
        if runs(Plugin::InterPodAffinity) {
            cycle.interpod = ipa_filter::pre_filter(cluster, pod, version);
        }
        if runs(Plugin::DynamicResources) {
            match dynamicresources::pre_filter(cluster, pod) {
                Err(r) => cycle.prefilter_rejection = Some(r),
                Ok(s) => cycle.dra = s,
            }
        }
        cycle
    }

    /// Whether Filter `plugin` checks anything for this cycle's pod: the
    /// arms of [`Cycle::run_filter_plugins`] that are not empty.
    fn checks(&self, plugin: Plugin) -> bool {
        match plugin {
            Plugin::NodeUnschedulable
            | Plugin::NodeName
            | Plugin::TaintToleration
            | Plugin::NodeResourcesFit => true,
            Plugin::NodeAffinity => self.node_affinity != AffinityPreFilter::Skip,
            Plugin::NodePorts => !self.pod.host_ports.is_empty(),
            Plugin::VolumeRestrictions => self.restrictions.is_some(),
            Plugin::NodeVolumeLimits => self.volume_limits.is_some(),
            Plugin::VolumeBinding => self.binding.is_some(),
            Plugin::VolumeZone => self.zone.is_some(),
            Plugin::PodTopologySpread => self.spread.is_some(),
            Plugin::InterPodAffinity => self.interpod.is_some(),
            Plugin::DynamicResources => self.dra.is_some(),
            _ => false,
        }
    }

    /// Answers the static Filter prefix and the static scores from `memo`
    /// (made for this cycle's profile and pod shape on these nodes).
    pub fn use_memo(&mut self, memo: Arc<MemoEntry>) {
        self.memo = Some(memo);
    }

    /// The memo this cycle answers from, if any.
    pub fn memo(&self) -> Option<&MemoEntry> {
        self.memo.as_deref()
    }

    /// The verdict of the leading Filter plugins that read only the pod
    /// and the node, run (not memoized).
    pub fn run_static_prefix(&self, node_id: NodeId) -> FilterResult {
        let state = FilterState {
            spread: None,
            interpod: None,
            restrictions: None,
        };
        let info = self.cluster.node_info(node_id);
        self.run_filter_plugins(
            &state,
            self.cluster.node(node_id),
            Some(node_id),
            info,
            Filters::StaticPrefix,
        )
    }

    /// A fresh filter state for this cycle.
    pub fn state(&self) -> FilterState<'_> {
        FilterState {
            spread: self.spread.as_ref().map(pts_filter::State::new),
            interpod: self.interpod.as_ref().map(ipa_filter::State::new),
            restrictions: self
                .restrictions
                .as_ref()
                .map(volumerestrictions::State::new),
        }
    }

    pub fn is_allowed(&self, node: NodeId) -> bool {
        self.allowed.as_ref().is_none_or(|a| a[node as usize])
    }

    /// The status of a node left out by the PreFilter result. Before v1.32
    /// upstream records none (no reasons, not counted in the FitError);
    /// from v1.32 `SetAbsentNodesStatus` gives it one naming the plugins.
    pub fn absent_node_status(&self, node: NodeId) -> Rejection {
        let by_affinity = self
            .affinity_allowed
            .as_ref()
            .is_some_and(|a| !a[node as usize]);
        Rejection {
            // Only v1.31's VolumeBinding also returns a PreFilter result.
            plugin: if by_affinity {
                Plugin::NodeAffinity
            } else {
                Plugin::VolumeBinding
            },
            code: Code::UnschedulableAndUnresolvable,
            reasons: if self.version.absent_nodes_get_status() {
                Reasons::One(ABSENT_NODE_REASON.into())
            } else {
                Reasons::none()
            },
        }
    }

    /// Every Filter plugin in profile order; the first failure decides.
    pub fn run_filters(&self, state: &FilterState, node: &Node, info: &NodeInfo) -> FilterResult {
        self.run_filter_plugins(state, node, None, info, Filters::All)
    }

    /// The Filter plugins in profile order (all, or only those that read
    /// the node's pods); the first failure decides. `node_id` is the
    /// node's id in the cycle's cluster when the caller knows it (spreading
    /// then judges the node by its numbered domains).
    fn run_filter_plugins(
        &self,
        state: &FilterState,
        node: &Node,
        node_id: Option<NodeId>,
        info: &NodeInfo,
        which: Filters,
    ) -> FilterResult {
        let (pod, interner) = (self.pod, &self.cluster.interner);
        let args = &self.profile.args;
        let plugins = match which {
            Filters::All => &self.checked[..],
            Filters::ReadingPods => &self.reading_pods[..],
            Filters::StaticPrefix => &self.profile.filter[..self.static_prefix],
            Filters::AfterStaticPrefix
            | Filters::AfterStaticPrefixVerdict
            | Filters::AfterStaticPrefixVerdictPastFit => {
                &self.checked[self.checked_after_prefix..]
            }
        };
        for &plugin in plugins {
            match plugin {
                Plugin::NodeUnschedulable => node_unschedulable::filter(pod, node)?,
                Plugin::NodeName => node_name::filter(pod, node)?,
                Plugin::TaintToleration => taint_toleration::filter(pod, node)?,
                Plugin::NodeAffinity if self.node_affinity != AffinityPreFilter::Skip => {
                    let selector =
                        self.selector_columns
                            .as_ref()
                            .zip(node_id)
                            .map(|(pairs, id)| {
                                pairs.iter().all(|(column, value)| {
                                    column.values[id as usize] == Some(*value)
                                })
                            });
                    node_affinity::filter(pod, node, interner, &args.node_affinity, selector)?
                }
                Plugin::NodePorts if !pod.host_ports.is_empty() => node_ports::filter(pod, info)?,
                Plugin::NodeResourcesFit => {
                    let check = self.fit_check(node, info);
                    match which {
                        Filters::All | Filters::StaticPrefix | Filters::AfterStaticPrefix => {
                            check.filter()?
                        }
                        // `still_fits_with_nominated` and `passes_after_memo`
                        // read the verdict alone: no reasons are built.
                        Filters::ReadingPods | Filters::AfterStaticPrefixVerdict
                            if !check.fits() =>
                        {
                            return Err(Rejection::unschedulable(
                                Plugin::NodeResourcesFit,
                                "the pod does not fit (verdict only)",
                            ));
                        }
                        Filters::ReadingPods | Filters::AfterStaticPrefixVerdict => {}
                        Filters::AfterStaticPrefixVerdictPastFit => {}
                    }
                }
                Plugin::VolumeRestrictions => {
                    if let Some(s) = &state.restrictions {
                        s.filter(self.cluster, pod, info, self.version)?;
                    }
                }
                Plugin::NodeVolumeLimits => {
                    if let Some(s) = &self.volume_limits {
                        s.filter(self.cluster, node, info, self.version)?;
                    }
                }
                Plugin::VolumeBinding => {
                    if let Some(b) = &self.binding {
                        b.filter(self.cluster, node, self.version)?;
                    }
                }
                Plugin::VolumeZone => {
                    if let Some(z) = &self.zone {
                        volumezone::filter(self.cluster, z, node)?;
                    }
                }
                Plugin::PodTopologySpread => {
                    if let Some(s) = &state.spread {
                        s.filter_node(pod, node, node_id)?;
                    }
                }
                Plugin::InterPodAffinity => {
                    if let Some(s) = &state.interpod {
                        s.filter(node)?;
                    }
                }
                Plugin::DynamicResources => {
                    if let Some(d) = &self.dra {
                        d.filter(self.cluster, node)?;
                    }
                }
                _ => {}
            }
        }
        Ok(())
    }

    /// AddPod on every non-skipped PreFilter extension.
    pub fn add_pod(&self, state: &mut FilterState, pod: &Pod, node: &Node) {
        self.update_pod(state, pod, node, 1);
    }

    /// RemovePod on every non-skipped PreFilter extension.
    pub fn remove_pod(&self, state: &mut FilterState, pod: &Pod, node: &Node) {
        self.update_pod(state, pod, node, -1);
    }

    /// AddPod (`by` = 1) or RemovePod (-1) of a pod of `node` that has a
    /// brief: the same as [`Cycle::add_pod`] / [`Cycle::remove_pod`], but
    /// the pod's record is read only by the extensions its brief cannot
    /// rule out. Preemption's dry run removes every lower-priority pod of
    /// thousands of nodes; reading each record (a cache miss per pod) was
    /// most of its time for a pod that spreads.
    pub fn update_pod_of(
        &self,
        state: &mut FilterState,
        id: PodId,
        brief: &crate::model::cluster::PodBrief,
        node: &Node,
        by: i64,
    ) {
        let pod = || self.cluster.pod(id);
        if let Some(s) = &mut state.restrictions {
            s.update_with_pod(pod(), by);
        }
        // PodTopologySpread counts only pods of the incoming pod's namespace.
        if let Some(s) = &mut state.spread
            && brief.namespace == self.pod.namespace
        {
            s.update_with_pod(self.cluster, self.pod, pod(), node, by);
        }
        if let Some(s) = &mut state.interpod
            && s.may_change_with(brief)
        {
            s.update_with_pod(self.pod, pod(), node, by);
        }
    }

    fn update_pod(&self, state: &mut FilterState, pod: &Pod, node: &Node, by: i64) {
        if let Some(s) = &mut state.restrictions {
            s.update_with_pod(pod, by);
        }
        if let Some(s) = &mut state.spread {
            s.update_with_pod(self.cluster, self.pod, pod, node, by);
        }
        if let Some(s) = &mut state.interpod {
            s.update_with_pod(self.pod, pod, node, by);
        }
    }

    /// `RunFilterPluginsWithNominatedPods`: with nominated pods of equal or
    /// higher priority on the node, the node must pass both with them (pass 1)
    /// and without them (pass 2).
    pub fn run_filters_with_nominated(
        &self,
        state: &FilterState,
        node_id: NodeId,
        info: &NodeInfo,
    ) -> FilterResult {
        self.run_with_nominated(state, node_id, info, Filters::All)
    }

    /// [`Cycle::run_filters_with_nominated`] on a node the cycle's memo
    /// passed: only the plugins after the static prefix run.
    pub fn run_after_memo(
        &self,
        state: &FilterState,
        node_id: NodeId,
        info: &NodeInfo,
    ) -> FilterResult {
        debug_assert!(self.memo.is_some(), "only a memo passes the static prefix");
        self.run_with_nominated(state, node_id, info, Filters::AfterStaticPrefix)
    }

    /// Whether [`Cycle::run_after_memo`] passes the node, without building
    /// the reasons of a failure: a disruption's placements ask this of
    /// every node and need the reasons only when no node fits.
    pub fn passes_after_memo(&self, state: &FilterState, node_id: NodeId) -> bool {
        debug_assert!(self.memo.is_some(), "only a memo passes the static prefix");
        if let Some(request) = self.fit_by_load {
            if !fit::fits_load(request, self.cluster.node_load(node_id), self.version) {
                return false;
            }
            if self.fit_alone_after_prefix {
                return true;
            }
            let (node, info) = (self.cluster.node(node_id), self.cluster.node_info(node_id));
            return self
                .run_filter_plugins(
                    state,
                    node,
                    Some(node_id),
                    info,
                    Filters::AfterStaticPrefixVerdictPastFit,
                )
                .is_ok();
        }
        let info = self.cluster.node_info(node_id);
        if self.fit_alone_after_prefix {
            return self.fit_check(self.cluster.node(node_id), info).fits();
        }
        self.run_with_nominated(state, node_id, info, Filters::AfterStaticPrefixVerdict)
            .is_ok()
    }

    /// Whether NodeResourcesFit is the only Filter plugin that reads a
    /// node's pods for this pod, with no pod nominated anywhere: a node's
    /// verdict then changes with its pods only through their requests and
    /// their number, which is all preemption's dry run needs to keep.
    pub(crate) fn only_fit_reads_pods(&self) -> bool {
        self.fit_alone_reads_pods
    }

    /// Whether the pod still fits a node that passed every filter (with
    /// nominated pods) once its pods changed: only the plugins that read
    /// the node's pods or the PreFilter state can change their verdict, so
    /// only they run. Preemption's reprieve asks this once per victim.
    pub fn still_fits_with_nominated(
        &self,
        state: &FilterState,
        node_id: NodeId,
        info: &NodeInfo,
    ) -> bool {
        if self.fit_alone_reads_pods {
            return self.fit_check(self.cluster.node(node_id), info).fits();
        }
        self.run_with_nominated(state, node_id, info, Filters::ReadingPods)
            .is_ok()
    }

    /// NodeResourcesFit's check of the pod on `node` with `info`'s pods.
    fn fit_check<'c>(&'c self, node: &'c Node, info: &'c NodeInfo) -> fit::FitCheck<'c> {
        fit::FitCheck {
            pod: self.pod,
            node,
            info,
            interner: &self.cluster.interner,
            args: &self.profile.args.node_resources_fit,
            version: self.version,
        }
    }

    fn run_with_nominated(
        &self,
        state: &FilterState,
        node_id: NodeId,
        info: &NodeInfo,
        mut which: Filters,
    ) -> FilterResult {
        // The static prefix decides alike with or without nominated pods.
        if let (Filters::All, Some(memo)) = (which, &self.memo) {
            memo.verdict(node_id)?;
            which = Filters::AfterStaticPrefix;
        }
        let node = self.cluster.node(node_id);
        let mut nominated = self
            .nominated
            .iter()
            .filter(|(_, n)| *n == node_id)
            .peekable();
        if nominated.peek().is_none() {
            return self.run_filter_plugins(state, node, Some(node_id), info, which);
        }
        let mut with = info.clone();
        let mut with_state = state.clone();
        for &(id, _) in nominated {
            let p = self.cluster.pod(id);
            with.add_pod(id, p);
            self.add_pod(&mut with_state, p, node);
        }
        self.run_filter_plugins(&with_state, node, Some(node_id), &with, which)?;
        self.run_filter_plugins(state, node, Some(node_id), info, which)
    }
}

/// Pods waiting with `status.nominatedNodeName` (from an earlier preemption)
/// whose priority is at least the incoming pod's.
fn nominated_pods(cluster: &Cluster, pod: &Pod) -> Vec<(PodId, NodeId)> {
    let prio = pod.priority_value();
    cluster
        .nominated_pods()
        .iter()
        .map(|&id| (id, cluster.pod(id)))
        .filter(|(_, p)| {
            p.node.is_none()
                && p.node_name.is_none()
                && !p.phase.is_terminal()
                && !p.is_terminating()
                && p.priority_value() >= prio
                && !(p.namespace == pod.namespace && p.name == pod.name)
        })
        .filter_map(|(id, p)| {
            let node = cluster.node_id(p.nominated_node_name.as_deref()?)?;
            Some((id, node))
        })
        .collect()
}

/// The most score plugins a profile runs: each plugin kplace knows that
/// scores, at most once (the profile's validation refuses duplicates).
pub const MAX_SCORE_PLUGINS: usize = 8;

/// A node's weighted score per plugin, kept inline: a placement scores
/// thousands of nodes, and a heap row for each cost more than the scoring.
/// Reads as a slice, in the profile's score order.
#[derive(Clone, Copy, PartialEq, Eq)]
pub struct PluginScores {
    values: [i64; MAX_SCORE_PLUGINS],
    len: u8,
}

impl PluginScores {
    fn zeros(len: usize) -> Self {
        assert!(
            len <= MAX_SCORE_PLUGINS,
            "a profile runs at most {MAX_SCORE_PLUGINS} score plugins, not {len}"
        );
        PluginScores {
            values: [0; MAX_SCORE_PLUGINS],
            len: len as u8,
        }
    }
}

impl std::ops::Deref for PluginScores {
    type Target = [i64];
    fn deref(&self) -> &[i64] {
        &self.values[..usize::from(self.len)]
    }
}

impl<'a> IntoIterator for &'a PluginScores {
    type Item = &'a i64;
    type IntoIter = std::slice::Iter<'a, i64>;
    fn into_iter(self) -> Self::IntoIter {
        self.iter()
    }
}

impl std::fmt::Debug for PluginScores {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        (**self).fmt(f)
    }
}

/// One feasible node's scores: weighted per plugin (in the profile's score
/// order, [`Profile::score`]) and their total.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct NodeScore {
    pub node: NodeId,
    pub total: i64,
    pub plugins: PluginScores,
}

/// What the profile's PreScore can work out before Filter has found the
/// feasible nodes, since it reads only the pod and the cluster: worked
/// out on the caller's thread while the helper filters, which takes it
/// off the serial path of every placement (PodTopologySpread's matching
/// pods, counted per node, were an eighth of a lost zone's placements).
#[derive(Default)]
pub struct EarlyScores {
    spread: Option<pts_score::Counted>,
    /// InterPodAffinity's whole PreScore, when the profile scores with it
    /// (the outer `None`: not worked out early).
    interpod: Option<Option<ipa_score::PreScoreState>>,
}

impl EarlyScores {
    /// The early part of each score plugin's PreScore that has one.
    pub fn of(
        cluster: &Cluster,
        pod: &Pod,
        profile: &Profile,
        memo: Option<&MemoEntry>,
        lookups: &SpreadLookups,
        version: Version,
    ) -> Self {
        let scores = |plugin| profile.score.iter().any(|&(p, _)| p == plugin);
        let args = &profile.args;
        EarlyScores {
            spread: scores(Plugin::PodTopologySpread)
                .then(|| {
                    let lookups = spreading_lookups(pod, Some(lookups));
                    pts_score::count(cluster, pod, &args.pod_topology_spread, memo, lookups)
                })
                .flatten(),
            interpod: scores(Plugin::InterPodAffinity).then(|| {
                ipa_score::pre_score_of_cluster(
                    cluster,
                    pod,
                    &args.inter_pod_affinity,
                    version,
                    lookups,
                )
            }),
        }
    }
}

/// PreScore, Score, NormalizeScore and weighting over the feasible nodes,
/// for every score plugin of the profile: every plugin's PreScore first
/// (from what [`EarlyScores`] already found), then one pass over the
/// nodes scoring each for every plugin, then each normalizing plugin
/// reads its column for what it scales by, then one pass scales, weighs
/// and sums each node's row. Gives the rows and the nodes with the
/// highest total, in feasible order.
#[allow(clippy::too_many_arguments)]
pub fn score_nodes(
    cluster: &Cluster,
    pod: &Pod,
    feasible: &[NodeId],
    version: Version,
    profile: &Profile,
    memo: Option<&MemoEntry>,
    lookups: &SpreadLookups,
    mut early: EarlyScores,
) -> (Vec<NodeScore>, Vec<NodeId>) {
    let scorers: Vec<Scorer> = profile
        .score
        .iter()
        .map(|&(plugin, _)| {
            Scorer::pre_score(
                cluster, pod, feasible, version, profile, plugin, memo, lookups, &mut early,
            )
        })
        .collect();
    let width = scorers.len();
    // Rows made and scored over both cores, each part in place; plugin by
    // plugin, so each part matches on a plugin once, not once per node.
    // Each part also finds the range of each plugin's raw scores, which
    // NormalizeScore scales by.
    let (mut scores, ranges) = kplace_split::build(
        feasible.len(),
        |i| NodeScore {
            node: feasible[i],
            total: 0,
            plugins: PluginScores::zeros(width),
        },
        |offset, rows| {
            let mut ranges = [RawRange::EMPTY; MAX_SCORE_PLUGINS];
            for (p, scorer) in scorers.iter().enumerate() {
                scorer.score_rows(cluster, pod, offset, rows, p);
                if scorer.normalizes() {
                    ranges[p] = (offset..)
                        .zip(rows.iter())
                        .filter(|&(i, _)| scorer.normalizes_node(i))
                        .map(|(_, row)| row.plugins.values[p])
                        .collect();
                }
            }
            ranges
        },
    );
    let scalings: Vec<Scaling> = scorers
        .iter()
        .enumerate()
        .map(|(p, scorer)| {
            let range = ranges
                .iter()
                .fold(RawRange::EMPTY, |all, part| all.join(part[p]));
            scorer.scaling(range)
        })
        .collect();
    // A plugin that scores 0 everywhere stays 0 whatever its weight.
    let weights: Vec<i64> = profile
        .score
        .iter()
        .zip(&scorers)
        .map(|(&(_, w), scorer)| if matches!(scorer, Scorer::Zero) { 1 } else { w })
        .collect();
    // Scaled, weighed and summed over both cores; each part also finds
    // its highest total and the nodes with it.
    let tops = kplace_split::fill_map(&mut scores, |offset, rows| {
        for (p, (scaling, &weight)) in scalings.iter().zip(&weights).enumerate() {
            scaling.apply_column(offset, rows, p, weight);
        }
        let mut top = (i64::MIN, Vec::new());
        for row in rows {
            let total = row.plugins.iter().sum();
            row.total = total;
            if total > top.0 {
                top = (total, vec![row.node]);
            } else if total == top.0 {
                top.1.push(row.node);
            }
        }
        top
    });
    // The nodes with the highest total, in feasible order.
    let highest = tops.iter().map(|t| t.0).max().unwrap_or(i64::MIN);
    let best = tops
        .into_iter()
        .filter(|t| t.0 == highest)
        .flat_map(|t| t.1)
        .collect();
    (scores, best)
}

/// How a plugin's raw scores become its final ones: NormalizeScore's
/// findings over all feasible nodes, applied node by node.
enum Scaling<'a> {
    /// No NormalizeScore: the raw score stands.
    Raw,
    Default(super::plugins::DefaultNormalizer),
    PodTopologySpread(&'a pts_score::PreScoreState, pts_score::Normalizer),
    InterPodAffinity(ipa_score::Normalizer),
}

impl Scaling<'_> {
    /// Column `p` of `rows` (the feasible nodes from the `offset`-th on)
    /// normalized and weighed in place: one loop per kind of scaling, so
    /// that no node matches on it.
    fn apply_column(&self, offset: usize, rows: &mut [NodeScore], p: usize, weight: i64) {
        fn each(rows: &mut [NodeScore], offset: usize, p: usize, f: impl Fn(usize, i64) -> i64) {
            for (i, row) in (offset..).zip(rows) {
                row.plugins.values[p] = f(i, row.plugins.values[p]);
            }
        }
        match self {
            Scaling::Raw if weight == 1 => {}
            Scaling::Raw => each(rows, offset, p, |_, raw| raw * weight),
            Scaling::Default(by) => each(rows, offset, p, |_, raw| by.apply(raw) * weight),
            Scaling::PodTopologySpread(state, by) => each(rows, offset, p, |i, raw| {
                state.normalized(*by, i, raw) * weight
            }),
            Scaling::InterPodAffinity(by) => each(rows, offset, p, |_, raw| by.apply(raw) * weight),
        }
    }
}

/// One score plugin after its PreScore: what it needs to score a node.
enum Scorer<'a> {
    /// Skipped at PreScore (or not a scoring plugin here): 0 everywhere.
    Zero,
    TaintToleration,
    NodeAffinity(&'a super::profile::NodeAffinityArgs),
    /// TaintToleration and NodeAffinity with every node's raw score
    /// already known (they read only the pod and the node).
    KnownTaint(&'a [i64]),
    KnownAffinity(&'a [i64]),
    PodTopologySpread(pts_score::PreScoreState),
    InterPodAffinity(ipa_score::PreScoreState),
    /// With the memo's kept scores when it has them.
    Fit(fit::FitScorer<'a>, Option<Arc<ScoreColumn>>),
    Balanced(
        balanced_allocation::BalancedScorer,
        Option<Arc<ScoreColumn>>,
    ),
    ImageLocality(image_locality::ImageScorer),
    /// ImageLocality with every node's score already known (it reads
    /// only the pod's images and the nodes).
    KnownImage(Arc<[u8]>),
}

impl<'a> Scorer<'a> {
    #[allow(clippy::too_many_arguments)]
    fn pre_score(
        cluster: &Cluster,
        pod: &Pod,
        feasible: &[NodeId],
        version: Version,
        profile: &'a Profile,
        plugin: Plugin,
        memo: Option<&'a MemoEntry>,
        lookups: &SpreadLookups,
        early: &mut EarlyScores,
    ) -> Self {
        let interner = &cluster.interner;
        let args = &profile.args;
        match plugin {
            Plugin::TaintToleration => match memo {
                Some(m) => Scorer::KnownTaint(m.taint_scores(cluster, pod)),
                None => Scorer::TaintToleration,
            },
            Plugin::NodeAffinity => {
                if node_affinity::pre_score_skips(pod, &args.node_affinity) {
                    Scorer::Zero
                } else if let Some(m) = memo {
                    Scorer::KnownAffinity(m.affinity_scores(cluster, pod, &args.node_affinity))
                } else {
                    Scorer::NodeAffinity(&args.node_affinity)
                }
            }
            Plugin::PodTopologySpread => pts_score::pre_score(
                cluster,
                feasible,
                early.spread.take(),
                spreading_lookups(pod, Some(lookups)),
            )
            .map_or(Scorer::Zero, Scorer::PodTopologySpread),
            Plugin::InterPodAffinity => match early.interpod.take() {
                // Score runs only when some node is feasible.
                Some(state) if !feasible.is_empty() => state,
                _ => ipa_score::pre_score(
                    cluster,
                    pod,
                    feasible,
                    &args.inter_pod_affinity,
                    version,
                    lookups,
                ),
            }
            .map_or(Scorer::Zero, Scorer::InterPodAffinity),
            Plugin::NodeResourcesFit => {
                let scorer = fit::pre_score(pod, &args.node_resources_fit, interner, version);
                let kept =
                    memo.and_then(|m| m.resource_scores(plugin, version, scorer.resources()));
                Scorer::Fit(scorer, kept)
            }
            Plugin::NodeResourcesBalancedAllocation => {
                balanced_allocation::pre_score(pod, &args.balanced_allocation, interner, version)
                    .map_or(Scorer::Zero, |scorer| {
                        let kept = memo
                            .and_then(|m| m.resource_scores(plugin, version, scorer.resources()));
                        Scorer::Balanced(scorer, kept)
                    })
            }
            Plugin::ImageLocality => match memo {
                Some(m) => Scorer::KnownImage(m.image_scores(cluster, pod)),
                None => Scorer::ImageLocality(image_locality::pre_score(cluster, pod)),
            },
            // VolumeBinding: PreScore skips (VolumeCapacityPriority is off).
            _ => Scorer::Zero,
        }
    }

    /// The raw scores of `rows`, the feasible nodes from the `offset`-th
    /// on, into column `p` (0 in rows as they are made).
    fn score_rows(
        &self,
        cluster: &Cluster,
        pod: &Pod,
        offset: usize,
        rows: &mut [NodeScore],
        p: usize,
    ) {
        // Generic, so each plugin's loop is compiled with its score inlined.
        fn each(
            rows: &mut [NodeScore],
            offset: usize,
            p: usize,
            raw: impl Fn(usize, NodeId) -> i64,
        ) {
            for (i, row) in (offset..).zip(rows) {
                row.plugins.values[p] = raw(i, row.node);
            }
        }
        let node = |id| cluster.node(id);
        let info = |id| cluster.node_info(id);
        match self {
            // Rows are made with every score 0.
            Scorer::Zero => {}
            Scorer::TaintToleration => each(rows, offset, p, |_, id| {
                taint_toleration::score(pod, node(id))
            }),
            Scorer::KnownTaint(raw) | Scorer::KnownAffinity(raw) => {
                each(rows, offset, p, |_, id| raw[id as usize])
            }
            Scorer::NodeAffinity(args) => each(rows, offset, p, |_, id| {
                node_affinity::score(pod, node(id), &cluster.interner, args)
            }),
            Scorer::PodTopologySpread(state) => each(rows, offset, p, |i, id| state.score(i, id)),
            Scorer::InterPodAffinity(state) => {
                each(rows, offset, p, |_, id| state.score(id, node(id)))
            }
            Scorer::Fit(scorer, None) => {
                each(rows, offset, p, |_, id| scorer.score(node(id), info(id)))
            }
            Scorer::Fit(scorer, Some(kept)) => each(rows, offset, p, |_, id| {
                let sums = scorer.sums(cluster.node_load(id));
                kept.score(id, sums, || scorer.score(node(id), info(id)))
            }),
            Scorer::Balanced(scorer, None) => {
                each(rows, offset, p, |_, id| scorer.score(node(id), info(id)))
            }
            Scorer::Balanced(scorer, Some(kept)) => each(rows, offset, p, |_, id| {
                let sums = scorer.sums(cluster.node_load(id));
                kept.score(id, sums, || scorer.score(node(id), info(id)))
            }),
            Scorer::ImageLocality(scorer) => each(rows, offset, p, |_, id| scorer.score(node(id))),
            Scorer::KnownImage(scores) => {
                each(rows, offset, p, |_, id| i64::from(scores[id as usize]))
            }
        }
    }

    /// Whether the plugin has a NormalizeScore.
    fn normalizes(&self) -> bool {
        // Derived from the scaling, so the two never disagree.
        !matches!(self.scaling(RawRange::EMPTY), Scaling::Raw)
    }

    /// Whether NormalizeScore reads the `i`-th feasible node's raw score.
    fn normalizes_node(&self, i: usize) -> bool {
        match self {
            Scorer::PodTopologySpread(state) => state.normalizes(i),
            _ => true,
        }
    }

    /// NormalizeScore's findings from the range of the raw scores it
    /// reads, for the plugins that have one.
    fn scaling(&self, range: RawRange) -> Scaling<'_> {
        match self {
            Scorer::TaintToleration | Scorer::KnownTaint(_) => {
                Scaling::Default(taint_toleration::normalizer(range))
            }
            Scorer::NodeAffinity(_) | Scorer::KnownAffinity(_) => {
                Scaling::Default(node_affinity::normalizer(range))
            }
            Scorer::PodTopologySpread(state) => {
                Scaling::PodTopologySpread(state, state.normalizer(range))
            }
            Scorer::InterPodAffinity(state) => Scaling::InterPodAffinity(state.normalizer(range)),
            Scorer::Zero
            | Scorer::Fit(..)
            | Scorer::Balanced(..)
            | Scorer::ImageLocality(_)
            | Scorer::KnownImage(_) => Scaling::Raw,
        }
    }
}
