//! Typed rows: a relation's tuples read as structs with one field per column, so code that
//! reads a relation names its columns instead of counting them. The structs for the fact
//! relations come from the registry ([`super::rows`]); those of rule programs' outputs are
//! generated from the rule files' declarations (`analysis::rows`). A column moved in its one
//! definition moves with it; a column renamed or removed breaks the build.

use anyhow::{Result, anyhow};

/// One tuple of a relation, borrowing its fields from the relation's text.
pub trait Row<'a>: Sized {
    const RELATION: &'static str;
    /// Column names; a Rust keyword is spelled as a raw identifier (`r#type`).
    const COLUMNS: &'static [&'static str];
    /// The tuple in `fields`, or `None` if a field is missing, extra, or not a number where
    /// a number is declared.
    fn from_fields(fields: &mut Fields<'a>) -> Option<Self>;
}

/// The fields of one tuple, taken in column order.
pub struct Fields<'a> {
    fields: std::str::Split<'a, char>,
}

impl<'a> Fields<'a> {
    /// A symbol, escaped as in the fact file (see [`super::unescape`]).
    pub fn symbol(&mut self) -> Option<&'a str> {
        self.fields.next()
    }

    pub fn number(&mut self) -> Option<i32> {
        self.fields.next()?.parse().ok()
    }

    pub fn unsigned(&mut self) -> Option<u32> {
        self.fields.next()?.parse().ok()
    }

    pub fn float(&mut self) -> Option<f32> {
        self.fields.next()?.parse().ok()
    }

    fn done(&mut self) -> bool {
        self.fields.next().is_none()
    }
}

/// Splits one tuple's line into fields: the format of fact files and of Soufflé's outputs.
pub fn split_fields(line: &str) -> std::str::Split<'_, char> {
    line.split('\t')
}

/// The tuples of `text` (one per line) as `R`s; a malformed line is an error naming it.
pub fn parse<'a, R: Row<'a>>(text: &'a str) -> impl Iterator<Item = Result<R>> + 'a {
    text.lines().map(|line| {
        let mut fields = Fields {
            fields: split_fields(line),
        };
        R::from_fields(&mut fields)
            .filter(|_| fields.done())
            .ok_or_else(|| {
                anyhow!(
                    "{}: malformed tuple `{line}` (columns: {})",
                    R::RELATION,
                    R::COLUMNS.join(", ")
                )
            })
    })
}

/// The Rust type of a column of a Soufflé type (the registry's and generated rows' types).
#[macro_export]
#[doc(hidden)]
macro_rules! row_field_type {
    ($lt:lifetime, symbol) => { &$lt str };
    ($lt:lifetime, number) => { i32 };
    ($lt:lifetime, unsigned) => { u32 };
    ($lt:lifetime, float) => { f32 };
}

/// Defines a row struct per relation: `row_structs! { name(col: type, ...) ... }`.
#[macro_export]
#[doc(hidden)]
macro_rules! row_structs {
    ($( $(#[$meta:meta])* $name:ident ( $( $col:ident : $kind:ident ),* $(,)? ) )*) => {$(
        $(#[$meta])*
        #[allow(non_camel_case_types)]
        #[derive(Clone, Copy, Debug, PartialEq)]
        pub struct $name<'a> {
            $( pub $col: $crate::row_field_type!('a, $kind), )*
            _text: ::std::marker::PhantomData<&'a str>,
        }

        impl<'a> $crate::facts::row::Row<'a> for $name<'a> {
            const RELATION: &'static str = stringify!($name);
            const COLUMNS: &'static [&'static str] = &[$( stringify!($col) ),*];
            #[allow(unused_variables)]
            fn from_fields(fields: &mut $crate::facts::row::Fields<'a>) -> Option<Self> {
                Some($name {
                    $( $col: fields.$kind()?, )*
                    _text: ::std::marker::PhantomData,
                })
            }
        }
    )*};
}

/// Writes one tuple as a line of an output file: fields (already in their file form, as
/// read from facts or outputs) separated by tabs.
pub fn write_tuple(w: &mut dyn std::io::Write, fields: &[&dyn std::fmt::Display]) -> std::io::Result<()> {
    for (i, f) in fields.iter().enumerate() {
        if i > 0 {
            w.write_all(b"\t")?;
        }
        write!(w, "{f}")?;
    }
    w.write_all(b"\n")
}
