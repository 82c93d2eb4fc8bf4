#!/usr/bin/env bash
# Run the whole test suite: ruff, then pytest under every CPython 3.9-3.13 that pyenv has and
# with every supported torch release (see PELLUCID_TORCH_VERSIONS in scripts/setup.sh).
# Does all set-up itself (see scripts/setup.sh). Extra arguments are passed to every pytest run.
# Exit status is non-zero if ruff fails or any pytest run fails or collects no test (exit 5).
# Each test is stopped after PELLUCID_TEST_TIMEOUT seconds (default 180; pytest-timeout).
set -uo pipefail

# shellcheck source=scripts/setup.sh
source "$(dirname "${BASH_SOURCE[0]}")/setup.sh"
cd "$PELLUCID_ROOT" || exit 1

failed=0
summary=()

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

# One pytest run: $1 label, $2 venv, the rest pytest targets. pellucid is imported from src/
# (the cached torch venvs do not install it). Appends a line to the summary.
run_pytest() {
    local label="$1" venv="$2" log rc last
    shift 2
    if [[ ! -x "$venv/bin/python" ]]; then
        summary+=("$label: FAILED (no venv $venv)")
        failed=1
        return
    fi
    echo "=== $label: pytest $*"
    log="$(mktemp)"
    PYTHONPATH="$PELLUCID_ROOT/src${PYTHONPATH:+:$PYTHONPATH}" "$venv/bin/python" -m pytest -q \
        -p no:cacheprovider --timeout="${PELLUCID_TEST_TIMEOUT:-180}" "$@" "${extra_args[@]}" 2>&1 | tee "$log"
    rc=${PIPESTATUS[0]}
    # pytest's closing line, e.g. "12 passed, 1 failed in 3.2s"
    last="$(grep -E '(passed|failed|error|no tests ran)' "$log" | tail -n1 | sed -E 's/^=+ //; s/ =+$//')"
    rm -f "$log"
    if [[ $rc -eq 0 ]]; then
        summary+=("$label: ok ($last)")
    elif [[ $rc -eq 5 ]]; then
        summary+=("$label: FAILED (no tests collected)")
        failed=1
    else
        summary+=("$label: FAILED, exit $rc ($last)")
        failed=1
    fi
}

extra_args=("$@")
decompiler_tests=(tests/decompiler tests/cli)
torch_tests=(tests/dynamo tests/cli tests/report tests/benchmarks)
# the check every supported torch release must pass: every frame of every test workload runs
# from its decompiled file with eager-equal outputs
coverage_check=(tests/benchmarks/test_coverage_matrix.py)

# The decompiler on every CPython version (the main one also runs the whole suite below).
for ver in "${PELLUCID_VERSIONS[@]}"; do
    [[ "$ver" == "$PELLUCID_MAIN_VERSION" ]] && continue
    if [[ -z "$(pellucid_find_python "$ver")" ]]; then
        summary+=("Python $ver: skipped (interpreter not installed)")
        continue
    fi
    run_pytest "Python $ver" "$(pellucid_venv_dir "$ver")" "${decompiler_tests[@]}"
done

# CPythons the decompiler does not support yet: their bytecode is refused in one clean line.
for ver in "${PELLUCID_NEW_VERSIONS[@]}"; do
    run_pytest "Python $ver (refused cleanly)" "$(pellucid_venv_dir "$ver")" \
        tests/decompiler/test_version_refusal.py
done

# torch: the whole suite on the newest supported release, the coverage check on the others,
# and the decompiler suite on Python $PELLUCID_MAIN_VERSION with the first one's venv.
newest="${PELLUCID_TORCH_VERSIONS[${#PELLUCID_TORCH_VERSIONS[@]}-1]}"
for tv in "${PELLUCID_TORCH_VERSIONS[@]}"; do
    label="Python $PELLUCID_MAIN_VERSION, torch $tv"
    if [[ "$tv" == "$newest" ]]; then
        run_pytest "$label" "$(pellucid_torch_venv_dir "$tv")" "${torch_tests[@]}"
    elif [[ "$tv" == "${PELLUCID_TORCH_VERSIONS[0]}" ]]; then
        run_pytest "$label" "$(pellucid_torch_venv_dir "$tv")" tests/decompiler \
            tests/cli/test_cli_decompile.py "${coverage_check[@]}"
    else
        run_pytest "$label" "$(pellucid_torch_venv_dir "$tv")" "${coverage_check[@]}"
    fi
done

echo
echo "=== summary"
printf '%s\n' "${summary[@]}"
if [[ $failed -ne 0 ]]; then
    echo "test.sh: FAILED"
    exit 1
fi
echo "test.sh: all passed"
