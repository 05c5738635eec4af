"""The Neovim recipes of docs/editors.md, run in the real ``nvim`` against the real server.

The ``vim.lsp.start_client`` recipe is copied from the documentation as it stands into
``after/ftplugin/python.lua`` of a throw-away configuration folder; a headless Neovim opens a
Python file, the recipe starts ``codequorum lsp``, and ``neovim_driver.lua`` adds versions,
saves, and records the diagnostics and the hover Neovim receives.

nvim-lspconfig is not packaged for Debian and is not fetched here, so the lspconfig recipe is
loaded against a recording stand-in for ``lspconfig.configs`` / ``lspconfig.util``: that
checks it is valid Lua for the Neovim at hand and that what it hands to lspconfig (command,
file types, root patterns, settings) is what the server understands.
"""

from __future__ import annotations

import json
import os
import re
import shutil
import subprocess
import sys
from pathlib import Path
from typing import Any

import jsonschema
import pytest

from tests.lsp.helpers import humaneval_task
from tests.support.processes import exit_words

from .recipes import CURRENT_BODY, doc_block

HERE = Path(__file__).resolve().parent
REPO = HERE.parents[1]
SCHEMA = REPO / "shared" / "settings.schema.json"
NVIM = shutil.which("nvim")
TIMEOUT_S = 30

pytestmark = pytest.mark.skipif(
    NVIM is None, reason="nvim is not installed (scripts/test.sh installs it with apt-get as root)"
)

def flatten(prefix: str, value: Any) -> dict[str, Any]:
    """``{"a": {"b": 1}}`` -> ``{"prefix.a.b": 1}`` (the schema's flat keys)."""
    if isinstance(value, dict) and value:
        flat: dict[str, Any] = {}
        for key, inner in value.items():
            flat.update(flatten(f"{prefix}.{key}", inner))
        return flat
    return {prefix: value}


def assert_valid_settings(settings: dict[str, Any]) -> None:
    """Every key and value is one the server's settings schema accepts."""
    schema = json.loads(SCHEMA.read_text(encoding="utf-8"))
    flat = {k: v for k, v in flatten("codequorum", settings).items() if v != {}}
    assert set(flat) <= set(schema["properties"]), set(flat) - set(schema["properties"])
    jsonschema.validate(flat, schema)


def nvim_env(home: Path) -> dict[str, str]:
    """A private configuration, data, state and cache folder, the venv's scripts first."""
    env = {k: v for k, v in os.environ.items() if not k.startswith(("NVIM", "VIM", "XDG_"))}
    for name in ("CONFIG", "DATA", "STATE", "CACHE"):
        folder = home / name.lower()
        folder.mkdir(parents=True, exist_ok=True)
        env[f"XDG_{name}_HOME"] = str(folder)
    env["PATH"] = os.pathsep.join([str(Path(sys.executable).parent), env.get("PATH", "")])
    env["PYTHONPATH"] = str(REPO / "server")
    return env


def run_nvim(
    args: list[str], env: dict[str, str], cwd: Path, init: Path
) -> subprocess.CompletedProcess[str]:
    assert NVIM is not None
    return subprocess.run(
        [NVIM, "--headless", "-i", "NONE", "-u", str(init), *args],
        cwd=cwd,
        env=env,
        stdin=subprocess.DEVNULL,
        capture_output=True,
        text=True,
        timeout=TIMEOUT_S,
        check=False,
    )


def lsp_log(home: Path) -> str:
    logs = sorted(home.rglob("lsp.log"))
    return logs[0].read_text(encoding="utf-8", errors="replace")[-4000:] if logs else "(no lsp.log)"


def test_start_client_recipe(tmp_path: Path, shared_dir: Path) -> None:
    # the recipe runs `codequorum lsp` from PATH: the console script of `pip install -e .`
    assert shutil.which("codequorum", path=str(Path(sys.executable).parent)), "pip install -e ."
    task = humaneval_task(str(shared_dir), "HumanEval/0")
    doc = task["prompt"] + CURRENT_BODY
    versions = [task["prompt"] + s for s in task["samples"][:5]]

    home = tmp_path / "home"
    env = nvim_env(home)
    config = home / "config" / "nvim"
    ftplugin = config / "after" / "ftplugin" / "python.lua"
    ftplugin.parent.mkdir(parents=True)
    ftplugin.write_text(doc_block("### Neovim 0.7 and later: `vim.lsp.start_client`", "lua"))
    init = config / "init.lua"
    init.write_text("")  # the recipe lives in ftplugin/, as the documentation says

    workspace = tmp_path / "project"
    workspace.mkdir()
    (workspace / "pyproject.toml").write_text("[project]\nname = 'demo'\n")
    (workspace / "pkg").mkdir()
    module = workspace / "pkg" / "mod.py"
    other = workspace / "pkg" / "other.py"
    other.write_text("def other(x):\n    return x\n")
    module.write_text(doc, encoding="utf-8")
    name_line = doc[: doc.index("def has_close_elements")].count("\n")
    name_col = len("def ")

    io_in, io_out = tmp_path / "in.json", tmp_path / "out.json"
    io_in.write_text(
        json.dumps(
            {
                "qualified_name": "has_close_elements",
                "samples": versions,
                "hover_line": name_line,
                "hover_character": name_col + 3,
                "second_file": str(other),
                "timeout_ms": 20000,
            }
        )
    )
    env["CQ_NVIM_INPUT"], env["CQ_NVIM_OUTPUT"] = str(io_in), str(io_out)

    proc = run_nvim(
        ["-c", f"luafile {HERE / 'neovim_driver.lua'}", str(module)], env, tmp_path, init
    )
    assert io_out.is_file(), (f"nvim wrote nothing ({exit_words(proc.returncode)}): "
                              f"{proc.stderr}\n{lsp_log(home)}")
    out = json.loads(io_out.read_text())
    assert "error" not in out, f"{out}\n{lsp_log(home)}"
    assert out["steps"] == [
        "attached", "added", "saved", "diagnostics", "hover", "actions", "second"
    ]
    assert out["filetype"] == "python"
    assert out["clients"] == 1
    # started from the folder above the project: the root is found from the file, not the cwd
    assert out["cwd"] == str(tmp_path)
    assert out["root_dir"] == str(workspace)
    assert (workspace / ".codequorum" / "samples.sqlite3").is_file()
    assert out["added"] == {
        "uri": module.as_uri(),
        "qualifiedName": "has_close_elements",
        "added": 5,
        "total": 5,
    }

    [diag] = out["diagnostics"]
    assert diag["code"] == "outlier-current"
    assert diag["source"] == "codequorum"
    assert diag["severity"] == 2  # vim.diagnostic.severity.WARN
    assert (diag["lnum"], diag["col"]) == (name_line, name_col)
    assert (diag["end_lnum"], diag["end_col"]) == (name_line, name_col + len("has_close_elements"))
    figure = re.search(r"JSD (\d\.\d\d) to the others", diag["message"])
    assert figure is not None, diag["message"]
    assert 0 < float(figure.group(1)) < 0.85

    hover = out["hover"]
    assert hover.split("\n")[0].startswith(
        "**codequorum** · `has_close_elements` · 5 versions + your code · "
    ), hover
    assert "`outlier-current`" in hover
    assert re.search(r"- consensus: \*\*v[1-5]\*\*", hover), hover

    # Neovim 0.7 names no code lenses in its capabilities: the commands come as actions,
    # after the edits (asked once the hover was complete, so the edits are there)
    kinds = [a["kind"] for a in out["actions"]]
    assert kinds[0] == "refactor.rewrite"  # no diagnostics in the context: no quick fix
    assert [(a["title"], a["command"]) for a in out["actions"] if a["kind"] == "source.codequorum"
            ] == [
        ("Compare the versions of `has_close_elements`", "codequorum.compare"),
        ("Run the versions of `has_close_elements` in the sandbox", "codequorum.runDynamic"),
        ("Regenerate `has_close_elements`: ask for more versions", "codequorum.regenerate"),
        ("Clear the 5 stored versions of `has_close_elements`", "codequorum.deleteVersions"),
    ]

    # the recipe's init_options are settings the server accepts
    assert out["init_options"]["provider"]["model"] == "qwen2.5-coder:7b"
    assert_valid_settings(out["init_options"])
    assert out["second_client_same"] is True
    assert out["clients_after_second"] == 1


LSPCONFIG_STUB = r"""
-- Records what the recipe gives nvim-lspconfig (which is not installed here).
local recorded = { setup = nil, root_patterns = nil }
local configs = setmetatable({}, {
  __newindex = function(t, name, value)
    recorded.name = name
    recorded.default_config = value.default_config
    rawset(t, name, {
      setup = function(opts) recorded.setup = opts end,
    })
  end,
})
package.preload["lspconfig.configs"] = function() return configs end
package.preload["lspconfig.util"] = function()
  return {
    root_pattern = function(...)
      recorded.root_patterns = { ... }
      return function() return nil end
    end,
  }
end
package.preload["lspconfig"] = function()
  return setmetatable({}, { __index = function(_, name) return configs[name] end })
end
local ok, err = pcall(dofile, vim.env.CQ_RECIPE)
if not ok then recorded.error = tostring(err) end
local cfg = recorded.default_config
if cfg ~= nil then cfg.root_dir = type(cfg.root_dir) end
vim.fn.writefile({ vim.fn.json_encode(recorded) }, vim.env.CQ_NVIM_OUTPUT)
vim.cmd("qall!")
"""


def test_lspconfig_recipe_shape(tmp_path: Path) -> None:
    home = tmp_path / "home"
    env = nvim_env(home)
    recipe = tmp_path / "recipe.lua"
    recipe.write_text(doc_block("### nvim-lspconfig style", "lua"))
    stub = tmp_path / "stub.lua"
    stub.write_text(LSPCONFIG_STUB)
    init = tmp_path / "init.lua"
    init.write_text("")
    out_path = tmp_path / "out.json"
    env["CQ_RECIPE"], env["CQ_NVIM_OUTPUT"] = str(recipe), str(out_path)

    proc = run_nvim(["-c", f"luafile {stub}"], env, tmp_path, init)
    assert out_path.is_file(), f"nvim {exit_words(proc.returncode)}: {proc.stderr}"
    out = json.loads(out_path.read_text())
    assert "error" not in out, out["error"]
    assert out["name"] == "codequorum"
    cfg = out["default_config"]
    assert cfg["cmd"] == ["codequorum", "lsp"]
    assert "python" in cfg["filetypes"]
    assert cfg["root_dir"] == "function"
    assert out["root_patterns"] == [".codequorum", "pyproject.toml", ".git"]
    assert cfg["single_file_support"] is True
    assert_valid_settings(out["setup"]["settings"]["codequorum"])
