//! A loopback fake Kubernetes API server for live-mode tests: plain HTTP on
//! 127.0.0.1 and an ephemeral port, speaking the list and watch protocol
//! with real JSON objects. It can drop watch connections, answer a watch with
//! `410 Gone`, refuse a resource with 403, reject the token with 401, and go
//! away. `/version` reports a configurable `gitVersion` (or 404). Only GET is served: anything else is answered 405 and remembered,
//! so tests can prove the client is read-only.

#![allow(dead_code)]

use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex};
use std::time::Duration;

use serde_json::{Value, json};
use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio::net::{TcpListener, TcpStream};
use tokio::sync::watch;

pub const TOKEN: &str = "kplace-test-token";

/// `(list path, kind, apiVersion)` of every resource served.
const RESOURCES: [(&str, &str, &str); 17] = [
    ("/api/v1/nodes", "Node", "v1"),
    ("/api/v1/pods", "Pod", "v1"),
    ("/api/v1/services", "Service", "v1"),
    (
        "/api/v1/replicationcontrollers",
        "ReplicationController",
        "v1",
    ),
    ("/api/v1/namespaces", "Namespace", "v1"),
    (
        "/apis/policy/v1/poddisruptionbudgets",
        "PodDisruptionBudget",
        "policy/v1",
    ),
    (
        "/apis/scheduling.k8s.io/v1/priorityclasses",
        "PriorityClass",
        "scheduling.k8s.io/v1",
    ),
    ("/apis/apps/v1/replicasets", "ReplicaSet", "apps/v1"),
    ("/apis/apps/v1/statefulsets", "StatefulSet", "apps/v1"),
    (
        "/apis/storage.k8s.io/v1/storageclasses",
        "StorageClass",
        "storage.k8s.io/v1",
    ),
    ("/api/v1/persistentvolumes", "PersistentVolume", "v1"),
    (
        "/api/v1/persistentvolumeclaims",
        "PersistentVolumeClaim",
        "v1",
    ),
    (
        "/apis/storage.k8s.io/v1/csinodes",
        "CSINode",
        "storage.k8s.io/v1",
    ),
    (
        "/apis/resource.k8s.io/v1/deviceclasses",
        "DeviceClass",
        "resource.k8s.io/v1",
    ),
    (
        "/apis/resource.k8s.io/v1/resourceslices",
        "ResourceSlice",
        "resource.k8s.io/v1",
    ),
    (
        "/apis/resource.k8s.io/v1/resourceclaims",
        "ResourceClaim",
        "resource.k8s.io/v1",
    ),
    (
        "/apis/resource.k8s.io/v1/resourceclaimtemplates",
        "ResourceClaimTemplate",
        "resource.k8s.io/v1",
    ),
];

fn resource_of_kind(kind: &str) -> Option<&'static str> {
    RESOURCES.iter().find(|r| r.1 == kind).map(|r| r.0)
}

fn key_of(obj: &Value) -> String {
    let ns = obj["metadata"]["namespace"].as_str().unwrap_or("");
    let name = obj["metadata"]["name"].as_str().unwrap_or("");
    if ns.is_empty() {
        name.to_string()
    } else {
        format!("{ns}/{name}")
    }
}

#[derive(Default)]
struct State {
    rv: u64,
    /// Per list path, objects by `namespace/name` (API list order).
    objects: BTreeMap<&'static str, BTreeMap<String, Value>>,
    /// Every change: (resourceVersion, list path, type, object).
    log: Vec<(u64, &'static str, &'static str, Value)>,
    forbidden: BTreeSet<&'static str>,
    /// Lists (not watches) of these never answer.
    hanging: BTreeSet<&'static str>,
    /// Watches from a resourceVersion older than this get 410 Gone.
    compacted: u64,
    token_ok: bool,
    requests: Vec<String>,
    open_watches: usize,
    /// `/version`'s `gitVersion`; `None` answers 404.
    version: Option<String>,
}

/// What the fake's `/version` reports unless a test says otherwise.
pub const DEFAULT_GIT_VERSION: &str = "v1.33.4";

pub struct FakeServer {
    rt: Option<tokio::runtime::Runtime>,
    state: Arc<Mutex<State>>,
    /// Bumped on every change (wakes watches); the flag drops them.
    notify: watch::Sender<(u64, u64)>,
    port: u16,
}

impl FakeServer {
    pub fn start(objects: Vec<Value>) -> FakeServer {
        let rt = tokio::runtime::Builder::new_multi_thread()
            .worker_threads(1)
            .enable_all()
            .build()
            .expect("runtime");
        let listener = rt
            .block_on(TcpListener::bind("127.0.0.1:0"))
            .expect("bind 127.0.0.1");
        let port = listener.local_addr().unwrap().port();
        let state = Arc::new(Mutex::new(State {
            token_ok: true,
            version: Some(DEFAULT_GIT_VERSION.to_string()),
            ..Default::default()
        }));
        let (notify, _) = watch::channel((0u64, 0u64));
        let server = FakeServer {
            rt: Some(rt),
            state: state.clone(),
            notify,
            port,
        };
        for o in objects {
            server.put(o, false);
        }
        let notify = server.notify.clone();
        server.rt.as_ref().unwrap().spawn(async move {
            loop {
                let Ok((socket, _)) = listener.accept().await else {
                    return;
                };
                let state = state.clone();
                let rx = notify.subscribe();
                tokio::spawn(async move {
                    let _ = serve(socket, state, rx).await;
                });
            }
        });
        server
    }

    /// What `/version` reports as `gitVersion` (`None`: it answers 404).
    pub fn set_version(&self, git_version: Option<&str>) {
        self.state.lock().unwrap().version = git_version.map(str::to_string);
    }

    pub fn port(&self) -> u16 {
        self.port
    }

    pub fn url(&self) -> String {
        format!("http://127.0.0.1:{}", self.port)
    }

    /// Writes a kubeconfig pointing at this server with a bearer token.
    pub fn kubeconfig(&self, dir: &Path) -> PathBuf {
        let path = dir.join("kubeconfig");
        let text = format!(
            "apiVersion: v1\nkind: Config\ncurrent-context: fake\nclusters:\n- name: fake\n  cluster:\n    server: {}\ncontexts:\n- name: fake\n  context:\n    cluster: fake\n    user: tester\nusers:\n- name: tester\n  user:\n    token: {TOKEN}\n",
            self.url()
        );
        std::fs::write(&path, text).unwrap();
        path
    }

    /// Adds or replaces an object (ADDED or MODIFIED), stamping its resourceVersion.
    pub fn apply(&self, obj: Value) -> u64 {
        self.put(obj, true)
    }

    fn put(&self, mut obj: Value, log: bool) -> u64 {
        let kind = obj["kind"].as_str().unwrap_or("").to_string();
        let Some(path) = resource_of_kind(&kind) else {
            return 0;
        };
        let mut st = self.state.lock().unwrap();
        st.rv += 1;
        let rv = st.rv;
        obj["metadata"]["resourceVersion"] = json!(rv.to_string());
        let key = key_of(&obj);
        let map = st.objects.entry(path).or_default();
        let kind = if map.insert(key, obj.clone()).is_some() {
            "MODIFIED"
        } else {
            "ADDED"
        };
        if log {
            st.log.push((rv, path, kind, obj));
        }
        drop(st);
        self.wake();
        rv
    }

    pub fn delete(&self, kind: &str, namespace: Option<&str>, name: &str) {
        let path = resource_of_kind(kind).expect("known kind");
        let key = match namespace {
            Some(ns) => format!("{ns}/{name}"),
            None => name.to_string(),
        };
        let mut st = self.state.lock().unwrap();
        st.rv += 1;
        let rv = st.rv;
        if let Some(mut obj) = st.objects.entry(path).or_default().remove(&key) {
            obj["metadata"]["resourceVersion"] = json!(rv.to_string());
            st.log.push((rv, path, "DELETED", obj));
        }
        drop(st);
        self.wake();
    }

    pub fn get(&self, kind: &str, key: &str) -> Option<Value> {
        let path = resource_of_kind(kind)?;
        let st = self.state.lock().unwrap();
        st.objects.get(path).and_then(|m| m.get(key)).cloned()
    }

    /// Answers list and watch of this kind with 403 Forbidden.
    pub fn forbid(&self, kind: &str) {
        let path = resource_of_kind(kind).expect("known kind");
        self.state.lock().unwrap().forbidden.insert(path);
    }

    /// Serves this kind again after [`FakeServer::forbid`].
    pub fn allow(&self, kind: &str) {
        let path = resource_of_kind(kind).expect("known kind");
        self.state.lock().unwrap().forbidden.remove(path);
    }

    /// Lists of this kind are accepted and never answered (watches still are).
    pub fn hang_lists(&self, kind: &str) {
        let path = resource_of_kind(kind).expect("known kind");
        self.state.lock().unwrap().hanging.insert(path);
    }

    /// Lists of this kind answer again.
    pub fn answer_lists(&self, kind: &str) {
        let path = resource_of_kind(kind).expect("known kind");
        self.state.lock().unwrap().hanging.remove(path);
    }

    /// Sends watchers of this kind an event whose object cannot be read
    /// (its `metadata` is a number).
    pub fn send_malformed(&self, kind: &str) {
        let path = resource_of_kind(kind).expect("known kind");
        let mut st = self.state.lock().unwrap();
        st.rv += 1;
        let rv = st.rv;
        let obj = json!({"kind": kind, "apiVersion": "v1", "metadata": 42});
        st.log.push((rv, path, "MODIFIED", obj));
        drop(st);
        self.wake();
    }

    /// Makes the token invalid: every request gets 401.
    pub fn reject_token(&self) {
        self.state.lock().unwrap().token_ok = false;
    }

    /// Ends every open watch (cleanly, as the API server's timeout does).
    pub fn drop_watches(&self) {
        self.notify.send_modify(|(_, drops)| *drops += 1);
    }

    /// Forgets history: watches resuming from before now get 410 Gone.
    pub fn compact(&self) {
        let mut st = self.state.lock().unwrap();
        st.compacted = st.rv + 1;
    }

    pub fn open_watches(&self) -> usize {
        self.state.lock().unwrap().open_watches
    }

    /// `METHOD path?query` of every request served so far.
    pub fn requests(&self) -> Vec<String> {
        self.state.lock().unwrap().requests.clone()
    }

    /// Every object as one kubectl-style `v1` `List`, in list order.
    pub fn list_json(&self) -> Value {
        let st = self.state.lock().unwrap();
        let items: Vec<Value> = RESOURCES
            .iter()
            .flat_map(|r| {
                st.objects
                    .get(r.0)
                    .into_iter()
                    .flat_map(|m| m.values().cloned())
            })
            .collect();
        json!({"apiVersion": "v1", "kind": "List", "metadata": {}, "items": items})
    }

    /// Stops serving: the listener closes and open connections drop.
    pub fn stop(&mut self) {
        if let Some(rt) = self.rt.take() {
            rt.shutdown_timeout(Duration::from_secs(1));
        }
    }

    fn wake(&self) {
        self.notify.send_modify(|(changes, _)| *changes += 1);
    }
}

impl Drop for FakeServer {
    fn drop(&mut self) {
        self.stop();
    }
}

struct Request {
    method: String,
    path: String,
    query: BTreeMap<String, String>,
    authorization: Option<String>,
}

async fn read_request(socket: &mut TcpStream) -> std::io::Result<Option<Request>> {
    let mut buf = Vec::new();
    let mut chunk = [0u8; 4096];
    while !buf.windows(4).any(|w| w == b"\r\n\r\n") {
        let n = tokio::time::timeout(Duration::from_secs(5), socket.read(&mut chunk))
            .await
            .map_err(|_| std::io::Error::other("request timeout"))??;
        if n == 0 || buf.len() > 1 << 20 {
            return Ok(None);
        }
        buf.extend_from_slice(&chunk[..n]);
    }
    let text = String::from_utf8_lossy(&buf);
    let mut lines = text.split("\r\n");
    let first = lines.next().unwrap_or("");
    let mut parts = first.split(' ');
    let method = parts.next().unwrap_or("").to_string();
    let target = parts.next().unwrap_or("").to_string();
    let (path, query) = target.split_once('?').unwrap_or((&target, ""));
    let query = query
        .split('&')
        .filter_map(|kv| kv.split_once('='))
        .map(|(k, v)| (k.to_string(), v.to_string()))
        .collect();
    let authorization = lines
        .filter_map(|l| l.split_once(':'))
        .find(|(k, _)| k.eq_ignore_ascii_case("authorization"))
        .map(|(_, v)| v.trim().to_string());
    Ok(Some(Request {
        method,
        path: path.to_string(),
        query,
        authorization,
    }))
}

fn status_json(code: u16, reason: &str, message: &str) -> Value {
    json!({"kind": "Status", "apiVersion": "v1", "metadata": {}, "status": "Failure",
           "message": message, "reason": reason, "code": code})
}

async fn respond(socket: &mut TcpStream, code: u16, body: &Value) -> std::io::Result<()> {
    let body = body.to_string();
    let head = format!(
        "HTTP/1.1 {code} X\r\nContent-Type: application/json\r\nContent-Length: {}\r\nConnection: close\r\n\r\n",
        body.len()
    );
    socket.write_all(head.as_bytes()).await?;
    socket.write_all(body.as_bytes()).await?;
    socket.flush().await
}

async fn chunk(socket: &mut TcpStream, line: &Value) -> std::io::Result<()> {
    let data = format!("{line}\n");
    socket
        .write_all(format!("{:x}\r\n{data}\r\n", data.len()).as_bytes())
        .await
}

async fn serve(
    mut socket: TcpStream,
    state: Arc<Mutex<State>>,
    mut rx: watch::Receiver<(u64, u64)>,
) -> std::io::Result<()> {
    let Some(req) = read_request(&mut socket).await? else {
        return Ok(());
    };
    let (forbidden, hanging, token_ok, version) = {
        let mut st = state.lock().unwrap();
        let q: Vec<String> = req.query.iter().map(|(k, v)| format!("{k}={v}")).collect();
        st.requests
            .push(format!("{} {}?{}", req.method, req.path, q.join("&")));
        (
            st.forbidden.clone(),
            st.hanging.clone(),
            st.token_ok,
            st.version.clone(),
        )
    };
    if req.method != "GET" {
        return respond(
            &mut socket,
            405,
            &status_json(405, "MethodNotAllowed", "read-only fake"),
        )
        .await;
    }
    if !token_ok || req.authorization.as_deref() != Some(&format!("Bearer {TOKEN}")) {
        return respond(
            &mut socket,
            401,
            &status_json(401, "Unauthorized", "Unauthorized"),
        )
        .await;
    }
    if req.path == "/version" {
        let Some(git) = version else {
            return respond(
                &mut socket,
                404,
                &status_json(
                    404,
                    "NotFound",
                    "the server could not find the requested resource",
                ),
            )
            .await;
        };
        let minor = git.split('.').nth(1).unwrap_or("").to_string();
        let body = json!({
            "major": "1", "minor": minor, "gitVersion": git,
            "gitCommit": "0000000", "gitTreeState": "clean",
            "buildDate": "2025-01-01T00:00:00Z", "goVersion": "go1.24.0",
            "compiler": "gc", "platform": "linux/amd64",
        });
        return respond(&mut socket, 200, &body).await;
    }
    let Some(&(path, kind, api_version)) = RESOURCES.iter().find(|r| r.0 == req.path) else {
        return respond(
            &mut socket,
            404,
            &status_json(
                404,
                "NotFound",
                "the server could not find the requested resource",
            ),
        )
        .await;
    };
    if forbidden.contains(path) {
        let msg = format!(
            "{kind} is forbidden: User \"tester\" cannot list resource at the cluster scope"
        );
        return respond(&mut socket, 403, &status_json(403, "Forbidden", &msg)).await;
    }
    if hanging.contains(path) && req.query.get("watch").map(String::as_str) != Some("true") {
        // Holds the connection without a byte until the client gives up.
        let mut byte = [0u8; 1];
        let _ = socket.read(&mut byte).await;
        return Ok(());
    }
    if req.query.get("watch").map(String::as_str) != Some("true") {
        // Paginated as the API server does: `limit` items a page, and a
        // `continue` token (here `rv-offset`) while more remain; every page
        // reports the resourceVersion of the first.
        let body = {
            let st = state.lock().unwrap();
            let limit = req
                .query
                .get("limit")
                .and_then(|l| l.parse::<usize>().ok())
                .filter(|&l| l > 0)
                .unwrap_or(usize::MAX);
            let (rv, offset) = req
                .query
                .get("continue")
                .and_then(|c| c.split_once('-'))
                .and_then(|(rv, off)| Some((rv.parse::<u64>().ok()?, off.parse::<usize>().ok()?)))
                .unwrap_or((st.rv, 0));
            let all = st.objects.get(path);
            let total = all.map_or(0, BTreeMap::len);
            let items: Vec<Value> = all
                .map(|m| m.values().skip(offset).take(limit).cloned().collect())
                .unwrap_or_default();
            let mut metadata = json!({"resourceVersion": rv.to_string()});
            if offset.saturating_add(limit) < total {
                metadata["continue"] = json!(format!("{rv}-{}", offset + limit));
            }
            json!({"kind": format!("{kind}List"), "apiVersion": api_version,
                   "metadata": metadata, "items": items})
        };
        return respond(&mut socket, 200, &body).await;
    }
    // A watch: stream the log after the requested resourceVersion, then wait.
    let mut from: u64 = req
        .query
        .get("resourceVersion")
        .and_then(|v| v.parse().ok())
        .unwrap_or(0);
    let head = "HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nTransfer-Encoding: chunked\r\nConnection: close\r\n\r\n";
    socket.write_all(head.as_bytes()).await?;
    let compacted = state.lock().unwrap().compacted;
    if from < compacted {
        let status = status_json(
            410,
            "Expired",
            &format!("too old resource version: {from} ({compacted})"),
        );
        chunk(&mut socket, &json!({"type": "ERROR", "object": status})).await?;
        return socket.write_all(b"0\r\n\r\n").await;
    }
    state.lock().unwrap().open_watches += 1;
    let drops_at_start = rx.borrow().1;
    let result = async {
        loop {
            let pending: Vec<(u64, &'static str, Value)> = {
                let st = state.lock().unwrap();
                st.log
                    .iter()
                    .filter(|e| e.0 > from && e.1 == path)
                    .map(|e| (e.0, e.2, e.3.clone()))
                    .collect()
            };
            for (rv, kind, obj) in pending {
                chunk(&mut socket, &json!({"type": kind, "object": obj})).await?;
                from = rv;
            }
            socket.flush().await?;
            if rx.borrow().1 != drops_at_start {
                return socket.write_all(b"0\r\n\r\n").await;
            }
            if tokio::time::timeout(Duration::from_secs(60), rx.changed())
                .await
                .is_err()
                || rx.borrow().1 != drops_at_start
            {
                return socket.write_all(b"0\r\n\r\n").await;
            }
        }
    }
    .await;
    state.lock().unwrap().open_watches -= 1;
    result
}

/// Writes a kubeconfig with one context per `(name, server URL)`, each with
/// its own cluster entry and the test token; the first is the current one.
pub fn kubeconfig_with_contexts(dir: &Path, contexts: &[(&str, String)]) -> PathBuf {
    let path = dir.join("kubeconfig-contexts");
    let mut clusters = String::new();
    let mut ctxs = String::new();
    for (name, url) in contexts {
        clusters.push_str(&format!("- name: {name}\n  cluster:\n    server: {url}\n"));
        ctxs.push_str(&format!(
            "- name: {name}\n  context:\n    cluster: {name}\n    user: tester\n"
        ));
    }
    let text = format!(
        "apiVersion: v1\nkind: Config\ncurrent-context: {}\nclusters:\n{clusters}contexts:\n{ctxs}users:\n- name: tester\n  user:\n    token: {TOKEN}\n",
        contexts.first().map_or("", |c| c.0)
    );
    std::fs::write(&path, text).unwrap();
    path
}

/// A small synthetic cluster as the server's objects.
pub fn synth_objects(nodes: usize, pods: usize) -> Vec<Value> {
    let spec = kplace::synth::SynthSpec {
        nodes,
        pods,
        zones: 2,
        seed: 7,
    };
    let mut out = Vec::new();
    kplace::synth::write_cluster_json(&mut out, &spec).unwrap();
    let list: Value = serde_json::from_slice(&out).unwrap();
    list["items"].as_array().cloned().unwrap_or_default()
}

/// Polls `f` every 20 ms until it holds or `secs` pass.
pub fn wait_for(secs: u64, mut f: impl FnMut() -> bool) -> bool {
    let deadline = std::time::Instant::now() + Duration::from_secs(secs);
    while std::time::Instant::now() < deadline {
        if f() {
            return true;
        }
        std::thread::sleep(Duration::from_millis(20));
    }
    f()
}
