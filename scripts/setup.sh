# shellcheck shell=bash
# Shared set-up for scripts/demo.sh and scripts/test.sh. Source it; do not run it.
#
# Creates, idempotently, one virtual environment per CPython version that pyenv has:
#   .venv       Python 3.11: pellucid[test,report] + torch==2.13.0 (local CPU wheel) + torch test deps
#   .venv-3.X   Python 3.9, 3.10, 3.12, 3.13: pellucid[test]
# and, for the other torch releases of the support matrix (CUDA builds of about 5.5 GB that run
# on the CPU), one venv each under $PELLUCID_CACHE/venvs (default ~/.cache/pellucid), made from
# requirements/torch-<version>.txt and kept between clones and runs. pellucid itself is not
# installed there: tests run them with PYTHONPATH=src.
# A venv is (re)installed only when its inputs change (stamp file), so re-runs take a second.

PELLUCID_ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
export PELLUCID_ROOT

# Versions tested; 3.11 is the main one (torch wheels exist for it).
PELLUCID_VERSIONS=(3.9 3.10 3.11 3.12 3.13 3.14 3.15)
# CPythons taken from Debian's sid when pyenv has none (scripts/pythons.sh).
PELLUCID_DEBIAN_VERSIONS=(3.14 3.15)
# Newer CPythons whose bytecode the decompiler refuses cleanly until they are supported; their
# tests check that refusal (none today: every version's suite checks the refusal of 3.16).
PELLUCID_NEW_VERSIONS=()

# shellcheck source=scripts/pythons.sh
source "$(dirname "${BASH_SOURCE[0]}")/pythons.sh"
PELLUCID_MAIN_VERSION=3.11

# The torch releases pellucid supports, each tested on Python 3.11. The first is the one in .venv.
PELLUCID_TORCH_VERSIONS=(2.13.0 2.14.1 2.15.0)
# Newer CPythons on which torch.compile is tested too, with the newest torch release of the
# matrix, in a cached venv $PELLUCID_CACHE/venvs/py3.X-torch<version>. (Dynamo refuses 3.15.)
PELLUCID_TORCH_PYTHONS=(3.14)
PELLUCID_CACHE="${PELLUCID_CACHE:-$HOME/.cache/pellucid}"

# Extra packages of every venv: a per-test timeout, so that a hang (e.g. decompiled code that
# loops forever) fails one test instead of the whole run.
PELLUCID_COMMON_PKGS=(
    "pytest-timeout"
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
    local debian=""
    py="$(pellucid_find_python "$ver")"
    if [[ -z "$py" && " ${PELLUCID_DEBIAN_VERSIONS[*]} " == *" $ver "* ]]; then
        py="$(pellucid_ensure_debian_python "$ver")" && debian=1
    fi
    if [[ -z "$py" ]]; then
        _pellucid_log "Python $ver not found under pyenv: skipping it"
        return 3
    fi
    venv="$(pellucid_venv_dir "$ver")"
    local pkgs=("${PELLUCID_COMMON_PKGS[@]}")
    if [[ "$ver" == "$PELLUCID_MAIN_VERSION" ]]; then
        extras="test,report"
        pkgs+=(-r "requirements/torch-${PELLUCID_TORCH_VERSIONS[0]}.txt")
    else
        extras="test"
    fi
    want="$(_pellucid_hash "$py" "$extras" "${pkgs[@]}" "$(cat "$PELLUCID_ROOT/requirements/torch-${PELLUCID_TORCH_VERSIONS[0]}.txt")")"
    stamp="$venv/.pellucid-stamp"
    if [[ -x "$venv/bin/python" && -f "$stamp" && "$(cat "$stamp")" == "$want" ]] \
        && "$venv/bin/python" -c 'import importlib.metadata as m; m.version("pellucid")' >/dev/null 2>&1; then
        return 0
    fi
    if [[ -n "$debian" ]]; then
        # Debian's interpreters have no ensurepip: pip is bootstrapped from its wheel
        pellucid_ensure_debian_venv "$ver" "$venv" >/dev/null || return 1
    elif [[ ! -x "$venv/bin/python" ]] || ! "$venv/bin/python" -c 'pass' >/dev/null 2>&1; then
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
        if [[ "$tv" != "${PELLUCID_TORCH_VERSIONS[0]}"* ]]; then
            _pellucid_log "unexpected torch version $tv in $venv"
            return 1
        fi
    fi
    printf '%s\n' "$want" >"$stamp"
}

# Directory of the venv for torch release $1 on Python $2 (default 3.11).
pellucid_torch_venv_dir() {
    local pyver="${2:-$PELLUCID_MAIN_VERSION}"
    if [[ "$1" == "${PELLUCID_TORCH_VERSIONS[0]}" && "$pyver" == "$PELLUCID_MAIN_VERSION" ]]; then
        pellucid_venv_dir "$PELLUCID_MAIN_VERSION"
    else
        printf '%s/venvs/py%s-torch%s\n' "$PELLUCID_CACHE" "$pyver" "$1"
    fi
}

# Ensure the cached venv of torch release $1 on Python $2 (default 3.11; torch $1 on 3.11 is
# .venv when $1 is the first release). The release's requirements file pins torch and the test
# dependencies. pip runs without this machine's configuration file (PIP_CONFIG_FILE=/dev/null),
# whose constraints may cap torch below a supported release; the requirements pin exactly what is
# installed. On a Debian CPython (PELLUCID_DEBIAN_VERSIONS) the venv gets pip from its wheel, and
# only wheels are accepted: that interpreter has no build tool chain of its own, and the
# registry has cp3X wheels of torch and of every test dependency.
pellucid_ensure_torch_venv() {
    local ver="$1" pyver="${2:-$PELLUCID_MAIN_VERSION}" py venv req want stamp log tv
    local debian="" pipopts=()
    if [[ " ${PELLUCID_DEBIAN_VERSIONS[*]} " == *" $pyver "* ]]; then
        py="$(pellucid_ensure_debian_python "$pyver")" || return 1
        debian=1
        pipopts=(--only-binary=:all:)
    else
        py="$(pellucid_find_python "$pyver")"
    fi
    [[ -n "$py" ]] || { _pellucid_log "Python $pyver not found"; return 1; }
    venv="$(pellucid_torch_venv_dir "$ver" "$pyver")"
    req="$PELLUCID_ROOT/requirements/torch-$ver.txt"
    [[ -f "$req" ]] || { _pellucid_log "no $req"; return 1; }
    want="$({ cat "$req"; printf '%s\n' "$py" "${PELLUCID_COMMON_PKGS[@]}" "${pipopts[@]}"; } \
        | sha256sum | cut -d' ' -f1)"
    stamp="$venv/.pellucid-stamp"
    if [[ -x "$venv/bin/python" && -f "$stamp" && "$(cat "$stamp")" == "$want" ]]; then
        return 0
    fi
    mkdir -p "$(dirname "$venv")" || return 1
    if [[ -n "$debian" ]]; then
        pellucid_ensure_debian_venv "$pyver" "$venv" >/dev/null || return 1
    elif [[ ! -x "$venv/bin/python" ]] || ! "$venv/bin/python" -c 'pass' >/dev/null 2>&1; then
        _pellucid_log "creating $venv with $py"
        rm -rf "$venv"
        "$py" -m venv "$venv" || return 1
    fi
    _pellucid_log "installing torch $ver and the test dependencies into $venv (several GB the first time)"
    log="$venv/pip-install.log"
    if ! PIP_CONFIG_FILE=/dev/null "$venv/bin/python" -m pip install --no-input "${pipopts[@]}" \
        -r "$req" "${PELLUCID_COMMON_PKGS[@]}" >"$log" 2>&1; then
        tail -n 40 "$log" >&2
        _pellucid_log "pip install failed for $venv (full log: $log)"
        return 1
    fi
    tv="$("$venv/bin/python" -c 'import importlib.metadata as m; print(m.version("torch"))')"
    if [[ "$tv" != "$ver"* ]]; then
        _pellucid_log "unexpected torch version $tv in $venv (wanted $ver)"
        return 1
    fi
    printf '%s\n' "$want" >"$stamp"
}

# Ensure every venv whose interpreter exists. Fails if any present version fails to install.
pellucid_setup_all() {
    local ver rc failed=0
    pellucid_ensure_apt_pkgs
    for ver in "${PELLUCID_VERSIONS[@]}" "${PELLUCID_NEW_VERSIONS[@]}"; do
        pellucid_ensure_venv "$ver"
        rc=$?
        if [[ $rc -ne 0 && $rc -ne 3 ]]; then
            failed=1
        fi
    done
    for ver in "${PELLUCID_TORCH_VERSIONS[@]:1}"; do
        pellucid_ensure_torch_venv "$ver" || failed=1
    done
    for ver in "${PELLUCID_TORCH_PYTHONS[@]}"; do
        pellucid_ensure_torch_venv "${PELLUCID_TORCH_VERSIONS[-1]}" "$ver" || failed=1
    done
    return "$failed"
}
