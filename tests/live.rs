//! Live mode against a loopback fake API server (tests/support): the real
//! kube client, watchers and reflectors run; nothing leaves 127.0.0.1.

mod support;

use std::time::Duration;

use kplace::source::live::{ConnectionState, Kind, LiveOptions, LiveSource, Target};
use serde_json::{Value, json};
use support::{FakeServer, synth_objects, wait_for};

fn options(server: &FakeServer, dir: &std::path::Path) -> LiveOptions {
    LiveOptions {
        target: Target {
            kubeconfig: Some(server.kubeconfig(dir)),
            context: None,
        },
        ..Default::default()
    }
}

fn connect(server: &FakeServer, dir: &std::path::Path) -> LiveSource {
    let live = LiveSource::connect(options(server, dir), None).expect("connect");
    live.wait_synced(Duration::from_secs(10)).expect("synced");
    live
}

fn pod_node(live: &LiveSource, ns: &str, name: &str) -> Option<Option<String>> {
    let (cluster, _) = live.cluster();
    let id = cluster.find_pod(ns, name)?;
    Some(cluster.pod(id).node_name.as_deref().map(str::to_string))
}

fn test_pod(name: &str, node: Option<&str>) -> Value {
    let mut pod = json!({
        "apiVersion": "v1", "kind": "Pod",
        "metadata": {"name": name, "namespace": "default", "uid": format!("uid-{name}")},
        "spec": {"containers": [{"name": "c", "image": "nginx",
                 "resources": {"requests": {"cpu": "100m", "memory": "64Mi"}},
                 "env": [{"name": "PASSWORD", "value": "hunter2"}]}]},
        "status": {"phase": "Pending"}
    });
    if let Some(node) = node {
        pod["spec"]["nodeName"] = json!(node);
        pod["status"]["phase"] = json!("Running");
    }
    pod
}

fn first_node(objects: &[Value]) -> String {
    let mut names: Vec<&str> = objects
        .iter()
        .filter(|o| o["kind"] == "Node")
        .filter_map(|o| o["metadata"]["name"].as_str())
        .collect();
    names.sort();
    names[0].to_string()
}

#[test]
fn initial_sync_builds_the_cluster() {
    let dir = tempfile::tempdir().unwrap();
    let objects = synth_objects(6, 40);
    let server = FakeServer::start(objects.clone());
    let live = connect(&server, dir.path());
    assert_eq!(live.state(), ConnectionState::Live);
    assert_eq!(live.context(), "fake");
    assert!(live.limitations().is_empty());
    let (cluster, invalid) = live.cluster();
    assert!(invalid.is_empty(), "{invalid:?}");
    let nodes = objects.iter().filter(|o| o["kind"] == "Node").count();
    let pods = objects.iter().filter(|o| o["kind"] == "Pod").count();
    assert_eq!(cluster.nodes.len(), nodes);
    assert_eq!(cluster.pods.len(), pods);
    assert!(live.last_event().is_some());
    // Read-only by construction: only GETs reached the server.
    assert!(server.requests().iter().all(|r| r.starts_with("GET ")));
}

#[test]
fn events_apply_in_order_and_notify() {
    let dir = tempfile::tempdir().unwrap();
    let objects = synth_objects(4, 20);
    let node = first_node(&objects);
    let server = FakeServer::start(objects);
    let live = connect(&server, dir.path());
    let mut changes = live.changes();
    changes.changed();
    server.apply(test_pod("late", None));
    server.apply(test_pod("late", Some(&node)));
    server.apply(test_pod("gone", None));
    server.delete("Pod", Some("default"), "gone");
    assert!(wait_for(5, || pod_node(&live, "default", "late")
        == Some(Some(node.clone()))));
    assert!(wait_for(5, || pod_node(&live, "default", "gone").is_none()));
    assert!(changes.changed());
}

#[test]
fn dropped_watch_resumes() {
    let dir = tempfile::tempdir().unwrap();
    let server = FakeServer::start(synth_objects(4, 20));
    let live = connect(&server, dir.path());
    assert!(wait_for(30, || server.open_watches() >= 13));
    server.drop_watches();
    server.apply(test_pod("after-drop", None));
    assert!(wait_for(5, || pod_node(&live, "default", "after-drop").is_some()));
    assert!(wait_for(5, || live.state() == ConnectionState::Live));
    assert_eq!(
        live.relists(),
        0,
        "a dropped watch resumes without a relist"
    );
}

#[test]
fn gone_leads_to_relist() {
    let dir = tempfile::tempdir().unwrap();
    let server = FakeServer::start(synth_objects(4, 20));
    let live = connect(&server, dir.path());
    assert!(wait_for(30, || server.open_watches() >= 13));
    server.compact();
    server.drop_watches();
    server.apply(test_pod("after-gone", None));
    assert!(wait_for(8, || pod_node(&live, "default", "after-gone").is_some()));
    assert!(live.relists() >= 1);
    assert!(wait_for(5, || live.state() == ConnectionState::Live));
}

#[test]
fn forbidden_pdbs_are_a_named_limitation() {
    let dir = tempfile::tempdir().unwrap();
    let objects = synth_objects(4, 20);
    let node = first_node(&objects);
    let server = FakeServer::start(objects);
    server.forbid("PodDisruptionBudget");
    let live = connect(&server, dir.path());
    let limits = live.limitations();
    assert_eq!(limits.len(), 1);
    assert_eq!(limits[0].kind, Kind::PodDisruptionBudget);
    assert_eq!(
        limits[0].message,
        "list/watch on poddisruptionbudgets.policy is forbidden: preemption ignores PDBs"
    );
    let (cluster, _) = live.cluster();
    assert!(cluster.pdbs.is_empty());
    assert!(!cluster.nodes.is_empty());
    server.apply(test_pod("still-works", Some(&node)));
    assert!(wait_for(5, || pod_node(&live, "default", "still-works").is_some()));
}

#[test]
fn server_going_away_is_a_clear_state() {
    let dir = tempfile::tempdir().unwrap();
    let mut server = FakeServer::start(synth_objects(4, 20));
    let live = connect(&server, dir.path());
    server.stop();
    assert!(wait_for(8, || matches!(
        live.state(),
        ConnectionState::Reconnecting { .. }
    )));
    let ConnectionState::Reconnecting { error, .. } = live.state() else {
        unreachable!()
    };
    assert!(error.contains("cannot reach the API server"), "{error}");
    // The last good state is still there.
    assert!(!live.cluster().0.nodes.is_empty());
}

#[test]
fn unreachable_server_fails_fast_for_one_shot_commands() {
    let dir = tempfile::tempdir().unwrap();
    let mut server = FakeServer::start(vec![]);
    let mut opts = options(&server, dir.path());
    server.stop();
    opts.fail_fast = true;
    let live = LiveSource::connect(opts, None).expect("config is fine");
    let err = live.wait_synced(Duration::from_secs(10)).unwrap_err();
    assert!(
        err.to_string()
            .contains("cannot reach the API server at http://127.0.0.1:"),
        "{err}"
    );
}

#[test]
fn invalid_token_is_reported() {
    let dir = tempfile::tempdir().unwrap();
    let server = FakeServer::start(synth_objects(2, 4));
    server.reject_token();
    let live = LiveSource::connect(options(&server, dir.path()), None).unwrap();
    let err = live.wait_synced(Duration::from_secs(10)).unwrap_err();
    assert!(err.to_string().contains("401 Unauthorized"), "{err}");
}

#[test]
fn bad_kubeconfig_is_reported() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("kubeconfig");
    std::fs::write(&path, "this: [is not: a kubeconfig").unwrap();
    let opts = LiveOptions {
        target: Target {
            kubeconfig: Some(path),
            context: None,
        },
        ..Default::default()
    };
    let err = LiveSource::connect(opts, None).err().expect("an error");
    assert!(err.to_string().starts_with("kubeconfig: "), "{err}");
    let server = FakeServer::start(vec![]);
    let opts = LiveOptions {
        target: Target {
            kubeconfig: Some(server.kubeconfig(dir.path())),
            context: Some("nope".into()),
        },
        ..Default::default()
    };
    let err = LiveSource::connect(opts, None).err().expect("an error");
    assert!(err.to_string().contains("no context \"nope\""), "{err}");
}

mod recording {
    use super::*;
    use kplace::source::record::{RecordOptions, record};
    use kplace::source::timeline::{Timeline, is_timeline};
    use std::collections::BTreeMap;
    use std::io::Read;
    use std::path::Path;
    use std::sync::Arc;
    use std::sync::atomic::AtomicBool;

    fn record_options(
        server: &FakeServer,
        dir: &Path,
        out: &str,
        duration: Option<Duration>,
    ) -> RecordOptions {
        RecordOptions {
            target: Target {
                kubeconfig: Some(server.kubeconfig(dir)),
                context: None,
            },
            output: dir.join(out),
            duration,
            sync_timeout: Duration::from_secs(10),
            stop: Arc::new(AtomicBool::new(false)),
            force: false,
            progress: None,
            keep: Default::default(),
        }
    }

    fn place_json(snapshot: &Path, pod: &Path) -> Value {
        place_json_with(snapshot, pod, &[])
    }

    fn place_json_with(snapshot: &Path, pod: &Path, extra: &[&str]) -> Value {
        let mut args: Vec<&std::ffi::OsStr> = vec!["--snapshot".as_ref(), snapshot.as_ref()];
        args.extend(["--pod".as_ref(), pod.as_os_str()]);
        args.extend(extra.iter().map(std::ffi::OsStr::new));
        place_json_of(&args)
    }

    /// `kplace place ARGS -o json`, which must succeed: its answer.
    fn place_json_of(args: &[&std::ffi::OsStr]) -> Value {
        let out = place(args, &["-o", "json"]);
        assert!(
            out.status.success(),
            "{}",
            String::from_utf8_lossy(&out.stderr)
        );
        serde_json::from_slice(&out.stdout).unwrap()
    }

    fn place(args: &[&std::ffi::OsStr], more: &[&str]) -> std::process::Output {
        std::process::Command::new(env!("CARGO_BIN_EXE_kplace"))
            .arg("place")
            .args(args)
            .args(more)
            .output()
            .expect("run kplace")
    }

    fn read_text(path: &Path) -> String {
        let raw = std::fs::read(path).unwrap();
        let mut text = String::new();
        if raw.starts_with(&[0x1f, 0x8b]) {
            flate2::read::MultiGzDecoder::new(&raw[..])
                .read_to_string(&mut text)
                .unwrap();
        } else {
            text = String::from_utf8(raw).unwrap();
        }
        text
    }

    #[test]
    fn a_recording_keeps_dra_objects_and_pod_claims_and_answers_the_same() {
        let dir = tempfile::tempdir().unwrap();
        let server = FakeServer::start(super::case_objects("dra-020"));
        server.set_version(Some("v1.34.1"));
        let opts = record_options(&server, dir.path(), "dra.json", None);
        record(&opts).expect("record");
        let list: Value = serde_json::from_str(&read_text(&opts.output)).unwrap();
        let kinds: std::collections::BTreeSet<&str> = list["items"]
            .as_array()
            .unwrap()
            .iter()
            .filter_map(|o| o["kind"].as_str())
            .collect();
        for kind in ["DeviceClass", "ResourceSlice", "ResourceClaim"] {
            assert!(kinds.contains(kind), "{kind} missing from {kinds:?}");
        }
        let incoming = list["items"]
            .as_array()
            .unwrap()
            .iter()
            .find(|o| o["kind"] == "Pod" && o["metadata"]["name"] == "infer-ctxzjt5gj-w88mx")
            .expect("the pending pod is recorded");
        assert_eq!(
            incoming["spec"]["resourceClaims"][0]["resourceClaimName"],
            "infer-gpu-x4xpm"
        );
        let case = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/conformance/cases/dra-020");
        let from_recording = place_json(&opts.output, &case.join("pod.yaml"));
        // The case's nodes run v1.30 kubelets: ask for v1.34 as recorded.
        let from_case = place_json_with(
            &case.join("snapshot.yaml.gz"),
            &case.join("pod.yaml"),
            &["--scheduler-version", "1.34"],
        );
        assert_eq!(from_recording["schedulerVersion"], "1.34");
        assert_eq!(from_recording["outcome"], "unschedulable");
        assert_eq!(from_recording["message"], from_case["message"]);
        assert_eq!(
            from_recording["deviceAvailability"], from_case["deviceAvailability"],
            "the recording sees the same devices and holders"
        );
    }

    /// `place` asks a live cluster directly (`kubectl kplace place --pod
    /// NS/NAME`), and answers as it would from a recording of it, with the
    /// API server's version chosen and said.
    #[test]
    fn place_asks_a_live_cluster_as_it_would_a_recording_of_it() {
        let dir = tempfile::tempdir().unwrap();
        let mut objects = synth_objects(6, 40);
        objects.push(test_pod("incoming", None));
        let server = FakeServer::start(objects);
        server.set_version(Some("v1.32.2"));
        let opts = record_options(&server, dir.path(), "snap.json", None);
        record(&opts).expect("record");
        let recorded = place_json(&opts.output, Path::new("default/incoming"));
        let kubeconfig = server.kubeconfig(dir.path());
        let live = place_json_of(&[
            "--kubeconfig".as_ref(),
            kubeconfig.as_ref(),
            "--pod".as_ref(),
            "default/incoming".as_ref(),
        ]);
        assert_eq!(live["schedulerVersion"], "1.32");
        assert_eq!(live["schedulerVersionSource"]["kind"], "api-server");
        assert_eq!(
            live["schedulerVersionSource"]["reason"],
            "the API server reports v1.32.2"
        );
        assert_eq!(live["outcome"], "scheduled", "{live:#}");
        for field in ["outcome", "node", "feasibleNodes", "bestNodes", "message"] {
            assert_eq!(live[field], recorded[field], "{field}");
        }
        // A pod the cluster does not hold is named as missing from it.
        let out = place(
            &["--kubeconfig".as_ref(), kubeconfig.as_ref()],
            &["--pod", "default/nope"],
        );
        assert_eq!(out.status.code(), Some(2));
        assert!(
            String::from_utf8_lossy(&out.stderr)
                .contains("no pod nope in namespace default in the cluster"),
            "{}",
            String::from_utf8_lossy(&out.stderr)
        );
    }

    #[test]
    fn recorded_snapshot_answers_like_the_servers_objects() {
        let dir = tempfile::tempdir().unwrap();
        let mut objects = synth_objects(6, 40);
        let mut secret_pod = test_pod("with-secret", None);
        secret_pod["metadata"]["managedFields"] =
            json!([{"manager": "kubectl", "operation": "Apply"}]);
        secret_pod["metadata"]["annotations"] = json!({
            "kubectl.kubernetes.io/last-applied-configuration": "{\"secret\":\"hunter2\"}",
            "team": "payments"});
        objects.push(secret_pod);
        let server = FakeServer::start(objects);
        for out in ["snap.json", "snap.json.gz"] {
            let opts = record_options(&server, dir.path(), out, None);
            let summary = record(&opts).expect("record");
            assert!(summary.objects > 40);
            let text = read_text(&opts.output);
            assert!(
                !text.contains("hunter2"),
                "env value or last-applied leaked"
            );
            assert!(!text.contains("managedFields"));
            assert!(text.contains("\"PASSWORD\""), "env names are kept");
            assert!(
                !text.contains("\"team\""),
                "annotations the scheduler does not read are removed"
            );
            let list: Value = serde_json::from_str(&text).unwrap();
            assert_eq!(list["kind"], "List");
            let ann = &list["metadata"]["annotations"];
            assert_eq!(ann["kplace.io/context"], "fake");
            assert_eq!(
                ann["kplace.io/server-version"],
                support::DEFAULT_GIT_VERSION
            );
            assert!(
                ann["kplace.io/recorded-at"]
                    .as_str()
                    .is_some_and(|s| s.len() > 10)
            );
        }
        let plain = dir.path().join("plain.json");
        std::fs::write(&plain, server.list_json().to_string()).unwrap();
        let pod = dir.path().join("pod.json");
        std::fs::write(&pod, test_pod("incoming", None).to_string()).unwrap();
        // The same answer, except for which release answered and why: the
        // recording stored the server's version; the plain List has none, so
        // its newest kubelet (the synthetic nodes' v1.30.0-eks) decides.
        let without_version = |mut v: Value| {
            let m = v.as_object_mut().unwrap();
            let version = (
                m.remove("schedulerVersion").unwrap(),
                m.remove("schedulerVersionSource").unwrap()["kind"].clone(),
            );
            (v, version)
        };
        let (expected, plain_version) = without_version(place_json(&plain, &pod));
        assert_eq!(plain_version, (json!("1.30"), json!("newest-kubelet")));
        for snap in ["snap.json", "snap.json.gz"] {
            let (got, version) = without_version(place_json(&dir.path().join(snap), &pod));
            assert_eq!(got, expected, "{snap}");
            assert_eq!(version, (json!("1.33"), json!("recording")), "{snap}");
        }
        assert!(!is_timeline(&dir.path().join("snap.json.gz")));
    }

    /// The state by hand: initial objects, then each event applied in order.
    fn by_hand(text: &str, n: usize) -> (Vec<String>, Vec<(String, Option<String>)>) {
        let mut lines = text.lines();
        let header: Value = serde_json::from_str(lines.next().unwrap()).unwrap();
        let initial = header["initialObjects"].as_u64().unwrap() as usize;
        let mut objects: BTreeMap<(String, String, String), Value> = BTreeMap::new();
        for (i, line) in lines.enumerate() {
            if i >= initial + n {
                break;
            }
            let l: Value = serde_json::from_str(line).unwrap();
            let o = &l["object"];
            let key = (
                o["kind"].as_str().unwrap_or("").to_string(),
                o["metadata"]["namespace"]
                    .as_str()
                    .unwrap_or("")
                    .to_string(),
                o["metadata"]["name"].as_str().unwrap_or("").to_string(),
            );
            match l["type"].as_str() {
                Some("DELETED") => {
                    objects.remove(&key);
                }
                Some("END") => {}
                _ => {
                    objects.insert(key, o.clone());
                }
            }
        }
        let mut nodes = Vec::new();
        let mut pods = Vec::new();
        for ((kind, ns, name), o) in &objects {
            match kind.as_str() {
                "Node" => nodes.push(name.clone()),
                "Pod" => pods.push((
                    format!("{ns}/{name}"),
                    o["spec"]["nodeName"].as_str().map(str::to_string),
                )),
                _ => {}
            }
        }
        (nodes, pods)
    }

    fn from_cluster(c: &kplace::model::Cluster) -> (Vec<String>, Vec<(String, Option<String>)>) {
        let mut nodes: Vec<String> = c.nodes.iter().map(|n| n.name.to_string()).collect();
        nodes.sort();
        let mut pods: Vec<(String, Option<String>)> = (0..c.pods.len() as u32)
            .map(|id| {
                (
                    c.pod_key(id),
                    c.pod(id).node_name.as_deref().map(str::to_string),
                )
            })
            .collect();
        pods.sort();
        (nodes, pods)
    }

    #[test]
    fn timeline_replays_to_any_moment() {
        let dir = tempfile::tempdir().unwrap();
        let objects = synth_objects(4, 20);
        let node = first_node(&objects);
        let server = Arc::new(FakeServer::start(objects));
        let opts = record_options(
            &server,
            dir.path(),
            "tl.jsonl.gz",
            Some(Duration::from_millis(2500)),
        );
        let driver = {
            let server = server.clone();
            let node = node.clone();
            std::thread::spawn(move || {
                std::thread::sleep(Duration::from_millis(700));
                for i in 0..5 {
                    server.apply(test_pod(&format!("p{i}"), None));
                    std::thread::sleep(Duration::from_millis(30));
                    server.apply(test_pod(&format!("p{i}"), Some(&node)));
                }
                server.delete("Pod", Some("default"), "p0");
                server.compact();
                server.drop_watches();
                server.apply(test_pod("after-relist", None));
            })
        };
        let summary = record(&opts).expect("record timeline");
        driver.join().unwrap();
        assert!(summary.events >= 11, "events: {}", summary.events);
        assert!(is_timeline(&opts.output));
        let timeline = Timeline::load(&opts.output).expect("load");
        assert!(timeline.invalid.is_empty(), "{:?}", timeline.invalid);
        let text = read_text(&opts.output);
        assert!(!text.contains("hunter2"));
        for n in 0..=timeline.len() {
            assert_eq!(
                from_cluster(&timeline.state_after(n)),
                by_hand(&text, n),
                "after {n} events"
            );
        }
        let d = timeline.diff(0, timeline.len());
        assert!(d.added.contains(&"default/p1".to_string()));
        assert!(d.added.contains(&"default/after-relist".to_string()));
        assert!(!d.added.contains(&"default/p0".to_string()));
        // Moments by time: the end is the final state.
        assert_eq!(
            from_cluster(&timeline.state_at(timeline.end_ms)),
            by_hand(&text, timeline.len())
        );
    }

    /// `kplace` with these arguments: (exit code, stdout, stderr).
    fn run(args: &[&std::ffi::OsStr]) -> (Option<i32>, String, String) {
        let out = std::process::Command::new(env!("CARGO_BIN_EXE_kplace"))
            .args(args)
            .output()
            .expect("run kplace");
        (
            out.status.code(),
            String::from_utf8_lossy(&out.stdout).into_owned(),
            String::from_utf8_lossy(&out.stderr).into_owned(),
        )
    }

    #[test]
    fn a_recording_keeps_the_server_version_and_verify_answers_as_it() {
        let dir = tempfile::tempdir().unwrap();
        let server = FakeServer::start(synth_objects(4, 20));
        // Older than kplace knows: clamped to 1.30, and it says so.
        server.set_version(Some("v1.29.2"));
        let opts = record_options(
            &server,
            dir.path(),
            "tl.jsonl.gz",
            Some(Duration::from_millis(300)),
        );
        record(&opts).expect("record timeline");
        let timeline = Timeline::load(&opts.output).expect("load");
        assert_eq!(timeline.header.server_version.as_deref(), Some("v1.29.2"));
        let choice = kplace::verify::scheduler_for(&timeline, None).version;
        assert_eq!(choice.version, kplace::engine::Version::V1_30);
        assert!(choice.clamped);

        let path = opts.output.as_os_str();
        let (code, out, err) = run(&["verify".as_ref(), path, "-o".as_ref(), "json".as_ref()]);
        assert_eq!(code, Some(0), "{err}");
        let report: Value = serde_json::from_str(&out).unwrap();
        assert_eq!(report["schedulerVersion"], "1.30");
        assert_eq!(report["schedulerVersionSource"]["kind"], "recording");
        assert_eq!(report["schedulerVersionSource"]["clamped"], true);
        assert_eq!(
            report["schedulerVersionSource"]["reason"],
            "the recording's API server reported v1.29.2; kplace supports 1.30–1.34 and uses the nearest, 1.30"
        );
        let (code, out, err) = run(&["verify".as_ref(), path]);
        assert_eq!(code, Some(0), "{err}");
        assert!(
            out.starts_with("kube-scheduler v1.30 rules (the recording's API server reported v1.29.2; kplace supports 1.30–1.34 and uses the nearest, 1.30)\n"),
            "{out}"
        );
        // The flag overrides the recording.
        let (code, out, err) = run(&[
            "verify".as_ref(),
            path,
            "--scheduler-version".as_ref(),
            "1.32".as_ref(),
            "-o".as_ref(),
            "json".as_ref(),
        ]);
        assert_eq!(code, Some(0), "{err}");
        let report: Value = serde_json::from_str(&out).unwrap();
        assert_eq!(report["schedulerVersion"], "1.32");
        assert_eq!(report["schedulerVersionSource"]["kind"], "flag");
    }

    #[test]
    fn a_server_without_version_records_none_and_says_so() {
        let dir = tempfile::tempdir().unwrap();
        let server = FakeServer::start(synth_objects(3, 10));
        server.set_version(None);
        let opts = record_options(&server, dir.path(), "snap.json", None);
        let summary = record(&opts).expect("record");
        assert!(
            summary
                .limitations
                .iter()
                .any(|l| l.starts_with("the API server's /version could not be read")),
            "{:?}",
            summary.limitations
        );
        let list: Value = serde_json::from_str(&read_text(&opts.output)).unwrap();
        assert!(list["metadata"]["annotations"]["kplace.io/server-version"].is_null());
        // Loading it answers as the newest kubelet instead.
        let (cluster, _) = kplace::source::file::load_snapshot(&opts.output).unwrap();
        assert_eq!(cluster.recorded_server_version, None);
        let server_version = kplace::source::version::ServerVersion::of_recording(&cluster);
        let choice = kplace::source::version::choose(None, &server_version, &cluster);
        assert_eq!(choice.source_kind(), "newest-kubelet");
    }

    /// Objects with a planted secret in every place a recording must not
    /// carry one by default; each secret is `SECRET-<where>`.
    fn objects_with_planted_secrets() -> Vec<Value> {
        let mut objects = synth_objects(3, 5);
        let probe_http = |header: &str, query: &str| {
            json!({"httpGet": {"port": 8080, "path": format!("/healthz?token={query}"),
                "httpHeaders": [{"name": "Authorization", "value": format!("Bearer {header}")}]}})
        };
        let container = json!({
            "name": "app", "image": "nginx",
            "resources": {"requests": {"cpu": "100m", "memory": "64Mi"}},
            "command": ["sh", "-c", "SECRET-COMMAND"],
            "args": ["--token=SECRET-ARGS"],
            "env": [{"name": "PASSWORD", "value": "SECRET-ENV-VALUE"},
                    {"name": "FROM", "valueFrom": {"secretKeyRef": {"name": "SECRET-ENV-REF", "key": "k"}}}],
            "envFrom": [{"secretRef": {"name": "SECRET-ENVFROM-SECRET"}},
                        {"configMapRef": {"name": "SECRET-ENVFROM-CONFIGMAP"}}],
            "livenessProbe": probe_http("SECRET-PROBE-HEADER", "SECRET-PROBE-QUERY"),
            "readinessProbe": {"exec": {"command": ["check", "SECRET-PROBE-EXEC"]}},
            "lifecycle": {
                "postStart": probe_http("SECRET-HOOK-HEADER", "SECRET-HOOK-QUERY"),
                "preStop": {"exec": {"command": ["SECRET-HOOK-EXEC"]}}
            }
        });
        let pod_spec = json!({
            "containers": [container],
            "initContainers": [{"name": "init", "image": "busybox", "args": ["SECRET-INIT-ARGS"]}],
            "imagePullSecrets": [{"name": "SECRET-PULL-SECRET"}],
            "volumes": [
                {"name": "s", "secret": {"secretName": "SECRET-VOLUME-SECRET"}},
                {"name": "c", "configMap": {"name": "SECRET-VOLUME-CONFIGMAP"}},
                {"name": "p", "projected": {"sources": [
                    {"secret": {"name": "SECRET-PROJECTED-SECRET"}},
                    {"configMap": {"name": "SECRET-PROJECTED-CONFIGMAP"}}]}},
                {"name": "v", "csi": {"driver": "vault.csi.example.com",
                    "volumeAttributes": {"roleToken": "SECRET-CSI-ATTRIBUTE"},
                    "nodePublishSecretRef": {"name": "SECRET-CSI-SECRET-REF"}}}
            ]
        });
        objects.push(json!({
            "apiVersion": "v1", "kind": "Pod",
            "metadata": {"name": "planted", "namespace": "default", "uid": "uid-planted",
                "annotations": {"team/token": "SECRET-POD-ANNOTATION",
                                "cluster-autoscaler.kubernetes.io/safe-to-evict": "true"}},
            "spec": pod_spec.clone(),
            "status": {"phase": "Pending", "message": "SECRET-STATUS-MESSAGE",
                "conditions": [{"type": "PodScheduled", "status": "False",
                                "reason": "Unschedulable", "message": "SECRET-CONDITION-MESSAGE"}],
                "containerStatuses": [{"name": "app", "image": "nginx", "imageID": "", "ready": false,
                    "restartCount": 1,
                    "lastState": {"terminated": {"exitCode": 1, "message": "SECRET-TERMINATION-MESSAGE"}}}]}
        }));
        objects.push(json!({
            "apiVersion": "apps/v1", "kind": "ReplicaSet",
            "metadata": {"name": "planted-rs", "namespace": "default", "uid": "uid-planted-rs",
                "annotations": {"deployment.kubernetes.io/revision": "SECRET-RS-ANNOTATION"}},
            "spec": {"replicas": 1, "selector": {"matchLabels": {"app": "planted"}},
                "template": {"metadata": {"labels": {"app": "planted"},
                                          "annotations": {"vault/secret": "SECRET-TEMPLATE-ANNOTATION"}},
                             "spec": pod_spec}}
        }));
        objects.push(json!({
            "apiVersion": "v1", "kind": "PersistentVolume",
            "metadata": {"name": "planted-pv", "uid": "uid-planted-pv"},
            "spec": {"capacity": {"storage": "1Gi"}, "accessModes": ["ReadWriteOnce"],
                "csi": {"driver": "ebs.csi.aws.com", "volumeHandle": "vol-1",
                        "volumeAttributes": {"key": "SECRET-PV-ATTRIBUTE"},
                        "nodeStageSecretRef": {"name": "SECRET-PV-SECRET-REF", "namespace": "default"}}},
            "status": {"phase": "Failed", "message": "SECRET-PV-MESSAGE"}
        }));
        objects.push(json!({
            "apiVersion": "storage.k8s.io/v1", "kind": "StorageClass",
            "metadata": {"name": "planted-sc", "uid": "uid-planted-sc"},
            "provisioner": "ebs.csi.aws.com",
            "parameters": {"csi.storage.k8s.io/provisioner-secret-name": "SECRET-SC-PARAMETER"}
        }));
        objects
    }

    /// The `SECRET-…` markers in `text`.
    fn planted(text: &str) -> std::collections::BTreeSet<String> {
        text.match_indices("SECRET-")
            .map(|(i, _)| {
                text[i..]
                    .chars()
                    .take_while(|c| c.is_ascii_uppercase() || *c == '-')
                    .collect()
            })
            .collect()
    }

    #[test]
    fn a_recording_carries_none_of_the_planted_secrets() {
        let dir = tempfile::tempdir().unwrap();
        let server = FakeServer::start(objects_with_planted_secrets());
        // Sanity: the server serves every secret planted.
        let served = planted(&server.list_json().to_string());
        assert!(served.len() >= 30, "{served:?}");

        for out in ["snap.json", "timeline.jsonl.gz"] {
            let duration = out.contains("timeline").then(|| Duration::from_millis(300));
            let opts = record_options(&server, dir.path(), out, duration);
            record(&opts).expect("record");
            let text = read_text(&opts.output);
            assert_eq!(planted(&text), Default::default(), "{out} leaks");
            // What the scheduler reads is still there.
            assert!(text.contains("planted"), "{out}");
            assert!(text.contains("cluster-autoscaler.kubernetes.io/safe-to-evict"));
            assert!(text.contains("\"PASSWORD\""), "env names stay");
            assert!(
                text.contains("vault.csi.example.com"),
                "the CSI driver stays"
            );
        }
        let (cluster, _) =
            kplace::source::file::load_snapshot(&dir.path().join("snap.json")).expect("loads");
        assert!(cluster.find_pod("default", "planted").is_some());
    }

    #[test]
    fn keep_names_what_a_recording_deliberately_keeps() {
        let dir = tempfile::tempdir().unwrap();
        let server = FakeServer::start(objects_with_planted_secrets());
        let mut opts = record_options(&server, dir.path(), "kept.json", None);
        opts.keep.add("args");
        opts.keep.add("annotations");
        record(&opts).expect("record");
        let text = read_text(&opts.output);
        let kept = planted(&text);
        let expected: std::collections::BTreeSet<String> = [
            "SECRET-ARGS",
            "SECRET-COMMAND",
            "SECRET-INIT-ARGS",
            "SECRET-PROBE-EXEC",
            "SECRET-HOOK-EXEC",
            "SECRET-POD-ANNOTATION",
            "SECRET-RS-ANNOTATION",
            "SECRET-TEMPLATE-ANNOTATION",
        ]
        .into_iter()
        .map(String::from)
        .collect();
        assert_eq!(kept, expected);
        let list: Value = serde_json::from_str(&text).unwrap();
        assert_eq!(
            list["metadata"]["annotations"]["kplace.io/redaction-kept"],
            "args,annotations"
        );
        // The CLI refuses a category it does not know.
        let out = std::process::Command::new(env!("CARGO_BIN_EXE_kplace"))
            .args(["record", "-o", "x.json", "--keep", "args,passwords"])
            .output()
            .unwrap();
        assert_eq!(out.status.code(), Some(2));
        let stderr = String::from_utf8_lossy(&out.stderr);
        assert!(stderr.contains("\"passwords\": not a category"), "{stderr}");
    }

    /// `kplace record` as a process, with its stderr lines sent to a channel.
    fn spawn_record(
        server: &FakeServer,
        dir: &Path,
        args: &[&str],
    ) -> (std::process::Child, std::sync::mpsc::Receiver<String>) {
        use std::io::BufRead;
        let mut child = std::process::Command::new(env!("CARGO_BIN_EXE_kplace"))
            .arg("record")
            .arg("--kubeconfig")
            .arg(server.kubeconfig(dir))
            .args(args)
            .stderr(std::process::Stdio::piped())
            .spawn()
            .expect("run kplace record");
        let stderr = child.stderr.take().unwrap();
        let (tx, rx) = std::sync::mpsc::channel();
        std::thread::spawn(move || {
            for line in std::io::BufReader::new(stderr)
                .lines()
                .map_while(Result::ok)
            {
                let _ = tx.send(line);
            }
        });
        (child, rx)
    }

    /// Waits for a stderr line containing `needle`; the lines so far on failure.
    fn wait_line(rx: &std::sync::mpsc::Receiver<String>, needle: &str, seen: &mut Vec<String>) {
        let deadline = std::time::Instant::now() + Duration::from_secs(30);
        while !seen.iter().any(|l| l.contains(needle)) {
            let left = deadline.saturating_duration_since(std::time::Instant::now());
            match rx.recv_timeout(left) {
                Ok(line) => seen.push(line),
                Err(_) => panic!("kplace record never said {needle:?}; stderr: {seen:#?}"),
            }
        }
    }

    fn wait_exit(child: &mut std::process::Child) -> std::process::ExitStatus {
        let deadline = std::time::Instant::now() + Duration::from_secs(30);
        loop {
            if let Some(status) = child.try_wait().unwrap() {
                return status;
            }
            if std::time::Instant::now() > deadline {
                let _ = child.kill();
                panic!("kplace record did not exit after the signal");
            }
            std::thread::sleep(Duration::from_millis(20));
        }
    }

    fn stray_files(dir: &Path) -> Vec<String> {
        std::fs::read_dir(dir)
            .unwrap()
            .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
            .filter(|n| n.ends_with(".part"))
            .collect()
    }

    /// SIGTERM and SIGINT during `record --duration 60s` finish the timeline:
    /// the file exists under its name, its gzip stream is whole, it ends with
    /// the END line, holds the event seen before the signal, and loads.
    #[test]
    fn a_signal_during_a_timeline_recording_leaves_a_complete_file() {
        for signal in ["TERM", "INT"] {
            let dir = tempfile::tempdir().unwrap();
            let objects = synth_objects(3, 10);
            let initial = objects.len();
            let server = FakeServer::start(objects);
            let out = dir.path().join("incident.jsonl.gz");
            let (mut child, rx) = spawn_record(
                &server,
                dir.path(),
                &["-o", out.to_str().unwrap(), "--duration", "60s"],
            );
            let mut seen = Vec::new();
            wait_line(&rx, "recording watch events", &mut seen);
            // Said once connected, not before: first the connection, then
            // where and how long it records.
            assert!(seen[0].starts_with("connected to "), "{seen:?}");
            let recording = seen
                .iter()
                .find(|l| l.contains("recording watch events"))
                .unwrap();
            assert!(
                recording.contains(&format!("to {} for 60 s", out.display())),
                "{recording}"
            );
            assert!(!out.exists(), "the final name appears only when complete");
            server.apply(test_pod("arrived-while-recording", None));
            // Let the watch event reach the file.
            std::thread::sleep(Duration::from_millis(1500));
            let status = std::process::Command::new("kill")
                .arg(format!("-{signal}"))
                .arg(child.id().to_string())
                .status()
                .unwrap();
            assert!(status.success());
            let status = wait_exit(&mut child);
            while let Ok(line) = rx.recv_timeout(Duration::from_secs(5)) {
                seen.push(line);
            }
            assert!(status.success(), "SIG{signal}: {status}; stderr: {seen:#?}");
            assert!(
                seen.iter()
                    .any(|l| l.contains(&format!("stopped by SIG{signal}"))),
                "{seen:#?}"
            );
            let text = read_text(&out);
            let last: Value = serde_json::from_str(text.lines().last().unwrap()).unwrap();
            assert_eq!(last["type"], "END", "SIG{signal}: the END line is written");
            assert!(
                text.contains("arrived-while-recording"),
                "SIG{signal}: the event before the signal is recorded"
            );
            let timeline = Timeline::load(&out).expect("the recording loads");
            assert_eq!(timeline.header.initial_objects, initial);
            assert!(!timeline.is_empty());
            assert_eq!(stray_files(dir.path()), Vec::<String>::new());
        }
    }

    #[test]
    fn record_refuses_an_existing_file_unless_forced() {
        let dir = tempfile::tempdir().unwrap();
        let server = FakeServer::start(synth_objects(3, 10));
        let out = dir.path().join("cluster.json");
        std::fs::write(&out, "precious").unwrap();
        let run = |extra: &[&str]| {
            std::process::Command::new(env!("CARGO_BIN_EXE_kplace"))
                .arg("record")
                .arg("--kubeconfig")
                .arg(server.kubeconfig(dir.path()))
                .arg("-o")
                .arg(&out)
                .args(extra)
                .output()
                .unwrap()
        };
        let refused = run(&[]);
        let stderr = String::from_utf8_lossy(&refused.stderr);
        assert_eq!(refused.status.code(), Some(2), "{stderr}");
        assert!(stderr.contains("cluster.json already exists"), "{stderr}");
        assert!(stderr.contains("--force"), "{stderr}");
        assert_eq!(std::fs::read_to_string(&out).unwrap(), "precious");
        // The same for a timeline.
        let refused = run(&["--duration", "1s"]);
        assert_eq!(refused.status.code(), Some(2));
        assert_eq!(std::fs::read_to_string(&out).unwrap(), "precious");

        let forced = run(&["--force"]);
        assert!(
            forced.status.success(),
            "{}",
            String::from_utf8_lossy(&forced.stderr)
        );
        let list: Value = serde_json::from_str(&read_text(&out)).unwrap();
        assert_eq!(list["kind"], "List");
        assert_eq!(stray_files(dir.path()), Vec::<String>::new());
    }

    #[test]
    fn a_recording_that_fails_leaves_no_file_behind() {
        let dir = tempfile::tempdir().unwrap();
        let server = FakeServer::start(synth_objects(2, 2));
        let opts = RecordOptions {
            output: dir.path().join("no-such-dir").join("x.json"),
            ..record_options(&server, dir.path(), "unused.json", None)
        };
        let err = record(&opts).expect_err("the directory does not exist");
        assert!(err.to_string().contains("x.json"), "{err}");
        let names: Vec<_> = std::fs::read_dir(dir.path())
            .unwrap()
            .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
            .filter(|n| n != "kubeconfig" && !n.ends_with(".yaml"))
            .collect();
        assert_eq!(names, Vec::<String>::new());
    }
}

#[test]
fn the_live_server_version_is_read_and_chosen() {
    use kplace::engine::{Version, VersionSource};
    use kplace::source::version::{ServerVersion, choose};
    let dir = tempfile::tempdir().unwrap();
    for (git, want, clamped) in [
        ("v1.32.7+k3s1", Version::V1_32, false),
        ("v1.29.2", Version::V1_30, true),
        ("v1.36.0-gke.100", Version::V1_34, true),
    ] {
        let server = FakeServer::start(synth_objects(3, 10));
        server.set_version(Some(git));
        let live = connect(&server, dir.path());
        let reported = live.wait_server_version(Duration::from_secs(10));
        assert_eq!(reported, ServerVersion::Live(git.to_string()));
        let (cluster, _) = live.cluster();
        let choice = choose(None, &reported, &cluster);
        assert_eq!((choice.version, choice.clamped), (want, clamped), "{git}");
        assert_eq!(
            choice.source,
            VersionSource::ApiServer {
                reported: git.to_string()
            }
        );
        if clamped {
            assert!(
                choice.reason().starts_with(&format!(
                    "the API server reports {git}; kplace supports 1.30–1.34 and uses the nearest, "
                )),
                "{}",
                choice.reason()
            );
        }
        assert!(server.requests().contains(&"GET /version?".to_string()));
        assert!(server.requests().iter().all(|r| r.starts_with("GET ")));
    }
    // /version failing: the nodes' kubelets decide, and the note says why.
    let server = FakeServer::start(synth_objects(3, 10));
    server.set_version(None);
    let live = connect(&server, dir.path());
    let reported = live.wait_server_version(Duration::from_secs(10));
    assert!(
        matches!(reported, ServerVersion::LiveFailed(_)),
        "{reported:?}"
    );
    let (cluster, _) = live.cluster();
    let choice = choose(None, &reported, &cluster);
    assert_eq!(choice.source_kind(), "newest-kubelet");
    let note = reported.note(&choice).unwrap();
    assert!(
        note.starts_with("the API server's /version could not be read ("),
        "{note}"
    );
}

#[test]
fn large_lists_arrive_in_pages() {
    let dir = tempfile::tempdir().unwrap();
    let objects = synth_objects(20, 1_200);
    let pods = objects.iter().filter(|o| o["kind"] == "Pod").count();
    let server = FakeServer::start(objects);
    let live = connect(&server, dir.path());
    let (cluster, _) = live.cluster();
    assert_eq!(cluster.pods.len(), pods);
    let pod_lists = server
        .requests()
        .iter()
        .filter(|r| r.starts_with("GET /api/v1/pods") && !r.contains("watch=true"))
        .count();
    assert!(
        pod_lists >= 3,
        "{pods} pods should take several pages of 500"
    );
}

#[test]
fn forbidden_persistent_volumes_are_a_named_limitation() {
    let dir = tempfile::tempdir().unwrap();
    let mut objects = synth_objects(4, 20);
    objects.push(json!({
        "apiVersion": "v1", "kind": "PersistentVolume",
        "metadata": {"name": "pv-data"},
        "spec": {"capacity": {"storage": "1Gi"}, "accessModes": ["ReadWriteOnce"],
                 "claimRef": {"namespace": "default", "name": "data"}},
        "status": {"phase": "Bound"}
    }));
    objects.push(json!({
        "apiVersion": "v1", "kind": "PersistentVolumeClaim",
        "metadata": {"name": "data", "namespace": "default",
                     "annotations": {"pv.kubernetes.io/bind-completed": "yes"}},
        "spec": {"accessModes": ["ReadWriteOnce"], "volumeName": "pv-data",
                 "resources": {"requests": {"storage": "1Gi"}}},
        "status": {"phase": "Bound"}
    }));
    let mut pod = test_pod("with-claim", None);
    pod["spec"]["volumes"] =
        json!([{"name": "data", "persistentVolumeClaim": {"claimName": "data"}}]);
    objects.push(pod);
    let server = FakeServer::start(objects);
    server.forbid("PersistentVolume");
    let live = connect(&server, dir.path());
    let limits = live.limitations();
    assert_eq!(limits.len(), 1);
    assert_eq!(limits[0].kind, Kind::PersistentVolume);
    assert_eq!(
        limits[0].message,
        "list/watch on persistentvolumes is forbidden: bound claims look bound to missing PersistentVolumes, and unbound ones find no volume to bind"
    );
    let (cluster, _) = live.cluster();
    assert!(cluster.storage.volumes.is_empty());
    assert!(
        cluster
            .storage
            .claim(cluster.interner.lookup("default").unwrap(), "data")
            .is_some()
    );
    // The pod's bound claim points at a volume kplace cannot see: the
    // answer names it as missing.
    let id = cluster
        .find_pod("default", "with-claim")
        .expect("the pod synced");
    let answer =
        kplace::engine::place_existing(&cluster, id, &kplace::engine::Scheduler::default());
    assert!(answer.node.is_none(), "{}", answer.message);
    assert!(
        answer
            .message
            .contains("persistentvolume \"pv-data\" not found"),
        "{}",
        answer.message
    );
}

/// The items of a conformance case's snapshot, and its incoming pod
/// (pending, with a uid), as objects the fake API server serves.
fn case_objects(case: &str) -> Vec<Value> {
    use std::io::Read;
    let dir = std::path::Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("tests/conformance/cases")
        .join(case);
    let mut text = String::new();
    flate2::read::GzDecoder::new(std::fs::File::open(dir.join("snapshot.yaml.gz")).unwrap())
        .read_to_string(&mut text)
        .unwrap();
    let list: Value = serde_saphyr::from_str(&text).unwrap();
    let mut items = list["items"].as_array().unwrap().clone();
    let mut pod: Value =
        serde_saphyr::from_str(&std::fs::read_to_string(dir.join("pod.yaml")).unwrap()).unwrap();
    pod["metadata"]["uid"] = json!("incoming-pod-uid");
    items.push(pod);
    items
}

#[test]
fn dra_objects_are_listed_watched_and_answered_from() {
    use kplace::engine::{Outcome, Scheduler, Version, VersionChoice, place_existing};
    let dir = tempfile::tempdir().unwrap();
    // dra-020: the incoming pod's claim wants 9 GPUs; no node has them.
    let objects = case_objects("dra-020");
    let slices = objects
        .iter()
        .filter(|o| o["kind"] == "ResourceSlice")
        .count();
    let server = FakeServer::start(objects);
    server.set_version(Some("v1.34.1"));
    let live = connect(&server, dir.path());
    assert!(live.limitations().is_empty(), "{:?}", live.limitations());
    let scheduler = Scheduler::new(VersionChoice::flag(Version::V1_34));
    let answer = |live: &LiveSource| {
        let (cluster, _) = live.cluster();
        let id = cluster
            .find_pod("ml", "infer-ctxzjt5gj-w88mx")
            .expect("synced");
        let a = place_existing(&cluster, id, &scheduler);
        let node = a.node.map(|n| cluster.node(n).name.to_string());
        (a, node)
    };
    {
        let (cluster, _) = live.cluster();
        assert_eq!(cluster.dra.slices.len(), slices);
        assert!(cluster.dra.class("gpu.example.com").is_some());
        assert!(
            cluster
                .dra
                .claim(cluster.interner.lookup("ml").unwrap(), "infer-gpu-x4xpm")
                .is_some()
        );
    }
    let (first, _) = answer(&live);
    assert_eq!(
        first.outcome,
        Outcome::Unschedulable,
        "{} {:?} {:?}",
        first.message,
        first.devices,
        first.notes
    );
    assert_eq!(
        first.message,
        "0/3 nodes are available: 3 cannot allocate all claims."
    );

    // The driver publishes a new generation of worker-d-1's pool with nine
    // GPUs: the watch brings it in and the pod fits there.
    let mut slice = server
        .get("ResourceSlice", "worker-d-1-gpu.example.com-fbqhj")
        .expect("served");
    slice["spec"]["pool"]["generation"] = json!(2);
    let template = slice["spec"]["devices"][0].clone();
    let devices: Vec<Value> = (0..9)
        .map(|i| {
            let mut d = template.clone();
            d["name"] = json!(format!("gpu-{i}"));
            d
        })
        .collect();
    slice["spec"]["devices"] = json!(devices);
    server.apply(slice);
    assert!(
        wait_for(10, || answer(&live).0.outcome == Outcome::Scheduled),
        "the new slice never reached the model"
    );
    let (after, node) = answer(&live);
    assert_eq!(node.as_deref(), Some("worker-d-1"));
    assert_eq!(after.devices.len(), 9);

    // Reading is all it does.
    assert!(server.requests().iter().all(|r| r.starts_with("GET ")));
    assert!(
        server
            .requests()
            .iter()
            .any(|r| r.starts_with("GET /apis/resource.k8s.io/v1/resourceslices"))
    );
}

#[test]
fn forbidden_resource_slices_are_a_named_limitation() {
    let dir = tempfile::tempdir().unwrap();
    let server = FakeServer::start(case_objects("dra-020"));
    server.forbid("ResourceSlice");
    let live = connect(&server, dir.path());
    let limits = live.limitations();
    assert_eq!(limits.len(), 1, "{limits:?}");
    assert_eq!(limits[0].kind, Kind::ResourceSlice);
    assert_eq!(
        limits[0].message,
        "list/watch on resourceslices.resource.k8s.io is forbidden: no devices are known: no node can allocate a pod's ResourceClaims"
    );
    let (cluster, _) = live.cluster();
    assert!(cluster.dra.slices.is_empty());
    assert!(cluster.dra.class("gpu.example.com").is_some());
}

/// Every pod of the server and of the live model, as `namespace/name`.
fn pod_keys(live: &LiveSource, server: &FakeServer) -> (Vec<String>, Vec<String>) {
    let (cluster, _) = live.cluster();
    let mut model: Vec<String> = (0..cluster.pods.len() as u32)
        .map(|id| cluster.pod_key(id))
        .collect();
    model.sort();
    let mut served: Vec<String> = server.list_json()["items"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|o| o["kind"] == "Pod")
        .map(|o| {
            format!(
                "{}/{}",
                o["metadata"]["namespace"].as_str().unwrap(),
                o["metadata"]["name"].as_str().unwrap()
            )
        })
        .collect();
    served.sort();
    (model, served)
}

#[test]
fn a_403_that_goes_away_is_retried_and_the_model_catches_up() {
    let dir = tempfile::tempdir().unwrap();
    let mut objects = synth_objects(4, 20);
    let node = first_node(&objects);
    objects.push(test_pod("doomed", Some(&node)));
    let server = FakeServer::start(objects);
    let live = connect(&server, dir.path());
    assert!(wait_for(30, || server.open_watches() >= 13));
    // RBAC on pods is taken away; the watch ends and cannot restart.
    server.forbid("Pod");
    server.drop_watches();
    assert!(
        wait_for(10, || live.stale().iter().any(|s| s.kind == Kind::Pod)),
        "pods not marked stale: {:?}",
        live.state()
    );
    let stale = live.stale();
    assert_eq!(stale.len(), 1, "{stale:?}");
    assert_eq!(stale[0].error, "list/watch on pods is forbidden (403)");
    assert!(
        matches!(live.state(), ConnectionState::Reconnecting { ref error, .. } if error.contains("pods is forbidden (403)")),
        "{:?}",
        live.state()
    );
    // Changes meanwhile are not seen: the kept pods are the stale ones.
    server.delete("Pod", Some("default"), "doomed");
    server.apply(test_pod("newcomer", Some(&node)));
    std::thread::sleep(Duration::from_millis(500));
    assert!(pod_node(&live, "default", "doomed").is_some());
    assert!(live.stale().iter().any(|s| s.kind == Kind::Pod));
    // RBAC is given back: the retry catches up with the server.
    server.allow("Pod");
    assert!(
        wait_for(20, || {
            let (model, served) = pod_keys(&live, &server);
            model == served
        }),
        "model and server differ: {:?}",
        pod_keys(&live, &server)
    );
    assert!(pod_node(&live, "default", "doomed").is_none());
    assert_eq!(
        pod_node(&live, "default", "newcomer"),
        Some(Some(node.clone()))
    );
    assert!(
        wait_for(10, || live.stale().is_empty()),
        "{:?}",
        live.stale()
    );
    assert!(wait_for(10, || live.state() == ConnectionState::Live));
    assert!(server.requests().iter().all(|r| r.starts_with("GET ")));
}

#[test]
fn a_pdb_403_after_listing_keeps_them_marked_stale_not_ignored() {
    let dir = tempfile::tempdir().unwrap();
    let server = FakeServer::start(synth_objects(4, 20));
    let live = connect(&server, dir.path());
    assert!(wait_for(30, || server.open_watches() >= 13));
    server.forbid("PodDisruptionBudget");
    server.drop_watches();
    assert!(wait_for(10, || live
        .stale()
        .iter()
        .any(|s| s.kind == Kind::PodDisruptionBudget)));
    // Not the never-listed limitation ("preemption ignores PDBs"): the
    // PDBs seen are kept, and said to be stale.
    assert!(live.limitations().is_empty(), "{:?}", live.limitations());
}

#[test]
fn a_list_that_never_answers_times_out_naming_the_kind() {
    let dir = tempfile::tempdir().unwrap();
    let server = FakeServer::start(synth_objects(4, 20));
    server.hang_lists("PersistentVolume");
    let live = LiveSource::connect(
        LiveOptions {
            list_timeout: Duration::from_secs(1),
            ..options(&server, dir.path())
        },
        None,
    )
    .expect("connect");
    assert!(
        wait_for(10, || matches!(
            live.state(),
            ConnectionState::Reconnecting { ref error, .. }
                if error == "list persistentvolumes: no answer after 1 s; listing again"
        )),
        "{:?}",
        live.state()
    );
    // It keeps trying: once the server answers, the source is live.
    server.answer_lists("PersistentVolume");
    live.wait_synced(Duration::from_secs(15))
        .expect("synced after the list answers");
    let pv_lists = server
        .requests()
        .iter()
        .filter(|r| r.starts_with("GET /api/v1/persistentvolumes?") && !r.contains("watch=true"))
        .count();
    assert!(pv_lists >= 2, "the list was retried: {pv_lists}");
}

#[test]
fn a_malformed_watch_event_is_counted_and_the_watch_goes_on() {
    let dir = tempfile::tempdir().unwrap();
    let server = FakeServer::start(synth_objects(4, 20));
    let live = connect(&server, dir.path());
    assert!(wait_for(30, || server.open_watches() >= 13));
    assert!(live.malformed().is_empty());
    server.send_malformed("Pod");
    assert!(
        wait_for(5, || live.malformed() == vec![(Kind::Pod, 1)]),
        "{:?}",
        live.malformed()
    );
    server.apply(test_pod("after-bad-event", None));
    assert!(wait_for(5, || pod_node(
        &live,
        "default",
        "after-bad-event"
    )
    .is_some()));
    assert_eq!(live.state(), ConnectionState::Live);
    assert_eq!(live.malformed(), vec![(Kind::Pod, 1)]);
}

/// Pod and node watch events applied in place (the live feed's path) leave
/// the model as a rebuild from the same objects would build it: a seeded
/// random sequence of adds, updates and deletes of pods and nodes (labels,
/// taints, bindings to nodes that come and go, phases, nominations, ports,
/// affinity, claims), compared after every batch on every aggregate and
/// index the engine reads, and on the engine's answers for probe pods.
mod in_place {
    use std::collections::BTreeMap;
    use std::sync::Arc;

    use k8s_openapi::api::apps::v1 as apps;
    use k8s_openapi::api::core::v1 as core;
    use k8s_openapi::api::policy::v1 as policy;
    use kplace::app::derived::Derived;
    use kplace::engine::{Scheduler, place};
    use kplace::model::labels::{Requirement, SetOperator};
    use kplace::model::{Cluster, LabelSelector, PodId};
    use kplace::source::build::{ModelObject, Typed};
    use kplace::source::live::apply_changes;
    use kplace::source::live::store::ModelStore;
    use kube::runtime::watcher::Event;
    use serde_json::{Value, json};

    /// xorshift64*: the sequence is the same on every run.
    struct Rng(u64);
    impl Rng {
        fn next(&mut self) -> u64 {
            self.0 ^= self.0 >> 12;
            self.0 ^= self.0 << 25;
            self.0 ^= self.0 >> 27;
            self.0.wrapping_mul(0x2545_F491_4F6C_DD1D)
        }
        fn below(&mut self, n: u64) -> u64 {
            self.next() % n
        }
        fn chance(&mut self, percent: u64) -> bool {
            self.below(100) < percent
        }
        fn pick<'a>(&mut self, of: &[&'a str]) -> &'a str {
            of[self.below(of.len() as u64) as usize]
        }
    }

    const NODES: usize = 10;
    const ZONES: [&str; 3] = ["zone-a", "zone-b", "zone-c"];

    fn node(rng: &mut Rng, i: usize) -> core::Node {
        let name = format!("node-{i}");
        let mut labels = json!({
            "kubernetes.io/hostname": name,
            "topology.kubernetes.io/zone": rng.pick(&ZONES),
        });
        if rng.chance(40) {
            labels["pool"] = json!(rng.pick(&["gpu", "general"]));
        }
        let mut spec = json!({});
        if rng.chance(30) {
            spec["taints"] = json!([{"key": "gpu", "value": "true", "effect": "NoSchedule"}]);
        }
        if rng.chance(15) {
            spec["unschedulable"] = json!(true);
        }
        // An image's size is the same on every node that has it.
        let images: Vec<Value> = ["web:1", "db:2", "cache:3"]
            .iter()
            .enumerate()
            .filter(|_| rng.chance(50))
            .map(|(k, image)| json!({"names": [image], "sizeBytes": 300_000_000 * (k as i64 + 1)}))
            .collect();
        serde_json::from_value(json!({
            "apiVersion": "v1", "kind": "Node",
            "metadata": {"name": name, "labels": labels},
            "spec": spec,
            "status": {
                "allocatable": {"cpu": format!("{}", 2 + rng.below(6)), "memory": "16Gi", "pods": "20"},
                "images": images,
            }
        }))
        .expect("a valid Node")
    }

    fn pod(rng: &mut Rng, i: usize, invalid: bool) -> core::Pod {
        let app = rng.pick(&["web", "db", "cache"]);
        let mut labels = json!({"app": app});
        if rng.chance(50) {
            labels["tier"] = json!(rng.pick(&["x", "y"]));
        }
        let cpu = if invalid {
            "12xyz".to_string()
        } else {
            format!("{}m", 100 * (1 + rng.below(8)))
        };
        let mut container = json!({"name": "c", "image": format!("{app}:1"),
            "resources": {"requests": {"cpu": cpu, "memory": "256Mi"}}});
        if rng.chance(15) {
            container["ports"] = json!([{"containerPort": 80, "hostPort": 8000 + rng.below(3)}]);
        }
        let priority = [0, 100, 1000][rng.below(3) as usize];
        let mut spec = json!({"containers": [container], "priority": priority});
        let mut status = json!({"phase": "Pending"});
        if rng.chance(70) {
            // Sometimes a node that is not (or no longer) there.
            spec["nodeName"] = json!(format!("node-{}", rng.below(NODES as u64 + 2)));
            status["phase"] = json!(rng.pick(&["Running", "Running", "Succeeded"]));
        } else if rng.chance(30) {
            status["nominatedNodeName"] = json!(format!("node-{}", rng.below(NODES as u64)));
        }
        if rng.chance(20) {
            spec["affinity"] = json!({"podAntiAffinity": {"requiredDuringSchedulingIgnoredDuringExecution": [
                {"labelSelector": {"matchLabels": {"app": app}}, "topologyKey": "kubernetes.io/hostname"}]}});
        }
        if rng.chance(15) {
            spec["volumes"] = json!([{"name": "data", "persistentVolumeClaim": {"claimName": format!("data-{i}")}}]);
        }
        // Each app is a ReplicaSet of its namespace whose pods spread over
        // zones (the Skew view's fleet list counts them).
        spec["topologySpreadConstraints"] = json!([{"maxSkew": 1,
            "topologyKey": "topology.kubernetes.io/zone", "whenUnsatisfiable": "DoNotSchedule",
            "labelSelector": {"matchLabels": {"app": app}}}]);
        let namespace = rng.pick(&NAMESPACES);
        serde_json::from_value(json!({
            "apiVersion": "v1", "kind": "Pod",
            "metadata": {"name": format!("pod-{i}"), "namespace": namespace,
                         "uid": format!("uid-{i}"), "labels": labels,
                         "ownerReferences": [{"apiVersion": "apps/v1", "kind": "ReplicaSet",
                             "name": app, "uid": format!("rs-{namespace}-{app}"), "controller": true}]},
            "spec": spec, "status": status,
        }))
        .expect("a valid Pod")
    }

    const NAMESPACES: [&str; 4] = ["shop", "data", "ops", "batch"];

    fn replica_set(namespace: &str, app: &str) -> apps::ReplicaSet {
        serde_json::from_value(json!({
            "apiVersion": "apps/v1", "kind": "ReplicaSet",
            "metadata": {"name": app, "namespace": namespace, "uid": format!("rs-{namespace}-{app}")},
            "spec": {"selector": {"matchLabels": {"app": app}},
                     "template": {"metadata": {"labels": {"app": app}}}}
        }))
        .expect("a valid ReplicaSet")
    }

    /// Everything the engine reads, with ids replaced by names: two
    /// clusters that project the same hold the same model.
    fn projection(c: &Cluster) -> String {
        let pod_key = |id: PodId| c.pod_key(id);
        let keys = |ids: &[PodId]| {
            let mut k: Vec<String> = ids.iter().map(|&p| pod_key(p)).collect();
            k.sort();
            k
        };
        let mut out = BTreeMap::new();
        for (id, n) in c.nodes.iter().enumerate() {
            let info = c.node_info(id as u32);
            let mut ports = info.used_ports.clone();
            ports.sort();
            // Preemption reads the node's briefs of its pods, not the
            // records: each must say what a fresh one would.
            assert_eq!(info.briefs.len(), info.pods.len(), "briefs on {}", n.name);
            for (&p, brief) in info.pods.iter().zip(&info.briefs) {
                assert_eq!(
                    *brief,
                    c.brief_of(p),
                    "brief of {} on {}",
                    pod_key(p),
                    n.name
                );
            }
            out.insert(
                format!("node {}", n.name),
                format!(
                    "{n:?} requested={:?} delta={:?} nonzero={:?} ports={ports:?} pods={:?} affinity={:?} anti={:?} claims={:?} claim_volumes={}",
                    info.requested,
                    info.pod_level_delta,
                    info.non_zero_requested,
                    keys(&info.pods),
                    keys(&info.pods_with_affinity),
                    keys(&info.pods_with_required_anti_affinity),
                    keys(&info.pods_with_claims),
                    info.claim_volumes,
                ),
            );
            assert_eq!(
                c.node_id(&n.name),
                Some(id as u32),
                "node index of {}",
                n.name
            );
        }
        for (id, p) in c.pods.iter().enumerate() {
            let id = id as PodId;
            let mut record = kplace::model::Pod::clone(p);
            let node = record.node.take().map(|n| c.node(n).name.to_string());
            let pdbs: Vec<String> = c
                .pdbs_of_pod(id)
                .iter()
                .map(|&i| c.pdbs[i as usize].name.to_string())
                .collect();
            out.insert(
                format!("pod {}", pod_key(id)),
                format!(
                    "{record:?} on={node:?} priority={} pdbs={pdbs:?}",
                    c.priority_of(id)
                ),
            );
            assert_eq!(
                c.find_pod(c.interner.resolve(p.namespace), &p.name),
                Some(id)
            );
            // The label indexes: every pair and key finds exactly its pods.
            for (k, v) in p.labels.iter() {
                for req in [
                    Requirement::equals(k, v),
                    Requirement {
                        key: k,
                        op: SetOperator::Exists,
                        values: Box::new([]),
                    },
                ] {
                    let sel = LabelSelector::Requirements(Box::new([req.clone()]));
                    let mut found = Vec::new();
                    c.for_each_scheduled_match(&sel, |id, _| found.push(id));
                    out.insert(format!("match {req:?}"), format!("{:?}", keys(&found)));
                }
            }
        }
        out.insert(
            "nominated".into(),
            format!("{:?}", keys(c.nominated_pods())),
        );
        out.insert("scheduled".into(), c.num_scheduled_pods().to_string());
        out.insert("pdbs".into(), format!("{:?}", c.pdbs));
        let mut groups: Vec<String> = c
            .affinity_groups()
            .iter()
            .map(|g| {
                let mut on: Vec<(String, u32)> = g
                    .nodes
                    .iter()
                    .map(|(&n, &k)| (c.node(n).name.to_string(), k))
                    .collect();
                on.sort();
                format!("{:?} {on:?} {}", g.terms, g.pods)
            })
            .collect();
        groups.sort();
        out.insert("affinity groups".into(), format!("{groups:?}"));
        let images: BTreeMap<_, _> = c
            .images
            .iter()
            .map(|(k, v)| (c.interner.resolve(*k), *v))
            .collect();
        out.insert("images".into(), format!("{images:?}"));
        out.into_iter()
            .map(|(k, v)| format!("{k}: {v}\n"))
            .collect()
    }

    /// The engine's answer for `probe`, by node name.
    fn answer(c: &Cluster, probe: &core::Pod) -> String {
        let mut c = c.clone();
        let ModelObject::Pod(pod) = probe.to_model(&mut c.interner).expect("probe") else {
            unreachable!()
        };
        let a = place(&c, &pod, &Scheduler::default());
        let name = |n: u32| c.node(n).name.to_string();
        let mut feasible: Vec<String> = a.feasible.iter().map(|&n| name(n)).collect();
        feasible.sort();
        let mut scores: Vec<String> = a
            .scores
            .iter()
            .map(|s| format!("{} {} {:?}", name(s.node), s.total, s.plugins))
            .collect();
        scores.sort();
        let mut failures: Vec<String> = a
            .failures
            .iter()
            .map(|f| format!("{} {:?}", name(f.node), f.rejection))
            .collect();
        failures.sort();
        format!(
            "{:?} {} feasible={feasible:?} scores={scores:?} failures={failures:?}",
            a.outcome, a.message
        )
    }

    /// Fails naming the lines that differ, not two pages of projection.
    fn same(in_place: &str, rebuilt: &str, step: usize) {
        let a: Vec<&str> = in_place.lines().collect();
        let b: Vec<&str> = rebuilt.lines().collect();
        let only_a: Vec<&&str> = a.iter().filter(|l| !b.contains(l)).take(4).collect();
        let only_b: Vec<&&str> = b.iter().filter(|l| !a.contains(l)).take(4).collect();
        assert!(
            only_a.is_empty() && only_b.is_empty(),
            "after step {step}\nin place only: {only_a:#?}\nrebuilt only: {only_b:#?}"
        );
    }

    fn apply<K: Typed + kube::Resource>(store: &ModelStore, e: Event<K>) {
        store.apply(&e);
    }

    /// The pod index a followed model keeps is only an accelerator: a fork
    /// that adds a pod without it (a what-if's draft) still finds the pod,
    /// and a reader's snapshot, which has no index, finds every pod.
    #[test]
    fn pods_are_found_by_name_in_forks_and_snapshots_of_a_followed_model() {
        let mut rng = Rng(7);
        let store = ModelStore::default();
        apply(&store, Event::<core::Node>::Init);
        apply(&store, Event::InitApply(node(&mut rng, 0)));
        apply(&store, Event::<core::Node>::InitDone);
        apply(&store, Event::<core::Pod>::Init);
        for i in 0..5 {
            apply(&store, Event::InitApply(pod(&mut rng, i, false)));
        }
        apply(&store, Event::<core::Pod>::InitDone);
        let (mut model, _) = store.cluster();
        model.index_pod_keys();
        let mut fork = model.clone();
        let ModelObject::Pod(draft) = pod(&mut rng, 9, false)
            .to_model(&mut fork.interner)
            .expect("a draft")
        else {
            unreachable!()
        };
        let ns = fork.interner.resolve(draft.namespace).to_string();
        let id = fork.add_pod(kplace::model::Pod::clone(&draft));
        assert_eq!(fork.find_pod(&ns, "pod-9"), Some(id));
        assert_eq!(model.find_pod(&ns, "pod-9"), None);
        let snapshot = model.snapshot();
        for (i, p) in model.pods.iter().enumerate() {
            let ns = model.interner.resolve(p.namespace);
            assert_eq!(model.find_pod(ns, &p.name), Some(i as PodId));
            assert_eq!(snapshot.find_pod(ns, &p.name), Some(i as PodId));
        }
    }

    #[test]
    fn pod_and_node_events_applied_in_place_equal_a_rebuild() {
        let mut rng = Rng(0x5eed_cafe_f00d_d00d);
        let store = ModelStore::default();
        apply(&store, Event::<core::Node>::Init);
        for i in 0..NODES - 2 {
            apply(&store, Event::InitApply(node(&mut rng, i)));
        }
        apply(&store, Event::<core::Node>::InitDone);
        apply(&store, Event::<core::Pod>::Init);
        for i in 0..40 {
            apply(&store, Event::InitApply(pod(&mut rng, i, false)));
        }
        apply(&store, Event::<core::Pod>::InitDone);
        // A PDB without a status: kplace computes what it allows from the
        // pods it selects, so pod events must refresh it.
        let pdb: policy::PodDisruptionBudget = serde_json::from_value(json!({
            "apiVersion": "policy/v1", "kind": "PodDisruptionBudget",
            "metadata": {"name": "web", "namespace": "shop"},
            "spec": {"minAvailable": 1, "selector": {"matchLabels": {"app": "web"}}}
        }))
        .unwrap();
        apply(&store, Event::<policy::PodDisruptionBudget>::Init);
        apply(&store, Event::InitApply(pdb));
        // One that never allows a disruption: the pods it selects are
        // protected in the tiers.
        for ns in NAMESPACES {
            let pdb: policy::PodDisruptionBudget = serde_json::from_value(json!({
                "apiVersion": "policy/v1", "kind": "PodDisruptionBudget",
                "metadata": {"name": "db", "namespace": ns},
                "spec": {"maxUnavailable": 0, "selector": {"matchLabels": {"app": "db"}}}
            }))
            .unwrap();
            apply(&store, Event::InitApply(pdb));
        }
        apply(&store, Event::<policy::PodDisruptionBudget>::InitDone);
        apply(&store, Event::<apps::ReplicaSet>::Init);
        for ns in NAMESPACES {
            for app in ["web", "db", "cache"] {
                apply(&store, Event::InitApply(replica_set(ns, app)));
            }
        }
        apply(&store, Event::<apps::ReplicaSet>::InitDone);

        let probes: Vec<core::Pod> = (100..104)
            .map(|i| {
                let mut p = pod(&mut rng, i, false);
                p.spec.as_mut().unwrap().node_name = None;
                p.status = None;
                p
            })
            .collect();

        let (mut model, _) = store.cluster();
        let (mut in_place, mut rebuilt) = (0, 0);
        // The TUI's pod table and fleet list, updated from the last
        // batch's as the live feed does; how many batches updated them
        // rather than built them.
        // Every sort column asked for, as a user who tried each would: a
        // live update keeps those current by merging (the others are built
        // when first asked for, which the comparison below also does).
        let ask_every_column = |built: &kplace::app::derived::Built| {
            let pods = built
                .pods
                .as_ref()
                .expect("Derived::build built the pod table");
            for col in 0..kplace::app::derived::PodTable::SORT_COLUMNS {
                pods.column(col);
            }
        };
        let mut built = Derived::build(&Arc::new(model.snapshot())).built();
        ask_every_column(&built);
        let (mut tables_updated, mut fleets_updated, mut alerts) = (0, 0, 0);
        let mut node_rows_kept = 0;
        let (mut summaries_updated, mut tiers_updated, mut protected) = (0, 0, 0);
        for step in 0..400 {
            let (pick, i) = (rng.below(100), rng.below(60) as usize);
            let n = i % NODES;
            match pick {
                0..=44 => apply(&store, Event::Apply(pod(&mut rng, i, false))),
                45..=64 => apply(&store, Event::Delete(pod(&mut rng, i, false))),
                65..=79 => apply(&store, Event::Apply(node(&mut rng, n))),
                80..=89 => apply(&store, Event::Delete(node(&mut rng, n))),
                // What cannot be applied in place: the follower rebuilds.
                90 => apply(&store, Event::Apply(pod(&mut rng, i, true))),
                91 => {
                    apply(&store, Event::<core::Node>::Init);
                    apply(&store, Event::InitApply(node(&mut rng, 0)));
                    apply(&store, Event::<core::Node>::InitDone);
                }
                _ => {}
            }
            // Batches of five events, then of one (a lone change is where
            // a cache updated in place can miss what it depends on).
            if step < 200 && step % 5 != 4 {
                continue;
            }
            match store.take_changes(&mut model.interner) {
                Some(changes) => {
                    let touched = apply_changes(&mut model, changes);
                    in_place += 1;
                    let shown = Arc::new(model.snapshot());
                    let updated = Derived::updated(&shown, &built, &touched);
                    let rebuilt = Derived::build(&shown);
                    assert_eq!(
                        updated.pods(),
                        rebuilt.pods(),
                        "pod table after step {step}"
                    );
                    assert_eq!(
                        updated.fleet(),
                        rebuilt.fleet(),
                        "workloads and skew alerts after step {step}"
                    );
                    assert_eq!(
                        updated.nodes, rebuilt.nodes,
                        "node rows and sort orders after step {step}"
                    );
                    assert_eq!(updated.zones, rebuilt.zones, "zones after step {step}");
                    assert_eq!(updated.node_zone, rebuilt.node_zone, "step {step}");
                    assert_eq!(
                        updated.pending, rebuilt.pending,
                        "pending after step {step}"
                    );
                    assert_eq!(
                        (&updated.on_absent_nodes, updated.scheduled),
                        (&rebuilt.on_absent_nodes, rebuilt.scheduled),
                        "pods on absent nodes and scheduled after step {step}"
                    );
                    assert_eq!(updated.topology_keys, rebuilt.topology_keys, "step {step}");
                    assert_eq!(updated.tiers(), rebuilt.tiers(), "tiers after step {step}");
                    protected += rebuilt
                        .tiers()
                        .map_or(0, |t| t.protected.iter().filter(|&&p| p).count());
                    let in_place = updated.in_place;
                    summaries_updated += usize::from(in_place.summary);
                    tiers_updated += usize::from(in_place.tiers);
                    assert_eq!(
                        (in_place.pods, in_place.fleet, in_place.summary),
                        (
                            !touched.nodes_came_or_went,
                            !touched.nodes_changed,
                            !touched.nodes_changed
                        ),
                        "which caches were updated in place after step {step}"
                    );
                    // Rows kept from the table before (nodes unchanged).
                    node_rows_kept += usize::from(
                        !touched.nodes_changed
                            && built.nodes.as_ref().is_some_and(|before| {
                                before
                                    .rows
                                    .iter()
                                    .zip(&updated.nodes.rows)
                                    .any(|(a, b)| Arc::ptr_eq(a, b))
                            }),
                    );
                    tables_updated += usize::from(!touched.nodes_came_or_went);
                    // Workloads whose counts the batch left alone keep
                    // their alerts (when no node changed).
                    fleets_updated += usize::from(!touched.nodes_changed);
                    alerts += rebuilt.fleet().map_or(0, |f| f.skew_alerts.len());
                    built = updated.built();
                    let (fresh, _) = store.cluster();
                    same(&projection(&model), &projection(&fresh), step);
                    for probe in &probes {
                        assert_eq!(
                            answer(&model, probe),
                            answer(&fresh, probe),
                            "after step {step}"
                        );
                    }
                }
                None => {
                    model = store.cluster().0;
                    rebuilt += 1;
                    built = Derived::build(&Arc::new(model.snapshot())).built();
                    ask_every_column(&built);
                }
            }
        }
        assert!(
            tables_updated >= 20 && fleets_updated >= 10 && alerts >= 50 && node_rows_kept >= 10,
            "the pod table was updated in place {tables_updated} times, the fleet {fleets_updated} ({alerts} alerts in all), the node rows {node_rows_kept}"
        );
        assert!(
            summaries_updated >= 10 && tiers_updated >= 10 && protected >= 50,
            "the zones and pending list were updated in place {summaries_updated} times, the tiers {tiers_updated} ({protected} protected pods in all)"
        );
        // Most batches went in place; the relists and invalid pods did not.
        assert!(
            in_place >= 50,
            "{in_place} batches in place, {rebuilt} rebuilt"
        );
        assert!(
            rebuilt >= 3,
            "{in_place} batches in place, {rebuilt} rebuilt"
        );
    }
}
