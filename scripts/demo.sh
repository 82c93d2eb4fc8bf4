#!/usr/bin/env bash
# The main demo. Does all set-up itself (see scripts/setup.sh), then in .venv:
#   1. compiles a small model with torch.compile under pellucid.prepare_debug and writes the dump
#      (decompiled transformed code, guards, graphs, Inductor code) to pellucid_dump/demo,
#   2. builds the HTML report of that dump (pellucid_dump/demo/report/index.html),
#   3. decompiles a few example functions and prints them beside their original source.
set -uo pipefail

# shellcheck source=scripts/setup.sh
source "$(dirname "${BASH_SOURCE[0]}")/setup.sh"
cd "$PELLUCID_ROOT" || exit 1

pellucid_ensure_venv "$PELLUCID_MAIN_VERSION" || { echo "set-up failed" >&2; exit 1; }
py="$(pellucid_venv_dir "$PELLUCID_MAIN_VERSION")/bin/python"
dump="${1:-pellucid_dump/demo}"

rm -rf "$dump"
"$py" examples/demo_torch.py "$dump" || exit 1
"$py" -m pellucid report "$dump" || exit 1
echo
"$py" examples/decompile_demo.py || exit 1
echo
echo "dump:   $dump"
echo "report: $dump/report/index.html"
