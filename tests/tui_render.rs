//! The TUI drawn into ratatui's `TestBackend` on the built-in demo cluster:
//! assertions on the text a person would read, and key-driven state changes.

mod common;

use std::time::Duration;

use crossterm::event::{KeyCode, KeyEvent, KeyModifiers, MouseEvent, MouseEventKind};
use kplace::app::{App, Options, Overlay, View};
use kplace::engine::{Outcome, place_existing};

const SETTLE: Duration = Duration::from_secs(60);

fn demo_app() -> App {
    let mut app = App::new(Options {
        demo: true,
        ..Default::default()
    });
    assert!(app.wait_until_idle(SETTLE), "demo did not load and settle");
    app
}

/// The screen as text, one string per row.
fn screen(app: &App, width: u16, height: u16) -> String {
    common::render(app, width, height)
}

fn key(app: &mut App, code: KeyCode) {
    app.handle_key(KeyEvent::new(code, KeyModifiers::NONE));
    assert!(app.wait_until_idle(SETTLE), "engine did not answer in time");
}

fn keys(app: &mut App, text: &str) {
    for c in text.chars() {
        key(app, KeyCode::Char(c));
    }
}

fn line_with<'a>(screen: &'a str, needle: &str) -> &'a str {
    screen
        .lines()
        .find(|l| l.contains(needle))
        .unwrap_or_else(|| panic!("no line contains {needle:?}:\n{screen}"))
}

#[test]
fn demo_pending_pods_get_the_outcomes_their_story_says() {
    let cluster = kplace::app::demo::load_demo().expect("demo loads");
    assert_eq!(cluster.nodes.len(), 32);
    assert!(
        (350..=450).contains(&cluster.pods.len()),
        "{} pods",
        cluster.pods.len()
    );
    let user_classes = [
        "best-effort",
        "batch",
        "standard",
        "business-critical",
        "system-cluster-critical",
    ];
    for name in user_classes {
        assert!(
            cluster.priority_class(name).is_some(),
            "missing class {name}"
        );
    }
    assert!(
        cluster
            .priority_class("standard")
            .is_some_and(|c| c.global_default)
    );
    let outcome = |ns: &str, name: &str| {
        let id = cluster
            .find_pod(ns, name)
            .unwrap_or_else(|| panic!("no pod {ns}/{name}"));
        assert!(
            cluster.pod(id).node.is_none(),
            "{ns}/{name} should be pending"
        );
        place_existing(&cluster, id, &kplace::engine::Scheduler::default())
    };

    let spread = outcome("shop", "frontend-6b8f7c5d4-r6ndz");
    assert_eq!(spread.outcome, Outcome::Unschedulable);
    assert!(
        spread
            .message
            .contains("didn't match pod topology spread constraints"),
        "{}",
        spread.message
    );

    let preempt = outcome("payments", "ledger-migrate-x7k2p");
    assert_eq!(preempt.outcome, Outcome::Preempt);
    let p = preempt.preemption.as_ref().expect("preemption answer");
    assert!(!p.victims.is_empty());
    assert!(
        p.victims
            .iter()
            .all(|&v| cluster.pod(v).priority_value() < 100_000)
    );

    let never_fits = outcome("ml", "trainer-xl");
    assert_eq!(never_fits.outcome, Outcome::Unschedulable);
    assert!(
        never_fits.message.contains("Insufficient cpu"),
        "{}",
        never_fits.message
    );

    let waits = outcome("batch", "reports-adhoc-q8w4n");
    assert_eq!(waits.outcome, Outcome::Unschedulable);
    assert!(
        waits
            .preemption
            .as_ref()
            .and_then(|p| p.ineligible_reason.as_deref())
            .is_some_and(|r| r.contains("Never"))
    );

    // The DRA pool has one free GPU per node; the claim asks for two.
    let devices = outcome("ml", "finetune-llm-7wq4z");
    assert_eq!(devices.outcome, Outcome::Unschedulable);
    assert!(
        devices.message.contains("2 cannot allocate all claims"),
        "{}",
        devices.message
    );
    let free: Vec<(String, usize, usize)> = devices
        .device_availability
        .iter()
        .map(|n| {
            let r = &n.requests[0];
            (cluster.node(n.node).name.to_string(), r.free, r.matching)
        })
        .collect();
    assert_eq!(
        free,
        [("gpu-b01".to_string(), 1, 4), ("gpu-b02".to_string(), 1, 4)]
    );

    assert_eq!(
        outcome("shop", "cart-7c9f8d6b5-new01").outcome,
        Outcome::Scheduled
    );
}

#[test]
fn overview_shows_zones_with_node_counts_and_outcome_counts() {
    let app = demo_app();
    let s = screen(&app, 160, 48);
    assert!(line_with(&s, "eu-west-1a").contains("12 nodes"), "{s}");
    assert!(line_with(&s, "eu-west-1b ").contains("14 nodes"), "{s}");
    assert!(line_with(&s, "eu-west-1c ").contains("6 nodes"), "{s}");
    assert!(
        s.contains("would schedule 1 · preempt 1 · unschedulable 4"),
        "{s}"
    );
    assert!(
        line_with(&s, "ledger-migrate-x7k2p").contains("preempt → worker-b03"),
        "{s}"
    );
    assert!(s.contains("Pending pods (6)"), "{s}");
    // Tab bar lists every view with its number key.
    let tabs = line_with(&s, "1 Overview");
    for label in ["2 Skew", "3 Tiers", "4 Nodes", "5 Pods", "6 Placement"] {
        assert!(tabs.contains(label), "{tabs}");
    }
}

#[test]
fn overview_zones_share_one_layout_whatever_their_flags() {
    let app = demo_app();
    let zones = ["eu-west-1a", "eu-west-1b", "eu-west-1c"];
    // The zone pane's lines, inside its borders.
    let zone_rows = |s: &str| -> Vec<String> {
        s.lines()
            .skip_while(|l| !l.contains("Zones: requested"))
            .skip(1)
            .take_while(|l| !l.starts_with('└'))
            .map(|l| l.split('│').nth(1).unwrap_or("").to_string())
            .collect()
    };
    // 140 columns: the flagged zones need two lines, so every zone takes
    // two (eu-west-1c has no flags and once kept to one).
    let s = screen(&app, 140, 40);
    let rows = zone_rows(&s);
    assert_eq!(rows.len(), 2 * zones.len(), "{s}");
    for (i, zone) in zones.iter().enumerate() {
        let (heading, bars) = (&rows[2 * i], &rows[2 * i + 1]);
        assert!(heading.trim_start().starts_with(zone), "{heading:?}\n{s}");
        assert!(
            heading.contains("nodes)") && !heading.contains("cpu "),
            "{heading:?}\n{s}"
        );
        assert!(
            bars.contains("cpu ") && bars.contains("mem "),
            "{bars:?}\n{s}"
        );
    }
    // Wide enough for every zone on one line: one line each.
    let s = screen(&app, 240, 50);
    let rows = zone_rows(&s);
    assert_eq!(rows.len(), zones.len(), "{s}");
    for (row, zone) in rows.iter().zip(zones) {
        assert!(
            row.trim_start().starts_with(zone) && row.contains("cpu "),
            "{row:?}\n{s}"
        );
    }
}

#[test]
fn tiers_lists_classes_by_value_with_markers_and_headroom() {
    let mut app = demo_app();
    key(&mut app, KeyCode::Char('3'));
    assert_eq!(app.view, View::Tiers);
    let s = screen(&app, 160, 48);
    let order: Vec<usize> = [
        "system-node-critical",
        "system-cluster-critical",
        "business-critical",
        "standard ",
        "batch ",
        "best-effort",
    ]
    .iter()
    .map(|name| {
        s.find(name)
            .unwrap_or_else(|| panic!("no tier {name}:\n{s}"))
    })
    .collect();
    assert!(
        order.windows(2).all(|w| w[0] < w[1]),
        "tiers not by value:\n{s}"
    );
    assert!(line_with(&s, "standard ").contains("default"), "{s}");
    assert!(line_with(&s, "batch ").contains("Never"), "{s}");
    // Default P is the globalDefault tier; zone c holds nothing it may preempt.
    assert!(
        s.contains("Headroom per zone for a pod at standard (10000)"),
        "{s}"
    );
    assert!(
        line_with(&s, "eu-west-1c       cpu").contains("preemptible 0 "),
        "{s}"
    );
    // Picking a higher P changes the headroom title.
    key(&mut app, KeyCode::Up);
    let s = screen(&app, 160, 48);
    assert!(
        s.contains("Headroom per zone for a pod at business-critical (100000)"),
        "{s}"
    );
}

#[test]
fn tiers_headroom_lines_keep_their_words_whole_from_80_columns() {
    let mut app = demo_app();
    key(&mut app, KeyCode::Char('3'));
    let counts = [
        ("eu-west-1a", "on 10 of 12 nodes"),
        ("eu-west-1b", "on 10 of 14 nodes"),
        ("eu-west-1c", "on 6 of 6 nodes"),
    ];
    for width in [80u16, 100, 120, 140, 200] {
        let s = screen(&app, width, 48);
        let headroom: Vec<&str> = s
            .lines()
            .skip_while(|l| !l.contains("Headroom per zone"))
            .map(|l| l.trim_end_matches([' ', '│']))
            .collect();
        for (zone, count) in counts {
            // The zone's node count whole, on the zone's own line (beside
            // its cpu bar when there is room, above it otherwise).
            assert!(
                headroom
                    .iter()
                    .any(|l| l.contains(zone) && l.ends_with(count)),
                "{width} columns: {zone} {count:?}\n{s}"
            );
        }
        // Every bar line ends with its words, none carried to the next line.
        let bars: Vec<&&str> = headroom
            .iter()
            .filter(|l| l.contains(" cpu ") || l.contains(" mem "))
            .collect();
        assert_eq!(bars.len(), 6, "{width} columns:\n{s}");
        for l in bars {
            let end = if l.contains(" mem ") { "Gi" } else { "" };
            assert!(
                l.contains(" free ") && l.ends_with(end),
                "{width} columns: {l:?}\n{s}"
            );
            assert!(
                l.contains("  of ") && !l.ends_with(" of") && !l.ends_with("  on"),
                "{width} columns: {l:?}\n{s}"
            );
        }
        assert!(
            !headroom.iter().any(|l| {
                let l = l.trim_start_matches(['│', ' ']);
                l == "nodes" || l.ends_with(" nodes") && !l.contains(" on ")
            }),
            "{width} columns:\n{s}"
        );
    }
}

#[test]
fn skew_shows_domain_counts_min_and_max_skew() {
    let mut app = demo_app();
    key(&mut app, KeyCode::Char('2'));
    let s = screen(&app, 160, 48);
    assert!(
        s.contains("Skew: ReplicaSet shop/frontend-6b8f7c5d4 over topology.kubernetes.io/zone"),
        "{s}"
    );
    assert!(s.contains("global minimum 20"), "{s}");
    assert!(s.contains("maxSkew 1 (DoNotSchedule)"), "{s}");
    let a = line_with(&s, "eu-west-1a █");
    assert!(
        a.contains("21 pods") && a.contains("would violate: skew 2 > maxSkew 1"),
        "{a}"
    );
    // Within maxSkew, but the small zone is full: the engine's filters
    // find no node there, so it may not take the next pod either.
    let c = line_with(&s, "eu-west-1c █");
    assert!(
        c.contains("20 pods") && c.contains("✗ no node fits now: Insufficient cpu"),
        "{c}"
    );
    assert!(!s.contains("may take the next pod"), "{s}");
    assert!(
        s.contains("nodeAffinityPolicy Honor  nodeTaintsPolicy Ignore"),
        "{s}"
    );
    // The pending replica the spread keeps out is listed too.
    assert!(s.contains("pod shop/frontend-6b8f7c5d4-r6ndz"), "{s}");
    // t cycles the constraints: the hostname one scores only, its domains
    // are the nodes.
    key(&mut app, KeyCode::Char('t'));
    let s = screen(&app, 160, 48);
    assert!(s.contains("over kubernetes.io/hostname"), "{s}");
    assert!(s.contains("constraint 2 of 2"), "{s}");
    assert!(s.contains("maxSkew 2 (ScheduleAnyway"), "{s}");
    assert!(s.contains("worker-a01"), "{s}");
}

#[test]
fn placement_explains_the_spread_blocked_pod() {
    let mut app = demo_app();
    key(&mut app, KeyCode::Char('5'));
    keys(&mut app, "/frontend-6b8f7c5d4-r6ndz");
    key(&mut app, KeyCode::Enter);
    key(&mut app, KeyCode::Enter);
    assert_eq!(app.view, View::Placement);
    let s = screen(&app, 160, 48);
    assert!(
        s.contains("Placement: shop/frontend-6b8f7c5d4-r6ndz"),
        "{s}"
    );
    assert!(s.contains("UNSCHEDULABLE"), "{s}");
    assert!(s.contains("0/32 nodes are available"), "{s}");
    assert!(
        s.contains("     20  node(s) didn't match pod topology spread constraints"),
        "{s}"
    );
    assert!(s.contains("PodTopologySpread · Unschedulable"), "{s}");
}

#[test]
fn placement_shows_the_victims_of_the_preempting_pod() {
    let mut app = demo_app();
    // From the Overview's pending list: the third pending pod is the ledger job.
    key(&mut app, KeyCode::Down);
    key(&mut app, KeyCode::Down);
    key(&mut app, KeyCode::Enter);
    let s = screen(&app, 160, 60);
    assert!(
        s.contains("PREEMPT → worker-b03 after evicting 8 pod(s)"),
        "{s}"
    );
    assert!(s.contains("Victims on worker-b03 (8)"), "{s}");
    let victims: Vec<&str> = s
        .lines()
        .filter(|l| {
            l.trim_start_matches('│')
                .starts_with("  lab/sandbox-b7c6d5f48-")
        })
        .collect();
    assert_eq!(victims.len(), 8, "{s}");
    assert!(
        victims
            .iter()
            .all(|l| l.contains(" 100 ") && l.contains("5s")),
        "{victims:?}"
    );
    // Scroll to the candidates: other nodes lose on PDB violations.
    for _ in 0..3 {
        key(&mut app, KeyCode::PageDown);
    }
    let s = screen(&app, 160, 60);
    assert!(s.contains("more PDB violations"), "{s}");
    assert!(s.contains("kplace evaluates all 32 nodes"), "{s}");
}

#[test]
fn bound_pod_placement_says_where_it_would_go_if_rescheduled() {
    let mut app = demo_app();
    key(&mut app, KeyCode::Char('5'));
    keys(&mut app, "/postgres-0");
    key(&mut app, KeyCode::Enter);
    key(&mut app, KeyCode::Enter);
    let s = screen(&app, 160, 48);
    assert!(s.contains("Placement: data/postgres-0"), "{s}");
    assert!(s.contains("The pod is bound"), "{s}");
    assert!(s.contains("Ranked nodes"), "{s}");
}

#[test]
fn number_keys_switch_views_and_esc_goes_back() {
    let mut app = demo_app();
    for (c, view, title) in [
        ('4', View::Nodes, "Nodes (32)"),
        ('5', View::Pods, "Pods (404)"),
        ('6', View::Placement, "No pod selected"),
        ('2', View::Skew, "Workloads (12)"),
        ('1', View::Overview, "Pending pods (6)"),
    ] {
        key(&mut app, KeyCode::Char(c));
        assert_eq!(app.view, view);
        let s = screen(&app, 160, 48);
        assert!(s.contains(title), "{c}: {s}");
    }
    key(&mut app, KeyCode::Esc);
    assert_eq!(app.view, View::Skew);
    key(&mut app, KeyCode::Tab);
    assert_eq!(app.view, View::Tiers);
}

#[test]
fn slash_search_narrows_the_pods_table() {
    let mut app = demo_app();
    key(&mut app, KeyCode::Char('5'));
    let before = screen(&app, 160, 48);
    assert!(before.contains("reports-67f9d8c4b-"), "{before}");
    keys(&mut app, "/trainer-xl");
    let s = screen(&app, 160, 48);
    let title = line_with(&s, "/trainer-xl");
    let shown: usize = title
        .split("Pods (")
        .nth(1)
        .and_then(|t| t.split('/').next())
        .and_then(|n| n.parse().ok())
        .unwrap_or_else(|| panic!("no count in {title}"));
    assert!((1..10).contains(&shown), "{title}");
    // Best match first: the first data row is the pod typed.
    assert!(s.lines().nth(4).unwrap_or("").contains("trainer-xl"), "{s}");
    assert!(!s.contains("reports-67f9d8c4b-"), "{s}");
    // Esc clears the filter; the table is whole again.
    key(&mut app, KeyCode::Esc);
    let s = screen(&app, 160, 48);
    assert!(s.contains("Pods (404)"), "{s}");
}

#[test]
fn sort_key_cycles_the_nodes_sort_column() {
    let mut app = demo_app();
    key(&mut app, KeyCode::Char('4'));
    assert!(screen(&app, 160, 48).contains("sort: NAME↑"));
    keys(&mut app, "ss");
    let s = screen(&app, 160, 48);
    assert!(s.contains("sort: PODS↑"), "{s}");
    // Its shift-letter again reverses it.
    key(&mut app, KeyCode::Char('P'));
    let s = screen(&app, 160, 48);
    assert!(s.contains("sort: PODS↓"), "{s}");
    // Most pods first: the first data row is a general worker, not a GPU node.
    let first = s.lines().nth(4).unwrap_or("");
    assert!(first.contains("worker-"), "{s}");
}

#[test]
fn help_overlay_lists_the_keys() {
    let mut app = demo_app();
    key(&mut app, KeyCode::Char('?'));
    assert!(matches!(app.overlay, Overlay::Help));
    let s = screen(&app, 200, 60);
    assert!(s.contains("Help: keys"), "{s}");
    for k in [
        "1-8",
        "ctrl-c / ctrl-q",
        "space",
        "+ / =",
        ":at TIME",
        "pgup",
        "shift-letter",
        "esc",
        ":",
        "/",
    ] {
        assert!(s.contains(k), "help lacks {k:?}:\n{s}");
    }
    key(&mut app, KeyCode::Esc);
    assert!(matches!(app.overlay, Overlay::None));
}

#[test]
fn palette_completes_and_runs_commands() {
    let mut app = demo_app();
    keys(&mut app, ":tie");
    let s = screen(&app, 160, 48);
    assert!(s.contains(":tie"), "{s}");
    assert!(s.contains(" tiers "), "{s}");
    key(&mut app, KeyCode::Enter);
    assert_eq!(app.view, View::Tiers);
    keys(&mut app, ":theme light");
    key(&mut app, KeyCode::Enter);
    if std::env::var_os("NO_COLOR").is_none() {
        assert_eq!(app.theme.name, "light");
        assert!(screen(&app, 160, 48).contains("theme light"));
    }
    keys(&mut app, ":theme nope");
    key(&mut app, KeyCode::Enter);
    let s = screen(&app, 160, 48);
    assert!(s.contains("no theme named \"nope\""), "{s}");
    keys(&mut app, ":q");
    key(&mut app, KeyCode::Enter);
    assert!(app.should_quit);
}

#[test]
fn too_small_terminal_says_so() {
    let app = demo_app();
    let s = screen(&app, 40, 10);
    assert!(s.contains("terminal too small"), "{s}");
    // A normal size draws the views again.
    assert!(!screen(&app, 160, 48).contains("terminal too small"));
}

#[test]
fn mouse_wheel_moves_the_selection() {
    let mut app = demo_app();
    key(&mut app, KeyCode::Char('5'));
    let wheel = MouseEvent {
        kind: MouseEventKind::ScrollDown,
        column: 10,
        row: 10,
        modifiers: KeyModifiers::NONE,
    };
    app.handle_mouse(wheel);
    let selected = app.session().map(|s| s.pods.cursor.selected);
    assert_eq!(selected, Some(3));
}

#[test]
fn q_and_ctrl_c_quit() {
    let mut app = demo_app();
    key(&mut app, KeyCode::Char('q'));
    assert!(app.should_quit);
    let mut app = demo_app();
    app.handle_key(KeyEvent::new(KeyCode::Char('c'), KeyModifiers::CONTROL));
    assert!(app.should_quit);
}

#[test]
fn load_errors_name_the_file_and_can_be_quit() {
    let dir = tempfile::tempdir().expect("tempdir");
    let path = dir.path().join("broken.yaml");
    std::fs::write(
        &path,
        "apiVersion: v1\nkind: Pod\nmetadata:\n  name: web\n  namespace: default\nspec:\n  containers:\n  - name: c\n    resources:\n      requests:\n        cpu: lots\n",
    )
    .expect("write");
    let mut app = common::snapshot_app(path.clone());
    let s = screen(&app, 160, 48);
    assert!(s.contains("Could not load"), "{s}");
    // The error names the file and the line of the bad field (`cpu: lots`
    // is line 11), the object and the field.
    let error = line_with(&s, "broken.yaml:11: ");
    assert!(error.contains("Pod default/web"), "{error}");
    assert!(
        error.contains("spec.containers[0].resources.requests.cpu"),
        "{error}"
    );
    key(&mut app, KeyCode::Char('q'));
    assert!(app.should_quit);
}

#[test]
fn pod_option_opens_its_placement() {
    let mut app = App::new(Options {
        demo: true,
        pod: Some("ml/trainer-xl".into()),
        ..Default::default()
    });
    assert!(app.wait_until_idle(SETTLE));
    assert_eq!(app.view, View::Placement);
    let s = screen(&app, 160, 48);
    assert!(s.contains("Placement: ml/trainer-xl"), "{s}");
    assert!(s.contains("Insufficient cpu"), "{s}");
}

/// The demo opened as `kplace --demo [-n NAMESPACE] [--pod POD]` would
/// open it, settled.
fn demo_opened_with(namespace: Option<&str>, pod: Option<&str>) -> App {
    let mut app = App::new(Options {
        demo: true,
        namespace: namespace.map(str::to_string),
        pod: pod.map(str::to_string),
        ..Default::default()
    });
    assert!(app.wait_until_idle(SETTLE));
    app
}

/// `--pod NAME` alone opens the one pod of that name; a name in the wrong
/// namespace is refused with the namespaces that hold a pod of that name.
#[test]
fn pod_option_takes_a_unique_name_alone_and_says_where_a_name_lives() {
    let app = demo_opened_with(None, Some("trainer-xl"));
    assert_eq!(app.view, View::Placement);
    assert!(screen(&app, 160, 48).contains("Placement: ml/trainer-xl"));
    let app = demo_opened_with(None, Some("shop/trainer-xl"));
    assert_ne!(app.view, View::Placement);
    let s = screen(&app, 160, 48);
    assert!(
        s.contains("--pod shop/trainer-xl: no such pod in built-in demo cluster (pods of that name: ml/trainer-xl)"),
        "{s}"
    );
}

/// `-n NAMESPACE` opens with the lists showing that namespace only, as
/// `:ns NAME` does, and a `--pod NAME` is looked up in it.
#[test]
fn namespace_option_filters_the_lists_and_places_a_named_pod_in_it() {
    let s = screen(&demo_opened_with(Some("shop"), None), 160, 48);
    assert!(s.contains("shop/frontend-6b8f7c5d4-r6ndz"), "{s}");
    assert!(
        !s.contains("ml/trainer-xl"),
        "another namespace's pod is listed:\n{s}"
    );
    assert!(s.contains("namespace shop"), "{s}");
    // The outcome counts describe the pods listed: shop's two.
    assert!(
        s.contains("would schedule 1 · preempt 0 · unschedulable 1"),
        "{s}"
    );
    let app = demo_opened_with(Some("ml"), Some("trainer-xl"));
    assert_eq!(app.view, View::Placement);
    assert!(screen(&app, 160, 48).contains("Placement: ml/trainer-xl"));
    let s = screen(&demo_opened_with(Some("nowhere"), None), 160, 48);
    assert!(
        s.contains("no pods or workloads in namespace \"nowhere\""),
        "{s}"
    );
    assert!(s.contains("ml/trainer-xl"), "the lists stay whole:\n{s}");
}

#[test]
fn bad_theme_option_falls_back_with_a_message() {
    let app = App::new(Options {
        demo: true,
        theme: Some("no-such-theme".into()),
        ..Default::default()
    });
    if std::env::var_os("NO_COLOR").is_none() {
        assert_eq!(app.theme.name, "dark");
        let s = screen(&app, 160, 48);
        assert!(s.contains("no theme named \"no-such-theme\""), "{s}");
    }
}

#[test]
fn bad_user_theme_file_is_named_in_the_message() {
    let dir = tempfile::tempdir().expect("tempdir");
    std::fs::write(dir.path().join("mine.toml"), "good = \"chartreuse-ish\"\n").expect("write");
    std::fs::write(dir.path().join("ok.toml"), "accent = \"#ff8800\"\n").expect("write");
    let mut catalog = kplace::app::theme::ThemeCatalog::built_in();
    catalog.add_dir(dir.path());
    let err = catalog.resolve("mine").expect_err("bad colour");
    assert!(
        err.contains("mine.toml") && err.contains("good") && err.contains("using dark"),
        "{err}"
    );
    let ok = catalog.resolve("ok").expect("partial theme");
    assert_eq!(ok.accent, ratatui::style::Color::Rgb(0xff, 0x88, 0x00));
    // Unset colours come from the default theme.
    assert_eq!(ok.bad, kplace::app::theme::Theme::default_theme().bad);
}

#[test]
fn loading_screen_names_the_file_until_loaded() {
    let dir = tempfile::tempdir().expect("tempdir");
    let path = dir.path().join("cluster.json");
    let mut json = Vec::new();
    std::io::Read::read_to_end(
        &mut flate2::read::GzDecoder::new(kplace::app::demo::DEMO_SNAPSHOT_GZ),
        &mut json,
    )
    .expect("gunzip");
    std::fs::write(&path, json).expect("write");
    let mut app = App::new(Options {
        snapshot: Some(path),
        ..Default::default()
    });
    // Nothing has been pumped yet: the loading screen shows.
    let s = screen(&app, 160, 48);
    assert!(s.contains("Loading") && s.contains("cluster.json"), "{s}");
    assert!(s.contains("elapsed"), "{s}");
    // The release is chosen from the snapshot once it is read: the title
    // names none before (not the fallback the answers may not use).
    let title = s.lines().next().unwrap_or_default();
    assert!(!title.contains("rules"), "{title}");
    assert!(app.wait_until_idle(SETTLE));
    let s = screen(&app, 160, 48);
    assert!(s.contains("Pending pods (6)"));
    assert!(
        line_with(&s, " kplace ").contains("kube-scheduler v1.34 rules"),
        "{s}"
    );
}

#[test]
fn loading_screen_names_a_release_given_on_the_command_line() {
    let dir = tempfile::tempdir().expect("tempdir");
    let path = dir.path().join("cluster.json");
    std::fs::write(&path, "{}").expect("write");
    let app = App::new(Options {
        snapshot: Some(path),
        scheduler_version: Some(kplace::engine::Version::V1_31),
        ..Default::default()
    });
    let s = screen(&app, 160, 48);
    assert!(s.contains("Loading"), "{s}");
    let title = s.lines().next().unwrap_or_default();
    assert!(title.contains("kube-scheduler v1.31 rules"), "{title}");
}

#[test]
fn help_scrolls_on_a_short_terminal() {
    let mut app = demo_app();
    key(&mut app, KeyCode::Char('?'));
    let s = screen(&app, 100, 30);
    assert!(s.contains("↑↓ pgup pgdn scroll"), "{s}");
    assert!(s.contains("General"), "{s}");
    assert!(
        !s.contains("Filter, palette, searches, form fields and the YAML editor"),
        "{s}"
    );
    for _ in 0..10 {
        key(&mut app, KeyCode::PageDown);
    }
    let s = screen(&app, 100, 30);
    assert!(
        s.contains("Filter, palette, searches, form fields and the YAML editor"),
        "{s}"
    );
    assert!(!s.contains("General"), "{s}");
    assert!(s.contains("esc, q or ? closes this help"), "{s}");
    // Closing and reopening starts at the top again.
    key(&mut app, KeyCode::Esc);
    key(&mut app, KeyCode::Char('?'));
    assert!(screen(&app, 100, 30).contains("General"));
    // Tall enough: no scrolling hint.
    assert!(!screen(&app, 200, 62).contains("↑↓ pgup pgdn scroll"));
}

#[test]
fn the_title_and_tab_bars_drop_whole_parts_from_60_columns_up() {
    let mut app = demo_app();
    let titles: Vec<&str> = View::ALL.iter().map(|v| v.title()).collect();
    for view in ['1', '4', '8'] {
        key(&mut app, KeyCode::Char(view));
        for w in [60u16, 70, 80, 90, 100, 110, 120, 140, 160, 200] {
            let s = screen(&app, w, 30);
            let mut lines = s.lines();
            let title = lines.next().unwrap();
            // The release is always named, whole.
            assert!(title.contains(" v1.34 rules"), "{w}: {title}");
            // The counts are each whole or not there.
            for (word, whole) in [
                ("nodes", "32 nodes"),
                ("zones", "3 zones"),
                ("pods", "404 pods"),
                ("pending", "(6 pending)"),
            ] {
                assert_eq!(title.contains(word), title.contains(whole), "{w}: {title}");
            }
            assert!(title.contains("built-in demo cluster"), "{w}: {title}");
            for key_hint in ["?:help", "::command", "/:filter", "esc:back", "q:quit"] {
                let stem = &key_hint[..key_hint.len() - 1];
                assert_eq!(
                    title.contains(stem),
                    title.contains(key_hint),
                    "{w}: {key_hint} cut in {title}"
                );
            }
            if w >= 160 {
                assert!(title.contains("q:quit"), "{w}: {title}");
            }
            if w >= 100 {
                assert!(
                    title.contains("32 nodes") && title.contains("(6 pending)"),
                    "{w}: {title}"
                );
            }
            // Every tab is whole: its number and, unless the line is too
            // narrow for names, its title; the active view always named.
            let tabs = lines.next().unwrap();
            let words: Vec<&str> = tabs.split_whitespace().collect();
            let mut i = 0;
            for (n, title) in titles.iter().enumerate() {
                let number = (n + 1).to_string();
                assert_eq!(words.get(i).copied(), Some(number.as_str()), "{w}: {tabs}");
                i += 1;
                let named = words.get(i).is_some_and(|t| t == title);
                let active = app.view == View::ALL[n];
                assert!(named || (!active && w < 80), "{w}: tab {} in {tabs}", n + 1);
                if named {
                    i += 1;
                }
            }
            assert_eq!(i, words.len(), "{w}: {tabs}");
        }
    }
}

#[test]
fn panel_titles_fit_their_panels_or_end_in_an_ellipsis() {
    let mut app = demo_app();
    for view in ['1', '2', '3', '5', '6'] {
        key(&mut app, KeyCode::Char(view));
        for w in [60u16, 80, 100, 120, 160] {
            let s = screen(&app, w, 30);
            for line in s.lines() {
                // Each panel's top border, from its corner to its corner.
                for top in line.split('┌').skip(1) {
                    let Some(end) = top.find('┐') else { continue };
                    let top = &top[..end];
                    assert!(
                        top.ends_with('─'),
                        "{w} view {view}: a title runs into the border: ┌{top}┐\n{s}"
                    );
                    let title = top.trim_matches('─').trim();
                    assert!(
                        !title.is_empty() || top.chars().all(|c| c == '─'),
                        "{w} view {view}: ┌{top}┐"
                    );
                }
            }
        }
    }
}

#[test]
fn skew_domain_lines_keep_their_counts_whole_and_the_verdict_below_when_narrow() {
    let mut app = demo_app();
    key(&mut app, KeyCode::Char('2'));
    for w in [80u16, 100, 120, 160, 200] {
        let s = screen(&app, w, 40);
        let lines: Vec<&str> = s.lines().collect();
        let mut domains = 0;
        for (i, line) in lines.iter().enumerate() {
            // The domains pane is the right one: after the last `││`.
            let Some(pane) = line.rsplit("││").next().filter(|_| line.contains("││"))
            else {
                continue;
            };
            let pane = pane.trim_end_matches('│').trim_end();
            if !pane.starts_with("eu-west-1") {
                continue;
            }
            domains += 1;
            let counts = pane.split_once(" pods ").map(|(_, rest)| rest);
            assert!(
                counts.is_some_and(|c| c.trim_start().split(' ').nth(1) == Some("nodes")),
                "{w}: the counts are cut: {pane}\n{s}"
            );
            let same_line = pane.contains("nodes  ✗") || pane.contains("nodes  ✓");
            let below = lines[i + 1]
                .rsplit("││")
                .next()
                .is_some_and(|l| l.starts_with("  ✗") || l.starts_with("  ✓"));
            assert!(
                same_line != below,
                "{w}: the verdict is on the domain's line or the next: {pane}\n{s}"
            );
            if w >= 160 {
                assert!(same_line, "{w}: room for one line: {pane}");
            }
        }
        assert_eq!(domains, 3, "{w}: the demo's three zones\n{s}");
    }
}

/// A one-pane screen's text, its rows joined as they read (borders and
/// the padding at each row's ends dropped).
fn pane_text(screen: &str) -> String {
    screen
        .lines()
        .filter_map(|l| l.strip_prefix('│'))
        .map(|l| l.trim_end_matches('│').trim())
        .collect::<Vec<_>>()
        .join(" ")
}

#[test]
fn the_empty_what_if_explains_itself_whole_at_80_columns() {
    let mut app = demo_app();
    key(&mut app, KeyCode::Char('7'));
    for w in [80u16, 120] {
        let s = screen(&app, w, 24);
        let text = pane_text(&s);
        for sentence in [
            ":draft new starts a blank pod; :load PATH reads one.",
            ":cordon ZONE and :lose ZONE do the same for a zone.",
        ] {
            assert!(text.contains(sentence), "{w}: {sentence:?} missing:\n{s}");
        }
    }
}

#[test]
fn overview_node_rows_keep_both_percentages_and_their_flag_when_narrow() {
    let live = demo_app();
    let replay = common::demo_replay_app();
    for (which, app) in [("demo", &live), ("demo-replay", &replay)] {
        for w in [80u16, 100, 120, 160] {
            let s = screen(app, w, 40);
            let mut rows = 0;
            for line in s.lines() {
                // The node list is the left pane.
                let Some(pane) = line.strip_prefix("│  ") else {
                    continue;
                };
                let pane = pane.split('│').next().unwrap().trim_end();
                if !pane.contains(" cpu ") {
                    continue;
                }
                rows += 1;
                assert_eq!(pane.matches('%').count(), 2, "{which} {w}: {pane}\n{s}");
                if pane.starts_with("gpu-") {
                    assert!(pane.ends_with(" tainted"), "{which} {w}: {pane}\n{s}");
                }
            }
            assert!(rows > 5, "{which} {w}: node rows shown\n{s}");
        }
    }
}

#[test]
fn the_timeline_bar_shows_its_keys_whole_or_not_at_all() {
    let app = common::demo_replay_app();
    for w in [60u16, 80, 100, 120, 160, 200] {
        let s = screen(&app, w, 30);
        let bar = s
            .lines()
            .find(|l| l.contains(" event "))
            .unwrap_or_else(|| panic!("{w}: no timeline bar\n{s}"));
        assert!(bar.contains("space:play"), "{w}: {bar}");
        let keys = &bar[bar.find("space:play").unwrap()..];
        let shown: Vec<&str> = keys.trim_end().split("  ").collect();
        let whole = [
            "space:play",
            "[ ]:event",
            "{ }:10s",
            "+/-:speed",
            "m:mark",
            "n:next disagreement :at",
        ];
        assert_eq!(shown, whole[..shown.len()], "{w}: {bar}");
        if w >= 160 {
            assert_eq!(shown.len(), whole.len(), "{w}: {bar}");
        }
    }
}

#[test]
fn the_header_names_the_release_and_version_switches_it() {
    let mut app = demo_app();
    // The demo's nodes report no kubelet version: the newest supported.
    let s = screen(&app, 160, 48);
    assert!(
        line_with(&s, " kplace ").contains("kube-scheduler v1.34 rules"),
        "{s}"
    );
    key(&mut app, KeyCode::Char('5'));
    keys(&mut app, "/frontend-6b8f7c5d4-r6ndz");
    key(&mut app, KeyCode::Enter);
    key(&mut app, KeyCode::Enter);
    assert_eq!(app.view, View::Placement);
    let s = screen(&app, 160, 48);
    assert!(
        s.contains(
            "kube-scheduler v1.34 rules (the snapshot has no server version but holds resource.k8s.io/v1 objects, which API servers serve from 1.34)"
        ),
        "{s}"
    );

    keys(&mut app, ":version 1.32");
    key(&mut app, KeyCode::Enter);
    let s = screen(&app, 160, 48);
    assert!(
        line_with(&s, " kplace ").contains("kube-scheduler v1.32 rules"),
        "{s}"
    );
    assert!(!s.contains("v1.34 rules"), "{s}");
    assert!(
        s.contains("kube-scheduler v1.32 rules (chosen with --scheduler-version or :version)"),
        "{s}"
    );
    // What the switch changed for the pod on screen.
    assert!(
        s.contains(
            "now answering as kube-scheduler v1.32 (was v1.34): shop/frontend-6b8f7c5d4-r6ndz unchanged, UNSCHEDULABLE"
        ),
        "{s}"
    );
    assert!(
        s.contains("UNSCHEDULABLE: no node fits and preemption cannot help"),
        "{s}"
    );

    // A release kplace does not know: an error on screen, nothing changes.
    keys(&mut app, ":version 1.12");
    key(&mut app, KeyCode::Enter);
    let s = screen(&app, 160, 48);
    assert!(
        s.contains(
            ":version 1.12: unsupported scheduler version \"1.12\": kplace answers as kube-scheduler 1.30, 1.31, 1.32, 1.33 or 1.34"
        ),
        "{s}"
    );
    assert!(
        line_with(&s, " kplace ").contains("kube-scheduler v1.32 rules"),
        "{s}"
    );

    // `:version auto` follows the cluster again.
    keys(&mut app, ":version auto");
    key(&mut app, KeyCode::Enter);
    let s = screen(&app, 160, 48);
    assert!(
        line_with(&s, " kplace ").contains("kube-scheduler v1.34 rules"),
        "{s}"
    );
    assert!(
        s.contains("now answering as kube-scheduler v1.34 (was v1.32)"),
        "{s}"
    );
}

#[test]
fn scheduler_version_option_sets_the_release_and_the_pending_tally_uses_it() {
    let mut app = App::new(Options {
        demo: true,
        scheduler_version: Some(kplace::engine::Version::V1_31),
        ..Default::default()
    });
    assert!(app.wait_until_idle(SETTLE));
    let s = screen(&app, 160, 48);
    assert!(
        line_with(&s, " kplace ").contains("kube-scheduler v1.31 rules"),
        "{s}"
    );
    let session = app.session().expect("ready");
    assert_eq!(
        session.scheduler.version.version,
        kplace::engine::Version::V1_31
    );
    // The tally's outcomes are the 1.31 answers.
    let cluster = session.cluster();
    for (&pod, got) in &session.outcomes {
        let want = place_existing(
            cluster,
            pod,
            &kplace::engine::Scheduler::new(kplace::engine::VersionChoice::flag(
                kplace::engine::Version::V1_31,
            )),
        );
        assert_eq!(got.outcome, want.outcome, "{}", cluster.pod_key(pod));
    }
    assert!(!session.outcomes.is_empty());
}

/// A pending pod with scheduling gates: the Placement view says the
/// scheduler does not attempt it, with the gate plugin's message, and shows
/// the engine's answer for the pod once ungated below.
#[test]
fn gated_pod_placement_shows_the_gates_and_where_it_would_go_once_ungated() {
    use std::io::Read;
    let case =
        std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/conformance/cases/gates-002");
    let mut snapshot = String::new();
    flate2::read::GzDecoder::new(std::fs::File::open(case.join("snapshot.yaml.gz")).unwrap())
        .read_to_string(&mut snapshot)
        .unwrap();
    let pod = std::fs::read_to_string(case.join("pod.yaml")).unwrap();
    let dir = tempfile::tempdir().unwrap();
    let file = dir.path().join("cluster.yaml");
    std::fs::write(&file, format!("{snapshot}\n---\n{pod}")).unwrap();

    let mut app = App::new(Options {
        snapshot: Some(file),
        pod: Some("batch/job-5vnrf".into()),
        ..Default::default()
    });
    assert!(app.wait_until_idle(SETTLE));
    assert_eq!(app.view, View::Placement);
    let s = screen(&app, 160, 48);
    assert!(
        line_with(&s, "GATED")
            .contains("waiting for scheduling gates: [example.com/quota kueue.x-k8s.io/admission]"),
        "{s}"
    );
    assert!(s.contains("Once its scheduling gates are removed"), "{s}");
    assert!(
        s.contains("SCHEDULED →") || s.contains("PREEMPT →") || s.contains("UNSCHEDULABLE"),
        "the ungated answer is shown:\n{s}"
    );
}

#[test]
fn config_command_switches_the_profiles_and_every_answer_follows() {
    let mut app = demo_app();
    let config = std::path::Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("assets/scheduler-configs/bin-packing.yaml");
    key(&mut app, KeyCode::Char('5'));
    keys(&mut app, "/frontend-6b8f7c5d4-2lh2t");
    key(&mut app, KeyCode::Enter);
    key(&mut app, KeyCode::Enter);
    assert_eq!(app.view, View::Placement);
    let before = screen(&app, 200, 60);
    assert!(line_with(&before, "#").contains("Balance"), "{before}");

    keys(&mut app, &format!(":config {}", config.display()));
    key(&mut app, KeyCode::Enter);
    let s = screen(&app, 200, 60);
    assert!(
        line_with(&s, " kplace ").contains("profiles default-scheduler"),
        "{s}"
    );
    assert!(
        s.contains("(profiles default-scheduler) (was the default profile)"),
        "{s}"
    );
    assert!(s.contains("profile default-scheduler from"), "{s}");
    // BalancedAllocation is disabled by the bin-packing profile: its column goes.
    assert!(!line_with(&s, "#").contains("Balance"), "{s}");
    assert!(s.contains("Fit=NodeResourcesFit×"), "{s}");

    // A file that is not a configuration: an error, nothing changes.
    keys(&mut app, ":config /no/such/sched.yaml");
    key(&mut app, KeyCode::Enter);
    let s = screen(&app, 200, 60);
    assert!(s.contains(":config: "), "{s}");
    assert!(s.contains("/no/such/sched.yaml"), "{s}");
    assert!(
        line_with(&s, " kplace ").contains("profiles default-scheduler"),
        "{s}"
    );

    keys(&mut app, ":config default");
    key(&mut app, KeyCode::Enter);
    let s = screen(&app, 200, 60);
    assert!(!line_with(&s, " kplace ").contains("profiles"), "{s}");
    assert!(line_with(&s, "#").contains("Balance"), "{s}");
}

/// A plain pod of a priority class (no tolerations), for the Tiers tests:
/// which nodes it could use, by the engine's own NodeUnschedulable and
/// TaintToleration filters, and each node's zone.
struct PlainPod<'a> {
    cluster: &'a kplace::model::Cluster,
    probe: kplace::model::Pod,
    value: i32,
    zone_key: kplace::model::intern::Sym,
}

impl<'a> PlainPod<'a> {
    fn of(cluster: &'a kplace::model::Cluster, class: &str) -> Self {
        let value = cluster.priority_class(class).unwrap().value;
        let mut probe = kplace::model::Pod::blank(cluster.empty_sym());
        probe.priority = Some(value);
        let zone_key = cluster
            .interner
            .lookup("topology.kubernetes.io/zone")
            .unwrap();
        PlainPod {
            cluster,
            probe,
            value,
            zone_key,
        }
    }

    fn can_use(&self, node: &kplace::model::Node) -> bool {
        use kplace::engine::plugins::{node_unschedulable, taint_toleration};
        node_unschedulable::filter(&self.probe, node).is_ok()
            && taint_toleration::filter(&self.probe, node).is_ok()
    }

    fn zone(&self, node: &kplace::model::Node) -> String {
        let zone = node.labels.get(self.zone_key).unwrap();
        self.cluster.interner.resolve(zone).to_string()
    }
}

/// Free CPU per zone on the nodes a plain pod of `class` could use; and
/// the free CPU of the nodes the filters keep it off.
fn free_cpu_by_filters(
    cluster: &kplace::model::Cluster,
    class: &str,
) -> (
    std::collections::BTreeMap<String, i64>,
    std::collections::BTreeMap<String, i64>,
) {
    let plain = PlainPod::of(cluster, class);
    let (mut usable, mut kept_off) = (Default::default(), Default::default());
    for (id, node) in cluster.nodes.iter().enumerate() {
        let zone = plain.zone(node);
        let free = (node.allocatable.milli_cpu - cluster.node_infos[id].requested.milli_cpu).max(0);
        let map: &mut std::collections::BTreeMap<String, i64> = if plain.can_use(node) {
            &mut usable
        } else {
            &mut kept_off
        };
        *map.entry(zone).or_default() += free;
    }
    (usable, kept_off)
}

#[test]
fn tiers_headroom_counts_only_nodes_a_plain_pod_of_the_class_could_use() {
    let mut app = demo_app();
    key(&mut app, KeyCode::Char('3'));
    let s = screen(&app, 200, 48);
    assert!(
        s.contains("Headroom per zone for a pod at standard (10000), assuming a pod of this class with no tolerations"),
        "{s}"
    );
    let cluster = kplace::app::demo::load_demo().unwrap();
    let (usable, kept_off) = free_cpu_by_filters(&cluster, "standard");
    // The two GPU nodes of eu-west-1a carry nvidia.com/gpu:NoSchedule and
    // have CPU to spare: none of it may be shown as free for a standard pod.
    assert!(kept_off["eu-west-1a"] > 0, "{kept_off:?}");
    for (zone, free) in &usable {
        let line = line_with(&s, &format!("{zone:<16} cpu"));
        let shown = format!(" free {}  ", kplace::app::format::cpu(*free));
        assert!(line.contains(&shown), "{zone}: want{shown}\n{line}");
        let with_tainted = format!(
            " free {}  ",
            kplace::app::format::cpu(*free + kept_off.get(zone).copied().unwrap_or(0))
        );
        if kept_off.get(zone).is_some_and(|&k| k > 0) {
            assert!(!line.contains(&with_tainted), "{line}");
        }
    }
    let plain = PlainPod::of(&cluster, "standard");
    let in_zone = |z: &str| cluster.nodes.iter().filter(|n| plain.zone(n) == z).count();
    assert!(
        line_with(&s, "eu-west-1a       cpu").contains(&format!(
            "on {} of {} nodes",
            in_zone("eu-west-1a") - 2,
            in_zone("eu-west-1a")
        )),
        "{s}"
    );
    assert!(
        s.contains("1 cordoned and 5 with an untolerated NoSchedule/NoExecute taint left out"),
        "{s}"
    );
}

/// CPU per zone held by pods below `class`'s priority on the nodes a plain
/// pod of `class` could use, read from the pods' own records: (preemptible,
/// protected by a PodDisruptionBudget with no disruptions left, matched as
/// upstream's preemption matches them: same namespace, non-empty selector,
/// the pod not already listed as disrupted).
fn lower_priority_cpu_by_records(
    cluster: &kplace::model::Cluster,
    class: &str,
) -> std::collections::BTreeMap<String, (i64, i64)> {
    let plain = PlainPod::of(cluster, class);
    let mut held = std::collections::BTreeMap::<String, (i64, i64)>::new();
    for pod in cluster.pods.iter() {
        let Some(n) = pod.node else { continue };
        let node = &cluster.nodes[n as usize];
        if !plain.can_use(node) || pod.phase.is_terminal() || pod.priority_value() >= plain.value {
            continue;
        }
        let protected = cluster.pdbs.iter().any(|pdb| {
            pdb.namespace == pod.namespace
                && pdb.disruptions_allowed.unwrap_or(0) <= 0
                && !pdb.selector.is_everything()
                && pdb.selector.matches(&pod.labels)
                && !pdb.disrupted_pods.iter().any(|d| **d == *pod.name)
        });
        let entry = held.entry(plain.zone(node)).or_default();
        if protected {
            entry.1 += pod.requests.milli_cpu;
        } else {
            entry.0 += pod.requests.milli_cpu;
        }
    }
    held
}

#[test]
fn tiers_headroom_shows_the_cpu_lower_priority_pods_hold_as_their_records_say() {
    let mut app = demo_app();
    key(&mut app, KeyCode::Char('3'));
    let s = screen(&app, 200, 48);
    let cluster = kplace::app::demo::load_demo().unwrap();
    let held = lower_priority_cpu_by_records(&cluster, "standard");
    assert!(held.values().any(|&(p, _)| p > 0), "{held:?}");
    for (zone, (preemptible, protected)) in &held {
        let line = line_with(&s, &format!("{zone:<16} cpu"));
        let shown = format!(
            " preemptible {}  PDB-protected {}  ",
            kplace::app::format::cpu(*preemptible),
            kplace::app::format::cpu(*protected)
        );
        assert!(line.contains(&shown), "{zone}: want{shown}\n{line}");
    }
}

/// The Tiers view of a snapshot given as JSON, `width` columns by 40 rows.
fn tiers_screen_of(snapshot: &serde_json::Value, width: u16) -> String {
    let (cluster, _) =
        kplace::source::file::load_snapshot_bytes(snapshot.to_string().as_bytes(), "snapshot.json")
            .unwrap();
    let mut app = App::with_cluster(cluster, "snapshot", Options::default());
    assert!(app.wait_until_idle(SETTLE));
    key(&mut app, KeyCode::Char('3'));
    screen(&app, width, 40)
}

#[test]
fn tiers_list_classes_sharing_a_value_as_rows_of_their_own() {
    let snapshot = serde_json::json!({"apiVersion": "v1", "kind": "List", "items": [
        {"apiVersion": "scheduling.k8s.io/v1", "kind": "PriorityClass",
         "metadata": {"name": "high-priority"}, "value": 100000},
        {"apiVersion": "scheduling.k8s.io/v1", "kind": "PriorityClass",
         "metadata": {"name": "high-priority-nonpreempting"}, "value": 100000,
         "preemptionPolicy": "Never"},
        {"apiVersion": "v1", "kind": "Node",
         "metadata": {"name": "n1", "labels": {"topology.kubernetes.io/zone": "z1"}},
         "status": {"allocatable": {"cpu": "4", "memory": "8Gi", "pods": "110"}}},
        {"apiVersion": "v1", "kind": "Pod",
         "metadata": {"name": "p", "namespace": "default"},
         "spec": {"nodeName": "n1", "priority": 100000,
                  "priorityClassName": "high-priority-nonpreempting",
                  "containers": [{"name": "c", "image": "nginx",
                      "resources": {"requests": {"cpu": "1"}}}]},
         "status": {"phase": "Running"}}
    ]});
    let s = tiers_screen_of(&snapshot, 160);
    let high = line_with(&s, "high-priority ");
    let never = line_with(&s, "high-priority-nonpreempting");
    assert!(high.contains("100000") && high.contains("Lower"), "{s}");
    assert!(!high.contains("Never"), "{s}");
    assert!(never.contains("100000") && never.contains("Never"), "{s}");
    // The pod counts under its own class only: name, VALUE, (DEFAULT is
    // blank), PREEMPTS, then PODS.
    let pods = |row: &str| {
        row.trim_matches(['│', ' '])
            .split_whitespace()
            .nth(3)
            .map(str::to_string)
    };
    assert_eq!(pods(never).as_deref(), Some("1"), "{never}");
    assert_eq!(pods(high).as_deref(), Some("0"), "{high}");
}

/// A List of a globalDefault class `high` (1000), a node `n1` in zone
/// `z1` with 8 CPUs, and `items`.
fn high_class_and_node_n1(items: Vec<serde_json::Value>) -> serde_json::Value {
    let mut all = vec![
        serde_json::json!({"apiVersion": "scheduling.k8s.io/v1", "kind": "PriorityClass",
         "metadata": {"name": "high"}, "value": 1000, "globalDefault": true}),
        serde_json::json!({"apiVersion": "v1", "kind": "Node",
         "metadata": {"name": "n1", "labels": {"topology.kubernetes.io/zone": "z1"}},
         "status": {"allocatable": {"cpu": "8", "memory": "8Gi", "pods": "110"}}}),
    ];
    all.extend(items);
    serde_json::json!({"apiVersion": "v1", "kind": "List", "items": all})
}

/// A running pod of priority 0 on node `n1`, labelled `app=APP`, asking
/// for `cpu`.
fn running_pod_on_n1(name: &str, app: &str, cpu: &str) -> serde_json::Value {
    serde_json::json!({"apiVersion": "v1", "kind": "Pod",
        "metadata": {"name": name, "namespace": "default", "labels": {"app": app}},
        "spec": {"nodeName": "n1", "priority": 0,
                 "containers": [{"name": "c", "image": "nginx",
                     "resources": {"requests": {"cpu": cpu}}}]},
        "status": {"phase": "Running"}})
}

/// A PodDisruptionBudget with an empty selector protects no pod from
/// preemption (upstream's `filterPodsWithPDBViolation` skips an empty
/// selector), so Tiers counts the pods of its namespace as preemptible, as
/// the engine's preemption would evict them; one with a selector that
/// matches protects its pods.
#[test]
fn tiers_count_pods_under_an_empty_pdb_selector_as_preemptible() {
    let pdb = |name: &str, selector: serde_json::Value| {
        serde_json::json!({"apiVersion": "policy/v1", "kind": "PodDisruptionBudget",
            "metadata": {"name": name, "namespace": "default"},
            "spec": {"selector": selector, "maxUnavailable": 0},
            "status": {"disruptionsAllowed": 0, "currentHealthy": 1,
                       "desiredHealthy": 1, "expectedPods": 1}})
    };
    let pod = running_pod_on_n1;
    let snapshot = high_class_and_node_n1(vec![
        pod("web", "web", "1"),
        pod("db", "db", "2"),
        pdb("everything", serde_json::json!({})),
        pdb("db", serde_json::json!({"matchLabels": {"app": "db"}})),
    ]);
    let s = tiers_screen_of(&snapshot, 200);
    assert!(
        s.contains("Headroom per zone for a pod at high (1000)"),
        "{s}"
    );
    let line = line_with(&s, "z1               cpu");
    assert!(
        line.contains(" free 5  preemptible 1  PDB-protected 2  "),
        "{line}"
    );
}

/// A pod a PodDisruptionBudget already lists in `disruptedPods` uses none
/// of its disruptions when evicted (upstream's
/// `filterPodsWithPDBViolation`), so Tiers counts it as preemptible even
/// under a PDB with none left, as the engine's preemption would evict it;
/// the PDB's other pods stay protected.
#[test]
fn tiers_count_a_pod_its_pdb_lists_as_disrupted_as_preemptible() {
    let pod = |name: &str, cpu: &str| running_pod_on_n1(name, "db", cpu);
    let snapshot = high_class_and_node_n1(vec![
        pod("db-0", "2"),
        pod("db-1", "500m"),
        serde_json::json!({"apiVersion": "policy/v1", "kind": "PodDisruptionBudget",
         "metadata": {"name": "db", "namespace": "default"},
         "spec": {"selector": {"matchLabels": {"app": "db"}}, "maxUnavailable": 0},
         "status": {"disruptionsAllowed": 0, "currentHealthy": 2, "desiredHealthy": 2,
                    "expectedPods": 2,
                    "disruptedPods": {"db-0": "2024-01-01T00:00:00Z"}}}),
    ]);
    let s = tiers_screen_of(&snapshot, 200);
    let line = line_with(&s, "z1               cpu");
    assert!(
        line.contains(" free 5.5  preemptible 2  PDB-protected 500m  "),
        "{line}"
    );
}

/// A pod counts under its own class while the class has the pod's
/// priority; otherwise (the class's value changed since, or no class) under
/// one class-less row per value, highest value first.
#[test]
fn tiers_count_pods_off_their_class_value_in_one_class_less_row_per_value() {
    let pod = |name: &str, priority: i32, class: Option<&str>| {
        let mut spec = serde_json::json!({"nodeName": "n1", "priority": priority,
            "containers": [{"name": "c", "image": "nginx",
                "resources": {"requests": {"cpu": "100m"}}}]});
        if let Some(class) = class {
            spec["priorityClassName"] = class.into();
        }
        serde_json::json!({"apiVersion": "v1", "kind": "Pod",
            "metadata": {"name": name, "namespace": "default"},
            "spec": spec, "status": {"phase": "Running"}})
    };
    let snapshot = serde_json::json!({"apiVersion": "v1", "kind": "List", "items": [
        {"apiVersion": "scheduling.k8s.io/v1", "kind": "PriorityClass",
         "metadata": {"name": "high"}, "value": 1000},
        {"apiVersion": "scheduling.k8s.io/v1", "kind": "PriorityClass",
         "metadata": {"name": "also-high"}, "value": 1000},
        {"apiVersion": "v1", "kind": "Node",
         "metadata": {"name": "n1", "labels": {"topology.kubernetes.io/zone": "z1"}},
         "status": {"allocatable": {"cpu": "4", "memory": "8Gi", "pods": "110"}}},
        pod("a", 1000, Some("high")),
        pod("b", 1000, Some("also-high")),
        pod("c", 1000, Some("also-high")),
        pod("d", 500, Some("high")),
        pod("e", 0, None),
        pod("f", 0, None),
        pod("g", 1000, None),
    ]});
    let (cluster, _) =
        kplace::source::file::load_snapshot_bytes(snapshot.to_string().as_bytes(), "tiers.json")
            .unwrap();
    let derived = kplace::app::derived::Derived::build(&std::sync::Arc::new(cluster));
    let rows: Vec<(i32, &str, usize)> = derived
        .tiers_now()
        .rows
        .iter()
        .map(|r| (r.value, &*r.classes, r.pods))
        .collect();
    assert_eq!(
        rows,
        [
            // The built-in classes every cluster has.
            (2000001000, "system-node-critical", 0),
            (2000000000, "system-cluster-critical", 0),
            (1000, "also-high", 2),
            (1000, "high", 1),
            (1000, "", 1),
            (500, "", 1),
            (0, "", 2),
        ]
    );
}

#[test]
fn skew_fleet_lists_the_workloads_at_their_max_skew() {
    use kplace::engine::plugins::podtopologyspread::filtering::pre_filter;
    use kplace::engine::profile::SpreadArgs;
    let mut app = demo_app();
    key(&mut app, KeyCode::Char('2'));
    let s = screen(&app, 200, 60);
    // Independently: each workload's PreFilter counts for its next replica.
    let cluster = kplace::app::demo::load_demo().unwrap();
    let derived = kplace::app::derived::Derived::build(&std::sync::Arc::new(cluster.clone()));
    let (mut at, mut near) = (0, 0);
    for w in &derived.fleet_now().workloads {
        let Some(sample) = w.sample_pod() else {
            continue;
        };
        let pod = cluster.pod(sample);
        if pod.spread_constraints.is_empty() {
            continue;
        }
        let Some(pre) = pre_filter(&cluster, pod, &SpreadArgs::default()) else {
            continue;
        };
        for c in &pre.constraints {
            let max = pre
                .pair_counts()
                .iter()
                .filter(|(k, _)| k.0 == c.topology_key)
                .map(|(_, n)| *n)
                .max()
                .unwrap();
            let skew = max - pre.min_match(c).unwrap();
            let row: &str = &w.label;
            if skew >= c.max_skew as i64 {
                at += 1;
                assert!(
                    s.lines().any(|l| l.contains(row) && l.contains("✗ at max")),
                    "{row}\n{s}"
                );
            } else if skew == c.max_skew as i64 - 1 {
                near += 1;
                assert!(
                    s.lines().any(|l| l.contains(row) && l.contains("! 1 away")),
                    "{row}\n{s}"
                );
            }
        }
    }
    assert!(at > 0, "the demo's frontend sits at its maxSkew");
    // The title is the longest of its forms that fits the pane.
    let forms = [
        format!("Fleet: {at} at maxSkew, {near} one replica away"),
        format!("Fleet: {at} at maxSkew, {near} one away"),
        format!("Fleet: {at} at max, {near} near"),
    ];
    assert!(forms.iter().any(|f| s.contains(f.as_str())), "{s}");
}

#[test]
fn placement_of_a_pod_that_cannot_get_devices_lists_them_per_node() {
    let mut app = demo_app();
    key(&mut app, KeyCode::Char('5'));
    keys(&mut app, "/finetune-llm");
    key(&mut app, KeyCode::Enter);
    key(&mut app, KeyCode::Enter);
    assert_eq!(app.view, View::Placement);
    for _ in 0..3 {
        key(&mut app, KeyCode::PageDown);
    }
    let s = screen(&app, 160, 60);
    assert!(
        s.contains("Matching devices per node (2 node(s) have some, most free first)"),
        "{s}"
    );
    assert!(
        line_with(&s, "gpu (gpu.nvidia.com, wants 2)").contains("1 free of 4 matching"),
        "{s}"
    );
    assert!(
        s.contains("gpu.nvidia.com/gpu-b02/gpu-0 held by claim ml/finetune-small-k2x9d-gpu-"),
        "{s}"
    );
    assert!(s.contains("reserved for ml/finetune-small-k2x9d"), "{s}");
}

/// A FIFO fed once by a writer thread, as `--snapshot <(zcat f)` is: it
/// can be read only once.
fn fifo_with(dir: &std::path::Path, bytes: &'static [u8]) -> std::path::PathBuf {
    use std::io::Write;
    let path = dir.join("pipe");
    let c = std::ffi::CString::new(path.to_str().unwrap()).unwrap();
    assert_eq!(unsafe { libc::mkfifo(c.as_ptr(), 0o600) }, 0);
    let writer = path.clone();
    std::thread::spawn(move || {
        // Opening blocks until the loader opens the other end.
        let mut f = std::fs::OpenOptions::new()
            .write(true)
            .open(writer)
            .unwrap();
        let _ = f.write_all(bytes);
    });
    path
}

#[test]
fn a_snapshot_from_a_pipe_loads_every_node() {
    use kplace::app::loader::{Loading, Source};
    let dir = tempfile::tempdir().unwrap();
    // Gzipped, as `--snapshot <(cat demo.json.gz)`: sniffed after reading.
    let pipe = fifo_with(dir.path(), kplace::app::demo::DEMO_SNAPSHOT_GZ);
    let want = kplace::app::demo::load_demo().unwrap();
    let loading = Loading::start(Source::File(pipe));
    let opened = loading
        .wait(SETTLE)
        .expect("the pipe loads in time")
        .expect("the pipe loads");
    assert_eq!(opened.loaded.cluster.nodes.len(), want.nodes.len());
    assert_eq!(opened.loaded.cluster.pods.len(), want.pods.len());
    assert!(opened.feed.is_none(), "a snapshot, not a recording");
}

#[test]
fn a_recording_from_a_pipe_opens_as_a_recording() {
    use kplace::app::loader::{Loading, Source};
    let dir = tempfile::tempdir().unwrap();
    let pipe = fifo_with(dir.path(), kplace::app::demo::DEMO_TIMELINE_GZ);
    let want = kplace::app::demo::load_demo_timeline().unwrap();
    let loading = Loading::start(Source::File(pipe));
    let opened = loading
        .wait(SETTLE)
        .expect("the pipe loads in time")
        .expect("the pipe loads");
    assert!(opened.feed.is_some(), "a recording opens with its timeline");
    assert_eq!(
        opened.loaded.cluster.nodes.len(),
        want.state_after(0).nodes.len()
    );
}

#[test]
fn a_pod_bound_to_an_absent_node_is_listed_as_such_not_pending() {
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
- apiVersion: v1
  kind: Pod
  metadata: {name: waiting, namespace: web}
  spec:
    containers: [{name: c, image: nginx}]
  status: {phase: Pending}
"#,
    )
    .unwrap();
    let mut app = common::snapshot_app(path);
    let overview = screen(&app, 160, 40);
    assert!(overview.contains("Pending pods (1)"), "{overview}");
    assert!(
        overview.contains("not pending, on nodes not in the snapshot: 1")
            && overview.contains("  web/stray on gone-node"),
        "{overview}"
    );
    key(&mut app, KeyCode::Char('5'));
    let pods = screen(&app, 160, 40);
    assert!(pods.contains("gone-node (not in snapshot)"), "{pods}");
}

/// Pods whose requests sum past what an int64 holds (fuzzing found them):
/// every view draws, in a debug build that traps overflow, and Tiers shows
/// the lower-priority pods' requests rather than a wrapped negative total.
#[test]
fn every_view_draws_a_node_whose_pods_request_more_than_int64_holds() {
    let path = std::path::Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("tests/data/fuzz/snapshot/pods-summing-past-int64-on-one-node.yaml");
    let mut app = common::snapshot_app(path);
    for view in "12345678".chars() {
        key(&mut app, KeyCode::Char(view));
        let shown = screen(&app, 160, 45);
        assert!(shown.contains("1 nodes"), "view {view}:\n{shown}");
    }
    key(&mut app, KeyCode::Char('3'));
    let shown = screen(&app, 160, 45);
    let cpu = line_with(&shown, "preemptible 9223372036854776.0");
    assert!(cpu.contains("free 4.0"), "{cpu}");
}

#[test]
fn ranked_nodes_rows_fit_an_80_column_terminal_and_name_the_columns_left_out() {
    let mut app = demo_app();
    key(&mut app, KeyCode::Char('5'));
    keys(&mut app, "/frontend-6b8f7c5d4-2lh2t");
    key(&mut app, KeyCode::Enter);
    key(&mut app, KeyCode::Enter);
    let mut s = screen(&app, 80, 24);
    for _ in 0..4 {
        if s.contains("TOTAL") {
            break;
        }
        key(&mut app, KeyCode::PageDown);
        s = screen(&app, 80, 24);
    }
    let header = s
        .lines()
        .find(|l| l.contains("TOTAL"))
        .unwrap_or_else(|| panic!("{s}"));
    // Only the plugins that scored some node have a column, each on the
    // header's line: before, eight 8-wide columns wrapped every row.
    for name in ["NODE", "Taint", "Fit", "Spread", "Balance"] {
        assert!(header.contains(name), "{header:?} lacks {name}\n{s}");
    }
    assert!(
        !header.contains("NodeAff") && !header.contains("Image"),
        "{header:?}"
    );
    let pick = s
        .lines()
        .find(|l| l.contains("worker-b08") && l.contains("613"))
        .unwrap_or_else(|| panic!("{s}"));
    assert!(pick.contains("kplace's pick"), "{pick:?}\n{s}");
    // The plugins' points stay under their names.
    let at = |line: &str, text: &str| {
        line.find(text)
            .map(|i| line[..i].chars().count() + text.chars().count())
    };
    assert_eq!(
        at(pick, " 300"),
        at(header, "Taint"),
        "{header:?}\n{pick:?}"
    );
    assert_eq!(
        at(pick, " 78"),
        at(header, "Balance"),
        "{header:?}\n{pick:?}"
    );
    for _ in 0..20 {
        if s.contains("0 on every feasible node") {
            break;
        }
        key(&mut app, KeyCode::Down);
        s = screen(&app, 80, 24);
    }
    assert!(
        s.contains("0 on every feasible node (no column): NodeAff, Volume, PodAff, Image"),
        "{s}"
    );
}

#[test]
fn a_short_terminal_gives_the_placement_body_rows_before_the_headers_asides() {
    let open = |width, height| {
        let mut app = demo_app();
        key(&mut app, KeyCode::Char('5'));
        keys(&mut app, "/finetune-llm-7wq4z");
        key(&mut app, KeyCode::Enter);
        key(&mut app, KeyCode::Enter);
        screen(&app, width, height)
    };
    let shown_lines = |s: &str| -> usize {
        let title = s
            .lines()
            .find(|l| l.contains(" lines (↑↓"))
            .unwrap_or_else(|| panic!("{s}"));
        let range = title.split_whitespace().nth(1).unwrap();
        let (from, to) = range.split_once('-').unwrap();
        to.parse::<usize>().unwrap() - from.parse::<usize>().unwrap() + 1
    };
    // At 80×24 the header, the remedies and the body shared 21 rows and the
    // body kept two lines of its 44 (four rows).
    let s = open(80, 24);
    assert!(s.contains("UNSCHEDULABLE: no node fits"), "{s}");
    assert!(
        s.contains("kube-scheduler v1.34 rules (the snapshot"),
        "{s}"
    );
    assert!(
        s.contains("no remedy found within the search bounds"),
        "{s}"
    );
    assert!(!s.contains(":version X.Y or :config"), "{s}");
    assert!(!s.contains("The pod is pending; this is why"), "{s}");
    assert!(shown_lines(&s) >= 5, "{s}");
    // With room, the header keeps its hint and its remark.
    let s = open(120, 48);
    assert!(s.contains(":version X.Y or :config"), "{s}");
    assert!(s.contains("The pod is pending; this is why"), "{s}");
    assert!(shown_lines(&s) >= 20, "{s}");
}

#[test]
fn a_narrow_what_if_form_ends_cut_values_in_an_ellipsis_and_keeps_the_answers_body() {
    let mut app = demo_app();
    key(&mut app, KeyCode::Char('5'));
    keys(&mut app, "/frontend-6b8f7c5d4-2lh2t");
    key(&mut app, KeyCode::Enter);
    key(&mut app, KeyCode::Char('e'));
    let s = screen(&app, 80, 24);
    let row = s
        .lines()
        .find(|l| l.contains("priorityClassName"))
        .unwrap_or_else(|| panic!("{s}"));
    let form = row.split('│').nth(1).unwrap().trim_end();
    // Whole, or visibly cut: it read "standar" at 80 columns.
    assert!(
        form.ends_with("standard") || form.ends_with('…'),
        "{form:?}\n{s}"
    );
    let s = screen(&app, 120, 24);
    assert!(s.contains("priorityClassName    standard"), "{s}");
    // The answer's header drops its asides when the body would be short.
    let s = screen(&app, 80, 24);
    assert!(s.contains("SCHEDULED → worker-b08"), "{s}");
    assert!(!s.contains(":version X.Y or :config"), "{s}");
    let s = screen(&app, 160, 50);
    assert!(s.contains(":version X.Y or :config"), "{s}");
}

#[test]
fn the_replay_view_wraps_its_lines_to_an_80_column_pane() {
    let mut app = common::demo_replay_app();
    key(&mut app, KeyCode::Char('8'));
    let s = screen(&app, 80, 24);
    let text = pane_text(&s);
    // Both were cut at the pane's edge: "… 66 events over" and "against kpla".
    for whole in [
        "recorded 2024-05-01T14:00:00Z  66 events over 03:00",
        "each pod the recording saw go from pending to bound, against kplace's answer at that moment",
        "bound node among kplace's best nodes 12/13 (92.3%) · feasible 13/13 (100.0%)",
    ] {
        assert!(text.contains(whole), "{whole:?} missing:\n{s}");
    }
}

/// On the Overview the wheel scrolls the pane under the pointer: over the
/// node list it brings later nodes into view and leaves the pending pods'
/// selection where it was; over the pending pods it moves that selection.
#[test]
fn overview_wheel_scrolls_the_node_list_under_the_pointer() {
    let mut app = demo_app();
    key(&mut app, KeyCode::Char('1'));
    let before = screen(&app, 80, 24);
    let (row, line) = before
        .lines()
        .enumerate()
        .find(|(_, l)| l.contains("worker-a01"))
        .unwrap_or_else(|| panic!("no worker-a01 row:\n{before}"));
    let column = line.find("worker-a01").unwrap() as u16;
    let pending = app.session().map(|s| s.pending_cursor.selected);
    let wheel = |kind| MouseEvent {
        kind,
        column,
        row: row as u16,
        modifiers: KeyModifiers::NONE,
    };
    for _ in 0..4 {
        app.handle_mouse(wheel(MouseEventKind::ScrollDown));
    }
    let after = screen(&app, 80, 24);
    assert!(!after.contains("worker-a01"), "not scrolled:\n{after}");
    assert!(after.contains("worker-b0"), "no later node shown:\n{after}");
    assert_eq!(app.session().map(|s| s.pending_cursor.selected), pending);
    for _ in 0..4 {
        app.handle_mouse(wheel(MouseEventKind::ScrollUp));
    }
    assert!(screen(&app, 80, 24).contains("worker-a01"));
    // Over the pending pods the wheel moves their selection.
    let (row, line) = before
        .lines()
        .enumerate()
        .find(|(_, l)| l.contains("Pending pods"))
        .unwrap();
    app.handle_mouse(MouseEvent {
        kind: MouseEventKind::ScrollDown,
        column: line.find("Pending pods").unwrap() as u16,
        row: row as u16 + 3,
        modifiers: KeyModifiers::NONE,
    });
    assert_ne!(app.session().map(|s| s.pending_cursor.selected), pending);
}

/// With pods pending, the arrows move their selection; `J` and `K`
/// scroll the node list beside them, from the keyboard alone.
#[test]
fn overview_shift_j_and_k_scroll_the_node_list_while_pods_are_pending() {
    let mut app = demo_app();
    key(&mut app, KeyCode::Char('1'));
    let before = screen(&app, 80, 24);
    assert!(
        before.contains("worker-a01"),
        "no worker-a01 row:\n{before}"
    );
    let pending = app.session().map(|s| s.pending_cursor.selected);
    for _ in 0..4 {
        key(&mut app, KeyCode::Char('J'));
    }
    let after = screen(&app, 80, 24);
    assert!(!after.contains("worker-a01"), "not scrolled:\n{after}");
    assert!(after.contains("worker-b0"), "no later node shown:\n{after}");
    assert_eq!(app.session().map(|s| s.pending_cursor.selected), pending);
    for _ in 0..4 {
        key(&mut app, KeyCode::Char('K'));
    }
    assert!(screen(&app, 80, 24).contains("worker-a01"));
    // The arrows still move the pending pods.
    key(&mut app, KeyCode::Down);
    assert_ne!(app.session().map(|s| s.pending_cursor.selected), pending);
}

/// The tiers table fits its pane: every heading whole, the requests (CPU,
/// MEM) of each class always shown, pods per zone only when every zone
/// fits, and at 60 columns DEFAULT and PENDING give way before a number
/// is cut.
#[test]
fn tiers_table_keeps_its_numbers_whole_at_every_width() {
    let mut app = demo_app();
    key(&mut app, KeyCode::Char('3'));
    let known = [
        "PRIORITY",
        "CLASS",
        "VALUE",
        "DEFAULT",
        "PREEMPTS",
        "PODS",
        "PENDING",
        "CPU",
        "MEM",
        "eu-west-1a",
        "eu-west-1b",
        "eu-west-1c",
        "1a",
        "1b",
        "1c",
    ];
    for (w, h) in [(60u16, 24u16), (80, 24), (100, 30), (160, 40)] {
        let s = screen(&app, w, h);
        let header = line_with(&s, "PRIORITY CLASS");
        let header = header.trim_matches(|c| c == '│' || c == ' ');
        for word in header.split_whitespace() {
            assert!(known.contains(&word), "{w}: cut heading {word:?}:\n{s}");
        }
        // The title says what the arrows choose, in words.
        assert!(
            line_with(&s, "Priority tiers").contains("↑↓ picks the headroom's class)"),
            "{w}:\n{s}"
        );
        let standard = line_with(&s, "│standard ");
        assert!(standard.contains(" 94.9 289.5Gi"), "{w}: {standard}\n{s}");
        assert!(standard.contains(" 10000 "), "{w}: {standard}");
        assert!(line_with(&s, "│batch ").contains("Never"), "{w}:\n{s}");
        if w >= 80 {
            assert!(
                header.contains("DEFAULT") && header.contains("PENDING"),
                "{w}:\n{s}"
            );
            assert!(standard.contains("default"), "{w}: {standard}");
        } else {
            assert!(
                !header.contains("DEFAULT") && !header.contains("PENDING"),
                "{s}"
            );
        }
        let zones_shown = header.matches("eu-west-1").count();
        let short_shown = header
            .split_whitespace()
            .filter(|h| ["1a", "1b", "1c"].contains(h))
            .count();
        let tokens: Vec<&str> = standard
            .trim_matches(['│', ' '])
            .split_whitespace()
            .collect();
        if w >= 160 {
            assert_eq!((zones_shown, short_shown), (3, 0), "{s}");
            assert_eq!(tokens[tokens.len() - 3..], ["66", "71", "52"], "{standard}");
        } else if w >= 100 {
            // Too narrow for the whole names: the part that tells the
            // zones apart heads each, and the title says what it stands for.
            assert_eq!((zones_shown, short_shown), (0, 3), "{s}");
            assert_eq!(tokens[tokens.len() - 3..], ["66", "71", "52"], "{standard}");
            assert!(
                line_with(&s, "Priority tiers").contains("1a for eu-west-1a"),
                "{s}"
            );
        } else {
            assert_eq!((zones_shown, short_shown), (0, 0), "{s}");
        }
    }
}
