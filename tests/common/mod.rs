//! Helpers for tests that run the real `llfacts` binary on modules clang-22 compiles at
//! test time.
#![allow(dead_code)]

pub mod modgraph;

use std::collections::HashMap;
use std::path::{Path, PathBuf};
use std::process::{Command, Output};
use std::sync::OnceLock;

pub fn repo() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
}

pub fn llfacts() -> Command {
    Command::new(env!("CARGO_BIN_EXE_llfacts"))
}

/// Runs `llfacts args` in `cwd`.
pub fn run_in(args: &[&str], cwd: &Path) -> Output {
    llfacts()
        .args(args)
        .current_dir(cwd)
        .output()
        .expect("run llfacts")
}

/// Runs `llfacts args` in `cwd`, an `llfacts run` on the builtin engine unless the arguments
/// choose one: the engine's own tests must not turn into Soufflé's where `souffle` is on
/// PATH (the default engine is `auto`).
pub fn run_builtin_in(args: &[&str], cwd: &Path) -> Output {
    let mut args = args.to_vec();
    if args.first() == Some(&"run") && !args.contains(&"--engine") {
        args.extend(["--engine", "builtin"]);
    }
    run_in(&args, cwd)
}

/// The names in `dir` of llfacts' temporaries (`...llfacts-tmp...`): litter after a run.
pub fn temporaries_in(dir: &Path) -> Vec<String> {
    std::fs::read_dir(dir)
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .filter(|n| n.contains("llfacts-tmp"))
        .collect()
}

/// `cmd` under a file size limit (`ulimit -f`) of `bytes`: writes past it fail.
pub fn with_file_size_limit(cmd: &mut Command, bytes: u64) -> &mut Command {
    with_limit(cmd, libc::RLIMIT_FSIZE, bytes)
}

/// `cmd` with resource `limit` (`libc::RLIMIT_*`) set to `value`.
pub fn with_limit(cmd: &mut Command, limit: libc::__rlimit_resource_t, value: u64) -> &mut Command {
    use std::os::unix::process::CommandExt;
    // SAFETY: only setrlimit, async-signal-safe, between fork and exec.
    unsafe {
        cmd.pre_exec(move || {
            let lim = libc::rlimit {
                rlim_cur: value,
                rlim_max: value,
            };
            if libc::setrlimit(limit, &lim) != 0 {
                return Err(std::io::Error::last_os_error());
            }
            Ok(())
        })
    }
}

pub fn stderr_text(o: &Output) -> String {
    String::from_utf8_lossy(&o.stderr).into_owned()
}

/// Write `text` to `dir/name`, creating folders as needed.
pub fn write_file(dir: &Path, name: &str, text: &str) {
    let p = dir.join(name);
    std::fs::create_dir_all(p.parent().unwrap()).unwrap();
    std::fs::write(p, text).unwrap();
}

pub fn read_file(dir: &Path, name: &str) -> String {
    std::fs::read_to_string(dir.join(name)).unwrap_or_else(|e| panic!("{name}: {e}"))
}

/// A fresh, empty scratch directory for one test.
pub fn scratch(name: &str) -> PathBuf {
    let dir = PathBuf::from(env!("CARGO_TARGET_TMPDIR")).join(name);
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    dir
}

pub fn clang() -> PathBuf {
    for candidate in ["/usr/lib/llvm-22/bin/clang", "/usr/bin/clang-22"] {
        if Path::new(candidate).exists() {
            return candidate.into();
        }
    }
    panic!("clang-22 is required by the tests: run `apt-get install clang-22`");
}

/// Compiles C (or C++, by extension) to bitcode with clang-22.
pub fn compile(src: &Path, out: &Path, flags: &[&str]) {
    let compiler = if src.extension().is_some_and(|e| e == "cpp") {
        clang().with_file_name("clang++")
    } else {
        clang()
    };
    let status = Command::new(compiler)
        .args(["-c", "-emit-llvm", "-Wno-everything"])
        .args(flags)
        .arg(src)
        .arg("-o")
        .arg(out)
        .status()
        .unwrap();
    assert!(status.success(), "clang-22 failed on {}", src.display());
}

/// Compiles C to bitcode at -O0 -g without optnone, then runs `opt -passes=mem2reg`, so that
/// locals are SSA values; `pre` keeps the module before mem2reg.
pub fn compile_mem2reg(src: &Path, pre: &Path, out: &Path) {
    let flags = [
        "-O0",
        "-g",
        "-fno-discard-value-names",
        "-Xclang",
        "-disable-O0-optnone",
    ];
    compile(src, pre, &flags);
    let ok = Command::new(clang().with_file_name("opt"))
        .arg("-passes=mem2reg")
        .arg(pre)
        .arg("-o")
        .arg(out)
        .status()
        .unwrap()
        .success();
    assert!(ok, "opt-22 -passes=mem2reg failed on {}", src.display());
}

/// Compiles a C snippet written in the test.
pub fn compile_snippet(dir: &Path, name: &str, code: &str, flags: &[&str]) -> PathBuf {
    let src = dir.join(format!("{name}.c"));
    std::fs::write(&src, code).unwrap();
    let out = dir.join(format!("{name}.bc"));
    compile(&src, &out, flags);
    out
}

/// Every C and C++ fixture at -O0 -g and at -O2, compiled once per test binary.
pub fn compiled_fixtures() -> &'static [PathBuf] {
    static BUILT: OnceLock<Vec<PathBuf>> = OnceLock::new();
    BUILT.get_or_init(|| {
        let dir = scratch("compiled-fixtures");
        let mut sources: Vec<PathBuf> = ["fixtures/c", "fixtures/cpp"]
            .iter()
            .flat_map(|d| {
                std::fs::read_dir(repo().join(d))
                    .unwrap()
                    .map(|e| e.unwrap().path())
            })
            .filter(|p| p.extension().is_some_and(|e| e == "c" || e == "cpp"))
            .collect();
        sources.sort();
        let mut out = Vec::new();
        for src in &sources {
            let stem = src.file_stem().unwrap().to_string_lossy();
            for (tag, flags) in [("O0", &["-O0", "-g"][..]), ("O2", &["-O2"][..])] {
                let bc = dir.join(format!("{stem}.{tag}.bc"));
                compile(src, &bc, flags);
                out.push(bc);
            }
        }
        out
    })
}

/// The hand-written .ll fixtures.
pub fn ll_fixtures() -> Vec<PathBuf> {
    let mut v: Vec<PathBuf> = std::fs::read_dir(repo().join("fixtures/ll"))
        .unwrap()
        .map(|e| e.unwrap().path())
        .collect();
    v.retain(|p| p.extension().is_some_and(|e| e == "ll"));
    v.sort();
    v
}

pub fn all_fixtures() -> Vec<PathBuf> {
    let mut v = compiled_fixtures().to_vec();
    v.extend(ll_fixtures());
    v
}

/// `llfacts extract INPUTS -o OUT EXTRA...`, to run.
pub fn extract_cmd(inputs: &[PathBuf], out: &Path, extra: &[&str]) -> Command {
    let mut cmd = llfacts();
    cmd.arg("extract")
        .args(inputs)
        .arg("-o")
        .arg(out)
        .args(extra);
    cmd
}

pub fn extract(inputs: &[PathBuf], out: &Path, extra: &[&str]) -> Output {
    extract_cmd(inputs, out, extra).output().unwrap()
}

pub fn extract_ok(inputs: &[PathBuf], out: &Path, extra: &[&str]) {
    let o = extract(inputs, out, extra);
    assert!(
        o.status.success(),
        "llfacts extract failed: {}",
        String::from_utf8_lossy(&o.stderr)
    );
}

/// A fact directory, read back as rows of fields (still escaped, as Soufflé would see them).
pub struct Facts {
    dir: PathBuf,
    cache: std::cell::RefCell<HashMap<String, std::rc::Rc<Vec<Vec<String>>>>>,
}

impl Facts {
    pub fn open(dir: &Path) -> Facts {
        Facts {
            dir: dir.to_path_buf(),
            cache: Default::default(),
        }
    }

    pub fn rows(&self, rel: &str) -> std::rc::Rc<Vec<Vec<String>>> {
        if let Some(r) = self.cache.borrow().get(rel) {
            return r.clone();
        }
        let path = self.dir.join(format!("{rel}.facts"));
        let text =
            std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
        let rows: Vec<Vec<String>> = text
            .lines()
            .map(|l| l.split('\t').map(str::to_string).collect())
            .collect();
        let rows = std::rc::Rc::new(rows);
        self.cache
            .borrow_mut()
            .insert(rel.to_string(), rows.clone());
        rows
    }

    pub fn has(&self, rel: &str, row: &[&str]) -> bool {
        self.rows(rel)
            .iter()
            .any(|r| r.iter().map(String::as_str).eq(row.iter().copied()))
    }

    #[track_caller]
    pub fn assert_has(&self, rel: &str, row: &[&str]) {
        if !self.has(rel, row) {
            let rows = self.rows(rel);
            let near: Vec<&Vec<String>> = rows
                .iter()
                .filter(|r| r.first().map(String::as_str) == row.first().copied())
                .take(8)
                .collect();
            panic!("{rel} lacks {row:?}; rows with the same first field: {near:?}");
        }
    }

    /// Values of column `col` in rows whose first column is `key`.
    pub fn lookup(&self, rel: &str, key: &str, col: usize) -> Vec<String> {
        self.rows(rel)
            .iter()
            .filter(|r| r[0] == key)
            .map(|r| r[col].clone())
            .collect()
    }

    pub fn one(&self, rel: &str, key: &str, col: usize) -> String {
        let v = self.lookup(rel, key, col);
        assert_eq!(v.len(), 1, "{rel} for {key}: {v:?}");
        v[0].clone()
    }
}

/// Asserts that `dir` is a complete fact set: one file per declared relation and nothing else,
/// each row with the declared columns, numbers that fit 32 bits, symbols that unescape.
pub fn assert_schema_valid(dir: &Path) {
    use llfacts::facts::registry::{Kind, RELATIONS};
    use std::collections::BTreeSet;
    let files: BTreeSet<String> = std::fs::read_dir(dir)
        .unwrap()
        .map(|e| e.unwrap().file_name().into_string().unwrap())
        .collect();
    let declared: BTreeSet<String> = RELATIONS
        .iter()
        .map(|r| format!("{}.facts", r.name))
        .collect();
    assert_eq!(
        files, declared,
        "one file per declared relation, nothing else"
    );
    for rel in RELATIONS {
        let text = std::fs::read(dir.join(format!("{}.facts", rel.name))).unwrap();
        let text =
            String::from_utf8(text).unwrap_or_else(|_| panic!("{}.facts is not UTF-8", rel.name));
        for (n, line) in text.lines().enumerate() {
            let fields: Vec<&str> = line.split('\t').collect();
            assert_eq!(
                fields.len(),
                rel.columns.len(),
                "{}.facts line {}: {line:?}",
                rel.name,
                n + 1
            );
            for (field, col) in fields.iter().zip(rel.columns) {
                match col.kind {
                    Kind::Number => {
                        field.parse::<i32>().unwrap_or_else(|_| {
                            panic!(
                                "{}.facts line {}: {field:?} is not a 32-bit number",
                                rel.name,
                                n + 1
                            )
                        });
                    }
                    Kind::Symbol => {
                        assert!(!field.contains('\r'), "raw CR in {}.facts", rel.name);
                        llfacts::facts::unescape(field).unwrap_or_else(|| {
                            panic!("{}.facts line {}: bad escape in {field:?}", rel.name, n + 1)
                        });
                    }
                }
            }
        }
    }
}

/// Exit code `code`, no panic; for code 1, exactly one `llfacts: ` line on stderr.
#[track_caller]
pub fn assert_one_line_error(o: &Output, code: i32, must_contain: &[&str]) {
    let stderr = String::from_utf8_lossy(&o.stderr);
    assert_eq!(o.status.code(), Some(code), "exit code; stderr: {stderr}");
    assert!(
        !stderr.contains("panicked") && !stderr.contains("backtrace"),
        "panic: {stderr}"
    );
    if code == 1 {
        assert_eq!(stderr.lines().count(), 1, "one line expected: {stderr}");
        assert!(stderr.starts_with("llfacts: "), "{stderr}");
    }
    for s in must_contain {
        assert!(stderr.contains(s), "stderr lacks {s:?}: {stderr}");
    }
}

/// Extracts `inputs` once per job count into `PREFIX<jobs>` and asserts every relation
/// file is byte-identical across them; returns the directories.
pub fn same_bytes_for_jobs(inputs: &[PathBuf], prefix: &Path, jobs: &[&str]) -> Vec<PathBuf> {
    let dirs: Vec<PathBuf> = jobs
        .iter()
        .map(|j| {
            let dir = PathBuf::from(format!("{}{j}", prefix.display()));
            extract_ok(inputs, &dir, &["-q", "--jobs", j]);
            dir
        })
        .collect();
    for rel in llfacts::facts::registry::RELATIONS {
        let file = format!("{}.facts", rel.name);
        let first = std::fs::read(dirs[0].join(&file)).unwrap();
        for d in &dirs[1..] {
            assert!(
                first == std::fs::read(d.join(&file)).unwrap(),
                "{file} differs in {}",
                d.display()
            );
        }
    }
    dirs
}
