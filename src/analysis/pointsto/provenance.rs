//! Why a pointer may point to an object (`analyze --explain`): while solving, the points-to
//! solver notes, for each node, the node that first gave it a location of the object; from
//! the pointer, those notes lead back to the constraint that names the object. A node on a
//! merged copy cycle has no single source, so cycles are not merged while explaining.

use super::locset::LocSet;

type HashMap<K, V> = crate::fasthash::FastMap<K, V>;

/// The notes for one object, over the solver's node and location ids.
pub struct Provenance {
    object: u32,
    /// The location ids of the object (every offset, every heap context).
    ids: LocSet,
    /// The node whose locations are being propagated, if any.
    pub source: Option<u32>,
    /// Per node that holds the object: where its first location of it came from (`None`:
    /// from a constraint that names the object).
    first: HashMap<u32, Option<u32>>,
}

impl Provenance {
    pub fn new(object: u32) -> Provenance {
        Provenance {
            object,
            ids: LocSet::default(),
            source: None,
            first: HashMap::default(),
        }
    }

    /// A new location id, of `object`.
    pub fn location(&mut self, id: u32, object: u32) {
        if object == self.object {
            self.ids.insert(id);
        }
    }

    /// `node` gained the locations `new`.
    pub fn gained(&mut self, node: u32, new: &LocSet) {
        if !self.first.contains_key(&node) && self.ids.iter().any(|i| new.contains(i)) {
            self.first.insert(node, self.source);
        }
    }

    pub fn gained_one(&mut self, node: u32, id: u32) {
        if !self.first.contains_key(&node) && self.ids.contains(id) {
            self.first.insert(node, self.source);
        }
    }

    /// Whether anything ever pointed to the object.
    pub fn seen(&self) -> bool {
        !self.ids.is_empty()
    }

    pub fn holds(&self, node: u32) -> bool {
        self.first.contains_key(&node)
    }

    /// From `node` (which holds the object) back to the node that got it from a constraint
    /// naming the object: `node` first.
    pub fn chain(&self, mut node: u32) -> Vec<u32> {
        let mut chain = vec![node];
        while let Some(&Some(source)) = self.first.get(&node) {
            chain.push(source);
            node = source;
        }
        chain
    }
}
