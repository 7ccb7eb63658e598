//! Runs every case of the conformance corpus (answers produced by the real
//! kube-scheduler v1.30.6) through the engine and compares field by field.
//!
//! The corpus lives in `tests/conformance/cases` (snapshots gzipped); when
//! the shared copy `../shared/conformance` exists, the test also checks the
//! repository's copy is identical to it.

use std::io::{Read, Write};
use std::path::{Path, PathBuf};

use kplace::engine;
use kplace::report::json;
use kplace::source::file::{load_pod, load_snapshot};
use serde_json::Value;

fn cases_dir() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/conformance/cases")
}

fn case_names() -> Vec<String> {
    let mut names: Vec<String> = std::fs::read_dir(cases_dir())
        .expect("corpus present")
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .collect();
    names.sort();
    names
}

/// Compares one field; returns a description of the difference.
fn compare(field: &str, want: &Value, got: &Value) -> Option<String> {
    (want != got).then(|| format!("{field}: want {want}, got {got}"))
}

fn check_case(name: &str) -> Vec<String> {
    let dir = cases_dir().join(name);
    let expected: Value =
        serde_json::from_str(&std::fs::read_to_string(dir.join("expected.json")).unwrap()).unwrap();
    let (mut cluster, _) = load_snapshot(&dir.join("snapshot.yaml.gz")).unwrap();
    let pod = load_pod(&dir.join("pod.yaml"), &mut cluster.interner).unwrap();
    let answer = engine::place(&cluster, &pod);
    let got = json::placement(&cluster, &answer);

    let mut diffs = Vec::new();
    for field in ["pod", "outcome", "priority", "rejection", "message"] {
        diffs.extend(compare(field, &expected[field], &got[field]));
    }
    if expected["outcome"] != "rejected" {
        for field in ["feasibleNodes", "bestNodes"] {
            diffs.extend(compare(field, &expected[field], &got[field]));
        }
        let want_failures = expected["filterFailures"].as_object().unwrap();
        let got_failures = got["filterFailures"].as_object().unwrap();
        for (node, want) in want_failures {
            diffs.extend(compare(
                &format!("filterFailures[{node}]"),
                want,
                &got_failures.get(node).cloned().unwrap_or(Value::Null),
            ));
        }
        for node in got_failures
            .keys()
            .filter(|k| !want_failures.contains_key(*k))
        {
            diffs.push(format!("filterFailures[{node}]: unexpected"));
        }
        let want_scores = expected["scores"].as_object().unwrap();
        let got_scores = got["scores"].as_object().unwrap();
        if want_scores.len() != got_scores.len() {
            diffs.push(format!(
                "scores: want {} nodes, got {}",
                want_scores.len(),
                got_scores.len()
            ));
        }
        for (node, want) in want_scores {
            diffs.extend(compare(
                &format!("scores[{node}]"),
                want,
                &got_scores.get(node).cloned().unwrap_or(Value::Null),
            ));
        }
    }
    // Preemption (outcomes preempt and unschedulable).
    let want_pre = &expected["preemption"];
    let got_pre = &got["preemption"];
    if want_pre.is_null() != got_pre.is_null() {
        diffs.push(format!("preemption: want {want_pre}, got {got_pre}"));
    } else if !want_pre.is_null() {
        diffs.extend(compare(
            "preemption.eligible",
            &want_pre["eligible"],
            &got_pre["eligible"],
        ));
        let want_c = want_pre["candidates"].as_object().unwrap();
        let got_c = got_pre["candidates"].as_object().unwrap();
        let keys = |m: &serde_json::Map<String, Value>| m.keys().cloned().collect::<Vec<_>>();
        if keys(want_c) != keys(got_c) {
            diffs.push(format!(
                "preemption.candidates: want nodes {:?}, got {:?}",
                keys(want_c),
                keys(got_c)
            ));
        }
        for (node, want) in want_c {
            if let Some(got) = got_c.get(node) {
                diffs.extend(compare(
                    &format!("preemption.candidates[{node}].victims"),
                    &want["victims"],
                    &got["victims"],
                ));
                diffs.extend(compare(
                    &format!("preemption.candidates[{node}].numPDBViolations"),
                    &want["numPDBViolations"],
                    &got["numPDBViolations"],
                ));
            }
        }
        let chosen = want_pre["chosenNodes"].as_array().unwrap();
        match &got_pre["node"] {
            Value::Null if chosen.is_empty() => {}
            node if chosen.contains(node) => {}
            node => diffs.push(format!(
                "preemption.node: {node} is not one of chosenNodes {chosen:?}"
            )),
        }
    }
    // kplace's pick must be one of the scheduler's best nodes.
    if let Some(best) = expected["bestNodes"].as_array().filter(|b| !b.is_empty())
        && !best.contains(&got["node"])
    {
        diffs.push(format!("node: {} is not one of bestNodes", got["node"]));
    }
    diffs
}

#[test]
fn conformance_corpus() {
    let names = case_names();
    assert_eq!(names.len(), 400, "the corpus has 400 cases");
    let mut failed = Vec::new();
    for name in &names {
        let diffs = check_case(name);
        if !diffs.is_empty() {
            failed.push(format!("{name}:\n  {}", diffs.join("\n  ")));
        }
    }
    // Written to the stderr handle directly so the line shows even when the
    // test passes (libtest captures only the print macros).
    let _ = writeln!(
        std::io::stderr(),
        "conformance: {}/{} cases",
        names.len() - failed.len(),
        names.len()
    );
    assert!(
        failed.is_empty(),
        "{} case(s) differ:\n{}",
        failed.len(),
        failed.join("\n")
    );
}

/// The repository's copy of the corpus is the shared corpus, byte for byte.
#[test]
fn corpus_copy_matches_shared() {
    let shared = Path::new(env!("CARGO_MANIFEST_DIR")).join("../shared/conformance");
    if !shared.exists() {
        eprintln!("../shared/conformance is absent (fresh clone): nothing to compare");
        return;
    }
    let ours = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/conformance");
    assert_eq!(
        std::fs::read(shared.join("README.md")).unwrap(),
        std::fs::read(ours.join("README.md")).unwrap(),
        "README.md differs"
    );
    let mut shared_cases: Vec<_> = std::fs::read_dir(shared.join("cases"))
        .unwrap()
        .map(|e| e.unwrap().file_name())
        .collect();
    shared_cases.sort();
    let names: Vec<_> = case_names()
        .into_iter()
        .map(std::ffi::OsString::from)
        .collect();
    assert_eq!(shared_cases, names, "case lists differ");
    for name in &names {
        for file in ["pod.yaml", "expected.json"] {
            assert_eq!(
                std::fs::read(shared.join("cases").join(name).join(file)).unwrap(),
                std::fs::read(ours.join("cases").join(name).join(file)).unwrap(),
                "{name:?}/{file} differs"
            );
        }
        let mut unpacked = Vec::new();
        flate2::read::GzDecoder::new(
            std::fs::File::open(ours.join("cases").join(name).join("snapshot.yaml.gz")).unwrap(),
        )
        .read_to_end(&mut unpacked)
        .unwrap();
        assert_eq!(
            std::fs::read(shared.join("cases").join(name).join("snapshot.yaml")).unwrap(),
            unpacked,
            "{name:?}/snapshot.yaml differs"
        );
    }
}
