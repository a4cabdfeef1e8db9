#!/usr/bin/env bash
# Sourced by the benchmark scripts: installs the Debian packages they need (through the
# repository's scripts/bootstrap) and creates bench/.venv with Pillow for corpus.py.
# Defines BENCH (this folder), OUT (bench/out) and PYTHON (the venv's interpreter).

BENCH=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
OUT=$BENCH/out
PYTHON=$BENCH/.venv/bin/python

bench_setup() {
    "$BENCH/../scripts/bootstrap" python3-venv nginx aria2 curl time
    if ! "$PYTHON" -c 'import PIL' 2>/dev/null; then
        echo "setup: creating $BENCH/.venv with Pillow" >&2
        python3 -m venv "$BENCH/.venv"
        "$BENCH/.venv/bin/pip" install --quiet Pillow >&2
    fi
    mkdir -p "$OUT"
}
