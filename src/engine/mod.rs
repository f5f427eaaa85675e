//! Embedded evaluator for the Soufflé subset that `rules/` uses.
