"""The portable level seen through the dynamic analysis: a module the guest cannot load."""

from __future__ import annotations

from pathlib import Path

from codequorum.behaviour.dynamic_analysis import DynamicOptions, run_dynamic
from codequorum.behaviour.sandbox.isolation import PORTABLE_NOTE
from codequorum.judge.dynamic_rules import dynamic_verdicts
from tests.behaviour.test_dynamic_analysis import DURATIONS, in_module
from tests.support.duration_module import standalone


def test_versions_that_need_a_module_the_guest_cannot_load_get_no_verdict(
        tmp_path: Path) -> None:
    source = standalone().replace("import re\n", "import re\nimport numpy\n")
    report = run_dynamic(in_module(tmp_path, source, DURATIONS, "parse_duration"),
                         DynamicOptions(jobs=2, sandbox="portable", use_hypothesis=False,
                                        scaling=False))
    assert report.notes[0] == PORTABLE_NOTE
    assert [v.code for v in dynamic_verdicts(report)] == ["not-run-in-module", "not-run"]
    assert dynamic_verdicts(report)[0].message.startswith(
        "not run: the module `app` did not load in the sandbox: its top level raised "
        "ModuleNotFoundError: No module named 'numpy'")
