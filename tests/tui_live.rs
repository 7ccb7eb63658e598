//! The TUI on a live cluster served by the loopback fake API server
//! (tests/support): the app opens through a generated kubeconfig, follows
//! watch events, survives dropped watches, 410 Gone and a 403 on PDBs, and
//! says so on screen when the server goes away. Assertions are on the
//! snapshot the app holds and on the text a person would read.

mod common;
mod support;

use common::command;

use std::time::Duration;

use crossterm::event::{KeyCode, KeyEvent, KeyModifiers};
use kplace::app::{App, Options, Overlay, Phase, View};
use kplace::source::live::Target;
use serde_json::{Value, json};
use support::{FakeServer, kubeconfig_with_contexts, synth_objects, wait_for};

const SETTLE: Duration = Duration::from_secs(30);

fn screen(app: &App) -> String {
    common::render(app, 160, 40)
}

fn live_options(server: &FakeServer, dir: &std::path::Path) -> Options {
    Options {
        live: Some(Target {
            kubeconfig: Some(server.kubeconfig(dir)),
            context: None,
        }),
        ..Default::default()
    }
}

fn open(server: &FakeServer, dir: &std::path::Path) -> App {
    let mut app = App::new(live_options(server, dir));
    assert!(app.wait_until_idle(SETTLE), "live cluster did not open");
    assert!(matches!(app.phase, Phase::Ready(_)), "not ready");
    app
}

fn key(app: &mut App, code: KeyCode) {
    app.handle_key(KeyEvent::new(code, KeyModifiers::NONE));
    assert!(app.wait_until_idle(SETTLE));
}

fn type_text(app: &mut App, text: &str) {
    for c in text.chars() {
        key(app, KeyCode::Char(c));
    }
}

/// The node a pod of the app's cluster is bound to: `None` when the pod is
/// absent, `Some(None)` when it is pending.
fn pod_node(app: &App, name: &str) -> Option<Option<String>> {
    let cluster = app.session()?.cluster();
    let id = cluster.find_pod("default", name)?;
    Some(cluster.pod(id).node_name.as_deref().map(str::to_string))
}

/// Pumps the app until `f` holds (live updates arrive on their own).
fn until(app: &mut App, secs: u64, mut f: impl FnMut(&App) -> bool) -> bool {
    wait_for(secs, || {
        app.pump();
        f(app)
    })
}

fn test_pod(name: &str, node: Option<&str>) -> Value {
    let mut pod = json!({
        "apiVersion": "v1", "kind": "Pod",
        "metadata": {"name": name, "namespace": "default", "uid": format!("uid-{name}")},
        "spec": {"containers": [{"name": "c", "image": "nginx",
                 "resources": {"requests": {"cpu": "100m", "memory": "64Mi"}}}]},
        "status": {"phase": "Pending"}
    });
    if let Some(node) = node {
        pod["spec"]["nodeName"] = json!(node);
        pod["status"]["phase"] = json!("Running");
    }
    pod
}

fn node_names(objects: &[Value]) -> Vec<String> {
    let mut names: Vec<String> = objects
        .iter()
        .filter(|o| o["kind"] == "Node")
        .filter_map(|o| o["metadata"]["name"].as_str().map(str::to_string))
        .collect();
    names.sort();
    names
}

#[test]
fn opens_live_and_follows_events_in_order() {
    let dir = tempfile::tempdir().unwrap();
    let objects = synth_objects(4, 24);
    let nodes = node_names(&objects);
    let pods = objects.iter().filter(|o| o["kind"] == "Pod").count();
    let server = FakeServer::start(objects);
    let mut app = open(&server, dir.path());
    let cluster = app.session().unwrap().cluster();
    assert_eq!(cluster.nodes.len(), nodes.len());
    assert_eq!(cluster.pods.len(), pods);
    let s = screen(&app);
    assert!(s.contains("● live"), "{s}");
    assert!(s.contains("context fake (http://127.0.0.1:"), "{s}");
    assert!(s.contains("last event"), "{s}");
    assert!(s.contains(&format!("{} nodes", nodes.len())), "{s}");

    // A new pending pod appears; the user opens its placement.
    server.apply(test_pod("newcomer", None));
    assert!(until(&mut app, 10, |a| pod_node(a, "newcomer") == Some(None)));
    key(&mut app, KeyCode::Char('5'));
    key(&mut app, KeyCode::Char('/'));
    type_text(&mut app, "newcomer");
    key(&mut app, KeyCode::Enter);
    let s = screen(&app);
    let row = s
        .lines()
        .find(|l| l.starts_with("│default") && l.contains("newcomer"))
        .unwrap_or_else(|| panic!("{s}"));
    assert!(row.contains("Pending") && row.contains("<none>"), "{row}");
    key(&mut app, KeyCode::Enter);
    assert_eq!(app.view, View::Placement);
    assert!(screen(&app).contains("Placement: default/newcomer"));

    // Then it is bound and another pod deleted: applied in order, and the
    // Placement view stays on the same pod across the update.
    server.apply(test_pod("newcomer", Some(&nodes[1])));
    server.apply(test_pod("short-lived", None));
    server.delete("Pod", Some("default"), "short-lived");
    assert!(until(&mut app, 10, |a| {
        pod_node(a, "newcomer") == Some(Some(nodes[1].clone()))
            && pod_node(a, "short-lived").is_none()
    }));
    assert!(app.wait_until_idle(SETTLE));
    assert_eq!(app.view, View::Placement);
    let s = screen(&app);
    assert!(s.contains("Placement: default/newcomer"), "{s}");
    // The Pods list kept its filter and shows the binding.
    key(&mut app, KeyCode::Char('5'));
    let s = screen(&app);
    let row = s
        .lines()
        .find(|l| l.starts_with("│default") && l.contains("newcomer"))
        .unwrap_or_else(|| panic!("{s}"));
    let shown: String = nodes[1].chars().take(20).collect();
    assert!(row.contains("Running") && row.contains(&shown), "{row}");
    assert!(!s.contains("short-lived"), "{s}");
    // Pod events were applied to the model in place, never by rebuilding it.
    let live = app
        .feed
        .as_ref()
        .and_then(|f| f.live())
        .expect("a live feed");
    assert!(live.rebuilds >= 1);
    assert_eq!(
        live.full_rebuilds
            .load(std::sync::atomic::Ordering::Relaxed),
        0
    );
    // Read-only: nothing but GETs reached the server.
    assert!(server.requests().iter().all(|r| r.starts_with("GET ")));
}

#[test]
fn dropped_watches_and_gone_keep_the_app_current() {
    let dir = tempfile::tempdir().unwrap();
    let server = FakeServer::start(synth_objects(3, 12));
    let mut app = open(&server, dir.path());
    assert!(wait_for(5, || server.open_watches() >= 13));
    server.drop_watches();
    server.apply(test_pod("after-drop", None));
    assert!(until(&mut app, 10, |a| pod_node(a, "after-drop").is_some()));

    assert!(wait_for(5, || server.open_watches() >= 13));
    server.compact();
    server.drop_watches();
    server.apply(test_pod("after-gone", None));
    assert!(until(&mut app, 10, |a| pod_node(a, "after-gone").is_some()));
    assert!(until(&mut app, 5, |a| screen(a).contains("● live")));
}

#[test]
fn forbidden_pdbs_are_named_on_screen_and_the_rest_works() {
    let dir = tempfile::tempdir().unwrap();
    let objects = synth_objects(3, 12);
    let nodes = node_names(&objects);
    let server = FakeServer::start(objects);
    server.forbid("PodDisruptionBudget");
    let mut app = open(&server, dir.path());
    let s = screen(&app);
    assert!(
        s.contains(
            "list/watch on poddisruptionbudgets.policy is forbidden: preemption ignores PDBs"
        ),
        "{s}"
    );
    assert!(s.contains("● live"), "{s}");
    server.apply(test_pod("still-works", Some(&nodes[0])));
    assert!(until(&mut app, 10, |a| pod_node(a, "still-works")
        == Some(Some(nodes[0].clone()))));
}

#[test]
fn server_going_away_shows_reconnecting_and_keeps_the_last_state() {
    let dir = tempfile::tempdir().unwrap();
    let mut server = FakeServer::start(synth_objects(3, 12));
    let mut app = open(&server, dir.path());
    let pods = app.session().unwrap().cluster().pods.len();
    server.stop();
    assert!(until(&mut app, 10, |a| screen(a).contains("reconnecting")));
    let s = screen(&app);
    assert!(s.contains("cannot reach the API server"), "{s}");
    assert_eq!(app.session().unwrap().cluster().pods.len(), pods);
}

#[test]
fn bad_kubeconfig_is_a_clear_error_screen() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("broken-kubeconfig");
    std::fs::write(&path, "this: [is not: a kubeconfig").unwrap();
    let mut app = App::new(Options {
        live: Some(Target {
            kubeconfig: Some(path.clone()),
            context: None,
        }),
        ..Default::default()
    });
    assert!(app.wait_until_idle(SETTLE));
    let Phase::Failed { error, .. } = &app.phase else {
        panic!("expected the error screen");
    };
    assert!(error.contains("broken-kubeconfig"), "{error}");
    assert!(screen(&app).contains("Could not load"));
}

#[test]
fn unknown_context_is_named() {
    let dir = tempfile::tempdir().unwrap();
    let server = FakeServer::start(vec![]);
    let mut options = live_options(&server, dir.path());
    options.live.as_mut().unwrap().context = Some("prod-eu".into());
    let mut app = App::new(options);
    assert!(app.wait_until_idle(SETTLE));
    let Phase::Failed { error, .. } = &app.phase else {
        panic!("expected the error screen");
    };
    assert!(error.contains("no context \"prod-eu\""), "{error}");
}

#[test]
fn plain_kplace_with_an_unreachable_cluster_opens_the_demo_and_says_why() {
    let dir = tempfile::tempdir().unwrap();
    let mut server = FakeServer::start(vec![]);
    let mut options = live_options(&server, dir.path());
    server.stop();
    options.auto = true;
    options.pod = Some("ml/trainer-xl".into());
    let mut app = App::new(options);
    assert!(app.wait_until_idle(SETTLE));
    assert!(app.feed.is_none());
    let s = screen(&app);
    assert!(s.contains("Demo mode: fake (http://127.0.0.1:"), "{s}");
    assert!(s.contains("unreachable"), "{s}");
    assert!(s.contains("built-in demo cluster"), "{s}");
    assert!(s.contains("Placement: ml/trainer-xl"), "{s}");
}

#[test]
fn pod_option_opens_the_live_pods_placement() {
    let dir = tempfile::tempdir().unwrap();
    let server = FakeServer::start(synth_objects(3, 6));
    server.apply(test_pod("waiting", None));
    let mut options = live_options(&server, dir.path());
    options.pod = Some("default/waiting".into());
    let mut app = App::new(options);
    assert!(app.wait_until_idle(SETTLE));
    assert_eq!(app.view, View::Placement);
    let s = screen(&app);
    assert!(s.contains("Placement: default/waiting"), "{s}");
    assert!(s.contains("● live"), "{s}");
    // A typo is named, with the context it was looked up in.
    let mut options = live_options(&server, dir.path());
    options.pod = Some("default/wating".into());
    let mut app = App::new(options);
    assert!(app.wait_until_idle(SETTLE));
    let s = screen(&app);
    assert!(
        s.contains("--pod default/wating: no such pod in fake"),
        "{s}"
    );
}

#[test]
fn an_invalid_object_is_skipped_and_named_while_the_rest_updates() {
    let dir = tempfile::tempdir().unwrap();
    let server = FakeServer::start(synth_objects(3, 6));
    let mut app = open(&server, dir.path());
    let mut broken = test_pod("broken", None);
    broken["spec"]["containers"][0]["resources"]["requests"]["cpu"] = json!("lots");
    server.apply(broken);
    server.apply(test_pod("fine", None));
    assert!(until(&mut app, 10, |a| pod_node(a, "fine").is_some()));
    assert_eq!(pod_node(&app, "broken"), None);
    let s = screen(&app);
    let line = s
        .lines()
        .find(|l| l.contains("skipped as invalid"))
        .unwrap_or_else(|| panic!("{s}"));
    assert!(
        line.contains("Pod default/broken: spec.containers[0].resources.requests"),
        "{line}"
    );
}

#[test]
fn a_burst_of_events_becomes_few_rebuilds() {
    let dir = tempfile::tempdir().unwrap();
    let server = FakeServer::start(synth_objects(3, 6));
    let mut app = open(&server, dir.path());
    let rebuilds = |app: &App| app.feed.as_ref().and_then(|f| f.live()).map(|l| l.rebuilds);
    let before = rebuilds(&app).expect("a live feed");
    for i in 0..60 {
        server.apply(test_pod(&format!("burst-{i}"), None));
    }
    assert!(until(&mut app, 10, |a| pod_node(a, "burst-59").is_some()
        && (0..60)
            .all(|i| pod_node(a, &format!("burst-{i}")).is_some())));
    let made = rebuilds(&app).unwrap() - before;
    assert!(
        (1..=6).contains(&made),
        "60 events should coalesce into a few rebuilds, not {made}"
    );
}

#[test]
fn answers_as_the_live_servers_release_clamped_when_it_is_too_old() {
    let dir = tempfile::tempdir().unwrap();
    let server = FakeServer::start(synth_objects(3, 12));
    server.apply(test_pod("waiting", None));
    server.set_version(Some("v1.29.2"));
    let mut app = open(&server, dir.path());
    let s = screen(&app);
    assert!(
        s.lines()
            .find(|l| l.contains(" kplace "))
            .is_some_and(|l| l.contains("kube-scheduler v1.30 rules")),
        "{s}"
    );
    key(&mut app, KeyCode::Char('5'));
    key(&mut app, KeyCode::Char('/'));
    type_text(&mut app, "waiting");
    key(&mut app, KeyCode::Enter);
    key(&mut app, KeyCode::Enter);
    assert_eq!(app.view, View::Placement);
    let s = screen(&app);
    assert!(
        s.contains(
            "kube-scheduler v1.30 rules (the API server reports v1.29.2; kplace supports 1.30–1.34 and uses the nearest, 1.30)"
        ),
        "{s}"
    );
    // `:version` switches at runtime, then back to the server's.
    key(&mut app, KeyCode::Char(':'));
    type_text(&mut app, "version 1.33");
    key(&mut app, KeyCode::Enter);
    let s = screen(&app);
    assert!(s.contains("kube-scheduler v1.33 rules"), "{s}");
    assert!(
        s.contains("now answering as kube-scheduler v1.33 (was v1.30): default/waiting"),
        "{s}"
    );
    key(&mut app, KeyCode::Char(':'));
    type_text(&mut app, "version auto");
    key(&mut app, KeyCode::Enter);
    assert_eq!(app.scheduler.version, kplace::engine::Version::V1_30);
    assert!(app.scheduler.clamped);
}

#[test]
fn a_server_without_version_falls_back_to_the_kubelets_and_says_so() {
    let dir = tempfile::tempdir().unwrap();
    let server = FakeServer::start(synth_objects(3, 12));
    server.set_version(None);
    let app = open(&server, dir.path());
    // The synthetic nodes' kubelets are v1.30.0-eks-….
    assert_eq!(app.scheduler.source_kind(), "newest-kubelet");
    let s = screen(&app);
    assert!(s.contains("kube-scheduler v1.30 rules"), "{s}");
    assert!(
        s.contains("the API server's /version could not be read ("),
        "{s}"
    );
}

/// A wide terminal: the whole status line fits.
fn wide(app: &App) -> String {
    common::render(app, 260, 40)
}

#[test]
fn stale_kinds_and_unreadable_events_are_on_the_status_line() {
    let dir = tempfile::tempdir().unwrap();
    let server = FakeServer::start(synth_objects(3, 12));
    let mut app = open(&server, dir.path());
    assert!(wait_for(5, || server.open_watches() >= 13));
    server.send_malformed("Pod");
    assert!(
        until(&mut app, 10, |a| wide(a)
            .contains("1 unreadable watch event on pods dropped")),
        "{}",
        wide(&app)
    );
    server.forbid("PodDisruptionBudget");
    server.drop_watches();
    assert!(
        until(&mut app, 10, |a| wide(a)
            .contains("stale: poddisruptionbudgets.policy (since")),
        "{}",
        wide(&app)
    );
    // An answer given meanwhile says what it was answered from.
    key(&mut app, KeyCode::Enter);
    assert!(
        until(&mut app, 10, |a| {
            wide(a).contains(
            "Answered from stale objects, as last seen: poddisruptionbudgets.policy (unreadable since"
        )
        }),
        "{}",
        wide(&app)
    );
    server.allow("PodDisruptionBudget");
    assert!(
        until(&mut app, 20, |a| !wide(a).contains("stale: ")
            && !wide(a).contains("Answered from stale objects")),
        "{}",
        wide(&app)
    );
}

#[test]
fn the_status_line_seconds_tick_without_any_event() {
    let dir = tempfile::tempdir().unwrap();
    let server = FakeServer::start(synth_objects(3, 12));
    let mut app = open(&server, dir.path());
    assert!(until(&mut app, 10, |a| wide(a).contains("s ago)")));
    // Nothing happens on the server; the clock alone asks for a frame.
    let first = wide(&app);
    std::thread::sleep(Duration::from_millis(2100));
    assert!(app.pump(), "no repaint asked after two quiet seconds");
    let later = wide(&app);
    let ago = |s: &str| {
        let end = s.find(" s ago)").expect("an age");
        s[..end].rsplit('(').next().unwrap().parse::<u64>().unwrap()
    };
    assert!(ago(&later) >= ago(&first) + 2, "{first}\n{later}");
}

/// The status line (the last row of the screen).
/// The status line's text, drawn wide enough to stay on one row.
fn status(app: &App) -> String {
    let s = common::render(app, 400, 40);
    s.lines().last().unwrap_or("").trim().to_string()
}

#[test]
fn ctx_lists_the_contexts_and_switches_to_another_keeping_the_view() {
    let dir = tempfile::tempdir().unwrap();
    let alpha = FakeServer::start(synth_objects(3, 12));
    let beta = FakeServer::start(synth_objects(5, 20));
    // A context whose server is gone: nothing listens on its port.
    let gone = {
        let l = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
        format!("http://127.0.0.1:{}", l.local_addr().unwrap().port())
    };
    let path = kubeconfig_with_contexts(
        dir.path(),
        &[("alpha", alpha.url()), ("beta", beta.url()), ("gone", gone)],
    );
    let mut app = App::new(Options {
        live: Some(Target {
            kubeconfig: Some(path),
            context: None,
        }),
        ..Default::default()
    });
    assert!(app.wait_until_idle(SETTLE), "live cluster did not open");
    assert_eq!(app.session().unwrap().cluster().nodes.len(), 3);
    key(&mut app, KeyCode::Char('4'));
    assert_eq!(app.view, View::Nodes);

    // :ctx lists the kubeconfig's contexts, the one shown starred.
    command(&mut app, "ctx");
    let line = status(&app);
    assert!(line.contains("contexts: *alpha, beta, gone"), "{line}");
    // The palette offers each context to switch to.
    key(&mut app, KeyCode::Char(':'));
    type_text(&mut app, "ctx b");
    let Overlay::Palette(p) = &app.overlay else {
        panic!("no palette")
    };
    assert_eq!(p.matches.first().map(String::as_str), Some("ctx beta"));
    key(&mut app, KeyCode::Esc);

    // :ctx beta: the other server's cluster, in the same view.
    command(&mut app, "ctx beta");
    assert!(app.wait_until_idle(SETTLE));
    assert_eq!(app.session().unwrap().cluster().nodes.len(), 5);
    assert_eq!(app.view, View::Nodes, "the view stays");
    let line = status(&app);
    assert!(line.contains("context beta: 5 nodes,"), "{line}");
    let s = screen(&app);
    assert!(
        s.contains(&format!("context beta ({}", beta.url())),
        "the live line names the new context:\n{s}"
    );
    command(&mut app, "ctx");
    assert!(status(&app).contains("contexts: alpha, *beta, gone"));
    // The new context follows its server's events.
    beta.apply(test_pod("after-switch", None));
    assert!(until(&mut app, 10, |a| pod_node(a, "after-switch") == Some(None)));

    // An unknown context or one that cannot be reached: said, and the
    // cluster shown stays.
    command(&mut app, "ctx nowhere");
    let line = status(&app);
    assert!(
        line.contains(":ctx nowhere: no such context; contexts: alpha, beta, gone"),
        "{line}"
    );
    command(&mut app, "ctx gone");
    assert!(app.wait_until_idle(SETTLE));
    assert!(status(&app).starts_with(":ctx gone: gone (http://127.0.0.1:"));
    let said = app.status.clone().expect("a status");
    assert!(said.is_error, "{said:?}");
    assert!(
        said.text.contains("is unreachable") && said.text.ends_with("the cluster shown stays"),
        "{said:?}"
    );
    assert_eq!(app.session().unwrap().cluster().nodes.len(), 5);
    command(&mut app, "ctx beta");
    assert!(status(&app).contains("already showing context beta"));
    // Read-only: neither server was asked to change anything.
    for server in [&alpha, &beta] {
        let writes: Vec<String> = server
            .requests()
            .into_iter()
            .filter(|r| !r.starts_with("GET"))
            .collect();
        assert!(writes.is_empty(), "{writes:?}");
    }
}
