#!/usr/bin/env bash
# Fresh-machine set-up of gpucache, shared by `make demo` and `make test`.
#
#   1. .venv with Python 3.11 (created when missing or broken);
#   2. `pip install -e '.[test]'` (again only when pyproject.toml changed);
#   3. Debian's iverilog, verilator and yosys (apt-get when missing and running
#      as root; otherwise a message saying what to install).
#
# Idempotent, and silent when there is nothing to do.
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."

VENV=.venv
STAMP=$VENV/.gpucache-installed
HDL_TOOLS=(iverilog verilator yosys)

say() { echo "setup: $*" >&2; }
is_root() { [ "$(id -u)" -eq 0 ]; }
can_apt() { is_root && command -v apt-get >/dev/null 2>&1; }

apt_updated=0
apt_install() {
    if [ "$apt_updated" -eq 0 ]; then
        say "apt-get update"
        apt-get update -qq >/dev/null
        apt_updated=1
    fi
    say "apt-get install $*"
    DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends "$@" >/dev/null
}

find_python() {
    local c
    for c in python3.11 python3; do
        if command -v "$c" >/dev/null 2>&1 &&
            "$c" -c 'import sys; sys.exit(sys.version_info[:2] != (3, 11))' 2>/dev/null; then
            echo "$c"
            return 0
        fi
    done
    return 1
}

# --- 1. the virtual environment ---------------------------------------------
if ! "$VENV/bin/python" -c 'import sys; sys.exit(sys.version_info[:2] != (3, 11))' 2>/dev/null; then
    py=$(find_python || true)
    if [ -z "$py" ]; then
        if can_apt; then
            apt_install python3.11 python3.11-venv
            py=$(find_python)
        else
            say "gpucache needs Python 3.11: install it (Debian: sudo apt-get install python3.11 python3.11-venv) and run again"
            exit 1
        fi
    fi
    say "creating $VENV with $($py --version 2>&1)"
    rm -rf "$VENV"
    if ! "$py" -m venv "$VENV" 2>/dev/null; then
        # Debian ships venv's ensurepip separately.
        rm -rf "$VENV"
        if can_apt; then
            apt_install python3.11-venv
            "$py" -m venv "$VENV"
        else
            say "'$py -m venv' failed: install python3.11-venv (sudo apt-get install python3.11-venv) and run again"
            exit 1
        fi
    fi
fi

# --- 2. the package and its test dependencies --------------------------------
want=$(sha256sum pyproject.toml | cut -d' ' -f1)
if [ "$(cat "$STAMP" 2>/dev/null)" != "$want" ] || ! "$VENV/bin/python" -c 'import cli.main, distributed' 2>/dev/null; then
    say "installing gpucache and its test dependencies into $VENV"
    "$VENV/bin/python" -m pip install -q -e '.[test]'
    echo "$want" >"$STAMP"
fi

# --- 3. HDL tools --------------------------------------------------------------
missing=()
for tool in "${HDL_TOOLS[@]}"; do
    command -v "$tool" >/dev/null 2>&1 || missing+=("$tool")
done
if [ "${#missing[@]}" -gt 0 ]; then
    if can_apt; then
        apt_install "${missing[@]}"
    else
        say "missing HDL tools: ${missing[*]}; install them with: sudo apt-get install ${missing[*]}"
        say "(the golden model runs without them; RTL co-simulation and synthesis need them)"
    fi
fi
