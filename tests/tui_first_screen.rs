//! The first screen does not wait for the slow view caches (#15 item 2):
//! the Overview and Nodes draw from the cheap ones, Pods, Skew and Tiers say
//! what they are building, and each fills in on its own, without a key
//! press, exactly as it would have had everything been built up front.

mod common;

use std::time::Duration;

use crossterm::event::{KeyCode, KeyEvent, KeyModifiers};
use kplace::app::loader::Loaded;
use kplace::app::{App, Options};

const SETTLE: Duration = Duration::from_secs(60);

fn press(app: &mut App, c: char) {
    app.handle_key(KeyEvent::new(KeyCode::Char(c), KeyModifiers::NONE));
}

/// What the event loop does before a frame: take what arrived, then draw.
fn frame(app: &mut App) -> String {
    app.frame_due();
    common::render(app, 200, 50)
}

fn eager_app() -> App {
    let cluster = kplace::app::demo::load_demo().expect("demo loads");
    let mut app = App::with_cluster(cluster, "demo", Options::default());
    assert!(app.wait_until_idle(SETTLE));
    app
}

fn cold_app() -> App {
    let cluster = kplace::app::demo::load_demo().expect("demo loads");
    let loaded = Loaded::cold(cluster, "demo".into(), Duration::ZERO);
    App::with_loaded(loaded, Options::default())
}

#[test]
fn the_overview_and_nodes_draw_before_the_slow_caches_exist() {
    let mut app = cold_app();
    let screen = frame(&mut app);
    assert!(screen.contains("Pending pods (6)"), "{screen}");
    assert!(screen.contains("eu-west-1a"), "{screen}");
    assert!(
        screen.contains("32 nodes · 3 zones · 404 pods (6 pending)"),
        "{screen}"
    );
    press(&mut app, '4');
    let screen = frame(&mut app);
    assert!(screen.contains("Nodes (32)"), "{screen}");
    let derived = &app.session().expect("ready").loaded.derived;
    assert!(derived.pods().is_none() && derived.fleet().is_none() && derived.tiers().is_none());
    // Nothing is idle until they are built.
    assert!(app.busy());
}

#[test]
fn each_slow_view_says_what_it_builds_then_shows_it_without_a_key() {
    let mut eager = eager_app();
    let mut app = cold_app();

    for (key, title, building) in [
        ('5', "Pods (404)", "building the pod table (404 pods)"),
        (
            '2',
            "Workloads (",
            "building the workload list from 404 pods",
        ),
        ('3', "Priority tiers:", "building the tiers from 404 pods"),
    ] {
        press(&mut app, key);
        let screen = frame(&mut app);
        assert!(screen.contains(building), "{key}: {screen}");
        assert!(!screen.contains(title), "{key}: {screen}");
    }

    // The warming thread's work, done here: each cache, then frames only.
    let session = app.session().expect("ready");
    session.loaded.derived.pods_now();
    press(&mut app, '5');
    let screen = frame(&mut app);
    assert!(screen.contains("Pods (404)"), "{screen}");

    let session = app.session().expect("ready");
    session.loaded.derived.fleet_now();
    session.loaded.derived.tiers_now();
    assert!(app.wait_until_idle(SETTLE), "did not settle once built");

    // Every view as the app that built everything first draws it: the same
    // rows, the same starting selections (the biggest hard-spread workload,
    // the default tier) and the same engine answers.
    for key in ['1', '2', '3', '4', '5'] {
        press(&mut app, key);
        press(&mut eager, key);
        assert!(app.wait_until_idle(SETTLE) && eager.wait_until_idle(SETTLE));
        let (late, early) = (frame(&mut app), frame(&mut eager));
        assert_eq!(late, early, "view {key} differs once its cache arrived");
    }
}

#[test]
fn a_filter_typed_while_the_pod_table_builds_applies_when_it_arrives() {
    let mut app = cold_app();
    press(&mut app, '5');
    for c in "/ledger".chars() {
        press(&mut app, c);
    }
    app.handle_key(KeyEvent::new(KeyCode::Enter, KeyModifiers::NONE));
    app.session().expect("ready").loaded.derived.pods_now();
    let screen = frame(&mut app);
    assert!(screen.contains("ledger-migrate-x7k2p"), "{screen}");
    assert!(!screen.contains("frontend-"), "{screen}");
}

#[test]
fn a_snapshot_file_opens_with_its_caches_warmed_in_the_background() {
    let dir = tempfile::tempdir().expect("temp dir");
    let path = dir.path().join("cluster.json");
    let mut json = Vec::new();
    kplace::synth::write_cluster_json(&mut json, &kplace::synth::SynthSpec::small())
        .expect("synth");
    std::fs::write(&path, json).expect("write");
    let mut app = App::new(Options {
        snapshot: Some(path),
        ..Default::default()
    });
    // No view asks for the slow caches: the warming thread builds them.
    assert!(app.wait_until_idle(SETTLE), "did not settle");
    let derived = &app.session().expect("ready").loaded.derived;
    assert!(derived.complete());
    let pods = derived.pods().expect("built").rows.len();
    press(&mut app, '5');
    let screen = frame(&mut app);
    assert!(screen.contains(&format!("Pods ({pods})")), "{screen}");
}

/// The namespaces `:ns` offers, from the error naming them all.
fn namespaces_offered(app: &mut App) -> String {
    for c in ":ns nowhere".chars() {
        press(app, c);
    }
    app.handle_key(KeyEvent::new(KeyCode::Enter, KeyModifiers::NONE));
    let screen = frame(app);
    let line = screen
        .lines()
        .find(|l| l.contains("no pods or workloads in namespace \"nowhere\""))
        .unwrap_or_else(|| panic!("no :ns error:\n{screen}"))
        .to_string();
    line.trim().to_string()
}

#[test]
fn ns_works_before_the_tables_exist_and_offers_the_same_namespaces() {
    let mut app = cold_app();
    // It neither waits for nor builds the pod table.
    let cold = namespaces_offered(&mut app);
    assert!(app.session().unwrap().loaded.derived.pods().is_none());
    let mut eager = eager_app();
    assert_eq!(cold, namespaces_offered(&mut eager));
    assert!(cold.contains("payments") && cold.contains("shop"), "{cold}");

    for c in ":ns payments".chars() {
        press(&mut app, c);
    }
    app.handle_key(KeyEvent::new(KeyCode::Enter, KeyModifiers::NONE));
    let screen = frame(&mut app);
    assert!(screen.contains("ns:payments"), "{screen}");
    // The pod table, when it arrives, shows that namespace only.
    app.session().unwrap().loaded.derived.pods_now();
    press(&mut app, '5');
    let screen = frame(&mut app);
    assert!(screen.contains("Pods [payments]"), "{screen}");
    assert!(!screen.contains(" shop "), "{screen}");
}
