#!/usr/bin/env bash
# Set up everything the tests need from nothing but this repo, then run them all.
set -euo pipefail
cd "$(dirname "$0")/.."
PY="${PYTHON:-python3}"
if [ ! -x .venv/bin/python ]; then
  "$PY" -m venv .venv
fi
.venv/bin/python -m pip install --quiet --upgrade pip
.venv/bin/python -m pip install --quiet -e '.[dev]'
# The published reference implementations, for cross-checks (their own dependency on
# tree-sitter-language-pack downloads grammars at run time, so it is left out).
.venv/bin/python -m pip install --quiet --no-deps -r bench/requirements.txt
.venv/bin/ruff check server tests bench
.venv/bin/mypy
.venv/bin/python -m pytest -q
if [ -f package-lock.json ]; then
  npm ci --no-audit --no-fund
  npm test
  npm run package
fi
