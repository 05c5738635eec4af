"""Shared test fixtures: the reference data (kept in ``tests/fixtures/``), and a real local
model."""

from __future__ import annotations

import os
from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.support.fixtures import REFERENCE, unpack_reference_data
from tests.support.real_model import ModelServer, RecordingProxy, Unavailable, server_python


@pytest.fixture(scope="session")
def shared_dir(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The repository's reference data laid out in a session folder: the real CodeGen
    versions decompressed as ``data/humaneval_codegen16b_t0.8.jsonl`` and the published
    implementations' values as ``fixtures/reference/`` (both from ``tests/fixtures/``)."""
    return unpack_reference_data(tmp_path_factory.mktemp("reference-data"))


@pytest.fixture(scope="session")
def reference_dir() -> Path:
    """``tests/fixtures/reference``: values from the published implementations."""
    return REFERENCE


@pytest.fixture(autouse=True)
def _own_user_config(tmp_path_factory: pytest.TempPathFactory,
                     monkeypatch: pytest.MonkeyPatch) -> None:
    """Every test gets an empty user configuration folder: a developer's own
    ``~/.config/codequorum`` (configuration, approvals) never changes a result."""
    monkeypatch.setenv("XDG_CONFIG_HOME", str(tmp_path_factory.mktemp("xdg-config")))


@pytest.fixture(autouse=True)
def _no_activated_environment(monkeypatch: pytest.MonkeyPatch) -> None:
    """No environment activated by whoever runs the tests (``VIRTUAL_ENV``, conda's
    ``CONDA_PREFIX``): a module's view would take its packages (``module_view``'s
    ``active_environment``); a test that wants one sets it."""
    for name in ("VIRTUAL_ENV", "CONDA_PREFIX"):
        monkeypatch.delenv(name, raising=False)


@pytest.fixture(autouse=True)
def _no_terminal_width(monkeypatch: pytest.MonkeyPatch) -> None:
    """No ``COLUMNS`` from whoever runs the tests (a terminal, or pytest-xdist's workers,
    which set 80): a test that wants a width sets it."""
    monkeypatch.delenv("COLUMNS", raising=False)


@pytest.fixture(scope="session", autouse=True)
def _wasm_cache(tmp_path_factory: pytest.TempPathFactory) -> Iterator[None]:
    """The portable sandbox's compiled interpreter goes to a folder of the session's (or
    ``$CODEQUORUM_WASM_CACHE`` when set), never the user's cache: the first portable run
    of a session compiles it (30 s to a few minutes on a loaded machine), later ones map it."""
    name = "CODEQUORUM_WASM_CACHE"
    before = os.environ.get(name)
    if not before:
        os.environ[name] = str(tmp_path_factory.mktemp("wasm-cache"))
    yield
    if not before:
        os.environ.pop(name, None)


@pytest.fixture(scope="session")
def real_model(tmp_path_factory: pytest.TempPathFactory) -> Iterator[ModelServer]:
    """llama-cpp-python's server with SmolLM2-135M-Instruct on 127.0.0.1, one for the whole
    session (``base_url``, ``model``). Skipped, with the reason, where it cannot be installed
    (``scripts/real-model.sh`` says why); a server that is installed but does not start
    fails the tests."""
    try:
        python = server_python()
    except Unavailable as exc:
        pytest.skip(f"no local model: {exc}")
    server = ModelServer(python, tmp_path_factory.mktemp("real-model") / "server.log")
    try:
        server.start()
    except Unavailable as exc:
        pytest.fail(f"the local model server does not start: {exc}")
    try:
        yield server
    finally:
        server.stop()


@pytest.fixture
def real_model_proxy(real_model: ModelServer) -> Iterator[RecordingProxy]:
    """The session's local model behind a proxy that records this test's requests."""
    with RecordingProxy(real_model) as proxy:
        yield proxy
