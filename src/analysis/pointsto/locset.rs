//! Points-to sets of the native solver: sets of dense location ids. Whole programs have a
//! few thousand to tens of thousands of locations and most sets hold hundreds or thousands
//! of them (SQLite: 20,000 locations, 1,500 per set on average), so a large set is a plain
//! bitset, where adding one set to another is a pass over words and adding one location
//! is a bit operation. A small set is a sorted vector, so that the many nodes that point to
//! one or two objects, and the small differences that travel along edges, stay small.
//!
//! A bitset's words are reference-counted and copied on write: a set that fills an empty
//! one is shared, not copied, and [`SetPool`] makes equal sets share their words. With
//! contexts most nodes hold one of a few hundred distinct large sets (Lua 2-callsite:
//! 290,000 bitsets, 538 distinct).

use std::hash::Hasher;
use std::rc::{Rc, Weak};

/// Above this many elements a set is a bitset.
const SPARSE_MAX: usize = 32;

#[derive(Clone, Debug)]
pub enum LocSet {
    /// Sorted; at most `SPARSE_MAX` elements, or a difference at most half the size of its
    /// bitset ([`LocSet::normalised`]).
    Sparse(Vec<u32>),
    /// Bit `i` of word `i / 64` is location `i`; `len` counts the set bits.
    Dense { words: Rc<Vec<u64>>, len: usize },
}

impl Default for LocSet {
    fn default() -> Self {
        LocSet::Sparse(Vec::new())
    }
}

impl LocSet {
    pub fn len(&self) -> usize {
        match self {
            LocSet::Sparse(v) => v.len(),
            LocSet::Dense { len, .. } => *len,
        }
    }

    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    pub fn contains(&self, id: u32) -> bool {
        match self {
            LocSet::Sparse(v) => v.binary_search(&id).is_ok(),
            LocSet::Dense { words, .. } => words
                .get(id as usize / 64)
                .is_some_and(|w| w & (1 << (id % 64)) != 0),
        }
    }

    /// Adds `id`; whether it was new.
    pub fn insert(&mut self, id: u32) -> bool {
        match self {
            LocSet::Sparse(v) => match v.binary_search(&id) {
                Ok(_) => false,
                Err(i) => {
                    v.insert(i, id);
                    if v.len() > SPARSE_MAX {
                        *self = Self::dense_from(v);
                    }
                    true
                }
            },
            LocSet::Dense { words, len } => {
                let (w, bit) = (id as usize / 64, 1u64 << (id % 64));
                if words.get(w).is_some_and(|&x| x & bit != 0) {
                    return false;
                }
                let words = Rc::make_mut(words);
                if w >= words.len() {
                    words.resize(w + 1, 0);
                }
                words[w] |= bit;
                *len += 1;
                true
            }
        }
    }

    /// The address of a bitset's words, which equal sets may share: a key for work done
    /// once per distinct set.
    pub fn words_address(&self) -> Option<usize> {
        match self {
            LocSet::Sparse(_) => None,
            LocSet::Dense { words, .. } => Some(Rc::as_ptr(words) as usize),
        }
    }

    pub fn iter(&self) -> Iter<'_> {
        match self {
            LocSet::Sparse(v) => Iter::Sparse(v.iter()),
            LocSet::Dense { words, .. } => Iter::Dense {
                words: words.as_slice(),
                next: 0,
                cur: 0,
            },
        }
    }

    /// Adds the elements of `other`; returns those that were not in `self`.
    pub fn add_all(&mut self, other: &LocSet) -> LocSet {
        match (&mut *self, other) {
            (_, LocSet::Sparse(o)) => {
                let mut new = Vec::new();
                for &id in o {
                    if self.insert(id) {
                        new.push(id);
                    }
                }
                LocSet::Sparse(new).normalised()
            }
            // Filling an empty set shares the words: the new elements are all of `other`.
            (LocSet::Sparse(s), LocSet::Dense { .. }) if s.is_empty() => {
                *self = other.clone();
                other.clone()
            }
            (LocSet::Sparse(s), LocSet::Dense { .. }) => {
                *self = Self::dense_from(s);
                self.add_all(other)
            }
            (LocSet::Dense { words, len }, LocSet::Dense { words: o, len: olen }) => {
                // The new elements first: a set that gains nothing is neither copied nor
                // allocated for.
                let gain = |i: usize| o[i] & !words.get(i).copied().unwrap_or(0);
                let Some(first) = (0..o.len()).find(|&i| gain(i) != 0) else {
                    return LocSet::default();
                };
                let mut new = vec![0u64; o.len()];
                let mut added = 0;
                for (i, n) in new.iter_mut().enumerate().skip(first) {
                    *n = gain(i);
                    added += n.count_ones() as usize;
                }
                let w = Rc::make_mut(words);
                if o.len() > w.len() {
                    w.resize(o.len(), 0);
                }
                for (w, n) in w.iter_mut().zip(&new) {
                    *w |= n;
                }
                *len += added;
                if added == *olen {
                    // Everything was new: share `other`'s words.
                    return other.clone();
                }
                LocSet::Dense {
                    words: Rc::new(new),
                    len: added,
                }
                .normalised()
            }
        }
    }

    /// The elements of `self` in `mask`, and those not in it.
    pub fn split(&self, mask: &LocSet) -> (LocSet, LocSet) {
        match (self, mask) {
            (LocSet::Dense { words, .. }, LocSet::Dense { words: m, .. }) => {
                let inside: Vec<u64> = words
                    .iter()
                    .enumerate()
                    .map(|(i, w)| w & m.get(i).copied().unwrap_or(0))
                    .collect();
                let outside: Vec<u64> = words.iter().zip(&inside).map(|(w, i)| w & !i).collect();
                (Self::from_words(inside), Self::from_words(outside))
            }
            _ => {
                let (inside, outside): (Vec<u32>, Vec<u32>) =
                    self.iter().partition(|&id| mask.contains(id));
                (Self::from_sorted(inside), Self::from_sorted(outside))
            }
        }
    }

    fn from_words(words: Vec<u64>) -> LocSet {
        let len = words.iter().map(|w| w.count_ones() as usize).sum();
        LocSet::Dense {
            words: Rc::new(words),
            len,
        }
        .normalised()
    }

    fn from_sorted(v: Vec<u32>) -> LocSet {
        if v.len() > SPARSE_MAX {
            Self::dense_from(&v)
        } else {
            LocSet::Sparse(v)
        }
    }

    fn dense_from(ids: &[u32]) -> LocSet {
        let mut words = vec![0u64; ids.last().map_or(0, |&m| m as usize / 64 + 1)];
        for &id in ids {
            words[id as usize / 64] |= 1 << (id % 64);
        }
        LocSet::Dense {
            words: Rc::new(words),
            len: ids.len(),
        }
    }

    /// Small sets are sparse (a difference of a few elements is iterated cheaply).
    /// So are differences whose vector takes at most half the memory of their bitset: the
    /// new elements of a large set, waiting in a queued node, are mostly few.
    fn normalised(self) -> LocSet {
        match self {
            LocSet::Dense { len, ref words } if len <= SPARSE_MAX.max(words.len()) => {
                LocSet::Sparse(self.iter().collect())
            }
            other => other,
        }
    }
}

/// Bitsets by content, so that equal sets share their words. The pool holds weak
/// references: a set that only the pool knows is freed, and a set that one node alone holds
/// is changed in place, not copied.
#[derive(Default)]
pub struct SetPool {
    by_hash: crate::fasthash::FastMap<u64, Vec<Weak<Vec<u64>>>>,
}

impl SetPool {
    /// Gives `set` the words of an equal pooled set, or pools its own.
    pub fn share(&mut self, set: &mut LocSet) {
        let LocSet::Dense { words, .. } = set else {
            return;
        };
        let content = trimmed(words);
        let mut h = crate::fasthash::FastHasher::default();
        content.iter().for_each(|&w| h.write_u64(w));
        let same = self.by_hash.entry(h.finish()).or_default();
        let pooled = same
            .iter()
            .filter_map(Weak::upgrade)
            .find(|p| trimmed(p) == content);
        match pooled {
            Some(p) => *words = p,
            None => same.push(Rc::downgrade(words)),
        }
    }

    /// Forgets the sets that were freed or changed since they were pooled; how many stay.
    pub fn sweep(&mut self) -> usize {
        self.by_hash.retain(|_, same| {
            same.retain(|p| p.strong_count() > 0);
            !same.is_empty()
        });
        self.by_hash.values().map(Vec::len).sum()
    }
}

/// The words without trailing zero words: equal sets have equal trimmed words.
fn trimmed(words: &[u64]) -> &[u64] {
    let end = words.iter().rposition(|&w| w != 0).map_or(0, |i| i + 1);
    &words[..end]
}

pub enum Iter<'a> {
    Sparse(std::slice::Iter<'a, u32>),
    Dense {
        words: &'a [u64],
        /// The index of the word after `cur`.
        next: usize,
        /// What is left of the current word.
        cur: u64,
    },
}

impl Iterator for Iter<'_> {
    type Item = u32;

    fn next(&mut self) -> Option<u32> {
        match self {
            Iter::Sparse(it) => it.next().copied(),
            Iter::Dense { words, next, cur } => {
                while *cur == 0 {
                    *cur = *words.get(*next)?;
                    *next += 1;
                }
                let bit = cur.trailing_zeros();
                *cur &= *cur - 1;
                Some((*next as u32 - 1) * 64 + bit)
            }
        }
    }
}

impl<'a> IntoIterator for &'a LocSet {
    type Item = u32;
    type IntoIter = Iter<'a>;
    fn into_iter(self) -> Iter<'a> {
        self.iter()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::collections::BTreeSet;

    /// A deterministic mix of sparse and dense sets, checked against BTreeSet.
    #[test]
    fn operations_agree_with_a_btreeset() {
        let mut seed = 0x2545_f491_4f6c_dd1du64;
        let mut next = |m: u32| {
            seed ^= seed << 13;
            seed ^= seed >> 7;
            seed ^= seed << 17;
            (seed % m as u64) as u32
        };
        for round in 0..200 {
            let universe = [40, 300, 5000][round % 3];
            let sizes = [next(8), next(100), next(600)];
            let sets: Vec<(LocSet, BTreeSet<u32>)> = sizes
                .iter()
                .map(|&n| {
                    let (mut s, mut b) = (LocSet::default(), BTreeSet::new());
                    for _ in 0..n {
                        let id = next(universe);
                        assert_eq!(s.insert(id), b.insert(id));
                    }
                    (s, b)
                })
                .collect();
            for (a, ab) in &sets {
                assert_eq!(
                    a.iter().collect::<Vec<_>>(),
                    ab.iter().copied().collect::<Vec<_>>()
                );
                assert_eq!(a.len(), ab.len());
                for (b, bb) in &sets {
                    let mut u = a.clone();
                    let new = u.add_all(b);
                    let want_new: Vec<u32> = bb.difference(ab).copied().collect();
                    assert_eq!(new.iter().collect::<Vec<_>>(), want_new);
                    let want: Vec<u32> = ab.union(bb).copied().collect();
                    assert_eq!(u.iter().collect::<Vec<_>>(), want);
                    assert_eq!(u.len(), want.len());
                    let (inside, outside) = a.split(b);
                    let want_in: Vec<u32> = ab.intersection(bb).copied().collect();
                    let want_out: Vec<u32> = ab.difference(bb).copied().collect();
                    assert_eq!(inside.iter().collect::<Vec<_>>(), want_in);
                    assert_eq!(outside.iter().collect::<Vec<_>>(), want_out);
                    assert!(want_in.iter().all(|&i| a.contains(i) && b.contains(i)));
                    // Words shared by the union (or the pool) are copied on write: the
                    // sets it came from keep their elements.
                    let mut pool = SetPool::default();
                    let (mut p, mut q) = (a.clone(), u.clone());
                    pool.share(&mut p);
                    pool.share(&mut q);
                    let mut e = LocSet::default();
                    e.add_all(&q);
                    e.insert(universe + 1);
                    pool.share(&mut e);
                    assert_eq!(u.iter().collect::<Vec<_>>(), want);
                    assert_eq!(q.iter().collect::<Vec<_>>(), want);
                    assert_eq!(a.iter().collect::<Vec<_>>(), ab.iter().copied().collect::<Vec<_>>());
                    assert_eq!(b.iter().collect::<Vec<_>>(), bb.iter().copied().collect::<Vec<_>>());
                    assert_eq!(e.len(), want.len() + 1);
                }
            }
        }
    }

    /// Equal bitsets share one allocation once pooled; a set that one node alone holds is
    /// changed in place.
    #[test]
    fn the_pool_shares_equal_sets() {
        let dense = |ids: std::ops::Range<u32>| {
            let mut s = LocSet::default();
            ids.for_each(|i| {
                s.insert(i);
            });
            s
        };
        let (mut a, mut b, mut c) = (dense(0..100), dense(0..100), dense(0..101));
        let mut pool = SetPool::default();
        for s in [&mut a, &mut b, &mut c] {
            pool.share(s);
        }
        assert_eq!(a.words_address(), b.words_address());
        assert_ne!(a.words_address(), c.words_address());
        assert_eq!(pool.sweep(), 2);
        let buffer = |s: &LocSet| match s {
            LocSet::Dense { words, .. } => words.as_ptr(),
            LocSet::Sparse(_) => unreachable!(),
        };
        let before = buffer(&c);
        c.insert(127);
        assert_eq!(buffer(&c), before, "not copied: the pool's reference is weak");
        drop(c);
        assert_eq!(pool.sweep(), 1);
    }
}
