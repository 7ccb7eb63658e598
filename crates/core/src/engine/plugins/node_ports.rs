//! `nodeports`: host ports must be free on the node.

use crate::engine::status::{FilterResult, Plugin, Rejection};
use crate::model::NodeInfo;
use crate::model::pod::{HostPort, Pod};

pub const REASON: &str = "node(s) didn't have free ports for the requested pod ports";

/// `HostPortInfo.CheckConflict`: `0.0.0.0` conflicts with the same
/// protocol/port on any IP; a specific IP with itself and `0.0.0.0`.
fn conflicts(wanted: &HostPort, used: &[HostPort]) -> bool {
    used.iter().any(|u| {
        u.port == wanted.port
            && u.protocol == wanted.protocol
            && (&*wanted.ip == "0.0.0.0" || u.ip == wanted.ip || &*u.ip == "0.0.0.0")
    })
}

pub fn filter(pod: &Pod, info: &NodeInfo) -> FilterResult {
    if pod
        .host_ports
        .iter()
        .any(|p| conflicts(p, &info.used_ports))
    {
        return Err(Rejection::unschedulable(Plugin::NodePorts, REASON));
    }
    Ok(())
}
