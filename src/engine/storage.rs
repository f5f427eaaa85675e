//! Interned symbols and compact relations.
//!
//! A relation stores its rows in one flat `Vec<u32>` (fixed arity, row `i` at
//! `data[i*arity..]`); rows are only ever appended, so "the rows before
//! iteration k" is a prefix, which is how semi-naive evaluation tells old
//! tuples from the delta. Duplicates are rejected through a hash map from the
//! row's hash to the newest row with that hash, chained through `next`. Each
//! secondary index (a set of key columns) works the same way on the key's hash.

use std::collections::HashMap;
use std::hash::{BuildHasherDefault, Hasher};
use std::sync::Arc;

pub const NONE: u32 = u32::MAX;

/// Hasher for keys that are already well-mixed `u64` hashes.
#[derive(Default)]
pub struct PassThrough(u64);

impl Hasher for PassThrough {
    fn finish(&self) -> u64 {
        self.0
    }
    fn write(&mut self, bytes: &[u8]) {
        for b in bytes {
            self.0 = (self.0 << 8) ^ *b as u64;
        }
    }
    fn write_u64(&mut self, v: u64) {
        self.0 = v;
    }
}

pub type HashedMap<V> = HashMap<u64, V, BuildHasherDefault<PassThrough>>;

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

/// The symbol table: strings interned to dense `u32` ids.
#[derive(Clone, Debug, Default)]
pub struct Symbols {
    ids: HashMap<Arc<str>, u32>,
    strs: Vec<Arc<str>>,
}

impl Symbols {
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
    pub fn len(&self) -> usize {
        self.strs.len()
    }
    pub fn is_empty(&self) -> bool {
        self.strs.is_empty()
    }
}

#[derive(Clone, Debug)]
pub struct Index {
    pub cols: Vec<usize>,
    heads: HashedMap<u32>,
    next: Vec<u32>,
}

impl Index {
    fn new(cols: Vec<usize>) -> Self {
        Index {
            cols,
            heads: HashedMap::default(),
            next: Vec::new(),
        }
    }
}

#[derive(Clone, Debug)]
pub struct Relation {
    pub arity: usize,
    data: Vec<u32>,
    len: usize,
    dedup: HashedMap<u32>,
    dnext: Vec<u32>,
    pub indexes: Vec<Index>,
}

impl Relation {
    pub fn new(arity: usize) -> Self {
        Relation {
            arity,
            data: Vec::new(),
            len: 0,
            dedup: HashedMap::default(),
            dnext: Vec::new(),
            indexes: Vec::new(),
        }
    }

    pub fn len(&self) -> usize {
        self.len
    }
    pub fn is_empty(&self) -> bool {
        self.len == 0
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
        for r in 0..self.len as u32 {
            let h = hash_vals(cols.iter().map(|c| self.data[r as usize * self.arity + c]));
            let prev = ix.heads.insert(h, r).unwrap_or(NONE);
            ix.next.push(prev);
        }
        self.indexes.push(ix);
        self.indexes.len() - 1
    }

    /// Position of `row` if present.
    pub fn find(&self, row: &[u32]) -> Option<u32> {
        let h = hash_vals(row.iter().copied());
        let mut cur = self.dedup.get(&h).copied().unwrap_or(NONE);
        while cur != NONE {
            if self.row(cur) == row {
                return Some(cur);
            }
            cur = self.dnext[cur as usize];
        }
        None
    }

    pub fn contains(&self, row: &[u32]) -> bool {
        self.find(row).is_some()
    }

    /// Insert a row; returns false if it was already present.
    pub fn insert(&mut self, row: &[u32]) -> bool {
        debug_assert_eq!(row.len(), self.arity);
        let h = hash_vals(row.iter().copied());
        let head = self.dedup.get(&h).copied().unwrap_or(NONE);
        let mut cur = head;
        while cur != NONE {
            if self.row(cur) == row {
                return false;
            }
            cur = self.dnext[cur as usize];
        }
        let id = self.len as u32;
        self.dedup.insert(h, id);
        self.dnext.push(head);
        self.data.extend_from_slice(row);
        self.len += 1;
        for ix in &mut self.indexes {
            let kh = hash_vals(ix.cols.iter().map(|c| row[*c]));
            let prev = ix.heads.insert(kh, id).unwrap_or(NONE);
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
        let h = hash_vals(key.iter().copied());
        let mut cur = index.heads.get(&h).copied().unwrap_or(NONE);
        while cur != NONE {
            if cur >= lo && cur < hi {
                let r = self.row(cur);
                if index.cols.iter().zip(key).all(|(c, k)| r[*c] == *k) {
                    f(cur)?;
                }
            } else if cur < lo {
                // chains run from newest to oldest: nothing older can be in range
                break;
            }
            cur = index.next[cur as usize];
        }
        Ok(())
    }

    pub fn rows(&self) -> impl Iterator<Item = &[u32]> {
        (0..self.len as u32).map(move |i| self.row(i))
    }
}
