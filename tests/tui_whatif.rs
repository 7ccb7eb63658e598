//! The What-if view on the built-in demo cluster, drawn into ratatui's
//! `TestBackend` and driven with key events: drafts, form edits, inline
//! errors, the in-app YAML editor, replicas and a drain.

mod common;

use common::{command, demo_app, key, keys, press};

use std::time::Duration;

use crossterm::event::{KeyCode, KeyEvent, KeyModifiers};
use kplace::app::whatif::class_choices;
use kplace::app::whatif::form::{SpreadField, Target};
use kplace::app::{App, Options, View};

const SETTLE: Duration = Duration::from_secs(60);

fn screen(app: &App) -> String {
    common::render(app, 200, 60)
}

fn whatif(app: &App) -> &kplace::app::whatif::WhatIf {
    &app.session().expect("ready").whatif
}

/// Opens a draft of a pod found with the Pods filter.
fn draft_of(app: &mut App, search: &str) {
    key(app, KeyCode::Char('5'));
    keys(app, &format!("/{search}"));
    key(app, KeyCode::Enter);
    key(app, KeyCode::Char('e'));
    assert_eq!(app.view, View::WhatIf);
}

/// Moves the form cursor to the row editing `target`.
fn select(app: &mut App, target: &Target) {
    for _ in 0..200 {
        let w = whatif(app);
        if w.rows.get(w.cursor).map(|r| &r.target) == Some(target) {
            return;
        }
        let above = w
            .rows
            .iter()
            .position(|r| &r.target == target)
            .expect("row")
            < w.cursor;
        key(app, if above { KeyCode::Up } else { KeyCode::Down });
    }
    panic!("no form row for {target:?}");
}

/// Replaces a text field's value.
fn type_into(app: &mut App, target: &Target, text: &str) {
    select(app, target);
    key(app, KeyCode::Enter);
    for _ in 0..40 {
        key(app, KeyCode::Backspace);
    }
    keys(app, text);
    key(app, KeyCode::Enter);
}

fn choose_class(app: &mut App, name: &str) {
    select(app, &Target::PriorityClass);
    key(app, KeyCode::Enter);
    let classes = class_choices(app.session().expect("ready").cluster());
    let want = classes.iter().position(|c| c.0 == name).expect("class");
    for _ in 0..=classes.len() {
        if whatif(app).chooser == Some(want) {
            break;
        }
        key(app, KeyCode::Down);
    }
    key(app, KeyCode::Enter);
}

#[test]
fn priority_class_change_turns_preemption_off_and_says_what_changed() {
    let mut app = demo_app();
    draft_of(&mut app, "ledger-migrate");
    let s = screen(&app);
    assert!(
        s.contains("Draft payments/ledger-migrate-x7k2p (valid)"),
        "{s}"
    );
    assert!(s.contains("PREEMPT → worker-b03"), "{s}");
    assert!(s.contains("Victims on worker-b03"), "{s}");
    assert!(s.contains("scheduling-relevant fields"), "{s}");

    choose_class(&mut app, "best-effort");
    let s = screen(&app);
    assert!(s.contains("best-effort"), "{s}");
    assert!(!s.contains("PREEMPT → worker-b03"), "{s}");
    assert!(s.contains("Changed since the previous answer:"), "{s}");
    assert!(s.contains("outcome PREEMPT → "), "{s}");
    assert!(s.contains("victims removed ("), "{s}");
    // The form rewrote the YAML.
    let d = whatif(&app).draft.as_ref().expect("draft");
    assert!(
        d.yaml.contains("priorityClassName: best-effort"),
        "{}",
        d.yaml
    );
}

#[test]
fn invalid_cpu_shows_the_reason_inline_and_keeps_the_answer_stale() {
    let mut app = demo_app();
    draft_of(&mut app, "ledger-migrate");
    type_into(&mut app, &Target::Request("cpu"), "lots");
    let s = screen(&app);
    let error = s
        .lines()
        .find(|l| l.contains("✗"))
        .unwrap_or_else(|| panic!("no inline error:\n{s}"));
    assert!(
        error.contains("spec.containers[0].resources.requests.cpu"),
        "{error}"
    );
    assert!(error.contains("quantities must match"), "{error}");
    assert!(
        s.contains("Draft payments/ledger-migrate-x7k2p (INVALID)"),
        "{s}"
    );
    assert!(s.contains("STALE: the draft is invalid"), "{s}");
    assert!(
        s.contains("PREEMPT → worker-b03"),
        "the last answer stays:\n{s}"
    );

    // Fixing it clears the error and the staleness.
    type_into(&mut app, &Target::Request("cpu"), "100m");
    let s = screen(&app);
    assert!(!s.contains("STALE"), "{s}");
    assert!(!s.contains("✗"), "{s}");
}

#[test]
fn max_skew_zero_gets_the_api_servers_error() {
    let mut app = demo_app();
    command(&mut app, "draft new");
    assert_eq!(app.view, View::WhatIf);
    select(&mut app, &Target::AddSpread);
    key(&mut app, KeyCode::Enter);
    let s = screen(&app);
    assert!(s.contains("topology.kubernetes.io/zone"), "{s}");
    type_into(&mut app, &Target::Spread(0, SpreadField::MaxSkew), "0");
    let s = screen(&app);
    let error = whatif(&app).draft.as_ref().and_then(|d| d.error.clone());
    assert_eq!(
        error.as_deref(),
        Some(
            "spec.topologySpreadConstraints[0].maxSkew: Invalid value: 0: must be greater than zero"
        )
    );
    // Shown inline (wrapped to the form's width).
    assert!(
        s.contains("✗ spec.topologySpreadConstraints[0].maxSkew: Invalid value: 0"),
        "{s}"
    );
    assert!(s.contains("greater than zero"), "{s}");
    assert!(s.contains("STALE"), "{s}");
}

#[test]
fn yaml_editor_change_updates_the_answer() {
    let mut app = demo_app();
    draft_of(&mut app, "ledger-migrate");
    assert!(screen(&app).contains("PREEMPT → worker-b03"));
    key(&mut app, KeyCode::Char('y'));
    let (row, len) = {
        let ed = whatif(&app).editor.as_ref().expect("editor open");
        let row = ed
            .lines
            .iter()
            .position(|l| l.contains("cpu:"))
            .expect("cpu line");
        (row, ed.lines[row].trim_start().len() - "cpu: ".len())
    };
    assert!(screen(&app).contains("YAML editor"));
    for _ in 0..row {
        key(&mut app, KeyCode::Down);
    }
    key(&mut app, KeyCode::End);
    for _ in 0..len {
        key(&mut app, KeyCode::Backspace);
    }
    keys(&mut app, "10m");
    press(&mut app, KeyCode::Char('s'), KeyModifiers::CONTROL);
    assert!(whatif(&app).editor.is_none(), "ctrl-s closes the editor");
    let s = screen(&app);
    assert!(s.contains("10m"), "{s}");
    assert!(s.contains("SCHEDULED → "), "a tiny request fits:\n{s}");
    assert!(s.contains("outcome PREEMPT → SCHEDULED"), "{s}");
}

#[test]
fn replicas_show_each_landing_and_domain_counts() {
    let mut app = demo_app();
    draft_of(&mut app, "cart-7c9f8d6b5-new01");
    // A zone spread constraint (maxSkew 1) so the counts per domain show.
    select(&mut app, &Target::AddSpread);
    key(&mut app, KeyCode::Enter);
    key(&mut app, KeyCode::Char('r'));
    assert_eq!(whatif(&app).replicas_n, 5);
    key(&mut app, KeyCode::Char('-'));
    key(&mut app, KeyCode::Char('-'));
    let s = screen(&app);
    assert!(s.contains("Replicas: 3"), "{s}");
    assert!(
        s.contains("3 replica(s) of shop/cart-7c9f8d6b5-new01 asked"),
        "{s}"
    );
    // The first replica is the draft; the others are named as the
    // ReplicaSet names its pods: `<rs>-<5 characters>`, each its own.
    assert!(
        s.lines().any(|l| l.contains("  1  cart-7c9f8d6b5-new01 ")),
        "row 1:\n{s}"
    );
    let mut names = std::collections::BTreeSet::new();
    for n in 2..=3 {
        let row = s
            .lines()
            .find(|l| l.contains(&format!("  {n}  cart-7c9f8d6b5-")))
            .unwrap_or_else(|| panic!("row {n}:\n{s}"));
        let name = row
            .split_whitespace()
            .find(|w| w.starts_with("cart-7c9f8d6b5-"))
            .unwrap();
        let suffix = &name["cart-7c9f8d6b5-".len()..];
        assert_eq!(suffix.len(), 5, "{row}");
        assert!(
            suffix
                .bytes()
                .all(|b| b"bcdfghjklmnpqrstvwxz2456789".contains(&b)),
            "{row}"
        );
        assert!(suffix != "new01" && names.insert(name.to_string()), "{row}");
    }
    assert!(
        !s.lines().any(|l| l.contains("  4  cart-7c9f8d6b5-")),
        "{s}"
    );
    assert!(
        s.contains("constraint [0] topology.kubernetes.io/zone maxSkew 1"),
        "{s}"
    );
    let after3 = s
        .lines()
        .find(|l| l.contains("after #3: "))
        .unwrap_or_else(|| panic!("no counts after #3:\n{s}"));
    for zone in ["eu-west-1a=", "eu-west-1b=", "eu-west-1c="] {
        assert!(after3.contains(zone), "{after3}");
    }
    assert!(after3.contains("/ maxSkew 1"), "{after3}");
}

#[test]
fn draining_a_node_lists_the_displaced_pods() {
    let mut app = demo_app();
    key(&mut app, KeyCode::Char('4'));
    key(&mut app, KeyCode::Char('r'));
    assert_eq!(app.view, View::WhatIf);
    let s = screen(&app);
    assert!(s.contains("Drain "), "{s}");
    assert!(s.contains("Displaced pods, in queue order"), "{s}");
    assert!(s.contains("displaced pod(s)"), "{s}");

    command(&mut app, "lose eu-west-1c");
    let s = screen(&app);
    assert!(s.contains("Lose zone eu-west-1c: 6 node(s)"), "{s}");
}

#[test]
fn help_and_palette_list_the_what_if_keys() {
    let mut app = demo_app();
    key(&mut app, KeyCode::Char('?'));
    let s = screen(&app);
    assert!(s.contains("What-if (7)"), "{s}");
    assert!(s.contains("draft the selected pod"), "{s}");
    key(&mut app, KeyCode::Esc);
    key(&mut app, KeyCode::Char(':'));
    keys(&mut app, "cordon");
    let s = screen(&app);
    assert!(s.contains("cordon eu-west-1a"), "{s}");
    assert!(s.lines().next().is_some());
    let tabs = screen(&app);
    assert!(tabs.contains("7 What-if"), "{tabs}");
}

#[test]
fn save_and_load_round_trip() {
    let mut app = demo_app();
    draft_of(&mut app, "ledger-migrate");
    let dir = tempfile::tempdir().expect("tempdir");
    let path = dir.path().join("d.yaml");
    command(&mut app, &format!("save {}", path.display()));
    let text = std::fs::read_to_string(&path).expect("saved");
    assert!(text.contains("name: ledger-migrate-x7k2p"), "{text}");
    command(&mut app, "draft new");
    assert!(!screen(&app).contains("PREEMPT"));
    command(&mut app, &format!("load {}", path.display()));
    let s = screen(&app);
    assert!(s.contains("draft loaded from"), "{s}");
    assert!(s.contains("PREEMPT → worker-b03"), "{s}");
}

/// `:save PATH` never overwrites: the status line says the file exists and
/// names `:save! PATH`, which replaces it.
#[test]
fn save_refuses_an_existing_file_and_save_bang_overwrites() {
    let mut app = demo_app();
    draft_of(&mut app, "ledger-migrate");
    let dir = tempfile::tempdir().expect("tempdir");
    let path = dir.path().join("mine.yaml");
    std::fs::write(&path, "precious: true\n").unwrap();
    let command = |app: &mut App, text: &str| {
        key(app, KeyCode::Char(':'));
        keys(app, text);
        key(app, KeyCode::Enter);
        app.status.clone().expect("a status message")
    };
    let status = command(&mut app, &format!("save {}", path.display()));
    assert!(status.is_error, "{}", status.text);
    assert!(
        status.text.contains(&format!(
            "{} already exists; not overwritten",
            path.display()
        )),
        "{}",
        status.text
    );
    assert!(
        status.text.contains(&format!(":save! {}", path.display())),
        "{}",
        status.text
    );
    assert_eq!(std::fs::read_to_string(&path).unwrap(), "precious: true\n");

    let status = command(&mut app, &format!("save! {}", path.display()));
    assert!(!status.is_error, "{}", status.text);
    let text = std::fs::read_to_string(&path).unwrap();
    assert!(text.contains("name: ledger-migrate-x7k2p"), "{text}");
}

#[test]
fn a_statefulset_draft_is_its_next_replica_with_the_claim_its_template_creates() {
    let dir = tempfile::tempdir().unwrap();
    let snapshot = dir.path().join("sts.json");
    std::fs::write(&snapshot, common::stateful_snapshot().to_string()).unwrap();
    let mut app = common::snapshot_app(snapshot);
    command(&mut app, "skew");
    assert_eq!(app.view, View::Skew);
    key(&mut app, KeyCode::Char('e'));
    assert_eq!(app.view, View::WhatIf);
    let w = whatif(&app);
    let d = w.draft.as_ref().expect("a draft");
    assert_eq!(d.name(), "db-2");
    assert!(d.yaml.contains("claimName: data-db-2"), "{}", d.yaml);
    assert!(!d.yaml.contains("data-db-0"), "{}", d.yaml);
    let s = screen(&app);
    // Zone c is outside the class's allowedTopologies.
    assert!(
        s.contains("node(s) didn't find available persistent volumes to bind"),
        "{s}"
    );
    assert!(s.contains("would create: data-db-2 (class"), "{s}");

    // Two more replicas: db-2 and db-3, each with its own new claim.
    key(&mut app, KeyCode::Char('r'));
    key(&mut app, KeyCode::Char('-'));
    key(&mut app, KeyCode::Char('-'));
    key(&mut app, KeyCode::Char('-'));
    let s = screen(&app);
    assert!(s.contains("Replicas: 2"), "{s}");
    for name in ["db-2", "db-3"] {
        assert!(
            s.lines().any(|l| l.contains(&format!("  {name} "))),
            "{name}:\n{s}"
        );
    }
    assert!(
        !s.contains("node-zone-c "),
        "no replica lands in zone c:\n{s}"
    );
}

/// dra-020's snapshot with its incoming pod pending in it, as JSON.
fn dra_snapshot(dir: &std::path::Path) -> std::path::PathBuf {
    use std::io::Read;
    let case =
        std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/conformance/cases/dra-020");
    let mut text = String::new();
    flate2::read::GzDecoder::new(std::fs::File::open(case.join("snapshot.yaml.gz")).unwrap())
        .read_to_string(&mut text)
        .unwrap();
    let mut list: serde_json::Value = serde_saphyr::from_str(&text).unwrap();
    let pod: serde_json::Value =
        serde_saphyr::from_str(&std::fs::read_to_string(case.join("pod.yaml")).unwrap()).unwrap();
    list["items"].as_array_mut().unwrap().push(pod);
    let path = dir.join("dra.json");
    std::fs::write(&path, list.to_string()).unwrap();
    path
}

#[test]
fn a_draft_edits_its_device_claim_and_the_answer_follows() {
    use kplace::app::whatif::claims::ClaimField;
    let dir = tempfile::tempdir().unwrap();
    let mut app = App::new(Options {
        snapshot: Some(dra_snapshot(dir.path())),
        pod: Some("ml/infer-ctxzjt5gj-w88mx".into()),
        scheduler_version: Some(kplace::engine::Version::V1_34),
        ..Default::default()
    });
    assert!(app.wait_until_idle(SETTLE), "snapshot did not load");
    assert_eq!(app.view, View::Placement);
    key(&mut app, KeyCode::Char('e'));
    assert_eq!(app.view, View::WhatIf);
    let d = whatif(&app).draft.as_ref().expect("a draft");
    // The pod's unallocated claim is copied into the draft, after `---`.
    assert!(
        d.yaml
            .contains("---\napiVersion: resource.k8s.io/v1\nkind: ResourceClaim"),
        "{}",
        d.yaml
    );
    let s = screen(&app);
    assert!(s.contains("Device claims (DRA)"), "{s}");
    assert!(s.contains("[0] claim infer-gpu-x4xpm"), "{s}");
    assert!(s.contains("UNSCHEDULABLE"), "{s}");
    assert!(s.contains("wants 9): 4 free of 4 matching"), "{s}");

    // Four GPUs instead of nine: worker-d-1 has four free.
    type_into(&mut app, &Target::Claim(0, ClaimField::Count), "4");
    let s = screen(&app);
    assert!(s.contains("SCHEDULED"), "{s}");
    assert!(s.contains("worker-d-1"), "{s}");
    assert!(
        s.contains("ml/infer-gpu-x4xpm gpu → gpu.example.com/worker-d-1/gpu-"),
        "{s}"
    );

    // A selector no device passes: nothing matches anywhere.
    type_into(
        &mut app,
        &Target::Claim(0, ClaimField::Selector),
        r#"device.attributes["gpu.example.com"].model == "h100""#,
    );
    let s = screen(&app);
    assert!(s.contains("UNSCHEDULABLE"), "{s}");
    assert!(s.contains("cannot allocate all claims"), "{s}");

    // Removing the claim: the pod no longer asks for devices.
    select(&mut app, &Target::Claim(0, ClaimField::DeviceClass));
    key(&mut app, KeyCode::Char('x'));
    let d = whatif(&app).draft.as_ref().expect("a draft");
    assert!(d.claims.is_empty());
    assert!(!d.yaml.contains("resourceClaims"), "{}", d.yaml);
    assert!(screen(&app).contains("SCHEDULED"));

    // And adding one back by class name.
    select(&mut app, &Target::AddClaim);
    key(&mut app, KeyCode::Enter);
    keys(&mut app, "gpu.example.com");
    key(&mut app, KeyCode::Enter);
    let d = whatif(&app).draft.as_ref().expect("a draft");
    assert_eq!(d.claims.len(), 1);
    assert!(
        d.yaml.contains("deviceClassName: gpu.example.com"),
        "{}",
        d.yaml
    );
    let s = screen(&app);
    assert!(s.contains("SCHEDULED"), "{s}");
    assert!(s.contains("infer-ctxzjt5gj-w88mx-devices"), "{s}");
}

#[test]
fn the_demo_fine_tuning_job_schedules_when_its_claim_asks_for_one_gpu() {
    use kplace::app::whatif::claims::ClaimField;
    let mut app = demo_app();
    draft_of(&mut app, "finetune-llm");
    let d = whatif(&app).draft.as_ref().expect("a draft");
    // The claim from the template becomes the draft's own, unallocated.
    assert_eq!(d.claims.len(), 1, "{}", d.yaml);
    assert!(
        d.yaml.contains("name: finetune-llm-7wq4z-gpu\n"),
        "{}",
        d.yaml
    );
    assert!(d.yaml.contains("count: 2"), "{}", d.yaml);
    assert!(screen(&app).contains("UNSCHEDULABLE"));
    type_into(&mut app, &Target::Claim(0, ClaimField::Count), "1");
    let s = screen(&app);
    assert!(s.contains("SCHEDULED"), "{s}");
    assert!(s.contains("gpu.nvidia.com/gpu-b0"), "{s}");
}

#[test]
fn an_unedited_draft_of_a_bound_pod_answers_like_its_placement() {
    use kplace::engine::{Scheduler, place_existing};
    let mut app = demo_app();
    let cluster = kplace::app::demo::load_demo().unwrap();
    // Every bound frontend replica: the draft, untouched, is the pod
    // rescheduled, exactly as its Placement answers.
    let id = cluster
        .find_pod("shop", "frontend-6b8f7c5d4-2lh2t")
        .expect("demo pod");
    assert!(cluster.pod(id).node.is_some(), "a bound pod");
    let placement = place_existing(&cluster, id, &Scheduler::default());
    let node = cluster
        .node(placement.node.expect("placed"))
        .name
        .to_string();
    draft_of(&mut app, "frontend-6b8f7c5d4-2lh2t");
    let s = screen(&app);
    assert!(
        s.contains("Answering as: shop/frontend-6b8f7c5d4-2lh2t rescheduled: taken off"),
        "{s}"
    );
    // The line wraps in the draft's pane: its way back (`c`) and the key
    // hint's last words are on screen, not cut at the pane's edge.
    assert!(s.contains("copy)"), "{s}");
    assert!(s.contains("w save"), "{s}");
    let want = format!(
        "SCHEDULED → {node} ({} feasible node(s)",
        placement.feasible.len()
    );
    assert!(s.contains(&want), "{want} not in\n{s}");
    assert!(
        s.contains("this is where it would go if it were rescheduled now"),
        "{s}"
    );

    // `c`: one more copy, with the original still counted.
    key(&mut app, KeyCode::Char('c'));
    let s = screen(&app);
    assert!(
        s.contains("Answering as: one more copy of shop/frontend-6b8f7c5d4-2lh2t"),
        "{s}"
    );
    assert!(!s.contains(&want), "a copy is answered differently:\n{s}");
    // And back.
    key(&mut app, KeyCode::Char('c'));
    assert!(screen(&app).contains(&want));
}

#[test]
fn an_unedited_draft_of_a_pod_holding_devices_frees_them_as_its_placement_does() {
    use kplace::engine::{Scheduler, place_existing};
    let cluster = kplace::app::demo::load_demo().unwrap();
    let id = cluster
        .pods
        .iter()
        .position(|p| p.name.starts_with("embed-") && p.node_name.as_deref() == Some("gpu-b01"))
        .expect("an inference pod on gpu-b01") as kplace::model::PodId;
    let name = cluster.pod(id).name.to_string();
    let placement = place_existing(&cluster, id, &Scheduler::default());
    // Its claim is made anew, so both DRA nodes have a GPU for it.
    assert_eq!(placement.feasible.len(), 2, "{}", placement.message);
    let node = cluster.node(placement.node.unwrap()).name.to_string();
    let mut app = demo_app();
    draft_of(&mut app, &name);
    let s = screen(&app);
    let want = format!("SCHEDULED → {node} (2 feasible node(s)");
    assert!(s.contains(&want), "{want} not in\n{s}");
    assert!(s.contains("their devices are free again"), "{s}");
}

#[test]
fn losing_a_zone_names_the_victims_and_places_them_in_turn() {
    use kplace::engine::Scheduler;
    use kplace::engine::disruption::{Disruption, simulate};
    let cluster = kplace::app::demo::load_demo().unwrap();
    let plan = simulate(
        &cluster,
        &Disruption::LoseZone("eu-west-1a".into()),
        &Scheduler::default(),
    );
    // Some displaced pod preempts, and each of its victims is queued.
    let preempting = plan
        .displaced
        .iter()
        .find(|d| d.landing.as_ref().is_some_and(|l| !l.victims.is_empty()))
        .expect("a preemption in zone b or c");
    let landing = preempting.landing.as_ref().unwrap();
    for victim in &landing.victims {
        let entry = plan
            .displaced
            .iter()
            .find(|d| &d.pod == victim)
            .unwrap_or_else(|| panic!("victim {victim} is not queued"));
        assert_eq!(entry.evicted_by.as_deref(), Some(preempting.pod.as_str()));
        assert_eq!(Some(entry.from_node.as_str()), landing.node.as_deref());
    }
    let mut app = demo_app();
    command(&mut app, "lose eu-west-1a");
    // The heading counts how the displaced pods end, as the engine does.
    let t = plan.tally();
    assert!(t.preempting > 0 && t.victims > 0 && t.evicted_on_the_way > 0);
    assert_eq!(t.landed + t.not_placed + t.not_recreated, t.displaced);
    let heading = format!(
        "{} displaced pod(s) ({} evicted on the way): {} re-placed ({} by preempting {} pod(s))",
        t.displaced, t.evicted_on_the_way, t.landed, t.preempting, t.victims
    );
    let s = screen(&app);
    assert!(s.contains(&heading), "{heading:?} not in\n{s}");
    // The victim's own row of the drain table says who evicted it.
    let victim = &landing.victims[0];
    let evicted = format!("evicted for {}", preempting.pod);
    let row = |s: &str| {
        s.lines()
            .find(|l| l.contains(victim.as_str()) && l.contains(&evicted))
            .map(str::to_string)
    };
    for _ in 0..200 {
        if row(&screen(&app)).is_some() {
            break;
        }
        key(&mut app, KeyCode::PageDown);
    }
    let s = screen(&app);
    assert!(
        row(&s).is_some(),
        "no row for {victim} with {evicted:?}:\n{s}"
    );
}

/// A workload manifest of `kind` named `web` in namespace shop.
fn workload_manifest(kind: &str) -> String {
    let (api, count, extra) = match kind {
        "Job" => (
            "batch/v1",
            "  parallelism: 2\n",
            "      restartPolicy: Never\n",
        ),
        "DaemonSet" => ("apps/v1", "", ""),
        _ => ("apps/v1", "  replicas: 3\n", ""),
    };
    let selector = if kind == "Job" {
        ""
    } else {
        "  selector: {matchLabels: {app: wi-web}}\n"
    };
    let template = format!(
        "  template:\n    metadata: {{labels: {{app: wi-web}}}}\n    spec:\n{extra}      containers:\n      - {{name: web, image: nginx, resources: {{requests: {{cpu: 100m, memory: 64Mi}}}}}}\n"
    );
    if kind == "CronJob" {
        let t: String = format!("  parallelism: 2\n{template}")
            .replace(
                "      containers",
                "      restartPolicy: Never\n      containers",
            )
            .lines()
            .map(|l| format!("    {l}\n"))
            .collect();
        return format!(
            "apiVersion: batch/v1\nkind: CronJob\nmetadata: {{name: web, namespace: shop}}\nspec:\n  schedule: \"0 * * * *\"\n  jobTemplate:\n    spec:\n{t}"
        );
    }
    format!(
        "apiVersion: {api}\nkind: {kind}\nmetadata: {{name: web, namespace: shop}}\nspec:\n{count}{selector}{template}"
    )
}

fn load(app: &mut App, arg: &str) {
    key(app, KeyCode::Char(':'));
    keys(app, &format!("load {arg}"));
    key(app, KeyCode::Enter);
}

#[test]
fn load_takes_every_workload_kind_as_its_controllers_pod() {
    let mut app = demo_app();
    key(&mut app, KeyCode::Char('7'));
    let dir = tempfile::tempdir().expect("tempdir");
    for (kind, name_prefix, said) in [
        (
            "Deployment",
            "web-",
            "Deployment shop/web's pod (3 replica(s)",
        ),
        (
            "ReplicaSet",
            "web-",
            "ReplicaSet shop/web's pod (3 replica(s)",
        ),
        (
            "StatefulSet",
            "web-0",
            "StatefulSet shop/web's pod (3 replica(s)",
        ),
        (
            "DaemonSet",
            "web-",
            "DaemonSet shop/web's pod (one pod per eligible node, r places them)",
        ),
        ("Job", "web-", "Job shop/web's pod (2 replica(s)"),
        ("CronJob", "web-", "CronJob shop/web's pod (2 replica(s)"),
    ] {
        let path = dir.path().join(format!("{kind}.yaml"));
        std::fs::write(&path, workload_manifest(kind)).unwrap();
        load(&mut app, &path.display().to_string());
        let s = screen(&app);
        assert!(s.contains(said), "{kind}: {s}");
        let d = whatif(&app).draft.as_ref().expect("a draft");
        assert!(d.valid, "{kind}: {:?}", d.error);
        assert!(
            d.key().starts_with(&format!("shop/{name_prefix}")),
            "{kind}: {}",
            d.key()
        );
        assert_eq!(d.workload.as_ref().unwrap().kind, kind);
        assert!(s.contains("SCHEDULED"), "{kind}: {s}");
    }
}

#[test]
fn load_picks_the_workload_of_a_helm_output_and_a_bad_file_keeps_the_draft() {
    let mut app = demo_app();
    draft_of(&mut app, "ledger-migrate");
    let before = whatif(&app).draft.as_ref().unwrap().key();
    let dir = tempfile::tempdir().expect("tempdir");
    // A file that parses but holds an invalid pod: the draft stays.
    let bad = dir.path().join("bad.yaml");
    std::fs::write(
        &bad,
        workload_manifest("Deployment").replace("cpu: 100m", "cpu: -1"),
    )
    .unwrap();
    load(&mut app, &bad.display().to_string());
    let s = screen(&app);
    assert!(s.contains("the draft is unchanged"), "{s}");
    assert!(!s.contains("loaded from"), "{s}");
    let d = whatif(&app).draft.as_ref().unwrap();
    assert_eq!(d.key(), before);
    assert!(d.valid, "the previous draft is still valid");
    assert!(s.contains("PREEMPT → worker-b03"), "{s}");
    // helm template output: a Service, a ConfigMap and two workloads.
    let helm = dir.path().join("helm.yaml");
    let db = workload_manifest("StatefulSet").replace("name: web,", "name: db,");
    std::fs::write(
        &helm,
        format!(
            "---\n# Source: web/templates/service.yaml\napiVersion: v1\nkind: Service\nmetadata: {{name: web, namespace: shop}}\nspec: {{selector: {{app: wi-web}}}}\n---\napiVersion: v1\nkind: ConfigMap\nmetadata: {{name: web, namespace: shop}}\n---\n{}---\n{db}",
            workload_manifest("Deployment")
        ),
    )
    .unwrap();
    load(&mut app, &helm.display().to_string());
    let s = screen(&app);
    assert!(
        s.contains("Deployment/web (shop), StatefulSet/db (shop)"),
        "the candidates are named: {s}"
    );
    assert_eq!(whatif(&app).draft.as_ref().unwrap().key(), before);
    load(&mut app, &format!("{} sts/db", helm.display()));
    let s = screen(&app);
    assert!(s.contains("StatefulSet shop/db's pod"), "{s}");
    let d = whatif(&app).draft.as_ref().unwrap();
    assert_eq!(d.key(), "shop/db-0");
    assert!(s.contains("SCHEDULED"), "{s}");
}

#[test]
fn a_loaded_daemonset_places_one_pinned_pod_per_eligible_node() {
    let mut app = demo_app();
    key(&mut app, KeyCode::Char('7'));
    let dir = tempfile::tempdir().expect("tempdir");
    let path = dir.path().join("ds.yaml");
    std::fs::write(&path, workload_manifest("DaemonSet")).unwrap();
    load(&mut app, &path.display().to_string());
    key(&mut app, KeyCode::Char('r'));
    let s = screen(&app);
    let nodes = kplace::app::demo::load_demo().unwrap().nodes.len();
    let heading = s
        .lines()
        .find(|l| l.contains("DaemonSet pods of shop/web-"))
        .unwrap_or_else(|| panic!("no DaemonSet heading:\n{s}"));
    assert!(heading.contains(&format!(" of {nodes} nodes")), "{heading}");
    assert!(s.contains("PINNED TO"), "{s}");
    // Every row is a pod named as the controller names it, `web-<5>`,
    // each pinned to another node.
    let rows: Vec<&str> = s
        .lines()
        .filter(|l| l.contains(" web-") && !l.contains("DaemonSet pods"))
        .collect();
    assert!(rows.len() >= 2, "{s}");
    let mut pinned = std::collections::BTreeSet::new();
    for r in &rows {
        let words: Vec<&str> = r.split_whitespace().collect();
        let i = words.iter().position(|w| w.starts_with("web-")).unwrap();
        let suffix = &words[i]["web-".len()..];
        assert_eq!(suffix.len(), 5, "{r}");
        assert!(
            suffix
                .bytes()
                .all(|b| b"bcdfghjklmnpqrstvwxz2456789".contains(&b)),
            "{r}"
        );
        assert!(
            pinned.insert(words[i + 2].to_string()),
            "one pod per node: {r}"
        );
    }
}

/// The zone label value of a demo node.
fn zone_of(cluster: &kplace::model::Cluster, node: &str) -> String {
    use kplace::engine::disruption::ZONE_LABEL;
    let key = cluster.interner.lookup(ZONE_LABEL).expect("zone label");
    let id = cluster.node_id(node).expect("node");
    let value = cluster.node(id).labels.get(key).expect("zoned node");
    cluster.interner.resolve(value).to_string()
}

#[test]
fn a_stacked_scenario_answers_the_draft_on_what_it_leaves_against_the_unchanged_cluster() {
    use kplace::engine::{Scheduler, place_existing};
    let cluster = kplace::app::demo::load_demo().unwrap();
    let id = cluster
        .find_pod("shop", "frontend-6b8f7c5d4-2lh2t")
        .expect("demo pod");
    let placement = place_existing(&cluster, id, &Scheduler::default());
    let node = cluster
        .node(placement.node.expect("placed"))
        .name
        .to_string();
    let zone = zone_of(&cluster, &node);
    // A node of another zone to drain as the second step.
    let other = cluster
        .nodes
        .iter()
        .map(|n| n.name.to_string())
        .find(|n| n.starts_with("worker-") && zone_of(&cluster, n) != zone)
        .expect("a worker in another zone");

    let mut app = demo_app();
    draft_of(&mut app, "frontend-6b8f7c5d4-2lh2t");
    command(&mut app, &format!("cordon {zone}"));
    command(&mut app, &format!("then drain {other}"));
    assert_eq!(whatif(&app).scenario.len(), 2);
    let s = screen(&app);
    assert!(s.contains("Scenario of 2 steps"), "{s}");
    assert!(s.contains(&format!("1. Cordon zone {zone}: ")), "{s}");
    assert!(
        s.contains("nothing moves: these nodes only stop taking new pods"),
        "{s}"
    );
    assert!(s.contains(&format!("2. Drain {other}: 1 node(s)")), "{s}");

    // The draft is answered on the cluster the scenario leaves: its zone
    // is cordoned, so it goes elsewhere, and the answer says what changed
    // against the unchanged cluster.
    key(&mut app, KeyCode::Char('a'));
    let s = screen(&app);
    assert!(
        s.contains(&format!(
            "Against the unchanged cluster (scenario: Cordon zone {zone}, then Drain {other}):"
        )),
        "{s}"
    );
    assert!(s.contains(&format!("chosen node {node} → ")), "{s}");
    // Every node of the zone, the drained node and those cordoned already
    // are unschedulable in the answer (counted from the snapshot here).
    let cordoned = cluster
        .nodes
        .iter()
        .filter(|n| n.unschedulable || *n.name == *other || zone_of(&cluster, &n.name) == zone)
        .count();
    assert!(
        s.contains(&format!("{cordoned} node(s) were unschedulable")),
        "{cordoned} unschedulable nodes expected:\n{s}"
    );
    let now = whatif(&app).summary.clone().expect("an answer");
    if let Some(now) = &now.node {
        assert_ne!(zone_of(&cluster, now), zone, "landed in the cordoned zone");
        assert_ne!(*now, other, "landed on the drained node");
    }

    // Cleared: the snapshot as it is, and the first answer again.
    command(&mut app, "scenario clear");
    let s = screen(&app);
    assert!(whatif(&app).scenario.is_empty());
    assert!(!s.contains("Against the unchanged cluster"), "{s}");
    assert!(s.contains(&format!("SCHEDULED → {node} (")), "{s}");
    // And it says what clearing changed: the pod is back on its node.
    assert!(s.contains(&format!("chosen node (none) → {node}")), "{s}");
}

#[test]
fn a_new_scenario_says_which_steps_it_replaces() {
    let mut app = demo_app();
    command(&mut app, "cordon eu-west-1a");
    command(&mut app, "then lose eu-west-1c");
    assert_eq!(whatif(&app).scenario.len(), 2);
    // Without `then`, a step starts a scenario of its own: the two steps
    // are dropped, and the status line says so and how to stack instead.
    command(&mut app, "drain worker-b01");
    assert_eq!(whatif(&app).scenario.len(), 1);
    let s = screen(&app);
    assert!(
        s.contains(
            "a new scenario: it replaces Cordon zone eu-west-1a, then Lose zone eu-west-1c (:then cordon|lose|drain … adds a step instead)"
        ),
        "{s}"
    );
    // A first scenario replaces nothing and says nothing of it.
    let mut app = demo_app();
    command(&mut app, "drain worker-b01");
    assert!(!screen(&app).contains("a new scenario"));
}

#[test]
fn a_step_naming_an_unknown_node_or_zone_is_refused_with_what_there_is() {
    let mut app = demo_app();
    command(&mut app, "drain no-such-node");
    let s = screen(&app);
    assert!(
        s.contains("no node \"no-such-node\" in the snapshot"),
        "{s}"
    );
    command(&mut app, "then lose mars-1a");
    let s = screen(&app);
    assert!(s.contains("no zone \"mars-1a\"; zones: eu-west-1a"), "{s}");
    assert!(whatif(&app).scenario.is_empty());
}

#[test]
fn cancelling_the_only_step_of_a_zone_loss_goes_back_to_the_answer() {
    // Big enough that the run is still going when esc arrives (thousands
    // of displaced pods), small enough for a test.
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("synth.json");
    let spec = kplace::synth::SynthSpec {
        nodes: 300,
        pods: 9000,
        zones: 3,
        seed: 7,
    };
    let mut out = Vec::new();
    kplace::synth::write_cluster_json(&mut out, &spec).unwrap();
    let (cluster, _) = kplace::source::file::load_snapshot_bytes(&out, "synth.json").unwrap();
    let zone = zone_of(&cluster, &cluster.nodes[0].name);
    std::fs::write(&path, out).unwrap();
    let mut app = common::snapshot_app(path);
    key(&mut app, KeyCode::Char('7'));
    key(&mut app, KeyCode::Char(':'));
    keys(&mut app, &format!("lose {zone}"));
    // Enter starts the run; esc cancels it before it can finish.
    app.handle_key(KeyEvent::new(KeyCode::Enter, KeyModifiers::NONE));
    app.handle_key(KeyEvent::new(KeyCode::Esc, KeyModifiers::NONE));
    assert!(app.wait_until_idle(SETTLE), "the cancelled run did not end");
    let s = screen(&app);
    assert!(
        !s.contains("computing…"),
        "a cancelled run left a spinner: {s}"
    );
    assert!(
        whatif(&app).scenario.is_empty(),
        "the cancelled step stays out of the scenario"
    );
    assert_eq!(whatif(&app).panel, kplace::app::whatif::Panel::Answer);
    assert!(s.contains("No draft yet."), "{s}");
    // The next frame's turn of the event loop (no key): the status line
    // no longer says it is cancelling, it says the run ended.
    assert!(app.frame_due());
    let s = screen(&app);
    assert!(!s.contains("cancelling the disruption what-if"), "{s}");
    assert!(
        s.contains("disruption what-if cancelled (esc): no scenario"),
        "{s}"
    );
}

/// A step that would only repeat one in the scenario is refused, naming
/// that step, instead of a step that moves nothing; a bare `:lose` says it
/// needs a zone instead of losing the first one listed.
#[test]
fn a_step_repeating_the_scenario_or_missing_its_zone_is_refused() {
    let mut app = demo_app();
    command(&mut app, "lose");
    let s = screen(&app);
    assert!(s.contains("lose needs a zone: lose ZONE"), "{s}");
    assert!(whatif(&app).scenario.is_empty());

    command(&mut app, "lose eu-west-1a");
    assert!(app.wait_until_idle(SETTLE));
    command(&mut app, "then lose eu-west-1a");
    let s = screen(&app);
    assert!(
        s.contains("zone eu-west-1a is already lost (step 1: Lose zone eu-west-1a); not added"),
        "{s}"
    );
    assert_eq!(whatif(&app).scenario.len(), 1);
}

/// The demo with `:lose eu-west-1a` shown, the engine's plan for it, and
/// the plan's last displaced pod (below the first screen).
fn demo_zone_plan_shown() -> (App, kplace::engine::disruption::DisruptionPlan, String) {
    use kplace::engine::Scheduler;
    use kplace::engine::disruption::{Disruption, simulate};
    let cluster = kplace::app::demo::load_demo().unwrap();
    let plan = simulate(
        &cluster,
        &Disruption::LoseZone("eu-west-1a".into()),
        &Scheduler::default(),
    );
    let last = plan.displaced.last().expect("displaced pods").pod.clone();
    let mut app = demo_app();
    command(&mut app, "lose eu-west-1a");
    (app, plan, last)
}

/// Whether a row of the plan's panel names `pod` (the status line may
/// name it too, as a search's query).
fn plan_row_shows(screen: &str, pod: &str) -> bool {
    screen.lines().any(|l| l.contains('│') && l.contains(pod))
}

/// `G` (or end) shows the end of a zone plan in one key, its last row and
/// the notes under it; `g` (or home) goes back to its heading.
#[test]
fn end_and_home_jump_through_a_zone_plan() {
    let (mut app, _, last) = demo_zone_plan_shown();
    let row = |s: &str| plan_row_shows(s, &last);
    let heading = "Lose zone eu-west-1a:";
    let s = screen(&app);
    assert!(s.contains(heading) && !row(&s), "{s}");
    for end in [KeyCode::Char('G'), KeyCode::End] {
        key(&mut app, end);
        let s = screen(&app);
        assert!(row(&s), "{end:?}: {last} not shown:\n{s}");
        assert!(!s.contains(heading), "{end:?}: still at the top:\n{s}");
        key(
            &mut app,
            if end == KeyCode::End {
                KeyCode::Home
            } else {
                KeyCode::Char('g')
            },
        );
        let s = screen(&app);
        assert!(s.contains(heading) && !row(&s), "back to the top:\n{s}");
    }
}

/// `/` in a zone plan finds a pod's row below the first screen and scrolls
/// to it; `n` steps to the next match; esc clears the search and keeps
/// the plan; the plan's letters are the query while it is typed.
#[test]
fn searching_a_zone_plan_scrolls_to_the_pod() {
    let (mut app, plan, last) = demo_zone_plan_shown();
    let row = |s: &str| plan_row_shows(s, &last);
    assert!(!row(&screen(&app)), "{last} already on the first screen");

    key(&mut app, KeyCode::Char('/'));
    // `w` (save) and `r` are What-if keys: typed here they are the query.
    keys(&mut app, &last);
    key(&mut app, KeyCode::Enter);
    let s = screen(&app);
    assert!(row(&s), "{last} not scrolled to:\n{s}");
    assert!(s.contains("match 1 of"), "{s}");
    let reversed = common::reversed_rows(&app, 200, 60);
    assert!(
        reversed.iter().any(|l| l.contains(last.as_str())),
        "the match is not highlighted: {reversed:?}"
    );
    assert_eq!(whatif(&app).panel, kplace::app::whatif::Panel::Disruption);

    key(&mut app, KeyCode::Char('n'));
    assert!(screen(&app).contains("match "), "n reports the match");
    key(&mut app, KeyCode::Esc);
    assert!(whatif(&app).plan_search.query.is_empty());
    assert_eq!(
        whatif(&app).panel,
        kplace::app::whatif::Panel::Disruption,
        "esc cleared the search, not the plan"
    );
    // A note under the table (the PDB verdict) is found and highlighted too.
    let note = if plan.broken_pdbs.is_empty() {
        "No PodDisruptionBudget would be broken."
    } else {
        "PDBs this would break"
    };
    key(&mut app, KeyCode::Char('/'));
    keys(&mut app, note);
    key(&mut app, KeyCode::Enter);
    let reversed = common::reversed_rows(&app, 200, 60);
    assert!(
        reversed.iter().any(|l| l.contains(note)),
        "{note:?} not highlighted: {reversed:?}"
    );
    key(&mut app, KeyCode::Esc);
    key(&mut app, KeyCode::Char('/'));
    keys(&mut app, "no-such-pod-anywhere");
    key(&mut app, KeyCode::Enter);
    assert!(screen(&app).contains("no match for \"no-such-pod-anywhere\""));
}

/// pgdn stops at a plan's last line: after paging far past the end, the
/// plan moves up within a screen's worth of pgup presses (before, the
/// scroll kept growing and each extra pgdn cost one more pgup).
#[test]
fn paging_past_the_end_of_a_plan_comes_back_promptly() {
    let mut app = demo_app();
    command(&mut app, "lose eu-west-1a");
    let lines = whatif(&app)
        .disruption
        .as_ref()
        .expect("a plan")
        .line_count();
    for _ in 0..(lines / 10 + 40) {
        key(&mut app, KeyCode::PageDown);
    }
    assert_eq!(whatif(&app).scroll, lines - 1);
    let at_end = screen(&app);
    // The plan's last line shows at the end (the column headings, kept on
    // top while rows scroll, once hid it).
    let plan = whatif(&app).disruption.as_ref().unwrap();
    let last_line = plan.lines().last().unwrap().text.clone();
    // Whole (up to the pane's width): its opening words recur above it.
    let start: String = last_line.trim().chars().take(150).collect();
    assert!(
        at_end.contains(&start),
        "{start:?} not shown at the end:\n{at_end}"
    );
    // A 60-row screen shows about 54 plan rows: 6 presses of 10 lines.
    let presses = (1..=10)
        .find(|_| {
            key(&mut app, KeyCode::PageUp);
            screen(&app) != at_end
        })
        .expect("pgup moved the plan within 10 presses");
    assert!(presses <= 6, "{presses} presses");
}

/// A plan's FROM and TO columns give way down to a node's host label, the
/// part that tells EC2-style names apart, never to a cut that keeps only
/// the domain every node shares (`ip-10…al`).
#[test]
fn a_narrow_plan_keeps_each_node_names_host_label() {
    let mut items = vec![
        r#"{"apiVersion":"v1","kind":"Node","metadata":{"name":"ip-10-0-1-11.ec2.internal"},"status":{"allocatable":{"cpu":"8","memory":"16Gi","pods":"110"}}}"#.to_string(),
        r#"{"apiVersion":"v1","kind":"Node","metadata":{"name":"ip-10-0-2-22.ec2.internal"},"status":{"allocatable":{"cpu":"8","memory":"16Gi","pods":"110"}}}"#.to_string(),
    ];
    for i in 0..3 {
        items.push(format!(
            r#"{{"apiVersion":"v1","kind":"Pod","metadata":{{"name":"checkout-service-7f9c6d5b4-abcd{i}","namespace":"payments","ownerReferences":[{{"apiVersion":"apps/v1","kind":"ReplicaSet","name":"checkout-service-7f9c6d5b4","uid":"u","controller":true}}]}},"spec":{{"nodeName":"ip-10-0-1-11.ec2.internal","containers":[{{"name":"c","image":"i","resources":{{"requests":{{"cpu":"1"}}}}}}]}},"status":{{"phase":"Running"}}}}"#
        ));
    }
    let mut app = app_of_items(&items);
    command(&mut app, "drain ip-10-0-1-11.ec2.internal");
    let wide = screen(&app);
    let row = |s: &str| -> String {
        s.lines()
            .find(|l| l.contains("abcd0"))
            .unwrap_or_else(|| panic!("no row for the first pod:\n{s}"))
            .to_string()
    };
    assert!(
        row(&wide).contains("ip-10-0-1-11.ec2.internal → ip-10-0-2-22.ec2.internal"),
        "{wide}"
    );
    let narrow = common::render(&app, 80, 30);
    let row = row(&narrow);
    assert!(row.contains(" ip-10-0-1-11… "), "{narrow}");
    assert!(row.contains("→ ip-10-0-2-22"), "{narrow}");
    assert!(!row.contains("…al"), "{narrow}");
}

/// Under "Skew of each affected workload after", each constraint's line
/// names its policy: past maxSkew is a broken rule only under
/// DoNotSchedule (the demo's catalog spreads by zone with ScheduleAnyway
/// and ends far past its maxSkew of 2 when eu-west-1a is lost).
#[test]
fn a_zone_plans_skew_lines_name_each_constraints_policy() {
    let (mut app, plan, _) = demo_zone_plan_shown();
    key(&mut app, KeyCode::End);
    let s = screen(&app);
    let mut over_anyway = 0;
    for (_, domains) in &plan.workload_skew {
        for d in domains {
            let key = plan.cluster.interner.resolve(d.constraint.topology_key);
            let want = format!(
                "{key}: {}",
                d.counts
                    .first()
                    .map(|(v, n)| format!("{v}={n}"))
                    .unwrap_or_default()
            );
            let policy = format!("{:?}", d.constraint.when_unsatisfiable);
            let skew = format!(
                "skew {} / maxSkew {} ({policy})",
                d.skew(),
                d.constraint.max_skew
            );
            if d.counts.len() <= 3 {
                assert!(
                    s.lines().any(|l| l.contains(&want) && l.contains(&skew)),
                    "{want:?} … {skew:?} missing:\n{s}"
                );
            }
            if d.skew() > i64::from(d.constraint.max_skew) && policy == "ScheduleAnyway" {
                over_anyway += 1;
            }
        }
    }
    assert!(
        over_anyway > 0,
        "the demo's catalog should end past its maxSkew"
    );
    assert!(s.contains("skew 20 / maxSkew 2 (ScheduleAnyway)"), "{s}");
}

/// An app on a `List` of `items` (JSON objects), loaded.
fn app_of_items(items: &[impl AsRef<str>]) -> App {
    let dir = tempfile::tempdir().expect("temp dir");
    let path = dir.path().join("cluster.json");
    let items: Vec<&str> = items.iter().map(AsRef::as_ref).collect();
    std::fs::write(
        &path,
        format!(
            r#"{{"apiVersion":"v1","kind":"List","items":[{}]}}"#,
            items.join(",")
        ),
    )
    .expect("write");
    let mut app = App::new(Options {
        snapshot: Some(path),
        ..Default::default()
    });
    assert!(app.wait_until_idle(SETTLE), "did not load");
    app
}

/// A zone plan as wide as an 80-column terminal keeps 16 columns of its
/// last column beside full DNS node names: a DaemonSet pod's reason read
/// "Daemo…".
#[test]
fn a_whole_width_plan_at_80_columns_keeps_the_reason_readable() {
    let items = [
        r#"{"apiVersion":"v1","kind":"Node","metadata":{"name":"ip-10-0-1-11.ec2.internal","labels":{"topology.kubernetes.io/zone":"us-east-1a"}},"status":{"allocatable":{"cpu":"8","memory":"16Gi","pods":"110"}}}"#,
        r#"{"apiVersion":"v1","kind":"Node","metadata":{"name":"ip-10-0-2-22.ec2.internal","labels":{"topology.kubernetes.io/zone":"us-east-1b"}},"status":{"allocatable":{"cpu":"8","memory":"16Gi","pods":"110"}}}"#,
        r#"{"apiVersion":"v1","kind":"Pod","metadata":{"name":"node-exporter-wwhms","namespace":"monitoring","ownerReferences":[{"apiVersion":"apps/v1","kind":"DaemonSet","name":"node-exporter","uid":"d","controller":true}]},"spec":{"nodeName":"ip-10-0-1-11.ec2.internal","containers":[{"name":"c","image":"i","resources":{"requests":{"cpu":"100m"}}}]},"status":{"phase":"Running"}}"#,
    ];
    let mut app = app_of_items(&items);
    command(&mut app, "lose us-east-1a");
    let s = common::render(&app, 80, 30);
    let row = s
        .lines()
        .find(|l| l.contains("node-exporter-wwhms"))
        .unwrap_or_else(|| panic!("no row for the DaemonSet pod:\n{s}"));
    assert!(row.contains("NOT RECREATED"), "{s}");
    assert!(row.contains("DaemonSet pod: "), "{row:?}\n{s}");
    assert!(row.contains(" ip-10-0-1-11"), "{s}");
    // The row's reason may be cut; the notes under the table give it whole.
    let at = s
        .lines()
        .position(|l| l.contains("Why pods are not recreated"))
        .unwrap_or_else(|| panic!("no note on why pods are not recreated:\n{s}"));
    assert!(
        s.lines()
            .nth(at + 1)
            .is_some_and(|l| l.contains("  1 pod(s): DaemonSet pod: it only runs on its own node")),
        "{s}"
    );
}

/// At 80 columns a zone plan's VICTIMS column is cut ("evicts 1: shop/…")
/// and names at most four victims: the notes at the plan's end list every
/// preemption on the way with every victim whole, as the engine's plan
/// has them.
#[test]
fn a_zone_plan_names_every_victim_whole_at_80_columns() {
    use kplace::engine::Outcome;
    let (mut app, plan, _) = demo_zone_plan_shown();
    let preemptions: Vec<_> = plan
        .displaced
        .iter()
        .filter_map(|d| {
            let l = d.landing.as_ref()?;
            if l.outcome != Outcome::Preempt {
                return None;
            }
            Some((d.pod.clone(), l.node.clone()?, l.victims.clone()))
        })
        .collect();
    assert!(!preemptions.is_empty(), "the demo's zone plan preempts");
    key(&mut app, KeyCode::End);
    let s = common::render(&app, 80, 60);
    let at = s
        .lines()
        .position(|l| {
            l.contains(&format!(
                "Preemptions on the way ({}), every victim",
                preemptions.len()
            ))
        })
        .unwrap_or_else(|| panic!("no list of the preemptions:\n{s}"));
    // The notes as one text: a line longer than the pane wraps at a space.
    let notes = s
        .lines()
        .skip(at + 1)
        .map(|l| l.trim_matches(|c: char| c == '│' || c.is_whitespace()))
        .collect::<Vec<_>>()
        .join(" ");
    for (pod, node, victims) in &preemptions {
        let line = format!(
            "{pod} → {node} evicts {}: {}",
            victims.len(),
            victims.join(", ")
        );
        assert!(
            notes.contains(&line),
            "no whole line {line:?} for {pod}:\n{s}"
        );
    }
}
