//! Compiles `src/extract/attr_text.cpp` and `src/extract/shards.cpp`, the C++ entry points
//! the extractor needs (see there), against the same LLVM as llvm-sys.

fn main() {
    let prefix = std::env::var("LLVM_SYS_191_PREFIX").unwrap_or_else(|_| "/usr/lib/llvm-19".into());
    println!("cargo:rerun-if-env-changed=LLVM_SYS_191_PREFIX");
    println!("cargo:rerun-if-changed=src/extract/attr_text.cpp");
    println!("cargo:rerun-if-changed=src/extract/shards.cpp");
    let mut build = cc::Build::new();
    // A fresh machine has gcc but maybe no g++; LLVM's own clang++ comes with clang-19.
    let clangxx = std::path::Path::new(&prefix).join("bin/clang++");
    if std::env::var_os("CXX").is_none() && clangxx.exists() {
        build.compiler(clangxx);
    }
    build
        .cpp(true)
        .std("c++17")
        .include(format!("{prefix}/include"))
        .extra_warnings(false)
        .flag_if_supported("-fno-exceptions")
        .define("_GNU_SOURCE", None)
        .define("__STDC_CONSTANT_MACROS", None)
        .define("__STDC_LIMIT_MACROS", None)
        .file("src/extract/attr_text.cpp")
        .file("src/extract/shards.cpp")
        .compile("llfacts_attr_text");
}
