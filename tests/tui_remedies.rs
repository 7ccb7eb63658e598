//! "How to make it fit" in the Placement view of the demo: the engine's
//! verified remedies listed under the verdict, chosen with `[` `]`, and
//! opened in What-if with enter (a pod change as the draft, a cluster
//! change made for the draft's answers).

mod common;

use common::{command, demo_app, key, keys};

use crossterm::event::KeyCode;
use kplace::app::{App, View};
use kplace::engine::remedies::RemedyKind;

fn open_placement(app: &mut App, pod: &str) {
    key(app, KeyCode::Char('5'));
    keys(app, &format!("/{pod}"));
    key(app, KeyCode::Enter);
    key(app, KeyCode::Enter);
    assert_eq!(app.view, View::Placement);
}

/// Presses `]` until the chosen remedy is of `kind`.
fn choose(app: &mut App, kind: RemedyKind) -> String {
    for _ in 0..10 {
        let s = app.session().unwrap();
        let panel = s.remedies.as_ref().expect("remedies listed");
        let item = &panel.items[s.remedy_selected];
        if item.kind == kind {
            return item.change.clone();
        }
        key(app, KeyCode::Char(']'));
    }
    panic!("no {kind:?} remedy");
}

#[test]
fn the_frontend_pods_remedies_are_listed_and_a_spread_change_opens_as_a_draft() {
    let mut app = demo_app();
    open_placement(&mut app, "frontend-6b8f7c5d4-r6ndz");
    let screen = common::render(&app, 200, 60);
    assert!(screen.contains("How to make it fit: "), "{screen}");
    assert!(
        screen.contains("raise maxSkew of topology spread constraint 1 (topology.kubernetes.io/zone) from 1 to 2 → schedules on"),
        "{screen}"
    );
    assert!(
        screen.contains("add 1 node like worker-c01 in zone eu-west-1c"),
        "{screen}"
    );
    // The selection wraps and is shown.
    let first = app.session().unwrap().remedy_selected;
    key(&mut app, KeyCode::Char('['));
    assert_ne!(app.session().unwrap().remedy_selected, first);
    key(&mut app, KeyCode::Char(']'));

    let change = choose(&mut app, RemedyKind::RelaxSpread);
    key(&mut app, KeyCode::Enter);
    assert_eq!(app.view, View::WhatIf);
    let w = &app.session().unwrap().whatif;
    let doc = &w.draft.as_ref().unwrap().doc;
    assert_eq!(
        doc.pointer("/spec/topologySpreadConstraints/0/maxSkew"),
        Some(&2.into()),
        "{change}"
    );
    let screen = common::render(&app, 200, 60);
    assert!(screen.contains("SCHEDULED"), "{screen}");
}

#[test]
fn a_new_node_remedy_opens_with_the_cluster_changed() {
    let mut app = demo_app();
    open_placement(&mut app, "frontend-6b8f7c5d4-r6ndz");
    let change = choose(&mut app, RemedyKind::AddNode);
    key(&mut app, KeyCode::Enter);
    assert_eq!(app.view, View::WhatIf);
    let screen = common::render(&app, 200, 60);
    assert!(
        screen.contains(&format!(
            "the cluster in this answer has one change: {change}"
        )),
        "{screen}"
    );
    assert!(screen.contains("worker-c01-copy-1"), "{screen}");
    assert!(screen.contains("SCHEDULED"), "{screen}");
    // The snapshot itself is unchanged: Placement still says unschedulable.
    key(&mut app, KeyCode::Esc);
    let report = app.session().unwrap().placement.clone().unwrap();
    assert_eq!(report.outcome, kplace::engine::Outcome::Unschedulable);
}

#[test]
fn help_lists_the_remedy_keys() {
    let mut app = demo_app();
    key(&mut app, KeyCode::Char('?'));
    let screen = common::render(&app, 240, 120);
    assert!(
        screen.contains("previous change under \"How to make it fit\""),
        "{screen}"
    );
    assert!(
        screen.contains("open the chosen change in What-if"),
        "{screen}"
    );
}

#[test]
fn replicas_max_in_what_if_counts_how_many_more_fit() {
    let mut app = demo_app();
    open_placement(&mut app, "cart-7c9f8d6b5-new01");
    key(&mut app, KeyCode::Char('e'));
    assert_eq!(app.view, View::WhatIf);
    command(&mut app, "replicas max");
    let screen = common::render(&app, 200, 60);
    assert!(
        screen.contains("How many more replicas of shop/cart-7c9f8d6b5-new01 fit:"),
        "{screen}"
    );
    // The same counts `place --replicas max` gives (tests/capacity.rs ties
    // those to --replicas N).
    assert!(screen.contains("without preemption: 103"), "{screen}");
    assert!(
        screen.contains("per zone: eu-west-1a=50 eu-west-1b=49 eu-west-1c=4"),
        "{screen}"
    );
}

#[test]
fn every_remedy_is_visible_at_120x40_even_when_lines_wrap() {
    let mut app = demo_app();
    open_placement(&mut app, "frontend-6b8f7c5d4-r6ndz");
    let n = app
        .session()
        .unwrap()
        .remedies
        .as_ref()
        .unwrap()
        .items
        .len();
    assert_eq!(n, 4);
    let screen = common::render(&app, 120, 40);
    for kind in ["[relax-spread]", "[resize]", "[add-node]", "[priority]"] {
        assert!(screen.contains(kind), "{kind} missing:\n{screen}");
    }
}

#[test]
fn a_remedy_that_wraps_continues_indented_under_its_own_text() {
    let mut app = demo_app();
    open_placement(&mut app, "frontend-6b8f7c5d4-r6ndz");
    // Narrow enough that the priority change (which names its victims)
    // takes more than one row.
    let screen = common::render(&app, 90, 50);
    let lines: Vec<&str> = screen.lines().collect();
    let first = lines
        .iter()
        .position(|l| l.contains("[priority]"))
        .unwrap_or_else(|| panic!("no [priority] remedy:\n{screen}"));
    let rest: Vec<&str> = lines[first + 1..]
        .iter()
        .take_while(|l| !l.starts_with('└') && !l.contains("] "))
        .copied()
        .collect();
    assert!(
        !rest.is_empty(),
        "the priority change fits one row:\n{screen}"
    );
    for row in &rest {
        assert!(
            row.starts_with("│    ") && !row.starts_with("│     "),
            "a wrapped row is not indented by four:\n{row}\n{screen}"
        );
    }
    // The victim's name is in the remedy's rows, whole.
    assert!(
        rest.iter()
            .any(|r| r.contains("shop/frontend-6b8f7c5d4-wskc9")),
        "{screen}"
    );
    // At any width, names are never broken at their hyphens: each wrap
    // falls between words.
    for width in 80..=160 {
        let screen = common::render(&app, width, 60);
        for name in ["worker-b11", "worker-c03", "worker-c01-copy-1"] {
            assert!(
                screen.contains(name),
                "{name} broken at width {width}:\n{screen}"
            );
        }
    }
}
