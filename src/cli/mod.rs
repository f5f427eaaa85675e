//! The command line: one file per command, and the options they share (`options.rs`).
//! This is the only module that uses clap; it turns arguments into library calls.

pub mod alias;
pub mod analyze;
pub mod check;
pub mod dtrans;
pub mod extract;
pub mod options;
pub mod read;
pub mod run;
pub mod schema;
