"""The one analysis configuration: its defaults are the declared ones, a report and a cache
key name only what a report computes, and a choice no analysis can use is refused."""

from __future__ import annotations

import dataclasses

import pytest

from codequorum.options.declarations import OPTIONS, SETTINGS
from codequorum.pipeline.config import DEFAULTS, FIELDS, RUN_FIELDS, AnalysisConfig


def _field_of_setting(attr: str) -> str | None:
    group, _, name = attr.partition(".")
    return name if group == "analysis" and name in FIELDS else None


def test_every_declared_option_of_a_field_defaults_to_the_configuration() -> None:
    analysed = {"check", "demo", "mcp", "score"}  # the commands that analyse (sample does not)
    declared = [o for o in OPTIONS if o.attribute in FIELDS and o.default is not None
                and o.commands & analysed]
    assert {o.attribute for o in declared} >= {"max_depth", "jsd_log_base", "timeout",
                                               "sandbox", "risk_level", "cluster_threshold",
                                               "outlier_gap"}
    for option in declared:
        assert option.default == getattr(DEFAULTS, option.attribute), option.name


def test_every_analysis_setting_defaults_to_the_configuration() -> None:
    declared = {s.name: field for s in SETTINGS
                if (field := _field_of_setting(".".join(s.path))) and not s.deprecated}
    assert set(declared.values()) >= {"include_current", "max_depth", "metrics", "timeout",
                                      "sandbox"}
    for setting in SETTINGS:
        field = declared.get(setting.name)
        if field is not None:
            default = getattr(DEFAULTS, field)
            assert setting.default == (list(default) if isinstance(default, tuple)
                                       else default), setting.name


def test_a_report_and_a_cache_key_leave_out_the_runs_own_choices() -> None:
    run = dataclasses.replace(DEFAULTS, include_current=False, timeout=3.0, sandbox="weak",
                              risk_level="set")
    assert repr(run) == repr(DEFAULTS)
    assert run.to_dict() == DEFAULTS.to_dict()
    assert not RUN_FIELDS & set(DEFAULTS.to_dict())
    assert repr(DEFAULTS).startswith("AnalysisOptions(max_depth=30, jsd_log_base=2.0, "
                                     "tsed=True, tsed_costs=(1.0, 1.0, 1.0), ")
    deeper = dataclasses.replace(DEFAULTS, max_depth=12)
    assert repr(deeper) != repr(DEFAULTS) and deeper.to_dict()["max_depth"] == 12


@pytest.mark.parametrize(("change", "words"), [
    ({"max_depth": 0}, "max_depth"),
    ({"sandbox": "none"}, "sandbox must be one of auto, strict, portable, weak"),
    ({"risk_level": "model"}, "risk_level must be one of run, set"),
    ({"cluster_threshold": -0.1}, "cluster_threshold"),
])
def test_a_choice_no_analysis_can_use_is_refused(change: dict[str, object], words: str) -> None:
    with pytest.raises(ValueError, match=words):
        AnalysisConfig(**change)  # type: ignore[arg-type]


def test_the_run_level_follows_the_choice_and_needs_a_run() -> None:
    assert DEFAULTS.run_level(dynamic=False) is None
    shipped = DEFAULTS.run_level(dynamic=True)
    each = AnalysisConfig(risk_level="set").run_level(dynamic=True)
    assert shipped is not None and each is not None
    assert (shipped.alone, each.alone) == (False, True)
