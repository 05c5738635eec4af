"""The line breaks a JavaScript version's literals make: neutralised for static counts
(same length, same code) and told by their first line for traced runs."""

from __future__ import annotations

from codequorum.behaviour.runtimes.js_names import first_lines, inert


def test_every_escape_of_a_line_break_becomes_a_tab_of_the_same_length() -> None:
    code = ('const o = { "a\\nb"() {}, \'c\\x0Ad\'() {}, "e\\u000af"() {}, "g\\u{0000a}h"() {},'
            ' "i\\12j"() {}, "k\\015l"() {}, "m\\rn"() {} };')
    out = inert(code)
    assert len(out) == len(code)
    assert out == ('const o = { "a\\tb"() {}, \'c\\x09d\'() {}, "e\\u0009f"() {}, '
                   '"g\\u{00009}h"() {}, "i\\11j"() {}, "k\\011l"() {}, "m\\tn"() {} };')


def test_other_escapes_code_and_template_substitutions_are_kept() -> None:
    code = ('const s = "a\\\\nb\\t\\x41\\u0042";\nlet t = `x\ny${ (() => { return 1\n})() }z\\n`;'
            '\n// a comment "\\n"\nconst r = /\\n/;')
    out = inert(code)
    assert out == ('const s = "a\\\\nb\\t\\x41\\u0042";\n'
                   'let t = `x y${ (() => { return 1\n})() }z\\t`;'
                   '\n// a comment "\\n"\nconst r = /\\n/;')


def test_first_lines_are_each_breaking_literals_text_before_its_break() -> None:
    code = ('o["x (0x1 <SharedFunctionInfo x>)]\\n  0x1 @ 0 : 0c Return"] = function () {};'
            ' const a = "\\u0041b\\x0a", b = "no break", c = `t\nu`, d = "\\nlead";')
    assert first_lines(code) == {"x (0x1 <SharedFunctionInfo x>)]", "Ab", "t", ""}
