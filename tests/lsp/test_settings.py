"""Settings: parsing, validation, and agreement with shared/settings.schema.json."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from codequorum.lsp.settings import (
    CLIENT_ONLY,
    PREFIX,
    SPECS,
    ProviderSettings,
    Settings,
    Spec,
    from_settings,
    parse_settings,
)
from codequorum.metrics.registry import METRIC_CHOICES
from codequorum.pipeline.config import AnalysisConfig

SCHEMA = Path(__file__).resolve().parents[2] / "shared" / "settings.schema.json"


@pytest.fixture(scope="module")
def schema() -> dict[str, Any]:
    loaded: dict[str, Any] = json.loads(SCHEMA.read_text(encoding="utf-8"))
    return loaded


def test_schema_and_dataclass_name_the_same_settings(schema: dict[str, Any]) -> None:
    names = set(schema["properties"])
    server_side = {
        n for n in names if schema["properties"][n].get("x-codequorum-scope") != "client"
    }
    assert server_side == {PREFIX + s.key for s in SPECS}
    assert names - server_side == {PREFIX + k for k in CLIENT_ONLY}


@pytest.mark.parametrize("spec", SPECS, ids=lambda s: s.key)
def test_schema_default_type_and_bounds_match(schema: dict[str, Any], spec: Spec) -> None:
    prop = schema["properties"][PREFIX + spec.key]
    default = spec.default
    assert prop["default"] == (list(default) if isinstance(default, tuple) else default)
    expected_type = {"integer?": ["integer", "null"], "boolean?": ["boolean", "null"],
                     "strings": "array"}.get(spec.kind, spec.kind)
    assert prop["type"] == expected_type
    enum = prop["items"].get("enum", ()) if spec.kind == "strings" else prop.get("enum", ())
    assert tuple(enum) == spec.enum
    if spec.exclusive_minimum:
        assert prop["exclusiveMinimum"] == spec.minimum
    else:
        assert prop.get("minimum") == spec.minimum
    assert prop.get("maximum") == spec.maximum
    assert prop["description"]


def test_defaults_when_nothing_given() -> None:
    settings, warnings = parse_settings(None)
    assert settings == Settings()
    assert warnings == []
    assert settings.provider.versions == 5
    assert settings.code_lens.show_for_all is False


def test_nested_flat_and_prefixed_forms_are_read() -> None:
    nested, w1 = parse_settings(
        {"provider": {"model": "m1", "versions": 3}, "hover": {"diffLines": 4}}
    )
    flat, w2 = parse_settings(
        {"codequorum.provider.model": "m1", "provider.versions": 3, "codequorum.hover.diffLines": 4}
    )
    wrapped, w3 = parse_settings(
        {"codequorum": {"provider": {"model": "m1", "versions": 3}, "hover": {"diffLines": 4}}}
    )
    assert nested == flat == wrapped
    assert (w1, w2, w3) == ([], [], [])
    assert nested.provider.model == "m1"
    assert nested.provider.versions == 3
    assert nested.hover.diff_lines == 4
    assert nested.provider.temperature == 0.8


def test_invalid_values_fall_back_to_defaults_with_a_warning_naming_the_key() -> None:
    settings, warnings = parse_settings(
        {
            "provider": {"versions": "many", "temperature": 9, "seed": 1.5, "timeout": 0},
            "diagnostics": {"minSeverity": "loud", "enable": "yes"},
            "codeLens": {"showForAll": True},
        }
    )
    assert settings.provider.versions == 5
    assert settings.provider.temperature == 0.8
    assert settings.provider.seed is None
    assert settings.provider.timeout == 60.0
    assert settings.diagnostics.min_severity == "hint"
    assert settings.diagnostics.enable is True
    assert settings.code_lens.show_for_all is True
    text = "\n".join(warnings)
    for key in (
        "provider.versions",
        "provider.temperature",
        "provider.seed",
        "provider.timeout",
        "diagnostics.minSeverity",
        "diagnostics.enable",
    ):
        assert f"codequorum.{key}" in text
    assert len(warnings) == 6
    assert "must be at most 2" in text
    assert "expected one of error, warning, information, hint" in text


def test_unknown_keys_are_reported_client_only_keys_are_not() -> None:
    settings, warnings = parse_settings(
        {"provider": {"modle": "x"}, "server": {"command": ["x"]}, "trace": {"server": "off"}}
    )
    assert settings == Settings()
    assert warnings == ["unknown setting codequorum.provider.modle ignored"]


def test_extension_settings_are_accepted_and_ignored() -> None:
    nested, w1 = parse_settings(
        {
            "interpreter": "/usr/bin/python3",
            "languageModel": {"vendor": "copilot", "family": "gpt-4o"},
            "statusBar": {"enable": False},
            "provider": {"versions": 4},
        }
    )
    flat, w2 = parse_settings({"codequorum.interpreter": "", "codequorum.statusBar.enable": True})
    assert (w1, w2) == ([], [])
    assert nested == Settings(provider=ProviderSettings(versions=4))
    assert flat == Settings()


def test_retries_and_n_choices_are_read_and_checked() -> None:
    settings, warnings = parse_settings({"provider": {"maxRetries": 5, "useN": True}})
    assert (settings.provider.max_retries, settings.provider.use_n, warnings) == (5, True, [])
    settings, warnings = parse_settings({"provider": {"maxRetries": 11, "useN": "yes"}})
    assert (settings.provider.max_retries, settings.provider.use_n) == (2, False)
    assert len(warnings) == 2 and "codequorum.provider.maxRetries = 11" in warnings[0]


def test_not_an_object_gives_defaults() -> None:
    settings, warnings = parse_settings(["a"])
    assert settings == Settings()
    assert "must be an object" in warnings[0]


def test_base_settings_are_kept_for_missing_keys() -> None:
    base, _ = parse_settings({"provider": {"model": "base-model", "versions": 7}})
    settings, warnings = parse_settings({"provider": {"versions": 2}}, base)
    assert warnings == []
    assert settings.provider.model == "base-model"
    assert settings.provider.versions == 2


def test_whole_float_is_accepted_for_integers_and_seed_null() -> None:
    settings, warnings = parse_settings({"provider": {"versions": 4.0, "seed": None}})
    assert warnings == []
    assert settings.provider.versions == 4
    assert isinstance(settings.provider.versions, int)
    assert settings.provider.seed is None


def test_the_analysis_settings_are_the_engines_configuration() -> None:
    settings, warnings = parse_settings({"analysis": {"maxDepth": 7, "includeCurrent": False},
                                         "dynamic": {"timeout": 3, "sandbox": "portable"}})
    assert warnings == []
    assert from_settings(settings) == AnalysisConfig(max_depth=7, include_current=False,
                                                     timeout=3.0, sandbox="portable")
    assert from_settings(Settings()) == AnalysisConfig()


def test_sandbox_level_reaches_the_session() -> None:
    from codequorum.lsp.engine import session_config

    assert session_config(parse_settings(None)[0]).analysis.sandbox == "auto"
    weak, warnings = parse_settings({"dynamic": {"sandbox": "weak"}})
    assert warnings == [] and session_config(weak).analysis.sandbox == "weak"
    portable, warnings = parse_settings({"dynamic": {"sandbox": "portable"}})
    assert warnings == [] and session_config(portable).analysis.sandbox == "portable"
    bad, warnings = parse_settings({"codequorum.dynamic.sandbox": "none"})
    assert bad.analysis.sandbox == "auto"
    assert warnings == [
        'invalid setting codequorum.dynamic.sandbox = "none": expected one of auto, strict, '
        'portable, weak; using the default "auto"'
    ]


def test_trusted_is_read_apart_from_the_schema_settings() -> None:
    settings, warnings = parse_settings({"trusted": False, "provider": {"model": "m"}})
    assert settings.trusted is False and settings.provider.model == "m" and warnings == []
    kept, _ = parse_settings({"hover": {"enable": False}}, settings)
    assert kept.trusted is False
    odd, warnings = parse_settings({"trusted": "yes"})
    assert odd.trusted is False
    assert warnings == ['invalid trusted = "yes": expected true or false']


def test_propose_inputs_is_off_by_default_and_asks_the_provider_endpoint() -> None:
    assert parse_settings(None)[0].dynamic.propose_inputs is False
    settings, warnings = parse_settings(
        {"dynamic": {"proposeInputs": True},
         "provider": {"baseUrl": "http://127.0.0.1:9/v1", "apiKeyEnv": "", "timeout": 7}}
    )
    assert warnings == [] and settings.dynamic.propose_inputs is True
    config = settings.provider.config()
    assert (config.base_url, config.api_key_env, config.timeout, config.versions) == (
        "http://127.0.0.1:9/v1", None, 7.0, 5)
    assert settings.provider.config(versions=2).versions == 2
    bad, warnings = parse_settings({"codequorum.dynamic.proposeInputs": "yes"})
    assert bad.dynamic.propose_inputs is False
    assert warnings == ['invalid setting codequorum.dynamic.proposeInputs = "yes": expected '
                        "true or false; using the default false"]


def test_metrics_is_one_choice_of_the_registry_names() -> None:
    settings, warnings = parse_settings({"analysis": {"metrics": ["textual", "tsed_08"]}})
    assert (settings.analysis.metrics, warnings) == (("tsed_08", "textual"), [])
    assert Settings().analysis.metrics == ("tsed", "textual")
    bad, warnings = parse_settings({"analysis": {"metrics": ["tsed", "lcs"]}})
    assert bad.analysis.metrics == ("tsed", "textual")
    assert warnings == ['invalid setting codequorum.analysis.metrics = ["tsed", "lcs"]: '
                        f'unknown "lcs": expected some of {", ".join(METRIC_CHOICES)}; using '
                        'the default ["tsed", "textual"]']
    bad, warnings = parse_settings({"analysis": {"metrics": "tsed"}})
    assert bad.analysis.metrics == ("tsed", "textual")
    assert "expected a list of strings" in warnings[0]


@pytest.mark.parametrize(("raw", "metrics"), [
    ({"tsed": False}, ("textual",)),
    ({"tsed": False, "metrics": ["tsed", "tsed_08"]}, ("tsed_08",)),
    ({"tsed": True, "metrics": []}, ("tsed",)),
])
def test_the_deprecated_tsed_still_works_and_says_so(raw: dict[str, Any],
                                                     metrics: tuple[str, ...]) -> None:
    settings, warnings = parse_settings({"analysis": raw})
    assert settings.analysis.metrics == metrics
    assert warnings == ["codequorum.analysis.tsed is deprecated: use "
                        "codequorum.analysis.metrics"]


def test_the_deprecated_tsed_left_null_changes_nothing_and_says_nothing() -> None:
    # VS Code sends every declared setting, a deprecated one at its default (null) too
    base, _ = parse_settings({"analysis": {"metrics": ["tsed_08"]}})
    settings, warnings = parse_settings({"analysis": {"tsed": None}}, base)
    assert (settings.analysis.metrics, warnings) == (("tsed_08",), [])
    over, _ = parse_settings({"analysis": {"tsed": False}}, base)
    assert over.analysis.metrics == ("tsed_08",)


def test_the_typed_settings_are_the_declared_ones_with_their_defaults() -> None:
    """Each group's fields and defaults are the settings declared in
    ``options/declarations.py`` (a deprecated spelling and the client's own settings
    aside), and a field that takes a few names takes the declared ones. The analysis group
    is the engine's whole configuration: its choices without a setting keep their defaults."""
    import dataclasses
    import typing

    from codequorum.options.declarations import SETTINGS

    declared = {s.path: s for s in SETTINGS if not s.client and not s.deprecated}
    groups = {f.name: f.default_factory for f in dataclasses.fields(Settings)
              if f.default_factory is not dataclasses.MISSING}
    fields = {(group, f.name): (f, factory()) for group, factory in groups.items()
              for f in dataclasses.fields(factory())}  # type: ignore[arg-type]
    assert set(declared) <= set(fields)
    assert {group for group, _ in set(fields) - set(declared)} == {"analysis"}
    hints = {group: typing.get_type_hints(type(factory())) for group, factory in groups.items()}
    for (group, attr), (field, instance) in fields.items():
        if (group, attr) not in declared:
            continue  # an analysis choice the editor has no setting for
        setting = declared[group, attr]
        default = getattr(instance, attr)
        assert (list(default) if isinstance(default, tuple) else default) == (
            list(setting.default) if isinstance(setting.default, tuple) else setting.default
        ), setting.name
        hint = hints[group][field.name]
        if typing.get_origin(hint) is typing.Literal:
            assert typing.get_args(hint) == setting.enum, setting.name
    assert {f.name for f in dataclasses.fields(Settings)} == {*groups, "trusted"}


def test_provider_samples_is_an_older_spelling_of_provider_versions() -> None:
    # VS Code sends every declared setting, the new one with its default: the older
    # spelling, when set, still counts, and a warning names the new one
    settings, warnings = parse_settings({"provider": {"samples": 3, "versions": 5}})
    assert settings.provider.versions == 3
    assert warnings == ["codequorum.provider.samples is deprecated: use "
                        "codequorum.provider.versions"]
    settings, warnings = parse_settings({"provider": {"samples": None, "versions": 7}})
    assert (settings.provider.versions, warnings) == (7, [])
    _, warnings = parse_settings({"provider": {"samples": 3}}, deprecations=False)
    assert warnings == []
