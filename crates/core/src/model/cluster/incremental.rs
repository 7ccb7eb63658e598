//! Changing a cluster in place, one object at a time: what a live watch
//! event does to the model without rebuilding it (the informer cache's
//! `AddPod`/`UpdatePod`/`RemovePod`, `AddNode`/`UpdateNode`/`RemoveNode`
//! in upstream's `pkg/scheduler/backend/cache`).
//!
//! Every aggregate and index [`Cluster::new`] builds is kept as a rebuild
//! from the same objects would build it: per-node requests, ports and pod
//! lists, the label indexes, nominated pods, per-pod PDBs and priorities,
//! affinity groups and image counts. Ids stay dense: a removed pod or node
//! takes the last one's id (as upstream's `NodeInfo.RemovePod` swaps), so
//! the order of pods and nodes may differ from a rebuild's, which the
//! engine's answers do not depend on beyond upstream's own node order
//! (any stable order; `scheduler-semantics.md` 1.2).

use std::sync::Arc;

use rustc_hash::FxHashMap;

use super::Cluster;
use crate::model::intern::Sym;
use crate::model::node::{Node, NodeId};
use crate::model::pod::{Pod, PodId};

/// `(namespace, name)` of a pod.
pub(super) type PodKey = (Sym, Box<str>);

impl Cluster {
    /// The pod named `name` in `namespace`: by the index a cluster changed
    /// in place keeps, else (and whenever the index has no such pod, as in
    /// a fork that added one without it) by a scan.
    pub fn pod_id(&self, namespace: Sym, name: &str) -> Option<PodId> {
        let indexed = self
            .pod_by_key
            .as_ref()
            .and_then(|index| index.get(&(namespace, Box::from(name))).copied())
            .filter(|&id| {
                self.pods
                    .get(id as usize)
                    .is_some_and(|p| p.namespace == namespace && &*p.name == name)
            });
        indexed.or_else(|| {
            self.pods
                .iter()
                .position(|p| p.namespace == namespace && &*p.name == name)
                .map(|i| i as PodId)
        })
    }

    /// The pod named `name` in `namespace` by the index alone (built on
    /// first use): for a cluster changed only in place, where a pod the
    /// index lacks is not there and a scan of every pod would find nothing.
    pub fn indexed_pod_id(&mut self, namespace: Sym, name: &str) -> Option<PodId> {
        self.pod_keys().get(&(namespace, Box::from(name))).copied()
    }

    /// A copy for readers (the views' snapshot of a live model): shares
    /// pods and nodes like any fork but not the pod index, so the next
    /// change in place does not copy the index for a reader that never
    /// uses it.
    pub fn snapshot(&self) -> Cluster {
        let mut copy = self.clone();
        copy.pod_by_key = None;
        copy
    }

    /// Builds the index of pods by namespace and name now rather than on
    /// the first change in place (a live feed, before its first batch).
    pub fn index_pod_keys(&mut self) {
        self.pod_keys();
    }

    /// The pod index, built on the first change in place (a snapshot that
    /// is never changed does not pay for it) and shared with forks.
    fn pod_keys(&mut self) -> &mut FxHashMap<PodKey, PodId> {
        let pods = &self.pods;
        let index = self.pod_by_key.get_or_insert_with(|| {
            Arc::new(
                pods.iter()
                    .enumerate()
                    .map(|(i, p)| ((p.namespace, p.name.clone()), i as PodId))
                    .collect(),
            )
        });
        Arc::make_mut(index)
    }

    /// Adds `pod`, or replaces the pod of the same namespace and name (a
    /// watch `Added`/`Modified` event). Returns its id.
    pub fn upsert_pod(&mut self, pod: Pod) -> PodId {
        let key = (pod.namespace, pod.name.clone());
        match self.pod_keys().get(&key).copied() {
            Some(id) => {
                self.replace_pod(id, pod);
                id
            }
            None => {
                let id = self.add_pod(pod);
                self.pod_keys().insert(key, id);
                id
            }
        }
    }

    fn replace_pod(&mut self, id: PodId, mut pod: Pod) {
        pod.node = self.scheduler_node(&pod);
        let old = &self.pods[id as usize];
        if **old == pod {
            return;
        }
        if let (Some(from), Some(to)) = (old.node, pod.node)
            && old.labels == pod.labels
        {
            // Scheduled before and after with the same labels (a status
            // change, a move): the label indexes already hold the id.
            if self.node_infos[from as usize].remove_pod(id, old) {
                self.affinity_groups.update(old, from, false);
            }
            if !old.host_ports.is_empty() {
                self.recount_ports(from);
            }
            self.node_infos[to as usize].add_pod(id, &pod);
            self.sync_load(from);
            self.sync_load(to);
            self.affinity_groups.update(&pod, to, true);
            self.pod_priorities[id as usize] = pod.priority_value();
            self.pods[id as usize] = Arc::new(pod);
            self.index_pod_pdbs(id);
            return;
        }
        self.detach_pod(id);
        pod.node = None;
        self.pod_priorities[id as usize] = pod.priority_value();
        self.pods[id as usize] = Arc::new(pod);
        self.attach_pod(id);
        self.index_pod_pdbs(id);
    }

    /// Removes the pod of that namespace and name (a watch `Deleted`
    /// event); the last pod takes its id. Returns it, if it was there.
    pub fn delete_pod(&mut self, namespace: Sym, name: &str) -> Option<Pod> {
        let id = self.pod_keys().remove(&(namespace, Box::from(name)))?;
        self.detach_pod(id);
        let last = (self.pods.len() - 1) as PodId;
        if id != last {
            self.renumber_pod(last, id);
            self.pods.swap(id as usize, last as usize);
            self.pod_pdbs.swap(id as usize, last as usize);
        }
        self.pod_pdbs.pop();
        self.pod_priorities.pop();
        self.pods.pop().map(Arc::unwrap_or_clone)
    }

    /// Takes a pod out of every aggregate as [`Cluster::add_pod`] put it in
    /// (its node's, the label indexes, the nominated list); the pod record
    /// itself stays, with `node` cleared.
    fn detach_pod(&mut self, id: PodId) {
        match self.pods[id as usize].node {
            Some(node) => {
                let name = self.pods[id as usize].node_name.clone();
                self.unbind_pod(id);
                self.pod_mut(id).node_name = name;
                if !self.pods[id as usize].host_ports.is_empty() {
                    self.recount_ports(node);
                }
            }
            None => self.nominated.retain(|&p| p != id),
        }
    }

    /// The node's used host ports from the pods it holds, as a rebuild
    /// counts them. Removing a pod takes its ports out of the set even when
    /// another pod on the node declared the same one (upstream's `NodeInfo`
    /// keeps no counts, and forks follow it); a live model must instead
    /// stay what a rebuild from the same objects would be.
    fn recount_ports(&mut self, node: NodeId) {
        let info = &self.node_infos[node as usize];
        let mut ports: Vec<crate::model::pod::HostPort> = Vec::new();
        for &p in &info.pods {
            for port in self.pods[p as usize].host_ports.iter() {
                if !ports.contains(port) {
                    ports.push(port.clone());
                }
            }
        }
        self.node_infos[node as usize].used_ports = ports;
    }

    /// Puts a pod into the aggregates as [`Cluster::add_pod`] does.
    fn attach_pod(&mut self, id: PodId) {
        let pod = &self.pods[id as usize];
        match self.scheduler_node(pod) {
            Some(node) => {
                let name = pod.node_name.clone();
                self.bind_pod(id, node);
                self.pod_mut(id).node_name = name;
            }
            None => {
                if pod.nominated_node_name.is_some() {
                    self.nominated.push(id);
                }
            }
        }
    }

    /// Every reference to pod `from` now says `to` (the last pod moving
    /// into a freed id).
    fn renumber_pod(&mut self, from: PodId, to: PodId) {
        // `from` is the last pod, so it sits near the end of each list.
        let rename = |list: &mut Vec<PodId>| {
            if let Some(p) = list.iter_mut().rev().find(|p| **p == from) {
                *p = to;
            }
        };
        let pod = &self.pods[from as usize];
        let key = (pod.namespace, pod.name.clone());
        if let Some(node) = pod.node {
            let info = &mut self.node_infos[node as usize];
            rename(&mut info.pods);
            rename(&mut info.pods_with_affinity);
            rename(&mut info.pods_with_required_anti_affinity);
            rename(&mut info.pods_with_claims);
            for (k, v) in pod.labels.iter() {
                if let Some(list) = self.label_index.get_mut(&(k, v)) {
                    rename(Arc::make_mut(list));
                }
                if let Some(list) = self.key_index.get_mut(&k) {
                    rename(Arc::make_mut(list));
                }
            }
        }
        rename(&mut self.nominated);
        self.pod_priorities[to as usize] = self.pod_priorities[from as usize];
        self.pod_keys().insert(key, to);
    }

    /// Adds `node`, or replaces the node of that name (a watch `Added` or
    /// `Modified` event). A new node takes in the pods already bound to its
    /// name, as a rebuild would count them there. Returns its id.
    pub fn upsert_node(&mut self, node: Node) -> NodeId {
        if let Some(id) = self.node_id(&node.name) {
            let old = std::mem::replace(&mut self.nodes[id as usize], node.clone());
            self.sync_load(id);
            self.count_images(&old, -1);
            self.count_images(&node, 1);
            return id;
        }
        let name = node.name.clone();
        let id = self
            .add_node(node)
            .expect("no node of this name, checked above");
        let waiting: Vec<PodId> = (0..self.pods.len() as PodId)
            .filter(|&p| {
                let pod = &self.pods[p as usize];
                pod.node.is_none()
                    && !pod.phase.is_terminal()
                    && pod.node_name.as_deref() == Some(&*name)
            })
            .collect();
        for p in waiting {
            self.detach_pod(p);
            self.attach_pod(p);
        }
        id
    }

    /// Removes the node of that name (a watch `Deleted` event): its pods
    /// stay bound to the name and count nowhere, as in a snapshot without
    /// the node; the last node takes its id. Whether it was there.
    pub fn delete_node(&mut self, name: &str) -> bool {
        let Some(id) = self.node_id(name) else {
            return false;
        };
        let on_node = self.node_infos[id as usize].pods.clone();
        Arc::make_mut(&mut self.node_by_name).remove(name);
        for p in on_node {
            self.detach_pod(p);
            self.attach_pod(p);
        }
        let last = (self.nodes.len() - 1) as NodeId;
        if id != last {
            for &p in &self.node_infos[last as usize].pods {
                Arc::make_mut(&mut self.pods[p as usize]).node = Some(id);
            }
            for group in &mut self.affinity_groups.groups {
                if let Some(n) = group.nodes.remove(&last) {
                    group.nodes.insert(id, n);
                }
            }
            let moved_name = self.nodes[last as usize].name.clone();
            Arc::make_mut(&mut self.node_by_name).insert(moved_name, id);
        }
        let mut node = self.nodes.pop().expect("a node to remove");
        let mut info = self.node_infos.pop().expect("its aggregates");
        self.node_loads.pop();
        if id != last {
            std::mem::swap(&mut node, &mut self.nodes[id as usize]);
            std::mem::swap(&mut info, &mut self.node_infos[id as usize]);
            self.sync_load(id);
        }
        self.count_images(&node, -1);
        true
    }

    /// Recomputes the `disruptionsAllowed` that kplace filled in for PDBs
    /// without a status, after the pods they count changed.
    pub fn refresh_computed_pdbs(&mut self) {
        if !self.pdbs.iter().any(|p| p.computed) {
            return;
        }
        for pdb in Arc::make_mut(&mut self.pdbs).iter_mut() {
            if pdb.computed {
                pdb.disruptions_allowed = None;
                pdb.computed = false;
            }
        }
        self.fill_missing_pdb_status();
    }
}
