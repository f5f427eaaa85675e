//! The one path from a fact set to results: built-in rule programs, running a program on
//! either backend, locating entities in source, and report formats. Each analysis (the IR
//! checks today) is a thin module on top of these.

pub mod backend;
pub mod check;
pub mod locate;
pub mod programs;
pub mod report;

pub use backend::{Backend, EngineChoice, Runner};
pub mod andersen;
mod locset;
pub mod pointsto;
pub mod solution;
