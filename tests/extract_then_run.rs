//! Extracted facts load into the builtin engine through `schema/llfacts.dl`, every file of
//! every fixture, and queries over them give the answers the source implies.

mod common;

use common::*;

#[test]
fn schema_program_loads_every_fact_file_and_answers_queries() {
    let dir = scratch("extract-run");
    let code = "int g(int x) { return x * 3; }\n\
                int f(int x) { return g(x) + 1; }\n\
                int main(void) { return f(2) + g(4); }\n";
    let snippet = compile_snippet(&dir, "snippet", code, &["-O0"]);
    let mut inputs = all_fixtures();
    inputs.push(snippet);
    let facts = dir.join("facts");
    extract_ok(&inputs, &facts, &["-q"]);

    let program = dir.join("query.dl");
    let schema = repo().join("schema/llfacts.dl");
    std::fs::write(
        &program,
        format!(
            "#include \"{}\"\n\
             .decl direct_call(caller: symbol, callee: symbol)\n\
             direct_call(F, N) :- call_direct(I, G), instr_function(I, F), function_name(G, N), function(F, \"snippet\").\n\
             .output direct_call\n\
             .decl opcode_count(op: symbol, n: number)\n\
             opcode_count(Op, N) :- instr(I, Op), instr_function(I, F), function(F, \"snippet\"), \
                N = count : {{ instr(I2, Op), instr_function(I2, F2), function(F2, \"snippet\") }}.\n\
             .output opcode_count\n\
             .decl modules(n: number)\n\
             modules(N) :- N = count : {{ module(_, _, _) }}.\n\
             .output modules\n",
            schema.display()
        ),
    )
    .unwrap();
    let out = dir.join("out");
    let o = llfacts()
        .args(["run", "--engine", "builtin", "-F"])
        .arg(&facts)
        .arg("-D")
        .arg(&out)
        .arg(&program)
        .output()
        .unwrap();
    assert!(
        o.status.success(),
        "llfacts run: {}",
        String::from_utf8_lossy(&o.stderr)
    );

    let read = |rel: &str| std::fs::read_to_string(out.join(format!("{rel}.csv"))).unwrap();
    // main calls f and g; f calls g; g calls nothing.
    assert_eq!(
        read("direct_call"),
        "snippet:@f\tg\nsnippet:@main\tf\nsnippet:@main\tg\n"
    );
    // Three functions, three returns and three calls in the snippet at -O0.
    let counts = read("opcode_count");
    assert!(counts.lines().any(|l| l == "ret\t3"), "{counts}");
    assert!(counts.lines().any(|l| l == "call\t3"), "{counts}");
    assert_eq!(read("modules"), format!("{}\n", inputs.len()));
}
