//! Text that fits: the Placement answer wraps to its pane at 80×24 and
//! 200×60 with every word of the scheduler's message kept, table columns
//! are sized from their content (numbers never cut, names cut in the
//! middle so their distinguishing end stays), the drain plan shows where
//! each pod goes.

mod common;

use common::{command, demo_app, key, keys};

use crossterm::event::KeyCode;
use kplace::app::{App, Options, View};

/// The words of the screen's inner text (borders dropped), in order.
fn words(screen: &str) -> Vec<String> {
    screen
        .lines()
        .flat_map(|l| {
            l.trim_matches(|c| c == '│' || c == ' ')
                .split_whitespace()
                .map(str::to_string)
                .collect::<Vec<_>>()
        })
        .collect()
}

/// Opens the Placement of `ns/name` through the Pods filter.
fn open(app: &mut App, pod: &str) {
    key(app, KeyCode::Char('5'));
    key(app, KeyCode::Char('/'));
    keys(app, pod);
    key(app, KeyCode::Enter);
    key(app, KeyCode::Enter);
    assert_eq!(app.view, View::Placement);
}

#[test]
fn placement_message_keeps_every_word_at_80x24_and_200x60() {
    for (w, h) in [(80u16, 24u16), (200, 60)] {
        let mut app = demo_app();
        open(&mut app, "trainer-xl");
        let (i, message) = {
            let s = app.session().expect("ready");
            let r = s.placement.as_ref().expect("answer");
            let i = r
                .lines
                .iter()
                .position(|l| l.text.contains("nodes are available"))
                .expect("the FitError message");
            (i, r.lines[i].text.trim().to_string())
        };
        // Scroll so the message is the top line of the pane.
        for _ in 0..i {
            key(&mut app, KeyCode::Down);
        }
        assert!(
            message.len() > 100,
            "a message long enough to wrap: {message}"
        );
        let screen = common::render(&app, w, h);
        let shown = words(&screen);
        let expected: Vec<&str> = message.split_whitespace().collect();
        // The message's words appear, consecutively, across the wrapped rows.
        let found = shown
            .windows(expected.len())
            .any(|win| win.iter().map(String::as_str).eq(expected.iter().copied()));
        assert!(
            found,
            "{w}x{h}: the message's words are not all on screen in order:\n{message}\n{screen}"
        );
        // Nothing runs past the pane's right border.
        for l in screen.lines().filter(|l| l.starts_with('│')) {
            assert!(l.ends_with('│'), "{w}x{h}: a row runs over the border: {l}");
        }
    }
}

#[test]
fn nodes_table_shows_whole_numbers_and_whole_names_at_80x24() {
    let mut app = demo_app();
    key(&mut app, KeyCode::Char('4'));
    let s = common::render(&app, 80, 24);
    // gpu-a01 requests 6.1 of 15.9 cores: the number is never cut.
    let gpu = s
        .lines()
        .find(|l| l.contains("gpu-a01"))
        .unwrap_or_else(|| panic!("no gpu-a01 row:\n{s}"));
    assert!(gpu.contains("6.1/15.9"), "{gpu}\n{s}");
    assert!(gpu.contains("24.1Gi/60Gi"), "{gpu}\n{s}");
    // Names are whole when they fit: the taints give way first.
    assert!(s.contains("worker-a01"), "{s}");
    assert!(s.contains("eu-west-1a"), "{s}");
}

/// At 80 columns the demo's taints do not fit beside the other columns:
/// the TAINTS column counts them (as k9s does) instead of leaving out
/// that a node is tainted; with room, it lists them.
#[test]
fn nodes_table_counts_the_taints_that_do_not_fit() {
    let mut app = demo_app();
    key(&mut app, KeyCode::Char('4'));
    let s = common::render(&app, 80, 24);
    let header = s
        .lines()
        .find(|l| l.contains("NAME↑") && l.contains("AGE"))
        .unwrap_or_else(|| panic!("no header:\n{s}"));
    assert!(
        header.trim_end_matches([' ', '│']).ends_with("TAINTS"),
        "{header}\n{s}"
    );
    // The TAINTS cell of a node's row: the columns under the heading
    // (cells start where their heading does).
    let header_chars: Vec<char> = header.chars().collect();
    let at = (0..header_chars.len())
        .find(|&i| header_chars[i..].starts_with(&['T', 'A', 'I', 'N', 'T', 'S']))
        .expect("the TAINTS heading");
    let last_cell = |node: &str| -> String {
        let row = s
            .lines()
            .find(|l| l.contains(node))
            .unwrap_or_else(|| panic!("no {node} row:\n{s}"));
        let cell: String = row.chars().skip(at).collect();
        cell.trim_end_matches([' ', '│']).trim().to_string()
    };
    // gpu-a01 carries nvidia.com/gpu=present:NoSchedule, batch-b01
    // dedicated=batch:NoSchedule; worker-a01 carries none.
    assert_eq!(last_cell("gpu-a01"), "1", "{s}");
    assert_eq!(last_cell("batch-b01"), "1", "{s}");
    assert_eq!(last_cell("worker-a01"), "", "{s}");
    assert!(!s.contains("NoSchedule"), "{s}");
    let s = common::render(&app, 130, 24);
    let gpu = s
        .lines()
        .find(|l| l.contains("gpu-a01"))
        .unwrap_or_else(|| panic!("no gpu-a01 row:\n{s}"));
    assert!(
        gpu.contains("nvidia.com/gpu=present:NoSchedule"),
        "{gpu}\n{s}"
    );
}

#[test]
fn pods_table_keeps_the_distinguishing_end_of_names_at_80x24() {
    let mut app = demo_app();
    key(&mut app, KeyCode::Char('5'));
    let s = common::render(&app, 80, 24);
    let names: Vec<String> = app
        .session()
        .expect("ready")
        .pods
        .rows
        .iter()
        .take(5)
        .map(|&r| {
            app.session().unwrap().loaded.derived.pods_now().rows[r as usize]
                .name
                .clone()
        })
        .collect();
    for name in &names {
        // Whole, or cut in the middle: the random suffix is on screen.
        let suffix = name.rsplit('-').next().unwrap_or(name);
        let row = s
            .lines()
            .find(|l| l.contains(suffix))
            .unwrap_or_else(|| panic!("no row ends {name}'s name with {suffix}:\n{s}"));
        assert!(
            row.contains(name.as_str()) || row.contains(&format!("…-{suffix}")),
            "{name}: {row}"
        );
    }
    // Five pods sharing a prefix read as five different names.
    let shown: std::collections::HashSet<&str> = s
        .lines()
        .skip(4)
        .take(5)
        .filter_map(|l| l.split_whitespace().nth(1))
        .collect();
    assert_eq!(shown.len(), 5, "{s}");
}

#[test]
fn long_node_names_end_with_their_suffix_or_an_ellipsis() {
    let mut doc = serde_json::json!({"apiVersion": "v1", "kind": "List", "items": []});
    let items = doc["items"].as_array_mut().unwrap();
    let names = [
        "gke-prod-pool-highmem-2-b7c9d1e0-7afe63",
        "gke-prod-pool-highmem-2-b7c9d1e0-9c2d41",
    ];
    for n in names {
        items.push(serde_json::json!({
            "apiVersion": "v1", "kind": "Node",
            "metadata": {"name": n, "labels": {"kubernetes.io/hostname": n,
                "topology.kubernetes.io/zone": "europe-west4-a"}},
            "spec": {"taints": [{"key": "workload-class/dedicated-highmem-batch", "value": "true", "effect": "NoSchedule"}]},
            "status": {"allocatable": {"cpu": "15900m", "memory": "60Gi", "pods": "110"}}
        }));
    }
    items.push(serde_json::json!({
        "apiVersion": "v1", "kind": "Pod",
        "metadata": {"name": "web-0", "namespace": "default"},
        "spec": {"nodeName": names[0], "containers": [{"name": "c", "image": "nginx",
            "resources": {"requests": {"cpu": "6100m", "memory": "1Gi"}}}]},
        "status": {"phase": "Running"}
    }));
    let mut app = app_of(&doc, "long names");
    key(&mut app, KeyCode::Char('4'));
    for (w, h) in [(80u16, 24u16), (200, 60)] {
        let s = common::render(&app, w, h);
        for n in names {
            let suffix = &n[n.len() - 7..];
            let row = s
                .lines()
                .find(|l| l.contains(suffix))
                .unwrap_or_else(|| panic!("{w}x{h}: no row ends with {suffix}:\n{s}"));
            assert!(
                row.contains(n) || row.contains(&format!("…{suffix}")),
                "{row}"
            );
        }
        assert!(s.contains("6.1/15.9"), "{w}x{h}: CPU REQ cut:\n{s}");
        // The taint text gives way with an ellipsis, never silently.
        if w == 80 {
            assert!(s.contains('…'), "{s}");
        } else {
            assert!(
                s.contains("workload-class/dedicated-highmem-batch=true:NoSchedule"),
                "{s}"
            );
        }
    }
}

/// The drain plan's table on screen: its rows below the column headings
/// (POD, FROM, → TO), one per displaced pod, borders dropped.
fn drain_rows(screen: &str) -> Vec<String> {
    screen
        .lines()
        .skip_while(|l| !(l.contains("POD") && l.contains("FROM") && l.contains("→ TO")))
        .skip(1)
        .map(|l| {
            // The panel is the right-hand pane when a draft is open.
            let inner = l.rsplit_once("││").map_or(l, |(_, r)| r);
            let inner = match inner.find('│') {
                Some(i) if i < 2 => &inner[i + '│'.len_utf8()..],
                _ => inner,
            };
            inner.trim_end_matches(['│', ' ']).to_string()
        })
        .take_while(|l| !l.is_empty() && !l.starts_with('└') && !l.contains("──"))
        .collect()
}

/// Checks the drain table at `w`×`h`: one row per displaced pod, in the
/// plan's order, each with its destination node whole, and its pod name
/// whole or cut in the middle keeping its distinguishing end.
fn check_drain_table(app: &kplace::app::App, w: u16, h: u16) {
    let s = common::render(app, w, h);
    let table = app
        .session()
        .and_then(|s| s.whatif.disruption.clone())
        .expect("a drain plan");
    assert!(
        table.rows.len() >= 3 && table.rows.iter().any(|r| r.node.is_some()),
        "a drain with pods to move: {table:?}"
    );
    let shown = drain_rows(&s);
    assert!(!shown.is_empty(), "{w}x{h}: no table rows:\n{s}");
    let fit = shown.len().min(table.rows.len());
    assert!(
        fit >= (h as usize / 3).min(table.rows.len()),
        "{w}x{h}: only {} rows shown:\n{s}",
        shown.len()
    );
    for (row, line) in table.rows.iter().zip(&shown) {
        match &row.node {
            Some(node) => assert!(
                line.contains(&format!("→ {node}")),
                "{w}x{h}: destination {node} not whole in {line:?}\n{s}"
            ),
            None => assert!(
                line.contains(&row.outcome),
                "{w}x{h}: outcome {} not in {line:?}",
                row.outcome
            ),
        }
        let tail = row.pod.rsplit('-').next().unwrap();
        assert!(
            line.contains(&row.pod) || (line.contains('…') && line.contains(&format!("-{tail}"))),
            "{w}x{h}: pod {} neither whole nor cut keeping its end in {line:?}",
            row.pod
        );
        if w >= 200 {
            assert!(line.contains(&row.pod), "{w}x{h}: {line:?}");
            assert!(line.contains(&row.from), "{w}x{h}: {line:?}");
        }
    }
}

/// `r` on the first general worker node in Nodes: a drain with pods to move.
fn drain_a_worker(app: &mut kplace::app::App) {
    key(app, KeyCode::Char('4'));
    key(app, KeyCode::Char('/'));
    keys(app, "worker-");
    key(app, KeyCode::Enter);
    key(app, KeyCode::Char('r'));
    assert_eq!(app.view, View::WhatIf);
}

#[test]
fn drain_plan_is_a_table_with_every_destination_readable_at_80x24_and_200x60() {
    let mut app = demo_app();
    drain_a_worker(&mut app);
    for (w, h) in [(80u16, 24u16), (200, 60)] {
        check_drain_table(&app, w, h);
    }
    // The rows scroll under headings that stay.
    key(&mut app, KeyCode::PageDown);
    let s = common::render(&app, 80, 24);
    assert!(
        s.contains("POD") && s.contains("→ TO"),
        "the headings stay when scrolled:\n{s}"
    );

    // With a draft open the plan has 60% of the width: still whole.
    let mut app = demo_app();
    key(&mut app, KeyCode::Char('5'));
    key(&mut app, KeyCode::Char('e'));
    assert_eq!(app.view, View::WhatIf);
    drain_a_worker(&mut app);
    assert!(app.session().unwrap().whatif.draft.is_some());
    for (w, h) in [(80u16, 24u16), (200, 60)] {
        check_drain_table(&app, w, h);
    }
}

#[test]
fn overview_counts_and_zone_bars_fit_at_80x24() {
    let mut app = demo_app();
    key(&mut app, KeyCode::Char('1'));
    let s = common::render(&app, 80, 24);
    let session = app.session().expect("ready");
    let c = session.counts();
    assert_eq!(c.computing, 0, "settled");
    // The Overview's panes: zones and nodes on the left 60%, pending pods
    // on the right; each read on its own, borders dropped.
    let pane = |from: usize, to: usize| {
        let cols: String = s
            .lines()
            .map(|l| l.chars().skip(from).take(to - from).collect::<String>() + "\n")
            .collect();
        words(&cols.replace(['│', '┌', '┐', '└', '┘', '─'], " ")).join(" ")
    };
    let (left, right) = (pane(0, 48), pane(48, 80));
    for phrase in [
        format!("would schedule {}", c.scheduled),
        format!("preempt {}", c.preempt),
        format!("unschedulable {}", c.unschedulable),
    ] {
        assert!(right.contains(&phrase), "{phrase:?} missing:\n{s}");
    }
    for z in &session.loaded.derived.zones {
        let heading = format!("{} ({} nodes)", z.name, z.nodes.len());
        assert!(left.contains(&heading), "{heading:?} missing:\n{s}");
        if z.cordoned > 0 {
            assert!(left.contains(&format!("{} cordoned", z.cordoned)), "{s}");
        }
        if z.tainted > 0 {
            assert!(left.contains(&format!("{} tainted", z.tainted)), "{s}");
        }
        // The zone's bars: both percentages on the row after its heading.
        let row = s
            .lines()
            .skip_while(|l| !l.contains(&z.name))
            .find(|l| l.contains("cpu ") && l.contains("mem "))
            .unwrap_or_else(|| panic!("no bars for {}:\n{s}", z.name));
        let cpu = format!("{:>3}%", z.cpu.percent());
        let mem = format!("{:>3}%", z.memory.percent());
        let after_cpu = row.split("cpu ").nth(1).unwrap();
        assert!(after_cpu.contains(&cpu), "cpu {cpu} in {row:?}");
        let after_mem = row.split("mem ").nth(1).unwrap();
        assert!(after_mem.contains(&mem), "mem {mem} in {row:?}");
    }
    // No line runs past the right border of its pane.
    for l in s.lines().skip(2).take(20) {
        assert!(l.chars().count() <= 80, "{l}");
    }
}

/// A pending pod's destination in the Overview keeps the node's host
/// label (`ip-10-0-3-44…`) when the pane is narrow, not `ip-10…internal`,
/// which every node of the cluster shares; and where the pod's name and
/// its outcome do not fit on one row, each pod takes two: its name, then
/// the outcome and node indented below it.
#[test]
fn pending_pods_destinations_keep_the_nodes_host_label() {
    let node = "ip-10-0-3-44.eu-west-1.compute.internal";
    let doc = serde_json::json!({"apiVersion": "v1", "kind": "List", "items": [
        {"apiVersion": "v1", "kind": "Node",
         "metadata": {"name": node, "labels": {"kubernetes.io/hostname": node,
             "topology.kubernetes.io/zone": "eu-west-1a"}},
         "status": {"allocatable": {"cpu": "4", "memory": "8Gi", "pods": "110"}}},
        {"apiVersion": "v1", "kind": "Pod",
         "metadata": {"name": "checkout-api-7d9f8c6b5-x2x4q", "namespace": "shop-production"},
         "spec": {"containers": [{"name": "c", "image": "nginx",
             "resources": {"requests": {"cpu": "1"}}}]},
         "status": {"phase": "Pending"}}
    ]});
    let mut app = app_of(&doc, "dns names");
    assert!(app.wait_until_idle(common::SETTLE));
    key(&mut app, KeyCode::Char('1'));
    for (w, h) in [(80u16, 24u16), (100, 30), (200, 60), (260, 60)] {
        let s = common::render(&app, w, h);
        let lines: Vec<&str> = s.lines().collect();
        let at = lines
            .iter()
            .position(|l| l.contains("x2x4q"))
            .unwrap_or_else(|| panic!("{w}x{h}: no pending row:\n{s}"));
        let (row, below) = (lines[at], lines.get(at + 1).copied().unwrap_or(""));
        let want = match w {
            // Two rows: the outcome and the node's host label below the name.
            80 | 100 => {
                let right = below.rsplit("││").next().unwrap_or(below);
                assert!(
                    right.starts_with("  scheduled → ip-10-0-3-44…"),
                    "{w}x{h}: want the outcome below the name:\n{s}"
                );
                "x2x4q".to_string()
            }
            // The pod's whole name first, then the host label.
            200 => {
                "shop-production/checkout-api-7d9f8c6b5-x2x4q scheduled → ip-10-0-3-44…".to_string()
            }
            _ => format!("shop-production/checkout-api-7d9f8c6b5-x2x4q scheduled → {node}"),
        };
        assert!(row.contains(&want), "{w}x{h}: want {want:?} in {row}");
        // The pane's hint is one of its whole forms, never cut.
        let hint = s
            .lines()
            .find(|l| l.contains("enter: "))
            .unwrap_or_else(|| panic!("{w}x{h}: no hint:\n{s}"));
        let shown = hint[hint.find("enter: ").unwrap()..]
            .split('│')
            .next()
            .unwrap()
            .trim_end();
        let whole = [
            "enter: open the selected pod's Placement",
            "enter: open its Placement",
            "enter: Placement",
        ];
        assert!(whole.contains(&shown), "{w}x{h}: the hint is cut: {hint}");
        assert!(
            !row.contains("…rnal") && !row.contains("….compute"),
            "{row}"
        );
    }
}

#[test]
fn narrow_tables_leave_out_whole_columns_rather_than_cut_every_one_to_a_stub() {
    let mut doc = serde_json::json!({"apiVersion": "v1", "kind": "List", "items": []});
    let items = doc["items"].as_array_mut().unwrap();
    let nodes = ["ip-10-32-2-166.ec2.internal", "ip-10-16-0-90.ec2.internal"];
    for n in nodes {
        items.push(serde_json::json!({
            "apiVersion": "v1", "kind": "Node",
            "metadata": {"name": n, "labels": {"kubernetes.io/hostname": n,
                "topology.kubernetes.io/zone": "us-east-1a"},
                "creationTimestamp": "2024-01-01T00:00:00Z"},
            "spec": {"taints": [{"key": "dedicated", "value": "batch", "effect": "NoSchedule"}]},
            "status": {"allocatable": {"cpu": "7900m", "memory": "29Gi", "pods": "110"},
                "conditions": [{"type": "Ready", "status": "True"}]}
        }));
    }
    for (i, node) in nodes.iter().enumerate() {
        items.push(serde_json::json!({
            "apiVersion": "v1", "kind": "Pod",
            "metadata": {"name": format!("accounts-admin-2-8fknmbxlpn-cmjf{i}"),
                "namespace": "recommendations-staging",
                "creationTimestamp": "2024-01-01T00:00:00Z",
                "ownerReferences": [{"apiVersion": "apps/v1", "kind": "ReplicaSet",
                    "name": "accounts-admin-2-8fknmbxlpn", "uid": "u", "controller": true}]},
            "spec": {"nodeName": node, "containers": [{"name": "c", "image": "nginx",
                "resources": {"requests": {"cpu": "250m", "memory": "960Mi"}}}],
                "tolerations": [{"key": "dedicated", "operator": "Exists"}]},
            "status": {"phase": "Running"}
        }));
    }
    let mut app = app_of(&doc, "ec2 names");
    // No cell of the table is a stub of four columns ending in "…".
    let stubs = |s: &str| -> Vec<String> {
        s.split(['│', ' '])
            .filter(|cell| cell.ends_with('…') && cell.chars().count() <= 5)
            .map(str::to_string)
            .collect()
    };
    key(&mut app, KeyCode::Char('4'));
    let s = common::render(&app, 80, 24);
    // At 80 columns the taints give way whole; the zone stays whole and
    // a name keeps its first DNS label (it read "ip-10-32-…ernal" and "us-…").
    assert!(!s.contains("TAINTS"), "{s}");
    for first_label in ["ip-10-32-2-166…", "ip-10-16-0-90…"] {
        assert!(s.contains(first_label), "{first_label}\n{s}");
    }
    assert_eq!(s.matches("us-east-1a").count(), 2, "{s}");
    assert!(stubs(&s).is_empty(), "{:?}\n{s}", stubs(&s));
    let s = common::render(&app, 160, 24);
    assert!(s.contains("ip-10-32-2-166.ec2.internal"), "{s}");
    assert!(s.contains("dedicated=batch:NoSchedule"), "{s}");
    // At 70 columns the zone gives way before the status, unless the
    // table is sorted by zone.
    let s = common::render(&app, 70, 24);
    assert!(!s.contains("ZONE") && s.contains("STATUS"), "{s}");
    key(&mut app, KeyCode::Char('Z'));
    let s = common::render(&app, 70, 24);
    assert!(s.contains("ZONE↑") && s.contains("us-east-1a"), "{s}");
    assert!(!s.contains("STATUS"), "{s}");

    key(&mut app, KeyCode::Char('5'));
    let s = common::render(&app, 80, 24);
    // The owner gives way whole; phase and node stay readable.
    assert!(!s.contains("OWNER"), "{s}");
    assert!(s.contains("Running") && s.contains("ip-10-16-0-90…"), "{s}");
    assert!(stubs(&s).is_empty(), "{:?}\n{s}", stubs(&s));
    let s = common::render(&app, 60, 24);
    // Narrower still, the name and the numbers stay.
    assert!(
        s.contains("NAME") && s.contains("250m") && s.contains("960Mi"),
        "{s}"
    );
    assert!(stubs(&s).is_empty(), "{:?}\n{s}", stubs(&s));
    let s = common::render(&app, 160, 24);
    assert!(
        s.contains("OWNER") && s.contains("ReplicaSet/accounts-admin-2-8fknmbxlpn"),
        "{s}"
    );
}

/// The Overview's node rows show each node's name whole when the pane
/// keeps bars beside it; when it does not, each node's host label
/// (`ip-10-0-0-100…`, which tells the nodes apart) before any bar, then the
/// percentages alone, never a name cut to `ip-10…-100` to make room for
/// bars.
#[test]
fn overview_node_rows_give_names_room_before_bars() {
    let node = |i: u32, tainted: bool| {
        let name = format!("ip-10-0-0-{i}.ec2.internal");
        let mut n = serde_json::json!({"apiVersion": "v1", "kind": "Node",
            "metadata": {"name": name, "labels": {"kubernetes.io/hostname": name,
                "topology.kubernetes.io/zone": "us-east-1a"}},
            "spec": {},
            "status": {"allocatable": {"cpu": "4", "memory": "8Gi", "pods": "110"}}});
        if tainted {
            n["spec"]["taints"] = serde_json::json!([
                {"key": "dedicated", "value": "gpu", "effect": "NoSchedule"}]);
        }
        n
    };
    let items: Vec<_> = [10, 100, 101, 102]
        .into_iter()
        .map(|i| node(i, i == 101))
        .collect();
    let app = overview_of(items, "dns names");
    let node_row = |s: &str, i: u32| -> String {
        let host = format!("ip-10-0-0-{i}");
        s.lines()
            .find(|l| l.contains(&format!("{host}.")) || l.contains(&format!("{host}…")))
            .unwrap_or_else(|| panic!("no row names {host} in full or by its host label:\n{s}"))
            .split("││")
            .next()
            .unwrap()
            .to_string()
    };
    // Wide: whole names, with bars.
    let s = common::render(&app, 160, 40);
    for i in [10, 100, 101, 102] {
        let row = node_row(&s, i);
        assert!(
            row.contains(&format!("ip-10-0-0-{i}.ec2.internal ")),
            "{row}"
        );
        assert!(row.contains('░') || row.contains('█'), "no bar: {row}");
    }
    // 80 columns: host labels whole, then the percentages and the flag.
    let s = common::render(&app, 80, 24);
    for i in [10, 100, 101, 102] {
        let row = node_row(&s, i);
        assert!(row.contains(&format!("ip-10-0-0-{i}…")), "{row}");
        assert!(
            row.contains("cpu") && row.contains("mem") && row.contains('%'),
            "{row}"
        );
    }
    assert!(node_row(&s, 101).contains("tainted"), "{s}");
}

/// Pending pods on two rows each still scroll to keep the selected pod,
/// with its outcome row, on screen.
#[test]
fn pending_pods_on_two_rows_scroll_to_the_selected_pod() {
    let mut items = vec![serde_json::json!({"apiVersion": "v1", "kind": "Node",
        "metadata": {"name": "worker-1", "labels": {"topology.kubernetes.io/zone": "z1"}},
        "status": {"allocatable": {"cpu": "1", "memory": "1Gi", "pods": "110"}}})];
    for i in 0..20 {
        items.push(serde_json::json!({"apiVersion": "v1", "kind": "Pod",
            "metadata": {"name": format!("checkout-api-7d9f8c6b5-pod{i:02}"),
                "namespace": "shop-production"},
            "spec": {"containers": [{"name": "c", "image": "nginx",
                "resources": {"requests": {"cpu": "2"}}}]},
            "status": {"phase": "Pending"}}));
    }
    let mut app = overview_of(items, "pending");
    for _ in 0..17 {
        key(&mut app, KeyCode::Down);
    }
    let s = common::render(&app, 80, 24);
    let lines: Vec<&str> = s.lines().collect();
    let at = lines
        .iter()
        .position(|l| l.contains("pod17"))
        .unwrap_or_else(|| panic!("the selected pod is off screen:\n{s}"));
    assert!(
        lines[at + 1].contains("  unschedulable"),
        "its outcome row is not below it:\n{s}"
    );
    assert!(!s.contains("pod00"), "the list did not scroll:\n{s}");
}

/// A message on the status line longer than the terminal wraps onto more
/// rows, so all of it can be read, and the line is one row again after.
#[test]
fn a_long_status_message_wraps_to_be_read_whole() {
    let mut app = demo_app();
    command(&mut app, "version 1.29");
    let s = common::render(&app, 80, 24);
    let bottom: Vec<&str> = s
        .lines()
        .rev()
        .take(4)
        .collect::<Vec<_>>()
        .into_iter()
        .rev()
        .collect();
    let text = bottom
        .iter()
        .map(|l| l.trim())
        .collect::<Vec<_>>()
        .join(" ");
    assert!(
        text.contains("kplace answers as kube-scheduler 1.30, 1.31, 1.32, 1.33 or 1.34 (write it as 1.33 or v1.33)"),
        "the message is cut:\n{s}"
    );
    // The body gave up rows to it, and takes them back once it is gone.
    key(&mut app, KeyCode::Char('j'));
    let s = common::render(&app, 80, 24);
    assert!(!s.contains("unsupported scheduler version"), "{s}");
    assert!(
        s.lines().last().is_some_and(|l| l.contains("<overview>")),
        "{s}"
    );
}

/// The Skew view's fleet list lines its columns up: whatever the
/// topology key (`zone`, `hostname`), every row's name gets the same room
/// and its mark ends in the same column.
#[test]
fn fleet_rows_line_up_whatever_their_topology_key() {
    let (_dir, app) = small_synth_skew_app();
    let s = common::render(&app, 80, 30);
    let rows: Vec<&str> = s
        .lines()
        .skip_while(|l| !l.contains("Fleet:"))
        .skip(1)
        .map(|l| l.split("││").next().unwrap_or(l))
        .take_while(|l| l.contains("at max") || l.contains("1 away"))
        .collect();
    assert!(
        rows.iter().any(|r| r.contains(" zone ")) && rows.iter().any(|r| r.contains(" hostname ")),
        "want rows of both keys to compare:\n{s}"
    );
    let column = |row: &str, needle: &str| row.find(needle).map(|at| row[..at].chars().count());
    let keys: Vec<usize> = rows
        .iter()
        .filter_map(|r| column(r, " zone ").or_else(|| column(r, " hostname ")))
        .collect();
    assert_eq!(keys.len(), rows.len(), "{s}");
    assert!(
        keys.iter().all(|&k| k == keys[0]),
        "names of unequal room {keys:?}:\n{s}"
    );
    let marks: Vec<usize> = rows
        .iter()
        .filter_map(|r| column(r, "✗ at max").or_else(|| column(r, "! 1 away")))
        .collect();
    assert!(
        marks.iter().all(|&m| m == marks[0]),
        "marks not aligned {marks:?}:\n{s}"
    );
}

/// `f` in Skew opens the whole fleet list (the pane shows only its first
/// rows): every alert of the engine's fleet on its own line, scrolled and
/// searched like Describe; esc closes it.
#[test]
fn f_opens_the_whole_fleet_list_with_every_alert() {
    let (_dir, mut app) = small_synth_skew_app();
    let alerts = app
        .session()
        .and_then(|s| s.loaded.derived.fleet())
        .map(|f| f.skew_alerts.clone())
        .expect("the fleet is built");
    assert!(
        alerts.len() > 20,
        "want more alerts than the pane shows: {}",
        alerts.len()
    );
    let pane = common::render(&app, 80, 30);
    assert!(
        pane.contains("(f: all)"),
        "the pane says how to see them all:\n{pane}"
    );
    key(&mut app, KeyCode::Char('f'));
    let kplace::app::Overlay::Inspect(i) = &app.overlay else {
        panic!("f opened no overlay");
    };
    let at = alerts.iter().filter(|a| a.at_max()).count();
    assert!(
        i.title.starts_with(&format!(
            "Fleet: {at} at maxSkew, {} one replica away",
            alerts.len() - at
        )),
        "{}",
        i.title
    );
    for a in &alerts {
        let key = a.topology_key.rsplit('/').next().unwrap();
        let want = format!(
            "{key} {}/{}  {}  (fullest {})",
            a.skew, a.max_skew, a.label, a.fullest
        );
        assert!(
            i.lines.iter().any(|l| l.text.ends_with(&want)),
            "no line for {want:?}"
        );
    }
    // The last alert, far past the pane's rows, is found by `/` and shown.
    let last = alerts.last().unwrap();
    let name = last.label.rsplit('/').next().unwrap().to_string();
    key(&mut app, KeyCode::Char('/'));
    keys(&mut app, &name);
    key(&mut app, KeyCode::Enter);
    let s = common::render(&app, 80, 30);
    assert!(s.contains(&name), "search did not scroll to {name}:\n{s}");
    key(&mut app, KeyCode::Esc);
    assert!(
        matches!(app.overlay, kplace::app::Overlay::None),
        "esc closes it"
    );
}

/// The Skew view of the small synthetic cluster (zone and hostname
/// constraints, dozens of fleet alerts); the directory holds its file.
fn small_synth_skew_app() -> (tempfile::TempDir, App) {
    let mut out = Vec::new();
    kplace::synth::write_cluster_json(&mut out, &kplace::synth::SynthSpec::small()).unwrap();
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("synth.json");
    std::fs::write(&path, out).unwrap();
    let mut app = common::snapshot_app(path);
    key(&mut app, KeyCode::Char('2'));
    assert!(app.wait_until_idle(common::SETTLE));
    (dir, app)
}

/// An app on the snapshot `doc`, loaded as a file is.
fn app_of(doc: &serde_json::Value, name: &str) -> App {
    let bytes = serde_json::to_vec(doc).unwrap();
    let (cluster, _) =
        kplace::source::file::load_snapshot_bytes(&bytes, "snap.json").expect("loads");
    App::with_cluster(cluster, name, Options::default())
}

/// The Overview of a snapshot of `items` (a `List`'s).
fn overview_of(items: Vec<serde_json::Value>, name: &str) -> App {
    let doc = serde_json::json!({"apiVersion": "v1", "kind": "List", "items": items});
    let mut app = app_of(&doc, name);
    assert!(app.wait_until_idle(common::SETTLE));
    key(&mut app, KeyCode::Char('1'));
    app
}

/// At the smallest terminal (60 columns) the Overview's node rows keep the
/// `tainted` and `cordoned` flags whole: the percentages go bare first,
/// their labels moving to the pane's title.
#[test]
fn overview_node_flags_stay_whole_at_60_columns() {
    let node = |name: &str, taint: bool, cordon: bool| {
        let mut n = serde_json::json!({"apiVersion": "v1", "kind": "Node",
            "metadata": {"name": name, "labels": {"kubernetes.io/hostname": name,
                "topology.kubernetes.io/zone": "us-east-1a"}},
            "spec": {"unschedulable": cordon},
            "status": {"allocatable": {"cpu": "4", "memory": "8Gi", "pods": "110"}}});
        if taint {
            n["spec"]["taints"] = serde_json::json!([
                {"key": "dedicated", "value": "gpu", "effect": "NoSchedule"}]);
        }
        n
    };
    let app = overview_of(
        vec![
            node("worker-a01", false, false),
            node("worker-a02", true, false),
            node("worker-a03", false, true),
        ],
        "flags",
    );
    let s = common::render(&app, 60, 15);
    let row = |name: &str| {
        s.lines()
            .find(|l| l.contains(name))
            .unwrap_or_else(|| panic!("no {name} row:\n{s}"))
            .split("││")
            .next()
            .unwrap()
            .to_string()
    };
    assert!(row("worker-a02").contains(" tainted"), "{s}");
    assert!(row("worker-a03").contains(" cordoned"), "{s}");
    assert!(row("worker-a01").contains("0%"), "{s}");
    assert!(s.contains("Nodes by zone: cpu mem"), "{s}");
    // With room, the labels stay on the rows and the title is plain.
    let s = common::render(&app, 160, 40);
    assert!(!s.contains("Nodes by zone: cpu mem"), "{s}");
    assert!(
        s.lines()
            .any(|l| l.contains("worker-a02") && l.contains("cpu") && l.contains("tainted")),
        "{s}"
    );
}

/// The mouse wheel over the fleet pane scrolls it (the keys keep moving
/// through the workloads above), so every alert can be reached in place.
#[test]
fn the_wheel_scrolls_the_fleet_pane_under_the_pointer() {
    use crossterm::event::{KeyModifiers, MouseEvent, MouseEventKind};
    let (_dir, mut app) = small_synth_skew_app();
    let alerts = app
        .session()
        .map(|s| {
            let fleet = s.loaded.derived.fleet().expect("the fleet is built");
            s.fleet_alerts(fleet)
                .iter()
                .map(|a| a.label.clone())
                .collect::<Vec<_>>()
        })
        .unwrap();
    let before = common::render(&app, 80, 30);
    let lines: Vec<&str> = before.lines().collect();
    let title = lines
        .iter()
        .position(|l| l.contains("Fleet:"))
        .unwrap_or_else(|| panic!("no fleet pane:\n{before}"));
    let first_row = lines[title + 1];
    let shown = lines[title + 1..]
        .iter()
        .take_while(|l| !l.starts_with('└'))
        .count();
    assert!(
        alerts.len() > shown,
        "{} alerts fit:\n{before}",
        alerts.len()
    );
    let selected = app.session().map(|s| s.skew_cursor.selected);
    let wheel = |kind| MouseEvent {
        kind,
        column: 5,
        row: title as u16 + 2,
        modifiers: KeyModifiers::NONE,
    };
    for _ in 0..2 {
        app.handle_mouse(wheel(MouseEventKind::ScrollDown));
    }
    let after = common::render(&app, 80, 30);
    let after_lines: Vec<&str> = after.lines().collect();
    assert_ne!(after_lines[title + 1], first_row, "not scrolled:\n{after}");
    assert_eq!(app.session().map(|s| s.skew_cursor.selected), selected);
    for _ in 0..2 {
        app.handle_mouse(wheel(MouseEventKind::ScrollUp));
    }
    let back = common::render(&app, 80, 30);
    assert_eq!(back.lines().nth(title + 1), Some(first_row), "{back}");
}

/// J and K scroll Skew's fleet pane from the keyboard, as they scroll the
/// Overview's node list, and leave the workload selection where it was.
#[test]
fn shift_j_and_k_scroll_the_fleet_pane() {
    use crossterm::event::KeyCode;
    let (_dir, mut app) = small_synth_skew_app();
    let before = common::render(&app, 120, 30);
    let lines: Vec<&str> = before.lines().collect();
    // The fleet pane's rows: the left of each line, up to the pane's edge.
    let fleet_row = |screen: &str, row: usize| -> String {
        let line = screen.lines().nth(row).unwrap_or_default();
        line.split("││").next().unwrap_or_default().to_string()
    };
    let title = lines
        .iter()
        .position(|l| l.contains("Fleet:"))
        .unwrap_or_else(|| panic!("no fleet pane:\n{before}"));
    assert!(lines[title].contains("J/K"), "{}", lines[title]);
    let first_row = fleet_row(&before, title + 1);
    let second_row = fleet_row(&before, title + 2);
    assert_ne!(first_row, second_row, "{before}");
    let selected = app.session().map(|s| s.skew_cursor.selected);
    common::key(&mut app, KeyCode::Char('J'));
    let after = common::render(&app, 120, 30);
    assert_eq!(
        fleet_row(&after, title + 1),
        second_row,
        "J scrolls by one row:\n{after}"
    );
    assert_eq!(app.session().map(|s| s.skew_cursor.selected), selected);
    common::key(&mut app, KeyCode::Char('K'));
    let back = common::render(&app, 120, 30);
    assert_eq!(fleet_row(&back, title + 1), first_row, "{back}");
}
