//! Interned symbols and compact relations.
//!
//! A relation stores its rows in one flat `Vec<u32>` (fixed arity, row `i` at
//! `data[i*arity..]`); rows are only ever appended, so "the rows before
//! iteration k" is a prefix, which is how semi-naive evaluation tells old
//! tuples from the delta. Duplicates are rejected through a hash set of row
//! ids (`RowSet`). Each secondary index (a set of key columns) maps each key to the
//! newest row with that key, and chains older ones through `next`.

use std::borrow::Cow;
use std::collections::HashMap;
use std::hash::Hasher;
use std::sync::Arc;

use super::eqrel::EqRel;

pub const NONE: u32 = u32::MAX;

/// Open-addressing table of the chain heads of an index: one slot per key,
/// holding its newest row (the index chains older rows, newest to oldest).
/// A slot is a one-byte tag (from the hash's low bits, 0 when empty) and a
/// row id, in two arrays: 5 bytes against a general hash map's 16 or more.
/// Probing reads the tags; the caller's `eq` compares keys only where a tag
/// agrees, so each slot holds exactly one key. (Row ids here may exceed the
/// table's size, unlike in a `RowSet`.)
#[derive(Clone, Debug, Default)]
struct TagTable {
    tags: Vec<u8>,
    rows: Vec<u32>,
    len: usize,
    bits: u32,
}

impl TagTable {
    /// First slot to probe for `h` (the hash's top bits), and its tag.
    #[inline]
    fn start(&self, h: u64) -> (usize, u8) {
        let tag = (h as u8).max(1);
        ((h >> 1 >> (63 - self.bits)) as usize, tag)
    }

    /// The slot holding the row that `eq` accepts among those hashed to `h`,
    /// or the empty slot where it belongs (`Err`).
    #[inline]
    fn probe(&self, h: u64, eq: impl Fn(u32) -> bool) -> Result<usize, usize> {
        let (mut i, tag) = self.start(h);
        let mask = self.tags.len() - 1;
        loop {
            let t = self.tags[i];
            if t == 0 {
                return Err(i);
            }
            if t == tag && eq(self.rows[i]) {
                return Ok(i);
            }
            i = (i + 1) & mask;
        }
    }

    #[inline]
    fn find(&self, h: u64, eq: impl Fn(u32) -> bool) -> Option<u32> {
        if self.len == 0 {
            return None;
        }
        self.probe(h, eq).ok().map(|i| self.rows[i])
    }

    /// Fill empty slot `i` (from `probe`) with `row`.
    #[inline]
    fn fill(&mut self, i: usize, h: u64, row: u32) {
        self.tags[i] = self.start(h).1;
        self.rows[i] = row;
        self.len += 1;
    }

    /// Whether one more entry fits below 7/8 load.
    #[inline]
    fn has_room(&self) -> bool {
        (self.len + 1) * 8 <= self.tags.len() * 7
    }

    /// Empty the table, sized for `n` entries (the old arrays are freed
    /// first, so that growing never holds two tables at once).
    fn reset(&mut self, n: usize) {
        let mut bits = 3;
        while (1usize << bits) * 7 < n * 8 {
            bits += 1;
        }
        self.tags = Vec::new();
        self.rows = Vec::new();
        self.tags = vec![0; 1 << bits];
        self.rows = vec![0; 1 << bits];
        self.bits = bits;
        self.len = 0;
    }

    /// Add a row whose key is known to be absent.
    #[inline]
    fn insert_new(&mut self, h: u64, row: u32) {
        let (mut i, _) = self.start(h);
        let mask = self.tags.len() - 1;
        while self.tags[i] != 0 {
            i = (i + 1) & mask;
        }
        self.fill(i, h, row);
    }
}

/// Open-addressing set of row ids keyed by 64-bit hashes: the row set of a
/// relation, or the ids of the symbol table. It never holds more ids than
/// 7/8 of its `2^bits` slots, so an id fits in the low `bits` bits of a
/// 4-byte slot (`id + 1`; 0 is empty) and the high bits take a tag from the
/// hash: probing compares rows only where the tag agrees.
#[derive(Clone, Debug, Default)]
struct RowSet {
    slots: Vec<u32>,
    len: usize,
    bits: u32,
}

impl RowSet {
    /// Mask of a slot's id bits.
    #[inline]
    fn mask(&self) -> u32 {
        ((1u64 << self.bits) - 1) as u32
    }

    /// First slot to probe for `h` (the hash's top bits).
    #[inline]
    fn start(&self, h: u64) -> usize {
        (h >> 1 >> (63 - self.bits)) as usize
    }

    /// The id in `h`'s first slot if its tag agrees with `h` (a likely match).
    #[inline]
    fn first_guess(&self, h: u64) -> Option<u32> {
        let mask = self.mask();
        let s = *self.slots.get(self.start(h))?;
        (s != 0 && s & !mask == h as u32 & !mask).then(|| (s & mask) - 1)
    }

    /// The row `eq` accepts among those hashed to `h` (`Ok`), or the empty
    /// slot where it belongs (`Err`).
    #[inline]
    fn probe(&self, h: u64, eq: impl Fn(u32) -> bool) -> Result<u32, usize> {
        let mask = self.mask();
        let tag = h as u32 & !mask;
        let mut i = self.start(h);
        loop {
            let s = self.slots[i];
            if s == 0 {
                return Err(i);
            }
            if s & !mask == tag && eq((s & mask) - 1) {
                return Ok((s & mask) - 1);
            }
            i = (i + 1) & (self.slots.len() - 1);
        }
    }

    #[inline]
    fn find(&self, h: u64, eq: impl Fn(u32) -> bool) -> Option<u32> {
        if self.len == 0 {
            return None;
        }
        self.probe(h, eq).ok()
    }

    /// Fill empty slot `i` (from `probe`) with `row`.
    #[inline]
    fn fill(&mut self, i: usize, h: u64, row: u32) {
        let mask = self.mask();
        self.slots[i] = (h as u32 & !mask) | (row + 1);
        self.len += 1;
    }

    /// Whether `n` entries fit below 7/8 load.
    #[inline]
    fn fits(&self, n: usize) -> bool {
        n * 8 <= self.slots.len() * 7
    }

    /// Empty the set, sized for `n` entries (the old slots are freed first,
    /// so that growing never holds two tables at once).
    fn reset(&mut self, n: usize) {
        let mut bits = 3;
        while (1usize << bits) * 7 < n * 8 {
            bits += 1;
        }
        self.slots = Vec::new();
        self.slots = vec![0; 1 << bits];
        self.bits = bits;
        self.len = 0;
    }

    /// Add a row known to be absent.
    #[inline]
    fn insert_new(&mut self, h: u64, row: u32) {
        let i = match self.probe(h, |_| false) {
            Ok(_) => unreachable!(),
            Err(i) => i,
        };
        self.fill(i, h, row);
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

/// Whether two rows of the same arity are equal; unrolled for the usual short
/// rows (a slice comparison calls `memcmp`, the hottest call of a probe).
#[inline(always)]
pub fn rows_eq(a: &[u32], b: &[u32]) -> bool {
    match b.len() {
        1 => a[0] == b[0],
        2 => a[0] == b[0] && a[1] == b[1],
        3 => a[0] == b[0] && a[1] == b[1] && a[2] == b[2],
        4 => a[0] == b[0] && a[1] == b[1] && a[2] == b[2] && a[3] == b[3],
        _ => a == b,
    }
}

/// Ask the CPU to bring `p`'s cache line in (a hint: no effect on results).
#[inline(always)]
fn prefetch<T>(p: &T) {
    #[cfg(target_arch = "x86_64")]
    // SAFETY: a prefetch never faults and has no effect on memory.
    unsafe {
        use std::arch::x86_64::{_MM_HINT_T0, _mm_prefetch};
        _mm_prefetch::<_MM_HINT_T0>(p as *const T as *const i8);
    }
    #[cfg(not(target_arch = "x86_64"))]
    let _ = p;
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

/// The symbol table: strings interned to dense `u32` ids, their text back to
/// back in one string (no allocation per symbol); and the record table:
/// field tuples interned the same way (ids from 1; 0 is `nil`). One table
/// holds both so that evaluation interns either under the same lock.
#[derive(Clone, Debug, Default)]
pub struct Symbols {
    text: String,
    /// Symbol `i` is `text[ends[i - 1]..ends[i]]` (from 0 for the first).
    ends: Vec<u32>,
    ids: RowSet,
    rec_ids: HashMap<Arc<[u32]>, u32>,
    recs: Vec<Arc<[u32]>>,
}

fn str_hash(s: &str) -> u64 {
    let mut h = StrHasher::default();
    h.write(s.as_bytes());
    h.finish()
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
        if !self.ids.fits(self.ends.len() + 1) {
            self.ids.reset((self.ends.len() + 1) * 2);
            for i in 0..self.ends.len() as u32 {
                self.ids.insert_new(str_hash(self.resolve(i)), i);
            }
        }
        let h = str_hash(s);
        match self.ids.probe(h, |id| self.resolve(id) == s) {
            Ok(id) => id,
            Err(slot) => {
                let id = self.ends.len() as u32;
                self.text.push_str(s);
                let end = u32::try_from(self.text.len()).expect("symbol text over 4 GiB");
                self.ends.push(end);
                self.ids.fill(slot, h, id);
                id
            }
        }
    }
    /// Number of symbols (ids are `0..count`).
    pub fn count(&self) -> usize {
        self.ends.len()
    }
    pub fn get(&self, s: &str) -> Option<u32> {
        self.ids.find(str_hash(s), |id| self.resolve(id) == s)
    }
    pub fn resolve(&self, id: u32) -> &str {
        let i = id as usize;
        let start = if i == 0 { 0 } else { self.ends[i - 1] as usize };
        &self.text[start..self.ends[i] as usize]
    }
}

#[derive(Clone, Debug)]
pub struct Index {
    pub cols: Vec<usize>,
    heads: TagTable,
    next: Vec<u32>,
    /// Plans in a row that did not read it (see `retire_indexes`).
    idle: u32,
}

impl Index {
    fn new(cols: Vec<usize>) -> Self {
        Index {
            cols,
            heads: TagTable::default(),
            next: Vec::new(),
            idle: 0,
        }
    }

    #[inline]
    fn key_hash(&self, row: &[u32]) -> u64 {
        hash_vals(self.cols.iter().map(|c| row[*c]))
    }

    /// Make row `id` (`row`, stored in `data` or about to be) its key's newest.
    #[inline]
    fn push(&mut self, data: &[u32], arity: usize, id: u32, row: &[u32]) {
        if !self.heads.has_room() {
            self.grow(data, arity);
        }
        let h = self.key_hash(row);
        let cols = &self.cols;
        let same = |r: u32| cols.iter().all(|c| data[r as usize * arity + c] == row[*c]);
        match self.heads.probe(h, same) {
            Ok(i) => {
                self.next.push(self.heads.rows[i]);
                self.heads.rows[i] = id;
            }
            Err(i) => {
                self.next.push(NONE);
                self.heads.fill(i, h, id);
            }
        }
    }

    /// Start bringing in the heads slot of `row`'s key (a hint for `push`).
    #[inline]
    fn prefetch_head(&self, row: &[u32]) {
        if self.heads.tags.is_empty() {
            return;
        }
        let (i, _) = self.heads.start(self.key_hash(row));
        prefetch(&self.heads.tags[i]);
        prefetch(&self.heads.rows[i]);
    }

    /// Double the heads table, rehashing each head row's key (one per key).
    fn grow(&mut self, data: &[u32], arity: usize) {
        let old = std::mem::take(&mut self.heads);
        self.heads.reset((old.tags.len() * 7 / 4).max(old.len + 1));
        for (t, r) in old.tags.iter().zip(&old.rows) {
            if *t != 0 {
                let a = *r as usize * arity;
                self.heads
                    .insert_new(self.key_hash(&data[a..a + arity]), *r);
            }
        }
    }
}

#[derive(Clone, Debug)]
pub struct Relation {
    pub arity: usize,
    data: Vec<u32>,
    len: usize,
    /// The row set (duplicate check); dropped once the relation is complete
    /// and built again only if a later rule looks rows up by value.
    row_set: RowSet,
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
            row_set: RowSet::default(),
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

    /// Distinct keys of columns `cols` among up to 64 rows spread over the relation (at
    /// least 1): the planner's estimate of how selective a lookup on them is.
    pub fn sampled_keys(&self, cols: &[usize]) -> usize {
        const SAMPLE: usize = 64;
        if self.len == 0 || self.eq.is_some() {
            return 1;
        }
        let step = self.len.div_ceil(SAMPLE);
        let mut keys: Vec<u64> = (0..self.len)
            .step_by(step)
            .map(|r| hash_vals(cols.iter().map(|c| self.row(r as u32)[*c])))
            .collect();
        keys.sort_unstable();
        keys.dedup();
        keys.len()
    }

    /// Register (or find) an index on `cols`; returns its number.
    pub fn ensure_index(&mut self, cols: &[usize]) -> usize {
        if let Some(i) = self.indexes.iter().position(|ix| ix.cols == cols) {
            return i;
        }
        let mut ix = Index::new(cols.to_vec());
        ix.next.reserve_exact(self.len);
        let a = self.arity;
        for r in 0..self.len {
            ix.push(&self.data, a, r as u32, &self.data[r * a..r * a + a]);
        }
        self.indexes.push(ix);
        self.indexes.len() - 1
    }

    /// Free the row set (no rule adds to the relation any more).
    pub fn drop_row_set(&mut self) {
        self.row_set = RowSet::default();
    }

    /// Free the indexes that `patience` plans in a row have not read
    /// (`used` tells whether the current one reads an index on those
    /// columns). A recursive stratum is planned again at each iteration,
    /// and an index chosen while the relations were small (or empty) would
    /// otherwise be kept up to date, a word per row, to the end.
    pub fn retire_indexes(&mut self, used: impl Fn(&[usize]) -> bool, patience: u32) {
        for ix in &mut self.indexes {
            ix.idle = if used(&ix.cols) { 0 } else { ix.idle + 1 };
        }
        self.indexes.retain(|ix| ix.idle < patience);
    }

    /// Free the indexes and the row set (no rule reads the relation any more).
    pub fn drop_lookups(&mut self) {
        self.indexes = Vec::new();
        self.row_set = RowSet::default();
    }

    /// Free everything (no rule or output reads the relation any more).
    pub fn clear(&mut self) {
        *self = match self.eq {
            Some(_) => Relation::new_eqrel(),
            None => Relation::new(self.arity),
        };
    }

    /// Build the row set again, for `n` rows in all, after `drop_lookups`
    /// or when it is too small.
    fn rebuild_row_set(&mut self, n: usize) {
        self.row_set.reset(n);
        let a = self.arity;
        for r in 0..self.len {
            let h = hash_vals(self.data[r * a..r * a + a].iter().copied());
            self.row_set.insert_new(h, r as u32);
        }
    }

    /// Make sure `find` works (the row set may have been dropped).
    pub fn ensure_row_set(&mut self) {
        if self.eq.is_none() && self.row_set.len < self.len {
            self.rebuild_row_set(self.len);
        }
    }

    /// Position of `row` if present.
    pub fn find(&self, row: &[u32]) -> Option<u32> {
        self.find_hashed(hash_vals(row.iter().copied()), row)
    }

    /// Position of `row`, whose `hash_vals` is `h`, if present.
    #[inline]
    pub fn find_hashed(&self, h: u64, row: &[u32]) -> Option<u32> {
        self.row_set.find(h, |id| rows_eq(self.row(id), row))
    }

    /// Start bringing in what `find_hashed(h, _)` reads first: its slot.
    #[inline]
    pub fn prefetch_slot(&self, h: u64) {
        if let Some(s) = self.row_set.slots.get(self.row_set.start(h)) {
            prefetch(s);
        }
    }

    /// Start bringing in what `find_hashed(h, _)` reads next: the row its
    /// slot names (call after `prefetch_slot`, once the slot has arrived).
    #[inline]
    pub fn prefetch_row(&self, h: u64) {
        if let Some(row) = self
            .row_set
            .first_guess(h)
            .and_then(|id| self.data.get(id as usize * self.arity))
        {
            prefetch(row);
        }
    }

    /// Make room for `n` more rows (fact loading knows its line count).
    pub fn reserve(&mut self, n: usize) {
        self.reserve_rows(n);
        if !self.row_set.fits(self.len + n) {
            self.rebuild_row_set(self.len + n);
        }
    }

    /// Make room for `n` more rows in the row array and the indexes, and
    /// little more: these arrays are most of a large relation, and growing
    /// them by doubling would leave up to half unused. They grow by at least
    /// an eighth, so that a relation that gains a few rows a round is not
    /// copied every round (glibc grows its large blocks in place anyway).
    pub fn reserve_rows(&mut self, n: usize) {
        let grow = n.max(self.len / 8);
        let short = |v: &Vec<u32>, k: usize| v.capacity() - v.len() < k;
        if short(&self.data, n * self.arity) {
            self.data.reserve_exact(grow * self.arity);
        }
        for ix in &mut self.indexes {
            if short(&ix.next, n) {
                ix.next.reserve_exact(grow);
            }
        }
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
        self.insert_hashed(hash_vals(row.iter().copied()), row)
    }

    /// Insert rows (flattened; not for an `eqrel` relation), a few at a time:
    /// first every row's slot in the row set and in each index is asked for,
    /// then the rows go in, so that the cache misses of a batch overlap.
    pub fn insert_rows(&mut self, rows: &[u32]) {
        const BATCH: usize = 16;
        let a = self.arity;
        let mut hashes = [0u64; BATCH];
        for batch in rows.chunks(a * BATCH) {
            let n = batch.len() / a;
            self.grow_row_set(n);
            for (k, row) in batch.chunks_exact(a).enumerate() {
                hashes[k] = hash_vals(row.iter().copied());
                self.prefetch_slot(hashes[k]);
                for ix in &self.indexes {
                    ix.prefetch_head(row);
                }
            }
            for (k, row) in batch.chunks_exact(a).enumerate() {
                self.insert_hashed(hashes[k], row);
            }
        }
    }

    /// Make room in the row set for `n` more rows.
    #[inline]
    fn grow_row_set(&mut self, n: usize) {
        if !self.row_set.fits(self.len + n) {
            // twice the slots (sizing for twice the rows can quadruple them)
            let slots = (self.row_set.slots.len() * 7 / 4).max(self.len + n);
            self.rebuild_row_set(slots);
        }
    }

    /// `insert_row`, given the row's `hash_vals`.
    #[inline]
    fn insert_hashed(&mut self, h: u64, row: &[u32]) -> bool {
        self.grow_row_set(1);
        let a = self.arity;
        let data = &self.data;
        let slot = match self.row_set.probe(h, |id| {
            rows_eq(&data[id as usize * a..id as usize * a + a], row)
        }) {
            Ok(_) => return false,
            Err(i) => i,
        };
        let id = self.len as u32;
        self.row_set.fill(slot, h, id);
        for ix in &mut self.indexes {
            ix.push(&self.data, a, id, row);
        }
        self.data.extend_from_slice(row);
        self.len += 1;
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
        // chains run from newest to oldest: nothing older can be in range
        while cur != NONE && cur >= lo {
            f(cur)?;
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
        let cur = self.chain_start(&self.indexes[ix], key, hi);
        cur != NONE && cur >= lo
    }

    /// Newest row below `hi` with index key `key` (each chain holds one key).
    #[inline]
    fn chain_start(&self, index: &Index, key: &[u32], hi: u32) -> u32 {
        let h = hash_vals(key.iter().copied());
        let same = |r: u32| {
            index
                .cols
                .iter()
                .zip(key)
                .all(|(c, k)| self.row(r)[*c] == *k)
        };
        let Some(mut cur) = index.heads.find(h, same) else {
            return NONE;
        };
        while cur != NONE && cur >= hi {
            cur = index.next[cur as usize];
        }
        cur
    }
}
