//! Equivalence relations (`eqrel`): a union-find over the values, holding
//! the reflexive, symmetric and transitive closure of the inserted pairs
//! without storing it. Pairs exist only while they are enumerated.
//!
//! Roots are kept fully compressed (every element points at its class's
//! root; a union relabels the smaller class), so lookups are read-only and
//! may run in parallel. For semi-naive evaluation, `mark` starts a new epoch:
//! a pair is old when both ends were in one class at the mark, new
//! otherwise. An element relabeled since the mark remembers its root at the
//! mark, so marking costs nothing per element.

use std::collections::HashMap;
use std::hash::{BuildHasherDefault, Hasher};

/// Values to element numbers; the keys are `u32`s, so a multiplicative hash does.
type U32Map = HashMap<u32, u32, BuildHasherDefault<MulHasher>>;

#[derive(Default)]
struct MulHasher(u64);

impl Hasher for MulHasher {
    fn finish(&self) -> u64 {
        self.0
    }
    fn write(&mut self, bytes: &[u8]) {
        for b in bytes {
            self.write_u32(*b as u32);
        }
    }
    fn write_u32(&mut self, v: u32) {
        self.0 = (self.0 ^ v as u64)
            .wrapping_mul(0x9E37_79B9_7F4A_7C15)
            .rotate_left(26);
    }
}

const NONE: u32 = u32::MAX;

/// Which pairs a read sees: all, those before the last `mark`, those after.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Part {
    All,
    Old,
    New,
}

#[derive(Clone, Debug, Default)]
pub struct EqRel {
    /// Element number of each value, and the value of each element.
    elem: U32Map,
    vals: Vec<u32>,
    root: Vec<u32>,
    /// Members of each class, at its root (empty elsewhere).
    members: Vec<Vec<u32>>,
    /// Per element: the epoch it appeared in, the epoch it was last
    /// relabeled in, and its root before that relabeling.
    born: Vec<u32>,
    moved: Vec<u32>,
    prev_root: Vec<u32>,
    epoch: u32,
    /// Roots of classes that changed since the last `mark` (stale ones included).
    dirty: Vec<u32>,
    pairs: usize,
}

impl EqRel {
    /// Number of pairs of the closure.
    pub fn len(&self) -> usize {
        self.pairs
    }

    fn elem_of(&mut self, v: u32) -> (u32, bool) {
        if let Some(&e) = self.elem.get(&v) {
            return (e, false);
        }
        let e = self.vals.len() as u32;
        self.elem.insert(v, e);
        self.vals.push(v);
        self.root.push(e);
        self.members.push(vec![e]);
        self.born.push(self.epoch);
        self.moved.push(NONE);
        self.prev_root.push(NONE);
        self.dirty.push(e);
        self.pairs += 1;
        (e, true)
    }

    /// Add the pair `(a, b)` and its consequences; whether anything is new.
    pub fn insert(&mut self, a: u32, b: u32) -> bool {
        let (ea, new_a) = self.elem_of(a);
        let (eb, new_b) = self.elem_of(b);
        let (ra, rb) = (self.root[ea as usize], self.root[eb as usize]);
        if ra == rb {
            return new_a || new_b;
        }
        let (big, small) = if self.members[ra as usize].len() >= self.members[rb as usize].len() {
            (ra, rb)
        } else {
            (rb, ra)
        };
        let moved = std::mem::take(&mut self.members[small as usize]);
        self.pairs += 2 * moved.len() * self.members[big as usize].len();
        for &m in &moved {
            let m = m as usize;
            if self.moved[m] != self.epoch {
                self.moved[m] = self.epoch;
                self.prev_root[m] = self.root[m];
            }
            self.root[m] = big;
        }
        self.members[big as usize].extend(moved);
        self.dirty.push(big);
        true
    }

    /// Start a new delta: what is there now becomes old (`empty`: nothing is old).
    pub fn mark(&mut self, empty: bool) {
        self.epoch += 1;
        self.dirty.clear();
        if empty {
            self.born.iter_mut().for_each(|b| *b = self.epoch);
            self.dirty.extend(0..self.vals.len() as u32);
        }
    }

    /// An element's root at the last mark (`NONE`: it appeared since).
    fn old_root(&self, e: u32) -> u32 {
        let e = e as usize;
        if self.born[e] == self.epoch {
            NONE
        } else if self.moved[e] == self.epoch {
            self.prev_root[e]
        } else {
            self.root[e]
        }
    }

    fn in_part(&self, ea: u32, eb: u32, part: Part) -> bool {
        if part == Part::All {
            return true;
        }
        let oa = self.old_root(ea);
        let was = oa != NONE && oa == self.old_root(eb);
        was == (part == Part::Old)
    }

    /// Whether `(a, b)` is in `part`.
    pub fn contains(&self, a: u32, b: u32, part: Part) -> bool {
        match (self.elem.get(&a), self.elem.get(&b)) {
            (Some(&ea), Some(&eb)) => {
                self.root[ea as usize] == self.root[eb as usize] && self.in_part(ea, eb, part)
            }
            _ => false,
        }
    }

    /// Whether `part` has a pair whose column `col` is `v` (any pair: `None`).
    pub fn any(&self, part: Part, key: Option<(usize, u32)>) -> bool {
        match key {
            Some((_, v)) => self.elem.get(&v).is_some_and(|&e| {
                self.members[self.root[e as usize] as usize]
                    .iter()
                    .any(|&m| self.in_part(e, m, part))
            }),
            // every element is related to itself; every dirty class has a new pair
            None => match part {
                Part::All => !self.vals.is_empty(),
                Part::Old => (0..self.vals.len() as u32).any(|e| self.old_root(e) != NONE),
                Part::New => !self.dirty.is_empty(),
            },
        }
    }

    /// Visit the reflexive pairs `(v, v)` of `part`, one per element: `e(x, x)`
    /// needs those only, not every pair of every class. A reflexive pair is old
    /// when its element existed at the mark, new when it was born since.
    pub fn scan_diagonal(
        &self,
        part: Part,
        mut f: impl FnMut([u32; 2]) -> anyhow::Result<()>,
    ) -> anyhow::Result<()> {
        for e in 0..self.vals.len() as u32 {
            let keep = match part {
                Part::All => true,
                Part::Old => self.old_root(e) != NONE,
                Part::New => self.old_root(e) == NONE,
            };
            if keep {
                let v = self.vals[e as usize];
                f([v, v])?;
            }
        }
        Ok(())
    }

    /// Visit the pairs of `part` whose column `col` is `v`, or all of `part`'s
    /// pairs when `key` is `None`.
    pub fn scan(
        &self,
        part: Part,
        key: Option<(usize, u32)>,
        mut f: impl FnMut([u32; 2]) -> anyhow::Result<()>,
    ) -> anyhow::Result<()> {
        if let Some((col, v)) = key {
            let Some(&e) = self.elem.get(&v) else {
                return Ok(());
            };
            for &m in &self.members[self.root[e as usize] as usize] {
                if self.in_part(e, m, part) {
                    let w = self.vals[m as usize];
                    f(if col == 0 { [v, w] } else { [w, v] })?;
                }
            }
            return Ok(());
        }
        // the classes to visit: all, or those that changed
        let mut roots: Vec<u32> = if part == Part::New {
            self.dirty.iter().map(|e| self.root[*e as usize]).collect()
        } else {
            (0..self.vals.len() as u32)
                .filter(|e| self.root[*e as usize] == *e)
                .collect()
        };
        roots.sort_unstable();
        roots.dedup();
        let val = |e: u32| self.vals[e as usize];
        for r in roots {
            let ms = &self.members[r as usize];
            if part == Part::All {
                for &a in ms {
                    for &b in ms {
                        f([val(a), val(b)])?;
                    }
                }
                continue;
            }
            // Old pairs lie within one group of members (one class at the
            // mark); new pairs join two groups, or an element born since.
            let groups = self.groups(ms);
            for (i, ga) in groups.iter().enumerate() {
                let born = self.old_root(ga[0]) == NONE;
                if part == Part::Old && !born {
                    for &a in ga {
                        for &b in ga {
                            f([val(a), val(b)])?;
                        }
                    }
                } else if part == Part::New {
                    for (j, gb) in groups.iter().enumerate() {
                        if i == j && !born {
                            continue;
                        }
                        for &a in ga {
                            for &b in gb {
                                f([val(a), val(b)])?;
                            }
                        }
                    }
                }
            }
        }
        Ok(())
    }

    /// The members of a class grouped by their class at the mark; each
    /// element born since the mark is a group of its own.
    fn groups(&self, ms: &[u32]) -> Vec<Vec<u32>> {
        let mut by_root: HashMap<u32, usize, BuildHasherDefault<MulHasher>> = HashMap::default();
        let mut out: Vec<Vec<u32>> = Vec::new();
        for &m in ms {
            let o = self.old_root(m);
            if o == NONE {
                out.push(vec![m]);
                continue;
            }
            let g = *by_root.entry(o).or_insert_with(|| {
                out.push(Vec::new());
                out.len() - 1
            });
            out[g].push(m);
        }
        out
    }

    /// Every pair, flattened (for output).
    pub fn pairs(&self) -> Vec<u32> {
        let mut out = Vec::with_capacity(self.pairs * 2);
        let _ = self.scan(Part::All, None, |p| {
            out.extend_from_slice(&p);
            Ok(())
        });
        out
    }
}
