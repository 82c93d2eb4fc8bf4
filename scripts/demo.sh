#!/usr/bin/env bash
# The main demo. Does all set-up itself (see scripts/setup.sh), then runs the demo in .venv.
set -uo pipefail

# shellcheck source=scripts/setup.sh
source "$(dirname "${BASH_SOURCE[0]}")/setup.sh"
cd "$PELLUCID_ROOT" || exit 1

pellucid_ensure_venv "$PELLUCID_MAIN_VERSION" || { echo "set-up failed" >&2; exit 1; }
exec "$(pellucid_venv_dir "$PELLUCID_MAIN_VERSION")/bin/python" examples/decompile_demo.py "$@"
