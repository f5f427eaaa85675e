//! Struct layouts from the layout facts, and what reordering a struct's fields would save:
//! the bytes of padding per instance between its layout and the one with its fields sorted
//! by alignment (largest first), which no other order beats when every size is a multiple
//! of its alignment, as in LLVM's data layouts.

use std::collections::BTreeMap;

use anyhow::Result;

use crate::facts::{FactSet, rows};

#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Field {
    pub index: i32,
    pub ty: String,
    pub offset: i32,
    pub size: i32,
    pub align: i32,
}

#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Layout {
    /// The struct type's id.
    pub ty: String,
    pub size: i32,
    pub align: i32,
    pub packed: bool,
    pub fields: Vec<Field>,
}

impl Layout {
    /// Bytes that hold no field.
    pub fn padding(&self) -> i32 {
        self.size - self.fields.iter().map(|f| f.size).sum::<i32>()
    }

    /// The size with the fields sorted by alignment, largest first (ties keep their order);
    /// a packed struct has no padding to save.
    pub fn reordered_size(&self) -> i32 {
        if self.packed {
            return self.size;
        }
        let mut fields: Vec<&Field> = self.fields.iter().collect();
        fields.sort_by_key(|f| std::cmp::Reverse(f.align));
        let mut end = 0;
        for f in fields {
            end = align_up(end, f.align) + f.size;
        }
        align_up(end, self.align)
    }

    /// Field indices in the reordered layout.
    pub fn reordered(&self) -> Vec<i32> {
        let mut fields: Vec<&Field> = self.fields.iter().collect();
        fields.sort_by_key(|f| std::cmp::Reverse(f.align));
        fields.iter().map(|f| f.index).collect()
    }

    /// What reordering saves per instance.
    pub fn reorder_saves(&self) -> i32 {
        self.size - self.reordered_size()
    }
}

fn align_up(n: i32, align: i32) -> i32 {
    if align <= 1 {
        n
    } else {
        (n + align - 1) / align * align
    }
}

/// The layouts of every sized struct type of the facts, by type id.
pub fn layouts(facts: &FactSet) -> Result<BTreeMap<String, Layout>> {
    let mut size = BTreeMap::new();
    for r in facts.rows::<rows::type_alloc_size>()? {
        let r = r?;
        size.insert(r.ty, r.bytes);
    }
    let mut align = BTreeMap::new();
    for r in facts.rows::<rows::type_abi_align>()? {
        let r = r?;
        align.insert(r.ty, r.bytes);
    }
    let mut offsets = BTreeMap::new();
    for r in facts.rows::<rows::struct_type_field_offset>()? {
        let r = r?;
        offsets.insert((r.ty, r.index), r.offset);
    }
    let mut packed = std::collections::BTreeSet::new();
    for r in facts.rows::<rows::struct_type_packed>()? {
        packed.insert(r?.ty);
    }
    let mut layouts: BTreeMap<String, Layout> = BTreeMap::new();
    for r in facts.rows::<rows::struct_type_field>()? {
        let r = r?;
        let (Some(&s), Some(&a), Some(&fs), Some(&fa), Some(&off)) = (
            size.get(r.ty),
            align.get(r.ty),
            size.get(r.field),
            align.get(r.field),
            offsets.get(&(r.ty, r.index)),
        ) else {
            continue; // unsized (opaque, scalable) or beyond a number column
        };
        let layout = layouts.entry(r.ty.to_string()).or_insert_with(|| Layout {
            ty: r.ty.to_string(),
            size: s,
            align: a,
            packed: packed.contains(r.ty),
            fields: vec![],
        });
        layout.fields.push(Field {
            index: r.index,
            ty: r.field.to_string(),
            offset: off,
            size: fs,
            align: fa,
        });
    }
    for layout in layouts.values_mut() {
        layout.fields.sort_by_key(|f| f.index);
    }
    Ok(layouts)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn layout(fields: &[(i32, i32)], size: i32, align: i32) -> Layout {
        let mut offset = 0;
        let fields = fields
            .iter()
            .enumerate()
            .map(|(i, &(size, align))| {
                offset = align_up(offset, align);
                let f = Field {
                    index: i as i32,
                    ty: format!("i{}", size * 8),
                    offset,
                    size,
                    align,
                };
                offset += size;
                f
            })
            .collect();
        Layout {
            ty: "%struct.S".into(),
            size,
            align,
            packed: false,
            fields,
        }
    }

    #[test]
    fn reordering_sorts_by_alignment() {
        // { char, long, char, int }: 1 + 7 pad + 8 + 1 + 3 pad + 4 = 24; sorted
        // { long, int, char, char } = 8 + 4 + 1 + 1 = 14, rounded to 16.
        let l = layout(&[(1, 1), (8, 8), (1, 1), (4, 4)], 24, 8);
        assert_eq!(l.padding(), 10);
        assert_eq!(l.reordered_size(), 16);
        assert_eq!(l.reorder_saves(), 8);
        assert_eq!(l.reordered(), [1, 3, 0, 2]);
        // Already best: { long, int, char } = 13, rounded to 16; nothing to save.
        let l = layout(&[(8, 8), (4, 4), (1, 1)], 16, 8);
        assert_eq!(l.reorder_saves(), 0);
    }
}
