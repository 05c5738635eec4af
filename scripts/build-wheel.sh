#!/usr/bin/env bash
# Build the codequorum server wheel (no dependencies inside) into a directory,
# by default client-vscode/server-wheel/, where the VS Code extension package picks it up.
# Works offline when setuptools and wheel are installed in the interpreter used; otherwise
# installs the versions pinned in pyproject.toml [build-system] from the package index.
set -euo pipefail
ROOT="$(cd "$(dirname "$0")/.." && pwd)"
OUT="${1:-$ROOT/client-vscode/server-wheel}"
if [ -n "${PYTHON:-}" ]; then
  PY="$PYTHON"
elif [ -x "$ROOT/.venv/bin/python" ]; then
  PY="$ROOT/.venv/bin/python"
else
  PY="python3"
fi
if ! "$PY" -c "import setuptools, wheel" >/dev/null 2>&1; then
  "$PY" -m pip install --quiet "setuptools==75.8.0" "wheel==0.45.1"
fi
mkdir -p "$OUT"
rm -f "$OUT"/codequorum-*.whl
# Build from a copy so the setuptools build/ and *.egg-info directories never touch the
# working tree.
WORK="$(mktemp -d)"
trap 'rm -rf "$WORK"' EXIT
( cd "$ROOT" && git ls-files -z --cached --others --exclude-standard -- pyproject.toml README.md LICENSE server \
    | xargs -0 -I{} cp --parents {} "$WORK"/ 2>/dev/null || true )
"$PY" -m pip wheel --quiet --no-deps --no-build-isolation -w "$OUT" "$WORK"
ls "$OUT"/codequorum-*.whl >/dev/null
echo "server wheel: $(ls "$OUT"/codequorum-*.whl)"
