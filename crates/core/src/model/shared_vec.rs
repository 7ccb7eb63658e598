//! A vector whose clones share their elements until one is written.
//!
//! A what-if, a rescheduled pod's answer or a disruption works on a fork of
//! the cluster that differs from it in a handful of pods and nodes. With a
//! plain `Vec`, forking a 150,000-pod cluster deep-copies every pod (a third
//! of a second); here a fork copies one pointer per chunk, and writing an
//! element copies only the chunk that holds it.

use std::ops::{Index, IndexMut};
use std::sync::{Arc, Weak};

/// Elements per chunk, as a power of two, unless a vector says otherwise:
/// small enough that copying one chunk on write is cheap, large enough
/// that a fork of 150,000 elements is a few hundred pointers. Vectors of
/// large elements written one at a time (a live feed's pods and nodes)
/// choose smaller chunks, so each write copies less.
pub const DEFAULT_CHUNK_BITS: u32 = 8;

/// A `Vec<T>` in shared, copy-on-write chunks of `2^BITS` elements (every
/// chunk but the last is full).
#[derive(Clone)]
pub struct SharedVec<T, const BITS: u32 = DEFAULT_CHUNK_BITS> {
    chunks: Vec<Arc<Vec<T>>>,
    len: usize,
}

impl<T, const BITS: u32> SharedVec<T, BITS> {
    const CHUNK: usize = 1 << BITS;
    const MASK: usize = Self::CHUNK - 1;
}

impl<T, const BITS: u32> Default for SharedVec<T, BITS> {
    fn default() -> Self {
        SharedVec {
            chunks: Vec::new(),
            len: 0,
        }
    }
}

impl<T: std::fmt::Debug, const BITS: u32> std::fmt::Debug for SharedVec<T, BITS> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_list().entries(self.iter()).finish()
    }
}

impl<T: PartialEq, const BITS: u32> PartialEq for SharedVec<T, BITS> {
    fn eq(&self, other: &Self) -> bool {
        self.len == other.len && self.iter().eq(other.iter())
    }
}

impl<T, const BITS: u32> SharedVec<T, BITS> {
    pub fn new() -> Self {
        Self::default()
    }

    pub fn len(&self) -> usize {
        self.len
    }

    pub fn is_empty(&self) -> bool {
        self.len == 0
    }

    pub fn get(&self, i: usize) -> Option<&T> {
        (i < self.len).then(|| &self.chunks[i >> BITS][i & Self::MASK])
    }

    pub fn iter(&self) -> impl DoubleEndedIterator<Item = &T> + Clone + '_ {
        self.chunks.iter().flat_map(|c| c.iter())
    }

    pub fn first(&self) -> Option<&T> {
        self.get(0)
    }

    pub fn last(&self) -> Option<&T> {
        self.len.checked_sub(1).and_then(|i| self.get(i))
    }
}

impl<T: Clone, const BITS: u32> SharedVec<T, BITS> {
    pub fn push(&mut self, x: T) {
        if self.len & Self::MASK == 0 {
            self.chunks.push(Arc::new(Vec::with_capacity(Self::CHUNK)));
        }
        let last = self.chunks.last_mut().expect("a chunk was just ensured");
        Arc::make_mut(last).push(x);
        self.len += 1;
    }

    /// The element, copying its chunk first if another fork shares it.
    pub fn get_mut(&mut self, i: usize) -> Option<&mut T> {
        if i >= self.len {
            return None;
        }
        Some(&mut Arc::make_mut(&mut self.chunks[i >> BITS])[i & Self::MASK])
    }

    pub fn pop(&mut self) -> Option<T> {
        let last = self.chunks.last_mut()?;
        let x = Arc::make_mut(last).pop();
        if last.is_empty() {
            self.chunks.pop();
        }
        self.len -= 1;
        x
    }

    /// Swaps two elements, copying only their chunks if shared.
    pub fn swap(&mut self, i: usize, j: usize) {
        assert!(
            i < self.len && j < self.len,
            "swap of {i} and {j} out of range for length {}",
            self.len
        );
        let (a, b) = (i.min(j), i.max(j));
        if a >> BITS == b >> BITS {
            Arc::make_mut(&mut self.chunks[a >> BITS]).swap(a & Self::MASK, b & Self::MASK);
            return;
        }
        let (low, high) = self.chunks.split_at_mut(b >> BITS);
        std::mem::swap(
            &mut Arc::make_mut(&mut low[a >> BITS])[a & Self::MASK],
            &mut Arc::make_mut(&mut high[0])[b & Self::MASK],
        );
    }

    pub fn resize(&mut self, len: usize, value: T) {
        self.truncate(len);
        while self.len < len {
            self.push(value.clone());
        }
    }

    pub fn truncate(&mut self, len: usize) {
        if len >= self.len {
            return;
        }
        let chunks = len.div_ceil(Self::CHUNK);
        self.chunks.truncate(chunks);
        if let Some(last) = self.chunks.last_mut() {
            let keep = len - (chunks - 1) * Self::CHUNK;
            Arc::make_mut(last).truncate(keep);
        }
        self.len = len;
    }
}

impl<T: Clone + Send + Sync, const BITS: u32> SharedVec<T, BITS> {
    /// A copy with `change` applied to each element `touches` selects,
    /// made on both cores: a chunk with no such element is shared with
    /// `self`, the others are copied once (a lost zone renumbers the node
    /// of nearly every pod).
    pub fn changed_where(
        &self,
        touches: impl Fn(&T) -> bool + Sync,
        change: impl Fn(&mut T) + Sync,
    ) -> Self {
        let (chunks, _) = kplace_split::build(
            self.chunks.len(),
            |c| {
                let chunk = &self.chunks[c];
                if !chunk.iter().any(&touches) {
                    return Arc::clone(chunk);
                }
                let mut copy = Vec::with_capacity(Self::CHUNK);
                for x in chunk.iter() {
                    let mut x = x.clone();
                    if touches(&x) {
                        change(&mut x);
                    }
                    copy.push(x);
                }
                Arc::new(copy)
            },
            |_, _| (),
        );
        SharedVec {
            chunks,
            len: self.len,
        }
    }
}

/// Whether a [`SharedVec`] is still what it was when watched, without
/// holding its elements: every write to a shared vector goes through
/// `Arc::make_mut`, which moves a chunk that is watched (weakly referenced)
/// to a new allocation even when no fork shares it, and a watched
/// allocation is never reused while the watch lives. So a vector whose
/// chunks are all the watched ones, in order, holds the same elements.
pub struct Watch<T> {
    chunks: Vec<Weak<Vec<T>>>,
    len: usize,
}

impl<T, const BITS: u32> SharedVec<T, BITS> {
    /// A watch on the vector as it is now.
    pub fn watch(&self) -> Watch<T> {
        Watch {
            chunks: self.chunks.iter().map(Arc::downgrade).collect(),
            len: self.len,
        }
    }
}

impl<T> Watch<T> {
    /// `v` holds exactly the elements the watched vector held (it is that
    /// vector, unwritten since, or a fork of it that shares every chunk).
    pub fn unchanged<const BITS: u32>(&self, v: &SharedVec<T, BITS>) -> bool {
        self.len == v.len
            && self.chunks.len() == v.chunks.len()
            && self
                .chunks
                .iter()
                .zip(&v.chunks)
                .all(|(w, c)| std::ptr::eq(w.as_ptr(), Arc::as_ptr(c)))
    }
}

impl<T, const BITS: u32> Index<usize> for SharedVec<T, BITS> {
    type Output = T;
    fn index(&self, i: usize) -> &T {
        // The chunks hold exactly `len` elements, so an index past the end
        // fails their own bounds checks; this check only names the length
        // (in debug builds: it ran on every node access of a placement).
        debug_assert!(
            i < self.len,
            "index {i} out of range for length {}",
            self.len
        );
        &self.chunks[i >> BITS][i & Self::MASK]
    }
}

impl<T: Clone, const BITS: u32> IndexMut<usize> for SharedVec<T, BITS> {
    fn index_mut(&mut self, i: usize) -> &mut T {
        let len = self.len;
        self.get_mut(i)
            .unwrap_or_else(|| panic!("index {i} out of range for length {len}"))
    }
}

impl<T: Clone, const BITS: u32> FromIterator<T> for SharedVec<T, BITS> {
    fn from_iter<I: IntoIterator<Item = T>>(iter: I) -> Self {
        let mut v = SharedVec::new();
        for x in iter {
            v.push(x);
        }
        v
    }
}

impl<T: Clone, const BITS: u32> From<Vec<T>> for SharedVec<T, BITS> {
    fn from(v: Vec<T>) -> Self {
        v.into_iter().collect()
    }
}

/// Iterates one chunk's elements.
type ChunkIter<'a, T> = fn(&'a Arc<Vec<T>>) -> std::slice::Iter<'a, T>;

impl<'a, T, const BITS: u32> IntoIterator for &'a SharedVec<T, BITS> {
    type Item = &'a T;
    type IntoIter = std::iter::FlatMap<
        std::slice::Iter<'a, Arc<Vec<T>>>,
        std::slice::Iter<'a, T>,
        ChunkIter<'a, T>,
    >;
    fn into_iter(self) -> Self::IntoIter {
        self.chunks.iter().flat_map(|c| c.iter())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const CHUNK: usize = 1 << DEFAULT_CHUNK_BITS;

    /// A watch sees every write, including one to a chunk no fork shares
    /// (which `make_mut` would otherwise write in place), and holds true
    /// for forks that share every chunk.
    #[test]
    fn a_watch_tells_a_written_vector_from_an_unwritten_one() {
        let mut v: SharedVec<u32> = (0..3 * CHUNK as u32).collect();
        let watch = v.watch();
        assert!(watch.unchanged(&v));
        let fork = v.clone();
        assert!(watch.unchanged(&fork));
        // The only strong owner writes: the chunk moves, the watch sees it.
        v[CHUNK + 1] = 7;
        assert!(!watch.unchanged(&v));
        assert!(watch.unchanged(&fork), "the fork was not written");
        let mut unshared: SharedVec<u32> = (0..3 * CHUNK as u32).collect();
        let watch = unshared.watch();
        unshared[2] = 2;
        assert!(!watch.unchanged(&unshared), "a write of the same value");
        let mut grown: SharedVec<u32> = (0..3 * CHUNK as u32).collect();
        let watch = grown.watch();
        grown.push(1);
        assert!(!watch.unchanged(&grown));
        grown.pop();
        // The pushed chunk is gone again: the very same chunks remain.
        assert!(watch.unchanged(&grown));
        grown.pop();
        assert!(!watch.unchanged(&grown), "the last chunk was written");
        let equal: SharedVec<u32> = (0..3 * CHUNK as u32).collect();
        assert!(!watch.unchanged(&equal), "equal elements, other chunks");
    }

    #[test]
    fn changed_where_copies_only_the_chunks_it_changes() {
        let n = 600 * CHUNK + 5;
        let v: SharedVec<usize> = (0..n).collect();
        let w = v.changed_where(|&x| x % (7 * CHUNK) == 3, |x| *x += n);
        assert_eq!(w.len(), n);
        for (i, (&a, &b)) in v.iter().zip(w.iter()).enumerate() {
            let changed = i % (7 * CHUNK) == 3;
            assert_eq!(b, if changed { a + n } else { a }, "element {i}");
        }
        for (c, (a, b)) in v.chunks.iter().zip(&w.chunks).enumerate() {
            let touched = (c * CHUNK..(c + 1) * CHUNK).any(|i| i % (7 * CHUNK) == 3);
            assert_eq!(Arc::ptr_eq(a, b), !touched, "chunk {c}");
        }
        assert!(v.iter().copied().eq(0..n), "the original is unchanged");
    }

    #[test]
    fn behaves_as_a_vec_across_chunk_boundaries() {
        let n = 3 * CHUNK + 7;
        let v: SharedVec<usize> = (0..n).collect();
        assert_eq!(v.len(), n);
        assert!(v.iter().copied().eq(0..n));
        assert!((&v).into_iter().rev().copied().eq((0..n).rev()));
        assert_eq!(v[CHUNK], CHUNK);
        assert_eq!(v.get(n), None);
        assert_eq!(v.last(), Some(&(n - 1)));
        let mut t = v.clone();
        t.truncate(CHUNK + 1);
        assert!(t.iter().copied().eq(0..=CHUNK));
        t.push(99);
        assert_eq!(t[CHUNK + 1], 99);
        t.truncate(CHUNK);
        assert!(t.iter().copied().eq(0..CHUNK));
        assert_eq!(t.pop(), Some(CHUNK - 1));
        assert_eq!(t.len(), CHUNK - 1);
        t.resize(CHUNK + 2, 7);
        assert_eq!(
            (t[CHUNK - 2], t[CHUNK - 1], t[CHUNK + 1]),
            (CHUNK - 2, 7, 7)
        );
        let mut empty = SharedVec::<u8>::new();
        assert_eq!(empty.pop(), None);
    }

    #[test]
    fn a_write_to_a_fork_leaves_the_original_alone_and_copies_one_chunk() {
        let original: SharedVec<String> = (0..2 * CHUNK).map(|i| i.to_string()).collect();
        let mut fork = original.clone();
        fork[CHUNK + 3] = "changed".into();
        fork.push("new".into());
        assert_eq!(original[CHUNK + 3], (CHUNK + 3).to_string());
        assert_eq!(original.len(), 2 * CHUNK);
        assert_eq!(fork[CHUNK + 3], "changed");
        assert_eq!(fork.len(), 2 * CHUNK + 1);
        // The untouched chunk is still shared; the written one is not.
        assert!(Arc::ptr_eq(&original.chunks[0], &fork.chunks[0]));
        assert!(!Arc::ptr_eq(&original.chunks[1], &fork.chunks[1]));
    }

    #[test]
    fn swap_within_and_across_chunks_leaves_a_fork_alone() {
        let original: SharedVec<usize> = (0..3 * CHUNK).collect();
        let mut fork = original.clone();
        fork.swap(1, 2);
        fork.swap(5, 2 * CHUNK + 9);
        fork.swap(7, 7);
        let mut expected: Vec<usize> = (0..3 * CHUNK).collect();
        expected.swap(1, 2);
        expected.swap(5, 2 * CHUNK + 9);
        assert!(fork.iter().copied().eq(expected));
        assert!(original.iter().copied().eq(0..3 * CHUNK));
        // The untouched middle chunk is still shared.
        assert!(Arc::ptr_eq(&fork.chunks[1], &original.chunks[1]));
    }
    #[test]
    fn small_chunks_copy_only_the_written_chunk() {
        // Chunks of 4: element 9 lives in the third.
        let original: SharedVec<String, 2> = (0..14).map(|i| i.to_string()).collect();
        assert_eq!(original.chunks.len(), 4);
        let mut fork = original.clone();
        fork[9] = "changed".into();
        fork.swap(0, 13);
        assert!(fork.iter().map(String::as_str).eq([
            "13", "1", "2", "3", "4", "5", "6", "7", "8", "changed", "10", "11", "12", "0"
        ]));
        assert!(original.iter().cloned().eq((0..14).map(|i| i.to_string())));
        let shared: Vec<bool> = (0..4)
            .map(|c| Arc::ptr_eq(&original.chunks[c], &fork.chunks[c]))
            .collect();
        assert_eq!(shared, [false, true, false, false]);
        fork.truncate(5);
        assert_eq!(fork.len(), 5);
        assert_eq!(fork.last().map(String::as_str), Some("4"));
    }
}
