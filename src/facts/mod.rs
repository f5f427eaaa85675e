//! The fact format: the relation registry, per-relation buffers and field escaping, typed
//! rows (reading and writing tuples), the output directory, the generated Soufflé schema,
//! and [`FactSet`], the one way every consumer reads facts. No other module knows how a
//! fact file is laid out.

pub mod buf;
pub mod registry;
pub mod row;
pub mod schema;
pub mod set;
pub mod writer;

pub use buf::{FactBuf, Id, unescape};
pub use registry::{RELATIONS, Rel, rows};
pub use row::Row;
pub use set::FactSet;
