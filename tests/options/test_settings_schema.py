"""The settings schema is written from the declared settings, and each setting that mirrors
an option names one that exists."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from codequorum.options import settings_schema
from codequorum.options.declarations import SETTINGS, Setting, options_for

SCHEMA = Path(__file__).resolve().parents[2] / "shared" / "settings.schema.json"


def test_shared_schema_is_written_from_the_declarations() -> None:
    # after changing a Setting in options/declarations.py:
    #   scripts/generate
    assert SCHEMA.read_text(encoding="utf-8") == settings_schema.schema_text()


def test_the_text_is_the_json_schema() -> None:
    assert json.loads(settings_schema.schema_text()) == settings_schema.json_schema()


@pytest.mark.parametrize("setting", [s for s in SETTINGS if s.mirrors], ids=lambda s: s.name)
def test_a_mirrored_option_is_declared_for_its_command(setting: Setting) -> None:
    assert setting.mirrors is not None
    command, attribute = setting.mirrors
    assert any(option.attribute == attribute and option.keys
               for option in options_for(command, common=False))


def test_setting_names_are_unique() -> None:
    names = [s.name for s in SETTINGS]
    assert len(names) == len(set(names))


def test_a_setting_only_the_user_may_set_is_a_machine_setting() -> None:
    schema = settings_schema.json_schema()["properties"]
    for setting in SETTINGS:
        scope = schema[settings_schema.PREFIX + setting.name].get("scope")
        assert (scope == "machine") is (not setting.reach.project_may_set), setting.name


def test_a_whole_number_is_written_without_a_fraction() -> None:
    prop = settings_schema.json_schema()["properties"]["codequorum.provider.timeout"]
    assert json.dumps(prop["default"]) == "60"
    assert json.dumps(prop["exclusiveMinimum"]) == "0"
