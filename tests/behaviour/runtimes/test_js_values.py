"""JavaScript values as labels and messages show them."""

from __future__ import annotations

from codequorum.behaviour.runtimes.js_values import show, show_call, shown_text


def test_strings_show_printable_letters_as_they_are_and_escape_the_rest() -> None:
    assert show("naïve Straße 日本") == '"naïve Straße 日本"'
    # a bidi override, a zero-width and a non-breaking space, a line break, a lone half
    assert show("a\u202eb\u200bc\xa0d\ne\ud800") == '"a\\u202eb\\u200bc\\u00a0d\\ne\\ud800"'
    assert show('say "hi" \\') == '"say \\"hi\\" \\\\"'
    assert show("\U0001F600") == '"\U0001F600"' and show("\U000E0041") == '"\\u{e0041}"'
    assert show_call("f", ["ß", [1, None]]) == 'f("ß", [1, null])'


def test_a_typescript_callbacks_blanked_types_show_as_nothing() -> None:
    """A test's ``(...items: number[]) => ...`` runs with its types blanked in place; its
    label reads as the JavaScript would be written."""
    from codequorum.behaviour.runtimes.js_values import show
    assert show({"$": "source", "v": "(...items          ) => items.length"}) == \
        "(...items) => items.length"
    assert show({"$": "source", "v": "(a        , b        )          => a + b"}) == \
        "(a, b) => a + b"


def test_a_returned_function_shows_what_its_probe_calls_gave() -> None:
    tree = {"$": "function", "calls": [[[1], 2], [[2], None, "TypeError"],
                                       [[1], {"$": "undefined"}]]}
    assert show(tree) == "a function: (1) => 2, (2) => throws TypeError, (1) => undefined"
    assert show([{"$": "function", "v": "inner"}, {"$": "function", "v": ""}]) == (
        "[function inner, function (anonymous)]")
    assert shown_text('{"$":"function","calls":[[[1,1],[1]]]}') == "a function: (1, 1) => [1]"


def test_a_returned_function_shows_what_the_function_passed_in_heard() -> None:
    tree = {"$": "function", "calls": [[[1], {"$": "undefined"}]],
            "heard": [[1, "a"], {"$": "throws", "v": "TypeError"}]}
    assert show(tree) == (
        'a function: (1) => undefined; calls back (1, "a"), throws TypeError')


def test_what_the_timers_made_the_function_passed_in_hear_is_said_later() -> None:
    """A trailing ``debounce`` is heard after the calls, a leading one during them."""
    calls = [[[1], {"$": "undefined"}]]
    trailing = {"$": "function", "calls": calls, "heard": [{"$": "later"}, [1]]}
    both = {"$": "function", "calls": calls, "heard": [[1], {"$": "later"}, [2], [1]]}
    assert show(trailing) == "a function: (1) => undefined; calls back later (1)"
    assert show(both) == "a function: (1) => undefined; calls back (1), then later (2), (1)"
