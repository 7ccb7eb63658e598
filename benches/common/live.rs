//! Batches of pod watch events, as a busy minute of a live cluster sends
//! them, for the benches of live updates.

use kplace::model::{Cluster, PodId};

/// What a busy minute of a live cluster sends: bound pods moving to
/// another node (a rollout), pods deleted and pods created, spread over the
/// whole cluster.
pub fn live_batch(cluster: &Cluster, events: usize) -> Vec<kplace::source::live::Change> {
    let bound: Vec<PodId> = (0..cluster.pods.len() as PodId)
        .filter(|&p| cluster.pod(p).node.is_some())
        .collect();
    let step = bound.len() / events;
    let pods: Vec<PodId> = (0..events).map(|i| bound[i * step]).collect();
    batch_of(cluster, &pods)
}

/// A rollout's worth of events: up to `events` pods of the namespace of
/// the first bound pod.
pub fn live_batch_in_one_namespace(
    cluster: &Cluster,
    events: usize,
) -> Vec<kplace::source::live::Change> {
    let bound = |p: PodId| cluster.pod(p).node.is_some();
    let first = (0..cluster.pods.len() as PodId)
        .find(|&p| bound(p))
        .expect("a bound pod");
    let namespace = cluster.pod(first).namespace;
    let pods: Vec<PodId> = (0..cluster.pods.len() as PodId)
        .filter(|&p| bound(p) && cluster.pod(p).namespace == namespace)
        .take(events)
        .collect();
    batch_of(cluster, &pods)
}

/// Deletes, creates and moves those pods, in turn.
fn batch_of(cluster: &Cluster, pods: &[PodId]) -> Vec<kplace::source::live::Change> {
    use kplace::source::live::Change;
    pods.iter()
        .enumerate()
        .map(|(i, &id)| {
            let pod = cluster.pod(id);
            match i % 4 {
                0 => Change::PodDeleted {
                    namespace: cluster.interner.resolve(pod.namespace).to_string(),
                    name: pod.name.to_string(),
                },
                1 => {
                    let mut created = pod.clone();
                    created.name = format!("{}-new", pod.name).into();
                    Change::Pod(Box::new(created))
                }
                _ => {
                    let mut moved = pod.clone();
                    let to = (pod.node.unwrap() as usize + 1 + i) % cluster.nodes.len();
                    moved.node_name = Some(cluster.nodes[to].name.clone());
                    Change::Pod(Box::new(moved))
                }
            }
        })
        .collect()
}
