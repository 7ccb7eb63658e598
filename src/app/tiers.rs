//! Headroom per zone for a pod of priority P: free capacity, capacity held by
//! lower-priority pods P could preempt, and the part of that protected by
//! PDBs with no disruptions left. Cheap: sums over the cached tier rows.

use super::derived::Derived;

#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Split {
    pub allocatable: i64,
    pub free: i64,
    /// Held by lower-priority pods not protected by an exhausted PDB.
    pub preemptible: i64,
    /// Held by lower-priority pods whose eviction would break a PDB.
    pub protected: i64,
}

impl Split {
    /// Held by pods at P or above: out of reach.
    pub fn out_of_reach(&self) -> i64 {
        (self.allocatable - self.free - self.preemptible - self.protected).max(0)
    }
}

#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct ZoneHeadroom {
    pub zone: String,
    pub cpu: Split,
    pub memory: Split,
}

#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Headroom {
    pub priority: i32,
    pub label: String,
    /// The class at P has `preemptionPolicy: Never`: it cannot preempt.
    pub never: bool,
    pub zones: Vec<ZoneHeadroom>,
}

/// Headroom for the tier at `tier` (an index into `derived.tiers`).
pub fn headroom(derived: &Derived, tier: usize) -> Option<Headroom> {
    let row = derived.tiers.get(tier)?;
    let p = row.value;
    let mut zones: Vec<ZoneHeadroom> = derived
        .zones
        .iter()
        .map(|z| ZoneHeadroom {
            zone: z.name.clone(),
            cpu: Split {
                allocatable: z.cpu.allocatable,
                free: z.free_cpu,
                ..Default::default()
            },
            memory: Split {
                allocatable: z.memory.allocatable,
                free: z.free_memory,
                ..Default::default()
            },
        })
        .collect();
    if !row.never {
        for lower in derived.tiers.iter().filter(|t| t.value < p) {
            for (z, use_) in zones.iter_mut().zip(&lower.per_zone) {
                z.cpu.protected += use_.protected_cpu;
                z.cpu.preemptible += use_.cpu - use_.protected_cpu;
                z.memory.protected += use_.protected_memory;
                z.memory.preemptible += use_.memory - use_.protected_memory;
            }
        }
    }
    let label = if row.classes.is_empty() {
        format!("priority {p}")
    } else {
        format!("{} ({p})", row.classes)
    };
    Some(Headroom {
        priority: p,
        label,
        never: row.never,
        zones,
    })
}
