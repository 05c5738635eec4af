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
# The tests start the language server, the CLI and the MCP server a few hundred times: each
# start reads the package's compiled modules instead of compiling them again (an editable
# install compiles nothing), and pytest keeps the test modules it rewrote for its assertions
# (each worker rewrote all of them, 20 seconds, on a machine that sets PYTHONDONTWRITEBYTECODE).
unset PYTHONDONTWRITEBYTECODE
.venv/bin/python -m compileall -q -j 0 -x /fixtures/ server/codequorum tests bench > /dev/null
mkdir -p .cache
# A step that fails ends the run: what still runs beside it ends with it.
trap 'kill $(jobs -p) 2>/dev/null || true' EXIT
# What downloads (Debian packages, the VS Code end-to-end tools) and what compiles (the local
# model server) run beside the checks below, each into its own log, printed when it is awaited:
# the whole check takes what its slowest part takes, not their sum.
#
# The editor tests run the real Neovim and a real Emacs with eglot, the report's tests a headless
# Chromium; install them when they are missing and we can (as root with apt-get). If that fails
# the tests that need them are skipped, with the reason.
emacs_has_eglot() {
  command -v emacs >/dev/null \
    && emacs --batch -q --eval "(progn (require 'package) (package-initialize) (require 'eglot))" >/dev/null 2>&1
}
apt_packages=()
command -v nvim >/dev/null || apt_packages+=(neovim)
emacs_has_eglot || apt_packages+=(emacs-nox elpa-eglot)
command -v chromium >/dev/null || apt_packages+=(chromium)
dpkg -s libkrb5-dev >/dev/null 2>&1 || apt_packages+=(libkrb5-dev)
install_packages() {
  if [ "${#apt_packages[@]}" -gt 0 ] && [ "$(id -u)" = 0 ] && command -v apt-get >/dev/null; then
    { apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends "${apt_packages[@]}"; } \
      >/dev/null 2>&1 || echo "scripts/test.sh: could not install ${apt_packages[*]}; the tests that need them will be skipped" >&2
  fi
}
install_packages > .cache/packages.log 2>&1 &
packages=$!
# The local model server the real-model tests start (its own virtual environment; the
# llama-cpp-python wheel is built once into ~/.cache/codequorum/wheels and reused). When it
# cannot be set up, it says why and those tests are skipped with the reason.
bash scripts/real-model.sh > .cache/real-model.log 2>&1 &
real_model=$!
# The editor client's checks (its unit tests, some against the real language server) and its
# package, beside the Python checks below: the package is what the end-to-end test installs.
js_client=""
if [ -f package-lock.json ]; then
  { npm ci --no-audit --no-fund && npm test && npm run package; } > .cache/js-client.log 2>&1 &
  js_client=$!
fi
# What every test would otherwise compile on first use, compiled once beside the checks: the
# portable sandbox's interpreter (CPython for WASI) and its harness, the tree edit distance's
# numba kernels, which the first command of the README compiles into the package's cache (each
# process that started before they were cached compiled them again), and the test modules as
# pytest rewrites them (collected once here, both workers read them).
export CODEQUORUM_WASM_CACHE="${CODEQUORUM_WASM_CACHE:-$(mktemp -d)}"
warm_caches() {
  .venv/bin/python -c "from codequorum.behaviour.sandbox.portable import interpreter as i
print('portable sandbox ready:', i.harness_bundle(i.compiled_module()))"
  .venv/bin/codequorum demo > /dev/null && echo "numba kernels compiled (codequorum demo ran)"
  .venv/bin/python -m pytest --collect-only -q -p no:cacheprovider | tail -1
}
warm_caches > .cache/warm.log 2>&1 &
warm=$!
# awaited PID LOG: wait for a background step and print what it wrote.
awaited() {
  wait "$1" || true
  cat "$2"
}
.venv/bin/ruff check server tests bench
.venv/bin/mypy
# Every import points down the layers (the contracts in pyproject.toml).
.venv/bin/lint-imports --no-cache
# Every generated file is current (docs tables, shared schemas, the extension's generated code).
.venv/bin/python scripts/generate --check
awaited "$packages" .cache/packages.log
awaited "$real_model" .cache/real-model.log
awaited "$warm" .cache/warm.log
if [ -n "$js_client" ]; then
  js_status=0
  wait "$js_client" || js_status=$?
  cat .cache/js-client.log
  [ "$js_status" = 0 ] || { echo "scripts/test.sh: the editor client's checks failed" >&2; exit "$js_status"; }
fi
# The package in a real VS Code (code-server in headless Chromium; docs/vscode.md), beside the
# Python tests: it spends its time waiting on the browser and the editor, not on the
# processors. Its tools (Node 24, code-server) install first, at the lowest priority; they are
# cached, and when they cannot be installed or started it says "skipped" and why.
# CODEQUORUM_E2E_VSCODE=0 leaves it out.
e2e_vscode() {
  if ! nice -n 19 bash scripts/e2e-vscode.sh install > .cache/e2e-install.log 2>&1; then
    cat .cache/e2e-install.log
    echo "scripts/test.sh: could not install the VS Code end-to-end tools: skipped"
    return 0
  fi
  cat .cache/e2e-install.log
  bash scripts/e2e-vscode.sh
}
e2e=""
if [ -n "$js_client" ] && [ "${CODEQUORUM_E2E_VSCODE:-1}" != 0 ]; then
  e2e_vscode > .cache/e2e-vscode.log 2>&1 &
  e2e=$!
fi
# The Python tests on two workers (pytest-xdist; one a processor, up to four where there are
# more): their time goes to the sandboxes, servers and subprocesses they start, and a worker
# that runs out of tests takes some of the other's, so all end together. Every test's time is kept in .cache/pytest.xml
# (scripts/test-times sums it by file) to see where the run's time goes.
echo "scripts/test.sh: the Python tests start after $SECONDS s of setup"
workers=$(nproc 2>/dev/null || echo 2)
[ "$workers" -ge 2 ] || workers=2
[ "$workers" -le 4 ] || workers=4
.venv/bin/python -m pytest -q -n "$workers" --dist worksteal --durations=15 -p no:cacheprovider \
  --junitxml=.cache/pytest.xml
if [ -n "$e2e" ]; then
  e2e_status=0
  wait "$e2e" || e2e_status=$?
  cat .cache/e2e-vscode.log
  exit "$e2e_status"
fi
