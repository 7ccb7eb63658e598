//! The k9s keys, driven through the app's key handling and read off the
//! screen (TestBackend): describe and YAML overlays, shift-letter sorts,
//! inverse and label filters, `:ns`, `:ctx`, unknown views, readline keys
//! in every input field, mouse clicks, the bounded back-stack, and `/` in
//! Placement never running commands.

mod common;

use common::{demo_app, key, keys, press};

use crossterm::event::{KeyCode, KeyModifiers, MouseButton, MouseEvent, MouseEventKind};
use kplace::app::{App, Overlay, View};

fn ctrl(app: &mut App, c: char) {
    press(app, KeyCode::Char(c), KeyModifiers::CONTROL);
}

fn screen(app: &App) -> String {
    common::render(app, 120, 40)
}

fn command(app: &mut App, text: &str) {
    key(app, KeyCode::Char(':'));
    keys(app, text);
    key(app, KeyCode::Enter);
}

/// The first data rows of the table shown (below the header).
fn rows(s: &str, n: usize) -> Vec<String> {
    s.lines().skip(4).take(n).map(str::to_string).collect()
}

#[test]
fn d_and_y_describe_a_pod_and_a_node_and_q_or_esc_close_them() {
    let mut app = demo_app();
    key(&mut app, KeyCode::Char('5'));
    keys(&mut app, "/trainer-xl");
    key(&mut app, KeyCode::Enter);
    key(&mut app, KeyCode::Char('d'));
    let s = screen(&app);
    assert!(s.contains("Describe pod ml/trainer-xl"), "{s}");
    for field in [
        "Priority:",
        "Priority class:",
        "standard",
        "Node:",
        "Phase:",
        "Pending",
        "Requests",
        "nvidia.com/gpu:",
    ] {
        assert!(s.contains(field), "describe lacks {field}:\n{s}");
    }
    // Scheduling fields come first, the labels last.
    let Overlay::Inspect(i) = &app.overlay else {
        panic!("no overlay")
    };
    let at = |t: &str| i.lines.iter().position(|l| l.text.starts_with(t));
    assert!(at("Priority:") < at("Tolerations") && at("Tolerations") < at("Labels"));
    key(&mut app, KeyCode::Char('q'));
    assert!(matches!(app.overlay, Overlay::None));
    assert!(!app.should_quit, "q closed the overlay, it did not quit");

    key(&mut app, KeyCode::Char('y'));
    let s = screen(&app);
    assert!(
        s.contains("YAML pod ml/trainer-xl (fields kplace does not keep are omitted)"),
        "{s}"
    );
    assert!(s.contains("kind: Pod"), "{s}");
    assert!(s.contains("priorityClassName: standard"), "{s}");
    key(&mut app, KeyCode::Esc);
    assert!(matches!(app.overlay, Overlay::None));
    assert_eq!(app.view, View::Pods, "esc closed the overlay only");

    key(&mut app, KeyCode::Char('4'));
    keys(&mut app, "/gpu-a01");
    key(&mut app, KeyCode::Enter);
    key(&mut app, KeyCode::Char('d'));
    let s = screen(&app);
    assert!(s.contains("Describe node gpu-a01"), "{s}");
    // Requested is the model's accounting, as the Nodes table shows it.
    assert!(s.contains("cpu:") && s.contains("6.1 / 15.9 (38%)"), "{s}");
    assert!(s.contains("nvidia.com/gpu"), "{s}");
    assert!(s.contains("Pods on the node (3)"), "{s}");
    key(&mut app, KeyCode::Char('y'));
    // y inside the overlay does not open another; esc closes.
    key(&mut app, KeyCode::Esc);
    key(&mut app, KeyCode::Char('y'));
    let s = screen(&app);
    assert!(
        s.contains("kind: Node") && s.contains("allocatable:"),
        "{s}"
    );
}

#[test]
fn describe_scrolls_and_searches() {
    let mut app = demo_app();
    key(&mut app, KeyCode::Char('4'));
    keys(&mut app, "/worker-a01");
    key(&mut app, KeyCode::Enter);
    key(&mut app, KeyCode::Char('d'));
    let top = screen(&app);
    assert!(top.contains("Name:"), "{top}");
    key(&mut app, KeyCode::Char('G'));
    let end = screen(&app);
    assert!(!end.contains("Name:  "), "G scrolled to the end:\n{end}");
    key(&mut app, KeyCode::Char('g'));
    assert!(screen(&app).contains("Name:"));
    // Typed after /, letters are the search (d, q do nothing else).
    keys(&mut app, "/kubernetes.io/hostname");
    assert!(matches!(app.overlay, Overlay::Inspect(_)));
    key(&mut app, KeyCode::Enter);
    let s = screen(&app);
    assert!(
        s.contains("match 1 of 1 for \"kubernetes.io/hostname\""),
        "{s}"
    );
    key(&mut app, KeyCode::Char('g'));
    keys(&mut app, "/pods");
    key(&mut app, KeyCode::Enter);
    let first = screen(&app);
    assert!(first.contains("match 1 of 2"), "{first}");
    key(&mut app, KeyCode::Char('n'));
    let s = screen(&app);
    assert!(s.contains("match 2 of"), "{s}");
    key(&mut app, KeyCode::Char('N'));
    assert!(screen(&app).contains("match 1 of"), "{first}");
}

#[test]
fn help_closes_with_q_and_esc_without_quitting() {
    let mut app = demo_app();
    key(&mut app, KeyCode::Char('?'));
    assert!(matches!(app.overlay, Overlay::Help));
    key(&mut app, KeyCode::Char('q'));
    assert!(matches!(app.overlay, Overlay::None));
    assert!(!app.should_quit);
    key(&mut app, KeyCode::Char('?'));
    key(&mut app, KeyCode::Esc);
    assert!(matches!(app.overlay, Overlay::None));
    // With nothing open, q quits.
    key(&mut app, KeyCode::Char('q'));
    assert!(app.should_quit);
}

#[test]
fn help_lists_the_new_keys() {
    let mut app = demo_app();
    key(&mut app, KeyCode::Char('?'));
    let s = common::render(&app, 200, 60);
    for k in [
        "shift-letter",
        "ctrl-w",
        "ctrl-u / ctrl-k",
        "Describe / YAML",
        "what draining",
    ] {
        assert!(s.contains(k), "help lacks {k:?}:\n{s}");
    }
}

#[test]
fn shift_letters_sort_and_up_always_means_ascending() {
    let mut app = demo_app();
    key(&mut app, KeyCode::Char('5'));
    keys(&mut app, "C");
    let s = screen(&app);
    assert!(s.contains("sort: CPU↑") && s.contains("CPU↑"), "{s}");
    let cpu = |app: &App, i: usize| {
        let sess = app.session().unwrap();
        sess.loaded.derived.pod_rows[sess.pods.rows[i] as usize].cpu
    };
    let last = app.session().unwrap().pods.rows.len() - 1;
    assert!(cpu(&app, 0) <= cpu(&app, last), "↑ is smallest first");
    keys(&mut app, "C");
    assert!(screen(&app).contains("sort: CPU↓"));
    assert!(cpu(&app, 0) >= cpu(&app, last), "↓ is largest first");
    keys(&mut app, "N");
    let s = screen(&app);
    assert!(s.contains("sort: NAME↑"), "{s}");
    let first = rows(&s, 1).join("");
    assert!(first.contains("batch "), "A→Z by namespace/name: {first}");
    for (letter, name) in [
        ("M", "MEM"),
        ("A", "AGE"),
        ("P", "PRIORITY"),
        ("S", "PHASE"),
    ] {
        keys(&mut app, letter);
        assert!(screen(&app).contains(&format!("sort: {name}↑")), "{letter}");
    }
    key(&mut app, KeyCode::Char('4'));
    keys(&mut app, "C");
    let s = screen(&app);
    assert!(s.contains("sort: CPU↑"), "{s}");
    // Emptiest first: the first node is a GPU node at 38%, not a full worker.
    assert!(rows(&s, 1)[0].contains("38%"), "{s}");
}

#[test]
fn inverse_label_and_phase_filters() {
    let mut app = demo_app();
    key(&mut app, KeyCode::Char('5'));
    keys(&mut app, "/pending");
    key(&mut app, KeyCode::Enter);
    let s = screen(&app);
    assert!(s.contains("Pods (6/404) /pending"), "{s}");
    key(&mut app, KeyCode::Esc);
    keys(&mut app, "/!Running");
    key(&mut app, KeyCode::Enter);
    let s = screen(&app);
    for r in rows(&s, 6) {
        assert!(!r.contains("Running"), "{r}\n{s}");
    }
    key(&mut app, KeyCode::Esc);
    keys(&mut app, "/-l app=frontend");
    key(&mut app, KeyCode::Enter);
    let sess = app.session().unwrap();
    let n = sess.pods.rows.len();
    assert!(n > 10, "{n}");
    assert!(sess.pods.rows.iter().all(|&r| {
        let p = &sess.loaded.derived.pod_rows[r as usize];
        p.name.starts_with("frontend-")
    }));
    let s = screen(&app);
    assert!(s.contains("/-l app=frontend"), "{s}");
}

#[test]
fn ns_command_filters_pods_by_namespace_and_ctx_says_it_is_unavailable() {
    let mut app = demo_app();
    command(&mut app, "ns ml");
    assert_eq!(app.view, View::Pods);
    let s = screen(&app);
    assert!(s.contains("Pods [ml]"), "{s}");
    for r in rows(&s, 4)
        .iter()
        .filter(|r| !r.trim_matches(['│', ' ']).is_empty())
    {
        assert!(r.starts_with("│ml "), "{r}\n{s}");
    }
    command(&mut app, "ns all");
    assert!(screen(&app).contains("Pods (404)"));
    command(&mut app, "namespace shop");
    assert!(screen(&app).contains("Pods [shop]"));
    command(&mut app, "ns");
    assert!(screen(&app).contains("Pods (404)"));
    command(&mut app, "ns nowhere");
    assert!(screen(&app).contains("no pods in namespace \"nowhere\""));

    command(&mut app, "ctx");
    let s = screen(&app);
    assert!(
        s.contains(":ctx is unavailable") && s.contains("snapshot"),
        "{s}"
    );

    command(&mut app, "deploy");
    let s = screen(&app);
    assert!(
        s.contains("unknown view \"deploy\"; views are: overview (1)"),
        "{s}"
    );
    command(&mut app, "svc");
    assert!(screen(&app).contains("unknown view \"svc\""));
    assert_eq!(app.view, View::Pods, "an unknown view changes nothing");
}

#[test]
fn back_stack_is_bounded_and_collapses_repeats() {
    let mut app = demo_app();
    for _ in 0..30 {
        keys(&mut app, "4545123");
    }
    let h = app.history();
    assert!(h.len() <= kplace::app::state::HISTORY, "{h:?}");
    let mut seen = h.to_vec();
    seen.dedup();
    seen.sort_by_key(|v| v.index());
    seen.dedup();
    assert_eq!(seen.len(), h.len(), "a view appears once: {h:?}");
    // esc walks back through distinct views, latest first.
    assert_eq!(app.view, View::Tiers);
    key(&mut app, KeyCode::Esc);
    assert_eq!(app.view, View::Skew);
    key(&mut app, KeyCode::Esc);
    assert_eq!(app.view, View::Overview);
    key(&mut app, KeyCode::Esc);
    assert_eq!(app.view, View::Pods);
    key(&mut app, KeyCode::Esc);
    assert_eq!(app.view, View::Nodes);
}

#[test]
fn readline_keys_edit_the_filter_and_the_palette() {
    let mut app = demo_app();
    key(&mut app, KeyCode::Char('5'));
    keys(&mut app, "/shop frontend");
    ctrl(&mut app, 'w');
    assert_eq!(app.filter_text(), Some("shop "));
    ctrl(&mut app, 'a');
    keys(&mut app, "!");
    assert_eq!(app.filter_text(), Some("!shop "));
    ctrl(&mut app, 'e');
    keys(&mut app, "x");
    assert_eq!(app.filter_text(), Some("!shop x"));
    ctrl(&mut app, 'u');
    assert_eq!(app.filter_text(), Some(""));
    keys(&mut app, "ledger");
    key(&mut app, KeyCode::Enter);
    assert!(screen(&app).contains("/ledger"));

    key(&mut app, KeyCode::Char(':'));
    keys(&mut app, "theme light");
    ctrl(&mut app, 'w');
    ctrl(&mut app, 'a');
    ctrl(&mut app, 'k');
    let Overlay::Palette(p) = &app.overlay else {
        panic!("palette closed")
    };
    assert_eq!(p.input, "");
    keys(&mut app, "tiers");
    ctrl(&mut app, 'a');
    ctrl(&mut app, 'e');
    key(&mut app, KeyCode::Enter);
    assert_eq!(app.view, View::Tiers, "ctrl-a / ctrl-e typed nothing");
}

#[test]
fn readline_keys_edit_a_what_if_form_field() {
    let mut app = demo_app();
    key(&mut app, KeyCode::Char('5'));
    keys(&mut app, "/trainer-xl");
    key(&mut app, KeyCode::Enter);
    key(&mut app, KeyCode::Char('e'));
    assert_eq!(app.view, View::WhatIf);
    // Down to the first text field and edit it.
    let field = {
        let w = &app.session().unwrap().whatif;
        w.rows
            .iter()
            .position(|r| r.label.contains("cpu"))
            .expect("a cpu row")
    };
    while app.session().unwrap().whatif.cursor < field {
        key(&mut app, KeyCode::Down);
    }
    key(&mut app, KeyCode::Enter);
    ctrl(&mut app, 'u');
    keys(&mut app, "2 cores");
    ctrl(&mut app, 'w');
    ctrl(&mut app, 'a');
    keys(&mut app, "1");
    ctrl(&mut app, 'e');
    assert_eq!(app.session().unwrap().whatif.input.as_deref(), Some("12 "));
    ctrl(&mut app, 'k');
    key(&mut app, KeyCode::Esc);
    assert_eq!(app.view, View::WhatIf);
}

#[test]
fn a_click_selects_the_table_row_under_the_mouse() {
    let mut app = demo_app();
    key(&mut app, KeyCode::Char('4'));
    let _ = screen(&app);
    // Rows: title, tabs, border, header, then data from screen row 4.
    app.handle_mouse(MouseEvent {
        kind: MouseEventKind::Down(MouseButton::Left),
        column: 5,
        row: 7,
        modifiers: KeyModifiers::NONE,
    });
    assert_eq!(app.session().unwrap().nodes.cursor.selected, 3);
    // A click on the header selects nothing new.
    app.handle_mouse(MouseEvent {
        kind: MouseEventKind::Down(MouseButton::Left),
        column: 5,
        row: 3,
        modifiers: KeyModifiers::NONE,
    });
    assert_eq!(app.session().unwrap().nodes.cursor.selected, 3);
}

#[test]
fn slash_in_placement_searches_and_never_runs_commands() {
    let mut app = demo_app();
    key(&mut app, KeyCode::Char('5'));
    keys(&mut app, "/trainer-xl");
    key(&mut app, KeyCode::Enter);
    key(&mut app, KeyCode::Enter);
    assert_eq!(app.view, View::Placement);
    // `e` would draft, `d` describe, `q` quit: typed after /, they are text.
    keys(&mut app, "/Insufficient memory");
    assert_eq!(app.view, View::Placement);
    assert!(app.session().unwrap().whatif.draft.is_none());
    assert!(matches!(app.overlay, Overlay::None));
    assert!(!app.should_quit);
    key(&mut app, KeyCode::Enter);
    let s = screen(&app);
    assert!(s.contains("for \"Insufficient memory\""), "{s}");
    assert!(s.contains("match 1 of"), "{s}");
    key(&mut app, KeyCode::Char('n'));
    assert!(screen(&app).contains("match 2 of"));
    // esc clears the search first, then goes back.
    key(&mut app, KeyCode::Esc);
    assert_eq!(app.view, View::Placement);
    key(&mut app, KeyCode::Esc);
    assert_eq!(app.view, View::Pods);
}
