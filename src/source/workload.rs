//! Workload manifests where a pod is asked about: a Deployment,
//! ReplicaSet, StatefulSet, DaemonSet, Job or CronJob (`apps/v1`,
//! `batch/v1`) becomes the pod its controller would create — the pod
//! template with the workload's namespace, a name like the controller's,
//! the controller's labels and an `ownerReference` to it — and a file with
//! many documents (`helm template`, `kustomize build`: Services,
//! ConfigMaps and the like mixed in) yields its one workload or pod.
//!
//! The controller a pod's `ownerReference` names (the ReplicaSet of a
//! Deployment, the ReplicaSet or StatefulSet itself) comes along as a
//! document, so that default topology spreading, which reads the
//! controller's selector, and a StatefulSet's ordinals and claims behave
//! as for the controller's own pods.

use serde_json::{Map, Value, json};

/// The kinds read as workloads, with their API group version.
pub const WORKLOAD_KINDS: [(&str, &str); 6] = [
    ("Deployment", "apps/v1"),
    ("ReplicaSet", "apps/v1"),
    ("StatefulSet", "apps/v1"),
    ("DaemonSet", "apps/v1"),
    ("Job", "batch/v1"),
    ("CronJob", "batch/v1"),
];

/// How many pods the workload runs.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Replicas {
    Count(u32),
    /// A DaemonSet: one pod per eligible node.
    PerNode,
}

/// The workload a pod was made from.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Workload {
    pub kind: String,
    pub namespace: String,
    pub name: String,
    pub replicas: Replicas,
    /// Which field gave the count (`spec.replicas`, `spec.parallelism`, or
    /// `the default, 1`).
    pub replicas_from: String,
}

impl Workload {
    /// `Deployment shop/web`.
    pub fn key(&self) -> String {
        format!("{} {}/{}", self.kind, self.namespace, self.name)
    }
}

/// A manifest's pod: the pod document, the ResourceClaims beside it, the
/// controller documents its `ownerReference` names, and the workload it
/// came from (none for a plain Pod).
#[derive(Clone, Debug)]
pub struct Expanded {
    pub pod: Value,
    pub claims: Vec<Value>,
    pub controllers: Vec<Value>,
    pub workload: Option<Workload>,
}

/// Why a manifest yields no single pod.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum ExpandError {
    /// No Pod and no workload in it.
    Nothing,
    /// Several, none chosen: `Kind/name (namespace)` of each.
    Several(Vec<String>),
    /// The chosen one is not there.
    NotFound { wanted: String, have: Vec<String> },
    /// An object the API server would refuse: `Kind ns/name: field: why`.
    Invalid(String),
}

impl ExpandError {
    /// The message, `choose` saying how to pick one (`--workload KIND/NAME`).
    pub fn message(&self, choose: &str) -> String {
        match self {
            ExpandError::Nothing => {
                "holds no Pod object and no workload (Deployment, ReplicaSet, StatefulSet, DaemonSet, Job, CronJob)".into()
            }
            ExpandError::Several(c) => {
                const SHOWN: usize = 8;
                let mut list = c.iter().take(SHOWN).cloned().collect::<Vec<_>>().join(", ");
                if c.len() > SHOWN {
                    list.push_str(&format!(", … and {} more", c.len() - SHOWN));
                }
                format!(
                    "holds {} pods and workloads: {list}; choose one with {choose}",
                    c.len()
                )
            }
            ExpandError::NotFound { wanted, have } => format!(
                "holds no {wanted}{}",
                if have.is_empty() {
                    String::new()
                } else {
                    format!(" (it holds {})", have.join(", "))
                }
            ),
            ExpandError::Invalid(m) => m.clone(),
        }
    }
}

fn str_at<'a>(v: &'a Value, pointer: &str) -> Option<&'a str> {
    v.pointer(pointer).and_then(Value::as_str)
}

fn kind_of(v: &Value) -> &str {
    str_at(v, "/kind").unwrap_or("")
}

fn namespace_of(v: &Value) -> String {
    str_at(v, "/metadata/namespace")
        .filter(|s| !s.is_empty())
        .unwrap_or("default")
        .to_string()
}

fn name_of(v: &Value) -> &str {
    str_at(v, "/metadata/name").unwrap_or("")
}

/// `Kind/name (namespace)`, how candidates are listed and chosen.
fn candidate(v: &Value) -> String {
    format!("{}/{} ({})", kind_of(v), name_of(v), namespace_of(v))
}

/// Short and plural names kubectl takes for each kind.
fn kind_matches(kind: &str, wanted: &str) -> bool {
    let w = wanted.to_ascii_lowercase();
    let k = kind.to_ascii_lowercase();
    let short: &[&str] = match kind {
        "Pod" => &["po"],
        "Deployment" => &["deploy"],
        "ReplicaSet" => &["rs"],
        "StatefulSet" => &["sts"],
        "DaemonSet" => &["ds"],
        "CronJob" => &["cj"],
        _ => &[],
    };
    w == k || w == format!("{k}s") || short.contains(&w.as_str())
}

/// Whether `v` is what `select` (`KIND/NAME` or `NAME`) names.
fn selected(v: &Value, select: &str) -> bool {
    match select.split_once('/') {
        Some((kind, name)) => kind_matches(kind_of(v), kind) && name_of(v) == name,
        None => name_of(v) == select,
    }
}

/// The pod of a manifest's documents (`null`s skipped, `List`s opened),
/// `select` choosing among several pods and workloads.
pub fn expand(docs: Vec<Value>, select: Option<&str>) -> Result<Expanded, ExpandError> {
    let mut objects = Vec::new();
    for d in docs {
        match d {
            Value::Null => {}
            Value::Object(ref m)
                if kind_of(&d).ends_with("List") && m.get("items").is_some_and(Value::is_array) =>
            {
                if let Some(Value::Array(items)) = d.get("items") {
                    objects.extend(items.iter().cloned());
                }
            }
            d => objects.push(d),
        }
    }
    let mut claims = Vec::new();
    let mut candidates = Vec::new();
    // Services and ReplicationControllers beside the pod select pods for
    // default spreading (`helper.DefaultSelector`) as in the cluster.
    let mut selectors = Vec::new();
    for o in objects {
        match kind_of(&o) {
            "ResourceClaim" => claims.push(o),
            "Service" | "ReplicationController" => selectors.push(o),
            "Pod" => candidates.push(o),
            k if WORKLOAD_KINDS.iter().any(|(w, _)| *w == k) => candidates.push(o),
            _ => {}
        }
    }
    let chosen = match select {
        Some(s) => {
            let mut matching: Vec<Value> = candidates
                .iter()
                .filter(|c| selected(c, s))
                .cloned()
                .collect();
            match matching.len() {
                1 => matching.pop().expect("one"),
                0 => {
                    return Err(ExpandError::NotFound {
                        wanted: s.to_string(),
                        have: candidates.iter().map(candidate).collect(),
                    });
                }
                _ => {
                    return Err(ExpandError::Several(
                        matching.iter().map(candidate).collect(),
                    ));
                }
            }
        }
        None => match candidates.len() {
            0 => return Err(ExpandError::Nothing),
            1 => candidates.pop().expect("one"),
            _ => {
                return Err(ExpandError::Several(
                    candidates.iter().map(candidate).collect(),
                ));
            }
        },
    };
    // Without a namespace of their own they go where the pod goes, as
    // `kubectl apply -n NS` of `helm template` output would put them.
    let namespace = namespace_of(&chosen);
    for o in &mut selectors {
        if str_at(o, "/metadata/namespace").is_none_or(str::is_empty) && o["metadata"].is_object() {
            o["metadata"]["namespace"] = json!(namespace);
        }
    }
    if kind_of(&chosen) == "Pod" {
        return Ok(Expanded {
            pod: chosen,
            claims,
            controllers: selectors,
            workload: None,
        });
    }
    let (pod, mut controllers, workload) = pod_of_workload(&chosen)?;
    controllers.extend(selectors);
    Ok(Expanded {
        pod,
        claims,
        controllers,
        workload: Some(workload),
    })
}

/// FNV-1a, 32 bits: the hash the controllers use for template hashes.
fn fnv32a(bytes: &[u8]) -> u32 {
    let mut h: u32 = 0x811c_9dc5;
    for b in bytes {
        h ^= u32::from(*b);
        h = h.wrapping_mul(0x0100_0193);
    }
    h
}

/// `rand.SafeEncodeString`: the alphabet names and hashes are made of
/// (no vowels, no look-alike digits).
use crate::engine::replicas::{NAME_ALPHABET as SAFE, name_suffix};

fn safe_encode(s: &str) -> String {
    s.bytes()
        .map(|b| SAFE[usize::from(b) % SAFE.len()] as char)
        .collect()
}

/// The template hash: FNV-1a of the template's JSON, safe-encoded as the
/// controllers encode theirs (the value differs from the cluster's, which
/// hashes Go's in-memory form; only its shape matters here).
fn template_hash(template: &Value) -> String {
    safe_encode(&fnv32a(template.to_string().as_bytes()).to_string())
}

fn owner_ref(api_version: &str, kind: &str, name: &str, uid: &str) -> Value {
    json!({
        "apiVersion": api_version,
        "kind": kind,
        "name": name,
        "uid": uid,
        "controller": true,
        "blockOwnerDeletion": true,
    })
}

/// `Kind ns/name: field: why`.
fn invalid(w: &Value, field: &str, why: &str) -> ExpandError {
    ExpandError::Invalid(format!(
        "{} {}/{}: {field}: {why}",
        kind_of(w),
        namespace_of(w),
        name_of(w)
    ))
}

/// `spec.replicas` (or another count) with its API default of 1.
fn count(w: &Value, pointer: &str, field: &str) -> Result<(u32, String), ExpandError> {
    match w.pointer(pointer) {
        None | Some(Value::Null) => Ok((1, "the default, 1".into())),
        Some(v) => match v.as_u64().and_then(|n| u32::try_from(n).ok()) {
            Some(n) => Ok((n, field.to_string())),
            None => Err(invalid(
                w,
                field,
                &format!("Invalid value: {v}: must be greater than or equal to 0"),
            )),
        },
    }
}

/// The controller's pod for a workload, the controller documents its
/// `ownerReference` names, and what the workload is.
fn pod_of_workload(w: &Value) -> Result<(Value, Vec<Value>, Workload), ExpandError> {
    let kind = kind_of(w).to_string();
    let (_, api_version) = WORKLOAD_KINDS
        .iter()
        .find(|(k, _)| *k == kind)
        .expect("a workload kind");
    let have = str_at(w, "/apiVersion").unwrap_or("");
    if have != *api_version {
        return Err(invalid(
            w,
            "apiVersion",
            &format!("Unsupported value: {have:?}: supported values: \"{api_version}\""),
        ));
    }
    let name = name_of(w).to_string();
    if name.is_empty() {
        return Err(invalid(
            w,
            "metadata.name",
            "Required value: name or generateName is required",
        ));
    }
    let namespace = namespace_of(w);
    let (template_ptr, template_field) = if kind == "CronJob" {
        (
            "/spec/jobTemplate/spec/template",
            "spec.jobTemplate.spec.template",
        )
    } else {
        ("/spec/template", "spec.template")
    };
    let Some(template) = w.pointer(template_ptr).filter(|t| t.is_object()) else {
        return Err(invalid(w, template_field, "Required value"));
    };
    let Some(spec) = template.get("spec").filter(|s| s.is_object()) else {
        return Err(invalid(
            w,
            &format!("{template_field}.spec"),
            "Required value",
        ));
    };
    let mut labels: Map<String, Value> = template
        .pointer("/metadata/labels")
        .and_then(Value::as_object)
        .cloned()
        .unwrap_or_default();
    // The selector must select the template's pods (apps/v1 validation).
    if matches!(
        kind.as_str(),
        "Deployment" | "ReplicaSet" | "StatefulSet" | "DaemonSet"
    ) {
        let Some(selector) = w.pointer("/spec/selector").filter(|s| s.is_object()) else {
            return Err(invalid(w, "spec.selector", "Required value"));
        };
        if let Some(ml) = selector.get("matchLabels").and_then(Value::as_object) {
            for (k, v) in ml {
                if labels.get(k) != Some(v) {
                    return Err(invalid(
                        w,
                        &format!("{template_field}.metadata.labels"),
                        &format!(
                            "Invalid value: {}: `selector` does not match template `labels`",
                            Value::Object(labels.clone())
                        ),
                    ));
                }
            }
        }
    }
    let hash = template_hash(template);
    let uid = |what: &str| {
        format!(
            "kplace-{}",
            name_suffix(&format!("{what}/{namespace}/{name}"))
        )
    };
    let mut spec = spec.clone();
    let mut controllers = Vec::new();
    let (pod_name, owner, replicas, replicas_from) = match kind.as_str() {
        "Deployment" => {
            let rs = format!("{name}-{hash}");
            labels.insert("pod-template-hash".into(), json!(hash));
            let (n, from) = count(w, "/spec/replicas", "spec.replicas")?;
            let mut selector = w.pointer("/spec/selector").cloned().unwrap_or(json!({}));
            selector["matchLabels"]["pod-template-hash"] = json!(hash);
            let mut rs_template = template.clone();
            rs_template["metadata"]["labels"] = Value::Object(labels.clone());
            controllers.push(json!({
                "apiVersion": "apps/v1",
                "kind": "ReplicaSet",
                "metadata": {
                    "name": rs,
                    "namespace": namespace,
                    "uid": uid("ReplicaSet"),
                    "labels": labels.clone(),
                    "ownerReferences": [owner_ref("apps/v1", "Deployment", &name, &uid("Deployment"))],
                },
                "spec": {"replicas": n, "selector": selector, "template": rs_template},
            }));
            let pod = format!("{rs}-{}", name_suffix(&rs));
            (
                pod,
                owner_ref("apps/v1", "ReplicaSet", &rs, &uid("ReplicaSet")),
                Replicas::Count(n),
                from,
            )
        }
        "ReplicaSet" => {
            let (n, from) = count(w, "/spec/replicas", "spec.replicas")?;
            let mut rs = w.clone();
            rs["metadata"]["namespace"] = json!(namespace);
            controllers.push(rs);
            let pod = format!("{name}-{}", name_suffix(&format!("{name}{hash}")));
            (
                pod,
                owner_ref("apps/v1", "ReplicaSet", &name, &uid("ReplicaSet")),
                Replicas::Count(n),
                from,
            )
        }
        "StatefulSet" => {
            let (n, from) = count(w, "/spec/replicas", "spec.replicas")?;
            let start = w
                .pointer("/spec/ordinals/start")
                .and_then(Value::as_i64)
                .unwrap_or(0);
            let pod = format!("{name}-{start}");
            labels.insert("statefulset.kubernetes.io/pod-name".into(), json!(pod));
            labels.insert(
                "apps.kubernetes.io/pod-index".into(),
                json!(start.to_string()),
            );
            labels.insert(
                "controller-revision-hash".into(),
                json!(format!("{name}-{hash}")),
            );
            // `updateStorage`: one claim volume per volumeClaimTemplate.
            let templates: Vec<String> = w
                .pointer("/spec/volumeClaimTemplates")
                .and_then(Value::as_array)
                .map(|ts| ts.iter().map(|t| name_of(t).to_string()).collect())
                .unwrap_or_default();
            if !templates.is_empty() {
                let mut volumes: Vec<Value> = templates
                    .iter()
                    .map(|t| json!({"name": t, "persistentVolumeClaim": {"claimName": format!("{t}-{pod}")}}))
                    .collect();
                if let Some(Value::Array(own)) = spec.get("volumes") {
                    volumes.extend(
                        own.iter()
                            .filter(|v| !templates.iter().any(|t| name_of_volume(v) == t))
                            .cloned(),
                    );
                }
                spec["volumes"] = Value::Array(volumes);
            }
            let mut set = w.clone();
            set["metadata"]["namespace"] = json!(namespace);
            controllers.push(set);
            (
                pod,
                owner_ref("apps/v1", "StatefulSet", &name, &uid("StatefulSet")),
                Replicas::Count(n),
                from,
            )
        }
        "DaemonSet" => {
            labels.insert("controller-revision-hash".into(), json!(hash));
            add_daemon_tolerations(&mut spec);
            let pod = format!("{name}-{}", name_suffix(&format!("{name}{hash}")));
            (
                pod,
                owner_ref("apps/v1", "DaemonSet", &name, &uid("DaemonSet")),
                Replicas::PerNode,
                "one pod per eligible node".to_string(),
            )
        }
        "Job" | "CronJob" => {
            let (job, job_spec) = if kind == "CronJob" {
                // The Job a run creates: `<cronjob>-<scheduled minute>`.
                let minute = fnv32a(name.as_bytes()) % 100_000_000;
                (format!("{name}-{minute}"), "/spec/jobTemplate/spec")
            } else {
                (name.clone(), "/spec")
            };
            let field = if kind == "CronJob" {
                "spec.jobTemplate.spec.parallelism"
            } else {
                "spec.parallelism"
            };
            let (mut n, mut from) = count(w, &format!("{job_spec}/parallelism"), field)?;
            // No more pods than completions left.
            if let Some(c) = w
                .pointer(&format!("{job_spec}/completions"))
                .and_then(Value::as_u64)
                .and_then(|c| u32::try_from(c).ok())
                && c < n
            {
                n = c;
                from = format!("{field}, capped by completions");
            }
            let job_uid = uid("Job");
            labels.insert("batch.kubernetes.io/controller-uid".into(), json!(job_uid));
            labels.insert("batch.kubernetes.io/job-name".into(), json!(job));
            labels.insert("controller-uid".into(), json!(job_uid));
            labels.insert("job-name".into(), json!(job));
            let pod = format!("{job}-{}", name_suffix(&format!("{job}{hash}")));
            (
                pod,
                owner_ref("batch/v1", "Job", &job, &job_uid),
                Replicas::Count(n),
                from,
            )
        }
        _ => unreachable!("WORKLOAD_KINDS"),
    };
    let mut metadata = json!({
        "name": pod_name,
        "namespace": namespace,
        "labels": labels,
        "ownerReferences": [owner],
    });
    if let Some(a) = template
        .pointer("/metadata/annotations")
        .filter(|a| a.is_object())
    {
        metadata["annotations"] = a.clone();
    }
    let pod = json!({
        "apiVersion": "v1",
        "kind": "Pod",
        "metadata": metadata,
        "spec": spec,
    });
    let workload = Workload {
        kind,
        namespace,
        name,
        replicas,
        replicas_from,
    };
    Ok((pod, controllers, workload))
}

fn name_of_volume(v: &Value) -> &str {
    str_at(v, "/name").unwrap_or("")
}

/// `AddOrUpdateDaemonPodTolerations`: the tolerations the DaemonSet
/// controller gives every daemon pod, unless the template has them.
fn add_daemon_tolerations(spec: &mut Value) {
    let mut wanted = vec![
        ("node.kubernetes.io/not-ready", "NoExecute"),
        ("node.kubernetes.io/unreachable", "NoExecute"),
        ("node.kubernetes.io/disk-pressure", "NoSchedule"),
        ("node.kubernetes.io/memory-pressure", "NoSchedule"),
        ("node.kubernetes.io/pid-pressure", "NoSchedule"),
        ("node.kubernetes.io/unschedulable", "NoSchedule"),
    ];
    if spec.get("hostNetwork").and_then(Value::as_bool) == Some(true) {
        wanted.push(("node.kubernetes.io/network-unavailable", "NoSchedule"));
    }
    let mut tolerations = spec
        .get("tolerations")
        .and_then(Value::as_array)
        .cloned()
        .unwrap_or_default();
    // `AddOrUpdateTolerationInPodSpec`: a toleration with the same key,
    // effect, operator and value is replaced (a `tolerationSeconds` goes);
    // otherwise the new one is appended.
    for (key, effect) in wanted {
        let wanted = json!({"key": key, "operator": "Exists", "effect": effect});
        let same = |t: &Value| {
            str_at(t, "/key").unwrap_or("") == key
                && str_at(t, "/effect").unwrap_or("") == effect
                && str_at(t, "/operator").unwrap_or("") == "Exists"
                && str_at(t, "/value").unwrap_or("").is_empty()
        };
        if tolerations.iter().any(|t| same(t) && *t == wanted) {
            continue;
        }
        let mut updated = false;
        for t in tolerations.iter_mut().filter(|t| same(t)) {
            *t = wanted.clone();
            updated = true;
        }
        if !updated {
            tolerations.push(wanted);
        }
    }
    spec["tolerations"] = Value::Array(tolerations);
}

#[cfg(test)]
mod tests {
    use super::*;

    fn docs(yaml: &str) -> Vec<Value> {
        serde_saphyr::from_multiple(yaml).unwrap()
    }

    const DEPLOYMENT: &str = "apiVersion: apps/v1\nkind: Deployment\nmetadata: {name: web, namespace: shop}\nspec:\n  replicas: 3\n  selector: {matchLabels: {app: web}}\n  template:\n    metadata: {labels: {app: web}}\n    spec:\n      containers: [{name: a, image: nginx}]\n";

    #[test]
    fn a_deployment_becomes_its_replica_sets_pod() {
        let e = expand(docs(DEPLOYMENT), None).unwrap();
        let w = e.workload.unwrap();
        assert_eq!(w.key(), "Deployment shop/web");
        assert_eq!(w.replicas, Replicas::Count(3));
        assert_eq!(e.pod["metadata"]["namespace"], "shop");
        let hash = e.pod["metadata"]["labels"]["pod-template-hash"]
            .as_str()
            .unwrap();
        let rs = format!("web-{hash}");
        assert_eq!(
            e.pod["metadata"]["ownerReferences"][0]["kind"],
            "ReplicaSet"
        );
        assert_eq!(e.pod["metadata"]["ownerReferences"][0]["name"], json!(rs));
        let name = e.pod["metadata"]["name"].as_str().unwrap();
        assert!(
            name.starts_with(&format!("{rs}-")) && name.len() == rs.len() + 6,
            "{name}"
        );
        assert_eq!(e.controllers.len(), 1);
        assert_eq!(e.controllers[0]["metadata"]["name"], json!(rs));
        assert_eq!(
            e.controllers[0]["spec"]["selector"]["matchLabels"],
            json!({"app": "web", "pod-template-hash": hash})
        );
        // The same manifest, the same name.
        let again = expand(docs(DEPLOYMENT), None).unwrap();
        assert_eq!(again.pod, e.pod);
    }

    #[test]
    fn several_candidates_are_named_and_one_can_be_chosen() {
        let text = format!(
            "apiVersion: v1\nkind: Service\nmetadata: {{name: web}}\n---\n{DEPLOYMENT}---\napiVersion: batch/v1\nkind: Job\nmetadata: {{name: migrate, namespace: shop}}\nspec:\n  parallelism: 4\n  completions: 2\n  template:\n    spec: {{containers: [{{name: a}}], restartPolicy: Never}}\n"
        );
        let err = expand(docs(&text), None).unwrap_err();
        assert_eq!(
            err,
            ExpandError::Several(vec![
                "Deployment/web (shop)".into(),
                "Job/migrate (shop)".into()
            ])
        );
        assert!(
            err.message("--workload KIND/NAME")
                .contains("choose one with --workload KIND/NAME")
        );
        let job = expand(docs(&text), Some("job/migrate")).unwrap();
        // The Service comes along, in the chosen workload's namespace.
        assert_eq!(job.controllers.len(), 1);
        assert_eq!(job.controllers[0]["kind"], "Service");
        assert_eq!(job.controllers[0]["metadata"]["namespace"], "shop");
        let w = job.workload.unwrap();
        assert_eq!(
            w.replicas,
            Replicas::Count(2),
            "parallelism capped by completions"
        );
        assert_eq!(job.pod["metadata"]["labels"]["job-name"], "migrate");
        assert_eq!(job.pod["metadata"]["ownerReferences"][0]["kind"], "Job");
        let deploy = expand(docs(&text), Some("deploy/web")).unwrap();
        assert_eq!(deploy.workload.unwrap().kind, "Deployment");
        let err = expand(docs(&text), Some("sts/web")).unwrap_err();
        assert!(matches!(err, ExpandError::NotFound { .. }), "{err:?}");
    }

    #[test]
    fn a_statefulset_pod_takes_the_first_ordinal_and_its_claims() {
        let text = "apiVersion: apps/v1\nkind: StatefulSet\nmetadata: {name: db}\nspec:\n  selector: {matchLabels: {app: db}}\n  volumeClaimTemplates:\n  - metadata: {name: data}\n    spec: {accessModes: [ReadWriteOnce], resources: {requests: {storage: 1Gi}}}\n  template:\n    metadata: {labels: {app: db}}\n    spec: {containers: [{name: a}]}\n";
        let e = expand(docs(text), None).unwrap();
        assert_eq!(e.pod["metadata"]["name"], "db-0");
        assert_eq!(e.pod["metadata"]["namespace"], "default");
        assert_eq!(e.workload.unwrap().replicas, Replicas::Count(1));
        assert_eq!(
            e.pod["spec"]["volumes"],
            json!([{"name": "data", "persistentVolumeClaim": {"claimName": "data-db-0"}}])
        );
        assert_eq!(
            e.pod["metadata"]["labels"]["statefulset.kubernetes.io/pod-name"],
            "db-0"
        );
        assert_eq!(e.controllers[0]["kind"], "StatefulSet");
    }

    #[test]
    fn a_daemonset_pod_tolerates_what_the_controller_adds() {
        let text = "apiVersion: apps/v1\nkind: DaemonSet\nmetadata: {name: agent, namespace: kube-system}\nspec:\n  selector: {matchLabels: {app: agent}}\n  template:\n    metadata: {labels: {app: agent}}\n    spec: {containers: [{name: a}]}\n";
        let e = expand(docs(text), None).unwrap();
        assert_eq!(e.workload.unwrap().replicas, Replicas::PerNode);
        let tol = e.pod["spec"]["tolerations"].as_array().unwrap();
        assert_eq!(tol.len(), 6);
        assert!(
            tol.iter()
                .any(|t| t["key"] == "node.kubernetes.io/unschedulable")
        );
        // A template's own not-ready toleration with tolerationSeconds is
        // replaced by the controller's (no seconds), not kept beside it.
        let own = text.replace(
            "spec: {containers: [{name: a}]}",
            "spec: {containers: [{name: a}], tolerations: [{key: node.kubernetes.io/not-ready, operator: Exists, effect: NoExecute, tolerationSeconds: 300}, {key: node.kubernetes.io/unreachable, effect: NoExecute}]}",
        );
        let e = expand(docs(&own), None).unwrap();
        let tol = e.pod["spec"]["tolerations"].as_array().unwrap();
        let not_ready: Vec<&Value> = tol
            .iter()
            .filter(|t| t["key"] == "node.kubernetes.io/not-ready")
            .collect();
        assert_eq!(
            not_ready,
            [
                &json!({"key": "node.kubernetes.io/not-ready", "operator": "Exists", "effect": "NoExecute"})
            ]
        );
        // Without `operator: Exists` it is another toleration: both stay.
        assert_eq!(
            tol.iter()
                .filter(|t| t["key"] == "node.kubernetes.io/unreachable")
                .count(),
            2
        );
        assert_eq!(tol.len(), 7);
    }

    #[test]
    fn bad_workloads_are_named_with_their_field() {
        let no_template = "apiVersion: apps/v1\nkind: Deployment\nmetadata: {name: web}\nspec: {selector: {matchLabels: {app: web}}}\n";
        assert_eq!(
            expand(docs(no_template), None).unwrap_err().message(""),
            "Deployment default/web: spec.template: Required value"
        );
        let old = DEPLOYMENT.replace("apps/v1", "extensions/v1beta1");
        assert!(expand(docs(&old), None).unwrap_err().message("").contains(
            "Deployment shop/web: apiVersion: Unsupported value: \"extensions/v1beta1\""
        ));
        let mismatch = DEPLOYMENT.replace("labels: {app: web}", "labels: {app: api}");
        assert!(
            expand(docs(&mismatch), None)
                .unwrap_err()
                .message("")
                .contains("spec.template.metadata.labels: Invalid value")
        );
        assert_eq!(
            expand(
                docs("apiVersion: v1\nkind: Service\nmetadata: {name: x}\n"),
                None
            )
            .unwrap_err(),
            ExpandError::Nothing
        );
    }
}
