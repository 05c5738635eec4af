"""The default level: strict where the kernel gives it, else portable, and said so."""

from __future__ import annotations

import pytest

from codequorum.behaviour.dynamic_analysis import DynamicOptions, run_dynamic
from codequorum.behaviour.sandbox import bwrap, isolation
from codequorum.behaviour.sandbox.isolation import PORTABLE_NOTE
from codequorum.core.model import VersionSet


@pytest.fixture
def no_bubblewrap(monkeypatch: pytest.MonkeyPatch) -> None:
    """A machine without bubblewrap (as macOS, Windows, a locked-down container)."""
    monkeypatch.setattr(bwrap, "find_bwrap", lambda: None)
    monkeypatch.setattr(isolation, "_cache", {})


def test_auto_is_strict_where_the_kernel_gives_it() -> None:
    assert isolation.choose(None, "auto") == ("strict", "")


def test_a_level_asked_by_name_is_kept() -> None:
    assert isolation.choose(None, "weak") == ("weak", "")
    assert isolation.choose(None, "portable") == ("portable", "")


@pytest.mark.usefixtures("no_bubblewrap")
def test_auto_is_portable_without_the_strict_sandbox_and_says_why() -> None:
    assert isolation.choose(None, "auto") == (
        "portable", "the strict sandbox is not available here (this machine has no "
        "bubblewrap): versions run in the portable sandbox")
    assert isolation.require(None, "auto").layers[0] == "wasm"
    with pytest.raises(Exception, match="cannot isolate candidates"):
        isolation.require(None, "strict")  # asked by name: no silent downgrade


@pytest.mark.usefixtures("no_bubblewrap")
def test_a_report_run_by_auto_names_the_level_and_the_reason() -> None:
    codes = ["def f(x):\n    '''\n    >>> f(2)\n    4\n    '''\n    return x * 2\n",
             "def f(x):\n    '''\n    >>> f(2)\n    4\n    '''\n    return x + 2\n"]
    version = VersionSet.from_codes("doubling", codes)
    report = run_dynamic(version, DynamicOptions(use_hypothesis=False, scaling=False))
    assert report.notes[:2] == [
        "the strict sandbox is not available here (this machine has no bubblewrap): "
        "versions run in the portable sandbox", PORTABLE_NOTE]
    assert "wasm" in report.layers
