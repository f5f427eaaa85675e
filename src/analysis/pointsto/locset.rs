//! Points-to sets of the native solver: sets of dense location ids. Whole programs have a
//! few thousand to tens of thousands of locations and most sets hold hundreds or thousands
//! of them (SQLite: 20,000 locations, 1,500 per set on average), so a large set is a plain
//! bitset, where adding one set to another is a pass over words and adding one location
//! is a bit operation. A small set is a sorted vector, so that the many nodes that point to
//! one or two objects, and the small differences that travel along edges, stay small.

/// Above this many elements a set is a bitset.
const SPARSE_MAX: usize = 32;

#[derive(Clone, Debug)]
pub enum LocSet {
    /// Sorted, at most `SPARSE_MAX` elements.
    Sparse(Vec<u32>),
    /// Bit `i` of word `i / 64` is location `i`; `len` counts the set bits.
    Dense { words: Vec<u64>, len: usize },
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
                if w >= words.len() {
                    words.resize(w + 1, 0);
                }
                if words[w] & bit != 0 {
                    return false;
                }
                words[w] |= bit;
                *len += 1;
                true
            }
        }
    }

    pub fn iter(&self) -> Iter<'_> {
        match self {
            LocSet::Sparse(v) => Iter::Sparse(v.iter()),
            LocSet::Dense { words, .. } => Iter::Dense {
                words,
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
            (LocSet::Sparse(s), LocSet::Dense { .. }) => {
                *self = Self::dense_from(s);
                self.add_all(other)
            }
            (LocSet::Dense { words, len }, LocSet::Dense { words: o, .. }) => {
                if o.len() > words.len() {
                    words.resize(o.len(), 0);
                }
                let mut new = vec![0u64; o.len()];
                let mut added = 0;
                for (i, (&ow, w)) in o.iter().zip(words.iter_mut()).enumerate() {
                    let n = ow & !*w;
                    if n != 0 {
                        *w |= n;
                        new[i] = n;
                        added += n.count_ones() as usize;
                    }
                }
                *len += added;
                LocSet::Dense {
                    words: new,
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
        LocSet::Dense { words, len }.normalised()
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
            words,
            len: ids.len(),
        }
    }

    /// Small sets are sparse (a difference of a few elements is iterated cheaply).
    fn normalised(self) -> LocSet {
        match self {
            LocSet::Dense { len, .. } if len <= SPARSE_MAX => LocSet::Sparse(self.iter().collect()),
            other => other,
        }
    }
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
                }
            }
        }
    }
}
