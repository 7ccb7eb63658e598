//! The three renderings of one placement answer — `-o json`, `-o table`
//! and the TUI's Placement view — say the same thing. For every case of the
//! conformance corpus under every release it answers for, the facts are
//! read from the JSON (outcome, node, feasible count, each failure reason
//! with its node count, each score, the message, the preemption's node,
//! victims and candidates, notes, devices) and each must appear in the
//! table text and in the rows the Placement view draws.

use std::path::{Path, PathBuf};

use kplace::engine::{self, Scheduler, Version, VersionChoice};
use kplace::report::{json, table};
use kplace::source::file::{load_pod, load_snapshot};
use kplace::source::scheduler_config;
use serde_json::Value;

fn corpus_dir() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/conformance/cases")
}

/// All runs of whitespace as one space: the view wraps paragraphs at word
/// boundaries, so a sentence is compared without its line breaks.
fn flat(text: &str) -> String {
    text.split_whitespace().collect::<Vec<_>>().join(" ")
}

/// The verdict word a person reads first.
fn verdict(outcome: &str) -> &'static str {
    match outcome {
        "scheduled" => "SCHEDULED",
        "preempt" => "PREEMPT",
        "unschedulable" => "UNSCHEDULABLE",
        "rejected" => "REJECTED",
        "gated" => "GATED",
        "waiting-for-claims" => "WAITING FOR CLAIMS",
        "no-profile" => "NO PROFILE",
        other => panic!("unknown outcome {other}"),
    }
}

/// What the JSON says, as text a person must find in a human rendering.
fn facts(answer: &Value) -> Vec<String> {
    let s = |v: &Value| v.as_str().unwrap_or_default().to_string();
    let outcome = s(&answer["outcome"]);
    let mut facts = vec![s(&answer["pod"]), verdict(&outcome).to_string()];
    if let Some(node) = answer["node"].as_str() {
        facts.push(format!("→ {node}"));
    }
    if let Some(rejection) = answer["rejection"].as_str() {
        facts.push(rejection.to_string());
    }
    if let Some(message) = answer["message"].as_str().filter(|m| !m.is_empty()) {
        facts.push(message.to_string());
    }
    if let Some(feasible) = answer["feasibleNodes"].as_array()
        && outcome == "scheduled"
    {
        facts.push(format!("{} feasible node(s)", feasible.len()));
    }
    if let Some(failures) = answer["filterFailures"]
        .as_object()
        .filter(|f| !f.is_empty())
    {
        facts.push(format!(
            "Failing nodes by reason ({} node(s))",
            failures.len()
        ));
        // Nodes per (reasons, plugin, code), as a person would count them.
        let mut groups: std::collections::BTreeMap<(String, String, String), usize> =
            Default::default();
        for f in failures.values() {
            let reasons: Vec<String> = f["reasons"].as_array().unwrap().iter().map(&s).collect();
            if reasons.is_empty() {
                continue;
            }
            *groups
                .entry((reasons.join("; "), s(&f["plugin"]), s(&f["code"])))
                .or_default() += 1;
        }
        for ((reason, plugin, code), n) in groups {
            facts.push(format!("{n} {reason}"));
            facts.push(format!("{plugin} · {code}"));
        }
    }
    if let Some(scores) = answer["scores"].as_object() {
        for (node, score) in scores {
            facts.push(format!("{node} {}", score["total"]));
        }
    }
    let pr = &answer["preemption"];
    if pr.is_object() {
        if let Some(reason) = pr["ineligibleReason"].as_str() {
            facts.push(reason.trim_start_matches("not eligible: ").to_string());
        }
        if let Some(node) = pr["node"].as_str() {
            facts.push(format!("nominated node: {node}"));
        }
        for victim in pr["victims"].as_array().unwrap() {
            facts.push(s(victim));
        }
        if let Some(m) = pr["message"].as_str().filter(|m| !m.is_empty()) {
            facts.push(m.to_string());
        }
        let candidates = pr["candidates"].as_object().unwrap();
        if !candidates.is_empty() {
            facts.push(format!("Candidate nodes ({})", candidates.len()));
            for (node, c) in candidates {
                let victims = c["victims"].as_array().unwrap().len();
                facts.push(format!("{node} {victims} {}", c["numPDBViolations"]));
            }
        }
    }
    for note in answer["notes"].as_array().into_iter().flatten() {
        facts.push(s(note));
    }
    for device in answer["devices"].as_array().into_iter().flatten() {
        facts.push(s(&device["device"]));
    }
    if answer["ifUngated"].is_object() {
        let ungated = &answer["ifUngated"];
        facts.push(verdict(ungated["outcome"].as_str().unwrap()).to_string());
        if let Some(node) = ungated["node"].as_str() {
            facts.push(format!("→ {node}"));
        }
    }
    facts.iter().map(|f| flat(f)).collect()
}

#[test]
fn json_table_and_view_say_the_same_for_every_corpus_answer() {
    let mut cases: Vec<PathBuf> = std::fs::read_dir(corpus_dir())
        .expect("the corpus is present")
        .map(|e| e.unwrap().path())
        .collect();
    cases.sort();
    assert!(cases.len() > 100, "the corpus has {} cases", cases.len());
    let mut problems = Vec::new();
    let mut answers = 0;
    for dir in &cases {
        let case = dir.file_name().unwrap().to_string_lossy().into_owned();
        let (mut cluster, _) = load_snapshot(&dir.join("snapshot.yaml.gz")).unwrap();
        let pod = load_pod(&dir.join("pod.yaml"), &mut cluster.interner).unwrap();
        for version in Version::ALL {
            if !dir.join(format!("{version}.json")).exists() {
                continue;
            }
            let choice = VersionChoice::flag(version);
            let config = dir.join("config.yaml");
            let scheduler = if config.exists() {
                let profiles = scheduler_config::load(&config, version).unwrap();
                Scheduler::with_profiles(choice, std::sync::Arc::new(profiles))
            } else {
                Scheduler::new(choice)
            };
            let answer = engine::place(&cluster, &pod, &scheduler);
            let json = json::placement(&cluster, &answer);
            let text = flat(&table::render(&cluster, &answer, None, 0));
            let report = kplace::app::report::build(&cluster, &answer, None);
            let view = flat(&kplace::ui::placement_screen_rows(&report, 100).join("\n"));
            for fact in facts(&json) {
                if !text.contains(&fact) {
                    problems.push(format!("{case} {version}: the table lacks {fact:?}"));
                }
                if !view.contains(&fact) {
                    problems.push(format!("{case} {version}: the view lacks {fact:?}"));
                }
            }
            answers += 1;
        }
    }
    assert!(answers > 500, "only {answers} answers checked");
    assert!(
        problems.is_empty(),
        "{} problem(s), first ones:\n{}",
        problems.len(),
        problems[..problems.len().min(40)].join("\n")
    );
}

/// A fact the table and the view both drop is caught: the check is not
/// vacuous.
#[test]
fn a_missing_fact_is_noticed() {
    let dir = corpus_dir().join("preemption-001");
    let (mut cluster, _) = load_snapshot(&dir.join("snapshot.yaml.gz")).unwrap();
    let pod = load_pod(&dir.join("pod.yaml"), &mut cluster.interner).unwrap();
    let answer = engine::place(
        &cluster,
        &pod,
        &Scheduler::new(VersionChoice::flag(Version::ALL[4])),
    );
    let json = json::placement(&cluster, &answer);
    let facts = facts(&json);
    let victim = json["preemption"]["victims"][0].as_str().unwrap();
    assert!(facts.iter().any(|f| f == victim), "{facts:?}");
    let text = flat(&table::render(&cluster, &answer, None, 0));
    let without: String = text.replace(victim, "");
    assert!(!without.contains(victim));
    assert!(facts.iter().any(|f| !without.contains(f.as_str())));
}
