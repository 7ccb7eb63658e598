//! Volume plugins (VolumeRestrictions, the volume limits, VolumeBinding,
//! VolumeZone). They skip themselves for pods without PVCs, which is all
//! kplace evaluates: snapshots carry no PersistentVolumes, so for pods with
//! PVCs the answer carries a note that volume topology was not evaluated.

use crate::model::pod::Pod;

pub fn note(pod: &Pod) -> Option<String> {
    if pod.pvc_names.is_empty() {
        return None;
    }
    Some(format!(
        "the pod mounts PersistentVolumeClaims ({}); volume topology and limits (VolumeBinding, VolumeZone, volume limits) are not evaluated",
        pod.pvc_names.join(", ")
    ))
}
