//! Trimming objects before they are stored.
//!
//! Two levels: [`StripMode::Engine`] keeps only what the model converters and
//! the UI read, so a live store of 150,000 pods stays small;
//! [`StripMode::Redact`] keeps objects whole (a recording must stay a faithful
//! `kubectl` snapshot) but removes what must not leave the cluster: env
//! values, `managedFields` and the last-applied annotation always, and by
//! default the categories of [`Keep`] too (container args and commands, HTTP
//! headers, volume attributes, Secret and ConfigMap references, annotations
//! the scheduler does not read, status messages), unless `record --keep`
//! names them.

use crate::source::convert::dra;
use k8s_openapi::api::apps::v1 as apps;
use k8s_openapi::api::core::v1 as core;
use k8s_openapi::api::policy::v1 as policy;
use k8s_openapi::api::scheduling::v1 as scheduling;
use k8s_openapi::api::storage::v1 as storage;
use k8s_openapi::apimachinery::pkg::apis::meta::v1::ObjectMeta;

/// The annotation `kubectl apply` leaves; it holds the whole manifest,
/// secrets in env values included.
pub const LAST_APPLIED: &str = "kubectl.kubernetes.io/last-applied-configuration";

/// Annotations the UI shows, the termination estimate or the volume
/// plugins read; all others are dropped from live stores.
const KEPT_ANNOTATIONS: [&str; 10] = [
    "cluster-autoscaler.kubernetes.io/safe-to-evict",
    "controller.kubernetes.io/pod-deletion-cost",
    "kubernetes.io/config.mirror",
    "scheduler.alpha.kubernetes.io/critical-pod",
    "pv.kubernetes.io/bind-completed",
    "volume.kubernetes.io/selected-node",
    "volume.beta.kubernetes.io/storage-class",
    "storage.alpha.kubernetes.io/migrated-plugins",
    "storageclass.kubernetes.io/is-default-class",
    "storageclass.beta.kubernetes.io/is-default-class",
];

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum StripMode {
    /// Keep only what the engine and UI use (live UI).
    Engine,
    /// Keep everything except secrets-in-waiting (recordings), but for the
    /// categories `Keep` says to keep.
    Redact(Keep),
}

/// A placeholder for a required name (a Secret or ConfigMap reference the
/// schema does not let us leave out).
pub const REDACTED: &str = "redacted";

/// What a recording keeps that it removes by default (`record --keep`).
/// Each category may hold secrets; none is read by the scheduler logic.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Keep {
    /// `args`: container `args` and `command`, and the `exec` commands of
    /// probes and lifecycle hooks.
    pub args: bool,
    /// `headers`: probe and lifecycle `httpGet.httpHeaders`, and the query
    /// string of their `path`.
    pub headers: bool,
    /// `volume-attributes`: CSI `volumeAttributes` (pods' inline volumes and
    /// PersistentVolumes) and StorageClass `parameters`.
    pub volume_attributes: bool,
    /// `config-refs`: the names of Secrets and ConfigMaps referred to
    /// (`envFrom`, secret, configMap and projected volumes, volume
    /// `secretRef`s, `imagePullSecrets`).
    pub config_refs: bool,
    /// `annotations`: annotations other than the scheduling-relevant ones.
    pub annotations: bool,
    /// `messages`: `status.message` and the messages of conditions and
    /// container states.
    pub messages: bool,
}

impl Keep {
    /// The `--keep` names, in the order of the fields.
    pub const NAMES: [&'static str; 6] = [
        "args",
        "headers",
        "volume-attributes",
        "config-refs",
        "annotations",
        "messages",
    ];

    /// Keeps the category `name` (one of [`Keep::NAMES`]); `false` for an
    /// unknown name.
    pub fn add(&mut self, name: &str) -> bool {
        let field = match name {
            "args" => &mut self.args,
            "headers" => &mut self.headers,
            "volume-attributes" => &mut self.volume_attributes,
            "config-refs" => &mut self.config_refs,
            "annotations" => &mut self.annotations,
            "messages" => &mut self.messages,
            _ => return false,
        };
        *field = true;
        true
    }

    /// The names of the categories kept.
    pub fn names(&self) -> Vec<&'static str> {
        let flags = [
            self.args,
            self.headers,
            self.volume_attributes,
            self.config_refs,
            self.annotations,
            self.messages,
        ];
        Self::NAMES
            .into_iter()
            .zip(flags)
            .filter_map(|(n, kept)| kept.then_some(n))
            .collect()
    }
}

/// Objects that can be stripped in place.
pub trait Strip {
    fn strip(&mut self, mode: StripMode);
}

fn strip_meta(meta: &mut ObjectMeta, mode: StripMode) {
    meta.managed_fields = None;
    if let Some(a) = meta.annotations.as_mut() {
        match mode {
            StripMode::Engine
            | StripMode::Redact(Keep {
                annotations: false, ..
            }) => a.retain(|k, _| KEPT_ANNOTATIONS.contains(&k.as_str())),
            StripMode::Redact(_) => {
                a.remove(LAST_APPLIED);
            }
        }
        if a.is_empty() {
            meta.annotations = None;
        }
    }
    if mode == StripMode::Engine {
        meta.finalizers = None;
        meta.self_link = None;
    }
}

/// Env var names stay (they say what a container is configured with);
/// values and references go. The rest as `keep` says.
macro_rules! redact_container {
    ($c:expr, $keep:expr) => {{
        let c = $c;
        let keep: Keep = $keep;
        for e in c.env.iter_mut().flatten() {
            e.value = None;
            e.value_from = None;
        }
        if !keep.args {
            c.args = None;
            c.command = None;
        }
        if !keep.config_refs {
            c.env_from = None;
        }
        for probe in [
            c.liveness_probe.as_mut(),
            c.readiness_probe.as_mut(),
            c.startup_probe.as_mut(),
        ]
        .into_iter()
        .flatten()
        {
            redact_action(probe.exec.as_mut(), probe.http_get.as_mut(), keep);
        }
        if let Some(l) = c.lifecycle.as_mut() {
            for h in [l.post_start.as_mut(), l.pre_stop.as_mut()]
                .into_iter()
                .flatten()
            {
                redact_action(h.exec.as_mut(), h.http_get.as_mut(), keep);
            }
        }
    }};
}

/// A probe's or hook's command and HTTP headers (and the query string of its
/// path, where tokens are passed too).
fn redact_action(
    exec: Option<&mut core::ExecAction>,
    http: Option<&mut core::HTTPGetAction>,
    keep: Keep,
) {
    if !keep.args
        && let Some(e) = exec
    {
        e.command = None;
    }
    if !keep.headers
        && let Some(h) = http
    {
        h.http_headers = None;
        if let Some(path) = h.path.as_mut()
            && let Some(q) = path.find('?')
        {
            path.truncate(q);
        }
    }
}

/// Secret and ConfigMap references and CSI attributes in a pod's volumes.
fn redact_volumes(spec: &mut core::PodSpec, keep: Keep) {
    if !keep.config_refs {
        spec.image_pull_secrets = None;
    }
    for v in spec.volumes.iter_mut().flatten() {
        if let Some(csi) = v.csi.as_mut() {
            if !keep.volume_attributes {
                csi.volume_attributes = None;
            }
            if !keep.config_refs {
                csi.node_publish_secret_ref = None;
            }
        }
        if keep.config_refs {
            continue;
        }
        if let Some(secret) = v.secret.as_mut() {
            secret.secret_name = None;
            secret.items = None;
        }
        if let Some(cm) = v.config_map.as_mut() {
            cm.name = REDACTED.into();
            cm.items = None;
        }
        for source in v
            .projected
            .as_mut()
            .and_then(|p| p.sources.as_mut())
            .into_iter()
            .flatten()
        {
            if let Some(secret) = source.secret.as_mut() {
                secret.name = REDACTED.into();
                secret.items = None;
            }
            if let Some(cm) = source.config_map.as_mut() {
                cm.name = REDACTED.into();
                cm.items = None;
            }
        }
        if let Some(d) = v.azure_file.as_mut() {
            d.secret_name = REDACTED.into();
        }
        if let Some(d) = v.scale_io.as_mut() {
            d.secret_ref.name = REDACTED.into();
        }
        if let Some(d) = v.cephfs.as_mut() {
            d.secret_ref = None;
        }
        if let Some(d) = v.cinder.as_mut() {
            d.secret_ref = None;
        }
        if let Some(d) = v.flex_volume.as_mut() {
            d.secret_ref = None;
        }
        if let Some(d) = v.iscsi.as_mut() {
            d.secret_ref = None;
        }
        if let Some(d) = v.rbd.as_mut() {
            d.secret_ref = None;
            d.keyring = None;
        }
        if let Some(d) = v.storageos.as_mut() {
            d.secret_ref = None;
        }
    }
}

/// The container fields the converters read: requests/limits, host ports,
/// the image, preStop presence, the sidecar restart policy.
fn engine_container(c: &core::Container) -> core::Container {
    core::Container {
        name: c.name.clone(),
        image: c.image.clone(),
        resources: c.resources.clone(),
        ports: c.ports.as_ref().map(|ports| {
            ports
                .iter()
                .filter(|p| p.host_port.is_some_and(|h| h > 0) || p.host_ip.is_some())
                .cloned()
                .collect()
        }),
        lifecycle: c
            .lifecycle
            .as_ref()
            .filter(|l| l.pre_stop.is_some())
            .map(|l| core::Lifecycle {
                pre_stop: l.pre_stop.clone(),
                ..Default::default()
            }),
        restart_policy: c.restart_policy.clone(),
        ..Default::default()
    }
}

fn strip_pod_spec(spec: &mut core::PodSpec, mode: StripMode) {
    match mode {
        StripMode::Redact(keep) => {
            for c in spec
                .containers
                .iter_mut()
                .chain(spec.init_containers.iter_mut().flatten())
            {
                redact_container!(c, keep);
            }
            for c in spec.ephemeral_containers.iter_mut().flatten() {
                redact_container!(c, keep);
            }
            redact_volumes(spec, keep);
        }
        StripMode::Engine => {
            // Host-network pods use container ports as host ports: keep them all.
            let host_network = spec.host_network.unwrap_or(false);
            spec.containers = spec
                .containers
                .iter()
                .map(|c| {
                    let mut s = engine_container(c);
                    if host_network {
                        s.ports = c.ports.clone();
                    }
                    s
                })
                .collect();
            spec.init_containers = spec
                .init_containers
                .as_ref()
                .map(|cs| cs.iter().map(engine_container).collect());
            spec.ephemeral_containers = None;
            spec.volumes = spec.volumes.as_ref().map(|vs| {
                vs.iter()
                    .filter(|v| {
                        v.persistent_volume_claim.is_some()
                            || v.ephemeral.is_some()
                            || v.gce_persistent_disk.is_some()
                            || v.aws_elastic_block_store.is_some()
                            || v.iscsi.is_some()
                            || v.rbd.is_some()
                    })
                    .map(|v| core::Volume {
                        name: v.name.clone(),
                        persistent_volume_claim: v.persistent_volume_claim.clone(),
                        ephemeral: v.ephemeral.as_ref().map(|_| Default::default()),
                        // Inline disks VolumeRestrictions compares (no secrets).
                        gce_persistent_disk: v.gce_persistent_disk.clone(),
                        aws_elastic_block_store: v.aws_elastic_block_store.clone(),
                        iscsi: v.iscsi.as_ref().map(|d| core::ISCSIVolumeSource {
                            secret_ref: None,
                            ..d.clone()
                        }),
                        rbd: v.rbd.as_ref().map(|d| core::RBDVolumeSource {
                            secret_ref: None,
                            keyring: None,
                            ..d.clone()
                        }),
                        ..Default::default()
                    })
                    .collect()
            });
            spec.image_pull_secrets = None;
            spec.security_context = None;
            spec.dns_config = None;
            spec.host_aliases = None;
            spec.readiness_gates = None;
            // `resourceClaims` stays: DynamicResources places by them.
        }
    }
}

impl Strip for core::Pod {
    fn strip(&mut self, mode: StripMode) {
        strip_meta(&mut self.metadata, mode);
        if let Some(spec) = self.spec.as_mut() {
            strip_pod_spec(spec, mode);
        }
        if let StripMode::Redact(Keep {
            messages: false, ..
        }) = mode
            && let Some(status) = self.status.as_mut()
        {
            redact_pod_messages(status);
        }
        if mode == StripMode::Engine
            && let Some(status) = self.status.as_mut()
        {
            *status = core::PodStatus {
                phase: status.phase.take(),
                start_time: status.start_time.take(),
                nominated_node_name: status.nominated_node_name.take(),
                // The names of the claims generated from templates.
                resource_claim_statuses: status.resource_claim_statuses.take(),
                conditions: status.conditions.take().map(|cs| {
                    cs.into_iter()
                        .filter(|c| c.type_ == "Ready" || c.type_ == "DisruptionTarget")
                        .map(|c| core::PodCondition { message: None, ..c })
                        .collect()
                }),
                ..Default::default()
            };
        }
    }
}

/// `status.message` and the messages of conditions and container states
/// (a terminated container's message is whatever it wrote to its
/// termination log).
fn redact_pod_messages(status: &mut core::PodStatus) {
    status.message = None;
    for c in status.conditions.iter_mut().flatten() {
        c.message = None;
    }
    for cs in status
        .container_statuses
        .iter_mut()
        .chain(status.init_container_statuses.iter_mut())
        .chain(status.ephemeral_container_statuses.iter_mut())
        .flatten()
    {
        for state in [cs.state.as_mut(), cs.last_state.as_mut()]
            .into_iter()
            .flatten()
        {
            if let Some(t) = state.terminated.as_mut() {
                t.message = None;
            }
            if let Some(w) = state.waiting.as_mut() {
                w.message = None;
            }
        }
    }
}

/// Whether `mode` removes status messages.
fn drops_messages(mode: StripMode) -> bool {
    matches!(
        mode,
        StripMode::Redact(Keep {
            messages: false,
            ..
        })
    )
}

impl Strip for core::Node {
    fn strip(&mut self, mode: StripMode) {
        strip_meta(&mut self.metadata, mode);
        if drops_messages(mode) {
            for c in self
                .status
                .iter_mut()
                .flat_map(|s| s.conditions.iter_mut().flatten())
            {
                c.message = None;
            }
        }
        if mode == StripMode::Engine
            && let Some(status) = self.status.as_mut()
        {
            status.config = None;
            status.daemon_endpoints = None;
            status.volumes_attached = None;
            status.volumes_in_use = None;
            status.addresses = None;
            status.conditions = status.conditions.take().map(|cs| {
                cs.into_iter()
                    .filter(|c| c.type_ == "Ready")
                    .map(|c| core::NodeCondition { message: None, ..c })
                    .collect()
            });
        }
    }
}

/// A workload's pod template: the engine never reads it; a recording keeps
/// it with env values redacted.
fn strip_template(t: &mut core::PodTemplateSpec, mode: StripMode) {
    match mode {
        StripMode::Engine => *t = Default::default(),
        StripMode::Redact(_) => {
            if let Some(meta) = t.metadata.as_mut() {
                strip_meta(meta, mode);
            }
            if let Some(spec) = t.spec.as_mut() {
                strip_pod_spec(spec, mode);
            }
        }
    }
}

impl Strip for apps::ReplicaSet {
    fn strip(&mut self, mode: StripMode) {
        strip_meta(&mut self.metadata, mode);
        if let Some(t) = self.spec.as_mut().and_then(|s| s.template.as_mut()) {
            strip_template(t, mode);
        }
        if mode == StripMode::Engine {
            self.status = None;
        }
    }
}

impl Strip for apps::StatefulSet {
    fn strip(&mut self, mode: StripMode) {
        strip_meta(&mut self.metadata, mode);
        if let Some(spec) = self.spec.as_mut() {
            strip_template(&mut spec.template, mode);
            // The claims a new replica gets come from these templates.
            for t in spec.volume_claim_templates.iter_mut().flatten() {
                t.strip(mode);
                if mode == StripMode::Engine {
                    t.status = None;
                }
            }
        }
        if mode == StripMode::Engine {
            self.status = None;
        }
    }
}

impl Strip for core::ReplicationController {
    fn strip(&mut self, mode: StripMode) {
        strip_meta(&mut self.metadata, mode);
        if let Some(t) = self.spec.as_mut().and_then(|s| s.template.as_mut()) {
            strip_template(t, mode);
        }
        if mode == StripMode::Engine {
            self.status = None;
        }
    }
}

impl Strip for core::Service {
    fn strip(&mut self, mode: StripMode) {
        strip_meta(&mut self.metadata, mode);
        if mode == StripMode::Engine {
            self.status = None;
            if let Some(spec) = self.spec.as_mut() {
                *spec = core::ServiceSpec {
                    selector: spec.selector.take(),
                    type_: spec.type_.take(),
                    ..Default::default()
                };
            }
        }
    }
}

impl Strip for policy::PodDisruptionBudget {
    fn strip(&mut self, mode: StripMode) {
        strip_meta(&mut self.metadata, mode);
        if drops_messages(mode) {
            for c in self
                .status
                .iter_mut()
                .flat_map(|s| s.conditions.iter_mut().flatten())
            {
                c.message = String::new();
            }
        }
        if mode == StripMode::Engine
            && let Some(status) = self.status.as_mut()
        {
            status.conditions = None;
        }
    }
}

impl Strip for core::Namespace {
    fn strip(&mut self, mode: StripMode) {
        strip_meta(&mut self.metadata, mode);
        if mode == StripMode::Engine {
            self.spec = None;
            self.status = None;
        }
    }
}

impl Strip for storage::StorageClass {
    fn strip(&mut self, mode: StripMode) {
        strip_meta(&mut self.metadata, mode);
        // Provisioner parameters name Secrets and carry driver settings.
        if let StripMode::Redact(Keep {
            volume_attributes: false,
            ..
        }) = mode
        {
            self.parameters = None;
        }
        if mode == StripMode::Engine {
            self.parameters = None;
            self.mount_options = None;
        }
    }
}

impl Strip for core::PersistentVolume {
    fn strip(&mut self, mode: StripMode) {
        strip_meta(&mut self.metadata, mode);
        if mode == StripMode::Engine
            && let Some(status) = self.status.as_mut()
        {
            status.message = None;
            status.reason = None;
        }
        if drops_messages(mode)
            && let Some(status) = self.status.as_mut()
        {
            status.message = None;
        }
        // CSI secret references stay out of both.
        if let Some(csi) = self.spec.as_mut().and_then(|s| s.csi.as_mut()) {
            csi.controller_expand_secret_ref = None;
            csi.controller_publish_secret_ref = None;
            csi.node_expand_secret_ref = None;
            csi.node_publish_secret_ref = None;
            csi.node_stage_secret_ref = None;
        }
        if let (StripMode::Redact(keep), Some(spec)) = (mode, self.spec.as_mut()) {
            redact_pv_source(spec, keep);
        }
    }
}

/// A PersistentVolume's CSI attributes and in-tree Secret references.
fn redact_pv_source(spec: &mut core::PersistentVolumeSpec, keep: Keep) {
    if !keep.volume_attributes
        && let Some(csi) = spec.csi.as_mut()
    {
        csi.volume_attributes = None;
    }
    if keep.config_refs {
        return;
    }
    if let Some(d) = spec.azure_file.as_mut() {
        d.secret_name = REDACTED.into();
        d.secret_namespace = None;
    }
    if let Some(d) = spec.scale_io.as_mut() {
        d.secret_ref = core::SecretReference {
            name: Some(REDACTED.into()),
            namespace: None,
        };
    }
    if let Some(d) = spec.cephfs.as_mut() {
        d.secret_ref = None;
    }
    if let Some(d) = spec.cinder.as_mut() {
        d.secret_ref = None;
    }
    if let Some(d) = spec.flex_volume.as_mut() {
        d.secret_ref = None;
    }
    if let Some(d) = spec.iscsi.as_mut() {
        d.secret_ref = None;
    }
    if let Some(d) = spec.rbd.as_mut() {
        d.secret_ref = None;
        d.keyring = None;
    }
    if let Some(d) = spec.storageos.as_mut() {
        d.secret_ref = None;
    }
}

impl Strip for core::PersistentVolumeClaim {
    fn strip(&mut self, mode: StripMode) {
        strip_meta(&mut self.metadata, mode);
        if drops_messages(mode) {
            for c in self
                .status
                .iter_mut()
                .flat_map(|s| s.conditions.iter_mut().flatten())
            {
                c.message = None;
            }
        }
        if mode == StripMode::Engine
            && let Some(status) = self.status.as_mut()
        {
            status.conditions = None;
        }
    }
}

/// Kinds with nothing to strip beyond their metadata.
macro_rules! strip_metadata_only {
    ($($kind:ty),* $(,)?) => {
        $(impl Strip for $kind {
            fn strip(&mut self, mode: StripMode) {
                strip_meta(&mut self.metadata, mode);
            }
        })*
    };
}

strip_metadata_only!(
    scheduling::PriorityClass,
    storage::CSINode,
    dra::DeviceClassObject,
    dra::ResourceSliceObject,
    dra::ResourceClaimObject,
    dra::ResourceClaimTemplateObject,
);
