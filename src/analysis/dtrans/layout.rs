//! Struct layouts (as rules/lib/dtrans_layout.dl gives them), and what reordering a
//! struct's fields would save: the bytes of padding per instance between its layout and the
//! one with its fields sorted by alignment (largest first), which no other order beats when
//! every size is a multiple of its alignment, as in LLVM's data layouts.

use std::collections::BTreeMap;

use anyhow::Result;

use crate::analysis::rows::dtrans as out;
use crate::analysis::session::Tables;

#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Field {
    pub index: i32,
    pub ty: String,
    /// The type as LLVM would spell it (a recovered struct by its name).
    pub text: String,
    /// The source name, where debug info gives it.
    pub name: Option<String>,
    pub offset: i32,
    pub size: i32,
    pub align: i32,
}

#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Layout {
    /// The struct type's id.
    pub ty: String,
    /// Its LLVM name (`struct.S`).
    pub name: String,
    pub size: i32,
    pub align: i32,
    pub packed: bool,
    /// Recovered from debug info: the optimiser dropped the type from the module.
    pub recovered: bool,
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

/// The layouts of every type of interest, by type id, as rules/lib/dtrans_layout.dl gives
/// them: the module's struct types, and those recovered from debug info.
pub fn layouts(tables: &Tables) -> Result<BTreeMap<String, Layout>> {
    let mut layouts: BTreeMap<String, Layout> = BTreeMap::new();
    for r in tables.rows::<out::dtrans_layout>()? {
        let r = r?;
        layouts.insert(r.ty.to_string(), Layout {
            ty: r.ty.to_string(),
            name: r.name.to_string(),
            size: r.bytes,
            align: r.align,
            packed: r.packed != 0,
            recovered: r.source == "debug info",
            fields: vec![],
        });
    }
    for r in tables.rows::<out::dtrans_layout_field>()? {
        let r = r?;
        let Some(layout) = layouts.get_mut(r.ty) else { continue };
        layout.fields.push(Field {
            index: r.index,
            ty: r.fty.to_string(),
            text: r.text.to_string(),
            name: None,
            offset: r.offset,
            size: r.bytes,
            align: r.align,
        });
    }
    for r in tables.rows::<out::dtrans_field_name>()? {
        let r = r?;
        let field = layouts.get_mut(r.ty).and_then(|l| l.fields.iter_mut().find(|f| f.index == r.index));
        if let Some(f) = field {
            f.name = Some(r.name.to_string());
        }
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
                    text: format!("i{}", size * 8),
                    name: None,
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
            name: "struct.S".into(),
            size,
            align,
            packed: false,
            recovered: false,
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
