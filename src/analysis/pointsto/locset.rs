//! Points-to sets of the native solver: sets of dense location ids. Whole programs have a
//! few thousand to tens of thousands of locations and most sets hold hundreds or thousands
//! of them (SQLite: 20,000 locations, 1,500 per set on average), so a large set is a
//! bitset, where adding one set to another is a pass over words and adding one location
//! is a bit operation. A small set is a sorted vector, so that the many nodes that point to
//! one or two objects, and the small differences that travel along edges, stay small.
//!
//! A bitset is a vector of chunks of 2,048 bits, absent where empty. Both the vector and
//! the chunks are reference-counted and copied on write: a set that fills an empty one is
//! shared, not copied; a set that gains a location copies one chunk, not the whole set; and
//! adding a set that shares a chunk skips that chunk. [`SetPool`] makes equal chunks and
//! equal sets share their memory. With contexts most nodes hold one of a few hundred
//! distinct large sets (Lua 2-callsite: 290,000 bitsets, 538 distinct), and nodes that hold
//! one set receive the same new locations one after the other.

use std::cell::Cell;
use std::hash::Hasher;
use std::rc::{Rc, Weak};

/// Above this many elements a set is a bitset.
const SPARSE_MAX: usize = 32;
const CHUNK_WORDS: usize = 32;
const CHUNK_BITS: usize = CHUNK_WORDS * 64;

type Chunk = [u64; CHUNK_WORDS];
/// A bitset's chunks: one allocation with its reference count, so that a location is
/// two pointers away from the set (the chunk vector, then the chunk).
type Chunks = [Option<Rc<Chunk>>];

/// `chunks` made at least `n` long (a new allocation only if it is shorter).
fn grow(chunks: &mut Rc<Chunks>, n: usize) {
    if chunks.len() < n {
        let longer = chunks.iter().cloned().chain(std::iter::repeat(None));
        *chunks = longer.take(n).collect();
    }
}

thread_local! {
    /// Bytes of chunks allocated on this thread.
    static ALLOCATED: Cell<usize> = const { Cell::new(0) };
}

/// The bytes of bitset chunks allocated so far on this thread: what pooling may win back
/// is what was allocated since it last ran.
pub fn allocated_bytes() -> usize {
    ALLOCATED.with(Cell::get)
}

fn new_chunk(c: Chunk) -> Rc<Chunk> {
    ALLOCATED.with(|a| a.set(a.get() + std::mem::size_of::<Chunk>()));
    Rc::new(c)
}

/// A chunk to change: copied first if it is shared, or moved if it is pooled (which
/// drops it from the pool).
fn chunk_mut(c: &mut Rc<Chunk>) -> &mut Chunk {
    if Rc::strong_count(c) > 1 || Rc::weak_count(c) > 0 {
        *c = new_chunk(**c);
    }
    Rc::get_mut(c).expect("unique")
}

fn count(c: &Chunk) -> usize {
    c.iter().map(|w| w.count_ones() as usize).sum()
}

#[derive(Clone, Debug)]
pub enum LocSet {
    /// Sorted; at most `SPARSE_MAX` elements, or a difference whose vector takes at most
    /// half the memory of its chunks ([`LocSet::normalised`]).
    Sparse(Vec<u32>),
    /// Bit `i % 2048` of chunk `i / 2048` is location `i`; `len` counts the set bits.
    Dense { chunks: Rc<Chunks>, len: usize },
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
            LocSet::Dense { chunks, .. } => chunks_contain(chunks, id),
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
            LocSet::Dense { chunks, len } => {
                if chunks_contain(chunks, id) {
                    return false;
                }
                let (c, w, bit) = position(id);
                grow(chunks, c + 1);
                let chunks = Rc::make_mut(chunks);
                let chunk = chunks[c].get_or_insert_with(|| new_chunk([0; CHUNK_WORDS]));
                chunk_mut(chunk)[w] |= bit;
                *len += 1;
                true
            }
        }
    }

    /// The address of a bitset's chunk vector, which equal sets may share: a key for work
    /// done once per distinct set.
    pub fn address(&self) -> Option<usize> {
        match self {
            LocSet::Sparse(_) => None,
            LocSet::Dense { chunks, .. } => Some(Rc::as_ptr(chunks).cast::<u8>() as usize),
        }
    }

    pub fn iter(&self) -> Iter<'_> {
        match self {
            LocSet::Sparse(v) => Iter::Sparse(v.iter()),
            LocSet::Dense { chunks, .. } => Iter::Dense {
                chunks: &chunks[..],
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
            // Filling an empty set shares the chunks: the new elements are all of `other`.
            (LocSet::Sparse(s), LocSet::Dense { .. }) if s.is_empty() => {
                *self = other.clone();
                other.clone()
            }
            (LocSet::Sparse(s), LocSet::Dense { .. }) => {
                *self = Self::dense_from(s);
                self.add_all(other)
            }
            (LocSet::Dense { chunks, len }, LocSet::Dense { chunks: o, len: olen }) => {
                if Rc::ptr_eq(chunks, o) {
                    return LocSet::default();
                }
                // The new elements first, chunk by chunk: a set that gains nothing is
                // neither copied nor allocated for, and a chunk shared with `other` is
                // skipped. Where `self`'s chunk is empty or a subset of `other`'s, the
                // union is `other`'s chunk, which `self` then shares.
                let mut gained = Parts::default();
                for (i, oc) in o.iter().enumerate() {
                    let Some(oc) = oc else { continue };
                    match chunks.get(i).and_then(Option::as_ref) {
                        Some(sc) if Rc::ptr_eq(sc, oc) => {}
                        None => gained.whole(i, oc),
                        Some(sc) => {
                            let mut g = [0u64; CHUNK_WORDS];
                            let mut n = 0;
                            for (g, (o, s)) in g.iter_mut().zip(oc.iter().zip(sc.iter())) {
                                *g = o & !s;
                                n += g.count_ones();
                            }
                            if n as usize == count(oc) {
                                gained.whole(i, oc);
                            } else if n > 0 {
                                gained.part(i, g);
                            }
                        }
                    }
                }
                if gained.len == 0 {
                    return LocSet::default();
                }
                grow(chunks, o.len());
                let s = Rc::make_mut(chunks);
                let parts = gained.shared.iter().map(|(i, c)| (*i, &**c));
                for (i, g) in parts.chain(gained.new.iter().map(|(i, c)| (*i, c))) {
                    let oc = o[i].as_ref().expect("gained from it");
                    match &mut s[i] {
                        slot @ None => *slot = Some(oc.clone()),
                        Some(sc) if sc.iter().zip(oc.iter()).all(|(s, o)| s & !o == 0) => {
                            *sc = oc.clone();
                        }
                        Some(sc) => {
                            for (s, g) in chunk_mut(sc).iter_mut().zip(g.iter()) {
                                *s |= g;
                            }
                        }
                    }
                }
                *len += gained.len;
                if gained.len == *olen {
                    // Everything was new: share `other`'s chunks.
                    return other.clone();
                }
                gained.finish()
            }
        }
    }

    /// The elements of `self` in `mask`, and those not in it.
    pub fn split(&self, mask: &LocSet) -> (LocSet, LocSet) {
        match (self, mask) {
            (LocSet::Dense { chunks, .. }, LocSet::Dense { chunks: m, .. }) => {
                let (mut inside, mut outside) = (Parts::default(), Parts::default());
                for (i, c) in chunks.iter().enumerate() {
                    let Some(c) = c else { continue };
                    let Some(mc) = m.get(i).and_then(Option::as_ref) else {
                        outside.whole(i, c);
                        continue;
                    };
                    let (mut a, mut b) = ([0u64; CHUNK_WORDS], [0u64; CHUNK_WORDS]);
                    for w in 0..CHUNK_WORDS {
                        a[w] = c[w] & mc[w];
                        b[w] = c[w] & !mc[w];
                    }
                    if a == [0; CHUNK_WORDS] {
                        outside.whole(i, c);
                    } else if b == [0; CHUNK_WORDS] {
                        inside.whole(i, c);
                    } else {
                        inside.part(i, a);
                        outside.part(i, b);
                    }
                }
                (inside.finish(), outside.finish())
            }
            _ => {
                let (inside, outside): (Vec<u32>, Vec<u32>) =
                    self.iter().partition(|&id| mask.contains(id));
                (Self::from_sorted(inside), Self::from_sorted(outside))
            }
        }
    }

    fn from_sorted(v: Vec<u32>) -> LocSet {
        if v.len() > SPARSE_MAX {
            Self::dense_from(&v)
        } else {
            LocSet::Sparse(v)
        }
    }

    fn dense_from(ids: &[u32]) -> LocSet {
        let mut chunks = Vec::new();
        for &id in ids {
            let (c, w, bit) = position(id);
            if c >= chunks.len() {
                chunks.resize(c + 1, None);
            }
            let chunk = chunks[c].get_or_insert_with(|| new_chunk([0; CHUNK_WORDS]));
            chunk_mut(chunk)[w] |= bit;
        }
        LocSet::Dense {
            chunks: chunks.into(),
            len: ids.len(),
        }
    }

    /// Small sets are sparse (a difference of a few elements is iterated cheaply).
    /// So are differences whose vector takes at most half the memory of their chunks: the
    /// new elements of a large set, waiting in a queued node, are mostly few.
    fn normalised(self) -> LocSet {
        match self {
            LocSet::Dense { len, ref chunks }
                if stays_sparse(len, chunks.iter().flatten().count()) =>
            {
                LocSet::Sparse(self.iter().collect())
            }
            other => other,
        }
    }
}

/// Whether a set of `len` elements that takes `chunks` chunks as a bitset is kept as a
/// vector ([`LocSet::normalised`]).
fn stays_sparse(len: usize, chunks: usize) -> bool {
    len <= SPARSE_MAX.max(chunks * CHUNK_WORDS)
}

fn position(id: u32) -> (usize, usize, u64) {
    let id = id as usize;
    (id / CHUNK_BITS, id % CHUNK_BITS / 64, 1 << (id % 64))
}

fn chunks_contain(chunks: &Chunks, id: u32) -> bool {
    let (c, w, bit) = position(id);
    chunks
        .get(c)
        .and_then(Option::as_ref)
        .is_some_and(|c| c[w] & bit != 0)
}

/// A set being built chunk by chunk: whole chunks of another set (shared) and new chunk
/// contents, allocated only if the set stays a bitset.
#[derive(Default)]
struct Parts {
    shared: Vec<(usize, Rc<Chunk>)>,
    new: Vec<(usize, Chunk)>,
    len: usize,
}

impl Parts {
    fn whole(&mut self, i: usize, c: &Rc<Chunk>) {
        self.len += count(c);
        self.shared.push((i, c.clone()));
    }

    fn part(&mut self, i: usize, c: Chunk) {
        self.len += count(&c);
        self.new.push((i, c));
    }

    fn finish(self) -> LocSet {
        if stays_sparse(self.len, self.shared.len() + self.new.len()) {
            let mut ids = Vec::with_capacity(self.len);
            let shared = self.shared.iter().map(|(i, c)| (*i, &**c));
            for (i, c) in shared.chain(self.new.iter().map(|(i, c)| (*i, c))) {
                for (w, &word) in c.iter().enumerate() {
                    let mut word = word;
                    while word != 0 {
                        let base = (i * CHUNK_BITS + w * 64) as u32;
                        ids.push(base + word.trailing_zeros());
                        word &= word - 1;
                    }
                }
            }
            ids.sort_unstable();
            return LocSet::Sparse(ids);
        }
        let mut v = Vec::new();
        let new = self.new.into_iter().map(|(i, c)| (i, new_chunk(c)));
        for (i, c) in self.shared.into_iter().chain(new) {
            if v.len() <= i {
                v.resize(i + 1, None);
            }
            v[i] = Some(c);
        }
        LocSet::Dense {
            chunks: v.into(),
            len: self.len,
        }
    }
}

/// Chunks and chunk vectors by content, so that equal ones share their memory. The pool
/// holds weak references: what only the pool knows is freed, and what one set alone holds
/// is changed in place, not copied.
#[derive(Default)]
pub struct SetPool {
    chunks: crate::fasthash::FastMap<u64, Vec<Weak<Chunk>>>,
    sets: crate::fasthash::FastMap<u64, Vec<Weak<Chunks>>>,
}

impl SetPool {
    /// Gives `set` the chunks of equal pooled chunks and the chunk vector of an equal
    /// pooled set, or pools its own.
    pub fn share(&mut self, set: &mut LocSet) {
        let LocSet::Dense { chunks, .. } = set else {
            return;
        };
        // Chunks that this set alone holds may equal pooled ones. (A chunk vector that
        // other sets share is pooled through whichever of them comes first.)
        if let Some(own) = Rc::get_mut(chunks) {
            for c in own.iter_mut().flatten() {
                // Shared chunks, and chunks pooled and unchanged since (a change moves a
                // pooled chunk out of the pool), need no lookup.
                if Rc::strong_count(c) > 1 || Rc::weak_count(c) > 0 {
                    continue;
                }
                let mut h = crate::fasthash::FastHasher::default();
                c.iter().for_each(|&w| h.write_u64(w));
                let same = self.chunks.entry(h.finish()).or_default();
                match same.iter().filter_map(Weak::upgrade).find(|p| **p == **c) {
                    Some(p) => *c = p,
                    None => same.push(Rc::downgrade(c)),
                }
            }
        }
        let content = trimmed(chunks);
        let mut h = crate::fasthash::FastHasher::default();
        content
            .iter()
            .for_each(|c| h.write_usize(c.as_ref().map_or(0, |c| Rc::as_ptr(c) as usize)));
        let same = self.sets.entry(h.finish()).or_default();
        let pooled = same
            .iter()
            .filter_map(Weak::upgrade)
            .find(|p| same_chunks(trimmed(p), content));
        match pooled {
            Some(p) => *chunks = p,
            None => same.push(Rc::downgrade(chunks)),
        }
    }

    /// Forgets what was freed since it was pooled; how many sets stay.
    pub fn sweep(&mut self) -> usize {
        self.chunks.retain(|_, same| {
            same.retain(|p| p.strong_count() > 0);
            !same.is_empty()
        });
        self.sets.retain(|_, same| {
            same.retain(|p| p.strong_count() > 0);
            !same.is_empty()
        });
        self.sets.values().map(Vec::len).sum()
    }
}

/// The chunks without trailing empty ones: equal sets have equal trimmed chunks.
fn trimmed(chunks: &Chunks) -> &[Option<Rc<Chunk>>] {
    let end = chunks.iter().rposition(Option::is_some).map_or(0, |i| i + 1);
    &chunks[..end]
}

/// Whether two chunk vectors are the same chunks (after pooling, equal chunks are one).
fn same_chunks(a: &[Option<Rc<Chunk>>], b: &[Option<Rc<Chunk>>]) -> bool {
    a.len() == b.len()
        && a.iter().zip(b).all(|(x, y)| match (x, y) {
            (Some(x), Some(y)) => Rc::ptr_eq(x, y),
            (None, None) => true,
            _ => false,
        })
}

pub enum Iter<'a> {
    Sparse(std::slice::Iter<'a, u32>),
    Dense {
        chunks: &'a [Option<Rc<Chunk>>],
        /// The index of the word after `cur`, over all chunks.
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
            Iter::Dense { chunks, next, cur } => {
                while *cur == 0 {
                    match chunks.get(*next / CHUNK_WORDS)? {
                        Some(c) => {
                            *cur = c[*next % CHUNK_WORDS];
                            *next += 1;
                        }
                        None => *next = (*next / CHUNK_WORDS + 1) * CHUNK_WORDS,
                    }
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
        for round in 0..240 {
            let universe = [40, 300, 5000, 20000][round % 4];
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
                    let elements = |s: &LocSet| s.iter().collect::<Vec<_>>();
                    assert_eq!(elements(a), ab.iter().copied().collect::<Vec<_>>());
                    assert_eq!(elements(b), bb.iter().copied().collect::<Vec<_>>());
                    assert_eq!(e.len(), want.len() + 1);
                }
            }
        }
    }

    /// Equal sets share one chunk vector once pooled, and unequal sets their equal chunks;
    /// what one set alone holds is changed in place, and a shared chunk is copied alone.
    #[test]
    fn the_pool_shares_equal_sets_and_chunks() {
        let dense = |last: u32| {
            let mut s = LocSet::default();
            (0..100).chain(3000..last).for_each(|i| {
                s.insert(i);
            });
            s
        };
        let (mut a, mut b, mut c) = (dense(3100), dense(3100), dense(3101));
        let mut pool = SetPool::default();
        for s in [&mut a, &mut b, &mut c] {
            pool.share(s);
        }
        assert_eq!(a.address(), b.address());
        assert_ne!(a.address(), c.address());
        assert_eq!(pool.sweep(), 2);
        let chunk = |s: &LocSet, i: usize| match s {
            LocSet::Dense { chunks, .. } => Rc::as_ptr(chunks[i].as_ref().unwrap()),
            LocSet::Sparse(_) => unreachable!(),
        };
        assert_eq!(chunk(&a, 0), chunk(&c, 0));
        assert_ne!(chunk(&a, 1), chunk(&c, 1));
        c.insert(3200);
        let own = chunk(&c, 1);
        c.insert(3201);
        assert_eq!(chunk(&c, 1), own, "changed in place once out of the pool");
        c.insert(200);
        assert_ne!(chunk(&c, 0), chunk(&a, 0), "a shared chunk is copied on write");
        assert_eq!(chunk(&c, 1), own, "the other chunk stays");
        assert!(!a.contains(200) && c.contains(200) && c.len() == 204);
        drop(c);
        assert_eq!(pool.sweep(), 1);
    }
}
