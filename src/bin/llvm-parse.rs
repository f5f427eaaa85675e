//! Benchmark baseline, the parse floor: read one module with LLVM's own reader (the C API,
//! the same LLVM that `llfacts` links) and verify it, nothing else. `just bench` compares
//! `llfacts extract` against this, process against process.

fn main() {
    let Some(path) = std::env::args().nth(1) else {
        eprintln!("usage: llvm-parse FILE.bc|FILE.ll");
        std::process::exit(2);
    };
    match llfacts::extract::parse_only(std::path::Path::new(&path)) {
        Ok(functions) => println!("{functions} functions"),
        Err(e) => {
            eprintln!("llvm-parse: {e}");
            std::process::exit(1);
        }
    }
}
