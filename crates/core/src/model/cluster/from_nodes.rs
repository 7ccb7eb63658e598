//! Engine state worked out from a cluster's nodes and owners alone (each
//! node's value of a topology key, which nodes pass a pod shape's
//! inclusion policies, the owners of each namespace), kept with the
//! cluster so that every placement on it does not read 5,000 nodes'
//! labels again. It is handed out only while the nodes and owners are
//! the ones it was made from, which [`Watch`] tells without holding
//! them: a written node, an added or removed one, or other owners make
//! the next placement start a fresh one.

use std::any::Any;
use std::sync::{Arc, Mutex, Weak};

use super::Cluster;
use crate::model::node::Node;
use crate::model::policy::SelectorOwner;
use crate::model::shared_vec::Watch;

/// The kept state and what it was made from. Forks share it (cloning the
/// cluster clones one pointer) until their nodes or owners differ.
#[derive(Default)]
pub struct FromNodes {
    kept: Mutex<Option<Arc<Kept>>>,
}

struct Kept {
    nodes: Watch<Node>,
    owners: Weak<Vec<SelectorOwner>>,
    value: Arc<dyn Any + Send + Sync>,
}

impl Clone for FromNodes {
    fn clone(&self) -> Self {
        FromNodes {
            kept: Mutex::new(self.lock().clone()),
        }
    }
}

impl std::fmt::Debug for FromNodes {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("FromNodes")
    }
}

impl FromNodes {
    fn lock(&self) -> std::sync::MutexGuard<'_, Option<Arc<Kept>>> {
        self.kept.lock().unwrap_or_else(|e| e.into_inner())
    }
}

impl Cluster {
    /// The state of type `T` kept for this cluster's nodes and owners,
    /// made by `make` when none is kept for them. One type is kept at a
    /// time (the engine keeps one).
    pub fn from_nodes<T: Any + Send + Sync>(&self, make: impl FnOnce() -> T) -> Arc<T> {
        let mut kept = self.from_nodes.lock();
        if let Some(k) = kept.as_ref()
            && k.nodes.unchanged(&self.nodes)
            && std::ptr::eq(k.owners.as_ptr(), Arc::as_ptr(&self.owners))
            && let Ok(value) = Arc::clone(&k.value).downcast::<T>()
        {
            return value;
        }
        let value = Arc::new(make());
        *kept = Some(Arc::new(Kept {
            nodes: self.nodes.watch(),
            owners: Arc::downgrade(&self.owners),
            value: value.clone(),
        }));
        value
    }
}
