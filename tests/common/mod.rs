//! What the TUI tests share: the screen as a person would read it.

#![allow(dead_code)]

use kplace::app::App;
use ratatui::Terminal;
use ratatui::backend::TestBackend;

/// The app drawn into a `width`×`height` test terminal, as text: one line
/// per row.
pub fn render(app: &App, width: u16, height: u16) -> String {
    let mut terminal = Terminal::new(TestBackend::new(width, height)).expect("test terminal");
    terminal.draw(|f| kplace::ui::draw(f, app)).expect("draw");
    let buffer = terminal.backend().buffer();
    let mut out = String::new();
    for y in 0..height {
        for x in 0..width {
            out.push_str(buffer[(x, y)].symbol());
        }
        out.push('\n');
    }
    out
}

/// The rows of the app drawn as [`render`] draws it in which some cell is
/// drawn reversed (a search match), as text.
pub fn reversed_rows(app: &App, width: u16, height: u16) -> Vec<String> {
    use ratatui::style::Modifier;
    let mut terminal = Terminal::new(TestBackend::new(width, height)).expect("test terminal");
    terminal.draw(|f| kplace::ui::draw(f, app)).expect("draw");
    let buffer = terminal.backend().buffer();
    (0..height)
        .filter(|&y| (0..width).any(|x| buffer[(x, y)].modifier.contains(Modifier::REVERSED)))
        .map(|y| (0..width).map(|x| buffer[(x, y)].symbol()).collect())
        .collect()
}

/// A StatefulSet `db` whose two replicas' volumes sit in zones a and b
/// (bound PVs with zone node affinity), its claim template in a
/// WaitForFirstConsumer class whose allowedTopologies are those zones; one
/// node per zone a, b and c.
pub fn stateful_snapshot() -> serde_json::Value {
    let zone_term = |z: &str| {
        serde_json::json!({"required": {"nodeSelectorTerms": [{"matchExpressions": [
            {"key": "topology.kubernetes.io/zone", "operator": "In", "values": [z]}]}]}})
    };
    let mut items = vec![serde_json::json!({
        "apiVersion": "storage.k8s.io/v1", "kind": "StorageClass",
        "metadata": {"name": "zonal"}, "provisioner": "pd.csi.storage.gke.io",
        "volumeBindingMode": "WaitForFirstConsumer",
        "allowedTopologies": [{"matchLabelExpressions": [
            {"key": "topology.kubernetes.io/zone", "values": ["zone-a", "zone-b"]}]}]
    })];
    items.push(serde_json::json!({
        "apiVersion": "apps/v1", "kind": "StatefulSet",
        "metadata": {"name": "db", "namespace": "default", "uid": "sts-uid"},
        "spec": {"replicas": 2, "serviceName": "db",
            "selector": {"matchLabels": {"app": "db"}},
            "template": {"metadata": {"labels": {"app": "db"}},
                "spec": {"containers": [{"name": "db", "image": "postgres:16"}]}},
            "volumeClaimTemplates": [{"metadata": {"name": "data"},
                "spec": {"storageClassName": "zonal", "accessModes": ["ReadWriteOnce"],
                    "resources": {"requests": {"storage": "10Gi"}}}}]}
    }));
    for (i, zone) in ["zone-a", "zone-b", "zone-c"].iter().enumerate() {
        items.push(serde_json::json!({
            "apiVersion": "v1", "kind": "Node",
            "metadata": {"name": format!("node-{zone}"), "labels": {
                "kubernetes.io/hostname": format!("node-{zone}"),
                "topology.kubernetes.io/zone": zone}},
            "status": {"allocatable": {"cpu": "8", "memory": "32Gi", "pods": "110"},
                "capacity": {"cpu": "8", "memory": "32Gi", "pods": "110"}}
        }));
        if i == 2 {
            continue;
        }
        let pod = format!("db-{i}");
        let claim = format!("data-{pod}");
        let pv = format!("pv-{zone}");
        items.push(serde_json::json!({
            "apiVersion": "v1", "kind": "PersistentVolume",
            "metadata": {"name": pv},
            "spec": {"capacity": {"storage": "10Gi"}, "accessModes": ["ReadWriteOnce"],
                "storageClassName": "zonal", "nodeAffinity": zone_term(zone),
                "claimRef": {"namespace": "default", "name": claim},
                "csi": {"driver": "pd.csi.storage.gke.io", "volumeHandle": pv}},
            "status": {"phase": "Bound"}
        }));
        items.push(serde_json::json!({
            "apiVersion": "v1", "kind": "PersistentVolumeClaim",
            "metadata": {"name": claim, "namespace": "default",
                "annotations": {"pv.kubernetes.io/bind-completed": "yes"}},
            "spec": {"storageClassName": "zonal", "accessModes": ["ReadWriteOnce"],
                "resources": {"requests": {"storage": "10Gi"}}, "volumeName": pv},
            "status": {"phase": "Bound"}
        }));
        items.push(serde_json::json!({
            "apiVersion": "v1", "kind": "Pod",
            "metadata": {"name": pod, "namespace": "default", "uid": format!("uid-{pod}"),
                "labels": {"app": "db", "statefulset.kubernetes.io/pod-name": pod},
                "ownerReferences": [{"apiVersion": "apps/v1", "kind": "StatefulSet",
                    "name": "db", "uid": "sts-uid", "controller": true}]},
            "spec": {"nodeName": format!("node-{zone}"),
                "containers": [{"name": "db", "image": "postgres:16"}],
                "volumes": [{"name": "data", "persistentVolumeClaim": {"claimName": claim}}]},
            "status": {"phase": "Running"}
        }));
    }
    serde_json::json!({"apiVersion": "v1", "kind": "List", "items": items})
}

/// How long a test waits for the engine to settle after a key.
pub const SETTLE: std::time::Duration = std::time::Duration::from_secs(60);

/// The built-in demo, loaded and with its background work done.
pub fn demo_app() -> App {
    let mut app = App::new(kplace::app::Options {
        demo: true,
        ..Default::default()
    });
    assert!(app.wait_until_idle(SETTLE), "demo did not load and settle");
    app
}

/// The built-in demo recording, loaded and settled at its first moment.
pub fn demo_replay_app() -> App {
    let mut app = App::new(kplace::app::Options {
        demo_replay: true,
        ..Default::default()
    });
    assert!(app.wait_until_idle(SETTLE), "demo recording did not load");
    app
}

/// A snapshot file opened in the TUI, loaded and with its background
/// work done.
pub fn snapshot_app(path: std::path::PathBuf) -> App {
    let mut app = App::new(kplace::app::Options {
        snapshot: Some(path),
        ..Default::default()
    });
    assert!(
        app.wait_until_idle(SETTLE),
        "snapshot did not load and settle"
    );
    app
}

/// A key with modifiers, then waits for the answers it asked for.
pub fn press(
    app: &mut App,
    code: crossterm::event::KeyCode,
    modifiers: crossterm::event::KeyModifiers,
) {
    app.handle_key(crossterm::event::KeyEvent::new(code, modifiers));
    assert!(app.wait_until_idle(SETTLE), "engine did not answer in time");
}

/// A plain key, then waits for the answers it asked for.
pub fn key(app: &mut App, code: crossterm::event::KeyCode) {
    press(app, code, crossterm::event::KeyModifiers::NONE);
}

/// Types `text`, one key per character.
pub fn keys(app: &mut App, text: &str) {
    for c in text.chars() {
        key(app, crossterm::event::KeyCode::Char(c));
    }
}

/// Runs a palette command: `:`, the text, enter.
pub fn command(app: &mut App, text: &str) {
    key(app, crossterm::event::KeyCode::Char(':'));
    keys(app, text);
    key(app, crossterm::event::KeyCode::Enter);
}

/// The conformance cases whose incoming pod declares spread constraints
/// (read from the pod file's text alone), by name, in name order, with
/// their directories: the views' corpus cross-checks run on these.
pub fn spread_cases() -> Vec<(String, std::path::PathBuf)> {
    let cases = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/conformance/cases");
    let mut found: Vec<(String, std::path::PathBuf)> = std::fs::read_dir(&cases)
        .unwrap()
        .map(|e| {
            let e = e.unwrap();
            (e.file_name().to_string_lossy().into_owned(), e.path())
        })
        .filter(|(_, dir)| {
            std::fs::read_to_string(dir.join("pod.yaml"))
                .unwrap()
                .contains("topologySpreadConstraints:")
        })
        .collect();
    found.sort();
    found
}
