//! A scheduler profile as data (upstream `KubeSchedulerProfile` after
//! defaulting): the plugins enabled at each extension point in order, the
//! score weights, and each plugin's arguments. Built from the release's
//! default plugins merged with an operator's configuration exactly as
//! upstream merges them (`apis/config/v1/default_plugins.go` `mergePlugins`,
//! then `framework/runtime/framework.go` `expandMultiPointPlugins` and
//! `getScoreWeights`).
//!
//! Reading and validating a `KubeSchedulerConfiguration` file is the
//! sources' job (`source::scheduler_config`); this module only takes the
//! parsed [`ProfileSpec`].

use std::sync::Arc;

use super::status::Plugin;
use super::version::Version;
use crate::model::pod::{NodeSelectorOperator, WhenUnsatisfiable};

/// `framework.MaxNodeScore`.
const MAX_NODE_SCORE: i64 = 100;
/// `framework.MaxTotalScore` (math.MaxInt64).
const MAX_TOTAL_SCORE: i64 = i64::MAX;

/// The default scheduler name.
pub const DEFAULT_SCHEDULER_NAME: &str = "default-scheduler";

/// A plugin named in a plugin set, with its weight where one was given.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct PluginRef {
    pub name: String,
    pub weight: Option<i32>,
}

impl PluginRef {
    pub fn new(name: &str) -> Self {
        PluginRef {
            name: name.to_string(),
            weight: None,
        }
    }

    pub fn weighted(name: &str, weight: i32) -> Self {
        PluginRef {
            name: name.to_string(),
            weight: Some(weight),
        }
    }
}

/// `PluginSet`: plugins enabled (in order) and disabled (`*` = all defaults).
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct PluginSetSpec {
    pub enabled: Vec<PluginRef>,
    pub disabled: Vec<String>,
}

/// `Plugins`: one plugin set per extension point kplace evaluates, plus
/// `multiPoint`. Points kplace does not model (reserve, permit, bind, …)
/// are accepted by the reader and have no effect on answers.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct PluginsSpec {
    pub multi_point: PluginSetSpec,
    pub pre_enqueue: PluginSetSpec,
    pub queue_sort: PluginSetSpec,
    pub pre_filter: PluginSetSpec,
    pub filter: PluginSetSpec,
    pub post_filter: PluginSetSpec,
    pub pre_score: PluginSetSpec,
    pub score: PluginSetSpec,
}

/// One profile of a configuration, as read from the file (before merging
/// with the defaults). Arguments not given are `None` and take upstream's
/// defaults.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct ProfileSpec {
    pub scheduler_name: String,
    pub plugins: Option<PluginsSpec>,
    pub args: PluginArgsSpec,
    pub percentage_of_nodes_to_score: Option<i32>,
}

/// Plugin arguments as given in `pluginConfig`; `None`: upstream's default.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct PluginArgsSpec {
    pub node_resources_fit: Option<FitArgs>,
    pub balanced_allocation: Option<BalancedAllocationArgs>,
    pub pod_topology_spread: Option<SpreadArgs>,
    pub inter_pod_affinity: Option<InterPodAffinityArgs>,
    pub node_affinity: Option<NodeAffinityArgs>,
    pub default_preemption: Option<PreemptionArgs>,
}

/// A resource and its weight in a scoring strategy (`ResourceSpec`).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ResourceWeight {
    pub name: String,
    pub weight: i64,
}

/// A point of RequestedToCapacityRatio's shape (`UtilizationShapePoint`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct ShapePoint {
    /// 0–100.
    pub utilization: i32,
    /// 0–10 (`MaxCustomPriorityScore`).
    pub score: i32,
}

/// `ScoringStrategy` of NodeResourcesFit.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum ScoringStrategy {
    LeastAllocated,
    MostAllocated,
    RequestedToCapacityRatio(Vec<ShapePoint>),
}

impl ScoringStrategy {}

/// `NodeResourcesFitArgs`.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct FitArgs {
    pub ignored_resources: Vec<String>,
    pub ignored_resource_groups: Vec<String>,
    pub strategy: ScoringStrategy,
    /// The strategy's resources and weights (default cpu 1, memory 1).
    pub resources: Vec<ResourceWeight>,
}

/// The default `[cpu: 1, memory: 1]` of the resource scorers.
pub fn default_resources() -> Vec<ResourceWeight> {
    vec![
        ResourceWeight {
            name: "cpu".into(),
            weight: 1,
        },
        ResourceWeight {
            name: "memory".into(),
            weight: 1,
        },
    ]
}

impl Default for FitArgs {
    fn default() -> Self {
        FitArgs {
            ignored_resources: vec![],
            ignored_resource_groups: vec![],
            strategy: ScoringStrategy::LeastAllocated,
            resources: default_resources(),
        }
    }
}

impl FitArgs {
    /// The filter skips extended resources named in `ignoredResources` or
    /// whose prefix (before `/`) is in `ignoredResourceGroups`.
    pub fn ignores(&self, resource: &str) -> bool {
        if self.ignored_resources.iter().any(|r| r == resource) {
            return true;
        }
        let prefix = resource.split('/').next().unwrap_or(resource);
        resource.contains('/') && self.ignored_resource_groups.iter().any(|g| g == prefix)
    }
}

/// `NodeResourcesBalancedAllocationArgs`.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct BalancedAllocationArgs {
    pub resources: Vec<ResourceWeight>,
}

impl Default for BalancedAllocationArgs {
    fn default() -> Self {
        BalancedAllocationArgs {
            resources: default_resources(),
        }
    }
}

/// A default topology spread constraint (`PodTopologySpreadArgs.defaultConstraints`).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct DefaultConstraint {
    pub max_skew: i32,
    pub topology_key: String,
    pub when_unsatisfiable: WhenUnsatisfiable,
}

/// `PodTopologySpreadArgs.defaultingType`.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum SpreadDefaulting {
    /// The built-in constraints (hostname maxSkew 3, zone maxSkew 5, both
    /// ScheduleAnyway).
    System,
    /// The listed constraints (may be empty: no defaults).
    List(Vec<DefaultConstraint>),
}

/// `PodTopologySpreadArgs`.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct SpreadArgs {
    pub defaulting: SpreadDefaulting,
}

impl Default for SpreadArgs {
    fn default() -> Self {
        SpreadArgs {
            defaulting: SpreadDefaulting::System,
        }
    }
}

/// `InterPodAffinityArgs`.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct InterPodAffinityArgs {
    /// 0–100, default 1.
    pub hard_pod_affinity_weight: i32,
    pub ignore_preferred_terms_of_existing_pods: bool,
}

impl Default for InterPodAffinityArgs {
    fn default() -> Self {
        InterPodAffinityArgs {
            hard_pod_affinity_weight: 1,
            ignore_preferred_terms_of_existing_pods: false,
        }
    }
}

/// One requirement of an `addedAffinity` term, kept as strings: a profile
/// outlives any one cluster's interner, so terms are matched by text.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct AddedRequirement {
    pub key: String,
    pub operator: NodeSelectorOperator,
    pub values: Vec<String>,
}

/// One `NodeSelectorTerm` of `addedAffinity`: `matchExpressions` on node
/// labels and `matchFields` (only `metadata.name`).
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct AddedTerm {
    pub match_expressions: Vec<AddedRequirement>,
    pub match_fields: Vec<AddedRequirement>,
}

/// `NodeAffinityArgs.addedAffinity`: required terms (ORed) every pod must
/// also satisfy, and weighted preferred terms added to every pod's score.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct NodeAffinityArgs {
    /// `None` when `requiredDuringSchedulingIgnoredDuringExecution` is unset.
    pub added_required: Option<Vec<AddedTerm>>,
    pub added_preferred: Vec<(i32, AddedTerm)>,
}

/// `DefaultPreemptionArgs`.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct PreemptionArgs {
    pub min_candidate_nodes_percentage: i32,
    pub min_candidate_nodes_absolute: i32,
}

impl Default for PreemptionArgs {
    fn default() -> Self {
        PreemptionArgs {
            min_candidate_nodes_percentage: 10,
            min_candidate_nodes_absolute: 100,
        }
    }
}

/// Every plugin's arguments, defaults filled.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct PluginArgs {
    pub node_resources_fit: FitArgs,
    pub balanced_allocation: BalancedAllocationArgs,
    pub pod_topology_spread: SpreadArgs,
    pub inter_pod_affinity: InterPodAffinityArgs,
    pub node_affinity: NodeAffinityArgs,
    pub default_preemption: PreemptionArgs,
}

/// A profile ready for the engine: plugins per extension point in the
/// order the framework runs them, score weights, arguments.
#[derive(Clone, Debug, PartialEq)]
pub struct Profile {
    pub scheduler_name: String,
    /// PreEnqueue: SchedulingGates (a gated pod is never attempted).
    pub pre_enqueue: Vec<Plugin>,
    pub pre_filter: Vec<Plugin>,
    pub filter: Vec<Plugin>,
    /// PostFilter: DefaultPreemption when enabled.
    pub post_filter: Vec<Plugin>,
    pub pre_score: Vec<Plugin>,
    /// Score plugins in framework order with their weights.
    pub score: Vec<(Plugin, i64)>,
    pub args: PluginArgs,
    /// Reported only: kplace filters and scores every node.
    pub percentage_of_nodes_to_score: Option<i32>,
    /// The profile came from a configuration file rather than the release's
    /// built-in default.
    pub configured: bool,
}

impl Profile {
    pub fn runs_filter(&self, plugin: Plugin) -> bool {
        self.filter.contains(&plugin)
    }

    pub fn runs_pre_filter(&self, plugin: Plugin) -> bool {
        self.pre_filter.contains(&plugin)
    }

    pub fn preempts(&self) -> bool {
        self.post_filter.contains(&Plugin::DefaultPreemption)
    }

    pub fn gates(&self) -> bool {
        self.pre_enqueue.contains(&Plugin::SchedulingGates)
    }

    /// The weight of a score plugin, `None` when it does not score.
    pub fn score_weight(&self, plugin: Plugin) -> Option<i64> {
        self.score
            .iter()
            .find(|(p, _)| *p == plugin)
            .map(|&(_, w)| w)
    }

    /// The release's default profile.
    pub fn default_for(version: Version) -> Profile {
        build_profile(
            &ProfileSpec {
                scheduler_name: DEFAULT_SCHEDULER_NAME.into(),
                ..Default::default()
            },
            version,
        )
        .map(|mut p| {
            p.configured = false;
            p
        })
        .expect("the default profile is valid")
    }
}

/// The profiles of a configuration (or the one default profile), chosen by
/// a pod's `schedulerName`.
#[derive(Clone, Debug, PartialEq)]
pub struct Profiles {
    pub profiles: Vec<Arc<Profile>>,
    /// The configuration's profiles as read, to merge again with another
    /// release's defaults (`None`: the built-in default profile).
    pub specs: Option<Vec<ProfileSpec>>,
    /// Where they came from, for the answer: "the default profile" or a path.
    pub origin: String,
    /// Top-level `percentageOfNodesToScore`.
    pub percentage_of_nodes_to_score: Option<i32>,
}

impl Profiles {
    /// The release's default: one `default-scheduler` profile.
    pub fn default_for(version: Version) -> Profiles {
        Profiles {
            profiles: vec![Arc::new(Profile::default_for(version))],
            specs: None,
            origin: "the default profile".into(),
            percentage_of_nodes_to_score: None,
        }
    }

    /// The same configuration merged with another release's defaults.
    pub fn for_version(&self, version: Version) -> Result<Profiles, ProfileError> {
        match &self.specs {
            None => Ok(Profiles::default_for(version)),
            Some(specs) => Profiles::from_specs(
                specs,
                version,
                self.origin.clone(),
                self.percentage_of_nodes_to_score,
            ),
        }
    }

    /// The profile for a pod's `spec.schedulerName` (empty = default).
    pub fn for_scheduler(&self, name: &str) -> Option<&Arc<Profile>> {
        let name = if name.is_empty() {
            DEFAULT_SCHEDULER_NAME
        } else {
            name
        };
        self.profiles.iter().find(|p| p.scheduler_name == name)
    }

    /// From a configuration's profiles, merged with the release's defaults.
    pub fn from_specs(
        specs: &[ProfileSpec],
        version: Version,
        origin: String,
        percentage_of_nodes_to_score: Option<i32>,
    ) -> Result<Profiles, ProfileError> {
        let mut profiles = Vec::with_capacity(specs.len().max(1));
        if specs.is_empty() {
            profiles.push(Arc::new(Profile::default_for(version)));
        }
        for (i, spec) in specs.iter().enumerate() {
            let profile = build_profile(spec, version).map_err(|e| ProfileError {
                field: format!("profiles[{i}].{}", e.field),
                ..e
            })?;
            profiles.push(Arc::new(profile));
        }
        Ok(Profiles {
            profiles,
            specs: Some(specs.to_vec()),
            origin,
            percentage_of_nodes_to_score,
        })
    }
}

/// `numFeasibleNodesToFind`: how many feasible nodes the scheduler looks
/// for before it stops filtering (the profile's `percentageOfNodesToScore`,
/// else the configuration's, else adaptive: 50% less 1% per 125 nodes, at
/// least 5%; never fewer than 100 nodes).
pub fn feasible_nodes_to_find(percentage: Option<i32>, num_all_nodes: usize) -> usize {
    const MIN_NODES: usize = 100;
    const MIN_PERCENTAGE: i64 = 5;
    if num_all_nodes < MIN_NODES {
        return num_all_nodes;
    }
    let n = num_all_nodes as i64;
    let mut pct = i64::from(percentage.unwrap_or(0));
    if pct == 0 {
        pct = (50 - n / 125).max(MIN_PERCENTAGE);
    }
    ((n * pct / 100) as usize).max(MIN_NODES)
}

/// A profile the framework would refuse to build.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[error("{field}: {message}")]
pub struct ProfileError {
    pub field: String,
    pub message: String,
}

/// Every plugin kplace knows by name, with what it implements.
const KNOWN: &[(&str, Option<Plugin>, &[Point])] = {
    use Point::*;
    &[
        (
            "SchedulingGates",
            Some(Plugin::SchedulingGates),
            &[PreEnqueue],
        ),
        ("PrioritySort", None, &[QueueSort]),
        (
            "NodeUnschedulable",
            Some(Plugin::NodeUnschedulable),
            &[Filter],
        ),
        ("NodeName", Some(Plugin::NodeName), &[Filter]),
        (
            "TaintToleration",
            Some(Plugin::TaintToleration),
            &[Filter, PreScore, Score],
        ),
        (
            "NodeAffinity",
            Some(Plugin::NodeAffinity),
            &[PreFilter, Filter, PreScore, Score],
        ),
        ("NodePorts", Some(Plugin::NodePorts), &[PreFilter, Filter]),
        (
            "NodeResourcesFit",
            Some(Plugin::NodeResourcesFit),
            &[PreFilter, Filter, PreScore, Score],
        ),
        (
            "VolumeRestrictions",
            Some(Plugin::VolumeRestrictions),
            &[PreFilter, Filter],
        ),
        (
            "NodeVolumeLimits",
            Some(Plugin::NodeVolumeLimits),
            &[PreFilter, Filter],
        ),
        (
            "VolumeBinding",
            Some(Plugin::VolumeBinding),
            &[PreFilter, Filter, PreScore, Score],
        ),
        ("VolumeZone", Some(Plugin::VolumeZone), &[PreFilter, Filter]),
        (
            "PodTopologySpread",
            Some(Plugin::PodTopologySpread),
            &[PreFilter, Filter, PreScore, Score],
        ),
        (
            "InterPodAffinity",
            Some(Plugin::InterPodAffinity),
            &[PreFilter, Filter, PreScore, Score],
        ),
        (
            "DynamicResources",
            Some(Plugin::DynamicResources),
            &[PreEnqueue, PreFilter, Filter, PostFilter],
        ),
        (
            "DefaultPreemption",
            Some(Plugin::DefaultPreemption),
            &[PostFilter],
        ),
        (
            "NodeResourcesBalancedAllocation",
            Some(Plugin::NodeResourcesBalancedAllocation),
            &[PreScore, Score],
        ),
        ("ImageLocality", Some(Plugin::ImageLocality), &[Score]),
        ("DefaultBinder", None, &[Bind]),
    ]
};

/// The extension points, for matching plugins to them.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Point {
    PreEnqueue,
    QueueSort,
    PreFilter,
    Filter,
    PostFilter,
    PreScore,
    Score,
    Bind,
}

fn known(name: &str) -> Option<&'static (&'static str, Option<Plugin>, &'static [Point])> {
    KNOWN.iter().find(|(n, _, _)| *n == name)
}

/// The names of every plugin kplace knows, for error messages.
pub fn known_plugin_names() -> Vec<&'static str> {
    KNOWN.iter().map(|(n, _, _)| *n).collect()
}

/// `getDefaultPlugins`: the release's multiPoint list with score weights.
fn default_plugins(version: Version) -> PluginsSpec {
    let mut enabled = vec![
        PluginRef::new("SchedulingGates"),
        PluginRef::new("PrioritySort"),
        PluginRef::new("NodeUnschedulable"),
        PluginRef::new("NodeName"),
        PluginRef::weighted("TaintToleration", 3),
        PluginRef::weighted("NodeAffinity", 2),
        PluginRef::new("NodePorts"),
        PluginRef::weighted("NodeResourcesFit", 1),
        PluginRef::new("VolumeRestrictions"),
        PluginRef::new("NodeVolumeLimits"),
        PluginRef::new("VolumeBinding"),
        PluginRef::new("VolumeZone"),
        PluginRef::weighted("PodTopologySpread", 2),
        PluginRef::weighted("InterPodAffinity", 2),
        PluginRef::new("DefaultPreemption"),
        PluginRef::weighted("NodeResourcesBalancedAllocation", 1),
        PluginRef::weighted("ImageLocality", 1),
        PluginRef::new("DefaultBinder"),
    ];
    // `applyFeatureGates`: DynamicResources before DefaultPreemption once
    // the DynamicResourceAllocation gate is on by default (GA in v1.34).
    if version.dynamic_resources_in_default_profile()
        && let Some(i) = enabled.iter().position(|p| p.name == "DefaultPreemption")
    {
        enabled.insert(i, PluginRef::new("DynamicResources"));
    }
    PluginsSpec {
        multi_point: PluginSetSpec {
            enabled,
            disabled: vec![],
        },
        ..Default::default()
    }
}

/// `mergePluginSet`: default plugins not disabled (a custom entry of the
/// same name replaces one in place), then the other custom ones in order.
fn merge_plugin_set(default: &PluginSetSpec, custom: &PluginSetSpec) -> PluginSetSpec {
    let mut disabled: Vec<String> = custom.disabled.clone();
    disabled.extend(default.disabled.iter().cloned());
    let all_disabled = disabled.iter().any(|d| d == "*");
    let mut replaced = vec![false; custom.enabled.len()];
    let mut enabled = Vec::new();
    if !all_disabled {
        for plugin in &default.enabled {
            if disabled.contains(&plugin.name) {
                continue;
            }
            // The last custom entry of a name wins, as upstream's map does.
            match custom.enabled.iter().rposition(|c| c.name == plugin.name) {
                Some(i) => {
                    replaced[i] = true;
                    enabled.push(custom.enabled[i].clone());
                }
                None => enabled.push(plugin.clone()),
            }
        }
    }
    for (i, plugin) in custom.enabled.iter().enumerate() {
        if !replaced[i] {
            enabled.push(plugin.clone());
        }
    }
    PluginSetSpec { enabled, disabled }
}

fn merge_plugins(default: PluginsSpec, custom: Option<&PluginsSpec>) -> PluginsSpec {
    let Some(custom) = custom else {
        return default;
    };
    PluginsSpec {
        multi_point: merge_plugin_set(&default.multi_point, &custom.multi_point),
        pre_enqueue: merge_plugin_set(&default.pre_enqueue, &custom.pre_enqueue),
        queue_sort: merge_plugin_set(&default.queue_sort, &custom.queue_sort),
        pre_filter: merge_plugin_set(&default.pre_filter, &custom.pre_filter),
        filter: merge_plugin_set(&default.filter, &custom.filter),
        post_filter: merge_plugin_set(&default.post_filter, &custom.post_filter),
        pre_score: merge_plugin_set(&default.pre_score, &custom.pre_score),
        score: merge_plugin_set(&default.score, &custom.score),
    }
}

/// `expandMultiPointPlugins` for one extension point: plugins enabled at
/// the point that multiPoint also names come first (the point's order),
/// then multiPoint's, then the point's other plugins.
fn expand(
    point: Point,
    point_name: &str,
    set: &PluginSetSpec,
    multi_point: &PluginSetSpec,
) -> Result<Vec<String>, ProfileError> {
    let mut enabled: Vec<String> = Vec::new();
    for p in &set.enabled {
        if !enabled.contains(&p.name) {
            enabled.push(p.name.clone());
        }
    }
    if multi_point.enabled.is_empty() || set.disabled.iter().any(|d| d == "*") {
        return Ok(enabled);
    }
    let mut from_multi: Vec<String> = Vec::new();
    let mut overrides: Vec<String> = Vec::new();
    for p in &multi_point.enabled {
        let Some((_, _, points)) = known(&p.name) else {
            return Err(ProfileError {
                field: "plugins.multiPoint.enabled".into(),
                message: format!("{point_name} plugin {:?} does not exist", p.name),
            });
        };
        if !points.contains(&point) || set.disabled.contains(&p.name) {
            continue;
        }
        if enabled.contains(&p.name) {
            overrides.push(p.name.clone());
            continue;
        }
        if from_multi.contains(&p.name) {
            return Err(ProfileError {
                field: "plugins.multiPoint.enabled".into(),
                message: format!("plugin {:?} already registered as {point_name}", p.name),
            });
        }
        from_multi.push(p.name.clone());
    }
    let mut out: Vec<String> = enabled
        .iter()
        .filter(|n| overrides.contains(n))
        .cloned()
        .collect();
    out.extend(from_multi);
    out.extend(enabled.into_iter().filter(|n| !overrides.contains(n)));
    Ok(out)
}

/// Builds a profile: the release's defaults merged with `spec`, expanded
/// per extension point, score weights resolved, arguments defaulted.
pub fn build_profile(spec: &ProfileSpec, version: Version) -> Result<Profile, ProfileError> {
    if spec.scheduler_name.is_empty() {
        return Err(ProfileError {
            field: "schedulerName".into(),
            message: "Required value".into(),
        });
    }
    let plugins = merge_plugins(default_plugins(version), spec.plugins.as_ref());
    let points: [(Point, &str, &PluginSetSpec, &str); 6] = [
        (
            Point::PreEnqueue,
            "PreEnqueuePlugin",
            &plugins.pre_enqueue,
            "preEnqueue",
        ),
        (
            Point::PreFilter,
            "PreFilterPlugin",
            &plugins.pre_filter,
            "preFilter",
        ),
        (Point::Filter, "FilterPlugin", &plugins.filter, "filter"),
        (
            Point::PostFilter,
            "PostFilterPlugin",
            &plugins.post_filter,
            "postFilter",
        ),
        (
            Point::PreScore,
            "PreScorePlugin",
            &plugins.pre_score,
            "preScore",
        ),
        (Point::Score, "ScorePlugin", &plugins.score, "score"),
    ];
    let mut resolved: Vec<Vec<Plugin>> = Vec::with_capacity(points.len());
    for (point, point_name, set, field) in points {
        // A plugin enabled at a point must exist and implement it.
        for (i, p) in set.enabled.iter().enumerate() {
            let Some((_, _, implements)) = known(&p.name) else {
                return Err(ProfileError {
                    field: format!("plugins.{field}.enabled[{i}].name"),
                    message: format!(
                        "{point_name} {:?} does not exist (kplace knows {})",
                        p.name,
                        known_plugin_names().join(", ")
                    ),
                });
            };
            if !implements.contains(&point) {
                return Err(ProfileError {
                    field: format!("plugins.{field}.enabled[{i}].name"),
                    message: format!("plugin {:?} does not extend {point_name}", p.name),
                });
            }
        }
        let names = expand(point, point_name, set, &plugins.multi_point)?;
        resolved.push(
            names
                .iter()
                .filter_map(|n| known(n).and_then(|(_, p, _)| *p))
                .collect(),
        );
    }
    let score_names = expand(
        Point::Score,
        "ScorePlugin",
        &plugins.score,
        &plugins.multi_point,
    )?;
    // `getScoreWeights`: the score point's weight first, then multiPoint's;
    // an absent or zero weight is 1; the sum must not overflow.
    let mut score = Vec::with_capacity(score_names.len());
    let mut total: i64 = 0;
    for name in &score_names {
        let weight = plugins
            .score
            .enabled
            .iter()
            .chain(&plugins.multi_point.enabled)
            .find(|p| &p.name == name)
            .and_then(|p| p.weight)
            .unwrap_or(0);
        if weight < 0 {
            return Err(ProfileError {
                field: "plugins.score.enabled".into(),
                message: format!("score plugin {name:?} has a negative weight {weight}"),
            });
        }
        let weight = if weight == 0 { 1 } else { i64::from(weight) };
        if weight * MAX_NODE_SCORE > MAX_TOTAL_SCORE - total {
            return Err(ProfileError {
                field: "plugins.score.enabled".into(),
                message: "total score of Score plugins could overflow".into(),
            });
        }
        total += weight * MAX_NODE_SCORE;
        if let Some((_, Some(plugin), _)) = known(name) {
            score.push((*plugin, weight));
        }
    }
    let args = &spec.args;
    let [pre_enqueue, pre_filter, filter, post_filter, pre_score, _] =
        <[Vec<Plugin>; 6]>::try_from(resolved).expect("six points");
    Ok(Profile {
        scheduler_name: spec.scheduler_name.clone(),
        pre_enqueue,
        pre_filter,
        filter,
        post_filter,
        pre_score,
        score,
        args: PluginArgs {
            node_resources_fit: args.node_resources_fit.clone().unwrap_or_default(),
            balanced_allocation: args.balanced_allocation.clone().unwrap_or_default(),
            pod_topology_spread: args.pod_topology_spread.clone().unwrap_or_default(),
            inter_pod_affinity: args.inter_pod_affinity.clone().unwrap_or_default(),
            node_affinity: args.node_affinity.clone().unwrap_or_default(),
            default_preemption: args.default_preemption.clone().unwrap_or_default(),
        },
        percentage_of_nodes_to_score: spec.percentage_of_nodes_to_score,
        configured: true,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn spec(plugins: PluginsSpec) -> ProfileSpec {
        ProfileSpec {
            scheduler_name: "s".into(),
            plugins: Some(plugins),
            ..Default::default()
        }
    }

    fn weights(p: &Profile) -> Vec<(&'static str, i64)> {
        p.score.iter().map(|(p, w)| (p.as_str(), *w)).collect()
    }

    #[test]
    fn default_profile_matches_upstream_order_and_weights() {
        let p = Profile::default_for(Version::V1_33);
        assert_eq!(
            weights(&p),
            vec![
                ("TaintToleration", 3),
                ("NodeAffinity", 2),
                ("NodeResourcesFit", 1),
                ("VolumeBinding", 1),
                ("PodTopologySpread", 2),
                ("InterPodAffinity", 2),
                ("NodeResourcesBalancedAllocation", 1),
                ("ImageLocality", 1),
            ]
        );
        assert_eq!(
            p.filter.iter().map(|p| p.as_str()).collect::<Vec<_>>(),
            vec![
                "NodeUnschedulable",
                "NodeName",
                "TaintToleration",
                "NodeAffinity",
                "NodePorts",
                "NodeResourcesFit",
                "VolumeRestrictions",
                "NodeVolumeLimits",
                "VolumeBinding",
                "VolumeZone",
                "PodTopologySpread",
                "InterPodAffinity",
            ]
        );
        assert!(p.preempts() && p.gates());
        assert!(!p.filter.contains(&Plugin::DynamicResources));
        assert!(
            Profile::default_for(Version::V1_34)
                .filter
                .contains(&Plugin::DynamicResources)
        );
    }

    #[test]
    fn score_point_weights_override_multi_point_and_put_overrides_first() {
        let p = build_profile(
            &spec(PluginsSpec {
                score: PluginSetSpec {
                    enabled: vec![
                        PluginRef::weighted("PodTopologySpread", 5),
                        PluginRef::weighted("NodeResourcesFit", 0),
                    ],
                    disabled: vec!["ImageLocality".into()],
                },
                ..Default::default()
            }),
            Version::V1_34,
        )
        .unwrap();
        let w = weights(&p);
        assert_eq!(w[0], ("PodTopologySpread", 5), "{w:?}");
        assert_eq!(w[1], ("NodeResourcesFit", 1), "a zero weight is 1: {w:?}");
        assert!(!w.iter().any(|(n, _)| *n == "ImageLocality"));
        assert!(w.contains(&("TaintToleration", 3)));
    }

    #[test]
    fn multi_point_disable_removes_a_plugin_everywhere_and_star_disables_a_point() {
        let p = build_profile(
            &spec(PluginsSpec {
                multi_point: PluginSetSpec {
                    enabled: vec![],
                    disabled: vec!["InterPodAffinity".into()],
                },
                filter: PluginSetSpec {
                    enabled: vec![PluginRef::new("NodeName")],
                    disabled: vec!["*".into()],
                },
                ..Default::default()
            }),
            Version::V1_34,
        )
        .unwrap();
        assert!(!p.pre_filter.contains(&Plugin::InterPodAffinity));
        assert!(p.score_weight(Plugin::InterPodAffinity).is_none());
        assert_eq!(
            p.filter,
            vec![Plugin::NodeName],
            "* keeps only the point's own"
        );
    }

    #[test]
    fn filter_only_disable_keeps_the_score() {
        let p = build_profile(
            &spec(PluginsSpec {
                filter: PluginSetSpec {
                    enabled: vec![],
                    disabled: vec!["TaintToleration".into()],
                },
                ..Default::default()
            }),
            Version::V1_34,
        )
        .unwrap();
        assert!(!p.runs_filter(Plugin::TaintToleration));
        assert_eq!(p.score_weight(Plugin::TaintToleration), Some(3));
    }

    #[test]
    fn unknown_or_misplaced_plugins_are_refused_with_the_field() {
        let err = build_profile(
            &spec(PluginsSpec {
                score: PluginSetSpec {
                    enabled: vec![PluginRef::weighted("NodeResourcesMostAllocated", 1)],
                    disabled: vec![],
                },
                ..Default::default()
            }),
            Version::V1_34,
        )
        .unwrap_err();
        assert_eq!(err.field, "plugins.score.enabled[0].name");
        assert!(err.message.contains("does not exist"), "{err}");
        let err = build_profile(
            &spec(PluginsSpec {
                score: PluginSetSpec {
                    enabled: vec![PluginRef::weighted("NodeName", 1)],
                    disabled: vec![],
                },
                ..Default::default()
            }),
            Version::V1_34,
        )
        .unwrap_err();
        assert!(err.message.contains("does not extend ScorePlugin"), "{err}");
    }

    #[test]
    fn profiles_are_chosen_by_scheduler_name() {
        let profiles = Profiles::from_specs(
            &[
                ProfileSpec {
                    scheduler_name: "default-scheduler".into(),
                    ..Default::default()
                },
                ProfileSpec {
                    scheduler_name: "batch".into(),
                    ..Default::default()
                },
            ],
            Version::V1_34,
            "test".into(),
            None,
        )
        .unwrap();
        assert_eq!(
            profiles.for_scheduler("").unwrap().scheduler_name,
            "default-scheduler"
        );
        assert_eq!(
            profiles.for_scheduler("batch").unwrap().scheduler_name,
            "batch"
        );
        assert!(profiles.for_scheduler("custom").is_none());
    }

    #[test]
    fn every_score_plugin_fits_in_a_node_score_row() {
        let scoring = KNOWN
            .iter()
            .filter(|(_, plugin, points)| plugin.is_some() && points.contains(&Point::Score))
            .count();
        assert_eq!(scoring, 8);
        assert!(scoring <= crate::engine::framework::MAX_SCORE_PLUGINS);
    }

    #[test]
    fn feasible_nodes_to_find_follows_upstream() {
        assert_eq!(feasible_nodes_to_find(None, 50), 50);
        assert_eq!(feasible_nodes_to_find(Some(10), 99), 99);
        // Adaptive: 50 - 5000/125 = 10% of 5,000.
        assert_eq!(feasible_nodes_to_find(None, 5000), 500);
        // At least 5% ...
        assert_eq!(feasible_nodes_to_find(None, 10_000), 500);
        // ... and at least 100 nodes.
        assert_eq!(feasible_nodes_to_find(Some(10), 500), 100);
        assert_eq!(feasible_nodes_to_find(Some(100), 5000), 5000);
    }

    #[test]
    fn ignored_resources_and_groups() {
        let args = FitArgs {
            ignored_resources: vec!["example.com/fpga".into()],
            ignored_resource_groups: vec!["vendor.io".into()],
            ..Default::default()
        };
        assert!(args.ignores("example.com/fpga"));
        assert!(args.ignores("vendor.io/gpu"));
        assert!(!args.ignores("example.com/gpu"));
    }
}
