//! String interning: label keys and values become small integers so that
//! label matching and per-domain counting compare `u32`s, not strings.

use rustc_hash::FxHashMap;
use std::sync::Arc;

/// An interned string. Only meaningful with the [`Interner`] that made it.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct Sym(u32);

impl Sym {
    pub fn index(self) -> usize {
        self.0 as usize
    }
}

/// Maps strings to [`Sym`]s and back. Forks of a cluster share one table
/// until one interns a string the others lack: a live feed forks its model
/// for the views on every batch, and copying tens of thousands of strings
/// each time was a third of the fork.
#[derive(Clone, Default, Debug)]
pub struct Interner(Arc<Table>);

#[derive(Clone, Default, Debug)]
struct Table {
    map: FxHashMap<Arc<str>, Sym>,
    strings: Vec<Arc<str>>,
}

impl Interner {
    pub fn intern(&mut self, s: &str) -> Sym {
        if let Some(&sym) = self.0.map.get(s) {
            return sym;
        }
        let table = Arc::make_mut(&mut self.0);
        let sym = Sym(table.strings.len() as u32);
        let shared: Arc<str> = Arc::from(s);
        table.strings.push(shared.clone());
        table.map.insert(shared, sym);
        sym
    }

    /// The symbol of a string seen before, without adding it.
    pub fn lookup(&self, s: &str) -> Option<Sym> {
        self.0.map.get(s).copied()
    }

    pub fn resolve(&self, sym: Sym) -> &str {
        &self.0.strings[sym.index()]
    }

    /// Adds the strings `newer` interned after this interner was cloned
    /// from it, so symbols of objects converted with `newer` since then
    /// mean the same here. Interners only grow, so this is a copy of the
    /// tail; `false` (and nothing changed) when this one is not a prefix of
    /// `newer` (it interned strings of its own since).
    pub fn catch_up(&mut self, newer: &Interner) -> bool {
        let (mine, theirs) = (&self.0.strings, &newer.0.strings);
        let n = mine.len();
        if n > theirs.len() || (n > 0 && mine[n - 1] != theirs[n - 1]) {
            return false;
        }
        if n == theirs.len() {
            return true;
        }
        let table = Arc::make_mut(&mut self.0);
        for s in &newer.0.strings[n..] {
            table.map.insert(s.clone(), Sym(table.strings.len() as u32));
            table.strings.push(s.clone());
        }
        true
    }

    pub fn len(&self) -> usize {
        self.0.strings.len()
    }

    /// Every string, in the order interned (symbol 0 first).
    pub fn strings(&self) -> impl Iterator<Item = &str> {
        self.0.strings.iter().map(|s| &**s)
    }

    pub fn is_empty(&self) -> bool {
        self.0.strings.is_empty()
    }
}
