//! `kplace place` end to end: output formats, asking about pods already in
//! the snapshot, snapshot formats, `--timings`, `--fail-on`, and bad input.

use std::path::{Path, PathBuf};
use std::process::{Command, Output};

use serde_json::Value;

fn kplace(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_kplace"))
        .args(args)
        .output()
        .expect("runs")
}

fn case(name: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("tests/conformance/cases")
        .join(name)
}

fn snapshot(name: &str) -> String {
    case(name).join("snapshot.yaml.gz").display().to_string()
}

fn pod(name: &str) -> String {
    case(name).join("pod.yaml").display().to_string()
}

/// The real scheduler's answer as `version` (`"v1.33"`).
fn answer_of(name: &str, version: &str) -> Value {
    serde_json::from_str(
        &std::fs::read_to_string(case(name).join(format!("{version}.json"))).unwrap(),
    )
    .unwrap()
}

/// The answer kplace gives without `--scheduler-version`: the corpus's
/// nodes all report kubelet v1.30.6, so it answers as kube-scheduler 1.30.
fn expected(name: &str) -> Value {
    answer_of(name, "v1.30")
}

fn stdout_json(out: &Output) -> Value {
    assert!(
        out.status.success(),
        "stderr: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    serde_json::from_slice(&out.stdout).expect("stdout is JSON")
}

fn stderr(out: &Output) -> String {
    String::from_utf8_lossy(&out.stderr).into_owned()
}

fn unpacked_snapshot(name: &str) -> String {
    use std::io::Read;
    let mut text = String::new();
    flate2::read::GzDecoder::new(std::fs::File::open(snapshot(name)).unwrap())
        .read_to_string(&mut text)
        .unwrap();
    text
}

#[test]
fn json_answer_matches_the_scheduler() {
    let out = kplace(&[
        "place",
        "--snapshot",
        &snapshot("spread-001"),
        "--pod",
        &pod("spread-001"),
        "-o",
        "json",
    ]);
    let got = stdout_json(&out);
    let want = expected("spread-001");
    assert_eq!(got["outcome"], want["outcome"]);
    assert_eq!(got["feasibleNodes"], want["feasibleNodes"]);
    assert!(
        want["bestNodes"].as_array().unwrap().contains(&got["node"]),
        "node {} not among best",
        got["node"]
    );
}

#[test]
fn yaml_answer_has_the_same_content() {
    let json = stdout_json(&kplace(&[
        "place",
        "--snapshot",
        &snapshot("preemption-001"),
        "--pod",
        &pod("preemption-001"),
        "-o",
        "json",
    ]));
    let out = kplace(&[
        "place",
        "--snapshot",
        &snapshot("preemption-001"),
        "--pod",
        &pod("preemption-001"),
        "-o",
        "yaml",
    ]);
    assert!(out.status.success());
    let yaml: Value = serde_saphyr::from_slice(&out.stdout).expect("stdout is YAML");
    assert_eq!(yaml, json);
    assert_eq!(yaml["outcome"], "preempt");
}

#[test]
fn table_shows_outcome_victims_and_message() {
    let out = kplace(&[
        "place",
        "--snapshot",
        &snapshot("preemption-001"),
        "--pod",
        &pod("preemption-001"),
    ]);
    assert!(out.status.success());
    let text = String::from_utf8(out.stdout).unwrap();
    let want = expected("preemption-001");
    let chosen = want["preemption"]["chosenNodes"][0].as_str().unwrap();
    assert!(
        text.contains(&format!("PREEMPT → {chosen} after evicting")),
        "{text}"
    );
    for victim in want["preemption"]["candidates"][chosen]["victims"]
        .as_array()
        .unwrap()
    {
        assert!(
            text.contains(victim.as_str().unwrap()),
            "victim {victim} missing:\n{text}"
        );
    }
    assert!(text.contains(want["message"].as_str().unwrap()), "{text}");
    assert!(text.contains("PDB BROKEN"), "{text}");
}

#[test]
fn scheduled_table_ranks_nodes_with_plugin_points() {
    let out = kplace(&[
        "place",
        "--snapshot",
        &snapshot("spread-001"),
        "--pod",
        &pod("spread-001"),
    ]);
    let text = String::from_utf8(out.stdout).unwrap();
    let want = expected("spread-001");
    let best = want["bestNodes"][0].as_str().unwrap();
    let total = want["scores"][best]["total"].as_i64().unwrap();
    let first_row = text
        .lines()
        .find(|l| l.trim_start().starts_with("1 "))
        .expect("a ranked row");
    assert!(
        first_row.contains(best) && first_row.contains(&total.to_string()),
        "{first_row}"
    );
    assert!(
        text.contains("didn't match Pod's node affinity/selector"),
        "{text}"
    );
}

/// A snapshot plus the case's incoming pod added as a pending pod.
fn snapshot_with_pending_pod(dir: &Path, name: &str, priority: i64) -> PathBuf {
    let pod_text = std::fs::read_to_string(pod(name)).unwrap();
    let pending = pod_text.replace("spec:\n", &format!("spec:\n  priority: {priority}\n"));
    let path = dir.join("with-pending.yaml");
    std::fs::write(
        &path,
        format!(
            "{}\n---\n{pending}\nstatus: {{phase: Pending}}\n",
            unpacked_snapshot(name)
        ),
    )
    .unwrap();
    path
}

#[test]
fn pending_pod_by_name_gets_the_same_answer_as_its_manifest() {
    let dir = tempfile::tempdir().unwrap();
    let want = expected("preemption-001");
    let path = snapshot_with_pending_pod(
        dir.path(),
        "preemption-001",
        want["priority"].as_i64().unwrap(),
    );
    let by_name = stdout_json(&kplace(&[
        "place",
        "--snapshot",
        path.to_str().unwrap(),
        "--pod",
        want["pod"].as_str().unwrap(),
        "-o",
        "json",
    ]));
    assert_eq!(by_name["outcome"], want["outcome"]);
    assert_eq!(by_name["message"], want["message"]);
    assert_eq!(
        by_name["preemption"]["candidates"]
            .as_object()
            .unwrap()
            .keys()
            .collect::<Vec<_>>(),
        want["preemption"]["candidates"]
            .as_object()
            .unwrap()
            .keys()
            .collect::<Vec<_>>()
    );
}

#[test]
fn bound_pod_does_not_count_against_itself() {
    // One node with room for exactly one 3-cpu pod, and that pod on it.
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("one.yaml");
    std::fs::write(
        &path,
        r#"apiVersion: v1
kind: List
items:
- apiVersion: v1
  kind: Node
  metadata: {name: only, labels: {kubernetes.io/hostname: only}}
  status: {allocatable: {cpu: "4", memory: 8Gi, pods: "10"}}
- apiVersion: v1
  kind: Pod
  metadata: {name: big, namespace: web}
  spec:
    nodeName: only
    priority: 0
    containers: [{name: c, image: nginx, resources: {requests: {cpu: "3"}}}]
  status: {phase: Running}
"#,
    )
    .unwrap();
    let got = stdout_json(&kplace(&[
        "place",
        "--snapshot",
        path.to_str().unwrap(),
        "--pod",
        "web/big",
        "-o",
        "json",
    ]));
    assert_eq!(got["outcome"], "scheduled", "{got}");
    assert_eq!(got["node"], "only");
    assert!(got["notes"].to_string().contains("bound to only"));
}

#[test]
fn a_pod_bound_to_a_node_not_in_the_snapshot_is_not_pending() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("orphan.yaml");
    std::fs::write(
        &path,
        r#"apiVersion: v1
kind: List
items:
- apiVersion: v1
  kind: Node
  metadata: {name: only, labels: {kubernetes.io/hostname: only}}
  status: {allocatable: {cpu: "4", memory: 8Gi, pods: "10"}}
- apiVersion: v1
  kind: Pod
  metadata: {name: stray, namespace: web}
  spec:
    nodeName: gone-node
    containers: [{name: c, image: nginx, resources: {requests: {cpu: "1"}}}]
  status: {phase: Running}
"#,
    )
    .unwrap();
    // Asked about, it is answered with what it is.
    let got = stdout_json(&kplace(&[
        "place",
        "--snapshot",
        path.to_str().unwrap(),
        "--pod",
        "web/stray",
        "-o",
        "json",
    ]));
    let notes = got["notes"].to_string();
    assert!(
        notes.contains("the pod is bound to gone-node, which is not in the snapshot"),
        "{notes}"
    );
    assert!(notes.contains("it is not pending"), "{notes}");
    // Any answer says the snapshot holds such pods (and which).
    let new_pod = dir.path().join("new.yaml");
    std::fs::write(
        &new_pod,
        "apiVersion: v1\nkind: Pod\nmetadata: {name: n, namespace: web}\nspec:\n  containers: [{name: c, image: nginx}]\n",
    )
    .unwrap();
    let out = kplace(&[
        "place",
        "--snapshot",
        path.to_str().unwrap(),
        "--pod",
        new_pod.to_str().unwrap(),
    ]);
    assert!(out.status.success(), "{}", stderr(&out));
    let table = String::from_utf8_lossy(&out.stdout);
    assert!(
        table.contains(
            "1 pod is bound to nodes not in the snapshot (web/stray on gone-node): not pending"
        ),
        "{table}"
    );
}

#[test]
fn directory_of_json_and_yaml_files_loads_like_one_list() {
    // Split the case into a JSON file of nodes and a gzipped YAML of the rest.
    let dir = tempfile::tempdir().unwrap();
    let list: Value = serde_saphyr::from_str(&unpacked_snapshot("interpod-004")).unwrap();
    let items = list["items"].as_array().unwrap();
    let (nodes, rest): (Vec<&Value>, Vec<&Value>) = items.iter().partition(|i| i["kind"] == "Node");
    std::fs::write(
        dir.path().join("a-nodes.json"),
        serde_json::to_vec(
            &serde_json::json!({"apiVersion": "v1", "kind": "List", "items": nodes}),
        )
        .unwrap(),
    )
    .unwrap();
    let yaml = rest
        .iter()
        .map(|i| serde_saphyr::to_string(i).unwrap())
        .collect::<Vec<_>>()
        .join("---\n");
    let mut gz = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::fast());
    std::io::Write::write_all(&mut gz, yaml.as_bytes()).unwrap();
    std::fs::write(dir.path().join("b-rest.yaml.gz"), gz.finish().unwrap()).unwrap();
    let got = stdout_json(&kplace(&[
        "place",
        "--snapshot",
        dir.path().to_str().unwrap(),
        "--pod",
        &pod("interpod-004"),
        "-o",
        "json",
    ]));
    let want = expected("interpod-004");
    assert_eq!(got["feasibleNodes"], want["feasibleNodes"]);
    assert_eq!(got["message"], want["message"]);
}

#[test]
fn timings_print_the_two_contract_lines() {
    let out = kplace(&[
        "place",
        "--snapshot",
        &snapshot("spread-001"),
        "--pod",
        &pod("spread-001"),
        "-o",
        "json",
        "--timings",
        "--repeat",
        "3",
    ]);
    assert!(out.status.success());
    let err = stderr(&out);
    let load = err
        .lines()
        .find(|l| l.starts_with("timings: load "))
        .expect("load line");
    let parts: Vec<&str> = load.split_whitespace().collect();
    assert_eq!(parts.len(), 7, "{load}");
    assert_eq!(
        (parts[3], parts[4], parts[6]),
        ("ms,", "convert", "ms"),
        "{load}"
    );
    assert!(
        parts[2].parse::<f64>().is_ok() && parts[5].parse::<f64>().is_ok(),
        "{load}"
    );
    let answer = err
        .lines()
        .find(|l| l.starts_with("timings: answer n=3 median "))
        .expect("answer line");
    let a: Vec<&str> = answer.split_whitespace().collect();
    assert_eq!(
        (a[3], a[5], a[6], a[8], a[9], a[11]),
        ("median", "ms", "min", "ms", "max", "ms"),
        "{answer}"
    );
    for i in [4, 7, 10] {
        assert!(a[i].parse::<f64>().is_ok(), "{answer}");
    }
}

#[test]
fn fail_on_exits_3_when_the_answer_is_that_bad() {
    let (s, p) = (snapshot("preemption-001"), pod("preemption-001"));
    let out = kplace(&[
        "place",
        "--snapshot",
        &s,
        "--pod",
        &p,
        "--fail-on",
        "preempt",
    ]);
    assert_eq!(out.status.code(), Some(3));
    assert!(
        stderr(&out).contains("--fail-on preempt: the answer is preempt"),
        "{}",
        stderr(&out)
    );
    let out = kplace(&[
        "place",
        "--snapshot",
        &s,
        "--pod",
        &p,
        "--fail-on",
        "unschedulable",
    ]);
    assert_eq!(out.status.code(), Some(0), "preempt is not unschedulable");
    let out = kplace(&[
        "place",
        "--snapshot",
        &s,
        "--pod",
        &p,
        "--fail-on",
        "pdb-violation",
    ]);
    assert_eq!(out.status.code(), Some(3));
    assert!(stderr(&out).contains("shop/cart-pdb"), "{}", stderr(&out));
    let out = kplace(&[
        "place",
        "--snapshot",
        &snapshot("spread-001"),
        "--pod",
        &pod("spread-001"),
        "--fail-on",
        "preempt",
    ]);
    assert_eq!(out.status.code(), Some(0), "a scheduled pod passes");
}

fn bad_pod(dir: &Path, name: &str, body: &str) -> String {
    let path = dir.join(name);
    std::fs::write(&path, body).unwrap();
    path.display().to_string()
}

fn assert_bad_input(out: &Output, needles: &[&str]) {
    assert_eq!(out.status.code(), Some(2), "stderr: {}", stderr(out));
    let err = stderr(out);
    assert_eq!(err.lines().count(), 1, "one-line error: {err}");
    for n in needles {
        assert!(err.contains(n), "{n:?} not in {err:?}");
    }
}

#[test]
fn bad_input_gets_exit_2_and_a_named_error() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    let s = snapshot("spread-001");
    let malformed = bad_pod(
        d,
        "malformed.yaml",
        "apiVersion: v1\nkind: Pod\nmetadata:\n  name: x\nspec:\n  containers:\n  - name: a\n    resources: {requests: {cpu: 1}\n",
    );
    assert_bad_input(
        &kplace(&["place", "--snapshot", &s, "--pod", &malformed]),
        &["malformed.yaml:8:"],
    );

    // In kubectl's words, not the YAML parser's advice about its options.
    let duplicate = bad_pod(
        d,
        "dup.yaml",
        "apiVersion: v1\nkind: Pod\nmetadata:\n  name: a\n  name: b\nspec:\n  containers: [{name: c, image: i}]\n",
    );
    let out = kplace(&["place", "--snapshot", &s, "--pod", &duplicate]);
    assert_bad_input(
        &out,
        &["dup.yaml:5: column 3: key \"name\" already set in map"],
    );
    assert!(
        !stderr(&out).contains("DuplicateKeyPolicy"),
        "{}",
        stderr(&out)
    );

    let no_containers = bad_pod(
        d,
        "nc.yaml",
        "apiVersion: v1\nkind: Pod\nmetadata: {name: nc}\nspec: {containers: []}\n",
    );
    assert_bad_input(
        &kplace(&["place", "--snapshot", &s, "--pod", &no_containers]),
        &[
            "nc.yaml",
            "Pod default/nc",
            "spec.containers: Required value",
        ],
    );

    let skew = bad_pod(
        d,
        "skew.yaml",
        "apiVersion: v1\nkind: Pod\nmetadata: {name: s}\nspec:\n  containers: [{name: a, image: nginx}]\n  topologySpreadConstraints:\n  - {maxSkew: 0, topologyKey: zone, whenUnsatisfiable: DoNotSchedule, labelSelector: {}}\n",
    );
    assert_bad_input(
        &kplace(&["place", "--snapshot", &s, "--pod", &skew]),
        &[
            "Pod default/s",
            "spec.topologySpreadConstraints[0].maxSkew",
            "must be greater than zero",
        ],
    );

    let op = bad_pod(
        d,
        "op.yaml",
        "apiVersion: v1\nkind: Pod\nmetadata: {name: o}\nspec:\n  containers: [{name: a, image: nginx}]\n  topologySpreadConstraints:\n  - maxSkew: 1\n    topologyKey: zone\n    whenUnsatisfiable: DoNotSchedule\n    labelSelector: {matchExpressions: [{key: app, operator: Equals, values: [a]}]}\n",
    );
    assert_bad_input(
        &kplace(&["place", "--snapshot", &s, "--pod", &op]),
        &[
            "labelSelector.matchExpressions[0].operator",
            "\"Equals\" is not a valid label selector operator",
        ],
    );

    assert_bad_input(
        &kplace(&[
            "place",
            "--snapshot",
            "/no/such/snapshot.yaml",
            "--pod",
            &op,
        ]),
        &["/no/such/snapshot.yaml", "No such file"],
    );

    let empty = bad_pod(d, "empty.yaml", "apiVersion: v1\nkind: List\nitems: []\n");
    assert_bad_input(
        &kplace(&["place", "--snapshot", &empty, "--pod", &op]),
        &["empty.yaml", "no Node and no Pod"],
    );

    assert_bad_input(
        &kplace(&["place", "--snapshot", &s, "--pod", "default/missing"]),
        &["no pod missing in namespace default"],
    );
}

/// A request above its limit, an extended resource's request unequal to
/// its limit or without one: the API server refuses such a pod
/// (`ValidateContainerResourceRequirements`), in its words, and so does
/// kplace; a limit alone (the request defaults to it) and a request under
/// a cpu limit are fine.
#[test]
fn requests_are_checked_against_limits_as_the_api_server_does() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    let s = snapshot("spread-001");
    let pod = |init: bool, resources: &str| {
        let containers = if init { "initContainers" } else { "containers" };
        let extra = if init {
            "  containers: [{name: main, image: b}]\n"
        } else {
            ""
        };
        format!(
            "apiVersion: v1\nkind: Pod\nmetadata: {{name: p}}\nspec:\n{extra}  {containers}:\n  - name: a\n    image: b\n    resources:\n{resources}"
        )
    };
    for (file, init, resources, needles) in [
        (
            "over.yaml",
            false,
            "      requests: {cpu: \"1\"}\n      limits: {cpu: 500m}\n",
            &[
                "over.yaml:9: Pod default/p: spec.containers[0].resources.requests: Invalid value: \"1\": must be less than or equal to cpu limit of 500m",
            ][..],
        ),
        (
            "gpu-unequal.yaml",
            true,
            "      requests: {nvidia.com/gpu: \"1\"}\n      limits: {nvidia.com/gpu: \"2\"}\n",
            &[
                "spec.initContainers[0].resources.requests: Invalid value: \"1\": must be equal to nvidia.com/gpu limit of 2",
            ],
        ),
        (
            "gpu-no-limit.yaml",
            false,
            "      requests: {example.com/fpga: \"1\"}\n",
            &[
                "spec.containers[0].resources.limits: Required value: Limit must be set for non overcommitable resources",
            ],
        ),
        (
            "hugepages.yaml",
            false,
            "      requests: {memory: 1Gi, hugepages-2Mi: 2Mi}\n      limits: {memory: 1Gi, hugepages-2Mi: 4Mi}\n",
            &["must be equal to hugepages-2Mi limit of 4Mi"],
        ),
    ] {
        let path = bad_pod(d, file, &pod(init, resources));
        assert_bad_input(
            &kplace(&["place", "--snapshot", &s, "--pod", &path]),
            needles,
        );
    }
    for (file, resources) in [
        (
            "under.yaml",
            "      requests: {cpu: 250m}\n      limits: {cpu: 500m}\n",
        ),
        (
            "limit-only.yaml",
            "      limits: {nvidia.com/gpu: \"1\", cpu: \"1\"}\n",
        ),
        (
            "prefixed.yaml",
            "      requests: {kubernetes.io/batch-cpu: \"2\"}\n",
        ),
    ] {
        let path = bad_pod(d, file, &pod(false, resources));
        let out = kplace(&["place", "--snapshot", &s, "--pod", &path]);
        assert!(out.status.code() != Some(2), "{file}: {}", stderr(&out));
    }
}

/// A YAML alias bomb is refused within the parser's budget, and the error
/// says what it is, not the budget's debug form.
#[test]
fn a_yaml_alias_bomb_is_refused_in_plain_words() {
    let dir = tempfile::tempdir().unwrap();
    let mut text = String::from(
        "apiVersion: v1\nkind: Pod\nmetadata: {name: x}\nextra:\n  a0: &a0 [x, x, x, x, x, x, x, x, x, x]\n",
    );
    for i in 1..12 {
        let refs = vec![format!("*a{}", i - 1); 10].join(", ");
        text.push_str(&format!("  a{i}: &a{i} [{refs}]\n"));
    }
    text.push_str("spec:\n  containers: [{name: a, image: b}]\n");
    let bomb = bad_pod(dir.path(), "bomb.yaml", &text);
    for args in [
        vec!["place", "--demo", "--pod", &bomb],
        vec!["place", "--snapshot", &bomb, "--pod", &bomb],
    ] {
        let out = kplace(&args);
        assert_bad_input(
            &out,
            &[
                "bomb.yaml:",
                "too many YAML alias expansions (an alias bomb?): refused to keep memory bounded",
            ],
        );
        assert!(!stderr(&out).contains("{ recorded"), "{}", stderr(&out));
    }
}

/// A new pod that names its node (`spec.nodeName`) is never queued by
/// kube-scheduler: the answer says so, and whether that node exists; a pod
/// naming none carries no such note.
#[test]
fn a_pod_naming_its_node_is_told_the_scheduler_never_sees_it() {
    let dir = tempfile::tempdir().unwrap();
    let manifest = |node: Option<&str>| {
        let node = node
            .map(|n| format!("  nodeName: {n}\n"))
            .unwrap_or_default();
        format!(
            "apiVersion: v1\nkind: Pod\nmetadata: {{name: x}}\nspec:\n{node}  containers: [{{name: a, image: b}}]\n"
        )
    };
    let notes = |file: &str, node: Option<&str>| -> Vec<String> {
        let path = bad_pod(dir.path(), file, &manifest(node));
        let out = kplace(&["place", "--demo", "--pod", &path, "-o", "json"]);
        assert!(out.status.success(), "{}", stderr(&out));
        // (`notes` is left out of the JSON when there are none.)
        stdout_json(&out)["notes"]
            .as_array()
            .cloned()
            .unwrap_or_default()
            .iter()
            .map(|n| n.as_str().unwrap().to_string())
            .collect()
    };
    let there = notes("there.yaml", Some("worker-a01"));
    assert!(
        there.iter().any(|n| n.starts_with(
            "spec.nodeName is \"worker-a01\": kube-scheduler never queues a pod that names its node; it is bound to worker-a01 as created"
        )),
        "{there:?}"
    );
    let nowhere = notes("nowhere.yaml", Some("nowhere"));
    assert!(
        nowhere.iter().any(|n| n.contains(
            "\"nowhere\", a node not in the snapshot: kube-scheduler never queues a pod that names its node, so it would stay Pending"
        )),
        "{nowhere:?}"
    );
    let free = notes("free.yaml", None);
    assert!(
        !free.iter().any(|n| n.contains("spec.nodeName")),
        "{free:?}"
    );
}

/// A snapshot whose item is no mapping (a string, a list) or whose JSON
/// is an array at the top says what it is, with its line, instead of asking
/// for a `kind` or reading the array as a struct's fields.
#[test]
fn a_snapshot_item_that_is_no_object_is_named() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    let pod = bad_pod(
        d,
        "pod.yaml",
        "apiVersion: v1\nkind: Pod\nmetadata: {name: p}\nspec:\n  containers: [{name: a, image: b}]\n",
    );
    for (file, text, needles) in [
        (
            "scalar.yaml",
            "---\nhello\n",
            &["scalar.yaml:2: the item is a string, not a Kubernetes object"][..],
        ),
        (
            "second.yaml",
            "apiVersion: v1\nkind: Node\nmetadata: {name: a}\n---\n- 1\n",
            &["second.yaml:5: the item is a list, not a Kubernetes object"],
        ),
        (
            "in-list.json",
            "{\"kind\": \"List\", \"items\": [\n{\"kind\": \"Node\", \"metadata\": {\"name\": \"a\"}},\n 3]}",
            &["in-list.json:3: the item is a number, not a Kubernetes object"],
        ),
        (
            "array.json",
            "\n[{\"kind\": \"Node\", \"metadata\": {\"name\": \"a\"}}]",
            &["array.json:2: a JSON array at the top level is not a snapshot: give a List"],
        ),
    ] {
        let path = bad_pod(d, file, text);
        assert_bad_input(
            &kplace(&["place", "--snapshot", &path, "--pod", &pod]),
            needles,
        );
    }
}

/// A `--pod` that is a path to no file says the file is missing: not that
/// a pod of an empty namespace is missing, and not a namespace clash with
/// `-n`. A directory is named as one.
#[test]
fn a_missing_pod_file_is_named_as_a_file() {
    let dir = tempfile::tempdir().unwrap();
    let s = snapshot("spread-001");
    for (arg, ns) in [
        ("/no/such/pod.yaml", None),
        ("/nonexistent", None),
        ("./pod.yaml", None),
        ("pod.json", None),
        ("/nonexistent", Some("default")),
    ] {
        let mut args = vec!["place", "--snapshot", &s, "--pod", arg];
        if let Some(ns) = ns {
            args.extend(["-n", ns]);
        }
        let out = kplace(&args);
        assert_bad_input(
            &out,
            &[&format!("{arg}: no such file (give a Pod manifest")],
        );
        let err = stderr(&out);
        assert!(!err.contains("namespace  "), "{err}");
        assert!(!err.contains("names namespace"), "{err}");
    }
    let d = dir.path().to_str().unwrap();
    assert_bad_input(
        &kplace(&["place", "--snapshot", &s, "--pod", d]),
        &[d, "is a directory, not a manifest file"],
    );
}

#[test]
fn a_huge_file_is_refused_without_reading_it() {
    let dir = tempfile::tempdir().unwrap();
    let huge = dir.path().join("huge.json");
    // Sparse: takes no disk, but reports 5 GiB.
    std::fs::File::create(&huge)
        .unwrap()
        .set_len(5 << 30)
        .unwrap();
    let out = kplace(&[
        "place",
        "--snapshot",
        huge.to_str().unwrap(),
        "--pod",
        "default/x",
    ]);
    assert_bad_input(
        &out,
        &["huge.json", "too large (limit 1 GiB; use --max-input)"],
    );
}

#[test]
fn dev_zero_is_refused_under_the_input_budget() {
    let out = kplace(&[
        "place",
        "--max-input",
        "16Mi",
        "--snapshot",
        "/dev/zero",
        "--pod",
        "default/x",
    ]);
    assert_bad_input(
        &out,
        &["/dev/zero: too large (limit 16 MiB; use --max-input)"],
    );
}

/// 256 MiB of zeros in a 256 KiB gzip file.
fn gzip_bomb(dir: &Path) -> PathBuf {
    use std::io::Write;
    let path = dir.join("bomb.json.gz");
    let mut gz = flate2::write::GzEncoder::new(
        std::fs::File::create(&path).unwrap(),
        flate2::Compression::best(),
    );
    let zeros = vec![b' '; 1 << 20];
    for _ in 0..256 {
        gz.write_all(&zeros).unwrap();
    }
    gz.finish().unwrap();
    assert!(std::fs::metadata(&path).unwrap().len() < 1 << 20);
    path
}

#[test]
fn a_gzip_bomb_is_refused_while_decompressing() {
    let dir = tempfile::tempdir().unwrap();
    let bomb = gzip_bomb(dir.path());
    let out = kplace(&[
        "--max-input",
        "64Mi",
        "place",
        "--snapshot",
        bomb.to_str().unwrap(),
        "--pod",
        "default/x",
    ]);
    assert_bad_input(
        &out,
        &["bomb.json.gz: too large (limit 64 MiB; use --max-input)"],
    );
    // A pod manifest and a recording are read within the same budget.
    let snap = snapshot("admission-001");
    let out = kplace(&[
        "--max-input",
        "64Mi",
        "place",
        "--snapshot",
        &snap,
        "--pod",
        bomb.to_str().unwrap(),
    ]);
    assert_bad_input(&out, &["bomb.json.gz: too large (limit 64 MiB"]);
    let out = kplace(&["verify", "--max-input", "64Mi", bomb.to_str().unwrap()]);
    assert_bad_input(&out, &["bomb.json.gz: too large (limit 64 MiB"]);
}

#[test]
fn a_directory_shares_one_budget() {
    let dir = tempfile::tempdir().unwrap();
    let text = unpacked_snapshot("admission-001");
    std::fs::write(dir.path().join("a.yaml"), &text).unwrap();
    std::fs::write(dir.path().join("b.yaml"), &text).unwrap();
    // Each file fits alone; the two together do not.
    let limit = (text.len() * 3 / 2).to_string();
    let out = kplace(&[
        "place",
        "--max-input",
        &limit,
        "--snapshot",
        dir.path().to_str().unwrap(),
        "--pod",
        "default/x",
    ]);
    assert_bad_input(
        &out,
        &[
            "b.yaml: too large (limit",
            "use --max-input), counted with the files before it in",
        ],
    );
}

/// The peak resident memory of a child, from the kernel's accounting of
/// that one process (`wait4`), in bytes.
// The child is reaped by `wait4`, which `Child::wait` cannot stand in for.
#[allow(clippy::zombie_processes)]
fn peak_rss_of(mut cmd: Command) -> (std::process::ExitStatus, String, u64) {
    use std::os::unix::process::ExitStatusExt;
    let child = cmd
        .stderr(std::process::Stdio::piped())
        .stdout(std::process::Stdio::null())
        .spawn()
        .unwrap();
    let pid = child.id() as libc::pid_t;
    let mut stderr = child.stderr.unwrap();
    let reader = std::thread::spawn(move || {
        let mut s = String::new();
        std::io::Read::read_to_string(&mut stderr, &mut s).unwrap();
        s
    });
    let mut status = 0;
    let mut usage: libc::rusage = unsafe { std::mem::zeroed() };
    let r = unsafe { libc::wait4(pid, &mut status, 0, &mut usage) };
    assert_eq!(r, pid);
    (
        std::process::ExitStatus::from_raw(status),
        reader.join().unwrap(),
        usage.ru_maxrss as u64 * 1024,
    )
}

#[test]
fn memory_stays_under_the_budget_on_hostile_input() {
    let dir = tempfile::tempdir().unwrap();
    let bomb = gzip_bomb(dir.path());
    const BUDGET: u64 = 64 << 20;
    for input in ["/dev/zero", bomb.to_str().unwrap()] {
        let mut cmd = Command::new(env!("CARGO_BIN_EXE_kplace"));
        cmd.args([
            "place",
            "--max-input",
            "64Mi",
            "--snapshot",
            input,
            "--pod",
            "default/x",
        ]);
        let (status, err, peak) = peak_rss_of(cmd);
        assert_eq!(status.code(), Some(2), "{input}: {err}");
        assert!(err.contains("too large (limit 64 MiB"), "{input}: {err}");
        assert!(
            peak < BUDGET + (100 << 20),
            "{input}: peak RSS {} MiB",
            peak >> 20
        );
        // It did read up to the budget (the measure is of the real work).
        assert!(peak > BUDGET / 2, "{input}: peak RSS {} MiB", peak >> 20);
    }
}

#[test]
fn unknown_priority_class_is_answered_as_rejected() {
    let dir = tempfile::tempdir().unwrap();
    let p = bad_pod(
        dir.path(),
        "pc.yaml",
        "apiVersion: v1\nkind: Pod\nmetadata: {name: p}\nspec:\n  containers: [{name: a, image: nginx}]\n  priorityClassName: gold\n",
    );
    let got = stdout_json(&kplace(&[
        "place",
        "--snapshot",
        &snapshot("spread-001"),
        "--pod",
        &p,
        "-o",
        "json",
    ]));
    assert_eq!(got["outcome"], "rejected");
    assert_eq!(
        got["rejection"],
        "pods \"p\" is forbidden: no PriorityClass with name gold was found"
    );
}

#[test]
fn as_kubectl_kplace_it_is_a_kubectl_plugin() {
    let dir = tempfile::tempdir().unwrap();
    let plugin = dir.path().join("kubectl-kplace");
    // A symlink, as the README installs it (a fresh copy could still be
    // open for writing in a child another test forks: "text file busy").
    std::os::unix::fs::symlink(env!("CARGO_BIN_EXE_kplace"), &plugin).unwrap();
    let out = Command::new(&plugin).arg("--help").output().unwrap();
    assert!(out.status.success());
    let help = String::from_utf8_lossy(&out.stdout);
    assert!(help.contains("Usage: kubectl kplace [OPTIONS]"), "{help}");
    assert!(help.contains("--context <NAME>"), "{help}");
    let out = Command::new(&plugin)
        .arg("--no-such-flag")
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&out.stderr).contains("kubectl kplace"));
}

#[test]
fn tui_source_options_conflict_clearly() {
    let out = kplace(&["--demo", "--context", "prod"]);
    assert_eq!(out.status.code(), Some(2));
    assert!(
        stderr(&out).contains("cannot be used with"),
        "{}",
        stderr(&out)
    );
}

// ---- Which kube-scheduler release answers (--scheduler-version, recorded, kubelets).

/// `filterFailures` as node → code.
fn failure_codes(answer: &Value) -> std::collections::BTreeMap<String, String> {
    answer["filterFailures"]
        .as_object()
        .expect("filterFailures")
        .iter()
        .map(|(node, f)| (node.clone(), f["code"].as_str().unwrap_or("").to_string()))
        .collect()
}

/// A conformance snapshot with its text rewritten, as a plain YAML file.
fn rewritten_snapshot(dir: &Path, name: &str, edit: impl FnOnce(String) -> String) -> String {
    let path = dir.join(format!("{name}.yaml"));
    std::fs::write(&path, edit(unpacked_snapshot(name))).unwrap();
    path.display().to_string()
}

#[test]
fn scheduler_version_flag_picks_the_release_and_the_answer_follows_it() {
    // admission-018: v1.34's NodeResourcesFit calls a request above a node's
    // whole allocatable UnschedulableAndUnresolvable; v1.33 says Unschedulable.
    let want33 = failure_codes(&answer_of("admission-018", "v1.33"));
    let want34 = failure_codes(&answer_of("admission-018", "v1.34"));
    assert_ne!(
        want33, want34,
        "the corpus case must tell the releases apart"
    );
    for (flag, want) in [("1.33", &want33), ("v1.34.1", &want34)] {
        let got = stdout_json(&kplace(&[
            "place",
            "--snapshot",
            &snapshot("admission-018"),
            "--pod",
            &pod("admission-018"),
            "--scheduler-version",
            flag,
            "-o",
            "json",
        ]));
        let release = flag.trim_start_matches('v');
        assert_eq!(
            got["schedulerVersion"],
            release[..4],
            "--scheduler-version {flag}"
        );
        assert_eq!(got["schedulerVersionSource"]["kind"], "flag");
        assert_eq!(got["schedulerVersionSource"]["clamped"], false);
        assert_eq!(&failure_codes(&got), want, "--scheduler-version {flag}");
    }
    let got = stdout_json(&kplace(&[
        "place",
        "--snapshot",
        &snapshot("admission-018"),
        "--pod",
        &pod("admission-018"),
        "--scheduler-version",
        "1.32",
        "-o",
        "json",
    ]));
    assert_eq!(got["schedulerVersion"], "1.32");
    assert_eq!(got["schedulerVersionSource"]["kind"], "flag");
}

#[test]
fn the_table_says_which_release_answered_and_why() {
    let out = kplace(&[
        "place",
        "--snapshot",
        &snapshot("admission-018"),
        "--pod",
        &pod("admission-018"),
        "--scheduler-version",
        "1.32",
    ]);
    assert!(out.status.success(), "{}", stderr(&out));
    let text = String::from_utf8(out.stdout).unwrap();
    assert_eq!(
        text.lines().next(),
        Some("kube-scheduler v1.32 rules (chosen with --scheduler-version or :version)"),
        "{text}"
    );
    let out = kplace(&[
        "place",
        "--snapshot",
        &snapshot("admission-018"),
        "--pod",
        &pod("admission-018"),
    ]);
    let text = String::from_utf8(out.stdout).unwrap();
    assert!(
        text.starts_with(
            "kube-scheduler v1.30 rules (the snapshot has no server version; its newest kubelet is v1.30.6 (node "
        ),
        "{text}"
    );
}

#[test]
fn a_plain_snapshot_answers_as_its_newest_kubelet() {
    // The corpus's nodes report v1.30.6, so without a flag kplace answers as
    // 1.30 and agrees with the v1.30 answer.
    let got = stdout_json(&kplace(&[
        "place",
        "--snapshot",
        &snapshot("admission-018"),
        "--pod",
        &pod("admission-018"),
        "-o",
        "json",
    ]));
    assert_eq!(got["schedulerVersion"], "1.30");
    assert_eq!(got["schedulerVersionSource"]["kind"], "newest-kubelet");
    assert_eq!(
        failure_codes(&got),
        failure_codes(&answer_of("admission-018", "v1.30"))
    );

    // One node upgraded to v1.31.12, one very old (v1.9 is older than v1.31:
    // versions compare as numbers): the newest wins.
    let dir = tempfile::tempdir().unwrap();
    let path = rewritten_snapshot(dir.path(), "admission-018", |text| {
        text.replacen("kubeletVersion: v1.30.6", "kubeletVersion: v1.9.11", 1)
            .replacen(
                "kubeletVersion: v1.30.6",
                "kubeletVersion: v1.31.12-eks-1a2b3c",
                1,
            )
    });
    let got = stdout_json(&kplace(&[
        "place",
        "--snapshot",
        &path,
        "--pod",
        &pod("admission-018"),
        "-o",
        "json",
    ]));
    assert_eq!(got["schedulerVersion"], "1.31");
    let source = &got["schedulerVersionSource"];
    assert_eq!(source["kind"], "newest-kubelet");
    assert_eq!(source["clamped"], false);
    let reason = source["reason"].as_str().unwrap();
    assert!(reason.contains("v1.31.12-eks-1a2b3c (node "), "{reason}");

    // Every kubelet newer than kplace knows: the newest supported, and it says so.
    let path = rewritten_snapshot(dir.path(), "admission-018", |text| {
        text.replace("kubeletVersion: v1.30.6", "kubeletVersion: v1.36.0")
    });
    let got = stdout_json(&kplace(&[
        "place",
        "--snapshot",
        &path,
        "--pod",
        &pod("admission-018"),
        "-o",
        "json",
    ]));
    assert_eq!(got["schedulerVersion"], "1.34");
    assert_eq!(got["schedulerVersionSource"]["clamped"], true);
    assert!(
        got["schedulerVersionSource"]["reason"]
            .as_str()
            .unwrap()
            .ends_with("kplace supports 1.30–1.34 and uses the nearest, 1.34"),
        "{}",
        got["schedulerVersionSource"]["reason"]
    );
}

#[test]
fn a_snapshot_kplace_recorded_answers_as_the_server_it_came_from() {
    let dir = tempfile::tempdir().unwrap();
    let annotate = |version: &'static str| {
        move |text: String| {
            text.replacen(
                "metadata: {resourceVersion: ''}",
                &format!("metadata: {{annotations: {{kplace.io/server-version: {version}}}}}"),
                1,
            )
        }
    };
    // The recorded server version wins over the nodes' kubelets (v1.30.6).
    let path = rewritten_snapshot(dir.path(), "admission-018", annotate("v1.33.4"));
    let got = stdout_json(&kplace(&[
        "place",
        "--snapshot",
        &path,
        "--pod",
        &pod("admission-018"),
        "-o",
        "json",
    ]));
    assert_eq!(got["schedulerVersion"], "1.33");
    assert_eq!(got["schedulerVersionSource"]["kind"], "recording");
    assert_eq!(
        got["schedulerVersionSource"]["reason"],
        "the recording's API server reported v1.33.4"
    );
    assert_eq!(
        failure_codes(&got),
        failure_codes(&answer_of("admission-018", "v1.33"))
    );
    // ... and the flag wins over it.
    let got = stdout_json(&kplace(&[
        "place",
        "--snapshot",
        &path,
        "--pod",
        &pod("admission-018"),
        "--scheduler-version",
        "1.34",
        "-o",
        "json",
    ]));
    assert_eq!(got["schedulerVersion"], "1.34");
    assert_eq!(
        failure_codes(&got),
        failure_codes(&answer_of("admission-018", "v1.34"))
    );
    // A server older than 1.30 answers as 1.30, and says so.
    let path = rewritten_snapshot(dir.path(), "admission-018", annotate("v1.28.9"));
    let got = stdout_json(&kplace(&[
        "place",
        "--snapshot",
        &path,
        "--pod",
        &pod("admission-018"),
        "-o",
        "json",
    ]));
    assert_eq!(got["schedulerVersion"], "1.30");
    assert_eq!(got["schedulerVersionSource"]["clamped"], true);
    assert_eq!(
        got["schedulerVersionSource"]["reason"],
        "the recording's API server reported v1.28.9; kplace supports 1.30–1.34 and uses the nearest, 1.30"
    );
}

#[test]
fn an_unsupported_scheduler_version_is_a_usage_error() {
    for command in [
        vec![
            "place",
            "--snapshot",
            &snapshot("admission-018"),
            "--pod",
            &pod("admission-018"),
        ],
        vec!["verify", "no-such-timeline.gz"],
        vec!["--demo"],
    ] {
        let mut args: Vec<&str> = command.clone();
        args.extend(["--scheduler-version", "1.12"]);
        let out = kplace(&args);
        assert_eq!(out.status.code(), Some(2), "{command:?}: {}", stderr(&out));
        let err = stderr(&out);
        assert!(err.contains("--scheduler-version"), "{err}");
        assert!(
            err.contains(
                "unsupported scheduler version \"1.12\": kplace answers as kube-scheduler 1.30, 1.31, 1.32, 1.33 or 1.34"
            ),
            "{err}"
        );
        assert!(out.stdout.is_empty());
    }
}

/// A gated pod is never attempted: outcome `gated` with the scheduler's
/// message, no filter fields, and where it would go once ungated.
#[test]
fn gated_pod_says_so_and_where_it_would_go_once_ungated() {
    let name = "gates-002";
    let want = answer_of(name, "v1.34");
    assert_eq!(want["outcome"], "gated");
    let out = kplace(&[
        "place",
        "--snapshot",
        &snapshot(name),
        "--pod",
        &pod(name),
        "-o",
        "json",
    ]);
    let got = stdout_json(&out);
    assert_eq!(got["outcome"], "gated");
    assert_eq!(got["message"], want["message"]);
    assert!(
        got["message"]
            .as_str()
            .unwrap()
            .starts_with("waiting for scheduling gates: [")
    );
    assert!(got.get("feasibleNodes").is_none());
    assert!(got["preemption"].is_null());
    let ungated = &got["ifUngated"];
    assert!(
        ["scheduled", "preempt", "unschedulable"].contains(&ungated["outcome"].as_str().unwrap()),
        "{ungated}"
    );
    assert!(ungated["feasibleNodes"].is_array());

    let table = kplace(&["place", "--snapshot", &snapshot(name), "--pod", &pod(name)]);
    let text = String::from_utf8_lossy(&table.stdout);
    assert!(text.contains("GATED: "), "{text}");
    assert!(
        text.contains("Once its scheduling gates are removed"),
        "{text}"
    );
}

// ---- --scheduler-config: the profiles of a KubeSchedulerConfiguration.

fn config_of(name: &str) -> String {
    case(name).join("config.yaml").display().to_string()
}

#[test]
fn scheduler_config_picks_the_profile_and_matches_the_scheduler_under_it() {
    // config-028: a bin-packing profile chosen by the pod's schedulerName.
    let name = "config-028";
    let want = answer_of(name, "v1.34");
    let args = [
        "place",
        "--snapshot",
        &snapshot(name),
        "--pod",
        &pod(name),
        "--scheduler-version",
        "1.34",
        "--scheduler-config",
        &config_of(name),
        "-o",
        "json",
    ];
    let got = stdout_json(&kplace(&args));
    assert_eq!(got["profile"], want["profile"]);
    assert_eq!(got["bestNodes"], want["bestNodes"]);
    assert_eq!(got["scores"], want["scores"]);
    // Only the profile's score plugins, with their weights.
    let plugins = got["scorePlugins"].as_object().unwrap();
    assert!(!plugins.contains_key("NodeResourcesBalancedAllocation"));
    assert_eq!(plugins["NodeResourcesFit"], 2);
    assert!(
        got["profileSource"]
            .as_str()
            .unwrap()
            .ends_with("config.yaml")
    );

    // The same question without the configuration answers differently.
    let plain = stdout_json(&kplace(&[
        "place",
        "--snapshot",
        &snapshot(name),
        "--pod",
        &pod(name),
        "--scheduler-version",
        "1.34",
        "-o",
        "json",
    ]));
    assert_eq!(plain["outcome"], "no-profile", "{plain}");

    // The table names the profile and lists only its plugins.
    let table = kplace(&args[..args.len() - 2]);
    let text = String::from_utf8_lossy(&table.stdout);
    assert!(
        text.lines()
            .nth(1)
            .is_some_and(|l| l.starts_with("profile bin-packing-scheduler from ")),
        "{text}"
    );
    assert!(!text.contains("BALANCE"), "{text}");
    assert!(text.contains("NodeResourcesFit×2"), "{text}");
}

#[test]
fn a_pod_naming_no_configured_profile_is_not_picked_up() {
    let name = "config-016";
    let want = answer_of(name, "v1.34");
    let got = stdout_json(&kplace(&[
        "place",
        "--snapshot",
        &snapshot(name),
        "--pod",
        &pod(name),
        "--scheduler-config",
        &config_of(name),
        "-o",
        "json",
    ]));
    assert_eq!(got["outcome"], "no-profile");
    assert_eq!(got["message"], want["message"]);
}

#[test]
fn an_invalid_scheduler_config_is_exit_2_naming_the_field() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("sched.yaml");
    std::fs::write(
        &path,
        "apiVersion: kubescheduler.config.k8s.io/v1\nkind: KubeSchedulerConfiguration\nprofiles:\n- schedulerName: default-scheduler\n  pluginConfig:\n  - name: InterPodAffinity\n    args: {hardPodAffinityWeight: 101}\n",
    )
    .unwrap();
    let path = path.display().to_string();
    for command in [
        vec![
            "place",
            "--snapshot",
            &snapshot("config-001"),
            "--pod",
            &pod("config-001"),
        ],
        vec!["--demo"],
    ] {
        let mut args = command.clone();
        args.extend(["--scheduler-config", &path]);
        let out = kplace(&args);
        assert_eq!(out.status.code(), Some(2), "{command:?}: {}", stderr(&out));
        let err = stderr(&out);
        assert!(err.contains("sched.yaml"), "{err}");
        assert!(
            err.contains("profiles[0].pluginConfig[0].args.hardPodAffinityWeight"),
            "{err}"
        );
        assert!(out.stdout.is_empty());
    }
}

/// A pod asking for `cpu` (one container, requests only).
fn cpu_pod(dir: &Path, file: &str, cpu: &str) -> String {
    bad_pod(
        dir,
        file,
        &format!(
            "apiVersion: v1\nkind: Pod\nmetadata: {{name: q}}\nspec:\n  containers:\n  - name: a\n    image: nginx\n    resources: {{requests: {{cpu: \"{cpu}\"}}}}\n"
        ),
    )
}

#[test]
fn an_enormous_cpu_request_fits_nowhere_and_answers_fast() {
    let dir = tempfile::tempdir().unwrap();
    let s = snapshot("spread-001");
    for cpu in ["1e2147483647", "1e2147483638", "9e18"] {
        let p = cpu_pod(dir.path(), "huge.yaml", cpu);
        let started = std::time::Instant::now();
        let out = kplace(&["place", "--snapshot", &s, "--pod", &p, "-o", "json"]);
        let got = stdout_json(&out);
        assert_ne!(got["outcome"], "scheduled", "cpu {cpu}: {got}");
        assert!(
            started.elapsed() < std::time::Duration::from_secs(5),
            "cpu {cpu} took {:?}",
            started.elapsed()
        );
    }
}

#[test]
fn a_negative_request_is_refused_in_the_api_servers_words() {
    let dir = tempfile::tempdir().unwrap();
    let s = snapshot("spread-001");
    let p = cpu_pod(dir.path(), "neg.yaml", "-1");
    assert_bad_input(
        &kplace(&["place", "--snapshot", &s, "--pod", &p]),
        &[
            "neg.yaml",
            "Pod default/q",
            "spec.containers[0].resources.requests.cpu",
            "Invalid value: \"-1\": must be greater than or equal to 0",
        ],
    );
}

/// A pod whose spec ends with `extra` (YAML, indented under `spec:`).
fn pod_with(dir: &Path, file: &str, extra: &str) -> String {
    bad_pod(
        dir,
        file,
        &format!(
            "apiVersion: v1\nkind: Pod\nmetadata: {{name: v}}\nspec:\n  containers: [{{name: a, image: nginx}}]\n{extra}"
        ),
    )
}

#[test]
fn objects_the_api_server_would_refuse_are_refused_in_its_words() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    let s = snapshot("spread-001");
    let na = "spec.affinity.nodeAffinity.requiredDuringSchedulingIgnoredDuringExecution";
    let cases: Vec<(&str, String, Vec<String>)> = vec![
        (
            "near.yaml",
            "  affinity: {nodeAffinity: {requiredDuringSchedulingIgnoredDuringExecution: {nodeSelectorTerms: [{matchExpressions: [{key: zone, operator: Near, values: [a]}]}]}}}\n".into(),
            vec![
                format!("{na}.nodeSelectorTerms[0].matchExpressions[0].operator"),
                "Invalid value: \"Near\": not a valid selector operator".into(),
            ],
        ),
        (
            "noterms.yaml",
            "  affinity: {nodeAffinity: {requiredDuringSchedulingIgnoredDuringExecution: {nodeSelectorTerms: []}}}\n".into(),
            vec![format!(
                "{na}.nodeSelectorTerms: Required value: must have at least one node selector term"
            )],
        ),
        (
            "gt.yaml",
            "  affinity: {nodeAffinity: {requiredDuringSchedulingIgnoredDuringExecution: {nodeSelectorTerms: [{matchExpressions: [{key: n, operator: Gt, values: ['1', '2']}]}]}}}\n".into(),
            vec!["must be specified single value when `operator` is 'Lt' or 'Gt'".into()],
        ),
        (
            "in.yaml",
            "  affinity: {nodeAffinity: {preferredDuringSchedulingIgnoredDuringExecution: [{weight: 1, preference: {matchExpressions: [{key: n, operator: In}]}}]}}\n".into(),
            vec!["Required value: must be specified when `operator` is 'In' or 'NotIn'".into()],
        ),
        (
            "exists.yaml",
            "  affinity: {nodeAffinity: {requiredDuringSchedulingIgnoredDuringExecution: {nodeSelectorTerms: [{matchExpressions: [{key: n, operator: Exists, values: [x]}]}]}}}\n".into(),
            vec!["Forbidden: may not be specified when `operator` is 'Exists' or 'DoesNotExist'".into()],
        ),
        (
            "selector.yaml",
            "  nodeSelector: {'bad key': x}\n".into(),
            vec![
                "spec.nodeSelector: Invalid value: \"bad key\": name part must consist of alphanumeric characters".into(),
            ],
        ),
        (
            "tol.yaml",
            "  tolerations: [{key: k, operator: Equal, value: v, effect: NoScheduleNow}]\n".into(),
            vec![
                "spec.tolerations[0].effect: Unsupported value: \"NoScheduleNow\": supported values: \"NoSchedule\", \"PreferNoSchedule\", \"NoExecute\"".into(),
            ],
        ),
        (
            "tolsecs.yaml",
            "  tolerations: [{key: k, operator: Exists, effect: NoSchedule, tolerationSeconds: 5}]\n".into(),
            vec!["effect must be 'NoExecute' when `tolerationSeconds` is set".into()],
        ),
        (
            "spreadkey.yaml",
            "  topologySpreadConstraints:\n  - {maxSkew: 1, topologyKey: zone, whenUnsatisfiable: DoNotSchedule, labelSelector: {matchLabels: {app: 'no good'}}}\n".into(),
            vec![
                "spec.topologySpreadConstraints[0].labelSelector.matchLabels: Invalid value: \"no good\": a valid label must be an empty string".into(),
            ],
        ),
    ];
    for (file, extra, needles) in cases {
        let p = pod_with(d, file, &extra);
        let out = kplace(&["place", "--snapshot", &s, "--pod", &p]);
        // The error names the line the bad field is written on: the last
        // of `extra`, after the five lines `pod_with` writes first.
        let line = format!("{file}:{}:", 5 + extra.lines().count());
        let mut all: Vec<&str> = vec![&line, "Pod default/v"];
        all.extend(needles.iter().map(String::as_str));
        assert_bad_input(&out, &all);
    }
}

#[test]
fn a_bad_node_in_a_yaml_list_is_named_with_its_line() {
    let dir = tempfile::tempdir().unwrap();
    let node = |name: &str, effect: &str| {
        format!(
            "- apiVersion: v1\n  kind: Node\n  metadata: {{name: {name}, labels: {{zone: a}}}}\n  spec:\n    taints: [{{key: k, effect: {effect}}}]\n  status: {{allocatable: {{cpu: '4', memory: 8Gi, pods: '110'}}}}\n"
        )
    };
    let text = format!(
        "apiVersion: v1\nkind: List\nitems:\n{}{}",
        node("good", "NoSchedule"),
        node("bad", "Sometimes")
    );
    let snap = bad_pod(dir.path(), "nodes.yaml", &text);
    let p = cpu_pod(dir.path(), "p.yaml", "1");
    // The line of the bad field (the node starts on line 10, its
    // metadata on 12, its taints on 14).
    assert_bad_input(
        &kplace(&["place", "--snapshot", &snap, "--pod", &p]),
        &[
            "nodes.yaml:14:",
            "Node bad",
            "spec.taints[0].effect: Unsupported value: \"Sometimes\"",
        ],
    );
    let labelled = text.replace(
        "{name: bad, labels: {zone: a}}",
        "{name: bad, labels: {zone: -a}}",
    );
    let snap = bad_pod(dir.path(), "labels.yaml", &labelled);
    assert_bad_input(
        &kplace(&["place", "--snapshot", &snap, "--pod", &p]),
        &[
            "labels.yaml:12:",
            "Node bad",
            "metadata.labels: Invalid value: \"-a\"",
        ],
    );
}

/// In a multi-document file, the bad field's line is counted from the
/// file's start, comments and earlier documents included, and the same
/// through gzip.
#[test]
fn a_bad_field_in_a_later_yaml_document_is_named_with_its_own_line() {
    let dir = tempfile::tempdir().unwrap();
    let text = "---\napiVersion: v1\nkind: Node\nmetadata: {name: a}\nstatus:\n  allocatable: {cpu: '4', memory: 1Gi, pods: '10'}\n---\n# the second node\napiVersion: v1\nkind: Node\nmetadata:\n  name: b\nstatus:\n  allocatable:\n    memory: 1Gi\n    cpu: 4x\n";
    let snap = bad_pod(dir.path(), "multi.yaml", text);
    let p = cpu_pod(dir.path(), "p.yaml", "1");
    let needles = [
        "multi.yaml:16:",
        "Node b",
        "status.allocatable.cpu",
        "(got \"4x\")",
    ];
    assert_bad_input(
        &kplace(&["place", "--snapshot", &snap, "--pod", &p]),
        &needles,
    );
    let gz = dir.path().join("multi.yaml.gz");
    let mut enc = flate2::write::GzEncoder::new(
        std::fs::File::create(&gz).unwrap(),
        flate2::Compression::default(),
    );
    std::io::Write::write_all(&mut enc, text.as_bytes()).unwrap();
    enc.finish().unwrap();
    let gz = gz.display().to_string();
    assert_bad_input(
        &kplace(&["place", "--snapshot", &gz, "--pod", &p]),
        &["multi.yaml.gz:16:", "Node b", "status.allocatable.cpu"],
    );
}

/// Past 1 MiB a YAML file's fields are not located (that builds a tree of
/// the whole file): the error names the bad object's own line instead.
#[test]
fn a_bad_field_in_a_yaml_file_over_a_mebibyte_is_named_with_its_objects_line() {
    let dir = tempfile::tempdir().unwrap();
    let node = |name: &str, cpu: &str| {
        format!(
            "- apiVersion: v1\n  kind: Node\n  metadata:\n    name: {name}\n  status:\n    allocatable:\n      memory: 1Gi\n      cpu: '{cpu}'\n"
        )
    };
    let mut text = String::from("apiVersion: v1\nkind: List\nitems:\n");
    let mut n = 0;
    while text.len() <= 1 << 20 {
        text += &node(&format!("node-{n:05}"), "4");
        n += 1;
    }
    let bad_line = text.lines().count() + 1;
    text += &node("bad", "4x");
    let snap = bad_pod(dir.path(), "big.yaml", &text);
    let p = cpu_pod(dir.path(), "p.yaml", "1");
    assert_bad_input(
        &kplace(&["place", "--snapshot", &snap, "--pod", &p]),
        &[
            &format!("big.yaml:{bad_line}:"),
            "Node bad",
            "status.allocatable.cpu",
        ],
    );
}

#[test]
fn the_same_object_twice_is_refused_naming_both_places_unless_allowed() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path().join("snap");
    std::fs::create_dir(&d).unwrap();
    let node = |name: &str, cpu: &str| {
        format!(
            "---\napiVersion: v1\nkind: Node\nmetadata: {{name: {name}}}\nstatus: {{allocatable: {{cpu: '{cpu}', memory: 8Gi, pods: '110'}}}}\n"
        )
    };
    std::fs::write(
        d.join("a.yaml"),
        format!("{}{}", node("n1", "1"), node("n2", "1")),
    )
    .unwrap();
    std::fs::write(d.join("b.yaml"), node("n1", "8")).unwrap();
    let snap = d.display().to_string();
    let p = cpu_pod(dir.path(), "p.yaml", "4");
    let out = kplace(&["place", "--snapshot", &snap, "--pod", &p, "-o", "json"]);
    assert_bad_input(
        &out,
        &[
            "b.yaml:2:",
            "Node n1 is defined twice",
            "a.yaml:2",
            "--allow-duplicates",
        ],
    );

    let out = kplace(&[
        "place",
        "--snapshot",
        &snap,
        "--pod",
        &p,
        "-o",
        "json",
        "--allow-duplicates",
    ]);
    let got = stdout_json(&out);
    assert_eq!(
        got["outcome"], "scheduled",
        "the later n1 (8 cpu) is used: {got}"
    );
    let notes = got["notes"].to_string();
    assert!(notes.contains("Node n1 is defined twice"), "{notes}");

    // Inside one JSON file, too.
    let one = dir.path().join("one.json");
    let item = r#"{"apiVersion":"v1","kind":"Pod","metadata":{"name":"x"},"spec":{"containers":[{"name":"a","image":"i"}]}}"#;
    std::fs::write(
        &one,
        format!("{{\"kind\":\"List\",\"items\":[\n{item},\n{item}]}}\n"),
    )
    .unwrap();
    assert_bad_input(
        &kplace(&["place", "--snapshot", one.to_str().unwrap(), "--pod", &p]),
        &[
            "one.json:3:",
            "Pod default/x is defined twice",
            "one.json:2",
        ],
    );
}

/// Pods are the same object only by namespace and name: a pod of the same
/// name in another namespace is kept beside it, and each repeat replaces
/// the last, its note naming the place it replaces.
#[test]
fn pods_are_duplicates_only_in_the_same_namespace_and_the_last_copy_counts() {
    let dir = tempfile::tempdir().unwrap();
    let pod = |ns: &str, cpu: &str| {
        format!(
            r#"{{"apiVersion":"v1","kind":"Pod","metadata":{{"name":"x","namespace":"{ns}"}},"spec":{{"nodeName":"n1","containers":[{{"name":"a","image":"i","resources":{{"requests":{{"cpu":"{cpu}"}}}}}}]}},"status":{{"phase":"Running"}}}}"#
        )
    };
    let node = r#"{"apiVersion":"v1","kind":"Node","metadata":{"name":"n1"},"status":{"allocatable":{"cpu":"4","memory":"8Gi","pods":"110"}}}"#;
    let snap = dir.path().join("one.json");
    let items = [
        node.to_string(),
        pod("a", "1"),
        pod("b", "1"),
        pod("a", "3"),
        pod("a", "2"),
    ];
    std::fs::write(
        &snap,
        format!(
            "{{\"kind\":\"List\",\"items\":[\n{}]}}\n",
            items.join(",\n")
        ),
    )
    .unwrap();
    let snap = snap.to_str().unwrap();
    let place = |cpu: &str| {
        let p = cpu_pod(dir.path(), &format!("p{cpu}.yaml"), cpu);
        stdout_json(&kplace(&[
            "place",
            "--snapshot",
            snap,
            "--pod",
            &p,
            "-o",
            "json",
            "--allow-duplicates",
        ]))
    };
    // a/x (2, the last copy) and b/x (1) hold 3 of n1's 4 CPUs.
    let fits = place("1");
    assert_eq!(fits["outcome"], "scheduled", "{fits}");
    let notes = fits["notes"].to_string();
    assert!(
        notes.contains(&format!("Pod a/x is defined twice ({snap}:3 and {snap}:5)")),
        "{notes}"
    );
    assert!(
        notes.contains(&format!("Pod a/x is defined twice ({snap}:5 and {snap}:6)")),
        "{notes}"
    );
    assert!(!notes.contains("b/x"), "{notes}");
    assert_ne!(place("2")["outcome"], "scheduled");
}

/// A large JSON List is given back to the system behind the parser: errors
/// on items far into it, and on duplicates whose first copy came early,
/// still name the lines the items start on.
#[test]
fn errors_deep_in_a_large_json_list_name_their_lines() {
    let dir = tempfile::tempdir().unwrap();
    let p = cpu_pod(dir.path(), "p.yaml", "1");
    // One node, then 10,000 pods of three lines each (item i starts on
    // line 3 + 3 * i); batches of 4,096 items, so the first pages of the
    // file are given back before the last items are parsed.
    let pod = |name: &str, cpu: &str| {
        format!(
            "{{\"apiVersion\":\"v1\",\"kind\":\"Pod\",\"metadata\":{{\"name\":\"{name}\",\"namespace\":\"ns\"}},\n\"spec\":{{\"containers\":[{{\"name\":\"a\",\"image\":\"i\",\"resources\":{{\"requests\":{{\"cpu\":\"{cpu}\"}}}}}}]}},\n\"status\":{{\"phase\":\"Pending\"}}}}"
        )
    };
    let list = |items: Vec<String>| {
        format!(
            "{{\"kind\":\"List\",\"items\":[\n{}]}}\n",
            std::iter::once(
                r#"{"apiVersion":"v1","kind":"Node","metadata":{"name":"n1"},"status":{"allocatable":{"cpu":"4","memory":"8Gi","pods":"110"}}}"#
                    .to_string()
            )
            .chain(items)
            .collect::<Vec<_>>()
            .join(",\n")
        )
    };
    let line_of_pod = |i: usize| 3 + 3 * i;

    let bad_at = 9_500;
    let items = (0..10_000)
        .map(|i| pod(&format!("p{i}"), if i == bad_at { "-1" } else { "100m" }))
        .collect();
    let bad = dir.path().join("bad.json");
    std::fs::write(&bad, list(items)).unwrap();
    assert_bad_input(
        &kplace(&["place", "--snapshot", bad.to_str().unwrap(), "--pod", &p]),
        &[
            &format!("bad.json:{}:", line_of_pod(bad_at)),
            "Pod ns/p9500",
            "spec.containers[0].resources.requests.cpu",
            "must be greater than or equal to 0",
        ],
    );

    // A single document before the List: items are not in file order in
    // the loader's list (documents come last), and lines still are right.
    let items: Vec<String> = (0..10_000)
        .map(|i| pod(&format!("p{i}"), if i == bad_at { "-1" } else { "100m" }))
        .collect();
    let mixed = dir.path().join("mixed.json");
    std::fs::write(
        &mixed,
        format!(
            "{}\n{{\"kind\":\"List\",\"items\":[\n{}]}}\n",
            r#"{"apiVersion":"v1","kind":"Node","metadata":{"name":"n1"},"status":{"allocatable":{"cpu":"4","memory":"8Gi","pods":"110"}}}"#,
            items.join(",\n")
        ),
    )
    .unwrap();
    assert_bad_input(
        &kplace(&["place", "--snapshot", mixed.to_str().unwrap(), "--pod", &p]),
        &[
            &format!("mixed.json:{}:", line_of_pod(bad_at)),
            "Pod ns/p9500",
        ],
    );

    let twice_at = 9_000;
    let items = (0..10_000)
        .map(|i| {
            let name = if i == twice_at {
                "p1".to_string()
            } else {
                format!("p{i}")
            };
            pod(&name, "100m")
        })
        .collect();
    let dup = dir.path().join("dup.json");
    std::fs::write(&dup, list(items)).unwrap();
    assert_bad_input(
        &kplace(&["place", "--snapshot", dup.to_str().unwrap(), "--pod", &p]),
        &[
            &format!("dup.json:{}:", line_of_pod(twice_at)),
            "Pod ns/p1 is defined twice",
            &format!("dup.json:{}", line_of_pod(1)),
        ],
    );
}

#[test]
fn a_directory_with_a_file_and_its_gz_is_refused() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    let text = unpacked_snapshot("spread-001");
    std::fs::write(d.join("cluster.yaml"), &text).unwrap();
    std::fs::copy(snapshot("spread-001"), d.join("cluster.yaml.gz")).unwrap();
    assert_bad_input(
        &kplace(&[
            "place",
            "--snapshot",
            d.to_str().unwrap(),
            "--pod",
            &pod("spread-001"),
        ]),
        &["holds both cluster.yaml and cluster.yaml.gz"],
    );
}

#[test]
fn a_pod_that_cannot_get_devices_is_told_which_nodes_have_them_free() {
    // dra-020: the claim wants 9 GPUs; worker-d-1 has 4 free, worker-c-1
    // 3 of 4 (gpu-0 is allocated to ml/train-gpu-fhnxq).
    let args = |format: &'static str| {
        vec![
            "place".to_string(),
            "--scheduler-version".into(),
            "1.34".into(),
            "--snapshot".into(),
            snapshot("dra-020"),
            "--pod".into(),
            pod("dra-020"),
            "-o".into(),
            format.into(),
        ]
    };
    let run = |format| {
        let a = args(format);
        kplace(&a.iter().map(String::as_str).collect::<Vec<_>>())
    };
    let got = stdout_json(&run("json"));
    assert_eq!(got["outcome"], "unschedulable");
    let nodes = got["deviceAvailability"].as_array().unwrap();
    let names: Vec<&str> = nodes.iter().map(|n| n["node"].as_str().unwrap()).collect();
    assert_eq!(names, ["worker-d-1", "worker-c-1"], "most free first");
    let c1 = &nodes[1]["requests"][0];
    assert_eq!(c1["claim"], "ml/infer-gpu-x4xpm");
    assert_eq!(c1["count"], 9);
    assert_eq!(
        (c1["matching"].as_u64(), c1["free"].as_u64()),
        (Some(4), Some(3))
    );
    assert_eq!(
        c1["heldBy"][0]["device"],
        "gpu.example.com/worker-c-1/gpu-0"
    );
    assert_eq!(c1["heldBy"][0]["claim"], "ml/train-gpu-fhnxq");

    let out = run("table");
    let table = String::from_utf8(out.stdout).unwrap();
    assert!(
        table.contains("Matching devices per node (2 node(s) have some, most free first)"),
        "{table}"
    );
    assert!(
        table.contains("ml/infer-gpu-x4xpm gpu (gpu.example.com, wants 9): 3 free of 4 matching"),
        "{table}"
    );
    assert!(
        table.contains("gpu.example.com/worker-c-1/gpu-0 held by claim ml/train-gpu-fhnxq"),
        "{table}"
    );
}

#[test]
fn the_table_names_the_devices_a_placed_pod_gets() {
    let out = kplace(&[
        "place",
        "--scheduler-version",
        "1.34",
        "--snapshot",
        &snapshot("dra-002"),
        "--pod",
        &pod("dra-002"),
    ]);
    let table = String::from_utf8(out.stdout).unwrap();
    let json = stdout_json(&kplace(&[
        "place",
        "--scheduler-version",
        "1.34",
        "--snapshot",
        &snapshot("dra-002"),
        "--pod",
        &pod("dra-002"),
        "-o",
        "json",
    ]));
    let d = &json["devices"][0];
    let node = json["node"].as_str().unwrap();
    let best = answer_of("dra-002", "v1.34")["bestNodes"].clone();
    assert!(best.as_array().unwrap().iter().any(|b| b == node));
    assert_eq!(d["pool"], node, "dra-002's pools are per node");
    assert_eq!(d["alreadyAllocated"], false);
    assert!(table.contains("Devices for the pod's claims"), "{table}");
    let line = format!(
        "{} {} → {}/{}/{}  (the allocator's pick)",
        d["claim"].as_str().unwrap(),
        d["request"].as_str().unwrap(),
        d["driver"].as_str().unwrap(),
        node,
        d["device"].as_str().unwrap()
    );
    assert!(table.contains(&line), "{line} not in\n{table}");
}

#[test]
fn a_pod_manifest_can_bring_its_resource_claims() {
    // dra-020's pod with its claim rewritten to ask for four GPUs instead
    // of nine, in the same file after `---`: worker-d-1 has four free.
    let dir = tempfile::tempdir().unwrap();
    let manifest = dir.path().join("pod-and-claim.yaml");
    let pod_text = std::fs::read_to_string(pod("dra-020")).unwrap();
    std::fs::write(
        &manifest,
        format!(
            "{pod_text}---\napiVersion: resource.k8s.io/v1\nkind: ResourceClaim\nmetadata: {{name: infer-gpu-x4xpm, namespace: ml}}\nspec:\n  devices:\n    requests:\n    - name: gpu\n      exactly: {{deviceClassName: gpu.example.com, count: 4}}\n"
        ),
    )
    .unwrap();
    let got = stdout_json(&kplace(&[
        "place",
        "--scheduler-version",
        "1.34",
        "--snapshot",
        &snapshot("dra-020"),
        "--pod",
        manifest.to_str().unwrap(),
        "-o",
        "json",
    ]));
    assert_eq!(got["outcome"], "scheduled");
    assert_eq!(got["node"], "worker-d-1");
    assert_eq!(got["devices"].as_array().unwrap().len(), 4);
    assert!(
        got["notes"].as_array().unwrap().iter().any(|n| n
            == "the pod's manifest brings ResourceClaim ml/infer-gpu-x4xpm (in place of the snapshot's)"),
        "{}",
        got["notes"]
    );
}

#[test]
fn resource_v1_objects_mean_an_api_server_of_1_34_or_later() {
    // dra-020's nodes run v1.30 kubelets, but its DRA objects are
    // resource.k8s.io/v1, which API servers serve from 1.34.
    let got = stdout_json(&kplace(&[
        "place",
        "--snapshot",
        &snapshot("dra-020"),
        "--pod",
        &pod("dra-020"),
        "-o",
        "json",
    ]));
    assert_eq!(got["schedulerVersion"], "1.34");
    assert_eq!(got["schedulerVersionSource"]["kind"], "resource-api-v1");
    assert_eq!(
        got["schedulerVersionSource"]["reason"],
        "the snapshot has no server version but holds resource.k8s.io/v1 objects, which API servers serve from 1.34; its newest kubelet, v1.30.6 (node worker-b-1), may lag the control plane"
    );
    let want = answer_of("dra-020", "v1.34");
    assert_eq!(got["outcome"], want["outcome"]);
    assert_eq!(got["message"], want["message"]);
}

#[test]
fn a_beta_dra_object_is_refused_by_name() {
    let dir = tempfile::tempdir().unwrap();
    let manifest = dir.path().join("beta.yaml");
    let pod_text = std::fs::read_to_string(pod("dra-020")).unwrap();
    std::fs::write(
        &manifest,
        format!(
            "{pod_text}---\napiVersion: resource.k8s.io/v1beta1\nkind: ResourceClaim\nmetadata: {{name: infer-gpu-x4xpm, namespace: ml}}\nspec:\n  devices:\n    requests:\n    - name: gpu\n      deviceClassName: gpu.example.com\n"
        ),
    )
    .unwrap();
    let out = kplace(&[
        "place",
        "--snapshot",
        &snapshot("dra-020"),
        "--pod",
        manifest.to_str().unwrap(),
    ]);
    assert_eq!(out.status.code(), Some(2));
    let err = stderr(&out);
    assert!(err.contains("beta.yaml"), "{err}");
    assert!(
        err.contains("ResourceClaim ml/infer-gpu-x4xpm: apiVersion: Unsupported value: \"resource.k8s.io/v1beta1\": kplace reads Dynamic Resource Allocation objects of resource.k8s.io/v1 (Kubernetes 1.34 and later)"),
        "{err}"
    );
}

/// Escape sequences (clear screen, set window title) in a pod's name, which
/// is refused, and in a kubelet's version, which is shown, are printed
/// escaped, never sent raw.
#[test]
fn table_escapes_control_characters_from_object_names() {
    let dir = tempfile::tempdir().unwrap();
    // A name with control characters is refused as the API server refuses
    // it, and the error quotes it escaped.
    let manifest = std::fs::read_to_string(pod("spread-001")).unwrap().replace(
        "name: frontend-4d4wj4j2t7-fzzgc",
        "name: \"evil\\e[2J\\e]0;pwned\\a\"",
    );
    let path = dir.path().join("pod.yaml");
    std::fs::write(&path, manifest).unwrap();
    let out = kplace(&[
        "place",
        "--snapshot",
        &snapshot("spread-001"),
        "--pod",
        path.to_str().unwrap(),
    ]);
    assert_eq!(out.status.code(), Some(2), "{}", stderr(&out));
    let err = stderr(&out);
    assert!(
        !err.contains('\u{1b}') && !err.contains('\u{7}'),
        "raw control characters in the error:\n{err:?}"
    );
    assert!(
        err.contains("Pod default/evil\\x1b[2J\\x1b]0;pwned\\x07: metadata.name: Invalid value"),
        "{err}"
    );

    // Status strings the API server does not check (a kubelet's version)
    // reach the table escaped.
    let snap = dir.path().join("snapshot.yaml");
    std::fs::write(
        &snap,
        unpacked_snapshot("spread-001").replace(
            "kubeletVersion: v1.30.6,",
            "kubeletVersion: \"v1.30.6\\e[2J\\a\",",
        ),
    )
    .unwrap();
    let out = kplace(&[
        "place",
        "--snapshot",
        snap.to_str().unwrap(),
        "--pod",
        &pod("spread-001"),
    ]);
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert!(out.status.success(), "{}", stderr(&out));
    assert!(
        !stdout.contains('\u{1b}') && !stdout.contains('\u{7}'),
        "raw control characters in the table:\n{stdout:?}"
    );
    assert!(
        stdout.contains("kubelet is v1.30.6\\x1b[2J\\x07"),
        "{stdout}"
    );
}

#[test]
fn synth_never_replaces_a_file_without_force() {
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("cluster.json");
    std::fs::write(&out, "precious").unwrap();
    let path = out.to_str().unwrap();
    let run = |extra: &[&str]| {
        let mut args = vec!["synth", "-o", path, "--nodes", "3", "--pods", "6"];
        args.extend_from_slice(extra);
        kplace(&args)
    };
    let refused = run(&[]);
    assert_eq!(refused.status.code(), Some(2));
    assert!(
        stderr(&refused).contains("already exists; not overwritten (use --force to replace it)"),
        "{}",
        stderr(&refused)
    );
    assert_eq!(std::fs::read_to_string(&out).unwrap(), "precious");
    assert!(run(&["--force"]).status.success());
    assert!(
        std::fs::read_to_string(&out)
            .unwrap()
            .contains("\"kind\":\"List\"")
    );
}

/// `synth` refuses sizes that make no cluster (no nodes, zones past `z`)
/// or would take unbounded memory, and says what it wrote: the zones the
/// nodes span and the pods the nodes could not hold, left pending; the
/// file holds exactly that.
#[test]
fn synth_bounds_its_sizes_and_says_what_it_wrote() {
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("c.json");
    let path = out.to_str().unwrap();
    for (flag, value, range) in [
        ("--nodes", "0", "1..=50000"),
        ("--zones", "27", "1..=26"),
        ("--pods", "1500001", "0..=1500000"),
    ] {
        let refused = kplace(&["synth", "-o", path, flag, value]);
        assert_eq!(refused.status.code(), Some(2), "{flag} {value}");
        assert!(
            stderr(&refused).contains(&format!("{value} is not in {range}")),
            "{}",
            stderr(&refused)
        );
        assert!(!out.exists(), "nothing written for {flag} {value}");
    }
    let run = kplace(&[
        "synth", "-o", path, "--nodes", "3", "--zones", "5", "--pods", "1000",
    ]);
    assert!(run.status.success(), "{}", stderr(&run));
    let said = stderr(&run);
    let written: Value = serde_json::from_slice(&std::fs::read(&out).unwrap()).unwrap();
    let items = written["items"].as_array().unwrap();
    let pods: Vec<&Value> = items.iter().filter(|i| i["kind"] == "Pod").collect();
    let pending = pods
        .iter()
        .filter(|p| p["spec"]["nodeName"].is_null())
        .count();
    assert_eq!(pods.len(), 1000);
    assert!(pending >= 1000 - 3 * 110, "{pending} pending");
    assert!(
        said.contains(&format!(
            "(3 nodes in 3 zone(s), 1000 pods, {pending} of them pending)"
        )),
        "{said}"
    );
    assert!(
        said.contains("note: 5 zone(s) asked, but 3 node(s) span only 3"),
        "{said}"
    );
}

#[test]
fn pod_dash_reads_the_manifest_from_standard_input() {
    use std::io::Write;
    let mut child = Command::new(env!("CARGO_BIN_EXE_kplace"))
        .args([
            "place",
            "--snapshot",
            &snapshot("spread-001"),
            "--pod",
            "-",
            "-o",
            "json",
        ])
        .stdin(std::process::Stdio::piped())
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::piped())
        .spawn()
        .unwrap();
    let manifest = std::fs::read(pod("spread-001")).unwrap();
    child.stdin.take().unwrap().write_all(&manifest).unwrap();
    let out = child.wait_with_output().unwrap();
    assert!(out.status.success(), "{}", stderr(&out));
    let got = stdout_json(&out);
    let from_file = stdout_json(&kplace(&[
        "place",
        "--snapshot",
        &snapshot("spread-001"),
        "--pod",
        &pod("spread-001"),
        "-o",
        "json",
    ]));
    assert_eq!(got, from_file);
}

#[test]
fn fail_on_is_a_severity_order() {
    // preemption-002 is unschedulable even with preemption: every level,
    // pdb-violation included, trips on it.
    let (s, p) = (snapshot("preemption-002"), pod("preemption-002"));
    for level in ["preempt", "pdb-violation", "unschedulable"] {
        let out = kplace(&["place", "--snapshot", &s, "--pod", &p, "--fail-on", level]);
        assert_eq!(
            out.status.code(),
            Some(3),
            "--fail-on {level}: {}",
            stderr(&out)
        );
        assert!(
            stderr(&out).contains(&format!("--fail-on {level}: the answer is unschedulable")),
            "{}",
            stderr(&out)
        );
    }
    // preemption-001 preempts and breaks shop/cart-pdb (twice over: two of
    // its victims are under it); the PDB is named once.
    let (s, p) = (snapshot("preemption-001"), pod("preemption-001"));
    let out = kplace(&[
        "place",
        "--snapshot",
        &s,
        "--pod",
        &p,
        "--fail-on",
        "pdb-violation",
    ]);
    assert_eq!(out.status.code(), Some(3));
    let err = stderr(&out);
    assert_eq!(err.matches("shop/cart-pdb").count(), 1, "{err}");
    // A rejected pod (unknown priority class) trips pdb-violation too.
    let dir = tempfile::tempdir().unwrap();
    let rejected = bad_pod(
        dir.path(),
        "rejected.yaml",
        &std::fs::read_to_string(&p)
            .unwrap()
            .replace("high-priority", "no-such-class"),
    );
    let out = kplace(&[
        "place",
        "--snapshot",
        &s,
        "--pod",
        &rejected,
        "--fail-on",
        "pdb-violation",
    ]);
    assert_eq!(out.status.code(), Some(3), "{}", stderr(&out));
    assert!(
        stderr(&out).contains("the answer is rejected"),
        "{}",
        stderr(&out)
    );
    let help = kplace(&["place", "--help"]);
    let help = String::from_utf8_lossy(&help.stdout);
    assert!(
        help.contains("preempt < pdb-violation < unschedulable"),
        "{help}"
    );
}

#[test]
fn a_closed_stdout_is_a_quiet_success() {
    // `kplace place ... -o json | head -1`: the reader is gone before
    // kplace writes, so the first write fails with EPIPE.
    for sub in [
        vec![
            "place",
            "--snapshot",
            &snapshot("preemption-001"),
            "--pod",
            &pod("preemption-001"),
            "-o",
            "json",
        ],
        vec!["completions", "bash"],
        vec!["man"],
    ] {
        let mut child = Command::new(env!("CARGO_BIN_EXE_kplace"))
            .args(&sub)
            .stdout(std::process::Stdio::piped())
            .stderr(std::process::Stdio::piped())
            .spawn()
            .unwrap();
        drop(child.stdout.take());
        let out = child.wait_with_output().unwrap();
        assert_eq!(out.status.code(), Some(0), "{sub:?}: {}", stderr(&out));
        assert_eq!(stderr(&out), "", "{sub:?}");
    }
}

#[test]
fn verify_on_a_snapshot_says_it_is_not_a_timeline() {
    let out = kplace(&["verify", &snapshot("preemption-001")]);
    assert_bad_input(
        &out,
        &[&format!(
            "{} is a cluster snapshot, not a recorded timeline (record one with `kplace record --duration`)",
            snapshot("preemption-001")
        )],
    );
    assert!(
        !stderr(&out).contains("EOF while parsing"),
        "{}",
        stderr(&out)
    );
    // Pretty-printed JSON (first line `{`) too.
    let dir = tempfile::tempdir().unwrap();
    let json = dir.path().join("cluster.json");
    std::fs::write(
        &json,
        "{\n  \"apiVersion\": \"v1\",\n  \"kind\": \"List\",\n  \"items\": []\n}\n",
    )
    .unwrap();
    assert_bad_input(
        &kplace(&["verify", json.to_str().unwrap()]),
        &["cluster.json is a cluster snapshot, not a recorded timeline"],
    );
    // And the other way round: a timeline given as a snapshot.
    let timeline = Path::new(env!("CARGO_MANIFEST_DIR")).join("assets/demo-timeline.jsonl.gz");
    assert_bad_input(
        &kplace(&[
            "place",
            "--snapshot",
            timeline.to_str().unwrap(),
            "--pod",
            &pod("preemption-001"),
        ]),
        &["demo-timeline.jsonl.gz is a recorded timeline, not a cluster snapshot"],
    );
}

/// One node with `cpu` cores, in zone-a.
fn one_node_snapshot(dir: &Path, cpu: u32) -> String {
    let path = dir.join("one-node.yaml");
    std::fs::write(
        &path,
        format!(
            "apiVersion: v1\nkind: Node\nmetadata:\n  name: node-1\n  labels: {{kubernetes.io/hostname: node-1, topology.kubernetes.io/zone: zone-a}}\nstatus:\n  allocatable: {{cpu: \"{cpu}\", memory: 8Gi, pods: \"110\"}}\n  capacity: {{cpu: \"{cpu}\", memory: 8Gi, pods: \"110\"}}\n"
        ),
    )
    .unwrap();
    path.display().to_string()
}

#[test]
fn replica_totals_count_the_replicas_asked_for() {
    let dir = tempfile::tempdir().unwrap();
    let s = one_node_snapshot(dir.path(), 2);
    let p = bad_pod(
        dir.path(),
        "one-cpu.yaml",
        "apiVersion: v1\nkind: Pod\nmetadata: {name: web, namespace: default}\nspec:\n  containers:\n  - name: a\n    resources: {requests: {cpu: \"1\"}}\n",
    );
    let out = kplace(&["place", "--snapshot", &s, "--pod", &p, "--replicas", "10"]);
    assert!(out.status.success(), "{}", stderr(&out));
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(
        text.contains(
            "2 of 10 replicas placed; replica 3 cannot be placed (the rest were not tried)."
        ),
        "{text}"
    );
    assert!(!text.contains("of 3 replicas"), "{text}");
    let json = stdout_json(&kplace(&[
        "place",
        "--snapshot",
        &s,
        "--pod",
        &p,
        "--replicas",
        "10",
        "-o",
        "json",
    ]));
    assert_eq!(json["requested"], 10);
    assert_eq!(json["placed"], 2);
    assert_eq!(json["firstUnplaceable"], 3);
    let out = kplace(&["place", "--snapshot", &s, "--pod", &p, "--replicas", "2"]);
    assert!(
        String::from_utf8_lossy(&out.stdout).contains("2 of 2 replicas placed."),
        "{}",
        String::from_utf8_lossy(&out.stdout)
    );
}

#[test]
fn limit_caps_every_list_of_the_replica_table() {
    // 30 nodes, a hostname spread: the final counts would list every node.
    let dir = tempfile::tempdir().unwrap();
    let mut nodes = String::new();
    for i in 0..30 {
        nodes.push_str(&format!(
            "---\napiVersion: v1\nkind: Node\nmetadata:\n  name: node-{i:02}\n  labels: {{kubernetes.io/hostname: node-{i:02}}}\nstatus:\n  allocatable: {{cpu: \"4\", memory: 8Gi, pods: \"110\"}}\n"
        ));
    }
    let s = dir.path().join("nodes.yaml");
    std::fs::write(&s, nodes).unwrap();
    let p = bad_pod(
        dir.path(),
        "spread.yaml",
        "apiVersion: v1\nkind: Pod\nmetadata: {name: web, namespace: default, labels: {app: web}}\nspec:\n  containers:\n  - name: a\n    resources: {requests: {cpu: 100m}}\n  topologySpreadConstraints:\n  - {maxSkew: 1, topologyKey: kubernetes.io/hostname, whenUnsatisfiable: DoNotSchedule, labelSelector: {matchLabels: {app: web}}}\n",
    );
    let out = kplace(&[
        "place",
        "--snapshot",
        s.to_str().unwrap(),
        "--pod",
        &p,
        "--replicas",
        "12",
        "--limit",
        "5",
    ]);
    assert!(out.status.success(), "{}", stderr(&out));
    let text = String::from_utf8_lossy(&out.stdout);
    let counts = text
        .lines()
        .find(|l| l.starts_with("Final kubernetes.io/hostname counts"))
        .expect("final counts");
    assert!(counts.ends_with("… and 25 more"), "{counts}");
    assert_eq!(counts.matches("node-").count(), 5, "{counts}");
    assert!(
        text.contains("… and 7 more (use --limit 0 for all)"),
        "{text}"
    );
    assert!(text.contains("12 of 12 replicas placed."), "{text}");
    let all = kplace(&[
        "place",
        "--snapshot",
        s.to_str().unwrap(),
        "--pod",
        &p,
        "--replicas",
        "12",
        "--limit",
        "0",
    ]);
    let all = String::from_utf8_lossy(&all.stdout);
    assert!(!all.contains("more"), "{all}");
}

#[test]
fn an_ineligible_preemption_says_not_eligible_once() {
    let dir = tempfile::tempdir().unwrap();
    let s = dir.path().join("never.yaml");
    std::fs::write(
        &s,
        format!(
            "{}\n---\napiVersion: scheduling.k8s.io/v1\nkind: PriorityClass\nmetadata: {{name: never-tier}}\nvalue: 900000\npreemptionPolicy: Never\n",
            unpacked_snapshot("preemption-001")
        ),
    )
    .unwrap();
    let p = bad_pod(
        dir.path(),
        "never-pod.yaml",
        &std::fs::read_to_string(pod("preemption-001"))
            .unwrap()
            .replace("high-priority", "never-tier"),
    );
    let out = kplace(&["place", "--snapshot", s.to_str().unwrap(), "--pod", &p]);
    assert!(out.status.success(), "{}", stderr(&out));
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(
        text.contains("  not eligible due to preemptionPolicy=Never."),
        "{text}"
    );
    assert!(!text.contains("not eligible: not eligible"), "{text}");
}

#[test]
fn completions_and_man_page_come_from_the_command_line_definition() {
    let out = kplace(&["completions", "bash"]);
    assert!(out.status.success(), "{}", stderr(&out));
    let bash = String::from_utf8_lossy(&out.stdout);
    assert!(bash.contains("place"), "{bash}");
    assert!(bash.contains("--snapshot"), "{bash}");
    assert!(bash.contains("--fail-on"), "{bash}");
    for (shell, option) in [("zsh", "--snapshot"), ("fish", "-l snapshot")] {
        let out = kplace(&["completions", shell]);
        assert!(out.status.success(), "{shell}: {}", stderr(&out));
        let script = String::from_utf8_lossy(&out.stdout);
        assert!(script.contains(option), "{shell}: {script}");
        assert!(script.contains("place"), "{shell}: {script}");
    }
    let out = kplace(&["completions", "tcsh"]);
    assert_eq!(
        out.status.code(),
        Some(2),
        "an unknown shell is a usage error"
    );
    let out = kplace(&["man"]);
    assert!(out.status.success(), "{}", stderr(&out));
    let man = String::from_utf8_lossy(&out.stdout);
    assert!(man.contains(".SH NAME"), "{man}");
    assert!(man.contains("kplace"), "{man}");
    assert!(
        man.contains(".SH SUBCOMMANDS") || man.contains("place"),
        "{man}"
    );
}

#[test]
fn the_krew_manifest_covers_linux_and_darwin_on_amd64_and_arm64() {
    let path = Path::new(env!("CARGO_MANIFEST_DIR")).join("deploy/krew/kplace.yaml");
    let text = std::fs::read_to_string(&path).unwrap();
    let doc: Value = serde_saphyr::from_str(&text).unwrap();
    assert_eq!(
        doc["apiVersion"],
        "krew.googlecontainertools.github.com/v1alpha2"
    );
    assert_eq!(doc["kind"], "Plugin");
    assert_eq!(doc["metadata"]["name"], "kplace");
    let mut platforms: Vec<(String, String)> = doc["spec"]["platforms"]
        .as_array()
        .unwrap()
        .iter()
        .map(|p| {
            assert_eq!(p["bin"], "kplace");
            // Placeholders, clearly marked, until a release fills them in.
            assert!(
                p["uri"].as_str().unwrap().starts_with("RELEASE_URL_"),
                "{p}"
            );
            assert!(p["sha256"].as_str().unwrap().starts_with("SHA256_"), "{p}");
            let l = &p["selector"]["matchLabels"];
            (
                l["os"].as_str().unwrap().into(),
                l["arch"].as_str().unwrap().into(),
            )
        })
        .collect();
    platforms.sort();
    let want: Vec<(String, String)> = [
        ("darwin", "amd64"),
        ("darwin", "arm64"),
        ("linux", "amd64"),
        ("linux", "arm64"),
    ]
    .iter()
    .map(|(o, a)| (o.to_string(), a.to_string()))
    .collect();
    assert_eq!(platforms, want);
}

/// A workload manifest of `kind` named `web` (namespace default), running
/// `replicas` pods of 100m CPU.
fn workload_yaml(kind: &str, replicas: u32) -> String {
    let template = "  template:\n    metadata: {labels: {app: web}}\n    spec:\n      containers:\n      - {name: web, image: nginx, resources: {requests: {cpu: 100m, memory: 64Mi}}}\n";
    let selector = "  selector: {matchLabels: {app: web}}\n";
    match kind {
        "Deployment" | "ReplicaSet" | "StatefulSet" => format!(
            "apiVersion: apps/v1\nkind: {kind}\nmetadata: {{name: web}}\nspec:\n  replicas: {replicas}\n{selector}{template}"
        ),
        "DaemonSet" => {
            format!(
                "apiVersion: apps/v1\nkind: DaemonSet\nmetadata: {{name: web}}\nspec:\n{selector}{template}"
            )
        }
        "Job" => format!(
            "apiVersion: batch/v1\nkind: Job\nmetadata: {{name: web}}\nspec:\n  parallelism: {replicas}\n{}",
            template.replace(
                "spec:\n      containers",
                "spec:\n      restartPolicy: Never\n      containers"
            )
        ),
        "CronJob" => {
            let t = template
                .replace(
                    "spec:\n      containers",
                    "spec:\n      restartPolicy: Never\n      containers",
                )
                .lines()
                .map(|l| format!("    {l}\n"))
                .collect::<String>();
            format!(
                "apiVersion: batch/v1\nkind: CronJob\nmetadata: {{name: web}}\nspec:\n  schedule: \"*/5 * * * *\"\n  jobTemplate:\n    spec:\n      parallelism: {replicas}\n{t}"
            )
        }
        _ => unreachable!(),
    }
}

#[test]
fn every_workload_kind_is_placed_as_its_controllers_pods() {
    let dir = tempfile::tempdir().unwrap();
    let s = snapshot("spread-001");
    for (kind, replicas) in [
        ("Deployment", 3),
        ("ReplicaSet", 3),
        ("StatefulSet", 3),
        ("Job", 2),
        ("CronJob", 2),
    ] {
        let p = bad_pod(
            dir.path(),
            &format!("{kind}.yaml"),
            &workload_yaml(kind, replicas),
        );
        // --replicas defaults to the workload's count.
        let json = stdout_json(&kplace(&[
            "place",
            "--snapshot",
            &s,
            "--pod",
            &p,
            "-o",
            "json",
        ]));
        assert_eq!(json["requested"], replicas, "{kind}");
        assert_eq!(json["placed"], replicas, "{kind}");
        assert_eq!(json["workload"]["kind"], kind, "{kind}");
        let first = &json["replicas"][0];
        assert_eq!(first["outcome"], "scheduled", "{kind}");
        let name = first["name"].as_str().unwrap();
        match kind {
            "StatefulSet" => {
                assert_eq!(name, "web-0");
                assert_eq!(json["replicas"][2]["name"], "web-2", "StatefulSet ordinals");
            }
            "CronJob" => assert!(name.starts_with("web-") && name.len() > 10, "{name}"),
            _ => assert!(name.starts_with("web-"), "{kind}: {name}"),
        }
        let table = kplace(&["place", "--snapshot", &s, "--pod", &p]);
        let text = String::from_utf8_lossy(&table.stdout);
        assert!(
            text.starts_with(&format!(
                "Workload: {kind} default/web, {replicas} replicas"
            )),
            "{text}"
        );
        // --replicas 1: one answer, which names the workload and its owner.
        let one = stdout_json(&kplace(&[
            "place",
            "--snapshot",
            &s,
            "--pod",
            &p,
            "--replicas",
            "1",
            "-o",
            "json",
        ]));
        assert_eq!(one["requested"], 1);
    }
    // A single-replica workload answers like a pod, with a note.
    let p = bad_pod(dir.path(), "one.yaml", &workload_yaml("Deployment", 1));
    let json = stdout_json(&kplace(&[
        "place",
        "--snapshot",
        &s,
        "--pod",
        &p,
        "-o",
        "json",
    ]));
    assert_eq!(json["outcome"], "scheduled");
    let notes = json["notes"].to_string();
    assert!(
        notes.contains("the pod of Deployment default/web"),
        "{notes}"
    );
    assert!(notes.contains("owned by ReplicaSet web-"), "{notes}");
    // A DaemonSet: one pod per eligible node, said in the answer.
    let p = bad_pod(dir.path(), "ds.yaml", &workload_yaml("DaemonSet", 0));
    let out = kplace(&["place", "--snapshot", &s, "--pod", &p]);
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(out.status.success(), "{}", stderr(&out));
    assert!(text.contains("one pod per eligible node"), "{text}");
}

#[test]
fn a_helm_template_output_yields_its_one_workload_or_names_the_candidates() {
    let dir = tempfile::tempdir().unwrap();
    let s = snapshot("spread-001");
    let helm = format!(
        "---\n# Source: web/templates/service.yaml\napiVersion: v1\nkind: Service\nmetadata: {{name: web}}\nspec: {{selector: {{app: web}}, ports: [{{port: 80}}]}}\n---\n# Source: web/templates/configmap.yaml\napiVersion: v1\nkind: ConfigMap\nmetadata: {{name: web}}\ndata: {{a: b}}\n---\n# Source: web/templates/deployment.yaml\n{}",
        workload_yaml("Deployment", 2)
    );
    let p = bad_pod(dir.path(), "helm.yaml", &helm);
    let json = stdout_json(&kplace(&[
        "place",
        "--snapshot",
        &s,
        "--pod",
        &p,
        "-o",
        "json",
    ]));
    assert_eq!(json["workload"]["kind"], "Deployment");
    assert_eq!(json["placed"], 2);
    // Two workloads: the error names both; --workload picks one.
    let two = format!(
        "{helm}---\n{}",
        workload_yaml("StatefulSet", 1).replace("name: web}", "name: db}")
    );
    let p = bad_pod(dir.path(), "two.yaml", &two);
    let out = kplace(&["place", "--snapshot", &s, "--pod", &p]);
    assert_bad_input(
        &out,
        &[
            "two.yaml: holds 2 pods and workloads: Deployment/web (default), StatefulSet/db (default); choose one with --workload KIND/NAME",
        ],
    );
    let json = stdout_json(&kplace(&[
        "place",
        "--snapshot",
        &s,
        "--pod",
        &p,
        "--workload",
        "sts/db",
        "-o",
        "json",
    ]));
    assert_eq!(json["outcome"], "scheduled");
    assert!(
        json["pod"].as_str().unwrap().ends_with("/db-0"),
        "{}",
        json["pod"]
    );
    let out = kplace(&[
        "place",
        "--snapshot",
        &s,
        "--pod",
        &p,
        "--workload",
        "job/nope",
    ]);
    assert_bad_input(
        &out,
        &["holds no job/nope (it holds Deployment/web (default)"],
    );
    // An error in the template names the workload and the template field.
    let bad = workload_yaml("Deployment", 2).replace("cpu: 100m", "cpu: -1");
    let p = bad_pod(dir.path(), "bad.yaml", &bad);
    let out = kplace(&["place", "--snapshot", &s, "--pod", &p]);
    assert_bad_input(
        &out,
        &["Deployment default/web: spec.template.spec.containers[0].resources.requests"],
    );
}

/// Three nodes in three zones; two `app: web` pods of an older rollout on
/// `z1`.
const SPREAD_SNAPSHOT: &str = "apiVersion: v1
kind: List
items:
- {apiVersion: v1, kind: Node, metadata: {name: z1, labels: {kubernetes.io/hostname: z1, topology.kubernetes.io/zone: a}}, status: {allocatable: {cpu: '4', memory: 8Gi, pods: '110'}}}
- {apiVersion: v1, kind: Node, metadata: {name: z2, labels: {kubernetes.io/hostname: z2, topology.kubernetes.io/zone: b}}, status: {allocatable: {cpu: '4', memory: 8Gi, pods: '110'}}}
- {apiVersion: v1, kind: Node, metadata: {name: z3, labels: {kubernetes.io/hostname: z3, topology.kubernetes.io/zone: c}}, status: {allocatable: {cpu: '4', memory: 8Gi, pods: '110'}}}
- {apiVersion: v1, kind: Pod, metadata: {name: web-old-1, namespace: default, uid: o1, labels: {app: web}}, spec: {nodeName: z1, containers: [{name: web, resources: {requests: {cpu: 100m, memory: 64Mi}}}]}, status: {phase: Running}}
- {apiVersion: v1, kind: Pod, metadata: {name: web-old-2, namespace: default, uid: o2, labels: {app: web}}, spec: {nodeName: z1, containers: [{name: web, resources: {requests: {cpu: 100m, memory: 64Mi}}}]}, status: {phase: Running}}
";

/// The snapshot with `service` (YAML) as one more item.
fn spread_snapshot_with(dir: &Path, name: &str, service: &str) -> String {
    let item: Value = serde_saphyr::from_str(service).unwrap();
    bad_pod(
        dir,
        name,
        &format!(
            "{SPREAD_SNAPSHOT}- {}\n",
            serde_json::to_string(&item).unwrap()
        ),
    )
}

fn placed_json(snap: &str, pod: &str) -> Value {
    stdout_json(&kplace(&[
        "place",
        "--snapshot",
        snap,
        "--pod",
        pod,
        "-o",
        "json",
    ]))
}

const SCORED: [&str; 5] = ["outcome", "feasibleNodes", "scores", "bestNodes", "node"];

#[test]
fn services_beside_a_workload_spread_it_as_the_same_services_in_the_snapshot() {
    let dir = tempfile::tempdir().unwrap();
    // Default spreading ANDs every selector that selects the pod: the
    // ReplicaSet's (app: web) matches the older pods on z1, and the
    // Service's (app: web, tier: fe) narrows that to none of them.
    let service = "apiVersion: v1\nkind: Service\nmetadata: {name: web}\nspec: {selector: {app: web, tier: fe}, ports: [{port: 80}]}\n";
    let rs = "apiVersion: apps/v1\nkind: ReplicaSet\nmetadata: {name: web}\nspec:\n  replicas: 1\n  selector: {matchLabels: {app: web}}\n  template:\n    metadata: {labels: {app: web, tier: fe}}\n    spec:\n      containers: [{name: web, resources: {requests: {cpu: 100m, memory: 64Mi}}}]\n";
    let bare = bad_pod(dir.path(), "bare.yaml", SPREAD_SNAPSHOT);
    let with_service = spread_snapshot_with(dir.path(), "with-service.yaml", service);
    let helm = bad_pod(
        dir.path(),
        "helm.yaml",
        &format!("---\n# Source: web/templates/service.yaml\n{service}---\n{rs}"),
    );
    let alone = bad_pod(dir.path(), "rs.yaml", rs);
    let from_file = placed_json(&bare, &helm);
    let from_snapshot = placed_json(&with_service, &alone);
    for field in SCORED {
        assert_eq!(from_file[field], from_snapshot[field], "{field}");
    }
    // Without the Service the older pods count and z1 is scored down.
    let without = placed_json(&bare, &alone);
    let spread = |a: &Value, n: &str| a["scores"][n]["plugins"]["PodTopologySpread"].as_i64();
    assert!(spread(&without, "z1") < spread(&without, "z2"), "{without}");
    assert_eq!(
        spread(&from_file, "z1"),
        spread(&from_file, "z2"),
        "{from_file}"
    );
}

#[test]
fn services_beside_a_pod_spread_it_as_the_same_services_in_the_snapshot() {
    let dir = tempfile::tempdir().unwrap();
    let service = "apiVersion: v1\nkind: Service\nmetadata: {name: web}\nspec: {selector: {app: web}, ports: [{port: 80}]}\n";
    let pod_text = "apiVersion: v1\nkind: Pod\nmetadata: {name: web-x, labels: {app: web}}\nspec: {containers: [{name: web, resources: {requests: {cpu: 100m, memory: 64Mi}}}]}\n";
    let bare = bad_pod(dir.path(), "bare.yaml", SPREAD_SNAPSHOT);
    let with_service = spread_snapshot_with(dir.path(), "with-service.yaml", service);
    let both = bad_pod(
        dir.path(),
        "pod-svc.yaml",
        &format!("{pod_text}---\n{service}"),
    );
    let alone = bad_pod(dir.path(), "pod.yaml", pod_text);
    let from_file = placed_json(&bare, &both);
    let from_snapshot = placed_json(&with_service, &alone);
    for field in SCORED {
        assert_eq!(from_file[field], from_snapshot[field], "{field}");
    }
    // Without the Service nothing selects the pod: no default spreading,
    // and z1 scores as the others.
    let without = placed_json(&bare, &alone);
    assert_ne!(from_file["scores"], without["scores"]);
    assert!(
        !from_file["bestNodes"].to_string().contains("z1"),
        "{from_file}"
    );
}

/// The interactive view without a terminal (a script, a pipe) says so and
/// what answers without one, instead of the system's bare error.
#[test]
fn the_tui_without_a_terminal_says_it_needs_one() {
    let out = Command::new(env!("CARGO_BIN_EXE_kplace"))
        .arg("--demo")
        .stdin(std::process::Stdio::null())
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::piped())
        .output()
        .unwrap();
    assert_ne!(out.status.code(), Some(0));
    let err = stderr(&out);
    assert!(
        err.contains("the interactive view needs a terminal, and none is attached")
            && err.contains("kplace place --snapshot FILE --pod POD"),
        "{err}"
    );
}

/// Container ports the API server would refuse are refused in its words,
/// in a pod manifest and in a snapshot's pods alike: the NodePorts filter
/// would otherwise compare host ports no node could have.
#[test]
fn container_ports_out_of_range_are_refused_as_the_api_server_refuses_them() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    let s = snapshot("spread-001");
    let pod = |ports: &str| {
        format!(
            "apiVersion: v1\nkind: Pod\nmetadata: {{name: p}}\nspec:\n  containers:\n  - name: a\n    image: nginx\n  - name: b\n    image: nginx\n    ports:\n{ports}"
        )
    };
    for (ports, needles) in [
        (
            "    - containerPort: 70000\n",
            vec![
                "bad.yaml:11: ",
                "spec.containers[1].ports[0].containerPort: Invalid value: 70000: must be between 1 and 65535, inclusive",
            ],
        ),
        (
            "    - containerPort: 0\n",
            vec!["spec.containers[1].ports[0].containerPort: Required value"],
        ),
        (
            "    - containerPort: 80\n    - containerPort: 81\n      hostPort: -1\n",
            vec![
                "spec.containers[1].ports[1].hostPort: Invalid value: -1: must be between 1 and 65535, inclusive",
            ],
        ),
        (
            "    - containerPort: 80\n      protocol: HTTP\n",
            vec![
                "spec.containers[1].ports[0].protocol: Unsupported value: \"HTTP\": supported values: \"SCTP\", \"TCP\", \"UDP\"",
            ],
        ),
    ] {
        let path = bad_pod(d, "bad.yaml", &pod(ports));
        let mut all = vec!["Pod default/p"];
        all.extend(needles);
        assert_bad_input(&kplace(&["place", "--snapshot", &s, "--pod", &path]), &all);
    }
    // In range, with a protocol it knows: answered.
    let good = bad_pod(
        d,
        "good.yaml",
        &pod("    - containerPort: 65535\n      hostPort: 1\n      protocol: SCTP\n"),
    );
    let out = kplace(&["place", "--snapshot", &s, "--pod", &good]);
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));

    // A snapshot's pod, read by the lean JSON reader.
    let list = serde_json::json!({"apiVersion": "v1", "kind": "List", "items": [
        {"apiVersion": "v1", "kind": "Node", "metadata": {"name": "n1"},
         "status": {"allocatable": {"cpu": "4", "memory": "8Gi", "pods": "110"}}},
        {"apiVersion": "v1", "kind": "Pod", "metadata": {"name": "q", "namespace": "web"},
         "spec": {"nodeName": "n1", "containers": [{"name": "a", "image": "nginx",
             "ports": [{"containerPort": 8080, "hostPort": 99999}]}]}}
    ]});
    let snap = d.join("snap.json");
    std::fs::write(&snap, serde_json::to_vec_pretty(&list).unwrap()).unwrap();
    assert_bad_input(
        &kplace(&[
            "place",
            "--snapshot",
            snap.to_str().unwrap(),
            "--pod",
            &good,
        ]),
        &[
            "snap.json:",
            "Pod web/q",
            "spec.containers[0].ports[0].hostPort: Invalid value: 99999: must be between 1 and 65535, inclusive",
        ],
    );
}

/// Names the API server would refuse (a Pod's or Node's name that is not
/// a DNS subdomain, a namespace that is not a DNS label, a scheduler name
/// that is not a subdomain) are refused in its words. (A priority class
/// name no class has is rejected by admission first: the corpus holds
/// that.)
#[test]
fn names_a_cluster_could_not_hold_are_refused() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    let s = snapshot("spread-001");
    let pod = |meta: &str, spec: &str| {
        format!(
            "apiVersion: v1\nkind: Pod\nmetadata:\n{meta}spec:\n{spec}  containers:\n  - name: a\n    image: nginx\n"
        )
    };
    const SUBDOMAIN: &str = "a lowercase RFC 1123 subdomain must consist of lower case alphanumeric characters, '-' or '.', and must start and end with an alphanumeric character";
    const LABEL: &str =
        "a lowercase RFC 1123 label must consist of lower case alphanumeric characters or '-'";
    let long = "a".repeat(254);
    let cases = [
        (
            pod("  name: Web_1\n", ""),
            vec![
                "bad.yaml:4: ",
                "Pod default/Web_1: metadata.name: Invalid value: \"Web_1\": ",
                SUBDOMAIN,
            ],
        ),
        (
            pod("  name: web-.x\n", ""),
            vec!["metadata.name: Invalid value: \"web-.x\": ", SUBDOMAIN],
        ),
        (
            pod(&format!("  name: {long}\n"), ""),
            vec![
                "metadata.name: Invalid value: ",
                "must be no more than 253 characters",
            ],
        ),
        (
            pod("  name: web\n  namespace: Shop.EU\n", ""),
            vec![
                "bad.yaml:5: ",
                "Pod Shop.EU/web: metadata.namespace: Invalid value: \"Shop.EU\": ",
                LABEL,
            ],
        ),
        (
            pod("  name: web\n", "  schedulerName: My_Scheduler\n"),
            vec![
                "spec.schedulerName: Invalid value: \"My_Scheduler\": ",
                SUBDOMAIN,
            ],
        ),
    ];
    for (body, needles) in cases {
        let path = bad_pod(d, "bad.yaml", &body);
        assert_bad_input(
            &kplace(&["place", "--snapshot", &s, "--pod", &path]),
            &needles,
        );
    }
    // A generateName is a prefix: it may end in '-'.
    let ok = bad_pod(
        d,
        "ok.yaml",
        &pod(
            "  generateName: web-\n  namespace: shop-eu\n",
            "  priorityClassName: high-priority\n",
        ),
    );
    let out = kplace(&["place", "--snapshot", &s, "--pod", &ok]);
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));

    // A node's name in a snapshot.
    let snap = d.join("snap.yaml");
    std::fs::write(
        &snap,
        "apiVersion: v1\nkind: Node\nmetadata:\n  name: Node_1\nstatus:\n  allocatable: {cpu: '4', memory: 8Gi, pods: '110'}\n",
    )
    .unwrap();
    assert_bad_input(
        &kplace(&["place", "--snapshot", snap.to_str().unwrap(), "--pod", &ok]),
        &[
            "snap.yaml:4: ",
            "Node Node_1: metadata.name: Invalid value: \"Node_1\": ",
            SUBDOMAIN,
        ],
    );
}

/// `place --demo` answers the built-in cluster (the TUI's `--demo`), so the
/// command can be tried without a cluster or a file; it takes no other source.
#[test]
fn place_demo_answers_the_built_in_cluster() {
    let out = kplace(&[
        "place",
        "--demo",
        "--pod",
        "shop/frontend-6b8f7c5d4-r6ndz",
        "-o",
        "json",
    ]);
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let answer: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(answer["outcome"], "unschedulable");
    assert!(
        answer["message"]
            .as_str()
            .is_some_and(|m| m.starts_with("0/32 nodes are available")),
        "{answer:#}"
    );
    let both = kplace(&["place", "--demo", "--snapshot", "x.json", "--pod", "a/b"]);
    assert_eq!(both.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&both.stderr).contains("cannot be used with"));
}

/// Without `--snapshot` or `--demo`, `place` asks the current context's
/// live cluster; with no kubeconfig at all it says so, and what else it reads.
#[test]
fn place_without_a_source_asks_the_current_context_and_says_what_else_it_reads() {
    let home = tempfile::tempdir().unwrap();
    let out = Command::new(env!("CARGO_BIN_EXE_kplace"))
        .args(["place", "--pod", "default/web"])
        .env("HOME", home.path())
        .env("KUBECONFIG", "")
        .env_remove("KUBERNETES_SERVICE_HOST")
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2));
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(err.contains("no kubeconfig found"), "{err}");
    assert!(err.contains("without --snapshot FILE or --demo"), "{err}");
}

/// A `$KUBECONFIG` naming no file that exists is said so, once, with its
/// value: not `kubeconfig: kubeconfig: failed to read …`.
#[test]
fn a_kubeconfig_variable_naming_no_file_is_said_so() {
    let home = tempfile::tempdir().unwrap();
    let missing = home.path().join("no-such-config");
    let run = |args: &[&str]| {
        let out = Command::new(env!("CARGO_BIN_EXE_kplace"))
            .args(args)
            .env("HOME", home.path())
            .env("KUBECONFIG", &missing)
            .env_remove("KUBERNETES_SERVICE_HOST")
            .output()
            .unwrap();
        assert_eq!(out.status.code(), Some(2), "{args:?}");
        String::from_utf8_lossy(&out.stderr).into_owned()
    };
    let said = format!(
        "kubeconfig: $KUBECONFIG names no file that exists ({})",
        missing.display()
    );
    let err = run(&["place", "--pod", "default/web"]);
    assert!(err.contains(&said), "{err}");
    assert!(!err.contains("kubeconfig: kubeconfig"), "{err}");
    // `record` says nothing of recording before it has connected.
    let output = home.path().join("incident.jsonl.gz");
    let err = run(&[
        "record",
        "--duration",
        "10s",
        "-o",
        output.to_str().unwrap(),
    ]);
    assert!(
        err.contains("$KUBECONFIG names no file that exists"),
        "{err}"
    );
    assert!(!err.contains("recording"), "{err}");
    assert!(!output.exists());
}

/// YAML that is not UTF-8 is named with its line and byte; a file named
/// `.gz` that is not gzip (read as plain text) says so beside the error,
/// as a snapshot and as a pod.
#[test]
fn a_file_named_gz_that_is_not_gzip_is_said_so() {
    let dir = tempfile::tempdir().unwrap();
    let plain = dir.path().join("pod.yaml");
    std::fs::write(
        &plain,
        b"apiVersion: v1\nkind: Pod\nmetadata:\n  name: a\xff\n",
    )
    .unwrap();
    let out = kplace(&[
        "place",
        "--snapshot",
        plain.to_str().unwrap(),
        "--pod",
        "default/a",
    ]);
    assert_eq!(out.status.code(), Some(2));
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(
        err.contains(&format!(
            "{}:4: not UTF-8: invalid utf-8 sequence of 1 bytes from index 44",
            plain.display()
        )),
        "{err}"
    );
    assert!(!err.contains("named .gz"), "{err}");
    let misnamed = dir.path().join("cluster.yaml.gz");
    std::fs::copy(&plain, &misnamed).unwrap();
    let hint = format!(
        "({} is named .gz but is not gzip-compressed: it does not start with gzip's bytes 1f 8b, so it was read as plain text)",
        misnamed.display()
    );
    for args in [
        vec![
            "place",
            "--snapshot",
            misnamed.to_str().unwrap(),
            "--pod",
            "default/a",
        ],
        vec!["place", "--demo", "--pod", misnamed.to_str().unwrap()],
    ] {
        let out = kplace(&args);
        assert_eq!(out.status.code(), Some(2), "{args:?}");
        let err = String::from_utf8_lossy(&out.stderr);
        assert!(err.contains(":4: not UTF-8"), "{args:?}: {err}");
        assert!(err.contains(&hint), "{args:?}: {err}");
    }
    // A real gzip file with a bad line is not told it is not gzip.
    let gz = dir.path().join("real.yaml.gz");
    let mut enc = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::fast());
    std::io::Write::write_all(&mut enc, &std::fs::read(&plain).unwrap()).unwrap();
    std::fs::write(&gz, enc.finish().unwrap()).unwrap();
    let out = kplace(&[
        "place",
        "--snapshot",
        gz.to_str().unwrap(),
        "--pod",
        "default/a",
    ]);
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(err.contains(":4: not UTF-8"), "{err}");
    assert!(!err.contains("named .gz"), "{err}");
}

/// A pod already in the cluster is named as kubectl names it: NAMESPACE/NAME,
/// or NAME with `-n NAMESPACE`; a name asked in the wrong namespace (or
/// without one) is refused with the namespaces that hold a pod of that name.
#[test]
fn place_takes_a_pod_name_with_dash_n_and_says_where_a_name_lives() {
    let pod = "frontend-6b8f7c5d4-r6ndz";
    let with_n = kplace(&["place", "--demo", "-n", "shop", "--pod", pod, "-o", "json"]);
    assert!(
        with_n.status.success(),
        "{}",
        String::from_utf8_lossy(&with_n.stderr)
    );
    let answer: serde_json::Value = serde_json::from_slice(&with_n.stdout).unwrap();
    assert_eq!(answer["pod"], format!("shop/{pod}"));
    for args in [
        vec!["place", "--demo", "--pod", pod],
        vec!["place", "--demo", "-n", "default", "--pod", pod],
    ] {
        let out = kplace(&args);
        assert_eq!(out.status.code(), Some(2), "{args:?}");
        let err = String::from_utf8_lossy(&out.stderr);
        assert!(
            err.contains(&format!("pods of that name: shop/{pod}")),
            "{err}"
        );
    }
    let both = kplace(&[
        "place",
        "--demo",
        "-n",
        "lab",
        "--pod",
        &format!("shop/{pod}"),
    ]);
    assert_eq!(both.status.code(), Some(2));
    assert!(
        String::from_utf8_lossy(&both.stderr).contains("names namespace shop, and -n names lab"),
        "{}",
        String::from_utf8_lossy(&both.stderr)
    );
}

/// `-f FILE` and `--filename FILE` take the pod manifest, as kubectl does.
#[test]
fn place_takes_the_manifest_with_dash_f_as_kubectl_does() {
    let dir = tempfile::tempdir().unwrap();
    let pod = dir.path().join("pod.yaml");
    std::fs::write(
        &pod,
        "apiVersion: v1\nkind: Pod\nmetadata:\n  name: a\n  namespace: shop\nspec:\n  containers:\n  - name: c\n    image: x\n    resources:\n      requests:\n        cpu: 100m\n",
    )
    .unwrap();
    let pod = pod.to_str().unwrap();
    let answers: Vec<serde_json::Value> = ["--pod", "-f", "--filename"]
        .iter()
        .map(|flag| {
            let out = kplace(&["place", "--demo", flag, pod, "-o", "json"]);
            assert!(
                out.status.success(),
                "{flag}: {}",
                String::from_utf8_lossy(&out.stderr)
            );
            serde_json::from_slice(&out.stdout).unwrap()
        })
        .collect();
    assert_eq!(answers[0]["pod"], "shop/a");
    assert_eq!(answers[0]["outcome"], "scheduled");
    assert_eq!(answers[1], answers[0]);
    assert_eq!(answers[2], answers[0]);
}
