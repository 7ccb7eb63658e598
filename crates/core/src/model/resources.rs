//! Integer resource vectors as the scheduler's `framework.Resource` keeps them.

use super::intern::Sym;

/// Requests or allocatable amounts: milli-CPU, bytes, a pod count and
/// extended ("scalar") resources such as `nvidia.com/gpu` or `hugepages-2Mi`.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Resources {
    pub milli_cpu: i64,
    pub memory: i64,
    pub ephemeral_storage: i64,
    pub allowed_pods: i64,
    /// Sorted by name; absent means 0.
    pub scalars: Vec<(Sym, i64)>,
}

impl Resources {
    pub fn scalar(&self, name: Sym) -> i64 {
        self.scalars
            .binary_search_by_key(&name, |s| s.0)
            .map(|i| self.scalars[i].1)
            .unwrap_or(0)
    }

    pub fn set_scalar(&mut self, name: Sym, value: i64) {
        match self.scalars.binary_search_by_key(&name, |s| s.0) {
            Ok(i) => self.scalars[i].1 = value,
            Err(i) => self.scalars.insert(i, (name, value)),
        }
    }

    /// Adds `other` (a pod's requests) into this node total, wrapping as
    /// upstream's int64 sums do (pods near the largest quantity overflow).
    pub fn add(&mut self, other: &Resources) {
        self.milli_cpu = self.milli_cpu.wrapping_add(other.milli_cpu);
        self.memory = self.memory.wrapping_add(other.memory);
        self.ephemeral_storage = self.ephemeral_storage.wrapping_add(other.ephemeral_storage);
        for &(name, v) in &other.scalars {
            let cur = self.scalar(name);
            self.set_scalar(name, cur.wrapping_add(v));
        }
    }

    /// Removes a pod's requests from this node total.
    pub fn subtract(&mut self, other: &Resources) {
        self.milli_cpu = self.milli_cpu.wrapping_sub(other.milli_cpu);
        self.memory = self.memory.wrapping_sub(other.memory);
        self.ephemeral_storage = self.ephemeral_storage.wrapping_sub(other.ephemeral_storage);
        for &(name, v) in &other.scalars {
            let cur = self.scalar(name);
            self.set_scalar(name, cur.wrapping_sub(v));
        }
    }
}

/// The cpu/memory pair used by scoring (`NonZeroRequested`).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct CpuMem {
    pub milli_cpu: i64,
    pub memory: i64,
}

impl CpuMem {
    /// Wraps past 2^63 as Go's int64 sums do.
    pub fn add(&mut self, o: CpuMem) {
        self.milli_cpu = self.milli_cpu.wrapping_add(o.milli_cpu);
        self.memory = self.memory.wrapping_add(o.memory);
    }
    pub fn subtract(&mut self, o: CpuMem) {
        self.milli_cpu = self.milli_cpu.wrapping_sub(o.milli_cpu);
        self.memory = self.memory.wrapping_sub(o.memory);
    }
}

/// `IsScalarResourceName`: extended, hugepages, attachable-volumes or a
/// `kubernetes.io/`-prefixed native resource.
pub fn is_scalar_resource(name: &str) -> bool {
    let prefixed_native = name.contains("kubernetes.io/");
    let extended = name.contains('/') && !prefixed_native && !name.starts_with("requests.");
    extended
        || prefixed_native
        || name.starts_with("hugepages-")
        || name.starts_with("attachable-volumes-")
}
