//! Benchmark baseline: parse a module with the llvm-ir crate and nothing else.
//! `just bench` compares `llfacts extract` against this, process against process.

fn main() {
    let Some(path) = std::env::args().nth(1) else {
        eprintln!("usage: llir-parse FILE.bc");
        std::process::exit(2);
    };
    match llvm_ir::Module::from_bc_path(&path) {
        Ok(m) => {
            let instrs: usize = m
                .functions
                .iter()
                .flat_map(|f| &f.basic_blocks)
                .map(|b| b.instrs.len() + 1)
                .sum();
            println!("{} functions, {instrs} instructions", m.functions.len());
        }
        Err(e) => {
            eprintln!("llir-parse: {path}: {e}");
            std::process::exit(1);
        }
    }
}
