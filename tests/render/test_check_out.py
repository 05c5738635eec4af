"""``check``'s finding formats: the registry is the one place a format is named."""

from __future__ import annotations

from codequorum.cli.main import command_parsers
from codequorum.options.declarations import OPTIONS
from codequorum.render.check_out import FINDING_FORMATS, formats_help


def test_check_s_format_option_is_read_from_the_registry() -> None:
    (declared,) = [o for o in OPTIONS if o.name == "format" and "check" in o.commands]
    assert declared.values == tuple(f.name for f in FINDING_FORMATS) == ("text", "json", "sarif")
    assert declared.help == formats_help() == "text (default), json or sarif"
    parser = command_parsers()["check"]
    (action,) = [a for a in parser._actions if "--format" in a.option_strings]
    assert (action.help, action.default) == (formats_help(), "text")
