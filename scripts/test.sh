#!/usr/bin/env bash
# Run the whole test suite: ruff, then pytest under every CPython 3.9-3.13 that pyenv has.
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

for ver in "${PELLUCID_VERSIONS[@]}"; do
    venv="$(pellucid_venv_dir "$ver")"
    if [[ -z "$(pellucid_find_python "$ver")" ]]; then
        summary+=("Python $ver: skipped (interpreter not installed)")
        continue
    fi
    if [[ ! -x "$venv/bin/python" ]]; then
        summary+=("Python $ver: FAILED (no venv)")
        failed=1
        continue
    fi
    if [[ "$ver" == "$PELLUCID_MAIN_VERSION" ]]; then
        targets=(tests)
    else
        targets=()
        for p in tests/decompiler tests/cli; do [[ -d "$p" ]] && targets+=("$p"); done
    fi
    if [[ ${#targets[@]} -eq 0 ]]; then
        summary+=("Python $ver: FAILED (no test directory)")
        failed=1
        continue
    fi
    echo "=== Python $ver: pytest ${targets[*]}"
    log="$(mktemp)"
    "$venv/bin/python" -m pytest -q -p no:cacheprovider --timeout="${PELLUCID_TEST_TIMEOUT:-180}" \
        "${targets[@]}" "$@" 2>&1 | tee "$log"
    rc=${PIPESTATUS[0]}
    # pytest's closing line, e.g. "12 passed, 1 failed in 3.2s"
    last="$(grep -E '(passed|failed|error|no tests ran)' "$log" | tail -n1 | sed -E 's/^=+ //; s/ =+$//')"
    rm -f "$log"
    if [[ $rc -eq 0 ]]; then
        summary+=("Python $ver: ok ($last)")
    elif [[ $rc -eq 5 ]]; then
        summary+=("Python $ver: FAILED (no tests collected)")
        failed=1
    else
        summary+=("Python $ver: FAILED, exit $rc ($last)")
        failed=1
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
