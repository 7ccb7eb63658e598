//! The line a field of an object is written on, for error messages. The
//! converter names a bad field by its path (`spec.containers[0].resources.
//! requests.cpu`); a YAML manifest's error then points at that line, not at
//! the object's first. The file is parsed again with spans, only when an
//! error is reported, so loading pays nothing for it.

use std::fmt;

use serde::de::{self, Deserialize, Deserializer, MapAccess, SeqAccess, Visitor};
use serde_saphyr::Spanned;

/// Visitor methods for scalar kinds, each giving `$value` (or `$f` of the
/// scalar).
macro_rules! scalars {
    (|$v:ident| $f:expr; $($name:ident($ty:ty)),* $(,)?) => {
        $(fn $name<E: de::Error>(self, $v: $ty) -> Result<Self::Value, E> {
            Ok($f)
        })*
    };
    ($value:expr; $($name:ident($ty:ty)),* $(,)?) => {
        $(fn $name<E: de::Error>(self, _: $ty) -> Result<Self::Value, E> {
            Ok($value)
        })*
    };
}

/// A YAML value with where each of its parts is written.
pub(crate) enum Tree {
    /// Each key with the line it is written on, and its value.
    Map(Vec<(String, usize, Spanned<Tree>)>),
    Seq(Vec<Spanned<Tree>>),
    Scalar,
}

/// The line of `path` under `root`: of the deepest part of the path that
/// is written, so a missing field points at the object that lacks it.
/// Paths join keys with `.` (keys may hold dots: `metadata.labels.app.
/// kubernetes.io/name`) and index lists, or name a map's key, in brackets.
pub(crate) fn line_of(root: &Spanned<Tree>, path: &str) -> usize {
    let mut at = root;
    let mut line = root.defined.line() as usize;
    let mut rest = path;
    loop {
        rest = rest.strip_prefix('.').unwrap_or(rest);
        if rest.is_empty() {
            break;
        }
        let Some((child, child_line, after)) = step(&at.value, rest) else {
            break;
        };
        at = child;
        line = child_line;
        rest = after;
    }
    line
}

/// The child `path` starts with, the line it is written on (its key's, in
/// a map), and the rest of the path after it.
fn step<'t, 'p>(tree: &'t Tree, path: &'p str) -> Option<(&'t Spanned<Tree>, usize, &'p str)> {
    let bracketed = path.strip_prefix('[').and_then(|p| p.split_once(']'));
    match tree {
        Tree::Seq(items) => {
            let (index, after) = bracketed?;
            let item = items.get(index.parse::<usize>().ok()?)?;
            Some((item, item.defined.line() as usize, after))
        }
        Tree::Map(entries) => {
            if let Some((key, after)) = bracketed {
                let (_, line, child) = entries.iter().find(|(k, ..)| k == key)?;
                return Some((child, *line, after));
            }
            // The longest key the path goes on from: `a.b` before `a`.
            let (key, line, child) = entries
                .iter()
                .filter(|(k, ..)| {
                    path.strip_prefix(k.as_str())
                        .is_some_and(|after| after.is_empty() || after.starts_with(['.', '[']))
                })
                .max_by_key(|(k, ..)| k.len())?;
            Some((child, *line, &path[key.len()..]))
        }
        Tree::Scalar => None,
    }
}

impl<'de> Deserialize<'de> for Tree {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        deserializer.deserialize_any(TreeVisitor)
    }
}

struct TreeVisitor;

impl<'de> Visitor<'de> for TreeVisitor {
    type Value = Tree;

    fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
        f.write_str("any YAML value")
    }

    fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<Tree, A::Error> {
        let mut entries = Vec::new();
        while let Some(key) = map.next_key::<Spanned<Key>>()? {
            let line = key.defined.line() as usize;
            entries.push((key.value.0, line, map.next_value()?));
        }
        Ok(Tree::Map(entries))
    }

    fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<Tree, A::Error> {
        let mut items = Vec::new();
        while let Some(item) = seq.next_element()? {
            items.push(item);
        }
        Ok(Tree::Seq(items))
    }

    fn visit_some<D: Deserializer<'de>>(self, d: D) -> Result<Tree, D::Error> {
        d.deserialize_any(self)
    }

    // Every scalar is a leaf (serde forwards the narrower kinds to these).
    scalars! { Tree::Scalar; visit_bool(bool), visit_i64(i64), visit_u64(u64), visit_i128(i128),
    visit_u128(u128), visit_f64(f64), visit_str(&str), visit_bytes(&[u8]) }

    fn visit_none<E: de::Error>(self) -> Result<Tree, E> {
        Ok(Tree::Scalar)
    }
    fn visit_unit<E: de::Error>(self) -> Result<Tree, E> {
        Ok(Tree::Scalar)
    }
}

/// A map key of any scalar kind, as text.
struct Key(String);

impl<'de> Deserialize<'de> for Key {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        struct KeyVisitor;
        impl Visitor<'_> for KeyVisitor {
            type Value = Key;
            fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
                f.write_str("a map key")
            }
            // A key as it is written, whatever scalar it parses as.
            scalars! { |v| Key(v.to_string()); visit_str(&str), visit_bool(bool),
            visit_i64(i64), visit_u64(u64), visit_f64(f64) }
            fn visit_unit<E: de::Error>(self) -> Result<Key, E> {
                Ok(Key(String::new()))
            }
        }
        deserializer.deserialize_any(KeyVisitor)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn tree(yaml: &str) -> Spanned<Tree> {
        serde_saphyr::from_str(yaml).unwrap()
    }

    const POD: &str = "\
apiVersion: v1
kind: Pod
metadata:
  name: web
  labels:
    app.kubernetes.io/name: web
spec:
  containers:
  - name: a
    image: nginx
  - name: b
    resources:
      requests:
        cpu: 2x
";

    #[test]
    fn a_field_path_finds_the_line_the_field_is_written_on() {
        let t = tree(POD);
        assert_eq!(line_of(&t, "spec.containers[1].resources.requests.cpu"), 14);
        assert_eq!(line_of(&t, "spec.containers[0].image"), 10);
        // Keys with dots, and keys named in brackets.
        assert_eq!(line_of(&t, "metadata.labels.app.kubernetes.io/name"), 6);
        assert_eq!(line_of(&t, "metadata.labels[app.kubernetes.io/name]"), 6);
        assert_eq!(
            line_of(&t, "spec.containers[1].resources.requests[cpu]"),
            14
        );
    }

    #[test]
    fn a_path_not_written_points_at_the_deepest_part_that_is() {
        let t = tree(POD);
        // No such container: the list's key; no such field: its object.
        assert_eq!(line_of(&t, "spec.containers[5].image"), 8);
        assert_eq!(line_of(&t, "spec.containers[1].resources.limits.cpu"), 12);
        assert_eq!(line_of(&t, "spec.containers[1].resources"), 12);
        assert_eq!(line_of(&t, "spec.containers[0].imageX"), 9);
        // The object itself, and a path through a scalar.
        assert_eq!(line_of(&t, ""), 1);
        assert_eq!(line_of(&t, "kind.x"), 2);
    }
}
