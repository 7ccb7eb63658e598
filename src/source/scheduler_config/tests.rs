use super::*;
use crate::engine::profile::Profile;

const V: Version = Version::V1_34;
const HEAD: &str = "apiVersion: kubescheduler.config.k8s.io/v1\nkind: KubeSchedulerConfiguration\n";

fn ok(body: &str) -> Profiles {
    let text = format!("{HEAD}{body}");
    parse(&text, "sched.yaml", V).unwrap_or_else(|e| panic!("{e}\n---\n{text}"))
}

fn err(body: &str) -> ConfigError {
    let text = format!("{HEAD}{body}");
    match parse(&text, "sched.yaml", V) {
        Ok(p) => panic!("accepted:\n{text}\n{p:?}"),
        Err(e) => e,
    }
}

/// The one validation error of a configuration, as `field: message`.
fn invalid_one(body: &str) -> String {
    let e = err(body);
    match e.field_errors() {
        [one] => one.to_string(),
        other => panic!("expected one field error, got {other:?} ({e})"),
    }
}

fn plugin_config(name: &str, args: &str) -> String {
    let args: String = args.lines().map(|l| format!("      {l}\n")).collect();
    format!(
        "profiles:\n- schedulerName: default-scheduler\n  pluginConfig:\n  - name: {name}\n    args:\n{args}"
    )
}

fn default_profile(p: &Profiles) -> &Profile {
    p.for_scheduler("").expect("default-scheduler")
}

// ---- The conformance corpus and the example configurations.

#[test]
fn every_conformance_config_parses_and_names_its_profile() {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/conformance/cases");
    let mut seen = 0;
    for entry in std::fs::read_dir(&dir).unwrap() {
        let case = entry.unwrap().path();
        let name = case.file_name().unwrap().to_string_lossy().to_string();
        if !name.starts_with("config-") {
            continue;
        }
        let profiles = load(&case.join("config.yaml"), V).unwrap_or_else(|e| panic!("{name}: {e}"));
        assert_eq!(
            profiles.origin,
            case.join("config.yaml").display().to_string()
        );
        let answer: serde_json::Value =
            serde_json::from_str(&std::fs::read_to_string(case.join("v1.34.json")).unwrap())
                .unwrap();
        if let Some(profile) = answer.get("profile").and_then(|p| p.as_str()) {
            let p = profiles
                .for_scheduler(profile)
                .unwrap_or_else(|| panic!("{name}: no profile {profile}"));
            assert!(p.configured, "{name}");
        }
        seen += 1;
    }
    assert!(seen >= 40, "only {seen} config cases");
}

#[test]
fn the_example_configurations_load() {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("assets/scheduler-configs");
    let bin = load(&dir.join("bin-packing.yaml"), V).unwrap();
    let p = default_profile(&bin);
    assert_eq!(
        p.args.node_resources_fit.strategy,
        ScoringStrategy::MostAllocated
    );
    assert!(
        p.score_weight(Plugin::NodeResourcesBalancedAllocation)
            .is_none()
    );

    let spread = load(&dir.join("default-spread.yaml"), V).unwrap();
    let SpreadDefaulting::List(list) =
        &default_profile(&spread).args.pod_topology_spread.defaulting
    else {
        panic!("List defaulting");
    };
    let keys: Vec<&str> = list.iter().map(|c| c.topology_key.as_str()).collect();
    assert_eq!(
        keys,
        ["topology.kubernetes.io/zone", "kubernetes.io/hostname"]
    );

    let batch = load(&dir.join("batch-profile.yaml"), V).unwrap();
    assert_eq!(batch.profiles.len(), 2);
    let b = batch.for_scheduler("batch-scheduler").unwrap();
    assert!(matches!(
        b.args.node_resources_fit.strategy,
        ScoringStrategy::RequestedToCapacityRatio(_)
    ));
    assert!(!b.runs_filter(Plugin::InterPodAffinity));
    assert!(b.score_weight(Plugin::InterPodAffinity).is_none());
    let d = batch.for_scheduler("default-scheduler").unwrap();
    assert!(d.runs_filter(Plugin::InterPodAffinity));
}

// ---- Merge-relevant parsing.

#[test]
fn score_weights_multi_point_disable_and_star_reach_the_profile() {
    let p = ok(r#"
profiles:
- schedulerName: default-scheduler
  plugins:
    multiPoint:
      disabled: [{name: ImageLocality}]
    filter:
      disabled: [{name: "*"}]
      enabled: [{name: NodeName}, {name: NodeResourcesFit}]
    score:
      enabled: [{name: PodTopologySpread, weight: 7}]
"#);
    let p = default_profile(&p);
    assert_eq!(p.score_weight(Plugin::PodTopologySpread), Some(7));
    assert_eq!(p.score_weight(Plugin::ImageLocality), None);
    assert_eq!(p.filter, vec![Plugin::NodeName, Plugin::NodeResourcesFit]);
    assert!(p.configured);
}

#[test]
fn multi_point_enabled_with_weight_sets_the_score_weight() {
    let p = ok(r#"
profiles:
- plugins:
    multiPoint:
      enabled: [{name: NodeResourcesFit, weight: 9}]
"#);
    assert_eq!(
        default_profile(&p).score_weight(Plugin::NodeResourcesFit),
        Some(9)
    );
}

#[test]
fn percentage_of_nodes_to_score_top_level_and_per_profile() {
    let p = ok(
        "percentageOfNodesToScore: 40\nprofiles:\n- {schedulerName: a, percentageOfNodesToScore: 30}\n- {schedulerName: b}\n",
    );
    assert_eq!(p.percentage_of_nodes_to_score, Some(40));
    assert_eq!(
        p.for_scheduler("a").unwrap().percentage_of_nodes_to_score,
        Some(30)
    );
    assert_eq!(
        p.for_scheduler("b").unwrap().percentage_of_nodes_to_score,
        None
    );
}

#[test]
fn json_is_read_too() {
    let text = r#"{"apiVersion": "kubescheduler.config.k8s.io/v1", "kind": "KubeSchedulerConfiguration",
      "profiles": [{"schedulerName": "j", "pluginConfig": [{"name": "InterPodAffinity", "args": {"hardPodAffinityWeight": 7}}]}]}"#;
    let p = parse(text, "s.json", V).unwrap();
    assert_eq!(
        p.for_scheduler("j")
            .unwrap()
            .args
            .inter_pod_affinity
            .hard_pod_affinity_weight,
        7
    );
}

#[test]
fn upstream_fields_kplace_does_not_use_are_accepted() {
    ok(r#"
parallelism: 8
leaderElection: {leaderElect: true, resourceLock: leases}
clientConnection: {kubeconfig: /etc/kubernetes/scheduler.conf, qps: 50}
enableProfiling: false
enableContentionProfiling: false
podInitialBackoffSeconds: 2
podMaxBackoffSeconds: 20
delayCacheUntilActive: true
extenders: []
profiles:
- schedulerName: default-scheduler
  plugins:
    reserve: {enabled: [{name: VolumeBinding}]}
    preBind: {disabled: [{name: "*"}]}
    permit: {}
    postBind: {}
    bind: {enabled: [{name: DefaultBinder}]}
    queueSort: {enabled: [{name: PrioritySort}]}
  pluginConfig:
  - name: VolumeBinding
    args: {bindTimeoutSeconds: 300}
  - name: TaintToleration
    args: {anything: goes}
  - name: DynamicResources
    args: {filterTimeout: 5s}
"#);
}

#[test]
fn an_unknown_plugin_in_plugin_config_is_ignored_like_upstream() {
    // decodeNestedObjects keeps args of unregistered kinds raw, validation
    // has no validator for them and NewFramework only reads the config of
    // plugins it builds: kube-scheduler starts.
    ok(&plugin_config("CapacityScheduling", "{maxSkew: whatever}"));
}

// ---- Defaults (defaults.go).

#[test]
fn no_profiles_is_one_default_profile() {
    let p = ok("");
    assert_eq!(p.profiles.len(), 1);
    assert_eq!(p.profiles[0].scheduler_name, "default-scheduler");
    let p = ok("profiles: []\n");
    assert_eq!(p.profiles[0].scheduler_name, "default-scheduler");
    // A single profile without a name is the default scheduler.
    let p = ok("profiles:\n- percentageOfNodesToScore: 20\n");
    assert_eq!(p.profiles[0].scheduler_name, "default-scheduler");
    assert_eq!(p.profiles[0].percentage_of_nodes_to_score, Some(20));
}

#[test]
fn fit_defaults_least_allocated_cpu_memory_and_zero_weight_is_one() {
    let p = ok(&plugin_config("NodeResourcesFit", "{}"));
    assert_eq!(
        default_profile(&p).args.node_resources_fit,
        FitArgs::default()
    );
    // scoringStrategy without a type stays empty upstream and is refused.
    let p = ok(&plugin_config(
        "NodeResourcesFit",
        "scoringStrategy:\n  type: MostAllocated\n  resources: [{name: cpu, weight: 0}, {name: example.com/gpu}]",
    ));
    let fit = &default_profile(&p).args.node_resources_fit;
    assert_eq!(fit.strategy, ScoringStrategy::MostAllocated);
    assert_eq!(
        fit.resources,
        vec![
            ResourceWeight {
                name: "cpu".into(),
                weight: 1
            },
            ResourceWeight {
                name: "example.com/gpu".into(),
                weight: 1
            }
        ]
    );
    let p = ok(&plugin_config(
        "NodeResourcesFit",
        "scoringStrategy: {type: MostAllocated}",
    ));
    assert_eq!(
        default_profile(&p).args.node_resources_fit.resources,
        default_resources()
    );
}

#[test]
fn balanced_allocation_defaults() {
    let p = ok(&plugin_config(
        "NodeResourcesBalancedAllocation",
        "resources: [{name: cpu}, {name: example.com/gpu, weight: 0}]",
    ));
    let r = &default_profile(&p).args.balanced_allocation.resources;
    assert_eq!(r.iter().map(|r| r.weight).collect::<Vec<_>>(), [1, 1]);
    let p = ok(&plugin_config("NodeResourcesBalancedAllocation", "{}"));
    assert_eq!(
        default_profile(&p).args.balanced_allocation.resources,
        default_resources()
    );
}

#[test]
fn spread_defaults_system_and_list_may_be_empty() {
    let p = ok(&plugin_config("PodTopologySpread", "{}"));
    assert_eq!(
        default_profile(&p).args.pod_topology_spread.defaulting,
        SpreadDefaulting::System
    );
    let p = ok(&plugin_config("PodTopologySpread", "defaultingType: List"));
    assert_eq!(
        default_profile(&p).args.pod_topology_spread.defaulting,
        SpreadDefaulting::List(vec![])
    );
}

#[test]
fn inter_pod_affinity_and_preemption_defaults() {
    let p = ok(&plugin_config(
        "InterPodAffinity",
        "ignorePreferredTermsOfExistingPods: true",
    ));
    let a = &default_profile(&p).args.inter_pod_affinity;
    assert_eq!(a.hard_pod_affinity_weight, 1);
    assert!(a.ignore_preferred_terms_of_existing_pods);
    let p = ok(&plugin_config(
        "DefaultPreemption",
        "minCandidateNodesAbsolute: 5",
    ));
    assert_eq!(
        default_profile(&p).args.default_preemption,
        PreemptionArgs {
            min_candidate_nodes_percentage: 10,
            min_candidate_nodes_absolute: 5
        }
    );
    // Args given as null or omitted are the defaults.
    let p = ok("profiles:\n- pluginConfig:\n  - name: DefaultPreemption\n");
    assert_eq!(
        default_profile(&p).args.default_preemption,
        PreemptionArgs::default()
    );
}

#[test]
fn node_affinity_terms_are_read_and_empty_terms_skipped() {
    let p = ok(&plugin_config(
        "NodeAffinity",
        r#"addedAffinity:
  requiredDuringSchedulingIgnoredDuringExecution:
    nodeSelectorTerms:
    - matchExpressions:
      - {key: pool, operator: In, values: [a, b]}
      - {key: gen, operator: Gt, values: ["3"]}
      matchFields:
      - {key: metadata.name, operator: NotIn, values: [n1]}
    - {}
  preferredDuringSchedulingIgnoredDuringExecution:
  - weight: 5
    preference:
      matchExpressions: [{key: ssd, operator: Exists}]
  - weight: 0
    preference:
      matchExpressions: [{key: hdd, operator: Exists}]"#,
    ));
    let a = &default_profile(&p).args.node_affinity;
    let required = a.added_required.as_ref().unwrap();
    assert_eq!(required.len(), 1, "the empty term is skipped");
    assert_eq!(
        required[0].match_expressions[1],
        AddedRequirement {
            key: "gen".into(),
            operator: NodeSelectorOperator::Gt,
            values: vec!["3".into()]
        }
    );
    assert_eq!(
        required[0].match_fields[0].operator,
        NodeSelectorOperator::NotIn
    );
    assert_eq!(a.added_preferred.len(), 1, "weight 0 is skipped");
    assert_eq!(a.added_preferred[0].0, 5);
    let p = ok(&plugin_config("NodeAffinity", "{}"));
    assert_eq!(default_profile(&p).args.node_affinity.added_required, None);
}

#[test]
fn an_explicit_default_profile_equals_the_built_in_one() {
    let p = ok(r#"
percentageOfNodesToScore: 0
profiles:
- schedulerName: default-scheduler
  plugins:
    multiPoint:
      enabled:
      - name: SchedulingGates
      - name: PrioritySort
      - name: NodeUnschedulable
      - name: NodeName
      - {name: TaintToleration, weight: 3}
      - {name: NodeAffinity, weight: 2}
      - name: NodePorts
      - {name: NodeResourcesFit, weight: 1}
      - name: VolumeRestrictions
      - name: NodeVolumeLimits
      - name: VolumeBinding
      - name: VolumeZone
      - {name: PodTopologySpread, weight: 2}
      - {name: InterPodAffinity, weight: 2}
      - name: DynamicResources
      - name: DefaultPreemption
      - {name: NodeResourcesBalancedAllocation, weight: 1}
      - {name: ImageLocality, weight: 1}
      - name: DefaultBinder
  pluginConfig:
  - name: NodeResourcesFit
    args:
      scoringStrategy:
        type: LeastAllocated
        resources: [{name: cpu, weight: 1}, {name: memory, weight: 1}]
  - name: NodeResourcesBalancedAllocation
    args: {resources: [{name: cpu, weight: 1}, {name: memory, weight: 1}]}
  - name: PodTopologySpread
    args: {defaultingType: System}
  - name: InterPodAffinity
    args: {hardPodAffinityWeight: 1, ignorePreferredTermsOfExistingPods: false}
  - name: NodeAffinity
    args: {}
  - name: DefaultPreemption
    args: {minCandidateNodesPercentage: 10, minCandidateNodesAbsolute: 100}
  - name: VolumeBinding
    args: {bindTimeoutSeconds: 600}
"#);
    let mut got = default_profile(&p).clone();
    assert!(got.configured);
    got.configured = false;
    assert_eq!(got, Profile::default_for(V));
}

// ---- Validation errors (validation.go, validation_pluginargs.go, NewFit).

#[test]
fn resource_weights_out_of_range() {
    let e = invalid_one(&plugin_config(
        "NodeResourcesFit",
        "scoringStrategy:\n  type: MostAllocated\n  resources: [{name: cpu, weight: 101}, {name: memory, weight: 1}]",
    ));
    assert_eq!(
        e,
        "profiles[0].pluginConfig[0].args.scoringStrategy.resources[0].weight: Invalid value: 101: resource weight of cpu not in valid range (0, 100]"
    );
    let e = invalid_one(&plugin_config(
        "NodeResourcesFit",
        "scoringStrategy:\n  resources: [{name: memory, weight: -1}]\n  type: LeastAllocated",
    ));
    assert!(
        e.ends_with("Invalid value: -1: resource weight of memory not in valid range (0, 100]"),
        "{e}"
    );
    let e = invalid_one(&plugin_config(
        "NodeResourcesBalancedAllocation",
        "resources: [{name: cpu, weight: 2}]",
    ));
    assert_eq!(
        e,
        "profiles[0].pluginConfig[0].args.resources[0].weight: Invalid value: 2: must be 1"
    );
    let e = invalid_one(&plugin_config(
        "NodeResourcesBalancedAllocation",
        "resources: [{name: cpu}, {name: cpu}]",
    ));
    assert_eq!(
        e,
        "profiles[0].pluginConfig[0].args.resources[1].name: Duplicate value: \"cpu\""
    );
}

#[test]
fn fit_args_are_only_checked_when_the_profile_runs_fit() {
    // Upstream validates them in NewFit, which a profile disabling the
    // plugin never calls (the validator map's key is "NodeResourcesFitArgs").
    ok(r#"
profiles:
- plugins:
    multiPoint:
      disabled: [{name: NodeResourcesFit}]
  pluginConfig:
  - name: NodeResourcesFit
    args: {scoringStrategy: {type: Nope}}
"#);
}

#[test]
fn fit_type_and_ignored_resources() {
    let e = invalid_one(&plugin_config(
        "NodeResourcesFit",
        "scoringStrategy: {type: BalancedAllocation}",
    ));
    assert_eq!(
        e,
        "profiles[0].pluginConfig[0].args.scoringStrategy.type: Unsupported value: \"BalancedAllocation\": supported values: \"LeastAllocated\", \"MostAllocated\", \"RequestedToCapacityRatio\""
    );
    let e = err(&plugin_config(
        "NodeResourcesFit",
        "ignoredResourceGroups: [example.com/gpu]",
    ));
    assert_eq!(
        e.field_errors()[0].to_string(),
        "profiles[0].pluginConfig[0].args.ignoredResourceGroups[0]: Invalid value: \"example.com/gpu\": resource group name can't contain '/'"
    );
    let e = invalid_one(&plugin_config(
        "NodeResourcesFit",
        "ignoredResources: [\"-bad\"]",
    ));
    assert!(
        e.starts_with("profiles[0].pluginConfig[0].args.ignoredResources[0]: Invalid value: \"-bad\": name part must consist of alphanumeric characters"),
        "{e}"
    );
}

#[test]
fn requested_to_capacity_ratio_needs_its_shape() {
    let e = invalid_one(&plugin_config(
        "NodeResourcesFit",
        "scoringStrategy: {type: RequestedToCapacityRatio}",
    ));
    assert!(
        e.starts_with("profiles[0].pluginConfig[0].args.scoringStrategy.requestedToCapacityRatio: Required value"),
        "{e}"
    );
    let e = invalid_one(&plugin_config(
        "NodeResourcesFit",
        "scoringStrategy: {type: RequestedToCapacityRatio, requestedToCapacityRatio: {shape: []}}",
    ));
    assert!(
        e.ends_with("Required value: at least one point must be specified"),
        "{e}"
    );
}

#[test]
fn decreasing_or_out_of_range_shape() {
    let e = err(&plugin_config(
        "NodeResourcesFit",
        r#"scoringStrategy:
  type: RequestedToCapacityRatio
  requestedToCapacityRatio:
    shape: [{utilization: 50, score: 5}, {utilization: 20, score: 11}, {utilization: 101, score: 0}]"#,
    ));
    let errs: Vec<String> = e.field_errors().iter().map(|e| e.to_string()).collect();
    let p = "profiles[0].pluginConfig[0].args.scoringStrategy.requestedToCapacityRatio.shape";
    assert_eq!(
        errs,
        vec![
            format!(
                "{p}[1].utilization: Invalid value: 20: values must be sorted in increasing order"
            ),
            format!("{p}[1].score: Invalid value: 11: not in valid range [0, 10]"),
            format!("{p}[2].utilization: Invalid value: 101: not in valid range [0, 100]"),
        ]
    );
}

#[test]
fn hard_pod_affinity_weight_out_of_range() {
    let e = invalid_one(&plugin_config(
        "InterPodAffinity",
        "hardPodAffinityWeight: 101",
    ));
    assert_eq!(
        e,
        "profiles[0].pluginConfig[0].args.hardPodAffinityWeight: Invalid value: 101: not in valid range [0, 100]"
    );
}

#[test]
fn spread_constraint_errors() {
    let p = "profiles[0].pluginConfig[0].args";
    let e = invalid_one(&plugin_config(
        "PodTopologySpread",
        "defaultingType: List\ndefaultConstraints: [{maxSkew: 0, topologyKey: zone, whenUnsatisfiable: DoNotSchedule}]",
    ));
    assert_eq!(
        e,
        format!("{p}.defaultConstraints[0].maxSkew: Invalid value: 0: not in valid range (0, inf)")
    );
    let e = err(&plugin_config(
        "PodTopologySpread",
        r#"defaultingType: List
defaultConstraints:
- {maxSkew: 1, topologyKey: "", whenUnsatisfiable: Sometimes}
- {maxSkew: 1, topologyKey: zone, whenUnsatisfiable: DoNotSchedule, labelSelector: {matchLabels: {a: b}}}
- {maxSkew: 2, topologyKey: zone, whenUnsatisfiable: DoNotSchedule}"#,
    ));
    let errs: Vec<String> = e.field_errors().iter().map(|e| e.to_string()).collect();
    let dc = format!("{p}.defaultConstraints");
    assert_eq!(
        errs,
        vec![
            format!("{dc}[0].topologyKey: Required value: can not be empty"),
            format!(
                "{dc}[0].whenUnsatisfiable: Unsupported value: \"Sometimes\": supported values: \"DoNotSchedule\", \"ScheduleAnyway\""
            ),
            format!(
                "{dc}[1].labelSelector: Forbidden: constraint must not define a selector, as they deduced for each pod"
            ),
            format!("{dc}[2]: Duplicate value: \"{{zone, DoNotSchedule}}\""),
        ]
    );
    let e = invalid_one(&plugin_config(
        "PodTopologySpread",
        "defaultConstraints: [{maxSkew: 1, topologyKey: zone, whenUnsatisfiable: DoNotSchedule}]",
    ));
    assert_eq!(
        e,
        format!(
            "{p}.defaultingType: Invalid value: \"System\": when .defaultConstraints are not empty"
        )
    );
    let e = invalid_one(&plugin_config(
        "PodTopologySpread",
        "defaultingType: Custom",
    ));
    assert_eq!(
        e,
        format!(
            "{p}.defaultingType: Unsupported value: \"Custom\": supported values: \"System\", \"List\""
        )
    );
}

#[test]
fn preemption_ranges() {
    let p = "profiles[0].pluginConfig[0].args";
    let e = invalid_one(&plugin_config(
        "DefaultPreemption",
        "minCandidateNodesPercentage: 101",
    ));
    assert_eq!(
        e,
        format!("{p}.minCandidateNodesPercentage: Invalid value: 101: not in valid range [0, 100]")
    );
    let e = invalid_one(&plugin_config(
        "DefaultPreemption",
        "minCandidateNodesAbsolute: -1",
    ));
    assert_eq!(
        e,
        format!("{p}.minCandidateNodesAbsolute: Invalid value: -1: not in valid range [0, inf)")
    );
    let e = err(&plugin_config(
        "DefaultPreemption",
        "{minCandidateNodesPercentage: 0, minCandidateNodesAbsolute: 0}",
    ));
    assert_eq!(e.field_errors().len(), 2);
    assert!(
        e.to_string()
            .contains("cannot be zero at the same time as minCandidateNodesAbsolute")
    );
}

#[test]
fn added_affinity_errors() {
    let base = "profiles[0].pluginConfig[0].args.addedAffinity";
    let e = err(&plugin_config(
        "NodeAffinity",
        r#"addedAffinity:
  requiredDuringSchedulingIgnoredDuringExecution:
    nodeSelectorTerms:
    - matchExpressions:
      - {key: pool, operator: Near, values: [a]}
      - {key: pool, operator: In}
      - {key: gen, operator: Gt, values: [three]}
      - {key: ssd, operator: Exists, values: [x]}
      matchFields:
      - {key: metadata.name, operator: In, values: [a, b]}
  preferredDuringSchedulingIgnoredDuringExecution:
  - weight: 1
    preference:
      matchExpressions: [{key: "a b", operator: Exists}]"#,
    ));
    let errs: Vec<String> = e.field_errors().iter().map(|e| e.to_string()).collect();
    let t = format!("{base}.requiredDuringSchedulingIgnoredDuringExecution.nodeSelectorTerms[0]");
    assert_eq!(
        errs[0],
        format!(
            "{t}.matchExpressions[0].operator: Unsupported value: \"Near\": supported values: \"In\", \"NotIn\", \"Exists\", \"DoesNotExist\", \"Gt\", \"Lt\""
        )
    );
    assert_eq!(
        errs[1],
        format!(
            "{t}.matchExpressions[1].values: Invalid value: null: for 'in', 'notin' operators, values set can't be empty"
        )
    );
    assert_eq!(
        errs[2],
        format!(
            "{t}.matchExpressions[2].values[0]: Invalid value: \"three\": for 'Gt', 'Lt' operators, the value must be an integer"
        )
    );
    assert_eq!(
        errs[3],
        format!(
            "{t}.matchExpressions[3].values: Invalid value: [\"x\"]: values set must be empty for exists and does not exist"
        )
    );
    assert_eq!(
        errs[4],
        format!("{t}.matchFields[0].values: Invalid value: [\"a\",\"b\"]: must have one element")
    );
    assert!(errs[5].starts_with(&format!("{base}.preferredDuringSchedulingIgnoredDuringExecution[0].matchExpressions[0].key: Invalid value: \"a b\": name part must consist")), "{}", errs[5]);
    assert_eq!(errs.len(), 6, "{errs:#?}");
}

#[test]
fn duplicate_scheduler_name_and_missing_name() {
    let e = invalid_one("profiles:\n- schedulerName: a\n- schedulerName: a\n");
    assert!(
        e.starts_with("profiles[1].schedulerName: Duplicate value: {}"),
        "{e}"
    );
    assert!(e.contains("profiles[0].schedulerName"), "{e}");
    // Only a single profile gets the default name.
    let e = invalid_one("profiles:\n- schedulerName: a\n- percentageOfNodesToScore: 1\n");
    assert_eq!(e, "profiles[1].schedulerName: Required value");
    let e = invalid_one("profiles:\n- schedulerName: \"\"\n");
    assert_eq!(e, "profiles[0].schedulerName: Required value");
}

#[test]
fn percentage_of_nodes_to_score_out_of_range() {
    assert_eq!(
        invalid_one("percentageOfNodesToScore: 101\n"),
        "percentageOfNodesToScore: Invalid value: 101: not in valid range [0-100]"
    );
    assert_eq!(
        invalid_one("profiles:\n- percentageOfNodesToScore: -1\n"),
        "profiles[0].percentageOfNodesToScore: Invalid value: -1: not in valid range [0-100]"
    );
}

#[test]
fn top_level_numbers_kplace_ignores_are_still_validated() {
    assert_eq!(
        invalid_one("parallelism: 0\n"),
        "parallelism: Invalid value: 0: should be an integer value greater than zero"
    );
    assert_eq!(
        invalid_one("podInitialBackoffSeconds: 5\npodMaxBackoffSeconds: 4\n"),
        "podMaxBackoffSeconds: Invalid value: 4: must be greater than or equal to PodInitialBackoffSeconds"
    );
}

#[test]
fn queue_sort_must_match_across_profiles() {
    let e = invalid_one(
        "profiles:\n- schedulerName: a\n- schedulerName: b\n  plugins:\n    queueSort:\n      disabled: [{name: PrioritySort}]\n",
    );
    assert_eq!(
        e,
        "profiles[1].plugins.queueSort: Invalid value: {\"Enabled\":null,\"Disabled\":[{\"Name\":\"PrioritySort\",\"Weight\":0}]}: must be the same for all profiles"
    );
}

#[test]
fn removed_plugins_are_invalid() {
    let e = invalid_one("profiles:\n- plugins:\n    filter:\n      enabled: [{name: EBSLimits}]\n");
    assert_eq!(
        e,
        "profiles[0].plugins.filter.enabled[0]: Invalid value: \"EBSLimits\": was invalid in version \"v1\" (KubeSchedulerConfiguration is version \"kubescheduler.config.k8s.io/v1\")"
    );
}

#[test]
fn unknown_plugins_are_refused() {
    let e = invalid_one(
        "profiles:\n- plugins:\n    score:\n      enabled: [{name: NodeResourcesMostAllocated, weight: 1}]\n",
    );
    assert!(
        e.starts_with("profiles[0].plugins.score.enabled[0].name: ScorePlugin \"NodeResourcesMostAllocated\" does not exist"),
        "{e}"
    );
    let e = invalid_one("profiles:\n- plugins:\n    bind:\n      enabled: [{name: MyBinder}]\n");
    assert_eq!(
        e,
        "profiles[0].plugins.bind.enabled[0].name: BindPlugin \"MyBinder\" does not exist"
    );
    let e = invalid_one("profiles:\n- plugins:\n    reserve:\n      enabled: [{name: NodeName}]\n");
    assert_eq!(
        e,
        "profiles[0].plugins.reserve.enabled[0].name: plugin \"NodeName\" does not extend ReservePlugin plugin"
    );
}

#[test]
fn a_profile_needs_a_queue_sort_and_a_bind_plugin() {
    let e = invalid_one(
        "profiles:\n- plugins:\n    multiPoint:\n      disabled: [{name: DefaultBinder}]\n",
    );
    assert_eq!(
        e,
        "profiles[0].plugins: at least one bind plugin is needed for profile with scheduler name \"default-scheduler\""
    );
    let e = invalid_one("profiles:\n- plugins:\n    queueSort:\n      disabled: [{name: \"*\"}]\n");
    assert_eq!(
        e,
        "profiles[0].plugins: only one queue sort plugin required for profile with scheduler name \"default-scheduler\", but got 0"
    );
}

#[test]
fn volume_binding_and_dynamic_resources_args() {
    let p = "profiles[0].pluginConfig[0].args";
    assert_eq!(
        invalid_one(&plugin_config("VolumeBinding", "bindTimeoutSeconds: -1")),
        format!(
            "{p}.bindTimeoutSeconds: Invalid value: -1: invalid BindTimeoutSeconds, should not be a negative value"
        )
    );
    let e = invalid_one(&plugin_config(
        "VolumeBinding",
        "shape: [{utilization: 0, score: 10}]",
    ));
    assert!(
        e.contains("turn on the feature gate StorageCapacityScoring"),
        "{e}"
    );
    assert_eq!(
        invalid_one(&plugin_config("DynamicResources", "filterTimeout: -1s")),
        format!("{p}.filterTimeout: Invalid value: \"-1s\": must be zero or positive")
    );
    let e = err(&plugin_config("DynamicResources", "filterTimeout: soon"));
    assert!(e.to_string().contains("time: invalid duration"), "{e}");
}

// ---- Decoding errors.

#[test]
fn wrong_api_version_or_kind() {
    let e = parse(
        "apiVersion: kubescheduler.config.k8s.io/v1beta3\nkind: KubeSchedulerConfiguration\n",
        "sched.yaml",
        V,
    )
    .unwrap_err();
    let text = e.to_string();
    assert!(
        text.starts_with(
            "sched.yaml: apiVersion \"kubescheduler.config.k8s.io/v1beta3\" is not supported"
        ),
        "{text}"
    );
    assert!(text.contains("v1beta3 was removed"), "{text}");
    let e = parse("apiVersion: v1\nkind: Pod\n", "p.yaml", V).unwrap_err();
    assert!(e.to_string().contains("is not supported"), "{e}");
    let e = parse("kind: KubeSchedulerConfiguration\n", "p.yaml", V).unwrap_err();
    assert!(e.to_string().contains("'apiVersion' is missing"), "{e}");
    let e = parse(
        "apiVersion: kubescheduler.config.k8s.io/v1\nkind: KubeProxyConfiguration\n",
        "p.yaml",
        V,
    )
    .unwrap_err();
    assert!(e.to_string().contains("\"KubeProxyConfiguration\""), "{e}");
}

#[test]
fn misspelled_fields_are_named() {
    let e = err("profile:\n- schedulerName: a\n");
    assert_eq!(
        e,
        ConfigError::Decode {
            file: "sched.yaml".into(),
            field: "profile".into(),
            message: e.to_string().split_once("profile: ").unwrap().1.to_string(),
            line: Some(3),
        }
    );
    assert!(
        e.to_string()
            .starts_with("sched.yaml:3: profile: strict decoding error: unknown field \"profile\""),
        "{e}"
    );
    let e = err("profiles:\n- schedulerName: a\n  plugin:\n    score: {}\n");
    assert!(
        e.to_string().starts_with(
            "sched.yaml:5: profiles[0].plugin: strict decoding error: unknown field \"plugin\""
        ),
        "{e}"
    );
    let e = err(&plugin_config(
        "NodeResourcesFit",
        "scoringStrategy: {type: MostAllocated, resource: []}",
    ));
    assert!(
        e.to_string().starts_with("sched.yaml:8: profiles[0].pluginConfig[0].args.scoringStrategy.resource: strict decoding error: unknown field \"resource\""),
        "{e}"
    );
}

#[test]
fn validation_errors_name_the_line_of_their_field() {
    let e = err(concat!(
        "profiles:\n",
        "- schedulerName: a\n",
        "  plugins:\n",
        "    score:\n",
        "      enabled:\n",
        "      - name: NodeResourcesFit\n",
        "      - name: Foo\n",
        "      - name: Bar\n",
    ));
    assert!(
        e.to_string().starts_with(
            "sched.yaml:9: profiles[0].plugins.score.enabled[1].name: ScorePlugin \"Foo\" does not exist"
        ),
        "{e}"
    );
    // Plugin arguments, validated as they are decoded.
    let e = err(&plugin_config(
        "InterPodAffinity",
        "ignorePreferredTermsOfExistingPods: true\nhardPodAffinityWeight: 101",
    ));
    assert_eq!(
        e.to_string(),
        "sched.yaml:9: profiles[0].pluginConfig[0].args.hardPodAffinityWeight: Invalid value: 101: not in valid range [0, 100]"
    );
    // Past the size whose fields are located, the error names no line.
    let padding = "#".repeat(MAX_FIELD_LINE_BYTES);
    let e = err(&format!("{padding}\nprofile: []\n"));
    assert!(
        e.to_string()
            .starts_with("sched.yaml: profile: strict decoding"),
        "{}",
        e.to_string().get(..200).unwrap_or_default()
    );
    // A field that is not written (a required one) points at the deepest
    // part of its path that is.
    let e = err("profiles:\n- schedulerName: a\n- schedulerName: a\n");
    assert!(
        e.to_string()
            .starts_with("sched.yaml:5: profiles[1].schedulerName: Duplicate value"),
        "{e}"
    );
}

#[test]
fn wrong_types_are_named() {
    let e = err(&plugin_config(
        "InterPodAffinity",
        "hardPodAffinityWeight: heavy",
    ));
    assert!(
        e.to_string().starts_with(
            "sched.yaml:8: profiles[0].pluginConfig[0].args.hardPodAffinityWeight: invalid type"
        ),
        "{e}"
    );
    // Strict booleans: YAML 1.1's yes is not a boolean.
    let e = err(&plugin_config(
        "InterPodAffinity",
        "ignorePreferredTermsOfExistingPods: yes",
    ));
    assert!(matches!(e, ConfigError::Decode { .. }), "{e}");
    let e = err("percentageOfNodesToScore: 3000000000\n");
    assert!(matches!(e, ConfigError::Decode { .. }), "{e}");
}

#[test]
fn args_of_another_kind_are_refused() {
    let e = err(&plugin_config(
        "InterPodAffinity",
        "kind: NodeAffinityArgs\nhardPodAffinityWeight: 1",
    ));
    assert!(
        e.to_string()
            .contains("were not of type InterPodAffinityArgs"),
        "{e}"
    );
    ok(&plugin_config(
        "InterPodAffinity",
        "kind: InterPodAffinityArgs\napiVersion: kubescheduler.config.k8s.io/v1\nhardPodAffinityWeight: 1",
    ));
}

#[test]
fn unsupported_default_constraint_fields_are_refused() {
    let e = err(&plugin_config(
        "PodTopologySpread",
        "defaultingType: List\ndefaultConstraints: [{maxSkew: 1, topologyKey: zone, whenUnsatisfiable: DoNotSchedule, minDomains: 2}]",
    ));
    assert!(
        e.to_string().contains("kplace does not support minDomains"),
        "{e}"
    );
}

#[test]
fn syntax_errors_and_odd_documents_never_panic() {
    for text in [
        "",
        "---\n",
        "[]",
        "42",
        "{",
        "apiVersion: [",
        "apiVersion: kubescheduler.config.k8s.io/v1\nkind: KubeSchedulerConfiguration\nprofiles: 3\n",
        "apiVersion: kubescheduler.config.k8s.io/v1\nkind: KubeSchedulerConfiguration\nprofiles: [null]\n",
        "apiVersion: kubescheduler.config.k8s.io/v1\nkind: KubeSchedulerConfiguration\nprofiles:\n- pluginConfig: [{name: NodeAffinity, args: [1]}]\n",
        "apiVersion: kubescheduler.config.k8s.io/v1\nkind: KubeSchedulerConfiguration\napiVersion: x\n",
        "a: &a [*a]",
        "\u{feff}apiVersion: kubescheduler.config.k8s.io/v1\nkind: KubeSchedulerConfiguration\n",
    ] {
        let _ = parse(text, "x.yaml", V);
    }
    let e = parse("apiVersion: [", "x.yaml", V).unwrap_err();
    assert!(matches!(e, ConfigError::Syntax { .. }), "{e}");
    let e = parse(
        "apiVersion: kubescheduler.config.k8s.io/v1\nkind: KubeSchedulerConfiguration\nkind: KubeSchedulerConfiguration\n",
        "x.yaml",
        V,
    )
    .unwrap_err();
    assert!(
        matches!(e, ConfigError::Syntax { .. }),
        "duplicate keys: {e}"
    );
}

#[test]
fn large_and_missing_files_are_refused() {
    let dir = tempfile::tempdir().unwrap();
    let big = dir.path().join("big.yaml");
    let f = std::fs::File::create(&big).unwrap();
    f.set_len(MAX_CONFIG_BYTES + 1).unwrap();
    assert!(matches!(load(&big, V), Err(ConfigError::TooLarge { .. })));
    let e = load(&dir.path().join("none.yaml"), V).unwrap_err();
    assert!(e.to_string().contains("none.yaml"), "{e}");
}

#[test]
fn go_durations() {
    assert_eq!(go_duration_nanos("0"), Some(0));
    assert_eq!(go_duration_nanos("1.5s"), Some(1_500_000_000));
    assert_eq!(go_duration_nanos("1m30s"), Some(90_000_000_000));
    assert_eq!(go_duration_nanos("-2ms"), Some(-2_000_000));
    assert_eq!(go_duration_nanos("10"), None);
    assert_eq!(go_duration_nanos(""), None);
    assert_eq!(go_duration_nanos("s"), None);
}
