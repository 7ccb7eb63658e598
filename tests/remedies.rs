//! Every remedy `kplace place` proposes for an unschedulable or preempting
//! case of the conformance corpus, applied **as files** (the pod manifest
//! patched, a Node copied, a taint removed, pods re-bound in the snapshot)
//! and asked again with `kplace place --remedies none`: the answer must be
//! the one the remedy claims (outcome, node, victims). The edits are
//! applied here, by this file's own code, from the JSON a script would read.
//!
//! One test per case and release: `cargo test --test remedies -- preemption-001::v1.34`.

use std::io::Read;
use std::path::{Path, PathBuf};
use std::process::Command;
use std::sync::Arc;
use std::sync::atomic::{AtomicUsize, Ordering};

use libtest_mimic::{Arguments, Failed, Trial};
use serde_json::{Value, json};

fn corpus() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/conformance/cases")
}

fn kplace(args: &[&str]) -> Result<Value, String> {
    let out = Command::new(env!("CARGO_BIN_EXE_kplace"))
        .args(args)
        .output()
        .map_err(|e| e.to_string())?;
    if !out.status.success() {
        return Err(format!(
            "kplace {} exited {}: {}",
            args.join(" "),
            out.status,
            String::from_utf8_lossy(&out.stderr)
        ));
    }
    serde_json::from_slice(&out.stdout).map_err(|e| format!("kplace {}: {e}", args.join(" ")))
}

fn read_yaml(path: &Path) -> Value {
    let mut text = String::new();
    if path.extension().is_some_and(|e| e == "gz") {
        flate2::read::GzDecoder::new(std::fs::File::open(path).unwrap())
            .read_to_string(&mut text)
            .unwrap();
    } else {
        text = std::fs::read_to_string(path).unwrap();
    }
    serde_saphyr::from_str(&text).unwrap()
}

fn item<'a>(snapshot: &'a mut Value, kind: &str, ns: Option<&str>, name: &str) -> &'a mut Value {
    snapshot["items"]
        .as_array_mut()
        .unwrap()
        .iter_mut()
        .find(|o| {
            o["kind"] == kind
                && o["metadata"]["name"] == name
                && ns
                    .is_none_or(|ns| o["metadata"]["namespace"].as_str().unwrap_or("default") == ns)
        })
        .unwrap_or_else(|| panic!("no {kind} {name} in the snapshot"))
}

/// A quantity in base units × 1000 (milli), enough for the corpus's values.
fn milli(q: &str) -> i128 {
    let (num, mult): (&str, i128) = [
        ("Ki", 1i128 << 10),
        ("Mi", 1 << 20),
        ("Gi", 1 << 30),
        ("Ti", 1 << 40),
        ("k", 1_000),
        ("M", 1_000_000),
        ("G", 1_000_000_000),
        ("m", 1),
    ]
    .iter()
    .find_map(|(s, m)| {
        q.strip_suffix(s)
            .map(|n| (n, if *s == "m" { 1 } else { *m * 1000 }))
    })
    .unwrap_or((q, 1000));
    if let Some((i, f)) = num.split_once('.') {
        let scale = 10i128.pow(f.len() as u32);
        (i.parse::<i128>().unwrap() * scale + f.parse::<i128>().unwrap()) * mult / scale
    } else {
        num.parse::<i128>().unwrap() * mult
    }
}

fn quantity_of(v: &Value) -> i128 {
    match v {
        Value::String(s) => milli(s),
        Value::Number(n) => n.as_f64().unwrap() as i128 * 1000,
        _ => 0,
    }
}

/// Sets the pod's total request of `resource` (what the scheduler counts:
/// max(Σ containers + sidecars, each init container + the sidecars before
/// it) + overhead) to `total`: sidecars and then containers keep what they
/// can of it in order, the first container takes any rest, and init
/// containers are capped.
fn set_total_request(pod: &mut Value, resource: &str, total: &str) {
    let req = |c: &Value| {
        let r = &c["resources"]["requests"][resource];
        if r.is_null() {
            quantity_of(&c["resources"]["limits"][resource])
        } else {
            quantity_of(r)
        }
    };
    let budget = milli(total) - quantity_of(&pod["spec"]["overhead"][resource]);
    let mut left = budget;
    let mut share = |c: &mut Value| {
        let v = req(c).min(left);
        left -= v;
        set_container_request(c, resource, v);
    };
    let inits = pod["spec"]["initContainers"].as_array_mut();
    for c in inits.into_iter().flatten() {
        if c["restartPolicy"] == "Always" {
            share(c);
        }
    }
    let containers = pod["spec"]["containers"].as_array_mut().unwrap();
    for c in containers.iter_mut() {
        share(c);
    }
    if left > 0 {
        let first = req(&containers[0]) + left;
        set_container_request(&mut containers[0], resource, first);
    }
    let mut sidecars = 0;
    for c in pod["spec"]["initContainers"]
        .as_array_mut()
        .into_iter()
        .flatten()
    {
        if c["restartPolicy"] == "Always" {
            sidecars += req(c);
        } else if req(c) + sidecars > budget {
            set_container_request(c, resource, (budget - sidecars).max(0));
        }
    }
}

fn set_container_request(c: &mut Value, resource: &str, milli: i128) {
    let q = format!("{milli}m");
    let res = c
        .as_object_mut()
        .unwrap()
        .entry("resources")
        .or_insert(json!({}));
    res.as_object_mut()
        .unwrap()
        .entry("requests")
        .or_insert(json!({}))[resource] = json!(q);
    if let Some(limit) = res.get_mut("limits").and_then(|l| l.get_mut(resource))
        && quantity_of(limit) < milli
    {
        *limit = json!(q);
    }
}

/// Applies one remedy's `edit` to the snapshot and the pod manifest.
fn apply(edit: &Value, snapshot: &mut Value, pod: &mut Value) {
    match edit["target"].as_str().unwrap() {
        "pod" => {
            if let Some(ops) = edit.get("patch") {
                let ops: json_patch::Patch = serde_json::from_value(ops.clone()).unwrap();
                json_patch::patch(pod, &ops).unwrap();
            }
            for (resource, total) in edit["podRequests"].as_object().into_iter().flatten() {
                set_total_request(pod, resource, total.as_str().unwrap());
            }
        }
        "node" => {
            let node = item(snapshot, "Node", None, edit["node"].as_str().unwrap());
            let ops: json_patch::Patch = serde_json::from_value(edit["patch"].clone()).unwrap();
            json_patch::patch(node, &ops).unwrap();
        }
        "cluster" => {
            for copy in edit["addNodes"].as_array().into_iter().flatten() {
                let like = copy["copyOf"].as_str().unwrap();
                let name = copy["name"].as_str().unwrap();
                let mut node = item(snapshot, "Node", None, like).clone();
                node["metadata"]["name"] = json!(name);
                if node["metadata"]["labels"]["kubernetes.io/hostname"] == like {
                    node["metadata"]["labels"]["kubernetes.io/hostname"] = json!(name);
                }
                if let Some(spec) = node["spec"].as_object_mut() {
                    spec.remove("unschedulable");
                }
                snapshot["items"].as_array_mut().unwrap().push(node);
            }
            for m in edit["movePods"].as_array().into_iter().flatten() {
                let (ns, name) = m["pod"].as_str().unwrap().split_once('/').unwrap();
                let pod = item(snapshot, "Pod", Some(ns), name);
                assert_eq!(pod["spec"]["nodeName"], m["from"]);
                pod["spec"]["nodeName"] = m["to"].clone();
            }
        }
        other => panic!("unknown edit target {other}"),
    }
}

fn sorted_strings(v: &Value) -> Vec<String> {
    let mut s: Vec<String> = v
        .as_array()
        .into_iter()
        .flatten()
        .map(|x| x.as_str().unwrap().to_string())
        .collect();
    s.sort();
    s
}

/// The remedies kplace proposes for one case under one release, each
/// applied as files and asked again. Returns how many were verified.
fn check(case: &str, version: &str, scratch: &Path) -> Result<usize, Failed> {
    let dir = corpus().join(case);
    let snapshot_path = dir.join("snapshot.yaml.gz");
    let pod_path = dir.join("pod.yaml");
    let config = dir.join("config.yaml");
    let mut common: Vec<String> = vec!["--scheduler-version".into(), version.into()];
    if config.exists() {
        common.push("--scheduler-config".into());
        common.push(config.display().to_string());
    }
    let mut args: Vec<String> = vec![
        "place".into(),
        "--snapshot".into(),
        snapshot_path.display().to_string(),
        "--pod".into(),
        pod_path.display().to_string(),
        "-o".into(),
        "json".into(),
    ];
    args.extend(common.iter().cloned());
    let refs: Vec<&str> = args.iter().map(String::as_str).collect();
    let answer = kplace(&refs)?;
    let remedies = answer["remedies"].as_array().ok_or("no remedies list")?;
    if remedies.is_empty()
        && answer["remediesNotes"]
            .as_array()
            .is_none_or(|n| n.is_empty())
    {
        return Err("neither a remedy nor a note saying why there is none".into());
    }
    let snapshot = read_yaml(&snapshot_path);
    let pod = read_yaml(&pod_path);
    std::fs::create_dir_all(scratch).unwrap();
    for (i, remedy) in remedies.iter().enumerate() {
        let (mut snap, mut p) = (snapshot.clone(), pod.clone());
        apply(&remedy["edit"], &mut snap, &mut p);
        let snap_file = scratch.join(format!("snapshot-{i}.json"));
        let pod_file = scratch.join(format!("pod-{i}.json"));
        std::fs::write(&snap_file, serde_json::to_vec(&snap).unwrap()).unwrap();
        std::fs::write(&pod_file, serde_json::to_vec(&p).unwrap()).unwrap();
        let mut again: Vec<String> = vec![
            "place".into(),
            "--snapshot".into(),
            snap_file.display().to_string(),
            "--pod".into(),
            pod_file.display().to_string(),
            "-o".into(),
            "json".into(),
            "--remedies".into(),
            "none".into(),
        ];
        again.extend(common.iter().cloned());
        let refs: Vec<&str> = again.iter().map(String::as_str).collect();
        let got = kplace(&refs)?;
        let victims = got["preemption"]["victims"].clone();
        let mismatch = got["outcome"] != remedy["outcome"]
            || got["node"] != remedy["node"]
            || (remedy["outcome"] == "preempt"
                && sorted_strings(&victims) != sorted_strings(&remedy["victims"]));
        if mismatch {
            return Err(format!(
                "remedy {} ({}) claims {} on {} evicting {}, but the edited files answer {} on {} evicting {}\n  edit: {}",
                i + 1,
                remedy["change"],
                remedy["outcome"],
                remedy["node"],
                remedy["victims"],
                got["outcome"],
                got["node"],
                victims,
                remedy["edit"]
            )
            .into());
        }
    }
    Ok(remedies.len())
}

fn main() {
    let args = Arguments::from_args();
    let scratch = tempfile::tempdir().unwrap();
    let verified = Arc::new(AtomicUsize::new(0));
    let mut names: Vec<String> = std::fs::read_dir(corpus())
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .collect();
    names.sort();
    let mut trials = Vec::new();
    for case in names {
        for version in ["v1.30", "v1.31", "v1.32", "v1.33", "v1.34"] {
            let file = corpus().join(&case).join(format!("{version}.json"));
            let Ok(text) = std::fs::read_to_string(&file) else {
                continue;
            };
            let truth: Value = serde_json::from_str(&text).unwrap();
            if !matches!(truth["outcome"].as_str(), Some("unschedulable" | "preempt")) {
                continue;
            }
            let dir = scratch.path().join(format!("{case}-{version}"));
            let (case, verified) = (case.clone(), verified.clone());
            let v = version.to_string();
            trials.push(Trial::test(format!("{case}::{version}"), move || {
                let n = check(&case, &v, &dir)?;
                verified.fetch_add(n, Ordering::Relaxed);
                Ok(())
            }));
        }
    }
    let conclusion = libtest_mimic::run(&args, trials);
    eprintln!(
        "remedies verified as files: {}",
        verified.load(Ordering::Relaxed)
    );
    // `exit` skips destructors: remove the scratch files first, or every
    // run leaves them in the temp directory.
    drop(scratch);
    conclusion.exit();
}
