//! The Skew view against the engine, on every conformance case whose
//! incoming pod has spread constraints: the pod is added to the case's
//! snapshot as a pending pod, the Skew view is drawn into a `TestBackend`
//! for each of its constraints, and what a person reads there (domains,
//! matching pods, counted nodes, the global minimum, which domains would
//! violate maxSkew, on how many nodes the pod fits) must equal what
//! PodTopologySpread's PreFilter counts and what the scheduling answer says.

mod common;

use std::collections::BTreeMap;
use std::path::Path;
use std::time::Duration;

use crossterm::event::{KeyCode, KeyEvent, KeyModifiers};
use kplace::app::{App, Options, View};
use kplace::engine::plugins::podtopologyspread::common::{
    constraints_for, matches_inclusion_policies, node_has_all_keys,
};
use kplace::engine::plugins::podtopologyspread::filtering::{pre_filter, pre_filter_constraints};
use kplace::engine::{Outcome, place_existing};
use kplace::model::pod::WhenUnsatisfiable;
use kplace::source::file::{load_pod, load_snapshot};

const SETTLE: Duration = Duration::from_secs(60);

fn key(app: &mut App, code: KeyCode) {
    app.handle_key(KeyEvent::new(code, KeyModifiers::NONE));
    assert!(app.wait_until_idle(SETTLE), "the app did not settle");
}

/// One domain row of the Skew view: value → (pods, nodes, violates, fits on).
type Rows = BTreeMap<String, (i64, usize, bool, Option<usize>)>;

fn rows(screen: &str) -> Rows {
    let mut out = Rows::new();
    for line in screen.lines() {
        for segment in line.split('│') {
            let t: Vec<&str> = segment.split_whitespace().collect();
            if t.len() < 8
                || !t[1].chars().all(|c| c == '█' || c == '░')
                || t[3] != "pods"
                || t[5] != "nodes"
            {
                continue;
            }
            let violates = segment.contains("would violate");
            // "fits on N of M nodes", or "no node fits now".
            let fits = if segment.contains("no node fits now") {
                Some(0)
            } else {
                segment
                    .split("fits on ")
                    .nth(1)
                    .and_then(|r| r.split_whitespace().next())
                    .and_then(|n| n.parse().ok())
            };
            out.insert(
                t[0].to_string(),
                (t[2].parse().unwrap(), t[4].parse().unwrap(), violates, fits),
            );
        }
    }
    out
}

#[test]
fn skew_view_shows_what_pod_topology_spread_prefilter_counts() {
    let cases = common::spread_cases();
    let mut checked = 0;
    let mut constraints_checked = 0;
    let mut domains_checked = 0;
    // Every case whose pod declares spread constraints must be checked,
    // none skipped quietly.
    let declaring = cases.len();
    for (name, dir) in cases {
        let Ok((mut cluster, _)) = load_snapshot(&dir.join("snapshot.yaml.gz")) else {
            continue;
        };
        let Ok(pod) = load_pod(&dir.join("pod.yaml"), &mut cluster.interner) else {
            continue;
        };
        if pod.spread_constraints.is_empty() || pod.node_name.is_some() {
            continue;
        }
        let id = cluster.add_pod(pod);
        let mut app = App::with_cluster(cluster, &name, Options::default());
        assert!(app.wait_until_idle(SETTLE), "{name}: did not settle");
        key(&mut app, KeyCode::Char('2'));
        key(&mut app, KeyCode::Char('G'));
        assert_eq!(app.view, View::Skew);
        let s = app.session().unwrap();
        let shared = s.loaded.cluster.clone();
        let scheduler = s.scheduler.clone();
        let cluster = &*shared;
        let pod = cluster.pod(id);
        let Some(profile) = scheduler
            .profiles
            .for_scheduler(&pod.scheduler_name)
            .cloned()
        else {
            continue;
        };
        let args = &profile.args.pod_topology_spread;
        // The engine's own counts: PreFilter for DoNotSchedule, the same
        // counting over the ScheduleAnyway constraints.
        let mut expected = Vec::new();
        if let Some(pre) = pre_filter(cluster, pod, args) {
            expected.push((WhenUnsatisfiable::DoNotSchedule, pre));
        }
        let soft = constraints_for(cluster, pod, args, WhenUnsatisfiable::ScheduleAnyway);
        if !soft.is_empty() {
            expected.push((
                WhenUnsatisfiable::ScheduleAnyway,
                pre_filter_constraints(cluster, pod, soft),
            ));
        }
        let answer = place_existing(cluster, id, &scheduler);
        let feasible: Option<Vec<u32>> = matches!(
            answer.outcome,
            Outcome::Scheduled | Outcome::Unschedulable | Outcome::Preempt
        )
        .then(|| answer.feasible.clone());
        let key_name = |k| cluster.interner.resolve(k).to_string();
        let total: usize = expected.iter().map(|e| e.1.constraints.len()).sum();
        let mut index = 0;
        for (action, pre) in &expected {
            for c in &pre.constraints {
                let screen = common::render(&app, 260, 300);
                let header = format!(
                    "Skew: pending pod {} over {}",
                    cluster.pod_key(id),
                    key_name(c.topology_key)
                );
                assert!(screen.contains(&header), "{name}: want {header}\n{screen}");
                assert!(
                    screen.contains(&format!("constraint {} of {total}", index + 1)),
                    "{name}\n{screen}"
                );
                let min = pre.min_match(c);
                let min_text = min.map_or("—".to_string(), |m| m.to_string());
                assert!(
                    screen.contains(&format!("global minimum {min_text}")),
                    "{name}: want global minimum {min_text}\n{screen}"
                );
                let mut want = Rows::new();
                for (&(k, v), &count) in pre.pair_counts() {
                    if k != c.topology_key {
                        continue;
                    }
                    let in_domain: Vec<u32> = cluster
                        .nodes
                        .iter()
                        .enumerate()
                        .filter(|(_, n)| {
                            n.labels.get(k) == Some(v)
                                && node_has_all_keys(n, &pre.constraints)
                                && matches_inclusion_policies(c, pod, n, &cluster.interner)
                        })
                        .map(|(i, _)| i as u32)
                        .collect();
                    let self_match = c.selector.matches(&pod.labels) as i64;
                    let violates = *action == WhenUnsatisfiable::DoNotSchedule
                        && min.is_some_and(|m| count + self_match - m > c.max_skew as i64);
                    let fits = feasible
                        .as_ref()
                        .map(|f| in_domain.iter().filter(|n| f.contains(n)).count());
                    let value = match cluster.interner.resolve(v) {
                        "" => "\"\"".to_string(),
                        v => kplace::app::format::truncate(v, 28),
                    };
                    want.insert(value, (count, in_domain.len(), violates, fits));
                }
                let mut got = rows(&screen);
                if feasible.is_none() {
                    for r in got.values_mut() {
                        r.3 = None;
                    }
                }
                // Domains that would violate say so instead of where the
                // pod fits: compare those without the fit count.
                for (v, r) in want.iter_mut() {
                    if r.2 && got.get(v).is_some_and(|g| g.3.is_none()) {
                        r.3 = None;
                    }
                }
                assert_eq!(got, want, "{name}, constraint {index}\n{screen}");
                domains_checked += want.len();
                index += 1;
                constraints_checked += 1;
                key(&mut app, KeyCode::Char('t'));
            }
        }
        checked += 1;
    }
    eprintln!("{checked} cases, {constraints_checked} constraints, {domains_checked} domains");
    assert!(
        checked >= 60,
        "only {checked} cases with spread constraints"
    );
    assert_eq!(
        checked, declaring,
        "cases whose pod declares spread constraints were skipped"
    );
    assert!(constraints_checked >= checked);
    assert!(domains_checked >= constraints_checked);
}

/// Every conformance snapshot that loads, with its case's incoming pod
/// added (unbound) when it loads too.
fn snapshots_with_their_pods() -> impl Iterator<Item = (std::path::PathBuf, kplace::model::Cluster)>
{
    let cases = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/conformance/cases");
    std::fs::read_dir(&cases).unwrap().filter_map(|entry| {
        let dir = entry.unwrap().path();
        let (mut cluster, _) = load_snapshot(&dir.join("snapshot.yaml.gz")).ok()?;
        if let Ok(pod) = load_pod(&dir.join("pod.yaml"), &mut cluster.interner) {
            cluster.add_pod(pod);
        }
        Some((dir, cluster))
    })
}

/// The fleet list's skews (PreFilter's counts alone) equal what the per-node
/// domains the Skew view draws give, for every pod with spread constraints
/// in every conformance snapshot and every incoming pod.
#[test]
fn fleet_skews_equal_the_per_node_domains() {
    use kplace::engine::plugins::podtopologyspread::domains::{
        ConstraintSkew, own_spread_domains, own_spread_skews,
    };
    let (mut pods_checked, mut constraints_checked, mut with_skew) = (0, 0, 0);
    for (dir, cluster) in snapshots_with_their_pods() {
        let lookups = kplace::engine::node_memo::SpreadLookups::default();
        for id in 0..cluster.pods.len() as u32 {
            let pod = cluster.pod(id);
            if pod.spread_constraints.is_empty() {
                continue;
            }
            pods_checked += 1;
            for action in [
                WhenUnsatisfiable::DoNotSchedule,
                WhenUnsatisfiable::ScheduleAnyway,
            ] {
                let seen = |c: &ConstraintSkew| {
                    let key = c.constraint.topology_key;
                    (key, c.constraint.max_skew, c.skew, c.fullest)
                };
                let expected: Vec<_> = own_spread_domains(&cluster, pod, action)
                    .iter()
                    .map(|c| seen(&ConstraintSkew::from_domains(c)))
                    .collect();
                // Alone, and with the nodes' values kept from other pods.
                let got: Vec<_> = own_spread_skews(&cluster, pod, action, None)
                    .iter()
                    .map(seen)
                    .collect();
                let kept: Vec<_> = own_spread_skews(&cluster, pod, action, Some(&lookups))
                    .iter()
                    .map(seen)
                    .collect();
                assert_eq!(kept, got, "{}: pod {}", dir.display(), cluster.pod_key(id));
                assert_eq!(
                    got,
                    expected,
                    "{}: pod {}",
                    dir.display(),
                    cluster.pod_key(id)
                );
                constraints_checked += got.len();
                with_skew += got.iter().filter(|c| c.2.is_some()).count();
            }
        }
    }
    assert!(
        pods_checked > 50,
        "only {pods_checked} pods with spread constraints"
    );
    assert!(
        constraints_checked > 80 && with_skew > 80,
        "{constraints_checked} constraints, {with_skew} with a skew"
    );
    eprintln!("{pods_checked} pods, {constraints_checked} constraints ({with_skew} with a skew)");
}

/// PreFilter from lookups kept across every pod of a snapshot (the nodes'
/// numbered domains and inclusion masks, as a fleet or a disruption keeps
/// them) equals PreFilter run alone, pair for pair and in the order met,
/// for every pod with spread constraints (its own or the defaults) in
/// every conformance snapshot.
#[test]
fn pre_filter_from_kept_lookups_equals_a_fresh_one() {
    use kplace::engine::plugins::podtopologyspread::filtering::pre_filter_with;
    use kplace::engine::profile::SpreadArgs;
    let args = SpreadArgs::default();
    let (mut states, mut pairs) = (0, 0);
    for (dir, cluster) in snapshots_with_their_pods() {
        let lookups = kplace::engine::node_memo::SpreadLookups::default();
        for id in 0..cluster.pods.len() as u32 {
            let pod = cluster.pod(id);
            let fresh = pre_filter(&cluster, pod, &args);
            let kept = pre_filter_with(&cluster, pod, &args, Some(&lookups));
            let seen =
                |s: &kplace::engine::plugins::podtopologyspread::filtering::PreFilterState| {
                    let counts: Vec<_> = s.met().map(|p| (p, s.pair_counts()[&p])).collect();
                    let mut domains: Vec<_> = s.domains.iter().map(|(k, n)| (*k, *n)).collect();
                    domains.sort();
                    (
                        counts,
                        s.pair_counts().len(),
                        domains,
                        s.critical_paths.clone(),
                    )
                };
            let where_ = format!("{}: pod {}", dir.display(), cluster.pod_key(id));
            assert_eq!(fresh.is_some(), kept.is_some(), "{where_}");
            if let (Some(fresh), Some(kept)) = (fresh, kept) {
                assert_eq!(seen(&kept), seen(&fresh), "{where_}");
                states += 1;
                pairs += fresh.met().count();
            }
        }
    }
    assert!(
        states >= 40 && pairs >= 200,
        "{states} states, {pairs} pairs"
    );
}

/// Filter judging each node by its numbered domains (a PreFilter counted
/// from kept lookups, as a disruption's placements run it) gives every
/// node of every conformance snapshot the same verdict, and the same
/// reason, as Filter reading the node's labels and hashing its pair, for
/// every pod with spread constraints.
#[test]
fn spread_filter_by_numbered_domain_equals_filter_by_labels() {
    use kplace::engine::plugins::podtopologyspread::filtering::{State, pre_filter_with};
    use kplace::engine::profile::SpreadArgs;
    let args = SpreadArgs::default();
    use kplace::engine::plugins::podtopologyspread::filtering::{
        REASON_MISSING_LABEL, REASON_SKEW,
    };
    let (mut by_domain, mut passed) = (0, 0);
    let (mut skewed, mut unlabelled) = (0, 0);
    for (dir, cluster) in snapshots_with_their_pods() {
        let lookups = kplace::engine::node_memo::SpreadLookups::default();
        for id in 0..cluster.pods.len() as u32 {
            let pod = cluster.pod(id);
            let (Some(fresh), Some(kept)) = (
                pre_filter(&cluster, pod, &args),
                pre_filter_with(&cluster, pod, &args, Some(&lookups)),
            ) else {
                continue;
            };
            by_domain += usize::from(kept.judges_by_domain());
            let (fresh, kept) = (State::new(&fresh), State::new(&kept));
            for n in 0..cluster.nodes.len() as u32 {
                let node = cluster.node(n);
                let by_labels = fresh.filter(pod, node);
                assert_eq!(
                    kept.filter_node(pod, node, Some(n)),
                    by_labels,
                    "{}: pod {} on node {}",
                    dir.display(),
                    cluster.pod_key(id),
                    node.name
                );
                match by_labels {
                    Ok(()) => passed += 1,
                    Err(r) if r.reasons.iter().any(|m| *m == *REASON_SKEW) => skewed += 1,
                    Err(r) if r.reasons.iter().any(|m| *m == *REASON_MISSING_LABEL) => {
                        unlabelled += 1
                    }
                    Err(r) => panic!("spreading rejected with {r:?}"),
                }
            }
        }
    }
    // Both ways of failing are met: a skew too large, and a node without
    // the constraint's key.
    let seen = format!(
        "{by_domain} states by domain, {passed} nodes passed, {skewed} over maxSkew, \
         {unlabelled} without the key"
    );
    assert!(
        by_domain >= 40 && passed >= 100 && skewed >= 20 && unlabelled >= 5,
        "{seen}"
    );
    eprintln!("{seen}");
}
