"""A version's helpers and its module's declarations: each name declared once."""

from __future__ import annotations

from codequorum.behaviour.runtimes.js_helpers import reconciled
from codequorum.behaviour.runtimes.js_modules import spliced

MODULE = ("import { pad } from './pad';\nconst DIGITS = '0123456789';\n"
          "export const BASE = 10;\nfunction f(n) { return DIGITS[n]; }\n")


def test_the_versions_helper_replaces_the_modules_declaration_on_its_line() -> None:
    version = "const DIGITS = 'abcdefghij';\n\nfunction f(n) { return DIGITS[n]; }\n"
    source, kept = reconciled(MODULE, version, "javascript", "f")
    assert source.splitlines()[1] == "" and len(source.splitlines()) == 4
    assert kept == version


def test_an_exported_name_and_an_import_stay_the_modules() -> None:
    version = ("import { pad } from './pad';\nconst BASE = 16;\n\n"
               "function f(n) { return pad(n.toString(BASE)); }\n")
    source, kept = reconciled(MODULE, version, "javascript", "f")
    assert source == MODULE
    assert kept == "\n\n\nfunction f(n) { return pad(n.toString(BASE)); }\n"


def test_a_version_without_helpers_is_spliced_as_before() -> None:
    assert spliced(MODULE, "javascript", "f", "function f(n) { return n; }") == (
        MODULE.replace("function f(n) { return DIGITS[n]; }", "function f(n) { return n; }"))


def test_a_spliced_typescript_module_declares_a_shared_type_once() -> None:
    module = "type N = number;\nfunction f(n: N): N { return n; }\n"
    version = "type N = number;\n\nfunction f(n: N): N { return n + 1; }\n"
    whole = spliced(module, "typescript", "f", version)
    assert whole.count("type N") == 1 and "return n + 1" in whole
