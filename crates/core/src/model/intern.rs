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

/// Maps strings to [`Sym`]s and back.
#[derive(Clone, Default, Debug)]
pub struct Interner {
    map: FxHashMap<Arc<str>, Sym>,
    strings: Vec<Arc<str>>,
}

impl Interner {
    pub fn intern(&mut self, s: &str) -> Sym {
        if let Some(&sym) = self.map.get(s) {
            return sym;
        }
        let sym = Sym(self.strings.len() as u32);
        let shared: Arc<str> = Arc::from(s);
        self.strings.push(shared.clone());
        self.map.insert(shared, sym);
        sym
    }

    /// The symbol of a string seen before, without adding it.
    pub fn lookup(&self, s: &str) -> Option<Sym> {
        self.map.get(s).copied()
    }

    pub fn resolve(&self, sym: Sym) -> &str {
        &self.strings[sym.index()]
    }

    /// Adds the strings `newer` interned after this interner was cloned
    /// from it, so symbols of objects converted with `newer` since then
    /// mean the same here. Interners only grow, so this is a copy of the
    /// tail; `false` (and nothing changed) when this one is not a prefix of
    /// `newer` (it interned strings of its own since).
    pub fn catch_up(&mut self, newer: &Interner) -> bool {
        let n = self.strings.len();
        if n > newer.strings.len() || (n > 0 && self.strings[n - 1] != newer.strings[n - 1]) {
            return false;
        }
        for s in &newer.strings[n..] {
            self.map.insert(s.clone(), Sym(self.strings.len() as u32));
            self.strings.push(s.clone());
        }
        true
    }

    pub fn len(&self) -> usize {
        self.strings.len()
    }

    /// Every string, in the order interned (symbol 0 first).
    pub fn strings(&self) -> impl Iterator<Item = &str> {
        self.strings.iter().map(|s| &**s)
    }

    pub fn is_empty(&self) -> bool {
        self.strings.is_empty()
    }
}
