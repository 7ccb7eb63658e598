//! The Tiers view's headroom against the engine's filters, on every
//! conformance snapshot whose case has spread constraints (#13): the view
//! is drawn into a `TestBackend`, and the free CPU it shows per zone for
//! its chosen class must be what is free on the nodes the engine's
//! NodeUnschedulable and TaintToleration filters let a plain pod of that
//! class use (the assumption the view states), computed here directly.

mod common;

use std::collections::BTreeMap;
use std::time::Duration;

use crossterm::event::{KeyCode, KeyEvent, KeyModifiers};
use kplace::app::{App, Options};
use kplace::engine::plugins::{node_unschedulable, taint_toleration};
use kplace::model::{Cluster, Pod};
use kplace::source::file::load_snapshot;

const SETTLE: Duration = Duration::from_secs(60);
const ZONE: &str = "topology.kubernetes.io/zone";
const HEADROOM: &str = "Headroom per zone for a pod at ";

/// Free CPU per zone on the nodes a pod of priority `value` with no
/// tolerations passes the engine's NodeUnschedulable and TaintToleration
/// filters on (zoned nodes only), and whether the filters kept it off a
/// node with CPU free in that zone.
fn free_cpu_for_a_plain_pod(cluster: &Cluster, value: i32) -> BTreeMap<String, (i64, bool)> {
    let mut probe = Pod::blank(cluster.empty_sym());
    probe.priority = Some(value);
    let mut free = BTreeMap::new();
    let Some(key) = cluster.interner.lookup(ZONE) else {
        return free;
    };
    for (id, node) in cluster.nodes.iter().enumerate() {
        let Some(zone) = node.labels.get(key) else {
            continue;
        };
        let usable = node_unschedulable::filter(&probe, node).is_ok()
            && taint_toleration::filter(&probe, node).is_ok();
        let slot = free
            .entry(cluster.interner.resolve(zone).to_string())
            .or_insert((0, false));
        let spare =
            (node.allocatable.milli_cpu - cluster.node_infos[id].requested.milli_cpu).max(0);
        if usable {
            slot.0 += spare;
        } else {
            slot.1 |= spare > 0;
        }
    }
    free
}

#[test]
fn tiers_headroom_is_what_the_engines_filters_leave_free() {
    let cases = common::spread_cases();
    let declaring = cases.len();
    let (mut checked, mut zones_checked) = (0, 0);
    // Zones where counting every node would show more free CPU.
    let mut zones_kept_off = 0;
    for (name, dir) in cases {
        let (cluster, _) =
            load_snapshot(&dir.join("snapshot.yaml.gz")).unwrap_or_else(|e| panic!("{name}: {e}"));
        let mut app = App::with_cluster(cluster, &name, Options::default());
        assert!(app.wait_until_idle(SETTLE), "{name}: did not settle");
        app.handle_key(KeyEvent::new(KeyCode::Char('3'), KeyModifiers::NONE));
        assert!(app.wait_until_idle(SETTLE), "{name}: did not settle");
        let s = common::render(&app, 220, 80);
        // The class the headroom is for, as the view names it.
        let at = s
            .find(HEADROOM)
            .unwrap_or_else(|| panic!("{name}: no headroom shown\n{s}"));
        let class = s[at + HEADROOM.len()..]
            .split(" (")
            .next()
            .unwrap()
            .to_string();
        let cluster = &app.session().unwrap().loaded.cluster;
        let value = cluster
            .priority_class(&class)
            .unwrap_or_else(|| panic!("{name}: no class {class:?}"))
            .value;
        for (zone, (free, kept_off)) in free_cpu_for_a_plain_pod(cluster, value) {
            let line = s
                .lines()
                .find(|l| l.contains(&format!("│{zone} ")) && l.contains(" cpu "))
                .unwrap_or_else(|| panic!("{name}: no cpu line for {zone}\n{s}"));
            let shown = format!(" free {}  ", kplace::app::format::cpu(free));
            assert!(
                line.contains(&shown),
                "{name}, {class}: {zone} want{shown}\n{line}"
            );
            zones_checked += 1;
            zones_kept_off += usize::from(kept_off);
        }
        checked += 1;
    }
    eprintln!("{checked} snapshots, {zones_checked} zones, {zones_kept_off} with a node kept off");
    assert_eq!(checked, declaring);
    // The corpus has cordoned and tainted nodes with CPU to spare: a view
    // counting them would fail here.
    assert!(zones_kept_off > 0, "no zone tells the filters apart");
    assert!(
        checked >= 60 && zones_checked >= checked,
        "{checked} / {zones_checked}"
    );
}
