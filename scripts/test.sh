#!/usr/bin/env bash
# Run the whole test suite: ruff, then pytest under every CPython that scripts/setup.sh knows
# (3.9-3.13 from pyenv, 3.14/3.15 from Debian when pyenv has none) and with every supported torch
# release (see PELLUCID_TORCH_VERSIONS in scripts/setup.sh).
# Does all set-up itself (see scripts/setup.sh). Extra arguments are passed to every pytest run.
# Exit status is non-zero if ruff fails or any pytest run fails or collects no test (exit 5).
# Each test is stopped after PELLUCID_TEST_TIMEOUT seconds (default 180; pytest-timeout).
#
# The runs go in two lanes at once, one per core: the decompiler on every CPython followed by the
# torch entry points on the newer CPythons (3.14), and the torch suites on Python 3.11 followed
# by the coverage check on the newer CPythons. Each run's output is printed whole when it ends.
set -uo pipefail

# shellcheck source=scripts/setup.sh
source "$(dirname "${BASH_SOURCE[0]}")/setup.sh"
cd "$PELLUCID_ROOT" || exit 1

failed=0
summary=()
results="$(mktemp -d)"
trap 'rm -rf "$results"' EXIT
extra_args=("$@")

if ! pellucid_setup_all; then
    echo "set-up failed" >&2
    failed=1
fi

main_venv="$(pellucid_venv_dir "$PELLUCID_MAIN_VERSION")"
if [[ -x "$main_venv/bin/ruff" ]]; then
    echo "=== ruff check src tests benchmarks"
    lint_paths=()
    for p in src tests benchmarks; do [[ -e "$p" ]] && lint_paths+=("$p"); done
    if "$main_venv/bin/ruff" check "${lint_paths[@]}"; then
        summary+=("ruff: ok")
    else
        summary+=("ruff: FAILED")
        failed=1
    fi
else
    summary+=("ruff: FAILED (not installed in $main_venv)")
    failed=1
fi

# One pytest run: $1 lane, $2 label, $3 venv, the rest pytest targets. pellucid is imported from
# src/ (the cached torch venvs do not install it). Writes "ok|FAILED <label> ..." to the lane's
# result file and prints the run's output when it ends.
run_pytest() {
    local lane="$1" label="$2" venv="$3" log rc last t0
    shift 3
    if [[ ! -x "$venv/bin/python" ]]; then
        echo "FAILED $label: FAILED (no venv $venv)" >>"$results/$lane"
        return
    fi
    log="$results/$lane.log"
    t0=$SECONDS
    PYTHONPATH="$PELLUCID_ROOT/src${PYTHONPATH:+:$PYTHONPATH}" "$venv/bin/python" -m pytest -q \
        -p no:cacheprovider --timeout="${PELLUCID_TEST_TIMEOUT:-180}" "$@" "${extra_args[@]}" \
        >"$log" 2>&1
    rc=$?
    { echo "=== $label: pytest $*"; cat "$log"; }
    # pytest's closing line, e.g. "12 passed, 1 failed in 3.2s"
    last="$(grep -E '(passed|failed|error|no tests ran)' "$log" | tail -n1 | sed -E 's/^=+ //; s/ =+$//')"
    last="$last; $((SECONDS - t0)) s"
    if [[ $rc -eq 0 ]]; then
        echo "ok $label: ok ($last)" >>"$results/$lane"
    elif [[ $rc -eq 5 ]]; then
        echo "FAILED $label: FAILED (no tests collected)" >>"$results/$lane"
    else
        echo "FAILED $label: FAILED, exit $rc ($last)" >>"$results/$lane"
    fi
}

decompiler_tests=(tests/decompiler tests/cli/test_cli_decompile.py)
torch_tests=(tests/dynamo tests/cli tests/report tests/benchmarks)
# the check every supported torch release must pass: every frame of every test workload runs
# from its decompiled file with eager-equal outputs
coverage_check=(tests/benchmarks/test_coverage_matrix.py)

# On the newer CPythons with a torch venv (PELLUCID_TORCH_PYTHONS: the newest torch release),
# the coverage check (lane 2) and the torch tests that exercise each entry point (prepare_debug,
# debug, install, `pellucid run`, the report) with the bytecode-level units (lane 1); the rest
# of the torch suite runs on Python 3.11.
newer_python_torch_tests=(
    tests/dynamo/test_units.py
    tests/dynamo/test_tidy.py
    tests/dynamo/test_internals.py
    tests/dynamo/test_adoption.py
    tests/dynamo/test_prepare_debug.py
    tests/dynamo/test_install_and_processes.py
    tests/cli/test_cli_run.py
    tests/report/test_report_units.py
)

# Lane 1: the decompiler on every CPython version, and the clean refusal of the versions it
# does not support yet; then torch on the newer CPythons (this lane has the time).
decompiler_lane() {
    local ver
    for ver in "${PELLUCID_VERSIONS[@]}"; do
        if [[ ! -x "$(pellucid_venv_dir "$ver")/bin/python" ]]; then
            echo "ok Python $ver: skipped (interpreter not installed)" >>"$results/lane1"
            continue
        fi
        run_pytest lane1 "Python $ver" "$(pellucid_venv_dir "$ver")" "${decompiler_tests[@]}"
    done
    for ver in "${PELLUCID_NEW_VERSIONS[@]}"; do
        run_pytest lane1 "Python $ver (refused cleanly)" "$(pellucid_venv_dir "$ver")" \
            tests/decompiler/test_version_refusal.py
    done
    local tv="${PELLUCID_TORCH_VERSIONS[${#PELLUCID_TORCH_VERSIONS[@]}-1]}"
    for ver in "${PELLUCID_TORCH_PYTHONS[@]}"; do
        run_pytest lane1 "Python $ver, torch $tv" "$(pellucid_torch_venv_dir "$tv" "$ver")" \
            "${newer_python_torch_tests[@]}"
    done
}

# Lane 2: torch on Python 3.11. The whole suite on the newest supported release, the coverage
# check on the others; then the coverage check on the newer CPythons.
torch_lane() {
    local tv label ver newest="${PELLUCID_TORCH_VERSIONS[${#PELLUCID_TORCH_VERSIONS[@]}-1]}"
    for tv in "${PELLUCID_TORCH_VERSIONS[@]}"; do
        label="Python $PELLUCID_MAIN_VERSION, torch $tv"
        if [[ "$tv" == "$newest" ]]; then
            run_pytest lane2 "$label" "$(pellucid_torch_venv_dir "$tv")" "${torch_tests[@]}"
        else
            run_pytest lane2 "$label" "$(pellucid_torch_venv_dir "$tv")" "${coverage_check[@]}"
        fi
    done
    for ver in "${PELLUCID_TORCH_PYTHONS[@]}"; do
        run_pytest lane2 "Python $ver, torch $newest (coverage)" \
            "$(pellucid_torch_venv_dir "$newest" "$ver")" "${coverage_check[@]}"
    done
}

decompiler_lane &
lane1_pid=$!
torch_lane
wait "$lane1_pid"

for lane in lane1 lane2; do
    [[ -f "$results/$lane" ]] || continue
    while read -r status line; do
        summary+=("$line")
        [[ "$status" == ok ]] || failed=1
    done <"$results/$lane"
done

echo
echo "=== summary"
printf '%s\n' "${summary[@]}"
if [[ $failed -ne 0 ]]; then
    echo "test.sh: FAILED"
    exit 1
fi
echo "test.sh: all passed"
