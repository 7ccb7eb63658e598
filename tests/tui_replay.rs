//! The TUI on a recorded timeline: the timeline bar, stepping by event and
//! by time, `:at`, play, a mark compared with another moment, and the
//! views (Pods, Nodes, Placement, What-if) at the moment chosen. The
//! timeline is written by hand here, so each moment's expected cluster is
//! known from its events, not from the code under test.

mod common;

use common::command;

use std::path::{Path, PathBuf};
use std::time::Duration;

use crossterm::event::{KeyCode, KeyEvent, KeyModifiers};
use kplace::app::{App, Options, View};
use serde_json::{Value, json};

const SETTLE: Duration = Duration::from_secs(30);

fn node(name: &str, zone: &str) -> Value {
    json!({"apiVersion": "v1", "kind": "Node",
        "metadata": {"name": name, "resourceVersion": "1",
            "labels": {"kubernetes.io/hostname": name, "topology.kubernetes.io/zone": zone}},
        "spec": {},
        "status": {"allocatable": {"cpu": "4", "memory": "8Gi", "pods": "110"},
                   "capacity": {"cpu": "4", "memory": "8Gi", "pods": "110"}}})
}

fn pod(name: &str, node: Option<&str>, cpu: &str) -> Value {
    let mut p = json!({"apiVersion": "v1", "kind": "Pod",
        "metadata": {"name": name, "namespace": "default", "uid": format!("uid-{name}"),
            "resourceVersion": "1", "labels": {"app": "web"}},
        "spec": {"containers": [{"name": "c", "image": "nginx",
            "resources": {"requests": {"cpu": cpu, "memory": "256Mi"}}}]},
        "status": {"phase": "Pending"}});
    if let Some(n) = node {
        p["spec"]["nodeName"] = json!(n);
        p["status"]["phase"] = json!("Running");
    }
    p
}

/// Initial state: two nodes in two zones, two running pods. Then:
/// 1 s `web-new` created pending; 2 s bound to node-b; 3 s `web-old`
/// deleted; 4 s node-a cordoned. The recording ends at 10 s.
fn write_timeline(dir: &Path) -> PathBuf {
    let initial = [
        node("node-a", "zone-1"),
        node("node-b", "zone-2"),
        pod("web-old", Some("node-a"), "500m"),
        pod("web-keep", Some("node-a"), "500m"),
    ];
    let mut cordoned = node("node-a", "zone-1");
    cordoned["spec"]["unschedulable"] = json!(true);
    let mut lines = vec![
        json!({"kplaceTimeline": 1, "recordedAt": "2026-11-01T10:00:00Z", "context": "prod-eu",
               "server": "https://example.invalid", "initialObjects": initial.len(), "limitations": []}),
    ];
    for o in &initial {
        lines.push(json!({"t": 0, "type": "ADDED", "object": o}));
    }
    lines.push(json!({"t": 1000, "type": "ADDED", "object": pod("web-new", None, "1")}));
    lines.push(
        json!({"t": 2000, "type": "MODIFIED", "object": pod("web-new", Some("node-b"), "1")}),
    );
    lines.push(
        json!({"t": 3000, "type": "DELETED", "object": pod("web-old", Some("node-a"), "500m")}),
    );
    lines.push(json!({"t": 4000, "type": "MODIFIED", "object": cordoned}));
    lines.push(json!({"t": 10000, "type": "END"}));
    let text: Vec<String> = lines.iter().map(Value::to_string).collect();
    let path = dir.join("incident.jsonl");
    std::fs::write(&path, text.join("\n") + "\n").unwrap();
    path
}

fn open(dir: &Path) -> App {
    let mut app = App::new(Options {
        snapshot: Some(write_timeline(dir)),
        ..Default::default()
    });
    assert!(app.wait_until_idle(SETTLE), "recording did not open");
    assert!(app.replay().is_some(), "a timeline opens in replay");
    app
}

fn screen(app: &App) -> String {
    common::render(app, 150, 40)
}

fn key(app: &mut App, code: KeyCode) {
    app.handle_key(KeyEvent::new(code, KeyModifiers::NONE));
    assert!(app.wait_until_idle(SETTLE));
}

/// `default/NAME` → its node in the cluster shown (`Some(None)`: pending).
fn where_is(app: &App, name: &str) -> Option<Option<String>> {
    let c = app.session()?.cluster();
    let id = c.find_pod("default", name)?;
    Some(c.pod(id).node_name.as_deref().map(str::to_string))
}

fn node_a_cordoned(app: &App) -> bool {
    let c = app.session().unwrap().cluster();
    c.nodes
        .iter()
        .any(|n| &*n.name == "node-a" && n.unschedulable)
}

#[test]
fn opens_at_the_start_with_a_timeline_bar() {
    let dir = tempfile::tempdir().unwrap();
    let app = open(dir.path());
    assert_eq!(where_is(&app, "web-new"), None);
    assert_eq!(where_is(&app, "web-old"), Some(Some("node-a".into())));
    let s = screen(&app);
    assert!(s.contains("⏸ 1×"), "{s}");
    assert!(s.contains("00:00 / 00:10"), "{s}");
    assert!(s.contains("event 0/4"), "{s}");
}

#[test]
fn stepping_by_event_shows_each_moment() {
    let dir = tempfile::tempdir().unwrap();
    let mut app = open(dir.path());
    key(&mut app, KeyCode::Char(']'));
    assert_eq!(where_is(&app, "web-new"), Some(None));
    key(&mut app, KeyCode::Char(']'));
    assert_eq!(where_is(&app, "web-new"), Some(Some("node-b".into())));
    assert_eq!(where_is(&app, "web-old"), Some(Some("node-a".into())));
    key(&mut app, KeyCode::Char(']'));
    assert_eq!(where_is(&app, "web-old"), None);
    assert!(!node_a_cordoned(&app));
    key(&mut app, KeyCode::Char(']'));
    assert!(node_a_cordoned(&app));
    assert!(screen(&app).contains("event 4/4"));
    // Past the end stays at the end; back steps undo.
    key(&mut app, KeyCode::Char(']'));
    assert!(screen(&app).contains("event 4/4"));
    key(&mut app, KeyCode::Char('['));
    key(&mut app, KeyCode::Char('['));
    assert_eq!(where_is(&app, "web-old"), Some(Some("node-a".into())));
    assert!(!node_a_cordoned(&app));
    assert!(screen(&app).contains("00:02 / 00:10"));
}

#[test]
fn jumping_and_stepping_by_time() {
    let dir = tempfile::tempdir().unwrap();
    let mut app = open(dir.path());
    command(&mut app, "at 0:02.5");
    assert_eq!(where_is(&app, "web-new"), Some(Some("node-b".into())));
    assert_eq!(where_is(&app, "web-old"), Some(Some("node-a".into())));
    command(&mut app, "at +1s");
    assert_eq!(where_is(&app, "web-old"), None);
    key(&mut app, KeyCode::Char('{'));
    assert_eq!(where_is(&app, "web-new"), None, "10 s back is the start");
    key(&mut app, KeyCode::Char('}'));
    assert!(node_a_cordoned(&app));
    assert!(screen(&app).contains("00:10 / 00:10"));
    command(&mut app, "at soon");
    assert!(screen(&app).contains("\"soon\": give a time"));
}

#[test]
fn play_runs_to_the_end_at_the_chosen_speed() {
    let dir = tempfile::tempdir().unwrap();
    let mut app = open(dir.path());
    for _ in 0..4 {
        key(&mut app, KeyCode::Char('+'));
    }
    assert!(screen(&app).contains("30×"));
    app.handle_key(KeyEvent::new(KeyCode::Char(' '), KeyModifiers::NONE));
    assert!(app.replay().unwrap().playing);
    assert!(screen(&app).contains("▶ 30×"));
    // 10 s of recording at 30× takes about a third of a second.
    assert!(app.wait_until_idle(Duration::from_secs(10)));
    let r = app.replay().unwrap();
    assert!(!r.playing);
    assert_eq!(r.position, 4);
    assert!(node_a_cordoned(&app));
}

#[test]
fn a_mark_compares_two_moments() {
    let dir = tempfile::tempdir().unwrap();
    let mut app = open(dir.path());
    key(&mut app, KeyCode::Char('m'));
    command(&mut app, "at end");
    key(&mut app, KeyCode::Char('8'));
    assert_eq!(app.view, View::Replay);
    let s = screen(&app);
    assert!(s.contains("context prod-eu"), "{s}");
    assert!(
        s.contains("Changes from the mark (00:00) to the moment shown (00:10)"),
        "{s}"
    );
    assert!(s.contains("Pods: 1 added, 1 removed, 0 moved"), "{s}");
    assert!(s.contains("+ default/web-new"), "{s}");
    assert!(s.contains("- default/web-old"), "{s}");
    assert!(s.contains("zone-2: 0 → 1"), "{s}");
    assert!(s.contains("mark 00:00"), "{s}");
    // node-a was cordoned at 0:04: the comparison names it.
    assert!(s.contains("Nodes: 1 changed"), "{s}");
    assert!(s.contains("~ node node-a: cordoned"), "{s}");
    // From 0:01 (web-new pending) to the end, web-new moved onto node-b.
    command(&mut app, "at 0:01");
    key(&mut app, KeyCode::Char('m'));
    command(&mut app, "at end");
    let s = screen(&app);
    assert!(s.contains("~ default/web-new: (pending) → node-b"), "{s}");
    assert!(s.contains("(pods, pending)"), "{s}");
    // Back before the cordon from a mark after it: uncordoned.
    command(&mut app, "at end");
    key(&mut app, KeyCode::Char('m'));
    command(&mut app, "at 0:02");
    let s = screen(&app);
    assert!(s.contains("~ node node-a: uncordoned"), "{s}");
    // Between two moments without node events: no node section.
    command(&mut app, "at 0:01");
    key(&mut app, KeyCode::Char('m'));
    command(&mut app, "at 0:03");
    let s = screen(&app);
    assert!(s.contains("Pods: 0 added, 1 removed, 1 moved"), "{s}");
    assert!(!s.contains("Nodes:"), "{s}");
}

/// The event loop's frames, without a key: the trust check's result must
/// be drawn when it arrives, not at the next key press.
#[test]
fn the_trust_check_result_is_drawn_without_a_key() {
    use ratatui::Terminal;
    use ratatui::backend::TestBackend;
    let dir = tempfile::tempdir().unwrap();
    let mut app = open(dir.path());
    // Only the trust check will be in flight.
    assert!(app.wait_until_idle(SETTLE));
    app.handle_key(KeyEvent::new(KeyCode::Char('8'), KeyModifiers::NONE));
    assert_eq!(app.view, View::Replay);
    let mut terminal = Terminal::new(TestBackend::new(150, 40)).unwrap();
    // The loop draws after a key; from here on it draws only when
    // `frame_due` says so, as `app::run` does.
    terminal.draw(|f| kplace::ui::draw(f, &app)).unwrap();
    let deadline = std::time::Instant::now() + SETTLE;
    loop {
        if app.frame_due() {
            terminal.draw(|f| kplace::ui::draw(f, &app)).unwrap();
        }
        let done = app
            .replay()
            .and_then(|r| r.trust.as_ref())
            .is_some_and(|t| t.result.is_some());
        if done {
            break;
        }
        assert!(
            std::time::Instant::now() < deadline,
            "trust check never finished"
        );
        std::thread::sleep(Duration::from_millis(5));
    }
    let buffer = terminal.backend().buffer();
    let mut shown = String::new();
    for y in 0..buffer.area.height {
        for x in 0..buffer.area.width {
            shown.push_str(buffer[(x, y)].symbol());
        }
        shown.push('\n');
    }
    assert!(!shown.contains("checking…"), "{shown}");
    assert!(
        shown.contains("1 binding · bound node among kplace's best nodes"),
        "{shown}"
    );
}

#[test]
fn placement_and_what_if_follow_the_moment() {
    let dir = tempfile::tempdir().unwrap();
    let mut app = open(dir.path());
    key(&mut app, KeyCode::Char(']'));
    // Placement of the pending pod at 0:01.
    key(&mut app, KeyCode::Char('5'));
    key(&mut app, KeyCode::Char('/'));
    for c in "web-new".chars() {
        key(&mut app, KeyCode::Char(c));
    }
    key(&mut app, KeyCode::Enter);
    key(&mut app, KeyCode::Enter);
    assert_eq!(app.view, View::Placement);
    assert!(screen(&app).contains("Placement: default/web-new"));
    // A what-if draft of it, then the moment changes under it.
    key(&mut app, KeyCode::Char('e'));
    assert_eq!(app.view, View::WhatIf);
    let answered = |app: &App| {
        let w = &app.session().unwrap().whatif;
        w.draft.is_some() && w.answer.is_some()
    };
    assert!(answered(&app));
    key(&mut app, KeyCode::Char(']'));
    key(&mut app, KeyCode::Char(']'));
    key(&mut app, KeyCode::Char(']'));
    assert!(node_a_cordoned(&app));
    assert!(
        answered(&app),
        "the draft is re-evaluated at the new moment"
    );
    let s = screen(&app);
    assert!(s.contains("node-b"), "{s}");
    // Back before web-new existed: Placement says so.
    command(&mut app, "at start");
    key(&mut app, KeyCode::Char('6'));
    let s = screen(&app);
    assert!(
        s.contains("default/web-new does not exist in the cluster shown"),
        "{s}"
    );
}

#[test]
fn demo_recording_replays_and_its_trust_check_lists_the_one_disagreement() {
    let mut app = App::new(Options {
        demo_replay: true,
        ..Default::default()
    });
    assert!(app.wait_until_idle(SETTLE));
    let len = app
        .replay()
        .expect("the demo recording opens in replay")
        .len();
    // At the start the ledger migration is pending; at the end it runs on
    // the node whose sandbox pods it preempted.
    let ledger = |app: &App| {
        let c = app.session().unwrap().cluster();
        let id = c.find_pod("payments", "ledger-migrate-x7k2p")?;
        Some(c.pod(id).node_name.as_deref().map(str::to_string))
    };
    assert_eq!(ledger(&app), Some(None));
    // Mark the start, then look after checkout was scaled down in one zone
    // (40 s; the two pods are gone by 51 s): its zone skew went from 0 to 2.
    key(&mut app, KeyCode::Char('m'));
    command(&mut app, "at 1:00");
    key(&mut app, KeyCode::Char('8'));
    key(&mut app, KeyCode::Char('G'));
    let s = screen(&app);
    let skew = s
        .lines()
        .find(|l| l.contains("checkout") && l.contains("skew"))
        .unwrap_or_else(|| panic!("no skew change for checkout:\n{s}"));
    assert!(skew.contains("skew 0 → 2"), "{skew}");
    assert!(
        skew.contains("eu-west-1a=10") && skew.contains("eu-west-1a=8"),
        "{skew}"
    );
    key(&mut app, KeyCode::Char('1'));
    command(&mut app, "at end");
    assert_eq!(ledger(&app), Some(Some("worker-b03".into())));
    assert!(screen(&app).contains(&format!("event {len}/{len}")));
    key(&mut app, KeyCode::Char('8'));
    key(&mut app, KeyCode::Char('g'));
    let s = screen(&app);
    assert!(s.contains("context kplace-demo"), "{s}");
    assert!(
        s.contains("13 bindings · bound node among kplace's best nodes 12/13 (92.3%)"),
        "{s}"
    );
    assert!(s.contains("1 preemption · victims agree 1/1"), "{s}");
    assert!(s.contains("Disagreements (1)"), "{s}");
    assert!(
        s.contains(
            "bound to worker-a05 (feasible); kplace: scheduled, best worker-c03, worker-c04"
        ),
        "{s}"
    );
    // n: to the moment kplace answered for, on that pod's Placement.
    key(&mut app, KeyCode::Char('n'));
    assert_eq!(app.view, View::Placement);
    let s = screen(&app);
    assert!(s.contains("Placement: shop/cart-7c9f8d6b5-csvrf"), "{s}");
    assert!(s.contains("was bound at 02:10"), "{s}");
    let c = app.session().unwrap().cluster();
    let pod = c
        .find_pod("shop", "cart-7c9f8d6b5-csvrf")
        .expect("exists then");
    assert!(
        c.pod(pod).node_name.is_none(),
        "still pending at that moment"
    );
}

/// Recorded objects the API server would refuse are left out of every
/// moment, and a banner says so, with the first one's line and reason,
/// escaped; a recording without any has no banner.
#[test]
fn replay_names_the_recorded_objects_it_left_out() {
    let dir = tempfile::tempdir().unwrap();
    let path = write_timeline(dir.path());
    let text = std::fs::read_to_string(&path).unwrap();
    let mut clean = App::new(Options {
        snapshot: Some(path.clone()),
        ..Default::default()
    });
    assert!(clean.wait_until_idle(SETTLE));
    assert!(!screen(&clean).contains("left out"), "{}", screen(&clean));
    // `web-keep` renamed to a name no API server accepts.
    let bad = dir.path().join("bad.jsonl");
    std::fs::write(&bad, text.replacen("\"web-keep\"", "\"Web\\u001b[2J\"", 1)).unwrap();
    let mut app = App::new(Options {
        snapshot: Some(bad),
        ..Default::default()
    });
    assert!(app.wait_until_idle(SETTLE));
    let s = common::render(&app, 200, 40);
    assert!(
        s.contains(
            "1 recorded object(s) left out, as the API server would refuse them; the first: line"
        ),
        "{s}"
    );
    assert!(
        s.contains("Pod default/Web\\x1b[2J: metadata.name: Invalid value"),
        "{s}"
    );
    assert!(where_is(&app, "web-keep").is_none());
    assert_eq!(where_is(&app, "web-old"), Some(Some("node-a".into())));
}
