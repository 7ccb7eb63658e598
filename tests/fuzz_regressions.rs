//! Inputs kept from fuzzing (`fuzz/`, see the README) and hostile inputs
//! written by hand, replayed through the same paths as the fuzz targets:
//! each loader, then the engine on what loads. None may panic; what loads
//! is answered, what does not is a named error.

use std::path::{Path, PathBuf};

use kplace::engine::{Scheduler, place, place_existing};
use kplace::model::quantity::Quantity;
use kplace::source::file::{load_manifest_bytes, load_pod_bytes, load_snapshot_bytes};
use kplace::source::timeline::Timeline;

fn inputs(target: &str) -> Vec<PathBuf> {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("tests/data/fuzz")
        .join(target);
    let mut files: Vec<PathBuf> = std::fs::read_dir(&dir)
        .unwrap_or_else(|e| panic!("{}: {e}", dir.display()))
        .map(|e| e.unwrap().path())
        .collect();
    files.sort();
    assert!(!files.is_empty(), "no inputs in {}", dir.display());
    files
}

/// Runs `f` on every input of `target`, naming the input that panics.
fn replay(target: &str, f: impl Fn(&[u8]) + std::panic::RefUnwindSafe) {
    for path in inputs(target) {
        let data = std::fs::read(&path).unwrap();
        let result = std::panic::catch_unwind(|| f(&data));
        assert!(result.is_ok(), "{} panicked", path.display());
    }
}

#[test]
fn snapshot_inputs_load_or_fail_cleanly_and_what_loads_is_answered() {
    replay("snapshot", |data| match load_snapshot_bytes(data, "fuzz") {
        Ok((cluster, _)) => {
            // The views' per-node and per-zone totals, as the TUI builds them.
            let _ = kplace::app::derived::Derived::build(&std::sync::Arc::new(cluster.clone()));
            let scheduler = Scheduler::default();
            for id in (0..cluster.pods.len() as u32).take(4) {
                let _ = place_existing(&cluster, id, &scheduler);
            }
        }
        Err(e) => assert!(e.to_string().starts_with("fuzz"), "{e}"),
    });
}

#[test]
fn pod_inputs_load_or_fail_cleanly_and_what_loads_is_answered() {
    let demo = kplace::app::demo::load_demo().unwrap();
    replay("pod", |data| {
        let mut cluster = demo.clone();
        match load_manifest_bytes(data, "fuzz", &mut cluster.interner, None) {
            Ok(m) => {
                let _ = place(&cluster, &m.pod, &Scheduler::default());
            }
            Err(e) => assert!(e.to_string().starts_with("fuzz"), "{e}"),
        }
    });
}

#[test]
fn timeline_inputs_load_or_fail_cleanly_and_what_loads_is_answered() {
    replay("timeline", |data| {
        match Timeline::from_bytes(data, "fuzz") {
            Ok(t) => {
                let scheduler = Scheduler::default();
                for n in [0, t.events().len()] {
                    let cluster = t.state_after(n);
                    for id in (0..cluster.pods.len() as u32).take(2) {
                        let _ = place_existing(&cluster, id, &scheduler);
                    }
                }
            }
            Err(e) => assert!(e.to_string().starts_with("fuzz"), "{e}"),
        }
    });
}

#[test]
fn quantity_inputs_parse_or_fail_cleanly_and_a_pod_asking_for_them_is_answered() {
    let demo = kplace::app::demo::load_demo().unwrap();
    replay("quantity", |data| {
        let Ok(text) = std::str::from_utf8(data) else {
            return;
        };
        if Quantity::parse(text).is_err() {
            return;
        }
        let manifest = format!(
            "apiVersion: v1\nkind: Pod\nmetadata: {{name: q, namespace: default}}\nspec:\n  containers:\n  - name: c\n    image: x\n    resources: {{requests: {{cpu: \"{text}\", memory: \"{text}\"}}}}\n"
        );
        let mut cluster = demo.clone();
        if let Ok(pod) = load_pod_bytes(manifest.as_bytes(), "fuzz", &mut cluster.interner) {
            let _ = place(&cluster, &pod, &Scheduler::default());
        }
    });
}

/// The finding that started this: an overflowing exponent was answered
/// `scheduled`. It must be refused, or never fit.
#[test]
fn an_overflowing_cpu_request_is_never_scheduled() {
    let demo = kplace::app::demo::load_demo().unwrap();
    let data = std::fs::read(
        Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/data/fuzz/pod/overflowing-cpu.yaml"),
    )
    .unwrap();
    let mut cluster = demo.clone();
    if let Ok(pod) = load_pod_bytes(&data, "fuzz", &mut cluster.interner) {
        let answer = place(&cluster, &pod, &Scheduler::default());
        assert_ne!(answer.outcome, kplace::engine::Outcome::Scheduled);
    }
}

#[test]
fn lean_json_inputs_are_read_as_serde_json_reads_them_or_left_to_it() {
    replay("lean_json", |data| {
        if let Ok(text) = std::str::from_utf8(data) {
            kplace::source::lean_json::agrees_on_objects(text);
        }
    });
}
