"""How a returned value prints alike: equal values give one key."""

from __future__ import annotations

from codequorum.core.values import canonical_output, shown_output


def test_canonical_output_makes_equal_numbers_one_key() -> None:
    assert canonical_output("2") == canonical_output("2.0") == "2"
    assert canonical_output("True") == canonical_output("1")  # True == 1, as the graders say
    assert canonical_output("-0.0") == "0"
    assert canonical_output("[1, 2.0]") == canonical_output("[1.0, 2]") == "[1, 2]"
    assert canonical_output("{2: 1.0, 1: 2}") == canonical_output("{1: 2, 2: 1}")
    assert canonical_output("{3, 1}") == canonical_output("{1, 3.0}")
    assert canonical_output("[1]") != canonical_output("(1,)")
    assert canonical_output("2.5") != canonical_output("2")
    assert canonical_output("'2'") != canonical_output("2")


def test_an_objects_address_is_no_part_of_its_key() -> None:
    """toolz's ``memoize(add)`` returns a function: versions that return ``add`` agree,
    whatever address each process gave it; other objects stay apart."""
    from codequorum.core.values import canonical_output

    assert canonical_output("<function add at 0x7f3a1c2b>") == canonical_output(
        "<function add at 0x7f99eeaa>")
    assert canonical_output("<function add at 0x7f3a1c2b>") != canonical_output(
        "<function sub at 0x7f3a1c2b>")
    assert canonical_output("[<function add at 0x1>, 2]") == canonical_output(
        "[<function add at 0x2>, 2]")
    assert canonical_output("'at 0x12'") == "'at 0x12'"  # a string is data


def test_an_example_that_shows_nothing_reads_nothing() -> None:
    assert shown_output("") == "nothing"  # doctest prints no None; a statement may print none
    assert shown_output("7\n") == "7"
    assert shown_output("'a'") == "'a'"
