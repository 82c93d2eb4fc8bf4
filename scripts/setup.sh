# shellcheck shell=bash
# Shared set-up for scripts/demo.sh and scripts/test.sh. Source it; do not run it.
#
# Creates, idempotently, one virtual environment per CPython version that pyenv has:
#   .venv       Python 3.11: pellucid[test,report] + torch==2.13.0 (local CPU wheel) + torch test deps
#   .venv-3.X   Python 3.9, 3.10, 3.12, 3.13: pellucid[test]
# and pytest-timeout in each.
# A venv is (re)installed only when its inputs change (stamp file), so re-runs take a second.

PELLUCID_ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
export PELLUCID_ROOT

# Versions tested; 3.11 is the main one (torch wheels exist for it).
PELLUCID_VERSIONS=(3.9 3.10 3.11 3.12 3.13)
PELLUCID_MAIN_VERSION=3.11

# Extra packages of every venv: a per-test timeout, so that a hang (e.g. decompiled code that
# loops forever) fails one test instead of the whole run.
PELLUCID_COMMON_PKGS=(
    "pytest-timeout"
)

# Extra packages of the main venv. transformers has no hard torch requirement, so pinning it
# cannot pull another torch; torch itself is pinned to the CPU wheel on local disk.
PELLUCID_TORCH_PKGS=(
    "torch==2.13.0"
    "transformers==5.17.0"
    "debugpy"
    "pygments"
    "hypothesis"
    "hypothesmith"
    "playwright"  # report tests drive the system Chromium (no `playwright install`)
    "tlparse"     # TORCH_TRACE test reads pellucid's artifacts back with PyTorch's tlparse
)

# Debian packages for the report tests: a real headless browser, and graphviz for graph pictures.
PELLUCID_APT_PKGS=(chromium chromium-driver graphviz)

# Install PELLUCID_APT_PKGS when one is missing (fast no-op otherwise; needs root and apt-get).
pellucid_ensure_apt_pkgs() {
    local missing=()
    command -v chromium >/dev/null 2>&1 || missing+=(chromium chromium-driver)
    command -v dot >/dev/null 2>&1 || missing+=(graphviz)
    [[ ${#missing[@]} -eq 0 ]] && return 0
    if [[ "$(id -u)" != 0 ]] || ! command -v apt-get >/dev/null 2>&1; then
        _pellucid_log "missing ${missing[*]} (no root/apt-get): browser report tests will be skipped"
        return 0
    fi
    _pellucid_log "apt-get install ${missing[*]}"
    if ! { apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq "${missing[@]}"; } \
        >/tmp/pellucid-apt.log 2>&1; then
        tail -n 20 /tmp/pellucid-apt.log >&2
        _pellucid_log "apt-get install failed: browser report tests will be skipped"
    fi
    return 0
}

_pellucid_log() { printf '[setup] %s\n' "$*" >&2; }

# Print the path of the newest pyenv interpreter for version $1 (e.g. 3.11), or nothing.
pellucid_find_python() {
    local want="$1" root cand best=""
    if command -v pyenv >/dev/null 2>&1; then
        root="$(pyenv root)"
    else
        root="${PYENV_ROOT:-$HOME/.pyenv}"
    fi
    for cand in "$root"/versions/"$want".*/bin/python; do
        [[ -x "$cand" ]] || continue
        # guard against 3.1 matching 3.10 etc.: the glob already requires "$want." prefix
        best="$cand"
    done
    if [[ -n "$best" ]]; then
        # pick the highest patch release when several are installed
        best="$(printf '%s\n' "$root"/versions/"$want".*/bin/python | sort -V | tail -n1)"
        printf '%s\n' "$best"
    fi
}

# Directory of the venv for version $1.
pellucid_venv_dir() {
    if [[ "$1" == "$PELLUCID_MAIN_VERSION" ]]; then
        printf '%s/.venv\n' "$PELLUCID_ROOT"
    else
        printf '%s/.venv-%s\n' "$PELLUCID_ROOT" "$1"
    fi
}

_pellucid_hash() {
    # hash of everything that decides what a venv must contain
    { cat "$PELLUCID_ROOT/pyproject.toml"; printf '%s\n' "$@"; } | sha256sum | cut -d' ' -f1
}

# Ensure the venv of version $1 exists and is installed. Returns 3 if the interpreter is absent.
pellucid_ensure_venv() {
    local ver="$1" py venv extras stamp want
    py="$(pellucid_find_python "$ver")"
    if [[ -z "$py" ]]; then
        _pellucid_log "Python $ver not found under pyenv: skipping it"
        return 3
    fi
    venv="$(pellucid_venv_dir "$ver")"
    local pkgs=("${PELLUCID_COMMON_PKGS[@]}")
    if [[ "$ver" == "$PELLUCID_MAIN_VERSION" ]]; then
        extras="test,report"
        pkgs+=("${PELLUCID_TORCH_PKGS[@]}")
    else
        extras="test"
    fi
    want="$(_pellucid_hash "$py" "$extras" "${pkgs[@]}")"
    stamp="$venv/.pellucid-stamp"
    if [[ -x "$venv/bin/python" && -f "$stamp" && "$(cat "$stamp")" == "$want" ]] \
        && "$venv/bin/python" -c 'import importlib.metadata as m; m.version("pellucid")' >/dev/null 2>&1; then
        return 0
    fi
    if [[ ! -x "$venv/bin/python" ]] || ! "$venv/bin/python" -c 'pass' >/dev/null 2>&1; then
        _pellucid_log "creating $venv with $py"
        rm -rf "$venv"
        "$py" -m venv "$venv" || return 1
    fi
    _pellucid_log "installing pellucid[$extras] ${pkgs[*]} into $venv"
    local log="$venv/pip-install.log"
    if ! (
        cd "$PELLUCID_ROOT" || exit 1
        "$venv/bin/python" -m pip install --no-input -e ".[$extras]" "${pkgs[@]}"
    ) >"$log" 2>&1; then
        tail -n 40 "$log" >&2
        _pellucid_log "pip install failed for $venv (full log: $log)"
        return 1
    fi
    if [[ "$ver" == "$PELLUCID_MAIN_VERSION" ]]; then
        # never accept a CUDA build: it would mean pip reached past the local wheel
        local tv
        tv="$("$venv/bin/python" -c 'import importlib.metadata as m; print(m.version("torch"))')"
        if [[ "$tv" != 2.13.0* ]]; then
            _pellucid_log "unexpected torch version $tv in $venv"
            return 1
        fi
    fi
    printf '%s\n' "$want" >"$stamp"
}

# Ensure every venv whose interpreter exists. Fails if any present version fails to install.
pellucid_setup_all() {
    local ver rc failed=0
    pellucid_ensure_apt_pkgs
    for ver in "${PELLUCID_VERSIONS[@]}"; do
        pellucid_ensure_venv "$ver"
        rc=$?
        if [[ $rc -ne 0 && $rc -ne 3 ]]; then
            failed=1
        fi
    done
    return "$failed"
}
