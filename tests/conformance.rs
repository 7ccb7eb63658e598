//! Runs every case of the conformance corpus under every scheduler release it
//! has an answer for (`vX.Y.json`, produced by that release's real
//! framework) and compares field by field.
//!
//! Each case and release is its own test, named `<case>::v1.XX`, so one
//! failure hides nothing and one case runs by name:
//! `cargo test --test conformance -- spread-001::v1.34`.
//! After the run, one line per release: `conformance v1.34: P/N`.
//!
//! The corpus lives in `tests/conformance/cases` (snapshots gzipped); the
//! test `corpus-copy-matches-shared` holds it identical to
//! `../shared/conformance` whenever that exists (always in CI).

use std::collections::BTreeMap;
use std::io::Read;
use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex, OnceLock};

use kplace::engine::{self, Scheduler, Version, VersionChoice};
use kplace::model::{Cluster, Pod};
use kplace::report::json;
use kplace::source::file::{load_pod, load_snapshot};
use kplace::source::scheduler_config;
use libtest_mimic::{Arguments, Failed, Trial};
use serde_json::Value;

/// Families whose engine work belongs to an open issue. Their cases run and
/// are counted on their own line; a case that does not match yet is a known
/// gap, not a failure. The floor is how many must keep passing: falling
/// below it fails the run (a regression), and the floor is raised as the
/// issue's work lands.
const PENDING: &[(&str, &str, usize)] = &[];

fn corpus_dir() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/conformance")
}

fn case_names() -> Vec<String> {
    let mut names: Vec<String> = std::fs::read_dir(corpus_dir().join("cases"))
        .expect("tests/conformance/cases is present")
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .collect();
    names.sort();
    names
}

fn family(case: &str) -> &str {
    case.rsplit_once('-').map_or(case, |(f, _)| f)
}

/// The releases a case has an answer for, oldest first.
fn answered_versions(case: &str) -> Vec<Version> {
    let dir = corpus_dir().join("cases").join(case);
    Version::ALL
        .into_iter()
        .filter(|v| dir.join(format!("{v}.json")).exists())
        .collect()
}

type Loaded = Result<(Cluster, Pod), String>;
/// One slot per case, filled by whichever of its releases' tests runs first.
type LoadSlot = Arc<OnceLock<Arc<Loaded>>>;

/// Loads each case's snapshot and pod once, shared by its releases' tests.
fn load(case: &str) -> Arc<Loaded> {
    static CACHE: OnceLock<Mutex<BTreeMap<String, LoadSlot>>> = OnceLock::new();
    let slot = CACHE
        .get_or_init(Default::default)
        .lock()
        .unwrap()
        .entry(case.to_string())
        .or_default()
        .clone();
    slot.get_or_init(|| {
        let dir = corpus_dir().join("cases").join(case);
        Arc::new((|| {
            let (mut cluster, _) =
                load_snapshot(&dir.join("snapshot.yaml.gz")).map_err(|e| e.to_string())?;
            let pod = load_pod(&dir.join("pod.yaml"), &mut cluster.interner)
                .map_err(|e| e.to_string())?;
            Ok((cluster, pod))
        })())
    })
    .clone()
}

/// Compares one field; returns a description of the difference.
fn compare(field: &str, want: &Value, got: &Value) -> Option<String> {
    (want != got).then(|| format!("{field}: want {want}, got {got}"))
}

fn compare_map(field: &str, want: &Value, got: &Value, diffs: &mut Vec<String>) {
    let empty = serde_json::Map::new();
    let want = want.as_object().unwrap_or(&empty);
    let got = got.as_object().unwrap_or(&empty);
    for (key, w) in want {
        diffs.extend(compare(
            &format!("{field}[{key}]"),
            w,
            got.get(key).unwrap_or(&Value::Null),
        ));
    }
    for key in got.keys().filter(|k| !want.contains_key(*k)) {
        diffs.push(format!("{field}[{key}]: unexpected {}", got[key]));
    }
}

/// The v1.34 default profile spelled out as a configuration file; the
/// default-profile corpus must answer the same with it.
fn explicit_default_config() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/data/default-profile-v1.34.yaml")
}

/// The differences between the engine's answer and the release's.
fn check(case: &str, version: Version) -> Result<Vec<String>, String> {
    check_with(case, version, None)
}

/// Like [`check`], with `config` instead of the case's own configuration.
fn check_with(
    case: &str,
    version: Version,
    config: Option<PathBuf>,
) -> Result<Vec<String>, String> {
    let dir = corpus_dir().join("cases").join(case);
    let text =
        std::fs::read_to_string(dir.join(format!("{version}.json"))).map_err(|e| e.to_string())?;
    let expected: Value = serde_json::from_str(&text).map_err(|e| e.to_string())?;
    let loaded = load(case);
    let (cluster, pod) = loaded.as_ref().as_ref().map_err(Clone::clone)?;
    let choice = VersionChoice::flag(version);
    let config = config.unwrap_or_else(|| dir.join("config.yaml"));
    let scheduler = if config.exists() {
        let profiles = scheduler_config::load(&config, version).map_err(|e| e.to_string())?;
        Scheduler::with_profiles(choice, std::sync::Arc::new(profiles))
    } else {
        Scheduler::new(choice)
    };
    let answer = engine::place(cluster, pod, &scheduler);
    let got = json::placement(cluster, &answer);

    let mut diffs = Vec::new();
    // Answered again from a node memo, as a disruption what-if does: made
    // by the first run, read by the second; both must be the full run's.
    let memo = engine::node_memo::NodeMemo::new(cluster);
    for run in ["making", "reading"] {
        let memoized = engine::place_with(cluster, pod, &scheduler, Some(&memo));
        if json::placement(cluster, &memoized) != got {
            diffs.push(format!(
                "the answer {run} a node memo differs from the full run:\n    {}",
                json::placement(cluster, &memoized)
            ));
        }
    }
    for field in ["pod", "outcome", "message"] {
        diffs.extend(compare(field, &expected[field], &got[field]));
    }
    let outcome = expected["outcome"].as_str().unwrap_or_default();
    if outcome == "no-profile" {
        return Ok(diffs);
    }
    if !expected["profile"].is_null() {
        diffs.extend(compare("profile", &expected["profile"], &got["profile"]));
    }
    for field in ["priority", "rejection"] {
        diffs.extend(compare(field, &expected[field], &got[field]));
    }
    if matches!(outcome, "rejected" | "gated" | "waiting-for-claims") {
        for field in ["feasibleNodes", "filterFailures", "scores", "bestNodes"] {
            if !got[field].is_null() {
                diffs.push(format!(
                    "{field}: want none for {outcome}, got {}",
                    got[field]
                ));
            }
        }
    } else {
        for field in ["feasibleNodes", "bestNodes"] {
            diffs.extend(compare(field, &expected[field], &got[field]));
        }
        compare_map(
            "filterFailures",
            &expected["filterFailures"],
            &got["filterFailures"],
            &mut diffs,
        );
        compare_map("scores", &expected["scores"], &got["scores"], &mut diffs);
    }
    check_preemption(&expected, &got, &mut diffs);
    // kplace's pick must be one of the scheduler's best nodes.
    if let Some(best) = expected["bestNodes"].as_array().filter(|b| !b.is_empty())
        && !best.contains(&got["node"])
    {
        diffs.push(format!("node: {} is not one of bestNodes", got["node"]));
    }
    Ok(diffs)
}

fn check_preemption(expected: &Value, got: &Value, diffs: &mut Vec<String>) {
    let want = &expected["preemption"];
    let got = &got["preemption"];
    if want.is_null() || got.is_null() {
        if want.is_null() != got.is_null() {
            diffs.push(format!("preemption: want {want}, got {got}"));
        }
        return;
    }
    diffs.extend(compare(
        "preemption.eligible",
        &want["eligible"],
        &got["eligible"],
    ));
    let empty = serde_json::Map::new();
    let want_c = want["candidates"].as_object().unwrap_or(&empty);
    let got_c = got["candidates"].as_object().unwrap_or(&empty);
    let keys = |m: &serde_json::Map<String, Value>| m.keys().cloned().collect::<Vec<_>>();
    if keys(want_c) != keys(got_c) {
        diffs.push(format!(
            "preemption.candidates: want nodes {:?}, got {:?}",
            keys(want_c),
            keys(got_c)
        ));
    }
    for (node, w) in want_c {
        if let Some(g) = got_c.get(node) {
            for field in ["victims", "numPDBViolations"] {
                diffs.extend(compare(
                    &format!("preemption.candidates[{node}].{field}"),
                    &w[field],
                    &g[field],
                ));
            }
        }
    }
    let chosen = want["chosenNodes"].as_array().cloned().unwrap_or_default();
    match &got["node"] {
        Value::Null if chosen.is_empty() => {}
        node if chosen.contains(node) => {}
        node => diffs.push(format!(
            "preemption.node: {node} is not one of chosenNodes {chosen:?}"
        )),
    }
}

/// Tallies per release (and per pending family), printed after the run.
#[derive(Default)]
struct Tally {
    /// (release, pending family or "") → (passed, total).
    counts: BTreeMap<(Version, &'static str), (usize, usize)>,
    /// Pending-family cases that do not match yet, for the summary.
    gaps: Vec<String>,
}

fn pending(case: &str) -> Option<&'static (&'static str, &'static str, usize)> {
    PENDING.iter().find(|(f, _, _)| *f == family(case))
}

fn conformance_trial(case: String, version: Version, tally: Arc<Mutex<Tally>>) -> Trial {
    let name = format!("{case}::{version}");
    Trial::test(name, move || {
        let result = check(&case, version);
        let ok = matches!(&result, Ok(d) if d.is_empty());
        let pending_family = pending(&case);
        {
            let mut t = tally.lock().unwrap();
            let entry = t
                .counts
                .entry((version, pending_family.map_or("", |p| p.0)))
                .or_default();
            entry.0 += usize::from(ok);
            entry.1 += 1;
            if !ok && pending_family.is_some() {
                t.gaps.push(format!("{case}::{version}"));
            }
        }
        match result {
            Ok(diffs) if diffs.is_empty() => Ok(()),
            // A known gap of an open issue: counted, not failed.
            _ if pending_family.is_some() => Ok(()),
            Ok(diffs) => Err(Failed::from(format!(
                "{case} under kube-scheduler {}:\n  {}",
                version.patch_release(),
                diffs.join("\n  ")
            ))),
            Err(e) => Err(Failed::from(format!("{case}: {e}"))),
        }
    })
}

/// The repository's copy of the corpus is the shared corpus, byte for byte
/// (snapshots compared after unpacking).
fn corpus_copy_matches_shared(shared: &Path) -> Result<(), Failed> {
    let ours = corpus_dir();
    if std::fs::read(shared.join("README.md")).ok() != std::fs::read(ours.join("README.md")).ok() {
        return Err("README.md differs from ../shared/conformance".into());
    }
    let mut shared_cases: Vec<String> = std::fs::read_dir(shared.join("cases"))
        .map_err(|e| format!("{}: {e}", shared.display()))?
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .collect();
    shared_cases.sort();
    let names = case_names();
    if shared_cases != names {
        let missing: Vec<_> = shared_cases.iter().filter(|c| !names.contains(c)).collect();
        let extra: Vec<_> = names.iter().filter(|c| !shared_cases.contains(c)).collect();
        return Err(format!("case lists differ: missing {missing:?}, extra {extra:?}").into());
    }
    for name in &names {
        let theirs_dir = shared.join("cases").join(name);
        let ours_dir = ours.join("cases").join(name);
        let mut theirs: Vec<String> = std::fs::read_dir(&theirs_dir)
            .unwrap()
            .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
            .collect();
        theirs.sort();
        let mut mine: Vec<String> = std::fs::read_dir(&ours_dir)
            .unwrap()
            .map(|e| {
                let n = e.unwrap().file_name().to_string_lossy().into_owned();
                n.strip_suffix(".gz").map(str::to_string).unwrap_or(n)
            })
            .collect();
        mine.sort();
        if theirs != mine {
            return Err(format!("{name}: files differ: shared {theirs:?}, ours {mine:?}").into());
        }
        for file in &theirs {
            let want = std::fs::read(theirs_dir.join(file)).unwrap();
            let got = if file == "snapshot.yaml" {
                let mut unpacked = Vec::new();
                flate2::read::GzDecoder::new(
                    std::fs::File::open(ours_dir.join("snapshot.yaml.gz")).unwrap(),
                )
                .read_to_end(&mut unpacked)
                .map_err(|e| format!("{name}/snapshot.yaml.gz: {e}"))?;
                unpacked
            } else {
                std::fs::read(ours_dir.join(file)).unwrap()
            };
            if want != got {
                return Err(format!("{name}/{file} differs from ../shared").into());
            }
        }
    }
    Ok(())
}

fn main() {
    let args = Arguments::from_args();
    let tally = Arc::new(Mutex::new(Tally::default()));
    let names = case_names();
    let mut trials = Vec::new();
    for case in &names {
        for version in answered_versions(case) {
            trials.push(conformance_trial(case.clone(), version, tally.clone()));
        }
    }
    // The default-profile corpus again, with the default spelled out.
    for case in names.iter().filter(|c| {
        pending(c).is_none()
            && !corpus_dir()
                .join("cases")
                .join(c)
                .join("config.yaml")
                .exists()
            && answered_versions(c).contains(&Version::V1_34)
    }) {
        let case = case.clone();
        trials.push(Trial::test(
            format!("{case}::v1.34::explicit-default-config"),
            move || match check_with(&case, Version::V1_34, Some(explicit_default_config())) {
                Ok(diffs) if diffs.is_empty() => Ok(()),
                Ok(diffs) => Err(format!(
                    "{case} with the default profile spelled out:\n  {}",
                    diffs.join("\n  ")
                )
                .into()),
                Err(e) => Err(format!("{case}: {e}").into()),
            },
        ));
    }
    let shared = Path::new(env!("CARGO_MANIFEST_DIR")).join("../shared/conformance");
    let in_ci = std::env::var_os("CI").is_some_and(|v| !v.is_empty() && v != "false");
    // In a user's fresh clone there is no ../shared: the check is reported
    // as ignored there, never as passed. In CI, shared/ must be present.
    let copy_check = Trial::test("corpus-copy-matches-shared", move || {
        if !shared.exists() {
            return Err(format!("{} is absent", shared.display()).into());
        }
        corpus_copy_matches_shared(&shared)
    })
    .with_ignored_flag(
        !in_ci
            && !Path::new(env!("CARGO_MANIFEST_DIR"))
                .join("../shared/conformance")
                .exists(),
    );
    trials.push(copy_check);
    let trials_total = trials.len();

    let conclusion = libtest_mimic::run(&args, trials);

    let t = tally.lock().unwrap();
    let mut regressions = Vec::new();
    for version in Version::ALL {
        if let Some(&(passed, total)) = t.counts.get(&(version, "")) {
            eprintln!("conformance {version}: {passed}/{total}");
        }
        for &(fam, issue, floor) in PENDING {
            if let Some(&(passed, total)) = t.counts.get(&(version, fam)) {
                eprintln!("conformance {version} {fam} (open issue {issue}): {passed}/{total}");
                if passed < floor {
                    regressions.push(format!(
                        "{fam} under {version}: {passed} pass, fewer than the {floor} that passed before"
                    ));
                }
            }
        }
    }
    if names.is_empty() || trials_total < 2 {
        eprintln!("conformance: no cases found");
        std::process::exit(101);
    }
    let full_run = args.filter.is_none() && args.skip.is_empty();
    if full_run && !regressions.is_empty() {
        eprintln!("conformance regressions:\n  {}", regressions.join("\n  "));
        std::process::exit(101);
    }
    conclusion.exit();
}
