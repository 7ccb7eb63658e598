//! The loader's duplicate check for pods, without a key of their own
//! (#15 item 1).
//!
//! Pods are nine in ten of a large snapshot's objects. Keyed like the other
//! kinds, each needed a `namespace/name` string built and kept until the
//! end (150,000 allocations) and an 80-byte map slot written at a random
//! place, the map copied whole each time it grew. Here a slot is the
//! identity's hash and the pod's index in the builder (16 bytes); a slot
//! whose hash matches is compared with the converted pod at that index,
//! which holds the same namespace and name. Where each pod was seen is
//! kept beside, in builder order, read only to report a duplicate.

use hashbrown::HashTable;

use super::PlaceKey;
use crate::model::intern::Sym;
use crate::model::pod::Pod;

/// A pod seen before: the file it was read from (an index into the
/// loader's files), where in it, and its index in the builder.
pub(super) struct SeenPod {
    pub file: usize,
    pub at: PlaceKey,
    pub index: usize,
}

#[derive(Clone, Copy)]
struct Slot {
    hash: u64,
    index: u32,
}

#[derive(Default)]
pub(super) struct PodsSeen {
    table: HashTable<Slot>,
    /// By builder index: the file and place each named pod was last read
    /// from (pods without a name are never looked up; their entries stay
    /// `None`).
    places: Vec<Option<(usize, PlaceKey)>>,
}

/// The hash of a pod's namespace and name.
pub(super) fn identity_hash(namespace: Sym, name: &str) -> u64 {
    use std::hash::{BuildHasher, Hash, Hasher};
    let mut h = rustc_hash::FxBuildHasher.build_hasher();
    namespace.hash(&mut h);
    name.hash(&mut h);
    h.finish()
}

impl PodsSeen {
    /// The pod read before with `pod`'s namespace and name (`hash`, from
    /// [`identity_hash`]), if any; `pod_at` gives the builder's pod at an
    /// index.
    pub fn earlier<'p>(
        &self,
        hash: u64,
        pod: &Pod,
        pod_at: impl Fn(usize) -> &'p Pod,
    ) -> Option<SeenPod> {
        let slot = self.table.find(hash, |s| {
            s.hash == hash && {
                let other = pod_at(s.index as usize);
                other.namespace == pod.namespace && other.name == pod.name
            }
        })?;
        let index = slot.index as usize;
        let (file, at) = self.places.get(index).copied().flatten()?;
        Some(SeenPod { file, at, index })
    }

    /// Room for `items` pods: the table is never copied to grow, and only
    /// its control bytes (one per slot) are written up front.
    pub fn reserve(&mut self, items: usize) {
        self.table.reserve(items, |s| s.hash);
        self.places.reserve(items);
    }

    /// Records a pod seen for the first time, now at `index`.
    pub fn add(&mut self, hash: u64, index: usize, file: usize, at: PlaceKey) {
        let slot = Slot {
            hash,
            index: u32::try_from(index).expect("fewer than 2^32 pods"),
        };
        self.table.insert_unique(hash, slot, |s| s.hash);
        self.replaced(index, file, at);
    }

    /// Records where the pod at `index` was read last (a duplicate that
    /// replaced the earlier one keeps its index).
    pub fn replaced(&mut self, index: usize, file: usize, at: PlaceKey) {
        if self.places.len() <= index {
            self.places.resize(index + 1, None);
        }
        self.places[index] = Some((file, at));
    }
}
