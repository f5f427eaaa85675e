//! Points-to sets of the native solver: sets of dense location ids. Whole programs have a
//! few thousand to tens of thousands of locations and most sets hold hundreds or thousands
//! of them (SQLite: 20,000 locations, 1,500 per set on average), so a large set is a
//! bitset, where adding one set to another is a pass over words and adding one location
//! is a bit operation. A small set is a sorted vector, so that the many nodes that point to
//! one or two objects, and the small differences that travel along edges, stay small.
//!
//! A bitset is a vector of chunks of 4,096 bits, absent where empty. Both the vector and
//! the chunks are reference-counted and copied on write: a set that fills an empty one is
//! shared, not copied; a set that gains a location copies one chunk, not the whole set; and
//! adding a set that shares a chunk skips that chunk. [`SetPool`] makes equal chunks and
//! equal sets share their memory. With contexts most nodes hold one of a few hundred
//! distinct large sets (Lua 2-callsite: 290,000 bitsets, 538 distinct), and nodes that hold
//! one set receive the same new locations one after the other.
//!
//! A chunk stores only its nonzero words (or all of them when most are nonzero): with
//! contexts the cloned objects spread a set's locations thinly (SQLite at -O0 in
//! 2-callsite: 21 of 2,048 bits in 4.6 of 32 words), and whole chunks were most of the
//! memory.

use std::cell::Cell;
use std::hash::Hasher;
use std::rc::{Rc, Weak};

/// Above this many elements a set is a bitset.
const SPARSE_MAX: usize = 32;
const CHUNK_WORDS: usize = 64;
const CHUNK_BITS: usize = CHUNK_WORDS * 64;

/// A chunk's bits, unpacked to compute with.
type Words = [u64; CHUNK_WORDS];
/// A chunk as stored: the mask of its nonzero words, then those words in order (never a
/// zero word), or [`WHOLE`] and all its words; one form per content, so that equal chunks
/// are equal slices.
type Chunk = [u64];
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

/// Words of a chunk's allocation beyond the packed words (the reference counts).
const CHUNK_HEADER_WORDS: usize = 2;

/// The mask of a chunk stored whole: more than half of its words are nonzero, so it keeps
/// all of them and a word is found without counting the mask's bits.
const WHOLE: u64 = u64::MAX;

/// Rewrites the packed chunk from `start` on in `out` whole when more than half of its
/// words are nonzero: each content has one form, so equal chunks stay equal slices.
fn seal(out: &mut Vec<u64>, start: usize) {
    let mask = out[start];
    if mask != WHOLE && mask.count_ones() as usize > CHUNK_WORDS / 2 {
        let words = unpack(&out[start..]);
        out.truncate(start);
        out.push(WHOLE);
        out.extend_from_slice(&words);
    }
}

/// `w` packed into a new chunk; None when it is empty.
fn pack(w: &Words) -> Option<Rc<Chunk>> {
    let mut packed = Vec::with_capacity(1 + CHUNK_WORDS);
    packed.push(0);
    for (i, &x) in w.iter().enumerate() {
        if x != 0 {
            packed[0] |= 1 << i;
            packed.push(x);
        }
    }
    seal(&mut packed, 0);
    (packed.len() > 1).then(|| new_chunk(&packed))
}

fn new_chunk(packed: &[u64]) -> Rc<Chunk> {
    ALLOCATED.with(|a| a.set(a.get() + stored_bytes(packed.len())));
    Rc::from(packed)
}

/// The bytes a chunk of `words` packed words takes.
fn stored_bytes(words: usize) -> usize {
    8 * (words + CHUNK_HEADER_WORDS)
}

fn unpack(c: &Chunk) -> Words {
    let mut w = [0; CHUNK_WORDS];
    if c[0] == WHOLE {
        w.copy_from_slice(&c[1..]);
        return w;
    }
    let mut mask = c[0];
    for &x in &c[1..] {
        w[mask.trailing_zeros() as usize] = x;
        mask &= mask - 1;
    }
    w
}

/// Where word `w` of a chunk with this mask is, if it is stored.
fn slot(mask: u64, w: usize) -> Option<usize> {
    let bit = 1u64 << w;
    if mask == WHOLE {
        Some(1 + w)
    } else if mask & bit == 0 {
        None
    } else {
        Some(1 + (mask & (bit - 1)).count_ones() as usize)
    }
}

/// Word `w` of a chunk.
fn word(c: &Chunk, w: usize) -> u64 {
    slot(c[0], w).map_or(0, |i| c[i])
}

/// Sets `bit` in word `w` of `c`: in place when `c` is neither shared nor pooled and has
/// that word, else in a new chunk (a pooled chunk so leaves the pool).
fn set_bit(c: &mut Rc<Chunk>, w: usize, bit: u64) {
    let stored = slot(c[0], w);
    if let Some(i) = stored
        && Rc::strong_count(c) == 1
        && Rc::weak_count(c) == 0
    {
        Rc::get_mut(c).expect("unique")[i] |= bit;
        return;
    }
    let mut packed = Vec::with_capacity(1 + CHUNK_WORDS);
    match stored {
        Some(i) => {
            packed.extend_from_slice(c);
            packed[i] |= bit;
        }
        None => {
            let i = 1 + (c[0] & ((1 << w) - 1)).count_ones() as usize;
            packed.push(c[0] | 1 << w);
            packed.extend_from_slice(&c[1..i]);
            packed.push(bit);
            packed.extend_from_slice(&c[i..]);
            seal(&mut packed, 0);
        }
    }
    *c = new_chunk(&packed);
}

fn count(c: &Chunk) -> usize {
    c[1..].iter().map(|w| w.count_ones() as usize).sum()
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
                match &mut chunks[c] {
                    Some(chunk) => set_bit(chunk, w, bit),
                    slot => *slot = Some(new_chunk(&[1 << w, bit])),
                }
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
                words: &[],
                mask: 0,
                cur: 0,
                base: 0,
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
                            let n = gained.combine(i, oc, sc, oc[0], |o, s| o & !s);
                            if n == count(oc) {
                                gained.undo();
                                gained.whole(i, oc);
                            }
                        }
                    }
                }
                if gained.len == 0 {
                    return LocSet::default();
                }
                grow(chunks, o.len());
                let s = Rc::make_mut(chunks);
                let mut buf = Vec::with_capacity(1 + CHUNK_WORDS);
                for (i, g) in gained.chunks() {
                    let oc = o[i].as_ref().expect("gained from it");
                    match &mut s[i] {
                        slot @ None => *slot = Some(oc.clone()),
                        // `g` is what `other`'s chunk has beyond `self`'s: when both make
                        // up `other`'s, `self`'s is a subset of it; take that one.
                        Some(sc) if count(sc) + count(g) == count(oc) => *sc = oc.clone(),
                        Some(sc) => {
                            buf.clear();
                            packed_into(&mut buf, sc, g, sc[0] | g[0], |s, g| s | g);
                            *sc = new_chunk(&buf);
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
                    let inner = inside.combine(i, c, mc, c[0], |c, m| c & m);
                    if inner == 0 {
                        outside.whole(i, c);
                    } else if inner == count(c) {
                        inside.undo();
                        inside.whole(i, c);
                    } else {
                        outside.combine(i, c, mc, c[0], |c, m| c & !m);
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

    /// The bitset of `ids`, which are sorted.
    fn dense_from(ids: &[u32]) -> LocSet {
        let mut chunks = Vec::new();
        for run in ids.chunk_by(|a, b| position(*a).0 == position(*b).0) {
            let mut words = [0; CHUNK_WORDS];
            for &id in run {
                let (_, w, bit) = position(id);
                words[w] |= bit;
            }
            let c = position(run[0]).0;
            chunks.resize(c + 1, None);
            chunks[c] = pack(&words);
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
                if stays_sparse(len, chunks.iter().flatten().map(|c| stored_bytes(c.len())).sum()) =>
            {
                LocSet::Sparse(self.iter().collect())
            }
            other => other,
        }
    }
}

/// Whether a set of `len` elements whose chunks take `bytes` as a bitset is kept as a
/// vector ([`LocSet::normalised`]).
fn stays_sparse(len: usize, bytes: usize) -> bool {
    len <= SPARSE_MAX.max(bytes / 8)
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
        .is_some_and(|c| word(c, w) & bit != 0)
}

/// `f(a, b)` over the words in `over`, packed onto the end of `out`: how many words it
/// appended (1, the mask, when the result is empty).
fn packed_into(
    out: &mut Vec<u64>,
    a: &Chunk,
    b: &Chunk,
    over: u64,
    f: impl Fn(u64, u64) -> u64,
) -> usize {
    let start = out.len();
    out.push(0);
    let mut mask = 0;
    if a[0] == over && b[0] == over {
        // The words line up (dense chunks mostly have the same ones).
        let mut m = over;
        for (&x, &y) in a[1..].iter().zip(&b[1..]) {
            let w = m.trailing_zeros();
            m &= m - 1;
            let r = f(x, y);
            if r != 0 {
                mask |= 1 << w;
                out.push(r);
            }
        }
    } else {
        let mut m = over;
        while m != 0 {
            let w = m.trailing_zeros() as usize;
            m &= m - 1;
            let r = f(word(a, w), word(b, w));
            if r != 0 {
                mask |= 1 << w;
                out.push(r);
            }
        }
    }
    out[start] = mask;
    seal(out, start);
    out.len() - start
}

/// A set being built chunk by chunk: whole chunks of another set (shared) and new chunk
/// contents (packed one after the other in `words`), allocated only if the set stays a
/// bitset.
#[derive(Default)]
struct Parts {
    shared: Vec<(usize, Rc<Chunk>)>,
    /// (chunk index, start in `words`, length).
    new: Vec<(usize, usize, usize)>,
    words: Vec<u64>,
    len: usize,
    /// What the chunks would take.
    bytes: usize,
}

impl Parts {
    fn whole(&mut self, i: usize, c: &Rc<Chunk>) {
        self.len += count(c);
        self.bytes += stored_bytes(c.len());
        self.shared.push((i, c.clone()));
    }

    /// Adds chunk `i` as `f(a, b)` over the words in `over`, unless empty; its count.
    fn combine(
        &mut self,
        i: usize,
        a: &Chunk,
        b: &Chunk,
        over: u64,
        f: impl Fn(u64, u64) -> u64,
    ) -> usize {
        let start = self.words.len();
        let n = packed_into(&mut self.words, a, b, over, f);
        if n == 1 {
            self.words.truncate(start);
            return 0;
        }
        let bits = count(&self.words[start..]);
        self.new.push((i, start, n));
        self.len += bits;
        self.bytes += stored_bytes(n);
        bits
    }

    /// Takes back the last [`Parts::combine`].
    fn undo(&mut self) {
        let (_, start, n) = self.new.pop().expect("a part");
        self.len -= count(&self.words[start..]);
        self.bytes -= stored_bytes(n);
        self.words.truncate(start);
    }

    /// The chunks, shared and new, by index (in no order).
    fn chunks(&self) -> impl Iterator<Item = (usize, &Chunk)> {
        let shared = self.shared.iter().map(|(i, c)| (*i, &**c));
        shared.chain((self.new.iter()).map(|&(i, start, n)| (i, &self.words[start..start + n])))
    }

    fn finish(self) -> LocSet {
        if stays_sparse(self.len, self.bytes) {
            let mut ids = Vec::with_capacity(self.len);
            for (i, c) in self.chunks() {
                for (w, word) in unpack(c).into_iter().enumerate() {
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
        let new = (self.new.iter()).map(|&(i, start, n)| (i, new_chunk(&self.words[start..start + n])));
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
            .for_each(|c| h.write_usize(c.as_ref().map_or(0, |c| Rc::as_ptr(c).cast::<u8>() as usize)));
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
        /// The index of the chunk after the current one.
        next: usize,
        /// The current chunk's words not read yet, and the mask of their positions.
        words: &'a [u64],
        mask: u64,
        /// What is left of the current word, and the location of its bit 0.
        cur: u64,
        base: u32,
    },
}

impl<'a> Iterator for Iter<'a> {
    type Item = u32;

    fn next(&mut self) -> Option<u32> {
        match self {
            Iter::Sparse(it) => it.next().copied(),
            Iter::Dense {
                chunks,
                next,
                words,
                mask,
                cur,
                base,
            } => {
                while *cur == 0 {
                    if *mask == 0 {
                        let chunk = chunks.get(*next)?;
                        *next += 1;
                        if let Some(c) = chunk {
                            (*mask, *words) = (c[0], &c[1..]);
                        }
                        continue;
                    }
                    let w = mask.trailing_zeros() as usize;
                    *mask &= *mask - 1;
                    let rest: &'a [u64] = words;
                    (*cur, *words) = (rest[0], &rest[1..]);
                    *base = ((*next - 1) * CHUNK_BITS + w * 64) as u32;
                }
                let bit = cur.trailing_zeros();
                *cur &= *cur - 1;
                Some(*base + bit)
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
            let universe = [40, 300, 5000, 20000, 300_000][round % 5];
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
            (0..100).chain(5000..last).for_each(|i| {
                s.insert(i);
            });
            s
        };
        let (mut a, mut b, mut c) = (dense(5100), dense(5100), dense(5101));
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
        c.insert(5200);
        let own = chunk(&c, 1);
        c.insert(5201);
        assert_eq!(chunk(&c, 1), own, "changed in place once out of the pool");
        c.insert(200);
        assert_ne!(chunk(&c, 0), chunk(&a, 0), "a shared chunk is copied on write");
        assert_eq!(chunk(&c, 1), own, "the other chunk stays");
        assert!(!a.contains(200) && c.contains(200) && c.len() == 204);
        drop(c);
        assert_eq!(pool.sweep(), 1);
    }
}
