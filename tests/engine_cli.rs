//! `llfacts run` through the real binary: Soufflé flags, IO parameters,
//! output format, thread-count independence, and error reporting.

use std::process::{Command, Output};

mod common;

use common::{read_file as read, run_builtin_in as llfacts, stderr_text as stderr, write_file as write};

/// Assert a failed run: exit code 1, one-line message containing `parts`, no panic.
fn assert_fails(o: &Output, parts: &[&str]) {
    let err = stderr(o);
    assert_eq!(o.status.code(), Some(1), "stderr: {err}");
    assert!(
        !err.contains("panicked") && !err.contains("backtrace"),
        "{err}"
    );
    assert_eq!(err.trim_end().lines().count(), 1, "not one line: {err}");
    for p in parts {
        assert!(err.contains(p), "missing {p:?} in {err}");
    }
}

const PROGRAM: &str = r#"
.decl edge(x: symbol, y: symbol)
.input edge
.decl path(x: symbol, y: symbol)
.output path
.decl deg(x: symbol, n: number)
.output deg
path(x, y) :- edge(x, y).
path(x, z) :- path(x, y), edge(y, z).
deg(x, n) :- edge(x, _), n = count : { edge(x, _) }.
"#;

#[test]
fn run_reads_facts_and_writes_sorted_tsv() {
    let t = tempfile::tempdir().unwrap();
    let d = t.path();
    write(d, "p.dl", PROGRAM);
    write(d, "facts/edge.facts", "b\tc\na\tb\nb\td\n");
    let o = llfacts(
        &[
            "run", "p.dl", "-F", "facts", "-D", "out", "--engine", "builtin",
        ],
        d,
    );
    assert!(o.status.success(), "{}", stderr(&o));
    // a->b, b->c, b->d: paths a-b a-c a-d b-c b-d, sorted by string.
    assert_eq!(read(d, "out/path.csv"), "a\tb\na\tc\na\td\nb\tc\nb\td\n");
    assert_eq!(read(d, "out/deg.csv"), "a\t1\nb\t2\n");
}

/// A write that fails (here: past `ulimit -f`) leaves the output directory as it was: the
/// files of an earlier run whole, other files kept, no temporary; a directory the run was to
/// create is not left behind.
#[test]
fn failed_write_leaves_the_output_directory_as_it_was() {
    let t = tempfile::tempdir().unwrap();
    let d = t.path();
    write(d, "p.dl", PROGRAM);
    let edges: String = (0..400).map(|i| format!("n{i}\tn{}\n", i + 1)).collect();
    write(d, "facts/edge.facts", &edges);
    let run = |out: &str| {
        let mut cmd = common::llfacts();
        cmd.current_dir(d).args([
            "run", "p.dl", "-F", "facts", "-D", out, "--engine", "builtin",
        ]);
        cmd
    };
    let o = run("out").output().unwrap();
    assert!(o.status.success(), "{}", stderr(&o));
    let path = read(d, "out/path.csv");
    assert!(
        path.len() > 64 << 10,
        "the output must exceed the limit below"
    );
    write(d, "out/mine.txt", "kept");
    for out in ["out", "new"] {
        let o = common::with_file_size_limit(&mut run(out), 64 << 10)
            .output()
            .unwrap();
        assert_fails(&o, &[&format!("{out}/path.csv"), "File too large"]);
    }
    assert_eq!(read(d, "out/path.csv"), path);
    assert_eq!(read(d, "out/mine.txt"), "kept");
    let mut names: Vec<String> = std::fs::read_dir(d.join("out"))
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into())
        .collect();
    names.sort();
    assert_eq!(names, ["deg.csv", "mine.txt", "path.csv"]);
    assert!(!d.join("new").exists());
}

/// Past the address-space limit (`ulimit -v`), running out of memory is one line naming the
/// program, exit code 1, and no output: not Rust's abort with a backtrace.
#[test]
fn running_out_of_memory_is_one_line_and_leaves_no_output() {
    let t = tempfile::tempdir().unwrap();
    let d = t.path();
    // 20,001 squared pairs: several GiB of tuples.
    let program = ".decl n(x: number)\nn(0).\nn(x + 1) :- n(x), x < 20000.\n\
                   .decl pair(x: number, y: number)\n.output pair\npair(x, y) :- n(x), n(y).\n";
    write(d, "big.dl", program);
    write(d, "kept/mine.txt", "kept");
    for out in ["new", "kept"] {
        let mut cmd = common::llfacts();
        cmd.current_dir(d)
            .args(["run", "big.dl", "-D", out, "--engine", "builtin"])
            .env("RUST_BACKTRACE", "1");
        let o = common::with_limit(&mut cmd, libc::RLIMIT_AS, 400 << 20)
            .output()
            .unwrap();
        assert_fails(&o, &["big.dl: out of memory (an allocation of "]);
    }
    assert!(!d.join("new").exists());
    let kept: Vec<_> = std::fs::read_dir(d.join("kept")).unwrap().collect();
    assert_eq!(kept.len(), 1, "{kept:?}");
}

#[test]
fn numbers_sort_numerically_in_output() {
    let t = tempfile::tempdir().unwrap();
    let d = t.path();
    write(
        d,
        "p.dl",
        ".decl n(x: number)\n.output n\nn(10). n(-5). n(9). n(100).\n",
    );
    let o = llfacts(&["run", "p.dl", "-D", "."], d);
    assert!(o.status.success(), "{}", stderr(&o));
    assert_eq!(read(d, "n.csv"), "-5\n9\n10\n100\n");
}

#[test]
fn large_outputs_sort_symbols_by_text_not_by_first_appearance() {
    // Enough rows that symbols are compared through their ranks; they are interned in a
    // scrambled order, with prefixes of one another, and numbers break ties numerically.
    let t = tempfile::tempdir().unwrap();
    let d = t.path();
    write(
        d,
        "p.dl",
        ".decl e(x: symbol, n: number)\n.input e\n.decl o(x: symbol, n: number)\n.output o\no(x, n) :- e(x, n).\n",
    );
    let mut rows: Vec<(String, i32)> = (0..6000u32)
        .map(|i| {
            let k = i.wrapping_mul(2_654_435_761) % 1000;
            (
                format!("s{}", "x".repeat((k % 3) as usize) + &k.to_string()),
                i as i32 - 3000,
            )
        })
        .collect();
    let facts: String = rows.iter().map(|(s, n)| format!("{s}\t{n}\n")).collect();
    write(d, "facts/e.facts", &facts);
    let o = llfacts(&["run", "p.dl", "-F", "facts", "-D", "out"], d);
    assert!(o.status.success(), "{}", stderr(&o));
    rows.sort();
    rows.dedup();
    let expected: String = rows.iter().map(|(s, n)| format!("{s}\t{n}\n")).collect();
    assert!(rows.len() > 4096, "{}", rows.len());
    assert_eq!(read(d, "out/o.csv"), expected);
}

#[test]
fn output_dir_dash_prints_to_stdout() {
    let t = tempfile::tempdir().unwrap();
    let d = t.path();
    write(
        d,
        "p.dl",
        ".decl r(x: number, s: symbol)\n.output r\nr(2, \"b\"). r(1, \"a\").\n",
    );
    let o = llfacts(&["run", "p.dl", "-D", "-"], d);
    assert!(o.status.success(), "{}", stderr(&o));
    assert_eq!(
        String::from_utf8_lossy(&o.stdout),
        "---------------\nr\nx\ts\n===============\n1\ta\n2\tb\n===============\n"
    );
}

#[test]
fn output_dir_dash_prints_attribute_names_joined_by_the_delimiter() {
    // As Soufflé 2.5: `-D -` sets `headers=true` on every output; a nullary
    // relation has an empty header line. `IO=stdout` alone prints no header.
    let t = tempfile::tempdir().unwrap();
    let d = t.path();
    write(
        d,
        "p.dl",
        ".decl r(a: number, b: number)\n.output r(delimiter=\",\")\n.decl z()\n.output z\nr(1, 2). z().\n",
    );
    let o = llfacts(&["run", "p.dl", "-D", "-"], d);
    assert!(o.status.success(), "{}", stderr(&o));
    assert_eq!(
        String::from_utf8_lossy(&o.stdout),
        "---------------\nz\n\n===============\n()\n===============\n\
         ---------------\nr\na,b\n===============\n1,2\n===============\n"
    );
}

#[test]
fn io_parameters_filename_and_delimiter() {
    let t = tempfile::tempdir().unwrap();
    let d = t.path();
    write(
        d,
        "p.dl",
        r#"
        .decl e(x: number, y: number)
        .input e(IO=file, filename="sub/edges.csv", delimiter=",")
        .decl r(x: number, y: number)
        .output r(IO=file, filename="result.txt", delimiter=";")
        r(y, x) :- e(x, y).
        "#,
    );
    write(d, "in/sub/edges.csv", "1,2\n3,4\r\n");
    let o = llfacts(&["run", "p.dl", "-F", "in", "-D", "out"], d);
    assert!(o.status.success(), "{}", stderr(&o));
    assert_eq!(read(d, "out/result.txt"), "2;1\n4;3\n");
}

#[test]
fn absolute_filename_is_kept() {
    let t = tempfile::tempdir().unwrap();
    let d = t.path();
    let abs = d.join("abs.facts");
    write(d, "abs.facts", "x\n");
    write(
        d,
        "p.dl",
        &format!(
            ".decl a(s: symbol)\n.input a(filename=\"{}\")\n.output a\n",
            abs.display()
        ),
    );
    let o = llfacts(&["run", "p.dl", "-F", "elsewhere", "-D", "out"], d);
    assert!(o.status.success(), "{}", stderr(&o));
    assert_eq!(read(d, "out/a.csv"), "x\n");
}

#[test]
fn output_to_stdout_via_io_param_and_printsize() {
    let t = tempfile::tempdir().unwrap();
    let d = t.path();
    write(
        d,
        "p.dl",
        ".decl a(x: number)\n.output a(IO=stdout)\n.printsize a\na(1). a(2).\n",
    );
    let o = llfacts(&["run", "p.dl", "-D", "out"], d);
    assert!(o.status.success(), "{}", stderr(&o));
    assert_eq!(
        String::from_utf8_lossy(&o.stdout),
        "---------------\na\n===============\n1\n2\n===============\na\t2\n"
    );
}

#[test]
fn jobs_one_and_two_give_identical_outputs() {
    let t = tempfile::tempdir().unwrap();
    let d = t.path();
    write(d, "p.dl", PROGRAM);
    // a 3-ary tree of depth 6 plus some cross edges: thousands of paths.
    let mut facts = String::new();
    for i in 1..1093 {
        facts.push_str(&format!("n{}\tn{}\n", (i - 1) / 3, i));
        if i % 7 == 0 {
            facts.push_str(&format!("n{}\tn{}\n", i, i / 7));
        }
    }
    write(d, "facts/edge.facts", &facts);
    let a = llfacts(&["run", "p.dl", "-F", "facts", "-D", "o1", "-j", "1"], d);
    let b = llfacts(&["run", "p.dl", "-F", "facts", "-D", "o2", "-j", "2"], d);
    assert!(
        a.status.success() && b.status.success(),
        "{} {}",
        stderr(&a),
        stderr(&b)
    );
    assert_eq!(read(d, "o1/path.csv"), read(d, "o2/path.csv"));
    assert_eq!(read(d, "o1/deg.csv"), read(d, "o2/deg.csv"));
    assert!(read(d, "o1/path.csv").lines().count() > 5000);
}

#[test]
fn stats_flag_reports_to_stderr() {
    let t = tempfile::tempdir().unwrap();
    let d = t.path();
    write(d, "p.dl", ".decl a(x: number)\n.output a\na(1).\n");
    let o = llfacts(
        &["run", "p.dl", "-D", "out", "--stats", "--engine", "builtin"],
        d,
    );
    assert!(o.status.success());
    let e = stderr(&o);
    assert!(e.contains("derived=1") && e.contains("peak_rss="), "{e}");
}

#[test]
fn stats_flag_lists_what_each_rule_found() {
    let t = tempfile::tempdir().unwrap();
    let d = t.path();
    // paths 1-3, 2-4 (first iteration) and 1-4 (second): three new rows for each rule
    let src = ".decl e(x: number, y: number)\ne(1, 2). e(2, 3). e(3, 4).\n\
               .decl p(x: number, y: number)\n.output p\n\
               p(x, y) :- e(x, y).\n\
               p(x, z) :- p(x, y), e(y, z).\n";
    write(d, "p.dl", src);
    let o = llfacts(
        &["run", "p.dl", "-D", "out", "--stats", "--engine", "builtin"],
        d,
    );
    assert!(o.status.success(), "{}", stderr(&o));
    let e = stderr(&o);
    for rule in ["p.dl:5:1", "p.dl:6:1"] {
        let line = e
            .lines()
            .find(|l| l.starts_with(&format!("stats: rule {rule} ")))
            .unwrap_or_else(|| panic!("no line for {rule}: {e}"));
        assert!(
            line.contains(" time=") && line.ends_with(" new=3"),
            "{line}"
        );
    }
}

#[test]
fn forcing_souffle_without_souffle_on_path_fails() {
    let t = tempfile::tempdir().unwrap();
    let d = t.path();
    write(d, "p.dl", ".decl a(x: number)\n");
    let o = Command::new(env!("CARGO_BIN_EXE_llfacts"))
        .args(["run", "p.dl", "--engine", "souffle"])
        .current_dir(d)
        .env("PATH", d)
        .output()
        .unwrap();
    assert_fails(&o, &["souffle", "not found on PATH"]);
    // auto falls back to the builtin engine
    let o = Command::new(env!("CARGO_BIN_EXE_llfacts"))
        .args(["run", "p.dl", "--engine", "auto", "-D", "out"])
        .current_dir(d)
        .env("PATH", d)
        .output()
        .unwrap();
    assert!(o.status.success(), "{}", stderr(&o));
}

#[test]
fn auto_uses_souffle_when_it_is_on_path() {
    use std::os::unix::fs::PermissionsExt;
    let t = tempfile::tempdir().unwrap();
    let d = t.path();
    // A stand-in `souffle` that records its arguments and, like Soufflé 2.5, fails when
    // the -D directory does not exist.
    write(
        d,
        "bin/souffle",
        "#!/bin/sh\necho \"$@\" > \"$(dirname \"$0\")/args\"\n\
         while [ $# -gt 0 ]; do\n\
         if [ \"$1\" = -D ] && [ \"$2\" != - ] && [ ! -d \"$2\" ]; then echo \"output directory $2 does not exists\" >&2; exit 1; fi\n\
         shift\ndone\n",
    );
    std::fs::set_permissions(
        d.join("bin/souffle"),
        std::fs::Permissions::from_mode(0o755),
    )
    .unwrap();
    write(d, "p.dl", ".decl a(x: number)\n");
    let path = format!(
        "{}:{}",
        d.join("bin").display(),
        std::env::var("PATH").unwrap_or_default()
    );
    let o = Command::new(env!("CARGO_BIN_EXE_llfacts"))
        .args(["run", "p.dl", "-F", "facts", "-D", "out/nested", "-j", "3"])
        .current_dir(d)
        .env("PATH", &path)
        .output()
        .unwrap();
    assert!(o.status.success(), "{}", stderr(&o));
    // Soufflé writes into a temporary inside the output directory, moved in once complete.
    let args = read(d, "bin/args");
    let staged = args
        .strip_prefix("-F facts -D out/nested/.llfacts-tmp-")
        .and_then(|rest| rest.strip_suffix(" -j 3 p.dl\n"));
    assert!(
        staged.is_some_and(|pid| pid.parse::<u32>().is_ok()),
        "{args}"
    );
    assert!(d.join("out/nested").is_dir());
    assert_eq!(std::fs::read_dir(d.join("out/nested")).unwrap().count(), 0);
    // --engine builtin ignores it
    std::fs::remove_file(d.join("bin/args")).unwrap();
    let o = Command::new(env!("CARGO_BIN_EXE_llfacts"))
        .args(["run", "p.dl", "-D", "out", "--engine", "builtin"])
        .current_dir(d)
        .env("PATH", &path)
        .output()
        .unwrap();
    assert!(o.status.success(), "{}", stderr(&o));
    assert!(!d.join("bin/args").exists());
}

// ------------------------------------------------------------ errors

#[test]
fn program_error_has_file_line_col_and_exit_1() {
    let t = tempfile::tempdir().unwrap();
    let d = t.path();
    write(d, "p.dl", ".decl a(x: number)\n\na(x) :- nosuch(x).\n");
    let o = llfacts(&["run", "p.dl", "-D", "out"], d);
    assert_fails(&o, &["p.dl:3:9:", "Undefined relation nosuch"]);
}

#[test]
fn error_in_included_file_names_that_file() {
    let t = tempfile::tempdir().unwrap();
    let d = t.path();
    write(d, "inc/rules.dl", ".decl b(x: number)\nb(x) :- b(x, 1).\n");
    write(d, "p.dl", "#include \"inc/rules.dl\"\n");
    let o = llfacts(&["run", "p.dl", "-D", "out"], d);
    assert_fails(
        &o,
        &["inc/rules.dl:2:9:", "Mismatching arity of relation b"],
    );
}

#[test]
fn unsafe_variable_and_unstratifiable_program() {
    let t = tempfile::tempdir().unwrap();
    let d = t.path();
    write(
        d,
        "u.dl",
        ".decl a(x: number)\n.decl b(x: number)\nb(y) :- a(x).\n",
    );
    assert_fails(
        &llfacts(&["run", "u.dl", "-D", "out"], d),
        &["u.dl:3:3:", "Ungrounded variable y"],
    );
    write(
        d,
        "s.dl",
        ".decl a(x: number)\n.decl b(x: number)\na(1).\nb(x) :- a(x), !b(x).\n",
    );
    assert_fails(
        &llfacts(&["run", "s.dl", "-D", "out"], d),
        &["s.dl:4:16:", "Unable to stratify relation(s) {b}"],
    );
}

#[test]
fn each_rejected_construct_exits_1_with_position() {
    let t = tempfile::tempdir().unwrap();
    let d = t.path();
    let cases: &[(&str, &[&str])] = &[
        (
            ".decl a(x: number)\n.functor f(x: number): number\n",
            &["p.dl:2:1:", "unsupported directive `.functor`"],
        ),
        (
            ".decl a(x: number)\na(x) :- b(x).\n",
            &["p.dl:2:9:", "Undefined relation b"],
        ),
        (
            ".decl a(x: number)\na(x) :- a(x, x).\n",
            &["p.dl:2:9:", "Mismatching arity of relation a"],
        ),
        (
            ".decl a(x: number)\n.decl s(x: symbol)\na(x) :- s(x).\n",
            &["p.dl:3:3:", "Type mismatch"],
        ),
        (
            ".decl a(x: number)\na(x + \"1\") :- a(x).\n",
            &["p.dl:2:5:", "Type mismatch"],
        ),
        (
            ".decl a(x: number)\n.decl n(x: number)\na(x) :- n(x), !n(y).\n",
            &["p.dl:3:18:", "Ungrounded variable y"],
        ),
        (
            ".decl a(x: number)\n.decl b(x: number)\na(1).\nb(x) :- a(x), !b(x).\n",
            &["p.dl:4:16:", "Unable to stratify"],
        ),
        (
            ".decl a(x: number)\na(1) :- a(x) a(x).\n",
            &["p.dl:2:14:", "syntax error"],
        ),
        (
            ".decl a(x: number)\na(\"unterminated).\n",
            &["p.dl:2:3:", "unterminated string"],
        ),
    ];
    for (src, parts) in cases {
        write(d, "p.dl", src);
        let o = llfacts(&["run", "p.dl", "-D", "out"], d);
        assert_fails(&o, parts);
    }
}

const INPUT_PROGRAM: &str = ".decl e(x: symbol, n: number)\n.input e\n.output e\n";

#[test]
fn fact_file_with_wrong_arity() {
    let t = tempfile::tempdir().unwrap();
    let d = t.path();
    write(d, "p.dl", INPUT_PROGRAM);
    write(d, "f/e.facts", "a\t1\nb\t2\textra\n");
    let o = llfacts(&["run", "p.dl", "-F", "f", "-D", "out"], d);
    assert_fails(
        &o,
        &[
            "f/e.facts:2:",
            "wrong number of columns",
            "expected 2, found 3",
        ],
    );
}

#[test]
fn fact_file_with_non_number() {
    let t = tempfile::tempdir().unwrap();
    let d = t.path();
    write(d, "p.dl", INPUT_PROGRAM);
    write(d, "f/e.facts", "a\t1\nb\t2\nc\tthree\n");
    let o = llfacts(&["run", "p.dl", "-F", "f", "-D", "out"], d);
    assert_fails(
        &o,
        &[
            "f/e.facts:3:",
            "cannot convert \"three\" to number in column 2",
        ],
    );
}

#[test]
fn fact_file_missing() {
    let t = tempfile::tempdir().unwrap();
    let d = t.path();
    write(d, "p.dl", INPUT_PROGRAM);
    let o = llfacts(&["run", "p.dl", "-F", "nofacts", "-D", "out"], d);
    assert_fails(&o, &["Cannot open fact file", "nofacts/e.facts"]);
}

#[test]
fn inputs_no_output_needs_are_not_read() {
    // As in Soufflé: `unused` feeds no output, so its missing file is not an error, and
    // `out` (from `e`) is still computed.
    let t = tempfile::tempdir().unwrap();
    let d = t.path();
    write(
        d,
        "p.dl",
        ".decl e(x: number)\n.input e\n.decl unused(x: number)\n.input unused\n\
         .decl out(x: number)\n.output out\nout(x) :- e(x).\n",
    );
    write(d, "f/e.facts", "1\n2\n");
    let o = llfacts(&["run", "p.dl", "-F", "f", "-D", "-"], d);
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    assert!(String::from_utf8_lossy(&o.stdout).contains("out\nx\n===============\n1\n2\n"));
}

#[test]
fn missing_program_file() {
    let t = tempfile::tempdir().unwrap();
    let o = llfacts(&["run", "absent.dl"], t.path());
    assert_fails(&o, &["absent.dl"]);
}

#[test]
fn io_headers_rfc4180_compress_and_gzipped_facts() {
    use std::io::{Read, Write};
    let t = tempfile::tempdir().unwrap();
    let d = t.path();
    write(
        d,
        "p.dl",
        r#"
.decl h(name: symbol, n: number)
.input h(headers=true)
.output h(headers=true)
.decl q(name: symbol, n: number)
.input q(rfc4180=true, headers=true)
.output q(rfc4180=true)
.decl z(name: symbol, n: number)
.input z(filename="z.facts.gz")
.output z(compress=true)
"#,
    );
    write(d, "facts/h.facts", "name\tn\nb\t2\na\t1\n");
    // a quoted delimiter, a doubled quote, and a field spanning two lines
    write(
        d,
        "facts/q.facts",
        "name,n\n\"a,b\",1\n\"say \"\"hi\"\"\",2\n\"two\nlines\",3\nplain,4\n",
    );
    let mut gz = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::default());
    gz.write_all(b"y\t2\nx\t1\n").unwrap();
    std::fs::write(d.join("facts/z.facts.gz"), gz.finish().unwrap()).unwrap();
    let o = llfacts(&["run", "p.dl", "-F", "facts", "-D", "out"], d);
    assert!(o.status.success(), "{}", stderr(&o));
    assert_eq!(read(d, "out/h.csv"), "name\tn\na\t1\nb\t2\n");
    // Soufflé writes a `"` inside a quoted symbol as `\""`
    assert_eq!(
        read(d, "out/q.csv"),
        "\"a,b\",1\n\"plain\",4\n\"say \\\"\"hi\\\"\"\",2\n\"two\nlines\",3\n"
    );
    let mut text = String::new();
    flate2::read::GzDecoder::new(std::fs::File::open(d.join("out/z.csv.gz")).unwrap())
        .read_to_string(&mut text)
        .unwrap();
    assert_eq!(text, "x\t1\ny\t2\n");
    // an unbalanced quote is a one-line error with the file and line
    write(d, "facts/q.facts", "name,n\n\"a,1\n");
    let o = llfacts(&["run", "p.dl", "-F", "facts", "-D", "out"], d);
    assert_fails(&o, &["Error loading q data", "q.facts"]);
}

/// Soufflé's warnings, in its words and format, sorted by position: a
/// variable that occurs only once (over all heads and alternatives of a
/// rule), a relation with no rules or facts (inputs excepted), a
/// `btree_delete` relation without a subsumptive rule, `_x` used twice, and
/// deprecated syntax. `_x` used once, `_`, and relations declared but never
/// used in a body give none. As in Soufflé, the alternatives of a disjunction
/// are counted apart: `a` occurs once in each, so it is warned about.
const WARNED: &str = r#".decl edge(x: number, y: number)
.input edge
.decl empty(x: number)
.decl reach(x: number) output
.decl two(x: number)
.decl pair(x: number, y: number)
.decl dead(x: number) btree_delete
two(1).
dead(1).
reach(x) :- edge(x, y).
reach(x) :- edge(x, _z), edge(_, _w), !empty(x).
reach(x), two(x) :- edge(x, y), edge(y, _).
reach(x) :- edge(x, a) ; edge(a, x), edge(x, b).
pair(x, y) :- edge(x, _k), edge(_k, y), two(_k).
"#;

const WARNINGS: &str = "\
Warning: No rules/facts defined for relation empty in file p.dl at line 3
.decl empty(x: number)
------^----------------
Warning: Deprecated output qualifier was used in file p.dl at line 4
.decl reach(x: number) output
-----------------------^------
Warning: No subsumptive rule for relation dead in file p.dl at line 7
.decl dead(x: number) btree_delete
------^----------------------------
Warning: Variable y only occurs once in file p.dl at line 10
reach(x) :- edge(x, y).
--------------------^---
Warning: Variable a only occurs once in file p.dl at line 13
reach(x) :- edge(x, a) ; edge(a, x), edge(x, b).
--------------------^----------------------------
Warning: Variable b only occurs once in file p.dl at line 13
reach(x) :- edge(x, a) ; edge(a, x), edge(x, b).
---------------------------------------------^---
Warning: Variable _k marked as singleton but occurs more than once in file p.dl at line 14
pair(x, y) :- edge(x, _k), edge(_k, y), two(_k).
--------------------------------------------^----
";

#[test]
fn warnings_are_soufflés_and_no_warn_silences_them() {
    let t = tempfile::tempdir().unwrap();
    let d = t.path();
    write(d, "p.dl", WARNED);
    write(d, "facts/edge.facts", "1\t2\n2\t3\n");
    let o = llfacts(&["run", "p.dl", "-F", "facts", "-D", "-"], d);
    assert!(o.status.success(), "{}", stderr(&o));
    assert_eq!(stderr(&o), WARNINGS);
    let quiet = llfacts(&["run", "p.dl", "-F", "facts", "-D", "-", "--no-warn"], d);
    assert!(quiet.status.success(), "{}", stderr(&quiet));
    assert_eq!(stderr(&quiet), "");
    assert_eq!(quiet.stdout, o.stdout);
    assert!(String::from_utf8_lossy(&o.stdout).contains("reach"));
    // Soufflé's short form
    let w = llfacts(&["run", "-w", "p.dl", "-F", "facts", "-D", "-"], d);
    assert_eq!(stderr(&w), "");
}

/// A warning in an included file quotes that file's line; the pragma
/// warnings, deprecation warnings (unless `.pragma "legacy"`) go the same way.
#[test]
fn warnings_quote_included_files_and_pragmas() {
    let t = tempfile::tempdir().unwrap();
    let d = t.path();
    write(
        d,
        "lib/defs.dl",
        ".decl b(x: number)\n.decl c(x: number)\nc(x) :- b(x), b(y).\n",
    );
    write(
        d,
        "p.dl",
        "#include \"lib/defs.dl\"\n.pragma \"jobs\" \"1\"\n.pragma \"jobs\" \"2\"\n.output c\n",
    );
    let o = llfacts(&["run", "p.dl", "-D", "-"], d);
    assert!(o.status.success(), "{}", stderr(&o));
    assert_eq!(
        stderr(&o),
        "\
Warning: No rules/facts defined for relation b in file lib/defs.dl at line 1
.decl b(x: number)
------^------------
Warning: Variable y only occurs once in file lib/defs.dl at line 3
c(x) :- b(x), b(y).
----------------^---
Warning: overriding previous pragma for key `jobs` in file p.dl at line 3
.pragma \"jobs\" \"2\"
^------------------
previous pragma for key `jobs` in file p.dl at line 2
.pragma \"jobs\" \"1\"
^------------------
"
    );
}

/// `-M` as Soufflé's: space-separated definitions made before the program's text (a name
/// alone is 1), in one flag or several; the program's `#ifndef` defaults give way to them.
#[test]
fn macros_are_defined_before_the_program() {
    let t = tempfile::tempdir().unwrap();
    let d = t.path();
    write(
        d,
        "p.dl",
        "#ifndef DEPTH\n#define DEPTH 0\n#endif\n#ifndef ON\n#define ON 0\n#endif\n\
         .decl r(depth: number, on: number)\n.output r\nr(DEPTH, ON).\n",
    );
    let out = |args: &[&str]| {
        let mut all = vec!["run", "p.dl", "-D", "-"];
        all.extend_from_slice(args);
        let o = llfacts(&all, d);
        assert!(o.status.success(), "{}", stderr(&o));
        let text = String::from_utf8_lossy(&o.stdout).to_string();
        text.lines().nth(4).unwrap().to_string()
    };
    assert_eq!(out(&[]), "0\t0");
    assert_eq!(out(&["-M", "DEPTH=2 ON"]), "2\t1");
    assert_eq!(out(&["-M", "DEPTH=3", "--macro", "ON=1"]), "3\t1");
    let o = llfacts(&["run", "p.dl", "-D", "-", "-M", "2=DEPTH"], d);
    assert_eq!(o.status.code(), Some(2), "{}", stderr(&o));
    assert_eq!(stderr(&o).trim_end().lines().count(), 1, "{}", stderr(&o));
}
