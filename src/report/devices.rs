//! The devices part of an answer, worded once for the table and the
//! Placement view: what the pod's claims get on the chosen node, or, when
//! DynamicResources rejected nodes, how many matching devices each node has
//! free and who holds the rest.

use crate::engine::Placement;
use crate::model::Cluster;

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Kind {
    Heading,
    /// A device the pod gets.
    Picked,
    Node,
    /// A request with free devices on the node.
    Request,
    /// A request with none free there.
    Short,
    /// A device another claim holds.
    Held,
    More,
}

#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Line {
    pub kind: Kind,
    /// Indented for a plain listing.
    pub text: String,
}

fn line(kind: Kind, text: String) -> Line {
    Line { kind, text }
}

/// `limit` caps the nodes listed (0 = all).
pub fn lines(cluster: &Cluster, p: &Placement, limit: usize) -> Vec<Line> {
    let mut out = Vec::new();
    if !p.devices.is_empty() {
        out.push(line(Kind::Heading, "Devices for the pod's claims".into()));
        for d in &p.devices {
            let how = if d.already_allocated {
                "already allocated"
            } else {
                "the allocator's pick"
            };
            out.push(line(
                Kind::Picked,
                format!(
                    "  {} {} → {}/{}/{}  ({how})",
                    d.claim, d.request, d.driver, d.pool, d.device
                ),
            ));
        }
    }
    let nodes = &p.device_availability;
    if nodes.is_empty() {
        return out;
    }
    let shown = if limit == 0 {
        nodes.len()
    } else {
        nodes.len().min(limit)
    };
    out.push(line(
        Kind::Heading,
        format!(
            "Matching devices per node ({} node(s) have some, most free first)",
            nodes.len()
        ),
    ));
    for n in nodes.iter().take(shown) {
        out.push(line(Kind::Node, format!("  {}", cluster.node(n.node).name)));
        for r in &n.requests {
            let wanted = r.count.map_or("all".to_string(), |c| c.to_string());
            let enough = match r.count {
                Some(c) => r.free >= c,
                None => r.matching > 0 && r.free == r.matching,
            };
            out.push(line(
                if enough { Kind::Request } else { Kind::Short },
                format!(
                    "    {} {} ({}, wants {wanted}): {} free of {} matching",
                    r.claim, r.request, r.device_class, r.free, r.matching
                ),
            ));
            for h in &r.held {
                let pods = if h.pods.is_empty() {
                    String::new()
                } else {
                    format!(", reserved for {}", h.pods.join(", "))
                };
                out.push(line(
                    Kind::Held,
                    format!("      {} held by claim {}{pods}", h.device, h.claim),
                ));
            }
        }
    }
    if shown < nodes.len() {
        out.push(line(
            Kind::More,
            format!("  … {} more node(s)", nodes.len() - shown),
        ));
    }
    out
}
