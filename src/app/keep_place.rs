//! Keeping the user's place when the cluster under the views is replaced
//! (a live update, a new moment of a recording): the same view, filters,
//! sorts, the same node, pod, workload and tier selected by name, the pod
//! in Placement re-answered, and the what-if draft re-evaluated. Ids change
//! between clusters, so everything is matched by name.

use super::state::Session;

impl Session {
    /// Takes over `old`'s UI state; `self` is the session on the new cluster.
    pub(super) fn keep_place_from(&mut self, old: Session) {
        let od = &old.loaded.derived;

        let node_name = old
            .nodes
            .selected_row()
            .map(|r| od.nodes.rows[r as usize].name.clone());
        let pod_key = |rows: &super::derived::PodRowList, r: u32| {
            let p = &rows[r as usize];
            (p.namespace.clone(), p.name.clone())
        };
        // (The old cluster's slow caches may not have been built yet: then
        // nothing was selected in their views.)
        let pod_sel = old
            .pods
            .selected_row()
            .zip(od.pods())
            .map(|(r, table)| pod_key(&table.rows, r));
        let pending_sel = old
            .pending_rows
            .get(old.pending_cursor.selected)
            .map(|&id| old.loaded.cluster.pod_key(id));
        let subject = old
            .skew_rows
            .get(old.skew_cursor.selected)
            .zip(od.fleet())
            .map(|(&i, fleet)| fleet.skew_labels[i].clone());
        let tier_value = od
            .tiers()
            .and_then(|t| t.rows.get(old.tier_cursor.selected))
            .map(|t| t.value);
        let placement = old.placement_pod.map(|p| old.loaded.cluster.pod_key(p));

        // Tables: same sort and filter, same row by name, else same place.
        self.nodes.sort = old.nodes.sort;
        self.nodes.descending = old.nodes.descending;
        self.nodes.filter = old.nodes.filter.clone();
        self.refresh_nodes();
        let d = &self.loaded.derived;
        self.nodes.cursor.selected = node_name
            .and_then(|n| {
                self.nodes
                    .rows
                    .iter()
                    .position(|&r| d.nodes.rows[r as usize].name == n)
            })
            .unwrap_or(
                old.nodes
                    .cursor
                    .selected
                    .min(self.nodes.rows.len().saturating_sub(1)),
            );

        self.pods.sort = old.pods.sort;
        self.pods.descending = old.pods.descending;
        self.pods.filter = old.pods.filter.clone();
        self.namespace = old.namespace.clone();
        // (Built first, if not yet: the table fills from it.)
        self.loaded.derived.pods_now();
        self.refresh_pods();
        let table = self.loaded.derived.pods_now();
        self.pods.cursor.selected = pod_sel
            .and_then(|(ns, name)| {
                self.pods.rows.iter().position(|&r| {
                    let p = &table.rows[r as usize];
                    p.name == name && p.namespace == ns
                })
            })
            .unwrap_or(
                old.pods
                    .cursor
                    .selected
                    .min(self.pods.rows.len().saturating_sub(1)),
            );

        self.refresh_pending();
        self.pending_cursor.selected = pending_sel
            .and_then(|k| {
                self.pending_rows
                    .iter()
                    .position(|&id| self.loaded.cluster.pod_key(id) == k)
            })
            .unwrap_or(
                old.pending_cursor
                    .selected
                    .min(self.pending_rows.len().saturating_sub(1)),
            );
        self.node_bars.selected = old.node_bars.selected;

        self.skew_filter = old.skew_filter.clone();
        // The same constraint of the same subject; the old report stays on
        // screen until the new one is computed.
        self.skew_key = old.skew_key;
        self.loaded.derived.fleet_now();
        self.refresh_skew_rows();
        let fleet = self.loaded.derived.fleet_now();
        if let Some(label) = subject
            && let Some(i) = self
                .skew_rows
                .iter()
                .position(|&w| fleet.skew_labels[w] == label)
        {
            self.skew_cursor.selected = i;
        }
        self.refresh_skew();
        if self.skew.is_none() {
            self.skew = old.skew.clone();
        }

        let tiers = self.loaded.derived.tiers_now();
        if let Some(v) = tier_value
            && let Some(i) = tiers.rows.iter().position(|t| t.value == v)
        {
            self.tier_cursor.selected = i;
        }
        self.refresh_headroom();
        // Every table is filled now (the caches they read were built).
        self.took_every_cache();

        if let Some(key) = &placement
            && let Some((ns, name)) = key.split_once('/')
            && let Some(pod) = self.loaded.cluster.find_pod(ns, name)
        {
            self.open_placement(pod);
            self.placement_scroll.selected = old.placement_scroll.selected;
        }
        self.placement_gone = match (&placement, self.placement_pod) {
            (Some(key), None) => Some(key.clone()),
            _ => None,
        };

        if let Some(draft) = &old.whatif.draft {
            let cluster = self.loaded.cluster.clone();
            self.whatif.open(&cluster, draft.doc.clone());
            self.whatif.scroll = old.whatif.scroll;
        }
        super::job::drop_in_background(old);
    }
}
