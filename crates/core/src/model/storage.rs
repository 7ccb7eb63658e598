//! Storage objects as the volume plugins read them: StorageClasses,
//! PersistentVolumes, PersistentVolumeClaims and CSINodes, converted once
//! and indexed by name (claims by namespace and name).

use rustc_hash::FxHashMap;

use super::intern::Sym;
use super::labels::{LabelSelector, Labels};
use super::pod::NodeSelectorTerm;

/// `storage.k8s.io/v1` `VolumeBindingMode`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum BindingMode {
    Immediate,
    WaitForFirstConsumer,
}

/// One `TopologySelectorTerm` of `allowedTopologies`: every key must have
/// one of its values.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct TopologyTerm {
    pub requirements: Box<[(Sym, Box<[Sym]>)]>,
}

#[derive(Clone, Debug, PartialEq, Eq)]
pub struct StorageClass {
    pub name: Box<str>,
    pub provisioner: Box<str>,
    /// `None` when unset (the API server defaults it to Immediate; the
    /// plugins treat an unset mode as an error).
    pub binding_mode: Option<BindingMode>,
    pub allowed_topologies: Box<[TopologyTerm]>,
    /// `IsDefaultAnnotation`: the GA or beta is-default-class annotation is "true".
    pub is_default: bool,
    /// `metadata.creationTimestamp` as Unix seconds (orders default classes).
    pub created: Option<i64>,
}

/// `PersistentVolumeAccessMode`s as bits.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct AccessModes(pub u8);

impl AccessModes {
    pub const READ_WRITE_ONCE: u8 = 1;
    pub const READ_ONLY_MANY: u8 = 2;
    pub const READ_WRITE_MANY: u8 = 4;
    pub const READ_WRITE_ONCE_POD: u8 = 8;
    /// A mode kplace does not know: never offered by a volume.
    pub const OTHER: u8 = 16;

    pub fn parse<'a>(modes: impl IntoIterator<Item = &'a str>) -> Self {
        let mut bits = 0;
        for m in modes {
            bits |= match m {
                "ReadWriteOnce" => Self::READ_WRITE_ONCE,
                "ReadOnlyMany" => Self::READ_ONLY_MANY,
                "ReadWriteMany" => Self::READ_WRITE_MANY,
                "ReadWriteOncePod" => Self::READ_WRITE_ONCE_POD,
                _ => Self::OTHER,
            };
        }
        AccessModes(bits)
    }

    pub fn contains(self, bits: u8) -> bool {
        self.0 & bits == bits
    }

    /// `CheckAccessModes`: the volume offers every mode the claim asks for.
    pub fn offers_all(self, wanted: AccessModes) -> bool {
        wanted.0 & !self.0 == 0
    }
}

/// `spec.claimRef` of a PersistentVolume.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ClaimRef {
    pub namespace: Box<str>,
    pub name: Box<str>,
    /// Empty when the reference names no UID.
    pub uid: Box<str>,
}

/// The CSI identity of a volume: driver and volume handle.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct CsiSource {
    pub driver: Box<str>,
    pub handle: Box<str>,
}

#[derive(Clone, Debug)]
pub struct PersistentVolume {
    pub name: Box<str>,
    pub labels: Labels,
    /// `spec.capacity.storage` in nano-units (`Quantity::nanos`), 0 when absent.
    pub capacity: i128,
    pub access_modes: AccessModes,
    /// `GetPersistentVolumeClass`: the beta annotation, else `spec.storageClassName`.
    pub class: Box<str>,
    /// `spec.nodeAffinity.required` terms (ORed); `None` when absent.
    pub node_affinity: Option<Box<[NodeSelectorTerm]>>,
    pub claim_ref: Option<ClaimRef>,
    /// `status.phase == Available`.
    pub available: bool,
    pub block_mode: bool,
    /// `spec.volumeAttributesClassName`, empty when unset.
    pub attributes_class: Box<str>,
    pub deleting: bool,
    pub csi: Option<CsiSource>,
}

impl PersistentVolume {
    /// `IsVolumeBoundToClaim`.
    pub fn is_bound_to(&self, claim: &PersistentVolumeClaim, claim_namespace: &str) -> bool {
        let Some(r) = &self.claim_ref else {
            return false;
        };
        if *r.name != *claim.name || *r.namespace != *claim_namespace {
            return false;
        }
        r.uid.is_empty() || r.uid == claim.uid
    }
}

#[derive(Clone, Debug, PartialEq, Eq)]
pub struct PersistentVolumeClaim {
    pub namespace: Sym,
    pub name: Box<str>,
    pub uid: Box<str>,
    /// `GetPersistentVolumeClaimClass`: the beta annotation, else
    /// `spec.storageClassName`; empty for none.
    pub class: Box<str>,
    /// `spec.resources.requests.storage` in nano-units; `None` when absent.
    pub request: Option<i128>,
    pub access_modes: AccessModes,
    /// `spec.volumeName`, empty when unset.
    pub volume_name: Box<str>,
    /// Annotation `pv.kubernetes.io/bind-completed` is present.
    pub bind_completed: bool,
    /// Annotation `volume.kubernetes.io/selected-node`.
    pub selected_node: Option<Box<str>>,
    /// `status.phase == Lost`.
    pub lost: bool,
    pub deleting: bool,
    /// `spec.selector`; `None` when unset.
    pub selector: Option<LabelSelector>,
    pub block_mode: bool,
    /// `spec.volumeAttributesClassName`, empty when unset.
    pub attributes_class: Box<str>,
    /// The UID of the controlling owner, for generic ephemeral volumes.
    pub controller_uid: Option<Box<str>>,
}

impl PersistentVolumeClaim {
    /// Fully bound (`isPVCFullyBound`): a volume name and the
    /// bind-completed annotation.
    pub fn is_fully_bound(&self) -> bool {
        !self.volume_name.is_empty() && self.bind_completed
    }
}

/// One driver of a CSINode.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct CsiNodeDriver {
    pub name: Box<str>,
    /// `allocatable.count`: how many of its volumes the node can attach.
    pub allocatable: Option<i32>,
}

#[derive(Clone, Debug, PartialEq, Eq)]
pub struct CsiNode {
    pub name: Box<str>,
    pub drivers: Box<[CsiNodeDriver]>,
    /// In-tree plugins the annotation `storage.alpha.kubernetes.io/migrated-plugins` lists.
    pub migrated_plugins: Box<[Box<str>]>,
}

/// Every storage object of a snapshot, indexed as the plugins look them up.
#[derive(Clone, Debug, Default)]
pub struct Storage {
    pub classes: FxHashMap<Box<str>, StorageClass>,
    pub volumes: Vec<PersistentVolume>,
    volume_by_name: FxHashMap<Box<str>, u32>,
    /// Per storage class, the volumes of that class (`ListPVs(class)`).
    volumes_by_class: FxHashMap<Box<str>, Vec<u32>>,
    pub claims: Vec<PersistentVolumeClaim>,
    claim_index: FxHashMap<Sym, FxHashMap<Box<str>, u32>>,
    csi_nodes: FxHashMap<Box<str>, CsiNode>,
    /// Per CSI driver, the fewest volumes of it any CSINode can attach
    /// (drivers no CSINode gives a count are absent): NodeVolumeLimits
    /// passes a node without looking its CSINode up when the node's pods
    /// and the incoming pod stay within this.
    fewest_attachable: FxHashMap<Box<str>, i64>,
}

impl Storage {
    pub fn new(
        classes: Vec<StorageClass>,
        volumes: Vec<PersistentVolume>,
        claims: Vec<PersistentVolumeClaim>,
        csi_nodes: Vec<CsiNode>,
    ) -> Self {
        let mut s = Storage::default();
        for c in classes {
            s.classes.insert(c.name.clone(), c);
        }
        for v in volumes {
            // A later object of the same name replaces the earlier one.
            if let Some(&i) = s.volume_by_name.get(&v.name) {
                s.volumes[i as usize] = v;
                continue;
            }
            let i = s.volumes.len() as u32;
            s.volume_by_name.insert(v.name.clone(), i);
            s.volumes.push(v);
        }
        for (i, v) in s.volumes.iter().enumerate() {
            s.volumes_by_class
                .entry(v.class.clone())
                .or_default()
                .push(i as u32);
        }
        for c in claims {
            let by_name = s.claim_index.entry(c.namespace).or_default();
            if let Some(&i) = by_name.get(&c.name) {
                s.claims[i as usize] = c;
                continue;
            }
            by_name.insert(c.name.clone(), s.claims.len() as u32);
            s.claims.push(c);
        }
        for n in csi_nodes {
            s.csi_nodes.insert(n.name.clone(), n);
        }
        for driver in s.csi_nodes.values().flat_map(|n| n.drivers.iter()) {
            if let Some(count) = driver.allocatable {
                let fewest = s
                    .fewest_attachable
                    .entry(driver.name.clone())
                    .or_insert(i64::MAX);
                *fewest = (*fewest).min(i64::from(count));
            }
        }
        s
    }

    pub fn is_empty(&self) -> bool {
        self.classes.is_empty()
            && self.volumes.is_empty()
            && self.claims.is_empty()
            && self.csi_nodes.is_empty()
    }

    pub fn class(&self, name: &str) -> Option<&StorageClass> {
        self.classes.get(name)
    }

    pub fn volume(&self, name: &str) -> Option<&PersistentVolume> {
        self.volume_by_name
            .get(name)
            .map(|&i| &self.volumes[i as usize])
    }

    /// The volumes whose class is `class`, in snapshot order.
    pub fn volumes_of_class(&self, class: &str) -> impl Iterator<Item = &PersistentVolume> {
        self.volumes_by_class
            .get(class)
            .into_iter()
            .flatten()
            .map(|&i| &self.volumes[i as usize])
    }

    pub fn claim(&self, namespace: Sym, name: &str) -> Option<&PersistentVolumeClaim> {
        self.claim_index
            .get(&namespace)?
            .get(name)
            .map(|&i| &self.claims[i as usize])
    }

    /// `GetDefaultClass`: of the classes marked default, the newest, then
    /// the first by name; what the DefaultStorageClass admission plugin
    /// writes into a new claim that names no class.
    pub fn default_class(&self) -> Option<&StorageClass> {
        self.classes
            .values()
            .filter(|c| c.is_default)
            .min_by(|a, b| {
                b.created
                    .unwrap_or(0)
                    .cmp(&a.created.unwrap_or(0))
                    .then_with(|| a.name.cmp(&b.name))
            })
    }

    /// Adds a claim (a what-if fork creating one); one of the same
    /// namespace and name is replaced.
    pub fn add_claim(&mut self, claim: PersistentVolumeClaim) {
        let by_name = self.claim_index.entry(claim.namespace).or_default();
        if let Some(&i) = by_name.get(&claim.name) {
            self.claims[i as usize] = claim;
            return;
        }
        by_name.insert(claim.name.clone(), self.claims.len() as u32);
        self.claims.push(claim);
    }

    pub fn claim_mut(&mut self, namespace: Sym, name: &str) -> Option<&mut PersistentVolumeClaim> {
        let i = *self.claim_index.get(&namespace)?.get(name)?;
        Some(&mut self.claims[i as usize])
    }

    pub fn volume_mut(&mut self, name: &str) -> Option<&mut PersistentVolume> {
        let i = *self.volume_by_name.get(name)?;
        Some(&mut self.volumes[i as usize])
    }

    pub fn csi_node(&self, node: &str) -> Option<&CsiNode> {
        self.csi_nodes.get(node)
    }

    /// How many CSINodes the snapshot holds.
    pub fn csi_node_count(&self) -> usize {
        self.csi_nodes.len()
    }

    /// The fewest volumes of `driver` any CSINode can attach (`None`: no
    /// CSINode gives a count for it).
    pub fn fewest_attachable(&self, driver: &str) -> Option<i64> {
        self.fewest_attachable.get(driver).copied()
    }
}
