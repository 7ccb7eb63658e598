//! `nodename`: a pod that names its node fits only there.

use crate::engine::status::{FilterResult, Plugin, Rejection};
use crate::model::node::Node;
use crate::model::pod::Pod;

pub const REASON: &str = "node(s) didn't match the requested node name";

pub fn filter(pod: &Pod, node: &Node) -> FilterResult {
    match &pod.node_name {
        Some(name) if **name != *node.name => {
            Err(Rejection::unresolvable(Plugin::NodeName, REASON))
        }
        _ => Ok(()),
    }
}
