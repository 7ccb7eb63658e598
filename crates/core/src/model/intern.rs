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

    pub fn len(&self) -> usize {
        self.strings.len()
    }

    pub fn is_empty(&self) -> bool {
        self.strings.is_empty()
    }
}
