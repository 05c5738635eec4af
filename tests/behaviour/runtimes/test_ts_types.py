"""Values drawn from TypeScript types the file declares: aliases, interfaces, enums,
tuples, records, maps, sets and type parameters."""

from __future__ import annotations

import pytest

from codequorum.behaviour.runtimes.js_literals import NotLiteral
from codequorum.behaviour.runtimes.ts_draws import type_values, value_type
from codequorum.behaviour.runtimes.ts_parameters import typed_parameters
from codequorum.behaviour.runtimes.ts_types import (
    declared_types,
    object_members,
    type_parameters,
    unwrapped,
)

FILE = """type Shape = 'circle' | 'square';
export enum Direction { Up = 'UP', Down = 'DOWN' }
enum Level { Low, High = 5, Top }
interface User { name: string; address?: { city?: string } }
type Point = [number, number];
"""


def test_aliases_interfaces_and_enums_are_the_types_they_stand_for() -> None:
    got = declared_types(FILE)
    assert got["Shape"] == "'circle' | 'square'" and got["Direction"] == '"UP" | "DOWN"'
    assert got["Level"] == "0 | 5 | 6" and got["Point"] == "[number, number]"
    assert object_members(got["User"]) == [("name", "string", False),
                                           ("address", "{ city?: string }", True)]


def test_declared_types_are_drawn_through_their_names() -> None:
    aliases = declared_types(FILE)
    assert [type_values("Shape", i, aliases) for i in range(3)] == ["circle", "square", "circle"]
    assert [type_values("Level", i, aliases) for i in range(3)] == [0, 5, 6]
    assert type_values("Point", 1, aliases) == [1, -3]
    assert type_values("User", 0, aliases) == {"$": "object", "v": [["name", ""]]}
    assert type_values("Record<string, number>", 1) == {"$": "object",
                                                        "v": [["a", 1], ["b", -3]]}
    assert type_values("Map<string, boolean>", 1)["$"] == "map"
    assert type_values("[x: number, y: number]", 0) == [0, 1]
    assert unwrapped("readonly number[]") == "number[]"
    assert unwrapped("ReadonlyArray<string>") == "string[]"
    assert unwrapped(" ((number | null)) ") == "number | null"
    assert unwrapped("Readonly<(string)[]>") == "(string)[]"
    assert unwrapped("(x: number) => (string)") == "(x: number) => (string)"
    assert unwrapped("(a) | (b)") == "(a) | (b)"


def test_a_functions_type_parameters_are_numbers() -> None:
    code = "export function unique<T>(items: readonly T[]): T[] { return [...items]; }"
    found = typed_parameters([code], "unique")
    assert found is not None and found[0] == ["readonly T[]"] and found[1]["T"] == "number"
    assert type_values(found[0][0], 2, found[1]) == [-3, 7, 42]


def test_a_bounded_type_parameter_draws_its_bound() -> None:
    """date-fns' ``<DateType extends Date>(date: DateType | number)`` draws dates and
    numbers; a bound that cannot be drawn (``keyof T``) leaves a number."""
    assert type_parameters("function f<D extends Date, K extends keyof D, T = string, "
                           "M extends Map<string, Array<number>>>(d: D): K") == {
        "D": "Date", "K": "keyof D", "T": "string", "M": "Map<string, Array<number>>"}
    assert type_parameters("function f(x: Array<number>): number") == {}
    assert type_parameters("const f = <T,>(x: T) => x") == {"T": ""}
    code = ("export function isFirstDayOfMonth<DateType extends Date>("
            "date: DateType | number): boolean { return true; }")
    found = typed_parameters([code], "isFirstDayOfMonth")
    assert found is not None and found[1]["DateType"] == "Date"
    drawn = [type_values(found[0][0], i, found[1]) for i in range(2)]
    assert drawn[0]["$"] == "date" and isinstance(drawn[1], int | float)
    picked = typed_parameters(["function g<K extends keyof T, T>(k: K): K { return k; }"], "g")
    assert picked is not None and picked[1]["K"] == "number"


def test_an_examples_values_show_the_types_a_series_scales() -> None:
    assert [value_type(v) for v in ("a", 1, [1, 2], ["a"], True, [1, "a"])] == [
        "string", "number", "number[]", "string[]", "boolean", None]


def test_the_types_a_namespace_declares_are_named_bare_and_through_it() -> None:
    text = ("type Kind = 'top';\nexport namespace Shapes {\n"
            "  export type Kind = 'circle' | 'square';\n"
            "  interface Size { r: number }\n  namespace Deep { enum E { A } }\n}\n"
            "export declare namespace Ambient { type Gone = 'x'; }\n")
    assert declared_types(text) == {"Kind": "'top'", "Shapes.Kind": "'circle' | 'square'",
                                    "Size": "{ r: number }", "Shapes.Size": "{ r: number }",
                                    "E": "0", "Shapes.Deep.E": "0", "Gone": "'x'",
                                    "Ambient.Gone": "'x'"}


def test_a_function_in_its_module_draws_the_types_its_file_declares() -> None:
    from codequorum.behaviour.runtimes.ts_parameters import module_types
    from codequorum.core.model import ModuleContext

    text = "export enum D { Up = 'UP' }\nexport function turn(d: D): D { return d; }\n"
    module = ModuleContext(name="utils", path="utils.ts", qualified_name="turn",
                           kind="function", files=(("utils.ts", text),), roots=())
    assert module_types(module) == {"D": '"UP"'}


def test_a_function_type_draws_a_callback_by_what_it_returns() -> None:
    from codequorum.behaviour.runtimes.ts_types import callback_source

    assert callback_source("(x: number) => number") == "(x) => Number(x) * 2 + 1"
    assert callback_source("((x: number) => boolean)") == "(x) => Number(x) % 2 === 0"
    assert callback_source("() => Promise<void>") == "async (x) => x"
    assert callback_source("number") is None and callback_source("(number)[]") is None
    assert type_values("(s: string) => string", 0) == {"$": "source",
                                                       "v": "(x) => String(x) + '!'"}
    # remeda's ``fns: readonly ((data: T) => boolean)[]``: an array of functions, not one
    assert callback_source("((data: T) => boolean)[]") is None
    assert type_values("readonly ((data: T) => boolean)[]", 1, {"T": "number"}) == [
        {"$": "source", "v": "(x) => Number(x) % 2 === 0"}] * 2
    assert callback_source("<T>(x: T) => number[]") == "(x) => x"


def test_a_type_parameter_bound_by_an_imported_type_draws_it() -> None:
    """remeda's ``<T1 extends IterableContainer>(arr1: T1, ...)``, ``IterableContainer``
    imported from another file (``readonly T[] | readonly []``): arrays and the empty
    tuple, where before the bound was not read and numbers were drawn (every call raised)."""
    known = declared_types("export type IterableContainer<T = unknown> = "
                           "readonly T[] | readonly [];\n")
    code = ("const concatImpl = <T1 extends IterableContainer, T2 extends IterableContainer>("
            "arr1: T1, arr2: T2): [...T1, ...T2] => [...arr1, ...arr2];")
    found = typed_parameters([code], "concatImpl", known)
    assert found is not None and found[1]["T1"] == "IterableContainer"
    assert [type_values("T1", i, found[1]) for i in range(4)] == [[], [], [0, "a"], []]


GENERIC = """/** The argument. */
export type DateArg<DateType extends Date> = DateType | number | string;
export interface Duration {
  /** The number of years */
  years?: number;
  // weeks are counted too
  weeks?: number;
}
interface Interval<Start extends DateArg<Date> = DateArg<Date>, End = Start> {
  start: Start;
  end: End;
}
type Pair<T, U = string> = [T, U];
"""


def test_generic_aliases_take_their_arguments_and_documented_members_are_read() -> None:
    """date-fns's types: ``DateArg<Date> & {}`` draws dates, numbers and strings (before:
    "parameter types not drawn"), an interface documented member by member is an object
    type, a generic named bare takes its defaults, ``& {}`` adds nothing and an
    intersection of object types is one."""
    aliases = declared_types(GENERIC)
    assert aliases["DateArg<>"] == "<DateType extends Date>"
    assert object_members(aliases["Duration"]) == [("years", "number", True),
                                                  ("weeks", "number", True)]
    assert [type_values("DateArg<Date> & {}", i, aliases) for i in range(3)] == [
        {"$": "date", "v": "2024-02-29T00:00:00.000Z"}, 0, ""]
    assert type_values("Pair<number>", 1, aliases) == [1, "hello"]
    assert type_values("Pair<number, boolean>", 1, aliases) == [1, True]
    assert type_values("Interval", 0, aliases) == {"$": "object", "v": [  # End is Start's
        ["end", 0], ["start", {"$": "date", "v": "2024-02-29T00:00:00.000Z"}]]}
    assert type_values("Duration & { strict: boolean }", 1, aliases) == {"$": "object", "v": [
        ["strict", False], ["weeks", -3], ["years", 1]]}
    with pytest.raises(NotLiteral):  # more arguments than it has parameters: not drawn
        type_values("Pair<number, boolean, string>", 0, aliases)
