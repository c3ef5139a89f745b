#!/usr/bin/env bash
# The project's tests: set-up (scripts/setup.sh), then every test phase. Each phase prints
# its own output; the last line counts the phases that passed and failed.
#
#   scripts/test.sh            all phases
#   scripts/test.sh PHASE...   only these (names below; bench runs only when named)
set -uo pipefail
top=$(cd "$(dirname "$0")/.." && pwd)
cd "$top"

bash scripts/setup.sh || { echo "setup failed"; echo "phases: 0 passed, 1 failed"; exit 1; }

jobs=$(nproc)
# Two OpenCL devices on PoCL's CPU driver, so multi-device behaviour is exercised for real.
export POCL_DEVICES="${POCL_DEVICES:-pthread pthread}"

# The five builds and their test settings (sanitizer options, the tests TSan runs, the fuzz
# runs) are the presets of CMakePresets.json: `cmake --preset NAME`, `cmake --build --preset
# NAME`, `ctest --preset NAME`, with NAME default, release (built, not tested), asan, tsan
# or fuzz.
phase_preset() {
    local name=$1
    shift
    cmake --preset "$name" >/dev/null && cmake --build --preset "$name" -j "$jobs" &&
        ctest --preset "$name" "$@"
}
# The unit tests, then the whole tree built again as users build it (Release, -O3) with
# warnings as errors: GCC finds at -O3 what it does not at the default preset's -O2.
phase_unit() {
    ctest --preset default -j "$jobs" &&
        cmake --preset release >/dev/null && cmake --build --preset release -j "$jobs"
}
phase_asan() { phase_preset asan -j "$jobs"; }
phase_tsan() { phase_preset tsan; }
# The libFuzzer harnesses (fuzz/), built by clang with ASan and UBSan, each for a fixed number
# of executions from its seeds.
phase_fuzz() { phase_preset fuzz; }
phase_spec() {
    # The documents against the code (scripts/tests: README.md's configuration table, lists
    # and commands).
    .venv/bin/python spec/tools/check.py &&
        .venv/bin/python -m pytest -q spec/tools/tests scripts/tests || return 1
    # Every generator (*/tools/gen_*.py) with --check: nothing checked in is out of date
    # (spec/tools/generated.py).
    local gen
    for gen in */tools/gen_*.py; do
        .venv/bin/python "$gen" --check || return 1
    done
    # Every C file is laid out as .clang-format says (scripts/check-format.sh names those
    # that are not; clang-format -i FILE fixes one).
    bash scripts/check-format.sh || return 1
    # Every product folder: no files in a circle, no function over 100 lines without its
    # written reason (conformance/tests/structure.py; PRODUCTS there lists the folders).
    local shape
    shape=$(.venv/bin/python conformance/tests/structure.py --products --limit 100) ||
        { printf '%s\n' "$shape" | grep -v '^ *[0-9]'; return 1; }
    echo "structure: no circle and no long function without its written reason"
    # Every testable must/should statement of a core profile has a case.
    build/conformance/devspec coverage --core --fail-uncovered must,should >/dev/null &&
        echo "coverage: every must/should statement of the core profiles has a case"
}
phase_python() {
    [ -d adapters/python/tests ] || { echo "no Python adapter tests yet"; return 0; }
    # Lint and type-check every Python file of the project with the one configuration of the
    # root pyproject.toml (its "not yet" lists name the folders still to be made clean).
    .venv/bin/ruff check -q . && .venv/bin/python -m mypy &&
        .venv/bin/python -m pytest -q adapters/python/tests python/tests \
            --ignore=adapters/python/tests/test_oneflow.py
}
# pip install . into a fresh virtual environment gives a devspec that runs from anywhere.
phase_pip() { bash scripts/test-pip-install.sh build; }
# The binary wheel (scripts/build-wheel.sh) installed and run where no compiler can be found:
# python:numpy and python:array_api_strict, by devspec run and by pytest --devspec.
phase_wheel() { bash scripts/test-wheel.sh; }
# OneFlow itself and ranks that share no memory (the phase libraries/oneflow.json names). The suite's runs against OneFlow (oneflow,
# oneflow-4) are the suite phase's; here: OneFlow's own tests (its environment, lacks answers,
# per-rank replies, a rank that aborts), refarray on 4 MPI ranks with OpenMPI forced onto
# TCP (btl tcp,self: the collectives' path between machines, where the suite phase's ranks
# share memory), and the SBP conversion figures on shared memory and on TCP.
phase_oneflow() {
    bash scripts/setup-oneflow.sh || return 1
    if [ -x .venv-oneflow/bin/python ]; then
        .venv/bin/python -m pytest -q adapters/python/tests/test_oneflow.py || return 1
    else
        echo "oneflow: unavailable: $(cat .venv-oneflow.unavailable)"
    fi
    local bench=build/reference/bench/global/refarray-global-bench
    if [ ! -x "$bench" ] || ! command -v mpirun >/dev/null; then
        echo "oneflow: built without MPI: refarray-mpi4 over TCP not run"
        return 0
    fi
    export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
    mkdir -p reports/runs/ci
    OMPI_MCA_btl=tcp,self build/conformance/devspec run --adapter refarray-mpi4 --no-progress \
        --no-tap --report reports/runs/ci/refarray-mpi4-tcp.json || return 1
    for btl in self,vader tcp,self; do
        echo "SBP conversions, OpenMPI btl $btl:"
        mpirun -np 4 --oversubscribe --mca btl "$btl" "$bench" | tail -n 2 || return 1
    done
}
phase_suite() { bash scripts/run-suite.sh --no-setup --all --in-process --out reports/runs/ci >/dev/null; }
# Suite power (conformance/bench/mutation/README.md): the mutant catalogue applies to the tree, every must
# statement refarray implements has a mutant or a reason, and a fixed sample of mutants is run
# through the suite against a copy of the tree: a sample mutant that survives, or a designed
# equivalent that is killed, fails the phase. The whole catalogue: mutate.py --publish.
phase_mutation() {
    .venv/bin/python conformance/bench/mutation/mutate.py --check &&
        .venv/bin/python conformance/bench/mutation/mutate.py --coverage &&
        .venv/bin/python -m pytest -q conformance/bench/mutation/tests &&
        .venv/bin/python conformance/bench/mutation/mutate.py --sample --jobs "$jobs" \
            --result reports/runs/ci/mutation-sample.json
}

# Every bench once, each figure checked for sense (never against its goal: a timing on a busy
# machine says nothing; scripts/check_bench_output.py fails only on a bench that cannot run or
# prints a negative, NaN or infinite figure). Not in the default list: it takes minutes.
run_bench() {
    local name=$1
    shift
    echo "--- $name: $*"
    "$@" 2>&1 | .venv/bin/python scripts/check_bench_output.py "$name"
}
phase_bench() {
    cmake --preset default >/dev/null && cmake --build --preset default -j "$jobs" | tail -n 1 ||
        return 1
    local bench=build/reference/bench
    run_bench refarray-bench "$bench/refarray-bench" --runs 3 &&
        run_bench refarray-bench-shard "$bench/refarray-bench-shard" --runs 3 &&
        run_bench devspec-bench build/conformance/bench/devspec-bench 200 20 &&
        run_bench reply_memory .venv/bin/python conformance/bench/reply_memory.py \
            --devspec build/conformance/devspec --bytes 4000000 &&
        run_bench suite_time .venv/bin/python conformance/bench/suite_time.py --starts 1 refarray ||
        return 1
    if [ -x "$bench/global/refarray-global-bench" ] && command -v mpirun >/dev/null; then
        export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
        run_bench refarray-global-bench mpirun -np 4 --oversubscribe --mca btl self,vader \
            "$bench/global/refarray-global-bench" || return 1
    else
        echo "refarray-global-bench: built without MPI: not run"
    fi
}

all=(unit asan tsan fuzz spec python oneflow suite mutation pip wheel)
# Phases run only when named.
extra=(bench)
want=("$@")
[ ${#want[@]} -gt 0 ] || want=("${all[@]}")
passed=0
failed=0
failures=()
for p in "${want[@]}"; do
    if ! declare -F "phase_$p" >/dev/null; then
        echo "test.sh: unknown phase '$p' (phases: ${all[*]}; when named: ${extra[*]})" >&2
        exit 2
    fi
    echo "=== phase $p"
    if "phase_$p"; then
        passed=$((passed + 1))
    else
        failed=$((failed + 1))
        failures+=("$p")
    fi
done
[ ${#failures[@]} -eq 0 ] || echo "failed phases: ${failures[*]}"
echo "phases: $passed passed, $failed failed"
[ "$failed" -eq 0 ]
