//! Labels and label selectors over interned strings.
//!
//! Mirrors `apimachinery/pkg/labels`: a selector is a list of requirements
//! that must all hold; `LabelSelector` distinguishes the nil selector
//! (matches nothing) from the empty one (matches everything).

use super::intern::{Interner, Sym};

/// A label set, sorted by key for binary search.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Labels(Box<[(Sym, Sym)]>);

impl Labels {
    pub fn new(mut pairs: Vec<(Sym, Sym)>) -> Self {
        pairs.sort_unstable_by_key(|p| p.0);
        pairs.dedup_by_key(|p| p.0);
        Labels(pairs.into_boxed_slice())
    }

    pub fn get(&self, key: Sym) -> Option<Sym> {
        self.0
            .binary_search_by_key(&key, |p| p.0)
            .ok()
            .map(|i| self.0[i].1)
    }

    pub fn contains_key(&self, key: Sym) -> bool {
        self.get(key).is_some()
    }

    pub fn iter(&self) -> impl Iterator<Item = (Sym, Sym)> + '_ {
        self.0.iter().copied()
    }

    pub fn len(&self) -> usize {
        self.0.len()
    }

    pub fn is_empty(&self) -> bool {
        self.0.is_empty()
    }

    /// Every pair of `subset` is present here with the same value.
    pub fn contains_all(&self, subset: &[(Sym, Sym)]) -> bool {
        subset.iter().all(|&(k, v)| self.get(k) == Some(v))
    }

    pub fn to_strings(&self, interner: &Interner) -> Vec<(String, String)> {
        self.iter()
            .map(|(k, v)| {
                (
                    interner.resolve(k).to_string(),
                    interner.resolve(v).to_string(),
                )
            })
            .collect()
    }
}

/// Set-based selector operators (`metav1.LabelSelectorOperator`).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum SetOperator {
    In,
    NotIn,
    Exists,
    DoesNotExist,
}

/// One requirement of a label selector.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct Requirement {
    pub key: Sym,
    pub op: SetOperator,
    /// Sorted, deduplicated.
    pub values: Box<[Sym]>,
}

impl Requirement {
    pub fn equals(key: Sym, value: Sym) -> Self {
        Requirement {
            key,
            op: SetOperator::In,
            values: Box::new([value]),
        }
    }

    pub fn matches(&self, labels: &Labels) -> bool {
        let got = labels.get(self.key);
        match self.op {
            SetOperator::In => got.is_some_and(|v| self.values.binary_search(&v).is_ok()),
            SetOperator::NotIn => got.is_none_or(|v| self.values.binary_search(&v).is_err()),
            SetOperator::Exists => got.is_some(),
            SetOperator::DoesNotExist => got.is_none(),
        }
    }
}

/// A parsed `metav1.LabelSelector`.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub enum LabelSelector {
    /// A nil selector: matches no object.
    Nothing,
    /// All requirements must hold; none at all matches everything.
    Requirements(Box<[Requirement]>),
}

impl LabelSelector {
    pub fn everything() -> Self {
        LabelSelector::Requirements(Box::new([]))
    }

    pub fn matches(&self, labels: &Labels) -> bool {
        match self {
            LabelSelector::Nothing => false,
            LabelSelector::Requirements(reqs) => reqs.iter().all(|r| r.matches(labels)),
        }
    }

    /// The empty selector `{}`, which matches every object.
    pub fn is_everything(&self) -> bool {
        matches!(self, LabelSelector::Requirements(r) if r.is_empty())
    }

    pub fn requirements(&self) -> &[Requirement] {
        match self {
            LabelSelector::Nothing => &[],
            LabelSelector::Requirements(r) => r,
        }
    }

    /// Adds requirements (as `matchLabelKeys` does). A nil selector stays nil.
    pub fn with_added(&self, extra: impl IntoIterator<Item = Requirement>) -> Self {
        match self {
            LabelSelector::Nothing => LabelSelector::Nothing,
            LabelSelector::Requirements(r) => {
                let mut all = r.to_vec();
                all.extend(extra);
                LabelSelector::Requirements(all.into_boxed_slice())
            }
        }
    }

    /// Human form, as `kubectl` prints selectors (`app=web,tier in (a,b)`).
    pub fn display(&self, interner: &Interner) -> String {
        match self {
            LabelSelector::Nothing => "<none>".to_string(),
            LabelSelector::Requirements(r) if r.is_empty() => "<everything>".to_string(),
            LabelSelector::Requirements(r) => r
                .iter()
                .map(|req| {
                    let key = interner.resolve(req.key);
                    let values: Vec<&str> =
                        req.values.iter().map(|v| interner.resolve(*v)).collect();
                    match req.op {
                        SetOperator::In if values.len() == 1 => format!("{key}={}", values[0]),
                        SetOperator::In => format!("{key} in ({})", values.join(",")),
                        SetOperator::NotIn => format!("{key} notin ({})", values.join(",")),
                        SetOperator::Exists => key.to_string(),
                        SetOperator::DoesNotExist => format!("!{key}"),
                    }
                })
                .collect::<Vec<_>>()
                .join(","),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn nil_matches_nothing_empty_matches_all() {
        let mut i = Interner::default();
        let labels = Labels::new(vec![(i.intern("app"), i.intern("web"))]);
        assert!(!LabelSelector::Nothing.matches(&labels));
        assert!(LabelSelector::everything().matches(&labels));
        assert!(LabelSelector::everything().matches(&Labels::default()));
    }

    #[test]
    fn not_in_matches_absent_key() {
        let mut i = Interner::default();
        let app = i.intern("app");
        let web = i.intern("web");
        let req = Requirement {
            key: app,
            op: SetOperator::NotIn,
            values: Box::new([web]),
        };
        assert!(req.matches(&Labels::default()));
        assert!(!req.matches(&Labels::new(vec![(app, web)])));
    }
}
