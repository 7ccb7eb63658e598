//! The k9s keys, driven through the app's key handling and read off the
//! screen (TestBackend): describe and YAML overlays, shift-letter sorts,
//! inverse and label filters, `:ns`, `:ctx`, unknown views, readline keys
//! in every input field, mouse clicks, the bounded back-stack, and `/` in
//! Placement never running commands.

mod common;

use common::{command, demo_app, key, keys, press};

use crossterm::event::{KeyCode, KeyModifiers, MouseButton, MouseEvent, MouseEventKind};
use kplace::app::{App, Overlay, View};

fn ctrl(app: &mut App, c: char) {
    press(app, KeyCode::Char(c), KeyModifiers::CONTROL);
}

fn screen(app: &App) -> String {
    common::render(app, 120, 40)
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
        "ctrl-u",
        "ctrl-k",
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
        sess.loaded.derived.pods_now().rows[sess.pods.rows[i] as usize].cpu
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
        let p = &sess.loaded.derived.pods_now().rows[r as usize];
        p.name.starts_with("frontend-")
    }));
    let s = screen(&app);
    assert!(s.contains("/-l app=frontend"), "{s}");
}

#[test]
fn ns_command_filters_every_namespaced_list_and_stays_in_the_view() {
    let mut app = demo_app();
    let pending_all = app.session().unwrap().loaded.derived.pending.len();
    // From the Overview: the view stays; the title bar says the namespace.
    command(&mut app, "ns ml");
    assert_eq!(
        app.view,
        View::Overview,
        ":ns does not jump to another view"
    );
    let s = screen(&app);
    assert!(s.lines().next().unwrap().contains("ns:ml"), "{s}");
    {
        let session = app.session().unwrap();
        let cluster = session.cluster();
        let shown: Vec<String> = session
            .pending_rows
            .iter()
            .map(|&p| cluster.pod_key(p))
            .collect();
        assert!(!shown.is_empty(), "the demo has pending pods in ml");
        assert!(shown.len() < pending_all, "and in other namespaces");
        assert!(shown.iter().all(|k| k.starts_with("ml/")), "{shown:?}");
        let title = format!("Pending pods [ml] ({} of {pending_all})", shown.len());
        assert!(s.contains(&title), "{title}\n{s}");
    }
    // The pending list's enter opens an ml pod.
    key(&mut app, KeyCode::Enter);
    assert_eq!(app.view, View::Placement);
    let pod = app.session().unwrap().placement_pod.unwrap();
    assert!(
        app.session()
            .unwrap()
            .cluster()
            .pod_key(pod)
            .starts_with("ml/")
    );

    // Skew: workloads and pending pods of ml only.
    key(&mut app, KeyCode::Char('2'));
    let s = screen(&app);
    assert!(s.contains("Workloads [ml]"), "{s}");
    {
        let session = app.session().unwrap();
        let labels = &session.loaded.derived.fleet_now().skew_labels;
        assert!(!session.skew_rows.is_empty());
        assert!(session.skew_rows.len() < labels.len());
        for &i in &session.skew_rows {
            assert!(labels[i].starts_with("ml/"), "{}", labels[i]);
        }
    }

    // Pods: the rows of ml only.
    key(&mut app, KeyCode::Char('5'));
    let s = screen(&app);
    assert!(s.contains("Pods [ml]"), "{s}");
    for r in rows(&s, 4)
        .iter()
        .filter(|r| !r.trim_matches(['│', ' ']).is_empty())
    {
        assert!(r.starts_with("│ml "), "{r}\n{s}");
    }
    // Nodes are cluster-wide: every node, as before.
    key(&mut app, KeyCode::Char('4'));
    let nodes = app.session().unwrap().cluster().nodes.len();
    assert!(screen(&app).contains(&format!("Nodes ({nodes})")));
    key(&mut app, KeyCode::Char('5'));

    // :ns -A and :ns all clear it, in the view shown.
    command(&mut app, "ns -A");
    assert_eq!(app.view, View::Pods);
    let s = screen(&app);
    assert!(s.contains("Pods (404)"), "{s}");
    assert!(!s.lines().next().unwrap().contains("ns:"), "{s}");
    key(&mut app, KeyCode::Char('1'));
    command(&mut app, "namespace shop");
    assert_eq!(app.view, View::Overview);
    assert!(screen(&app).lines().next().unwrap().contains("ns:shop"));
    command(&mut app, "ns all");
    assert_eq!(
        app.session().unwrap().pending_rows.len(),
        pending_all,
        "every pending pod again"
    );
    assert!(screen(&app).contains(&format!("Pending pods ({pending_all})")));
    key(&mut app, KeyCode::Char('5'));
    command(&mut app, "namespace shop");
    assert!(screen(&app).contains("Pods [shop]"));
    command(&mut app, "ns");
    assert!(screen(&app).contains("Pods (404)"));
    command(&mut app, "ns nowhere");
    assert!(
        screen(&app).contains("no pods or workloads in namespace \"nowhere\""),
        "{}",
        screen(&app)
    );

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
    // The what-if family is named too, so `:foo` teaches `:lose ZONE`.
    let flat: String = s.split_whitespace().collect::<Vec<_>>().join(" ");
    assert!(
        flat.contains("draft, replicas, cordon ZONE, lose ZONE, drain NODE, then, scenario clear"),
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

/// The key event a key-table key stands for.
fn event_of(k: kplace::app::keys::K) -> crossterm::event::KeyEvent {
    use crossterm::event::KeyEvent;
    use kplace::app::keys::K;
    match k {
        K::Ch(c) => KeyEvent::new(KeyCode::Char(c), KeyModifiers::NONE),
        K::Ctrl(c) => KeyEvent::new(KeyCode::Char(c), KeyModifiers::CONTROL),
        K::Code(KeyCode::BackTab) => KeyEvent::new(KeyCode::BackTab, KeyModifiers::SHIFT),
        K::Code(c) => KeyEvent::new(c, KeyModifiers::NONE),
        K::Digit => KeyEvent::new(KeyCode::Char('3'), KeyModifiers::NONE),
        K::SortLetter => KeyEvent::new(KeyCode::Char('C'), KeyModifiers::SHIFT),
    }
}

fn hit(app: &mut App, ev: crossterm::event::KeyEvent) {
    press(app, ev.code, ev.modifiers);
}

/// Back to the What-if answer with nothing open (editor, field, chooser).
fn what_if_reset(app: &mut App) {
    let w = &app.session().unwrap().whatif;
    if w.editor.is_some() || w.input.is_some() || w.chooser.is_some() {
        key(app, KeyCode::Esc);
    }
    if app.view != View::WhatIf {
        key(app, KeyCode::Char('7'));
    }
    key(app, KeyCode::Char('a'));
    let w = &app.session().unwrap().whatif;
    assert!(w.editor.is_none() && w.input.is_none() && w.chooser.is_none());
}

fn w(app: &App) -> &kplace::app::whatif::WhatIf {
    &app.session().unwrap().whatif
}

/// Moves the What-if form's cursor to the first row `want` accepts.
fn to_row(app: &mut App, want: impl Fn(&kplace::app::whatif::form::Row) -> bool) {
    let w = |app: &App| -> (usize, Vec<kplace::app::whatif::form::Row>) {
        let w = &app.session().unwrap().whatif;
        (w.cursor, w.rows.clone())
    };
    loop {
        let before = w(app).0;
        key(app, KeyCode::Up);
        if w(app).0 == before {
            break;
        }
    }
    loop {
        let (at, rows) = w(app);
        if want(&rows[at]) {
            return;
        }
        key(app, KeyCode::Down);
        assert_ne!(w(app).0, at, "no such row in the form");
    }
}

/// Every What-if key help lists does what its row says: the rows are
/// iterated from the table, so a row added without its behaviour fails
/// here (the match has no catch-all for What-if actions).
#[test]
fn every_what_if_key_in_help_does_what_it_says() {
    use kplace::app::keys::{Action, BINDINGS, Scope};
    use kplace::app::whatif::Panel;
    let mut app = demo_app();
    key(&mut app, KeyCode::Char('5'));
    keys(&mut app, "/trainer-xl");
    key(&mut app, KeyCode::Enter);
    key(&mut app, KeyCode::Char('e'));
    assert_eq!(app.view, View::WhatIf);
    let mut checked = 0;
    for b in BINDINGS.iter().filter(|b| b.scope == Scope::WhatIf) {
        let Some(action) = b.action else { continue };
        for &k in b.on {
            what_if_reset(&mut app);
            let ev = event_of(k);
            let what = format!("{} ({:?})", b.keys, action);
            match action {
                Action::Up => {
                    key(&mut app, KeyCode::Down);
                    key(&mut app, KeyCode::Down);
                    let before = w(&app).cursor;
                    hit(&mut app, ev);
                    assert!(w(&app).cursor < before, "{what}");
                }
                Action::Down => {
                    let before = w(&app).cursor;
                    hit(&mut app, ev);
                    assert!(w(&app).cursor > before, "{what}");
                }
                Action::EditField => {
                    // A request row: enter starts typing into it.
                    to_row(&mut app, |r| r.label == "cpu request");
                    hit(&mut app, ev);
                    assert!(w(&app).input.is_some(), "{what}");
                }
                Action::RemoveField => {
                    to_row(&mut app, |r| r.target.removable());
                    let before = w(&app).draft.as_ref().unwrap().yaml.clone();
                    hit(&mut app, ev);
                    assert_ne!(w(&app).draft.as_ref().unwrap().yaml, before, "{what}");
                }
                Action::ToggleCopy => {
                    let before = w(&app).as_copy;
                    hit(&mut app, ev);
                    assert_ne!(w(&app).as_copy, before, "{what}");
                }
                Action::EditYaml => {
                    hit(&mut app, ev);
                    assert!(w(&app).editor.is_some(), "{what}");
                }
                Action::EditExternal => {
                    hit(&mut app, ev);
                    assert!(app.take_external_edit().is_some(), "{what}");
                }
                Action::PlaceReplicas => {
                    hit(&mut app, ev);
                    assert_eq!(w(&app).panel, Panel::Replicas, "{what}");
                    assert!(w(&app).replicas.is_some(), "{what}");
                }
                Action::MoreReplicas | Action::FewerReplicas => {
                    key(&mut app, KeyCode::Char('r'));
                    let before = w(&app).replicas_n;
                    hit(&mut app, ev);
                    let delta = if action == Action::MoreReplicas {
                        1
                    } else {
                        -1
                    };
                    assert_eq!(
                        w(&app).replicas_n as isize,
                        before as isize + delta,
                        "{what}"
                    );
                }
                Action::ShowAnswer | Action::Back => {
                    key(&mut app, KeyCode::Char('r'));
                    hit(&mut app, ev);
                    assert_eq!(w(&app).panel, Panel::Answer, "{what}");
                    assert_eq!(app.view, View::WhatIf, "{what}");
                }
                Action::PageDown => {
                    hit(&mut app, ev);
                    assert!(w(&app).scroll > 0, "{what}");
                }
                Action::PageUp => {
                    key(&mut app, KeyCode::PageDown);
                    key(&mut app, KeyCode::PageDown);
                    let before = w(&app).scroll;
                    hit(&mut app, ev);
                    assert!(w(&app).scroll < before, "{what}");
                }
                Action::End => {
                    hit(&mut app, ev);
                    let end = w(&app).scroll;
                    assert!(end > 0, "{what}");
                    key(&mut app, KeyCode::PageDown);
                    assert_eq!(w(&app).scroll, end, "{what}: not at the end");
                }
                Action::Home => {
                    key(&mut app, KeyCode::PageDown);
                    hit(&mut app, ev);
                    assert_eq!(w(&app).scroll, 0, "{what}");
                }
                Action::SaveDraft => {
                    // Without a draft (a drain plan alone) the key says so;
                    // with one it writes a file, which this test does not.
                    let mut bare = demo_app();
                    key(&mut bare, KeyCode::Char('4'));
                    key(&mut bare, KeyCode::Char('r'));
                    hit(&mut bare, ev);
                    let status = bare.status.clone().expect("a status");
                    assert!(status.text.contains("no draft to save"), "{what}");
                }
                Action::SearchNext | Action::SearchPrev => {
                    // A zone plan searched for "→" (every landed pod's row).
                    key(&mut app, KeyCode::Char(':'));
                    for c in "lose eu-west-1a".chars() {
                        key(&mut app, KeyCode::Char(c));
                    }
                    key(&mut app, KeyCode::Enter);
                    key(&mut app, KeyCode::Char('/'));
                    key(&mut app, KeyCode::Char('→'));
                    key(&mut app, KeyCode::Enter);
                    let hits = w(&app).plan_search.hits.len();
                    assert!(hits >= 2, "{what}: {hits} hit(s)");
                    let before = w(&app).plan_search.current;
                    hit(&mut app, ev);
                    let step = if action == Action::SearchNext {
                        1
                    } else {
                        hits - 1
                    };
                    assert_eq!(
                        w(&app).plan_search.current,
                        (before + step) % hits,
                        "{what}"
                    );
                    assert_eq!(
                        w(&app).scroll,
                        w(&app).plan_search.hits[w(&app).plan_search.current],
                        "{what}: the plan scrolls to the match"
                    );
                    key(&mut app, KeyCode::Esc);
                }
                other => panic!("What-if row {what} has no check for {other:?}"),
            }
            checked += 1;
        }
    }
    assert!(checked >= 16, "{checked}");
}

/// A What-if key that help does not list does nothing: every printable
/// key, control letter and named key not bound in the What-if, replay,
/// list or global rows leaves the view, the draft and the panels alone.
#[test]
fn no_key_acts_in_what_if_without_a_row_in_help() {
    use crossterm::event::KeyEvent;
    use kplace::app::keys::{self, Scope};
    let mut app = demo_app();
    key(&mut app, KeyCode::Char('5'));
    key(&mut app, KeyCode::Char('e'));
    assert_eq!(app.view, View::WhatIf);
    let state = |app: &App| {
        let w = &app.session().unwrap().whatif;
        format!(
            "{:?} {:?} {} {} {} {} {} {} {:?} {} {} {:?}",
            app.view,
            w.panel,
            w.cursor,
            w.scroll,
            w.replicas_n,
            w.input.is_some(),
            w.editor.is_some(),
            w.as_copy,
            w.chooser,
            w.draft.as_ref().map_or(String::new(), |d| d.yaml.clone()),
            app.should_quit,
            std::mem::discriminant(&app.overlay),
        )
    };
    let mut candidates: Vec<KeyEvent> = (b' '..=b'~')
        .map(|c| KeyEvent::new(KeyCode::Char(c as char), KeyModifiers::NONE))
        .collect();
    for c in b'a'..=b'z' {
        candidates.push(KeyEvent::new(
            KeyCode::Char(c as char),
            KeyModifiers::CONTROL,
        ));
    }
    for code in [
        KeyCode::Left,
        KeyCode::Right,
        KeyCode::Backspace,
        KeyCode::Delete,
        KeyCode::Insert,
        KeyCode::F(2),
    ] {
        candidates.push(KeyEvent::new(code, KeyModifiers::NONE));
    }
    let scopes = [Scope::WhatIf, Scope::Replay, Scope::Lists, Scope::Global];
    let mut tried = 0;
    for ev in candidates {
        if keys::action(&scopes, &ev).is_some() {
            continue;
        }
        let before = state(&app);
        press(&mut app, ev.code, ev.modifiers);
        assert_eq!(state(&app), before, "{ev:?} acted without a row in help");
        tried += 1;
    }
    assert!(tried > 50, "{tried}");
}

/// Every replay key help lists does what its row says, on the demo
/// recording.
#[test]
fn every_replay_key_in_help_does_what_it_says() {
    use kplace::app::keys::{Action, BINDINGS, Scope};
    let mut app = App::new(kplace::app::Options {
        demo_replay: true,
        ..Default::default()
    });
    assert!(app.wait_until_idle(common::SETTLE));
    key(&mut app, KeyCode::Char('8'));
    // Start in the middle, paused, a little faster than 1x, so every
    // step and speed has room both ways.
    for _ in 0..5 {
        app.handle_key(event_of(kplace::app::keys::K::Ch(']')));
    }
    app.handle_key(event_of(kplace::app::keys::K::Ch('+')));
    let r = |app: &App| {
        let r = app.replay().expect("a recording");
        (
            r.playing,
            r.speed(),
            r.position,
            r.clock_ms,
            r.mark.is_some(),
        )
    };
    let mut checked = 0;
    for b in BINDINGS.iter().filter(|b| b.scope == Scope::Replay) {
        let Some(action) = b.action else { continue };
        for &k in b.on {
            let before = r(&app);
            // Not waiting: playing keeps the app busy until the end.
            app.handle_key(event_of(k));
            let after = r(&app);
            let what = format!("{} ({action:?})", b.keys);
            match action {
                Action::PlayPause => {
                    assert_ne!(after.0, before.0, "{what}");
                    app.handle_key(event_of(k));
                    assert!(!r(&app).0);
                }
                Action::Faster => assert!(after.1 > before.1, "{what}"),
                Action::Slower => assert!(after.1 < before.1, "{what}"),
                Action::StepForward => assert_eq!(after.2, before.2 + 1, "{what}"),
                Action::StepBack => assert_eq!(after.2 + 1, before.2, "{what}"),
                Action::TimeForward => assert!(after.3 > before.3, "{what}"),
                Action::TimeBack => assert!(after.3 < before.3, "{what}"),
                Action::Mark => assert_ne!(after.4, before.4, "{what}"),
                Action::NextDisagreement => {
                    let text = app.status.clone().expect("a status").text;
                    assert!(
                        text.contains("trust check is still running")
                            || text.contains("agrees with every binding")
                            || text.contains("was bound at"),
                        "{what}: {text}"
                    );
                }
                other => panic!("replay row {what} has no check for {other:?}"),
            }
            // Faster before slower in the table: undo so the next has room.
            if action == Action::Faster {
                app.handle_key(event_of(kplace::app::keys::K::Ch('-')));
            }
            checked += 1;
        }
    }
    assert!(checked >= 9, "{checked}");
    assert!(app.wait_until_idle(common::SETTLE));
}
