//! DTrans: which struct types' layouts may be transformed (`rules/dtrans.dl`), and what a
//! transformation would gain.

pub mod layout;
