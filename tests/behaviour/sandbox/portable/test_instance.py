"""One guest's store and instance (``instance.py``): what the guest server grants a guest
is what the guest reads."""

from __future__ import annotations

import importlib.util
import threading
import types
from pathlib import Path
from typing import Any

import pytest

from codequorum.behaviour.sandbox import check_grader, protocol
from codequorum.behaviour.sandbox.portable import guest, interpreter, processes


def _instance() -> Any:
    path = Path(interpreter.__file__).with_name("instance.py")
    spec = importlib.util.spec_from_file_location("_cq_instance", path)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_the_guest_and_the_server_name_the_inbox_alike() -> None:
    instance = _instance()
    assert guest.INBOX_FLAG == instance.INBOX_FLAG
    assert f"{instance.GUEST_INBOX}/{instance.INBOX_FILE}" == guest.INBOX
    assert protocol.encode_frame(
        {"type": check_grader.END}) == processes.host_module().Served.END


#: In place of the guest's script: read the inbox through the descriptor its flag names.
PROBE = ("import os, sys\n"
         "fd = int(sys.argv[sys.argv.index('--inbox') + 1])\n"
         "os.write(1, os.read(os.open('in', os.O_RDONLY, dir_fd=fd), 100))\n")


@pytest.mark.parametrize("with_view", [False, True], ids=["grader", "version"])
def test_the_inbox_descriptor_is_the_folder_granted_last(
        tmp_path: Path, with_view: bool, monkeypatch: pytest.MonkeyPatch) -> None:
    """A served guest waits on a poll of the descriptor its ``--inbox`` flag names: it
    must be its ``/inbox``, or the poll would be answered at once and the guest would spin
    instead of waiting."""
    import wasmtime

    instance = _instance()
    inbox = tmp_path / "inbox"
    inbox.mkdir()
    (inbox / instance.INBOX_FILE).write_bytes(b"the inbox")
    (inbox / "probe.py").write_text(PROBE, encoding="utf-8")
    monkeypatch.setattr(instance, "GUEST_SCRIPT", f"{instance.GUEST_INBOX}/probe.py")
    view = tmp_path / "view"
    view.mkdir()
    compiled = interpreter.compiled_module()
    engine = interpreter.make_engine()
    shared = types.SimpleNamespace(wasmtime=wasmtime, engine=engine,
                                   module=wasmtime.Module.deserialize_file(engine, str(compiled)))
    config = instance.configure(wasmtime.WasiConfig(), not with_view,
                                str(interpreter.stdlib_root(compiled)),
                                str(interpreter.harness_bundle(compiled)),
                                str(view) if with_view else None, str(inbox))
    out: list[bytes] = []
    state = types.SimpleNamespace(halt=False, wake=threading.Event(), stores=[], meter=None)
    instance.run_guest(shared, config, (10**10, 256 << 20, 30.0), state,
                       {1: out.append, 2: out.append})
    assert b"".join(out) == b"the inbox"
