//! Interned symbols and compact relations.
//!
//! A relation stores its rows in one flat `Vec<u32>` (fixed arity, row `i` at
//! `data[i*arity..]`); rows are only ever appended, so "the rows before
//! iteration k" is a prefix, which is how semi-naive evaluation tells old
//! tuples from the delta. Duplicates are rejected through a hash set of row
//! ids. Each secondary index (a set of key columns) maps the key's hash to the
//! newest row with that key, and chains older ones through `next`.

use std::borrow::Cow;
use std::collections::HashMap;
use std::hash::{BuildHasherDefault, Hasher};
use std::sync::Arc;

use super::eqrel::EqRel;

pub const NONE: u32 = u32::MAX;

/// Open-addressing table of rows keyed by 64-bit hashes, used two ways: as
/// the row set of a relation (one slot per row: `find_row`/`insert_row`) and
/// as the chain heads of an index (one slot per key hash, holding its newest
/// row: `head`/`push_head`; the index chains older rows, newest to oldest).
/// A slot is 8 bytes (the hash's high half and the row), less than half of a
/// general hash map's entry, which matters with millions of rows. Index keys
/// whose hashes agree on their high half share a chain: harmless, since every
/// reader compares the key columns themselves.
#[derive(Clone, Debug, Default)]
struct TagTable {
    /// `(tag, row)`, `row == NONE` when empty; a slot's home position is the
    /// tag's top bits, so growing needs no other copy of the hash.
    slots: Vec<(u32, u32)>,
    len: usize,
    bits: u32,
}

impl TagTable {
    /// First slot to probe for `h`, and its tag.
    #[inline]
    fn start(&self, h: u64) -> (usize, u32) {
        let tag = (h >> 32) as u32;
        ((tag >> (32 - self.bits)) as usize, tag)
    }

    /// The row equal to the one hashed to `h`, as told by `eq`.
    #[inline]
    fn find_row(&self, h: u64, eq: impl Fn(u32) -> bool) -> Option<u32> {
        if self.len == 0 {
            return None;
        }
        let (mut i, tag) = self.start(h);
        let mask = self.slots.len() - 1;
        loop {
            let (t, row) = self.slots[i];
            if row == NONE {
                return None;
            }
            if t == tag && eq(row) {
                return Some(row);
            }
            i = (i + 1) & mask;
        }
    }

    /// Add a row known to be absent.
    #[inline]
    fn insert_row(&mut self, h: u64, id: u32) {
        self.reserve(self.len + 1);
        let (mut i, tag) = self.start(h);
        let mask = self.slots.len() - 1;
        while self.slots[i].1 != NONE {
            i = (i + 1) & mask;
        }
        self.slots[i] = (tag, id);
        self.len += 1;
    }

    /// Newest row whose key hashes to `h`, or `NONE`.
    #[inline]
    fn head(&self, h: u64) -> u32 {
        if self.len == 0 {
            return NONE;
        }
        let (mut i, tag) = self.start(h);
        let mask = self.slots.len() - 1;
        loop {
            let (t, row) = self.slots[i];
            if row == NONE || t == tag {
                return row;
            }
            i = (i + 1) & mask;
        }
    }

    /// Make `id` the newest row for key hash `h`; returns the previous one.
    #[inline]
    fn push_head(&mut self, h: u64, id: u32) -> u32 {
        self.reserve(self.len + 1);
        let (mut i, tag) = self.start(h);
        let mask = self.slots.len() - 1;
        loop {
            let (t, row) = self.slots[i];
            if row == NONE {
                self.slots[i] = (tag, id);
                self.len += 1;
                return NONE;
            }
            if t == tag {
                self.slots[i].1 = id;
                return row;
            }
            i = (i + 1) & mask;
        }
    }

    /// Grow (by doubling at least) to hold `n` entries below 7/8 load.
    fn reserve(&mut self, n: usize) {
        if n * 8 <= self.slots.len() * 7 {
            return;
        }
        let mut bits = self.bits.max(3) + 1;
        while (1usize << bits) * 7 < n * 8 {
            bits += 1;
        }
        let old = std::mem::replace(&mut self.slots, vec![(0, NONE); 1 << bits]);
        self.bits = bits;
        let mask = self.slots.len() - 1;
        for (tag, row) in old {
            if row == NONE {
                continue;
            }
            let mut i = (tag >> (32 - bits)) as usize;
            while self.slots[i].1 != NONE {
                i = (i + 1) & mask;
            }
            self.slots[i] = (tag, row);
        }
    }
}

/// Hash a sequence of u32 values (multiply-rotate, then a 64-bit finalizer).
#[inline]
pub fn hash_vals(vals: impl IntoIterator<Item = u32>) -> u64 {
    let mut h: u64 = 0x9E37_79B9_7F4A_7C15;
    for v in vals {
        h = (h.rotate_left(23) ^ v as u64).wrapping_mul(0xA24B_AED4_963E_E407);
    }
    h ^= h >> 33;
    h = h.wrapping_mul(0xFF51_AFD7_ED55_8CCD);
    h ^= h >> 33;
    h
}

/// Hasher for symbol text, a word at a time: interning every field of the
/// fact files is the hottest part of loading, and SipHash was most of it.
#[derive(Default)]
pub struct StrHasher(u64);

impl StrHasher {
    #[inline]
    fn mix(&mut self, word: u64) {
        self.0 = (self.0.rotate_left(23) ^ word).wrapping_mul(0xA24B_AED4_963E_E407);
    }
}

impl Hasher for StrHasher {
    fn finish(&self) -> u64 {
        let mut h = self.0;
        h ^= h >> 33;
        h = h.wrapping_mul(0xFF51_AFD7_ED55_8CCD);
        h ^ (h >> 33)
    }
    #[inline]
    fn write(&mut self, bytes: &[u8]) {
        // the length keeps zero padding of the last word from colliding
        self.mix(bytes.len() as u64);
        let mut words = bytes.chunks_exact(8);
        for w in &mut words {
            self.mix(u64::from_le_bytes(w.try_into().unwrap()));
        }
        let rest = words.remainder();
        if !rest.is_empty() {
            let mut buf = [0u8; 8];
            buf[..rest.len()].copy_from_slice(rest);
            self.mix(u64::from_le_bytes(buf));
        }
    }
    fn write_u8(&mut self, b: u8) {
        self.mix(b as u64);
    }
}

/// The symbol table: strings interned to dense `u32` ids; and the record
/// table: field tuples interned the same way (ids from 1; 0 is `nil`). One
/// table holds both so that evaluation interns either under the same lock.
#[derive(Clone, Debug, Default)]
pub struct Symbols {
    ids: HashMap<Arc<str>, u32, BuildHasherDefault<StrHasher>>,
    strs: Vec<Arc<str>>,
    rec_ids: HashMap<Arc<[u32]>, u32>,
    recs: Vec<Arc<[u32]>>,
}

impl Symbols {
    /// The id of the record with these fields (equal records, equal ids).
    pub fn pack(&mut self, fields: &[u32]) -> u32 {
        if let Some(id) = self.find_record(fields) {
            return id;
        }
        let id = self.recs.len() as u32 + 1;
        let a: Arc<[u32]> = Arc::from(fields);
        self.recs.push(a.clone());
        self.rec_ids.insert(a, id);
        id
    }
    pub fn find_record(&self, fields: &[u32]) -> Option<u32> {
        self.rec_ids.get(fields).copied()
    }
    /// The fields of record `id` (`None` for `nil`).
    pub fn record(&self, id: u32) -> Option<&[u32]> {
        id.checked_sub(1).map(|i| &*self.recs[i as usize])
    }
    pub fn intern(&mut self, s: &str) -> u32 {
        if let Some(&id) = self.ids.get(s) {
            return id;
        }
        let id = self.strs.len() as u32;
        let a: Arc<str> = Arc::from(s);
        self.strs.push(a.clone());
        self.ids.insert(a, id);
        id
    }
    pub fn get(&self, s: &str) -> Option<u32> {
        self.ids.get(s).copied()
    }
    pub fn resolve(&self, id: u32) -> &str {
        &self.strs[id as usize]
    }
    /// Shared handle to a symbol's text (no copy).
    pub fn resolve_arc(&self, id: u32) -> Arc<str> {
        self.strs[id as usize].clone()
    }
}

#[derive(Clone, Debug)]
pub struct Index {
    pub cols: Vec<usize>,
    heads: TagTable,
    next: Vec<u32>,
}

impl Index {
    fn new(cols: Vec<usize>) -> Self {
        Index {
            cols,
            heads: TagTable::default(),
            next: Vec::new(),
        }
    }
}

#[derive(Clone, Debug)]
pub struct Relation {
    pub arity: usize,
    data: Vec<u32>,
    len: usize,
    dedup: TagTable,
    pub indexes: Vec<Index>,
    /// An `eqrel` relation keeps its pairs here instead (never in `data`).
    eq: Option<Box<EqRel>>,
}

impl Relation {
    pub fn new(arity: usize) -> Self {
        Relation {
            arity,
            data: Vec::new(),
            len: 0,
            dedup: TagTable::default(),
            indexes: Vec::new(),
            eq: None,
        }
    }

    /// A binary equivalence relation (`eqrel`).
    pub fn new_eqrel() -> Self {
        Relation {
            eq: Some(Box::default()),
            ..Relation::new(2)
        }
    }

    /// The union-find of an `eqrel` relation; the evaluator reads it directly.
    pub fn eqrel(&self) -> Option<&EqRel> {
        self.eq.as_deref()
    }

    /// Start a new delta of an `eqrel` relation (others use row positions).
    pub fn mark_delta(&mut self, empty: bool) {
        if let Some(eq) = &mut self.eq {
            eq.mark(empty);
        }
    }

    /// Rows stored in `data` (what positions range over; 0 for an `eqrel` relation).
    #[inline]
    pub fn row_count(&self) -> usize {
        self.len
    }

    pub fn len(&self) -> usize {
        match &self.eq {
            Some(eq) => eq.len(),
            None => self.len,
        }
    }
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// Every row, flattened (an `eqrel` relation's pairs are materialised).
    pub fn flat(&self) -> Cow<'_, [u32]> {
        match &self.eq {
            Some(eq) => Cow::Owned(eq.pairs()),
            None => Cow::Borrowed(&self.data[..self.len * self.arity]),
        }
    }

    #[inline]
    pub fn row(&self, i: u32) -> &[u32] {
        let a = self.arity;
        &self.data[i as usize * a..i as usize * a + a]
    }

    /// Register (or find) an index on `cols`; returns its number.
    pub fn ensure_index(&mut self, cols: &[usize]) -> usize {
        if let Some(i) = self.indexes.iter().position(|ix| ix.cols == cols) {
            return i;
        }
        let mut ix = Index::new(cols.to_vec());
        ix.next.reserve_exact(self.len);
        for r in 0..self.len as u32 {
            let h = hash_vals(cols.iter().map(|c| self.data[r as usize * self.arity + c]));
            let prev = ix.heads.push_head(h, r);
            ix.next.push(prev);
        }
        self.indexes.push(ix);
        self.indexes.len() - 1
    }

    /// Position of `row` if present.
    pub fn find(&self, row: &[u32]) -> Option<u32> {
        self.dedup
            .find_row(hash_vals(row.iter().copied()), |id| self.row(id) == row)
    }

    /// Make room for `n` more rows (fact loading knows its line count).
    pub fn reserve(&mut self, n: usize) {
        self.data.reserve(n * self.arity);
        self.dedup.reserve(self.len + n);
    }

    pub fn contains(&self, row: &[u32]) -> bool {
        match &self.eq {
            Some(eq) => eq.contains(row[0], row[1], super::eqrel::Part::All),
            None => self.find(row).is_some(),
        }
    }

    /// Insert a row; returns false if it was already present.
    pub fn insert(&mut self, row: &[u32]) -> bool {
        debug_assert_eq!(row.len(), self.arity);
        if let Some(eq) = &mut self.eq {
            return eq.insert(row[0], row[1]);
        }
        self.insert_row(row)
    }

    /// Insert a row into `data` (not for an `eqrel` relation); false if present.
    #[inline]
    pub fn insert_row(&mut self, row: &[u32]) -> bool {
        let h = hash_vals(row.iter().copied());
        if self.dedup.find_row(h, |id| self.row(id) == row).is_some() {
            return false;
        }
        let id = self.len as u32;
        self.dedup.insert_row(h, id);
        self.data.extend_from_slice(row);
        self.len += 1;
        for ix in &mut self.indexes {
            let kh = hash_vals(ix.cols.iter().map(|c| row[*c]));
            let prev = ix.heads.push_head(kh, id);
            ix.next.push(prev);
        }
        true
    }

    /// Visit the ids of rows in `[lo, hi)` whose index-`ix` key equals `key`.
    #[inline]
    pub fn lookup(
        &self,
        ix: usize,
        key: &[u32],
        lo: u32,
        hi: u32,
        mut f: impl FnMut(u32) -> anyhow::Result<()>,
    ) -> anyhow::Result<()> {
        let index = &self.indexes[ix];
        let mut cur = self.chain_start(index, key, hi);
        while cur != NONE && cur >= lo {
            // chains run from newest to oldest: nothing older can be in range
            if self.key_matches(index, cur, key) {
                f(cur)?;
            }
            cur = index.next[cur as usize];
        }
        Ok(())
    }

    /// Whether any row has index-`ix` key `key` (negation with `_` columns).
    #[inline]
    pub fn has_key(&self, ix: usize, key: &[u32]) -> bool {
        self.any_in(ix, key, 0, NONE)
    }

    /// Whether a row in `[lo, hi)` has index-`ix` key `key`.
    #[inline]
    pub fn any_in(&self, ix: usize, key: &[u32], lo: u32, hi: u32) -> bool {
        let index = &self.indexes[ix];
        let mut cur = self.chain_start(index, key, hi);
        while cur != NONE && cur >= lo {
            if self.key_matches(index, cur, key) {
                return true;
            }
            cur = index.next[cur as usize];
        }
        false
    }

    /// Newest row below `hi` in the chain of `key`'s hash.
    #[inline]
    fn chain_start(&self, index: &Index, key: &[u32], hi: u32) -> u32 {
        let h = hash_vals(key.iter().copied());
        let mut cur = index.heads.head(h);
        while cur != NONE && cur >= hi {
            cur = index.next[cur as usize];
        }
        cur
    }

    #[inline]
    fn key_matches(&self, index: &Index, id: u32, key: &[u32]) -> bool {
        let r = self.row(id);
        index.cols.iter().zip(key).all(|(c, k)| r[*c] == *k)
    }
}
