//! `schema/` is generated from the relation registry; these tests fail when they drift.

mod common;

use common::*;

#[test]
fn schema_files_match_registry() {
    let dir = repo().join("schema");
    let mut expected: Vec<String> = Vec::new();
    for (name, text) in llfacts::facts::schema::files() {
        let path = dir.join(&name);
        let on_disk = std::fs::read_to_string(&path).unwrap_or_default();
        assert!(
            on_disk == text,
            "{} is stale: run `just schema`",
            path.display()
        );
        expected.push(name);
    }
    let mut present: Vec<String> = std::fs::read_dir(&dir)
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into())
        .collect();
    present.sort();
    expected.sort();
    assert_eq!(
        present, expected,
        "schema/ holds exactly the generated files"
    );
}

#[test]
fn schema_command_prints_every_declaration() {
    let o = llfacts().arg("schema").output().unwrap();
    assert!(o.status.success());
    let text = String::from_utf8(o.stdout).unwrap();
    for rel in llfacts::facts::registry::RELATIONS {
        let cols: Vec<String> = rel
            .columns
            .iter()
            .map(|c| format!("{}: {}", c.name, c.kind.souffle_name()))
            .collect();
        assert!(
            text.contains(&format!(
                ".decl {}({})\n.input {}\n",
                rel.name,
                cols.join(", "),
                rel.name
            )),
            "{}",
            rel.name
        );
    }
    assert_eq!(
        text.matches(".decl ").count(),
        llfacts::facts::registry::RELATIONS.len()
    );
}

/// Words Soufflé's lexer reserves (its scanner rules), which cannot name a relation or column.
const SOUFFLE_KEYWORDS: &[&str] = &[
    "autoinc",
    "band",
    "bor",
    "bxor",
    "bnot",
    "bshl",
    "bshr",
    "bshru",
    "land",
    "lor",
    "lxor",
    "lnot",
    "match",
    "mean",
    "cat",
    "ord",
    "fold",
    "range",
    "strlen",
    "substr",
    "stateful",
    "contains",
    "output",
    "input",
    "overridable",
    "printsize",
    "eqrel",
    "inline",
    "no_inline",
    "magic",
    "no_magic",
    "brie",
    "btree_delete",
    "btree",
    "min",
    "max",
    "as",
    "nil",
    "count",
    "sum",
    "true",
    "false",
    "to_float",
    "to_number",
    "to_string",
    "to_unsigned",
    "symbol",
    "number",
    "unsigned",
    "float",
];

#[test]
fn relation_names_are_unique_and_valid_souffle_identifiers() {
    let mut seen = std::collections::HashSet::new();
    for rel in llfacts::facts::registry::RELATIONS {
        assert!(seen.insert(rel.name), "duplicate relation {}", rel.name);
        let ok = |s: &str| {
            s.chars().next().is_some_and(|c| c.is_ascii_alphabetic())
                && s.chars().all(|c| c.is_ascii_alphanumeric() || c == '_')
                && !SOUFFLE_KEYWORDS.contains(&s)
        };
        assert!(ok(rel.name), "{}", rel.name);
        for c in rel.columns {
            assert!(ok(c.name), "{}.{}", rel.name, c.name);
        }
    }
}

/// Rule files spell opcodes only where a table needs more than the opcode class (such as
/// `cast_kinds`); every spelling there must be one the registry defines.
#[test]
fn opcode_literals_in_rules_are_registered() {
    let known: Vec<&str> = llfacts::facts::registry::opcodes()
        .map(|(o, _)| o)
        .collect();
    assert_eq!(known.len(), 66, "LLVM 22 has 66 opcodes");
    let mut checked = 0;
    for entry in std::fs::read_dir(common::repo().join("rules")).unwrap() {
        let path = entry.unwrap().path();
        if path.extension().is_none_or(|e| e != "dl") {
            continue;
        }
        let text = std::fs::read_to_string(&path).unwrap();
        // Relations whose first column is an opcode.
        let tables: Vec<String> = text
            .lines()
            .filter_map(|l| l.strip_prefix(".decl "))
            .filter_map(|l| {
                let (name, cols) = l.split_once('(')?;
                cols.starts_with("opcode:").then(|| name.trim().to_string())
            })
            .collect();
        for line in text.lines() {
            for table in &tables {
                let Some(rest) = line.strip_prefix(&format!("{table}(\"")) else {
                    continue;
                };
                let opcode = rest.split('"').next().unwrap();
                assert!(
                    known.contains(&opcode),
                    "{}: `{line}` names `{opcode}`, which is not an LLVM 22 opcode",
                    path.display()
                );
                checked += 1;
            }
        }
    }
    assert!(
        checked > 10,
        "the opcode tables were not found ({checked} literals)"
    );
}
