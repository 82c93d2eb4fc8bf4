# shellcheck shell=bash
# CPython interpreters that pyenv does not provide (3.14, 3.15), taken from Debian's sid suite.
# Source it (scripts/setup.sh does); do not run it.
#
#   pellucid_ensure_debian_python 3.14     prints the path of a runnable python3.14
#   pellucid_ensure_debian_venv 3.14 DIR   a venv at DIR with pip, pytest, pytest-timeout, hypothesis
#
# Why this way: sid has binary packages of the new CPython releases (python3.X-minimal,
# libpython3.X-*), but they need sid's libc and sid's builds of the libraries the stdlib's
# extension modules link against. `apt-get download` with a private sources list, state and cache
# fetches them without touching the system's apt state; `dpkg-deb -x` unpacks them into one folder;
# the interpreter binary then gets that folder's dynamic loader and a DT_RPATH naming that folder's
# library directories. DT_RPATH (not DT_RUNPATH) also applies to the libraries that extension
# modules load, so _ssl, _sqlite3, _ctypes... resolve against the same sid libraries, and so does
# every subprocess started with sys.executable.
#
# Everything lives under ${PELLUCID_CACHE:-$HOME/.cache/pellucid}/python3.X; a stamp file makes a
# second call cost one `python -c pass`.

PELLUCID_DEBIAN_SUITE="${PELLUCID_DEBIAN_SUITE:-sid}"
PELLUCID_DEBIAN_MIRROR="${PELLUCID_DEBIAN_MIRROR:-http://deb.debian.org/debian}"

# Shared libraries the interpreter and the stdlib's extension modules need, at sid's versions.
PELLUCID_DEBIAN_LIBS=(
    libc6 libssl3t64 zlib1g libffi8 libexpat1 libbz2-1.0 liblzma5 libsqlite3-0 libmpdec4
    libzstd1 libuuid1
)

_pellucid_py_log() { printf '[pythons] %s\n' "$*" >&2; }

_pellucid_cache_root() { printf '%s\n' "${PELLUCID_CACHE:-$HOME/.cache/pellucid}"; }

# Run apt-get with a private configuration: its own sources list (sid only), package lists, cache
# and dpkg status, so neither the system's sources nor its state are read or written.
_pellucid_private_apt() {
    local aptdir="$1" sandbox=()
    shift
    # as root, apt drops to user _apt, who cannot write into a private cache under /root
    [[ "$(id -u)" == 0 ]] && sandbox=(-o APT::Sandbox::User=root)
    apt-get -q "${sandbox[@]}" \
        -o Dir::Etc::SourceList="$aptdir/sources.list" \
        -o Dir::Etc::SourceParts="$aptdir/sources.list.d" \
        -o Dir::Etc::Preferences="$aptdir/preferences" \
        -o Dir::Etc::PreferencesParts="$aptdir/preferences.d" \
        -o Dir::State="$aptdir/state" \
        -o Dir::State::Lists="$aptdir/state/lists" \
        -o Dir::State::status="$aptdir/state/status" \
        -o Dir::Cache="$aptdir/cache" \
        -o Dir::Cache::archives="$aptdir/cache/archives" \
        -o APT::Architecture=amd64 \
        -o APT::Architectures::=amd64 \
        -o Debug::NoLocking=1 \
        "$@"
}

_pellucid_private_apt_init() {
    local aptdir="$1" keyring
    mkdir -p "$aptdir/sources.list.d" "$aptdir/preferences.d" "$aptdir/state/lists/partial" \
        "$aptdir/cache/archives/partial"
    : >"$aptdir/preferences"
    [[ -f "$aptdir/state/status" ]] || : >"$aptdir/state/status"
    keyring=/usr/share/keyrings/debian-archive-keyring.gpg
    printf 'deb [arch=amd64 signed-by=%s] %s %s main\n' "$keyring" "$PELLUCID_DEBIAN_MIRROR" \
        "$PELLUCID_DEBIAN_SUITE" >"$aptdir/sources.list"
}

# Path of the unpacked dynamic loader under folder $1 (sid's libc6 ships it under usr/lib).
_pellucid_find_loader() {
    local root="$1" cand
    for cand in "$root"/usr/lib/x86_64-linux-gnu/ld-linux-x86-64.so.2 \
        "$root"/lib/x86_64-linux-gnu/ld-linux-x86-64.so.2 \
        "$root"/usr/lib64/ld-linux-x86-64.so.2 "$root"/lib64/ld-linux-x86-64.so.2; do
        if [[ -e "$cand" ]]; then
            printf '%s\n' "$cand"
            return 0
        fi
    done
    return 1
}

_pellucid_ensure_patchelf() {
    command -v patchelf >/dev/null 2>&1 && return 0
    if [[ "$(id -u)" != 0 ]]; then
        _pellucid_py_log "patchelf is missing and there is no root to install it"
        return 1
    fi
    _pellucid_py_log "apt-get install patchelf"
    DEBIAN_FRONTEND=noninteractive apt-get install -y -qq patchelf >/dev/null 2>&1 \
        || { apt-get update -qq >/dev/null 2>&1 \
            && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq patchelf >/dev/null 2>&1; }
}

# The check a cached interpreter must pass: the stdlib's extension modules load, and a
# subprocess of the interpreter runs.
_PELLUCID_PY_CHECK='
import ssl, sqlite3, ctypes, zlib, lzma, bz2, decimal, hashlib, subprocess, sys
assert decimal.HAVE_CONTEXTVAR is not None and hashlib.sha256(b"").hexdigest()
out = subprocess.run([sys.executable, "-c", "import ssl, sqlite3; print(1)"], capture_output=True,
                     text=True, check=True).stdout
assert out.strip() == "1", out
'

# Print the path of a runnable Debian-sid CPython $1 (e.g. 3.14), fetching it when not cached.
pellucid_ensure_debian_python() {
    local ver="$1" root dest aptdir stamp py want loader rpath pkg
    root="$(_pellucid_cache_root)/python$ver"
    dest="$root/root"
    aptdir="$root/apt"
    stamp="$root/.stamp"
    py="$dest/usr/bin/python$ver"
    local pkgs=("python$ver-minimal" "libpython$ver-minimal" "libpython$ver-stdlib" "libpython$ver"
        "libpython$ver-dev" "${PELLUCID_DEBIAN_LIBS[@]}")
    want="$(printf '%s\n' "$PELLUCID_DEBIAN_SUITE" "$PELLUCID_DEBIAN_MIRROR" "${pkgs[@]}" | sha256sum \
        | cut -d' ' -f1)"
    if [[ -f "$stamp" && "$(cat "$stamp")" == "$want" && -x "$py" ]] && "$py" -c 'pass' 2>/dev/null; then
        printf '%s\n' "$py"
        return 0
    fi
    _pellucid_ensure_patchelf || return 1
    _pellucid_py_log "fetching Python $ver from Debian $PELLUCID_DEBIAN_SUITE into $root"
    rm -rf "$dest" "$root/debs"
    mkdir -p "$dest" "$root/debs"
    _pellucid_private_apt_init "$aptdir"
    if ! _pellucid_private_apt "$aptdir" update >"$root/apt.log" 2>&1; then
        tail -n 20 "$root/apt.log" >&2
        _pellucid_py_log "apt-get update of $PELLUCID_DEBIAN_SUITE failed (log: $root/apt.log)"
        return 1
    fi
    if ! (cd "$root/debs" && _pellucid_private_apt "$aptdir" download "${pkgs[@]}") \
        >>"$root/apt.log" 2>&1; then
        tail -n 20 "$root/apt.log" >&2
        _pellucid_py_log "apt-get download failed (log: $root/apt.log)"
        return 1
    fi
    for pkg in "$root"/debs/*.deb; do
        dpkg-deb -x "$pkg" "$dest" || return 1
    done
    loader="$(_pellucid_find_loader "$dest")" || {
        _pellucid_py_log "no ld-linux-x86-64.so.2 in the unpacked libc6"
        return 1
    }
    rpath="$dest/usr/lib/x86_64-linux-gnu:$dest/lib/x86_64-linux-gnu"
    # patch a copy, so that a failed patch never leaves a half-written binary behind
    cp "$dest/usr/bin/python$ver" "$py.patched" || return 1
    patchelf --force-rpath --set-interpreter "$loader" --set-rpath "$rpath" "$py.patched" || return 1
    mv -f "$py.patched" "$py"
    # Debian's pyconfig.h includes a multiarch one from /usr/include; C extension builds (Inductor)
    # need the real one in the interpreter's own include directory.
    if [[ -f "$dest/usr/include/x86_64-linux-gnu/python$ver/pyconfig.h" ]]; then
        cp -f "$dest/usr/include/x86_64-linux-gnu/python$ver/pyconfig.h" \
            "$dest/usr/include/python$ver/pyconfig.h"
    fi
    if ! "$py" -c "$_PELLUCID_PY_CHECK"; then
        _pellucid_py_log "the fetched Python $ver does not pass its check"
        return 1
    fi
    rm -rf "$root/debs"
    printf '%s\n' "$want" >"$stamp"
    printf '%s\n' "$py"
}

# Print the version of the newest Python other than the Debian ones that has pip (to fetch wheels).
_pellucid_host_pip_python() {
    local cand
    for cand in "${PELLUCID_HOST_PYTHON:-}" python3 /usr/bin/python3; do
        [[ -n "$cand" ]] || continue
        if "$cand" -m pip --version >/dev/null 2>&1; then
            command -v "$cand"
            return 0
        fi
    done
    return 1
}

# Ensure a venv at $2 made with the Debian CPython $1, with pip (Debian's split packages have no
# ensurepip, so pip is bootstrapped from its wheel) and packages "${@:3}" installed.
pellucid_ensure_debian_venv() {
    local ver="$1" venv="$2" py host wheeldir whl
    shift 2
    py="$(pellucid_ensure_debian_python "$ver")" || return 1
    if [[ ! -x "$venv/bin/python" ]] || ! "$venv/bin/python" -c 'pass' >/dev/null 2>&1; then
        rm -rf "$venv"
        "$py" -m venv --without-pip "$venv" || return 1
    fi
    if ! "$venv/bin/python" -m pip --version >/dev/null 2>&1; then
        host="$(_pellucid_host_pip_python)" || {
            _pellucid_py_log "no Python with pip to fetch pip's wheel"
            return 1
        }
        wheeldir="$(_pellucid_cache_root)/wheels"
        mkdir -p "$wheeldir"
        whl="$(find "$wheeldir" -name 'pip-*-py3-none-any.whl' | sort -V | tail -n1)"
        if [[ -z "$whl" ]]; then
            "$host" -m pip download -q --no-deps --only-binary=:all: -d "$wheeldir" pip || return 1
            whl="$(find "$wheeldir" -name 'pip-*-py3-none-any.whl' | sort -V | tail -n1)"
        fi
        # a pip wheel runs from the zip itself; use it to install pip into the venv
        "$venv/bin/python" "$whl/pip" install -q --no-index "$whl" || return 1
    fi
    if [[ $# -gt 0 ]]; then
        "$venv/bin/python" -m pip install -q --no-input "$@" || return 1
    fi
    printf '%s\n' "$venv/bin/python"
}
